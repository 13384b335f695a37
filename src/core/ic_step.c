/* ic_step: the load of one step and its time (see the header for the model). */
#include "ic_step.h"

#include "ic_comm.h"

#include <math.h>
#include <string.h>

static const char *const bound_names[IC_BOUND_COUNT] = {
    [IC_BOUND_WEIGHTS] = "weights",
    [IC_BOUND_KV] = "kv",
    [IC_BOUND_COMPUTE] = "compute",
    [IC_BOUND_COMM] = "comm",
    [IC_BOUND_FIXED] = "fixed",
};
_Static_assert(sizeof bound_names / sizeof bound_names[0] == IC_BOUND_COUNT, "names");

static const char *const comm_mode_names[IC_COMM_MODE_COUNT] = {
    [IC_COMM_OVERLAP] = "overlap",
    [IC_COMM_SERIAL] = "serial",
};
_Static_assert(sizeof comm_mode_names / sizeof comm_mode_names[0] == IC_COMM_MODE_COUNT,
               "names");

static const char *const estimate_names[IC_EST_COUNT] = {
    [IC_EST_IDEAL] = "ideal",
    [IC_EST_EXPECTED] = "expected",
};
_Static_assert(sizeof estimate_names / sizeof estimate_names[0] == IC_EST_COUNT, "names");

static const char *const attn_names[IC_ATTN_COUNT] = {
    [IC_ATTN_FLASH] = "flash",
    [IC_ATTN_UNFUSED] = "unfused",
};
_Static_assert(sizeof attn_names / sizeof attn_names[0] == IC_ATTN_COUNT, "names");

const char *ic_bound_name(enum ic_bound b) { return bound_names[b]; }
const char *ic_comm_mode_name(enum ic_comm_mode m) { return comm_mode_names[m]; }
const char *ic_estimate_name(enum ic_estimate e) { return estimate_names[e]; }
const char *ic_attn_impl_name(enum ic_attn_impl a) { return attn_names[a]; }

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

static inline double group_per_chip(const struct ic_model_stats *m, enum ic_pgroup g,
                                     uint64_t chips)
{
    uint64_t ways = m->group_ways[g];
    if (ways == UINT64_MAX) /* a model stating totals: splits evenly */
        return (double)m->group_params[g] / (double)chips;
    uint64_t k = min_u64(chips, ways);
    return (double)m->group_params[g] * (double)((ways + k - 1) / k) / (double)ways;
}

double ic_step_group_per_chip(const struct ic_model_stats *m, enum ic_pgroup g, uint64_t chips)
{
    return group_per_chip(m, g, chips);
}

uint64_t ic_step_kv_head_ways(const struct ic_model_stats *m, uint64_t chips)
{
    return m->kv_ways == UINT64_MAX ? chips : gcd_u64(chips, m->kv_ways);
}

/* The ways the sequences' cache splits among the N / hw chips sharing a
 * KV head: all of them, or one where each keeps a copy. */
static uint64_t cache_batch_ways(uint64_t N, uint64_t hw, bool kv_copy)
{
    return kv_copy ? 1 : N / hw;
}

/* What a chip holds of one sequence's keys and values: 1 / this. Split,
 * its head group's (hw ways). Copied, the cache of the KV heads whose k/v
 * projections it computes, ceil(H / N) of the H heads as the weights
 * split (one past H chips): H / ceil(H / N), which is hw where H or N
 * divides the other, and more than hw where neither does (Llama-2-13B's
 * 40 heads on 16 chips: 3 heads a chip, not the 5 of an 8-way head
 * group). */
static double cache_head_div(const struct ic_model_stats *m, uint64_t N, uint64_t hw,
                             bool kv_copy)
{
    const uint64_t H = m->kv_ways;
    if (!kv_copy || H == UINT64_MAX || H % N == 0 || N % H == 0)
        return (double)hw;
    return (double)H / (double)((H + N - 1) / N);
}

/* What a chip holding a sequence holds of its linear-attention state: the
 * state over the chips sharing the sequence (N / batch ways), whose own
 * heads (Mamba's, a Gated DeltaNet's) split over every one of them as
 * tensor parallelism splits them (vLLM divides them by the
 * tensor-parallel size): 1 / N copied, 1 / hw split (the same bytes a
 * chip over a batch the ways divide). */
static double state_chip_share(uint64_t N, uint64_t hw, bool kv_copy)
{
    return (double)cache_batch_ways(N, hw, kv_copy) / (double)N;
}

/* One sequence's cache on a chip holding it, from its bytes of keys and
 * values (kv_B, over cache_head_div) and of state (state_B, by its
 * share). */
static double seq_chip_bytes(const struct ic_model_stats *m, uint64_t N, uint64_t hw,
                             bool kv_copy, double kv_B, double state_B)
{
    return kv_B / cache_head_div(m, N, hw, kv_copy) + state_B * state_chip_share(N, hw, kv_copy);
}

double ic_step_seq_chip_bytes(const struct ic_model_stats *m, uint64_t chips, bool kv_copy,
                              double seq_B)
{
    const double state = fmin(ic_model_state_bytes(m), seq_B);
    return seq_chip_bytes(m, chips, ic_step_kv_head_ways(m, chips), kv_copy, seq_B - state,
                          state);
}

double ic_step_state_chip_share(const struct ic_model_stats *m, uint64_t chips, bool kv_copy)
{
    return state_chip_share(chips, ic_step_kv_head_ways(m, chips), kv_copy);
}

double ic_step_experts_touched(uint64_t n_experts, uint64_t top_k, double tokens)
{
    if (!n_experts)
        return 0;
    double E = (double)n_experts;
    /* each expert is missed by one token with probability 1 - k/E */
    return E * (1.0 - pow(1.0 - (double)top_k / E, tokens));
}

/* A pipeline stage's share of n layers of one kind, the stage holding f of
 * the model's layers: rounded up (the busiest stage), n itself at f = 1. */
static double stage_share(uint64_t n, double f)
{
    return f >= 1 ? (double)n : ceil((double)n * f - 1e-9);
}

/* bytes an activation value travels in: 16 bits unless the math is fp32 */
static double act_bytes(enum ic_dtype compute) { return compute == IC_DT_FP32 ? 4.0 : 2.0; }

static double bytes_per(enum ic_dtype t) { return ic_dtype_traits(t)->bits / 8.0; }

double ic_step_weight_bytes(const struct ic_model_stats *m, enum ic_dtype t)
{
    /* a quantized checkpoint's scales and zeros ride with its own type */
    return bytes_per(t) + (t == m->quant_type ? m->quant_extra_bytes : 0);
}

