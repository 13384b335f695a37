/* ic_kern_simd: weight matrices and the matmul every projection of the
 * decode step runs through (the kernel's hot loop).
 *
 * y[b][r] = sum_c W[r][c] * x[b][c]: both operands are contiguous along c,
 * so the kernel is a blocked set of dot products. A tile holds up to 4 rows
 * of W against up to BT_MAX batch rows in registers (4 x 6 accumulators of
 * 16 floats with AVX-512), so each weight vector loaded is used BT times and
 * each activation vector 4 times.
 *
 * Arithmetic by weight type:
 *  - fp32 and bf16: fp32 FMA. bf16 is widened on load by bit operations
 *    only: the rows are stored in blocks of 2 x VW elements interleaved so
 *    that one vector load holds element i of the block in the low half of
 *    32-bit lane i and element VW + i in the high half; `x << 16` and
 *    `x & 0xffff0000` are then the two halves of the block as fp32, without
 *    the cross-lane widening shuffle (a 2-cycle op on Zen 4 that made the
 *    batch-1 loop compute-bound).
 *  - int8 with AVX512-VNNI: integer dot products (vpdpwssd) of the int8
 *    weights, widened to int16 by shifts (rows stored in blocks of 64 with
 *    elements j and 32 + j in one 16-bit lane), against the activations
 *    quantized per batch row to int16 (scale max|x| / 32767, so they carry
 *    ~15 significant bits, 256x finer than the int8 weights). Partial sums
 *    are moved to fp32 every 4096 columns, before an int32 could overflow.
 *    This is ~6 instructions per cache line of weights instead of ~15, which
 *    is what lets one core keep up with DRAM.
 *  - int8 otherwise: sign-extend, convert, fp32 FMA.
 *  The int8 row scale is applied once to each finished dot product.
 *
 * Why this shape:
 *  - batch 1 is a stream of W from DRAM: rows are split over threads in
 *    contiguous blocks, each thread streams 4 rows at a time, with >= 8
 *    independent accumulator chains so the loop runs well ahead of memory,
 *    and, for rows under 32 KiB, software prefetches into L2 4 KiB ahead
 *    that run on from a tile's rows into the next tile's (on the Zen 4
 *    machines we measure on, the hardware prefetchers alone left 15-30% of
 *    the read bandwidth unused on such rows; on longer ones they do best
 *    alone).
 *  - batch > BT_MAX: for each panel of NP rows the columns are cut in blocks
 *    of KC, and one block of the panel (NP x KC weights, L2-resident) meets
 *    every batch tile (BT x KC activations, L1-resident; 8 as 4 + 4, not
 *    6 + 2) before the next
 *    block is read, so each weight cache line comes from DRAM once per call
 *    and the FMAs are fed from L1/L2. The partial dot products of a block
 *    are reduced and added into y.
 *  - no float reduction is left to the compiler (gcc will not reorder one
 *    without -ffast-math): the vector paths keep explicit accumulators and
 *    the portable path keeps per-lane accumulator arrays.
 * Column tails (the last cols % block elements of a row, stored in plain
 * order) are added with scalar code after the vector part. */
#include "ic_kern.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#define ALWAYS_INLINE inline __attribute__((always_inline))
/* Loads a vector once into a register: without it gcc folds the activation
 * load into each of the R FMAs that use it, R loads instead of one, which
 * made the large-batch tile load-bound (one 512-bit load per cycle on Zen 4). */
#if defined(__GNUC__) && (defined(__AVX512F__) || defined(__AVX2__))
#define KEEP_IN_REG(v) __asm__("" : "+v"(v))
#else
#define KEEP_IN_REG(v) ((void)0)
#endif

/* ---- vector layer ---------------------------------------------------------
 * vf holds VW floats; load_bf16x2 widens one interleaved block of 2 VW bf16
 * weights into two vectors; hsum4 reduces four accumulators to their sums. */
#if defined(__AVX512F__)
enum { VW = 16, BT_MAX = 6 }; /* 4 x 6 accumulators + 4 weights + 1 x = 29 of 32 zmm */
typedef __m512 vf;
static ALWAYS_INLINE vf v_zero(void) { return _mm512_setzero_ps(); }
static ALWAYS_INLINE vf v_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
static ALWAYS_INLINE vf v_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static ALWAYS_INLINE vf v_load_f32(const float *p) { return _mm512_loadu_ps(p); }
static ALWAYS_INLINE void v_load_bf16x2(const uint16_t *p, vf *lo, vf *hi)
{
    __m512i v = _mm512_loadu_si512((const void *)p);
    *lo = _mm512_castsi512_ps(_mm512_slli_epi32(v, 16));
    *hi = _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32((int)0xFFFF0000u)));
}
static ALWAYS_INLINE vf v_load_i8(const int8_t *p)
{
    __m128i q = _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q));
}
static ALWAYS_INLINE __m256 half_sum(vf a)
{
    __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1));
    return _mm256_add_ps(_mm512_castps512_ps256(a), hi);
}
static ALWAYS_INLINE void v_hsum4(vf a, vf b, vf c, vf d, float *restrict out /* [4] */)
{
    /* per 128-bit lane, hadd(hadd(a, b), hadd(c, d)) = [sum a, sum b, sum c, sum d] */
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(half_sum(a), half_sum(b)),
                              _mm256_hadd_ps(half_sum(c), half_sum(d)));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
