/* ic_cuda_kern: the reference decode step in CUDA (see ic_cuda.h for the
 * model and the kernels a step runs).
 *
 * Shapes and layout follow src/kernels/ic_kern.c one for one: q, k, v come
 * from one matrix [(H + 2 H_kv) d][D], w1 and w3 from one [2F][D]; the KV
 * cache is [L][max_batch][H_kv][max_seq][d] bf16. Weights are stored
 * row-major in logical order (the CPU kernel's SIMD interleave is its own
 * business).
 *
 * Why each kernel is shaped as it is:
 *  - GEMV (batch <= IC_CUDA_GEMV_MAX): decode at small batch is a stream of
 *    the weights from HBM. One warp per output row, each lane loading 16
 *    bytes at a time, four loads in flight per lane before the first use,
 *    every loaded weight used for all batch rows (fp32 activations come
 *    from L1/L2), partial sums reduced by shuffles. The int8 row scale
 *    multiplies the finished dot product, as on the CPU.
 *  - Past that the matmul is a GEMM on tensor cores with bf16 activations:
 *    cuBLAS for bf16 weights; for int8 weights cuBLAS has no int8 x bf16
 *    product, so a WMMA kernel widens each int8 tile to bf16 in shared
 *    memory (exact: |q| <= 127 fits bf16's 8-bit significand) and scales
 *    the result rows.
 *  - Attention is split-K (flash-decoding): blocks own a chunk of one
 *    (sequence, KV head)'s positions and all G query heads of the group, so
 *    each cached k and v is read once for the group; a lane holds 8
 *    elements of a head vector (one 16-byte load), d / 8 lanes share a
 *    position, online softmax per lane group, merged across the warp by
 *    shuffles and across warps in shared memory; a second kernel combines
 *    the chunks. The split count grows until there are ~4 blocks per
 *    multiprocessor, so long contexts at small batch still fill the chip.
 *  - The step is captured in a CUDA graph per batch size: a step is ~10
 *    kernels per layer, and replaying them from a graph leaves ~1-2 us
 *    between kernels instead of a host launch each.
 *
 * Weight generation reproduces ic_kern_matrix_create exactly (splitmix64 of
 * (seed, index), scaled by 1 / sqrt(cols) in double, rounded to float, then
 * to bf16 or quantized per row with scale max|w| / 127), with explicit
 * round-to-nearest intrinsics where a fused multiply-add would change the
 * last bit. */
#include "ic_cuda_int.cuh"

#include <cuda_bf16.h>
#include <math.h>
#include <mma.h>
#include <stdlib.h>
#include <string.h>

typedef __nv_bfloat16 bf16;

/* ---- the generator (ic_kern_uniform and ic_kern.c's mix64) ------------------ */

static __host__ __device__ inline uint64_t mix64(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    z = (z ^ (z >> 32)) * 0xD6E8FEB86659FD93ull;
    return z ^ (z >> 32);
}

static __device__ inline double uniform(uint64_t seed, uint64_t i)
{
    uint64_t z = seed * 0xD1342543DE82EF95ull + i * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0;
}

/* p[i] = center + amp * u(seed, i), float arithmetic as the C code (no FMA). */
static __global__ void fill_floats_k(float *p, uint64_t n, uint64_t seed, float center, float amp)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = __fadd_rn(center, __fmul_rn(amp, (float)uniform(seed, i)));
}

static __global__ void fill_bf16_k(bf16 *w, uint32_t rows, uint32_t cols, uint64_t seed, double a)
{
    const uint64_t n = (uint64_t)rows * cols;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        w[i] = __float2bfloat16_rn((float)(a * uniform(seed, i)));
}

/* One block per row: scale = max|w| / 127 (1 for an all-zero row), q =
 * round-half-even(w / scale) clamped to [-127, 127]. */
static __global__ void fill_int8_k(int8_t *w, float *scale, uint32_t cols, uint64_t seed, double a)
{
    __shared__ float red[32];
    const uint32_t r = blockIdx.x;
    const uint64_t base = (uint64_t)r * cols;
    float m = 0;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, fabsf((float)(a * uniform(seed, base + c))));
    for (int off = 16; off; off >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = m;
    __syncthreads();
    if (threadIdx.x < 32) {
        m = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.0f;
        for (int off = 16; off; off >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
        if (threadIdx.x == 0)
            red[0] = m;
    }
    __syncthreads();
    const float maxabs = red[0];
    const float s = maxabs > 0 ? __fdiv_rn(maxabs, 127.0f) : 1.0f;
    if (threadIdx.x == 0)
        scale[r] = s;
    for (uint32_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float q = rintf(__fdiv_rn((float)(a * uniform(seed, base + c)), s));
        w[base + c] = (int8_t)fminf(127.0f, fmaxf(-127.0f, q));
    }
}

/* ---- matrices and the matmul -------------------------------------------------- */

struct dmat {
    enum ic_kern_wtype t;
    uint32_t rows, cols; /* N, K */
    void *w;             /* [N][K] bf16 or int8 */
    float *scale;        /* [N] int8 only */
};

static int dmat_create(struct dmat *m, enum ic_kern_wtype t, uint32_t rows, uint32_t cols,
                       uint64_t seed, cudaStream_t s, struct ic_err *err)
{
    int rc = IC_OK;
    const size_t esz = t == IC_KW_BF16 ? 2 : 1;
    const double a = 1.0 / sqrt((double)cols);
    *m = (struct dmat){t, rows, cols, NULL, NULL};
    CU(cudaMalloc(&m->w, (size_t)rows * cols * esz), "allocating a weight matrix");
    if (t == IC_KW_BF16) {
        fill_bf16_k<<<1024, 256, 0, s>>>((bf16 *)m->w, rows, cols, seed, a);
    } else {
        CU(cudaMalloc(&m->scale, (size_t)rows * sizeof(float)), "allocating row scales");
        fill_int8_k<<<rows, 256, 0, s>>>((int8_t *)m->w, m->scale, cols, seed, a);
    }
    CU_LAUNCH("generating weights");
out:
    return rc;
}

static void dmat_free(struct dmat *m)
{
    cudaFree(m->w);
    cudaFree(m->scale);
    m->w = m->scale = NULL;
}

static uint64_t dmat_bytes(const struct dmat *m)
{
    uint64_t b = (uint64_t)m->rows * m->cols * (m->t == IC_KW_BF16 ? 2 : 1);
    return m->t == IC_KW_INT8 ? b + (uint64_t)m->rows * sizeof(float) : b;
}

/* 8 bf16 or 16 int8 of one 16-byte load, widened to fp32 (int8: unscaled). */
template <int WT> struct vec16;
template <> struct vec16<0> {
    enum { N = 8 };
    static __device__ inline void widen(uint4 v, float *f)
    {
        const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 4; i++) {
            f[2 * i] = __uint_as_float(u[i] << 16);
            f[2 * i + 1] = __uint_as_float(u[i] & 0xffff0000u);
        }
    }
};
template <> struct vec16<1> {
    enum { N = 16 };
    static __device__ inline void widen(uint4 v, float *f)
    {
        const uint32_t u[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < 4; j++)
                f[4 * i + j] = (float)(int8_t)(u[i] >> (8 * j));
    }
};

