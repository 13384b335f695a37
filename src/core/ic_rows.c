/* ic_rows: one writer for the tables, CSV and JSON of named fields. */
#include "ic_rows.h"

#include "ic_utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ic_rows_init(struct ic_rows *r, const struct ic_col *cols, int n_cols)
{
    memset(r, 0, sizeof *r);
    r->cols = cols;
    r->n_cols = n_cols;
}

/* Keeps the first error; returns code. */
static int fail(struct ic_rows *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct ic_rows *r, int code, const char *fmt, ...)
{
    if (!r->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->why, sizeof r->why, fmt, ap);
        va_end(ap);
        r->err = code;
    }
    return code;
}

int ic_rows_add(struct ic_rows *r)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct ic_cell *c = realloc(r->cells, cap * (size_t)r->n_cols * sizeof *c);
        if (!c)
            return fail(r, IC_ENOMEM, "out of memory");
        r->cells = c;
        r->cap = cap;
    }
    struct ic_cell *row = r->cells + r->n++ * (size_t)r->n_cols;
    for (int c = 0; c < r->n_cols; c++)
        row[c] = (struct ic_cell){0, NULL, false};
    return IC_OK;
}

/* The cell of `key` in the last row, when it may take a value of that kind
 * (text or not); else NULL with the error kept. */
static struct ic_cell *cell(struct ic_rows *r, const char *key, bool text)
{
    if (!r->n) {
        fail(r, IC_EINVAL, "field '%s' set before any row was added", key);
        return NULL;
    }
    for (int c = 0; c < r->n_cols; c++) {
        if (strcmp(r->cols[c].key, key) != 0)
            continue;
        struct ic_cell *v = &r->cells[(r->n - 1) * (size_t)r->n_cols + (size_t)c];
        if ((r->cols[c].kind == IC_K_TEXT) != text) {
            fail(r, IC_EINVAL, "field '%s' holds %s, given %s", key, text ? "a number" : "text",
                 text ? "text" : "a number");
            return NULL;
        }
        if (v->set) {
            fail(r, IC_EINVAL, "field '%s' set twice in row %zu", key, r->n);
            return NULL;
        }
        return v;
    }
    fail(r, IC_EINVAL, "no field '%s' among the %d columns", key, r->n_cols);
    return NULL;
}

int ic_rows_num(struct ic_rows *r, const char *key, double v)
{
    struct ic_cell *c = cell(r, key, false);
    if (!c)
        return IC_EINVAL;
    c->v = v;
    c->set = true;
    return IC_OK;
}

int ic_rows_text(struct ic_rows *r, const char *key, const char *s)
{
    struct ic_cell *c = cell(r, key, true);
    if (!c)
        return IC_EINVAL;
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return fail(r, IC_ENOMEM, "out of memory");
    memcpy(copy, s, n + 1);
    c->s = copy;
    c->set = true;
    return IC_OK;
}

int ic_rows_check(const struct ic_rows *r, struct ic_err *e)
{
    if (r->err)
        return ic_err_set(e, r->err, NULL, 0, 0, "rows: %s", r->why);
    for (size_t i = 0; i < r->n; i++)
        for (int c = 0; c < r->n_cols; c++)
            if (!r->cells[i * (size_t)r->n_cols + (size_t)c].set)
                return ic_err_set(e, IC_EINVAL, NULL, 0, 0,
                                  "rows: field '%s' of row %zu was never set", r->cols[c].key,
                                  i + 1);
    return IC_OK;
}

void ic_rows_free(struct ic_rows *r)
{
    if (r->cells)
        for (size_t i = 0; i < r->n * (size_t)r->n_cols; i++)
            free(r->cells[i].s);
    free(r->cells);
    memset(r, 0, sizeof *r);
}

