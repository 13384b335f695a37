/* ic_plot: cairo drawing of decode, context and validation figures. */
#include "ic_plot.h"
#include "ic_out.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ic_sweep.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* Okabe-Ito palette (Color Universal Design), colour-blind safe. */
static const double palette[8][3] = {
    {0.000, 0.447, 0.698}, /* blue */
    {0.835, 0.369, 0.000}, /* vermillion */
    {0.000, 0.620, 0.451}, /* bluish green */
    {0.800, 0.475, 0.655}, /* reddish purple */
    {0.902, 0.624, 0.000}, /* orange */
    {0.337, 0.706, 0.914}, /* sky blue */
    {0.941, 0.894, 0.259}, /* yellow */
    {0.000, 0.000, 0.000}, /* black */
};

enum term { T_STEP, T_WEIGHTS, T_KV, T_COMPUTE, T_COMM, T_COUNT };
static const struct {
    const char *label;
    int color; /* palette index, -1 = black */
    double width;
} terms[T_COUNT] = {
    [T_STEP] = {"step time", 7, 3.0},
    [T_WEIGHTS] = {"weight read", 0, 1.8},
    [T_KV] = {"KV read", 1, 1.8},
    [T_COMPUTE] = {"compute", 2, 1.8},
    [T_COMM] = {"collectives", 3, 1.8},
};

static double term_value(const struct ic_point *p, enum term t)
{
    switch (t) {
    case T_STEP:
        return p->step_s;
    case T_WEIGHTS:
        return p->weights_s;
    case T_KV:
        return p->kv_s;
    case T_COMPUTE:
        return p->compute_s + p->attn_s;
    case T_COMM:
        return p->comm_s;
    case T_COUNT:
    default:
        return 0;
    }
}

static void color(cairo_t *cr, int i, double alpha)
{
    const double *c = palette[i % 8];
    cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

/* Curve colours skip black (reserved for totals and envelopes). */
static int curve_color(size_t i) { return (int)(i % 7); }

double ic_plot_px(const struct ic_plot_panel *p, double x)
{
    double f = p->xlog ? (log10(x) - log10(p->xmin)) / (log10(p->xmax) - log10(p->xmin))
                       : (x - p->xmin) / (p->xmax - p->xmin);
    return p->x0 + f * p->w;
}

double ic_plot_py(const struct ic_plot_panel *p, double y)
{
    double f = p->ylog ? (log10(y) - log10(p->ymin)) / (log10(p->ymax) - log10(p->ymin))
                       : (y - p->ymin) / (p->ymax - p->ymin);
    return p->y0 + p->h - f * p->h;
}

static void font(cairo_t *cr, double size, bool bold)
{
    cairo_select_font_face(cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* Text anchored by (ax, ay) in [0,1] of its extents: 0.5,0.5 centres it. */
static void text(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    cairo_move_to(cr, x - e.x_bearing - ax * e.width, y - e.y_bearing - ay * e.height);
    cairo_show_text(cr, s);
}

/* A value for a tick label: "0.5", "20", "1k", "1M". */
static void tick_label(char *buf, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e6 && fmod(a, 1e6) == 0)
        snprintf(buf, n, "%gM", v / 1e6);
    else if (a >= 1e4 && fmod(a, 1e3) == 0)
        snprintf(buf, n, "%gk", v / 1e3);
    else
        snprintf(buf, n, "%g", v);
}

/* Rounds a range outward to whole decades (log) or 1-2-5 steps (linear). */
static void nice_range(double *lo, double *hi, bool logscale)
{
    if (logscale) {
        if (!(*lo > 0))
            *lo = *hi > 0 ? *hi / 10 : 1;
        if (!(*hi > *lo))
            *hi = *lo * 10;
        /* outward to the nearest 1, 2 or 5 times a power of ten */
        static const double steps[] = {1, 2, 5, 10};
        double dl = pow(10, floor(log10(*lo) + 1e-9)), dh = pow(10, floor(log10(*hi) - 1e-9));
        double l = dl, h = dh * 10;
        for (int i = 3; i >= 0; i--)
            if (dl * steps[i] <= *lo * (1 + 1e-9)) {
                l = dl * steps[i];
                break;
            }
        for (int i = 0; i < 4; i++)
            if (dh * steps[i] >= *hi * (1 - 1e-9)) {
                h = dh * steps[i];
                break;
            }
        *lo = l;
        *hi = h > l ? h : l * 10;
    } else {
        if (!(*hi > *lo))
            *hi = *lo + 1;
        double span = *hi - *lo, step = pow(10, floor(log10(span / 5)));
        if (span / step > 20)
            step *= 5;
        else if (span / step > 10)
            step *= 2;
        *lo = floor(*lo / step) * step;
        *hi = ceil(*hi / step) * step;
    }
}

/* Log-log panel ranges around the data, rounded outward to 1-2-5 steps. */
static void log_ranges(struct ic_plot_panel *p, double xlo, double xhi, double ylo, double yhi)
{
    p->xmin = xlo;
    p->xmax = xhi;
    p->ymin = ylo;
    p->ymax = yhi;
    p->xlog = p->ylog = true;
    nice_range(&p->xmin, &p->xmax, true);
    nice_range(&p->ymin, &p->ymax, true);
}

/* Gridlines, ticks and labels of one axis. */
static void axis_ticks(cairo_t *cr, const struct ic_plot_panel *p, bool xaxis)
{
    double lo = xaxis ? p->xmin : p->ymin, hi = xaxis ? p->xmax : p->ymax;
    bool lg = xaxis ? p->xlog : p->ylog;
    double vals[256];
    bool major[256];
    int n = 0;
    if (lg) {
        double decades = log10(hi / lo);
        for (double d = pow(10, floor(log10(lo) + 1e-9)); d <= hi * 1.0001 && n < 250; d *= 10)
            for (int m = 1; m <= 9 && n < 250; m++) {
                double v = d * m;
                if (v > hi * 1.0001)
                    break;
                if (v < lo * 0.9999)
                    continue;
                bool labelled = m == 1 || (decades <= 3 && (m == 2 || m == 5));
                vals[n] = v;
                major[n++] = labelled;
            }
    } else {
        double span = hi - lo, step = pow(10, floor(log10(span / 5)));
        if (span / step > 20)
            step *= 5;
        else if (span / step > 10)
            step *= 2;
        for (double v = lo; v <= hi + step * 1e-6 && n < 250; v += step) {
            vals[n] = fabs(v) < step * 1e-9 ? 0 : v;
            major[n++] = true;
        }
    }
    font(cr, 13, false);
    for (int i = 0; i < n; i++) {
        double pos = xaxis ? ic_plot_px(p, vals[i]) : ic_plot_py(p, vals[i]);
        cairo_set_source_rgba(cr, 0, 0, 0, major[i] ? 0.16 : 0.06);
        cairo_set_line_width(cr, 1);
        if (xaxis) {
            cairo_move_to(cr, pos, p->y0);
            cairo_line_to(cr, pos, p->y0 + p->h);
        } else {
            cairo_move_to(cr, p->x0, pos);
            cairo_line_to(cr, p->x0 + p->w, pos);
        }
        cairo_stroke(cr);
        if (!major[i])
            continue;
        char buf[32];
        tick_label(buf, sizeof buf, vals[i]);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        if (xaxis)
            text(cr, pos, p->y0 + p->h + 8, 0.5, 0, buf);
        else
            text(cr, p->x0 - 8, pos, 1, 0.5, buf);
    }
}

static void frame(cairo_t *cr, const struct ic_plot_panel *p, const char *xlabel,
                  const char *ylabel)
{
    axis_ticks(cr, p, true);
    axis_ticks(cr, p, false);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, p->x0, p->y0, p->w, p->h);
    cairo_stroke(cr);
    font(cr, 15, false);
    text(cr, p->x0 + p->w / 2, p->y0 + p->h + 34, 0.5, 0, xlabel);
    cairo_save(cr);
    cairo_translate(cr, p->x0 - 62, p->y0 + p->h / 2);
    cairo_rotate(cr, -PI / 2);
    text(cr, 0, 0, 0.5, 0.5, ylabel);
    cairo_restore(cr);
}

static void title(cairo_t *cr, double width, const char *t, const char *sub)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    font(cr, 22, true);
    text(cr, width / 2, 18, 0.5, 0, t ? t : "");
    if (sub) {
        font(cr, 15, false);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        text(cr, width / 2, 50, 0.5, 0, sub);
    }
}

