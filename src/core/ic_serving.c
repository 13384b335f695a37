/* ic_serving: prefill, chunked prefill, speculative decoding, prefix
 * caching, disaggregation, best-of-N and the SLO search. */
#include "ic_serving.h"

#include "ic_comm.h"
#include "ic_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const pf_bound_names[IC_PF_COUNT] = {
    [IC_PF_COMPUTE] = "compute", [IC_PF_MEMORY] = "memory", [IC_PF_COMM] = "comm",
    [IC_PF_FIXED] = "fixed"};
const char *ic_prefill_bound_name(enum ic_prefill_bound b) { return pf_bound_names[b]; }

struct ic_prefill_cfg ic_prefill_defaults(void)
{
    struct ic_prefill_cfg c = {
        .chips = 1, .prompt = 2048, .prompts = 1, .prefix = 0,
        .weights = IC_DT_BF16, .kv = IC_DT_BF16, .compute = IC_DT_BF16,
        .mfu = 0, .queue_s = 0, .attn = IC_ATTN_FLASH, .comm = IC_COMM_OVERLAP,
    };
    return c;
}

static bool all_finite_nonneg(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return false;
    return true;
}

static int not_finite(struct ic_err *err)
{
    return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                      "the result is not a finite number for these inputs (absurd hardware or "
                      "model figures?)");
}

/* The MFU a prefill uses: the given one, else the measured matmul rate of
 * the compute type (or of the weight type, as the CPU bench names its
 * rates) over the chip's peak, else IC_PREFILL_MFU. */
static double pick_mfu(const struct ic_hw *hw, const struct ic_prefill_cfg *c, bool *measured)
{
    *measured = false;
    if (c->mfu > 0)
        return c->mfu;
    const struct ic_hw_measured *ms = &hw->measured;
    double peak = ic_hw_peak(hw, c->compute);
    if (ms->present && peak > 0) {
        double rate = ms->gemm_flop_s[c->compute] > 0 ? ms->gemm_flop_s[c->compute]
                                                      : ms->gemm_flop_s[c->weights];
        if (rate > 0) {
            *measured = true;
            return fmin(1.0, rate / peak);
        }
    }
    return IC_PREFILL_MFU;
}

int ic_prefill(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_prefill_cfg *cfg, struct ic_prefill *out, struct ic_err *err)
{
    const uint64_t N = cfg->chips, T = cfg->prompt, R = cfg->prompts, P = cfg->prefix;
    if (!N || !T || !R)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "%s must be at least 1",
                          !N ? "chips" : !T ? "the prompt" : "prompts");
    if (T > IC_PREFILL_MAX_TOKENS || R > IC_PREFILL_MAX_TOKENS / T) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "%llu prompts of %llu tokens are more than 2^24 tokens in "
                                  "one prefill",
                                  (unsigned long long)R, (unsigned long long)T);
        ic_err_hint(err, "fewer prompts (--prompts) or shorter ones (--prompt): prompts x "
                         "prompt at most %llu", (unsigned long long)IC_PREFILL_MAX_TOKENS);
        return rc;
    }
    if (P > IC_MODEL_MAX_CONTEXT - T) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "prefix + prompt is %llu tokens; expected at most 2^26",
                                  (unsigned long long)(P + T));
        ic_err_hint(err, "keep --prefix + --prompt at most %llu tokens", (unsigned long long)IC_MODEL_MAX_CONTEXT);
        return rc;
    }
    if (!(cfg->mfu >= 0 && cfg->mfu <= 1))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "MFU %g is outside 0 to 1", cfg->mfu);
    if (!(cfg->queue_s >= 0) || !isfinite(cfg->queue_s))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the queueing time must be a finite time >= 0");

    /* One step: R prompts of T new tokens after P cached, logits for each
     * prompt's last token, every FLOP at the prefill MFU. */
    struct ic_prefill p;
    memset(&p, 0, sizeof p);
    p.cfg = *cfg;
    p.mfu = pick_mfu(hw, cfg, &p.mfu_measured);
    const struct ic_step step = {
        .layout = {N, 1, 1, 1, cfg->kv_copy},
        .kind = {{R, T, P, 1, IC_PHASE_PREFILL}},
        .n_kinds = 1,
        .weights = cfg->weights,
        .kv = cfg->kv,
        .compute = cfg->compute,
        .attn = cfg->attn,
    };
    struct ic_rates rates = ic_rates_ideal();
    rates.comm = cfg->comm;
    rates.mfu[IC_PHASE_PREFILL] = p.mfu;
    rates.estimate = cfg->estimate;
    rates.engine = cfg->engine;
    if (ic_step_achieved(hw, cfg->estimate) && ic_hw_peak(hw, cfg->compute) > 0) {
        /* what the FLOPs run at: the achieved GEMM rate (0 where the
         * entry has none: ic_step_time refuses it below) */
        p.mfu = ic_step_achieved_gemm(hw, cfg->compute) / ic_hw_peak(hw, cfg->compute);
        p.mfu_measured = false;
    }
    struct ic_load l;
    struct ic_time t;
    int rc;
    if ((rc = ic_step_load(m, &step, &l, err)) || (rc = ic_step_time(&l, hw, &rates, &t, err)))
        return rc;
    p.linear_flops = l.flops_linear;
    p.attn_flops = l.flops_attn;
    p.flops = l.flops;
    p.compute_s = t.compute_s + t.attn_s;
    p.weight_bytes = l.weight_bytes * (double)N;
    p.attn_hbm_bytes = l.kv_read_all_bytes + l.scores_all_bytes;
    p.kv_write_bytes = l.kv_write_all_bytes;
    p.memory_s = t.weights_s + t.kv_s;
    p.comm_s = t.comm_s;
    p.prefill_s = t.step_s;
    /* the largest of the table's compute, memory and collectives terms
     * and the step's fixed time (launches and host time, in the prefill's
     * total): the step's own bound is of its finer terms (collectives of
     * 2.15 s read as the bound beside linear 1.81 s and attention 0.56 s,
     * shown as compute 2.37 s). Overlapped collectives (the ideal bound)
     * are named where they pass both sums, though a step of mixed bounds
     * (linear on one side, the cache on the other) may still hide them */
    const double terms[IC_PF_COUNT] = {[IC_PF_COMPUTE] = p.compute_s,
                                       [IC_PF_MEMORY] = p.memory_s,
                                       [IC_PF_COMM] = p.comm_s,
                                       [IC_PF_FIXED] = t.fixed_s};
    p.bound = IC_PF_COMPUTE;
    for (int b = 0; b < IC_PF_COUNT; b++)
        if (terms[b] > terms[p.bound])
            p.bound = (enum ic_prefill_bound)b;
    p.ttft_s = cfg->queue_s + p.prefill_s;
    p.tokens_s = (double)T * (double)R / p.prefill_s;
    /* no price, no cost (NaN: null in JSON, '-' in a table) */
    p.usd_per_mtok = ic_hw_usd(hw, (double)N / p.tokens_s) * 1e6;
    const double chk[] = {p.flops, p.compute_s, p.memory_s, p.comm_s, p.prefill_s,
                          p.ttft_s, p.tokens_s, ic_hw_has_price(hw) ? p.usd_per_mtok : 0};
    if (!all_finite_nonneg(chk, sizeof chk / sizeof chk[0]) || !(p.prefill_s > 0))
        return not_finite(err);
    *out = p;
    return IC_OK;
}

