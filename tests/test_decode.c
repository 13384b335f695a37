/* Decode step model: every case of docs/cases.md as a literal expectation with
 * its hand arithmetic, the collective formulas on three fabrics, memory and
 * the largest batch, MoE weight reads, MLA attention intensity, and the
 * expected time from measured figures (sanity over every model and chip is
 * test_grid.c). */
#include "ic_comm.h"
#include "ic_report.h"
#include "ic_sweep.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ic_decode_cfg cfg(uint64_t chips, uint64_t batch, uint64_t ctx,
                                enum ic_dtype w, enum ic_dtype kv, enum ic_dtype c)
{
    struct ic_decode_cfg d = ic_decode_defaults();
    d.chips = chips;
    d.batch = batch;
    d.context = ctx;
    d.weights = w;
    d.kv = kv;
    d.compute = c;
    return d;
}

START_TEST(test_b_crit)
{
    /* B_crit = b_w * C / (2 W) */
    struct ic_point p;
    p = ic_test_decode("llama3-8b", "v5e", cfg(1, 1, 128, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_double_eq_tol(p.b_crit, 2 * 1.97e14 / (2 * 8.2e11), 0.5); /* 240.2 */
    ck_assert(ic_test_rel(p.b_crit, 240) < 0.03);
    p = ic_test_decode("llama3-8b", "v5e", cfg(1, 1, 128, IC_DT_INT8, IC_DT_BF16, IC_DT_BF16));
    ck_assert(ic_test_rel(p.b_crit, 120) < 0.03); /* 1 * 1.97e14 / 1.64e12 = 120.1 */
    p = ic_test_decode("llama3-8b", "v5e", cfg(1, 1, 128, IC_DT_INT8, IC_DT_BF16, IC_DT_INT8));
    ck_assert(ic_test_rel(p.b_crit, 240) < 0.03); /* 1 * 3.94e14 / 1.64e12 = 240.2 */
    p = ic_test_decode("llama3-8b", "h100", cfg(1, 1, 128, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert(ic_test_rel(p.b_crit, 295) < 0.03); /* 2 * 9.89e14 / 6.7e12 = 295.2 */
    p = ic_test_decode("llama3-8b", "a100", cfg(1, 1, 128, IC_DT_FP16, IC_DT_FP16, IC_DT_FP16));
    ck_assert(ic_test_rel(p.b_crit, 153) < 0.03); /* 2 * 3.12e14 / 4.078e12 = 153.0 */
}
END_TEST

START_TEST(test_llama3_70b_v5e_16)
{
    /* docs/cases.md: int8 weights and KV, bf16 compute, 16 x v5e, batch 32,
     * context 8192: ~8.6 ms per step, ~230 tokens/s per chip.
     * Weights read per chip: 69.50e9 multiplied params (the embedding is a
     * lookup) of which the k/v projections (80 * 2 * 8192 * 1024 = 1.342e9)
     * split only 8 ways (8 KV heads): 68.16e9/16 + 1.342e9/8 = 4.428e9 B at
     * 1 B each -> / 8.2e11 = 5.40 ms. KV: 32 * 8192 * 163,840 B = 42.9 GB
     * over 16 chips -> 3.27 ms. Compute 2 * 32 * 69.5e9 / 16 / 1.97e14 =
     * 1.41 ms hides under the weight read. Step 8.67 ms. */
    struct ic_point p = ic_test_decode("llama3-70b", "v5e",
                                       cfg(16, 32, 8192, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16));
    ck_assert_msg(ic_test_rel(p.step_s, 8.6e-3) < 0.05, "step %g", p.step_s);
    ck_assert_double_eq_tol(p.step_s, 8.67e-3, 0.01e-3);
    ck_assert_double_eq_tol(p.kv_bytes, 32.0 * 8192 * 163840, 1);
    ck_assert(ic_test_rel(p.kv_s, 42.95e9 / 16 / 8.2e11) < 0.001);
    ck_assert(ic_test_rel(p.tokens_s_chip, 230) < 0.05);
    ck_assert_int_eq(p.bound, IC_BOUND_WEIGHTS);
    ck_assert(p.fits);
}
END_TEST

START_TEST(test_llama3_70b_v5e_8)
{
    /* Same on 8 x v5e: ~17 ms per step, ~1,860 tokens/s, ~230 per chip.
     * 69.50e9 / 8 / 8.2e11 = 10.6 ms + 42.95e9 / 8 / 8.2e11 = 6.55 ms. */
    struct ic_point p = ic_test_decode("llama3-70b", "v5e",
                                       cfg(8, 32, 8192, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16));
    ck_assert(ic_test_rel(p.step_s, 17e-3) < 0.05);
    ck_assert(ic_test_rel(p.tokens_s, 1860) < 0.05);
    ck_assert(ic_test_rel(p.tokens_s_chip, 230) < 0.05);
    /* adding chips buys latency, not per-chip throughput */
    struct ic_point q = ic_test_decode("llama3-70b", "v5e",
                                       cfg(16, 32, 8192, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16));
    ck_assert(ic_test_rel(q.tokens_s_chip, p.tokens_s_chip) < 0.03);
    ck_assert(q.step_s < 0.55 * p.step_s);
}
END_TEST

START_TEST(test_7b_a100)
{
    /* docs/cases.md: a 7B model, fp16 weights, batch 1, one A100 80GB:
     * >= 7e9 * 2 B / 2.039e12 B/s = 6.87 ms per token, <= ~145 tokens/s.
     * Context 1 keeps the KV read (524,288 B) negligible. */
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *h = malloc(sizeof *h);
    struct ic_model_stats st;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/hypo-7b.yaml", m, &e), 0);
    ck_assert_int_eq(ic_model_derive(m, &st, &e), 0);
    ic_test_hw("a100-80gb-sxm", h);
    struct ic_decode_cfg c = cfg(1, 1, 1, IC_DT_FP16, IC_DT_FP16, IC_DT_FP16);
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert(ic_test_rel(p.step_s, 6.9e-3) < 0.03);
    ck_assert(p.step_s >= 14e9 / 2.039e12);
    ck_assert(ic_test_rel(p.tokens_s, 145) < 0.03);
    free(m);
    free(h);
}
END_TEST

START_TEST(test_collectives)
{
    struct ic_hw *h = malloc(sizeof *h);
    const double A = 1 << 20;
    /* A100 NVLink switch, 8 GPUs: 12 links x 25 GB/s one way = 300 GB/s into
     * each GPU; direct all-gather 7/8 * A / 300 GB/s + one step. */
    ic_test_hw("a100-80gb-sxm", h);
    double W = (double)h->ici_links * h->ici_link_B_s;
    ck_assert_double_eq_tol(W, 300e9, 1);
    ck_assert_double_eq(h->ici_hop_latency_s, 2e-6); /* hwdb's estimate */
    /* 7/8 * 1,048,576 B / 3e11 B/s = 3.0583 us, + 2 us */
    ck_assert_double_eq_tol(ic_comm_allgather_s(h, 8, A), 5.0583e-6, 1e-10);
    ck_assert_double_eq_tol(ic_comm_allreduce_s(h, 8, A), 10.1167e-6, 1e-10);
    ck_assert_double_eq(ic_comm_allgather_s(h, 1, A), 0);
    /* 16 GPUs = 2 NVLink domains: within the domain as above, then half of
     * the domain's share (A/8) across the scale-out network, one step. */
    double inter = 0.5 * (A / 8) / h->dcn_B_s + h->dcn_latency_s;
    ck_assert_double_eq_tol(ic_comm_allgather_s(h, 16, A),
                            7.0 / 8 * A / W + h->ici_hop_latency_s + inter, 1e-12);

    /* v5e 2D torus, 16 chips: a 4x4 sub-grid, two bidirectional rings of 2
     * links each: 4 x 4.5e10 B/s; 2 + 2 steps of 1 us.
     * 15/16 * 1,048,576 / 1.8e11 = 5.4613 us, + 4 us. */
    ic_test_hw("v5e", h);
    struct ic_comm_path path = ic_comm_path(h, 16);
    ck_assert_double_eq_tol(path.bw_B_s, 4 * 4.5e10, 1);
    ck_assert_uint_eq(path.steps, 4);
    ck_assert_double_eq(h->ici_hop_latency_s, 1e-6);
    ck_assert_double_eq_tol(ic_comm_allgather_s(h, 16, A), 9.4613e-6, 1e-10);
    /* 2 chips: one link, one step */
    path = ic_comm_path(h, 2);
    ck_assert_double_eq_tol(path.bw_B_s, 4.5e10, 1);
    ck_assert_uint_eq(path.steps, 1);
    /* v5e's axes close into rings only at 16 chips (hwdb's wraparound_from;
     * the scaling book's 4x4 worked answer: two ports of 4.5e10 B/s, six
     * hops corner to corner): 4x4 is two lines, 9e10 B/s and 3 + 3 steps;
     * 8x16 a line and a ring, 3 x 4.5e10 B/s and 7 + 8 steps; 16x16 two
     * rings as without the rule */
    path = ic_comm_path(h, 16); /* the rings' path first: none is served stale */
    ck_assert_double_eq_tol(path.bw_B_s, 4 * 4.5e10, 1);
    h->ici_wrap_from = 16;
    path = ic_comm_path(h, 16);
    ck_assert_double_eq_tol(path.bw_B_s, 9e10, 1);
    ck_assert_uint_eq(path.steps, 6);
    path = ic_comm_path(h, 128);
    ck_assert_double_eq_tol(path.bw_B_s, 3 * 4.5e10, 1);
    ck_assert_uint_eq(path.steps, 15);
    path = ic_comm_path(h, 256);
    ck_assert_double_eq_tol(path.bw_B_s, 4 * 4.5e10, 1);
    ck_assert_uint_eq(path.steps, 16);
    path = ic_comm_path(h, 2);
    ck_assert_double_eq_tol(path.bw_B_s, 4.5e10, 1);
    ck_assert_uint_eq(path.steps, 1);
    /* a bus bandwidth measured along one 4-chip axis (a line: one link),
     * 37.5 GB/s, carried: a 4x4 group's two lines 2 x, a 16x16 group's two
     * rings 4 x; as a 2x2 sub-grid's (two links) the 4x4 would get 1 x */
    h->achieved.present = true;
    h->achieved.allreduce_busbw_B_s = 37.5e9;
    h->achieved.allreduce_chips = 4;
    h->achieved.allreduce_axis = true;
    path = ic_comm_path(h, 16);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 75e9, 1);
    path = ic_comm_path(h, 4);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 75e9, 1);
    path = ic_comm_path(h, 256);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 150e9, 1);
    h->achieved.allreduce_axis = false;
    path = ic_comm_path(h, 16);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 37.5e9, 1);

    /* MI300X full mesh: 7 direct links, one step, for 8 GPUs */
    ic_test_hw("mi300x", h);
    path = ic_comm_path(h, 8);
    ck_assert_double_eq_tol(path.bw_B_s, 7 * h->ici_link_B_s, 1);
    ck_assert_uint_eq(path.steps, 1);
    /* bonded links (Gaudi 3: 21 x 25 GB/s, 3 to each of its 7 peers): 8
     * chips reach 7 x 3 = 21 links, 525 GB/s; 2 chips one peer's 3, 75
     * GB/s; 4 chips 3 x 3 = 9, 225 GB/s; one step each. A chip of 5 links
     * in a domain of 8 reaches 4 peers one link each, in one step, and 7
     * in ceil(7 / 5) = 2 */
    h->ici_links = 21;
    h->ici_link_B_s = 25e9;
    path = ic_comm_path(h, 8);
    ck_assert_double_eq_tol(path.bw_B_s, 525e9, 1);
    ck_assert_uint_eq(path.steps, 1);
    path = ic_comm_path(h, 2);
    ck_assert_double_eq_tol(path.bw_B_s, 75e9, 1);
    path = ic_comm_path(h, 4);
    ck_assert_double_eq_tol(path.bw_B_s, 225e9, 1);
    ck_assert_uint_eq(path.steps, 1);
    h->ici_links = 5;
    path = ic_comm_path(h, 5);
    ck_assert_double_eq_tol(path.bw_B_s, 100e9, 1);
    ck_assert_uint_eq(path.steps, 1);
    path = ic_comm_path(h, 8);
    ck_assert_double_eq_tol(path.bw_B_s, 125e9, 1);
    ck_assert_uint_eq(path.steps, 2);

    /* v5p's slices close into rings only as whole 4x4x4 cubes (hwdb's
     * wraparound_cube; the scaling book: "a 2x2x4 won't have any
     * wraparounds"). 16 chips, 2x2x4: three lines, 3 x 9e10 B/s and 1 + 1 +
     * 3 steps (as rings: 1 + 1 + 2 links, 1 + 1 + 2 steps); 64, 4x4x4: three
     * rings, 6 links (the chip's all), 2 + 2 + 2 steps; 32, 2x4x4: lines,
     * 1 + 1 + 1 links, 1 + 3 + 3 steps */
    ic_test_hw("v5p", h);
    path = ic_comm_path(h, 16); /* the rings' path first: none is served stale */
    ck_assert_double_eq_tol(path.bw_B_s, 4 * 9e10, 1);
    ck_assert_uint_eq(path.steps, 4);
    h->ici_wrap_cube = 4;
    path = ic_comm_path(h, 16);
    ck_assert_double_eq_tol(path.bw_B_s, 3 * 9e10, 1);
    ck_assert_uint_eq(path.steps, 5);
    path = ic_comm_path(h, 64);
    ck_assert_double_eq_tol(path.bw_B_s, 6 * 9e10, 1);
    ck_assert_uint_eq(path.steps, 6);
    path = ic_comm_path(h, 32);
    ck_assert_double_eq_tol(path.bw_B_s, 3 * 9e10, 1);
    ck_assert_uint_eq(path.steps, 7);
    /* 192 = 3 whole cubes: 4 x 4 x 12, three rings, 2 + 2 + 6 steps (the
     * compact 4 x 6 x 8 would be no cubes, three lines) */
    path = ic_comm_path(h, 192);
    ck_assert_double_eq_tol(path.bw_B_s, 6 * 9e10, 1);
    ck_assert_uint_eq(path.steps, 10);
    /* a bus bandwidth measured along one axis of 4 (a line, one link), 75
     * GB/s: a 2x2x1 group's two links 2 x, a whole cube's six 6 x */
    h->achieved.present = true;
    h->achieved.allreduce_busbw_B_s = 75e9;
    h->achieved.allreduce_chips = 4;
    h->achieved.allreduce_axis = true;
    path = ic_comm_path(h, 4);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 150e9, 1);
    path = ic_comm_path(h, 64);
    ck_assert_double_eq_tol(ic_comm_busbw_achieved(h, &path), 450e9, 1);
    free(h);
}
END_TEST

