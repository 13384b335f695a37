/* ic_published: public end-to-end measurements of LLM decode, and how far
 * infcalc's estimates land from them.
 *
 * The measurements are a CSV (published/decode.csv; its README says what
 * each column holds and where every row comes from). One row is one figure
 * read in one public source: an engine serving a model on tp chips at a
 * concurrency, with prompt and output lengths, and what was measured:
 *   tokens_per_s_per_seq  decode tokens/s of one sequence (batch 1: 1/TPOT)
 *   tpot                  the mean time per output token
 *   step_time             one decode step
 *   itl_median            the median inter-token latency of a serving run
 *   e2e_latency           a static batch's whole time, prefill included
 *                         (includes_prefill yes): over output tokens
 *   output_tokens_per_s   output tokens/s of the whole run at that
 *                         concurrency (the sequences in flight over all
 *                         chips / tp replicas)
 * Throughput rows at high load (kind throughput_offline / throughput_server)
 * are kept in the same file but need a serving simulation; they are counted
 * and left out of the decode statistics here.
 *
 * A row is predicted as one decode step at batch = concurrency / replicas
 * (rounded up) and context
 * = input + output / 2 (the mean context over the output) on tp chips, with
 * the row's precisions, once with the ideal bound and once with the expected
 * estimate (where the entry has measured or achieved figures); a row whose
 * figure includes the prompts' prefill (includes_prefill yes) adds one
 * prefill step of the batch's prompts, spread over its output tokens; a
 * serving run whose steps carry arriving requests' prefills (interleaved)
 * is simulated (ic_sim: the row's concurrency as the batch limit, requests
 * queued behind it as a client at that concurrency sends them). The error is
 * on time per output token: e = t_predicted / t_measured - 1, so a negative
 * error is a prediction faster than the measurement. Rows marked
 * `calibration` are shown but never enter the statistics. */
#ifndef IC_PUBLISHED_H
#define IC_PUBLISHED_H

#include "ic_err.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ic_pub_kind {
    IC_PUB_DECODE_B1,          /* batch-1 decode */
    IC_PUB_DECODE_CONCURRENCY, /* decode at a fixed concurrency */
    IC_PUB_STEP,               /* a per-step time */
    IC_PUB_THROUGHPUT_OFFLINE, /* high load, all requests at once */
    IC_PUB_THROUGHPUT_SERVER,  /* high load at an arrival rate */
    IC_PUB_KIND_COUNT
};

enum ic_pub_quantity {
    IC_PUBQ_TOKENS_PER_S_PER_SEQ,
    IC_PUBQ_TPOT,
    IC_PUBQ_STEP_TIME,
    IC_PUBQ_OUTPUT_TOKENS_PER_S,
    IC_PUBQ_ITL_MEDIAN,
    IC_PUBQ_E2E_LATENCY,
    IC_PUBQ_COUNT
};

enum { IC_PUB_TEXT = 128, IC_PUB_SOURCE = 512 };

struct ic_pub_row {
    unsigned line;                 /* in the CSV */
    unsigned col_hw, col_model;    /* where the hw and model fields start */
    char id[IC_PUB_TEXT];
    bool calibration;              /* use = calibration (else validation) */
    enum ic_pub_kind kind;
    char engine[IC_PUB_TEXT], engine_version[IC_PUB_TEXT];
    char hw[IC_PUB_TEXT], model[IC_PUB_TEXT];
    uint64_t chips, tp;            /* chips in all; chips per replica */
    enum ic_dtype weights, kv, compute;
    uint64_t concurrency, input_tokens, output_tokens;
    enum ic_pub_quantity quantity;
    double value;                  /* tokens/s or seconds, SI */
    char source[IC_PUB_SOURCE];
    /* what the figure holds beside decode steps (optional column
     * includes_prefill): yes, whole requests of a static batch (their
     * prompts' prefill included) over their output tokens; interleaved, a
     * serving run at a fixed concurrency whose steps carry the chunked
     * prefills of arriving requests (its mean TPOT or median ITL); no,
     * empty or no such column: decode steps only */
    enum ic_pub_prefill { IC_PUB_PREFILL_NONE, IC_PUB_PREFILL_STATIC,
                          IC_PUB_PREFILL_INTERLEAVED } prefill;
    /* interleaved rows: the engine's budget of new tokens a step (optional
     * column max_batched_tokens; 0: ic_sim's default, 8192) */
    uint64_t max_batched_tokens;
};

/* Reads the CSV at path (RFC 4180: a header naming the columns, commas,
 * double-quoted fields with "" for a quote; at most IC_INPUT_MAX_B bytes).
 * Unknown columns are ignored; every column the rows need must be there.
 * *rows is malloc'd (free it). IC_EINVAL at the offending line:column for a
 * malformed row, an unknown kind or quantity, a bad number or unit. */
int ic_pub_load(const char *path, struct ic_pub_row **rows, size_t *n, struct ic_err *err);

