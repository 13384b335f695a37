/* The step model (ic_step): the differential tests that tie every command's
 * step to the one load and time (a 1-token prefill is a decode step; a
 * chunked prefill with one chunk is the plain prefill; a verify step of k = 0
 * is the decode step), and the sharding rule by hand: the cache by KV heads,
 * then by sequence; attention by (sequence, query head) pairs. */
#include "ic_comm.h"
#include "ic_engine.h"
#include "ic_serving.h"
#include "ic_step.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ic_decode_cfg dcfg(uint64_t chips, uint64_t batch, uint64_t ctx)
{
    struct ic_decode_cfg d = ic_decode_defaults();
    d.chips = chips;
    d.batch = batch;
    d.context = ctx;
    return d;
}

/* The models and chips the differential tests run over: dense GQA, sliding
 * windows, MoE, MLA; a torus and a switch. */
static const char *const models[] = {"llama3-70b", "llama3.2-1b", "gemma2-9b", "mixtral-8x7b",
                                     "deepseek-v2"};
static const char *const chips_hw[] = {"v5e", "h100"};

START_TEST(test_one_token_prefill_is_a_decode_step)
{
    /* Prefill of R one-token prompts after S - 1 cached tokens is the
     * decode step of batch R at context S: the same weight bytes, cache
     * bytes, FLOPs and collectives; at MFU 1 the same time. (The phase
     * differs only in MLA's attention form, absorbed in decode and plain in
     * prefill, so MLA compares the load without attention FLOPs.) */
    static const uint64_t Ns[] = {1, 3, 8, 16}, Bs[] = {1, 3, 32}, Ss[] = {1, 100, 4096};
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++)
        for (size_t hi = 0; hi < 2; hi++) {
            struct ic_test_pair *t = ic_test_pair(models[mi], chips_hw[hi]);
            for (size_t a = 0; a < 4; a++)
                for (size_t b = 0; b < 3; b++)
                    for (size_t c = 0; c < 3; c++) {
                        struct ic_decode_cfg d = dcfg(Ns[a], Bs[b], Ss[c]);
                        struct ic_prefill_cfg pc = ic_prefill_defaults();
                        pc.chips = Ns[a];
                        pc.prompts = Bs[b];
                        pc.prompt = 1;
                        pc.prefix = Ss[c] - 1;
                        pc.mfu = 1;
                        struct ic_point p;
                        struct ic_prefill f;
                        struct ic_err e = {0};
                        ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), IC_OK);
                        ck_assert_int_eq(ic_prefill(&t->st, &t->h, &pc, &f, &e), IC_OK);
                        ck_assert_double_eq_tol(f.weight_bytes, p.weight_bytes,
                                                1e-12 * p.weight_bytes);
                        ck_assert_double_eq_tol(f.attn_hbm_bytes, p.kv_bytes, 1e-12 * p.kv_bytes);
                        ck_assert_double_eq_tol(f.kv_write_bytes, p.kv_write_bytes,
                                                1e-12 * p.kv_write_bytes);
                        ck_assert_double_eq_tol(f.comm_s, p.comm_s, 1e-12 * p.comm_s + 1e-30);
                        ck_assert_double_eq_tol(f.linear_flops, 2.0 * (double)Bs[b] *
                                                                    (double)t->st.params_active,
                                                1e-12 * f.linear_flops);
                        /* MLA absorbs a one-token prefill after a prefix
                         * (ic_model_mla_absorbs) as its decode does */
                        if (t->st.mla && Ss[c] > 1)
                            ck_assert_double_eq_tol(f.flops, p.flops, 1e-12 * p.flops);
                        if (t->st.mla)
                            continue;
                        ck_assert_double_eq_tol(f.flops, p.flops, 1e-12 * p.flops);
                        ck_assert_double_eq_tol(f.memory_s, p.weights_s + p.kv_s,
                                                1e-12 * f.memory_s);
                        ck_assert_double_eq_tol(f.compute_s, p.compute_s + p.attn_s,
                                                1e-12 * f.compute_s);
                        ck_assert_msg(ic_test_rel(f.prefill_s, p.step_s) < 1e-12,
                                      "%s on %llu %s, batch %llu, context %llu: prefill %.17g "
                                      "decode %.17g",
                                      models[mi], (unsigned long long)Ns[a], chips_hw[hi],
                                      (unsigned long long)Bs[b], (unsigned long long)Ss[c],
                                      f.prefill_s, p.step_s);
                    }
            free(t);
        }
}
END_TEST

