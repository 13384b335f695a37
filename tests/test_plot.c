/* Pictures: rendered into in-memory surfaces, then probed. Fonts differ
 * between machines, so no golden bytes: cairo status and size, a few pixels
 * where the figure must have a colour (the gray out-of-memory band at a batch
 * that does not fit, no band where it fits, a curve crossing the plot area,
 * a point where the Pareto panel puts it), and non-empty PNG, SVG and PDF
 * files. The geometry is checked with arithmetic of its own: the last
 * point and its marker inside the frame, the legend's box clear of every
 * polyline (sampled every half pixel), the frontier of a hand-made set, the
 * time unit an axis reads in, the expected step solid and the ideal dashed
 * (pixels along each line), the chips chart's line at the largest useful
 * size (in memory and in the PNG the command line writes, its x worked out
 * by hand from the layout). */
#include "ic_plot.h"
#include "ic_sweep.h"
#include "ic_test.h"
#include "ic_test_cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { W = 1600, H = 1000 };

struct rgb {
    double r, g, b;
};

static struct rgb pixel(cairo_surface_t *s, double x, double y)
{
    cairo_surface_flush(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    int xi = (int)lround(x), yi = (int)lround(y);
    ck_assert(xi >= 0 && xi < cairo_image_surface_get_width(s) && yi >= 0 &&
              yi < cairo_image_surface_get_height(s));
    uint32_t v = *(uint32_t *)(void *)(d + (size_t)yi * (size_t)stride + (size_t)xi * 4);
    return (struct rgb){((v >> 16) & 255) / 255.0, ((v >> 8) & 255) / 255.0, (v & 255) / 255.0};
}

static bool near(struct rgb a, double r, double g, double b, double tol)
{
    return fabs(a.r - r) < tol && fabs(a.g - g) < tol && fabs(a.b - b) < tol;
}

/* Does a pixel of colour (r,g,b) appear in the rectangle? */
static bool has_colour(cairo_surface_t *s, const struct ic_plot_panel *p, double r, double g,
                       double b, double tol)
{
    for (double y = p->y0 + 2; y < p->y0 + p->h - 2; y += 1)
        for (double x = p->x0 + 2; x < p->x0 + p->w - 2; x += 1)
            if (near(pixel(s, x, y), r, g, b, tol))
                return true;
    return false;
}

static struct ic_point pts[IC_SWEEP_MAX_POINTS];

/* The llama3-70b / 16 x v5e / bf16 batch sweep of the main example. */
/* A decode set drawn at W x H with ic_plot_decode: the picture (its cairo
 * context checked and done with), its layout in *lay. */
static cairo_surface_t *draw_decode(const struct ic_plot_set *set, struct ic_plot_layout *lay)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_decode(cr, W, H, set, lay, &e), 0);
    ck_assert_int_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    cairo_destroy(cr);
    return s;
}

static size_t main_sweep(struct ic_point *out, uint64_t chips, enum ic_dtype w)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "v5e");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = chips;
    c.weights = c.kv = w;
    enum ic_axis ax = IC_AXIS_BATCH;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sweep_run(&t->st, &t->h, &c, &ax, 1, out, &n, &e), 0);
    free(t);
    return n;
}

START_TEST(test_decode_figure)
{
    size_t n = main_sweep(pts, 16, IC_DT_BF16);
    struct ic_plot_curve cv = {"16 chips", pts, n};
    struct ic_plot_set set = {"llama3-70b on 16 x tpu-v5e", "bf16", &cv, 1, NULL};
    struct ic_plot_layout lay;
    cairo_surface_t *s = draw_decode(&set, &lay);
    ck_assert_int_eq(cairo_image_surface_get_width(s), W);
    ck_assert_int_eq(lay.n_panels, 2);
    const struct ic_plot_panel *left = &lay.panel[0], *right = &lay.panel[1];
    /* 166 fits, 200 does not (and is below B_crit = 240, so no green):
     * the out-of-memory band is gray there, and absent at batch 12 */
    ck_assert_uint_eq(pts[0].max_batch, 166);
    double y = left->y0 + left->h * 0.55;
    struct rgb oom = pixel(s, ic_plot_px(left, 200), y);
    ck_assert_msg(fabs(oom.r - oom.g) < 0.03 && fabs(oom.g - oom.b) < 0.03 && oom.r < 0.85,
                  "not gray at batch 200: %.2f %.2f %.2f", oom.r, oom.g, oom.b);
    struct rgb ok = pixel(s, ic_plot_px(left, 12), y);
    ck_assert_msg(ok.r > 0.85 && ok.g > 0.85 && ok.b > 0.85, "band at batch 12");
    /* the step-time curve (black) crosses the column at batch 8 */
    double x8 = ic_plot_px(left, 8);
    bool black = false;
    for (double yy = left->y0; yy < left->y0 + left->h; yy++)
        black |= near(pixel(s, x8, yy), 0, 0, 0, 0.15);
    ck_assert(black);
    /* it passes through the point the model gives at batch 8 */
    double ys = ic_plot_py(left, pts[3].step_s);
    ck_assert_uint_eq(pts[3].cfg.batch, 8);
    ck_assert(near(pixel(s, x8, ys), 0, 0, 0, 0.25));
    /* the Pareto panel has the batch-1 point in the palette's blue */
    struct rgb b1 = pixel(s, ic_plot_px(right, pts[0].latency_s),
                          ic_plot_py(right, pts[0].tokens_s_chip));
    ck_assert_msg(near(b1, 0.0, 0.447, 0.698, 0.08), "batch 1 point: %.2f %.2f %.2f", b1.r, b1.g,
                  b1.b);
    cairo_surface_destroy(s);
}
END_TEST

/* Eight curves: the eighth repeats the first's colour (the palette's
 * seven), so it carries open squares at its points. The corner of the
 * square at its batch-1 point (4 px right and below, off its flat line)
 * is drawn in the palette's blue; the same spot beside the first curve's
 * batch-1 point, a plain line, is not. */
static struct ic_point pts8[8][IC_SWEEP_MAX_POINTS];

START_TEST(test_eighth_curve_marked)
{
    struct ic_plot_curve cv[8];
    for (int i = 0; i < 8; i++) {
        size_t n = main_sweep(pts8[i], i == 7 ? 64 : 16, i == 7 ? IC_DT_INT8 : IC_DT_BF16);
        cv[i] = (struct ic_plot_curve){i == 7 ? "64 chips int8" : "16 chips", pts8[i], n};
    }
    struct ic_plot_set set = {"llama3-70b on tpu-v5e", "eight", cv, 8, NULL};
    struct ic_plot_layout lay;
    cairo_surface_t *s = draw_decode(&set, &lay);
    const struct ic_plot_panel *left = &lay.panel[0];
    const double x1 = ic_plot_px(left, 1);
    /* the blue within a pixel of the corner (antialiased edges blend it) */
    bool at7 = false, at0 = false;
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++) {
            at7 |= near(pixel(s, x1 + 4 + dx, ic_plot_py(left, pts8[7][0].step_s) + 4 + dy),
                        0.0, 0.447, 0.698, 0.12);
            at0 |= near(pixel(s, x1 + 4 + dx, ic_plot_py(left, pts8[0][0].step_s) + 4 + dy),
                        0.0, 0.447, 0.698, 0.12);
        }
    ck_assert_msg(at7, "the eighth curve's square");
    ck_assert_msg(!at0, "no mark on the first curve");
    cairo_surface_destroy(s);
}
END_TEST

/* Two curves five decades apart: both drawn whole. The step axis of
 * several curves reaches the lowest step (it stopped 4 decades under the
 * top, a floor meant for one curve's terms, and the lower curve entered
 * from below the axis). */
