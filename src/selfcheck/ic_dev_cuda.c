/* ic_dev_cuda: the self-check on CUDA device 0 (ic_dev.h), through
 * src/cuda/ic_cuda.h (the module loads at the first call; a build without
 * CUDA fails every call with IC_EINVAL, a machine without a device with
 * IC_EIO).
 *
 * The same calibration as on the CPU, mapped onto the same measured keys so
 * that ic_decode's expected time needs no new physics for a GPU:
 * read_bandwidth = HBM read over >= 1 GiB (L2 flushed between repeats),
 * cache_read_bandwidth = a quarter of the L2 re-read, llc = the L2,
 * fork_join = one kernel's floor inside a replayed CUDA graph (the step
 * replays one), gemv_dram / gemv_cache = the CUDA step's matmul at batch 1
 * from HBM / from the L2, gemm_by_batch = that matmul at batches 1-256 on an
 * L2-resident matrix, attention = the step's split-K attention over a cache
 * >= 4x the L2, transition_p fitted to that matmul at batches 1-256 from
 * HBM (one matrix; the CPU fits a layer chain), compute.bf16 = cuBLAS's
 * bf16 GEMM at 8192^3 (the chip's achievable matrix rate). Types: bf16 and
 * int8 (the CUDA kernel's weights). No probes: a GPU's HBM bandwidth does
 * not drift with its neighbours' load as the shared CPU's does, and its
 * bench figures stand. */
#include "ic_dev.h"

#include "ic_cuda.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ic_dev {
    struct ic_cuda_info info;
    bool quick;
    double v[64];                      /* one call's figures */
    uint32_t dims[IC_DEV_TYPES][2][2]; /* per type: HBM, L2 matrix rows, cols */
};

static void cuda_close(struct ic_dev *d) { free(d); }

/* Median (and spread) of n figures from one of the ic_cuda_mb_* calls. */
static int cuda_stat(int rc, double *v, int n, struct ic_mb_stats *s)
{
    if (rc == IC_OK)
        *s = ic_mb_summary(v, n);
    return rc;
}

/* ---- bench ------------------------------------------------------------------- */

static int cuda_bench_open(const struct ic_bench_opts *o, struct ic_bench_res *r,
                           struct ic_dev **out, struct ic_err *err)
{
    struct ic_dev *d = calloc(1, sizeof *d);
    if (!d)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = ic_cuda_info(&d->info, err);
    if (rc) {
        free(d);
        return rc;
    }
    d->quick = o->quick;
    snprintf(r->chip, sizeof r->chip, "%s", d->info.name);
    r->threads = 1;
    r->llc_B = d->info.l2_B;
    r->reps = o->quick ? 5 : 15;
    /* HBM: >= 1 GiB and >= 8x the L2 (quick too: a GPU streams 1 GiB in well
     * under a millisecond) */
    r->dram_B = fmax(8 * d->info.l2_B, 1073741824.0);
    *out = d;
    return IC_OK;
}

static int cuda_read(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    int rc = cuda_stat(ic_cuda_mb_read(r->dram_B, 1, r->reps, d->v, err), d->v, r->reps,
                       &r->read_s);
    if (rc)
        return rc;
    r->read_B_s = r->read_s.median;
    if ((rc = ic_cuda_mb_read(d->info.l2_B / 4, 64, r->reps, d->v, err)))
        return rc;
    r->cache_read_B_s = ic_mb_summary(d->v, r->reps).median;
    return IC_OK;
}

static int cuda_peak(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    int rc = cuda_stat(ic_cuda_mb_gemm(8192, 8192, 8192, r->reps, d->v, err), d->v, r->reps,
                       &r->peak_s);
    r->peak_flop_s = r->peak_s.median;
    return rc;
}

