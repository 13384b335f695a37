/* The serving simulation against theory and against itself: a lone request
 * (TTFT = its prefill step, TPOT = the mean of its decode steps, each
 * computed here with ic_sim_step_s), an offline batch (prefill plus output
 * steps by hand), Little's law, M/D/1 (Pollaczek-Khinchine) with batching
 * off, conservation of requests, tokens and blocks, preemption only when
 * the pool is short, and determinism; traces (a two-request trace timed by
 * hand, the loader's errors at their line and column), the per-request
 * records, prefix caching (the prefill work saved by a share and by id),
 * the disaggregated layout (a lone request's TTFT = its prefill on the
 * prefill server + the KV hand-off worked out by hand), a fleet of R
 * replicas against one at 1/R of the rate, swap against recompute. Entries
 * from tests/frozen. */
#include "ic_serving.h"
#include "ic_sim.h"
#include "ic_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A sliding-window model's sequences hold their window's blocks, not
 * their whole context's: vLLM frees the blocks a window has passed,
 * keeping the last W - 1 computed tokens and the step's new ones, and a
 * block more where the window does not start on a block's edge. Mistral
 * 7B (every layer a window of 4096) on one H100, 100 requests at t = 0 of
 * prompt 4000 and output 1000, at most 100 at once: a prompt (within the
 * window) holds 4000 / 16 = 250 blocks; past 4096 tokens a decode step
 * holds 4095 + 1 + 16 = 4112 tokens, 257 blocks, and never more. All 100
 * are past it together (the last prompt is prefilled about 50 steps in, two
 * a step of 8192 tokens; the first finishes after about 1000): the peak
 * is 100 x 257 = 25,700 blocks, under the pool's 27,411 (at 0.9 of 80 GB),
 * and no sequence is preempted. Holding whole contexts, 5000 tokens (313
 * blocks) each, the pool would take 87 of them. */
START_TEST(test_window_blocks)
{
    struct ic_test_pair *t = ic_test_pair("mistral-7b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 100;
    c.max_seqs = 100;
    c.prompt.mean = 4000;
    c.output.mean = 1000;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.kv_blocks, 27411);
    ck_assert_uint_eq(r.peak_blocks, 100 * 257);
    ck_assert_uint_eq(r.preemptions, 0);
    ck_assert_uint_eq(r.completed, 100);
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

/* ---- traces, records, prefix caching, disaggregation, fleets, swap ---------- */

/* (traces are written to temporary files by ic_test_write_tmp) */

enum { MAX_RECS = 64 };
struct recs {
    struct ic_sim_request r[MAX_RECS];
    size_t n;
};

static int keep(void *ctx, const struct ic_sim_request *r)
{
    struct recs *k = ctx;
    if (k->n < MAX_RECS)
        k->r[k->n] = *r;
    k->n++;
    return 0;
}

/* A decode step of batch 1 at context x as the table keys it. */
static double dec1(const struct ic_test_pair *t, const struct ic_sim_cfg *c, double x)
{
    return step(t, c, 1, ic_sim_context_key(x), 0, 0, 0);
}

/* Two requests far apart (Llama-3-8B, one H100): request 0 at t = 0, prompt
 * 512, output 4: TTFT = the prefill of 512 (cached 0); then 3 decode steps
 * at 512, 513, 514 cached. Request 1 at t = 100 s, prompt 256, output 3:
 * TTFT = the prefill of 256, then 2 steps at 256, 257. The header, a
 * comment and a blank line are skipped; the records come in finishing
 * order with the same times. */
START_TEST(test_trace_two_requests)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    char path[64];
    ic_test_write_tmp(path, "arrival_s,prompt,output\n# two requests\n\n0,512,4\n100, 256 ,3\n");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    struct recs k = {0};
    c.on_request = keep;
    c.on_request_ctx = &k;
    struct ic_sim_result r = run(t, &c);
    const double p0 = step(t, &c, 0, 0, 1, 512, 0), p1 = step(t, &c, 0, 0, 1, 256, 0);
    const double d0 = dec1(t, &c, 512) + dec1(t, &c, 513) + dec1(t, &c, 514);
    const double d1 = dec1(t, &c, 256) + dec1(t, &c, 257);
    ck_assert_uint_eq(r.completed, 2);
    ck_assert_uint_eq(r.prompt_tokens, 768);
    ck_assert_uint_eq(r.output_tokens, 7);
    ck_assert_uint_eq(r.prefill_tokens, 768);
    ck_assert_uint_eq(k.n, 2);
    ck_assert_uint_eq(k.r[0].index, 0);
    ck_assert(k.r[0].arrival_s == 0);
    ck_assert_msg(ic_test_rel(k.r[0].first_token_s, p0) < 1e-12, "first token 0");
    ck_assert_msg(ic_test_rel(k.r[0].finish_s, p0 + d0) < 1e-12, "finish 0");
    ck_assert_uint_eq(k.r[1].index, 1);
    ck_assert_uint_eq(k.r[1].prompt, 256);
    ck_assert_uint_eq(k.r[1].output, 3);
    ck_assert_msg(ic_test_rel(k.r[1].first_token_s - 100, p1) < 1e-9, "first token 1");
    ck_assert_msg(ic_test_rel(k.r[1].finish_s - 100, p1 + d1) < 1e-9, "finish 1");
    ck_assert_msg(ic_test_rel(r.duration_s, 100 + p1 + d1) < 1e-12, "duration");
    ck_assert_msg(ic_test_rel(r.ttft.mean, (p0 + p1) / 2) < 1e-9, "ttft mean");
    ck_assert_msg(ic_test_rel(r.e2e.mean, (p0 + d0 + p1 + d1) / 2) < 1e-9, "e2e mean");
    /* the first a warm-up: the window is request 1's, 100 s to its finish,
     * and its 3 output tokens (and 256 + 3 in all) over it, not the rate
     * times the mean output of both (3.5) */
    {
        struct ic_sim_cfg w = c;
        w.warmup = 1;
        w.on_request = NULL;
        struct ic_sim_result rw = run(t, &w);
        ck_assert_uint_eq(rw.counted, 1);
        ck_assert_msg(ic_test_rel(rw.window_s, p1 + d1) < 1e-9, "window");
        ck_assert_msg(ic_test_rel(rw.output_tokens_per_s, 3 / (p1 + d1)) < 1e-9, "out tok/s");
        ck_assert_msg(ic_test_rel(rw.total_tokens_per_s, 259 / (p1 + d1)) < 1e-9, "tok/s");
    }
    /* the same lines after a UTF-8 byte-order mark, and moved 1e11 s on
     * (a double's spacing there is 1.5e-5 s; the clock restarts at each
     * arrival into an empty system): the same times to rounding, the
     * records' arrivals where the trace puts them */
    unlink(path);
    ic_test_write_tmp(path, "\xEF\xBB\xBF" "arrival_s,prompt,output\n1e11,512,4\n100000000100,256,3\n");
    k.n = 0;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 2);
    ck_assert(k.r[0].arrival_s == 1e11 && k.r[1].arrival_s == 1e11 + 100);
    /* (the records' absolute times keep what a double holds at 1e11, and
     * their latencies all the digits) */
    ck_assert(k.r[0].first_token_s > k.r[0].arrival_s && k.r[1].finish_s > k.r[1].arrival_s);
    ck_assert_msg(ic_test_rel(k.r[0].ttft_s, p0) < 1e-9, "ttft 0 far %g", k.r[0].ttft_s);
    ck_assert_msg(ic_test_rel(k.r[1].e2e_s, p1 + d1) < 1e-9, "e2e 1 far");
    ck_assert_msg(ic_test_rel(k.r[1].tpot_s, d1 / 2) < 1e-9, "tpot 1 far");
    ck_assert_msg(ic_test_rel(r.ttft.mean, (p0 + p1) / 2) < 1e-9, "ttft mean far");
    ck_assert_msg(ic_test_rel(r.e2e.mean, (p0 + d0 + p1 + d1) / 2) < 1e-9, "e2e mean far");
    /* the clock's 0 set at a trace's own arrival, not at a sum of moves
     * that can pass it (these three gave the last two arrivals 1 ulp apart,
     * the second before the first, and the clock ran back 7e-9 s) */
    unlink(path);
    ic_test_write_tmp(path, "2289389.375503,100,3\n40363356.307563,100,3\n40363356.307563,100,3\n");
    k.n = 0;
    r = run(t, &c);
    ck_assert_uint_eq(k.n, 3);
    ck_assert(k.r[1].arrival_s == 40363356.307563 && k.r[2].arrival_s == 40363356.307563);
    ck_assert(k.r[0].arrival_s == 2289389.375503);
    unlink(path);
    /* a header of names the reader does not know (Azure's trace:
     * TIMESTAMP,ContextTokens,GeneratedTokens) is read by position */
    ic_test_write_tmp(path, "TIMESTAMP,ContextTokens,GeneratedTokens\n# two requests\n\n"
                            "0,512,4\n100, 256 ,3\n");
    /* --requests 1 stops after the first line */
    c.requests = 1;
    k.n = 0;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 1);
    ck_assert_uint_eq(k.n, 1);
    /* the trace's lengths, all at t = 0 (rate 0): the two prefilled in one
     * step (768 tokens, 2 chunks), then decodes at batch 2 (contexts 512
     * and 256: mean 384, 385) and one at batch 1 (514) */
    c.source = IC_SRC_TRACE_LENGTHS;
    c.requests = 0;
    c.sched = IC_SCHED_PREFILL_FIRST;
    k.n = 0;
    r = run(t, &c);
    const double both = step(t, &c, 0, 0, 2, 768, 0);
    const double b2 = step(t, &c, 2, ic_sim_context_key(384), 0, 0, 0) +
                      step(t, &c, 2, ic_sim_context_key(385), 0, 0, 0);
    ck_assert_uint_eq(r.completed, 2);
    ck_assert(k.r[0].arrival_s == 0);
    ck_assert(k.r[1].arrival_s == 0);
    ck_assert_msg(ic_test_rel(r.duration_s, both + b2 + dec1(t, &c, 514)) < 1e-12,
                  "offline from the trace %g", r.duration_s);
    unlink(path);
    free(t);
}
END_TEST

