/* ic_cli_sched: the moe and batching commands (ic_moe, ic_sched). */
#include "ic_cli_int.h"

#include "ic_moe.h"
#include "ic_rows.h"
#include "ic_sched.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *dtn(enum ic_dtype t) { return ic_dtype_traits(t)->name; }

/* ---- moe ------------------------------------------------------------------- */

const char ic_cli_help_moe[] =
    "usage: infcalc moe --model M --hw H [--chips N] [--ep E] [options]\n"
    "\n"
    "Mixture-of-experts decode against batch 1, 2, 4 ... 4096: the routed experts\n"
    "a step reads (E (1 - (1 - k/E)^B) of E per layer), the linear layers' weight\n"
    "and compute times, and the batch where they turn compute-bound, beside the\n"
    "dense B_crit and E/k times it. With --ep E the routed experts split over E\n"
    "groups of N chips (E x N chips, each group serving its own batch) and each MoE\n"
    "layer pays an all-to-all (dispatch and combine, no overlap). Also the decode\n"
    "attention intensity (FLOPs per KV byte) beside the chip's ridge point: MLA's\n"
    "absorbed form (every head reading one latent) against its naive form.\n"
    "The ideal bound from spec-sheet peaks unless --estimate expected (or\n"
    "--engine): then the step, its weight and compute times and the\n"
    "compute-bound batch are at the entry's achieved rates (the step with its\n"
    "launches and measured all-reduces; the all-to-all stays at the fabric's\n"
    "spec), while the B_crit rules and the ridge stay the spec sheet's. The\n"
    "other estimate's step is shown beside the step where the entry has it.\n"
    "\n"
    "\n"
    "example: infcalc moe --model deepseek-v3 --hw h200 --chips 8 --ep 4\n";

static const struct ic_col moe_cols[] = {
    {"batch", "batch", IC_K_INT},
    {"experts_touched", "experts read/layer", IC_K_NUM},
    {"experts_touched_per_group", "per group", IC_K_NUM},
    {"weights_s", "weights", IC_K_S},
    {"compute_s", "compute", IC_K_S},
    {"a2a_s", "all-to-all", IC_K_S},
    {"step_s", "step", IC_K_S},
    {"step_other_s", "expected", IC_K_S}, /* the other estimate's (moe_cols_for) */
    {"linear_bound", "linear layers", IC_K_TEXT},
    {"tokens_per_s_per_chip", "tok/s/chip", IC_K_NUM},
    {"fits", "fits", IC_K_BOOL},
};

static const struct ic_col moe_sum_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips_per_group", "chips per group", IC_K_INT},
    {"ep", "expert-parallel groups", IC_K_INT},
    {"experts", "routed experts", IC_K_INT},
    {"top_k", "top-k", IC_K_INT},
    {"dense_b_crit", "dense B_crit", IC_K_NUM},
    {"moe_b_crit", "E/k x dense B_crit", IC_K_NUM},
    {"compute_bound_batch", "compute-bound from batch", IC_K_INT},
    {"a2a_bytes_per_layer", "all-to-all per chip per layer (batch 1)", IC_K_BYTES},
    {"attention_intensity", "attention FLOP per KV byte", IC_K_NUM},
    {"mla_naive_intensity", "MLA naive form, FLOP per byte", IC_K_NUM},
    {"ridge", "chip ridge, FLOP per byte", IC_K_NUM},
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

/* The batch columns: the other estimate's step under one key whatever the
 * estimate (step_other_s; the summary's `estimate` says which step_s is),
 * its table heading named for it (ideal beside the expected step), and
 * null, out of the table, where the entry cannot time it (ideal on an
 * entry with neither achieved nor measured rates); their count. */
static int moe_cols_for(struct ic_col *cols, enum ic_estimate est, bool other)
{
    int n = 0;
    for (size_t i = 0; i < sizeof moe_cols / sizeof moe_cols[0]; i++) {
        cols[n] = moe_cols[i];
        if (strcmp(moe_cols[i].key, "step_other_s") == 0)
            cols[n].head = !other ? NULL : est == IC_EST_EXPECTED ? "ideal" : "expected";
        n++;
    }
    return n;
}

