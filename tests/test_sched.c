/* Serving analyses' core: ic_sched (static vs continuous batching, the
 * expected longest output, contiguous vs paged KV) and ic_moe (experts
 * touched, the compute-bound batch, expert parallelism, attention
 * intensity). Literal expectations with the hand arithmetic in comments;
 * exact references where the math has one (harmonic numbers for the
 * exponential, Gini's mean difference for the maximum of two gammas) and a
 * Monte Carlo one where it has not. */
#include "ic_moe.h"
#include "ic_sched.h"
#include "ic_test.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- ic_sched ---- */

START_TEST(test_expected_max_exponential)
{
    /* shape 1 (exponential): E[max of n] = mean * H_n, H_n = 1 + 1/2 + ... + 1/n */
    struct ic_lengths l = {256, 1};
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, 1), 256) < 1e-12);
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, 2), 384) < 1e-12);       /* 256 * 1.5 */
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, 10), 749.8158730) < 1e-9); /* H_10 = 7381/2520 */
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, 64), 1214.436071) < 1e-9); /* H_64 = 4.7438909 */
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, 1000), 1916.280540) < 1e-9); /* 7.4854709 */
    /* n = 2^24: H_n = 17.2127480 (ln n + 0.5772157 + 1/(2n)): the same cost as n = 1 */
    ck_assert(ic_test_rel(ic_sched_expected_max(&l, UINT64_C(1) << 24), 4406.463495) < 1e-9);
    /* a sum of harmonic terms for every n up to 300, against the integral */
    double H = 0;
    for (uint64_t n = 1; n <= 300; n++) {
        H += 1.0 / (double)n;
        ck_assert_msg(ic_test_rel(ic_sched_expected_max(&l, n), 256 * H) < 1e-9, "n %llu",
                      (unsigned long long)n);
    }
}
END_TEST

START_TEST(test_expected_max_shapes)
{
    /* n = 1: the mean, for every shape (the quadrature's accuracy, since
     * nothing special-cases it); shape 0: every request is the mean */
    const double shapes[] = {1e-3, 0.01, 0.3, 1, 2.5, 50, 1e3, 1e5};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        struct ic_lengths l = {256, shapes[i]};
        double v = ic_sched_expected_max(&l, 1);
        ck_assert_msg(ic_test_rel(v, 256) < 1e-9, "shape %g: %.12g", shapes[i], v);
        /* more samples, a longer maximum: monotone in n */
        double prev = v;
        for (uint64_t n = 2; n <= IC_DECODE_MAX_BATCH; n *= 4) {
            double m = ic_sched_expected_max(&l, n);
            ck_assert_msg(m > prev && isfinite(m), "shape %g n %llu", shapes[i],
                          (unsigned long long)n);
            prev = m;
        }
    }
    struct ic_lengths fixed = {256, 0};
    ck_assert_double_eq(ic_sched_expected_max(&fixed, 1), 256);
    ck_assert_double_eq(ic_sched_expected_max(&fixed, 1000000), 256);
    ck_assert_double_eq(ic_sched_expected_max(&fixed, 0), 0);
    /* n = 2, any shape k: E[max] = mean + E|X - Y| / 2 = mean (1 + G), with
     * Gini's G = Gamma(k + 1/2) / (k Gamma(k) sqrt(pi)) for the gamma:
     * k = 0.3: G = 0.7318860 -> 443.3628; k = 2.5: G = 0.3395305 ->
     * 342.9198; k = 50: G = 0.0795892 -> 276.3748 */
    struct ic_lengths a = {256, 0.3}, b = {256, 2.5}, c = {256, 50};
    ck_assert(ic_test_rel(ic_sched_expected_max(&a, 2), 443.3628272) < 1e-9);
    ck_assert(ic_test_rel(ic_sched_expected_max(&b, 2), 342.9198196) < 1e-9);
    ck_assert(ic_test_rel(ic_sched_expected_max(&c, 2), 276.3748448) < 1e-9);
}
END_TEST

