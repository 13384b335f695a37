/* infcalc check-published: infcalc's estimates against public end-to-end
 * measurements (ic_published.h), row by row, then the error statistics over
 * the validation rows: all of them, by engine, by chip, and the batch-1
 * rows; a chart of predicted against measured. */
#include "ic_cli_published.h"

#include "ic_engine.h"
#include "ic_model.h"
#include "ic_plot.h"
#include "ic_published.h"
#include "ic_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct evaluated {
    struct ic_pub_row *rows;
    struct ic_pub_eval *ev;
    size_t n;
    struct ic_engine *profiles; /* every enginedb profile */
    size_t n_profiles;
    char (*why)[160];           /* per row: the profile chosen, or why none */
};

/* Every profile of enginedb/ into x (none, with a note, where the data
 * folder has no enginedb/). 0 or an exit status. */
static int load_profiles(const struct ic_db *db, struct evaluated *x, FILE *errf)
{
    char **paths = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    int rc = ic_db_paths(db, IC_DB_ENGINE, &paths, &n, &e);
    if (rc == IC_ENOENT) {
        fprintf(errf, "infcalc: note: no enginedb/ in %s: every row is predicted with a good "
                      "engine (no profile)\n", db->root);
        return 0;
    }
    if (rc)
        return ic_cli_report(errf, rc, &e);
    x->profiles = calloc(n ? n : 1, sizeof *x->profiles);
    if (!x->profiles) {
        ic_db_paths_free(paths, n);
        return ic_cli_oom(errf);
    }
    for (size_t i = 0; i < n; i++) {
        if ((rc = ic_engine_load(paths[i], &x->profiles[i], &e))) {
            ic_db_paths_free(paths, n);
            return ic_cli_report(errf, rc, &e);
        }
    }
    x->n_profiles = n;
    ic_db_paths_free(paths, n);
    /* a name, alias or version two profiles claim: an error here as in
     * 'list engines' (the row's profile would hang on the files' order) */
    if ((rc = ic_db_check_claims(db, IC_DB_ENGINE, &e)))
        return ic_cli_report(errf, rc, &e);
    return 0;
}

