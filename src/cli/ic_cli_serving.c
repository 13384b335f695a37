/* ic_cli_serving: the serving commands: prefill, specdec, prefix, disagg,
 * cost, optimize and bestofn. Each parses its options like the decode
 * command (same names, same ranges, same messages), calls ic_serving and
 * prints its rows through ic_rows. */
#include "ic_cli_int.h"

#include "ic_decode.h"
#include "ic_plot.h"
#include "ic_rows.h"
#include "ic_serving.h"
#include "ic_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- shared parsing ------------------------------------------------------ */

void ic_cli_setup_free(struct ic_cli_setup *s)
{
    free(s->m);
    free(s->h);
    free(s->en);
    s->m = NULL;
    s->h = NULL;
    s->en = NULL;
    s->dec.engine = NULL;
}

int ic_cli_quant_unread(FILE *errf, const struct ic_model *m)
{
    char why[IC_MODEL_NAME_LEN * 2 + 96];
    ic_model_unread_text(m, why, sizeof why);
    return ic_cli_usage_hint(errf, "give the stored type: --weights int8, int4, fp8 or fp4 "
                                   "(its scales are then not counted)",
                             "%s", why);
}

void ic_cli_model_typo(FILE *errf, const struct ic_model *m)
{
    if (m->typo_key[0])
        fprintf(ic_cli_warnf(errf),
                "%s:%u:%u: warning: unknown key '%s': did you mean '%s'? The file leaves "
                "'%s' out, so its default is taken\n",
                m->path, m->typo_at.line, m->typo_at.col, m->typo_key, m->typo_near,
                m->typo_near);
}

void ic_cli_model_notes(FILE *errf, const struct ic_model *m, bool weights_note)
{
    ic_cli_model_typo(errf, m);
    if (m->tower[0])
        fprintf(ic_cli_warnf(errf), "infcalc: note: %s: its %s %s not counted: the step times and the "
                      "memory held are the decoder's alone\n",
                m->name, m->tower, strstr(m->tower, " and its ") ? "are" : "is");
    if (!weights_note || !m->has_default_weights)
        return;
    if (m->default_weights != IC_DT_BF16 || m->quant_extra_bytes > 0 || m->keep_groups)
        fprintf(ic_cli_warnf(errf), "infcalc: note: %s weights %s, from its %s (--weights %s)\n", m->name,
                ic_dtype_traits(m->default_weights)->name, m->weights_note,
                m->keep_groups ? "sets the quantized parts' type" : "overrides");
}

void ic_cli_warn_context(FILE *errf, const struct ic_model_stats *st, const char *model,
                         uint64_t tokens, const char *what)
{
    if (st->max_context && tokens > st->max_context)
        fprintf(ic_cli_warnf(errf),
                "infcalc: warning: %s (%llu tokens) exceeds %s's max_position_embeddings "
                "(%llu)\n",
                what, (unsigned long long)tokens, model, (unsigned long long)st->max_context);
}

bool ic_cli_warn_fit(FILE *errf, const struct ic_cli_setup *s, uint64_t chips, uint64_t batch,
                     uint64_t context, const char *what)
{
    return ic_cli_warn_fit_extra(errf, s, chips, batch, context, 0, what);
}

void ic_cli_note_uneven(FILE *errf, const struct ic_cli_setup *s, uint64_t chips,
                        const char *what)
{
    struct ic_decode_cfg c = s->dec;
    c.chips = chips ? chips : 1;
    c.batch = c.context = 1;
    struct ic_point p;
    if (ic_decode(&s->st, s->h, &c, &p, NULL) != IC_OK)
        return;
    if (p.uneven_split)
        fprintf(ic_cli_warnf(errf),
                "infcalc: note: %s: %llu chips do not split %s's query heads evenly; the "
                "busiest chip holds the most and sets the time\n",
                what, (unsigned long long)c.chips, s->m->name);
    if (p.query_heads && c.chips > p.query_heads) {
        char owner[IC_MODEL_NAME_LEN + 4], note[400];
        snprintf(owner, sizeof owner, "%s's ", s->m->name);
        ic_report_heads_note(note, sizeof note, c.chips, p.query_heads, owner);
        fprintf(ic_cli_warnf(errf), "infcalc: note: %s: %s\n", what, note);
    }
}

/* Bytes a chip holds: s's configuration on `chips` chips with `batch`
 * sequences of `context` tokens (0s read as 1), and extra_B beside; *c the
 * configuration. */
static double fit_mem(const struct ic_cli_setup *s, uint64_t chips, uint64_t batch,
                      uint64_t context, double extra_B, struct ic_decode_cfg *c)
{
    *c = s->dec;
    c->chips = chips ? chips : 1;
    c->batch = batch ? batch : 1;
    c->context = context ? context : 1;
    return ic_decode_mem_per_chip(&s->st, c, c->batch) + extra_B;
}

bool ic_cli_fits(const struct ic_cli_setup *s, uint64_t chips, uint64_t batch, uint64_t context,
                 double extra_B)
{
    struct ic_decode_cfg c;
    return fit_mem(s, chips, batch, context, extra_B, &c) <= s->h->hbm_capacity_B;
}

bool ic_cli_warn_fit_extra(FILE *errf, const struct ic_cli_setup *s, uint64_t chips,
                           uint64_t batch, uint64_t context, double extra_B, const char *what)
{
    ic_cli_note_uneven(errf, s, chips, what);
    struct ic_decode_cfg c;
    const double mem = fit_mem(s, chips, batch, context, extra_B, &c);
    if (mem <= s->h->hbm_capacity_B)
        return true;
    if (!isfinite(mem)) { /* past the step model's limits: no figure to give */
        fprintf(ic_cli_warnf(errf),
                "infcalc: warning: %s does not fit: %llu sequence%s of %llu tokens are past "
                "what a chip can hold (batch at most 2^24, context at most 2^26)\n",
                what, (unsigned long long)c.batch, c.batch == 1 ? "" : "s",
                (unsigned long long)c.context);
        return false;
    }
    fprintf(ic_cli_warnf(errf),
            "infcalc: warning: %s does not fit: %.4g GB a chip (weights, the KV of %llu "
            "sequence%s of %llu tokens, workspace) on %llu x %s of %.4g GB\n",
            what, mem / 1e9, (unsigned long long)c.batch, c.batch == 1 ? "" : "s",
            (unsigned long long)c.context, (unsigned long long)c.chips, s->h->name,
            s->h->hbm_capacity_B / 1e9);
    return false;
}

enum ic_estimate ic_cli_estimate(const struct ic_opts *a, enum ic_estimate dflt)
{
    return a->given[IC_OPT_ESTIMATE] ? (enum ic_estimate)a->estimate
           : a->given[IC_OPT_ENGINE] ? IC_EST_EXPECTED /* a profile is the expected's */
                                     : dflt;
}

int ic_cli_mfu_check(const struct ic_opts *a, enum ic_estimate est, FILE *errf)
{
    /* --mfu derates the ideal bound's prefill; the expected estimate times
     * it from the entry's achieved rates and would drop it unread */
    if (!a->given[IC_OPT_MFU] || est != IC_EST_EXPECTED)
        return 0;
    return ic_cli_usage_hint(errf, "leave --mfu out, or add '--estimate ideal' to derate the "
                                   "spec-sheet peak",
                             "--mfu sets the ideal bound's prefill; the expected estimate (%s) "
                             "times it from the entry's achieved rates",
                             a->given[IC_OPT_ENGINE]     ? "--engine"
                             : a->given[IC_OPT_ESTIMATE] ? "--estimate expected"
                                                         : "this entry's default");
}

