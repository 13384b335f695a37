/* ic_decode: the time of one decode step, and everything reported with it.
 *
 * A decode step is one ic_step (ic_step.h): B sequences, one new token each,
 * at context S (the sequence's length with the token being decoded: it
 * attends to S tokens, itself included, reads the cache of S tokens and
 * writes its own K and V). ic_decode() is its load and time plus the
 * figures a decode point reports: tokens/s, cost, memory held and the
 * largest batch that fits. The ideal bound, per chip of N holding one
 * tensor-parallel replica, with W the HBM bandwidth and C the dense peak of
 * the compute type:
 *   T_weights = weight bytes this chip reads / W   (MoE: experts touched)
 *   T_compute = 2 * B * active params on this chip / C
 *   T_kv      = KV bytes this chip reads and writes / W
 *   T_attn    = attention FLOPs on this chip / C    (QK^T and AV)
 *   T_comm    = 2 all-reduces of B * D * b_act bytes per layer
 *   T_step    = max(T_weights, T_compute) + max(T_kv, T_attn), and with
 *               collectives overlapped (the default, a lower bound)
 *               max(that, T_comm), or serial: that + T_comm.
 * Tensor parallelism splits each parameter group at most as many ways as it
 * has units (query heads, KV heads, hidden columns); past that the group is
 * replicated. When N does not divide the units, the busiest chip holds
 * ceil(units / N) of them and sets the step time. The KV cache splits by KV
 * heads first (the largest divisor of the KV head count that divides N;
 * MLA's latent cannot split), then by batch: each chip then holds
 * ceil(B / batch ways) sequences. */
#ifndef IC_DECODE_H
#define IC_DECODE_H

#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_step.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stdint.h>

struct ic_decode_cfg {
    uint64_t chips;         /* N: chips holding one replica */
    uint64_t batch;         /* B: sequences, one new token each */
    uint64_t context;       /* S: tokens per sequence, the one being decoded included */
    enum ic_dtype weights;  /* storage of weights */
    enum ic_dtype kv;       /* storage of the KV cache */
    enum ic_dtype compute;  /* the type the matmuls run in (picks C) */
    enum ic_comm_mode comm;
    enum ic_estimate estimate;
    /* expected only: DRAM bandwidth right now over the bench's (a memory
     * probe taken beside a timing over the entry's probe_bandwidth, else its
     * read_bandwidth; 1 = as benched) */
    double bw_scale;
    /* expected only: parallel regions (fork/join) per step; 0 = 8 per layer + 2 */
    uint64_t regions;
    /* expected only: compute rate right now over the bench's (a compute probe
     * taken beside a timing over the entry's probe_gemm; 1 = as benched):
     * scales the GEMM rates, and the attention's where attn_scale is 0 */
    double compute_scale;
    /* pipeline stages of `chips` chips each (0 or 1: none) and micro-batches
     * (0 or 1: one); chips x pp chips in all (ic_step.h) */
    uint64_t pp, micro;
    /* also the other estimate's step (ic_point.other_step_s), where the
     * entry has what it needs: the commands that show both set it */
    bool both;
    /* the expected estimate from achieved rates: the serving engine's
     * profile (--engine, enginedb/), not owned; NULL: a good engine */
    const struct ic_engine *engine;
    /* expected only: the attention's rate right now over the bench's (an
     * attention probe beside a timing over the entry's probe_attention; 0 =
     * compute_scale stands in) */
    double attn_scale;
    /* past the KV heads, each chip keeps its heads' cache of every
     * sequence (ic_layout.kv_copy); false: the chips sharing a head split
     * the sequences */
    bool kv_copy;
};