static int evaluate(const char *csv, const struct ic_db *db, struct evaluated *x, FILE *errf)
{
    struct ic_err e = {0};
    int rc = ic_pub_load(csv, &x->rows, &x->n, &e);
    if (rc) {
        ic_err_print(errf, &e);
        return rc == IC_ENOMEM ? 1 : 2;
    }
    if ((rc = load_profiles(db, x, errf)))
        return rc;
    x->ev = calloc(x->n ? x->n : 1, sizeof *x->ev);
    x->why = calloc(x->n ? x->n : 1, sizeof *x->why);
    struct ic_model *m = malloc(sizeof *m);
    /* each model and chip the rows name, loaded once (a file of many rows
     * names few of them) */
    struct loaded_model {
        char name[IC_PUB_TEXT];
        struct ic_model_stats st;
    } *lm = NULL;
    struct loaded_hw {
        char name[IC_PUB_TEXT];
        struct ic_hw h;
    } *lh = NULL;
    size_t n_lm = 0, n_lh = 0;
    if (!x->ev || !x->why || !m) {
        free(m);
        fprintf(errf, "infcalc: error: out of memory\n");
        return 1;
    }
    const char *shown = strcmp(csv, "-") == 0 ? "<stdin>" : csv;
    for (size_t i = 0; i < x->n && !rc; i++) {
        struct ic_pub_row *r = &x->rows[i];
        const struct ic_engine *en =
            ic_pub_engine_for(r, x->profiles, x->n_profiles, x->why[i], sizeof x->why[i]);
        size_t km = 0, kh = 0;
        unsigned col = 1; /* the field a failed lookup names; else the row */
        while (km < n_lm && strcmp(lm[km].name, r->model))
            km++;
        while (kh < n_lh && strcmp(lh[kh].name, r->hw))
            kh++;
        if (km == n_lm) {
            void *g = realloc(lm, (n_lm + 1) * sizeof *lm);
            rc = g ? IC_OK : IC_ENOMEM;
            if (g) {
                lm = g;
                snprintf(lm[km].name, sizeof lm[km].name, "%s", r->model);
                if (!(rc = ic_db_model(db, r->model, m, &e)) &&
                    !(rc = ic_model_derive(m, &lm[km].st, &e)))
                    n_lm++;
                else
                    col = r->col_model;
            }
        }
        if (!rc && kh == n_lh) {
            void *g = realloc(lh, (n_lh + 1) * sizeof *lh);
            rc = g ? IC_OK : IC_ENOMEM;
            if (g) {
                lh = g;
                snprintf(lh[kh].name, sizeof lh[kh].name, "%s", r->hw);
                if (!(rc = ic_db_hw(db, r->hw, &lh[kh].h, &e)))
                    n_lh++;
                else
                    col = r->col_hw;
                /* two files of one name would group as one chip */
                for (size_t j = 0; !rc && j < kh; j++)
                    if (!strcasecmp(lh[j].h.name, lh[kh].h.name) &&
                        !ic_cli_same_file(lh[j].h.path, lh[kh].h.path)) {
                        rc = ic_err_set(&e, IC_EINVAL, NULL, 0, 0,
                                        "'%s' and '%s' are two entries of one name, %s",
                                        lh[j].name, lh[kh].name, lh[kh].h.name);
                        ic_err_hint(&e, "give one of the files its own 'name:'");
                        col = r->col_hw;
                    }
            }
        }
        if (rc || (rc = ic_pub_predict(r, &lm[km].st, &lh[kh].h, en, &x->ev[i], &e)) ||
            (rc = ic_pub_predict_throughput(r, &lm[km].st, &lh[kh].h, en, &x->ev[i], &e))) {
            if (rc == IC_ENOMEM) {
                fprintf(errf, "infcalc: error: out of memory\n");
            } else {
                fprintf(errf, "%s:%u:%u: error: row %s (%s on %llu x %s): %s\n", shown,
                        r->line, col, r->id, r->model, (unsigned long long)r->tp, r->hw, e.msg);
                if (e.hint[0])
                    fprintf(errf, "  %s\n", e.hint);
            }
            rc = rc == IC_ENOMEM ? 1 : 2;
            break;
        }
        /* the chip by its entry's name: an alias or another case groups
         * with it (h100 and H100-SXM are h100-sxm) */
        snprintf(r->hw, sizeof r->hw, "%s", lh[kh].h.name);
    }
    free(m);
    free(lm);
    free(lh);
    return rc;
}

/* The errors of one estimate over the validation rows that pass keep(). */
enum which { W_IDEAL, W_EXPECTED, W_NOENG };

static int stats_of(const struct evaluated *x, enum which w,
                    bool (*keep)(const struct ic_pub_row *, const void *), const void *arg,
                    struct ic_pub_stats *s)
{
    double *e = malloc((x->n ? x->n : 1) * sizeof *e);
    if (!e)
        return IC_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_eval *v = &x->ev[i];
        if (x->rows[i].calibration || !v->evaluated || (w != W_IDEAL && !v->has_expected) ||
            (keep && !keep(&x->rows[i], arg)))
            continue;
        e[k++] = w == W_EXPECTED ? v->e_expected : w == W_NOENG ? v->e_expected_noeng : v->e_ideal;
    }
    int rc = ic_pub_stats(e, k, s);
    free(e);
    return rc;
}

static bool by_engine(const struct ic_pub_row *r, const void *a) { return !strcmp(r->engine, a); }
static bool by_hw(const struct ic_pub_row *r, const void *a) { return !strcmp(r->hw, a); }
static bool batch_one(const struct ic_pub_row *r, const void *a)
{
    (void)a;
    return r->concurrency == 1 && r->chips == r->tp;
}

static void pct(char *buf, size_t n, double e) { snprintf(buf, n, "%+.1f%%", 100 * e); }

static void stat_line(FILE *out, const char *what, const struct ic_pub_stats *s)
{
    if (!s->n) { /* the group's chips have no achieved rates */
        fprintf(out, "  %-46s %5s  (no expected estimate)\n", what, "0");
        return;
    }
    fprintf(out, "  %-46s %5zu %11.1f%% %9.1f%% %+10.1f%%\n", what, s->n, 100 * s->median_abs,
            100 * s->p90_abs, 100 * s->median_signed);
}

