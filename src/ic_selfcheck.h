/* ic_selfcheck: `infcalc bench` and `infcalc validate`, the self-check.
 *
 * bench measures this machine with microbenchmarks (ic_mbench) and writes a
 * hwdb entry for it with a `measured:` section: the calibration. validate
 * times the reference decode kernel (ic_kern) over a batch x context x
 * weight-type sweep, in random order and repeated, with a read-bandwidth
 * probe beside every point, and judges infcalc's expected time for the same
 * shapes on that entry against the timings: the validation. Nothing
 * validate measures feeds a prediction; the probe only rescales the bench's
 * DRAM figures to the bandwidth of the moment, as MEASURING.md asks. */
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
};

int ic_selfcheck_validate(const struct ic_validate_opts *o, FILE *out, FILE *progress,
                          struct ic_err *err);

#endif