static struct ic_point low_pts[IC_SWEEP_MAX_POINTS];

START_TEST(test_step_axis_holds_every_curve)
{
    size_t n = main_sweep(pts, 16, IC_DT_BF16);
    double lowest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        low_pts[i] = pts[i];
        low_pts[i].step_s /= 1e5;
        low_pts[i].other_step_s /= 1e5;
        if (low_pts[i].step_s > 0)
            lowest = fmin(lowest, low_pts[i].step_s);
        if (low_pts[i].other_step_s > 0)
            lowest = fmin(lowest, low_pts[i].other_step_s);
    }
    struct ic_plot_curve cv[2] = {{"top", pts, n}, {"five decades down", low_pts, n}};
    struct ic_plot_set set = {"two", NULL, cv, 2, NULL};
    struct ic_plot_layout lay;
    cairo_surface_t *s = draw_decode(&set, &lay);
    ck_assert_msg(lay.panel[0].ymin <= lowest, "axis from %g, lowest step %g",
                  lay.panel[0].ymin, lowest);
    cairo_surface_destroy(s);
}
END_TEST

START_TEST(test_overlay_figure)
{
    /* four chip counts: four curve colours and a black envelope */
    static struct ic_point all[4][IC_SWEEP_MAX_VALUES];
    struct ic_plot_curve cv[4];
    static const char *const labels[4] = {"4 chips", "8 chips", "16 chips", "32 chips"};
    for (int i = 0; i < 4; i++) {
        size_t n = main_sweep(pts, UINT64_C(4) << i, IC_DT_INT8);
        ck_assert_uint_le(n, IC_SWEEP_MAX_VALUES);
        memcpy(all[i], pts, n * sizeof pts[0]);
        cv[i] = (struct ic_plot_curve){labels[i], all[i], n};
    }
    struct ic_plot_set set = {"overlay", NULL, cv, 4, NULL};
    struct ic_plot_layout lay;
    cairo_surface_t *s = draw_decode(&set, &lay);
    static const double col[4][3] = {{0.0, 0.447, 0.698}, {0.835, 0.369, 0.0},
                                     {0.0, 0.620, 0.451}, {0.800, 0.475, 0.655}};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(has_colour(s, &lay.panel[0], col[i][0], col[i][1], col[i][2], 0.05),
                      "curve %d missing", i);
    ck_assert(has_colour(s, &lay.panel[1], 0, 0, 0, 0.2)); /* the envelope */
    cairo_surface_destroy(s);
}
END_TEST

START_TEST(test_context_and_validation_figures)
{
    struct ic_test_pair *t = ic_test_pair("qwen2.5-72b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 8;
    c.batch = 16;
    enum ic_axis ax = IC_AXIS_CONTEXT;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sweep_run(&t->st, &t->h, &c, &ax, 1, pts, &n, &e), 0);
    struct ic_plot_curve cv = {"", pts, n};
    struct ic_plot_set set = {"context", NULL, &cv, 1, NULL};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    ck_assert_int_eq(ic_plot_context(cr, W, H, &set, &lay, &e), 0);
    /* the KV read (vermillion) is drawn */
    ck_assert(has_colour(s, &lay.panel[0], 0.835, 0.369, 0.0, 0.05));
    cairo_destroy(cr);

    /* validation: a residual of +20% sits at 20 on the residual axis */
    struct ic_plot_vpoint v[3] = {{1, 1e-3, 0.9e-3, 1.1e-3, 1.2e-3},
                                  {2, 2e-3, 1.9e-3, 2.2e-3, 2e-3},
                                  {4, 4e-3, 3.8e-3, 4.1e-3, 3.6e-3}};
    struct ic_plot_vseries vs = {"fp32", v, 3};
    cr = cairo_create(s);
    ck_assert_int_eq(ic_plot_validation(cr, W, H, "validation", NULL, "batch", &vs, 1, &lay, &e),
                     0);
    ck_assert_int_eq(lay.n_panels, 2);
    struct rgb r = pixel(s, ic_plot_px(&lay.panel[1], 1), ic_plot_py(&lay.panel[1], 20));
    ck_assert_msg(near(r, 0.0, 0.447, 0.698, 0.08), "residual point: %.2f %.2f %.2f", r.r, r.g,
                  r.b);
    struct rgb mpt = pixel(s, ic_plot_px(&lay.panel[0], 4), ic_plot_py(&lay.panel[0], 4e-3));
    ck_assert(near(mpt, 0.0, 0.447, 0.698, 0.08));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    free(t);
}
END_TEST

START_TEST(test_files)
{
    size_t n = main_sweep(pts, 16, IC_DT_BF16);
    struct ic_plot_curve cv = {"", pts, n};
    struct ic_plot_set set = {"files", NULL, &cv, 1, NULL};
    static const char *const ext[] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3; i++) {
        char path[64];
        snprintf(path, sizeof path, "test_plot_out.%s", ext[i]);
        struct ic_err e = {0};
        ck_assert_int_eq(ic_plot_write(path, IC_PLOT_DECODE, 800, 500, &set, &e), 0);
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_gt(st.st_size, 1000);
        if (i == 1) { /* the size asked, in pixels (cairo's default unit is pt) */
            FILE *f = fopen(path, "r");
            ck_assert_ptr_nonnull(f);
            char head[400];
            size_t k = fread(head, 1, sizeof head - 1, f);
            head[k] = '\0';
            fclose(f);
            ck_assert_msg(strstr(head, "width=\"800px\" height=\"500px\""), "%s", head);
        }
        unlink(path);
    }
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_write("x.gif", IC_PLOT_DECODE, 800, 500, &set, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, ".png, .svg or .pdf"));
    ck_assert_int_eq(ic_plot_write("/nonexistent-dir/x.png", IC_PLOT_DECODE, 800, 500, &set, &e),
                     IC_EIO);
    struct ic_plot_set empty = {"", NULL, NULL, 0, NULL};
    ck_assert_int_eq(ic_plot_write("x.png", IC_PLOT_DECODE, 800, 500, &empty, &e), IC_EINVAL);
    /* past 1600 x 1000 the same drawing enlarged, text and lines with it:
     * at 3200 x 2000, pixel (2x + 0.5, 2y + 0.5) is pixel (x, y) of the
     * 1600 x 1000 picture, over a grid of the picture, to antialiasing
     * (before: the axes alone scaled, the text and lines stayed 1600 x
     * 1000's size) */
    ck_assert_int_eq(ic_plot_write("test_plot_1x.png", IC_PLOT_DECODE, 1600, 1000, &set, &e), 0);
    ck_assert_int_eq(ic_plot_write("test_plot_2x.png", IC_PLOT_DECODE, 3200, 2000, &set, &e), 0);
    cairo_surface_t *a = cairo_image_surface_create_from_png("test_plot_1x.png");
    cairo_surface_t *b = cairo_image_surface_create_from_png("test_plot_2x.png");
    ck_assert_int_eq(cairo_image_surface_get_width(b), 3200);
    /* over the samples that fall on ink (text, lines, points: dark in the
     * small picture), where a drawing not enlarged misses */
    int same = 0, dark = 0;
    for (int y = 3; y < 1000; y += 3)
        for (int x = 3; x < 1600; x += 3) {
            struct rgb p1 = pixel(a, x, y);
            if (p1.r + p1.g + p1.b >= 1.2)
                continue;
            struct rgb p2 = pixel(b, 2 * x + 0.5, 2 * y + 0.5);
            dark++;
            same += p2.r + p2.g + p2.b < 2.0; /* inked there too */
        }
    ck_assert_int_gt(dark, 200);
    /* about 60% do (glyphs hinted at their size move by a pixel, and a
     * one-pixel edge straddles); a drawing not enlarged, under 1% */
    ck_assert_msg(same > dark * 45 / 100, "%d of %d inked pixels inked", same, dark);
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    unlink("test_plot_1x.png");
    unlink("test_plot_2x.png");
    /* below 800 x 500 the same drawing shrunk, a thumbnail: at 400 x 250,
     * pixel (x / 2, y / 2) (x, y even) holds pixels (x, y) .. (x + 1, y + 1) of the
     * 800 x 500 picture, so where those are ink it is not paper (before:
     * drawn at 400 x 250 with fonts and legends that do not shrink, which
     * covered the plots) */
    ck_assert_int_eq(ic_plot_write("test_plot_1x.png", IC_PLOT_DECODE, 800, 500, &set, &e), 0);
    ck_assert_int_eq(ic_plot_write("test_plot_half.png", IC_PLOT_DECODE, 400, 250, &set, &e), 0);
    a = cairo_image_surface_create_from_png("test_plot_1x.png");
    b = cairo_image_surface_create_from_png("test_plot_half.png");
    ck_assert_int_eq(cairo_image_surface_get_width(b), 400);
    ck_assert_int_eq(cairo_image_surface_get_height(b), 250);
    same = dark = 0;
    for (int y = 2; y < 498; y += 2)
        for (int x = 2; x < 798; x += 2) {
            struct rgb p1 = pixel(a, x, y);
            if (p1.r + p1.g + p1.b >= 1.2)
                continue;
            struct rgb p2 = pixel(b, x / 2, y / 2);
            dark++;
            same += p2.r + p2.g + p2.b < 2.7; /* not paper */
        }
    ck_assert_int_gt(dark, 200);
    /* about 85% are (a hairline's half-covered pixel can read as paper); a
     * drawing not shrunk, 17% */
    ck_assert_msg(same > dark * 60 / 100, "%d of %d inked pixels inked", same, dark);
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    unlink("test_plot_1x.png");
    unlink("test_plot_half.png");
}
END_TEST

