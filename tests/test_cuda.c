/* CUDA: the CUDA decode step against the CPU reference kernel (ic_kern), a
 * differential test: the same shape and seed on both
 * sides (so the same bf16 / int8 weights: the device generates them with the
 * CPU's generator), the same tokens at different positions per sequence,
 * several steps so that each side's own KV cache feeds the next, logits
 * compared by ||gpu - cpu|| / ||cpu|| per step.
 *
 * Tolerances:
 *  - batch <= IC_CUDA_GEMV_MAX (GEMV path, fp32 activations on both sides):
 *    only summation order and expf differ, and the bf16 rounding of a
 *    cached k or v can fall the other way when its fp32 value differs in the
 *    last bits; 2e-3.
 *  - batch 16 (tensor cores): activations are rounded to bf16 (relative
 *    2^-9 ~ 2e-3 per element) before every matmul, ~9 matmuls deep in this
 *    2-layer model: 3e-2 (METHOD.md: bf16 operands land between 1e-3 and
 *    1e-2 per product).
 * Logits are poisoned with NaN before each GPU step (an unwritten element
 * fails the comparison). Exits 77 (skip) in a build without CUDA or on a
 * machine without a device. Tests run in this process (no fork: a CUDA
 * context does not survive fork). */
#include "ic_cuda.h"
#include "ic_kern.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct ic_kern_shape shape = {
    .dim = 256, .hidden_dim = 528, .n_layers = 2, .n_heads = 8, .n_kv_heads = 2,
    .head_dim = 64, .vocab = 500, .max_batch = 16, .max_seq = 64,
};

/* ||a - b|| / ||b|| over n; NaN anywhere gives NaN. */
static double rel_l2(const float *a, const float *b, size_t n)
{
    double d = 0, r = 0;
    for (size_t i = 0; i < n; i++) {
        d += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        r += (double)b[i] * b[i];
    }
    return sqrt(d / r);
}

/* Steps both kernels `steps` times at batch and compares every step's logits. */
static void compare(const struct ic_kern_shape *s, enum ic_kern_wtype wt, uint32_t batch,
                    int steps, uint32_t fill_len, double tol)
{
    struct ic_err e = {0};
    struct ic_kern_pool *pool = NULL;
    struct ic_kern *ck = NULL;
    struct ic_cuda_kern *gk = NULL;
    ck_assert_msg(ic_kern_pool_create(2, &pool, &e) == 0, "pool: %s", e.msg);
    ck_assert_msg(ic_kern_create(s, wt, IC_KKV_BF16, 42, pool, &ck, &e) == 0, "cpu: %s", e.msg);
    ck_assert_msg(ic_cuda_kern_create(s, wt, 42, &gk, &e) == 0, "cuda: %s", e.msg);
    const size_t n = (size_t)batch * s->vocab;
    float *lc = malloc(n * sizeof *lc), *lg = malloc(n * sizeof *lg); /* [batch][V] */
    uint32_t tok[16], pos[16];
    ck_assert(lc && lg && batch <= 16);
    for (uint32_t b = 0; b < batch && fill_len; b++) {
        const uint32_t len = fill_len - 7 * b; /* different lengths per sequence */
        ic_kern_fill_cache(ck, b, len, 5);
        ck_assert_msg(ic_cuda_kern_fill_cache(gk, b, len, 5, &e) == 0, "fill: %s", e.msg);
    }
    for (int st = 0; st < steps; st++) {
        for (uint32_t b = 0; b < batch; b++) {
            tok[b] = (uint32_t)(b * 131 + (uint32_t)st * 17 + 3) % s->vocab;
            pos[b] = fill_len ? fill_len - 7 * b + (uint32_t)st : b % 5 + (uint32_t)st;
        }
        for (size_t i = 0; i < n; i++)
            lg[i] = NAN;
        ic_kern_step(ck, batch, tok, pos, lc);
        ck_assert_msg(ic_cuda_kern_step(gk, batch, tok, pos, lg, &e) == 0, "step: %s", e.msg);
        const double r = rel_l2(lg, lc, n);
        ck_assert_msg(r <= tol, "%s weights, batch %u, step %d: ||gpu - cpu|| / ||cpu|| = %.3g "
                      "(tolerance %.3g)", ic_kern_wtype_name(wt), batch, st, r, tol);
    }
    free(lc);
    free(lg);
    ic_cuda_kern_free(gk);
    ic_kern_free(ck);
    ic_kern_pool_free(pool);
}

START_TEST(test_gemv_path)
{
    compare(&shape, IC_KW_BF16, 3, 4, 0, 2e-3);
    compare(&shape, IC_KW_INT8, 3, 4, 0, 2e-3);
    compare(&shape, IC_KW_BF16, 1, 2, 0, 2e-3);
}
END_TEST

START_TEST(test_tensor_core_path)
{
    compare(&shape, IC_KW_BF16, 16, 3, 0, 3e-2);
    compare(&shape, IC_KW_INT8, 16, 3, 0, 3e-2);
}
END_TEST

/* Long contexts: the cache filled on both sides by the shared generator,
 * attention split over many chunks (max_seq 2048 at batch 2: 32 splits of
 * 64 positions on a 132-SM chip). */
START_TEST(test_split_k_long_context)
{
    struct ic_kern_shape s = shape;
    s.max_batch = 4;
    s.max_seq = 2048;
    compare(&s, IC_KW_BF16, 2, 2, 1900, 2e-3);
    compare(&s, IC_KW_INT8, 4, 2, 2000, 2e-3);
}
END_TEST

START_TEST(test_rejects_what_it_cannot_run)
{
    struct ic_err e = {0};
    struct ic_cuda_kern *k = NULL;
    ck_assert_int_eq(ic_cuda_kern_create(&shape, IC_KW_FP32, 1, &k, &e), IC_EINVAL);
    ck_assert_ptr_null(k);
    struct ic_kern_shape s = shape;
    s.head_dim = 48; /* 6 lanes per position: not a power of two */
    ck_assert_int_eq(ic_cuda_kern_create(&s, IC_KW_BF16, 1, &k, &e), IC_EINVAL);
    ck_assert_ptr_null(k);
    s = shape;
    s.n_heads = 24; /* 12 query heads per KV head */
    ck_assert_int_eq(ic_cuda_kern_create(&s, IC_KW_BF16, 1, &k, &e), IC_EINVAL);
    ck_assert_ptr_null(k);
}
END_TEST

int main(void)
{
    struct ic_cuda_info info;
    struct ic_err e = {0};
    if (!ic_cuda_built()) {
        printf("SKIP: this build has no CUDA support\n");
        return 77;
    }
    if (ic_cuda_info(&info, &e) != 0) {
        printf("SKIP: %s\n", e.msg);
        return 77;
    }
    printf("CUDA device 0: %s, sm_%d%d, %d SMs\n", info.name, info.cc_major, info.cc_minor,
           info.sms);
    Suite *su = suite_create("cuda");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_gemv_path);
    tcase_add_test(tc, test_tensor_core_path);
    tcase_add_test(tc, test_split_k_long_context);
    tcase_add_test(tc, test_rejects_what_it_cannot_run);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
