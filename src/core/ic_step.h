/* ic_step: one step of a served model, as a load and then a time.
 *
 * Every question infcalc answers about time (decode, prefill fused and
 * unfused, chunked prefill, speculative verification, MoE with expert
 * parallelism, and everything built on them) is one or more steps. A step
 * is a layout (chips) and the sequences in flight: per kind, how many, how
 * many new tokens each brings, how many it has cached before the step, how
 * many of its new tokens need logits, and the phase (which FLOP rate and
 * which form of MLA attention a server uses for them).
 *
 * ic_step_load() says what the busiest chip does in that step, with no
 * hardware rate in it:
 *   weights   every parameter group but the input embedding (a lookup) is
 *             read once; of the routed experts only those the step's tokens
 *             touch, E * (1 - (1 - k/E)^tokens) expected of E; the LM head
 *             only when some token needs logits. Each group splits over
 *             min(N, its units) chips, ceil(units / ways) on the busiest
 *             (ic_step_group_per_chip); past its units it is replicated.
 *   linear    2 FLOPs per active parameter the chip holds per new token,
 *             the LM head's share only for tokens that need logits.
 *   KV cache  splits by KV heads first (the largest divisor of the KV head
 *             count that divides N; MLA's latent cannot split), then by
 *             sequence: the g = N / head-ways chips sharing a KV head take
 *             the (sequence, query head) pairs of the step, ceil(pairs / g)
 *             on the busiest, which then reads the cache of ceil(seqs / g)
 *             sequences. A sequence after the step holds context + tokens
 *             tokens (window layers: at most the window); the step reads
 *             them all once (fused attention reads each cached K and V
 *             once, the step's own just written) and writes its new tokens'
 *             K and V in every layer.
 *   attention QK^T and AV: new token j (j = context+1 .. context+tokens)
 *             attends to j tokens (window layers: min(j, window)), causal;
 *             decode-phase steps use MLA's absorbed form, prefill-phase ones
 *             its plain form (ic_model_stats). Unfused attention computes
 *             the whole tokens x (context+tokens) products and sends the
 *             scores through HBM four times (S written, read by softmax, P
 *             written, read by AV) in the activation type.
 *   comm      two all-reduces per layer of the activations of every new
 *             token (tokens x D x 2 bytes, 4 for fp32 math) within the N
 *             chips; with expert parallelism one all-to-all per MoE layer.
 *   pipeline  with pp stages the busiest chip is one of the last stage's N:
 *             ceil(L / pp) of the L layers (the share f of every per-layer
 *             group, cache and attention FLOPs, and 2 x ceil(L / pp)
 *             all-reduces) plus the LM head; it holds that and the larger of
 *             the embedding and the head. With micro batches the per-chip
 *             load is one pass: ceil(count / micro) sequences of each kind,
 *             the weights read again in every pass; a pass sends its
 *             tokens' activations (tokens x D x 2 bytes, split over the N
 *             chips) to the next stage. ic_step_time runs max(micro, pp)
 *             passes per step. The group totals (flops, kv_*_all) stay those
 *             of the whole model and batch.
 * Activations entering and leaving kernels (layer inputs, Q, O) are not
 * counted as HBM traffic: they grow with tokens x D, at ~3D FLOPs per byte
 * against the linear layers, and never set the bound.
 *
 * ic_step_time() turns a load into seconds with a rate source and is the one
 * place the terms are combined and the bound named (see ic_step_time). */
#ifndef IC_STEP_H
#define IC_STEP_H

#include "ic_engine.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_units.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest layout and batch a step takes. */
#define IC_DECODE_MAX_BATCH (UINT64_C(1) << 24)
#define IC_DECODE_MAX_CHIPS (UINT64_C(1) << 20)
#define IC_STEP_MAX_STAGES 1024                    /* pipeline stages */

/* Whether all n values are finite and not negative: one pass with no
 * branch (a NaN fails v >= 0; an infinity makes the sum infinite). */
static inline bool ic_finite_nonneg(const double *v, size_t n)
{
    double sum = 0;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        ok &= v[i] >= 0;
    }
    return ok && sum < INFINITY;
}

/* What sets the step: the larger of its memory and compute terms, the
 * collectives, or (expected estimate) the fixed part, kernel launches and
 * an engine's host time, where it is the largest term */