/* ---- geometry, checked with arithmetic of the test's own ----------------- */

/* Device x (y) of a value on a log or linear axis, written out again:
 * f = (log v - log lo) / (log hi - log lo), x = x0 + f w; y = y0 + h - f h. */
static double dev_x(const struct ic_plot_panel *p, double v)
{
    double f = p->xlog ? log(v / p->xmin) / log(p->xmax / p->xmin)
                       : (v - p->xmin) / (p->xmax - p->xmin);
    return p->x0 + f * p->w;
}

static double dev_y(const struct ic_plot_panel *p, double v)
{
    double f = p->ylog ? log(v / p->ymin) / log(p->ymax / p->ymin)
                       : (v - p->ymin) / (p->ymax - p->ymin);
    return p->y0 + p->h - f * p->h;
}

/* Does the polyline through (xs, ys) (data units) come within margin of
 * the legend's box? Sampled every half device unit along each segment. */
static bool polyline_hits_legend(const struct ic_plot_panel *p, const double *xs,
                                 const double *ys, size_t n, double margin)
{
    double lx0 = p->lx - margin, lx1 = p->lx + p->lw + margin;
    double ly0 = p->ly - margin, ly1 = p->ly + p->lh + margin;
    for (size_t i = 0; i + 1 < n; i++) {
        double ax = dev_x(p, xs[i]), ay = dev_y(p, ys[i]);
        double bx = dev_x(p, xs[i + 1]), by = dev_y(p, ys[i + 1]);
        double len = hypot(bx - ax, by - ay);
        int steps = (int)ceil(len * 2) + 1;
        for (int k = 0; k <= steps; k++) {
            double t = (double)k / steps, x = ax + t * (bx - ax), y = ay + t * (by - ay);
            if (x >= lx0 && x <= lx1 && y >= ly0 && y <= ly1)
                return true;
        }
    }
    return false;
}

START_TEST(test_frontier)
{
    /* a hand-made set: (latency, throughput)
     *  0 (1, 10)  on it: nothing is as fast
     *  1 (1, 5)   dominated by 0 (same latency, less throughput)
     *  2 (2, 20)  on it
     *  3 (3, 20)  dominated by 2 (slower, same throughput)
     *  4 (3, 30)  on it
     *  5 (4, 25)  dominated by 4
     *  6 (0, 100) left out: latency not positive
     *  7 (5, NaN) left out
     *  8 (6, 40)  on it */
    const double lat[] = {1, 1, 2, 3, 3, 4, 0, 5, 6};
    const double thr[] = {10, 5, 20, 20, 30, 25, 100, NAN, 40};
    size_t idx[9];
    size_t k = ic_plot_frontier(lat, thr, 9, idx);
    ck_assert_uint_eq(k, 4);
    ck_assert_uint_eq(idx[0], 0);
    ck_assert_uint_eq(idx[1], 2);
    ck_assert_uint_eq(idx[2], 4);
    ck_assert_uint_eq(idx[3], 8);
    /* the naive definition agrees point by point: i is on the frontier iff
     * no valid j has lat_j <= lat_i and thr_j >= thr_i with one strict */
    for (size_t i = 0; i < 9; i++) {
        bool valid = lat[i] > 0 && isfinite(thr[i]), dominated = false;
        for (size_t j = 0; j < 9 && valid; j++)
            if (j != i && lat[j] > 0 && isfinite(thr[j]) && lat[j] <= lat[i] &&
                thr[j] >= thr[i] && (lat[j] < lat[i] || thr[j] > thr[i]))
                dominated = true;
        bool on = false;
        for (size_t q = 0; q < k; q++)
            on |= idx[q] == i;
        ck_assert_msg(on == (valid && !dominated), "point %zu", i);
    }
}
END_TEST

START_TEST(test_time_units)
{
    double scale = 0;
    char buf[32];
    /* [0.5 ms, 100 ms]: in s the bottom reads 0.0005 (< 0.01); in ms
     * 0.5 .. 100, so ms, and the tick at 0.0005 s reads 0.5 */
    ck_assert_str_eq(ic_plot_time_unit(0.0005, 0.1, &scale), "ms");
    ck_assert_double_eq_tol(scale, 1e-3, 1e-15);
    ic_plot_time_tick(buf, sizeof buf, 0.0005, 0.0005, 0.1);
    ck_assert_str_eq(buf, "0.5");
    /* [2 us, 500 us]: ms would read 0.002 at the bottom; us reads 2 .. 500 */
    ck_assert_str_eq(ic_plot_time_unit(2e-6, 5e-4, NULL), "us");
    /* [50 ms, 2 s]: s reads 0.05 .. 2 */
    ck_assert_str_eq(ic_plot_time_unit(0.05, 2, NULL), "s");
    /* [5 ms, 50 s]: s reads 0.005 at the bottom, ms 50000 at the top: no
     * one unit; each tick carries its own, reading 1 to 999 */
    ck_assert_ptr_null(ic_plot_time_unit(0.005, 50, NULL));
    ic_plot_time_tick(buf, sizeof buf, 0.0005, 0.005, 50);
    ck_assert_str_eq(buf, "500 us");
    ic_plot_time_tick(buf, sizeof buf, 0.02, 0.005, 50);
    ck_assert_str_eq(buf, "20 ms");
    ic_plot_time_tick(buf, sizeof buf, 10, 0.005, 50);
    ck_assert_str_eq(buf, "10 s");
}
END_TEST

/* The last point of a line chart and its marker (radius 3.5, ring line 2)
 * sit inside the frame, with room for its label up and to the right. */
