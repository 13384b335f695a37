/* The serving analyses (ic_serving and their commands): prefill and TTFT,
 * chunked prefill, speculative decoding (with a sampling check of its
 * accept / resample rule), prefix caching, disaggregation, best-of-N and the
 * SLO search. Expectations are hand arithmetic, stated beside each. */
#include "ic_cli.h"
#include "ic_engine.h"
#include "ic_serving.h"
#include "ic_sim.h"
#include "ic_test.h"
#include "ic_test_cli.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* docs/cases.md's spec values for TPU v5e: 1.97e14 bf16 FLOP/s, 8.2e11 B/s. */

START_TEST(test_prefill_70b_v5e)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "v5e");
    struct ic_prefill_cfg c = ic_prefill_defaults();
    c.chips = 16;
    c.prompt = 2048;
    c.mfu = 0.4;
    struct ic_prefill p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_OK);
    /* Linear: 2 x 69,503,033,344 active parameters x 2048 tokens, less the
     * LM head (128256 x 8192 = 1,050,673,152) for every token but the last
     * (logits come from the last prompt token only):
     * 284,684,424,577,024 - 2 x 1,050,673,152 x 2047 = 280,382,968,692,736. */
    ck_assert_double_eq_tol(p.linear_flops, 280382968692736.0, 1);
    /* Causal attention: 4 H d = 4 * 64 * 128 = 32768 FLOPs per (query, key)
     * pair per layer; pairs sum_j j = 2048 * 2049 / 2 = 2,098,176; 80 layers:
     * 32768 * 80 * 2,098,176 = 5,500,242,493,440 (docs/cases.md's ~2 L H d T^2
     * = 5.50e12). */
    ck_assert_double_eq_tol(p.attn_flops, 5500242493440.0, 1);
    /* Per chip over 16: lm_head 1,050,673,152/16 + q/o 10,737,418,240/16 +
     * k/v 1,342,177,280/8 (8 KV heads: split 8 ways only) + norms 1,318,912 +
     * MLP 56,371,445,760/16 = 4,429,062,144 parameters, 65,667,072 of them
     * the LM head's, which multiplies the last token only:
     * compute = (2 * 2048 * 4,363,395,072 + 2 * 65,667,072) / (1.97e14 * 0.4)
     *         + 5.5002e12 / (16 * 1.97e14 * 0.4) = 0.226810 + 0.004362
     *         = 0.231172 s (0.234583 s before the head was counted once). */
    ck_assert_double_le(ic_test_rel(p.compute_s, 0.231172), 1e-4);
    /* Compute-bound: the weights (8.86 GB per chip / 8.2e11 B/s = 10.8 ms)
     * and the collectives are far below it. */
    ck_assert_int_eq(p.bound, IC_PF_COMPUTE);
    ck_assert_double_le(ic_test_rel(p.prefill_s, 0.231172), 1e-4);
    /* docs/cases.md's rule of thumb, 2 P T / (N C MFU) = 2 * 70.55e9 * 2048 /
     * (16 * 1.97e14 * 0.4) = 0.2292 s, within 3% (it ignores attention and
     * the replicated k/v projections). */
    ck_assert_double_le(ic_test_rel(p.prefill_s, 0.2292), 0.03);
    /* Queueing adds to the TTFT only. */
    c.queue_s = 0.1;
    struct ic_prefill q;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &q, &e), IC_OK);
    ck_assert_double_eq_tol(q.ttft_s, p.prefill_s + 0.1, 1e-12);
    ck_assert_double_eq_tol(q.prefill_s, p.prefill_s, 1e-15);
    free(t);
}
END_TEST

/* The LM head multiplies the last prompt token only. Llama-3.2-1B ties its
 * head to the embedding (128256 x 2048 = 262,668,288 parameters); active
 * parameters 1,235,814,400. Linear FLOPs at T = 2048:
 * 2 (1,235,814,400 - 262,668,288) 2048 + 2 x 262,668,288
 * = 3,986,006,474,752 + 525,336,576 = 3,986,531,811,328 (counting the head
 * per token gave 2 x 1,235,814,400 x 2048 = 5.06e12). A 1-token prompt
 * computes logits once: 2 x 1,235,814,400. */
START_TEST(test_prefill_lm_head_once)
{
    struct ic_test_pair *t = ic_test_pair("llama3.2-1b", "h100");
    struct ic_prefill_cfg c = ic_prefill_defaults();
    c.prompt = 2048;
    c.mfu = 0.4;
    struct ic_prefill p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.linear_flops, 3986531811328.0, 1);
    c.prompt = 1;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.linear_flops, 2.0 * 1235814400.0, 1);
    free(t);
}
END_TEST

START_TEST(test_prefill_unfused_and_floor)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_prefill_cfg c = ic_prefill_defaults();
    c.prompt = 8192;
    struct ic_prefill f, u;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &f, &e), IC_OK);
    c.attn = IC_ATTN_UNFUSED;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &u, &e), IC_OK);
    /* Unfused: 4 passes over the 8192 x 8192 scores per head per layer in
     * bf16, 4 * 8192^2 * 32 heads * 2 B * 32 layers = 549.8 GB more than
     * fused. */
    ck_assert_double_le(ic_test_rel(u.attn_hbm_bytes - f.attn_hbm_bytes,
                                    4.0 * 8192 * 8192 * 32 * 2 * 32),
                        1e-12);
    /* and the whole product, 4 H d = 4 * 32 * 128 = 16384 FLOPs per pair per
     * layer over 8192^2 pairs and 32 layers, where fused does the causal
     * half plus the diagonal: 16384 * 32 * 8192 * 8193 / 2 */
    ck_assert_double_eq_tol(u.attn_flops, 16384.0 * 32 * 8192 * 8192, 1);
    ck_assert_double_eq_tol(f.attn_flops, 16384.0 * 32 * 8192 * 8193 / 2, 1);
    ck_assert_double_gt(u.prefill_s, f.prefill_s);
    /* A one-token prompt is never faster than one read of the weights:
     * 15.0 GB (all but the input embedding) / 3.35e12 B/s = 4.48 ms. */
    c.attn = IC_ATTN_FLASH;
    c.prompt = 1;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &f, &e), IC_OK);
    ck_assert_int_eq(f.bound, IC_PF_MEMORY);
    double w = (double)(t->st.params_total - t->st.group_params[IC_PG_EMBED]) * 2 / 3.35e12;
    ck_assert_double_ge(f.prefill_s, w);
    ck_assert_double_le(ic_test_rel(f.prefill_s, w), 0.01);
    free(t);
}
END_TEST

START_TEST(test_prefill_measured_mfu)
{
    /* The fixture's chip peaks at 200 GFLOP/s fp32 and its benched matmul
     * reaches 100 GFLOP/s: without --mfu the prefill runs at 0.5. */
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/measured-cpu.yaml");
    struct ic_prefill_cfg c = ic_prefill_defaults();
    c.weights = c.kv = c.compute = IC_DT_FP32;
    struct ic_prefill p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert(p.mfu_measured);
    ck_assert_double_eq_tol(p.mfu, 0.5, 1e-12);
    c.mfu = 0.25; /* an explicit figure wins */
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert(!p.mfu_measured);
    ck_assert_double_eq(p.mfu, 0.25);
    free(t);
}
END_TEST

START_TEST(test_prefill_bad_input)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "v5e");
    struct ic_prefill_cfg c = ic_prefill_defaults();
    struct ic_prefill p;
    memset(&p, 0x5a, sizeof p);
    struct ic_prefill before = p;
    struct ic_err e = {0};
    c.mfu = 1.5;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "MFU 1.5 is outside 0 to 1"));
    c.mfu = NAN;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    c.mfu = 0.4;
    c.prompt = 0;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    c.prompt = 1u << 20;
    c.prompts = 64; /* 2^26 tokens in one prefill */
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "more than 2^24 tokens"));
    c.prompts = 1;
    c.compute = IC_DT_FP8; /* v5e lists no fp8 */
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "has no fp8 compute"));
    ck_assert_mem_eq(&p, &before, sizeof p); /* untouched on failure */
    free(t);
}
END_TEST

