/* The simulator (ic_sim) against the closed forms of `batching` (ic_sched)
 * and `disagg` (ic_serving) in the regimes where those are exact.
 *
 * Both sides time every step with ic_step_load + ic_step_time at the ideal
 * bound, prefill at MFU 0.4, so where the regime makes the closed form's
 * averages exact the two must agree up to what the simulator approximates:
 * its step table keys the decodes' mean context rounded in steps of 1/32 of
 * the power of two below it (ic_sim_context_key: at most 1/64 = 1.6% of the
 * context either way). Only the cache and attention terms grow with the
 * context, so a step moves by at most 1.6% of its context-dependent share,
 * (T_kv or T_attn) / T_step; the tolerance of each comparison is that
 * bound, computed from the closed form's own terms, plus 1e-9 for rounding
 * (and 1e-6 where absolute times reach 10^7 s: a double's spacing there).
 * The closed forms take the decode step at the mean context of a running
 * sequence, prompt + L/2; the simulator steps through contexts prompt ..
 * prompt + L - 2 cached (the mean the same). The mean of the steps equals
 * the step at the mean context because, on one chip (no all-reduce to take
 * the max with) and with the cache term above the attention FLOPs
 * throughout, the step is linear in the context; the tests check that the
 * regime holds (kv_s > attn_s at both ends). Entries from tests/frozen. */
#include "ic_sched.h"
#include "ic_serving.h"
#include "ic_sim.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>

/* The bound on the table's rounding for a decode step (see above). */
static double rounding_tol(const struct ic_point *p)
{
    return 1.0 / 64 * fmax(p->kv_s, p->attn_s) / p->step_s + 1e-9;
}

/* The decode step at batch B and context S, checked to be in the linear
 * regime. */
static struct ic_point decode_at(const struct ic_test_pair *t, uint64_t B, uint64_t S)
{
    struct ic_decode_cfg d = ic_decode_defaults();
    d.batch = B;
    d.context = S;
    struct ic_point p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), IC_OK);
    ck_assert_msg(p.kv_s > p.attn_s && p.weights_s > p.compute_s,
                  "the regime: cache and weight reads set the step");
    return p;
}

/* `batching` with fixed output lengths (shape 0) against an offline run:
 * Llama-3-8B on one H100, 16 requests of prompt 512 and output 128 all at
 * t = 0, prefill first with a budget of 16 x 512 = 8192 tokens (the
 * default): one step prefills all 16 prompts (the TTFT of every request),
 * then 127 decode steps at batch 16 finish them together (16 x (512 + 128)
 * tokens of cache is 1.3 GB against the 80 GB: no preemption). The closed
 * form's step is at context 512 + 64 = 576 (ic_decode: 575 cached), the
 * simulator's contexts 512 .. 638 cached, mean 575. So:
 *   TTFT           = ic_prefill of 16 prompts of 512 (to 1e-9: the same step)
 *   finish time    = TTFT + 127 x batching.step_s
 *   output tok/s   = 16 x 128 / finish time (the simulator's, over the window)
 *   decode tok/s   = 16 x 127 / (finish - TTFT) = batching.continuous_tok_s,
 *                    which equals batching.static_tok_s (all lengths equal:
 *                    E[max of 16] = the mean).
 * The tolerance is the rounding bound of the decode step at the end
 * context (the largest cache share). */
START_TEST(test_batching_offline)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_batching_cfg bc = {.dec = ic_decode_defaults(), .prompt = 512,
                                 .out = {128, 0}, .reserve = 0, .block = 16};
    bc.dec.batch = 16;
    struct ic_batching b;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_batching(&t->st, &t->h, &bc, &b, &e), IC_OK);
    ck_assert_uint_eq(b.context, 576);
    ck_assert_msg(ic_test_rel(b.static_tok_s, b.continuous_tok_s) < 1e-12, "shape 0");
    struct ic_prefill_cfg pc = ic_prefill_defaults();
    pc.prompt = 512;
    pc.prompts = 16;
    struct ic_prefill pf;
    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &pc, &pf, &e), IC_OK);
    const struct ic_point lo = decode_at(t, 16, 513), hi = decode_at(t, 16, 640);
    (void)lo;
    const double tol = rounding_tol(&hi);
    ck_assert_double_lt(tol, 2e-3); /* a meaningful check, not a loose one */

    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 16;
    c.prompt.mean = 512;
    c.output.mean = 128;
    c.sched = IC_SCHED_PREFILL_FIRST;
    struct ic_sim_result r;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    ck_assert_uint_eq(r.preemptions, 0);
    ck_assert_uint_eq(r.steps, 128);
    ck_assert_msg(ic_test_rel(r.ttft.mean, pf.prefill_s) < 1e-9, "ttft %g vs %g", r.ttft.mean,
                  pf.prefill_s);
    const double finish = pf.prefill_s + 127 * b.step_s;
    ck_assert_msg(ic_test_rel(r.duration_s, finish) < tol, "finish %.9g vs %.9g (tol %g)",
                  r.duration_s, finish, tol);
    ck_assert_msg(ic_test_rel(r.output_tokens_per_s, 16.0 * 128 / finish) < tol, "tok/s");
    const double decode_tok_s = 16.0 * 127 / (r.duration_s - r.ttft.mean);
    ck_assert_msg(ic_test_rel(decode_tok_s, b.continuous_tok_s) < tol, "decode %g vs %g",
                  decode_tok_s, b.continuous_tok_s);
    /* chunked prefill is the same schedule here (the budget holds every
     * prompt, and no decode waits) */
    c.sched = IC_SCHED_CHUNKED;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    ck_assert_msg(ic_test_rel(r.duration_s, finish) < tol, "chunked finish");
    free(t);
}
END_TEST