/* One summary block for a filter: ideal then expected. */
/* A group's three figures: ideal, expected, expected without profiles (the
 * table's block and JSON's by-engine and by-chip entries). */
static int group_stats(const struct evaluated *x,
                       bool (*keep)(const struct ic_pub_row *, const void *), const void *arg,
                       struct ic_pub_stats *si, struct ic_pub_stats *se, struct ic_pub_stats *sn)
{
    return stats_of(x, W_IDEAL, keep, arg, si) || stats_of(x, W_EXPECTED, keep, arg, se) ||
                   stats_of(x, W_NOENG, keep, arg, sn)
               ? IC_ENOMEM
               : IC_OK;
}

static int block(FILE *out, const struct evaluated *x, const char *label,
                 bool (*keep)(const struct ic_pub_row *, const void *), const void *arg)
{
    struct ic_pub_stats si, se, sn;
    if (group_stats(x, keep, arg, &si, &se, &sn))
        return IC_ENOMEM;
    if (!si.n) { /* every row of the group is a high-load one, or calibration */
        fprintf(out, "  %-46s %5s  (no per-step validation rows)\n", label, "0");
        return IC_OK;
    }
    char what[160];
    snprintf(what, sizeof what, "%s, ideal", label);
    stat_line(out, what, &si);
    snprintf(what, sizeof what, "%s, expected", label);
    stat_line(out, what, &se);
    snprintf(what, sizeof what, "%s, expected w/o profiles", label);
    stat_line(out, what, &sn);
    return IC_OK;
}

/* Distinct values of a row field, in first-seen order. */
static size_t distinct(const struct evaluated *x, bool engine, const char **vals, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < x->n; i++) {
        const char *v = engine ? x->rows[i].engine : x->rows[i].hw;
        size_t j = 0;
        while (j < k && strcmp(vals[j], v))
            j++;
        if (j == k && k < max)
            vals[k++] = v;
    }
    return k;
}

/* The error figures of the high-load validation rows: the closed form's
 * and the simulation's output tokens/s. */
static int high_load_stats(const struct evaluated *x, struct ic_pub_stats *sc,
                           struct ic_pub_stats *ss)
{
    double *ec = malloc((x->n + 1) * sizeof *ec), *es = malloc((x->n + 1) * sizeof *es);
    size_t k = 0;
    for (size_t i = 0; ec && es && i < x->n; i++)
        if (x->ev[i].throughput && !x->rows[i].calibration) {
            ec[k] = x->ev[i].e_closed;
            es[k] = x->ev[i].e_sim;
            k++;
        }
    const int rc = !ec || !es || ic_pub_stats(ec, k, sc) || ic_pub_stats(es, k, ss) ? IC_ENOMEM
                                                                                   : IC_OK;
    free(ec);
    free(es);
    return rc;
}