START_TEST(test_one_chunk_is_the_plain_prefill)
{
    /* A chunked prefill on an idle server (no decode batch) whose chunk is
     * the whole prompt is one step: the plain prefill's, fused and unfused,
     * with and without a cached prefix, at the same MFU. Smaller fused
     * chunks read the weights once per chunk: never faster. */
    static const uint64_t Ts[] = {1, 512, 3000}, Ps[] = {0, 700};
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        struct ic_test_pair *t = ic_test_pair(models[mi], "h100");
        for (size_t a = 0; a < 3; a++)
            for (size_t b = 0; b < 2; b++)
                for (int impl = 0; impl < IC_ATTN_COUNT; impl++) {
                    struct ic_prefill_cfg pc = ic_prefill_defaults();
                    pc.chips = 8;
                    pc.prompt = Ts[a];
                    pc.prefix = Ps[b];
                    pc.attn = (enum ic_attn_impl)impl;
                    pc.queue_s = 0.25;
                    struct ic_decode_cfg d = dcfg(8, 1, 1);
                    d.batch = 0;
                    struct ic_prefill f;
                    struct ic_chunked c, c2;
                    struct ic_err e = {0};
                    ck_assert_int_eq(ic_prefill(&t->st, &t->h, &pc, &f, &e), IC_OK);
                    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &d, &pc, Ts[a], &c, &e), IC_OK);
                    ck_assert_uint_eq(c.steps, 1);
                    ck_assert_msg(ic_test_rel(c.ttft_s, f.ttft_s) < 1e-12,
                                  "%s T %llu P %llu %s: chunked %.17g plain %.17g", models[mi],
                                  (unsigned long long)Ts[a], (unsigned long long)Ps[b],
                                  ic_attn_impl_name(pc.attn), c.ttft_s, f.ttft_s);
                    ck_assert_double_eq(c.decode_s, 0);
                    /* (unfused, a chunk computes its whole rectangle of
                     * scores: smaller chunks waste less of the masked half
                     * and can be faster; fused, the FLOPs are the same) */
                    if (Ts[a] < 4 || pc.attn != IC_ATTN_FLASH)
                        continue;
                    ck_assert_int_eq(ic_chunked(&t->st, &t->h, &d, &pc, Ts[a] / 4, &c2, &e),
                                     IC_OK);
                    ck_assert_uint_eq(c2.steps, Ts[a] % 4 ? 5 : 4);
                    ck_assert_msg(c2.ttft_s >= c.ttft_s * (1 - 1e-12),
                                  "%s T %llu P %llu %s: 4 chunks %.17g, one %.17g", models[mi],
                                  (unsigned long long)Ts[a], (unsigned long long)Ps[b],
                                  ic_attn_impl_name(pc.attn), c2.ttft_s, c.ttft_s);
                }
        free(t);
    }
}
END_TEST

START_TEST(test_verify_k0_is_decode)
{
    /* Speculative verification of k = 0 drafted tokens is one decode step:
     * the same time, and a speedup of exactly 1 (one token per round). */
    static const uint64_t Bs[] = {1, 7, 256};
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        struct ic_test_pair *t = ic_test_pair(models[mi], "h100");
        for (size_t b = 0; b < 3; b++) {
            struct ic_decode_cfg d = dcfg(8, Bs[b], 3000);
            struct ic_spec_costed s;
            struct ic_point p;
            struct ic_err e = {0};
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &d, &p, &e), IC_OK);
            ck_assert_int_eq(ic_spec_costed(&t->st, &t->st, &t->h, &d, d.weights, 0.7, 0, &s, &e), IC_OK);
            ck_assert_double_eq(s.verify_s, p.step_s);
            ck_assert_double_eq(s.speedup, 1);
            ck_assert_double_eq(s.tokens_s, p.tokens_s);
        }
        free(t);
    }
}
END_TEST

/* DeepSeek Sparse Attention's indexer in the step's attention ledger
 * (tests/fixtures/deepseek-v3.2-config.json, one chip, one decode token at
 * 32,767 cached): the attention FLOPs are 61 x (2048 x 278,528 + 32,768 x
 * 16,384) = 67,545,071,616; the scores (what a CPU entry's per-score time
 * costs) are the attention's alone, 61 x 2048 x 128 heads = 15,990,784,
 * not the indexer's FLOPs over a pair's. Unfused, the whole product plus
 * the indexer: 61 x 32,768 x (278,528 + 16,384). */