/* Seconds per output token of one sequence the row measured (the quantity
 * it states turned into a time per token; 0 for throughput rows). */
double ic_pub_measured_tpot_s(const struct ic_pub_row *r);

/* The error of a predicted decode step time against the row, on time per
 * output token: step_s / ic_pub_measured_tpot_s - 1 (output_tokens_per_s
 * rows: a replica's step against concurrency / value). */
double ic_pub_error(const struct ic_pub_row *r, double step_s);

/* The figures of |e| and e over n errors: median and 90th percentile of
 * |e|, median of e (the signed bias). Sorts a copy; n = 0 gives zeros.
 * IC_ENOMEM or 0. */
struct ic_pub_stats {
    size_t n;
    double median_abs, p90_abs, median_signed;
};
int ic_pub_stats(const double *e, size_t n, struct ic_pub_stats *out);

/* A row's predictions: the decode step (batch = ceil(concurrency /
 * replicas), context = input + ceil(output / 2)) with the ideal bound and,
 * where hw has measured or achieved figures, the expected estimate (with
 * the engine's profile, and without it), each turned into a time per output
 * token: the step itself, or where the row includes the prefill (ic_pub_load
 * refuses such a row without a prompt), (one prefill step of the batch's
 * prompts + (output - 1) decode steps) / output, as a static batch serves
 * its requests; or for an interleaved row the mean TPOT (median ITL for
 * itl_median) of ic_sim_run: 10 x batch requests (at least 100), all
 * queued at the start, at most batch running (a client at that
 * concurrency), the first batch of them the warm-up, fixed lengths,
 * chunked prefill within max_batched_tokens, the ideal prefill at the peak
 * (ideal_prefill_s, expected_prefill_s: 0). Rows of the throughput kinds
 * are not evaluated (evaluated false, nothing else set). IC_EINVAL when
 * the step itself fails (the row's precisions on a chip without that
 * compute type, too many chips) or an interleaved row's simulation does
 * (a request its KV pool cannot hold). */
struct ic_pub_eval {
    bool evaluated, has_expected;
    bool with_prefill;           /* the times below include the prefill's share */
    bool simulated;              /* ... by a serving simulation (interleaved rows) */
    uint64_t batch, context;
    double measured_s;           /* measured time per output token */
    double ideal_s, expected_s;  /* predicted times per output token */
    double e_ideal, e_expected;  /* their errors (ic_pub_error) */
    double ideal_step_s, expected_step_s;       /* the decode steps */
    double ideal_prefill_s, expected_prefill_s; /* the prefill steps (0 without) */
    /* the expected time without the row's engine profile (a good engine
     * on the chip), and its error; equal to the above when no profile was
     * given */
    double expected_noeng_s, e_expected_noeng;
    bool engine_used;            /* a profile entered the expected estimate */
    char no_expected[1100];      /* why there is no expected time, when none */
    /* throughput rows (ic_pub_predict_throughput): output tokens/s of the
     * whole run, measured, by the closed form (batch / one decode step at
     * the mean context, per replica) and simulated (ic_sim offline: the
     * row's requests at once, its concurrency as the batch limit, else the
     * engine profile's max_batch, else 256), with the estimate used; errors on time per
     * token as above: measured / predicted - 1 */
    bool throughput;
    double tput_measured, tput_closed, tput_sim;
    double e_closed, e_sim;
    bool sim_expected;
    uint64_t sim_max_seqs;
};
struct ic_model_stats;
struct ic_hw;
struct ic_engine;
/* engine: the row's engine profile (ic_pub_engine_for), or NULL for a good
 * engine; the expected step is computed with it and without it. */
int ic_pub_predict(const struct ic_pub_row *r, const struct ic_model_stats *m,
                   const struct ic_hw *hw, const struct ic_engine *engine,
                   struct ic_pub_eval *out, struct ic_err *err);

/* The profile a row's engine column selects among n loaded profiles: of
 * those whose engine is the row's, the one whose version is the row's
 * engine_version, else one listing it under versions, else one whose
 * version leads it ("0.6" for "0.6.1"); NULL when none does (a row of an
 * unstated version gets no profile). why says which, in words. */
const struct ic_engine *ic_pub_engine_for(const struct ic_pub_row *r,
                                          const struct ic_engine *profiles, size_t n,
                                          char *why, size_t why_len);

/* A throughput row's predictions (the fields under `throughput`); other
 * rows are left as they are. IC_EINVAL when a step or the simulation
 * fails. */
int ic_pub_predict_throughput(const struct ic_pub_row *r, const struct ic_model_stats *m,
                              const struct ic_hw *hw, const struct ic_engine *engine,
                              struct ic_pub_eval *out, struct ic_err *err);

const char *ic_pub_kind_name(enum ic_pub_kind k);
const char *ic_pub_quantity_name(enum ic_pub_quantity q);

#endif