int ic_chunked(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_decode_cfg *dec, const struct ic_prefill_cfg *pf,
               uint64_t chunk, struct ic_chunked *out, struct ic_err *err)
{
    if (!chunk)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "the chunk must be at least 1 token");
    /* one estimate for the whole analysis: the decode batch's */
    const struct ic_decode_cfg dc = *dec;
    struct ic_prefill_cfg pa = *pf;
    pa.estimate = dc.estimate;
    pa.engine = dc.engine;
    struct ic_point d;
    struct ic_prefill alone;
    int rc;
    if ((dc.batch && (rc = ic_decode(m, hw, &dc, &d, err))) ||
        (rc = ic_prefill(m, hw, &pa, &alone, err)))
        return rc;
    const uint64_t T = pf->prompt;
    struct ic_chunked c;
    memset(&c, 0, sizeof c);
    c.decode_s = dc.batch ? d.step_s : 0;
    c.prefill_alone_s = alone.prefill_s;
    c.mfu = alone.mfu;
    c.steps = (T + chunk - 1) / chunk;
    /* each step: the batch's decode tokens (as ic_decode's step) and one
     * chunk of every prompt, the last chunk with its logits */
    struct ic_step step = {
        .layout = {dc.chips, 1, 1, 1, dc.kv_copy},
        .kind = {{dc.batch, 1, dc.context ? dc.context - 1 : 0, 1, IC_PHASE_DECODE},
                 {pf->prompts, 0, 0, 0, IC_PHASE_PREFILL}},
        .n_kinds = 2,
        .weights = dc.weights,
        .kv = dc.kv,
        .compute = dc.compute,
        .attn = pf->attn,
    };
    const struct ic_rates rates = ic_decode_rates(&dc, c.mfu);
    double sum = 0;
    for (uint64_t i = 0; i < c.steps; i++) {
        const bool last = i + 1 == c.steps;
        step.kind[1].context = pf->prefix + i * chunk;
        step.kind[1].tokens = last ? T - i * chunk : chunk;
        step.kind[1].logits = last ? 1 : 0;
        struct ic_load l;
        struct ic_time t;
        if ((rc = ic_step_load(m, &step, &l, err)) || (rc = ic_step_time(&l, hw, &rates, &t, err)))
            return rc;
        sum += t.step_s;
        if (t.step_s > c.max_step_s)
            c.max_step_s = t.step_s;
    }
    c.chunk_step_s = sum / (double)c.steps;
    c.ttft_s = pf->queue_s + sum;
    c.slowdown = c.decode_s > 0 ? c.chunk_step_s / c.decode_s - 1 : 0;
    const double chk[] = {c.chunk_step_s, c.ttft_s, c.max_step_s, c.slowdown + 1};
    if (!all_finite_nonneg(chk, 4))
        return not_finite(err);
    *out = c;
    return IC_OK;
}

/* ---- speculative decoding ---------------------------------------------- */

double ic_spec_tokens(double a, uint64_t k)
{
    if (a >= 1)
        return (double)k + 1;
    if (a <= 0)
        return 1;
    /* 1 - a^(k+1) over 1 - a; expm1 keeps the numerator exact near a = 1 */
    return -expm1((double)(k + 1) * log(a)) / (1 - a);
}

double ic_spec_speedup(double a, uint64_t k, double c) { return ic_spec_tokens(a, k) / ((double)k * c + 1); }

uint64_t ic_spec_best_k(double a, double c, uint64_t kmax, double *speedup)
{
    uint64_t best = 1;
    double bs = ic_spec_speedup(a, 1, c);
    for (uint64_t k = 2; k <= kmax; k++) {
        double s = ic_spec_speedup(a, k, c);
        if (s > bs * (1 + 1e-12)) {
            bs = s;
            best = k;
        }
    }
    if (speedup)
        *speedup = bs;
    return best;
}

static int check_dist(const double *p, size_t n, const char *which, struct ic_err *err)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(p[i]) || p[i] < 0)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "%s: entry %zu is %g; probabilities are finite and >= 0", which,
                              i + 1, p[i]);
        sum += p[i];
    }
    if (fabs(sum - 1) > 1e-6) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "%s sums to %.9g; a distribution sums to 1", which, sum);
        ic_err_hint(err, "list probabilities adding up to 1, e.g. '--p 0.5,0.3,0.2' (the "
                         "target's) and '--q 0.4,0.4,0.2' (the draft's)");
        return rc;
    }
    return IC_OK;
}

int ic_spec_accept(const double *p, const double *q, size_t n, double *a, struct ic_err *err)
{
    int rc;
    if (!n)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "the distributions are empty");
    if ((rc = check_dist(p, n, "the target distribution", err)) ||
        (rc = check_dist(q, n, "the draft distribution", err)))
        return rc;
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += fmin(p[i], q[i]);
    *a = fmin(1.0, s);
    return IC_OK;
}

/* An index drawn from weights w (sum > 0) by inverse CDF. */
static size_t draw(gsl_rng *r, const double *w, size_t n, double sum)
{
    double u = gsl_rng_uniform(r) * sum, acc = 0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i] <= 0)
            continue;
        last = i;
        acc += w[i];
        if (u < acc)
            return i;
    }
    return last;
}

