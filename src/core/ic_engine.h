/* ic_engine: one serving engine and version as described by an enginedb/
 * YAML file: what the engine adds to the rates good kernels achieve on a
 * chip (the hardware entry's achieved section) in a decode step.
 *
 * A profile says, each part with its source:
 *   step       whether decode steps run as captured graphs (CUDA graphs, or
 *              one compiled program), whether the scheduler's host work runs
 *              beside the accelerator (async / overlap scheduling) and, when
 *              it does not, the host time per step the accelerator waits for;
 *   attention  the decode attention kernel's bandwidth over the chip's
 *              achieved GEMV bandwidth, per KV-cache type;
 *   gemv       the weight GEMV's bandwidth over the chip's achieved (bf16)
 *              GEMV's, per weight type (int4, int8, fp8 dequantization is
 *              not free; bf16 below 1, an engine's own GEMV falling short);
 *   defaults   the largest batch the engine schedules unless told otherwise,
 *              and where its tensor parallelism keeps the cache past the KV
 *              heads (each chip a copy, or the sequences split).
 * A part left out means "as a good engine": graphs, overlapped scheduling,
 * efficiency 1. The expected estimate reads a profile in one place
 * (ic_step_time's achieved-rate path); the ideal bound never does. */
#ifndef IC_ENGINE_H
#define IC_ENGINE_H

#include "ic_err.h"
#include "ic_units.h"
#include "ic_ydoc.h"

#include <stdbool.h>
#include <stdint.h>

enum {
    IC_ENGINE_NAME_LEN = 64,
    IC_ENGINE_TEXT_LEN = 2048,
    IC_ENGINE_MAX_ALIASES = 8,
    IC_ENGINE_MAX_SOURCES = 12,
    IC_ENGINE_MAX_VERSIONS = 8,
};

/* Field ids of the enginedb schema: where each was given (ic_loc). */
enum ic_engine_field {
    IC_ENF_NAME, IC_ENF_ALIASES, IC_ENF_ENGINE, IC_ENF_VERSION, IC_ENF_VERSIONS,
    IC_ENF_DESCRIPTION,
    IC_ENF_STEP, IC_ENF_GRAPHS, IC_ENF_OVERLAP, IC_ENF_CPU_STEP, IC_ENF_STEP_SOURCE,
    IC_ENF_ATTN, IC_ENF_ATTN_FIRST,
    IC_ENF_ATTN_SOURCE = IC_ENF_ATTN_FIRST + IC_DT_COUNT,
    IC_ENF_GEMV, IC_ENF_GEMV_FIRST,
    IC_ENF_GEMV_SOURCE = IC_ENF_GEMV_FIRST + IC_DT_COUNT,
    IC_ENF_DEFAULTS, IC_ENF_MAX_BATCH, IC_ENF_KV_PLACEMENT, IC_ENF_DEFAULTS_SOURCE,
    IC_ENF_SOURCES, IC_ENF_NOTES,
    IC_ENF_COUNT
};

struct ic_engine {
    char name[IC_ENGINE_NAME_LEN];          /* "vllm-0.19" */
    char aliases[IC_ENGINE_MAX_ALIASES][IC_ENGINE_NAME_LEN];
    uint32_t n_aliases;
    char engine[IC_ENGINE_NAME_LEN];        /* the engine as published/decode.csv names it */
    char version[IC_ENGINE_NAME_LEN];
    /* other version texts (as published/decode.csv's engine_version writes
     * them) this profile also describes, e.g. dated snapshots of a branch */
    char versions[IC_ENGINE_MAX_VERSIONS][IC_ENGINE_NAME_LEN];
    uint32_t n_versions;
    char description[IC_ENGINE_TEXT_LEN];
    char path[IC_ENGINE_TEXT_LEN];          /* file it came from */

    bool graphs;            /* decode steps replay a captured graph (or one program) */
    bool overlap;           /* the host's scheduling runs beside the accelerator */
    double cpu_step_s;      /* host time per step the accelerator waits for (overlap false) */
    double attn_eff[IC_DT_COUNT]; /* decode attention bandwidth / achieved GEMV bandwidth,
                                     per KV type; 0: not given (1) */
    double gemv_eff[IC_DT_COUNT]; /* weight GEMV bandwidth / the bf16 GEMV's, per weight
                                     type; 0: not given (1) */
    uint64_t max_batch;     /* sequences scheduled at most by default; 0: not stated */
    /* the cache past the KV heads under the engine's tensor parallelism
     * (ic_layout.kv_copy): stated, and if so copied (true) or split */
    bool kv_placement_set;
    bool kv_copy;
    char kv_placement[16];  /* as written: "split" or "copy" */

    char step_source[IC_ENGINE_TEXT_LEN];
    char attn_source[IC_ENGINE_TEXT_LEN];
    char gemv_source[IC_ENGINE_TEXT_LEN];
    char defaults_source[IC_ENGINE_TEXT_LEN];
    char sources[IC_ENGINE_MAX_SOURCES][IC_ENGINE_TEXT_LEN];
    uint32_t n_sources;
    char notes[IC_ENGINE_TEXT_LEN];

    struct ic_loc locs[IC_ENF_COUNT];
};

/* Loads one enginedb file into *out (written only on success), through the
 * same document reader as hwdb (ic_ydoc: bounded, strict, file:line:column
 * errors with a hint). Checks: a lower-case name, a step section with its
 * source, efficiencies above 0 and at most 1, host time at most 100 ms and
 * only where the scheduler does not overlap, a max_batch of 1 to 2^24, a
 * source for every section given, at least one reference. */
int ic_engine_load(const char *path, struct ic_engine *out, struct ic_err *err);

/* The word published/decode.csv's engine_version writes where a source
 * names no version: no profile may claim it, and a row of it is predicted
 * with a good engine. */
#define IC_ENGINE_UNSTATED "unstated"

/* The factors the expected estimate applies (1 where the profile, or no
 * profile (e == NULL), says nothing). */
double ic_engine_gemv_eff(const struct ic_engine *e, enum ic_dtype weights);
double ic_engine_attn_eff(const struct ic_engine *e, enum ic_dtype kv);

/* Whether the cache past the KV heads is copied on every chip sharing a
 * head (ic_layout.kv_copy): the profile's defaults.kv_placement where it
 * states one, else dflt (also for no profile, e == NULL). */
bool ic_engine_kv_copy(const struct ic_engine *e, bool dflt);

#endif