START_TEST(test_sparse_attention_ledger)
{
    struct ic_model_stats st;
    struct ic_err e = {0};
    ic_test_fixture_stats("deepseek-v3.2-config.json", &st);
    struct ic_step s = {
        .layout = {1, 1, 1, 1},
        .kind = {{1, 1, 32767, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = IC_DT_FP8, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    ck_assert_int_eq(ic_step_load(&st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.flops_attn, 67545071616.0, 1);
    ck_assert_double_eq_tol(l.attn_scores[IC_PHASE_DECODE], 61.0 * 2048 * 128, 1e-3);
    s.attn = IC_ATTN_UNFUSED;
    ck_assert_int_eq(ic_step_load(&st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.flops_attn, 61.0 * 32768 * (278528 + 16384), 1);
}
END_TEST

START_TEST(test_prefill_kv_split_by_kv_heads)
{
    /* Llama-3-70B (64 query heads, 8 KV heads, 80 layers, head dim 128) on
     * 16 v5e, one prompt of 2048 tokens, bf16: the cache splits 8 ways by
     * KV head (not 16), the two chips sharing a KV head split its 8 query
     * heads 4 and 4.
     *   cache after the step: 2048 x 80 x 2 x 8 x 128 x 2 B = 671,088,640 B;
     *     read per chip 1/8 = 83,886,080 B, written the same (every token
     *     is new): 167,772,160 B / 8.2e11 B/s = 204.6 us.
     *   attention FLOPs: 4 x 64 x 128 = 32,768 per cached token per layer,
     *     positions 1..2048: 32,768 x 80 x 2048 x 2049 / 2 = 5.5012e12, a
     *     sixteenth per chip (4 of 64 heads). */
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "v5e");
    const struct ic_step s = {
        .layout = {16, 1, 1, 1},
        .kind = {{1, 2048, 0, 1, IC_PHASE_PREFILL}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_uint_eq(l.kv_split_heads, 8);
    ck_assert_uint_eq(l.kv_split_batch, 2);
    ck_assert_double_eq_tol(l.kv_read_bytes, 83886080.0, 1e-6);
    ck_assert_double_eq_tol(l.kv_write_bytes, 83886080.0, 1e-6);
    ck_assert_double_eq_tol(l.kv_read_all_bytes, 671088640.0, 1e-6);
    const double F = 32768.0 * 80 * 2048 * 2049 / 2;
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], F / 16, 1e-3);
    ck_assert_double_eq_tol(l.flops_attn, F, 1e-1);
    /* linear: 2 (P_act - P_head) T + 2 P_head; the head is 128,256 x 8192 */
    const double head = 128256.0 * 8192;
    ck_assert_double_eq_tol(l.flops_linear,
                            2 * ((double)t->st.params_active - head) * 2048 + 2 * head, 1);
    struct ic_time tm;
    const struct ic_rates r = ic_rates_ideal();
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &tm, &e), IC_OK);
    ck_assert_double_eq_tol(tm.kv_s, 167772160.0 / 8.2e11, 1e-15);
    /* two sequences: each chip of a KV head's pair reads one */
    struct ic_step s2 = s;
    s2.kind[0].count = 2;
    ck_assert_int_eq(ic_step_load(&t->st, &s2, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.kv_read_bytes, 83886080.0, 1e-6);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], 2 * F / 16, 1e-3);
    /* the cache copied (vLLM's tensor parallelism): each chip of the pair
     * keeps its KV head's cache of both sequences, 2 x 83,886,080 B read
     * and as much written; the FLOPs split as before (4 of 64 heads of
     * each sequence), and memory holds both sequences a chip */
    s2.layout.kv_copy = true;
    ck_assert_int_eq(ic_step_load(&t->st, &s2, &l, &e), IC_OK);
    ck_assert_uint_eq(l.kv_split_heads, 8);
    ck_assert_uint_eq(l.kv_split_batch, 1);
    ck_assert_double_eq_tol(l.kv_read_bytes, 2 * 83886080.0, 1e-6);
    ck_assert_double_eq_tol(l.kv_write_bytes, 2 * 83886080.0, 1e-6);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], 2 * F / 16, 1e-3);
    const struct ic_mem mk = ic_step_mem_of(&l, 0);
    const struct ic_mem mm = ic_step_mem(&t->st, 16, true, mk.weights_bytes, 671088640.0);
    ck_assert_double_eq_tol(ic_step_mem_at(&mk, 2) - mk.weights_bytes,
                            2 * 83886080.0 + 2.0 / 16 * mk.work_seq_bytes, 1e-3);
    ck_assert_double_eq_tol(ic_step_mem_at(&mm, 2), ic_step_mem_at(&mk, 2), 1e-3);
    free(t);
}
END_TEST