struct legend_item {
    char label[128];
    int color;
    double width;
    bool dashed;
    bool patch; /* a filled box (shaded region) instead of a line */
    double alpha;
};

/* A boxed legend in a corner of the panel: top left, or bottom right (where
 * a latency/throughput frontier, rising to the right, leaves room). */
static void legend(cairo_t *cr, const struct ic_plot_panel *p, const struct legend_item *it,
                   int n, bool bottom_right)
{
    font(cr, 13, false);
    double wmax = 0;
    for (int i = 0; i < n; i++) {
        cairo_text_extents_t e;
        cairo_text_extents(cr, it[i].label, &e);
        wmax = fmax(wmax, e.x_advance);
    }
    double bw = wmax + 54, bh = 20.0 * n + 10;
    double x = bottom_right ? p->x0 + p->w - bw - 10 : p->x0 + 10;
    double y = bottom_right ? p->y0 + p->h - bh - 10 : p->y0 + 10;
    cairo_set_source_rgba(cr, 1, 1, 1, 0.88);
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (int i = 0; i < n; i++) {
        double yy = y + 15 + 20.0 * i;
        if (it[i].patch) {
            color(cr, it[i].color, it[i].alpha);
            cairo_rectangle(cr, x + 8, yy - 6, 28, 12);
            cairo_fill(cr);
        } else {
            color(cr, it[i].color, 1);
            cairo_set_line_width(cr, it[i].width);
            if (it[i].dashed) {
                double d[] = {6, 4};
                cairo_set_dash(cr, d, 2, 0);
            }
            cairo_move_to(cr, x + 8, yy);
            cairo_line_to(cr, x + 36, yy);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        text(cr, x + 44, yy, 0, 0.5, it[i].label);
    }
}

static void polyline(cairo_t *cr, const struct ic_plot_panel *p, const double *xs,
                     const double *ys, size_t n)
{
    bool pen = false;
    for (size_t i = 0; i < n; i++) {
        if (!(xs[i] > 0 && ys[i] > 0) && (p->xlog || p->ylog)) {
            pen = false;
            continue;
        }
        double x = ic_plot_px(p, xs[i]), y = ic_plot_py(p, ys[i]);
        if (pen)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y);
        pen = true;
    }
    cairo_stroke(cr);
}

