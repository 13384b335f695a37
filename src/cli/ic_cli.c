/* ic_cli: option parsing and the decode, list and show commands. */
#include "ic_cli.h"
#include "ic_comm.h"
#include "ic_cli_int.h"
#include "ic_cli_published.h"
#include "ic_cuda.h"

#include "ic_db.h"
#include "ic_decode.h"
#include "ic_err.h"
#include "ic_out.h"
#include "ic_plot.h"
#include "ic_report.h"
#include "ic_selfcheck.h"
#include "ic_serve.h"
#include "ic_kern.h"
#include "ic_sweep.h"
#include "ic_units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifndef IC_VERSION
#define IC_VERSION "dev"
#endif


static const char usage_decode[] =
    "usage: infcalc [decode] --model M --hw H [options]\n"
    "\n"
    "Decode step time, its breakdown, what bounds it, memory and cost for model M\n"
    "on N chips of accelerator H (the ideal bound from spec-sheet peaks).\n"
    "\n"
    "The options marked [,..] take comma-separated lists (--chips 4,8,16): one\n"
    "configuration per combination (at most 16), one curve each in the picture,\n"
    "plus their envelope. --plot draws a batch sweep (step time against batch and\n"
    "the latency / throughput Pareto frontier), a context sweep (step time\n"
    "against context), a chips sweep (step time and tokens/s against the\n"
    "tensor-parallel size, the largest useful one marked) or a two-axis sweep as\n"
    "heatmaps of step time and tokens/s per chip (--sweep batch,context); where\n"
    "the entry has achieved rates, the expected step is drawn solid and the\n"
    "ideal bound dashed.\n"
    "\n"
    "example: infcalc --model llama3-70b --hw v5e --chips 16 --sweep batch\n";

static const char usage_main[] =
    "usage: infcalc [COMMAND] [options]\n"
    "\n"
    "commands:\n"
    "  decode (default)   one decode step or a sweep: infcalc decode --help\n"
    "  list KIND          hw, models or engines: a database, one line per entry\n"
    "  show KIND NAME     one entry (hw, model or engine) in full, with its sources\n"
    "  bench              measure this machine; write a hardware entry for it\n"
    "  validate           time the reference decode kernel against the predictions\n"
    "\n"
    "serving analyses (each has --help):\n"
    "  prefill            time to first token; unfused vs fused attention; chunked\n"
    "  specdec            speculative decoding: tokens per verification, speedup, best k\n"
    "  moe                MoE experts touched, expert parallelism, MLA attention intensity\n"
    "  batching           static vs continuous batching; contiguous vs paged KV\n"
    "  prefix             prefix caching: FLOPs and TTFT saved, memory held, reload time\n"
    "  disagg             prefill / decode server ratio\n"
    "  cost               dollars per million tokens and FLOPs per dollar\n"
    "  optimize           cheapest hardware, chips, precision and batch meeting SLOs\n"
    "  bestofn            chance that N candidates include a success, and its cost\n"
    "  simulate           requests served: latency percentiles at a load, capacity under SLOs\n"
    "  check-published    the estimates against public end-to-end measurements\n"
    "  serve              the calculator in a browser: infcalc serve, then open the address\n"
    "  help [COMMAND]     this text, or a command's\n"
    "\n"
    "  --version          print the version\n"
    "\n";

static const char usage_list[] =
    "usage: infcalc list hw|models|engines [--db DIR]\n"
    "\n"
    "Lists the accelerators (name, aliases, memory, bandwidth, bf16 peak, fabric,\n"
    "price), the models (name, parameters, active, layers, KV bytes per token\n"
    "in bf16, attention kind) or the engine profiles of enginedb/ (name,\n"
    "aliases, engine, graphs, scheduler, default batch limit, quantized GEMV).\n";

static const char usage_show[] =
    "usage: infcalc show hw|model|engine NAME [--db DIR]\n"
    "\n"
    "Prints one entry in full: every figure with its source; for a model also\n"
    "the derived parameter groups and KV bytes per token, and the published\n"
    "totals they are checked against.\n";

static const char usage_bench[] =
    "usage: infcalc bench [--device cpu|cuda] [--threads N] [--quick] [--out FILE]\n"
    "                     [--name NAME] [--llc SIZE]\n"
    "\n"
    "Measures this machine: read-only memory bandwidth over a 1 GiB buffer, and\n"
    "at least 4x the last-level cache (all threads and one), STREAM copy and triad\n"
    "(for reference), a working-set ladder from 256 KiB up, the fp32 FMA peak, the\n"
    "fixed cost of a parallel region, and the reference kernel's matmul for fp32,\n"
    "bf16 and int8 weights (batch 1 from DRAM and from the LLC, batch 256 in\n"
    "cache, batches 1-256 from DRAM for the memory/compute transition). Medians of\n"
    "repeats after a warm-up; progress on stderr; about a minute (--quick:\n"
    "seconds, its buffer 4x the last-level cache).\n"
    "Writes a hardware entry with a measured section (default this-machine.yaml,\n"
    "named this-machine) for --hw FILE and 'infcalc validate'.\n"
    "\n"
    "--device cuda measures CUDA device 0 instead: HBM read bandwidth over >= 1 GiB\n"
    "(L2 flushed between repeats), cuBLAS bf16 GEMM at 8192^3, the kernel launch\n"
    "floor plain and from a CUDA graph, the CUDA decode step's matmul for bf16 and\n"
    "int8 weights (batch 1 from HBM and from the L2, batches 1-256) and its split-K\n"
    "attention; CUDA-event timings after warm-up (default this-gpu.yaml, named\n"
    "this-gpu). A build without CUDA exits 2; a machine without a device, 1.\n";

static const char usage_validate[] =
    "usage: infcalc validate --hw FILE [--device cpu|cuda] [--threads N] [--quick]\n"
    "                        [--rounds R] [--seed S] [--csv FILE] [--plot-prefix PREFIX]\n"
    "                        [--model M [--db DIR]]\n"
    "\n"
    "Times the reference decode kernel on three shapes (dim 1024, 2048 and 4096; 1, 4\n"
    "and 8 query heads per KV head) over batch 1-256 x context 128-16384 (the KV\n"
    "cache capped at 2 GiB) x fp32/bf16/int8 weights, plus a model small enough to\n"
    "sit in the LLC, in random order, R rounds (default 3), with a memory, a\n"
    "compute and an attention probe beside every point (the kernel's own matmul\n"
    "and attention, as the bench took them); predicts each point with infcalc's expected time on FILE (an entry\n"
    "written by 'infcalc bench'), its rates rescaled by the probes, and reports\n"
    "median absolute, signed median and 90th-percentile error and the share within\n"
    "10%, per regime. Writes the CSV (default plots/validate-cpu.csv) and\n"
    "measured-vs-predicted charts (default PREFIX plots/validate-cpu). --quick: a\n"
    "small sweep, one round (< 60 s). On a terminal a point counter shows the time\n"
    "left.\n"
    "\n"
    "--model M (a modeldb entry or config.json of a dense decoder) times the kernel\n"
    "on M's shape instead, in the weight types whose weights fit in 80% of the\n"
    "memory available (refused otherwise), batch 1-64 x context 256 and 2048, and\n"
    "prints every point measured against predicted with the probes beside its\n"
    "steps; no CSV or charts unless --csv or --plot-prefix is given.\n"
    "\n"
    "--device cuda times the CUDA decode kernel on device 0 against an entry from\n"
    "'infcalc bench --device cuda': a 1.0 B-parameter model (bf16 and int8 weights,\n"
    "batch 1-256 x context 128-16384, KV cache capped at 16 GiB) and one whose\n"
    "weights sit in the L2; each point's step is a replayed CUDA graph timed with\n"
    "events; no bandwidth probe (default CSV plots/validate-cuda.csv, charts\n"
    "plots/validate-cuda). A build without CUDA exits 2; a machine without a device, 1.\n";


/* The hint of an error without one of its own; tests/bad_cli.sh counts it
 * as missing. */
static const char general_hint[] =
    "'infcalc --help' lists the commands, 'infcalc COMMAND --help' their options";

static int usage_v(FILE *err, const char *hint, const char *fmt, va_list ap)
{
    fputs("infcalc: error: ", err);
    vfprintf(err, fmt, ap);
    fprintf(err, "\n  %s\n", hint);
    return 2;
}

int ic_cli_usage_hint(FILE *err, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = usage_v(err, hint, fmt, ap);
    va_end(ap);
    return rc;
}

int ic_cli_usage(FILE *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = usage_v(err, general_hint, fmt, ap);
    va_end(ap);
    return rc;
}

int ic_cli_report(FILE *errf, int rc, const struct ic_err *e)
{
    ic_err_print(errf, e);
    bool input = !(rc == IC_ENOMEM || rc == IC_EIO);
    /* an input error the library left without a hint still ends with one */
    if (input && !e->hint[0])
        fprintf(errf, "  %s\n", general_hint);
    return input ? 2 : 1;
}

int ic_cli_check_plot(const char *path, FILE *errf)
{
    struct ic_err e = {0};
    int rc = ic_plot_check_path(path, &e);
    return rc ? ic_cli_report(errf, rc, &e) : 0;
}


/* The options that may list values; one configuration per combination. */
enum { L_MODEL, L_HW, L_CHIPS, L_CONTEXT, L_WEIGHTS, L_KV, L_COMPUTE, L_COUNT };
static const int list_opts[L_COUNT] = {IC_OPT_MODEL,   IC_OPT_HW,      IC_OPT_CHIPS,
                                       IC_OPT_CONTEXT, IC_OPT_WEIGHTS, IC_OPT_KV,
                                       IC_OPT_COMPUTE};

struct config {
    int pick[L_COUNT]; /* index into each list */
    struct ic_decode_cfg cfg;
    char label[160];
    size_t first, n;   /* its points */
};

bool ic_cli_same_file(const char *a, const char *b)
{
    struct stat x, y;
    return a[0] && b[0] && stat(a, &x) == 0 && stat(b, &y) == 0 && S_ISREG(x.st_mode) &&
           x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int ic_cli_named_twice(FILE *errf, const char *opt, const char *const *given,
                       const char *const *path, const char *const *name, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < i; j++) {
            if (ic_cli_same_file(path[i], path[j]))
                return ic_cli_usage_hint(errf, "name each entry once",
                                         "%s: '%s' and '%s' are one entry, %s", opt, given[j],
                                         given[i], name[i]);
            /* two hardware files of one name: every row, label and legend
             * would read the same over two sets of figures (a model's name
             * may come from its config.json's folder, which two checkpoints
             * can share: not refused) */
            if (strcmp(opt, "--hw") == 0 && strcasecmp(name[i], name[j]) == 0)
                return ic_cli_usage_hint(errf, "give one of the files its own 'name:'",
                                         "%s: '%s' and '%s' are two entries of one name, %s", opt,
                                         given[j], given[i], name[i]);
        }
    return 0;
}

/* Adds "what" to a label or title part list. */
static void append(char *buf, size_t n, const char *sep, const char *what)
{
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", l ? sep : "", what);
}

/* The first point of a measured entry (the reference kernel's own rates,
 * 'infcalc bench') whose expected step is under its ideal bound, or NULL.
 * An achieved entry's never is (its rates are held to the spec); a measured
 * kernel's can be, where it multiplies in arithmetic faster than the
 * compute type's peak (the CPU kernel's int8 weights in int8 dot products
 * beside an fp32 --compute), or where an entry's spec understates its own
 * measured rates. */
