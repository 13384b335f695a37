/* ic_serve: the request handler of `infcalc serve` (no sockets here). */
#include "ic_serve.h"

#include "ic_cli.h"
#include "ic_cli_int.h"
#include "ic_decode.h"
#include "ic_plot.h"
#include "ic_report.h"
#include "ic_sweep.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The parameters and the CLI options they become. */
static const struct {
    const char *key, *opt;
} keys[] = {
    {"model", "--model"},     {"hw", "--hw"},   {"chips", "--chips"},
    {"batch", "--batch"},     {"context", "--context"}, {"weights", "--weights"},
    {"kv", "--kv"},           {"compute", "--compute"},
};
enum { N_KEYS = sizeof keys / sizeof keys[0] };

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
    char msg[512];
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

/* A name from the databases: letters, digits, '.', '_', '-'; not a path. */
static bool db_name(const char *v)
{
    size_t n = strlen(v);
    if (!n || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n ||
        v[0] == '.')
        return false;
    static const char *const ext[] = {".yaml", ".yml", ".json"};
    for (size_t i = 0; i < 3; i++) {
        size_t k = strlen(ext[i]);
        if (n >= k && strcmp(v + n - k, ext[i]) == 0)
            return false;
    }
    return true;
}

/* Checks the parameters and lays them out as CLI arguments after argv[0..1]
 * (room for 2 + 2 * N_KEYS + 3). Returns 0 or fills a 400. */
static int to_argv(const struct ic_param *p, size_t n, const char **argv, int *argc,
                   struct ic_serve_resp *r, int *st)
{
    *st = 0;
    bool seen[N_KEYS] = {false};
    if (n > IC_SERVE_MAX_PARAMS)
        return *st = 1, bad(r, "%zu parameters; at most %d", n, IC_SERVE_MAX_PARAMS);
    for (size_t i = 0; i < n; i++) {
        int k = -1;
        for (int j = 0; j < N_KEYS; j++)
            if (strcmp(p[i].key, keys[j].key) == 0)
                k = j;
        if (k < 0) {
            const char *names[N_KEYS];
            for (int j = 0; j < N_KEYS; j++)
                names[j] = keys[j].key;
            const char *near = ic_cli_nearest(p[i].key, names, N_KEYS);
            char key[IC_SERVE_MAX_VALUE + 1];
            snprintf(key, sizeof key, "%s", p[i].key);
            *st = 1;
            if (near)
                return bad(r, "unknown parameter '%s'; did you mean '%s'?", key, near);
            return bad(r, "unknown parameter '%s'; expected model, hw, chips, batch, context, "
                          "weights, kv or compute", key);
        }
        const char *v = p[i].value ? p[i].value : "";
        *st = 1;
        if (seen[k])
            return bad(r, "parameter '%s' given twice", keys[k].key);
        if (strlen(v) > IC_SERVE_MAX_VALUE)
            return bad(r, "%s: the value is longer than %d characters", keys[k].opt,
                       IC_SERVE_MAX_VALUE);
        if (strchr(v, ','))
            return bad(r, "%s: one value, not a list ('%s')", keys[k].opt, v);
        if ((k == 0 || k == 1) && *v && !db_name(v))
            return bad(r, "%s: '%s' is not a database name ('infcalc list %s'); the server "
                          "reads only hwdb/ and modeldb/",
                       keys[k].opt, v, k == 0 ? "models" : "hw");
        *st = 0;
        seen[k] = true;
        argv[(*argc)++] = keys[k].opt;
        argv[(*argc)++] = v;
    }
    return IC_OK;
}

/* Runs the CLI on argv, capturing both streams. */
static int cli(int argc, const char **argv, char **out, size_t *nout, char **err, size_t *nerr)
{
    FILE *o = open_memstream(out, nout), *e = open_memstream(err, nerr);
    if (!o || !e) {
        if (o)
            fclose(o);
        if (e)
            fclose(e);
        return -1;
    }
    int rc = ic_cli_run(argc, (char **)argv, o, e);
    fclose(o);
    fclose(e);
    return rc;
}

