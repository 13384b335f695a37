/* ic_sim: the serving simulation (see the header). */
#include "ic_sim.h"

#include "ic_serving.h"
#include "ic_step.h"

#include <errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *const dist_names[IC_DIST_COUNT] = {"fixed", "uniform", "lognormal", "gamma"};
static const char *const route_names[IC_ROUTE_COUNT] = {"round-robin", "least-loaded"};

const char *ic_sim_dist_name(enum ic_sim_dist d) { return d < IC_DIST_COUNT ? dist_names[d] : "?"; }
const char *ic_sim_route_name(enum ic_sim_route r)
{
    return r < IC_ROUTE_COUNT ? route_names[r] : "?";
}

struct ic_sim_cfg ic_sim_defaults(void)
{
    struct ic_sim_cfg c = {0};
    c.dec = ic_decode_defaults();
    c.rate = 0;
    c.requests = 1000;
    c.warmup = 0;
    c.prompt = (struct ic_sim_lengths){IC_DIST_FIXED, 2048, 0};
    c.output = (struct ic_sim_lengths){IC_DIST_FIXED, 256, 0};
    c.max_seqs = 256;
    c.max_tokens = 8192;
    c.block = 16;
    c.mem_util = 0.9;
    c.sched = IC_SCHED_CHUNKED;
    c.seed = 1;
    return c;
}

/* ---- step times ------------------------------------------------------------- */

int ic_sim_step_s(const struct ic_model_stats *m, const struct ic_hw *hw,
                  const struct ic_sim_cfg *c, uint64_t n_dec, double ctx_dec, uint64_t n_pre,
                  uint64_t pre_tokens, double ctx_pre, double *step_s, struct ic_err *err)
{
    struct ic_step s = {
        .layout = {c->dec.chips, 1, 1, 1, c->dec.kv_copy},
        .weights = c->dec.weights,
        .kv = c->dec.kv,
        .compute = c->dec.compute,
        .attn = IC_ATTN_FLASH,
    };
    unsigned k = 0;
    if (n_dec)
        s.kind[k++] = (struct ic_seqs){n_dec, 1, (uint64_t)llround(ctx_dec), 1, IC_PHASE_DECODE};
    if (n_pre) {
        /* the chunks as one kind: their mean length (rounded up) each */
        uint64_t t = (pre_tokens + n_pre - 1) / n_pre;
        s.kind[k++] = (struct ic_seqs){n_pre, t ? t : 1, (uint64_t)llround(ctx_pre), 1,
                                       IC_PHASE_PREFILL};
    }
    s.n_kinds = k;
    const double mfu = c->prefill_mfu > 0 ? c->prefill_mfu : IC_PREFILL_MFU;
    const struct ic_rates r = ic_decode_rates(&c->dec, mfu);
    struct ic_load l;
    struct ic_time t;
    int rc;
    if ((rc = ic_step_load(m, &s, &l, err)) || (rc = ic_step_time(&l, hw, &r, &t, err)))
        return rc;
    *step_s = t.step_s;
    return IC_OK;
}

double ic_sim_context_key(double x)
{
    if (x < 32)
        return round(x);
    int e;
    double f = frexp(x, &e); /* x = f 2^e, f in [0.5, 1) */
    return ldexp(round(f * 64) / 64, e);
}

struct step_key {
    uint64_t n_dec, n_pre, pre_tokens;
    double ctx_dec, ctx_pre;
};

/* The most entries a step table keeps (its slots: twice that, 48 B each,
 * ~12 MiB); lengths that vary widely make a new key of most steps. */
#define STEP_TABLE_MAX ((size_t)1 << 17)

struct step_table {
    struct step_key *keys;
    double *vals;
    size_t cap, n;
    uint64_t hits, misses;
};

static uint64_t key_hash(const struct step_key *k)
{
    uint64_t h = k->n_dec * UINT64_C(0x9E3779B97F4A7C15);
    h ^= (k->n_pre + (k->pre_tokens << 20)) * UINT64_C(0xC2B2AE3D27D4EB4F);
    uint64_t a, b;
    memcpy(&a, &k->ctx_dec, 8);
    memcpy(&b, &k->ctx_pre, 8);
    h ^= a * UINT64_C(0x165667B19E3779F9) ^ (b + (h >> 29)) * UINT64_C(0x27D4EB2F165667C5);
    return h ^ (h >> 31);
}

static bool key_eq(const struct step_key *a, const struct step_key *b)
{
    return a->n_dec == b->n_dec && a->n_pre == b->n_pre && a->pre_tokens == b->pre_tokens &&
           a->ctx_dec == b->ctx_dec && a->ctx_pre == b->ctx_pre;
}

static int table_grow(struct step_table *t)
{
    size_t cap = t->cap ? 2 * t->cap : 4096;
    struct step_key *keys = calloc(cap, sizeof *keys);
    double *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return IC_ENOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        vals[i] = -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->vals[i] >= 0) {
            size_t j = key_hash(&t->keys[i]) & (cap - 1);
            while (vals[j] >= 0)
                j = (j + 1) & (cap - 1);
            keys[j] = t->keys[i];
            vals[j] = t->vals[i];
        }
    free(t->keys);
    free(t->vals);
    t->keys = keys;
    t->vals = vals;
    t->cap = cap;
    return IC_OK;
}

static int step_time(struct step_table *t, const struct ic_model_stats *m, const struct ic_hw *hw,
                     const struct ic_sim_cfg *c, uint64_t n_dec, double ctx_dec, uint64_t n_pre,
                     uint64_t pre_tokens, double ctx_pre, double *out, struct ic_err *err)
{
    struct step_key k = {n_dec, n_pre, pre_tokens, n_dec ? ic_sim_context_key(ctx_dec) : 0,
                         n_pre ? ic_sim_context_key(ctx_pre) : 0};
    if (t->n >= STEP_TABLE_MAX) {
        /* full: start again (memory stays bounded whatever the trace; the
         * times are the same, only computed again) */
        for (size_t i = 0; i < t->cap; i++)
            t->vals[i] = -1;
        t->n = 0;
    }
    if (2 * (t->n + 1) > t->cap && table_grow(t))
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    size_t j = key_hash(&k) & (t->cap - 1);
    while (t->vals[j] >= 0) {
        if (key_eq(&t->keys[j], &k)) {
            t->hits++;
            *out = t->vals[j];
            return IC_OK;
        }
        j = (j + 1) & (t->cap - 1);
    }
    int rc = ic_sim_step_s(m, hw, c, k.n_dec, k.ctx_dec, k.n_pre, k.pre_tokens, k.ctx_pre, out,
                           err);
    if (rc)
        return rc;
    t->misses++;
    t->keys[j] = k;
    t->vals[j] = *out;
    t->n++;
    return IC_OK;
}

/* ---- histograms ------------------------------------------------------------- */

/* 1 ns to 1e12 s (a prompt of millions of tokens queued behind thousands of
 * others waits ~1e5 s and more); a value beyond either end counts in the end
 * bin, and a percentile that falls there is the extreme value itself */
enum { H_PER_DECADE = 1000, H_DECADES = 21, H_BINS = H_PER_DECADE * H_DECADES };
#define H_LO 1e-9 /* seconds: the first bin's lower edge */

struct hist {
    uint64_t *bin; /* [H_BINS] */
    uint64_t n;
    double sum, min, max;
    double last_x;  /* the last value and its bin: a step's tokens mostly share */
    long last_i;    /* their gap, so the logarithm is taken once a step */
};

static void hist_add(struct hist *h, double x)
{
    if (!h->n || x < h->min)
        h->min = x;
    if (!h->n || x > h->max)
        h->max = x;
    h->n++;
    h->sum += x;
    if (x != h->last_x) { /* (0 starts in bin 0, as it belongs) */
        long i = x > H_LO ? (long)floor(H_PER_DECADE * log10(x / H_LO)) : 0;
        h->last_i = i < 0 ? 0 : i >= H_BINS ? H_BINS - 1 : i;
        h->last_x = x;
    }
    h->bin[h->last_i]++;
}

static struct ic_sim_dist_stats hist_stats(const struct hist *h)
{
    struct ic_sim_dist_stats s = {0};
    if (!h->n)
        return s;
    s.n = h->n;
    s.mean = h->sum / (double)h->n;
    static const double q[IC_SIM_PCT] = {0.50, 0.90, 0.99};
    for (int k = 0; k < IC_SIM_PCT; k++) {
        /* the smallest bin whose cumulative count reaches q n; its middle */
        uint64_t want = (uint64_t)ceil(q[k] * (double)h->n), acc = 0;
        for (long i = 0; i < H_BINS; i++) {
            acc += h->bin[i];
            if (acc >= want) {
                s.p[k] = i == H_BINS - 1 ? h->max
                         : i == 0        ? h->min
                                         : H_LO * pow(10, ((double)i + 0.5) / H_PER_DECADE);
                break;
            }
        }
    }
    return s;
}

/* ---- the trace ------------------------------------------------------------ */

struct arrival {
    double t;                 /* s, from the clock's 0 (epoch) */
    double abs;               /* s, a trace's own arrival (the clock's 0 moves there) */
    uint64_t prompt, output;  /* tokens */
    bool has_pfx;
    uint64_t pfx_id;          /* the id's text hashed (FNV-1a, 64 bits) */
    uint64_t pfx_tokens;      /* 0: cfg prefix_tokens */
};

struct trace {
    FILE *f;
    const char *path;
    unsigned line;
    bool past_first;          /* past the first line that is neither blank nor a comment */
    double last_t;            /* the previous line's arrival */
    uint64_t pfx_default;     /* a prefix id's tokens where the line gives none (0: none) */
    char buf[IC_SIM_TRACE_LINE_MAX + 2];
};

static const char trace_hint[] =
    "a trace line is arrival_s,prompt_tokens,output_tokens[,prefix_id[,prefix_tokens]], "
    "sorted by arrival";

static int trace_bad(struct trace *t, unsigned col, const char *what, const char *f, size_t n,
                     const char *expected, struct ic_err *err)
{
    ic_err_set(err, IC_EINVAL, t->path, t->line, col, "%s '%.*s': expected %s", what,
               (int)(n > 64 ? 64 : n), f, expected);
    ic_err_hint(err, "%s", trace_hint);
    return IC_EINVAL;
}

