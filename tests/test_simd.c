/* test_simd: every SIMD variant of the kernel that this CPU runs gives the
 * matmul of the reference (dequantized rows, dot products in double), for
 * each weight type, at batches below and above the register tile and with
 * column tails; and the variant chosen is the one INFCALC_SIMD asks for.
 *   test_simd [EXPECTED_VARIANT]
 * Exits 77 (skip) in a build without runtime dispatch (-Dnative=true). */
#include "ic_kern_api.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IC_TEST_DISPATCH
#define IC_KERN_DECL_SUFFIX _avx512
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX
#define IC_KERN_DECL_SUFFIX _avx2
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX
#define IC_KERN_DECL_SUFFIX _portable
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX

struct variant {
    const char *name;
    int (*create)(enum ic_kern_wtype, uint32_t, uint32_t, uint64_t, struct ic_kern_matrix **,
                  struct ic_err *);
    void (*matmul)(struct ic_kern_pool *, const struct ic_kern_matrix *, const float *, uint32_t,
                   float *);
    void (*row)(const struct ic_kern_matrix *, uint32_t, float *);
    void (*release)(struct ic_kern_matrix *);
};

static const struct variant variants[] = {
    {"avx512", ic_kern_matrix_create_avx512, ic_kern_matmul_avx512, ic_kern_matrix_row_avx512,
     ic_kern_matrix_free_avx512},
    {"avx2", ic_kern_matrix_create_avx2, ic_kern_matmul_avx2, ic_kern_matrix_row_avx2,
     ic_kern_matrix_free_avx2},
    {"portable", ic_kern_matrix_create_portable, ic_kern_matmul_portable,
     ic_kern_matrix_row_portable, ic_kern_matrix_free_portable},
};

static int check(const struct variant *v, struct ic_kern_pool *pool, enum ic_kern_wtype t,
                 uint32_t rows, uint32_t cols, uint32_t batch)
{
    struct ic_err e = {0};
    struct ic_kern_matrix *m;
    if (v->create(t, rows, cols, 77, &m, &e)) {
        ic_err_print(stderr, &e);
        return 1;
    }
    float *x = malloc(sizeof(float) * batch * cols), *y = malloc(sizeof(float) * batch * rows);
    float *w = malloc(sizeof(float) * cols);
    if (!x || !y || !w)
        return 1;
    for (uint32_t i = 0; i < batch * cols; i++)
        x[i] = (float)ic_kern_uniform(5, i);
    v->matmul(pool, m, x, batch, y);
    int bad = 0;
    for (uint32_t r = 0; r < rows && !bad; r++) {
        v->row(m, r, w);
        for (uint32_t b = 0; b < batch && !bad; b++) {
            double ref = 0, mag = 0;
            for (uint32_t c = 0; c < cols; c++) {
                ref += (double)w[c] * (double)x[b * cols + c];
                mag += fabs((double)w[c] * (double)x[b * cols + c]);
            }
            if (!(fabs((double)y[b * rows + r] - ref) <= 1e-3 * mag + 1e-6)) {
                fprintf(stderr, "%s %s %ux%u batch %u: y[%u][%u] = %.9g, reference %.9g\n",
                        v->name, ic_kern_wtype_name(t), rows, cols, batch, b, r,
                        (double)y[b * rows + r], ref);
                bad = 1;
            }
        }
    }
    free(x);
    free(y);
    free(w);
    v->release(m);
    return bad;
}
#endif

int main(int argc, char **argv)
{
#ifndef IC_TEST_DISPATCH
    (void)argc;
    (void)argv;
    printf("skip: the kernel is built once (%s), without runtime dispatch\n", ic_kern_simd());
    return 77;
#else
    const char *chosen = ic_kern_simd();
    if (argc > 1 && strcmp(chosen, argv[1]) != 0) {
        fprintf(stderr, "INFCALC_SIMD=%s: chose %s, expected %s\n",
                getenv("INFCALC_SIMD") ? getenv("INFCALC_SIMD") : "", chosen, argv[1]);
        return 1;
    }
    struct ic_err e = {0};
    struct ic_kern_pool *pool;
    if (ic_kern_pool_create(2, &pool, &e)) {
        ic_err_print(stderr, &e);
        return 1;
    }
    int bad = 0, ran = 0;
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        if (!ic_kern_simd_supported(variants[i].name)) {
            printf("%s: not supported by this CPU, not run\n", variants[i].name);
            continue;
        }
        ran++;
        for (int t = 0; t < IC_KW_COUNT; t++) {
            const uint32_t shapes[][3] = {{37, 300, 1}, {64, 4096 + 77, 3}, {13, 1000, 70}};
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                bad |= check(&variants[i], pool, (enum ic_kern_wtype)t, shapes[s][0],
                             shapes[s][1], shapes[s][2]);
        }
        printf("%s: matmul matches the reference (fp32, bf16, int8)\n", variants[i].name);
    }
    ic_kern_pool_free(pool);
    printf("chosen: %s\n", chosen);
    return bad || !ran;
#endif
}
