/* The serving simulation against theory and against itself: a lone request
 * (TTFT = its prefill step, TPOT = the mean of its decode steps, each
 * computed here with ic_sim_step_s), an offline batch (prefill plus output
 * steps by hand), Little's law, M/D/1 (Pollaczek-Khinchine) with batching
 * off, conservation of requests, tokens and blocks, preemption only when
 * the pool is short, and determinism. Entries from tests/frozen. */
#include "ic_sim.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ic_sim_result run(const struct ic_test_pair *t, const struct ic_sim_cfg *c)
{
    struct ic_sim_result r;
    struct ic_err e = {0};
    int rc = ic_sim_run(&t->st, &t->h, c, &r, &e);
    ck_assert_msg(rc == IC_OK, "%s", e.msg);
    return r;
}

static double step(const struct ic_test_pair *t, const struct ic_sim_cfg *c, uint64_t nd,
                   double cd, uint64_t np, uint64_t pt, double cp)
{
    double s = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_step_s(&t->st, &t->h, c, nd, cd, np, pt, cp, &s, &e), IC_OK);
    return s;
}

/* A lone request (one every 10^6 s on average on Llama-3-8B, one H100; the
 * chance that two of the 20 overlap, a gap under 0.4 s, is ~8e-6): it never
 * waits. TTFT is the prefill of its 512 tokens (cached 0); after it, the
 * request holds 512 tokens and 1 output; decode step i (i = 1 .. 63) reads
 * 511 + i cached tokens: TPOT = their sum / 63, E2E = TTFT + that sum. */
START_TEST(test_lone_request)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 1e-6;
    c.requests = 20;
    c.prompt.mean = 512;
    c.output.mean = 64;
    struct ic_sim_result r = run(t, &c);
    const double pre = step(t, &c, 0, 0, 1, 512, 0);
    double dec = 0;
    for (int i = 1; i <= 63; i++)
        dec += step(t, &c, 1, 511 + i, 0, 0, 0);
    ck_assert_uint_eq(r.completed, 20);
    /* times are absolute, ~2e7 s after 20 arrivals 10^6 s apart: a double's
     * 4e-9 s spacing there is 2e-7 of the 18 ms */
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre) < 1e-6, "ttft %g vs %g", r.ttft.mean, pre);
    /* the decode steps from the table: contexts rounded in steps of 1/32 of a power
     * of two, which moves a batch-1 step (weights-bound) by far less */
    ck_assert_msg(ic_test_rel(r.tpot.mean, dec / 63) < 1e-4, "tpot %g vs %g", r.tpot.mean,
                  dec / 63);
    ck_assert_msg(ic_test_rel(r.e2e.mean, pre + dec) < 1e-4, "e2e");
    /* percentiles from the histogram: within its 0.23% bins */
    ck_assert_msg(ic_test_rel(r.ttft.p[0], pre) < 3e-3, "ttft p50 %g", r.ttft.p[0]);
    ck_assert_double_eq_tol(r.mean_batch, 1, 1e-12);
    ck_assert_uint_eq(r.preemptions, 0);
    free(t);
}
END_TEST

/* Offline, 8 requests at t = 0, prompt 256, output 32, prefill first: step
 * 1 prefills the 8 prompts together (2048 tokens, cached 0); then 31 decode
 * steps at batch 8 with 256 .. 286 tokens cached. The last finishes at the
 * prefill plus those 31 steps. */
START_TEST(test_offline_batch)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 8;
    c.prompt.mean = 256;
    c.output.mean = 32;
    c.sched = IC_SCHED_PREFILL_FIRST;
    const double pre = step(t, &c, 0, 0, 8, 2048, 0);
    double dec = 0;
    for (int i = 0; i < 31; i++)
        dec += step(t, &c, 8, 256 + i, 0, 0, 0);
    for (int k = 0; k < 2; k++) {
        c.sched = k ? IC_SCHED_CHUNKED : IC_SCHED_PREFILL_FIRST; /* the same here */
        struct ic_sim_result r = run(t, &c);
        ck_assert_uint_eq(r.steps, 32);
        ck_assert_msg(ic_test_rel(r.duration_s, pre + dec) < 1e-4, "finish %g vs %g",
                      r.duration_s, pre + dec);
        ck_assert_msg(ic_test_rel(r.ttft.mean, pre) < 1e-12, "ttft");
        ck_assert_uint_eq(r.prompt_tokens, 8 * 256);
        ck_assert_uint_eq(r.output_tokens, 8 * 32);
        /* throughput: 8 requests in the whole window */
        ck_assert_msg(ic_test_rel(r.requests_per_s, 8 / r.duration_s) < 1e-12, "rps");
    }
    free(t);
}
END_TEST

