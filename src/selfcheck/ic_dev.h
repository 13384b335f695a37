/* ic_dev: the self-check's devices behind one ops table (ggml's backends).
 *
 * bench and validate (ic_selfcheck.c) are written once, over a struct of
 * function pointers and figures per device: ic_dev_cpu (the reference
 * kernels and microbenchmarks of src/kernels/) and ic_dev_cuda (device 0
 * through src/cuda/ic_cuda.h, which loads the CUDA module at run time).
 * The driver runs bench's steps in order (a step a device does not take is
 * NULL), fits the transition exponent, writes the entry through ic_hwwrite
 * and, for validate, sweeps the points, predicts and judges; the device
 * measures, and says in its own words what it measured.
 *
 * Internal to src/selfcheck/. */
#ifndef IC_DEV_H
#define IC_DEV_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_kern.h"
#include "ic_mbench.h"
#include "ic_selfcheck.h"
#include "ic_step.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum {
    IC_DEV_TYPES = 3,    /* weight types a bench measures, at most */
    IC_DEV_BATCHES = 9,  /* the GEMM batches 1, 2, 4 ... 256 */
    IC_DEV_LADDER = 24,  /* working-set sizes, at most */
    IC_DEV_FIT = 32,     /* matmul timings the transition is fitted to, at most */
    IC_DEV_VSTEPS = 32,  /* validate: steps timed per point and round, at most */
    IC_DEV_ROUNDS = 8,   /* validate: rounds, at most */
    IC_DEV_MODELS = 4,   /* validate: models per sweep, at most */
};
_Static_assert((int)IC_DEV_BATCHES == (int)IC_HW_GEMM_BATCHES, "the entry's gemm_by_batch batches");

/* bench's steps, in the order they run. */
enum ic_bench_step {
    IC_BS_READ,        /* read bandwidth from DRAM / HBM (and in cache) */
    IC_BS_STREAM,      /* STREAM copy and triad, for reference */
    IC_BS_LADDER,      /* read bandwidth over working-set sizes */
    IC_BS_PEAK,        /* the compute peak */
    IC_BS_FORK_JOIN,   /* one parallel region's / kernel's fixed cost */
    IC_BS_GEMV_DRAM,   /* the matmul at batch 1, weights from DRAM / HBM */
    IC_BS_GEMV_CACHE,  /* the same, weights in the LLC / L2 */
    IC_BS_GEMM,        /* the in-cache matmul at batches 1 ... 256 */
    IC_BS_ATTENTION,   /* the decode step's attention alone */
    IC_BS_OVERHEAD,    /* a step's work outside its matmuls: matmul starts, layer work */
    IC_BS_TRANSITION,  /* matmuls at batches from DRAM, for the fit */
    IC_BS_COUNT
};

/* What bench measured, in SI units; 0 where the device takes no such
 * figure (which the entry then leaves out). Per type t: the device's
 * types[t]. */
struct ic_bench_res {
    char date[16];                 /* YYYY-MM-DD, UTC */
    char chip[128];                /* the CPU model or the device's name */
    int threads;                   /* CPU threads; 1 for a device */
    int reps;                      /* repeats per figure */
    double llc_B;                  /* last-level cache (a GPU's L2) */
    double llc_reported_B;         /* what the system said where the ladder
                                    * found less (effective_llc), else 0 */
    double dram_B;                 /* the DRAM / HBM buffer read */
    double read_B_s, read_1t_B_s, cache_read_B_s;
    struct ic_mb_stats read_s, read_1t_s;
    /* validate's probes at bench time, per type t (types[t]'s own matmul;
     * 0 where the device takes none) */
    double probe_B_s[IC_DEV_TYPES], probe_flop_s[IC_DEV_TYPES];
    double probe_attn_s;           /* the attention probe: seconds per score (0: none) */
    double copy_B_s, triad_B_s;    /* STREAM's figures */
    double ladder_B[IC_DEV_LADDER], ladder_B_s[IC_DEV_LADDER];
    int ladder_n;
    double peak_flop_s;            /* the compute peak (the entry's compute section) */
    struct ic_mb_stats peak_s;
    double fork_join_s;            /* a parallel region; a GPU: one kernel of a graph */
    struct ic_mb_stats fork_join_stats;
    double launch_plain_s;         /* a GPU: one kernel launched alone */
    double gemv_B_s[IC_DEV_TYPES], gemv_cache_B_s[IC_DEV_TYPES];
    double gemv_level_B_s[IC_DEV_TYPES]; /* the probe beside each DRAM matmul */
    double gemv_of_read[IC_DEV_TYPES];   /* DRAM matmul over a read beside it */
    double gemv_big_of_probe[IC_DEV_TYPES]; /* a 256 MiB matmul over its type's probe */
    double mat_B[IC_DEV_TYPES];          /* the DRAM matrices' bytes */
    double gemm_b[IC_DEV_TYPES][IC_DEV_BATCHES]; /* FLOP/s at batch 1, 2, 4 ... 256 */
    double attn_flop_s[2];         /* attention over a bf16 / int8 KV cache: FLOP/s */
    double attn_score_s[2];        /* ... and seconds per score beside it (0: unresolved) */
    double attn_u128_s[2], attn_u64_s[2]; /* the timings: seconds per score, head 128 / 64 */
    /* the step overhead (IC_BS_OVERHEAD): per matmul call from DRAM and per
     * layer and sequence, medians (0 where negative: reported raw below);
     * the shape's chain of matmuls and its step, medians, at the reference
     * probe's level */
    double matmul_start_s, layer_work_s, raw_start_s, raw_work_s;
    double start_lo_s, start_hi_s, work_lo_s, work_hi_s; /* 95% intervals of the medians */
    double chain_s, ostep_s;
    unsigned o_dim, o_layers;
    /* the transition's timings: memory, compute and measured seconds of
     * n_fit matmuls (the CPU: chains of a layer's matmuls), types in order,
     * n_fit / n_types each */
    double fit_tm[IC_DEV_FIT], fit_tc[IC_DEV_FIT], fit_t[IC_DEV_FIT];
    size_t n_fit;
    double p, p_type[IC_DEV_TYPES]; /* fitted by the driver */
    /* where the bench's probes disagreed beyond IC_DEV_PROBE_SPREAD (a
     * disturbed run): what and by how much, for the progress, the report
     * and the entry's notes; "" when they agreed */
    char warn[512];
};

