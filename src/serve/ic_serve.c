/* ic_serve: the request handler of `infcalc serve` (no sockets here). */
#include "ic_serve.h"

#include "ic_decode.h"
#include "ic_engine.h"
#include "ic_opt.h"
#include "ic_plot.h"
#include "ic_report.h"
#include "ic_sweep.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

_Static_assert(IC_SERVE_MAX_VALUE + 1 >= IC_MODEL_NAME_LEN && IC_SERVE_MAX_VALUE + 1 >= IC_HW_NAME_LEN,
               "a value holds any entry's name");

/* The parameters: the decode options of the same names, one value each
 * (model, hw and engine by the databases' names only). */
static const char *const keys[] = {"model",   "hw", "chips",   "batch",    "context",
                                   "weights", "kv", "compute", "estimate", "engine",
                                   "kv-placement"};
enum { N_KEYS = sizeof keys / sizeof keys[0], K_MODEL = 0, K_HW = 1, K_ENGINE = 9 };
#define KEYS_TEXT                                                                                \
    "model, hw, chips, batch, context, weights, kv, compute, estimate, engine and kv-placement"

void ic_serve_resp_free(struct ic_serve_resp *r)
{
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

/* A response whose body is a copy of text. */
static int text_resp(struct ic_serve_resp *r, unsigned status, const char *type,
                     const char *text)
{
    size_t n = strlen(text);
    r->body = malloc(n + 1);
    if (!r->body)
        return IC_ENOMEM;
    memcpy(r->body, text, n + 1);
    r->len = n;
    r->status = status;
    r->type = type;
    return IC_OK;
}

static int bad(struct ic_serve_resp *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ic_serve_resp *r, const char *fmt, ...)
{
    char msg[2200]; /* an ic_err's message and hint, with their words around them */
    va_list ap;
    va_start(ap, fmt);
    int k = snprintf(msg, sizeof msg, "infcalc: error: ");
    vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    size_t l = strlen(msg);
    if (l + 1 < sizeof msg) {
        msg[l] = '\n';
        msg[l + 1] = '\0';
    }
    return text_resp(r, 400, "text/plain; charset=utf-8", msg);
}

/* A library error as the command line prints it: 400 for bad input, 500
 * for the rest. */
static int lib_error(struct ic_serve_resp *r, int rc, const struct ic_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return IC_ENOMEM;
    ic_err_print(f, e);
    fclose(f);
    int x = text_resp(r, rc == IC_ENOMEM || rc == IC_EIO ? 500 : 400,
                      "text/plain; charset=utf-8", buf ? buf : "error\n");
    free(buf);
    return x;
}

/* A name from the databases: letters, digits, '.', '_', '-'; not a path. */
static bool db_name(const char *v)
{
    size_t n = strlen(v);
    /* a name starts with a letter or a digit: '.' and '..' would name
     * folders, '-' the server's own standard input */
    if (!n || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n ||
        v[0] == '.' || v[0] == '-' || v[0] == '_')
        return false;
    static const char *const ext[] = {".yaml", ".yml", ".json"};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(ext[i]);
        if (n >= k && strcmp(v + n - k, ext[i]) == 0)
            return false;
    }
    return true;
}

/* An entry's name and aliases (hw's and models' alike: the aliases the
 * rows of a char array of `width` bytes). */
struct names {
    const char *name, *aliases;
    size_t width;
    uint32_t n;
};

/* Loads the database file at path as hardware (kind 1) or a model (0) into
 * rec, a model derived into *st where st is not NULL, and points nm at its
 * names; false for a file that does not load (left out, not served). */
static bool entry_load(const char *path, int kind, void *rec, struct ic_model_stats *st,
                       struct names *nm)
{
    struct ic_err e = {0};
    if (kind) {
        struct ic_hw *h = rec;
        if (ic_hw_load(path, h, &e))
            return false;
        *nm = (struct names){h->name, h->aliases[0], sizeof h->aliases[0], h->n_aliases};
    } else {
        struct ic_model *m = rec;
        if (ic_model_load(path, m, &e) || (st && ic_model_derive(m, st, &e)))
            return false;
        *nm = (struct names){m->name, m->aliases[0], sizeof m->aliases[0], m->n_aliases};
    }
    return true;
}

