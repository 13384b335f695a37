/* ic_mbench: memory, compute and fixed-cost microbenchmarks. */
#include "ic_mbench.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

double ic_mb_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

struct ic_mb_stats ic_mb_summary(double *v, int n)
{
    gsl_sort(v, 1, (size_t)n);
    return (struct ic_mb_stats){gsl_stats_median_from_sorted_data(v, 1, (size_t)n), v[0],
                                v[n - 1], n};
}

enum { MAX_REPS = 64, MAX_THREADS = 256 };

/* Each thread's share [lo, hi) of n elements, aligned to 64 floats. */
static void share(size_t n, int i, int nt, size_t *lo, size_t *hi)
{
    size_t per = (n / (size_t)nt + 63) & ~(size_t)63;
    *lo = per * (size_t)i < n ? per * (size_t)i : n;
    *hi = *lo + per < n ? *lo + per : n;
}

/* ---- read ---------------------------------------------------------------- */

struct read_arg {
    const float *buf; /* [n] */
    size_t n;
    int passes;
    float sink[MAX_THREADS]; /* keeps the sums alive */
};

static float sum_range(const float *restrict p, size_t n)
{
#if defined(__AVX512F__)
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + i));
        a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + i + 16));
        a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + i + 32));
        a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + i + 48));
    }
    float s = _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
    for (; i < n; i++)
        s += p[i];
    return s;
#else
    /* per-lane accumulators let the compiler vectorize without -ffast-math */
    float acc[16] = {0};
    size_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int l = 0; l < 16; l++)
            acc[l] += p[i + (size_t)l];
    float s = 0;
    for (int l = 0; l < 16; l++)
        s += acc[l];
    for (; i < n; i++)
        s += p[i];
    return s;
#endif
}

static void read_worker(void *arg, int i, int nt)
{
    struct read_arg *a = arg;
    size_t lo, hi;
    share(a->n, i, nt, &lo, &hi);
    float s = 0;
    for (int p = 0; p < a->passes; p++)
        s += sum_range(a->buf + lo, hi - lo);
    a->sink[i] = s;
}

struct ic_mb_stats ic_mb_read(struct ic_kern_pool *pool, const float *buf, size_t n, int passes,
                              int reps)
{
    static struct read_arg a; /* sink array is large; one benchmark at a time */
    a.buf = buf;
    a.n = n;
    a.passes = passes;
    double v[MAX_REPS];
    reps = reps > MAX_REPS ? MAX_REPS : reps;
    ic_kern_pool_run(pool, read_worker, &a); /* warm-up */
    for (int r = 0; r < reps; r++) {
        double t0 = ic_mb_now();
        ic_kern_pool_run(pool, read_worker, &a);
        v[r] = (double)n * sizeof(float) * (double)passes / (ic_mb_now() - t0);
    }
    return ic_mb_summary(v, reps);
}

/* ---- STREAM copy and triad (for reference only) ------------------------- */

struct stream_arg {
    float *a;       /* [n] written */
    const float *b; /* [n] */
    const float *c; /* [n], NULL for copy */
    size_t n;
};

static void stream_worker(void *arg, int i, int nt)
{
    struct stream_arg *s = arg;
    size_t lo, hi;
    share(s->n, i, nt, &lo, &hi);
    float *restrict a = s->a;
    const float *restrict b = s->b, *restrict c = s->c;
    if (c)
        for (size_t k = lo; k < hi; k++)
            a[k] = b[k] + 3.0f * c[k];
    else
        memcpy(a + lo, b + lo, (hi - lo) * sizeof(float));
}

static struct ic_mb_stats stream(struct ic_kern_pool *pool, struct stream_arg *s, int arrays,
                                 int reps)
{
    double v[MAX_REPS];
    reps = reps > MAX_REPS ? MAX_REPS : reps;
    ic_kern_pool_run(pool, stream_worker, s);
    for (int r = 0; r < reps; r++) {
        double t0 = ic_mb_now();
        ic_kern_pool_run(pool, stream_worker, s);
        v[r] = (double)s->n * sizeof(float) * arrays / (ic_mb_now() - t0);
    }
    return ic_mb_summary(v, reps);
}

struct ic_mb_stats ic_mb_copy(struct ic_kern_pool *pool, float *dst, const float *src, size_t n,
                              int reps)
{
    struct stream_arg s = {dst, src, NULL, n};
    return stream(pool, &s, 2, reps);
}

struct ic_mb_stats ic_mb_triad(struct ic_kern_pool *pool, float *a, const float *b,
                               const float *c, size_t n, int reps)
{
    struct stream_arg s = {a, b, c, n};
    return stream(pool, &s, 3, reps);
}

