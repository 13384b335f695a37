/* ic_decode: a decode step as an ic_step load and time, and what a decode
 * point reports beside it (see the header). */
#include "ic_decode.h"
#include "ic_comm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const enum ic_dtype ic_decode_fewest_types[5] = {IC_DT_BF16, IC_DT_FP8, IC_DT_INT8, IC_DT_INT4,
                                                 IC_DT_FP4};

struct ic_decode_cfg ic_decode_defaults(void)
{
    return (struct ic_decode_cfg){1, 1, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16,
                                  IC_COMM_OVERLAP, IC_EST_IDEAL, 1.0, 0, 1.0, 1, 1, false, NULL, 0, false};
}

/* The step: B sequences, one new token each (with logits), S - 1 cached
 * before it. */
static struct ic_step decode_step(const struct ic_decode_cfg *c)
{
    return (struct ic_step){
        .layout = {c->chips, 1, c->pp, c->micro, c->kv_copy},
        .kind = {{c->batch, 1, c->context - 1, 1, IC_PHASE_DECODE}},
        .n_kinds = 1,
        .weights = c->weights,
        .kv = c->kv,
        .compute = c->compute,
        .attn = IC_ATTN_FLASH,
    };
}

/* The memory of the step's own load at batch (its layout: the chips of a
 * stage, the layers a stage holds), at one sequence or more: its memory is
 * linear in the batch past that; false for a layout the load refuses. */
static bool decode_mem(const struct ic_model_stats *m, const struct ic_decode_cfg *c,
                       uint64_t batch, struct ic_mem *k)
{
    struct ic_decode_cfg x = *c;
    x.batch = batch ? batch : 1; /* (ic_step_load holds micro to it) */
    const struct ic_step step = decode_step(&x);
    struct ic_load l;
    if (ic_step_load(m, &step, &l, NULL))
        return false;
    *k = ic_step_mem_of(&l, 0);
    return true;
}

double ic_decode_mem_per_chip(const struct ic_model_stats *m, const struct ic_decode_cfg *c,
                              uint64_t batch)
{
    /* (batch 0: the weights and nothing else) */
    struct ic_mem k;
    return decode_mem(m, c, batch, &k) ? ic_step_mem_at(&k, batch) : INFINITY;
}

uint64_t ic_decode_max_batch(const struct ic_model_stats *m, const struct ic_decode_cfg *c,
                             double capacity)
{
    struct ic_mem k;
    return decode_mem(m, c, c->batch, &k) ? ic_step_max_batch(&k, capacity) : 0;
}

struct ic_rates ic_decode_rates(const struct ic_decode_cfg *cfg, double prefill_mfu)
{
    return (struct ic_rates){cfg->estimate, cfg->comm, {1.0, prefill_mfu > 0 ? prefill_mfu : 1.0},
                             cfg->bw_scale, cfg->compute_scale, cfg->regions,
                             cfg->engine, cfg->attn_scale};
}

