/* ic_selfcheck: bench and validate, written once over the devices' ops
 * table (ic_dev.h; the CPU in ic_dev_cpu.c, CUDA in ic_dev_cuda.c): the
 * steps in order, the transition fit, the entry (written by ic_hwwrite
 * from the loader's own schema), and validate's sweep, predictions and
 * judgement. See the header for what they measure. */
#include "ic_selfcheck.h"
#include "ic_out.h"

#include "ic_dev.h"
#include "ic_decode.h"
#include "ic_hw.h"
#include "ic_hwwrite.h"
#include "ic_model.h"
#include "ic_plot.h"
#include "ic_step.h"
#include "ic_units.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- shared by the devices (ic_dev.h) -------------------------------------- */

void ic_dev_progress(FILE *p, int step, int steps, const char *what)
{
    if (p) {
        fprintf(p, "bench [%2d/%d] %s\n", step, steps, what);
        fflush(p);
    }
}

double ic_selfcheck_llc_from_ladder(const double *ws, const double *bw, int k, double dram,
                                    double ratio, double reported)
{
    int i = 0;
    while (i < k && bw[i] >= ratio * dram)
        i++;
    /* none in cache, or still in cache at the ladder's top: no judgement */
    if (i == 0 || i == k)
        return reported;
    return ws[i - 1] * 2 <= reported ? ws[i - 1] : reported;
}

void ic_dev_matrix_dims(enum ic_kern_wtype t, double bytes, uint32_t c, uint32_t *rows,
                        uint32_t *cols)
{
    double elems = bytes * 8 / ic_kern_wtype_bits(t);
    uint32_t r = (uint32_t)(elems / c);
    *rows = r < 64 ? 64 : r;
    *cols = c;
}

double ic_dev_kv_cache_B(const struct ic_kern_shape *s, uint32_t B, uint32_t S)
{
    return 2.0 * s->n_layers * s->n_kv_heads * s->head_dim * 2 * (double)B * (S + 1);
}

void ic_dev_gemm_table(const struct ic_dev_ops *ops, const struct ic_bench_res *r,
                       struct ic_hw_measured *table)
{
    memset(table, 0, sizeof *table);
    for (int t = 0; t < ops->n_types; t++) {
        table->gemm_flop_s[ops->dtypes[t]] = r->gemm_b[t][IC_DEV_BATCHES - 1];
        memcpy(table->gemm_by_batch[ops->dtypes[t]], r->gemm_b[t], sizeof r->gemm_b[t]);
    }
}

int ic_dev_text(char *dst, size_t n, const char *what, struct ic_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(dst, n, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= n)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the entry's %s is %d characters, more than the %zu an entry holds",
                          what, len, n - 1);
    return IC_OK;
}

static void today(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%d", &tm);
}

bool ic_selfcheck_counter(FILE *prog)
{
    if (!prog || !isatty(fileno(prog)))
        return false;
    const char *ci = getenv("CI"), *term = getenv("TERM");
    return !(ci && *ci) && !(term && strcmp(term, "dumb") == 0);
}

void ic_selfcheck_eta(char *buf, size_t n, double elapsed_s, size_t done, size_t total)
{
    if (!done || done > total || !(elapsed_s >= 0)) {
        snprintf(buf, n, "time left not known yet");
        return;
    }
    /* the points so far at their mean pace: seconds, rounded up */
    const double left = ceil(elapsed_s / (double)done * (double)(total - done));
    if (left < 60)
        snprintf(buf, n, "about %.0f s left", left);
    else if (left < 3600)
        snprintf(buf, n, "about %.0f min %02.0f s left", floor(left / 60), fmod(left, 60));
    else
        snprintf(buf, n, "about %.0f h %02.0f min left", floor(left / 3600),
                 floor(fmod(left, 3600) / 60));
}

/* ---- the transition exponent ---------------------------------------------
 * p of (T_mem^p + T_cmp^p)^(1/p) that best fits matmul times measured across
 * batches from DRAM (the CPU: a decode layer's chain of matmuls; least
 * squares in log time), by GSL's
 * Brent minimizer on p in [1, 32]. */

struct fit_data {
    const double *tm, *tc, *t; /* [n] memory, compute, measured seconds */
    size_t n;
};

static double fit_cost(double p, void *arg)
{
    const struct fit_data *d = arg;
    double s = 0;
    for (size_t i = 0; i < d->n; i++) {
        double r = log(ic_step_pnorm(d->tm[i], d->tc[i], p) / d->t[i]);
        s += r * r;
    }
    return s;
}

static int fit_transition(const struct fit_data *d, double *p_out, struct ic_err *err)
{
    /* Brent needs a bracket a < x < b with f(x) below both ends: scan a grid */
    double best = 1, fbest = INFINITY;
    for (double p = 1; p <= 32; p *= 1.1) {
        double f = fit_cost(p, (void *)d);
        if (f < fbest) {
            fbest = f;
            best = p;
        }
    }
    double lo = best / 1.1 < 1 ? 1 : best / 1.1, hi = best * 1.1 > 32 ? 32 : best * 1.1;
    if (!(fit_cost(best, (void *)d) < fit_cost(lo, (void *)d) &&
          fit_cost(best, (void *)d) < fit_cost(hi, (void *)d))) {
        *p_out = best; /* the optimum is at an end of [1, 32]: take it */
        return IC_OK;
    }
    gsl_function F = {fit_cost, (void *)d};
    gsl_min_fminimizer *s = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (!s)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = IC_OK;
    int status = gsl_min_fminimizer_set(s, &F, best, lo, hi);
    for (int it = 0; status == GSL_SUCCESS && it < 100; it++) {
        status = gsl_min_fminimizer_iterate(s);
        if (status)
            break;
        status = gsl_min_test_interval(gsl_min_fminimizer_x_lower(s),
                                       gsl_min_fminimizer_x_upper(s), 1e-3, 0);
        if (status == GSL_SUCCESS)
            break;
        if (status != GSL_CONTINUE)
            break;
        status = GSL_SUCCESS;
    }
    if (status != GSL_SUCCESS && status != GSL_CONTINUE)
        rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0, "fitting the transition failed: %s",
                        gsl_strerror(status));
    else
        *p_out = gsl_min_fminimizer_x_minimum(s);
    gsl_min_fminimizer_free(s);
    return rc;
}