/* `disagg` at a vanishing rate: a request meets an idle server, so its TTFT
 * is the prefill of its prompt alone (disagg.prefill_s with one prompt a
 * batch) and its TPOT the decode step at batch 1 over its contexts, whose
 * mean is disagg.decode_step_s (batch 1, context prompt + L/2). Llama-3-8B
 * on one H100, prompt 1024, output 256 (decode contexts 1024 .. 1278
 * cached, mean 1151 = ic_decode's 1152 - 1), 20 requests one every 10^6 s
 * on average (two within 10 s of each other: a chance of ~2e-4).
 * Its decode_seq_s, B / (L x step), is checked as one request's decode
 * rate: 1 / (L x TPOT) within the same tolerance. Then disagg's other term,
 * the KV hand-off (kv_transfer_s: 1024 tokens x 128 KiB = 128 MiB; disagg's
 * split, 1 prefill server to 31 decode servers, is 32 chips, past an H100
 * fabric domain of 8, so over the 50 GB/s scale-out link + 5 us = 2.689
 * ms), and the simulator's disaggregated layout (a prefill server of 1 chip
 * beside the decode server of 1: 2 chips in one domain, so over NVLink, 18
 * links x 25 GB/s = 450 GB/s + one 2 us hop = 0.3003 ms): the first token
 * is out when the KV lands, so TTFT = prefill_s + that hand-off, and TPOT
 * is unchanged. */
START_TEST(test_disagg_vanishing_rate)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_prefill_cfg pc = ic_prefill_defaults();
    pc.prompt = 1024;
    struct ic_decode_cfg dc = ic_decode_defaults();
    struct ic_disagg d;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_disagg(&t->st, &t->h, &pc, &dc, 256, &d, &e), IC_OK);
    const struct ic_point lo = decode_at(t, 1, 1025), hi = decode_at(t, 1, 1279);
    (void)lo;
    const double tol = rounding_tol(&hi) + 1e-6;

    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 1e-6;
    c.requests = 20;
    c.prompt.mean = 1024;
    c.output.mean = 256;
    struct ic_sim_result r;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    ck_assert_uint_eq(r.completed, 20);
    ck_assert_double_eq_tol(r.mean_batch, 1, 1e-12);
    ck_assert_msg(ic_test_rel(r.ttft.mean, d.prefill_s) < 1e-6, "ttft %g vs %g", r.ttft.mean,
                  d.prefill_s);
    ck_assert_msg(ic_test_rel(r.tpot.mean, d.decode_step_s) < tol, "tpot %.9g vs %.9g (tol %g)",
                  r.tpot.mean, d.decode_step_s, tol);
    ck_assert_msg(ic_test_rel(1 / (256 * r.tpot.mean), d.decode_seq_s) < tol, "decode rate");
    /* E2E = TTFT + 255 x TPOT, both closed-form */
    ck_assert_msg(ic_test_rel(r.e2e.mean, d.prefill_s + 255 * d.decode_step_s) < tol, "e2e");

    /* 1024 x (2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B) over the
     * H100's 50 GB/s scale-out link plus its 5 us (the split's 32 chips) */
    ck_assert_uint_eq(d.n_prefill, 1);
    ck_assert_uint_eq(d.n_decode, 31);
    ck_assert_double_eq_tol(d.kv_bytes, 1024.0 * 131072, 0.5);
    ck_assert_msg(ic_test_rel(d.kv_transfer_s, 1024.0 * 131072 / 50e9 + 5e-6) < 1e-9,
                  "transfer %.9g", d.kv_transfer_s);
    /* the simulated layout's 2 chips: over NVLink */
    const double x = 1024.0 * 131072 / 450e9 + 2e-6;
    c.prefill_chips = 1;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    ck_assert_uint_eq(r.completed, 20);
    ck_assert_uint_eq(r.handoffs, 20);
    ck_assert_msg(ic_test_rel(r.kv_transfer_mean_s, x) < 1e-9, "hand-off %.9g", r.kv_transfer_mean_s);
    ck_assert_msg(ic_test_rel(r.ttft.mean, d.prefill_s + x) < 1e-6,
                  "disaggregated ttft %.9g vs %.9g", r.ttft.mean, d.prefill_s + x);
    ck_assert_msg(ic_test_rel(r.tpot.mean, d.decode_step_s) < tol, "disaggregated tpot");
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_agree");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_batching_offline);
    tcase_add_test(tc, test_disagg_vanishing_rate);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
