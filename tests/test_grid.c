/* Whole-grid sanity: every model x every chip in the databases x weight/KV
 * precisions x chips 1..256 x batch 1..4096 x context 128..1M, checking what
 * must hold everywhere rather than any one value:
 *   - every figure finite and non-negative, the step positive;
 *   - step time never decreases with batch or with context;
 *   - tokens/s per chip never decreases with batch while the batch fits;
 *   - KV bytes grow linearly with context below any window and stop growing
 *     past it (for models whose every layer slides);
 *   - more chips are never slower while the step is bandwidth-bound, and
 *     where they are slower the point says it is collective-bound. */
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
                        p->b_crit_moe};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (!isfinite(v[i]) || v[i] < 0)
            return false;
    return p->step_s > 0;
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
    static const enum ic_dtype prec[] = {IC_DT_BF16, IC_DT_INT8, IC_DT_INT4};
    uint64_t points = 0;
    for (size_t j = 0; j < nh; j++)
        ck_assert_int_eq(ic_hw_load(hp[j], &hws[j], &e), 0);
    for (size_t i = 0; i < nm; i++) {
        struct ic_model_stats st;
        ck_assert_int_eq(ic_model_load(mp[i], m, &e), 0);
        ck_assert_int_eq(ic_model_derive(m, &st, &e), 0);

        /* KV bytes against context */
        for (uint64_t s = 128; s <= (UINT64_C(1) << 19); s *= 2) {
            uint64_t a = ic_model_kv_values(&st, s), b = ic_model_kv_values(&st, 2 * s);
            if (st.n_window_layers == 0 || 2 * s <= st.window)
                ck_assert_msg(b == 2 * a, "%s: KV not linear at %llu", m->name,
                              (unsigned long long)s);
            else if (st.n_global_layers == 0 && s >= st.window)
                ck_assert_msg(b == a, "%s: KV grows past the window", m->name);
            else
                ck_assert(b > a && b < 2 * a);
        }
        for (size_t j = 0; j < nh; j++) {
            const struct ic_hw *h = &hws[j];
            for (size_t w = 0; w < 3; w++) {
                for (int c = 0; c < NC; c++)
                    for (int b = 0; b < NB; b++)
                        for (int s = 0; s < NS; s++) {
                            struct ic_decode_cfg cfg = ic_decode_defaults();
                            cfg.chips = UINT64_C(1) << c;
                            cfg.batch = UINT64_C(1) << b;
                            cfg.context = UINT64_C(128) << s;
                            cfg.weights = cfg.kv = prec[w];
                            struct ic_point *p = &grid[c][b][s];
                            int rc = ic_decode(&st, h, &cfg, p, &e);
                            if (rc) {
                                /* the only refusal allowed: no scale-out past the domain */
                                ck_assert_msg(cfg.chips > h->ici_domain_chips,
                                              "%s on %s: %s", m->name, h->name, e.msg);
                                p->step_s = -1;
                                continue;
                            }
                            points++;
                            ck_assert_msg(sane(p), "%s on %s: not finite", m->name, h->name);
                        }
                for (int c = 0; c < NC; c++)
                    for (int b = 0; b < NB; b++)
                        for (int s = 0; s < NS; s++) {
                            const struct ic_point *p = &grid[c][b][s];
                            if (p->step_s < 0)
                                continue;
                            const double tol = 1 + 1e-12;
                            if (b > 0) {
                                const struct ic_point *q = &grid[c][b - 1][s];
                                ck_assert_msg(p->step_s * tol >= q->step_s,
                                              "%s on %s: step falls with batch", m->name,
                                              h->name);
                                if (p->fits)
                                    ck_assert_msg(p->tokens_s_chip * tol >= q->tokens_s_chip,
                                                  "%s on %s: throughput/chip falls with batch",
                                                  m->name, h->name);
                            }
                            if (s > 0)
                                ck_assert_msg(p->step_s * tol >= grid[c][b][s - 1].step_s,
                                              "%s on %s: step falls with context", m->name,
                                              h->name);
                            if (c > 0) {
                                const struct ic_point *q = &grid[c - 1][b][s];
                                if (q->step_s > 0 && p->step_s > q->step_s * tol &&
                                    (q->bound == IC_BOUND_WEIGHTS || q->bound == IC_BOUND_KV))
                                    ck_assert_msg(p->bound == IC_BOUND_COMM,
                                                  "%s on %s: %llu chips slower than %llu but "
                                                  "bound by %s",
                                                  m->name, h->name,
                                                  (unsigned long long)p->cfg.chips,
                                                  (unsigned long long)q->cfg.chips,
                                                  ic_bound_name(p->bound));
                            }
                        }
            }
        }
    }
    ck_assert_uint_ge(points, 16 * 11 * 3 * 13 * 14 * 5); /* at least 5 chip counts everywhere */
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