/* A trace of len bytes (NUL bytes too) refused with code at line:col. */
static void trace_error_n(const struct ic_test_pair *t, const char *text, size_t len, int code,
                          unsigned line, unsigned col)
{
    char path[64];
    ic_test_write_tmp(path, "");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    fclose(f);
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    struct ic_sim_result r;
    struct ic_err e = {0};
    int rc = ic_sim_run(&t->st, &t->h, &c, &r, &e);
    ck_assert_msg(rc == code, "'%s': rc %d (%s)", text, rc, e.msg);
    ck_assert_str_eq(e.file, path);
    ck_assert_msg(e.line == line && e.col == col, "'%.40s': %u:%u, expected %u:%u (%s)", text,
                  e.line, e.col, line, col, e.msg);
    ck_assert_msg(e.hint[0] || line == 0, "no hint: %s", e.msg);
    unlink(path);
}

static void trace_error(const struct ic_test_pair *t, const char *text, int code, unsigned line,
                        unsigned col)
{
    trace_error_n(t, text, strlen(text), code, line, col);
}

START_TEST(test_trace_errors)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    trace_error(t, "0,512,4\n1,abc,4\n", IC_EINVAL, 2, 3);
    trace_error(t, "0,512,4\n1,512,0\n", IC_EINVAL, 2, 7);          /* output 0 */
    trace_error(t, "0,512,4\n1,99999999,4\n", IC_EINVAL, 2, 3);     /* past 10^7 */
    trace_error(t, "5,10,10\n4,10,10\n", IC_EINVAL, 2, 1);          /* out of order */
    trace_error(t, "-1,10,10\n", IC_EINVAL, 1, 1);
    trace_error(t, "0,1,1\n1e400,1,1\n", IC_EINVAL, 2, 1);          /* out of range */
    trace_error(t, "0,10,10\nnan,10,10\n", IC_EINVAL, 2, 1);
    /* a first line spelled as a number (strtod reads its first field
     * whole) is a request, not a header (it starts with a letter): refused
     * as on line 2 */
    trace_error(t, "nan,10,10\n", IC_EINVAL, 1, 1);
    trace_error(t, "Infinity,10,10\n", IC_EINVAL, 1, 1);
    trace_error(t, "nan(12),10,10\n", IC_EINVAL, 1, 1); /* strtod reads it whole */
    trace_error(t, "0,10,10\n0x10,10,10\n", IC_EINVAL, 2, 1);     /* hex: 16 s to strtod */
    trace_error(t, "1,2\n", IC_EINVAL, 1, 4);                       /* too few fields */
    trace_error(t, "1,2,3,a,5,6\n", IC_EINVAL, 1, 11);              /* too many */
    trace_error(t, "1,2,3,,5\n", IC_EINVAL, 1, 7);                  /* tokens without an id */
    trace_error(t, "1,2,3,sys\n", IC_EINVAL, 1, 7);                 /* an id without tokens */
    trace_error(t, "0,100,10,1,500\n", IC_EINVAL, 1, 12);           /* prefix past the prompt */
    trace_error(t, "0,100,10,1,100\n1,100,10,1,101\n", IC_EINVAL, 2, 12); /* all of it: read */
    trace_error(t, "arrival,prompt,output\n", IC_EINVAL, 0, 0);     /* no request */
    /* a header's name that says another column's quantity: prompt and
     * output swapped would read 4000-token outputs of 10-token prompts (a
     * name it does not know passes, read by position: test_trace_two_requests) */
    trace_error(t, "arrival_s,output,prompt\n0,4000,10\n", IC_EINVAL, 1, 11);
    trace_error(t, "time,output_tokens,input\n0,10,5\n", IC_EINVAL, 1, 6);
    trace_error(t, "arrival,prompt\n0,10\n", IC_EINVAL, 2, 5); /* the line's 2 fields */
    trace_error(t, "Arrival_s, Prompt_tokens, Output_tokens, prefix_id, prefix_tokens, x\n",
                IC_EINVAL, 1, 68);
    /* NUL bytes: a line opening with one was skipped as blank, one inside
     * a line cut it (output 1 for 10), /dev/zero read without end */
    trace_error_n(t, "0,100,1\n\0" "0,100,1\n", 17, IC_EINVAL, 2, 1);
    trace_error_n(t, "0,100,1\0" "0\n", 10, IC_EINVAL, 1, 8);
    char *lng = malloc(3000);
    ck_assert_ptr_nonnull(lng);
    memset(lng, '1', 2000);
    strcpy(lng + 2000, ",1,1\n");
    trace_error(t, lng, IC_EINVAL, 1, IC_SIM_TRACE_LINE_MAX + 1);
    free(lng);
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = "/nonexistent/trace.csv";
    struct ic_sim_result r;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_ENOENT);
    ck_assert_str_eq(e.file, "/nonexistent/trace.csv");
    free(t);
}
END_TEST

/* A share h of each prompt cached: offline, 8 prompts of 1000 tokens with
 * h = 0.3: 300 tokens found cached each (floor(0.3 x 1000)), so prefill
 * computes 8 x 700 = 5600 tokens instead of 8000, and the hits are 2400.
 * A lone request's TTFT is the prefill of 700 tokens after 300 cached. */
START_TEST(test_prefix_hit_share)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 8;
    c.prompt.mean = 1000;
    c.output.mean = 16;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.prefill_tokens, 8000);
    ck_assert_uint_eq(r.prefix_hit_tokens, 0);
    c.prefix_hit = 0.3;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 8);
    ck_assert_uint_eq(r.preemptions, 0);
    ck_assert_uint_eq(r.prefill_tokens, 8 * 700);
    ck_assert_uint_eq(r.prefix_hit_tokens, 8 * 300);
    ck_assert_uint_eq(r.prompt_tokens, 8000);
    c.rate = 1e-6;
    c.requests = 5;
    r = run(t, &c);
    const double pre = step(t, &c, 0, 0, 1, 700, ic_sim_context_key(300));
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre) < 1e-6, "ttft %g vs %g", r.ttft.mean, pre);
    ck_assert(pre < step(t, &c, 0, 0, 1, 1000, 0));
    /* all but the last token at most: h = 0.9999 of 1000 is 999 */
    c.prefix_hit = 0.9999;
    r = run(t, &c);
    ck_assert_uint_eq(r.prefill_tokens, 5 * 1);
    free(t);
}
END_TEST

