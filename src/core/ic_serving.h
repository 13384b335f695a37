/* ic_serving: the serving questions past one decode step (docs/cases.md):
 * prefill and time to first token, chunked prefill riding on decode
 * steps, speculative decoding, prefix caching, prefill/decode
 * disaggregation, cost, best-of-N and the SLO search.
 *
 * Every time here is one or more steps of ic_step (a load, then a time) at
 * the configuration's estimate (ic_decode_rates): the ideal bound's
 * spec-sheet peaks, prefill's FLOPs derated by an explicit MFU, or the
 * expected time at the entry's achieved (or benched) rates, with the
 * engine's profile where given. Functions
 * are pure: no I/O, no allocation except where stated, errors through
 * ic_err. */
#ifndef IC_SERVING_H
#define IC_SERVING_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <gsl/gsl_rng.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- prefill ----------------------------------------------------------- */

#define IC_PREFILL_MFU 0.4
#define IC_PREFILL_MAX_TOKENS (UINT64_C(1) << 24) /* prompt x prompts per prefill */
#define IC_SPEC_MAX_K 64                 /* draft lengths searched: 1 .. this */
#define IC_PREFIX_MAX_PREFIXES (1u << 20) /* distinct prefixes held */
#define IC_OPTIMIZE_MAX_TOP 1000          /* configurations optimize shows */
#define IC_OPTIMIZE_MAX_CHIPS 4096        /* chips per replica optimize searches */
#define IC_BESTOFN_MAX_N 4096             /* candidates */

struct ic_prefill_cfg {
    uint64_t chips;          /* N: one tensor-parallel replica */
    uint64_t prompt;         /* T: new prompt tokens per sequence */
    uint64_t prompts;        /* sequences prefilled together (>= 1) */
    uint64_t prefix;         /* tokens already cached ahead of the prompt (0) */
    enum ic_dtype weights, kv, compute;
    double mfu;              /* 0: the hw entry's measured figure, else 0.4 */
    double queue_s;          /* waiting before the prefill starts */
    enum ic_attn_impl attn;
    enum ic_comm_mode comm;
    /* ideal (the default): the FLOPs at mfu of the spec-sheet peak;
     * expected: ic_step's expected time, at the entry's achieved (or
     * benched) rates, mfu unread */
    enum ic_estimate estimate;
    const struct ic_engine *engine; /* expected only: the serving engine's
                                       profile (NULL: a good engine) */
    bool kv_copy;            /* as ic_decode_cfg's */
};

struct ic_prefill_cfg ic_prefill_defaults(void);

enum ic_prefill_bound { IC_PF_COMPUTE, IC_PF_MEMORY, IC_PF_COMM, IC_PF_FIXED, IC_PF_COUNT };
const char *ic_prefill_bound_name(enum ic_prefill_bound b);

struct ic_prefill {
    struct ic_prefill_cfg cfg;
    double mfu;              /* the MFU used (expected: the achieved or benched GEMM
                                rate of the compute type over its peak) */
    bool mfu_measured;       /* from the hw entry's measured matmul rate */
    double linear_flops;     /* 2 (P_act - P_head) T prompts + 2 P_head prompts */
    double attn_flops;       /* QK^T and AV, causal unless unfused */
    double flops;            /* their sum, all chips */
    double compute_s;        /* this chip's linear and attention FLOPs / (C * mfu) */
    double weight_bytes;     /* weights read once (MoE: the experts the tokens touch),
                                summed over chips */
    double attn_hbm_bytes;   /* attention's HBM reads, all prompts: the cache of prefix +
                                prompt (and unfused, the scores' four passes) */
    double kv_write_bytes;   /* the new tokens' KV written to the cache, all prompts */
    double memory_s;         /* what this chip reads and writes / W */
    double comm_s;           /* 2 all-reduces of the activations per layer */
    double prefill_s;        /* the step's time (ic_step_time) */
    double ttft_s;           /* queue + prefill */
    double tokens_s;         /* prompt tokens per second */
    double usd_per_mtok;     /* dollars per million prompt tokens */
    enum ic_prefill_bound bound;
};