START_TEST(test_edge_points_inside)
{
    const double xs[] = {1, 10, 100}, ys[] = {0.001, 0.01, 0.1};
    const char *const labels[] = {"a", "b", "last"};
    const struct ic_plot_series ser[] = {{"s", xs, ys, 3, false, false}};
    const struct ic_plot_lines L = {.title = "t", .x_label = "x", .y_label = "y", .xlog = true,
                                    .ylog = true, .ytime = true, .series = ser, .n_series = 1,
                                    .point_labels = labels, .labelled_series = 0};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 800, 500);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_lines(cr, 800, 500, &L, &lay, &e), 0);
    const struct ic_plot_panel *p = &lay.panel[0];
    /* the ranges hold the data: 100 and 0.1 strictly inside */
    ck_assert(p->xmax > 100 && p->ymax > 0.1);
    double x = dev_x(p, 100), y = dev_y(p, 0.1);
    /* marker: 3.5 + 1 of its line from the frame's right and top edges */
    ck_assert_msg(p->x0 + p->w - x >= 4.5, "right edge: %.1f", p->x0 + p->w - x);
    ck_assert_msg(y - p->y0 >= 4.5, "top edge: %.1f", y - p->y0);
    /* its label starts 7 right of it and rises 5 + a 12-point line above:
     * at least 30 units of room to the right, 17 above */
    ck_assert_msg(p->x0 + p->w - x >= 30, "label room right: %.1f", p->x0 + p->w - x);
    ck_assert_msg(y - p->y0 >= 17, "label room above: %.1f", y - p->y0);
    /* and the point is drawn there, in the first colour (blue) */
    struct rgb pt = pixel(s, x, y);
    ck_assert_msg(near(pt, 0.0, 0.447, 0.698, 0.1), "last point %.2f %.2f %.2f at %.1f,%.1f", pt.r,
                  pt.g, pt.b, x, y);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* At 800x500 and at the serve page's 1200x600, the legend's box never
 * meets a curve, and the ringed point (radius 8, line 3) at the last batch
 * is inside the frame. */
START_TEST(test_small_legend_and_ring)
{
    size_t n = main_sweep(pts, 16, IC_DT_BF16);
    static const int sizes[2][2] = {{800, 500}, {1200, 600}};
    for (int z = 0; z < 2; z++) {
        const int w = sizes[z][0], h = sizes[z][1];
        struct ic_plot_curve cv = {"", pts, n};
        const struct ic_point *last = &pts[n - 1];
        struct ic_plot_set set = {"llama3-70b on 16 x tpu-v5e", "bf16", &cv, 1, last};
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
        cairo_t *cr = cairo_create(s);
        struct ic_plot_layout lay;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_plot_decode(cr, w, h, &set, &lay, &e), 0);
        const struct ic_plot_panel *a = &lay.panel[0], *b = &lay.panel[1];
        /* every drawn term's polyline and the step, against the left legend */
        double xs[IC_SWEEP_MAX_VALUES], ys[IC_SWEEP_MAX_VALUES];
        ck_assert_double_gt(a->lw, 0);
        for (int t = 0; t < 5; t++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++) {
                const struct ic_point *q = &pts[i];
                double v = t == 0   ? q->step_s
                           : t == 1 ? q->weights_s
                           : t == 2 ? q->kv_s
                           : t == 3 ? q->compute_s + q->attn_s
                                    : q->comm_s;
                if (v >= a->ymin && v <= a->ymax) /* drawn (clipped to the frame) */
                    xs[m] = (double)q->cfg.batch, ys[m++] = v;
            }
            ck_assert_msg(!polyline_hits_legend(a, xs, ys, m, 0), "%dx%d: term %d under the legend",
                          w, h, t);
        }
        /* the Pareto frontier (fitting points) against the right legend */
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (pts[i].fits)
                xs[m] = pts[i].latency_s, ys[m++] = pts[i].tokens_s_chip;
        ck_assert_double_gt(b->lw, 0);
        ck_assert_msg(!polyline_hits_legend(b, xs, ys, m, 0), "%dx%d: frontier under the legend",
                      w, h);
        /* a legend above the frame stays above it */
        for (int k = 0; k < 2; k++) {
            const struct ic_plot_panel *p = &lay.panel[k];
            if (p->legend_outside)
                ck_assert(p->ly + p->lh <= p->y0);
            else
                ck_assert(p->lx >= p->x0 && p->lx + p->lw <= p->x0 + p->w &&
                          p->ly >= p->y0 && p->ly + p->lh <= p->y0 + p->h);
        }
        /* the ring: 8 + 1.5 inside each edge, on both panels */
        double rx = dev_x(a, (double)last->cfg.batch), ry = dev_y(a, last->step_s);
        ck_assert_msg(rx - 9.5 >= a->x0 && rx + 9.5 <= a->x0 + a->w && ry - 9.5 >= a->y0 &&
                          ry + 9.5 <= a->y0 + a->h,
                      "%dx%d: ring at %.1f,%.1f outside the time panel", w, h, rx, ry);
        rx = dev_x(b, last->latency_s), ry = dev_y(b, last->tokens_s_chip);
        ck_assert_msg(rx - 11.5 >= b->x0 && rx + 11.5 <= b->x0 + b->w && ry - 11.5 >= b->y0 &&
                          ry + 11.5 <= b->y0 + b->h,
                      "%dx%d: ring outside the Pareto panel", w, h);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
}
END_TEST

/* Points carrying both estimates: the expected step is drawn solid, the
 * ideal bound dashed. Synthetic: each point's own (ideal) step, and an
 * expected step of twice that beside it. */
START_TEST(test_expected_solid_ideal_dashed)
{
    size_t n = main_sweep(pts, 16, IC_DT_BF16);
    for (size_t i = 0; i < n; i++) {
        ck_assert(pts[i].cfg.estimate == IC_EST_IDEAL);
        pts[i].other_known = true;
        pts[i].other_step_s = 2 * pts[i].step_s;
    }
    struct ic_plot_curve cv = {"", pts, n};
    struct ic_plot_set set = {"both", NULL, &cv, 1, NULL};
    struct ic_plot_layout lay;
    cairo_surface_t *s = draw_decode(&set, &lay);
    const struct ic_plot_panel *a = &lay.panel[0];
    /* along batch 16 .. 64 (points 4 .. 6), each line by log-log
     * interpolation between its points: the solid one black all along, the
     * dashed one black in places and not in others (its gaps) */
    int solid_black = 0, solid_n = 0, dashed_black = 0, dashed_n = 0;
    for (size_t i = 4; i < 6; i++) {
        double x0 = dev_x(a, (double)pts[i].cfg.batch), x1 = dev_x(a, (double)pts[i + 1].cfg.batch);
        for (double x = x0 + 2; x < x1 - 2; x += 1) {
            double f = (x - x0) / (x1 - x0);
            double ideal = exp(log(pts[i].step_s) + f * (log(pts[i + 1].step_s) - log(pts[i].step_s)));
            solid_black += near(pixel(s, x, dev_y(a, 2 * ideal)), 0, 0, 0, 0.3);
            solid_n++;
            dashed_black += near(pixel(s, x, dev_y(a, ideal)), 0, 0, 0, 0.3);
            dashed_n++;
        }
    }
    ck_assert_int_gt(solid_n, 40);
    ck_assert_msg(solid_black >= solid_n - 2, "solid: %d of %d black", solid_black, solid_n);
    ck_assert_msg(dashed_black > dashed_n / 5 && dashed_black < dashed_n * 9 / 10,
                  "dashed: %d of %d black", dashed_black, dashed_n);
    cairo_surface_destroy(s);
}
END_TEST