/* By id (blocks of 16): request 0 (id "sys", prompt 1000, a 600-token
 * prefix) misses: it computes all 1000 and leaves an entry of
 * floor(600 / 16) = 37 blocks = 592 tokens; request 1 (same id, prompt 800)
 * finds them: TTFT = the prefill of 208 tokens after 592 cached; request 2
 * (id "other") misses: 800 tokens; request 3 (id "sys", the prefix from
 * the configuration: 100 tokens = 6 blocks = 96) hits the entry's first 96
 * tokens. Prefill work: 1000 + 208 + 800 + 904 = 2912 tokens; hits 592 +
 * 96. */
START_TEST(test_prefix_by_id)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    char path[64];
    ic_test_write_tmp(path, "0,1000,2,sys,600\n100,800,2,sys,600\n200,800,2,other,600\n"
                      "300,1000,2,sys\n");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    c.prefix_tokens = 100;
    struct recs k = {0};
    c.on_request = keep;
    c.on_request_ctx = &k;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 4);
    ck_assert_uint_eq(r.prefill_tokens, 1000 + 208 + 800 + 904);
    ck_assert_uint_eq(r.prefix_hit_tokens, 592 + 96);
    ck_assert_uint_eq(k.n, 4);
    ck_assert_uint_eq(k.r[0].cached, 0);
    ck_assert_uint_eq(k.r[1].cached, 592);
    ck_assert_uint_eq(k.r[2].cached, 0);
    ck_assert_uint_eq(k.r[3].cached, 96);
    const double miss = step(t, &c, 0, 0, 1, 1000, 0);
    const double hit = step(t, &c, 0, 0, 1, 208, ic_sim_context_key(592));
    ck_assert_msg(ic_test_rel(k.r[0].first_token_s, miss) < 1e-12, "miss");
    ck_assert_msg(ic_test_rel(k.r[1].first_token_s - 100, hit) < 1e-9, "hit %g vs %g",
                  k.r[1].first_token_s - 100, hit);
    unlink(path);
    free(t);
}
END_TEST

/* Many prefixes through a pool too small to keep them: entries are evicted
 * least recent first; every request finishes, the tokens add up and the
 * pool is never exceeded. The same trace gives the same result twice. */
START_TEST(test_prefix_eviction)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    enum { N = 3000 };
    char *text = malloc(N * 48);
    ck_assert_ptr_nonnull(text);
    size_t o = 0;
    uint64_t sum_p = 0, sum_o = 0;
    for (int i = 0; i < N; i++) {
        /* prompts of at least 400 tokens hold their prefixes (at most 356) */
        unsigned p = 400 + (unsigned)(i * 7919 % 1800), out = 1 + (unsigned)(i * 104729 % 300);
        sum_p += p;
        sum_o += out;
        o += (size_t)sprintf(text + o, "%.4f,%u,%u,id%d,%u\n", i * 0.01, p, out, i * 31 % 97,
                             100 + (unsigned)(i % 5) * 64);
    }
    char path[64];
    ic_test_write_tmp(path, text);
    free(text);
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    c.mem_util = 0.25; /* ~30,000 tokens of KV */
    struct ic_sim_result a = run(t, &c), b = run(t, &c);
    ck_assert_uint_eq(a.completed, N);
    ck_assert_uint_eq(a.prompt_tokens, sum_p);
    ck_assert_uint_eq(a.output_tokens, sum_o);
    ck_assert_uint_le(a.peak_blocks, a.kv_blocks);
    ck_assert_uint_gt(a.prefix_hit_tokens, 0);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    unlink(path);
    free(t);
}
END_TEST

/* Disaggregated, a lone request (Llama-3-8B, prompt 512, output 64; a
 * prefill server of 2 H100s, a decode server of 1): TTFT = the prefill of
 * 512 on 2 chips + the KV hand-off. By hand: 2 (K, V) x 32 layers x 8 KV
 * heads x 128 x 2 B = 131,072 B a token, x 512 = 67,108,864 B, one sender
 * (the fewer chips' side). Three replicas are 9 chips, past the 8 of an
 * NVLink domain: over the 400 Gbit/s = 50 GB/s scale-out link, 1.342177 ms
 * + 5 us latency = 1.347177 ms. One replica's 3 chips share a domain: over
 * NVLink, 18 links x 25 GB/s = 450 GB/s, 0.149131 ms + one 2 us hop =
 * 0.151131 ms. Then 63 decode steps on the 1-chip server at 512 .. 574. */
static const double lone_x = 67108864.0 / 450e9 + 2e-6; /* over NVLink */

/* The lone requests' run: 20 requests far apart, 512 / 64 tokens, a
 * prefill server of 2 chips */
static struct ic_sim_cfg lone_disagg(void)
{
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 1e-6;
    c.requests = 20;
    c.prompt.mean = 512;
    c.output.mean = 64;
    c.prefill_chips = 2;
    return c;
}

/* Its prompt's prefill on the prefill server's 2 chips */
static double lone_prefill_s(const struct ic_test_pair *t, const struct ic_sim_cfg *c)
{
    struct ic_sim_cfg c2 = *c;
    c2.dec.chips = c->prefill_chips;
    return step(t, &c2, 0, 0, 1, 512, 0);
}

START_TEST(test_disagg_lone)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = lone_disagg();
    const double x = lone_x, x_out = 67108864.0 / 50e9 + 5e-6;
    ck_assert_msg(ic_test_rel(ic_disagg_kv_transfer_s(&t->st, &t->h, 512, c.dec.kv, 2, 1, 3), x) <
                      1e-12, "transfer");
    ck_assert_msg(ic_test_rel(ic_disagg_kv_transfer_s(&t->st, &t->h, 512, c.dec.kv, 2, 1, 9),
                              x_out) < 1e-12, "transfer across domains");
    const double pre = lone_prefill_s(t, &c);
    double dec = 0;
    for (int i = 0; i < 63; i++)
        dec += dec1(t, &c, 512 + i);
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 20);
    ck_assert_uint_eq(r.handoffs, 20);
    ck_assert_uint_eq(r.chips, 3);
    ck_assert_msg(ic_test_rel(r.kv_transfer_mean_s, x) < 1e-12, "mean transfer");
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre + x) < 1e-6, "ttft %g vs %g", r.ttft.mean,
                  pre + x);
    ck_assert_msg(ic_test_rel(r.tpot.mean, dec / 63) < 1e-6, "tpot");
    ck_assert_msg(ic_test_rel(r.e2e.mean, pre + x + dec) < 1e-6, "e2e");
    ck_assert_uint_gt(r.prefill_kv_blocks, r.kv_blocks); /* 2 chips hold more */
    /* output 1: the request ends when its first token is out, on the
     * prefill server that made it: no decode server, no hand-off */
    c.output.mean = 1;
    r = run(t, &c);
    ck_assert_msg(ic_test_rel(r.e2e.mean, pre) < 1e-6, "output 1: %g vs %g", r.e2e.mean, pre);
    ck_assert_uint_eq(r.handoffs, 0);
    /* three replicas: each request still alone, its KV sent across domains */
    c.output.mean = 64;
    c.replicas = 3;
    r = run(t, &c);
    ck_assert_uint_eq(r.chips, 9);
    ck_assert_uint_eq(r.handoffs, 20);
    ck_assert_msg(ic_test_rel(r.kv_transfer_mean_s, x_out) < 1e-12, "mean transfer, 9 chips");
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre + x_out) < 1e-6, "ttft, 9 chips");
    free(t);
}
END_TEST

