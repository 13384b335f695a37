/* ic_kern: the reference transformer decode step (see ic_kern.h for the
 * math) and its cache-free reference, written the llama2.c way: plain
 * loops, a shape comment on every buffer, everything a step touches
 * allocated once in ic_kern_create.
 *
 * A step is a short sequence of parallel regions on the borrowed pool:
 * per layer the fused q/k/v projection, attention (one task per sequence and
 * KV head, so a task reads its K and V once for the whole GQA group), the
 * output projection, the fused w1/w3 projection and w2; the elementwise
 * parts (residual adds, RMSNorm, SwiGLU) run over batch rows. Every
 * projection goes through ic_kern_matmul, the routine the microbenchmarks
 * time, so the step measures the same code.
 *
 * Layout choices:
 *  - q, k and v come from one matrix [(H + 2 H_kv) d][D] and w1, w3 from one
 *    [2F][D]: fewer, larger matmuls mean fewer fork/joins per step, and the
 *    weights read are the same.
 *  - the KV cache is [L][max_batch][H_kv][max_seq][d] (bf16 bits or int8
 *    with one fp32 scale per head vector in [L][max_batch][H_kv][max_seq]),
 *    so the positions one task (sequence, KV head) scans are contiguous.
 *  - RoPE rotates the pairs (2i, 2i + 1) by pos * 10000^(-2i/d) (llama2.c);
 *    the cos/sin of each row's position are computed once per step.
 *
 * The reference (ic_kern_forward_nocache) shares only the weights and the
 * small elementwise helpers (RMSNorm, RoPE angles, SiLU) with the step: its
 * products are naive loops over dequantized weight rows accumulated in
 * double, its attention is recomputed causally over fp32 k and v. */
#include "ic_kern.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

enum { MAT_QKV, MAT_O, MAT_13, MAT_2, MATS_PER_LAYER };

struct layer {
    struct ic_kern_matrix *wqkv; /* [(H + 2 H_kv) d][D]: q heads, then k, then v */
    struct ic_kern_matrix *wo;   /* [D][H d] */
    struct ic_kern_matrix *w13;  /* [2F][D]: rows [0, F) gate (w1), [F, 2F) up (w3) */
    struct ic_kern_matrix *w2;   /* [D][F] */
    float *rms_att;              /* [D] */
    float *rms_ffn;              /* [D] */
};

struct ic_kern {
    struct ic_kern_shape s;
    enum ic_kern_wtype wt;
    enum ic_kern_kvtype kvt;
    struct ic_kern_pool *pool; /* borrowed */
    int n_threads;

    float *embed;                /* [V][D] */
    struct layer *layers;        /* [L] */
    float *rms_final;            /* [D] */
    struct ic_kern_matrix *wcls; /* [V][D] */

    void *kcache;  /* [L][max_batch][H_kv][max_seq][d] uint16_t (bf16) or int8_t */
    void *vcache;  /* same */
    float *kscale; /* [L][max_batch][H_kv][max_seq] int8 only, else NULL */
    float *vscale; /* same */

    float *x;      /* [max_batch][D] residual stream */
    float *xb;     /* [max_batch][D] normalized input of a projection */
    float *qkv;    /* [max_batch][(H + 2 H_kv) d] */
    float *att;    /* [max_batch][H d] attention output */
    float *proj;   /* [max_batch][D] output of wo and w2 */
    float *h13;    /* [max_batch][2F] */
    float *hb;     /* [max_batch][F] silu(gate) * up */
    float *logits; /* [max_batch][V] */
    float *rope;   /* [max_batch][d] (cos, sin) of pair i at 2i, 2i + 1 for the row's position */
    float *scores; /* [n_threads][G][max_seq] attention weights of one task */
};

/* ---- helpers shared with the reference ------------------------------------ */

static uint64_t mix64(uint64_t a, uint64_t b)
{
    uint64_t z = a * 0x9E3779B97F4A7C15u ^ (b + 0x632BE59BD9B4E019u);
    z = (z ^ (z >> 32)) * 0xD6E8FEB86659FD93u;
    return z ^ (z >> 32);
}

/* out = x / sqrt(mean(x^2) + 1e-5) * w; x, w, out: [D] (out may be x). */
static void rmsnorm(float *out, const float *x, const float *restrict w, uint32_t D)
{
    double ss = 0; /* D <= 2^32 squares of O(1) values: double keeps it exact enough */
    for (uint32_t i = 0; i < D; i++)
        ss += (double)x[i] * x[i];
    const float inv = (float)(1.0 / sqrt(ss / D + 1e-5));
    for (uint32_t i = 0; i < D; i++)
        out[i] = x[i] * inv * w[i];
}