size_t ic_spec_sample(gsl_rng *r, const double *p, const double *q, size_t n, bool *accepted)
{
    size_t x = draw(r, q, n, 1.0);
    if (gsl_rng_uniform(r) * q[x] < p[x]) { /* u < p/q, without dividing */
        if (accepted)
            *accepted = true;
        return x;
    }
    if (accepted)
        *accepted = false;
    /* the residual max(0, p - q), drawn without allocating */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += fmax(0.0, p[i] - q[i]);
    double u = gsl_rng_uniform(r) * sum, acc = 0;
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        double w = fmax(0.0, p[i] - q[i]);
        if (w <= 0)
            continue;
        last = i;
        acc += w;
        if (u < acc)
            return i;
    }
    return last;
}

int ic_spec_costed(const struct ic_model_stats *target, const struct ic_model_stats *draft,
                   const struct ic_hw *hw, const struct ic_decode_cfg *cfg,
                   enum ic_dtype draft_weights, double a, uint64_t k,
                   struct ic_spec_costed *out, struct ic_err *err)
{
    if (!(a >= 0 && a <= 1))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "acceptance %g is outside 0 to 1", a);
    if (k > 64)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the draft length k is %llu; expected 0 to 64", (unsigned long long)k);
    const struct ic_decode_cfg c = *cfg;
    struct ic_decode_cfg dc = c;
    dc.weights = draft_weights;
    struct ic_point t, d;
    int rc;
    if ((rc = ic_decode(target, hw, &c, &t, err)) || (rc = ic_decode(draft, hw, &dc, &d, err)))
        return rc;
    struct ic_spec_costed s;
    memset(&s, 0, sizeof s);
    s.k = k;
    /* an engine's host time is the round's, once, in the verify step: the
     * scheduler runs once a round, the drafts inside the worker */
    s.draft_s = d.step_s - d.host_s;
    s.target_s = t.step_s;
    /* the verify step: k + 1 decode-phase tokens per sequence after the
     * cache the plain step reads, every one of them with logits */
    const struct ic_step verify = {
        .layout = {c.chips, 1, 1, 1, c.kv_copy},
        .kind = {{c.batch, k + 1, c.context - 1, k + 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = c.weights,
        .kv = c.kv,
        .compute = c.compute,
        .attn = IC_ATTN_FLASH,
    };
    const struct ic_rates rates = ic_decode_rates(&c, 1.0);
    struct ic_load l;
    struct ic_time vt;
    if ((rc = ic_step_load(target, &verify, &l, err)) ||
        (rc = ic_step_time(&l, hw, &rates, &vt, err)))
        return rc;
    s.verify_s = vt.step_s;
    s.cost_ratio = s.draft_s / s.target_s;
    s.tokens = ic_spec_tokens(a, k);
    s.round_s = (double)k * s.draft_s + s.verify_s;
    s.speedup = s.tokens * s.target_s / s.round_s;
    s.tokens_s = (double)c.batch * s.tokens / s.round_s;
    *out = s;
    return IC_OK;
}

/* ---- prefix caching ----------------------------------------------------- */

double ic_kv_host_copy_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                         uint64_t tokens, enum ic_dtype kv, uint64_t chips, bool kv_copy)
{
    /* each chip holding the sequence copies its share in parallel */
    return ic_step_seq_chip_bytes(m, chips, kv_copy, ic_step_kv_seq_bytes(m, tokens, kv)) /
           hw->host_B_s;
}

int ic_prefix(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_prefix_cfg *cfg, struct ic_prefix *out, struct ic_err *err)
{
    const uint64_t T = cfg->pf.prompt, P = cfg->prefix;
    if (!P || P >= T) {
        int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "the prefix is %llu tokens; expected 1 to the prompt minus 1 (%llu)",
                            (unsigned long long)P, (unsigned long long)(T ? T - 1 : 0));
        ic_err_hint(err, "the prompt counts the prefix: e.g. '--prompt 2048 --prefix 1536'");
        return rc;
    }
    if (!(cfg->hit_rate >= 0 && cfg->hit_rate <= 1))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "the hit rate %g is outside 0 to 1",
                          cfg->hit_rate);
    if (!cfg->n_prefixes)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "at least one prefix is cached");
    struct ic_prefill_cfg c = cfg->pf;
    struct ic_prefill full, hit, pre;
    int rc;
    c.prefix = 0;
    if ((rc = ic_prefill(m, hw, &c, &full, err)))
        return rc;
    c.prefix = P;
    c.prompt = T - P;
    if ((rc = ic_prefill(m, hw, &c, &hit, err)))
        return rc;
    c.prefix = 0;
    c.prompt = P;
    c.prompts = 1;
    c.queue_s = 0;
    if ((rc = ic_prefill(m, hw, &c, &pre, err)))
        return rc;
    struct ic_prefix x;
    memset(&x, 0, sizeof x);
    const double h = cfg->hit_rate;
    x.full_flops = full.flops;
    x.hit_flops = hit.flops;
    x.full_s = full.ttft_s;
    x.hit_s = hit.ttft_s;
    x.expected_s = h * hit.ttft_s + (1 - h) * full.ttft_s;
    x.flops_saved = h * (full.flops - hit.flops) / full.flops;
    x.ttft_saved_s = full.ttft_s - x.expected_s;
    const double one = ic_step_kv_seq_bytes(m, P, c.kv);
    x.held_bytes = (double)cfg->n_prefixes * one;
    /* a prefix sits on every chip that may serve the next request: each
     * its share of it, as a sequence's (split: every chip of a head
     * group's batch split holds the group's) */
    x.held_per_chip_bytes =
        (double)cfg->n_prefixes * ic_step_seq_chip_bytes(m, c.chips, c.kv_copy, one);
    /* no host link (kind none): no read-back, the rest stands */
    x.host_read_s =
        hw->host_B_s > 0 ? ic_kv_host_copy_s(m, hw, P, c.kv, c.chips, c.kv_copy) : NAN;
    x.recompute_s = pre.prefill_s;
    *out = x;
    return IC_OK;
}

/* ---- disaggregation ------------------------------------------------------ */

bool ic_request_tokens_ok(uint64_t prompt, uint64_t output)
{
    return prompt <= IC_MODEL_MAX_CONTEXT && output <= IC_MODEL_MAX_CONTEXT - prompt;
}

