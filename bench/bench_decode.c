/* bench_decode: how fast the calculator itself is (issue figures, printed,
 * never asserted):
 *   1. decode points evaluated per second on one core over a batch x
 *      context grid (every model in modeldb/ on H100, 8 chips);
 *   1b. the same points in a shuffled order (nothing reused between points);
 *   2. wall time to load every hwdb and modeldb file and print one point
 *      (the work behind one CLI call), median of repeated runs.
 * Medians over repeats; the machine is shared and noisy (docs/measuring.md). */
#include "ic_cli.h"
#include "ic_db.h"
#include "ic_decode.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static volatile double sink;

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    const char *root = argc > 1 ? argv[1] : NULL;
    struct ic_db db;
    struct ic_err e = {0};
    if (ic_db_init(&db, root, &e)) {
        ic_err_print(stderr, &e);
        return 2;
    }
    char **mp = NULL, **hp = NULL;
    size_t nm = 0, nh = 0;
    if (ic_db_paths(&db, IC_DB_MODEL, &mp, &nm, &e) || ic_db_paths(&db, IC_DB_HW, &hp, &nh, &e)) {
        ic_err_print(stderr, &e);
        return 2;
    }
    struct ic_model_stats *stats = calloc(nm, sizeof *stats);
    struct ic_model *m = malloc(sizeof *m);
    struct ic_hw *h = malloc(sizeof *h);
    if (!stats || !m || !h)
        return 1;
    for (size_t i = 0; i < nm; i++)
        if (ic_model_load(mp[i], m, &e) || ic_model_derive(m, &stats[i], &e)) {
            ic_err_print(stderr, &e);
            return 2;
        }
    if (ic_db_hw(&db, "h100", h, &e)) {
        ic_err_print(stderr, &e);
        return 2;
    }

    /* 1. points per second: batch 1..4096 (13) x context 128..1M (14) per
     * model, the grid walked 50 times per run */
    enum { REPEATS = 7 };
    double rates[REPEATS];
    uint64_t points = 0;
    for (int r = 0; r < REPEATS; r++) {
        uint64_t n = 0;
        double acc = 0, t0 = now_s();
        for (int rep = 0; rep < 50; rep++)
        for (size_t i = 0; i < nm; i++)
            for (uint64_t b = 1; b <= 4096; b *= 2)
                for (uint64_t s = 128; s <= (1u << 20); s *= 2) {
                    struct ic_decode_cfg c = ic_decode_defaults();
                    c.chips = 8;
                    c.batch = b;
                    c.context = s;
                    struct ic_point p;
                    if (ic_decode(&stats[i], h, &c, &p, NULL) == IC_OK)
                        acc += p.step_s;
                    n++;
                }
        double dt = now_s() - t0;
        sink = acc;
        rates[r] = (double)n / dt;
        points = n;
    }
    gsl_sort(rates, 1, REPEATS);
    printf("decode points per second, one core: median %.3g (min %.3g, max %.3g) over %d runs "
           "of %llu points\n",
           gsl_stats_median_from_sorted_data(rates, 1, REPEATS), rates[0], rates[REPEATS - 1],
           REPEATS, (unsigned long long)points);

    /* 1b. the same points in a shuffled order (a fixed seed): no two
     * consecutive points share a model and context, so nothing computed
     * for the previous point is reused */
    struct pt {
        uint32_t model;
        uint64_t b, s;
    } *grid = malloc(points / 50 * sizeof *grid);
    if (!grid)
        return 1;
    size_t ng = 0;
    for (size_t i = 0; i < nm; i++)
        for (uint64_t b = 1; b <= 4096; b *= 2)
            for (uint64_t s = 128; s <= (1u << 20); s *= 2)
                grid[ng++] = (struct pt){(uint32_t)i, b, s};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    if (!rng)
        return 1;
    gsl_rng_set(rng, 12345);
    gsl_ran_shuffle(rng, grid, ng, sizeof *grid);
    gsl_rng_free(rng);
    for (int r = 0; r < REPEATS; r++) {
        double acc = 0, t0 = now_s();
        for (int rep = 0; rep < 50; rep++)
            for (size_t j = 0; j < ng; j++) {
                struct ic_decode_cfg c = ic_decode_defaults();
                c.chips = 8;
                c.batch = grid[j].b;
                c.context = grid[j].s;
                struct ic_point p;
                if (ic_decode(&stats[grid[j].model], h, &c, &p, NULL) == IC_OK)
                    acc += p.step_s;
            }
        sink = acc;
        rates[r] = (double)(50 * ng) / (now_s() - t0);
    }
    free(grid);
    gsl_sort(rates, 1, REPEATS);
    printf("decode points per second in shuffled order, one core: median %.3g (min %.3g, max "
           "%.3g) over %d runs\n",
           gsl_stats_median_from_sorted_data(rates, 1, REPEATS), rates[0], rates[REPEATS - 1],
           REPEATS);

    /* 2. load every file and print one point, as one CLI call does at most */
    enum { LOADS = 21 };
    double ms[LOADS];
    for (int r = 0; r < LOADS; r++) {
        double t0 = now_s();
        for (size_t i = 0; i < nm; i++)
            if (ic_model_load(mp[i], m, &e))
                return 2;
        for (size_t i = 0; i < nh; i++)
            if (ic_hw_load(hp[i], h, &e))
                return 2;
        FILE *devnull = fopen("/dev/null", "w");
        char *args[] = {(char *)"infcalc", (char *)"--model", (char *)"llama3-70b",
                        (char *)"--hw", (char *)"v5e", (char *)"--chips", (char *)"16",
                        (char *)"--format", (char *)"json", NULL};
        int rc = ic_cli_run(9, args, devnull, stderr);
        fclose(devnull);
        if (rc)
            return rc;
        ms[r] = (now_s() - t0) * 1e3;
    }
    gsl_sort(ms, 1, LOADS);
    printf("load %zu hwdb + %zu modeldb files and print one point: median %.2f ms "
           "(min %.2f, max %.2f) over %d runs\n",
           nh, nm, gsl_stats_median_from_sorted_data(ms, 1, LOADS), ms[0], ms[LOADS - 1],
           LOADS);
    free(stats);
    free(m);
    free(h);
    ic_db_paths_free(mp, nm);
    ic_db_paths_free(hp, nh);
    return 0;
}
