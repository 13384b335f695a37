/* The published-measurement CSV (ic_published): reading rows, refusing
 * malformed ones at their line:column, the error statistics and one row's
 * prediction, each against hand arithmetic. */
#include "ic_engine.h"
#include "ic_published.h"
#include "ic_sim.h"
#include "ic_test.h"
#include "ic_test_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIX IC_TEST_DIR "/fixtures/published/"

START_TEST(test_rows_read)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_pub_load(FIX "good.csv", &r, &n, &e), IC_OK);
    ck_assert_uint_eq(n, 4); /* the blank line is skipped */
    ck_assert_str_eq(r[0].id, "r1");
    ck_assert_uint_eq(r[0].line, 2);
    ck_assert(!r[0].calibration);
    ck_assert_int_eq(r[0].kind, IC_PUB_DECODE_B1);
    ck_assert_str_eq(r[0].engine, "gpt-fast");
    ck_assert_str_eq(r[0].source, "A blog, with a comma and \"quotes\"");
    ck_assert_uint_eq(r[0].input_tokens, 1023);
    ck_assert_int_eq(r[0].quantity, IC_PUBQ_TOKENS_PER_S_PER_SEQ);
    ck_assert_double_eq(r[0].value, 100);
    /* 100 tokens/s of one sequence: 10 ms a token */
    ck_assert_double_eq_tol(ic_pub_measured_tpot_s(&r[0]), 0.01, 1e-15);
    /* 8 sequences in flight over 2 replicas give 400 tokens/s: each sequence
     * 50 tokens/s, 20 ms a token */
    ck_assert_uint_eq(r[1].chips, 16);
    ck_assert_uint_eq(r[1].tp, 8);
    ck_assert_double_eq_tol(ic_pub_measured_tpot_s(&r[1]), 8.0 / 400.0, 1e-15);
    ck_assert(r[2].calibration);
    ck_assert_double_eq_tol(r[2].value, 5.5e-3, 1e-15);
    ck_assert_uint_eq(r[3].line, 6);
    ck_assert_int_eq(r[3].kind, IC_PUB_THROUGHPUT_OFFLINE);
    free(r);
    /* the same file after a UTF-8 byte-order mark: the same rows (the
     * mark read as part of the first column's name: "no column 'id'") */
    r = NULL;
    ck_assert_int_eq(ic_pub_load(FIX "good-bom.csv", &r, &n, &e), IC_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(r[0].id, "r1");
    ck_assert_double_eq(r[0].value, 100);
    free(r);
}
END_TEST

static void refused(const char *file, unsigned line, unsigned col, const char *msg)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    char path[512];
    snprintf(path, sizeof path, FIX "%s", file);
    ck_assert_int_eq(ic_pub_load(path, &r, &n, &e), IC_EINVAL);
    ck_assert_msg(e.line == line && e.col == col, "%s: at %u:%u, expected %u:%u (%s)", file, e.line,
                  e.col, line, col, e.msg);
    ck_assert_msg(strstr(e.msg, msg), "%s: '%s' lacks '%s'", file, e.msg, msg);
    ck_assert_msg(e.hint[0], "%s: no hint", file);
}