enum { GEMV_WARPS = 8, GEMV_UNROLL = 4 };

/* y[b][r] = scale[r] * sum_c W[r][c] x[b][c] for b < BT: one warp per row r.
 * W: [N][K] with K * element size a multiple of 16 bytes; x: [BT][K] fp32,
 * y: [BT][N]. */
template <int WT, int BT>
static __global__ void __launch_bounds__(GEMV_WARPS * 32)
    gemv_k(const void *__restrict__ w, const float *__restrict__ scale,
           const float *__restrict__ x, uint32_t N, uint32_t K, float *__restrict__ y)
{
    typedef vec16<WT> V;
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t row = blockIdx.x * GEMV_WARPS + (threadIdx.x >> 5);
    if (row >= N)
        return; /* the whole warp: row is warp-uniform */
    const uint32_t nv = K / V::N; /* 16-byte vectors per row */
    const uint4 *wr = (const uint4 *)((const char *)w + (size_t)row * K * (WT ? 1 : 2));
    float acc[BT];
#pragma unroll
    for (int b = 0; b < BT; b++)
        acc[b] = 0;
    for (uint32_t i0 = lane; i0 < nv; i0 += 32 * GEMV_UNROLL) {
        uint4 v[GEMV_UNROLL];
#pragma unroll
        for (int u = 0; u < GEMV_UNROLL; u++) {
            const uint32_t i = i0 + 32u * u;
            v[u] = i < nv ? __ldcs(wr + i) : make_uint4(0, 0, 0, 0); /* streamed, not kept */
        }
#pragma unroll
        for (int u = 0; u < GEMV_UNROLL; u++) {
            const uint32_t i = i0 + 32u * u;
            if (i >= nv)
                break;
            float f[V::N];
            V::widen(v[u], f);
#pragma unroll
            for (int b = 0; b < BT; b++) {
                const float4 *xv = (const float4 *)(x + (size_t)b * K + (size_t)i * V::N);
#pragma unroll
                for (int j = 0; j < V::N / 4; j++) {
                    const float4 xx = __ldg(xv + j);
                    acc[b] += f[4 * j] * xx.x + f[4 * j + 1] * xx.y + f[4 * j + 2] * xx.z +
                              f[4 * j + 3] * xx.w;
                }
            }
        }
    }
    const float sc = WT ? scale[row] : 1.0f;
#pragma unroll
    for (int b = 0; b < BT; b++) {
        float s = acc[b];
        for (int off = 16; off; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[(size_t)b * N + row] = sc * s;
    }
}

/* The same for any K (rows not 16-byte aligned): one element at a time. */
template <int WT>
static __global__ void gemv_any_k(const void *__restrict__ w, const float *__restrict__ scale,
                                  const float *__restrict__ x, uint32_t batch, uint32_t N,
                                  uint32_t K, float *__restrict__ y)
{
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t row = blockIdx.x * GEMV_WARPS + (threadIdx.x >> 5);
    if (row >= N)
        return;
    for (uint32_t b = 0; b < batch; b++) {
        float s = 0;
        for (uint32_t c = lane; c < K; c += 32) {
            const size_t i = (size_t)row * K + c;
            const float wv = WT ? (float)((const int8_t *)w)[i]
                                : __bfloat162float(((const bf16 *)w)[i]);
            s += wv * x[(size_t)b * K + c];
        }
        for (int off = 16; off; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[(size_t)b * N + row] = (WT ? scale[row] : 1.0f) * s;
    }
}

/* xh[i] = bf16(x[i]) for the tensor-core path. */
static __global__ void to_bf16_k(const float *__restrict__ x, bf16 *__restrict__ xh, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        xh[i] = __float2bfloat16_rn(x[i]);
}

/* Y[m][n] = scale[n] * sum_k X[m][k] q[n][k]: X [B][K] bf16, q [N][K] int8.
 * A block of 4 warps owns 64 rows of W (16 per warp) by 32 batch rows; K in
 * steps of 32, tiles zero-padded at every edge. */
enum { I8_TN = 64, I8_TM = 32, I8_TK = 32, I8_LD = I8_TK + 8 };
static __global__ void __launch_bounds__(128)
    mm_i8_wmma_k(const int8_t *__restrict__ q, const float *__restrict__ scale,
                 const bf16 *__restrict__ xh, uint32_t B, uint32_t N, uint32_t K,
                 float *__restrict__ y)
{
    using namespace nvcuda;
    __shared__ __align__(32) bf16 ws[I8_TN][I8_LD]; /* [n][k] */
    __shared__ __align__(32) bf16 xs[I8_TM][I8_LD]; /* [m][k] */
    __shared__ __align__(32) float cs[4][16][16];   /* per warp, [m][n] */
    const uint32_t tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
    const uint32_t n0 = blockIdx.x * I8_TN, m0 = blockIdx.y * I8_TM;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::fill_fragment(acc[0], 0.0f);
    wmma::fill_fragment(acc[1], 0.0f);
    for (uint32_t k0 = 0; k0 < K; k0 += I8_TK) {
        { /* W tile: thread -> row tid / 2, 16 columns from (tid % 2) * 16 */
            const uint32_t r = tid >> 1, c0 = (tid & 1) * 16, n = n0 + r;
#pragma unroll
            for (int j = 0; j < 16; j++) {
                const uint32_t k = k0 + c0 + (uint32_t)j;
                const float v = n < N && k < K ? (float)q[(size_t)n * K + k] : 0.0f;
                ws[r][c0 + (uint32_t)j] = __float2bfloat16_rn(v);
            }
        }
        { /* X tile: thread -> row tid / 4, 8 columns from (tid % 4) * 8 */
            const uint32_t r = tid >> 2, c0 = (tid & 3) * 8, m = m0 + r;
#pragma unroll
            for (int j = 0; j < 8; j++) {
                const uint32_t k = k0 + c0 + (uint32_t)j;
                xs[r][c0 + (uint32_t)j] =
                    m < B && k < K ? xh[(size_t)m * K + k] : __float2bfloat16_rn(0.0f);
            }
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < I8_TK; kk += 16) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> bf;
            wmma::load_matrix_sync(bf, &ws[warp * 16][kk], I8_LD);
#pragma unroll
            for (int i = 0; i < 2; i++) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> af;
                wmma::load_matrix_sync(af, &xs[i * 16][kk], I8_LD);
                wmma::mma_sync(acc[i], af, bf, acc[i]);
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; i++) {
        wmma::store_matrix_sync(&cs[warp][0][0], acc[i], 16, wmma::mem_row_major);
        __syncwarp();
        for (uint32_t e = lane; e < 256; e += 32) {
            const uint32_t ml = e >> 4, nl = e & 15;
            const uint32_t m = m0 + (uint32_t)i * 16 + ml, n = n0 + warp * 16 + nl;
            if (m < B && n < N)
                y[(size_t)m * N + n] = scale[n] * cs[warp][ml][nl];
        }
        __syncwarp();
    }
}

/* What a matmul needs besides its operands: the stream, cuBLAS, and a bf16
 * copy of the activations for the tensor-core path. */
struct mm_ctx {
    cudaStream_t s;
    cublasHandle_t blas;
    bf16 *xh;      /* [max_batch][max K] */
    size_t xh_n;   /* its elements */
};

template <int WT>
static void gemv_launch(const struct dmat *w, const float *x, uint32_t batch, float *y,
                        cudaStream_t s)
{
    const dim3 grid((w->rows + GEMV_WARPS - 1) / GEMV_WARPS), block(GEMV_WARPS * 32);
    const size_t vec = WT ? 16 : 8;
    if (w->cols % vec) {
        gemv_any_k<WT><<<grid, block, 0, s>>>(w->w, w->scale, x, batch, w->rows, w->cols, y);
        return;
    }
    switch (batch) {
#define CASE(n)                                                                              \
    case n:                                                                                  \
        gemv_k<WT, n><<<grid, block, 0, s>>>(w->w, w->scale, x, w->rows, w->cols, y);       \
        break;
        CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7) CASE(8)
#undef CASE
    default:
        break;
    }
}
static_assert(IC_CUDA_GEMV_MAX == 8, "gemv_launch instantiates batches 1 to 8");

/* y[b][r] = sum_c W[r][c] x[b][c] for b < batch: x [batch][K], y [batch][N]
 * fp32 device buffers. Enqueues on c->s (capturable). */
static int matmul(struct mm_ctx *c, const struct dmat *w, const float *x, uint32_t batch,
                  float *y, struct ic_err *err)
{
    int rc = IC_OK;
    if (batch <= IC_CUDA_GEMV_MAX) {
        if (w->t == IC_KW_BF16)
            gemv_launch<0>(w, x, batch, y, c->s);
        else
            gemv_launch<1>(w, x, batch, y, c->s);
        CU_LAUNCH("GEMV kernel");
        return IC_OK;
    }
    {
        const size_t n = (size_t)batch * w->cols;
        if (n > c->xh_n)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "matmul: activation buffer too small");
        to_bf16_k<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0, c->s>>>(
            x, c->xh, n);
        CU_LAUNCH("activation conversion");
        if (w->t == IC_KW_BF16) {
            const float one = 1.0f, zero = 0.0f;
            /* column-major view: Y^T [N][batch] = W^T^T ... i.e. C (N x B) =
             * op(A) (N x K) * B (K x B) with A = W stored [N][K] (K x N
             * column-major, transposed) and B = x [batch][K] (K x batch) */
            CUBLAS(cublasGemmEx(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)w->rows, (int)batch,
                                (int)w->cols, &one, w->w, CUDA_R_16BF, (int)w->cols, c->xh,
                                CUDA_R_16BF, (int)w->cols, &zero, y, CUDA_R_32F, (int)w->rows,
                                CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "bf16 GEMM");
        } else {
            const dim3 grid((w->rows + I8_TN - 1) / I8_TN, (batch + I8_TM - 1) / I8_TM);
            mm_i8_wmma_k<<<grid, 128, 0, c->s>>>((const int8_t *)w->w, w->scale, c->xh, batch,
                                                w->rows, w->cols, y);
            CU_LAUNCH("int8 WMMA kernel");
        }
    }
out:
    return rc;
}