START_TEST(test_mla_prefill_over_a_prefix)
{
    /* DeepSeek-V3 (61 MLA layers, 128 heads, nope 128, rope 64, v 128,
     * latent 512), one sequence on one chip. 1000 new tokens after 31,000
     * cached: the plain form, 2 x 128 x 192 + 2 x 128 x 128 = 81,920 FLOPs
     * a (token, cached token) pair a layer, over positions 31,001 .. 32,000
     * (1000 x 31,500.5 = 31,500,500 pairs): 81,920 x 61 x 31,500,500 =
     * 157,411,778,560,000; and the cached latents decompressed, 2 x 512 x
     * 128 x (128 + 128) = 33,554,432 FLOPs a cached token a layer: x 61 x
     * 31,000 = 63,451,430,912,000. 220,863,209,472,000 in all, under the
     * absorbed form's 278,528 x 61 x 31,500,500 = 535,200,047,104,000.
     * 64 new tokens (1,986,080 pairs): plain 9,924,680,089,600 +
     * 63,451,430,912,000 against absorbed 278,528 x 61 x 1,986,080 =
     * 33,743,912,304,640, which is taken. No prefix: plain, nothing to
     * decompress. */
    struct ic_test_pair *t = ic_test_pair("deepseek-v3", "h100");
    ck_assert(t->st.mla && !t->st.n_window_layers && !t->st.index_flop_per_ctx_token_layer);
    ck_assert_uint_eq(t->st.n_global_layers, 61);
    struct ic_step s = {
        .layout = {1, 1, 1, 1},
        .kind = {{1, 1000, 31000, 1, IC_PHASE_PREFILL}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], 220863209472000.0, 1e3);
    ck_assert_double_eq_tol(l.attn_scores[IC_PHASE_PREFILL], 128.0 * 61 * 31500500, 1e-3);
    s.kind[0].tokens = 64;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], 33743912304640.0, 1e2);
    ck_assert_double_eq_tol(l.attn_scores[IC_PHASE_PREFILL], 128.0 * 61 * 1986080, 1e-3);
    s.kind[0].tokens = 1000;
    s.kind[0].context = 0; /* positions 1 .. 1000: 500,500 pairs */
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_PREFILL], 81920.0 * 61 * 500500, 1e-1);
    free(t);
}
END_TEST

START_TEST(test_window_prefill_read)
{
    /* Mistral 7B: 32 layers, all sliding over 4096 tokens, 8 KV heads of
     * 128, bf16: 4096 B a token a layer. A 16,384-token prompt reads every
     * token's keys and values once (query j reads j - 4095 .. j): 32 x
     * 16,384 x 4096 = 2,147,483,648 B, what it writes, not the 4096 tokens
     * a layer holds after it (536,870,912 B). A 512-token chunk after 8000:
     * from 8001 - 4095 to 8512, 4607 tokens, 603,848,704 B; one decode
     * token at 8001: its window, 4096 tokens, 536,870,912 B. */
    struct ic_test_pair *t = ic_test_pair("mistral-7b", "h100");
    ck_assert_uint_eq(t->st.n_window_layers, 32);
    ck_assert_uint_eq(t->st.window, 4096);
    struct ic_step s = {
        .layout = {1, 1, 1, 1},
        .kind = {{1, 16384, 0, 1, IC_PHASE_PREFILL}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq(l.kv_read_bytes, 2147483648.0);
    ck_assert_double_eq(l.kv_write_bytes, 2147483648.0);
    s.kind[0].tokens = 512;
    s.kind[0].context = 8000;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq(l.kv_read_bytes, 603848704.0);
    s.kind[0] = (struct ic_seqs){1, 1, 8000, 1, IC_PHASE_DECODE};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq(l.kv_read_bytes, 536870912.0);
    free(t);
}
END_TEST

START_TEST(test_mla_attention_by_heads)
{
    /* DeepSeek-V2 caches one latent per token (MLA: the cache cannot split
     * by head). On 8 chips with one sequence every chip reads the whole
     * latent and does 16 of the 128 heads: an eighth of the attention
     * FLOPs (not all of them on one chip while seven wait). With 8
     * sequences each chip reads one sequence's latent and does all its
     * heads: the same FLOPs per chip as 1/8 of the batch. */
    struct ic_test_pair *t = ic_test_pair("deepseek-v2", "h100");
    ck_assert(t->st.mla);
    ck_assert_uint_eq(t->st.n_heads, 128);
    struct ic_step s = {
        .layout = {8, 1, 1, 1},
        .kind = {{1, 1, 4095, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    const double F = ic_model_attn_flop(&t->st, 4096); /* one token at context 4096 */
    const double kv = ic_step_kv_seq_bytes(&t->st, 4096, IC_DT_BF16);
    ck_assert_uint_eq(l.kv_split_heads, 1);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_DECODE], F / 8, 1e-9 * F);
    ck_assert_double_eq_tol(l.kv_read_bytes, kv, 1e-9 * kv);
    s.kind[0].count = 8;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_DECODE], F, 1e-9 * F);
    ck_assert_double_eq_tol(l.kv_read_bytes, kv, 1e-9 * kv);
    /* 9 sequences: 9 x 128 pairs over 8 chips, 144 on the busiest (9/8 of a
     * sequence's FLOPs), which reads the latents of ceil(9/8) = 2 */
    s.kind[0].count = 9;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.attn_flops[IC_PHASE_DECODE], F * 144 / 128, 1e-9 * F);
    ck_assert_double_eq_tol(l.kv_read_bytes, 2 * kv, 1e-9 * kv);
    free(t);
}
END_TEST

