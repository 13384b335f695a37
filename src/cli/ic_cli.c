/* ic_cli: option parsing and the decode, list and show commands. */
#include "ic_cli.h"
#include "ic_cli_int.h"
#include "ic_cuda.h"

#include "ic_db.h"
#include "ic_decode.h"
#include "ic_err.h"
#include "ic_plot.h"
#include "ic_report.h"
#include "ic_selfcheck.h"
#include "ic_serve.h"
#include "ic_sweep.h"
#include "ic_units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef IC_VERSION
#define IC_VERSION "dev"
#endif


static const char *const cmd_names[IC_CMD_COUNT] = {
    [IC_CMD_DECODE] = "decode",
    [IC_CMD_LIST] = "list",
    [IC_CMD_SHOW] = "show",
    [IC_CMD_BENCH] = "bench",
    [IC_CMD_VALIDATE] = "validate",
    [IC_CMD_PREFILL] = "prefill",
    [IC_CMD_SPECDEC] = "specdec",
    [IC_CMD_MOE] = "moe",
    [IC_CMD_BATCHING] = "batching",
    [IC_CMD_PREFIX] = "prefix",
    [IC_CMD_DISAGG] = "disagg",
    [IC_CMD_COST] = "cost",
    [IC_CMD_OPTIMIZE] = "optimize",
    [IC_CMD_BESTOFN] = "bestofn",
    [IC_CMD_SERVE] = "serve",
    [IC_CMD_HELP] = "help",
};
_Static_assert(sizeof cmd_names / sizeof cmd_names[0] == IC_CMD_COUNT, "names");


static const struct {
    const char *name;
    bool takes_value;
} opt_table[IC_OPT_COUNT] = {
    [IC_OPT_MODEL] = {"--model", true},     [IC_OPT_HW] = {"--hw", true},
    [IC_OPT_CHIPS] = {"--chips", true},     [IC_OPT_BATCH] = {"--batch", true},
    [IC_OPT_CONTEXT] = {"--context", true}, [IC_OPT_WEIGHTS] = {"--weights", true},
    [IC_OPT_KV] = {"--kv", true},           [IC_OPT_COMPUTE] = {"--compute", true},
    [IC_OPT_COMM] = {"--comm", true},       [IC_OPT_SWEEP] = {"--sweep", true},
    [IC_OPT_FORMAT] = {"--format", true},   [IC_OPT_DB] = {"--db", true},
    [IC_OPT_PLOT] = {"--plot", true},       [IC_OPT_PLOT_SIZE] = {"--plot-size", true},
    [IC_OPT_ESTIMATE] = {"--estimate", true},
    [IC_OPT_THREADS] = {"--threads", true}, [IC_OPT_QUICK] = {"--quick", false},
    [IC_OPT_OUT] = {"--out", true},         [IC_OPT_NAME] = {"--name", true},
    [IC_OPT_ROUNDS] = {"--rounds", true},   [IC_OPT_SEED] = {"--seed", true},
    [IC_OPT_CSV] = {"--csv", true},         [IC_OPT_PLOT_PREFIX] = {"--plot-prefix", true},
    [IC_OPT_HELP] = {"--help", false},      [IC_OPT_VERSION] = {"--version", false},
    [IC_OPT_PROMPT] = {"--prompt", true},   [IC_OPT_PROMPTS] = {"--prompts", true},
    [IC_OPT_OUTPUT] = {"--output", true},   [IC_OPT_MFU] = {"--mfu", true},
    [IC_OPT_QUEUE] = {"--queue", true},     [IC_OPT_ATTENTION] = {"--attention", true},
    [IC_OPT_CHUNK] = {"--chunk", true},     [IC_OPT_ACCEPT] = {"--accept", true},
    [IC_OPT_DRAFT_LEN] = {"--k", true},     [IC_OPT_COST_RATIO] = {"--cost-ratio", true},
    [IC_OPT_DRAFT] = {"--draft", true},     [IC_OPT_P] = {"--p", true},
    [IC_OPT_Q] = {"--q", true},             [IC_OPT_PREFIX] = {"--prefix", true},
    [IC_OPT_HIT_RATE] = {"--hit-rate", true}, [IC_OPT_PREFIXES] = {"--prefixes", true},
    [IC_OPT_PREFILL_CHIPS] = {"--prefill-chips", true}, [IC_OPT_PRICE] = {"--price", true},
    [IC_OPT_TTFT] = {"--ttft", true},       [IC_OPT_TPOT] = {"--tpot", true},
    [IC_OPT_TOP] = {"--top", true},         [IC_OPT_MAX_CHIPS] = {"--max-chips", true},
    [IC_OPT_SUCCESS] = {"--success", true}, [IC_OPT_N] = {"--n", true},
    [IC_OPT_TARGET] = {"--target", true},   [IC_OPT_SHAPE] = {"--shape", true},
    [IC_OPT_RESERVE] = {"--reserve", true}, [IC_OPT_BLOCK] = {"--block", true},
    [IC_OPT_EP] = {"--ep", true},
    [IC_OPT_PORT] = {"--port", true},       [IC_OPT_BIND] = {"--bind", true},
    [IC_OPT_DEVICE] = {"--device", true},
};
_Static_assert(sizeof opt_table / sizeof opt_table[0] == IC_OPT_COUNT, "options");

static const char usage_decode[] =
    "usage: infcalc [decode] --model M --hw H [options]\n"
    "\n"
    "Decode step time, its breakdown, what bounds it, memory and cost for model M\n"
    "on N chips of accelerator H (the ideal bound from spec-sheet peaks).\n"
    "\n"
    "  --model M          a modeldb name or alias, a model YAML file or a Hugging\n"
    "                     Face config.json ('infcalc list models')\n"
    "  --hw H             a hwdb name or alias, or a hardware YAML file\n"
    "                     ('infcalc list hw')\n"
    "  --chips N          chips holding one tensor-parallel replica (default 1)\n"
    "  --batch B          sequences decoded together (default 1)\n"
    "  --context S        tokens already in each sequence's KV cache (default 2048)\n"
    "  --weights T        weight storage: fp32 bf16 fp16 fp8 int8 int4 fp4 (default bf16)\n"
    "  --kv T             KV-cache storage, same set (default bf16)\n"
    "  --compute T        matmul type; the chip must list it (default bf16)\n"
    "  --comm MODE        overlap (default: collectives hide under HBM traffic, a\n"
    "                     lower bound) or serial (they add to the step)\n"
    "  --estimate E       ideal (spec-sheet peaks) or expected (the entry's measured\n"
    "                     figures, from 'infcalc bench'); default: expected where the\n"
    "                     entry has them, else ideal\n"
    "  --sweep AXIS[,AXIS]  batch, context, chips or precision; two axes give a grid\n"
    "  --format F         table (default), csv or json (SI units, stable fields)\n"
    "  --plot FILE        with --sweep batch: step time vs batch and the latency /\n"
    "                     throughput Pareto frontier; with --sweep context: step time\n"
    "                     vs context. .png, .svg or .pdf\n"
    "  --plot-size WxH    picture size in pixels (default 1600x1000)\n"
    "\n"
    "  --model, --hw, --chips, --context, --weights, --kv and --compute take\n"
    "  comma-separated lists (--chips 4,8,16): one configuration per combination\n"
    "  (at most 16), one curve each in the picture, plus their envelope.\n"
    "  --db DIR           folder holding hwdb/ and modeldb/ (default: $INFCALC_DB,\n"
    "                     then the source tree infcalc was built from)\n"
    "  --help             this text\n"
    "\n"
    "example: infcalc --model llama3-70b --hw v5e --chips 16 --sweep batch\n";