static int write_table(FILE *out, const char *csv, const struct evaluated *x)
{
    size_t nv = 0, nc = 0, nt = 0;
    for (size_t i = 0; i < x->n; i++) {
        if (!x->ev[i].evaluated)
            nt++;
        else if (x->rows[i].calibration)
            nc++;
        else
            nv++;
    }
    fprintf(out,
            "published decode measurements: %s\n%zu rows: %zu validation, %zu calibration (shown, "
            "never in the figures), %zu high-load throughput rows (simulated, below)\n",
            csv, x->n, nv, nc, nt);
    fprintf(out, "predicted: one decode step at batch = concurrency per replica, context = input "
                 "+ output/2; error on time per output token (negative: predicted faster)\n"
                 "p after the batch: the figure includes the prompts' prefill, predicted as "
                 "(one prefill step of the batch's prompts + (output - 1) decode steps) / "
                 "output; i: a serving run whose steps carry arriving prompts' chunks, "
                 "simulated at the row's concurrency (mean TPOT, or median ITL)\n\n");
    /* a row is named by its CSV line (ids share long prefixes); the
     * profile list below pairs each line with its id */
    fprintf(out, "%-5s %-4s %-14s %-10s %-3s %-14s %-15s %5s %7s %10s %17s %17s %9s\n", "line",
            "use", "engine", "hw", "tp", "model", "w/kv/compute", "batch", "context",
            "measured ms", "ideal ms (err)", "expected ms (err)", "w/o prof");
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_row *r = &x->rows[i];
        const struct ic_pub_eval *v = &x->ev[i];
        char prec[48], ideal[48] = "-", expd[48] = "-", e1[16], e2[16], e3[16] = "-";
        snprintf(prec, sizeof prec, "%s/%s/%s", ic_dtype_traits(r->weights)->name,
                 ic_dtype_traits(r->kv)->name, ic_dtype_traits(r->compute)->name);
        if (!v->evaluated) {
            fprintf(out, "%-5u %-4s %-14.14s %-10.10s %-3llu %-14.14s %-15s %5llu %7s %10s  "
                         "(%s: below)\n",
                    r->line, r->calibration ? "cal" : "val", r->engine, r->hw,
                    (unsigned long long)r->tp, r->model, prec,
                    (unsigned long long)r->concurrency, "-", "-", ic_pub_kind_name(r->kind));
            continue;
        }
        pct(e1, sizeof e1, v->e_ideal);
        snprintf(ideal, sizeof ideal, "%.2f (%s)", 1e3 * v->ideal_s, e1);
        if (v->has_expected) {
            pct(e2, sizeof e2, v->e_expected);
            snprintf(expd, sizeof expd, "%.2f (%s)", 1e3 * v->expected_s, e2);
            pct(e3, sizeof e3, v->e_expected_noeng);
        }
        fprintf(out, "%-5u %-4s %-14.14s %-10.10s %-3llu %-14.14s %-15s %4llu%c %7llu %10.2f "
                     "%17s %17s %9s\n",
                r->line, r->calibration ? "cal" : "val", r->engine, r->hw,
                (unsigned long long)r->tp, r->model, prec, (unsigned long long)v->batch,
                v->simulated ? 'i' : v->with_prefill ? 'p' : ' ',
                (unsigned long long)v->context, 1e3 * v->measured_s, ideal, expd, e3);
    }
    /* the profile each row's engine column chose */
    fprintf(out, "\nline  id and engine profile (enginedb/; a row without one is predicted with "
                 "a good engine):\n");
    for (size_t i = 0; i < x->n; i++)
        fprintf(out, "%-5u %-44s %s%s\n", x->rows[i].line, x->rows[i].id, x->why[i],
                x->ev[i].evaluated && x->ev[i].has_expected && !x->ev[i].engine_used &&
                        strncmp(x->why[i], "none", 4)
                    ? " (not applied: no achieved rates)"
                    : "");
    /* the high-load rows: output tokens/s of the whole run */
    bool shown = false;
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_row *r = &x->rows[i];
        const struct ic_pub_eval *v = &x->ev[i];
        if (!v->throughput)
            continue;
        if (!shown)
            fprintf(out, "\nhigh-load rows: output tokens/s of the run; closed form = batch / one "
                         "decode step at the mean context; simulated = infcalc simulate offline "
                         "(its batch limit the row's concurrency; where unstated, the engine "
                         "profile's max_batch, else 256); error on time per token\n"
                         "%-5s %-10s %-3s %-14s %7s %10s %18s %18s\n",
                    "line", "hw", "tp", "model", "batch", "measured", "closed form (err)",
                    "simulated (err)");
        shown = true;
        char c1[48], c2[48], p1[16], p2[16];
        pct(p1, sizeof p1, v->e_closed);
        pct(p2, sizeof p2, v->e_sim);
        snprintf(c1, sizeof c1, "%.0f (%s)", v->tput_closed, p1);
        snprintf(c2, sizeof c2, "%.0f (%s)%s", v->tput_sim, p2, v->sim_expected ? "" : " ideal");
        fprintf(out, "%-5u %-10.10s %-3llu %-14.14s %7llu %10.0f %18s %18s\n", r->line, r->hw,
                (unsigned long long)r->tp, r->model, (unsigned long long)v->sim_max_seqs,
                v->tput_measured, c1, c2);
    }
    struct ic_pub_stats sc, ss;
    if (high_load_stats(x, &sc, &ss))
        return IC_ENOMEM;
    if (sc.n) {
        stat_line(out, "high load, closed form", &sc);
        stat_line(out, "high load, simulated", &ss);
    }
    fprintf(out, "\nover the validation rows (expected: with each row's engine profile; w/o "
                 "profiles: a good engine)\n  %-46s %5s %12s %10s %11s\n", "", "rows",
            "median |e|", "p90 |e|", "median e");
    if (block(out, x, "all", NULL, NULL) || block(out, x, "batch 1", batch_one, NULL))
        return IC_ENOMEM;
    const char *vals[64];
    size_t k = distinct(x, true, vals, 64);
    for (size_t j = 0; j < k; j++) {
        char l[96];
        snprintf(l, sizeof l, "engine %s", vals[j]);
        if (block(out, x, l, by_engine, vals[j]))
            return IC_ENOMEM;
    }
    k = distinct(x, false, vals, 64);
    for (size_t j = 0; j < k; j++) {
        char l[96];
        snprintf(l, sizeof l, "chip %s", vals[j]);
        if (block(out, x, l, by_hw, vals[j]))
            return IC_ENOMEM;
    }
    return IC_OK;
}