enum ic_bound {
    IC_BOUND_WEIGHTS,
    IC_BOUND_KV,
    IC_BOUND_COMPUTE,
    IC_BOUND_COMM,
    IC_BOUND_FIXED,
    IC_BOUND_COUNT
};
const char *ic_bound_name(enum ic_bound b);

enum ic_comm_mode { IC_COMM_OVERLAP, IC_COMM_SERIAL, IC_COMM_MODE_COUNT };
const char *ic_comm_mode_name(enum ic_comm_mode m);

/* Which time a step states: the ideal bound from spec-sheet peaks (derated
 * per phase by an MFU where given), or the expected time from a hardware
 * entry's measured figures. */
enum ic_estimate { IC_EST_IDEAL, IC_EST_EXPECTED, IC_EST_COUNT };
const char *ic_estimate_name(enum ic_estimate e);

/* How attention runs. Fused (FlashAttention): scores stay on chip, causal
 * masking skips the masked half. Unfused (the textbook kernel sequence):
 * the full products, scores through HBM (see above). */
enum ic_attn_impl { IC_ATTN_FLASH, IC_ATTN_UNFUSED, IC_ATTN_COUNT };
const char *ic_attn_impl_name(enum ic_attn_impl a);

/* Decode: tokens generated one (or k + 1 to verify) per sequence; prefill:
 * prompt tokens. The phase picks the FLOP rate (ic_rates.mfu) and MLA's
 * attention form. */
enum ic_phase { IC_PHASE_DECODE, IC_PHASE_PREFILL, IC_PHASE_COUNT };

struct ic_layout {
    uint64_t chips;   /* N: one tensor-parallel group */
    uint64_t ep;      /* expert-parallel groups of N chips each (1 = none); the routed
                         experts split E / ep per group, every group serves its own
                         sequences (ic_moe.h) */
    uint64_t pp;      /* pipeline stages of N chips each, ceil(L / pp) layers per
                         stage, the last holding the LM head (0 or 1: none) */
    uint64_t micro;   /* micro-batches the sequences split into, each passing the
                         stages in turn (0 or 1: one; at most one a sequence: more
                         are taken as that many) */
    bool kv_copy;     /* past the KV heads (N > head ways; MLA's one latent: any N
                         > 1), every chip holding a KV head keeps that head's cache
                         of every sequence, as vLLM's tensor parallelism copies it;
                         false: the chips sharing a head split the sequences
                         (ceil(B / g) each), the least a chip can hold */
};

struct ic_seqs {
    uint64_t count;   /* sequences of this kind, per group */
    uint64_t tokens;  /* new tokens each brings this step (>= 1) */
    uint64_t context; /* tokens each has cached before the step */
    uint64_t logits;  /* of its new tokens, those that need the LM head (<= tokens) */
    enum ic_phase phase;
};

enum { IC_STEP_MAX_KINDS = 2 };

struct ic_step {
    struct ic_layout layout;
    struct ic_seqs kind[IC_STEP_MAX_KINDS];
    unsigned n_kinds;                      /* 1 or 2 */
    enum ic_dtype weights, kv, compute;    /* storage of weights and cache; the matmul type */
    enum ic_attn_impl attn;
};

