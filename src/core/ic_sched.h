/* ic_sched: batching policy and KV-cache memory layout in serving.
 *
 * Two questions a serving stack answers before any kernel runs:
 *   1. Static or continuous batching? Output lengths vary; a static batch
 *      runs until its longest member ends, so its slots idle for
 *      E[max of B lengths] - length steps each. Continuous batching refills a
 *      finished slot at once. Throughput ratio: E[max of B] / mean, every
 *      length cut where its reservation ends.
 *   2. Contiguous or paged KV? A contiguous cache reserves the longest
 *      sequence it may hold for every request; a paged cache (blocks of b
 *      tokens) holds what is used plus half a block on average. Less held
 *      per sequence is a larger batch that fits, hence more tokens/s.
 *
 * Output lengths are Gamma(shape k, scale mean/k) tokens: shape 1 is the
 * exponential, large shapes concentrate around the mean, shape 0 stands for
 * the k -> infinity limit (every request exactly `mean` tokens). GSL's
 * incomplete gamma functions are accurate for shapes 1e-3 .. 1e5 (probed over
 * the whole range of x); its inverses are not (they fail to converge for
 * small shapes and tail probabilities), so quantiles here are bisections on
 * the CDF. The expected maximum is a fixed quadrature whose cost does not
 * grow with n: B up to 2^24 costs the same as B = 1. */
#ifndef IC_SCHED_H
#define IC_SCHED_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <stdint.h>

/* Shapes ic_batching accepts besides 0 (see above). */
#define IC_SCHED_MIN_SHAPE 1e-3
#define IC_SCHED_MAX_SHAPE 1e5
#define IC_SCHED_MAX_BLOCK (1u << 20) /* paged KV block, tokens */

/* Output lengths, tokens: Gamma(shape k, scale mean/k); shape 0 means every
 * request has exactly `mean` tokens (the k -> infinity limit). */
struct ic_lengths {
    double mean;  /* tokens, > 0 */
    double shape; /* 0, or IC_SCHED_MIN_SHAPE .. IC_SCHED_MAX_SHAPE */
};

/* E[max of n independent lengths], tokens:
 *   E[max] = integral over x >= 0 of 1 - F(x)^n dx
 * with F the gamma CDF. Below x_lo (where F^n < 1e-17) the integrand is 1;
 * above x_hi (where n * Q < 1e-17, Q = 1 - F) it is below n * Q and its
 * integral below 1e-17 * scale; between them 8-point Gauss-Legendre on 256
 * panels in u = ln x (smooth for every shape), with 1 - F^n evaluated as
 * -expm1(n * log F) and log F from Q in the upper tail (no cancellation).
 * Relative error below 1e-9 over shapes 1e-3 .. 1e5 and n up to 2^24 (checked
 * against mean * H_n for the exponential). Exactly `mean` when shape is 0 or
 * n is 1; 0 when n is 0. Lengths are assumed valid (see ic_batching). */
double ic_sched_expected_max(const struct ic_lengths *l, uint64_t n);

/* E[max of n independent lengths each cut at `cut` tokens], tokens: each
 * length min(L, cut), as a request's output stops where its reservation
 * (or the model's context) ends:
 *   E[max min(L, cut)] = integral over 0 <= x < cut of 1 - F(x)^n dx,
 * the quadrature of ic_sched_expected_max over [x_lo, min(x_hi, cut)]
 * (ic_sched_expected_max is this with cut = +infinity). min(mean, cut)
 * when shape is 0; 0 when n is 0 or cut <= 0; NaN for a NaN cut. */
double ic_sched_expected_max_cut(const struct ic_lengths *l, uint64_t n, double cut);

/* E[min(L, cut)], tokens: for Gamma(k, theta), k theta P_{k+1}(cut) +
 * cut Q_k(cut); min(mean, cut) when shape is 0; the mean for cut = +infinity;
 * 0 for cut <= 0; NaN for a NaN cut. */
double ic_sched_mean_cut(const struct ic_lengths *l, double cut);

/* The length q-quantile, tokens (bisection on the gamma CDF to a relative
 * 1e-13): `mean` when shape is 0; 0 for q <= 0, +infinity for q >= 1 (shape
 * > 0), NaN for NaN q. */