START_TEST(test_expected_max_monte_carlo)
{
    /* shape 2.5, mean 256, n = 16: the mean of the maxima of 20,000 batches
     * drawn with a fixed seed. The maximum's spread is about 130 tokens, so
     * the sample mean's standard error is ~1 token (0.15%); 1.5% is ten of
     * them, and still far from the mean (256) or the n = 2 figure (343). */
    struct ic_lengths l = {256, 2.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert(r);
    gsl_rng_set(r, 20250101);
    const int trials = 20000, n = 16;
    double sum = 0;
    for (int t = 0; t < trials; t++) {
        double mx = 0;
        for (int i = 0; i < n; i++)
            mx = fmax(mx, gsl_ran_gamma(r, 2.5, 256 / 2.5));
        sum += mx;
    }
    gsl_rng_free(r);
    double mc = sum / trials, v = ic_sched_expected_max(&l, n);
    ck_assert_msg(ic_test_rel(v, mc) < 0.015, "quadrature %g, Monte Carlo %g", v, mc);
    ck_assert(v > 1.5 * 256);
}
END_TEST

/* E[max of n lengths each cut at R] against references made apart from
 * the quadrature:
 * - exponential (shape 1, mean mu): with y = F(x) = 1 - e^(-x/mu), dx =
 *   mu dy / (1 - y), so the integral of 1 - F^n over [0, R] is
 *   mu x integral over [0, Y] of (1 - y^n) / (1 - y) dy = mu x sum_{j=1..n}
 *   Y^j / j, Y = 1 - e^(-R/mu) (mu H_n as R -> infinity); E[min(L, R)] =
 *   mu Y. The audit's case: mu 1024, R = 4096 - 512 = 3584, n 64: Y = 1 -
 *   e^-3.5 = 0.969803, sum 3532.362 (uncut 1024 H_64 = 4857.7, past R),
 *   mean 993.078.
 * - shape 2 (F = 1 - e^(-t)(1 + t), t = x/theta): Simpson's rule on 1 - F^n
 *   over [0, R] (200,000 panels, the integrand smooth), and on 1 - F for
 *   E[min(L, R)].
 * - shape 0.5, mean 256, n 64, R 1000: mpmath (30 digits, mp.quad of 1 -
 *   gammainc(0.5, 0, x/512, regularized)^64 over [0, 1000]): 995.587405504;
 *   E[min(L, R)] = k theta P_{k+1}(R) + R Q_k(R) = 234.53447403. */
static double simpson_gamma2(double mean, uint64_t n, double R, bool max)
{
    const int panels = 200000; /* even */
    const double th = mean / 2, h = R / panels;
    double sum = 0;
    for (int i = 0; i <= panels; i++) {
        const double t = i * h / th, F = -expm1(-t) - t * exp(-t);
        const double f = max ? 1 - pow(F, (double)n) : 1 - F;
        sum += f * (i == 0 || i == panels ? 1 : i % 2 ? 4 : 2);
    }
    return sum * h / 3;
}

START_TEST(test_expected_max_cut)
{
    const struct ic_lengths ex = {1024, 1};
    const double Y = -expm1(-3584.0 / 1024);
    double ref = 0, Yj = 1;
    for (int j = 1; j <= 64; j++) {
        Yj *= Y;
        ref += Yj / j;
    }
    ref *= 1024;
    ck_assert(ic_test_rel(ref, 3532.362) < 1e-6); /* the sum by hand, 7 digits */
    ck_assert_msg(ic_test_rel(ic_sched_expected_max_cut(&ex, 64, 3584), ref) < 1e-9, "%.10g vs %.10g",
                  ic_sched_expected_max_cut(&ex, 64, 3584), ref);
    ck_assert(ic_test_rel(ic_sched_mean_cut(&ex, 3584), 1024 * Y) < 1e-12); /* 993.0779 */
    /* n = 1: the cut mean itself, mu Y */
    ck_assert(ic_test_rel(ic_sched_expected_max_cut(&ex, 1, 3584), 1024 * Y) < 1e-9);
    /* a cut far past every length: the uncut maximum, mu H_64 */
    ck_assert(ic_test_rel(ic_sched_expected_max_cut(&ex, 64, 1e9), 1024 * 4.743890904) < 1e-9);
    ck_assert_double_eq(ic_sched_expected_max_cut(&ex, 64, INFINITY),
                        ic_sched_expected_max(&ex, 64));
    ck_assert_double_eq(ic_sched_mean_cut(&ex, INFINITY), 1024);
    /* 2^24 lengths of mean 256 all pass 3000 tokens but for a chance of
     * (1 - e^(-3000/256))^(2^24) = e^-136: the maximum is the cut */
    const struct ic_lengths e256 = {256, 1};
    ck_assert(ic_test_rel(ic_sched_expected_max_cut(&e256, UINT64_C(1) << 24, 3000), 3000) <
              1e-15);
    /* shape 2 against Simpson */
    const struct ic_lengths g2 = {256, 2};
    const double R2[] = {100, 300, 700, 2000};
    const uint64_t n2[] = {1, 8, 64, 1000};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const double want = simpson_gamma2(256, n2[j], R2[i], true);
            const double got = ic_sched_expected_max_cut(&g2, n2[j], R2[i]);
            ck_assert_msg(ic_test_rel(got, want) < 1e-9, "R %g n %llu: %.12g vs %.12g", R2[i],
                          (unsigned long long)n2[j], got, want);
        }
    for (int i = 0; i < 4; i++)
        ck_assert(ic_test_rel(ic_sched_mean_cut(&g2, R2[i]),
                              simpson_gamma2(256, 1, R2[i], false)) < 1e-9);
    /* shape 0.5 against mpmath */
    const struct ic_lengths g05 = {256, 0.5};
    ck_assert(ic_test_rel(ic_sched_expected_max_cut(&g05, 64, 1000), 995.587405504) < 1e-9);
    ck_assert(ic_test_rel(ic_sched_mean_cut(&g05, 1000), 234.53447403) < 1e-9);
    /* fixed lengths: min(mean, R); no lengths, no cut room: 0; NaN passes */
    const struct ic_lengths fixed = {256, 0};
    ck_assert_double_eq(ic_sched_expected_max_cut(&fixed, 64, 200), 200);
    ck_assert_double_eq(ic_sched_expected_max_cut(&fixed, 64, 300), 256);
    ck_assert_double_eq(ic_sched_mean_cut(&fixed, 200), 200);
    ck_assert_double_eq(ic_sched_expected_max_cut(&ex, 0, 3584), 0);
    ck_assert_double_eq(ic_sched_expected_max_cut(&ex, 64, 0), 0);
    ck_assert(isnan(ic_sched_expected_max_cut(&ex, 64, NAN)));
    ck_assert(isnan(ic_sched_mean_cut(&ex, NAN)));
}
END_TEST

START_TEST(test_quantile)
{
    /* exponential: Q(q) = -mean ln(1 - q); 0.999 -> 256 * 6.9077553 = 1768.3854 */
    struct ic_lengths l = {256, 1};
    ck_assert(ic_test_rel(ic_sched_quantile(&l, 0.999), 1768.385351) < 1e-9);
    ck_assert(ic_test_rel(ic_sched_quantile(&l, 0.5), 256 * log(2)) < 1e-11);
    ck_assert(ic_test_rel(ic_sched_quantile(&l, 1e-6), -256 * log1p(-1e-6)) < 1e-9);
    ck_assert_double_eq(ic_sched_quantile(&l, 0), 0);
    ck_assert(isinf(ic_sched_quantile(&l, 1)));
    ck_assert(isnan(ic_sched_quantile(&l, NAN)));
    struct ic_lengths fixed = {300, 0};
    ck_assert_double_eq(ic_sched_quantile(&fixed, 0.999), 300);
    /* a small shape and a small probability, where GSL's own inverse fails
     * to converge: P(x) ~ (x/theta)^k / Gamma(k + 1), so x = (1e-6 *
     * Gamma(1.05))^20 * 5120 = 2.99245e-117; the CDF gives 1e-6 back */
    struct ic_lengths s = {256, 0.05};
    double x = ic_sched_quantile(&s, 1e-6);
    ck_assert_msg(ic_test_rel(x, 2.992452e-117) < 1e-5, "%g", x);
    ck_assert(ic_test_rel(gsl_cdf_gamma_P(x, 0.05, 256 / 0.05), 1e-6) < 1e-10);
    ck_assert(ic_test_rel(gsl_cdf_gamma_Q(ic_sched_quantile(&s, 0.999), 0.05, 256 / 0.05),
                          1e-3) < 1e-9);
}
END_TEST

static struct ic_batching_cfg bcfg(uint64_t batch, uint64_t prompt, double mean, double shape,
                                   uint64_t reserve, uint64_t block)
{
    struct ic_batching_cfg c = {ic_decode_defaults(), prompt, {mean, shape}, reserve, block};
    c.dec.batch = batch;
    return c;
}

