/* ic_cuda_none: what a build without CUDA links in place of the .cu files:
 * every entry point says so (IC_EINVAL, a usage-level problem: the build,
 * not the machine, lacks it). */
#include "ic_cuda.h"

#define NO_CUDA(err)                                                                         \
    ic_err_set(err, IC_EINVAL, NULL, 0, 0,                                                   \
               "this build has no CUDA support (meson -Dcuda=enabled with nvcc)")

bool ic_cuda_built(void) { return false; }

int ic_cuda_info(struct ic_cuda_info *out, struct ic_err *err)
{
    (void)out;
    return NO_CUDA(err);
}

int ic_cuda_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt, uint64_t seed,
                        struct ic_cuda_kern **out, struct ic_err *err)
{
    (void)shape, (void)wt, (void)seed, (void)out;
    return NO_CUDA(err);
}

void ic_cuda_kern_free(struct ic_cuda_kern *k) { (void)k; }

int ic_cuda_kern_set_cache(struct ic_cuda_kern *k, uint32_t max_batch, uint32_t max_seq,
                           struct ic_err *err)
{
    (void)k, (void)max_batch, (void)max_seq;
    return NO_CUDA(err);
}

int ic_cuda_kern_fill_cache(struct ic_cuda_kern *k, uint32_t b, uint32_t len, uint64_t seed,
                            struct ic_err *err)
{
    (void)k, (void)b, (void)len, (void)seed;
    return NO_CUDA(err);
}

int ic_cuda_kern_step(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, float *logits, struct ic_err *err)
{
    (void)k, (void)batch, (void)tokens, (void)pos, (void)logits;
    return NO_CUDA(err);
}

int ic_cuda_kern_time(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, int n, double *t_s, uint64_t *kernels,
                      struct ic_err *err)
{
    (void)k, (void)batch, (void)tokens, (void)pos, (void)n, (void)t_s, (void)kernels;
    return NO_CUDA(err);
}

uint64_t ic_cuda_kern_weight_bytes(const struct ic_cuda_kern *k)
{
    (void)k;
    return 0;
}

int ic_cuda_mb_read(double bytes, int passes, int n, double *v, struct ic_err *err)
{
    (void)bytes, (void)passes, (void)n, (void)v;
    return NO_CUDA(err);
}

int ic_cuda_mb_gemm(uint32_t m, uint32_t n, uint32_t k, int reps, double *v, struct ic_err *err)
{
    (void)m, (void)n, (void)k, (void)reps, (void)v;
    return NO_CUDA(err);
}

int ic_cuda_mb_launch(bool graph, int chain, int n, double *v, struct ic_err *err)
{
    (void)graph, (void)chain, (void)n, (void)v;
    return NO_CUDA(err);
}

int ic_cuda_mb_matmul(enum ic_kern_wtype wt, uint32_t rows, uint32_t cols, uint32_t batch,
                      bool flush, int n, double *v, struct ic_err *err)
{
    (void)wt, (void)rows, (void)cols, (void)batch, (void)flush, (void)n, (void)v;
    return NO_CUDA(err);
}
