/* ic_plot: cairo drawing of decode, context, validation, line and heatmap
 * figures (ic_plot.h says what each shows). */
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
#include <strings.h>

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
    [T_COMPUTE] = {"linear + attention compute", 2, 1.8}, /* the table's two terms */
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

/* The two estimates a point can carry (ic_decode with cfg.both): the one
 * drawn solid is the expected step where the point has it, else its own
 * estimate; the dashed one is the ideal bound beside an expected step (0:
 * none). */
static bool has_both(const struct ic_point *p) { return p->other_known && p->other_step_s > 0; }

static double solid_step(const struct ic_point *p)
{
    return has_both(p) && p->cfg.estimate == IC_EST_IDEAL ? p->other_step_s : p->step_s;
}

static double dashed_step(const struct ic_point *p)
{
    if (!has_both(p))
        return 0;
    return p->cfg.estimate == IC_EST_IDEAL ? p->step_s : p->other_step_s;
}

/* Each estimate of a point by name (0: the point has none): an entry
 * without achieved or measured rates has no expected step, only its own
 * ideal bound. */
static double expected_step(const struct ic_point *p)
{
    if (p->cfg.estimate == IC_EST_EXPECTED)
        return p->step_s;
    return has_both(p) ? p->other_step_s : 0;
}

static double ideal_step(const struct ic_point *p)
{
    if (p->cfg.estimate == IC_EST_IDEAL)
        return p->step_s;
    return has_both(p) ? p->other_step_s : 0;
}

static bool curve_expected(const struct ic_plot_curve *cv)
{
    for (size_t i = 0; i < cv->n; i++)
        if (expected_step(&cv->pts[i]) > 0)
            return true;
    return false;
}

/* A picture whose points mix the estimates: some have an expected step and
 * some do not (a spec-only entry overlaid on one with achieved rates). A
 * solid line then passes through expected steps only, and every ideal
 * bound is dashed: solid_step would draw a point without an expected step
 * at its ideal bound, solid, under the legend's "solid: expected". Where
 * every point has one, or none has, the picture is as it always was. */
static bool mixed_set(const struct ic_plot_set *set)
{
    bool with = false, without = false;
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            bool e = expected_step(&set->curves[c].pts[i]) > 0;
            with |= e;
            without |= !e;
        }
    return with && without;
}

/* The steps drawn solid and dashed in a picture mixed (mixed_set) or not:
 * mixed, the expected step alone is solid and the ideal bound dashed
 * wherever a point has it (0: not drawn). */
static double solid_at(const struct ic_point *p, bool mixed)
{
    return mixed ? expected_step(p) : solid_step(p);
}

static double dashed_at(const struct ic_point *p, bool mixed)
{
    return mixed ? ideal_step(p) : dashed_step(p);
}

bool ic_plot_curve_legend(const struct ic_plot_set *set, size_t c, char *buf, size_t n)
{
    const struct ic_plot_curve *cv = &set->curves[c];
    bool alone = false; /* no expected step here, and another curve has some */
    if (!curve_expected(cv))
        for (size_t k = 0; k < set->n_curves && !alone; k++)
            alone = k != c && curve_expected(&set->curves[k]);
    if (n)
        snprintf(buf, n, "%s%s", cv->label ? cv->label : "", alone ? " (ideal bound only)" : "");
    return alone;
}

/* Tokens/s per chip at a step time t of the same point: its batch and
 * chips are fixed, so throughput scales as 1 / t (not a second formula:
 * the point's own figure rescaled). */
static double tokens_chip_at(const struct ic_point *p, double t)
{
    return t > 0 ? p->tokens_s_chip * p->step_s / t : 0;
}

static void color(cairo_t *cr, int i, double alpha)
{
    const double *c = palette[i % 8];
    cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

/* Curve colours skip black (reserved for totals and envelopes). */
static int curve_color(size_t i) { return (int)(i % 7); }

/* Curves past the palette's seven colours repeat them with a mark: none
 * on the first round, open squares on the second, open diamonds on the
 * third (sixteen configurations gave pairs of identical lines) */
static int curve_mark(size_t i) { return (int)(i / 7 % 3); }

/* Mark k (1 a square, 2 a diamond) of half-size r at (x, y), open, in the
 * current colour */
static void mark_at(cairo_t *cr, int k, double x, double y, double r)
{
    cairo_set_line_width(cr, 1.8);
    cairo_new_path(cr);
    if (k == 1) {
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
    } else if (k == 2) {
        const double q = r * 1.35;
        cairo_move_to(cr, x, y - q);
        cairo_line_to(cr, x + q, y);
        cairo_line_to(cr, x, y + q);
        cairo_line_to(cr, x - q, y);
        cairo_close_path(cr);
    }
    cairo_stroke(cr);
}

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

/* ---- what a legend must not cover ------------------------------------------ */

/* Segments (a point is a segment of length 0) with a half-width, and boxes,
 * in device units: every curve, marker, ring and label a panel draws. */
struct shape {
    double x0, y0, x1, y1;
    double pad; /* segments: half the line width plus a margin */
    bool box;
};

struct scene {
    struct shape *s;
    size_t n, cap;
    bool oom; /* a shape could not be kept: the figure fails (IC_ENOMEM) */
    double headroom; /* device units the data leave free under the frame's top */
};

static void scene_add(struct scene *sc, struct shape v)
{
    if (!sc || sc->oom)
        return;
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 256;
        struct shape *q = realloc(sc->s, cap * sizeof *q);
        if (!q) {
            sc->oom = true;
            return;
        }
        sc->s = q;
        sc->cap = cap;
    }
    sc->s[sc->n++] = v;
}

static void scene_seg(struct scene *sc, double x0, double y0, double x1, double y1, double pad)
{
    scene_add(sc, (struct shape){x0, y0, x1, y1, pad, false});
}

static void scene_box(struct scene *sc, double x0, double y0, double x1, double y1)
{
    scene_add(sc, (struct shape){fmin(x0, x1), fmin(y0, y1), fmax(x0, x1), fmax(y0, y1), 0, true});
}

static void scene_reset(struct scene *sc)
{
    sc->n = 0;
    sc->oom = false;
}

/* Does the segment (x0,y0)-(x1,y1) touch the rectangle [rx0,rx1] x [ry0,ry1]?
 * Liang-Barsky: clip the segment's parameter t in [0,1] against each side. */
static bool seg_hits(double x0, double y0, double x1, double y1, double rx0, double ry0,
                     double rx1, double ry1)
{
    double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
    const double pp[4] = {-dx, dx, -dy, dy}, qq[4] = {x0 - rx0, rx1 - x0, y0 - ry0, ry1 - y0};
    for (int i = 0; i < 4; i++) {
        if (pp[i] == 0) {
            if (qq[i] < 0)
                return false; /* parallel to this side and outside it */
            continue;
        }
        double t = qq[i] / pp[i];
        if (pp[i] < 0) {
            if (t > t1)
                return false;
            if (t > t0)
                t0 = t;
        } else {
            if (t < t0)
                return false;
            if (t < t1)
                t1 = t;
        }
    }
    return t0 <= t1;
}

static bool scene_hits(const struct scene *sc, double x, double y, double w, double h)
{
    for (size_t i = 0; i < sc->n; i++) {
        const struct shape *v = &sc->s[i];
        if (v->box) {
            if (v->x0 < x + w && v->x1 > x && v->y0 < y + h && v->y1 > y)
                return true;
        } else if (seg_hits(v->x0, v->y0, v->x1, v->y1, x - v->pad, y - v->pad, x + w + v->pad,
                            y + h + v->pad)) {
            return true;
        }
    }
    return false;
}

/* Text anchored by (ax, ay) in [0,1] of its extents: 0.5,0.5 centres it.
 * Its box goes into sc (may be NULL). */
static void text_in(cairo_t *cr, struct scene *sc, double x, double y, double ax, double ay,
                    const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    double left = x - ax * e.width, top = y - ay * e.height;
    cairo_move_to(cr, left - e.x_bearing, top - e.y_bearing);
    cairo_show_text(cr, s);
    scene_box(sc, left - 2, top - 2, left + e.width + 2, top + e.height + 2);
}

/* The same, unless its box would overlap a box (a label) already in sc:
 * of points drawn on top of one another, the first keeps its label. */
static void label_in(cairo_t *cr, struct scene *sc, double x, double y, double ax, double ay,
                     const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    double left = x - ax * e.width, top = y - ay * e.height;
    for (size_t i = 0; sc && i < sc->n; i++) {
        const struct shape *v = &sc->s[i];
        if (v->box && v->x0 < left + e.width && v->x1 > left && v->y0 < top + e.height &&
            v->y1 > top)
            return;
    }
    text_in(cr, sc, x, y, ax, ay, s);
}

static void text(cairo_t *cr, double x, double y, double ax, double ay, const char *s)
{
    text_in(cr, NULL, x, y, ax, ay, s);
}

static double text_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    return e.x_advance;
}

/* Is the box clear of every label and marker in sc (curves aside)? */
static bool box_free(const struct scene *sc, double l, double t, double w, double h)
{
    for (size_t i = 0; sc && i < sc->n; i++) {
        const struct shape *v = &sc->s[i];
        bool point = !v->box && v->x0 == v->x1 && v->y0 == v->y1;
        double pad = point ? v->pad : 0;
        if ((v->box || point) && v->x0 - pad < l + w && v->x1 + pad > l &&
            v->y0 - pad < t + h && v->y1 + pad > t)
            return false;
    }
    return true;
}

/* A label beside a vertical line at device x, centred on y, else on alt_y,
 * else on one of five heights between: to the right of the line where it
 * fits inside the frame, else to its left; the first place clear of every
 * curve, label and marker drawn so far, else the first clear of labels and
 * markers (the first place when none is). */
static void side_text(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *p, double x,
                      double y, double alt_y, const char *s)
{
    cairo_text_extents_t e;
    cairo_text_extents(cr, s, &e);
    double ys[7] = {y, alt_y};
    for (int k = 1; k <= 5; k++)
        ys[k + 1] = p->y0 + p->h * k / 6.0;
    double best_l = x + 8 <= p->x0 + p->w - 4 - e.width || x - 8 - e.width < p->x0 + 4
                        ? x + 8
                        : x - 8 - e.width,
           best_y = y;
    bool found = false;
    for (int c = 0; c < 2 * 7 * 2 && !found; c++) {
        const int pass = c / 14, k = c / 2 % 7, side = c % 2;
        double l = side == 0 ? x + 8 : x - 8 - e.width;
        double t = ys[k] - e.height / 2;
        if (l < p->x0 + 4 || l + e.width > p->x0 + p->w - 4 || t < p->y0 + 2 ||
            t + e.height > p->y0 + p->h - 2)
            continue;
        if (!sc || sc->oom ||
            (pass == 0 ? !scene_hits(sc, l - 2, t - 2, e.width + 4, e.height + 4)
                       : box_free(sc, l - 2, t - 2, e.width + 4, e.height + 4))) {
            best_l = l, best_y = ys[k];
            found = true;
        }
    }
    text_in(cr, sc, best_l, best_y, 0, 0.5, s);
}

/* ---- units and ranges ------------------------------------------------------ */

/* A value for a tick label: "0.5", "20", "1k", "1M". */
static void tick_label(char *buf, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e6 && fmod(a, 1e6) == 0)
        snprintf(buf, n, "%gM", v / 1e6);
    else if (a >= 1e4 && fmod(a, 1e3) == 0)
        snprintf(buf, n, "%gk", v / 1e3);
    else if (a < 1e7 && v == floor(v))
        snprintf(buf, n, "%.0f", v); /* 131072, never 1.311e+05 */
    else
        snprintf(buf, n, "%.4g", v);
}