/* cs: [d] (cos, sin) of pos * 10000^(-2i/d) for pair i at 2i, 2i + 1. */
static void rope_table(uint32_t pos, uint32_t d, float *restrict cs)
{
    for (uint32_t i = 0; i < d / 2; i++) {
        const double theta = (double)pos * pow(10000.0, -2.0 * i / d);
        cs[2 * i] = (float)cos(theta);
        cs[2 * i + 1] = (float)sin(theta);
    }
}

/* Rotates the pairs of one head vector v: [d] by the table cs: [d]. */
static void rope_apply(float *restrict v, const float *restrict cs, uint32_t d)
{
    for (uint32_t i = 0; i < d; i += 2) {
        const float c = cs[i], s = cs[i + 1], a = v[i], b = v[i + 1];
        v[i] = a * c - b * s;
        v[i + 1] = a * s + b * c;
    }
}

static float silu(float g) { return g / (1.0f + expf(-g)); }

/* ---- KV cache access ------------------------------------------------------ */

/* Index of head vector (l, b, p, g) in units of head vectors. */
static size_t kv_at(const struct ic_kern *k, uint32_t l, uint32_t b, uint32_t p, uint32_t g)
{
    const struct ic_kern_shape *s = &k->s;
    /* [layer][batch][kv head][position]: one head's positions are
     * contiguous, so attention streams them in order */
    return (((size_t)l * s->max_batch + b) * s->n_kv_heads + g) * s->max_seq + p;
}

/* Stores src: [d] as head vector i of cache (and its scale when int8). */
static void kv_store(const struct ic_kern *k, void *cache, float *scale, size_t i,
                     const float *restrict src)
{
    const uint32_t d = k->s.head_dim;
    if (k->kvt == IC_KKV_BF16) {
        uint16_t *dst = (uint16_t *)cache + i * d; /* [d] */
        for (uint32_t j = 0; j < d; j++)
            dst[j] = ic_kern_f32_to_bf16(src[j]);
        return;
    }
    int8_t *dst = (int8_t *)cache + i * d; /* [d] */
    float maxabs = 0;
    for (uint32_t j = 0; j < d; j++)
        maxabs = fmaxf(maxabs, fabsf(src[j]));
    const float sc = maxabs / 127.0f, inv = maxabs > 0 ? 127.0f / maxabs : 0.0f;
    scale[i] = sc;
    for (uint32_t j = 0; j < d; j++)
        dst[j] = (int8_t)fminf(127.0f, fmaxf(-127.0f, nearbyintf(src[j] * inv)));
}

/* A cached head vector widened to fp32 (int8: times its scale); out: [d]. */
static void widen(const struct ic_kern *k, const void *cache, const float *scale, size_t at,
                  uint32_t d, float *restrict out)
{
    uint32_t j = 0;
    if (k->kvt == IC_KKV_BF16) {
        const uint16_t *restrict v = (const uint16_t *)cache + at * d;
#if defined(__AVX512F__)
        for (; j + 16 <= d; j += 16) {
            const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(v + j));
            _mm512_storeu_ps(out + j,
                             _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)));
        }
#endif
        for (; j < d; j++)
            out[j] = ic_kern_bf16_to_f32(v[j]);
    } else {
        const int8_t *restrict v = (const int8_t *)cache + at * d;
        const float sc = scale[at];
#if defined(__AVX512F__)
        const __m512 scv = _mm512_set1_ps(sc);
        for (; j + 16 <= d; j += 16) {
            const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(v + j));
            _mm512_storeu_ps(out + j, _mm512_mul_ps(scv, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b))));
        }
#endif
        for (; j < d; j++)
            out[j] = sc * (float)v[j];
    }
}

static float dot_f32(const float *restrict a, const float *restrict b, uint32_t d)
{
    uint32_t j = 0;
    float s = 0;
#if defined(__AVX512F__)
    __m512 a0 = _mm512_setzero_ps(), a1 = a0;
    for (; j + 32 <= d; j += 32) {
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j), a0);
        a1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + j + 16), _mm512_loadu_ps(b + j + 16), a1);
    }
    for (; j + 16 <= d; j += 16)
        a0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + j), _mm512_loadu_ps(b + j), a0);
    s = _mm512_reduce_add_ps(_mm512_add_ps(a0, a1));
#else
    float acc[8] = {0};
    for (; j + 8 <= d; j += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += a[j + (uint32_t)l] * b[j + (uint32_t)l];
    for (int l = 0; l < 8; l++)
        s += acc[l];
#endif
    for (; j < d; j++)
        s += a[j] * b[j];
    return s;
}