START_TEST(test_chunked)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "v5e");
    struct ic_decode_cfg d = ic_decode_defaults();
    d.chips = 16;
    d.batch = 32;
    d.context = 8192;
    d.weights = d.kv = IC_DT_INT8;
    struct ic_prefill_cfg pf = ic_prefill_defaults();
    pf.chips = 16;
    pf.prompt = 8192;
    pf.weights = pf.kv = IC_DT_INT8;
    pf.mfu = 0.4;
    struct ic_chunked c;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &d, &pf, 512, &c, &e), IC_OK);
    ck_assert_uint_eq(c.steps, 16); /* 8192 / 512 */
    /* the decode step alone is docs/cases.md's 8.6 ms */
    ck_assert_double_le(ic_test_rel(c.decode_s, 8.6e-3), 0.05);
    /* A chunk adds 512 tokens of linear work at 40% MFU on top of the
     * batch's 32 at peak: 2 * 4,429,062,144 params/chip * 512 / (1.97e14 *
     * 0.4) = 57.5 ms more compute, so every step with a chunk is compute-
     * bound and over 57.5 ms; the prompt's own attention (its cache grows
     * to 8192 tokens) makes the last one the slowest. */
    ck_assert_double_gt(c.chunk_step_s, 57.5e-3);
    ck_assert_double_ge(c.max_step_s, c.chunk_step_s);
    /* Each chunk re-reads the weights and carries the decode batch: chunked,
     * the prompt is never done sooner than prefilled alone. */
    ck_assert_double_ge(c.ttft_s, c.prefill_alone_s);
    ck_assert_double_gt(c.slowdown, 5); /* the batch's steps are 7x longer */
    /* one chunk holding the whole prompt: one step */
    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &d, &pf, 10000, &c, &e), IC_OK);
    ck_assert_uint_eq(c.steps, 1);
    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &d, &pf, 0, &c, &e), IC_EINVAL);
    free(t);
}
END_TEST

START_TEST(test_spec_formulas)
{
    /* (1 - 0.8^5) / 0.2 = (1 - 0.32768) / 0.2 = 3.3616 tokens for k = 4 */
    ck_assert_double_eq_tol(ic_spec_tokens(0.8, 4), 3.3616, 1e-12);
    /* cost ratio 0.05: 3.3616 / (4 * 0.05 + 1) = 2.801333 */
    ck_assert_double_eq_tol(ic_spec_speedup(0.8, 4, 0.05), 3.3616 / 1.2, 1e-12);
    /* a = 1 accepts all k + 1; a = 0 only the target's own token */
    ck_assert_double_eq(ic_spec_tokens(1.0, 7), 8.0);
    ck_assert_double_eq(ic_spec_tokens(0.0, 7), 1.0);
    /* near 1 the closed form must not lose digits: sum of 0.999999^i,
     * i = 0..4, = 5 - 1e-6 * (0+1+2+3+4) + O(1e-12) */
    ck_assert_double_eq_tol(ic_spec_tokens(0.999999, 4), 5 - 10e-6, 1e-10);
    /* Best k for a = 0.8, c = 0.05: the speedups for k = 7, 8, 9 are
     * (1 - 0.8^8)/0.2/1.35 = 3.0793, (1 - 0.8^9)/0.2/1.40 = 3.0921,
     * (1 - 0.8^10)/0.2/1.45 = 3.0779: k = 8. */
    double s;
    ck_assert_uint_eq(ic_spec_best_k(0.8, 0.05, 64, &s), 8);
    ck_assert_double_eq_tol(s, (1 - pow(0.8, 9)) / 0.2 / 1.4, 1e-12);
    /* A draft as costly as the target never pays: best k = 1, speedup
     * (1 + a) / 2 < 1. */
    ck_assert_uint_eq(ic_spec_best_k(0.5, 1.0, 64, &s), 1);
    ck_assert_double_eq_tol(s, 0.75, 1e-12);
}
END_TEST

START_TEST(test_spec_accept)
{
    const double p[] = {0.5, 0.3, 0.2}, q[] = {0.2, 0.3, 0.5};
    double a;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_spec_accept(p, q, 3, &a, &e), IC_OK);
    ck_assert_double_eq_tol(a, 0.2 + 0.3 + 0.2, 1e-15);
    ck_assert_int_eq(ic_spec_accept(p, p, 3, &a, &e), IC_OK);
    ck_assert_double_eq_tol(a, 1.0, 1e-15);
    const double bad[] = {0.5, 0.3, 0.3}, neg[] = {1.2, -0.2, 0};
    ck_assert_int_eq(ic_spec_accept(p, bad, 3, &a, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "the draft distribution sums to 1.1"));
    ck_assert_int_eq(ic_spec_accept(neg, q, 3, &a, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "entry 2 is -0.2"));
}
END_TEST

/* Pearson's statistic of observed counts against n * p over k cells. */
static double chi2(const unsigned *obs, const double *p, size_t k, double n)
{
    double x = 0;
    for (size_t i = 0; i < k; i++) {
        double ex = n * p[i];
        x += (obs[i] - ex) * (obs[i] - ex) / ex;
    }
    return x;
}

START_TEST(test_spec_sampling_is_exact)
{
    /* The accept / residual-resample rule turns draws from q into draws
     * from p. 200,000 samples, 6 tokens, 5 degrees of freedom: the
     * chi-square p-value must not be tiny (1e-4: a false alarm once in
     * 10,000 seeds; this seed is fixed). */
    const double p[] = {0.30, 0.25, 0.20, 0.12, 0.08, 0.05};
    const double q[] = {0.05, 0.10, 0.15, 0.20, 0.25, 0.25};
    enum { K = 6, N = 200000 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261129);
    unsigned obs[K] = {0}, raw[K] = {0}, accepted = 0;
    for (int i = 0; i < N; i++) {
        bool acc;
        obs[ic_spec_sample(r, p, q, K, &acc)]++;
        accepted += acc;
        /* the draft's own proposal, for the test's power below */
        double u = gsl_rng_uniform(r), c = 0;
        size_t x = 0;
        for (x = 0; x < K - 1; x++) {
            c += q[x];
            if (u < c)
                break;
        }
        raw[x]++;
    }
    gsl_rng_free(r);
    double stat = chi2(obs, p, K, N);
    ck_assert_msg(gsl_cdf_chisq_Q(stat, K - 1) > 1e-4, "chi-square %g: not distributed as p",
                  stat);
    /* the same test rejects the uncorrected draft outright */
    ck_assert_double_lt(gsl_cdf_chisq_Q(chi2(raw, p, K, N), K - 1), 1e-12);
    /* and the acceptance rate is sum min(p, q) = 0.05 + 0.10 + 0.15 + 0.12 +
     * 0.08 + 0.05 = 0.55, within 5 standard errors (sqrt(.55 .45 / N)) */
    double a = (double)accepted / N;
    ck_assert_double_le(fabs(a - 0.55), 5 * sqrt(0.55 * 0.45 / N));
}
END_TEST

/* Speculative decoding and chunked prefill at the expected estimate
 * (tests/fixtures/achieved-h100.yaml: hbm_read 3.0 TB/s x GEMV efficiency
 * 0.9 = 2.7e12 B/s, bf16 GEMM 700 TFLOP/s, 10 kernels a layer at 2 us in a
 * graph). Llama-3-8B (131,072 B of KV a token; 7,504,924,672 parameters
 * read, 15,009,849,344 B in bf16), one chip, batch 1, context 1024:
 *   the target step (test_decode's test_expected_from_achieved) 6.248962 ms;
 *   the verify step of k = 4 drafts: 5 tokens after 1023 cached read 1028
 *     tokens' cache and write 5: 1033 x 131,072 = 135,397,376 B / 2.7e12 =
 *     50.147176 us; the weights 5.559203461 ms (5 tokens' linear FLOPs,
 *     5 x 21.44 us, under them; their attention, 5 x 1028 x 4 x 4096 x 32
 *     = 2.69e9 FLOPs = 3.85 us, under the cache); launches 0.640 ms:
 *     6.249350637 ms.
 * A prompt of 1000 tokens on an idle server (batch 0) in one chunk is its
 * prefill alone at the achieved rate, test_optimize's 20.958047 ms. */
