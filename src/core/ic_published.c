/* ic_published: the published-measurement CSV and the error statistics (see
 * the header). */
#include "ic_published.h"

#include "ic_decode.h"
#include "ic_engine.h"
#include "ic_opt.h"
#include "ic_serving.h"
#include "ic_sim.h"
#include "ic_utf8.h"
#include "ic_ydoc.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const kind_names[IC_PUB_KIND_COUNT] = {
    [IC_PUB_DECODE_B1] = "decode_b1",
    [IC_PUB_DECODE_CONCURRENCY] = "decode_concurrency",
    [IC_PUB_STEP] = "step",
    [IC_PUB_THROUGHPUT_OFFLINE] = "throughput_offline",
    [IC_PUB_THROUGHPUT_SERVER] = "throughput_server",
};
static const char *const quantity_names[IC_PUBQ_COUNT] = {
    [IC_PUBQ_TOKENS_PER_S_PER_SEQ] = "tokens_per_s_per_seq",
    [IC_PUBQ_TPOT] = "tpot",
    [IC_PUBQ_STEP_TIME] = "step_time",
    [IC_PUBQ_OUTPUT_TOKENS_PER_S] = "output_tokens_per_s",
    [IC_PUBQ_ITL_MEDIAN] = "itl_median",
    [IC_PUBQ_E2E_LATENCY] = "e2e_latency",
};

const char *ic_pub_kind_name(enum ic_pub_kind k) { return kind_names[k]; }
const char *ic_pub_quantity_name(enum ic_pub_quantity q) { return quantity_names[q]; }

/* ---- CSV ------------------------------------------------------------------ */

enum { MAX_COLS = 64 };

struct field {
    char *text;        /* NUL-terminated, unquoted, in the record buffer */
    unsigned line, col; /* where it starts */
};

struct csv {
    const char *path;
    const char *p, *end;
    unsigned line, col;
};

/* A NUL byte, in a quoted field or not: -1, the error at it */
static int nul_byte(const struct csv *c, struct ic_err *err)
{
    ic_err_set(err, IC_EINVAL, c->path, c->line, c->col, "a NUL byte in the file");
    ic_err_hint(err, "the measurement file is UTF-8 text (a UTF-16 file, as some spreadsheets "
                     "save, reads as NUL bytes: save it as UTF-8 CSV)");
    return -1;
}

/* Reads one record into f (at most MAX_COLS fields) with its text copied
 * into buf (at least as long as the input). Returns the number of fields, 0
 * at the end of input, or -1 with err filled. */
static int record(struct csv *c, struct field *f, char **buf, struct ic_err *err)
{
    if (c->p >= c->end)
        return 0;
    int n = 0;
    for (;;) {
        if (n == MAX_COLS)
            return ic_err_set(err, IC_EINVAL, c->path, c->line, c->col,
                              "more than %d columns in a row", MAX_COLS),
                   -1;
        f[n].text = *buf;
        f[n].line = c->line;
        f[n].col = c->col;
        char *o = *buf;
        if (c->p < c->end && *c->p == '"') {
            const unsigned ql = c->line, qc = c->col;
            c->p++, c->col++;
            for (;;) {
                if (c->p >= c->end) {
                    ic_err_set(err, IC_EINVAL, c->path, ql, qc, "a quoted field never ends");
                    ic_err_hint(err, "a quote inside a field is written twice (\"\")");
                    return -1;
                }
                if (*c->p == '"') {
                    if (c->p + 1 < c->end && c->p[1] == '"') {
                        *o++ = '"';
                        c->p += 2, c->col += 2;
                        continue;
                    }
                    c->p++, c->col++;
                    break;
                }
                if (*c->p == '\n')
                    c->line++, c->col = 0;
                if (*c->p == '\0')
                    return nul_byte(c, err);
                *o++ = *c->p++;
                c->col++;
            }
            if (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
                ic_err_set(err, IC_EINVAL, c->path, c->line, c->col,
                           "text after a quoted field's closing quote");
                ic_err_hint(err, "quote the whole field; a quote inside it is written twice");
                return -1;
            }
        } else {
            while (c->p < c->end && *c->p != ',' && *c->p != '\n' && *c->p != '\r') {
                if (*c->p == '"') {
                    ic_err_set(err, IC_EINVAL, c->path, c->line, c->col,
                               "a quote inside an unquoted field");
                    ic_err_hint(err, "quote the whole field: \"like \"\"this\"\"\"");
                    return -1;
                }
                if (*c->p == '\0')
                    return nul_byte(c, err);
                *o++ = *c->p++;
                c->col++;
            }
        }
        *o++ = '\0';
        *buf = o;
        n++;
        if (c->p >= c->end)
            return n;
        if (*c->p == ',') {
            c->p++, c->col++;
            continue;
        }
        if (*c->p == '\r')
            c->p++;
        if (c->p < c->end && *c->p == '\n')
            c->p++;
        c->line++, c->col = 1;
        return n;
    }
}

/* ---- rows ----------------------------------------------------------------- */

