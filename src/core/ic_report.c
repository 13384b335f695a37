/* ic_report: tables, CSV and JSON for decode points. */
#include "ic_report.h"

#include "ic_utf8.h"
#include "ic_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const format_names[IC_FMT_COUNT] = {
    [IC_FMT_TABLE] = "table",
    [IC_FMT_CSV] = "csv",
    [IC_FMT_JSON] = "json",
};
_Static_assert(sizeof format_names / sizeof format_names[0] == IC_FMT_COUNT, "names");

const char *ic_report_format_name(enum ic_format f) { return format_names[f]; }

int ic_report_format_parse(const char *name, enum ic_format *out)
{
    for (int f = 0; f < IC_FMT_COUNT; f++)
        if (strcmp(name, format_names[f]) == 0) {
            *out = (enum ic_format)f;
            return IC_OK;
        }
    return IC_ENOENT;
}

void ic_report_si(char *buf, size_t n, double v, const char *unit, int digits)
{
    static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
    int i = 0;
    while (fabs(v) >= 1000 && i < 7) {
        v /= 1000;
        i++;
    }
    snprintf(buf, n, "%.*g %s%s", digits, v, pre[i], unit);
}

void ic_report_bytes(char *buf, size_t n, double b)
{
    if (fabs(b) < 1000)
        snprintf(buf, n, "%.0f B", b);
    else
        ic_report_si(buf, n, b, "B", 3);
}

void ic_report_time(char *buf, size_t n, double s)
{
    /* whole seconds from 1000 s to 1e6 s ("1020 s", where %.3g wrote
     * "1.02e+03 s") */
    if (s >= 999.5 && s < 1e6)
        snprintf(buf, n, "%.0f s", s);
    else if (s >= 1)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, n, "%.3g us", s * 1e6);
    else
        snprintf(buf, n, "%.3g ns", s * 1e9);
}

void ic_report_num(char *buf, size_t n, double v, int digits)
{
    const double a = fabs(v);
    if (a >= pow(10, digits) - 0.5 && a < 1e9) /* where %g would write e+NN */
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.*g", digits, v);
}

void ic_report_heads_note(char *buf, size_t n, uint64_t chips, uint64_t heads,
                          const char *owner)
{
    char copies[32];
    ic_report_num(copies, sizeof copies, (double)chips / (double)heads, 3);
    snprintf(buf, n, "%llu chips for %s%llu query heads: a chip holds one whole head's "
                     "projections: %s copies of them are held and read",
             (unsigned long long)chips, owner, (unsigned long long)heads, copies);
}

static const char *dt(enum ic_dtype t) { return ic_dtype_traits(t)->name; }

/* JSON string with the escapes names could need; a byte that is not
 * UTF-8 (a path typed on the command line) is written as U+FFFD. */
void ic_report_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (size_t left = strlen(s); left;) {
        unsigned char c = (unsigned char)*s;
        uint32_t cp;
        size_t n = ic_utf8_seq((const unsigned char *)s, left, &cp);
        if (n == 0) {
            fputs("\\ufffd", out);
            n = 1;
        } else if (c == '"' || c == '\\') {
            fprintf(out, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(out, "\\u%04x", c);
        } else {
            fwrite(s, 1, n, out);
        }
        s += n;
        left -= n;
    }
    fputc('"', out);
}

/* The decode record: every field of a point, in the order JSON and CSV
 * print them; a dotted key is a field of a nested JSON object and a dotted
 * CSV column. README.md's "Command line" section lists them. */