/* P prefill servers for R decode servers (prefill_servers): the layout of
 * test_disagg_lone with one prefill server of 2 chips for 3 decode
 * servers of 1 is 3 + 2 = 5 chips, inside the 8-chip NVLink domain, so a
 * lone request's KV goes over the fabric (x, as there) and its TTFT is the
 * prefill plus x; P = R given is the default layout, run for run; offline,
 * prompts of 4096 and 8 output tokens are prefill-bound, and one prefill
 * server for three decode servers finishes them at most a third as fast
 * as three (plus the decode's share: under 0.4 of it here). */
START_TEST(test_disagg_ratio)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = lone_disagg();
    c.replicas = 3;
    c.prefill_servers = 1;
    const double x = lone_x, pre = lone_prefill_s(t, &c);
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 20);
    ck_assert_uint_eq(r.handoffs, 20);
    ck_assert_uint_eq(r.chips, 5);
    ck_assert_uint_eq(r.prefill_servers, 1);
    ck_assert_msg(ic_test_rel(r.kv_transfer_mean_s, x) < 1e-12, "mean transfer");
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre + x) < 1e-6, "ttft");
    /* P = R given: the default layout */
    c.rate = 2;
    c.requests = 300;
    c.prefill_servers = 3;
    struct ic_sim_result a = run(t, &c);
    c.prefill_servers = 0;
    struct ic_sim_result b = run(t, &c);
    ck_assert_uint_eq(a.chips, 9);
    ck_assert_uint_eq(b.prefill_servers, 3);
    ck_assert_double_eq(a.ttft.mean, b.ttft.mean);
    ck_assert_double_eq(a.tpot.mean, b.tpot.mean);
    ck_assert_double_eq(a.requests_per_s, b.requests_per_s);
    /* offline, prefill-bound: one prefill server against three */
    c.rate = 0;
    c.requests = 120;
    c.prompt.mean = 4096;
    c.output.mean = 8;
    c.prefill_servers = 1;
    a = run(t, &c);
    c.prefill_servers = 3;
    b = run(t, &c);
    ck_assert_uint_eq(a.completed, 120);
    ck_assert_uint_eq(a.handoffs, 120);
    ck_assert_double_lt(a.requests_per_s, 0.4 * b.requests_per_s);
    /* a count of prefill servers without their chips is refused */
    c.prefill_chips = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &a, &e), IC_EINVAL);
    free(t);
}
END_TEST

/* R = 4 identical replicas at 4 lambda against one at lambda (Llama-3.2-1B,
 * one H100 each, lambda = 40/s, 40,000 and 10,000 Poisson arrivals, lengths
 * drawn): round-robin hands each replica every 4th arrival (exactly a
 * quarter of them, Erlang-4 gaps of the same mean, so its queueing is if
 * anything smaller); least-loaded sends each to the emptiest. The
 * throughput per replica matches within 2% (its Poisson estimate over ~10^4
 * arrivals is within ~1% at one sigma) and the mean TPOT and batch, set by
 * the load, within 3%; the fleet's chips are 4. */
START_TEST(test_fleet)
{
    struct ic_test_pair *t = ic_test_pair("llama3.2-1b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 40;
    c.requests = 10000;
    c.warmup = 1000;
    c.prompt = (struct ic_sim_lengths){IC_DIST_GAMMA, 512, 0.5};
    c.output = (struct ic_sim_lengths){IC_DIST_LOGNORMAL, 128, 0.6};
    struct ic_sim_result one = run(t, &c);
    for (int k = 0; k < 2; k++) {
        struct ic_sim_cfg f = c;
        f.replicas = 4;
        f.rate = 160;
        f.requests = 40000;
        f.warmup = 4000;
        f.route = k ? IC_ROUTE_LEAST_LOADED : IC_ROUTE_ROUND_ROBIN;
        struct ic_sim_result r = run(t, &f);
        ck_assert_uint_eq(r.completed, 40000);
        ck_assert_uint_eq(r.chips, 4);
        ck_assert_msg(fabs(r.requests_per_s / 4 / one.requests_per_s - 1) < 0.02,
                      "%s: %g vs %g req/s", ic_sim_route_name(f.route), r.requests_per_s / 4,
                      one.requests_per_s);
        ck_assert_msg(fabs(r.tpot.mean / one.tpot.mean - 1) < 0.03, "%s: TPOT %g vs %g",
                      ic_sim_route_name(f.route), r.tpot.mean, one.tpot.mean);
        ck_assert_msg(fabs(r.mean_batch / one.mean_batch - 1) < 0.03, "%s: batch %g vs %g",
                      ic_sim_route_name(f.route), r.mean_batch, one.mean_batch);
        ck_assert_msg(fabs(r.output_tokens_per_s_per_chip / one.output_tokens_per_s_per_chip -
                           1) < 0.03, "per chip");
    }
    /* round-robin: replica i serves requests i, i + 4, ... */
    struct ic_sim_cfg f = c;
    f.replicas = 4;
    f.rate = 160;
    f.requests = 40;
    f.warmup = 0;
    struct recs k = {0};
    f.on_request = keep;
    f.on_request_ctx = &k;
    run(t, &f);
    ck_assert_uint_eq(k.n, 40);
    for (size_t i = 0; i < k.n; i++)
        ck_assert_uint_eq(k.r[i].replica, k.r[i].index % 4);
    free(t);
}
END_TEST

/* Little's law across servers: 2 replicas, each a prefill server and a
 * decode server (Llama-3.2-1B, one H100 each), requests in flight between
 * them counted: mean in the system = rate x mean E2E within 1% over 50,000
 * arrivals, as for one server. */
START_TEST(test_littles_law_layouts)
{
    struct ic_test_pair *t = ic_test_pair("llama3.2-1b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.rate = 80;
    c.requests = 50000;
    c.prompt = (struct ic_sim_lengths){IC_DIST_GAMMA, 512, 0.5};
    c.output = (struct ic_sim_lengths){IC_DIST_LOGNORMAL, 128, 0.6};
    c.replicas = 2;
    c.prefill_chips = 1;
    c.route = IC_ROUTE_LEAST_LOADED;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 50000);
    ck_assert_uint_eq(r.handoffs, 50000);
    double L = r.mean_in_system, lw = c.rate * r.e2e.mean;
    ck_assert_msg(fabs(L / lw - 1) < 0.01, "L %g vs lambda W %g", L, lw);
    free(t);
}
END_TEST

/* Swap instead of recompute with a short pool: as many preemptions, each
 * swapped out and back, and no token prefilled twice (prefill work = the
 * prompts exactly), where recompute prefills more than the prompts. One
 * copy by hand: 1000 tokens of Llama-3-8B's KV (131,072 B each, bf16) over
 * the H100's 64 GB/s one-way host link = 2.048 ms; on 2 chips each sends
 * its half of the 8 KV heads: 1.024 ms. */
START_TEST(test_swap)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    ck_assert_msg(ic_test_rel(ic_kv_host_copy_s(&t->st, &t->h, 1000, IC_DT_BF16, 1, false), 2.048e-3) <
                      1e-12, "one chip");
    ck_assert_msg(ic_test_rel(ic_kv_host_copy_s(&t->st, &t->h, 1000, IC_DT_BF16, 2, false), 1.024e-3) <
                      1e-12, "two chips");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 400;
    c.prompt.mean = 1000;
    c.output.mean = 500;
    c.mem_util = 0.25;
    struct ic_sim_result rec = run(t, &c);
    ck_assert_uint_gt(rec.preemptions, 0);
    ck_assert_uint_gt(rec.prefill_tokens, 400 * 1000);
    c.preempt = IC_PREEMPT_SWAP;
    struct ic_sim_result sw = run(t, &c);
    ck_assert_uint_eq(sw.completed, 400);
    ck_assert_uint_eq(sw.output_tokens, 400 * 500);
    ck_assert_uint_gt(sw.preemptions, 0);
    ck_assert_uint_eq(sw.swaps, sw.preemptions);
    ck_assert_uint_eq(sw.prefill_tokens, 400 * 1000);
    ck_assert(sw.swap_s > 0);
    ck_assert_uint_le(sw.peak_blocks, sw.kv_blocks);
    free(t);
}
END_TEST