static void axpy_f32(float *restrict out, float a, const float *restrict v, uint32_t d)
{
    uint32_t j = 0;
#if defined(__AVX512F__)
    const __m512 av = _mm512_set1_ps(a);
    for (; j + 16 <= d; j += 16)
        _mm512_storeu_ps(out + j, _mm512_fmadd_ps(av, _mm512_loadu_ps(v + j),
                                                  _mm512_loadu_ps(out + j)));
#endif
    for (; j < d; j++)
        out[j] += a * v[j];
}

/* ---- creation --------------------------------------------------------------- */

static const char *const shape_names[] = {"dim",       "hidden_dim", "n_layers",
                                          "n_heads",   "n_kv_heads", "head_dim",
                                          "vocab",     "max_batch",  "max_seq"};

static int check_shape(const struct ic_kern_shape *s, struct ic_err *err)
{
    const uint32_t v[] = {s->dim,        s->hidden_dim, s->n_layers,
                          s->n_heads,    s->n_kv_heads, s->head_dim,
                          s->vocab,      s->max_batch,  s->max_seq};
    _Static_assert(sizeof v / sizeof v[0] == sizeof shape_names / sizeof shape_names[0],
                   "a name per shape field");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] == 0)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "kernel shape: %s is 0, expected >= 1",
                              shape_names[i]);
    if (s->n_heads % s->n_kv_heads)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "kernel shape: n_heads %" PRIu32 " is not a multiple of n_kv_heads %" PRIu32,
                          s->n_heads, s->n_kv_heads);
    if (s->head_dim % 2)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "kernel shape: head_dim %" PRIu32 " is odd (RoPE rotates pairs)",
                          s->head_dim);
    if (s->head_dim > IC_KERN_MAX_HEAD_DIM)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "kernel shape: head_dim %" PRIu32 " exceeds %d", s->head_dim,
                          IC_KERN_MAX_HEAD_DIM);
    /* matrix row counts must fit uint32 */
    if ((uint64_t)(s->n_heads + 2ull * s->n_kv_heads) * s->head_dim > UINT32_MAX ||
        2ull * s->hidden_dim > UINT32_MAX)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "kernel shape: a projection has more than "
                          "2^32 - 1 rows");
    return IC_OK;
}

/* n elements of size sz, or NULL when the product overflows or malloc fails. */
static void *alloc_n(uint64_t n, size_t sz)
{
    if (n == 0 || n > SIZE_MAX / sz / 2)
        return NULL;
    return calloc((size_t)n, sz);
}

static float *random_floats(uint64_t n, uint64_t seed, float center, float amp)
{
    float *p = alloc_n(n, sizeof(float));
    if (p)
        for (uint64_t i = 0; i < n; i++)
            p[i] = center + amp * (float)ic_kern_uniform(seed, i);
    return p;
}

/* Frees what alloc_state allocated and clears the pointers. */
static void free_state(struct ic_kern *k)
{
    void **bufs[] = {&k->kcache, &k->vcache};
    float **fbufs[] = {&k->kscale, &k->vscale, &k->x,      &k->xb,   &k->qkv,  &k->att,
                       &k->proj,   &k->h13,    &k->hb,     &k->logits, &k->rope, &k->scores};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
        free(*bufs[i]);
        *bufs[i] = NULL;
    }
    for (size_t i = 0; i < sizeof fbufs / sizeof fbufs[0]; i++) {
        free(*fbufs[i]);
        *fbufs[i] = NULL;
    }
}

/* Allocates everything sized by max_batch and max_seq (the KV cache, the
 * activations, the attention scores) into k, whose pointers are NULL, and
 * reserves the int8 matmul's pool scratch, so that no step allocates. On
 * failure frees what it got and returns IC_ENOMEM. */