enum ic_dtype ic_step_group_type(const struct ic_model_stats *m, int g, enum ic_dtype weights)
{
    return m->keep_groups >> g & 1 ? m->keep_type : weights;
}

double ic_step_kv_token_bytes(const struct ic_model_stats *m, uint64_t context, enum ic_dtype kv)
{
    return (double)ic_model_kv_token_layers(m, context) *
           ic_model_kv_layer_token_bytes(m, bytes_per(kv));
}

double ic_step_kv_seq_bytes(const struct ic_model_stats *m, uint64_t context, enum ic_dtype kv)
{
    /* a sequence's linear-attention state exists from its first token */
    return ic_step_kv_token_bytes(m, context, kv) + (context ? ic_model_state_bytes(m) : 0);
}

uint64_t ic_step_paged_block(const struct ic_model_stats *m, enum ic_dtype kv, uint64_t block,
                             uint64_t chips, bool kv_copy)
{
    const double tok = ic_model_kv_layer_token_bytes(m, bytes_per(kv));
    if (!m->n_state_layers || !(tok > 0) || !block)
        return block;
    /* a chip's page: its share of a layer's state over its share of a
     * token's keys and values in one layer (the same ratio as the whole
     * model's where the two split alike) */
    const uint64_t hw = ic_step_kv_head_ways(m, chips);
    const double need = ceil(m->state_bytes_per_layer * state_chip_share(chips, hw, kv_copy) /
                             (tok / cache_head_div(m, chips, hw, kv_copy)) - 1e-9);
    const double b = ceil(need / (double)block) * (double)block;
    return b > (double)block ? (uint64_t)fmin(b, 1e9) : block;
}

double ic_step_kv_read_seq_bytes(const struct ic_model_stats *m, uint64_t context,
                                 uint64_t tokens, enum ic_dtype kv)
{
    double read = ic_step_kv_seq_bytes(m, context, kv);
    if (m->n_window_layers)
        /* a window layer reads from its first new token's window (or
         * chunk) start: past what it holds after a step of several */
        read += (double)m->n_window_layers *
                ((double)ic_model_window_read_tokens(m, context, tokens) -
                 (double)ic_model_window_tokens(m, context)) *
                ic_model_kv_layer_token_bytes(m, bytes_per(kv));
    if (m->sparse_topk) {
        /* all but the latents no new token picked (DeepSeek-V3.2 has no
         * window layers) */
        const double unpicked =
            (double)context - fmin((double)context, (double)tokens * (double)m->sparse_topk);
        read -= (double)m->n_global_layers * unpicked * (double)m->kv_values_per_layer_token *
                bytes_per(kv);
    }
    return read;
}

/* Workspace: fp32 activations of one sequence on one chip: residual, normed
 * input, attention output and query (4 * D), the sharded MLP intermediate
 * (2 * F / N: gate and up) and the sharded logits (V / N). Small next to
 * weights and KV, but it grows with the batch. */
static double workspace_per_seq(const struct ic_model_stats *m, uint64_t chips)
{
    double f = (double)(m->group_ways[IC_PG_MLP] == UINT64_MAX ? 0 : m->group_ways[IC_PG_MLP]);
    return 4.0 * (4.0 * (double)m->hidden_size + 2.0 * f / (double)chips +
                  (double)m->vocab_size / (double)chips);
}

/* What a layout makes of a model, whatever the step: each group's
 * parameters on the busiest chip (the routed experts' share of ep groups),
 * their sum, the cache's head ways, query heads per KV head share, whether
 * the query heads split unevenly. */
struct split {
    double per_group[IC_PG_COUNT];
    double work_seq;
    uint64_t hw, q;
    bool by_heads, uneven;
};

static void split_compute(const struct ic_model_stats *m, uint64_t N, uint64_t ep,
                          struct split *sp)
{
    for (int g = 0; g < IC_PG_COUNT; g++) {
        sp->per_group[g] = group_per_chip(m, (enum ic_pgroup)g, N);
        if (g == IC_PG_EXPERTS)
            sp->per_group[g] /= (double)ep;
    }
    sp->hw = ic_step_kv_head_ways(m, N);
    sp->work_seq = workspace_per_seq(m, N);
    sp->by_heads = m->kv_ways != UINT64_MAX && m->n_heads > 0;
    sp->q = sp->by_heads ? m->n_heads / sp->hw : 1;
    const uint64_t heads = m->group_ways[IC_PG_ATTN_HEADS], kh = min_u64(N, heads);
    sp->uneven = heads != UINT64_MAX && (heads % kh != 0 || N % kh != 0);
}

/* The split is the same for every point of a sweep, and for every point of
 * one model and layout in any order: each thread keeps the last SPLIT_SLOTS
 * computed, a slot chosen by the model's address and the layout, with the
 * model they were computed for, and reuses one when the next step has the
 * same (compared byte for byte, so a model changed in place, or another at
 * the same address, is never served a stale split). */
enum { SPLIT_SLOTS = 32 };
static _Thread_local struct split_slot {
    bool valid;
    uint64_t N, ep;
    struct ic_model_stats m;
    struct split sp;
} split_memo[SPLIT_SLOTS];

static const struct split *split_of(const struct ic_model_stats *m, uint64_t N, uint64_t ep)
{
    uint64_t h = ((uint64_t)(uintptr_t)m >> 4) * UINT64_C(0x9E3779B97F4A7C15) ^
                 N * UINT64_C(0xC2B2AE3D27D4EB4F) ^ ep;
    struct split_slot *x = &split_memo[(h >> 40) % SPLIT_SLOTS];
    if (!x->valid || x->N != N || x->ep != ep || memcmp(&x->m, m, sizeof *m) != 0) {
        split_compute(m, N, ep, &x->sp);
        memcpy(&x->m, m, sizeof *m);
        x->N = N;
        x->ep = ep;
        x->valid = true;
    }
    return &x->sp;
}