/* How far apart (max / min - 1) the bench's repeated probes may read before
 * it takes them again and, if they still disagree, says so. */
#define IC_DEV_PROBE_SPREAD 0.10

/* One model of validate's sweep (shape as the reference kernel takes it). */
struct ic_vmodel {
    const char *name;
    struct ic_kern_shape shape;
    enum ic_kern_wtype wtypes[IC_DEV_TYPES];
    int n_wtypes;
    uint32_t batches[16];
    int n_batches;
    uint32_t contexts[8];
    int n_contexts;
};

/* One timed step and the mean of the probes on its two sides (a: the
 * attention probe, seconds per score; 0 where none was taken). */
struct ic_vstep {
    double t, bw, c, a;
};

/* One point of validate's sweep: what was timed, then what was predicted. */
struct ic_vpoint {
    int model, wt;        /* indices into the models table and its wtypes */
    uint32_t batch, context;
    double t[IC_DEV_ROUNDS]; /* per round: median step seconds */
    double tlo, thi;      /* min and max single step over all rounds */
    /* per round, per step where probes ran between steps */
    struct ic_vstep steps[IC_DEV_ROUNDS][IC_DEV_VSTEPS];
    int nsteps[IC_DEV_ROUNDS];
    double probe[IC_DEV_ROUNDS];  /* per round: memory probe beside the timing (bytes/s) */
    double cprobe[IC_DEV_ROUNDS]; /* per round: compute probe beside the timing (FLOP/s) */
    double aprobe[IC_DEV_ROUNDS]; /* per round: attention probe (s per score; 0: none) */
    int rounds;
    uint64_t regions;     /* parallel regions (a GPU: kernels) one step ran */
    /* results */
    double measured, probe_bw, probe_flop, probe_attn, predicted, err;
    /* the charts: predicted at the run's median probes (one machine state
     * for every point, so the line is the model's shape over the sweep),
     * and the factor that carries measured to that state,
     * pred_run / predicted (the point's own error kept) */
    double pred_run, to_run;
    struct ic_point pred;
    int regime;
};

struct ic_dev; /* a device's state between open and close */

struct ic_dev_ops {
    const char *name;                  /* "cpu", "cuda" */
    int n_types;                       /* bench's weight types */
    enum ic_kern_wtype types[IC_DEV_TYPES];
    enum ic_dtype dtypes[IC_DEV_TYPES];

    /* ---- bench ---- */
    /* Reads the machine's facts into r (chip, llc_B, threads, reps,
     * dram_B) and sets up what the steps share. */
    int (*bench_open)(const struct ic_bench_opts *o, struct ic_bench_res *r,
                      struct ic_dev **out, struct ic_err *err);
    /* The steps, each filling its figures of r; NULL: not taken here. */
    int (*bench[IC_BS_COUNT])(struct ic_dev *d, struct ic_bench_res *r, struct ic_err *err);
    const char *step_name[IC_BS_COUNT]; /* progress lines */
    bool fit_per_type;                  /* transition_p_by_type too */
    /* Everything of the entry but the measured figures (which the driver
     * fills from r): names, the spec sections and their sources, the
     * measured section's source; and the comment above the entry. */
    int (*bench_entry)(const struct ic_dev *d, const struct ic_bench_opts *o,
                       const struct ic_bench_res *r, struct ic_hw *hw, char *comment,
                       size_t comment_len, struct ic_err *err);
    /* The summary on out. */
    void (*bench_report)(const struct ic_dev *d, const struct ic_bench_opts *o,
                         const struct ic_bench_res *r, FILE *out);

