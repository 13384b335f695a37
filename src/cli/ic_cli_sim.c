/* infcalc simulate: the serving simulation (ic_sim) at one load, or over a
 * sweep of arrival rates with the capacity under P99 SLOs and its chart. */
#include "ic_cli_int.h"

#include "ic_plot.h"
#include "ic_rows.h"
#include "ic_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char ic_cli_help_simulate[] =
    "usage: infcalc simulate --model M --hw H [--chips N] [--rate R | --rates R1,R2,..]\n"
    "                        [--prompt T] [--output L] [--ttft TIME --tpot TIME] [options]\n"
    "\n"
    "Simulates one serving replica request by request, each step timed by infcalc's\n"
    "step model: arrivals Poisson at --rate (or all at once), prompt and output\n"
    "lengths fixed or drawn from a distribution, continuous batching (at most\n"
    "--max-seqs sequences, --max-tokens new tokens a step), chunked prefill or\n"
    "prefill-first, a paged KV cache over the HBM left after the weights, admission\n"
    "by free blocks and preemption by recompute. Prints throughput (requests/s,\n"
    "output tokens/s, per chip), TTFT, TPOT (per request: decode time / (output -\n"
    "1)), inter-token latency and end-to-end latency at P50/P90/P99, the mean\n"
    "batch, KV occupancy, preemptions and, with SLOs, goodput. --rates sweeps\n"
    "loads and states the capacity: the largest rate whose P99 TTFT and P99 TPOT\n"
    "meet --ttft and --tpot (refined between the rates that pass and fail).\n"
    "Percentiles come from 0.23%-wide histogram bins; step times from a table of\n"
    "contexts rounded in steps of 1/32 of the power of two below them.\n"
    "\n"
    "example: infcalc simulate --model llama3-70b --hw h100 --chips 8 --rate 4 --prompt 2048\n"
    "         --output 300 --ttft 2s --tpot 50ms\n";

static const struct ic_col sim_cols[] = {
    {"rate_per_s", "rate req/s", IC_K_NUM},
    {"requests_per_s", "req/s", IC_K_NUM},
    {"output_tokens_per_s", "out tok/s", IC_K_NUM},
    {"output_tokens_per_s_per_chip", "out tok/s/chip", IC_K_NUM},
    {"ttft.p50_s", "TTFT p50", IC_K_S},
    {"ttft.p90_s", "TTFT p90", IC_K_S},
    {"ttft.p99_s", "TTFT p99", IC_K_S},
    {"tpot.p50_s", "TPOT p50", IC_K_S},
    {"tpot.p90_s", "TPOT p90", IC_K_S},
    {"tpot.p99_s", "TPOT p99", IC_K_S},
    {"itl.p99_s", "ITL p99", IC_K_S},
    {"e2e.p50_s", "E2E p50", IC_K_S},
    {"e2e.p99_s", "E2E p99", IC_K_S},
    {"mean_batch", "mean batch", IC_K_NUM},
    {"kv_occupancy", "KV used", IC_K_FRAC},
    {"preemptions", "preempted", IC_K_INT},
    {"goodput_per_s", "goodput req/s", IC_K_NUM},
    {"meets_slo", "P99 SLOs met", IC_K_BOOL},
};

struct sim_setup {
    struct ic_cli_setup s;
    struct ic_sim_cfg c;
};

static void fill_cfg(const struct ic_opts *a, struct sim_setup *x)
{
    struct ic_sim_cfg *c = &x->c;
    *c = ic_sim_defaults();
    c->dec = x->s.dec;
    c->dec.estimate = a->given[IC_OPT_ESTIMATE] ? (enum ic_estimate)a->estimate
                                                : ic_decode_default_estimate(x->s.h);
    c->requests = a->given[IC_OPT_REQUESTS] ? a->requests : 2000;
    if (a->given[IC_OPT_PROMPT])
        c->prompt.mean = (double)a->prompt;
    if (a->given[IC_OPT_OUTPUT])
        c->output.mean = (double)a->output;
    c->prompt.dist = (enum ic_sim_dist)a->prompt_dist;
    c->output.dist = (enum ic_sim_dist)a->output_dist;
    c->prompt.cv = a->given[IC_OPT_PROMPT_CV] ? a->prompt_cv : c->prompt.dist ? 0.5 : 0;
    c->output.cv = a->given[IC_OPT_OUTPUT_CV] ? a->output_cv : c->output.dist ? 0.5 : 0;
    if (a->given[IC_OPT_MAX_SEQS])
        c->max_seqs = a->max_seqs;
    if (a->given[IC_OPT_MAX_TOKENS])
        c->max_tokens = a->max_tokens;
    if (a->given[IC_OPT_BLOCK])
        c->block = a->block;
    if (a->given[IC_OPT_MEM_UTIL])
        c->mem_util = a->mem_util;
    c->sched = (enum ic_sim_sched)a->scheduler;
    if (a->given[IC_OPT_MFU])
        c->prefill_mfu = a->mfu;
    if (a->given[IC_OPT_SEED])
        c->seed = a->seed;
    c->ttft_slo_s = a->given[IC_OPT_TTFT] ? a->ttft_s : 0;
    c->tpot_slo_s = a->given[IC_OPT_TPOT] ? a->tpot_s : 0;
}

