/* ic_decode: the time of one decode step, and everything reported with it.
 *
 * The ideal bound (docs/cases.md), per chip of N holding one tensor-parallel
 * replica, with W the HBM bandwidth and C the dense peak of the compute type:
 *   T_weights = weight bytes this chip reads / W   (MoE: experts touched)
 *   T_compute = 2 * B * active params on this chip / C
 *   T_kv      = KV bytes this chip reads / W        (B sequences, S tokens)
 *   T_attn    = attention FLOPs on this chip / C    (QK^T and AV)
 *   T_comm    = 2 all-reduces of B * D * b_act bytes per layer
 *   T_step    = max(T_weights, T_compute) + max(T_kv, T_attn), and with
 *               collectives overlapped (the default, a lower bound)
 *               max(that, T_comm), or serial: that + T_comm.
 * Tensor parallelism splits each parameter group at most as many ways as it
 * has units (query heads, KV heads, hidden columns); past that the group is
 * replicated. When N does not divide the units, the busiest chip holds
 * ceil(units / N) of them and sets the step time. The KV cache splits by KV heads first (the largest divisor of
 * the KV head count that divides N; MLA's latent cannot split), then by
 * batch: each chip then holds ceil(B / batch ways) sequences. */
#ifndef IC_DECODE_H
#define IC_DECODE_H

#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stdint.h>

enum ic_bound { IC_BOUND_WEIGHTS, IC_BOUND_KV, IC_BOUND_COMPUTE, IC_BOUND_COMM, IC_BOUND_COUNT };
const char *ic_bound_name(enum ic_bound b);

enum ic_comm_mode { IC_COMM_OVERLAP, IC_COMM_SERIAL, IC_COMM_MODE_COUNT };
const char *ic_comm_mode_name(enum ic_comm_mode m);

/* Which time a point states: the ideal bound from spec-sheet peaks, or the
 * expected time from a hardware entry's measured figures (see below). */
enum ic_estimate { IC_EST_IDEAL, IC_EST_EXPECTED, IC_EST_COUNT };
const char *ic_estimate_name(enum ic_estimate e);

struct ic_decode_cfg {
    uint64_t chips;         /* N: chips holding one replica */
    uint64_t batch;         /* B: sequences, one new token each */
    uint64_t context;       /* S: tokens already cached per sequence */
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
     * scales the GEMM and attention rates */
    double compute_scale;
};

/* The expected time (cfg.estimate = IC_EST_EXPECTED) uses what `infcalc
 * bench` measured instead of peaks, term by term:
 *   linear layers  T_mem = weight bytes / gemv rate of the weight type
 *                  (DRAM, scaled by bw_scale; or in-LLC when weights and KV
 *                  fit the LLC), which folds in dequantization;
 *                  T_cmp = 2 * B * active params / gemm rate of that type at
 *                  batch B (the benched rates at 1, 2, 4 ... 256, interpolated);
 *                  joined softly, (T_mem^p + T_cmp^p)^(1/p), p measured
 *                  (a plain max() is optimistic near the ridge), the weight
 *                  type's own p where the entry has one;
 *                  the DRAM rates scaled by bw_scale, the GEMM rates by
 *                  compute_scale;
 *   attention      the same with the KV bytes (at the KV type's gemv rate)
 *                  and the attention FLOPs at the measured attention rate
 *                  (else the matmul rate with the query heads per KV head
 *                  as the batch);
 *   fixed          regions * fork_join;
 *   step           their sum (+ collectives as in the ideal bound). */

/* Defaults: 1 chip, batch 1, context 2048, bf16 everywhere, overlap. */
struct ic_decode_cfg ic_decode_defaults(void);

struct ic_point {
    struct ic_decode_cfg cfg;
    uint64_t params;              /* held in memory, whole model */
    uint64_t params_active;       /* multiplied per token */
    uint64_t kv_bytes_per_token;  /* all layers, full attention, at the KV dtype */
    double weight_bytes;          /* weights read per step, summed over chips */
    double kv_bytes;              /* KV read per step, whole batch */
    double flops;                 /* per step, all chips (linear + attention) */
    double comm_bytes;            /* all-reduce payload per step, per chip */
    double experts_touched;       /* expected routed experts read per MoE layer */
    uint64_t kv_split_heads;      /* ways the cache splits by head */
    uint64_t kv_split_batch;      /* ways the batch splits */

    double weights_s, compute_s, kv_s, attn_s, comm_s, step_s;
    double fixed_s;               /* expected: fork/join and per-call costs */
    bool cache_resident;          /* expected: weights and KV fit the LLC */
    enum ic_bound bound;

    double tokens_s, tokens_s_chip, latency_s;
    double usd_per_mtok;          /* dollars per million output tokens */
    double flops_per_usd;         /* the step's FLOPs per dollar of chip-time (0: no price) */

    double mem_weights_B, mem_kv_B, mem_work_B; /* per chip */
    double mem_per_chip_B, capacity_B;
    bool fits;
    uint64_t max_batch;           /* largest batch that fits at this context */
    double b_crit;                /* b_w * C / (2 W), tokens */
    double b_crit_moe;            /* MoE: b_crit * E / k (every expert busy); dense: b_crit */
    bool uneven_split;            /* N does not divide the query heads (or exceeds them
                                     unevenly): the busiest chip sets the time */
};

#define IC_DECODE_MAX_BATCH (UINT64_C(1) << 24)
#define IC_DECODE_MAX_CHIPS (UINT64_C(1) << 20)

/* Evaluates one decode step (pure, no allocation). Fails with IC_EINVAL when
 * chips, batch or context is 0 or the chip lacks the compute type. */
int ic_decode(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_decode_cfg *cfg, struct ic_point *out, struct ic_err *err);

/* Per-chip bytes for batch B at context S (weights + KV + workspace), the
 * function max_batch inverts; exposed for tests. */
double ic_decode_mem_per_chip(const struct ic_model_stats *m, const struct ic_decode_cfg *cfg,
                              uint64_t batch);

/* The measured in-cache matmul rate (FLOP/s) of type t at batch b:
 * interpolated in log-log between the benched batches 1, 2, 4 ... 256 (the
 * batch-256 rate past it), or the batch-256 rate everywhere when the entry
 * has no gemm_by_batch table. */
double ic_decode_gemm_rate(const struct ic_hw_measured *ms, enum ic_dtype t, double b);

/* Parameters the busiest of N chips holds of group g: the group's units
 * (heads, columns) spread over min(N, units) chips, ceil(units / that) on the
 * busiest; past the unit count the group is replicated (a model stating
 * totals splits evenly). The one place this split is computed. */
double ic_decode_group_per_chip(const struct ic_model_stats *m, enum ic_pgroup g,
                                uint64_t chips);

/* Expected routed experts touched by `tokens` tokens choosing top-k of E
 * uniformly: E * (1 - (1 - k/E)^tokens). */
double ic_decode_experts_touched(uint64_t n_experts, uint64_t top_k, uint64_t tokens);

#endif