START_TEST(test_comm_in_step)
{
    /* Two all-reduces of B * D * 2 bytes per layer. llama3-70b, 16 v5e,
     * batch 32: 80 layers * 2 * allreduce(32 * 8192 * 2 B). */
    struct ic_point p = ic_test_decode("llama3-70b", "v5e",
                                       cfg(16, 32, 8192, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16));
    /* all-reduce of 524,288 B on the 4x4 torus: 2 * (15/16 * 524,288 / 1.8e11
     * + 4 us) = 13.4613 us; 160 of them = 2.15381 ms */
    ck_assert_double_eq_tol(p.comm_s, 2.15381e-3, 1e-8);
    ck_assert_double_eq_tol(p.comm_bytes, 160 * 32.0 * 8192 * 2, 1);
    /* serial mode adds it */
    struct ic_decode_cfg c = cfg(16, 32, 8192, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16);
    c.comm = IC_COMM_SERIAL;
    struct ic_point s = ic_test_decode("llama3-70b", "v5e", c);
    ck_assert_double_eq_tol(s.step_s, p.step_s + p.comm_s, 1e-12);
    /* a small model over many chips is collective-bound and says so */
    struct ic_point q = ic_test_decode("llama3-8b", "v5e",
                                       cfg(256, 1, 128, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_int_eq(q.bound, IC_BOUND_COMM);
    ck_assert_double_eq(q.step_s, q.comm_s);
}
END_TEST

/* the largest batch that fits is at most the largest --batch accepted
 * (2^24): llama3-70b on 64 H100s given 1 PB each at context 1 would hold
 * about 1e15 / (a few kB of KV and workspace a sequence) = 1e11 */
START_TEST(test_max_batch_clamped)
{
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *h = malloc(sizeof *h);
    struct ic_model_stats st;
    ic_test_model("llama3-70b", m, &st);
    ic_test_hw("h100", h);
    h->hbm_capacity_B = 1e15;
    struct ic_point p;
    struct ic_err e = {0};
    const struct ic_decode_cfg c = cfg(64, 1, 1, IC_DT_INT4, IC_DT_FP8, IC_DT_BF16);
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_uint_eq(p.max_batch, IC_DECODE_MAX_BATCH);
    free(m);
    free(h);
}
END_TEST

START_TEST(test_memory_and_max_batch)
{
    /* llama3-70b bf16 on 16 v5e, context 2048. Weights per chip: the k/v
     * projections 80 * 2 * 8192 * 1024 = 1,342,177,280 split 8 ways (8 KV
     * heads), the norms 80 * 2 * 8192 + 8192 = 1,318,912 on every chip, the
     * other 69,210,210,304 16 ways: 167,772,160 + 1,318,912 + 4,325,638,144
     * = 4,494,729,216 params = 8,989,458,432 B. KV per sequence 2048 * 327,680 = 671 MB, split 8
     * ways by head and 2 by batch: 83.9 MB per sequence on ceil(B/2) slots.
     * Room 16 - 8.987 = 7.013 GB -> 83 slots -> B = 166. */
    struct ic_point p = ic_test_decode("llama3-70b", "v5e",
                                       cfg(16, 1, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_uint_eq(p.max_batch, 166);
    ck_assert_double_eq_tol(p.mem_weights_B, 8989458432.0, 1);
    ck_assert_uint_eq(p.kv_split_heads, 8);
    ck_assert_uint_eq(p.kv_split_batch, 2);
    struct ic_model *m = malloc(sizeof *m);
    struct ic_model_stats st;
    ic_test_model("llama3-70b", m, &st);
    struct ic_decode_cfg c = cfg(16, 1, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    ck_assert(ic_decode_mem_per_chip(&st, &c, 166) <= 16e9);
    ck_assert(ic_decode_mem_per_chip(&st, &c, 167) > 16e9);
    p = ic_test_decode("llama3-70b", "v5e", cfg(16, 167, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert(!p.fits);
    /* weights alone overflow one chip: nothing fits */
    p = ic_test_decode("llama3-70b", "v5e", cfg(1, 1, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_uint_eq(p.max_batch, 0);
    ck_assert(!p.fits);
    /* max_batch is exact for odd splits too (12 chips: 4 by head, 3 by batch) */
    for (uint64_t chips = 1; chips <= 64; chips++) {
        c = cfg(chips, 1, 4096, IC_DT_INT8, IC_DT_INT8, IC_DT_BF16);
        struct ic_hw *h = malloc(sizeof *h);
        ic_test_hw("h100", h);
        struct ic_err e = {0};
        ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
        if (p.max_batch) {
            ck_assert(ic_decode_mem_per_chip(&st, &c, p.max_batch) <= h->hbm_capacity_B);
            ck_assert(ic_decode_mem_per_chip(&st, &c, p.max_batch + 1) > h->hbm_capacity_B);
        }
        free(h);
    }
    free(m);
}
END_TEST

START_TEST(test_moe_reads)
{
    /* Mixtral 8x7B at batch 1 reads the non-expert weights and 2 of the 8
     * experts per layer; at batch 64 all 8 (8 * (1 - 0.75^64) = 8.0). */
    /* Routed experts: 32 layers * 8 * 3 * 4096 * 14336 = 45,097,156,608;
     * the rest read per step (total 46,702,792,704 less the experts and the
     * 32000 * 4096 embedding) 1,474,564,096. bf16, batch 1:
     * 2 * (1,474,564,096 + 45,097,156,608 / 4) = 25,497,706,496 B. */
    struct ic_point p = ic_test_decode("mixtral-8x7b", "h100",
                                       cfg(1, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_double_eq_tol(p.weight_bytes, 25497706496.0, 1);
    ck_assert_double_eq_tol(p.experts_touched, 2, 1e-12);
    /* batch 64: all 8 -> 2 * 46,571,720,704 = 93,143,441,408 B */
    p = ic_test_decode("mixtral-8x7b", "h100", cfg(1, 64, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert(ic_test_rel(p.weight_bytes, 93143441408.0) < 1e-6);
    /* FLOPs follow the 12,748,853,248 active parameters, not the touched ones */
    ck_assert(ic_test_rel(p.compute_s, 2.0 * 64 * 12748853248.0 / 989e12) < 1e-9);
    ck_assert_double_eq_tol(p.b_crit_moe, p.b_crit * 4, 1e-9); /* E/k = 8/2 */
}
END_TEST

START_TEST(test_mla_intensity)
{
    /* DeepSeek-V3's absorbed MLA does 278,528 FLOP per cached token per
     * layer over 576 cached values: with fp8 KV that is 483.6 FLOP/B, above
     * H100's bf16 ridge (9.89e14 / 3.35e12 = 295), so attention is
     * compute-bound: attn_s / kv_s = 483.6 * W / C. */
    struct ic_hw *h = malloc(sizeof *h);
    ic_test_hw("h100", h);
    struct ic_point p = ic_test_decode("deepseek-v3", "h100",
                                       cfg(8, 64, 32768, IC_DT_FP8, IC_DT_FP8, IC_DT_BF16));
    double ratio = 278528.0 / 576.0 * h->hbm_bandwidth_B_s / h->peak_flop_s[IC_DT_BF16];
    ck_assert(278528.0 / 576.0 > h->peak_flop_s[IC_DT_BF16] / h->hbm_bandwidth_B_s);
    ck_assert(p.attn_s > p.kv_s);
    free(h);
    ck_assert(ic_test_rel(p.attn_s / p.kv_s, ratio) < 1e-3);
    /* one latent per token: the cache splits by batch only */
    ck_assert_uint_eq(p.kv_split_heads, 1);
    ck_assert_uint_eq(p.kv_split_batch, 8);
}
END_TEST

START_TEST(test_uneven_split)
{
    /* llama3-70b on 3 chips: 64 query heads split 22/21/21. The q/o group
     * (80 * 2 * 8192 * 8192 = 10,737,418,240) puts 22/64 of itself,
     * 3,690,987,520, on the busiest chip, not a third. */
    struct ic_point p3 = ic_test_decode("llama3-70b", "h100",
                                        cfg(3, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    struct ic_point p4 = ic_test_decode("llama3-70b", "h100",
                                        cfg(4, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert(p3.uneven_split);
    ck_assert(!p4.uneven_split);
    struct ic_model *m = malloc(sizeof *m);
    struct ic_model_stats st;
    ic_test_model("llama3-70b", m, &st);
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS], 10737418240u);
    /* the even share would be 10,737,418,240 / 3; the busiest holds 22/64 */
    double extra = (3690987520.0 - 10737418240.0 / 3) * 2; /* bytes */
    double even = 0;
    for (int g = 0; g < IC_PG_COUNT; g++)
        if (g != IC_PG_EMBED)
            even += (double)st.group_params[g] / (g == IC_PG_REPLICATED ? 1 : 3) * 2;
    /* 8 KV heads on 3 chips: ceil(8/3) = 3 of 8 */
    even += ((double)st.group_params[IC_PG_ATTN_KV] * 3 / 8 -
             (double)st.group_params[IC_PG_ATTN_KV] / 3) * 2;
    /* the MLP's 28,672 columns split 9,558/9,557/9,557: 3e-5 above a third */
    ck_assert(ic_test_rel(p3.weights_s, (even + extra) / 3.35e12) < 1e-4);
    ck_assert(ic_test_rel(p3.weights_s, even / 3.35e12) > 1e-3); /* the heads matter */
    free(m);
}
END_TEST

START_TEST(test_expected_from_measured)
{
    /* tests/fixtures/measured-cpu.yaml: gemv fp32 25 GB/s, bf16 20 GB/s;
     * gemm fp32 100 GFLOP/s, bf16 80; p = 2; fork/join 2 us; LLC 32 MiB.
     * llama3-8b, fp32 weights, bf16 KV, batch 1, context 1:
     *   weights 7,504,924,672 params * 4 B / 25e9 = 1.200788 s
     *   compute: the in-cache time at batch 1 less one pass over the
     *   weights at the batch-1 rate (the same here, no gemm_by_batch):
     *   2 * 7,504,924,672 / 1e11 - the same      = 0 s
     *   linear sqrt(1.200788^2 + 0^2)             = 1.200788 s
     *   KV: the cache of 1 token read (131,072 B) and the new token's
     *   written (131,072 B): 262,144 B / 20e9 = 13.1072 us; attention
     *   16,384 * 32 FLOP / 8e10 = 6.5536 us; joined: 14.654 us
     *   fixed (8 * 32 + 2) regions * 2 us         = 516 us
     *   step                                      = 1.201319 s
     * (1.210663 s while the compute term was 2 * params / 1e11 = 0.150098 s
     * at batch 1, the weight stream counted twice)
     * batch 8: compute 8 * 0.150098 - 0.150098   = 1.050689 s */
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/measured-cpu.yaml");
    const struct ic_model_stats st = t->st;
    struct ic_hw *h = &t->h;
    struct ic_err e = {0};
    ck_assert(h->measured.present);
    /* validate's probe reference, as written (27 GB/s), beside the read figure */
    ck_assert_double_eq_tol(h->measured.probe_B_s, 27e9, 1);
    struct ic_decode_cfg c = cfg(1, 1, 1, IC_DT_FP32, IC_DT_BF16, IC_DT_FP32);
    c.estimate = IC_EST_EXPECTED;
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.weights_s, 1.200788, 1e-6);
    ck_assert_double_eq_tol(p.fixed_s, 516e-6, 1e-12);
    ck_assert_double_eq_tol(p.compute_s, 0, 1e-12);
    ck_assert_double_eq_tol(p.step_s, 1.201319, 2e-6);
    ck_assert_double_eq_tol(p.kv_s, 13.1072e-6, 1e-12);
    struct ic_decode_cfg c8 = c;
    c8.batch = 8;
    struct ic_point p8;
    ck_assert_int_eq(ic_decode(&st, h, &c8, &p8, &e), 0);
    ck_assert_double_eq_tol(p8.compute_s, 1.050689, 2e-6);
    ck_assert_double_eq_tol(p8.weights_s, 1.200788, 1e-6);
    ck_assert_double_eq_tol(p.kv_write_bytes, 131072, 1e-6);
    ck_assert(!p.cache_resident);
    /* the row work, measured at width 2048 and scaled to llama3-8b's 4096:
     * 32 layers x 8 sequences x 10 us x 4096 / 2048 = 5.12 ms beside the
     * regions' 516 us; unscaled (no width in the entry) 2.56 ms */
    h->measured.layer_work_s = 10e-6;
    h->measured.layer_work_dim = 2048;
    ck_assert_int_eq(ic_decode(&st, h, &c8, &p8, &e), 0);
    ck_assert_double_eq_tol(p8.fixed_s, 516e-6 + 5.12e-3, 1e-12);
    h->measured.layer_work_dim = 0;
    ck_assert_int_eq(ic_decode(&st, h, &c8, &p8, &e), 0);
    ck_assert_double_eq_tol(p8.fixed_s, 516e-6 + 2.56e-3, 1e-12);
    h->measured.layer_work_s = 0;
    /* a time per attention score (bf16 KV) beside the FLOP rate: the
     * step's scores are its FLOPs over 4 x head_dim = 524,288 / 512 = 1024
     * (32 query heads x 32 layers x 1 cached token); at 10 ns each the
     * attention is 6.5536 + 10.24 = 16.7936 us */
    ck_assert_double_eq_tol(p.attn_s, 6.5536e-6, 1e-12);
    h->measured.attn_score_s[IC_DT_BF16] = 10e-9;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.attn_s, 16.7936e-6, 1e-12);
    /* an attention probe at half its benched rate doubles the attention
     * (33.5872 us), whatever the compute probe says (compute_scale 4 would
     * have made it 4.1984 us), and leaves the weights as they were */
    c.attn_scale = 0.5;
    c.compute_scale = 4;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.attn_s, 33.5872e-6, 1e-12);
    ck_assert_double_eq_tol(p.weights_s, 1.200788, 1e-6);
    /* without one (0), the compute probe's scale stands in: 4.1984 us */
    c.attn_scale = 0;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.attn_s, 4.1984e-6, 1e-12);
    c.compute_scale = 1;
    h->measured.attn_score_s[IC_DT_BF16] = 0;
    /* a probe at half the benched bandwidth doubles the memory time */
    c.bw_scale = 0.5;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.weights_s, 2 * 1.200788, 2e-6);
    /* the ideal bound ignores the measured figures: 30,019,698,688 B at the
     * memory section's 1 TB/s */
    c = cfg(1, 1, 1, IC_DT_FP32, IC_DT_BF16, IC_DT_FP32);
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.weights_s, 30019698688.0 / 1e12, 1e-12);
    /* types the bench did not measure are refused, not guessed */
    c.estimate = IC_EST_EXPECTED;
    c.weights = IC_DT_INT8;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no measured rates for int8"));
    /* entries without measured figures have no expected time */
    ic_test_hw("h100", h);
    c = cfg(1, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_EINVAL);
    free(t);
}
END_TEST

START_TEST(test_expected_probes_and_types)
{
    /* tests/fixtures/measured-cpu-types.yaml: measured-cpu.yaml plus
     * probe_gemm 50 GFLOP/s and transition_p_by_type {fp32: 1}.
     * llama3-8b, batch 1, context 1, bf16 KV (figures of
     * test_expected_from_measured):
     *   fp32 weights, batch 2: p = 1, the times add:
     *     compute 2 * 0.150098 - 0.150098 = 0.150098 s (in cache at batch
     *     2 less one pass over the weights at batch 1's rate)
     *     linear 1.200788 + 0.150098 = 1.350886 s; KV 2 * 262,144 B / 20e9
     *     = 26.2144 us, attention 2 * 6.5536 = 13.1072 us, joined (global
     *     p = 2) 29.309 us; fixed 516 us; step 1.351431 s
     *   compute_scale 0.5 (a compute probe at half the benched one): the
     *     compute terms double, memory stays:
     *     linear 1.200788 + 0.300197 = 1.500985 s; attention
     *     sqrt(26.2144^2 + 26.2144^2) = 37.073 us; step 1.501538 s
     *   bf16 weights, batch 1 (no exponent of its own: the global p = 2):
     *     compute 0, linear 0.750492 s; attention 14.654 us; step 0.751023 s */
    struct ic_test_pair *t =
        ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/measured-cpu-types.yaml");
    struct ic_hw *h = &t->h;
    struct ic_err e = {0};
    ck_assert_double_eq_tol(h->measured.probe_gemm_flop_s, 50e9, 1);
    ck_assert_double_eq(h->measured.transition_p_type[IC_DT_FP32], 1);
    ck_assert_double_eq(h->measured.transition_p_type[IC_DT_BF16], 0); /* not given */
    struct ic_decode_cfg c = cfg(1, 2, 1, IC_DT_FP32, IC_DT_BF16, IC_DT_FP32);
    c.estimate = IC_EST_EXPECTED;
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&t->st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.compute_s, 0.150098, 2e-6);
    ck_assert_double_eq_tol(p.step_s, 1.351431, 2e-6);
    c.compute_scale = 0.5;
    ck_assert_int_eq(ic_decode(&t->st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.compute_s, 2 * 0.150098, 2e-6);
    ck_assert_double_eq_tol(p.weights_s, 1.200788, 2e-6);
    ck_assert_double_eq_tol(p.step_s, 1.501538, 2e-6);
    c = cfg(1, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_FP32);
    c.estimate = IC_EST_EXPECTED;
    ck_assert_int_eq(ic_decode(&t->st, h, &c, &p, &e), 0);
    ck_assert_double_eq_tol(p.step_s, 0.751023, 2e-6);
    free(t);
}
END_TEST

/* Past the query heads and past the fabric: llama3-70b has 64 query
 * heads, so on 256 v5e chips each chip holds one head's q/o projections
 * (10,737,418,240 / 64 parameters), 4 copies in all where 64 chips would
 * hold one; H100's NVLink domain is 8 chips (hwdb), so 16 chips span 2
 * domains of 8 and 8 chips one; v5e's ICI domain is 256 chips: one. */
START_TEST(test_heads_copied_domains)
{
    struct ic_point p256 = ic_test_decode("llama3-70b", "v5e",
                                          cfg(256, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    struct ic_point p64 = ic_test_decode("llama3-70b", "v5e",
                                         cfg(64, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_uint_eq(p256.query_heads, 64);
    ck_assert(!p256.uneven_split);
    ck_assert_uint_eq(p256.comm_domains, 1);
    ck_assert_uint_eq(p256.comm_domain_chips, 256);
    /* the step's weight bytes over all chips, 256 against 64: q/o 3 more
     * copies of 2 B x 10,737,418,240 = 21,474,836,480 B; k/v (8 heads,
     * 2 B x 1,342,177,280 = 2,684,354,560 B a copy) 32 copies against 8;
     * the replicated norms (2 B x 1,318,912) on 192 more chips; the MLP
     * (28672 wide) and the vocabulary (128256) split evenly either way:
     * 64,424,509,440 + 64,424,509,440 + 506,462,208 = 129,355,481,088 B */
    ck_assert_double_eq_tol(p256.weight_bytes - p64.weight_bytes, 129355481088.0, 1);
    struct ic_point h16 = ic_test_decode("llama3-70b", "h100",
                                         cfg(16, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    struct ic_point h8 = ic_test_decode("llama3-70b", "h100",
                                        cfg(8, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    struct ic_point h1 = ic_test_decode("llama3-70b", "h100",
                                        cfg(1, 1, 1, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
    ck_assert_uint_eq(h16.comm_domains, 2);
    ck_assert_uint_eq(h16.comm_domain_chips, 8);
    ck_assert_uint_eq(h8.comm_domains, 1);
    ck_assert_uint_eq(h8.comm_domain_chips, 8);
    ck_assert_uint_eq(h1.comm_domains, 1);
    ck_assert_uint_eq(h1.comm_domain_chips, 1);
}
END_TEST

/* The context sweep runs 128, 256, ... to the model's usable context and
 * ends exactly there: llama2-7b's 4096 (128 .. 4096: 6 values), whatever
 * the base context (2048 or 8192 past it); a model stating none runs to
 * 131072 (11 values), or to a base context past that. */
START_TEST(test_context_sweep_stops)
{
    struct ic_test_pair *t = ic_test_pair("llama2-7b", "h100");
    ck_assert_uint_eq(t->st.max_context, 4096);
    uint64_t v[IC_SWEEP_MAX_VALUES];
    struct ic_decode_cfg c = ic_decode_defaults();
    for (int k = 0; k < 2; k++) {
        c.context = k ? 8192 : 2048;
        size_t n = ic_sweep_values(IC_AXIS_CONTEXT, &t->st, &t->h, &c, v);
        ck_assert_uint_eq(n, 6);
        ck_assert_uint_eq(v[0], 128);
        ck_assert_uint_eq(v[5], 4096);
    }
    t->st.max_context = 0;
    c.context = 2048;
    ck_assert_uint_eq(ic_sweep_values(IC_AXIS_CONTEXT, &t->st, &t->h, &c, v), 11);
    ck_assert_uint_eq(v[10], 131072);
    c.context = 200000;
    ck_assert_uint_eq(ic_sweep_values(IC_AXIS_CONTEXT, &t->st, &t->h, &c, v), 12);
    ck_assert_uint_eq(v[11], 200000);
    free(t);
}
END_TEST

/* What a sequence holds a token beside the full-attention figure: Mistral
 * 7B's every layer windowed at 4096, so at context 32768 a token holds
 * 131072 x 4096 / 32768 = 16384 B, at 2048 all of 131072; Gemma 2 9B's
 * 21 of 42 layers windowed at 4096 (2 x 8 x 256 x 2 B = 8192 B a layer,
 * 344064 in all), so at 8192 (21 x 8192 + 21 x 4096) / (42 x 8192) = 0.75
 * of it, 258048 B. */
START_TEST(test_kv_held_windows)
{
    const struct {
        const char *model;
        uint64_t context;
        double full, held;
    } c[] = {{"mistral-7b", 32768, 131072, 16384},
             {"mistral-7b", 2048, 131072, 131072},
             {"gemma2-9b", 8192, 344064, 258048}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct ic_point p = ic_test_decode(
            c[i].model, "h100", cfg(1, 1, c[i].context, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16));
        ck_assert_uint_eq(p.kv_bytes_per_token, (uint64_t)c[i].full);
        ck_assert_double_eq_tol(p.kv_held_per_token, c[i].held, 1e-9);
    }
}
END_TEST

/* ic_decode writes every field of its point (it does not clear the point
 * first): a point computed over a buffer of 0xA5 bytes reports exactly what
 * one computed over zeros does, in JSON and in the CSV that carries every
 * JSON field, for a dense, an MoE and an MLA model. */
static char *report(const struct ic_point *p, enum ic_format f)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(out);
    const struct ic_report r = {.array = false};
    const struct ic_report_group g = {"m", "h", p, 1};
    ck_assert_int_eq(ic_report_write(out, f, &r, &g, 1), 0);
    fclose(out);
    return buf;
}

START_TEST(test_every_field_written)
{
    static const char *const models[] = {"llama3-70b", "mixtral-8x7b", "deepseek-v3"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        struct ic_test_pair *t = ic_test_pair(models[i], "h100");
        struct ic_decode_cfg c = cfg(8, 3, 1000, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
        struct ic_point *a = malloc(sizeof *a), *b = malloc(sizeof *b);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        memset(a, 0, sizeof *a);
        memset(b, 0xA5, sizeof *b);
        struct ic_err e = {0};
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, a, &e), IC_OK);
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, b, &e), IC_OK);
        for (int f = IC_FMT_TABLE; f < IC_FMT_COUNT; f++) {
            char *ra = report(a, (enum ic_format)f), *rb = report(b, (enum ic_format)f);
            ck_assert_str_eq(ra, rb);
            free(ra);
            free(rb);
        }
        free(a);
        free(b);
        free(t);
    }
}
END_TEST

/* Every compute type is a key of every measured section: a benched entry
 * with fp16, fp8, int8, int4 and fp4 rates (tests/fixtures/
 * measured-cpu-all-types.yaml: gemv_dram 31..35 GB/s, gemv_cache 101..105,
 * gemm 201..205 GFLOP/s, gemm_by_batch 10(k+1)+i, attention 301..305,
 * transition_p 3..7, i the type's place in fp16 fp8 int8 int4 fp4) loads
 * with each figure where it was written. */
START_TEST(test_measured_every_type)
{
    struct ic_hw *h = malloc(sizeof *h);
    ck_assert_ptr_nonnull(h);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_hw_load(IC_TEST_DIR "/fixtures/measured-cpu-all-types.yaml", h, &e), 0);
    static const enum ic_dtype types[] = {IC_DT_FP16, IC_DT_FP8, IC_DT_INT8, IC_DT_INT4,
                                          IC_DT_FP4};
    for (int i = 0; i < 5; i++) {
        const enum ic_dtype t = types[i];
        ck_assert_double_eq_tol(h->measured.gemv_B_s[t], (31 + i) * 1e9, 1);
        ck_assert_double_eq_tol(h->measured.gemv_cache_B_s[t], (101 + i) * 1e9, 1);
        ck_assert_double_eq_tol(h->measured.gemm_flop_s[t], (201 + i) * 1e9, 1);
        ck_assert_double_eq_tol(h->measured.attn_flop_s[t], (301 + i) * 1e9, 1);
        ck_assert_double_eq_tol(h->measured.transition_p_type[t], 3 + i, 1e-12);
        for (int k = 0; k < IC_HW_GEMM_BATCHES; k++)
            ck_assert_double_eq_tol(h->measured.gemm_by_batch[t][k], (10.0 * (k + 1) + i) * 1e9, 1);
    }
    free(h);
}
END_TEST

/* The expected time from an accelerator's achieved rates
 * (tests/fixtures/achieved-h100.yaml: the frozen H100 with hbm_read 3.0
 * TB/s at GEMV efficiency 0.9, bf16 GEMM 700 TFLOP/s, all-reduce 20 us +
 * bus bandwidth 360 GB/s on 8 chips, 2 us per kernel in a graph, 10
 * kernels per layer).
 * Llama-3-8B, one chip, batch 1, context 1024, bf16:
 *   weights read = 8,030,261,248 - 525,336,576 (embedding) = 7,504,924,672
 *     params x 2 B = 15,009,849,344 B / (3.0e12 x 0.9) = 5.559203461 ms
 *   cache = 1024 tokens read + 1 written, 32 layers x 8 heads x 128 x 2
 *     (K, V) x 2 B = 131,072 B a token: 134,348,800 B / 2.7e12 = 49.7588 us
 *   linear FLOPs 2 x 7,504,924,672 / 700e12 = 21.44 us (under the weights)
 *   launches 10 x 32 layers x 2 us = 640 us
 *   step = 5.559203461 + 0.0497588 + 0.640 = 6.248962 ms. */
START_TEST(test_expected_from_achieved)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    ck_assert(t->h.achieved.present);
    struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    struct ic_point p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weight_bytes, 15009849344.0, 1);
    ck_assert_double_eq_tol(p.weights_s, 15009849344.0 / 2.7e12, 1e-12);
    ck_assert_double_eq_tol(p.kv_s, 134348800.0 / 2.7e12, 1e-12);
    ck_assert_double_eq_tol(p.fixed_s, 640e-6, 1e-12);
    ck_assert_double_eq_tol(p.step_s, 6.248962e-3, 1e-9);
    ck_assert_int_eq(p.bound, IC_BOUND_WEIGHTS);
    /* the ideal bound on the same entry: 15,009,849,344 / 3.35e12 + cache
     * 134,348,800 / 3.35e12 = 4.5206 ms, no floor */
    c.estimate = IC_EST_IDEAL;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.step_s, (15009849344.0 + 134348800.0) / 3.35e12, 1e-9);

    /* Tensor parallel over 8 chips, batch 1: 64 all-reduces of 4096 x 2 =
     * 8,192 B, each 20 us + 2 x 7/8 x 8,192 / 360e9 = 20.0398 us: 1.282549
     * ms, more than the weights: the step is collective-latency bound and
     * the collectives come after the kernels. Weights per chip: an eighth
     * of 15,009,849,344 B = 1,876,231,168 B plus the norms every chip holds
     * whole (2 x 32 x 4096 + 4096 = 266,240 params = 532,480 B, of which
     * an eighth was counted): + 465,920 = 1,876,697,088 B / 2.7e12 =
     * 0.695073 ms.
     *   weights 0.695073 + cache (8 heads, 8 ways: 134,348,800 / 8 /
     *   2.7e12 = 6.2199 us) + launches 0.640 + all-reduces 1.282549
     *   = 2.623841 ms. */
    c = cfg(8, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    const double ar = 20e-6 + 2.0 * 7.0 / 8.0 * 8192.0 / 360e9;
    ck_assert_double_eq_tol(p.comm_s, 64 * ar, 1e-12);
    ck_assert_int_eq(p.bound, IC_BOUND_COMM);
    ck_assert_double_eq_tol(p.weights_s, 1876697088.0 / 2.7e12, 1e-12);
    ck_assert_double_eq_tol(p.step_s,
                            1876697088.0 / 2.7e12 + 134348800.0 / 8.0 / 2.7e12 + 640e-6 + 64 * ar,
                            1e-12);
    ck_assert_double_eq_tol(p.step_s, 2.623841e-3, 1e-9);

    /* one program per step (a TPU's: kernels_per_layer 0, step_launches 1):
     * the floor is one launch, 5 us (the entry's), not 32 x 10 x 2 us;
     * a graph's own launch beside its nodes adds one 'launch' */
    struct ic_hw h2 = t->h;
    h2.achieved.kernels_per_layer = 0;
    h2.achieved.step_launches = 1;
    c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.fixed_s, h2.achieved.launch_s, 1e-15);
    ck_assert_double_eq_tol(p.fixed_s, 5e-6, 1e-15);
    h2.achieved.kernels_per_layer = 10;
    ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.fixed_s, 640e-6 + 5e-6, 1e-15);
    /* The transition between the bounds where the entry fits one for the
     * compute type. Batch 256 (256 x 1024-token caches): the weights read
     * in 15,009,849,344 / 2.7e12 = 5.559203 ms, their FLOPs (2 x
     * 7,504,924,672 a token) in 256 x 15,009,849,344 / 700e12 = 5.489316
     * ms, within 2% of each other. Their max is 5.559203 ms; at
     * p = 3, (5.559203^3 + 5.489316^3)^(1/3) = (171.8069 + 165.4064)^(1/3)
     * = 6.960410 ms: 1.401206 ms more, the cache, launches and all else
     * the same. A p for fp8 alone leaves this bf16 step at the max. */
    h2 = t->h;
    c = cfg(1, 256, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    struct ic_point pmax;
    ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &pmax, &e), IC_OK);
    ck_assert_double_eq_tol(pmax.weights_s, 5.559203461e-3, 1e-12);
    ck_assert_double_eq_tol(pmax.compute_s, 256 * 15009849344.0 / 700e12, 1e-12);
    h2.achieved.transition_p[IC_DT_FP8] = 3;
    ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
    ck_assert_double_eq(p.step_s, pmax.step_s);
    h2.achieved.transition_p[IC_DT_BF16] = 3;
    ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.step_s - pmax.step_s, 1.401206343e-3, 1e-12);
    ck_assert_double_eq_tol(p.kv_s, pmax.kv_s, 1e-15);

    /* both estimates at once (cfg.both): the expected step beside the
     * ideal one, each as computed alone above */
    c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.both = true;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert(p.other_known);
    ck_assert_double_eq_tol(p.step_s, (15009849344.0 + 134348800.0) / 3.35e12, 1e-9);
    ck_assert_double_eq_tol(p.other_step_s, 6.248962e-3, 1e-9);

    /* a compute type the section lacks is refused with the reason */
    c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_FP16);
    c.estimate = IC_EST_EXPECTED;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "no achieved fp16 GEMM rate"));
    free(t);
}
END_TEST

/* The achieved all-reduce's bus bandwidth at a size other than the one it
 * was measured on (ic_comm_busbw_achieved): the figure over the link
 * bandwidth the fabric gives allreduce_chips chips, carried to Y chips.
 * The achieved H100 fixture: 20 us + 360 GB/s busbw measured on 8 chips;
 * all-reduces of 1 MB (1e6 B) a chip.
 *   switch (18 links x 25 GB/s at every size): 2 chips read 360 GB/s as
 *     measured: 20 us + 2 x 1/2 x 1e6 / 360e9 = 22.777778 us;
 *   a full mesh of 7 links x 64 GB/s (MI300X's): 8 chips reach 7 links
 *     (448 GB/s), 2 chips 1 link, 4 chips 3: busbw 360 x 1/7 = 51.428571
 *     GB/s and 360 x 3/7 = 154.285714 GB/s:
 *     2 chips 20 + 1e6 / 51.428571e9 s = 20 + 19.444444 = 39.444444 us,
 *     4 chips 20 + 1.5e6 / 154.285714e9 s = 20 + 9.722222 = 29.722222 us,
 *     8 chips 20 + 1.75e6 / 360e9 s = 24.861111 us (as measured);
 *   a 2D torus of 4 links x 45 GB/s, measured on 4 chips (2 x 2: one
 *     link an axis, 90 GB/s) at 37.5 GB/s: 16 chips (4 x 4: two a ring
 *     axis, 180 GB/s) read 75 GB/s, 8 chips (4 x 2: 3 links, 135 GB/s)
 *     56.25 GB/s; and the latency grows by the hops past the measured 2 x
 *     2's two (1 + 1), each crossed twice at the 2 us hop: 16 chips (2 + 2
 *     hops) 2 x 2 x 2 = 8 us more, 8 chips (2 + 1) 4 us more:
 *     16 chips 20 + 8 + 2 x 15/16 x 1e6 / 75e9 s = 28 + 25 = 53 us,
 *     8 chips 20 + 4 + 1.75e6 / 56.25e9 s = 24 + 31.111111 = 55.111111 us.
 * The mesh's 2-chip figure is over its ideal all-reduce (one link: 2 x
 * 1/2 x 1e6 / 64e9 = 15.625 us and two hops), where the figure measured on
 * 8 chips, unscaled, read 22.78 us: 360 GB/s of bus over one 64 GB/s link. */
START_TEST(test_achieved_allreduce_by_size)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_hw h = t->h;
    const double A = 1e6;
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 2, A), 22.777778e-6, 1e-12);
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 8, A), 24.861111e-6, 1e-12);

    h.ici_topology = IC_TOPO_FULL_MESH;
    h.ici_links = 7;
    h.ici_link_B_s = 64e9;
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 2, A), 39.444444e-6, 1e-12);
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 4, A), 29.722222e-6, 1e-12);
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 8, A), 24.861111e-6, 1e-12);
    ck_assert(ic_comm_allreduce_achieved_s(&h, 2, A) > ic_comm_allreduce_s(&h, 2, A));
    /* 16 chips: two domains of 8 (the measured size: 24.861111 us within)
     * and between them the scale-out's part twice (reduce-scatter and
     * all-gather): (2 - 1) / 2 x (1e6 / 8) B / 50e9 B/s (400 Gbit/s) + 5
     * us = 6.25 us, x 2 = 12.5 us: 37.361111 us */
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 16, A), 37.361111e-6, 1e-12);

    h.ici_topology = IC_TOPO_TORUS_2D;
    h.ici_links = 4;
    h.ici_link_B_s = 45e9;
    h.ici_domain_chips = 256;
    h.achieved.allreduce_chips = 4;
    h.achieved.allreduce_busbw_B_s = 37.5e9;
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 16, A), 53e-6, 1e-12);
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 8, A), 55.111111e-6, 1e-12);
    ck_assert_double_eq_tol(ic_comm_allreduce_achieved_s(&h, 4, A),
                            20e-6 + 1.5e6 / 37.5e9, 1e-12);
    free(t);

    /* the shipped H100 PCIe entry models a PCIe fabric (one 64 GB/s link a
     * card): its achieved all-reduces, at 1 kB and 1 MB over 2 to 8
     * cards, take no less than the ideal ones over those links (until
     * 2026-12-03 it carried an NVLink-bridged pair's 116 GB/s) */
    struct ic_hw pcie;
    ic_test_live_hw("h100-pcie", &pcie);
    for (uint64_t n = 2; n <= 8; n *= 2)
        for (double a = 1e3; a <= 1e6; a *= 1e3)
            ck_assert_msg(ic_comm_allreduce_achieved_s(&pcie, n, a) >=
                              ic_comm_allreduce_s(&pcie, n, a),
                          "%llu cards, %g B", (unsigned long long)n, a);
    /* ... nor do the TPUs', on slices of any size (their measured latency
     * alone, at 192 v5e chips, was 0.78 of the ideal one's 20 hops) */
    static const char *const tpus[] = {"tpu-v5e", "tpu-v5p", "tpu-v6e"};
    for (size_t i = 0; i < 3; i++) {
        ic_test_live_hw(tpus[i], &pcie);
        for (uint64_t n = 2; n <= 512; n += n < 16 ? 1 : 16)
            for (double a = 1e3; a <= 1e6; a *= 1e3)
                ck_assert_msg(ic_comm_allreduce_achieved_s(&pcie, n, a) >=
                                  ic_comm_allreduce_s(&pcie, n, a),
                              "%s, %llu chips, %g B", tpus[i], (unsigned long long)n, a);
    }
}
END_TEST

