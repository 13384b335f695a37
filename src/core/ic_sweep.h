/* ic_sweep: walking the decode model along one or two axes.
 *
 * A sweep returns an array of points; reports and plots consume it (the math
 * never prints or draws). Axes: batch (1, 2, 4, ... up to the first power of
 * two past both the largest batch that fits and B_crit), context (128, 256,
 * ... up to the model's max_position_embeddings), chips (1, 2, 4, ... 256)
 * and precision (weights x KV over bf16, fp8, int8, int4). Two axes give
 * their grid, the first axis outermost. */
#ifndef IC_SWEEP_H
#define IC_SWEEP_H

#include "ic_decode.h"

#include <stddef.h>

enum ic_axis { IC_AXIS_BATCH, IC_AXIS_CONTEXT, IC_AXIS_CHIPS, IC_AXIS_PRECISION, IC_AXIS_COUNT };

const char *ic_axis_name(enum ic_axis a);
int ic_axis_parse(const char *name, enum ic_axis *out);

enum { IC_SWEEP_MAX_VALUES = 64, IC_SWEEP_MAX_POINTS = IC_SWEEP_MAX_VALUES * IC_SWEEP_MAX_VALUES };

/* Values of axis a around base (batch, context and chips as counts; the
 * precision axis as index pairs weights * IC_DT_COUNT + kv). Returns the
 * number written (at most IC_SWEEP_MAX_VALUES). */
size_t ic_sweep_values(enum ic_axis a, const struct ic_model_stats *m, const struct ic_hw *hw,
                       const struct ic_decode_cfg *base, uint64_t *vals);

/* Sets axis a of cfg to value v (as returned by ic_sweep_values). */
void ic_sweep_apply(enum ic_axis a, uint64_t v, struct ic_decode_cfg *cfg);

/* Evaluates the grid of n_axes (1 or 2) axes into out (room for
 * IC_SWEEP_MAX_POINTS); *n_out is the number of points. */
int ic_sweep_run(const struct ic_model_stats *m, const struct ic_hw *hw,
                 const struct ic_decode_cfg *base, const enum ic_axis *axes, int n_axes,
                 struct ic_point *out, size_t *n_out, struct ic_err *err);

/* The largest useful tensor-parallel size of a chips sweep (pts in the
 * order of their chip counts, one configuration): the index of the point
 * with the shortest step (step_s, the point's own estimate; the first on a
 * tie) among those that fit in HBM. Past it, adding chips lengthens the
 * step: the collectives grow faster than the per-chip reads shrink. The
 * table's mark and the chart's marker line both come from here. Returns n
 * where no point fits (or n is 0). */
size_t ic_sweep_largest_useful(const struct ic_point *pts, size_t n);
/* The same rule over the other estimate's steps (other_step_s, where the
 * points carry them) when other is set. */
size_t ic_sweep_largest_useful_of(const struct ic_point *pts, size_t n, bool other);

#endif