/* ", "key": v" with v in %.10g, or null where it is not finite (JSON has
 * no NaN); a key of NULL writes the value alone. */
static void jnum(FILE *out, const char *key, double v)
{
    if (key)
        fprintf(out, ", \"%s\": ", key);
    if (isfinite(v))
        fprintf(out, "%.10g", v);
    else
        fputs("null", out);
}

/* Statistics over no row are unknown (null), not a perfect 0. */
static void json_stats(FILE *out, const struct ic_pub_stats *s)
{
    fprintf(out, "{\"rows\": %zu", s->n);
    double nan = s->n ? 0 : NAN;
    jnum(out, "median_abs_error", s->median_abs + nan);
    jnum(out, "p90_abs_error", s->p90_abs + nan);
    jnum(out, "median_error", s->median_signed + nan);
    fputc('}', out);
}

static int write_json(FILE *out, const char *csv, const struct evaluated *x)
{
    fputs("{\n  \"file\": ", out);
    ic_report_json_str(out, csv);
    fputs(",\n  \"rows\": [\n", out);
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_row *r = &x->rows[i];
        const struct ic_pub_eval *v = &x->ev[i];
        fputs("    {\"id\": ", out);
        ic_report_json_str(out, r->id);
        fprintf(out, ", \"use\": \"%s\", \"kind\": \"%s\", \"engine\": ",
                r->calibration ? "calibration" : "validation", ic_pub_kind_name(r->kind));
        ic_report_json_str(out, r->engine);
        fputs(", \"hw\": ", out);
        ic_report_json_str(out, r->hw);
        fputs(", \"model\": ", out);
        ic_report_json_str(out, r->model);
        fprintf(out, ", \"chips\": %llu, \"tp\": %llu, \"concurrency\": %llu",
                (unsigned long long)r->chips, (unsigned long long)r->tp,
                (unsigned long long)r->concurrency);
        if (v->evaluated) {
            fprintf(out, ", \"batch\": %llu, \"context\": %llu", (unsigned long long)v->batch,
                    (unsigned long long)v->context);
            jnum(out, "measured_s", v->measured_s);
            jnum(out, "ideal_s", v->ideal_s);
            jnum(out, "ideal_error", v->e_ideal);
            fprintf(out, ", \"includes_prefill\": %s, \"simulated\": %s",
                    v->with_prefill ? "true" : "false", v->simulated ? "true" : "false");
            jnum(out, "ideal_step_s", v->ideal_step_s);
            jnum(out, "ideal_prefill_s", v->ideal_prefill_s);
            double e = v->has_expected ? 0 : NAN;
            jnum(out, "expected_s", v->expected_s + e);
            jnum(out, "expected_error", v->e_expected + e);
            jnum(out, "expected_without_profile_s", v->expected_noeng_s + e);
            jnum(out, "expected_without_profile_error", v->e_expected_noeng + e);
            jnum(out, "expected_step_s", v->expected_step_s + e);
            jnum(out, "expected_prefill_s", v->expected_prefill_s + e);
        }
        if (v->throughput) {
            fputs(", \"output_tokens_per_s\": {\"measured\": ", out);
            jnum(out, NULL, v->tput_measured);
            jnum(out, "closed_form", v->tput_closed);
            jnum(out, "closed_form_error", v->e_closed);
            jnum(out, "simulated", v->tput_sim);
            jnum(out, "simulated_error", v->e_sim);
            fprintf(out, ", \"simulated_estimate\": \"%s\", \"batch_limit\": %llu}",
                    v->sim_expected ? "expected" : "ideal", (unsigned long long)v->sim_max_seqs);
        }
        fputs(", \"engine_profile\": ", out);
        ic_report_json_str(out, x->why[i]);
        fputs(", \"source\": ", out);
        ic_report_json_str(out, r->source);
        fprintf(out, "}%s\n", i + 1 < x->n ? "," : "");
    }
    struct ic_pub_stats a, b, c, d, f, g;
    if (stats_of(x, W_IDEAL, NULL, NULL, &a) || stats_of(x, W_EXPECTED, NULL, NULL, &b) ||
        stats_of(x, W_IDEAL, batch_one, NULL, &c) || stats_of(x, W_EXPECTED, batch_one, NULL, &d) ||
        stats_of(x, W_NOENG, NULL, NULL, &f) || stats_of(x, W_NOENG, batch_one, NULL, &g))
        return IC_ENOMEM;
    fputs("  ],\n  \"validation\": {\"ideal\": ", out);
    json_stats(out, &a);
    fputs(", \"expected\": ", out);
    json_stats(out, &b);
    fputs(", \"batch1_ideal\": ", out);
    json_stats(out, &c);
    fputs(", \"batch1_expected\": ", out);
    json_stats(out, &d);
    fputs(", \"expected_without_profiles\": ", out);
    json_stats(out, &f);
    fputs(", \"batch1_expected_without_profiles\": ", out);
    json_stats(out, &g);
    /* the table's groups: by engine, by chip, and the high-load rows */
    for (int by = 0; by < 2; by++) {
        const char *vals[64];
        const size_t k = distinct(x, by == 0, vals, 64);
        fprintf(out, ",\n    \"%s\": [", by == 0 ? "by_engine" : "by_chip");
        for (size_t j = 0; j < k; j++) {
            if (group_stats(x, by == 0 ? by_engine : by_hw, vals[j], &a, &b, &f))
                return IC_ENOMEM;
            fprintf(out, "%s{\"%s\": ", j ? ", " : "", by == 0 ? "engine" : "hw");
            ic_report_json_str(out, vals[j]);
            fputs(", \"ideal\": ", out);
            json_stats(out, &a);
            fputs(", \"expected\": ", out);
            json_stats(out, &b);
            fputs(", \"expected_without_profiles\": ", out);
            json_stats(out, &f);
            fputc('}', out);
        }
        fputc(']', out);
    }
    if (high_load_stats(x, &a, &b))
        return IC_ENOMEM;
    fputs(",\n    \"high_load\": {\"closed_form\": ", out);
    json_stats(out, &a);
    fputs(", \"simulated\": ", out);
    json_stats(out, &b);
    fputs("}}\n}\n", out);
    return IC_OK;
}

