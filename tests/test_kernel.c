/* Kernel: the matmul against a naive double-precision loop (every weight
 * type, odd sizes, several batches, 1 and 2 threads), cached decode against
 * full causal recompute (bf16 and int8 KV, several GQA groupings, sequences
 * at different positions in one batch), bf16/int8 weights against fp32
 * weights, batch-row independence, the bf16 rounding, the thread pool, and
 * shape validation; and the self-check's helpers around the kernel: a
 * model's kernel shape and bytes (validate --model) and the point counter's
 * time left. Tolerances are stated and derived where they are used. */
#include "ic_kern.h"
#include "ic_model.h"
#include "ic_selfcheck.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ic_kern_pool *pool_or_fail(int n)
{
    struct ic_kern_pool *p = NULL;
    struct ic_err e = {0};
    ck_assert_msg(ic_kern_pool_create(n, &p, &e) == 0, "pool: %s", e.msg);
    return p;
}

/* ---- thread pool and conversions ------------------------------------------ */

static void count_part(void *arg, int i, int n)
{
    int *hits = arg; /* [n] */
    ck_assert_int_lt(i, n);
    hits[i]++;
}

START_TEST(test_pool)
{
    for (int n = 1; n <= 3; n++) {
        struct ic_kern_pool *p = pool_or_fail(n);
        ck_assert_int_eq(ic_kern_pool_threads(p), n);
        int hits[3] = {0};
        /* many short regions: every thread runs each exactly once, and the
         * join waits for all (a lost wake-up would hang the test) */
        for (int rep = 0; rep < 20000; rep++)
            ic_kern_pool_run(p, count_part, hits);
        for (int i = 0; i < n; i++)
            ck_assert_int_eq(hits[i], 20000);
        ic_kern_pool_free(p);
    }
    ic_kern_pool_free(NULL);
    struct ic_kern_pool *p = pool_or_fail(0); /* one per CPU */
    ck_assert_int_ge(ic_kern_pool_threads(p), 1);
    ic_kern_pool_free(p);
}
END_TEST

START_TEST(test_bf16_rounding)
{
    ck_assert_uint_eq(ic_kern_f32_to_bf16(1.0f), 0x3F80);
    /* 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: ties go to the even 1 */
    ck_assert_uint_eq(ic_kern_f32_to_bf16(1.0f + 0x1p-8f), 0x3F80);
    /* 1 + 3 * 2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6: up to even */
    ck_assert_uint_eq(ic_kern_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3F82);
    /* just above a tie rounds up */
    ck_assert_uint_eq(ic_kern_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3F81);
    ck_assert_uint_eq(ic_kern_f32_to_bf16(-2.0f), 0xC000);
    ck_assert(isnan(ic_kern_bf16_to_f32(ic_kern_f32_to_bf16(NAN))));
    ck_assert(isinf(ic_kern_bf16_to_f32(ic_kern_f32_to_bf16(INFINITY))));
    ck_assert_float_eq(ic_kern_bf16_to_f32(0x4049), 3.140625f); /* pi truncated to bf16 */
}
END_TEST

/* ---- matmul against a naive double loop ------------------------------------ */