/* The fraction of the samples along the polyline (xs, ys) (data units),
 * every device unit of its length, whose pixel is near colour (r, g, b)
 * (tol): a solid line near 1, a dashed one between. The samples within 12
 * units of a vertex (its dot, ring or label) or by the legend are left
 * out; *n receives how many were taken. */
static double colour_along(cairo_surface_t *s, const struct ic_plot_panel *p, const double *xs,
                           const double *ys, size_t n_pts, double r, double g, double b,
                           double tol, int *n)
{
    int hit = 0, taken = 0;
    for (size_t i = 0; i + 1 < n_pts; i++) {
        double ax = dev_x(p, xs[i]), ay = dev_y(p, ys[i]);
        double bx = dev_x(p, xs[i + 1]), by = dev_y(p, ys[i + 1]);
        double len = hypot(bx - ax, by - ay);
        for (double d = 12; d < len - 12; d += 1) {
            double x = ax + (bx - ax) * d / len, y = ay + (by - ay) * d / len;
            if (p->lw > 0 && x >= p->lx - 2 && x <= p->lx + p->lw + 2 && y >= p->ly - 2 &&
                y <= p->ly + p->lh + 2)
                continue;
            taken++;
            /* the pixel that holds (x, y): pixel() rounds, and pixel i spans i .. i + 1 */
            hit += near(pixel(s, x - 0.5, y - 0.5), r, g, b, tol);
        }
    }
    *n = taken;
    return taken ? (double)hit / taken : 0;
}

/* The same chip twice in one overlay, 8 x H100 decoding llama3-70b: once
 * as an entry with achieved rates (synthetic, as above: an expected step
 * of 1.8 times the ideal bound beside it), once as a spec-only entry (the
 * ideal bound alone, the same numbers). A solid line means the expected
 * step, so the spec-only curve is dashed and says it is the ideal bound
 * only, and the Pareto panel's envelope is the expected curve's frontier,
 * not the spec-only curve's 1.8x faster ideal one (before: drawn solid
 * under "solid: expected", with the envelope on it). The chips figure
 * draws it the same way. */
static struct ic_point ach_pts[IC_SWEEP_MAX_POINTS], spec_pts[IC_SWEEP_MAX_POINTS];

START_TEST(test_mixed_overlay_ideal_dashed)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    static const double BLUE[3] = {0.0, 0.447, 0.698}, VERM[3] = {0.835, 0.369, 0.0};
    for (int fig = 0; fig < 2; fig++) { /* a batch sweep, then a chips sweep */
        struct ic_decode_cfg c = ic_decode_defaults();
        c.chips = 8;
        c.both = true; /* as the command line asks (the frozen entry has no rates) */
        enum ic_axis ax = fig ? IC_AXIS_CHIPS : IC_AXIS_BATCH;
        size_t na = 0;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_sweep_run(&t->st, &t->h, &c, &ax, 1, spec_pts, &na, &e), 0);
        for (size_t i = 0; i < na; i++) {
            ck_assert(spec_pts[i].cfg.estimate == IC_EST_IDEAL && !spec_pts[i].other_known);
            ach_pts[i] = spec_pts[i];
            ach_pts[i].other_known = true;
            ach_pts[i].other_step_s = 1.8 * spec_pts[i].step_s;
        }
        struct ic_plot_curve cv[2] = {{"h100-sxm", ach_pts, na}, {"h100-spec", spec_pts, na}};
        struct ic_plot_set set = {"mixed", NULL, cv, 2, NULL};
        /* the legend: the spec-only curve named the ideal bound only */
        char lab[200];
        ck_assert(!ic_plot_curve_legend(&set, 0, lab, sizeof lab));
        ck_assert_str_eq(lab, "h100-sxm");
        ck_assert(ic_plot_curve_legend(&set, 1, lab, sizeof lab));
        ck_assert_str_eq(lab, "h100-spec (ideal bound only)");
        /* all ideal (two spec-only curves) or all expected: labels as given */
        struct ic_plot_curve same[2] = {cv[1], cv[1]};
        struct ic_plot_set ideal_set = {"ideal", NULL, same, 2, NULL};
        ck_assert(!ic_plot_curve_legend(&ideal_set, 1, lab, sizeof lab));
        ck_assert_str_eq(lab, "h100-spec");
        same[0] = same[1] = cv[0];
        ck_assert(!ic_plot_curve_legend(&ideal_set, 1, lab, sizeof lab));
        ck_assert_str_eq(lab, "h100-sxm");

        /* the fitting points' lines: the x (batch or chips), the expected
         * step (the first curve's other estimate), the ideal (either's
         * own), and on the Pareto panel, latency and tokens/s per chip */
        double x[IC_SWEEP_MAX_VALUES], ex[IC_SWEEP_MAX_VALUES], id[IC_SWEEP_MAX_VALUES];
        double elat[IC_SWEEP_MAX_VALUES], ethr[IC_SWEEP_MAX_VALUES];
        double ilat[IC_SWEEP_MAX_VALUES], ithr[IC_SWEEP_MAX_VALUES];
        size_t m = 0;
        for (size_t i = 0; i < na && m < IC_SWEEP_MAX_VALUES; i++) {
            const struct ic_point *q = &ach_pts[i];
            if (!q->fits)
                continue;
            x[m] = fig ? (double)q->cfg.chips : (double)q->cfg.batch;
            ex[m] = q->other_step_s;
            id[m] = q->step_s;
            /* tokens/s per chip at a step t: B / t / chips */
            elat[m] = ex[m], ethr[m] = (double)q->cfg.batch / ex[m] / (double)q->cfg.chips;
            ilat[m] = id[m], ithr[m] = (double)q->cfg.batch / id[m] / (double)q->cfg.chips;
            m++;
        }
        ck_assert_uint_ge(m, 5);
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
        cairo_t *cr = cairo_create(s);
        struct ic_plot_layout lay;
        ck_assert_int_eq(fig ? ic_plot_chips(cr, W, H, &set, &lay, &e)
                             : ic_plot_decode(cr, W, H, &set, &lay, &e),
                         0);
        const struct ic_plot_panel *a = &lay.panel[0], *b = &lay.panel[1];
        /* the expected curve solid (blue) all along its expected step */
        int n = 0;
        double f = colour_along(s, a, x, ex, m, BLUE[0], BLUE[1], BLUE[2], 0.3, &n);
        ck_assert_int_gt(n, 100);
        ck_assert_msg(f > 0.95, "fig %d: expected line %.2f blue", fig, f);
        /* the spec-only curve (vermillion) dashed (7 on, 4 off): blank in
         * places (before: solid, 2.4 wide, vermillion all along) */
        f = colour_along(s, a, x, id, m, VERM[0], VERM[1], VERM[2], 0.3, &n);
        ck_assert_int_gt(n, 100);
        ck_assert_msg(f > 0.3 && f < 0.85, "fig %d: ideal-only line %.2f vermillion", fig, f);
        if (fig == 0) {
            /* the envelope (black, dashed 9 on, 5 off) lies on the expected
             * curve's frontier, point by point, and nowhere along the
             * spec-only curve's ideal one (before: all on the ideal) */
            f = colour_along(s, b, elat, ethr, m, 0, 0, 0, 0.15, &n);
            ck_assert_int_gt(n, 100);
            ck_assert_msg(f > 0.4, "envelope on the expected frontier: %.2f black", f);
            f = colour_along(s, b, ilat, ithr, m, 0, 0, 0, 0.15, &n);
            ck_assert_int_gt(n, 100);
            ck_assert_msg(f < 0.05, "envelope on the ideal-only frontier: %.2f black", f);
        } else {
            /* tokens/s per chip against chips: the spec-only curve dashed there too */
            f = colour_along(s, b, x, ithr, m, VERM[0], VERM[1], VERM[2], 0.3, &n);
            ck_assert_int_gt(n, 100);
            ck_assert_msg(f > 0.3 && f < 0.85, "chips rate: ideal-only line %.2f vermillion", f);
            f = colour_along(s, b, x, ethr, m, BLUE[0], BLUE[1], BLUE[2], 0.3, &n);
            ck_assert_msg(f > 0.95, "chips rate: expected line %.2f blue", f);
        }
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
    free(t);
}
END_TEST

