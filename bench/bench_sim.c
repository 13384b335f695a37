/* bench_sim: how fast the serving simulation runs (figures printed, never
 * asserted): 100,000 requests of Llama-3-70B on 8 x H100 (prompt 2048,
 * output 300, Poisson at 8 requests/s, the chunked scheduler), requests and
 * steps simulated per second of one core, median of 5 runs; a capacity
 * search's 20 rates of 2,000 requests each; and the step table's error: the
 * tabled time against the exact one at the mean contexts of 20,000 random
 * steps (median and largest relative difference). */
#include "ic_db.h"
#include "ic_sim.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    struct ic_db db;
    struct ic_err e = {0};
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *h = malloc(sizeof *h);
    struct ic_model_stats st;
    if (!m || !h || ic_db_init(&db, argc > 1 ? argv[1] : NULL, &e) ||
        ic_db_model(&db, "llama3-70b", m, &e) || ic_model_derive(m, &st, &e) ||
        ic_db_hw(&db, "h100", h, &e)) {
        ic_err_print(stderr, &e);
        return 2;
    }
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec.chips = 8;
    c.prompt.mean = 2048;
    c.output.mean = 300;
    c.rate = 8;
    c.requests = 100000;
    c.warmup = 10000;
    enum { RUNS = 5 };
    double rq[RUNS], sp[RUNS];
    for (int r = 0; r < RUNS; r++) {
        struct ic_sim_result res;
        double t0 = now_s();
        if (ic_sim_run(&st, h, &c, &res, &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
        double dt = now_s() - t0;
        rq[r] = (double)res.completed / dt;
        sp[r] = (double)res.steps / dt;
        if (r == 0)
            printf("100000 requests: %llu steps, step table %llu entries (%llu hits)\n",
                   (unsigned long long)res.steps, (unsigned long long)res.step_cache_misses,
                   (unsigned long long)res.step_cache_hits);
    }
    gsl_sort(rq, 1, RUNS);
    gsl_sort(sp, 1, RUNS);
    printf("simulated requests per second, one core: median %.3g (min %.3g, max %.3g); "
           "steps per second: median %.3g; 100000 requests in %.3g s\n",
           gsl_stats_median_from_sorted_data(rq, 1, RUNS), rq[0], rq[RUNS - 1],
           gsl_stats_median_from_sorted_data(sp, 1, RUNS),
           100000 / gsl_stats_median_from_sorted_data(rq, 1, RUNS));

    /* a capacity search: 20 rates of 2,000 requests */
    c.requests = 2000;
    c.warmup = 200;
    double t0 = now_s();
    for (int i = 1; i <= 20; i++) {
        struct ic_sim_result res;
        c.rate = 0.6 * i;
        if (ic_sim_run(&st, h, &c, &res, &e))
            return 1;
    }
    printf("20 rates x 2000 requests: %.3g s\n", now_s() - t0);

    /* the step table's rounding of contexts: tabled against exact */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    enum { N = 20000 };
    double *err = malloc(N * sizeof *err);
    if (!rng || !err)
        return 1;
    for (int i = 0; i < N; i++) {
        uint64_t nd = 1 + gsl_rng_uniform_int(rng, 256), np = gsl_rng_uniform_int(rng, 3);
        double cd = 1 + gsl_rng_uniform(rng) * 8000, cp = gsl_rng_uniform(rng) * 4000;
        uint64_t pt = np ? np * (1 + gsl_rng_uniform_int(rng, 2048)) : 0;
        /* the table's key: the contexts rounded as ic_sim rounds them */
        double qd = ic_sim_context_key(cd), qp = ic_sim_context_key(cp);
        double exact, tabled;
        if (ic_sim_step_s(&st, h, &c, nd, cd, np, pt, cp, &exact, &e) ||
            ic_sim_step_s(&st, h, &c, nd, qd, np, pt, qp, &tabled, &e))
            return 1;
        err[i] = fabs(tabled / exact - 1);
    }
    gsl_sort(err, 1, N);
    printf("step table against exact over %d random steps: median %.2g, p99 %.2g, largest %.2g "
           "(relative)\n", N, gsl_stats_median_from_sorted_data(err, 1, N),
           gsl_stats_quantile_from_sorted_data(err, 1, N, 0.99), err[N - 1]);
    gsl_rng_free(rng);
    free(err);
    free(m);
    free(h);
    return 0;
}
