/* ic_dev_cpu: the self-check on this machine's CPU (ic_dev.h): the
 * microbenchmarks and the reference decode kernel of src/kernels/, with a
 * memory, a compute and an attention probe beside the timings. */
#include "ic_dev.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what the big points read from: validate's regime label and the entry's
 * memory.kind */
#define CPU_MEMORY "DRAM"

/* ---- machine facts ------------------------------------------------------ */

static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ' || *c == '\t')
                    c++;
                snprintf(buf, n, "%s", c);
                buf[strcspn(buf, "\n\"")] = '\0';
            }
            break;
        }
    fclose(f);
}

/* Size of the last-level cache from sysfs (index3, else the highest index). */
static double llc_bytes(void)
{
    for (int idx = 4; idx >= 2; idx--) {
        char path[128], text[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        char *ok = fgets(text, sizeof text, f);
        fclose(f);
        if (!ok)
            continue;
        char *end;
        double v = strtod(text, &end);
        if (*end == 'K')
            v *= 1024;
        else if (*end == 'M')
            v *= 1048576;
        if (v > 0)
            return v;
    }
    /* no cache folder in sysfs (some containers and sandboxes): what the C
     * library reads from CPUID, the last level it reports */
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l3 > 0)
        return (double)l3;
    if (l2 > 0)
        return (double)l2;
#endif
    return 0;
}

/* The CPU bench's matrices: 2048 columns at every size, a decode
 * projection's input width (the hidden size of Llama-3.2-1B and of
 * validate's model), so that the DRAM and in-cache rates are of one shape.
 * (4096 columns above 64 MiB before: from DRAM the kernel ran batches 8-16
 * up to ~1.2x faster there than at 2048, a throwaway diagnostic, README.) */
static void matrix_dims(enum ic_kern_wtype t, double bytes, uint32_t *rows, uint32_t *cols)
{
    ic_dev_matrix_dims(t, bytes, 2048, rows, cols);
}

/* ---- the probes -------------------------------------------------------------
 * The probes bench and validate take beside their timings, each one call of
 * the reference kernel's matmul after one untimed call, one pair per weight
 * type in that type (fp32 alone before 2026-12-02: the bf16 and int8
 * matmuls' rates over the fp32 probe moved 0.91-1.03 from DRAM and 1.19-2.99
 * in cache between benches, so that a type's rate stated at the fp32 probe
 * carried that drift into every prediction of the type):
 *  - memory: batch 1 over a matrix of 4x the LLC, in weight bytes per
 *    second. A plain read-only sum was this probe before: on this shared
 *    machine its ratio to the kernel's matmul moved from 0.7 to 1.05
 *    between runs minutes apart (both read DRAM, the matmul with software
 *    prefetch), while a decode step over this probe held within 0.92-0.99
 *    (a throwaway diagnostic, README). A probe that reads as the kernel
 *    reads follows the kernel.
 *  - compute: batch 64 over a matrix of a quarter of the LLC, in FLOP/s. The
 *    vCPUs' compute rate moves too (the same in-cache matmul ran at 175-210
 *    GFLOP/s in one afternoon), and nothing caught it. */
struct probe {
    struct ic_kern_matrix *w;
    uint32_t rows, cols, batch;
    float *x; /* [batch][cols] */
    float *y; /* [batch][rows] */
};

/* The smallest buffer the bench and validate call DRAM-resident: 4x the
 * LLC, and at least 128 MiB (on this 32 MiB-L3 machine a 48 MiB working set
 * still read ~1.3x faster than DRAM; and the ladder that finds the LLC
 * where the system's figure is wrong can stop one size short of a cliff
 * that falls at the cache's own size: 16 MiB once, here, for a 32 MiB L3). */
static double dram_min_B(double llc_B)
{
    return fmax(4 * llc_B, 128.0 * 1048576);
}