/* Prefill of cfg->prompts prompts of T tokens each on N chips. Fails with
 * IC_EINVAL on zero chips or prompt, an MFU outside (0, 1], more than
 * IC_PREFILL_MAX_TOKENS tokens, a compute type the chip lacks. */
int ic_prefill(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_prefill_cfg *cfg, struct ic_prefill *out, struct ic_err *err);

/* Chunked prefill: a prompt of T tokens split into chunks of c tokens, each
 * riding on one decode step of a running batch (dec: chips, batch, context,
 * types; batch 0: an idle server, the chunks alone). Each step is one
 * ic_step with two kinds of sequences: the batch's decode tokens and the
 * chunk (at the prefill MFU, it is prefill work; logits for the last chunk
 * only), so the weights are read once for both. */
struct ic_chunked {
    double decode_s;         /* the decode step alone (0 with no batch) */
    double chunk_step_s;     /* mean step with a chunk */
    double max_step_s;       /* the slowest (the last full chunk, longest prefix) */
    uint64_t steps;          /* ceil(T / c) */
    double ttft_s;           /* queue + the steps' sum */
    double prefill_alone_s;  /* the same prompt prefilled by itself */
    double mfu;              /* the MFU the chunks' prefill work ran at */
    double slowdown;         /* chunk_step_s / decode_s - 1: what decoding pays (0 with no
                                batch) */
};

/* Every step at dec's estimate and engine (the prompt alone too, whatever
 * pf's). */
int ic_chunked(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_decode_cfg *dec, const struct ic_prefill_cfg *pf,
               uint64_t chunk, struct ic_chunked *out, struct ic_err *err);

/* ---- speculative decoding --------------------------------------------- */

/* Expected tokens per verification with per-token acceptance a (0 <= a <= 1)
 * and k drafted tokens: 1 + a + ... + a^k = (1 - a^(k+1)) / (1 - a). */
double ic_spec_tokens(double a, uint64_t k);

/* Speedup over plain decoding with draft/target step cost ratio c: the
 * expected tokens over the cost of k draft steps and one verification,
 * tokens / (k * c + 1). */
double ic_spec_speedup(double a, uint64_t k, double c);

/* The k in 1 .. kmax with the largest speedup (the smallest such k on a
 * tie); its speedup in *speedup. */
uint64_t ic_spec_best_k(double a, double c, uint64_t kmax, double *speedup);

/* Acceptance rate of a draft distribution q for a target p over n tokens:
 * a = sum of min(p_i, q_i). Both must be non-negative, finite and sum to 1
 * within 1e-6; else IC_EINVAL naming `which` entry is wrong. */
int ic_spec_accept(const double *p, const double *q, size_t n, double *a, struct ic_err *err);

/* One token by the speculative sampling rule: x ~ q; accepted with
 * probability min(1, p_x / q_x); else a token from the residual
 * max(0, p - q) renormalised. The output is distributed exactly as p.
 * *accepted (may be NULL) says which branch produced it. */
size_t ic_spec_sample(gsl_rng *r, const double *p, const double *q, size_t n, bool *accepted);

/* Costed speculative decoding with a draft model on the same chips: the
 * draft decodes k steps one token at a time (ic_decode); the target verifies
 * k + 1 tokens per sequence in one step (an ic_step of k + 1 decode-phase
 * tokens after the same cache: weights read once, the cache read once and
 * k + 1 tokens written, linear and attention FLOPs and collectives for
 * every token). k = 0 is plain decoding: the verify step is the decode step. */
struct ic_spec_costed {
    uint64_t k;
    double draft_s;          /* one draft step (without an engine's host time, which
                                the round pays once, in its verify step) */
    double target_s;         /* one plain target step */
    double verify_s;         /* the target step over k + 1 tokens */
    double cost_ratio;       /* draft_s / target_s */
    double tokens;           /* expected tokens per round */
    double round_s;          /* k * draft_s + verify_s */
    double speedup;          /* tokens * target_s / round_s */
    double tokens_s;         /* batch * tokens / round_s */
};