START_TEST(test_matmul)
{
    static const uint32_t shapes[][2] = {{37, 77}, {64, 1000}, {129, 513}, {5, 3}, {300, 2050},
                                         {16, 64}, {1, 31}};
    /* 8 and 13: batch tiles of 4 + 4 and 5 + 5 + 3, 17: 6 + 6 + 5 */
    static const uint32_t batches[] = {1, 3, 8, 13, 17};
    struct ic_err e = {0};
    for (int nt = 1; nt <= 2; nt++) {
        struct ic_kern_pool *pool = pool_or_fail(nt);
        for (int t = 0; t < IC_KW_COUNT; t++)
            for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
                const uint32_t N = shapes[si][0], K = shapes[si][1];
                struct ic_kern_matrix *m = NULL;
                ck_assert_msg(ic_kern_matrix_create((enum ic_kern_wtype)t, N, K, 7 + si, &m, &e) == 0,
                              "%s", e.msg);
                ck_assert_uint_eq(ic_kern_matrix_rows(m), N);
                ck_assert_uint_eq(ic_kern_matrix_cols(m), K);
                ck_assert_uint_eq(ic_kern_matrix_bytes(m),
                                  (uint64_t)N * K * ic_kern_wtype_bits((enum ic_kern_wtype)t) / 8 +
                                      (t == IC_KW_INT8 ? 4ull * N : 0));
                float *w = malloc(sizeof(float) * N * K); /* [N][K] dequantized */
                float *x = malloc(sizeof(float) * 17 * K); /* [17][K] */
                float *y = malloc(sizeof(float) * 17 * N); /* [17][N] */
                ck_assert(w && x && y);
                for (uint32_t r = 0; r < N; r++)
                    ic_kern_matrix_row(m, r, w + (size_t)r * K);
                for (size_t i = 0; i < 17 * (size_t)K; i++)
                    x[i] = (float)(2.0 * ic_kern_uniform(99, i)); /* in [-2, 2) */
                for (size_t bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
                    const uint32_t B = batches[bi];
                    ic_kern_matmul(pool, m, x, B, y);
                    for (uint32_t b = 0; b < B; b++) {
                        const float *xr = x + (size_t)b * K; /* [K] */
                        double xmax = 0;
                        for (uint32_t c = 0; c < K; c++)
                            xmax = fmax(xmax, fabs(xr[c]));
                        for (uint32_t r = 0; r < N; r++) {
                            const float *wr = w + (size_t)r * K; /* [K] */
                            double ref = 0, mag = 0, wabs = 0;
                            for (uint32_t c = 0; c < K; c++) {
                                ref += (double)wr[c] * xr[c];
                                mag += fabs((double)wr[c] * xr[c]);
                                wabs += fabs(wr[c]);
                            }
                            /* fp32 sums: each vector lane adds ~K/16 products in
                             * sequence, then a tree of <= 5 levels and block sums
                             * (K/512 at batch > 6): error <= (K/16 + 16) * 2^-24 *
                             * sum|w x|; twice that as margin. */
                            double tol = 2.0 * (K / 16.0 + 16.0) * 0x1p-24 * mag + 1e-30;
                            /* int8 (VNNI path): x rounded to int16 steps of
                             * max|x| / 32767, so each product is off by at most
                             * |w| * max|x| / 65534 */
                            if (t == IC_KW_INT8)
                                tol += wabs * xmax / 65534.0;
                            const double got = y[(size_t)b * N + r];
                            ck_assert_msg(fabs(got - ref) <= tol,
                                          "%s %ux%u batch %u b %u r %u threads %d: %.9g vs %.9g "
                                          "(tol %.3g)",
                                          ic_kern_wtype_name((enum ic_kern_wtype)t), N, K, B, b,
                                          r, nt, got, ref, tol);
                        }
                    }
                }
                free(w);
                free(x);
                free(y);
                ic_kern_matrix_free(m);
            }
        ic_kern_pool_free(pool);
    }
}
END_TEST

/* Large batch: the column-blocked path (batch > 6, several 512-column
 * blocks) against the same reference, one type each. */
START_TEST(test_matmul_blocked)
{
    struct ic_err e = {0};
    struct ic_kern_pool *pool = pool_or_fail(2);
    const uint32_t N = 70, K = 1100, B = 40;
    float *x = malloc(sizeof(float) * B * K), *y = malloc(sizeof(float) * B * N);
    float *w = malloc(sizeof(float) * K);
    ck_assert(x && y && w);
    for (size_t i = 0; i < (size_t)B * K; i++)
        x[i] = (float)ic_kern_uniform(5, i);
    for (int t = 0; t < IC_KW_COUNT; t++) {
        struct ic_kern_matrix *m = NULL;
        ck_assert(ic_kern_matrix_create((enum ic_kern_wtype)t, N, K, 3, &m, &e) == 0);
        ic_kern_matmul(pool, m, x, B, y);
        for (uint32_t r = 0; r < N; r++) {
            ic_kern_matrix_row(m, r, w);
            for (uint32_t b = 0; b < B; b++) {
                double ref = 0, mag = 0, wabs = 0, xmax = 0;
                for (uint32_t c = 0; c < K; c++) {
                    ref += (double)w[c] * x[(size_t)b * K + c];
                    mag += fabs((double)w[c] * x[(size_t)b * K + c]);
                    wabs += fabs(w[c]);
                    xmax = fmax(xmax, fabs(x[(size_t)b * K + c]));
                }
                /* as in test_matmul */
                double tol = 2.0 * (K / 16.0 + 16.0) * 0x1p-24 * mag;
                if (t == IC_KW_INT8)
                    tol += wabs * xmax / 65534.0;
                ck_assert_msg(fabs(y[(size_t)b * N + r] - ref) <= tol, "%s r %u b %u: %g vs %g",
                              ic_kern_wtype_name((enum ic_kern_wtype)t), r, b,
                              (double)y[(size_t)b * N + r], ref);
            }
        }
        ic_kern_matrix_free(m);
    }
    free(x);
    free(y);
    free(w);
    ic_kern_pool_free(pool);
}
END_TEST