static void probe_free(struct probe *p)
{
    ic_kern_matrix_free(p->w);
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

static int probe_init(struct probe *p, enum ic_kern_wtype wt, double bytes, uint32_t batch,
                      struct ic_err *err)
{
    memset(p, 0, sizeof *p);
    matrix_dims(wt, bytes, &p->rows, &p->cols);
    p->batch = batch;
    int rc = ic_kern_matrix_create(wt, p->rows, p->cols, 4242, &p->w, err);
    if (rc)
        return rc;
    p->x = malloc(sizeof(float) * p->cols * batch);
    p->y = malloc(sizeof(float) * p->rows * batch);
    if (!p->x || !p->y) {
        probe_free(p);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    for (size_t k = 0; k < (size_t)p->cols * batch; k++)
        p->x[k] = (float)(k % 1000) / 1000.0f - 0.5f;
    return IC_OK;
}

/* The probe's rate now: weight bytes/s at batch 1, FLOP/s above (four
 * calls back to back, ~5 ms: one call of ~1.3 ms read 0.75x what the fourth
 * did, the cores still ramping up). */
static double probe_take(struct ic_kern_pool *pool, const struct probe *p)
{
    const int calls = p->batch == 1 ? 1 : 4;
    ic_kern_matmul(pool, p->w, p->x, p->batch, p->y);
    double t0 = ic_mb_now();
    for (int i = 0; i < calls; i++)
        ic_kern_matmul(pool, p->w, p->x, p->batch, p->y);
    double t = (ic_mb_now() - t0) / calls;
    return p->batch == 1 ? (double)ic_kern_matrix_bytes(p->w) / t
                         : 2.0 * p->batch * p->rows * (double)p->cols / t;
}

/* The median of n probes (n <= 16). */
static double probe_median(struct ic_kern_pool *pool, const struct probe *p, int n)
{
    double v[16];
    n = n > 16 ? 16 : n;
    for (int i = 0; i < n; i++)
        v[i] = probe_take(pool, p);
    return ic_mb_summary(v, n).median;
}

/* The attention probe: the reference kernel's decode attention alone
 * (dim 64, one layer, vocab 64: next to no weights), 8 sequences over 512
 * cached bf16 tokens, 16 query heads over 4 KV heads of 128 (validate's
 * group and head size), 8.4 MB of cache: within the LLC, since the
 * attention is scalar and latency-bound (an exp per score), not a read.
 * Bench states the attention figures at its level and validate takes it
 * beside every timing: between benches the attention per score moved
 * 9.9-18.5 ns against the GEMM compute probe, which did not follow it
 * (runs 12-15, docs/validation.md). */
enum { AP_B = 8, AP_S = 512, AP_H = 16, AP_KVH = 4, AP_D = 128 };
struct aprobe {
    struct ic_kern *k;
    uint32_t tok[AP_B], pos[AP_B];
};

static void aprobe_free(struct aprobe *a)
{
    ic_kern_free(a->k);
    memset(a, 0, sizeof *a);
}

static int aprobe_init(struct aprobe *a, struct ic_kern_pool *pool, struct ic_err *err)
{
    memset(a, 0, sizeof *a);
    const struct ic_kern_shape s = {64, 64, 1, AP_H, AP_KVH, AP_D, 64, AP_B, AP_S + 1};
    int rc = ic_kern_create(&s, IC_KW_FP32, IC_KKV_BF16, 29, pool, &a->k, err);
    if (rc)
        return rc;
    for (uint32_t b = 0; b < AP_B; b++) {
        ic_kern_fill_cache(a->k, b, AP_S, 41 + b);
        a->tok[b] = b;
        a->pos[b] = AP_S;
    }
    return IC_OK;
}

/* The attention probe's seconds per score now (one untimed step, then two
 * timed: ~2-3 ms on this machine). */
static double aprobe_take(const struct aprobe *a)
{
    ic_kern_step(a->k, AP_B, a->tok, a->pos, NULL);
    const double t0 = ic_mb_now();
    ic_kern_step(a->k, AP_B, a->tok, a->pos, NULL);
    ic_kern_step(a->k, AP_B, a->tok, a->pos, NULL);
    return (ic_mb_now() - t0) / (2.0 * AP_B * (AP_S + 1) * AP_H);
}

/* Seconds for the matmuls m[0..n) called back to back, each over x at
 * batch into y (the chains bench times: a step's matmuls, a matrix's
 * rows as several calls). */
static double time_matmuls(struct ic_kern_pool *pool, struct ic_kern_matrix *const *m, int n,
                           const float *x, uint32_t batch, float *y)
{
    const double t0 = ic_mb_now();
    for (int c = 0; c < n; c++)
        ic_kern_matmul(pool, m[c], x, batch, y);
    return ic_mb_now() - t0;
}

/* ---- the device's state ----------------------------------------------------- */

struct ic_dev {
    bool quick;
    struct ic_kern_pool *pool, *pool1;   /* every thread asked for; one */
    struct probe pr[IC_DEV_TYPES], cpr[IC_DEV_TYPES]; /* memory and compute probes per type */
    struct aprobe ap;                    /* the attention probe (k NULL: none) */
    float *buf, *buf2, *buf3;            /* [n] each: the DRAM buffers */
    size_t n;
    struct ic_kern_matrix *mats[IC_DEV_TYPES][2]; /* per type: DRAM, in-cache */
    uint32_t dims[IC_DEV_TYPES][2][2];            /* their rows, cols */
};

static void cpu_close(struct ic_dev *d)
{
    if (!d)
        return;
    for (int t = 0; t < IC_DEV_TYPES; t++) {
        probe_free(&d->pr[t]);
        probe_free(&d->cpr[t]);
        for (int k = 0; k < 2; k++)
            ic_kern_matrix_free(d->mats[t][k]);
    }
    aprobe_free(&d->ap);
    free(d->buf);
    free(d->buf2);
    free(d->buf3);
    ic_kern_pool_free(d->pool1);
    ic_kern_pool_free(d->pool);
    free(d);
}

/* The probes of every type (hm NULL: the bench), or of the types whose
 * probes the entry hm holds and fp32's (validate): memory over dram_min_B,
 * compute over a quarter of the LLC; and the attention probe (validate:
 * where the entry holds its reference). */
static int probes_init(struct ic_dev *d, double llc_B, const struct ic_hw_measured *hm,
                       struct ic_err *err)
{
    int rc = IC_OK;
    for (int t = 0; t < ic_dev_cpu.n_types && !rc; t++) {
        if (hm && t > 0 && ic_dev_probe_type(&ic_dev_cpu, hm, ic_dev_cpu.types[t]) != t)
            continue;
        if (!(rc = probe_init(&d->pr[t], ic_dev_cpu.types[t], dram_min_B(llc_B), 1, err)))
            rc = probe_init(&d->cpr[t], ic_dev_cpu.types[t], llc_B / 4, 64, err);
    }
    if (!rc && (!hm || hm->probe_attn_s > 0))
        rc = aprobe_init(&d->ap, d->pool, err);
    return rc;
}

/* ---- bench ------------------------------------------------------------------- */

/* The cache the bench can use, where the system's figure is not one: a VM
 * without sysfs cache folders gets CPUID's L3 of the host (one 2-vCPU
 * machine reported 508 MiB, while its reads fell to DRAM speed past 32 MiB:
 * ladder 100 GB/s at 32 MiB, 55 at 64, 45 at 1 GiB). The buffers, the
 * probes and every "in the LLC" figure are sized from the LLC, and the
 * expected time calls a model cache-resident below it, so a cache that
 * is not there put a DRAM rate under "in cache" and DRAM-resident models
 * under "cache-resident". Read bandwidth at 1 MiB, 2, 4 ... up to the
 * reported size (at most 256 MiB), each over a DRAM read beside it (this
 * machine's DRAM switches between two levels); the cache ends at the last
 * size that reads at least LLC_CACHE_RATIO x DRAM
 * (ic_selfcheck_llc_from_ladder). Returns that size, or the reported one
 * where the ladder reaches it (or cannot judge it). */
enum { LLC_CHECK_MAX_MIB = 256 };
#define LLC_CACHE_RATIO 1.4
static double effective_llc(struct ic_kern_pool *pool, double reported, bool quick)
{
    const size_t n = (size_t)1 << 28; /* 1 GiB of floats */
    float *buf = malloc(n * sizeof *buf);
    if (!buf)
        return reported;
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)(i % 1000) * 1e-3f;
    /* each size against a 512 MiB read of the buffer's far half right
     * after it, the median of the ratios: a level switch of this machine
     * between a size and a DRAM figure taken once (a whole run's 32.6-56.5
     * GB/s) once let 64 MiB pass for cache */
    enum { LLC_REPS = 5 };
    const int reps = quick ? 3 : LLC_REPS;
    double rel[16], ws[16], v[LLC_REPS];
    int k = 0;
    for (double w = 1048576; w <= fmin(reported, LLC_CHECK_MAX_MIB * 1048576.0) && k < 16;
         w *= 2, k++) {
        for (int r = 0; r < reps; r++) {
            const double c = ic_mb_read(pool, buf, (size_t)(w / sizeof *buf),
                                        (int)fmax(1, 256.0 * 1048576 / w), 1)
                                 .median;
            v[r] = c / ic_mb_read(pool, buf + n / 2, n / 2, 1, 1).median;
        }
        ws[k] = w;
        rel[k] = ic_mb_summary(v, reps).median;
    }
    free(buf);
    return ic_selfcheck_llc_from_ladder(ws, rel, k, 1.0, LLC_CACHE_RATIO, reported);
}

static int cpu_bench_open(const struct ic_bench_opts *o, struct ic_bench_res *r,
                          struct ic_dev **out, struct ic_err *err)
{
    cpu_model(r->chip, sizeof r->chip);
    r->llc_B = o->llc_B > 0 ? o->llc_B : llc_bytes();
    if (!(r->llc_B > 0)) {
        ic_err_set(err, IC_EIO, NULL, 0, 0,
                   "cannot read the last-level cache size from "
                   "/sys/devices/system/cpu/cpu0/cache or sysconf");
        ic_err_hint(err, "the bench sizes its buffers from it; give it with --llc SIZE "
                         "(e.g. 32MiB)");
        return IC_EIO;
    }
    struct ic_dev *d = calloc(1, sizeof *d);
    if (!d)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    d->quick = o->quick;
    int rc;
    if ((rc = ic_kern_pool_create(o->threads, &d->pool, err)) ||
        (rc = ic_kern_pool_create(1, &d->pool1, err)))
        goto fail;
    if (!(o->llc_B > 0)) {
        const double eff = effective_llc(d->pool, r->llc_B, o->quick);
        if (eff < r->llc_B) {
            r->llc_reported_B = r->llc_B;
            r->llc_B = eff;
        }
    }
    if ((rc = probes_init(d, r->llc_B, NULL, err)))
        goto fail;
    r->threads = ic_kern_pool_threads(d->pool);
    r->reps = o->quick ? 3 : 9;
    /* DRAM buffer: 1 GiB, and at least dram_min_B (quick: just that) */
    r->dram_B = fmax(dram_min_B(r->llc_B), o->quick ? 0 : 1073741824.0);
    d->n = (size_t)(r->dram_B / sizeof(float));
    d->buf = malloc(d->n * sizeof(float));  /* [n] */
    d->buf2 = malloc(d->n * sizeof(float)); /* [n] */
    d->buf3 = malloc(d->n * sizeof(float)); /* [n] */
    if (!d->buf || !d->buf2 || !d->buf3) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for a %.0f MB buffer",
                        r->dram_B / 1e6);
        goto fail;
    }
    for (size_t i = 0; i < d->n; i++)
        d->buf[i] = d->buf2[i] = d->buf3[i] = (float)(i % 1000) * 1e-3f;
    *out = d;
    return IC_OK;
fail:
    cpu_close(d);
    return rc;
}

/* max / min - 1 of v[0..n) */
static double spread(const double *v, int n)
{
    double lo = v[0], hi = v[0];
    for (int i = 1; i < n; i++) {
        lo = fmin(lo, v[i]);
        hi = fmax(hi, v[i]);
    }
    return lo > 0 ? hi / lo - 1 : INFINITY;
}

/* Appends text to buf[size] after sep where buf is not empty (cut where
 * it is full): the bench's warnings (r->warn) and the phrases of one. */