/* A dashed line across a panel at device x (a crossing, B_crit, an SLO), in
 * the current colour. */
static void marker_line(cairo_t *cr, const struct ic_plot_panel *p, double x, double width)
{
    cairo_set_line_width(cr, width);
    double d[] = {3, 3};
    cairo_set_dash(cr, d, 2, 0);
    cairo_move_to(cr, x, p->y0);
    cairo_line_to(cr, x, p->y0 + p->h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/* Range of a positive series (log axes ignore zeros). */
static void grow(double *lo, double *hi, double v)
{
    if (!(v > 0) || !isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

static int check_set(const struct ic_plot_set *set, struct ic_err *err)
{
    if (!set || !set->n_curves)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot");
    for (size_t c = 0; c < set->n_curves; c++)
        if (!set->curves[c].n)
            return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot for '%s'",
                              set->curves[c].label ? set->curves[c].label : "");
    return IC_OK;
}

static void background(cairo_t *cr, double w, double h)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_fill(cr);
}

/* The batch where the linear layers turn compute-bound, read off the points:
 * the first crossing of compute time over weight-read time, interpolated
 * in log-log between the two points around it; infinity if none. */
static double compute_crossing(const struct ic_plot_curve *cv)
{
    for (size_t i = 0; i < cv->n; i++) {
        const struct ic_point *b = &cv->pts[i];
        if (b->compute_s < b->weights_s)
            continue;
        if (i == 0)
            return (double)b->cfg.batch;
        const struct ic_point *a = &cv->pts[i - 1];
        double ra = log(a->compute_s / a->weights_s), rb = log(b->compute_s / b->weights_s);
        double f = ra == rb ? 1 : ra / (ra - rb);
        return exp(log((double)a->cfg.batch) +
                   f * (log((double)b->cfg.batch) - log((double)a->cfg.batch)));
    }
    return INFINITY;
}

/* Step time (and terms, for one curve) against batch or context. */
static void time_panel(cairo_t *cr, struct ic_plot_panel *p, const struct ic_plot_set *set,
                       bool by_context, const char *xlabel)
{
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    bool single = set->n_curves == 1;
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            const struct ic_point *pt = &set->curves[c].pts[i];
            grow(&xlo, &xhi, by_context ? (double)pt->cfg.context : (double)pt->cfg.batch);
            for (int t = 0; t < T_COUNT; t++)
                if (single || t == T_STEP)
                    grow(&ylo, &yhi, term_value(pt, (enum term)t) * 1e3);
        }
    /* terms far below the step time would squash the picture: keep 4 decades */
    if (ylo < yhi / 1e4)
        ylo = yhi / 1e4;
    log_ranges(p, xlo, xhi, ylo, yhi);

    cairo_save(cr);
    cairo_rectangle(cr, p->x0, p->y0, p->w, p->h);
    cairo_clip(cr);
    struct legend_item items[16];
    int ni = 0;
    if (single) {
        const struct ic_plot_curve *cv = &set->curves[0];
        const struct ic_point *first = &cv->pts[0];
        /* compute-bound batches: where the points' linear compute time
         * passes their weight read (B_crit for a dense model; later for an
         * MoE, whose weight read grows with the experts touched) */
        double bc = by_context ? INFINITY : compute_crossing(cv);
        if (!by_context) {
            if (bc < p->xmax) {
                color(cr, 2, 0.13);
                double x = ic_plot_px(p, fmax(bc, p->xmin));
                cairo_rectangle(cr, x, p->y0, p->x0 + p->w - x, p->h);
                cairo_fill(cr);
                items[ni] = (struct legend_item){.color = 2, .patch = true, .alpha = 0.13};
                snprintf(items[ni].label, sizeof items[ni].label, "compute-bound linear layers");
                ni++;
            }
        }
        /* points that do not fit: gray from the first one on */
        for (size_t i = 0; i < cv->n; i++)
            if (!cv->pts[i].fits) {
                double v = by_context ? (double)cv->pts[i].cfg.context : (double)cv->pts[i].cfg.batch;
                double prev = i ? (by_context ? (double)cv->pts[i - 1].cfg.context
                                              : (double)cv->pts[i - 1].cfg.batch)
                                : p->xmin;
                /* the boundary: the largest batch that fits, else halfway (log) */
                double edge = !by_context && cv->pts[i].max_batch >= prev
                                  ? (double)cv->pts[i].max_batch + 0.5
                                  : sqrt(prev * v);
                if (i == 0)
                    edge = p->xmin;
                double x = ic_plot_px(p, fmax(edge, p->xmin));
                cairo_set_source_rgba(cr, 0.45, 0.45, 0.45, 0.35);
                cairo_rectangle(cr, x, p->y0, p->x0 + p->w - x, p->h);
                cairo_fill(cr);
                items[ni] = (struct legend_item){.color = 7, .patch = true, .alpha = 0.3};
                snprintf(items[ni].label, sizeof items[ni].label, "does not fit in HBM");
                ni++;
                break;
            }
        double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
        size_t n = cv->n < IC_SWEEP_MAX_VALUES ? cv->n : IC_SWEEP_MAX_VALUES;
        for (int t = T_COUNT - 1; t >= 0; t--) {
            bool any = false;
            for (size_t i = 0; i < n; i++) {
                xs[i] = by_context ? (double)cv->pts[i].cfg.context : (double)cv->pts[i].cfg.batch;
                ys[i] = term_value(&cv->pts[i], (enum term)t) * 1e3;
                any |= ys[i] > 0;
            }
            if (!any)
                continue;
            color(cr, terms[t].color, 1);
            cairo_set_line_width(cr, terms[t].width);
            if (t != T_STEP) {
                double d[] = {7, 4};
                cairo_set_dash(cr, d, 2, 0);
            }
            polyline(cr, p, xs, ys, n);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        for (int t = 0; t < T_COUNT; t++) {
            bool any = false;
            for (size_t i = 0; i < n; i++)
                any |= term_value(&cv->pts[i], (enum term)t) > 0;
            if (!any || ni >= 14)
                continue;
            items[ni] = (struct legend_item){.color = terms[t].color, .width = terms[t].width,
                                             .dashed = t != T_STEP};
            snprintf(items[ni].label, sizeof items[ni].label, "%s", terms[t].label);
            ni++;
        }
        if (!by_context && bc >= p->xmin && bc <= p->xmax) {
            double x = ic_plot_px(p, bc);
            color(cr, 2, 1);
            marker_line(cr, p, x, 1.5);
            char buf[96];
            if (first->b_crit_moe != first->b_crit) /* MoE: say how it differs */
                snprintf(buf, sizeof buf, "compute-bound from B = %.0f (dense B_crit %.0f)", bc,
                         first->b_crit);
            else
                snprintf(buf, sizeof buf, "B_crit = %.0f", first->b_crit);
            font(cr, 13, false);
            text(cr, x - 6, p->y0 + p->h - 8, 1, 1, buf);
        }
    } else {
        for (size_t c = 0; c < set->n_curves && ni < 16; c++) {
            const struct ic_plot_curve *cv = &set->curves[c];
            double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
            size_t n = cv->n < IC_SWEEP_MAX_VALUES ? cv->n : IC_SWEEP_MAX_VALUES;
            size_t nf = 0;
            for (size_t i = 0; i < n; i++) {
                xs[i] = by_context ? (double)cv->pts[i].cfg.context : (double)cv->pts[i].cfg.batch;
                ys[i] = cv->pts[i].step_s * 1e3;
                nf += cv->pts[i].fits && nf == i;
            }
            color(cr, curve_color(c), 1);
            cairo_set_line_width(cr, 2.4);
            polyline(cr, p, xs, ys, nf ? nf : 0);
            /* the part that does not fit: thin and dashed */
            if (nf < n) {
                double d[] = {4, 4};
                cairo_set_dash(cr, d, 2, 0);
                cairo_set_line_width(cr, 1.2);
                size_t from = nf ? nf - 1 : 0;
                polyline(cr, p, xs + from, ys + from, n - from);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            items[ni] = (struct legend_item){.color = curve_color(c), .width = 2.4};
            snprintf(items[ni].label, sizeof items[ni].label, "%s", cv->label ? cv->label : "");
            ni++;
        }
        if (ni < 16) {
            items[ni] = (struct legend_item){.color = 7, .width = 1.2, .dashed = true};
            snprintf(items[ni].label, sizeof items[ni].label, "does not fit in HBM");
            ni++;
        }
    }
    if (set->mark) {
        /* the current point: a line at its batch (context), a ring on the step */
        const struct ic_point *m = set->mark;
        double mx = by_context ? (double)m->cfg.context : (double)m->cfg.batch;
        if (mx >= p->xmin && mx <= p->xmax) {
            double x = ic_plot_px(p, mx), y = ic_plot_py(p, m->step_s * 1e3);
            cairo_set_source_rgba(cr, 0, 0, 0, 0.7);
            cairo_set_line_width(cr, 1.5);
            cairo_move_to(cr, x, p->y0);
            cairo_line_to(cr, x, p->y0 + p->h);
            cairo_stroke(cr);
            cairo_new_path(cr);
            cairo_arc(cr, x, y, 8, 0, 2 * PI);
            cairo_set_line_width(cr, 3);
            cairo_stroke(cr);
            char buf[96], ts[32];
            snprintf(ts, sizeof ts, "%.3g ms", m->step_s * 1e3);
            snprintf(buf, sizeof buf, "%s %llu: %s", by_context ? "context" : "batch",
                     (unsigned long long)(by_context ? m->cfg.context : m->cfg.batch), ts);
            font(cr, 14, true);
            text(cr, x + 8, p->y0 + 18, 0, 0.5, buf);
        }
    }
    cairo_restore(cr);
    frame(cr, p, xlabel, "time per decode step (ms)");
    legend(cr, p, items, ni, false);
}

/* Indices of the Pareto-optimal fitting points of pts: no other fitting point
 * has both lower latency and higher throughput. Returns the count; idx is
 * sorted by latency. */
static size_t frontier(const struct ic_point *const *pts, size_t n, size_t *idx)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (pts[i]->fits)
            idx[m++] = i;
    /* insertion sort by latency (n is small) */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0 && pts[idx[j]]->latency_s < pts[idx[j - 1]]->latency_s; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    size_t k = 0;
    double best = -1;
    for (size_t i = 0; i < m; i++)
        if (pts[idx[i]]->tokens_s_chip > best) {
            best = pts[idx[i]]->tokens_s_chip;
            idx[k++] = idx[i];
        }
    return k;
}

static void frontier_line(cairo_t *cr, const struct ic_plot_panel *p,
                          const struct ic_point *const *pts, const size_t *idx, size_t k)
{
    for (size_t i = 0; i < k; i++) {
        double x = ic_plot_px(p, pts[idx[i]]->latency_s * 1e3);
        double y = ic_plot_py(p, pts[idx[i]]->tokens_s_chip);
        if (i)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y);
    }
    cairo_stroke(cr);
}

/* IC_ENOMEM (nothing drawn) when its two lists cannot be had: a chart
 * without its frontier is no chart. */
static int pareto_panel(cairo_t *cr, struct ic_plot_panel *p, const struct ic_plot_set *set,
                        struct ic_err *err)
{
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    size_t total = 0;
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            grow(&xlo, &xhi, set->curves[c].pts[i].latency_s * 1e3);
            grow(&ylo, &yhi, set->curves[c].pts[i].tokens_s_chip);
            total++;
        }
    const struct ic_point **all = malloc(sizeof *all * (total ? total : 1));
    size_t *idx = malloc(sizeof *idx * (total ? total : 1));
    if (!all || !idx) {
        free(all);
        free(idx);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    log_ranges(p, xlo, xhi, ylo, yhi);
    struct legend_item items[18];
    int ni = 0;
    cairo_save(cr);
    cairo_rectangle(cr, p->x0, p->y0, p->w, p->h);
    cairo_clip(cr);
    size_t na = 0;
    for (size_t c = 0; c < set->n_curves; c++) {
        const struct ic_plot_curve *cv = &set->curves[c];
        const struct ic_point **pp = all + na;
        for (size_t i = 0; i < cv->n; i++)
            pp[i] = &cv->pts[i];
        na += cv->n;
        int col = set->n_curves == 1 ? 0 : curve_color(c);
        size_t k = frontier(pp, cv->n, idx);
        color(cr, col, 0.9);
        cairo_set_line_width(cr, 2.2);
        frontier_line(cr, p, pp, idx, k);
        font(cr, 12, false);
        for (size_t i = 0; i < cv->n; i++) {
            double x = ic_plot_px(p, cv->pts[i].latency_s * 1e3);
            double y = ic_plot_py(p, cv->pts[i].tokens_s_chip);
            cairo_new_path(cr);
            cairo_arc(cr, x, y, 4.5, 0, 2 * PI);
            if (cv->pts[i].fits) {
                color(cr, col, 1);
                cairo_fill(cr);
            } else {
                cairo_set_source_rgba(cr, 0.45, 0.45, 0.45, 0.9);
                cairo_set_line_width(cr, 1.3);
                cairo_stroke(cr);
            }
            if (set->n_curves <= 3) {
                char buf[24];
                snprintf(buf, sizeof buf, "%llu", (unsigned long long)cv->pts[i].cfg.batch);
                cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, cv->pts[i].fits ? 1 : 0.5);
                text(cr, x + 7, y - 5, 0, 1, buf);
            }
        }
        if (ni < 16) {
            items[ni] = (struct legend_item){.color = col, .width = 2.2};
            snprintf(items[ni].label, sizeof items[ni].label, "%s",
                     set->n_curves == 1 ? "Pareto frontier (labels: batch)"
                                        : (cv->label ? cv->label : ""));
            ni++;
        }
    }
    if (set->n_curves > 1) {
        size_t k = frontier(all, na, idx);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.85);
        cairo_set_line_width(cr, 3.5);
        double d[] = {9, 5};
        cairo_set_dash(cr, d, 2, 0);
        frontier_line(cr, p, all, idx, k);
        cairo_set_dash(cr, NULL, 0, 0);
        items[ni] = (struct legend_item){.color = 7, .width = 3.5, .dashed = true};
        snprintf(items[ni].label, sizeof items[ni].label, "envelope (best of all)");
        ni++;
    }
    items[ni] = (struct legend_item){.color = 7, .patch = true, .alpha = 0.3};
    snprintf(items[ni].label, sizeof items[ni].label, "hollow: does not fit in HBM");
    ni++;
    if (set->mark && set->mark->latency_s > 0 && set->mark->tokens_s_chip > 0) {
        double x = ic_plot_px(p, set->mark->latency_s * 1e3);
        double y = ic_plot_py(p, set->mark->tokens_s_chip);
        cairo_new_path(cr);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.8);
        cairo_set_line_width(cr, 3);
        cairo_arc(cr, x, y, 10, 0, 2 * PI);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    frame(cr, p, "time per output token (ms)", "throughput per chip (tokens/s)");
    legend(cr, p, items, ni, true);
    free(all);
    free(idx);
    return IC_OK;
}

