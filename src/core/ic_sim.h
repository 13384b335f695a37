/* ic_sim: a discrete-event simulation of one serving replica, stepping with
 * infcalc's step model.
 *
 * Requests arrive (Poisson at a rate, or all at t = 0: offline) with prompt
 * and output lengths drawn from a distribution (fixed, uniform, log-normal
 * or gamma, with a mean and a coefficient of variation) from a seeded
 * generator. A scheduler in the manner of vLLM's forms each step:
 *   - continuous batching with at most max_seqs sequences and a budget of
 *     max_tokens new tokens per step;
 *   - chunked prefill (default): every running decode gets its token first,
 *     then prompts are prefilled in chunks within what is left of the
 *     budget, oldest first; or prefill-first: a step with any prompt to
 *     prefill prefills whole prompts only (no decodes ride along);
 *   - a paged KV cache of fixed-size blocks over the memory the chips have
 *     left after the weights (and a workspace per sequence): a sequence
 *     holds ceil(tokens / block) blocks; a waiting request is admitted when
 *     the blocks of its next chunk are free; when a running sequence needs
 *     a block and none is free, the most recently admitted sequence is
 *     preempted by recompute (its blocks freed, its prompt and the tokens
 *     generated so far prefilled again when it is readmitted).
 * A step's time is ic_step_load + ic_step_time of at most two kinds of
 * sequences: the decodes (one token each at their mean context) and the
 * prefill chunks (their mean chunk at their mean cached length), with the
 * estimate asked for. Step times are kept in a table keyed by the decode
 * count, the prefill tokens and the mean contexts rounded to 1/32 of a
 * power of two (so within ~1.6%: ic_sim_step_s gives the exact time for
 * comparison).
 *
 * A request's first token comes at the end of the step that finishes its
 * prompt; TTFT = that time - arrival; TPOT = (finish - first token) /
 * (output - 1); ITL: every gap between two of its tokens; E2E = finish -
 * arrival. Percentiles come from histograms of 1000 log-spaced bins per
 * decade (0.23% relative resolution), so memory is bounded by the requests
 * in flight, not by their number. The first `warmup` requests to arrive are
 * left out of every statistic. */
#ifndef IC_SIM_H
#define IC_SIM_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <stdbool.h>
#include <stdint.h>

enum ic_sim_dist { IC_DIST_FIXED, IC_DIST_UNIFORM, IC_DIST_LOGNORMAL, IC_DIST_GAMMA,
                   IC_DIST_COUNT };
const char *ic_sim_dist_name(enum ic_sim_dist d);

enum ic_sim_sched { IC_SCHED_CHUNKED, IC_SCHED_PREFILL_FIRST, IC_SCHED_COUNT };

struct ic_sim_lengths {
    enum ic_sim_dist dist;
    double mean;   /* tokens */
    double cv;     /* standard deviation over the mean (uniform: its half width / mean) */
};

struct ic_sim_cfg {
    struct ic_decode_cfg dec;   /* chips, types, estimate, comm (batch and context unused) */
    double rate;                /* requests/s, Poisson; 0 = every request at t = 0 */
    uint64_t requests;          /* requests in all, the warm-up included */
    uint64_t warmup;            /* the first to arrive, left out of the statistics */
    struct ic_sim_lengths prompt, output;
    uint64_t max_seqs;          /* sequences running at once (vLLM max_num_seqs: 256) */
    uint64_t max_tokens;        /* new tokens per step (max_num_batched_tokens: 8192) */
    uint64_t block;             /* KV block, tokens (16) */
    double mem_util;            /* share of HBM the server may use (0.9) */
    enum ic_sim_sched sched;
    double prefill_mfu;         /* ideal estimate: prefill FLOPs at this share of peak
                                   (0: IC_PREFILL_MFU) */
    uint64_t seed;
    double ttft_slo_s, tpot_slo_s;  /* goodput: requests meeting both (0: no SLO) */
};

struct ic_sim_cfg ic_sim_defaults(void);

enum { IC_SIM_PCT = 3 }; /* P50, P90, P99 */

struct ic_sim_dist_stats {
    double mean;
    double p[IC_SIM_PCT];
};

struct ic_sim_result {
    uint64_t completed;            /* requests that finished, warm-up included */
    uint64_t counted;              /* those in the statistics */
    double duration_s;             /* first arrival to last finish */
    double window_s;               /* the counted requests' first arrival to last finish */
    double requests_per_s, output_tokens_per_s, total_tokens_per_s;  /* counted, over window */
    double output_tokens_per_s_per_chip;
    struct ic_sim_dist_stats ttft, tpot, itl, e2e;
    double goodput_per_s;          /* counted requests meeting both SLOs, per second */
    double slo_share;              /* their share */
    double mean_batch;             /* sequences per step, time-weighted */
    double mean_in_system;         /* requests arrived and not finished, time-weighted */
    double kv_occupancy;           /* blocks held over the pool, time-weighted */
    uint64_t kv_blocks;            /* the pool */
    uint64_t steps, preemptions;
    uint64_t prompt_tokens, output_tokens; /* all requests */
    uint64_t peak_blocks;          /* most blocks held at once */
    uint64_t step_cache_hits, step_cache_misses;
};

/* Runs the simulation. IC_EINVAL for a configuration that cannot run (no
 * room for the KV of one request, lengths beyond the model's reach, a zero
 * field), IC_ENOMEM. Deterministic for a seed. */
int ic_sim_run(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_sim_cfg *c, struct ic_sim_result *out, struct ic_err *err);

/* A mean context as the step table keys it: rounded in steps of 1/32 of the
 * power of two below it (under 32: to a whole token), so within 1.6%. */
double ic_sim_context_key(double x);

/* One step's time, exact (no table): n_dec decodes at mean context ctx_dec
 * (tokens cached before the step) and n_pre prefill chunks of pre_tokens
 * tokens in all at mean cached length ctx_pre. */
int ic_sim_step_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                  const struct ic_sim_cfg *c, uint64_t n_dec, double ctx_dec, uint64_t n_pre,
                  uint64_t pre_tokens, double ctx_pre, double *step_s, struct ic_err *err);

#endif