static int cuda_launch(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    struct ic_mb_stats lp;
    int rc;
    if ((rc = cuda_stat(ic_cuda_mb_launch(false, 1000, r->reps, d->v, err), d->v, r->reps,
                        &lp)) ||
        (rc = cuda_stat(ic_cuda_mb_launch(true, 1000, r->reps, d->v, err), d->v, r->reps,
                        &r->fork_join_stats)))
        return rc;
    r->launch_plain_s = lp.median;
    r->fork_join_s = r->fork_join_stats.median;
    return IC_OK;
}

/* Bytes of a rows x cols matrix of the step's type t (int8: a scale per row). */
static double matrix_B(enum ic_kern_wtype t, const uint32_t dims[2])
{
    return (double)dims[0] * dims[1] * ic_kern_wtype_bits(t) / 8 +
           (t == IC_KW_INT8 ? 4.0 * dims[0] : 0);
}

static int cuda_gemv(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    const enum ic_kern_wtype *types = ic_dev_cuda.types;
    const int reps = r->reps;
    for (int t = 0; t < ic_dev_cuda.n_types; t++)
        for (int k = 0; k < 2; k++) {
            double bytes = k == 0 ? r->dram_B : d->info.l2_B / 4;
            /* 4096 columns from HBM (the GPU model's hidden size) */
            ic_dev_matrix_dims(types[t], bytes, bytes < 64.0 * 1048576 ? 2048 : 4096,
                               &d->dims[t][k][0], &d->dims[t][k][1]);
        }
    for (int t = 0; t < ic_dev_cuda.n_types; t++) {
        const double mb = matrix_B(types[t], d->dims[t][0]), cb = matrix_B(types[t], d->dims[t][1]);
        struct ic_mb_stats s;
        r->mat_B[t] = mb;
        int rc = cuda_stat(ic_cuda_mb_matmul(types[t], d->dims[t][0][0], d->dims[t][0][1], 1,
                                             true, reps, d->v, err),
                           d->v, reps, &s);
        if (rc)
            return rc;
        r->gemv_B_s[t] = mb / s.median;
        r->gemv_of_read[t] = r->gemv_B_s[t] / r->read_B_s;
        if ((rc = ic_cuda_mb_matmul(types[t], d->dims[t][1][0], d->dims[t][1][1], 1, false, reps,
                                    d->v, err)))
            return rc;
        r->gemv_cache_B_s[t] = cb / ic_mb_summary(d->v, reps).median;
    }
    return IC_OK;
}

static int cuda_gemm(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    for (int t = 0; t < ic_dev_cuda.n_types; t++)
        for (int i = 0; i < IC_DEV_BATCHES; i++) {
            int rc = ic_cuda_mb_matmul(ic_dev_cuda.types[t], d->dims[t][1][0], d->dims[t][1][1],
                                       1u << i, false, r->reps, d->v, err);
            if (rc)
                return rc;
            r->gemm_b[t][i] = 2.0 * (1 << i) * d->dims[t][1][0] * (double)d->dims[t][1][1] /
                              ic_mb_summary(d->v, r->reps).median;
        }
    return IC_OK;
}

static int cuda_attention(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    /* the step with next to no weights: 32 query heads on 8 KV heads of
     * 128 (the validation model's attention), 16 sequences; FLOPs as
     * infcalc counts them, 4 H d per cached token */
    const uint32_t B = 16;
    uint32_t S = 256;
    const double kv_tok = 2.0 * 8 * 128 * 2;
    while (B * (S + 1) * kv_tok < fmax(4 * d->info.l2_B, 1073741824.0))
        S *= 2;
    struct ic_kern_shape as = {64, 64, 1, 32, 8, 128, 64, B, S + 1};
    struct ic_cuda_kern *ak = NULL;
    uint32_t tok[16] = {0}, posv[16];
    uint64_t kernels = 0;
    int rc = ic_cuda_kern_create(&as, IC_KW_BF16, 5, &ak, err);
    if (rc)
        return rc;
    for (uint32_t b = 0; b < B && !rc; b++) {
        rc = ic_cuda_kern_fill_cache(ak, b, S, 11 + b, err);
        posv[b] = S;
    }
    if (!rc)
        rc = ic_cuda_kern_time(ak, B, tok, posv, r->reps, d->v, &kernels, err);
    ic_cuda_kern_free(ak);
    if (rc)
        return rc;
    r->attn_flop_s[0] = (double)B * (S + 1) * 4.0 * 32 * 128 / ic_mb_summary(d->v, r->reps).median;
    return IC_OK;
}

