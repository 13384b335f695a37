/* ic_rows: results of the serving analyses as rows of named, typed fields,
 * printed as a table, CSV or JSON by one writer.
 *
 * The decode command has its own fixed contract (ic_report); the serving
 * commands (prefill, specdec, moe, batching, prefix, disagg, cost, optimize,
 * bestofn) each state their fields as a column list, fill rows and hand them
 * here. JSON and CSV carry SI base units (seconds, bytes, FLOPs, dollars; a
 * field's key says its unit, "ttft_s"); the table picks readable units. One
 * row prints as a two-column list of fields, several as a table. A value
 * that is not finite is a bug in the caller: it prints as null in JSON, an
 * empty CSV cell and "-" in the table, never "nan". */
#ifndef IC_ROWS_H
#define IC_ROWS_H

#include "ic_report.h"

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
    const char *head; /* table label: "TTFT" */
    enum ic_kind kind;
};

union ic_cell {
    double v;
    char s[48];
};

struct ic_rows {
    const struct ic_col *cols;
    int n_cols;
    union ic_cell *cells; /* n * n_cols, row-major */
    size_t n, cap;
};

/* Starts an empty set of rows over cols (which must outlive it). */
void ic_rows_init(struct ic_rows *r, const struct ic_col *cols, int n_cols);

/* Appends a row with every number 0 and every text empty; returns its
 * n_cols cells, or NULL when out of memory. */
union ic_cell *ic_rows_add(struct ic_rows *r);

/* Sets a text cell (truncated to fit). */
void ic_cell_text(union ic_cell *c, const char *s);

void ic_rows_free(struct ic_rows *r);

/* Writes the rows. Table: `title` lines first (may be NULL), then the list
 * or the table. JSON: one object for a single row unless `array`, else an
 * array. Returns 0 or IC_EIO. */
int ic_rows_write(FILE *out, enum ic_format fmt, const struct ic_rows *r, const char *title,
                  bool array);

#endif