static int trace_count(struct trace *t, const char *f, size_t n, unsigned col, const char *what,
                       uint64_t *v, struct ic_err *err)
{
    uint64_t x = 0;
    bool ok = n > 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (f[i] < '0' || f[i] > '9')
            ok = false;
        else if (x <= IC_SIM_MAX_LENGTH) /* past it: too large whatever follows */
            x = 10 * x + (uint64_t)(f[i] - '0');
    }
    if (!ok || x < 1 || x > IC_SIM_MAX_LENGTH)
        return trace_bad(t, col, what, f, n, "a whole number of tokens from 1 to 10000000", err);
    *v = x;
    return IC_OK;
}

/* The next request of the trace: 1, or 0 at its end, or an error. */
/* The field of buf from i to the next comma (or n): its start *b and end
 * *end, blanks trimmed; returns where it stops, the comma or n. */
static size_t trace_field(const char *buf, size_t i, size_t n, size_t *b, size_t *end)
{
    size_t s = i;
    while (s < n && (buf[s] == ' ' || buf[s] == '\t'))
        s++;
    size_t e = s;
    while (e < n && buf[e] != ',')
        e++;
    size_t x = e;
    while (x > s && (buf[x - 1] == ' ' || buf[x - 1] == '\t'))
        x--;
    *b = s;
    *end = x;
    return e;
}

/* The trace column a header's name says (0 arrival, 1 prompt, 2 output),
 * by the start of its name, any case, or -1 for a name it does not know
 * (the prefix columns' names vary: prefix_len, prefix_hash, ...). */
static int header_column(const char *name, size_t len)
{
    static const struct {
        const char *stem;
        int col;
    } known[] = {{"arrival", 0},  {"timestamp", 0}, {"time", 0},       {"prompt", 1},
                 {"input", 1},    {"context", 1},   {"output", 2},     {"generated", 2},
                 {"completion", 2}, {"response", 2}};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        const size_t sl = strlen(known[k].stem);
        if (len >= sl && strncasecmp(name, known[k].stem, sl) == 0)
            return known[k].col;
    }
    return -1;
}

/* A header's columns: the lines are read by position, so a name that says
 * another column's quantity (arrival_s,output,prompt: the lengths swapped)
 * is an error; names it does not know pass (TIMESTAMP,ContextTokens,... is
 * read by position, as before). */
static int trace_header(struct trace *t, size_t from, size_t n, struct ic_err *err)
{
    static const char *const what[] = {"the arrival", "the prompt's tokens",
                                       "the output's tokens", "a prefix id",
                                       "the prefix's tokens"};
    size_t i = from;
    for (int k = 0;; k++) {
        size_t b, end;
        const size_t e = trace_field(t->buf, i, n, &b, &end);
        const int says = header_column(t->buf + b, end - b);
        if (k >= 5 || (says >= 0 && says != k)) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, (unsigned)b + 1,
                       k >= 5 ? "a header of more than 5 columns"
                              : "header column %d is '%.*s', %s; the lines are read by "
                                "position and column %d is %s",
                       k + 1, (int)(end - b > 40 ? 40 : end - b), t->buf + b,
                       says >= 0 ? what[says] : "", k + 1, k < 5 ? what[k] : "");
            ic_err_hint(err, "%s; reorder the columns to that order", trace_hint);
            return IC_EINVAL;
        }
        if (e >= n)
            return 0;
        i = e + 1;
    }
}

static int trace_next(struct trace *t, struct arrival *a, struct ic_err *err)
{
    for (;;) {
        /* one line, byte by byte: its length is known whatever it holds (a
         * NUL byte cut what strlen saw, and /dev/zero read as blank lines
         * without end) */
        size_t n = 0;
        int ch = EOF;
        errno = 0;
        while (n < sizeof t->buf - 1 && (ch = getc_unlocked(t->f)) != EOF) {
            t->buf[n++] = (char)ch;
            if (ch == '\n')
                break;
        }
        t->buf[n] = 0;
        if (!n) {
            if (ferror(t->f))
            {
                int rc = ic_err_set(err, IC_EIO, t->path, t->line + 1, 0,
                                    "cannot read the trace: %s", strerror(errno ? errno : EIO));
                ic_err_hint(err, "a trace must be readable to its end (a file, a pipe)");
                return rc;
            }
            return 0;
        }
        t->line++;
        bool nl = t->buf[n - 1] == '\n';
        if (!nl && n > IC_SIM_TRACE_LINE_MAX) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, IC_SIM_TRACE_LINE_MAX + 1,
                       "the line is longer than %d characters", IC_SIM_TRACE_LINE_MAX);
            ic_err_hint(err, "%s", trace_hint);
            return IC_EINVAL;
        }
        const char *nul = memchr(t->buf, 0, n);
        if (nul) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, (unsigned)(nul - t->buf) + 1,
                       "a NUL byte: a trace is text");
            ic_err_hint(err, "%s", trace_hint);
            return IC_EINVAL;
        }
        while (n && (t->buf[n - 1] == '\n' || t->buf[n - 1] == '\r'))
            t->buf[--n] = 0;
        size_t p = 0;
        /* a UTF-8 byte-order mark opening the file (spreadsheets write
         * one), as the YAML and JSON readers take it */
        const size_t bom =
            t->line == 1 && n >= 3 && memcmp(t->buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        p = bom;
        while (p < n && (t->buf[p] == ' ' || t->buf[p] == '\t'))
            p++;
        if (p == n || t->buf[p] == '#')
            continue;
        if (!t->past_first) {
            t->past_first = true;
            char c0 = t->buf[p];
            /* a first field that strtod reads whole (nan, inf, infinity
             * spelled with letters) is a request line, refused as on any
             * line; the buffer ends in a NUL */
            size_t e = p;
            while (e < n && t->buf[e] != ',' && t->buf[e] != ' ' && t->buf[e] != '\t')
                e++;
            char *stop;
            (void)strtod(t->buf + p, &stop);
            const bool numeric = stop == t->buf + e;
            if (!numeric && ((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'))) {
                int hrc = trace_header(t, p, n, err);
                if (hrc)
                    return hrc;
                continue;
            }
        }
        /* the fields: start, length and column of each, spaces trimmed */
        const char *f[6];
        size_t len[6];
        unsigned col[6];
        int nf = 0;
        size_t i = bom;
        for (;;) {
            size_t b, end;
            const size_t e = trace_field(t->buf, i, n, &b, &end);
            if (nf == 5) {
                ic_err_set(err, IC_EINVAL, t->path, t->line, (unsigned)b + 1,
                           "a sixth field: expected at most 5");
                ic_err_hint(err, "%s", trace_hint);
                return IC_EINVAL;
            }
            f[nf] = t->buf + b;
            len[nf] = end - b;
            col[nf] = (unsigned)b + 1;
            nf++;
            if (e >= n)
                break;
            i = e + 1;
        }
        if (nf < 3) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, (unsigned)n + 1,
                       "%d field%s: expected at least 3 (arrival, prompt and output)", nf,
                       nf == 1 ? "" : "s");
            ic_err_hint(err, "%s", trace_hint);
            return IC_EINVAL;
        }
        struct arrival x = {0};
        char num[64];
        bool ok = len[0] > 0 && len[0] < sizeof num;
        if (ok) {
            memcpy(num, f[0], len[0]);
            num[len[0]] = 0;
            /* a plain decimal, as the options take (strtod alone reads
             * " 5" and "0x10") */
            char why[96];
            ok = ic_number_parse(num, &x.t, why, sizeof why) == 0 && x.t <= 1e12;
        }
        if (!ok)
            return trace_bad(t, col[0], "arrival", f[0], len[0],
                             "seconds, a number from 0 to 1e12", err);
        if (x.t < t->last_t) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, col[0],
                       "arrival %.9g s comes before the previous line's %.9g s", x.t,
                       t->last_t);
            ic_err_hint(err, "the trace is read as it streams, in order: sort it by arrival "
                             "(sort -t, -g -k1,1)");
            return IC_EINVAL;
        }
        int rc;
        if ((rc = trace_count(t, f[1], len[1], col[1], "prompt", &x.prompt, err)) ||
            (rc = trace_count(t, f[2], len[2], col[2], "output", &x.output, err)))
            return rc;
        if (nf >= 4 && len[3] > 0) {
            x.has_pfx = true;
            uint64_t h = UINT64_C(14695981039346656037);
            for (size_t k = 0; k < len[3]; k++)
                h = (h ^ (unsigned char)f[3][k]) * UINT64_C(1099511628211);
            x.pfx_id = h;
        }
        if (nf == 5 && (rc = trace_count(t, f[4], len[4], col[4], "prefix tokens",
                                         &x.pfx_tokens, err)))
            return rc;
        if (nf == 5 && !x.has_pfx)
            return trace_bad(t, col[3], "prefix id", f[3], len[3],
                             "an id before the prefix tokens", err);
        if (x.has_pfx && !x.pfx_tokens && !t->pfx_default) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, col[3],
                       "a prefix id without its tokens");
            ic_err_hint(err, "give them in a fifth column, or for every id at once (simulate "
                             "--prefix)");
            return IC_EINVAL;
        }
        /* the prefix is the prompt's first tokens */
        const uint64_t pfx = x.pfx_tokens ? x.pfx_tokens : x.has_pfx ? t->pfx_default : 0;
        if (pfx > x.prompt) {
            ic_err_set(err, IC_EINVAL, t->path, t->line, x.pfx_tokens ? col[4] : col[3],
                       "a prefix of %llu tokens in a prompt of %llu",
                       (unsigned long long)pfx, (unsigned long long)x.prompt);
            ic_err_hint(err, "the prefix is the first tokens of the prompt, which counts them: "
                             "prefix tokens at most the prompt's%s",
                        x.pfx_tokens ? "" : " (simulate --prefix sets them for every id)");
            return IC_EINVAL;
        }
        t->last_t = x.t;
        *a = x;
        return 1;
    }
}

/* ---- the prefix cache ------------------------------------------------------ */

/* Prefixes held in a server's KV pool, found by id: an entry holds its
 * blocks; requests referencing it share them; unreferenced entries wait in
 * an LRU list and are evicted, least recent first, when blocks are short.
 * An entry is ready once its first request has computed its tokens; until
 * then others with the id compute their own (no sharing of unfinished
 * blocks, as vLLM caches full blocks once computed). Memory: the entries
 * alive, each holding at least one block, so bounded by the pool. */
struct pfx {
    uint64_t id, tokens, blocks, ref;
    bool ready;
    size_t prev, next; /* LRU, index + 1 (0: none); head = most recent */
};

struct pfx_cache {
    struct pfx *e;
    size_t cap, used;
    size_t *free_e, n_free_e;
    uint64_t *keys;    /* the map, open addressing: id */
    size_t *slot;      /* its entry + 1 (0: empty) */
    size_t mcap, mn;
    size_t head, tail;
};

