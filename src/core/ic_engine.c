/* ic_engine: enginedb loader (see the header). */
#include "ic_engine.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define OFF(f) offsetof(struct ic_engine, f)
#define STR(k, id, f, req)                                                                   \
    {k, IC_F_STR, id, OFF(f), sizeof(((struct ic_engine *)0)->f), 0, 0, 0, req, NULL, NULL}
#define QTY(k, id, f, q, req) {k, IC_F_QTY, id, OFF(f), 0, 0, 0, q, req, NULL, NULL}
#define CNT(k, id, f, req) {k, IC_F_COUNT, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define NUM(k, id, f, req) {k, IC_F_NUMBER, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define BOOL(k, id, f, req) {k, IC_F_BOOL, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define MAP(k, id, sub, req) {k, IC_F_MAP, id, 0, 0, 0, 0, 0, req, sub, NULL}
#define LIST(k, id, f, nf, req)                                                               \
    {k, IC_F_STRLIST, id, OFF(f), sizeof(((struct ic_engine *)0)->f[0]),                      \
     sizeof(((struct ic_engine *)0)->f) / sizeof(((struct ic_engine *)0)->f[0]), OFF(nf), 0, \
     req, NULL, NULL}
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct ic_field step_fields[] = {
    BOOL("graphs", IC_ENF_GRAPHS, graphs, false),
    BOOL("scheduler_overlap", IC_ENF_OVERLAP, overlap, false),
    QTY("cpu_per_step", IC_ENF_CPU_STEP, cpu_step_s, IC_QTY_TIME, false),
    STR("source", IC_ENF_STEP_SOURCE, step_source, true),
};
static const struct ic_schema step_schema = {"step section", step_fields, N(step_fields),
                                             false};

/* one efficiency per type: the attention section by KV type, gemv by weight type */
#define EFF(k, base, arr, t) NUM(k, base + t, arr[t], false)
static const struct ic_field attn_fields[] = {
    EFF("fp32", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_FP32),
    EFF("bf16", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_BF16),
    EFF("fp16", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_FP16),
    EFF("fp8", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_FP8),
    EFF("int8", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_INT8),
    EFF("int4", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_INT4),
    EFF("fp4", IC_ENF_ATTN_FIRST, attn_eff, IC_DT_FP4),
    STR("source", IC_ENF_ATTN_SOURCE, attn_source, true),
};
_Static_assert(N(attn_fields) == IC_DT_COUNT + 1, "an attention key per dtype");
static const struct ic_schema attn_schema = {"attention section", attn_fields,
                                             N(attn_fields), false};

static const struct ic_field gemv_fields[] = {
    EFF("fp32", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_FP32),
    EFF("bf16", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_BF16),
    EFF("fp16", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_FP16),
    EFF("fp8", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_FP8),
    EFF("int8", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_INT8),
    EFF("int4", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_INT4),
    EFF("fp4", IC_ENF_GEMV_FIRST, gemv_eff, IC_DT_FP4),
    STR("source", IC_ENF_GEMV_SOURCE, gemv_source, true),
};
_Static_assert(N(gemv_fields) == IC_DT_COUNT + 1, "a gemv key per dtype");
static const struct ic_schema gemv_schema = {"gemv section", gemv_fields, N(gemv_fields),
                                             false};

static const struct ic_field defaults_fields[] = {
    CNT("max_batch", IC_ENF_MAX_BATCH, max_batch, false),
    STR("kv_placement", IC_ENF_KV_PLACEMENT, kv_placement, false),
    STR("source", IC_ENF_DEFAULTS_SOURCE, defaults_source, true),
};
static const struct ic_schema defaults_schema = {"defaults section", defaults_fields,
                                                 N(defaults_fields), false};

static const struct ic_field engine_fields[] = {
    STR("name", IC_ENF_NAME, name, true),
    LIST("aliases", IC_ENF_ALIASES, aliases, n_aliases, false),
    STR("engine", IC_ENF_ENGINE, engine, true),
    STR("version", IC_ENF_VERSION, version, true),
    LIST("versions", IC_ENF_VERSIONS, versions, n_versions, false),
    STR("description", IC_ENF_DESCRIPTION, description, false),
    MAP("step", IC_ENF_STEP, &step_schema, true),
    MAP("attention", IC_ENF_ATTN, &attn_schema, false),
    MAP("gemv", IC_ENF_GEMV, &gemv_schema, false),
    MAP("defaults", IC_ENF_DEFAULTS, &defaults_schema, false),
    LIST("sources", IC_ENF_SOURCES, sources, n_sources, true),
    STR("notes", IC_ENF_NOTES, notes, false),
};
static const struct ic_schema engine_schema = {"engine profile", engine_fields,
                                               N(engine_fields), false};