static ALWAYS_INLINE float v_hsum(vf a) { return _mm512_reduce_add_ps(a); }
#elif defined(__AVX2__) && defined(__FMA__)
enum { VW = 8, BT_MAX = 3 }; /* 4 x 3 accumulators + 3 x + 1 weight = 16 ymm */
typedef __m256 vf;
static ALWAYS_INLINE vf v_zero(void) { return _mm256_setzero_ps(); }
static ALWAYS_INLINE vf v_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
static ALWAYS_INLINE vf v_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static ALWAYS_INLINE vf v_load_f32(const float *p) { return _mm256_loadu_ps(p); }
static ALWAYS_INLINE void v_load_bf16x2(const uint16_t *p, vf *lo, vf *hi)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
    *lo = _mm256_castsi256_ps(_mm256_slli_epi32(v, 16));
    *hi = _mm256_castsi256_ps(_mm256_and_si256(v, _mm256_set1_epi32((int)0xFFFF0000u)));
}
static ALWAYS_INLINE vf v_load_i8(const int8_t *p)
{
    __m128i q = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q));
}
static ALWAYS_INLINE void v_hsum4(vf a, vf b, vf c, vf d, float *restrict out /* [4] */)
{
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
}
static ALWAYS_INLINE float v_hsum(vf a)
{
    float t[4];
    v_hsum4(a, v_zero(), v_zero(), v_zero(), t);
    return t[0];
}
#else
/* Portable: per-lane accumulator arrays. Each lane is its own sum, so the
 * compiler may keep lanes in vector registers without reordering any sum. */
enum { VW = 8, BT_MAX = 2 };
typedef struct {
    float v[VW];
} vf;
static ALWAYS_INLINE vf v_zero(void) { return (vf){{0}}; }
static ALWAYS_INLINE vf v_fma(vf a, vf b, vf c)
{
    for (int i = 0; i < VW; i++)
        c.v[i] += a.v[i] * b.v[i];
    return c;
}
static ALWAYS_INLINE vf v_add(vf a, vf b)
{
    for (int i = 0; i < VW; i++)
        a.v[i] += b.v[i];
    return a;
}
static ALWAYS_INLINE vf v_load_f32(const float *p)
{
    vf r;
    memcpy(r.v, p, sizeof r.v);
    return r;
}
static ALWAYS_INLINE void v_load_bf16x2(const uint16_t *p, vf *lo, vf *hi)
{
    for (int i = 0; i < VW; i++) {
        lo->v[i] = ic_kern_bf16_to_f32(p[2 * i]);
        hi->v[i] = ic_kern_bf16_to_f32(p[2 * i + 1]);
    }
}
static ALWAYS_INLINE vf v_load_i8(const int8_t *p)
{
    vf r;
    for (int i = 0; i < VW; i++)
        r.v[i] = (float)p[i];
    return r;
}
static ALWAYS_INLINE float v_hsum(vf a)
{
    float s = 0;
    for (int i = 0; i < VW; i++)
        s += a.v[i];
    return s;
}
static ALWAYS_INLINE void v_hsum4(vf a, vf b, vf c, vf d, float *restrict out /* [4] */)
{
    out[0] = v_hsum(a);
    out[1] = v_hsum(b);
    out[2] = v_hsum(c);
    out[3] = v_hsum(d);
}
#endif

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VNNI__)
#define I8_VNNI 1
enum { BT_I8 = 4 }; /* 4 x 4 int32 accumulators + 8 weight halves + 2 x = 26 zmm */
#else
#define I8_VNNI 0
enum { BT_I8 = 1 }; /* unused */
#endif

/* ---- types -------------------------------------------------------------- */

static const struct {
    const char *name;
    uint32_t bits;
    size_t size_B; /* bytes per stored element */
    uint32_t blk;  /* elements per interleaved storage block, 1 = plain order */
} wtypes[] = {
    [IC_KW_FP32] = {"fp32", 32, 4, 1},
    [IC_KW_BF16] = {"bf16", 16, 2, 2 * VW},
    [IC_KW_INT8] = {"int8", 8, 1, I8_VNNI ? 64 : 1},
};
_Static_assert(sizeof wtypes / sizeof wtypes[0] == IC_KW_COUNT, "one entry per weight type");

static const char *const kvtype_names[] = {
    [IC_KKV_BF16] = "bf16",
    [IC_KKV_INT8] = "int8",
};
_Static_assert(sizeof kvtype_names / sizeof kvtype_names[0] == IC_KKV_COUNT,
               "one entry per KV type");

const char *ic_kern_wtype_name(enum ic_kern_wtype t)
{
    return (unsigned)t < IC_KW_COUNT ? wtypes[t].name : "?";
}

