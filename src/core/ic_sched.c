/* ic_sched: batching and KV-memory arithmetic (see the header for the model). */
#include "ic_sched.h"

#include <gsl/gsl_cdf.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* ---- output-length distribution ---- */

/* Whether x lies left of the root of P(x) = target (upper false) or
 * Q(x) = target (upper true) for Gamma(k, theta). */
static bool left_of(double x, double k, double theta, double target, bool upper)
{
    return upper ? gsl_cdf_gamma_Q(x, k, theta) > target : gsl_cdf_gamma_P(x, k, theta) < target;
}

/* x with P(x) = target (upper false) or Q(x) = target (upper true) for
 * Gamma(k, theta), by bisection in ln x to a relative 1e-13. Bisection on
 * the CDF, not gsl_cdf_gamma_Pinv: the latter fails to converge for small
 * shapes and small probabilities (and GSL's default handler aborts). Targets
 * in (0, 1); returns about DBL_MIN when the root underflows. */
static double gamma_invert(double k, double theta, double target, bool upper)
{
    double lo = k * theta, hi = k * theta; /* the mean, then widened */
    while (left_of(hi, k, theta, target, upper) && hi < DBL_MAX / 4)
        hi *= 2;
    while (!left_of(lo, k, theta, target, upper) && lo > DBL_MIN * 4)
        lo /= 2;
    if (!left_of(lo, k, theta, target, upper))
        return lo; /* the root is below the smallest normal double */
    for (int i = 0; i < 200 && hi / lo - 1 > 1e-13; i++) {
        double mid = sqrt(lo * hi);
        if (left_of(mid, k, theta, target, upper))
            lo = mid;
        else
            hi = mid;
    }
    return sqrt(lo * hi);
}

double ic_sched_quantile(const struct ic_lengths *l, double q)
{
    if (isnan(q))
        return q;
    if (l->shape == 0)
        return l->mean;
    if (q <= 0)
        return 0;
    if (q >= 1)
        return INFINITY;
    const double k = l->shape, theta = l->mean / l->shape;
    /* the lower tail through P, the upper through Q: each accurate there */
    return q <= 0.5 ? gamma_invert(k, theta, q, false) : gamma_invert(k, theta, 1 - q, true);
}

/* 1 - F(x)^n = -expm1(n ln F(x)), with ln F = log1p(-Q) where Q is small
 * (the tail, where 1 - Q would round away the answer) and ln P elsewhere. */
static double one_minus_cdf_pow(double x, double k, double theta, double n)
{
    double Q = gsl_cdf_gamma_Q(x, k, theta);
    double lnF = Q < 0.5 ? log1p(-Q) : log(gsl_cdf_gamma_P(x, k, theta));
    return -expm1(n * lnF); /* lnF = -inf (P = 0): 1 */
}

/* 8-point Gauss-Legendre on [-1, 1]: nodes +-x_i, weights w_i. */
static const double gl_x[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                               0.9602898564975363};
static const double gl_w[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                               0.1012285362903763};
enum { GL_PANELS = 256 };

double ic_sched_expected_max(const struct ic_lengths *l, uint64_t n)
{
    return ic_sched_expected_max_cut(l, n, INFINITY);
}