/* ---- FMA peak ------------------------------------------------------------ */

enum { FMA_ITERS = 1 << 22 };

struct fma_arg {
    float sink[MAX_THREADS];
    double flop_per_thread;
};

static void fma_worker(void *arg, int i, int nt)
{
    (void)nt;
    struct fma_arg *a = arg;
#if defined(__AVX512F__)
    /* 12 independent chains cover the FMA latency (4 cycles x 2 ports) */
    __m512 x[12];
    for (int k = 0; k < 12; k++)
        x[k] = _mm512_set1_ps(1.0f + 0.001f * (float)k);
    const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int it = 0; it < FMA_ITERS; it++)
        for (int k = 0; k < 12; k++)
            x[k] = _mm512_fmadd_ps(x[k], m, c);
    __m512 s = x[0];
    for (int k = 1; k < 12; k++)
        s = _mm512_add_ps(s, x[k]);
    a->sink[i] = _mm512_reduce_add_ps(s);
    a->flop_per_thread = (double)FMA_ITERS * 12 * 16 * 2;
#else
    float x[12][8];
    for (int k = 0; k < 12; k++)
        for (int l = 0; l < 8; l++)
            x[k][l] = 1.0f + 0.001f * (float)(k + l);
    for (int it = 0; it < FMA_ITERS / 4; it++)
        for (int k = 0; k < 12; k++)
            for (int l = 0; l < 8; l++)
                x[k][l] = x[k][l] * 0.999999f + 1e-7f;
    float s = 0;
    for (int k = 0; k < 12; k++)
        for (int l = 0; l < 8; l++)
            s += x[k][l];
    a->sink[i] = s;
    a->flop_per_thread = (double)(FMA_ITERS / 4) * 12 * 8 * 2;
#endif
}

struct ic_mb_stats ic_mb_fma_peak(struct ic_kern_pool *pool, int reps)
{
    static struct fma_arg a;
    double v[MAX_REPS];
    reps = reps > MAX_REPS ? MAX_REPS : reps;
    ic_kern_pool_run(pool, fma_worker, &a);
    for (int r = 0; r < reps; r++) {
        double t0 = ic_mb_now();
        ic_kern_pool_run(pool, fma_worker, &a);
        v[r] = a.flop_per_thread * ic_kern_pool_threads(pool) / (ic_mb_now() - t0);
    }
    return ic_mb_summary(v, reps);
}

/* ---- fork/join ------------------------------------------------------------ */

static void empty_worker(void *arg, int i, int nt)
{
    (void)arg;
    (void)i;
    (void)nt;
}

struct ic_mb_stats ic_mb_fork_join(struct ic_kern_pool *pool, int reps)
{
    enum { REGIONS = 2000 };
    double v[MAX_REPS];
    reps = reps > MAX_REPS ? MAX_REPS : reps;
    for (int k = 0; k < 100; k++)
        ic_kern_pool_run(pool, empty_worker, NULL);
    for (int r = 0; r < reps; r++) {
        double t0 = ic_mb_now();
        for (int k = 0; k < REGIONS; k++)
            ic_kern_pool_run(pool, empty_worker, NULL);
        v[r] = (ic_mb_now() - t0) / REGIONS;
    }
    return ic_mb_summary(v, reps);
}

/* ---- matmul ---------------------------------------------------------------- */

struct ic_mb_stats ic_mb_matmul(struct ic_kern_pool *pool, const struct ic_kern_matrix *w,
                                uint32_t rows, uint32_t cols, uint32_t batch, int reps)
{
    struct ic_mb_stats none = {0, 0, 0, 0};
    float *x = malloc(sizeof(float) * (size_t)batch * cols); /* [batch][cols] */
    float *y = malloc(sizeof(float) * (size_t)batch * rows); /* [batch][rows] */
    if (!x || !y) {
        free(x);
        free(y);
        return none;
    }
    for (size_t k = 0; k < (size_t)batch * cols; k++)
        x[k] = (float)((k * 2654435761u) % 1000) / 1000.0f - 0.5f;
    double v[MAX_REPS];
    reps = reps > MAX_REPS ? MAX_REPS : reps;
    ic_kern_matmul(pool, w, x, batch, y);
    for (int r = 0; r < reps; r++) {
        double t0 = ic_mb_now();
        ic_kern_matmul(pool, w, x, batch, y);
        v[r] = ic_mb_now() - t0;
    }
    free(x);
    free(y);
    return ic_mb_summary(v, reps);
}