static const struct ic_col point_cols[] = {
    {"model", "model", IC_K_TEXT},
    {"hw", "hardware", IC_K_TEXT},
    {"chips", "chips", IC_K_INT},
    {"pp", "pipeline stages", IC_K_INT},
    {"micro", "micro-batches", IC_K_INT},
    {"batch", "batch", IC_K_INT},
    {"context", "context", IC_K_INT},
    {"precision.weights", "weights", IC_K_TEXT},
    {"precision.weights_kept", "kept unquantized", IC_K_TEXT},
    {"precision.kv", "KV", IC_K_TEXT},
    {"precision.compute", "compute", IC_K_TEXT},
    {"estimate", "estimate", IC_K_TEXT},
    {"comm_mode", "collectives", IC_K_TEXT},
    {"engine", "engine profile", IC_K_TEXT},
    {"params", "parameters", IC_K_INT},
    {"params_active", "active parameters", IC_K_INT},
    {"kv_bytes_per_token", "KV per token", IC_K_INT},
    {"state_bytes_per_seq", "linear-attention / Mamba state per sequence", IC_K_INT},
    {"weight_read_bytes", "weights read per step", IC_K_BYTES},
    {"kv_read_bytes", "KV read per step", IC_K_BYTES},
    {"flops", "FLOPs per step", IC_K_FLOP},
    {"comm_bytes_per_chip", "all-reduced per chip", IC_K_BYTES},
    {"experts_touched", "experts touched per MoE layer", IC_K_NUM},
    {"kv_split.heads", "KV split by head", IC_K_INT},
    {"kv_split.batch", "KV split by batch", IC_K_INT},
    {"kv_split.placement", "KV past its heads", IC_K_TEXT},
    {"time.weights_s", "weight read", IC_K_S},
    {"time.gemm_fixed_s", "GEMMs' fixed time (in the weight read)", IC_K_S},
    {"time.kv_s", "KV read", IC_K_S},
    {"time.compute_s", "linear compute", IC_K_S},
    {"time.attn_compute_s", "attention compute", IC_K_S},
    {"time.comm_s", "collectives", IC_K_S},
    {"time.fixed_s", "fixed cost", IC_K_S},
    {"time.send_s", "pipeline send a pass", IC_K_S},
    {"time.step_s", "step time", IC_K_S},
    {"time_other.estimate", "other estimate", IC_K_TEXT},
    {"time_other.step_s", "its step time", IC_K_S},
    {"bound", "bound", IC_K_TEXT},
    {"tokens_per_s", "tokens/s", IC_K_NUM},
    {"tokens_per_s_per_chip", "tokens/s per chip", IC_K_NUM},
    {"latency_per_token_s", "latency per token", IC_K_S},
    {"usd_per_million_tokens", "$ per million tokens", IC_K_USD},
    {"flops_per_usd", "FLOPs per dollar", IC_K_NUM},
    {"memory.per_chip_bytes", "memory per chip", IC_K_BYTES},
    {"memory.capacity_bytes", "capacity per chip", IC_K_BYTES},
    {"memory.kind", "memory kind", IC_K_TEXT},
    {"memory.fits", "fits", IC_K_BOOL},
    {"memory.max_batch", "largest batch that fits", IC_K_INT},
    {"memory.weights_bytes", "weights held per chip", IC_K_BYTES},
    {"memory.kv_bytes", "KV held per chip", IC_K_BYTES},
    {"memory.workspace_bytes", "workspace per chip", IC_K_BYTES},
    {"b_crit", "B_crit", IC_K_NUM},
    {"b_crit_moe", "B_crit with every expert busy", IC_K_NUM},
    {"uneven_split", "heads split unevenly", IC_K_BOOL},
    /* where it does not fit: the fewest chips on which it would, by weight
     * type (the table's "fewest chips that fit" line; JSON and CSV only) */
    {"fewest_chips.bf16", NULL, IC_K_INT},
    {"fewest_chips.fp8", NULL, IC_K_INT},
    {"fewest_chips.int8", NULL, IC_K_INT},
    {"fewest_chips.int4", NULL, IC_K_INT},
    {"fewest_chips.fp4", NULL, IC_K_INT},
};
enum { N_POINT_COLS = sizeof point_cols / sizeof point_cols[0] };

/* Appends point p of group g as a row of r (over point_cols); errors are
 * kept in r (ic_rows_check). */