static const struct ic_point *measured_under_ideal(const struct ic_hw *h,
                                                   const struct ic_point *p, size_t n)
{
    if (!h->measured.present)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!p[i].other_known)
            continue;
        const bool exp = p[i].cfg.estimate == IC_EST_EXPECTED;
        const double expected = exp ? p[i].step_s : p[i].other_step_s;
        const double ideal = exp ? p[i].other_step_s : p[i].step_s;
        if (expected < ideal * (1 - 1e-9))
            return &p[i];
    }
    return NULL;
}

static void note_under_ideal(FILE *errf, const struct ic_hw *h, const struct ic_point *p)
{
    const enum ic_dtype wt = p->cfg.weights, ct = p->cfg.compute;
    const double gemm = ic_hw_measured_gemm_top(&h->measured, wt);
    double gemv = 0;
    for (int t = 0; t < IC_DT_COUNT; t++)
        gemv = fmax(gemv, h->measured.gemv_B_s[t]);
    FILE *f = ic_cli_warnf(errf);
    fprintf(f, "infcalc: note: %s's expected step (its measured rates) is under its ideal bound "
               "at batch %llu, context %llu",
            h->name, (unsigned long long)p->cfg.batch, (unsigned long long)p->cfg.context);
    if (gemm > h->peak_flop_s[ct] && wt == ct)
        fprintf(f, ": the kernel's measured %s matmul, %.4g GFLOP/s, beats the %s peak the bound "
                   "uses, %.4g GFLOP/s; the entry's compute section understates what was "
                   "measured\n",
                ic_dtype_traits(wt)->name, gemm / 1e9, ic_dtype_traits(ct)->name,
                h->peak_flop_s[ct] / 1e9);
    else if (gemm > h->peak_flop_s[ct])
        fprintf(f, ": the kernel's measured %s matmul, %.4g GFLOP/s, beats the %s peak the bound "
                   "uses, %.4g GFLOP/s (the kernel multiplies %s weights in its own arithmetic "
                   "whatever --compute says); with a %s peak in the entry's compute section, "
                   "--compute %s gives the bound of that arithmetic\n",
                ic_dtype_traits(wt)->name, gemm / 1e9, ic_dtype_traits(ct)->name,
                h->peak_flop_s[ct] / 1e9, ic_dtype_traits(wt)->name, ic_dtype_traits(wt)->name,
                ic_dtype_traits(wt)->name);
    else if (gemv > h->hbm_bandwidth_B_s)
        fprintf(f, ": its measured read rates, up to %.4g GB/s, beat the spec bandwidth the bound "
                   "uses, %.4g GB/s; the entry's memory section understates what was measured\n",
                gemv / 1e9, h->hbm_bandwidth_B_s / 1e9);
    else if (p->cache_resident)
        fputs(": its weights and cache fit the last-level cache, read at the measured cache "
              "rates, past the memory's spec bandwidth\n",
              f);
    else
        fputs(": its measured rates beat the spec figures the bound uses\n", f);
}