START_TEST(test_spec_and_chunked_expected)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_test_pair *d = ic_test_pair("llama3.2-1b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.context = 1024;
    c.estimate = IC_EST_EXPECTED;
    struct ic_spec_costed s;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.8, 4, &s, &e), IC_OK);
    ck_assert_double_eq_tol(s.target_s, 6.248962e-3, 1e-9);
    ck_assert_double_eq_tol(s.verify_s, 6.249350637e-3, 1e-9);
    struct ic_point dp;
    ck_assert_int_eq(ic_decode(&d->st, &d->h, &c, &dp, &e), IC_OK);
    ck_assert_double_eq_tol(s.draft_s, dp.step_s, 1e-15);
    /* the draft at the expected estimate pays its launches too: 16 layers
     * x 10 x 2 us = 0.32 ms, more than its ideal step's share */
    ck_assert_double_ge(dp.fixed_s, 0.32e-3 - 1e-12);
    /* an engine whose scheduler waits 1 ms a step (tests/fixtures/engine-
     * test.yaml) schedules once a round: the verify step pays it, the 4
     * drafts (run in the worker) do not; the round is 4 draft steps without
     * it and the verify with it (it was 5 ms of host time a round) */
    struct ic_engine *en = ic_test_engine_fixture();
    c.engine = en;
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.8, 4, &s, &e), IC_OK);
    ck_assert_int_eq(ic_decode(&d->st, &d->h, &c, &dp, &e), IC_OK);
    ck_assert_double_eq_tol(dp.host_s, 1e-3, 1e-15);
    ck_assert_double_eq_tol(s.draft_s, dp.step_s - 1e-3, 1e-15);
    ck_assert_double_eq_tol(s.round_s, 4 * (dp.step_s - 1e-3) + s.verify_s, 1e-15);
    struct ic_point tp;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &tp, &e), IC_OK);
    ck_assert_double_eq_tol(tp.host_s, 1e-3, 1e-15);
    ck_assert(s.verify_s > 1e-3 + 5.559e-3); /* the host's 1 ms and the weights */
    c.engine = NULL;
    /* a prefill of 8 tokens of Llama-3.2-1B under it: the weights' 2.47 GB
     * at 2.7e12 (0.92 ms) under the fixed 1.8 ms (0.8 ms of graph-less
     * launches and 1 ms of host time): 'fixed' (it read 'memory') */
    struct ic_prefill_cfg pc = ic_prefill_defaults();
    pc.prompt = 8;
    pc.estimate = IC_EST_EXPECTED;
    pc.engine = en;
    struct ic_prefill pr;
    ck_assert_int_eq(ic_prefill(&d->st, &d->h, &pc, &pr, &e), IC_OK);
    ck_assert_str_eq(ic_prefill_bound_name(pr.bound), "fixed");
    free(en);

    struct ic_prefill_cfg pf = ic_prefill_defaults();
    pf.prompt = 1000;
    c.batch = 0;
    struct ic_chunked ch;
    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &c, &pf, 1000, &ch, &e), IC_OK);
    ck_assert_uint_eq(ch.steps, 1);
    ck_assert_double_eq_tol(ch.ttft_s, 20.958047e-3, 1e-8);
    ck_assert_double_eq_tol(ch.prefill_alone_s, 20.958047e-3, 1e-8);
    free(t);
    free(d);
}
END_TEST

/* A machine whose entry lists no fabric and no network (as infcalc bench
 * writes a CPU's: tests/fixtures/measured-cpu.yaml) cannot hand a KV cache
 * from a prefill server to a decode server: disaggregation, closed form
 * and simulated, is refused with the reason (it was an infinite hand-off:
 * "not a finite number" from disagg, a simulated run that stalled into a
 * wrong error) */
START_TEST(test_disagg_without_a_path)
{
    struct ic_test_pair *t = ic_test_pair("llama3.2-1b", IC_TEST_DIR "/fixtures/measured-cpu.yaml");
    struct ic_err e = {0};
    ck_assert(isinf(ic_disagg_kv_transfer_s(&t->st, &t->h, 1, IC_DT_FP32, 1, 1, 2)));
    struct ic_prefill_cfg pf = ic_prefill_defaults();
    pf.prompt = 512;
    pf.weights = pf.kv = pf.compute = IC_DT_FP32;
    struct ic_decode_cfg d = ic_decode_defaults();
    d.batch = 4;
    d.weights = d.kv = d.compute = IC_DT_FP32;
    struct ic_disagg x;
    ck_assert_int_eq(ic_disagg(&t->st, &t->h, &pf, &d, 64, &x, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no link to hand the KV"));
    ck_assert_uint_eq(e.line, 11); /* the entry's interconnect: */
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec = d;
    c.prefill_chips = 1;
    c.requests = 10;
    c.prompt.mean = 512;
    c.output.mean = 16;
    struct ic_sim_result r;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no link to hand the KV"));
    /* colocated, the same run has no hand-off and runs */
    c.prefill_chips = 0;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    free(t);
}
END_TEST

START_TEST(test_spec_costed)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_test_pair *d = ic_test_pair("llama3-8b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 8;
    c.batch = 4;
    struct ic_spec_costed s;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.8, 4, &s, &e), IC_OK);
    struct ic_point tp = ic_test_decode("llama3-70b", "h100", c);
    struct ic_point dp = ic_test_decode("llama3-8b", "h100", c);
    /* At batch 4 the verify step over 5 tokens per sequence is still bound
     * by the weight read: it costs one target step plus the cache traffic
     * of its 4 extra tokens, read after being written: per sequence
     * 8 x 327,680 B (80 layers x 2 x 8 KV heads x 128 x 2 B per token), on
     * one chip of 8 (8 KV heads, one each) 4 sequences / 8 of that:
     * 4 x 8 x 327,680 / 8 = 1,310,720 B / 3.35e12 B/s = 0.3913 us. */
    ck_assert_double_eq_tol(s.verify_s, tp.step_s + 1310720 / 3.35e12, 1e-15);
    ck_assert_double_eq_tol(s.cost_ratio, dp.step_s / tp.step_s, 1e-15);
    /* speedup = 3.3616 * T / (4 D + V) with T, D the two steps, V the verify */
    ck_assert_double_eq_tol(s.speedup, 3.3616 * tp.step_s / (4 * dp.step_s + s.verify_s), 1e-9);
    /* At batch 512 the target is compute-bound and verifying 5 tokens costs
     * ~5x: speculation stops paying. */
    c.batch = 512;
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.8, 4, &s, &e), IC_OK);
    ck_assert_double_lt(s.speedup, 1);
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 1.2, 4, &s, &e), IC_EINVAL);
    ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.8, 65, &s, &e), IC_EINVAL);
    free(t);
    free(d);
}
END_TEST

START_TEST(test_prefix)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_prefix_cfg c = {ic_prefill_defaults(), 3000, 0.9, 4};
    c.pf.prompt = 4096;
    c.pf.mfu = 0.4;
    struct ic_prefix x;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_prefix(&t->st, &t->h, &c, &x, &e), IC_OK);
    /* A hit prefills 1096 tokens attending to all before them:
     * linear 2 * (7,504,924,672 - 525,336,576) * 1096 + 2 * 525,336,576
     * (the LM head, 128256 x 4096, for the last token only)
     * = 15,300,307,779,584; attention 4 H d = 16384 per pair per layer, 32
     * layers, sum_{j=3001}^{4096} j = (3001 + 4096) * 1096 / 2. */
    ck_assert_uint_eq(t->st.params_active, 7504924672);
    ck_assert_uint_eq(t->st.group_params[IC_PG_HEAD], 525336576);
    double lin = 15300307779584.0;
    double att = 16384.0 * 32 * (3001.0 + 4096) * 1096 / 2;
    ck_assert_double_le(ic_test_rel(x.hit_flops, lin + att), 1e-12);
    /* the expected share saved: 0.9 * (full - hit) / full */
    ck_assert_double_le(ic_test_rel(x.flops_saved, 0.9 * (x.full_flops - x.hit_flops) /
                                                       x.full_flops),
                        1e-12);
    /* Four prefixes of 3000 tokens at 131,072 B/token = 1,572,864,000 B;
     * one back over PCIe (h100's host link) at its one-way figure. */
    ck_assert_double_eq_tol(x.held_bytes, 4.0 * 3000 * 131072, 1);
    ck_assert_double_le(ic_test_rel(x.host_read_s, 3000.0 * 131072 / t->h.host_B_s), 1e-12);
    ck_assert_double_gt(x.ttft_saved_s, 0);
    /* A chip without a host link (kind none, 0 B/s) is not refused (it
     * was, whole): only the read-back needs the link, NaN there (null,
     * '-'); the FLOPs, TTFTs, held bytes and the recompute do not read it */
    struct ic_prefix nl;
    struct ic_test_pair *bare = ic_test_pair("llama3-8b", "h100");
    bare->h.host_B_s = 0;
    snprintf(bare->h.host_kind, sizeof bare->h.host_kind, "none");
    ck_assert_int_eq(ic_prefix(&bare->st, &bare->h, &c, &nl, &e), IC_OK);
    ck_assert(isnan(nl.host_read_s));
    ck_assert_double_eq(nl.full_flops, x.full_flops);
    ck_assert_double_le(ic_test_rel(nl.hit_flops, lin + att), 1e-12);
    ck_assert_double_eq(nl.full_s, x.full_s);
    ck_assert_double_eq(nl.hit_s, x.hit_s);
    ck_assert_double_eq(nl.expected_s, x.expected_s);
    ck_assert_double_eq(nl.recompute_s, x.recompute_s);
    ck_assert_double_eq_tol(nl.held_bytes, 4.0 * 3000 * 131072, 1);
    free(bare);
    c.prefix = 4096; /* the whole prompt: nothing left to prefill */
    ck_assert_int_eq(ic_prefix(&t->st, &t->h, &c, &x, &e), IC_EINVAL);
    c.prefix = 3000;
    c.hit_rate = -0.1;
    ck_assert_int_eq(ic_prefix(&t->st, &t->h, &c, &x, &e), IC_EINVAL);
    free(t);
}
END_TEST

