/* ic_report: printing decode points as a table, CSV or JSON.
 *
 * JSON and CSV are two renderings of one record per point (ic_rows, its
 * fields listed in README.md's "Command line" section, SI base units): JSON
 * one object per point, an array for a sweep, with nested objects
 * (precision, kv_split, time, memory); CSV every one of those fields under
 * one header, a nested field by its dotted name ("time.step_s"). The table
 * picks readable units and says what it printed. No NaN or Inf is ever
 * written: a non-finite value is a bug, printed as null in JSON, an empty
 * CSV cell and "nan" nowhere. */
#ifndef IC_REPORT_H
#define IC_REPORT_H

#include "ic_decode.h"
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_sweep.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ic_format { IC_FMT_TABLE, IC_FMT_CSV, IC_FMT_JSON, IC_FMT_COUNT };
/* "table", "csv", "json". */
const char *ic_report_format_name(enum ic_format f);

/* The format named `name`; 0, or IC_ENOENT leaving *out as it was. */
int ic_report_format_parse(const char *name, enum ic_format *out);

/* The points of one configuration (model on hardware). */
struct ic_report_group {
    const char *model;
    const char *hw;
    const struct ic_point *pts;
    size_t n;
};

struct ic_report {
    bool array;        /* JSON: an array of points (sweeps, several configs) */
    bool sweep;        /* table: one row per point */
    enum ic_axis axes[2];
    int n_axes;
};

/* Writes every group's points: JSON objects (in one array when r->array),
 * CSV rows under one header, or a table per group. Returns 0, IC_ENOMEM
 * (nothing written), or IC_EIO when writing failed. */
int ic_report_write(FILE *out, enum ic_format fmt, const struct ic_report *r,
                    const struct ic_report_group *groups, size_t n_groups);

/* A JSON string with the escapes names and messages could need. */
void ic_report_json_str(FILE *out, const char *s);

/* v in unit with a decimal prefix (k to Z) and `digits` significant
 * digits: "36.15 GB/s", "989 TFLOP". */
void ic_report_si(char *buf, size_t n, double v, const char *unit, int digits);

/* Human-readable size and time: "70.6 GB", "8.65 ms". */
void ic_report_bytes(char *buf, size_t n, double bytes);
void ic_report_time(char *buf, size_t n, double s);

/* The words of the note where `chips` outnumber a model's `heads` query
 * heads (owner: "" or the model's name with its "'s "), without a prefix
 * or newline: decode's table and the other commands' stderr say it alike. */
void ic_report_heads_note(char *buf, size_t n, uint64_t chips, uint64_t heads,
                          const char *owner);

/* v with `digits` significant digits ("%.*g"), but whole below 1e9 where
 * that would write an exponent ("14300", not "1.43e+04"). */
void ic_report_num(char *buf, size_t n, double v, int digits);

#endif