enum col {
    C_ID, C_USE, C_KIND, C_ENGINE, C_ENGINE_VERSION, C_HW, C_CHIPS, C_TP, C_MODEL, C_WEIGHTS,
    C_KV, C_COMPUTE, C_CONCURRENCY, C_INPUT, C_OUTPUT, C_QUANTITY, C_VALUE, C_UNIT, C_SOURCE,
    C_SOURCE_WHERE, C_SOURCE_DATE, C_PREFILL, C_MAX_TOKENS, C_COUNT
};
static const char *const col_names[C_COUNT] = {
    "id", "use", "kind", "engine", "engine_version", "hw", "chips", "tp", "model", "weights",
    "kv", "compute", "concurrency", "input_tokens", "output_tokens", "quantity", "value", "unit",
    "source", "source_where", "source_date", "includes_prefill", "max_batched_tokens",
};

static int bad(const char *path, const struct field *f, struct ic_err *err, const char *what,
               const char *hint)
{
    ic_err_set(err, IC_EINVAL, path, f->line, f->col, "%s", what);
    ic_err_hint(err, "%s", hint);
    return IC_EINVAL;
}

static int pick(const char *const *names, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

static int count_field(const char *path, const struct field *f, const char *name, uint64_t lo,
                       uint64_t hi, uint64_t *out, struct ic_err *err)
{
    char why[256], msg[400];
    if (ic_count_parse(f->text, out, why, sizeof why)) {
        snprintf(msg, sizeof msg, "'%s': %s", name, why);
        return bad(path, f, err, msg, "a whole number without sign or unit, e.g. 8");
    }
    if (*out < lo || *out > hi) {
        snprintf(msg, sizeof msg, "%llu is out of range; expected %llu to %llu",
                 (unsigned long long)*out, (unsigned long long)lo, (unsigned long long)hi);
        return bad(path, f, err, msg, "chips, tp, concurrency and lengths are per row");
    }
    return IC_OK;
}

static int dtype_field(const char *path, const struct field *f, enum ic_dtype *out,
                       struct ic_err *err)
{
    if (ic_dtype_parse(f->text, out) == 0)
        return IC_OK;
    char msg[400];
    snprintf(msg, sizeof msg, "unknown number type '%s'", f->text);
    return bad(path, f, err, msg, "one of fp32 bf16 fp16 fp8 int8 int4 fp4");
}

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
}

/* Sequences one replica runs: the row's concurrency over chips / tp
 * replicas, rounded up (0 where a throughput row states none). */
static uint64_t batch_per_replica(const struct ic_pub_row *r)
{
    const uint64_t replicas = r->chips / r->tp;
    return (r->concurrency + replicas - 1) / replicas;
}

/* The column of a field's first control character or byte that is not
 * UTF-8 (what a table would print raw to the terminal), 0 if none. */
static unsigned text_bad(const struct field *f, const char **why)
{
    const unsigned char *t = (const unsigned char *)f->text;
    const size_t n = strlen(f->text);
    unsigned col = f->col;
    for (size_t i = 0; i < n; col++) {
        uint32_t cp;
        const size_t k = ic_utf8_seq(t + i, n - i, &cp);
        if (!k || cp < 0x20 || cp == 0x7f) {
            *why = !k ? "a byte that is not UTF-8" : "a control character";
            return col;
        }
        i += k;
    }
    return 0;
}

