/* ic_kern: the reference decode kernel infcalc times to check itself.
 *
 * A real transformer decode step for a batch of sequences, written the
 * llama2.c way (plain loops, a shape comment on every buffer, buffers
 * allocated once, nothing allocated inside a step), multi-threaded over all
 * cores with a persistent thread pool, AVX-512 / AVX2 where the compiler and
 * CPU have them and a portable fallback otherwise:
 *   x = embed[token]
 *   per layer: RMSNorm -> q, k, v projections -> RoPE on q and k -> append
 *   k, v to the sequence's cache -> GQA attention over the cache (softmax of
 *   q.k / sqrt(head_dim)) -> output projection + residual -> RMSNorm ->
 *   SwiGLU MLP (w2(silu(w1 x) * w3 x)) + residual
 *   final RMSNorm -> LM head -> logits
 * Weights are fp32, bf16 or int8 (one fp32 scale per output row); the KV
 * cache bf16 or int8 (one fp32 scale per cached head vector). Weights are
 * deterministic random numbers made in memory from a seed: nothing is
 * downloaded. The embedding table is always fp32 and only B rows of it are
 * read per step. */
#ifndef IC_KERN_H
#define IC_KERN_H

#include "ic_err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ic_kern_wtype { IC_KW_FP32, IC_KW_BF16, IC_KW_INT8, IC_KW_COUNT };

/* Largest head_dim the kernel takes (a widened head vector lives on the stack). */
#define IC_KERN_MAX_HEAD_DIM 512
enum ic_kern_kvtype { IC_KKV_BF16, IC_KKV_INT8, IC_KKV_COUNT };

/* The SIMD variant this process runs: "avx512", "avx2" or "portable" when
 * chosen at run time (the default build; INFCALC_SIMD may ask for a
 * narrower one), or "... (compile-time)" in a -Dnative build. */
const char *ic_kern_simd(void);
/* Whether this CPU runs the variant named ("avx512", "avx2", "portable"):
 * false for every name in a build without runtime dispatch. */
bool ic_kern_simd_supported(const char *name);

const char *ic_kern_wtype_name(enum ic_kern_wtype t);
const char *ic_kern_kvtype_name(enum ic_kern_kvtype t);
/* Bits per stored weight (8 for int8: the per-row scales are metadata). */
uint32_t ic_kern_wtype_bits(enum ic_kern_wtype t);

struct ic_kern_shape {
    uint32_t dim;        /* D: residual width */
    uint32_t hidden_dim; /* F: MLP width */
    uint32_t n_layers;   /* L */
    uint32_t n_heads;    /* H: query heads; n_heads * head_dim need not equal dim */
    uint32_t n_kv_heads; /* H_kv: divides n_heads (GQA group = H / H_kv) */
    uint32_t head_dim;   /* d: even (RoPE rotates pairs) */
    uint32_t vocab;      /* V */
    uint32_t max_batch;  /* sequences the cache holds */
    uint32_t max_seq;    /* tokens each sequence's cache holds */
};

/* ---- thread pool --------------------------------------------------------
 * Persistent workers, so a step pays one wake-up and one join per parallel
 * region rather than thread creation. */
struct ic_kern_pool;

/* n_threads 0 = one per online CPU. */
int ic_kern_pool_create(int n_threads, struct ic_kern_pool **out, struct ic_err *err);
void ic_kern_pool_free(struct ic_kern_pool *pool);
int ic_kern_pool_threads(const struct ic_kern_pool *pool);
/* Runs fn(arg, i, n) on every thread i of n (the caller is thread 0) and
 * returns when all have finished. */
void ic_kern_pool_run(struct ic_kern_pool *pool, void (*fn)(void *arg, int i, int n), void *arg);
/* Parallel regions (ic_kern_pool_run calls) run so far: a step's count of
 * fork/joins is the difference across it. Work too small to be worth a
 * wake-up runs inline on the caller and is not counted. */
uint64_t ic_kern_pool_runs(const struct ic_kern_pool *pool);
/* Scratch memory the pool's user may use between regions (the matmul keeps
 * its quantized activations there): at least n_B bytes, 64-byte aligned,
 * owned by the pool and valid until the next call or ic_kern_pool_free.
 * Grows only when n_B exceeds what it holds (so reserving the largest size
 * up front makes later calls allocation-free); NULL when it cannot grow. */
void *ic_kern_pool_scratch(struct ic_kern_pool *pool, size_t n_B);

/* ---- matrices and the matmul primitive ----------------------------------
 * W is rows x cols, row-major, in the weight type; int8 rows carry an fp32
 * scale each. y[b][r] = sum_c W[r][c] * x[b][c] for b < batch. The decode
 * step and the microbenchmarks use this same routine. */
struct ic_kern_matrix;