static const char usage_main[] =
    "usage: infcalc [COMMAND] [options]\n"
    "\n"
    "commands:\n"
    "  decode (default)   one decode step or a sweep: infcalc decode --help\n"
    "  list hw|models     the databases, one line per entry\n"
    "  show hw|model NAME one entry in full, with its sources and derived counts\n"
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
    "  serve              the calculator in a browser: infcalc serve, then open the address\n"
    "  help [COMMAND]     this text, or a command's\n"
    "\n"
    "  --version          print the version\n"
    "\n";

static const char usage_list[] =
    "usage: infcalc list hw|models [--db DIR]\n"
    "\n"
    "Lists the accelerators (name, aliases, HBM, bandwidth, bf16 peak, fabric,\n"
    "price) or the models (name, parameters, active, layers, KV bytes per token\n"
    "in bf16, attention kind).\n";

static const char usage_show[] =
    "usage: infcalc show hw|model NAME [--db DIR]\n"
    "\n"
    "Prints one entry in full: every figure with its source; for a model also\n"
    "the derived parameter groups and KV bytes per token, and the published\n"
    "totals they are checked against.\n";

static const char usage_bench[] =
    "usage: infcalc bench [--device cpu|cuda] [--threads N] [--quick] [--out FILE]\n"
    "                     [--name NAME]\n"
    "\n"
    "Measures this machine: read-only memory bandwidth over a buffer >= 4x the\n"
    "last-level cache (all threads and one), STREAM copy and triad (for reference),\n"
    "a working-set ladder from 256 KiB up, the fp32 FMA peak, the fixed cost of a\n"
    "parallel region, and the reference kernel's matmul for fp32, bf16 and int8\n"
    "weights (batch 1 from DRAM and from the LLC, batch 256 in cache, batches\n"
    "1-256 from DRAM for the memory/compute transition). Medians of repeats after\n"
    "a warm-up; progress on stderr; about a minute (--quick: seconds).\n"
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
    "\n"
    "Times the reference decode kernel over batch 1-256 x context 128-16384 (the KV\n"
    "cache capped at 2 GiB) x fp32/bf16/int8 weights, plus a model small enough to\n"
    "sit in the LLC, in random order, R rounds (default 3), with a memory and a\n"
    "compute probe beside every point (the kernel's own matmul, as the bench took\n"
    "them); predicts each point with infcalc's expected time on FILE (an entry\n"
    "written by 'infcalc bench'), its rates rescaled by the probes, and reports\n"
    "median absolute, signed median and 90th-percentile error and the share within\n"
    "10%, per regime. Writes the CSV (default plots/validate-cpu.csv) and\n"
    "measured-vs-predicted charts (default PREFIX plots/validate-cpu). --quick: a\n"
    "small sweep, one round (< 60 s).\n"
    "\n"
    "--device cuda times the CUDA decode kernel on device 0 against an entry from\n"
    "'infcalc bench --device cuda': a 1.0 B-parameter model (bf16 and int8 weights,\n"
    "batch 1-256 x context 128-16384, KV cache capped at 16 GiB) and one whose\n"
    "weights sit in the L2; each point's step is a replayed CUDA graph timed with\n"
    "events; no bandwidth probe (default CSV plots/validate-cuda.csv, charts\n"
    "plots/validate-cuda). A build without CUDA exits 2; a machine without a device, 1.\n";


int ic_cli_usage(FILE *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("infcalc: error: ", err);
    vfprintf(err, fmt, ap);
    va_end(ap);
    fputc('\n', err);
    return 2;
}

const char *ic_cli_nearest(const char *word, const char *const *cands, int n)
{
    const char *best = NULL;
    unsigned bd = 255;
    for (int i = 0; i < n; i++) {
        unsigned d = ic_text_distance(word, cands[i]);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    /* a short word is near only a word one or two edits away ('-x' is not
     * a typo of '--hw') */
    size_t len = strlen(word);
    unsigned limit = len <= 3 ? 1 : len < 9 ? 2 : 3;
    return bd <= limit ? best : NULL;
}

static int unknown_command(const char *word, FILE *err)
{
    const char *near = ic_cli_nearest(word, cmd_names, IC_CMD_COUNT);
    ic_cli_usage(err, "unknown command '%s'", word);
    if (near)
        fprintf(err, "  did you mean '%s'?\n", near);
    fputs("  'infcalc --help' lists the commands\n", err);
    return 2;
}

static int parse_args(int argc, char **argv, struct ic_args *a, FILE *err)
{
    memset(a, 0, sizeof *a);
    int i = 1;
    if (i < argc && argv[i][0] != '-') {
        int found = -1;
        for (int c = 0; c < IC_CMD_COUNT; c++)
            if (strcmp(argv[i], cmd_names[c]) == 0)
                found = c;
        if (found < 0)
            return unknown_command(argv[i], err);
        a->cmd = (enum ic_cmd)found;
        i++;
    }
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || !arg[1]) {
            if (a->n_pos >= 4)
                return ic_cli_usage(err, "unexpected argument '%s'", arg);
            a->pos[a->n_pos++] = arg;
            continue;
        }
        if (strcmp(arg, "-h") == 0)
            arg = "--help";
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, arg, len);
        name[len] = '\0';
        int o = -1;
        for (int k = 0; k < IC_OPT_COUNT; k++)
            if (strcmp(name, opt_table[k].name) == 0)
                o = k;
        if (o < 0) {
            const char *names[IC_OPT_COUNT];
            for (int k = 0; k < IC_OPT_COUNT; k++)
                names[k] = opt_table[k].name;
            const char *near = ic_cli_nearest(name, names, IC_OPT_COUNT);
            ic_cli_usage(err, "unknown option '%s'", name);
            if (near)
                fprintf(err, "  did you mean '%s'?\n", near);
            return 2;
        }
        if (a->given[o])
            return ic_cli_usage(err, "option '%s' given twice", opt_table[o].name);
        a->given[o] = true;
        if (!opt_table[o].takes_value) {
            if (eq)
                return ic_cli_usage(err, "option '%s' takes no value", opt_table[o].name);
            continue;
        }
        if (eq) {
            a->val[o] = eq + 1;
        } else {
            if (i + 1 >= argc)
                return ic_cli_usage(err, "option '%s' needs a value", opt_table[o].name);
            a->val[o] = argv[++i];
        }
        if (!*a->val[o])
            return ic_cli_usage(err, "option '%s' has an empty value", opt_table[o].name);
    }
    return 0;
}

