/* ic_moe: expert parallelism, experts touched and attention intensity (see
 * the header for the model). Built on ic_decode: each figure is ic_decode's
 * with the routed experts' terms replaced by their EP form. */
#include "ic_moe.h"

#include "ic_comm.h"

#include <math.h>
#include <string.h>

/* Routed expert parameters one chip of a group holds: the group's E/ep
 * experts split over its N chips by ic_decode's rule, i.e. 1/ep of what one
 * chip holds without EP. */
static double experts_per_chip(const struct ic_model_stats *m, uint64_t ep, uint64_t chips)
{
    return ic_decode_group_per_chip(m, IC_PG_EXPERTS, chips) / (double)ep;
}

/* Linear-layer times on one chip at per-group batch B with EP applied:
 * ic_decode's, less its expert terms (ep = 1), plus the EP ones. */
static int linear_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                    const struct ic_moe_cfg *c, uint64_t B, struct ic_point *p,
                    double *weights_s, double *compute_s, struct ic_err *err)
{
    struct ic_decode_cfg d = c->dec;
    d.batch = B;
    int rc = ic_decode(m, hw, &d, p, err);
    if (rc)
        return rc;
    *weights_s = p->weights_s;
    *compute_s = p->compute_s;
    if (!m->n_experts || c->ep == 1)
        return IC_OK;
    const double E = (double)m->n_experts, k = (double)m->top_k, ep = (double)c->ep;
    const double bw = ic_dtype_traits(d.weights)->bits / 8.0;
    const double W = hw->hbm_bandwidth_B_s, C = ic_hw_peak(hw, d.compute);
    const double held1 = experts_per_chip(m, 1, d.chips), held = experts_per_chip(m, c->ep, d.chips);
    /* read: the touched fraction of the held experts (B tokens vs ep * B) */
    const double frac1 = ic_decode_experts_touched(m->n_experts, m->top_k, B) / E;
    const double frac = ic_decode_experts_touched(m->n_experts, m->top_k, B * c->ep) / E;
    *weights_s += (held * frac - held1 * frac1) * bw / W;
    /* compute: 2 FLOPs per parameter per token-expert pair; B k pairs reach a
     * group, each on one of its E/ep experts (held / (E/ep) per chip) */
    *compute_s += 2.0 * (double)B * (k * ep / E * held - k / E * held1) / C;
    return IC_OK;
}

/* All-to-all of A bytes per chip (sent and received) over `chips` chips,
 * dispatch and combine counted in A: see the header. */
static double a2a_layer_s(const struct ic_hw *hw, uint64_t chips, double A)
{
    struct ic_comm_path path = ic_comm_path(hw, chips);
    const double R = (double)path.domains;
    const double out = (R - 1) / R; /* fraction bound for other domains */
    double t = 0;
    if (path.domain > 1)
        t += A * (1 - out) / path.bw_B_s + 2.0 * (double)path.steps * path.step_s;
    if (path.domains > 1)
        t += A * out / hw->dcn_B_s + 2.0 * hw->dcn_latency_s;
    return t;
}

static int check_cfg(const struct ic_model_stats *m, const struct ic_hw *hw,
                     const struct ic_moe_cfg *c, struct ic_err *err)
{
    const uint64_t ep = c->ep;
    if (!ep)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "ep (expert-parallel groups) must be at "
                                                      "least 1");
    if (ep > 1 && !m->n_experts)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "ep is %llu but the model has no routed experts; expert "
                          "parallelism needs an MoE model (use ep 1)", (unsigned long long)ep);
    if (ep > 1 && m->n_experts % ep)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "ep is %llu but does not divide the %llu routed experts; every "
                          "group must hold the same number", (unsigned long long)ep,
                          (unsigned long long)m->n_experts);
    if (c->dec.estimate != IC_EST_IDEAL)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the MoE analysis computes the ideal bound only (estimate 'ideal')");
    const uint64_t N = c->dec.chips;
    if (N && ep > IC_DECODE_MAX_CHIPS / N)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "chips x ep is too large (at most 2^20 chips in all)");
    if (N * ep > hw->ici_domain_chips && !(hw->dcn_B_s > 0))
        return ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_DCN].line,
                          hw->locs[IC_HWF_DCN].col,
                          "%s has no scale-out network: chips x ep at most %llu (its "
                          "fabric's domain)", hw->name, (unsigned long long)hw->ici_domain_chips);
    return IC_OK;
}