    /* ---- validate ---- */
    const struct ic_vmodel *models_full, *models_quick;
    size_t n_full, n_quick;
    double kv_cap_B;        /* default cap on a point's KV cache */
    enum ic_dtype compute;  /* the compute type the kernel runs in */
    bool rescale;           /* whether probes rescale the entry's rates */
    const char *memory;     /* "DRAM", "HBM": what the big points read from */
    int (*validate_open)(const struct ic_validate_opts *o, const struct ic_hw *hw, FILE *prog,
                         struct ic_dev **out, int *threads, struct ic_err *err);
    /* A kernel of shape and weight type (a cache of one short sequence). */
    int (*kern_create)(struct ic_dev *d, const struct ic_kern_shape *s, enum ic_kern_wtype wt,
                       uint64_t seed, void **out, struct ic_err *err);
    void (*kern_free)(void *k);
    int (*kern_cache)(void *k, uint32_t max_batch, uint32_t max_seq, struct ic_err *err);
    int (*kern_fill)(void *k, uint32_t b, uint32_t len, uint64_t seed, struct ic_err *err);
    /* Times round r of point p (k's cache filled to p->context for every
     * sequence, tokens tok and positions pos): p->t[r], tlo, thi, regions,
     * the probes; writes its progress line. */
    int (*time_point)(struct ic_dev *d, void *k, const struct ic_vmodel *m, struct ic_vpoint *p,
                      int r, int rounds, const uint32_t *tok, const uint32_t *pos, bool quick,
                      const struct ic_hw *hw, FILE *prog, struct ic_err *err);
    /* validate's first lines, and the charts' title. */
    void (*validate_head)(FILE *out, const char *chip, int threads, int rounds, size_t points,
                          const char *hw_path, const char *bench_date);
    void (*chart_title)(char *buf, size_t n, const char *model, const char *chip,
                        int threads);

    void (*close)(struct ic_dev *d); /* NULL-safe */
};

/* The index into ops->types of kernel weight type wt; -1 if the device
 * does not bench it. */
static inline int ic_dev_type_index(const struct ic_dev_ops *ops, enum ic_kern_wtype wt)
{
    for (int t = 0; t < ops->n_types; t++)
        if (ops->types[t] == wt)
            return t;
    return -1;
}

/* Which type's probes validate takes beside a point of weight type wt: its
 * own where the entry holds that type's probes (probe_bandwidth_by_type and
 * probe_gemm_by_type), else the fp32 probes (index 0 on the CPU, the only
 * device that takes probes) that every entry since probe_gemm holds. */
static inline int ic_dev_probe_type(const struct ic_dev_ops *ops, const struct ic_hw_measured *hm,
                                    enum ic_kern_wtype wt)
{
    const int t = ic_dev_type_index(ops, wt);
    if (t <= 0 || ops->dtypes[t] == IC_DT_FP32)
        return 0;
    const enum ic_dtype dt = ops->dtypes[t];
    return hm->probe_type_B_s[dt] > 0 && hm->probe_gemm_type[dt] > 0 ? t : 0;
}

extern const struct ic_dev_ops ic_dev_cpu;
extern const struct ic_dev_ops ic_dev_cuda;

/* ---- shared by the devices (ic_selfcheck.c) ---- */

/* "bench [ 3/10] what" on p (NULL: nothing). */
void ic_dev_progress(FILE *p, int step, int steps, const char *what);

/* A matrix of about bytes in type t with c columns: rows x c, rows >= 64. */
void ic_dev_matrix_dims(enum ic_kern_wtype t, double bytes, uint32_t c, uint32_t *rows,
                        uint32_t *cols);

/* Bytes of a bf16 KV cache of B sequences of S cached tokens plus the new one. */
double ic_dev_kv_cache_B(const struct ic_kern_shape *s, uint32_t B, uint32_t S);

/* The expected time's in-cache matmul rates as bench measured them (types
 * of ops), in the form ic_step_gemm_rate reads. */
void ic_dev_gemm_table(const struct ic_dev_ops *ops, const struct ic_bench_res *r,
                       struct ic_hw_measured *table);

/* snprintf into a fixed field of an entry; IC_EINVAL naming what when the
 * text does not fit (the loader would refuse it). */
int ic_dev_text(char *dst, size_t n, const char *what, struct ic_err *err, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