static const struct {
    const char *name;
    double s; /* seconds per unit */
} tunits[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

const char *ic_plot_time_unit(double lo_s, double hi_s, double *scale)
{
    for (size_t i = 0; i < sizeof tunits / sizeof tunits[0]; i++) {
        double lo = lo_s / tunits[i].s, hi = hi_s / tunits[i].s;
        /* 1e-9 forgives the rounding of a tick computed in seconds */
        if (hi >= 1 - 1e-9 && hi < 10000 && lo >= 0.01 - 1e-12) {
            if (scale)
                *scale = tunits[i].s;
            return tunits[i].name;
        }
    }
    return NULL;
}

void ic_plot_time_tick(char *buf, size_t n, double v_s, double lo_s, double hi_s)
{
    double scale;
    if (ic_plot_time_unit(lo_s, hi_s, &scale)) {
        tick_label(buf, n, v_s / scale);
        return;
    }
    size_t u = 0;
    while (u + 1 < sizeof tunits / sizeof tunits[0] && fabs(v_s) < tunits[u].s * (1 - 1e-9))
        u++;
    if (v_s == 0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%.3g %s", v_s / tunits[u].s, tunits[u].name);
}

/* The step of a linear axis over span: 1, 2 or 5 times a power of ten,
 * giving 5 to 10 intervals. */
static double lin_step(double span)
{
    double step = pow(10, floor(log10(span / 5)));
    if (span / step > 20)
        step *= 5;
    else if (span / step > 10)
        step *= 2;
    return step;
}

/* Rounds a range outward to 1-2-5 values (log) or whole steps (linear). */
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
        double step = lin_step(*hi - *lo);
        *lo = floor(*lo / step + 1e-9) * step;
        *hi = ceil(*hi / step - 1e-9) * step;
    }
}

/* The next 1-2-5 value above v (up) or below it. */
static double log_step(double v, bool up)
{
    double d = pow(10, floor(log10(v) + 1e-9)), m = v / d;
    if (up)
        return m < 1.5 ? 2 * d : m < 3.5 ? 5 * d : 10 * d;
    return m > 3.5 ? 2 * d : m > 1.5 ? d : d / 2;
}

/* An axis len device units long showing data dlo .. dhi: the range rounded
 * outward (nice_range), then widened a 1-2-5 step (log) or a tick step
 * (linear) at a time until the data's ends sit at least pad_lo / pad_hi
 * device units inside the frame (a marker's radius, a label's size). A
 * linear axis with data at or above 0 does not go below 0. */
static void fit_axis(double *lo, double *hi, double dlo, double dhi, bool lg, double len,
                     double pad_lo, double pad_hi)
{
    *lo = dlo;
    *hi = dhi;
    nice_range(lo, hi, lg);
    for (int it = 0; it < 12 && len > 0; it++) {
        double span = lg ? log10(*hi / *lo) : *hi - *lo;
        double top = (lg ? log10(*hi / dhi) : *hi - dhi) / span * len;
        double bot = (lg ? log10(dlo / *lo) : dlo - *lo) / span * len;
        bool grow_hi = top < pad_hi, grow_lo = bot < pad_lo && (lg || dlo < 0 || *lo > 0);
        if (!grow_hi && !grow_lo)
            break;
        if (lg) {
            if (grow_hi)
                *hi = log_step(*hi, true);
            if (grow_lo)
                *lo = log_step(*lo, false);
        } else {
            double step = lin_step(*hi - *lo);
            if (grow_hi)
                *hi += step;
            if (grow_lo)
                *lo = dlo >= 0 && *lo - step < 0 ? 0 : *lo - step;
            nice_range(lo, hi, false);
        }
    }
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

/* Range of any finite value (linear axes). */
static void grow_any(double *lo, double *hi, double v)
{
    if (!isfinite(v))
        return;
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

/* Room a marker needs inside the frame (device units): a ring's radius and
 * its line. */
enum { PAD = 14 };

/* A panel's ranges for data [xlo,xhi] x [ylo,yhi], the ends pad_* inside
 * (the top at least the scene's headroom: room for a legend). */
static void fit_panel(struct ic_plot_panel *p, const struct scene *sc, double xlo, double xhi,
                      double ylo, double yhi, double pad_left, double pad_right,
                      double pad_bottom, double pad_top)
{
    fit_axis(&p->xmin, &p->xmax, xlo, xhi, p->xlog, p->w, pad_left, pad_right);
    fit_axis(&p->ymin, &p->ymax, ylo, yhi, p->ylog, p->h, pad_bottom,
             fmax(pad_top, sc ? sc->headroom : 0));
}

/* Gridlines (lines) or tick labels of one axis; returns the widest label. */
static double axis_ticks(cairo_t *cr, const struct ic_plot_panel *p, bool xaxis, bool lines)
{
    double lo = xaxis ? p->xmin : p->ymin, hi = xaxis ? p->xmax : p->ymax;
    bool lg = xaxis ? p->xlog : p->ylog, tm = xaxis ? p->xtime : p->ytime;
    double vals[256];
    bool major[256];
    int n = 0;
    if (lg && xaxis && p->xpow2) {
        /* chips: every power of two in range, each labelled where an octave
         * is 30 device units or more, else every other one (from 1) */
        bool every = p->w / log2(hi / lo) >= 30;
        for (double v = pow(2, ceil(log2(lo) - 1e-9)); v <= hi * 1.0001 && n < 250; v *= 2) {
            vals[n] = v;
            major[n++] = every || lround(log2(v)) % 2 == 0;
        }
    } else if (lg) {
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
        double step = lin_step(hi - lo);
        for (double v = lo; v <= hi + step * 1e-6 && n < 250; v += step) {
            vals[n] = fabs(v) < step * 1e-9 ? 0 : v;
            major[n++] = true;
        }
    }
    font(cr, 13, false);
    double wmax = 0;
    for (int i = 0; i < n; i++) {
        double pos = xaxis ? ic_plot_px(p, vals[i]) : ic_plot_py(p, vals[i]);
        if (lines) {
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
            continue;
        }
        if (!major[i])
            continue;
        char buf[32];
        if (tm)
            ic_plot_time_tick(buf, sizeof buf, vals[i], lo, hi);
        else
            tick_label(buf, sizeof buf, vals[i]);
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        wmax = fmax(wmax, text_width(cr, buf));
        if (xaxis)
            text(cr, pos, p->y0 + p->h + 8, 0.5, 0, buf);
        else
            text(cr, p->x0 - 8, pos, 1, 0.5, buf);
    }
    return wmax;
}

/* An axis title, with the time unit its range reads in. */
static void axis_title(char *buf, size_t n, const char *label, bool tm, double lo, double hi)
{
    const char *u = tm ? ic_plot_time_unit(lo, hi, NULL) : NULL;
    if (u)
        snprintf(buf, n, "%s (%s)", label ? label : "", u);
    else
        snprintf(buf, n, "%s", label ? label : "");
}

/* The gridlines, under the data. */
static void grid(cairo_t *cr, const struct ic_plot_panel *p)
{
    axis_ticks(cr, p, true, true);
    axis_ticks(cr, p, false, true);
}

/* The border, tick labels and axis titles, over the data. */
static void frame(cairo_t *cr, const struct ic_plot_panel *p, const char *xlabel,
                  const char *ylabel)
{
    axis_ticks(cr, p, true, false);
    double wy = axis_ticks(cr, p, false, false);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, p->x0, p->y0, p->w, p->h);
    cairo_stroke(cr);
    char buf[256];
    font(cr, 15, false);
    axis_title(buf, sizeof buf, xlabel, p->xtime, p->xmin, p->xmax);
    text(cr, p->x0 + p->w / 2, p->y0 + p->h + 34, 0.5, 0, buf);
    axis_title(buf, sizeof buf, ylabel, p->ytime, p->ymin, p->ymax);
    cairo_save(cr);
    cairo_translate(cr, p->x0 - fmax(62, wy + 26), p->y0 + p->h / 2);
    cairo_rotate(cr, -PI / 2);
    text(cr, 0, 0, 0.5, 0.5, buf);
    cairo_restore(cr);
}

/* One centred line of s at y, in a font shrunk from `size` to fit the
 * width but no smaller than `least` (smaller was unreadable: four long
 * names read 6 px high); what still does not fit is cut, at a character's
 * start, and ends in "...". */
static void fitted_line(cairo_t *cr, double width, double y, const char *s, bool bold,
                        double size, double least)
{
    for (font(cr, size, bold); size > least && text_width(cr, s) > width - 20; size--)
        font(cr, size - 1, bold);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    size_t n = strlen(buf);
    while (n > 0 && text_width(cr, buf) > width - 20) {
        do
            n--;
        while (n > 0 && ((unsigned char)buf[n] & 0xC0) == 0x80); /* a UTF-8 continuation */
        snprintf(buf + n, sizeof buf - n, "...");
    }
    text(cr, width / 2, y, 0.5, 0, buf);
}

/* The title and subtitle, each in the largest size up to its own that fits
 * the width (down to 14 and 11 px, then cut). */
static void title(cairo_t *cr, double width, const char *t, const char *sub)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    fitted_line(cr, width, 18, t ? t : "", true, 22, 14);
    if (sub) {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        fitted_line(cr, width, 50, sub, false, 15, 11);
    }
}

/* ---- legends --------------------------------------------------------------- */

struct legend_item {
    char label[200];
    int color;
    double width;
    bool dashed;
    bool dotted;
    bool patch; /* a filled box (shaded region) instead of a line */
    bool hollow; /* a gray ring (a point that does not fit) instead of a line */
    bool marker, ring; /* a point in its colour instead of a line: a dot, or a ring */
    int mark;          /* the line with curve_mark's mark on it (0: none) */
    double alpha;
};

struct legend {
    struct legend_item it[24];
    int n;
    double size; /* font size: 13, or 11 on a small panel */
    bool bottom_right; /* tried first at the bottom right (a frontier rising right) */
};

static struct legend_item *legend_add(struct legend *lg, int col, double width, const char *label)
{
    if (lg->n >= (int)(sizeof lg->it / sizeof lg->it[0]))
        return NULL;
    struct legend_item *li = &lg->it[lg->n++];
    *li = (struct legend_item){.color = col, .width = width, .alpha = 1};
    snprintf(li->label, sizeof li->label, "%s", label ? label : "");
    return li;
}

/* Gray over the panel between the pixel columns x0 and x1: what does not
 * fit in memory, with its legend entry. */
static void nofit_shade(cairo_t *cr, struct legend *lg, const struct ic_plot_panel *p, double x0,
                        double x1)
{
    cairo_set_source_rgba(cr, 0.45, 0.45, 0.45, 0.35);
    cairo_rectangle(cr, x0, p->y0, x1 - x0, p->h);
    cairo_fill(cr);
    struct legend_item *li = legend_add(lg, 7, 0, "does not fit in memory");
    if (li)
        li->patch = true, li->alpha = 0.3;
}

static double legend_row(const struct legend *lg) { return lg->size + 7; }

static void legend_size(cairo_t *cr, const struct legend *lg, double *bw, double *bh)
{
    font(cr, lg->size, false);
    double wmax = 0;
    for (int i = 0; i < lg->n; i++)
        wmax = fmax(wmax, text_width(cr, lg->it[i].label));
    *bw = wmax + 54;
    *bh = legend_row(lg) * lg->n + 10;
}

/* One entry's swatch and text, its row centred at yy. */
static void legend_entry(cairo_t *cr, const struct legend_item *it, double x, double yy)
{
    if (it->patch) {
        color(cr, it->color, it->alpha);
        cairo_rectangle(cr, x + 8, yy - 6, 28, 12);
        cairo_fill(cr);
    } else if (it->marker) {
        color(cr, it->color, 1);
        cairo_set_line_width(cr, 2);
        cairo_new_path(cr);
        cairo_arc(cr, x + 22, yy, 5, 0, 2 * PI);
        if (it->ring)
            cairo_stroke(cr);
        else
            cairo_fill(cr);
    } else if (it->hollow) {
        cairo_set_source_rgba(cr, 0.45, 0.45, 0.45, 0.9);
        cairo_set_line_width(cr, 1.3);
        cairo_new_path(cr);
        cairo_arc(cr, x + 22, yy, 4.5, 0, 2 * PI);
        cairo_stroke(cr);
    } else {
        color(cr, it->color, 1);
        cairo_set_line_width(cr, it->width);
        if (it->dashed || it->dotted) {
            double d[] = {6, 4}, o[] = {2, 3};
            cairo_set_dash(cr, it->dotted ? o : d, 2, 0);
        }
        cairo_move_to(cr, x + 8, yy);
        cairo_line_to(cr, x + 36, yy);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        if (it->mark)
            mark_at(cr, it->mark, x + 22, yy, 4);
    }
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, x + 44, yy, 0, 0.5, it->label);
}