static struct ic_batching batching(const char *model, const char *hw, struct ic_batching_cfg c)
{
    struct ic_test_pair *t = ic_test_pair(model, hw);
    struct ic_batching r;
    struct ic_err e = {0};
    int rc = ic_batching(&t->st, &t->h, &c, &r, &e);
    ck_assert_msg(rc == 0, "batching: %s", e.msg);
    free(t);
    return r;
}

/* Qwen3-Next (12 full attention layers: 24,576 B a token; 36 Gated
 * DeltaNet layers: 39,518,208 B of state a sequence) on 4 H100s, the same
 * lengths as above: each layout holds the state once beside its tokens,
 * used 768 x 24,576 + 39,518,208 = 58,392,576 B, contiguous 8192 x 24,576 +
 * state = 240,844,800 B; paged in blocks aligned to the state as vLLM's
 * (one layer's 1,097,728 B over 2,048 B a token a layer: 536, so 544
 * tokens), half a block more: 1,040 x 24,576 + state = 65,077,248 B. */
START_TEST(test_batching_linear_attention)
{
    struct ic_test_pair *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    ic_test_fixture_stats("qwen3-next-80b-a3b-config.json", &t->st);
    ic_test_hw("h100", &t->h);
    struct ic_batching_cfg c = bcfg(64, 512, 256, 1, 8192, 16);
    c.dec.chips = 4;
    struct ic_batching r;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert_double_eq_tol(r.used_B, 58392576, 1e-3);
    ck_assert_double_eq_tol(r.contiguous_B, 240844800, 1e-3);
    ck_assert_uint_eq(r.block, 544);
    ck_assert_double_eq_tol(r.paged_B, 65077248, 1e-3);
    free(t);
}
END_TEST

START_TEST(test_batching_llama3_8b)
{
    /* Llama-3-8B, one H100, bf16, B = 64, prompt 512, exponential outputs
     * of mean 256, contiguous reservation 8192, blocks of 16.
     * The sequences in flight are drawn by length (a slot holds one as many
     * steps as it is long), each at a uniform point of its output:
     * E[L^2] / (2 E[L]) = 256 (1 + 1/k) / 2 = 256 at k = 1, so mean_context
     * = 512 + 256 = 768 tokens (it read 512 + 256/2 = 640, one sequence's
     * life average, whatever the spread); the outputs' cut at the 7680
     * tokens the reservation leaves (e^-30 of them) moves it by ~1e-9. KV
     * per token: 2 * 32 layers * 8 heads * 128 * 2 B = 131,072 B. */
    struct ic_batching r = batching("llama3-8b", "h100", bcfg(64, 512, 256, 1, 8192, 16));
    ck_assert_double_eq_tol(r.mean_context, 768, 1e-6);
    ck_assert_uint_eq(r.context, 768);
    ck_assert_uint_eq(r.reserve, 8192);
    /* static vs continuous: E[max of 64] = 256 * H_64 = 1214.436; gain H_64 */
    ck_assert(ic_test_rel(r.expected_max, 1214.436071) < 1e-9);
    ck_assert(ic_test_rel(r.continuous_gain, 4.743890904) < 1e-9);
    struct ic_decode_cfg d = ic_decode_defaults();
    d.batch = 64;
    d.context = 768;
    struct ic_point p = ic_test_decode("llama3-8b", "h100", d);
    ck_assert_double_eq(r.step_s, p.step_s);
    ck_assert(ic_test_rel(r.continuous_tok_s, 64 / p.step_s) < 1e-12);
    /* static: 64 * 256 tokens per 1214.436 steps */
    ck_assert(ic_test_rel(r.static_tok_s, 64 * 256 / (1214.436071 * p.step_s)) < 1e-9);
    /* KV per sequence: used 768 * 131,072 = 100,663,296 B; contiguous 8192 *
     * 131,072 = 1,073,741,824 B; paged 776 * 131,072 = 101,711,872 B */
    ck_assert_double_eq_tol(r.used_B, 100663296, 1e-3);
    ck_assert_double_eq(r.contiguous_B, 1073741824);
    ck_assert_double_eq_tol(r.paged_B, 101711872, 1e-3);
    ck_assert_double_eq_tol(r.contiguous_waste, 1 - 768.0 / 8192, 1e-12); /* 0.90625 */
    ck_assert_double_eq_tol(r.paged_waste, 8.0 / 776, 1e-12);             /* 0.0103093 */
    /* the batch that fits: (80e9 - 16.06e9 weights) / (1.0737e9 KV + ~0.6 MB
     * workspace) = 59.5 -> 59 contiguous; / 101.7e6 -> 628.7, less the
     * workspace and head weights -> 624 paged */
    ck_assert_uint_eq(r.contiguous_max_batch, 59);
    ck_assert_uint_eq(r.paged_max_batch, 624);
    ck_assert(r.paged_gain > 2 && r.paged_gain < 10.6); /* at most 624 / 59 */
}
END_TEST

/* The static side cut as the context is (the audit's B1): a reservation
 * of 4096 after a 512-token prompt leaves R = 3584 output tokens, so the
 * 64 exponential outputs of mean 1024 are each min(L, 3584):
 *   E[max] = 1024 sum_{j=1..64} Y^j / j = 3532.362, Y = 1 - e^-3.5
 *            (it read the uncut 1024 H_64 = 4857.7, past R)
 *   E[min(L, R)] = 1024 Y = 993.0779
 *   gain = 3532.362 / 993.0779 = 3.55698 (it read H_64 = 4.744)
 *   static tok/s = 64 x 993.0779 / (3532.362 x step)
 * and the in-flight context (the exponential's moments, t = 3.5):
 *   E[L'^2] = 2 mu^2 (1 - e^-t (1 + t + t^2/2)) + R^2 e^-t = 1,812,158,
 *   512 + E[L'^2] / (2 E[L']) = 1424.40, so the step is decode's at 1424.
 * With the model's context as the reservation (8192 - 512 = 7680) and
 * 256 outputs of mean 2048: E[max] = 2048 sum_{j=1..256} Y^j / j, Y = 1 -
 * e^-3.75: 7679.35, under the 7680 a request can reach (it read 12542.7). */
