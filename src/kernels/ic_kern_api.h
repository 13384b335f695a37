/* ic_kern_api: every function the kernel files (ic_kern_simd.c, ic_kern.c,
 * ic_mbench.c) define, as one X-macro list, for runtime SIMD dispatch.
 *
 * A portable build (meson -Dnative=false, the default, on x86-64) compiles
 * those three files once per instruction set: AVX-512 (x86-64-v4 + VNNI),
 * AVX2 (x86-64-v3) and the x86-64 baseline, each with ic_kern_rename.h
 * force-included so that its functions carry a suffix (ic_kern_matmul_avx2).
 * ic_kern_dispatch.c defines the plain names as calls through the table of
 * the variant chosen once, at load, from what the CPU supports
 * (__builtin_cpu_supports) and INFCALC_SIMD. A matrix or kernel is made and
 * used by the same variant (its layout depends on the vector width), which
 * one choice per process guarantees. The pool (ic_kern_pool.c) is compiled
 * once.
 *
 * X(ret, name, params, args) for a function with a value, XV(name, params,
 * args) for a void one. Adding a function to those files means one line
 * here and one in ic_kern_rename.h (a missing line fails the link:
 * duplicate or missing symbols). */
#ifndef IC_KERN_API_H
#define IC_KERN_API_H

#include "ic_kern.h"
#include "ic_mbench.h"

#define IC_KERN_API(X, XV)                                                                      \
    X(const char *, ic_kern_wtype_name, (enum ic_kern_wtype t), (t))                            \
    X(const char *, ic_kern_kvtype_name, (enum ic_kern_kvtype t), (t))                          \
    X(uint32_t, ic_kern_wtype_bits, (enum ic_kern_wtype t), (t))                                \
    X(double, ic_kern_uniform, (uint64_t seed, uint64_t i), (seed, i))                          \
    X(uint16_t, ic_kern_f32_to_bf16, (float f), (f))                                            \
    X(float, ic_kern_bf16_to_f32, (uint16_t h), (h))                                            \
    X(int, ic_kern_matrix_create,                                                               \
      (enum ic_kern_wtype t, uint32_t rows, uint32_t cols, uint64_t seed,                       \
       struct ic_kern_matrix **out, struct ic_err *err),                                        \
      (t, rows, cols, seed, out, err))                                                          \
    XV(ic_kern_matrix_free, (struct ic_kern_matrix * m), (m))                                   \
    X(uint64_t, ic_kern_matrix_bytes, (const struct ic_kern_matrix *m), (m))                    \
    X(uint32_t, ic_kern_matrix_rows, (const struct ic_kern_matrix *m), (m))                     \
    X(uint32_t, ic_kern_matrix_cols, (const struct ic_kern_matrix *m), (m))                     \
    XV(ic_kern_matrix_row, (const struct ic_kern_matrix *m, uint32_t r, float *out),            \
       (m, r, out))                                                                             \
    XV(ic_kern_matmul,                                                                          \
       (struct ic_kern_pool * pool, const struct ic_kern_matrix *w, const float *x,             \
        uint32_t batch, float *y),                                                              \
       (pool, w, x, batch, y))                                                                  \
    X(size_t, ic_kern_matmul_scratch_B, (const struct ic_kern_matrix *w, uint32_t batch),       \
      (w, batch))                                                                               \
    X(int, ic_kern_create,                                                                      \
      (const struct ic_kern_shape *shape, enum ic_kern_wtype wt, enum ic_kern_kvtype kvt,       \
       uint64_t seed, struct ic_kern_pool *pool, struct ic_kern **out, struct ic_err *err),     \
      (shape, wt, kvt, seed, pool, out, err))                                                   \
    XV(ic_kern_free, (struct ic_kern * k), (k))                                                 \
    XV(ic_kern_step,                                                                            \
       (struct ic_kern * k, uint32_t batch, const uint32_t *tokens, const uint32_t *pos,        \
        float *logits),                                                                         \
       (k, batch, tokens, pos, logits))                                                         \
    XV(ic_kern_row_work, (struct ic_kern * k, uint32_t batch), (k, batch))                     \
    X(int, ic_kern_set_cache,                                                                   \
      (struct ic_kern * k, uint32_t max_batch, uint32_t max_seq, struct ic_err *err),           \
      (k, max_batch, max_seq, err))                                                             \
    XV(ic_kern_fill_cache, (struct ic_kern * k, uint32_t b, uint32_t len, uint64_t seed),       \
       (k, b, len, seed))                                                                       \
    X(int, ic_kern_forward_nocache,                                                             \
      (const struct ic_kern *k, const uint32_t *tokens, uint32_t n, float *logits,              \
       struct ic_err *err),                                                                     \
      (k, tokens, n, logits, err))                                                              \
    X(const struct ic_kern_shape *, ic_kern_get_shape, (const struct ic_kern *k), (k))          \
    X(uint64_t, ic_kern_weight_bytes, (const struct ic_kern *k), (k))                           \
    X(double, ic_mb_now, (void), ())                                                            \
    X(struct ic_mb_stats, ic_mb_summary, (double *v, int n), (v, n))                            \
    X(struct ic_mb_stats, ic_mb_read,                                                           \
      (struct ic_kern_pool * pool, const float *buf, size_t n, int passes, int reps),           \
      (pool, buf, n, passes, reps))                                                             \
    X(struct ic_mb_stats, ic_mb_copy,                                                           \
      (struct ic_kern_pool * pool, float *dst, const float *src, size_t n, int reps),           \
      (pool, dst, src, n, reps))                                                                \
    X(struct ic_mb_stats, ic_mb_triad,                                                          \
      (struct ic_kern_pool * pool, float *a, const float *b, const float *c, size_t n,          \
       int reps),                                                                               \
      (pool, a, b, c, n, reps))                                                                 \
    X(struct ic_mb_stats, ic_mb_fma_peak, (struct ic_kern_pool * pool, int reps), (pool, reps)) \
    X(struct ic_mb_stats, ic_mb_fork_join, (struct ic_kern_pool * pool, int reps),              \
      (pool, reps))                                                                             \
    X(struct ic_mb_stats, ic_mb_matmul,                                                         \
      (struct ic_kern_pool * pool, const struct ic_kern_matrix *w, uint32_t rows,               \
       uint32_t cols, uint32_t batch, int reps),                                                \
      (pool, w, rows, cols, batch, reps))

/* Prototypes of one variant's functions, for the dispatcher and for tests
 * and benchmarks that call a variant directly:
 *   #define IC_KERN_DECL_SUFFIX _avx2
 *   IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
 *   #undef IC_KERN_DECL_SUFFIX
 * declares ic_kern_matmul_avx2 and the rest. */
#define IC_KERN_CAT2_(a, b) a##b
#define IC_KERN_CAT_(a, b) IC_KERN_CAT2_(a, b)
#define IC_KERN_DECL_X(ret, name, params, args) ret IC_KERN_CAT_(name, IC_KERN_DECL_SUFFIX) params;
#define IC_KERN_DECL_XV(name, params, args) void IC_KERN_CAT_(name, IC_KERN_DECL_SUFFIX) params;

#endif
