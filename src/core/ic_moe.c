/* ic_moe: expert parallelism, experts touched and attention intensity (see
 * the header for the model). The step is an ic_step whose layout holds the
 * ep groups: its load has the EP weights, expert FLOPs and all-to-all. */
#include "ic_moe.h"

#include "ic_comm.h"

#include <math.h>
#include <string.h>

/* The step of one group at per-group batch B with expert parallelism: an
 * ic_step of B decode tokens at the configured context over N chips of ep
 * groups, at the configuration's estimate (ic_decode_rates). */
static int moe_step(const struct ic_model_stats *m, const struct ic_hw *hw,
                    const struct ic_moe_cfg *c, uint64_t B, struct ic_load *l, struct ic_time *t,
                    struct ic_err *err)
{
    const struct ic_decode_cfg *d = &c->dec;
    const struct ic_step step = {
        .layout = {d->chips, c->ep, 1, 1, d->kv_copy},
        .kind = {{B, 1, d->context ? d->context - 1 : 0, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = d->weights,
        .kv = d->kv,
        .compute = d->compute,
        .attn = IC_ATTN_FLASH,
    };
    const struct ic_rates rates = ic_decode_rates(d, 1.0);
    int rc = ic_step_load(m, &step, l, err);
    return rc ? rc : ic_step_time(l, hw, &rates, t, err);
}

static int check_cfg(const struct ic_model_stats *m, const struct ic_hw *hw,
                     const struct ic_moe_cfg *c, struct ic_err *err)
{
    const uint64_t ep = c->ep;
    if (!ep)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "ep (expert-parallel groups) must be at "
                                                      "least 1");
    if (ep > 1 && !m->n_experts) {
        int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "ep is %llu but the model has no routed experts; expert "
                            "parallelism needs an MoE model (use ep 1)", (unsigned long long)ep);
        ic_err_hint(err, "'infcalc list models' marks the MoE models (e.g. mixtral-8x7b)");
        return rc;
    }
    if (ep > 1 && m->n_experts % ep) {
        int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "ep is %llu but does not divide the %llu routed experts; every "
                            "group must hold the same number", (unsigned long long)ep,
                            (unsigned long long)m->n_experts);
        ic_err_hint(err, "choose an ep that divides %llu, e.g. 2", (unsigned long long)m->n_experts);
        return rc;
    }
    const uint64_t N = c->dec.chips;
    if (N && ep > IC_DECODE_MAX_CHIPS / N) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "chips x ep is %llu x %llu; expected at most 2^20 chips in "
                                  "all", (unsigned long long)N, (unsigned long long)ep);
        ic_err_hint(err, "fewer --chips or a smaller --ep: their product at most %llu",
                    (unsigned long long)IC_DECODE_MAX_CHIPS);
        return rc;
    }
    if (N * ep > hw->ici_domain_chips && !(hw->dcn_B_s > 0)) {
        int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_DCN].line,
                            hw->locs[IC_HWF_DCN].col,
                            "%s has no scale-out network: chips x ep at most %llu (its "
                            "fabric's domain)", hw->name,
                            (unsigned long long)hw->ici_domain_chips);
        ic_err_hint(err, "use fewer chips or groups, or a chip whose entry has a scale_out "
                         "section");
        return rc;
    }
    return IC_OK;
}

/* Smallest per-group batch in [1, 2^24] with compute_s >= weights_s, 0 if
 * none: at a fixed GEMM rate (the ideal bound, an accelerator's achieved
 * rate) compute_s - weights_s is convex in B (linear minus concave) and
 * negative near 0, so once true the predicate stays true. On a benched
 * machine's entry compute_s is the measured matmul time beyond the weight
 * stream, not linear in B (its rate rises with the rows); the bisection
 * then assumes the crossing is single, as every bench entry read so far
 * gives (not checked when an entry is loaded). */