const char *ic_kern_kvtype_name(enum ic_kern_kvtype t)
{
    return (unsigned)t < IC_KKV_COUNT ? kvtype_names[t] : "?";
}

uint32_t ic_kern_wtype_bits(enum ic_kern_wtype t)
{
    return (unsigned)t < IC_KW_COUNT ? wtypes[t].bits : 0;
}

/* ---- deterministic random numbers and conversions ------------------------ */

double ic_kern_uniform(uint64_t seed, uint64_t i)
{
    /* splitmix64 of (seed, i): a counter-based generator, so any element can
     * be made on its own and every weight type sees the same values. */
    uint64_t z = seed * 0xD1342543DE82EF95u + i * 0x9E3779B97F4A7C15u + 0x2545F4914F6CDD1Du;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1p-52 - 1.0; /* 53 bits -> [0, 2) -> [-1, 1) */
}

uint16_t ic_kern_f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN: keep it a (quiet) NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    /* round to nearest, ties to even: add 0x7FFF plus the kept LSB */
    u += 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float ic_kern_bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- matrices ------------------------------------------------------------ */

struct ic_kern_matrix {
    enum ic_kern_wtype t;
    uint32_t rows; /* N */
    uint32_t cols; /* K */
    void *data;    /* [N][K] float, uint16_t (bf16 bits) or int8_t, in storage order
                      (see pos()); 64-byte aligned */
    float *scale;  /* [N] int8 only: W[r][c] = scale[r] * q[r][c]; NULL otherwise */
};

/* Where column c of a row of K columns is stored within the row. Blocks of
 * blk columns are interleaved in halves (element e < blk/2 at 2e, element
 * blk/2 + e at 2e + 1); the last K % blk columns stay in order. */
static ALWAYS_INLINE size_t pos(enum ic_kern_wtype t, uint32_t c, uint32_t K)
{
    const uint32_t blk = wtypes[t].blk;
    if (blk == 1 || c >= K - K % blk)
        return c;
    const uint32_t e = c % blk, half = blk / 2;
    return (size_t)(c - e) + (e < half ? 2 * e : 2 * (e - half) + 1);
}

/* 64-byte aligned (cache lines, full vector loads), size rounded up as
 * aligned_alloc requires. */
static void *alloc64(uint64_t n_B)
{
    if (n_B > SIZE_MAX - 64)
        return NULL;
    size_t n = ((size_t)n_B + 63) & ~(size_t)63;
    return aligned_alloc(64, n ? n : 64);
}

int ic_kern_matrix_create(enum ic_kern_wtype t, uint32_t rows, uint32_t cols, uint64_t seed,
                          struct ic_kern_matrix **out, struct ic_err *err)
{
    if ((unsigned)t >= IC_KW_COUNT)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "unknown weight type %d", (int)t);
    if (rows == 0 || cols == 0)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "matrix of %" PRIu32 " x %" PRIu32
                          " elements: both sizes must be positive",
                          rows, cols);
    struct ic_kern_matrix *m = calloc(1, sizeof *m);
    if (!m)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for a matrix");
    *m = (struct ic_kern_matrix){.t = t, .rows = rows, .cols = cols};
    const uint64_t n = (uint64_t)rows * cols;
    m->data = alloc64(n * wtypes[t].size_B);
    if (t == IC_KW_INT8)
        m->scale = alloc64((uint64_t)rows * sizeof(float));
    if (!m->data || (t == IC_KW_INT8 && !m->scale)) {
        ic_kern_matrix_free(m);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0,
                          "out of memory for a %" PRIu32 " x %" PRIu32 " %s matrix (%.3g GB)",
                          rows, cols, wtypes[t].name, (double)n * (double)wtypes[t].size_B / 1e9);
    }
    const double a = 1.0 / sqrt((double)cols); /* entries uniform in [-a, a) */
    for (uint32_t r = 0; r < rows; r++) {
        const uint64_t base = (uint64_t)r * cols;
        switch (t) {
        case IC_KW_FP32: {
            float *row = (float *)m->data + base; /* [K] */
            for (uint32_t c = 0; c < cols; c++)
                row[c] = (float)(a * ic_kern_uniform(seed, base + c));
            break;
        }
        case IC_KW_BF16: {
            uint16_t *row = (uint16_t *)m->data + base; /* [K] storage order */
            for (uint32_t c = 0; c < cols; c++)
                row[pos(t, c, cols)] =
                    ic_kern_f32_to_bf16((float)(a * ic_kern_uniform(seed, base + c)));
            break;
        }
        case IC_KW_INT8:
        case IC_KW_COUNT: {
            /* symmetric per row: scale = max|w| / 127, q = round(w / scale) */
            int8_t *row = (int8_t *)m->data + base; /* [K] storage order */
            float maxabs = 0;
            for (uint32_t c = 0; c < cols; c++)
                maxabs = fmaxf(maxabs, fabsf((float)(a * ic_kern_uniform(seed, base + c))));
            const float s = maxabs > 0 ? maxabs / 127.0f : 1.0f;
            m->scale[r] = s;
            for (uint32_t c = 0; c < cols; c++) {
                float q = nearbyintf((float)(a * ic_kern_uniform(seed, base + c)) / s);
                row[pos(IC_KW_INT8, c, cols)] = (int8_t)fminf(127.0f, fmaxf(-127.0f, q));
            }
            break;
        }
        }
    }
    *out = m;
    return IC_OK;
}

