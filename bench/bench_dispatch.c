/* bench_dispatch: the runtime-dispatched kernel against a -march=native
 * build of the same files, in one process, interleaved (docs/portable.md).
 *
 * The native build is compiled for this benchmark only, its functions
 * suffixed _native (ic_kern_api.h); the dispatched one is what infcalc
 * runs (ic_kern_simd() names the variant it chose). Per case, REPS rounds,
 * each timing one native and one dispatched call in alternating order, so
 * both see the same state of this shared machine; the figures are the two
 * medians and their ratio (dispatched time / native time: 1.00 is equal,
 * above 1 the dispatched build is slower).
 * A second column of ratios pairs the rounds: the median (and quartiles)
 * of each round's dispatched / native.
 *   bench_dispatch [REPS [THREADS]]   (default 21 rounds, 1 and 2 threads) */
#include "ic_kern_api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define IC_KERN_DECL_SUFFIX _native
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX

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

enum { MAX_REPS = 201, WARM = 2 };

/* The medians of both, and the paired ratios (dispatched / native of the
 * same round): their median and quartiles, the figure least moved by the
 * load of other processes drifting over the run. */
static void report(const char *what, double bytes, double *tn, double *td, int reps)
{
    double ratio[MAX_REPS];
    for (int i = 0; i < reps; i++)
        ratio[i] = td[i] / tn[i];
    const double mn = median(tn, reps), md = median(td, reps);
    const double rm = median(ratio, reps); /* sorts ratio */
    printf("%-24s %9.3f %9.3f %8.2f %8.2f %7.3f %7.3f %7.3f %7.3f\n", what, mn * 1e3, md * 1e3,
           bytes / mn / 1e9, bytes / md / 1e9, md / mn, rm, ratio[reps / 4],
           ratio[(3 * reps) / 4]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const int reps = argc > 1 ? atoi(argv[1]) : 21;
    const int max_nt = argc > 2 ? atoi(argv[2]) : 2, min_nt = argc > 2 ? max_nt : 1;
    if (reps < 1 || reps > MAX_REPS || max_nt < 1 || max_nt > 256) {
        fprintf(stderr, "usage: bench_dispatch [REPS 1..%d [THREADS]]\n", MAX_REPS);
        return 2;
    }
    struct ic_err e = {0};
    const uint32_t N = 8192, K = 8192;
    float *x = malloc(sizeof(float) * K * 64), *y = malloc(sizeof(float) * N * 64);
    if (!x || !y)
        return 1;
    for (uint32_t c = 0; c < K * 64; c++)
        x[c] = (float)ic_kern_uniform(99, c);

    printf("runtime-dispatched variant: %s; native: -march=native; %d interleaved rounds; "
           "ratios: dispatched time / native time\n", ic_kern_simd(), reps);
    printf("%-24s %9s %9s %8s %8s %7s %7s %7s %7s\n", "case", "nat_ms", "disp_ms", "nat_GB/s",
           "disp_GB/s", "med/med", "paired", "q1", "q3");
    double tn[MAX_REPS], td[MAX_REPS];
    for (int nt = min_nt; nt <= max_nt; nt++) {
        struct ic_kern_pool *pool;
        if (ic_kern_pool_create(nt, &pool, &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
        for (int t = 0; t < IC_KW_COUNT; t++) {
            struct ic_kern_matrix *mn, *md;
            if (ic_kern_matrix_create_native((enum ic_kern_wtype)t, N, K, 1234, &mn, &e) ||
                ic_kern_matrix_create((enum ic_kern_wtype)t, N, K, 1234, &md, &e)) {
                ic_err_print(stderr, &e);
                return 1;
            }
            const uint32_t batches[] = {1, 64};
            for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
                const uint32_t b = batches[bi];
                for (int r = 0; r < WARM + reps; r++) {
                    double a = 0, d = 0;
                    for (int o = 0; o < 2; o++) {
                        const bool nat = (o == 0) == (r % 2 == 0);
                        double t0 = now_s();
                        if (nat)
                            ic_kern_matmul_native(pool, mn, x, b, y);
                        else
                            ic_kern_matmul(pool, md, x, b, y);
                        *(nat ? &a : &d) = now_s() - t0;
                    }
                    if (r >= WARM) {
                        tn[r - WARM] = a;
                        td[r - WARM] = d;
                    }
                }
                char what[64];
                snprintf(what, sizeof what, "matmul %s b%u t%d",
                         ic_kern_wtype_name((enum ic_kern_wtype)t), b, nt);
                report(what, (double)ic_kern_matrix_bytes(md), tn, td, reps);
            }
            ic_kern_matrix_free_native(mn);
            ic_kern_matrix_free(md);
        }

        /* a decode step of a 3-layer model at position 128, bf16 weights and KV */
        const struct ic_kern_shape shape = {.dim = 2048, .hidden_dim = 5632, .n_layers = 3,
                                            .n_heads = 16, .n_kv_heads = 4, .head_dim = 128,
                                            .vocab = 8192, .max_batch = 8, .max_seq = 256};
        struct ic_kern *kn, *kd;
        if (ic_kern_create_native(&shape, IC_KW_BF16, IC_KKV_BF16, 42, pool, &kn, &e) ||
            ic_kern_create(&shape, IC_KW_BF16, IC_KKV_BF16, 42, pool, &kd, &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
        for (uint32_t b = 0; b < 8; b++) {
            ic_kern_fill_cache_native(kn, b, 128, 7);
            ic_kern_fill_cache(kd, b, 128, 7);
        }
        const uint32_t toks[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        for (uint32_t batch = 1; batch <= 8; batch *= 8) {
            for (int r = 0; r < WARM + reps; r++) {
                uint32_t pos[8];
                for (int i = 0; i < 8; i++)
                    pos[i] = 128 + (uint32_t)(r % 64);
                double a = 0, d = 0;
                for (int o = 0; o < 2; o++) {
                    const bool nat = (o == 0) == (r % 2 == 0);
                    double t0 = now_s();
                    if (nat)
                        ic_kern_step_native(kn, batch, toks, pos, NULL);
                    else
                        ic_kern_step(kd, batch, toks, pos, NULL);
                    *(nat ? &a : &d) = now_s() - t0;
                }
                if (r >= WARM) {
                    tn[r - WARM] = a;
                    td[r - WARM] = d;
                }
            }
            char what[64];
            snprintf(what, sizeof what, "step bf16 b%u t%d", batch, nt);
            report(what, (double)ic_kern_weight_bytes(kd), tn, td, reps);
        }
        ic_kern_free_native(kn);
        ic_kern_free(kd);
        ic_kern_pool_free(pool);
    }
    free(x);
    free(y);
    return 0;
}