/* The summary's fields (batch 1's figures where they do not depend on
 * the batch) and one batch's, on the last row of r. */
static void moe_summary(struct ic_rows *r, const struct ic_cli_setup *l,
                        const struct ic_moe_cfg *c, const struct ic_moe *first)
{
    ic_rows_text(r, "model", l->m->name);
    ic_rows_text(r, "hw", l->h->name);
    ic_rows_num(r, "chips_per_group", (double)l->dec.chips);
    ic_rows_num(r, "ep", (double)c->ep);
    ic_rows_num(r, "experts", (double)l->st.n_experts);
    ic_rows_num(r, "top_k", (double)l->st.top_k);
    ic_rows_num(r, "dense_b_crit", first->dense_b_crit);
    ic_rows_num(r, "moe_b_crit", first->moe_b_crit);
    ic_rows_num(r, "compute_bound_batch", (double)first->compute_bound_batch);
    ic_rows_num(r, "a2a_bytes_per_layer", first->a2a_bytes_per_layer);
    ic_rows_num(r, "attention_intensity", first->attn_intensity);
    /* the MLA naive form's intensity exists for MLA models only ('-') */
    ic_rows_num(r, "mla_naive_intensity", l->st.mla ? first->mla_naive_intensity : NAN);
    ic_rows_num(r, "ridge", first->ridge);
    ic_cli_estimate_fields(r, l);
}

static void moe_batch(struct ic_rows *r, uint64_t b, const struct ic_moe *x,
                      const struct ic_moe *other)
{
    ic_rows_num(r, "batch", (double)b);
    ic_rows_num(r, "experts_touched", x->experts_touched);
    ic_rows_num(r, "experts_touched_per_group", x->experts_touched_per_group);
    ic_rows_num(r, "weights_s", x->weights_s);
    ic_rows_num(r, "compute_s", x->compute_s);
    ic_rows_num(r, "a2a_s", x->a2a_s);
    ic_rows_num(r, "step_s", x->step_s);
    ic_rows_num(r, "step_other_s", other ? other->step_s : NAN);
    ic_rows_text(r, "linear_bound", x->compute_s >= x->weights_s ? "compute" : "weights");
    ic_rows_num(r, "tokens_per_s_per_chip", x->tokens_s_chip);
    ic_rows_num(r, "fits", x->fits);
}