static void layout_two(double width, double height, struct ic_plot_panel *a,
                       struct ic_plot_panel *b)
{
    double top = 90, bottom = 70, left = 95, gap = 120, right = 30;
    double w = (width - left - gap - right) / 2;
    *a = (struct ic_plot_panel){left, top, w, height - top - bottom, 1, 10, 1, 10, true, true};
    *b = (struct ic_plot_panel){left + w + gap, top, w, height - top - bottom, 1, 10, 1, 10,
                                true, true};
}

int ic_plot_decode(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                   struct ic_plot_layout *layout, struct ic_err *err)
{
    int rc = check_set(set, err);
    if (rc)
        return rc;
    struct ic_plot_panel a, b;
    layout_two(width, height, &a, &b);
    background(cr, width, height);
    title(cr, width, set->title, set->subtitle);
    time_panel(cr, &a, set, false, "batch (sequences decoded together)");
    if ((rc = pareto_panel(cr, &b, set, err)))
        return rc;
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "drawing failed: %s",
                          cairo_status_to_string(cairo_status(cr)));
    return IC_OK;
}

int ic_plot_context(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                    struct ic_plot_layout *layout, struct ic_err *err)
{
    int rc = check_set(set, err);
    if (rc)
        return rc;
    struct ic_plot_panel a = {95, 90, width - 95 - 40, height - 90 - 70, 1, 10, 1, 10, true,
                              true};
    background(cr, width, height);
    title(cr, width, set->title, set->subtitle);
    time_panel(cr, &a, set, true, "context (tokens in each sequence's KV cache)");
    /* where the KV read overtakes the weight read (first curve) */
    const struct ic_plot_curve *cv = &set->curves[0];
    for (size_t i = 1; i < cv->n; i++) {
        const struct ic_point *p0 = &cv->pts[i - 1], *p1 = &cv->pts[i];
        if (p0->kv_s <= p0->weights_s && p1->kv_s > p1->weights_s) {
            /* log-log interpolation of the crossing */
            double r0 = log(p0->kv_s / p0->weights_s), r1 = log(p1->kv_s / p1->weights_s);
            double f = r0 == r1 ? 0 : r0 / (r0 - r1);
            double s = exp(log((double)p0->cfg.context) +
                           f * (log((double)p1->cfg.context) - log((double)p0->cfg.context)));
            double x = ic_plot_px(&a, s);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            marker_line(cr, &a, x, 1.2);
            char buf[200];
            if (set->n_curves > 1 && cv->label && cv->label[0])
                snprintf(buf, sizeof buf, "KV read overtakes weight read at S = %.0f (%s)", s,
                         cv->label);
            else
                snprintf(buf, sizeof buf, "KV read overtakes weight read at S = %.0f", s);
            font(cr, 14, false);
            text(cr, x + 8, a.y0 + a.h - 10, 0, 1, buf);
            break;
        }
    }
    if (layout)
        *layout = (struct ic_plot_layout){{a, a}, 1};
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "drawing failed: %s",
                          cairo_status_to_string(cairo_status(cr)));
    return IC_OK;
}