static void legend_box(cairo_t *cr, const struct legend *lg, double x, double y, double bw,
                       double bh)
{
    cairo_set_source_rgba(cr, 1, 1, 1, 0.92);
    cairo_rectangle(cr, x, y, bw, bh);
    cairo_fill_preserve(cr);
    cairo_set_source_rgba(cr, 0, 0, 0, 0.3);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    font(cr, lg->size, false);
    for (int i = 0; i < lg->n; i++)
        legend_entry(cr, &lg->it[i], x, y + 5 + legend_row(lg) * (i + 0.5));
}

/* Entries in rows across width (above a frame): the height they take, and
 * drawn from (x, y) when draw. */
static double legend_rows(cairo_t *cr, const struct legend *lg, double x, double y, double width,
                          bool draw)
{
    font(cr, lg->size, false);
    double cx = 0, rows = 1;
    for (int i = 0; i < lg->n; i++) {
        double w = text_width(cr, lg->it[i].label) + 44 + 18;
        if (cx > 0 && cx + w > width) {
            cx = 0;
            rows++;
        }
        if (draw)
            legend_entry(cr, &lg->it[i], x + cx, y + legend_row(lg) * (rows - 0.5));
        cx += w;
    }
    return rows * legend_row(lg);
}

/* A place for a bw x bh legend inside panel p that touches nothing in sc:
 * the corners first (top left, top right, bottom right, bottom left; the
 * bottom right first with bottom_right), then along the edges, then
 * anywhere on a grid. False when none is clear. */
static bool legend_find(const struct ic_plot_panel *p, const struct scene *sc, double bw,
                        double bh, bool bottom_right, double *ox, double *oy)
{
    const double m = 8;
    double xl = p->x0 + m, xr = p->x0 + p->w - bw - m, yt = p->y0 + m, yb = p->y0 + p->h - bh - m;
    if (xr < xl || yb < yt)
        return false;
    double cand[64][2];
    int n = 0;
    const double corners[4][2] = {{xl, yt}, {xr, yt}, {xr, yb}, {xl, yb}};
    if (bottom_right)
        cand[n][0] = xr, cand[n][1] = yb, n++;
    for (int i = 0; i < 4; i++)
        cand[n][0] = corners[i][0], cand[n][1] = corners[i][1], n++;
    for (int i = 1; i < 4; i++) { /* along the top and bottom edges, then the sides */
        double fx = xl + (xr - xl) * i / 4, fy = yt + (yb - yt) * i / 4;
        cand[n][0] = fx, cand[n][1] = yt, n++;
        cand[n][0] = fx, cand[n][1] = yb, n++;
        cand[n][0] = xl, cand[n][1] = fy, n++;
        cand[n][0] = xr, cand[n][1] = fy, n++;
    }
    for (int i = 1; i < 4 && n < 64; i++)
        for (int j = 1; j < 4 && n < 64; j++)
            cand[n][0] = xl + (xr - xl) * i / 4, cand[n][1] = yt + (yb - yt) * j / 4, n++;
    for (int i = 0; i < n; i++)
        if (!scene_hits(sc, cand[i][0], cand[i][1], bw, bh)) {
            *ox = cand[i][0];
            *oy = cand[i][1];
            return true;
        }
    return false;
}

/* Draws one panel with fn, then its legend where nothing drawn lies; where
 * no place inside is clear, with the data kept below the legend's height
 * (headroom); where still none is, a little lower with the legend in rows
 * above its frame. fn draws everything but the legend, recording in sc what
 * it draws and in lg what the legend says. The choice is made by dry runs
 * on a scratch surface with the target's font options (the same text
 * metrics), then the panel is drawn once on cr. IC_ENOMEM when the scene
 * or the scratch surface cannot be had (nothing drawn on cr then). */
typedef void (*panel_fn)(cairo_t *cr, struct ic_plot_panel *p, const void *ctx,
                         struct scene *sc, struct legend *lg);

static int run_panel(cairo_t *cr, struct ic_plot_panel *p, panel_fn fn, const void *ctx)
{
    const double size = p->h < 450 || p->w < 450 ? 11 : 13;
    struct scene sc = {0};
    struct legend lg = {.size = size};
    cairo_surface_t *scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *dry = cairo_create(scratch);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_surface_get_font_options(cairo_get_target(cr), fo);
    cairo_set_font_options(dry, fo);
    cairo_font_options_destroy(fo);
    int rc = cairo_status(dry) == CAIRO_STATUS_SUCCESS ? IC_OK : IC_ENOMEM;
    bool inside = false;
    double headroom = 0, x = 0, y = 0, bw = 0, bh = 0;
    for (int attempt = 0; attempt < 2 && !rc && !inside; attempt++) {
        struct ic_plot_panel q = *p;
        scene_reset(&sc);
        sc.headroom = headroom;
        lg = (struct legend){.size = size};
        fn(dry, &q, ctx, &sc, &lg);
        if (sc.oom) {
            rc = IC_ENOMEM;
            break;
        }
        legend_size(dry, &lg, &bw, &bh);
        if (!lg.n || legend_find(&q, &sc, bw, bh, lg.bottom_right, &x, &y)) {
            inside = true;
            break;
        }
        if (bh + 16 > p->h / 3)
            break; /* the data would have too little room: above the frame */
        headroom = bh + 16;
    }
    double rh = 0, top = p->y0 - 6;
    if (!rc && !inside)
        rh = legend_rows(dry, &lg, p->x0, top, p->w, false);
    /* a picture too small for the legend above the data as well (320x240):
     * none, rather than a panel squashed flat */
    bool none = !inside && rh + 4 > p->h / 2;
    cairo_destroy(dry);
    cairo_surface_destroy(scratch);
    if (rc) {
        free(sc.s);
        return rc;
    }
    scene_reset(&sc);
    sc.headroom = inside ? headroom : 0;
    if (!inside && !none) {
        p->y0 += rh + 4;
        p->h -= rh + 4;
    }
    lg = (struct legend){.size = size};
    fn(cr, p, ctx, &sc, &lg);
    p->lw = p->lh = 0;
    p->legend_outside = !inside && !none;
    if (none) {
        /* no legend */
    } else if (inside && lg.n) {
        legend_box(cr, &lg, x, y, bw, bh);
        p->lx = x, p->ly = y, p->lw = bw, p->lh = bh;
    } else if (!inside) {
        legend_rows(cr, &lg, p->x0, top, p->w, true);
        p->lx = p->x0, p->ly = top, p->lw = p->w, p->lh = rh;
    }
    rc = sc.oom ? IC_ENOMEM : IC_OK;
    free(sc.s);
    return rc;
}

/* ---- drawing helpers ------------------------------------------------------- */

static void polyline(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *p,
                     const double *xs, const double *ys, size_t n)
{
    bool pen = false;
    double px = 0, py = 0, pad = cairo_get_line_width(cr) / 2 + 3;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(xs[i]) || !isfinite(ys[i]) ||
            (!(xs[i] > 0) && p->xlog) || (!(ys[i] > 0) && p->ylog)) {
            pen = false;
            continue;
        }
        double x = ic_plot_px(p, xs[i]), y = ic_plot_py(p, ys[i]);
        if (pen) {
            cairo_line_to(cr, x, y);
            scene_seg(sc, px, py, x, y, pad);
        } else {
            cairo_move_to(cr, x, y);
            scene_seg(sc, x, y, x, y, pad);
        }
        px = x, py = y;
        pen = true;
    }
    cairo_stroke(cr);
}

/* A marker: a dot (filled) or a ring of radius r at device (x, y). */
static void dot(cairo_t *cr, struct scene *sc, double x, double y, double r, bool fill)
{
    cairo_new_path(cr);
    cairo_arc(cr, x, y, r, 0, 2 * PI);
    if (fill)
        cairo_fill(cr);
    else
        cairo_stroke(cr);
    scene_seg(sc, x, y, x, y, r + 2);
}

/* A dashed line across a panel at device x (a crossing, B_crit, an SLO), in
 * the current colour. */
static void marker_line(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *p, double x,
                        double width)
{
    cairo_set_line_width(cr, width);
    double d[] = {3, 3};
    cairo_set_dash(cr, d, 2, 0);
    cairo_move_to(cr, x, p->y0);
    cairo_line_to(cr, x, p->y0 + p->h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    scene_seg(sc, x, p->y0, x, p->y0 + p->h, width / 2 + 2);
}

/* A log-log panel at (x0, y0), w x h device units; its ranges come later. */
static struct ic_plot_panel panel_at(double x0, double y0, double w, double h)
{
    return (struct ic_plot_panel){.x0 = x0, .y0 = y0, .w = w, .h = h, .xmin = 1, .xmax = 10,
                                  .ymin = 1, .ymax = 10, .xlog = true, .ylog = true};
}

static void clip_to(cairo_t *cr, const struct ic_plot_panel *p)
{
    cairo_save(cr);
    cairo_rectangle(cr, p->x0, p->y0, p->w, p->h);
    cairo_clip(cr);
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

static int drawn(cairo_t *cr, struct ic_err *err)
{
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS)
        return ic_err_set(err, IC_EIO, NULL, 0, 0, "drawing failed: %s",
                          cairo_status_to_string(cairo_status(cr)));
    return IC_OK;
}

/* ---- decode and context figures ------------------------------------------- */

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

/* What the time panel's x axis is. */
enum xkind { X_BATCH, X_CONTEXT, X_CHIPS };

struct time_ctx {
    const struct ic_plot_set *set;
    enum xkind x;
    const char *xlabel;
};

static double xval(const struct ic_point *p, enum xkind x)
{
    return x == X_CONTEXT ? (double)p->cfg.context
           : x == X_CHIPS ? (double)p->cfg.chips
                          : (double)p->cfg.batch;
}

/* The largest useful tensor-parallel size of a curve, ringed or lined in
 * this colour (the Okabe-Ito orange: no term's). */
enum { USEFUL_COLOR = 4 };

/* A chips axis: the data's ends half an octave inside the frame (the
 * labels sit at the powers of two). */
static void pow2_range(struct ic_plot_panel *p, double xlo, double xhi)
{
    p->xpow2 = true;
    p->xmin = xlo / sqrt(2);
    p->xmax = xhi * sqrt(2);
}

/* The line at the largest useful size of curve cv on panel p, labelled
 * where label is set; false (nothing drawn) where no point fits. */
static bool useful_line(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *p,
                        const struct ic_plot_curve *cv, bool label)
{
    size_t u = ic_sweep_largest_useful(cv->pts, cv->n);
    if (u >= cv->n)
        return false;
    const struct ic_point *pt = &cv->pts[u];
    double x = ic_plot_px(p, (double)pt->cfg.chips);
    color(cr, USEFUL_COLOR, 1);
    marker_line(cr, sc, p, x, 2.5);
    if (!label)
        return true;
    char buf[128];
    const char *pl = pt->cfg.chips == 1 ? "" : "s";
    snprintf(buf, sizeof buf, "largest useful: %llu chip%s", (unsigned long long)pt->cfg.chips,
             pl);
    cairo_set_source_rgb(cr, 0.55, 0.35, 0);
    /* the size that fits on the wider side of the line (down to 8) */
    double room = fmax(x - p->x0, p->x0 + p->w - x) - 14, size = 14;
    for (font(cr, size, true); size > 9 && text_width(cr, buf) > room; size--)
        font(cr, size - 1, true);
    if (text_width(cr, buf) > room) /* a small picture: the count alone */
        snprintf(buf, sizeof buf, "%llu chip%s", (unsigned long long)pt->cfg.chips, pl);
    side_text(cr, sc, p, x, p->y0 + 18, p->y0 + p->h - 18, buf);
    return true;
}

static bool any_both(const struct ic_plot_set *set)
{
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++)
            if (has_both(&set->curves[c].pts[i]))
                return true;
    return false;
}

/* Where the KV read overtakes the weight read on the first curve (context
 * figure): a dashed line and its label. */