static int cuda_transition(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err)
{
    static const uint32_t batches[] = {1, 4, 16, 64, 128, 256};
    enum { NB = sizeof batches / sizeof batches[0] };
    _Static_assert(NB * IC_DEV_TYPES <= IC_DEV_FIT, "room for the fit's timings");
    struct ic_hw_measured table;
    ic_dev_gemm_table(&ic_dev_cuda, r, &table);
    const int n = d->quick ? 3 : 5;
    size_t k = 0;
    for (int t = 0; t < ic_dev_cuda.n_types; t++)
        for (size_t b = 0; b < NB; b++) {
            const double flops = 2.0 * batches[b] * d->dims[t][0][0] * (double)d->dims[t][0][1];
            r->fit_tm[k] = r->mat_B[t] / r->gemv_B_s[t];
            r->fit_tc[k] =
                ic_step_matmul_compute_s(&table, ic_dev_cuda.dtypes[t], batches[b], flops);
            int rc = ic_cuda_mb_matmul(ic_dev_cuda.types[t], d->dims[t][0][0], d->dims[t][0][1],
                                       batches[b], true, n, d->v, err);
            if (rc)
                return rc;
            r->fit_t[k] = ic_mb_summary(d->v, n).median;
            k++;
        }
    r->n_fit = k;
    return IC_OK;
}

static int cuda_bench_entry(const struct ic_dev *d, const struct ic_bench_opts *o,
                            const struct ic_bench_res *r, struct ic_hw *hw, char *comment,
                            size_t comment_len, struct ic_err *err)
{
    const struct ic_cuda_info *in = &d->info;
    const char *src = "measured by infcalc bench --device cuda", *date = r->date;
    snprintf(comment, comment_len,
             "%s: CUDA device 0 (%s) as `infcalc bench --device cuda` measured it on %s.\n"
             "memory.bandwidth and compute.bf16 are measured (what the ideal bound uses);\n"
             "the measured section is what the expected time uses (llc = the L2,\n"
             "fork_join = one kernel of a replayed CUDA graph, threads = 1 device).",
             o->name, in->name, date);
    hw->hbm_capacity_B = in->mem_B;
    hw->hbm_bandwidth_B_s = r->read_B_s;
    hw->peak_flop_s[IC_DT_BF16] = r->peak_flop_s;
    int rc;
    if ((rc = ic_dev_text(hw->vendor, sizeof hw->vendor, "vendor", err, "NVIDIA")) ||
        (rc = ic_dev_text(hw->description, sizeof hw->description, "description", err,
                          "%s (sm_%d%d, %d SMs), measured", in->name, in->cc_major, in->cc_minor,
                          in->sms)) ||
        (rc = ic_dev_text(hw->section_source[0], sizeof hw->section_source[0], "memory source",
                          err,
                          "capacity: cudaGetDeviceProperties totalGlobalMem; bandwidth: %s, "
                          "read-only sum over %.0f MiB, L2 flushed between repeats, median",
                          src, r->dram_B / 1048576)) ||
        (rc = ic_dev_text(hw->section_source[1], sizeof hw->section_source[1], "compute source",
                          err,
                          "%s: cuBLAS bf16 GEMM 8192 x 8192 x 8192, fp32 accumulation, random "
                          "inputs, median; other types not measured",
                          src)) ||
        (rc = ic_dev_text(hw->section_source[2], sizeof hw->section_source[2], "source", err,
                          "one GPU measured alone: its fabric is not benchmarked")) ||
        (rc = ic_dev_text(hw->section_source[3], sizeof hw->section_source[3], "source", err,
                          "not measured: infcalc's self-check runs on one device")) ||
        (rc = ic_dev_text(hw->section_source[4], sizeof hw->section_source[4], "source", err,
                          "not measured by the self-check")) ||
        (rc = ic_dev_text(hw->sources[0], sizeof hw->sources[0], "sources", err,
                          "infcalc bench --device cuda (src/cuda/ic_cuda_bench.cu), %s", date)) ||
        (rc = ic_dev_text(hw->notes, sizeof hw->notes, "notes", err,
                          "Kernel launch floor: %.3g us per kernel launched one by one, %.3g us "
                          "per kernel replayed from a CUDA graph (chains of 1000 empty "
                          "kernels). Driver / runtime %s; memory clock %.0f MHz, bus %d bits.",
                          r->launch_plain_s * 1e6, r->fork_join_s * 1e6, in->driver,
                          in->mem_clock_hz / 1e6, in->bus_width_bits)) ||
        (rc = ic_dev_text(hw->measured.source, sizeof hw->measured.source, "measured source",
                          err,
                          "infcalc bench --device cuda %s: medians of CUDA-event timings after "
                          "warm-up; gemv = the CUDA step's matmul at batch 1 (weight bytes per "
                          "second; GEMV kernel up to batch %d, tensor cores above), gemm = at "
                          "batch 256 on an L2-resident matrix, gemm_by_batch the same at "
                          "batches 1, 2, 4 ... 256, attention = the step's split-K attention "
                          "(32 query heads on 8 KV heads of 128) over a cache >= 4x the L2, "
                          "fork_join = one kernel of a replayed CUDA graph, transition_p "
                          "fitted to the matmul at batches 1-256 from HBM",
                          date, IC_CUDA_GEMV_MAX)))
        return rc;
    hw->n_sources = 1;
    return IC_OK;
}

