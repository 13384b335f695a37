/* ic_cli_int: what the command files share inside the app library: the
 * usage error, the setup of a model on a chip from the parsed options
 * (ic_opt.h: typed values, never the text), the rows writer and the
 * commands with their help. */
#ifndef IC_CLI_INT_H
#define IC_CLI_INT_H

#include "ic_db.h"
#include "ic_opt.h"
#include "ic_decode.h"
#include "ic_report.h"
#include "ic_rows.h"
#include "ic_err.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The most configurations decode's listed options may make. */
enum { IC_CLI_MAX_CONFIGS = 16 };

/* Whether two entries' files are one file (the same device and inode: a
 * name, an alias and a path to it alike); an entry read from no file (""
 * or standard input) is no other's. */
bool ic_cli_same_file(const char *a, const char *b);

/* One entry under two names in an option's list (an alias and its name, a
 * path to its file) would be the same configurations twice, as a value
 * twice in a list is, and two hardware files of one name two sets of
 * figures under one label: a usage error (2), or 0. opt: "--hw" or
 * "--model"; given: the option's words; path, name: each loaded entry's;
 * n of each. */
int ic_cli_named_twice(FILE *errf, const char *opt, const char *const *given,
                       const char *const *path, const char *const *name, int n);

/* A usage error: "infcalc: error: <message>", then "  <hint>" on the next
 * line, as the loaders' errors end (ic_err_print); returns 2. Every error
 * carries a hint: what to write instead, or where to look (issue 16;
 * tests/bad_cli.sh runs the command lines of tests/fixtures/bad-cli.txt). */
