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
 * decade from 1 ns to 1e12 s (0.23% relative resolution; a percentile in an
 * end bin is the extreme value itself), so memory is bounded by the
 * requests in flight, not by their number. The first `warmup` requests to
 * arrive are left out of every statistic. The clock's 0 moves to each
 * arrival that finds the system empty (past 2^20 s), so that step times
 * keep their digits at any rate; reported times are absolute.
 * Under prefill-first a prompt over max_tokens (a spread's tail) prefills
 * alone, in pieces (the command line refuses a budget under the prompt).
 *
 * Beyond one server: requests may come from a trace (enum ic_sim_source),
 * read one line ahead; prompts may find their first tokens in a prefix
 * cache (a share of every prompt, or by the trace's prefix ids: entries of
 * whole blocks in the server's pool, shared, evicted least recent first);
 * R replicas run behind a router; a disaggregated layout gives each
 * replica a prefill server (prefill_chips; or prefill_servers of them in
 * all, P:R, behind their own router) whose sequences leave the running
 * batch after their prompt, their KV handed to a decode server over the
 * fabric or the scale-out link (ic_disagg_kv_transfer_s), the first token
 * out when it lands. As in vLLM's and SGLang's P/D, the decode server
 * pulls the KV: the prefill server holds the sequence's blocks until the
 * decode server admits it (its blocks reserved, a slot of max_seqs taken),
 * the transfer starts then, and the prefill server's blocks come free when
 * it lands; so a full decode pool stalls the prefill servers, and TTFT
 * carries the wait. (A one-token output is sent at once: it needs no
 * decode server.) The servers advance by events in time order (an
 * arrival, a hand-off landing, a step's end; ties in that order), each
 * step formed as above when its server is free. */
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

/* Where requests come from: drawn (arrivals Poisson at rate or all at t =
 * 0, lengths from the distributions), a trace replayed (its arrival times
 * and lengths), or a trace's lengths in its order with arrivals drawn from
 * rate. A trace is read as the simulation goes (one line ahead), so memory
 * holds only the requests in flight. */
enum ic_sim_source { IC_SRC_DRAWN, IC_SRC_TRACE, IC_SRC_TRACE_LENGTHS, IC_SRC_COUNT };

/* Arrivals (colocated replicas, prefill servers) and hand-offs (decode
 * servers) go to the next replica in turn, or to the one with the fewest
 * requests routed to it and not yet gone (the lowest index on a tie). */
enum ic_sim_route { IC_ROUTE_ROUND_ROBIN, IC_ROUTE_LEAST_LOADED, IC_ROUTE_COUNT };
const char *ic_sim_route_name(enum ic_sim_route r);

/* What a preempted sequence loses: recompute frees its blocks and prefills
 * prompt and output again on readmission; swap copies its KV to host memory
 * over the host link (ic_hw host_B_s, one way, every chip its shard in
 * parallel) and back on readmission, the copies taking their time on the
 * server beside its steps' time. */
enum ic_sim_preempt { IC_PREEMPT_RECOMPUTE, IC_PREEMPT_SWAP, IC_PREEMPT_COUNT };

/* A trace line: "arrival_s,prompt,output[,prefix_id[,prefix_tokens]]";
 * a first line beginning with a letter is a header; blank lines and lines
 * beginning with '#' are skipped. Lines longer than this are an error. */
#define IC_SIM_TRACE_LINE_MAX 1024
#define IC_SIM_MAX_LENGTH UINT64_C(10000000) /* prompt or output tokens of one request */
#define IC_SIM_MAX_REPLICAS 4096           /* replicas behind the router */
#define IC_SIM_NO_REPLICA UINT64_MAX       /* ic_sim_request.replica: no decode server */

/* One finished request, for a per-request record. */
struct ic_sim_request {
    uint64_t index;              /* arrival order, from 0 */
    uint64_t replica;            /* the replica that served it (its decode server);
                                    IC_SIM_NO_REPLICA for a one-token output of a
                                    disaggregated run, which its prefill server finishes */
    double arrival_s, first_token_s, finish_s; /* absolute, from the run's 0 */
    double ttft_s, tpot_s, e2e_s;  /* to full precision (from the clock's own 0, which
                                      moves: the absolute times hold a double's digits) */
    uint64_t prompt, output;     /* tokens */
    uint64_t cached;             /* prompt tokens found in the prefix cache, first admission */
    uint64_t preemptions;        /* times it was preempted */
    bool counted;                /* past the warm-up */
};

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
    double mem_util;            /* share of memory the server may use (0.9) */
    enum ic_sim_sched sched;
    double prefill_mfu;         /* ideal estimate: prefill FLOPs at this share of peak
                                   (0: IC_PREFILL_MFU) */
    uint64_t seed;
    double ttft_slo_s, tpot_slo_s;  /* goodput: requests meeting both (0: no SLO) */
    /* ---- added later; zero keeps the behaviour above ---- */
    enum ic_sim_source source;  /* where requests come from (IC_SRC_DRAWN) */
    const char *trace;          /* IC_SRC_TRACE*: the CSV's path (a file, a pipe) */
    double prefix_hit;          /* share of a prompt found cached when it has no prefix id,
                                   [0, 1) (the last prompt token is always computed) */
    uint64_t prefix_tokens;     /* a trace's prefix id without a length column: its tokens */
    uint64_t replicas;          /* R replicas behind a router (0 or 1: one) */
    enum ic_sim_route route;    /* how arrivals (and hand-offs) pick a replica */
    uint64_t prefill_chips;     /* > 0: disaggregated: each replica is a prefill server of
                                   this many chips and a decode server of dec.chips */
    uint64_t prefill_servers;   /* disaggregated: the prefill servers in all, behind their
                                   own router (0: one per replica, as above) */
    enum ic_sim_preempt preempt;/* recompute (default) or swap over the host link */
    /* called once per finished request in finishing order (may be NULL); a
     * non-zero return stops the run with that code (err untouched: the
     * callback fills it through ctx if it wants) */
    int (*on_request)(void *ctx, const struct ic_sim_request *r);
    void *on_request_ctx;
};

struct ic_sim_cfg ic_sim_defaults(void);

enum { IC_SIM_PCT = 3 }; /* P50, P90, P99 */

struct ic_sim_dist_stats {
    uint64_t n;    /* values (0: none, e.g. TPOT when every output is 1 token) */
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
    double mean_batch;             /* sequences per step, weighted by the steps' time; over
                                      the colocated servers, or the decode servers alone */
    double mean_in_system;         /* requests arrived and not finished, time-weighted */
    double kv_occupancy;           /* blocks held over the pool, weighted by the steps'
                                      time; the servers of mean_batch */
    uint64_t kv_blocks;            /* the pool */
    uint64_t steps, preemptions;
    uint64_t prompt_tokens, output_tokens; /* all requests */
    uint64_t peak_blocks;          /* most blocks held at once (a decode server's where
                                      disaggregated) */
    uint64_t step_cache_hits, step_cache_misses;
    /* ---- added later ---- */
    uint64_t prefill_tokens;       /* tokens run through prefill (chunks and recompute) */
    uint64_t prefix_hit_tokens;    /* prompt tokens found cached at admission */
    uint64_t prefix_query_tokens;  /* prompt tokens looked up: every admission with nothing
                                      computed, readmissions after recompute included */
    uint64_t replicas, chips;      /* replicas; chips in all (prefill servers included) */
    uint64_t prefill_servers;      /* disaggregated: prefill servers (0 colocated) */
    uint64_t prefill_kv_blocks;    /* disaggregated: a prefill server's pool */
    uint64_t prefill_peak_blocks;  /* most blocks a prefill server held at once */
    uint64_t handoffs;             /* disaggregated: KV hand-offs */
    double kv_transfer_mean_s;     /* their mean time */
    uint64_t swaps;                /* preemptions by swap (each out and back) */
    double swap_s;                 /* time spent copying KV to and from the host */
    uint64_t block;                /* the pool's block, tokens: the config's, or the larger
                                      one a linear-attention hybrid's state aligns it to */
    uint64_t longest;              /* the longest request that arrived, prompt + output */
    uint64_t counted_prompt_tokens, counted_output_tokens; /* the counted requests' */
    double prefill_mean_batch;     /* disaggregated: mean_batch of the prefill servers (0
                                      colocated) */
    double prefill_kv_occupancy;   /* and their kv_occupancy, the KV they hold for the
                                      decode servers to pull included */
};

/* Runs the simulation. IC_EINVAL for a configuration that cannot run (no
 * room for the KV of one request, lengths beyond the model's reach, a zero
 * field) or a trace line in error (err names the file, line and column,
 * with a hint), IC_ENOENT / IC_EIO for a trace that cannot be opened or
 * read, IC_ENOMEM. With a trace, requests 0 means every line (else at most
 * that many). Deterministic for a seed (and a trace). */
int ic_sim_run(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_sim_cfg *c, struct ic_sim_result *out, struct ic_err *err);

/* Whether a run meets c's SLOs: P99 TTFT <= c->ttft_slo_s and P99 TPOT <=
 * c->tpot_slo_s, an SLO of 0 not asked. */
bool ic_sim_meets_slos(const struct ic_sim_cfg *c, const struct ic_sim_result *r);
/* Whether c sets a P99 SLO (TTFT or TPOT): without one nothing is met or
 * missed, and there is no goodput. */
bool ic_sim_has_slos(const struct ic_sim_cfg *c);

/* The capacity under c's SLOs between two rates, by bisection: lo is known
 * to meet them and hi (> lo) not to; where hi is over 4 lo (> 0), runs at the
 * geometric midpoint until it is within 4 lo; then `iters` runs at the midpoint (c's seed, requests and
 * warm-up; its rate set here), move lo up or hi down. *cap gets
 * the last rate found to meet them (lo when none of the runs did); *at (may
 * be NULL) that run's result, left as it was when none did; *runs (may be
 * NULL) is increased by the runs made. Errors are ic_sim_run's. The one
 * capacity search: simulate refines its rate sweep with it, optimize its
 * ranking (ic_opt_capacity). */
int ic_sim_capacity_bisect(const struct ic_model_stats *m, const struct ic_hw *hw,
                           const struct ic_sim_cfg *c, double lo, double hi, int iters,
                           double *cap, struct ic_sim_result *at, unsigned *runs,
                           struct ic_err *err);

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