/* A batch x context sweep as heatmaps: the cheapest cell dark (the map's
 * low end), the dearest bright, a cell that does not fit hatched. */
START_TEST(test_heatmap)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 8;
    enum ic_axis ax[2] = {IC_AXIS_BATCH, IC_AXIS_CONTEXT};
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sweep_run(&t->st, &t->h, &c, ax, 2, pts, &n, &e), 0);
    const struct ic_plot_heat hm = {"heat", NULL, pts, n, {IC_AXIS_BATCH, IC_AXIS_CONTEXT}};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    ck_assert_int_eq(ic_plot_heatmap(cr, W, H, &hm, &lay, &e), 0);
    ck_assert_int_eq(lay.n_panels, 2);
    /* batch 1, context 128 (the fastest step): the cell at the bottom left
     * of the step-time panel, sampled near its corner (away from its text) */
    const struct ic_plot_panel *a = &lay.panel[0];
    ck_assert_uint_eq(pts[0].cfg.batch, 1);
    ck_assert_uint_eq(pts[0].cfg.context, 128);
    struct rgb lo = pixel(s, a->x0 + 3, a->y0 + a->h - 3);
    ck_assert_msg(near(lo, 0.267, 0.005, 0.329, 0.06), "low cell %.2f %.2f %.2f", lo.r, lo.g,
                  lo.b);
    /* some cell does not fit (the largest batch at the longest context) */
    bool any_out = false;
    for (size_t i = 0; i < n; i++)
        any_out |= !pts[i].fits;
    ck_assert(any_out);
    /* the edge of what fits is vermillion somewhere in the panel */
    ck_assert(has_colour(s, a, 0.835, 0.369, 0.0, 0.06));
    /* the colour scale spans the cells that fit: the slowest of them (its
     * solid step, the expected one) takes the top colour, yellow, though
     * slower cells that do not fit lie past it. Cells: the distinct
     * batches across, contexts up, the panel's width less the colour bar's
     * 16 + 12 + 92 px; sampled inside the cell's lower left, off its text */
    uint64_t bs[IC_SWEEP_MAX_VALUES], cs[IC_SWEEP_MAX_VALUES];
    size_t nb = 0, nc = 0, top = n;
    double vtop = 0, vall = 0;
    for (size_t i = 0; i < n; i++) {
        const double v = pts[i].other_known && pts[i].other_step_s > 0 &&
                                 pts[i].cfg.estimate == IC_EST_IDEAL
                             ? pts[i].other_step_s
                             : pts[i].step_s;
        vall = fmax(vall, v);
        if (pts[i].fits && v > vtop)
            vtop = v, top = i;
        size_t k = 0;
        while (k < nb && bs[k] != pts[i].cfg.batch)
            k++;
        if (k == nb)
            bs[nb++] = pts[i].cfg.batch;
        k = 0;
        while (k < nc && cs[k] != pts[i].cfg.context)
            k++;
        if (k == nc)
            cs[nc++] = pts[i].cfg.context;
    }
    ck_assert(top < n && vall > vtop); /* a slower cell that does not fit */
    size_t bi = 0, ci = 0; /* ranks among the sorted distinct values */
    for (size_t k = 0; k < nb; k++)
        bi += bs[k] < pts[top].cfg.batch;
    for (size_t k = 0; k < nc; k++)
        ci += cs[k] < pts[top].cfg.context;
    const double cw = (a->w - 16 - 12 - 92) / (double)nb, chh = a->h / (double)nc;
    struct rgb hi = pixel(s, a->x0 + cw * ((double)bi + 0.15),
                          a->y0 + a->h - chh * ((double)ci + 0.15));
    ck_assert_msg(near(hi, 0.993, 0.906, 0.144, 0.06), "slowest fitting cell %.2f %.2f %.2f",
                  hi.r, hi.g, hi.b);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    ck_assert_int_eq(ic_plot_heatmap(cr = NULL, W, H, &(struct ic_plot_heat){"", NULL, pts, 0,
                                                                           {IC_AXIS_BATCH,
                                                                            IC_AXIS_CONTEXT}},
                                     NULL, &e),
                     IC_EINVAL);
    free(t);
}
END_TEST

/* simulate's figure: a linear rate axis ends at the first tick past the
 * data (rates 0.97 .. 11.6 -> 0 .. 12: ticks of 2, 11.6 + a marker's room
 * fits below 12), and the second panel (throughput against latency, time
 * on x) sits beside the first. */
START_TEST(test_linear_axis_and_two_panels)
{
    const double rates[] = {0.97, 1.94, 2.91, 3.88, 4.85, 5.83, 6.8, 7.77, 8.74, 9.71, 10.7, 11.6};
    const double ttft[] = {0.09, 0.09, 0.09, 0.09, 0.1, 0.11, 0.15, 0.19, 0.28, 2.1, 11, 19};
    const double tput[] = {37, 74, 111, 148, 185, 222, 259, 296, 330, 340, 342, 341};
    const struct ic_plot_series a[] = {{"TTFT P50", rates, ttft, 12, false, false}};
    const struct ic_plot_series b[] = {{"against TTFT", ttft, tput, 12, false, false}};
    const struct ic_plot_lines panels[2] = {
        {.x_label = "requests per second", .y_label = "latency", .ylog = true, .ytime = true,
         .series = a, .n_series = 1},
        {.x_label = "latency", .y_label = "tokens/s per chip", .xlog = true, .ylog = true,
         .xtime = true, .series = b, .n_series = 1},
    };
    const struct ic_plot_figure f = {"simulate", NULL, panels, 2};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_figure(cr, W, H, &f, &lay, &e), 0);
    ck_assert_int_eq(lay.n_panels, 2);
    ck_assert(!lay.panel[0].xlog);
    ck_assert_double_eq_tol(lay.panel[0].xmin, 0, 1e-12);
    ck_assert_double_eq_tol(lay.panel[0].xmax, 12, 1e-9);
    ck_assert(lay.panel[1].x0 > lay.panel[0].x0 + lay.panel[0].w);
    /* the first panel's last point, blue, at (11.6, 19 s) */
    struct rgb pt = pixel(s, dev_x(&lay.panel[0], 11.6), dev_y(&lay.panel[0], 19));
    ck_assert(near(pt, 0.0, 0.447, 0.698, 0.1));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* A line chart's out-of-memory band (prefill's prompts that do not fit):
 * gray from nofit_from to the right edge, white before it; at or below the
 * first x, the whole panel. Sampled at half the panel's height, at 300 and
 * 1400 tokens, where the rising curve (10 ms to 0.64 s) is far below or
 * above and the legend (a corner) is not. */
