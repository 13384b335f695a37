/* bench_kernel: how close the reference decode kernel comes to the memory
 * bandwidth of the machine it runs on (figures printed, never asserted).
 *
 *   1. ic_kern_matmul at batch 1 on a weight matrix far larger than the LLC
 *      (16384 x 8192: 512 MiB fp32, 256 MiB bf16, 128 MiB int8), for 1 and 2
 *      threads: achieved weight read bandwidth, median of 7 timed calls after
 *      2 warm-up calls, next to a read-only bandwidth probe (ic_mb_read: a
 *      SIMD sum of a 1 GiB float array in the kernel's own build and SIMD
 *      variant, best of 5 after a warm-up pass) taken right before and
 *      right after.
 *      Two ratios, both to the mean of the two probes: the matmul's median
 *      (the figure asked for) and its best of the 7 (like against like: the
 *      probe is a best of 5, and on this noisy host a median of 7 sits
 *      5-15% under a best).
 *   2. ic_kern_step at batch 1 of a model whose weights are >= 128 MiB in
 *      every weight type (median of 7 steps), with its weight bandwidth and
 *      the same probe.
 * The machine is shared and its 2-thread bandwidth jumps between levels
 * (docs/measuring.md), so every figure is paired with a probe taken within
 * seconds of it and only the ratios are meant to be compared. */
#include "ic_kern.h"
#include "ic_mbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- read-only bandwidth probe ------------------------------------------ */

/* Best of 5 passes over the buffer, in B/s: ic_mb_read, which is built as
 * the kernel is (one variant per instruction set, chosen at run time, or
 * -march=native with -Dnative=true: src/meson.build), so the probe sums with
 * the same vector width the kernel's matmul reads with. (This file's own
 * AVX-512 loop before: bench/ is built without the kernel's -march flags, so
 * it compiled to its scalar fallback and the 1-thread ratios read 1.36-1.42.) */
static double probe_B_s(struct ic_kern_pool *pool, const float *buf, size_t n)
{
    return ic_mb_read(pool, buf, n, 1, 5).hi;
}

/* ---- the benchmark -------------------------------------------------------- */

enum { WARM = 2, REPS = 7 };