static int check_step(const struct ic_step *s, struct ic_err *err)
{
    const uint64_t N = s->layout.chips, ep = s->layout.ep;
    const uint64_t P = s->layout.pp ? s->layout.pp : 1;
    if (!N || !ep)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "%s must be at least 1",
                          !N ? "chips" : "ep (expert-parallel groups)");
    if (N > IC_DECODE_MAX_CHIPS || ep > IC_DECODE_MAX_CHIPS / N ||
        P > IC_DECODE_MAX_CHIPS / (N * ep)) {
        const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "%s is too large (at most 2^20 chips in all)",
                                  ep > 1 ? "chips x ep x pp" : "chips x pp");
        ic_err_hint(err, "fewer --chips%s or --pp: their product at most 1048576",
                    ep > 1 ? ", --ep" : "");
        return rc;
    }
    if (s->layout.micro > IC_DECODE_MAX_BATCH)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "%llu micro-batches; expected at most 2^24",
                          (unsigned long long)s->layout.micro);
    if (s->n_kinds < 1 || s->n_kinds > IC_STEP_MAX_KINDS)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "a step holds 1 or 2 kinds of sequences, not %u", s->n_kinds);
    for (unsigned i = 0; i < s->n_kinds; i++) {
        const struct ic_seqs *q = &s->kind[i];
        if (!q->tokens || q->logits > q->tokens)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "a sequence brings %llu new tokens with %llu logits; expected "
                              "at least 1 token and no more logits than tokens",
                              (unsigned long long)q->tokens, (unsigned long long)q->logits);
        if (q->tokens > IC_MODEL_MAX_CONTEXT || q->context > IC_MODEL_MAX_CONTEXT - q->tokens) {
            const int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                      "context + new tokens is beyond 2^26 tokens");
            ic_err_hint(err, "a shorter --context: it and the tokens a step adds (a "
                             "speculative step's draft, a chunk) at most %llu",
                        (unsigned long long)IC_MODEL_MAX_CONTEXT);
            return rc;
        }
        if (q->count > IC_DECODE_MAX_BATCH)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                              "%llu sequences in one step; expected at most 2^24",
                              (unsigned long long)q->count);
    }
    return IC_OK;
}

