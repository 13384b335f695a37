/* ic_sim: the serving simulation (see the header). */
#include "ic_sim.h"

#include "ic_serving.h"
#include "ic_step.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const dist_names[IC_DIST_COUNT] = {"fixed", "uniform", "lognormal", "gamma"};

const char *ic_sim_dist_name(enum ic_sim_dist d) { return d < IC_DIST_COUNT ? dist_names[d] : "?"; }

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
        .layout = {c->dec.chips, 1, 1, 1},
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
    const struct ic_rates r = {c->dec.estimate, c->dec.comm, {1.0, mfu}, 1.0, 1.0, 0,
                               c->dec.engine};
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

enum { H_PER_DECADE = 1000, H_DECADES = 12, H_BINS = H_PER_DECADE * H_DECADES };
#define H_LO 1e-7 /* seconds: the first bin's lower edge */

struct hist {
    uint64_t *bin; /* [H_BINS] */
    uint64_t n;
    double sum;
    double last_x;  /* the last value and its bin: a step's tokens mostly share */
    long last_i;    /* their gap, so the logarithm is taken once a step */
};

static void hist_add(struct hist *h, double x)
{
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
    s.mean = h->sum / (double)h->n;
    static const double q[IC_SIM_PCT] = {0.50, 0.90, 0.99};
    for (int k = 0; k < IC_SIM_PCT; k++) {
        /* the smallest bin whose cumulative count reaches q n; its middle */
        uint64_t want = (uint64_t)ceil(q[k] * (double)h->n), acc = 0;
        for (long i = 0; i < H_BINS; i++) {
            acc += h->bin[i];
            if (acc >= want) {
                s.p[k] = H_LO * pow(10, ((double)i + 0.5) / H_PER_DECADE);
                break;
            }
        }
    }
    return s;
}

/* ---- requests ----------------------------------------------------------------- */

struct req {
    double t_arr, t_first, t_last;
    uint64_t prompt, output;
    uint64_t computed; /* tokens whose K and V are in the cache */
    uint64_t gen;      /* output tokens produced */
    uint64_t blocks;   /* blocks held */
    uint64_t index;    /* arrival order */
    uint64_t admit;    /* admission order (preemption takes the newest) */
    uint64_t sched;    /* tokens scheduled in the current step */
};