int ic_cli_engine_check(const struct ic_opts *a, const struct ic_hw *h, FILE *errf)
{
    if (!a->given[IC_OPT_ENGINE])
        return 0;
    struct ic_err e = {0};
    const int lrc =
        ic_step_engine_applies(h, a->given[IC_OPT_ESTIMATE] ? a->estimate : -1, &e);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

int ic_cli_load_engine(const struct ic_opts *a, const struct ic_db *db, struct ic_engine **en,
                       FILE *errf)
{
    *en = NULL;
    if (!a->given[IC_OPT_ENGINE])
        return 0;
    struct ic_engine *x = malloc(sizeof *x);
    if (!x)
        return ic_cli_oom(errf);
    struct ic_err e = {0};
    int lrc = ic_db_engine(db, a->engine, x, &e);
    if (lrc) {
        free(x);
        return ic_cli_report(errf, lrc, &e);
    }
    *en = x;
    return 0;
}

int ic_cli_oom(FILE *errf)
{
    fputs("infcalc: error: out of memory\n", errf);
    return 1;
}

void ic_cli_decode_opts(const struct ic_opts *a, struct ic_cli_setup *s)
{
    ic_opts_decode_cfg(a, &s->dec);
    s->fmt = (enum ic_format)a->format;
}

int ic_cli_setup(const struct ic_opts *a, const struct ic_db *db, const char *cmd,
                 struct ic_cli_setup *s, FILE *errf)
{
    memset(s, 0, sizeof *s);
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    ic_cli_decode_opts(a, s);
    if (!a->given[IC_OPT_MODEL] || !a->given[IC_OPT_HW]) {
        char hint[160];
        snprintf(hint, sizeof hint, "e.g. 'infcalc %s --model llama3-8b --hw h100'; 'infcalc "
                                    "list models' and 'infcalc list hw' name the entries", cmd);
        return ic_cli_usage_hint(errf, hint,
                                 "%s needs --model and --hw ('infcalc %s --help' for usage)", cmd,
                                 cmd);
    }
    s->m = malloc(sizeof *s->m);
    s->h = malloc(sizeof *s->h);
    if (!s->m || !s->h) {
        ic_cli_setup_free(s);
        return ic_cli_oom(errf);
    }
    struct ic_err e = {0};
    int lrc;
    if ((lrc = ic_db_model(db, a->model[0], s->m, &e)) ||
        (lrc = ic_model_derive(s->m, &s->st, &e)) ||
        (lrc = ic_db_hw(db, a->hw[0], s->h, &e))) {
        ic_cli_setup_free(s);
        return ic_cli_report(errf, lrc, &e);
    }
    if ((lrc = ic_cli_engine_check(a, s->h, errf)) ||
        (lrc = ic_cli_load_engine(a, db, &s->en, errf))) {
        ic_cli_setup_free(s);
        return lrc;
    }
    ic_opts_engine_cfg(a, s->en, &s->dec);
    /* the estimate unless asked: simulate's is decode's (expected on a
     * benched machine's entry), the serving analyses' the ideal bound */
    s->dec.estimate = ic_cli_estimate(a, a->cmd == IC_CMD_SIMULATE
                                             ? ic_decode_default_estimate(s->h)
                                             : IC_EST_IDEAL);
    /* a compute type the chip lacks is the option's error, as decode says
     * it (the step model's names the entry's compute section) */
    struct ic_err ce = {0};
    if ((lrc = ic_decode_for_hw(&s->dec, s->h, (int)s->dec.estimate, &ce))) {
        ic_cli_setup_free(s);
        return ic_cli_report(errf, lrc, &ce);
    }
    if ((lrc = ic_cli_mfu_check(a, s->dec.estimate, errf)) ||
        (lrc = ic_cli_model_weights(a, errf, s->m, &s->dec.weights))) {
        ic_cli_setup_free(s);
        return lrc;
    }
    bool said = false;
    ic_cli_warn_comm(a, errf, s->h, s->dec.estimate, &said);
    return 0;
}

int ic_cli_model_weights(const struct ic_opts *a, FILE *errf, const struct ic_model *m,
                         enum ic_dtype *weights)
{
    if (m->quant_unread[0] && !a->given[IC_OPT_WEIGHTS])
        return ic_cli_quant_unread(errf, m);
    /* a config.json's own weight type where --weights is not given */
    if (m->has_default_weights && !a->given[IC_OPT_WEIGHTS])
        *weights = m->default_weights;
    ic_cli_model_notes(errf, m, !a->given[IC_OPT_WEIGHTS]);
    return 0;
}

int ic_cli_write_rows(FILE *out, FILE *errf, enum ic_format fmt, const struct ic_rows *r,
                      const char *title, bool array)
{
    struct ic_err e = {0};
    int rc = ic_rows_write(out, fmt, r, title, array, &e);
    if (!rc)
        return 0;
    /* a field left unset or set twice is this program's bug, not the user's */
    if (rc == IC_EINVAL)
        fprintf(errf, "infcalc: internal error: %s\n", e.msg);
    else
        ic_err_print(errf, &e);
    return 1;
}

/* The prefill options shared by prefill, prefix, disagg, cost and bestofn. */
static void parse_prefill(const struct ic_opts *a, const struct ic_cli_setup *s,
                          struct ic_prefill_cfg *pf)
{
    *pf = ic_prefill_defaults();
    pf->chips = s->dec.chips;
    pf->weights = s->dec.weights;
    pf->kv = s->dec.kv;
    pf->compute = s->dec.compute;
    pf->comm = s->dec.comm;
    pf->kv_copy = s->dec.kv_copy;
    pf->estimate = s->dec.estimate;
    pf->engine = s->dec.engine;
    if (a->given[IC_OPT_PROMPT])
        pf->prompt = a->prompt;
    if (a->given[IC_OPT_PROMPTS])
        pf->prompts = a->prompts;
    if (a->given[IC_OPT_MFU])
        pf->mfu = a->mfu;
    if (a->given[IC_OPT_QUEUE])
        pf->queue_s = a->queue_s;
    if (a->given[IC_OPT_ATTENTION])
        pf->attn = (enum ic_attn_impl)a->attention;
}

/* ic_cli_setup, then the prefill options; free s either way. */
static int setup_prefill(const struct ic_opts *a, const struct ic_db *db, const char *cmd,
                         struct ic_cli_setup *s, struct ic_prefill_cfg *pf, FILE *errf)
{
    int rc = ic_cli_setup(a, db, cmd, s, errf);
    if (!rc)
        parse_prefill(a, s, pf);
    return rc;
}

static const char *dtn(enum ic_dtype t) { return ic_dtype_traits(t)->name; }

void ic_cli_estimate_fields_of(struct ic_rows *r, enum ic_estimate est,
                               const struct ic_engine *en)
{
    ic_rows_text(r, "estimate", est == IC_EST_EXPECTED ? "expected" : "ideal");
    ic_rows_text(r, "engine", en ? en->name : "none");
}

void ic_cli_estimate_fields(struct ic_rows *r, const struct ic_cli_setup *s)
{
    ic_cli_estimate_fields_of(r, s->dec.estimate, s->en);
}

const char *ic_cli_estimate_text(const struct ic_cli_setup *s, char *buf, size_t n)
{
    if (s->dec.estimate != IC_EST_EXPECTED)
        snprintf(buf, n, "ideal bound");
    else if (!ic_step_achieved(s->h, IC_EST_EXPECTED))
        snprintf(buf, n, "expected: measured rates");
    else
        snprintf(buf, n, "expected: achieved rates, %s%s", s->en ? "engine " : "a good engine",
                 s->en ? s->en->name : "");
    return buf;
}

/* "llama3-70b on 16 x v5e, weights int8, KV int8, compute bf16" */
static void title_of(char *buf, size_t n, const struct ic_cli_setup *s, uint64_t chips)
{
    char w[IC_MODEL_KEPT_LEN + 16];
    ic_model_weights_text(&s->st, s->dec.weights, w, sizeof w);
    snprintf(buf, n, "%s on %llu x %s, weights %s, KV %s, compute %s", s->m->name,
             (unsigned long long)chips, s->h->name, w, dtn(s->dec.kv), dtn(s->dec.compute));
}

/* Starts rows over cols with one row whose model and hw fields are the
 * model's and the chip's names; 0 or the out-of-memory status. */
static int one_row(struct ic_rows *r, const struct ic_col *cols, size_t n_cols,
                   const struct ic_cli_setup *s, FILE *errf)
{
    ic_rows_init(r, cols, (int)n_cols);
    if (ic_rows_add(r))
        return ic_cli_oom(errf);
    ic_rows_text(r, "model", s->m->name);
    ic_rows_text(r, "hw", s->h->name);
    ic_cli_estimate_fields(r, s);
    return 0;
}

/* Writes one configuration's rows under its title and `what`, then frees them. */
static int write_one(FILE *out, FILE *errf, const struct ic_cli_setup *s, uint64_t chips,
                     const char *what, struct ic_rows *r)
{
    char title[400];
    title_of(title, sizeof title, s, chips);
    size_t l = strlen(title);
    snprintf(title + l, sizeof title - l, "\n%s", what);
    int rc = ic_cli_write_rows(out, errf, s->fmt, r, title, false);
    ic_rows_free(r);
    return rc;
}


/* ---- prefill -------------------------------------------------------------- */

const char ic_cli_help_prefill[] =
    "usage: infcalc prefill --model M --hw H [--prompt T] [options]\n"
    "\n"
    "Time to first token for a prompt of T tokens (default 2048) on N chips:\n"
    "2 x active parameters x T (the LM head for the last token only) plus the\n"
    "causal attention FLOPs, over chips x peak x MFU, never below one read of the\n"
    "weights and the attention's HBM traffic; plus queueing. Both attention\n"
    "kernels are shown unless --attention picks one: fused (FlashAttention: the\n"
    "cache's keys and values read once, a window layer's from the first new\n"
    "token's window, the masked half skipped; Q and O, activations, not counted)\n"
    "and unfused (the T x T score matrix written and read back twice, the full\n"
    "products computed). The ideal bound from spec-sheet peaks at the MFU; with\n"
    "--estimate expected (or --engine NAME) the entry's achieved GEMM rate and\n"
    "bandwidth, its kernels' launches and the engine's profile instead.\n"
    "\n"
    "\n"
    "example: infcalc prefill --model llama3-70b --hw v5e --chips 16 --prompt 8192\n";

static const struct ic_col prefill_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"prompt", "prompt tokens", IC_K_INT},
    {"prompts", "prompts", IC_K_INT},
    {"prefix", "cached prefix", IC_K_INT},
    {"attention", "attention", IC_K_TEXT},
    {"mfu", "MFU", IC_K_FRAC},
    {"mfu_measured", "MFU measured", IC_K_BOOL},
    {"linear_flops", "linear FLOPs", IC_K_FLOP},
    {"attention_flops", "attention FLOPs", IC_K_FLOP},
    {"weight_read_bytes", "weights read", IC_K_BYTES},
    {"attention_hbm_bytes", "attention HBM", IC_K_BYTES},
    {"kv_write_bytes", "KV written", IC_K_BYTES},
    {"compute_s", "compute", IC_K_S},
    {"memory_s", "memory", IC_K_S},
    {"comm_s", "collectives", IC_K_S},
    {"prefill_s", "prefill", IC_K_S},
    {"queue_s", "queue", IC_K_S},
    {"ttft_s", "TTFT", IC_K_S},
    {"bound", "bound", IC_K_TEXT},
    {"tokens_per_s", "prompt tokens/s", IC_K_NUM},
    {"usd_per_million_tokens", "$/M prompt tokens", IC_K_USD},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

static void prefill_row(struct ic_rows *r, const struct ic_cli_setup *s, const struct ic_prefill *p)
{
    ic_rows_text(r, "model", s->m->name);
    ic_rows_text(r, "hw", s->h->name);
    ic_cli_estimate_fields(r, s);
    ic_rows_num(r, "chips", (double)p->cfg.chips);
    ic_rows_num(r, "prompt", (double)p->cfg.prompt);
    ic_rows_num(r, "prompts", (double)p->cfg.prompts);
    ic_rows_num(r, "prefix", (double)p->cfg.prefix);
    ic_rows_text(r, "attention", ic_attn_impl_name(p->cfg.attn));
    ic_rows_num(r, "mfu", p->mfu);
    ic_rows_num(r, "mfu_measured", p->mfu_measured);
    ic_rows_num(r, "linear_flops", p->linear_flops);
    ic_rows_num(r, "attention_flops", p->attn_flops);
    ic_rows_num(r, "weight_read_bytes", p->weight_bytes);
    ic_rows_num(r, "attention_hbm_bytes", p->attn_hbm_bytes);
    ic_rows_num(r, "kv_write_bytes", p->kv_write_bytes);
    ic_rows_num(r, "compute_s", p->compute_s);
    ic_rows_num(r, "memory_s", p->memory_s);
    ic_rows_num(r, "comm_s", p->comm_s);
    ic_rows_num(r, "prefill_s", p->prefill_s);
    ic_rows_num(r, "queue_s", p->cfg.queue_s);
    ic_rows_num(r, "ttft_s", p->ttft_s);
    ic_rows_text(r, "bound", ic_prefill_bound_name(p->bound));
    ic_rows_num(r, "tokens_per_s", p->tokens_s);
    ic_rows_num(r, "usd_per_million_tokens", p->usd_per_mtok);
}

static const struct ic_col chunk_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"prompt", "prompt tokens", IC_K_INT},
    {"prompts", "prompts", IC_K_INT},
    {"prefix", "cached prefix", IC_K_INT},
    {"queue_s", "queue", IC_K_S},
    {"chunk", "chunk tokens", IC_K_INT},
    {"batch", "decode batch", IC_K_INT},
    {"context", "decode context", IC_K_INT},
    {"mfu", "MFU (chunks)", IC_K_FRAC},
    {"decode_step_s", "decode step alone", IC_K_S},
    {"chunk_step_s", "step with a chunk (mean)", IC_K_S},
    {"max_step_s", "step with a chunk (max)", IC_K_S},
    /* chunk_step_s / decode_step_s - 1, a share (3.05: the step 4.05x as long) */
    {"decode_slowdown", "decode slowdown", IC_K_FRAC},
    {"steps", "steps to finish the prompt", IC_K_INT},
    {"ttft_s", "TTFT chunked", IC_K_S},
    {"prefill_alone_s", "prefill alone", IC_K_S},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

static int plot_prefill(const struct ic_opts *a, const struct ic_cli_setup *s,
                        const struct ic_prefill_cfg *base, FILE *errf);