static void point_row(struct ic_rows *r, const struct ic_report_group *g,
                      const struct ic_point *p)
{
    const struct ic_decode_cfg *c = &p->cfg;
    if (ic_rows_add(r))
        return;
    ic_rows_text(r, "model", g->model);
    ic_rows_text(r, "hw", g->hw);
    ic_rows_num(r, "chips", (double)c->chips);
    /* stages of `chips` chips each (tokens_per_s_per_chip is over all of
     * them); micro-batches at most one a sequence (ic_step_load) */
    const uint64_t P = c->pp > 1 ? c->pp : 1, M = c->micro > 1 ? c->micro : 1;
    ic_rows_num(r, "pp", (double)P);
    ic_rows_num(r, "micro", (double)(M < c->batch ? M : c->batch));
    ic_rows_num(r, "batch", (double)c->batch);
    ic_rows_num(r, "context", (double)c->context);
    ic_rows_text(r, "precision.weights", dt(c->weights));
    ic_rows_text(r, "precision.weights_kept", p->weights_kept[0] ? p->weights_kept : "none");
    ic_rows_text(r, "precision.kv", dt(c->kv));
    ic_rows_text(r, "precision.compute", dt(c->compute));
    ic_rows_text(r, "estimate", ic_estimate_name(c->estimate));
    /* how the reported estimate joined its collectives: the expected step
     * always after the kernels (--comm sets the ideal bound's alone; this
     * said "overlap" beside a step that added them) */
    ic_rows_text(r, "comm_mode", ic_comm_mode_name(c->estimate == IC_EST_EXPECTED ? IC_COMM_SERIAL
                                                                                 : c->comm));
    ic_rows_text(r, "engine", c->engine ? c->engine->name : "none");
    ic_rows_num(r, "params", (double)p->params);
    ic_rows_num(r, "params_active", (double)p->params_active);
    ic_rows_num(r, "kv_bytes_per_token", (double)p->kv_bytes_per_token);
    ic_rows_num(r, "state_bytes_per_seq", p->state_bytes_per_seq);
    ic_rows_num(r, "weight_read_bytes", p->weight_bytes);
    ic_rows_num(r, "kv_read_bytes", p->kv_bytes);
    ic_rows_num(r, "flops", p->flops);
    ic_rows_num(r, "comm_bytes_per_chip", p->comm_bytes);
    ic_rows_num(r, "experts_touched", p->experts_touched);
    ic_rows_num(r, "kv_split.heads", (double)p->kv_split_heads);
    ic_rows_num(r, "kv_split.batch", (double)p->kv_split_batch);
    ic_rows_text(r, "kv_split.placement", p->cfg.kv_copy ? "copy" : "split");
    ic_rows_num(r, "time.weights_s", p->weights_s);
    ic_rows_num(r, "time.gemm_fixed_s", p->gemm_fixed_s);
    ic_rows_num(r, "time.kv_s", p->kv_s);
    ic_rows_num(r, "time.compute_s", p->compute_s);
    ic_rows_num(r, "time.attn_compute_s", p->attn_s);
    ic_rows_num(r, "time.comm_s", p->comm_s);
    ic_rows_num(r, "time.fixed_s", p->fixed_s);
    ic_rows_num(r, "time.send_s", p->send_s);
    ic_rows_num(r, "time.step_s", p->step_s);
    ic_rows_text(r, "time_other.estimate",
                 !p->other_known ? "none"
                 : p->cfg.estimate == IC_EST_IDEAL ? "expected" : "ideal");
    ic_rows_num(r, "time_other.step_s", p->other_known ? p->other_step_s : NAN);
    ic_rows_text(r, "bound", ic_bound_name(p->bound));
    ic_rows_num(r, "tokens_per_s", p->tokens_s);
    ic_rows_num(r, "tokens_per_s_per_chip", p->tokens_s_chip);
    ic_rows_num(r, "latency_per_token_s", p->latency_s);
    ic_rows_num(r, "usd_per_million_tokens", p->usd_per_mtok);
    ic_rows_num(r, "flops_per_usd", p->flops_per_usd);
    ic_rows_num(r, "memory.per_chip_bytes", p->mem_per_chip_B);
    ic_rows_num(r, "memory.capacity_bytes", p->capacity_B);
    ic_rows_text(r, "memory.kind", p->memory_kind);
    ic_rows_num(r, "memory.fits", p->fits);
    ic_rows_num(r, "memory.max_batch", (double)p->max_batch);
    ic_rows_num(r, "memory.weights_bytes", p->mem_weights_B);
    ic_rows_num(r, "memory.kv_bytes", p->mem_kv_B);
    ic_rows_num(r, "memory.workspace_bytes", p->mem_work_B);
    ic_rows_num(r, "b_crit", p->b_crit);
    ic_rows_num(r, "b_crit_moe", p->b_crit_moe);
    ic_rows_num(r, "uneven_split", p->uneven_split);
    /* null where it fits (or a sweep did not look); 0: no power of two of
     * chips up to the limit holds it */
    for (size_t i = 0; i < sizeof ic_decode_fewest_types / sizeof *ic_decode_fewest_types; i++) {
        char key[32];
        snprintf(key, sizeof key, "fewest_chips.%s", dt(ic_decode_fewest_types[i]));
        ic_rows_num(r, key, !p->fits && p->fewest_known ? (double)p->fewest_chips[i] : NAN);
    }
}

/* Milliseconds with three significant figures (more where the value has
 * more integer digits). */
static void ms(char *buf, size_t n, double s)
{
    double v = s * 1e3;
    int decimals = v >= 100 ? 1 : v >= 1 ? 2 : v >= 0.01 ? 3 : 4;
    snprintf(buf, n, "%.*f", decimals, v);
}

static void count(char *buf, size_t n, double v)
{
    if (v >= 100) /* whole below 1e9 */
        ic_report_num(buf, n, v, 3);
    else
        snprintf(buf, n, "%.1f", v);
}


/* Where a profile came from: "enginedb" for the database's own files, else
 * the path it was given as. */
static const char *engine_origin(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash && slash - path >= 8 && strncmp(slash - 8, "enginedb", 8) == 0 &&
        (slash - path == 8 || slash[-9] == '/'))
        return "enginedb";
    return path;
}