static size_t pc_home(const struct pfx_cache *pc, uint64_t id)
{
    return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (pc->mcap - 1);
}

static size_t pc_find(const struct pfx_cache *pc, uint64_t id)
{
    if (!pc->mcap)
        return 0;
    for (size_t j = pc_home(pc, id);; j = (j + 1) & (pc->mcap - 1)) {
        if (!pc->slot[j])
            return 0;
        if (pc->keys[j] == id)
            return pc->slot[j];
    }
}

static void pc_map_put(struct pfx_cache *pc, uint64_t id, size_t v)
{
    size_t j = pc_home(pc, id);
    while (pc->slot[j])
        j = (j + 1) & (pc->mcap - 1);
    pc->keys[j] = id;
    pc->slot[j] = v;
    pc->mn++;
}

static int pc_new(struct pfx_cache *pc, uint64_t id, size_t *idx)
{
    if (2 * (pc->mn + 1) > pc->mcap) {
        size_t cap = pc->mcap ? 2 * pc->mcap : 256;
        uint64_t *k = malloc(cap * sizeof *k);
        size_t *v = calloc(cap, sizeof *v);
        if (!k || !v) {
            free(k);
            free(v);
            return IC_ENOMEM;
        }
        uint64_t *ok = pc->keys;
        size_t *ov = pc->slot, ocap = pc->mcap;
        pc->keys = k;
        pc->slot = v;
        pc->mcap = cap;
        pc->mn = 0;
        for (size_t j = 0; j < ocap; j++)
            if (ov[j])
                pc_map_put(pc, ok[j], ov[j]);
        free(ok);
        free(ov);
    }
    if (!pc->n_free_e) {
        size_t cap = pc->cap ? 2 * pc->cap : 256;
        struct pfx *e = realloc(pc->e, cap * sizeof *e);
        if (!e)
            return IC_ENOMEM;
        pc->e = e;
        size_t *f = realloc(pc->free_e, cap * sizeof *f);
        if (!f)
            return IC_ENOMEM;
        pc->free_e = f;
        for (size_t i = cap; i > pc->cap; i--)
            pc->free_e[pc->n_free_e++] = i - 1;
        pc->cap = cap;
    }
    size_t i = pc->free_e[--pc->n_free_e];
    memset(&pc->e[i], 0, sizeof pc->e[i]);
    pc->e[i].id = id;
    pc_map_put(pc, id, i + 1);
    pc->used++;
    *idx = i;
    return IC_OK;
}

static void lru_unlink(struct pfx_cache *pc, size_t i)
{
    struct pfx *e = &pc->e[i];
    if (e->prev)
        pc->e[e->prev - 1].next = e->next;
    else
        pc->head = e->next;
    if (e->next)
        pc->e[e->next - 1].prev = e->prev;
    else
        pc->tail = e->prev;
    e->prev = e->next = 0;
}

static void lru_push(struct pfx_cache *pc, size_t i)
{
    struct pfx *e = &pc->e[i];
    e->prev = 0;
    e->next = pc->head;
    if (pc->head)
        pc->e[pc->head - 1].prev = i + 1;
    else
        pc->tail = i + 1;
    pc->head = i + 1;
}

/* Removes entry i from the map (backward-shift deletion) and frees it. */
static void pc_delete(struct pfx_cache *pc, size_t i)
{
    const size_t mask = pc->mcap - 1;
    size_t j = pc_home(pc, pc->e[i].id);
    while (pc->slot[j] != i + 1)
        j = (j + 1) & mask;
    for (;;) {
        pc->slot[j] = 0;
        size_t k = j;
        for (;;) {
            k = (k + 1) & mask;
            if (!pc->slot[k])
                goto gone;
            size_t h = pc_home(pc, pc->keys[k]);
            /* it stays where it is when its home lies cyclically in (j, k] */
            bool stays = j < k ? (h > j && h <= k) : (h > j || h <= k);
            if (!stays)
                break;
        }
        pc->keys[j] = pc->keys[k];
        pc->slot[j] = pc->slot[k];
        j = k;
    }
gone:
    pc->mn--;
    pc->used--;
    pc->free_e[pc->n_free_e++] = i;
}

static void pc_free(struct pfx_cache *pc)
{
    free(pc->e);
    free(pc->free_e);
    free(pc->keys);
    free(pc->slot);
}

/* ---- requests and servers ------------------------------------------------------ */

struct req {
    /* touched every step (the first 64 bytes) */
    uint64_t computed; /* tokens whose K and V are in the cache (or swapped out) */
    uint64_t gen;      /* output tokens produced */
    uint64_t prompt, output;
    uint64_t sched;    /* tokens scheduled in the current step */
    uint64_t blocks;   /* blocks held of its own */
    uint64_t shared;   /* blocks of a prefix entry it references (counted as its first) */
    size_t pfx;        /* that entry + 1 (0: none) */
    /* touched once a token */
    double t_last, t_first, t_arr;
    uint64_t index;    /* arrival order */
    size_t inst;       /* the server it is on or bound for */
    bool has_pfx, admitted_once, swapped;
    bool xfer;         /* admitted by its decode server, its KV on the way (not yet landed) */
    /* touched rarely */
    uint64_t pfx_id, pfx_tokens, cached, preempts;
    /* disaggregated: from the end of its prompt until its KV lands on the
     * decode server, the prefill server (src - 1) holds its blocks */
    size_t src, src_pfx;
    uint64_t src_blocks;
};

enum role { ROLE_COLOC, ROLE_PREFILL, ROLE_DECODE };

struct inst {
    enum role role;
    const struct ic_sim_cfg *c; /* its chips in c->dec.chips */
    const struct ic_model_stats *m;
    struct step_table *table;
    size_t *running, n_run;     /* admission order */
    size_t *wait, wait_cap, w_head, w_n; /* FIFO (a ring), preempted ones go to its front */
    uint64_t kv_blocks, free_blocks, peak;
    uint64_t parked;            /* prefill server: sequences done whose KV it holds until
                                   a decode server's pull lands */
    uint64_t state_blocks;      /* a sequence's linear-attention state, in blocks */
    uint64_t load;              /* requests routed here and not gone */
    bool busy, dirty;
    bool queued;                /* in the sim's list of servers with news (dq) */
    double end;                 /* its step in flight ends then */
    double link_free;           /* disaggregated: its hand-offs in flight end then (one
                                   at a time over its links) */
    double copy_s;              /* swap copies to charge to its next step */
    struct pfx_cache pc;
};

struct hand {
    double t;      /* lands then */
    uint64_t seq;  /* ties in order of leaving */
    size_t r;
};

struct sim {
    const struct ic_model_stats *m;
    const struct ic_hw *hw;
    const struct ic_sim_cfg *c;
    struct ic_sim_result *out;
    struct ic_err *err;
    gsl_rng *rng;
    struct req *pool;      /* every request arrived and not finished */
    size_t cap;
    size_t *free_list, n_free;
    struct inst *in;
    size_t n_in, n_pre;    /* prefill servers first (disaggregated) */
    uint64_t rr[2];
    struct ic_sim_cfg cfg[2];       /* [0] colocated or decode servers, [1] prefill servers */
    struct step_table table[2];
    struct hand *heap;
    size_t n_heap, heap_cap;
    uint64_t hand_seq;
    /* the busy servers, a heap by (end, index), and the servers with news
     * since their last look (unordered): an event costs O(log servers),
     * not a scan of every server */
    size_t *ends, n_ends;
    size_t *dq, n_dq;
    /* arrivals */
    struct trace tr;
    bool tracing, have_next;
    struct arrival next;
    double gen_t;          /* drawn arrivals: the next one's time */
    uint64_t next_index, limit;
    uint64_t arrived, finished;
    double now;            /* s, from epoch */
    double epoch;          /* s: where now's 0 lies (moved while the system is empty) */
    struct hist ttft, tpot, itl, e2e;
    double in_sys_time;    /* the integral of the requests in the system over time */
    /* per kind of server, [0] colocated or decode, [1] prefill: time stepping, and
     * the integrals of the sequences in a step and of the pool's share held */
    double busy[2], batch_time[2], occ_time[2];
    double first_counted, last_finish, good, xfer_s;
};

static uint64_t draw(struct sim *s, const struct ic_sim_lengths *L)
{
    double v = L->mean, cv = L->cv;
    switch (L->dist) {
    case IC_DIST_UNIFORM:
        v = L->mean * (1 + cv * (2 * gsl_rng_uniform(s->rng) - 1));
        break;
    case IC_DIST_LOGNORMAL: {
        double s2 = log1p(cv * cv);
        v = gsl_ran_lognormal(s->rng, log(L->mean) - s2 / 2, sqrt(s2));
        break;
    }
    case IC_DIST_GAMMA:
        v = cv > 0 ? gsl_ran_gamma(s->rng, 1 / (cv * cv), L->mean * cv * cv) : L->mean;
        break;
    case IC_DIST_FIXED:
    case IC_DIST_COUNT:
    default:
        break;
    }
    double r = round(v);
    return r < 1 ? 1 : r > (double)IC_SIM_MAX_LENGTH ? IC_SIM_MAX_LENGTH : (uint64_t)r;
}

static int grow_pool(struct sim *s)
{
    size_t cap = s->cap ? 2 * s->cap : 1024;
    struct req *p = realloc(s->pool, cap * sizeof *p);
    if (!p)
        return IC_ENOMEM;
    s->pool = p;
    size_t *f = realloc(s->free_list, cap * sizeof *f);
    if (!f)
        return IC_ENOMEM;
    s->free_list = f;
    for (size_t i = cap; i > s->cap; i--)
        s->free_list[s->n_free++] = i - 1;
    s->cap = cap;
    return IC_OK;
}

static int wait_push(struct inst *I, size_t r, bool front)
{
    if (I->w_n == I->wait_cap) {
        size_t cap = I->wait_cap ? 2 * I->wait_cap : 64;
        size_t *w = malloc(cap * sizeof *w);
        if (!w)
            return IC_ENOMEM;
        for (size_t i = 0; i < I->w_n; i++)
            w[i] = I->wait[(I->w_head + i) % I->wait_cap];
        free(I->wait);
        I->wait = w;
        I->wait_cap = cap;
        I->w_head = 0;
    }
    if (front) {
        I->w_head = (I->w_head + I->wait_cap - 1) % I->wait_cap;
        I->wait[I->w_head] = r;
    } else {
        I->wait[(I->w_head + I->w_n) % I->wait_cap] = r;
    }
    I->w_n++;
    return IC_OK;
}