void ic_kern_matrix_free(struct ic_kern_matrix *m)
{
    if (!m)
        return;
    free(m->data);
    free(m->scale);
    free(m);
}

uint64_t ic_kern_matrix_bytes(const struct ic_kern_matrix *m)
{
    uint64_t b = (uint64_t)m->rows * m->cols * wtypes[m->t].bits / 8;
    if (m->t == IC_KW_INT8)
        b += (uint64_t)m->rows * sizeof(float);
    return b;
}

uint32_t ic_kern_matrix_rows(const struct ic_kern_matrix *m) { return m->rows; }
uint32_t ic_kern_matrix_cols(const struct ic_kern_matrix *m) { return m->cols; }

void ic_kern_matrix_row(const struct ic_kern_matrix *m, uint32_t r, float *restrict out)
{
    const uint32_t K = m->cols;
    const uint64_t base = (uint64_t)r * K;
    switch (m->t) {
    case IC_KW_FP32:
        memcpy(out, (const float *)m->data + base, (size_t)K * sizeof(float));
        break;
    case IC_KW_BF16:
        for (uint32_t c = 0; c < K; c++)
            out[c] = ic_kern_bf16_to_f32(((const uint16_t *)m->data)[base + pos(m->t, c, K)]);
        break;
    case IC_KW_INT8:
    case IC_KW_COUNT:
        for (uint32_t c = 0; c < K; c++)
            out[c] = m->scale[r] *
                     (float)((const int8_t *)m->data)[base + pos(IC_KW_INT8, c, K)];
        break;
    }
}

/* ---- the float tile -------------------------------------------------------
 * out[b][r] = sum_{c < kn} W[r][c] * x[b][c] for r < R, b < BT, where W
 * points at row r0, column k0 of the matrix (row stride ldw elements, k0 a
 * multiple of the storage block) and x at batch row b0, column k0 (row
 * stride ldx floats). R is 1 or 4; int8 here means the non-VNNI path (plain
 * order, no scale). An iteration eats one cache line of every row where the
 * type allows (U blocks), and at BT <= 3 each (r, b) has S = 2 accumulators,
 * so there are >= 8 independent FMA chains: a loop that runs well ahead of
 * memory keeps more misses in flight and catches up after a stall. t, R, BT
 * are constants at every call site, so the loops unroll and the accumulators
 * live in registers. */
#ifndef PF_B
#define PF_B 4096 /* bytes ahead per row; 4 KiB measured best (2 KiB and 8 KiB 3-7% worse) */
#endif
#ifndef PF_ROW_B
#define PF_ROW_B 32768 /* rows this long or longer are left to the hardware */
#endif
#ifndef PF_LOC
#define PF_LOC 2 /* __builtin_prefetch locality 2: prefetcht1, into L2 (t0 and nta 20-40% worse) */
#endif

/* Prefetches columns [off + PF_B, off + PF_B + span) (bytes) of the R rows
 * at p. Past the end of whole rows (row_B == ld_B) the tile's rows continue
 * in the next tile's rows, R rows further on, so the streams of one tile
 * run on into the next without the cold start the hardware prefetchers
 * would pay per new row. */
static ALWAYS_INLINE void prefetch_rows(const char *p, size_t ld_B, int R, size_t off_B,
                                        size_t span_B, size_t row_B)
{
#if PF_B > 0 && defined(__GNUC__)
    for (int r = 0; r < R; r++)
        for (size_t l = 0; l < span_B; l += 64) {
            size_t o = off_B + l + PF_B;
            if (o >= row_B && row_B == ld_B)
                o += (size_t)(R - 1) * ld_B;
            __builtin_prefetch(p + (size_t)r * ld_B + o, 0, PF_LOC);
        }
#else
    (void)p, (void)ld_B, (void)R, (void)off_B, (void)span_B, (void)row_B;
#endif
}

static ALWAYS_INLINE float w_at(enum ic_kern_wtype t, const void *w, size_t i)
{
    switch (t) {
    case IC_KW_FP32:
        return ((const float *)w)[i];
    case IC_KW_BF16:
        return ic_kern_bf16_to_f32(((const uint16_t *)w)[i]);
    case IC_KW_INT8:
    case IC_KW_COUNT:
        break;
    }
    return (float)((const int8_t *)w)[i];
}