static void text_add(char *buf, size_t size, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void text_add(char *buf, size_t size, const char *sep, const char *fmt, ...)
{
    size_t len = strlen(buf);
    const size_t sl = len ? strlen(sep) : 0;
    if (len + sl + 1 >= size)
        return;
    memcpy(buf + len, sep, sl);
    len += sl;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

enum { PROBE_TRIES = 3 };

static int cpu_read(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    r->read_s = ic_mb_read(d->pool, d->buf, d->n, 1, r->reps);
    r->read_1t_s = ic_mb_read(d->pool1, d->buf, d->n, 1, r->reps);
    r->read_B_s = r->read_s.median;
    r->read_1t_B_s = r->read_1t_s.median;
    /* validate's probe, as validate takes it (struct probe): the reference
     * its probes are divided by, so that what the probe reads differently
     * from the figure above is not taken for a change in the machine.
     * Every rate the entry holds is stated at this level, so a disturbed
     * reference skews them all (one entry had its compute probe at 69
     * GFLOP/s where quiet runs read 133-156, issue 13): the median of reps
     * probes is taken twice, and a third time when the two differ by more
     * than IC_DEV_PROBE_SPREAD; the reference is the median of the takes,
     * and a disagreement left is a warning. The same check runs again at
     * the end of the bench (cpu_transition). */
    const int nt = ic_dev_cpu.n_types;
    double bw[IC_DEV_TYPES][PROBE_TRIES], fl[IC_DEV_TYPES][PROBE_TRIES];
    int k = 0;
    bool agree = false;
    while (k < PROBE_TRIES && !agree) {
        for (int t = 0; t < nt; t++) {
            bw[t][k] = probe_median(d->pool, &d->pr[t], r->reps);
            fl[t][k] = probe_median(d->pool, &d->cpr[t], r->reps);
        }
        k++;
        agree = k >= 2;
        for (int t = 0; t < nt; t++)
            agree = agree && spread(bw[t], k) <= IC_DEV_PROBE_SPREAD &&
                    spread(fl[t], k) <= IC_DEV_PROBE_SPREAD;
    }
    /* one sentence for every type whose probes disagreed (the entry's
     * notes hold ~500 characters of warnings) */
    char what[256] = "";
    for (int t = 0; t < nt; t++) {
        const double sb = spread(bw[t], k), sf = spread(fl[t], k);
        const struct ic_mb_stats mb = ic_mb_summary(bw[t], k), mf = ic_mb_summary(fl[t], k);
        r->probe_B_s[t] = mb.median;
        r->probe_flop_s[t] = mf.median;
        if (sb > IC_DEV_PROBE_SPREAD || sf > IC_DEV_PROBE_SPREAD)
            text_add(what, sizeof what, "; ", "%s %.1f-%.1f GB/s, %.0f-%.0f GFLOP/s",
                     ic_kern_wtype_name(ic_dev_cpu.types[t]), mb.lo / 1e9, mb.hi / 1e9,
                     mf.lo / 1e9, mf.hi / 1e9);
    }
    if (what[0])
        text_add(r->warn, sizeof r->warn, " ",
                 "The reference probes disagreed over %d takes by more than %.0f%% (%s): the "
                 "machine was disturbed (the rates are stated at their medians); run the bench "
                 "again when it is quiet.",
                 k, 100 * IC_DEV_PROBE_SPREAD, what);
    return IC_OK;
}

static int cpu_stream(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    r->copy_B_s = ic_mb_copy(d->pool, d->buf2, d->buf, d->n, r->reps).median;
    r->triad_B_s = ic_mb_triad(d->pool, d->buf3, d->buf, d->buf2, d->n, r->reps).median;
    return IC_OK;
}

static int cpu_ladder(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    for (double ws = 256.0 * 1024;
         ws <= fmin(r->dram_B, d->quick ? 64.0 * 1048576 : 1073741824.0) &&
         r->ladder_n < IC_DEV_LADDER;
         ws *= 2) {
        size_t m = (size_t)(ws / sizeof(float));
        if (m > d->n)
            break;
        int passes = (int)fmax(1, 256.0 * 1048576 / ws);
        r->ladder_B[r->ladder_n] = ws;
        r->ladder_B_s[r->ladder_n] =
            ic_mb_read(d->pool, d->buf, m, passes, d->quick ? 2 : 5).median;
        r->ladder_n++;
    }
    /* "in cache": a quarter of the LLC, clear of the cliff */
    r->cache_read_B_s = ic_mb_read(d->pool, d->buf, (size_t)(r->llc_B / 4 / sizeof(float)),
                                   (int)fmax(1, 512.0 * 1048576 / (r->llc_B / 4)), r->reps)
                            .median;
    return IC_OK;
}

static int cpu_peak(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    r->peak_s = ic_mb_fma_peak(d->pool, d->quick ? 2 : 5);
    r->peak_flop_s = r->peak_s.median;
    return IC_OK;
}

static int cpu_fork_join(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    r->fork_join_stats = ic_mb_fork_join(d->pool, r->reps);
    r->fork_join_s = r->fork_join_stats.median;
    return IC_OK;
}

static int cpu_gemv_dram(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    /* matrices: DRAM-resident (dram_min_B; 256 MiB and up) and cache-resident (LLC / 4) */
    const enum ic_kern_wtype *types = ic_dev_cpu.types;
    for (int t = 0; t < ic_dev_cpu.n_types; t++)
        for (int k = 0; k < 2; k++) {
            double bytes = k == 0 ? fmax(dram_min_B(r->llc_B), d->quick ? 0 : 256.0 * 1048576)
                                  : r->llc_B / 4;
            matrix_dims(types[t], bytes, &d->dims[t][k][0], &d->dims[t][k][1]);
            int rc = ic_kern_matrix_create(types[t], d->dims[t][k][0], d->dims[t][k][1],
                                           1234 + (uint64_t)t, &d->mats[t][k], err);
            if (rc)
                return rc;
        }
    /* The rate from DRAM is the type's memory probe itself, the median of
     * its takes in cpu_read: the kernel's matmul at batch 1 over
     * dram_min_B, the size and procedure validate's probes repeat beside
     * every timing, so that a prediction is the probe now times the
     * step's bytes and nothing the probe does not share. (Before
     * 2026-12-02 it was a 256 MiB matrix timed against the probe, the
     * median ratio times the reference: in one bench the fp32 matrix read
     * 1.12x its probe while validate's fp32 batch-1 steps ran at the
     * probe's rate, 7% slower than predicted, docs/validation.md.) The
     * 256 MiB matrix is still timed, for the report: each timing with a
     * read of the DRAM buffer just before it (the kernel's share of the
     * read bandwidth at the same moment; the read figure above was taken
     * minutes before, at its own level) and the type's probe. */
    for (int t = 0; t < ic_dev_cpu.n_types; t++) {
        double lv[16], ratio[16], of_read[16];
        const int np = r->reps < 16 ? r->reps : 16;
        const double bytes = (double)ic_kern_matrix_bytes(d->mats[t][0]);
        r->mat_B[t] = bytes;
        for (int i = 0; i < np; i++) {
            double rd = ic_mb_read(d->pool, d->buf, d->n, 1, 1).median;
            lv[i] = probe_take(d->pool, &d->pr[t]);
            double tv = ic_mb_matmul(d->pool, d->mats[t][0], d->dims[t][0][0], d->dims[t][0][1],
                                     1, 1)
                            .median;
            ratio[i] = bytes / tv / lv[i];
            of_read[i] = bytes / tv / rd;
        }
        r->gemv_level_B_s[t] = ic_mb_summary(lv, np).median;
        r->gemv_big_of_probe[t] = ic_mb_summary(ratio, np).median;
        r->gemv_of_read[t] = ic_mb_summary(of_read, np).median;
        r->gemv_B_s[t] = r->probe_B_s[t];
    }
    return IC_OK;
}

static int cpu_gemv_cache(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    (void)err;
    for (int t = 0; t < ic_dev_cpu.n_types; t++)
        r->gemv_cache_B_s[t] = (double)ic_kern_matrix_bytes(d->mats[t][1]) /
                               ic_mb_matmul(d->pool, d->mats[t][1], d->dims[t][1][0],
                                            d->dims[t][1][1], 1, r->reps * 3)
                                   .median;
    return IC_OK;
}

static int cpu_gemm(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    /* On a 2048 x 2048 matrix of each type (a decode projection's shape;
     * 16 MiB in fp32): on the LLC / 4 matrix, 1024 x 2048 in fp32, the
     * kernel ran batches 128-256 at ~150 GFLOP/s against ~210 on every
     * shape of 2048 rows or more, the step's among them (a throwaway
     * diagnostic, README). Each rate is stated at its type's reference
     * compute probe's level, as the DRAM rates are at the memory probe's, and is
     * the median of three passes over the batches (one with --quick; a
     * single pass read 1.4x apart on neighbouring batches). */
    const uint32_t gr = 2048, gc = 2048;
    const int passes = d->quick ? 1 : 3, nt = ic_dev_cpu.n_types;
    double gv[IC_DEV_TYPES][IC_DEV_BATCHES][3];
    struct ic_kern_matrix *gmats[IC_DEV_TYPES] = {NULL};
    int rc = IC_OK;
    for (int t = 0; t < nt && !rc; t++)
        rc = ic_kern_matrix_create(ic_dev_cpu.types[t], gr, gc, 77 + (uint64_t)t, &gmats[t],
                                   err);
    if (rc == IC_OK) {
        for (int ps = 0; ps < passes; ps++)
            for (int t = 0; t < nt; t++)
                for (int i = 0; i < IC_DEV_BATCHES; i++) {
                    double c0 = probe_take(d->pool, &d->cpr[t]);
                    double tg = ic_mb_matmul(d->pool, gmats[t], gr, gc, 1u << i,
                                             d->quick ? 2 : 5)
                                    .median;
                    double c1 = probe_take(d->pool, &d->cpr[t]);
                    gv[t][i][ps] = 2.0 * (1 << i) * gr * (double)gc / tg * r->probe_flop_s[t] /
                                   (0.5 * (c0 + c1));
                }
        for (int t = 0; t < nt; t++)
            for (int i = 0; i < IC_DEV_BATCHES; i++)
                r->gemm_b[t][i] = ic_mb_summary(gv[t][i], passes).median;
    }
    for (int t = 0; t < nt; t++)
        ic_kern_matrix_free(gmats[t]);
    return rc;
}

/* One attention timing: the kernel with next to no weights (dim 64, one
 * layer, vocab 64), B = 8 sequences over S cached tokens, 16 query heads
 * over 4 KV heads of head_dim (the validation models' group), S doubling
 * until the cache is DRAM-resident. Fills ta[0..*n) with the timings
 * (31; quick: 3), am[] with the mean of the attention probes on each one's
 * two sides, and *scores with a step's scores (one query head against one
 * cached token); the FLOPs per score as infcalc counts them are 4 x
 * head_dim (QK^T and AV). */
enum { ATT_N = 31 };
static int attention_timings(struct ic_dev *d, const struct ic_bench_res *r,
                             enum ic_kern_kvtype kvt, uint32_t head_dim, double *ta, double *am,
                             int *n, double *scores, struct ic_err *err)
{
    enum { B = 8, H = 16, KVH = 4 };
    uint32_t S = 64;
    const double kv_tok = 2.0 * KVH * head_dim * 2; /* bf16 bytes per token, K and V */
    while (B * (S + 1) * kv_tok < dram_min_B(r->llc_B))
        S *= 2;
    struct ic_kern_shape as = {64, 64, 1, H, KVH, head_dim, 64, B, S + 1};
    uint32_t tok[B] = {0}, posv[B];
    struct ic_kern *ak = NULL;
    int rc = ic_kern_create(&as, IC_KW_FP32, kvt, 5, d->pool, &ak, err);
    if (rc)
        return rc;
    for (uint32_t b = 0; b < B; b++) {
        ic_kern_fill_cache(ak, b, S, 11 + b);
        posv[b] = S;
    }
    /* 31 timings (one of 9 read 1.4x off on this machine; three benches
     * minutes apart read bf16 18.8, 23.6 and 31.3 GFLOP/s from 15) */
    *n = d->quick ? 3 : ATT_N;
    ic_kern_step(ak, B, tok, posv, NULL);
    for (int i = 0; i < *n; i++) {
        double a0 = aprobe_take(&d->ap);
        double t0 = ic_mb_now();
        ic_kern_step(ak, B, tok, posv, NULL);
        ta[i] = ic_mb_now() - t0;
        am[i] = 0.5 * (a0 + aprobe_take(&d->ap));
    }
    *scores = (double)B * (S + 1) * H;
    ic_kern_free(ak);
    return IC_OK;
}

/* Decode attention per KV-cache type, as two figures: a rate per FLOP and
 * a time per score (the softmax's max, exp and sum over each query head's
 * scores, which no FLOP counts). A single FLOP rate measured at head_dim
 * 128 put validate's head_dim-64 shapes 25-40% fast at long contexts (run
 * 11, docs/validation.md): a score costs the same at either size, its
 * FLOPs half. From the time per score u at head_dim 128 and 64:
 *   u = c + 4 d / R   =>   R = 256 / (u128 - u64),   c = 2 u64 - u128;
 * where the two do not resolve (c <= 0, u128 <= u64, or R above 10x the
 * single rate: noise), c = 0 and R = 512 / u128, the single rate. */
static int cpu_attention(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    static const enum ic_kern_kvtype kvts[2] = {IC_KKV_BF16, IC_KKV_INT8};
    static const uint32_t hds[2] = {128, 64};
    /* the four timings (KV type x head size), each with the attention
     * probes beside it, as validate takes them: between DRAM-heavy work.
     * The reference is the median of all those probes (until 2026-12-02
     * 15 takes back to back before them, which read 15.7-18.9 ns per
     * score where validate's beside its steps read 16.8-20.1, runs
     * 17-19); each timing is stated at it: ta x reference / its probes. */
    double ta[4][ATT_N], am[4][ATT_N], all[4 * ATT_N], scores[4];
    int n[4], na = 0;
    for (int j = 0; j < 4; j++) {
        int rc = attention_timings(d, r, kvts[j / 2], hds[j % 2], ta[j], am[j], &n[j],
                                   &scores[j], err);
        if (rc)
            return rc;
        for (int i = 0; i < n[j]; i++)
            all[na++] = am[j][i];
    }
    r->probe_attn_s = ic_mb_summary(all, na).median;
    double u[4];
    for (int j = 0; j < 4; j++) {
        double v[ATT_N];
        for (int i = 0; i < n[j]; i++)
            v[i] = ta[j][i] * r->probe_attn_s / am[j][i];
        u[j] = ic_mb_summary(v, n[j]).median / scores[j];
    }
    for (int kt = 0; kt < 2; kt++) {
        const double u128 = u[2 * kt], u64 = u[2 * kt + 1];
        r->attn_u128_s[kt] = u128;
        r->attn_u64_s[kt] = u64;
        /* a rate above 10x the single one means the two head sizes
         * differ by less than their noise (runs 12 and 13: 2.1-4.6x) */
        const double c = 2 * u64 - u128;
        if (c > 0 && u128 > u64 && 256.0 / (u128 - u64) <= 10 * 512.0 / u128) {
            r->attn_score_s[kt] = c;
            r->attn_flop_s[kt] = 256.0 / (u128 - u64);
        } else {
            r->attn_score_s[kt] = 0;
            r->attn_flop_s[kt] = 512.0 / u128;
        }
    }
    return IC_OK;
}

/* The median of v[0..n) (n >= 6) and its distribution-free 95% interval:
 * the order statistics n/2 -+ 0.98 sqrt(n) of the sorted values (the
 * binomial's normal approximation). v is sorted (ic_mb_summary). */
static double median_ci(double *v, int n, double *lo, double *hi)
{
    const double median = ic_mb_summary(v, n).median;
    const double h = 0.98 * sqrt((double)n);
    int j = (int)floor(n / 2.0 - h), k = (int)ceil(n / 2.0 + h);
    j = j < 1 ? 1 : j;
    k = k > n ? n : k;
    *lo = v[j - 1];
    *hi = v[k - 1];
    return median;
}

/* The decode step's work that no matmul, attention or region figure
 * carries (the README noted a whole step 3-5% slower than its isolated
 * matmuls, issue 13): a 2-layer model of validate's layer shape (dim 2048,
 * hidden 5632, 16 heads of 128 over 4 KV heads, vocab 8192; quick: dim
 * 1024, hidden 2816, heads of 64), fp32, and a second set of matrices of
 * the same shapes that its step calls (per layer q/k/v fused, the output,
 * gate and up fused, down; then the LM head). Each repetition times, back
 * to back so that they share one moment's bandwidth: one fp32 matmul at
 * batch 1 over a matrix of the fp32 memory probe's shape ("big", the gemv
 * figure's own), the chain of ic_kern_matmul calls and the kernel's step
 * at batch 1 (position 16; reported, not modelled), the big matrix's bytes
 * as SPLIT_K matrices of 1 / SPLIT_K its rows called back to back, and
 * the big matrix again; and, apart, the row work in cache:
 *   matmul_start = (split - (big0 + big1) / 2) / (SPLIT_K - 1) - fork_join:
 *                  a DRAM matmul call's cost beyond its bytes and its
 *                  region (the streams' start);
 *   layer_work   = (rows_4T - rows_2T) / 2T on T threads (8 and 4 on 2),
 *                  rows_b one layer's row operations at batch b
 *                  (ic_kern_row_work: residual adds, RMSNorms, SwiGLU):
 *                  what a step costs beyond its matmuls and attention per
 *                  layer and sequence, at the threads' rate.
 * (Before 2026-12-02 matmul_start was the batch-1 step beyond its bytes at
 * the big matmul's rate, per call: its medians read -109, -46 and +92 us
 * in runs 17-19, and 92 entered one entry. layer_work was the batch-1 step
 * less the chain, which read -72 to +252 us between runs, and then the
 * same at batch 8 less at batch 1 over 7 x layers, differences of DRAM
 * timings of ~10-30 ms that read 0, 0, 70 and 108 us in four benches
 * (runs 12-15): docs/validation.md.) Medians of 48 repetitions; each term
 * enters the entry only where its median's 95% interval lies above 0, and
 * is reported with the interval. */
static int cpu_overhead(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    enum { L = 2, PER = 4, CALLS = L * PER + 1, MAX_WIDE = 256, SPLIT_K = 16 };
    /* the row work's two batches, 4 and 2 sequences a thread (8 and 4 on 2
     * threads): rows are dealt to the threads one sequence each, so a
     * difference of batches that are not multiples of the threads (8 less 4
     * on 8 threads: one sequence a thread in both) reads noise */
    const int th = ic_kern_pool_threads(d->pool);
    const uint32_t WIDE_B = 4u * (uint32_t)(th < 1 ? 1 : th > MAX_WIDE / 4 ? MAX_WIDE / 4 : th);
    const struct ic_kern_shape s = d->quick ? (struct ic_kern_shape){1024, 2816, L, 16, 4, 64,
                                                                     8192, WIDE_B, 32}
                                            : (struct ic_kern_shape){2048, 5632, L, 16, 4, 128,
                                                                     8192, WIDE_B, 32};
    const uint32_t qkv = (s.n_heads + 2 * s.n_kv_heads) * s.head_dim, qd = s.n_heads * s.head_dim;
    const uint32_t dims[PER][2] = {{qkv, s.dim}, {s.dim, qd}, {2 * s.hidden_dim, s.dim},
                                   {s.dim, s.hidden_dim}};
    struct ic_kern_matrix *mm[CALLS] = {NULL};
    struct ic_kern *k = NULL;
    float *x = NULL, *y = NULL, *bx = NULL, *by = NULL;
    int rc = IC_OK;
    for (int c = 0; c < CALLS && !rc; c++) {
        const uint32_t rows = c < L * PER ? dims[c % PER][0] : s.vocab;
        const uint32_t cols = c < L * PER ? dims[c % PER][1] : s.dim;
        rc = ic_kern_matrix_create(IC_KW_FP32, rows, cols, 600 + (uint64_t)c, &mm[c], err);
    }
    if (!rc)
        rc = ic_kern_create(&s, IC_KW_FP32, IC_KKV_BF16, 31, d->pool, &k, err);
    const size_t wide = 2 * (size_t)s.hidden_dim > qkv ? 2 * (size_t)s.hidden_dim : qkv;
    /* big: an fp32 matrix of the memory probe's shape, not the probe's
     * own (read right after the probe, its last LLC-full would come from
     * the cache) */
    struct ic_kern_matrix *big = NULL, *part[SPLIT_K] = {NULL};
    if (!rc)
        rc = ic_kern_matrix_create(IC_KW_FP32, d->pr[0].rows, d->pr[0].cols, 4343, &big, err);
    /* and the same bytes as SPLIT_K matrices of 1 / SPLIT_K its rows each */
    for (int c = 0; c < SPLIT_K && !rc; c++)
        rc = ic_kern_matrix_create(IC_KW_FP32, d->pr[0].rows / SPLIT_K, d->pr[0].cols,
                                   5000 + (uint64_t)c, &part[c], err);
    if (!rc) {
        x = calloc(WIDE_B * (wide > s.vocab ? wide : s.vocab), sizeof *x); /* [WIDE_B][max cols] */
        y = calloc(WIDE_B * (wide > s.vocab ? wide : s.vocab), sizeof *y); /* [WIDE_B][max rows] */
        bx = calloc(d->pr[0].cols, sizeof *bx);
        by = calloc(d->pr[0].rows, sizeof *by);
        if (!x || !y || !bx || !by)
            rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    if (!rc) {
        for (uint32_t c = 0; c < WIDE_B * s.dim; c++)
            x[c] = (float)ic_kern_uniform(5, c);
        uint32_t tok[MAX_WIDE], pos[MAX_WIDE];
        for (uint32_t b = 0; b < WIDE_B; b++) {
            ic_kern_fill_cache(k, b, 16, 3 + b);
            tok[b] = 7 + b;
            pos[b] = 16;
        }
        enum { OVH_REPS = 48 };
        double va[OVH_REPS], vw[OVH_REPS], vc[OVH_REPS], vt[OVH_REPS];
        const int n = d->quick ? 8 : OVH_REPS;
        for (int i = -1; i < n; i++) { /* i = -1: warm-up */
            const double b0 = probe_take(d->pool, &d->pr[0]);
            const double tb = time_matmuls(d->pool, &big, 1, bx, 1, by);
            /* at batch 1 the chain of the step's matmuls, then the step */
            const double tc = time_matmuls(d->pool, mm, CALLS, x, 1, y);
            const double t0 = ic_mb_now();
            ic_kern_step(k, 1, tok, pos, NULL);
            const double ts = ic_mb_now() - t0;
            /* the big matrix's bytes as SPLIT_K calls, then the big one
             * again: the calls' starts beyond one, less their regions,
             * against the two big timings around them (a drift between
             * them cancels) */
            const double tk = time_matmuls(d->pool, part, SPLIT_K, bx, 1, by);
            const double tb1 = time_matmuls(d->pool, &big, 1, bx, 1, by);
            const double b1 = probe_take(d->pool, &d->pr[0]);
            if (i < 0)
                continue;
            const double fj = r->fork_join_s, level = 0.5 * (b0 + b1) / r->probe_B_s[0];
            va[i] = (tk - 0.5 * (tb + tb1)) / (SPLIT_K - 1) - fj;
            vc[i] = tc * level; /* at the reference level */
            vt[i] = ts * level;
        }
        /* the row work itself, in cache: one layer's row operations
         * (ic_kern_row_work) at batch WIDE_B less at WIDE_B / 2, per
         * sequence (the threads' rate), each the median of 15 calls; the
         * regions cancel. A
         * step at batch WIDE_B first leaves every sequence's activations
         * as a step leaves them. */
        ic_kern_step(k, WIDE_B, tok, pos, NULL);
        for (int i = -1; i < n; i++) {
            double t8[15], t4[15];
            for (int c = 0; c < 15; c++) {
                double t0 = ic_mb_now();
                ic_kern_row_work(k, WIDE_B);
                t8[c] = ic_mb_now() - t0;
                t0 = ic_mb_now();
                ic_kern_row_work(k, WIDE_B / 2);
                t4[c] = ic_mb_now() - t0;
            }
            if (i >= 0)
                vw[i] = (ic_mb_summary(t8, 15).median - ic_mb_summary(t4, 15).median) /
                        (WIDE_B - WIDE_B / 2);
        }
        /* each term enters the entry where its median's 95% interval
         * lies above 0, and is 0 otherwise (noise around 0: the start's
         * differences of ~10 ms timings; report, not model) */
        r->raw_work_s = median_ci(vw, n, &r->work_lo_s, &r->work_hi_s);
        r->layer_work_s = r->work_lo_s > 0 ? r->raw_work_s : 0;
        r->raw_start_s = median_ci(va, n, &r->start_lo_s, &r->start_hi_s);
        r->matmul_start_s = r->start_lo_s > 0 ? r->raw_start_s : 0;
        r->chain_s = ic_mb_summary(vc, n).median;
        r->ostep_s = ic_mb_summary(vt, n).median;
        r->o_dim = s.dim;
        r->o_layers = L;
    }
    ic_kern_free(k);
    ic_kern_matrix_free(big);
    for (int c = 0; c < SPLIT_K; c++)
        ic_kern_matrix_free(part[c]);
    for (int c = 0; c < CALLS; c++)
        ic_kern_matrix_free(mm[c]);
    free(x);
    free(y);
    free(bx);
    free(by);
    return rc;
}

/* The transition's timings: per weight type, the chain of matmuls a decode
 * step of validate's layer shape calls (dim 2048, hidden 5632, 16 heads of
 * 128 over 4 KV heads: q/k/v fused, the output, gate and up fused, down;
 * quick: dim 1024, hidden 2816, heads of 64), in as many layers as reach
 * dram_min_B, then an LM head of vocab 8192, called back to back from DRAM
 * at batches 1, 2, 4 ... 256, less the model's fixed cost of its calls
 * (each a region and a matmul start); with the memory and compute times
 * the model gives it at the probes beside it. Until 2026-12-02 one 128 MiB
 * matrix of 2048 columns: its fitted exponents (int8 up to 31, a max)
 * left the steps' matmuls at batch 8-64 15-35% slower than predicted (run
 * 16, docs/validation.md); a step's matmuls are several shorter calls,
 * some 5632 columns wide. */
static int cpu_transition(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    static const uint32_t batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    enum { NB = sizeof batches / sizeof batches[0], PER = 4, MAX_L = 16, V = 8192 };
    _Static_assert(NB * IC_DEV_TYPES <= IC_DEV_FIT, "room for the fit's timings");
    struct ic_hw_measured table; /* the rates just measured, as the model reads them */
    ic_dev_gemm_table(&ic_dev_cpu, r, &table);
    const uint32_t D = d->quick ? 1024 : 2048, F = d->quick ? 2816 : 5632,
                   hd = d->quick ? 64 : 128, qkv = (16 + 2 * 4) * hd, qd = 16 * hd;
    const uint32_t dims[PER][2] = {{qkv, D}, {D, qd}, {2 * F, D}, {D, F}};
    const uint32_t widest = 2 * F > V ? 2 * F : V; /* rows; columns are at most F */
    const uint32_t bmax = batches[NB - 1];
    float *x = malloc(sizeof *x * bmax * F), *y = malloc(sizeof *y * bmax * widest);
    struct ic_kern_matrix *mm[PER * MAX_L + 1] = {NULL};
    int rc = x && y ? IC_OK : ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; !rc && i < (size_t)bmax * F; i++)
        x[i] = (float)ic_kern_uniform(9, i);
    double layer_el = 0; /* one layer's weights */
    for (int c = 0; c < PER; c++)
        layer_el += (double)dims[c][0] * dims[c][1];
    size_t k = 0;
    for (int t = 0; t < ic_dev_cpu.n_types && !rc; t++) {
        const enum ic_kern_wtype wt = ic_dev_cpu.types[t];
        const double layer_B = layer_el * ic_kern_wtype_bits(wt) / 8;
        int L = (int)ceil(dram_min_B(r->llc_B) / layer_B);
        L = L < 1 ? 1 : L > MAX_L ? MAX_L : L;
        const int calls = PER * L + 1;
        double bytes = 0, el = 0;
        for (int c = 0; c < calls && !rc; c++) {
            const uint32_t rows = c < PER * L ? dims[c % PER][0] : V;
            const uint32_t cols = c < PER * L ? dims[c % PER][1] : D;
            rc = ic_kern_matrix_create(wt, rows, cols, 900 + 31 * (uint64_t)t + (uint64_t)c,
                                       &mm[c], err);
            if (!rc) {
                bytes += (double)ic_kern_matrix_bytes(mm[c]);
                el += (double)rows * cols;
            }
        }
        /* one untimed pass: first touches of y and of the int8 path's
         * scratch */
        if (!rc)
            (void)time_matmuls(d->pool, mm, calls, x, d->quick ? 16 : bmax, y);
        for (size_t b = 0; b < NB && !rc; b++) {
            if (d->quick && batches[b] > 16)
                continue;
            /* the memory and compute times at the levels the chain runs at */
            double b0 = probe_take(d->pool, &d->pr[t]), c0 = probe_take(d->pool, &d->cpr[t]);
            double v[3];
            const int reps = d->quick ? 2 : 3;
            for (int i = 0; i < reps; i++)
                v[i] = time_matmuls(d->pool, mm, calls, x, batches[b], y);
            double b1 = probe_take(d->pool, &d->pr[t]), c1 = probe_take(d->pool, &d->cpr[t]);
            /* less the calls' fixed cost, which the model adds apart; a
             * start that noise put above half the chain is not taken out
             * (the fit's log time needs a positive one) */
            const double med = ic_mb_summary(v, reps).median,
                         fixed = calls * (r->matmul_start_s + r->fork_join_s);
            r->fit_t[k] = med - fixed > 0.5 * med ? med - fixed : med;
            r->fit_tm[k] = bytes / (r->gemv_B_s[t] * 0.5 * (b0 + b1) / r->probe_B_s[t]);
            /* the model's own compute term (ic_step_matmul_compute_s) */
            r->fit_tc[k] = ic_step_matmul_compute_s(&table, ic_dev_cpu.dtypes[t], batches[b],
                                                    2.0 * batches[b] * el) /
                           (0.5 * (c0 + c1) / r->probe_flop_s[t]);
            k++;
        }
        for (int c = 0; c < calls; c++) {
            ic_kern_matrix_free(mm[c]);
            mm[c] = NULL;
        }
    }
    free(x);
    free(y);
    if (rc)
        return rc;
    r->n_fit = k;
    /* the reference probes again, after the whole bench: a machine whose
     * state moved since cpu_read took them (a disturbance that began or
     * ended in between) is named, not saved without a word */
    char what[256] = "";
    for (int t = 0; t < ic_dev_cpu.n_types; t++) {
        const double bw_end = probe_median(d->pool, &d->pr[t], r->reps);
        const double fl_end = probe_median(d->pool, &d->cpr[t], r->reps);
        const double db = bw_end / r->probe_B_s[t] - 1, df = fl_end / r->probe_flop_s[t] - 1;
        if (fabs(db) > IC_DEV_PROBE_SPREAD || fabs(df) > IC_DEV_PROBE_SPREAD)
            text_add(what, sizeof what, "; ", "%s %+.0f%% / %+.0f%%",
                     ic_kern_wtype_name(ic_dev_cpu.types[t]), 100 * db, 100 * df);
    }
    if (r->probe_attn_s > 0 && d->ap.k) { /* and the attention probe's rate */
        double av[16];
        const int na = r->reps < 16 ? r->reps : 16;
        for (int i = 0; i < na; i++)
            av[i] = aprobe_take(&d->ap);
        const double da = r->probe_attn_s / ic_mb_summary(av, na).median - 1;
        if (fabs(da) > IC_DEV_PROBE_SPREAD)
            text_add(what, sizeof what, "; ", "attention %+.0f%%", 100 * da);
    }
    if (what[0])
        text_add(r->warn, sizeof r->warn, " ",
                 "At the end of the bench the reference probes read, against its start "
                 "(memory / compute, more than %.0f%% apart): %s; the machine's state moved "
                 "while it ran; run the bench again when it is quiet.",
                 100 * IC_DEV_PROBE_SPREAD, what);
    return IC_OK;
}

static int cpu_bench_entry(const struct ic_dev *d, const struct ic_bench_opts *o,
                           const struct ic_bench_res *r, struct ic_hw *hw, char *comment,
                           size_t comment_len, struct ic_err *err)
{
    (void)d;
    const char *src = "measured by infcalc bench", *date = r->date;
    const int th = r->threads;
    snprintf(comment, comment_len,
             "%s: this machine as `infcalc bench` measured it on %s.\n"
             "The memory and compute sections hold measured figures (what the ideal\n"
             "bound uses); the measured section, what the expected time uses.",
             o->name, date);
    hw->hbm_capacity_B = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    snprintf(hw->mem_kind, sizeof hw->mem_kind, "%s", CPU_MEMORY);
    hw->hbm_bandwidth_B_s = r->read_B_s;
    /* bf16 too, at the same figure: the reference kernel multiplies bf16
     * weights in fp32 (widened in registers), and bf16 is the calculator's
     * default compute type, which an entry without it refused (issue 15) */
    hw->peak_flop_s[IC_DT_FP32] = r->peak_flop_s;
    hw->peak_flop_s[IC_DT_BF16] = r->peak_flop_s;
    char notes[sizeof hw->notes - 1], *np = notes; /* room for the final "." */
    np += snprintf(notes, sizeof notes,
                   "STREAM copy %.4g GB/s and triad %.4g GB/s (as STREAM counts them), for "
                   "reference only: a decode step reads, it does not copy. Working-set ladder "
                   "(GB/s):",
                   r->copy_B_s / 1e9, r->triad_B_s / 1e9);
    for (int i = 0; i < r->ladder_n && np < notes + sizeof notes; i++)
        np += snprintf(np, (size_t)(notes + sizeof notes - np), " %.0f KiB %.0f%s",
                       r->ladder_B[i] / 1024, r->ladder_B_s[i] / 1e9,
                       i + 1 < r->ladder_n ? "," : "");
    if (r->llc_reported_B > 0 && np < notes + sizeof notes)
        np += snprintf(np, (size_t)(notes + sizeof notes - np),
                       ". LLC %.0f MiB from the ladder (reads at least %.1fx DRAM's): the "
                       "system reported %.0f MiB, which reads at DRAM speed",
                       r->llc_B / 1048576, LLC_CACHE_RATIO, r->llc_reported_B / 1048576);
    if (r->warn[0] && np < notes + sizeof notes)
        np += snprintf(np, (size_t)(notes + sizeof notes - np), ". Warning: %s", r->warn);
    int rc;
    if ((rc = ic_dev_text(hw->description, sizeof hw->description, "description", err,
                          "%s, %d threads, measured", r->chip, th)) ||
        (rc = ic_dev_text(hw->vendor, sizeof hw->vendor, "vendor", err, "%s", r->chip)) ||
        (rc = ic_dev_text(hw->section_source[0], sizeof hw->section_source[0], "memory source",
                          err,
                          "capacity: sysconf physical pages; bandwidth: %s, read-only sum over "
                          "a buffer >= 4x the LLC, %d threads, median",
                          src, th)) ||
        (rc = ic_dev_text(hw->section_source[1], sizeof hw->section_source[1], "compute source",
                          err,
                          "%s: fp32 FMA peak on register operands, %d threads; bf16 the same "
                          "figure (the reference kernel widens bf16 to fp32 and multiplies in "
                          "fp32; the CPU's own bf16 dot products are not used); other types "
                          "are not listed",
                          src, th)) ||
        (rc = ic_dev_text(hw->section_source[2], sizeof hw->section_source[2], "source", err,
                          "one CPU socket: no chip-to-chip fabric")) ||
        (rc = ic_dev_text(hw->section_source[3], sizeof hw->section_source[3], "source", err,
                          "not measured: infcalc's self-check runs on one machine")) ||
        (rc = ic_dev_text(hw->section_source[4], sizeof hw->section_source[4], "source", err,
                          "the CPU's memory is the host memory")) ||
        (rc = ic_dev_text(hw->sources[0], sizeof hw->sources[0], "sources", err,
                          "infcalc bench (src/kernels/ic_mbench.c, %s kernel), %s",
                          ic_kern_simd(), date)) ||
        (rc = ic_dev_text(hw->notes, sizeof hw->notes, "notes", err, "%s.", notes)) ||
        (rc = ic_dev_text(hw->measured.source, sizeof hw->measured.source, "measured source",
                          err,
                          "infcalc bench %s: medians; gemv = the kernel's matmul at "
                          "batch 1 (B/s), gemm(_by_batch) = at batch 256 (1-256) on "
                          "2048x2048, attention (per FLOP) and attention_per_score = its "
                          "attention alone, cache >= 4x the LLC, head sizes 128 and 64; DRAM "
                          "rates at probe_bandwidth's level, GEMM at probe_gemm's (bf16, int8: "
                          "their own), attention at probe_attention's; transition_p fitted to a "
                          "layer chain's matmuls, batches 1-256, DRAM; matmul_start: 16 calls "
                          "against one as big, layer_work: its row work in cache",
                          date)))
        return rc;
    hw->n_sources = 1;
    return IC_OK;
}

static void cpu_bench_report(const struct ic_dev *d, const struct ic_bench_opts *o,
                             const struct ic_bench_res *r, FILE *out)
{
    const int nt = ic_dev_cpu.n_types;
    const enum ic_dtype *dts = ic_dev_cpu.dtypes;
    fprintf(out, "infcalc bench: %s, %d threads, LLC %.0f MiB, %s kernel, %s\n", r->chip,
            r->threads, r->llc_B / 1048576, ic_kern_simd(), r->date);
    if (r->llc_reported_B > 0)
        fprintf(out, "(the system reports a %.0f MiB LLC; reads fall to DRAM speed past %.0f MiB "
                     "(below %.1fx a DRAM read beside each), so the bench takes %.0f MiB; --llc "
                     "SIZE overrides)\n",
                r->llc_reported_B / 1048576, r->llc_B / 1048576, LLC_CACHE_RATIO,
                r->llc_B / 1048576);
    fputc('\n', out);
    if (r->warn[0])
        fprintf(out, "warning: %s\n\n", r->warn);
    fprintf(out, "read-only bandwidth (DRAM, %.0f MiB buffer), median [min, max] of %d:\n",
            r->dram_B / 1048576, r->reps);
    fprintf(out, "  %d threads   %7.2f GB/s  [%.2f, %.2f]\n", r->threads, r->read_B_s / 1e9,
            r->read_s.lo / 1e9, r->read_s.hi / 1e9);
    fprintf(out, "  1 thread    %7.2f GB/s  [%.2f, %.2f]\n", r->read_1t_B_s / 1e9,
            r->read_1t_s.lo / 1e9, r->read_1t_s.hi / 1e9);
    fprintf(out, "  in the LLC  %7.2f GB/s (%.0f MiB)\n", r->cache_read_B_s / 1e9,
            r->llc_B / 4 / 1048576);
    fprintf(out, "validate's probes (the kernel's matmul in each weight type: memory at batch "
                 "1 over %.0f MiB, compute at batch 64 over %.0f MiB):\n",
            (double)ic_kern_matrix_bytes(d->pr[0].w) / 1048576,
            (double)ic_kern_matrix_bytes(d->cpr[0].w) / 1048576);
    for (int t = 0; t < nt; t++)
        fprintf(out, "  %-5s %7.2f GB/s  %7.1f GFLOP/s\n", ic_dtype_traits(dts[t])->name,
                r->probe_B_s[t] / 1e9, r->probe_flop_s[t] / 1e9);
    fprintf(out, "  attention %.2f ns per score (the kernel's attention alone, %d sequences over %d "
                 "bf16 tokens in the LLC)\n",
            r->probe_attn_s * 1e9, AP_B, AP_S);
    fprintf(out, "STREAM copy %.2f GB/s, triad %.2f GB/s (as STREAM counts; reference only)\n",
            r->copy_B_s / 1e9, r->triad_B_s / 1e9);
    fprintf(out, "working-set ladder (GB/s):");
    for (int i = 0; i < r->ladder_n; i++)
        fprintf(out, "%s %.0f%s %.0f", i % 6 ? "," : "\n ",
                r->ladder_B[i] >= 1048576 ? r->ladder_B[i] / 1048576 : r->ladder_B[i] / 1024,
                r->ladder_B[i] >= 1048576 ? "M" : "K", r->ladder_B_s[i] / 1e9);
    fprintf(out, "\nFMA peak fp32 %.1f GFLOP/s; fork/join %.2f us [%.2f, %.2f]\n",
            r->peak_flop_s / 1e9, r->fork_join_s * 1e6, r->fork_join_stats.lo * 1e6,
            r->fork_join_stats.hi * 1e6);
    fprintf(out, "matmul (reference kernel):   DRAM GB/s  (of read) (256M/probe)  LLC GB/s   "
                 "GEMM GFLOP/s\n");
    for (int t = 0; t < nt; t++)
        fprintf(out, "  %-5s                    %9.2f  (%5.1f%%)  (%5.3f)    %9.2f   %9.1f\n",
                ic_dtype_traits(dts[t])->name, r->gemv_B_s[t] / 1e9, 100 * r->gemv_of_read[t],
                r->gemv_big_of_probe[t], r->gemv_cache_B_s[t] / 1e9,
                r->gemm_b[t][IC_DEV_BATCHES - 1] / 1e9);
    fprintf(out, "  (DRAM: the type's memory probe; of read: a %.0f MiB matrix over a read of "
                 "the %.0f MiB buffer just before it, median;\n  256M/probe: the same matrix "
                 "over the type's probe beside it, which read",
            r->mat_B[0] / 1048576, r->dram_B / 1048576);
    for (int t = 0; t < nt; t++)
        fprintf(out, " %s %.2f", ic_dtype_traits(dts[t])->name, r->gemv_level_B_s[t] / 1e9);
    fprintf(out, " GB/s)\n");
    fprintf(out, "in-cache matmul GFLOP/s at batch 1, 2, 4 ... 256:\n");
    for (int t = 0; t < nt; t++) {
        fprintf(out, "  %-5s", ic_dtype_traits(dts[t])->name);
        for (int i = 0; i < IC_DEV_BATCHES; i++)
            fprintf(out, " %6.1f", r->gemm_b[t][i] / 1e9);
        fputc('\n', out);
    }
    fprintf(out, "decode attention (16 q / 4 KV heads, cache >= 4x LLC), ns per score at head "
                 "size 128 and 64, and fitted:\n");
    static const char *const kvn[2] = {"bf16", "int8"};
    for (int k = 0; k < 2; k++)
        fprintf(out, "  %s KV  %.2f  %.2f  ->  %.1f GFLOP/s and %.2f ns per score%s\n", kvn[k],
                r->attn_u128_s[k] * 1e9, r->attn_u64_s[k] * 1e9, r->attn_flop_s[k] / 1e9,
                r->attn_score_s[k] * 1e9,
                r->attn_score_s[k] > 0 ? "" : " (unresolved: one rate)");
    fprintf(out, "step overhead (fp32, dim %u, %u layers, batch 1): a step %.3f ms against its "
                 "matmuls back to back %.3f ms;\n  matmul start %.1f us per call (16 calls "
                 "against one of their bytes), layer work %.1f us per layer and sequence (its "
                 "row operations in cache, 4 less 2 sequences a thread) (medians %.1f [%.1f, "
                 "%.1f] and %.1f [%.1f, %.1f] us, 95%% intervals; 0 where the interval "
                 "reaches 0)\n",
            r->o_dim, r->o_layers, r->ostep_s * 1e3, r->chain_s * 1e3, r->matmul_start_s * 1e6,
            r->layer_work_s * 1e6, r->raw_start_s * 1e6, r->start_lo_s * 1e6,
            r->start_hi_s * 1e6, r->raw_work_s * 1e6, r->work_lo_s * 1e6, r->work_hi_s * 1e6);
    fprintf(out, "transition exponent p = %.3g (T = (T_mem^p + T_cmp^p)^(1/p)); per weight type:",
            r->p);
    for (int t = 0; t < nt; t++)
        fprintf(out, " %s %.3g", ic_dtype_traits(dts[t])->name, r->p_type[t]);
    fputc('\n', out);
    /* how well it fits: the chain's time over the model's at that type's p */
    const size_t per = r->n_fit / (size_t)nt;
    fprintf(out, "  the layer chain's time over the model's at each type's p, batch 1, 2, "
                 "4 ...:\n");
    for (int t = 0; t < nt && per > 0; t++) {
        fprintf(out, "  %-5s", ic_dtype_traits(dts[t])->name);
        for (size_t i = t * per; i < (t + 1) * per; i++)
            fprintf(out, " %5.2f",
                    r->fit_t[i] / ic_step_pnorm(r->fit_tm[i], r->fit_tc[i], r->p_type[t]));
        fputc('\n', out);
    }
    fprintf(out, "\nwrote %s (use it with --hw %s)\n", o->out_path, o->out_path);
}

/* ---- validate ---------------------------------------------------------------- */

/* The full sweep: three DRAM-resident shapes, weights >= 4x a 32 MiB LLC
 * even in int8, dim 1024 to 4096 and query heads per KV head 4, 8 and 1
 * (the 246M one, which the bench's GEMM and attention shapes follow, over
 * the whole grid; the other two, which the bench never measured, over
 * batches 1-256 at two contexts), and a small model whose weights fit the
 * LLC (cache-resident). The charts draw the first. */
static const struct ic_vmodel full_models[] = {
    {"ref-246m", {2048, 5632, 4, 16, 4, 128, 32000, 0, 0},
     {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8}, 3,
     {1, 2, 4, 8, 16, 32, 64, 128, 256}, 9,
     {128, 512, 2048, 8192, 16384}, 5},
    /* 209M parameters: 16 layers of dim 1024, 16 heads of 64 over 2 KV heads */
    {"ref-209m-d1024", {1024, 2816, 16, 16, 2, 64, 32000, 0, 0},
     {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8}, 3,
     {1, 4, 16, 64, 256}, 5,
     {128, 2048}, 2},
    /* 536M parameters: 2 layers of dim 4096, 32 heads of 128, no grouping */
    {"ref-536m-d4096", {4096, 11008, 2, 32, 32, 128, 32000, 0, 0},
     {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8}, 3,
     {1, 4, 16, 64, 256}, 5,
     {128, 2048}, 2},
    {"ref-8m", {512, 1408, 2, 8, 2, 64, 4096, 0, 0},
     {IC_KW_BF16, IC_KW_INT8, IC_KW_FP32}, 2,
     {1, 4, 16, 64}, 4,
     {128, 1024}, 2},
};
static const struct ic_vmodel quick_models[] = {
    {"ref-31m", {1024, 2816, 2, 8, 2, 128, 8192, 0, 0},
     {IC_KW_FP32, IC_KW_INT8, IC_KW_BF16}, 2,
     {1, 16}, 2,
     {128, 2048}, 2},
};

static int cpu_validate_open(const struct ic_validate_opts *o, const struct ic_hw *hw, FILE *prog,
                             struct ic_dev **out, int *threads, struct ic_err *err)
{
    struct ic_dev *d = calloc(1, sizeof *d);
    if (!d)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    const struct ic_hw_measured *hm = &hw->measured;
    int rc = ic_kern_pool_create(o->threads ? o->threads : (int)hm->threads, &d->pool, err);
    if (rc)
        goto fail;
    *threads = ic_kern_pool_threads(d->pool);
    if ((uint64_t)*threads != hm->threads && prog)
        fprintf(prog, "validate: warning: %s was benched with %llu threads, timing with %d\n",
                o->hw_path, (unsigned long long)hm->threads, *threads);
    if (hm->probe_gemm_flop_s > 0 && hm->probe_B_s > 0 &&
        ic_dev_probe_type(&ic_dev_cpu, hm, IC_KW_BF16) == 0 && prog)
        fprintf(prog, "validate: warning: %s has no probes per weight type (benched by an "
                      "older infcalc): bf16 and int8 rates are rescaled by the fp32 probes; "
                      "run 'infcalc bench' again\n",
                o->hw_path);
    if (!(hm->probe_attn_s > 0) && prog)
        fprintf(prog, "validate: warning: %s has no probe_attention (benched by an older "
                      "infcalc): the attention is rescaled by the compute probe; run 'infcalc "
                      "bench' again\n",
                o->hw_path);
    if (!(hm->probe_gemm_flop_s > 0 && hm->probe_B_s > 0) && prog)
        fprintf(prog, "validate: warning: %s has no probe_gemm (benched by an older infcalc): "
                      "DRAM rates are rescaled against its gemv_dram.fp32 and compute rates "
                      "are taken as benched; run 'infcalc bench' again\n",
                o->hw_path);
    /* the probes (struct probe), as bench took them */
    if ((rc = probes_init(d, hm->llc_B, hm, err)))
        goto fail;
    *out = d;
    return IC_OK;
fail:
    cpu_close(d);
    return rc;
}

static int cpu_kern_create(struct ic_dev *d, const struct ic_kern_shape *s, enum ic_kern_wtype wt,
                           uint64_t seed, void **out, struct ic_err *err)
{
    struct ic_kern *k = NULL;
    int rc = ic_kern_create(s, wt, IC_KKV_BF16, seed, d->pool, &k, err);
    if (rc == IC_OK)
        *out = k;
    return rc;
}

static void cpu_kern_free(void *k) { ic_kern_free(k); }

static int cpu_kern_cache(void *k, uint32_t max_batch, uint32_t max_seq, struct ic_err *err)
{
    return ic_kern_set_cache(k, max_batch, max_seq, err);
}

static int cpu_kern_fill(void *k, uint32_t b, uint32_t len, uint64_t seed, struct ic_err *err)
{
    (void)err;
    ic_kern_fill_cache(k, b, len, seed);
    return IC_OK;
}

/* Times decode steps of k at batch b, every sequence at position pos
 * (re-running the same position keeps the context fixed), for budget_s and
 * at least min_steps (at most 64); returns the median step and widens
 * [*lo, *hi] by every single step.
 *
 * With probes (mp and cp not NULL; ap, the attention probe, where not NULL)
 * it also takes them before the first step and after every step, and
 * records each step in out[] with the mean of the probes on its two sides,
 * the machine's state at its own moment (steps of 0.7-0.9 s at one point
 * ran 1.3x apart on this machine, so two probes around the whole point
 * missed what moved in between); at most IC_DEV_VSTEPS steps then, *n_out
 * of them. */
static double time_steps(struct ic_kern_pool *pool, struct ic_kern *k, uint32_t b,
                         const uint32_t *tok, const uint32_t *pos, double budget_s,
                         int min_steps, const struct probe *mp, const struct probe *cp,
                         const struct aprobe *ap, struct ic_vstep *out, int *n_out, double *lo,
                         double *hi, uint64_t *regions)
{
    const int most = mp ? IC_DEV_VSTEPS : 64;
    double v[64];
    int n = 0;
    uint64_t r0 = ic_kern_pool_runs(pool);
    ic_kern_step(k, b, tok, pos, NULL); /* warm-up, and a count of its parallel regions */
    *regions = ic_kern_pool_runs(pool) - r0;
    double bw = mp ? probe_take(pool, mp) : 0, c = mp ? probe_take(pool, cp) : 0;
    double a = mp && ap ? aprobe_take(ap) : 0;
    double start = ic_mb_now();
    while (n < most && (n < min_steps || ic_mb_now() - start < budget_s)) {
        double t0 = ic_mb_now();
        ic_kern_step(k, b, tok, pos, NULL);
        double t = ic_mb_now() - t0;
        if (mp) {
            double bw1 = probe_take(pool, mp), c1 = probe_take(pool, cp);
            double a1 = ap ? aprobe_take(ap) : 0;
            out[n] = (struct ic_vstep){t, 0.5 * (bw + bw1), 0.5 * (c + c1), 0.5 * (a + a1)};
            bw = bw1;
            c = c1;
            a = a1;
        }
        v[n++] = t;
    }
    *n_out = mp ? n : 0;
    struct ic_mb_stats s = ic_mb_summary(v, n);
    *lo = fmin(*lo, s.lo);
    *hi = fmax(*hi, s.hi);
    return s.median;
}

static int cpu_time_point(struct ic_dev *d, void *kv, const struct ic_vmodel *m,
                          struct ic_vpoint *p, int r, int rounds, const uint32_t *tok,
                          const uint32_t *pos, bool quick, const struct ic_hw *hw, FILE *prog,
                          struct ic_err *err)
{
    (void)err;
    struct ic_kern *k = kv;
    struct ic_kern_pool *pool = d->pool;
    /* Probes between the steps, except where weights and cache fit the
     * LLC: there a probe would evict what the step reads from the LLC, and
     * two probes go around the point. */
    const bool between = (double)ic_kern_weight_bytes(k) +
                             ic_dev_kv_cache_B(&m->shape, p->batch, p->context) >
                         hw->measured.llc_B;
    /* the probes of the point's own weight type where the entry has them */
    const int pt = ic_dev_probe_type(&ic_dev_cpu, &hw->measured, m->wtypes[p->wt]);
    const struct probe *mp = &d->pr[pt], *cp = &d->cpr[pt];
    const struct aprobe *ap = d->ap.k ? &d->ap : NULL;
    double bw0 = between ? 0 : probe_take(pool, mp);
    double c0 = between ? 0 : probe_take(pool, cp);
    double a0 = between || !ap ? 0 : aprobe_take(ap);
    p->t[r] = time_steps(pool, k, p->batch, tok, pos, quick ? 0.05 : 0.25, quick ? 2 : 3,
                         between ? mp : NULL, between ? cp : NULL, ap, p->steps[r],
                         &p->nsteps[r], &p->tlo, &p->thi, &p->regions);
    if (between) {
        double bv[IC_DEV_VSTEPS], cv[IC_DEV_VSTEPS], av[IC_DEV_VSTEPS];
        for (int s = 0; s < p->nsteps[r]; s++) {
            bv[s] = p->steps[r][s].bw;
            cv[s] = p->steps[r][s].c;
            av[s] = p->steps[r][s].a;
        }
        p->probe[r] = ic_mb_summary(bv, p->nsteps[r]).median;
        p->cprobe[r] = ic_mb_summary(cv, p->nsteps[r]).median;
        p->aprobe[r] = ap ? ic_mb_summary(av, p->nsteps[r]).median : 0;
    } else {
        p->probe[r] = 0.5 * (bw0 + probe_take(pool, mp));
        p->cprobe[r] = 0.5 * (c0 + probe_take(pool, cp));
        p->aprobe[r] = ap ? 0.5 * (a0 + aprobe_take(ap)) : 0;
    }
    if (prog)
        fprintf(prog, "validate [round %d/%d] %s %-4s batch %3u context %5u: "
                      "%8.3f ms (probe %.1f GB/s)\n",
                r + 1, rounds, m->name, ic_kern_wtype_name(m->wtypes[p->wt]), p->batch,
                p->context, p->t[r] * 1e3, p->probe[r] / 1e9);
    return IC_OK;
}

static void cpu_validate_head(FILE *out, const char *chip, int threads, int rounds, size_t n,
                              const char *hw_path, const char *bench_date)
{
    fprintf(out, "infcalc validate: reference decode kernel on %s, %d threads, %d round%s, "
                 "%zu points\npredicted: expected time on %s (bench of %s), DRAM, GEMM and "
                 "attention rates rescaled by probes beside each point\n\n",
            chip, threads, rounds, rounds > 1 ? "s" : "", n, hw_path, bench_date);
}

static void cpu_chart_title(char *buf, size_t n, const char *model, const char *chip, int threads)
{
    snprintf(buf, n, "Reference decode kernel (%s) on %s, %d thread%s: measured vs predicted",
             model, chip, threads, threads == 1 ? "" : "s");
}

const struct ic_dev_ops ic_dev_cpu = {
    .name = "cpu",
    .n_types = 3,
    .types = {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8},
    .dtypes = {IC_DT_FP32, IC_DT_BF16, IC_DT_INT8},
    .bench_open = cpu_bench_open,
    .bench = {
        [IC_BS_READ] = cpu_read,
        [IC_BS_STREAM] = cpu_stream,
        [IC_BS_LADDER] = cpu_ladder,
        [IC_BS_PEAK] = cpu_peak,
        [IC_BS_FORK_JOIN] = cpu_fork_join,
        [IC_BS_GEMV_DRAM] = cpu_gemv_dram,
        [IC_BS_GEMV_CACHE] = cpu_gemv_cache,
        [IC_BS_GEMM] = cpu_gemm,
        [IC_BS_ATTENTION] = cpu_attention,
        [IC_BS_OVERHEAD] = cpu_overhead,
        [IC_BS_TRANSITION] = cpu_transition,
    },
    .step_name = {
        [IC_BS_READ] = "read-only bandwidth, DRAM",
        [IC_BS_STREAM] = "STREAM copy and triad (reference only)",
        [IC_BS_LADDER] = "working-set ladder",
        [IC_BS_PEAK] = "FMA peak",
        [IC_BS_FORK_JOIN] = "fork/join",
        [IC_BS_GEMV_DRAM] = "matmul: weights from DRAM, batch 1",
        [IC_BS_GEMV_CACHE] = "matmul: weights in the LLC, batch 1",
        [IC_BS_GEMM] = "matmul: batches 1-256 in cache (GEMM rates)",
        [IC_BS_ATTENTION] = "attention: a cache >= 4x the LLC, bf16 and int8",
        [IC_BS_OVERHEAD] = "step overhead: matmul starts (16 DRAM calls against one of their "
                           "bytes) and layer work (its row operations in cache)",
        [IC_BS_TRANSITION] = "matmul: a layer chain at batches 1-256 from DRAM (transition)",
    },
    .fit_per_type = true,
    .bench_entry = cpu_bench_entry,
    .bench_report = cpu_bench_report,
    .models_full = full_models,
    .models_quick = quick_models,
    .n_full = sizeof full_models / sizeof full_models[0],
    .n_quick = sizeof quick_models / sizeof quick_models[0],
    .kv_cap_B = 2.0 * 1073741824.0,
    .compute = IC_DT_FP32,
    .rescale = true,
    .memory = CPU_MEMORY,
    .validate_open = cpu_validate_open,
    .kern_create = cpu_kern_create,
    .kern_free = cpu_kern_free,
    .kern_cache = cpu_kern_cache,
    .kern_fill = cpu_kern_fill,
    .time_point = cpu_time_point,
    .validate_head = cpu_validate_head,
    .chart_title = cpu_chart_title,
    .close = cpu_close,
};