static bool meets(const struct ic_sim_cfg *c, const struct ic_sim_result *r)
{
    return (!(c->ttft_slo_s > 0) || r->ttft.p[2] <= c->ttft_slo_s) &&
           (!(c->tpot_slo_s > 0) || r->tpot.p[2] <= c->tpot_slo_s);
}

/* One run at rate (0: offline); the warm-up 10% of the requests under a
 * rate unless given. */
static int run_at(const struct ic_opts *a, const struct sim_setup *x, double rate,
                  struct ic_sim_result *r, struct ic_err *e)
{
    struct ic_sim_cfg c = x->c;
    c.rate = rate;
    c.warmup = a->given[IC_OPT_WARMUP] ? a->warmup : rate > 0 ? c.requests / 10 : 0;
    if (c.warmup >= c.requests)
        return ic_err_set(e, IC_EINVAL, NULL, 0, 0,
                          "--warmup %llu leaves no request of the %llu to count",
                          (unsigned long long)c.warmup, (unsigned long long)c.requests);
    return ic_sim_run(&x->s.st, x->s.h, &c, r, e);
}

static void add_row(struct ic_rows *rows, const struct ic_sim_cfg *c, double rate,
                    const struct ic_sim_result *r)
{
    ic_rows_num(rows, "rate_per_s", rate);
    ic_rows_num(rows, "requests_per_s", r->requests_per_s);
    ic_rows_num(rows, "output_tokens_per_s", r->output_tokens_per_s);
    ic_rows_num(rows, "output_tokens_per_s_per_chip", r->output_tokens_per_s_per_chip);
    ic_rows_num(rows, "ttft.p50_s", r->ttft.p[0]);
    ic_rows_num(rows, "ttft.p90_s", r->ttft.p[1]);
    ic_rows_num(rows, "ttft.p99_s", r->ttft.p[2]);
    ic_rows_num(rows, "tpot.p50_s", r->tpot.p[0]);
    ic_rows_num(rows, "tpot.p90_s", r->tpot.p[1]);
    ic_rows_num(rows, "tpot.p99_s", r->tpot.p[2]);
    ic_rows_num(rows, "itl.p99_s", r->itl.p[2]);
    ic_rows_num(rows, "e2e.p50_s", r->e2e.p[0]);
    ic_rows_num(rows, "e2e.p99_s", r->e2e.p[2]);
    ic_rows_num(rows, "mean_batch", r->mean_batch);
    ic_rows_num(rows, "kv_occupancy", r->kv_occupancy);
    ic_rows_num(rows, "preemptions", (double)r->preemptions);
    ic_rows_num(rows, "goodput_per_s", r->goodput_per_s);
    ic_rows_num(rows, "meets_slo", meets(c, r));
}

/* The rate sweep's chart: left, P50/P99 TTFT and TPOT against requests/s
 * with the SLO lines and the capacity; right, output tokens/s per chip
 * against P50 TPOT and against P99 TTFT, one point per rate (labelled with
 * it): the serving counterpart of the decode Pareto panel. */