/* The title of a table of p (a sweep's first point; most_chips the most
 * chips of its points). */
static void table_title(FILE *out, const struct ic_report_group *r, const struct ic_point *p,
                        uint64_t most_chips, bool show_chips, bool show_ctx, bool show_prec)
{
    const struct ic_decode_cfg *c = &p->cfg;
    fprintf(out, "%s on ", r->model);
    if (!show_chips)
        fprintf(out, "%llu x ", (unsigned long long)c->chips);
    fputs(r->hw, out);
    if (c->pp > 1) {
        /* the chips named are one stage's: "4 x h100 x 2 pipeline stages (8 chips)" */
        fprintf(out, " x %llu pipeline stages", (unsigned long long)c->pp);
        if (!show_chips)
            fprintf(out, " (%llu chips)", (unsigned long long)(c->chips * c->pp));
        fprintf(out, ", %llu micro-batch%s%s", (unsigned long long)(c->micro > 1 ? c->micro : 1),
                c->micro > 1 ? "es" : "", c->micro > 1 ? " (at most one a sequence)" : "");
    }
    if (!show_ctx)
        fprintf(out, ", context %llu", (unsigned long long)c->context);
    if (!show_prec) {
        char w[IC_MODEL_KEPT_LEN + 16];
        ic_model_weights_label(w, sizeof w, c->weights, p->weights_kept);
        fprintf(out, ", weights %s, KV %s", w, dt(c->kv));
    }
    fprintf(out, ", compute %s\n", dt(c->compute));
    if (p->achieved && c->engine)
        fprintf(out, "expected time from the rates good kernels achieve on the chip (the "
                     "entry's achieved section) under engine %s (%s %s, %s); collectives after the "
                     "kernels", c->engine->name, c->engine->engine, c->engine->version,
                engine_origin(c->engine->path));
    else if (p->achieved)
        fputs("expected time from the rates good kernels achieve on the chip (the entry's "
              "achieved section) with a good engine (no --engine: graphs, overlapped "
              "scheduling, no engine overhead); collectives after the kernels", out);
    else
        fprintf(out, "%s; collectives %s",
                c->estimate == IC_EST_EXPECTED
                    ? "expected time from the hardware entry's measured figures"
                    : "ideal bound from spec-sheet peaks",
                c->comm == IC_COMM_OVERLAP ? "overlapped with the memory traffic"
                                           : "added serially");
    char cap[32];
    ic_report_bytes(cap, sizeof cap, p->capacity_B);
    fprintf(out, "; %s %s per chip\n", p->memory_kind, cap);
    fprintf(out, "params %.4g (active %.4g), KV %llu B/token", (double)p->params,
            (double)p->params_active, (unsigned long long)p->kv_bytes_per_token);
    /* sliding windows: what a sequence holds a token at this context */
    if (!show_ctx && p->kv_held_per_token < 0.995 * (double)p->kv_bytes_per_token) {
        char held[32];
        ic_report_num(held, sizeof held, p->kv_held_per_token, 6);
        fprintf(out, " (%s held a token at context %llu: sliding windows)", held,
                (unsigned long long)c->context);
    }
    if (p->state_bytes_per_seq > 0) {
        char st[32];
        ic_report_bytes(st, sizeof st, p->state_bytes_per_seq);
        fprintf(out, " + %s of linear-attention / Mamba state a sequence", st);
    }
    fprintf(out, ", B_crit %.0f", p->b_crit);
    if (p->b_crit_moe != p->b_crit)
        fprintf(out, " (MoE: ~%.0f with every expert busy)", p->b_crit_moe);
    if (!show_chips && !show_ctx && !show_prec)
        fprintf(out, ", largest batch that fits %llu", (unsigned long long)p->max_batch);
    fputs("\n", out);
    if (p->uneven_split)
        fprintf(out, "note: %llu chips do not split the query heads evenly; the busiest chip "
                     "holds the most and sets the step time\n",
                (unsigned long long)c->chips);
    if (!show_chips && !c->kv_copy && p->kv_split_batch > 1)
        fprintf(out, "note: past the KV heads the cache splits %llu ways by batch, a lower bound "
                     "on what a chip holds; tensor-parallel engines copy it to each chip "
                     "sharing a head (--kv-placement copy, or an --engine profile)\n",
                (unsigned long long)p->kv_split_batch);
    if (p->query_heads && !show_chips && c->chips > p->query_heads) {
        char note[256];
        ic_report_heads_note(note, sizeof note, c->chips, p->query_heads, "");
        fprintf(out, "note: %s\n", note);
    } else if (p->query_heads && show_chips && most_chips > p->query_heads)
        fprintf(out, "note: past %llu chips, the query heads, a chip holds one whole head's "
                     "projections: chips / %llu copies of them are held and read\n",
                (unsigned long long)p->query_heads, (unsigned long long)p->query_heads);
    fputs("\n", out);
}