static int cmd_decode(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_usage_hint(errf, "a command comes first ('infcalc COMMAND [options]'); "
                                       "'infcalc --help' lists them",
                                 "unexpected argument '%s' (options start with --)", a->pos[0]);
    if (!a->given[IC_OPT_MODEL] || !a->given[IC_OPT_HW])
        return ic_cli_usage_hint(errf, "e.g. 'infcalc --model llama3-70b --hw h100'; 'infcalc "
                                       "list models' and 'infcalc list hw' name the entries",
                                 "decode needs --model and --hw ('infcalc --help' for usage)");
    int rc = 0;
    /* values per list option: one (the default) where not given */
    int nl[L_COUNT];
    for (int l = 0; l < L_COUNT; l++)
        nl[l] = a->given[list_opts[l]] ? a->n[list_opts[l]] : 1;
    struct ic_decode_cfg base;
    ic_opts_decode_cfg(a, &base);
    int estimate = a->given[IC_OPT_ESTIMATE] ? a->estimate : -1; /* -1: by the hardware entry */
    enum ic_format fmt = (enum ic_format)a->format;
    enum ic_axis axes[2] = {IC_AXIS_BATCH, IC_AXIS_BATCH};
    int n_axes = a->given[IC_OPT_SWEEP] ? a->n[IC_OPT_SWEEP] : 0;
    for (int i = 0; i < n_axes; i++)
        axes[i] = a->sweep[i];
    static const int axis_opt[IC_AXIS_COUNT] = {
        [IC_AXIS_BATCH] = IC_OPT_BATCH, [IC_AXIS_CONTEXT] = IC_OPT_CONTEXT,
        [IC_AXIS_CHIPS] = IC_OPT_CHIPS, [IC_AXIS_PRECISION] = IC_OPT_WEIGHTS};
    for (int i = 0; i < n_axes; i++) {
        int o = axis_opt[axes[i]];
        if (a->given[o] || (axes[i] == IC_AXIS_PRECISION && a->given[IC_OPT_KV])) {
            char hint[160];
            if (ic_opt_table[o].list_cmds & (UINT64_C(1) << IC_CMD_DECODE))
                snprintf(hint, sizeof hint, "the sweep chooses the values; to compare a few of "
                                            "your own, list them without --sweep ('%s A,B')",
                         ic_opt_table[o].name);
            else /* --batch takes one value: the batch sweep is the table's rows */
                snprintf(hint, sizeof hint, "the sweep chooses the values; without --sweep, "
                                            "%s times the one value given", ic_opt_table[o].name);
            return ic_cli_usage_hint(errf, hint, "--sweep %s varies %s; leave that option out",
                                     ic_axis_name(axes[i]),
                                     axes[i] == IC_AXIS_PRECISION ? "--weights and --kv"
                                                                  : ic_opt_table[o].name);
        }
    }
    if (base.micro > 1 && base.pp <= 1)
        return ic_cli_usage_hint(errf, "e.g. '--pp 2 --batch 8 --micro 4': two stages, the "
                                       "batch in four micro-batches",
                                 "--micro splits the batch along a pipeline; add --pp P");
    bool batch_swept = false;
    for (int i = 0; i < n_axes; i++)
        batch_swept = batch_swept || axes[i] == IC_AXIS_BATCH;
    /* (a batch sweep under the micro-batch count runs one sequence a
     * micro-batch: ic_step_load) */
    if (base.micro > base.batch && !batch_swept)
        return ic_cli_usage_hint(errf, "a micro-batch holds one sequence at least; e.g. "
                                       "'--batch 8 --micro 4'",
                                 "--micro %llu splits a batch of %llu: at most one micro-batch "
                                 "a sequence", (unsigned long long)base.micro,
                                 (unsigned long long)base.batch);
    int plot_w = a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[0] : 1600;
    int plot_h = a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[1] : 1000;
    const char *plot = a->given[IC_OPT_PLOT] ? a->plot : NULL;
    if (plot && !n_axes)
        return ic_cli_usage_hint(errf, "e.g. '--sweep batch --plot decode.png'",
                                 "--plot draws a sweep, and there is none; add --sweep batch, "
                                 "--sweep context, --sweep chips, or two axes for a heatmap "
                                 "(--sweep batch,context)");
    if (plot && n_axes == 1 && axes[0] == IC_AXIS_PRECISION)
        return ic_cli_usage_hint(errf, "draw it against batch as a heatmap (--sweep "
                                       "precision,batch), or overlay weight types on a batch "
                                       "sweep (--weights bf16,fp8,int4 --sweep batch)",
                                 "--plot: a precision sweep alone has no chart");

    /* The configurations: every combination of the listed values. */
    size_t n_cfg = 1;
    bool comm_said = false; /* the --comm warning, once */
    for (int l = 0; l < L_COUNT; l++)
        n_cfg *= (size_t)nl[l];
    if (n_cfg > IC_CLI_MAX_CONFIGS)
        return ic_cli_usage_hint(errf, "the configurations are the product of the lists' "
                                       "lengths (--model, --hw, --chips, --context, --weights, "
                                       "--kv, --compute): shorten a list",
                                 "the listed options make %zu configurations; at most %d", n_cfg,
                                 IC_CLI_MAX_CONFIGS);
    if (plot && n_axes == 2 && n_cfg > 1)
        return ic_cli_usage_hint(errf, "give one value to each list",
                                 "--plot: a two-axis sweep is drawn as a heatmap of one "
                                 "configuration, and the listed options make %zu", n_cfg);

    struct ic_err e = {0};
    struct ic_model *models = calloc((size_t)nl[L_MODEL], sizeof *models);
    struct ic_model_stats stats[IC_OPT_MAX_LIST];
    struct ic_hw *hws = calloc((size_t)nl[L_HW], sizeof *hws);
    struct ic_engine *engine = NULL; /* --engine */
    struct config cfgs[IC_CLI_MAX_CONFIGS];
    struct ic_point *pts = NULL;
    struct ic_report_group groups[IC_CLI_MAX_CONFIGS];
    struct ic_plot_curve curves[IC_CLI_MAX_CONFIGS];
    if (!models || !hws) {
        fputs("infcalc: error: out of memory\n", errf);
        rc = 1;
        goto out;
    }
    int lrc;
    for (int i = 0; i < nl[L_MODEL]; i++)
        if ((lrc = ic_db_model(db, a->model[i], &models[i], &e)) ||
            (lrc = ic_model_derive(&models[i], &stats[i], &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    /* a config.json's own weight type (torch_dtype, quantization_config)
     * is the default where --weights is not given; said when it is not
     * bf16, the default otherwise */
    bool swept_precision = false;
    for (int i = 0; i < n_axes; i++)
        swept_precision |= axes[i] == IC_AXIS_PRECISION;
    for (int i = 0; i < nl[L_MODEL]; i++)
        if (models[i].quant_unread[0] && !a->given[IC_OPT_WEIGHTS] && !swept_precision) {
            rc = ic_cli_quant_unread(errf, &models[i]);
            goto out;
        }
    for (int i = 0; i < nl[L_MODEL]; i++)
        ic_cli_model_notes(errf, &models[i], !a->given[IC_OPT_WEIGHTS] && !swept_precision);
    for (int i = 0; i < nl[L_HW]; i++)
        if ((lrc = ic_db_hw(db, a->hw[i], &hws[i], &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    {
        const char *hp[IC_OPT_MAX_LIST], *hn[IC_OPT_MAX_LIST], *mp[IC_OPT_MAX_LIST],
            *mn[IC_OPT_MAX_LIST];
        for (int i = 0; i < nl[L_HW]; i++)
            hp[i] = hws[i].path, hn[i] = hws[i].name;
        for (int i = 0; i < nl[L_MODEL]; i++)
            mp[i] = models[i].path, mn[i] = models[i].name;
        if ((rc = ic_cli_named_twice(errf, "--hw", a->hw, hp, hn, nl[L_HW])) ||
            (rc = ic_cli_named_twice(errf, "--model", a->model, mp, mn, nl[L_MODEL])))
            goto out;
    }
    for (int i = 0; i < nl[L_HW]; i++)
        if ((rc = ic_cli_engine_check(a, &hws[i], errf)))
            goto out;
    if ((rc = ic_cli_load_engine(a, db, &engine, errf)))
        goto out;
    ic_opts_engine_cfg(a, engine, &base);
    if (engine && estimate < 0) /* a profile is for the expected estimate */
        estimate = IC_EST_EXPECTED;
    for (size_t c = 0; c < n_cfg; c++) {
        size_t rest = c;
        struct config *k = &cfgs[c];
        for (int l = L_COUNT - 1; l >= 0; l--) {
            k->pick[l] = (int)(rest % (size_t)nl[l]);
            rest /= (size_t)nl[l];
        }
        k->cfg = base;
        if (a->given[IC_OPT_CHIPS])
            k->cfg.chips = a->chips[k->pick[L_CHIPS]];
        if (a->given[IC_OPT_CONTEXT])
            k->cfg.context = a->context[k->pick[L_CONTEXT]];
        if (a->given[IC_OPT_WEIGHTS])
            k->cfg.weights = a->weights[k->pick[L_WEIGHTS]];
        else if (models[k->pick[L_MODEL]].has_default_weights && !swept_precision)
            k->cfg.weights = models[k->pick[L_MODEL]].default_weights;
        if (a->given[IC_OPT_KV])
            k->cfg.kv = a->kv[k->pick[L_KV]];
        if (a->given[IC_OPT_COMPUTE])
            k->cfg.compute = a->compute[k->pick[L_COMPUTE]];
        /* label: the values that vary between configurations */
        k->label[0] = '\0';
        char part[96];
        if (nl[L_MODEL] > 1)
            append(k->label, sizeof k->label, ", ", models[k->pick[L_MODEL]].name);
        if (nl[L_HW] > 1)
            append(k->label, sizeof k->label, ", ", hws[k->pick[L_HW]].name);
        if (nl[L_CHIPS] > 1) {
            snprintf(part, sizeof part, "%llu chip%s", (unsigned long long)k->cfg.chips,
                     k->cfg.chips == 1 ? "" : "s");
            append(k->label, sizeof k->label, ", ", part);
        }
        if (nl[L_CONTEXT] > 1) {
            snprintf(part, sizeof part, "context %llu", (unsigned long long)k->cfg.context);
            append(k->label, sizeof k->label, ", ", part);
        }
        static const char *const what[3] = {"weights", "KV", "compute"};
        for (int t = 0; t < 3; t++)
            if (nl[L_WEIGHTS + t] > 1) {
                enum ic_dtype d = t == 0 ? k->cfg.weights : t == 1 ? k->cfg.kv : k->cfg.compute;
                snprintf(part, sizeof part, "%s %s", ic_dtype_traits(d)->name, what[t]);
                append(k->label, sizeof k->label, ", ", part);
            }
        const struct ic_hw *h = &hws[k->pick[L_HW]];
        if ((lrc = ic_decode_for_hw(&k->cfg, h, estimate, &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        ic_cli_warn_comm(a, errf, h, k->cfg.estimate, &comm_said);
        const struct ic_model_stats *st = &stats[k->pick[L_MODEL]];
        bool ctx_swept = n_axes && (axes[0] == IC_AXIS_CONTEXT ||
                                    (n_axes > 1 && axes[1] == IC_AXIS_CONTEXT));
        if (st->max_context && k->cfg.context > st->max_context && !ctx_swept)
            fprintf(ic_cli_warnf(errf),
                    "infcalc: warning: --context %llu exceeds %s's max_position_embeddings "
                    "(%llu)\n",
                    (unsigned long long)k->cfg.context, models[k->pick[L_MODEL]].name,
                    (unsigned long long)st->max_context);
    }
    size_t per = n_axes ? IC_SWEEP_MAX_POINTS : 1;
    pts = malloc(sizeof *pts * per * n_cfg);
    if (!pts) {
        rc = 1;
        fputs("infcalc: error: out of memory\n", errf);
        goto out;
    }
    size_t used = 0;
    bool engine_moves = false;
    const struct ic_point *under_ideal = NULL; /* a measured entry's, under its bound */
    const struct ic_hw *under_hw = NULL;
    struct ic_decode_cfg plain; /* the options' step without the profile (its placement) */
    ic_opts_decode_cfg(a, &plain);
    for (size_t c = 0; c < n_cfg; c++) {
        struct config *k = &cfgs[c];
        const struct ic_model_stats *st = &stats[k->pick[L_MODEL]];
        const struct ic_hw *h = &hws[k->pick[L_HW]];
        size_t n = 1;
        lrc = n_axes ? ic_sweep_run(st, h, &k->cfg, axes, n_axes, pts + used, &n, &e)
                     : ic_decode(st, h, &k->cfg, pts + used, &e);
        if (!lrc && !n_axes)
            ic_decode_fewest(st, &pts[used]); /* what would fit, where it does not */
        if (lrc) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        /* a profile that moves no step here (graphs, the host's time
         * overlapped, no efficiency for these types, or a chip whose
         * entry counts no kernels) is said to, not mistaken for a
         * measured tie with a good engine */
        if (engine && !engine_moves) {
            for (size_t i = 0; i < n && !engine_moves; i++) {
                struct ic_decode_cfg g = pts[used + i].cfg;
                g.engine = NULL;
                g.kv_copy = plain.kv_copy;
                g.both = false;
                struct ic_point q;
                engine_moves = ic_decode(st, h, &g, &q, NULL) != IC_OK ||
                               q.step_s != pts[used + i].step_s;
            }
        }
        if (!under_ideal && (under_ideal = measured_under_ideal(h, pts + used, n)))
            under_hw = h;
        k->first = used;
        k->n = n;
        used += n;
        groups[c] = (struct ic_report_group){models[k->pick[L_MODEL]].name, h->name,
                                             pts + k->first, n};
        curves[c] = (struct ic_plot_curve){k->label, pts + k->first, n};
    }
    if (engine && !engine_moves)
        fprintf(ic_cli_warnf(errf),
                "infcalc: note: the %s profile changes no step here: none of its host time, "
                "graph-less launches, efficiencies or cache placement applies to this chip, "
                "model, types and options, so each step is a good engine's\n",
                engine->name);
    if (under_ideal)
        note_under_ideal(errf, under_hw, under_ideal);
    /* a batch past what the engine schedules unless told (its
     * defaults.max_batch) is still timed, and said to need the limit raised */
    uint64_t widest = 0;
    for (size_t i = 0; i < used; i++)
        widest = pts[i].cfg.batch > widest ? pts[i].cfg.batch : widest;
    if (engine && engine->max_batch && widest > engine->max_batch)
        fprintf(ic_cli_warnf(errf),
                "infcalc: note: %s schedules at most %llu sequences a step by default "
                "(the profile's defaults.max_batch); the largest batch here, %llu, needs that "
                "limit raised\n",
                engine->name, (unsigned long long)engine->max_batch,
                (unsigned long long)widest);
    struct ic_report r = {n_axes > 0 || n_cfg > 1, n_axes > 0, {axes[0], axes[1]}, n_axes};
    if ((lrc = ic_report_write(out, fmt, &r, groups, n_cfg))) {
        fputs(lrc == IC_EIO ? "infcalc: error: writing the output failed\n"
                            : "infcalc: error: out of memory\n",
              errf);
        rc = 1;
        goto out;
    }
    if (plot) {
        /* Title: what all configurations share; the legend names the rest. */
        const struct config *k = &cfgs[0];
        char t[400] = "", sub[300] = "", part[128];
        append(t, sizeof t, "", nl[L_MODEL] > 1 ? "several models"
                                                      : models[k->pick[L_MODEL]].name);
        append(t, sizeof t, " on ", "");
        bool chips_swept = axes[0] == IC_AXIS_CHIPS || (n_axes == 2 && axes[1] == IC_AXIS_CHIPS);
        if (nl[L_CHIPS] == 1 && !chips_swept) {
            snprintf(part, sizeof part, "%llu x ", (unsigned long long)k->cfg.chips);
            append(t, sizeof t, "", part);
        }
        if (nl[L_HW] > 1) {
            append(t, sizeof t, "", "each of");
            for (int i = 0; i < nl[L_HW]; i++)
                append(t, sizeof t, i ? ", " : " ", hws[i].name);
        } else {
            append(t, sizeof t, "", hws[k->pick[L_HW]].name);
        }
        if (nl[L_CHIPS] > 1 || chips_swept)
            append(t, sizeof t, "", " (chips vary)");
        snprintf(part, sizeof part, "weights %s, KV %s, compute %s",
                 nl[L_WEIGHTS] > 1 ? "vary" : ic_dtype_traits(k->cfg.weights)->name,
                 nl[L_KV] > 1 ? "vary" : ic_dtype_traits(k->cfg.kv)->name,
                 nl[L_COMPUTE] > 1 ? "vary" : ic_dtype_traits(k->cfg.compute)->name);
        append(sub, sizeof sub, "", part);
        if (axes[0] == IC_AXIS_BATCH) {
            if (nl[L_CONTEXT] > 1)
                snprintf(part, sizeof part, "context varies");
            else
                snprintf(part, sizeof part, "context %llu", (unsigned long long)k->cfg.context);
        } else if (axes[0] == IC_AXIS_CHIPS && nl[L_CONTEXT] == 1) {
            snprintf(part, sizeof part, "batch %llu, context %llu",
                     (unsigned long long)k->cfg.batch, (unsigned long long)k->cfg.context);
        } else {
            snprintf(part, sizeof part, "batch %llu", (unsigned long long)k->cfg.batch);
        }
        append(sub, sizeof sub, "; ", part);
        /* both estimates where the points carry them: the chart draws the
         * expected step solid and the ideal bound dashed */
        bool both = false;
        for (size_t i = 0; i < used; i++)
            both |= pts[i].other_known;
        append(sub, sizeof sub, "; ",
               both ? "expected step solid (achieved rates), ideal bound dashed"
               : k->cfg.estimate == IC_EST_EXPECTED ? "expected time from measured figures"
                                                    : "ideal bound from spec-sheet peaks");
        if (engine) { /* the profile the expected steps were timed under */
            snprintf(part, sizeof part, "engine %s", engine->name);
            append(sub, sizeof sub, "; ", part);
        }
        if (n_axes == 2) {
            /* a precision axis varies the weights and KV types: only the
             * compute type is the same in every cell */
            const bool prec = axes[0] == IC_AXIS_PRECISION || axes[1] == IC_AXIS_PRECISION;
            snprintf(sub, sizeof sub, "weights %s, KV %s, compute %s; %s; the bound %s",
                     prec ? "vary" : ic_dtype_traits(k->cfg.weights)->name,
                     prec ? "vary" : ic_dtype_traits(k->cfg.kv)->name,
                     ic_dtype_traits(k->cfg.compute)->name,
                     k->cfg.estimate == IC_EST_EXPECTED || both
                         ? "expected step (achieved or measured rates)"
                         : "ideal bound from spec-sheet peaks",
                     k->cfg.estimate == IC_EST_IDEAL && both ? "of the ideal bound's terms"
                                                             : "of its terms");
            if (axes[0] != IC_AXIS_BATCH && axes[1] != IC_AXIS_BATCH) {
                snprintf(part, sizeof part, "; batch %llu", (unsigned long long)k->cfg.batch);
                append(sub, sizeof sub, "", part);
            }
            if (axes[0] != IC_AXIS_CONTEXT && axes[1] != IC_AXIS_CONTEXT) {
                snprintf(part, sizeof part, "; context %llu", (unsigned long long)k->cfg.context);
                append(sub, sizeof sub, "", part);
            }
            if (engine) {
                snprintf(part, sizeof part, "; engine %s", engine->name);
                append(sub, sizeof sub, "", part);
            }
            const struct ic_plot_heat hm = {t, sub, pts, used, {axes[0], axes[1]}};
            lrc = ic_plot_heatmap_write(plot, plot_w, plot_h, &hm, &e);
        } else {
            struct ic_plot_set set = {t, sub, curves, n_cfg, NULL};
            lrc = ic_plot_write(plot,
                                axes[0] == IC_AXIS_CONTEXT ? IC_PLOT_CONTEXT
                                : axes[0] == IC_AXIS_CHIPS ? IC_PLOT_CHIPS
                                                           : IC_PLOT_DECODE,
                                plot_w, plot_h, &set, &e);
        }
        if (lrc) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    }
out:
    free(pts);
    free(models);
    free(hws);
    free(engine);
    return rc;
}

static void gb(char *buf, size_t n, double v) { ic_report_bytes(buf, n, v); }

/* list/show without a known kind: the usage error, and the nearest kind
 * to the word given ('list modles': did you mean 'models'?). */
static int kind_error(FILE *errf, const char *what, const char *example, const struct ic_opts *a,
                      const char *k1, const char *k2, const char *k3)
{
    const char *const kinds[3] = {k1, k2, k3};
    const char *near = a->n_pos ? ic_text_nearest(a->pos[0], kinds, 3) : NULL;
    char hint[160];
    if (near && strcmp(near, a->pos[0]))
        snprintf(hint, sizeof hint, "did you mean '%s'?", near);
    else
        snprintf(hint, sizeof hint, "e.g. 'infcalc %s'", example);
    return ic_cli_usage_hint(errf, hint, "%s", what);
}

/* names[0 .. n) (each stride bytes apart), ", " between them, lead before
 * the first; one with a space, a comma or a parenthesis in quotes, so that
 * the list reads as its texts ("main (2024)"). */
static void show_names(FILE *out, const char *lead, const char *names, size_t stride, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *t = names + (size_t)i * stride;
        const char *q = strpbrk(t, " ,()") ? "'" : "";
        fprintf(out, "%s%s%s%s", i ? ", " : lead, q, t, q);
    }
}

/* One engine profile: what it adds to the achieved rates, with sources. */
static void show_engine(FILE *out, const struct ic_engine *en)
{
    fprintf(out, "%s: %s %s\n", en->name, en->engine, en->version);
    if (en->description[0])
        fprintf(out, "  %s\n", en->description);
    fputs("aliases: ", out);
    show_names(out, "", en->aliases[0], sizeof en->aliases[0], en->n_aliases);
    fputs(en->n_aliases ? " (other names --engine takes)\n"
                        : "none (--engine takes the name alone)\n",
          out);
    /* the published rows that get the profile, in ic_pub_engine_for's order */
    show_names(out, "versions: ", en->version, sizeof en->version, 1);
    show_names(out, ", ", en->versions[0], sizeof en->versions[0], en->n_versions);
    fprintf(out, " (published/decode.csv's rows of engine %s at %s engine_version take this "
                 "profile; so do those at a version that '%s' leads, followed by '.', '-', ' ' "
                 "or '(', where no profile names theirs)\n",
            en->engine, en->n_versions ? "one of these texts as" : "this text as", en->version);
    fprintf(out, "step: %s, scheduler %s", en->graphs ? "graphs" : "kernel by kernel (no graphs)",
            en->overlap ? "overlapped with the accelerator" : "between steps (not overlapped)");
    if (!en->overlap)
        fprintf(out, ", host time per step %.3g ms", 1e3 * en->cpu_step_s);
    fprintf(out, "\n  source: %s\n", en->step_source);
    static const char *const part[2] = {"attention (bandwidth over the achieved GEMV's, by KV type)",
                                        "gemv (bandwidth over the chip's achieved GEMV, by weight type)"};
    for (int k = 0; k < 2; k++) {
        const double *v = k ? en->gemv_eff : en->attn_eff;
        const char *src = k ? en->gemv_source : en->attn_source;
        if (!en->locs[k ? IC_ENF_GEMV : IC_ENF_ATTN].line) {
            fprintf(out, "%s: not given (1)\n", part[k]);
            continue;
        }
        fprintf(out, "%s:", part[k]);
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (v[t] > 0)
                fprintf(out, " %s %.3g", ic_dtype_traits((enum ic_dtype)t)->name, v[t]);
        fprintf(out, "\n  source: %s\n", src);
    }
    if (en->locs[IC_ENF_DEFAULTS].line) {
        if (en->max_batch)
            fprintf(out, "largest batch scheduled by default: %llu\n",
                    (unsigned long long)en->max_batch);
        if (en->kv_placement_set)
            fprintf(out, "cache past the KV heads: %s\n",
                    en->kv_copy ? "copy (each chip sharing a KV head keeps its cache of every "
                                  "sequence)"
                                : "split (the chips sharing a KV head divide the sequences)");
        fprintf(out, "  source: %s\n", en->defaults_source);
    }
    if (en->notes[0])
        fprintf(out, "notes: %s\n", en->notes);
    for (uint32_t i = 0; i < en->n_sources; i++)
        fprintf(out, "  [%u] %s\n", i + 1, en->sources[i]);
}

/* After a listing: a name or alias two of its files claim is an error
 * (the listing shows both; a lookup of it fails) */
static int list_claims(const struct ic_db *db, enum ic_db_kind kind, FILE *errf)
{
    struct ic_err e = {0};
    const int rc = ic_db_check_claims(db, kind, &e);
    return rc ? ic_cli_report(errf, rc, &e) : 0;
}

static int list_engines(const struct ic_db *db, FILE *out, FILE *errf)
{
    char **paths = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    int lrc = ic_db_paths(db, IC_DB_ENGINE, &paths, &n, &e);
    if (lrc)
        return ic_cli_report(errf, lrc, &e);
    int rc = 0;
    struct ic_engine *en = malloc(sizeof *en);
    if (!en) {
        rc = ic_cli_oom(errf);
        goto out;
    }
    fprintf(out, "%-20s %-20s %-18s %-7s %-10s %10s %-8s %s\n", "name", "aliases", "engine",
            "graphs", "scheduler", "max batch", "kv place", "quantized GEMV");
    for (size_t i = 0; i < n; i++) {
        if ((lrc = ic_engine_load(paths[i], en, &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        char al[64] = "", q[96] = "", mb[24] = "-";
        for (uint32_t j = 0; j < en->n_aliases; j++) {
            size_t l = strlen(al);
            snprintf(al + l, sizeof al - l, "%s%s", j ? "," : "", en->aliases[j]);
        }
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (en->gemv_eff[t] > 0) {
                size_t l = strlen(q);
                snprintf(q + l, sizeof q - l, "%s%s %.2g", l ? ", " : "",
                         ic_dtype_traits((enum ic_dtype)t)->name, en->gemv_eff[t]);
            }
        if (en->max_batch)
            snprintf(mb, sizeof mb, "%llu", (unsigned long long)en->max_batch);
        fprintf(out, "%-20s %-20s %-18s %-7s %-10s %10s %-8s %s\n", en->name, al, en->engine,
                en->graphs ? "yes" : "no", en->overlap ? "overlap" : "between", mb,
                en->kv_placement_set ? en->kv_placement : "-", q[0] ? q : "-");
    }
    rc = list_claims(db, IC_DB_ENGINE, errf);
out:
    free(en);
    ic_db_paths_free(paths, n);
    return rc;
}

static int cmd_list(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos > 1 && (strcmp(a->pos[0], "hw") == 0 || strcmp(a->pos[0], "models") == 0 ||
                         strcmp(a->pos[0], "engines") == 0))
        return ic_cli_usage_hint(errf, "list takes one kind: e.g. 'infcalc list hw'",
                                 "list: unexpected argument '%s'", a->pos[1]);
    if (a->n_pos == 1 && strcmp(a->pos[0], "engines") == 0)
        return list_engines(db, out, errf);
    if (a->n_pos != 1 || (strcmp(a->pos[0], "hw") && strcmp(a->pos[0], "models")))
        return kind_error(errf, "list needs 'hw', 'models' or 'engines'", "list models", a, "hw",
                          "models", "engines");
    bool hw_kind = strcmp(a->pos[0], "hw") == 0;
    char **paths = NULL;
    size_t n = 0;
    struct ic_err e = {0};
    int lrc = ic_db_paths(db, hw_kind ? IC_DB_HW : IC_DB_MODEL, &paths, &n, &e);
    if (lrc)
        return ic_cli_report(errf, lrc, &e);
    int rc = 0;
    void *rec = malloc(hw_kind ? sizeof(struct ic_hw) : sizeof(struct ic_model));
    if (!rec) {
        rc = ic_cli_oom(errf);
        goto out;
    }
    if (hw_kind)
        fprintf(out, "%-16s %-22s %9s %11s %11s %9s  %s\n", "name", "aliases", "memory", "mem BW",
                "bf16 peak", "$/chip-h", "fabric (one-way/link)");
    else
        fprintf(out, "%-16s %10s %10s %6s %12s  %s\n", "name", "params", "active", "layers",
                "KV B/token", "attention");
    for (size_t i = 0; i < n; i++) {
        if (hw_kind) {
            struct ic_hw *h = rec;
            if ((lrc = ic_hw_load(paths[i], h, &e))) {
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
            char al[64] = "", cap[32], bwt[32], fab[160];
            for (uint32_t j = 0; j < h->n_aliases; j++) {
                size_t l = strlen(al);
                snprintf(al + l, sizeof al - l, "%s%s", j ? "," : "", h->aliases[j]);
            }
            gb(cap, sizeof cap, h->hbm_capacity_B);
            gb(bwt, sizeof bwt, h->hbm_bandwidth_B_s);
            snprintf(fab, sizeof fab, "%s %s %.0f GB/s", h->ici_kind_text,
                     h->ici_topology_text, h->ici_link_B_s / 1e9);
            char peak[32] = "-";
            if (h->peak_flop_s[IC_DT_BF16] > 0)
                snprintf(peak, sizeof peak, "%.0f TF/s", h->peak_flop_s[IC_DT_BF16] / 1e12);
            char usd[32] = "-"; /* no price in the entry */
            if (ic_hw_has_price(h))
                snprintf(usd, sizeof usd, "%.2f", h->usd_per_chip_hour);
            /* the fabric last: its width varies with the topology's name */
            fprintf(out, "%-16s %-22s %9s %9s/s %11s %9s  %s\n", h->name, al, cap, bwt, peak,
                    usd, fab);
        } else {
            struct ic_model *m = rec;
            struct ic_model_stats st;
            if ((lrc = ic_model_load(paths[i], m, &e)) || (lrc = ic_model_derive(m, &st, &e))) {
                rc = ic_cli_report(errf, lrc, &e);
                goto out;
            }
            char kind[96];
            if (st.mla)
                snprintf(kind, sizeof kind, "MLA");
            else if (st.n_kv_heads == st.n_heads)
                snprintf(kind, sizeof kind, "MHA");
            else if (st.n_kv_heads == 1)
                snprintf(kind, sizeof kind, "MQA");
            else
                snprintf(kind, sizeof kind, "GQA %llu/%llu", (unsigned long long)st.n_heads,
                         (unsigned long long)st.n_kv_heads);
            if (st.n_window_layers) {
                size_t l = strlen(kind);
                snprintf(kind + l, sizeof kind - l, ", %llu of %llu layers %s %llu",
                         (unsigned long long)st.n_window_layers, (unsigned long long)st.n_layers,
                         st.chunked ? "chunk" : "window", (unsigned long long)st.window);
            }
            if (st.n_state_layers) {
                size_t l = strlen(kind);
                snprintf(kind + l, sizeof kind - l, ", %llu of %llu layers %s",
                         (unsigned long long)st.n_state_layers, (unsigned long long)st.n_layers,
                         st.state_mamba ? "Mamba2" : "linear");
            }
            if (st.n_experts) {
                size_t l = strlen(kind);
                snprintf(kind + l, sizeof kind - l, ", MoE top-%llu of %llu",
                         (unsigned long long)st.top_k, (unsigned long long)st.n_experts);
            }
            fprintf(out, "%-16s %9.2fB %9.2fB %6llu %12llu  %s\n", m->name,
                    (double)st.params_total / 1e9, (double)st.params_active / 1e9,
                    (unsigned long long)st.n_layers,
                    (unsigned long long)ic_model_kv_bytes_per_token(&st, 16), kind);
        }
    }
    rc = list_claims(db, hw_kind ? IC_DB_HW : IC_DB_MODEL, errf);
out:
    free(rec);
    ic_db_paths_free(paths, n);
    return rc;
}

/* What show prints beside an optional figure an entry leaves out: the value
 * printed is the one the step model takes in its place (ic_step_time). */
#define SHOW_DEFAULT "default, not in the entry"

/* The torus's wraparound rule as ic_comm.c applies it (axis_is_line): the
 * interconnect line's tail, "" on a fabric that is no torus. */
static void show_torus_rule(char *buf, size_t n, const struct ic_hw *h)
{
    buf[0] = '\0';
    if (h->ici_topology != IC_TOPO_TORUS_2D && h->ici_topology != IC_TOPO_TORUS_3D)
        return;
    const unsigned long long c = (unsigned long long)h->ici_wrap_cube;
    if (h->ici_wrap_from)
        snprintf(buf, n, "; rings from %llu chips along an axis, a shorter axis a line "
                         "(wraparound_from)",
                 (unsigned long long)h->ici_wrap_from);
    else if (c && h->ici_topology == IC_TOPO_TORUS_3D)
        snprintf(buf, n, "; wraparound on whole %llu-cubes: every axis a ring in a slice of "
                         "whole %llux%llux%llu cubes (each axis a multiple of %llu), else every "
                         "axis a line (wraparound_cube)",
                 c, c, c, c, c);
    else if (c)
        snprintf(buf, n, "; wraparound on whole %llu-squares: every axis a ring in a slice of "
                         "whole %llux%llu squares (each axis a multiple of %llu), else every axis "
                         "a line (wraparound_cube)",
                 c, c, c, c);
    else
        snprintf(buf, n, "; every axis a ring (no wraparound key)");
}

/* The group the achieved all-reduce was measured on, on a torus (the
 * all-reduce line's tail): along one axis (allreduce_axis), that axis's
 * ring or line as the collectives take it (ic_comm_measured_path), else
 * the most compact sub-grid of that many. */
static void show_allreduce_group(FILE *out, const struct ic_hw *h)
{
    const struct ic_hw_achieved *a = &h->achieved;
    if (h->ici_topology != IC_TOPO_TORUS_2D && h->ici_topology != IC_TOPO_TORUS_3D)
        return;
    if (!a->allreduce_axis) {
        fprintf(out, " in the most compact sub-grid of that many (allreduce_axis false%s)",
                h->locs[IC_HWF_A_AR_AXIS].line ? "" : ": " SHOW_DEFAULT);
        return;
    }
    const struct ic_comm_path p = ic_comm_measured_path(h);
    const unsigned long long links =
        h->ici_link_B_s > 0 ? (unsigned long long)llround(p.bw_B_s / h->ici_link_B_s) : 0;
    fprintf(out, " along one torus axis (allreduce_axis), a %s there: %llu link%s a chip, %llu "
                 "hop%s",
            links < 2 ? "line" : "ring", links, links == 1 ? "" : "s",
            (unsigned long long)p.steps, p.steps == 1 ? "" : "s");
}

/* "fp32 34.47 GB/s (95% of spec), bf16 ..." for the types of v[] that are
 * set, each over ref[] (per type, or one figure where ref_one) where it is
 * above 0 and named ref_name. */
static void show_types(FILE *out, const double *v, const char *unit, const double *ref,
                       bool ref_one, const char *ref_name)
{
    char q[32];
    int k = 0;
    for (int t = 0; t < IC_DT_COUNT; t++) {
        if (!(v[t] > 0))
            continue;
        ic_report_si(q, sizeof q, v[t], unit, 4);
        fprintf(out, "%s%s %s", k++ ? ", " : "", ic_dtype_traits((enum ic_dtype)t)->name, q);
        const double r = ref ? ref[ref_one ? 0 : t] : 0;
        if (r > 0)
            fprintf(out, " (%.0f%% of %s)", 100 * v[t] / r, ref_name);
    }
    fputc('\n', out);
}

/* The measured section ('infcalc bench', or a user's own microbenchmarks):
 * every figure the entry holds, with its unit and its ratio to the spec
 * section where there is one; an optional figure the step model reads and
 * the entry leaves out, with what it takes instead (ic_step_time). */
static void show_measured(FILE *out, const struct ic_hw *h)
{
    const struct ic_hw_measured *m = &h->measured;
    char q[32], r[32];
    fprintf(out, "\nmeasured (%s; the expected time's rates):\n",
            m->date[0] ? m->date : "undated");
    gb(q, sizeof q, m->llc_B);
    fprintf(out, "  machine     %s, %llu thread%s (the figures below at that count), LLC %s "
                 "(%.4g MiB)\n",
            m->cpu, (unsigned long long)m->threads, m->threads == 1 ? "" : "s", q,
            m->llc_B / 1048576.0);
    ic_report_si(q, sizeof q, m->read_B_s, "B/s", 4);
    fprintf(out, "  read        %s (%.0f%% of spec), a buffer of 4x the LLC or more", q,
            100 * m->read_B_s / h->hbm_bandwidth_B_s);
    if (m->read_1t_B_s > 0) {
        ic_report_si(q, sizeof q, m->read_1t_B_s, "B/s", 4);
        fprintf(out, "; one thread %s (%.0f%% of spec)", q,
                100 * m->read_1t_B_s / h->hbm_bandwidth_B_s);
    }
    ic_report_si(q, sizeof q, m->cache_read_B_s, "B/s", 4);
    fprintf(out, "; within the LLC %s\n", q);
    if (m->probe_B_s > 0 || m->probe_gemm_flop_s > 0 || m->probe_attn_s > 0) {
        fputs("  probes      validate's, at bench time (it rescales the rates by its own):", out);
        if (m->probe_B_s > 0) {
            ic_report_si(q, sizeof q, m->probe_B_s, "B/s", 4);
            fprintf(out, " memory %s", q);
        }
        if (m->probe_gemm_flop_s > 0) {
            ic_report_si(q, sizeof q, m->probe_gemm_flop_s, "FLOP/s", 4);
            fprintf(out, "%s compute %s", m->probe_B_s > 0 ? "," : "", q);
        }
        if (m->probe_B_s > 0 || m->probe_gemm_flop_s > 0)
            fputs(" (fp32)", out);
        if (m->probe_attn_s > 0) {
            ic_report_time(q, sizeof q, m->probe_attn_s);
            fprintf(out, "%s attention %s per score",
                    m->probe_B_s > 0 || m->probe_gemm_flop_s > 0 ? "," : "", q);
        }
        fputc('\n', out);
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (m->probe_type_B_s[t] > 0 || m->probe_gemm_type[t] > 0) {
                ic_report_si(q, sizeof q, m->probe_type_B_s[t], "B/s", 4);
                ic_report_si(r, sizeof r, m->probe_gemm_type[t], "FLOP/s", 4);
                fprintf(out, "              %-5s memory %s, compute %s\n",
                        ic_dtype_traits((enum ic_dtype)t)->name, q, r);
            }
    }
    ic_report_time(q, sizeof q, m->fork_join_s);
    fprintf(out, "  fork/join   %s a parallel region\n", q);
    if (m->matmul_start_s > 0) {
        ic_report_time(q, sizeof q, m->matmul_start_s);
        fprintf(out, "  matmul start %s a matmul call from DRAM beyond its bytes\n", q);
    } else {
        fputs("  matmul start 0 (" SHOW_DEFAULT ": no start added to a DRAM matmul call)\n",
              out);
    }
    if (m->layer_work_s > 0) {
        ic_report_time(q, sizeof q, m->layer_work_s);
        fprintf(out, "  layer work  %s a layer per sequence outside its matmuls and attention", q);
        if (m->layer_work_dim)
            fprintf(out, ", at hidden size %llu (scaled by a model's hidden_size over it)\n",
                    (unsigned long long)m->layer_work_dim);
        else
            fputs(", unscaled (layer_work_dim: " SHOW_DEFAULT ")\n", out);
    } else {
        fputs("  layer work  0 (" SHOW_DEFAULT ": none added)\n", out);
    }
    fprintf(out, "  transition  p = %.4g: a matmul's memory and compute times combine as (T_mem^p "
                 "+ T_cmp^p)^(1/p) (%.0f%% over their max where equal)",
            m->transition_p, 100 * (pow(2.0, 1.0 / m->transition_p) - 1));
    bool by_type = false;
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (m->transition_p_type[t] >= 1) {
            fprintf(out, "%s %s %.4g", by_type ? "," : "; by weight type:",
                    ic_dtype_traits((enum ic_dtype)t)->name, m->transition_p_type[t]);
            by_type = true;
        }
    if (by_type)
        fprintf(out, " (other weight types and the attention: %.4g)\n", m->transition_p);
    else
        fputs("; every weight type (transition_p_by_type: " SHOW_DEFAULT ")\n", out);
    fputs("  GEMV DRAM   ", out);
    show_types(out, m->gemv_B_s, "B/s", &h->hbm_bandwidth_B_s, true, "spec");
    fputs("  GEMV cache  ", out);
    show_types(out, m->gemv_cache_B_s, "B/s", NULL, true, NULL);
    fputs("  GEMM        ", out);
    show_types(out, m->gemm_flop_s, "FLOP/s", h->peak_flop_s, false, "spec");
    bool by_batch = false;
    double top = 0; /* in TFLOP/s where a rate reaches one (a GPU's), else GFLOP/s */
    for (int t = 0; t < IC_DT_COUNT; t++)
        top = fmax(top, ic_hw_measured_gemm_top(m, (enum ic_dtype)t));
    const double unit = top >= 1e12 ? 1e12 : 1e9;
    for (int t = 0; t < IC_DT_COUNT; t++) {
        if (!(m->gemm_by_batch[t][0] > 0))
            continue;
        if (!by_batch)
            fprintf(out, "  GEMM by batch 1, 2, 4 ... 256 (%sFLOP/s; a type without a list: its "
                         "GEMM rate at every batch):\n",
                    unit > 1e9 ? "T" : "G");
        by_batch = true;
        fprintf(out, "              %-5s", ic_dtype_traits((enum ic_dtype)t)->name);
        for (int i = 0; i < IC_HW_GEMM_BATCHES; i++)
            fprintf(out, " %.4g", m->gemm_by_batch[t][i] / unit);
        fputc('\n', out);
    }
    if (!by_batch)
        fputs("  GEMM by batch: the GEMM rate at every batch (gemm_by_batch: " SHOW_DEFAULT ")\n",
              out);
    bool attn = false;
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (m->attn_flop_s[t] > 0 || m->attn_score_s[t] > 0) {
            fputs(attn ? ", " : "  attention   ", out);
            fputs(ic_dtype_traits((enum ic_dtype)t)->name, out);
            if (m->attn_flop_s[t] > 0) {
                ic_report_si(q, sizeof q, m->attn_flop_s[t], "FLOP/s", 4);
                fprintf(out, " %s", q);
            }
            if (m->attn_score_s[t] > 0) {
                ic_report_time(q, sizeof q, m->attn_score_s[t]);
                fprintf(out, "%s %s per score", m->attn_flop_s[t] > 0 ? " and" : "", q);
            }
            attn = true;
        }
    fputs(attn ? " (a KV type without them: the matmul rate at its query heads per KV head)\n"
               : "  attention   the matmul rate at the query heads per KV head, no time per "
                 "score (attention: " SHOW_DEFAULT ")\n",
          out);
    fprintf(out, "    source: %s\n", m->source);
}

static void show_hw(FILE *out, const struct ic_hw *h)
{
    char a[32], b[32];
    fprintf(out, "%s (%s)%s%s\n", h->name, h->vendor, h->description[0] ? ": " : "",
            h->description);
    fprintf(out, "file: %s\n", h->path);
    gb(a, sizeof a, h->hbm_capacity_B);
    gb(b, sizeof b, h->hbm_bandwidth_B_s);
    fprintf(out, "\nmemory: %s%s%s (%.4g GiB), %s/s\n  source: %s\n", a, h->mem_kind[0] ? " " : "",
            h->mem_kind, h->hbm_capacity_B / 1073741824.0, b, h->section_source[0]);
    fputs("\ncompute (dense peak per chip):\n", out);
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (h->peak_flop_s[t] > 0)
            fprintf(out, "  %-5s %8.4g T%s/s\n", ic_dtype_traits((enum ic_dtype)t)->name,
                    h->peak_flop_s[t] / 1e12, ic_dtype_traits((enum ic_dtype)t)->integer ? "OP"
                                                                                        : "FLOP");
    fprintf(out, "  source: %s\n", h->section_source[1]);
    char rule[320];
    show_torus_rule(rule, sizeof rule, h);
    fprintf(out,
            "\ninterconnect: %s, %s, %.4g GB/s per link one way x %llu links, domain %llu "
            "chips, %.3g us per hop%s\n  source: %s\n",
            h->ici_kind_text, h->ici_topology_text, h->ici_link_B_s / 1e9,
            (unsigned long long)h->ici_links, (unsigned long long)h->ici_domain_chips,
            h->ici_hop_latency_s * 1e6, rule, h->section_source[2]);
    fprintf(out, "\nscale-out: %s, %.4g GB/s one way per chip, %.3g us\n  source: %s\n",
            h->dcn_kind, h->dcn_B_s / 1e9, h->dcn_latency_s * 1e6, h->section_source[3]);
    fprintf(out, "\nhost link: %s, %.4g GB/s one way\n  source: %s\n", h->host_kind,
            h->host_B_s / 1e9, h->section_source[4]);
    if (ic_hw_has_price(h))
        fprintf(out, "\nprice: $%.2f per chip-hour as of %s\n  source: %s\n",
                h->usd_per_chip_hour, h->price_as_of, h->section_source[5]);
    else
        fprintf(out, "\nprice: none (no cost is computed)\n  source: %s\n", h->section_source[5]);
    fprintf(out, "\nB_crit (bf16 weights, bf16 compute): %.0f\n",
            h->peak_flop_s[IC_DT_BF16] > 0 ? 2.0 * h->peak_flop_s[IC_DT_BF16] / (2 * h->hbm_bandwidth_B_s)
                                           : 0.0);
    if (h->measured.present)
        show_measured(out, h);
    const struct ic_hw_achieved *ach = &h->achieved;
    if (ach->present) {
        fputs("\nachieved (what good kernels reach; the expected time's rates):\n", out);
        gb(b, sizeof b, ach->hbm_read_B_s);
        fprintf(out, "  memory read %s/s (%.0f%% of spec)", b,
                100 * ach->hbm_read_B_s / h->hbm_bandwidth_B_s);
        fprintf(out, "\n    source: %s\n", ach->mem_source);
        if (ach->gemv_eff > 0) {
            gb(b, sizeof b, ach->hbm_read_B_s * ach->gemv_eff);
            fprintf(out, "  GEMV        %s/s %s (%.0f%% of the memory read, %.0f%% of spec)", b,
                    ach->skinny_eff > 0 ? "at 2 rows and more" : "at batch 1",
                    100 * ach->gemv_eff,
                    100 * ach->hbm_read_B_s * ach->gemv_eff / h->hbm_bandwidth_B_s);
            if (ach->gemv_fixed_s > 0)
                fprintf(out, ", and %.3g us a GEMM kernel beyond its launch",
                        1e6 * ach->gemv_fixed_s);
            else
                fputs(", and no time a GEMM kernel beyond its launch and its bytes "
                      "(gemv_fixed 0: " SHOW_DEFAULT ": optimistic for small GEMMs)",
                      out);
            fprintf(out, "\n    source: %s\n", ach->gemv_source);
        } else {
            /* ic_step_time: the weights and the cache read at hbm_read x 1,
             * and no fixed time (gemv_fixed goes only with gemv_efficiency) */
            fprintf(out, "  GEMV        %s/s at batch 1, the memory read: GEMV efficiency 1 "
                         "(" SHOW_DEFAULT ": optimistic), the weights' and the KV cache's reads "
                         "at it, and no time a GEMM kernel beyond its launch and its bytes "
                         "(gemv_fixed 0: " SHOW_DEFAULT ")\n",
                    b);
        }
        if (ach->skinny_eff > 0) {
            gb(b, sizeof b, ach->hbm_read_B_s * ach->skinny_eff);
            fprintf(out, "  GEMV 1 row  %s/s, a skinny kernel (%.0f%% of the memory read, "
                         "%.0f%% of spec), and %.3g us a GEMM kernel beyond its launch\n    source: %s\n",
                    b, 100 * ach->skinny_eff,
                    100 * ach->hbm_read_B_s * ach->skinny_eff / h->hbm_bandwidth_B_s,
                    1e6 * ach->skinny_fixed_s, ach->skinny_source);
        } else {
            fputs("  GEMV 1 row  at the GEMV's rate and fixed time (skinny_efficiency: "
                  SHOW_DEFAULT ")\n",
                  out);
        }
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (ach->gemm_flop_s[t] > 0)
                fprintf(out, "  GEMM %-5s  %.4g T%s/s (%.0f%% of spec)\n",
                        ic_dtype_traits((enum ic_dtype)t)->name, ach->gemm_flop_s[t] / 1e12,
                        ic_dtype_traits((enum ic_dtype)t)->integer ? "OP" : "FLOP",
                        100 * ach->gemm_flop_s[t] / h->peak_flop_s[t]);
        fprintf(out, "    source: %s\n", ach->gemm_source);
        bool tps = false;
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (ach->transition_p[t] >= 1) {
                fprintf(out, "  transition  %-5s a GEMM's weight read and FLOPs combine as (T_w^p "
                             "+ T_c^p)^(1/p), p = %.3g (%.0f%% over their max where equal)\n",
                        ic_dtype_traits((enum ic_dtype)t)->name, ach->transition_p[t],
                        100 * (pow(2.0, 1.0 / ach->transition_p[t]) - 1));
                tps = true;
            }
        if (tps)
            fprintf(out, "    source: %s\n", ach->transition_source);
        /* a compute type with a GEMM rate and no exponent: ic_step_time
         * takes the max of the two times */
        int maxed = 0;
        for (int t = 0; t < IC_DT_COUNT; t++)
            if (ach->gemm_flop_s[t] > 0 && !(ach->transition_p[t] >= 1))
                fprintf(out, "%s%s", maxed++ ? ", " : "  transition  ",
                        ic_dtype_traits((enum ic_dtype)t)->name);
        if (maxed)
            fputs(": the max of a GEMM's weight read and FLOPs (transition_p: " SHOW_DEFAULT
                  ": optimistic near the ridge)\n",
                  out);
        fprintf(out, "  all-reduce  %.3g us small, %.4g GB/s bus bandwidth large, over %llu chips",
                ach->allreduce_latency_s * 1e6, ach->allreduce_busbw_B_s / 1e9,
                (unsigned long long)ach->allreduce_chips);
        show_allreduce_group(out, h);
        fprintf(out, "\n    source: %s\n", ach->comm_source);
        fprintf(out, "  launch      %.3g us, %.3g us from a graph; %llu kernels per dense layer (MoE, "
                     "MLA, linear-attention and gated layers run more), %llu launch%s per "
                     "step%s\n    source: %s\n",
                ach->launch_s * 1e6, ach->launch_graph_s * 1e6,
                (unsigned long long)ach->kernels_per_layer,
                (unsigned long long)ach->step_launches, ach->step_launches == 1 ? "" : "es",
                h->locs[IC_HWF_A_STEP_LAUNCHES].line ? "" : " (step_launches: " SHOW_DEFAULT ")",
                ach->launch_source);
        if (ach->derived_from[0])
            fprintf(out, "  derived: %s\n", ach->derived_from);
    }
    fputs("\nsources:\n", out);
    for (uint32_t i = 0; i < h->n_sources; i++)
        fprintf(out, "  - %s\n", h->sources[i]);
    if (h->notes[0])
        fprintf(out, "\nnotes: %s\n", h->notes);
}

static void show_model(FILE *out, const struct ic_model *m, const struct ic_model_stats *s)
{
    fprintf(out, "%s%s%s\nfile: %s\nsource: %s\n\n", m->name, m->hf_repo[0] ? " = " : "",
            m->hf_repo, m->path, m->source);
    char kv[32] = "not stated"; /* a model of stated totals may give no heads */
    if (s->n_kv_heads)
        snprintf(kv, sizeof kv, "%llu", (unsigned long long)s->n_kv_heads);
    fprintf(out, "layers %llu, hidden %llu, heads %llu (KV %s), head_dim %llu, vocab %llu%s\n",
            (unsigned long long)s->n_layers, (unsigned long long)s->hidden_size,
            (unsigned long long)s->n_heads, kv, (unsigned long long)s->head_dim,
            (unsigned long long)s->vocab_size, s->embed_tied ? ", tied embeddings" : "");
    if (m->defaulted[0])
        fprintf(out, "from its model_type's config class (the config gives no such key): %s\n",
                m->defaulted);
    if (m->n_blocks) {
        /* Nemotron-H: its blocks, a layer here being a mixer block and the
         * MLP or MoE block after it */
        unsigned n[4] = {0, 0, 0, 0};
        for (uint32_t i = 0; i < m->n_blocks; i++)
            n[m->block_kind[i] & 3]++;
        fprintf(out,
                "blocks %u: %u Mamba2, %u attention, %u MLP, %u MoE (a layer here: a mixer "
                "block and the MLP or MoE block after it)\n",
                m->n_blocks, n[IC_BLOCK_MAMBA], n[IC_BLOCK_ATTN], n[IC_BLOCK_MLP],
                n[IC_BLOCK_MOE]);
    }
    if (s->n_experts)
        fprintf(out, "MoE: %llu routed experts, top-%llu, in %llu of %llu layers\n",
                (unsigned long long)s->n_experts, (unsigned long long)s->top_k,
                (unsigned long long)s->n_moe_layers, (unsigned long long)s->n_layers);
    if (s->mla)
        fprintf(out, "MLA: cache %llu values per token per layer (latent + RoPE key)\n",
                (unsigned long long)s->kv_values_per_layer_token);
    if (s->sparse_topk)
        fprintf(out,
                "sparse attention (DSA): each token attends to the top %llu cached tokens its "
                "indexer picks; the indexer scores every cached token (%llu FLOP a token a "
                "layer) and caches %llu B a token a layer (fp8 keys and scales)\n",
                (unsigned long long)s->sparse_topk,
                (unsigned long long)s->index_flop_per_ctx_token_layer,
                (unsigned long long)s->index_bytes_per_layer_token);
    if (s->n_window_layers)
        fprintf(out, "%s %llu tokens on %llu of %llu layers%s\n",
                s->chunked ? "chunked attention, chunks of" : "sliding window",
                (unsigned long long)s->window, (unsigned long long)s->n_window_layers,
                (unsigned long long)s->n_layers,
                s->window_default ? " (its model_type's default: the config gives no "
                                    "sliding_window)"
                                  : "");
    if (s->n_state_layers)
        fprintf(out,
                "%s on %llu of %llu layers: no KV cache there; "
                "a fixed state of %.0f B a sequence a layer (%.4g MB a sequence), read and "
                "written whole each step, %llu FLOP a token a layer\n",
                s->state_mamba ? "Mamba2" : "linear attention (Gated DeltaNet)",
                (unsigned long long)s->n_state_layers, (unsigned long long)s->n_layers,
                s->state_bytes_per_layer, ic_model_state_bytes(s) / 1e6,
                (unsigned long long)s->state_flop_per_token_layer);
    fputs("\nparameters by group (tensor-parallel ways at most):\n", out);
    for (int g = 0; g < IC_PG_COUNT; g++)
        if (s->group_params[g])
        {
            char ways[24] = "any"; /* a stated total splits any number of ways */
            if (s->group_ways[g] != UINT64_MAX)
                snprintf(ways, sizeof ways, "%llu", (unsigned long long)s->group_ways[g]);
            fprintf(out, "  %-15s %16llu  (%s)\n", ic_pgroup_name((enum ic_pgroup)g),
                    (unsigned long long)s->group_params[g], ways);
        }
    fprintf(out, "  %-15s %16llu\n  %-15s %16llu  (multiplied per token)\n", "total",
            (unsigned long long)s->params_total, "active", (unsigned long long)s->params_active);
    if (m->has_default_weights) {
        fprintf(out, "weights as shipped: %s, from its %s\n",
                ic_dtype_traits(m->default_weights)->name, m->weights_note);
    } else if (m->quant_unread[0]) {
        fprintf(out, "weights as shipped: quant_method '%s' is not read (give --weights)\n",
                m->quant_unread);
    }
    if (m->tower[0])
        fprintf(out, "not counted: its %s\n", m->tower);
    fprintf(out, "\nKV bytes per token, all layers, full context: %llu (bf16), %llu (int8)\n",
            (unsigned long long)ic_model_kv_bytes_per_token(s, 16),
            (unsigned long long)ic_model_kv_bytes_per_token(s, 8));
    if (m->published_total) {
        double dt = 100.0 * ((double)s->params_total / (double)m->published_total - 1);
        fprintf(out, "\npublished total %llu: derived differs by %+.2f%%\n",
                (unsigned long long)m->published_total, dt);
        if (m->published_active) {
            double da = 100.0 * ((double)ic_model_active_as_published(m, s) /
                                     (double)m->published_active -
                                 1);
            fprintf(out, "published active %llu (%s the input embedding): %+.2f%%\n",
                    (unsigned long long)m->published_active,
                    m->published_active_includes_embedding ? "with" : "without", da);
        }
        fprintf(out, "  source: %s\n", m->published_source);
    }
}

static int cmd_show(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    /* a kind and a name, then a word more: that word is the error (it read
     * "show needs 'hw NAME'", which was given) */
    if (a->n_pos > 2 && (strcmp(a->pos[0], "hw") == 0 || strcmp(a->pos[0], "model") == 0 ||
                         strcmp(a->pos[0], "engine") == 0))
        return ic_cli_usage_hint(errf, "one entry a call: e.g. 'infcalc show hw h100'",
                                 "show: unexpected argument '%s'", a->pos[2]);
    if (a->n_pos == 2 && strcmp(a->pos[0], "engine") == 0) {
        struct ic_err e = {0};
        struct ic_engine *en = malloc(sizeof *en);
        if (!en)
            return ic_cli_oom(errf);
        int lrc = ic_db_engine(db, a->pos[1], en, &e), rc = 0;
        if (lrc)
            rc = ic_cli_report(errf, lrc, &e);
        else
            show_engine(out, en);
        free(en);
        return rc;
    }
    if (a->n_pos != 2 || (strcmp(a->pos[0], "hw") && strcmp(a->pos[0], "model")))
        return kind_error(errf, "show needs 'hw NAME', 'model NAME' or 'engine NAME'",
                          "show hw h100", a, "hw", "model", "engine");
    struct ic_err e = {0};
    int rc = 0, lrc;
    if (strcmp(a->pos[0], "hw") == 0) {
        struct ic_hw *h = malloc(sizeof *h);
        if (!h)
            return 1;
        if ((lrc = ic_db_hw(db, a->pos[1], h, &e)))
            rc = ic_cli_report(errf, lrc, &e);
        else
            show_hw(out, h);
        free(h);
    } else {
        struct ic_model *m = malloc(sizeof *m);
        struct ic_model_stats st;
        if (!m)
            return 1;
        if ((lrc = ic_db_model(db, a->pos[1], m, &e)) || (lrc = ic_model_derive(m, &st, &e))) {
            rc = ic_cli_report(errf, lrc, &e);
        } else {
            show_model(out, m, &st);
            ic_cli_model_typo(errf, m); /* (the tower is in the text) */
        }
        free(m);
    }
    return rc;
}

/* --device cuda in a build without CUDA is a usage error, before any work;
 * --threads does not go with it. */
static int check_device(const struct ic_opts *a, FILE *errf)
{
    if (a->device != 1)
        return 0;
    if (!ic_cuda_built())
        return ic_cli_usage_hint(errf, "use --device cpu, or rebuild: 'meson setup build "
                                       "-Dcuda=enabled'",
                                 "--device cuda: this build has no CUDA support (meson "
                                 "-Dcuda=enabled with nvcc)");
    if (a->given[IC_OPT_THREADS])
        return ic_cli_usage_hint(errf, "leave --threads out: it sets the CPU kernel's threads",
                                 "--threads: not with --device cuda");
    if (a->given[IC_OPT_LLC])
        return ic_cli_usage_hint(errf, "leave --llc out: it sizes the CPU kernel's buffers",
                                 "--llc: not with --device cuda");
    return 0;
}

int ic_cli_unexpected(FILE *errf, const struct ic_opts *a)
{
    char hint[96];
    snprintf(hint, sizeof hint, "options start with --; 'infcalc %s --help' lists them",
             ic_cmd_name(a->cmd));
    return ic_cli_usage_hint(errf, hint, "unexpected argument '%s'", a->pos[0]);
}

static int cmd_bench(const struct ic_opts *a, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    int rc;
    if ((rc = check_device(a, errf)))
        return rc;
    bool cuda = a->device == 1;
    struct ic_bench_opts o = {(int)a->threads, a->given[IC_OPT_QUICK],
                              a->given[IC_OPT_OUT] ? a->out
                                                   : cuda ? "this-gpu.yaml" : "this-machine.yaml",
                              a->given[IC_OPT_NAME] ? a->name : cuda ? "this-gpu" : "this-machine",
                              cuda, a->llc_bytes};
    /* the loader's own rule (ic_ydoc_name_ok, the length of a name), so
     * that a minute of measuring does not end in an entry it refuses */
    if (!ic_ydoc_name_ok(o.name, false) || strlen(o.name) >= IC_HW_NAME_LEN)
        return ic_cli_usage_hint(errf, "e.g. '--name epyc-9654-2s'",
                                 "--name: '%.80s%s'; expected lower-case letters, digits, '-' or "
                                 "'.', starting with a letter or a digit, at most %d characters",
                                 o.name, strlen(o.name) > 80 ? "..." : "", IC_HW_NAME_LEN - 1);
    struct ic_err e = {0};
    int lrc;
    /* the entry's place before a minute of measuring */
    if ((lrc = ic_out_check(o.out_path, "the entry", &e)))
        return ic_cli_report(errf, lrc, &e);
    lrc = ic_selfcheck_bench(&o, out, errf, &e);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

static int cmd_validate(const struct ic_opts *a, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    if (!a->given[IC_OPT_HW])
        return ic_cli_usage_hint(errf, "'infcalc bench' writes this-machine.yaml; then "
                                       "'infcalc validate --hw this-machine.yaml'",
                                 "validate needs --hw FILE (an entry written by 'infcalc "
                                 "bench')");
    if (a->given[IC_OPT_QUICK] && a->given[IC_OPT_ROUNDS])
        return ic_cli_usage_hint(errf, "leave one out: --quick is a small sweep of one round",
                                 "--rounds %llu with --quick, which runs one round",
                                 (unsigned long long)a->rounds);
    int rc;
    if ((rc = check_device(a, errf)))
        return rc;
    bool cuda = a->device == 1;
    /* --model M: M's shape, and no CSV or charts unless asked (the defaults
     * are the built-in sweep's committed files) */
    const bool own = a->given[IC_OPT_MODEL];
    struct ic_validate_opts o = {a->hw[0], (int)a->threads, a->given[IC_OPT_QUICK],
                                 a->given[IC_OPT_ROUNDS] ? (int)a->rounds : 3, a->seed, 0,
                                 a->given[IC_OPT_CSV] ? a->csv
                                 : own                ? NULL
                                 : cuda               ? "plots/validate-cuda.csv"
                                                      : "plots/validate-cpu.csv",
                                 a->given[IC_OPT_PLOT_PREFIX] ? a->plot_prefix
                                 : own                        ? NULL
                                 : cuda                       ? "plots/validate-cuda"
                                                              : "plots/validate-cpu",
                                 cuda, NULL, NULL};
    struct ic_err e = {0};
    int lrc;
    struct ic_model *m = NULL;
    if (own) {
        if (a->n[IC_OPT_MODEL] > 1)
            return ic_cli_usage(errf, "--model: validate times one model");
        struct ic_db db;
        m = malloc(sizeof *m);
        if (!m)
            return ic_cli_oom(errf);
        struct ic_kern_shape shape;
        if ((lrc = ic_db_init(&db, a->given[IC_OPT_DB] ? a->db : NULL, &e)) ||
            (lrc = ic_db_model(&db, a->model[0], m, &e)) ||
            (lrc = ic_selfcheck_model_shape(m, &shape, &e))) {
            free(m);
            return ic_cli_report(errf, lrc, &e);
        }
        ic_cli_model_typo(errf, m);
        o.model = m;
    }
    /* the entry read first (its errors are the input's, exit 2), then the
     * CSV's and the charts' places, all before the timings */
    struct ic_hw *h = malloc(sizeof *h);
    if (!h) {
        free(m);
        return ic_cli_oom(errf);
    }
    if ((lrc = ic_hw_load(a->hw[0], h, &e))) {
        free(h);
        free(m);
        return ic_cli_report(errf, lrc, &e);
    }
    o.hw = h; /* read once: validate times against this copy */
    char chart[4200];
    if (o.csv_path && (lrc = ic_out_check(o.csv_path, "the CSV", &e))) {
        free(h);
        free(m);
        if (!a->given[IC_OPT_CSV])
            ic_err_hint(&e, "create its folder, or give --csv FILE (and --plot-prefix P) "
                            "elsewhere");
        return ic_cli_report(errf, lrc, &e);
    }
    static const char *const charts[] = {"batch", "context"};
    for (int i = 0; i < 2 && o.plot_prefix; i++) {
        snprintf(chart, sizeof chart, "%s-%s.png", o.plot_prefix, charts[i]);
        if ((rc = ic_cli_check_plot(chart, errf))) {
            free(h);
            free(m);
            return rc;
        }
    }
    lrc = ic_selfcheck_validate(&o, out, errf, &e);
    free(h);
    free(m);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

static const char usage_serve[] =
    "usage: infcalc serve [--port N] [--bind ADDR] [--db DIR]\n"
    "\n"
    "Serves the decode calculator as a web page (libmicrohttpd): selectors for\n"
    "model, hardware, chips, the three types, the estimate and the engine profile,\n"
    "sliders for batch and context (log scale), the step-time and Pareto chart and\n"
    "the context chart drawn by infcalc's own cairo code, and the current point's\n"
    "table. The address holds the state: copy it to share a configuration.\n"
    "GET /api/decode?model=..&hw=.. (and chips, batch, context, weights, kv,\n"
    "compute, estimate, engine, kv-placement: the decode options, one value each)\n"
    "answers the JSON of --format json; bad values get HTTP 400 with the message\n"
    "the command line prints. Names only: nothing outside hwdb/, modeldb/ and\n"
    "enginedb/ is read. Runs until Ctrl-C.\n";

static int cmd_serve(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    return ic_serve_run(db, a->given[IC_OPT_BIND] ? a->bind : "127.0.0.1",
                        a->given[IC_OPT_PORT] ? (unsigned)a->port : 8080, out, errf);
}

static const char usage_check[] =
    "usage: infcalc check-published [--measurements FILE] [--format F] [--plot FILE]\n"
    "\n"
    "infcalc's estimates against public end-to-end measurements of decode: each row\n"
    "of the CSV (an engine serving a model on tp chips at a concurrency, with its\n"
    "source) is predicted as one decode step at batch = concurrency / replicas and\n"
    "context = input + output / 2, with the ideal bound and with the expected time\n"
    "(where the chip's entry has measured or achieved figures); the error is on\n"
    "time per output token, predicted / measured - 1. A row whose figure includes\n"
    "its prompts' prefill adds it, the ideal bound's at the peak (MFU 1, a bound\n"
    "as the decode step's; prefill and simulate derate theirs to MFU 0.4). Then\n"
    "the median, 90th percentile and signed median of |error| over the\n"
    "validation rows: all, by engine, by chip and at batch 1. Calibration rows\n"
    "are shown, never counted.\n"
    "High-load throughput rows are predicted by the serving simulation (offline,\n"
    "the row's concurrency as the batch limit) beside the closed form (batch / one\n"
    "decode step), with their own error figures.\n"
    "\n"
    "example: infcalc check-published --plot published.png\n";

static int cmd_check(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_unexpected(errf, a);
    char def[4096];
    const char *csv = a->measurements;
    if (!a->given[IC_OPT_MEASUREMENTS]) {
        snprintf(def, sizeof def, "%s/published/decode.csv", db->root);
        csv = def;
    }
    return ic_cli_published_run(csv, db, (enum ic_format)a->format,
                                a->given[IC_OPT_PLOT] ? a->plot : NULL,
                                a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[0] : 1600,
                                a->given[IC_OPT_PLOT_SIZE] ? a->plot_size[1] : 1000,
                                out, errf);
}

static const char *const usages[IC_CMD_COUNT] = {
    [IC_CMD_DECODE] = usage_decode,     [IC_CMD_LIST] = usage_list,
    [IC_CMD_SHOW] = usage_show,         [IC_CMD_BENCH] = usage_bench,
    [IC_CMD_VALIDATE] = usage_validate, [IC_CMD_PREFILL] = ic_cli_help_prefill,
    [IC_CMD_SPECDEC] = ic_cli_help_specdec, [IC_CMD_MOE] = ic_cli_help_moe,
    [IC_CMD_BATCHING] = ic_cli_help_batching, [IC_CMD_PREFIX] = ic_cli_help_prefix,
    [IC_CMD_DISAGG] = ic_cli_help_disagg,  [IC_CMD_COST] = ic_cli_help_cost,
    [IC_CMD_OPTIMIZE] = ic_cli_help_optimize, [IC_CMD_BESTOFN] = ic_cli_help_bestofn,
    [IC_CMD_CHECK] = usage_check,       [IC_CMD_SIMULATE] = ic_cli_help_simulate,
    [IC_CMD_SERVE] = usage_serve,
    [IC_CMD_HELP] = NULL,
};

/* A command's help: its usage and description, the options it takes (from
 * the option table), then its example. */
static void print_help(FILE *f, enum ic_cmd c)
{
    const char *t = usages[c];
    const char *ex = strstr(t, "\nexample:");
    size_t head = ex ? (size_t)(ex - t) : strlen(t);
    while (head && t[head - 1] == '\n')
        head--;
    fprintf(f, "%.*s\n\noptions:\n", (int)head, t);
    ic_opt_help(f, c);
    if (ex)
        fprintf(f, "%s", ex);
}

typedef int (*cmd_fn)(const struct ic_opts *, const struct ic_db *, FILE *, FILE *);

static int run(const struct ic_opts *a, int argc, FILE *out, FILE *errf)
{
    /* --version and help take nothing after them ('help prefill extra'
     * printed the main help, exit 0) */
    if ((a->given[IC_OPT_VERSION] && a->n_pos) || (a->cmd == IC_CMD_HELP && a->n_pos > 1))
        return ic_cli_usage_hint(errf, a->given[IC_OPT_VERSION]
                                           ? "write 'infcalc --version' alone"
                                           : "write 'infcalc help COMMAND', one command",
                                 "unexpected argument '%s'",
                                 a->pos[a->given[IC_OPT_VERSION] ? 0 : 1]);
    if (a->given[IC_OPT_VERSION]) {
        fprintf(out, "infcalc %s\n", IC_VERSION);
        return 0;
    }
    if (a->cmd == IC_CMD_HELP || (a->given[IC_OPT_HELP] && argc == 2) || argc == 1) {
        enum ic_cmd which = IC_CMD_COUNT;
        if (a->cmd == IC_CMD_HELP && a->n_pos == 1) {
            which = ic_cmd_find(a->pos[0]);
            if (which == IC_CMD_COUNT) {
                const char *names[IC_CMD_COUNT];
                for (int c = 0; c < IC_CMD_COUNT; c++)
                    names[c] = ic_cmd_name((enum ic_cmd)c);
                const char *near = ic_text_nearest(a->pos[0], names, IC_CMD_COUNT);
                char hint[160];
                if (near)
                    snprintf(hint, sizeof hint,
                             "did you mean '%s'? ('infcalc --help' lists the commands)", near);
                else
                    snprintf(hint, sizeof hint, "'infcalc --help' lists the commands");
                return ic_cli_usage_hint(errf, hint, "unknown command '%s'", a->pos[0]);
            }
        }
        FILE *dst = argc == 1 ? errf : out;
        if (which < IC_CMD_COUNT && usages[which]) {
            print_help(dst, which);
        } else {
            fputs(usage_main, dst);
            print_help(dst, IC_CMD_DECODE);
        }
        return argc == 1 ? 2 : 0;
    }
    if (a->given[IC_OPT_HELP]) {
        print_help(out, usages[a->cmd] ? a->cmd : IC_CMD_DECODE);
        return 0;
    }
    /* output files before any work: the picture's type and a place it can
     * be written, naming the OS's reason when it cannot */
    if (a->given[IC_OPT_PLOT_SIZE] && !a->given[IC_OPT_PLOT])
        return ic_cli_usage_hint(errf, "e.g. '--plot chart.png --plot-size 800x500'",
                                 "--plot-size needs --plot FILE");
    int rc;
    if (a->given[IC_OPT_PLOT] && (rc = ic_cli_check_plot(a->plot, errf)))
        return rc;
    if (a->cmd == IC_CMD_BENCH)
        return cmd_bench(a, out, errf);
    if (a->cmd == IC_CMD_VALIDATE)
        return cmd_validate(a, out, errf);
    struct ic_db db;
    struct ic_err e = {0};
    int lrc = ic_db_init(&db, a->given[IC_OPT_DB] ? a->db : NULL, &e);
    if (lrc)
        return ic_cli_report(errf, lrc, &e);
    static const cmd_fn fns[IC_CMD_COUNT] = {
        [IC_CMD_DECODE] = cmd_decode,         [IC_CMD_LIST] = cmd_list,
        [IC_CMD_SHOW] = cmd_show,             [IC_CMD_PREFILL] = ic_cli_cmd_prefill,
        [IC_CMD_SPECDEC] = ic_cli_cmd_specdec,    [IC_CMD_MOE] = ic_cli_cmd_moe,
        [IC_CMD_BATCHING] = ic_cli_cmd_batching,  [IC_CMD_PREFIX] = ic_cli_cmd_prefix,
        [IC_CMD_DISAGG] = ic_cli_cmd_disagg,      [IC_CMD_COST] = ic_cli_cmd_cost,
        [IC_CMD_OPTIMIZE] = ic_cli_cmd_optimize,  [IC_CMD_BESTOFN] = ic_cli_cmd_bestofn,
        [IC_CMD_CHECK] = cmd_check,           [IC_CMD_SIMULATE] = ic_cli_cmd_simulate,
        [IC_CMD_SERVE] = cmd_serve,
    };
    cmd_fn f = a->cmd < IC_CMD_COUNT && fns[a->cmd] ? fns[a->cmd] : cmd_decode;
    return f(a, &db, out, errf);
}

static _Thread_local FILE *held_warnings;
static int run_opts(int argc, char **argv, FILE *out, FILE *errf);

FILE *ic_cli_warnf(FILE *errf) { return held_warnings ? held_warnings : errf; }

void ic_cli_warn_comm(const struct ic_opts *a, FILE *errf, const struct ic_hw *h,
                      enum ic_estimate estimate, bool *said)
{
    if (*said || !a->given[IC_OPT_COMM] || a->comm != IC_COMM_OVERLAP ||
        !ic_step_achieved(h, estimate))
        return;
    fputs("infcalc: warning: --comm overlap is not read by the expected time on an "
          "accelerator: engines run the all-reduces between the layers' kernels, so its "
          "collectives come after them (--estimate ideal overlaps them)\n",
          ic_cli_warnf(errf));
    *said = true;
}

int ic_cli_run(int argc, char **argv, FILE *out, FILE *errf)
{
    /* a command warns (a context past the model's, a batch that does not
     * fit) before the library checks its ranges; an input error then
     * stands alone, and the warnings follow any other outcome */
    char *wbuf = NULL;
    size_t wlen = 0;
    FILE *const outer = held_warnings;
    held_warnings = open_memstream(&wbuf, &wlen);
    if (!held_warnings) {
        held_warnings = outer;
        return ic_cli_oom(errf);
    }
    const int rc = run_opts(argc, argv, out, errf);
    fclose(held_warnings);
    if (rc != 2 && wlen)
        fwrite(wbuf, 1, wlen, outer ? outer : errf);
    held_warnings = outer;
    free(wbuf);
    return rc;
}

static int run_opts(int argc, char **argv, FILE *out, FILE *errf)
{
    struct ic_opts a;
    struct ic_err e = {0};
    int rc = ic_opts_parse(argc, argv, &a, &e);
    if (rc) {
        if (rc == IC_ENOMEM) {
            rc = ic_cli_oom(errf);
        } else {
            rc = e.hint[0] ? ic_cli_usage_hint(errf, e.hint, "%s", e.msg)
                           : ic_cli_usage(errf, "%s", e.msg);
        }
    } else {
        rc = run(&a, argc, out, errf);
        /* output that did not reach its file, whatever the command (list,
         * show and check-published ended 1 without a word) */
        if (rc == 0) {
            errno = 0;
            int fl = fflush(out);
            if (fl != 0 || ferror(out)) {
                fprintf(errf, "infcalc: error: writing the output failed%s%s\n",
                        fl != 0 && errno ? ": " : "", fl != 0 && errno ? strerror(errno) : "");
                rc = 1;
            }
        }
    }
    ic_opts_free(&a);
    return rc;
}