static int alloc_state(struct ic_kern *k, struct ic_err *err)
{
    const struct ic_kern_shape *s = &k->s;
    const uint64_t D = s->dim, F = s->hidden_dim, d = s->head_dim, H = s->n_heads,
                   Hkv = s->n_kv_heads, V = s->vocab, B = s->max_batch, T = s->max_seq,
                   L = s->n_layers;
    const uint64_t n_vec = L * B * T * Hkv; /* cached head vectors per K or V */
    const size_t kv_sz = k->kvt == IC_KKV_BF16 ? sizeof(uint16_t) : sizeof(int8_t);
    k->kcache = alloc_n(n_vec * d, kv_sz);
    k->vcache = alloc_n(n_vec * d, kv_sz);
    bool ok = k->kcache && k->vcache;
    if (k->kvt == IC_KKV_INT8) {
        k->kscale = alloc_n(n_vec, sizeof(float));
        k->vscale = alloc_n(n_vec, sizeof(float));
        ok = ok && k->kscale && k->vscale;
    }
    k->x = alloc_n(B * D, sizeof(float));
    k->xb = alloc_n(B * D, sizeof(float));
    k->qkv = alloc_n(B * (H + 2 * Hkv) * d, sizeof(float));
    k->att = alloc_n(B * H * d, sizeof(float));
    k->proj = alloc_n(B * D, sizeof(float));
    k->h13 = alloc_n(B * 2 * F, sizeof(float));
    k->hb = alloc_n(B * F, sizeof(float));
    k->logits = alloc_n(B * V, sizeof(float));
    k->rope = alloc_n(B * d, sizeof(float));
    k->scores = alloc_n((uint64_t)k->n_threads * (H / Hkv) * T, sizeof(float));
    ok = ok && k->x && k->xb && k->qkv && k->att && k->proj && k->h13 && k->hb && k->logits &&
         k->rope && k->scores;
    /* the int8 matmul's scratch for the largest batch */
    size_t scratch = ic_kern_matmul_scratch_B(k->wcls, s->max_batch);
    for (uint32_t l = 0; l < s->n_layers; l++) {
        const struct ic_kern_matrix *ms[] = {k->layers[l].wqkv, k->layers[l].wo,
                                             k->layers[l].w13, k->layers[l].w2};
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            const size_t n = ic_kern_matmul_scratch_B(ms[i], s->max_batch);
            scratch = n > scratch ? n : scratch;
        }
    }
    ok = ok && (!scratch || ic_kern_pool_scratch(k->pool, scratch));
    if (ok)
        return IC_OK;
    free_state(k);
    return ic_err_set(err, IC_ENOMEM, NULL, 0, 0,
                      "out of memory for a KV cache of %" PRIu32 " x %" PRIu32
                      " tokens (%.3g GB) and its buffers",
                      s->max_batch, s->max_seq, 2.0 * (double)n_vec * (double)d * (double)kv_sz / 1e9);
}

int ic_kern_set_cache(struct ic_kern *k, uint32_t max_batch, uint32_t max_seq,
                      struct ic_err *err)
{
    if (max_batch == 0 || max_seq == 0)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "KV cache of %" PRIu32 " x %" PRIu32 " tokens: both must be >= 1",
                          max_batch, max_seq);
    if (max_batch == k->s.max_batch && max_seq == k->s.max_seq)
        return IC_OK;
    struct ic_kern t = *k; /* same weights, new state */
    t.s.max_batch = max_batch;
    t.s.max_seq = max_seq;
    t.kcache = t.vcache = NULL;
    t.kscale = t.vscale = t.x = t.xb = t.qkv = t.att = t.proj = t.h13 = t.hb = t.logits =
        t.rope = t.scores = NULL;
    int rc = alloc_state(&t, err);
    if (rc)
        return rc;
    free_state(k);
    *k = t;
    return IC_OK;
}

int ic_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt,
                   enum ic_kern_kvtype kvt, uint64_t seed, struct ic_kern_pool *pool,
                   struct ic_kern **out, struct ic_err *err)
{
    int rc = check_shape(shape, err);
    if (rc)
        return rc;
    if ((unsigned)wt >= IC_KW_COUNT || (unsigned)kvt >= IC_KKV_COUNT)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "unknown weight type %d or KV type %d",
                          (int)wt, (int)kvt);
    if (!pool)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "kernel: no thread pool");
    struct ic_kern *k = calloc(1, sizeof *k);
    if (!k)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory for the kernel");
    const struct ic_kern_shape s = *shape;
    k->s = s;
    k->wt = wt;
    k->kvt = kvt;
    k->pool = pool;
    k->n_threads = ic_kern_pool_threads(pool);
    const uint64_t D = s.dim, F = s.hidden_dim, d = s.head_dim, H = s.n_heads,
                   Hkv = s.n_kv_heads, V = s.vocab, L = s.n_layers;
    const uint64_t qkv_rows = (H + 2 * Hkv) * d;

    k->layers = alloc_n(L, sizeof *k->layers);
    k->embed = random_floats(V * D, mix64(seed, 1), 0.0f, 1.0f);
    k->rms_final = random_floats(D, mix64(seed, 2), 1.0f, 0.25f);
    if (!k->layers || !k->embed || !k->rms_final)
        goto nomem;
    for (uint32_t l = 0; l < s.n_layers; l++) {
        struct layer *ly = &k->layers[l];
        const uint64_t ls = mix64(seed, 100 + l);
        const struct {
            struct ic_kern_matrix **m;
            uint64_t rows, cols;
        } mats[MATS_PER_LAYER] = {
            [MAT_QKV] = {&ly->wqkv, qkv_rows, D},
            [MAT_O] = {&ly->wo, D, H * d},
            [MAT_13] = {&ly->w13, 2 * F, D},
            [MAT_2] = {&ly->w2, D, F},
        };
        for (int i = 0; i < MATS_PER_LAYER; i++) {
            if (mats[i].cols > UINT32_MAX) {
                rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0, "kernel shape: a projection has "
                                "more than 2^32 - 1 columns");
                goto out;
            }
            rc = ic_kern_matrix_create(wt, (uint32_t)mats[i].rows, (uint32_t)mats[i].cols,
                                       mix64(ls, (uint64_t)i), mats[i].m, err);
            if (rc)
                goto out;
        }
        ly->rms_att = random_floats(D, mix64(ls, 10), 1.0f, 0.25f);
        ly->rms_ffn = random_floats(D, mix64(ls, 11), 1.0f, 0.25f);
        if (!ly->rms_att || !ly->rms_ffn)
            goto nomem;
    }
    rc = ic_kern_matrix_create(wt, s.vocab, s.dim, mix64(seed, 3), &k->wcls, err);
    if (rc)
        goto out;

    rc = alloc_state(k, err);
    if (rc)
        goto out;
    *out = k;
    return IC_OK;