/* What the busiest chip of a group does in one step. */
struct ic_load {
    enum ic_dtype weights, kv, compute;
    uint64_t chips, ep;
    uint64_t pp, micro;                    /* stages and micro-batches (>= 1) */
    double send_bytes;                     /* activations one chip sends to the next
                                              stage per micro-batch pass (pp > 1) */
    double weight_bytes;                   /* weights read */
    double weight_bytes_at[IC_DT_COUNT];   /* the same by storage type (the step's, and
                                              what the checkpoint keeps unquantized) */
    double weight_params;                  /* the same in parameters */
    double lin_flops[IC_PHASE_COUNT];      /* linear layers */
    double kv_read_bytes, kv_write_bytes;  /* the cache */
    double kv_attn_read_bytes;             /* of kv_read_bytes, what decode attention
                                              kernels read: the decode kinds' keys and
                                              values (a sparse-attention indexer's keys
                                              among them), without a linear layer's
                                              state; not a prefill chunk's prefix (an
                                              engine's attention efficiency times these
                                              alone) */
    double scores_bytes;                   /* unfused attention's score passes */
    double attn_flops[IC_PHASE_COUNT];     /* QK^T and AV */
    double attn_scores[IC_PHASE_COUNT];    /* (query head, cached token) pairs they score,
                                              over the layers: the softmax's work */
    /* collectives: each one's payload per chip and how many per step */
    double allreduce_bytes;
    uint64_t allreduces;                   /* within the N chips */
    double a2a_bytes;                      /* sent (and received) per chip */
    uint64_t a2as;                         /* over the N * ep chips */
    /* the group as a whole (reported, not timed) */
    double tokens;                         /* new tokens this step */
    double flops;                          /* the model's FLOPs, not counting work that
                                              replicated groups repeat on several chips */
    double flops_linear, flops_attn;       /* its two parts */
    double kv_read_all_bytes;              /* cache read, all sequences */
    double kv_write_all_bytes;             /* cache written, all sequences */
    double scores_all_bytes;               /* unfused scores traffic, all sequences */
    double experts_touched;                /* expected routed experts read per MoE layer */
    double weights_held_bytes;             /* weights this chip holds */
    double kv_seq_chip_bytes[IC_STEP_MAX_KINDS]; /* one sequence of each kind: its
                                              cache after the step (context + tokens)
                                              over the layers this chip's stage holds,
                                              on a chip holding the sequence (its keys
                                              and values by head, its state over every
                                              chip sharing it) */
    double work_seq_bytes;                 /* workspace per sequence on one chip */
    uint64_t kv_split_heads, kv_split_batch;
    double kv_head_div;                    /* a chip holds 1 / this of a sequence's keys
                                              and values: kv_split_heads, or more where
                                              copied past heads the chips do not divide */
    bool uneven_split;                     /* N does not divide the query heads (or exceeds
                                              them unevenly): the busiest chip sets the time */
    /* what the expected time needs of the model */
    double attn_group;                     /* query heads per KV head */
    uint64_t layers;
    double gemms;                          /* GEMM kernels of this stage's step
                                              (ic_step_gemm_kernels) */
    double extra_kernels;                  /* kernels this stage's layers launch beyond
                                              a dense GQA layer's each
                                              (ic_step_extra_kernels) */
    double row_width;                      /* the residual width (hidden_size) */
};

/* Fills *out for step s of model m (pure, no allocation). Fails with
 * IC_EINVAL, naming the input, on zero chips or ep, no sequence kind, a kind
 * with no tokens, logits above its tokens, context + tokens beyond 2^26,
 * chips x ep x pp beyond IC_DECODE_MAX_CHIPS, more stages than layers, or
 * more micro-batches than 2^24. A kind with no sequences adds nothing. */
int ic_step_load(const struct ic_model_stats *m, const struct ic_step *s, struct ic_load *out,
                 struct ic_err *err);

/* The rate source: what a FLOP and a byte cost. */
struct ic_rates {
    enum ic_estimate estimate;
    enum ic_comm_mode comm;
    /* ideal: the share of the peak each phase's FLOPs run at (0 counts as 1) */
    double mfu[IC_PHASE_COUNT];
    /* expected only: DRAM bandwidth now over the bench's (1 = as benched) */
    double bw_scale;
    /* expected only: compute rate now over the bench's (1 = as benched);
     * the attention's too where attn_scale is 0 */
    double compute_scale;
    /* expected only: parallel regions (fork/join) per step; 0 = 8 per layer + 2 */
    uint64_t regions;
    /* expected from achieved rates only: the serving engine's profile
     * (enginedb/); NULL = a good engine on the chip (graphs, overlapped
     * scheduling, every kernel at the achieved rates) */
    const struct ic_engine *engine;
    /* expected from measured rates only: the attention's rate now over the
     * bench's (an attention probe beside a timing over the entry's
     * probe_attention); 0 = compute_scale stands in */
    double attn_scale;
};

/* Ideal, overlapped collectives, every phase at the peak. */
struct ic_rates ic_rates_ideal(void);

