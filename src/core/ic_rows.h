/* ic_rows: results as rows of named, typed fields, printed as a table, CSV
 * or JSON by one writer, so the three are renderings of one record.
 *
 * A command states its fields once as a column list, then fills each row by
 * name (ic_rows_num, ic_rows_text): a field is found by its key, so a
 * swapped pair of values cannot relabel each other, and a key that is not a
 * column, a value of the wrong kind, a field set twice or a field never set
 * is an error (ic_rows_check) rather than a write past the row or a silent
 * zero. Misuse is sticky: the first one is kept in the rows and every writer
 * refuses them, so callers fill without checking each call.
 *
 * JSON and CSV carry SI base units (seconds, bytes, FLOPs, dollars; a
 * field's key says its unit: "_s" seconds only, "_bytes" bytes,
 * "_per_s" a rate); the table picks readable units. A key with a dot
 * ("time.step_s") is a field of a nested JSON object ("time": {"step_s"})
 * and keeps its dotted name in the CSV header. One row prints as a
 * two-column list of fields, several as a table. A value that is not finite
 * is one not known (NaN: a cost where the entry has no price, the other
 * estimate where the entry has no figures for it): it prints as null in
 * JSON, an empty CSV cell and "-" in the table, never "nan" or a made-up 0.
 * Text is copied whole, never cut. */
#ifndef IC_ROWS_H
#define IC_ROWS_H

#include "ic_err.h"
#include "ic_report.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ic_kind {
    IC_K_TEXT,  /* a string */
    IC_K_INT,   /* a whole number */
    IC_K_NUM,   /* a plain number, 4 significant figures */
    IC_K_S,     /* seconds */
    IC_K_BYTES, /* bytes */
    IC_K_FLOP,  /* FLOPs (a count, printed with a prefix) */
    IC_K_FRAC,  /* a fraction, printed in the table as a percentage */
    IC_K_USD,   /* dollars */
    IC_K_BOOL,  /* true / false */
};

struct ic_col {
    const char *key;  /* JSON and CSV name, with its unit: "ttft_s" */
    const char *head; /* table label: "TTFT"; NULL: JSON and CSV only (a figure the
                         table's title states once for every row) */
    enum ic_kind kind;
};

struct ic_cell {
    double v; /* numbers and booleans */
    char *s;  /* text, malloc'd */
    bool set;
};

struct ic_rows {
    const struct ic_col *cols;
    int n_cols;
    struct ic_cell *cells; /* n * n_cols, row-major */
    size_t n, cap;
    int err;       /* the first misuse (IC_EINVAL) or failed allocation (IC_ENOMEM) */
    char why[160]; /* what it was */
};

/* Starts an empty set of rows over cols (which must outlive it). */
void ic_rows_init(struct ic_rows *r, const struct ic_col *cols, int n_cols);

/* Appends a row with no field set; the setters fill the last row added.
 * Returns 0 or IC_ENOMEM (also kept in r->err). */
int ic_rows_add(struct ic_rows *r);

/* Sets the number (or boolean, 0 or 1) of field `key` in the last row.
 * Returns 0, or IC_EINVAL when there is no row, no such column, the column
 * holds text or the field is already set; the row is left as it was and
 * the first error is kept in r->err and r->why. */
int ic_rows_num(struct ic_rows *r, const char *key, double v);

/* Sets the text of field `key` in the last row (copied whole). Returns 0,
 * IC_EINVAL as ic_rows_num (the column holds a number), or IC_ENOMEM. */
int ic_rows_text(struct ic_rows *r, const char *key, const char *s);

/* 0 when every field of every row was set once and nothing went wrong;
 * else r->err, or IC_EINVAL for the first field never set, described in e. */
int ic_rows_check(const struct ic_rows *r, struct ic_err *e);

void ic_rows_free(struct ic_rows *r);

/* Writes the rows after ic_rows_check (nothing is written when it fails;
 * its error is returned and described in e). Table: `title` lines first
 * (may be NULL), then the list or the table. JSON: one object for a single
 * row unless `array`, else an array. Returns 0, the check's error, or
 * IC_EIO. */
int ic_rows_write(FILE *out, enum ic_format fmt, const struct ic_rows *r, const char *title,
                  bool array, struct ic_err *e);

/* Row i as one JSON object: on one line when ind is NULL ({"a": 1, "b":
 * {"c": 2}}), else one top-level field per line, each line starting with
 * ind and two spaces, nested objects kept on their field's line. No
 * newline after the closing brace. The rows must pass ic_rows_check. */
void ic_rows_json_row(FILE *out, const struct ic_rows *r, size_t i, const char *ind);

/* A CSV field, quoted when it holds a comma, quote or line break (RFC 4180). */
void ic_rows_csv_str(FILE *out, const char *s);

#endif
