/* ic_moe: mixture-of-experts and MLA in serving.
 *
 * Three questions the rules of thumb (docs/cases.md) raise for a sparse model:
 *   1. How many routed experts does a decode step read, and at what batch do
 *      the linear layers turn compute-bound? Uniform routing of B tokens to
 *      top-k of E touches E * (1 - (1 - k/E)^B) experts, so the weight read
 *      keeps growing with B long after a dense model's B_crit; the crossing
 *      is near E/k times the dense B_crit (where every expert is busy), and
 *      is found here by search on the step model itself.
 *   2. Expert parallelism (EP) and its all-to-all. The layout (DeepSeek-V3's
 *      serving layout): ep groups of N chips each, N * ep chips in all. Every
 *      group is a tensor-parallel replica (over its N chips, as ic_decode
 *      splits it) of everything but the routed experts (attention, dense and
 *      shared MLPs, embeddings, head) serving its own batch of B sequences;
 *      the routed experts are split over the groups, E/ep per group, each
 *      group's experts tensor-parallel over its N chips. Per MoE layer the
 *      group's tokens travel to the groups that hold their top-k experts and
 *      back (dispatch + combine). A group's experts see tokens from all
 *      groups: ep * B tokens pick among all E experts, and the group reads
 *      the touched ones among its own E/ep. With ep = 1 everything equals
 *      ic_decode's.
 *   3. MLA's absorbed decode: every query head reads the same compressed
 *      latent, so attention does H times the FLOPs per KV byte of the
 *      non-absorbed form (K and V decompressed per head), and can turn
 *      compute-bound where GQA never does.
 *
 * Per chip, with W the HBM bandwidth, C the dense peak of the compute type,
 * b_w bytes per weight, P_e the routed expert parameters one chip of a group
 * holds (E/ep experts of all MoE layers, split over N chips with ic_decode's
 * rule), t = E * (1 - (1 - k/E)^(ep B)) experts touched per layer:
 *   T_weights = T_weights(ic_decode, experts removed) + P_e * t / E * b_w / W
 *               (t/ep of the group's E/ep experts: the fraction t/E)
 *   T_compute = T_compute(ic_decode, experts removed) + 2 B k ep / E * P_e / C
 *               (B k token-expert pairs arrive at a group in expectation)
 *   T_a2a     = n_moe_layers * (A / W_fabric + 2 latencies),
 *               A = 2 * B * k * (ep-1)/ep * D * b_act / N bytes per chip per
 *               layer (each chip of a group sends and receives its 1/N share)
 *   T_step    = ic_decode's combination of those terms, the KV terms and the
 *               tensor-parallel collectives within the group, plus T_a2a
 *               serially (dispatch must land before the expert matmuls and
 *               combine after them; overlapping micro-batches, as DeepSeek
 *               does, would hide part of it: this is the no-overlap bound).
 * At the expected estimate (dec.estimate, dec.engine) the step is timed as
 * ic_step_time times any step: W and C become the entry's achieved GEMV
 * bandwidth and GEMM rate (at the engine's efficiencies; a benched
 * machine's measured rates), the kernels' launches and the all-reduces at
 * their measured latency add after the kernels, and the all-to-all stays
 * at the fabric's spec (hwdb carries no all-to-all microbenchmark);
 * weights_s, compute_s and the compute-bound batch are then the achieved
 * ones, while dense_b_crit, moe_b_crit and ridge stay the spec sheet's
 * rules of thumb.
 * Routing is taken as uniform and balanced: the expected load of a group,
 * not the expected busiest group (which exceeds it at small batches). */
#ifndef IC_MOE_H
#define IC_MOE_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <stdbool.h>
#include <stdint.h>

#define IC_MOE_MAX_EP (1u << 16) /* expert-parallel ways */

struct ic_moe_cfg {
    struct ic_decode_cfg dec;  /* per ep group: chips N (tensor parallel as in ic_decode),
                                  batch B, context, types, estimate and engine */
    uint64_t ep;               /* expert-parallel groups of N chips each (1 = none); must
                                  divide n_experts (so ep <= n_experts) */
};

struct ic_moe {
    double experts_touched;    /* expected per MoE layer by the ep * B tokens of all groups */
    double experts_touched_per_group; /* experts_touched / ep: a group's expected touched
                                  experts among its own E/ep (uniform routing) */
    uint64_t compute_bound_batch; /* smallest per-group batch B where the linear layers'
                                  compute time >= their weight-read time (weights_s and
                                  compute_s below, EP applied), by bisection: at a
                                  fixed GEMM rate the difference is convex in B and
                                  negative at 0, so the predicate is monotone (on a
                                  benched entry, assumed: ic_moe.c); 0 if none up to
                                  2^24 */
    double dense_b_crit;       /* ic_point.b_crit = b_w * C / (2 W), tokens */
    double moe_b_crit;         /* dense_b_crit * E / k (docs/cases.md's rule of thumb);
                                  dense_b_crit for a dense model */
    /* all-to-all per MoE layer with ep > 1 (0 with ep = 1) */
    double a2a_bytes_per_layer;/* A above: bytes each chip sends (and receives) */
    double a2a_s_per_layer;    /* within a fabric domain: A / ic_comm_path bandwidth +
                                  2 * (its steps * step latency); past the domain the
                                  fraction (R-1)/R of A for R domains goes at the
                                  scale-out bandwidth, plus 2 scale-out latencies */
    double a2a_s;              /* all MoE layers, per step */
    double weights_s, compute_s; /* linear layers on one chip, EP applied */
    double step_s;             /* the step (see above) */
    uint64_t chips_total;      /* N * ep */
    uint64_t batch_total;      /* B * ep sequences in flight */
    double tokens_s;           /* batch_total / step_s */
    double tokens_s_chip;      /* tokens_s / chips_total */
    double mem_per_chip_B;     /* ic_decode's, with the chip's E/ep experts' share */
    bool fits;                 /* mem_per_chip_B <= the chip's HBM */
    /* attention intensity in decode: FLOPs per byte of KV read */
    double attn_intensity;     /* attn_flop_per_ctx_token_layer / (kv_values_per_layer_token
                                  * b_kv); 0 for a model stating totals */
    double mla_naive_intensity;/* MLA only: the non-absorbed form, K (qk head dim) and V
                                  (v_head_dim) decompressed per head:
                                  2 H (d_qk + d_v) / (H (d_qk + d_v) b_kv) = 2 / b_kv;
                                  0 for non-MLA */
    double ridge;              /* C / W, FLOP/B: above it the attention is compute-bound */
};

/* Evaluates the above (pure, no allocation); *out written only on success.
 * Fails with IC_EINVAL, naming the input, when ep is 0, ep > 1 on a dense
 * model, ep does not divide the expert count, N * ep exceeds 2^20 chips or
 * the fabric's domain on a chip without a scale-out network, or ic_decode or
 * the step fails (their message: e.g. the expected estimate on an entry
 * without achieved or measured rates). */
int ic_moe(const struct ic_model_stats *m, const struct ic_hw *hw, const struct ic_moe_cfg *cfg,
           struct ic_moe *out, struct ic_err *err);

#endif
