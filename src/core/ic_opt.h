/* ic_opt: infcalc's options, one table for every face of the tool.
 *
 * Each option is one row of ic_opt_table: its name, the kind of value it
 * takes, the bounds of that value (the core's named limits), a help line,
 * the commands that take it and those that take a comma-separated list of
 * values. The table drives parsing (the command line in ic_cli, the query
 * of `infcalc serve`), --help, the nearest-name suggestion and the shell
 * completion. A value is parsed once, here, into the typed field of struct
 * ic_opts that its row names; the commands read those fields and never the
 * text. Adding an option is one row, one field, and its use.
 *
 * Errors are the command line's: "--hit-rate: '-0' has a minus sign;
 * expected 0 to 1", with the option and the offending text named. A
 * quantity that cannot be negative takes no minus sign at all ('-0' and
 * '-1e-300' included); numbers are plain decimals (no hex, no inf or nan,
 * no leading or trailing space). */
#ifndef IC_OPT_H
#define IC_OPT_H

#include "ic_err.h"
#include "ic_report.h"
#include "ic_sweep.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ic_cmd {
    IC_CMD_DECODE, IC_CMD_LIST, IC_CMD_SHOW, IC_CMD_BENCH, IC_CMD_VALIDATE,
    IC_CMD_PREFILL, IC_CMD_SPECDEC, IC_CMD_MOE, IC_CMD_BATCHING, IC_CMD_PREFIX,
    IC_CMD_DISAGG, IC_CMD_COST, IC_CMD_OPTIMIZE, IC_CMD_BESTOFN, IC_CMD_CHECK,
    IC_CMD_SIMULATE, IC_CMD_SERVE, IC_CMD_HELP,
    IC_CMD_COUNT
};

/* The command's name as typed ("check-published" for IC_CMD_CHECK). */
const char *ic_cmd_name(enum ic_cmd c);
/* The command named word, or IC_CMD_COUNT. */
enum ic_cmd ic_cmd_find(const char *word);

enum ic_opt {
    IC_OPT_MODEL, IC_OPT_HW, IC_OPT_CHIPS, IC_OPT_PP, IC_OPT_MICRO, IC_OPT_BATCH,
    IC_OPT_CONTEXT, IC_OPT_WEIGHTS, IC_OPT_KV, IC_OPT_COMPUTE, IC_OPT_COMM, IC_OPT_KV_PLACEMENT,
    IC_OPT_ESTIMATE,
    IC_OPT_SWEEP, IC_OPT_FORMAT, IC_OPT_PLOT, IC_OPT_PLOT_SIZE, IC_OPT_DB,
    /* the self-check */
    IC_OPT_DEVICE, IC_OPT_THREADS, IC_OPT_QUICK, IC_OPT_OUT, IC_OPT_NAME, IC_OPT_LLC,
    IC_OPT_ROUNDS, IC_OPT_SEED, IC_OPT_CSV, IC_OPT_PLOT_PREFIX,
    /* the serving analyses */
    IC_OPT_PROMPT, IC_OPT_PROMPTS, IC_OPT_OUTPUT, IC_OPT_MFU, IC_OPT_QUEUE, IC_OPT_ATTENTION,
    IC_OPT_CHUNK, IC_OPT_ACCEPT, IC_OPT_DRAFT_LEN, IC_OPT_COST_RATIO, IC_OPT_DRAFT, IC_OPT_P,
    IC_OPT_Q, IC_OPT_PREFIX, IC_OPT_HIT_RATE, IC_OPT_PREFIXES, IC_OPT_PREFILL_CHIPS,
    IC_OPT_PRICE, IC_OPT_TTFT, IC_OPT_TPOT, IC_OPT_TOP, IC_OPT_MAX_CHIPS, IC_OPT_SUCCESS,
    IC_OPT_N, IC_OPT_TARGET, IC_OPT_SHAPE, IC_OPT_RESERVE, IC_OPT_BLOCK, IC_OPT_EP,
    IC_OPT_MEASUREMENTS,
    /* optimize */
    IC_OPT_MAX_PP, IC_OPT_RANK, IC_OPT_SHORTLIST,
    /* engine profiles */
    IC_OPT_ENGINE,
    /* simulate */
    IC_OPT_RATE, IC_OPT_RATES, IC_OPT_REQUESTS, IC_OPT_WARMUP, IC_OPT_PROMPT_DIST,
    IC_OPT_PROMPT_CV, IC_OPT_OUTPUT_DIST, IC_OPT_OUTPUT_CV, IC_OPT_MAX_SEQS, IC_OPT_MAX_TOKENS,
    IC_OPT_SCHEDULER, IC_OPT_MEM_UTIL, IC_OPT_TRACE, IC_OPT_REQUESTS_CSV, IC_OPT_PREFIX_HIT,
    IC_OPT_REPLICAS, IC_OPT_ROUTER, IC_OPT_PREEMPT, IC_OPT_PREFILL_SERVERS,
    /* serve */
    IC_OPT_PORT, IC_OPT_BIND,
    IC_OPT_HELP, IC_OPT_VERSION,
    IC_OPT_COUNT
};