struct ic_time {
    double weights_s, compute_s;   /* the linear layers: weight read, FLOPs */
    double kv_s, attn_s;           /* attention: cache (and scores) traffic, FLOPs */
    double comm_s;                 /* the all-reduces */
    double a2a_s;                  /* the all-to-alls (always serial) */
    double fixed_s;                /* expected: fork/join per region; on an achieved
                                      entry the launches and the engine's host time */
    double launches;               /* achieved: kernels launched a step (in fixed_s) */
    double host_s;                 /* achieved: the engine's host time a step (in fixed_s) */
    double gemms;                  /* achieved with gemv_fixed: GEMM kernels a step */
    double gemm_fixed_s;           /* ... and their fixed time (in weights_s) */
    double send_s;                 /* pipeline: one pass's activations to the next stage */
    double stage_s;                /* one micro-batch through one stage (the terms
                                      above are of this pass); = step_s - host_s
                                      without a pipeline or micro-batches */
    uint64_t cycles;               /* passes a step takes: max(micro, pp) */
    double step_s;
    bool cache_resident;           /* expected: weights and cache fit the LLC */
    bool achieved;                 /* expected from the entry's achieved (published) rates */
    enum ic_bound bound;
};

/* The load in seconds (the one place the terms are combined):
 *   ideal     each term at the spec-sheet rate: bytes / W, FLOPs / (C * mfu of
 *             their phase); linear = max(T_weights, T_compute), attention =
 *             max(T_kv, T_attn), the kernels one after the other;
 *   expected  on a machine infcalc benched (hw->measured): the measured
 *             rates (ic_decode.h), each pair joined softly, (a^p + b^p)^(1/p),
 *             plus the fixed cost; on an accelerator with an achieved section
 *             (published microbenchmarks): the ideal rule over the achieved
 *             HBM read (times the GEMV efficiency) and GEMM rate of the
 *             compute type (the linear pair joined as (a^p + b^p)^(1/p)
 *             where the entry gives a transition_p for the compute type,
 *             fitted to a published GEMM sweep over the batch: the step's
 *             sums, which is each GEMM's where all share one ratio of
 *             FLOPs to bytes, as a layer's do at one type), plus
 *             kernels_per_layer x layers launches inside
 *             a graph (and the extra kernels of MoE, MLA and linear layers,
 *             ic_step_extra_kernels), and the all-reduces at their
 *             achieved latency and bus bandwidth
 *             (ic_comm_allreduce_achieved_s), always after the
 *             kernels (serial, as serving engines run them); with an engine
 *             profile (r->engine, ic_engine.h) and only there: each
 *             weight group at the GEMV bandwidth times the profile's
 *             efficiency for the type it is stored in (parts a checkpoint
 *             keeps 16-bit, MoE routers among them, at that type's), the cache at the attention efficiency for the KV
 *             type, every kernel at the plain launch when steps are not
 *             graphs, and the host's time per step added when the
 *             scheduler does not overlap the accelerator;
 *   step      linear + attention (+ fixed), with the all-reduces overlapped,
 *             max(that, T_comm) (a lower bound), or serial, that + T_comm;
 *             then + T_a2a (dispatch lands before the expert matmuls): the
 *             time of one pass (stage_s); with a pipeline or micro-batches
 *             the step is max(micro, pp) x (pass + its send to the next
 *             stage, ic_comm_send_s): with one micro-batch every stage waits
 *             for the one before; with micro >= pp each stage is busy all
 *             step; the engine's host time, once a step, after all of it.
 * The bound is comm when the collectives set the step, else the larger term
 * of the larger kernel. Fails with IC_EINVAL when the chip lacks the compute
 * type, N exceeds its fabric with no scale-out network, the expected time
 * has neither measured nor achieved figures (or no achieved GEMM rate for
 * the compute type), or a figure is not finite (*out is then
 * undefined). */
int ic_step_time(const struct ic_load *l, const struct ic_hw *hw, const struct ic_rates *r,
                 struct ic_time *out, struct ic_err *err);

/* Parameters the busiest of N chips holds of group g: the group's units
 * (heads, columns) spread over min(N, units) chips, ceil(units / that) on the
 * busiest; past the unit count the group is replicated (a model stating
 * totals splits evenly). */
double ic_step_group_per_chip(const struct ic_model_stats *m, enum ic_pgroup g, uint64_t chips);

/* Ways the cache splits by KV head on N chips: the largest divisor of the KV
 * head count that divides N (N for a model stating totals). The sequences
 * split N / that ways. */
uint64_t ic_step_kv_head_ways(const struct ic_model_stats *m, uint64_t chips);

