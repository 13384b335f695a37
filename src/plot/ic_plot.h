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
 *   chips      a chips sweep: left, step time and its terms against the
 *              tensor-parallel size (log2 axis), the sizes that do not fit
 *              grayed; right, tokens/s in all and per chip against it; on
 *              both, a line at the largest useful size
 *              (ic_sweep_largest_useful: the one the table marks).
 *   validation measured points with their spread beside the predicted
 *              curve, and a residuals panel in percent.
 *   heatmap    a two-axis sweep (batch x context, say): step time and
 *              tokens/s per chip per cell, the cells that do not fit
 *              outlined, and the edges where the bound changes.
 * Every axis has units (time axes in the unit their range reads in: ms,
 * us, or each tick its own), decade ticks with 1-2-5 labels; the points
 * at the ends sit inside the frame with their labels; a legend goes where
 * no curve, point or label is, else above the frame. Where the points carry
 * both estimates (ic_point.other_step_s), the expected step time is drawn
 * solid and the ideal bound dashed. In one picture a solid line always
 * means the expected step: where some curves have one and others (a chip
 * entry without achieved or measured rates) do not, those are drawn
 * dashed, their ideal bound alone, labelled so (ic_plot_curve_legend), and
 * the envelope is of the expected steps; where no point has one, the lines
 * are the ideal bound, solid. The palette is Okabe-Ito (colour-blind
 * safe), text is DejaVu Sans. */
#ifndef IC_PLOT_H
#define IC_PLOT_H

#include "ic_decode.h"
#include "ic_err.h"
#include "ic_sweep.h"

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

/* The legend text of curve c (< set->n_curves) of a decode, context or
 * chips figure into buf (n bytes, cut to fit): its label, with " (ideal
 * bound only)" where none of its points has an expected step though
 * another curve's have. True then: the figure draws that curve dashed (its
 * ideal bound) and leaves it out of the envelope. */
bool ic_plot_curve_legend(const struct ic_plot_set *set, size_t c, char *buf, size_t n);

/* Where a panel sits and what it shows, so tests can probe pixels. */
struct ic_plot_panel {
    double x0, y0, w, h;     /* plot area in device units */
    double xmin, xmax;       /* data range on x (log axes: positive; time axes: s;
                                heatmaps: cell units, cell i spans i .. i + 1) */
    double ymin, ymax;
    bool xlog, ylog;
    bool xtime, ytime;       /* values in seconds, ticks in the unit the range reads in */
    bool xpow2;              /* a log x axis ticked at powers of two (chips) */
    double lx, ly, lw, lh;   /* the legend's box, device units (lw 0: none) */
    bool legend_outside;     /* above the frame: no place inside was clear */
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
/* A chips sweep, one curve per configuration (each curve's points in the
 * order of their chip counts). With one curve, its terms and the largest
 * useful size as a line on both panels; with several, that size ringed on
 * each curve. */
int ic_plot_chips(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
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
enum ic_plot_kind { IC_PLOT_DECODE, IC_PLOT_CONTEXT, IC_PLOT_CHIPS, IC_PLOT_KIND_COUNT };

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
    const char *x_label, *y_label; /* time axes: without the unit, which is added */
    bool xlog, ylog;
    bool xtime, ytime;       /* x or y in seconds, labelled in ms, us ... as the range reads */
    const struct ic_plot_series *series;
    size_t n_series;
    double vline;            /* a vertical marker at this x (0: none) */
    const char *vline_label;
    double nofit_from;       /* gray from this x on: does not fit in memory (0: all fits;
                                at or below the first x: the whole panel) */
    unsigned points_mask;    /* bit s: series s is markers only (a scatter) */
    unsigned open_mask;      /* bit s: its markers are rings, not dots */
    const char *const *point_labels; /* optional: a label beside each point of the
                                        series labelled_series (NULL entries: none) */
    size_t labelled_series;
};

int ic_plot_lines(cairo_t *cr, double width, double height, const struct ic_plot_lines *l,
                  struct ic_plot_layout *layout, struct ic_err *err);

/* One or two line-chart panels side by side under one title (the panels'
 * own titles unused): simulate's latency against load beside throughput
 * per chip against latency. */
struct ic_plot_figure {
    const char *title, *subtitle;
    const struct ic_plot_lines *panels;
    int n_panels;            /* 1 or 2 */
};

int ic_plot_figure(cairo_t *cr, double width, double height, const struct ic_plot_figure *f,
                   struct ic_plot_layout *layout, struct ic_err *err);
int ic_plot_figure_write(const char *path, int width, int height, const struct ic_plot_figure *f,
                         struct ic_err *err);

/* A two-axis sweep as two heatmaps: step time (left) and tokens/s per chip
 * (right) per cell, x the first axis's values, y the second's (the grid
 * ic_sweep_run returns; a ragged grid leaves its missing cells blank). The
 * cells that do not fit are hatched and outlined, the edges between cells
 * bound by different terms drawn dashed. IC_EINVAL without points. */
struct ic_plot_heat {
    const char *title, *subtitle;
    const struct ic_point *pts;
    size_t n;
    enum ic_axis axes[2];
};

int ic_plot_heatmap(cairo_t *cr, double width, double height, const struct ic_plot_heat *h,
                    struct ic_plot_layout *layout, struct ic_err *err);
int ic_plot_heatmap_write(const char *path, int width, int height, const struct ic_plot_heat *h,
                          struct ic_err *err);

/* The unit a time axis from lo_s to hi_s (seconds) reads in: the largest of
 * s, ms, us and ns in which its top reads at least 1 and below 10000 and its
 * bottom at least 0.01 ([0.0005 s, 0.1 s]: "ms", ticks 0.5 .. 100), *scale
 * its seconds; NULL where none does (each tick then carries its own unit). */
const char *ic_plot_time_unit(double lo_s, double hi_s, double *scale);

/* A tick label for v_s on such an axis: the number in the axis's unit, or,
 * where the axis has none, with the unit in which it reads 1 to 999
 * ("500 us", "2 s"). */
void ic_plot_time_tick(char *buf, size_t n, double v_s, double lo_s, double hi_s);

/* The Pareto frontier of n points (latency, throughput): the indices of the
 * points no other point dominates (latency no higher and throughput no
 * lower, one of them strictly), sorted by latency, into idx (room for n).
 * Points with a non-positive or non-finite coordinate are left out. */
size_t ic_plot_frontier(const double *latency, const double *throughput, size_t n, size_t *idx);
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