/* ---- the model -------------------------------------------------------------- */

static struct ic_kern_shape small_shape(uint32_t n_heads, uint32_t n_kv_heads)
{
    return (struct ic_kern_shape){.dim = 64,
                                  .hidden_dim = 160,
                                  .n_layers = 2,
                                  .n_heads = n_heads,
                                  .n_kv_heads = n_kv_heads,
                                  .head_dim = 16,
                                  .vocab = 97,
                                  .max_batch = 3,
                                  .max_seq = 32};
}

static struct ic_kern *kern_or_fail(struct ic_kern_shape s, enum ic_kern_wtype wt,
                                    enum ic_kern_kvtype kvt, struct ic_kern_pool *pool)
{
    struct ic_kern *k = NULL;
    struct ic_err e = {0};
    ck_assert_msg(ic_kern_create(&s, wt, kvt, 2024, pool, &k, &e) == 0, "create: %s", e.msg);
    return k;
}

static uint32_t token_of(uint32_t b, uint32_t t) { return (b * 31 + t * 7 + 3) % 97; }

enum { NSEQ = 3 };
static const uint32_t seq_len[NSEQ] = {17, 11, 5}; /* longest first: see run_batch */

/* Feeds sequence b tokens token_of(b, 0..len_b) through ic_kern_step, all
 * rows in one batch but at different positions: row 0 starts alone, row 1
 * joins when row 0 has len_0 - len_1 tokens left, and so on, so every step
 * has rows at different pos and all end together. logits: [NSEQ][V]. */
static void run_batch(struct ic_kern *k, float *logits, uint32_t salt)
{
    const uint32_t total = seq_len[0];
    for (uint32_t step = 0; step < total; step++) {
        uint32_t tokens[NSEQ], pos[NSEQ], batch = 0;
        for (uint32_t b = 0; b < NSEQ; b++) {
            const uint32_t start = total - seq_len[b];
            if (step < start)
                break; /* rows join in order, so the batch is a prefix */
            tokens[b] = (token_of(b, step - start) + (b ? salt : 0)) % 97;
            pos[b] = step - start;
            batch = b + 1;
        }
        ic_kern_step(k, batch, tokens, pos, step + 1 == total ? logits : NULL);
    }
}

/* max |a - b| over n, and max |b| (the scale errors are judged against) */
static double max_diff(const float *a, const float *b, size_t n, double *scale)
{
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        m = fmax(m, fabs((double)a[i] - b[i]));
        s = fmax(s, fabs((double)b[i]));
    }
    *scale = s;
    return m;
}

/* Cached decode vs full recompute for every row of a run_batch. The logits
 * of this model are O(1) (1.3-1.9 at most: RMS-normed x times rows of norm
 * ~1/sqrt(3)). The only intended difference is the rounding of the cached k
 * and v, so the tolerances follow from it, as a fraction of the largest
 * reference logit:
 *  - bf16 KV: each element rounded with relative error <= 2^-9 (0.2%);
 *    attention averages these errors, so the logits move by less: 0.06-0.1%
 *    observed. Tolerance 2 * 2^-9 = 0.4%.
 *  - int8 KV: each head vector rounded to steps of max|v|/127, an error of
 *    up to 1/254 (0.4%) of its largest element per element: 0.2-0.3%
 *    observed. Tolerance 3/254 = 1.2%.
 * A missed RoPE on the cached keys or every row attending at row 0's
 * position moved the logits by 5-20% when tried. Everything else (fp32 vs double sums, fp32
 * softmax) is ~1e-6. */