static void kv_crossing(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *a,
                        const struct ic_plot_set *set)
{
    const struct ic_plot_curve *cv = &set->curves[0];
    for (size_t i = 1; i < cv->n; i++) {
        const struct ic_point *p0 = &cv->pts[i - 1], *p1 = &cv->pts[i];
        if (p0->kv_s <= p0->weights_s && p1->kv_s > p1->weights_s) {
            /* log-log interpolation of the crossing */
            double r0 = log(p0->kv_s / p0->weights_s), r1 = log(p1->kv_s / p1->weights_s);
            double f = r0 == r1 ? 0 : r0 / (r0 - r1);
            double s = exp(log((double)p0->cfg.context) +
                           f * (log((double)p1->cfg.context) - log((double)p0->cfg.context)));
            double x = ic_plot_px(a, s);
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            marker_line(cr, sc, a, x, 1.2);
            char buf[200];
            if (set->n_curves > 1 && cv->label && cv->label[0])
                snprintf(buf, sizeof buf, "KV read overtakes weight read at S = %.0f (%s)", s,
                         cv->label);
            else
                snprintf(buf, sizeof buf, "KV read overtakes weight read at S = %.0f", s);
            font(cr, 14, false);
            side_text(cr, sc, a, x, a->y0 + a->h - 18, a->y0 + 18, buf);
            break;
        }
    }
}