void ic_rows_csv_str(FILE *out, const char *s)
{
    bool quote = strpbrk(s, ",\"\r\n") != NULL;
    if (quote)
        fputc('"', out);
    for (size_t left = strlen(s); left;) {
        uint32_t cp;
        size_t n = ic_utf8_seq((const unsigned char *)s, left, &cp);
        if (n == 0) {
            fputs(IC_UTF8_REPLACEMENT, out);
            n = 1;
        } else {
            if (quote && *s == '"')
                fputc('"', out);
            fwrite(s, 1, n, out);
        }
        s += n;
        left -= n;
    }
    if (quote)
        fputc('"', out);
}

/* A cell in its SI form for JSON (json) or CSV. */
static void raw(FILE *out, const struct ic_col *c, const struct ic_cell *v, bool json)
{
    switch (c->kind) {
    case IC_K_TEXT:
        if (json)
            ic_report_json_str(out, v->s);
        else
            ic_rows_csv_str(out, v->s);
        return;
    case IC_K_BOOL: /* NaN: not known (null), not true */
        if (isfinite(v->v)) {
            fputs(v->v != 0 ? "true" : "false", out);
            return;
        }
        break;
    case IC_K_INT:
    case IC_K_BYTES: /* a count: to the whole byte, not 10 digits of it */
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

/* The length of key's nesting prefix ("time" of "time.step_s"), 0 when flat. */
static size_t prefix_len(const char *key)
{
    const char *dot = strchr(key, '.');
    return dot ? (size_t)(dot - key) : 0;
}

static bool same_prefix(const char *a, const char *b)
{
    size_t n = prefix_len(a);
    return n && n == prefix_len(b) && memcmp(a, b, n) == 0;
}

void ic_rows_json_row(FILE *out, const struct ic_rows *r, size_t i, const char *ind)
{
    const int nc = r->n_cols;
    const struct ic_cell *row = r->cells + i * (size_t)nc;
    if (ind)
        fprintf(out, "%s{\n", ind);
    else
        fputc('{', out);
    for (int c = 0; c < nc;) {
        const char *key = r->cols[c].key;
        size_t pl = prefix_len(key);
        if (c)
            fputs(ind ? ",\n" : ", ", out);
        if (ind)
            fprintf(out, "%s  ", ind);
        if (!pl) {
            fprintf(out, "\"%s\": ", key);
            raw(out, &r->cols[c], &row[c], true);
            c++;
            continue;
        }
        /* a nested object: the run of keys sharing this prefix */
        fprintf(out, "\"%.*s\": {", (int)pl, key);
        int first = c;
        for (; c < nc && (c == first || same_prefix(r->cols[first].key, r->cols[c].key)); c++) {
            fprintf(out, "%s\"%s\": ", c > first ? ", " : "", r->cols[c].key + pl + 1);
            raw(out, &r->cols[c], &row[c], true);
        }
        fputc('}', out);
    }
    if (ind)
        fprintf(out, "\n%s}", ind);
    else
        fputc('}', out);
}

/* A cell in readable units for the table. */
static void pretty(char *buf, size_t n, const struct ic_col *c, const struct ic_cell *v)
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
        ic_report_num(buf, n, x, 4);
        break;
    case IC_K_S:
        ic_report_time(buf, n, x);
        break;
    case IC_K_BYTES:
        ic_report_bytes(buf, n, x);
        break;
    case IC_K_FLOP:
        ic_report_si(buf, n, x, "FLOP", 3);
        break;
    case IC_K_FRAC:
        /* a share just under 1 (a chance of 0.9999994) does not read 100% */
        if (x < 1 && 100 * x >= 99.9999995)
            snprintf(buf, n, ">99.999999%%");
        else if (x < 1 && 100 * x >= 99.95)
            snprintf(buf, n, "%.*f%%", 100 * x >= 99.9995 ? 6 : 3, 100 * x);
        else { /* "1320%", not "1.32e+03%" */
            char num[32];
            ic_report_num(num, sizeof num, 100 * x, 3);
            snprintf(buf, n, "%s%%", num);
        }
        break;
    case IC_K_USD:
        snprintf(buf, n, fabs(x) >= 100 ? "$%.0f" : fabs(x) >= 1 ? "$%.2f" : "$%.4g", x);
        break;
    }
}