/* An "org/name" value (a Hugging Face id, as modeldb aliases are) that
 * an entry of the database lists as an alias: the entry's name into out.
 * Only the database's entries are read (the command line would take such
 * a value as a file's path, or a local Hugging Face cache's config). */
static bool slash_alias(const struct ic_db *db, int kind, const char *v, char *out, size_t n)
{
    /* "org/name": each side a database name's shape (db_name) */
    const char *slash = strchr(v, '/');
    char org[IC_SERVE_MAX_VALUE + 1];
    if (!slash || (size_t)(slash - v) >= sizeof org)
        return false;
    memcpy(org, v, (size_t)(slash - v));
    org[slash - v] = '\0';
    if (!db_name(org) || !db_name(slash + 1))
        return false;
    char **paths = NULL;
    size_t np = 0;
    struct ic_err e = {0};
    if (ic_db_paths(db, kind ? IC_DB_HW : IC_DB_MODEL, &paths, &np, &e))
        return false;
    void *rec = malloc(kind ? sizeof(struct ic_hw) : sizeof(struct ic_model));
    bool found = false;
    for (size_t i = 0; i < np && rec && !found; i++) {
        struct names nm;
        if (!entry_load(paths[i], kind, rec, NULL, &nm))
            continue;
        for (uint32_t j = 0; j < nm.n && !found; j++)
            if (strcasecmp(nm.aliases + (size_t)j * nm.width, v) == 0) {
                snprintf(out, n, "%s", nm.name);
                found = true;
            }
    }
    free(rec);
    ic_db_paths_free(paths, np);
    return found;
}

/* A request's decode point: the options parsed by the command line's own
 * table (ic_opt_set), the entries loaded from the server's databases, the
 * step computed by the library. */
struct point_req {
    char named[2][128]; /* an "org/name" alias's entry name (model, hw), held for o */
    struct ic_opts o;
    struct ic_model *m;
    struct ic_model_stats st;
    struct ic_hw *h;
    struct ic_engine *en; /* NULL: a good engine */
    struct ic_decode_cfg cfg;
    struct ic_point pt;
};

static void point_free(struct point_req *q)
{
    ic_opts_free(&q->o);
    free(q->m);
    free(q->h);
    free(q->en);
}

/* Fills q from the parameters: 0 with q ready, or 0 with a 400/500 in r
 * (*ok false), or IC_ENOMEM. */