START_TEST(test_batching_static_cut)
{
    const double t = 3.5, Y = -expm1(-t), mu = 1024, R = 3584;
    double emax = 0, Yj = 1;
    for (int j = 1; j <= 64; j++) {
        Yj *= Y;
        emax += Yj / j;
    }
    emax *= mu;
    const double m1 = mu * Y;
    const double m2 = 2 * mu * mu * (1 - exp(-t) * (1 + t + t * t / 2)) + R * R * exp(-t);
    struct ic_batching r = batching("llama3-8b", "h100", bcfg(64, 512, 1024, 1, 4096, 16));
    ck_assert_double_eq_tol(r.mean_context, 512 + m2 / (2 * m1), 1e-6);
    ck_assert_double_eq_tol(r.mean_context, 1424.40, 0.01);
    ck_assert(ic_test_rel(r.mean_output, m1) < 1e-12);
    ck_assert(ic_test_rel(r.expected_max, emax) < 1e-9);
    ck_assert_double_le(r.expected_max, R);
    ck_assert(ic_test_rel(r.continuous_gain, emax / m1) < 1e-9);
    ck_assert_double_eq_tol(r.continuous_gain, 3.55698, 1e-5);
    struct ic_decode_cfg d = ic_decode_defaults();
    d.batch = 64;
    d.context = 1424;
    struct ic_point p = ic_test_decode("llama3-8b", "h100", d);
    ck_assert(ic_test_rel(r.static_tok_s, 64 * m1 / (emax * p.step_s)) < 1e-9);
    ck_assert(ic_test_rel(r.continuous_tok_s, 64 / p.step_s) < 1e-12);

    const double Y2 = -expm1(-7680.0 / 2048);
    double e2 = 0;
    Yj = 1;
    for (int j = 1; j <= 256; j++) {
        Yj *= Y2;
        e2 += Yj / j;
    }
    e2 *= 2048;
    r = batching("llama3-8b", "h100", bcfg(256, 512, 2048, 1, 0, 16));
    ck_assert_uint_eq(r.reserve, 8192);
    ck_assert(ic_test_rel(r.expected_max, e2) < 1e-9);
    ck_assert_double_le(r.expected_max, 7680);
    ck_assert(ic_test_rel(r.continuous_gain, e2 / (2048 * Y2)) < 1e-9); /* 3.83999 */
}
END_TEST

/* The in-flight context against a second method: one slot of continuous
 * batching runs 200,000 drawn outputs back to back (Gamma(k, 256/k)); at
 * each of its steps it holds the prompt and the outputs so far (0 .. L-1
 * of a length-L one), outputs cut at the 7680 tokens the 8192 reserved
 * leave. Their mean over every step is the context the sequences in flight
 * hold, which ic_batching states as prompt + E[L'^2] / (2 E[L']) (uncut,
 * prompt + 256 (1 + 1/k) / 2): within 1% (the steps' count half a token
 * under it, the draws' noise). */
START_TEST(test_batching_context_in_flight)
{
    const double shapes[] = {0.5, 1, 4};
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    ck_assert_ptr_nonnull(g);
    gsl_rng_set(g, 7);
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const double k = shapes[i];
        double held = 0, steps = 0;
        for (int n = 0; n < 200000; n++) {
            double L = round(gsl_ran_gamma(g, k, 256 / k));
            if (L < 1)
                L = 1;
            if (L > 8192 - 512) /* the reservation's cut */
                L = 8192 - 512;
            held += L * (L - 1) / 2; /* outputs held over its L steps */
            steps += L;
        }
        const double sim = 512 + held / steps;
        struct ic_batching r = batching("llama3-8b", "h100", bcfg(8, 512, 256, k, 8192, 16));
        ck_assert_msg(ic_test_rel(r.mean_context, sim) < 0.01, "shape %g: %g vs %g", k,
                      r.mean_context, sim);
    }
    gsl_rng_free(g);
}
END_TEST

START_TEST(test_batching_max_batch_vs_decode)
{
    /* The held tokens as a context: ic_decode's own max_batch at context
     * 8192 (contiguous) and 776 (paged: 768 + 16/2) must agree, on one chip
     * and on a tensor-parallel split (Llama-3-70B on 8 x H100: KV by 8 heads),
     * and the memory function at the max batch fits, one more does not. */
    const char *models[] = {"llama3-8b", "llama3-70b", "gemma2-9b", "deepseek-v3"};
    const uint64_t chips[] = {1, 8, 2, 16};
    for (int i = 0; i < 4; i++) {
        struct ic_test_pair *t = ic_test_pair(models[i], "h100");
        struct ic_batching_cfg c = bcfg(32, 512, 256, 1, 8192, 16);
        c.dec.chips = chips[i];
        c.dec.weights = i == 3 ? IC_DT_FP8 : IC_DT_BF16;
        struct ic_batching r;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), 0);
        const uint64_t held[2] = {8192, 776};
        const uint64_t mb[2] = {r.contiguous_max_batch, r.paged_max_batch};
        for (int j = 0; j < 2; j++) {
            struct ic_decode_cfg d = c.dec;
            d.context = held[j];
            struct ic_point p;
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), 0);
            ck_assert_msg(mb[j] == p.max_batch, "%s %d: %llu vs %llu", models[i], j,
                          (unsigned long long)mb[j], (unsigned long long)p.max_batch);
            ck_assert(mb[j] > 0);
            ck_assert(ic_decode_mem_per_chip(&t->st, &d, mb[j]) <= t->h.hbm_capacity_B);
            ck_assert(ic_decode_mem_per_chip(&t->st, &d, mb[j] + 1) > t->h.hbm_capacity_B);
        }
        ck_assert(r.paged_max_batch > r.contiguous_max_batch);
        ck_assert(r.paged_gain > 1);
        free(t);
    }
}
END_TEST