START_TEST(test_lines_nofit_band)
{
    const double xs[] = {128, 256, 512, 1024, 2048, 4096, 8192};
    const double ys[] = {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64};
    const struct ic_plot_series ser[] = {{"TTFT", xs, ys, 7, false, false}};
    for (int whole = 0; whole < 2; whole++) {
        const struct ic_plot_lines l = {.x_label = "prompt tokens", .y_label = "time",
                                        .xlog = true, .ylog = true, .ytime = true,
                                        .series = ser, .n_series = 1,
                                        .nofit_from = whole ? 128 : 724};
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
        cairo_t *cr = cairo_create(s);
        struct ic_plot_layout lay;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_plot_lines(cr, W, H, &l, &lay, &e), 0);
        const struct ic_plot_panel *p = &lay.panel[0];
        const double y = p->y0 + p->h * 0.5; /* between the curve and the legend */
        struct rgb in = pixel(s, dev_x(p, 1400), y), out = pixel(s, dev_x(p, 300), y);
        ck_assert_msg(fabs(in.r - in.g) < 0.03 && fabs(in.g - in.b) < 0.03 && in.r < 0.85,
                      "not gray at 1400 tokens: %.2f %.2f %.2f", in.r, in.g, in.b);
        if (whole)
            ck_assert_msg(out.r < 0.85, "the whole panel: not gray at 300 tokens");
        else
            ck_assert_msg(out.r > 0.9 && out.g > 0.9 && out.b > 0.9, "gray at 300 tokens");
        /* just inside the frame's left edge: gray only for the whole panel */
        struct rgb edge = pixel(s, p->x0 + 3, y);
        ck_assert(whole ? edge.r < 0.85 : edge.r > 0.9);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
}
END_TEST

/* A title far too long for the picture: drawn no smaller than 14 px
 * (four 63-character names read 6 px high), cut to fit with "...", its
 * ink within the picture's 10 px margins (it ran off both edges). The
 * ink is the dark pixels of the title's band, rows 12 to 46. */
START_TEST(test_long_title_cut)
{
    char t[600];
    memset(t, 'M', sizeof t - 1);
    t[sizeof t - 1] = '\0';
    const double xs[] = {1, 2}, ys[] = {1, 2};
    const struct ic_plot_series ser[] = {{"a", xs, ys, 2, false, false}};
    const struct ic_plot_lines l = {.title = t, .subtitle = t, .x_label = "x", .y_label = "y",
                                    .series = ser, .n_series = 1};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_lines(cr, W, H, &l, NULL, &e), 0);
    int top = H, bottom = -1, left = W, right = -1;
    for (int y = 12; y <= 46; y++)
        for (int x = 0; x < W; x++)
            if (pixel(s, x, y).r < 0.3) {
                top = y < top ? y : top, bottom = y > bottom ? y : bottom;
                left = x < left ? x : left, right = x > right ? x : right;
            }
    ck_assert_int_ge(bottom - top + 1, 9); /* an M at 14 px stands about 10 high */
    ck_assert_int_ge(left, 10);
    ck_assert_int_le(right, W - 10);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* ---- the chips sweep: the largest useful tensor-parallel size ------------ */

/* The rule on hand-made points: the shortest step among the points that
 * fit, the first on a tie; n where none fits. */
START_TEST(test_largest_useful_rule)
{
    struct ic_point q[6] = {0};
    /* chips 1 .. 32: 1 does not fit (and has the shortest step of all:
     * left out), then 40, 20, 10, 12, 10 ms: the 10 ms at index 3 (8
     * chips), not the equal one at index 5 */
    const double step[6] = {0.001, 0.040, 0.020, 0.010, 0.012, 0.010};
    for (int i = 0; i < 6; i++) {
        q[i].cfg.chips = 1ull << i;
        q[i].step_s = step[i];
        q[i].fits = i > 0;
    }
    ck_assert_uint_eq(ic_sweep_largest_useful(q, 6), 3);
    ck_assert_uint_eq(ic_sweep_largest_useful(q, 3), 2); /* 1 .. 4 chips: 4 */
    for (int i = 0; i < 6; i++)
        q[i].fits = false;
    ck_assert_uint_eq(ic_sweep_largest_useful(q, 6), 6);
    ck_assert_uint_eq(ic_sweep_largest_useful(q, 0), 0);
}
END_TEST

/* Pixels near the marker's orange (Okabe-Ito 0.902, 0.624, 0) in the
 * device column x from y0 to y1. */
static int orange_in_column(cairo_surface_t *s, double x, double y0, double y1)
{
    int k = 0;
    for (double y = y0; y <= y1; y += 1)
        k += near(pixel(s, x, y), 0.902, 0.624, 0.0, 0.15);
    return k;
}

/* Llama-3-70B on H100s, batch 1, context 2048, swept over 1 .. 256 chips:
 * the chart's line sits at the largest useful size, 16 chips. By hand
 * from the table (ideal bound): 8 chips 5.21 ms, 16 chips 2.67 ms (the
 * weight read 2.64 ms, all-reduces 2.26 ms overlapped), 32 chips 5.46 ms
 * (the all-reduces alone); 1 chip does not fit 80 GB (141.8 GB of bf16
 * weights). */
START_TEST(test_chips_figure)
{
    struct ic_test_pair *t = ic_test_pair("llama3-70b", "h100");
    struct ic_decode_cfg c = ic_decode_defaults();
    enum ic_axis ax = IC_AXIS_CHIPS;
    size_t n = 0;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_sweep_run(&t->st, &t->h, &c, &ax, 1, pts, &n, &e), 0);
    free(t);
    ck_assert_uint_eq(n, 9); /* 1, 2, 4, ... 256 */
    ck_assert(!pts[0].fits && pts[1].fits);
    ck_assert_uint_eq(pts[4].cfg.chips, 16);
    ck_assert_double_eq_tol(pts[3].step_s, 5.21e-3, 0.01e-3);
    ck_assert_double_eq_tol(pts[4].step_s, 2.67e-3, 0.01e-3);
    ck_assert_double_eq_tol(pts[5].step_s, 5.46e-3, 0.01e-3);
    ck_assert_uint_eq(ic_sweep_largest_useful(pts, n), 4);
    struct ic_plot_curve cv = {"", pts, n};
    struct ic_plot_set set = {"llama3-70b on h100 (chips vary)", NULL, &cv, 1, NULL};
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    ck_assert_int_eq(ic_plot_chips(cr, W, H, &set, &lay, &e), 0);
    ck_assert_int_eq(lay.n_panels, 2);
    for (int k = 0; k < 2; k++) {
        const struct ic_plot_panel *p = &lay.panel[k];
        /* a log2 axis half an octave past 1 and 256: 16 in the middle */
        ck_assert(p->xlog && p->xpow2);
        ck_assert_double_eq_tol(p->xmin, 1 / sqrt(2), 1e-12);
        ck_assert_double_eq_tol(p->xmax, 256 * sqrt(2), 1e-9);
        ck_assert_double_eq_tol(dev_x(p, 16), p->x0 + p->w / 2, 1e-9);
        /* the dashed marker (3 on, 3 off) fills about half its column;
         * the columns at 8 and 32 chips have at most a legend's sample */
        int at = orange_in_column(s, dev_x(p, 16), p->y0 + 1, p->y0 + p->h - 1);
        ck_assert_msg(at > p->h / 4, "panel %d: %d orange pixels at 16 chips", k, at);
        ck_assert_int_lt(orange_in_column(s, dev_x(p, 8), p->y0 + 1, p->y0 + p->h - 1), 12);
        ck_assert_int_lt(orange_in_column(s, dev_x(p, 32), p->y0 + 1, p->y0 + p->h - 1), 12);
    }
    /* the left panel: 1 chip grayed (does not fit), 4 chips not */
    const struct ic_plot_panel *a = &lay.panel[0];
    double y = a->y0 + a->h * 0.5;
    struct rgb oom = pixel(s, dev_x(a, 1), y), ok = pixel(s, dev_x(a, 4) + 3, y);
    ck_assert_msg(fabs(oom.r - oom.g) < 0.03 && fabs(oom.g - oom.b) < 0.03 && oom.r < 0.85,
                  "not gray at 1 chip: %.2f %.2f %.2f", oom.r, oom.g, oom.b);
    ck_assert_msg(ok.r > 0.8 && ok.g > 0.8 && ok.b > 0.8, "gray at 4 chips");
    /* where no chip count fits there is no largest useful size: no orange
     * line, ring or legend sample anywhere */
    for (size_t i = 0; i < n; i++)
        pts[i].fits = false;
    ck_assert_int_eq(ic_plot_chips(cr, W, H, &set, &lay, &e), 0);
    const struct ic_plot_panel whole = {.x0 = 0, .y0 = 0, .w = W, .h = H};
    ck_assert(!has_colour(s, &whole, 0.902, 0.624, 0.0, 0.15));
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}
END_TEST