int ic_plot_validation(cairo_t *cr, double width, double height, const char *t,
                       const char *subtitle, const char *x_label,
                       const struct ic_plot_vseries *series, size_t n_series,
                       struct ic_plot_layout *layout, struct ic_err *err)
{
    if (!n_series)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot");
    double top = 90, left = 95, right = 40, gap = 70, bottom = 70;
    double avail = height - top - gap - bottom;
    struct ic_plot_panel a = {left, top, width - left - right, avail * 0.68, 1, 10, 1, 10, true,
                              true};
    struct ic_plot_panel b = {left, top + avail * 0.68 + gap, width - left - right, avail * 0.32,
                              1, 10, -20, 20, true, false};
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, rmax = 10;
    for (size_t s = 0; s < n_series; s++)
        for (size_t i = 0; i < series[s].n; i++) {
            const struct ic_plot_vpoint *v = &series[s].pts[i];
            grow(&xlo, &xhi, v->x);
            grow(&ylo, &yhi, v->lo * 1e3);
            grow(&ylo, &yhi, v->hi * 1e3);
            grow(&ylo, &yhi, v->predicted * 1e3);
            if (v->measured > 0)
                rmax = fmax(rmax, fabs(100 * (v->predicted - v->measured) / v->measured));
        }
    if (!(xhi > 0))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot");
    /* pad so the end points and their error bars clear the frame */
    a.xmin = xlo / 1.25;
    a.xmax = xhi * 1.25;
    nice_range(&a.xmin, &a.xmax, true);
    b.xmin = a.xmin;
    b.xmax = a.xmax;
    a.ymin = ylo;
    a.ymax = yhi;
    nice_range(&a.ymin, &a.ymax, true);
    /* symmetric, with room above the largest residual */
    b.ymin = -fmin(rmax * 1.15, 100);
    b.ymax = fmin(rmax * 1.15, 100);
    nice_range(&b.ymin, &b.ymax, false);
    background(cr, width, height);
    title(cr, width, t, subtitle);
    struct legend_item items[16];
    int ni = 0;
    cairo_save(cr);
    cairo_rectangle(cr, a.x0, a.y0, a.w, a.h);
    cairo_clip(cr);
    for (size_t s = 0; s < n_series; s++) {
        const struct ic_plot_vseries *sr = &series[s];
        int col = curve_color(s);
        /* predicted: a line; measured: points with their spread */
        color(cr, col, 0.9);
        cairo_set_line_width(cr, 2);
        for (size_t i = 0; i < sr->n; i++) {
            double x = ic_plot_px(&a, sr->pts[i].x), y = ic_plot_py(&a, sr->pts[i].predicted * 1e3);
            if (i)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
        }
        cairo_stroke(cr);
        for (size_t i = 0; i < sr->n; i++) {
            const struct ic_plot_vpoint *v = &sr->pts[i];
            if (!(v->measured > 0))
                continue;
            double x = ic_plot_px(&a, v->x);
            color(cr, col, 1);
            cairo_set_line_width(cr, 1.4);
            cairo_move_to(cr, x, ic_plot_py(&a, fmax(v->lo, a.ymin / 1e3) * 1e3));
            cairo_line_to(cr, x, ic_plot_py(&a, fmax(v->hi, a.ymin / 1e3) * 1e3));
            cairo_stroke(cr);
            cairo_rectangle(cr, x - 4, ic_plot_py(&a, v->measured * 1e3) - 4, 8, 8);
            cairo_fill(cr);
        }
        if (ni < 14) {
            items[ni] = (struct legend_item){.color = col, .width = 2};
            snprintf(items[ni].label, sizeof items[ni].label, "%s: predicted (line), "
                     "measured (squares, min-max)", sr->label ? sr->label : "");
            ni++;
        }
    }
    cairo_restore(cr);
    frame(cr, &a, x_label, "time per decode step (ms)");
    legend(cr, &a, items, ni, false);