/* Expected routed experts touched by `tokens` tokens choosing top-k of E
 * uniformly: E * (1 - (1 - k/E)^tokens). */
double ic_step_experts_touched(uint64_t n_experts, uint64_t top_k, double tokens);

/* Kernels one decode step launches beyond kernels_per_layer x layers (the
 * hwdb entry's count of a dense GQA layer: add + RMSNorm, QKV GEMM, RoPE,
 * cache write, attention, O GEMM, add + RMSNorm, gate/up GEMM, SwiGLU, down
 * GEMM) over `layers` of m's layers of which `moe_layers` are MoE layers
 * (the whole model: m->n_moe_layers and m->n_layers; a pipeline stage: its
 * own), as engines lay such layers out:
 *   each MoE layer +4: its routed experts run 7 kernels where a dense MLP
 *     runs 3 (router GEMM, top-k, sorting the tokens by expert, grouped
 *     GEMM 1, activation, grouped GEMM 2, the weighted sum over the k
 *     experts), IC_STEP_MOE_KERNELS;
 *   with shared experts +3 more (their gate/up GEMM, SwiGLU, down GEMM),
 *     IC_STEP_SHARED_KERNELS;
 *   each MLA layer +4: 9 kernels where GQA's attention runs 5 (the fused
 *     down-projection GEMM, two RMSNorms, the q up-projection GEMM, the
 *     absorbed k batched GEMM, cache write + RoPE, attention, the absorbed v
 *     batched GEMM, O GEMM), IC_STEP_MLA_KERNELS;
 *   each linear-attention (Gated DeltaNet) layer +2: 7 kernels where GQA's
 *     attention runs 5 (the qkvz and ba projection GEMMs, the causal
 *     convolution's update, the gating, the gated delta rule's recurrent
 *     update, the gated RMSNorm, the out projection GEMM),
 *     IC_STEP_LINEAR_KERNELS (a Mamba2 layer's mixer, in_proj GEMM, conv
 *     update, selective state update, gated RMSNorm, out_proj GEMM, runs
 *     GQA's 5: +0); a gated full attention layer +1 (the sigmoid
 *     gate times the output), IC_STEP_GATE_KERNELS; a sigmoid-gated shared
 *     expert +2 (the gate's GEMM, the sigmoid times the expert's output),
 *     IC_STEP_SHARED_GATE_KERNELS; in a model of separate mixer and MLP
 *     blocks (Nemotron-H) a mixer block without an MLP of its own -4 (the
 *     MLP's add + RMSNorm, up or gate/up GEMM, activation, down GEMM),
 *     IC_STEP_MLP_KERNELS; a stage's share of each kind its share
 *     of the layers, rounded up.
 * The counts and their sources are in hwdb/README.md. Only an entry that
 * counts kernels (kernels_per_layer > 0) pays them; one program per step
 * (a TPU's) has none. */
#define IC_STEP_MOE_KERNELS 4
#define IC_STEP_SHARED_KERNELS 3
#define IC_STEP_MLA_KERNELS 4
#define IC_STEP_LINEAR_KERNELS 2
#define IC_STEP_GATE_KERNELS 1
#define IC_STEP_SHARED_GATE_KERNELS 2
#define IC_STEP_MLP_KERNELS 4
double ic_step_extra_kernels(const struct ic_model_stats *m, double moe_layers, double layers);

/* GEMM kernels (each reads weights: the kernels a GEMV table times) of one
 * decode step over `layers` of m's layers of which `moe_layers` are MoE
 * layers, counted in the same engine layouts as ic_step_extra_kernels: a
 * dense GQA layer 4, its mixer's 2 (QKV, O; a Mamba2 mixer's in_proj and
 * out_proj), IC_STEP_MIXER_GEMMS, and its MLP's 2 (gate/up, down),
 * IC_STEP_MLP_GEMMS, where a model of separate mixer and MLP blocks
 * (Nemotron-H) runs the MLPs of its MLP blocks only; a MoE
 * layer +1 (the router GEMM and two grouped GEMMs where a dense MLP runs
 * 2), IC_STEP_MOE_GEMMS; shared experts +2 (gate/up, down),
 * IC_STEP_SHARED_GEMMS; a sigmoid-gated shared expert +1 (the gate),
 * IC_STEP_SHARED_GATE_GEMMS; a MLA layer +3 (the fused down-projection,
 * the q up-projection, the absorbed k and v batched GEMMs and O: 5 where
 * GQA runs 2), IC_STEP_MLA_GEMMS; a Gated DeltaNet layer +1 (the qkvz, ba
 * and out projections), IC_STEP_LINEAR_GEMMS (a Mamba2 mixer's in_proj
 * and out_proj: +0); a gated attention's gate +0 (no GEMM of its own); and
 * the LM head, 1 a step (under a pipeline, on the stage timed: the last,
 * which holds the head, as ic_step_load's weights have it). Each pays an
 * entry's gemv_fixed (skinny_fixed in a step of one token). */