START_TEST(test_batching_windows_and_defaults)
{
    /* Gemma-2-9B: 42 layers, 21 of them windowed (4096 tokens); 8 KV heads
     * of 256: 4096 values per layer per token, bf16.
     * used: 768 tokens everywhere (512 + 256 at shape 1, as above): 4096 *
     * 42 * 768 * 2 = 264,241,152 B; contiguous 8192: 4096 * (21 * 8192 + 21
     * * 4096) * 2 = 2,113,929,216 B (not 4096 * 42 * 8192 * 2 = 2.82e9: the
     * window layers hold 4096); waste 1 - 32,256 / 258,048 = 0.875 */
    struct ic_batching r = batching("gemma2-9b", "h100", bcfg(8, 512, 256, 1, 8192, 16));
    ck_assert_double_eq_tol(r.used_B, 264241152, 1e-3);
    ck_assert_double_eq(r.contiguous_B, 2113929216);
    ck_assert_double_eq_tol(r.contiguous_waste, 1 - 32256.0 / 258048, 1e-12);
    /* paged: 776 tokens in both kinds of layer -> waste 8/776 */
    ck_assert_double_eq_tol(r.paged_waste, 8.0 / 776, 1e-12);

    /* reserve 0: the model's max_position_embeddings (Llama-3-8B: 8192) */
    r = batching("llama3-8b", "h100", bcfg(8, 512, 256, 1, 0, 16));
    ck_assert_uint_eq(r.reserve, 8192);
    /* ... or, for a model that states none (a hypothetical one by totals),
     * prompt + the 0.999 quantile rounded up: 512 + ceil(1768.39) = 2281 */
    struct ic_test_pair *t = ic_test_pair(IC_TEST_DIR "/fixtures/hypo-7b.yaml", "h100");
    ck_assert_uint_eq(t->st.max_context, 0);
    struct ic_batching_cfg c = bcfg(8, 512, 256, 1, 0, 16);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert_uint_eq(r.reserve, 2281);
    /* shape 0: every request 256 tokens, static batching loses nothing */
    c = bcfg(8, 512, 256, 0, 0, 16);
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert_uint_eq(r.reserve, 768);
    ck_assert_double_eq(r.continuous_gain, 1);
    ck_assert_double_eq(r.static_tok_s, r.continuous_tok_s);
    /* half-token mean context rounds to the nearest token: 512 + 255/2 = 639.5 -> 640 */
    c = bcfg(8, 512, 255, 0, 0, 16);
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert_uint_eq(r.context, 640);
    free(t);
}
END_TEST

START_TEST(test_batching_nothing_fits)
{
    /* Llama-3-70B in bf16 (141 GB) on one 24 GB L4: no batch fits either
     * way; the throughputs and the gain are 0, never NaN */
    struct ic_batching r = batching("llama3-70b", "l4", bcfg(64, 512, 256, 1, 8192, 16));
    ck_assert_uint_eq(r.contiguous_max_batch, 0);
    ck_assert_uint_eq(r.paged_max_batch, 0);
    ck_assert_double_eq(r.contiguous_tok_s, 0);
    ck_assert_double_eq(r.paged_tok_s, 0);
    ck_assert_double_eq(r.paged_gain, 0);
    ck_assert(isfinite(r.static_tok_s) && r.static_tok_s > 0);
    /* the largest batch ic_decode accepts: E[max of 2^24] = 256 * 17.2127
     * uncut (4406.463495), and cut at the 7680 tokens the reservation
     * leaves: 256 sum_{j=1..n} Y^j / j, Y = 1 - e^-30 (test_expected_max_cut),
     * = 256 (30 - sum_{j>n} Y^j / j), the tail e^(-j eps) / j (eps = e^-30)
     * by Euler-Maclaurin E1(x) - e^-x / (2n), x = n eps = 1.5707e-6, E1(x) =
     * -gamma - ln x + x - x^2/4 + ...: 4406.463093 (a math.fsum of the 2^24
     * terms agrees to 2e-11) */
    r = batching("llama3-8b", "h100", bcfg(UINT64_C(1) << 24, 512, 256, 1, 8192, 16));
    const double n = 16777216.0, x = n * exp(-30.0);
    const double E1 = -0.57721566490153286 - log(x) + x - x * x / 4;
    ck_assert(ic_test_rel(r.expected_max, 256 * (30 - E1 + exp(-x) / (2 * n))) < 1e-9);
    ck_assert(ic_test_rel(r.expected_max, 4406.463093) < 1e-9);
}
END_TEST

START_TEST(test_batching_errors)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct {
        struct ic_batching_cfg c;
        const char *needle;
    } bad[] = {
        {bcfg(8, 512, 0, 1, 8192, 16), "mean output length"},
        {bcfg(8, 512, -5, 1, 8192, 16), "mean output length"},
        {bcfg(8, 512, NAN, 1, 8192, 16), "mean output length"},
        {bcfg(8, 512, INFINITY, 1, 8192, 16), "mean output length"},
        {bcfg(8, 512, 256, NAN, 8192, 16), "shape"},
        {bcfg(8, 512, 256, -1, 8192, 16), "shape"},
        {bcfg(8, 512, 256, 1e6, 8192, 16), "shape"},
        {bcfg(8, 512, 256, 1, 8192, 0), "block"},
        {bcfg(8, 0, 256, 1, 8192, 16), "prompt"},
        {bcfg(0, 512, 256, 1, 8192, 16), "batch"},
        {bcfg(8, 512, 256, 1, 513, 16), "reserve"},  /* prompt + 1: shorter than the mean */
        {bcfg(8, 512, 256, 1, 767, 16), "reserve"},  /* one short of 512 + 256 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ic_batching r, before;
        memset(&r, 0x5a, sizeof r);
        before = r;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_batching(&t->st, &t->h, &bad[i].c, &r, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.msg, bad[i].needle), "case %zu: %s", i, e.msg);
        ck_assert(memcmp(&r, &before, sizeof r) == 0);
    }
    /* a request past the model's context (8192 + 256 > llama3-8b's 8192):
     * the hint shortens it, never a reservation past the context (it said
     * "raise --reserve to 8448 tokens"); within the context, raise it */
    struct ic_batching_cfg longp[] = {bcfg(8, 8192, 256, 1, 0, 16), bcfg(8, 8192, 256, 1, 8300, 16)};
    for (size_t i = 0; i < 2; i++) {
        struct ic_batching r;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_batching(&t->st, &t->h, &longp[i], &r, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.hint, "shorten --prompt or --output") &&
                          strstr(e.hint, "max_position_embeddings (8192 tokens)") &&
                          !strstr(e.hint, "--reserve"),
                      "case %zu: %s", i, e.hint);
    }
    {
        struct ic_batching r;
        struct ic_err e = {0};
        struct ic_batching_cfg c = bcfg(8, 512, 256, 1, 767, 16);
        ck_assert_int_eq(ic_batching(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
        ck_assert_ptr_nonnull(strstr(e.hint, "raise --reserve to 768 tokens"));
    }
    /* 768 = 512 + 256 is enough. Exponential outputs (theta 256) cut at
     * the R = 256 tokens it leaves: E[min(L, R)] = 256 (P_2(1) + Q_1(1)) =
     * 256 (1 - 2/e + 1/e) = 161.8229; E[min(L, R)^2] = 256^2 (2 P_3(1) +
     * Q_1(1)) = 65536 (2 (1 - 2.5/e) + 1/e) = 34634.61; in flight 512 +
     * 34634.61 / (2 x 161.8229) = 619.0140, waste 1 - 619.0140 / 768 =
     * 0.193992 (uncut, the length-biased 768 would leave none). Outputs of
     * exactly 256 (shape 0) hold 512 + 128: 1 - 640 / 768 */
    struct ic_batching r;
    struct ic_err e = {0};
    struct ic_batching_cfg ok = bcfg(8, 512, 256, 1, 768, 16);
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &ok, &r, &e), 0);
    ck_assert_double_eq_tol(r.mean_context, 619.0139630, 1e-6);
    ck_assert_double_eq_tol(r.contiguous_waste, 0.1939922356, 1e-9);
    /* a spread wide enough to cut: never past the reservation, never a
     * negative waste (it read -64% at shape 0.01) */
    ok = bcfg(8, 512, 256, 0.01, 0, 16);
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &ok, &r, &e), 0);
    ck_assert(r.mean_context <= (double)r.reserve && r.contiguous_waste >= 0);
    ck_assert_uint_ge(r.paged_max_batch, r.contiguous_max_batch);
    ok = bcfg(8, 512, 256, 0, 768, 16);
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &ok, &r, &e), 0);
    ck_assert_double_eq_tol(r.contiguous_waste, 1 - 640.0 / 768, 1e-15);
    free(t);
}
END_TEST

