/* Whole-grid sanity: every model x every chip in the databases x precisions
 * (weights/KV/compute bf16/bf16/bf16, int8/int8/int8, int4/int4/bf16,
 * fp8/fp8/fp8) x chips 1..256 x batch 1..4096 x context 128..1M, with
 * collectives overlapped (and, for bf16, serialized), checking what must hold
 * everywhere rather than any one value:
 *   - every figure finite and non-negative, the step positive; a compute
 *     type the chip lacks is refused, never computed;
 *   - step time never decreases with batch or with context;
 *   - tokens/s per chip never decreases with batch while the batch fits;
 *   - KV bytes (per model, and in every decode point) grow linearly with
 *     context below any window and stop growing past it: constant for
 *     models whose every layer slides, growing by the global layers' share
 *     only for models that alternate;
 *   - more chips are never slower while the step is bandwidth-bound: the
 *     time each chip spends alone never grows with the chips, and where more
 *     chips are slower (collectives overlapped) the point is collective-bound
 *     and its JSON says "bound": "comm". */
#include "ic_report.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NB = 13, NS = 14, NC = 9 };

static bool sane(const struct ic_point *p)
{
    const double v[] = {p->weight_bytes, p->kv_bytes, p->flops, p->weights_s, p->compute_s,
                        p->kv_s, p->attn_s, p->comm_s, p->step_s, p->tokens_s,
                        p->tokens_s_chip, p->usd_per_mtok, p->mem_per_chip_B, p->b_crit,
                        p->b_crit_moe, p->latency_s, p->comm_bytes, p->experts_touched,
                        p->mem_weights_B, p->mem_kv_B, p->mem_work_B, p->capacity_B};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return false;
    return p->step_s > 0;
}

/* How often each KV regime and each kind of chip-count step was checked:
 * a property checked zero times is a test that cannot fail. */
struct seen {
    uint64_t kv_linear, kv_flat, kv_global_only; /* model-level context doublings */
    uint64_t more_chips_faster, more_chips_slower_comm;
    uint64_t refused_compute;
};

/* KV values per token-context: linear below the window, flat past it for
 * every sliding layer, the global layers' share only for a mix. */
static void check_kv_model(const struct ic_model *m, const struct ic_model_stats *st,
                           struct seen *seen)
{
    for (uint64_t s = 128; s <= (UINT64_C(1) << 19); s *= 2) {
        uint64_t a = ic_model_kv_values(st, s), b = ic_model_kv_values(st, 2 * s);
        if (st->n_window_layers == 0 || 2 * s <= st->window) {
            ck_assert_msg(b == 2 * a, "%s: KV not linear at %llu", m->name,
                          (unsigned long long)s);
            seen->kv_linear++;
        } else if (s >= st->window) {
            /* past the window only the global layers grow, by s tokens each */
            uint64_t growth = st->kv_values_per_layer_token * st->n_global_layers * s;
            ck_assert_msg(b - a == growth, "%s: KV grows by %llu past the window at %llu, "
                                           "expected %llu",
                          m->name, (unsigned long long)(b - a), (unsigned long long)s,
                          (unsigned long long)growth);
            if (st->n_global_layers == 0)
                seen->kv_flat++;
            else
                seen->kv_global_only++;
        } else {
            ck_assert(b > a && b < 2 * a); /* the window falls between s and 2s */
        }
    }
}

/* The step without collectives: linear layers and attention, each its
 * larger of reads and math (the ideal bound; the grid's chips carry no
 * measured figures). */
static double local_s(const struct ic_point *p)
{
    return fmax(p->weights_s, p->compute_s) + fmax(p->kv_s, p->attn_s) + p->fixed_s;
}

/* The JSON of one point says what its bound is. */
static void check_json_bound(const struct ic_point *p, const char *model, const char *hw,
                             const char *want)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    struct ic_report_group g = {model, hw, p, 1};
    struct ic_report r = {false, false, {IC_AXIS_BATCH, IC_AXIS_BATCH}, 0};
    ck_assert_int_eq(ic_report_write(f, IC_FMT_JSON, &r, &g, 1), 0);
    fclose(f);
    char pat[64];
    snprintf(pat, sizeof pat, "\"bound\": \"%s\"", want);
    ck_assert_msg(strstr(text, pat), "JSON lacks %s:\n%s", pat, text);
    free(text);
}