#define IC_STEP_MIXER_GEMMS 2
#define IC_STEP_MLP_GEMMS 2
#define IC_STEP_MOE_GEMMS 1
#define IC_STEP_SHARED_GEMMS 2
#define IC_STEP_SHARED_GATE_GEMMS 1
#define IC_STEP_MLA_GEMMS 3
#define IC_STEP_LINEAR_GEMMS 1
double ic_step_gemm_kernels(const struct ic_model_stats *m, double moe_layers, double layers);

/* The soft transition between two terms that overlap: (a^p + b^p)^(1/p);
 * p = 1 adds them, p -> infinity is max(a, b); 0 when both are 0.  The
 * one combination ic_step_time uses, and the one the self-check fits p to. */
double ic_step_pnorm(double a, double b, double p);

/* The measured in-cache matmul rate (FLOP/s) of type t at batch b:
 * interpolated in log-log between the benched batches 1, 2, 4 ... 256 (the
 * batch-256 rate past it), or the batch-256 rate everywhere when the entry
 * has no gemm_by_batch table. */
double ic_step_gemm_rate(const struct ic_hw_measured *ms, enum ic_dtype t, double b);

/* The expected time's compute term of a matmul of `flops` FLOPs at batch b
 * on a measured entry, in seconds: its time in cache at batch b (the rate
 * above) less the time in cache of one pass over its weights, which is
 * that at batch 1 (flops / b at the batch-1 rate); 0 where that is larger.
 * At batch 1 the in-cache matmul is a GEMV bound by the cache's bandwidth,
 * not by arithmetic: its time is a weight stream, and the weight stream is
 * already the memory term (the gemv rate from DRAM, compute included). A
 * compute term of flops / rate(1) there counted the stream twice (~16%
 * pessimistic at batch 1 on 2 threads, issue 13). The one definition
 * ic_step_time and the self-check's transition fit share. */
double ic_step_matmul_compute_s(const struct ic_hw_measured *ms, enum ic_dtype t, double b,
                                double flops);

/* One sequence's cache at `context` tokens over the whole model, bytes of
 * type kv (window layers hold at most their window; DeepSeek Sparse
 * Attention's indexer keys beside, at their own type), and from its first
 * token the linear-attention layers' fixed state (ic_model_state_bytes, at
 * its own types). A chip's share of it: ic_step_seq_chip_bytes. */
double ic_step_kv_seq_bytes(const struct ic_model_stats *m, uint64_t context, enum ic_dtype kv);
/* Its tokens' part alone (no linear-attention state). */
double ic_step_kv_token_bytes(const struct ic_model_stats *m, uint64_t context, enum ic_dtype kv);

/* A paged cache's block in tokens: `block`, or for a model with
 * linear-attention or Mamba layers the block vLLM's hybrid cache manager
 * aligns to their state (v1 _align_hybrid_block_size): the fewest tokens, a
 * multiple of `block`, whose keys and values in one attention layer take
 * at least one layer's state (Qwen3-Next, a bf16 cache and state: 1,097,728
 * / 2,048 B -> 536 -> 544 tokens), so that a page holds either, on one of
 * `chips` chips: its share of the state (ic_step_state_chip_share) over
 * its share of a token's keys and values (as kv_copy places them). Split,
 * the two shares are alike and the block is the same at any size; copied
 * past the KV heads, the state splits over more chips than the keys and
 * values, and the block is smaller, as vLLM's per rank (Qwen3-Next on 4:
 * 272). */
uint64_t ic_step_paged_block(const struct ic_model_stats *m, enum ic_dtype kv, uint64_t block,
                             uint64_t chips, bool kv_copy);