static void check_cached(struct ic_kern_shape s, enum ic_kern_kvtype kvt, struct ic_kern_pool *pool)
{
    struct ic_kern *k = kern_or_fail(s, IC_KW_FP32, kvt, pool);
    const uint32_t V = s.vocab;
    float logits[NSEQ * 97], ref[97];
    run_batch(k, logits, 0);
    const double tol = kvt == IC_KKV_BF16 ? 2 * 0x1p-9 : 3.0 / 254;
    for (uint32_t b = 0; b < NSEQ; b++) {
        uint32_t toks[32];
        for (uint32_t t = 0; t < seq_len[b]; t++)
            toks[t] = token_of(b, t);
        struct ic_err e = {0};
        ck_assert_msg(ic_kern_forward_nocache(k, toks, seq_len[b], ref, &e) == 0, "%s", e.msg);
        double scale;
        const double err = max_diff(logits + (size_t)b * V, ref, V, &scale);
        ck_assert_msg(scale > 0.1, "logits suspiciously small: %g", scale);
        ck_assert_msg(err <= tol * scale,
                      "H %u H_kv %u %s KV, row %u (len %u): max |cached - recomputed| = %.3g, "
                      "%.3g of the largest logit %.3g (tol %.3g)",
                      s.n_heads, s.n_kv_heads, ic_kern_kvtype_name(kvt), b, seq_len[b], err,
                      err / scale, scale, tol);
    }
    ic_kern_free(k);
}

START_TEST(test_cached_vs_recompute)
{
    struct ic_kern_pool *pool = pool_or_fail(2);
    check_cached(small_shape(8, 2), IC_KKV_BF16, pool);
    check_cached(small_shape(8, 2), IC_KKV_INT8, pool);
    ic_kern_pool_free(pool);
}
END_TEST

START_TEST(test_gqa_groups)
{
    /* H / H_kv = 1 (MHA), 2, 4, 8 (MQA: H_kv = 1), and MQA with few heads */
    static const uint32_t hk[][2] = {{8, 8}, {8, 4}, {8, 2}, {8, 1}, {4, 1}, {6, 3}};
    struct ic_kern_pool *pool = pool_or_fail(2);
    for (size_t i = 0; i < sizeof hk / sizeof hk[0]; i++)
        check_cached(small_shape(hk[i][0], hk[i][1]), IC_KKV_BF16, pool);
    ic_kern_pool_free(pool);
}
END_TEST

START_TEST(test_single_thread_same)
{
    /* the step on 1 thread gives the logits of 2 threads bit for bit: the
     * row split changes who computes a dot product, not its order */
    struct ic_kern_pool *p1 = pool_or_fail(1), *p2 = pool_or_fail(2);
    struct ic_kern *k1 = kern_or_fail(small_shape(8, 2), IC_KW_INT8, IC_KKV_INT8, p1);
    struct ic_kern *k2 = kern_or_fail(small_shape(8, 2), IC_KW_INT8, IC_KKV_INT8, p2);
    float a[NSEQ * 97], b[NSEQ * 97];
    run_batch(k1, a, 0);
    run_batch(k2, b, 0);
    ck_assert(memcmp(a, b, sizeof a) == 0);
    ic_kern_free(k1);
    ic_kern_free(k2);
    ic_kern_pool_free(p1);
    ic_kern_pool_free(p2);
}
END_TEST

/* Weight types: the same seed gives the same underlying values, rounded to
 * bf16 (relative error <= 2^-9 = 0.2% per weight) or to int8 steps of
 * max|w|/127 per row (up to 1/254 = 0.4% of the row's largest weight). The
 * errors of the D or F products in a dot product partly cancel, and the
 * logits moved by 0.19% (bf16) and 0.52% (int8) of the largest logit when
 * measured; tolerances 1% (5 * 2^-9) and 2% (5/254). The reference path is
 * used so that only the weights differ. */