static int compute_bound_batch(const struct ic_model_stats *m, const struct ic_hw *hw,
                               const struct ic_moe_cfg *c, uint64_t *out, struct ic_err *err)
{
    struct ic_load l;
    struct ic_time t;
    int rc;
    uint64_t lo = 0, hi = IC_DECODE_MAX_BATCH; /* lo: false (0 stands for "none tried") */
    if ((rc = moe_step(m, hw, c, hi, &l, &t, err)))
        return rc;
    if (t.compute_s < t.weights_s) {
        *out = 0;
        return IC_OK;
    }
    while (hi - lo > 1) { /* invariant: hi true, lo false or 0 */
        uint64_t mid = lo + (hi - lo) / 2;
        if ((rc = moe_step(m, hw, c, mid, &l, &t, err)))
            return rc;
        if (t.compute_s >= t.weights_s)
            hi = mid;
        else
            lo = mid;
    }
    *out = hi;
    return IC_OK;
}

int ic_moe(const struct ic_model_stats *m, const struct ic_hw *hw, const struct ic_moe_cfg *cfg,
           struct ic_moe *out, struct ic_err *err)
{
    int rc;
    if ((rc = check_cfg(m, hw, cfg, err)))
        return rc;
    struct ic_moe r;
    memset(&r, 0, sizeof r);
    struct ic_point p; /* the decode point without EP: B_crit */
    struct ic_load l;
    struct ic_time t;
    const uint64_t N = cfg->dec.chips, B = cfg->dec.batch, ep = cfg->ep;
    if ((rc = ic_decode(m, hw, &cfg->dec, &p, err)) ||
        (rc = moe_step(m, hw, cfg, B, &l, &t, err)))
        return rc;
    const double bkv = ic_dtype_traits(cfg->dec.kv)->bits / 8.0;
    const double C = ic_hw_peak(hw, cfg->dec.compute), W = hw->hbm_bandwidth_B_s;

    r.weights_s = t.weights_s;
    r.compute_s = t.compute_s;
    r.experts_touched = l.experts_touched;
    r.experts_touched_per_group = r.experts_touched / (double)ep;
    if ((rc = compute_bound_batch(m, hw, cfg, &r.compute_bound_batch, err)))
        return rc;
    r.dense_b_crit = p.b_crit;
    r.moe_b_crit = p.b_crit_moe; /* b_crit * E / k */
    if (l.a2as) {
        r.a2a_bytes_per_layer = l.a2a_bytes;
        r.a2a_s_per_layer = ic_comm_alltoall_s(hw, N * ep, N, l.a2a_bytes);
        r.a2a_s = t.a2a_s;
    }
    r.step_s = t.step_s;
    r.chips_total = N * ep;
    r.batch_total = B * ep;
    r.tokens_s = (double)r.batch_total / r.step_s;
    r.tokens_s_chip = r.tokens_s / (double)r.chips_total;
    const struct ic_mem mem = ic_step_mem(m, N, cfg->dec.kv_copy, l.weights_held_bytes,
                                          ic_step_kv_seq_bytes(m, cfg->dec.context, cfg->dec.kv));
    r.mem_per_chip_B = ic_step_mem_at(&mem, B);
    r.fits = r.mem_per_chip_B <= hw->hbm_capacity_B;

    /* attention intensity: FLOPs per KV byte read by a decode token at the
     * context (a pair's FLOPs over a token's values; under DeepSeek Sparse
     * Attention the top-k and the indexer's keys and FLOPs) */
    const double kv_read = ic_step_kv_read_seq_bytes(m, cfg->dec.context, 1, cfg->dec.kv);
    if (m->kv_values_per_layer_token && kv_read > 0)
        r.attn_intensity = ic_model_attn_flop(m, cfg->dec.context) / kv_read;
    if (m->mla) {
        /* K (d_qk) and V (d_v) per head: QK^T 2 H d_qk + AV 2 H d_v FLOPs
         * over H (d_qk + d_v) values read */
        const double H = (double)m->n_heads, dqk = (double)m->head_dim,
                     dv = (double)m->v_head_dim;
        r.mla_naive_intensity = (2 * H * dqk + 2 * H * dv) / (H * (dqk + dv) * bkv);
    }
    r.ridge = C / W;

    const double check[] = {r.weights_s, r.compute_s, r.a2a_s, r.step_s, r.tokens_s,
                            r.mem_per_chip_B, r.attn_intensity, r.ridge};
    for (size_t i = 0; i < sizeof check / sizeof check[0]; i++)
        if (!isfinite(check[i]) || check[i] < 0)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "the MoE figures are not finite for these inputs (a fabric "
                              "without bandwidth, or absurd model figures?)");
    *out = r;
    return IC_OK;
}