static int days_in(int y, int m)
{
    static const int d[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && ((y % 4 == 0 && y % 100) || y % 400 == 0) ? 29 : d[m - 1];
}

/* A source date (where one is given): YYYY, YYYY-MM or YYYY-MM-DD, a real
 * one, then nothing or a space and a note ("2025 (the page states no
 * date)"). */
static bool date_ok(const char *t)
{
    int y = 0, m = 0, d = 0, n = 0;
    const size_t len = strlen(t);
    if (len >= 10 && sscanf(t, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == 10) {
        if (!(m >= 1 && m <= 12 && d >= 1 && d <= days_in(y, m)))
            return false;
    } else if (len >= 7 && sscanf(t, "%4d-%2d%n", &y, &m, &n) == 2 && n == 7) {
        if (!(m >= 1 && m <= 12))
            return false;
    } else if (!(len >= 4 && sscanf(t, "%4d%n", &y, &n) == 1 && n == 4)) {
        return false;
    }
    for (int i = 0; i < n; i++)
        if (!(t[i] == '-' || (t[i] >= '0' && t[i] <= '9')))
            return false;
    return y >= 1990 && y <= 2100 && (t[n] == 0 || t[n] == ' ');
}

static int parse_row(const char *path, const struct field *f, const int *at, struct ic_pub_row *r,
                     struct ic_err *err)
{
    int rc;
    for (int i = 0; i < C_COUNT; i++) {
        const char *why;
        unsigned col;
        if (at[i] >= 0 && (col = text_bad(&f[at[i]], &why))) {
            ic_err_set(err, IC_EINVAL, path, f[at[i]].line, col, "'%s': %s", col_names[i], why);
            ic_err_hint(err, "a field is UTF-8 text without control characters (the tables "
                             "print it as it is)");
            return IC_EINVAL;
        }
    }
    if (at[C_SOURCE_DATE] >= 0 && f[at[C_SOURCE_DATE]].text[0] &&
        !date_ok(f[at[C_SOURCE_DATE]].text))
        return bad(path, &f[at[C_SOURCE_DATE]], err,
                   "'source_date': expected YYYY-MM-DD, YYYY-MM or YYYY, a real date",
                   "the source's date, e.g. 2024-10-10; a note may follow after a space");
    copy(r->id, sizeof r->id, f[at[C_ID]].text);
    const struct field *use = &f[at[C_USE]];
    if (strcmp(use->text, "validation") && strcmp(use->text, "calibration"))
        return bad(path, use, err, "'use' must be validation or calibration",
                   "validation rows judge the estimates; calibration rows tuned them");
    r->calibration = strcmp(use->text, "calibration") == 0;
    const struct field *k = &f[at[C_KIND]];
    int ki = pick(kind_names, IC_PUB_KIND_COUNT, k->text);
    if (ki < 0)
        return bad(path, k, err, "unknown kind",
                   "decode_b1, decode_concurrency, step, throughput_offline or "
                   "throughput_server");
    r->kind = (enum ic_pub_kind)ki;
    copy(r->engine, sizeof r->engine, f[at[C_ENGINE]].text);
    copy(r->engine_version, sizeof r->engine_version, f[at[C_ENGINE_VERSION]].text);
    copy(r->hw, sizeof r->hw, f[at[C_HW]].text);
    copy(r->model, sizeof r->model, f[at[C_MODEL]].text);
    r->col_hw = f[at[C_HW]].col;
    r->col_model = f[at[C_MODEL]].col;
    copy(r->source, sizeof r->source, f[at[C_SOURCE]].text);
    /* names compared with other rows and the databases': no spaces around
     * them, and the engine in lower case (enginedb's engine keys are) */
    static const int named[] = {C_ID, C_ENGINE, C_ENGINE_VERSION, C_HW, C_MODEL};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        const char *t = f[at[named[i]]].text;
        size_t l = strlen(t);
        if (l && (t[0] == ' ' || t[l - 1] == ' '))
            return bad(path, &f[at[named[i]]], err, "a name with spaces around it",
                       "write it without them: names are matched whole against other rows "
                       "and the databases");
    }
    for (char *c = r->engine; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    if (!r->hw[0] || !r->model[0] || !r->engine[0])
        return bad(path, &f[at[!r->hw[0] ? C_HW : !r->model[0] ? C_MODEL : C_ENGINE]], err,
                   "hw, model and engine must be given", "names as hwdb/ and modeldb/ spell them");
    if (strlen(r->source) < 4)
        return bad(path, &f[at[C_SOURCE]], err, "every row needs its source, 4 characters or more",
                   "the document's title or address; the table or figure in source_where");
    if ((rc = count_field(path, &f[at[C_CHIPS]], col_names[C_CHIPS], 1, IC_DECODE_MAX_CHIPS,
                          &r->chips, err)) ||
        (rc = count_field(path, &f[at[C_TP]], col_names[C_TP], 1, IC_DECODE_MAX_CHIPS, &r->tp,
                          err)) ||
        /* a high-load throughput run may not state its concurrency (0) */
        (!(r->kind >= IC_PUB_THROUGHPUT_OFFLINE && !f[at[C_CONCURRENCY]].text[0]) &&
         (rc = count_field(path, &f[at[C_CONCURRENCY]], col_names[C_CONCURRENCY], 1,
                           IC_DECODE_MAX_BATCH, &r->concurrency, err))) ||
        (rc = count_field(path, &f[at[C_INPUT]], col_names[C_INPUT], 0, IC_MODEL_MAX_CONTEXT,
                          &r->input_tokens, err)) ||
        (rc = count_field(path, &f[at[C_OUTPUT]], col_names[C_OUTPUT], 1, IC_MODEL_MAX_CONTEXT,
                          &r->output_tokens, err)))
        return rc;
    /* the last token's context, prompt + output, is what a step is timed
     * at (the figures' mean context, input + output / 2, under it) */
    if (!ic_request_tokens_ok(r->input_tokens, r->output_tokens)) {
        char msg[160];
        snprintf(msg, sizeof msg, "input_tokens + output_tokens is %llu, over %llu tokens",
                 (unsigned long long)(r->input_tokens + r->output_tokens),
                 (unsigned long long)IC_MODEL_MAX_CONTEXT);
        return bad(path, &f[at[C_INPUT]], err, msg,
                   "a request's prompt and output together: the longest context infcalc "
                   "times is 2^26 tokens");
    }
    if (r->chips % r->tp)
        return bad(path, &f[at[C_TP]], err, "tp must divide chips",
                   "chips is every chip of the run; tp the chips of one replica");
    if (r->kind == IC_PUB_DECODE_B1 && batch_per_replica(r) != 1)
        return bad(path, &f[at[C_CONCURRENCY]], err,
                   "a decode_b1 row runs one sequence a replica",
                   "concurrency at most chips / tp (one a replica), or kind "
                   "decode_concurrency");
    if ((rc = dtype_field(path, &f[at[C_WEIGHTS]], &r->weights, err)) ||
        (rc = dtype_field(path, &f[at[C_KV]], &r->kv, err)) ||
        (rc = dtype_field(path, &f[at[C_COMPUTE]], &r->compute, err)))
        return rc;
    const struct field *q = &f[at[C_QUANTITY]];
    int qi = pick(quantity_names, IC_PUBQ_COUNT, q->text);
    if (qi < 0)
        return bad(path, q, err, "unknown quantity",
                   "tokens_per_s_per_seq, tpot, step_time, itl_median, e2e_latency or "
                   "output_tokens_per_s");
    r->quantity = (enum ic_pub_quantity)qi;
    if (r->kind >= IC_PUB_THROUGHPUT_OFFLINE && r->quantity != IC_PUBQ_OUTPUT_TOKENS_PER_S)
        return bad(path, q, err, "a throughput row states output_tokens_per_s",
                   "a high-load run is judged on the output tokens/s of the whole run; a "
                   "time per token at a fixed concurrency is kind decode_concurrency");
    const struct field *v = &f[at[C_VALUE]], *u = &f[at[C_UNIT]];
    char why[256], text[300], msg[600];
    double x;
    const bool is_time = r->quantity == IC_PUBQ_TPOT || r->quantity == IC_PUBQ_STEP_TIME ||
                         r->quantity == IC_PUBQ_ITL_MEDIAN || r->quantity == IC_PUBQ_E2E_LATENCY;
    if (is_time) {
        snprintf(text, sizeof text, "%s %s", v->text, u->text);
        if (ic_qty_parse(text, IC_QTY_TIME, &x, why, sizeof why)) {
            snprintf(msg, sizeof msg, "'%s': %s", text, why);
            return bad(path, v, err, msg, "a time: value 12.5 with unit ms (or s, us)");
        }
    } else {
        if (strcmp(u->text, "tokens/s"))
            return bad(path, u, err, "a rate of tokens is given in tokens/s",
                       "write the unit as tokens/s");
        if (ic_number_parse(v->text, &x, why, sizeof why)) {
            snprintf(msg, sizeof msg, "'%s': %s", v->text, why);
            return bad(path, v, err, msg, "a plain positive number, e.g. 38.5");
        }
    }
    if (!(x > 0) || !isfinite(x))
        return bad(path, v, err, "a measured value must be positive", "the figure as published");
    /* a time from 1 us to a day; a rate from 1e-3 to 1e9 tokens/s */
    if (is_time ? x < 1e-6 || x > 86400 : x < 1e-3 || x > 1e9)
        return bad(path, v, err,
                   is_time ? "a measured time from 1 us to 1 day (86400 s)"
                           : "a measured rate from 0.001 to 1e9 tokens/s",
                   "the figure as published, in the unit the unit column names");
    r->value = x;
    if (at[C_PREFILL] >= 0) {
        const struct field *pf = &f[at[C_PREFILL]];
        if (strcmp(pf->text, "yes") && strcmp(pf->text, "interleaved") &&
            strcmp(pf->text, "no") && pf->text[0])
            return bad(path, pf, err, "includes_prefill must be yes, interleaved, no or empty",
                       "yes: whole requests of a static batch (prompts' prefill included) "
                       "over their output tokens; interleaved: a serving run whose steps "
                       "carry arriving requests' prefills; no or empty: decode only");
        r->prefill = strcmp(pf->text, "yes") == 0           ? IC_PUB_PREFILL_STATIC
                     : strcmp(pf->text, "interleaved") == 0 ? IC_PUB_PREFILL_INTERLEAVED
                                                            : IC_PUB_PREFILL_NONE;
        if (r->prefill && r->kind >= IC_PUB_THROUGHPUT_OFFLINE)
            return bad(path, pf, err,
                       "includes_prefill is for decode rows; a throughput row is "
                       "simulated with its prefill already",
                       "leave it empty on throughput_offline and throughput_server rows");
        if (r->prefill == IC_PUB_PREFILL_INTERLEAVED &&
            ((r->quantity != IC_PUBQ_TPOT && r->quantity != IC_PUBQ_ITL_MEDIAN) ||
             r->output_tokens < 2))
            return bad(path, pf, err,
                       "an interleaved row states a serving run's tpot or itl_median, "
                       "with at least 2 output tokens",
                       "the simulation gives each request's TPOT and every ITL; a "
                       "static batch's whole time is includes_prefill yes");
        if (r->prefill == IC_PUB_PREFILL_STATIC &&
            (r->quantity == IC_PUBQ_STEP_TIME || r->quantity == IC_PUBQ_ITL_MEDIAN))
            return bad(path, pf, err,
                       "includes_prefill yes is for whole requests' time per token, not a "
                       "step time or a median ITL",
                       "tokens_per_s_per_seq, tpot, output_tokens_per_s or e2e_latency");
        if (r->prefill && !r->input_tokens)
            return bad(path, pf, err, "a row that includes the prefill needs a prompt",
                       "input_tokens is 0: give the prompt's length, or includes_prefill no");
    }
    if (r->quantity == IC_PUBQ_E2E_LATENCY && r->prefill != IC_PUB_PREFILL_STATIC)
        return bad(path, at[C_PREFILL] >= 0 ? &f[at[C_PREFILL]] : q, err,
                   "an e2e_latency row includes its prefill: includes_prefill must be yes",
                   "a static batch's whole time is its prompts' prefill and every decode "
                   "step; add the includes_prefill column with yes");
    if (at[C_MAX_TOKENS] >= 0 && f[at[C_MAX_TOKENS]].text[0]) {
        const struct field *mf = &f[at[C_MAX_TOKENS]];
        int rc2 = count_field(path, mf, col_names[C_MAX_TOKENS], 1, IC_MODEL_MAX_CONTEXT, &r->max_batched_tokens, err);
        if (rc2)
            return rc2;
        if (r->prefill != IC_PUB_PREFILL_INTERLEAVED)
            return bad(path, mf, err, "max_batched_tokens is for interleaved rows",
                       "the budget of a serving run's steps; leave it empty elsewhere");
        if (r->max_batched_tokens < batch_per_replica(r))
            return bad(path, mf, err,
                       "max_batched_tokens is below the batch: every running sequence's "
                       "decode takes a token of it",
                       "engines refuse a budget under their sequence limit (vLLM: "
                       "max_num_batched_tokens >= max_num_seqs)");
    }
    return IC_OK;
}

/* A header name that is none of the columns: ignored (a file may carry
 * columns of its own: pp, tpot, node), unless it is a column in another
 * case or with spaces (' use', 'Includes_Prefill') or an optional column
 * misspelt ('include_prefill'), which would drop the column it means
 * without a word (a required one missing is an error already). */
static int unknown_column(const char *path, const struct field *h, struct ic_err *err)
{
    char low[64];
    const char *t = h->text;
    while (*t == ' ')
        t++;
    size_t n = 0;
    for (; *t && n + 1 < sizeof low; t++)
        low[n++] = (char)(*t >= 'A' && *t <= 'Z' ? *t - 'A' + 'a' : *t);
    while (n && low[n - 1] == ' ')
        n--;
    low[n] = '\0';
    const char *const optional[] = {col_names[C_SOURCE_WHERE], col_names[C_SOURCE_DATE],
                                    col_names[C_PREFILL], col_names[C_MAX_TOKENS]};
    const int k = pick(col_names, C_COUNT, low);
    const char *near = k >= 0 ? col_names[k] : ic_text_nearest(low, optional, 4);
    if (!near)
        return IC_OK;
    char msg[160], hint[200];
    snprintf(msg, sizeof msg, "unknown column '%.64s'", h->text);
    snprintf(hint, sizeof hint,
             "did you mean '%s'? (columns are lower case, without spaces; other unknown "
             "columns are ignored)",
             near);
    return bad(path, h, err, msg, hint);
}

int ic_pub_load(const char *path, struct ic_pub_row **rows, size_t *n, struct ic_err *err)
{
    char *text = NULL, *buf = NULL;
    size_t len = 0, cap = 0, count = 0;
    struct ic_pub_row *out = NULL;
    int rc = ic_ydoc_read_text(path, &text, &len, err);
    if (rc)
        return rc;
    const char *shown = strcmp(path, "-") == 0 ? IC_STDIN_NAME : path;
    buf = malloc(len + MAX_COLS + 1);
    if (!buf) {
        rc = ic_err_set(err, IC_ENOMEM, shown, 0, 0, "out of memory");
        goto out;
    }
    /* a UTF-8 byte-order mark opening the file (spreadsheets write one) */
    const size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    struct csv c = {shown, text + bom, text + len, 1, 1};
    struct field f[MAX_COLS];
    char *b = buf;
    int nf = record(&c, f, &b, err);
    if (nf < 0) {
        rc = IC_EINVAL;
        goto out;
    }
    if (nf == 0) {
        rc = ic_err_set(err, IC_EINVAL, shown, 1, 1, "empty file");
        ic_err_hint(err, "the first line names the columns: id,use,kind,engine,...");
        goto out;
    }
    const int header_nf = nf;
    int at[C_COUNT];
    for (int i = 0; i < C_COUNT; i++)
        at[i] = -1;
    for (int i = 0; i < nf; i++) {
        int k = pick(col_names, C_COUNT, f[i].text);
        if (k >= 0) {
            if (at[k] >= 0) {
                rc = bad(shown, &f[i], err, "a column named twice", "each column once");
                goto out;
            }
            at[k] = i;
        } else if ((rc = unknown_column(shown, &f[i], err))) {
            goto out;
        }
    }
    for (int i = 0; i < C_COUNT; i++)
        if (at[i] < 0 && i != C_SOURCE_WHERE && i != C_SOURCE_DATE && i != C_PREFILL &&
            i != C_MAX_TOKENS) {
            rc = ic_err_set(err, IC_EINVAL, shown, 1, 1, "no column '%s'", col_names[i]);
            ic_err_hint(err, "published/README.md lists the columns");
            goto out;
        }
    for (;;) {
        b = buf;
        const unsigned line = c.line;
        nf = record(&c, f, &b, err);
        if (nf < 0) {
            rc = IC_EINVAL;
            goto out;
        }
        if (nf == 0)
            break;
        if (nf == 1 && !f[0].text[0])
            continue; /* a blank line */
        int need = 0;
        for (int i = 0; i < C_COUNT; i++)
            if (at[i] >= need)
                need = at[i] + 1;
        if (nf < need || nf > header_nf) {
            rc = ic_err_set(err, IC_EINVAL, shown, line, 1,
                            nf < need ? "%d fields; the header names %d or more"
                                      : "%d fields; the header names %d",
                            nf, nf < need ? need : header_nf);
            ic_err_hint(err, "a comma inside a field needs the field quoted (a field holds "
                             "no line break, quoted or not)");
            goto out;
        }
        if (count == cap) {
            cap = cap ? 2 * cap : 64;
            struct ic_pub_row *nr = realloc(out, cap * sizeof *nr);
            if (!nr) {
                rc = ic_err_set(err, IC_ENOMEM, shown, 0, 0, "out of memory");
                goto out;
            }
            out = nr;
        }
        memset(&out[count], 0, sizeof out[count]);
        out[count].line = line;
        if ((rc = parse_row(shown, f, at, &out[count], err)))
            goto out;
        for (size_t k = 0; k < count; k++)
            if (!strcmp(out[k].id, out[count].id)) {
                char hint[96];
                snprintf(hint, sizeof hint, "each row's id names it alone in the report "
                                            "(the first is on line %u)", out[k].line);
                rc = bad(shown, &f[at[C_ID]], err, "an id given twice", hint);
                goto out;
            }
        count++;
    }
    if (!count) {
        rc = ic_err_set(err, IC_EINVAL, shown, c.line, 1, "no rows after the header");
        ic_err_hint(err, "each line after the header is one published measurement "
                         "(published/README.md)");
        goto out;
    }
    *rows = out;
    *n = count;
    out = NULL;
out:
    free(out);
    free(buf);
    free(text);
    return rc;
}

/* ---- errors --------------------------------------------------------------- */

double ic_pub_measured_tpot_s(const struct ic_pub_row *r)
{
    switch (r->quantity) {
    case IC_PUBQ_TOKENS_PER_S_PER_SEQ:
        return 1.0 / r->value;
    case IC_PUBQ_TPOT:
    case IC_PUBQ_STEP_TIME:
    case IC_PUBQ_ITL_MEDIAN:
        return r->value;
    case IC_PUBQ_E2E_LATENCY:
        /* every sequence of the batch runs the whole time */
        return r->value / (double)r->output_tokens;
    case IC_PUBQ_OUTPUT_TOKENS_PER_S:
        /* every sequence in flight gets one token a step */
        return (double)r->concurrency / r->value;
    case IC_PUBQ_COUNT:
        break;
    }
    return 0;
}

double ic_pub_error(const struct ic_pub_row *r, double step_s)
{
    const double t = ic_pub_measured_tpot_s(r);
    return t > 0 ? step_s / t - 1.0 : NAN;
}

int ic_pub_stats(const double *e, size_t n, struct ic_pub_stats *out)
{
    *out = (struct ic_pub_stats){n, 0, 0, 0};
    if (!n)
        return IC_OK;
    double *a = malloc(2 * n * sizeof *a);
    if (!a)
        return IC_ENOMEM;
    double *s = a + n;
    for (size_t i = 0; i < n; i++) {
        a[i] = fabs(e[i]);
        s[i] = e[i];
    }
    gsl_sort(a, 1, n);
    gsl_sort(s, 1, n);
    out->median_abs = gsl_stats_median_from_sorted_data(a, 1, n);
    out->p90_abs = gsl_stats_quantile_from_sorted_data(a, 1, n, 0.9);
    out->median_signed = gsl_stats_median_from_sorted_data(s, 1, n);
    free(a);
    return IC_OK;
}

/* Whether version text v leads row version text rv: equal, or followed
 * there by '.', ' ', '-' or '(' ("0.6" leads "0.6.1", not "0.60"). */
static bool leads(const char *v, const char *rv)
{
    size_t n = strlen(v);
    return n && strncmp(v, rv, n) == 0 && (rv[n] == '\0' || strchr(". -(", rv[n]));
}

const struct ic_engine *ic_pub_engine_for(const struct ic_pub_row *r,
                                          const struct ic_engine *profiles, size_t n,
                                          char *why, size_t why_len)
{
    const struct ic_engine *lead = NULL, *listed = NULL;
    size_t same = 0;
    if (!r->engine_version[0] || strcasecmp(r->engine_version, IC_ENGINE_UNSTATED) == 0) {
        snprintf(why, why_len, "none: the row states no version of %s", r->engine);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ic_engine *e = &profiles[i];
        if (strcasecmp(e->engine, r->engine))
            continue;
        same++;
        if (strcmp(e->version, r->engine_version) == 0) {
            snprintf(why, why_len, "%s (version %s)", e->name, e->version);
            return e;
        }
        for (uint32_t j = 0; j < e->n_versions && !listed; j++)
            if (strcmp(e->versions[j], r->engine_version) == 0)
                listed = e;
        /* of two that lead it ('0.6' and '0.6.3' lead '0.6.3.post1'), the
         * longer, whichever file sorts first */
        if (leads(e->version, r->engine_version) &&
            (!lead || strlen(e->version) > strlen(lead->version)))
            lead = e;
    }
    if (listed) {
        snprintf(why, why_len, "%s (version %s, listed by the profile)", listed->name,
                 r->engine_version);
        return listed;
    }
    if (lead) {
        snprintf(why, why_len, "%s (version %s leads %s)", lead->name, lead->version,
                 r->engine_version);
        return lead;
    }
    if (same)
        snprintf(why, why_len, "none: no %s profile for version '%s' (%zu for others)",
                 r->engine, r->engine_version, same);
    else
        snprintf(why, why_len, "none: no %s profile in enginedb", r->engine);
    return NULL;
}

/* The predicted time per output token of one estimate: the decode step at
 * the mean context (step_s, of cfg c); where the row's figure includes the
 * prefill, (the batch's prompts prefilled in one step + (output - 1) such
 * decode steps) / output, as a static batch runs a request: its prompt's
 * prefill gives the first token, each later one a decode step; for an
 * interleaved row, the serving simulation's mean TPOT or median ITL (see
 * ic_pub_predict). Prefill steps are ic_sim's (ic_step's) at c's chips,
 * types, estimate and engine, the ideal ones at the peak (MFU 1, a bound
 * like the decode step's, not the simulation's MFU 0.4); *prefill_s gets
 * the static batch's (0 otherwise). */
static int per_token(const struct ic_pub_row *r, const struct ic_model_stats *m,
                     const struct ic_hw *hw, const struct ic_decode_cfg *c, double step_s,
                     double *tpot_s, double *prefill_s, struct ic_err *err)
{
    *prefill_s = 0;
    *tpot_s = step_s;
    if (!r->prefill)
        return IC_OK;
    struct ic_sim_cfg sc = ic_sim_defaults();
    sc.dec = *c;
    sc.prefill_mfu = 1.0;
    if (r->prefill == IC_PUB_PREFILL_INTERLEAVED) {
        sc.max_seqs = c->batch;
        sc.requests = 10 * c->batch > 100 ? 10 * c->batch : 100;
        sc.warmup = c->batch;
        sc.prompt.mean = (double)r->input_tokens;
        sc.output.mean = (double)r->output_tokens;
        if (r->max_batched_tokens)
            sc.max_tokens = r->max_batched_tokens;
        struct ic_sim_result res;
        int rc = ic_sim_run(m, hw, &sc, &res, err);
        if (rc)
            return rc;
        *tpot_s = r->quantity == IC_PUBQ_ITL_MEDIAN ? res.itl.p[0] : res.tpot.mean;
        return IC_OK;
    }
    int rc = ic_sim_step_s(m, hw, &sc, 0, 0, c->batch, c->batch * r->input_tokens, 0,
                           prefill_s, err);
    if (rc)
        return rc;
    const double out = (double)r->output_tokens;
    *tpot_s = (*prefill_s + (out - 1) * step_s) / out;
    return IC_OK;
}

int ic_pub_predict(const struct ic_pub_row *r, const struct ic_model_stats *m,
                   const struct ic_hw *hw, const struct ic_engine *engine,
                   struct ic_pub_eval *out, struct ic_err *err)
{
    *out = (struct ic_pub_eval){0};
    if (r->kind == IC_PUB_THROUGHPUT_OFFLINE || r->kind == IC_PUB_THROUGHPUT_SERVER)
        return IC_OK;
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = r->tp;
    c.batch = batch_per_replica(r);
    c.context = r->input_tokens + (r->output_tokens + 1) / 2;
    if (c.context < 1)
        c.context = 1;
    c.weights = r->weights;
    c.kv = r->kv;
    c.compute = r->compute;
    /* the cache past the KV heads where the row's engine places it: the
     * deployment's, for every estimate */
    c.kv_copy = ic_engine_kv_copy(engine, false);
    struct ic_point p;
    int rc;
    double pre;
    c.estimate = IC_EST_IDEAL;
    if ((rc = ic_decode(m, hw, &c, &p, err)))
        return rc;
    /* a run that could not have held its batch: the row's chips, tp or
     * concurrency are not the run's (or the model is not its) */
    if (!p.fits) {
        rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                        "its batch of %llu at context %llu does not fit: %.4g GB a chip "
                        "of %.4g GB",
                        (unsigned long long)c.batch, (unsigned long long)c.context,
                        p.mem_per_chip_B / 1e9, p.capacity_B / 1e9);
        ic_err_hint(err, "check chips, tp and concurrency against the source: the batch is "
                         "concurrency over chips / tp replicas, held by tp chips");
        return rc;
    }
    out->evaluated = true;
    out->with_prefill = r->prefill != IC_PUB_PREFILL_NONE;
    out->simulated = r->prefill == IC_PUB_PREFILL_INTERLEAVED;
    out->batch = c.batch;
    out->context = c.context;
    out->measured_s = ic_pub_measured_tpot_s(r);
    out->ideal_step_s = p.step_s;
    if ((rc = per_token(r, m, hw, &c, p.step_s, &out->ideal_s, &out->ideal_prefill_s, err)))
        return rc;
    out->e_ideal = ic_pub_error(r, out->ideal_s);
    if (hw->measured.present || hw->achieved.present) {
        c.estimate = IC_EST_EXPECTED;
        struct ic_err e2 = {0};
        if (ic_decode(m, hw, &c, &p, &e2) == IC_OK) {
            out->has_expected = true;
            out->expected_step_s = p.step_s;
            if ((rc = per_token(r, m, hw, &c, p.step_s, &out->expected_s,
                                &out->expected_prefill_s, err)))
                return rc;
            out->expected_noeng_s = out->expected_s;
            out->e_expected_noeng = out->e_expected = ic_pub_error(r, out->expected_s);
            c.engine = engine;
            if (engine && p.achieved) { /* a profile adds to achieved rates only */
                if ((rc = ic_decode(m, hw, &c, &p, err)) ||
                    (rc = per_token(r, m, hw, &c, p.step_s, &out->expected_s, &pre, err)))
                    return rc;
                out->engine_used = true;
                out->expected_step_s = p.step_s;
                out->expected_prefill_s = pre;
                out->e_expected = ic_pub_error(r, out->expected_s);
            }
        } else {
            snprintf(out->no_expected, sizeof out->no_expected, "%s", e2.msg);
        }
    } else {
        snprintf(out->no_expected, sizeof out->no_expected,
                 "%s has no measured or achieved figures", hw->name);
    }
    return IC_OK;
}

int ic_pub_predict_throughput(const struct ic_pub_row *r, const struct ic_model_stats *m,
                              const struct ic_hw *hw, const struct ic_engine *engine,
                              struct ic_pub_eval *out, struct ic_err *err)
{
    if (r->kind != IC_PUB_THROUGHPUT_OFFLINE && r->kind != IC_PUB_THROUGHPUT_SERVER)
        return IC_OK;
    if (r->quantity != IC_PUBQ_OUTPUT_TOKENS_PER_S)
        return IC_OK;
    const uint64_t replicas = r->chips / r->tp;
    const uint64_t dflt = engine && engine->max_batch ? engine->max_batch : 256;
    const uint64_t seqs = r->concurrency ? batch_per_replica(r) : dflt;
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec.chips = r->tp;
    c.dec.weights = r->weights;
    c.dec.kv = r->kv;
    c.dec.compute = r->compute;
    c.dec.estimate = hw->measured.present || hw->achieved.present ? IC_EST_EXPECTED
                                                                  : IC_EST_IDEAL;
    c.dec.engine = engine;
    c.dec.kv_copy = ic_engine_kv_copy(engine, false);
    c.prompt.mean = (double)(r->input_tokens ? r->input_tokens : 1);
    c.output.mean = (double)r->output_tokens;
    c.max_seqs = seqs;
    c.requests = 4 * seqs > 512 ? 4 * seqs : 512;
    struct ic_sim_result res;
    int rc = ic_sim_run(m, hw, &c, &res, err);
    if (rc == IC_EINVAL && c.dec.estimate == IC_EST_EXPECTED) {
        /* no achieved rate for the row's types: the ideal bound */
        c.dec.estimate = IC_EST_IDEAL;
        rc = ic_sim_run(m, hw, &c, &res, err);
    }
    if (rc)
        return rc;
    /* the closed form: the batch limit's decode step at the mean context,
     * or the largest batch that fits there if less */
    struct ic_decode_cfg d = c.dec;
    d.batch = seqs;
    d.context = r->input_tokens + (r->output_tokens + 1) / 2;
    struct ic_point p;
    if ((rc = ic_decode(m, hw, &d, &p, err)))
        return rc;
    if (!p.fits && p.max_batch >= 1) {
        d.batch = p.max_batch;
        if ((rc = ic_decode(m, hw, &d, &p, err)))
            return rc;
    }
    out->throughput = true;
    out->sim_expected = c.dec.estimate == IC_EST_EXPECTED;
    out->sim_max_seqs = seqs;
    out->tput_measured = r->value;
    out->tput_closed = (double)d.batch / p.step_s * (double)replicas;
    out->tput_sim = res.output_tokens_per_s * (double)replicas;
    out->e_closed = r->value / out->tput_closed - 1;
    out->e_sim = r->value / out->tput_sim - 1;
    return IC_OK;
}