static int draw(const char *path, const int *size, const char *title, const double *rates,
                const struct ic_sim_result *res, size_t n, const struct ic_sim_cfg *c,
                double capacity, FILE *errf)
{
    double *v = malloc((7 * n + 6) * sizeof *v);
    char *lab = malloc(n * 16 + 1);
    const char **labels = malloc((n ? n : 1) * sizeof *labels);
    if (!v || !lab || !labels) {
        free(v);
        free(lab);
        free(labels);
        return ic_cli_oom(errf);
    }
    double *t50 = v, *t99 = v + n, *p50 = v + 2 * n, *p99 = v + 3 * n, *tput = v + 4 * n,
           *sx = v + 7 * n, *sy = v + 7 * n + 2, *sy2 = v + 7 * n + 4;
    for (size_t i = 0; i < n; i++) {
        t50[i] = res[i].ttft.p[0];
        t99[i] = res[i].ttft.p[2];
        p50[i] = res[i].tpot.p[0];
        p99[i] = res[i].tpot.p[2];
        tput[i] = res[i].output_tokens_per_s_per_chip;
        snprintf(lab + 16 * i, 16, "%.3g/s", rates[i]);
        labels[i] = lab + 16 * i;
    }
    /* the SLO lines span the rates drawn, no further */
    sx[0] = rates[0], sx[1] = rates[n - 1];
    sy[0] = sy[1] = c->ttft_slo_s;
    sy2[0] = sy2[1] = c->tpot_slo_s;
    struct ic_plot_series ser[6] = {
        {"TTFT P50", rates, t50, n, false, false}, {"TTFT P99", rates, t99, n, true, false},
        {"TPOT P50", rates, p50, n, false, false}, {"TPOT P99", rates, p99, n, true, false},
    };
    size_t ns = 4;
    if (c->ttft_slo_s > 0)
        ser[ns++] = (struct ic_plot_series){"TTFT SLO", sx, sy, 2, true, true};
    if (c->tpot_slo_s > 0)
        ser[ns++] = (struct ic_plot_series){"TPOT SLO", sx, sy2, 2, true, true};
    const struct ic_plot_series ser2[2] = {
        {"against P50 TPOT (labels: requests/s)", p50, tput, n, false, false},
        {"against P99 TTFT", t99, tput, n, true, false},
    };
    char sub[300];
    snprintf(sub, sizeof sub, "prompt %.0f, output %.0f tokens (%s); %s; capacity %s",
             c->prompt.mean, c->output.mean, ic_sim_dist_name(c->output.dist),
             c->dec.estimate == IC_EST_EXPECTED ? "expected time" : "ideal bound",
             capacity > 0 ? "marked" : "not reached");
    const struct ic_plot_lines panels[2] = {
        {.x_label = "requests per second", .y_label = "latency", .xlog = false, .ylog = true,
         .ytime = true, .series = ser, .n_series = ns, .vline = capacity,
         .vline_label = "capacity under the P99 SLOs"},
        {.x_label = "latency", .y_label = "output tokens/s per chip", .xlog = true,
         .ylog = true, .xtime = true, .series = ser2, .n_series = 2,
         .vline = c->tpot_slo_s, .vline_label = "TPOT SLO", .point_labels = labels,
         .labelled_series = 0},
    };
    const struct ic_plot_figure f = {title, sub, panels, 2};
    struct ic_err e = {0};
    int rc = ic_plot_figure_write(path, size ? size[0] : 1600, size ? size[1] : 1000, &f, &e);
    free(v);
    free(lab);
    free(labels);
    return rc ? ic_cli_report(errf, rc, &e) : 0;
}