struct sim {
    const struct ic_model_stats *m;
    const struct ic_hw *hw;
    const struct ic_sim_cfg *c;
    gsl_rng *rng;
    struct req *pool;      /* every request arrived and not finished */
    size_t cap;
    size_t *free_list, n_free;
    size_t *running, n_run;   /* admission order */
    size_t *wait, wait_cap, w_head, w_n;  /* FIFO (a ring), preempted ones go to its front */
    uint64_t arrived, next_index, admitted;
    double next_arrival;
    uint64_t free_blocks;
    struct step_table table;
    struct hist ttft, tpot, itl, e2e;
    double in_sys_time; /* the integral of the requests in the system over time */
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
    return r < 1 ? 1 : r > 1e7 ? (uint64_t)1e7 : (uint64_t)r;
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

static int wait_push(struct sim *s, size_t r, bool front)
{
    if (s->w_n == s->wait_cap) {
        size_t cap = s->wait_cap ? 2 * s->wait_cap : 1024;
        size_t *w = malloc(cap * sizeof *w);
        if (!w)
            return IC_ENOMEM;
        for (size_t i = 0; i < s->w_n; i++)
            w[i] = s->wait[(s->w_head + i) % s->wait_cap];
        free(s->wait);
        s->wait = w;
        s->wait_cap = cap;
        s->w_head = 0;
    }
    if (front) {
        s->w_head = (s->w_head + s->wait_cap - 1) % s->wait_cap;
        s->wait[s->w_head] = r;
    } else {
        s->wait[(s->w_head + s->w_n) % s->wait_cap] = r;
    }
    s->w_n++;
    return IC_OK;
}

/* Requests arriving by time now join the queue. */
static int arrive(struct sim *s, double now)
{
    const struct ic_sim_cfg *c = s->c;
    while (s->next_index < c->requests && s->next_arrival <= now) {
        if (!s->n_free && grow_pool(s))
            return IC_ENOMEM;
        size_t r = s->free_list[--s->n_free];
        struct req *q = &s->pool[r];
        memset(q, 0, sizeof *q);
        q->t_arr = s->next_arrival;
        q->index = s->next_index++;
        q->prompt = draw(s, &c->prompt);
        q->output = draw(s, &c->output);
        if (wait_push(s, r, false))
            return IC_ENOMEM;
        s->arrived++;
        /* in the system from its arrival, within the step that just ended */
        s->in_sys_time += now - q->t_arr;
        if (c->rate > 0)
            s->next_arrival += gsl_ran_exponential(s->rng, 1 / c->rate);
    }
    return IC_OK;
}

static uint64_t blocks_for(const struct sim *s, uint64_t tokens)
{
    return (tokens + s->c->block - 1) / s->c->block;
}

/* Frees r's blocks and puts it back at the queue's front (recompute). */
static int preempt(struct sim *s, size_t pos)
{
    size_t r = s->running[pos];
    struct req *q = &s->pool[r];
    s->free_blocks += q->blocks;
    q->blocks = 0;
    q->computed = 0;
    q->sched = 0;
    memmove(&s->running[pos], &s->running[pos + 1], (s->n_run - pos - 1) * sizeof *s->running);
    s->n_run--;
    return wait_push(s, r, true);
}

/* Gives r the blocks for `tokens` more tokens; false when they are not free. */
static bool reserve(struct sim *s, struct req *q, uint64_t tokens)
{
    uint64_t need = blocks_for(s, q->computed + tokens);
    if (need <= q->blocks)
        return true;
    if (need - q->blocks > s->free_blocks)
        return false;
    s->free_blocks -= need - q->blocks;
    q->blocks = need;
    return true;
}

int ic_sim_run(const struct ic_model_stats *m, const struct ic_hw *hw,
               const struct ic_sim_cfg *c, struct ic_sim_result *out, struct ic_err *err)
{
    memset(out, 0, sizeof *out);
    if (!c->requests || !c->max_seqs || !c->max_tokens || !c->block || !c->dec.chips ||
        !(c->rate >= 0) || !isfinite(c->rate) || !(c->prompt.mean >= 1) ||
        !(c->output.mean >= 1) || !(c->prompt.cv >= 0) || !(c->output.cv >= 0) ||
        !(c->mem_util > 0 && c->mem_util <= 1) || c->warmup >= c->requests)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "the simulation needs requests above the warm-up, max sequences, "
                          "a token budget, a block, chips and lengths of at least 1, a rate "
                          "of 0 or more and a memory share in (0, 1]");
    /* The KV pool: HBM left per chip after the weights and the workspace of
     * max_seqs sequences, in blocks of the replica (a chip holds 1/g of the
     * sequences where the batch splits g ways). */
    struct ic_step one = {.layout = {c->dec.chips, 1, 1, 1},
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
    const double tok_B = ic_step_kv_seq_bytes(m, 1, c->dec.kv) / (double)l.kv_split_heads;
    const double room = c->mem_util * hw->hbm_capacity_B - mk.weights_bytes -
                        (double)c->max_seqs / (double)c->dec.chips * mk.work_seq_bytes;
    const double tokens = room / tok_B * (double)mk.batch_ways;
    if (!(tokens >= (double)c->block))
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "%s on %llu x %s leaves no room for the KV cache (%.3g GB of weights "
                          "per chip)",
                          "the model", (unsigned long long)c->dec.chips, hw->name,
                          mk.weights_bytes / 1e9);
    out->kv_blocks = (uint64_t)fmin(tokens / (double)c->block, 1e15);

    struct sim s = {.m = m, .hw = hw, .c = c};
    s.free_blocks = out->kv_blocks;
    s.rng = gsl_rng_alloc(gsl_rng_mt19937);
    s.running = malloc(c->max_seqs * sizeof *s.running);
    struct hist *hs[4] = {&s.ttft, &s.tpot, &s.itl, &s.e2e};
    bool ok = s.rng && s.running;
    for (int i = 0; i < 4; i++)
        ok = ok && (hs[i]->bin = calloc(H_BINS, sizeof *hs[i]->bin));
    if (!ok) {
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        goto done;
    }
    gsl_rng_set(s.rng, c->seed);
    s.next_arrival = 0;