/* cfg is the target's (its estimate and engine time the draft, target and
 * verify steps alike); the draft runs it at its own weight type,
 * draft_weights (a checkpoint's shipped type, where the two differ) */
int ic_spec_costed(const struct ic_model_stats *target, const struct ic_model_stats *draft,
                   const struct ic_hw *hw, const struct ic_decode_cfg *cfg,
                   enum ic_dtype draft_weights, double a, uint64_t k,
                   struct ic_spec_costed *out, struct ic_err *err);

/* ---- prefix caching ---------------------------------------------------- */

struct ic_prefix_cfg {
    struct ic_prefill_cfg pf; /* pf.prompt: the whole prompt T, prefix included */
    uint64_t prefix;          /* P: shared prefix tokens (P < T) */
    double hit_rate;          /* share of requests whose prefix is cached */
    uint64_t n_prefixes;      /* distinct prefixes kept (>= 1) */
};

struct ic_prefix {
    double full_flops, hit_flops;   /* prefill of T; of T - P after a cached P */
    double full_s, hit_s;           /* their TTFT (with the queue) */
    double expected_s;              /* hit_rate * hit + (1 - hit_rate) * full */
    double flops_saved;             /* expected share of prefill FLOPs saved */
    double ttft_saved_s;            /* full_s - expected_s */
    double held_bytes;              /* KV of n_prefixes prefixes, all chips */
    double held_per_chip_bytes;
    double host_read_s;             /* one prefix's KV back over the host links
                                       (ic_kv_host_copy_s); NaN where the entry has
                                       no host link (kind none: null, '-') */
    double recompute_s;             /* prefilling the prefix instead */
};

/* One sequence's KV of `tokens` tokens copied between HBM and host memory on
 * a replica of `chips`: every chip holding it its share (ic_step_seq_chip_bytes,
 * as kv_copy places it) over its host link at hw->host_B_s (one way), in
 * parallel. Seconds (infinite where the entry has no host link). ic_prefix's
 * host read and the simulation's swap preemption use it. */
double ic_kv_host_copy_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                         uint64_t tokens, enum ic_dtype kv, uint64_t chips, bool kv_copy);

/* Prefill with and without a cached prefix of cfg->prefix tokens, the
 * saving at the hit rate, the HBM held and the read-back beside the
 * recompute. A chip without a host link (kind none) is not refused: only
 * host_read_s needs the link, and it is NaN there. */
int ic_prefix(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_prefix_cfg *cfg, struct ic_prefix *out, struct ic_err *err);

/* ---- disaggregation ---------------------------------------------------- */

/* IC_OK where a request of prompt + output tokens is at most 2^26
 * (IC_MODEL_MAX_CONTEXT), else IC_EINVAL "prompt + output is N tokens;
 * expected at most 2^26" with a hint. ic_disagg checks it, and bestofn
 * before it times its candidates. */
int ic_request_tokens_check(uint64_t prompt, uint64_t output, struct ic_err *err);
/* The same test without the message: prompt + output within 2^26 tokens
 * (IC_MODEL_MAX_CONTEXT), the longest context a step is timed at. */
bool ic_request_tokens_ok(uint64_t prompt, uint64_t output);

struct ic_disagg {
    double prefill_s;        /* one prefill batch on a prefill server */
    double prefill_seq_s;    /* sequences a prefill server produces per second */
    double decode_step_s;    /* decode step at batch B, context T + L/2 */
    double decode_seq_s;     /* sequences a decode server finishes per second: B / (L * step) */
    double ratio;            /* decode servers per prefill server that keep both busy */
    uint64_t n_prefill, n_decode; /* the fewest of the rarer kind within 10% of the ratio */
    double tokens_s_chip;    /* output tokens per second per chip of that split */
    double kv_bytes;         /* one sequence's KV handed from prefill to decode */
    double kv_transfer_s;    /* ic_disagg_kv_transfer_s in the split's layout */
};