START_TEST(test_disagg)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_prefill_cfg pf = ic_prefill_defaults();
    pf.chips = 8;
    pf.prompt = 4096;
    pf.mfu = 0.4;
    struct ic_decode_cfg d = ic_decode_defaults();
    d.chips = 8;
    d.batch = 64;
    struct ic_disagg x;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_disagg(&t->st, &t->h, &pf, &d, 512, &x, &e), IC_OK);
    /* By hand, H100 at 9.89e14 FLOP/s and 3.35e12 B/s:
     * prefill: 2 * (69.503e9 - 1.0507e9) * 4096 + 2 * 1.0507e9 (the LM
     *   head for the last token only) + 32768 * 80 * 4096 * 4097 / 2
     *   = 5.828e14 FLOPs / (8 * 9.89e14 * 0.4) = 0.1841 s: 5.43 prompts/s
     *   per server (5.35 when the head was counted per token);
     * decode at context 4096 + 256: weights 141.1e9 B / (8 * 3.35e12) =
     *   5.26 ms, KV 64 * 4352 * 327,680 B / (8 * 3.35e12) = 3.40 ms,
     *   step 8.67 ms: 64 / (512 * 8.67 ms) = 14.4 sequences/s per server;
     * ratio 5.43 / 14.4 = 0.377 decode servers per prefill server. */
    ck_assert_double_le(ic_test_rel(x.prefill_seq_s, 5.43), 0.03);
    ck_assert_double_le(ic_test_rel(x.decode_seq_s, 14.4), 0.03);
    ck_assert_double_le(ic_test_rel(x.ratio, 0.377), 0.03);
    /* 1 / 0.377 = 2.65 prefill servers per decode server: 3 : 1 is 11.6%
     * off (0.333 / 0.377 = 0.884), 5 : 2 within 10% (0.4 / 0.377 = 1.061) */
    ck_assert_uint_eq(x.n_prefill, 5);
    ck_assert_uint_eq(x.n_decode, 2);
    /* the KV hand-off: 4096 x 327,680 B = 1,342,177,280 B, 8 senders; the
     * split's 56 chips pass the 8 of an NVLink domain, so over the 50 GB/s
     * scale-out links: 3.3554 ms + 5 us */
    ck_assert_double_le(ic_test_rel(x.kv_transfer_s, 1342177280.0 / 8 / 50e9 + 5e-6), 1e-12);
    /* servers of 4 chips at batch 16: 1 : 1 (8 chips, one domain), the KV
     * over NVLink (18 links x 25 GB/s = 450 GB/s a chip, one 2 us hop):
     * 1,342,177,280 / 4 / 450e9 = 0.745654 ms + 2 us */
    pf.chips = 4;
    d.chips = 4;
    d.batch = 16;
    ck_assert_int_eq(ic_disagg(&t->st, &t->h, &pf, &d, 512, &x, &e), IC_OK);
    ck_assert_uint_eq(x.n_prefill, 1);
    ck_assert_uint_eq(x.n_decode, 1);
    ck_assert_double_le(ic_test_rel(x.kv_transfer_s, 1342177280.0 / 4 / 450e9 + 2e-6), 1e-12);
    ck_assert_int_eq(ic_disagg(&t->st, &t->h, &pf, &d, 0, &x, &e), IC_EINVAL);
    free(t);
}
END_TEST

START_TEST(test_bestofn)
{
    /* 1 - 0.8^11 = 0.914101; 0.8^10 = 0.107 > 0.1, so 11 reach 90% */
    ck_assert_double_eq_tol(ic_bestofn(0.2, 11), 1 - pow(0.8, 11), 1e-15);
    ck_assert_uint_eq(ic_bestofn_needed(0.2, 0.9), 11);
    ck_assert_uint_eq(ic_bestofn_needed(0.5, 0.5), 1);
    /* 0.99 with p = 0.01: ln 0.01 / ln 0.99 = 458.2 -> 459 */
    ck_assert_uint_eq(ic_bestofn_needed(0.01, 0.99), 459);
    ck_assert_double_eq(ic_bestofn(0.3, 0), 0);
    /* a request of at most 2^26 = 67,108,864 tokens, as disagg's and
     * optimize's: 2^24 + (2^26 - 2^24) is the limit, one more is refused */
    struct ic_err e = {0};
    const uint64_t p24 = UINT64_C(1) << 24, p26 = UINT64_C(1) << 26;
    ck_assert_int_eq(ic_request_tokens_check(p24, p26 - p24, &e), IC_OK);
    ck_assert_int_eq(ic_request_tokens_check(p24, p26 - p24 + 1, &e), IC_EINVAL);
    ck_assert_str_eq(e.msg, "prompt + output is 67108865 tokens; expected at most 2^26");
    ck_assert_str_eq(e.hint, "keep --prompt + --output at most 67108864 tokens");
    ck_assert_int_eq(ic_request_tokens_check(p26 + 1, 0, &e), IC_EINVAL);
}
END_TEST

START_TEST(test_optimize)
{
    struct ic_model m;
    struct ic_model_stats st;
    ic_test_model("llama3-8b", &m, &st);
    struct ic_hw *hws = malloc(2 * sizeof *hws);
    ic_test_hw("h100", &hws[0]);
    ic_test_hw("l4", &hws[1]);
    struct ic_opt_req req = {.prompt = 2048, .output = 256, .ttft_s = 1.0, .tpot_s = 0.030,
                             .mfu = 0.4, .max_chips = 8};
    struct ic_opt_cand top[5];
    size_t n_ok = 0, n_fr = 0;
    struct ic_opt_point *fr = NULL;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_optimize(&st, hws, 2, &req, top, 5, &n_ok, &fr, &n_fr, &e), IC_OK);
    ck_assert_uint_gt(n_ok, 0);
    ck_assert_uint_gt(n_fr, 0);
    free(fr);
    /* sorted, every one meeting both SLOs, each price a recomputation of
     * its own chip-time: price * (prefill chip-s + decode chip-s) / L */
    size_t shown = n_ok < 5 ? n_ok : 5;
    for (size_t i = 0; i < shown; i++) {
        ck_assert_double_le(top[i].ttft_s, 1.0);
        ck_assert_double_le(top[i].tpot_s, 0.030);
        if (i)
            ck_assert_double_ge(top[i].usd_per_mtok, top[i - 1].usd_per_mtok);
        struct ic_decode_cfg d = ic_decode_defaults();
        d.chips = top[i].tp;
        d.pp = top[i].pp;
        d.micro = top[i].micro;
        ck_assert_uint_eq(top[i].tp * top[i].pp, top[i].decode_chips);
        d.batch = top[i].batch;
        d.context = 2048 + 256;
        d.weights = top[i].weights;
        d.kv = top[i].kv;
        d.compute = top[i].compute;
        struct ic_point p;
        ck_assert_int_eq(ic_decode(&st, top[i].hw, &d, &p, &e), IC_OK);
        ck_assert_double_le(ic_test_rel(p.step_s, top[i].tpot_s), 1e-12);
        /* one more sequence would break the TPOT or not fit; over
         * micro-batches, one more may be the odd batch that costs more a
         * token (test_optimize's parity test), but a whole micro-batch
         * more would not meet the TPOT */
        d.batch += top[i].micro > 1 && top[i].batch % top[i].micro == 0 ? top[i].micro : 1;
        ck_assert(ic_decode(&st, top[i].hw, &d, &p, &e) != IC_OK || p.step_s > 0.030 ||
                  !p.fits);
    }
    /* SLOs nobody meets: no result, not an error */
    req.tpot_s = 1e-6;
    ck_assert_int_eq(ic_optimize(&st, hws, 2, &req, top, 5, &n_ok, NULL, NULL, &e), IC_OK);
    ck_assert_uint_eq(n_ok, 0);
    req.tpot_s = 0;
    ck_assert_int_eq(ic_optimize(&st, hws, 2, &req, top, 5, &n_ok, NULL, NULL, &e), IC_EINVAL);
    free(hws);
}
END_TEST