static int heap_push(struct sim *s, double t, size_t r)
{
    if (s->n_heap == s->heap_cap) {
        size_t cap = s->heap_cap ? 2 * s->heap_cap : 64;
        struct hand *h = realloc(s->heap, cap * sizeof *h);
        if (!h)
            return IC_ENOMEM;
        s->heap = h;
        s->heap_cap = cap;
    }
    struct hand x = {t, s->hand_seq++, r};
    size_t i = s->n_heap++;
    while (i) {
        size_t p = (i - 1) / 2;
        const struct hand *y = &s->heap[p];
        if (y->t < x.t || (y->t == x.t && y->seq < x.seq))
            break;
        s->heap[i] = *y;
        i = p;
    }
    s->heap[i] = x;
    return IC_OK;
}

static struct hand heap_pop(struct sim *s)
{
    struct hand top = s->heap[0], x = s->heap[--s->n_heap];
    size_t i = 0, n = s->n_heap;
    for (;;) {
        size_t l = 2 * i + 1, b = i;
        const struct hand *bx = &x;
        for (size_t k = l; k < l + 2 && k < n; k++) {
            const struct hand *y = &s->heap[k];
            if (y->t < bx->t || (y->t == bx->t && y->seq < bx->seq)) {
                b = k;
                bx = y;
            }
        }
        if (b == i)
            break;
        s->heap[i] = s->heap[b];
        i = b;
    }
    if (n)
        s->heap[i] = x;
    return top;
}

/* Server I has news (a request, a landing, its step's end): it looks at
 * its queue when the clock next moves (ic_sim_run). */
static void mark_dirty(struct sim *s, struct inst *I)
{
    I->dirty = true;
    if (!I->queued) {
        I->queued = true;
        s->dq[s->n_dq++] = (size_t)(I - s->in);
    }
}

/* The busy servers' heap: the earliest end first, ties by index (the
 * order a scan of the servers by index finds them in). */
static bool ends_before(const struct sim *s, size_t a, size_t b)
{
    return s->in[a].end < s->in[b].end || (s->in[a].end == s->in[b].end && a < b);
}

static void ends_push(struct sim *s, size_t v)
{
    size_t i = s->n_ends++;
    while (i) {
        const size_t p = (i - 1) / 2;
        if (!ends_before(s, v, s->ends[p]))
            break;
        s->ends[i] = s->ends[p];
        i = p;
    }
    s->ends[i] = v;
}

static void ends_pop(struct sim *s)
{
    const size_t v = s->ends[--s->n_ends], n = s->n_ends;
    size_t i = 0;
    for (;;) {
        size_t b = i;
        size_t bv = v;
        for (size_t k = 2 * i + 1; k < 2 * i + 3 && k < n; k++)
            if (ends_before(s, s->ends[k], bv)) {
                b = k;
                bv = s->ends[k];
            }
        if (b == i)
            break;
        s->ends[i] = s->ends[b];
        i = b;
    }
    if (n)
        s->ends[i] = v;
}