int ic_cli_cmd_moe(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup l;
    int rc = ic_cli_setup(a, db, "moe", &l, errf);
    if (rc)
        return rc;
    if (!l.st.n_experts || !l.st.n_moe_layers) {
        /* its figures (experts touched, E/k x B_crit, all-to-all) are of
         * routed experts: a dense model has none to report, nor one whose
         * expert keys leave no layer MoE (first_k_dense_replace or
         * moe_layer_freq past its layers) */
        bool none = l.st.n_experts && !l.st.n_moe_layers;
        ic_cli_setup_free(&l);
        return ic_cli_usage_hint(errf, "'infcalc list models' shows the MoE ones (attention "
                                       "column); the decode table times a dense model",
                                 none ? "moe: %s has no MoE layer (first_k_dense_replace or "
                                        "moe_layer_freq leaves every layer dense)"
                                      : "moe: %s is dense (no routed experts)",
                                 a->model[0]);
    }
    ic_cli_warn_context(errf, &l.st, l.m->name, l.dec.context, "--context");
    ic_cli_note_uneven(errf, &l, l.dec.chips,
                       a->given[IC_OPT_EP] && a->ep > 1 ? "a group" : "a replica");
    struct ic_moe_cfg c = {l.dec, 1};
    if (a->given[IC_OPT_EP])
        c.ep = a->ep;
    struct ic_err e = {0};
    /* the other estimate's step beside the step: ideal beside expected;
     * expected (a good engine) beside ideal where the entry can time it */
    struct ic_moe_cfg oc = c;
    oc.dec.estimate = c.dec.estimate == IC_EST_EXPECTED ? IC_EST_IDEAL : IC_EST_EXPECTED;
    oc.dec.engine = NULL;
    struct ic_moe all[13], oth[13];
    bool other = true;
    for (uint64_t b = 1, i = 0; b <= 4096; b *= 2, i++) {
        c.dec.batch = oc.dec.batch = b;
        int lrc = ic_moe(&l.st, l.h, &c, &all[i], &e);
        if (lrc) {
            ic_cli_setup_free(&l);
            return ic_cli_report(errf, lrc, &e);
        }
        struct ic_err oe = {0};
        other = other && ic_moe(&l.st, l.h, &oc, &oth[i], &oe) == IC_OK;
    }
    struct ic_rows r, sum, csv;
    /* CSV is one table: the summary's fields on every batch row (it held
     * the batch rows alone) */
    enum { NS = sizeof moe_sum_cols / sizeof moe_sum_cols[0],
           NB = sizeof moe_cols / sizeof moe_cols[0] };
    struct ic_col cols[NB], csv_cols[NS + NB];
    const int nb = moe_cols_for(cols, c.dec.estimate, other);
    memcpy(csv_cols, moe_sum_cols, sizeof moe_sum_cols);
    memcpy(csv_cols + NS, cols, (size_t)nb * sizeof cols[0]);
    ic_rows_init(&r, cols, nb);
    ic_rows_init(&sum, moe_sum_cols, NS);
    ic_rows_init(&csv, csv_cols, NS + nb);
    if (ic_rows_add(&sum)) {
        rc = ic_cli_oom(errf);
        goto out;
    }
    moe_summary(&sum, &l, &c, &all[0]);
    for (uint64_t b = 1, i = 0; b <= 4096; b *= 2, i++) {
        if (ic_rows_add(&r) || ic_rows_add(&csv)) {
            rc = ic_cli_oom(errf);
            goto out;
        }
        moe_batch(&r, b, &all[i], other ? &oth[i] : NULL);
        moe_summary(&csv, &l, &c, &all[0]);
        moe_batch(&csv, b, &all[i], other ? &oth[i] : NULL);
    }
    char title[768], w[IC_MODEL_KEPT_LEN + 16], est[160];
    ic_model_weights_text(&l.st, l.dec.weights, w, sizeof w);
    /* with groups: the chips in all, and whose the batch is */
    char groups[160] = "";
    if (c.ep > 1)
        snprintf(groups, sizeof groups,
                 " per expert-parallel group, %llu groups (%llu chips in all; a batch is a "
                 "group's)",
                 (unsigned long long)c.ep, (unsigned long long)(c.ep * l.dec.chips));
    snprintf(title, sizeof title,
             "%s on %llu x %s%s, weights %s, KV %s, compute %s, context %llu (%s)",
             l.m->name, (unsigned long long)l.dec.chips, l.h->name, groups, w, dtn(l.dec.kv),
             dtn(l.dec.compute), (unsigned long long)l.dec.context,
             ic_cli_estimate_text(&l, est, sizeof est));
    if (l.fmt == IC_FMT_TABLE) {
        rc = ic_cli_write_rows(out, errf, l.fmt, &sum, title, false);
        if (!rc) {
            fputc('\n', out);
            rc = ic_cli_write_rows(out, errf, l.fmt, &r, NULL, true);
        }
    } else if (l.fmt == IC_FMT_CSV) {
        rc = ic_cli_write_rows(out, errf, l.fmt, &csv, NULL, true);
    } else {
        /* one object: the summary's fields and the batch rows */
        fputs("{\"summary\": ", out);
        rc = ic_cli_write_rows(out, errf, l.fmt, &sum, NULL, false);
        fputs(", \"batches\": ", out);
        if (!rc)
            rc = ic_cli_write_rows(out, errf, l.fmt, &r, NULL, true);
        fputs("}\n", out);
    }
out:
    ic_rows_free(&r);
    ic_rows_free(&sum);
    ic_rows_free(&csv);
    ic_cli_setup_free(&l);
    return rc;
}

