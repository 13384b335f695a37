/* ic_mbench: microbenchmarks of the machine infcalc runs on.
 *
 * These are the figures that feed the expected-time model (calibration);
 * the decode-step timings that judge it (validation) are taken separately
 * by `infcalc validate` and never feed a prediction. Each returns the
 * median and spread of repeated runs after a warm-up (GSL statistics). */
#ifndef IC_MBENCH_H
#define IC_MBENCH_H

#include "ic_kern.h"

#include <stddef.h>

struct ic_mb_stats {
    double median; /* of the per-repeat figure */
    double lo, hi; /* min and max over the repeats */
    int n;         /* repeats */
};

/* Monotonic clock, seconds. */
double ic_mb_now(void);

/* Median, min and max of v[0..n) (v is reordered). */
struct ic_mb_stats ic_mb_summary(double *v, int n);

/* Read-only bandwidth (bytes/s): every thread of pool sums its share of
 * buf[0..n) with SIMD accumulators. passes: how many times one repeat reads
 * the buffer (use > 1 for cache-sized buffers so a repeat lasts long enough). */
struct ic_mb_stats ic_mb_read(struct ic_kern_pool *pool, const float *buf, size_t n, int passes,
                              int reps);

/* STREAM copy (dst = src) and triad (a = b + s * c) in bytes/s as STREAM
 * counts them (2 and 3 arrays' bytes; the write-allocate traffic is not
 * counted, which is why they overstate what a read-only decode step sees). */
struct ic_mb_stats ic_mb_copy(struct ic_kern_pool *pool, float *dst, const float *src, size_t n,
                              int reps);
struct ic_mb_stats ic_mb_triad(struct ic_kern_pool *pool, float *a, const float *b,
                               const float *c, size_t n, int reps);

/* Peak fp32 FMA rate (FLOP/s) of the pool's threads on register operands. */
struct ic_mb_stats ic_mb_fma_peak(struct ic_kern_pool *pool, int reps);

/* Fixed cost of one parallel region (seconds): an empty ic_kern_pool_run. */
struct ic_mb_stats ic_mb_fork_join(struct ic_kern_pool *pool, int reps);

/* Seconds of one ic_kern_matmul of w by a [batch][cols] activation. */
struct ic_mb_stats ic_mb_matmul(struct ic_kern_pool *pool, const struct ic_kern_matrix *w,
                                uint32_t rows, uint32_t cols, uint32_t batch, int reps);

#endif
