/* infcalc simulate: the serving simulation (ic_sim) at one load, or over a
 * sweep of arrival rates with the capacity under P99 SLOs and its chart. */
#include "ic_cli_int.h"

#include "ic_out.h"
#include "ic_plot.h"
#include "ic_rows.h"
#include "ic_sim.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char ic_cli_help_simulate[] =
    "usage: infcalc simulate --model M --hw H [--chips N] [--rate R | --rates R1,R2,..]\n"
    "                        [--prompt T] [--output L] [--ttft TIME --tpot TIME] [options]\n"
    "\n"
    "Simulates one serving replica request by request, each step timed by infcalc's\n"
    "step model: arrivals Poisson at --rate (or all at once), prompt and output\n"
    "lengths fixed or drawn from a distribution, continuous batching (at most\n"
    "--max-seqs sequences, --max-tokens new tokens a step), chunked prefill or\n"
    "prefill-first, a paged KV cache over the memory left after the weights, admission\n"
    "by free blocks and preemption by recompute (or --preempt swap). Requests may\n"
    "come from a --trace CSV (read as it streams; with --rate its lengths at Poisson\n"
    "arrivals), find part of their prompt in a prefix cache (--prefix-hit, or the\n"
    "trace's prefix ids: an LRU of prefix blocks in the pool), run on --replicas R\n"
    "behind a --router, or on a disaggregated layout (--prefill-chips: a prefill\n"
    "server beside each decode server of --chips, or --prefill-servers P of them\n"
    "for the --replicas R decode servers: the prefill server holds a prompt's KV\n"
    "until a decode server has blocks for it and pulls it, over the fabric when\n"
    "every server fits one fabric domain, else the scale-out link; the first token\n"
    "is out when it lands). Prints throughput (requests/s, output tokens/s, per\n"
    "chip), TTFT, TPOT (per request: decode time / (output - 1)), inter-token\n"
    "latency (every gap between two tokens of a request) and end-to-end latency\n"
    "at P50/P90/P99, the mean batch (sequences in a step) and KV used (the pool's\n"
    "share held), both weighted by the steps' time, of the decode servers where\n"
    "disaggregated (the prefill servers' in the title, and in JSON and CSV as\n"
    "prefill_mean_batch and prefill_kv_occupancy), preemptions and, with SLOs,\n"
    "goodput. --rates sweeps loads and states the capacity: the largest rate\n"
    "whose P99 TTFT and P99 TPOT meet --ttft and --tpot (refined between the rates\n"
    "that pass and fail).\n"
    "Percentiles come from 0.23%-wide histogram bins; step times from a table of\n"
    "contexts rounded in steps of 1/32 of the power of two below them.\n"
    "\n"
    "A trace gives each request its prompt and output tokens: --prompt, --output\n"
    "and their -dist and -cv are refused beside it. A trace replayed is opened\n"
    "once per run: give a file, not a pipe, to a sweep.\n"
    "\n"
    "example: infcalc simulate --model llama3-70b --hw h100 --chips 8 --rate 4 --prompt 2048\n"
    "         --output 300 --ttft 2s --tpot 50ms\n"
    "         infcalc simulate --model llama3-70b --hw h100 --chips 8 --prefill-chips 8\n"
    "         --rates 2,4,6,8 --prompt 2048 --output 300 --ttft 2s --tpot 50ms\n";

static const struct ic_col sim_cols[] = {
    /* what was simulated, as every serving analysis's JSON and CSV say it
     * (the title says it in the table) */
    {"model", NULL, IC_K_TEXT},
    {"hw", NULL, IC_K_TEXT},
    {"estimate", NULL, IC_K_TEXT},
    {"engine", NULL, IC_K_TEXT},
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
    {"itl.p50_s", "ITL p50", IC_K_S},
    {"itl.p90_s", "ITL p90", IC_K_S},
    {"itl.p99_s", "ITL p99", IC_K_S},
    {"e2e.p50_s", "E2E p50", IC_K_S},
    {"e2e.p90_s", "E2E p90", IC_K_S},
    {"e2e.p99_s", "E2E p99", IC_K_S},
    {"mean_batch", "mean batch", IC_K_NUM},
    {"kv_occupancy", "KV used", IC_K_FRAC},
    {"preemptions", "preempted", IC_K_INT},
    {"goodput_per_s", "goodput req/s", IC_K_NUM},
    {"meets_slo", "P99 SLOs met", IC_K_BOOL},
    /* the title's figures, on every row for JSON and CSV (they were in the
     * title alone): the SLOs (null where not asked) and the capacity under
     * them over the sweep (0: none of its rates meets them; null without a
     * sweep or SLOs) */
    {"slo.ttft_p99_s", NULL, IC_K_S},
    {"slo.tpot_p99_s", NULL, IC_K_S},
    {"capacity_per_s", NULL, IC_K_NUM},
    {"capacity_output_tokens_per_s_per_chip", NULL, IC_K_NUM},
    /* every rate of the sweep met them: the capacity is its highest rate
     * or more (null without a sweep or SLOs) */
    {"capacity_at_least", NULL, IC_K_BOOL},
    /* the layout the per-chip figures divide by (JSON and CSV; the title
     * says it): replicas (decode servers where disaggregated), prefill
     * servers (0 colocated), chips in all, the mean KV hand-off (null
     * colocated) */
    {"replicas", NULL, IC_K_INT},
    {"prefill_servers", NULL, IC_K_INT},
    {"chips", NULL, IC_K_INT},
    {"kv_transfer_mean_s", NULL, IC_K_S},
    /* disaggregated: mean_batch and kv_occupancy are the decode servers';
     * these the prefill servers' (the title says them; null colocated) */
    {"prefill_mean_batch", NULL, IC_K_NUM},
    {"prefill_kv_occupancy", NULL, IC_K_FRAC},
};