int ic_decode(const struct ic_model_stats *m, const struct ic_hw *hw,
              const struct ic_decode_cfg *cfg, struct ic_point *out, struct ic_err *err)
{
    const uint64_t N = cfg->chips, B = cfg->batch, S = cfg->context;
    if (!N || !B || !S)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "%s must be at least 1", !N ? "chips" : !B ? "batch" : "context");
    if (S > IC_MODEL_MAX_CONTEXT || B > IC_DECODE_MAX_BATCH || N > IC_DECODE_MAX_CHIPS)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "%s is too large (context at most 2^26, batch 2^24, chips 2^20)",
                          S > IC_MODEL_MAX_CONTEXT ? "context" : B > IC_DECODE_MAX_BATCH ? "batch"
                                                                                       : "chips");
    const struct ic_step step = decode_step(cfg);
    struct ic_load l;
    struct ic_time t;
    const struct ic_rates rates = ic_decode_rates(cfg, 1.0);
    int rc;
    if ((rc = ic_step_load(m, &step, &l, err)) || (rc = ic_step_time(&l, hw, &rates, &t, err)))
        return rc;

    /* every chip of the layout: N per pipeline stage */
    const double NT = (double)N * (double)(cfg->pp > 1 ? cfg->pp : 1);
    struct ic_point *const p = out; /* written in place (undefined on failure) */
    /* every field is assigned below (test_decode checks it) */
    p->cfg = *cfg;
    p->params = m->params_total;
    p->params_active = m->params_active;
    ic_model_kept_text(m, cfg->weights, p->weights_kept, sizeof p->weights_kept);
    p->kv_bytes_per_token = ic_model_kv_bytes_per_token(m, ic_dtype_traits(cfg->kv)->bits);
    p->kv_held_per_token = ic_step_kv_token_bytes(m, S, cfg->kv) / (double)S;
    p->state_bytes_per_seq = ic_model_state_bytes(m);
    /* a step's weight reads over all chips: every stage's, once a pass of
     * a micro-batch (the busiest stage's chip times every chip counted the
     * LM head once a stage) */
    double pass_weights = l.weight_bytes;
    if (cfg->pp > 1) {
        struct ic_step one = step;
        one.layout.pp = 1;
        struct ic_load l1;
        if ((rc = ic_step_load(m, &one, &l1, err)))
            return rc;
        pass_weights = l1.weight_bytes;
    }
    p->weight_bytes = pass_weights * (double)N * (double)l.micro;
    p->kv_bytes = l.kv_read_all_bytes;
    p->kv_write_bytes = l.kv_write_all_bytes;
    p->flops = l.flops;
    p->flops_linear = l.flops_linear;
    p->flops_attn = l.flops_attn;
    p->comm_bytes = (double)l.allreduces * l.allreduce_bytes * (double)l.micro;
    p->experts_touched = l.experts_touched;
    p->kv_split_heads = l.kv_split_heads;
    p->kv_split_batch = l.kv_split_batch;
    p->kv_head_div = l.kv_head_div;
    p->uneven_split = l.uneven_split;
    p->query_heads = m->group_ways[IC_PG_ATTN_HEADS] == UINT64_MAX
                         ? 0
                         : m->group_ways[IC_PG_ATTN_HEADS];
    const struct ic_comm_path path = ic_comm_path(hw, N);
    p->comm_domains = N > 1 ? path.domains : 1;
    p->comm_domain_chips = N > 1 ? path.domain : 1;
    p->weights_s = t.weights_s;
    p->compute_s = t.compute_s;
    p->kv_s = t.kv_s;
    p->attn_s = t.attn_s;
    p->comm_s = t.comm_s;
    p->step_s = t.step_s;
    p->passes = t.cycles;
    p->send_s = t.send_s;
    p->fixed_s = t.fixed_s;
    p->launches = t.launches;
    p->host_s = t.host_s;
    p->gemms = t.gemms;
    p->gemm_fixed_s = t.gemm_fixed_s;
    p->cache_resident = t.cache_resident;
    p->achieved = t.achieved;
    p->other_known = false;
    p->other_step_s = 0;
    p->other_why[0] = '\0';
    if (cfg->both) {
        struct ic_rates o = rates;
        o.estimate = cfg->estimate == IC_EST_IDEAL ? IC_EST_EXPECTED : IC_EST_IDEAL;
        struct ic_time t2;
        struct ic_err oe = {0};
        if (o.estimate == IC_EST_IDEAL || hw->measured.present || hw->achieved.present) {
            if (ic_step_time(&l, hw, &o, &t2, &oe) == IC_OK) {
                p->other_known = true;
                p->other_step_s = t2.step_s;
            } else { /* the entry's figures miss this configuration: why (the
                        * message's first clause, "X has no achieved int8 GEMM
                        * rate") */
                const int n = (int)strcspn(oe.msg, ";");
                snprintf(p->other_why, sizeof p->other_why, "%.*s",
                         n < (int)sizeof p->other_why - 1 ? n : (int)sizeof p->other_why - 1,
                         oe.msg);
            }
        }
    }
    p->bound = t.bound;

    p->latency_s = p->step_s;
    p->tokens_s = (double)B / p->step_s;
    p->tokens_s_chip = p->tokens_s / NT;
    /* no price, no cost (NaN: null in JSON, '-' in a table) */
    p->usd_per_mtok = ic_hw_usd(hw, NT / p->tokens_s) * 1e6;
    p->flops_per_usd = p->flops / p->step_s / ic_hw_usd(hw, NT);

    const struct ic_mem mk = ic_step_mem_of(&l, 0);
    const uint64_t seqs = (B + mk.batch_ways - 1) / mk.batch_ways;
    p->mem_weights_B = mk.weights_bytes;
    p->mem_kv_B = (double)seqs * mk.kv_seq_bytes;
    p->mem_work_B = (double)B / (double)N * mk.work_seq_bytes;
    p->mem_per_chip_B = ic_step_mem_at(&mk, B);
    p->capacity_B = hw->hbm_capacity_B;
    snprintf(p->memory_kind, sizeof p->memory_kind, "%s", ic_hw_memory_kind(hw));
    p->fits = p->mem_per_chip_B <= p->capacity_B;
    p->max_batch = ic_step_max_batch(&mk, p->capacity_B);
    p->fewest_known = false;
    memset(p->fewest_chips, 0, sizeof p->fewest_chips);
    const double C = ic_hw_peak(hw, cfg->compute), W = hw->hbm_bandwidth_B_s;
    const double bw = ic_step_weight_bytes(m, cfg->weights);
    p->b_crit = bw * C / (2.0 * W);
    p->b_crit_moe = m->n_experts ? p->b_crit * (double)m->n_experts / (double)m->top_k : p->b_crit;
    const double check[] = {p->tokens_s, ic_hw_has_price(hw) ? p->usd_per_mtok : 0, p->mem_per_chip_B,
                            p->flops, p->b_crit_moe};
    if (!ic_finite_nonneg(check, sizeof check / sizeof check[0]))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the step time is not a finite positive number for these inputs "
                          "(absurd hardware or model figures?)");
    return IC_OK;
}