int ic_cli_usage_hint(FILE *err, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The same with the general hint ('infcalc --help' and the commands' own);
 * prefer ic_cli_usage_hint with a hint that fits the error. */
int ic_cli_usage(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "unexpected argument 'X'" (the first positional argument of a command
 * that takes none), with its hint; returns 2. */
int ic_cli_unexpected(FILE *errf, const struct ic_opts *a);

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
    struct ic_engine *en; /* --engine's profile (dec.engine points here), or NULL */
    struct ic_decode_cfg dec;
    enum ic_format fmt;
};

/* Those options into s->dec and s->fmt (no model or chip). */
void ic_cli_decode_opts(const struct ic_opts *a, struct ic_cli_setup *s);

/* Those, then loads --model and --hw (both required for `cmd`), the
 * engine's profile, and resolves the estimate (ic_cli_estimate: simulate
 * defaults as decode does, the serving analyses to the ideal bound),
 * refusing --mfu under the expected one and warning of --comm overlap
 * where it is not read.
 * Returns 0 or an exit status (the message printed); free with
 * ic_cli_setup_free either way. */
int ic_cli_setup(const struct ic_opts *a, const struct ic_db *db, const char *cmd,
                 struct ic_cli_setup *s, FILE *errf);
void ic_cli_setup_free(struct ic_cli_setup *s);

/* --engine's profile when given (*en malloc'd, NULL otherwise): 0, or an
 * exit status with the message printed. */
int ic_cli_load_engine(const struct ic_opts *a, const struct ic_db *db, struct ic_engine **en,
                       FILE *errf);

/* A profile applies to the expected estimate from an entry's achieved
 * rates only: a usage error (2, said) with --estimate ideal or an entry
 * without an achieved section; 0 otherwise (or without --engine). */
int ic_cli_engine_check(const struct ic_opts *a, const struct ic_hw *h, FILE *errf);

/* The engine's profile (may be NULL) in a simulated replica: its default
 * batch limit (max_batch) unless --max-seqs is given (its steps take the
 * profile through c->dec.engine, set by the caller). */
struct ic_sim_cfg;
void ic_cli_sim_engine(const struct ic_opts *a, const struct ic_engine *en,
                       struct ic_sim_cfg *c);

/* What a serving command's steps are timed at, for its title, into
 * buf[n] (returned): "ideal bound", "expected: achieved rates, a good
 * engine", "expected: achieved rates, engine NAME" or "expected: measured
 * rates" (a benched machine). */
enum { IC_CLI_EST_TEXT = 96 };
/* The rows' JSON and CSV fields "estimate" (ideal or expected) and
 * "engine" (the profile's name, or none), as decode's. */
struct ic_rows;
void ic_cli_estimate_fields(struct ic_rows *r, const struct ic_cli_setup *s);
/* The same fields of an estimate and engine profile (NULL: none). */
void ic_cli_estimate_fields_of(struct ic_rows *r, enum ic_estimate est,
                               const struct ic_engine *en);
const char *ic_cli_estimate_text(const struct ic_cli_setup *s, char *buf, size_t n);

/* The estimate the options ask for: --estimate, else expected where
 * --engine names a profile, else dflt (the command's own default). */
enum ic_estimate ic_cli_estimate(const struct ic_opts *a, enum ic_estimate dflt);

/* --mfu is the ideal bound's prefill: refused (exit 2, a hint) when the
 * estimate est is expected, which times the prefill at achieved rates. */
int ic_cli_mfu_check(const struct ic_opts *a, enum ic_estimate est, FILE *errf);

/* "out of memory" on errf; returns 1. */
int ic_cli_oom(FILE *errf);
/* Where a command's warnings go: held by ic_cli_run until the command
 * ends (shown unless it ends in a usage or input error, exit status 2,
 * whose message then opens stderr alone), else errf. */
FILE *ic_cli_warnf(FILE *errf);

/* Writes rows (ic_rows_write); returns 0, or 1 saying the output failed or
 * the rows were filled wrongly (an internal error). */
int ic_cli_write_rows(FILE *out, FILE *errf, enum ic_format fmt, const struct ic_rows *r,
                      const char *title, bool array);

/* The serving commands (ic_cli_serving.c, ic_cli_sched.c) and their --help texts. */
int ic_cli_cmd_prefill(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_specdec(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_moe(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_batching(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_prefix(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_disagg(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_cost(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_optimize(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
int ic_cli_cmd_bestofn(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
/* A config.json whose quant_method is not read, without --weights: the
 * usage error (exit 2) asking for the stored type. */
int ic_cli_quant_unread(FILE *errf, const struct ic_model *m);
/* --comm overlap where an accelerator's expected time runs its collectives
 * after the kernels (ic_step_achieved): a warning, once (*said) */
void ic_cli_warn_comm(const struct ic_opts *a, FILE *errf, const struct ic_hw *h,
                      enum ic_estimate estimate, bool *said);
/* A model's weight type where --weights is not given: a config.json's
 * shipped one into *weights (its unread quantization refused, exit 2), and
 * its notes; *weights is left as it is otherwise */
int ic_cli_model_weights(const struct ic_opts *a, FILE *errf, const struct ic_model *m,
                         enum ic_dtype *weights);

/* The notes a model's config.json needs: a key it likely misspells
 * (ic_cli_model_typo), an encoder it holds and infcalc does not count;
 * with weights_note, that its own weight type is used
 * (where it is not bf16, carries scales, or keeps parts unquantized) and
 * what --weights changes. */
void ic_cli_model_notes(FILE *errf, const struct ic_model *m, bool weights_note);
/* A config.json key a letter from one infcalc reads that the file leaves
 * out (ic_model.typo_key), warned of at its line:column. */
void ic_cli_model_typo(FILE *errf, const struct ic_model *m);

/* Warnings on errf (the result is still printed): `what` of `tokens`
 * tokens past the model's max_position_embeddings; and a configuration
 * whose weights, KV of `batch` sequences of `context` tokens and workspace
 * on `chips` chips pass the chip's HBM (false then), as decode's table says
 * DOES NOT FIT. */
void ic_cli_warn_context(FILE *errf, const struct ic_model_stats *st, const char *model,
                         uint64_t tokens, const char *what);
bool ic_cli_warn_fit(FILE *errf, const struct ic_cli_setup *s, uint64_t chips, uint64_t batch,
                     uint64_t context, const char *what);
/* A note where `chips` split the model's query heads unevenly, and one
 * where they outnumber them (each chip then holds a whole head's copy), as
 * decode's table says; ic_cli_warn_fit gives them for each server it checks. */
void ic_cli_note_uneven(FILE *errf, const struct ic_cli_setup *s, uint64_t chips,
                        const char *what);
/* Whether that configuration (and extra_B bytes a chip) fits, unsaid. */
bool ic_cli_fits(const struct ic_cli_setup *s, uint64_t chips, uint64_t batch, uint64_t context,
                 double extra_B);
/* The same with extra_B bytes a chip beside (a draft model's). */
bool ic_cli_warn_fit_extra(FILE *errf, const struct ic_cli_setup *s, uint64_t chips,
                           uint64_t batch, uint64_t context, double extra_B, const char *what);

/* The simulation's workload options beyond their ranges (a rate under 1e-9,
 * lengths over the simulation's, a spread without a distribution or a
 * uniform one below 0): 0, or a usage error reported (exit 2). */
int ic_cli_sim_check(const struct ic_opts *a, FILE *errf);
/* A note where a run's statistics cover fewer than 100 requests (after
 * the warm-up): its p99 is then one request's. */
void ic_cli_few_requests_note(FILE *errf, uint64_t counted);
int ic_cli_cmd_simulate(const struct ic_opts *a, const struct ic_db *db, FILE *out, FILE *errf);
extern const char ic_cli_help_prefill[], ic_cli_help_specdec[], ic_cli_help_moe[], ic_cli_help_batching[],
    ic_cli_help_prefix[], ic_cli_help_disagg[], ic_cli_help_cost[], ic_cli_help_optimize[],
    ic_cli_help_bestofn[], ic_cli_help_simulate[];

#endif