/* ---- ic_moe ---- */

static struct ic_moe_cfg mcfg(uint64_t chips, uint64_t batch, uint64_t ep)
{
    struct ic_moe_cfg c = {ic_decode_defaults(), ep};
    c.dec.chips = chips;
    c.dec.batch = batch;
    return c;
}

static struct ic_moe moe(const char *model, const char *hw, struct ic_moe_cfg c)
{
    struct ic_test_pair *t = ic_test_pair(model, hw);
    struct ic_moe r;
    struct ic_err e = {0};
    int rc = ic_moe(&t->st, &t->h, &c, &r, &e);
    ck_assert_msg(rc == 0, "moe: %s", e.msg);
    free(t);
    return r;
}

START_TEST(test_moe_experts_touched)
{
    /* DeepSeek-V3, E = 256, k = 8: 256 * (1 - (248/256)^B)
     * B = 1: 8; B = 8: 57.4208; B = 64: 222.4425; B = 256: 255.9244 */
    const uint64_t B[] = {1, 8, 64, 256};
    const double want[] = {8, 57.42083079, 222.4424877, 255.9244144};
    for (int i = 0; i < 4; i++) {
        struct ic_moe r = moe("deepseek-v3", "h100", mcfg(8, B[i], 1));
        ck_assert_msg(ic_test_rel(r.experts_touched, want[i]) < 1e-9, "B %llu: %g",
                      (unsigned long long)B[i], r.experts_touched);
        ck_assert_double_eq(r.experts_touched_per_group, r.experts_touched);
        ck_assert_double_eq(r.a2a_s, 0);
    }
    /* 8 groups of batch 8: 64 tokens pick among all 256; a group's share
     * of the touched is 222.4425 / 8 = 27.8053 of its 32 */
    struct ic_moe r = moe("deepseek-v3", "h100", mcfg(8, 8, 8));
    ck_assert(ic_test_rel(r.experts_touched, 222.4424877) < 1e-9);
    ck_assert(ic_test_rel(r.experts_touched_per_group, 27.80531096) < 1e-9);
    ck_assert_uint_eq(r.chips_total, 64);
    ck_assert_uint_eq(r.batch_total, 64);
}
END_TEST

START_TEST(test_moe_b_crit_and_compute_bound)
{
    /* H100 bf16: B_crit = 2 * 989e12 / (2 * 3.35e12) = 295.22; MoE rule of
     * thumb * E/k = * 32 = 9447.2 */
    struct ic_test_pair *t = ic_test_pair("deepseek-v3", "h100");
    struct ic_moe_cfg c = mcfg(8, 64, 1);
    struct ic_moe r;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert(ic_test_rel(r.dense_b_crit, 295.2238806) < 1e-9);
    ck_assert(ic_test_rel(r.moe_b_crit, 9447.164179) < 1e-9);
    /* The search, against ic_decode itself: compute_s < weights_s one batch
     * below, >= at it. It lands at about half the rule of thumb: the rule
     * counts every parameter as a routed expert, but DeepSeek-V3 reads
     * ~16e9 non-expert parameters that every token multiplies (attention,
     * shared expert, dense layers), so the ratio is ~ 295 * 671e9 / 37e9 ~
     * 5.3e3 here (less the parts that replicate over 8 chips). */
    ck_assert_uint_eq(r.compute_bound_batch, 4561);
    const uint64_t at[2] = {r.compute_bound_batch - 1, r.compute_bound_batch};
    for (int i = 0; i < 2; i++) {
        struct ic_decode_cfg d = c.dec;
        d.batch = at[i];
        struct ic_point p;
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), 0);
        ck_assert(i == 0 ? p.compute_s < p.weights_s : p.compute_s >= p.weights_s);
    }
    /* monotone: stays compute-bound above it */
    for (uint64_t b = at[1]; b <= IC_DECODE_MAX_BATCH; b *= 2) {
        struct ic_decode_cfg d = c.dec;
        d.batch = b;
        struct ic_point p;
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), 0);
        ck_assert(p.compute_s >= p.weights_s);
    }
    /* with ep = 8 (batch per group), against ic_moe at the neighbours */
    c = mcfg(8, 64, 8);
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert_uint_eq(r.compute_bound_batch, 709);
    c.dec.batch = 708;
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert(r.compute_s < r.weights_s);
    c.dec.batch = 709;
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert(r.compute_s >= r.weights_s);
    free(t);

    /* dense: 2 B P / C >= P b_w / W from B = ceil(295.22) = 296 */
    r = moe("llama3-8b", "h100", mcfg(1, 1, 1));
    ck_assert_uint_eq(r.compute_bound_batch, 296);
    ck_assert_double_eq(r.moe_b_crit, r.dense_b_crit);
    ck_assert_double_eq(r.experts_touched, 0);
}
END_TEST

