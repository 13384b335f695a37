/* ic_selfcheck: `infcalc bench` and `infcalc validate`, the self-check.
 *
 * bench measures this machine with microbenchmarks (ic_mbench) and writes a
 * hwdb entry for it with a `measured:` section: the calibration. validate
 * times the reference decode kernel (ic_kern) over a batch x context x
 * weight-type sweep, in random order and repeated, with a memory and a
 * compute probe (the kernel's own matmul) between the timed steps, and
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
};

int ic_selfcheck_validate(const struct ic_validate_opts *o, FILE *out, FILE *progress,
                          struct ic_err *err);

#endif