/* ",v" in %.10g, or "," alone where v is not finite (an empty cell). */
static void cnum(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v))
        fprintf(out, "%.10g", v);
}

/* One line a row; text through the shared CSV writer (RFC 4180 quoting),
 * an empty cell where a figure does not apply: the decode columns of a
 * throughput row, the throughput columns of a decode row. */
static int write_csv(FILE *out, const struct evaluated *x)
{
    fputs("id,use,kind,engine,hw,tp,model,batch,context,measured_s,ideal_s,ideal_error,"
          "expected_s,expected_error,expected_without_profile_s,"
          "expected_without_profile_error,includes_prefill,simulated,"
          "measured_output_tokens_per_s,"
          "closed_form_output_tokens_per_s,closed_form_error,simulated_output_tokens_per_s,"
          "simulated_error,chips,concurrency,ideal_step_s,ideal_prefill_s,expected_step_s,"
          "expected_prefill_s,simulated_estimate,batch_limit,engine_profile,source\n", out);
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_row *r = &x->rows[i];
        const struct ic_pub_eval *v = &x->ev[i];
        ic_rows_csv_str(out, r->id);
        fprintf(out, ",%s,%s,", r->calibration ? "calibration" : "validation",
                ic_pub_kind_name(r->kind));
        ic_rows_csv_str(out, r->engine);
        fputc(',', out);
        ic_rows_csv_str(out, r->hw);
        fprintf(out, ",%llu,", (unsigned long long)r->tp);
        ic_rows_csv_str(out, r->model);
        if (v->evaluated) {
            fprintf(out, ",%llu,%llu", (unsigned long long)v->batch,
                    (unsigned long long)v->context);
            cnum(out, v->measured_s);
            cnum(out, v->ideal_s);
            cnum(out, v->e_ideal);
            double e = v->has_expected ? 0 : NAN;
            cnum(out, v->expected_s + e);
            cnum(out, v->e_expected + e);
            cnum(out, v->expected_noeng_s + e);
            cnum(out, v->e_expected_noeng + e);
            /* as the JSON says them (the input's "interleaved" is both) */
            fprintf(out, ",%s,%s", v->with_prefill ? "true" : "false",
                    v->simulated ? "true" : "false");
        } else {
            fputs(",,,,,,,,,,,", out);
        }
        double t = v->throughput ? 0 : NAN;
        cnum(out, v->tput_measured + t);
        cnum(out, v->tput_closed + t);
        cnum(out, v->e_closed + t);
        cnum(out, v->tput_sim + t);
        cnum(out, v->e_sim + t);
        /* what the JSON carries beside (an empty cell where it has none) */
        fprintf(out, ",%llu,%llu", (unsigned long long)r->chips,
                (unsigned long long)r->concurrency);
        const double d = v->evaluated ? 0 : NAN, ex = v->evaluated && v->has_expected ? 0 : NAN;
        cnum(out, v->ideal_step_s + d);
        cnum(out, v->ideal_prefill_s + d);
        cnum(out, v->expected_step_s + ex);
        cnum(out, v->expected_prefill_s + ex);
        if (v->throughput)
            fprintf(out, ",%s,%llu", v->sim_expected ? "expected" : "ideal",
                    (unsigned long long)v->sim_max_seqs);
        else
            fputs(",,", out);
        fputc(',', out);
        ic_rows_csv_str(out, x->why[i]);
        fputc(',', out);
        ic_rows_csv_str(out, r->source);
        fputc('\n', out);
    }
    return IC_OK;
}