static ALWAYS_INLINE void tile(enum ic_kern_wtype t, int R, int BT, const void *restrict w,
                               size_t ldw, const float *restrict x, size_t ldx, uint32_t kn,
                               float out[restrict][4] /* [BT][4] */)
{
    const size_t esz = t == IC_KW_FP32 ? 4 : t == IC_KW_BF16 ? 2 : 1;
    const int NPL = t == IC_KW_BF16 ? 2 : 1;   /* vectors per storage block */
    const uint32_t BLK = (uint32_t)(NPL * VW); /* columns per block */
    /* accumulators per (r, b) and blocks per iteration: >= 8 chains in all,
     * an iteration of >= 1 cache line per row */
    const int S = R * BT == 1 ? 8 : BT <= 3 ? 2 : 1;
    const int U = R * BT == 1 ? (t == IC_KW_BF16 ? 4 : t == IC_KW_FP32 ? 8 : 8)
                  : t == IC_KW_BF16 ? 1 : BT <= 3 ? 2 : 1;
    vf acc[4][8]; /* [r][b * S + s]; only R x BT*S <= 4 x 6 or 1 x 8 used */
    for (int r = 0; r < R; r++)
        for (int j = 0; j < BT * S; j++)
            acc[r][j] = v_zero();
    const uint32_t step = BLK * (uint32_t)U;
    const uint32_t ku = kn - kn % step, kb = kn - kn % BLK;
    for (uint32_t k = 0; k < kb;) {
        const int u_n = k < ku ? U : 1;
        /* Streaming whole rows (a column block is L2-resident anyway) of
         * under PF_ROW_B bytes: on longer rows the hardware prefetchers do
         * best alone, and adding ours cost 5-10% (bench_kernel, 32 KiB
         * fp32 rows); on shorter ones ours gained 10-20%. */
        if (k < ku && kn == ldw && ldw * esz < PF_ROW_B)
            prefetch_rows((const char *)w, ldw * esz, R, k * esz, step * esz, kn * esz);
        for (int u = 0; u < u_n; u++) {
            const uint32_t kk = k + (uint32_t)u * BLK;
            vf wv[4][2];
            for (int r = 0; r < R; r++) {
                if (t == IC_KW_BF16)
                    v_load_bf16x2((const uint16_t *)w + (size_t)r * ldw + kk, &wv[r][0],
                                  &wv[r][1]);
                else if (t == IC_KW_FP32)
                    wv[r][0] = v_load_f32((const float *)w + (size_t)r * ldw + kk);
                else
                    wv[r][0] = v_load_i8((const int8_t *)w + (size_t)r * ldw + kk);
            }
            for (int p = 0; p < NPL; p++) {
                const int s = (u * NPL + p) % S;
                for (int b = 0; b < BT; b++) {
                    vf xv = v_load_f32(x + (size_t)b * ldx + kk + (uint32_t)p * VW);
                    KEEP_IN_REG(xv);
                    for (int r = 0; r < R; r++)
                        acc[r][b * S + s] = v_fma(wv[r][p], xv, acc[r][b * S + s]);
                }
            }
        }
        k += (uint32_t)u_n * BLK;
    }
    for (int r = 0; r < R; r++)
        for (int b = 0; b < BT; b++)
            for (int s = 1; s < S; s++)
                acc[r][b * S] = v_add(acc[r][b * S], acc[r][b * S + s]);
    for (int b = 0; b < BT; b++) {
        if (R == 4)
            v_hsum4(acc[0][b * S], acc[1][b * S], acc[2][b * S], acc[3][b * S], out[b]);
        else
            for (int r = 0; r < R; r++)
                out[b][r] = v_hsum(acc[r][b * S]);
    }
    for (uint32_t k = kb; k < kn; k++) /* the row's tail: plain order */
        for (int b = 0; b < BT; b++)
            for (int r = 0; r < R; r++)
                out[b][r] += w_at(t, w, (size_t)r * ldw + k) * x[(size_t)b * ldx + k];
}

/* One instance per (type, R, BT): the dispatch below picks it at run time. */
typedef void tile_fn(const void *restrict w, size_t ldw, const float *restrict x, size_t ldx,
                     uint32_t kn, float out[restrict][4]);
#define TILE_FN(T, TN, R, BT)                                                                    \
    static void tile_##TN##_##R##_##BT(const void *restrict w, size_t ldw,                     \
                                       const float *restrict x, size_t ldx, uint32_t kn,       \
                                       float out[restrict][4])                                 \
    {                                                                                           \
        tile(T, R, (BT) < BT_MAX ? (BT) : BT_MAX, w, ldw, x, ldx, kn, out);                     \
    }
#define TILES_R(T, TN, R)                                                                        \
    TILE_FN(T, TN, R, 1)                                                                        \
    TILE_FN(T, TN, R, 2)                                                                        \
    TILE_FN(T, TN, R, 3)                                                                        \
    TILE_FN(T, TN, R, 4)                                                                        \
    TILE_FN(T, TN, R, 5)                                                                        \
    TILE_FN(T, TN, R, 6)
#define TILES(T, TN) TILES_R(T, TN, 1) TILES_R(T, TN, 4)
TILES(IC_KW_FP32, fp32)
TILES(IC_KW_BF16, bf16)
TILES(IC_KW_INT8, int8)