struct sim_setup {
    struct ic_cli_setup s;
    struct ic_sim_cfg c;
};

/* The options' workload and scheduler (ic_opts_sim_cfg, as optimize reads
 * them), on the setup's chips and types with the estimate simulate uses. */
static void fill_cfg(const struct ic_opts *a, struct sim_setup *x)
{
    struct ic_sim_cfg *c = &x->c;
    ic_opts_sim_cfg(a, c);
    c->dec = x->s.dec; /* its estimate resolved by ic_cli_setup */
    ic_cli_sim_engine(a, x->s.en, c);
}

void ic_cli_sim_engine(const struct ic_opts *a, const struct ic_engine *en, struct ic_sim_cfg *c)
{
    if (!a->given[IC_OPT_MAX_SEQS] && en && en->max_batch)
        c->max_seqs = en->max_batch; /* the engine's own default */
}

int ic_cli_sim_check(const struct ic_opts *a, FILE *errf)
{
    /* '-' elsewhere means standard input; here it made a file named '-' */
    if (a->given[IC_OPT_REQUESTS_CSV] && strcmp(a->requests_csv, "-") == 0)
        return ic_cli_usage_hint(errf, "give a file's path (the summary goes to standard output)",
                                 "--requests-csv: '-' is not a file");
    /* an SLO of 0 is met by no request (0 read as no SLO at all) */
    if ((a->given[IC_OPT_TTFT] && !(a->ttft_s > 0)) || (a->given[IC_OPT_TPOT] && !(a->tpot_s > 0)))
        return ic_cli_usage_hint(errf, "leave an SLO out to have none; e.g. '--ttft 2s --tpot "
                                       "50ms'",
                                 "%s 0: no request meets a zero target",
                                 a->given[IC_OPT_TTFT] && !(a->ttft_s > 0) ? "--ttft" : "--tpot");
    /* the capacity lies between the last rate that meets the SLOs and the
     * next: the sweep climbs ('--rates 20,5' read 5 as failing) */
    for (int i = 1; a->given[IC_OPT_RATES] && i < a->n[IC_OPT_RATES]; i++)
        if (!(a->rates[i] > a->rates[i - 1]))
            return ic_cli_usage_hint(errf, "list the rates from the lowest up, each once "
                                           "('--rates 1,2,4')",
                                     "--rates: %g after %g; the sweep climbs, and the "
                                     "capacity is found between the last rate that meets the "
                                     "SLOs and the next", a->rates[i], a->rates[i - 1]);
    if (a->given[IC_OPT_RATE] && a->rate > 0 && a->rate < 1e-9)
        return ic_cli_usage_hint(errf, "0 runs the requests all at once (offline)",
                                 "--rate %g: expected 0 or a rate from 1e-9 to 1e6 requests "
                                 "per second (as --rates)", a->rate);
    static const struct {
        enum ic_opt len, dist, cv;
    } l[2] = {{IC_OPT_PROMPT, IC_OPT_PROMPT_DIST, IC_OPT_PROMPT_CV},
              {IC_OPT_OUTPUT, IC_OPT_OUTPUT_DIST, IC_OPT_OUTPUT_CV}};
    /* a trace gives every request its lengths (replayed, or in its order
     * at Poisson arrivals): the options of generated lengths would change
     * nothing, so they are refused, not ignored */
    static const enum ic_opt lengths[] = {IC_OPT_PROMPT,      IC_OPT_OUTPUT,
                                          IC_OPT_PROMPT_DIST, IC_OPT_PROMPT_CV,
                                          IC_OPT_OUTPUT_DIST, IC_OPT_OUTPUT_CV};
    for (size_t i = 0; a->cmd == IC_CMD_SIMULATE && a->given[IC_OPT_TRACE] &&
                       i < sizeof lengths / sizeof lengths[0];
         i++) {
        const enum ic_opt o = lengths[i];
        if (a->given[o]) {
            char hint[160];
            snprintf(hint, sizeof hint, "leave %s out (the trace's lines give each request's "
                                        "prompt and output tokens), or leave --trace out to "
                                        "generate the requests",
                     ic_opt_table[o].name);
            return ic_cli_usage_hint(errf, hint,
                                     "%s shapes the lengths of generated requests, and --trace "
                                     "gives each request its own", ic_opt_table[o].name);
        }
    }
    for (int i = 0; i < 2; i++) {
        const uint64_t v = i ? a->output : a->prompt;
        const int dist = i ? a->output_dist : a->prompt_dist;
        const double cv = i ? a->output_cv : a->prompt_cv;
        if (a->given[l[i].len] && v > IC_SIM_MAX_LENGTH)
            return ic_cli_usage_hint(errf, "the simulation holds each request's tokens; the "
                                           "closed forms (prefill, batching) take longer ones",
                                     "%s %llu: the simulation takes at most %llu tokens a "
                                     "request", ic_opt_table[l[i].len].name,
                                     (unsigned long long)v,
                                     (unsigned long long)IC_SIM_MAX_LENGTH);
        if (a->given[l[i].cv] && dist == IC_DIST_FIXED) {
            char hint[96];
            snprintf(hint, sizeof hint, "e.g. '%s lognormal %s %g'",
                     ic_opt_table[l[i].dist].name, ic_opt_table[l[i].cv].name, cv);
            return ic_cli_usage_hint(errf, hint,
                                     "%s spreads the lengths, and %s is fixed; give a "
                                     "distribution", ic_opt_table[l[i].cv].name,
                                     ic_opt_table[l[i].dist].name);
        }
        if (a->given[l[i].cv] && dist == IC_DIST_UNIFORM && cv > 1)
            return ic_cli_usage_hint(errf, "a wider spread needs a skewed distribution: "
                                           "lognormal or gamma",
                                     "%s %g with %s uniform: the half width over the mean is at "
                                     "most 1 (lengths from 0 to twice the mean)",
                                     ic_opt_table[l[i].cv].name, cv,
                                     ic_opt_table[l[i].dist].name);
    }
    /* simulate: a seed for a run that draws nothing (arrivals all at once,
     * or a trace's own times, and fixed lengths) changes nothing: refused,
     * as optimize refuses its simulation's options without a simulation
     * (optimize's capacity search draws its arrivals at rates of its own) */
    const bool drawn = a->cmd != IC_CMD_SIMULATE || (a->given[IC_OPT_RATE] && a->rate > 0) ||
                       a->given[IC_OPT_RATES] || a->given[IC_OPT_PLOT] ||
                       a->prompt_dist != IC_DIST_FIXED || a->output_dist != IC_DIST_FIXED;
    if (a->given[IC_OPT_SEED] && !drawn)
        return ic_cli_usage_hint(errf,
                                 a->given[IC_OPT_TRACE]
                                     ? "give --rate or --rates (the trace's lengths at Poisson "
                                       "arrivals), or leave --seed out"
                                     : "give --rate or --rates (Poisson arrivals) or a length "
                                       "distribution, or leave --seed out",
                                 "--seed: this run draws nothing at random (%s)",
                                 a->given[IC_OPT_TRACE] ? "the trace's arrivals and lengths"
                                                        : "every request at t = 0, lengths "
                                                          "fixed");
    /* prefill-first prefills a prompt whole in a step: a budget under the
     * prompt (the mean of a spread) splits every prompt over steps that
     * admit and preempt without end (--max-tokens 1: 28,688 preemptions
     * in 34 s); vLLM refuses a budget under max_model_len without chunked
     * prefill. A prompt of a spread's tail over the budget runs alone, in
     * pieces. */
    if (a->scheduler == IC_SCHED_PREFILL_FIRST) {
        const struct ic_sim_cfg d = ic_sim_defaults();
        const uint64_t prompt = a->given[IC_OPT_PROMPT] ? a->prompt : (uint64_t)d.prompt.mean;
        const uint64_t budget = a->given[IC_OPT_MAX_TOKENS] ? a->max_tokens : d.max_tokens;
        if (budget < prompt && !a->given[IC_OPT_TRACE])
            return ic_cli_usage_hint(errf, "raise --max-tokens to the prompt, or use "
                                           "--scheduler chunked (prompts in chunks)",
                                     "--max-tokens %llu is under the prompt's %llu tokens%s: "
                                     "--scheduler prefill-first prefills a prompt whole, in "
                                     "one step", (unsigned long long)budget,
                                     (unsigned long long)prompt,
                                     a->prompt_dist ? " (their mean)" : "");
    }
    return 0;
}

