/* ic_cuda_int: what the two .cu files share: turning CUDA and cuBLAS
 * statuses into ic_err records, and the L2 flush. Not part of the C API. */
#ifndef IC_CUDA_INT_CUH
#define IC_CUDA_INT_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>

extern "C" {
#include "ic_cuda.h"
}

/* IC_ENOMEM for an allocation failure, IC_EIO for anything else (no device,
 * a launch or a kernel failed), with the runtime's words and what was being
 * done. */
static inline int ic_cu_fail(struct ic_err *err, cudaError_t e, const char *what)
{
    (void)cudaGetLastError(); /* clear a sticky-free error so the next call starts clean */
    return ic_err_set(err, e == cudaErrorMemoryAllocation ? IC_ENOMEM : IC_EIO, NULL, 0, 0,
                      "CUDA: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

static inline int ic_cublas_fail(struct ic_err *err, cublasStatus_t s, const char *what)
{
    return ic_err_set(err, s == CUBLAS_STATUS_ALLOC_FAILED ? IC_ENOMEM : IC_EIO, NULL, 0, 0,
                      "cuBLAS: %s: status %d", what, (int)s);
}

/* Evaluates a CUDA call; on failure fills err and jumps to the function's
 * `out:` label with rc set. */
#define CU(call, what)                                                                       \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            rc = ic_cu_fail(err, e_, what);                                                  \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)
#define CUBLAS(call, what)                                                                   \
    do {                                                                                     \
        cublasStatus_t s_ = (call);                                                          \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                   \
            rc = ic_cublas_fail(err, s_, what);                                              \
            goto out;                                                                        \
        }                                                                                    \
    } while (0)
/* After a kernel launch: the launch's own error (bad configuration). */
#define CU_LAUNCH(what) CU(cudaGetLastError(), what)

/* A device buffer twice the L2 that flush writes over, evicting whatever a
 * timed region should not find in the L2. */
struct ic_cu_flush {
    void *buf;
    size_t n_B;
};
int ic_cu_flush_init(struct ic_cu_flush *f, struct ic_err *err);
void ic_cu_flush_run(const struct ic_cu_flush *f, cudaStream_t s);
void ic_cu_flush_free(struct ic_cu_flush *f);

/* Device 0 exists and answers; IC_EIO with the runtime's reason otherwise. */
int ic_cu_device(struct ic_err *err);

#endif