static int point_of(const struct ic_db *db, const struct ic_param *p, size_t n,
                    struct point_req *q, struct ic_serve_resp *r, bool *ok)
{
    *ok = false;
    ic_opts_init(&q->o, IC_CMD_DECODE);
    struct ic_err e = {0};
    if (n > IC_SERVE_MAX_PARAMS)
        return bad(r, "%zu parameters; at most %d\n  give each of " KEYS_TEXT " at most once",
                   n, IC_SERVE_MAX_PARAMS);
    for (size_t i = 0; i < n; i++) {
        int k = -1;
        for (int j = 0; j < N_KEYS; j++)
            if (strcmp(p[i].key, keys[j]) == 0)
                k = j;
        if (k < 0) {
            const char *near = ic_text_nearest(p[i].key, keys, N_KEYS);
            char key[IC_SERVE_MAX_VALUE + 1];
            snprintf(key, sizeof key, "%s", p[i].key);
            if (near)
                return bad(r, "unknown parameter '%s'; did you mean '%s'?\n  the parameters "
                              "are " KEYS_TEXT, key, near);
            return bad(r, "unknown parameter '%s'; expected one of " KEYS_TEXT
                          "\n  e.g. /api/decode?model=llama3-8b&hw=h100",
                       key);
        }
        char name[32];
        snprintf(name, sizeof name, "--%s", keys[k]);
        const char *v = p[i].value ? p[i].value : "";
        if (strlen(v) > IC_SERVE_MAX_VALUE)
            return bad(r, "%s: the value is longer than %d characters\n  a name or a number, "
                          "as 'infcalc list' and the command line take them", name,
                       IC_SERVE_MAX_VALUE);
        if (strchr(v, ','))
            return bad(r, "%s: one value, not a list ('%s')\n  the server computes one "
                          "configuration; the command line sweeps lists", name, v);
        if ((k == K_MODEL || k == K_HW) && strchr(v, '/') &&
            slash_alias(db, k, v, q->named[k], sizeof q->named[k]))
            v = q->named[k];
        if ((k == K_MODEL || k == K_HW || k == K_ENGINE) && *v && !db_name(v))
            return bad(r, "%s: '%s' is not a database name; the server reads only hwdb/, "
                          "modeldb/ and enginedb/\n  'infcalc list %s' names them (a file is "
                          "for the command line)",
                       name, v, k == K_MODEL ? "models" : k == K_HW ? "hw" : "engines");
        /* once each: the command line's hint (a list) does not apply here */
        if (q->o.given[ic_opt_find(name)])
            return bad(r, "parameter '%s' given twice\n  give it once; the server computes one "
                          "configuration", keys[k]);
        int rc = ic_opt_set(&q->o, ic_opt_find(name), v, &e);
        if (rc == IC_ENOMEM)
            return rc;
        if (rc)
            return e.hint[0] ? bad(r, "%s\n  %s", e.msg, e.hint) : bad(r, "%s", e.msg);
    }
    if (!q->o.given[IC_OPT_MODEL] || !q->o.given[IC_OPT_HW])
        return bad(r, "decode needs --model and --hw\n  e.g. /api/decode?model=llama3-8b&"
                      "hw=h100");
    q->m = malloc(sizeof *q->m);
    q->h = malloc(sizeof *q->h);
    if (!q->m || !q->h)
        return IC_ENOMEM;
    int rc;
    if ((rc = ic_db_model(db, q->o.model[0], q->m, &e)) ||
        (rc = ic_model_derive(q->m, &q->st, &e)) || (rc = ic_db_hw(db, q->o.hw[0], q->h, &e)))
        return lib_error(r, rc, &e);
    ic_opts_decode_cfg(&q->o, &q->cfg);
    /* an engine profile: the command line's rules (ic_cli_engine_check),
     * and it asks for the expected estimate */
    int estimate = q->o.given[IC_OPT_ESTIMATE] ? q->o.estimate : -1;
    if (q->o.given[IC_OPT_ENGINE]) {
        if ((rc = ic_step_engine_applies(q->h, estimate, &e)))
            return lib_error(r, rc, &e);
        if (!(q->en = malloc(sizeof *q->en)))
            return IC_ENOMEM;
        if ((rc = ic_db_engine(db, q->o.engine, q->en, &e)))
            return lib_error(r, rc, &e);
        ic_opts_engine_cfg(&q->o, q->en, &q->cfg);
        estimate = IC_EST_EXPECTED;
    }
    if (!q->o.given[IC_OPT_WEIGHTS] && q->m->quant_unread[0]) {
        char why[IC_MODEL_NAME_LEN * 2 + 96];
        ic_model_unread_text(q->m, why, sizeof why);
        return bad(r, "%s\n  give the stored type: weights int8, int4, fp8 or fp4", why);
    }
    if (!q->o.given[IC_OPT_WEIGHTS] && q->m->has_default_weights)
        q->cfg.weights = q->m->default_weights; /* as the command line: as shipped */
    if ((rc = ic_decode_for_hw(&q->cfg, q->h, estimate, &e)))
        return e.hint[0] ? bad(r, "%s\n  %s", e.msg, e.hint) : bad(r, "%s", e.msg);
    if ((rc = ic_decode(&q->st, q->h, &q->cfg, &q->pt, &e)))
        return lib_error(r, rc, &e);
    ic_decode_fewest(&q->st, &q->pt); /* as the command line: what would fit */
    *ok = true;
    return IC_OK;
}

/* The point's JSON: what `infcalc decode --format json` writes for it. */
static int decode_json(const struct point_req *q, struct ic_serve_resp *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return IC_ENOMEM;
    struct ic_report rep = {false, false, {IC_AXIS_BATCH, IC_AXIS_BATCH}, 0};
    struct ic_report_group g = {q->m->name, q->h->name, &q->pt, 1};
    int rc = ic_report_write(f, IC_FMT_JSON, &rep, &g, 1);
    fclose(f);
    if (rc) {
        free(buf);
        return rc == IC_ENOMEM ? rc : text_resp(r, 500, "text/plain", "cannot write\n");
    }
    r->status = 200;
    r->type = "application/json";
    r->body = (unsigned char *)buf;
    r->len = len;
    return IC_OK;
}

/* The chart around the request's point (step time against batch, or
 * against context), the point ringed. */