static int cmp_index(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The next request's arrival (and, from a trace, its lengths): 1, 0 when
 * there is none, or an error. */
static int fetch_next(struct sim *s)
{
    const struct ic_sim_cfg *c = s->c;
    s->have_next = false;
    if (s->limit && s->next_index >= s->limit)
        return 0;
    if (s->tracing) {
        int rc = trace_next(&s->tr, &s->next, s->err);
        if (rc <= 0)
            return rc;
        if (c->source == IC_SRC_TRACE_LENGTHS) {
            s->next.t = s->gen_t;
        } else {
            s->next.abs = s->next.t;
            s->next.t = s->next.abs - s->epoch;
        }
    } else {
        s->next.t = s->gen_t;
    }
    s->have_next = true;
    return 1;
}

/* The blocks a span of `tokens` cached tokens holds, `fresh` of them being
 * computed in the step formed: a block is `block` tokens on every
 * attention layer, and a sliding-window (or chunked) layer holds only its
 * window's tokens, as vLLM's sliding-window and chunked-local managers
 * free the blocks a window has passed: before each step they keep the
 * window's last W - 1 computed tokens and allocate the step's new ones,
 * and a block more where the window does not start on a block's edge. So
 * the span takes its layers' tokens over the attention layers, in blocks;
 * and from its first token the blocks its linear-attention state takes
 * (kv_pool: a page of an attention layer's block per state layer; the
 * block aligned to the state, ic_step_paged_block). A sequence's own
 * blocks are its span past the prefix it shares (whose entry holds the
 * prefix's). */
static uint64_t blocks_for(const struct inst *I, uint64_t tokens, uint64_t fresh)
{
    const struct ic_model_stats *m = I->m;
    const uint64_t layers = m->n_global_layers + m->n_window_layers, B = I->c->block;
    uint64_t eq = tokens;
    if (m->n_window_layers && layers && tokens > m->window) {
        const uint64_t before = tokens - fresh;
        uint64_t wt = (before < m->window - 1 ? before : m->window - 1) + fresh + B;
        if (wt > tokens)
            wt = tokens;
        const uint64_t held = m->n_global_layers * tokens + m->n_window_layers * wt;
        eq = held / layers + (held % layers != 0);
    }
    return (eq + B - 1) / B + (tokens ? I->state_blocks : 0);
}

/* Evicts unreferenced prefixes, least recent first, until `need` blocks are
 * free or none is left. */
static void evict(struct inst *I, uint64_t need)
{
    while (I->free_blocks < need && I->pc.tail) {
        size_t i = I->pc.tail - 1;
        lru_unlink(&I->pc, i);
        I->free_blocks += I->pc.e[i].blocks;
        pc_delete(&I->pc, i);
    }
}

/* Takes n free blocks of I's pool (the caller has seen them free), the
 * peak kept at every taking: the most blocks held at once. */
static void take(struct inst *I, uint64_t n)
{
    I->free_blocks -= n;
    if (I->kv_blocks - I->free_blocks > I->peak)
        I->peak = I->kv_blocks - I->free_blocks;
}

/* Gives q the blocks for `tokens` more tokens; false when they are not
 * free. A window model's sequence gives back the blocks its windows have
 * passed. */
static bool reserve(struct inst *I, struct req *q, uint64_t tokens)
{
    /* the common case, a token that fits the blocks held: no division
     * (a window model's blocks move both ways: always counted) */
    if (!I->m->n_window_layers && q->blocks >= I->state_blocks &&
        q->computed + tokens <= (q->blocks - I->state_blocks + q->shared) * I->c->block)
        return true;
    /* (the prefix's tokens, its whole blocks, held by its entry) */
    const uint64_t span = q->computed + tokens, pre = q->shared * I->c->block;
    const uint64_t own = span > pre ? span - pre : 0;
    const uint64_t need = blocks_for(I, own, tokens < own ? tokens : own);
    if (need <= q->blocks) {
        I->free_blocks += q->blocks - need;
        q->blocks = need;
        return true;
    }
    if (need - q->blocks > I->free_blocks)
        evict(I, need - q->blocks);
    if (need - q->blocks > I->free_blocks)
        return false;
    take(I, need - q->blocks);
    q->blocks = need;
    return true;
}

/* Lets go of q's prefix entry: an unfinished one (q computed it) goes with
 * its blocks; a ready one loses a reference and waits in the LRU list. */
static void pfx_detach(struct inst *I, struct req *q)
{
    if (!q->pfx)
        return;
    size_t i = q->pfx - 1;
    struct pfx *e = &I->pc.e[i];
    if (!e->ready) {
        I->free_blocks += e->blocks;
        pc_delete(&I->pc, i);
    } else if (--e->ref == 0) {
        lru_push(&I->pc, i);
    }
    q->pfx = 0;
    q->shared = 0;
}

/* At admission with nothing computed: the tokens found cached. By id: a
 * ready entry's whole blocks (at most the prompt less one token); an id not
 * held starts an entry that q fills (its blocks taken now), when they can
 * be had. Without an id: prefix_hit of the prompt (at most all but one
 * token). Returns IC_OK or IC_ENOMEM. */
static int pfx_attach(struct sim *s, struct inst *I, struct req *q)
{
    const struct ic_sim_cfg *c = s->c;
    uint64_t cached = 0;
    if (q->has_pfx) {
        uint64_t P = q->pfx_tokens < q->prompt - 1 ? q->pfx_tokens : q->prompt - 1;
        uint64_t nb = P / I->c->block;
        if (!nb)
            goto done;
        size_t i = pc_find(&I->pc, q->pfx_id);
        if (i) {
            struct pfx *e = &I->pc.e[i - 1];
            if (!e->ready)
                goto done; /* being computed by another: computed again */
            if (e->ref++ == 0)
                lru_unlink(&I->pc, i - 1);
            q->pfx = i;
            /* its tokens, in whole blocks (the entry holds its windows'
             * and a hybrid's state beside them) */
            const uint64_t tb = e->tokens / I->c->block;
            q->shared = nb < tb ? nb : tb;
            cached = q->shared * I->c->block;
        } else {
            /* a linear-attention hybrid's prefix is of use only with the
             * state at its end: the entry keeps a copy beside its tokens */
            const uint64_t nb_all = blocks_for(I, nb * I->c->block, 0);
            if (I->free_blocks < nb_all)
                evict(I, nb_all);
            if (I->free_blocks < nb_all)
                goto done;
            size_t k;
            if (pc_new(&I->pc, q->pfx_id, &k))
                return IC_ENOMEM;
            struct pfx *e = &I->pc.e[k];
            e->tokens = nb * I->c->block;
            e->blocks = nb_all;
            e->ref = 1;
            take(I, nb_all);
            q->pfx = k + 1;
            q->shared = nb;
        }
    } else if (c->prefix_hit > 0) {
        cached = (uint64_t)floor(c->prefix_hit * (double)q->prompt);
        if (cached > q->prompt - 1)
            cached = q->prompt - 1;
    }
done:
    q->computed = cached;
    if (!q->admitted_once)
        q->cached = cached;
    return IC_OK;
}

/* Whether q only needs its next token (its KV handed over and landed, or
 * swapped back); a sequence whose KV is on its way needs it to land. */
static bool decode_ready(const struct req *q)
{
    return !q->xfer && q->gen && q->computed == q->prompt + q->gen - 1;
}

static bool wants_prefill(const struct req *q)
{
    return q->computed < q->prompt + q->gen - (q->gen ? 1 : 0);
}

/* The blocks q takes at most on server I from here with prefill chunks of
 * `chunk` tokens: its prompt's last chunk (a prefill server's last need),
 * or its last token. blocks_for grows with the span and with the tokens
 * computed in the step, so these bound its need from above: the
 * --max-tokens a refusal names lets it finish (tests/test_sim.c finds
 * one token more refused where it checks). */
static uint64_t most_blocks(const struct inst *I, const struct req *q, uint64_t chunk)
{
    const uint64_t pre = q->shared * I->c->block, target = q->prompt + q->gen;
    const uint64_t total = I->role == ROLE_PREFILL ? q->prompt : q->prompt + q->output;
    const uint64_t own_p = target > pre ? target - pre : 0, own_t = total > pre ? total - pre : 0;
    const uint64_t a = blocks_for(I, own_p, chunk < own_p ? chunk : own_p),
                   b = blocks_for(I, own_t, own_t ? 1 : 0);
    return a > b ? a : b;
}

/* The option that gives a server of this role more chips, for a hint. */
static const char *more_chips(enum role role)
{
    return role == ROLE_PREFILL ? "more chips for the prefill server (--prefill-chips)"
                                : "more chips (--chips)";
}

/* A request running alone whose next tokens the KV pool cannot take (or,
 * disaggregated, whose KV the decode server's empty pool cannot take): no
 * preemption frees a block for it, so it would never finish. Where its
 * prompt is being prefilled and a smaller chunk would fit (a sliding
 * window holds its last W - 1 tokens and the chunk's), --max-tokens is
 * named with the largest chunk that lets it finish. */
static int too_long(struct sim *s, const struct inst *I, const struct req *q)
{
    const char *pool = I->role == ROLE_PREFILL  ? "the prefill server's pool of"
                       : I->role == ROLE_DECODE ? "the decode server's pool of"
                                                : "the pool's";
    const char *chips = more_chips(I->role);
    uint64_t fits = 0;
    if (wants_prefill(q) && !q->src) {
        /* alone: the step's whole budget is its chunk */
        const uint64_t left = q->prompt + q->gen - q->computed;
        const uint64_t chunk = left < I->c->max_tokens ? left : I->c->max_tokens;
        if (chunk > 1 && most_blocks(I, q, 1) <= I->kv_blocks &&
            most_blocks(I, q, chunk) > I->kv_blocks) {
            uint64_t lo = 1, hi = chunk; /* fits at lo, not at hi */
            while (hi - lo > 1) {
                const uint64_t mid = lo + (hi - lo) / 2;
                if (most_blocks(I, q, mid) <= I->kv_blocks)
                    lo = mid;
                else
                    hi = mid;
            }
            fits = lo;
        }
    }
    char chunks[96] = "";
    if (fits)
        snprintf(chunks, sizeof chunks,
                 " with prefill chunks of up to %llu tokens (--max-tokens)",
                 (unsigned long long)I->c->max_tokens);
    ic_err_set(s->err, IC_EINVAL, NULL, 0, 0,
               "a request of %llu prompt and %llu output tokens needs more KV blocks than %s "
               "%llu (of %llu tokens each)%s: it can never finish",
               (unsigned long long)q->prompt, (unsigned long long)q->output, pool,
               (unsigned long long)I->kv_blocks, (unsigned long long)I->c->block, chunks);
    if (fits)
        ic_err_hint(s->err, "--max-tokens %llu or less lets it finish (a sliding-window layer "
                            "holds its window's last tokens and the step's chunk); or %s, or a "
                            "smaller KV type (--kv)",
                    (unsigned long long)fits, chips);
    else
        ic_err_hint(s->err, "shorter prompts or outputs, %s, or a smaller KV type (--kv)", chips);
    return IC_EINVAL;
}

/* A copy of q's cache between server I's HBM and the host (a swap out or
 * back in): its time rides on I's next step and adds to the run's. */
static void host_copy(struct sim *s, struct inst *I, const struct req *q)
{
    const double t = ic_kv_host_copy_s(s->m, s->hw, q->computed, I->c->dec.kv, I->c->dec.chips,
                                       I->c->dec.kv_copy);
    I->copy_s += t;
    s->out->swap_s += t;
}

/* The queue's head r joins server I's running sequences. */
static void admit_head(struct inst *I, size_t r)
{
    I->w_head = (I->w_head + 1) % I->wait_cap;
    I->w_n--;
    I->running[I->n_run++] = r;
}

/* Takes the sequence at pos off the running list: recompute frees its
 * blocks (its prompt and output prefilled again on readmission); swap
 * copies its KV to the host (the copy charged to the server's next step)
 * and frees the blocks. Either way it goes back to the queue's front. */
static int preempt(struct sim *s, struct inst *I, size_t pos)
{
    size_t r = I->running[pos];
    struct req *q = &s->pool[r];
    s->out->preemptions++;
    q->preempts++;
    if (s->c->preempt == IC_PREEMPT_SWAP) {
        host_copy(s, I, q);
        s->out->swaps++;
        q->swapped = true;
        /* the copy holds every cached token, the prefix's too: it comes
         * back into blocks of its own */
        pfx_detach(I, q);
    } else {
        pfx_detach(I, q);
        q->computed = 0;
    }
    I->free_blocks += q->blocks;
    q->blocks = 0;
    q->sched = 0;
    memmove(&I->running[pos], &I->running[pos + 1], (I->n_run - pos - 1) * sizeof *I->running);
    I->n_run--;
    return wait_push(I, r, true);
}

/* The newest running sequence that can be preempted (all but those whose
 * KV is on its way, which hold their blocks until it lands), or n_run
 * where none can; *ready counts them. */
static size_t victim(const struct sim *s, const struct inst *I, size_t *ready)
{
    size_t v = I->n_run, n = 0;
    for (size_t i = I->n_run; i-- > 0;)
        if (!s->pool[I->running[i]].xfer) {
            if (v == I->n_run)
                v = i;
            n++;
        }
    *ready = n;
    return v;
}

/* Starts sending r's KV from its prefill server to the server it is bound
 * for (ic_disagg_kv_transfer_s); it lands then (on_landing). */
static int hand_over(struct sim *s, size_t r)
{
    const struct req *q = &s->pool[r];
    double x = ic_disagg_kv_transfer_s(s->m, s->hw, q->computed, s->c->dec.kv,
                                       s->cfg[1].dec.chips, s->cfg[0].dec.chips, s->out->chips);
    s->xfer_s += x;
    s->out->handoffs++;
    /* over the sending prefill server's links and the receiving decode
     * server's: one hand-off at a time on each, in the order they start;
     * a later one waits until both are free, as two sends would share
     * them */
    struct inst *P = &s->in[q->src - 1], *D = &s->in[q->inst];
    double start = s->now;
    start = P->link_free > start ? P->link_free : start;
    start = D->link_free > start ? D->link_free : start;
    P->link_free = D->link_free = start + x;
    return heap_push(s, start + x, r);
}

/* Forms and times server I's next step at s->now; leaves it idle when there
 * is nothing it can run. */
static int form(struct sim *s, struct inst *I)
{
    const struct ic_sim_cfg *c = I->c;
    int rc;
    I->dirty = false;
    bool force_decodes = false, preempted = false;
form:;
    uint64_t budget = c->max_tokens, n_dec = 0, n_pre = 0, pre_tok = 0;
    double ctx_dec = 0, ctx_pre = 0;
    bool any_prefill_waiting = I->w_n > 0 && !decode_ready(&s->pool[I->wait[I->w_head]]);
    for (size_t i = 0; i < I->n_run && !any_prefill_waiting; i++)
        if (wants_prefill(&s->pool[I->running[i]]))
            any_prefill_waiting = true;
    bool decodes = c->sched == IC_SCHED_CHUNKED || !any_prefill_waiting || force_decodes;
    /* 1. every running decode its token, preempting the newest when a
     * block is short */
    size_t d = 0;
    for (; decodes && d < I->n_run && budget; d++) {
        struct req *q = &s->pool[I->running[d]];
        if (!decode_ready(q))
            continue;
        bool wait = false;
        while (!reserve(I, q, 1)) {
            size_t ready;
            const size_t v = victim(s, I, &ready);
            if (ready == 1) {
                /* alone, and the pool cannot hold it: it never ends;
                 * unless KV on its way holds blocks (it waits for it to
                 * land, when it can be preempted) */
                if (I->n_run == ready)
                    return too_long(s, I, q);
                wait = true;
                break;
            }
            preempted = true;
            if (v == d) { /* it is the newest: it goes itself */
                if ((rc = preempt(s, I, d)))
                    return rc;
                q = NULL;
                break;
            }
            if ((rc = preempt(s, I, v)))
                return rc;
        }
        if (!q)
            break;
        if (wait)
            continue;
        q->sched = 1;
        budget--;
        n_dec++;
        ctx_dec += (double)q->computed;
    }
    /* 2. then, in a step whose decodes ran every running sequence (not a
     * prefill-first step of prompts alone, nor one whose --max-tokens ran
     * out first: the rest have not taken their blocks) and preempted none
     * (vLLM's scheduler serves the running sequences first, and admits none
     * in a step that preempts), sequences that only need their next token
     * join as blocks allow: swapped back (their token in this step where
     * the budget allows), or (a decode server) handed over: their blocks
     * reserved here, the pull of their KV starts, and its prefill server
     * holds its blocks until it lands */
    const bool all_ran = decodes && d == I->n_run;
    while (!preempted && all_ran && I->w_n && I->n_run < c->max_seqs) {
        size_t r = I->wait[I->w_head];
        struct req *q = &s->pool[r];
        if (!decode_ready(q))
            break;
        if (!reserve(I, q, 1)) {
            /* the pool empty (a decode server holds no prefix), and still
             * too small for the KV handed over */
            if (q->src && !I->n_run && I->free_blocks == I->kv_blocks)
                return too_long(s, I, q);
            break;
        }
        if (q->swapped) {
            host_copy(s, I, q);
            q->swapped = false;
        }
        admit_head(I, r);
        if (q->src) { /* a hand-over (never swapped): its pull starts */
            q->xfer = true;
            if ((rc = hand_over(s, r)))
                return rc;
        } else if (budget) {
            q->sched = 1;
            budget--;
            n_dec++;
            ctx_dec += (double)q->computed;
        }
    }
    /* 3. prompts: the running ones' next chunks, then the queue's */
    bool chunk = c->sched == IC_SCHED_CHUNKED;
    for (size_t i = 0; i < I->n_run && budget && !(decodes && !chunk); i++) {
        struct req *q = &s->pool[I->running[i]];
        uint64_t target = q->prompt + q->gen;
        if (q->sched || !wants_prefill(q))
            continue;
        uint64_t left = target - q->computed, t = left < budget ? left : budget;
        if (!chunk && t < left && (n_pre || n_dec))
            break;
        if (!reserve(I, q, t))
            break;
        q->sched = t;
        budget -= t;
        n_pre++;
        pre_tok += t;
        ctx_pre += (double)q->computed;
    }
    while (!preempted && I->w_n && budget && I->n_run < c->max_seqs && !(decodes && !chunk)) {
        size_t r = I->wait[I->w_head];
        struct req *q = &s->pool[r];
        if (q->src) /* a hand-over: pulled in step 2 only */
            break;
        bool fresh = !q->computed && !q->swapped;
        if (fresh && I->role != ROLE_DECODE && (rc = pfx_attach(s, I, q)))
            return rc;
        bool dec = decode_ready(q);
        uint64_t left = dec ? 1 : q->prompt + q->gen - q->computed;
        uint64_t t = left < budget ? left : budget;
        if ((!chunk && t < left && (n_pre || n_dec)) || !reserve(I, q, t)) {
            if (fresh) { /* not admitted after all */
                pfx_detach(I, q);
                q->computed = 0;
            }
            break;
        }
        if (q->swapped) {
            host_copy(s, I, q);
            q->swapped = false;
        }
        if (fresh && I->role != ROLE_DECODE) {
            /* a readmission after recompute looks its prompt up again */
            s->out->prefix_hit_tokens += q->computed;
            s->out->prefix_query_tokens += q->prompt;
        }
        q->admitted_once = true;
        admit_head(I, r);
        q->sched = t;
        budget -= t;
        if (dec) {
            n_dec++;
            ctx_dec += (double)q->computed;
        } else {
            n_pre++;
            pre_tok += t;
            ctx_pre += (double)q->computed;
        }
    }
    size_t ready = 0, v = 0;
    if (!n_dec && !n_pre && I->n_run)
        v = victim(s, I, &ready);
    if (!n_dec && !n_pre && ready) {
        /* nothing runs while sequences hold blocks: prefill-first lets
         * the decodes run (they free blocks as they finish); else the
         * newest sequence gives its blocks back so that the older ones can
         * go on. Where blocks are held for KV on its way (a decode
         * server's pulls) or for a decode server to pull (a prefill
         * server's sequences done), they come free or can be preempted
         * later: the last one waits. */
        if (!decodes) {
            force_decodes = true;
            goto form;
        }
        if (ready == 1 && (I->n_run > 1 || I->parked))
            return IC_OK; /* idle until a landing */
        if (ready == 1) /* alone, and the pool cannot take its next tokens */
            return too_long(s, I, &s->pool[I->running[v]]);
        if ((rc = preempt(s, I, v)))
            return rc;
        preempted = true;
        goto form;
    }
    if (!n_dec && !n_pre && preempted && I->w_n) {
        /* (cannot happen where step 1 keeps its oldest sequence, but a
         * server left idle with a queue would never be woken) */
        preempted = false;
        goto form;
    }
    if (!n_dec && !n_pre)
        return IC_OK; /* idle */
    double dt;
    if ((rc = step_time(I->table, s->m, s->hw, c, n_dec, n_dec ? ctx_dec / (double)n_dec : 0,
                        n_pre, pre_tok, n_pre ? ctx_pre / (double)n_pre : 0, &dt, s->err)))
        return rc;
    dt += I->copy_s;
    I->copy_s = 0;
    /* the mean batch and KV share of each kind of server apart: a
     * prefill server's steps of a prompt or two beside a decode server's
     * batch read as neither */
    const int k = I->role == ROLE_PREFILL;
    s->occ_time[k] += (double)(I->kv_blocks - I->free_blocks) / (double)I->kv_blocks * dt;
    s->batch_time[k] += (double)(n_dec + n_pre) * dt;
    s->busy[k] += dt;
    s->out->steps++;
    s->out->prefill_tokens += pre_tok;
    I->busy = true;
    I->end = s->now + dt;
    ends_push(s, (size_t)(I - s->in));
    return IC_OK;
}

static int finish(struct sim *s, struct inst *I, size_t r)
{
    const struct ic_sim_cfg *c = s->c;
    struct req *q = &s->pool[r];
    const double now = s->now;
    bool counted = q->index >= c->warmup;
    s->out->prompt_tokens += q->prompt;
    s->out->output_tokens += q->output;
    double tpot = q->output > 1 ? (now - q->t_first) / (double)(q->output - 1) : 0;
    if (counted) {
        hist_add(&s->e2e, now - q->t_arr);
        if (q->output > 1)
            hist_add(&s->tpot, tpot);
        if (s->first_counted < 0 || q->t_arr + s->epoch < s->first_counted)
            s->first_counted = q->t_arr + s->epoch;
        s->out->counted++;
        s->out->counted_prompt_tokens += q->prompt;
        s->out->counted_output_tokens += q->output;
        if ((!(c->ttft_slo_s > 0) || q->t_first - q->t_arr <= c->ttft_slo_s) &&
            (!(c->tpot_slo_s > 0) || tpot <= c->tpot_slo_s))
            s->good++;
    }
    if (c->on_request) {
        const double e = s->epoch;
        /* the decode server (replica) that served it; none for a
         * one-token output a prefill server finished */
        struct ic_sim_request x = {q->index,
                                   q->inst >= s->n_pre ? q->inst - s->n_pre : IC_SIM_NO_REPLICA,
                                   q->t_arr + e, q->t_first + e, now + e,
                                   q->t_first - q->t_arr, tpot, now - q->t_arr,
                                   q->prompt, q->output, q->cached, q->preempts, counted};
        int rc = c->on_request(c->on_request_ctx, &x);
        if (rc)
            return rc;
    }
    s->last_finish = now + s->epoch;
    s->finished++;
    if (I) {
        I->free_blocks += q->blocks;
        pfx_detach(I, q);
        I->load--;
    }
    s->free_list[s->n_free++] = r;
    return IC_OK;
}

static size_t route(struct sim *s, bool decode)
{
    size_t lo = 0, n = s->n_in;
    if (s->n_pre) {
        lo = decode ? s->n_pre : 0;
        n = decode ? s->n_in - s->n_pre : s->n_pre;
    }
    if (s->c->route == IC_ROUTE_LEAST_LOADED) {
        size_t best = lo;
        for (size_t i = lo + 1; i < lo + n; i++)
            if (s->in[i].load < s->in[best].load)
                best = i;
        return best;
    }
    return lo + (size_t)(s->rr[decode]++ % n);
}

static int enqueue(struct sim *s, size_t r, bool decode)
{
    size_t i = route(s, decode);
    s->pool[r].inst = i;
    s->in[i].load++;
    mark_dirty(s, &s->in[i]);
    return wait_push(&s->in[i], r, false);
}

static int on_arrival(struct sim *s)
{
    const struct ic_sim_cfg *c = s->c;
    if (!s->n_free && grow_pool(s))
        return IC_ENOMEM;
    size_t r = s->free_list[--s->n_free];
    struct req *q = &s->pool[r];
    memset(q, 0, sizeof *q);
    q->t_arr = s->next.t;
    q->index = s->next_index++;
    if (s->tracing) {
        q->prompt = s->next.prompt;
        q->output = s->next.output;
        q->has_pfx = s->next.has_pfx;
        q->pfx_id = s->next.pfx_id;
        q->pfx_tokens = s->next.pfx_tokens ? s->next.pfx_tokens : c->prefix_tokens;
    } else {
        q->prompt = draw(s, &c->prompt);
        q->output = draw(s, &c->output);
    }
    if (q->prompt + q->output > s->out->longest)
        s->out->longest = q->prompt + q->output;
    s->arrived++;
    int rc;
    if ((rc = enqueue(s, r, false)))
        return rc;
    if (c->source != IC_SRC_TRACE && c->rate > 0)
        s->gen_t += gsl_ran_exponential(s->rng, 1 / c->rate);
    rc = fetch_next(s);
    return rc < 0 ? rc : IC_OK;
}

/* A hand-off has landed: its prefill server lets its blocks go, the
 * first token is out, and the decode server (which holds its blocks since
 * the pull) decodes it from its next step. */
static int on_landing(struct sim *s, size_t r)
{
    struct req *q = &s->pool[r];
    struct inst *P = &s->in[q->src - 1];
    P->free_blocks += q->src_blocks;
    q->src_blocks = 0;
    q->pfx = q->src_pfx;
    pfx_detach(P, q);
    q->src = q->src_pfx = 0;
    P->parked--;
    P->load--;
    mark_dirty(s, P);
    q->t_first = q->t_last = s->now;
    if (q->index >= s->c->warmup)
        hist_add(&s->ttft, s->now - q->t_arr);
    if (q->gen >= q->output)
        return finish(s, NULL, r);
    q->xfer = false;
    mark_dirty(s, &s->in[q->inst]);
    return IC_OK;
}

/* Server I's step ends at s->now: chunks and tokens land. */
static int outcome(struct sim *s, struct inst *I)
{
    const struct ic_sim_cfg *c = s->c;
    I->busy = false;
    mark_dirty(s, I);
    int rc;
    for (size_t i = 0; i < I->n_run;) {
        size_t r = I->running[i];
        struct req *q = &s->pool[r];
        if (!q->sched) {
            i++;
            continue;
        }
        q->computed += q->sched;
        q->sched = 0;
        if (q->pfx) {
            struct pfx *e = &I->pc.e[q->pfx - 1];
            if (!e->ready && q->computed >= e->tokens)
                e->ready = true;
        }
        if (q->computed < q->prompt + q->gen) {
            i++;
            continue;
        }
        /* a token: the first, or one more */
        q->gen++;
        bool counted = q->index >= c->warmup;
        bool leaves = false;
        if (q->gen == 1 && I->role == ROLE_PREFILL && q->gen < q->output) {
            /* its prompt done, it leaves the running batch; this server
             * holds its KV (its blocks and its prefix's) until it lands on
             * a decode server, which pulls it once it has reserved blocks
             * for it: a full decode pool holds the prefill server back. A
             * single token needs no decode server: it finishes here, its
             * token out now (below). */
            q->src = (size_t)(I - s->in) + 1;
            q->src_blocks = q->blocks;
            q->src_pfx = q->pfx;
            q->blocks = q->shared = 0;
            q->pfx = 0;
            I->parked++;
            if ((rc = enqueue(s, r, true)))
                return rc;
            leaves = true;
        } else {
            if (q->gen == 1) {
                q->t_first = s->now;
                if (counted)
                    hist_add(&s->ttft, s->now - q->t_arr);
            } else if (counted) {
                hist_add(&s->itl, s->now - q->t_last);
            }
            q->t_last = s->now;
            if (q->gen >= q->output) {
                if ((rc = finish(s, I, r)))
                    return rc;
                leaves = true;
            }
        }
        if (!leaves) {
            i++;
            continue;
        }
        memmove(&I->running[i], &I->running[i + 1], (I->n_run - i - 1) * sizeof *I->running);
        I->n_run--;
    }
    return IC_OK;
}

/* The KV pool of a server of c->dec.chips: HBM left per chip after the
 * weights and the workspace of max_seqs sequences, in blocks of the server
 * (a chip holds 1/g of the sequences where the batch splits g ways); and
 * the blocks one sequence's linear-attention state takes (0 without). */
static int kv_pool(const struct ic_model_stats *m, const struct ic_hw *hw,
                   const struct ic_sim_cfg *c, enum role role, uint64_t *blocks,
                   uint64_t *state_blocks, struct ic_err *err)
{
    /* which server, and the option of its chips */
    const char *who = role == ROLE_PREFILL ? "a prefill server of "
                      : role == ROLE_DECODE ? "a decode server of "
                                            : "";
    const char *more = more_chips(role);
    struct ic_step one = {.layout = {c->dec.chips, 1, 1, 1, c->dec.kv_copy},
                          .kind = {{1, 1, 1, 1, IC_PHASE_DECODE}},
                          .n_kinds = 1,
                          .weights = c->dec.weights,
                          .kv = c->dec.kv,
                          .compute = c->dec.compute,
                          .attn = IC_ATTN_FLASH};
    struct ic_load l;
    int rc = ic_step_load(m, &one, &l, err);
    if (rc)
        return rc;
    const struct ic_mem mk = ic_step_mem_of(&l, 0);
    const double tok_B = ic_step_kv_token_bytes(m, 1, c->dec.kv) / l.kv_head_div;
    const double left = c->mem_util * hw->hbm_capacity_B - mk.weights_bytes;
    const double work = (double)c->max_seqs / (double)c->dec.chips * mk.work_seq_bytes;
    const double room = left - work;
    const double tokens = room / tok_B * (double)mk.batch_ways;
    if (!(tokens >= (double)c->block)) {
        /* which of the three leaves no room: the weights, the sequences'
         * workspace, or a block larger than what is left */
        const double blk = (double)c->block * tok_B / (double)mk.batch_ways;
        if (!(left > 0)) {
            ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                       "the model on %s%llu x %s leaves no room for the KV cache (%.3g GB of "
                       "weights per chip of the %.3g GB usable)",
                       who, (unsigned long long)c->dec.chips, hw->name, mk.weights_bytes / 1e9,
                       c->mem_util * hw->hbm_capacity_B / 1e9);
            ic_err_hint(err, "%s, smaller weights (--weights), or a larger memory share "
                             "(--mem-util)", more);
        } else if (!(room > 0)) {
            ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                       "the workspace of %llu sequence%s (%.3g GB a chip) takes the %.3g GB a "
                       "chip the weights leave on %s%llu x %s: no room for the KV cache",
                       (unsigned long long)c->max_seqs, c->max_seqs == 1 ? "" : "s",
                       work / 1e9, left / 1e9, who, (unsigned long long)c->dec.chips,
                       hw->name);
            ic_err_hint(err, "fewer sequences at once (--max-seqs) or %s", more);
        } else {
            ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                       "a KV block of %llu tokens (%.3g GB a chip) is larger than the %.3g GB "
                       "a chip left after the weights and the workspace",
                       (unsigned long long)c->block, blk / 1e9, room / 1e9);
            ic_err_hint(err, m->n_state_layers
                                 ? "the block is aligned to a linear-attention layer's state "
                                   "(as vLLM's hybrid cache manager does): fewer --max-seqs, "
                                   "or more chips"
                                 : "a smaller --block (vLLM's default is 16 tokens), fewer "
                                   "--max-seqs, or more chips");
        }
        return IC_EINVAL;
    }
    *blocks = (uint64_t)fmin(tokens / (double)c->block, 1e15);
    /* each state layer takes whole pages of one attention layer's block
     * (vLLM pads a layer's state to its page), the pool's block holding
     * one page of each attention layer */
    const double kv_layers = (double)(m->n_global_layers + m->n_window_layers);
    *state_blocks = 0;
    if (m->n_state_layers && kv_layers > 0) { /* derive refuses a model of state layers alone */
        const double page = (double)c->block * tok_B / kv_layers;
        /* a layer's state on a chip holding the sequence */
        const double per_layer = m->state_bytes_per_layer *
                                 ic_step_state_chip_share(m, c->dec.chips, c->dec.kv_copy);
        *state_blocks = (uint64_t)ceil((double)m->n_state_layers * ceil(per_layer / page) /
                                       kv_layers);
    }
    return IC_OK;
}

