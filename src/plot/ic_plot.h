/* ic_plot: the pictures, drawn with cairo on a caller's cairo_t.
 *
 * Plots never compute physics: they draw arrays of points that
 * the sweeps computed. Three figures:
 *   decode     left, step time and its terms against batch (log axes), the
 *              compute-bound batches shaded, the batches that do not fit
 *              grayed, B_crit marked; right, tokens/s per chip against
 *              ms per token, one point per batch, the Pareto frontier drawn.
 *              Several configurations draw one curve each plus, on the
 *              right, their envelope (the best any gives at each latency).
 *   context    step time and its terms against context at a fixed batch,
 *              marking where the KV read overtakes the weight read.
 *   validation measured points with their spread beside the predicted
 *              curve, and a residuals panel in percent.
 * Every axis has units, decade ticks with 1-2-5 labels, the palette is
 * Okabe-Ito (colour-blind safe), text is DejaVu Sans. */
#ifndef IC_PLOT_H
#define IC_PLOT_H

#include "ic_decode.h"
#include "ic_err.h"

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

/* One configuration's points, in the order of its sweep. */
struct ic_plot_curve {
    const char *label; /* legend text, e.g. "16 chips" */
    const struct ic_point *pts;
    size_t n;
};

struct ic_plot_set {
    const char *title;    /* first line: model, hardware, chips, precision, context */
    const char *subtitle; /* second line, may be NULL */
    const struct ic_plot_curve *curves;
    size_t n_curves;
    const struct ic_point *mark; /* optional: the current point, ringed on every panel
                                    with a line at its batch (or context) */
};

/* Where a panel sits and what it shows, so tests can probe pixels. */
struct ic_plot_panel {
    double x0, y0, w, h;     /* plot area in device units */
    double xmin, xmax;       /* data range on x (log axes: positive) */
    double ymin, ymax;
    bool xlog, ylog;
};

struct ic_plot_layout {
    struct ic_plot_panel panel[2];
    int n_panels;
};

/* Device x / y of a data value on a panel. */
double ic_plot_px(const struct ic_plot_panel *p, double x);
double ic_plot_py(const struct ic_plot_panel *p, double y);

/* Draws the figures into a width x height area of cr. layout (may be NULL)
 * receives the panels. Fail with IC_EINVAL on empty input. */
int ic_plot_decode(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                   struct ic_plot_layout *layout, struct ic_err *err);
int ic_plot_context(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                    struct ic_plot_layout *layout, struct ic_err *err);

struct ic_plot_vpoint {
    double x;          /* the swept quantity (batch, context, ...) */
    double measured;   /* median measured time, s */
    double lo, hi;     /* its spread (e.g. min and max of repeats), s */
    double predicted;  /* the model's time for the same shape, s */
};

struct ic_plot_vseries {
    const char *label;
    const struct ic_plot_vpoint *pts;
    size_t n;
};

int ic_plot_validation(cairo_t *cr, double width, double height, const char *title,
                       const char *subtitle, const char *x_label,
                       const struct ic_plot_vseries *series, size_t n_series,
                       struct ic_plot_layout *layout, struct ic_err *err);

/* Which figure a file holds. */
enum ic_plot_kind { IC_PLOT_DECODE, IC_PLOT_CONTEXT, IC_PLOT_KIND_COUNT };

/* A generic one-panel line chart (log axes by default): the serving
 * analyses' pictures (TTFT against prompt length, the SLO search's cost
 * frontier per chip). Dashed series are secondary terms. */
struct ic_plot_series {
    const char *label;   /* NULL: the previous series' colour, no legend entry */
    const double *x, *y;
    size_t n;
    bool dashed;
    bool bare;           /* a line without a marker at its points */
};

struct ic_plot_lines {
    const char *title, *subtitle;
    const char *x_label, *y_label;
    bool xlog, ylog;
    const struct ic_plot_series *series;
    size_t n_series;
    double vline;            /* a vertical marker at this x (0: none) */
    const char *vline_label;
    unsigned points_mask;    /* bit s: series s is markers only (a scatter) */
    unsigned open_mask;      /* bit s: its markers are rings, not dots */
};

int ic_plot_lines(cairo_t *cr, double width, double height, const struct ic_plot_lines *l,
                  struct ic_plot_layout *layout, struct ic_err *err);

/* Renders a figure as PNG into a malloc'd buffer (*png, *n; free() it). */
int ic_plot_png(enum ic_plot_kind kind, int width, int height, const struct ic_plot_set *set,
                unsigned char **png, size_t *n, struct ic_err *err);

/* Writes ic_plot_lines to path (.png, .svg or .pdf). */
int ic_plot_lines_write(const char *path, int width, int height, const struct ic_plot_lines *l,
                        struct ic_err *err);


/* Checks before any work that path names a picture type (.png, .svg,
 * .pdf) and can be written: an existing file writable, else its folder
 * open to a new file. IC_EINVAL for the type, IC_EIO with the OS reason. */
int ic_plot_check_path(const char *path, struct ic_err *err);

/* Writes a figure to path; the extension picks the surface: .png (image),
 * .svg or .pdf (vector, one unit per pixel). */
int ic_plot_write(const char *path, enum ic_plot_kind kind, int width, int height,
                  const struct ic_plot_set *set, struct ic_err *err);

#endif