/* The expected time (cfg.estimate = IC_EST_EXPECTED) uses what `infcalc
 * bench` measured instead of peaks, term by term:
 *   linear layers  T_mem = weight bytes / gemv rate of the weight type
 *                  (DRAM, scaled by bw_scale; or in-LLC when weights and KV
 *                  fit the LLC), which folds in dequantization;
 *                  T_cmp = 2 * B * active params / gemm rate of that type at
 *                  batch B (the benched rates at 1, 2, 4 ... 256, interpolated)
 *                  less the same at batch 1 for one pass over the weights
 *                  (ic_step_matmul_compute_s: the weight stream is T_mem's,
 *                  so T_cmp is 0 at batch 1);
 *                  joined softly, (T_mem^p + T_cmp^p)^(1/p), p measured
 *                  (a plain max() is optimistic near the ridge), the weight
 *                  type's own p where the entry has one;
 *                  the DRAM rates scaled by bw_scale, the GEMM rates by
 *                  compute_scale (the attention's by attn_scale where it
 *                  is given);
 *   attention      the same with the KV bytes (at the KV type's gemv rate)
 *                  and the attention FLOPs at the measured attention rate
 *                  (else the matmul rate with the query heads per KV head
 *                  as the batch);
 *   fixed          regions * fork_join, + (4 * layers + 1) * matmul_start
 *                  (the reference kernel's matmul calls; not when cache-
 *                  resident) + layers * tokens * layer_work x hidden_size /
 *                  layer_work_dim (the width it was measured at; 1 where
 *                  the entry has none), both measured by bench (0 in older
 *                  entries);
 *   step           their sum (+ collectives as in the ideal bound). */

/* Defaults: 1 chip, batch 1, context 2048, bf16 everywhere, overlap (the
 * command line and the server then take a model's shipped weight type,
 * ic_model.default_weights, unless the weights are given). */
struct ic_decode_cfg ic_decode_defaults(void);

struct ic_point {
    struct ic_decode_cfg cfg;
    uint64_t params;              /* held in memory, whole model */
    uint64_t params_active;       /* multiplied per token */
    char weights_kept[IC_MODEL_KEPT_LEN]; /* what the checkpoint keeps unquantized, at
                                             which type ("" none): ic_model_kept_text */
    uint64_t kv_bytes_per_token;  /* all layers, full attention, at the KV dtype */
    double kv_held_per_token;     /* what a sequence holds at the context over its tokens:
                                     less where sliding windows cap layers */
    double state_bytes_per_seq;   /* linear-attention layers' fixed state, one sequence */
    double weight_bytes;          /* weights read per step, summed over chips */
    double kv_bytes;              /* KV read per step, whole batch */
    double kv_write_bytes;        /* KV written per step (the new tokens; linear-attention
                                     state, whole), whole batch */
    double flops;                 /* per step, all chips (linear + attention) */
    double flops_linear, flops_attn; /* ... its two parts */
    double comm_bytes;            /* all-reduce payload per step, per chip */
    double experts_touched;       /* expected routed experts read per MoE layer */
    uint64_t kv_split_heads;      /* ways the cache splits by head */
    uint64_t kv_split_batch;      /* ways the batch splits */
    double kv_head_div;           /* a chip holds 1 / this of a sequence's keys and values
                                     (kv_split_heads but where copied past heads the
                                     chips do not divide: ic_load's) */

    /* the terms' times: one pass of the busiest stage's chip; step_s is
     * `passes` of them (with a pipeline or micro-batches, each with its
     * send to the next stage) */
    double weights_s, compute_s, kv_s, attn_s, comm_s, step_s;
    uint64_t passes;
    double send_s;                /* a pipeline: each pass's send to the next stage
                                     (ic_comm_send_s; 0 without one) */
    double fixed_s;               /* expected: fork/join and per-call costs; on an
                                     achieved entry the launches and host time */
    double launches;              /* achieved: kernels launched a step (a pass) */
    double host_s;                /* achieved: the engine's host time in fixed_s */
    double gemms;                 /* achieved with gemv_fixed: GEMM kernels a step */
    double gemm_fixed_s;          /* ... and their fixed time, in weights_s */
    bool cache_resident;          /* expected: weights and KV fit the LLC */
    bool achieved;                /* expected from the entry's achieved (published) rates */
    /* with cfg.both: the step under the other estimate (expected beside the
     * ideal bound, or the ideal beside the expected), when it can be had */
    bool other_known;
    double other_step_s;
    char other_why[128];          /* not known though the entry has figures: why ("" else) */
    enum ic_bound bound;