/* ---- batching ------------------------------------------------------------------ */

const char ic_cli_help_batching[] =
    "usage: infcalc batching --model M --hw H [--batch B] [--prompt T] [--output MEAN]\n"
    "                        [--shape K] [--reserve R] [--block T] [options]\n"
    "\n"
    "Batching policy and KV layout for output lengths drawn from a gamma\n"
    "distribution (mean MEAN, shape K: 1 is exponential, larger is narrower, 0 is\n"
    "every request exactly MEAN). Static batching runs a batch until its longest\n"
    "member ends (E[max of B lengths] steps for E[length] useful tokens a slot);\n"
    "continuous batching refills a finished slot at once. Both cut a length at\n"
    "R - T tokens, where its reservation ends. A contiguous KV cache\n"
    "reserves R tokens per sequence; a paged one holds what is used plus half a\n"
    "block. Prints the throughput of each policy, the memory each layout holds and\n"
    "wastes, the largest batch each fits and the throughput that batch gives.\n"
    "\n"
    "\n"
    "example: infcalc batching --model llama3-8b --hw h100 --batch 64 --prompt 512 "
    "--output 256\n";

static const struct ic_col batching_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"batch", "batch", IC_K_INT},
    {"prompt", "prompt tokens", IC_K_INT},
    {"output_mean", "output tokens, mean", IC_K_NUM},
    {"output_shape", "output gamma shape", IC_K_NUM},
    {"output_mean_cut", "output mean, cut at reserve", IC_K_NUM},
    {"mean_context", "mean context", IC_K_NUM},
    {"step_s", "decode step", IC_K_S},
    {"expected_max", "E[longest output in the batch]", IC_K_NUM},
    {"static_tokens_per_s", "static batching, tokens/s", IC_K_NUM},
    {"continuous_tokens_per_s", "continuous batching, tokens/s", IC_K_NUM},
    {"continuous_gain", "continuous / static", IC_K_NUM},
    {"reserve", "contiguous reservation, tokens", IC_K_INT},
    {"block", "paged block, tokens", IC_K_INT},
    {"used_bytes", "KV used per sequence", IC_K_BYTES},
    {"contiguous_bytes", "KV held, contiguous", IC_K_BYTES},
    {"paged_bytes", "KV held, paged", IC_K_BYTES},
    {"contiguous_waste", "wasted, contiguous", IC_K_FRAC},
    {"paged_waste", "wasted, paged", IC_K_FRAC},
    {"contiguous_max_batch", "largest batch, contiguous", IC_K_INT},
    {"paged_max_batch", "largest batch, paged", IC_K_INT},
    {"contiguous_tokens_per_s", "tokens/s at it, contiguous", IC_K_NUM},
    {"paged_tokens_per_s", "tokens/s at it, paged", IC_K_NUM},
    {"paged_gain", "paged / contiguous", IC_K_NUM},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