START_TEST(test_two_kinds_add)
{
    /* A step of two kinds reads the weights once: its load is the sum of the
     * two kinds' FLOPs and cache traffic, with the weights of the union. */
    struct ic_test_pair *t = ic_test_pair("mixtral-8x7b", "h100");
    const struct ic_seqs dec = {16, 1, 1000, 1, IC_PHASE_DECODE};
    const struct ic_seqs chunk = {1, 256, 512, 0, IC_PHASE_PREFILL};
    struct ic_step s = {
        .layout = {4, 1, 1, 1}, .kind = {dec, chunk}, .n_kinds = 2,
        .weights = IC_DT_FP8, .kv = IC_DT_FP8, .compute = IC_DT_FP8, .attn = IC_ATTN_FLASH,
    };
    struct ic_load both, a, b;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &both, &e), IC_OK);
    s.n_kinds = 1;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &a, &e), IC_OK);
    s.kind[0] = chunk;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &b, &e), IC_OK);
    ck_assert_double_eq_tol(both.kv_read_bytes, a.kv_read_bytes + b.kv_read_bytes, 1e-3);
    ck_assert_double_eq_tol(both.attn_flops[IC_PHASE_DECODE], a.attn_flops[IC_PHASE_DECODE], 1e-3);
    ck_assert_double_eq_tol(both.attn_flops[IC_PHASE_PREFILL], b.attn_flops[IC_PHASE_PREFILL],
                            1e-3);
    ck_assert_double_eq(both.tokens, 16 + 256);
    ck_assert_double_eq(both.allreduce_bytes, (16 + 256) * 4096.0 * 2);
    /* experts: 272 tokens touch (nearly) all 8; 16 tokens 8 (1 - (3/4)^16) */
    ck_assert_double_eq_tol(a.experts_touched, 8 * (1 - pow(0.75, 16)), 1e-12);
    ck_assert_double_gt(both.weight_bytes, a.weight_bytes);
    /* the chunk brings no logits: no LM head read or multiplied */
    ck_assert_double_lt(b.weight_bytes, both.weight_bytes);
    free(t);
}
END_TEST

START_TEST(test_bad_steps)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "h100");
    struct ic_step s = {
        .layout = {1, 1, 1, 1}, .kind = {{1, 1, 0, 1, IC_PHASE_DECODE}}, .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16, .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    s.kind[0].logits = 2;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no more logits than tokens"));
    s.kind[0].logits = 1;
    s.kind[0].context = IC_MODEL_MAX_CONTEXT;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    s.kind[0].context = 0;
    s.layout.chips = 0;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    s.layout.chips = 1024;
    s.layout.ep = 1025;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    s.layout.ep = 1;
    s.n_kinds = 0;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    free(t);
}
END_TEST