double ic_sched_quantile(const struct ic_lengths *l, double q);

struct ic_batching_cfg {
    struct ic_decode_cfg dec;  /* chips, batch B, weights/kv/compute; its context is ignored */
    uint64_t prompt;           /* prompt tokens per request, >= 1 */
    struct ic_lengths out;     /* output lengths */
    uint64_t reserve;          /* contiguous: tokens reserved per sequence; 0 = the model's
                                  max_context (max_position_embeddings), or when the model
                                  states none, prompt + the 0.999 quantile of the output
                                  rounded up */
    uint64_t block;            /* paged: tokens per KV block (e.g. 16), >= 1 */
};

struct ic_batching {
    uint64_t block;            /* the paged block used, tokens: cfg's, or the larger one a
                                  linear-attention hybrid's state aligns it to
                                  (ic_step_paged_block) */
    double mean_context;       /* prompt + E[L'^2] / (2 E[L']), L' the output cut at the
                                  reservation (reserve - prompt): the average cached
                                  tokens of the sequences in flight under continuous
                                  batching (length-biased: long outputs stay); uncut,
                                  mean (1 + 1/k) / 2, and mean/2 at shape 0 */
    uint64_t context;          /* mean_context rounded to the nearest token (>= 1): the
                                  context every ic_decode call below uses */
    double step_s;             /* decode step at batch B and `context` (ic_decode) */
    /* both policies' outputs are cut at the reservation, R = reserve -
     * prompt tokens (a request stops where its slot ends), as mean_context's */
    double mean_output;        /* E[min(L, R)], tokens (ic_sched_mean_cut): the useful
                                  tokens a slot gives a static batch */
    double expected_max;       /* E[longest of B outputs, each min(L, R)], tokens
                                  (ic_sched_expected_max_cut) */
    double static_tok_s;       /* B * mean_output / (expected_max * step_s): a static batch
                                  runs until its longest member ends, finished slots idle */
    double continuous_tok_s;   /* B / step_s: a finished slot is refilled at once */
    double continuous_gain;    /* continuous / static = expected_max / mean_output */
    /* KV memory per sequence (bytes, whole model, all chips), at the KV dtype */
    double used_B;             /* KV of mean_context tokens (window layers hold
                                  min(tokens, window)) */
    double contiguous_B;       /* KV of `reserve` tokens (windows respected) */
    double paged_B;            /* used + half a block on average (internal fragmentation):
                                  KV of mean_context + block/2 tokens, and of
                                  min(mean_context, window) + block/2 in window layers */
    double contiguous_waste, paged_waste;  /* 1 - used / held */
    uint64_t contiguous_max_batch, paged_max_batch; /* largest batch (at most 2^24) whose
                                  weights + held KV + workspace fit every chip, with
                                  ic_step's split rules (ic_step_mem with the
                                  held bytes in place of a context's); 0 = nothing fits */
    double contiguous_tok_s, paged_tok_s;  /* continuous-batching throughput at each max
                                  batch (ic_decode at that batch and `context`); 0 when the
                                  max batch is 0 */
    double paged_gain;         /* paged_tok_s / contiguous_tok_s; 0 when nothing fits
                                  contiguously (the ratio is undefined) */
    uint64_t reserve;          /* the reservation actually used, tokens */
};

/* Static vs continuous batching at cfg->dec.batch, and contiguous vs paged
 * KV: the memory each holds per sequence, the largest batch that fits and
 * its throughput (ideal or expected time, as cfg->dec.estimate says). Pure;
 * *out is written only on success. Fails with IC_EINVAL, naming the input,
 * when mean is not finite and > 0 (or above 2^26), shape is not 0 or within
 * IC_SCHED_MIN_SHAPE .. IC_SCHED_MAX_SHAPE, block, prompt or batch is 0,
 * the reservation is shorter than prompt + ceil(mean) (most requests would
 * not fit; this also covers the rule reserve >= prompt + 1) or longer than
 * 2^26 tokens, or when ic_decode fails (its message). */
int ic_batching(const struct ic_model_stats *m, const struct ic_hw *hw,
                const struct ic_batching_cfg *cfg, struct ic_batching *out, struct ic_err *err);

#endif