/* Every new part at once, twice with the same seed: byte-identical. */
START_TEST(test_deterministic_all)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    char path[64];
    ic_test_write_tmp(path, "0,3000,40,a,1000\n0.01,2000,200,b,500\n0.02,1500,20,a,1000\n"
                      "0.5,900,90\n0.6,4000,10,b,500\n0.7,100,400,c,64\n");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE_LENGTHS;
    c.trace = path;
    c.requests = 0;
    c.rate = 50;
    c.prefill_chips = 1;
    c.replicas = 2;
    c.route = IC_ROUTE_LEAST_LOADED;
    c.prefix_hit = 0.2;
    struct ic_sim_result a = run(t, &c), b = run(t, &c);
    ck_assert_uint_eq(a.completed, 6);
    ck_assert_uint_eq(a.handoffs, 6);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    unlink(path);
    free(t);
}
END_TEST

/* A request the KV pool can never hold ends the run with an error instead
 * of preempting itself forever: Llama-3-8B on one H100 has a pool of
 * 26,673 blocks of 16 tokens (426,768 tokens: 72 GB less the weights, at
 * 131,072 B a token). A prompt of 3,000,000 tokens cannot be prefilled;
 * one of 420,000 can, and then its output fills the pool after 6,768
 * tokens of its 10,000. */
START_TEST(test_request_beyond_pool)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 2;
    c.max_seqs = 1;
    struct ic_sim_result r;
    struct ic_err e = {0};
    c.prompt.mean = 3000000;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "3000000 prompt") && strstr(e.msg, "can never finish") &&
                      strstr(e.msg, "26673"),
                  "%s", e.msg);
    c.prompt.mean = 420000;
    c.output.mean = 10000;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "420000 prompt and 10000 output") &&
                      strstr(e.msg, "can never finish"),
                  "%s", e.msg);
    /* 6,000 output tokens fit (426,000 of 426,768) */
    c.output.mean = 6000;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_OK);
    ck_assert_uint_eq(r.completed, 2);
    free(t);
}
END_TEST

/* A pool with no room names its cause: Llama-3-8B on one H100 (80 GB, 72
 * GB at the default 0.9) holds 16.1 GB of weights, 55.9 GB left; 10% of
 * the HBM (8 GB) is under the weights; 100,000 sequences' workspace takes
 * more than the 55.9 GB; a block of 2^20 tokens at 131,072 B a token is
 * 137 GB. */
START_TEST(test_pool_without_room)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_result r;
    struct ic_err e = {0};
    struct ic_sim_cfg c = ic_sim_defaults();
    c.mem_util = 0.1;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "16.1 GB of weights per chip of the 8 GB usable"), "%s", e.msg);
    c = ic_sim_defaults();
    c.max_seqs = 100000;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "workspace of 100000 sequences"), "%s", e.msg);
    c = ic_sim_defaults();
    c.block = 1048576;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "block of 1048576 tokens (137 GB a chip)"), "%s", e.msg);
    free(t);
}
END_TEST

/* The clock far from 0: one request every 10^9 s on average, 20 of them
 * (the last arrives ~2e10 s in, where a double's spacing is ~4e-6 s, 2e-4
 * of the 18 ms prefill). The simulation moves its 0 to each arrival that
 * finds it empty, so every lone request's TTFT is its prefill step to
 * rounding, as test_lone_request's at 10^-6 / s; the per-request records
 * still give absolute arrivals, in order. */
struct far_rec {
    double last_arrival, max_err;
    uint64_t n;
    double pre;
};

static int far_on_request(void *ctx, const struct ic_sim_request *q)
{
    struct far_rec *f = ctx;
    ck_assert_msg(q->arrival_s >= f->last_arrival, "arrivals out of order");
    f->last_arrival = q->arrival_s;
    f->n++;
    return 0;
}

START_TEST(test_far_clock)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    struct far_rec f = {0};
    c.rate = 1e-9;
    c.requests = 20;
    c.prompt.mean = 512;
    c.output.mean = 64;
    c.on_request = far_on_request;
    c.on_request_ctx = &f;
    struct ic_sim_result r = run(t, &c);
    const double pre = step(t, &c, 0, 0, 1, 512, 0);
    ck_assert_uint_eq(f.n, 20);
    /* 20 exponential gaps of mean 1e9 s summing under 1e9 s: ~1e-19 */
    ck_assert_msg(f.last_arrival > 1e9, "last arrival %g", f.last_arrival);
    ck_assert_msg(ic_test_rel(r.ttft.mean, pre) < 1e-9, "ttft %.12g vs %.12g", r.ttft.mean, pre);
    ck_assert_msg(ic_test_rel(r.ttft.p[2], pre) < 3e-3, "ttft p99 %g", r.ttft.p[2]);
    ck_assert_msg(r.duration_s >= f.last_arrival, "duration %g", r.duration_s);
    free(t);
}
END_TEST

/* Percentiles beyond 1e5 s, against the per-request records sorted (a
 * second method): 1000 prompts of 400,000 tokens queued at once wait up to
 * ~1.2e5 s for their first token; the histogram's P50/P90/P99 are within
 * its 0.23% bins of the exact nearest-rank values (the ceil(q n)-th
 * smallest). */
struct e2e_rec {
    double *v;
    size_t n;
};

static int e2e_on_request(void *ctx, const struct ic_sim_request *q)
{
    struct e2e_rec *w = ctx;
    w->v[w->n++] = q->e2e_s;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_long_latency_percentiles)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    struct e2e_rec w = {calloc(1000, sizeof(double)), 0};
    ck_assert_ptr_nonnull(w.v);
    c.requests = 1000;
    c.prompt.mean = 400000;
    c.output.mean = 16;
    c.on_request = e2e_on_request;
    c.on_request_ctx = &w;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(w.n, 1000);
    qsort(w.v, w.n, sizeof *w.v, cmp_double);
    ck_assert_msg(w.v[999] > 1e5, "the longest E2E %g s: the case needs one beyond 1e5 s", w.v[999]);
    static const double q[3] = {0.50, 0.90, 0.99};
    for (int k = 0; k < 3; k++) {
        double exact = w.v[(size_t)ceil(q[k] * 1000) - 1];
        ck_assert_msg(ic_test_rel(r.e2e.p[k], exact) < 2.5e-3, "E2E P%g %g s against %g s",
                      q[k] * 100, r.e2e.p[k], exact);
    }
    free(w.v);
    free(t);
}
END_TEST

/* The hit share stays a share under preemption: 400 requests of 1000 tokens
 * at a hit share of 0.5 in a pool short enough to preempt (25% of the HBM,
 * as test_conservation_and_preemption). Every admission with nothing
 * computed looks its prompt up (a readmission after recompute too) and
 * finds floor(0.5 x 1000) = 500 tokens: hits are exactly half the tokens
 * looked up, which exceed the 400,000 prompt tokens by the readmissions;
 * the per-request records' first-admission hits sum to 400 x 500. (The
 * share printed was hits over prompt tokens, and read 111% at a share of
 * 0.99.) */
static int cached_on_request(void *ctx, const struct ic_sim_request *q)
{
    *(uint64_t *)ctx += q->cached;
    return 0;
}

START_TEST(test_prefix_share_under_preemption)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    uint64_t sum = 0;
    c.requests = 400;
    c.prompt.mean = 1000;
    c.output.mean = 500;
    c.mem_util = 0.25;
    c.prefix_hit = 0.5;
    c.on_request = cached_on_request;
    c.on_request_ctx = &sum;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_gt(r.preemptions, 0);
    ck_assert_uint_eq(sum, 400 * 500);
    ck_assert_uint_eq(2 * r.prefix_hit_tokens, r.prefix_query_tokens);
    ck_assert_uint_gt(r.prefix_query_tokens, r.prompt_tokens);
    ck_assert_uint_eq(r.prompt_tokens, 400 * 1000);
    free(t);
}
END_TEST