START_TEST(test_moe_expert_parallel)
{
    /* DeepSeek-V3, groups of 8 H100s, bf16, batch 8 per group.
     * Routed experts: 58 MoE layers * 256 * 3 * 7168 * 2048 = 653,908,770,816
     * params; split 2048 ways, 8 chips: ep 1 holds 81,738,596,352 per chip,
     * ep 8 (32 experts a group) 10,217,324,544.
     * Read: ep 1 touches 57.4208 of 256 (B = 8): 0.2243003 of the held;
     *       ep 8 sees 64 tokens: 222.4425 / 256 = 0.8689160.
     *   delta = 10,217,324,544 * 0.8689160 - 81,738,596,352 * 0.2243003
     *         = 8.87800e9 - 18.33398e9 = -9.45598e9 params * 2 B / 3.35e12
     *         = -5.64536 ms.
     * Compute: 2 B k ep / E * held = 2 * 8 * 2 * 10.2173e9 = that of ep 1
     *   (2 * 8 * 8/256 * 81.7386e9): unchanged.
     * Memory: (10.2173e9 - 81.7386e9) * 2 B = -143.0425e9 B per chip. */
    struct ic_test_pair *t = ic_test_pair("deepseek-v3", "h100");
    struct ic_moe_cfg c = mcfg(8, 8, 1);
    struct ic_moe r1, r8;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r1, &e), 0);
    /* ep = 1 is ic_decode */
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c.dec, &p, &e), 0);
    ck_assert_double_eq(r1.step_s, p.step_s);
    ck_assert_double_eq(r1.weights_s, p.weights_s);
    ck_assert_double_eq(r1.mem_per_chip_B, p.mem_per_chip_B);
    ck_assert_double_eq(r1.tokens_s, p.tokens_s);
    c.ep = 8;
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r8, &e), 0);
    ck_assert_double_eq_tol(r8.weights_s - r1.weights_s, -5.64536e-3, 0.00002e-3);
    ck_assert(ic_test_rel(r8.compute_s, r1.compute_s) < 1e-12);
    ck_assert_double_eq_tol(r8.mem_per_chip_B - r1.mem_per_chip_B, -143.0425e9, 0.0001e9);
    ck_assert(!r1.fits && r8.fits); /* 169.7 GB -> 26.7 GB per chip of 80 */
    /* all-to-all, 64 chips (8 NVLink domains of 8), each group of 8 a
     * domain: per chip per layer 2 * 8 tokens * 8 experts * 7/8 * 7168 *
     * 2 B / 8 chips = 200,704 B, all of it bound for the other 7 groups,
     * so all over InfiniBand: 200,704 / 5e10 = 4.01408 us + 2 * 5 us =
     * 14.01408 us per layer, * 58 layers = 0.8128166 ms (until 2026-12-04
     * 1/8 of it was taken as staying in the domain, a share the 7/8 had
     * already left out: 17.56807 us) */
    ck_assert_double_eq(r8.a2a_bytes_per_layer, 200704);
    ck_assert_double_eq_tol(r8.a2a_s_per_layer, 14.01408e-6, 0.00001e-6);
    ck_assert_double_eq_tol(r8.a2a_s, 0.8128166e-3, 0.0000001e-3);
    /* the step: ic_decode's terms with the EP read, then the all-to-all */
    double local = fmax(r8.weights_s, r8.compute_s) + fmax(p.kv_s, p.attn_s);
    ck_assert(ic_test_rel(r8.step_s, fmax(local, p.comm_s) + r8.a2a_s) < 1e-12);
    ck_assert_double_eq(r8.tokens_s, 64 / r8.step_s);
    ck_assert_double_eq(r8.tokens_s_chip, r8.tokens_s / 64);
    /* within one NVLink domain: groups of 2, ep 4, batch 64:
     * 2 * 64 * 8 * 3/4 * 7168 * 2 / 2 = 5,505,024 B / 4.5e11 = 12.23339 us
     * + 2 * 2 us = 16.23339 us per layer */
    c = mcfg(2, 64, 4);
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r8, &e), 0);
    ck_assert_double_eq(r8.a2a_bytes_per_layer, 5505024);
    ck_assert_double_eq_tol(r8.a2a_s_per_layer, 16.23339e-6, 0.00001e-6);
    /* 16 chips, groups of 4, ep 4: 2 domains of 8, each holding 2 groups;
     * of a chip's 12 peers in other groups 4 are in its domain: 2 * 64 * 8
     * * 3/4 * 7168 * 2 / 4 = 2,752,512 B, 1/3 over NVLink, 917,504 / 4.5e11
     * = 2.03890 us + 2 * 2 us, 2/3 over InfiniBand, 1,835,008 / 5e10 =
     * 36.70016 us + 2 * 5 us: 52.73906 us per layer */
    c = mcfg(4, 64, 4);
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r8, &e), 0);
    ck_assert_double_eq(r8.a2a_bytes_per_layer, 2752512);
    ck_assert_double_eq_tol(r8.a2a_s_per_layer, 52.73906e-6, 0.00001e-6);
    free(t);
    /* MI300X's full mesh: Mixtral 8x7B, groups of 2, ep 2, batch 256: 2 *
     * 256 * 2 experts * 1/2 * 4096 * 2 B / 2 = 2,097,152 B to the other
     * group's 2 chips over their 2 direct links, 2 x 64 GB/s: 16.384 us +
     * 2 * 2 us = 20.384 us a layer (3 links, as a 4-chip collective has,
     * gave 14.92 us) */
    t = ic_test_pair("mixtral-8x7b", "mi300x");
    c = mcfg(2, 256, 2);
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r8, &e), 0);
    ck_assert_double_eq(r8.a2a_bytes_per_layer, 2097152);
    ck_assert_double_eq_tol(r8.a2a_s_per_layer, 20.384e-6, 0.00001e-6);
    free(t);
}
END_TEST