static int write_plot(const char *path, int w, int h, const char *csv, const struct evaluated *x,
                      FILE *errf)
{
    /* measured against predicted time per output token (s; the axes read
     * in ms where the range calls for it), log-log: y = x
     * and a +-15% band, ideal rings and expected dots over validation rows */
    double *v = malloc((4 * x->n + 8) * sizeof *v);
    if (!v)
        return ic_cli_oom(errf);
    double *mi = v, *pi = v + x->n, *me = v + 2 * x->n, *pe = v + 3 * x->n, *line = v + 4 * x->n;
    size_t ni = 0, ne = 0;
    double lo = INFINITY, hi = 0;
    for (size_t i = 0; i < x->n; i++) {
        const struct ic_pub_eval *ev = &x->ev[i];
        if (!ev->evaluated || x->rows[i].calibration)
            continue;
        mi[ni] = ev->measured_s;
        pi[ni++] = ev->ideal_s;
        lo = fmin(lo, fmin(ev->measured_s, ev->ideal_s));
        hi = fmax(hi, fmax(ev->measured_s, ev->ideal_s));
        if (ev->has_expected) {
            me[ne] = ev->measured_s;
            pe[ne++] = ev->expected_s;
            lo = fmin(lo, ev->expected_s);
            hi = fmax(hi, ev->expected_s);
        }
    }
    /* ni >= 1: ic_cli_published_run refuses --plot without a row to draw */
    lo /= 1.3, hi *= 1.3;
    /* the y = x line and the band: x, y pairs of two points each */
    double *xs = line, *yx = line + 2, *yl = line + 4, *yh = line + 6;
    xs[0] = lo, xs[1] = hi;
    yx[0] = lo, yx[1] = hi;
    yl[0] = 0.85 * lo, yl[1] = 0.85 * hi;
    yh[0] = 1.15 * lo, yh[1] = 1.15 * hi;
    const struct ic_plot_series ser[] = {
        {"predicted = measured", xs, yx, 2, false, true},
        {"\xc2\xb1" "15%", xs, yl, 2, true, true}, /* "±15%" in UTF-8 */
        {NULL, xs, yh, 2, true, true},
        {"ideal bound", mi, pi, ni, false, false},
        {"expected", me, pe, ne, false, false},
    };
    char sub[256];
    snprintf(sub, sizeof sub, "%zu validation rows of %s; rings: ideal bound, dots: expected", ni,
             csv);
    const struct ic_plot_lines L = {
        .title = "infcalc against published decode measurements",
        .subtitle = sub,
        .x_label = "measured time per output token",
        .y_label = "predicted",
        .xlog = true,
        .ylog = true,
        .xtime = true,
        .ytime = true,
        .series = ser,
        .n_series = ne ? 5 : 4,
        .points_mask = 1u << 3 | 1u << 4,
        .open_mask = 1u << 3,
    };
    struct ic_err e = {0};
    int rc = ic_plot_lines_write(path, w, h, &L, &e);
    free(v);
    return rc ? ic_cli_report(errf, rc, &e) : 0;
}