/* The launch floor of MoE and MLA layers on the achieved H100 fixture (2 us
 * a kernel in a graph, 10 kernels a dense layer, no step launch): each MoE
 * layer runs 4 kernels more (router GEMM, top-k, sort by expert, weighted
 * sum around two grouped GEMMs and their activation, where a dense MLP runs
 * 3), shared experts 3 more, MLA 4 more a layer (ic_step.h).
 *   Mixtral-8x7B (32 layers, all MoE, no shared expert):
 *     (10 x 32 + 4 x 32) x 2 us = 448 x 2 us = 896 us
 *   DeepSeek-V3 (61 layers, 58 MoE after 3 dense, one shared expert, MLA):
 *     (10 x 61 + (4 + 3) x 58 + 4 x 61) x 2 us = (610 + 406 + 244) x 2 us
 *     = 1260 x 2 us = 2.52 ms
 *   Llama-3-8B (dense GQA): 10 x 32 x 2 us = 640 us, as before.
 * One program per step (kernels_per_layer 0) launches none of them: the
 * floor stays the one step launch, 5 us, whatever the layers.
 * DeepSeek-V3 in 4 pipeline stages: the busiest holds ceil(61 / 4) = 16
 * layers and ceil(16 / 61 x 58) = ceil(15.21) = 16 MoE layers (as its
 * all-to-alls count them): 10 x 16 + 7 x 16 + 4 x 16 = 336 kernels,
 * 672 us.
 * Nemotron-3-Nano (52 blocks of one mixer or one MLP each: 23 Mamba, 6
 * attention, 23 MoE with a shared expert): 29 mixers x 6 (add + RMSNorm
 * and the 5 of a GQA attention or a Mamba2 mixer) + 23 MLP blocks x 4
 * (add + RMSNorm, up, activation, down) + 23 x (4 + 3) = 174 + 92 + 161
 * = 427 kernels, 854 us: beyond 10 x 29 = 290, 137 (161 less the six
 * attention blocks' missing MLPs, 6 x 4). */