/* ---- the step's other kernels -------------------------------------------------- */

static __global__ void embed_k(const float *__restrict__ embed, const uint32_t *__restrict__ tok,
                               uint32_t D, float *__restrict__ x)
{
    const uint32_t b = blockIdx.x;
    const float *e = embed + (size_t)tok[b] * D;
    for (uint32_t c = threadIdx.x; c < D; c += blockDim.x)
        x[(size_t)b * D + c] = e[c];
}

/* Per batch row (one block each): x += add (when add != NULL), then
 * xb = x / sqrt(mean(x^2) + 1e-5) * w, the sum of squares in double as on
 * the CPU. */
static __global__ void norm_k(float *__restrict__ x, const float *__restrict__ add,
                              const float *__restrict__ w, uint32_t D, float *__restrict__ xb)
{
    __shared__ double red[32];
    const uint32_t b = blockIdx.x;
    float *xr = x + (size_t)b * D;
    double ss = 0;
    for (uint32_t c = threadIdx.x; c < D; c += blockDim.x) {
        float v = xr[c];
        if (add) {
            v += add[(size_t)b * D + c];
            xr[c] = v;
        }
        ss += (double)v * v;
    }
    for (int off = 16; off; off >>= 1)
        ss += __shfl_xor_sync(0xffffffffu, ss, off);
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = ss;
    __syncthreads();
    if (threadIdx.x < 32) {
        ss = threadIdx.x < (blockDim.x >> 5) ? red[threadIdx.x] : 0.0;
        for (int off = 16; off; off >>= 1)
            ss += __shfl_xor_sync(0xffffffffu, ss, off);
        if (threadIdx.x == 0)
            red[0] = ss;
    }
    __syncthreads();
    const float inv = (float)(1.0 / sqrt(red[0] / D + 1e-5));
    for (uint32_t c = threadIdx.x; c < D; c += blockDim.x)
        xb[(size_t)b * D + c] = xr[c] * inv * w[c];
}

/* hb[b][c] = silu(h13[b][c]) * h13[b][F + c]. */
static __global__ void swiglu_k(const float *__restrict__ h13, uint32_t batch, uint32_t F,
                                float *__restrict__ hb)
{
    const size_t n = (size_t)batch * F;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t b = i / F, c = i % F;
        const float g = h13[b * 2 * F + c];
        hb[i] = g / (1.0f + expf(-g)) * h13[b * 2 * F + F + c];
    }
}

struct kv_dims {
    uint32_t H, Hkv, d, max_batch, max_seq, layer;
};

/* Head vector (l, b, p, g) of the cache, in head vectors. */
static __host__ __device__ inline size_t kv_at(const struct kv_dims &k, uint32_t b, uint32_t p,
                                               uint32_t g)
{
    return (((size_t)k.layer * k.max_batch + b) * k.Hkv + g) * k.max_seq + p;
}

/* grid (batch, H + 2 H_kv), block d / 2: RoPE on the query heads (in place)
 * and the new key, then the key and the value appended to the cache at
 * pos[b] as bf16. Angles in double, as on the CPU. */