/* A whole number in [lo, hi] for an option, rejecting signs and trailing
 * garbage ("32k", "1e3", "-1"). */
int ic_cli_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi,
                         uint64_t *out, FILE *err)
{
    if (strspn(text, "0123456789") != strlen(text))
        return ic_cli_usage(err, "%s: '%s' is not a whole number; expected %llu to %llu", opt,
                           text, (unsigned long long)lo, (unsigned long long)hi);
    errno = 0;
    unsigned long long v = strtoull(text, NULL, 10);
    if (errno == ERANGE || v < lo || v > hi)
        return ic_cli_usage(err, "%s: %s is out of range; expected %llu to %llu", opt, text,
                           (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return 0;
}

int ic_cli_dtype(const char *opt, const char *text, enum ic_dtype *out, FILE *err)
{
    if (ic_dtype_parse(text, out) == IC_OK)
        return 0;
    return ic_cli_usage(err, "%s: unknown type '%s'; expected fp32, bf16, fp16, fp8, int8, int4 "
                            "or fp4", opt, text);
}

int ic_cli_num(const char *opt, const char *text, double lo, double hi, double *out, FILE *err)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || !isfinite(v) || strpbrk(text, "xXpP") ||
        isspace((unsigned char)*text))
        return ic_cli_usage(err, "%s: '%s' is not a number; expected %g to %g", opt, text, lo, hi);
    /* a quantity that cannot be negative takes no minus sign: '-0' and
     * '-1e-300' are not a zero to print as "-0" or round away */
    if (lo >= 0 && text[0] == '-')
        return ic_cli_usage(err, "%s: '%s' has a minus sign; expected %g to %g", opt, text, lo,
                            hi);
    if (errno == ERANGE || v < lo || v > hi)
        return ic_cli_usage(err, "%s: %s is out of range; expected %g to %g", opt, text, lo, hi);
    *out = v;
    return 0;
}

int ic_cli_time(const char *opt, const char *text, double *out, FILE *err)
{
    char why[160];
    double v;
    if (strspn(text, "0123456789.eE+-") == strlen(text)) {
        if (ic_cli_num(opt, text, 0, 1e6, &v, err))
            return 2;
    } else if (ic_qty_parse(text, IC_QTY_TIME, &v, why, sizeof why)) {
        return ic_cli_usage(err, "%s: %s; expected a time such as 200ms or 0.5s", opt, why);
    }
    if (!(v <= 1e6))
        return ic_cli_usage(err, "%s: %s is out of range; expected at most 1e6 s", opt, text);
    *out = v;
    return 0;
}

int ic_cli_report(FILE *errf, int rc, const struct ic_err *e)
{
    ic_err_print(errf, e);
    return rc == IC_ENOMEM || rc == IC_EIO ? 1 : 2;
}

int ic_cli_check_plot(const char *path, FILE *errf)
{
    struct ic_err e = {0};
    int rc = ic_plot_check_path(path, &e);
    return rc ? ic_cli_report(errf, rc, &e) : 0;
}