/* ---- bench ------------------------------------------------------------------- */

/* The devices' tables, by ic_bench_opts.cuda / ic_validate_opts.cuda. */
static const struct ic_dev_ops *device(bool cuda) { return cuda ? &ic_dev_cuda : &ic_dev_cpu; }

/* The entry for r: the measured section from r, what every self-checked
 * machine shares (one chip measured alone: no fabric, no scale-out, no
 * price), and the rest in the device's words. */
static int make_entry(const struct ic_dev_ops *ops, const struct ic_dev *d,
                      const struct ic_bench_opts *o, const struct ic_bench_res *r,
                      struct ic_hw *hw, char *comment, size_t comment_len, struct ic_err *err)
{
    int rc;
    if ((rc = ic_dev_text(hw->name, sizeof hw->name, "name", err, "%s", o->name)))
        return rc;
    snprintf(hw->ici_kind_text, sizeof hw->ici_kind_text, "none");
    snprintf(hw->ici_topology_text, sizeof hw->ici_topology_text, "none");
    hw->ici_domain_chips = 1;
    snprintf(hw->dcn_kind, sizeof hw->dcn_kind, "none");
    snprintf(hw->host_kind, sizeof hw->host_kind, "none");
    snprintf(hw->price_as_of, sizeof hw->price_as_of, "%.7s", r->date);
    snprintf(hw->section_source[5], sizeof hw->section_source[5], "not known for this machine");

    struct ic_hw_measured *m = &hw->measured;
    ic_dev_gemm_table(ops, r, m); /* gemm and gemm_by_batch; the rest zeroed */
    m->present = true;
    snprintf(m->date, sizeof m->date, "%s", r->date);
    snprintf(m->cpu, sizeof m->cpu, "%s", r->chip);
    m->threads = (uint64_t)r->threads;
    m->llc_B = r->llc_B;
    m->read_B_s = r->read_B_s;
    m->read_1t_B_s = r->read_1t_B_s;
    m->cache_read_B_s = r->cache_read_B_s;
    m->probe_B_s = r->probe_B_s[0]; /* types[0]: fp32 on the CPU; 0 on a GPU */
    m->probe_gemm_flop_s = r->probe_flop_s[0];
    m->probe_attn_s = r->probe_attn_s; /* 0 on a GPU: none taken */
    m->fork_join_s = r->fork_join_s;
    m->matmul_start_s = r->matmul_start_s;
    m->layer_work_s = r->layer_work_s;
    m->layer_work_dim = r->o_dim;
    m->transition_p = r->p;
    for (int t = 0; t < ops->n_types; t++) {
        const enum ic_dtype dt = ops->dtypes[t];
        m->transition_p_type[dt] = r->p_type[t];
        m->gemv_B_s[dt] = r->gemv_B_s[t];
        m->gemv_cache_B_s[dt] = r->gemv_cache_B_s[t];
        if (dt != IC_DT_FP32 && r->probe_B_s[t] > 0 && r->probe_flop_s[t] > 0) {
            m->probe_type_B_s[dt] = r->probe_B_s[t];
            m->probe_gemm_type[dt] = r->probe_flop_s[t];
        }
    }
    m->attn_flop_s[IC_DT_BF16] = r->attn_flop_s[0];
    m->attn_flop_s[IC_DT_INT8] = r->attn_flop_s[1];
    m->attn_score_s[IC_DT_BF16] = r->attn_score_s[0];
    m->attn_score_s[IC_DT_INT8] = r->attn_score_s[1];
    return ops->bench_entry(d, o, r, hw, comment, comment_len, err);
}

int ic_selfcheck_bench(const struct ic_bench_opts *o, FILE *out, FILE *prog, struct ic_err *err)
{
    const struct ic_dev_ops *ops = device(o->cuda);
    struct ic_bench_res *r = calloc(1, sizeof *r);
    struct ic_hw *hw = calloc(1, sizeof *hw);
    struct ic_dev *d = NULL;
    char comment[1024];
    int rc;
    if (!r || !hw) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    today(r->date, sizeof r->date);
    if ((rc = ops->bench_open(o, r, &d, err)))
        goto out;
    int steps = 0, step = 0;
    for (int s = 0; s < IC_BS_COUNT; s++)
        steps += ops->bench[s] != NULL;
    for (int s = 0; s < IC_BS_COUNT; s++) {
        if (!ops->bench[s])
            continue;
        ic_dev_progress(prog, ++step, steps, ops->step_name[s]);
        if ((rc = ops->bench[s](d, r, err)))
            goto out;
    }
    if (r->warn[0] && prog)
        fprintf(prog, "bench: warning: %s\n", r->warn);
    /* the transition exponent over every type's timings, and per type
     * (each type's batches) where the device's fit asks for it */
    struct fit_data fd = {r->fit_tm, r->fit_tc, r->fit_t, r->n_fit};
    if ((rc = fit_transition(&fd, &r->p, err)))
        goto out;
    const size_t per = r->n_fit / (size_t)ops->n_types;
    for (int t = 0; ops->fit_per_type && t < ops->n_types; t++) {
        struct fit_data ft = {r->fit_tm + t * per, r->fit_tc + t * per, r->fit_t + t * per, per};
        if ((rc = fit_transition(&ft, &r->p_type[t], err)))
            goto out;
    }
    if ((rc = make_entry(ops, d, o, r, hw, comment, sizeof comment, err)) ||
        (rc = ic_hwwrite_file(o->out_path, hw, comment, err)))
        goto out;
    ops->bench_report(d, o, r, out);
out:
    if (d)
        ops->close(d);
    free(hw);
    free(r);
    return rc;
}