/* The sweep table's cells, one row per point, each column as wide as its
 * widest cell or its heading (issue 15: a fixed width ran two values
 * together, '3.83.28e+03'), two spaces apart. */
enum { SW_MAX_COLS = 24, SW_CELL = 32 };
struct sweep_cols {
    int n;
    const char *head[SW_MAX_COLS];
    bool left[SW_MAX_COLS]; /* text: aligned left */
};

/* A column (at most 20 of the SW_MAX_COLS are ever added); its index. */
static int add_col(struct sweep_cols *c, const char *head, bool left)
{
    if (c->n == SW_MAX_COLS)
        return SW_MAX_COLS - 1; /* not reached: the table below has at most 20 */
    c->head[c->n] = head;
    c->left[c->n] = left;
    return c->n++;
}

static int table_sweep(FILE *out, const struct ic_report *rep, const struct ic_report_group *r,
                       const struct ic_point *pts, size_t n)
{
    bool show_chips = false, show_ctx = false, show_prec = false;
    for (int i = 0; i < rep->n_axes; i++) {
        show_chips |= rep->axes[i] == IC_AXIS_CHIPS;
        show_ctx |= rep->axes[i] == IC_AXIS_CONTEXT;
        show_prec |= rep->axes[i] == IC_AXIS_PRECISION;
    }
    uint64_t most = 0;
    for (size_t i = 0; i < n; i++)
        most = pts[i].cfg.chips > most ? pts[i].cfg.chips : most;
    table_title(out, r, &pts[0], most, show_chips, show_ctx, show_prec);
    /* the other estimate's step beside the step, where the entry has it;
     * the experts a step's tokens route to, for an MoE model */
    const bool other = pts[0].other_known, moe = pts[0].experts_touched > 0;
    const bool max_col = show_chips || show_ctx || show_prec;
    struct sweep_cols c = {0};
    int c_chips = show_chips ? add_col(&c, "chips", false) : -1;
    int c_wts = show_prec ? add_col(&c, "wts", true) : -1;
    int c_kvt = show_prec ? add_col(&c, "kv", true) : -1;
    int c_batch = add_col(&c, "batch", false);
    int c_ctx = show_ctx ? add_col(&c, "context", false) : -1;
    int c_step = add_col(&c, "step ms", false);
    int c_other = other ? add_col(&c, pts[0].cfg.estimate == IC_EST_IDEAL ? "expected"
                                                                          : "ideal ms",
                                  false)
                        : -1;
    int c_w = add_col(&c, "weights ms", false);
    int c_kv = add_col(&c, "kv ms", false);
    int c_comp = add_col(&c, "compute ms", false);
    int c_comm = add_col(&c, "comm ms", false);
    /* the expected step's fixed part (launches, host time, fork/joins) */
    bool any_fixed = false;
    for (size_t i = 0; i < n; i++)
        any_fixed |= pts[i].fixed_s > 0;
    int c_fixed = any_fixed ? add_col(&c, "fixed ms", false) : -1;
    int c_bound = add_col(&c, "bound", true);
    int c_exp = moe ? add_col(&c, "experts", false) : -1;
    int c_tpc = add_col(&c, "tok/s/chip", false);
    int c_tps = add_col(&c, "tok/s", false);
    int c_usd = add_col(&c, "$/Mtok", false);
    int c_mem = add_col(&c, "mem/chip GB", false);
    int c_fits = add_col(&c, "fits", true);
    int c_max = max_col ? add_col(&c, "max batch", false) : -1;
    char(*cell)[SW_MAX_COLS][SW_CELL] = calloc(n ? n : 1, sizeof *cell);
    if (!cell)
        return IC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct ic_point *p = &pts[i];
        char(*x)[SW_CELL] = cell[i];
        if (c_chips >= 0)
            snprintf(x[c_chips], SW_CELL, "%llu", (unsigned long long)p->cfg.chips);
        if (c_wts >= 0) {
            snprintf(x[c_wts], SW_CELL, "%s", dt(p->cfg.weights));
            snprintf(x[c_kvt], SW_CELL, "%s", dt(p->cfg.kv));
        }
        snprintf(x[c_batch], SW_CELL, "%llu", (unsigned long long)p->cfg.batch);
        if (c_ctx >= 0)
            snprintf(x[c_ctx], SW_CELL, "%llu", (unsigned long long)p->cfg.context);
        ms(x[c_step], SW_CELL, p->step_s);
        if (c_other >= 0) {
            if (p->other_known)
                ms(x[c_other], SW_CELL, p->other_step_s);
            else
                snprintf(x[c_other], SW_CELL, "-");
        }
        ms(x[c_w], SW_CELL, p->weights_s);
        ms(x[c_kv], SW_CELL, p->kv_s);
        ms(x[c_comp], SW_CELL, p->compute_s);
        ms(x[c_comm], SW_CELL, p->comm_s);
        if (c_fixed >= 0)
            ms(x[c_fixed], SW_CELL, p->fixed_s);
        snprintf(x[c_bound], SW_CELL, "%s", ic_bound_name(p->bound));
        if (c_exp >= 0)
            snprintf(x[c_exp], SW_CELL, "%.1f", p->experts_touched);
        count(x[c_tpc], SW_CELL, p->tokens_s_chip);
        count(x[c_tps], SW_CELL, p->tokens_s);
        /* no price in the entry: no cost */
        if (isfinite(p->usd_per_mtok))
            ic_report_num(x[c_usd], SW_CELL, p->usd_per_mtok, 3);
        else
            snprintf(x[c_usd], SW_CELL, "-");
        snprintf(x[c_mem], SW_CELL, "%.2f", p->mem_per_chip_B / 1e9);
        snprintf(x[c_fits], SW_CELL, "%s", p->fits ? "yes" : "NO");
        if (c_max >= 0)
            snprintf(x[c_max], SW_CELL, "%llu", (unsigned long long)p->max_batch);
    }
    int w[SW_MAX_COLS];
    for (int k = 0; k < c.n; k++) {
        w[k] = (int)strlen(c.head[k]);
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(cell[i][k]) > w[k])
                w[k] = (int)strlen(cell[i][k]);
    }
    /* text to the left, numbers to the right; the last column is not
     * padded out to the end of the line */
    for (int k = 0; k < c.n; k++)
        fprintf(out, "%s%*s", k ? "  " : "", c.left[k] ? (k + 1 < c.n ? -w[k] : 0) : w[k],
                c.head[k]);
    fputc('\n', out);
    /* a chips sweep: the largest useful tensor-parallel size (the rule is
     * ic_sweep_largest_useful's, shared with the chart) */
    bool by_chips = show_chips && rep->n_axes == 1;
    size_t useful = by_chips ? ic_sweep_largest_useful(pts, n) : n;
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < c.n; k++)
            fprintf(out, "%s%*s", k ? "  " : "", c.left[k] ? (k + 1 < c.n ? -w[k] : 0) : w[k],
                    cell[i][k]);
        if (i == useful && n > 1)
            fputs("  <- largest useful", out);
        fputc('\n', out);
    }
    free(cell);
    if (useful < n && n > 1) {
        const struct ic_point *u = &pts[useful];
        fprintf(out, "largest useful tensor-parallel size: %llu chips, the shortest step (%.3g ms, "
                     "%s)",
                (unsigned long long)u->cfg.chips, 1e3 * u->step_s,
                u->cfg.estimate == IC_EST_EXPECTED ? "expected" : "the ideal bound");
        if (useful + 1 < n) {
            const struct ic_point *v = &pts[useful + 1];
            fprintf(out, "; at %llu the step is %.3g ms, %.0f%% of it collectives",
                    (unsigned long long)v->cfg.chips, 1e3 * v->step_s,
                    100 * v->comm_s / v->step_s);
        }
        /* the other estimate's shortest step beside it, where it lies at
         * another size (v5e's ideal bound turns at 64 chips, its expected
         * step still falls at 256) */
        const size_t best = ic_sweep_largest_useful_of(pts, n, true);
        if (best < n && best != useful)
            fprintf(out, "; at the %s, %llu chips (%.3g ms)",
                    u->cfg.estimate == IC_EST_EXPECTED ? "ideal bound" : "expected step",
                    (unsigned long long)pts[best].cfg.chips, 1e3 * pts[best].other_step_s);
        fputc('\n', out);
    }
    return IC_OK;
}