/* The hand-off of one sequence's KV from a prefill server of pf_chips to a
 * decode server of dec_chips, in a layout of layout_chips chips in all
 * (every prefill and decode server): the KV of `tokens` tokens
 * (ic_step_kv_seq_bytes, bytes), each of the fewer chips sending its share
 * in parallel as one point-to-point send (ic_comm_send_s): over the fabric
 * when the whole layout fits one fabric domain, else over the scale-out
 * network (over the fabric where the entry has none). Seconds. ic_disagg
 * and the simulation's disaggregated layout both use it. */
double ic_disagg_kv_transfer_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                               uint64_t tokens, enum ic_dtype kv, uint64_t pf_chips,
                               uint64_t dec_chips, uint64_t layout_chips);

/* IC_OK where the hand-off of ic_disagg_kv_transfer_s has a path (a finite
 * time: a fabric or, past it, a scale-out network with a bandwidth); else
 * IC_EINVAL at the entry's interconnect, with a hint (a benched machine's
 * entry lists none). ic_disagg and the simulation's disaggregated layout
 * check it before they run. */
int ic_disagg_path_check(const struct ic_model_stats *m, const struct ic_hw *hw,
                         enum ic_dtype kv, uint64_t pf_chips, uint64_t dec_chips,
                         uint64_t layout_chips, struct ic_err *err);

/* pf: the prefill servers (chips, prompt T, prompts per batch); dec: the
 * decode servers (chips, batch B; context ignored); output: L tokens. */
int ic_disagg(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_prefill_cfg *pf, const struct ic_decode_cfg *dec, uint64_t output,
              struct ic_disagg *out, struct ic_err *err);

/* ---- best-of-N --------------------------------------------------------- */

/* Chance that n independent candidates include a success of probability p:
 * 1 - (1 - p)^n. */
double ic_bestofn(double p, uint64_t n);

/* Smallest n with ic_bestofn(p, n) >= target (0 < p, target < 1), capped at
 * 2^24. */
uint64_t ic_bestofn_needed(double p, double target);

/* ---- the SLO search ---------------------------------------------------- */

#define IC_OPTIMIZE_MAX_PP 64             /* pipeline stages optimize searches */
#define IC_OPTIMIZE_MAX_SIM 64            /* configurations --rank capacity simulates */

enum ic_opt_rank { IC_RANK_COST, IC_RANK_CAPACITY, IC_RANK_COUNT };

struct ic_opt_req {
    uint64_t prompt, output;      /* request shape, tokens */
    double ttft_s, tpot_s;        /* SLOs: time to first token, time per output token */
    double mfu;                   /* prefill MFU (0: default or measured) */
    uint64_t max_chips;           /* largest replica tried (powers of 2 up to it) */
    uint64_t max_pp;              /* most pipeline stages tried (powers of 2; 0: 8) */
    double rate;                  /* demand, requests/s the fleet must take (0: none, one
                                     replica of each kind) */
    uint32_t weights_mask, kv_mask; /* bit t: search type t (0: every type searched) */
    /* the steps' estimate: the ideal bound (default; prefill at mfu), or
     * expected (decode and prefill at each entry's achieved rates, with
     * the engine's profile where given: a chip and compute type without
     * them is not searched, ic_optimize_times) */
    enum ic_estimate estimate;
    const struct ic_engine *engine;
    /* the share of each chip's memory the batch may fill, weights and
     * workspace included (0: all of it, 1) */
    double mem_util;
    bool kv_copy; /* the cache past the KV heads (ic_layout.kv_copy) */
};

/* Whether the search tries type t for the weights (kv false: bf16, fp8,
 * int8, int4, fp4) or the KV cache (kv true: bf16, fp8). */
bool ic_optimize_searches(enum ic_dtype t, bool kv);

/* The compute types the search pairs with weights stored in `weights` on
 * hw: i = 0 bf16 (fp16 on a chip without bf16; not with fp4 weights), 1 to
 * 3 fp8, int8, fp4 with weights of that type; IC_DT_COUNT where i's is not
 * searched (the chip lacks its peak, or the weights are not of its type). */
enum { IC_OPTIMIZE_COMPUTES = 4 };
enum ic_dtype ic_optimize_compute(const struct ic_hw *hw, enum ic_dtype weights, int i);