/* The number after "key": at or after p, its end in *end. */
static double num_after(const char *p, const char *key, const char **end)
{
    char pat[48];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *q = strstr(p, pat);
    ck_assert_msg(q, "no %s after offset", key);
    q += strlen(pat);
    char *e;
    double v = strtod(q, &e);
    if (end)
        *end = e;
    return v;
}

/* The command line end to end: `--sweep chips --plot` writes a PNG of the
 * requested size whose marker line stands at the chip count the table
 * marks, which is the shortest step of the JSON's points that fit, picked
 * here by a loop of the test's own. */
START_TEST(test_chips_chart_cli)
{
    ck_assert_int_eq(ic_test_cli("--model", "llama3-70b", "--hw", "h100", "--sweep", "chips",
                                 "--format", "json", NULL),
                     0);
    unsigned long best = 0, count = 0;
    double best_s = INFINITY;
    for (const char *p = strstr(ic_test_out, "\"chips\": "); p;
         p = strstr(p + 1, "\"chips\": ")) {
        unsigned long chips = (unsigned long)num_after(p, "chips", NULL);
        /* time.step_s comes before time_other.step_s in each object */
        double step = num_after(strstr(p, "\"time\": {"), "step_s", NULL);
        const char *f = strstr(p, "\"fits\": ");
        ck_assert_ptr_nonnull(f);
        bool fits = strncmp(f + 8, "true", 4) == 0;
        count++;
        if (fits && step < best_s)
            best_s = step, best = chips;
    }
    ck_assert_uint_eq(count, 9);
    ck_assert_uint_eq(best, 16); /* 2.67 ms, against 5.21 at 8 and 5.46 at 32 */
    /* the table marks the same row */
    ck_assert_int_eq(ic_test_cli("--model", "llama3-70b", "--hw", "h100", "--sweep", "chips",
                                 "--plot", "test_chips_cli.png", "--plot-size", "1200x800", NULL),
                     0);
    const char *m = strstr(ic_test_out, "<- largest useful");
    ck_assert_ptr_nonnull(m);
    const char *line = m;
    while (line > ic_test_out && line[-1] != '\n')
        line--;
    ck_assert_uint_eq(strtoul(line, NULL, 10), best);
    ck_assert_ptr_nonnull(strstr(ic_test_out, "largest useful tensor-parallel size: 16 chips"));
    /* a PNG (signature, then IHDR's big-endian width and height) */
    FILE *fp = fopen("test_chips_cli.png", "rb");
    ck_assert_ptr_nonnull(fp);
    unsigned char hd[24];
    ck_assert_uint_eq(fread(hd, 1, sizeof hd, fp), sizeof hd);
    fclose(fp);
    ck_assert_int_eq(memcmp(hd, "\x89PNG\r\n\x1a\n", 8), 0);
    ck_assert_int_eq(memcmp(hd + 12, "IHDR", 4), 0);
    ck_assert_uint_eq((unsigned)hd[16] << 24 | (unsigned)hd[17] << 16 | (unsigned)hd[18] << 8 | hd[19],
                      1200);
    ck_assert_uint_eq((unsigned)hd[20] << 24 | (unsigned)hd[21] << 16 | (unsigned)hd[22] << 8 | hd[23],
                      800);
    cairo_surface_t *s = cairo_image_surface_create_from_png("test_chips_cli.png");
    ck_assert_int_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    ck_assert_int_eq(cairo_image_surface_get_width(s), 1200);
    ck_assert_int_eq(cairo_image_surface_get_height(s), 800);
    /* where the line must be, by hand: two panels, 95 left, 120 between,
     * 30 right, so each (1200 - 245) / 2 = 477.5 wide, the right one from
     * 95 + 477.5 + 120 = 692.5; x from 1/sqrt 2 to 256 sqrt 2 (9 octaves),
     * 16 chips 4.5 octaves in: x = x0 + 477.5 / 2 = 333.75 and 931.25. The
     * plot area spans y 90 .. 730 at most (a legend above it moves the top
     * down): 200 .. 700 is inside. At 8 chips (3.5 octaves in, 280.7 and
     * 877.9): no line. */
    const double at16[2] = {333.75, 931.25}, at8[2] = {280.69, 877.92};
    for (int k = 0; k < 2; k++) {
        int on = orange_in_column(s, at16[k], 200, 700);
        ck_assert_msg(on > 150, "panel %d: %d orange pixels at x %.2f", k, on, at16[k]);
        ck_assert_int_lt(orange_in_column(s, at8[k], 200, 700), 12);
    }
    cairo_surface_destroy(s);
    unlink("test_chips_cli.png");
}
END_TEST

/* --plot errors name the cause: no sweep, a sweep with no chart of its
 * own, a heatmap of several configurations. */
START_TEST(test_plot_errors)
{
    ck_assert_int_eq(ic_test_cli("--model", "llama3-70b", "--hw", "h100", "--plot", "x.png", NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, "--plot draws a sweep, and there is none"));
    ck_assert_int_eq(ic_test_cli("--model", "llama3-70b", "--hw", "h100", "--sweep",
                                 "precision", "--plot", "x.png", NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, "a precision sweep alone has no chart"));
    ck_assert_int_eq(ic_test_cli("--model", "llama3-70b", "--hw", "h100,h200", "--sweep",
                                 "batch,context", "--plot", "x.png", NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, "heatmap of one configuration"));
    ck_assert_int_ne(access("x.png", F_OK), 0); /* nothing written */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_decode_figure);
    tcase_add_test(tc, test_overlay_figure);
    tcase_add_test(tc, test_context_and_validation_figures);
    tcase_add_test(tc, test_files);
    tcase_add_test(tc, test_frontier);
    tcase_add_test(tc, test_time_units);
    tcase_add_test(tc, test_edge_points_inside);
    tcase_add_test(tc, test_small_legend_and_ring);
    tcase_add_test(tc, test_expected_solid_ideal_dashed);
    tcase_add_test(tc, test_mixed_overlay_ideal_dashed);
    tcase_add_test(tc, test_eighth_curve_marked);
    tcase_add_test(tc, test_step_axis_holds_every_curve);
    tcase_add_test(tc, test_heatmap);
    tcase_add_test(tc, test_linear_axis_and_two_panels);
    tcase_add_test(tc, test_lines_nofit_band);
    tcase_add_test(tc, test_long_title_cut);
    tcase_add_test(tc, test_plot_errors);
    tcase_add_test(tc, test_largest_useful_rule);
    tcase_add_test(tc, test_chips_figure);
    tcase_add_test(tc, test_chips_chart_cli);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