static void table_point(FILE *out, const struct ic_report_group *r, const struct ic_point *p)
{
    char a[32], b[32], c2[32];
    table_title(out, r, p, p->cfg.chips, false, false, false);
    fprintf(out, "batch %llu, context %llu\n\n", (unsigned long long)p->cfg.batch,
            (unsigned long long)p->cfg.context);
    ic_report_time(a, sizeof a, p->step_s);
    fprintf(out, "  step time            %-12s bound: %s\n", a, ic_bound_name(p->bound));
    if (p->other_known) {
        ic_report_time(a, sizeof a, p->other_step_s);
        fprintf(out, "    %-17s  %-12s (%.2fx the %s)\n",
                p->cfg.estimate == IC_EST_IDEAL ? "expected" : "ideal bound", a,
                p->cfg.estimate == IC_EST_IDEAL ? p->other_step_s / p->step_s
                                                : p->step_s / p->other_step_s,
                p->cfg.estimate == IC_EST_IDEAL ? "ideal bound" : "ideal bound: the expected step over it");
    } else if (p->other_why[0]) {
        fprintf(out, "    %-17s  %-12s (%s)\n",
                p->cfg.estimate == IC_EST_IDEAL ? "expected" : "ideal bound", "-", p->other_why);
    }
    if (p->passes > 1) {
        fprintf(out, "    (each time below is one pass of the busiest stage; the step is %llu "
                     "passes and their sends; the figures in brackets are the whole step's)\n",
                (unsigned long long)p->passes);
        if (p->send_s > 0) {
            ic_report_time(a, sizeof a, p->send_s);
            fprintf(out, "    send to next stage %-12s (a pass's activations, each pass)\n", a);
        }
    }
    ic_report_time(a, sizeof a, p->weights_s);
    ic_report_bytes(b, sizeof b, p->weight_bytes);
    if (p->gemm_fixed_s > 0) {
        ic_report_time(c2, sizeof c2, p->gemm_fixed_s);
        fprintf(out, "    weight read        %-12s (%s over all chips; %.0f GEMMs' fixed time, %s)\n",
                a, b, p->gemms, c2);
    } else {
        fprintf(out, "    weight read        %-12s (%s over all chips)\n", a, b);
    }
    ic_report_time(a, sizeof a, p->compute_s);
    /* a measured entry's matmul reads its weights in the weight read (at
     * the batch-1 rate) and times only what the batch adds: 0 at batch 1 */
    fprintf(out, "    linear compute     %-12s (%.3g FLOP per step%s)\n", a, p->flops_linear,
            p->cfg.estimate == IC_EST_EXPECTED && !p->achieved
                ? "; the matmul's time past one pass at its batch-1 rate, which the weight "
                  "read holds"
                : "");
    ic_report_time(a, sizeof a, p->kv_s);
    ic_report_bytes(b, sizeof b, p->kv_bytes);
    if (p->cfg.chips == 1)
        fprintf(out, "    KV read            %-12s (%s)\n", a, b);
    else if (p->cfg.kv_copy && p->kv_head_div != (double)p->kv_split_heads)
        fprintf(out, "    KV read            %-12s (%s, each chip the KV heads it computes, "
                     "1/%.3g of every sequence's keys and values; copied)\n",
                a, b, p->kv_head_div);
    else if (p->cfg.kv_copy && p->kv_split_heads < p->cfg.chips)
        fprintf(out, "    KV read            %-12s (%s, each byte on the %llu chips sharing its "
                     "head; split %llu way%s by head, copied)\n",
                a, b, (unsigned long long)(p->cfg.chips / p->kv_split_heads),
                (unsigned long long)p->kv_split_heads, p->kv_split_heads == 1 ? "" : "s");
    else
        fprintf(out, "    KV read            %-12s (%s; split %llu way%s by head, %llu by batch)\n",
                a, b, (unsigned long long)p->kv_split_heads, p->kv_split_heads == 1 ? "" : "s",
                (unsigned long long)p->kv_split_batch);
    ic_report_time(a, sizeof a, p->attn_s);
    fprintf(out, "    attention compute  %-12s (%.3g FLOP per step)\n", a, p->flops_attn);
    ic_report_time(a, sizeof a, p->comm_s);
    ic_report_bytes(b, sizeof b, p->comm_bytes);
    if (p->comm_domains > 1)
        fprintf(out, "    collectives        %-12s (%s all-reduced per chip; %llu fabric domains "
                     "of %llu chip%s, joined by the scale-out network)\n",
                a, b, (unsigned long long)p->comm_domains,
                (unsigned long long)p->comm_domain_chips, p->comm_domain_chips == 1 ? "" : "s");
    else
        fprintf(out, "    collectives        %-12s (%s all-reduced per chip)\n", a, b);
    if (p->fixed_s > 0) {
        /* the expected step's fixed part, which the terms above leave out */
        ic_report_time(a, sizeof a, p->fixed_s);
        if (p->achieved && p->host_s > 0) {
            ic_report_time(b, sizeof b, p->fixed_s - p->host_s);
            ic_report_time(c2, sizeof c2, p->host_s);
            fprintf(out, "    fixed cost         %-12s (%.0f kernel launch%s, %s; the engine's "
                         "host time, %s%s)\n",
                    a, p->launches, p->launches == 1 ? "" : "es", b, c2,
                    p->passes > 1 ? ", once a step, not a pass" : "");
        } else if (p->achieved) {
            fprintf(out, "    fixed cost         %-12s (%.0f kernel launch%s)\n", a, p->launches,
                    p->launches == 1 ? "" : "es");
        } else {
            fprintf(out, "    fixed cost         %-12s (the kernel's fork/joins, matmul starts "
                         "and row work, measured by bench)\n",
                    a);
        }
    }
    ic_report_num(a, sizeof a, p->tokens_s, 4);
    ic_report_num(b, sizeof b, p->tokens_s_chip, 4);
    fprintf(out, "  throughput           %s tokens/s, %s tokens/s per chip\n", a, b);
    if (isfinite(p->usd_per_mtok)) {
        ic_report_num(a, sizeof a, p->usd_per_mtok, 3);
        fprintf(out, "  cost                 $%s per million tokens, %.3g FLOPs per dollar\n", a,
                p->flops_per_usd);
    } else {
        fputs("  cost                 - (the entry has no price)\n", out);
    }
    ic_report_bytes(a, sizeof a, p->mem_per_chip_B);
    ic_report_bytes(b, sizeof b, p->capacity_B);
    fprintf(out, "  memory per chip      %s of %s: %s\n", a, b, p->fits ? "fits" : "DOES NOT FIT");
    ic_report_bytes(a, sizeof a, p->mem_weights_B);
    ic_report_bytes(b, sizeof b, p->mem_kv_B);
    ic_report_bytes(c2, sizeof c2, p->mem_work_B);
    fprintf(out, "    weights %s, KV %s, workspace %s\n", a, b, c2);
    fprintf(out, "  largest batch that fits  %llu\n", (unsigned long long)p->max_batch);
    if (!p->fits && p->fewest_known) {
        if (p->cfg.pp > 1)
            fprintf(out,
                    "  fewest chips a stage that fit (a power of two; %llu stages, this batch and "
                    "context, KV %s):",
                    (unsigned long long)p->cfg.pp, dt(p->cfg.kv));
        else
            fprintf(out,
                    "  fewest chips that fit (a power of two; this batch and context, KV %s):",
                    dt(p->cfg.kv));
        for (int i = 0; i < 5; i++) {
            char n[32] = "none";
            if (p->fewest_chips[i])
                snprintf(n, sizeof n, "%llu", (unsigned long long)p->fewest_chips[i]);
            fprintf(out, "%s %s weights %s", i ? "," : "", dt(ic_decode_fewest_types[i]), n);
        }
        fputc('\n', out);
    }
    if (p->experts_touched > 0)
        fprintf(out, "  experts touched per MoE layer  %.1f\n", p->experts_touched);
}