int ic_step_load(const struct ic_model_stats *m, const struct ic_step *s, struct ic_load *out,
                 struct ic_err *err)
{
    int rc = check_step(s, err);
    if (rc)
        return rc;
    const uint64_t N = s->layout.chips, ep = s->layout.ep;
    const uint64_t P = s->layout.pp ? s->layout.pp : 1;
    /* at most one micro-batch a sequence: an empty one is no pass */
    uint64_t n_seqs = 0, M = s->layout.micro ? s->layout.micro : 1;
    for (unsigned i = 0; i < s->n_kinds; i++)
        n_seqs += s->kind[i].count;
    if (n_seqs && M > n_seqs)
        M = n_seqs;
    if (P > 1 && P > m->n_layers) {
        rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                        "%llu pipeline stages for %llu layers; expected at most one stage "
                        "per layer", (unsigned long long)P, (unsigned long long)m->n_layers);
        ic_err_hint(err, "--pp %llu at most for this model", (unsigned long long)m->n_layers);
        return rc;
    }
    /* the busiest stage's layers, and its share f of every per-layer figure */
    const uint64_t Lps = P > 1 ? (m->n_layers + P - 1) / P : m->n_layers;
    const double f = P > 1 ? (double)Lps / (double)m->n_layers : 1.0;
    const double bkv = bytes_per(s->kv), bact = act_bytes(s->compute);
    /* each group's bytes a parameter: the step's weight type, or the type
     * the checkpoint keeps it at */
    enum ic_dtype gt[IC_PG_COUNT];
    double bw[IC_PG_COUNT];
    for (int g = 0; g < IC_PG_COUNT; g++) {
        gt[g] = ic_step_group_type(m, g, s->weights);
        bw[g] = ic_step_weight_bytes(m, gt[g]);
    }
    /* the MoE routers under weights narrower than 16 bits, read at 16
     * (ic_model_router_type): their share u16 of the replicated group at
     * b16 a parameter, of type t16, and bw[] the group's mean */
    const enum ic_dtype rt = ic_model_router_type(m, s->weights);
    const enum ic_dtype t16 = rt != IC_DT_COUNT ? rt : gt[IC_PG_REPLICATED];
    const uint64_t rp = m->group_params[IC_PG_REPLICATED];
    const double u16 =
        rp && rt != IC_DT_COUNT ? (double)(m->routers < rp ? m->routers : rp) / (double)rp : 0;
    const double b16 = ic_step_weight_bytes(m, t16);
    bw[IC_PG_REPLICATED] = (1 - u16) * bw[IC_PG_REPLICATED] + u16 * b16;
    memset(out, 0, sizeof *out); /* written in place: the checks are behind us */
    out->weights = s->weights;
    out->kv = s->kv;
    out->compute = s->compute;
    out->chips = N;
    out->ep = ep;
    out->pp = P;
    out->micro = M;

    /* the whole step's tokens, and one pass's (ceil(count / M) of each kind) */
    double tokens = 0, logit_tokens = 0, pass_tokens = 0;
    for (unsigned i = 0; i < s->n_kinds; i++) {
        const double cm = (double)((s->kind[i].count + M - 1) / M);
        tokens += (double)s->kind[i].count * (double)s->kind[i].tokens;
        logit_tokens += (double)s->kind[i].count * (double)s->kind[i].logits;
        pass_tokens += cm * (double)s->kind[i].tokens;
    }
    out->tokens = pass_tokens;

    /* Weights read by one chip: every group but the input embedding (a
     * lookup); of the routed experts (E / ep on this group) only those the
     * tokens of all groups touch; the LM head when some token needs logits. */
    const double touched =
        ic_step_experts_touched(m->n_experts, m->top_k, pass_tokens * (double)ep);
    const double frac = m->n_experts ? touched / (double)m->n_experts : 0;
    const struct split *sp = split_of(m, N, ep);
    const double *per_group = sp->per_group;
    double read = 0, active = 0;
    for (int g = 0; g < IC_PG_COUNT; g++) {
        if (g == IC_PG_EMBED || (g == IC_PG_HEAD && !(logit_tokens > 0)))
            continue;
        const double share = g == IC_PG_HEAD ? 1.0 : f; /* the last stage holds the head */
        const double rg = (g == IC_PG_EXPERTS ? per_group[g] * frac : per_group[g]) * share;
        read += rg;
        if (g == IC_PG_REPLICATED && u16 > 0) {
            out->weight_bytes_at[gt[g]] += rg * (bw[g] - u16 * b16);
            out->weight_bytes_at[t16] += rg * u16 * b16;
        } else {
            out->weight_bytes_at[gt[g]] += rg * bw[g];
        }
        active += g == IC_PG_EXPERTS ? 0 : per_group[g] * share;
    }
    if (m->n_experts) /* a token's k experts; a group's hold ep / E of each */
        active += f * per_group[IC_PG_EXPERTS] * (double)(m->top_k * ep) / (double)m->n_experts;
    else if (m->group_params[IC_PG_EMBED] == 0 && m->group_params[IC_PG_HEAD] == 0)
        /* a model stating totals: its stated active count */
        active = f * (double)m->params_active / (double)N;
    const double head = logit_tokens > 0 ? per_group[IC_PG_HEAD] : 0;
    out->experts_touched = touched;
    out->weight_params = read;
    for (int t = 0; t < IC_DT_COUNT; t++)
        out->weight_bytes += out->weight_bytes_at[t];
    /* without a pipeline every chip holds all of it; with one, the stages
     * hold their layers and the first the embedding, the last the head */
    double all = 0;
    for (int g = 0; g < IC_PG_COUNT; g++)
        all += per_group[g] * bw[g];
    const double embed = per_group[IC_PG_EMBED] * bw[IC_PG_EMBED],
                 lmh = per_group[IC_PG_HEAD] * bw[IC_PG_HEAD];
    out->weights_held_bytes = P > 1 ? f * (all - embed - lmh) + fmax(embed, lmh) : all;
    out->work_seq_bytes = sp->work_seq;

    /* The cache: by KV heads, then by sequence (gb ways: g, or 1 where
     * each chip keeps its heads' copy of every sequence); attention FLOPs
     * by (sequence, query head) pairs, g chips sharing each KV head. */
    const uint64_t hw = sp->hw, g = N / hw, q = sp->q,
                   gb = cache_batch_ways(N, hw, s->layout.kv_copy);
    const bool by_heads = sp->by_heads;
    const double layers = (double)(m->n_global_layers + m->n_window_layers);
    /* bytes one new token writes to the busiest chip's stage */
    const double per_token_kv_B = f * layers * ic_model_kv_layer_token_bytes(m, bkv);
    out->kv_split_heads = hw;
    out->kv_split_batch = gb;
    out->kv_head_div = cache_head_div(m, N, hw, s->layout.kv_copy);
    double flops_lin = 0, flops_attn = 0;
    for (unsigned i = 0; i < s->n_kinds; i++) {
        const struct ic_seqs *k = &s->kind[i];
        if (!k->count)
            continue;
        const double T = (double)k->tokens, cnt = (double)k->count;
        const uint64_t cm = (k->count + M - 1) / M; /* this kind's sequences in one pass */
        const uint64_t seqs = (cm + gb - 1) / gb;    /* whose cache the busiest chip reads */
        /* the busiest chip's share of the attention work, in sequences (of
         * its stage's layers) */
        const double share = f * (by_heads ? (double)((cm * q + g - 1) / g) / (double)m->n_heads
                                           : (double)cm / (double)N);
        const double kv_seq = ic_step_kv_seq_bytes(m, k->context + k->tokens, s->kv);
        const double kv_read = ic_step_kv_read_seq_bytes(m, k->context + k->tokens, k->tokens,
                                                         s->kv);
        const double state_seq = ic_model_state_bytes(m); /* in both (context + tokens >= 1) */
        out->kv_seq_chip_bytes[i] =
            seq_chip_bytes(m, N, hw, s->layout.kv_copy, f * (kv_seq - state_seq), f * state_seq);
        out->kv_read_bytes += (double)seqs * seq_chip_bytes(m, N, hw, s->layout.kv_copy,
                                                            f * (kv_read - state_seq),
                                                            f * state_seq);
        if (k->phase == IC_PHASE_DECODE)
            out->kv_attn_read_bytes += (double)seqs * seq_chip_bytes(m, N, hw, s->layout.kv_copy,
                                                                     f * (kv_read - state_seq), 0);
        /* the new tokens' keys and values, and the state written back: once
         * after a prefill chunk, after each of a decode kind's tokens (a
         * speculative verify keeps every draft token's state, as vLLM's
         * speculative state slots do, to roll back to the last accepted) */
        const double state_B = state_seq * (k->phase == IC_PHASE_DECODE ? T : 1.0);
        out->kv_write_bytes +=
            (double)seqs * seq_chip_bytes(m, N, hw, s->layout.kv_copy, T * per_token_kv_B,
                                          f * state_B);
        out->kv_read_all_bytes += cnt * kv_read;
        out->kv_write_all_bytes += cnt * (T * per_token_kv_B / f + state_B);
        /* MLA: decode absorbed; a prefill span plain, its cached prefix
         * decompressed, unless absorbing costs fewer FLOPs (a short chunk
         * after a long prefix) */
        const bool absorbed = k->phase == IC_PHASE_DECODE ||
                              ic_model_mla_absorbs(m, k->context, k->tokens);
        const double fl_decompress = absorbed ? 0 : ic_model_mla_decompress_flop(m, k->context);
        /* DeepSeek Sparse Attention's indexer, in either form, and the
         * linear-attention layers' state updates: FLOPs that score no
         * (query head, context token) pair */
        const double fl_index = ic_model_index_flop_span(m, k->context, k->tokens) +
                                ic_model_state_flop_span(m, k->tokens);
        double fl;
        if (s->attn == IC_ATTN_UNFUSED) {
            /* the whole T x (context + T) products, masked afterwards, and
             * four passes over the scores of every query head */
            const double ctx = (double)(k->context + k->tokens);
            fl = (double)(absorbed ? m->attn_flop_per_ctx_token_layer
                                  : m->prefill_attn_flop_per_ctx_token_layer) *
                     layers * T * ctx +
                 fl_index;
            const double scores = 4.0 * T * ctx * (double)m->n_heads * bact * layers;
            out->scores_bytes += share * scores;
            out->scores_all_bytes += cnt * scores;
        } else {
            fl = ic_model_attn_flop_span(m, k->context, k->tokens, absorbed);
        }
        fl += fl_decompress;
        out->attn_flops[k->phase] += share * fl;
        /* the scores: the attention's FLOPs (not the indexer's) over one
         * (query head, context token) pair's */
        const double per_score = (double)(absorbed ? m->attn_flop_per_ctx_token_layer
                                                   : m->prefill_attn_flop_per_ctx_token_layer) /
                                 (double)(m->n_heads ? m->n_heads : 1);
        if (per_score > 0)
            out->attn_scores[k->phase] += share * (fl - fl_index - fl_decompress) / per_score;
        flops_attn += cnt * fl;
        /* linear: every active parameter per new token, the head per logit */
        out->lin_flops[k->phase] +=
            2.0 * (double)cm * T * active - 2.0 * (double)cm * (T - (double)k->logits) * head;
        const double head_model = (double)m->group_params[IC_PG_HEAD];
        flops_lin += 2.0 * cnt * T * (double)m->params_active -
                     2.0 * cnt * (T - (double)k->logits) * head_model;
    }
    out->flops_linear = flops_lin;
    out->flops_attn = flops_attn;
    out->flops = flops_lin + flops_attn;
    out->uneven_split = sp->uneven;

    /* Collectives: two all-reduces of the activations per layer (after the
     * attention output and the MLP down projections; one a block where the
     * model says how many, Nemotron-H's); with EP, per MoE layer
     * each token's D-vector goes to its k experts, (ep-1)/ep of them in other
     * groups, and comes back, the N chips of a group sharing the sending. */
    if (N > 1) {
        out->allreduce_bytes = pass_tokens * (double)m->hidden_size * bact;
        out->allreduces = m->allreduce_blocks
                              ? (uint64_t)stage_share(m->allreduce_blocks, f)
                              : 2 * Lps;
    }
    /* the busiest stage's MoE layers: its all-to-alls and its extra kernels */
    const uint64_t moe_stage = (uint64_t)stage_share(m->n_moe_layers, f);
    if (ep > 1 && m->n_experts) {
        out->a2a_bytes = 2.0 * pass_tokens * (double)m->top_k * (double)(ep - 1) / (double)ep *
                      (double)m->hidden_size * bact / (double)N;
        out->a2as = moe_stage;
    }
    if (P > 1) /* a pass's activations, split over the stage's N chips */
        out->send_bytes = pass_tokens * (double)m->hidden_size * bact / (double)N;
    out->attn_group = m->n_kv_heads ? (double)m->n_heads / (double)m->n_kv_heads : 1;
    out->row_width = (double)m->hidden_size;
    out->layers = Lps;
    out->extra_kernels = ic_step_extra_kernels(m, (double)moe_stage, (double)Lps);
    out->gemms = ic_step_gemm_kernels(m, (double)moe_stage, (double)Lps);
    return IC_OK;
}