    cairo_save(cr);
    cairo_rectangle(cr, b.x0, b.y0, b.w, b.h);
    cairo_clip(cr);
    color(cr, 2, 0.13); /* the +-10% band */
    double y10 = ic_plot_py(&b, 10), ym10 = ic_plot_py(&b, -10);
    cairo_rectangle(cr, b.x0, y10, b.w, ym10 - y10);
    cairo_fill(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, b.x0, ic_plot_py(&b, 0));
    cairo_line_to(cr, b.x0 + b.w, ic_plot_py(&b, 0));
    cairo_stroke(cr);
    for (size_t s = 0; s < n_series; s++)
        for (size_t i = 0; i < series[s].n; i++) {
            const struct ic_plot_vpoint *v = &series[s].pts[i];
            if (!(v->measured > 0))
                continue;
            double r = 100 * (v->predicted - v->measured) / v->measured;
            color(cr, curve_color(s), 1);
            cairo_new_path(cr);
            cairo_arc(cr, ic_plot_px(&b, v->x), ic_plot_py(&b, fmax(fmin(r, b.ymax), b.ymin)), 4,
                      0, 2 * PI);
            cairo_fill(cr);
        }
    cairo_restore(cr);
    frame(cr, &b, x_label, "error (%), predicted vs measured");
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "drawing failed: %s",
                          cairo_status_to_string(cairo_status(cr)));
    return IC_OK;
}