static __global__ void rope_store_k(float *__restrict__ qkv, const uint32_t *__restrict__ pos,
                                    struct kv_dims kd, bf16 *__restrict__ kc,
                                    bf16 *__restrict__ vc)
{
    const uint32_t b = blockIdx.x, h = blockIdx.y, i = threadIdx.x, d = kd.d;
    const uint32_t H = kd.H, Hkv = kd.Hkv, p = pos[b];
    float *v = qkv + (size_t)b * (H + 2 * Hkv) * d + (size_t)h * d; /* [d] */
    float a = v[2 * i], c2 = v[2 * i + 1];
    if (h < H + Hkv) {
        const double theta = (double)p * pow(10000.0, -2.0 * i / d);
        const float c = (float)cos(theta), s = (float)sin(theta);
        const float ra = __fsub_rn(__fmul_rn(a, c), __fmul_rn(c2, s));
        const float rb = __fadd_rn(__fmul_rn(a, s), __fmul_rn(c2, c));
        a = ra;
        c2 = rb;
    }
    if (h < H) {
        v[2 * i] = a;
        v[2 * i + 1] = c2;
        return;
    }
    const bool is_k = h < H + Hkv;
    const uint32_t g = is_k ? h - H : h - H - Hkv;
    bf16 *dst = (is_k ? kc : vc) + kv_at(kd, b, p, g) * d; /* [d] */
    dst[2 * i] = __float2bfloat16_rn(a);
    dst[2 * i + 1] = __float2bfloat16_rn(c2);
}

enum { ATT_WARPS = 4 };

/* Split-K attention, grid (batch * H_kv, nsplit), ATT_WARPS warps: block
 * (b, g, split) covers positions [split * chunk, min((split + 1) * chunk,
 * pos[b] + 1)) for the G query heads of KV head g and writes, per head, the
 * running max m, the sum l of exp(score - m) and o = sum exp(score - m) v
 * into pm/pl [batch][H][nsplit] and po [batch][H][nsplit][d]. An empty
 * chunk writes m = -inf, l = 0, o = 0. */
template <int G>
static __global__ void __launch_bounds__(ATT_WARPS * 32)
    attn_split_k(const float *__restrict__ qkv, const bf16 *__restrict__ kc,
                 const bf16 *__restrict__ vc, const uint32_t *__restrict__ pos, struct kv_dims kd,
                 uint32_t chunk, float *__restrict__ pm, float *__restrict__ pl,
                 float *__restrict__ po)
{
    extern __shared__ float smem[]; /* [W][G] m, [W][G] l, [W][G][d] o */
    const uint32_t d = kd.d, H = kd.H, Hkv = kd.Hkv;
    const uint32_t b = blockIdx.x / Hkv, g = blockIdx.x % Hkv, split = blockIdx.y,
                   nsplit = gridDim.y;
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t lpr = d / 8, ppw = 32 / lpr; /* lanes per position, positions per warp */
    const uint32_t sub = lane / lpr, li = lane % lpr;
    const uint32_t P = pos[b] + 1;
    const uint32_t t0 = split * chunk, t1 = min(P, t0 + chunk);
    const float inv_sqrt_d = (float)(1.0 / sqrt((double)d));
    const float *q0 = qkv + (size_t)b * (H + 2 * Hkv) * d + (size_t)g * G * d; /* [G][d] */
    float q[G][8], acc[G][8], m[G], l[G];
#pragma unroll
    for (int h = 0; h < G; h++) {
#pragma unroll
        for (int e = 0; e < 8; e++) {
            q[h][e] = q0[(size_t)h * d + li * 8 + e];
            acc[h][e] = 0;
        }
        m[h] = -INFINITY;
        l[h] = 0;
    }
    const size_t first = kv_at(kd, b, 0, g) * d; /* element offset of position 0 */
    for (uint32_t tb = t0 + warp * ppw; tb < t1; tb += ATT_WARPS * ppw) {
        const uint32_t t = tb + sub; /* the loop is warp-uniform; t may be past t1 */
        const bool valid = t < t1;
        uint4 kr = make_uint4(0, 0, 0, 0), vr = kr;
        if (valid) {
            kr = __ldcs((const uint4 *)(kc + first + (size_t)t * d + li * 8));
            vr = __ldcs((const uint4 *)(vc + first + (size_t)t * d + li * 8));
        }
        float kf[8], vf[8];
        vec16<0>::widen(kr, kf);
        vec16<0>::widen(vr, vf);
#pragma unroll
        for (int h = 0; h < G; h++) {
            float s = 0;
#pragma unroll
            for (int e = 0; e < 8; e++)
                s += q[h][e] * kf[e];
            for (uint32_t off = lpr / 2; off; off >>= 1)
                s += __shfl_xor_sync(0xffffffffu, s, off);
            if (valid) {
                s *= inv_sqrt_d;
                const float mn = fmaxf(m[h], s);
                const float corr = m[h] == -INFINITY ? 0.0f : expf(m[h] - mn);
                const float p = expf(s - mn);
                l[h] = l[h] * corr + p;
#pragma unroll
                for (int e = 0; e < 8; e++)
                    acc[h][e] = acc[h][e] * corr + p * vf[e];
                m[h] = mn;
            }
        }
    }
    /* merge the lane groups of the warp (lanes li, li + lpr, ...) */
    for (uint32_t off = lpr; off < 32; off <<= 1) {
#pragma unroll
        for (int h = 0; h < G; h++) {
            const float mo = __shfl_xor_sync(0xffffffffu, m[h], off);
            const float lo = __shfl_xor_sync(0xffffffffu, l[h], off);
            const float mn = fmaxf(m[h], mo);
            const float ca = m[h] == -INFINITY ? 0.0f : expf(m[h] - mn);
            const float cb = mo == -INFINITY ? 0.0f : expf(mo - mn);
            l[h] = l[h] * ca + lo * cb;
#pragma unroll
            for (int e = 0; e < 8; e++) {
                const float ao = __shfl_xor_sync(0xffffffffu, acc[h][e], off);
                acc[h][e] = acc[h][e] * ca + ao * cb;
            }
            m[h] = mn;
        }
    }
    float *sm = smem, *sl = smem + ATT_WARPS * G, *so = smem + 2 * ATT_WARPS * G;
    if (sub == 0) {
#pragma unroll
        for (int h = 0; h < G; h++) {
            if (li == 0) {
                sm[warp * G + h] = m[h];
                sl[warp * G + h] = l[h];
            }
#pragma unroll
            for (int e = 0; e < 8; e++)
                so[((size_t)warp * G + h) * d + li * 8 + e] = acc[h][e];
        }
    }
    __syncthreads();
    for (uint32_t idx = threadIdx.x; idx < G * d; idx += blockDim.x) {
        const uint32_t h = idx / d, c = idx % d;
        float M = -INFINITY;
        for (int w = 0; w < ATT_WARPS; w++)
            M = fmaxf(M, sm[w * G + h]);
        float L = 0, O = 0;
        for (int w = 0; w < ATT_WARPS; w++) {
            const float mw = sm[w * G + h];
            const float f = mw == -INFINITY ? 0.0f : expf(mw - M);
            L += f * sl[w * G + h];
            O += f * so[((size_t)w * G + h) * d + c];
        }
        const size_t hi = ((size_t)b * H + g * G + h) * nsplit + split;
        po[hi * d + c] = O;
        if (c == 0) {
            pm[hi] = M;
            pl[hi] = L;
        }
    }
}