/* What each kind of layer adds to a dense GQA layer's count, in kernels or
 * in GEMM kernels (ic_step.h gives both tables' sources); mlpless: what a
 * mixer block without an MLP of its own takes away */
struct layer_adds {
    double moe, shared, shared_gate, mla, linear, gated, mlpless;
};

static double layer_extra(const struct ic_model_stats *m, double moe_layers, double layers,
                          const struct layer_adds *c)
{
    const double moe = c->moe + (m->group_params[IC_PG_SHARED] > 0 ? c->shared : 0) +
                       (m->shared_gate ? c->shared_gate : 0);
    /* the stage's share of the linear and gated layers, as its MoE layers */
    const double f = m->n_layers ? layers / (double)m->n_layers : 0;
    const double linear = m->state_mamba ? 0 : stage_share(m->n_state_layers, f);
    const double gated = m->attn_gate ? stage_share(m->n_global_layers, f) : 0;
    /* a model of separate mixer and MLP blocks (Nemotron-H) runs its MLPs
     * in its MLP blocks, the stage its share; its mixers run none (where
     * the MLP blocks outnumber the mixers, the extra ones add theirs) */
    const double mlps = m->mlp_apart ? stage_share(m->n_mlp_blocks, f) : layers;
    return (m->n_experts ? moe_layers * moe : 0) + (m->mla ? c->mla * layers : 0) +
           c->linear * linear + c->gated * gated - c->mlpless * (layers - mlps);
}

double ic_step_extra_kernels(const struct ic_model_stats *m, double moe_layers, double layers)
{
    static const struct layer_adds k = {
        IC_STEP_MOE_KERNELS,    IC_STEP_SHARED_KERNELS, IC_STEP_SHARED_GATE_KERNELS,
        IC_STEP_MLA_KERNELS,    IC_STEP_LINEAR_KERNELS, IC_STEP_GATE_KERNELS,
        IC_STEP_MLP_KERNELS};
    return layer_extra(m, moe_layers, layers, &k);
}

double ic_step_gemm_kernels(const struct ic_model_stats *m, double moe_layers, double layers)
{
    static const struct layer_adds g = {IC_STEP_MOE_GEMMS,         IC_STEP_SHARED_GEMMS,
                                        IC_STEP_SHARED_GATE_GEMMS, IC_STEP_MLA_GEMMS,
                                        IC_STEP_LINEAR_GEMMS,      0,
                                        IC_STEP_MLP_GEMMS};
    /* a mixer's two and an MLP's two a layer, the head one a step */
    return (IC_STEP_MIXER_GEMMS + IC_STEP_MLP_GEMMS) * layers +
           layer_extra(m, moe_layers, layers, &g) + 1;
}

struct ic_rates ic_rates_ideal(void)
{
    return (struct ic_rates){IC_EST_IDEAL, IC_COMM_OVERLAP, {1.0, 1.0}, 1.0, 1.0, 0, NULL, 0};
}

double ic_step_gemm_rate(const struct ic_hw_measured *ms, enum ic_dtype t, double b)
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

double ic_step_matmul_compute_s(const struct ic_hw_measured *ms, enum ic_dtype t, double b,
                                 double flops)
{
    if (!(flops > 0))
        return 0;
    if (b < 1)
        b = 1;
    const double at_b = flops / ic_step_gemm_rate(ms, t, b);      /* in cache, batch b */
    const double at_1 = flops / b / ic_step_gemm_rate(ms, t, 1);  /* its weights read once */
    return at_b > at_1 ? at_b - at_1 : 0;
}

/* max(a, b) for the terms below, which are checked finite afterwards (libm's
 * fmax is an out-of-line call for its NaN rule) */
static inline double max2(double a, double b) { return a > b ? a : b; }

double ic_step_pnorm(double a, double b, double p)
{
    double m = max2(a, b);
    if (m <= 0)
        return 0;
    return m * pow(pow(a / m, p) + pow(b / m, p), 1.0 / p);
}

/* The weights' read time: each storage type's bytes at its own rate */
static double weights_time(const struct ic_load *l, const double rate[IC_DT_COUNT])
{
    double s = 0;
    for (int w = 0; w < IC_DT_COUNT; w++)
        if (l->weight_bytes_at[w] > 0)
            s += l->weight_bytes_at[w] / rate[w];
    return s;
}

