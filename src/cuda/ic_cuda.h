/* ic_cuda: the CUDA decode step and the GPU microbenchmarks, behind a plain
 * C header (ggml's backends: the rest of infcalc never sees a .cu file).
 *
 * The step is the same model as the CPU reference kernel (ic_kern.h): the
 * same shapes, the same deterministic random weights (generated on the
 * device by the same counter-based generator, so a CUDA kernel and a CPU
 * kernel made from one seed hold the same bf16 or int8 weights), the same
 * KV layout [L][max_batch][H_kv][max_seq][d], here always bf16. Weights are
 * bf16 or int8 (one fp32 scale per row); activations stay fp32 between
 * kernels.
 *
 * A build without CUDA (meson -Dcuda=disabled, or no nvcc) links
 * ic_cuda_none.c instead: every function then fails with IC_EINVAL and the
 * message "this build has no CUDA support (meson -Dcuda=enabled with nvcc)".
 * A CUDA build on a machine without a usable device fails with IC_EIO and
 * the CUDA runtime's reason (the command line exits 1). */
#ifndef IC_CUDA_H
#define IC_CUDA_H

#include "ic_err.h"
#include "ic_kern.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether this build carries the CUDA code (not whether a device exists). */
bool ic_cuda_built(void);

struct ic_cuda_info {
    char name[128];        /* e.g. "NVIDIA H200" */
    int cc_major, cc_minor;
    int sms;               /* multiprocessors */
    double l2_B;           /* L2 cache */
    double mem_B;          /* device memory */
    double mem_clock_hz;   /* 0 when the runtime does not say */
    int bus_width_bits;    /* 0 when the runtime does not say */
    char driver[32];       /* driver / runtime versions, "13000 / 13000" */
};

/* Device 0's facts; IC_EIO when there is no usable device. */
int ic_cuda_info(struct ic_cuda_info *out, struct ic_err *err);

/* ---- the decode step -------------------------------------------------------
 * Kernels per step: embedding; per layer the q/k/v matmul, RoPE + cache
 * append, split-K attention and its reduction, the output matmul, residual +
 * RMSNorm, the w1/w3 matmul, SwiGLU, w2, residual + RMSNorm; the LM head.
 * Matmuls: batch <= IC_CUDA_GEMV_MAX a GEMV kernel (16-byte loads, one warp
 * per row, fp32 activations, every weight read once for all batch rows);
 * above it tensor cores with bf16 activations (bf16 weights: cuBLAS
 * GemmEx; int8 weights: a WMMA kernel that widens the int8 tile to bf16 in
 * shared memory and applies the row scale to the result). The whole step is
 * captured once per batch size in a CUDA graph and replayed. */
enum { IC_CUDA_GEMV_MAX = 8 };

struct ic_cuda_kern;

/* shape as for ic_kern_create (head_dim a multiple of 8 with head_dim / 8 a
 * power of two up to 32, i.e. 8 ... 256; query heads per KV head 1, 2, 4 or
 * 8); wt IC_KW_BF16 or IC_KW_INT8. IC_EINVAL on a shape or type it does not
 * take, IC_ENOMEM when device memory runs out, IC_EIO without a device. */
int ic_cuda_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt, uint64_t seed,
                        struct ic_cuda_kern **out, struct ic_err *err);
void ic_cuda_kern_free(struct ic_cuda_kern *k);

/* As ic_kern_set_cache: a cache for max_batch sequences of max_seq tokens
 * (contents lost, weights kept). */
int ic_cuda_kern_set_cache(struct ic_cuda_kern *k, uint32_t max_batch, uint32_t max_seq,
                           struct ic_err *err);

/* As ic_kern_fill_cache, bit for bit (the same values, rounded to bf16). */
int ic_cuda_kern_fill_cache(struct ic_cuda_kern *k, uint32_t b, uint32_t len, uint64_t seed,
                            struct ic_err *err);

/* One decode step, as ic_kern_step; logits: host [batch][vocab] or NULL.
 * Waits for the device. */
int ic_cuda_kern_step(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, float *logits, struct ic_err *err);

/* Replays the step's graph n times at the same tokens and positions (after
 * one untimed step) and writes each replay's seconds, timed with CUDA
 * events, to t_s[0..n). *kernels: kernel nodes in the step's graph. */
int ic_cuda_kern_time(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, int n, double *t_s, uint64_t *kernels,
                      struct ic_err *err);

/* Weight bytes one step reads (every matrix; int8 row scales included). */
uint64_t ic_cuda_kern_weight_bytes(const struct ic_cuda_kern *k);

/* ---- microbenchmarks ---------------------------------------------------------
 * Each times n repeats after a warm-up with CUDA events and writes one figure
 * per repeat to v[0..n). */

/* Read-only HBM bandwidth (bytes/s) over a buffer of bytes (>= 1 GB for the
 * figure bench reports), the L2 flushed before each repeat; passes > 1
 * re-reads the buffer within a repeat (for L2-sized buffers, no flush). */
int ic_cuda_mb_read(double bytes, int passes, int n, double *v, struct ic_err *err);

/* cuBLAS bf16 GEMM m x n x k with fp32 accumulation (FLOP/s), random inputs. */
int ic_cuda_mb_gemm(uint32_t m, uint32_t n, uint32_t k, int reps, double *v, struct ic_err *err);

/* Seconds per kernel of a chain of `chain` empty kernels: launched one by
 * one (graph false) or replayed from a CUDA graph (graph true). */
int ic_cuda_mb_launch(bool graph, int chain, int n, double *v, struct ic_err *err);

/* Seconds of one matmul of the step (the same dispatch) for a rows x cols
 * matrix of type wt at batch: flush = true clears the L2 before each repeat
 * (weights from HBM), false repeats on a warm L2. */
int ic_cuda_mb_matmul(enum ic_kern_wtype wt, uint32_t rows, uint32_t cols, uint32_t batch,
                      bool flush, int n, double *v, struct ic_err *err);

#ifdef __cplusplus
}
#endif

#endif