    double now = 0, busy = 0, batch_time = 0, occ_time = 0;
    double first_counted = -1, last_finish = 0, good = 0;
    uint64_t finished = 0;
    while (finished < c->requests) {
        if ((rc = arrive(&s, now)))
            goto oom;
        /* ---- form the step ---- */
        bool force_decodes = false;
    form:;
        uint64_t budget = c->max_tokens, n_dec = 0, n_pre = 0, pre_tok = 0;
        double ctx_dec = 0, ctx_pre = 0;
        bool any_prefill_waiting = s.w_n > 0;
        for (size_t i = 0; i < s.n_run; i++) {
            const struct req *q = &s.pool[s.running[i]];
            if (q->computed < q->prompt + q->gen - (q->gen ? 1 : 0))
                any_prefill_waiting = true;
        }
        bool decodes = c->sched == IC_SCHED_CHUNKED || !any_prefill_waiting || force_decodes;
        /* 1. every running decode its token, preempting the newest when a
         * block is short */
        for (size_t i = 0; decodes && i < s.n_run && budget; i++) {
            struct req *q = &s.pool[s.running[i]];
            if (!(q->gen && q->computed == q->prompt + q->gen - 1))
                continue;
            while (!reserve(&s, q, 1)) {
                if (s.n_run - 1 == i) { /* it is the newest: it goes itself */
                    if ((rc = preempt(&s, i)))
                        goto oom;
                    out->preemptions++;
                    q = NULL;
                    break;
                }
                if ((rc = preempt(&s, s.n_run - 1)))
                    goto oom;
                out->preemptions++;
            }
            if (!q)
                break;
            q->sched = 1;
            budget--;
            n_dec++;
            ctx_dec += (double)q->computed;
        }
        /* 2. prompts: the running ones' next chunks, then the queue's */
        bool chunk = c->sched == IC_SCHED_CHUNKED;
        for (size_t i = 0; i < s.n_run && budget && !(decodes && !chunk); i++) {
            struct req *q = &s.pool[s.running[i]];
            uint64_t target = q->prompt + q->gen;
            if (q->sched || q->computed >= target - (q->gen ? 1 : 0))
                continue;
            uint64_t left = target - q->computed, t = left < budget ? left : budget;
            if (!chunk && t < left && (n_pre || n_dec))
                break;
            if (!reserve(&s, q, t))
                break;
            q->sched = t;
            budget -= t;
            n_pre++;
            pre_tok += t;
            ctx_pre += (double)q->computed;
        }
        while (s.w_n && budget && s.n_run < c->max_seqs && !(decodes && !chunk)) {
            size_t r = s.wait[s.w_head];
            struct req *q = &s.pool[r];
            uint64_t left = q->prompt + q->gen - q->computed;
            uint64_t t = left < budget ? left : budget;
            if (!chunk && t < left && (n_pre || n_dec))
                break;
            if (!reserve(&s, q, t))
                break;
            s.w_head = (s.w_head + 1) % s.wait_cap;
            s.w_n--;
            q->admit = s.admitted++;
            s.running[s.n_run++] = r;
            q->sched = t;
            budget -= t;
            n_pre++;
            pre_tok += t;
            ctx_pre += (double)q->computed;
        }
        if (!n_dec && !n_pre && s.n_run) {
            /* nothing runs while sequences hold blocks: prefill-first lets
             * the decodes run (they free blocks as they finish); else the
             * newest sequence gives its blocks back (recompute) so that the
             * older ones can go on */
            if (!decodes) {
                force_decodes = true;
                goto form;
            }
            if ((rc = preempt(&s, s.n_run - 1)))
                goto oom;
            out->preemptions++;
            goto form;
        }
        if (!n_dec && !n_pre) {
            if (s.next_index < c->requests && s.next_arrival > now) {
                /* idle until the next arrival */
                s.in_sys_time += (double)(s.arrived - finished) * (s.next_arrival - now);
                now = s.next_arrival;
                continue;
            }
            rc = ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                            "a request cannot be scheduled: its prompt needs more KV blocks "
                            "than the %llu of the pool, or more tokens than --max-tokens with "
                            "chunking off", (unsigned long long)out->kv_blocks);
            goto done;
        }
        /* ---- its time ---- */
        double dt;
        if ((rc = step_time(&s.table, m, hw, c, n_dec, n_dec ? ctx_dec / (double)n_dec : 0,
                            n_pre, pre_tok, n_pre ? ctx_pre / (double)n_pre : 0, &dt, err)))
            goto done;
        s.in_sys_time += (double)(s.arrived - finished) * dt;
        occ_time += (double)(out->kv_blocks - s.free_blocks) * dt;
        uint64_t held = out->kv_blocks - s.free_blocks;
        if (held > out->peak_blocks)
            out->peak_blocks = held;
        batch_time += (double)(n_dec + n_pre) * dt;
        busy += dt;
        now += dt;
        out->steps++;
        /* ---- its outcome ---- */
        for (size_t i = 0; i < s.n_run;) {
            size_t r = s.running[i];
            struct req *q = &s.pool[r];
            if (!q->sched) {
                i++;
                continue;
            }
            q->computed += q->sched;
            q->sched = 0;
            if (q->computed < q->prompt + q->gen) {
                i++;
                continue;
            }
            /* a token: the first, or one more */
            q->gen++;
            bool counted = q->index >= c->warmup;
            if (q->gen == 1) {
                q->t_first = now;
                if (counted)
                    hist_add(&s.ttft, now - q->t_arr);
            } else if (counted) {
                hist_add(&s.itl, now - q->t_last);
            }
            q->t_last = now;
            if (q->gen < q->output) {
                i++;
                continue;
            }
            /* finished */
            out->prompt_tokens += q->prompt;
            out->output_tokens += q->output;
            if (counted) {
                double e2e = now - q->t_arr, tpot = 0;
                hist_add(&s.e2e, e2e);
                if (q->output > 1) {
                    tpot = (now - q->t_first) / (double)(q->output - 1);
                    hist_add(&s.tpot, tpot);
                }
                if (first_counted < 0 || q->t_arr < first_counted)
                    first_counted = q->t_arr;
                out->counted++;
                if ((!(c->ttft_slo_s > 0) || q->t_first - q->t_arr <= c->ttft_slo_s) &&
                    (!(c->tpot_slo_s > 0) || tpot <= c->tpot_slo_s))
                    good++;
            }
            last_finish = now;
            finished++;
            s.free_blocks += q->blocks;
            memmove(&s.running[i], &s.running[i + 1], (s.n_run - i - 1) * sizeof *s.running);
            s.n_run--;
            s.free_list[s.n_free++] = r;
        }
    }
    out->completed = finished;
    out->duration_s = last_finish;
    out->window_s = last_finish - (first_counted > 0 ? first_counted : 0);
    double W = out->window_s > 0 ? out->window_s : 1;
    out->requests_per_s = (double)out->counted / W;
    out->ttft = hist_stats(&s.ttft);
    out->tpot = hist_stats(&s.tpot);
    out->itl = hist_stats(&s.itl);
    out->e2e = hist_stats(&s.e2e);
    {
        /* the counted requests' tokens over the window */
        double per = out->completed ? (double)out->output_tokens / (double)out->completed : 0;
        double pin = out->completed ? (double)out->prompt_tokens / (double)out->completed : 0;
        out->output_tokens_per_s = out->requests_per_s * per;
        out->total_tokens_per_s = out->requests_per_s * (per + pin);
    }
    out->output_tokens_per_s_per_chip = out->output_tokens_per_s / (double)c->dec.chips;
    out->goodput_per_s = good / W;
    out->slo_share = out->counted ? good / (double)out->counted : 0;
    out->mean_batch = busy > 0 ? batch_time / busy : 0;
    out->mean_in_system = last_finish > 0 ? s.in_sys_time / last_finish : 0;
    out->kv_occupancy = busy > 0 ? occ_time / busy / (double)out->kv_blocks : 0;
    out->step_cache_hits = s.table.hits;
    out->step_cache_misses = s.table.misses;
    rc = IC_OK;
    goto done;
oom:
    rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
done:
    for (int i = 0; i < 4; i++)
        free(hs[i]->bin);
    free(s.table.keys);
    free(s.table.vals);
    free(s.pool);
    free(s.free_list);
    free(s.running);
    free(s.wait);
    if (s.rng)
        gsl_rng_free(s.rng);
    return rc;
}