int ic_plot_lines(cairo_t *cr, double width, double height, const struct ic_plot_lines *l,
                  struct ic_plot_layout *layout, struct ic_err *err)
{
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (size_t s = 0; s < l->n_series; s++)
        for (size_t i = 0; i < l->series[s].n; i++) {
            grow(&xlo, &xhi, l->series[s].x[i]);
            grow(&ylo, &yhi, l->series[s].y[i]);
        }
    if (l->vline > 0)
        grow(&xlo, &xhi, l->vline);
    if (!(xhi > 0) || !(yhi > 0))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to draw: no positive points");
    if (xhi <= xlo)
        xhi = xlo * 2, xlo /= 2;
    if (yhi <= ylo)
        yhi = ylo * 2, ylo /= 2;
    struct ic_plot_panel a = {95, 90, width - 95 - 40, height - 90 - 70, 1, 10, 1, 10, true,
                              true};
    log_ranges(&a, xlo, xhi, ylo, yhi);
    a.xlog = l->xlog;
    a.ylog = l->ylog;
    background(cr, width, height);
    title(cr, width, l->title, l->subtitle);
    frame(cr, &a, l->x_label, l->y_label);
    cairo_save(cr);
    cairo_rectangle(cr, a.x0, a.y0, a.w, a.h);
    cairo_clip(cr);
    struct legend_item it[16];
    int n_it = 0;
    int c = 0;
    for (size_t s = 0, k = 0; s < l->n_series; s++) {
        const struct ic_plot_series *v = &l->series[s];
        /* a series without a label goes on in the previous one's colour */
        if (v->label || s == 0)
            c = curve_color(k++);
        /* past the palette's seven colours, the same colours dashed */
        bool dashed = v->dashed || (s / 7) % 2 == 1;
        color(cr, c, 1);
        cairo_set_line_width(cr, v->dashed ? 2 : 3);
        if (dashed) {
            double d[] = {6, 4};
            cairo_set_dash(cr, d, 2, 0);
        }
        const bool points = s < 32 && (l->points_mask >> s & 1u);
        const bool open = s < 32 && (l->open_mask >> s & 1u);
        if (!points)
            polyline(cr, &a, v->x, v->y, v->n);
        cairo_set_dash(cr, NULL, 0, 0);
        const double r = points ? 5 : 3.5;
        for (size_t i = 0; i < v->n && !v->bare; i++)
            if (v->x[i] > 0 && v->y[i] > 0) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, ic_plot_px(&a, v->x[i]), ic_plot_py(&a, v->y[i]), r, 0, 2 * PI);
                if (open) {
                    cairo_set_line_width(cr, 2);
                    cairo_stroke(cr);
                } else {
                    cairo_fill(cr);
                }
            }
        if (n_it < 16 && v->label) {
            struct legend_item *li = &it[n_it++];
            memset(li, 0, sizeof *li);
            snprintf(li->label, sizeof li->label, "%s", v->label ? v->label : "");
            li->color = c;
            li->width = v->dashed ? 2 : 3;
            li->dashed = dashed;
            li->alpha = 1;
        }
    }
    if (l->vline > 0) {
        double x = ic_plot_px(&a, l->vline);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        marker_line(cr, &a, x, 1.2);
        if (l->vline_label) {
            font(cr, 14, false);
            text(cr, x + 6, a.y0 + 16, 0, 0.5, l->vline_label);
        }
    }
    cairo_restore(cr);
    legend(cr, &a, it, n_it, true);
    if (layout)
        *layout = (struct ic_plot_layout){{a, a}, 1};
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "drawing failed: %s",
                          cairo_status_to_string(cairo_status(cr)));
    return IC_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int unknown_type(const char *path, struct ic_err *err)
{
    int rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                        "--plot %s: unknown picture type; expected a name ending in .png, "
                        ".svg or .pdf", path);
    ic_err_hint(err, "the name's ending chooses the type, e.g. '--plot chart.png'");
    return rc;
}