/* The decode point as the CLI computes it: 200 with its JSON, or 400 with
 * the CLI's message. *ok says whether it succeeded. */
static int decode(const struct ic_db *db, const struct ic_param *p, size_t n,
                  struct ic_serve_resp *r, bool keep, bool *ok)
{
    const char *argv[2 + 2 * IC_SERVE_MAX_PARAMS + 5] = {"infcalc", "decode"};
    int argc = 2, st;
    *ok = false;
    int rc = to_argv(p, n, argv, &argc, r, &st);
    if (rc || st)
        return rc;
    argv[argc++] = "--format";
    argv[argc++] = "json";
    /* the server's own databases (serve --db DIR), not the default ones */
    argv[argc++] = "--db";
    argv[argc++] = db->root;
    argv[argc] = NULL;
    char *out = NULL, *err = NULL;
    size_t nout = 0, nerr = 0;
    int code = cli(argc, argv, &out, &nout, &err, &nerr);
    if (code == 0) {
        *ok = true;
        if (keep) {
            r->status = 200;
            r->type = "application/json";
            r->body = (unsigned char *)out;
            r->len = nout;
            out = NULL;
        }
    } else if (code == 2) {
        rc = text_resp(r, 400, "text/plain; charset=utf-8", err ? err : "bad request\n");
    } else {
        rc = text_resp(r, 500, "text/plain; charset=utf-8",
                       code < 0 ? "out of memory\n" : err ? err : "internal error\n");
    }
    free(out);
    free(err);
    return rc;
}

static const char *value_of(const struct ic_param *p, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].key, key) == 0)
            return p[i].value;
    return NULL;
}

/* A chart of the point the parameters name (already checked by decode()). */
static int chart(const struct ic_db *db, const struct ic_param *p, size_t n, bool by_context,
                 struct ic_serve_resp *r)
{
    FILE *sink = fopen("/dev/null", "w");
    struct ic_decode_cfg c = ic_decode_defaults();
    const char *v;
    int bad_value = 0;
    if (!sink)
        return text_resp(r, 500, "text/plain", "cannot open /dev/null\n");
    /* cannot fail: decode() accepted these very values */
    if ((v = value_of(p, n, "chips")))
        bad_value |= ic_cli_u64("--chips", v, 1, 1u << 20, &c.chips, sink);
    if ((v = value_of(p, n, "batch")))
        bad_value |= ic_cli_u64("--batch", v, 1, 1u << 24, &c.batch, sink);
    if ((v = value_of(p, n, "context")))
        bad_value |= ic_cli_u64("--context", v, 1, 1u << 26, &c.context, sink);
    if ((v = value_of(p, n, "weights")))
        bad_value |= ic_cli_dtype("--weights", v, &c.weights, sink);
    if ((v = value_of(p, n, "kv")))
        bad_value |= ic_cli_dtype("--kv", v, &c.kv, sink);
    if ((v = value_of(p, n, "compute")))
        bad_value |= ic_cli_dtype("--compute", v, &c.compute, sink);
    fclose(sink);
    if (bad_value)
        return text_resp(r, 500, "text/plain", "internal error: a value passed once, not twice\n");
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *h = malloc(sizeof *h);
    struct ic_point *pts = malloc(sizeof *pts * IC_SWEEP_MAX_POINTS);
    struct ic_model_stats st;
    struct ic_err e = {0};
    struct ic_point mark;
    int rc = IC_OK;
    if (!m || !h || !pts) {
        rc = text_resp(r, 500, "text/plain", "out of memory\n");
        goto out;
    }
    if (ic_db_model(db, value_of(p, n, "model"), m, &e) || ic_model_derive(m, &st, &e) ||
        ic_db_hw(db, value_of(p, n, "hw"), h, &e)) {
        rc = text_resp(r, 500, "text/plain", "internal error: the entries did not load twice\n");
        goto out;
    }
    c.estimate = h->measured.present ? IC_EST_EXPECTED : IC_EST_IDEAL;
    enum ic_axis ax = by_context ? IC_AXIS_CONTEXT : IC_AXIS_BATCH;
    /* the sweep's values, doubled on until they pass the chosen point, so
     * the ring is always on the chart */
    uint64_t vals[IC_SWEEP_MAX_VALUES];
    size_t nv = ic_sweep_values(ax, &st, h, &c, vals);
    const uint64_t want = by_context ? c.context : c.batch;
    while (nv && nv < IC_SWEEP_MAX_VALUES && vals[nv - 1] < want)
        vals[nv] = 2 * vals[nv - 1], nv++;
    size_t np = 0;
    if (ic_decode(&st, h, &c, &mark, &e)) {
        rc = text_resp(r, 400, "text/plain", e.msg);
        goto out;
    }
    for (size_t i = 0; i < nv; i++) {
        struct ic_decode_cfg k = c;
        ic_sweep_apply(ax, vals[i], &k);
        if (ic_decode(&st, h, &k, &pts[np], &e) == IC_OK)
            np++; /* past a hard limit (2^24 sequences, 2^26 tokens): stop there */
    }
    if (!np) {
        rc = text_resp(r, 400, "text/plain", "nothing to draw\n");
        goto out;
    }
    char title[320], sub[200];
    snprintf(title, sizeof title, "%s on %llu x %s", m->name, (unsigned long long)c.chips,
             h->name);
    snprintf(sub, sizeof sub, "weights %s, KV %s, compute %s; %s %llu; %s",
             ic_dtype_traits(c.weights)->name, ic_dtype_traits(c.kv)->name,
             ic_dtype_traits(c.compute)->name, by_context ? "batch" : "context",
             (unsigned long long)(by_context ? c.batch : c.context),
             c.estimate == IC_EST_EXPECTED ? "expected time from measured figures"
                                           : "ideal bound from spec-sheet peaks");
    struct ic_plot_curve cv = {"", pts, np};
    struct ic_plot_set set = {title, sub, &cv, 1, &mark};
    unsigned char *png = NULL;
    size_t len = 0;
    if (ic_plot_png(by_context ? IC_PLOT_CONTEXT : IC_PLOT_DECODE, 1200, 600,
                    &set, &png, &len, &e)) {
        rc = text_resp(r, 500, "text/plain", e.msg);
        goto out;
    }
    r->status = 200;
    r->type = "image/png";
    r->body = png;
    r->len = len;
out:
    free(m);
    free(h);
    free(pts);
    return rc;
}