/* ---- validate --model ------------------------------------------------------- */

int ic_selfcheck_model_shape(const struct ic_model *m, struct ic_kern_shape *shape,
                             struct ic_err *err)
{
    struct ic_model_stats st;
    int rc = ic_model_derive(m, &st, err);
    if (rc)
        return rc;
    const uint64_t D = m->hidden_size, F = m->intermediate_size, L = st.n_layers,
                   H = st.n_heads, Hk = st.n_kv_heads, d = st.head_dim, V = st.vocab_size;
    char why[160] = "";
    if (!D || !F || !L || !H || !Hk || !d || !V)
        snprintf(why, sizeof why, "it states parameter totals, not a decoder's widths");
    else if (st.n_experts)
        snprintf(why, sizeof why, "it has %llu routed experts (MoE)",
                 (unsigned long long)st.n_experts);
    else if (st.mla)
        snprintf(why, sizeof why, "it uses multi-head latent attention (MLA)");
    else if (st.n_window_layers)
        snprintf(why, sizeof why, "%llu of its layers attend over a sliding window",
                 (unsigned long long)st.n_window_layers);
    else if (st.n_state_layers)
        snprintf(why, sizeof why, "%llu of its layers are %s",
                 (unsigned long long)st.n_state_layers,
                 st.state_mamba ? "Mamba2" : "linear attention (Gated DeltaNet)");
    else if (st.attn_gate)
        snprintf(why, sizeof why, "its attention output is gated (attn_output_gate)");
    else if (d % 2 || d > IC_KERN_MAX_HEAD_DIM)
        snprintf(why, sizeof why, "its head_dim %llu is odd or above %d",
                 (unsigned long long)d, IC_KERN_MAX_HEAD_DIM);
    else if (H % Hk)
        snprintf(why, sizeof why, "its %llu query heads are not a multiple of its %llu KV heads",
                 (unsigned long long)H, (unsigned long long)Hk);
    else if (D > 65536 || F > 262144 || L > 1024 || H > 1024 || V > 4194304)
        snprintf(why, sizeof why, "its widths are past the kernel's (dim <= 65536, hidden <= "
                                  "262144, layers <= 1024, heads <= 1024, vocab <= 4194304)");
    if (why[0]) {
        ic_err_set(err, IC_EINVAL, m->path, 0, 0,
                   "validate --model %s: the reference kernel runs dense Llama-style decoders "
                   "(RMSNorm, GQA attention with RoPE, SwiGLU MLP); %s",
                   m->name, why);
        ic_err_hint(err, "give a dense model (e.g. llama3-8b); 'infcalc validate' without "
                         "--model runs the built-in sweep");
        return IC_EINVAL;
    }
    *shape = (struct ic_kern_shape){(uint32_t)D, (uint32_t)F, (uint32_t)L, (uint32_t)H,
                                    (uint32_t)Hk, (uint32_t)d, (uint32_t)V, 0, 0};
    return IC_OK;
}

double ic_selfcheck_kern_bytes(const struct ic_kern_shape *s, unsigned wt_bits)
{
    const double D = s->dim, F = s->hidden_dim, L = s->n_layers, qd = (double)s->n_heads * s->head_dim,
                 kd = (double)s->n_kv_heads * s->head_dim, V = s->vocab;
    /* per layer: q (qd x D), k and v (kd x D each), o (D x qd), w1 and w3
     * (F x D each), w2 (D x F); then the LM head (V x D) */
    const double weights = L * (2 * qd * D + 2 * kd * D + 3 * F * D) + V * D;
    const double rows = L * (qd + 2 * kd + D + 2 * F + D) + V;
    return weights * wt_bits / 8 + (wt_bits == 8 ? rows * 4 : 0) + V * D * 4;
}

/* Bytes of memory available now: MemAvailable of /proc/meminfo, else the
 * free physical pages; 0 when neither is known. */
static double mem_available_B(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kb = 0;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
                break;
        fclose(f);
        if (kb)
            return (double)kb * 1024;
    }
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0;
}

/* validate --model's sweep: m's shape in the kernel's types that fit, all of
 * them held at once (validate makes every kernel before timing), next to
 * the largest KV cache a point may use, within 80% of the memory available;
 * smallest type first. */