/* The table's width of a cell: its readable form's length. */
static int width(const struct ic_col *c, const struct ic_cell *v)
{
    char buf[64];
    if (c->kind == IC_K_TEXT)
        return (int)strlen(v->s);
    pretty(buf, sizeof buf, c, v);
    return (int)strlen(buf);
}

/* Prints a cell right-aligned in w columns (0: as it is). */
static void put_cell(FILE *out, int w, const struct ic_col *c, const struct ic_cell *v)
{
    char buf[64];
    if (c->kind == IC_K_TEXT) {
        fprintf(out, "%*s", w, v->s);
        return;
    }
    pretty(buf, sizeof buf, c, v);
    fprintf(out, "%*s", w, buf);
}

int ic_rows_write(FILE *out, enum ic_format fmt, const struct ic_rows *r, const char *title,
                  bool array, struct ic_err *e)
{
    int rc = ic_rows_check(r, e);
    if (rc)
        return rc;
    const int nc = r->n_cols;
    if (fmt == IC_FMT_JSON) {
        bool arr = array || r->n != 1;
        if (arr)
            fputs("[\n", out);
        for (size_t i = 0; i < r->n; i++) {
            if (arr)
                fputs("  ", out);
            ic_rows_json_row(out, r, i, NULL);
            fputs(i + 1 < r->n ? ",\n" : "\n", out);
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
        if (!r->n)
            goto done;
        int hw = 0;
        for (int c = 0; c < nc; c++)
            if (r->cols[c].head && (int)strlen(r->cols[c].head) > hw)
                hw = (int)strlen(r->cols[c].head);
        if (r->n == 1 || (r->n <= 4 && nc > 14)) {
            /* one row, or a few wide ones: a field per line, a column per row */
            int cw[4] = {0};
            for (size_t i = 0; i < r->n; i++)
                for (int c = 0; c < nc; c++) {
                    int w = width(&r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    if (w > cw[i])
                        cw[i] = w;
                }
            for (int c = 0; c < nc; c++) {
                if (!r->cols[c].head)
                    continue;
                fprintf(out, "  %-*s", hw, r->cols[c].head);
                for (size_t i = 0; i < r->n; i++) {
                    fputs("  ", out);
                    put_cell(out, r->n == 1 ? 0 : cw[i], &r->cols[c],
                             &r->cells[i * (size_t)nc + (size_t)c]);
                }
                fputc('\n', out);
            }
        } else {
            int *w = malloc((size_t)nc * sizeof *w);
            if (!w)
                return ic_err_set(e, IC_ENOMEM, NULL, 0, 0, "out of memory");
            for (int c = 0; c < nc; c++) {
                if (!r->cols[c].head)
                    continue;
                w[c] = (int)strlen(r->cols[c].head);
                for (size_t i = 0; i < r->n; i++) {
                    int x = width(&r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                    if (x > w[c])
                        w[c] = x;
                }
                fprintf(out, "%s%*s", c ? "  " : "", w[c], r->cols[c].head);
            }
            fputc('\n', out);
            for (size_t i = 0; i < r->n; i++) {
                for (int c = 0; c < nc; c++) {
                    if (!r->cols[c].head)
                        continue;
                    fputs(c ? "  " : "", out);
                    put_cell(out, w[c], &r->cols[c], &r->cells[i * (size_t)nc + (size_t)c]);
                }
                fputc('\n', out);
            }
            free(w);
        }
    }
done:
    fflush(out);
    return ferror(out) ? ic_err_set(e, IC_EIO, NULL, 0, 0, "writing the output failed") : IC_OK;
}