/* A linear-attention hybrid's state takes blocks of the pool beside its
 * tokens', in blocks vLLM aligns to the state: Qwen3-Next (bf16) holds
 * 2,048 B a token in one attention layer and 1,097,728 B of state in one
 * linear layer, so a block is 536 tokens rounded up to a multiple of 16,
 * 544. On 4 x H100 a chip holds 12,288 B a token (24,576 over its 2
 * KV-head ways), a block 6,684,672 B, and 19,759,104 B of state a sequence
 * (39,518,208 / 2): 2.96 blocks, so 3 (vLLM: one page in each of its 3
 * linear layer groups). One request of 100 + 10 tokens holds 1 block of
 * tokens and those 3; one of 1200 + 10 tokens with a prefix of 1100 (id 7)
 * fills an entry of its 2 whole blocks and a copy of the state at its end
 * (3), beside its own ceil(1209 / 544) = 3 - 2 shared + 3. */
START_TEST(test_linear_attention_state_blocks)
{
    struct ic_test_pair *t = calloc(1, sizeof *t);
    ck_assert_ptr_nonnull(t);
    ic_test_fixture_stats("qwen3-next-80b-a3b-config.json", &t->st);
    ic_test_hw("h100", &t->h);
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec.chips = 4;
    c.rate = 0;
    c.requests = 1;
    c.warmup = 0;
    c.prompt.mean = 100;
    c.output.mean = 10;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 1);
    ck_assert_uint_eq(r.block, 544);
    ck_assert_uint_eq(r.peak_blocks, 1 + 3);
    char path[64];
    ic_test_write_tmp(path, "0,1200,10,7,1100\n");
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    r = run(t, &c);
    unlink(path);
    ck_assert_uint_eq(r.completed, 1);
    ck_assert_uint_eq(r.peak_blocks, (2 + 3) + (3 - 2 + 3));
    /* blocks of 2048 tokens: each of the 36 state layers still takes a
     * whole page of one attention layer's block (2048 x 1,024 B a chip),
     * 36 pages, 3 blocks of 12 pages, beside 1 block of tokens (vLLM pads
     * a layer's state to its page) */
    c.source = IC_SRC_DRAWN;
    c.trace = NULL;
    c.requests = 1;
    c.block = 2048;
    r = run(t, &c);
    ck_assert_uint_eq(r.block, 2048);
    ck_assert_uint_eq(r.peak_blocks, 1 + 3);
    /* a dense model keeps the configured block */
    struct ic_test_pair *d = ic_test_pair("llama3-8b", "h100");
    c = ic_sim_defaults();
    c.requests = 1;
    ck_assert_uint_eq(run(d, &c).block, 16);
    free(d);
    free(t);
}
END_TEST

/* Prefill-first with prompts of a spread around its budget: those over it
 * (the tail) prefill alone, in pieces, and every request finishes (the
 * command line refuses a budget under the mean, which splits every
 * prompt); a fixed prompt one token over the budget finishes too. */
START_TEST(test_prefill_first_budget)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 200;
    c.rate = 5;
    c.prompt.mean = 1000;
    c.prompt.dist = IC_DIST_LOGNORMAL;
    c.prompt.cv = 1;
    c.output.mean = 32;
    c.sched = IC_SCHED_PREFILL_FIRST;
    c.max_tokens = 1000;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.completed, 200);
    c.prompt.dist = IC_DIST_FIXED;
    c.prompt.cv = 0;
    c.max_tokens = 999;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 200);
    ck_assert_uint_eq(r.prefill_tokens, 200 * 1000);
    free(t);
}
END_TEST

/* The capacity search over a bracket of six decades (0.001 to 1000
 * requests/s, Llama-3-8B on one H100, P99 TTFT 1 s and TPOT 10 ms, 300
 * requests; its capacity about 3.08): 6 arithmetic halvings from 1000
 * stop at 15.6 and returned the bracket's low end, 0.001. Now the
 * capacity found meets the SLOs and 25% above it does not (the direct
 * runs, a second method). Each geometric midpoint halves the bracket's
 * log ratio: 1e6, 1e3, 31.6, 5.6, 2.4, so 4 runs bring it within 4x and
 * the 6 halvings follow: 10 runs. */
START_TEST(test_capacity_wide_bracket)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 300;
    c.warmup = 30;
    c.ttft_slo_s = 1.0;
    c.tpot_slo_s = 0.010;
    c.rate = 0.001;
    struct ic_sim_result lo = run(t, &c);
    ck_assert(ic_sim_meets_slos(&c, &lo));
    c.rate = 1000;
    struct ic_sim_result hi = run(t, &c);
    ck_assert(!ic_sim_meets_slos(&c, &hi));
    double cap = 0;
    unsigned runs = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_capacity_bisect(&t->st, &t->h, &c, 0.001, 1000, 6, &cap, NULL, &runs,
                                            &e),
                     IC_OK);
    ck_assert_msg(cap > 1, "capacity %g", cap);
    c.rate = cap;
    struct ic_sim_result at = run(t, &c);
    ck_assert(ic_sim_meets_slos(&c, &at));
    c.rate = 1.25 * cap;
    struct ic_sim_result above = run(t, &c);
    ck_assert_msg(!ic_sim_meets_slos(&c, &above), "1.25 x %g meets the SLOs", cap);
    ck_assert_uint_eq(runs, 4 + 6);
    free(t);
}
END_TEST

/* ---- disaggregated: what each server holds, and its batch ------------------- */

/* Every request's record (arrival order, at most ALL_MAX). */
enum { ALL_MAX = 4096 };
struct all_recs {
    size_t n;
    double first[ALL_MAX], fin[ALL_MAX], ttft[ALL_MAX];
    uint64_t pre[ALL_MAX];
};

static int keep_all(void *ctx, const struct ic_sim_request *r)
{
    struct all_recs *k = ctx;
    ck_assert_uint_lt(r->index, ALL_MAX);
    k->first[r->index] = r->first_token_s;
    k->fin[r->index] = r->finish_s;
    k->ttft[r->index] = r->ttft_s;
    k->pre[r->index] = r->preemptions;
    k->n++;
    return 0;
}

/* Disaggregated, the mean batch and KV used are the decode servers' (the
 * prefill servers' apart): the blend of both read 10.47 where the decode
 * server held 17.2 sequences. Llama-3-70B on 8 + 8 H100s, 2048 / 300
 * tokens at 10 requests/s (the README's layout), 1000 requests: the decode
 * server is never idle from the first landing to the last finish (~17
 * sequences in it), so its batch, weighted by its steps' time, is Little's
 * law over the records: the sequences decoding integrated over time, the
 * sum of (finish - first token), over that span (within 2%: a landing
 * waits for the step in flight, ~3 ms of a request's 1.7 s). Its KV used:
 * a sequence holds ceil((2048 + g) / 16) = 128 + ceil(g / 16) blocks in the
 * step that makes its token g + 1 (g = 1 .. 299: 128 + (16 x (1 + .. + 18)
 * + 11 x 19) / 299 = 128 + 2945 / 299 = 137.85 on average), times that
 * batch, over the pool of 82,934 blocks. A prefill step holds at most 8192 tokens: 4
 * prompts of 2048, 5 with a chunk at either end. */
START_TEST(test_disagg_decode_batch)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec.chips = 8;
    c.prefill_chips = 8;
    c.rate = 10;
    c.requests = 1000;
    c.warmup = 100;
    c.prompt.mean = 2048;
    c.output.mean = 300;
    struct all_recs *k = calloc(1, sizeof *k);
    c.on_request = keep_all;
    c.on_request_ctx = k;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(k->n, 1000);
    ck_assert_uint_eq(r.kv_blocks, 82934);
    double in_decode = 0, t0 = INFINITY, t1 = 0;
    for (size_t i = 0; i < k->n; i++) {
        ck_assert_uint_eq(k->pre[i], 0);
        in_decode += k->fin[i] - k->first[i];
        t0 = fmin(t0, k->first[i]);
        t1 = fmax(t1, k->fin[i]);
    }
    const double L = in_decode / (t1 - t0);
    ck_assert_msg(L > 15 && L < 20, "Little's law: %g sequences decoding", L);
    ck_assert_msg(fabs(r.mean_batch / L - 1) < 0.02, "mean batch %g vs %g", r.mean_batch, L);
    double blocks = 0;
    for (int g = 1; g <= 299; g++)
        blocks += (2048 + g + 15) / 16;
    blocks /= 299;
    ck_assert_msg(fabs(blocks - (128 + 2945.0 / 299)) < 1e-12, "blocks %g", blocks);
    const double occ = L * blocks / 82934;
    ck_assert_msg(fabs(r.kv_occupancy / occ - 1) < 0.02, "KV used %g vs %g", r.kv_occupancy,
                  occ);
    ck_assert_msg(r.prefill_mean_batch >= 1 && r.prefill_mean_batch <= 5, "prefill batch %g",
                  r.prefill_mean_batch);
    ck_assert(r.prefill_kv_occupancy > 0 && r.prefill_kv_occupancy < r.kv_occupancy);
    /* colocated: no prefill server, none of its figures */
    c.prefill_chips = 0;
    k->n = 0;
    r = run(t, &c);
    ck_assert_double_eq(r.prefill_mean_batch, 0);
    ck_assert_double_eq(r.prefill_kv_occupancy, 0);
    free(k);
    free(t);
}
END_TEST