#define TABLE_R(TN, R)                                                                           \
    {tile_##TN##_##R##_1, tile_##TN##_##R##_2, tile_##TN##_##R##_3,                              \
     tile_##TN##_##R##_4, tile_##TN##_##R##_5, tile_##TN##_##R##_6}
/* [type][R == 4][BT - 1]; only BT <= BT_MAX are ever called */
static tile_fn *const tiles[IC_KW_COUNT][2][6] = {
    [IC_KW_FP32] = {TABLE_R(fp32, 1), TABLE_R(fp32, 4)},
    [IC_KW_BF16] = {TABLE_R(bf16, 1), TABLE_R(bf16, 4)},
    [IC_KW_INT8] = {TABLE_R(int8, 1), TABLE_R(int8, 4)},
};
_Static_assert(BT_MAX <= 6, "the tile table has 6 batch sizes");

/* ---- the int8 VNNI tile ---------------------------------------------------
 * out[b][r] = sum_c q[r][c] * x[b][c] (no row scale), with the 64-column
 * blocks computed as sx[b] * sum_c q[r][c] * xq[b][c] in int32 and the tail
 * in fp32 from x. xq: [BT][ldq] int16 activations quantized with scale sx. */
#if I8_VNNI
enum { I8_FLUSH = 4096 }; /* columns per int32 partial: 256 products of
                             <= 127 * 32767 per lane, < 2^31 */

static ALWAYS_INLINE void tile_i8(int R, int BT, const int8_t *restrict w, size_t ldw,
                                  const int16_t *restrict xq, size_t ldq,
                                  const float *restrict sx, const float *restrict x, size_t ldx,
                                  uint32_t kn, float out[restrict][4] /* [BT][4] */)
{
    /* accumulators per (r, b) and 64-column blocks per iteration: >= 4
     * independent chains, >= 128 bytes of one row per iteration at batch 1 */
    const int S = R * BT == 1 ? 4 : BT <= 2 ? 2 : 1;
    const uint32_t U = R * BT == 1 ? 2 : 1;
    for (int b = 0; b < BT; b++)
        for (int r = 0; r < R; r++)
            out[b][r] = 0;
    const uint32_t kb = kn - kn % 64;
    for (uint32_t c0 = 0; c0 < kb; c0 += I8_FLUSH) {
        const uint32_t c1 = kb - c0 < I8_FLUSH ? kb : c0 + I8_FLUSH;
        __m512i acc[4][4]; /* [r][b * S + s] */
        for (int r = 0; r < R; r++)
            for (int j = 0; j < BT * S; j++)
                acc[r][j] = _mm512_setzero_si512();
        for (uint32_t k = c0; k < c1;) {
            const uint32_t u_n = c1 - k >= 64 * U ? U : 1;
            if (kn == ldw && ldw < PF_ROW_B)
                prefetch_rows((const char *)w, ldw, R, k, 64 * u_n, kn);
            for (uint32_t u = 0; u < u_n; u++, k += 64) {
                __m512i lo[4], hi[4]; /* int16 lanes: columns k + j and k + 32 + j */
                for (int r = 0; r < R; r++) {
                    const __m512i v = _mm512_loadu_si512((const void *)(w + (size_t)r * ldw + k));
                    lo[r] = _mm512_srai_epi16(_mm512_slli_epi16(v, 8), 8);
                    hi[r] = _mm512_srai_epi16(v, 8);
                }
                const int s0 = (int)(2 * u) % S, s1 = (int)(2 * u + 1) % S;
                for (int b = 0; b < BT; b++) {
                    const int16_t *qb = xq + (size_t)b * ldq + k;
                    const __m512i x0 = _mm512_loadu_si512((const void *)qb);
                    const __m512i x1 = _mm512_loadu_si512((const void *)(qb + 32));
                    for (int r = 0; r < R; r++) {
                        acc[r][b * S + s0] = _mm512_dpwssd_epi32(acc[r][b * S + s0], lo[r], x0);
                        acc[r][b * S + s1] = _mm512_dpwssd_epi32(acc[r][b * S + s1], hi[r], x1);
                    }
                }
            }
        }
        for (int b = 0; b < BT; b++) {
            vf f[4];
            for (int r = 0; r < R; r++) {
                f[r] = _mm512_cvtepi32_ps(acc[r][b * S]);
                for (int j = 1; j < S; j++)
                    f[r] = _mm512_add_ps(f[r], _mm512_cvtepi32_ps(acc[r][b * S + j]));
            }
            float part[4];
            if (R == 4)
                v_hsum4(f[0], f[1], f[2], f[3], part);
            else
                part[0] = v_hsum(f[0]);
            for (int r = 0; r < R; r++)
                out[b][r] += sx[b] * part[r];
        }
    }
    for (uint32_t k = kb; k < kn; k++)
        for (int b = 0; b < BT; b++)
            for (int r = 0; r < R; r++)
                out[b][r] += (float)w[(size_t)r * ldw + k] * x[(size_t)b * ldx + k];
}

typedef void tile_i8_fn(const int8_t *restrict w, size_t ldw, const int16_t *restrict xq,
                        size_t ldq, const float *restrict sx, const float *restrict x, size_t ldx,
                        uint32_t kn, float out[restrict][4]);
#define TILE_I8_FN(R, BT)                                                                        \
    static void tile_i8_##R##_##BT(const int8_t *restrict w, size_t ldw,                        \
                                   const int16_t *restrict xq, size_t ldq,                      \
                                   const float *restrict sx, const float *restrict x,           \
                                   size_t ldx, uint32_t kn, float out[restrict][4])             \
    {                                                                                           \
        tile_i8(R, BT, w, ldw, xq, ldq, sx, x, ldx, kn, out);                                   \
    }
