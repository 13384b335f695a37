/* ic_decode: decode step-time arithmetic (see the header for the model). */
#include "ic_decode.h"

#include "ic_comm.h"

#include <math.h>
#include <string.h>

static const char *const bound_names[IC_BOUND_COUNT] = {
    [IC_BOUND_WEIGHTS] = "weights",
    [IC_BOUND_KV] = "kv",
    [IC_BOUND_COMPUTE] = "compute",
    [IC_BOUND_COMM] = "comm",
};
_Static_assert(sizeof bound_names / sizeof bound_names[0] == IC_BOUND_COUNT, "names");

static const char *const comm_mode_names[IC_COMM_MODE_COUNT] = {
    [IC_COMM_OVERLAP] = "overlap",
    [IC_COMM_SERIAL] = "serial",
};
_Static_assert(sizeof comm_mode_names / sizeof comm_mode_names[0] == IC_COMM_MODE_COUNT,
               "names");

const char *ic_bound_name(enum ic_bound b) { return bound_names[b]; }
const char *ic_comm_mode_name(enum ic_comm_mode m) { return comm_mode_names[m]; }

static const char *const estimate_names[IC_EST_COUNT] = {
    [IC_EST_IDEAL] = "ideal",
    [IC_EST_EXPECTED] = "expected",
};
_Static_assert(sizeof estimate_names / sizeof estimate_names[0] == IC_EST_COUNT, "names");

const char *ic_estimate_name(enum ic_estimate e) { return estimate_names[e]; }

struct ic_decode_cfg ic_decode_defaults(void)
{
    return (struct ic_decode_cfg){1, 1, 2048, IC_DT_BF16, IC_DT_BF16, IC_DT_BF16,
                                  IC_COMM_OVERLAP, IC_EST_IDEAL, 1.0, 0, 1.0};
}

double ic_decode_gemm_rate(const struct ic_hw_measured *ms, enum ic_dtype t, double b)
{
    const double *r = ms->gemm_by_batch[t];
    if (!(r[0] > 0))
        return ms->gemm_flop_s[t];
    if (b <= 1)
        return r[0];
    double x = log2(b);
    if (x >= IC_HW_GEMM_BATCHES - 1)
        return r[IC_HW_GEMM_BATCHES - 1];
    int i = (int)x;
    double f = x - i;
    return exp(log(r[i]) + f * (log(r[i + 1]) - log(r[i])));
}

/* (a^p + b^p)^(1/p): p = 1 adds, p -> infinity is max(a, b). */
static double pnorm(double a, double b, double p)
{
    double m = fmax(a, b);
    if (m <= 0)
        return 0;
    return m * pow(pow(a / m, p) + pow(b / m, p), 1.0 / p);
}