int ic_step_time(const struct ic_load *l, const struct ic_hw *hw, const struct ic_rates *r,
                 struct ic_time *out, struct ic_err *err)
{
    const double C = ic_hw_peak(hw, l->compute);
    if (C <= 0) {
        char have[128];
        const char *pick = ic_hw_compute_types(hw, have, sizeof have);
        const int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_COMPUTE].line,
                                  hw->locs[IC_HWF_COMPUTE].col,
                                  "%s has no %s compute (it lists: %s)", hw->name,
                                  ic_dtype_traits(l->compute)->name, have);
        if (pick)
            ic_err_hint(err, "choose a type it lists, e.g. '--compute %s'", pick);
        return rc;
    }
    if (l->chips * l->ep * (l->pp ? l->pp : 1) > hw->ici_domain_chips && !(hw->dcn_B_s > 0)) {
        const int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_DCN].line,
                                  hw->locs[IC_HWF_DCN].col,
                                  "%s has no scale-out network: at most %llu chip%s (its "
                                  "fabric's domain)",
                                  hw->name, (unsigned long long)hw->ici_domain_chips,
                                  hw->ici_domain_chips == 1 ? "" : "s");
        ic_err_hint(err, "use at most that many chips (x --pp, x experts' groups), or a chip "
                         "whose entry has a scale_out section");
        return rc;
    }
    const double W = hw->hbm_bandwidth_B_s;
    const double kv_bytes = l->kv_read_bytes + l->kv_write_bytes + l->scores_bytes;
    struct ic_time *const t = out; /* written in place (undefined on failure) */
    memset(t, 0, sizeof *t);
    if (l->allreduces)
        t->comm_s = (double)l->allreduces * ic_comm_allreduce_s(hw, l->chips, l->allreduce_bytes);
    if (l->a2as)
        t->a2a_s = (double)l->a2as * ic_comm_alltoall_s(hw, l->chips * l->ep, l->chips, l->a2a_bytes);

    double lin, att, fixed = 0;
    bool serial_comm = r->comm == IC_COMM_SERIAL;
    if (ic_step_achieved(hw, r->estimate)) {
        /* An accelerator at the rates good kernels achieve on it (published
         * microbenchmarks): the ideal rule over achieved bandwidth and GEMM
         * rates (the linear pair joined softly where the entry says how),
         * a launch floor per kernel, and the all-reduces at their
         * measured latency and bus bandwidth, after the kernels (engines
         * run the tensor-parallel all-reduce between the layers' kernels,
         * not beside them). */
        const struct ic_hw_achieved *a = &hw->achieved;
        t->achieved = true;
        const double ca = ic_step_achieved_gemm(hw, l->compute);
        if (!(ca > 0)) {
            const int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_A_GEMM].line,
                                      hw->locs[IC_HWF_A_GEMM].col,
                                      "%s has no achieved %s GEMM rate; the expected time needs "
                                      "one for the compute type",
                                      hw->name, ic_dtype_traits(l->compute)->name);
            ic_err_hint(err, "--estimate ideal, or a compute type of the entry's achieved gemm "
                             "('infcalc show hw %s' lists them)", hw->name);
            return rc;
        }
        const double wa = a->hbm_read_B_s * (a->gemv_eff > 0 ? a->gemv_eff : 1.0);
        /* the weights' GEMMs: at one row (a step of one token) a skinny
         * kernel's figures where the entry has them, else the GEMV's */
        const bool skinny = l->tokens <= 1 && a->skinny_eff > 0;
        const double ww = skinny ? a->hbm_read_B_s * a->skinny_eff : wa;
        const double gfix = skinny ? a->skinny_fixed_s : a->gemv_fixed_s;
        const double cs = r->compute_scale > 0 ? r->compute_scale : 1.0;
        const double bs = r->bw_scale > 0 ? r->bw_scale : 1.0;
        /* the engine's profile (1, graphs, overlapped without one): its
         * weight GEMV and decode attention against the achieved GEMV
         * bandwidth, its launches, its host time between steps */
        const struct ic_engine *en = r->engine;
        const double ae = ic_engine_attn_eff(en, l->kv);
        const bool graphs = !en || en->graphs;
        double wrate[IC_DT_COUNT]; /* each storage type at the engine's GEMV efficiency */
        for (int w = 0; w < IC_DT_COUNT; w++)
            wrate[w] = ww * bs * ic_engine_gemv_eff(en, (enum ic_dtype)w);
        /* each GEMM kernel's fixed time beside its bytes, where the entry's
         * GEMV table was fitted as fixed + bytes / bandwidth */
        t->gemms = gfix > 0 ? l->gemms : 0;
        t->gemm_fixed_s = t->gemms * gfix;
        t->weights_s = weights_time(l, wrate) + t->gemm_fixed_s;
        t->compute_s = (l->lin_flops[IC_PHASE_DECODE] + l->lin_flops[IC_PHASE_PREFILL]) / (ca * cs);
        /* the engine's attention efficiency on decode attention's cache
         * reads alone; the cache writes, a linear layer's state and an
         * unfused prefill's scores at the GEMV bandwidth */
        t->kv_s = (kv_bytes - l->kv_attn_read_bytes) / (wa * bs) +
                  l->kv_attn_read_bytes / (wa * bs * ae);
        t->attn_s = (l->attn_flops[IC_PHASE_DECODE] + l->attn_flops[IC_PHASE_PREFILL]) / (ca * cs);
        /* a GEMM near the ridge runs slower than either bound where the
         * entry's sweep for the compute type says so (transition_p; else
         * their max) */
        const double tp = a->transition_p[l->compute];
        lin = tp >= 1 ? ic_step_pnorm(t->weights_s, t->compute_s, tp)
                      : max2(t->weights_s, t->compute_s);
        att = max2(t->kv_s, t->attn_s);
        /* the launches: a dense layer's kernels on every layer, and what
         * MoE, MLA, linear-attention and gated layers run beyond them (a
         * mixer block without an MLP, fewer; ic_step_extra_kernels), where
         * the entry counts kernels */
        const double kernels =
            a->kernels_per_layer > 0
                ? max2((double)a->kernels_per_layer * (double)l->layers + l->extra_kernels, 0)
                : 0; /* at least none where an entry counts fewer kernels a layer than
                        the MLP's that a mixer block without one sheds */
        t->launches = kernels + (double)a->step_launches;
        t->host_s = en && !en->overlap ? en->cpu_step_s : 0;
        /* the host's time is the step's, not a stage's: added once, below */
        fixed = kernels * (graphs ? a->launch_graph_s : a->launch_s) +
                (double)a->step_launches * a->launch_s;
        t->fixed_s = fixed + t->host_s;
        if (l->allreduces)
            t->comm_s = (double)l->allreduces *
                        ic_comm_allreduce_achieved_s(hw, l->chips, l->allreduce_bytes);
        serial_comm = true;
    } else if (r->estimate == IC_EST_EXPECTED) {
        const struct ic_hw_measured *ms = &hw->measured;
        if (!ms->present) {
            const int rc = ic_err_set(err, IC_EINVAL, hw->path, 0, 0,
                                      "%s has neither measured figures (run 'infcalc bench' on "
                                      "the machine) nor an achieved section (published "
                                      "microbenchmarks); only the ideal bound is available",
                                      hw->name);
            ic_err_hint(err, "--estimate ideal (and no --engine), or an entry with achieved "
                             "rates ('infcalc show hw NAME' lists them)");
            return rc;
        }
        const enum ic_dtype wt = l->weights, kt = l->kv;
        for (int w = 0; w <= IC_DT_COUNT; w++) {
            /* every type the weights are stored in, and the cache's */
            const enum ic_dtype x = w == IC_DT_COUNT ? kt : (enum ic_dtype)w;
            if ((w == IC_DT_COUNT || l->weight_bytes_at[w] > 0 || w == (int)wt) &&
                !(ms->gemv_B_s[x] > 0)) {
                char have[96] = "";
                for (int d = 0; d < IC_DT_COUNT; d++)
                    if (ms->gemv_B_s[d] > 0) {
                        const size_t n = strlen(have);
                        snprintf(have + n, sizeof have - n, "%s%s", n ? ", " : "",
                                 ic_dtype_traits((enum ic_dtype)d)->name);
                    }
                const int rc = ic_err_set(
                    err, IC_EINVAL, hw->path, hw->locs[IC_HWF_MEASURED].line,
                    hw->locs[IC_HWF_MEASURED].col,
                    "%s has no measured rates for %s, the %s type; measured types are those "
                    "in its gemv_dram section",
                    hw->name, ic_dtype_traits(x)->name,
                    w == IC_DT_COUNT ? "--kv" : w == (int)wt ? "--weights" : "kept weights'");
                ic_err_hint(err, "types it has measured: %s; or --estimate ideal",
                            have[0] ? have : "none");
                return rc;
            }
        }
        /* the weights and the cache this chip holds: in the LLC, or in DRAM */
        t->cache_resident = l->weight_bytes + l->kv_read_bytes <= ms->llc_B;
        const double *rate = t->cache_resident ? ms->gemv_cache_B_s : ms->gemv_B_s;
        const double scale = t->cache_resident ? 1.0 : r->bw_scale;
        const double cs = r->compute_scale > 0 ? r->compute_scale : 1.0;
        double wrate[IC_DT_COUNT];
        for (int w = 0; w < IC_DT_COUNT; w++)
            wrate[w] = rate[w] * scale;
        t->weights_s = weights_time(l, wrate);
        /* the compute beyond the weight stream that the gemv rate already
         * times (ic_step_matmul_compute_s): 0 at batch 1 */
        t->compute_s = ic_step_matmul_compute_s(ms, wt, (double)l->tokens,
                                                l->lin_flops[IC_PHASE_DECODE] +
                                                    l->lin_flops[IC_PHASE_PREFILL]) /
                       cs;
        t->kv_s = kv_bytes / (rate[kt] * scale);
        /* attention at its measured rate; without one, as a matmul whose
         * batch is the query heads sharing a KV head */
        const double arate = ms->attn_flop_s[kt] > 0
                                 ? ms->attn_flop_s[kt]
                                 : ic_step_gemm_rate(ms, kt, l->attn_group < 1 ? 1 : l->attn_group);
        /* and each score's own work (the softmax's max, exp and sum, which
         * no FLOP counts) where bench measured it; at the attention probe's
         * level where one was taken, else at the compute probe's */
        t->attn_s = ((l->attn_flops[IC_PHASE_DECODE] + l->attn_flops[IC_PHASE_PREFILL]) / arate +
                     (l->attn_scores[IC_PHASE_DECODE] + l->attn_scores[IC_PHASE_PREFILL]) *
                         ms->attn_score_s[kt]) /
                    (r->attn_scale > 0 ? r->attn_scale : cs);
        /* the weight type's own exponent where bench fitted one */
        const double pl = ms->transition_p_type[wt] >= 1 ? ms->transition_p_type[wt]
                                                         : ms->transition_p;
        lin = ic_step_pnorm(t->weights_s, t->compute_s, pl);
        att = ic_step_pnorm(t->kv_s, t->attn_s, ms->transition_p);
        const uint64_t regions = r->regions ? r->regions : 8 * l->layers + 2;
        /* the step's work outside its matmuls and attention, from bench's
         * microbenchmark of the reference kernel (0 in older entries): each
         * matmul's start from DRAM (the kernel runs 4 per layer, q/k/v and
         * the gate and up projections fused, and the LM head), and each
         * layer's row work per sequence */
        const double calls = t->cache_resident ? 0 : 4.0 * (double)l->layers + 1;
        const double width = ms->layer_work_dim > 0 && l->row_width > 0
                                 ? l->row_width / (double)ms->layer_work_dim
                                 : 1.0;
        fixed = (double)regions * ms->fork_join_s + calls * ms->matmul_start_s +
                (double)l->layers * l->tokens * ms->layer_work_s * width;
        t->fixed_s = fixed;
    } else {
        double rate[IC_PHASE_COUNT];
        for (int ph = 0; ph < IC_PHASE_COUNT; ph++)
            rate[ph] = C * (r->mfu[ph] > 0 ? r->mfu[ph] : 1.0);
        t->weights_s = l->weight_bytes / W;
        t->compute_s = l->lin_flops[IC_PHASE_DECODE] / rate[IC_PHASE_DECODE] +
                      l->lin_flops[IC_PHASE_PREFILL] / rate[IC_PHASE_PREFILL];
        t->kv_s = kv_bytes / W;
        t->attn_s = l->attn_flops[IC_PHASE_DECODE] / rate[IC_PHASE_DECODE] +
                   l->attn_flops[IC_PHASE_PREFILL] / rate[IC_PHASE_PREFILL];
        lin = max2(t->weights_s, t->compute_s);
        att = max2(t->kv_s, t->attn_s);
    }
    /* the kernels run one after the other; collectives beside them or after */
    const double local = lin + att + fixed;
    t->step_s = (serial_comm ? local + t->comm_s : max2(local, t->comm_s)) + t->a2a_s;
    /* a pipeline or micro-batches: the step is max(micro, pp) passes (1
     * without either), each a stage's work and its send to the next stage */
    t->cycles = l->micro > l->pp ? l->micro : l->pp > 1 ? l->pp : 1;
    /* the largest term of a pass; the fixed part (launches, and a pass's
     * share of the host time, which a step pays once) among them */
    const double fx = fixed + t->host_s / (double)t->cycles;
    if ((!serial_comm && t->comm_s > local) ||
        (serial_comm && t->comm_s > lin && t->comm_s > att && t->comm_s >= fx) ||
        t->a2a_s > max2(max2(lin, att), fx))
        t->bound = IC_BOUND_COMM;
    else if (fx > lin && fx > att)
        t->bound = IC_BOUND_FIXED;
    else if (lin >= att)
        t->bound = t->compute_s > t->weights_s ? IC_BOUND_COMPUTE : IC_BOUND_WEIGHTS;
    else
        t->bound = t->attn_s > t->kv_s ? IC_BOUND_COMPUTE : IC_BOUND_KV;
    t->stage_s = t->step_s;
    if (t->cycles > 1) {
        if (l->pp > 1)
            t->send_s = ic_comm_send_s(hw, l->chips * l->ep * l->pp, l->send_bytes);
        t->step_s = (double)t->cycles * (t->stage_s + t->send_s);
        if (t->send_s > t->stage_s)
            t->bound = IC_BOUND_COMM;
    }
    /* the engine's host time between steps, once a step whatever the
     * pipeline: one schedule a step, the accelerators waiting for it */
    t->step_s += t->host_s;
    const double check[] = {t->weights_s, t->compute_s, t->kv_s, t->attn_s, t->comm_s, t->a2a_s,
                            t->send_s, t->step_s};
    if (!ic_finite_nonneg(check, sizeof check / sizeof check[0]) || !(t->step_s > 0))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the step time is not a finite positive number for these inputs "
                          "(absurd hardware or model figures?)");
    return IC_OK;
}