TILE_I8_FN(1, 1)
TILE_I8_FN(1, 2)
TILE_I8_FN(1, 3)
TILE_I8_FN(1, 4)
TILE_I8_FN(4, 1)
TILE_I8_FN(4, 2)
TILE_I8_FN(4, 3)
TILE_I8_FN(4, 4)
static tile_i8_fn *const tiles_i8[2][BT_I8] = {
    {tile_i8_1_1, tile_i8_1_2, tile_i8_1_3, tile_i8_1_4},
    {tile_i8_4_1, tile_i8_4_2, tile_i8_4_3, tile_i8_4_4},
};

/* xq[b][c] = round(x[b][c] / sx[b]), sx[b] = max_c |x[b][c]| / 32767. */
static void quantize_x(const float *restrict x, uint32_t batch, uint32_t K,
                       int16_t *restrict xq /* [batch][K] */, float *restrict sx /* [batch] */)
{
    for (uint32_t b = 0; b < batch; b++) {
        const float *xb = x + (size_t)b * K;
        __m512 m = _mm512_setzero_ps();
        uint32_t c = 0;
        for (; c + 16 <= K; c += 16)
            m = _mm512_max_ps(m, _mm512_abs_ps(_mm512_loadu_ps(xb + c)));
        float maxabs = _mm512_reduce_max_ps(m);
        for (; c < K; c++)
            maxabs = fmaxf(maxabs, fabsf(xb[c]));
        sx[b] = maxabs / 32767.0f;
        const float inv_s = maxabs > 0 ? 32767.0f / maxabs : 0.0f;
        const __m512 inv = _mm512_set1_ps(inv_s);
        int16_t *q = xq + (size_t)b * K;
        for (c = 0; c + 16 <= K; c += 16) {
            const __m512i qi = _mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(xb + c), inv));
            _mm256_storeu_si256((__m256i *)(void *)(q + c), _mm512_cvtsepi32_epi16(qi));
        }
        for (; c < K; c++)
            q[c] = (int16_t)fminf(32767.0f, fmaxf(-32767.0f, nearbyintf(xb[c] * inv_s)));
    }
}
#endif

/* ---- the matmul ---------------------------------------------------------- */

enum {
    PANEL_B = 256 * 1024, /* bytes of W per panel at large batch: a quarter of L2 */
    SPLIT = 16,           /* thread row blocks are multiples of this (whole lines of y) */
};

struct matmul_job {
    const struct ic_kern_matrix *w;
    const float *x; /* [batch][K] */
    uint32_t batch;
    float *y;          /* [batch][N] */
    const int16_t *xq; /* [batch][K] quantized x for the int8 VNNI path, else NULL */
    const float *sx;   /* [batch] its scales */
};