int main(void)
{
    struct ic_err e = {0};
    const size_t probe_n = (size_t)1 << 28; /* 1 GiB of float */
    float *pbuf = aligned_alloc(64, probe_n * sizeof(float));
    if (!pbuf) {
        fprintf(stderr, "bench_kernel: out of memory for the 1 GiB probe buffer\n");
        return 1;
    }
    for (size_t i = 0; i < probe_n; i++)
        pbuf[i] = (float)(i & 1023) * 1e-3f;

    const uint32_t N = 16384, K = 8192;
    struct ic_kern_matrix *m[IC_KW_COUNT] = {0};
    for (int t = 0; t < IC_KW_COUNT; t++)
        if (ic_kern_matrix_create((enum ic_kern_wtype)t, N, K, 1234, &m[t], &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
    float *x = malloc(sizeof(float) * K), *y = malloc(sizeof(float) * N); /* [K], [N] */
    if (!x || !y)
        return 1;
    for (uint32_t c = 0; c < K; c++)
        x[c] = (float)ic_kern_uniform(99, c);

    printf("%s kernel and probe; matmul, batch 1, %u x %u weights (LLC 32 MiB); "
           "GB/s = 1e9 B/s; probes best of 5\n",
           ic_kern_simd(), N, K);
    printf("%-5s %3s %8s %12s %10s %10s %12s %9s %9s\n", "type", "thr", "MiB", "probe_before",
           "mm_median", "mm_best", "probe_after", "ratio_med", "ratio_best");
    for (int nt = 1; nt <= 2; nt++) {
        struct ic_kern_pool *pool;
        if (ic_kern_pool_create(nt, &pool, &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
        for (int t = 0; t < IC_KW_COUNT; t++) {
            const double bytes = (double)ic_kern_matrix_bytes(m[t]);
            const double before = probe_B_s(pool, pbuf, probe_n);
            double ts[REPS];
            for (int rep = 0; rep < WARM + REPS; rep++) {
                double t0 = now_s();
                ic_kern_matmul(pool, m[t], x, 1, y);
                if (rep >= WARM)
                    ts[rep - WARM] = now_s() - t0;
            }
            const double bw = bytes / median(ts, REPS), best = bytes / ts[0]; /* ts sorted */
            const double after = probe_B_s(pool, pbuf, probe_n), probe = 0.5 * (before + after);
            printf("%-5s %3d %8.1f %12.2f %10.2f %10.2f %12.2f %9.3f %9.3f\n",
                   ic_kern_wtype_name((enum ic_kern_wtype)t), nt, bytes / 1048576.0, before / 1e9,
                   bw / 1e9, best / 1e9, after / 1e9, bw / probe, best / probe);
        }
        ic_kern_pool_free(pool);
    }
    for (int t = 0; t < IC_KW_COUNT; t++)
        ic_kern_matrix_free(m[t]);
    free(x);
    free(y);

    /* A 3-layer model, 152 M weights: 152 MB in int8 (> 128 MiB, 4.5x LLC),
     * 608 MB in fp32; decode at position 128 of a filled cache. */
    const struct ic_kern_shape shape = {.dim = 2048,
                                        .hidden_dim = 5632,
                                        .n_layers = 3,
                                        .n_heads = 16,
                                        .n_kv_heads = 4,
                                        .head_dim = 128,
                                        .vocab = 8192,
                                        .max_batch = 1,
                                        .max_seq = 256};
    printf("\nstep, batch 1, pos 128..134, D %u F %u L %u H %u H_kv %u d %u V %u, bf16 KV\n",
           shape.dim, shape.hidden_dim, shape.n_layers, shape.n_heads, shape.n_kv_heads,
           shape.head_dim, shape.vocab);
    printf("%-5s %3s %10s %9s %12s %12s %12s %7s\n", "type", "thr", "MiB", "step_ms",
           "probe_before", "weights", "probe_after", "ratio");
    for (int t = 0; t < IC_KW_COUNT; t++) {
        for (int nt = 1; nt <= 2; nt++) {
            struct ic_kern_pool *pool;
            struct ic_kern *k;
            if (ic_kern_pool_create(nt, &pool, &e) ||
                ic_kern_create(&shape, (enum ic_kern_wtype)t, IC_KKV_BF16, 42, pool, &k, &e)) {
                ic_err_print(stderr, &e);
                return 1;
            }
            ic_kern_fill_cache(k, 0, 128, 7);
            const double bytes = (double)ic_kern_weight_bytes(k);
            const double before = probe_B_s(pool, pbuf, probe_n);
            double ts[REPS];
            for (int rep = 0; rep < WARM + REPS; rep++) {
                const uint32_t tok = (uint32_t)rep * 11u, pos = 128 + (uint32_t)(rep % REPS);
                double t0 = now_s();
                ic_kern_step(k, 1, &tok, &pos, NULL);
                if (rep >= WARM)
                    ts[rep - WARM] = now_s() - t0;
            }
            const double step_s = median(ts, REPS);
            const double after = probe_B_s(pool, pbuf, probe_n);
            printf("%-5s %3d %10.1f %9.2f %12.2f %12.2f %12.2f %7.3f\n",
                   ic_kern_wtype_name((enum ic_kern_wtype)t), nt, bytes / 1048576.0,
                   step_s * 1e3, before / 1e9, bytes / step_s / 1e9, after / 1e9,
                   bytes / step_s / (0.5 * (before + after)));
            ic_kern_free(k);
            ic_kern_pool_free(pool);
        }
    }
    free(pbuf);
    return 0;
}