/* Every row the count promises is written: with room for more rows than
 * there are distinct configurations, a type that changes nothing (fp8 and
 * int8 alike) is not counted, so min(n_ok, cap) rows all hold a chip
 * (`infcalc optimize --model deepseek-v3 --max-chips 4096 --top 1000` read
 * a row never written and crashed on its NULL chip). */
START_TEST(test_optimize_rows_written)
{
    struct ic_model m;
    struct ic_model_stats st;
    ic_test_model("llama3-8b", &m, &st);
    struct ic_hw *hws = malloc(2 * sizeof *hws);
    ic_test_hw("h100", &hws[0]);
    ic_test_hw("l4", &hws[1]);
    struct ic_opt_req req = {.prompt = 2048, .output = 256, .ttft_s = 100.0, .tpot_s = 10.0,
                             .mfu = 0.4, .max_chips = 64};
    enum { CAP = 1000 };
    struct ic_opt_cand *top = calloc(CAP, sizeof *top);
    size_t n_ok = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_optimize(&st, hws, 2, &req, top, CAP, &n_ok, NULL, NULL, &e), IC_OK);
    ck_assert_uint_gt(n_ok, 0);
    ck_assert_uint_lt(n_ok, CAP);
    for (size_t i = 0; i < n_ok; i++)
        ck_assert_msg(top[i].hw != NULL, "row %zu of %zu not written", i, n_ok);
    free(top);
    free(hws);
}
END_TEST

/* ---- the commands ------------------------------------------------------- */

#define out_buf ic_test_out
#define err_buf ic_test_err
#define run ic_test_cli

#define HAS(buf, s) ck_assert_msg(strstr(buf, s), "lacks '%s':\n%s", s, buf)

/* specdec --draft searches k over 1..64, not only the rows it prints: at
 * acceptance 0.95 a 1B draft (cost ratio ~0.025) pays past k = 16. The
 * expected best is found here by a plain loop over ic_spec_costed. */
START_TEST(test_specdec_best_k_range)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_test_pair *d = ic_test_pair("llama3.2-1b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 8;
    struct ic_err e = {0};
    uint64_t best = 0;
    double bs = 0, s16 = 0;
    for (uint64_t k = 1; k <= 64; k++) {
        struct ic_spec_costed x;
        ck_assert_int_eq(ic_spec_costed(&t->st, &d->st, &t->h, &c, c.weights, 0.95, k, &x, &e), IC_OK);
        if (x.speedup > bs * (1 + 1e-12)) {
            bs = x.speedup;
            best = k;
        }
        if (k == 16)
            s16 = x.speedup;
    }
    ck_assert_uint_gt(best, 16);
    ck_assert_double_gt(bs, s16 * 1.05);
    char want[64];
    snprintf(want, sizeof want, "best k (1-64): %llu,", (unsigned long long)best);
    ck_assert_int_eq(run("specdec", "--accept", "0.95", "--draft", "llama3.2-1b", "--model",
                         "llama3-70b", "--hw", "h100", "--chips", "8", NULL), 0);
    HAS(out_buf, want);
    /* with --k 4: that k and the best, side by side */
    ck_assert_int_eq(run("specdec", "--accept", "0.95", "--draft", "llama3.2-1b", "--model",
                         "llama3-70b", "--hw", "h100", "--chips", "8", "--k", "4", "--format",
                         "csv", NULL), 0);
    snprintf(want, sizeof want, "\n%llu,0.95,", (unsigned long long)best);
    HAS(out_buf, "\n4,0.95,");
    HAS(out_buf, want);
    free(t);
    free(d);
}
END_TEST

/* specdec --draft: the draft at its own weight type. gpt-oss-120b ships
 * fp4 (its quantization_config); a bf16 Llama 3.2 1B drafting for it is
 * costed at bf16, its own decode step on the same chips, not at the
 * target's fp4; --weights, where given, sets both. */
START_TEST(test_specdec_draft_weights)
{
    struct ic_test_pair *d = ic_test_pair("llama3.2-1b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 2;
    c.estimate = IC_EST_IDEAL;
    struct ic_point bf16, fp8;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&d->st, &d->h, &c, &bf16, &e), IC_OK);
    c.weights = IC_DT_FP8;
    ck_assert_int_eq(ic_decode(&d->st, &d->h, &c, &fp8, &e), IC_OK);
    char want[64];
    ck_assert_int_eq(run("specdec", "--accept", "0.7", "--draft", "llama3.2-1b", "--model",
                         "gpt-oss-120b", "--hw", "h100", "--chips", "2", "--k", "4",
                         "--format", "csv", NULL),
                     0);
    snprintf(want, sizeof want, ",%.10g,", bf16.step_s);
    HAS(out_buf, want);
    ck_assert_int_eq(run("specdec", "--accept", "0.7", "--draft", "llama3.2-1b", "--model",
                         "gpt-oss-120b", "--hw", "h100", "--chips", "2", "--k", "4",
                         "--weights", "fp8", "--format", "csv", NULL),
                     0);
    snprintf(want, sizeof want, ",%.10g,", fp8.step_s);
    HAS(out_buf, want);
    free(d);
}
END_TEST

/* A quantity that cannot be negative rejects a minus sign, '-0' included
 * (it printed "hit_rate": -0), with the message the other number errors get. */
START_TEST(test_minus_zero)
{
    static const char *const cases[][3] = {
        {"--hit-rate", "-0", "--hit-rate: '-0' has a minus sign; expected 0 to 1"},
        {"--hit-rate", "-0.0", "--hit-rate: '-0.0' has a minus sign; expected 0 to 1"},
        {"--mfu", "-1e-300", "--mfu: '-1e-300' has a minus sign; expected 1e-06 to 1"},
        {"--queue", "-0", "--queue: '-0' has a minus sign; expected a time, e.g. '1 us'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(run("prefix", "--model", "llama3-8b", "--hw", "h100", "--prompt",
                             "4096", "--prefix", "3000", cases[i][0], cases[i][1], NULL),
                         2);
        ck_assert_str_eq(out_buf, "");
        HAS(err_buf, cases[i][2]);
    }
    ck_assert_int_eq(run("specdec", "--accept", "-0", "--cost-ratio", "0.05", NULL), 2);
    HAS(err_buf, "--accept: '-0' has a minus sign");
    ck_assert_int_eq(run("specdec", "--accept", "0.8", "--cost-ratio", "-0", NULL), 2);
    HAS(err_buf, "--cost-ratio: '-0' has a minus sign");
    /* a plain 0 stays a valid hit rate */
    ck_assert_int_eq(run("prefix", "--model", "llama3-8b", "--hw", "h100", "--prompt", "4096",
                         "--prefix", "3000", "--hit-rate", "0", "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"hit_rate\": 0,");
}
END_TEST

START_TEST(test_commands_help)
{
    static const char *const cmds[] = {"prefill", "specdec", "moe", "batching", "prefix",
                                       "disagg", "cost", "optimize", "bestofn", "serve",
                                       "simulate", "check-published"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        ck_assert_int_eq(run(cmds[i], "--help", NULL), 0);
        char want[64];
        snprintf(want, sizeof want, "usage: infcalc %s", cmds[i]);
        HAS(out_buf, want);
        ck_assert_int_eq(run("help", cmds[i], NULL), 0);
        HAS(out_buf, want);
    }
    ck_assert_int_eq(run("--help", NULL), 0);
    HAS(out_buf, "optimize");
}
END_TEST