static int model_sweep(const struct ic_validate_opts *o, double kv_cap_B, struct ic_vmodel *vm,
                       struct ic_err *err)
{
    memset(vm, 0, sizeof *vm);
    int rc = ic_selfcheck_model_shape(o->model, &vm->shape, err);
    if (rc)
        return rc;
    vm->name = o->model->name;
    static const enum ic_kern_wtype by_size[] = {IC_KW_INT8, IC_KW_BF16, IC_KW_FP32};
    const double avail = mem_available_B(), budget = 0.8 * avail - kv_cap_B;
    double held = 0;
    for (size_t i = 0; i < sizeof by_size / sizeof by_size[0]; i++) {
        const double b = ic_selfcheck_kern_bytes(&vm->shape, ic_kern_wtype_bits(by_size[i]));
        if (held + b <= budget) {
            vm->wtypes[vm->n_wtypes++] = by_size[i];
            held += b;
        }
    }
    if (!vm->n_wtypes) {
        ic_err_set(err, IC_EINVAL, o->model->path, 0, 0,
                   "validate --model %s: its weights take %.2f GiB in int8 (the kernel's "
                   "smallest type) and a point's KV cache up to %.2f GiB, more than 80%% of "
                   "the %.2f GiB of memory available",
                   o->model->name,
                   ic_selfcheck_kern_bytes(&vm->shape, 8) / 1073741824.0,
                   kv_cap_B / 1073741824.0, avail / 1073741824.0);
        ic_err_hint(err, "the reference kernel holds the weights in RAM; take a smaller "
                         "model or a machine with more memory");
        return IC_EINVAL;
    }
    static const uint32_t batches[] = {1, 4, 16, 64}, contexts[] = {256, 2048};
    vm->n_batches = o->quick ? 2 : 4;
    vm->n_contexts = o->quick ? 1 : 2;
    memcpy(vm->batches, batches, sizeof batches);
    memcpy(vm->contexts, contexts, sizeof contexts);
    return IC_OK;
}

/* ---- validate --------------------------------------------------------------- */

static enum ic_dtype dtype_of(enum ic_kern_wtype t)
{
    return t == IC_KW_FP32 ? IC_DT_FP32 : t == IC_KW_BF16 ? IC_DT_BF16 : IC_DT_INT8;
}

/* infcalc's view of the reference kernel: the same architecture as a model
 * entry, so the prediction goes through the same derivation as any other. */
static void shape_model(const struct ic_kern_shape *s, const char *name, struct ic_model *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->source, sizeof m->source, "infcalc reference kernel (src/kernels/ic_kern.h)");
    snprintf(m->path, sizeof m->path, "(built in)");
    m->hidden_size = s->dim;
    m->intermediate_size = s->hidden_dim;
    m->num_hidden_layers = s->n_layers;
    m->num_attention_heads = s->n_heads;
    m->num_key_value_heads = s->n_kv_heads;
    m->head_dim = s->head_dim;
    m->vocab_size = s->vocab;
    static const int given[] = {IC_MF_HIDDEN, IC_MF_INTERMEDIATE, IC_MF_LAYERS, IC_MF_HEADS,
                                IC_MF_KV_HEADS, IC_MF_HEAD_DIM, IC_MF_VOCAB};
    for (size_t i = 0; i < sizeof given / sizeof given[0]; i++)
        m->locs[given[i]] = (struct ic_loc){1, 1};
}

enum { R_MEMORY, R_TRANSITION, R_COMPUTE, R_CACHE, R_COUNT };
static const char *const regime_names[R_COUNT] = {"memory-bound", "transition", "compute-bound",
                                                  "cache-resident"};

/* validate --model's table: every point measured against predicted, with
 * the probes beside its steps (medians over its rounds). */
static void print_points(FILE *out, const struct ic_vmodel *models, const struct ic_vpoint *v,
                         size_t n)
{
    fprintf(out, "\n  %-5s %5s %7s %11s %12s %7s %10s %13s %15s %6s  %s\n", "type", "batch",
            "context", "measured", "predicted", "error", "probe", "compute probe",
            "attention probe", "steps", "regime");
    for (int w = 0; w < models[0].n_wtypes; w++)
        for (size_t i = 0; i < n; i++) {
            const struct ic_vpoint *p = &v[i];
            if (p->wt != w)
                continue;
            int steps = 0;
            for (int r = 0; r < p->rounds; r++)
                steps += p->nsteps[r];
            fprintf(out, "  %-5s %5u %7u %8.3f ms %9.3f ms %+6.1f%% %5.1f GB/s %7.1f GFLOP/s "
                         "%6.2f ns/score %6d  %s\n",
                    ic_kern_wtype_name(models[p->model].wtypes[p->wt]), p->batch, p->context,
                    p->measured * 1e3, p->predicted * 1e3, 100 * p->err, p->probe_bw / 1e9,
                    p->probe_flop / 1e9, p->probe_attn * 1e9, steps, regime_names[p->regime]);
        }
}

static int regime_of(const struct ic_point *p)
{
    if (p->cache_resident)
        return R_CACHE;
    double r = p->compute_s / p->weights_s;
    return r < 0.5 ? R_MEMORY : r <= 2 ? R_TRANSITION : R_COMPUTE;
}

struct err_stats {
    int n;
    double med_abs, med_signed, p90_abs, within10;
};

/* Over the points of the regimes in regime_mask, of weight type wt_dt and
 * model index model (-1: any). */
static struct err_stats error_stats_of(const struct ic_vpoint *v, size_t n, int regime_mask,
                                       int wt_dt, int model)
{
    struct err_stats s = {0, 0, 0, 0, 0};
    double *a = malloc(sizeof *a * (n ? n : 1)), *sg = malloc(sizeof *sg * (n ? n : 1));
    if (!a || !sg) {
        free(a);
        free(sg);
        return s;
    }
    size_t k = 0;
    int within = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(regime_mask & (1 << v[i].regime)))
            continue;
        if (wt_dt >= 0 && (int)v[i].pred.cfg.weights != wt_dt)
            continue;
        if (model >= 0 && v[i].model != model)
            continue;
        a[k] = fabs(v[i].err);
        sg[k] = v[i].err;
        within += fabs(v[i].err) <= 0.10;
        k++;
    }
    if (k) {
        gsl_sort(a, 1, k);
        gsl_sort(sg, 1, k);
        s.n = (int)k;
        s.med_abs = gsl_stats_median_from_sorted_data(a, 1, k);
        s.med_signed = gsl_stats_median_from_sorted_data(sg, 1, k);
        s.p90_abs = gsl_stats_quantile_from_sorted_data(a, 1, k, 0.9);
        s.within10 = (double)within / (double)k;
    }
    free(a);
    free(sg);
    return s;
}