double ic_sched_expected_max_cut(const struct ic_lengths *l, uint64_t n, double cut)
{
    if (isnan(cut))
        return cut;
    if (n == 0 || cut <= 0)
        return 0;
    if (l->shape == 0)
        return fmin(l->mean, cut);
    const double k = l->shape, theta = l->mean / l->shape, N = (double)n;
    const double eps = 1e-17, ln_eps = log(eps);
    /* x_hi: n * Q(x_hi) = eps; past it 1 - F^n <= n * Q, whose integral is
     * about eps * theta (the tail of a gamma decays at least like e^(-x/theta)) */
    double x_hi = gamma_invert(k, theta, eps / N, true);
    /* x_lo: F(x_lo)^n = eps, i.e. F = eps^(1/n); below it the integrand is 1
     * within eps. Clamped to 1e-15 * x_hi: the integrand is at most 1, so
     * taking it as 1 below the clamp errs by at most 1e-15 * x_hi. */
    double f_lo = exp(ln_eps / N);
    double x_lo = f_lo <= 0.5 ? gamma_invert(k, theta, f_lo, false)
                              : gamma_invert(k, theta, -expm1(ln_eps / N), true);
    x_lo = fmax(x_lo, 1e-15 * x_hi);
    /* the cut: the integrand is 1 up to x_lo, and nothing counts past cut */
    if (cut <= x_lo)
        return cut;
    const double top = fmin(x_hi, cut);
    if (!(top > x_lo))
        return x_lo;
    /* integral of g(x) dx = integral of g(e^u) e^u du over [ln x_lo, ln top] */
    const double u0 = log(x_lo), h = (log(top) - u0) / GL_PANELS;
    double sum = 0;
    for (int p = 0; p < GL_PANELS; p++) {
        double c = u0 + (p + 0.5) * h, panel = 0;
        for (int i = 0; i < 4; i++)
            for (int s = -1; s <= 1; s += 2) {
                double x = exp(c + s * gl_x[i] * h / 2);
                panel += gl_w[i] * one_minus_cdf_pow(x, k, theta, N) * x;
            }
        sum += panel * h / 2;
    }
    return x_lo + sum;
}

/* E[min(L, cut)] (the header): the first moment in_flight uses below. */
double ic_sched_mean_cut(const struct ic_lengths *l, double cut)
{
    if (isnan(cut))
        return cut;
    if (cut <= 0)
        return 0;
    if (l->shape == 0)
        return fmin(l->mean, cut);
    if (isinf(cut))
        return l->mean;
    const double k = l->shape, th = l->mean / k;
    return k * th * gsl_cdf_gamma_P(cut, k + 1, th) + cut * gsl_cdf_gamma_Q(cut, k, th);
}

/* The output tokens a sequence in flight has cached, on average, under
 * continuous batching: a slot holds a sequence for as many steps as its
 * output is long, so the sequences in flight are drawn by length (a
 * length-L one is there L / E[L] times as often), each at a uniform point
 * of its output: E[L^2] / (2 E[L]). Outputs stop at R tokens (what the
 * reservation leaves after the prompt, the model's context by default), so
 * L is min(L, R): for Gamma(k, theta), E[min(L, R)] = k theta P_{k+1}(R) +
 * R Q_k(R) and E[min(L, R)^2] = k (k + 1) theta^2 P_{k+2}(R) + R^2 Q_k(R).
 * Uncut, mean (1 + 1/k) / 2: an exponential's is the mean itself; every
 * output the mean (shape 0): mean / 2. */
static double in_flight(const struct ic_lengths *l, double R)
{
    if (l->shape == 0)
        return fmin(l->mean, R) / 2;
    const double k = l->shape, th = l->mean / k, Q = gsl_cdf_gamma_Q(R, k, th);
    const double m1 = ic_sched_mean_cut(l, R);
    const double m2 = k * (k + 1) * th * th * gsl_cdf_gamma_P(R, k + 2, th) + R * R * Q;
    return m1 > 0 ? m2 / (2 * m1) : 0;
}

/* ---- KV memory ---- */

/* KV bytes one sequence holds with `global` tokens in each global layer
 * and `local` tokens in each window layer (real numbers: averages), bkv
 * bytes a value, and its linear-attention state (held whole whatever the
 * layout: neither contiguous reservation nor paging wastes any of it). */
static double kv_held(const struct ic_model_stats *m, double global, double local, double bkv)
{
    return ((double)m->n_global_layers * global + (double)m->n_window_layers * local) *
               ic_model_kv_layer_token_bytes(m, bkv) +
           ic_model_state_bytes(m);
}

/* The window a window layer keeps (a chunked layer's chunk fills to it),
 * or the context when there is none. */
static double windowed(const struct ic_model_stats *m, double tokens)
{
    return m->n_window_layers ? fmin(tokens, (double)m->window) : tokens;
}