static const struct {
    enum ic_dtype weights, kv, compute;
    enum ic_comm_mode comm;
} configs[] = {
    {IC_DT_BF16, IC_DT_BF16, IC_DT_BF16, IC_COMM_OVERLAP},
    {IC_DT_INT8, IC_DT_INT8, IC_DT_INT8, IC_COMM_OVERLAP},
    {IC_DT_INT4, IC_DT_INT4, IC_DT_BF16, IC_COMM_OVERLAP},
    {IC_DT_FP8, IC_DT_FP8, IC_DT_FP8, IC_COMM_OVERLAP},
    {IC_DT_BF16, IC_DT_BF16, IC_DT_BF16, IC_COMM_SERIAL},
};
enum { NP = sizeof configs / sizeof configs[0] };

/* The monotonicity checks over one model x chip x configuration grid. */
static void check_grid(struct ic_point (*grid)[NB][NS], const struct ic_model *m,
                       const struct ic_model_stats *st, const struct ic_hw *h,
                       struct seen *seen)
{
    const double tol = 1 + 1e-12;
    for (int c = 0; c < NC; c++)
        for (int b = 0; b < NB; b++)
            for (int s = 0; s < NS; s++) {
                const struct ic_point *p = &grid[c][b][s];
                if (p->step_s < 0)
                    continue;
                if (b > 0) {
                    const struct ic_point *q = &grid[c][b - 1][s];
                    ck_assert_msg(p->step_s * tol >= q->step_s, "%s on %s: step falls with batch",
                                  m->name, h->name);
                    if (p->fits)
                        ck_assert_msg(p->tokens_s_chip * tol >= q->tokens_s_chip,
                                      "%s on %s: throughput/chip falls with batch", m->name,
                                      h->name);
                }
                if (s > 0) {
                    const struct ic_point *q = &grid[c][b][s - 1];
                    ck_assert_msg(p->step_s * tol >= q->step_s,
                                  "%s on %s: step falls with context", m->name, h->name);
                    /* the points' KV bytes: B * KV values(S) * bytes each, and
                     * B linear-attention states whatever S */
                    const uint64_t S = p->cfg.context, S0 = q->cfg.context;
                    const double state = (double)p->cfg.batch * ic_model_state_bytes(st);
                    const double pk = p->kv_bytes - state, qk = q->kv_bytes - state;
                    double want = qk * (double)ic_model_kv_values(st, S) /
                                  (double)ic_model_kv_values(st, S0);
                    ck_assert_msg(fabs(pk - want) <= 1e-12 * p->kv_bytes,
                                  "%s on %s: KV bytes %g at context %llu, expected %g", m->name,
                                  h->name, p->kv_bytes, (unsigned long long)S, want + state);
                    if (st->n_window_layers == 0)
                        ck_assert(fabs(pk - 2 * qk) <= 1e-12 * p->kv_bytes);
                    else if (st->n_global_layers == 0 && S0 >= st->window)
                        ck_assert(p->kv_bytes == q->kv_bytes);
                }
                if (c > 0) {
                    /* Twice the chips: never slower unless the collectives
                     * make it so, and then the point says so. */
                    const struct ic_point *q = &grid[c - 1][b][s];
                    if (q->step_s < 0)
                        continue;
                    /* what each chip does alone never grows with the chips */
                    ck_assert_msg(local_s(p) <= local_s(q) * tol,
                                  "%s on %s: %llu chips' local step %g s above %llu chips' %g s",
                                  m->name, h->name, (unsigned long long)p->cfg.chips,
                                  local_s(p), (unsigned long long)q->cfg.chips, local_s(q));
                    /* Serialized collectives add to every point; whether a
                     * point is labelled collective-bound is then a matter of
                     * the largest term, not of what twice the chips cost (a
                     * known gap of --comm serial; see the issue notes). */
                    if (p->cfg.comm == IC_COMM_SERIAL)
                        continue;
                    if (p->step_s > q->step_s * tol) {
                        ck_assert_msg(p->bound == IC_BOUND_COMM,
                                      "%s on %s (%s%s): %llu chips slower than %llu "
                                      "(batch %llu, context %llu) but bound by %s",
                                      m->name, h->name, ic_dtype_traits(p->cfg.weights)->name,
                                      p->cfg.comm == IC_COMM_SERIAL ? ", serial" : "",
                                      (unsigned long long)p->cfg.chips,
                                      (unsigned long long)q->cfg.chips,
                                      (unsigned long long)p->cfg.batch,
                                      (unsigned long long)p->cfg.context,
                                      ic_bound_name(p->bound));
                        if (seen->more_chips_slower_comm++ == 0)
                            check_json_bound(p, m->name, h->name, "comm");
                    } else if (p->step_s * tol < q->step_s) {
                        seen->more_chips_faster++;
                    }
                }
            }
}