START_TEST(test_expected_moe_mla_kernels)
{
    static const struct {
        const char *model;
        double extra, fixed;
    } cases[] = {
        {"mixtral-8x7b", 128, 896e-6},
        {"deepseek-v3", 650, 2.52e-3},
        {"llama3-8b", 0, 640e-6},
        {"nemotron-3-nano-30b-a3b", 137, 854e-6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ic_test_pair *t =
            ic_test_pair(cases[i].model, IC_TEST_DIR "/fixtures/achieved-h100.yaml");
        ck_assert_double_eq_tol(ic_step_extra_kernels(&t->st, (double)t->st.n_moe_layers,
                                                      (double)t->st.n_layers),
                                cases[i].extra, 1e-12);
        struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
        c.estimate = IC_EST_EXPECTED;
        struct ic_point p;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
        ck_assert_double_eq_tol(p.fixed_s, cases[i].fixed, 1e-12);
        struct ic_hw h2 = t->h;
        h2.achieved.kernels_per_layer = 0;
        h2.achieved.step_launches = 1;
        ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
        ck_assert_double_eq_tol(p.fixed_s, 5e-6, 1e-15);
        if (!strcmp(cases[i].model, "deepseek-v3")) {
            c.pp = 4;
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
            ck_assert_double_eq_tol(p.fixed_s, 336 * 2e-6, 1e-12);
        }
        free(t);
    }
}
END_TEST

/* A model of separate mixer and MLP blocks (Nemotron-H) launches an
 * MLP's 4 kernels (add + RMSNorm, up, activation, down) and 2 GEMMs in its
 * MLP blocks only, beside a mixer's 6 and 2 (kernels_per_layer 10 less the
 * MLP's 4), whatever the mix:
 *   blocks MM*MM*MM, no MLP block: 8 mixers x 6 = 48 kernels, beyond 10 x 8
 *     -32; 8 x 2 + the head = 17 GEMMs;
 *   blocks M--*--M--, 3 mixers and 6 MLP blocks: 3 x 6 + 6 x 4 = 42
 *     kernels, beyond 10 x 3 +12; 3 x 2 + 6 x 2 + 1 = 19 GEMMs;
 *   Nemotron-3-Nano (29 mixers, 23 MoE blocks with a shared expert) in 2
 *     pipeline stages: the busiest holds ceil(29 / 2) = 15 mixers and
 *     ceil(23 x 15 / 29) = ceil(11.9) = 12 MoE blocks: 15 x 6 + 12 x 4 +
 *     12 x (4 + 3) = 90 + 48 + 84 = 222 kernels, 444 us at the fixture's
 *     2 us graph launch. */
START_TEST(test_mlp_blocks)
{
    static const struct {
        const char *fixture;
        double extra, gemms;
    } cases[] = {{"nemotron-h-no-mlp-config.json", -32, 17},
                 {"nemotron-h-mlp-heavy-config.json", 12, 19}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ic_model_stats st;
        ic_test_fixture_stats(cases[i].fixture, &st);
        ck_assert_double_eq_tol(ic_step_extra_kernels(&st, (double)st.n_moe_layers,
                                                      (double)st.n_layers),
                                cases[i].extra, 1e-12);
        ck_assert_double_eq_tol(ic_step_gemm_kernels(&st, (double)st.n_moe_layers,
                                                     (double)st.n_layers),
                                cases[i].gemms, 1e-12);
    }
    struct ic_test_pair *t =
        ic_test_pair("nemotron-3-nano-30b-a3b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.pp = 2;
    struct ic_point p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.fixed_s, 222 * 2e-6, 1e-12);
    free(t);
}
END_TEST

/* A GEMV's fixed time (hwdb achieved.gemv_fixed: a GEMV table fitted as
 * fixed + bytes / bandwidth) on every GEMM kernel of the step
 * (ic_step_gemm_kernels), on the achieved H100 fixture given 5 us:
 *   Llama-3-8B, 32 dense layers: 4 x 32 + the LM head = 129 GEMMs, 645 us
 *     beside 15,009,849,344 B / 2.7e12 = 5.559203461 ms of weights at batch
 *     1 on one chip: weights 6.204203461 ms, the step 0.645 ms longer;
 *   Mixtral-8x7B, 32 MoE layers without shared experts: 4 x 32 + 32 (the
 *     router beside two grouped GEMMs where a dense MLP runs two) + 1 = 161;
 *   DeepSeek-V3, 61 MLA layers of which 58 MoE with a shared expert:
 *     4 x 61 + 58 x (1 + 2) + 3 x 61 (MLA's five GEMMs against GQA's two)
 *     + 1 = 602; its 4-stage pipeline's busiest stage: 16 layers, 16 MoE
 *     (ceil(58 x 16 / 61) = ceil(15.2)): 64 + 48 + 48 + 1 = 161;
 *   Nemotron-3-Nano, 52 blocks of one mixer or MLP each (23 Mamba, 6
 *     attention, 23 MoE with a shared expert): 29 mixers x 2 + 23 MLPs x 2
 *     + 23 x (1 + 2) + the head = 174 (not 4 a layer: 186).
 * Without the figure (0, every shipped entry but MI300X and B200) nothing
 * moves.
 * A one-row kernel's figures (skinny_efficiency 0.5, skinny_fixed 1 us)
 * serve a step of one token instead: Llama-3-8B at batch 1 reads
 * 15,009,849,344 B / (3.0e12 x 0.5) = 10.006566 ms + 129 x 1 us; at batch
 * 2 the GEMV's figures as above (6.204203461 ms at 5 us, the weights the
 * same bytes). The cache keeps the GEMV's rate either way. */
START_TEST(test_gemv_fixed)
{
    static const struct {
        const char *model;
        double gemms;
    } cases[] = {{"llama3-8b", 129},
                 {"mixtral-8x7b", 161},
                 {"deepseek-v3", 602},
                 {"nemotron-3-nano-30b-a3b", 174}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ic_test_pair *t =
            ic_test_pair(cases[i].model, IC_TEST_DIR "/fixtures/achieved-h100.yaml");
        ck_assert_double_eq_tol(ic_step_gemm_kernels(&t->st, (double)t->st.n_moe_layers,
                                                     (double)t->st.n_layers),
                                cases[i].gemms, 1e-12);
        struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
        c.estimate = IC_EST_EXPECTED;
        struct ic_point p0, p;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p0, &e), IC_OK);
        ck_assert_double_eq(p0.gemm_fixed_s, 0);
        struct ic_hw h2 = t->h;
        h2.achieved.gemv_fixed_s = 5e-6;
        ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
        ck_assert_double_eq_tol(p.gemms, cases[i].gemms, 1e-12);
        ck_assert_double_eq_tol(p.gemm_fixed_s, cases[i].gemms * 5e-6, 1e-15);
        ck_assert_double_eq_tol(p.weights_s - p0.weights_s, cases[i].gemms * 5e-6, 1e-15);
        if (i == 0) {
            ck_assert_double_eq_tol(p.weights_s, 6.204203461e-3, 1e-12);
            ck_assert_double_eq_tol(p.step_s - p0.step_s, 645e-6, 1e-12);
            h2.achieved.skinny_eff = 0.5;
            h2.achieved.skinny_fixed_s = 1e-6;
            struct ic_point q;
            ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &q, &e), IC_OK);
            ck_assert_double_eq_tol(q.weights_s, 15009849344.0 / 1.5e12 + 129e-6, 1e-12);
            ck_assert_double_eq_tol(q.kv_s, p.kv_s, 1e-15);
            struct ic_decode_cfg c2 = c;
            c2.batch = 2;
            ck_assert_int_eq(ic_decode(&t->st, &h2, &c2, &q, &e), IC_OK);
            ck_assert_double_eq_tol(q.weights_s, 6.204203461e-3, 1e-12);
        }
        if (i == 2) {
            c.pp = 4;
            ck_assert_int_eq(ic_decode(&t->st, &h2, &c, &p, &e), IC_OK);
            ck_assert_double_eq_tol(p.gemms, 161, 1e-12);
        }
        free(t);
    }
}
END_TEST

