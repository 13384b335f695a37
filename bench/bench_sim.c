/* bench_sim: how fast the serving simulation runs (figures printed, never
 * asserted): 100,000 requests of Llama-3-70B on 8 x H100 (prompt 2048,
 * output 300, Poisson at 8 requests/s, the chunked scheduler), requests and
 * steps simulated per second of one core, median of 5 runs; a capacity
 * search's 20 rates of 2,000 requests each; 4,096 replicas behind a router;
 * and the step table's error: the
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_rss_MiB(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024; /* Linux: KiB */
}

/* n trace lines written into a pipe by a child process: Poisson arrivals
 * at 8/s, prompt 1024 .. 3071 (mean 2048), output 100 .. 499 (mean ~300),
 * from a fixed 64-bit LCG. The simulation reads /dev/fd/N; -1 on failure. */
static pid_t trace_writer(uint64_t n, char *path, size_t cap)
{
    int fd[2];
    if (pipe(fd))
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        FILE *f = fdopen(fd[1], "w");
        if (!f)
            _exit(1);
        uint64_t x = 88172645463325252u;
        double t = 0;
        fputs("arrival_s,prompt,output\n", f);
        for (uint64_t i = 0; i < n; i++) {
            x = x * 6364136223846793005u + 1442695040888963407u;
            double u = (double)(x >> 11) * 0x1p-53;
            t += -log1p(-u) / 8;
            x = x * 6364136223846793005u + 1442695040888963407u;
            unsigned p = 1024 + (unsigned)((x >> 33) % 2048), o = 100 + (unsigned)((x >> 17) % 400);
            if (fprintf(f, "%.6f,%u,%u\n", t, p, o) < 0)
                _exit(1);
        }
        _exit(fclose(f) ? 1 : 0);
    }
    close(fd[1]);
    snprintf(path, cap, "/dev/fd/%d", fd[0]);
    return pid;
}

static int trace_run(const struct ic_model_stats *st, const struct ic_hw *h, uint64_t n)
{
    char path[64];
    pid_t pid = trace_writer(n, path, sizeof path);
    if (pid < 0)
        return 1;
    struct ic_sim_cfg c = ic_sim_defaults();
    c.dec.chips = 8;
    c.source = IC_SRC_TRACE;
    c.trace = path;
    c.requests = 0;
    c.warmup = n / 100;
    struct ic_sim_result res;
    struct ic_err e = {0};
    double t0 = now_s();
    int rc = ic_sim_run(st, h, &c, &res, &e);
    double dt = now_s() - t0;
    close(atoi(path + 8));
    int status = 0;
    waitpid(pid, &status, 0);
    if (rc) {
        ic_err_print(stderr, &e);
        return 1;
    }
    printf("trace of %llu requests through a pipe: %.3g s (%.3g requests/s, the writer "
           "alongside), %llu steps (step table: %.3g%% hits), P99 TTFT %.3g s, peak RSS %.1f MiB\n",
           (unsigned long long)res.completed, dt, (double)res.completed / dt,
           (unsigned long long)res.steps,
           100.0 * (double)res.step_cache_hits /
               (double)(res.step_cache_hits + res.step_cache_misses),
           res.ttft.p[2], peak_rss_MiB());
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
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

    /* many servers: 4,096 replicas behind round-robin, 20,000 requests at
     * 1,000/s (each event costs O(log servers): a heap of the busy ones'
     * ends and a list of those with news, not a scan of all of them) */
    {
        struct ic_sim_cfg r = c;
        r.replicas = 4096;
        r.rate = 1000;
        r.requests = 20000;
        r.warmup = 2000;
        struct ic_sim_result res;
        const double t1 = now_s();
        if (ic_sim_run(&st, h, &r, &res, &e)) {
            ic_err_print(stderr, &e);
            return 1;
        }
        const double dt = now_s() - t1;
        printf("4096 replicas, 20000 requests: %.3g s (%.3g requests/s, %llu steps)\n", dt,
               20000 / dt, (unsigned long long)res.steps);
    }

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

    /* a trace streamed: a tenth of it, then all of it */
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000;
    printf("peak RSS before the traces: %.1f MiB\n", peak_rss_MiB());
    if (n >= 10 && (trace_run(&st, h, n / 10) || trace_run(&st, h, n)))
        return 1;
    free(m);
    free(h);
    return 0;
}