void ic_cli_few_requests_note(FILE *errf, uint64_t counted)
{
    /* a percentile over few requests is one request's figure: said, not
     * refused (a short run is a fair check; the ITL's are over tokens) */
    if (counted < 100)
        fprintf(ic_cli_warnf(errf),
                "infcalc: note: %llu request%s counted: a TTFT, TPOT or end-to-end p99 over "
                "fewer than 100 requests is the slowest one's (a p90 over fewer than 10 too); "
                "more --requests for percentiles that settle\n",
                (unsigned long long)counted, counted == 1 ? "" : "s");
}

/* --requests-csv: one line per finished request. */
struct req_csv {
    struct ic_out o;
    bool failed;
    int why; /* the write's errno */
};

static int write_request(void *ctx, const struct ic_sim_request *r)
{
    struct req_csv *w = ctx;
    /* absolute times to a double's digits (9 read 1e11 s to 100 s); a
     * one-token output has no time per output token: an empty cell, as
     * the summary's '-' (it read 0) */
    char tpot[32] = "", replica[24] = "";
    if (r->output > 1)
        snprintf(tpot, sizeof tpot, "%.9g", r->tpot_s);
    /* and no decode server for a one-token output its prefill server ends */
    if (r->replica != IC_SIM_NO_REPLICA)
        snprintf(replica, sizeof replica, "%llu", (unsigned long long)r->replica);
    if (fprintf(w->o.f, "%llu,%s,%.17g,%.17g,%.17g,%.9g,%s,%.9g,%llu,%llu,%llu,%llu,%d\n",
                (unsigned long long)r->index, replica, r->arrival_s,
                r->first_token_s, r->finish_s, r->ttft_s, tpot, r->e2e_s,
                (unsigned long long)r->prompt,
                (unsigned long long)r->output, (unsigned long long)r->cached,
                (unsigned long long)r->preemptions, r->counted ? 1 : 0) < 0) {
        w->failed = true;
        w->why = errno;
        return IC_EIO;
    }
    return 0;
}

/* The counted requests' mean TTFT over the earlier and the later half of
 * their arrivals (by index), and the per-request record it passes on (the
 * requests' CSV, or none): a queue that grows through the run makes the
 * later half wait longer, where a load the deployment sustains leaves the
 * halves alike. */
struct ttft_halves {
    uint64_t mid;        /* the first index of the later half */
    double sum[2];
    uint64_t n[2];
    int (*next)(void *ctx, const struct ic_sim_request *r);
    void *next_ctx;
};

static int record_halves(void *ctx, const struct ic_sim_request *r)
{
    struct ttft_halves *h = ctx;
    if (r->counted) {
        const int k = r->index >= h->mid;
        h->sum[k] += r->ttft_s;
        h->n[k]++;
    }
    return h->next ? h->next(h->next_ctx, r) : 0;
}