/* The fewest chips that hold a model: Llama-3.1-405B (405.9e9 parameters,
 * every group split N ways up to its units, norms replicated) on 80 GB
 * H100s, batch 1 at 2048 tokens (the cache: 126 layers x 8 KV heads x 128 x
 * 2 x 2 B x 2048 = 1.06 GB, split by head):
 *   bf16: 811.7 GB / 8 = 101.5 GB > 80; / 16 = 50.7 GB fits: 16
 *   fp8 and int8: 405.9 GB / 4 = 101.5 GB; / 8 = 50.7 GB: 8
 *   int4 and fp4: 202.9 GB / 2 = 101.5 GB; / 4 = 50.7 GB: 4
 * and over 2 pipeline stages (each holds 63 of the 126 layers: half the
 * bytes a chip) half as many chips a stage: 8, 4, 4, 2, 2.
 * Each answer is checked against the memory the decode point itself
 * reports at that many chips and at half as many. */
START_TEST(test_fewest_chips)
{
    struct ic_test_pair *t = ic_test_pair("llama3.1-405b", "h100");
    static const uint64_t want[2][5] = {{16, 8, 8, 4, 4}, {8, 4, 4, 2, 2}};
    for (uint64_t pp = 1; pp <= 2; pp++) {
        struct ic_decode_cfg c = dcfg(1, 1, 2048);
        c.pp = pp;
        struct ic_point p;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
        ck_assert(!p.fits);
        ic_decode_fewest(&t->st, &p);
        ck_assert(p.fewest_known);
        for (int i = 0; i < 5; i++) {
            const uint64_t n = p.fewest_chips[i];
            ck_assert_uint_eq(n, want[pp - 1][i]);
            struct ic_decode_cfg q = c;
            q.weights = ic_decode_fewest_types[i];
            q.chips = n;
            struct ic_point at;
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &q, &at, &e), IC_OK);
            ck_assert(at.fits);
            ck_assert_double_eq_tol(ic_decode_mem_per_chip(&t->st, &q, 1), at.mem_per_chip_B,
                                    1e-6 * at.mem_per_chip_B);
            q.chips = n / 2;
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &q, &at, &e), IC_OK);
            ck_assert(!at.fits);
        }
    }
    /* none: at 131,072 tokens one sequence's cache is 126 x 8 x 128 x 2 x
     * 2 B x 131,072 = 67.6 GB, split at most 8 ways (the KV heads; one
     * sequence cannot split by batch): 8.46 GB on a chip, over a 4 GB
     * chip at any count */
    struct ic_hw small = t->h;
    small.hbm_capacity_B = 4e9;
    struct ic_decode_cfg c = dcfg(1, 1, 131072);
    struct ic_point p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&t->st, &small, &c, &p, &e), IC_OK);
    ic_decode_fewest(&t->st, &p);
    ck_assert(p.fewest_known);
    for (int i = 0; i < 5; i++)
        ck_assert_uint_eq(p.fewest_chips[i], 0);
    free(t);
}
END_TEST

/* Pipeline parallelism: Llama-3.1-405B on 2 stages of 8 H100s (the
 * stages in two NVLink domains, joined by the 400 Gbit/s = 50e9 B/s
 * scale-out network, 5 us), batch 1 at context 2048, bf16, one micro-batch.
 * The last stage's chip: 63 of the 126 layers and an eighth of the head.
 *   sharded layer params 405,853,388,800 - 2 x 2,101,346,304 (embedding,
 *   head: 128,256 x 16,384) - 4,145,152 (norms, replicated) =
 *   401,646,551,040, / 8 chips / 2 stages = 25,102,909,440; + the norms'
 *   half 2,072,576 + the head's eighth 262,668,288 = 25,367,650,304 params
 *   x 2 B = 50,735,300,608 B / 3.35e12 = 15.144866 ms
 *   cache: 8 KV heads on 8 chips, 128 x 2 x 2 B = 512 B a token and layer,
 *   x 63 layers x (2048 read + 1 written) = 66,092,544 B: 19.729 us
 *   all-reduces 2 x 63 of 32,768 B, each 2 x (7/8 x 32,768 / 450e9 + 2 us)
 *   = 4.127 us: 520.1 us, overlapped (under the 15.16 ms)
 *   send: 16,384 x 2 B / 8 chips = 4,096 B / 50e9 + 5 us = 5.082 us
 *   step = 2 passes x (15.144866 + 0.019729 + 0.005082) = 30.339354 ms. */