/* grid batch * H, block d: att[b][h][c] = sum_s e^(m_s - M) o_s[c] /
 * sum_s e^(m_s - M) l_s over the splits. */
static __global__ void attn_reduce_k(const float *__restrict__ pm, const float *__restrict__ pl,
                                     const float *__restrict__ po, uint32_t nsplit, uint32_t d,
                                     float *__restrict__ att)
{
    const size_t bh = blockIdx.x;
    const uint32_t c = threadIdx.x;
    float M = -INFINITY;
    for (uint32_t s = 0; s < nsplit; s++)
        M = fmaxf(M, pm[bh * nsplit + s]);
    float L = 0, O = 0;
    for (uint32_t s = 0; s < nsplit; s++) {
        const float ms = pm[bh * nsplit + s];
        const float f = ms == -INFINITY ? 0.0f : expf(ms - M);
        L += f * pl[bh * nsplit + s];
        O += f * po[(bh * nsplit + s) * d + c];
    }
    att[bh * d + c] = O / L;
}

/* K/V fill as ic_kern_fill_cache: element j of (l, p, g) is
 * u(mix64(seed, b), 2 (base + j)) for k and + 1 for v, base = ((l max_seq + p)
 * H_kv + g) d. */
static __global__ void fill_cache_k(bf16 *kc, bf16 *vc, struct kv_dims kd, uint32_t L,
                                    uint32_t b, uint32_t len, uint64_t sb)
{
    const uint64_t n = (uint64_t)L * len * kd.Hkv * kd.d;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t j = (uint32_t)(i % kd.d);
        uint64_t r = i / kd.d;
        const uint32_t g = (uint32_t)(r % kd.Hkv);
        r /= kd.Hkv;
        const uint32_t p = (uint32_t)(r % len), l = (uint32_t)(r / len);
        const uint64_t base = (((uint64_t)l * kd.max_seq + p) * kd.Hkv + g) * kd.d;
        struct kv_dims k = kd;
        k.layer = l;
        const size_t at = kv_at(k, b, p, g) * kd.d + j;
        kc[at] = __float2bfloat16_rn((float)uniform(sb, 2 * (base + j)));
        vc[at] = __float2bfloat16_rn((float)uniform(sb, 2 * (base + j) + 1));
    }
}

/* ---- the model -------------------------------------------------------------------- */

enum { MAT_QKV, MAT_O, MAT_13, MAT_2, MATS };

struct layer {
    struct dmat m[MATS];
    float *rms_att, *rms_ffn; /* [D] each */
};

struct ic_cuda_kern {
    struct ic_kern_shape s;
    enum ic_kern_wtype wt;
    int sms;
    cudaStream_t stream;
    cublasHandle_t blas;
    void *blas_ws; /* cuBLAS workspace, set so graph capture never allocates */

    float *embed;        /* [V][D] */
    struct layer *layers; /* [L] host array of device pointers */
    float *rms_final;    /* [D] */
    struct dmat wcls;    /* [V][D] */

    bf16 *kc, *vc;       /* [L][max_batch][H_kv][max_seq][d] */
    uint32_t *tok, *pos; /* [max_batch] */
    float *x, *xb, *qkv, *att, *proj, *h13, *hb, *logits; /* as ic_kern.c, [max_batch][...] */
    float *pm, *pl, *po; /* split-K partials, sized for the largest split count */
    bf16 *xh;            /* [max_batch][max(D, H d, F)] */
    size_t xh_n;

    cudaGraphExec_t graph; /* the step at graph_batch, or NULL */
    uint32_t graph_batch;
    uint64_t graph_kernels;
};

/* Splits of the context: enough (batch x H_kv x splits) blocks for ~4 per
 * multiprocessor, chunks of at least 64 positions. */
static uint32_t n_splits(const struct ic_cuda_kern *k, uint32_t batch)
{
    const uint64_t tasks = (uint64_t)batch * k->s.n_kv_heads;
    uint64_t want = (4ull * (uint64_t)k->sms + tasks - 1) / tasks;
    const uint64_t most = (k->s.max_seq + 63) / 64;
    if (want > most)
        want = most;
    return want < 1 ? 1 : (uint32_t)want;
}

static void free_state(struct ic_cuda_kern *k)
{
    void *p[] = {k->kc, k->vc, k->tok, k->pos, k->x, k->xb, k->qkv, k->att, k->proj,
                 k->h13, k->hb, k->logits, k->pm, k->pl, k->po, k->xh};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        cudaFree(p[i]);
    k->kc = k->vc = NULL;
    k->tok = k->pos = NULL;
    k->x = k->xb = k->qkv = k->att = k->proj = k->h13 = k->hb = k->logits = NULL;
    k->pm = k->pl = k->po = NULL;
    k->xh = NULL;
    if (k->graph)
        cudaGraphExecDestroy(k->graph);
    k->graph = NULL;
    k->graph_batch = 0;
}

static int alloc_state(struct ic_cuda_kern *k, struct ic_err *err)
{
    int rc = IC_OK;
    const struct ic_kern_shape *s = &k->s;
    const size_t D = s->dim, F = s->hidden_dim, d = s->head_dim, H = s->n_heads,
                 Hkv = s->n_kv_heads, V = s->vocab, B = s->max_batch, T = s->max_seq,
                 L = s->n_layers;
    size_t parts = 0;
    for (uint32_t b = 1; b <= s->max_batch; b++) {
        const size_t n = (size_t)b * H * n_splits(k, b);
        parts = n > parts ? n : parts;
    }
    size_t wide = D > F ? D : F;
    wide = wide > H * d ? wide : H * d;
    k->xh_n = B * wide;
    CU(cudaMalloc(&k->kc, L * B * Hkv * T * d * sizeof(bf16)), "allocating the K cache");
    CU(cudaMalloc(&k->vc, L * B * Hkv * T * d * sizeof(bf16)), "allocating the V cache");
    CU(cudaMemset(k->kc, 0, L * B * Hkv * T * d * sizeof(bf16)), "clearing the K cache");
    CU(cudaMemset(k->vc, 0, L * B * Hkv * T * d * sizeof(bf16)), "clearing the V cache");
    CU(cudaMalloc(&k->tok, B * sizeof(uint32_t)), "allocating tokens");
    CU(cudaMalloc(&k->pos, B * sizeof(uint32_t)), "allocating positions");
    CU(cudaMalloc(&k->x, B * D * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->xb, B * D * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->qkv, B * (H + 2 * Hkv) * d * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->att, B * H * d * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->proj, B * D * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->h13, B * 2 * F * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->hb, B * F * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&k->logits, B * V * sizeof(float)), "allocating logits");
    CU(cudaMalloc(&k->pm, parts * sizeof(float)), "allocating attention partials");
    CU(cudaMalloc(&k->pl, parts * sizeof(float)), "allocating attention partials");
    CU(cudaMalloc(&k->po, parts * d * sizeof(float)), "allocating attention partials");
    CU(cudaMalloc(&k->xh, k->xh_n * sizeof(bf16)), "allocating bf16 activations");
out:
    if (rc)
        free_state(k);
    return rc;
}

