/* ic_rows: one writer for the serving analyses' tables, CSV and JSON. */
#include "ic_rows.h"

#include "ic_err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ic_rows_init(struct ic_rows *r, const struct ic_col *cols, int n_cols)
{
    memset(r, 0, sizeof *r);
    r->cols = cols;
    r->n_cols = n_cols;
}

union ic_cell *ic_rows_add(struct ic_rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        union ic_cell *c = realloc(r->cells, cap * (size_t)r->n_cols * sizeof *c);
        if (!c)
            return NULL;
        r->cells = c;
        r->cap = cap;
    }
    union ic_cell *row = r->cells + r->n++ * (size_t)r->n_cols;
    memset(row, 0, (size_t)r->n_cols * sizeof *row);
    return row;
}

void ic_cell_text(union ic_cell *c, const char *s) { snprintf(c->s, sizeof c->s, "%s", s); }

void ic_rows_free(struct ic_rows *r)
{
    free(r->cells);
    memset(r, 0, sizeof *r);
}

/* A cell in its SI form for JSON (json) or CSV. */
static void raw(FILE *out, const struct ic_col *c, const union ic_cell *v, bool json)
{
    switch (c->kind) {
    case IC_K_TEXT:
        if (json)
            ic_report_json_str(out, v->s);
        else if (strpbrk(v->s, ",\"\n"))
            ic_report_json_str(out, v->s); /* quoted; names never hold quotes */
        else
            fputs(v->s, out);
        return;
    case IC_K_BOOL:
        fputs(v->v != 0 ? "true" : "false", out);
        return;
    case IC_K_INT:
        if (isfinite(v->v) && fabs(v->v) < 9e15) {
            fprintf(out, "%.0f", v->v);
            return;
        }
        break;
    default:
        break;
    }
    if (isfinite(v->v))
        fprintf(out, "%.10g", v->v);
    else if (json)
        fputs("null", out);
}

/* A cell in readable units for the table. */
static void pretty(char *buf, size_t n, const struct ic_col *c, const union ic_cell *v)
{
    double x = c->kind == IC_K_TEXT ? 0 : v->v;
    if (c->kind != IC_K_TEXT && !isfinite(x)) {
        snprintf(buf, n, "-");
        return;
    }
    switch (c->kind) {
    case IC_K_TEXT:
        snprintf(buf, n, "%s", v->s);
        break;
    case IC_K_BOOL:
        snprintf(buf, n, "%s", x != 0 ? "yes" : "no");
        break;
    case IC_K_INT:
        if (fabs(x) >= 1e9)
            snprintf(buf, n, "%.4g", x);
        else
            snprintf(buf, n, "%.0f", x);
        break;
    case IC_K_NUM:
        snprintf(buf, n, "%.4g", x);
        break;
    case IC_K_S:
        ic_report_time(buf, n, x);
        break;
    case IC_K_BYTES:
        ic_report_bytes(buf, n, x);
        break;
    case IC_K_FLOP: {
        static const char *const u[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
        int i = 0;
        while (fabs(x) >= 1000 && i < 7) {
            x /= 1000;
            i++;
        }
        snprintf(buf, n, "%.3g %sFLOP", x, u[i]);
        break;
    }
    case IC_K_FRAC:
        snprintf(buf, n, "%.3g%%", 100 * x);
        break;
    case IC_K_USD:
        snprintf(buf, n, fabs(x) >= 100 ? "$%.0f" : fabs(x) >= 1 ? "$%.2f" : "$%.4g", x);
        break;
    }
}

int ic_rows_write(FILE *out, enum ic_format fmt, const struct ic_rows *r, const char *title,
                  bool array)
{
    const int nc = r->n_cols;
    if (fmt == IC_FMT_JSON) {
        bool arr = array || r->n != 1;
        if (arr)
            fputs("[\n", out);
        for (size_t i = 0; i < r->n; i++) {
            fputs(arr ? "  {" : "{", out);
            for (int c = 0; c < nc; c++) {
                fprintf(out, "%s\"%s\": ", c ? ", " : "", r->cols[c].key);
                raw(out, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c], true);
            }
            fputs(i + 1 < r->n ? "},\n" : "}\n", out);
        }
        if (arr)
            fputs("]\n", out);
    } else if (fmt == IC_FMT_CSV) {
        for (int c = 0; c < nc; c++)
            fprintf(out, "%s%s", c ? "," : "", r->cols[c].key);
        fputc('\n', out);
        for (size_t i = 0; i < r->n; i++) {
            for (int c = 0; c < nc; c++) {
                if (c)
                    fputc(',', out);
                raw(out, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c], false);
            }
            fputc('\n', out);
        }
    } else {
        if (title)
            fprintf(out, "%s\n", title);
        char buf[64];
        if (!r->n)
            goto done;
        if (r->n == 1 || (r->n <= 4 && nc > 14)) {
            /* one row, or a few wide ones: a field per line, a column per row */
            int w = 0;
            for (int c = 0; c < nc; c++)
                if ((int)strlen(r->cols[c].head) > w)
                    w = (int)strlen(r->cols[c].head);
            int cw[4] = {0};
            for (size_t i = 0; i < r->n; i++)
                for (int c = 0; c < nc; c++) {
                    pretty(buf, sizeof buf, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    if ((int)strlen(buf) > cw[i])
                        cw[i] = (int)strlen(buf);
                }
            for (int c = 0; c < nc; c++) {
                fprintf(out, "  %-*s", w, r->cols[c].head);
                for (size_t i = 0; i < r->n; i++) {
                    pretty(buf, sizeof buf, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    fprintf(out, "  %*s", r->n == 1 ? 0 : cw[i], buf);
                }
                fputc('\n', out);
            }
        } else if (false) {
            int w = 0;
            for (int c = 0; c < nc; c++)
                if ((int)strlen(r->cols[c].head) > w)
                    w = (int)strlen(r->cols[c].head);
            for (int c = 0; c < nc; c++) {
                pretty(buf, sizeof buf, &r->cols[c], &r->cells[c]);
                fprintf(out, "  %-*s  %s\n", w, r->cols[c].head, buf);
            }
        } else {
            int w[64];
            for (int c = 0; c < nc && c < 64; c++) {
                w[c] = (int)strlen(r->cols[c].head);
                for (size_t i = 0; i < r->n; i++) {
                    pretty(buf, sizeof buf, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    if ((int)strlen(buf) > w[c])
                        w[c] = (int)strlen(buf);
                }
            }
            for (int c = 0; c < nc && c < 64; c++)
                fprintf(out, "%s%*s", c ? "  " : "", w[c], r->cols[c].head);
            fputc('\n', out);
            for (size_t i = 0; i < r->n; i++) {
                for (int c = 0; c < nc && c < 64; c++) {
                    pretty(buf, sizeof buf, &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    fprintf(out, "%s%*s", c ? "  " : "", w[c], buf);
                }
                fputc('\n', out);
            }
        }
    }
done:
    fflush(out);
    return ferror(out) ? IC_EIO : IC_OK;
}
