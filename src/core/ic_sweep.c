/* ic_sweep: axis values and grids of decode points. */
#include "ic_sweep.h"

#include <string.h>

static const char *const axis_names[IC_AXIS_COUNT] = {
    [IC_AXIS_BATCH] = "batch",
    [IC_AXIS_CONTEXT] = "context",
    [IC_AXIS_CHIPS] = "chips",
    [IC_AXIS_PRECISION] = "precision",
};
_Static_assert(sizeof axis_names / sizeof axis_names[0] == IC_AXIS_COUNT, "names");

const char *ic_axis_name(enum ic_axis a) { return axis_names[a]; }

int ic_axis_parse(const char *name, enum ic_axis *out)
{
    for (int a = 0; a < IC_AXIS_COUNT; a++)
        if (strcmp(name, axis_names[a]) == 0) {
            *out = (enum ic_axis)a;
            return IC_OK;
        }
    return IC_ENOENT;
}

size_t ic_sweep_values(enum ic_axis a, const struct ic_model_stats *m, const struct ic_hw *hw,
                       const struct ic_decode_cfg *base, uint64_t *vals)
{
    size_t n = 0;
    switch (a) {
    case IC_AXIS_BATCH: {
        struct ic_point p;
        struct ic_decode_cfg c = *base;
        c.batch = 1;
        uint64_t stop = 1;
        if (ic_decode(m, hw, &c, &p, NULL) == IC_OK) {
            /* past the largest batch that fits, and far enough to show the
             * ridge where the linear layers turn compute-bound */
            double bc = p.b_crit < 1e9 ? p.b_crit : 1e9; /* clamp before the cast */
            uint64_t want = p.max_batch > (uint64_t)bc ? p.max_batch : (uint64_t)bc;
            while (stop <= want && stop < (UINT64_C(1) << 20))
                stop *= 2;
        }
        for (uint64_t b = 1; b <= stop && n < IC_SWEEP_MAX_VALUES; b *= 2)
            vals[n++] = b;
        break;
    }
    case IC_AXIS_CONTEXT: {
        /* the model's usable context; where it states none, 128k or the
         * base's context past it (a default context of 2048 ran a model of
         * 128 positions to 2048) */
        uint64_t stop = m->max_context                ? m->max_context
                        : base->context > UINT64_C(131072) ? base->context
                                                           : UINT64_C(131072);
        if (stop > (UINT64_C(1) << 20))
            stop = UINT64_C(1) << 20;
        for (uint64_t s = 128; s <= stop && n < IC_SWEEP_MAX_VALUES; s *= 2)
            vals[n++] = s;
        if (n == 0 || vals[n - 1] < stop)
            vals[n++] = stop; /* end exactly at the model's limit */
        break;
    }
    case IC_AXIS_CHIPS:
        for (uint64_t c = 1; c <= 256; c *= 2)
            vals[n++] = c;
        break;
    case IC_AXIS_PRECISION: {
        static const enum ic_dtype set[] = {IC_DT_BF16, IC_DT_FP8, IC_DT_INT8, IC_DT_INT4};
        for (size_t w = 0; w < 4; w++)
            for (size_t k = 0; k < 4; k++)
                vals[n++] = (uint64_t)set[w] * IC_DT_COUNT + set[k];
        break;
    }
    case IC_AXIS_COUNT:
    default:
        break;
    }
    return n;
}

void ic_sweep_apply(enum ic_axis a, uint64_t v, struct ic_decode_cfg *cfg)
{
    switch (a) {
    case IC_AXIS_BATCH:
        cfg->batch = v;
        break;
    case IC_AXIS_CONTEXT:
        cfg->context = v;
        break;
    case IC_AXIS_CHIPS:
        cfg->chips = v;
        break;
    case IC_AXIS_PRECISION:
        cfg->weights = (enum ic_dtype)(v / IC_DT_COUNT);
        cfg->kv = (enum ic_dtype)(v % IC_DT_COUNT);
        break;
    case IC_AXIS_COUNT:
    default:
        break;
    }
}

int ic_sweep_run(const struct ic_model_stats *m, const struct ic_hw *hw,
                 const struct ic_decode_cfg *base, const enum ic_axis *axes, int n_axes,
                 struct ic_point *out, size_t *n_out, struct ic_err *err)
{
    uint64_t v0[IC_SWEEP_MAX_VALUES], v1[IC_SWEEP_MAX_VALUES] = {0};
    size_t n0 = ic_sweep_values(axes[0], m, hw, base, v0);
    size_t n = 0;
    for (size_t i = 0; i < n0; i++) {
        struct ic_decode_cfg c = *base;
        ic_sweep_apply(axes[0], v0[i], &c);
        /* the inner axis's range depends on the outer value (the batches
         * that fit at this context, say) */
        size_t n1 = n_axes > 1 ? ic_sweep_values(axes[1], m, hw, &c, v1) : 1;
        for (size_t j = 0; j < n1; j++) {
            struct ic_decode_cfg cc = c;
            if (n_axes > 1)
                ic_sweep_apply(axes[1], v1[j], &cc);
            int rc = ic_decode(m, hw, &cc, &out[n], err);
            if (rc)
                return rc;
            n++;
        }
    }
    *n_out = n;
    return IC_OK;
}

/* The step of a point under its own estimate, or under the other (0: none). */
static double step_of(const struct ic_point *p, bool other)
{
    return !other ? p->step_s : p->other_known ? p->other_step_s : 0;
}

size_t ic_sweep_largest_useful_of(const struct ic_point *pts, size_t n, bool other)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (pts[i].fits && step_of(&pts[i], other) > 0 &&
            (best == n || step_of(&pts[i], other) < step_of(&pts[best], other)))
            best = i;
    return best;
}

size_t ic_sweep_largest_useful(const struct ic_point *pts, size_t n)
{
    return ic_sweep_largest_useful_of(pts, n, false);
}