START_TEST(test_weight_types)
{
    struct ic_kern_pool *pool = pool_or_fail(1);
    const struct ic_kern_shape s = small_shape(8, 2);
    struct ic_kern *k32 = kern_or_fail(s, IC_KW_FP32, IC_KKV_BF16, pool);
    uint32_t toks[12];
    for (uint32_t t = 0; t < 12; t++)
        toks[t] = token_of(1, t);
    float ref[97], got[97];
    struct ic_err e = {0};
    ck_assert(ic_kern_forward_nocache(k32, toks, 12, ref, &e) == 0);
    const struct {
        enum ic_kern_wtype t;
        double tol;
    } cases[] = {{IC_KW_BF16, 5 * 0x1p-9}, {IC_KW_INT8, 5.0 / 254}};
    for (size_t i = 0; i < 2; i++) {
        struct ic_kern *k = kern_or_fail(s, cases[i].t, IC_KKV_BF16, pool);
        ck_assert(ic_kern_forward_nocache(k, toks, 12, got, &e) == 0);
        double scale;
        const double err = max_diff(got, ref, 97, &scale);
        ck_assert_msg(err <= cases[i].tol * scale, "%s weights: max diff %.3g = %.3g of %.3g",
                      ic_kern_wtype_name(cases[i].t), err, err / scale, scale);
        /* and not identical: the rounding did happen */
        ck_assert(err > 0);
        /* the cached path of the quantized model matches its own reference
         * as well as the fp32 one does (check_cached's bf16 KV 0.4%) */
        float lg[NSEQ * 97], r2[97];
        run_batch(k, lg, 0);
        uint32_t t0[17];
        for (uint32_t t = 0; t < 17; t++)
            t0[t] = token_of(0, t);
        ck_assert(ic_kern_forward_nocache(k, t0, 17, r2, &e) == 0);
        const double e2 = max_diff(lg, r2, 97, &scale);
        ck_assert_msg(e2 <= 2 * 0x1p-9 * scale, "%s: cached vs reference %.3g of %.3g",
                      ic_kern_wtype_name(cases[i].t), e2, scale);
        ic_kern_free(k);
    }
    ck_assert_uint_eq(ic_kern_weight_bytes(k32),
                      /* per layer: qkv (8 + 4) * 16 x 64, wo 64 x 128, w13 320 x 64,
                       * w2 64 x 160; LM head 97 x 64; 4 bytes each */
                      4ull * (2 * (192 * 64 + 64 * 128 + 320 * 64 + 64 * 160) + 97 * 64));
    ic_kern_free(k32);
    ic_kern_pool_free(pool);
}
END_TEST

/* Row 0's logits do not depend on what rows 1 and 2 hold: the same batch
 * run with other tokens in those rows gives row 0 bit for bit (same code
 * path, same summation order), and row 0 alone at batch 1 agrees to fp32
 * rounding (1e-5 of the largest logit; batch 1 and batch 3 use the same
 * tile order today, but that is not a promise). */
START_TEST(test_batch_independent)
{
    struct ic_kern_pool *pool = pool_or_fail(2);
    struct ic_kern *k = kern_or_fail(small_shape(8, 2), IC_KW_BF16, IC_KKV_INT8, pool);
    const uint32_t V = 97;
    float a[NSEQ * 97], b[NSEQ * 97];
    run_batch(k, a, 0);
    run_batch(k, b, 40); /* rows 1 and 2 take other tokens */
    ck_assert(memcmp(a, b, sizeof(float) * V) == 0);
    ck_assert(memcmp(a + V, b + V, sizeof(float) * V) != 0); /* the salt did change row 1 */
    float alone[97];
    for (uint32_t t = 0; t < seq_len[0]; t++) {
        const uint32_t tok = token_of(0, t), pos = t;
        ic_kern_step(k, 1, &tok, &pos, t + 1 == seq_len[0] ? alone : NULL);
    }
    double scale;
    const double err = max_diff(alone, a, V, &scale);
    ck_assert_msg(err <= 1e-5 * scale, "batch 1 vs batch 3: %.3g of %.3g", err, scale);
    ic_kern_free(k);
    ic_kern_pool_free(pool);
}
END_TEST

/* fill_cache leaves a prefix the step attends over: logits after a filled
 * prefix differ from those after an empty one, and are deterministic. */
START_TEST(test_fill_cache)
{
    struct ic_kern_pool *pool = pool_or_fail(2);
    struct ic_kern *k = kern_or_fail(small_shape(8, 2), IC_KW_FP32, IC_KKV_BF16, pool);
    const uint32_t tok = 5, pos0 = 0, pos20 = 20;
    float l0[97], l1[97], l2[97];
    ic_kern_step(k, 1, &tok, &pos0, l0);
    ic_kern_fill_cache(k, 0, 20, 77);
    ic_kern_step(k, 1, &tok, &pos20, l1);
    ic_kern_fill_cache(k, 0, 20, 77);
    ic_kern_step(k, 1, &tok, &pos20, l2);
    ck_assert(memcmp(l1, l2, sizeof l1) == 0);
    ck_assert(memcmp(l0, l1, sizeof l0) != 0);
    ic_kern_fill_cache(k, 2, 1000, 1); /* len past max_seq is clamped */
    ic_kern_free(k);
    ic_kern_pool_free(pool);
}
END_TEST