/* What a step of `tokens` new tokens reads of that cache at `context`
 * tokens (the new ones included): all of it, but under DeepSeek Sparse
 * Attention each new token's top-k of the main cache (their union, at most
 * the whole) and every indexer key. A linear-attention layer's state is
 * read whole, and written whole once a step (ic_model_state_bytes). */
double ic_step_kv_read_seq_bytes(const struct ic_model_stats *m, uint64_t context,
                                 uint64_t tokens, enum ic_dtype kv);

/* Bytes per parameter stored in type t: its bits, plus the scales and zeros
 * of a quantized checkpoint when t is the checkpoint's type. */
double ic_step_weight_bytes(const struct ic_model_stats *m, enum ic_dtype t);

/* The storage type of parameter group g (enum ic_pgroup) under weight type
 * `weights`: that type, or the one the checkpoint keeps the group at (a
 * quantization_config's unquantized parts). */
enum ic_dtype ic_step_group_type(const struct ic_model_stats *m, int g, enum ic_dtype weights);

/* ---- memory held ---------------------------------------------------------- */

/* Per-chip bytes with B sequences in flight: the weights held, the cache of
 * the busiest chip's sequences (ceil(B / batch ways), each kv_seq_bytes over
 * the head ways) and the workspace (fp32 activations of B / N sequences:
 * residual, normed input, attention output and query, 4 * D; the sharded
 * MLP intermediate 2 * F / N and logits V / N). */
struct ic_mem {
    double weights_bytes;   /* held per chip */
    double kv_seq_bytes;    /* one sequence's cache on one chip of a head split */
    double work_seq_bytes;  /* workspace per sequence */
    uint64_t chips;
    uint64_t batch_ways;
};

/* One sequence's cache on a chip of `chips` holding it, from seq_B, its
 * bytes over the whole model with its linear-attention state
 * (ic_step_kv_seq_bytes at a context of 1 or more): the keys and values by
 * head (split: the head group's; copied: the ceil(H / N) heads a chip
 * computes), the state over the chips sharing the sequence, as its own
 * heads split (ic_step_state_chip_share: 1 / N copied, 1 / head ways
 * split). */
double ic_step_seq_chip_bytes(const struct ic_model_stats *m, uint64_t chips, bool kv_copy,
                              double seq_B);
double ic_step_state_chip_share(const struct ic_model_stats *m, uint64_t chips, bool kv_copy);

/* weights_bytes: the weights one chip holds; kv_seq_bytes: one sequence's
 * cache over the whole model, its linear-attention state included
 * (ic_step_kv_seq_bytes at a context of 1 or more); kv_copy: as
 * ic_layout's. */
struct ic_mem ic_step_mem(const struct ic_model_stats *m, uint64_t chips, bool kv_copy,
                          double weights_bytes, double kv_seq_bytes);
/* The same for the layout, weights and the sequences of kind `kind` of a
 * step's load (nothing computed twice). */
struct ic_mem ic_step_mem_of(const struct ic_load *l, unsigned kind);
double ic_step_mem_at(const struct ic_mem *k, uint64_t batch);
/* The largest batch whose memory is at most capacity (0 if none), at most
 * IC_DECODE_MAX_BATCH (the largest --batch accepted); exact. */
uint64_t ic_step_max_batch(const struct ic_mem *k, double capacity);
/* Whether the estimate times an accelerator at its achieved rates (the
 * entry's achieved section, no bench's measured one): engine profiles
 * apply there, and the collectives run after the kernels whatever the
 * comm mode */
bool ic_step_achieved(const struct ic_hw *hw, enum ic_estimate estimate);
/* The GEMM rate the expected time runs compute type t's FLOPs at on an
 * entry with achieved rates, FLOP/s; 0 where the entry has none for t (or
 * no achieved section): ic_step_time refuses that configuration */
double ic_step_achieved_gemm(const struct ic_hw *hw, enum ic_dtype t);

/* Whether an engine profile may be read for hw under the estimate asked for
 * (estimate < 0: none asked, a profile then implies expected): not under
 * the ideal bound, and only on an entry with achieved rates (ic_step_
 * achieved); IC_EINVAL saying why, with a hint, otherwise (the command
 * line's --engine and the server's engine parameter alike). */
int ic_step_engine_applies(const struct ic_hw *hw, int estimate, struct ic_err *err);

#endif