/* The requests a run at rate (0: offline) leaves out as its warm-up: 10% of
 * --requests under a rate unless given (none for a trace of every line,
 * whose count is not known before it is read) */
static uint64_t warmup_at(const struct ic_opts *a, const struct sim_setup *x, double rate)
{
    return a->given[IC_OPT_WARMUP] ? a->warmup : rate > 0 ? x->c.requests / 10 : 0;
}

/* One run at rate (0: offline), its warm-up warmup_at's. */
static int run_at(const struct ic_opts *a, const struct sim_setup *x, double rate,
                  struct ic_sim_result *r, struct ic_err *e)
{
    struct ic_sim_cfg c = x->c;
    c.rate = rate;
    c.warmup = warmup_at(a, x, rate);
    if (c.requests && c.warmup >= c.requests) {
        int rc = ic_err_set(e, IC_EINVAL, NULL, 0, 0,
                            "--warmup %llu leaves no request of the %llu to count",
                            (unsigned long long)c.warmup, (unsigned long long)c.requests);
        ic_err_hint(e, "give --warmup below --requests (by default a tenth of them)");
        return rc;
    }
    const int rc = ic_sim_run(&x->s.st, x->s.h, &c, r, e);
    /* a sequence limit too large for memory that the profile set, not the
     * user: said, as --max-seqs is what to change */
    if (rc && e && !a->given[IC_OPT_MAX_SEQS] && x->s.en && x->s.en->max_batch &&
        c.max_seqs == x->s.en->max_batch && strstr(e->msg, "the workspace of")) {
        const size_t l = strlen(e->hint);
        snprintf(e->hint + l, sizeof e->hint - l,
                 " (%llu sequences at once is %s's defaults.max_batch)",
                 (unsigned long long)c.max_seqs, x->s.en->name);
    }
    return rc;
}

static void add_row(struct ic_rows *rows, const struct ic_sim_cfg *c, double rate,
                    const struct ic_sim_result *r)
{
    /* a trace replayed as written has no offered rate (its lines set the
     * arrivals): null, '-', not 0, which reads as all at once */
    ic_rows_num(rows, "rate_per_s", c->trace && !(rate > 0) ? NAN : rate);
    ic_rows_num(rows, "requests_per_s", r->requests_per_s);
    ic_rows_num(rows, "output_tokens_per_s", r->output_tokens_per_s);
    ic_rows_num(rows, "output_tokens_per_s_per_chip", r->output_tokens_per_s_per_chip);
    ic_rows_num(rows, "ttft.p50_s", r->ttft.p[0]);
    ic_rows_num(rows, "ttft.p90_s", r->ttft.p[1]);
    ic_rows_num(rows, "ttft.p99_s", r->ttft.p[2]);
    /* no TPOT or ITL where every output is one token: '-' (null in JSON) */
    ic_rows_num(rows, "tpot.p50_s", r->tpot.n ? r->tpot.p[0] : NAN);
    ic_rows_num(rows, "tpot.p90_s", r->tpot.n ? r->tpot.p[1] : NAN);
    ic_rows_num(rows, "tpot.p99_s", r->tpot.n ? r->tpot.p[2] : NAN);
    ic_rows_num(rows, "itl.p50_s", r->itl.n ? r->itl.p[0] : NAN);
    ic_rows_num(rows, "itl.p90_s", r->itl.n ? r->itl.p[1] : NAN);
    ic_rows_num(rows, "itl.p99_s", r->itl.n ? r->itl.p[2] : NAN);
    ic_rows_num(rows, "e2e.p50_s", r->e2e.p[0]);
    ic_rows_num(rows, "e2e.p90_s", r->e2e.p[1]);
    ic_rows_num(rows, "e2e.p99_s", r->e2e.p[2]);
    ic_rows_num(rows, "mean_batch", r->mean_batch);
    ic_rows_num(rows, "kv_occupancy", r->kv_occupancy);
    ic_rows_num(rows, "preemptions", (double)r->preemptions);
    /* without an SLO there is no goodput and nothing met: '-' (null) */
    const bool slos = ic_sim_has_slos(c);
    ic_rows_num(rows, "goodput_per_s", slos ? r->goodput_per_s : NAN);
    ic_rows_num(rows, "meets_slo", slos ? ic_sim_meets_slos(c, r) : NAN);
    ic_rows_num(rows, "replicas", (double)r->replicas);
    ic_rows_num(rows, "prefill_servers", (double)r->prefill_servers);
    ic_rows_num(rows, "chips", (double)r->chips);
    ic_rows_num(rows, "kv_transfer_mean_s",
                r->prefill_servers && r->handoffs ? r->kv_transfer_mean_s : NAN);
    ic_rows_num(rows, "prefill_mean_batch", r->prefill_servers ? r->prefill_mean_batch : NAN);
    ic_rows_num(rows, "prefill_kv_occupancy",
                r->prefill_servers ? r->prefill_kv_occupancy : NAN);
}

/* The rate sweep's chart: left, P50/P99 TTFT and TPOT against requests/s
 * with the SLO lines and the capacity; right, output tokens/s per chip
 * against P50 TPOT and against P99 TTFT, one point per rate (labelled with
 * it): the serving counterpart of the decode Pareto panel. */