/* set_cache resizes the cache past the created max_seq; the step then
 * still matches the reference (bf16 KV tolerance of check_cached). */
START_TEST(test_set_cache)
{
    struct ic_kern_pool *pool = pool_or_fail(2);
    struct ic_kern *k = kern_or_fail(small_shape(8, 2), IC_KW_FP32, IC_KKV_BF16, pool);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_kern_set_cache(k, 0, 10, &e), IC_EINVAL);
    ck_assert_int_eq(ic_kern_set_cache(k, 2, 40, &e), 0);
    ck_assert_uint_eq(ic_kern_get_shape(k)->max_seq, 40);
    ck_assert_uint_eq(ic_kern_get_shape(k)->max_batch, 2);
    uint32_t toks[38];
    float lg[2 * 97], ref[97];
    const uint64_t runs0 = ic_kern_pool_runs(pool);
    for (uint32_t t = 0; t < 38; t++) {
        const uint32_t tk[2] = {toks[t] = token_of(2, t), token_of(0, t)}, pos[2] = {t, t};
        ic_kern_step(k, 2, tk, pos, t == 37 ? lg : NULL);
    }
    /* at batch 2 the attention and the elementwise parts fork; the tiny
     * projections run inline */
    ck_assert_uint_gt(ic_kern_pool_runs(pool), runs0);
    ck_assert(ic_kern_forward_nocache(k, toks, 38, ref, &e) == 0);
    double scale;
    const double err = max_diff(lg, ref, 97, &scale);
    ck_assert_msg(err <= 2 * 0x1p-9 * scale, "after set_cache: %.3g of %.3g", err, scale);
    ic_kern_free(k);
    ic_kern_pool_free(pool);
}
END_TEST

START_TEST(test_bad_shapes)
{
    struct ic_kern_pool *pool = pool_or_fail(1);
    struct ic_kern *sentinel = (struct ic_kern *)&pool, *k = sentinel;
    struct ic_err e = {0};
    struct ic_kern_shape s = small_shape(8, 3); /* 8 heads over 3 KV heads */
    ck_assert_int_eq(ic_kern_create(&s, IC_KW_FP32, IC_KKV_BF16, 1, pool, &k, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "not a multiple of n_kv_heads"), "%s", e.msg);
    ck_assert(k == sentinel); /* out written only on success */
    s = small_shape(8, 2);
    s.head_dim = 15;
    ck_assert_int_eq(ic_kern_create(&s, IC_KW_FP32, IC_KKV_BF16, 1, pool, &k, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "head_dim 15 is odd"), "%s", e.msg);
    static const char *const fields[] = {"dim",       "hidden_dim", "n_layers",
                                         "n_heads",   "n_kv_heads", "head_dim",
                                         "vocab",     "max_batch",  "max_seq"};
    for (int f = 0; f < 9; f++) {
        s = small_shape(8, 2);
        uint32_t *v[] = {&s.dim,        &s.hidden_dim, &s.n_layers, &s.n_heads, &s.n_kv_heads,
                         &s.head_dim,   &s.vocab,      &s.max_batch, &s.max_seq};
        *v[f] = 0;
        ck_assert_int_eq(ic_kern_create(&s, IC_KW_FP32, IC_KKV_INT8, 1, pool, &k, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.msg, fields[f]), "field %s: %s", fields[f], e.msg);
        ck_assert(k == sentinel);
    }
    s = small_shape(8, 2);
    ck_assert_int_eq(ic_kern_create(&s, IC_KW_COUNT, IC_KKV_INT8, 1, pool, &k, &e), IC_EINVAL);
    struct ic_kern_matrix *m = NULL;
    ck_assert_int_eq(ic_kern_matrix_create(IC_KW_FP32, 0, 5, 1, &m, &e), IC_EINVAL);
    ck_assert_int_eq(ic_kern_pool_create(-1, &pool, &e), IC_EINVAL);
    uint32_t tok = 97;
    k = kern_or_fail(small_shape(8, 2), IC_KW_FP32, IC_KKV_BF16, pool);
    float lg[97];
    ck_assert_int_eq(ic_kern_forward_nocache(k, &tok, 1, lg, &e), IC_EINVAL);
    ck_assert_int_eq(ic_kern_forward_nocache(k, &tok, 0, lg, &e), IC_EINVAL);
    ic_kern_free(k);
    ic_kern_free(NULL);
    ic_kern_matrix_free(NULL);
    ic_kern_pool_free(pool);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(ic_kern_wtype_name(IC_KW_BF16), "bf16");
    ck_assert_str_eq(ic_kern_kvtype_name(IC_KKV_INT8), "int8");
    ck_assert_uint_eq(ic_kern_wtype_bits(IC_KW_FP32), 32);
    ck_assert_uint_eq(ic_kern_wtype_bits(IC_KW_INT8), 8);
}
END_TEST