nomem:
    rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0,
                    "out of memory for the kernel's weights, cache or buffers");
out:
    ic_kern_free(k);
    return rc;
}

void ic_kern_free(struct ic_kern *k)
{
    if (!k)
        return;
    if (k->layers)
        for (uint32_t l = 0; l < k->s.n_layers; l++) {
            struct layer *ly = &k->layers[l];
            ic_kern_matrix_free(ly->wqkv);
            ic_kern_matrix_free(ly->wo);
            ic_kern_matrix_free(ly->w13);
            ic_kern_matrix_free(ly->w2);
            free(ly->rms_att);
            free(ly->rms_ffn);
        }
    free(k->layers);
    free(k->embed);
    free(k->rms_final);
    ic_kern_matrix_free(k->wcls);
    free_state(k);
    free(k);
}

const struct ic_kern_shape *ic_kern_get_shape(const struct ic_kern *k) { return &k->s; }

uint64_t ic_kern_weight_bytes(const struct ic_kern *k)
{
    uint64_t n = ic_kern_matrix_bytes(k->wcls);
    for (uint32_t l = 0; l < k->s.n_layers; l++)
        n += ic_kern_matrix_bytes(k->layers[l].wqkv) + ic_kern_matrix_bytes(k->layers[l].wo) +
             ic_kern_matrix_bytes(k->layers[l].w13) + ic_kern_matrix_bytes(k->layers[l].w2);
    return n;
}

/* ---- the step ------------------------------------------------------------------ */

enum row_op {
    ROW_NORM,     /* xb = rmsnorm(x, w) */
    ROW_ADD_NORM, /* x += proj; xb = rmsnorm(x, w) */
    ROW_SWIGLU,   /* hb = silu(h13[:F]) * h13[F:] */
};

struct row_job {
    struct ic_kern *k;
    enum row_op op;
    const float *w; /* [D] norm weights */
    uint32_t batch;
};

static void row_part(void *arg, int i, int n)
{
    const struct row_job *j = arg;
    struct ic_kern *k = j->k;
    const uint32_t D = k->s.dim, F = k->s.hidden_dim;
    for (uint32_t b = (uint32_t)i; b < j->batch; b += (uint32_t)n) {
        float *x = k->x + (size_t)b * D;   /* [D] */
        float *xb = k->xb + (size_t)b * D; /* [D] */
        switch (j->op) {
        case ROW_ADD_NORM: {
            const float *p = k->proj + (size_t)b * D; /* [D] */
            for (uint32_t c = 0; c < D; c++)
                x[c] += p[c];
        }
            /* fall through */
        case ROW_NORM:
            rmsnorm(xb, x, j->w, D);
            break;
        case ROW_SWIGLU: {
            const float *h = k->h13 + (size_t)b * 2 * F; /* [2F] */
            float *hb = k->hb + (size_t)b * F;          /* [F] */
            for (uint32_t c = 0; c < F; c++)
                hb[c] = silu(h[c]) * h[F + c];
            break;
        }
        }
    }
}

static void rows(struct ic_kern *k, enum row_op op, const float *w, uint32_t batch)
{
    struct row_job j = {.k = k, .op = op, .w = w, .batch = batch};
    if (batch == 1)
        row_part(&j, 0, 1);
    else
        ic_kern_pool_run(k->pool, row_part, &j);
}

