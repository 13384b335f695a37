/* Pictures: rendered into in-memory surfaces, then probed. Fonts differ
 * between machines, so no golden bytes: cairo status and size, a few pixels
 * where the figure must have a colour (the gray out-of-memory band at a batch
 * that does not fit, no band where it fits, a curve crossing the plot area,
 * a point where the Pareto panel puts it), and non-empty PNG, SVG and PDF
 * files. */
#include "ic_plot.h"
#include "ic_sweep.h"
#include "ic_test.h"

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
    ck_assert(xi >= 0 && xi < W && yi >= 0 && yi < H);
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
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_decode(cr, W, H, &set, &lay, &e), 0);
    ck_assert_int_eq(cairo_status(cr), CAIRO_STATUS_SUCCESS);
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
    double ys = ic_plot_py(left, pts[3].step_s * 1e3);
    ck_assert_uint_eq(pts[3].cfg.batch, 8);
    ck_assert(near(pixel(s, x8, ys), 0, 0, 0, 0.25));
    /* the Pareto panel has the batch-1 point in the palette's blue */
    struct rgb b1 = pixel(s, ic_plot_px(right, pts[0].latency_s * 1e3),
                          ic_plot_py(right, pts[0].tokens_s_chip));
    ck_assert_msg(near(b1, 0.0, 0.447, 0.698, 0.08), "batch 1 point: %.2f %.2f %.2f", b1.r, b1.g,
                  b1.b);
    cairo_destroy(cr);
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
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(s);
    struct ic_plot_layout lay;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_decode(cr, W, H, &set, &lay, &e), 0);
    static const double col[4][3] = {{0.0, 0.447, 0.698}, {0.835, 0.369, 0.0},
                                     {0.0, 0.620, 0.451}, {0.800, 0.475, 0.655}};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(has_colour(s, &lay.panel[0], col[i][0], col[i][1], col[i][2], 0.05),
                      "curve %d missing", i);
    ck_assert(has_colour(s, &lay.panel[1], 0, 0, 0, 0.2)); /* the envelope */
    cairo_destroy(cr);
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
    struct rgb mpt = pixel(s, ic_plot_px(&lay.panel[0], 4), ic_plot_py(&lay.panel[0], 4.0));
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
        unlink(path);
    }
    struct ic_err e = {0};
    ck_assert_int_eq(ic_plot_write("x.gif", IC_PLOT_DECODE, 800, 500, &set, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, ".png, .svg or .pdf"));
    ck_assert_int_eq(ic_plot_write("/nonexistent-dir/x.png", IC_PLOT_DECODE, 800, 500, &set, &e),
                     IC_EIO);
    struct ic_plot_set empty = {"", NULL, NULL, 0, NULL};
    ck_assert_int_eq(ic_plot_write("x.png", IC_PLOT_DECODE, 800, 500, &empty, &e), IC_EINVAL);
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
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