/* Deterministic random entries, uniform in [-a, a] with a = 1/sqrt(cols). */
int ic_kern_matrix_create(enum ic_kern_wtype t, uint32_t rows, uint32_t cols, uint64_t seed,
                          struct ic_kern_matrix **out, struct ic_err *err);
void ic_kern_matrix_free(struct ic_kern_matrix *m);
/* Bytes the matmul reads from W: rows * cols * bits / 8 (+ int8 row scales). */
uint64_t ic_kern_matrix_bytes(const struct ic_kern_matrix *m);

/* x: [batch][cols] fp32, y: [batch][rows] fp32; rows split over the pool's
 * threads. batch <= 256. */
void ic_kern_matmul(struct ic_kern_pool *pool, const struct ic_kern_matrix *w, const float *x,
                    uint32_t batch, float *y);

/* Pool scratch bytes ic_kern_matmul needs for w at this batch (0 for most
 * types); ic_kern_create reserves the largest so a step never allocates. A
 * matmul that cannot get them falls back to a slow plain loop. */
size_t ic_kern_matmul_scratch_B(const struct ic_kern_matrix *w, uint32_t batch);

uint32_t ic_kern_matrix_rows(const struct ic_kern_matrix *m);
uint32_t ic_kern_matrix_cols(const struct ic_kern_matrix *m);
/* Row r of W as the matmul sees it, dequantized to fp32 (int8: times its row
 * scale). out: [cols]. For references and tests; r < rows. */
void ic_kern_matrix_row(const struct ic_kern_matrix *m, uint32_t r, float *out);

/* The generator behind every random number of the kernel: uniform in
 * [-1, 1), a pure function of (seed, i) (counter-based splitmix64), so a
 * matrix made from one seed holds the same underlying values whatever its
 * weight type. */
double ic_kern_uniform(uint64_t seed, uint64_t i);
/* fp32 -> bf16 bits, round to nearest even (NaN stays NaN); and back (exact). */
uint16_t ic_kern_f32_to_bf16(float f);
float ic_kern_bf16_to_f32(uint16_t h);

/* ---- the model ----------------------------------------------------------- */
struct ic_kern;

/* Allocates weights (random, from seed), the KV cache for max_batch x
 * max_seq tokens and every activation buffer. pool is borrowed and must
 * outlive the kernel. Fails with IC_EINVAL on an inconsistent shape, IC_ENOMEM
 * when the buffers do not fit. */
int ic_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt,
                   enum ic_kern_kvtype kvt, uint64_t seed, struct ic_kern_pool *pool,
                   struct ic_kern **out, struct ic_err *err);
void ic_kern_free(struct ic_kern *k);

/* One decode step: sequence b (b < batch) takes token tokens[b] at position
 * pos[b] (its cache then holds pos[b] tokens; pos[b] < max_seq), appends its
 * k and v and attends over pos[b] + 1 positions. logits: [batch][vocab], or
 * NULL to leave them in the kernel's own buffer. No allocation. */
void ic_kern_step(struct ic_kern *k, uint32_t batch, const uint32_t *tokens,
                  const uint32_t *pos, float *logits);

/* One layer's row work for sequences 0..batch-1, as a step runs it between
 * its matmuls and attention: the residual add and RMSNorm after the
 * attention's output projection, the SwiGLU, the residual add and RMSNorm
 * after the FFN (of layer 0's weights), over the kernel's own activations,
 * which it overwrites; the parallel regions a step runs for them (one per
 * operation when batch > 1). For microbenchmarks: what a step costs beyond
 * its matmuls and attention, timed in cache. No allocation. */
void ic_kern_row_work(struct ic_kern *k, uint32_t batch);

/* Reallocates the KV cache and every buffer sized by the batch for
 * max_batch sequences of max_seq tokens each (the shape's max_batch and
 * max_seq change; weights stay). The cache contents are lost. IC_EINVAL on a
 * zero size, IC_ENOMEM when the new buffers do not fit, and then the kernel
 * is left as it was. */
int ic_kern_set_cache(struct ic_kern *k, uint32_t max_batch, uint32_t max_seq,
                      struct ic_err *err);

/* Fills the first len positions of sequence b's cache, every layer, with
 * deterministic random k and v (what a prefill would leave, without paying
 * for one), so steps can be timed at long contexts. */
void ic_kern_fill_cache(struct ic_kern *k, uint32_t b, uint32_t len, uint64_t seed);

/* Reference without a cache: the logits of the last of tokens[0..n), computed
 * by running the whole sequence through every layer with causal attention
 * recomputed from scratch (fp32 k and v, never quantized). For tests. */
int ic_kern_forward_nocache(const struct ic_kern *k, const uint32_t *tokens, uint32_t n,
                            float *logits, struct ic_err *err);

const struct ic_kern_shape *ic_kern_get_shape(const struct ic_kern *k);
/* Weight bytes one step reads: every matrix (layers and LM head); the B
 * embedding rows are not counted. */
uint64_t ic_kern_weight_bytes(const struct ic_kern *k);

#endif