struct attn_job {
    struct ic_kern *k;
    uint32_t layer;
    uint32_t batch;
    const uint32_t *pos; /* [batch] */
};

/* One task per (sequence b, KV head g): RoPE on the group's queries and on
 * the new key, append k and v at pos[b], then for each query head of the
 * group softmax(q . k_t / sqrt(d)) over t <= pos[b] and the weighted sum of
 * the v_t. */
static void attn_part(void *arg, int i, int n)
{
    const struct attn_job *j = arg;
    struct ic_kern *k = j->k;
    const struct ic_kern_shape *s = &k->s;
    const uint32_t d = s->head_dim, H = s->n_heads, Hkv = s->n_kv_heads, G = H / Hkv;
    const size_t qkv_w = (size_t)(H + 2 * Hkv) * d;
    const float inv_sqrt_d = (float)(1.0 / sqrt((double)d));
    float *scores = k->scores + (size_t)i * G * s->max_seq; /* [G][max_seq] */
    for (uint32_t task = (uint32_t)i; task < j->batch * Hkv; task += (uint32_t)n) {
        const uint32_t b = task / Hkv, g = task % Hkv, p = j->pos[b];
        float *qkv = k->qkv + (size_t)b * qkv_w;  /* [(H + 2 H_kv) d] */
        const float *cs = k->rope + (size_t)b * d; /* [d] */
        float *kn = qkv + (size_t)(H + g) * d;     /* [d] new key */
        const float *vn = qkv + (size_t)(H + Hkv + g) * d; /* [d] new value */
        rope_apply(kn, cs, d);
        const size_t here = kv_at(k, j->layer, b, p, g);
        kv_store(k, k->kcache, k->kscale, here, kn);
        kv_store(k, k->vcache, k->vscale, here, vn);
        const size_t first = kv_at(k, j->layer, b, 0, g);
        /* The G query heads of the group share every cached k and v: each
         * is read (and widened) once for all of them. */
        for (uint32_t h = g * G; h < (g + 1) * G; h++)
            rope_apply(qkv + (size_t)h * d, cs, d);
        const float *q0 = qkv + (size_t)g * G * d; /* [G][d] */
        float kv[IC_KERN_MAX_HEAD_DIM];            /* [d] one widened k or v */
        for (uint32_t t = 0; t <= p; t++) {
            widen(k, k->kcache, k->kscale, first + t, d, kv);
            for (uint32_t h = 0; h < G; h++)
                scores[(size_t)h * s->max_seq + t] = dot_f32(q0 + (size_t)h * d, kv, d) * inv_sqrt_d;
        }
        for (uint32_t h = 0; h < G; h++) {
            float *sc = scores + (size_t)h * s->max_seq; /* [pos + 1] */
            float mx = -INFINITY;
            for (uint32_t t = 0; t <= p; t++)
                mx = fmaxf(mx, sc[t]);
            float sum = 0;
            for (uint32_t t = 0; t <= p; t++) {
                sc[t] = expf(sc[t] - mx);
                sum += sc[t];
            }
            const float inv_sum = 1.0f / sum;
            for (uint32_t t = 0; t <= p; t++)
                sc[t] *= inv_sum;
            memset(k->att + (size_t)b * H * d + (size_t)(g * G + h) * d, 0, (size_t)d * sizeof(float));
        }
        float *o0 = k->att + (size_t)b * H * d + (size_t)g * G * d; /* [G][d] */
        for (uint32_t t = 0; t <= p; t++) {
            widen(k, k->vcache, k->vscale, first + t, d, kv);
            for (uint32_t h = 0; h < G; h++)
                axpy_f32(o0 + (size_t)h * d, scores[(size_t)h * s->max_seq + t], kv, d);
        }
    }
}