/* Largest batch (ic_step_max_batch's: at most IC_DECODE_MAX_BATCH) whose
 * memory fits every chip when each sequence holds seq_B bytes of KV over
 * the whole model: the
 * weights and workspace as ic_decode holds them, the cache split as ic_step
 * splits it (ic_step_mem). */
static uint64_t held_max_batch(const struct ic_model_stats *m, const struct ic_point *p,
                               double seq_B, double capacity)
{
    const struct ic_mem k = ic_step_mem(m, p->cfg.chips, p->cfg.kv_copy, p->mem_weights_B, seq_B);
    return ic_step_max_batch(&k, capacity);
}

/* ---- validation ---- */

static int check_lengths(const struct ic_lengths *l, struct ic_err *err)
{
    if (!(isfinite(l->mean) && l->mean > 0 && l->mean <= (double)IC_MODEL_MAX_CONTEXT))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "mean output length is %g; expected a finite number of tokens "
                          "above 0 and at most 2^26", l->mean);
    if (!(l->shape == 0 || (l->shape >= IC_SCHED_MIN_SHAPE && l->shape <= IC_SCHED_MAX_SHAPE))) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "output length shape is %g; expected 0 (every request the "
                                  "mean length) or a gamma shape from %g to %g",
                                  l->shape, IC_SCHED_MIN_SHAPE, IC_SCHED_MAX_SHAPE);
        ic_err_hint(err, "--shape 0 for fixed lengths, 1 for exponential ones, larger for "
                         "lengths closer to the mean");
        return rc;
    }
    return IC_OK;
}

/* The contiguous reservation: the caller's, the model's max context, or
 * prompt + the 0.999 quantile of the output rounded up. */
static int pick_reserve(const struct ic_model_stats *m, const struct ic_batching_cfg *c,
                        uint64_t *out, struct ic_err *err)
{
    double r = (double)c->reserve;
    const char *what = "reserve";
    if (!c->reserve && m->max_context) {
        r = (double)m->max_context;
        what = "the model's max_position_embeddings (the default reservation)";
    } else if (!c->reserve) {
        r = (double)c->prompt + ceil(ic_sched_quantile(&c->out, 0.999));
        what = "prompt + the 0.999 output quantile (the default reservation)";
    }
    const double need = (double)c->prompt + ceil(c->out.mean);
    if (r < need) {
        int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "%s is %.0f tokens; a contiguous reservation must hold at least "
                            "prompt + the mean output (%.0f tokens), or most requests would "
                            "not fit", what, r, need);
        /* a reservation past the model's context is past what it was
         * trained for: shorten the request instead */
        if (m->max_context && need > (double)m->max_context)
            ic_err_hint(err, "shorten --prompt or --output: prompt + the mean output must fit "
                             "the model's max_position_embeddings (%llu tokens)",
                        (unsigned long long)m->max_context);
        else
            ic_err_hint(err, "raise --reserve to %.0f tokens or more, or shorten --prompt or "
                             "--output", need);
        return rc;
    }
    if (r > (double)IC_MODEL_MAX_CONTEXT) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "%s is %.0f tokens; expected at most 2^26", what, r);
        ic_err_hint(err, "give --reserve: the tokens a request's contiguous slot holds, from "
                         "%.0f to %llu", need, (unsigned long long)IC_MODEL_MAX_CONTEXT);
        return rc;
    }
    *out = (uint64_t)r;
    return IC_OK;
}