/* ---- the self-check's helpers ---------------------------------------------- */

START_TEST(test_model_shape_and_bytes)
{
    struct ic_model *m = malloc(sizeof *m);
    struct ic_model_stats st;
    struct ic_err e = {0};
    ck_assert_ptr_nonnull(m);
    /* llama3-8b: dim 4096, hidden 14336, 32 layers, 32 heads of 128 over 8 */
    ic_test_model("llama3-8b", m, &st);
    struct ic_kern_shape s;
    ck_assert_int_eq(ic_selfcheck_model_shape(m, &s, &e), IC_OK);
    ck_assert_uint_eq(s.dim, 4096);
    ck_assert_uint_eq(s.hidden_dim, 14336);
    ck_assert_uint_eq(s.n_layers, 32);
    ck_assert_uint_eq(s.n_heads, 32);
    ck_assert_uint_eq(s.n_kv_heads, 8);
    ck_assert_uint_eq(s.head_dim, 128);
    ck_assert_uint_eq(s.vocab, 128256);
    /* what the kernel cannot run is refused, naming why */
    ic_test_model("mixtral-8x7b", m, &st);
    ck_assert_int_eq(ic_selfcheck_model_shape(m, &s, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "routed experts"));
    ic_test_model("deepseek-v3", m, &st);
    ck_assert_int_eq(ic_selfcheck_model_shape(m, &s, &e), IC_EINVAL);
    free(m);

    /* validate's 246M shape (dim 2048, hidden 5632, 4 layers, 16 heads of
     * 128 over 4, vocab 32000), by hand: per layer q and o 2 * 2048 * 2048
     * = 8,388,608, k and v 2 * 512 * 2048 = 2,097,152, MLP 3 * 5632 * 2048
     * = 34,603,008: 45,088,768; 4 layers 180,355,072 + LM head 65,536,000
     * = 245,891,072 weights. fp32: 983,564,288 B + the fp32 embedding
     * 262,144,000 = 1,245,708,288 B; int8: 245,891,072 + row scales 4 B x
     * (4 * (3072 + 2048 + 11264 + 2048) + 32000 = 105,728 rows) = 422,912
     * + 262,144,000 = 508,457,984 B */
    const struct ic_kern_shape v = {2048, 5632, 4, 16, 4, 128, 32000, 0, 0};
    ck_assert_double_eq_tol(ic_selfcheck_kern_bytes(&v, 32), 1245708288.0, 0.5);
    ck_assert_double_eq_tol(ic_selfcheck_kern_bytes(&v, 8), 508457984.0, 0.5);
    /* and against the kernel's own count on a small shape (the embedding
     * aside, which ic_kern_weight_bytes leaves out: a step reads B rows) */
    const struct ic_kern_shape sm = {64, 96, 2, 4, 2, 16, 50, 1, 8};
    struct ic_kern_pool *p = pool_or_fail(1);
    for (int t = 0; t < IC_KW_COUNT; t++) {
        struct ic_kern *k = NULL;
        ck_assert_int_eq(ic_kern_create(&sm, (enum ic_kern_wtype)t, IC_KKV_BF16, 1, p, &k, &e), 0);
        ck_assert_double_eq_tol(ic_selfcheck_kern_bytes(&sm, ic_kern_wtype_bits((enum ic_kern_wtype)t)) -
                                    50.0 * 64 * 4,
                                (double)ic_kern_weight_bytes(k), 0.5);
        ic_kern_free(k);
    }
    ic_kern_pool_free(p);
}
END_TEST