    double tokens_s, tokens_s_chip, latency_s;
    double usd_per_mtok;          /* dollars per million output tokens */
    double flops_per_usd;         /* the step's FLOPs per dollar of chip-time (0: no price) */

    double mem_weights_B, mem_kv_B, mem_work_B; /* per chip */
    double mem_per_chip_B, capacity_B;
    char memory_kind[16];         /* what the capacity is of: ic_hw_memory_kind */
    bool fits;
    uint64_t max_batch;           /* largest batch that fits at this context */
    /* when it does not fit, after ic_decode_fewest (not ic_decode: a sweep
     * need not pay for it): the fewest chips of a stage (a power of two,
     * as tensor-parallel sizes are, up to IC_DECODE_MAX_CHIPS; 0: none) on
     * which it would, at this batch, context, KV type and pipeline depth,
     * with weights in bf16, fp8, int8, int4 and fp4 (ic_decode_fewest_types;
     * the memory of ic_decode_mem_per_chip) */
    bool fewest_known;
    uint64_t fewest_chips[5];
    double b_crit;                /* b_w * C / (2 W), tokens */
    double b_crit_moe;            /* MoE: b_crit * E / k (every expert busy); dense: b_crit */
    bool uneven_split;            /* N does not divide the query heads (or exceeds them
                                     unevenly): the busiest chip sets the time */
    uint64_t query_heads;         /* the query heads tensor parallelism splits (0: a model
                                     stating totals); N past them copies whole heads */
    uint64_t comm_domains;        /* fabric domains a stage's collectives span (1: within
                                     one; more: joined by the scale-out network) */
    uint64_t comm_domain_chips;   /* ... and the chips of each (ic_comm_path) */
};

/* The rates a step of cfg's configuration is timed at (ic_step_time): its
 * estimate, collectives, engine profile and (expected on a benched
 * machine) scales; at the ideal bound the prefill phase's FLOPs at
 * prefill_mfu of the peak (0: the peak), which the expected estimate does
 * not read. The one mapping ic_decode, the serving analyses and the
 * simulator time their steps with. */
struct ic_rates ic_decode_rates(const struct ic_decode_cfg *cfg, double prefill_mfu);

/* Evaluates one decode step (pure, no allocation). Fails with IC_EINVAL when
 * chips, batch or context is 0 or the chip lacks the compute type (*out is
 * then undefined). */
int ic_decode(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_decode_cfg *cfg, struct ic_point *out, struct ic_err *err);

/* The weight types fewest_chips is given for. */
extern const enum ic_dtype ic_decode_fewest_types[5];

/* Fills p's fewest_chips (and fewest_known) for model m when p does not fit. */
void ic_decode_fewest(const struct ic_model_stats *m, struct ic_point *p);

/* The estimate an entry gets unless one is asked for: expected where it has
 * measured figures (a machine infcalc benched), else the ideal bound. */
enum ic_estimate ic_decode_default_estimate(const struct ic_hw *hw);

/* Readies c for hw: the estimate asked for (estimate >= 0), else expected
 * where the entry has measured figures and ideal otherwise; and checks that
 * the chip has the compute type (IC_EINVAL naming the types it lists). */
int ic_decode_for_hw(struct ic_decode_cfg *c, const struct ic_hw *hw, int estimate,
                     struct ic_err *err);

/* Per-chip bytes for batch B at context S (weights + KV + workspace) on the
 * busiest chip of cfg's layout (its chips a stage and pipeline stages),
 * the function max_batch inverts: the step's own load's memory
 * (ic_step_mem_of); batch 0 gives the weights alone; INFINITY for a
 * layout the load refuses (a context or chip count of 0, say). */
double ic_decode_mem_per_chip(const struct ic_model_stats *m, const struct ic_decode_cfg *cfg,
                              uint64_t batch);

/* The largest batch whose memory (ic_decode_mem_per_chip's) is within
 * capacity bytes a chip, from cfg's own load as ic_decode's max_batch is
 * (ic_step_max_batch: at most IC_DECODE_MAX_BATCH); 0 when none fits or
 * the load refuses the layout. */
uint64_t ic_decode_max_batch(const struct ic_model_stats *m, const struct ic_decode_cfg *cfg,
                             double capacity);

#endif