static struct err_stats error_stats(const struct ic_vpoint *v, size_t n, int regime_mask, int wt_dt)
{
    return error_stats_of(v, n, regime_mask, wt_dt, -1);
}

static void print_stats(FILE *out, const char *label, struct err_stats s)
{
    if (!s.n)
        return;
    fprintf(out, "  %-26s %6d %12.1f%% %+13.1f%% %10.1f%% %11.0f%%\n", label, s.n,
            100 * s.med_abs, 100 * s.med_signed, 100 * s.p90_abs, 100 * s.within10);
}

static void shuffle(gsl_rng *rng, size_t *v, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = gsl_rng_uniform_int(rng, i);
        size_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static int write_csv(const char *path, const struct ic_vmodel *models, const struct ic_vpoint *v,
                     size_t n, struct ic_err *err)
{
    struct ic_out o;
    int rc = ic_out_open(&o, path, "the CSV", err);
    if (rc)
        return rc;
    FILE *f = o.f;
    fprintf(f, "model,weights,kv,batch,context,rounds,measured_s,measured_min_s,measured_max_s,"
               "probe_B_s,probe_flop_s,predicted_s,error_pct,regime,pred_weights_s,"
               "pred_compute_s,pred_kv_s,pred_attn_s,pred_fixed_s,probe_attn_s\n");
    for (size_t i = 0; i < n; i++) {
        const struct ic_vpoint *p = &v[i];
        fprintf(f,
                "%s,%s,bf16,%u,%u,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3f,%s,%.6g,%.6g,%.6g,%.6g,"
                "%.6g,%.6g\n",
                models[p->model].name,
                ic_kern_wtype_name(models[p->model].wtypes[p->wt]), p->batch, p->context,
                p->rounds, p->measured, p->tlo, p->thi, p->probe_bw, p->probe_flop, p->predicted,
                100 * p->err,
                regime_names[p->regime], p->pred.weights_s, p->pred.compute_s, p->pred.kv_s,
                p->pred.attn_s, p->pred.fixed_s, p->probe_attn);
    }
    return ic_out_close(&o, false, err);
}

/* Measured beside predicted for the first model: against batch at the
 * context with the most batches, and against context at a small batch. */
static int write_charts(const struct ic_validate_opts *o, const struct ic_dev_ops *ops,
                        const struct ic_vmodel *models,
                        const struct ic_vpoint *v, size_t n, const struct err_stats *dram,
                        const char *chip, int threads, struct ic_err *err)
{
    const struct ic_vmodel *m = &models[0];
    for (int chart = 0; chart < 2; chart++) {
        uint32_t fixed = chart == 0 ? m->contexts[1 < m->n_contexts ? 1 : 0]
                                    : m->batches[m->n_batches > 3 ? 3 : 0];
        struct ic_plot_vpoint *pts = calloc(n ? n : 1, sizeof *pts);
        struct ic_plot_vseries series[IC_DEV_TYPES];
        if (!pts)
            return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        size_t used = 0;
        int ns = 0;
        for (int w = 0; w < m->n_wtypes; w++) {
            size_t first = used;
            /* in order of the swept axis */
            const uint32_t *axis = chart == 0 ? m->batches : m->contexts;
            int n_axis = chart == 0 ? m->n_batches : m->n_contexts;
            for (int a = 0; a < n_axis; a++)
                for (size_t i = 0; i < n; i++) {
                    const struct ic_vpoint *p = &v[i];
                    if (p->model != 0 || p->wt != w)
                        continue;
                    uint32_t x = chart == 0 ? p->batch : p->context;
                    uint32_t y = chart == 0 ? p->context : p->batch;
                    if (x != axis[a] || y != fixed)
                        continue;
                    pts[used++] = (struct ic_plot_vpoint){x, p->measured * p->to_run,
                                                          p->tlo * p->to_run,
                                                          p->thi * p->to_run, p->pred_run};
                }
            if (used > first)
                series[ns++] = (struct ic_plot_vseries){ic_kern_wtype_name(m->wtypes[w]),
                                                        pts + first, used - first};
        }
        char path[600], title[300], sub[400];
        snprintf(path, sizeof path, "%s-%s.png", o->plot_prefix, chart == 0 ? "batch" : "context");
        ops->chart_title(title, sizeof title, m->name, chip, threads);
        snprintf(sub, sizeof sub,
                 "%s %u; at the run's median probes (measured carried there by its own); "
                 "all %s-resident points: median |error| %.1f%%, p90 %.1f%%, %.0f%% within "
                 "10%% (n = %d)",
                 chart == 0 ? "context" : "batch", fixed, ops->memory,
                 100 * dram->med_abs,
                 100 * dram->p90_abs, 100 * dram->within10, dram->n);
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1600, 1000);
        cairo_t *cr = cairo_create(s);
        int rc = ns ? ic_plot_validation(cr, 1600, 1000, title, sub,
                                         chart == 0 ? "batch (sequences)" : "context (tokens)",
                                         series, (size_t)ns, NULL, err)
                    : IC_OK;
        cairo_destroy(cr);
        if (rc == IC_OK && ns && cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS)
            rc = ic_err_set(err, IC_EIO, path, 0, 0, "cannot write the chart");
        cairo_surface_destroy(s);
        free(pts);
        if (rc)
            return rc;
    }
    return IC_OK;
}