int ic_request_tokens_check(uint64_t prompt, uint64_t output, struct ic_err *err)
{
    if (ic_request_tokens_ok(prompt, output))
        return IC_OK;
    const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "prompt + output is %llu tokens; expected at most 2^26",
                              (unsigned long long)(prompt + output));
    ic_err_hint(err, "keep --prompt + --output at most %llu tokens",
                (unsigned long long)IC_MODEL_MAX_CONTEXT);
    return rc;
}

double ic_disagg_kv_transfer_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                               uint64_t tokens, enum ic_dtype kv, uint64_t pf_chips,
                               uint64_t dec_chips, uint64_t layout_chips)
{
    const double bytes = ic_step_kv_seq_bytes(m, tokens, kv);
    const double senders = (double)(pf_chips < dec_chips ? pf_chips : dec_chips);
    /* without a scale-out network a layout past the domain still has only
     * the fabric to send over */
    uint64_t span = layout_chips;
    if (span > hw->ici_domain_chips && !(hw->dcn_B_s > 0))
        span = hw->ici_domain_chips;
    return ic_comm_send_s(hw, span, bytes / senders);
}

int ic_disagg_path_check(const struct ic_model_stats *m, const struct ic_hw *hw,
                         enum ic_dtype kv, uint64_t pf_chips, uint64_t dec_chips,
                         uint64_t layout_chips, struct ic_err *err)
{
    const double x = ic_disagg_kv_transfer_s(m, hw, 1, kv, pf_chips, dec_chips, layout_chips);
    if (isfinite(x))
        return IC_OK;
    const int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_ICI].line,
                              hw->locs[IC_HWF_ICI].col,
                              "%s has no link to hand the KV from a prefill server to a decode "
                              "server over: its interconnect %s nothing",
                              hw->name, hw->dcn_B_s > 0 ? "carries" : "and scale-out network carry");
    ic_err_hint(err, "run prefill and decode on the same servers (a colocated replica), or give "
                     "the entry an interconnect with a link bandwidth");
    return rc;
}

int ic_disagg(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_prefill_cfg *pf, const struct ic_decode_cfg *dec, uint64_t output,
              struct ic_disagg *out, struct ic_err *err)
{
    if (!output)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "the output must be at least 1 token");
    int rc = ic_request_tokens_check(pf->prompt, output, err);
    if (rc)
        return rc;
    struct ic_prefill p;
    if ((rc = ic_prefill(m, hw, pf, &p, err)))
        return rc;
    /* the split is not known yet: the widest layout it may take (64 of the
     * rarer kind) needs a path as much as the narrowest */
    if ((rc = ic_disagg_path_check(m, hw, pf->kv, pf->chips, dec->chips,
                                   pf->chips + dec->chips, err)))
        return rc;
    struct ic_decode_cfg dc = *dec;
    dc.context = pf->prompt + output / 2; /* a running sequence's mean context */
    if (!dc.context)
        dc.context = 1;
    struct ic_point d;
    if ((rc = ic_decode(m, hw, &dc, &d, err)))
        return rc;
    struct ic_disagg x;
    memset(&x, 0, sizeof x);
    x.prefill_s = p.prefill_s;
    x.prefill_seq_s = (double)pf->prompts / p.prefill_s;
    x.decode_step_s = d.step_s;
    x.decode_seq_s = (double)dc.batch / ((double)output * d.step_s);
    x.ratio = x.prefill_seq_s / x.decode_seq_s;
    /* the split of the fewest servers of the rarer kind (the other kind's
     * count rounded to the nearest) within 10% of the ratio, else the
     * closest with up to 64 of the rarer kind */
    double best_err = INFINITY;
    for (uint64_t k = 1; k <= 64; k++) {
        uint64_t np, nd;
        if (x.ratio >= 1) {
            np = k;
            nd = (uint64_t)fmax(1, llround((double)k * x.ratio));
        } else {
            nd = k;
            np = (uint64_t)fmax(1, llround((double)k / x.ratio));
        }
        double e = fabs((double)nd / (double)np / x.ratio - 1);
        if (e < best_err - 1e-12) {
            best_err = e;
            x.n_prefill = np;
            x.n_decode = nd;
        }
        if (e <= 0.1)
            break;
    }
    double seq_s = fmin((double)x.n_prefill * x.prefill_seq_s, (double)x.n_decode * x.decode_seq_s);
    x.tokens_s_chip = seq_s * (double)output /
                      ((double)x.n_prefill * (double)pf->chips + (double)x.n_decode * (double)dc.chips);
    x.kv_bytes = ic_step_kv_seq_bytes(m, pf->prompt, pf->kv);
    x.kv_transfer_s = ic_disagg_kv_transfer_s(
        m, hw, pf->prompt, pf->kv, pf->chips, dc.chips,
        x.n_prefill * pf->chips + x.n_decode * dc.chips);
    const double chk[] = {x.ratio, x.tokens_s_chip, x.kv_transfer_s, x.decode_seq_s};
    if (!all_finite_nonneg(chk, 4) || !(x.ratio > 0))
        return not_finite(err);
    *out = x;
    return IC_OK;
}

/* ---- best-of-N ---------------------------------------------------------- */

double ic_bestofn(double p, uint64_t n)
{
    if (p >= 1)
        return n ? 1 : 0;
    return -expm1((double)n * log1p(-p));
}

uint64_t ic_bestofn_needed(double p, double target)
{
    const uint64_t cap = UINT64_C(1) << 24;
    if (p >= 1 || target <= 0)
        return 1;
    double n = ceil(log1p(-target) / log1p(-p) - 1e-9);
    uint64_t k = n < 1 ? 1 : n > (double)cap ? cap : (uint64_t)n;
    while (k > 1 && ic_bestofn(p, k - 1) >= target)
        k--;
    while (k < cap && ic_bestofn(p, k) < target)
        k++;
    return k;
}

/* ---- the SLO search ------------------------------------------------------ */

/* The rows' order: the cost at the demand where there is one (whole
 * servers), then the chip-time's cost per token. */
static int cand_cmp(const void *a, const void *b)
{
    const struct ic_opt_cand *x = a, *y = b;
    if (x->usd_per_mtok_at_rate != y->usd_per_mtok_at_rate && !isnan(x->usd_per_mtok_at_rate) &&
        !isnan(y->usd_per_mtok_at_rate))
        return x->usd_per_mtok_at_rate > y->usd_per_mtok_at_rate ? 1 : -1;
    return (x->usd_per_mtok > y->usd_per_mtok) - (x->usd_per_mtok < y->usd_per_mtok);
}