static void cuda_bench_report(const struct ic_dev *d, const struct ic_bench_opts *o,
                              const struct ic_bench_res *r, FILE *out)
{
    const struct ic_cuda_info *in = &d->info;
    fprintf(out, "infcalc bench --device cuda: %s (sm_%d%d, %d SMs, L2 %.0f MiB, %.0f GiB), "
                 "%s\n\n",
            in->name, in->cc_major, in->cc_minor, in->sms, in->l2_B / 1048576,
            in->mem_B / 1073741824.0, r->date);
    fprintf(out, "HBM read bandwidth (%.0f MiB, L2 flushed), median [min, max] of %d: %.1f GB/s "
                 "[%.1f, %.1f]\n",
            r->dram_B / 1048576, r->reps, r->read_B_s / 1e9, r->read_s.lo / 1e9,
            r->read_s.hi / 1e9);
    fprintf(out, "L2 read bandwidth (%.0f MiB re-read): %.1f GB/s\n", in->l2_B / 4 / 1048576,
            r->cache_read_B_s / 1e9);
    fprintf(out, "cuBLAS bf16 GEMM 8192^3: %.1f TFLOP/s [%.1f, %.1f]\n", r->peak_flop_s / 1e12,
            r->peak_s.lo / 1e12, r->peak_s.hi / 1e12);
    fprintf(out, "kernel launch floor: %.2f us plain, %.2f us per kernel from a CUDA graph\n",
            r->launch_plain_s * 1e6, r->fork_join_s * 1e6);
    fprintf(out, "step matmul:      HBM GB/s (of read)  (matrix)     L2 GB/s   batch-256 "
                 "GFLOP/s\n");
    for (int t = 0; t < ic_dev_cuda.n_types; t++)
        fprintf(out, "  %-5s        %9.1f (%5.1f%%)  (%4.0f MiB)  %9.1f   %9.0f\n",
                ic_dtype_traits(ic_dev_cuda.dtypes[t])->name, r->gemv_B_s[t] / 1e9,
                100 * r->gemv_of_read[t], r->mat_B[t] / 1048576, r->gemv_cache_B_s[t] / 1e9,
                r->gemm_b[t][IC_DEV_BATCHES - 1] / 1e9);
    fprintf(out, "step matmul in the L2, GFLOP/s at batch 1, 2, 4 ... 256:\n");
    for (int t = 0; t < ic_dev_cuda.n_types; t++) {
        fprintf(out, "  %-5s", ic_dtype_traits(ic_dev_cuda.dtypes[t])->name);
        for (int i = 0; i < IC_DEV_BATCHES; i++)
            fprintf(out, " %7.0f", r->gemm_b[t][i] / 1e9);
        fputc('\n', out);
    }
    fprintf(out, "split-K attention (32 q / 8 KV heads of 128, bf16 KV): %.1f GFLOP/s\n",
            r->attn_flop_s[0] / 1e9);
    fprintf(out, "transition exponent p = %.3g\n", r->p);
    fprintf(out, "\nwrote %s (use it with --hw %s --device cuda)\n", o->out_path, o->out_path);
}