START_TEST(test_rows_refused)
{
    /* The value 12 is the 17th field, after "r1," (3) "validation," (14)
     * "decode_b1," (24) "e,1," (28) "h100," (33) "1,1," (37) "llama3-8b,"
     * (47) "bf16," x 3 (62) "1,10,10," (70) "tpot," (75): column 76; the
     * unclosed quote opens after six more (",12,ms,"): column 82. */
    refused("bad-unit.csv", 2, 76, "'12 GB/s'");
    refused("bad-kind.csv", 2, 15, "unknown kind"); /* after "r1,validation," */
    refused("bad-quote.csv", 2, 82, "a quoted field never ends");
    refused("bad-no-source.csv", 1, 1, "no column 'source'");
    /* tp after "r1,validation,decode_b1,e,1,h100,16," (36 characters) */
    refused("bad-tp.csv", 2, 37, "tp must divide chips");
    /* input_tokens after "r1,validation,decode_b1,e,1,h100,1,1,llama3-8b,
     * bf16,bf16,bf16,1," (64 characters): 67,108,000 + 1000 tokens, each
     * within 2^26 = 67,108,864, together 136 over it */
    refused("bad-context.csv", 2, 65, "input_tokens + output_tokens is 67109000, over 67108864");
    /* includes_prefill after the 19 fields "r1,...,src of row," (92
     * characters); on a throughput row after 122 */
    refused("bad-prefill.csv", 2, 93, "includes_prefill must be yes, interleaved, no or empty");
    /* an interleaved row of a step time (after "...,src of row," 97); and
     * max_batched_tokens on a row that is not interleaved (after "...,src
     * of row,yes," 96) */
    refused("bad-interleaved.csv", 2, 98, "an interleaved row states a serving run's tpot");
    refused("bad-max-tokens.csv", 2, 97, "max_batched_tokens is for interleaved rows");
    /* a batch's whole time on a row that says it holds no prefill: at
     * includes_prefill, after "...,12,s,src of row," (98) */
    refused("bad-e2e.csv", 2, 99, "an e2e_latency row includes its prefill");
    /* a step time that includes a prefill (after "...,src of row," 97); a
     * prefill without a prompt (input 0: 91); a budget under the batch of 8
     * (after "...,src of row,interleaved," 113) */
    refused("bad-prefill-step.csv", 2, 98, "not a step time or a median ITL");
    refused("bad-prefill-noprompt.csv", 2, 92, "needs a prompt");
    refused("bad-max-tokens-small.csv", 2, 114, "max_batched_tokens is below the batch");
    refused("bad-prefill-tput.csv", 2, 123, "includes_prefill is for decode rows");
    /* a header alone (the line after it); an id twice (the second, at its
     * start); a field beyond the header's 19; values out of range, at the
     * value (after "...,tokens_per_s_per_seq," 91; "...,tpot," 75) */
    refused("bad-header-only.csv", 2, 1, "no rows after the header");
    refused("bad-dup-id.csv", 3, 1, "an id given twice");
    refused("bad-extra-field.csv", 2, 1, "20 fields; the header names 19");
    refused("bad-huge-value.csv", 2, 92, "a measured rate from 0.001 to 1e9 tokens/s");
    refused("bad-tiny-time.csv", 2, 76, "a measured time from 1 us to 1 day");
    /* concurrency 2 on one chip (after "r1,...,bf16," 62 characters) */
    refused("bad-b1-batch.csv", 2, 63, "a decode_b1 row runs one sequence a replica");
    /* a date that is none (after "...,src of row,table 1," 100); an
     * escape in the id (its second character), a byte that is not UTF-8 in
     * the engine version (after "r1,validation,decode_b1,e,1" 27): the
     * tables printed them raw */
    refused("bad-date.csv", 2, 101, "'source_date': expected YYYY-MM-DD, YYYY-MM or YYYY");
    refused("bad-control.csv", 2, 2, "'id': a control character");
    refused("bad-utf8.csv", 2, 28, "'engine_version': a byte that is not UTF-8");
    /* a misspelt optional column (after the 19 names and their commas, 137
     * characters), which was dropped without a word and the row read as
     * decode only; a throughput row of a time per token (its quantity
     * after "r1,validation,throughput_offline,e,1,h100,1,1,llama3-8b,"
     * (56 characters) "bf16," x 3 (71) "8,10,10," (79));
     * an engine with a space after it (after "r1,validation,decode_b1,"
     * 24), which matched no profile and grouped apart */
    refused("bad-column-typo.csv", 1, 138, "unknown column 'include_prefill'");
    /* a column of the user's own near a required one's name (pp, tpot: one
     * or two edits from tp) is read as theirs, not as a typo */
    {
        char path[64];
        ic_test_write_tmp(path, "id,use,kind,engine,engine_version,hw,chips,tp,pp,tpot,model,"
                                "weights,kv,compute,concurrency,input_tokens,output_tokens,"
                                "quantity,value,unit,source\nr1,validation,decode_b1,e,1,h100,"
                                "1,1,1,x,llama3-8b,bf16,bf16,bf16,1,10,10,tpot,12,ms,src of row\n");
        struct ic_pub_row *r = NULL;
        size_t n = 0;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_pub_load(path, &r, &n, &e), IC_OK);
        ck_assert_uint_eq(n, 1);
        free(r);
        remove(path);
    }
    refused("bad-tput-tpot.csv", 2, 80, "a throughput row states output_tokens_per_s");
    refused("bad-name-space.csv", 2, 25, "a name with spaces around it");
}
END_TEST