int ic_sim_run(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_sim_cfg *c, struct ic_sim_result *out, struct ic_err *err)
{
    memset(out, 0, sizeof *out);
    const bool trace = c->source == IC_SRC_TRACE || c->source == IC_SRC_TRACE_LENGTHS;
    if ((!trace && !c->requests) || !c->max_seqs || !c->max_tokens || !c->block ||
        !c->dec.chips || !(c->rate >= 0) || !isfinite(c->rate) || !(c->prompt.mean >= 1) ||
        !(c->output.mean >= 1) || !(c->prompt.cv >= 0) || !(c->output.cv >= 0) ||
        !(c->mem_util > 0 && c->mem_util <= 1) || (c->requests && c->warmup >= c->requests) ||
        c->source >= IC_SRC_COUNT || c->route >= IC_ROUTE_COUNT || c->preempt >= IC_PREEMPT_COUNT ||
        !(c->prefix_hit >= 0 && c->prefix_hit < 1) || (trace && !c->trace))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the simulation needs requests above the warm-up, max sequences, "
                          "a token budget, a block, chips and lengths of at least 1, a rate "
                          "of 0 or more, a memory share in (0, 1], a prefix hit share in "
                          "[0, 1) and, for a trace, its path");
    if (c->preempt == IC_PREEMPT_SWAP && !(hw->host_B_s > 0)) {
        const int rc = ic_err_set(err, IC_EINVAL, hw->path, hw->locs[IC_HWF_HOST].line,
                                  hw->locs[IC_HWF_HOST].col,
                                  "%s has no host link: preemption by swap needs one",
                                  hw->name);
        ic_err_hint(err, "--preempt recompute (the default), or a host_link section with the "
                         "link's one-way bandwidth, e.g. 'bandwidth_one_way: 64 GB/s'");
        return rc;
    }
    const uint64_t R = c->replicas ? c->replicas : 1;
    /* the prefill servers of a disaggregated layout: one per replica, or
     * as many as asked */
    const uint64_t P = !c->prefill_chips ? 0 : c->prefill_servers ? c->prefill_servers : R;
    if (R > IC_SIM_MAX_REPLICAS || P > IC_SIM_MAX_REPLICAS)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "%llu %s: at most %d",
                          (unsigned long long)(R > IC_SIM_MAX_REPLICAS ? R : P),
                          R > IC_SIM_MAX_REPLICAS ? "replicas" : "prefill servers",
                          IC_SIM_MAX_REPLICAS);
    if (c->prefill_servers && !c->prefill_chips)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "prefill servers are a disaggregated layout's: give their chips");
    /* every chip of the layout (the hand-off's span: ic_disagg_kv_transfer_s) */
    out->chips = R * c->dec.chips + P * c->prefill_chips;
    out->prefill_servers = P;
    struct sim s = {.m = m, .hw = hw, .c = c, .out = out, .err = err};
    s.first_counted = -1;
    s.cfg[0] = *c;
    s.cfg[1] = *c;
    s.cfg[1].dec.chips = c->prefill_chips;
    /* one block for the layout, the decode servers' (the hand-off moves
     * whole blocks) */
    s.cfg[0].block = s.cfg[1].block = out->block =
        ic_step_paged_block(m, c->dec.kv, c->block, c->dec.chips, c->dec.kv_copy);
    int rc;
    uint64_t state_blocks[2] = {0, 0};
    if ((rc = kv_pool(m, hw, &s.cfg[0], P ? ROLE_DECODE : ROLE_COLOC, &out->kv_blocks,
                      &state_blocks[0], err)))
        return rc;
    if (c->prefill_chips &&
        ((rc = ic_disagg_path_check(m, hw, c->dec.kv, c->prefill_chips, c->dec.chips,
                                    out->chips, err)) ||
         (rc = kv_pool(m, hw, &s.cfg[1], ROLE_PREFILL, &out->prefill_kv_blocks,
                       &state_blocks[1], err))))
        return rc;
    s.n_pre = P;
    s.n_in = s.n_pre + R;
    s.in = calloc(s.n_in, sizeof *s.in);
    s.ends = calloc(s.n_in, sizeof *s.ends);
    /* a pass over the listed servers keeps them until it ends, and each
     * may be listed once more meanwhile (its flag cleared as it is looked
     * at): twice the servers at most */
    s.dq = calloc(2 * s.n_in, sizeof *s.dq);
    s.rng = gsl_rng_alloc(gsl_rng_mt19937);
    struct hist *hs[4] = {&s.ttft, &s.tpot, &s.itl, &s.e2e};
    bool ok = s.rng && s.in && s.ends && s.dq;
    for (size_t i = 0; ok && i < s.n_in; i++) {
        struct inst *I = &s.in[i];
        bool pre = i < s.n_pre;
        I->role = pre ? ROLE_PREFILL : s.n_pre ? ROLE_DECODE : ROLE_COLOC;
        I->c = &s.cfg[pre];
        I->m = m;
        I->table = &s.table[pre];
        I->kv_blocks = I->free_blocks = pre ? out->prefill_kv_blocks : out->kv_blocks;
        I->state_blocks = state_blocks[pre];
        ok = (I->running = malloc(c->max_seqs * sizeof *I->running)) != NULL;
    }
    for (int i = 0; i < 4; i++)
        ok = ok && (hs[i]->bin = calloc(H_BINS, sizeof *hs[i]->bin));
    if (!ok) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    gsl_rng_set(s.rng, c->seed);
    s.limit = c->requests;
    if (trace) {
        errno = 0;
        s.tr.path = c->trace;
        s.tr.pfx_default = c->prefix_tokens;
        s.tr.f = fopen(c->trace, "r");
        if (!s.tr.f) {
            int e = errno;
            rc = ic_err_set(err, e == ENOENT ? IC_ENOENT : IC_EIO, c->trace, 0, 0,
                            "cannot open the trace: %s", strerror(e ? e : EIO));
            ic_err_hint(err, "--trace takes a CSV file (or a pipe: /dev/stdin) of "
                             "arrival_s,prompt,output lines");
            goto done;
        }
        struct stat st;
        if (fstat(fileno(s.tr.f), &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = ic_err_set(err, IC_EINVAL, c->trace, 0, 0, "is a folder; expected a trace file");
            ic_err_hint(err, "--trace takes a CSV file (or a pipe: /dev/stdin) of "
                             "arrival_s,prompt,output lines");
            goto done;
        }
        s.tracing = true;
    }
    if ((rc = fetch_next(&s)) < 0)
        goto done;
    for (;;) {
        /* the next event: an arrival, a hand-off landing, a step's end
         * (ties in that order; servers by index) */
        double t_arr = s.have_next ? s.next.t : INFINITY;
        double t_hand = s.n_heap ? s.heap[0].t : INFINITY;
        const size_t who = s.n_ends ? s.ends[0] : 0;
        double t_end = s.n_ends ? s.in[who].end : INFINITY;
        double t = t_arr < t_hand ? t_arr : t_hand;
        t = t < t_end ? t : t_end;
        if (t > s.now) {
            /* everything at now has happened: idle servers with news start
             * (or a decode server starts a pull: a landing to come) */
            const uint64_t pulls = s.out->handoffs;
            bool started = false;
            /* by index, as a scan of every server would (a busy one is
             * listed again when its step ends) */
            const size_t n = s.n_dq;
            qsort(s.dq, n, sizeof *s.dq, cmp_index);
            for (size_t k = 0; k < n; k++) {
                struct inst *I = &s.in[s.dq[k]];
                I->queued = false;
                if (I->dirty && !I->busy) {
                    if ((rc = form(&s, I)))
                        goto fail;
                    started = started || I->busy;
                }
            }
            memmove(s.dq, s.dq + n, (s.n_dq - n) * sizeof *s.dq);
            s.n_dq -= n;
            if (started || s.out->handoffs != pulls)
                continue;
        }
        if (t == INFINITY)
            break;
        if (s.arrived == s.finished && t == t_arr && t >= 0x1p20) {
            /* the system is empty and the next event is an arrival far
             * from 0: move 0 there, so that step times keep their digits
             * beside a clock of ~1/rate x requests seconds (nothing in
             * flight holds a time; the reported times add epoch back) */
            /* a trace's own arrival exactly (a sum of moves can pass it) */
            s.epoch = s.tracing && c->source == IC_SRC_TRACE ? s.next.abs : s.epoch + t;
            s.gen_t -= t;
            for (size_t i = 0; i < s.n_in; i++)
                s.in[i].link_free = 0; /* no hand-off in flight: the links idle */
            s.next.t = 0;
            s.now = 0;
            t = t_arr = 0;
        }
        s.in_sys_time += (double)(s.arrived - s.finished) * (t - s.now);
        s.now = t;
        if (t_arr <= t_hand && t_arr <= t_end)
            rc = on_arrival(&s);
        else if (t_hand <= t_end) {
            struct hand h = heap_pop(&s);
            rc = on_landing(&s, h.r);
        } else {
            ends_pop(&s);
            rc = outcome(&s, &s.in[who]);
        }
        if (rc)
            goto fail;
    }
    /* every block back: each pool's free blocks and its prefix entries'
     * (none referenced once every request is done) make the pool */
    for (size_t i = 0; i < s.n_in; i++) {
        const struct inst *I = &s.in[i];
        uint64_t held = 0;
        for (size_t k = I->pc.tail; k; k = I->pc.e[k - 1].prev)
            held += I->pc.e[k - 1].blocks;
        if (s.finished == s.arrived && I->free_blocks + held != I->kv_blocks) {
            rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "internal error: server %zu ends with %llu + %llu blocks of its "
                            "%llu", i, (unsigned long long)I->free_blocks,
                            (unsigned long long)held, (unsigned long long)I->kv_blocks);
            ic_err_hint(err, "a fault of the simulation, not of the input: please report it");
            goto done;
        }
    }
    if (s.finished < s.arrived) {
        /* nothing left to happen and a request waits: the head of a queue
         * no step of its server can take. A decode server's first (one
         * preempted there, its recompute's chunk past the pool), else a
         * prefill server's; named as a refusal in a step is (too_long: its
         * pool, and --max-tokens where a smaller chunk lets it finish) */
        const struct inst *I = NULL;
        for (size_t k = 0; k < s.n_in && !I; k++) {
            const size_t i = (k + s.n_pre) % s.n_in; /* decode servers first */
            if (s.in[i].w_n)
                I = &s.in[i];
        }
        if (I)
            rc = too_long(&s, I, &s.pool[I->wait[I->w_head]]);
        else {
            rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "internal error: %llu requests unfinished, none waiting",
                            (unsigned long long)(s.arrived - s.finished));
            ic_err_hint(err, "a fault of the simulation, not of the input: please report it");
        }
        goto done;
    }
    if (!out->counted) {
        if (!s.arrived) {
            rc = ic_err_set(err, IC_EINVAL, c->trace, 0, 0, "no requests to simulate");
            ic_err_hint(err, "a trace lists one request a line below its header "
                             "'arrival_s,prompt,output'");
        } else {
            rc = ic_err_set(err, IC_EINVAL, c->trace, 0, 0,
                            "%llu request%s, none past the warm-up of %llu",
                            (unsigned long long)s.arrived, s.arrived == 1 ? "" : "s",
                            (unsigned long long)c->warmup);
            ic_err_hint(err, "a --warmup below the requests' count, or more requests");
        }
        goto done;
    }
    out->completed = s.finished;
    out->duration_s = s.last_finish;
    out->window_s = s.last_finish - (s.first_counted > 0 ? s.first_counted : 0);
    double W = out->window_s > 0 ? out->window_s : 1;
    out->requests_per_s = (double)out->counted / W;
    out->ttft = hist_stats(&s.ttft);
    out->tpot = hist_stats(&s.tpot);
    out->itl = hist_stats(&s.itl);
    out->e2e = hist_stats(&s.e2e);
    /* the counted requests' tokens over the window (not the mean of all
     * requests', warm-up included, times the counted rate) */
    out->output_tokens_per_s = (double)out->counted_output_tokens / W;
    out->total_tokens_per_s =
        (double)(out->counted_output_tokens + out->counted_prompt_tokens) / W;
    out->replicas = R;
    out->output_tokens_per_s_per_chip = out->output_tokens_per_s / (double)out->chips;
    out->goodput_per_s = s.good / W;
    out->slo_share = out->counted ? s.good / (double)out->counted : 0;
    out->mean_batch = s.busy[0] > 0 ? s.batch_time[0] / s.busy[0] : 0;
    out->mean_in_system = s.last_finish > 0 ? s.in_sys_time / s.last_finish : 0;
    out->kv_occupancy = s.busy[0] > 0 ? s.occ_time[0] / s.busy[0] : 0;
    out->prefill_mean_batch = s.busy[1] > 0 ? s.batch_time[1] / s.busy[1] : 0;
    out->prefill_kv_occupancy = s.busy[1] > 0 ? s.occ_time[1] / s.busy[1] : 0;
    for (size_t i = 0; i < s.n_in; i++) {
        uint64_t *pk = i < s.n_pre ? &out->prefill_peak_blocks : &out->peak_blocks;
        if (s.in[i].peak > *pk)
            *pk = s.in[i].peak;
    }
    out->kv_transfer_mean_s = out->handoffs ? s.xfer_s / (double)out->handoffs : 0;
    out->step_cache_hits = s.table[0].hits + s.table[1].hits;
    out->step_cache_misses = s.table[0].misses + s.table[1].misses;
    rc = IC_OK;
    goto done;