START_TEST(test_pipeline)
{
    struct ic_test_pair *t = ic_test_pair("llama3.1-405b", "h100");
    struct ic_step s = {
        .layout = {8, 1, 2, 1},
        .kind = {{1, 1, 2047, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_time tm;
    struct ic_err e = {0};
    const struct ic_rates r = ic_rates_ideal();
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.weight_bytes, 50735300608.0, 1);
    ck_assert_double_eq_tol(l.kv_read_bytes + l.kv_write_bytes, 66092544.0, 1e-3);
    ck_assert_uint_eq(l.allreduces, 126);
    ck_assert_double_eq_tol(l.send_bytes, 4096, 1e-9);
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &tm, &e), IC_OK);
    ck_assert_double_eq_tol(tm.send_s, 4096 / 50e9 + 5e-6, 1e-15);
    ck_assert_uint_eq(tm.cycles, 2);
    const double stage = 50735300608.0 / 3.35e12 + 66092544.0 / 3.35e12;
    ck_assert_double_eq_tol(tm.stage_s, stage, 1e-12);
    ck_assert_double_eq_tol(tm.step_s, 2 * (stage + 4096 / 50e9 + 5e-6), 1e-12);
    ck_assert_double_eq_tol(tm.step_s, 30.339354e-3, 1e-9);

    /* The whole model without a pipeline on 16 chips of one replica would
     * hold 50.7 GB a chip too; on 8 it does not fit (101.5 GB), which is
     * why the stages. Micro-batches: 64 sequences as 2 passes of 32 over 2
     * stages take 2 x (pass of 32 + send of 32 tokens); as one pass of 64,
     * 2 x (pass of 64 + send of 64). Memory-bound, the pass of 32 reads the
     * same weights: the two steps differ only in their cache and sends. */
    s.kind[0].count = 64;
    s.layout.micro = 2;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_double_eq_tol(l.weight_bytes, 50735300608.0, 1);
    ck_assert_double_eq_tol(l.kv_read_bytes + l.kv_write_bytes, 32 * 66092544.0, 1e-2);
    ck_assert_double_eq_tol(l.send_bytes, 32 * 4096.0, 1e-9);
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &tm, &e), IC_OK);
    ck_assert_uint_eq(tm.cycles, 2);
    ck_assert_double_eq_tol(tm.step_s, 2 * (tm.stage_s + 32 * 4096 / 50e9 + 5e-6), 1e-12);

    /* More micro-batches than sequences: 3 sequences in 8 are 3 passes of
     * one (an empty micro-batch is no pass; they cost a whole pass each):
     * max(3, 2 stages) = 3 cycles of (a pass of 1 + a send of 1 token),
     * the same step as 3 micro-batches asked for. */
    s.kind[0].count = 3;
    s.layout.micro = 8;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_uint_eq(l.micro, 3);
    ck_assert_double_eq_tol(l.send_bytes, 4096.0, 1e-9);
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &tm, &e), IC_OK);
    ck_assert_uint_eq(tm.cycles, 3);
    ck_assert_double_eq_tol(tm.step_s, 3 * (tm.stage_s + 4096 / 50e9 + 5e-6), 1e-12);
    const double eight = tm.step_s;
    s.layout.micro = 3;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &tm, &e), IC_OK);
    ck_assert_double_eq_tol(tm.step_s, eight, 1e-15);

    /* more stages than layers refused */
    s.layout = (struct ic_layout){8, 1, 127, 1, false};
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "pipeline stages"));
    free(t);
}
END_TEST

/* The largest batch that fits, against a naive search: the largest B with
 * mem(B) <= capacity by bisection over the monotone mem (no estimate), for
 * 20,000 random layouts (batch ways 1 to 64, workspace or none, capacities
 * from one sequence short of fitting to millions of sequences). */
static uint64_t naive_max_batch(const struct ic_mem *k, double cap)
{
    if (ic_step_mem_at(k, 1) > cap)
        return 0;
    uint64_t lo = 1, hi = 2;
    while (hi < (UINT64_C(1) << 40) && ic_step_mem_at(k, hi) <= cap)
        lo = hi, hi *= 2;
    if (ic_step_mem_at(k, hi) <= cap)
        return hi;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ic_step_mem_at(k, mid) <= cap)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* An engine's attention efficiency (tests/fixtures/engine-test.yaml: 0.8
 * for a bf16 cache) times decode attention's cache reads alone, on the
 * achieved H100 fixture (GEMV bandwidth 3.0 TB/s x 0.9 = 2.7e12 B/s):
 *   - Nemotron-3-Nano (Mamba-2 mixers beside attention layers), 4
 *     sequences decoding at context 1024 on one chip: the cache's keys and
 *     values at 2.7e12 x 0.8, the Mamba state (read, then written) and the
 *     new keys and values at 2.7e12; the state read is 4 x the model's
 *     state bytes, kv_read_bytes less the attention's;
 *   - an unfused prefill's score passes and its cache write: no decode
 *     attention, so the profile leaves the cache term as it was. */