START_TEST(test_stats)
{
    /* |e| sorted 0.05 0.1 0.2 0.3 0.5: median 0.2; p90 at (5 - 1) x 0.9 =
     * 3.6: 0.3 + 0.6 x (0.5 - 0.3) = 0.42; e sorted -0.5 -0.3 0.05 0.1 0.2:
     * median 0.05 */
    const double e[] = {-0.5, 0.1, 0.2, -0.3, 0.05};
    struct ic_pub_stats s;
    ck_assert_int_eq(ic_pub_stats(e, 5, &s), IC_OK);
    ck_assert_uint_eq(s.n, 5);
    ck_assert_double_eq_tol(s.median_abs, 0.2, 1e-15);
    ck_assert_double_eq_tol(s.p90_abs, 0.42, 1e-15);
    ck_assert_double_eq_tol(s.median_signed, 0.05, 1e-15);
    ck_assert_int_eq(ic_pub_stats(e, 0, &s), IC_OK);
    ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(test_predict)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_pub_load(FIX "good.csv", &r, &n, &e), IC_OK);
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_pub_eval v;
    /* r1: batch 1 at context 1023 + 1 = 1024 on one H100, memory bound:
     * weights 15,009,849,344 B (all but the embedding, bf16) + cache 1024
     * tokens read and 1 written x 131,072 B = 134,348,800 B, over 3.35e12
     * B/s: 4.5206561 ms against 10 ms measured: e = -0.5479344. The frozen
     * h100 has no achieved section: no expected time. */
    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert(v.evaluated);
    ck_assert_uint_eq(v.batch, 1);
    ck_assert_uint_eq(v.context, 1024);
    ck_assert_double_eq_tol(v.ideal_s, 15144198144.0 / 3.35e12, 1e-12);
    ck_assert_double_eq_tol(v.e_ideal, 15144198144.0 / 3.35e12 / 0.01 - 1, 1e-9);
    ck_assert(!v.has_expected);
    ck_assert_ptr_nonnull(strstr(v.no_expected, "no measured or achieved"));
    /* r2: 8 in flight over 16 / 8 = 2 replicas: batch 4; context 1000 + 24 */
    ck_assert_int_eq(ic_pub_predict(&r[1], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert_uint_eq(v.batch, 4);
    ck_assert_uint_eq(v.context, 1024);
    /* r2 with 1,000,000 in flight: batch 500,000 a replica, whose cache
     * alone, 500,000 x 1024 tokens x 131,072 B over 8 chips, is 8.4 TB a
     * chip of an H100's 80 GB: refused, not predicted */
    struct ic_pub_row big = r[1];
    big.concurrency = 1000000;
    ck_assert_int_eq(ic_pub_predict(&big, &t->st, &t->h, NULL, &v, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "its batch of 500000 at context 1024 does not fit"));
    /* r4: throughput at high load is not a decode step; its throughput
     * prediction: llama3-70b on 8 H100s (one replica), batch limit 256,
     * 1000 in / 1000 out. The closed form is 256 / (the decode step at
     * batch 256, context 1000 + 500) per replica, computed here with
     * ic_decode. The simulation (frozen h100: the ideal bound, prefill at
     * MFU 0.4) also spends time prefilling 256,000 prompt tokens, so it is
     * below the closed form, and above 256,000 tokens over the time of
     * every prefill run alone (256 x one 1000-token prefill step) plus 1000
     * decode steps at the most any of them holds (batch 256, context 2000) */
    ck_assert_int_eq(ic_pub_predict(&r[3], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert(!v.evaluated);
    struct ic_test_pair *t70 = ic_test_pair("llama3-70b", "h100");
    ck_assert_int_eq(ic_pub_predict_throughput(&r[3], &t70->st, &t70->h, NULL, &v, &e), IC_OK);
    ck_assert(v.throughput);
    ck_assert(!v.sim_expected);
    ck_assert_uint_eq(v.sim_max_seqs, 256);
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 8;
    c.batch = 256;
    c.context = 1500;
    struct ic_point p = ic_test_decode("llama3-70b", "h100", c);
    ck_assert(p.fits);
    ck_assert_double_eq_tol(v.tput_closed, 256 / p.step_s, 1e-9 * v.tput_closed);
    ck_assert_double_eq_tol(v.e_closed, 5000 / v.tput_closed - 1, 1e-12);
    struct ic_sim_cfg sc = ic_sim_defaults();
    sc.dec.chips = 8;
    double P1, D;
    ck_assert_int_eq(ic_sim_step_s(&t70->st, &t70->h, &sc, 0, 0, 1, 1000, 0, &P1, &e), IC_OK);
    ck_assert_int_eq(ic_sim_step_s(&t70->st, &t70->h, &sc, 256, 2000, 0, 0, 0, &D, &e), IC_OK);
    const double floor_tput = 256000.0 / (256 * P1 + 1000 * D);
    ck_assert_msg(v.tput_sim < v.tput_closed && v.tput_sim > floor_tput,
                  "sim %g, closed %g, floor %g", v.tput_sim, v.tput_closed, floor_tput);
    free(t70);
    free(t);
    free(r);
}
END_TEST

/* Which profile a row's engine column selects (exact version, one the
 * profile lists, one whose version leads the row's; none for an unstated
 * version), and a row predicted with one: r1 of good.csv (Llama-3-8B,
 * batch 1, context 1024, 10 ms measured) on the achieved H100 fixture is
 * 6.248962 ms without a profile (test_decode's hand arithmetic); the test
 * profile (tests/fixtures/engine-test.yaml) adds 0.96 ms of launches, 1 ms
 * of host time and 134,217,728 / 2.7e12 x (1 / 0.8 - 1) = 12.4276 us of
 * the attention's cache read (1024 cached tokens of 131,072 B; the new
 * token's write at the GEMV bandwidth): 8.221390 ms, e = -0.1778610. */
START_TEST(test_engine_selected)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_pub_load(FIX "good.csv", &r, &n, &e), IC_OK);
    struct ic_engine *pr = calloc(4, sizeof *pr);
    ck_assert_int_eq(ic_engine_load(IC_SRC_DIR "/enginedb/vllm-0.6.yaml", &pr[0], &e), IC_OK);
    ck_assert_int_eq(ic_engine_load(IC_SRC_DIR "/enginedb/vllm-0.19.yaml", &pr[1], &e), IC_OK);
    ck_assert_int_eq(ic_engine_load(IC_TEST_DIR "/fixtures/engine-test.yaml", &pr[2], &e), IC_OK);
    ck_assert_int_eq(ic_engine_load(IC_SRC_DIR "/enginedb/vllm-0.10.yaml", &pr[3], &e), IC_OK);
    char why[160];
    struct ic_pub_row q = r[1]; /* vllm 0.6.0: "0.6" leads it */
    ck_assert_ptr_eq(ic_pub_engine_for(&q, pr, 4, why, sizeof why), &pr[0]);
    ck_assert_ptr_nonnull(strstr(why, "leads"));
    snprintf(q.engine_version, sizeof q.engine_version, "0.19.1");
    ck_assert_ptr_eq(ic_pub_engine_for(&q, pr, 4, why, sizeof why), &pr[1]);
    snprintf(q.engine_version, sizeof q.engine_version, "0.10.0");
    ck_assert_ptr_eq(ic_pub_engine_for(&q, pr, 4, why, sizeof why), &pr[3]);
    snprintf(q.engine_version, sizeof q.engine_version, "0.1");
    ck_assert_ptr_null(ic_pub_engine_for(&q, pr, 4, why, sizeof why));
    snprintf(q.engine_version, sizeof q.engine_version, "0.60");
    ck_assert_ptr_null(ic_pub_engine_for(&q, pr, 4, why, sizeof why));
    snprintf(q.engine_version, sizeof q.engine_version, "unstated");
    ck_assert_ptr_null(ic_pub_engine_for(&q, pr, 4, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "the row states no version of vllm"));
    /* even where a profile's version reads 'unstated' (which the loader
     * refuses: test_engine_unstated) */
    snprintf(pr[0].version, sizeof pr[0].version, "unstated");
    ck_assert_ptr_null(ic_pub_engine_for(&q, pr, 4, why, sizeof why));
    snprintf(pr[0].version, sizeof pr[0].version, "0.6");
    /* an engine named in another case is the same engine */
    snprintf(pr[0].engine, sizeof pr[0].engine, "vLLM");
    snprintf(q.engine_version, sizeof q.engine_version, "0.6.0");
    ck_assert_ptr_eq(ic_pub_engine_for(&q, pr, 4, why, sizeof why), &pr[0]);
    snprintf(pr[0].engine, sizeof pr[0].engine, "vllm");
    /* two versions leading the row's: the longer, in either order of the
     * files ('0.6' sorts first here, and led before) */
    char keep[sizeof pr[1].version];
    memcpy(keep, pr[1].version, sizeof keep);
    snprintf(pr[1].version, sizeof pr[1].version, "0.6.3");
    snprintf(q.engine_version, sizeof q.engine_version, "0.6.3.post1");
    ck_assert_ptr_eq(ic_pub_engine_for(&q, pr, 4, why, sizeof why), &pr[1]);
    memcpy(pr[1].version, keep, sizeof keep);
    snprintf(q.engine, sizeof q.engine, "sglang");
    ck_assert_ptr_null(ic_pub_engine_for(&q, pr, 4, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "no sglang profile"));
    /* a version the profile lists */
    snprintf(pr[2].versions[0], sizeof pr[2].versions[0], "2023-11");
    pr[2].n_versions = 1;
    snprintf(pr[2].engine, sizeof pr[2].engine, "gpt-fast");
    ck_assert_ptr_eq(ic_pub_engine_for(&r[0], pr, 4, why, sizeof why), &pr[2]);
    ck_assert_ptr_nonnull(strstr(why, "listed"));

    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_pub_eval v;
    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, &pr[2], &v, &e), IC_OK);
    ck_assert(v.has_expected && v.engine_used);
    ck_assert_double_eq_tol(v.expected_noeng_s, 6.248962e-3, 1e-9);
    ck_assert_double_eq_tol(v.expected_s, 8.221390e-3, 1e-9);
    ck_assert_double_eq_tol(v.e_expected, 8.221390e-3 / 0.01 - 1, 1e-7);
    ck_assert_double_eq_tol(v.e_expected_noeng, 6.248962e-3 / 0.01 - 1, 1e-7);
    /* vllm-0.10: graphs and kernels as a good engine's, no attention
     * figure, an int4 figure only (the row is bf16): the good engine's
     * 6.248962 ms + its 0.5 ms of host time a step = 6.748962 ms */
    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, &pr[3], &v, &e), IC_OK);
    ck_assert(v.engine_used);
    ck_assert_double_eq_tol(v.expected_s, 6.748962e-3, 1e-9);
    /* no profile: both the same */
    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert(!v.engine_used);
    ck_assert_double_eq(v.expected_s, v.expected_noeng_s);
    free(t);
    free(pr);
    free(r);
}
END_TEST

