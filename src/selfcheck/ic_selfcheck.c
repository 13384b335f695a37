/* ic_selfcheck: the bench and validate commands (see the header). */
#include "ic_selfcheck.h"

#include "ic_decode.h"
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_plot.h"
#include "ic_units.h"
#include "ic_kern.h"
#include "ic_mbench.h"
#include "ic_cuda.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
    return 0;
}

static void today(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%d", &tm);
}

static void progress_line(FILE *p, int step, int steps, const char *what)
{
    if (p) {
        fprintf(p, "bench [%2d/%d] %s\n", step, steps, what);
        fflush(p);
    }
}

/* ---- the transition exponent ---------------------------------------------
 * p of (T_mem^p + T_cmp^p)^(1/p) that best fits matmul times measured across
 * batches on a DRAM-resident matrix (least squares in log time), by GSL's
 * Brent minimizer on p in [1, 32]. */

struct fit_data {
    const double *tm, *tc, *t; /* [n] memory, compute, measured seconds */
    size_t n;
};

static double pn(double a, double b, double p)
{
    double m = fmax(a, b);
    return m * pow(pow(a / m, p) + pow(b / m, p), 1.0 / p);
}

static double fit_cost(double p, void *arg)
{
    const struct fit_data *d = arg;
    double s = 0;
    for (size_t i = 0; i < d->n; i++) {
        double r = log(pn(d->tm[i], d->tc[i], p) / d->t[i]);
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

/* ---- bench ----------------------------------------------------------------- */

static const enum ic_kern_wtype bench_types[] = {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8};
static const enum ic_dtype bench_dtypes[] = {IC_DT_FP32, IC_DT_BF16, IC_DT_INT8};
enum { N_TYPES = 3 };

/* A matrix of about `bytes` in type t: rows x c. */
static void matrix_dims_c(enum ic_kern_wtype t, double bytes, uint32_t c, uint32_t *rows,
                          uint32_t *cols)
{
    double elems = bytes * 8 / ic_kern_wtype_bits(t);
    uint32_t r = (uint32_t)(elems / c);
    *rows = r < 64 ? 64 : r;
    *cols = c;
}

/* The CPU bench's matrices: 2048 columns at every size, a decode
 * projection's input width (the hidden size of Llama-3.2-1B and of
 * validate's model), so that the DRAM and in-cache rates are of one shape.
 * (4096 columns above 64 MiB before: from DRAM the kernel ran batches 8-16
 * up to ~1.2x faster there than at 2048, a throwaway diagnostic, README.) */
static void matrix_dims(enum ic_kern_wtype t, double bytes, uint32_t *rows, uint32_t *cols)
{
    matrix_dims_c(t, bytes, 2048, rows, cols);
}

/* The probes bench and validate take beside their timings, each one call of
 * the reference kernel's fp32 matmul after one untimed call:
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

static void probe_free(struct probe *p)
{
    ic_kern_matrix_free(p->w);
    free(p->x);
    free(p->y);
    memset(p, 0, sizeof *p);
}

static int probe_init(struct probe *p, double bytes, uint32_t batch, struct ic_err *err)
{
    memset(p, 0, sizeof *p);
    matrix_dims(IC_KW_FP32, bytes, &p->rows, &p->cols);
    p->batch = batch;
    int rc = ic_kern_matrix_create(IC_KW_FP32, p->rows, p->cols, 4242, &p->w, err);
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

struct bench_results {
    double read, read_1t, copy, triad, cache_read, probe, cprobe, fma, fork_join, llc;
    double gemv_level[3]; /* the probe beside each DRAM matmul (one per type) */
    double gemv_of_read[3]; /* DRAM matmul over a 1 GiB read beside it (median ratio) */
    double gemv[N_TYPES], gemv_cache[N_TYPES], gemm[N_TYPES], p;
    double gemm_b[N_TYPES][9]; /* in-cache matmul FLOP/s at batch 1, 2, 4, ... 256 */
    double p_type[N_TYPES];
    double attn[2];            /* attention FLOP/s, bf16 and int8 KV */
    double ladder_bytes[24], ladder_bw[24];
    int ladder_n;
    struct ic_mb_stats read_s, read_1t_s, fj_s, gemv_s[N_TYPES];
};

/* The measured section's rate maps, per weight type: gemv_dram and
 * gemv_cache (bytes/s), gemm (the batch-256 rate) and gemm_by_batch (batches
 * 1, 2, 4 ... 256), as the CPU and the CUDA bench both write them. */
static void write_rates(FILE *f, const enum ic_dtype *types, int n, const double *gemv,
                        const double *gemv_cache, const double (*gemm_b)[9])
{
    static const char *const sec[4] = {"gemv_dram", "gemv_cache", "gemm", "gemm_by_batch"};
    for (int s = 0; s < 4; s++) {
        fprintf(f, "  %s:\n", sec[s]);
        for (int t = 0; t < n; t++) {
            const char *name = ic_dtype_traits(types[t])->name;
            if (s == 0)
                fprintf(f, "    %s: %.6g GB/s\n", name, gemv[t] / 1e9);
            else if (s == 1)
                fprintf(f, "    %s: %.6g GB/s\n", name, gemv_cache[t] / 1e9);
            else if (s == 2)
                fprintf(f, "    %s: %.6g GFLOP/s\n", name, gemm_b[t][8] / 1e9);
            else
                for (int i = 0; i < 9; i++)
                    fprintf(f, "%s%s%s%.6g GFLOP/s%s", i ? ", " : "    ", i ? "" : name,
                            i ? "" : ": [", gemm_b[t][i] / 1e9, i == 8 ? "]\n" : "");
        }
    }
}

static int write_entry(const struct ic_bench_opts *o, const struct bench_results *r,
                       const char *cpu, const char *date, int threads, struct ic_err *err)
{
    FILE *f = fopen(o->out_path, "w");
    if (!f)
        return ic_err_set(err, IC_EIO, o->out_path, 0, 0, "cannot write the entry");
    double ram = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    const char *src = "measured by infcalc bench";
    fprintf(f, "# %s: this machine as `infcalc bench` measured it on %s.\n", o->name, date);
    fprintf(f, "# The memory and compute sections hold measured figures (what the ideal\n"
               "# bound uses); the measured section, what the expected time uses.\n");
    fprintf(f, "name: %s\nvendor: \"%s\"\ndescription: \"%s, %d threads, measured\"\n",
            o->name, cpu, cpu, threads);
    fprintf(f, "memory:\n  capacity: %.0f B\n  bandwidth: %.6g GB/s\n", ram, r->read / 1e9);
    fprintf(f, "  source: \"capacity: sysconf physical pages; bandwidth: %s, read-only sum "
               "over a buffer >= 4x the LLC, %d threads, median\"\n", src, threads);
    fprintf(f, "compute:\n  fp32: %.6g GFLOP/s\n", r->fma / 1e9);
    fprintf(f, "  source: \"%s: fp32 FMA peak on register operands, %d threads; other "
               "types are not listed (the reference kernel computes in fp32)\"\n",
            src, threads);
    fprintf(f, "interconnect:\n  kind: none\n  topology: none\n  link_bandwidth_one_way: 0 B/s\n"
               "  links_per_chip: 0\n  domain_chips: 1\n  hop_latency: 0 s\n"
               "  source: \"one CPU socket: no chip-to-chip fabric\"\n");
    fprintf(f, "scale_out:\n  kind: none\n  bandwidth_one_way: 0 B/s\n  latency: 0 s\n"
               "  source: \"not measured: infcalc's self-check runs on one machine\"\n");
    fprintf(f, "host_link:\n  kind: none\n  bandwidth_one_way: 0 B/s\n"
               "  source: \"the CPU's memory is the host memory\"\n");
    fprintf(f, "price:\n  usd_per_chip_hour: 0\n  as_of: %.7s\n"
               "  source: \"not known for this machine\"\n", date);
    fprintf(f, "sources:\n  - \"infcalc bench (src/kernels/ic_mbench.c), %s\"\n", date);
    fprintf(f, "notes: \"STREAM copy %.4g GB/s and triad %.4g GB/s (as STREAM counts them), "
               "for reference only: a decode step reads, it does not copy. Working-set ladder "
               "(GB/s):",
            r->copy / 1e9, r->triad / 1e9);
    for (int i = 0; i < r->ladder_n; i++)
        fprintf(f, " %.0f KiB %.0f%s", r->ladder_bytes[i] / 1024, r->ladder_bw[i] / 1e9,
                i + 1 < r->ladder_n ? "," : "");
    fprintf(f, ".\"\n");
    fprintf(f, "measured:\n  date: %s\n  cpu: \"%s\"\n  threads: %d\n  llc: %.0f B\n", date, cpu,
            threads, r->llc);
    fprintf(f, "  read_bandwidth: %.6g GB/s\n  read_bandwidth_1thread: %.6g GB/s\n",
            r->read / 1e9, r->read_1t / 1e9);
    fprintf(f, "  cache_read_bandwidth: %.6g GB/s\n  probe_bandwidth: %.6g GB/s\n",
            r->cache_read / 1e9, r->probe / 1e9);
    fprintf(f, "  probe_gemm: %.6g GFLOP/s\n", r->cprobe / 1e9);
    fprintf(f, "  fork_join: %.6g us\n", r->fork_join * 1e6);
    fprintf(f, "  transition_p: %.4g\n  transition_p_by_type:\n", r->p);
    for (int t = 0; t < N_TYPES; t++)
        fprintf(f, "    %s: %.4g\n", ic_dtype_traits(bench_dtypes[t])->name, r->p_type[t]);
    write_rates(f, bench_dtypes, N_TYPES, r->gemv, r->gemv_cache, r->gemm_b);
    fprintf(f, "  attention:\n    bf16: %.6g GFLOP/s\n    int8: %.6g GFLOP/s\n", r->attn[0] / 1e9,
            r->attn[1] / 1e9);
    fprintf(f, "  source: \"infcalc bench %s: medians; gemv = the reference kernel's matmul at "
               "batch 1 (B/s), gemm = at batch 256 on 2048x2048 (FLOP/s), gemm_by_batch at "
               "batches 1-256, attention = the kernel's attention alone over a cache >= 4x the "
               "LLC; DRAM rates at probe_bandwidth's level, GEMM and attention at probe_gemm's; "
               "transition_p fitted to the matmul at batches 1-256 from DRAM, "
               "transition_p_by_type per type\"\n",
            date);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return ic_err_set(err, IC_EIO, o->out_path, 0, 0, "writing the entry failed");
    return IC_OK;
}

static int bench_cuda(const struct ic_bench_opts *o, FILE *out, FILE *prog, struct ic_err *err);

int ic_selfcheck_bench(const struct ic_bench_opts *o, FILE *out, FILE *prog, struct ic_err *err)
{
    if (o->cuda)
        return bench_cuda(o, out, prog, err);
    struct bench_results r;
    memset(&r, 0, sizeof r);
    char cpu[128], date[16];
    cpu_model(cpu, sizeof cpu);
    today(date, sizeof date);
    r.llc = llc_bytes();
    if (!(r.llc > 0))
        return ic_err_set(err, IC_EIO, NULL, 0, 0,
                          "cannot read the last-level cache size from "
                          "/sys/devices/system/cpu/cpu0/cache");
    struct ic_kern_pool *pool = NULL, *pool1 = NULL;
    float *buf = NULL, *buf2 = NULL, *buf3 = NULL;
    struct ic_kern_matrix *mats[N_TYPES][2] = {{NULL}};
    struct ic_kern_matrix *gmats[N_TYPES] = {NULL};
    struct probe pr = {0}, cpr = {0};
    int rc;
    if ((rc = ic_kern_pool_create(o->threads, &pool, err)) ||
        (rc = ic_kern_pool_create(1, &pool1, err)) ||
        (rc = probe_init(&pr, 4 * r.llc, 1, err)) || (rc = probe_init(&cpr, r.llc / 4, 64, err)))
        goto out;
    const int threads = ic_kern_pool_threads(pool);
    const int reps = o->quick ? 3 : 9;
    /* DRAM buffer: 1 GiB, and at least 4x the LLC (quick: just 4x the LLC) */
    double dram = fmax(4 * r.llc, o->quick ? 4 * r.llc : 1073741824.0);
    size_t n = (size_t)(dram / sizeof(float));
    buf = malloc(n * sizeof(float));   /* [n] */
    buf2 = malloc(n * sizeof(float));  /* [n] */
    buf3 = malloc(n * sizeof(float));  /* [n] */
    if (!buf || !buf2 || !buf3) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for a %.0f MB buffer",
                        dram / 1e6);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = buf2[i] = buf3[i] = (float)(i % 1000) * 1e-3f;
    const int steps = 10;
    int step = 0;
    progress_line(prog, ++step, steps, "read-only bandwidth, DRAM");
    r.read_s = ic_mb_read(pool, buf, n, 1, reps);
    r.read_1t_s = ic_mb_read(pool1, buf, n, 1, reps);
    r.read = r.read_s.median;
    r.read_1t = r.read_1t_s.median;
    /* validate's probe, as validate takes it (struct probe): the reference
     * its probes are divided by, so that what the probe reads differently
     * from the figure above is not taken for a change in the machine */
    r.probe = probe_median(pool, &pr, reps);
    r.cprobe = probe_median(pool, &cpr, reps);
    progress_line(prog, ++step, steps, "STREAM copy and triad (reference only)");
    r.copy = ic_mb_copy(pool, buf2, buf, n, reps).median;
    r.triad = ic_mb_triad(pool, buf3, buf, buf2, n, reps).median;
    progress_line(prog, ++step, steps, "working-set ladder");
    for (double ws = 256.0 * 1024; ws <= fmin(dram, o->quick ? 64.0 * 1048576 : 1073741824.0) &&
                                   r.ladder_n < 24;
         ws *= 2) {
        size_t m = (size_t)(ws / sizeof(float));
        if (m > n)
            break;
        int passes = (int)fmax(1, 256.0 * 1048576 / ws);
        r.ladder_bytes[r.ladder_n] = ws;
        r.ladder_bw[r.ladder_n] = ic_mb_read(pool, buf, m, passes, o->quick ? 2 : 5).median;
        r.ladder_n++;
    }
    /* "in cache": a quarter of the LLC, clear of the cliff */
    r.cache_read = ic_mb_read(pool, buf, (size_t)(r.llc / 4 / sizeof(float)),
                              (int)fmax(1, 512.0 * 1048576 / (r.llc / 4)), reps)
                       .median;
    progress_line(prog, ++step, steps, "FMA peak");
    r.fma = ic_mb_fma_peak(pool, o->quick ? 2 : 5).median;
    progress_line(prog, ++step, steps, "fork/join");
    r.fj_s = ic_mb_fork_join(pool, reps);
    r.fork_join = r.fj_s.median;

    /* matrices: DRAM-resident (>= 4x LLC) and cache-resident (LLC / 4) */
    progress_line(prog, ++step, steps, "matmul: weights from DRAM, batch 1");
    uint32_t dims[N_TYPES][2][2];
    for (int t = 0; t < N_TYPES; t++)
        for (int k = 0; k < 2; k++) {
            double bytes = k == 0 ? fmax(4 * r.llc, o->quick ? 4 * r.llc : 256.0 * 1048576)
                                  : r.llc / 4;
            matrix_dims(bench_types[t], bytes, &dims[t][k][0], &dims[t][k][1]);
            if ((rc = ic_kern_matrix_create(bench_types[t], dims[t][k][0], dims[t][k][1],
                                            1234 + (uint64_t)t, &mats[t][k], err)))
                goto out;
        }
    for (int t = 0; t < N_TYPES; t++) {
        /* The machine's bandwidth level moves while the bench runs (up to
         * ~1.45x from minute to minute, docs/measuring.md, and 34 to 50 GB/s
         * within a minute on 2026-11-29): each timing has a probe just
         * before it, and the rate is the median ratio of matmul to probe
         * over the pairs, stated at the level of the reference probe
         * above, which validate's probes are divided by. */
        /* and a read of the DRAM buffer (1 GiB; 4x the LLC with --quick)
         * beside each, for the kernel's
         * share of the read bandwidth at the same moment (the read figure
         * above was taken minutes before, at its own level) */
        double tv[16], lv[16], ratio[16], of_read[16];
        const int np = reps < 16 ? reps : 16;
        const double bytes = (double)ic_kern_matrix_bytes(mats[t][0]);
        for (int i = 0; i < np; i++) {
            double rd = ic_mb_read(pool, buf, n, 1, 1).median;
            lv[i] = probe_take(pool, &pr);
            tv[i] = ic_mb_matmul(pool, mats[t][0], dims[t][0][0], dims[t][0][1], 1, 1).median;
            ratio[i] = bytes / tv[i] / lv[i];
            of_read[i] = bytes / tv[i] / rd;
        }
        r.gemv_s[t] = ic_mb_summary(tv, np);
        r.gemv_level[t] = ic_mb_summary(lv, np).median;
        r.gemv[t] = ic_mb_summary(ratio, np).median * r.probe;
        r.gemv_of_read[t] = ic_mb_summary(of_read, np).median;
    }
    progress_line(prog, ++step, steps, "matmul: weights in the LLC, batch 1");
    for (int t = 0; t < N_TYPES; t++)
        r.gemv_cache[t] = (double)ic_kern_matrix_bytes(mats[t][1]) /
                          ic_mb_matmul(pool, mats[t][1], dims[t][1][0], dims[t][1][1], 1,
                                       reps * 3)
                              .median;
    progress_line(prog, ++step, steps, "matmul: batches 1-256 in cache (GEMM rates)");
    {
        /* On a 2048 x 2048 matrix of each type (a decode projection's shape;
         * 16 MiB in fp32): on the LLC / 4 matrix, 1024 x 2048 in fp32, the
         * kernel ran batches 128-256 at ~150 GFLOP/s against ~210 on every
         * shape of 2048 rows or more, the step's among them (a throwaway
         * diagnostic, README). Each rate is stated at the reference compute
         * probe's level, as the DRAM rates are at the memory probe's, and is
         * the median of three passes over the batches (one with --quick; a
         * single pass read 1.4x apart on neighbouring batches). */
        const uint32_t gr = 2048, gc = 2048;
        const int passes = o->quick ? 1 : 3;
        double gv[N_TYPES][9][3];
        for (int t = 0; t < N_TYPES && !rc; t++)
            rc = ic_kern_matrix_create(bench_types[t], gr, gc, 77 + (uint64_t)t, &gmats[t], err);
        if (rc)
            goto out;
        for (int ps = 0; ps < passes; ps++)
            for (int t = 0; t < N_TYPES; t++)
                for (int i = 0; i < 9; i++) {
                    double c0 = probe_take(pool, &cpr);
                    double tg = ic_mb_matmul(pool, gmats[t], gr, gc, 1u << i, o->quick ? 2 : 5)
                                    .median;
                    double c1 = probe_take(pool, &cpr);
                    gv[t][i][ps] = 2.0 * (1 << i) * gr * (double)gc / tg * r.cprobe /
                                   (0.5 * (c0 + c1));
                }
        for (int t = 0; t < N_TYPES; t++) {
            for (int i = 0; i < 9; i++)
                r.gemm_b[t][i] = ic_mb_summary(gv[t][i], passes).median;
            r.gemm[t] = r.gemm_b[t][8];
        }
    }
    progress_line(prog, ++step, steps, "attention: a cache >= 4x the LLC, bf16 and int8");
    {
        /* The kernel with next to no weights (dim 64, one layer, vocab 64):
         * its step is the attention of B sequences over S cached tokens, 16
         * query heads over 4 KV heads of 128 (the validation models' group
         * and head size). FLOPs as infcalc counts them: 4 * H * d per cached
         * token (QK^T and AV). */
        const uint32_t B = 8;
        uint32_t S = 64;
        double kv_tok = 2.0 * 4 * 128 * 2; /* bf16 bytes per token, K and V */
        while (B * (S + 1) * kv_tok < 4 * r.llc)
            S *= 2;
        struct ic_kern_shape as = {64, 64, 1, 16, 4, 128, 64, B, S + 1};
        static const enum ic_kern_kvtype kvts[2] = {IC_KKV_BF16, IC_KKV_INT8};
        uint32_t tok[8] = {0}, posv[8];
        for (int kt = 0; kt < 2; kt++) {
            struct ic_kern *ak = NULL;
            if ((rc = ic_kern_create(&as, IC_KW_FP32, kvts[kt], 5, pool, &ak, err)))
                goto out;
            for (uint32_t b = 0; b < B; b++) {
                ic_kern_fill_cache(ak, b, S, 11 + b);
                posv[b] = S;
            }
            /* 15 timings (one of 9 read 1.4x off on this machine) */
            double v[16];
            int na = o->quick ? 3 : 15;
            ic_kern_step(ak, B, tok, posv, NULL);
            for (int i = 0; i < na; i++) {
                /* the time at the reference compute probe's level */
                double c0 = probe_take(pool, &cpr);
                double t0 = ic_mb_now();
                ic_kern_step(ak, B, tok, posv, NULL);
                double ta = ic_mb_now() - t0;
                double c1 = probe_take(pool, &cpr);
                v[i] = ta * 0.5 * (c0 + c1) / r.cprobe;
            }
            r.attn[kt] = (double)B * (S + 1) * 4.0 * 16 * 128 / ic_mb_summary(v, na).median;
            ic_kern_free(ak);
        }
    }
    progress_line(prog, ++step, steps, "matmul: batches 1-256 from DRAM (transition)");
    {
        static const uint32_t batches[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
        enum { NB = sizeof batches / sizeof batches[0] };
        double tm[N_TYPES * NB], tc[N_TYPES * NB], tt[N_TYPES * NB];
        struct ic_hw_measured table; /* the rates just measured, as the model reads them */
        memset(&table, 0, sizeof table);
        for (int t = 0; t < N_TYPES; t++) {
            table.gemm_flop_s[bench_dtypes[t]] = r.gemm[t];
            memcpy(table.gemm_by_batch[bench_dtypes[t]], r.gemm_b[t], sizeof r.gemm_b[t]);
        }
        size_t k = 0;
        for (int t = 0; t < N_TYPES; t++)
            for (size_t b = 0; b < NB; b++) {
                if (o->quick && batches[b] > 16)
                    continue;
                double bytes = (double)ic_kern_matrix_bytes(mats[t][0]);
                double flops = 2.0 * batches[b] * dims[t][0][0] * (double)dims[t][0][1];
                /* the memory and compute times at the levels this matmul
                 * runs at */
                double b0 = probe_take(pool, &pr), c0 = probe_take(pool, &cpr);
                tt[k] = ic_mb_matmul(pool, mats[t][0], dims[t][0][0], dims[t][0][1], batches[b],
                                     o->quick ? 2 : 3)
                            .median;
                double b1 = probe_take(pool, &pr), c1 = probe_take(pool, &cpr);
                tm[k] = bytes / (r.gemv[t] * 0.5 * (b0 + b1) / r.probe);
                tc[k] = flops / (ic_step_gemm_rate(&table, bench_dtypes[t], batches[b]) *
                                 0.5 * (c0 + c1) / r.cprobe);
                k++;
            }
        struct fit_data fd = {tm, tc, tt, k};
        if ((rc = fit_transition(&fd, &r.p, err)))
            goto out;
        /* and per weight type (each type's batches: nine, five with --quick) */
        size_t per = k / N_TYPES;
        for (int t = 0; t < N_TYPES; t++) {
            struct fit_data ft = {tm + t * per, tc + t * per, tt + t * per, per};
            if ((rc = fit_transition(&ft, &r.p_type[t], err)))
                goto out;
        }
    }
    if ((rc = write_entry(o, &r, cpu, date, threads, err)))
        goto out;

    fprintf(out, "infcalc bench: %s, %d threads, LLC %.0f MiB, %s\n\n", cpu, threads,
            r.llc / 1048576, date);
    fprintf(out, "read-only bandwidth (DRAM, %.0f MiB buffer), median [min, max] of %d:\n",
            dram / 1048576, reps);
    fprintf(out, "  %d threads   %7.2f GB/s  [%.2f, %.2f]\n", threads, r.read / 1e9,
            r.read_s.lo / 1e9, r.read_s.hi / 1e9);
    fprintf(out, "  1 thread    %7.2f GB/s  [%.2f, %.2f]\n", r.read_1t / 1e9,
            r.read_1t_s.lo / 1e9, r.read_1t_s.hi / 1e9);
    fprintf(out, "  in the LLC  %7.2f GB/s (%.0f MiB)\n", r.cache_read / 1e9, r.llc / 4 / 1048576);
    fprintf(out, "  validate's probe %.2f GB/s (the kernel's fp32 matmul at batch 1, %.0f MiB)\n",
            r.probe / 1e9, (double)ic_kern_matrix_bytes(pr.w) / 1048576);
    fprintf(out, "  validate's compute probe %.1f GFLOP/s (the same at batch 64, %.0f MiB)\n",
            r.cprobe / 1e9, (double)ic_kern_matrix_bytes(cpr.w) / 1048576);
    fprintf(out, "STREAM copy %.2f GB/s, triad %.2f GB/s (as STREAM counts; reference only)\n",
            r.copy / 1e9, r.triad / 1e9);
    fprintf(out, "working-set ladder (GB/s):");
    for (int i = 0; i < r.ladder_n; i++)
        fprintf(out, "%s %.0f%s %.0f", i % 6 ? "," : "\n ",
                r.ladder_bytes[i] >= 1048576 ? r.ladder_bytes[i] / 1048576
                                             : r.ladder_bytes[i] / 1024,
                r.ladder_bytes[i] >= 1048576 ? "M" : "K", r.ladder_bw[i] / 1e9);
    fprintf(out, "\nFMA peak fp32 %.1f GFLOP/s; fork/join %.2f us [%.2f, %.2f]\n", r.fma / 1e9,
            r.fork_join * 1e6, r.fj_s.lo * 1e6, r.fj_s.hi * 1e6);
    fprintf(out, "matmul (reference kernel):   DRAM GB/s  (of read)   LLC GB/s   GEMM GFLOP/s\n");
    for (int t = 0; t < N_TYPES; t++)
        fprintf(out, "  %-5s                    %9.2f  (%5.1f%%)   %9.2f   %9.1f\n",
                ic_dtype_traits(bench_dtypes[t])->name, r.gemv[t] / 1e9,
                100 * r.gemv_of_read[t], r.gemv_cache[t] / 1e9, r.gemm[t] / 1e9);
    fprintf(out, "  (of read: over a read of the %.0f MiB buffer just before each matmul, median;\n"
                 "  DRAM rates stated at the reference probe; the probe beside each matmul read",
            dram / 1048576);
    for (int t = 0; t < N_TYPES; t++)
        fprintf(out, " %s %.2f", ic_dtype_traits(bench_dtypes[t])->name, r.gemv_level[t] / 1e9);
    fprintf(out, " GB/s)\n");
    fprintf(out, "in-cache matmul GFLOP/s at batch 1, 2, 4 ... 256:\n");
    for (int t = 0; t < N_TYPES; t++) {
        fprintf(out, "  %-5s", ic_dtype_traits(bench_dtypes[t])->name);
        for (int i = 0; i < 9; i++)
            fprintf(out, " %6.1f", r.gemm_b[t][i] / 1e9);
        fputc('\n', out);
    }
    fprintf(out, "decode attention (16 q / 4 KV heads of 128, cache >= 4x LLC): bf16 KV %.1f "
                 "GFLOP/s, int8 KV %.1f GFLOP/s\n", r.attn[0] / 1e9, r.attn[1] / 1e9);
    fprintf(out, "transition exponent p = %.3g (T = (T_mem^p + T_cmp^p)^(1/p)); per weight type:",
            r.p);
    for (int t = 0; t < N_TYPES; t++)
        fprintf(out, " %s %.3g", ic_dtype_traits(bench_dtypes[t])->name, r.p_type[t]);
    fputc('\n', out);
    fprintf(out, "\nwrote %s (use it with --hw %s)\n", o->out_path, o->out_path);
out:
    probe_free(&pr);
    probe_free(&cpr);
    for (int t = 0; t < N_TYPES; t++)
        ic_kern_matrix_free(gmats[t]);
    for (int t = 0; t < N_TYPES; t++)
        for (int k = 0; k < 2; k++)
            ic_kern_matrix_free(mats[t][k]);
    free(buf);
    free(buf2);
    free(buf3);
    ic_kern_pool_free(pool1);
    ic_kern_pool_free(pool);
    return rc;
}

/* ---- bench on a CUDA device ------------------------------------------------
 * The same calibration as on the CPU, mapped onto the same measured keys so
 * that ic_decode's expected time needs no new physics for a GPU:
 * read_bandwidth = HBM read over >= 1 GiB (L2 flushed between repeats),
 * cache_read_bandwidth = a quarter of the L2 re-read, llc = the L2,
 * fork_join = one kernel's floor inside a replayed CUDA graph (the step
 * replays one), gemv_dram / gemv_cache = the CUDA step's matmul at batch 1
 * from HBM / from the L2, gemm_by_batch = that matmul at batches 1-256 on an
 * L2-resident matrix, attention = the step's split-K attention over a cache
 * >= 4x the L2, transition_p fitted as on the CPU, compute.bf16 = cuBLAS's
 * bf16 GEMM at 8192^3 (the chip's achievable matrix rate). Types: bf16 and
 * int8 (the CUDA kernel's weights). */

static const enum ic_kern_wtype cuda_types[] = {IC_KW_BF16, IC_KW_INT8};
static const enum ic_dtype cuda_dtypes[] = {IC_DT_BF16, IC_DT_INT8};
enum { N_CUDA_TYPES = 2 };

struct cuda_results {
    struct ic_cuda_info info;
    double read, cache_read, gemm_peak, launch_graph, launch_plain, p, attn;
    double gemv[N_CUDA_TYPES], gemv_cache[N_CUDA_TYPES], gemm_b[N_CUDA_TYPES][9];
    struct ic_mb_stats read_s, gemv_s[N_CUDA_TYPES], lg_s, lp_s, peak_s;
    double dram_B, mat_B[N_CUDA_TYPES];
};

/* Median (and spread) of n figures from one of the ic_cuda_mb_* calls. */
static int cuda_stat(int rc, double *v, int n, struct ic_mb_stats *s)
{
    if (rc == IC_OK)
        *s = ic_mb_summary(v, n);
    return rc;
}

static int write_entry_cuda(const struct ic_bench_opts *o, const struct cuda_results *r,
                            const char *date, struct ic_err *err)
{
    FILE *f = fopen(o->out_path, "w");
    if (!f)
        return ic_err_set(err, IC_EIO, o->out_path, 0, 0, "cannot write the entry");
    const struct ic_cuda_info *in = &r->info;
    const char *src = "measured by infcalc bench --device cuda";
    fprintf(f, "# %s: CUDA device 0 (%s) as `infcalc bench --device cuda` measured it on %s.\n",
            o->name, in->name, date);
    fprintf(f, "# memory.bandwidth and compute.bf16 are measured (what the ideal bound uses);\n"
               "# the measured section is what the expected time uses (llc = the L2,\n"
               "# fork_join = one kernel of a replayed CUDA graph, threads = 1 device).\n");
    fprintf(f, "name: %s\nvendor: \"NVIDIA\"\ndescription: \"%s (sm_%d%d, %d SMs), measured\"\n",
            o->name, in->name, in->cc_major, in->cc_minor, in->sms);
    fprintf(f, "memory:\n  capacity: %.0f B\n  bandwidth: %.6g GB/s\n", in->mem_B, r->read / 1e9);
    fprintf(f, "  source: \"capacity: cudaGetDeviceProperties totalGlobalMem; bandwidth: %s, "
               "read-only sum over %.0f MiB, L2 flushed between repeats, median\"\n",
            src, r->dram_B / 1048576);
    fprintf(f, "compute:\n  bf16: %.6g GFLOP/s\n", r->gemm_peak / 1e9);
    fprintf(f, "  source: \"%s: cuBLAS bf16 GEMM 8192 x 8192 x 8192, fp32 accumulation, "
               "random inputs, median; other types not measured\"\n", src);
    fprintf(f, "interconnect:\n  kind: none\n  topology: none\n  link_bandwidth_one_way: 0 B/s\n"
               "  links_per_chip: 0\n  domain_chips: 1\n  hop_latency: 0 s\n"
               "  source: \"one GPU measured alone: its fabric is not benchmarked\"\n");
    fprintf(f, "scale_out:\n  kind: none\n  bandwidth_one_way: 0 B/s\n  latency: 0 s\n"
               "  source: \"not measured: infcalc's self-check runs on one device\"\n");
    fprintf(f, "host_link:\n  kind: none\n  bandwidth_one_way: 0 B/s\n"
               "  source: \"not measured by the self-check\"\n");
    fprintf(f, "price:\n  usd_per_chip_hour: 0\n  as_of: %.7s\n"
               "  source: \"not known for this machine\"\n", date);
    fprintf(f, "sources:\n  - \"infcalc bench --device cuda (src/cuda/ic_cuda_bench.cu), %s\"\n",
            date);
    fprintf(f, "notes: \"Kernel launch floor: %.3g us per kernel launched one by one, %.3g us "
               "per kernel replayed from a CUDA graph (chains of 1000 empty kernels). Driver / "
               "runtime %s; memory clock %.0f MHz, bus %d bits.\"\n",
            r->launch_plain * 1e6, r->launch_graph * 1e6, in->driver, in->mem_clock_hz / 1e6,
            in->bus_width_bits);
    fprintf(f, "measured:\n  date: %s\n  cpu: \"%s\"\n  threads: 1\n  llc: %.0f B\n", date,
            in->name, in->l2_B);
    fprintf(f, "  read_bandwidth: %.6g GB/s\n  cache_read_bandwidth: %.6g GB/s\n",
            r->read / 1e9, r->cache_read / 1e9);
    fprintf(f, "  fork_join: %.6g us\n  transition_p: %.4g\n", r->launch_graph * 1e6, r->p);
    write_rates(f, cuda_dtypes, N_CUDA_TYPES, r->gemv, r->gemv_cache, r->gemm_b);
    fprintf(f, "  attention:\n    bf16: %.6g GFLOP/s\n", r->attn / 1e9);
    fprintf(f, "  source: \"infcalc bench --device cuda %s: medians of CUDA-event timings "
               "after warm-up; gemv = the CUDA step's matmul at batch 1 (weight bytes per "
               "second; GEMV kernel up to batch %d, tensor cores above), gemm = at batch 256 on "
               "an L2-resident matrix, gemm_by_batch the same at batches 1, 2, 4 ... 256, "
               "attention = the step's split-K attention (32 query heads on 8 KV heads of 128) "
               "over a cache >= 4x the L2, fork_join = one kernel of a replayed CUDA graph, "
               "transition_p fitted to the matmul at batches 1-256 from HBM\"\n",
            date, IC_CUDA_GEMV_MAX);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return ic_err_set(err, IC_EIO, o->out_path, 0, 0, "writing the entry failed");
    return IC_OK;
}

static int bench_cuda(const struct ic_bench_opts *o, FILE *out, FILE *prog, struct ic_err *err)
{
    struct cuda_results r;
    memset(&r, 0, sizeof r);
    char date[16];
    today(date, sizeof date);
    int rc = ic_cuda_info(&r.info, err);
    if (rc)
        return rc;
    const int reps = o->quick ? 5 : 15;
    double v[64];
    uint32_t dims[N_CUDA_TYPES][2][2];
    const int steps = 7;
    int step = 0;
    /* HBM: >= 1 GiB and >= 8x the L2 (quick too: a GPU streams 1 GiB in well
     * under a millisecond) */
    r.dram_B = fmax(8 * r.info.l2_B, 1073741824.0);
    progress_line(prog, ++step, steps, "HBM read bandwidth");
    if ((rc = cuda_stat(ic_cuda_mb_read(r.dram_B, 1, reps, v, err), v, reps, &r.read_s)))
        return rc;
    r.read = r.read_s.median;
    if ((rc = ic_cuda_mb_read(r.info.l2_B / 4, 64, reps, v, err)))
        return rc;
    r.cache_read = ic_mb_summary(v, reps).median;
    progress_line(prog, ++step, steps, "cuBLAS bf16 GEMM 8192^3");
    if ((rc = cuda_stat(ic_cuda_mb_gemm(8192, 8192, 8192, reps, v, err), v, reps, &r.peak_s)))
        return rc;
    r.gemm_peak = r.peak_s.median;
    progress_line(prog, ++step, steps, "kernel launch floor, plain and from a CUDA graph");
    if ((rc = cuda_stat(ic_cuda_mb_launch(false, 1000, reps, v, err), v, reps, &r.lp_s)) ||
        (rc = cuda_stat(ic_cuda_mb_launch(true, 1000, reps, v, err), v, reps, &r.lg_s)))
        return rc;
    r.launch_plain = r.lp_s.median;
    r.launch_graph = r.lg_s.median;
    progress_line(prog, ++step, steps, "the step's matmul at batch 1, from HBM and from the L2");
    for (int t = 0; t < N_CUDA_TYPES; t++)
        for (int k = 0; k < 2; k++) {
            double bytes = k == 0 ? r.dram_B : r.info.l2_B / 4;
            /* 4096 columns from HBM (the GPU model's hidden size) */
            matrix_dims_c(cuda_types[t], bytes, bytes < 64.0 * 1048576 ? 2048 : 4096,
                          &dims[t][k][0], &dims[t][k][1]);
        }
    for (int t = 0; t < N_CUDA_TYPES; t++) {
        const double mb = (double)dims[t][0][0] * dims[t][0][1] * ic_kern_wtype_bits(cuda_types[t]) /
                          8 + (cuda_types[t] == IC_KW_INT8 ? 4.0 * dims[t][0][0] : 0);
        const double cb = (double)dims[t][1][0] * dims[t][1][1] * ic_kern_wtype_bits(cuda_types[t]) /
                          8 + (cuda_types[t] == IC_KW_INT8 ? 4.0 * dims[t][1][0] : 0);
        r.mat_B[t] = mb;
        if ((rc = cuda_stat(ic_cuda_mb_matmul(cuda_types[t], dims[t][0][0], dims[t][0][1], 1, true,
                                              reps, v, err),
                            v, reps, &r.gemv_s[t])))
            return rc;
        r.gemv[t] = mb / r.gemv_s[t].median;
        if ((rc = ic_cuda_mb_matmul(cuda_types[t], dims[t][1][0], dims[t][1][1], 1, false, reps,
                                    v, err)))
            return rc;
        r.gemv_cache[t] = cb / ic_mb_summary(v, reps).median;
    }
    progress_line(prog, ++step, steps, "the step's matmul at batches 1-256 in the L2");
    for (int t = 0; t < N_CUDA_TYPES; t++)
        for (int i = 0; i < 9; i++) {
            if ((rc = ic_cuda_mb_matmul(cuda_types[t], dims[t][1][0], dims[t][1][1], 1u << i,
                                        false, reps, v, err)))
                return rc;
            r.gemm_b[t][i] = 2.0 * (1 << i) * dims[t][1][0] * (double)dims[t][1][1] /
                             ic_mb_summary(v, reps).median;
        }
    progress_line(prog, ++step, steps, "split-K attention over a cache >= 4x the L2");
    {
        /* the step with next to no weights: 32 query heads on 8 KV heads of
         * 128 (the validation model's attention), 16 sequences; FLOPs as
         * infcalc counts them, 4 H d per cached token */
        const uint32_t B = 16;
        uint32_t S = 256;
        const double kv_tok = 2.0 * 8 * 128 * 2;
        while (B * (S + 1) * kv_tok < fmax(4 * r.info.l2_B, 1073741824.0))
            S *= 2;
        struct ic_kern_shape as = {64, 64, 1, 32, 8, 128, 64, B, S + 1};
        struct ic_cuda_kern *ak = NULL;
        uint32_t tok[16] = {0}, posv[16];
        uint64_t kernels = 0;
        if ((rc = ic_cuda_kern_create(&as, IC_KW_BF16, 5, &ak, err)))
            return rc;
        for (uint32_t b = 0; b < B && !rc; b++) {
            rc = ic_cuda_kern_fill_cache(ak, b, S, 11 + b, err);
            posv[b] = S;
        }
        if (!rc)
            rc = ic_cuda_kern_time(ak, B, tok, posv, reps, v, &kernels, err);
        ic_cuda_kern_free(ak);
        if (rc)
            return rc;
        r.attn = (double)B * (S + 1) * 4.0 * 32 * 128 / ic_mb_summary(v, reps).median;
    }
    progress_line(prog, ++step, steps, "the step's matmul at batches 1-256 from HBM (transition)");
    {
        static const uint32_t batches[] = {1, 4, 16, 64, 128, 256};
        enum { NB = sizeof batches / sizeof batches[0] };
        double tm[N_CUDA_TYPES * NB], tc[N_CUDA_TYPES * NB], tt[N_CUDA_TYPES * NB];
        struct ic_hw_measured table;
        memset(&table, 0, sizeof table);
        for (int t = 0; t < N_CUDA_TYPES; t++) {
            table.gemm_flop_s[cuda_dtypes[t]] = r.gemm_b[t][8];
            memcpy(table.gemm_by_batch[cuda_dtypes[t]], r.gemm_b[t], sizeof r.gemm_b[t]);
        }
        size_t k = 0;
        for (int t = 0; t < N_CUDA_TYPES; t++)
            for (size_t b = 0; b < NB; b++) {
                const double flops = 2.0 * batches[b] * dims[t][0][0] * (double)dims[t][0][1];
                tm[k] = r.mat_B[t] / r.gemv[t];
                tc[k] = flops / ic_step_gemm_rate(&table, cuda_dtypes[t], batches[b]);
                if ((rc = ic_cuda_mb_matmul(cuda_types[t], dims[t][0][0], dims[t][0][1],
                                            batches[b], true, o->quick ? 3 : 5, v, err)))
                    return rc;
                tt[k] = ic_mb_summary(v, o->quick ? 3 : 5).median;
                k++;
            }
        struct fit_data fd = {tm, tc, tt, k};
        if ((rc = fit_transition(&fd, &r.p, err)))
            return rc;
    }
    if ((rc = write_entry_cuda(o, &r, date, err)))
        return rc;

    fprintf(out, "infcalc bench --device cuda: %s (sm_%d%d, %d SMs, L2 %.0f MiB, %.0f GiB), "
                 "%s\n\n",
            r.info.name, r.info.cc_major, r.info.cc_minor, r.info.sms, r.info.l2_B / 1048576,
            r.info.mem_B / 1073741824.0, date);
    fprintf(out, "HBM read bandwidth (%.0f MiB, L2 flushed), median [min, max] of %d: %.1f GB/s "
                 "[%.1f, %.1f]\n",
            r.dram_B / 1048576, reps, r.read / 1e9, r.read_s.lo / 1e9, r.read_s.hi / 1e9);
    fprintf(out, "L2 read bandwidth (%.0f MiB re-read): %.1f GB/s\n", r.info.l2_B / 4 / 1048576,
            r.cache_read / 1e9);
    fprintf(out, "cuBLAS bf16 GEMM 8192^3: %.1f TFLOP/s [%.1f, %.1f]\n", r.gemm_peak / 1e12,
            r.peak_s.lo / 1e12, r.peak_s.hi / 1e12);
    fprintf(out, "kernel launch floor: %.2f us plain, %.2f us per kernel from a CUDA graph\n",
            r.launch_plain * 1e6, r.launch_graph * 1e6);
    fprintf(out, "step matmul:      HBM GB/s (of read)  (matrix)     L2 GB/s   batch-256 "
                 "GFLOP/s\n");
    for (int t = 0; t < N_CUDA_TYPES; t++)
        fprintf(out, "  %-5s        %9.1f (%5.1f%%)  (%4.0f MiB)  %9.1f   %9.0f\n",
                ic_dtype_traits(cuda_dtypes[t])->name, r.gemv[t] / 1e9, 100 * r.gemv[t] / r.read,
                r.mat_B[t] / 1048576, r.gemv_cache[t] / 1e9, r.gemm_b[t][8] / 1e9);
    fprintf(out, "step matmul in the L2, GFLOP/s at batch 1, 2, 4 ... 256:\n");
    for (int t = 0; t < N_CUDA_TYPES; t++) {
        fprintf(out, "  %-5s", ic_dtype_traits(cuda_dtypes[t])->name);
        for (int i = 0; i < 9; i++)
            fprintf(out, " %7.0f", r.gemm_b[t][i] / 1e9);
        fputc('\n', out);
    }
    fprintf(out, "split-K attention (32 q / 8 KV heads of 128, bf16 KV): %.1f GFLOP/s\n",
            r.attn / 1e9);
    fprintf(out, "transition exponent p = %.3g\n", r.p);
    fprintf(out, "\nwrote %s (use it with --hw %s --device cuda)\n", o->out_path, o->out_path);
    return IC_OK;
}

/* ---- validate --------------------------------------------------------------- */

struct vmodel {
    const char *name;
    struct ic_kern_shape shape;
    enum ic_kern_wtype wtypes[N_TYPES];
    int n_wtypes;
    uint32_t batches[16];
    int n_batches;
    uint32_t contexts[8];
    int n_contexts;
};

/* The full sweep: weights of 246M parameters (>= 4x a 32 MiB LLC even in
 * int8) and a small model whose weights fit the LLC (cache-resident). */
static const struct vmodel full_models[] = {
    {"ref-246m", {2048, 5632, 4, 16, 4, 128, 32000, 0, 0},
     {IC_KW_FP32, IC_KW_BF16, IC_KW_INT8}, 3,
     {1, 2, 4, 8, 16, 32, 64, 128, 256}, 9,
     {128, 512, 2048, 8192, 16384}, 5},
    {"ref-8m", {512, 1408, 2, 8, 2, 64, 4096, 0, 0},
     {IC_KW_BF16, IC_KW_INT8, IC_KW_FP32}, 2,
     {1, 4, 16, 64}, 4,
     {128, 1024}, 2},
};
static const struct vmodel quick_models[] = {
    {"ref-31m", {1024, 2816, 2, 8, 2, 128, 8192, 0, 0},
     {IC_KW_FP32, IC_KW_INT8, IC_KW_BF16}, 2,
     {1, 16}, 2,
     {128, 2048}, 2},
};

/* On a GPU: weights of ~1.0 B parameters (2 GB in bf16, 1 GB in int8:
 * >= 16x a 60 MB L2) in a Llama-like shape (GQA 32/8 of 128), and a model
 * whose weights sit in the L2. Sized so that three rounds take about a
 * minute on an H200; the KV cache is capped at 16 GiB. */
static const struct vmodel cuda_full_models[] = {
    {"gpu-1b", {4096, 14336, 4, 32, 8, 128, 32000, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 2, 4, 8, 16, 32, 64, 128, 256}, 9,
     {128, 1024, 4096, 16384}, 4},
    {"gpu-8m", {512, 1408, 2, 8, 2, 64, 4096, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 4, 16, 64}, 4,
     {128, 1024}, 2},
};
static const struct vmodel cuda_quick_models[] = {
    {"gpu-31m", {1024, 2816, 2, 8, 2, 128, 8192, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 16}, 2,
     {128, 2048}, 2},
};

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

enum { VSTEPS = 32 }; /* steps timed per point and round, at most */

/* Bytes of a bf16 KV cache of B sequences of S cached tokens plus the new one. */
static double kv_cache_B(const struct ic_kern_shape *s, uint32_t B, uint32_t S)
{
    return 2.0 * s->n_layers * s->n_kv_heads * s->head_dim * 2 * (double)B * (S + 1);
}

/* One timed step and the mean of the probes on its two sides. */
struct vstep {
    double t, bw, c;
};

struct vpoint {
    int model, wt;        /* indices into the models table and its wtypes */
    uint32_t batch, context;
    double t[8];          /* per round: median step seconds */
    double tlo, thi;      /* min and max single step over all rounds */
    /* per round, per step where probes ran between steps */
    struct vstep steps[8][VSTEPS];
    int nsteps[8];
    double probe[8];      /* per round: memory probe beside the timing (bytes/s) */
    double cprobe[8];     /* per round: compute probe beside the timing (FLOP/s) */
    int rounds;
    uint64_t regions;     /* parallel regions one step ran */
    /* results */
    double measured, probe_bw, probe_flop, predicted, err;
    struct ic_point pred;
    int regime;
};

enum { R_MEMORY, R_TRANSITION, R_COMPUTE, R_CACHE, R_COUNT };
static const char *const regime_names[R_COUNT] = {"memory-bound", "transition", "compute-bound",
                                                  "cache-resident"};

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

static struct err_stats error_stats(const struct vpoint *v, size_t n, int regime_mask, int wt_dt)
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

static int write_csv(const char *path, const struct vmodel *models, const struct vpoint *v,
                     size_t n, struct ic_err *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return ic_err_set(err, IC_EIO, path, 0, 0, "cannot write the CSV");
    fprintf(f, "model,weights,kv,batch,context,rounds,measured_s,measured_min_s,measured_max_s,"
               "probe_B_s,probe_flop_s,predicted_s,error_pct,regime,pred_weights_s,"
               "pred_compute_s,pred_kv_s,pred_attn_s,pred_fixed_s\n");
    for (size_t i = 0; i < n; i++) {
        const struct vpoint *p = &v[i];
        fprintf(f,
                "%s,%s,bf16,%u,%u,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3f,%s,%.6g,%.6g,%.6g,%.6g,"
                "%.6g\n",
                models[p->model].name,
                ic_kern_wtype_name(models[p->model].wtypes[p->wt]), p->batch, p->context,
                p->rounds, p->measured, p->tlo, p->thi, p->probe_bw, p->probe_flop, p->predicted,
                100 * p->err,
                regime_names[p->regime], p->pred.weights_s, p->pred.compute_s, p->pred.kv_s,
                p->pred.attn_s, p->pred.fixed_s);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return ic_err_set(err, IC_EIO, path, 0, 0, "writing the CSV failed");
    return IC_OK;
}

/* Measured beside predicted for the first model: against batch at the
 * context with the most batches, and against context at a small batch. */
static int write_charts(const struct ic_validate_opts *o, const struct vmodel *models,
                        const struct vpoint *v, size_t n, const struct err_stats *dram,
                        const char *cpu, int threads, struct ic_err *err)
{
    const struct vmodel *m = &models[0];
    for (int chart = 0; chart < 2; chart++) {
        uint32_t fixed = chart == 0 ? m->contexts[1 < m->n_contexts ? 1 : 0]
                                    : m->batches[m->n_batches > 3 ? 3 : 0];
        struct ic_plot_vpoint *pts = calloc(n ? n : 1, sizeof *pts);
        struct ic_plot_vseries series[N_TYPES];
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
                    const struct vpoint *p = &v[i];
                    if (p->model != 0 || p->wt != w)
                        continue;
                    uint32_t x = chart == 0 ? p->batch : p->context;
                    uint32_t y = chart == 0 ? p->context : p->batch;
                    if (x != axis[a] || y != fixed)
                        continue;
                    pts[used++] = (struct ic_plot_vpoint){x, p->measured, p->tlo, p->thi,
                                                          p->predicted};
                }
            if (used > first)
                series[ns++] = (struct ic_plot_vseries){ic_kern_wtype_name(m->wtypes[w]),
                                                        pts + first, used - first};
        }
        char path[600], title[300], sub[400];
        snprintf(path, sizeof path, "%s-%s.png", o->plot_prefix, chart == 0 ? "batch" : "context");
        if (o->cuda)
            snprintf(title, sizeof title, "CUDA decode kernel (%s) on %s: measured vs predicted",
                     m->name, cpu);
        else
            snprintf(title, sizeof title, "Reference decode kernel (%s) on %s, %d threads: "
                     "measured vs predicted", m->name, cpu, threads);
        snprintf(sub, sizeof sub,
                 "%s %u; all %s-resident points: median |error| %.1f%%, 90th percentile "
                 "%.1f%%, %.0f%% within 10%% (n = %d)",
                 chart == 0 ? "context" : "batch", fixed, o->cuda ? "HBM" : "DRAM",
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

/* The expected time's rates at the probes bw (bytes/s) and flop (FLOP/s):
 * each probe over the same probe at bench time (bw over bw_ref); a probe of
 * 0 (the GPU takes none), or an entry without probe_gemm: as benched. */
static void at_probes(struct ic_decode_cfg *c, const struct ic_hw_measured *hm, double bw_ref,
                      double bw, double flop)
{
    c->bw_scale = bw > 0 ? bw / bw_ref : 1.0;
    c->compute_scale = flop > 0 && hm->probe_gemm_flop_s > 0 ? flop / hm->probe_gemm_flop_s : 1.0;
}

/* Times decode steps of k at batch b, every sequence at position pos
 * (re-running the same position keeps the context fixed), for budget_s and
 * at least min_steps (at most 64); returns the median step and widens
 * [*lo, *hi] by every single step.
 *
 * With probes (mp and cp not NULL) it also takes both before the first step
 * and after every step, and records each step in out[] with the mean of the
 * probes on its two sides, the machine's state at its own moment (steps of
 * 0.7-0.9 s at one point ran 1.3x apart on this machine, so two probes
 * around the whole point missed what moved in between); at most VSTEPS
 * steps then, *n_out of them. */
static double time_steps(struct ic_kern_pool *pool, struct ic_kern *k, uint32_t b,
                         const uint32_t *tok, const uint32_t *pos, double budget_s,
                         int min_steps, const struct probe *mp, const struct probe *cp,
                         struct vstep *out, int *n_out, double *lo, double *hi,
                         uint64_t *regions)
{
    const int most = mp ? VSTEPS : 64;
    double v[64];
    int n = 0;
    uint64_t r0 = ic_kern_pool_runs(pool);
    ic_kern_step(k, b, tok, pos, NULL); /* warm-up, and a count of its parallel regions */
    *regions = ic_kern_pool_runs(pool) - r0;
    double bw = mp ? probe_take(pool, mp) : 0, c = mp ? probe_take(pool, cp) : 0;
    double start = ic_mb_now();
    while (n < most && (n < min_steps || ic_mb_now() - start < budget_s)) {
        double t0 = ic_mb_now();
        ic_kern_step(k, b, tok, pos, NULL);
        double t = ic_mb_now() - t0;
        if (mp) {
            double bw1 = probe_take(pool, mp), c1 = probe_take(pool, cp);
            out[n] = (struct vstep){t, 0.5 * (bw + bw1), 0.5 * (c + c1)};
            bw = bw1;
            c = c1;
        }
        v[n++] = t;
    }
    *n_out = mp ? n : 0;
    struct ic_mb_stats s = ic_mb_summary(v, n);
    *lo = fmin(*lo, s.lo);
    *hi = fmax(*hi, s.hi);
    return s.median;
}

/* The same on the GPU: replays of the step's CUDA graph, each timed with
 * events, as many as fit budget_s (at least min_steps, at most 64).
 * *kernels: kernel nodes in one step (the fixed costs the model counts). */
static int time_steps_cuda(struct ic_cuda_kern *k, uint32_t b, const uint32_t *tok,
                           const uint32_t *pos, double budget_s, int min_steps, double *lo,
                           double *hi, uint64_t *kernels, double *median, struct ic_err *err)
{
    double v[64];
    int rc = ic_cuda_kern_time(k, b, tok, pos, min_steps, v, kernels, err);
    if (rc)
        return rc;
    double first = ic_mb_summary(v, min_steps).median;
    int n = (int)fmin(64, fmax(min_steps, budget_s / fmax(first, 1e-7)));
    if (n > min_steps && (rc = ic_cuda_kern_time(k, b, tok, pos, n, v, kernels, err)))
        return rc;
    n = n > min_steps ? n : min_steps;
    struct ic_mb_stats s = ic_mb_summary(v, n);
    *lo = fmin(*lo, s.lo);
    *hi = fmax(*hi, s.hi);
    *median = s.median;
    return IC_OK;
}

int ic_selfcheck_validate(const struct ic_validate_opts *o, FILE *out, FILE *prog,
                          struct ic_err *err)
{
    struct ic_hw *hw = calloc(1, sizeof *hw);
    if (!hw)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = ic_hw_load(o->hw_path, hw, err);
    if (rc) {
        free(hw);
        return rc;
    }
    if (!hw->measured.present) {
        rc = ic_err_set(err, IC_EINVAL, o->hw_path, 0, 0,
                        "has no measured section; validate needs an entry written by "
                        "'infcalc bench'");
        free(hw);
        return rc;
    }
    const struct vmodel *models = o->cuda ? (o->quick ? cuda_quick_models : cuda_full_models)
                                          : (o->quick ? quick_models : full_models);
    const size_t n_models =
        o->cuda ? (o->quick ? sizeof cuda_quick_models / sizeof cuda_quick_models[0]
                            : sizeof cuda_full_models / sizeof cuda_full_models[0])
                : (o->quick ? sizeof quick_models / sizeof quick_models[0]
                            : sizeof full_models / sizeof full_models[0]);
    const int rounds = o->quick ? 1 : (o->rounds > 0 ? (o->rounds > 8 ? 8 : o->rounds) : 3);
    const double cap = o->kv_cap_B > 0 ? o->kv_cap_B : (o->cuda ? 16.0 : 2.0) * 1073741824.0;
    struct ic_kern_pool *pool = NULL;
    struct ic_kern *kerns[4][N_TYPES] = {{NULL}};
    struct ic_cuda_kern *gkerns[4][N_TYPES] = {{NULL}};
    struct vpoint *pts = NULL;
    size_t *order = NULL;
    struct probe vprobe = {0}, cprobe = {0};
    gsl_rng *rng = NULL;
    struct ic_model *im = calloc(1, sizeof *im);
    uint32_t *tok = NULL, *pos = NULL;
    if (!im) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    int threads = o->threads ? o->threads : (int)hw->measured.threads;
    if (o->cuda)
        threads = 1; /* the GPU; no CPU pool */
    else if ((rc = ic_kern_pool_create(threads, &pool, err)))
        goto out;
    if (!o->cuda)
        threads = ic_kern_pool_threads(pool);
    if (!o->cuda && (uint64_t)threads != hw->measured.threads && prog)
        fprintf(prog, "validate: warning: %s was benched with %llu threads, timing with %d\n",
                o->hw_path, (unsigned long long)hw->measured.threads, threads);
    /* What the memory probe is divided by. An entry with probe_gemm holds
     * the matmul probe of this version under probe_bandwidth; an older one
     * holds a plain read probe there, which the matmul probe must not be
     * divided by (their ratio moved 0.7-1.05 between runs): against its
     * fp32 batch-1 DRAM matmul instead, the same operation, with a warning. */
    const struct ic_hw_measured *hm = &hw->measured;
    const bool new_probes = hm->probe_gemm_flop_s > 0 && hm->probe_B_s > 0;
    const double bw_ref = new_probes              ? hm->probe_B_s
                          : hm->gemv_B_s[IC_DT_FP32] > 0 ? hm->gemv_B_s[IC_DT_FP32]
                                                          : hm->read_B_s;
    if (!o->cuda && !new_probes && prog)
        fprintf(prog, "validate: warning: %s has no probe_gemm (benched by an older infcalc): "
                      "DRAM rates are rescaled against its gemv_dram.fp32 and compute rates "
                      "are taken as benched; run 'infcalc bench' again\n",
                o->hw_path);

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
                    if (kv_cache_B(s, B, S) > cap)
                        continue;
                    pts[n] = (struct vpoint){.model = (int)m, .wt = w, .batch = B,
                                             .context = S, .tlo = INFINITY, .thi = 0};
                    n++;
                }
    }
    /* the probe (struct probe), on the CPU only: a GPU's HBM bandwidth does
     * not drift with its neighbours' load as the shared CPU's does, and its
     * bench figure stands */
    if (!o->cuda && ((rc = probe_init(&vprobe, 4 * (double)hw->measured.llc_B, 1, err)) ||
                     (rc = probe_init(&cprobe, (double)hw->measured.llc_B / 4, 64, err))))
        goto out;

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
            if (o->cuda) {
                if ((rc = ic_cuda_kern_create(&s, models[m].wtypes[w], (o->seed ? o->seed : 7) + m,
                                              &gkerns[m][w], err)))
                    goto out;
            } else if ((rc = ic_kern_create(&s, models[m].wtypes[w], IC_KKV_BF16,
                                            (o->seed ? o->seed : 7) + m, pool, &kerns[m][w],
                                            err)))
                goto out;
        }

    /* rounds: blocks of (model, type, context) in random order, batches in
     * random order within a block */
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
        shuffle(rng, order, n);
        /* stable grouping by block, blocks in the order their first point drew */
        size_t done = 0;
        while (done < n) {
            const struct vpoint *lead = &pts[order[done]];
            size_t end = done;
            for (size_t i = done; i < n; i++) {
                const struct vpoint *q = &pts[order[i]];
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
            struct ic_kern *k = kerns[lead->model][lead->wt];
            struct ic_cuda_kern *gk = gkerns[lead->model][lead->wt];
            if ((rc = o->cuda ? ic_cuda_kern_set_cache(gk, maxb, lead->context + 1, err)
                              : ic_kern_set_cache(k, maxb, lead->context + 1, err)))
                goto out;
            for (uint32_t b = 0; b < maxb; b++) {
                if (o->cuda) {
                    if ((rc = ic_cuda_kern_fill_cache(gk, b, lead->context, 99 + b, err)))
                        goto out;
                } else {
                    ic_kern_fill_cache(k, b, lead->context, 99 + b);
                }
                tok[b] = (b * 7919u) % models[lead->model].shape.vocab;
                pos[b] = lead->context;
            }
            for (size_t i = done; i < end; i++) {
                struct vpoint *p = &pts[order[i]];
                if (o->cuda) {
                    if ((rc = time_steps_cuda(gk, p->batch, tok, pos, o->quick ? 0.02 : 0.1, 3,
                                              &p->tlo, &p->thi, &p->regions, &p->t[r], err)))
                        goto out;
                    p->probe[r] = hw->measured.read_B_s;
                    p->rounds = r + 1;
                    if (prog)
                        fprintf(prog, "validate [round %d/%d] %s %-4s batch %3u context %5u: "
                                      "%8.4f ms (%llu kernels)\n",
                                r + 1, rounds, models[p->model].name,
                                ic_kern_wtype_name(models[p->model].wtypes[p->wt]), p->batch,
                                p->context, p->t[r] * 1e3, (unsigned long long)p->regions);
                    continue;
                }
                /* Probes between the steps, except where weights and cache
                 * fit the LLC: there a probe would evict what the step
                 * reads from the LLC, and two probes go around the point. */
                const bool between =
                    (double)ic_kern_weight_bytes(k) +
                        kv_cache_B(&models[p->model].shape, p->batch, p->context) >
                    hw->measured.llc_B;
                double bw0 = between ? 0 : probe_take(pool, &vprobe);
                double c0 = between ? 0 : probe_take(pool, &cprobe);
                p->t[r] = time_steps(pool, k, p->batch, tok, pos, o->quick ? 0.05 : 0.25,
                                     o->quick ? 2 : 3, between ? &vprobe : NULL,
                                     between ? &cprobe : NULL, p->steps[r], &p->nsteps[r],
                                     &p->tlo, &p->thi, &p->regions);
                if (between) {
                    double bv[VSTEPS], cv[VSTEPS];
                    for (int s = 0; s < p->nsteps[r]; s++) {
                        bv[s] = p->steps[r][s].bw;
                        cv[s] = p->steps[r][s].c;
                    }
                    p->probe[r] = ic_mb_summary(bv, p->nsteps[r]).median;
                    p->cprobe[r] = ic_mb_summary(cv, p->nsteps[r]).median;
                } else {
                    p->probe[r] = 0.5 * (bw0 + probe_take(pool, &vprobe));
                    p->cprobe[r] = 0.5 * (c0 + probe_take(pool, &cprobe));
                }
                p->rounds = r + 1;
                if (prog)
                    fprintf(prog, "validate [round %d/%d] %s %-4s batch %3u context %5u: "
                                  "%8.3f ms (probe %.1f GB/s)\n",
                            r + 1, rounds, models[p->model].name,
                            ic_kern_wtype_name(models[p->model].wtypes[p->wt]), p->batch,
                            p->context, p->t[r] * 1e3, p->probe[r] / 1e9);
            }
            done = end;
        }
    }

    /* predictions: infcalc's expected time on the benched entry, at the
     * bandwidth the probes saw */
    for (size_t i = 0; i < n; i++) {
        struct vpoint *p = &pts[i];
        const struct vmodel *vm = &models[p->model];
        double tv[8], pv[8], cv[8];
        memcpy(tv, p->t, sizeof tv);
        memcpy(pv, p->probe, sizeof pv);
        memcpy(cv, p->cprobe, sizeof cv);
        p->measured = ic_mb_summary(tv, p->rounds).median;
        p->probe_bw = ic_mb_summary(pv, p->rounds).median;
        p->probe_flop = ic_mb_summary(cv, p->rounds).median;
        shape_model(&vm->shape, vm->name, im);
        struct ic_model_stats st;
        if ((rc = ic_model_derive(im, &st, err)))
            goto out;
        struct ic_decode_cfg c = ic_decode_defaults();
        c.batch = p->batch;
        c.context = p->context + 1; /* the step attends over its own token too */
        c.weights = dtype_of(vm->wtypes[p->wt]);
        c.kv = IC_DT_BF16;
        c.compute = o->cuda ? IC_DT_BF16 : IC_DT_FP32;
        c.estimate = IC_EST_EXPECTED;
        at_probes(&c, &hw->measured, bw_ref, o->cuda ? 0 : p->probe_bw, p->probe_flop);
        c.regions = p->regions; /* counted, not timed: structure, not calibration */
        if ((rc = ic_decode(&st, hw, &c, &p->pred, err)))
            goto out;
        p->predicted = p->pred.step_s;
        p->err = (p->predicted - p->measured) / p->measured;
        p->regime = regime_of(&p->pred);
        /* where each step has its own probes: each step predicted at its own
         * moment, and the point's error the median of the steps' */
        double ratio[8 * VSTEPS];
        int nr = 0;
        for (int r = 0; r < p->rounds; r++)
            for (int s = 0; s < p->nsteps[r]; s++) {
                struct ic_point q;
                at_probes(&c, &hw->measured, bw_ref, p->steps[r][s].bw, p->steps[r][s].c);
                if ((rc = ic_decode(&st, hw, &c, &q, err)))
                    goto out;
                ratio[nr++] = q.step_s / p->steps[r][s].t;
            }
        if (nr) {
            p->err = ic_mb_summary(ratio, nr).median - 1;
            p->predicted = p->measured * (1 + p->err);
        }
    }

    char cpu[128];
    snprintf(cpu, sizeof cpu, "%s", hw->measured.cpu);
    const int dram_mask = (1 << R_MEMORY) | (1 << R_TRANSITION) | (1 << R_COMPUTE);
    struct err_stats dram = error_stats(pts, n, dram_mask, -1);
    if (o->cuda)
        fprintf(out, "infcalc validate --device cuda: CUDA decode kernel on %s, %d round%s, "
                     "%zu points\npredicted: expected time on %s (bench of %s), kernels per "
                     "step counted from the step's CUDA graph\n\n",
                cpu, rounds, rounds > 1 ? "s" : "", n, o->hw_path, hw->measured.date);
    else
        fprintf(out, "infcalc validate: reference decode kernel on %s, %d threads, %d round%s, "
                     "%zu points\npredicted: expected time on %s (bench of %s), DRAM figures "
                     "and GEMM rates rescaled by probes beside each point\n\n",
                cpu, threads, rounds, rounds > 1 ? "s" : "", n, o->hw_path, hw->measured.date);
    fprintf(out, "  %-26s %6s %13s %14s %11s %12s\n", "regime", "points", "median |err|",
            "signed median", "p90 |err|", "within 10%");
    for (int g = 0; g < R_COUNT; g++)
        print_stats(out, regime_names[g], error_stats(pts, n, 1 << g, -1));
    print_stats(out, o->cuda ? "HBM-resident (all above)" : "DRAM-resident (all above)", dram);
    print_stats(out, "all points", error_stats(pts, n, (1 << R_COUNT) - 1, -1));
    fprintf(out, "\n  by weight type, %s-resident:\n", o->cuda ? "HBM" : "DRAM");
    for (int t = 0; t < N_TYPES; t++) {
        char label[64];
        snprintf(label, sizeof label, "%s", ic_dtype_traits(bench_dtypes[t])->name);
        print_stats(out, label, error_stats(pts, n, dram_mask, (int)bench_dtypes[t]));
    }
    if (o->csv_path) {
        if ((rc = write_csv(o->csv_path, models, pts, n, err)))
            goto out;
        fprintf(out, "\nwrote %s\n", o->csv_path);
    }
    if (o->plot_prefix) {
        if ((rc = write_charts(o, models, pts, n, &dram, cpu, threads, err)))
            goto out;
        fprintf(out, "wrote %s-batch.png and %s-context.png\n", o->plot_prefix, o->plot_prefix);
    }
out:
    for (size_t m = 0; m < 4; m++)
        for (int w = 0; w < N_TYPES; w++) {
            ic_kern_free(kerns[m][w]);
            ic_cuda_kern_free(gkerns[m][w]);
        }
    ic_kern_pool_free(pool);
    gsl_rng_free(rng);
    probe_free(&vprobe);
    probe_free(&cprobe);
    free(pts);
    free(order);
    free(tok);
    free(pos);
    free(im);
    free(hw);
    return rc;
}