START_TEST(test_commands_json)
{
    ck_assert_int_eq(run("prefill", "--model", "llama3-70b", "--hw", "v5e", "--chips", "16",
                         "--prompt", "2048", "--mfu", "0.4", "--attention", "flash",
                         "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"ttft_s\": 0.2311"); /* 0.231172 s: test_prefill_70b_v5e */
    HAS(out_buf, "\"bound\": \"compute\"");
    ck_assert_int_eq(run("specdec", "--accept", "0.8", "--cost-ratio", "0.05", "--k", "4",
                         "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"expected_tokens\": 3.3616");
    /* with --k, the best beside it, as the --draft path: k = 8,
     * (1 - 0.8^9) / 0.2 = 4.32891136 tokens over 1 + 8 x 0.05 = 3.092079543 */
    HAS(out_buf, "{\"k\": 8, \"acceptance\": 0.8, \"expected_tokens\": 4.32891136, "
                 "\"cost_ratio\": 0.05, \"speedup\": 3.092079543, \"best\": true}");
    /* the best past 16 is a row (it was in the title alone): a = 0.9, c =
     * 0.01, k = 24: (1 - 0.9^25) / 0.1 = 9.282102012 over 1.24 = 7.485566 */
    ck_assert_int_eq(run("specdec", "--accept", "0.9", "--cost-ratio", "0.01", "--format", "json",
                         NULL),
                     0);
    HAS(out_buf, "{\"k\": 24, \"acceptance\": 0.9, \"expected_tokens\": 9.282102");
    HAS(out_buf, "\"speedup\": 7.485566");
    HAS(out_buf, "\"best\": true}\n]");
    ck_assert_int_eq(run("specdec", "--p", "0.5,0.3,0.2", "--q", "0.2,0.3,0.5", "--cost-ratio",
                         "0", "--k", "1", "--format", "csv", NULL),
                     0);
    /* a = 0.7: 1 + 0.7 tokens for free; with a free draft the best k is 64 */
    HAS(out_buf, "1,0.7,1.7,0,1.7,false");
    ck_assert_int_eq(run("bestofn", "--success", "0.2", "--target", "0.9", "--format", "json",
                         NULL),
                     0);
    HAS(out_buf, "\"n\": 11");
    ck_assert_int_eq(run("disagg", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--batch", "64", "--prompt", "4096", "--output", "512", "--format",
                         "json", NULL),
                     0);
    HAS(out_buf, "\"n_prefill\": 5"); /* 5 : 2, as test_disagg works out */
    ck_assert_int_eq(run("cost", "--model", "llama3-70b", "--hw", "v5e", "--chips", "16",
                         "--batch", "32", "--context", "8192", "--weights", "int8", "--kv",
                         "int8", "--format", "csv", NULL),
                     0);
    HAS(out_buf, "usd_per_million_output_tokens");
    for (const char *c = "moe"; c; c = NULL) {
        ck_assert_int_eq(run(c, "--model", "deepseek-v3", "--hw", "h200", "--chips", "8",
                             "--format", "json", NULL),
                         0);
        HAS(out_buf, "\"compute_bound_batch\"");
    }
    ck_assert_int_eq(run("batching", "--model", "llama3-8b", "--hw", "h100", "--batch", "64",
                         "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"paged_max_batch\"");
    /* no batch fits contiguously (Llama-3-70B bf16 on one L4): the ratio
     * is undefined, null (it read 0) */
    ck_assert_int_eq(run("batching", "--model", "llama3-70b", "--hw", "l4", "--format", "json",
                         NULL),
                     0);
    HAS(out_buf, "\"paged_gain\": null");
    /* moe's CSV is one table, the summary's fields on every batch row (it
     * held the batch rows alone): 13 batches 1 .. 4096, DeepSeek-V3's 256
     * experts, top 8, on groups of 8 H200s, 4 of them */
    ck_assert_int_eq(run("moe", "--model", "deepseek-v3", "--hw", "h200", "--chips", "8", "--ep",
                         "4", "--format", "csv", NULL),
                     0);
    HAS(out_buf, "model,hw,chips_per_group,ep,experts,top_k,dense_b_crit,moe_b_crit,");
    HAS(out_buf, ",ridge,estimate,engine,batch,experts_touched,");
    {
        int rows = 0;
        for (const char *p = out_buf; (p = strstr(p, "\ndeepseek-v3,h200-sxm,8,4,256,8,")); p++)
            rows++;
        ck_assert_int_eq(rows, 13);
    }
    /* prefill --chunk's record names the inputs that move its TTFT (a
     * second run without them reads 0.1558 s against 0.1775 s + 1 s) */
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--prompt", "4096",
                         "--chunk", "512", "--prefix", "4000", "--queue", "1s", "--format",
                         "json", NULL),
                     0);
    HAS(out_buf, "\"prompt\": 4096, \"prompts\": 1, \"prefix\": 4000, \"queue_s\": 1, "
                 "\"chunk\": 512");
    /* simulate's JSON carries the SLOs and the capacity its table's title
     * states (they were in the title alone), the same figure: the table's
     * "capacity under them: X requests/s" against each row's capacity_per_s */
    {
        const char *argv_sim[] = {"simulate", "--model", "llama3-8b", "--hw", "h100", "--rates",
                                  "2,4,8,30", "--requests", "300", "--ttft", "2s", "--tpot",
                                  "20ms"};
        ck_assert_int_eq(run(argv_sim[0], argv_sim[1], argv_sim[2], argv_sim[3], argv_sim[4],
                             argv_sim[5], argv_sim[6], argv_sim[7], argv_sim[8], argv_sim[9],
                             argv_sim[10], argv_sim[11], argv_sim[12], NULL),
                         0);
        const char *t = strstr(out_buf, "capacity under them: ");
        ck_assert_ptr_nonnull(t);
        double cap_table = 0;
        ck_assert_int_eq(sscanf(t, "capacity under them: %lf", &cap_table), 1);
        ck_assert_int_eq(run(argv_sim[0], argv_sim[1], argv_sim[2], argv_sim[3], argv_sim[4],
                             argv_sim[5], argv_sim[6], argv_sim[7], argv_sim[8], argv_sim[9],
                             argv_sim[10], argv_sim[11], argv_sim[12], "--format", "json", NULL),
                         0);
        HAS(out_buf, "\"slo\": {\"ttft_p99_s\": 2, \"tpot_p99_s\": 0.02}");
        const char *j = strstr(out_buf, "\"capacity_per_s\": ");
        ck_assert_ptr_nonnull(j);
        double cap_json = 0;
        ck_assert_int_eq(sscanf(j, "\"capacity_per_s\": %lf", &cap_json), 1);
        ck_assert_msg(cap_json > 0 && fabs(cap_json - cap_table) <= 5e-4 * cap_json,
                      "capacity %g in JSON, %g in the table", cap_json, cap_table);
        /* a TPOT SLO under the batch-1 step (Llama-3-8B on an H100: about
         * 4.5 ms a token at the ideal bound): no rate meets it, the
         * capacity lies below them all, unknown: null, not 0 */
        ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rates",
                             "2,4", "--requests", "100", "--tpot", "1ms", "--format", "json",
                             NULL),
                         0);
        HAS(out_buf, "\"capacity_per_s\": null");
        HAS(out_buf, "\"capacity_output_tokens_per_s_per_chip\": null");
        /* (no rate met them: not a lower bound either) Rates all meeting
         * loose SLOs (2 and 4 req/s, where the sweep above passed 8 at a
         * 2 s TTFT and a 20 ms TPOT): the capacity is 4 or more, said
         * so, not 4 */
        HAS(out_buf, "\"capacity_at_least\": false");
        ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rates",
                             "2,4", "--requests", "100", "--ttft", "2s", "--tpot", "20ms",
                             NULL),
                         0);
        HAS(out_buf, "capacity under them: at least 4 requests/s");
        HAS(out_buf, "every rate swept meets them");
    }
    /* --requests-csv: a one-token output has no time per output token, an
     * empty cell (it read 0) where its TTFT equals its E2E */
    {
        char path[64];
        snprintf(path, sizeof path, "/tmp/ic-req-%d.csv", (int)getpid());
        ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--requests", "3",
                             "--output", "1", "--requests-csv", path, NULL),
                         0);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        char line[512];
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
        int rows = 0;
        while (fgets(line, sizeof line, f)) {
            /* fields 6, 7, 8: ttft_s, tpot_s (empty), e2e_s */
            char *fld[13] = {0};
            int k = 0;
            fld[k++] = line;
            for (char *p = line; *p && k < 13; p++)
                if (*p == ',') {
                    *p = '\0';
                    fld[k++] = p + 1;
                }
            ck_assert_int_eq(k, 13);
            ck_assert_str_eq(fld[6], "");
            ck_assert_str_eq(fld[5], fld[7]);
            rows++;
        }
        fclose(f);
        remove(path);
        ck_assert_int_eq(rows, 3);
    }
    ck_assert_int_eq(run("prefix", "--model", "llama3-8b", "--hw", "h100", "--prompt", "4096",
                         "--prefix", "3000", "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"ttft_saved_s\"");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "h100,l4", "--ttft", "1s",
                         "--tpot", "30ms", "--top", "3", NULL),
                     0);
    HAS(out_buf, "configurations meet the SLOs");
    HAS(out_buf, "ranked by the closed form");
    /* by simulated capacity: said, the work stated (2 configurations x at
     * most 9 runs x 200 requests) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "h100", "--ttft", "1s",
                         "--tpot", "30ms", "--prompt", "512", "--output", "64", "--rank",
                         "capacity", "--shortlist", "2", "--requests", "200", "--max-chips", "2",
                         NULL),
                     0);
    HAS(out_buf, "ranked by simulated capacity under the P99 SLOs");
    HAS(out_buf, "capacity req/s");
    /* simulate's options mean nothing to the closed form */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "h100", "--ttft", "1s",
                         "--tpot", "30ms", "--requests", "200", NULL),
                     2);
    HAS(err_buf, "--requests needs --rank capacity");
}
END_TEST