static int check_shape(const struct ic_kern_shape *s, enum ic_kern_wtype wt, struct ic_err *err)
{
    if (wt != IC_KW_BF16 && wt != IC_KW_INT8)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the CUDA kernel takes bf16 or int8 weights, not %s",
                          ic_kern_wtype_name(wt));
    const uint32_t v[] = {s->dim, s->hidden_dim, s->n_layers, s->n_heads, s->n_kv_heads,
                          s->head_dim, s->vocab, s->max_batch, s->max_seq};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] == 0)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "CUDA kernel shape: a size is 0");
    if (s->n_heads % s->n_kv_heads)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "CUDA kernel shape: n_heads is not a multiple of n_kv_heads");
    const uint32_t G = s->n_heads / s->n_kv_heads, d = s->head_dim;
    if (!(G == 1 || G == 2 || G == 4 || G == 8))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "CUDA kernel shape: %u query heads per KV head; it takes 1, 2, 4 or 8",
                          G);
    if (d % 8 || d > 256 || ((d / 8) & (d / 8 - 1)))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "CUDA kernel shape: head_dim %u; it takes 8, 16, 32, 64, 128 or 256", d);
    if (s->max_batch > 256)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "CUDA kernel shape: max_batch above 256");
    return IC_OK;
}

extern "C" int ic_cuda_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt,
                                   uint64_t seed, struct ic_cuda_kern **out, struct ic_err *err)
{
    int rc = check_shape(shape, wt, err);
    if (rc)
        return rc;
    if ((rc = ic_cu_device(err)))
        return rc;
    struct ic_cuda_kern *k = (struct ic_cuda_kern *)calloc(1, sizeof *k);
    if (!k)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    const struct ic_kern_shape s = *shape;
    k->s = s;
    k->wt = wt;
    const size_t D = s.dim, F = s.hidden_dim, d = s.head_dim, H = s.n_heads, Hkv = s.n_kv_heads,
                 V = s.vocab;
    const size_t ws_B = 32u << 20;
    CU(cudaDeviceGetAttribute(&k->sms, cudaDevAttrMultiProcessorCount, 0), "reading the device");
    CU(cudaStreamCreateWithFlags(&k->stream, cudaStreamNonBlocking), "creating a stream");
    CUBLAS(cublasCreate(&k->blas), "creating a handle");
    CUBLAS(cublasSetStream(k->blas, k->stream), "setting the stream");
    CU(cudaMalloc(&k->blas_ws, ws_B), "allocating the cuBLAS workspace");
    CUBLAS(cublasSetWorkspace(k->blas, k->blas_ws, ws_B), "setting the workspace");
    k->layers = (struct layer *)calloc(s.n_layers, sizeof *k->layers);
    if (!k->layers) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto out;
    }
    CU(cudaMalloc(&k->embed, V * D * sizeof(float)), "allocating the embedding");
    CU(cudaMalloc(&k->rms_final, D * sizeof(float)), "allocating norms");
    fill_floats_k<<<1024, 256, 0, k->stream>>>(k->embed, V * D, mix64(seed, 1), 0.0f, 1.0f);
    fill_floats_k<<<4, 256, 0, k->stream>>>(k->rms_final, D, mix64(seed, 2), 1.0f, 0.25f);
    CU_LAUNCH("generating the embedding");
    for (uint32_t l = 0; l < s.n_layers; l++) {
        struct layer *ly = &k->layers[l];
        const uint64_t ls = mix64(seed, 100 + l);
        const size_t rows[MATS] = {(H + 2 * Hkv) * d, D, 2 * F, D};
        const size_t cols[MATS] = {D, H * d, D, F};
        for (int i = 0; i < MATS; i++) {
            if (rows[i] > UINT32_MAX || cols[i] > UINT32_MAX) {
                rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0, "CUDA kernel shape: a projection "
                                "has more than 2^32 - 1 rows or columns");
                goto out;
            }
            if ((rc = dmat_create(&ly->m[i], wt, (uint32_t)rows[i], (uint32_t)cols[i],
                                  mix64(ls, (uint64_t)i), k->stream, err)))
                goto out;
        }
        CU(cudaMalloc(&ly->rms_att, D * sizeof(float)), "allocating norms");
        CU(cudaMalloc(&ly->rms_ffn, D * sizeof(float)), "allocating norms");
        fill_floats_k<<<4, 256, 0, k->stream>>>(ly->rms_att, D, mix64(ls, 10), 1.0f, 0.25f);
        fill_floats_k<<<4, 256, 0, k->stream>>>(ly->rms_ffn, D, mix64(ls, 11), 1.0f, 0.25f);
        CU_LAUNCH("generating norms");
    }
    if ((rc = dmat_create(&k->wcls, wt, s.vocab, s.dim, mix64(seed, 3), k->stream, err)))
        goto out;
    CU(cudaStreamSynchronize(k->stream), "generating the weights");
    if ((rc = alloc_state(k, err)))
        goto out;
    *out = k;
    return IC_OK;
out:
    ic_cuda_kern_free(k);
    return rc;
}

extern "C" void ic_cuda_kern_free(struct ic_cuda_kern *k)
{
    if (!k)
        return;
    free_state(k);
    if (k->layers)
        for (uint32_t l = 0; l < k->s.n_layers; l++) {
            for (int i = 0; i < MATS; i++)
                dmat_free(&k->layers[l].m[i]);
            cudaFree(k->layers[l].rms_att);
            cudaFree(k->layers[l].rms_ffn);
        }
    free(k->layers);
    dmat_free(&k->wcls);
    cudaFree(k->embed);
    cudaFree(k->rms_final);
    if (k->blas)
        cublasDestroy(k->blas);
    cudaFree(k->blas_ws);
    if (k->stream)
        cudaStreamDestroy(k->stream);
    free(k);
}

extern "C" int ic_cuda_kern_set_cache(struct ic_cuda_kern *k, uint32_t max_batch, uint32_t max_seq,
                                      struct ic_err *err)
{
    if (max_batch == 0 || max_seq == 0 || max_batch > 256)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "KV cache of %u x %u tokens: batch 1-256, positions >= 1", max_batch,
                          max_seq);
    if (max_batch == k->s.max_batch && max_seq == k->s.max_seq)
        return IC_OK;
    free_state(k);
    k->s.max_batch = max_batch;
    k->s.max_seq = max_seq;
    return alloc_state(k, err);
}