static int draw(const char *path, const int *size, const char *title, const double *rates,
                const struct ic_sim_result *res, size_t n, const struct ic_sim_cfg *c,
                double capacity, bool cap_at_least, FILE *errf)
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
    /* the SLO lines span the rates drawn, no further (one rate: half of it
     * to 1.5 times it, the axis then drawn over that, a line to be seen) */
    sx[0] = rates[0], sx[1] = rates[n - 1];
    if (n == 1)
        sx[0] = rates[0] / 2, sx[1] = rates[0] * 1.5;
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
    snprintf(sub, sizeof sub, "prompt %.0f, output %.0f tokens (%s); %s; %s",
             c->prompt.mean, c->output.mean, ic_sim_dist_name(c->output.dist),
             c->dec.estimate == IC_EST_EXPECTED ? "expected time" : "ideal bound",
             !ic_sim_has_slos(c) ? "no SLOs given"
             : !(capacity > 0)   ? "capacity under the SLOs below every rate drawn"
             : cap_at_least      ? "every rate drawn meets the SLOs: capacity at least the "
                                   "last"
                                 : "capacity marked");
    /* rates over more than two decades on a log axis (a linear one put
     * all but the last at 0) */
    const bool xlog = n > 1 && rates[0] > 0 && rates[n - 1] / rates[0] > 100;
    const struct ic_plot_lines panels[2] = {
        {.x_label = "requests per second", .y_label = "latency", .xlog = xlog, .ylog = true,
         .ytime = true, .series = ser, .n_series = ns, .vline = capacity,
         .vline_label = cap_at_least ? "capacity at least (every rate met the P99 SLOs)"
                                     : "capacity under the P99 SLOs"},
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
    int rc = ic_cli_sim_check(a, errf);
    if (rc)
        return rc;
    rc = ic_cli_setup(a, db, "simulate", &x.s, errf);
    if (rc)
        return rc;
    fill_cfg(a, &x);
    /* a step carries at most --max-tokens new tokens and decodes at most
     * --max-seqs sequences: the steps a run takes are at least requests x
     * (prompt's uncached share + output) / max-tokens and requests x output /
     * max-seqs. At
     * ~1e6 steps a second here, 2^27 of them is minutes (--max-tokens 1
     * under 2000 prompts of 100,000 tokens: 2e8 steps) */
    if (!a->given[IC_OPT_TRACE]) {
        const double n = (double)x.c.requests,
                     by_tokens = n * (x.c.prompt.mean * (1 - x.c.prefix_hit) + x.c.output.mean) /
                                 (double)x.c.max_tokens,
                     by_seqs = n * x.c.output.mean / (double)x.c.max_seqs,
                     steps = fmax(by_tokens, by_seqs);
        if (steps > 134217728.0) {
            ic_cli_setup_free(&x.s);
            return ic_cli_usage_hint(errf, "raise --max-tokens or --max-seqs, or simulate "
                                           "fewer --requests",
                                     "the run takes at least %.3g steps (%llu requests of "
                                     "%.0f + %.0f tokens, at most %llu new tokens and %llu "
                                     "sequences a step); expected at most 2^27 (minutes)",
                                     steps, (unsigned long long)x.c.requests,
                                     x.c.prompt.mean, x.c.output.mean,
                                     (unsigned long long)x.c.max_tokens,
                                     (unsigned long long)x.c.max_seqs);
        }
    }
    ic_cli_note_uneven(errf, &x.s, x.c.dec.chips, x.c.prefill_chips ? "a decode server" : "a replica");
    if (x.c.prefill_chips)
        ic_cli_note_uneven(errf, &x.s, x.c.prefill_chips, "a prefill server");
    /* as decode warns for --context: the requests' whole length (their
     * mean, under a distribution) past what the model was trained for */
    if (!a->given[IC_OPT_TRACE])
        ic_cli_warn_context(errf, &x.s.st, x.s.m->name,
                            (uint64_t)ceil(x.c.prompt.mean + x.c.output.mean),
                            x.c.prompt.dist || x.c.output.dist ? "--prompt + --output, their means"
                                                               : "--prompt + --output");
    /* options that would change nothing: said, not ignored */
    if (a->given[IC_OPT_PREFIX] && !a->given[IC_OPT_TRACE]) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "--prefix-hit H gives generated requests a cached share "
                                       "of their prompts",
                                 "--prefix sizes a trace's prefix ids, and no --trace is given");
    }
    if (a->given[IC_OPT_PREFILL_SERVERS] && !a->given[IC_OPT_PREFILL_CHIPS]) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "add --prefill-chips N (each prefill server's chips), "
                                       "e.g. '--prefill-chips 8 --prefill-servers 2 --replicas "
                                       "5'",
                                 "--prefill-servers counts a disaggregated layout's prefill "
                                 "servers; without --prefill-chips prefill and decode share "
                                 "each replica");
    }
    if (a->given[IC_OPT_ROUTER] && x.c.replicas < 2 && x.c.prefill_servers < 2) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "give --replicas (or --prefill-servers) 2 or more, or "
                                       "leave out --router",
                                 "--router splits the requests among replicas, and there is "
                                 "one");
    }
    if (a->given[IC_OPT_RATE] && a->given[IC_OPT_RATES]) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "--rate runs one load; --rates sweeps several ('--rates "
                                       "1,2,4')",
                                 "give --rate R or --rates R1,R2,.., not both");
    }
    /* the chart is of a sweep: a single load's run would be replaced by
     * one without a word */
    if (a->given[IC_OPT_RATE] && a->given[IC_OPT_PLOT]) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "give --rates R1,R2,.. to draw those loads, or --plot "
                                       "alone for 10% to 120% of the offline throughput",
                                 "--plot draws latency against a sweep of rates, and --rate "
                                 "runs one");
    }
    bool sweep = a->given[IC_OPT_RATES] || a->given[IC_OPT_PLOT];
    /* a sweep reopens the trace for every run: a pipe gives its lines to
     * the first and none to the rest ("no requests to simulate") */
    struct stat ts;
    if (sweep && a->given[IC_OPT_TRACE] && stat(a->trace, &ts) == 0 && !S_ISREG(ts.st_mode)) {
        ic_cli_setup_free(&x.s);
        return ic_cli_usage_hint(errf, "write the trace to a file first, or give one --rate",
                                 "--trace %s is not a regular file: a sweep (--rates or --plot) "
                                 "replays the trace once per rate, and a pipe can be read "
                                 "once", a->trace);
    }
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
        /* every request over the whole run: with all arriving at 0, a
         * --warmup's requests are served inside the counted ones' window,
         * which the counted rate would divide among (N - W) alone */
        offline = r0.duration_s > 0 ? (double)r0.completed / r0.duration_s : r0.requests_per_s;
        static const double f[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2};
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            rates[n++] = f[i] * offline;
    } else if (sweep) {
        for (int i = 0; i < a->n[IC_OPT_RATES]; i++)
            rates[n++] = a->rates[i];
    } else {
        rates[n++] = a->given[IC_OPT_RATE] ? a->rate : 0;
    }
    struct req_csv w = {0};
    if (a->given[IC_OPT_REQUESTS_CSV]) {
        if (sweep) {
            ic_cli_setup_free(&x.s);
            return ic_cli_usage_hint(errf, "give --rate R (or no rate: offline), not --rates or "
                                           "--plot",
                                     "--requests-csv records one run, not a sweep");
        }
        if ((rc = ic_out_open(&w.o, a->requests_csv, "the requests' CSV", &e)))
            goto lib_fail;
        fputs("index,replica,arrival_s,first_token_s,finish_s,ttft_s,tpot_s,e2e_s,prompt,"
              "output,cached,preemptions,counted\n", w.o.f);
        x.c.on_request = write_request;
        x.c.on_request_ctx = &w;
    }
    /* each load (not a trace's, whose length is not known before its end):
     * its TTFT over the earlier and the later half of its requests */
    struct ttft_halves halves = {.next = x.c.on_request, .next_ctx = x.c.on_request_ctx};
    const bool judge = x.c.requests && !a->given[IC_OPT_TRACE];
    if (judge) {
        x.c.on_request = record_halves;
        x.c.on_request_ctx = &halves;
    }
    double grows[IC_OPT_MAX_LIST + 8][3]; /* a load whose queue grows: late / early, early, late */
    for (size_t i = 0; i < n; i++) {
        halves.mid = (warmup_at(a, &x, rates[i]) + x.c.requests) / 2;
        halves.sum[0] = halves.sum[1] = 0;
        halves.n[0] = halves.n[1] = 0;
        grows[i][0] = 0;
        if ((rc = run_at(a, &x, rates[i], &res[i], &e))) {
            if (w.o.f) {
                struct ic_err e2 = {0};
                ic_out_close(&w.o, true, &e2);
                if (w.failed)
                    rc = ic_err_set(&e, IC_EIO, a->requests_csv, 0, 0,
                                    "cannot write the requests' CSV: %s",
                                    strerror(w.why ? w.why : EIO));
            }
            goto lib_fail;
        }
        /* said where the later half of the counted requests waited for
         * their first token over 1.5 times as long as the earlier half (a
         * steady queue leaves the halves alike; a growing one from empty,
         * past the tenth of warm-up, about 2.4 times) and fewer requests a
         * second were served than arrived */
        if (judge && rates[i] > 0 && halves.n[0] && halves.n[1]) {
            const double early = halves.sum[0] / (double)halves.n[0],
                         late = halves.sum[1] / (double)halves.n[1];
            if (early > 0 && late > 1.5 * early && res[i].requests_per_s < rates[i]) {
                grows[i][0] = late / early;
                grows[i][1] = early;
                grows[i][2] = late;
            }
        }
    }
    if (w.o.f && (rc = ic_out_close(&w.o, false, &e)))
        goto lib_fail;
    x.c.on_request = NULL;
    /* a trace's requests past what the model was trained for, as --prompt
     * and --output are said to be (above) */
    if (a->given[IC_OPT_TRACE])
        ic_cli_warn_context(errf, &x.s.st, x.s.m->name, res[0].longest,
                            "the trace's longest request, prompt + output");
    /* the capacity: the largest rate meeting both P99 SLOs, refined by
     * bisection between the last rate that meets them and the next */
    double capacity = 0;
    bool cap_at_least = false;
    const bool slos = ic_sim_has_slos(&x.c);
    if (sweep && slos) {
        size_t k = 0;
        while (k < n && rates[k] > 0 && ic_sim_meets_slos(&x.c, &res[k]))
            k++;
        if (k > 0 && k < n) {
            /* between the last rate that meets them and the next: the
             * runs' warm-up as run_at gives it under a rate */
            struct ic_sim_cfg c = x.c;
            c.warmup = warmup_at(a, &x, rates[k]);
            if ((rc = ic_sim_capacity_bisect(&x.s.st, x.s.h, &c, rates[k - 1], rates[k], 6,
                                             &capacity, NULL, NULL, &e)))
                goto lib_fail;
        } else if (k > 0) {
            capacity = rates[k - 1];
            cap_at_least = k == n;
        }
    }
    /* output tokens a request over the chips, from the first run: the
     * capacity's output tokens/s per chip */
    const struct ic_sim_result *r0 = &res[0];
    ic_cli_few_requests_note(errf, r0->counted);
    /* a load past what the deployment sustains: its queue grows through
     * the run, so its TTFT and end-to-end figures are the run's length's,
     * not the load's (grows[], above) */
    if (!sweep && grows[0][0] > 0) {
        char te[32], tl[32];
        ic_report_time(te, sizeof te, grows[0][1]);
        ic_report_time(tl, sizeof tl, grows[0][2]);
        fprintf(ic_cli_warnf(errf),
                "infcalc: note: the queue grows through the run: the later half of the "
                "counted requests waited %.3g times as long for their first token as the "
                "earlier half (%s against %s on average), and %.4g of %.4g requests/s "
                "were served; the load is past what this deployment sustains, and the "
                "TTFT and end-to-end figures grow with --requests (a sweep of --rates "
                "with --ttft and --tpot finds the rate it sustains under them)\n",
                grows[0][0], tl, te, r0->requests_per_s, rates[0]);
    } else if (sweep) {
        char list[600] = "";
        size_t l = 0, k = 0;
        for (size_t i = 0; i < n && l < sizeof list - 64; i++)
            if (grows[i][0] > 0)
                l += (size_t)snprintf(list + l, sizeof list - l, "%s%.4g (%.4g served)",
                                      k++ ? ", " : "", rates[i], res[i].requests_per_s);
        if (k)
            fprintf(ic_cli_warnf(errf),
                    "infcalc: note: the queue grows through the run%s at %s requests/s: "
                    "past what this deployment sustains, their TTFT and end-to-end figures "
                    "grow with --requests\n",
                    k == 1 ? "" : "s", list);
    }
    const double per_chip =
        (double)r0->counted_output_tokens / (double)r0->counted / (double)r0->chips;
    struct ic_rows rows;
    ic_rows_init(&rows, sim_cols, (int)(sizeof sim_cols / sizeof sim_cols[0]));
    for (size_t i = 0; i < n; i++) {
        if (ic_rows_add(&rows)) {
            ic_rows_free(&rows);
            ic_cli_setup_free(&x.s);
            return ic_cli_oom(errf);
        }
        ic_rows_text(&rows, "model", x.s.m->name);
        ic_rows_text(&rows, "hw", x.s.h->name);
        ic_cli_estimate_fields(&rows, &x.s);
        add_row(&rows, &x.c, rates[i], &res[i]);
        ic_rows_num(&rows, "slo.ttft_p99_s", x.c.ttft_slo_s > 0 ? x.c.ttft_slo_s : NAN);
        ic_rows_num(&rows, "slo.tpot_p99_s", x.c.tpot_slo_s > 0 ? x.c.tpot_slo_s : NAN);
        /* none of the rates meets them: the capacity lies below the
         * lowest, unknown (null), not 0 */
        const bool cap_known = sweep && slos && capacity > 0;
        ic_rows_num(&rows, "capacity_per_s", cap_known ? capacity : NAN);
        ic_rows_num(&rows, "capacity_output_tokens_per_s_per_chip",
                    cap_known ? capacity * per_chip : NAN);
        ic_rows_num(&rows, "capacity_at_least", sweep && slos ? cap_at_least : NAN);
    }
    char title[3000], slo[240] = "";
    if (slos) {
        /* an SLO not given is no limit (ic_sim_meets_slos), not "<= 0 s" */
        char t1[48] = "none", t2[48] = "none", v[32];
        if (x.c.ttft_slo_s > 0) {
            ic_report_time(v, sizeof v, x.c.ttft_slo_s);
            snprintf(t1, sizeof t1, "<= %s", v);
        }
        if (x.c.tpot_slo_s > 0) {
            ic_report_time(v, sizeof v, x.c.tpot_slo_s);
            snprintf(t2, sizeof t2, "<= %s", v);
        }
        /* offline, every request queues at t = 0: a load no server is
         * sized by (the goodput says how many met them) */
        snprintf(slo, sizeof slo, "\nSLOs: P99 TTFT %s, P99 TPOT %s%s", t1, t2,
                 sweep || rates[0] > 0 || a->given[IC_OPT_TRACE] ? ""
                                       : " (offline, every request at t = 0: give --rates "
                                         "for the capacity under them)");
    }
    char cap[200] = "";
    if (sweep && slos && capacity > 0)
        snprintf(cap, sizeof cap, "\ncapacity under them: %s%.4g requests/s (%.4g output tokens/s "
                                  "per chip)%s",
                 cap_at_least ? "at least " : "", capacity, capacity * per_chip,
                 cap_at_least ? ": every rate swept meets them; sweep higher rates to find it"
                              : "");
    else if (sweep && slos)
        snprintf(cap, sizeof cap, "\ncapacity under them: none of these rates meets them");
    char engine_note[128] = "";
    if (x.s.en)
        snprintf(engine_note, sizeof engine_note, "expected time, engine %s", x.s.en->name);
    char layout[1000] = "", what[600], handoff[64];
    /* none where every output was one token (its prefill server ends it) */
    if (r0->handoffs)
        snprintf(handoff, sizeof handoff, "KV hand-off %.4g ms on average",
                 r0->kv_transfer_mean_s * 1e3);
    else
        snprintf(handoff, sizeof handoff, "no KV hand-off (every output one token)");
    if (x.c.prefill_chips && !x.c.prefill_servers)
        snprintf(layout, sizeof layout,
                 "\ndisaggregated: %llu x (a prefill server of %llu chip%s, KV pool %llu blocks, "
                 "and a decode server of %llu); %s",
                 (unsigned long long)r0->replicas, (unsigned long long)x.c.prefill_chips,
                 x.c.prefill_chips == 1 ? "" : "s", (unsigned long long)r0->prefill_kv_blocks,
                 (unsigned long long)x.c.dec.chips, handoff);
    else if (x.c.prefill_chips)
        snprintf(layout, sizeof layout,
                 "\ndisaggregated: %llu prefill server%s of %llu chip%s (KV pool %llu blocks%s) "
                 "and %llu decode server%s of %llu, %llu chips in all, %s router; %s",
                 (unsigned long long)r0->prefill_servers, r0->prefill_servers == 1 ? "" : "s",
                 (unsigned long long)x.c.prefill_chips, x.c.prefill_chips == 1 ? "" : "s",
                 (unsigned long long)r0->prefill_kv_blocks,
                 r0->prefill_servers == 1 ? "" : " each",
                 (unsigned long long)r0->replicas, r0->replicas == 1 ? "" : "s",
                 (unsigned long long)x.c.dec.chips, (unsigned long long)r0->chips,
                 ic_sim_route_name(x.c.route), handoff);
    /* the mean batch and KV used of the table are the decode servers' */
    if (x.c.prefill_chips)
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout),
                 "\nmean batch and KV used: the decode servers'; the prefill servers'%s: mean "
                 "batch %.4g, KV used %.3g%% (the KV held for the decode servers to pull "
                 "included)",
                 n > 1 ? " in the first run" : "", r0->prefill_mean_batch,
                 100 * r0->prefill_kv_occupancy);
    if (r0->replicas > 1 && !x.c.prefill_servers)
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout),
                 "\n%llu replicas (%llu chips in all), %s router",
                 (unsigned long long)r0->replicas, (unsigned long long)r0->chips,
                 ic_sim_route_name(x.c.route));
    if (r0->prefix_hit_tokens || x.c.prefix_hit > 0)
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout),
                 "\nprefix cache (first run): %.3g%% of prompt tokens found cached%s",
                 r0->prefix_query_tokens
                     ? 100.0 * (double)r0->prefix_hit_tokens / (double)r0->prefix_query_tokens
                     : 0.0,
                 r0->prefix_query_tokens > r0->prompt_tokens
                     ? " (each admission's lookup: readmissions after preemption too)"
                     : "");
    if (x.c.preempt == IC_PREEMPT_SWAP)
        snprintf(layout + strlen(layout), sizeof layout - strlen(layout),
                 "\npreemption by swap over the host link (first run: %.4g s copying)",
                 r0->swap_s);
    /* the warm-up the runs left out, as run_at gave it (a sweep's rates
     * all run under a rate) */
    char warm[64];
    const uint64_t w0 = r0->completed - r0->counted;
    if (w0)
        snprintf(warm, sizeof warm, ", the first %llu a warm-up", (unsigned long long)w0);
    else
        snprintf(warm, sizeof warm, ", no warm-up");
    if (a->given[IC_OPT_TRACE] && x.c.source == IC_SRC_TRACE)
        snprintf(what, sizeof what, "%llu request%s of the trace %s (replayed%s); prompt and "
                 "output from it",
                 (unsigned long long)r0->completed, r0->completed == 1 ? "" : "s", a->trace,
                 warm);
    else if (a->given[IC_OPT_TRACE])
        snprintf(what, sizeof what, "%llu request%s (%s%s); prompt and output from the trace %s "
                 "in its order", (unsigned long long)r0->completed,
                 r0->completed == 1 ? "" : "s",
                 sweep ? "each rate" : rates[0] > 0 ? "Poisson" : "all at t = 0", warm, a->trace);
    else
        snprintf(what, sizeof what, "%llu request%s (%s%s); prompt %.0f (%s), output %.0f (%s) "
                 "tokens", (unsigned long long)x.c.requests, x.c.requests == 1 ? "" : "s",
                 sweep ? "each rate" : rates[0] > 0 ? "Poisson" : "all at t = 0", warm,
                 x.c.prompt.mean, ic_sim_dist_name(x.c.prompt.dist), x.c.output.mean,
                 ic_sim_dist_name(x.c.output.dist));
    char wtext[IC_MODEL_KEPT_LEN + 16];
    ic_model_weights_text(&x.s.st, x.c.dec.weights, wtext, sizeof wtext);
    snprintf(title, sizeof title,
             "%s on %llu x %s, weights %s, KV %s, compute %s; %s\n"
             "%s; %s, at most %llu "
             "sequence%s and %llu token%s a step; KV pool %llu blocks of %llu tokens%s%s%s%s",
             x.s.m->name, (unsigned long long)x.c.dec.chips, x.s.h->name, wtext,
             ic_dtype_traits(x.c.dec.kv)->name,
             ic_dtype_traits(x.c.dec.compute)->name,
             x.c.dec.estimate == IC_EST_IDEAL ? "ideal bound"
             : x.s.en ? engine_note
                      : "expected time",
             what,
             x.c.sched == IC_SCHED_CHUNKED ? "chunked prefill" : "prefill first",
             (unsigned long long)x.c.max_seqs, x.c.max_seqs == 1 ? "" : "s",
             (unsigned long long)x.c.max_tokens, x.c.max_tokens == 1 ? "" : "s",
             (unsigned long long)r0->kv_blocks, (unsigned long long)r0->block,
             layout, offline > 0 ? "\nrates: 10% to 120% of the offline throughput" : "",
             slo, cap);
    rc = ic_cli_write_rows(out, errf, x.s.fmt, &rows, title, sweep);
    ic_rows_free(&rows);
    if (!rc && a->given[IC_OPT_PLOT]) {
        char t[300];
        snprintf(t, sizeof t, "%s on %llu x %s: latency against load", x.s.m->name,
                 (unsigned long long)x.c.dec.chips, x.s.h->name);
        rc = draw(a->plot, a->given[IC_OPT_PLOT_SIZE] ? a->plot_size : NULL, t, rates, res, n,
                  &x.c, capacity, cap_at_least, errf);
    }
    ic_cli_setup_free(&x.s);
    return rc;
lib_fail:
    ic_cli_setup_free(&x.s);
    return ic_cli_report(errf, rc, &e);
}