/* Configurations that cannot be held, or past the model's trained length,
 * are still computed, with a warning, as decode's table says DOES NOT FIT
 * (they said nothing). By hand: Llama-3-70B's 70,553,706,496 parameters in
 * bf16 are 141.1 GB on one H100 of 80 GB; with one prompt of 2048 tokens'
 * KV (2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B a token: 0.67 GB)
 * and a workspace, 141.8 GB. A 1-chip H100 holds Llama-3-8B's 16.1 GB and a
 * batch of 1 at 2048 (no warning). */
START_TEST(test_commands_warn)
{
    ck_assert_int_eq(run("disagg", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--prefill-chips", "1", NULL),
                     0);
    HAS(err_buf, "warning: a prefill server does not fit: 141.8 GB a chip");
    ck_assert_ptr_null(strstr(err_buf, "a decode server does not fit"));
    ck_assert_int_eq(run("cost", "--model", "deepseek-v3", "--hw", "h100", "--batch", "512",
                         "--context", "100000", NULL),
                     0);
    HAS(err_buf, "warning: the decode batch does not fit");
    ck_assert_int_eq(run("specdec", "--accept", "0.8", "--draft", "mistral-7b", "--model",
                         "llama3-70b", "--hw", "h100", "--chips", "8", NULL),
                     0);
    HAS(err_buf, "the draft mistral-7b has a vocabulary of 32000 tokens and the target "
                 "llama3-70b one of 128256");
    /* the draft on the same chips counts too: Llama-3-70B's batch of 16
     * at 2048 on 2 H100s takes 75.9 GB a chip, Llama-3-8B's 10.2 GB (each
     * as decode's memory per chip says): 86.1 GB of 80 */
    ck_assert_int_eq(run("specdec", "--accept", "0.8", "--draft", "llama3-8b", "--model",
                         "llama3-70b", "--hw", "h100", "--chips", "2", "--batch", "16", NULL),
                     0);
    HAS(err_buf, "warning: the target with its draft does not fit: 86.11 GB a chip");
    /* the draft's context limit as the target's: a 100,000-token context
     * passes Llama-3-8B's 8192, not Llama-3.1-405B's 131,072 */
    ck_assert_int_eq(run("specdec", "--accept", "0.8", "--draft", "llama3-8b", "--model",
                         "llama3.1-405b", "--hw", "h200", "--chips", "8", "--context", "100000",
                         "--weights", "fp8", NULL),
                     0);
    HAS(err_buf, "warning: --context (100000 tokens) exceeds llama3-8b's "
                 "max_position_embeddings (8192)");
    ck_assert_ptr_null(strstr(err_buf, "llama3.1-405b's"));
    /* bestofn refuses a request past 2^26 tokens, as disagg and optimize
     * do: 2^24 + 2^26 = 83,886,080 (it printed 2.4e13 s) */
    ck_assert_int_eq(run("bestofn", "--success", "0.5", "--n", "4096", "--output", "67108864",
                         "--prompt", "16777216", "--model", "llama3.1-405b", "--hw", "l4",
                         NULL),
                     2);
    HAS(err_buf, "prompt + output is 83886080 tokens; expected at most 2^26");
    HAS(err_buf, "keep --prompt + --output at most 67108864 tokens");
    ck_assert_str_eq(out_buf, "");
    ck_assert_int_eq(run("bestofn", "--success", "0.2", "--target", "0.9", "--model",
                         "llama3-8b", "--hw", "h100", "--prompt", "8000", "--output", "1000",
                         NULL),
                     0);
    HAS(err_buf, "warning: --prompt + --output (9000 tokens) exceeds llama3-8b's "
                 "max_position_embeddings (8192)");
    ck_assert_int_eq(run("cost", "--model", "llama3-8b", "--hw", "h100", NULL), 0);
    ck_assert_ptr_null(strstr(err_buf, "warning"));
    /* one chip named twice (an alias and its name) is refused, as decode
     * refuses it */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "2s", "--tpot", "50ms",
                         "--hw", "h100,h100-sxm", NULL),
                     2);
    HAS(err_buf, "--hw: 'h100' and 'h100-sxm' are one entry, h100-sxm");
    /* the closed form's tokens per chip are the decode servers' (its $/M
     * counts the prefill servers too): named so, unlike the capacity
     * ranking's over colocated chips */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "2s", "--tpot", "50ms",
                         "--hw", "h100", "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"decode_tokens_per_s_per_chip\"");
    ck_assert_ptr_null(strstr(out_buf, "\"tokens_per_s_per_chip\""));
    /* a chance just under 1 is not printed 100%: 1 - 0.8^64 = 1 - 6.277e-7 */
    ck_assert_int_eq(run("bestofn", "--success", "0.2", "--n", "64", NULL), 0);
    HAS(out_buf, "99.999937%");
    /* a chart of nothing: refused with its reason (the generic hint before) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "1ns", "--tpot", "1ns",
                         "--hw", "h100", "--plot", "/tmp/ic_test_never.png", NULL),
                     2);
    HAS(err_buf, "--plot: nothing to draw, no configuration meets TTFT <= 1 ns");
}
END_TEST

/* prefix on a chip whose entry has no host link (the test fixture's
 * good-hw.yaml with host_link kind none, 0 B/s, as hwdb/README.md allows):
 * everything but the read-back, which is null in JSON, empty in CSV and
 * '-' in the table, and said in the title (it refused the whole analysis,
 * with a hint to add a host_link section the entry had). Llama-3.2-1B
 * holds 16 layers x 8 KV heads x 64 x 2 (K, V) x 2 B = 32,768 B a token:
 * a prefix of 1536 tokens 50,331,648 B. */