/* {"models": [{"name", "params", "max_context"}], "hw": [{"name", "compute":
 * [...], "hbm_bytes"}], "types": [...]} */
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
            if (kind) {
                struct ic_hw *h = rec;
                if (ic_hw_load(paths[i], h, &e))
                    continue; /* a broken entry is left out, not served */
                fprintf(f, "%s{\"name\": ", first ? "" : ", ");
                ic_report_json_str(f, h->name);
                fprintf(f, ", \"hbm_bytes\": %.0f, \"compute\": [", h->hbm_capacity_B);
                bool fc = true;
                for (int t = 0; t < IC_DT_COUNT; t++)
                    if (h->peak_flop_s[t] > 0) {
                        fprintf(f, "%s", fc ? "" : ", ");
                        ic_report_json_str(f, ic_dtype_traits((enum ic_dtype)t)->name);
                        fc = false;
                    }
                fputs("]}", f);
            } else {
                struct ic_model *m = rec;
                struct ic_model_stats st;
                if (ic_model_load(paths[i], m, &e) || ic_model_derive(m, &st, &e))
                    continue;
                fprintf(f, "%s{\"name\": ", first ? "" : ", ");
                ic_report_json_str(f, m->name);
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
    bool ok;
    if (strcmp(path, "/api/decode") == 0)
        return decode(db, params, n, r, true, &ok);
    bool by_ctx = strcmp(path, "/chart/context.png") == 0;
    if (by_ctx || strcmp(path, "/chart/batch.png") == 0) {
        int rc = decode(db, params, n, r, false, &ok);
        if (rc || !ok)
            return rc;
        return chart(db, params, n, by_ctx, r);
    }
    return text_resp(r, 404, "text/plain; charset=utf-8", "not found\n");
}
