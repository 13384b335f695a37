/* Shared pieces of the fuzz harnesses: scratch files and oracles. */
#include "fuzz_common.h"

#include "ic_decode.h"
#include "ic_report.h"
#include "ic_sweep.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ic_fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz oracle: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static char scratch_dir[256];

static void remove_scratch(void)
{
    static const char *const names[] = {"hw.yaml", "model.yaml", "config.json"};
    char p[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch_dir, names[i]);
        remove(p);
    }
    rmdir(scratch_dir);
}

const char *ic_fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    if (!scratch_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(scratch_dir, sizeof scratch_dir, "%s/infcalc-fuzz-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(scratch_dir))
            ic_fuzz_fail("cannot make a scratch folder in %s", tmp && *tmp ? tmp : "/tmp");
        atexit(remove_scratch);
        gsl_set_error_handler_off();
    }
    static char path[3][512];
    int slot = strcmp(name, "hw.yaml") == 0 ? 0 : strcmp(name, "model.yaml") == 0 ? 1 : 2;
    snprintf(path[slot], sizeof path[slot], "%s/%s", scratch_dir, name);
    FILE *f = fopen(path[slot], "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
        ic_fuzz_fail("cannot write %s", path[slot]);
    return path[slot];
}

void ic_fuzz_check_error(int rc, const struct ic_err *e, const char *path)
{
    if (rc != IC_EINVAL)
        ic_fuzz_fail("%s: code %d (expected IC_EINVAL for bad input): %s", path, rc, e->msg);
    if (strcmp(e->file, path) != 0)
        ic_fuzz_fail("error names file '%s', not '%s': %s", e->file, path, e->msg);
    if (!e->line || !e->col)
        ic_fuzz_fail("error without a line:column (%u:%u): %s", e->line, e->col, e->msg);
    if (!e->msg[0])
        ic_fuzz_fail("error without a message at %u:%u", e->line, e->col);
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        ic_fuzz_fail("cannot open /dev/null");
    ic_err_print(null, e);
    fclose(null);
}

static void check_point(const struct ic_point *p, const char *what)
{
    const double v[] = {p->weight_bytes, p->kv_bytes, p->flops, p->comm_bytes,
                        p->experts_touched, p->weights_s, p->compute_s, p->kv_s,
                        p->attn_s, p->comm_s, p->step_s, p->fixed_s, p->tokens_s,
                        p->tokens_s_chip, p->latency_s, p->usd_per_mtok, p->mem_weights_B,
                        p->mem_kv_B, p->mem_work_B, p->mem_per_chip_B, p->capacity_B,
                        p->b_crit, p->b_crit_moe};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            ic_fuzz_fail("%s: figure %zu of the point is %g", what, i, v[i]);
    if (!(p->step_s > 0))
        ic_fuzz_fail("%s: step time %g", what, p->step_s);
    if (!p->kv_split_heads || !p->kv_split_batch)
        ic_fuzz_fail("%s: KV split %llu x %llu", what, (unsigned long long)p->kv_split_heads,
                     (unsigned long long)p->kv_split_batch);
}

void ic_fuzz_check_decode(const struct ic_model_stats *m, const struct ic_hw *hw)
{
    static const uint64_t chips[] = {1, 8, 256}, batch[] = {1, 64, 4096},
                          context[] = {128, 32768, UINT64_C(1) << 20};
    struct ic_decode_cfg base = ic_decode_defaults();
    /* the first compute type the chip lists, bf16 when it has it */
    if (!(hw->peak_flop_s[IC_DT_BF16] > 0))
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (hw->peak_flop_s[t] > 0) {
                base.compute = (enum ic_dtype)t;
                break;
            }
    /* expected time needs measured rates for the weight and KV types */
    if (hw->measured.present && hw->measured.gemv_B_s[IC_DT_BF16] > 0)
        base.estimate = IC_EST_EXPECTED;
    static struct ic_point pts[IC_SWEEP_MAX_POINTS];
    struct ic_err e = {0};
    size_t n = 0;
    for (size_t c = 0; c < 3; c++)
        for (size_t b = 0; b < 3; b++)
            for (size_t s = 0; s < 3; s++) {
                struct ic_decode_cfg cfg = base;
                cfg.chips = chips[c];
                cfg.batch = batch[b];
                cfg.context = context[s];
                cfg.weights = cfg.kv = s == 1 ? IC_DT_INT8 : IC_DT_BF16;
                if (cfg.estimate == IC_EST_EXPECTED && !(hw->measured.gemv_B_s[IC_DT_INT8] > 0))
                    cfg.weights = cfg.kv = IC_DT_BF16;
                int rc = ic_decode(m, hw, &cfg, &pts[n], &e);
                if (rc) {
                    if (cfg.chips > hw->ici_domain_chips && !(hw->dcn_B_s > 0))
                        continue;
                    ic_fuzz_fail("decode refused chips %llu batch %llu context %llu: %s",
                                 (unsigned long long)cfg.chips, (unsigned long long)cfg.batch,
                                 (unsigned long long)cfg.context, e.msg);
                }
                check_point(&pts[n], "decode");
                n++;
            }
    FILE *null = fopen("/dev/null", "w");
    if (!null)
        ic_fuzz_fail("cannot open /dev/null");
    struct ic_report_group g = {"fuzz-model", hw->name, pts, n};
    struct ic_report r = {true, false, {IC_AXIS_BATCH, IC_AXIS_BATCH}, 0};
    ic_report_write(null, IC_FMT_JSON, &r, &g, 1);
    ic_report_write(null, IC_FMT_TABLE, &r, &g, 1);

    /* one batch sweep: 1, 2, 4 ... past the largest batch that fits */
    const enum ic_axis ax[1] = {IC_AXIS_BATCH};
    size_t ns = 0;
    if (ic_sweep_run(m, hw, &base, ax, 1, pts, &ns, &e))
        ic_fuzz_fail("batch sweep refused: %s", e.msg);
    for (size_t i = 0; i < ns; i++)
        check_point(&pts[i], "sweep");
    struct ic_report rs = {true, true, {IC_AXIS_BATCH, IC_AXIS_BATCH}, 1};
    g.n = ns;
    ic_report_write(null, IC_FMT_TABLE, &rs, &g, 1);
    ic_report_write(null, IC_FMT_CSV, &rs, &g, 1);
    fclose(null);
}

void ic_fuzz_load_hw(const char *file, struct ic_hw *out)
{
    char path[1024];
    struct ic_err e = {0};
    snprintf(path, sizeof path, "%s/hwdb/%s", IC_SRC_DIR, file);
    if (ic_hw_load(path, out, &e))
        ic_fuzz_fail("%s:%u:%u: %s", e.file, e.line, e.col, e.msg);
}

void ic_fuzz_load_model(const char *file, struct ic_model *out, struct ic_model_stats *st)
{
    char path[1024];
    struct ic_err e = {0};
    snprintf(path, sizeof path, "%s/modeldb/%s", IC_SRC_DIR, file);
    if (ic_model_load(path, out, &e) || ic_model_derive(out, st, &e))
        ic_fuzz_fail("%s:%u:%u: %s", e.file, e.line, e.col, e.msg);
}