/* ---- validate ---------------------------------------------------------------- */

/* On a GPU: weights of ~1.0 B parameters (2 GB in bf16, 1 GB in int8:
 * >= 16x a 60 MB L2) in a Llama-like shape (GQA 32/8 of 128), and a model
 * whose weights sit in the L2. Sized so that three rounds take about a
 * minute on an H200; the KV cache is capped at 16 GiB. */
static const struct ic_vmodel full_models[] = {
    {"gpu-1b", {4096, 14336, 4, 32, 8, 128, 32000, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 2, 4, 8, 16, 32, 64, 128, 256}, 9,
     {128, 1024, 4096, 16384}, 4},
    {"gpu-8m", {512, 1408, 2, 8, 2, 64, 4096, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 4, 16, 64}, 4,
     {128, 1024}, 2},
};
static const struct ic_vmodel quick_models[] = {
    {"gpu-31m", {1024, 2816, 2, 8, 2, 128, 8192, 0, 0},
     {IC_KW_BF16, IC_KW_INT8}, 2,
     {1, 16}, 2,
     {128, 2048}, 2},
};

static int cuda_validate_open(const struct ic_validate_opts *o, const struct ic_hw *hw,
                              FILE *prog, struct ic_dev **out, int *threads, struct ic_err *err)
{
    (void)o;
    (void)hw;
    (void)prog;
    struct ic_dev *d = calloc(1, sizeof *d);
    if (!d)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    *threads = 1; /* the GPU; no CPU pool */
    *out = d;
    return IC_OK;
}

static int cuda_kern_create(struct ic_dev *d, const struct ic_kern_shape *s, enum ic_kern_wtype wt,
                            uint64_t seed, void **out, struct ic_err *err)
{
    (void)d;
    struct ic_cuda_kern *k = NULL;
    int rc = ic_cuda_kern_create(s, wt, seed, &k, err);
    if (rc == IC_OK)
        *out = k;
    return rc;
}

static void cuda_kern_free(void *k) { ic_cuda_kern_free(k); }

static int cuda_kern_cache(void *k, uint32_t max_batch, uint32_t max_seq, struct ic_err *err)
{
    return ic_cuda_kern_set_cache(k, max_batch, max_seq, err);
}

static int cuda_kern_fill(void *k, uint32_t b, uint32_t len, uint64_t seed, struct ic_err *err)
{
    return ic_cuda_kern_fill_cache(k, b, len, seed, err);
}

/* Replays of the step's CUDA graph, each timed with events, as many as fit
 * budget_s (at least min_steps, at most 64). *kernels: kernel nodes in one
 * step (the fixed costs the model counts). */