/* Rows whose figure includes the prompts' prefill (includes_prefill yes):
 * the time per output token is (one prefill step of the batch's prompts +
 * (output - 1) decode steps) / output, on the frozen H100 (3.35e12 B/s,
 * 989e12 bf16 FLOP/s, the prefill at the peak too: a bound) with
 * Llama-3-8B: 15,009,849,344 weight bytes (all but the embedding), 131,072
 * cache bytes a token.
 *  p1: batch 1, a 1-token prompt, 4 out. The prefill reads the weights and
 *    its token's k and v (a step's attention reads the new tokens' too) and
 *    writes them: 15,010,111,488 B / 3.35e12; its 2 x 7.5e9
 *    FLOPs take 15 us at 989e12, under the 4.48 ms of reads. The decode
 *    step at context 1 + 2 = 3 reads 3 tokens and writes 1:
 *    15,010,373,632 B / 3.35e12. Per token: (P + 3 D) / 4; measured 5 ms.
 *  p2: batch 8, 1000-token prompts, 2 out (one decode step). The prefill
 *    is compute-bound: per sequence 2 x 1000 x 7,504,924,672 active
 *    parameters (the head's 525,336,576 included) less 2 x 999 x the head
 *    (logits of the last token only) = 13,960,226,865,152 FLOPs of linear
 *    layers, and causal attention 4 x 32 heads x 128 x 32 layers x (1 + 2
 *    + ... + 1000 = 500,500) = 262,406,144,000; 8 sequences over 989e12
 *    FLOP/s (its reads, 15.01e9 + 8000 x 131,072 B, take 4.8 ms). The
 *    decode at context 1001: (15,009,849,344 + 8 x 1002 x 131,072) B /
 *    3.35e12. Per token (P + D) / 2 against 8 / 100 tokens/s = 80 ms.
 *  p3, p4 (no, empty): the decode step alone.
 *  p6: p2 stated as the batch's whole time, 0.2 s for 2 output tokens:
 *    0.1 s a token, predicted as p2. */