static int chart(const struct point_req *q, bool by_context, struct ic_serve_resp *r)
{
    const struct ic_decode_cfg c = q->cfg;
    struct ic_point *pts = malloc(sizeof *pts * IC_SWEEP_MAX_POINTS);
    struct ic_err e = {0};
    int rc = IC_OK;
    if (!pts)
        return IC_ENOMEM;
    enum ic_axis ax = by_context ? IC_AXIS_CONTEXT : IC_AXIS_BATCH;
    /* the sweep's values, doubled on until they pass the chosen point, so
     * the ring is always on the chart */
    uint64_t vals[IC_SWEEP_MAX_VALUES];
    size_t nv = ic_sweep_values(ax, &q->st, q->h, &c, vals);
    const uint64_t want = by_context ? c.context : c.batch;
    while (nv && nv < IC_SWEEP_MAX_VALUES && vals[nv - 1] < want)
        vals[nv] = 2 * vals[nv - 1], nv++;
    size_t np = 0;
    for (size_t i = 0; i < nv; i++) {
        struct ic_decode_cfg k = c;
        ic_sweep_apply(ax, vals[i], &k);
        k.both = true; /* the expected step solid, the ideal bound dashed */
        if (ic_decode(&q->st, q->h, &k, &pts[np], &e) == IC_OK)
            np++; /* past a hard limit (2^24 sequences, 2^26 tokens): stop there */
    }
    if (!np) {
        rc = text_resp(r, 400, "text/plain", "nothing to draw\n");
        goto out;
    }
    char title[320], sub[260], how[120];
    if (pts[0].other_known && q->en)
        snprintf(how, sizeof how, "expected step under %s solid, ideal bound dashed", q->en->name);
    else
        snprintf(how, sizeof how, "%s",
                 pts[0].other_known               ? "expected step solid, ideal bound dashed"
                 : c.estimate == IC_EST_EXPECTED ? "expected time from measured figures"
                                                 : "ideal bound from spec-sheet peaks");
    snprintf(title, sizeof title, "%s on %llu x %s", q->m->name, (unsigned long long)c.chips,
             q->h->name);
    snprintf(sub, sizeof sub, "weights %s, KV %s, compute %s; %s %llu; %s",
             ic_dtype_traits(c.weights)->name, ic_dtype_traits(c.kv)->name,
             ic_dtype_traits(c.compute)->name, by_context ? "batch" : "context",
             (unsigned long long)(by_context ? c.batch : c.context), how);
    struct ic_plot_curve cv = {"", pts, np};
    /* the ringed point with both estimates, as the curve has them */
    struct ic_point mark = q->pt;
    struct ic_decode_cfg mc = c;
    mc.both = true;
    if (ic_decode(&q->st, q->h, &mc, &mark, &e) != IC_OK)
        mark = q->pt;
    struct ic_plot_set set = {title, sub, &cv, 1, &mark};
    unsigned char *png = NULL;
    size_t len = 0;
    if (ic_plot_png(by_context ? IC_PLOT_CONTEXT : IC_PLOT_DECODE, 1200, 600, &set, &png, &len,
                    &e)) {
        rc = text_resp(r, 500, "text/plain", e.msg);
        goto out;
    }
    r->status = 200;
    r->type = "image/png";
    r->body = png;
    r->len = len;
out:
    free(pts);
    return rc;
}

/* An entry's opening, {"name": ..., "aliases": [...] */
static void entry_head(FILE *f, bool first, const struct names *nm)
{
    fprintf(f, "%s{\"name\": ", first ? "" : ", ");
    ic_report_json_str(f, nm->name);
    fputs(", \"aliases\": [", f);
    for (uint32_t j = 0; j < nm->n; j++) {
        fputs(j ? ", " : "", f);
        ic_report_json_str(f, nm->aliases + (size_t)j * nm->width);
    }
    fputc(']', f);
}

/* {"models": [{"name", "aliases", "params", "max_context"}], "hw": [{"name",
 * "aliases", "hbm_bytes", "compute": [...], "achieved"}], "engines": [{"name",
 * "aliases", "description"}], "types": [...]} */