int ic_batching(const struct ic_model_stats *m, const struct ic_hw *hw,
                const struct ic_batching_cfg *cfg, struct ic_batching *out, struct ic_err *err)
{
    int rc;
    if ((rc = check_lengths(&cfg->out, err)))
        return rc;
    if (!cfg->block || !cfg->prompt || !cfg->dec.batch)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "%s must be at least 1",
                          !cfg->block ? "block (tokens per KV block)"
                          : !cfg->prompt ? "prompt (tokens per request)" : "batch");
    if (cfg->prompt > IC_MODEL_MAX_CONTEXT || cfg->block > IC_MODEL_MAX_CONTEXT)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "%s is too large (at most 2^26 tokens)",
                          cfg->prompt > IC_MODEL_MAX_CONTEXT ? "prompt" : "block");
    struct ic_batching r;
    memset(&r, 0, sizeof r);
    if ((rc = pick_reserve(m, cfg, &r.reserve, err)))
        return rc;

    const double B = (double)cfg->dec.batch;
    const double bkv = ic_dtype_traits(cfg->dec.kv)->bits / 8.0; /* bytes per KV value */
    /* outputs stop at the R tokens the reservation leaves after the prompt */
    const double R = (double)(r.reserve - cfg->prompt);
    /* a sequence caches prompt + t tokens after t of its outputs; the
     * sequences in flight hold prompt + in_flight() on average */
    r.mean_context = (double)cfg->prompt + in_flight(&cfg->out, R);
    r.context = (uint64_t)llround(r.mean_context);
    struct ic_decode_cfg dc = cfg->dec;
    dc.context = r.context;
    struct ic_point p;
    if ((rc = ic_decode(m, hw, &dc, &p, err)))
        return rc;

    /* static vs continuous: a static batch of B takes E[max] steps for
     * B * E[L'] tokens, L' = min(L, R) as above; a continuous one keeps all
     * B slots busy */
    r.step_s = p.step_s;
    r.mean_output = ic_sched_mean_cut(&cfg->out, R);
    r.expected_max = ic_sched_expected_max_cut(&cfg->out, cfg->dec.batch, R);
    r.static_tok_s = B * r.mean_output / (r.expected_max * p.step_s);
    r.continuous_tok_s = B / p.step_s;
    r.continuous_gain = r.expected_max / r.mean_output;

    /* KV held per sequence, bytes, whole model */
    /* a hybrid's block aligned to its state, as vLLM's */
    r.block = ic_step_paged_block(m, cfg->dec.kv, cfg->block, cfg->dec.chips, cfg->dec.kv_copy);
    const double half = (double)r.block / 2, res = (double)r.reserve;
    r.used_B = kv_held(m, r.mean_context, windowed(m, r.mean_context), bkv);
    r.contiguous_B = kv_held(m, res, windowed(m, res), bkv);
    r.paged_B = kv_held(m, r.mean_context + half, windowed(m, r.mean_context) + half, bkv);
    /* a model that caches nothing wastes nothing */
    r.contiguous_waste = r.contiguous_B > 0 ? 1 - r.used_B / r.contiguous_B : 0;
    r.paged_waste = r.paged_B > 0 ? 1 - r.used_B / r.paged_B : 0;

    /* the batch each layout fits, with ic_step's split of the cache */
    r.contiguous_max_batch = held_max_batch(m, &p, r.contiguous_B, hw->hbm_capacity_B);
    r.paged_max_batch = held_max_batch(m, &p, r.paged_B, hw->hbm_capacity_B);
    const uint64_t mb[2] = {r.contiguous_max_batch, r.paged_max_batch};
    double tok[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        if (!mb[i])
            continue;
        dc.batch = mb[i];
        if ((rc = ic_decode(m, hw, &dc, &p, err)))
            return rc;
        tok[i] = p.tokens_s;
    }
    r.contiguous_tok_s = tok[0];
    r.paged_tok_s = tok[1];
    r.paged_gain = tok[0] > 0 ? tok[1] / tok[0] : 0;

    const double check[] = {r.mean_output, r.expected_max, r.static_tok_s, r.continuous_gain,
                            r.used_B, r.contiguous_B, r.paged_B, r.contiguous_waste,
                            r.paged_waste, r.paged_gain};
    for (size_t i = 0; i < sizeof check / sizeof check[0]; i++)
        if (!isfinite(check[i]))
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "the batching figures are not finite for these inputs "
                              "(absurd model or hardware figures?)");
    *out = r;
    return IC_OK;
}