double ic_decode_experts_touched(uint64_t n_experts, uint64_t top_k, uint64_t tokens)
{
    if (!n_experts)
        return 0;
    double E = (double)n_experts;
    /* each expert is missed by one token with probability 1 - k/E */
    return E * (1.0 - pow(1.0 - (double)top_k / E, (double)tokens));
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Ways the cache splits by head on N chips: the largest divisor of the KV
 * head count that divides N (any N for a model that states totals). */
static uint64_t kv_head_ways(const struct ic_model_stats *m, uint64_t chips)
{
    return m->kv_ways == UINT64_MAX ? chips : gcd_u64(chips, m->kv_ways);
}

/* Parameters the busiest chip holds of group g: the group's units (heads,
 * columns) spread over min(N, units) chips, ceil(units / that) on the
 * busiest; past the unit count the group is replicated. */
double ic_decode_group_per_chip(const struct ic_model_stats *m, enum ic_pgroup g,
                                uint64_t chips)
{
    uint64_t ways = m->group_ways[g];
    if (ways == UINT64_MAX) /* a model stating totals: splits evenly */
        return (double)m->group_params[g] / (double)chips;
    uint64_t k = min_u64(chips, ways);
    return (double)m->group_params[g] * (double)((ways + k - 1) / k) / (double)ways;
}

/* Workspace: fp32 activations of the batch on one chip: residual, normed
 * input, attention output and query (4 * D), the sharded MLP intermediate
 * (2 * F / N: gate and up) and the sharded logits (V / N). Small next to
 * weights and KV, but it grows with the batch. */
static double workspace_per_seq(const struct ic_model_stats *m, uint64_t chips)
{
    double f = (double)(m->group_ways[IC_PG_MLP] == UINT64_MAX ? 0 : m->group_ways[IC_PG_MLP]);
    return 4.0 * (4.0 * (double)m->hidden_size + 2.0 * f / (double)chips +
                  (double)m->vocab_size / (double)chips);
}

static double weights_per_chip_B(const struct ic_model_stats *m, const struct ic_decode_cfg *c)
{
    double p = 0;
    for (int g = 0; g < IC_PG_COUNT; g++)
        p += ic_decode_group_per_chip(m, (enum ic_pgroup)g, c->chips);
    return p * ic_dtype_traits(c->weights)->bits / 8.0;
}

/* What memory per chip needs that does not change with the batch: computed
 * once per point, not once per step of the largest-batch search. */
struct mem_consts {
    double weights_B;     /* weights_per_chip_B */
    double kv_seq_B;      /* one sequence's KV on one chip of a head split */
    double work_seq_B;    /* workspace_per_seq */
    uint64_t bw_ways;     /* ways the batch splits */
};

/* weights_B, hw_ways and kv_values (one sequence's, whole model) as the
 * caller has already computed them for the point */
static struct mem_consts mem_consts_with(const struct ic_model_stats *m,
                                         const struct ic_decode_cfg *c, double weights_B,
                                         uint64_t hw_ways, uint64_t kv_values)
{
    return (struct mem_consts){
        weights_B,
        (double)kv_values / (double)hw_ways *
            ic_dtype_traits(c->kv)->bits / 8.0,
        workspace_per_seq(m, c->chips),
        c->chips / hw_ways,
    };
}

static double mem_at(const struct mem_consts *k, uint64_t chips, uint64_t batch)
{
    uint64_t seqs = (batch + k->bw_ways - 1) / k->bw_ways;
    return k->weights_B + (double)seqs * k->kv_seq_B +
           (double)batch / (double)chips * k->work_seq_B;
}

double ic_decode_mem_per_chip(const struct ic_model_stats *m, const struct ic_decode_cfg *c,
                              uint64_t batch)
{
    struct mem_consts k = mem_consts_with(m, c, weights_per_chip_B(m, c),
                                          kv_head_ways(m, c->chips),
                                          ic_model_kv_values(m, c->context));
    return mem_at(&k, c->chips, batch);
}

/* Largest batch with memory per chip <= capacity (0 if none). Memory grows
 * with the batch, linearly up to the ceil() of the batch split, so the
 * linear estimate is an upper bound and a short search below it is exact. */
static uint64_t max_batch(const struct mem_consts *k, uint64_t chips, double capacity)
{
    if (mem_at(k, chips, 1) > capacity)
        return 0;
    double per_seq = k->kv_seq_B / (double)k->bw_ways + k->work_seq_B / (double)chips;
    double room = capacity - k->weights_B;
    const uint64_t cap = UINT64_C(1) << 40;
    uint64_t hi = per_seq > 0 && room / per_seq < (double)cap ? (uint64_t)(room / per_seq) + 1
                                                             : cap;
    if (mem_at(k, chips, hi) <= capacity)
        return hi; /* only when the cap is reached */
    uint64_t lo = hi > k->bw_ways + 2 ? hi - k->bw_ways - 2 : 1;
    if (mem_at(k, chips, lo) > capacity)
        lo = 1;
    /* invariant: mem(lo) fits, mem(hi) does not */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (mem_at(k, chips, mid) <= capacity)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
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
    const double C = ic_hw_peak(hw, cfg->compute);
    if (C <= 0)
        return ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_COMPUTE].line,
                          hw->locs[IC_HWF_COMPUTE].col,
                          "%s has no %s compute; pick a compute type it lists",
                          hw->name, ic_dtype_traits(cfg->compute)->name);
    if (N > hw->ici_domain_chips && !(hw->dcn_B_s > 0))
        return ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_DCN].line,
                          hw->locs[IC_HWF_DCN].col,
                          "%s has no scale-out network: at most %llu chips (its fabric's domain)",
                          hw->name, (unsigned long long)hw->ici_domain_chips);
    const double W = hw->hbm_bandwidth_B_s;
    const double bw = ic_dtype_traits(cfg->weights)->bits / 8.0; /* bytes per weight */
    const double bkv = ic_dtype_traits(cfg->kv)->bits / 8.0;      /* bytes per KV value */
    /* activations travel in 16 bits unless the math is fp32 */
    const double bact = cfg->compute == IC_DT_FP32 ? 4.0 : 2.0;

    struct ic_point p;
    memset(&p, 0, sizeof p);
    p.cfg = *cfg;
    p.params = m->params_total;
    p.params_active = m->params_active;
    p.kv_bytes_per_token = ic_model_kv_bytes_per_token(m, ic_dtype_traits(cfg->kv)->bits);

    /* Weights read by one chip: every group but the input embedding (a
     * lookup of B rows); of the routed experts only those touched. */
    double touched = ic_decode_experts_touched(m->n_experts, m->top_k, B);
    double frac = m->n_experts ? touched / (double)m->n_experts : 0;
    double read_params = 0, active_params = 0, held_params = 0;
    double per_group[IC_PG_COUNT];
    for (int g = 0; g < IC_PG_COUNT; g++) {
        per_group[g] = ic_decode_group_per_chip(m, (enum ic_pgroup)g, N);
        held_params += per_group[g]; /* in weights_per_chip_B's order */
    }
    for (int g = 0; g < IC_PG_COUNT; g++) {
        if (g == IC_PG_EMBED)
            continue;
        double per = per_group[g];
        read_params += g == IC_PG_EXPERTS ? per * frac : per;
        active_params += g == IC_PG_EXPERTS ? 0 : per;
    }
    if (m->n_experts)
        active_params += per_group[IC_PG_EXPERTS] * (double)m->top_k /
                         (double)m->n_experts;
    else if (m->group_params[IC_PG_EMBED] == 0 && m->group_params[IC_PG_HEAD] == 0)
        /* a model stating totals: its stated active count */
        active_params = (double)m->params_active / (double)N;
    p.experts_touched = touched;
    p.weights_s = read_params * bw / W;
    p.weight_bytes = read_params * bw * (double)N;
    double lin_flop_chip = 2.0 * (double)B * active_params;
    p.compute_s = lin_flop_chip / C;

    /* KV: split by heads, then by batch. */
    uint64_t hw_ways = kv_head_ways(m, N), bw_ways = N / hw_ways;
    uint64_t seqs = (B + bw_ways - 1) / bw_ways; /* on the busiest chip */
    const uint64_t kv_values = ic_model_kv_values(m, S);
    double kv_seq = (double)kv_values * bkv;
    p.kv_split_heads = hw_ways;
    p.kv_split_batch = bw_ways;
    p.kv_bytes = (double)B * kv_seq;
    p.kv_s = (double)seqs * kv_seq / (double)hw_ways / W;
    double attn_chip = (double)seqs * ic_model_attn_flop(m, S) / (double)hw_ways;
    p.attn_s = attn_chip / C;
    /* the model's FLOPs (2 per active parameter per token, plus attention),
     * not counting work that replicated groups repeat on several chips */
    p.flops = 2.0 * (double)B * (double)m->params_active + (double)B * ic_model_attn_flop(m, S);
    const uint64_t heads = m->group_ways[IC_PG_ATTN_HEADS], k = min_u64(N, heads);
    p.uneven_split = heads != UINT64_MAX && (heads % k != 0 || N % k != 0);

    /* Collectives: two all-reduces of the activations per layer (after the
     * attention output and the MLP down projections). */
    if (N > 1) {
        double a = (double)B * (double)m->hidden_size * bact;
        p.comm_bytes = 2.0 * (double)m->n_layers * a;
        p.comm_s = 2.0 * (double)m->n_layers * ic_comm_allreduce_s(hw, N, a);
    }

    double lin, att, fixed = 0;
    if (cfg->estimate == IC_EST_EXPECTED) {
        const struct ic_hw_measured *ms = &hw->measured;
        if (!ms->present)
            return ic_err_set(err, IC_EINVAL, hw->path, 0, 0,
                              "%s has no measured figures (run 'infcalc bench'); only the "
                              "ideal bound is available", hw->name);
        const enum ic_dtype wt = cfg->weights, kt = cfg->kv;
        if (!(ms->gemv_B_s[wt] > 0) || !(ms->gemv_B_s[kt] > 0))
            return ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_MEASURED].line,
                              hw->locs[IC_HWF_MEASURED].col,
                              "%s has no measured rates for %s; measured types are those in "
                              "its gemv_dram section",
                              hw->name, ic_dtype_traits(ms->gemv_B_s[wt] > 0 ? kt : wt)->name);
        /* the weights and the cache this chip holds: in the LLC, or in DRAM */
        bool resident = p.weights_s * W + p.kv_s * W <= ms->llc_B;
        const double *rate = resident ? ms->gemv_cache_B_s : ms->gemv_B_s;
        const double scale = resident ? 1.0 : cfg->bw_scale;
        p.weights_s = read_params * bw / (rate[wt] * scale);
        const double cs = cfg->compute_scale > 0 ? cfg->compute_scale : 1.0;
        p.compute_s = lin_flop_chip / (ic_decode_gemm_rate(ms, wt, (double)B) * cs);
        p.kv_s = (double)seqs * kv_seq / (double)hw_ways / (rate[kt] * scale);
        /* attention at its measured rate; without one, as a matmul whose
         * batch is the query heads sharing a KV head */
        double group = m->n_kv_heads ? (double)m->n_heads / (double)m->n_kv_heads : 1;
        double arate = ms->attn_flop_s[kt] > 0 ? ms->attn_flop_s[kt]
                                               : ic_decode_gemm_rate(ms, kt, group < 1 ? 1 : group);
        p.attn_s = attn_chip / (arate * cs);
        /* the weight type's own exponent where bench fitted one */
        const double pl = ms->transition_p_type[wt] >= 1 ? ms->transition_p_type[wt]
                                                         : ms->transition_p;
        lin = pnorm(p.weights_s, p.compute_s, pl);
        att = pnorm(p.kv_s, p.attn_s, ms->transition_p);
        uint64_t regions = cfg->regions ? cfg->regions : 8 * m->n_layers + 2;
        fixed = (double)regions * ms->fork_join_s;
        p.fixed_s = fixed;
        p.cache_resident = resident;
    } else {
        lin = fmax(p.weights_s, p.compute_s);
        att = fmax(p.kv_s, p.attn_s);
    }
    double local = lin + att + fixed;
    p.step_s = cfg->comm == IC_COMM_OVERLAP ? fmax(local, p.comm_s) : local + p.comm_s;
    if ((cfg->comm == IC_COMM_OVERLAP && p.comm_s > local) ||
        (cfg->comm == IC_COMM_SERIAL && p.comm_s > lin && p.comm_s > att))
        p.bound = IC_BOUND_COMM;
    else if (lin >= att)
        p.bound = p.compute_s > p.weights_s ? IC_BOUND_COMPUTE : IC_BOUND_WEIGHTS;
    else
        p.bound = p.attn_s > p.kv_s ? IC_BOUND_COMPUTE : IC_BOUND_KV;

    p.latency_s = p.step_s;
    p.tokens_s = (double)B / p.step_s;
    p.tokens_s_chip = p.tokens_s / (double)N;
    p.usd_per_mtok = hw->usd_per_chip_hour * (double)N / 3600.0 / p.tokens_s * 1e6;
    p.flops_per_usd = hw->usd_per_chip_hour > 0
                          ? p.flops / p.step_s / (hw->usd_per_chip_hour * (double)N / 3600.0)
                          : 0;

    const struct mem_consts mk = mem_consts_with(m, cfg, held_params * bw, hw_ways, kv_values);
    p.mem_weights_B = mk.weights_B;
    p.mem_kv_B = (double)seqs * kv_seq / (double)hw_ways;
    p.mem_work_B = (double)B / (double)N * mk.work_seq_B;
    p.mem_per_chip_B = mem_at(&mk, N, B);
    p.capacity_B = hw->hbm_capacity_B;
    p.fits = p.mem_per_chip_B <= p.capacity_B;
    p.max_batch = max_batch(&mk, N, p.capacity_B);
    p.b_crit = bw * C / (2.0 * W);
    p.b_crit_moe = m->n_experts ? p.b_crit * (double)m->n_experts / (double)m->top_k : p.b_crit;
    const double check[] = {p.weights_s, p.compute_s, p.kv_s, p.attn_s, p.comm_s, p.step_s,
                            p.tokens_s, p.usd_per_mtok, p.mem_per_chip_B, p.flops, p.b_crit_moe};
    for (size_t i = 0; i < sizeof check / sizeof check[0]; i++)
        if (!isfinite(check[i]) || check[i] < 0 || !(p.step_s > 0))
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "the step time is not a finite positive number for these inputs "
                              "(absurd hardware or model figures?)");
    *out = p;
    return IC_OK;
}