/* The LLC the bench takes from its ladder (ic_selfcheck_llc_from_ladder).
 * The ladder of this project's 2-vCPU VM on 2026-12-02 (GB/s at 1, 2, 4 ...
 * 256 MiB; a 1 GiB read 44), whose sysconf reports a 508 MiB L3: at 1.4 x 44
 * = 61.6 GB/s the cache ends after 32 MiB (75 GB/s; 64 MiB reads 54). */
START_TEST(test_llc_from_ladder)
{
    const double M = 1048576;
    const double ws[] = {1 * M, 2 * M, 4 * M, 8 * M, 16 * M, 32 * M, 64 * M, 128 * M, 256 * M};
    const double bw[] = {345, 186, 159, 150, 129, 75, 54, 46, 44};
    ck_assert(ic_selfcheck_llc_from_ladder(ws, bw, 9, 44, 1.4, 508 * M) == 32 * M);
    /* a sysfs figure of 32 MiB: the ladder (to 32 MiB) is in cache at its top */
    ck_assert(ic_selfcheck_llc_from_ladder(ws, bw, 6, 44, 1.4, 32 * M) == 32 * M);
    /* 1.8 x: 75 < 79.2, so the cache ends after 16 MiB, and 16 <= 508 / 2 */
    ck_assert(ic_selfcheck_llc_from_ladder(ws, bw, 9, 44, 1.8, 508 * M) == 16 * M);
    /* within a factor 2 of the reported size: the reported size stands */
    const double ws2[] = {16 * M, 32 * M, 48 * M}, bw2[] = {130, 100, 50};
    ck_assert(ic_selfcheck_llc_from_ladder(ws2, bw2, 3, 45, 1.4, 50 * M) == 50 * M);
    /* nothing reads like a cache, or no ladder: the reported size */
    const double bw3[] = {50, 48, 46};
    ck_assert(ic_selfcheck_llc_from_ladder(ws2, bw3, 3, 45, 1.4, 50 * M) == 50 * M);
    ck_assert(ic_selfcheck_llc_from_ladder(ws2, bw3, 0, 45, 1.4, 50 * M) == 50 * M);
}
END_TEST

START_TEST(test_eta)
{
    char b[64];
    /* 3 of 12 points in 30 s: 9 left at 10 s each = 90 s */
    ic_selfcheck_eta(b, sizeof b, 30.0, 3, 12);
    ck_assert_str_eq(b, "about 1 min 30 s left");
    /* 4 of 5 in 10 s: 2.5 s, rounded up */
    ic_selfcheck_eta(b, sizeof b, 10.0, 4, 5);
    ck_assert_str_eq(b, "about 3 s left");
    /* 1 of 3 in an hour: 2 h */
    ic_selfcheck_eta(b, sizeof b, 3600.0, 1, 3);
    ck_assert_str_eq(b, "about 2 h 00 min left");
    ic_selfcheck_eta(b, sizeof b, 5.0, 0, 3);
    ck_assert_str_eq(b, "time left not known yet");
    ic_selfcheck_eta(b, sizeof b, 5.0, 3, 3);
    ck_assert_str_eq(b, "about 0 s left");
    /* no counter where the progress is not a terminal (a file here) */
    ck_assert(!ic_selfcheck_counter(NULL));
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert(!ic_selfcheck_counter(f));
    fclose(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernel");
    TCase *tc = tcase_create("kernel");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_pool);
    tcase_add_test(tc, test_bf16_rounding);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_matmul);
    tcase_add_test(tc, test_matmul_blocked);
    tcase_add_test(tc, test_cached_vs_recompute);
    tcase_add_test(tc, test_gqa_groups);
    tcase_add_test(tc, test_single_thread_same);
    tcase_add_test(tc, test_weight_types);
    tcase_add_test(tc, test_batch_independent);
    tcase_add_test(tc, test_fill_cache);
    tcase_add_test(tc, test_set_cache);
    tcase_add_test(tc, test_bad_shapes);
    tcase_add_test(tc, test_model_shape_and_bytes);
    tcase_add_test(tc, test_eta);
    tcase_add_test(tc, test_llc_from_ladder);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