/* Step time (and terms, for one curve) against batch or context. */
static void time_panel(cairo_t *cr, struct ic_plot_panel *p, const void *vctx, struct scene *sc,
                       struct legend *lg)
{
    const struct time_ctx *ctx = vctx;
    const struct ic_plot_set *set = ctx->set;
    const enum xkind xk = ctx->x;
    const bool by_context = xk == X_CONTEXT;
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, tlo = INFINITY, thi = 0;
    const bool single = set->n_curves == 1, both = any_both(set), mixed = mixed_set(set);
    const bool dual = both || mixed; /* expected solid, ideal bound dashed */
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            const struct ic_point *pt = &set->curves[c].pts[i];
            grow(&xlo, &xhi, xval(pt, xk));
            grow(&ylo, &yhi, solid_step(pt));
            grow(&ylo, &yhi, dashed_step(pt));
            for (int t = 0; t < T_COUNT && single; t++)
                grow(&tlo, &thi, term_value(pt, (enum term)t));
        }
    if (set->mark) {
        grow(&xlo, &xhi, xval(set->mark, xk));
        grow(&ylo, &yhi, solid_step(set->mark));
    }
    /* every step drawn whole; the terms far below the step time would
     * squash the picture: they reach 4 decades under its top at most (the
     * steps' own floor was clipped too, and a curve of several entered
     * from below the axis) */
    if (thi > 0) {
        yhi = fmax(yhi, thi);
        ylo = fmin(ylo, fmax(tlo, yhi / 1e4));
    }
    p->xlog = p->ylog = true;
    p->xtime = false;
    p->ytime = true;
    fit_panel(p, sc, xlo, xhi, ylo, yhi, PAD, PAD, PAD, PAD);
    if (xk == X_CHIPS)
        pow2_range(p, xlo, xhi);
    grid(cr, p);
    clip_to(cr, p);
    if (single) {
        const struct ic_plot_curve *cv = &set->curves[0];
        const struct ic_point *first = &cv->pts[0];
        /* compute-bound batches: where the points' linear compute time
         * passes their weight read (B_crit for a dense model; later for an
         * MoE, whose weight read grows with the experts touched) */
        double bc = xk == X_BATCH ? compute_crossing(cv) : INFINITY;
        if (!by_context && bc < p->xmax) {
            color(cr, 2, 0.13);
            double x = ic_plot_px(p, fmax(bc, p->xmin));
            cairo_rectangle(cr, x, p->y0, p->x0 + p->w - x, p->h);
            cairo_fill(cr);
            struct legend_item *li = legend_add(lg, 2, 0, "compute-bound linear layers");
            if (li)
                li->patch = true, li->alpha = 0.13;
        }
        /* points that do not fit: gray from the first one on (a chips
         * sweep: up to the first that fits, the fewer chips holding less) */
        size_t nofit = 0;
        while (xk == X_CHIPS && nofit < cv->n && !cv->pts[nofit].fits)
            nofit++;
        if (nofit) {
            double edge = nofit < cv->n ? sqrt(xval(&cv->pts[nofit - 1], xk) *
                                               xval(&cv->pts[nofit], xk))
                                        : p->xmax;
            nofit_shade(cr, lg, p, p->x0, ic_plot_px(p, fmin(edge, p->xmax)));
        }
        for (size_t i = 0; i < cv->n && xk != X_CHIPS; i++)
            if (!cv->pts[i].fits) {
                double v = xval(&cv->pts[i], xk);
                double prev = i ? xval(&cv->pts[i - 1], xk) : p->xmin;
                /* the boundary: the largest batch that fits, else halfway (log) */
                double edge = !by_context && cv->pts[i].max_batch >= prev
                                  ? (double)cv->pts[i].max_batch + 0.5
                                  : sqrt(prev * v);
                if (i == 0)
                    edge = p->xmin;
                nofit_shade(cr, lg, p, ic_plot_px(p, fmax(edge, p->xmin)), p->x0 + p->w);
                break;
            }
        double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
        size_t n = cv->n < IC_SWEEP_MAX_VALUES ? cv->n : IC_SWEEP_MAX_VALUES;
        for (size_t i = 0; i < n; i++)
            xs[i] = xval(&cv->pts[i], xk);
        /* the terms (of the point's own estimate), dashed and thin */
        for (int t = T_COUNT - 1; t >= 1; t--) {
            bool any = false;
            for (size_t i = 0; i < n; i++) {
                ys[i] = term_value(&cv->pts[i], (enum term)t);
                any |= ys[i] > 0;
            }
            if (!any)
                continue;
            color(cr, terms[t].color, 1);
            cairo_set_line_width(cr, terms[t].width);
            double d[] = {7, 4};
            cairo_set_dash(cr, d, 2, 0);
            polyline(cr, sc, p, xs, ys, n);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        /* the ideal bound dashed beside the expected step, which is solid */
        if (dual) {
            for (size_t i = 0; i < n; i++)
                ys[i] = dashed_at(&cv->pts[i], mixed);
            color(cr, 7, 0.85);
            cairo_set_line_width(cr, 2.2);
            double d[] = {9, 5};
            cairo_set_dash(cr, d, 2, 0);
            polyline(cr, sc, p, xs, ys, n);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        for (size_t i = 0; i < n; i++)
            ys[i] = solid_at(&cv->pts[i], mixed);
        color(cr, 7, 1);
        cairo_set_line_width(cr, terms[T_STEP].width);
        polyline(cr, sc, p, xs, ys, n);
        if (dual) {
            legend_add(lg, 7, 3.0, "step, expected");
            struct legend_item *li = legend_add(lg, 7, 2.2, "step, ideal bound");
            if (li)
                li->dashed = true;
        } else {
            legend_add(lg, 7, 3.0, terms[T_STEP].label);
        }
        for (int t = 1; t < T_COUNT; t++) {
            bool any = false;
            for (size_t i = 0; i < n; i++)
                any |= term_value(&cv->pts[i], (enum term)t) > 0;
            if (!any)
                continue;
            char lab[128];
            snprintf(lab, sizeof lab, "%s%s", terms[t].label,
                     dual ? (first->cfg.estimate == IC_EST_IDEAL ? " (ideal)" : " (expected)")
                          : "");
            struct legend_item *li = legend_add(lg, terms[t].color, terms[t].width, lab);
            if (li)
                li->dashed = true;
        }
        if (xk == X_CHIPS && useful_line(cr, sc, p, cv, true)) {
            struct legend_item *li = legend_add(lg, USEFUL_COLOR, 2.5,
                                              "largest useful TP size");
            if (li)
                li->dashed = true;
        }
        if (!by_context && bc >= p->xmin && bc <= p->xmax) {
            double x = ic_plot_px(p, bc);
            color(cr, 2, 1);
            marker_line(cr, sc, p, x, 1.5);
            char buf[96];
            if (first->b_crit_moe != first->b_crit) /* MoE: say how it differs */
                snprintf(buf, sizeof buf, "compute-bound from B = %.0f (dense B_crit %.0f)", bc,
                         first->b_crit);
            else
                snprintf(buf, sizeof buf, "B_crit = %.0f", first->b_crit);
            font(cr, 13, false);
            side_text(cr, sc, p, x, p->y0 + p->h - 16, p->y0 + 16, buf);
        }
    } else {
        for (size_t c = 0; c < set->n_curves; c++) {
            const struct ic_plot_curve *cv = &set->curves[c];
            double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
            size_t n = cv->n < IC_SWEEP_MAX_VALUES ? cv->n : IC_SWEEP_MAX_VALUES;
            /* the fitting run: [from, nf) (a batch or context sweep: up to
             * the first that does not fit; a chips sweep: from the first
             * that fits, the fewer chips holding less) */
            size_t nf = 0, from = 0;
            for (size_t i = 0; i < n; i++) {
                xs[i] = xval(&cv->pts[i], xk);
                nf += cv->pts[i].fits && nf == i;
            }
            if (xk == X_CHIPS) {
                while (from < n && !cv->pts[from].fits)
                    from++;
                nf = n;
            }
            /* a curve without an expected step among others with one: its
             * ideal bound alone, dashed in place of the solid line */
            char lab[200];
            const bool alone = ic_plot_curve_legend(set, c, lab, sizeof lab);
            color(cr, curve_color(c), 1);
            if (dual && !alone) { /* the ideal bound, dashed, where it fits */
                for (size_t i = 0; i < n; i++)
                    ys[i] = dashed_at(&cv->pts[i], mixed);
                cairo_set_line_width(cr, 1.6);
                double d[] = {7, 4};
                cairo_set_dash(cr, d, 2, 0);
                polyline(cr, sc, p, xs + from, ys + from, nf - from);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            for (size_t i = 0; i < n; i++)
                ys[i] = alone ? ideal_step(&cv->pts[i]) : solid_at(&cv->pts[i], mixed);
            if (alone) {
                cairo_set_line_width(cr, 1.6);
                double d[] = {7, 4};
                cairo_set_dash(cr, d, 2, 0);
            } else {
                cairo_set_line_width(cr, 2.4);
            }
            polyline(cr, sc, p, xs + from, ys + from, nf - from);
            cairo_set_dash(cr, NULL, 0, 0);
            /* the part that does not fit: thin and dotted */
            double d[] = {2, 3};
            cairo_set_line_width(cr, 1.4);
            if (nf < n) {
                cairo_set_dash(cr, d, 2, 0);
                size_t at = nf ? nf - 1 : 0;
                polyline(cr, sc, p, xs + at, ys + at, n - at);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            if (from > 0) {
                cairo_set_dash(cr, d, 2, 0);
                polyline(cr, sc, p, xs, ys, from < n ? from + 1 : n);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            if (curve_mark(c))
                for (size_t i = from; i < nf; i++)
                    if (ys[i] > 0 && isfinite(ys[i]))
                        mark_at(cr, curve_mark(c), ic_plot_px(p, xs[i]), ic_plot_py(p, ys[i]),
                                4);
            struct legend_item *lc = legend_add(lg, curve_color(c), alone ? 1.6 : 2.4, lab);
            if (lc)
                lc->mark = curve_mark(c), lc->dashed = alone;
            /* the largest useful size ringed on the line of the estimate
             * that chose it (the point's own: the table's) */
            size_t u = xk == X_CHIPS ? ic_sweep_largest_useful(cv->pts, cv->n) : cv->n;
            if (u < cv->n && cv->pts[u].step_s > 0) {
                color(cr, USEFUL_COLOR, 1);
                cairo_set_line_width(cr, 3);
                dot(cr, sc, ic_plot_px(p, xs[u]), ic_plot_py(p, cv->pts[u].step_s), 9, false);
            }
        }
        bool any_useful = false;
        for (size_t c = 0; c < set->n_curves; c++)
            any_useful |= ic_sweep_largest_useful(set->curves[c].pts, set->curves[c].n) <
                          set->curves[c].n;
        if (xk == X_CHIPS && any_useful) {
            struct legend_item *li = legend_add(lg, USEFUL_COLOR, 3, "largest useful TP size");
            if (li)
                li->marker = li->ring = true;
        }
        if (dual) {
            legend_add(lg, 7, 2.4, "solid: expected (achieved rates)");
            struct legend_item *li = legend_add(lg, 7, 1.6, "dashed: ideal bound");
            if (li)
                li->dashed = true;
        }
        struct legend_item *li = legend_add(lg, 7, 1.4, "does not fit in memory");
        if (li)
            li->dotted = true;
    }
    if (set->mark) {
        /* the current point: a line at its batch (context), a ring on the step */
        const struct ic_point *m = set->mark;
        double mx = xval(m, xk);
        if (mx >= p->xmin && mx <= p->xmax) {
            /* the ring on the solid line; the label gives both estimates */
            double x = ic_plot_px(p, mx), y = ic_plot_py(p, solid_step(m));
            cairo_set_source_rgba(cr, 0, 0, 0, 0.7);
            cairo_set_line_width(cr, 1.5);
            cairo_move_to(cr, x, p->y0);
            cairo_line_to(cr, x, p->y0 + p->h);
            cairo_stroke(cr);
            scene_seg(sc, x, p->y0, x, p->y0 + p->h, 3);
            cairo_set_line_width(cr, 3);
            dot(cr, sc, x, y, 8, false);
            char buf[128], ts[32], td[32];
            ic_plot_time_tick(ts, sizeof ts, solid_step(m), 0, 0);
            ic_plot_time_tick(td, sizeof td, dashed_step(m), 0, 0);
            if (has_both(m))
                snprintf(buf, sizeof buf, "%s %.0f: %s (ideal %s)",
                         xk == X_CONTEXT ? "context" : xk == X_CHIPS ? "chips" : "batch", mx, ts,
                         td);
            else
                snprintf(buf, sizeof buf, "%s %.0f: %s",
                         xk == X_CONTEXT ? "context" : xk == X_CHIPS ? "chips" : "batch", mx, ts);
            font(cr, 14, true);
            /* beside the line, at the top or, where the ring is there, the bottom */
            double ty = y < p->y0 + p->h / 2 ? p->y0 + p->h - 18 : p->y0 + 18;
            side_text(cr, sc, p, x, ty, ty == p->y0 + 18 ? p->y0 + p->h - 18 : p->y0 + 18, buf);
        }
    }
    if (by_context)
        kv_crossing(cr, sc, p, set);
    cairo_restore(cr);
    frame(cr, p, ctx->xlabel, "time per decode step");
}

size_t ic_plot_frontier(const double *lat, const double *thr, size_t n, size_t *idx)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (lat[i] > 0 && thr[i] > 0 && isfinite(lat[i]) && isfinite(thr[i]))
            idx[m++] = i;
    /* insertion sort by latency, then by throughput from the highest (n is
     * small): of two points at one latency the lower is dominated */
    for (size_t i = 1; i < m; i++)
        for (size_t j = i; j > 0; j--) {
            size_t a = idx[j - 1], b = idx[j];
            if (!(lat[b] < lat[a] || (lat[b] == lat[a] && thr[b] > thr[a])))
                break;
            idx[j - 1] = b;
            idx[j] = a;
        }
    /* a point is on the frontier when it beats every faster one */
    size_t k = 0;
    double best = -INFINITY;
    for (size_t i = 0; i < m; i++)
        if (thr[idx[i]] > best) {
            best = thr[idx[i]];
            idx[k++] = idx[i];
        }
    return k;
}

struct pareto_ctx {
    const struct ic_plot_set *set;
    double *lat, *thr, *dlat, *dthr; /* per point of every curve: solid and dashed */
    size_t *idx;
    size_t total;
    bool mixed; /* mixed_set: the solid arrays hold expected steps alone */
};

static void frontier_line(cairo_t *cr, struct scene *sc, const struct ic_plot_panel *p,
                          const double *lat, const double *thr, const size_t *idx, size_t k)
{
    double px = 0, py = 0, pad = cairo_get_line_width(cr) / 2 + 3;
    for (size_t i = 0; i < k; i++) {
        double x = ic_plot_px(p, lat[idx[i]]), y = ic_plot_py(p, thr[idx[i]]);
        if (i) {
            cairo_line_to(cr, x, y);
            scene_seg(sc, px, py, x, y, pad);
        } else {
            cairo_move_to(cr, x, y);
        }
        px = x, py = y;
    }
    cairo_stroke(cr);
}

/* Throughput per chip against time per token, one point per batch, the
 * frontier of the fitting points joined (expected solid, the ideal bound's
 * dashed where the points carry both; a curve with the ideal bound alone
 * beside curves with an expected step, dashed and out of the envelope). */
static void pareto_panel(cairo_t *cr, struct ic_plot_panel *p, const void *vctx,
                         struct scene *sc, struct legend *lg)
{
    const struct pareto_ctx *ctx = vctx;
    const struct ic_plot_set *set = ctx->set;
    const bool both = any_both(set), labels = set->n_curves <= 3;
    const bool dual = both || ctx->mixed; /* expected solid, ideal bound dashed */
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            const struct ic_point *pt = &set->curves[c].pts[i];
            const double t[2] = {solid_step(pt), dashed_step(pt)};
            for (int k = 0; k < 2; k++)
                if (t[k] > 0) {
                    grow(&xlo, &xhi, t[k]);
                    grow(&ylo, &yhi, tokens_chip_at(pt, t[k]));
                }
        }
    const struct ic_point *mk = set->mark; /* ringed where its points are drawn */
    if (mk && solid_step(mk) > 0) {
        grow(&xlo, &xhi, solid_step(mk));
        grow(&ylo, &yhi, tokens_chip_at(mk, solid_step(mk)));
    }
    p->xlog = p->ylog = true;
    p->xtime = true;
    p->ytime = false;
    /* room for the batch labels, up and to the right of their points */
    fit_panel(p, sc, xlo, xhi, ylo, yhi, PAD, labels ? 44 : PAD, PAD, labels ? 26 : PAD);
    grid(cr, p);
    clip_to(cr, p);
    size_t at = 0;
    for (size_t c = 0; c < set->n_curves; c++) {
        const struct ic_plot_curve *cv = &set->curves[c];
        const double *lat = ctx->lat + at, *thr = ctx->thr + at;
        int col = set->n_curves == 1 ? 0 : curve_color(c);
        char lab[200];
        const bool alone = ic_plot_curve_legend(set, c, lab, sizeof lab);
        /* the frontier of the fitting points (the others are NaN there; a
         * curve alone with its ideal bound has no solid one) */
        size_t k;
        if (dual) {
            k = ic_plot_frontier(ctx->dlat + at, ctx->dthr + at, cv->n, ctx->idx);
            color(cr, col, 0.8);
            cairo_set_line_width(cr, 1.6);
            double d[] = {7, 4};
            cairo_set_dash(cr, d, 2, 0);
            frontier_line(cr, sc, p, ctx->dlat + at, ctx->dthr + at, ctx->idx, k);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        if (!alone) {
            k = ic_plot_frontier(lat, thr, cv->n, ctx->idx);
            color(cr, col, 0.9);
            cairo_set_line_width(cr, 2.2);
            frontier_line(cr, sc, p, lat, thr, ctx->idx, k);
        }
        font(cr, 12, false);
        for (size_t i = 0; i < cv->n; i++) {
            const struct ic_point *pt = &cv->pts[i];
            double t = solid_step(pt);
            if (!(t > 0))
                continue;
            double x = ic_plot_px(p, t), y = ic_plot_py(p, tokens_chip_at(pt, t));
            if (pt->fits && set->n_curves > 1 && curve_mark(c)) {
                color(cr, col, 1);
                mark_at(cr, curve_mark(c), x, y, 4.5);
                scene_seg(sc, x, y, x, y, 6.5);
            } else if (pt->fits) {
                color(cr, col, 1);
                dot(cr, sc, x, y, 4.5, true);
            } else {
                cairo_set_source_rgba(cr, 0.45, 0.45, 0.45, 0.9);
                cairo_set_line_width(cr, 1.3);
                dot(cr, sc, x, y, 4.5, false);
            }
            if (labels) {
                char buf[24];
                snprintf(buf, sizeof buf, "%llu", (unsigned long long)pt->cfg.batch);
                cairo_set_source_rgba(cr, 0.2, 0.2, 0.2, pt->fits ? 1 : 0.5);
                label_in(cr, sc, x + 7, y - 5, 0, 1, buf);
            }
        }
        struct legend_item *lf = legend_add(lg, col, alone ? 1.6 : 2.2,
                                            set->n_curves == 1
                                                ? (labels ? "Pareto frontier (labels: batch)"
                                                          : "Pareto frontier")
                                                : lab);
        if (lf)
            lf->mark = set->n_curves > 1 ? curve_mark(c) : 0, lf->dashed = alone;
        at += cv->n;
    }
    if (set->n_curves > 1) {
        /* of the solid steps: where the picture is mixed, the expected
         * ones alone (a curve with its ideal bound only would pull it up),
         * and said; none where no expected step fits */
        size_t k = ic_plot_frontier(ctx->lat, ctx->thr, ctx->total, ctx->idx);
        cairo_set_source_rgba(cr, 0, 0, 0, 0.85);
        cairo_set_line_width(cr, 3.5);
        double d[] = {9, 5};
        cairo_set_dash(cr, d, 2, 0);
        frontier_line(cr, sc, p, ctx->lat, ctx->thr, ctx->idx, k);
        cairo_set_dash(cr, NULL, 0, 0);
        struct legend_item *li =
            k || !ctx->mixed ? legend_add(lg, 7, 3.5,
                                          ctx->mixed ? "envelope (best expected)"
                                                     : "envelope (best of all)")
                             : NULL;
        if (li)
            li->dashed = true;
    }
    if (dual) {
        legend_add(lg, 7, 2.2, "solid: expected (achieved rates)");
        struct legend_item *li = legend_add(lg, 7, 1.6, "dashed: ideal bound frontier");
        if (li)
            li->dashed = true;
    }
    struct legend_item *li = legend_add(lg, 7, 0, "hollow: does not fit in memory");
    if (li)
        li->hollow = true;
    if (mk && solid_step(mk) > 0) {
        double x = ic_plot_px(p, solid_step(mk));
        double y = ic_plot_py(p, tokens_chip_at(mk, solid_step(mk)));
        cairo_set_source_rgba(cr, 0, 0, 0, 0.8);
        cairo_set_line_width(cr, 3);
        dot(cr, sc, x, y, 10, false);
    }
    cairo_restore(cr);
    frame(cr, p, "time per output token", "throughput per chip (tokens/s)");
    lg->bottom_right = true;
}

static void layout_two(double width, double height, struct ic_plot_panel *a,
                       struct ic_plot_panel *b)
{
    double top = 90, bottom = 70, left = 95, gap = 120, right = 30;
    double w = (width - left - gap - right) / 2;
    *a = panel_at(left, top, w, height - top - bottom);
    *b = panel_at(left + w + gap, top, w, height - top - bottom);
}

int ic_plot_decode(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                   struct ic_plot_layout *layout, struct ic_err *err)
{
    int rc = check_set(set, err);
    if (rc)
        return rc;
    size_t total = 0;
    for (size_t c = 0; c < set->n_curves; c++)
        total += set->curves[c].n;
    /* the points' two estimates as arrays (the frontier's input) */
    double *v = malloc(4 * total * sizeof *v);
    size_t *idx = malloc(total * sizeof *idx);
    if (!v || !idx) {
        free(v);
        free(idx);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    const bool mixed = mixed_set(set);
    struct pareto_ctx pc = {set, v, v + total, v + 2 * total, v + 3 * total, idx, total, mixed};
    size_t at = 0;
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++, at++) {
            const struct ic_point *pt = &set->curves[c].pts[i];
            double s = solid_at(pt, mixed), d = dashed_at(pt, mixed);
            /* only the fitting points make a frontier: the rest are NaN
             * there, as are, in a mixed picture, those without an expected
             * step (the envelope is of expected steps then) */
            pc.lat[at] = pt->fits && s > 0 ? s : NAN;
            pc.thr[at] = pt->fits && s > 0 ? tokens_chip_at(pt, s) : NAN;
            pc.dlat[at] = pt->fits && d > 0 ? d : NAN;
            pc.dthr[at] = pt->fits && d > 0 ? tokens_chip_at(pt, d) : NAN;
        }
    struct ic_plot_panel a, b;
    layout_two(width, height, &a, &b);
    background(cr, width, height);
    title(cr, width, set->title, set->subtitle);
    struct time_ctx tc = {set, X_BATCH, "batch (sequences decoded together)"};
    rc = run_panel(cr, &a, time_panel, &tc);
    if (!rc)
        rc = run_panel(cr, &b, pareto_panel, &pc);
    free(v);
    free(idx);
    if (rc)
        return ic_err_set(err, rc, NULL, 0, 0, "out of memory");
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    return drawn(cr, err);
}

/* Tokens/s against chips (a chips sweep's right panel): with one curve, in
 * all and per chip; with several, per chip, one curve each. The points
 * that do not fit are left out; expected solid, the ideal bound dashed (a
 * curve with the ideal bound alone beside curves with an expected step:
 * dashed only). */
static void chips_rate_panel(cairo_t *cr, struct ic_plot_panel *p, const void *vctx,
                             struct scene *sc, struct legend *lg)
{
    const struct ic_plot_set *set = vctx;
    const bool single = set->n_curves == 1, both = any_both(set), mixed = mixed_set(set);
    const bool dual = both || mixed; /* expected solid, ideal bound dashed */
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    bool any = false; /* a point that fits: something to draw */
    for (size_t c = 0; c < set->n_curves; c++)
        for (size_t i = 0; i < set->curves[c].n; i++) {
            const struct ic_point *pt = &set->curves[c].pts[i];
            grow(&xlo, &xhi, (double)pt->cfg.chips);
            if (!pt->fits)
                continue;
            any = true;
            const double t[2] = {solid_step(pt), dashed_step(pt)};
            for (int k = 0; k < 2; k++)
                if (t[k] > 0) {
                    double per = tokens_chip_at(pt, t[k]);
                    grow(&ylo, &yhi, per);
                    if (single) /* all chips: per chip times chips */
                        grow(&ylo, &yhi, per * (double)pt->cfg.chips);
                }
        }
    if (!(yhi > 0)) /* nothing fits: an empty panel with a range, said */
        ylo = 1, yhi = 10;
    if (!any) {
        p->xlog = p->ylog = true;
        fit_panel(p, sc, xlo, xhi, ylo, yhi, PAD, PAD, PAD, PAD);
        pow2_range(p, xlo, xhi);
        grid(cr, p);
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        font(cr, 15, false);
        text_in(cr, sc, p->x0 + p->w / 2, p->y0 + p->h / 2, 0.5, 0.5,
                "no chip count fits in memory: no throughput");
        frame(cr, p, "chips (tensor-parallel size)", "throughput (tokens/s)");
        return;
    }
    p->xlog = p->ylog = true;
    p->xtime = p->ytime = false;
    fit_panel(p, sc, xlo, xhi, ylo, yhi, PAD, PAD, PAD, PAD);
    pow2_range(p, xlo, xhi);
    grid(cr, p);
    clip_to(cr, p);
    for (size_t c = 0; c < set->n_curves; c++) {
        const struct ic_plot_curve *cv = &set->curves[c];
        double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
        size_t n = cv->n < IC_SWEEP_MAX_VALUES ? cv->n : IC_SWEEP_MAX_VALUES;
        for (size_t i = 0; i < n; i++)
            xs[i] = (double)cv->pts[i].cfg.chips;
        char lab[200];
        const bool alone = ic_plot_curve_legend(set, c, lab, sizeof lab);
        /* one curve: per chip (blue) and all chips (vermillion) */
        for (int all = 0; all < (single ? 2 : 1); all++) {
            int col = single ? all : curve_color(c);
            for (int dashed = dual; dashed >= (alone ? 1 : 0); dashed--) {
                for (size_t i = 0; i < n; i++) {
                    const struct ic_point *pt = &cv->pts[i];
                    double t = dashed ? dashed_at(pt, mixed) : solid_at(pt, mixed);
                    ys[i] = pt->fits && t > 0 ? tokens_chip_at(pt, t) *
                                                    (all ? (double)pt->cfg.chips : 1)
                                              : NAN;
                }
                color(cr, col, dashed ? 0.8 : 1);
                cairo_set_line_width(cr, dashed ? 1.6 : 2.4);
                if (dashed) {
                    double d[] = {7, 4};
                    cairo_set_dash(cr, d, 2, 0);
                }
                polyline(cr, sc, p, xs, ys, n);
                cairo_set_dash(cr, NULL, 0, 0);
            }
            for (size_t i = 0; i < n; i++)
                if (isfinite(ys[i]))
                    dot(cr, sc, ic_plot_px(p, xs[i]), ic_plot_py(p, ys[i]), 4, true);
            struct legend_item *li =
                legend_add(lg, col, alone ? 1.6 : 2.4,
                           single ? (all ? "tokens/s, all chips" : "tokens/s per chip") : lab);
            if (li)
                li->dashed = alone;
        }
    }
    if (single && useful_line(cr, sc, p, &set->curves[0], false)) {
        struct legend_item *li = legend_add(lg, USEFUL_COLOR, 2.5, "largest useful TP size");
        if (li)
            li->dashed = true;
    }
    if (dual) {
        legend_add(lg, 7, 2.4, "solid: expected (achieved rates)");
        struct legend_item *li = legend_add(lg, 7, 1.6, "dashed: ideal bound");
        if (li)
            li->dashed = true;
    }
    cairo_restore(cr);
    frame(cr, p, "chips (tensor-parallel size)",
          single ? "throughput (tokens/s)" : "throughput per chip (tokens/s)");
}

int ic_plot_chips(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                  struct ic_plot_layout *layout, struct ic_err *err)
{
    int rc = check_set(set, err);
    if (rc)
        return rc;
    struct ic_plot_panel a, b;
    layout_two(width, height, &a, &b);
    background(cr, width, height);
    title(cr, width, set->title, set->subtitle);
    struct time_ctx tc = {set, X_CHIPS, "chips (tensor-parallel size)"};
    rc = run_panel(cr, &a, time_panel, &tc);
    if (!rc)
        rc = run_panel(cr, &b, chips_rate_panel, set);
    if (rc)
        return ic_err_set(err, rc, NULL, 0, 0, "out of memory");
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    return drawn(cr, err);
}

int ic_plot_context(cairo_t *cr, double width, double height, const struct ic_plot_set *set,
                    struct ic_plot_layout *layout, struct ic_err *err)
{
    int rc = check_set(set, err);
    if (rc)
        return rc;
    struct ic_plot_panel a = panel_at(95, 90, width - 95 - 40, height - 90 - 70);
    background(cr, width, height);
    title(cr, width, set->title, set->subtitle);
    struct time_ctx tc = {set, X_CONTEXT, "context (tokens in each sequence's KV cache)"};
    if ((rc = run_panel(cr, &a, time_panel, &tc)))
        return ic_err_set(err, rc, NULL, 0, 0, "out of memory");
    if (layout)
        *layout = (struct ic_plot_layout){{a, a}, 1};
    return drawn(cr, err);
}

/* ---- validation ------------------------------------------------------------ */

struct valid_ctx {
    const struct ic_plot_vseries *series;
    size_t n_series;
    const char *x_label;
};

static void valid_panel(cairo_t *cr, struct ic_plot_panel *a, const void *vctx, struct scene *sc,
                        struct legend *lg)
{
    const struct valid_ctx *ctx = vctx;
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
    for (size_t s = 0; s < ctx->n_series; s++)
        for (size_t i = 0; i < ctx->series[s].n; i++) {
            const struct ic_plot_vpoint *v = &ctx->series[s].pts[i];
            grow(&xlo, &xhi, v->x);
            grow(&ylo, &yhi, v->lo);
            grow(&ylo, &yhi, v->hi);
            grow(&ylo, &yhi, v->predicted);
        }
    a->xlog = a->ylog = true;
    a->xtime = false;
    a->ytime = true;
    fit_panel(a, sc, xlo, xhi, ylo, yhi, PAD, PAD, PAD, PAD);
    grid(cr, a);
    clip_to(cr, a);
    for (size_t s = 0; s < ctx->n_series; s++) {
        const struct ic_plot_vseries *sr = &ctx->series[s];
        int col = curve_color(s);
        /* predicted: a line; measured: points with their spread */
        double xs[256], ys[256];
        size_t n = sr->n < 256 ? sr->n : 256;
        for (size_t i = 0; i < n; i++)
            xs[i] = sr->pts[i].x, ys[i] = sr->pts[i].predicted;
        color(cr, col, 0.9);
        cairo_set_line_width(cr, 2);
        polyline(cr, sc, a, xs, ys, n);
        for (size_t i = 0; i < sr->n; i++) {
            const struct ic_plot_vpoint *v = &sr->pts[i];
            if (!(v->measured > 0))
                continue;
            double x = ic_plot_px(a, v->x);
            color(cr, col, 1);
            cairo_set_line_width(cr, 1.4);
            double y0 = ic_plot_py(a, fmax(v->lo, a->ymin)), y1 = ic_plot_py(a, fmax(v->hi, a->ymin));
            cairo_move_to(cr, x, y0);
            cairo_line_to(cr, x, y1);
            cairo_stroke(cr);
            scene_seg(sc, x, y0, x, y1, 3);
            double ym = ic_plot_py(a, v->measured);
            cairo_rectangle(cr, x - 4, ym - 4, 8, 8);
            cairo_fill(cr);
            scene_box(sc, x - 5, ym - 5, x + 5, ym + 5);
        }
        char lab[160];
        snprintf(lab, sizeof lab, "%s: predicted (line), measured (squares, min-max)",
                 sr->label ? sr->label : "");
        legend_add(lg, col, 2, lab);
    }
    cairo_restore(cr);
    frame(cr, a, ctx->x_label, "time per decode step");
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
    struct ic_plot_panel a = panel_at(left, top, width - left - right, avail * 0.68);
    struct ic_plot_panel b = panel_at(left, top + avail * 0.68 + gap, width - left - right,
                                      avail * 0.32);
    b.ylog = false;
    double xhi = 0, rmax = 10;
    for (size_t s = 0; s < n_series; s++)
        for (size_t i = 0; i < series[s].n; i++) {
            const struct ic_plot_vpoint *v = &series[s].pts[i];
            if (v->x > 0 && isfinite(v->x))
                xhi = fmax(xhi, v->x);
            if (v->measured > 0)
                rmax = fmax(rmax, fabs(100 * (v->predicted - v->measured) / v->measured));
        }
    if (!(xhi > 0))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot");
    background(cr, width, height);
    title(cr, width, t, subtitle);
    struct valid_ctx vc = {series, n_series, x_label};
    int rc = run_panel(cr, &a, valid_panel, &vc);
    if (rc)
        return ic_err_set(err, rc, NULL, 0, 0, "out of memory");
    /* the residuals share the x range; symmetric, with room above the largest */
    b.xmin = a.xmin;
    b.xmax = a.xmax;
    b.ymin = -fmin(rmax * 1.15, 100);
    b.ymax = fmin(rmax * 1.15, 100);
    nice_range(&b.ymin, &b.ymax, false);
    grid(cr, &b);
    clip_to(cr, &b);
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
            dot(cr, NULL, ic_plot_px(&b, v->x), ic_plot_py(&b, fmax(fmin(r, b.ymax), b.ymin)), 4,
                true);
        }
    cairo_restore(cr);
    frame(cr, &b, x_label, "error (%), predicted vs measured");
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    return drawn(cr, err);
}

/* ---- line charts ----------------------------------------------------------- */

static bool any_point_labels(const struct ic_plot_lines *l)
{
    return l->point_labels && l->labelled_series < l->n_series;
}

static void lines_panel(cairo_t *cr, struct ic_plot_panel *a, const void *vctx,
                        struct scene *sc, struct legend *lg)
{
    const struct ic_plot_lines *l = vctx;
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    for (size_t s = 0; s < l->n_series; s++)
        for (size_t i = 0; i < l->series[s].n; i++) {
            double x = l->series[s].x[i], y = l->series[s].y[i];
            if ((l->xlog && !(x > 0)) || (l->ylog && !(y > 0)))
                continue; /* not drawn on a log axis */
            grow_any(&xlo, &xhi, x);
            grow_any(&ylo, &yhi, y);
        }
    if (l->vline > 0)
        grow_any(&xlo, &xhi, l->vline);
    if (xhi <= xlo)
        xhi = l->xlog ? xlo * 2 : xlo + 1, xlo = l->xlog ? xlo / 2 : xlo - 1;
    if (yhi <= ylo)
        yhi = l->ylog ? ylo * 2 : ylo + 1, ylo = l->ylog ? ylo / 2 : ylo - 1;
    a->xlog = l->xlog;
    a->ylog = l->ylog;
    a->xtime = l->xtime;
    a->ytime = l->ytime;
    const bool labels = any_point_labels(l);
    fit_panel(a, sc, xlo, xhi, ylo, yhi, PAD, labels ? 44 : PAD, PAD, labels ? 26 : PAD);
    grid(cr, a);
    clip_to(cr, a);
    if (l->nofit_from > 0)
        nofit_shade(cr, lg, a, l->nofit_from <= xlo ? a->x0 : ic_plot_px(a, l->nofit_from),
                    a->x0 + a->w);
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
            polyline(cr, sc, a, v->x, v->y, v->n);
        cairo_set_dash(cr, NULL, 0, 0);
        const double r = points ? 5 : 3.5;
        for (size_t i = 0; i < v->n; i++) {
            if ((a->xlog && !(v->x[i] > 0)) || (a->ylog && !(v->y[i] > 0)) ||
                !isfinite(v->x[i]) || !isfinite(v->y[i]))
                continue;
            double x = ic_plot_px(a, v->x[i]), y = ic_plot_py(a, v->y[i]);
            if (!v->bare) {
                color(cr, c, 1);
                cairo_set_line_width(cr, 2);
                dot(cr, sc, x, y, r, !open);
            }
            if (labels && s == l->labelled_series && l->point_labels[i]) {
                font(cr, 12, false);
                cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
                label_in(cr, sc, x + 7, y - 5, 0, 1, l->point_labels[i]);
            }
        }
        if (v->label) {
            struct legend_item *li = legend_add(lg, c, v->dashed ? 2 : 3, v->label);
            if (li)
                li->dashed = dashed, li->marker = points, li->ring = open;
        }
    }
    if (l->vline > 0) {
        double x = ic_plot_px(a, l->vline);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        marker_line(cr, sc, a, x, 1.2);
        if (l->vline_label) {
            font(cr, 14, false);
            side_text(cr, sc, a, x, a->y0 + 16, a->y0 + a->h - 16, l->vline_label);
        }
    }
    cairo_restore(cr);
    frame(cr, a, l->x_label, l->y_label);
    lg->bottom_right = true;
}

static int check_lines(const struct ic_plot_lines *l, struct ic_err *err)
{
    for (size_t s = 0; s < l->n_series; s++)
        for (size_t i = 0; i < l->series[s].n; i++) {
            double x = l->series[s].x[i], y = l->series[s].y[i];
            if (isfinite(x) && isfinite(y) && (!l->xlog || x > 0) && (!l->ylog || y > 0))
                return IC_OK;
        }
    return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to draw: no point%s",
                      l->xlog || l->ylog ? " with positive coordinates" : "");
}