START_TEST(test_engine_attention_scope)
{
    struct ic_test_pair *t =
        ic_test_pair("nemotron-3-nano-30b-a3b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_engine *en = ic_test_engine_fixture();
    struct ic_err e = {0};
    struct ic_step s = {
        .layout = {1, 1, 1, 1},
        .kind = {{4, 1, 1024, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_FLASH,
    };
    struct ic_load l;
    struct ic_time with, without;
    struct ic_rates r = ic_rates_ideal();
    r.estimate = IC_EST_EXPECTED;
    r.comm = IC_COMM_SERIAL;
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    const double state = ic_model_state_bytes(&t->st);
    ck_assert(state > 0);
    ck_assert_double_eq_tol(l.kv_read_bytes - l.kv_attn_read_bytes, 4 * state, 1e-3);
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &without, &e), IC_OK);
    r.engine = en;
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &with, &e), IC_OK);
    ck_assert_double_eq_tol(without.kv_s,
                            (l.kv_read_bytes + l.kv_write_bytes + l.scores_bytes) / 2.7e12,
                            1e-15);
    ck_assert_double_eq_tol(with.kv_s - without.kv_s,
                            l.kv_attn_read_bytes / 2.7e12 * (1 / 0.8 - 1), 1e-15);
    free(t);
    /* Llama-3-8B, one prompt of 2048 tokens, unfused */
    t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    s = (struct ic_step){
        .layout = {1, 1, 1, 1},
        .kind = {{1, 2048, 0, 1, IC_PHASE_PREFILL}},
        .n_kinds = 1,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .attn = IC_ATTN_UNFUSED,
    };
    ck_assert_int_eq(ic_step_load(&t->st, &s, &l, &e), IC_OK);
    ck_assert(l.scores_bytes > 0);
    ck_assert_double_eq(l.kv_attn_read_bytes, 0);
    r.engine = NULL;
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &without, &e), IC_OK);
    r.engine = en;
    ck_assert_int_eq(ic_step_time(&l, &t->h, &r, &with, &e), IC_OK);
    ck_assert_double_eq(with.kv_s, without.kv_s);
    free(t);
    free(en);
}
END_TEST

START_TEST(test_max_batch_against_naive)
{
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        struct ic_mem k;
        k.chips = 1 + x % 64;
        k.batch_ways = 1 + (x >> 8) % 64;
        k.weights_bytes = (double)((x >> 16) % 1000000) * 1e3;
        k.kv_seq_bytes = (double)(1 + (x >> 24) % 100000) * 17.0;
        k.work_seq_bytes = (x >> 40) % 4 ? (double)((x >> 42) % 5000) * 3.0 : 0;
        const double cap = k.weights_bytes + (double)((x >> 50) % 4096) *
                                                 (k.kv_seq_bytes + 1.0) * 0.37;
        ck_assert_uint_eq(ic_step_max_batch(&k, cap), naive_max_batch(&k, cap));
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("step");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_one_token_prefill_is_a_decode_step);
    tcase_add_test(tc, test_one_chunk_is_the_plain_prefill);
    tcase_add_test(tc, test_verify_k0_is_decode);
    tcase_add_test(tc, test_prefill_kv_split_by_kv_heads);
    tcase_add_test(tc, test_mla_attention_by_heads);
    tcase_add_test(tc, test_mla_prefill_over_a_prefix);
    tcase_add_test(tc, test_window_prefill_read);
    tcase_add_test(tc, test_two_kinds_add);
    tcase_add_test(tc, test_bad_steps);
    tcase_add_test(tc, test_fewest_chips);
    tcase_add_test(tc, test_sparse_attention_ledger);
    tcase_add_test(tc, test_pipeline);
    tcase_add_test(tc, test_engine_attention_scope);
    tcase_add_test(tc, test_max_batch_against_naive);
    suite_add_tcase(s, tc);
    return s;
}


int main(void) { return ic_test_run(suite()); }