START_TEST(test_prefill_rows)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_pub_load(FIX "prefill.csv", &r, &n, &e), IC_OK);
    ck_assert_uint_eq(n, 6);
    ck_assert(r[0].prefill == IC_PUB_PREFILL_STATIC && r[1].prefill == IC_PUB_PREFILL_STATIC);
    ck_assert_int_eq(r[5].quantity, IC_PUBQ_E2E_LATENCY);
    ck_assert_double_eq_tol(ic_pub_measured_tpot_s(&r[5]), 0.1, 1e-15);
    ck_assert(!r[2].prefill && !r[3].prefill && !r[4].prefill);
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_pub_eval v;

    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, NULL, &v, &e), IC_OK);
    const double P1 = 15010111488.0 / 3.35e12, D1 = 15010373632.0 / 3.35e12;
    ck_assert(v.with_prefill);
    ck_assert_double_eq_tol(v.ideal_prefill_s, P1, 1e-12 * P1);
    ck_assert_double_eq_tol(v.ideal_step_s, D1, 1e-12 * D1);
    ck_assert_double_eq_tol(v.ideal_s, (P1 + 3 * D1) / 4, 1e-12 * D1);
    ck_assert_double_eq_tol(v.e_ideal, (P1 + 3 * D1) / 4 / 0.005 - 1, 1e-9);

    ck_assert_int_eq(ic_pub_predict(&r[1], &t->st, &t->h, NULL, &v, &e), IC_OK);
    const double P2 = 8 * (13960226865152.0 + 262406144000.0) / 989e12;
    const double D2 = (15009849344.0 + 8 * 1002 * 131072.0) / 3.35e12;
    ck_assert_double_eq_tol(v.ideal_prefill_s, P2, 1e-12 * P2);
    ck_assert_double_eq_tol(v.ideal_step_s, D2, 1e-12 * D2);
    ck_assert_double_eq_tol(v.ideal_s, (P2 + D2) / 2, 1e-12 * P2);
    ck_assert_double_eq_tol(v.e_ideal, (P2 + D2) / 2 / 0.08 - 1, 1e-9);
    ck_assert_int_eq(ic_pub_predict(&r[5], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert_double_eq_tol(v.ideal_s, (P2 + D2) / 2, 1e-12 * P2);
    ck_assert_double_eq_tol(v.e_ideal, (P2 + D2) / 2 / 0.1 - 1, 1e-9);

    for (int i = 2; i < 4; i++) {
        ck_assert_int_eq(ic_pub_predict(&r[i], &t->st, &t->h, NULL, &v, &e), IC_OK);
        ck_assert(!v.with_prefill);
        ck_assert_double_eq(v.ideal_prefill_s, 0);
        ck_assert_double_eq_tol(v.ideal_s, D1, 1e-12 * D1);
    }
    free(t);

    /* the expected estimate composes the same way (achieved H100 fixture) */
    t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    ck_assert_int_eq(ic_pub_predict(&r[1], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert(v.has_expected);
    ck_assert(v.expected_prefill_s > v.expected_step_s);
    ck_assert_double_eq_tol(v.expected_s, (v.expected_prefill_s + v.expected_step_s) / 2,
                            1e-12 * v.expected_s);
    ck_assert_double_eq(v.expected_noeng_s, v.expected_s);
    /* with an engine profile (tests/fixtures/engine-test.yaml: plain
     * launches, host time a step) both steps take it, composed alike */
    struct ic_engine *pr = calloc(1, sizeof *pr);
    ck_assert_int_eq(ic_engine_load(IC_TEST_DIR "/fixtures/engine-test.yaml", pr, &e), IC_OK);
    ck_assert_int_eq(ic_pub_predict(&r[1], &t->st, &t->h, pr, &v, &e), IC_OK);
    ck_assert(v.engine_used);
    ck_assert(v.expected_s > v.expected_noeng_s);
    ck_assert_double_eq_tol(v.expected_s, (v.expected_prefill_s + v.expected_step_s) / 2,
                            1e-12 * v.expected_s);
    free(pr);
    free(t);
    free(r);
}
END_TEST

/* Serving runs whose steps carry arriving requests' prefills (includes_
 * prefill interleaved) are simulated, on the frozen H100 (ideal) with
 * Llama-3-8B (15,009,849,344 weight bytes, 131,072 cache bytes a token):
 *  i1: one request at a time (concurrency 1), 1000 in, 3 out: its prompt's
 *    prefill gives the first token, two decode steps the others, at 1000
 *    and 1001 tokens cached (each reads those and its own, writes one):
 *    TPOT = (W + 1002.5 x 131,072 B) / 3.35e12 = 4.52004 ms; the
 *    simulation keys both contexts at 1008 (within 1.6%), 7.5 tokens of
 *    cache more: within 1e-4. Measured 5 ms.
 *  i2: the same as a median ITL: every gap is one such step (the
 *    histogram's 0.23%).
 *  i3, i4: four at a time, 1000 in, 8 out. With a budget of 8192 tokens
 *    a step (i4) the four prompts prefill in one step and the four decode
 *    together to the end, each wave alike: TPOT is the batch-4 decode step
 *    over contexts 1000-1006, within 1e-3 of the step at 1003 cached
 *    tokens (+1.6% of the cache at most: < 1e-4 of the step). With 512
 *    (i3) the prompts take 8 steps, and the first to finish its prompt
 *    decodes beside the others' chunks: its TPOT holds them, above that
 *    step by more than 5%.
 *  i5: i3 as a median ITL: most gaps there hold a chunk, so the median is
 *    not the mean TPOT (more than 2% apart) and lies between the batch-4
 *    decode step and the heaviest step, three decodes beside a 512-token
 *    chunk at the end of a prompt (488 cached). */
START_TEST(test_interleaved_rows)
{
    struct ic_pub_row *r = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_pub_load(FIX "interleaved.csv", &r, &n, &e), IC_OK);
    ck_assert_uint_eq(n, 5);
    ck_assert_int_eq(r[0].prefill, IC_PUB_PREFILL_INTERLEAVED);
    ck_assert_int_eq(r[1].quantity, IC_PUBQ_ITL_MEDIAN);
    ck_assert_uint_eq(r[2].max_batched_tokens, 512);
    ck_assert_uint_eq(r[3].max_batched_tokens, 0);
    ck_assert_double_eq_tol(ic_pub_measured_tpot_s(&r[1]), 0.005, 1e-15);
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_pub_eval v;
    const double D1 = (15009849344.0 + 1002.5 * 131072) / 3.35e12;
    ck_assert_int_eq(ic_pub_predict(&r[0], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert(v.simulated && v.with_prefill);
    ck_assert_double_eq_tol(v.ideal_s, D1, 1e-4 * D1);
    ck_assert_double_eq_tol(v.e_ideal, v.ideal_s / 0.005 - 1, 1e-12);
    ck_assert_int_eq(ic_pub_predict(&r[1], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert_double_eq_tol(v.ideal_s, D1, 3e-3 * D1);
    /* the batch-4 step at 1003 cached tokens: weights + 4 x 1005 tokens */
    const double D4 = (15009849344.0 + 4 * 1005 * 131072.0) / 3.35e12;
    ck_assert_int_eq(ic_pub_predict(&r[3], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert_double_eq_tol(v.ideal_s, D4, 1e-3 * D4);
    ck_assert_int_eq(ic_pub_predict(&r[2], &t->st, &t->h, NULL, &v, &e), IC_OK);
    ck_assert_msg(v.ideal_s > 1.05 * D4, "TPOT %g against the step %g", v.ideal_s, D4);
    const double tpot3 = v.ideal_s;
    ck_assert_int_eq(ic_pub_predict(&r[4], &t->st, &t->h, NULL, &v, &e), IC_OK);
    struct ic_sim_cfg sc = ic_sim_defaults();
    sc.prefill_mfu = 1;
    double heavy = 0;
    ck_assert_int_eq(ic_sim_step_s(&t->st, &t->h, &sc, 3, 1007, 1, 512, 488, &heavy, &e), IC_OK);
    ck_assert_msg(fabs(v.ideal_s / tpot3 - 1) > 0.02, "ITL %g, TPOT %g", v.ideal_s, tpot3);
    ck_assert_msg(v.ideal_s > D4 && v.ideal_s <= heavy * 1.001, "ITL %g, step %g, heavy %g",
                  v.ideal_s, D4, heavy);
    free(t);
    free(r);
}
END_TEST

/* check-published over a CSV of the columns' header and `rows`, with one
 * option and its value after --measurements (opt NULL: none); the exit
 * status, ic_test_out and ic_test_err holding what it printed. */
static int check_rows(const char *rows, const char *opt, const char *val)
{
    char csv[64], text[1200];
    snprintf(text, sizeof text,
             "id,use,kind,engine,engine_version,hw,chips,tp,model,weights,kv,compute,"
             "concurrency,input_tokens,output_tokens,quantity,value,unit,source\n%s",
             rows);
    ic_test_write_tmp(csv, text);
    const int rc = ic_test_cli("check-published", "--measurements", csv, opt, val, NULL);
    remove(csv);
    return rc;
}

/* The command over a file of the user's: a row faster than its ideal bound
 * warned of (12 us a token for Llama-3-8B on one H100, whose weights alone
 * take 15.0 GB / 3.35 TB/s = 4.48 ms), a normal one not; a row naming no
 * chip fails at its hw field (after "r1,validation,decode_b1,e,1," 28
 * characters); JSON carries the table's groups, the chip by its entry's
 * name (good.csv's rows say h100) and the high-load figure of its one
 * throughput row, which is that row's own error. */
START_TEST(test_command)
{
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,e,1,h100,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,us,src of row\n",
                                NULL, NULL),
                     0);
    ck_assert_ptr_nonnull(strstr(ic_test_err, ":2: row r1 measures 0.012 ms a token, under its "
                                              "ideal bound of 4.4"));
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,e,1,h100,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\n",
                                NULL, NULL),
                     0);
    ck_assert_ptr_null(strstr(ic_test_err, "warning"));
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,e,1,h999,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\n",
                                NULL, NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, ":2:29: error: row r1 (llama3-8b on 1 x h999): "
                                              "unknown hardware 'h999'"));
    /* an unknown model, at its field (after "r1,validation,decode_b1,e,1,h100,1,1," 37);
     * two files of one chip's name (the live and the frozen H100), which
     * would group as one chip, at the second's hw field */
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,e,1,h100,1,1,llama9-9b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\n",
                                NULL, NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, ":2:38: error: row r1 (llama9-9b on 1 x h100)"));
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,e,1,h100,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\nr2,validation,decode_b1,e,1,"
                                IC_TEST_DIR "/frozen/hwdb/h100-sxm.yaml,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\n",
                                NULL, NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, ":3:29: error: row r2"));
    ck_assert_ptr_nonnull(strstr(ic_test_err, "are two entries of one name, h100-sxm"));
    /* an engine in another case groups with its lower-case spelling */
    ck_assert_int_eq(check_rows("r1,validation,decode_b1,vLLM,1,h100,1,1,llama3-8b,bf16,bf16,"
                                "bf16,1,10,10,tpot,12,ms,src of row\nr2,validation,decode_b1,vllm,"
                                "1,h100,1,1,llama3-8b,bf16,bf16,bf16,1,10,10,tpot,12,ms,src of "
                                "row\n",
                                "--format", "json"),
                     0);
    ck_assert_ptr_nonnull(strstr(ic_test_out, "\"by_engine\": [{\"engine\": \"vllm\", "
                                              "\"ideal\": {\"rows\": 2"));
    ck_assert_int_eq(ic_test_cli("check-published", "--measurements", FIX "good.csv", "--format",
                                 "json", NULL),
                     0);
    ck_assert_ptr_nonnull(strstr(ic_test_out, "\"by_chip\": [{\"hw\": \"h100-sxm\""));
    ck_assert_ptr_null(strstr(ic_test_out, "{\"hw\": \"h100\""));
    ck_assert_ptr_nonnull(strstr(ic_test_out, "\"by_engine\": [{\"engine\": \"gpt-fast\""));
    const char *ce = strstr(ic_test_out, "\"closed_form_error\": ");
    ck_assert_ptr_nonnull(ce);
    char want[96];
    snprintf(want, sizeof want, "\"high_load\": {\"closed_form\": {\"rows\": 1, "
                                "\"median_abs_error\": %.10g",
             fabs(strtod(ce + strlen("\"closed_form_error\": "), NULL)));
    ck_assert_msg(strstr(ic_test_out, want), "lacks %s", want);
    /* --plot over a file whose one validation row is a throughput row:
     * refused before any report (it printed the report, then exited 2) */
    ck_assert_int_eq(check_rows("r4,validation,throughput_offline,vllm,0.6.0,h100,8,8,"
                                "llama3-70b,bf16,bf16,bf16,256,1000,1000,output_tokens_per_s,"
                                "5000,tokens/s,src of row\n",
                                "--plot", "cp-none.png"),
                     2);
    ck_assert_str_eq(ic_test_out, "");
    ck_assert_ptr_nonnull(strstr(ic_test_err, "--plot: no validation decode row to draw"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("published");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_rows_read);
    tcase_add_test(tc, test_rows_refused);
    tcase_add_test(tc, test_stats);
    tcase_add_test(tc, test_predict);
    tcase_add_test(tc, test_engine_selected);
    tcase_add_test(tc, test_prefill_rows);
    tcase_add_test(tc, test_interleaved_rows);
    tcase_add_test(tc, test_command);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