/* The decode server pulls the KV when it has blocks for it; until then
 * the prefill server holds it, and the wait is in TTFT. Llama-3-8B, a
 * prefill server of 2 H100s and a decode server of 1 at a memory share of
 * 0.2055: 16.44 GB less 16.06 GB of weights and 256 sequences' workspace
 * leave the decode server 96 blocks of 16 tokens (2 MiB each), between 64
 * and 125: one request of 1000 + 16 tokens fits (63 blocks at its pull, for
 * 1001 tokens; 64 at its last token, 1015), two do not (126). Two requests
 * at t = 0: one prefill step of both prompts (2000 tokens, pre); A is
 * pulled at once and lands at pre + x (x: 1000 tokens' KV, 131,072,000 B,
 * over NVLink, 3 chips in one domain); its 15 decode steps at contexts
 * 1000 .. 1014 take D; only when it finishes, at pre + x + D, do 64 blocks
 * come free and B's pull start: B's TTFT = pre + 2 x + D (it read pre + x,
 * its KV held in no pool while it waited), its E2E that + D. The prefill
 * server held both prompts' 63 blocks each; the decode server never more
 * than 64. */
START_TEST(test_disagg_backpressure)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 2;
    c.prompt.mean = 1000;
    c.output.mean = 16;
    c.prefill_chips = 2;
    c.mem_util = 0.2055;
    struct recs k = {0};
    c.on_request = keep;
    c.on_request_ctx = &k;
    struct ic_sim_cfg c2 = c;
    c2.dec.chips = 2;
    const double pre = step(t, &c2, 0, 0, 2, 2000, 0);
    const double x = ic_disagg_kv_transfer_s(&t->st, &t->h, 1000, c.dec.kv, 2, 1, 3);
    ck_assert_msg(ic_test_rel(x, 131072000.0 / 450e9 + 2e-6) < 1e-12, "transfer %g", x);
    double D = 0;
    for (int i = 0; i < 15; i++)
        D += dec1(t, &c, 1000 + i);
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.kv_blocks, 96);
    ck_assert_uint_eq(k.n, 2);
    ck_assert_uint_eq(r.handoffs, 2);
    ck_assert_uint_eq(r.preemptions, 0);
    const struct ic_sim_request *a = &k.r[0], *b = &k.r[1];
    ck_assert_uint_eq(a->index, 0);
    ck_assert_msg(ic_test_rel(a->ttft_s, pre + x) < 1e-9, "A's TTFT %g vs %g", a->ttft_s,
                  pre + x);
    ck_assert_msg(ic_test_rel(a->e2e_s, pre + x + D) < 1e-9, "A's E2E");
    ck_assert_msg(ic_test_rel(b->ttft_s, pre + 2 * x + D) < 1e-9, "B's TTFT %g vs %g",
                  b->ttft_s, pre + 2 * x + D);
    ck_assert_msg(ic_test_rel(b->e2e_s, pre + 2 * x + 2 * D) < 1e-9, "B's E2E");
    ck_assert_msg(ic_test_rel(b->tpot_s, D / 15) < 1e-9, "B's TPOT");
    ck_assert_uint_eq(r.prefill_peak_blocks, 2 * 63);
    ck_assert_uint_eq(r.peak_blocks, 64);
    /* a prompt of 2000 tokens: its KV (126 blocks) never fits the decode
     * server's 96, though the prefill server's pool holds it */
    c.prompt.mean = 2000;
    c.on_request = NULL;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "2000 prompt and 16 output tokens needs more KV blocks than "
                                "the decode server's pool of 96") &&
                      strstr(e.msg, "can never finish") && strstr(e.hint, "--chips"),
                  "%s / %s", e.msg, e.hint);
    free(t);
}
END_TEST

/* Two hand-offs at once share the links: Llama-3-8B, two prefill servers
 * of one H100 each (round-robin: one request each) feeding one decode
 * server of one, two requests of 1000 / 16 tokens at t = 0. Both prompts
 * end at pre (one prefill of 1000 tokens, each on its own server); the
 * decode server pulls both at once, and its links carry one hand-off at a
 * time: request 0 lands at pre + x, request 1 at pre + 2x (at pre + x
 * both, were two sends over the same links each as fast as one alone).
 * x = 1000 x 131072 B / 450 GB/s + 2 us (NVLink: 3 chips in one domain). */
START_TEST(test_disagg_handoffs_share_links)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 2;
    c.prompt.mean = 1000;
    c.output.mean = 16;
    c.prefill_chips = 1;
    c.prefill_servers = 2;
    c.replicas = 1;
    struct recs k = {0};
    c.on_request = keep;
    c.on_request_ctx = &k;
    const double pre = step(t, &c, 0, 0, 1, 1000, 0);
    const double x = ic_disagg_kv_transfer_s(&t->st, &t->h, 1000, c.dec.kv, 1, 1, 3);
    ck_assert_msg(ic_test_rel(x, 131072000.0 / 450e9 + 2e-6) < 1e-12, "transfer %g", x);
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(k.n, 2);
    ck_assert_uint_eq(r.handoffs, 2);
    for (int i = 0; i < 2; i++) {
        const struct ic_sim_request *q = &k.r[i];
        const double want = pre + (double)(q->index + 1) * x;
        ck_assert_msg(ic_test_rel(q->ttft_s, want) < 1e-9, "request %llu: TTFT %.9g vs %.9g",
                      (unsigned long long)q->index, q->ttft_s, want);
    }
    free(t);
}
END_TEST

/* The decode pool the bottleneck (the audit's case): Llama-3-8B on 1 + 1
 * H100s at a memory share of 0.25 (1,793 blocks a server), 200 requests
 * of 1000 / 1000 tokens at t = 0. Every request and token is accounted
 * for, the run's closing check finds every block back in its pool (else
 * it fails), and neither server ever held more than its pool. A sequence
 * on the decode server holds at least 63 blocks (1001 tokens) from its pull
 * to its finish, so at no time are more than 1793 / 63 = 28 requests past
 * their first token and not done (those never preempted: a preempted one
 * gives its blocks back); the old hand-off, which held the KV in no pool
 * while it waited, had every first token out by 7.2 s and up to ~170 such
 * requests at once (14 now). So the wait is in TTFT: unimpeded, the
 * prefill server runs the 200 prompts in about 25 full steps (200,000 /
 * 8192 tokens), each about T9 (9 chunks of 8192 tokens in all at a cached
 * length of 1000): 7.63 s, about when the old run had every first token
 * out (7.2 s); now the median request's first token waits for some 70
 * requests to decode their 1000 tokens (31.5 s). */