/* The decode step at batch B, or a huge time when it cannot be evaluated. */
static bool step_at(const struct ic_model_stats *m, const struct ic_hw *hw,
                    struct ic_decode_cfg c, uint64_t batch, uint64_t context, struct ic_point *pt)
{
    c.batch = batch;
    c.context = context;
    return ic_decode(m, hw, &c, pt, NULL) == IC_OK;
}

struct frontier_buf {
    struct ic_opt_point *v;
    size_t n, cap;
    bool failed;
};

static void frontier_add(struct frontier_buf *f, int hw, double tpot, double usd)
{
    if (f->failed)
        return;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 1024;
        struct ic_opt_point *v = realloc(f->v, cap * sizeof *v);
        if (!v) {
            f->failed = true;
            return;
        }
        f->v = v;
        f->cap = cap;
    }
    f->v[f->n++] = (struct ic_opt_point){hw, tpot, usd};
}

/* Replicas that take `rate` requests/s when one takes `per` (1 without a
 * demand; capped where the division runs away). */
static uint64_t replicas_for(double rate, double per)
{
    if (!(rate > 0))
        return 1;
    double r = ceil(rate / per - 1e-9);
    return r < 1 ? 1 : r > 1e15 ? (uint64_t)1e15 : (uint64_t)r;
}

/* With a demand of rate requests/s of L output tokens: the chips c's
 * servers come to (colocated: its replicas alone), and their cost per
 * output token at that rate; NaN without one. */
static void provision(struct ic_opt_cand *c, double rate, double L, bool colocated)
{
    c->chips_total = c->replicas * c->decode_chips +
                     (colocated ? 0 : c->prefill_replicas * c->prefill_chips);
    c->usd_per_mtok_at_rate =
        rate > 0 ? ic_hw_usd(c->hw, (double)c->chips_total / (rate * L)) * 1e6 : NAN;
}

/* The rate over what the busier of two pools takes (NaN without a rate):
 * the prefill servers' pf_rps and the decode replicas' dec_rps together. */
static double load_of(double rate, double pf_rps, double dec_rps)
{
    return rate > 0 ? rate / fmin(pf_rps, dec_rps) : NAN;
}

/* Keeps c among the `cap` cheapest of out[0 .. *kept), sorted. */
static void keep_best(struct ic_opt_cand *out, size_t cap, size_t *kept,
                      const struct ic_opt_cand *c)
{
    if (*kept < cap) {
        out[(*kept)++] = *c;
        qsort(out, *kept, sizeof *out, cand_cmp);
    } else if (cap && cand_cmp(c, &out[cap - 1]) < 0) {
        out[cap - 1] = *c;
        qsort(out, *kept, sizeof *out, cand_cmp);
    }
}


/* The rows the search has counted, by what a row shows beside its types
 * (an open-addressed set): a type that changes nothing (fp8 and int8 of
 * the same width and peak) repeats one, counted once whatever is kept. Its
 * memory fit, TTFT and TPOT are in the key: weights of another width at the
 * same batch and cost (bf16 and fp8 weights under bf16 compute, a step the
 * FLOPs bound) hold other memory, and are another row. */
struct row_key {
    const struct ic_hw *hw;
    uint64_t tp, pp, micro, prefill_chips, batch;
    double usd, fit, ttft, tpot;
};
struct row_set {
    struct row_key *v;
    bool *used;
    size_t cap, n;
    bool failed;
};

static uint64_t row_hash(const struct row_key *k)
{
    uint64_t u[4], h = (uint64_t)(uintptr_t)k->hw * UINT64_C(0x9e3779b97f4a7c15);
    memcpy(&u[0], &k->usd, sizeof u[0]);
    memcpy(&u[1], &k->fit, sizeof u[1]);
    memcpy(&u[2], &k->ttft, sizeof u[2]);
    memcpy(&u[3], &k->tpot, sizeof u[3]);
    const uint64_t f[9] = {k->tp, k->pp, k->micro, k->prefill_chips, k->batch,
                           u[0], u[1], u[2], u[3]};
    for (int i = 0; i < 9; i++)
        h = (h ^ f[i]) * UINT64_C(0x100000001b3);
    return h ^ (h >> 29);
}

static bool row_eq(const struct row_key *a, const struct row_key *b)
{
    return a->hw == b->hw && a->tp == b->tp && a->pp == b->pp && a->micro == b->micro &&
           a->prefill_chips == b->prefill_chips && a->batch == b->batch && a->usd == b->usd &&
           a->fit == b->fit && a->ttft == b->ttft && a->tpot == b->tpot;
}

/* Adds k; false if it was there (or memory ran out: set->failed) */
static bool row_add(struct row_set *set, const struct row_key *k)
{
    if (set->failed)
        return false;
    if (2 * (set->n + 1) > set->cap) {
        struct row_set g = {0};
        g.cap = set->cap ? 2 * set->cap : 1024;
        g.v = malloc(g.cap * sizeof *g.v);
        g.used = calloc(g.cap, sizeof *g.used);
        if (!g.v || !g.used) {
            free(g.v);
            free(g.used);
            set->failed = true;
            return false;
        }
        for (size_t i = 0; i < set->cap; i++)
            if (set->used[i]) {
                size_t j = row_hash(&set->v[i]) & (g.cap - 1);
                while (g.used[j])
                    j = (j + 1) & (g.cap - 1);
                g.v[j] = set->v[i];
                g.used[j] = true;
            }
        g.n = set->n;
        free(set->v);
        free(set->used);
        *set = g;
    }
    size_t j = row_hash(k) & (set->cap - 1);
    for (; set->used[j]; j = (j + 1) & (set->cap - 1))
        if (row_eq(&set->v[j], k))
            return false;
    set->v[j] = *k;
    set->used[j] = true;
    set->n++;
    return true;
}

/* The weight and KV types the search tries (--weights / --kv narrow them).
 * fp4 only with fp4 compute, where the chip has it (B200's NVFP4): as
 * weight-only storage it costs what int4 does, a twin of every int4 row. */
