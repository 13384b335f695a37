/* ic_selfcheck: `infcalc bench` and `infcalc validate`, the self-check.
 *
 * bench measures this machine with microbenchmarks (ic_mbench) and writes a
 * hwdb entry for it with a `measured:` section: the calibration. validate
 * times the reference decode kernel (ic_kern) over a batch x context x
 * weight-type sweep, in random order and repeated, with a memory, a
 * compute (the kernel's own matmul) and an attention probe (its attention
 * alone) between the timed steps, and
 * judges infcalc's expected time for the same shapes on that entry against
 * the timings: the validation. Nothing validate measures feeds a
 * prediction; the probes, microbenchmarks taken as the bench took them, only
 * rescale the bench's DRAM, GEMM and attention rates to the machine of the
 * moment, as docs/measuring.md asks.
 *
 * With cuda set, both do the same for CUDA device 0: bench runs the GPU
 * microbenchmarks (src/cuda/) and writes an entry whose measured section
 * holds the GPU's figures under the same keys (read_bandwidth = HBM,
 * llc = L2, fork_join = one kernel of a replayed CUDA graph, gemv/gemm =
 * the CUDA step's matmuls); validate times the CUDA decode step over a
 * sweep sized for a large GPU. A build without CUDA fails with IC_EINVAL,
 * a machine without a device with IC_EIO. */
#ifndef IC_SELFCHECK_H
#define IC_SELFCHECK_H

#include "ic_err.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ic_hw;         /* ic_hw.h */
struct ic_model;      /* ic_model.h */
struct ic_kern_shape; /* ic_kern.h */

struct ic_bench_opts {
    int threads;          /* 0 = every online CPU */
    bool quick;           /* fewer repeats and smaller buffers (tests) */
    const char *out_path; /* the hwdb YAML to write */
    const char *name;     /* entry name, e.g. "this-machine" */
    bool cuda;            /* measure CUDA device 0 instead of the CPU */
    double llc_B;         /* CPU: the last-level cache to size buffers from; 0: detect */
};

/* Runs the microbenchmarks, prints a summary to out and progress to
 * progress, and writes the entry to o->out_path. */
int ic_selfcheck_bench(const struct ic_bench_opts *o, FILE *out, FILE *progress,
                       struct ic_err *err);

struct ic_validate_opts {
    const char *hw_path;  /* an entry written by bench (must have measured:) */
    int threads;          /* 0 = the entry's thread count */
    bool quick;           /* a small sweep, one round (a smoke test, < 60 s) */
    int rounds;           /* repeats of the whole sweep (default 3) */
    uint64_t seed;        /* order of points and kernel weights */
    double kv_cap_B;      /* largest KV cache a point may use */
    const char *csv_path; /* per-point results */
    const char *plot_prefix; /* charts: PREFIX-batch.png, PREFIX-context.png; NULL: none */
    bool cuda;            /* time the CUDA kernel on device 0 (an entry from bench --device cuda) */
    /* --model: time the reference kernel on this model's shape (a dense
     * decoder the kernel runs: no experts, MLA or sliding windows) in the
     * kernel's weight types that fit in the memory available, instead of
     * the built-in sweep, and print every point measured against predicted
     * with its probes; NULL: the built-in sweep. Borrowed. */
    const struct ic_model *model;
    const struct ic_hw *hw; /* hw_path's entry as read already (borrowed); NULL: read it */
};

/* The reference kernel's shape of model m (its decoder's widths; the
 * kernel's embedding is fp32 and its LM head untied), or IC_EINVAL naming
 * m's file and what the kernel does not run (experts, MLA, sliding-window
 * layers, an odd or too wide head, query heads not a multiple of the KV
 * heads, widths past the kernel's). shape is written only on success;
 * max_batch and max_seq are left 0. */
int ic_selfcheck_model_shape(const struct ic_model *m, struct ic_kern_shape *shape,
                             struct ic_err *err);

/* Bytes the reference kernel holds for shape s in weight type wt (bits per
 * weight wt_bits: 32, 16 or 8): its matrices at wt_bits, one fp32 scale per
 * row for 8 bits, and the fp32 embedding table. */
double ic_selfcheck_kern_bytes(const struct ic_kern_shape *s, unsigned wt_bits);

int ic_selfcheck_validate(const struct ic_validate_opts *o, FILE *out, FILE *progress,
                          struct ic_err *err);

/* Whether validate shows its point counter on prog: a terminal, outside CI
 * (the CI variable set) and not TERM=dumb. */
bool ic_selfcheck_counter(FILE *prog);

/* The last-level cache the self-check may use, from a working-set ladder:
 * ws[0..k) ascending sizes (bytes) and bw[0..k) their read rates, dram the
 * rate of a read far beyond any cache. The cache ends at the last size of
 * the leading run that reads at least ratio x dram. Returns that size where
 * it is at most half of reported (the system's figure is then not a cache
 * the bench can use: a VM without sysfs cache folders gets the host's L3
 * from CPUID), else reported (also where the ladder cannot judge: no
 * sizes, none in cache, or still in cache at its top). */
double ic_selfcheck_llc_from_ladder(const double *ws, const double *bw, int k, double dram,
                                    double ratio, double reported);

/* "about 1 min 30 s left" into buf: the time the remaining total - done
 * points take at the mean pace of the done ones over elapsed_s seconds
 * (rounded up to the second; minutes and seconds under an hour, hours and
 * minutes above); "time left not known yet" before the first point. */
void ic_selfcheck_eta(char *buf, size_t n, double elapsed_s, size_t done, size_t total);

#endif