/* The kinds of value. */
enum ic_opt_kind {
    IC_OK_FLAG,   /* no value */
    IC_OK_COUNT,  /* a whole number in [lo, hi]: uint64_t */
    IC_OK_NUM,    /* a decimal number in [lo, hi]: double */
    IC_OK_TIME,   /* a time with its unit ("200ms", "0.5 s"; a bare number is refused,
                     docs/numbers.md) in [lo, hi] s: double */
    IC_OK_BYTES,  /* a size ("32MiB", "1e9B") in [lo, hi] bytes: double */
    IC_OK_DTYPE,  /* fp32 bf16 fp16 fp8 int8 int4 fp4: enum ic_dtype */
    IC_OK_CHOICE, /* one word of the row's choices: int, its index */
    IC_OK_TEXT,   /* a name or a path: const char * (the argument itself) */
    IC_OK_AXES,   /* --sweep: one or two axes: enum ic_axis[2] */
    IC_OK_PROBS,  /* probabilities "0.5,0.3,0.2": double * (ic_opts_free) */
    IC_OK_SIZE2,  /* WIDTHxHEIGHT pixels: int[2] */
    IC_OK_COUNT_KINDS
};

enum { IC_OPT_MAX_LIST = 16, IC_OPT_MAX_PROBS = 4096, IC_OPT_MAX_POS = 4 };

struct ic_opt_def {
    const char *name;     /* "--chips" */
    enum ic_opt_kind kind;
    const char *meta;     /* what --help shows after the name ("N") */
    double lo, hi;        /* COUNT, NUM, TIME, BYTES: the bounds */
    const char *const *choices; /* CHOICE: NULL-terminated */
    uint64_t cmds;        /* bit c: command c takes it */
    uint64_t list_cmds;   /* bit c: command c takes a list of values */
    const char *help;     /* one or more lines, without the name */
    size_t off;           /* its field in struct ic_opts */
};

extern const struct ic_opt_def ic_opt_table[IC_OPT_COUNT];

/* The parsed command line (or query): which options were given, how many
 * values each, and the typed values. A list option's values are in its
 * array; a scalar option's in its field. Text fields point into the argv
 * (or the query) they came from. */
struct ic_opts {
    enum ic_cmd cmd;
    const char *pos[IC_OPT_MAX_POS];
    int n_pos;
    bool given[IC_OPT_COUNT];
    int n[IC_OPT_COUNT];            /* values given: 1 for a scalar */
    const char *text[IC_OPT_COUNT]; /* the value as written, for messages */

    const char *model[IC_OPT_MAX_LIST], *hw[IC_OPT_MAX_LIST];
    uint64_t chips[IC_OPT_MAX_LIST], context[IC_OPT_MAX_LIST];
    enum ic_dtype weights[IC_OPT_MAX_LIST], kv[IC_OPT_MAX_LIST], compute[IC_OPT_MAX_LIST];
    uint64_t pp, micro, batch;
    int comm;     /* enum ic_comm_mode */
    int kv_placement; /* 0: split, 1: copy (ic_layout.kv_copy) */
    int estimate; /* enum ic_estimate */
    enum ic_axis sweep[2];
    int format;   /* enum ic_format */
    const char *plot, *db;
    int plot_size[2];