fail:
    if (rc == IC_ENOMEM)
        ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
done:
    if (s.tr.f)
        fclose(s.tr.f);
    for (int i = 0; i < 4; i++)
        free(hs[i]->bin);
    for (int k = 0; k < 2; k++) {
        free(s.table[k].keys);
        free(s.table[k].vals);
    }
    for (size_t i = 0; s.in && i < s.n_in; i++) {
        free(s.in[i].running);
        free(s.in[i].wait);
        pc_free(&s.in[i].pc);
    }
    free(s.in);
    free(s.ends);
    free(s.dq);
    free(s.heap);
    free(s.pool);
    free(s.free_list);
    if (s.rng)
        gsl_rng_free(s.rng);
    return rc;
}

bool ic_sim_has_slos(const struct ic_sim_cfg *c) { return c->ttft_slo_s > 0 || c->tpot_slo_s > 0; }

bool ic_sim_meets_slos(const struct ic_sim_cfg *c, const struct ic_sim_result *r)
{
    return (!(c->ttft_slo_s > 0) || r->ttft.p[IC_SIM_PCT - 1] <= c->ttft_slo_s) &&
           (!(c->tpot_slo_s > 0) || r->tpot.p[IC_SIM_PCT - 1] <= c->tpot_slo_s);
}

int ic_sim_capacity_bisect(const struct ic_model_stats *m, const struct ic_hw *hw,
                           const struct ic_sim_cfg *c, double lo, double hi, int iters,
                           double *cap, struct ic_sim_result *at, unsigned *runs,
                           struct ic_err *err)
{
    struct ic_sim_cfg k = *c;
    struct ic_sim_result r;
    /* a bracket over 4x wide is first narrowed at geometric midpoints to
     * within 4x, then `iters` runs halve it: arithmetic halvings alone
     * leave its low end unresolved (0.001 to 1000 requests/s: 6 runs never
     * went below 15.6 and read a capacity of about 3.5 as 0.001; 1.6 to
     * 100 read 3.07 as 1.6). A low end of 0 has no geometric midpoint. */
    for (int it = 0; it < iters; it++) {
        bool wide = lo > 0 && hi > 4 * lo;
        k.rate = wide ? sqrt(lo * hi) : (lo + hi) / 2;
        if (wide)
            it--;
        int rc = ic_sim_run(m, hw, &k, &r, err);
        if (runs)
            (*runs)++;
        if (rc)
            return rc;
        if (ic_sim_meets_slos(&k, &r)) {
            lo = k.rate;
            if (at)
                *at = r;
        } else {
            hi = k.rate;
        }
    }
    *cap = lo;
    return IC_OK;
}