int ic_plot_figure(cairo_t *cr, double width, double height, const struct ic_plot_figure *f,
                   struct ic_plot_layout *layout, struct ic_err *err)
{
    if (!f || f->n_panels < 1 || f->n_panels > 2)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "a figure has one or two panels");
    int rc;
    for (int i = 0; i < f->n_panels; i++)
        if ((rc = check_lines(&f->panels[i], err)))
            return rc;
    struct ic_plot_panel pn[2];
    if (f->n_panels == 2)
        layout_two(width, height, &pn[0], &pn[1]);
    else
        pn[0] = panel_at(95, 90, width - 95 - 40, height - 90 - 70);
    background(cr, width, height);
    title(cr, width, f->title, f->subtitle);
    for (int i = 0; i < f->n_panels; i++)
        if ((rc = run_panel(cr, &pn[i], lines_panel, &f->panels[i])))
            return ic_err_set(err, rc, NULL, 0, 0, "out of memory");
    if (layout)
        *layout = (struct ic_plot_layout){{pn[0], pn[f->n_panels - 1]}, f->n_panels};
    return drawn(cr, err);
}

int ic_plot_lines(cairo_t *cr, double width, double height, const struct ic_plot_lines *l,
                  struct ic_plot_layout *layout, struct ic_err *err)
{
    const struct ic_plot_figure f = {l->title, l->subtitle, l, 1};
    return ic_plot_figure(cr, width, height, &f, layout, err);
}