/* Whether the search can time compute type `compute` on hw at estimate
 * est: always at the ideal bound; at expected, where the entry was benched
 * or has an achieved section with a GEMM rate for the type. Where not, why
 * ("no achieved int8 GEMM rate", "no achieved rates") into why[n] (may be
 * NULL). */
bool ic_optimize_times(const struct ic_hw *hw, enum ic_dtype compute, enum ic_estimate est,
                       char *why, size_t n);

/* One configuration. Decode runs on replicas of tp x pp chips: pp pipeline
 * stages of tp tensor-parallel chips, each stage holding ceil(layers / pp)
 * layers (the first the embedding, the last the LM head) and the cache of
 * every sequence for its layers, the batch split into `micro` micro-batches
 * that follow each other down the stages; a pass sends its activations
 * (tokens x D x 2 bytes, split over the tp chips) to the next stage over the
 * fabric, or over the scale-out network when tp x pp passes the fabric's
 * domain (ic_step.h, ic_comm_send_s). Replicas multiply throughput at the
 * same per-replica latency. */
struct ic_opt_cand {
    const struct ic_hw *hw;
    enum ic_dtype weights, kv, compute;
    uint64_t prefill_chips, decode_chips, batch; /* decode_chips = tp x pp */
    uint64_t tp, pp, micro;       /* the decode replica's layout */
    uint64_t replicas;            /* decode replicas the demand needs (1 without one) */
    uint64_t prefill_replicas;    /* prefill servers the demand needs (1 without one) */
    double ttft_s, tpot_s;        /* tpot at the last output token's context */
    double step_s;                /* decode step at the mean context, T + L/2 */
    double send_s;                /* one pass's activations to the next stage (0: pp 1) */
    double tokens_s_chip;         /* decode servers' output tokens/s per chip */
    double mem_share;             /* HBM held per chip at the batch (end context) over
                                     its capacity: the fit, <= 1 */
    double prefill_share;         /* prefill chip-time over all chip-time */
    double usd_per_mtok;          /* prefill and decode chip-time per output token */
    /* with a demand: the chips it provisions (prefill_replicas x prefill_chips
     * + replicas x decode_chips; colocated, replicas x decode_chips) and
     * their whole time per output token at the rate, idle time included
     * (NaN without a demand); the rows are ranked by it, then by
     * usd_per_mtok */
    uint64_t chips_total;
    double usd_per_mtok_at_rate;
    /* ... and the rate over what the busier pool of them takes (NaN
     * without a demand): the closed form's prefill or decode servers all
     * busy (a queue then grows without bound, and the TTFT shown, unloaded,
     * is reached only well below 1), the capacity ranking's replicas at
     * their simulated capacity under the P99 SLOs */
    double load;
    /* --rank capacity only (ic_optimize_capacity): one colocated replica of
     * decode_chips chips simulated (prefill and decode on the same chips) */
    double capacity_rps;          /* the largest Poisson rate meeting both P99 SLOs */
    double sim_ttft_p99_s, sim_tpot_p99_s; /* at that rate */
};

/* The decode step of an optimize layout: tp chips a stage, pp stages,
 * micro micro-batches, the types, at the request's estimate, engine and
 * cache placement; the search's steps and a row's step at the other
 * estimate (its estimate and engine set after) start from it. */
struct ic_decode_cfg ic_opt_decode_cfg(const struct ic_opt_req *req, uint64_t tp, uint64_t pp,
                                       uint64_t micro, enum ic_dtype weights, enum ic_dtype kv,
                                       enum ic_dtype compute);