double ic_engine_gemv_eff(const struct ic_engine *e, enum ic_dtype weights)
{
    return e && e->gemv_eff[weights] > 0 ? e->gemv_eff[weights] : 1.0;
}

double ic_engine_attn_eff(const struct ic_engine *e, enum ic_dtype kv)
{
    return e && e->attn_eff[kv] > 0 ? e->attn_eff[kv] : 1.0;
}

bool ic_engine_kv_copy(const struct ic_engine *e, bool dflt)
{
    return e && e->kv_placement_set ? e->kv_copy : dflt;
}

/* Error at the recorded location of field id, with a hint line. */
static int field_error(const struct ic_engine *en, const char *path, int id, struct ic_err *err,
                       const char *msg, const char *hint)
{
    int rc = ic_err_set(err, IC_EINVAL, path, en->locs[id].line, en->locs[id].col, "%s", msg);
    ic_err_hint(err, "%s", hint ? hint : "enginedb/README.md gives each key's meaning and range");
    return rc;
}

/* What the schema cannot check: names, ranges, sources. */
static int check_values(struct ic_engine *en, const char *path, struct ic_err *err)
{
    if (!ic_ydoc_name_ok(en->name, false))
        return field_error(en, path, IC_ENF_NAME, err,
                           "'name' must be lower-case letters, digits, '-' or '.', starting "
                           "with a letter or a digit", NULL);
    const char *why;
    int bad = ic_ydoc_alias_bad(en->name, en->aliases[0], sizeof en->aliases[0], en->n_aliases,
                                true, &why);
    if (bad >= 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "alias '%.64s' %s", en->aliases[bad], why);
        return field_error(en, path, IC_ENF_ALIASES, err, msg,
                           "an alias is another name --engine takes, e.g. 'vllm'");
    }
    if (!en->engine[0] || !en->version[0])
        return field_error(en, path, !en->engine[0] ? IC_ENF_ENGINE : IC_ENF_VERSION, err,
                           "'engine' and 'version' must not be empty",
                           "the engine as published/decode.csv's engine column names it, and "
                           "the version the figures are for");
    if (en->cpu_step_s > 0.1)
        return field_error(en, path, IC_ENF_CPU_STEP, err,
                           "'cpu_per_step' must be at most 100 ms",
                           "the host's time per decode step, e.g. '2 ms'");
    if (en->locs[IC_ENF_CPU_STEP].line && en->overlap)
        return field_error(en, path, IC_ENF_CPU_STEP, err,
                           "'cpu_per_step' is given but 'scheduler_overlap' is true: the step "
                           "never waits for it",
                           "give the host time only for an engine whose accelerator waits for "
                           "the scheduler between steps");
    /* a host the accelerator waits for takes time: without the figure the
     * profile read as overlapped */
    if (!en->overlap && !en->locs[IC_ENF_CPU_STEP].line)
        return field_error(en, path, IC_ENF_OVERLAP, err,
                           "'scheduler_overlap' is false but no 'cpu_per_step' says how long "
                           "the accelerator waits",
                           "give the host's time per decode step with its source, e.g. "
                           "'cpu_per_step: 2 ms'");
    /* a version text names a version: not empty (a null entry matched a
     * published row of no stated version), nor 'unstated' (the word
     * published/decode.csv writes where a source names none, which no
     * profile describes) */
    for (uint32_t i = 0; i <= en->n_versions; i++) {
        const char *const text = i < en->n_versions ? en->versions[i] : en->version;
        if (strcasecmp(text, IC_ENGINE_UNSTATED) == 0)
            return field_error(en, path, i < en->n_versions ? IC_ENF_VERSIONS : IC_ENF_VERSION,
                               err, "'unstated' names no version",
                               "published/decode.csv writes it where a source states none; "
                               "such a row is predicted with a good engine");
    }
    for (uint32_t i = 0; i < en->n_versions; i++) {
        const char *v = en->versions[i];
        bool named = false;
        for (; *v; v++)
            named |= (*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'z') ||
                     (*v >= 'A' && *v <= 'Z');
        if (!named)
            return field_error(en, path, IC_ENF_VERSIONS, err,
                               "an entry of 'versions' names no version (empty, null or "
                               "punctuation)",
                               "list the engine_version texts of published/decode.csv this "
                               "profile describes, e.g. [\"0.6.1\", \"2023-12\"]");
    }
    /* a section of efficiencies gives at least one */
    const int secs[2] = {IC_ENF_ATTN, IC_ENF_GEMV}, firsts[2] = {IC_ENF_ATTN_FIRST,
                                                                 IC_ENF_GEMV_FIRST};
    for (int j = 0; j < 2; j++) {
        bool any = false;
        for (int t = 0; t < IC_DT_COUNT; t++)
            any |= en->locs[firsts[j] + t].line != 0;
        if (en->locs[secs[j]].line && !any)
            return field_error(en, path, secs[j], err,
                               "the section gives no efficiency: name a type, e.g. 'int4: 0.9'",
                               NULL);
    }
    for (int t = 0; t < IC_DT_COUNT; t++) {
        const int ids[2] = {IC_ENF_ATTN_FIRST + t, IC_ENF_GEMV_FIRST + t};
        const double v[2] = {en->attn_eff[t], en->gemv_eff[t]};
        for (int j = 0; j < 2; j++)
            /* under 1%: a unit slip (a percentage, an exponent), never a
             * kernel (1e-300 printed a step of 1e297 s) */
            if (en->locs[ids[j]].line && !(v[j] >= 0.01 && v[j] <= 1))
                return field_error(en, path, ids[j], err,
                                   "an efficiency must be from 0.01 to 1",
                                   "the kernel's bandwidth over the reference (the chip's "
                                   "achieved GEMV, or the bf16 GEMV), e.g. 0.85");
    }
    if (en->locs[IC_ENF_DEFAULTS].line && !en->locs[IC_ENF_MAX_BATCH].line &&
        !en->locs[IC_ENF_KV_PLACEMENT].line)
        return field_error(en, path, IC_ENF_DEFAULTS, err,
                           "the defaults section gives neither 'max_batch' nor 'kv_placement'",
                           "e.g. 'max_batch: 256' or 'kv_placement: copy', with the source");
    if (en->locs[IC_ENF_MAX_BATCH].line &&
        !(en->max_batch >= 1 && en->max_batch <= (UINT64_C(1) << 24)))
        return field_error(en, path, IC_ENF_MAX_BATCH, err,
                           "'max_batch' must be between 1 and 2^24",
                           "the engine's default limit on sequences in flight, e.g. 256");
    if (en->locs[IC_ENF_KV_PLACEMENT].line) {
        en->kv_placement_set = true;
        en->kv_copy = strcmp(en->kv_placement, "copy") == 0;
        if (!en->kv_copy && strcmp(en->kv_placement, "split") != 0)
            return field_error(en, path, IC_ENF_KV_PLACEMENT, err,
                               "'kv_placement' must be 'split' or 'copy'",
                               "copy: each chip sharing a KV head keeps that head's cache of "
                               "every sequence (tensor parallelism past the KV heads); split: "
                               "they divide the sequences (data-parallel attention)");
    }
    static const int src_ids[4] = {IC_ENF_STEP_SOURCE, IC_ENF_ATTN_SOURCE, IC_ENF_GEMV_SOURCE,
                                   IC_ENF_DEFAULTS_SOURCE};
    static const int sec_ids[4] = {IC_ENF_STEP, IC_ENF_ATTN, IC_ENF_GEMV, IC_ENF_DEFAULTS};
    const char *src[4] = {en->step_source, en->attn_source, en->gemv_source,
                          en->defaults_source};
    for (int i = 0; i < 4; i++)
        if (en->locs[sec_ids[i]].line && strlen(src[i]) < 4)
            return field_error(en, path, src_ids[i], err,
                               "every figure of a profile needs its source, 4 characters or "
                               "more",
                               "name the document, its table or figure, the date and how it "
                               "was measured");
    if (en->n_sources == 0)
        return field_error(en, path, IC_ENF_SOURCES, err,
                           "'sources' must list at least one reference", NULL);
    return IC_OK;
}