/* ---- memory held ---------------------------------------------------------- */

struct ic_mem ic_step_mem(const struct ic_model_stats *m, uint64_t chips, bool kv_copy,
                          double weights_bytes, double kv_seq_bytes)
{
    const uint64_t hw = ic_step_kv_head_ways(m, chips);
    return (struct ic_mem){
        weights_bytes,
        ic_step_seq_chip_bytes(m, chips, kv_copy, kv_seq_bytes),
        workspace_per_seq(m, chips),
        chips,
        cache_batch_ways(chips, hw, kv_copy),
    };
}

struct ic_mem ic_step_mem_of(const struct ic_load *l, unsigned kind)
{
    return (struct ic_mem){
        l->weights_held_bytes,
        l->kv_seq_chip_bytes[kind < IC_STEP_MAX_KINDS ? kind : 0],
        l->work_seq_bytes,
        l->chips,
        l->kv_split_batch,
    };
}

static inline double mem_at(const struct ic_mem *k, uint64_t batch)
{
    /* (no division when the heads take every chip, the common case) */
    uint64_t seqs = k->batch_ways == 1 ? batch : (batch + k->batch_ways - 1) / k->batch_ways;
    return k->weights_bytes + (double)seqs * k->kv_seq_bytes +
           (double)batch / (double)k->chips * k->work_seq_bytes;
}