int ic_cli_cmd_simulate(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    struct sim_setup x;
    int rc = ic_cli_setup(a, db, "simulate", &x.s, errf);
    if (rc)
        return rc;
    fill_cfg(a, &x);
    if (a->given[IC_OPT_RATE] && a->given[IC_OPT_RATES]) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage(errf, "give --rate R or --rates R1,R2,.., not both");
    }
    bool sweep = a->given[IC_OPT_RATES] || a->given[IC_OPT_PLOT];
    struct ic_err e = {0};
    double rates[IC_OPT_MAX_LIST + 8];
    struct ic_sim_result res[IC_OPT_MAX_LIST + 8];
    size_t n = 0;
    double offline = 0;
    if (sweep && !a->given[IC_OPT_RATES]) {
        /* 10% to 120% of the offline throughput */
        struct ic_sim_result r0;
        if ((rc = run_at(a, &x, 0, &r0, &e)))
            goto lib_fail;
        offline = r0.requests_per_s;
        static const double f[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            rates[n++] = f[i] * offline;
    } else if (sweep) {
        for (int i = 0; i < a->n[IC_OPT_RATES]; i++)
            rates[n++] = a->rates[i];
    } else {
        rates[n++] = a->given[IC_OPT_RATE] ? a->rate : 0;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = run_at(a, &x, rates[i], &res[i], &e)))
            goto lib_fail;
    /* the capacity: the largest rate meeting both P99 SLOs, refined by
     * bisection between the last rate that meets them and the next */
    double capacity = 0;
    bool slos = x.c.ttft_slo_s > 0 || x.c.tpot_slo_s > 0;
    if (sweep && slos) {
        size_t k = 0;
        while (k < n && rates[k] > 0 && meets(&x.c, &res[k]))
            k++;
        if (k > 0) {
            double lo = rates[k - 1], hi = k < n ? rates[k] : 0;
            for (int it = 0; hi > 0 && it < 6; it++) {
                double mid = (lo + hi) / 2;
                struct ic_sim_result rm;
                if ((rc = run_at(a, &x, mid, &rm, &e)))
                    goto lib_fail;
                if (meets(&x.c, &rm))
                    lo = mid;
                else
                    hi = mid;
            }
            capacity = lo;
        }
    }
    struct ic_rows rows;
    ic_rows_init(&rows, sim_cols, (int)(sizeof sim_cols / sizeof sim_cols[0]));
    for (size_t i = 0; i < n; i++) {
        if (ic_rows_add(&rows)) {
            ic_rows_free(&rows);
            ic_cli_setup_free(&x.s);
            return ic_cli_oom(errf);
        }
        add_row(&rows, &x.c, rates[i], &res[i]);
    }
    char title[1400], slo[160] = "";
    if (slos)
        snprintf(slo, sizeof slo, "\nSLOs: P99 TTFT <= %.4g s, P99 TPOT <= %.4g s",
                 x.c.ttft_slo_s, x.c.tpot_slo_s);
    char cap[200] = "";
    if (sweep && slos && capacity > 0)
        snprintf(cap, sizeof cap, "\ncapacity under them: %.4g requests/s (%.4g output tokens/s "
                                  "per chip)", capacity,
                 capacity * x.c.output.mean / (double)x.c.dec.chips);
    else if (sweep && slos)
        snprintf(cap, sizeof cap, "\ncapacity under them: none of these rates meets them");
    const struct ic_sim_result *r0 = &res[0];
    snprintf(title, sizeof title,
             "%s on %llu x %s, weights %s, KV %s, compute %s; %s\n"
             "%llu requests (%s); prompt %.0f (%s), output %.0f (%s) tokens; %s, at most %llu "
             "sequences and %llu tokens a step; KV pool %llu blocks of %llu tokens%s%s%s",
             x.s.m->name, (unsigned long long)x.c.dec.chips, x.s.h->name,
             ic_dtype_traits(x.c.dec.weights)->name, ic_dtype_traits(x.c.dec.kv)->name,
             ic_dtype_traits(x.c.dec.compute)->name,
             x.c.dec.estimate == IC_EST_EXPECTED ? "expected time" : "ideal bound",
             (unsigned long long)x.c.requests,
             sweep ? "each rate, 10% warm-up" : rates[0] > 0 ? "Poisson, 10% warm-up" : "all at t = 0",
             x.c.prompt.mean, ic_sim_dist_name(x.c.prompt.dist), x.c.output.mean,
             ic_sim_dist_name(x.c.output.dist),
             x.c.sched == IC_SCHED_CHUNKED ? "chunked prefill" : "prefill first",
             (unsigned long long)x.c.max_seqs, (unsigned long long)x.c.max_tokens,
             (unsigned long long)r0->kv_blocks, (unsigned long long)x.c.block,
             offline > 0 ? "\nrates: 10% to 120% of the offline throughput" : "", slo, cap);
    rc = ic_cli_write_rows(out, errf, x.s.fmt, &rows, title, sweep);
    ic_rows_free(&rows);
    if (!rc && a->given[IC_OPT_PLOT]) {
        char t[300];
        snprintf(t, sizeof t, "%s on %llu x %s: latency against load", x.s.m->name,
                 (unsigned long long)x.c.dec.chips, x.s.h->name);
        rc = draw(a->plot, a->given[IC_OPT_PLOT_SIZE] ? a->plot_size : NULL, t, rates, res, n,
                  &x.c, capacity, errf);
    }
    ic_cli_setup_free(&x.s);
    return rc;
lib_fail:
    ic_cli_setup_free(&x.s);
    return ic_cli_report(errf, rc, &e);
}