int ic_engine_load(const char *path, struct ic_engine *out, struct ic_err *err)
{
    struct ic_ydoc d = {0};
    struct ic_engine *en = NULL;
    int rc = ic_ydoc_load(&d, path, err);
    if (rc)
        return rc;
    path = d.path; /* "-" is named IC_STDIN_NAME from here on */
    en = calloc(1, sizeof *en); /* ~45 KiB: keep it off the stack */
    if (!en) {
        rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
        goto out;
    }
    yaml_node_t *root = ic_ydoc_root(&d);
    if (!root) {
        rc = ic_err_set(err, IC_EINVAL, path, 1, 1,
                        "empty file; expected an engine profile (see enginedb/README.md)");
        ic_err_hint(err, "an engine profile opens with 'name:'; a file of enginedb/ is an "
                         "example");
        goto out;
    }
    en->graphs = true; /* a good engine, where a section is left out */
    en->overlap = true;
    rc = ic_ydoc_read(&d, root, &engine_schema, en, en->locs, NULL, err);
    if (rc)
        goto out;
    rc = check_values(en, path, err);
    if (rc)
        goto out;
    snprintf(en->path, sizeof en->path, "%s", path);
    *out = *en;
out:
    free(en);
    ic_ydoc_free(&d);
    return rc;
}