/* ---- heatmaps ------------------------------------------------------------- */

/* The value of axis ax at a point (as ic_sweep_values gives it). */
static uint64_t axis_value(const struct ic_point *p, enum ic_axis ax)
{
    switch (ax) {
    case IC_AXIS_BATCH:
        return p->cfg.batch;
    case IC_AXIS_CONTEXT:
        return p->cfg.context;
    case IC_AXIS_CHIPS:
        return p->cfg.chips;
    case IC_AXIS_PRECISION:
        return (uint64_t)p->cfg.weights * IC_DT_COUNT + (uint64_t)p->cfg.kv;
    case IC_AXIS_COUNT:
    default:
        return 0;
    }
}

/* A precision axis value's weights type (kv false) or KV type, by name. */
static const char *prec_type(uint64_t v, bool kv)
{
    return ic_dtype_traits((enum ic_dtype)(kv ? v % IC_DT_COUNT : v / IC_DT_COUNT))->name;
}

static void axis_value_label(char *buf, size_t n, enum ic_axis ax, uint64_t v)
{
    if (ax == IC_AXIS_PRECISION)
        snprintf(buf, n, "%s/%s", prec_type(v, false), prec_type(v, true));
    else if (ax == IC_AXIS_CONTEXT && v >= 2048 && v % 1024 == 0)
        snprintf(buf, n, "%lluk", (unsigned long long)(v / 1024)); /* 8k, 128k: as said */
    else
        tick_label(buf, n, (double)v);
}

static const char *axis_title_of(enum ic_axis ax)
{
    switch (ax) {
    case IC_AXIS_BATCH:
        return "batch (sequences decoded together)";
    case IC_AXIS_CONTEXT:
        return "context (tokens per sequence)";
    case IC_AXIS_CHIPS:
        return "chips (tensor parallel)";
    case IC_AXIS_PRECISION:
        return "weights / KV types";
    case IC_AXIS_COUNT:
    default:
        return "";
    }
}

/* Sorted distinct values of axis ax over the points (at most
 * IC_SWEEP_MAX_VALUES). */
static size_t distinct(const struct ic_point *pts, size_t n, enum ic_axis ax, uint64_t *vals)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v = axis_value(&pts[i], ax);
        size_t j = 0;
        while (j < k && vals[j] < v)
            j++;
        if (j < k && vals[j] == v)
            continue;
        if (k == IC_SWEEP_MAX_VALUES)
            continue;
        memmove(vals + j + 1, vals + j, (k - j) * sizeof *vals);
        vals[j] = v;
        k++;
    }
    return k;
}

static int index_of(const uint64_t *vals, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        if (vals[i] == v)
            return (int)i;
    return -1;
}

/* A colour-blind-safe sequential map (viridis, 5 stops) at f in [0, 1]. */
static void seq_color(cairo_t *cr, double f)
{
    static const double stops[5][3] = {{0.267, 0.005, 0.329}, {0.229, 0.322, 0.546},
                                       {0.128, 0.567, 0.551}, {0.369, 0.789, 0.383},
                                       {0.993, 0.906, 0.144}};
    f = fmin(fmax(f, 0), 1) * 4;
    int i = (int)fmin(floor(f), 3);
    double t = f - i;
    cairo_set_source_rgb(cr, stops[i][0] + t * (stops[i + 1][0] - stops[i][0]),
                         stops[i][1] + t * (stops[i + 1][1] - stops[i][1]),
                         stops[i][2] + t * (stops[i + 1][2] - stops[i][2]));
}

struct heat_ctx {
    const struct ic_plot_heat *h;
    uint64_t xv[IC_SWEEP_MAX_VALUES], yv[IC_SWEEP_MAX_VALUES];
    size_t nx, ny;
    int *cell; /* nx * ny: the point in each cell, -1 where none */
    bool tokens; /* tokens/s per chip, else the step time */
};

static double heat_value(const struct heat_ctx *c, const struct ic_point *p)
{
    double t = solid_step(p);
    return c->tokens ? tokens_chip_at(p, t) : t;
}