enum ic_estimate ic_decode_default_estimate(const struct ic_hw *hw)
{
    return hw->measured.present ? IC_EST_EXPECTED : IC_EST_IDEAL;
}

int ic_decode_for_hw(struct ic_decode_cfg *c, const struct ic_hw *hw, int estimate,
                     struct ic_err *err)
{
    c->estimate = estimate >= 0 ? (enum ic_estimate)estimate : ic_decode_default_estimate(hw);
    if (ic_hw_peak(hw, c->compute) > 0)
        return IC_OK;
    char have[128];
    const char *pick = ic_hw_compute_types(hw, have, sizeof have);
    const char *ct = ic_dtype_traits(c->compute)->name;
    int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0, "--compute %s: %s has no %s compute (it lists: %s)",
                        ct, hw->name, ct, have);
    if (pick)
        ic_err_hint(err, "choose a type it lists, e.g. '--compute %s'", pick);
    return rc;
}

void ic_decode_fewest(const struct ic_model_stats *m, struct ic_point *p)
{
    if (p->fits)
        return;
    for (size_t i = 0; i < sizeof ic_decode_fewest_types / sizeof *ic_decode_fewest_types; i++) {
        struct ic_decode_cfg c = p->cfg;
        c.weights = ic_decode_fewest_types[i];
        p->fewest_chips[i] = 0;
        for (uint64_t n = 1; n <= IC_DECODE_MAX_CHIPS; n *= 2) {
            c.chips = n;
            if (ic_decode_mem_per_chip(m, &c, c.batch) <= p->capacity_B) {
                p->fewest_chips[i] = n;
                break;
            }
        }
    }
    p->fewest_known = true;
}