void ic_kern_step(struct ic_kern *k, uint32_t batch, const uint32_t *tokens, const uint32_t *pos,
                  float *logits)
{
    const struct ic_kern_shape *s = &k->s;
    assert(batch <= s->max_batch);
    if (batch == 0)
        return;
    const uint32_t D = s->dim, d = s->head_dim;
    for (uint32_t b = 0; b < batch; b++) {
        assert(tokens[b] < s->vocab && pos[b] < s->max_seq);
        memcpy(k->x + (size_t)b * D, k->embed + (size_t)tokens[b] * D, (size_t)D * sizeof(float));
        rope_table(pos[b], d, k->rope + (size_t)b * d);
    }
    rows(k, ROW_NORM, k->layers[0].rms_att, batch);
    for (uint32_t l = 0; l < s->n_layers; l++) {
        const struct layer *ly = &k->layers[l];
        ic_kern_matmul(k->pool, ly->wqkv, k->xb, batch, k->qkv);
        struct attn_job aj = {.k = k, .layer = l, .batch = batch, .pos = pos};
        if (batch * s->n_kv_heads == 1)
            attn_part(&aj, 0, 1);
        else
            ic_kern_pool_run(k->pool, attn_part, &aj);
        ic_kern_matmul(k->pool, ly->wo, k->att, batch, k->proj);
        rows(k, ROW_ADD_NORM, ly->rms_ffn, batch);
        ic_kern_matmul(k->pool, ly->w13, k->xb, batch, k->h13);
        rows(k, ROW_SWIGLU, NULL, batch);
        ic_kern_matmul(k->pool, ly->w2, k->hb, batch, k->proj);
        rows(k, ROW_ADD_NORM, l + 1 < s->n_layers ? k->layers[l + 1].rms_att : k->rms_final,
             batch);
    }
    ic_kern_matmul(k->pool, k->wcls, k->xb, batch, logits ? logits : k->logits);
}

void ic_kern_row_work(struct ic_kern *k, uint32_t batch)
{
    assert(batch <= k->s.max_batch);
    if (batch == 0)
        return;
    const struct layer *ly = &k->layers[0];
    rows(k, ROW_ADD_NORM, ly->rms_ffn, batch);
    rows(k, ROW_SWIGLU, NULL, batch);
    rows(k, ROW_ADD_NORM, ly->rms_att, batch);
}

void ic_kern_fill_cache(struct ic_kern *k, uint32_t b, uint32_t len, uint64_t seed)
{
    const struct ic_kern_shape *s = &k->s;
    assert(b < s->max_batch);
    if (len > s->max_seq)
        len = s->max_seq;
    const uint32_t d = s->head_dim;
    /* a step's q/k/v buffer, unused between steps: [(H + 2 H_kv) d] >= 2d */
    float *kbuf = k->qkv, *vbuf = k->qkv + d; /* [d] each */
    const uint64_t sb = mix64(seed, b);
    for (uint32_t l = 0; l < s->n_layers; l++)
        for (uint32_t p = 0; p < len; p++)
            for (uint32_t g = 0; g < s->n_kv_heads; g++) {
                const size_t i = kv_at(k, l, b, p, g);
                const uint64_t base = (((uint64_t)l * s->max_seq + p) * s->n_kv_heads + g) * d;
                for (uint32_t j = 0; j < d; j++) {
                    kbuf[j] = (float)ic_kern_uniform(sb, 2 * (base + j));
                    vbuf[j] = (float)ic_kern_uniform(sb, 2 * (base + j) + 1);
                }
                kv_store(k, k->kcache, k->kscale, i, kbuf);
                kv_store(k, k->vcache, k->vscale, i, vbuf);
            }
}

/* ---- the reference ------------------------------------------------------------ */

/* out[t][r] = sum_c W[r][c] in[t][c] for t < n, W dequantized row by row,
 * sums in double. in: [n][cols], out: [n][rows], row: [cols] scratch. */
static void ref_matmul(const struct ic_kern_matrix *w, const float *in, uint32_t n, float *out,
                       float *row)
{
    const uint32_t N = ic_kern_matrix_rows(w), K = ic_kern_matrix_cols(w);
    for (uint32_t r = 0; r < N; r++) {
        ic_kern_matrix_row(w, r, row);
        for (uint32_t t = 0; t < n; t++) {
            double acc = 0;
            for (uint32_t c = 0; c < K; c++)
                acc += (double)row[c] * in[(size_t)t * K + c];
            out[(size_t)t * N + r] = (float)acc;
        }
    }
}