/* Searches hws x replica sizes x pipeline stages x micro-batches x weight /
 * KV / compute types x batch for the lowest dollars per million output
 * tokens meeting both SLOs. For each chip and types, prefill runs on its
 * own servers (the cheapest tensor-parallel replica whose TTFT meets the
 * SLO), decode on the layout (tp 1, 2, 4 ... and pp 1, 2, 4 ... up to
 * max_pp with tp x pp <= max_chips, micro 1, 2, 4 ... up to pp) at the
 * largest batch whose step at the last token meets the TPOT SLO and fits
 * in all of memory, or the multiple of the micro-batches below it where that
 * costs less a token (a batch smaller than its micro-batches is not a
 * configuration). Writes up to
 * `cap` best candidates into out (sorted, cheapest first) and returns how
 * many met the SLOs in *n_ok (a repeat of a kept row, a type that changes
 * nothing, not counted: out holds min(*n_ok, cap) rows); frontier (may be
 * NULL) receives, per chip and layout and types, every batch's (tpot, cost)
 * for the picture (struct ic_opt_point). With a demand (req->rate > 0) each
 * row says the replicas it takes: ceil(rate / (batch / (L x step))) decode
 * replicas, ceil(rate x prefill time) prefill servers, the chips they come
 * to and their cost per output token at that rate (whole servers, idle or
 * not), by which the rows are then ranked. Fails only on bad requests (zero
 * lengths, non-positive SLOs). */
struct ic_opt_point {
    int hw;                       /* index into hws */
    double tpot_s, usd_per_mtok;
};

int ic_optimize(const struct ic_model_stats *m, const struct ic_hw *hws, size_t n_hw,
                const struct ic_opt_req *req, struct ic_opt_cand *out, size_t cap,
                size_t *n_ok, struct ic_opt_point **frontier, size_t *n_frontier,
                struct ic_err *err);

/* The capacity of one replica under P99 SLOs, by simulation (ic_sim_run):
 * an offline run of base->requests gives the most requests/s the replica
 * can finish, X; a run at 5% of X must meet both P99 SLOs (else the
 * capacity is 0: the SLOs fail even near idle); then ic_sim_capacity_bisect
 * between 5% of X and X (each a run at a midpoint, the seed and so the
 * random numbers shared): two runs at geometric midpoints narrow the 20x
 * bracket to within 4x, 7 halvings narrow that to under 0.75% of X. Eleven
 * runs of base->requests requests at most; *runs (may be NULL) says how many were made, *at (may be
 * NULL) receives the result at the capacity. base: the replica, workload and
 * scheduler (its rate, warm-up and SLOs are set here: the warm-up is a tenth
 * of the requests under a rate). Errors are ic_sim_run's. */
struct ic_sim_cfg;
struct ic_sim_result;
int ic_opt_capacity(const struct ic_model_stats *m, const struct ic_hw *hw,
                    const struct ic_sim_cfg *base, double ttft_slo_s, double tpot_slo_s,
                    double *capacity, struct ic_sim_result *at, unsigned *runs,
                    struct ic_err *err);

/* Ranks by simulated capacity instead of the closed form: of the
 * closed-form rows in[0 .. n_in) (ic_optimize's, cheapest first) the first
 * `shortlist` distinct (chip, types, replica size) with no pipeline (the
 * simulator runs one tensor-parallel replica) are simulated as a colocated
 * replica of decode_chips chips (base: the workload and scheduler; its
 * chips and types are set from the row, the estimate and engine are
 * req's, as the closed form's), their capacity found by ic_opt_capacity; the rows
 * with a capacity above 0 go into out, sorted by dollars per million
 * output tokens at that capacity (chips x price / (capacity x L)), at most
 * cap; *n_out says how many have one (min(*n_out, cap) rows written, as
 * ic_optimize counts). With a demand (req->rate) the replicas are
 * ceil(rate / capacity), and the rows ranked by the cost of their chips at
 * that rate. *n_simulated: the configurations simulated (the
 * shortlist, or fewer where the rows hold fewer); *sim_requests: requests
 * simulated in all (the search's work: at most shortlist x 11 x
 * base->requests). Either may be NULL. */
int ic_optimize_capacity(const struct ic_model_stats *m, const struct ic_opt_req *req,
                         const struct ic_sim_cfg *base, const struct ic_opt_cand *in,
                         size_t n_in, size_t shortlist, struct ic_opt_cand *out, size_t cap,
                         size_t *n_out, size_t *n_simulated, uint64_t *sim_requests,
                         struct ic_err *err);

#endif