/* Little's law: requests in the system on average = arrival rate x mean
 * time in the system, over 50,000 Poisson arrivals (the configured rate:
 * its estimate from 50,000 arrivals is within ~0.45% at one sigma). */
START_TEST(test_littles_law)
{
    struct ic_test_pair *t = ic_test_pair("llama3.2-1b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 40;
    c.requests = 50000;
    c.prompt = (struct ic_sim_lengths){IC_DIST_GAMMA, 512, 0.5};
    c.output = (struct ic_sim_lengths){IC_DIST_LOGNORMAL, 128, 0.6};
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 50000);
    double L = r.mean_in_system, lw = c.rate * r.e2e.mean;
    ck_assert_msg(fabs(L / lw - 1) < 0.01, "L %g vs lambda W %g", L, lw);
    free(t);
}
END_TEST

/* M/D/1: one sequence at a time (max_seqs 1), one output token, a fixed
 * prompt: every request is one prefill step of D seconds. At load rho =
 * lambda D = 0.5 the mean wait is rho D / (2 (1 - rho)) = D / 2
 * (Pollaczek-Khinchine), so the mean TTFT is 1.5 D. */
START_TEST(test_md1)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.max_seqs = 1;
    c.output.mean = 1;
    c.prompt.mean = 1024;
    c.requests = 60000;
    c.warmup = 1000;
    c.sched = IC_SCHED_PREFILL_FIRST;
    const double D = step(t, &c, 0, 0, 1, 1024, 0);
    c.rate = 0.5 / D;
    struct ic_sim_result r = run(t, &c);
    ck_assert_msg(fabs(r.ttft.mean / (1.5 * D) - 1) < 0.03, "TTFT %g vs 1.5 D = %g",
                  r.ttft.mean, 1.5 * D);
    free(t);
}
END_TEST

/* Conservation: every request finishes once, the tokens add up, the pool
 * is never exceeded; a pool too small for the running batch preempts and
 * still finishes everything, a large one never preempts. */
START_TEST(test_conservation_and_preemption)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 400;
    c.prompt.mean = 1000;
    c.output.mean = 500;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 400);
    ck_assert_uint_eq(r.prompt_tokens, 400 * 1000);
    ck_assert_uint_eq(r.output_tokens, 400 * 500);
    ck_assert_uint_le(r.peak_blocks, r.kv_blocks);
    /* 256 sequences of up to 1500 tokens: 256 x 94 blocks = 24064 blocks,
     * well inside the pool (72 GB - 16 GB of weights over 128 kB a token:
     * ~430,000 tokens, ~26,800 blocks) */
    ck_assert_uint_eq(r.preemptions, 0);
    /* 25% of the HBM: 20 GB - 16 GB of weights, ~30,000 tokens, far fewer
     * than 256 x 1500 */
    c.mem_util = 0.25;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 400);
    ck_assert_uint_eq(r.output_tokens, 400 * 500);
    ck_assert_uint_gt(r.preemptions, 0);
    ck_assert_uint_le(r.peak_blocks, r.kv_blocks);
    /* prefill first with the same short pool: prompts wait for blocks the
     * decodes free; nothing stalls */
    c.sched = IC_SCHED_PREFILL_FIRST;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 400);
    ck_assert_uint_eq(r.output_tokens, 400 * 500);
    ck_assert_uint_le(r.peak_blocks, r.kv_blocks);
    free(t);
}
END_TEST

START_TEST(test_deterministic)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 8;
    c.requests = 2000;
    c.prompt = (struct ic_sim_lengths){IC_DIST_LOGNORMAL, 1500, 1.0};
    c.output = (struct ic_sim_lengths){IC_DIST_GAMMA, 200, 1.0};
    struct ic_sim_result a = run(t, &c), b = run(t, &c);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    c.seed = 2;
    b = run(t, &c);
    ck_assert(a.ttft.mean != b.ttft.mean);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim");
    TCase *tc = tcase_create("sim");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_lone_request);
    tcase_add_test(tc, test_offline_batch);
    tcase_add_test(tc, test_littles_law);
    tcase_add_test(tc, test_md1);
    tcase_add_test(tc, test_conservation_and_preemption);
    tcase_add_test(tc, test_deterministic);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