/* JSON or CSV: every group's points as rows of the decode record. */
static int write_record(FILE *out, enum ic_format fmt, const struct ic_report *r,
                        const struct ic_report_group *groups, size_t n_groups)
{
    struct ic_rows rows;
    struct ic_err e = {0};
    ic_rows_init(&rows, point_cols, N_POINT_COLS);
    for (size_t g = 0; g < n_groups; g++)
        for (size_t i = 0; i < groups[g].n; i++)
            point_row(&rows, &groups[g], &groups[g].pts[i]);
    int rc = ic_rows_check(&rows, &e);
    if (!rc && fmt == IC_FMT_CSV) {
        rc = ic_rows_write(out, fmt, &rows, NULL, true, &e);
    } else if (!rc) {
        if (r->array)
            fputs("[\n", out);
        for (size_t i = 0; i < rows.n; i++) {
            ic_rows_json_row(out, &rows, i, r->array ? "  " : "");
            fputs(r->array && i + 1 < rows.n ? ",\n" : "\n", out);
        }
        if (r->array)
            fputs("]\n", out);
    }
    ic_rows_free(&rows);
    return rc;
}

int ic_report_write(FILE *out, enum ic_format fmt, const struct ic_report *r,
                    const struct ic_report_group *groups, size_t n_groups)
{
    if (fmt == IC_FMT_JSON || fmt == IC_FMT_CSV) {
        int rc = write_record(out, fmt, r, groups, n_groups);
        if (rc)
            return rc;
    } else {
        for (size_t g = 0; g < n_groups; g++) {
            const struct ic_report_group *gr = &groups[g];
            if (g)
                fputc('\n', out);
            if (r->sweep) {
                int rc = table_sweep(out, r, gr, gr->pts, gr->n);
                if (rc)
                    return rc;
            } else
                table_point(out, gr, &gr->pts[0]);
        }
    }
    fflush(out);
    return ferror(out) ? IC_EIO : IC_OK;
}
