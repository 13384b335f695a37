/* ic_cli_int: what the command files share inside the app library: the
 * commands, the options, the parsed arguments and the parsers that turn an
 * option's text into a value or a usage error (exit status 2) naming it. */
#ifndef IC_CLI_INT_H
#define IC_CLI_INT_H

#include "ic_db.h"
#include "ic_decode.h"
#include "ic_report.h"
#include "ic_rows.h"
#include "ic_err.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum ic_cmd {
    IC_CMD_DECODE, IC_CMD_LIST, IC_CMD_SHOW, IC_CMD_BENCH, IC_CMD_VALIDATE,
    IC_CMD_PREFILL, IC_CMD_SPECDEC, IC_CMD_MOE, IC_CMD_BATCHING, IC_CMD_PREFIX,
    IC_CMD_DISAGG, IC_CMD_COST, IC_CMD_OPTIMIZE, IC_CMD_BESTOFN, IC_CMD_SERVE, IC_CMD_HELP,
    IC_CMD_COUNT
};

enum ic_opt {
    IC_OPT_MODEL, IC_OPT_HW, IC_OPT_CHIPS, IC_OPT_BATCH, IC_OPT_CONTEXT,
    IC_OPT_WEIGHTS, IC_OPT_KV, IC_OPT_COMPUTE, IC_OPT_COMM, IC_OPT_SWEEP,
    IC_OPT_FORMAT, IC_OPT_PLOT, IC_OPT_PLOT_SIZE, IC_OPT_ESTIMATE, IC_OPT_DB, IC_OPT_HELP,
    IC_OPT_VERSION, IC_OPT_THREADS, IC_OPT_QUICK, IC_OPT_OUT, IC_OPT_NAME, IC_OPT_ROUNDS,
    IC_OPT_SEED, IC_OPT_CSV, IC_OPT_PLOT_PREFIX,
    /* the serving analyses */
    IC_OPT_PROMPT, IC_OPT_PROMPTS, IC_OPT_OUTPUT, IC_OPT_MFU, IC_OPT_QUEUE, IC_OPT_ATTENTION,
    IC_OPT_CHUNK, IC_OPT_ACCEPT, IC_OPT_DRAFT_LEN, IC_OPT_COST_RATIO, IC_OPT_DRAFT, IC_OPT_P,
    IC_OPT_Q, IC_OPT_PREFIX, IC_OPT_HIT_RATE, IC_OPT_PREFIXES, IC_OPT_PREFILL_CHIPS,
    IC_OPT_PRICE, IC_OPT_TTFT, IC_OPT_TPOT, IC_OPT_TOP, IC_OPT_MAX_CHIPS, IC_OPT_SUCCESS,
    IC_OPT_N, IC_OPT_TARGET, IC_OPT_SHAPE, IC_OPT_RESERVE, IC_OPT_BLOCK, IC_OPT_EP,
    IC_OPT_PORT, IC_OPT_BIND,
    IC_OPT_DEVICE, /* bench and validate: cpu | cuda */
    IC_OPT_COUNT
};

struct ic_args {
    enum ic_cmd cmd;
    const char *pos[4];
    int n_pos;
    const char *val[IC_OPT_COUNT];
    bool given[IC_OPT_COUNT];
};

/* Comma-separated values of a list option ("4,8,16"). */
enum { IC_CLI_MAX_LIST = 16, IC_MAX_CONFIGS = 16 };
struct ic_list {
    char buf[512];
    const char *v[IC_CLI_MAX_LIST];
    int n;
};

/* "infcalc: error: <message>" on err; returns 2. */
int ic_cli_usage(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The candidate nearest to word (edit distance <= 3), or NULL. */
const char *ic_cli_nearest(const char *word, const char *const *cands, int n);

/* A whole number in [lo, hi], rejecting signs and trailing garbage. */
int ic_cli_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out,
               FILE *err);

/* A finite decimal number in [lo, hi] ("0.4", "1e-3"). */
int ic_cli_num(const char *opt, const char *text, double lo, double hi, double *out, FILE *err);

/* A time: a number with s, ms, us or ns ("200ms", "0.5 s"), or bare seconds. */
int ic_cli_time(const char *opt, const char *text, double *out, FILE *err);

int ic_cli_dtype(const char *opt, const char *text, enum ic_dtype *out, FILE *err);
int ic_cli_list(const char *opt, const char *text, struct ic_list *l, FILE *err);
int ic_cli_plot_size(const char *text, int *w, int *h, FILE *err);

/* Prints a library error; returns the exit status (1 for out of memory or
 * I/O, else 2). */
int ic_cli_report(FILE *errf, int rc, const struct ic_err *e);

/* --plot FILE checked before any work (ic_plot_check_path): 0, or the exit
 * status with the message printed (2 for the picture type, 1 for a place
 * that cannot be written). */
int ic_cli_check_plot(const char *path, FILE *errf);

/* A model and a chip with the decode options the serving commands share
 * (--chips --batch --context --weights --kv --compute --comm --format). */
struct ic_cli_setup {
    struct ic_model *m;
    struct ic_model_stats st;
    struct ic_hw *h;
    struct ic_decode_cfg dec;
    enum ic_format fmt;
};

/* Parses those options into s->dec and s->fmt (no model or chip). */
int ic_cli_decode_opts(const struct ic_args *a, struct ic_cli_setup *s, FILE *errf);

/* Parses them, then loads --model and --hw (both required for `cmd`).
 * Returns 0 or an exit status (the message printed); free with
 * ic_cli_setup_free either way. */
int ic_cli_setup(const struct ic_args *a, const struct ic_db *db, const char *cmd,
                 struct ic_cli_setup *s, FILE *errf);
void ic_cli_setup_free(struct ic_cli_setup *s);

/* "out of memory" on errf; returns 1. */
int ic_cli_oom(FILE *errf);

/* Writes rows (ic_rows_write); returns 0, or 1 saying the output failed or
 * the rows were filled wrongly (an internal error). */
int ic_cli_write_rows(FILE *out, FILE *errf, enum ic_format fmt, const struct ic_rows *r,
                      const char *title, bool array);

/* The serving commands (ic_cli_serving.c, ic_cli_sched.c) and their --help texts. */
int ic_cli_cmd_prefill(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_specdec(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_moe(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_batching(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_prefix(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_disagg(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_cost(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_optimize(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_bestofn(const struct ic_args *a, const struct ic_db *db, FILE *out, FILE *errf);
extern const char ic_cli_help_prefill[], ic_cli_help_specdec[], ic_cli_help_moe[], ic_cli_help_batching[],
    ic_cli_help_prefix[], ic_cli_help_disagg[], ic_cli_help_cost[], ic_cli_help_optimize[],
    ic_cli_help_bestofn[];

#endif