static int options(const struct ic_db *db, struct ic_serve_resp *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return IC_ENOMEM;
    struct ic_err e = {0};
    int rc = IC_OK;
    for (int kind = 0; kind < 2 && rc == IC_OK; kind++) {
        char **paths = NULL;
        size_t np = 0;
        fputs(kind ? ", \"hw\": [" : "{\"models\": [", f);
        if (ic_db_paths(db, kind ? IC_DB_HW : IC_DB_MODEL, &paths, &np, &e)) {
            rc = IC_EIO;
            break;
        }
        void *rec = malloc(kind ? sizeof(struct ic_hw) : sizeof(struct ic_model));
        bool first = true;
        for (size_t i = 0; i < np && rec; i++) {
            struct names nm;
            struct ic_model_stats st;
            if (!entry_load(paths[i], kind, rec, &st, &nm))
                continue; /* a broken entry is left out, not served */
            entry_head(f, first, &nm);
            if (kind) {
                const struct ic_hw *h = rec;
                fprintf(f, ", \"hbm_bytes\": %.0f, \"compute\": [", h->hbm_capacity_B);
                bool fc = true;
                for (int t = 0; t < IC_DT_COUNT; t++)
                    if (h->peak_flop_s[t] > 0) {
                        fprintf(f, "%s", fc ? "" : ", ");
                        ic_report_json_str(f, ic_dtype_traits((enum ic_dtype)t)->name);
                        fc = false;
                    }
                /* whether an engine profile applies (ic_step_achieved) */
                fprintf(f, "], \"achieved\": %s}",
                        ic_step_achieved(h, IC_EST_EXPECTED) ? "true" : "false");
            } else {
                fprintf(f, ", \"params\": %llu, \"max_context\": %llu}",
                        (unsigned long long)st.params_total, (unsigned long long)st.max_context);
            }
            first = false;
        }
        if (!rec)
            rc = IC_ENOMEM;
        free(rec);
        ic_db_paths_free(paths, np);
        fputs("]", f);
    }
    /* the engine profiles (a database may have none) */
    fputs(", \"engines\": [", f);
    if (rc == IC_OK) {
        char **paths = NULL;
        size_t np = 0;
        struct ic_engine *en = malloc(sizeof *en);
        if (!en)
            rc = IC_ENOMEM;
        else if (ic_db_paths(db, IC_DB_ENGINE, &paths, &np, &e))
            np = 0;
        bool first = true;
        for (size_t i = 0; i < np && en; i++) {
            if (ic_engine_load(paths[i], en, &e))
                continue; /* as a broken entry above */
            const struct names nm = {en->name, en->aliases[0], sizeof en->aliases[0],
                                     en->n_aliases};
            entry_head(f, first, &nm);
            fputs(", \"description\": ", f);
            ic_report_json_str(f, en->description);
            fputc('}', f);
            first = false;
        }
        free(en);
        ic_db_paths_free(paths, np);
    }
    fputs("]", f);
    fputs(", \"types\": [", f);
    for (int t = 0; t < IC_DT_COUNT; t++) {
        fputs(t ? ", " : "", f);
        ic_report_json_str(f, ic_dtype_traits((enum ic_dtype)t)->name);
    }
    fputs("]}\n", f);
    fclose(f);
    if (rc) {
        free(buf);
        return text_resp(r, 500, "text/plain", "cannot read the databases\n");
    }
    r->status = 200;
    r->type = "application/json";
    r->body = (unsigned char *)buf;
    r->len = len;
    return IC_OK;
}

int ic_serve_handle(const struct ic_db *db, const char *path, const struct ic_param *params,
                    size_t n, struct ic_serve_resp *r)
{
    memset(r, 0, sizeof *r);
    /* the page reads its state from the address's query itself */
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0)
        return text_resp(r, 200, "text/html; charset=utf-8", ic_serve_page);
    if (strcmp(path, "/api/options") == 0)
        return options(db, r);
    bool api = strcmp(path, "/api/decode") == 0;
    bool by_ctx = strcmp(path, "/chart/context.png") == 0;
    if (!api && !by_ctx && strcmp(path, "/chart/batch.png") != 0)
        return text_resp(r, 404, "text/plain; charset=utf-8", "not found\n");
    struct point_req q = {0};
    bool ok;
    int rc = point_of(db, params, n, &q, r, &ok);
    if (!rc && ok)
        rc = api ? decode_json(&q, r) : chart(&q, by_ctx, r);
    point_free(&q);
    if (rc == IC_ENOMEM) {
        ic_serve_resp_free(r);
        return text_resp(r, 500, "text/plain", "out of memory\n") ? IC_ENOMEM : IC_OK;
    }
    return rc;
}