int ic_cli_cmd_prefill(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup s;
    struct ic_prefill_cfg pf;
    uint64_t chunk = 0;
    int rc = setup_prefill(a, db, "prefill", &s, &pf, errf);
    if (rc)
        goto out;
    if (a->given[IC_OPT_PREFIX])
        pf.prefix = a->prefix;
    if (a->given[IC_OPT_CHUNK])
        chunk = a->chunk;
    if (!chunk && (a->given[IC_OPT_BATCH] || a->given[IC_OPT_CONTEXT])) {
        rc = ic_cli_usage_hint(errf, "e.g. '--chunk 512 --batch 32 --context 4096'; without "
                                     "--chunk the prompt is prefilled alone",
                               "--batch and --context describe the decode batch a chunked "
                               "prefill rides on; add --chunk C");
        goto out;
    }
    ic_cli_warn_context(errf, &s.st, s.m->name, pf.prefix + pf.prompt, "the prompt with its prefix");
    ic_cli_warn_fit(errf, &s, pf.chips, pf.prompts, pf.prefix + pf.prompt, "the prefill");
    if (chunk) {
        ic_cli_warn_context(errf, &s.st, s.m->name, s.dec.context, "--context");
        ic_cli_warn_fit(errf, &s, s.dec.chips, s.dec.batch + 1,
                        s.dec.context > pf.prompt ? s.dec.context : pf.prompt,
                        "the decode batch with the prompt");
    }
    struct ic_err e = {0};
    char title[480], est[IC_CLI_EST_TEXT];
    title_of(title, sizeof title, &s, pf.chips);
    ic_cli_estimate_text(&s, est, sizeof est);
    struct ic_rows r;
    if (chunk) {
        struct ic_chunked c;
        int lrc = ic_chunked(&s.st, s.h, &s.dec, &pf, chunk, &c, &e);
        if (lrc) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        ic_rows_init(&r, chunk_cols, (int)(sizeof chunk_cols / sizeof chunk_cols[0]));
        if (ic_rows_add(&r)) {
            rc = ic_cli_oom(errf);
            goto out;
        }
        ic_rows_text(&r, "model", s.m->name);
        ic_rows_text(&r, "hw", s.h->name);
        ic_cli_estimate_fields(&r, &s);
        ic_rows_num(&r, "chips", (double)s.dec.chips);
        ic_rows_num(&r, "prompt", (double)pf.prompt);
        /* the inputs that move the chunked TTFT, as the unchunked record
         * states them (they were not in the record) */
        ic_rows_num(&r, "prompts", (double)pf.prompts);
        ic_rows_num(&r, "prefix", (double)pf.prefix);
        ic_rows_num(&r, "queue_s", pf.queue_s);
        /* a chunk past the prompt is the whole prompt in one step */
        ic_rows_num(&r, "chunk", (double)(chunk < pf.prompt ? chunk : pf.prompt));
        ic_rows_num(&r, "batch", (double)s.dec.batch);
        ic_rows_num(&r, "context", (double)s.dec.context);
        ic_rows_num(&r, "mfu", c.mfu);
        ic_rows_num(&r, "decode_step_s", c.decode_s);
        ic_rows_num(&r, "chunk_step_s", c.chunk_step_s);
        ic_rows_num(&r, "max_step_s", c.max_step_s);
        ic_rows_num(&r, "decode_slowdown", c.slowdown);
        ic_rows_num(&r, "steps", (double)c.steps);
        ic_rows_num(&r, "ttft_s", c.ttft_s);
        ic_rows_num(&r, "prefill_alone_s", c.prefill_alone_s);
        size_t l = strlen(title);
        snprintf(title + l, sizeof title - l, "\nchunked prefill on a running decode batch (%s)",
                 est);
    } else {
        ic_rows_init(&r, prefill_cols, (int)(sizeof prefill_cols / sizeof prefill_cols[0]));
        for (int k = 0; k < IC_ATTN_COUNT; k++) {
            if (a->given[IC_OPT_ATTENTION] && k != (int)pf.attn)
                continue;
            struct ic_prefill_cfg c = pf;
            c.attn = (enum ic_attn_impl)k;
            struct ic_prefill p;
            int lrc = ic_prefill(&s.st, s.h, &c, &p, &e);
            if (lrc) {
                ic_rows_free(&r);
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
            if (ic_rows_add(&r)) {
                ic_rows_free(&r);
                rc = ic_cli_oom(errf);
                goto out;
            }
            prefill_row(&r, &s, &p);
        }
        size_t l = strlen(title);
        snprintf(title + l, sizeof title - l, "\nprefill, %s",
                 s.dec.estimate == IC_EST_EXPECTED ? est
                                                   : "ideal bound from spec-sheet peaks at the "
                                                     "MFU stated");
    }
    rc = ic_cli_write_rows(out, errf, s.fmt, &r, title, !chunk);
    ic_rows_free(&r);
    if (!rc && a->given[IC_OPT_PLOT])
        rc = plot_prefill(a, &s, &pf, errf);
out:
    ic_cli_setup_free(&s);
    return rc;
}

/* TTFT against the prompt length, fused and unfused, with the compute and
 * memory terms of the fused kernel: prompts of 128, 256, ... tokens up to
 * the model's usable context (the prefix counted in it), which ends the
 * chart and is marked; to 2^20 where the model states none. */
static int plot_prefill(const struct ic_opts *a, const struct ic_cli_setup *s,
                        const struct ic_prefill_cfg *base, FILE *errf)
{
    enum { NP = 16 };
    double xs[NP], ys[4][NP];
    size_t n = 0;
    struct ic_err e = {0};
    const uint64_t usable = s->st.max_context > base->prefix ? s->st.max_context - base->prefix : 0;
    const uint64_t stop = s->st.max_context ? usable : UINT64_C(1) << 20;
    uint64_t prompts[NP], np = 0;
    for (uint64_t t = 128; t <= stop && np < NP - 1; t *= 2)
        prompts[np++] = t;
    if (s->st.max_context && (np == 0 || prompts[np - 1] < stop) && stop > 0)
        prompts[np++] = stop; /* end exactly at the usable context */
    double nofit_from = 0; /* the first prompt that does not fit, halfway (log) from the last */
    for (uint64_t i = 0; i < np; i++) {
        const uint64_t t = prompts[i];
        if (nofit_from == 0 && !ic_cli_fits(s, base->chips, base->prompts, base->prefix + t, 0))
            nofit_from = i ? sqrt((double)prompts[i - 1] * (double)t) : (double)t;
        struct ic_prefill_cfg c = *base;
        c.prompt = t;
        struct ic_prefill pf, pu;
        c.attn = IC_ATTN_FLASH;
        if (ic_prefill(&s->st, s->h, &c, &pf, &e))
            break;
        c.attn = IC_ATTN_UNFUSED;
        if (ic_prefill(&s->st, s->h, &c, &pu, &e))
            break;
        xs[n] = (double)t;
        ys[0][n] = pf.ttft_s;
        ys[1][n] = pu.ttft_s;
        ys[2][n] = pf.compute_s;
        ys[3][n] = pf.memory_s;
        n++;
    }
    if (!n) {
        if (e.msg[0])
            return ic_cli_report(errf, IC_EINVAL, &e);
        return ic_cli_usage_hint(errf, "shorten --prefix, or leave out --plot",
                                 "--plot: the prefix leaves %llu tokens of %s's usable context "
                                 "(%llu); the chart starts at 128",
                                 (unsigned long long)usable, s->m->name,
                                 (unsigned long long)s->st.max_context);
    }
    struct ic_plot_series ser[4] = {
        {"TTFT, fused attention", xs, ys[0], n, false, false},
        {"TTFT, unfused attention", xs, ys[1], n, false, false},
        {"compute (fused)", xs, ys[2], n, true, false},
        {"weights + attention HBM (fused)", xs, ys[3], n, true, false},
    };
    char title[320], sub[400], mark[96];
    title_of(title, sizeof title, s, base->chips);
    /* the table's own prompt marked where the curves reach it, else said */
    const bool asked_drawn = (double)base->prompt >= xs[0] && (double)base->prompt <= xs[n - 1];
    char asked[160] = "";
    if (!asked_drawn)
        snprintf(asked, sizeof asked, "; the asked %llu tokens lie outside the curves",
                 (unsigned long long)base->prompt);
    char est[IC_CLI_EST_TEXT];
    if (base->estimate == IC_EST_EXPECTED)
        ic_cli_estimate_text(s, est, sizeof est);
    else
        snprintf(est, sizeof est, "MFU %.2f%s, ideal bound",
                 base->mfu > 0 ? base->mfu : IC_PREFILL_MFU, base->mfu > 0 ? "" : " (default)");
    char what[64] = "one whole prompt";
    if (base->prompts > 1)
        snprintf(what, sizeof what, "%llu whole prompts together",
                 (unsigned long long)base->prompts);
    snprintf(sub, sizeof sub, "prefill of %s%s%s, %s%s%s", what,
             base->prefix ? (base->prompts > 1 ? " after their cached prefixes"
                                               : " after its cached prefix")
                          : "",
             a->given[IC_OPT_CHUNK] ? " (not in chunks, nor batched: the table's are)" : "",
             est,
             s->st.max_context ? "; up to the model's usable context"
                               : "; the model states no context limit",
             asked);
    if (asked_drawn)
        snprintf(mark, sizeof mark, "the asked prompt: %llu tokens",
                 (unsigned long long)base->prompt);
    else
        snprintf(mark, sizeof mark, "usable context: %llu tokens%s", (unsigned long long)usable,
                 base->prefix ? " after the prefix" : "");
    int w = a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[0] : 1600;
    int h = a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[1] : 1000;
    struct ic_plot_lines L = {.title = title, .subtitle = sub, .x_label = "prompt tokens",
                             .y_label = "time", .xlog = true, .ylog = true, .ytime = true,
                             .series = ser, .n_series = 4,
                             .vline = asked_drawn ? (double)base->prompt
                                      : s->st.max_context && n && xs[n - 1] == (double)usable
                                          ? (double)usable
                                          : 0,
                             .vline_label = mark, .nofit_from = nofit_from};
    int lrc = ic_plot_lines_write(a->plot, w, h, &L, &e);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

/* ---- specdec ---------------------------------------------------------------- */

const char ic_cli_help_specdec[] =
    "usage: infcalc specdec (--accept A | --p LIST --q LIST)\n"
    "                       (--cost-ratio C | --draft MODEL --model M --hw H) [--k K]\n"
    "\n"
    "Speculative decoding: a draft proposes k tokens, the target verifies them in\n"
    "one step. With per-token acceptance a, a verification yields on average\n"
    "(1 - a^(k+1)) / (1 - a) tokens; with the draft costing c target steps per\n"
    "token the speedup is that over k c + 1. Prints k = 1 .. 16 (on to the best k\n"
    "when it lies past 16; with --k, that k beside the best) and the best k over\n"
    "1 .. 64.\n"
    "\n"
    "\n"
    "example: infcalc specdec --accept 0.8 --draft llama3.2-1b --model llama3-70b --hw h100 "
    "--chips 8\n";

static const struct ic_col spec_cols[] = {
    {"k", "k", IC_K_INT},
    {"acceptance", "acceptance", IC_K_NUM},
    {"expected_tokens", "tokens / verification", IC_K_NUM},
    {"cost_ratio", "draft / target", IC_K_NUM},
    {"speedup", "speedup", IC_K_NUM},
    {"best", "best", IC_K_BOOL},
};

static const struct ic_col spec_costed_cols[] = {
    {"k", "k", IC_K_INT},
    {"acceptance", "acceptance", IC_K_NUM},
    {"expected_tokens", "tokens/verify", IC_K_NUM},
    {"draft_step_s", "draft step", IC_K_S},
    {"target_step_s", "target step", IC_K_S},
    {"verify_step_s", "verify step", IC_K_S},
    {"cost_ratio", "draft/target", IC_K_NUM},
    {"round_s", "round", IC_K_S},
    {"speedup", "speedup", IC_K_NUM},
    {"tokens_per_s", "tokens/s", IC_K_NUM},
    {"best", "best", IC_K_BOOL},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

/* specdec's rows, both paths: k = 1 .. 16 and on to the best k; with --k
 * (k_only), that k and the best. */
static bool spec_row(uint64_t k, uint64_t k_only, uint64_t best)
{
    return k_only ? k == k_only || k == best : k <= (best > 16 ? best : 16);
}

/* The title's "; k = K asked: speedup S" where --k is not the best. */
static void spec_asked(char *title, size_t cap, uint64_t k_only, uint64_t best, double speedup)
{
    if (k_only && k_only != best) {
        size_t l = strlen(title);
        snprintf(title + l, cap - l, "; k = %llu asked: speedup %.3fx",
                 (unsigned long long)k_only, speedup);
    }
}

int ic_cli_cmd_specdec(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    int rc;
    struct ic_cli_setup s;
    memset(&s, 0, sizeof s);
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    bool have_a = a->given[IC_OPT_ACCEPT], have_pq = a->given[IC_OPT_P] || a->given[IC_OPT_Q];
    if (have_a == have_pq)
        return ic_cli_usage_hint(errf, "e.g. 'infcalc specdec --accept 0.8 --cost-ratio 0.05'",
                                 "specdec needs either --accept A or --p and --q (not both)");
    if (have_pq && !(a->given[IC_OPT_P] && a->given[IC_OPT_Q]))
        return ic_cli_usage_hint(errf, "e.g. '--p 0.6,0.3,0.1 --q 0.5,0.4,0.1'",
                                 "--p and --q go together: the target's and the draft's "
                                 "distributions");
    bool draft = a->given[IC_OPT_DRAFT];
    if (draft == a->given[IC_OPT_COST_RATIO])
        return ic_cli_usage_hint(errf, "--cost-ratio 0.05 states the draft step's cost; --draft "
                                       "llama3-8b --model llama3-70b --hw h100 computes it",
                                 "specdec needs either --cost-ratio C or --draft MODEL (not "
                                 "both)");
    if (!draft && (a->given[IC_OPT_MODEL] || a->given[IC_OPT_HW]))
        return ic_cli_usage_hint(errf, "add --draft MODEL (and drop --cost-ratio) to cost the "
                                       "steps on --hw",
                                 "--model and --hw cost the steps of a --draft model; with "
                                 "--cost-ratio leave them out");
    double acc = 0, c = 0;
    uint64_t k_only = 0;
    if (have_a)
        acc = a->accept;
    if (have_pq) {
        size_t np = (size_t)a->n[IC_OPT_P], nq = (size_t)a->n[IC_OPT_Q];
        struct ic_err e = {0};
        int lrc = np != nq ? ic_err_set(&e, IC_EINVAL, NULL, 0, 0,
                                        "--p has %zu probabilities and --q %zu; they describe "
                                        "the same tokens", np, nq)
                           : ic_spec_accept(a->p, a->q, np, &acc, &e);
        if (np != nq)
            ic_err_hint(&e, "give one probability per token in both, in the same order");
        if (lrc)
            return ic_cli_report(errf, lrc, &e);
    }
    if (a->given[IC_OPT_COST_RATIO])
        c = a->cost_ratio;
    if (a->given[IC_OPT_DRAFT_LEN])
        k_only = a->draft_len;
    struct ic_rows r;
    char title[800];
    if (!draft) {
        enum ic_format fmt = (enum ic_format)a->format;
        for (int o = 0; o < IC_OPT_COUNT; o++)
            if (a->given[o] && o != IC_OPT_ACCEPT && o != IC_OPT_P && o != IC_OPT_Q &&
                o != IC_OPT_COST_RATIO && o != IC_OPT_DRAFT_LEN && o != IC_OPT_FORMAT &&
                o != IC_OPT_DB &&
                o != IC_OPT_HELP && o != IC_OPT_VERSION)
                return ic_cli_usage_hint(errf, "with --cost-ratio give only --accept (or --p "
                                               "and --q), --k and --format",
                                         "--cost-ratio takes no model or hardware options; "
                                         "use --draft MODEL to cost the steps");
        double best_s;
        uint64_t best = ic_spec_best_k(acc, c, IC_SPEC_MAX_K, &best_s);
        ic_rows_init(&r, spec_cols, (int)(sizeof spec_cols / sizeof spec_cols[0]));
        /* rows as the --draft path's (the best past 16 was in the title alone) */
        for (uint64_t k = 1; k <= IC_SPEC_MAX_K; k++) {
            if (!spec_row(k, k_only, best))
                continue;
            if (ic_rows_add(&r)) {
                ic_rows_free(&r);
                return ic_cli_oom(errf);
            }
            ic_rows_num(&r, "k", (double)k);
            ic_rows_num(&r, "acceptance", acc);
            ic_rows_num(&r, "expected_tokens", ic_spec_tokens(acc, k));
            ic_rows_num(&r, "cost_ratio", c);
            ic_rows_num(&r, "speedup", ic_spec_speedup(acc, k, c));
            ic_rows_num(&r, "best", k == best);
        }
        snprintf(title, sizeof title,
                 "speculative decoding, acceptance %.6g, draft/target cost %.4g\n"
                 "best k (1-64): %llu, speedup %.3fx%s",
                 acc, c, (unsigned long long)best, best_s,
                 best_s < 1 ? " (slower than plain decoding: do not speculate)" : "");
        spec_asked(title, sizeof title, k_only, best,
                   k_only ? ic_spec_speedup(acc, k_only, c) : 0);
        rc = ic_cli_write_rows(out, errf, fmt, &r, title, !k_only || k_only != best);
        ic_rows_free(&r);
        return rc;
    }
    struct ic_opts b = *a; /* ic_cli_setup() rejects nothing specdec-specific */
    b.n_pos = 0;
    if ((rc = ic_cli_setup(&b, db, "specdec", &s, errf)))
        return rc;
    struct ic_model *dm = malloc(sizeof *dm);
    struct ic_model_stats dst;
    struct ic_err e = {0};
    int lrc;
    if (!dm) {
        ic_cli_setup_free(&s);
        return ic_cli_oom(errf);
    }
    if ((lrc = ic_db_model(db, a->draft, dm, &e)) ||
        (lrc = ic_model_derive(dm, &dst, &e))) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    ic_cli_model_typo(errf, dm);
    /* the draft at its own weight type where --weights is not given (a
     * config.json's shipped one, as the target's is; else the default) */
    enum ic_dtype draft_w = a->given[IC_OPT_WEIGHTS] ? s.dec.weights : ic_decode_defaults().weights;
    if ((rc = ic_cli_model_weights(a, errf, dm, &draft_w)))
        goto out;
    ic_cli_warn_context(errf, &s.st, s.m->name, s.dec.context, "--context");
    /* the draft reads the same context: its own limit too */
    ic_cli_warn_context(errf, &dst, dm->name, s.dec.context, "--context");
    {
        /* the draft runs on the same chips: its weights, KV and workspace too */
        struct ic_decode_cfg dc = s.dec;
        dc.weights = draft_w;
        const double draft_B = ic_decode_mem_per_chip(&dst, &dc, dc.batch);
        ic_cli_warn_fit_extra(errf, &s, s.dec.chips, s.dec.batch, s.dec.context, draft_B,
                              "the target with its draft");
    }
    /* a tokenizer's table padded to a multiple (Qwen2.5: 151936 and 152064)
     * is the same tokenizer: warn past 1% */
    if (fabs((double)dst.vocab_size - (double)s.st.vocab_size) > 0.01 * (double)s.st.vocab_size)
        fprintf(ic_cli_warnf(errf),
                "infcalc: warning: the draft %s has a vocabulary of %llu tokens and the target "
                "%s one of %llu: a draft proposes the target's tokens (the same tokenizer)\n",
                dm->name, (unsigned long long)dst.vocab_size, s.m->name,
                (unsigned long long)s.st.vocab_size);
    ic_rows_init(&r, spec_costed_cols, (int)(sizeof spec_costed_cols / sizeof spec_costed_cols[0]));
    /* the best k over the whole range 1..64 (as the --cost-ratio path
     * searches), whatever rows are printed */
    struct ic_spec_costed all[IC_SPEC_MAX_K];
    uint64_t best = 0;
    for (uint64_t k = 1; k <= IC_SPEC_MAX_K; k++) {
        if ((lrc = ic_spec_costed(&s.st, &dst, s.h, &s.dec, draft_w, acc, k, &all[k - 1], &e))) {
            ic_rows_free(&r);
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        if (!best || all[k - 1].speedup > all[best - 1].speedup * (1 + 1e-12))
            best = k;
    }
    for (uint64_t k = 1; k <= IC_SPEC_MAX_K; k++) {
        if (!spec_row(k, k_only, best))
            continue;
        const struct ic_spec_costed *x = &all[k - 1];
        if (ic_rows_add(&r)) {
            ic_rows_free(&r);
            rc = ic_cli_oom(errf);
            goto out;
        }
        ic_cli_estimate_fields(&r, &s);
        ic_rows_num(&r, "k", (double)k);
        ic_rows_num(&r, "acceptance", acc);
        ic_rows_num(&r, "expected_tokens", x->tokens);
        ic_rows_num(&r, "draft_step_s", x->draft_s);
        ic_rows_num(&r, "target_step_s", x->target_s);
        ic_rows_num(&r, "verify_step_s", x->verify_s);
        ic_rows_num(&r, "cost_ratio", x->cost_ratio);
        ic_rows_num(&r, "round_s", x->round_s);
        ic_rows_num(&r, "speedup", x->speedup);
        ic_rows_num(&r, "tokens_per_s", x->tokens_s);
        ic_rows_num(&r, "best", k == best);
    }
    char head[320], est[IC_CLI_EST_TEXT];
    title_of(head, sizeof head, &s, s.dec.chips);
    snprintf(title, sizeof title,
             "%s\ndraft %s, batch %llu, context %llu, acceptance %.6g (%s)\n"
             "best k (1-64): %llu, speedup %.3fx%s",
             head, dm->name, (unsigned long long)s.dec.batch, (unsigned long long)s.dec.context,
             acc, ic_cli_estimate_text(&s, est, sizeof est), (unsigned long long)best, all[best - 1].speedup,
             all[best - 1].speedup < 1 ? " (slower than plain decoding)" : "");
    spec_asked(title, sizeof title, k_only, best, k_only ? all[k_only - 1].speedup : 0);
    rc = ic_cli_write_rows(out, errf, s.fmt, &r, title, !k_only || k_only != best);
    ic_rows_free(&r);
out:
    free(dm);
    ic_cli_setup_free(&s);
    return rc;
}

/* ---- prefix ------------------------------------------------------------------ */

const char ic_cli_help_prefix[] =
    "usage: infcalc prefix --model M --hw H --prefix P [--prompt T] [--hit-rate H] [options]\n"
    "\n"
    "Prefix caching: requests share a prefix of P of their T prompt tokens (a system\n"
    "prompt, a document); where the prefix's KV is cached (share H of requests,\n"
    "default 0.5), the prefill computes only the T - P new tokens (attending to the\n"
    "cached P). Prints the prefill FLOPs and TTFT with and without a hit, what is\n"
    "saved on average, the HBM (or host memory) the cached prefixes hold, and the\n"
    "time to read one back from host memory beside recomputing it.\n"
    "\n"
    "\n"
    "example: infcalc prefix --model llama3-8b --hw h100 --prompt 4096 --prefix 3000 "
    "--hit-rate 0.9\n";

static const struct ic_col prefix_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"prompt", "prompt tokens", IC_K_INT},
    {"prefix", "shared prefix", IC_K_INT},
    {"hit_rate", "hit rate", IC_K_FRAC},
    {"prefixes", "prefixes kept", IC_K_INT},
    {"full_flops", "prefill FLOPs, miss", IC_K_FLOP},
    {"hit_flops", "prefill FLOPs, hit", IC_K_FLOP},
    {"flops_saved", "FLOPs saved, on average", IC_K_FRAC},
    {"ttft_miss_s", "TTFT, miss", IC_K_S},
    {"ttft_hit_s", "TTFT, hit", IC_K_S},
    /* the mean at the hit rate (the key is older than --estimate expected) */
    {"ttft_expected_s", "TTFT at the hit rate", IC_K_S},
    {"ttft_saved_s", "TTFT saved, on average", IC_K_S},
    {"held_bytes", "KV held, all chips", IC_K_BYTES},
    {"held_per_chip_bytes", "KV held per chip", IC_K_BYTES},
    {"host_read_s", "read one back from host", IC_K_S},
    {"recompute_s", "recompute one instead", IC_K_S},
    {"reload", "faster to", IC_K_TEXT},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

int ic_cli_cmd_prefix(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup s;
    struct ic_prefix_cfg pc = {0};
    pc.hit_rate = 0.5;
    pc.n_prefixes = 1;
    int rc = setup_prefill(a, db, "prefix", &s, &pc.pf, errf);
    if (rc)
        goto out;
    if (!a->given[IC_OPT_PREFIX]) {
        rc = ic_cli_usage_hint(errf, "e.g. '--prompt 2048 --prefix 1536': a system prompt of "
                                     "1536 tokens shared by every request",
                               "prefix needs --prefix P (the shared prefix tokens)");
        goto out;
    }
    pc.prefix = a->prefix;
    ic_cli_warn_context(errf, &s.st, s.m->name, pc.pf.prompt, "--prompt");
    ic_cli_warn_fit(errf, &s, pc.pf.chips, pc.pf.prompts, pc.pf.prompt, "the prefill");
    if (a->given[IC_OPT_HIT_RATE])
        pc.hit_rate = a->hit_rate;
    if (a->given[IC_OPT_PREFIXES])
        pc.n_prefixes = a->prefixes;
    struct ic_prefix x;
    struct ic_err e = {0};
    int lrc = ic_prefix(&s.st, s.h, &pc, &x, &e);
    if (lrc) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    struct ic_rows r;
    if ((rc = one_row(&r, prefix_cols, sizeof prefix_cols / sizeof prefix_cols[0], &s,
                      errf)))
        goto out;
    ic_rows_num(&r, "chips", (double)pc.pf.chips);
    ic_rows_num(&r, "prompt", (double)pc.pf.prompt);
    ic_rows_num(&r, "prefix", (double)pc.prefix);
    ic_rows_num(&r, "hit_rate", pc.hit_rate);
    ic_rows_num(&r, "prefixes", (double)pc.n_prefixes);
    ic_rows_num(&r, "full_flops", x.full_flops);
    ic_rows_num(&r, "hit_flops", x.hit_flops);
    ic_rows_num(&r, "flops_saved", x.flops_saved);
    ic_rows_num(&r, "ttft_miss_s", x.full_s);
    ic_rows_num(&r, "ttft_hit_s", x.hit_s);
    ic_rows_num(&r, "ttft_expected_s", x.expected_s);
    ic_rows_num(&r, "ttft_saved_s", x.ttft_saved_s);
    ic_rows_num(&r, "held_bytes", x.held_bytes);
    ic_rows_num(&r, "held_per_chip_bytes", x.held_per_chip_bytes);
    ic_rows_num(&r, "host_read_s", x.host_read_s);
    ic_rows_num(&r, "recompute_s", x.recompute_s);
    /* no host link: no read-back (NaN: null, '-'), recomputing is the way */
    const bool host = !isnan(x.host_read_s);
    ic_rows_text(&r, "reload",
                 !host                           ? "recompute (no host link)"
                 : x.host_read_s < x.recompute_s ? "reload from host"
                                                 : "recompute");
    /* the prefixes' KV held beside the weights (batch 0: the weights alone) */
    struct ic_decode_cfg wc = s.dec;
    wc.chips = pc.pf.chips;
    if (x.held_per_chip_bytes + ic_decode_mem_per_chip(&s.st, &wc, 0) > s.h->hbm_capacity_B)
        fprintf(ic_cli_warnf(errf),
                "infcalc: warning: %llu %s KV (%.4g GB a chip) and the weights pass %s's "
                "%.4g GB: they cannot all be held\n",
                (unsigned long long)pc.n_prefixes, pc.n_prefixes == 1 ? "prefix's" : "prefixes'",
                x.held_per_chip_bytes / 1e9, s.h->name,
                s.h->hbm_capacity_B / 1e9);
    char est[IC_CLI_EST_TEXT], what[IC_CLI_EST_TEXT + 80];
    snprintf(what, sizeof what, "prefix caching (%s; %s)",
             ic_cli_estimate_text(&s, est, sizeof est),
             host ? "host reads over each chip's host link"
                  : "no host link: no read-back from host memory");
    rc = write_one(out, errf, &s, pc.pf.chips, what, &r);
out:
    ic_cli_setup_free(&s);
    return rc;
}

/* ---- disagg ------------------------------------------------------------------ */

const char ic_cli_help_disagg[] =
    "usage: infcalc disagg --model M --hw H [--prompt T] [--output L] [options]\n"
    "\n"
    "Prefill/decode disaggregation: prefill servers (--prefill-chips each) turn\n"
    "prompts into KV caches at prompts / prefill time; decode servers (--chips\n"
    "each, batch B) finish B sequences every L steps. The ratio of decode to\n"
    "prefill servers that keeps both busy; the split of the fewest servers of the\n"
    "rarer kind whose ratio lies within 10% of it, the other kind rounded to the\n"
    "nearest (else the closest with up to 64 of the rarer kind); the\n"
    "output tokens per second per chip of that split, and the KV hand-off (over\n"
    "the fabric when the split's servers fit one fabric domain, else the scale-out\n"
    "network; the fewer chips' side sends its shares at once).\n"
    "\n"
    "\n"
    "example: infcalc disagg --model llama3-70b --hw h100 --chips 8 --batch 64 --prompt "
    "4096 --output 512\n";

static const struct ic_col disagg_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"prompt", "prompt tokens", IC_K_INT},
    {"output", "output tokens", IC_K_INT},
    {"prefill_chips", "chips per prefill server", IC_K_INT},
    {"prompts", "prompts per prefill", IC_K_INT},
    {"decode_chips", "chips per decode server", IC_K_INT},
    {"batch", "decode batch", IC_K_INT},
    {"prefill_s", "prefill time", IC_K_S},
    {"prefill_seq_per_s", "sequences/s per prefill server", IC_K_NUM},
    {"decode_step_s", "decode step (mean context)", IC_K_S},
    {"decode_seq_per_s", "sequences/s per decode server", IC_K_NUM},
    {"ratio", "decode servers per prefill server", IC_K_NUM},
    {"n_prefill", "split: prefill servers", IC_K_INT},
    {"n_decode", "split: decode servers", IC_K_INT},
    {"tokens_per_s_per_chip", "output tokens/s per chip", IC_K_NUM},
    {"kv_transfer_bytes", "KV handed over per sequence", IC_K_BYTES},
    {"kv_transfer_s", "KV hand-off time", IC_K_S},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

int ic_cli_cmd_disagg(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup s;
    struct ic_prefill_cfg pf;
    uint64_t L = 256;
    int rc = setup_prefill(a, db, "disagg", &s, &pf, errf);
    if (rc)
        goto out;
    if (a->given[IC_OPT_OUTPUT])
        L = a->output;
    if (a->given[IC_OPT_PREFILL_CHIPS])
        pf.chips = a->prefill_chips;
    ic_cli_warn_context(errf, &s.st, s.m->name, pf.prompt + L, "--prompt + --output");
    ic_cli_warn_fit(errf, &s, pf.chips, pf.prompts, pf.prompt, "a prefill server");
    ic_cli_warn_fit(errf, &s, s.dec.chips, s.dec.batch, pf.prompt + L, "a decode server");
    struct ic_disagg x;
    struct ic_err e = {0};
    int lrc = ic_disagg(&s.st, s.h, &pf, &s.dec, L, &x, &e);
    if (lrc) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    struct ic_rows r;
    if ((rc = one_row(&r, disagg_cols, sizeof disagg_cols / sizeof disagg_cols[0], &s,
                      errf)))
        goto out;
    ic_rows_num(&r, "prompt", (double)pf.prompt);
    ic_rows_num(&r, "output", (double)L);
    ic_rows_num(&r, "prefill_chips", (double)pf.chips);
    ic_rows_num(&r, "prompts", (double)pf.prompts);
    ic_rows_num(&r, "decode_chips", (double)s.dec.chips);
    ic_rows_num(&r, "batch", (double)s.dec.batch);
    ic_rows_num(&r, "prefill_s", x.prefill_s);
    ic_rows_num(&r, "prefill_seq_per_s", x.prefill_seq_s);
    ic_rows_num(&r, "decode_step_s", x.decode_step_s);
    ic_rows_num(&r, "decode_seq_per_s", x.decode_seq_s);
    ic_rows_num(&r, "ratio", x.ratio);
    ic_rows_num(&r, "n_prefill", (double)x.n_prefill);
    ic_rows_num(&r, "n_decode", (double)x.n_decode);
    ic_rows_num(&r, "tokens_per_s_per_chip", x.tokens_s_chip);
    ic_rows_num(&r, "kv_transfer_bytes", x.kv_bytes);
    ic_rows_num(&r, "kv_transfer_s", x.kv_transfer_s);
    char est[IC_CLI_EST_TEXT], what[IC_CLI_EST_TEXT + 48];
    snprintf(what, sizeof what, "prefill/decode disaggregation (%s)",
             ic_cli_estimate_text(&s, est, sizeof est));
    rc = write_one(out, errf, &s, s.dec.chips, what, &r);
out:
    ic_cli_setup_free(&s);
    return rc;
}

/* ---- cost ----------------------------------------------------------------------- */

const char ic_cli_help_cost[] =
    "usage: infcalc cost --model M --hw H [options]\n"
    "\n"
    "Dollars per million output tokens of a decode configuration (price per\n"
    "chip-hour x chips / 3600 / tokens per second), per million prompt tokens of\n"
    "its prefill, and FLOPs per dollar: the chip's peak, and what the decode step\n"
    "and the prefill actually use.\n"
    "\n"
    "\n"
    "example: infcalc cost --model llama3-70b --hw v5e --chips 16 --batch 32\n";

static const struct ic_col cost_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"batch", "batch", IC_K_INT},
    {"context", "context", IC_K_INT},
    {"usd_per_chip_hour", "price per chip-hour", IC_K_USD},
    {"usd_per_hour", "price per hour, all chips", IC_K_USD},
    {"tokens_per_s", "output tokens/s", IC_K_NUM},
    {"usd_per_million_output_tokens", "$/M output tokens", IC_K_USD},
    {"prompt", "prompt tokens", IC_K_INT},
    {"usd_per_million_prompt_tokens", "$/M prompt tokens", IC_K_USD},
    {"peak_flops_per_usd", "peak FLOPs per $", IC_K_FLOP},
    {"decode_flops_per_usd", "decode FLOPs per $", IC_K_FLOP},
    {"decode_mfu", "decode MFU", IC_K_FRAC},
    {"prefill_flops_per_usd", "prefill FLOPs per $", IC_K_FLOP},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

int ic_cli_cmd_cost(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct ic_cli_setup s;
    struct ic_prefill_cfg pf;
    int rc = setup_prefill(a, db, "cost", &s, &pf, errf);
    if (rc)
        goto out;
    double price = s.h->usd_per_chip_hour;
    if (a->given[IC_OPT_PRICE])
        price = a->price;
    s.h->usd_per_chip_hour = price;
    /* an entry without a price and no --price: every cost not known (NaN:
     * null in JSON, '-' in the table), never $0 */
    const bool priced = ic_hw_has_price(s.h);
    if (!priced)
        price = NAN;
    struct ic_point p;
    struct ic_prefill q;
    struct ic_err e = {0};
    int lrc;
    ic_cli_warn_context(errf, &s.st, s.m->name, s.dec.context, "--context");
    ic_cli_warn_context(errf, &s.st, s.m->name, pf.prompt, "--prompt");
    ic_cli_warn_fit(errf, &s, s.dec.chips, s.dec.batch, s.dec.context, "the decode batch");
    ic_cli_warn_fit(errf, &s, pf.chips, pf.prompts, pf.prompt, "the prefill");
    if ((lrc = ic_decode(&s.st, s.h, &s.dec, &p, &e)) ||
        (lrc = ic_prefill(&s.st, s.h, &pf, &q, &e))) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    const double N = (double)s.dec.chips, C = ic_hw_peak(s.h, s.dec.compute);
    const double usd_s = price * N / 3600.0; /* dollars per second, all chips */
    struct ic_rows r;
    if ((rc = one_row(&r, cost_cols, sizeof cost_cols / sizeof cost_cols[0], &s,
                      errf)))
        goto out;
    ic_rows_num(&r, "chips", N);
    ic_rows_num(&r, "batch", (double)s.dec.batch);
    ic_rows_num(&r, "context", (double)s.dec.context);
    ic_rows_num(&r, "usd_per_chip_hour", price);
    ic_rows_num(&r, "usd_per_hour", price * N);
    ic_rows_num(&r, "tokens_per_s", p.tokens_s);
    ic_rows_num(&r, "usd_per_million_output_tokens", p.usd_per_mtok);
    ic_rows_num(&r, "prompt", (double)pf.prompt);
    ic_rows_num(&r, "usd_per_million_prompt_tokens", q.usd_per_mtok);
    ic_rows_num(&r, "peak_flops_per_usd", C * 3600.0 / price);
    ic_rows_num(&r, "decode_flops_per_usd", p.flops / p.step_s / usd_s);
    ic_rows_num(&r, "decode_mfu", p.flops / p.step_s / (N * C));
    ic_rows_num(&r, "prefill_flops_per_usd", q.flops / q.prefill_s / usd_s);
    char est[IC_CLI_EST_TEXT], what[IC_CLI_EST_TEXT + 100];
    snprintf(what, sizeof what, "cost (%s%s", ic_cli_estimate_text(&s, est, sizeof est),
             priced ? "; price from the hw entry unless --price)"
                    : ")\nnote: the entry has no price; --price USD gives one");
    rc = write_one(out, errf, &s, s.dec.chips, what, &r);
out:
    ic_cli_setup_free(&s);
    return rc;
}

/* ---- bestofn -------------------------------------------------------------------- */

const char ic_cli_help_bestofn[] =
    "usage: infcalc bestofn --success P (--n N | --target Q) [--model M --hw H] [options]\n"
    "\n"
    "Best-of-N sampling: the chance that N independent candidates include a\n"
    "success of probability P is 1 - (1 - P)^N. --target Q gives the smallest N\n"
    "reaching Q. Without --n or --target prints N = 1, 2, 4 ... 64. The cost: N x\n"
    "the output tokens; with --model and --hw, the time (one prefill of the shared\n"
    "prompt, then the output decoded as a batch of N) and the dollars per request.\n"
    "\n"
    "\n"
    "example: infcalc bestofn --success 0.2 --target 0.9 --model llama3-8b --hw h100\n";

static const struct ic_col bon_cols[] = {
    {"n", "N", IC_K_INT},
    {"success", "one candidate", IC_K_FRAC},
    {"p_any", "any of N", IC_K_FRAC},
    {"output_tokens", "output tokens", IC_K_INT},
    {"time_s", "time", IC_K_S},
    {"usd_per_request", "$ per request", IC_K_USD},
    /* JSON and CSV only: what the steps were timed at (the title says it) */
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
};

int ic_cli_cmd_bestofn(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    int rc;
    struct ic_cli_setup s;
    memset(&s, 0, sizeof s);
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    if (!a->given[IC_OPT_SUCCESS])
        return ic_cli_usage_hint(errf, "e.g. 'infcalc bestofn --success 0.3 --target 0.9'",
                                 "bestofn needs --success P (one candidate's chance)");
    if (a->given[IC_OPT_N] && a->given[IC_OPT_TARGET])
        return ic_cli_usage_hint(errf, "--n costs N candidates; --target finds the fewest that "
                                       "reach the chance",
                                 "give --n N or --target Q, not both");
    double p, target = 0;
    uint64_t n_only = 0, L = 256;
    p = a->success;
    if (!(p > 0 && p < 1))
        return ic_cli_usage_hint(errf, "a chance of 0 or 1 leaves nothing to choose; e.g. "
                                       "'--success 0.3'",
                                 "--success: %s; expected a chance strictly between 0 and 1",
                                 a->text[IC_OPT_SUCCESS]);
    if (a->given[IC_OPT_TARGET]) {
        target = a->target;
        if (!(target > 0 && target < 1))
            return ic_cli_usage_hint(errf, target >= 1 ? "no finite number of candidates "
                                                         "reaches a chance of 1; e.g. "
                                                         "'--target 0.99'"
                                                       : "one candidate already has a chance "
                                                         "above 0; e.g. '--target 0.99'",
                                     "--target: %s; expected a chance strictly between 0 and "
                                     "1", a->text[IC_OPT_TARGET]);
        n_only = ic_bestofn_needed(p, target);
        if (n_only > IC_BESTOFN_MAX_N) {
            /* the count itself: exact below the search's 2^24 cap, the
             * closed form past it */
            char need[32];
            if (n_only < (UINT64_C(1) << 24))
                snprintf(need, sizeof need, "%llu", (unsigned long long)n_only);
            else
                snprintf(need, sizeof need, "%.4g", ceil(log1p(-target) / log1p(-p) - 1e-9));
            return ic_cli_usage_hint(errf, "ask for a lower --target, or raise --success",
                                     "--target %s needs %s candidates at --success %s; at "
                                     "most %d",
                                     a->text[IC_OPT_TARGET], need, a->text[IC_OPT_SUCCESS],
                                     IC_BESTOFN_MAX_N);
        }
    }
    if (a->given[IC_OPT_N])
        n_only = a->n_cand;
    if (a->given[IC_OPT_OUTPUT])
        L = a->output;
    bool timed = a->given[IC_OPT_MODEL] || a->given[IC_OPT_HW];
    struct ic_prefill_cfg pf = ic_prefill_defaults();
    if (timed) {
        if ((rc = ic_cli_setup(a, db, "bestofn", &s, errf)))
            return rc;
        parse_prefill(a, &s, &pf);
    } else {
        ic_cli_decode_opts(a, &s);
        for (int o = 0; o < IC_OPT_COUNT; o++)
            if (a->given[o] && o != IC_OPT_SUCCESS && o != IC_OPT_N && o != IC_OPT_TARGET &&
                o != IC_OPT_OUTPUT && o != IC_OPT_FORMAT && o != IC_OPT_DB &&
                o != IC_OPT_HELP && o != IC_OPT_VERSION)
                return ic_cli_usage_hint(errf, "e.g. '--model llama3-8b --hw h100'; without "
                                               "them only the chances are computed",
                                         "%s costs the candidates on hardware, as the step "
                                         "options do: add --model and --hw",
                                         ic_opt_name(o));
    }
    struct ic_rows r;
    /* without hardware, no time or cost columns: the first four */
    ic_rows_init(&r, bon_cols, timed ? (int)(sizeof bon_cols / sizeof bon_cols[0]) : 4);
    struct ic_err e = {0};
    struct ic_prefill q;
    int lrc = 0;
    /* as disagg and optimize: a request of at most 2^26 tokens */
    if (timed && ((lrc = ic_request_tokens_check(pf.prompt, L, &e)) ||
                  (lrc = ic_prefill(&s.st, s.h, &pf, &q, &e)))) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    if (timed) {
        ic_cli_warn_context(errf, &s.st, s.m->name, pf.prompt + L, "--prompt + --output");
        /* the N candidates decoded as one batch, at their longest */
        ic_cli_warn_fit(errf, &s, s.dec.chips, n_only ? n_only : 64, pf.prompt + L,
                        n_only ? "the candidates' batch" : "the batch of 64 candidates");
    }
    for (uint64_t n = n_only ? n_only : 1; n <= (n_only ? n_only : 64); n *= 2) {
        double t = 0, usd = 0;
        if (timed) {
            struct ic_decode_cfg d = s.dec;
            d.batch = n;
            d.context = pf.prompt + L / 2; /* the mean context over the output */
            struct ic_point pt;
            if ((lrc = ic_decode(&s.st, s.h, &d, &pt, &e))) {
                ic_rows_free(&r);
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
            /* the prefill gives each candidate its first token; L - 1
             * decode steps give the rest (as simulate and check-published count;
             * disagg and optimize charge L steps a request) */
            t = q.ttft_s + (double)(L - 1) * pt.step_s;
            /* no price in the entry: no cost (null, '-') */
            usd = ic_hw_usd(s.h, (double)d.chips * t);
        }
        if (ic_rows_add(&r)) {
            ic_rows_free(&r);
            rc = ic_cli_oom(errf);
            goto out;
        }
        ic_rows_num(&r, "n", (double)n);
        ic_rows_num(&r, "success", p);
        ic_rows_num(&r, "p_any", ic_bestofn(p, n));
        ic_rows_num(&r, "output_tokens", (double)(n * L));
        if (timed) {
            ic_rows_num(&r, "time_s", t);
            ic_rows_num(&r, "usd_per_request", usd);
            ic_cli_estimate_fields(&r, &s);
        }
        if (n_only)
            break;
    }
    char title[800];
    if (timed) {
        char head[320], est[IC_CLI_EST_TEXT];
        title_of(head, sizeof head, &s, s.dec.chips);
        snprintf(title, sizeof title,
                 "%s\nbest-of-N: prompt %llu tokens prefilled once, %llu output tokens per "
                 "candidate decoded as a batch of N (%s)",
                 head, (unsigned long long)pf.prompt, (unsigned long long)L,
                 ic_cli_estimate_text(&s, est, sizeof est));
    } else {
        snprintf(title, sizeof title, "best-of-N, %llu output tokens per candidate%s",
                 (unsigned long long)L, " (add --model and --hw for time and cost)");
    }
    if (target > 0) {
        size_t l = strlen(title);
        /* the target as given: any rounding of 0.99999999999 reads 1 */
        snprintf(title + l, sizeof title - l, "\nN for a %s chance: %llu", a->text[IC_OPT_TARGET],
                 (unsigned long long)n_only);
    }
    rc = ic_cli_write_rows(out, errf, s.fmt, &r, title, !n_only);
    ic_rows_free(&r);
out:
    ic_cli_setup_free(&s);
    return rc;
}

/* ---- optimize ---------------------------------------------------------------------- */

const char ic_cli_help_optimize[] =
    "usage: infcalc optimize --model M --ttft TIME --tpot TIME [--prompt T] [--output L]\n"
    "                        [--hw LIST] [--max-chips N] [--max-pp P] [--rate R]\n"
    "                        [--estimate ideal|expected] [--engine NAME]\n"
    "                        [--rank cost|capacity] [--top N] [--plot FILE]\n"
    "\n"
    "Searches every chip in hwdb (or --hw a,b,c) x decode layouts (tensor-parallel\n"
    "tp = 1, 2, 4 ... x pipeline stages pp = 1, 2, 4 ... up to --max-pp, tp x pp up\n"
    "to --max-chips, micro-batches 1, 2, 4 ... pp) x weights bf16/fp8/int8/int4/fp4 x\n"
    "KV bf16/fp8 x compute (bf16, or fp8/int8/fp4 with weights of that type where\n"
    "the chip has it; fp4 only so) x batch for the lowest dollars per million output\n"
    "tokens meeting both SLOs. Prefill runs on its own servers (the tensor-parallel\n"
    "replica with the least chip-time whose TTFT meets the SLO); decode on the\n"
    "layout and largest batch whose step at the last output token meets the TPOT\n"
    "(or the multiple of the micro-batches below it, where that costs less a token).\n"
    "Each pipeline stage holds its layers' weights and cache; a pass sends its\n"
    "activations to the next stage over the fabric, or the scale-out network once tp\n"
    "x pp leaves the fabric's domain. With --rate (requests/s) each row says the\n"
    "replicas the demand takes (replicas multiply throughput at the same latency:\n"
    "each runs its batch's steps back to back, no queueing counted, and the TTFT is\n"
    "the unloaded one; simulate or --rank capacity time a load), the chips they come\n"
    "to and their cost per output token at that rate (whole servers, idle time\n"
    "included), and the rows are ranked by that cost.\n"
    "Prints the N cheapest (default 10): tp, pp, micro-batches, replicas, batch,\n"
    "TPOT (and the same step at the entry's achieved rates, the expected estimate,\n"
    "where it has them for the compute type), the step at the mean context, tokens/s\n"
    "per decode chip, the fit (memory held over capacity: the batch may fill all of\n"
    "it, or --mem-util of it, as --rank capacity's pool takes 0.9 unless given) and\n"
    "the prefill share of chip-time. Decode at the ideal bound, so a TPOT met here is met at a lower\n"
    "bound of the steps (infcalc --estimate expected on a row states its expected\n"
    "step); prefill at MFU 0.4, an assumption rather than a bound (an entry's\n"
    "achieved GEMM rate may be above it).\n"
    "\n"
    "--estimate expected (or --engine NAME, which implies it) searches at the steps\n"
    "real kernels take instead: decode and prefill at each entry's achieved rates\n"
    "(published microbenchmarks: 'infcalc show hw NAME'), with the engine's profile\n"
    "where given (its launches, host time, efficiencies, and at most its default\n"
    "batch, max_batch); the TPOT column beside is then the ideal bound's. A chip's\n"
    "compute type without an achieved GEMM rate is not searched, and said.\n"
    "\n"
    "--rank capacity ranks by simulation instead: the --shortlist cheapest rows of\n"
    "the closed form without a pipeline (the simulator runs one tensor-parallel\n"
    "replica) are simulated as colocated replicas (prefill and decode on the same\n"
    "chips) under Poisson load with simulate's workload options, their capacity is\n"
    "the largest rate meeting the P99 TTFT and TPOT SLOs (an offline run, then 10\n"
    "runs narrowing it to under 0.75%), and they are ranked by dollars per million\n"
    "output tokens at that capacity. At most shortlist x 11 x --requests simulated\n"
    "requests (16 x 11 x 2000 = 352,000 by default, ~4 s at 1e5 requests/s).\n"
    "\n"
    "example: infcalc optimize --model llama3-70b --ttft 2s --tpot 50ms --prompt 4096 "
    "--output 512\n";

/* the closed form's rows; the simulated ranking's (colocated replicas
 * without a pipeline: no prefill servers, share or stage send; P99s at the
 * capacity) */
static const struct ic_col opt_cols[] = {
    {"rank", "#", IC_K_INT},
    {"hw", "hardware", IC_K_TEXT},
    {"weights", "weights", IC_K_TEXT},
    {"kv", "KV", IC_K_TEXT},
    {"compute", "compute", IC_K_TEXT},
    {"estimate", NULL, IC_K_TEXT}, /* the search's (the title says it) */
    {"engine", NULL, IC_K_TEXT},
    {"prefill_chips", "prefill chips", IC_K_INT},
    {"prefill_servers", "prefill servers", IC_K_INT},
    {"tp", "tp", IC_K_INT},
    {"pp", "pp", IC_K_INT},
    {"micro", "micro", IC_K_INT},
    {"replicas", "replicas", IC_K_INT},
    {"decode_chips", "decode chips", IC_K_INT},
    {"batch", "batch", IC_K_INT},
    {"ttft_s", "TTFT", IC_K_S},
    {"tpot_s", "TPOT", IC_K_S},
    /* the same step at the other estimate, under one key whatever the
     * search's (its heading names it): at the entry's achieved rates beside
     * the ideal bound (null where it has none for the compute type), how
     * far the TPOT may move; the ideal bound beside the expected */
    {"tpot_other_s", "TPOT expected", IC_K_S},
    {"step_s", "step", IC_K_S},
    {"send_s", "stage send", IC_K_S},
    /* the decode servers' chips alone ($/M tokens counts the prefill
     * servers' chip-time too; the capacity ranking's chips serve both) */
    {"decode_tokens_per_s_per_chip", "decode tok/s/chip", IC_K_NUM},
    {"fit", "fit", IC_K_FRAC},
    {"prefill_share", "prefill share", IC_K_FRAC},
    {"usd_per_million_tokens", "$/M tokens", IC_K_USD},
    /* with --rate only (the last three of each list): the chips provisioned,
     * the rate over what their busier pool takes (ic_opt_cand.load) and
     * their cost per output token at the rate, idle time included */
    {"chips_total", "chips in all", IC_K_INT},
    {"load", "load", IC_K_FRAC},
    {"usd_per_million_tokens_at_rate", "$/M at the rate", IC_K_USD},
};
static const struct ic_col opt_cap_cols[] = {
    {"rank", "#", IC_K_INT},
    {"hw", "hardware", IC_K_TEXT},
    {"weights", "weights", IC_K_TEXT},
    {"kv", "KV", IC_K_TEXT},
    {"compute", "compute", IC_K_TEXT},
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
    {"tp", "tp", IC_K_INT},
    {"pp", "pp", IC_K_INT},
    {"micro", "micro", IC_K_INT},
    {"replicas", "replicas", IC_K_INT},
    {"decode_chips", "chips", IC_K_INT},
    {"batch", "mean batch", IC_K_INT},
    {"ttft_s", "TTFT p99", IC_K_S},
    {"tpot_s", "TPOT p99", IC_K_S},
    {"step_s", "step", IC_K_S},
    {"tokens_per_s_per_chip", "tok/s/chip", IC_K_NUM},
    {"fit", "fit", IC_K_FRAC},
    {"capacity_per_s", "capacity req/s", IC_K_NUM},
    {"usd_per_million_tokens", "$/M tokens", IC_K_USD},
    {"chips_total", "chips in all", IC_K_INT},
    {"load", "load", IC_K_FRAC},
    {"usd_per_million_tokens_at_rate", "$/M at the rate", IC_K_USD},
};

/* Chips grouped by why a search leaves them out: "no achieved int8 GEMM
 * rate: a, b; ..." */
enum { N_WHY = 8 };
struct reasons {
    char whys[N_WHY][64], whos[N_WHY][600];
};

static void reason_add(struct reasons *r, bool named[N_WHY], const char *why, const char *chip)
{
    int k = 0;
    while (k < N_WHY - 1 && r->whys[k][0] && strcmp(r->whys[k], why) != 0)
        k++;
    snprintf(r->whys[k], sizeof r->whys[k], "%s", why);
    if (!named[k]) {
        named[k] = true;
        const size_t l = strlen(r->whos[k]);
        snprintf(r->whos[k] + l, sizeof r->whos[k] - l, "%s%s", l ? ", " : "", chip);
    }
}

static int plot_optimize(const char *path, const int *size, const struct ic_hw *hws,
                         size_t n_hw, const struct ic_opt_point *pts, size_t n, const char *title,
                         const char *sub, double tpot_slo, FILE *errf);

int ic_cli_cmd_optimize(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    int rc;
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    if (!a->given[IC_OPT_MODEL] || !a->given[IC_OPT_TTFT] || !a->given[IC_OPT_TPOT])
        return ic_cli_usage_hint(errf, "e.g. 'infcalc optimize --model llama3-70b --ttft 2s "
                                       "--tpot 50ms'",
                                 "optimize needs --model, --ttft and --tpot ('infcalc optimize "
                                 "--help')");
    struct ic_opt_req req = {.prompt = 2048, .output = 256, .max_chips = 64};
    uint64_t top = 10;
    enum ic_format fmt = (enum ic_format)a->format;
    const bool by_cap = a->rank == IC_RANK_CAPACITY;
    req.ttft_s = a->ttft_s;
    req.tpot_s = a->tpot_s;
    if (a->given[IC_OPT_PROMPT])
        req.prompt = a->prompt;
    if (a->given[IC_OPT_OUTPUT])
        req.output = a->output;
    if (a->given[IC_OPT_TOP])
        top = a->top;
    if (a->given[IC_OPT_MAX_CHIPS])
        req.max_chips = a->max_chips;
    if (a->given[IC_OPT_MAX_PP])
        req.max_pp = a->max_pp;
    if (a->given[IC_OPT_RATE]) {
        /* a demand provisions replicas: none (0, simulate's offline run)
         * or a vanishing one would leave the ranking at a cost of no chips */
        if (!(a->rate >= 1e-9))
            return ic_cli_usage_hint(errf, "leave --rate out to rank by the chips' time alone",
                                     "--rate %g: expected a demand from 1e-9 to 1e6 requests "
                                     "per second", a->rate);
        req.rate = a->rate;
    }
    if (a->given[IC_OPT_MFU])
        req.mfu = a->mfu;
    if (a->given[IC_OPT_MEM_UTIL])
        req.mem_util = a->mem_util;
    /* the ideal bound unless asked */
    req.estimate = ic_cli_estimate(a, IC_EST_IDEAL);
    if ((rc = ic_cli_mfu_check(a, req.estimate, errf)))
        return rc;
    /* a type the search does not try would narrow it to nothing ("0
     * configurations meet the SLOs") or drop out of a list unsaid */
    for (int k = 0; k < 2; k++) {
        const enum ic_opt o = k ? IC_OPT_KV : IC_OPT_WEIGHTS;
        for (int i = 0; a->given[o] && i < a->n[o]; i++) {
            const int t = k ? a->kv[i] : a->weights[i];
            if (!ic_optimize_searches((enum ic_dtype)t, k))
                return ic_cli_usage_hint(errf,
                                         k ? "the search tries KV bf16 and fp8"
                                           : "the search tries weights bf16, fp8, int8, int4 "
                                             "and fp4 (with fp4 compute)",
                                         "%s %s: optimize does not search that type; 'infcalc "
                                         "--model M --hw H %s %s' times it",
                                         ic_opt_table[o].name,
                                         ic_dtype_traits((enum ic_dtype)t)->name,
                                         ic_opt_table[o].name,
                                         ic_dtype_traits((enum ic_dtype)t)->name);
            if (k)
                req.kv_mask |= 1u << t;
            else
                req.weights_mask |= 1u << t;
        }
    }
    /* the simulation's options mean something only when it runs */
    static const enum ic_opt sim_only[] = {
        IC_OPT_REQUESTS, IC_OPT_PROMPT_DIST, IC_OPT_PROMPT_CV, IC_OPT_OUTPUT_DIST,
        IC_OPT_OUTPUT_CV, IC_OPT_MAX_SEQS, IC_OPT_MAX_TOKENS, IC_OPT_SCHEDULER,
        IC_OPT_SEED, IC_OPT_BLOCK, IC_OPT_SHORTLIST};
    for (size_t i = 0; !by_cap && i < sizeof sim_only / sizeof sim_only[0]; i++)
        if (a->given[sim_only[i]])
            return ic_cli_usage_hint(errf, "add --rank capacity, or leave the option out",
                                     "%s needs --rank capacity (the closed form simulates "
                                     "nothing)", ic_opt_table[sim_only[i]].name);
    int crc = by_cap ? ic_cli_sim_check(a, errf) : 0;
    if (crc)
        return crc;
    if (by_cap) {
        /* the capacity search's runs under a rate leave out a tenth of
         * their requests as the warm-up (ic_serving_capacity) */
        const uint64_t runs = a->given[IC_OPT_REQUESTS] ? a->requests : 2000;
        ic_cli_few_requests_note(errf, runs - runs / 10);
    }
    if (!(req.ttft_s > 0) || !(req.tpot_s > 0))
        return ic_cli_usage_hint(errf, "a zero target is met by no configuration; e.g. "
                                       "'--ttft 2s --tpot 50ms'",
                                 "--ttft and --tpot must be positive times");

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct ic_err e = {0};
    struct ic_model *m = malloc(sizeof *m);
    struct ic_model_stats st;
    struct ic_hw *hws = NULL;
    /* ranking by capacity draws its shortlist from the closed form's best */
    const size_t n_cf = by_cap ? IC_OPTIMIZE_MAX_TOP : top;
    struct ic_opt_cand *cands = calloc(n_cf, sizeof *cands);
    struct ic_opt_cand *ranked = by_cap ? calloc(top, sizeof *ranked) : NULL;
    uint64_t sim_requests = 0;
    size_t shortlist = a->given[IC_OPT_SHORTLIST] ? a->shortlist : 16, n_sim = 0, n_simd = 0;
    struct ic_opt_point *fr = NULL;
    struct ic_engine *en = NULL;
    size_t n_hw = 0, n_fr = 0, n_ok = 0;
    char **paths = NULL;
    size_t n_paths = 0;
    int lrc;
    rc = 0;
    if (!m || !cands || (by_cap && !ranked)) {
        rc = ic_cli_oom(errf);
        goto out;
    }
    if ((lrc = ic_db_model(db, a->model[0], m, &e)) ||
        (lrc = ic_model_derive(m, &st, &e))) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    ic_cli_model_typo(errf, m);
    ic_cli_warn_context(errf, &st, m->name, req.prompt + req.output, "--prompt + --output");
    if (a->given[IC_OPT_HW]) {
        hws = calloc((size_t)a->n[IC_OPT_HW], sizeof *hws);
        if (!hws) {
            rc = ic_cli_oom(errf);
            goto out;
        }
        for (int i = 0; i < a->n[IC_OPT_HW]; i++, n_hw++)
            if ((lrc = ic_db_hw(db, a->hw[i], &hws[i], &e))) {
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
        /* one entry named twice (h100 and h100-sxm) or two files of one
         * name: refused, as decode does */
        const char *hp[IC_OPT_MAX_LIST], *hn[IC_OPT_MAX_LIST];
        for (size_t i = 0; i < n_hw; i++)
            hp[i] = hws[i].path, hn[i] = hws[i].name;
        if ((rc = ic_cli_named_twice(errf, "--hw", a->hw, hp, hn, (int)n_hw)))
            goto out;
    } else {
        if ((lrc = ic_db_paths(db, IC_DB_HW, &paths, &n_paths, &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        hws = calloc(n_paths ? n_paths : 1, sizeof *hws);
        if (!hws) {
            rc = ic_cli_oom(errf);
            goto out;
        }
        for (size_t i = 0; i < n_paths; i++, n_hw++)
            if ((lrc = ic_hw_load(paths[i], &hws[i], &e))) {
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
    }
    /* the search ranks by price: an entry without one (as bench writes them)
     * would rank as free, so it is left out, and said */
    char unpriced[300] = "";
    size_t n_priced = 0;
    for (size_t i = 0; i < n_hw; i++) {
        if (ic_hw_has_price(&hws[i])) {
            if (n_priced != i)
                hws[n_priced] = hws[i];
            n_priced++;
        } else {
            size_t l = strlen(unpriced);
            snprintf(unpriced + l, sizeof unpriced - l, "%s%s", l ? ", " : "", hws[i].name);
        }
    }
    if (!n_priced) {
        rc = ic_cli_usage_hint(errf, "give the entry a price (usd_per_chip_hour in its YAML) "
                                     "or choose priced chips ('infcalc list hw')",
                               "optimize ranks by price, and %s %s none", unpriced,
                               n_hw == 1 ? "has" : "have");
        goto out;
    }
    n_hw = n_priced;
    /* an engine's profile adds to achieved rates: every chip searched
     * must have them */
    for (size_t i = 0; i < n_hw; i++)
        if ((rc = ic_cli_engine_check(a, &hws[i], errf)))
            goto out;
    if ((rc = ic_cli_load_engine(a, db, &en, errf)))
        goto out;
    req.engine = en;
    /* the cache past the KV heads as the option, or the engine, places it
     * for any step */
    struct ic_decode_cfg opt_dec;
    ic_opts_decode_cfg(a, &opt_dec);
    ic_opts_engine_cfg(a, en, &opt_dec);
    req.kv_copy = opt_dec.kv_copy;
    /* fp4 weights are searched with fp4 compute only: asked for alone on
     * chips without it, the search is empty for a reason the SLOs are not */
    if (req.weights_mask == 1u << IC_DT_FP4) {
        bool any = false;
        for (size_t i = 0; i < n_hw && !any; i++)
            any = ic_hw_peak(&hws[i], IC_DT_FP4) > 0;
        if (!any) {
            rc = ic_cli_usage_hint(errf, "choose a chip with fp4 compute (b200), or other "
                                         "--weights",
                                   "--weights fp4: the search runs fp4 weights with fp4 "
                                   "compute, which none of the chips searched has");
            goto out;
        }
    }
    /* at the expected estimate, a chip's compute type without an achieved
     * GEMM rate cannot be timed: not searched, and said (all of them: an
     * error, not "no configuration meets the SLOs"); the chips searched
     * are those with one type timed */
    char untimed[5400] = "";
    /* the chips of each reason, "no achieved int8 GEMM rate: a, b" */
    struct reasons r_untimed = {0};
    size_t n_timed_hw = 0;
    for (size_t i = 0; i < n_hw; i++) {
        bool timed = false, runs = false; /* runs: a compute type the search pairs */
        bool named[N_WHY] = {false};        /* each chip once a reason */
        for (int w = 0; w < IC_DT_COUNT; w++) {
            if (!ic_optimize_searches((enum ic_dtype)w, false) ||
                (req.weights_mask && !(req.weights_mask & (1u << w))))
                continue;
            for (int ci = 0; ci < IC_OPTIMIZE_COMPUTES; ci++) {
                const enum ic_dtype c = ic_optimize_compute(&hws[i], (enum ic_dtype)w, ci);
                char why[64];
                if (c == IC_DT_COUNT)
                    continue;
                runs = true;
                if (ic_optimize_times(&hws[i], c, req.estimate, why, sizeof why))
                    timed = true;
                else
                    reason_add(&r_untimed, named, why, hws[i].name);
            }
        }
        if (!runs) /* ic_optimize_compute's types, or those --weights leaves */
            reason_add(&r_untimed, named,
                       req.weights_mask ? "no peak of a compute type its --weights run in"
                                        : "no bf16, fp16, fp8, int8 or fp4 peak",
                       hws[i].name);
        n_timed_hw += timed;
    }
    for (int k = 0; k < N_WHY && r_untimed.whys[k][0]; k++) {
        const size_t l = strlen(untimed);
        snprintf(untimed + l, sizeof untimed - l, "%s%s: %s", l ? "; " : "", r_untimed.whys[k],
                 r_untimed.whos[k]);
    }
    const bool expected = req.estimate == IC_EST_EXPECTED;
    if (!n_timed_hw) {
        rc = expected ? ic_cli_usage_hint(errf, "add '--estimate ideal' (the spec-sheet bound), "
                                                "or choose chips with achieved rates ('infcalc "
                                                "show hw NAME' lists them)",
                                          "the expected estimate can time none of the "
                                          "configurations searched: %s",
                                          untimed)
                      : ic_cli_usage_hint(errf, "the search computes in bf16 (fp16 on a chip "
                                                "without it), or in fp8, int8 or fp4 with "
                                                "weights of that type; give the entry's compute "
                                                "section one of them",
                                          "none of the chips runs a configuration the search "
                                          "tries: %s",
                                          untimed);
        goto out;
    }
    if (untimed[0]) /* the table's title says what the expected estimate left out */
        if (!expected || fmt != IC_FMT_TABLE)
            fprintf(ic_cli_warnf(errf), "infcalc: note: not searched%s: %s\n",
                    expected ? " at the expected estimate" : "", untimed);
    if ((lrc = ic_optimize(&st, hws, n_hw, &req, cands, n_cf, &n_ok,
                           a->given[IC_OPT_PLOT] ? &fr : NULL, &n_fr, &e))) {
        rc = ic_cli_report(errf, lrc, &e);
        goto out;
    }
    if (by_cap) {
        struct ic_sim_cfg base;
        ic_opts_sim_cfg(a, &base);
        ic_cli_sim_engine(a, en, &base);
        size_t n_in = n_ok < n_cf ? n_ok : n_cf;
        if ((lrc = ic_optimize_capacity(&st, &req, &base, cands, n_in, shortlist, ranked, top,
                                        &n_sim, &n_simd, &sim_requests, &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    struct ic_rows r;
    const bool at_rate = req.rate > 0, at_expected = req.estimate == IC_EST_EXPECTED;
    /* the closed form's columns, the other estimate's TPOT headed by its name */
    struct ic_col cols[sizeof opt_cols / sizeof opt_cols[0]];
    memcpy(cols, opt_cols, sizeof cols);
    for (size_t i = 0; at_expected && i < sizeof cols / sizeof cols[0]; i++)
        if (strcmp(cols[i].key, "tpot_other_s") == 0)
            cols[i].head = "TPOT ideal";
    if (by_cap)
        ic_rows_init(&r, opt_cap_cols,
                     (int)(sizeof opt_cap_cols / sizeof opt_cap_cols[0]) - (at_rate ? 0 : 3));
    else
        ic_rows_init(&r, cols, (int)(sizeof cols / sizeof cols[0]) - (at_rate ? 0 : 3));
    const struct ic_opt_cand *rows = by_cap ? ranked : cands;
    const size_t n_rows = by_cap ? n_sim : n_ok;
    size_t shown = n_rows < top ? n_rows : top;
    for (size_t i = 0; i < shown; i++) {
        const struct ic_opt_cand *c = &rows[i];
        if (ic_rows_add(&r)) {
            ic_rows_free(&r);
            rc = ic_cli_oom(errf);
            goto out;
        }
        ic_rows_num(&r, "rank", (double)(i + 1));
        ic_rows_text(&r, "hw", c->hw->name);
        ic_rows_text(&r, "weights", dtn(c->weights));
        ic_rows_text(&r, "kv", dtn(c->kv));
        ic_rows_text(&r, "compute", dtn(c->compute));
        ic_cli_estimate_fields_of(&r, req.estimate, req.engine);
        ic_rows_num(&r, "tp", (double)c->tp);
        ic_rows_num(&r, "pp", (double)c->pp);
        ic_rows_num(&r, "micro", (double)c->micro);
        ic_rows_num(&r, "replicas", (double)c->replicas);
        ic_rows_num(&r, "decode_chips", (double)c->decode_chips);
        ic_rows_num(&r, "batch", (double)c->batch);
        ic_rows_num(&r, "ttft_s", c->ttft_s);
        ic_rows_num(&r, "tpot_s", c->tpot_s);
        ic_rows_num(&r, "step_s", c->step_s);
        ic_rows_num(&r, by_cap ? "tokens_per_s_per_chip" : "decode_tokens_per_s_per_chip",
                    c->tokens_s_chip);
        ic_rows_num(&r, "fit", c->mem_share);
        if (by_cap) {
            ic_rows_num(&r, "capacity_per_s", c->capacity_rps);
        } else {
            /* the row's TPOT step (the last token's context) at the
             * other estimate: expected (a good engine) beside the ideal
             * bound, the ideal bound beside the expected; the layout, the
             * types and the cache's placement the search's step had */
            struct ic_decode_cfg d =
                ic_opt_decode_cfg(&req, c->tp, c->pp, c->micro, c->weights, c->kv, c->compute);
            d.batch = c->batch;
            d.context = req.prompt + req.output;
            d.estimate = at_expected ? IC_EST_IDEAL : IC_EST_EXPECTED;
            d.engine = NULL;
            struct ic_point ep;
            ic_rows_num(&r, "tpot_other_s",
                        (at_expected || ic_step_achieved(c->hw, IC_EST_EXPECTED)) &&
                                ic_decode(&st, c->hw, &d, &ep, NULL) == IC_OK
                            ? ep.step_s
                            : NAN);
            ic_rows_num(&r, "prefill_chips", (double)c->prefill_chips);
            ic_rows_num(&r, "prefill_servers", (double)c->prefill_replicas);
            ic_rows_num(&r, "send_s", c->send_s);
            ic_rows_num(&r, "prefill_share", c->prefill_share);
        }
        ic_rows_num(&r, "usd_per_million_tokens", c->usd_per_mtok);
        if (at_rate) {
            ic_rows_num(&r, "chips_total", (double)c->chips_total);
            ic_rows_num(&r, "load", c->load);
            ic_rows_num(&r, "usd_per_million_tokens_at_rate", c->usd_per_mtok_at_rate);
        }
    }
    char title[8400], ttft[32], tpot[32];
    ic_report_time(ttft, sizeof ttft, req.ttft_s);
    ic_report_time(tpot, sizeof tpot, req.tpot_s);
    char how[1100], demand[400] = "", est[160];
    if (at_expected)
        snprintf(est, sizeof est, "the expected estimate: each entry's achieved rates, %s%s",
                 en ? "engine " : "a good engine", en ? en->name : "");
    else
        snprintf(est, sizeof est, "the ideal bound");
    if (by_cap)
        snprintf(how, sizeof how,
                 "ranked by simulated capacity under the P99 SLOs (%s): the %zu "
                 "cheapest closed-form replicas without a pipeline simulated colocated, %llu "
                 "requests in all; TTFT and TPOT are P99s at the capacity, batch the mean",
                 est, n_simd, (unsigned long long)sim_requests);
    else if (at_expected)
        snprintf(how, sizeof how,
                 "ranked by the closed form at %s (decode and prefill, the prefill on its own "
                 "servers at the achieved GEMM rate; decode at the largest batch meeting the "
                 "TPOT in all of the chip's memory); TPOT at the last token (ideal: the "
                 "spec-sheet bound of the same step), step at the mean context",
                 est);
    else
        snprintf(how, sizeof how,
                 "ranked by the closed form (decode at the ideal bound: real steps are slower, "
                 "a TPOT met at it is optimistic; prefill on its own servers at MFU 0.4, an "
                 "assumption rather than a bound; decode at the largest batch meeting the "
                 "TPOT in all of the chip's memory); TPOT at the last token (expected: at the "
                 "entry's achieved rates, a good engine), step at the mean context");
    if (req.rate > 0)
        snprintf(demand, sizeof demand,
                 "; replicas for %.4g requests/s, ranked by the cost of their chips at that rate "
                 "(whole servers, idle time included; %s)",
                 req.rate,
                 by_cap ? "'load' is the rate over the replicas' simulated capacity under the "
                          "P99 SLOs"
                        : "no queueing counted: 'load' is the rate over what the busier pool "
                          "takes all busy, the TTFT the unloaded one, so P99s at the rate come "
                          "from --rank capacity or simulate");
    if (unpriced[0]) {
        size_t l = strlen(how);
        snprintf(how + l, sizeof how - l, "\nleft out, without a price: %s", unpriced);
    }
    snprintf(title, sizeof title,
             "%s, prompt %llu, output %llu tokens; SLOs: TTFT <= %s, TPOT <= %s%s\n%s%s%s\n"
             "%zu chip type%s searched in %.0f ms; %zu configurations meet the SLOs%s",
             m->name, (unsigned long long)req.prompt, (unsigned long long)req.output, ttft, tpot,
             demand, how, untimed[0] ? "\nnot searched at the expected estimate: " : "",
             untimed, n_timed_hw, n_timed_hw == 1 ? "" : "s", ms, n_rows,
             n_rows ? "" : ": none does (relax the SLOs or shorten the request)");
    if (!n_rows && fmt != IC_FMT_TABLE)
        fprintf(errf, "infcalc: no configuration meets TTFT <= %s and TPOT <= %s\n", ttft, tpot);
    rc = ic_cli_write_rows(out, errf, fmt, &r, title, true);
    ic_rows_free(&r);
    if (!rc && a->given[IC_OPT_PLOT] && !n_fr)
        rc = ic_cli_usage_hint(errf, "relax --ttft or --tpot, or shorten the request: the chart "
                                     "draws the configurations that meet them",
                               "--plot: nothing to draw, no configuration meets TTFT <= %s and "
                               "TPOT <= %s", ttft, tpot);
    else if (!rc && a->given[IC_OPT_PLOT]) {
        char sub[400];
        snprintf(sub, sizeof sub, "prompt %llu, output %llu tokens; prefill at its cheapest "
                                  "replica meeting TTFT <= %s; %s",
                 (unsigned long long)req.prompt, (unsigned long long)req.output, ttft,
                 at_expected ? est : "ideal bound");
        char t2[200];
        snprintf(t2, sizeof t2, "%s: cheapest $ per million output tokens at each TPOT",
                 m->name);
        rc = plot_optimize(a->plot, a->given[IC_OPT_PLOT_SIZE] ? a->plot_size : NULL, hws, n_hw,
                           fr, n_fr,
                           t2, sub, req.tpot_s, errf);
    }
out:
    free(en);
    free(fr);
    free(cands);
    free(ranked);
    free(hws);
    free(m);
    ic_db_paths_free(paths, n_paths);
    return rc;
}

static int cmp_point(const void *a, const void *b)
{
    const struct ic_opt_point *x = a, *y = b;
    if (x->hw != y->hw)
        return x->hw - y->hw;
    return (x->tpot_s > y->tpot_s) - (x->tpot_s < y->tpot_s);
}

/* Per chip type, the cheapest cost at each TPOT: points sorted by TPOT, kept
 * when cheaper than every faster one. */
static int plot_optimize(const char *path, const int *size, const struct ic_hw *hws,
                         size_t n_hw, const struct ic_opt_point *pts, size_t n, const char *title,
                         const char *sub, double tpot_slo, FILE *errf)
{
    int w = size ? size[0] : 1600, h = size ? size[1] : 1000;
    struct ic_opt_point *v = malloc((n ? n : 1) * sizeof *v);
    double *xs = malloc((n ? n : 1) * sizeof *xs), *ys = malloc((n ? n : 1) * sizeof *ys);
    struct ic_plot_series *ser = calloc(n_hw ? n_hw : 1, sizeof *ser);
    if (!v || !xs || !ys || !ser) {
        free(v);
        free(xs);
        free(ys);
        free(ser);
        return ic_cli_oom(errf);
    }
    memcpy(v, pts, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_point);
    size_t k = 0, ns = 0;
    for (size_t i = 0; i < n;) {
        int hw = v[i].hw;
        size_t first = k;
        double best = INFINITY;
        for (; i < n && v[i].hw == hw; i++)
            if (v[i].usd_per_mtok < best) {
                best = v[i].usd_per_mtok;
                xs[k] = v[i].tpot_s;
                ys[k] = v[i].usd_per_mtok;
                k++;
            }
        ser[ns++] = (struct ic_plot_series){hws[hw].name, xs + first, ys + first, k - first,
                                            false, false};
    }
    struct ic_err e = {0};
    struct ic_plot_lines L = {.title = title, .subtitle = sub,
                              .x_label = "time per output token",
                              .y_label = "$ per million output tokens", .xlog = true,
                              .ylog = true, .xtime = true, .series = ser, .n_series = ns, .vline = tpot_slo,
                              .vline_label = "TPOT SLO"};
    int lrc = ic_plot_lines_write(path, w, h, &L, &e);
    free(v);
    free(xs);
    free(ys);
    free(ser);
    if (lrc)
        return ic_cli_report(errf, lrc, &e);
    return 0;
}