START_TEST(test_grid)
{
    struct ic_db db;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_db_init(&db, IC_SRC_DIR, &e), 0);
    char **mp, **hp;
    size_t nm, nh;
    ck_assert_int_eq(ic_db_paths(&db, IC_DB_MODEL, &mp, &nm, &e), 0);
    ck_assert_int_eq(ic_db_paths(&db, IC_DB_HW, &hp, &nh, &e), 0);
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *hws = malloc(sizeof *hws * nh);
    static struct ic_point grid[NC][NB][NS];
    uint64_t points = 0;
    struct seen seen = {0};
    /* INFCALC_GRID_STRIDE=k (the sanitizer setup sets 3): model i meets chip
     * j only where (i + j) % k == 0, so every model and every chip is still
     * checked, against a k-th of the pairs; the plain build checks them all. */
    size_t stride = 1, pairs = 0;
    const char *sv = getenv("INFCALC_GRID_STRIDE");
    if (sv && *sv) {
        char *end;
        unsigned long k = strtoul(sv, &end, 10);
        ck_assert_msg(*end == 0 && k >= 1 && k <= 8, "INFCALC_GRID_STRIDE=%s: expected 1 to 8", sv);
        stride = k;
    }
    for (size_t j = 0; j < nh; j++)
        ck_assert_int_eq(ic_hw_load(hp[j], &hws[j], &e), 0);
    for (size_t i = 0; i < nm; i++) {
        struct ic_model_stats st;
        ck_assert_int_eq(ic_model_load(mp[i], m, &e), 0);
        ck_assert_int_eq(ic_model_derive(m, &st, &e), 0);
        check_kv_model(m, &st, &seen);
        for (size_t j = 0; j < nh; j++) {
            if ((i + j) % stride)
                continue;
            pairs++;
            const struct ic_hw *h = &hws[j];
            for (size_t w = 0; w < NP; w++) {
                bool has_compute = ic_hw_peak(h, configs[w].compute) > 0;
                for (int c = 0; c < NC; c++)
                    for (int b = 0; b < NB; b++)
                        for (int s = 0; s < NS; s++) {
                            struct ic_decode_cfg cfg = ic_decode_defaults();
                            cfg.chips = UINT64_C(1) << c;
                            cfg.batch = UINT64_C(1) << b;
                            cfg.context = UINT64_C(128) << s;
                            cfg.weights = configs[w].weights;
                            cfg.kv = configs[w].kv;
                            cfg.compute = configs[w].compute;
                            cfg.comm = configs[w].comm;
                            struct ic_point *p = &grid[c][b][s];
                            p->step_s = -1;
                            int rc = ic_decode(&st, h, &cfg, p, &e);
                            if (!has_compute) {
                                /* a type the chip lacks: refused, not computed */
                                ck_assert_msg(rc == IC_EINVAL && strstr(e.msg, "has no"),
                                              "%s: %s compute computed", h->name,
                                              ic_dtype_traits(cfg.compute)->name);
                                seen.refused_compute++;
                                p->step_s = -1;
                                continue;
                            }
                            if (rc) {
                                /* the only other refusal: no scale-out past the domain */
                                ck_assert_msg(cfg.chips > h->ici_domain_chips,
                                              "%s on %s: %s", m->name, h->name, e.msg);
                                p->step_s = -1;
                                continue;
                            }
                            points++;
                            ck_assert_msg(sane(p), "%s on %s: not finite", m->name, h->name);
                        }
                if (has_compute)
                    check_grid(grid, m, &st, h, &seen);
            }
        }
    }
    /* at least 5 chip counts everywhere, over 4 configurations where every
     * chip has the compute type (bf16 twice, int8) and int4, for every pair
     * (16 models x 11 chips at least, a stride-th of them under a stride) */
    ck_assert_uint_ge(pairs, 16 * 11 / stride);
    ck_assert_uint_ge(points, (uint64_t)pairs * 4 * 13 * 14 * 5);
    /* every property above was exercised */
    ck_assert_uint_gt(seen.kv_linear, 0);
    ck_assert_uint_gt(seen.kv_flat, 0);        /* Mistral-7B: every layer slides */
    ck_assert_uint_gt(seen.kv_global_only, 0); /* Gemma-2, gpt-oss: alternating */
    ck_assert_uint_gt(seen.more_chips_faster, 0);
    ck_assert_uint_gt(seen.more_chips_slower_comm, 0);
    ck_assert_uint_gt(seen.refused_compute, 0); /* fp8 on A100 and TPU v5e */
    free(m);
    free(hws);
    ic_db_paths_free(mp, nm);
    ic_db_paths_free(hp, nh);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("grid");
    TCase *tc = tcase_create("grid");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, test_grid);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