enum { OPT_N_WEIGHTS = 5, OPT_N_KVS = 2 };
static const enum ic_dtype opt_weights[OPT_N_WEIGHTS] = {IC_DT_BF16, IC_DT_FP8, IC_DT_INT8,
                                                         IC_DT_INT4, IC_DT_FP4};
static const enum ic_dtype opt_kvs[OPT_N_KVS] = {IC_DT_BF16, IC_DT_FP8};

enum ic_dtype ic_optimize_compute(const struct ic_hw *hw, enum ic_dtype weights, int i)
{
    /* bf16 (fp16 on chips without it), or the low type the weights are
     * stored in where the chip has it */
    static const enum ic_dtype low[IC_OPTIMIZE_COMPUTES] = {IC_DT_COUNT, IC_DT_FP8, IC_DT_INT8,
                                                            IC_DT_FP4};
    if (i < 0 || i >= IC_OPTIMIZE_COMPUTES)
        return IC_DT_COUNT;
    const enum ic_dtype c =
        i ? low[i] : ic_hw_peak(hw, IC_DT_BF16) > 0 ? IC_DT_BF16 : IC_DT_FP16;
    if ((i > 0 && weights != c) || (i == 0 && weights == IC_DT_FP4) || !(ic_hw_peak(hw, c) > 0))
        return IC_DT_COUNT;
    return c;
}

bool ic_optimize_times(const struct ic_hw *hw, enum ic_dtype compute, enum ic_estimate est,
                       char *why, size_t n)
{
    if (est == IC_EST_IDEAL || hw->measured.present)
        return true;
    if (!hw->achieved.present) {
        if (why && n)
            snprintf(why, n, "no achieved rates");
        return false;
    }
    if (!(ic_step_achieved_gemm(hw, compute) > 0)) {
        if (why && n)
            snprintf(why, n, "no achieved %s GEMM rate", ic_dtype_traits(compute)->name);
        return false;
    }
    return true;
}

bool ic_optimize_searches(enum ic_dtype t, bool kv)
{
    const enum ic_dtype *set = kv ? opt_kvs : opt_weights;
    for (int i = 0; i < (kv ? OPT_N_KVS : OPT_N_WEIGHTS); i++)
        if (set[i] == t)
            return true;
    return false;
}

struct ic_decode_cfg ic_opt_decode_cfg(const struct ic_opt_req *req, uint64_t tp, uint64_t pp,
                                       uint64_t micro, enum ic_dtype weights, enum ic_dtype kv,
                                       enum ic_dtype compute)
{
    struct ic_decode_cfg dc = ic_decode_defaults();
    dc.chips = tp;
    dc.pp = pp;
    dc.micro = micro;
    dc.weights = weights;
    dc.kv = kv;
    dc.compute = compute;
    dc.estimate = req->estimate;
    dc.engine = req->engine;
    dc.kv_copy = req->kv_copy;
    return dc;
}