/* Rows [r0, r1) of y = W x for every batch row. */
static void matmul_rows(const struct matmul_job *j, uint32_t r0, uint32_t r1)
{
    const struct ic_kern_matrix *w = j->w;
    const enum ic_kern_wtype t = w->t;
    const size_t esz = wtypes[t].size_B;
    const uint32_t K = w->cols, N = w->rows, batch = j->batch;
    const uint32_t bmax = j->xq ? BT_I8 : BT_MAX;
    /* At small batch the whole row is one block: nothing to reuse, W streams.
     * Past it, whole rows still (W then streams from DRAM in order, which the
     * hardware prefetcher follows; column blocks made it 64 short strided
     * streams, latency-bound), in panels of about PANEL_B so that a panel
     * stays in L2 while every batch tile meets it. */
    const uint32_t kc = K;
    uint32_t np = r1 - r0;
    /* batch tiles of ceil(batch / ntile), ntile the fewest of at most bmax:
     * 8 as 4 + 4, not 6 + 2 (the last tile can still be short: 32 as 6 x 5
     * + 2; an even split is the next step). bf16 at batch 8 from DRAM ran
     * 9.7-10.6 ms on a 128 MiB matrix against 3.8 at batch 4, and 6.8-7.1
     * ms as 4 + 4 (a throwaway diagnostic, 2026-12-02). Why is not
     * established: both splits widen every weight twice; the AVX-512 bf16
     * tile of 6 batch rows needs 33 vector registers of 32 and may spill. */
    const uint32_t ntile = (batch + bmax - 1) / bmax, bstep = (batch + ntile - 1) / ntile;
    if (batch > bmax) {
        uint64_t fit = PANEL_B / ((uint64_t)K * esz);
        np = fit < 4 ? 4 : (uint32_t)(fit & ~(uint64_t)3);
    }
    const char *base = w->data;
    for (uint32_t rp = r0; rp < r1; rp += np) {
        const uint32_t rpe = r1 - rp < np ? r1 : rp + np;
        for (uint32_t k0 = 0; k0 < K; k0 += kc) {
            const uint32_t kn = K - k0 < kc ? K - k0 : kc;
            for (uint32_t b0 = 0; b0 < batch; b0 += bstep) {
                const uint32_t bt = batch - b0 < bstep ? batch - b0 : bstep;
                const float *xb = j->x + (size_t)b0 * K + k0; /* [bt][K] from column k0 */
                for (uint32_t r = rp; r < rpe;) {
                    const uint32_t R = rpe - r >= 4 ? 4 : 1;
                    const void *wp = base + ((size_t)r * K + k0) * esz;
                    float out[BT_MAX][4]; /* [b][r] partial dot products */
#if I8_VNNI
                    if (j->xq)
                        tiles_i8[R == 4][bt - 1](wp, K, j->xq + (size_t)b0 * K + k0, K,
                                                 j->sx + b0, xb, K, kn, out);
                    else
#endif
                        tiles[t][R == 4][bt - 1](wp, K, xb, K, kn, out);
                    for (uint32_t b = 0; b < bt; b++) {
                        float *yr = j->y + (size_t)(b0 + b) * N + r; /* [R] */
                        for (uint32_t i = 0; i < R; i++) {
                            const float v =
                                t == IC_KW_INT8 ? w->scale[r + i] * out[b][i] : out[b][i];
                            yr[i] = k0 == 0 ? v : yr[i] + v;
                        }
                    }
                    r += R;
                }
            }
        }
    }
}

static void matmul_part(void *arg, int i, int n)
{
    const struct matmul_job *j = arg;
    const uint32_t N = j->w->rows;
    /* contiguous blocks of whole SPLIT-row groups, as even as they come */
    const uint64_t groups = (N + SPLIT - 1) / SPLIT;
    const uint64_t r0 = groups * (uint64_t)i / (uint64_t)n * SPLIT;
    uint64_t r1 = groups * (uint64_t)(i + 1) / (uint64_t)n * SPLIT;
    if (r1 > N)
        r1 = N;
    if (r0 < r1)
        matmul_rows(j, (uint32_t)r0, (uint32_t)r1);
}

/* Plain loop in storage order, for an int8 matrix whose quantized
 * activations found no scratch memory (VNNI layout, no float tile for it). */
static void matmul_slow(const struct ic_kern_matrix *w, const float *x, uint32_t batch, float *y)
{
    const uint32_t K = w->cols, N = w->rows;
    for (uint32_t b = 0; b < batch; b++)
        for (uint32_t r = 0; r < N; r++) {
            float s = 0;
            for (uint32_t c = 0; c < K; c++)
                s += (float)((const int8_t *)w->data)[(size_t)r * K + pos(w->t, c, K)] *
                     x[(size_t)b * K + c];
            y[(size_t)b * N + r] = w->scale[r] * s;
        }
}

size_t ic_kern_matmul_scratch_B(const struct ic_kern_matrix *w, uint32_t batch)
{
    if (!I8_VNNI || w->t != IC_KW_INT8)
        return 0;
    return (size_t)batch * w->cols * sizeof(int16_t) + 64 + (size_t)batch * sizeof(float);
}

void ic_kern_matmul(struct ic_kern_pool *pool, const struct ic_kern_matrix *w, const float *x,
                    uint32_t batch, float *y)
{
    if (batch == 0)
        return;
    struct matmul_job j = {.w = w, .x = x, .batch = batch, .y = y};
    const size_t need = ic_kern_matmul_scratch_B(w, batch);
    if (need) {
#if I8_VNNI
        char *s = ic_kern_pool_scratch(pool, need);
        if (!s) {
            matmul_slow(w, x, batch, y);
            return;
        }
        int16_t *xq = (int16_t *)(void *)s; /* [batch][K] */
        float *sx = (float *)(void *)(s + (((size_t)batch * w->cols * sizeof(int16_t) + 63) &
                                           ~(size_t)63)); /* [batch] */
        quantize_x(x, batch, w->cols, xq, sx);
        j.xq = xq;
        j.sx = sx;
#else
        (void)matmul_slow;
#endif
    }
    /* Below ~64k multiply-adds a wake-up and a join cost more than they save. */
    if (ic_kern_pool_threads(pool) == 1 || (uint64_t)w->rows * w->cols * batch < 65536)
        matmul_part(&j, 0, 1);
    else
        ic_kern_pool_run(pool, matmul_part, &j);
}