int ic_cli_cmd_batching(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup l;
    int rc = ic_cli_setup(a, db, "batching", &l, errf);
    if (rc)
        return rc;
    struct ic_batching_cfg c = {l.dec, 512, {256, 1}, 0, 16};
    if (a->given[IC_OPT_PROMPT])
        c.prompt = a->prompt;
    if (a->given[IC_OPT_OUTPUT])
        c.out.mean = (double)a->output;
    if (a->given[IC_OPT_SHAPE])
        c.out.shape = a->shape;
    if (a->given[IC_OPT_RESERVE])
        c.reserve = a->reserve;
    if (a->given[IC_OPT_BLOCK])
        c.block = a->block;
    struct ic_batching x;
    struct ic_err e = {0};
    int lrc = ic_batching(&l.st, l.h, &c, &x, &e);
    if (lrc) {
        ic_cli_setup_free(&l);
        return ic_cli_report(errf, lrc, &e);
    }
    /* as prefix and bestofn warn: the requests, and a reservation given,
     * past the model's trained context (the default is that context) */
    ic_cli_warn_context(errf, &l.st, l.m->name, c.prompt + (uint64_t)ceil(c.out.mean),
                        "--prompt + --output");
    if (c.reserve)
        ic_cli_warn_context(errf, &l.st, l.m->name, x.reserve, "--reserve");
    ic_cli_note_uneven(errf, &l, l.dec.chips, "a replica");
    /* as decode warns: the batch the rates are given at, past what fits */
    if (l.dec.batch > x.paged_max_batch)
        fprintf(ic_cli_warnf(errf),
                "infcalc: warning: the batch of %llu does not fit: at most %llu sequences "
                "paged (%llu contiguous) on %llu x %s\n",
                (unsigned long long)l.dec.batch, (unsigned long long)x.paged_max_batch,
                (unsigned long long)x.contiguous_max_batch, (unsigned long long)l.dec.chips,
                l.h->name);
    struct ic_rows r;
    ic_rows_init(&r, batching_cols, (int)(sizeof batching_cols / sizeof batching_cols[0]));
    if (ic_rows_add(&r)) {
        ic_cli_setup_free(&l);
        return ic_cli_oom(errf);
    }
    ic_rows_text(&r, "model", l.m->name);
    ic_rows_text(&r, "hw", l.h->name);
    ic_cli_estimate_fields(&r, &l);
    ic_rows_num(&r, "chips", (double)l.dec.chips);
    ic_rows_num(&r, "batch", (double)l.dec.batch);
    ic_rows_num(&r, "prompt", (double)c.prompt);
    ic_rows_num(&r, "output_mean", c.out.mean);
    ic_rows_num(&r, "output_shape", c.out.shape);
    ic_rows_num(&r, "output_mean_cut", x.mean_output);
    ic_rows_num(&r, "mean_context", x.mean_context);
    ic_rows_num(&r, "step_s", x.step_s);
    ic_rows_num(&r, "expected_max", x.expected_max);
    ic_rows_num(&r, "static_tokens_per_s", x.static_tok_s);
    ic_rows_num(&r, "continuous_tokens_per_s", x.continuous_tok_s);
    ic_rows_num(&r, "continuous_gain", x.continuous_gain);
    ic_rows_num(&r, "reserve", (double)x.reserve);
    ic_rows_num(&r, "block", (double)x.block);
    ic_rows_num(&r, "used_bytes", x.used_B);
    ic_rows_num(&r, "contiguous_bytes", x.contiguous_B);
    ic_rows_num(&r, "paged_bytes", x.paged_B);
    ic_rows_num(&r, "contiguous_waste", x.contiguous_waste);
    ic_rows_num(&r, "paged_waste", x.paged_waste);
    ic_rows_num(&r, "contiguous_max_batch", (double)x.contiguous_max_batch);
    ic_rows_num(&r, "paged_max_batch", (double)x.paged_max_batch);
    ic_rows_num(&r, "contiguous_tokens_per_s", x.contiguous_tok_s);
    ic_rows_num(&r, "paged_tokens_per_s", x.paged_tok_s);
    /* undefined where nothing fits contiguously (the core's 0): null, '-' */
    ic_rows_num(&r, "paged_gain", x.contiguous_max_batch ? x.paged_gain : NAN);
    char title[640], w[IC_MODEL_KEPT_LEN + 16], est[IC_CLI_EST_TEXT];
    ic_model_weights_text(&l.st, l.dec.weights, w, sizeof w);
    snprintf(title, sizeof title,
             "%s on %llu x %s, weights %s, KV %s, compute %s (%s)\n"
             "batching policy and KV layout%s",
             l.m->name, (unsigned long long)l.dec.chips, l.h->name, w,
             dtn(l.dec.kv), dtn(l.dec.compute), ic_cli_estimate_text(&l, est, sizeof est),
             x.contiguous_max_batch ? "" : "\nnote: not one sequence fits with the contiguous "
                                           "reservation");
    rc = ic_cli_write_rows(out, errf, l.fmt, &r, title, false);
    ic_rows_free(&r);
    ic_cli_setup_free(&l);
    return rc;
}