/* The cache a chip holds past the KV heads, split and copied, where the
 * chips and heads do not divide each other, and for a model with
 * linear-attention state (an outside review found copy holding too much
 * in both).
 *   Llama-2-13B (40 KV heads, 819,200 B a token) on 16 H100s, batch 32,
 *   context 4096: 107,374,182,400 B of cache. Split: 8 ways by head (the
 *   largest divisor of 40 dividing 16), 2 by batch: 1/16 a chip,
 *   6,710,886,400 B. Copied: each chip the ceil(40 / 16) = 3 heads whose
 *   k/v it computes, of all 32 sequences: 3/40, 8,053,063,680 B (not the
 *   5 heads of its 8-way group, 13.4 GB).
 *   Nemotron-3-Nano (6 attention layers x 2 KV heads x 128 x 2 x 2 B =
 *   6,144 B a token; 23 Mamba layers of 64 x 64 x 128 x 4 B of SSM state
 *   + 3 x (4096 + 2 x 8 x 128) x 2 B of convolution state = 2,134,016 B,
 *   49,082,368 B a sequence) on 8 H100s, batch 64, context 8192. Split
 *   (2 ways by head, 4 by batch): 16 sequences of 8192 x 3,072 +
 *   49,082,368 / 2 = 49,707,008 B: 795,312,128 B. Copied: the state's
 *   heads still split over all 8 chips (vLLM divides Mamba heads by the
 *   tensor-parallel size), the one KV head a chip keeps of all 64: 64 x
 *   (25,165,824 + 6,135,296) = 2,003,271,680 B (it read 3,181,248,512:
 *   the state copied too). Its paged block, aligned so that a page of one
 *   attention layer (a chip's share of a token's keys and values, 1,024 /
 *   2 = 512 B) holds a layer's state (a chip's share): split, 2,134,016 /
 *   2 / 512 = 2084 -> 2096 tokens (a multiple of 16); copied, 2,134,016 /
 *   8 / 512 = 521 -> 528, as vLLM's per rank (it was 2096 either way). */