static void heat_panel(cairo_t *cr, struct ic_plot_panel *p, const struct heat_ctx *c)
{
    const struct ic_plot_heat *h = c->h;
    /* the colour bar to the right of the cells */
    const double bar = 16, bar_gap = 12, bar_text = 92;
    const double cw = (p->w - bar - bar_gap - bar_text) / (double)c->nx, ch = p->h / (double)c->ny;
    p->xlog = p->ylog = p->xtime = p->ytime = false;
    p->xmin = 0;
    p->xmax = (double)c->nx;
    p->ymin = 0;
    p->ymax = (double)c->ny;
    /* the colour scale spans the cells that fit (all, where none does):
     * a hatched cell past it takes the end colour, and does not stretch
     * the scale of those a reader can deploy */
    double vlo = INFINITY, vhi = 0;
    bool any_fits = false;
    for (size_t i = 0; i < h->n; i++)
        any_fits |= h->pts[i].fits;
    for (size_t i = 0; i < h->n; i++)
        if (h->pts[i].fits || !any_fits)
            grow(&vlo, &vhi, heat_value(c, &h->pts[i]));
    if (!(vhi > 0))
        vlo = 1, vhi = 10;
    if (!(vhi > vlo))
        vhi = vlo * 2;
    double llo = log10(vlo), lhi = log10(vhi);
    const double gx = p->x0, gy = p->y0;
    font(cr, 11, false);
    for (size_t j = 0; j < c->ny; j++)
        for (size_t i = 0; i < c->nx; i++) {
            int k = c->cell[j * c->nx + i];
            double x = gx + cw * (double)i, y = gy + p->h - ch * (double)(j + 1);
            if (k < 0) {
                cairo_set_source_rgb(cr, 0.97, 0.97, 0.97);
                cairo_rectangle(cr, x, y, cw, ch);
                cairo_fill(cr);
                continue;
            }
            const struct ic_point *pt = &h->pts[k];
            double v = heat_value(c, pt);
            seq_color(cr, v > 0 ? (log10(v) - llo) / (lhi - llo) : 0);
            cairo_rectangle(cr, x, y, cw, ch);
            cairo_fill(cr);
            if (!pt->fits) { /* hatched: a veil and diagonal strokes */
                cairo_save(cr);
                cairo_rectangle(cr, x, y, cw, ch);
                cairo_clip(cr);
                cairo_set_source_rgba(cr, 1, 1, 1, 0.45);
                cairo_paint(cr);
                cairo_set_source_rgba(cr, 0.25, 0.25, 0.25, 0.6);
                cairo_set_line_width(cr, 1);
                for (double d = -ch; d < cw; d += 7) {
                    cairo_move_to(cr, x + d, y + ch);
                    cairo_line_to(cr, x + d + ch, y);
                }
                cairo_stroke(cr);
                cairo_restore(cr);
            }
            /* the value where the cell has room for it */
            char buf[32];
            if (c->tokens && v < 100)
                snprintf(buf, sizeof buf, "%.2g", v); /* 0.07, 4.2, 12 */
            else if (c->tokens)
                tick_label(buf, sizeof buf, round(v));
            else
                ic_plot_time_tick(buf, sizeof buf, v, 0, 0);
            if (text_width(cr, buf) + 4 < cw && ch >= 14) {
                double f = v > 0 ? (log10(v) - llo) / (lhi - llo) : 0;
                if (f > 0.6 || !pt->fits)
                    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
                else
                    cairo_set_source_rgb(cr, 1, 1, 1);
                /* with room, what bounds the step beneath the value */
                const char *bn = ic_bound_name(pt->bound);
                font(cr, 10, false);
                bool two = ch >= 34 && text_width(cr, bn) + 4 < cw;
                if (two)
                    text(cr, x + cw / 2, y + ch / 2 + 8, 0.5, 0.5, bn);
                font(cr, 11, false);
                text(cr, x + cw / 2, y + ch / 2 - (two ? 7 : 0), 0.5, 0.5, buf);
            }
        }
    /* edges: between a fitting cell and one that does not (thick, black),
     * between cells bound by different terms (dashed, white over black) */
    for (int pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < c->ny; j++)
            for (size_t i = 0; i < c->nx; i++) {
                int k = c->cell[j * c->nx + i];
                if (k < 0)
                    continue;
                for (int dir = 0; dir < 2; dir++) { /* right neighbour, upper neighbour */
                    size_t i2 = i + (dir == 0), j2 = j + (dir == 1);
                    if (i2 >= c->nx || j2 >= c->ny)
                        continue;
                    int k2 = c->cell[j2 * c->nx + i2];
                    if (k2 < 0)
                        continue;
                    const struct ic_point *a = &h->pts[k], *b = &h->pts[k2];
                    bool fitedge = a->fits != b->fits, boundedge = a->bound != b->bound;
                    if (pass == 0 ? !boundedge : !fitedge)
                        continue;
                    double x0 = gx + cw * (double)(i + 1), y0 = gy + p->h - ch * (double)(j + 1);
                    double x1 = x0, y1 = y0 + ch;
                    if (dir == 1) {
                        x0 = gx + cw * (double)i;
                        x1 = x0 + cw;
                        y1 = y0;
                    }
                    if (pass == 0) {
                        cairo_set_source_rgb(cr, 0.05, 0.05, 0.05);
                        cairo_set_line_width(cr, 3);
                        cairo_move_to(cr, x0, y0);
                        cairo_line_to(cr, x1, y1);
                        cairo_stroke(cr);
                        double d[] = {5, 4};
                        cairo_set_dash(cr, d, 2, 0);
                        cairo_set_source_rgb(cr, 1, 1, 1);
                        cairo_set_line_width(cr, 1.6);
                    } else {
                        color(cr, 1, 1);
                        cairo_set_line_width(cr, 4);
                    }
                    cairo_move_to(cr, x0, y0);
                    cairo_line_to(cr, x1, y1);
                    cairo_stroke(cr);
                    cairo_set_dash(cr, NULL, 0, 0);
                }
            }
    /* ticks: one label per cell, thinned to fit */
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    font(cr, 12, false);
    double wx = 0;
    for (size_t i = 0; i < c->nx; i++) {
        char buf[32];
        axis_value_label(buf, sizeof buf, h->axes[0], c->xv[i]);
        wx = fmax(wx, text_width(cr, buf) + 8);
    }
    size_t sx = (size_t)ceil(wx / cw), sy = (size_t)ceil(16 / ch);
    /* weights / KV pairs too wide for their cells: weights over KV, two
     * lines, every column named (they were thinned to every other) */
    bool stacked = false;
    if (h->axes[0] == IC_AXIS_PRECISION && sx > 1) {
        double w2 = 0;
        for (size_t i = 0; i < c->nx; i++)
            for (int kv = 0; kv < 2; kv++)
                w2 = fmax(w2, text_width(cr, prec_type(c->xv[i], kv)));
        stacked = w2 + 6 <= cw;
    }
    for (size_t i = 0; i < c->nx; i += stacked ? 1 : sx ? sx : 1) {
        char buf[32];
        const double x = gx + cw * ((double)i + 0.5);
        if (stacked) {
            text(cr, x, gy + p->h + 8, 0.5, 0, prec_type(c->xv[i], false));
            text(cr, x, gy + p->h + 22, 0.5, 0, prec_type(c->xv[i], true));
            continue;
        }
        axis_value_label(buf, sizeof buf, h->axes[0], c->xv[i]);
        text(cr, x, gy + p->h + 8, 0.5, 0, buf);
    }
    double wy = 0;
    for (size_t j = 0; j < c->ny; j += sy ? sy : 1) {
        char buf[32];
        axis_value_label(buf, sizeof buf, h->axes[1], c->yv[j]);
        wy = fmax(wy, text_width(cr, buf));
        text(cr, gx - 6, gy + p->h - ch * ((double)j + 0.5), 1, 0.5, buf);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1.2);
    cairo_rectangle(cr, gx, gy, cw * (double)c->nx, p->h);
    cairo_stroke(cr);
    font(cr, 15, false);
    text(cr, gx + cw * (double)c->nx / 2, gy + p->h + (stacked ? 42 : 34), 0.5, 0,
         stacked ? "weights type over KV type" : axis_title_of(h->axes[0]));
    cairo_save(cr);
    cairo_translate(cr, gx - fmax(40, wy + 22), gy + p->h / 2);
    cairo_rotate(cr, -PI / 2);
    text(cr, 0, 0, 0.5, 0.5, axis_title_of(h->axes[1]));
    cairo_restore(cr);
    /* the colour bar, log scale, labelled at its ends and decades */
    double bx = gx + cw * (double)c->nx + bar_gap;
    for (int k = 0; k < 100; k++) {
        seq_color(cr, (k + 0.5) / 100);
        cairo_rectangle(cr, bx, gy + p->h - p->h * (k + 1) / 100.0, bar, p->h / 100.0 + 0.5);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    font(cr, 12, false);
    double marks[12];
    int nm = 0;
    marks[nm++] = vlo;
    for (double d = pow(10, ceil(llo)); d < vhi && nm < 11; d *= 10)
        if (fabs(log10(d) - llo) > 0.08 * (lhi - llo) && fabs(lhi - log10(d)) > 0.08 * (lhi - llo))
            marks[nm++] = d;
    marks[nm++] = vhi;
    for (int k = 0; k < nm; k++) {
        char buf[32];
        if (c->tokens && marks[k] < 100)
            snprintf(buf, sizeof buf, "%.2g", marks[k]);
        else if (c->tokens)
            tick_label(buf, sizeof buf, (double)(long long)llround(marks[k]));
        else
            ic_plot_time_tick(buf, sizeof buf, marks[k], 0, 0);
        double y = gy + p->h - p->h * (log10(marks[k]) - llo) / (lhi - llo);
        text(cr, bx + bar + 4, y, 0, 0.5, buf);
    }
    font(cr, 14, false);
    cairo_save(cr);
    cairo_translate(cr, bx + bar + bar_text - 8, gy + p->h / 2);
    cairo_rotate(cr, -PI / 2);
    text(cr, 0, 0, 0.5, 0.5, c->tokens ? "tokens/s per chip" : "time per decode step");
    cairo_restore(cr);
}

int ic_plot_heatmap(cairo_t *cr, double width, double height, const struct ic_plot_heat *h,
                    struct ic_plot_layout *layout, struct ic_err *err)
{
    if (!h || !h->n || !h->pts)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "nothing to plot");
    if (h->axes[0] == h->axes[1] || h->axes[0] >= IC_AXIS_COUNT || h->axes[1] >= IC_AXIS_COUNT)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "a heatmap needs two different axes");
    struct heat_ctx *c = calloc(2, sizeof *c);
    int *cell = NULL;
    if (!c)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    c->h = h;
    c->nx = distinct(h->pts, h->n, h->axes[0], c->xv);
    c->ny = distinct(h->pts, h->n, h->axes[1], c->yv);
    cell = malloc(c->nx * c->ny * sizeof *cell);
    if (!cell) {
        free(c);
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < c->nx * c->ny; i++)
        cell[i] = -1;
    for (size_t k = 0; k < h->n; k++) {
        int i = index_of(c->xv, c->nx, axis_value(&h->pts[k], h->axes[0]));
        int j = index_of(c->yv, c->ny, axis_value(&h->pts[k], h->axes[1]));
        if (i >= 0 && j >= 0)
            cell[(size_t)j * c->nx + (size_t)i] = (int)k;
    }
    c->cell = cell;
    c[1] = c[0];
    c[1].tokens = true;
    background(cr, width, height);
    title(cr, width, h->title, h->subtitle);
    /* the legend in rows above both panels: what the edges mean */
    struct legend lg = {.size = width < 1000 ? 11 : 13};
    struct legend_item *li = legend_add(&lg, 1, 4,
                                        "edge of what fits in memory (beyond it: hatched)");
    li = legend_add(&lg, 7, 1.6, "the bound changes (weights, KV, compute, collectives or fixed)");
    if (li)
        li->dashed = true;
    struct ic_plot_panel a, b;
    layout_two(width, height, &a, &b);
    double rh = legend_rows(cr, &lg, a.x0, a.y0 - 6, b.x0 + b.w - a.x0, false);
    a.y0 += rh + 4, a.h -= rh + 4;
    b.y0 += rh + 4, b.h -= rh + 4;
    heat_panel(cr, &a, &c[0]);
    heat_panel(cr, &b, &c[1]);
    legend_rows(cr, &lg, a.x0, a.y0 - rh - 10, b.x0 + b.w - a.x0, true);
    a.lx = a.x0, a.ly = a.y0 - rh - 10, a.lw = b.x0 + b.w - a.x0, a.lh = rh;
    a.legend_outside = true;
    free(cell);
    free(c);
    if (layout)
        *layout = (struct ic_plot_layout){{a, b}, 2};
    return drawn(cr, err);
}

/* the name's ending, in either case (chart.PNG is a PNG) */
static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
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

/* Runs draw on a picture of width x height pixels laid out as one of at
 * least 800 x 500 and at most 1600 x 1000: past 1600 x 1000 drawn at that
 * scale and enlarged, text and lines with it (at 10000 x 10000 a 13-pixel
 * font was 0.1% of the height); below 800 x 500 drawn as that and
 * shrunk, a thumbnail (at 320 x 240 the fonts and legends, which do not
 * shrink with the picture, covered the plots and each other). */
static int draw_scaled(cairo_t *cr, int width, int height, draw_fn draw, const void *what,
                       struct ic_err *err)
{
    const double up = fmin((double)width / 1600.0, (double)height / 1000.0);
    const double down = fmin((double)width / 800.0, (double)height / 500.0);
    const double k = up > 1 ? up : down < 1 ? down : 1;
    if (k == 1)
        return draw(cr, width, height, what, err);
    cairo_scale(cr, k, k);
    return draw(cr, (int)lround(width / k), (int)lround(height / k), what, err);
}

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
    /* --plot-size is in pixels: an SVG says px (cairo's default, pt, drew
     * 1600 x 1000 a third larger in a browser) */
    if (svg)
        cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
    cairo_t *cr = cairo_create(s);
    rc = draw_scaled(cr, width, height, draw, what, err);
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

static int draw_chips(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_chips(cr, w, h, what, NULL, err);
}

static int draw_lines(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_lines(cr, w, h, what, NULL, err);
}

static int draw_figure(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_figure(cr, w, h, what, NULL, err);
}

static int draw_heat(cairo_t *cr, int w, int h, const void *what, struct ic_err *err)
{
    return ic_plot_heatmap(cr, w, h, what, NULL, err);
}

int ic_plot_figure_write(const char *path, int width, int height, const struct ic_plot_figure *f,
                         struct ic_err *err)
{
    return write_surface(path, width, height, draw_figure, f, err);
}

int ic_plot_heatmap_write(const char *path, int width, int height, const struct ic_plot_heat *h,
                          struct ic_err *err)
{
    return write_surface(path, width, height, draw_heat, h, err);
}

int ic_plot_write(const char *path, enum ic_plot_kind kind, int width, int height,
                  const struct ic_plot_set *set, struct ic_err *err)
{
    return write_surface(path, width, height,
                         kind == IC_PLOT_CONTEXT ? draw_context
                         : kind == IC_PLOT_CHIPS ? draw_chips
                                                 : draw_decode,
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
    int rc = draw_scaled(cr, width, height,
                         kind == IC_PLOT_CONTEXT ? draw_context
                         : kind == IC_PLOT_CHIPS ? draw_chips
                                                 : draw_decode,
                         set, err);
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