int ic_cli_list(const char *opt, const char *text, struct ic_list *l, FILE *err)
{
    snprintf(l->buf, sizeof l->buf, "%s", text);
    l->n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(l->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (l->n == IC_CLI_MAX_LIST)
            return ic_cli_usage(err, "%s: at most %d values", opt, IC_CLI_MAX_LIST);
        l->v[l->n++] = tok;
    }
    if (!l->n || text[strlen(text) - 1] == ',' || text[0] == ',' || strstr(text, ",,"))
        return ic_cli_usage(err, "%s: empty value in list '%s'", opt, text);
    return 0;
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

int ic_cli_plot_size(const char *text, int *w, int *h, FILE *err)
{
    unsigned long a, b;
    char tail;
    /* digits, 'x', digits: sscanf alone would take " 800x600" and "+800x600" */
    size_t d1 = strspn(text, "0123456789");
    bool shape = d1 && text[d1] == 'x' && strspn(text + d1 + 1, "0123456789") &&
                 !text[d1 + 1 + strspn(text + d1 + 1, "0123456789")];
    if (!shape || sscanf(text, "%lux%lu%c", &a, &b, &tail) != 2 || a < 320 || b < 240 ||
        a > 10000 || b > 10000)
        return ic_cli_usage(err, "--plot-size: '%s' is not WIDTHxHEIGHT with 320x240 to "
                                "10000x10000 pixels, e.g. 1600x1000", text);
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* Adds "what" to a label or title part list. */
static void append(char *buf, size_t n, const char *sep, const char *what)
{
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", l ? sep : "", what);
}

static int cmd_decode(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_usage(errf, "unexpected argument '%s' (options start with --)", a->pos[0]);
    if (!a->val[IC_OPT_MODEL] || !a->val[IC_OPT_HW])
        return ic_cli_usage(errf, "decode needs --model and --hw ('infcalc --help' for usage)");
    int rc = 0;
    struct ic_list lists[L_COUNT];
    struct ic_decode_cfg base = ic_decode_defaults();
    for (int l = 0; l < L_COUNT; l++) {
        const char *v = a->val[list_opts[l]];
        if (!v) {
            lists[l].n = 1;
            lists[l].v[0] = NULL;
            continue;
        }
        if ((rc = ic_cli_list(opt_table[list_opts[l]].name, v, &lists[l], errf)))
            return rc;
    }
    /* Validate every listed value before any work. */
    uint64_t chips_v[IC_CLI_MAX_LIST], ctx_v[IC_CLI_MAX_LIST];
    enum ic_dtype dt_v[3][IC_CLI_MAX_LIST];
    for (int i = 0; i < lists[L_CHIPS].n; i++)
        if (lists[L_CHIPS].v[i] &&
            (rc = ic_cli_u64("--chips", lists[L_CHIPS].v[i], 1, 1u << 20, &chips_v[i], errf)))
            return rc;
    for (int i = 0; i < lists[L_CONTEXT].n; i++)
        if (lists[L_CONTEXT].v[i] && (rc = ic_cli_u64("--context", lists[L_CONTEXT].v[i], 1,
                                                         1u << 26, &ctx_v[i], errf)))
            return rc;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < lists[L_WEIGHTS + k].n; i++)
            if (lists[L_WEIGHTS + k].v[i] &&
                (rc = ic_cli_dtype(opt_table[list_opts[L_WEIGHTS + k]].name,
                                      lists[L_WEIGHTS + k].v[i], &dt_v[k][i], errf)))
                return rc;
    if (a->val[IC_OPT_BATCH] &&
        (rc = ic_cli_u64("--batch", a->val[IC_OPT_BATCH], 1, 1u << 24, &base.batch, errf)))
        return rc;
    if (a->val[IC_OPT_COMM]) {
        if (strcmp(a->val[IC_OPT_COMM], "overlap") == 0)
            base.comm = IC_COMM_OVERLAP;
        else if (strcmp(a->val[IC_OPT_COMM], "serial") == 0)
            base.comm = IC_COMM_SERIAL;
        else
            return ic_cli_usage(errf, "--comm: unknown mode '%s'; expected overlap or serial",
                               a->val[IC_OPT_COMM]);
    }
    int estimate = -1; /* -1: by the hardware entry */
    if (a->val[IC_OPT_ESTIMATE]) {
        if (strcmp(a->val[IC_OPT_ESTIMATE], "ideal") == 0)
            estimate = IC_EST_IDEAL;
        else if (strcmp(a->val[IC_OPT_ESTIMATE], "expected") == 0)
            estimate = IC_EST_EXPECTED;
        else
            return ic_cli_usage(errf, "--estimate: unknown '%s'; expected ideal or expected",
                               a->val[IC_OPT_ESTIMATE]);
    }
    enum ic_format fmt = IC_FMT_TABLE;
    if (a->val[IC_OPT_FORMAT] && ic_report_format_parse(a->val[IC_OPT_FORMAT], &fmt))
        return ic_cli_usage(errf, "--format: unknown format '%s'; expected table, csv or json",
                           a->val[IC_OPT_FORMAT]);
    enum ic_axis axes[2] = {IC_AXIS_BATCH, IC_AXIS_BATCH};
    int n_axes = 0;
    if (a->val[IC_OPT_SWEEP]) {
        struct ic_list sw;
        if ((rc = ic_cli_list("--sweep", a->val[IC_OPT_SWEEP], &sw, errf)))
            return rc;
        if (sw.n > 2)
            return ic_cli_usage(errf, "--sweep: at most two axes");
        for (int i = 0; i < sw.n; i++) {
            if (ic_axis_parse(sw.v[i], &axes[i]))
                return ic_cli_usage(errf, "--sweep: unknown axis '%s'; expected batch, context, "
                                         "chips or precision", sw.v[i]);
            if (i == 1 && axes[0] == axes[1])
                return ic_cli_usage(errf, "--sweep: axis '%s' given twice", sw.v[i]);
        }
        n_axes = sw.n;
        static const int axis_opt[IC_AXIS_COUNT] = {
            [IC_AXIS_BATCH] = IC_OPT_BATCH, [IC_AXIS_CONTEXT] = IC_OPT_CONTEXT,
            [IC_AXIS_CHIPS] = IC_OPT_CHIPS, [IC_AXIS_PRECISION] = IC_OPT_WEIGHTS};
        for (int i = 0; i < n_axes; i++) {
            int o = axis_opt[axes[i]];
            if (a->given[o] || (axes[i] == IC_AXIS_PRECISION && a->given[IC_OPT_KV]))
                return ic_cli_usage(errf, "--sweep %s varies %s; leave that option out",
                                   ic_axis_name(axes[i]),
                                   axes[i] == IC_AXIS_PRECISION ? "--weights and --kv"
                                                                : opt_table[o].name);
        }
    }
    int plot_w = 1600, plot_h = 1000;
    const char *plot = a->val[IC_OPT_PLOT];
    if (a->val[IC_OPT_PLOT_SIZE]) {
        if (!plot)
            return ic_cli_usage(errf, "--plot-size needs --plot FILE");
        if ((rc = ic_cli_plot_size(a->val[IC_OPT_PLOT_SIZE], &plot_w, &plot_h, errf)))
            return rc;
    }
    if (plot && !(n_axes == 1 && (axes[0] == IC_AXIS_BATCH || axes[0] == IC_AXIS_CONTEXT)))
        return ic_cli_usage(errf, "--plot draws a batch or a context sweep; add --sweep batch or "
                                 "--sweep context");
    if (plot && (rc = ic_cli_check_plot(plot, errf)))
        return rc;

    /* The configurations: every combination of the listed values. */
    size_t n_cfg = 1;
    for (int l = 0; l < L_COUNT; l++)
        n_cfg *= (size_t)lists[l].n;
    if (n_cfg > IC_MAX_CONFIGS)
        return ic_cli_usage(errf, "the listed options make %zu configurations; at most %d",
                           n_cfg, IC_MAX_CONFIGS);

    struct ic_err e = {0};
    struct ic_model *models = calloc((size_t)lists[L_MODEL].n, sizeof *models);
    struct ic_model_stats stats[IC_CLI_MAX_LIST];
    struct ic_hw *hws = calloc((size_t)lists[L_HW].n, sizeof *hws);
    struct config cfgs[IC_MAX_CONFIGS];
    struct ic_point *pts = NULL;
    struct ic_report_group groups[IC_MAX_CONFIGS];
    struct ic_plot_curve curves[IC_MAX_CONFIGS];
    if (!models || !hws) {
        fputs("infcalc: error: out of memory\n", errf);
        rc = 1;
        goto out;
    }
    int lrc;
    for (int i = 0; i < lists[L_MODEL].n; i++)
        if ((lrc = ic_db_model(db, lists[L_MODEL].v[i], &models[i], &e)) ||
            (lrc = ic_model_derive(&models[i], &stats[i], &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    for (int i = 0; i < lists[L_HW].n; i++)
        if ((lrc = ic_db_hw(db, lists[L_HW].v[i], &hws[i], &e))) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    for (size_t c = 0; c < n_cfg; c++) {
        size_t rest = c;
        struct config *k = &cfgs[c];
        for (int l = L_COUNT - 1; l >= 0; l--) {
            k->pick[l] = (int)(rest % (size_t)lists[l].n);
            rest /= (size_t)lists[l].n;
        }
        k->cfg = base;
        if (lists[L_CHIPS].v[0])
            k->cfg.chips = chips_v[k->pick[L_CHIPS]];
        if (lists[L_CONTEXT].v[0])
            k->cfg.context = ctx_v[k->pick[L_CONTEXT]];
        if (lists[L_WEIGHTS].v[0])
            k->cfg.weights = dt_v[0][k->pick[L_WEIGHTS]];
        if (lists[L_KV].v[0])
            k->cfg.kv = dt_v[1][k->pick[L_KV]];
        if (lists[L_COMPUTE].v[0])
            k->cfg.compute = dt_v[2][k->pick[L_COMPUTE]];
        /* label: the values that vary between configurations */
        k->label[0] = '\0';
        char part[96];
        if (lists[L_MODEL].n > 1)
            append(k->label, sizeof k->label, ", ", models[k->pick[L_MODEL]].name);
        if (lists[L_HW].n > 1)
            append(k->label, sizeof k->label, ", ", hws[k->pick[L_HW]].name);
        if (lists[L_CHIPS].n > 1) {
            snprintf(part, sizeof part, "%llu chips", (unsigned long long)k->cfg.chips);
            append(k->label, sizeof k->label, ", ", part);
        }
        if (lists[L_CONTEXT].n > 1) {
            snprintf(part, sizeof part, "context %llu", (unsigned long long)k->cfg.context);
            append(k->label, sizeof k->label, ", ", part);
        }
        static const char *const what[3] = {"weights", "KV", "compute"};
        for (int t = 0; t < 3; t++)
            if (lists[L_WEIGHTS + t].n > 1) {
                enum ic_dtype d = t == 0 ? k->cfg.weights : t == 1 ? k->cfg.kv : k->cfg.compute;
                snprintf(part, sizeof part, "%s %s", ic_dtype_traits(d)->name, what[t]);
                append(k->label, sizeof k->label, ", ", part);
            }
        const struct ic_hw *h = &hws[k->pick[L_HW]];
        k->cfg.estimate = estimate >= 0 ? (enum ic_estimate)estimate
                          : h->measured.present ? IC_EST_EXPECTED
                                                : IC_EST_IDEAL;
        if (ic_hw_peak(h, k->cfg.compute) <= 0) {
            char have[128] = "";
            for (int t = 0; t < IC_DT_COUNT; t++)
                if (h->peak_flop_s[t] > 0)
                    append(have, sizeof have, " ", ic_dtype_traits((enum ic_dtype)t)->name);
            rc = ic_cli_usage(errf, "--compute %s: %s has no %s compute (it lists: %s)",
                             ic_dtype_traits(k->cfg.compute)->name, h->name,
                             ic_dtype_traits(k->cfg.compute)->name, have);
            goto out;
        }
        const struct ic_model_stats *st = &stats[k->pick[L_MODEL]];
        bool ctx_swept = n_axes && (axes[0] == IC_AXIS_CONTEXT ||
                                    (n_axes > 1 && axes[1] == IC_AXIS_CONTEXT));
        if (st->max_context && k->cfg.context > st->max_context && !ctx_swept)
            fprintf(errf,
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
    for (size_t c = 0; c < n_cfg; c++) {
        struct config *k = &cfgs[c];
        const struct ic_model_stats *st = &stats[k->pick[L_MODEL]];
        const struct ic_hw *h = &hws[k->pick[L_HW]];
        size_t n = 1;
        lrc = n_axes ? ic_sweep_run(st, h, &k->cfg, axes, n_axes, pts + used, &n, &e)
                     : ic_decode(st, h, &k->cfg, pts + used, &e);
        if (lrc) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
        k->first = used;
        k->n = n;
        used += n;
        groups[c] = (struct ic_report_group){models[k->pick[L_MODEL]].name, h->name,
                                             pts + k->first, n};
        curves[c] = (struct ic_plot_curve){k->label, pts + k->first, n};
    }
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
        append(t, sizeof t, "", lists[L_MODEL].n > 1 ? "several models"
                                                      : models[k->pick[L_MODEL]].name);
        append(t, sizeof t, " on ", "");
        if (lists[L_CHIPS].n == 1) {
            snprintf(part, sizeof part, "%llu x ", (unsigned long long)k->cfg.chips);
            append(t, sizeof t, "", part);
        }
        if (lists[L_HW].n > 1) {
            append(t, sizeof t, "", "each of");
            for (int i = 0; i < lists[L_HW].n; i++)
                append(t, sizeof t, i ? ", " : " ", hws[i].name);
        } else {
            append(t, sizeof t, "", hws[k->pick[L_HW]].name);
        }
        if (lists[L_CHIPS].n > 1)
            append(t, sizeof t, "", " (chips vary)");
        snprintf(part, sizeof part, "weights %s, KV %s, compute %s",
                 lists[L_WEIGHTS].n > 1 ? "vary" : ic_dtype_traits(k->cfg.weights)->name,
                 lists[L_KV].n > 1 ? "vary" : ic_dtype_traits(k->cfg.kv)->name,
                 lists[L_COMPUTE].n > 1 ? "vary" : ic_dtype_traits(k->cfg.compute)->name);
        append(sub, sizeof sub, "", part);
        if (axes[0] == IC_AXIS_BATCH) {
            if (lists[L_CONTEXT].n > 1)
                snprintf(part, sizeof part, "context varies");
            else
                snprintf(part, sizeof part, "context %llu", (unsigned long long)k->cfg.context);
        } else {
            snprintf(part, sizeof part, "batch %llu", (unsigned long long)k->cfg.batch);
        }
        append(sub, sizeof sub, "; ", part);
        append(sub, sizeof sub, "; ",
               k->cfg.estimate == IC_EST_EXPECTED ? "expected time from measured figures"
                                                  : "ideal bound from spec-sheet peaks");
        struct ic_plot_set set = {t, sub, curves, n_cfg, NULL};
        lrc = ic_plot_write(plot, axes[0] == IC_AXIS_CONTEXT ? IC_PLOT_CONTEXT : IC_PLOT_DECODE,
                            plot_w, plot_h, &set, &e);
        if (lrc) {
            rc = ic_cli_report(errf, lrc, &e);
            goto out;
        }
    }
out:
    free(pts);
    free(models);
    free(hws);
    return rc;
}

static void gb(char *buf, size_t n, double v) { ic_report_bytes(buf, n, v); }

/* list/show without a known kind: the usage error, and the nearest kind
 * to the word given ('list modles': did you mean 'models'?). */
static int kind_error(FILE *errf, const char *what, const struct ic_args *a, const char *k1,
                      const char *k2)
{
    const char *const kinds[2] = {k1, k2};
    const char *near = a->n_pos ? ic_cli_nearest(a->pos[0], kinds, 2) : NULL;
    ic_cli_usage(errf, "%s", what);
    if (near && strcmp(near, a->pos[0]))
        fprintf(errf, "  did you mean '%s'?\n", near);
    return 2;
}

static int cmd_list(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos != 1 || (strcmp(a->pos[0], "hw") && strcmp(a->pos[0], "models")))
        return kind_error(errf, "list needs 'hw' or 'models'", a, "hw", "models");
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
        rc = 1;
        goto out;
    }
    if (hw_kind)
        fprintf(out, "%-16s %-22s %9s %11s %11s  %-24s %9s\n", "name", "aliases", "HBM",
                "HBM BW", "bf16 peak", "fabric (one-way/link)", "$/chip-h");
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
            fprintf(out, "%-16s %-22s %9s %9s/s %11s  %-24s %9.2f\n", h->name, al, cap, bwt,
                    peak, fab, h->usd_per_chip_hour);
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
                snprintf(kind + l, sizeof kind - l, ", %llu of %llu layers window %llu",
                         (unsigned long long)st.n_window_layers, (unsigned long long)st.n_layers,
                         (unsigned long long)st.window);
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
out:
    free(rec);
    ic_db_paths_free(paths, n);
    return rc;
}

static void show_hw(FILE *out, const struct ic_hw *h)
{
    char a[32], b[32];
    fprintf(out, "%s (%s)%s%s\n", h->name, h->vendor, h->description[0] ? ": " : "",
            h->description);
    fprintf(out, "file: %s\n", h->path);
    gb(a, sizeof a, h->hbm_capacity_B);
    gb(b, sizeof b, h->hbm_bandwidth_B_s);
    fprintf(out, "\nmemory: %s HBM (%.4g GiB), %s/s\n  source: %s\n", a,
            h->hbm_capacity_B / 1073741824.0, b, h->section_source[0]);
    fputs("\ncompute (dense peak per chip):\n", out);
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (h->peak_flop_s[t] > 0)
            fprintf(out, "  %-5s %8.4g T%s/s\n", ic_dtype_traits((enum ic_dtype)t)->name,
                    h->peak_flop_s[t] / 1e12, ic_dtype_traits((enum ic_dtype)t)->integer ? "OP"
                                                                                        : "FLOP");
    fprintf(out, "  source: %s\n", h->section_source[1]);
    fprintf(out,
            "\ninterconnect: %s, %s, %.4g GB/s per link one way x %llu links, domain %llu "
            "chips, %.3g us per hop\n  source: %s\n",
            h->ici_kind_text, h->ici_topology_text, h->ici_link_B_s / 1e9,
            (unsigned long long)h->ici_links, (unsigned long long)h->ici_domain_chips,
            h->ici_hop_latency_s * 1e6, h->section_source[2]);
    fprintf(out, "\nscale-out: %s, %.4g GB/s one way per chip, %.3g us\n  source: %s\n",
            h->dcn_kind, h->dcn_B_s / 1e9, h->dcn_latency_s * 1e6, h->section_source[3]);
    fprintf(out, "\nhost link: %s, %.4g GB/s one way\n  source: %s\n", h->host_kind,
            h->host_B_s / 1e9, h->section_source[4]);
    fprintf(out, "\nprice: $%.2f per chip-hour as of %s\n  source: %s\n", h->usd_per_chip_hour,
            h->price_as_of, h->section_source[5]);
    fprintf(out, "\nB_crit (bf16 weights, bf16 compute): %.0f\n",
            h->peak_flop_s[IC_DT_BF16] > 0 ? 2.0 * h->peak_flop_s[IC_DT_BF16] / (2 * h->hbm_bandwidth_B_s)
                                           : 0.0);
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
    fprintf(out, "layers %llu, hidden %llu, heads %llu (KV %llu), head_dim %llu, vocab %llu%s\n",
            (unsigned long long)s->n_layers, (unsigned long long)s->hidden_size,
            (unsigned long long)s->n_heads, (unsigned long long)s->n_kv_heads,
            (unsigned long long)s->head_dim, (unsigned long long)s->vocab_size,
            s->embed_tied ? ", tied embeddings" : "");
    if (s->n_experts)
        fprintf(out, "MoE: %llu routed experts, top-%llu, in %llu of %llu layers\n",
                (unsigned long long)s->n_experts, (unsigned long long)s->top_k,
                (unsigned long long)s->n_moe_layers, (unsigned long long)s->n_layers);
    if (s->mla)
        fprintf(out, "MLA: cache %llu values per token per layer (latent + RoPE key)\n",
                (unsigned long long)s->kv_values_per_layer_token);
    if (s->n_window_layers)
        fprintf(out, "sliding window %llu tokens on %llu of %llu layers\n",
                (unsigned long long)s->window, (unsigned long long)s->n_window_layers,
                (unsigned long long)s->n_layers);
    fputs("\nparameters by group (tensor-parallel ways at most):\n", out);
    for (int g = 0; g < IC_PG_COUNT; g++)
        if (s->group_params[g])
            fprintf(out, "  %-15s %16llu  (%llu)\n", ic_pgroup_name((enum ic_pgroup)g),
                    (unsigned long long)s->group_params[g], (unsigned long long)s->group_ways[g]);
    fprintf(out, "  %-15s %16llu\n  %-15s %16llu  (multiplied per token)\n", "total",
            (unsigned long long)s->params_total, "active", (unsigned long long)s->params_active);
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

static int cmd_show(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos != 2 || (strcmp(a->pos[0], "hw") && strcmp(a->pos[0], "model")))
        return kind_error(errf, "show needs 'hw NAME' or 'model NAME'", a, "hw", "model");
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
        if ((lrc = ic_db_model(db, a->pos[1], m, &e)) || (lrc = ic_model_derive(m, &st, &e)))
            rc = ic_cli_report(errf, lrc, &e);
        else
            show_model(out, m, &st);
        free(m);
    }
    return rc;
}

/* --threads N (1 to 256) into *threads when given; 0 or a usage status. */
static int parse_threads(const struct ic_args *a, int *threads, FILE *errf)
{
    uint64_t v;
    int rc;
    if (!a->val[IC_OPT_THREADS])
        return 0;
    if ((rc = ic_cli_u64("--threads", a->val[IC_OPT_THREADS], 1, 256, &v, errf)))
        return rc;
    *threads = (int)v;
    return 0;
}

/* --device cpu|cuda into *cuda (false when not given); 0 or a usage status.
 * cuda in a build without CUDA is a usage error here, before any work. */
static int parse_device(const struct ic_args *a, bool *cuda, FILE *errf)
{
    const char *v = a->val[IC_OPT_DEVICE];
    *cuda = false;
    if (!v || strcmp(v, "cpu") == 0)
        return 0;
    if (strcmp(v, "cuda") != 0)
        return ic_cli_usage(errf, "--device: '%s'; expected cpu or cuda", v);
    if (!ic_cuda_built())
        return ic_cli_usage(errf, "--device cuda: this build has no CUDA support (meson "
                                  "-Dcuda=enabled with nvcc)");
    if (a->val[IC_OPT_THREADS])
        return ic_cli_usage(errf, "--threads: not with --device cuda");
    *cuda = true;
    return 0;
}

static int cmd_bench(const struct ic_args *a, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_usage(errf, "unexpected argument '%s'", a->pos[0]);
    bool cuda;
    int rc;
    if ((rc = parse_device(a, &cuda, errf)))
        return rc;
    struct ic_bench_opts o = {0, a->given[IC_OPT_QUICK],
                              a->val[IC_OPT_OUT] ? a->val[IC_OPT_OUT]
                                                 : cuda ? "this-gpu.yaml" : "this-machine.yaml",
                              a->val[IC_OPT_NAME] ? a->val[IC_OPT_NAME]
                                                  : cuda ? "this-gpu" : "this-machine",
                              cuda};
    if ((rc = parse_threads(a, &o.threads, errf)))
        return rc;
    if (strspn(o.name, "abcdefghijklmnopqrstuvwxyz0123456789-.") != strlen(o.name))
        return ic_cli_usage(errf, "--name: '%s'; expected lower-case letters, digits, '-' or '.'",
                           o.name);
    struct ic_err e = {0};
    int lrc = ic_selfcheck_bench(&o, out, errf, &e);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

static int cmd_validate(const struct ic_args *a, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_usage(errf, "unexpected argument '%s'", a->pos[0]);
    if (!a->val[IC_OPT_HW])
        return ic_cli_usage(errf, "validate needs --hw FILE (an entry written by 'infcalc "
                                 "bench')");
    bool cuda;
    int rc;
    if ((rc = parse_device(a, &cuda, errf)))
        return rc;
    struct ic_validate_opts o = {a->val[IC_OPT_HW], 0, a->given[IC_OPT_QUICK], 3, 0, 0,
                                 a->val[IC_OPT_CSV] ? a->val[IC_OPT_CSV]
                                 : cuda             ? "plots/validate-cuda.csv"
                                                    : "plots/validate-cpu.csv",
                                 a->val[IC_OPT_PLOT_PREFIX] ? a->val[IC_OPT_PLOT_PREFIX]
                                 : cuda                     ? "plots/validate-cuda"
                                                            : "plots/validate-cpu",
                                 cuda};
    uint64_t v;
    if ((rc = parse_threads(a, &o.threads, errf)))
        return rc;
    if (a->val[IC_OPT_ROUNDS]) {
        if ((rc = ic_cli_u64("--rounds", a->val[IC_OPT_ROUNDS], 1, 8, &v, errf)))
            return rc;
        o.rounds = (int)v;
    }
    if (a->val[IC_OPT_SEED] &&
        (rc = ic_cli_u64("--seed", a->val[IC_OPT_SEED], 1, UINT32_MAX, &o.seed, errf)))
        return rc;
    struct ic_err e = {0};
    int lrc = ic_selfcheck_validate(&o, out, errf, &e);
    return lrc ? ic_cli_report(errf, lrc, &e) : 0;
}

static const char usage_serve[] =
    "usage: infcalc serve [--port N] [--bind ADDR] [--db DIR]\n"
    "\n"
    "Serves the decode calculator as a web page (libmicrohttpd): selectors for\n"
    "model, hardware, chips and the three types, sliders for batch and context\n"
    "(log scale), the step-time and Pareto chart and the context chart drawn by\n"
    "infcalc's own cairo code, and the current point's table. The address holds\n"
    "the state: copy it to share a configuration. GET /api/decode?model=..&hw=..\n"
    "answers the JSON of --format json; bad values get HTTP 400 with the message\n"
    "the command line prints. Names only: nothing outside hwdb/ and modeldb/ is\n"
    "read. Runs until Ctrl-C.\n"
    "\n"
    "  --port N           TCP port (default 8080; 0 picks a free one and says which)\n"
    "  --bind ADDR        IPv4 address to listen on (default 127.0.0.1, this machine)\n"
    "  --db DIR           folder holding hwdb/ and modeldb/\n";

static int cmd_serve(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf)
{
    if (a->n_pos)
        return ic_cli_usage(errf, "unexpected argument '%s'", a->pos[0]);
    uint64_t port = 8080;
    int rc;
    if (a->val[IC_OPT_PORT] &&
        (rc = ic_cli_u64("--port", a->val[IC_OPT_PORT], 0, 65535, &port, errf)))
        return rc;
    return ic_serve_run(db, a->val[IC_OPT_BIND] ? a->val[IC_OPT_BIND] : "127.0.0.1",
                        (unsigned)port, out, errf);
}

/* Which options each command takes; any other is a usage error. */
#define OPT(o) (UINT64_C(1) << (o))
#define OPTS_DEC (OPT(IC_OPT_MODEL) | OPT(IC_OPT_HW) | OPT(IC_OPT_CHIPS) | OPT(IC_OPT_WEIGHTS) | \
                  OPT(IC_OPT_KV) | OPT(IC_OPT_COMPUTE) | OPT(IC_OPT_COMM) |                   \
                  OPT(IC_OPT_FORMAT) | OPT(IC_OPT_DB))
static const uint64_t cmd_opts[IC_CMD_COUNT] = {
    [IC_CMD_DECODE] = OPTS_DEC | OPT(IC_OPT_BATCH) | OPT(IC_OPT_CONTEXT) | OPT(IC_OPT_SWEEP) |
                      OPT(IC_OPT_PLOT) | OPT(IC_OPT_PLOT_SIZE) | OPT(IC_OPT_ESTIMATE),
    [IC_CMD_LIST] = OPT(IC_OPT_DB),
    [IC_CMD_SHOW] = OPT(IC_OPT_DB),
    [IC_CMD_BENCH] = OPT(IC_OPT_THREADS) | OPT(IC_OPT_QUICK) | OPT(IC_OPT_OUT) | OPT(IC_OPT_NAME) |
                     OPT(IC_OPT_DEVICE),
    [IC_CMD_VALIDATE] = OPT(IC_OPT_HW) | OPT(IC_OPT_THREADS) | OPT(IC_OPT_QUICK) | OPT(IC_OPT_DEVICE) |
                        OPT(IC_OPT_ROUNDS) | OPT(IC_OPT_SEED) | OPT(IC_OPT_CSV) |
                        OPT(IC_OPT_PLOT_PREFIX),
    [IC_CMD_PREFILL] = OPTS_DEC | OPT(IC_OPT_PROMPT) | OPT(IC_OPT_PROMPTS) | OPT(IC_OPT_MFU) |
                       OPT(IC_OPT_QUEUE) | OPT(IC_OPT_ATTENTION) | OPT(IC_OPT_CHUNK) |
                       OPT(IC_OPT_BATCH) | OPT(IC_OPT_CONTEXT) | OPT(IC_OPT_PREFIX) |
                       OPT(IC_OPT_PLOT) | OPT(IC_OPT_PLOT_SIZE),
    [IC_CMD_SPECDEC] = OPTS_DEC | OPT(IC_OPT_ACCEPT) | OPT(IC_OPT_DRAFT_LEN) |
                       OPT(IC_OPT_COST_RATIO) | OPT(IC_OPT_DRAFT) | OPT(IC_OPT_P) | OPT(IC_OPT_Q) |
                       OPT(IC_OPT_BATCH) | OPT(IC_OPT_CONTEXT),
    [IC_CMD_MOE] = OPTS_DEC | OPT(IC_OPT_EP) | OPT(IC_OPT_CONTEXT),
    [IC_CMD_BATCHING] = OPTS_DEC | OPT(IC_OPT_BATCH) | OPT(IC_OPT_PROMPT) | OPT(IC_OPT_OUTPUT) |
                        OPT(IC_OPT_SHAPE) | OPT(IC_OPT_RESERVE) | OPT(IC_OPT_BLOCK),
    [IC_CMD_PREFIX] = OPTS_DEC | OPT(IC_OPT_PROMPT) | OPT(IC_OPT_PREFIX) | OPT(IC_OPT_HIT_RATE) |
                      OPT(IC_OPT_PREFIXES) | OPT(IC_OPT_MFU) | OPT(IC_OPT_QUEUE) |
                      OPT(IC_OPT_PROMPTS),
    [IC_CMD_DISAGG] = OPTS_DEC | OPT(IC_OPT_PROMPT) | OPT(IC_OPT_PROMPTS) | OPT(IC_OPT_OUTPUT) |
                      OPT(IC_OPT_BATCH) | OPT(IC_OPT_PREFILL_CHIPS) | OPT(IC_OPT_MFU),
    [IC_CMD_COST] = OPTS_DEC | OPT(IC_OPT_BATCH) | OPT(IC_OPT_CONTEXT) | OPT(IC_OPT_PROMPT) |
                    OPT(IC_OPT_MFU) | OPT(IC_OPT_PRICE),
    [IC_CMD_OPTIMIZE] = OPT(IC_OPT_MODEL) | OPT(IC_OPT_HW) | OPT(IC_OPT_PROMPT) |
                        OPT(IC_OPT_OUTPUT) | OPT(IC_OPT_TTFT) | OPT(IC_OPT_TPOT) |
                        OPT(IC_OPT_TOP) | OPT(IC_OPT_MAX_CHIPS) | OPT(IC_OPT_MFU) |
                        OPT(IC_OPT_FORMAT) | OPT(IC_OPT_DB) | OPT(IC_OPT_PLOT) |
                        OPT(IC_OPT_PLOT_SIZE),
    [IC_CMD_BESTOFN] = OPTS_DEC | OPT(IC_OPT_SUCCESS) | OPT(IC_OPT_N) | OPT(IC_OPT_TARGET) |
                       OPT(IC_OPT_PROMPT) | OPT(IC_OPT_OUTPUT) | OPT(IC_OPT_MFU),
    [IC_CMD_SERVE] = OPT(IC_OPT_PORT) | OPT(IC_OPT_BIND) | OPT(IC_OPT_DB),
    [IC_CMD_HELP] = 0,
};
_Static_assert(IC_OPT_COUNT <= 64, "option masks are 64 bits");

static const char *const usages[IC_CMD_COUNT] = {
    [IC_CMD_DECODE] = usage_decode,     [IC_CMD_LIST] = usage_list,
    [IC_CMD_SHOW] = usage_show,         [IC_CMD_BENCH] = usage_bench,
    [IC_CMD_VALIDATE] = usage_validate, [IC_CMD_PREFILL] = ic_cli_help_prefill,
    [IC_CMD_SPECDEC] = ic_cli_help_specdec, [IC_CMD_MOE] = ic_cli_help_moe,
    [IC_CMD_BATCHING] = ic_cli_help_batching, [IC_CMD_PREFIX] = ic_cli_help_prefix,
    [IC_CMD_DISAGG] = ic_cli_help_disagg,  [IC_CMD_COST] = ic_cli_help_cost,
    [IC_CMD_OPTIMIZE] = ic_cli_help_optimize, [IC_CMD_BESTOFN] = ic_cli_help_bestofn,
    [IC_CMD_SERVE] = usage_serve,       [IC_CMD_HELP] = NULL,
};

typedef int (*cmd_fn)(const struct ic_args *, const struct ic_db *, FILE *, FILE *);

int ic_cli_run(int argc, char **argv, FILE *out, FILE *errf)
{
    struct ic_args a;
    int rc = parse_args(argc, argv, &a, errf);
    if (rc)
        return rc;
    if (a.given[IC_OPT_VERSION]) {
        fprintf(out, "infcalc %s\n", IC_VERSION);
        return 0;
    }
    if (a.cmd == IC_CMD_HELP || (a.given[IC_OPT_HELP] && argc == 2) || argc == 1) {
        enum ic_cmd which = IC_CMD_COUNT;
        if (a.cmd == IC_CMD_HELP && a.n_pos == 1)
            for (int c = 0; c < IC_CMD_COUNT; c++)
                if (strcmp(a.pos[0], cmd_names[c]) == 0)
                    which = (enum ic_cmd)c;
        if (a.cmd == IC_CMD_HELP && a.n_pos == 1 && which == IC_CMD_COUNT)
            return unknown_command(a.pos[0], errf);
        FILE *dst = argc == 1 ? errf : out;
        if (which < IC_CMD_COUNT && usages[which]) {
            fputs(usages[which], dst);
        } else {
            fputs(usage_main, dst);
            fputs(usage_decode, dst);
        }
        return argc == 1 ? 2 : 0;
    }
    if (a.given[IC_OPT_HELP]) {
        fputs(usages[a.cmd] ? usages[a.cmd] : usage_decode, out);
        return 0;
    }
    for (int o = 0; o < IC_OPT_COUNT; o++)
        if (a.given[o] && o != IC_OPT_VERSION && !(cmd_opts[a.cmd] & OPT(o)))
            return ic_cli_usage(errf, "option '%s' does not apply to '%s' ('infcalc %s --help' "
                                     "lists its options)",
                               opt_table[o].name, cmd_names[a.cmd], cmd_names[a.cmd]);
    if (a.cmd == IC_CMD_BENCH)
        return cmd_bench(&a, out, errf);
    if (a.cmd == IC_CMD_VALIDATE)
        return cmd_validate(&a, out, errf);
    struct ic_db db;
    struct ic_err e = {0};
    int lrc = ic_db_init(&db, a.val[IC_OPT_DB], &e);
    if (lrc)
        return ic_cli_report(errf, lrc, &e);
    static const cmd_fn fns[IC_CMD_COUNT] = {
        [IC_CMD_DECODE] = cmd_decode,         [IC_CMD_LIST] = cmd_list,
        [IC_CMD_SHOW] = cmd_show,             [IC_CMD_PREFILL] = ic_cli_cmd_prefill,
        [IC_CMD_SPECDEC] = ic_cli_cmd_specdec,    [IC_CMD_MOE] = ic_cli_cmd_moe,
        [IC_CMD_BATCHING] = ic_cli_cmd_batching,  [IC_CMD_PREFIX] = ic_cli_cmd_prefix,
        [IC_CMD_DISAGG] = ic_cli_cmd_disagg,      [IC_CMD_COST] = ic_cli_cmd_cost,
        [IC_CMD_OPTIMIZE] = ic_cli_cmd_optimize,  [IC_CMD_BESTOFN] = ic_cli_cmd_bestofn,
        [IC_CMD_SERVE] = cmd_serve,
    };
    cmd_fn f = a.cmd < IC_CMD_COUNT && fns[a.cmd] ? fns[a.cmd] : cmd_decode;
    return f(&a, &db, out, errf);
}