START_TEST(test_copy_uneven_and_state)
{
    static const struct {
        const char *model;
        uint64_t chips, batch, ctx;
        double split, copy;
    } cases[] = {
        {"llama2-13b", 16, 32, 4096, 6710886400.0, 8053063680.0},
        {"nemotron-3-nano-30b-a3b", 8, 64, 8192, 795312128.0, 2003271680.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ic_test_pair *t = ic_test_pair(cases[i].model, "h100");
        struct ic_decode_cfg c =
            cfg(cases[i].chips, cases[i].batch, cases[i].ctx, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
        struct ic_point p;
        struct ic_err e = {0};
        for (int copy = 0; copy < 2; copy++) {
            c.kv_copy = copy;
            ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
            const double want = copy ? cases[i].copy : cases[i].split;
            ck_assert_msg(fabs(p.mem_kv_B - want) < 1, "%s %s: %.0f B, want %.0f",
                          cases[i].model, copy ? "copy" : "split", p.mem_kv_B, want);
            if (i == 1)
                ck_assert_uint_eq(ic_step_paged_block(&t->st, IC_DT_BF16, 16, 8, copy),
                                  copy ? 528 : 2096);
        }
        free(t);
    }
}
END_TEST

/* What bounds an expected step where the fixed part outweighs every term:
 * Llama-3.2-1B (16 layers) at batch 1 under the test profile (no graphs:
 * 10 x 16 x 5 us = 0.8 ms of launches, 1 ms of host time) on the achieved
 * H100 fixture reads its 2.47 GB of weights in about 0.92 ms: the fixed
 * 1.8 ms is the largest term, 'fixed' (it read 'weights'); without the
 * profile (0.32 ms of graph launches) the weights bound it. */
START_TEST(test_bound_fixed)
{
    struct ic_test_pair *t =
        ic_test_pair("llama3.2-1b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_engine *en = ic_test_engine_fixture();
    struct ic_err e = {0};
    struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.fixed_s, 16 * 10 * 5e-6 + 1e-3, 1e-12);
    ck_assert(p.fixed_s > p.weights_s && p.weights_s > 0.8e-3);
    ck_assert_str_eq(ic_bound_name(p.bound), "fixed");
    c.engine = NULL;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_str_eq(ic_bound_name(p.bound), "weights");
    /* on 8 chips, the all-reduces (2 a layer and 1 for the head at the
     * fixture's 20 us latency at least: over 0.6 ms) outweigh the weights
     * (2.47 GB / 8 / 2.7e12 = 0.11 ms) but not the fixed 1.8 ms: 'fixed'
     * (it read 'comm', the collectives bounding whenever they beat the
     * memory and compute terms) */
    c = cfg(8, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert(p.comm_s > 0.6e-3 && p.comm_s > 3 * p.weights_s && p.fixed_s > p.comm_s);
    ck_assert_str_eq(ic_bound_name(p.bound), "fixed");
    /* a pipeline pays the host time once a step, so a pass weighs its share
     * of it: graphs (16 x 10 x 2 us = 0.32 ms of launches) and 0.45 ms of
     * host time; one chip, batch 2, 'weights' (0.77 against 0.915 ms); 2
     * stages and 2 micro-batches of one sequence, a pass's weights (the
     * busier stage's, its 8 layers and the 525 MB head: about 0.555 ms)
     * against 0.16 ms of launches and 0.225 of the 0.45 ms: 'weights' (it
     * read 'fixed', the pass's terms against the whole step's host time,
     * 0.61 ms) */
    struct ic_engine light = *en;
    light.graphs = true;
    light.cpu_step_s = 0.45e-3;
    c = cfg(1, 2, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = &light;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_str_eq(ic_bound_name(p.bound), "weights");
    c.pp = 2; /* one chip a stage */
    c.micro = 2;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_uint_eq(p.passes, 2);
    ck_assert(p.weights_s > 0.5e-3 && p.weights_s < 0.6e-3);
    ck_assert_str_eq(ic_bound_name(p.bound), "weights");
    free(en);
    free(t);
}
END_TEST

/* The expected time with an engine profile (tests/fixtures/engine-test.yaml:
 * no graphs, the scheduler between steps with 1 ms of host time, attention
 * at 0.8 of the GEMV bandwidth for a bf16 cache, int8 weight GEMV at 0.5)
 * on the achieved H100 fixture above. Llama-3-8B, one chip, batch 1,
 * context 1024, bf16:
 *   weights 15,009,849,344 B / 2.7e12 = 5.559203461 ms (no bf16 factor)
 *   cache read by the attention, 1024 tokens x 131,072 B = 134,217,728 B
 *     / (2.7e12 x 0.8) = 62.137837 us; the new token's keys and values
 *     written, 131,072 B / 2.7e12 = 48.545 ns (no attention figure)
 *   launches without graphs: 10 x 32 layers x 5 us ('launch') = 1.6 ms
 *   host time 1 ms (the scheduler does not overlap)
 *   step = 5.559203461 + 0.062186382 + 1.6 + 1.0 = 8.221389843 ms.
 * int8 weights: 7,504,924,672 B / (2.7e12 x 0.5) = 5.559203461 ms, the
 * bf16 time: at half efficiency a byte costs twice as much.
 * The ideal bound is the same with or without the profile. */
START_TEST(test_expected_with_engine)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_engine *en = ic_test_engine_fixture();
    struct ic_err e = {0};
    struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    struct ic_point p, q;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weights_s, 15009849344.0 / 2.7e12, 1e-12);
    ck_assert_double_eq_tol(p.kv_s, 134217728.0 / (2.7e12 * 0.8) + 131072.0 / 2.7e12, 1e-12);
    ck_assert_double_eq_tol(p.fixed_s, 1.6e-3 + 1e-3, 1e-12);
    ck_assert_double_eq_tol(p.step_s, 8.221389843e-3, 1e-11);
    /* against the same step without the profile (6.248962 ms above): the
     * profile adds 1.6 - 0.64 ms of launches, 1 ms of host time and
     * 62.1378 - 49.7103 us of cache read */
    c.engine = NULL;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &q, &e), IC_OK);
    ck_assert_double_eq_tol(p.step_s - q.step_s,
                            0.96e-3 + 1e-3 + 134217728.0 / 2.7e12 * (1 / 0.8 - 1), 1e-12);
    /* the host time is the step's, not a stage's: with a pipeline of 2
     * and 2 micro-batches the profile adds the launches' difference to
     * each of the 2 passes and 1 ms once (the same layout without the
     * profile is the same step less those), not 1 ms a pass */
    {
        struct ic_point pp, qp;
        c.pp = 2;
        c.micro = 2;
        c.chips = 2;
        c.engine = en;
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &pp, &e), IC_OK);
        c.engine = NULL;
        ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &qp, &e), IC_OK);
        ck_assert_uint_eq(pp.passes, 2);
        /* a stage runs 16 layers: 160 kernels at 5 us plain against the
         * fixture's 2 us graph launches */
        const double launches = 160 * (5e-6 - t->h.achieved.launch_graph_s);
        const double kv = (pp.kv_s - qp.kv_s) * 2; /* each pass's cache read */
        ck_assert_double_eq_tol(pp.step_s - qp.step_s, 2 * launches + kv + 1e-3, 1e-12);
        c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
        c.estimate = IC_EST_EXPECTED;
    }
    /* int8 weights at GEMV efficiency 0.5 */
    c = cfg(1, 1, 1024, IC_DT_INT8, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weight_bytes, 7504924672.0, 1);
    ck_assert_double_eq_tol(p.weights_s, 7504924672.0 / (2.7e12 * 0.5), 1e-12);
    ck_assert_double_eq_tol(p.weights_s, 5.559203461e-3, 1e-11);
    /* the ideal bound never reads the profile */
    c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    c.engine = NULL;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &q, &e), IC_OK);
    ck_assert_double_eq(p.step_s, q.step_s);
    ck_assert_double_eq_tol(p.step_s, (15009849344.0 + 134348800.0) / 3.35e12, 1e-9);
    /* a profile with graphs and an overlapped scheduler, no factors (a
     * good engine) gives the step without one */
    struct ic_engine good = *en;
    good.graphs = true;
    good.overlap = true;
    memset(good.attn_eff, 0, sizeof good.attn_eff);
    memset(good.gemv_eff, 0, sizeof good.gemv_eff);
    c.estimate = IC_EST_EXPECTED;
    c.engine = &good;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.step_s, 6.248962e-3, 1e-9);

    /* the shipped gpt-fast profile: int8 weight GEMV at PyTorch's GPT-fast
     * microbenchmark's int8 / bf16 bandwidth, 984.06 / 1137.92 GB/s =
     * 0.86479; int4 from GemLite's tinygemm speedups over fp16 at batch 1
     * on an A100, 2.06x and 2.33x (4096^2, 8192^2): on infcalc's 0.5 B
     * against 2 B a weight, 0.515 and 0.5825, about 0.55 over a 7B
     * layer's shapes, over gpt-fast's group-32 bytes (0.625 against group
     * 128's 0.53125 B a weight) 0.55 x 0.53125 / 0.625 = 0.4675
     * (enginedb/gpt-fast.yaml): Llama-3-8B int8, batch 1 on the fixture
     * reads 7,504,924,672 B / (2.7e12 x 0.865) = 3.213412 ms of weights,
     * int4 3,752,462,336 B / (2.7e12 x 0.47) = 2.957023 ms, bf16 weights
     * as a good engine's */
    ck_assert_int_eq(ic_engine_load(IC_SRC_DIR "/enginedb/gpt-fast.yaml", en, &e), IC_OK);
    ck_assert_double_eq_tol(ic_engine_gemv_eff(en, IC_DT_INT8), 984.06 / 1137.92, 5e-4);
    ck_assert_double_eq_tol(ic_engine_gemv_eff(en, IC_DT_INT4), 0.55 * 0.53125 / 0.625, 3e-3);
    c = cfg(1, 1, 1024, IC_DT_INT4, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weights_s, 3752462336.0 / (2.7e12 * 0.47), 1e-12);
    ck_assert_double_eq_tol(p.weights_s, 2.957023e-3, 1e-9);
    c = cfg(1, 1, 1024, IC_DT_INT8, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weights_s, 7504924672.0 / (2.7e12 * 0.865), 1e-12);
    ck_assert_double_eq_tol(p.weights_s, 3.213412e-3, 1e-9);
    c.weights = IC_DT_BF16;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weights_s, 15009849344.0 / 2.7e12, 1e-12);

    /* the shipped vllm-0.19 profile: an fp8 KV cache read at 0.70 of the
     * bf16 cache's bytes/s, from FlashAttention-3's decode timings in vLLM
     * PR #43232: per added token fp8 takes (34.51 - 23.04) / (43.48 -
     * 27.18) = 0.704 (batch 1) and (183.8 - 97.2) / (253.45 - 132.69) =
     * 0.717 (batch 8) of bf16's time for half the bytes, 0.5 / 0.704 =
     * 0.710 and 0.5 / 0.717 = 0.697; bf16 is not given (1). The cache
     * read of an fp8 step is the good engine's over 0.70; the 8 new
     * tokens' keys and values (8 x 65,536 B) are written at the GEMV
     * bandwidth with or without it. */
    ck_assert_int_eq(ic_engine_load(IC_SRC_DIR "/enginedb/vllm-0.19.yaml", en, &e), IC_OK);
    const double fp8 = ic_engine_attn_eff(en, IC_DT_FP8);
    ck_assert(fp8 >= 0.5 / ((183.8 - 97.2) / (253.45 - 132.69)) - 1e-3 &&
              fp8 <= 0.5 / ((34.51 - 23.04) / (43.48 - 27.18)) + 1e-3);
    ck_assert_double_eq(ic_engine_attn_eff(en, IC_DT_BF16), 1);
    c = cfg(1, 8, 8192, IC_DT_BF16, IC_DT_FP8, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    c.engine = &good;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &q, &e), IC_OK);
    ck_assert(q.kv_s > 0);
    const double write = 8 * 65536.0 / 2.7e12;
    ck_assert_double_eq_tol(p.kv_s, (q.kv_s - write) / 0.70 + write, 1e-12);
    free(en);
    free(t);
}
END_TEST