extern "C" int ic_cuda_kern_fill_cache(struct ic_cuda_kern *k, uint32_t b, uint32_t len,
                                       uint64_t seed, struct ic_err *err)
{
    int rc = IC_OK;
    const struct ic_kern_shape *s = &k->s;
    if (b >= s->max_batch)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "fill_cache: sequence %u of %u", b,
                          s->max_batch);
    if (len > s->max_seq)
        len = s->max_seq;
    if (len == 0)
        return IC_OK;
    struct kv_dims kd = {s->n_heads, s->n_kv_heads, s->head_dim, s->max_batch, s->max_seq, 0};
    fill_cache_k<<<4096, 256, 0, k->stream>>>(k->kc, k->vc, kd, s->n_layers, b, len,
                                              mix64(seed, b));
    CU_LAUNCH("filling the cache");
    CU(cudaStreamSynchronize(k->stream), "filling the cache");
out:
    return rc;
}

extern "C" uint64_t ic_cuda_kern_weight_bytes(const struct ic_cuda_kern *k)
{
    uint64_t n = dmat_bytes(&k->wcls);
    for (uint32_t l = 0; l < k->s.n_layers; l++)
        for (int i = 0; i < MATS; i++)
            n += dmat_bytes(&k->layers[l].m[i]);
    return n;
}

/* Enqueues one step at batch on k->stream (tokens and positions already in
 * k->tok, k->pos). */
static int enqueue_step(struct ic_cuda_kern *k, uint32_t batch, struct ic_err *err)
{
    int rc = IC_OK;
    const struct ic_kern_shape *s = &k->s;
    const uint32_t D = s->dim, F = s->hidden_dim, d = s->head_dim, H = s->n_heads,
                   Hkv = s->n_kv_heads, G = H / Hkv;
    const uint32_t nsplit = n_splits(k, batch);
    const uint32_t chunk = (s->max_seq + nsplit - 1) / nsplit;
    const size_t att_smem = (2 * ATT_WARPS * G + (size_t)ATT_WARPS * G * d) * sizeof(float);
    struct mm_ctx mc = {k->stream, k->blas, k->xh, k->xh_n};
    const unsigned nt = D < 1024 ? 256 : 1024; /* norm threads per row */
    embed_k<<<batch, 256, 0, k->stream>>>(k->embed, k->tok, D, k->x);
    norm_k<<<batch, nt, 0, k->stream>>>(k->x, NULL, k->layers[0].rms_att, D, k->xb);
    CU_LAUNCH("embedding and norm");
    for (uint32_t l = 0; l < s->n_layers; l++) {
        const struct layer *ly = &k->layers[l];
        struct kv_dims kd = {H, Hkv, d, s->max_batch, s->max_seq, l};
        if ((rc = matmul(&mc, &ly->m[MAT_QKV], k->xb, batch, k->qkv, err)))
            goto out;
        rope_store_k<<<dim3(batch, H + 2 * Hkv), d / 2, 0, k->stream>>>(k->qkv, k->pos, kd, k->kc,
                                                                        k->vc);
        CU_LAUNCH("RoPE and cache append");
        const dim3 ag(batch * Hkv, nsplit);
        switch (G) {
        case 1:
            attn_split_k<1><<<ag, ATT_WARPS * 32, att_smem, k->stream>>>(
                k->qkv, k->kc, k->vc, k->pos, kd, chunk, k->pm, k->pl, k->po);
            break;
        case 2:
            attn_split_k<2><<<ag, ATT_WARPS * 32, att_smem, k->stream>>>(
                k->qkv, k->kc, k->vc, k->pos, kd, chunk, k->pm, k->pl, k->po);
            break;
        case 4:
            attn_split_k<4><<<ag, ATT_WARPS * 32, att_smem, k->stream>>>(
                k->qkv, k->kc, k->vc, k->pos, kd, chunk, k->pm, k->pl, k->po);
            break;
        default:
            attn_split_k<8><<<ag, ATT_WARPS * 32, att_smem, k->stream>>>(
                k->qkv, k->kc, k->vc, k->pos, kd, chunk, k->pm, k->pl, k->po);
            break;
        }
        CU_LAUNCH("split-K attention");
        attn_reduce_k<<<batch * H, d, 0, k->stream>>>(k->pm, k->pl, k->po, nsplit, d, k->att);
        CU_LAUNCH("attention reduction");
        if ((rc = matmul(&mc, &ly->m[MAT_O], k->att, batch, k->proj, err)))
            goto out;
        norm_k<<<batch, nt, 0, k->stream>>>(k->x, k->proj, ly->rms_ffn, D, k->xb);
        CU_LAUNCH("residual and norm");
        if ((rc = matmul(&mc, &ly->m[MAT_13], k->xb, batch, k->h13, err)))
            goto out;
        {
            const size_t n = (size_t)batch * F;
            swiglu_k<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0,
                       k->stream>>>(k->h13, batch, F, k->hb);
            CU_LAUNCH("SwiGLU");
        }
        if ((rc = matmul(&mc, &ly->m[MAT_2], k->hb, batch, k->proj, err)))
            goto out;
        norm_k<<<batch, nt, 0, k->stream>>>(
            k->x, k->proj, l + 1 < s->n_layers ? k->layers[l + 1].rms_att : k->rms_final, D, k->xb);
        CU_LAUNCH("residual and norm");
    }
    rc = matmul(&mc, &k->wcls, k->xb, batch, k->logits, err);
out:
    return rc;
}

/* The step's graph at batch, captured when the batch changed. */
static int ensure_graph(struct ic_cuda_kern *k, uint32_t batch, struct ic_err *err)
{
    int rc = IC_OK;
    cudaGraph_t g = NULL;
    size_t nodes = 0;
    if (k->graph && k->graph_batch == batch)
        return IC_OK;
    if (k->graph)
        cudaGraphExecDestroy(k->graph);
    k->graph = NULL;
    /* the attention kernel's shared memory may pass 48 KB at G = 8, d = 256 */
    {
        const size_t G = k->s.n_heads / k->s.n_kv_heads;
        const int sm = (int)((2 * ATT_WARPS * G + ATT_WARPS * G * k->s.head_dim) * sizeof(float));
        CU(cudaFuncSetAttribute(attn_split_k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm),
           "attention shared memory");
        CU(cudaFuncSetAttribute(attn_split_k<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm),
           "attention shared memory");
        CU(cudaFuncSetAttribute(attn_split_k<4>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm),
           "attention shared memory");
        CU(cudaFuncSetAttribute(attn_split_k<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, sm),
           "attention shared memory");
    }
    /* One eager step first (the same tokens and positions, so the cache
     * slots it writes are the ones the graph rewrites with the same values):
     * module loading and cuBLAS's first-call setup then happen outside the
     * capture, and a failing kernel is reported by name here rather than as
     * an invalidated capture. */
    if ((rc = enqueue_step(k, batch, err)))
        goto out;
    CU(cudaStreamSynchronize(k->stream), "running the step before capturing it");
    CU(cudaStreamBeginCapture(k->stream, cudaStreamCaptureModeThreadLocal), "starting a capture");
    rc = enqueue_step(k, batch, err);
    {
        cudaError_t e = cudaStreamEndCapture(k->stream, &g);
        if (rc)
            goto out;
        CU(e, "capturing the step");
    }
    CU(cudaGraphGetNodes(g, NULL, &nodes), "counting graph nodes");
    {
        cudaGraphNode_t *list = (cudaGraphNode_t *)calloc(nodes ? nodes : 1, sizeof *list);
        if (!list) {
            rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
            goto out;
        }
        cudaError_t e = cudaGraphGetNodes(g, list, &nodes);
        uint64_t kernels = 0;
        for (size_t i = 0; e == cudaSuccess && i < nodes; i++) {
            cudaGraphNodeType t;
            e = cudaGraphNodeGetType(list[i], &t);
            kernels += e == cudaSuccess && t == cudaGraphNodeTypeKernel;
        }
        free(list);
        CU(e, "reading graph nodes");
        k->graph_kernels = kernels;
    }
    CU(cudaGraphInstantiate(&k->graph, g, 0), "instantiating the step's graph");
    k->graph_batch = batch;
out:
    if (g)
        cudaGraphDestroy(g);
    return rc;
}