START_TEST(test_disagg_decode_pool_full)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 200;
    c.prompt.mean = 1000;
    c.output.mean = 1000;
    c.prefill_chips = 1;
    c.mem_util = 0.25;
    struct all_recs *k = calloc(1, sizeof *k);
    c.on_request = keep_all;
    c.on_request_ctx = k;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.kv_blocks, 1793);
    ck_assert_uint_eq(r.prefill_kv_blocks, 1793);
    ck_assert_uint_eq(r.completed, 200);
    ck_assert_uint_eq(r.handoffs, 200);
    ck_assert_uint_eq(r.prompt_tokens, 200 * 1000);
    ck_assert_uint_eq(r.output_tokens, 200 * 1000);
    ck_assert_uint_le(r.peak_blocks, r.kv_blocks);
    ck_assert_uint_le(r.prefill_peak_blocks, r.prefill_kv_blocks);
    /* the most requests past their first token at once (events in time
     * order, a finish before a first token at the same time) */
    size_t most = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (k->pre[i])
            continue;
        size_t at = 0;
        for (size_t j = 0; j < k->n; j++)
            at += !k->pre[j] && k->first[j] <= k->first[i] && k->fin[j] > k->first[i];
        most = at > most ? at : most;
    }
    ck_assert_msg(most >= 2 && most <= 1793 / 63, "%zu requests hold decode blocks at once",
                  most);
    const double T9 = step(t, &c, 0, 0, 9, 8192, 1000);
    double ttft[200];
    memcpy(ttft, k->ttft, sizeof ttft);
    qsort(ttft, 200, sizeof ttft[0], cmp_double);
    ck_assert_msg(ttft[99] > 25 * T9, "median TTFT %g s, under the prefill server's %g s alone",
                  ttft[99], 25 * T9);
    ck_assert_msg(ic_test_rel(r.ttft.p[0], ttft[99]) < 3e-3, "TTFT p50 %g", r.ttft.p[0]);
    free(k);
    free(t);
}
END_TEST

/* A decode server serves its running sequences before it pulls: Llama-3-8B,
 * 1 + 1 H100s at a memory share of 0.25 (1793 blocks a server). Request A
 * (prompt 28000, output 600) is pulled into ceil(28001 / 16) = 1751
 * blocks and grows to ceil(28600 / 16) = 1788: 37 more, one each 16
 * tokens. Request B (500 / 3) needs ceil(501 / 16) = 32 blocks to be
 * pulled, free while A holds 10 more (1793 - 1761 = 32) and never again
 * once it takes its 11th. B arrives at 2.48 s: its prompt is ready in the
 * step where A takes that 11th block. A takes it first, and B waits for A
 * to finish (its first token after A's last). Pulled first, B took the 32
 * blocks, A skipped its token until B landed, and B, the newest sequence,
 * was then preempted and computed again on the decode server. */
START_TEST(test_disagg_running_first)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    char path[64];
    ic_test_write_tmp(path, "arrival_s,prompt,output\n0,28000,600\n2.48,500,3\n");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    c.prefill_chips = 1;
    c.mem_util = 0.25;
    struct all_recs *k = calloc(1, sizeof *k);
    c.on_request = keep_all;
    c.on_request_ctx = k;
    struct ic_sim_result r = run(t, &c);
    ck_assert_uint_eq(r.kv_blocks, 1793);
    ck_assert_uint_eq(r.completed, 2);
    ck_assert_uint_eq(r.handoffs, 2);
    ck_assert_uint_eq(r.preemptions, 0);
    ck_assert_uint_eq(k->pre[0] + k->pre[1], 0);
    ck_assert_msg(k->first[1] >= k->fin[0], "B's first token at %.6f s, A's last at %.6f s",
                  k->first[1], k->fin[0]);
    /* the most blocks held at once: A's 1788 alone (1761 + 32 = 1793,
     * the whole pool, with B pulled beside it) */
    ck_assert_uint_eq(r.peak_blocks, 1788);
    free(k);
    unlink(path);
    free(t);
}
END_TEST

/* A sliding-window model's request that the pool cannot take at prefill
 * chunks of --max-tokens, though smaller ones fit: Mistral 7B (every
 * layer a window of 4096) on one H100 at a memory share of 0.195, a pool
 * of 532 blocks, a prompt of 20000 tokens and one sequence at a time. In
 * a chunk of f tokens past the window a sequence holds 4095 + f + 16
 * tokens: ceil(8303 / 16) = 769 blocks at f = 8192; at most 532 blocks
 * where f <= 532 x 16 - 4111 = 4401; its decode steps 257. The refusal
 * names --max-tokens 4401, which runs; 4402 is refused. */
START_TEST(test_window_chunk_refusal)
{
    struct ic_test_pair *t = ic_test_pair("mistral-7b", "h100");
    struct ic_sim_cfg c = ic_sim_defaults();
    c.requests = 1;
    c.prompt.mean = 20000;
    c.output.mean = 10;
    c.max_seqs = 1;
    c.mem_util = 0.195;
    struct ic_sim_result r;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "the pool's 532 (of 16 tokens each) with prefill chunks of up "
                                "to 8192 tokens (--max-tokens): it can never finish") &&
                      strstr(e.hint, "--max-tokens 4401 or less lets it finish"),
                  "%s / %s", e.msg, e.hint);
    c.max_tokens = 4402;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.hint, "--max-tokens 4401 or less"), "%s", e.hint);
    c.max_tokens = 4401;
    r = run(t, &c);
    ck_assert_uint_eq(r.completed, 1);
    ck_assert_uint_eq(r.peak_blocks, 532);
    /* a prompt no chunk lets fit (a dense model holds every token): the
     * plain refusal, no --max-tokens */
    free(t);
    t = ic_test_pair("llama3-8b", "h100");
    c = ic_sim_defaults();
    c.requests = 1;
    c.max_seqs = 1;
    c.prompt.mean = 3000000;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(!strstr(e.hint, "--max-tokens") && strstr(e.msg, "the pool's 26673"), "%s",
                  e.hint);
    free(t);
    /* a pool under the chunk (304 blocks, 4,864 tokens, at a memory share
     * of 0.19; three requests of 20,000 / 50): the prompt's first chunk of
     * 8,192 never fits, so the run ends with them waiting, refused as in a
     * step: 304 x 16 - (4,095 + 16) = 753 names --max-tokens, and 753 runs
     * where 754 does not */
    t = ic_test_pair("mistral-7b", "h100");
    c = ic_sim_defaults();
    c.requests = 3;
    c.prompt.mean = 20000;
    c.output.mean = 50;
    c.mem_util = 0.19;
    e = (struct ic_err){0};
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "the pool's 304") && strstr(e.hint, "--max-tokens 753 or less"),
                  "%s / %s", e.msg, e.hint);
    c.max_tokens = 754;
    ck_assert_int_eq(ic_sim_run(&t->st, &t->h, &c, &r, &e), IC_EINVAL);
    c.max_tokens = 753;
    r = run(t, &c);
    ck_assert_uint_eq(r.kv_blocks, 304);
    ck_assert_uint_eq(r.completed, 3);
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
    tcase_add_test(tc, test_window_blocks);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_trace_two_requests);
    tcase_add_test(tc, test_trace_errors);
    tcase_add_test(tc, test_prefix_hit_share);
    tcase_add_test(tc, test_prefix_by_id);
    tcase_add_test(tc, test_prefix_eviction);
    tcase_add_test(tc, test_disagg_lone);
    tcase_add_test(tc, test_disagg_ratio);
    tcase_add_test(tc, test_fleet);
    tcase_add_test(tc, test_littles_law_layouts);
    tcase_add_test(tc, test_swap);
    tcase_add_test(tc, test_deterministic_all);
    tcase_add_test(tc, test_request_beyond_pool);
    tcase_add_test(tc, test_pool_without_room);
    tcase_add_test(tc, test_far_clock);
    tcase_add_test(tc, test_long_latency_percentiles);
    tcase_add_test(tc, test_prefix_share_under_preemption);
    tcase_add_test(tc, test_prefill_first_budget);
    tcase_add_test(tc, test_capacity_wide_bracket);
    tcase_add_test(tc, test_linear_attention_state_blocks);
    tcase_add_test(tc, test_disagg_decode_batch);
    tcase_add_test(tc, test_disagg_backpressure);
    tcase_add_test(tc, test_disagg_decode_pool_full);
    tcase_add_test(tc, test_disagg_handoffs_share_links);
    tcase_add_test(tc, test_disagg_running_first);
    tcase_add_test(tc, test_window_chunk_refusal);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