int ic_optimize(const struct ic_model_stats *m, const struct ic_hw *hws, size_t n_hw,
                const struct ic_opt_req *req, struct ic_opt_cand *out, size_t cap,
                size_t *n_ok, struct ic_opt_point **frontier, size_t *n_frontier,
                struct ic_err *err)
{
    const uint64_t T = req->prompt, L = req->output;
    if (!T || !L || T > IC_PREFILL_MAX_TOKENS || !ic_request_tokens_ok(T, L)) {
        const int rc =
            !T || !L ? ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "the %s must be at least 1 token", !T ? "prompt" : "output")
            : T > IC_PREFILL_MAX_TOKENS
                ? ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                             "the prompt is %llu tokens; expected at most 2^24",
                             (unsigned long long)T)
                : ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                             "prompt + output is %llu tokens; expected at most 2^26",
                             (unsigned long long)(T + L));
        ic_err_hint(err, "--prompt from 1 to %llu tokens, --prompt + --output at most %llu",
                    (unsigned long long)IC_PREFILL_MAX_TOKENS, (unsigned long long)IC_MODEL_MAX_CONTEXT);
        return rc;
    }
    if (!(req->ttft_s > 0) || !(req->tpot_s > 0) || !isfinite(req->ttft_s) ||
        !isfinite(req->tpot_s))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "the SLOs must be positive times");
    if (!(req->mfu >= 0 && req->mfu <= 1))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "MFU %g is outside 0 to 1", req->mfu);
    if (!(req->mem_util >= 0 && req->mem_util <= 1))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the share of memory is %g; expected above 0, at most 1", req->mem_util);
    /* the memory a layout may fill, a share of each chip's */
    const double util = req->mem_util > 0 ? req->mem_util : 1.0;
    if (!(req->rate >= 0) || !isfinite(req->rate))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the demand is %g requests/s; expected a finite rate of 0 or more",
                          req->rate);
    if (req->max_chips > IC_OPTIMIZE_MAX_CHIPS || req->max_pp > IC_OPTIMIZE_MAX_PP)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "at most %d chips a replica and %d pipeline stages are searched",
                          IC_OPTIMIZE_MAX_CHIPS, IC_OPTIMIZE_MAX_PP);
    const enum ic_dtype *const wts = opt_weights, *const kvs = opt_kvs;
    const uint64_t max_chips = req->max_chips ? req->max_chips : 64;
    const uint64_t max_pp = req->max_pp ? req->max_pp : 8;
    /* the decode layouts: tp and pp powers of 2, tp x pp within max_chips,
     * at most a stage per layer, micro-batches 1, 2 ... pp (at most 13 x 7
     * x 7 = 637 of them within the bounds checked above) */
    struct layout { uint64_t tp, pp, micro; } lay[1024];
    size_t n_lay = 0;
    for (uint64_t n = 1; n <= max_chips; n *= 2)
        for (uint64_t P = 1; P <= max_pp && n * P <= max_chips && (P == 1 || P <= m->n_layers);
             P *= 2)
            for (uint64_t M = 1; M <= P && n_lay < sizeof lay / sizeof lay[0]; M *= 2)
                lay[n_lay++] = (struct layout){n, P, M};
    struct frontier_buf fb = {0};
    struct row_set rows = {0};
    size_t kept = 0, ok = 0;
    for (size_t h = 0; h < n_hw; h++) {
        const struct ic_hw *hw = &hws[h];
        for (size_t wi = 0; wi < OPT_N_WEIGHTS; wi++)
            for (size_t ki = 0; ki < OPT_N_KVS; ki++)
                for (int ci = 0; ci < IC_OPTIMIZE_COMPUTES; ci++) {
                    const enum ic_dtype comp = ic_optimize_compute(hw, wts[wi], ci);
                    if (comp == IC_DT_COUNT || !ic_optimize_times(hw, comp, req->estimate, NULL, 0))
                        continue;
                    if ((req->weights_mask && !(req->weights_mask & (1u << wts[wi]))) ||
                        (req->kv_mask && !(req->kv_mask & (1u << kvs[ki]))))
                        continue;
                    /* prefill: the replica with the lowest chip-time that meets the TTFT */
                    double pf_chip_s = INFINITY, pf_ttft = 0, pf_s = 0;
                    uint64_t pf_chips = 0;
                    for (uint64_t n = 1; n <= max_chips; n *= 2) {
                        struct ic_prefill_cfg pc = ic_prefill_defaults();
                        pc.chips = n;
                        pc.prompt = T;
                        pc.weights = wts[wi];
                        pc.kv = kvs[ki];
                        pc.compute = comp;
                        pc.mfu = req->mfu;
                        pc.estimate = req->estimate;
                        pc.engine = req->engine;
                        pc.kv_copy = req->kv_copy;
                        struct ic_prefill p;
                        struct ic_point fit; /* the replica holding one prompt's cache */
                        const struct ic_decode_cfg dc =
                            ic_opt_decode_cfg(req, n, 1, 1, wts[wi], kvs[ki], comp);
                        if (ic_prefill(m, hw, &pc, &p, NULL) || !step_at(m, hw, dc, 1, T, &fit) ||
                            !(fit.mem_per_chip_B <= util * fit.capacity_B) || p.ttft_s > req->ttft_s)
                            continue;
                        if ((double)n * p.prefill_s < pf_chip_s) {
                            pf_chip_s = (double)n * p.prefill_s;
                            pf_chips = n;
                            pf_ttft = p.ttft_s;
                            pf_s = p.prefill_s;
                        }
                    }
                    if (!pf_chips)
                        continue;
                    /* decode: tp chips per stage, pp stages, micro-batches */
                    for (size_t li = 0; li < n_lay; li++) {
                        const uint64_t n = lay[li].tp, P = lay[li].pp, M = lay[li].micro;
                        const struct ic_decode_cfg dc =
                            ic_opt_decode_cfg(req, n, P, M, wts[wi], kvs[ki], comp);
                        const double NT = (double)(n * P); /* the replica's chips */
                        struct ic_point end, mean;
                        if (!step_at(m, hw, dc, M, T + L, &end) ||
                            !(end.mem_per_chip_B <= util * end.capacity_B))
                            continue;
                        /* the largest batch: what fits in the share of memory
                         * (all of it: the step's own max_batch), and no more
                         * than the engine schedules by default */
                        uint64_t bmax =
                            util < 1 ? ic_decode_max_batch(m, &end.cfg, util * end.capacity_B)
                                     : end.max_batch;
                        if (req->engine && req->engine->max_batch && req->engine->max_batch < bmax)
                            bmax = req->engine->max_batch;
                        if (bmax < M)
                            continue;
                        /* the picture: every power-of-2 batch that fits */
                        if (frontier)
                            for (uint64_t b = M; b <= bmax; b *= 2)
                                if (step_at(m, hw, dc, b, T + L, &end) &&
                                    step_at(m, hw, dc, b, T + L / 2, &mean)) {
                                    double dec = NT * (double)L * mean.step_s / (double)b;
                                    frontier_add(&fb, (int)h, end.step_s,
                                                 ic_hw_usd(hw, (pf_chip_s + dec) / (double)L) *
                                                     1e6);
                                }
                        if (!step_at(m, hw, dc, M, T + L, &end) || end.step_s > req->tpot_s)
                            continue;
                        /* the largest batch that fits and meets the TPOT
                         * (the step time grows with the batch) */
                        uint64_t lo = M, hi = bmax + 1;
                        while (hi - lo > 1) {
                            uint64_t mid = lo + (hi - lo) / 2;
                            if (step_at(m, hw, dc, mid, T + L, &end) && end.step_s <= req->tpot_s)
                                lo = mid;
                            else
                                hi = mid;
                        }
                        /* a batch over M micro-batches runs as its
                         * largest one: the multiple of M below it may
                         * cost less a token (135 over 2 is timed as 68,
                         * 134 as 67) */
                        if (M > 1 && lo % M) {
                            struct ic_point m2;
                            const uint64_t r = lo - lo % M;
                            if (step_at(m, hw, dc, lo, T + L / 2, &mean) &&
                                step_at(m, hw, dc, r, T + L / 2, &m2) &&
                                m2.step_s / (double)r < mean.step_s / (double)lo)
                                lo = r;
                        }
                        if (!step_at(m, hw, dc, lo, T + L, &end) ||
                            !step_at(m, hw, dc, lo, T + L / 2, &mean))
                            continue;
                        double dec_chip_s = NT * (double)L * mean.step_s / (double)lo;
                        /* requests/s a decode replica and a prefill server take */
                        const double dec_rps = (double)lo / ((double)L * mean.step_s),
                                     pf_rps = 1.0 / pf_s;
                        struct ic_opt_cand c = {
                            .hw = hw, .weights = wts[wi], .kv = kvs[ki], .compute = comp,
                            .prefill_chips = pf_chips, .decode_chips = n * P, .batch = lo,
                            .tp = n, .pp = P, .micro = M,
                            .replicas = replicas_for(req->rate, dec_rps),
                            .prefill_replicas = replicas_for(req->rate, pf_rps),
                            .ttft_s = pf_ttft, .tpot_s = end.step_s, .step_s = mean.step_s,
                            .send_s = mean.send_s, /* 0 without a pipeline */
                            .tokens_s_chip = mean.tokens_s_chip,
                            .mem_share = end.mem_per_chip_B / end.capacity_B,
                            .prefill_share = pf_chip_s / (pf_chip_s + dec_chip_s),
                            .usd_per_mtok =
                                ic_hw_usd(hw, (pf_chip_s + dec_chip_s) / (double)L) * 1e6,
                        };
                        provision(&c, req->rate, (double)L, false);
                        c.load = load_of(req->rate, pf_rps * (double)c.prefill_replicas,
                                         dec_rps * (double)c.replicas);
                        /* a type that changes nothing here (fp8 and int8 of the
                         * same width and peak) repeats a row counted: skip it,
                         * uncounted, whether that row is kept or not (the count
                         * is the search's, not the rows shown) */
                        const struct row_key key = {
                            .hw = hw, .tp = n, .pp = P, .micro = M, .prefill_chips = pf_chips,
                            .batch = lo, .usd = c.usd_per_mtok, .fit = c.mem_share,
                            .ttft = c.ttft_s, .tpot = c.tpot_s};
                        if (!row_add(&rows, &key))
                            continue;
                        ok++;
                        keep_best(out, cap, &kept, &c);
                    }
                }
    }
    free(rows.v);
    free(rows.used);
    if (fb.failed || rows.failed) {
        free(fb.v);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    if (frontier) {
        *frontier = fb.v;
        *n_frontier = fb.n;
    } else {
        free(fb.v);
    }
    *n_ok = ok;
    return IC_OK;
}