static int time_steps(struct ic_cuda_kern *k, uint32_t b, const uint32_t *tok,
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

static int cuda_time_point(struct ic_dev *d, void *k, const struct ic_vmodel *m,
                           struct ic_vpoint *p, int r, int rounds, const uint32_t *tok,
                           const uint32_t *pos, bool quick, const struct ic_hw *hw, FILE *prog,
                           struct ic_err *err)
{
    (void)d;
    int rc = time_steps(k, p->batch, tok, pos, quick ? 0.02 : 0.1, 3, &p->tlo, &p->thi,
                        &p->regions, &p->t[r], err);
    if (rc)
        return rc;
    p->probe[r] = hw->measured.read_B_s;
    if (prog)
        fprintf(prog, "validate [round %d/%d] %s %-4s batch %3u context %5u: "
                      "%8.4f ms (%llu kernels)\n",
                r + 1, rounds, m->name, ic_kern_wtype_name(m->wtypes[p->wt]), p->batch,
                p->context, p->t[r] * 1e3, (unsigned long long)p->regions);
    return IC_OK;
}

static void cuda_validate_head(FILE *out, const char *chip, int threads, int rounds, size_t n,
                               const char *hw_path, const char *bench_date)
{
    (void)threads;
    fprintf(out, "infcalc validate --device cuda: CUDA decode kernel on %s, %d round%s, "
                 "%zu points\npredicted: expected time on %s (bench of %s), kernels per "
                 "step counted from the step's CUDA graph\n\n",
            chip, rounds, rounds > 1 ? "s" : "", n, hw_path, bench_date);
}

static void cuda_chart_title(char *buf, size_t n, const char *model, const char *chip,
                             int threads)
{
    (void)threads;
    snprintf(buf, n, "CUDA decode kernel (%s) on %s: measured vs predicted", model, chip);
}

const struct ic_dev_ops ic_dev_cuda = {
    .name = "cuda",
    .n_types = 2,
    .types = {IC_KW_BF16, IC_KW_INT8},
    .dtypes = {IC_DT_BF16, IC_DT_INT8},
    .bench_open = cuda_bench_open,
    .bench = {
        [IC_BS_READ] = cuda_read,
        [IC_BS_PEAK] = cuda_peak,
        [IC_BS_FORK_JOIN] = cuda_launch,
        [IC_BS_GEMV_DRAM] = cuda_gemv,
        [IC_BS_GEMM] = cuda_gemm,
        [IC_BS_ATTENTION] = cuda_attention,
        [IC_BS_TRANSITION] = cuda_transition,
    },
    .step_name = {
        [IC_BS_READ] = "HBM read bandwidth",
        [IC_BS_PEAK] = "cuBLAS bf16 GEMM 8192^3",
        [IC_BS_FORK_JOIN] = "kernel launch floor, plain and from a CUDA graph",
        [IC_BS_GEMV_DRAM] = "the step's matmul at batch 1, from HBM and from the L2",
        [IC_BS_GEMM] = "the step's matmul at batches 1-256 in the L2",
        [IC_BS_ATTENTION] = "split-K attention over a cache >= 4x the L2",
        [IC_BS_TRANSITION] = "the step's matmul at batches 1-256 from HBM (transition)",
    },
    .fit_per_type = false,
    .bench_entry = cuda_bench_entry,
    .bench_report = cuda_bench_report,
    .models_full = full_models,
    .models_quick = quick_models,
    .n_full = sizeof full_models / sizeof full_models[0],
    .n_quick = sizeof quick_models / sizeof quick_models[0],
    .kv_cap_B = 16.0 * 1073741824.0,
    .compute = IC_DT_BF16,
    .rescale = false,
    .memory = "HBM",
    .validate_open = cuda_validate_open,
    .kern_create = cuda_kern_create,
    .kern_free = cuda_kern_free,
    .kern_cache = cuda_kern_cache,
    .kern_fill = cuda_kern_fill,
    .time_point = cuda_time_point,
    .validate_head = cuda_validate_head,
    .chart_title = cuda_chart_title,
    .close = cuda_close,
};