/* What validate's probes are divided by: the same probes at bench time. */
struct probe_ref {
    double bw, flop; /* bytes/s; FLOP/s (0: none, compute rates as benched) */
    int type;        /* the probes' type, an index of ops->types (ic_dev_probe_type) */
    double attn;     /* the attention probe, seconds per score (0: none) */
};

/* The reference for a point of weight type wt, whose probes the device
 * took in type ic_dev_probe_type(): that type's own where the entry holds
 * them; else the fp32 probes under probe_bandwidth and probe_gemm. An
 * entry without probe_gemm holds a plain read probe under
 * probe_bandwidth, which the matmul probe must not be divided by (their
 * ratio moved 0.7-1.05 between runs): against its fp32 batch-1 DRAM
 * matmul instead, the same operation (the device warns). */
static struct probe_ref probe_ref_of(const struct ic_dev_ops *ops, const struct ic_hw_measured *hm,
                                     enum ic_kern_wtype wt)
{
    const int pt = ic_dev_probe_type(ops, hm, wt);
    if (pt > 0)
        return (struct probe_ref){hm->probe_type_B_s[ops->dtypes[pt]],
                                  hm->probe_gemm_type[ops->dtypes[pt]], pt, hm->probe_attn_s};
    const bool new_probes = hm->probe_gemm_flop_s > 0 && hm->probe_B_s > 0;
    return (struct probe_ref){new_probes                     ? hm->probe_B_s
                              : hm->gemv_B_s[IC_DT_FP32] > 0 ? hm->gemv_B_s[IC_DT_FP32]
                                                             : hm->read_B_s,
                              hm->probe_gemm_flop_s, 0, hm->probe_attn_s};
}

/* The expected time's rates at the probes bw (bytes/s), flop (FLOP/s) and
 * attn (seconds per score): each probe over the same probe at bench time
 * (ref; the attention's a time, so the reference over it); a probe of 0
 * (the GPU takes none), or no reference: as benched (the attention then
 * at the compute probe's scale). */
static void at_probes(struct ic_decode_cfg *c, struct probe_ref ref, double bw, double flop,
                      double attn)
{
    c->bw_scale = bw > 0 ? bw / ref.bw : 1.0;
    c->compute_scale = flop > 0 && ref.flop > 0 ? flop / ref.flop : 1.0;
    c->attn_scale = attn > 0 && ref.attn > 0 ? ref.attn / attn : 0;
}