/* Smallest per-group batch in [1, 2^24] with compute_s >= weights_s, 0 if
 * none: compute_s - weights_s is convex in B (linear minus concave) and
 * negative near 0, so once true the predicate stays true. */
static int compute_bound_batch(const struct ic_model_stats *m, const struct ic_hw *hw,
                               const struct ic_moe_cfg *c, uint64_t *out, struct ic_err *err)
{
    struct ic_point p;
    double w, f;
    int rc;
    uint64_t lo = 0, hi = IC_DECODE_MAX_BATCH; /* lo: false (0 stands for "none tried") */
    if ((rc = linear_s(m, hw, c, hi, &p, &w, &f, err)))
        return rc;
    if (f < w) {
        *out = 0;
        return IC_OK;
    }
    while (hi - lo > 1) { /* invariant: hi true, lo false or 0 */
        uint64_t mid = lo + (hi - lo) / 2;
        if ((rc = linear_s(m, hw, c, mid, &p, &w, &f, err)))
            return rc;
        if (f >= w)
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
    struct ic_point p;
    const uint64_t N = cfg->dec.chips, B = cfg->dec.batch, ep = cfg->ep;
    if ((rc = linear_s(m, hw, cfg, B, &p, &r.weights_s, &r.compute_s, err)))
        return rc;
    const double bw = ic_dtype_traits(cfg->dec.weights)->bits / 8.0;
    const double bkv = ic_dtype_traits(cfg->dec.kv)->bits / 8.0;
    const double bact = cfg->dec.compute == IC_DT_FP32 ? 4.0 : 2.0; /* as ic_decode */
    const double C = ic_hw_peak(hw, cfg->dec.compute), W = hw->hbm_bandwidth_B_s;

    r.experts_touched = ic_decode_experts_touched(m->n_experts, m->top_k, B * ep);
    r.experts_touched_per_group = r.experts_touched / (double)ep;
    if ((rc = compute_bound_batch(m, hw, cfg, &r.compute_bound_batch, err)))
        return rc;
    r.dense_b_crit = p.b_crit;
    r.moe_b_crit = p.b_crit_moe; /* b_crit * E / k */

    /* all-to-all: each of the group's B tokens sends its D-vector to k
     * experts, (ep-1)/ep of them elsewhere, and gets as many back; the N
     * chips of the group share the sending */
    if (ep > 1) {
        r.a2a_bytes_per_layer = 2.0 * (double)B * (double)m->top_k * (double)(ep - 1) /
                                (double)ep * (double)m->hidden_size * bact / (double)N;
        r.a2a_s_per_layer = a2a_layer_s(hw, N * ep, r.a2a_bytes_per_layer);
        r.a2a_s = (double)m->n_moe_layers * r.a2a_s_per_layer;
    }

    /* the step: ic_decode's ideal combination, then the all-to-all */
    const double local = fmax(r.weights_s, r.compute_s) + fmax(p.kv_s, p.attn_s);
    const double tp = cfg->dec.comm == IC_COMM_OVERLAP ? fmax(local, p.comm_s)
                                                       : local + p.comm_s;
    r.step_s = tp + r.a2a_s;
    r.chips_total = N * ep;
    r.batch_total = B * ep;
    r.tokens_s = (double)r.batch_total / r.step_s;
    r.tokens_s_chip = r.tokens_s / (double)r.chips_total;
    r.mem_per_chip_B = p.mem_per_chip_B +
                       (experts_per_chip(m, ep, N) - experts_per_chip(m, 1, N)) * bw;
    r.fits = r.mem_per_chip_B <= hw->hbm_capacity_B;

    /* attention intensity: FLOPs per KV byte read */
    if (m->kv_values_per_layer_token)
        r.attn_intensity = (double)m->attn_flop_per_ctx_token_layer /
                           ((double)m->kv_values_per_layer_token * bkv);
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