int ic_plot_check_path(const char *path, struct ic_err *err)
{
    if (!ends_with(path, ".png") && !ends_with(path, ".svg") && !ends_with(path, ".pdf"))
        return unknown_type(path, err);
    return ic_out_check(path, "the picture", err);
}

/* Creates the surface path names, runs draw on it and writes the file. */
typedef int (*draw_fn)(cairo_t *cr, int width, int height, const void *what,
                       struct ic_err *err);

static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int len)
{
    return ic_out_write(closure, data, len) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int write_surface(const char *path, int width, int height, draw_fn draw,
                         const void *what, struct ic_err *err)
{
    bool png = ends_with(path, ".png"), svg = ends_with(path, ".svg");
    if (!png && !svg && !ends_with(path, ".pdf"))
        return unknown_type(path, err);
    /* beside, then renamed into place: never half a picture */
    struct ic_out o;
    int rc = ic_out_open(&o, path, "the picture", err);
    if (rc)
        return rc;
    cairo_surface_t *s =
        png   ? cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height)
        : svg ? cairo_svg_surface_create_for_stream(file_write, &o, width, height)
              : cairo_pdf_surface_create_for_stream(file_write, &o, width, height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        rc = ic_err_set(err, IC_EIO, path, 0, 0, "cannot create the picture: %s",
                        cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        ic_out_close(&o, true, err);
        return rc;
    }
    cairo_t *cr = cairo_create(s);
    rc = draw(cr, width, height, what, err);
    cairo_destroy(cr);
    if (rc == IC_OK && png &&
        cairo_surface_write_to_png_stream(s, file_write, &o) != CAIRO_STATUS_SUCCESS)
        rc = IC_EIO;
    cairo_surface_finish(s);
    if (rc == IC_OK && cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        rc = IC_EIO;
    cairo_surface_destroy(s);
    if (rc == IC_EIO) {
        /* a write the stream refused: the close names the OS's reason (and
         * removes the temporary file); cairo failing otherwise, the same
         * without a reason */
        if ((o.write_errno || ferror(o.f)) && ic_out_close(&o, false, err) != IC_OK)
            return IC_EIO;
        ic_out_close(&o, true, err);
        return ic_err_set(err, IC_EIO, path, 0, 0, "cannot write the picture");
    }
    int crc = ic_out_close(&o, rc != IC_OK, err);
    return rc ? rc : crc;
}

static int draw_decode(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_decode(cr, w, h, what, NULL, err);
}

static int draw_context(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_context(cr, w, h, what, NULL, err);
}

static int draw_lines(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_lines(cr, w, h, what, NULL, err);
}

int ic_plot_write(const char *path, enum ic_plot_kind kind, int width, int height,
                  const struct ic_plot_set *set, struct ic_err *err)
{
    return write_surface(path, width, height, kind == IC_PLOT_CONTEXT ? draw_context : draw_decode,
                         set, err);
}

struct membuf {
    unsigned char *p;
    size_t n, cap;
};

static cairo_status_t membuf_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct membuf *b = closure;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->n + len)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            return CAIRO_STATUS_NO_MEMORY;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    return CAIRO_STATUS_SUCCESS;
}

int ic_plot_png(enum ic_plot_kind kind, int width, int height, const struct ic_plot_set *set,
                unsigned char **png, size_t *n, struct ic_err *err)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot create a %dx%d picture", width,
                          height);
    }
    cairo_t *cr = cairo_create(s);
    int rc = kind == IC_PLOT_CONTEXT ? ic_plot_context(cr, width, height, set, NULL, err)
                                     : ic_plot_decode(cr, width, height, set, NULL, err);
    cairo_destroy(cr);
    struct membuf b = {0};
    if (rc == IC_OK && cairo_surface_write_to_png_stream(s, membuf_write, &b) !=
                           CAIRO_STATUS_SUCCESS) {
        free(b.p);
        b.p = NULL;
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "cannot encode the picture");
    }
    cairo_surface_destroy(s);
    if (rc == IC_OK) {
        *png = b.p;
        *n = b.n;
    }
    return rc;
}

int ic_plot_lines_write(const char *path, int width, int height, const struct ic_plot_lines *l,
                        struct ic_err *err)
{
    return write_surface(path, width, height, draw_lines, l, err);
}