int ic_selfcheck_validate(const struct ic_validate_opts *o, FILE *out, FILE *prog,
                          struct ic_err *err)
{
    const struct ic_dev_ops *ops = device(o->cuda);
    struct ic_hw *hw = calloc(1, sizeof *hw);
    if (!hw)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = IC_OK;
    if (o->hw)
        *hw = *o->hw;
    else
        rc = ic_hw_load(o->hw_path, hw, err);
    if (rc) {
        free(hw);
        return rc;
    }
    if (!hw->measured.present) {
        rc = ic_err_set(err, IC_EINVAL, o->hw_path, 0, 0,
                        "has no measured section; validate needs an entry written by "
                        "'infcalc bench'");
        ic_err_hint(err, "run 'infcalc bench --out this-machine.yaml' on this machine, then "
                         "'infcalc validate --hw this-machine.yaml'");
        free(hw);
        return rc;
    }
    const struct ic_vmodel *models = o->quick ? ops->models_quick : ops->models_full;
    size_t n_models = o->quick ? ops->n_quick : ops->n_full;
    struct ic_vmodel own;
    if (o->model) {
        if (o->cuda)
            rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "validate --model: the CPU's reference kernel only, not with "
                            "--device cuda");
        else
            rc = model_sweep(o, o->kv_cap_B > 0 ? o->kv_cap_B : ops->kv_cap_B, &own, err);
        if (rc) {
            free(hw);
            return rc;
        }
        models = &own;
        n_models = 1;
    }
    const int rounds = o->quick ? 1
                                : (o->rounds > 0 ? (o->rounds > IC_DEV_ROUNDS ? IC_DEV_ROUNDS
                                                                              : o->rounds)
                                                 : 3);
    const double cap = o->kv_cap_B > 0 ? o->kv_cap_B : ops->kv_cap_B;
    if (n_models > IC_DEV_MODELS) {
        free(hw);
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the %s device's sweep has %zu models, more than the %d validate holds",
                          ops->name, n_models, (int)IC_DEV_MODELS);
    }
    struct ic_dev *dev = NULL;
    void *kerns[IC_DEV_MODELS][IC_DEV_TYPES] = {{NULL}};
    struct ic_vpoint *pts = NULL;
    size_t *order = NULL;
    gsl_rng *rng = NULL;
    struct ic_model *im = calloc(1, sizeof *im);
    uint32_t *tok = NULL, *pos = NULL;
    if (!im) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    int threads = 1;
    if ((rc = ops->validate_open(o, hw, prog, &dev, &threads, err)))
        goto out;
    const struct ic_hw_measured *hm = &hw->measured;

    /* the points: every model x type x batch x context within the KV cap */
    size_t n = 0, cap_pts = 0;
    for (size_t m = 0; m < n_models; m++)
        cap_pts += (size_t)models[m].n_wtypes * (size_t)models[m].n_batches *
                   (size_t)models[m].n_contexts;
    pts = calloc(cap_pts, sizeof *pts);
    order = calloc(cap_pts, sizeof *order);
    tok = calloc(256, sizeof *tok);
    pos = calloc(256, sizeof *pos);
    rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!pts || !order || !tok || !pos || !rng) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    gsl_rng_set(rng, o->seed ? o->seed : 20261129);
    for (size_t m = 0; m < n_models; m++) {
        const struct ic_kern_shape *s = &models[m].shape;
        for (int w = 0; w < models[m].n_wtypes; w++)
            for (int c = 0; c < models[m].n_contexts; c++)
                for (int b = 0; b < models[m].n_batches; b++) {
                    uint32_t B = models[m].batches[b], S = models[m].contexts[c];
                    if (ic_dev_kv_cache_B(s, B, S) > cap)
                        continue;
                    pts[n] = (struct ic_vpoint){.model = (int)m, .wt = w, .batch = B,
                                                .context = S, .tlo = INFINITY, .thi = 0};
                    n++;
                }
    }

    /* kernels: one per model and type, created once; the cache is sized per
     * context block */
    for (size_t m = 0; m < n_models; m++)
        for (int w = 0; w < models[m].n_wtypes; w++) {
            struct ic_kern_shape s = models[m].shape;
            s.max_batch = 1;
            s.max_seq = 2;
            if (prog)
                fprintf(prog, "validate: making %s %s weights\n", models[m].name,
                        ic_kern_wtype_name(models[m].wtypes[w]));
            if ((rc = ops->kern_create(dev, &s, models[m].wtypes[w],
                                       (o->seed ? o->seed : 7) + m, &kerns[m][w], err)))
                goto out;
        }

    /* rounds: blocks of (model, type, context) in random order, batches in
     * random order within a block; on a terminal, a point counter with the
     * time left below the progress lines (ic_selfcheck_counter) */
    const bool counter = ic_selfcheck_counter(prog);
    const double t_start = ic_mb_now();
    size_t timed = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        shuffle(rng, order, n);
        /* stable grouping by block, blocks in the order their first point drew */
        size_t done = 0;
        while (done < n) {
            const struct ic_vpoint *lead = &pts[order[done]];
            size_t end = done;
            for (size_t i = done; i < n; i++) {
                const struct ic_vpoint *q = &pts[order[i]];
                if (q->model == lead->model && q->wt == lead->wt && q->context == lead->context) {
                    size_t t = order[end];
                    order[end] = order[i];
                    order[i] = t;
                    end++;
                }
            }
            uint32_t maxb = 0;
            for (size_t i = done; i < end; i++)
                maxb = pts[order[i]].batch > maxb ? pts[order[i]].batch : maxb;
            void *k = kerns[lead->model][lead->wt];
            const struct ic_vmodel *vm = &models[lead->model];
            if ((rc = ops->kern_cache(k, maxb, lead->context + 1, err)))
                goto out;
            for (uint32_t b = 0; b < maxb; b++) {
                if ((rc = ops->kern_fill(k, b, lead->context, 99 + b, err)))
                    goto out;
                tok[b] = (b * 7919u) % vm->shape.vocab;
                pos[b] = lead->context;
            }
            for (size_t i = done; i < end; i++) {
                struct ic_vpoint *p = &pts[order[i]];
                if (counter)
                    fputs("\r\033[K", prog); /* the counter's line gives way */
                if ((rc = ops->time_point(dev, k, vm, p, r, rounds, tok, pos, o->quick, hw, prog,
                                          err)))
                    goto out;
                p->rounds = r + 1;
                timed++;
                if (counter) {
                    char eta[32];
                    ic_selfcheck_eta(eta, sizeof eta, ic_mb_now() - t_start, timed,
                                     n * (size_t)rounds);
                    fprintf(prog, "validate: %zu of %zu points timed, %s", timed,
                            n * (size_t)rounds, eta);
                    fflush(prog);
                }
            }
            done = end;
        }
    }

    if (counter)
        fputs("\r\033[K", prog);

    /* predictions: infcalc's expected time on the benched entry, at the
     * bandwidth the probes saw; and for the charts at the run's median
     * probes. (The charts drew each point's own-moment prediction before:
     * one bf16 point at batch 8, context 8192 ran while the compute probe
     * read 65 GFLOP/s against ~150 around it, its prediction rose 34% above
     * its timing, and the predicted line fell from there to context 16384,
     * docs/validation.md.) */
    /* the run's medians per probe type (a point's probes are its weight
     * type's where the entry has them, ic_dev_probe_type) */
    double run_bw[IC_DEV_TYPES] = {0}, run_flop[IC_DEV_TYPES] = {0}, run_attn = 0;
    {
        double *bv = malloc(sizeof *bv * (n * IC_DEV_ROUNDS + 1));
        double *fv = malloc(sizeof *fv * (n * IC_DEV_ROUNDS + 1));
        size_t na = 0;
        for (size_t i = 0; bv && i < n; i++) /* the attention probe: one for every type */
            for (int r = 0; r < pts[i].rounds; r++)
                if (pts[i].aprobe[r] > 0)
                    bv[na++] = pts[i].aprobe[r];
        if (na)
            run_attn = ic_mb_summary(bv, (int)na).median;
        for (int pt = 0; bv && fv && pt < ops->n_types; pt++) {
            size_t nb = 0;
            for (size_t i = 0; i < n; i++) {
                if (ic_dev_probe_type(ops, hm, models[pts[i].model].wtypes[pts[i].wt]) != pt)
                    continue;
                for (int r = 0; r < pts[i].rounds; r++)
                    if (pts[i].probe[r] > 0 && pts[i].cprobe[r] > 0) {
                        bv[nb] = pts[i].probe[r];
                        fv[nb++] = pts[i].cprobe[r];
                    }
            }
            if (nb) {
                run_bw[pt] = ic_mb_summary(bv, (int)nb).median;
                run_flop[pt] = ic_mb_summary(fv, (int)nb).median;
            }
        }
        free(bv);
        free(fv);
    }
    for (size_t i = 0; i < n; i++) {
        struct ic_vpoint *p = &pts[i];
        const struct ic_vmodel *vm = &models[p->model];
        double tv[IC_DEV_ROUNDS], pv[IC_DEV_ROUNDS], cv[IC_DEV_ROUNDS], av[IC_DEV_ROUNDS];
        memcpy(tv, p->t, sizeof tv);
        memcpy(pv, p->probe, sizeof pv);
        memcpy(cv, p->cprobe, sizeof cv);
        memcpy(av, p->aprobe, sizeof av);
        p->measured = ic_mb_summary(tv, p->rounds).median;
        p->probe_bw = ic_mb_summary(pv, p->rounds).median;
        p->probe_flop = ic_mb_summary(cv, p->rounds).median;
        p->probe_attn = ic_mb_summary(av, p->rounds).median;
        shape_model(&vm->shape, vm->name, im);
        struct ic_model_stats st;
        if ((rc = ic_model_derive(im, &st, err)))
            goto out;
        struct ic_decode_cfg c = ic_decode_defaults();
        c.batch = p->batch;
        c.context = p->context + 1; /* the step attends over its own token too */
        c.weights = dtype_of(vm->wtypes[p->wt]);
        c.kv = IC_DT_BF16;
        c.compute = ops->compute;
        c.estimate = IC_EST_EXPECTED;
        const struct probe_ref ref = probe_ref_of(ops, hm, vm->wtypes[p->wt]);
        at_probes(&c, ref, ops->rescale ? p->probe_bw : 0, p->probe_flop, p->probe_attn);
        c.regions = p->regions; /* counted, not timed: structure, not calibration */
        if ((rc = ic_decode(&st, hw, &c, &p->pred, err)))
            goto out;
        p->predicted = p->pred.step_s;
        p->err = (p->predicted - p->measured) / p->measured;
        p->regime = regime_of(&p->pred);
        /* where each step has its own probes: each step predicted at its own
         * moment, and the point's error the median of the steps' */
        double ratio[IC_DEV_ROUNDS * IC_DEV_VSTEPS];
        int nr = 0;
        for (int r = 0; r < p->rounds; r++)
            for (int s = 0; s < p->nsteps[r]; s++) {
                struct ic_point q;
                at_probes(&c, ref, p->steps[r][s].bw, p->steps[r][s].c, p->steps[r][s].a);
                if ((rc = ic_decode(&st, hw, &c, &q, err)))
                    goto out;
                ratio[nr++] = q.step_s / p->steps[r][s].t;
            }
        if (nr) {
            p->err = ic_mb_summary(ratio, nr).median - 1;
            p->predicted = p->measured * (1 + p->err);
        }
        struct ic_point q;
        at_probes(&c, ref, ops->rescale ? run_bw[ref.type] : 0, run_flop[ref.type], run_attn);
        if ((rc = ic_decode(&st, hw, &c, &q, err)))
            goto out;
        p->pred_run = q.step_s;
        p->to_run = q.step_s / p->predicted;
    }

    char chip[128];
    snprintf(chip, sizeof chip, "%s", hw->measured.cpu);
    const int dram_mask = (1 << R_MEMORY) | (1 << R_TRANSITION) | (1 << R_COMPUTE);
    struct err_stats dram = error_stats(pts, n, dram_mask, -1);
    ops->validate_head(out, chip, threads, rounds, n, o->hw_path, hw->measured.date);
    fprintf(out, "  %-26s %6s %13s %14s %11s %12s\n", "regime", "points", "median |err|",
            "signed median", "p90 |err|", "within 10%");
    for (int g = 0; g < R_COUNT; g++)
        print_stats(out, regime_names[g], error_stats(pts, n, 1 << g, -1));
    char label[64];
    snprintf(label, sizeof label, "%s-resident (all above)", ops->memory);
    print_stats(out, label, dram);
    print_stats(out, "all points", error_stats(pts, n, (1 << R_COUNT) - 1, -1));
    if (dram.n)
        fprintf(out, "\n  by weight type, %s-resident:\n", ops->memory);
    static const enum ic_dtype by_type[] = {IC_DT_FP32, IC_DT_BF16, IC_DT_INT8};
    for (size_t t = 0; t < sizeof by_type / sizeof by_type[0]; t++)
        print_stats(out, ic_dtype_traits(by_type[t])->name,
                    error_stats(pts, n, dram_mask, (int)by_type[t]));
    if (n_models > 1) {
        fprintf(out, "\n  by shape, %s-resident (targets on each: median <= 5%%, p90 <= 15%%):\n",
                ops->memory);
        for (size_t m = 0; m < n_models; m++)
            print_stats(out, models[m].name, error_stats_of(pts, n, dram_mask, -1, (int)m));
    }
    if (o->model)
        print_points(out, models, pts, n);
    if (o->csv_path) {
        if ((rc = write_csv(o->csv_path, models, pts, n, err)))
            goto out;
        fprintf(out, "\nwrote %s\n", o->csv_path);
    }
    if (o->plot_prefix) {
        if ((rc = write_charts(o, ops, models, pts, n, &dram, chip, threads, err)))
            goto out;
        fprintf(out, "wrote %s-batch.png and %s-context.png\n", o->plot_prefix, o->plot_prefix);
    }
out:
    for (size_t m = 0; m < IC_DEV_MODELS; m++)
        for (int w = 0; w < IC_DEV_TYPES; w++)
            if (kerns[m][w])
                ops->kern_free(kerns[m][w]);
    if (dev)
        ops->close(dev);
    gsl_rng_free(rng);
    free(pts);
    free(order);
    free(tok);
    free(pos);
    free(im);
    free(hw);
    return rc;
}