START_TEST(test_moe_expected)
{
    /* Mixtral 8x7B on one H100 at batch 1, the expected estimate against
     * the ideal bound, on tests/fixtures/achieved-h100.yaml (the frozen
     * H100, 3.35 TB/s and 989 TFLOP/s bf16 on its spec sheet, with hbm_read
     * 3.0 TB/s at GEMV efficiency 0.9, bf16 GEMM 700 TFLOP/s, 2 us a kernel
     * in a graph, 10 kernels a layer, no step launch):
     *   weights: read at 3.0 x 0.9 = 2.7 TB/s instead of 3.35: x 1.2407407;
     *   compute: at 700 TFLOP/s instead of 989: x 1.4128571;
     *   the step: the linear and attention terms one after the other plus
     *     the launches, (10 kernels x 32 layers + 4 more a MoE layer x 32)
     *     = 448 at 2 us = 896 us (one chip: no all-reduce). */
    struct ic_test_pair *t =
        ic_test_pair("mixtral-8x7b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_moe_cfg c = mcfg(1, 1, 1);
    struct ic_moe ri, rx;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &ri, &e), 0);
    c.dec.estimate = IC_EST_EXPECTED;
    ck_assert_msg(ic_moe(&t->st, &t->h, &c, &rx, &e) == 0, "%s", e.msg);
    ck_assert(ic_test_rel(rx.weights_s, ri.weights_s * 3.35 / 2.7) < 1e-12);
    ck_assert(ic_test_rel(rx.compute_s, ri.compute_s * 989.0 / 700.0) < 1e-12);
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c.dec, &p, &e), 0);
    ck_assert_double_eq(rx.step_s, p.step_s); /* ep 1 is ic_decode at either estimate */
    ck_assert_double_eq_tol(rx.step_s - fmax(rx.weights_s, rx.compute_s) - fmax(p.kv_s, p.attn_s),
                            896e-6, 1e-12);
    /* the compute-bound batch at the achieved rates, earlier: the GEMM
     * rate falls by 700 / 989 and the GEMV's by only 2.7 / 3.35, so the
     * ridge moves to 0.878 of the spec's; against ic_moe at its
     * neighbours */
    ck_assert_uint_lt(rx.compute_bound_batch, ri.compute_bound_batch);
    const uint64_t at = rx.compute_bound_batch;
    struct ic_moe r;
    c.dec.batch = at - 1;
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert(r.compute_s < r.weights_s);
    c.dec.batch = at;
    ck_assert_int_eq(ic_moe(&t->st, &t->h, &c, &r, &e), 0);
    ck_assert(r.compute_s >= r.weights_s);
    /* the rules of thumb stay the spec sheet's */
    ck_assert_double_eq(rx.dense_b_crit, ri.dense_b_crit);
    ck_assert_double_eq(rx.ridge, ri.ridge);
    free(t);
}
END_TEST

START_TEST(test_attention_intensity)
{
    /* DeepSeek-V3 MLA, absorbed: per cached token per layer every one of the
     * 128 heads scores the 576-wide key (latent 512 + RoPE 64) and mixes the
     * 512-wide latent: 2 * 128 * 576 + 2 * 128 * 512 = 278,528 FLOPs over
     * 576 values * 2 B = 1152 B: 241.78 FLOP/B, just under the H100's bf16
     * ridge 989e12 / 3.35e12 = 295.22. Naive (K 192 and V 128 wide per
     * head): 2 * 128 * 320 FLOPs / (128 * 320 * 2 B) = 1 FLOP/B.
     * With fp8 KV: 278,528 / 576 = 483.56, past the bf16 ridge; naive 2. */
    struct ic_moe r = moe("deepseek-v3", "h100", mcfg(8, 64, 1));
    ck_assert(ic_test_rel(r.attn_intensity, 241.7777778) < 1e-9);
    ck_assert_double_eq(r.mla_naive_intensity, 1);
    ck_assert(ic_test_rel(r.ridge, 295.2238806) < 1e-9);
    ck_assert(r.attn_intensity < r.ridge);
    struct ic_moe_cfg c = mcfg(8, 64, 1);
    c.dec.kv = IC_DT_FP8;
    r = moe("deepseek-v3", "h100", c);
    ck_assert(ic_test_rel(r.attn_intensity, 483.5555556) < 1e-9);
    ck_assert_double_eq(r.mla_naive_intensity, 2);
    ck_assert(r.attn_intensity > r.ridge);
    /* Llama-3-70B GQA: 64 query heads on 8 KV heads of 128:
     * 4 * 64 * 128 / (2 * 8 * 128 * 2 B) = 32,768 / 4096 = 8 FLOP/B */
    r = moe("llama3-70b", "h100", mcfg(8, 64, 1));
    ck_assert_double_eq(r.attn_intensity, 8);
    ck_assert_double_eq(r.mla_naive_intensity, 0);
    /* Llama-3-8B: 32 on 8 -> 4 */
    r = moe("llama3-8b", "h100", mcfg(1, 64, 1));
    ck_assert_double_eq(r.attn_intensity, 4);
}
END_TEST

START_TEST(test_moe_errors)
{
    struct ic_test_pair *ds = ic_test_pair("deepseek-v3", "h100");
    struct ic_test_pair *dense = ic_test_pair("llama3-8b", "h100");
    struct ic_moe_cfg expected = mcfg(8, 8, 2);
    expected.dec.estimate = IC_EST_EXPECTED;
    struct {
        struct ic_test_pair *t;
        struct ic_moe_cfg c;
        const char *needle;
    } bad[] = {
        {ds, mcfg(8, 8, 3), "does not divide"},     /* 256 % 3 */
        {ds, mcfg(8, 8, 512), "does not divide"},   /* more groups than experts */
        {ds, mcfg(8, 8, 0), "ep"},
        {dense, mcfg(1, 8, 2), "no routed experts"},
        /* the expected estimate on an entry with neither achieved nor
         * measured rates (the frozen H100): the step's refusal */
        {ds, expected, "only the ideal bound is available"},
        {ds, mcfg(8, 0, 2), "batch"},               /* ic_decode's own check */
        {ds, mcfg(UINT64_C(1) << 13, 8, 256), "expected at most 2^20"}, /* 2^21 chips */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ic_moe r, before;
        memset(&r, 0x5a, sizeof r);
        before = r;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_moe(&bad[i].t->st, &bad[i].t->h, &bad[i].c, &r, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.msg, bad[i].needle), "case %zu: %s", i, e.msg);
        ck_assert(memcmp(&r, &before, sizeof r) == 0);
    }
    free(ds);
    free(dense);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("sched");
    tcase_add_test(tc, test_expected_max_exponential);
    tcase_add_test(tc, test_expected_max_shapes);
    tcase_add_test(tc, test_expected_max_monte_carlo);
    tcase_add_test(tc, test_quantile);
    tcase_add_test(tc, test_expected_max_cut);
    tcase_add_test(tc, test_batching_static_cut);
    tcase_add_test(tc, test_batching_llama3_8b);
    tcase_add_test(tc, test_batching_linear_attention);
    tcase_add_test(tc, test_batching_max_batch_vs_decode);
    tcase_add_test(tc, test_batching_context_in_flight);
    tcase_add_test(tc, test_batching_windows_and_defaults);
    tcase_add_test(tc, test_batching_nothing_fits);
    tcase_add_test(tc, test_batching_errors);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("moe");
    tcase_add_test(tm, test_moe_experts_touched);
    tcase_add_test(tm, test_moe_b_crit_and_compute_bound);
    tcase_add_test(tm, test_moe_expert_parallel);
    tcase_add_test(tm, test_moe_expected);
    tcase_add_test(tm, test_attention_intensity);
    tcase_add_test(tm, test_moe_errors);
    suite_add_tcase(s, tm);
    return ic_test_run(s);
}