START_TEST(test_prefix_no_host_link)
{
    char src[4096], path[64];
    FILE *f = fopen(IC_TEST_DIR "/fixtures/good-hw.yaml", "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = '\0';
    const char *link = "host_link:\n  kind: pcie\n  bandwidth_one_way: 16 GB/s\n";
    char *at = strstr(src, link);
    ck_assert_ptr_nonnull(at);
    char text[4200];
    snprintf(text, sizeof text, "%.*shost_link:\n  kind: none\n  bandwidth_one_way: 0 B/s\n%s",
             (int)(at - src), src, at + strlen(link));
    ic_test_write_tmp(path, text);
    ck_assert_int_eq(run("prefix", "--model", "llama3.2-1b", "--hw", path, "--prompt", "2048",
                         "--prefix", "1536", "--format", "json", NULL),
                     0);
    HAS(out_buf, "\"held_bytes\": 50331648,");
    HAS(out_buf, "\"host_read_s\": null,");
    HAS(out_buf, "\"reload\": \"recompute (no host link)\"");
    ck_assert_ptr_null(strstr(out_buf, "nan"));
    ck_assert_int_eq(run("prefix", "--model", "llama3.2-1b", "--hw", path, "--prompt", "2048",
                         "--prefix", "1536", "--format", "csv", NULL),
                     0);
    HAS(out_buf, ",50331648,50331648,,");
    ck_assert_int_eq(run("prefix", "--model", "llama3.2-1b", "--hw", path, "--prompt", "2048",
                         "--prefix", "1536", NULL),
                     0);
    HAS(out_buf, "no host link: no read-back from host memory");
    HAS(out_buf, "read one back from host  -\n");
    ck_assert_str_eq(err_buf, "");
    unlink(path);
}
END_TEST

START_TEST(test_commands_bad_input)
{
    ck_assert_int_eq(run("specdec", "--accept", "1.5", "--cost-ratio", "0.1", NULL), 2);
    HAS(err_buf, "--accept: 1.5 is out of range; expected 0 to 1");
    ck_assert_int_eq(run("specdec", "--accept", "0.5", "--cost-ratio", "0.1", "--k", "0", NULL),
                     2);
    HAS(err_buf, "--k: 0 is out of range");
    ck_assert_int_eq(run("specdec", "--accept", "0.5x", "--cost-ratio", "0.1", NULL), 2);
    HAS(err_buf, "--accept: '0.5x' is not a number");
    ck_assert_int_eq(run("specdec", "--p", "0.5,0.5", "--q", "0.2,0.3,0.5", "--cost-ratio", "0",
                         NULL),
                     2);
    HAS(err_buf, "--p has 2 probabilities and --q 3");
    ck_assert_int_eq(run("specdec", "--accept", "0.5", NULL), 2);
    HAS(err_buf, "--cost-ratio C or --draft MODEL");
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--mfu", "0", NULL),
                     2);
    HAS(err_buf, "--mfu");
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--attention",
                         "flashy", NULL),
                     2);
    HAS(err_buf, "expected flash or unfused");
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--queue", "5 parsecs",
                         NULL),
                     2);
    HAS(err_buf, "--queue");
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--batch", "8",
                         NULL),
                     2);
    HAS(err_buf, "add --chunk C");
    ck_assert_int_eq(run("prefix", "--model", "llama3-8b", "--hw", "h100", "--prompt", "100",
                         "--prefix", "100", NULL),
                     2);
    HAS(err_buf, "expected 1 to the prompt minus 1 (99)");
    ck_assert_int_eq(run("bestofn", "--success", "0.5", "--n", "4", "--chips", "8", NULL), 2);
    HAS(err_buf, "add --model and --hw");
    ck_assert_int_eq(run("bestofn", "--success", "1", "--n", "4", NULL), 2);
    HAS(err_buf, "strictly between 0 and 1");
    ck_assert_int_eq(run("moe", "--model", "llama3-8b", "--hw", "h100", "--ep", "2", NULL), 2);
    ck_assert_int_eq(run("moe", "--model", "llama3-8b", "--hw", "h100", NULL), 2);
    HAS(err_buf, "llama3-8b is dense (no routed experts)");
    /* experts listed, but first_k_dense_replace leaves its one layer dense:
     * no expert is touched anywhere (it printed experts per layer) */
    ck_assert_int_eq(run("moe", "--model", IC_TEST_DIR "/fixtures/moe-no-moe-layer.yaml", "--hw",
                         "h100", NULL),
                     2);
    HAS(err_buf, "has no MoE layer");
    /* optimize searches bf16, fp8, int8, int4 weights and bf16, fp8 KV: a
     * type outside them is refused (it narrowed the search to nothing) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "1s", "--tpot", "50ms",
                         "--kv", "bf16,int4", NULL),
                     2);
    HAS(err_buf, "--kv int4: optimize does not search that type");
    ck_assert_int_eq(run("batching", "--model", "llama3-8b", "--hw", "h100", "--block", "0",
                         NULL),
                     2);
    HAS(err_buf, "--block: 0 is out of range");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "1s", NULL), 2);
    HAS(err_buf, "optimize needs --model, --ttft and --tpot");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "1s", "--tpot", "0ms",
                         NULL),
                     2);
    HAS(err_buf, "--ttft and --tpot must be positive times");
    ck_assert_int_eq(run("disagg", "--model", "llama3-8b", "--hw", "h100", "--output", "0",
                         NULL),
                     2);
    HAS(err_buf, "--output: 0 is out of range");
    ck_assert_int_eq(run("disagg", "--model", "llama3-8b", "--hw", "h100", "--prefill-chips",
                         "two", NULL),
                     2);
    HAS(err_buf, "--prefill-chips: 'two' is not a whole number");
    ck_assert_int_eq(run("cost", "--model", "llama3-8b", "--hw", "h100", "--price", "0", NULL),
                     2);
    HAS(err_buf, "--price: 0 is out of range");
    ck_assert_int_eq(run("cost", "--model", "llama3-8b", "--hw", "h100", "--price", "inf", NULL),
                     2);
    HAS(err_buf, "--price: 'inf' is not a number");
    ck_assert_int_eq(run("moe", "--model", "deepseek-v3", "--hw", "h200", "--ep", "3", NULL), 2);
    HAS(err_buf, "ep");
    /* SLOs nobody meets: said, exit 0, an empty result */
    ck_assert_int_eq(run("optimize", "--model", "llama3-70b", "--ttft", "1ms", "--tpot", "1ms",
                         "--format", "json", NULL),
                     0);
    HAS(out_buf, "[\n]");
    HAS(err_buf, "no configuration meets");
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--ep", "2", NULL),
                     2);
    HAS(err_buf, "option '--ep' does not apply to 'prefill'");
}
END_TEST

/* simulate: one load prints its row (JSON fields by name); a sweep states
 * the capacity under the SLOs, and the capacity's rate meets them; a
 * configuration with no room for the KV fails with exit 2. Llama-3-8B on
 * one H100, ideal: offline throughput ~ requests / duration. */
START_TEST(test_simulate)
{
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rate", "2",
                         "--requests", "300", "--prompt", "512", "--output", "64", "--format",
                         "json", NULL),
                     0);
    HAS(out_buf, "\"rate_per_s\": 2,");
    HAS(out_buf, "\"ttft\": {\"p50_s\": ");
    HAS(out_buf, "\"preemptions\": 0,");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rates", "1,4,64",
                         "--requests", "300", "--prompt", "512", "--output", "64", "--ttft",
                         "1s", "--tpot", "20ms", NULL),
                     0);
    HAS(out_buf, "capacity under them:");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rate", "1",
                         "--rates", "1,2", NULL),
                     2);
    HAS(err_buf, "not both");
    ck_assert_int_eq(run("simulate", "--model", "llama3-70b", "--hw", "l4", NULL), 2);
    HAS(err_buf, "leaves no room for the KV cache");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--rate", "-1",
                         NULL),
                     2);
    HAS(err_buf, "--rate: '-1' has a minus sign");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("serving");
    TCase *tc = tcase_create("serving");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_prefill_70b_v5e);
    tcase_add_test(tc, test_prefill_lm_head_once);
    tcase_add_test(tc, test_specdec_best_k_range);
    tcase_add_test(tc, test_specdec_draft_weights);
    tcase_add_test(tc, test_minus_zero);
    tcase_add_test(tc, test_prefill_unfused_and_floor);
    tcase_add_test(tc, test_prefill_measured_mfu);
    tcase_add_test(tc, test_prefill_bad_input);
    tcase_add_test(tc, test_chunked);
    tcase_add_test(tc, test_spec_formulas);
    tcase_add_test(tc, test_spec_accept);
    tcase_add_test(tc, test_spec_sampling_is_exact);
    tcase_add_test(tc, test_spec_costed);
    tcase_add_test(tc, test_spec_and_chunked_expected);
    tcase_add_test(tc, test_disagg_without_a_path);
    tcase_add_test(tc, test_prefix);
    tcase_add_test(tc, test_disagg);
    tcase_add_test(tc, test_bestofn);
    tcase_add_test(tc, test_optimize);
    tcase_add_test(tc, test_optimize_rows_written);
    tcase_add_test(tc, test_commands_help);
    tcase_add_test(tc, test_simulate);
    tcase_add_test(tc, test_commands_json);
    tcase_add_test(tc, test_commands_bad_input);
    tcase_add_test(tc, test_commands_warn);
    tcase_add_test(tc, test_prefix_no_host_link);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