/* A checkpoint that keeps its embedding and LM head unquantized (AWQ, GPTQ,
 * fp8 and mxfp4 quantization_configs, read in test_model): each storage
 * type's bytes at its own GEMV efficiency. Llama-3-8B int8 on the achieved
 * H100 fixture (2.7e12 B/s GEMV), batch 1, context 1024, the head
 * (128,256 x 4,096 = 525,336,576) kept in bf16, under engine-test with
 * its int8 GEMV at 0.8 instead of 0.5:
 *   the other 7,504,924,672 - 525,336,576 = 6,979,588,096 weights read,
 *   1 B each at 2.7e12 x 0.8: 3.231290785 ms; the head's 1,050,673,152 B
 *   at 2.7e12: 0.389138204 ms; 3.620428990 ms (all 8,030,261,248 B at the
 *   int8 efficiency would be 3.717713541 ms)
 *   held: those 6,979,588,096 B and the embedding's and head's 2 x
 *   1,050,673,152 B (the embedding is held, not read) = 9,080,934,400 B.
 * The ideal bound: 8,030,261,248 B / 3.35e12 = 2.397092910 ms of weights. */
START_TEST(test_kept_unquantized_parts)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", IC_TEST_DIR "/fixtures/achieved-h100.yaml");
    struct ic_engine *en = ic_test_engine_fixture();
    struct ic_err e = {0};
    en->gemv_eff[IC_DT_INT8] = 0.8;
    t->st.keep_groups = 1u << IC_PG_EMBED | 1u << IC_PG_HEAD;
    t->st.keep_type = IC_DT_BF16;
    struct ic_decode_cfg c = cfg(1, 1, 1024, IC_DT_INT8, IC_DT_BF16, IC_DT_BF16);
    c.estimate = IC_EST_EXPECTED;
    c.engine = en;
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weight_bytes, 8030261248.0, 1);
    ck_assert_double_eq_tol(p.weights_s, 3.620428990e-3, 1e-11);
    ck_assert_double_eq_tol(p.mem_weights_B, 9080934400.0, 1);
    ck_assert_str_eq(p.weights_kept, "embedding, lm_head at bf16");
    c.estimate = IC_EST_IDEAL;
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.weights_s, 2.397092910e-3, 1e-11);
    /* weights of the kept type itself: nothing said, every byte bf16 */
    c = cfg(1, 1, 1024, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    ck_assert_int_eq(ic_decode(&t->st, &t->h, &c, &p, &e), IC_OK);
    ck_assert_str_eq(p.weights_kept, "");
    ck_assert_double_eq_tol(p.weight_bytes, 15009849344.0, 1);
    free(en);
    free(t);
}
END_TEST

/* DeepSeek Sparse Attention in the step (tests/fixtures/deepseek-v3.2-config.json):
 * 2 sequences at 32,768 tokens on 8 chips (the latent cache splits by
 * batch). A step reads, per sequence and layer, the top 2,048 tokens'
 * latents (2048 x 576 x 2 B) and every token's indexer key (32768 x 132 B):
 * 2 x 61 x (2,359,296 + 4,325,376) = 815,529,984 B, against the 2 x 61 x
 * 32768 x 1,284 = 5,133,041,664 B held, one sequence (2,566,520,832 B) on
 * the busiest chip; each new token writes 61 x 1,284 B. */
START_TEST(test_sparse_attention_step)
{
    struct ic_model_stats st;
    struct ic_hw h;
    struct ic_err e = {0};
    ic_test_fixture_stats("deepseek-v3.2-config.json", &st);
    ic_test_hw("h100", &h);
    struct ic_decode_cfg c = cfg(8, 2, 32768, IC_DT_FP8, IC_DT_BF16, IC_DT_BF16);
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, &h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.kv_bytes, 815529984.0, 1);
    ck_assert_double_eq_tol(p.mem_kv_B, 2566520832.0, 1);
    ck_assert_double_eq_tol(p.kv_write_bytes, 2.0 * 61 * 1284, 1e-6);
    ck_assert_uint_eq(p.kv_bytes_per_token, 78324);
    /* below the top-k everything is read, as for dense MLA */
    c.context = 1024;
    ck_assert_int_eq(ic_decode(&st, &h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.kv_bytes, 2.0 * 61 * 1024 * 1284, 1);
}
END_TEST