int ic_cli_published_run(const char *csv, const struct ic_db *db, enum ic_format fmt,
                         const char *plot, int w, int h, FILE *out, FILE *errf)
{
    if (plot) {
        struct ic_err e = {0};
        int prc = ic_plot_check_path(plot, &e);
        if (prc)
            return ic_cli_report(errf, prc, &e);
    }
    struct evaluated x = {0};
    int rc = evaluate(csv, db, &x, errf);
    /* a figure faster than the ideal bound, which no run beats: most
     * likely a unit or a column slipped (6.1 us for 6.1 ms), and it would
     * move the figures below as a real error */
    for (size_t i = 0; !rc && i < x.n; i++) {
        const struct ic_pub_eval *v = &x.ev[i];
        if (v->evaluated && !v->simulated && v->measured_s < 0.95 * v->ideal_s)
            fprintf(ic_cli_warnf(errf),
                    "infcalc: warning: %s:%u: row %s measures %.4g ms a token, under its ideal "
                    "bound of %.4g ms, which no run beats: is its unit or a column wrong?\n",
                    strcmp(csv, "-") == 0 ? "<stdin>" : csv, x.rows[i].line, x.rows[i].id,
                    1e3 * v->measured_s, 1e3 * v->ideal_s);
    }
    /* --plot draws the per-step validation rows: with none, refused before
     * the report (it printed the whole report, then exited 2) */
    if (!rc && plot) {
        bool any = false;
        for (size_t i = 0; i < x.n && !any; i++)
            any = x.ev[i].evaluated && !x.rows[i].calibration;
        if (!any)
            rc = ic_cli_usage_hint(errf, "the chart draws decode rows; high-load throughput and "
                                         "calibration rows are not drawn (leave out --plot)",
                                   "--plot: no validation decode row to draw");
    }
    /* the file as the databases' folder names it (published/decode.csv) */
    const char *shown = csv;
    size_t nr = strlen(db->root);
    if (nr && strncmp(csv, db->root, nr) == 0 && csv[nr] == '/')
        shown = csv + nr + 1;
    if (!rc) {
        rc = fmt == IC_FMT_JSON ? write_json(out, shown, &x)
             : fmt == IC_FMT_CSV ? write_csv(out, &x)
                                 : write_table(out, shown, &x);
        if (rc)
            rc = ic_cli_oom(errf);
    }
    if (!rc && plot)
        rc = write_plot(plot, w, h, shown, &x, errf);
    free(x.rows);
    free(x.ev);
    free(x.why);
    free(x.profiles);
    return rc;
}