double ic_step_mem_at(const struct ic_mem *k, uint64_t batch) { return mem_at(k, batch); }

/* Memory grows with the batch, linearly up to the ceil() of the batch split,
 * so the linear estimate is an upper bound and a short search below it is
 * exact. */
uint64_t ic_step_max_batch(const struct ic_mem *k, double capacity)
{
    if (mem_at(k, 1) > capacity)
        return 0;
    double per_seq = k->kv_seq_bytes / (double)k->batch_ways + k->work_seq_bytes / (double)k->chips;
    double room = capacity - k->weights_bytes;
    const uint64_t cap = IC_DECODE_MAX_BATCH; /* the largest --batch accepted */
    uint64_t hi = per_seq > 0 && room / per_seq < (double)cap ? (uint64_t)(room / per_seq) + 1
                                                             : cap;
    if (mem_at(k, hi) <= capacity)
        return hi; /* only when the cap is reached */
    /* one sequence per chip group: linear, so the estimate's rounding is
     * all there is to correct (hi - 1 nearly always fits) */
    if (k->batch_ways == 1 && hi > 1 && mem_at(k, hi - 1) <= capacity)
        return hi - 1;
    /* sequences split g ways: q whole rounds of g take W + q (kv + g w),
     * and a round begun takes its kv at once, so the largest batch is q
     * whole rounds plus what of round q + 1 fits beside its kv; mem_at
     * confirms the estimate (a step or two corrects its rounding) */
    if (k->batch_ways > 1 && hi > 1) {
        const double g = (double)k->batch_ways, w = k->work_seq_bytes / (double)k->chips;
        const double qf = floor(room / (k->kv_seq_bytes + g * w));
        if (qf >= 0 && qf * g < (double)hi) {
            const double left = room - (qf + 1) * k->kv_seq_bytes;
            double more = left < 0 ? 0 : w > 0 ? floor(left / w) - qf * g : g;
            more = more < 0 ? 0 : more > g ? g : more;
            uint64_t b = (uint64_t)(qf * g + more);
            for (int i = 0; i < 4 && b > 1 && mem_at(k, b) > capacity; i++)
                b--;
            for (int i = 0; i < 4 && b + 1 < hi && mem_at(k, b + 1) <= capacity; i++)
                b++;
            if (b >= 1 && mem_at(k, b) <= capacity && (b + 1 >= hi || mem_at(k, b + 1) > capacity))
                return b;
        }
    }
    uint64_t lo = hi > k->batch_ways + 2 ? hi - k->batch_ways - 2 : 1;
    if (mem_at(k, lo) > capacity)
        lo = 1;
    /* invariant: mem(lo) fits, mem(hi) does not */
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (mem_at(k, mid) <= capacity)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

bool ic_step_achieved(const struct ic_hw *hw, enum ic_estimate estimate)
{
    return estimate == IC_EST_EXPECTED && !hw->measured.present && hw->achieved.present;
}

double ic_step_achieved_gemm(const struct ic_hw *hw, enum ic_dtype t)
{
    return hw->achieved.present && t < IC_DT_COUNT ? hw->achieved.gemm_flop_s[t] : 0;
}

int ic_step_engine_applies(const struct ic_hw *hw, int estimate, struct ic_err *err)
{
    int rc = IC_OK;
    if (estimate == (int)IC_EST_IDEAL) {
        rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                        "--engine: the ideal bound reads no engine profile");
        ic_err_hint(err, "leave out --estimate ideal (--engine implies expected)");
    } else if (!ic_step_achieved(hw, IC_EST_EXPECTED)) {
        rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                        "--engine: %s has no achieved section (published microbenchmarks); an "
                        "engine profile adds to those rates only",
                        hw->name);
        ic_err_hint(err, "choose a chip with achieved rates ('infcalc show hw NAME' lists "
                         "them), or leave out --engine");
    }
    return rc;
}