    int device;   /* 0 cpu, 1 cuda */
    uint64_t threads, rounds, seed;
    double llc_bytes;
    const char *out, *name, *csv, *plot_prefix;

    uint64_t prompt, prompts, output, chunk, draft_len, prefix, prefixes, prefill_chips;
    uint64_t top, max_chips, n_cand, reserve, block, ep;
    double mfu, queue_s, accept, cost_ratio, hit_rate, price, ttft_s, tpot_s, success, target;
    double shape;
    int attention; /* enum ic_attn */
    const char *draft, *measurements;
    const char *engine; /* --engine: an enginedb name, alias or file */
    double rate, rates[IC_OPT_MAX_LIST], prompt_cv, output_cv, mem_util;
    uint64_t requests, warmup, max_seqs, max_tokens;
    int prompt_dist, output_dist; /* enum ic_sim_dist */
    int scheduler;                /* enum ic_sim_sched */
    const char *trace, *requests_csv;
    double prefix_hit;
    uint64_t replicas, prefill_servers;
    int router;                   /* enum ic_sim_route */
    int preempt;                  /* enum ic_sim_preempt */
    double *p, *q; /* n[IC_OPT_P], n[IC_OPT_Q] entries, malloc'd */

    uint64_t max_pp, shortlist;
    int rank;                     /* enum ic_opt_rank */

    uint64_t port;
    const char *bind;

    char *owned[IC_OPT_COUNT]; /* copies a list of names points into */
};

/* Zero options for cmd. */
void ic_opts_init(struct ic_opts *o, enum ic_cmd cmd);
void ic_opts_free(struct ic_opts *o);

/* The option named name ("--chips"), or -1; and an option's name. */
int ic_opt_find(const char *name);
const char *ic_opt_name(int opt);

/* The option of command cmd nearest to name: the one option of cmd that
 * name begins ('--form': '--format'), else the nearest by edit distance (a
 * short word only one or two edits away), or NULL. ic_text_nearest: the
 * same distance over any word list. */
const char *ic_opt_nearest(const char *name, enum ic_cmd cmd);
const char *ic_text_nearest(const char *word, const char *const *cands, int n);

/* Sets option opt from text for o->cmd: checks that the command takes it
 * (and a list where several values are given), that it was not given
 * before, and parses every value into its field. IC_EINVAL with the
 * message in err (no position: the text is the command line's). */
int ic_opt_set(struct ic_opts *o, int opt, const char *text, struct ic_err *err);

/* Parses argv[1..argc-1]: an optional command word, then options
 * ("--name value", "--name=value"; "-h" is --help) and at most
 * IC_OPT_MAX_POS positional words. IC_EINVAL with the message in err. */
int ic_opts_parse(int argc, char **argv, struct ic_opts *o, struct ic_err *err);

/* The decode step the options give: --chips, --pp, --micro, --batch,
 * --context (the first value of a list), the three types, --comm and
 * --estimate where given; ic_decode_defaults() for the rest, with both
 * estimates asked for (cfg.both). */
struct ic_decode_cfg;
void ic_opts_decode_cfg(const struct ic_opts *o, struct ic_decode_cfg *c);

/* The engine profile (--engine; NULL: a good engine) on a step the options
 * gave: c->engine, and the profile's cache placement past the KV heads
 * unless --kv-placement chose one (ic_engine_kv_copy). */
struct ic_engine;
void ic_opts_engine_cfg(const struct ic_opts *o, const struct ic_engine *en,
                        struct ic_decode_cfg *c);

/* The simulated workload and scheduler the options give (simulate's rows:
 * --requests (default 2000), --prompt, --output and their distributions and
 * spreads, --max-seqs, --max-tokens, --block, --mem-util, --scheduler,
 * --mfu, --seed); ic_sim_defaults() for the rest. The replica (c->dec),
 * rate, warm-up and SLOs are the caller's. */
struct ic_sim_cfg;
void ic_opts_sim_cfg(const struct ic_opts *o, struct ic_sim_cfg *c);

/* The options cmd takes, one per line with its help, as --help lists them. */
void ic_opt_help(FILE *out, enum ic_cmd cmd);

/* The named limits the table's bounds come from (and the core checks). */
#define IC_MAX_THREADS 256
#define IC_MAX_ROUNDS 8

#endif