int ic_kern_forward_nocache(const struct ic_kern *k, const uint32_t *tokens, uint32_t n,
                            float *logits, struct ic_err *err)
{
    const struct ic_kern_shape *s = &k->s;
    if (n == 0)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "reference forward: no tokens");
    for (uint32_t t = 0; t < n; t++)
        if (tokens[t] >= s->vocab)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "reference forward: token %" PRIu32 " at %" PRIu32
                              " is not below the vocabulary size %" PRIu32,
                              tokens[t], t, s->vocab);
    const uint32_t D = s->dim, F = s->hidden_dim, d = s->head_dim, H = s->n_heads,
                   Hkv = s->n_kv_heads, G = H / Hkv;
    const size_t qkv_w = (size_t)(H + 2 * Hkv) * d;
    size_t widest = D > F ? D : F;
    widest = widest > (size_t)H * d ? widest : (size_t)H * d;
    float *x = alloc_n((uint64_t)n * D, sizeof(float));        /* [n][D] */
    float *xb = alloc_n((uint64_t)n * D, sizeof(float));       /* [n][D] */
    float *qkv = alloc_n((uint64_t)n * qkv_w, sizeof(float));  /* [n][(H + 2 H_kv) d] */
    float *att = alloc_n((uint64_t)n * H * d, sizeof(float));  /* [n][H d] */
    float *proj = alloc_n((uint64_t)n * D, sizeof(float));     /* [n][D] */
    float *h13 = alloc_n((uint64_t)n * 2 * F, sizeof(float));  /* [n][2F] */
    float *hb = alloc_n((uint64_t)n * F, sizeof(float));       /* [n][F] */
    float *row = alloc_n(widest, sizeof(float));               /* [widest] */
    double *p = alloc_n(n, sizeof(double));                    /* [n] attention weights */
    float *cs = alloc_n(d, sizeof(float));                     /* [d] */
    int rc = IC_OK;
    if (!x || !xb || !qkv || !att || !proj || !h13 || !hb || !row || !p || !cs) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "reference forward: out of memory");
        goto out;
    }
    for (uint32_t t = 0; t < n; t++)
        memcpy(x + (size_t)t * D, k->embed + (size_t)tokens[t] * D, (size_t)D * sizeof(float));
    for (uint32_t l = 0; l < s->n_layers; l++) {
        const struct layer *ly = &k->layers[l];
        for (uint32_t t = 0; t < n; t++)
            rmsnorm(xb + (size_t)t * D, x + (size_t)t * D, ly->rms_att, D);
        ref_matmul(ly->wqkv, xb, n, qkv, row);
        for (uint32_t t = 0; t < n; t++) { /* RoPE on every query and key head */
            rope_table(t, d, cs);
            for (uint32_t h = 0; h < H + Hkv; h++)
                rope_apply(qkv + (size_t)t * qkv_w + (size_t)h * d, cs, d);
        }
        for (uint32_t t = 0; t < n; t++)
            for (uint32_t h = 0; h < H; h++) {
                const uint32_t g = h / G;
                const float *q = qkv + (size_t)t * qkv_w + (size_t)h * d; /* [d] */
                double mx = -INFINITY, sum = 0;
                for (uint32_t u = 0; u <= t; u++) { /* causal: keys 0..t */
                    const float *kk = qkv + (size_t)u * qkv_w + (size_t)(H + g) * d;
                    double dot = 0;
                    for (uint32_t c = 0; c < d; c++)
                        dot += (double)q[c] * kk[c];
                    p[u] = dot / sqrt((double)d);
                    mx = fmax(mx, p[u]);
                }
                for (uint32_t u = 0; u <= t; u++) {
                    p[u] = exp(p[u] - mx);
                    sum += p[u];
                }
                float *o = att + (size_t)t * H * d + (size_t)h * d; /* [d] */
                for (uint32_t c = 0; c < d; c++) {
                    double acc = 0;
                    for (uint32_t u = 0; u <= t; u++)
                        acc += p[u] * qkv[(size_t)u * qkv_w + (size_t)(H + Hkv + g) * d + c];
                    o[c] = (float)(acc / sum);
                }
            }
        ref_matmul(ly->wo, att, n, proj, row);
        for (uint32_t t = 0; t < n; t++) {
            for (uint32_t c = 0; c < D; c++)
                x[(size_t)t * D + c] += proj[(size_t)t * D + c];
            rmsnorm(xb + (size_t)t * D, x + (size_t)t * D, ly->rms_ffn, D);
        }
        ref_matmul(ly->w13, xb, n, h13, row);
        for (uint32_t t = 0; t < n; t++)
            for (uint32_t c = 0; c < F; c++)
                hb[(size_t)t * F + c] =
                    silu(h13[(size_t)t * 2 * F + c]) * h13[(size_t)t * 2 * F + F + c];
        ref_matmul(ly->w2, hb, n, proj, row);
        for (uint32_t t = 0; t < n; t++)
            for (uint32_t c = 0; c < D; c++)
                x[(size_t)t * D + c] += proj[(size_t)t * D + c];
    }
    const float *last = x + (size_t)(n - 1) * D; /* [D] */
    rmsnorm(xb, last, k->rms_final, D);
    ref_matmul(k->wcls, xb, 1, logits, row);
out:
    free(x);
    free(xb);
    free(qkv);
    free(att);
    free(proj);
    free(h13);
    free(hb);
    free(row);
    free(p);
    free(cs);
    return rc;
}