/* ---- ranking by simulated capacity ---------------------------------------- */

int ic_opt_capacity(const struct ic_model_stats *m, const struct ic_hw *hw,
                    const struct ic_sim_cfg *base, double ttft_slo_s, double tpot_slo_s,
                    double *capacity, struct ic_sim_result *at, unsigned *runs,
                    struct ic_err *err)
{
    struct ic_sim_cfg c = *base;
    c.ttft_slo_s = ttft_slo_s;
    c.tpot_slo_s = tpot_slo_s;
    struct ic_sim_result r, best;
    unsigned n = 0;
    int rc;
    memset(&best, 0, sizeof best);
    /* offline: the most requests/s this replica finishes */
    c.rate = 0;
    c.warmup = 0;
    if ((rc = ic_sim_run(m, hw, &c, &r, err)))
        goto out;
    n++;
    const double X = r.requests_per_s;
    double cap = 0;
    c.warmup = c.requests / 10;
    c.rate = 0.05 * X;
    if ((rc = ic_sim_run(m, hw, &c, &r, err)))
        goto out;
    n++;
    if (ic_sim_meets_slos(&c, &r)) {
        best = r;
        if ((rc = ic_sim_capacity_bisect(m, hw, &c, 0.05 * X, X, 7, &cap, &best, &n, err)))
            goto out;
    }
    *capacity = cap;
    if (at)
        *at = best;
out:
    if (runs)
        *runs = n;
    return rc;
}

int ic_optimize_capacity(const struct ic_model_stats *m, const struct ic_opt_req *req,
                         const struct ic_sim_cfg *base, const struct ic_opt_cand *in,
                         size_t n_in, size_t shortlist, struct ic_opt_cand *out, size_t cap,
                         size_t *n_out, size_t *n_simulated, uint64_t *sim_requests,
                         struct ic_err *err)
{
    if (shortlist > IC_OPTIMIZE_MAX_SIM)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "%zu configurations to simulate; expected at most %d", shortlist,
                          IC_OPTIMIZE_MAX_SIM);
    struct ic_opt_cand chosen[IC_OPTIMIZE_MAX_SIM];
    size_t n_ch = 0;
    for (size_t i = 0; i < n_in && n_ch < shortlist; i++) {
        const struct ic_opt_cand *c = &in[i];
        if (c->pp > 1)
            continue; /* the simulator runs one tensor-parallel replica */
        bool seen = false;
        for (size_t j = 0; j < n_ch && !seen; j++)
            seen = chosen[j].hw == c->hw && chosen[j].weights == c->weights &&
                   chosen[j].kv == c->kv && chosen[j].compute == c->compute &&
                   chosen[j].tp == c->tp;
        if (!seen)
            chosen[n_ch++] = *c;
    }
    uint64_t work = 0;
    size_t kept = 0, passed = 0;
    for (size_t i = 0; i < n_ch; i++) {
        struct ic_opt_cand c = chosen[i];
        struct ic_sim_cfg s = *base;
        s.dec.chips = c.tp;
        s.dec.pp = 1;
        s.dec.micro = 1;
        s.dec.weights = c.weights;
        s.dec.kv = c.kv;
        s.dec.compute = c.compute;
        s.dec.estimate = req->estimate;
        s.dec.engine = req->engine;
        s.dec.kv_copy = req->kv_copy;
        if (!(s.prefill_mfu > 0))
            s.prefill_mfu = req->mfu;
        double capacity = 0;
        struct ic_sim_result at;
        unsigned runs = 0;
        int rc = ic_opt_capacity(m, c.hw, &s, req->ttft_s, req->tpot_s, &capacity, &at, &runs,
                                 err);
        work += (uint64_t)runs * s.requests;
        if (rc == IC_EINVAL)
            continue; /* this replica cannot run the workload (no room for its KV) */
        if (rc)
            return rc;
        if (!(capacity > 0))
            continue;
        const double L = base->output.mean;
        c.prefill_chips = c.decode_chips = c.tp;
        c.capacity_rps = capacity;
        /* the latencies shown are the P99s at the capacity; the batch the
         * simulation's mean, with the decode step there at T + L/2 */
        c.ttft_s = c.sim_ttft_p99_s = at.ttft.p[IC_SIM_PCT - 1];
        c.tpot_s = c.sim_tpot_p99_s = at.tpot.p[IC_SIM_PCT - 1];
        c.batch = at.mean_batch < 1 ? 1 : (uint64_t)llround(at.mean_batch);
        struct ic_point pt;
        const bool have = step_at(m, c.hw, s.dec, c.batch,
                                  (uint64_t)llround(base->prompt.mean + L / 2), &pt);
        c.step_s = have ? pt.step_s : 0;
        c.mem_share = have ? pt.mem_per_chip_B / pt.capacity_B : 0;
        c.tokens_s_chip = capacity * L / (double)c.tp;
        c.replicas = replicas_for(req->rate, capacity);
        c.prefill_replicas = c.replicas;
        c.prefill_share = 0;
        c.usd_per_mtok = ic_hw_usd(c.hw, (double)c.tp / (capacity * L)) * 1e6;
        provision(&c, req->rate, L, true);
        c.load = load_of(req->rate, INFINITY, (double)c.replicas * capacity);
        passed++;
        keep_best(out, cap, &kept, &c);
    }
    *n_out = passed;
    if (n_simulated)
        *n_simulated = n_ch;
    if (sim_requests)
        *sim_requests = work;
    return IC_OK;
}