/* Llama 4's chunked attention in the step (tests/fixtures/llama4-scout-config.json,
 * 12 global and 36 chunked layers of 8 KV heads x 128, bf16: 4,096 B a
 * token a layer): 2 sequences at 100,000 tokens on 8 chips read 2 x (12 x
 * 100,000 + 36 x 1,696) x 4,096 = 10,330,570,752 B (a chunked layer its
 * current chunk's 1,696), and each chip holds an eighth of both (by KV
 * head) with a whole chunk of 8,192 in each chunked layer: 2 x (12 x
 * 100,000 + 36 x 8,192) x 4,096 / 8 = 1,530,789,888 B. */
START_TEST(test_chunked_attention_step)
{
    struct ic_model_stats st;
    struct ic_hw h;
    struct ic_err e = {0};
    ic_test_fixture_stats("llama4-scout-config.json", &st);
    ic_test_hw("h100", &h);
    struct ic_decode_cfg c = cfg(8, 2, 100000, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, &h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.kv_bytes, 10330570752.0, 1);
    ck_assert_double_eq_tol(p.mem_kv_B, 1530789888.0, 1);
}
END_TEST

/* Qwen3-Next (36 Gated DeltaNet layers, 12 full) on 4 x H100, batch 8,
 * context 4096, bf16: a sequence holds 12 x 4096 tokens x 2048 B (2 KV
 * heads x 256 x K and V x 2 B) = 100,663,296 B of cache and 36 x 1,097,728
 * = 39,518,208 B of state: 140,181,504 B. A step reads all of it (8 x =
 * 1,121,452,032) and writes each new token's 24,576 B and the whole state
 * back (8 x 39,542,784 = 316,342,272). The cache splits by its 2 KV heads,
 * then the batch 2 ways: a chip holds 4 sequences' halves, 280,363,008 B. */
START_TEST(test_linear_attention_step)
{
    struct ic_model_stats st;
    struct ic_hw h;
    struct ic_err e = {0};
    ic_test_fixture_stats("qwen3-next-80b-a3b-config.json", &st);
    ic_test_hw("h100", &h);
    struct ic_decode_cfg c = cfg(4, 8, 4096, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, &h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.kv_bytes, 1121452032.0, 1);
    ck_assert_double_eq_tol(p.kv_write_bytes, 316342272.0, 1);
    ck_assert_double_eq_tol(p.mem_kv_B, 280363008.0, 1);
    ck_assert_double_eq_tol(p.state_bytes_per_seq, 39518208.0, 1e-6);
    /* an fp8 cache halves the tokens' bytes, not the state's */
    c.kv = IC_DT_FP8;
    ck_assert_int_eq(ic_decode(&st, &h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.kv_bytes, 8.0 * (50331648.0 + 39518208.0), 1);
    /* launches beyond 10 a layer: each of 48 MoE layers +4 routed, +3
     * shared expert, +2 its sigmoid gate; each of 36 Gated DeltaNet layers
     * +2; each of 12 gated attention layers +1: 432 + 72 + 12 = 516; a
     * quarter of the layers (a pipeline stage of 12): 108 + 18 + 3 = 129 */
    ck_assert_double_eq_tol(ic_step_extra_kernels(&st, 48, 48), 516, 1e-12);
    ck_assert_double_eq_tol(ic_step_extra_kernels(&st, 12, 12), 129, 1e-12);
    /* a speculative verify of 4 tokens (a decode kind) keeps each token's
     * state: 8 x 4 x (24,576 + 39,518,208) written; a prefill chunk of 4
     * writes its tokens and the state at its end: 8 x (4 x 24,576 +
     * 39,518,208) */
    for (int phase = 0; phase < 2; phase++) {
        const struct ic_step sp = {
            .layout = {4, 1},
            .kind = {{8, 4, 4092, 4, phase ? IC_PHASE_PREFILL : IC_PHASE_DECODE}},
            .n_kinds = 1,
            .weights = IC_DT_BF16,
            .kv = IC_DT_BF16,
            .compute = IC_DT_BF16,
            .attn = IC_ATTN_FLASH,
        };
        struct ic_load l;
        ck_assert_int_eq(ic_step_load(&st, &sp, &l, &e), IC_OK);
        ck_assert_double_eq_tol(l.kv_write_all_bytes,
                                phase ? 8.0 * (4 * 24576.0 + 39518208.0)
                                      : 8.0 * 4 * (24576.0 + 39518208.0),
                                1e-3);
    }
}
END_TEST

/* NVIDIA-Nemotron-Nano-9B-v2 (tests/test_model.c test_nemotron_h: 56
 * blocks of one mixer or MLP each, 27 Mamba2, 4 attention, 25 MLP; 31
 * layers here) under tensor parallelism all-reduces after each block, not
 * twice a layer: 56 all-reduces of a token's 4480 x 2 B at batch 1 (62
 * counted as layers). With 2 pipeline stages the busiest holds ceil(31 /
 * 2) = 16 layers, and its share of the blocks ceil(56 x 16 / 31) = 29. A
 * sequence's state, float32 where the config names no type (NemotronHConfig's
 * mamba_ssm_cache_dtype, vLLM's for NemotronH): 27 x (128 x 80 x 128 x 4 B +
 * 3 x 12288 x 2 B) = 143,548,416 B. */
START_TEST(test_nemotron_h_step)
{
    struct ic_model_stats st;
    struct ic_err e = {0};
    ic_test_fixture_stats("nemotron-nano-9b-v2-config.json", &st);
    for (uint64_t pp = 1; pp <= 2; pp++) {
        const struct ic_step sp = {
            .layout = {4, 1, pp, 1},
            .kind = {{1, 1, 1024, 1, IC_PHASE_DECODE}},
            .n_kinds = 1,
            .weights = IC_DT_BF16,
            .kv = IC_DT_BF16,
            .compute = IC_DT_BF16,
            .attn = IC_ATTN_FLASH,
        };
        struct ic_load l;
        ck_assert_int_eq(ic_step_load(&st, &sp, &l, &e), IC_OK);
        ck_assert_uint_eq(l.allreduces, pp == 1 ? 56 : 29);
        ck_assert_double_eq_tol(l.allreduce_bytes, 4480.0 * 2, 1e-9);
    }
    ck_assert_double_eq_tol(ic_model_state_bytes(&st), 143548416.0, 1e-6);
}
END_TEST

/* A pipeline's step totals. Llama-3-70B on 4 stages of 4 H100s, batch 64
 * in 4 micro-batches: each stage reads its layers' weights once a
 * micro-batch, so a step reads the model's weights 4 times over all
 * chips, 4 x what one 4-chip layout reads in one pass (it read 145 GB: the
 * busiest stage, the one with the LM head, times all 16 chips); each chip
 * all-reduces its 20 layers' activations twice a layer, 16 sequences x
 * 8192 x 2 B each pass, over 4 passes: 40 x 16 x 8192 x 2 B x 4 =
 * 41,943,040 B, as without micro-batches (40 x 64 x 8192 x 2 B; it read a
 * quarter of that, one pass). */
START_TEST(test_pipeline_step_totals)
{
    struct ic_decode_cfg c = cfg(4, 64, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    const struct ic_point one = ic_test_decode("llama3-70b", "h100", c);
    c.pp = 4;
    c.micro = 4;
    const struct ic_point p = ic_test_decode("llama3-70b", "h100", c);
    ck_assert_uint_eq(p.passes, 4);
    ck_assert_double_eq_tol(p.weight_bytes, 4 * one.weight_bytes, 1e-6 * p.weight_bytes);
    ck_assert_double_eq_tol(p.comm_bytes, 40.0 * 64 * 8192 * 2, 1e-6);
    c.micro = 1;
    const struct ic_point q = ic_test_decode("llama3-70b", "h100", c);
    ck_assert_double_eq_tol(q.weight_bytes, one.weight_bytes, 1e-6 * q.weight_bytes);
    ck_assert_double_eq_tol(q.comm_bytes, 40.0 * 64 * 8192 * 2, 1e-6);
    ck_assert_uint_eq(q.passes, 4);
    /* the send a pass (time.send_s): 16 chips pass the 8 of an NVLink
     * domain, so over the 50 GB/s scale-out link + 5 us; a pass's
     * activations, split over a stage's 4 chips: 16 sequences x 8192 x 2 B
     * / 4 = 65,536 B, 1.31072 us + 5 us (64 sequences without micro-batches:
     * 262,144 B, 5.24288 + 5 us); none without a pipeline */
    ck_assert_double_eq_tol(p.send_s, 65536.0 / 50e9 + 5e-6, 1e-15);
    ck_assert_double_eq_tol(q.send_s, 262144.0 / 50e9 + 5e-6, 1e-15);
    ck_assert_double_eq(one.send_s, 0);
}
END_TEST

START_TEST(test_missing_compute_type)
{
    struct ic_test_pair *t = ic_test_pair("llama3-8b", "a100");
    const struct ic_model_stats st = t->st;
    const struct ic_hw *h = &t->h;
    struct ic_decode_cfg c = cfg(1, 1, 128, IC_DT_FP8, IC_DT_FP8, IC_DT_FP8);
    struct ic_point p;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_EINVAL); /* A100 has no fp8 */
    ck_assert_ptr_nonnull(strstr(e.msg, "no fp8 compute"));
    c = cfg(1, 0, 128, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "batch"));
    c = cfg(1, 1, UINT64_C(1) << 27, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16);
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "context is too large"));
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("decode");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_b_crit);
    tcase_add_test(tc, test_llama3_70b_v5e_16);
    tcase_add_test(tc, test_llama3_70b_v5e_8);
    tcase_add_test(tc, test_7b_a100);
    tcase_add_test(tc, test_collectives);
    tcase_add_test(tc, test_comm_in_step);
    tcase_add_test(tc, test_memory_and_max_batch);
    tcase_add_test(tc, test_max_batch_clamped);
    tcase_add_test(tc, test_moe_reads);
    tcase_add_test(tc, test_mla_intensity);
    tcase_add_test(tc, test_uneven_split);
    tcase_add_test(tc, test_heads_copied_domains);
    tcase_add_test(tc, test_context_sweep_stops);
    tcase_add_test(tc, test_kv_held_windows);
    tcase_add_test(tc, test_expected_from_measured);
    tcase_add_test(tc, test_expected_probes_and_types);
    tcase_add_test(tc, test_missing_compute_type);
    tcase_add_test(tc, test_every_field_written);
    tcase_add_test(tc, test_measured_every_type);
    tcase_add_test(tc, test_expected_from_achieved);
    tcase_add_test(tc, test_achieved_allreduce_by_size);
    tcase_add_test(tc, test_expected_moe_mla_kernels);
    tcase_add_test(tc, test_mlp_blocks);
    tcase_add_test(tc, test_gemv_fixed);
    tcase_add_test(tc, test_copy_uneven_and_state);
    tcase_add_test(tc, test_expected_with_engine);
    tcase_add_test(tc, test_bound_fixed);
    tcase_add_test(tc, test_kept_unquantized_parts);
    tcase_add_test(tc, test_sparse_attention_step);
    tcase_add_test(tc, test_linear_attention_step);
    tcase_add_test(tc, test_nemotron_h_step);
    tcase_add_test(tc, test_chunked_attention_step);
    tcase_add_test(tc, test_pipeline_step_totals);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