static int load_inputs(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                       const uint32_t *pos, struct ic_err *err)
{
    int rc = IC_OK;
    const struct ic_kern_shape *s = &k->s;
    if (batch == 0 || batch > s->max_batch)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "step: batch %u, cache holds %u", batch,
                          s->max_batch);
    for (uint32_t b = 0; b < batch; b++)
        if (tokens[b] >= s->vocab || pos[b] >= s->max_seq)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "step: sequence %u has token %u (vocab %u) at %u (cache %u)", b,
                              tokens[b], s->vocab, pos[b], s->max_seq);
    CU(cudaMemcpyAsync(k->tok, tokens, batch * sizeof(uint32_t), cudaMemcpyHostToDevice,
                       k->stream),
       "copying tokens");
    CU(cudaMemcpyAsync(k->pos, pos, batch * sizeof(uint32_t), cudaMemcpyHostToDevice, k->stream),
       "copying positions");
    rc = ensure_graph(k, batch, err);
out:
    return rc;
}

extern "C" int ic_cuda_kern_step(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                                 const uint32_t *pos, float *logits, struct ic_err *err)
{
    int rc = load_inputs(k, batch, tokens, pos, err);
    if (rc)
        return rc;
    CU(cudaGraphLaunch(k->graph, k->stream), "launching the step");
    if (logits)
        CU(cudaMemcpyAsync(logits, k->logits, (size_t)batch * k->s.vocab * sizeof(float),
                           cudaMemcpyDeviceToHost, k->stream),
           "copying logits");
    CU(cudaStreamSynchronize(k->stream), "running the step");
out:
    return rc;
}

extern "C" int ic_cuda_kern_time(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                                 const uint32_t *pos, int n, double *t_s, uint64_t *kernels,
                                 struct ic_err *err)
{
    cudaEvent_t e0 = NULL, e1 = NULL;
    int rc = ic_cuda_kern_step(k, batch, tokens, pos, NULL, err); /* capture, warm-up */
    if (rc)
        return rc;
    CU(cudaEventCreate(&e0), "creating events");
    CU(cudaEventCreate(&e1), "creating events");
    for (int i = 0; i < n; i++) {
        float ms = 0;
        CU(cudaEventRecord(e0, k->stream), "recording an event");
        CU(cudaGraphLaunch(k->graph, k->stream), "launching the step");
        CU(cudaEventRecord(e1, k->stream), "recording an event");
        CU(cudaEventSynchronize(e1), "running the step");
        CU(cudaEventElapsedTime(&ms, e0, e1), "reading the events");
        t_s[i] = ms * 1e-3;
    }
    *kernels = k->graph_kernels;
out:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    return rc;
}

/* ---- the matmul microbenchmark ---------------------------------------------------- */

extern "C" int ic_cuda_mb_matmul(enum ic_kern_wtype wt, uint32_t rows, uint32_t cols,
                                 uint32_t batch, bool flush, int n, double *v, struct ic_err *err)
{
    int rc = ic_cu_device(err);
    if (rc)
        return rc;
    if (wt != IC_KW_BF16 && wt != IC_KW_INT8)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "matmul benchmark: bf16 or int8 weights");
    struct dmat w = {wt, rows, cols, NULL, NULL};
    struct mm_ctx mc = {NULL, NULL, NULL, (size_t)batch * cols};
    struct ic_cu_flush fl = {NULL, 0};
    float *x = NULL, *y = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    void *ws = NULL;
    CU(cudaStreamCreateWithFlags(&mc.s, cudaStreamNonBlocking), "creating a stream");
    CUBLAS(cublasCreate(&mc.blas), "creating a handle");
    CUBLAS(cublasSetStream(mc.blas, mc.s), "setting the stream");
    CU(cudaMalloc(&ws, 32u << 20), "allocating the cuBLAS workspace");
    CUBLAS(cublasSetWorkspace(mc.blas, ws, 32u << 20), "setting the workspace");
    if ((rc = dmat_create(&w, wt, rows, cols, 1234 + (uint64_t)wt, mc.s, err)))
        goto out;
    CU(cudaMalloc(&x, (size_t)batch * cols * sizeof(float)), "allocating activations");
    CU(cudaMalloc(&y, (size_t)batch * rows * sizeof(float)), "allocating outputs");
    CU(cudaMalloc(&mc.xh, mc.xh_n * sizeof(bf16)), "allocating bf16 activations");
    fill_floats_k<<<1024, 256, 0, mc.s>>>(x, (uint64_t)batch * cols, 77, 0.0f, 1.0f);
    CU_LAUNCH("filling activations");
    if (flush && (rc = ic_cu_flush_init(&fl, err)))
        goto out;
    CU(cudaEventCreate(&e0), "creating events");
    CU(cudaEventCreate(&e1), "creating events");
    for (int i = -2; i < n; i++) { /* two warm-ups */
        float ms = 0;
        if (flush)
            ic_cu_flush_run(&fl, mc.s);
        CU(cudaEventRecord(e0, mc.s), "recording an event");
        if ((rc = matmul(&mc, &w, x, batch, y, err)))
            goto out;
        CU(cudaEventRecord(e1, mc.s), "recording an event");
        CU(cudaEventSynchronize(e1), "running the matmul");
        CU(cudaEventElapsedTime(&ms, e0, e1), "reading the events");
        if (i >= 0)
            v[i] = ms * 1e-3;
    }
out:
    if (e0)
        cudaEventDestroy(e0);
    if (e1)
        cudaEventDestroy(e1);
    ic_cu_flush_free(&fl);
    dmat_free(&w);
    cudaFree(x);
    cudaFree(y);
    cudaFree(mc.xh);
    if (mc.blas)
        cublasDestroy(mc.blas);
    cudaFree(ws);
    if (mc.s)
        cudaStreamDestroy(mc.s);
    return rc;
}
