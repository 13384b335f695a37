/* ic_report: tables, CSV and JSON for decode points. */
#include "ic_report.h"

#include <math.h>
#include <string.h>

static const char *const format_names[IC_FMT_COUNT] = {
    [IC_FMT_TABLE] = "table",
    [IC_FMT_CSV] = "csv",
    [IC_FMT_JSON] = "json",
};
_Static_assert(sizeof format_names / sizeof format_names[0] == IC_FMT_COUNT, "names");

const char *ic_format_name(enum ic_format f) { return format_names[f]; }

int ic_format_parse(const char *name, enum ic_format *out)
{
    for (int f = 0; f < IC_FMT_COUNT; f++)
        if (strcmp(name, format_names[f]) == 0) {
            *out = (enum ic_format)f;
            return IC_OK;
        }
    return IC_ENOENT;
}

void ic_report_bytes(char *buf, size_t n, double b)
{
    static const char *const u[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    int i = 0;
    while (fabs(b) >= 1000 && i < 5) {
        b /= 1000;
        i++;
    }
    snprintf(buf, n, i ? "%.3g %s" : "%.0f %s", b, u[i]);
}

void ic_report_time(char *buf, size_t n, double s)
{
    if (s >= 1)
        snprintf(buf, n, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3g ms", s * 1e3);
    else if (s >= 1e-6)
        snprintf(buf, n, "%.3g us", s * 1e6);
    else
        snprintf(buf, n, "%.3g ns", s * 1e9);
}

/* A finite double in JSON (shortest round-trip-ish form), else null. */
static void jnum(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.10g", v);
    else
        fputs("null", out);
}

static const char *dt(enum ic_dtype t) { return ic_dtype_traits(t)->name; }

/* JSON string with the escapes names could need. */
void ic_report_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void jstr(FILE *out, const char *s) { ic_report_json_str(out, s); }

static void json_point(FILE *out, const struct ic_report_group *r, const struct ic_point *p,
                       const char *ind)
{
    const struct ic_decode_cfg *c = &p->cfg;
    fprintf(out, "%s{\n%s  \"model\": ", ind, ind);
    jstr(out, r->model);
    fprintf(out, ",\n%s  \"hw\": ", ind);
    jstr(out, r->hw);
    fprintf(out, ",\n%s  \"chips\": %llu,\n%s  \"batch\": %llu,\n%s  \"context\": %llu,\n", ind,
            (unsigned long long)c->chips, ind, (unsigned long long)c->batch, ind,
            (unsigned long long)c->context);
    fprintf(out,
            "%s  \"precision\": {\"weights\": \"%s\", \"kv\": \"%s\", \"compute\": \"%s\"},\n",
            ind, dt(c->weights), dt(c->kv), dt(c->compute));
    fprintf(out, "%s  \"estimate\": \"%s\",\n%s  \"comm_mode\": \"%s\",\n", ind,
            ic_estimate_name(c->estimate), ind, ic_comm_mode_name(c->comm));
    fprintf(out, "%s  \"params\": %llu,\n%s  \"params_active\": %llu,\n", ind,
            (unsigned long long)p->params, ind, (unsigned long long)p->params_active);
    fprintf(out, "%s  \"kv_bytes_per_token\": %llu,\n", ind,
            (unsigned long long)p->kv_bytes_per_token);
    fprintf(out, "%s  \"weight_bytes\": ", ind);
    jnum(out, p->weight_bytes);
    fprintf(out, ",\n%s  \"kv_bytes\": ", ind);
    jnum(out, p->kv_bytes);
    fprintf(out, ",\n%s  \"flops\": ", ind);
    jnum(out, p->flops);
    fprintf(out, ",\n%s  \"comm_bytes_per_chip\": ", ind);
    jnum(out, p->comm_bytes);
    fprintf(out, ",\n%s  \"experts_touched\": ", ind);
    jnum(out, p->experts_touched);
    fprintf(out, ",\n%s  \"kv_split\": {\"heads\": %llu, \"batch\": %llu},\n", ind,
            (unsigned long long)p->kv_split_heads, (unsigned long long)p->kv_split_batch);
    fprintf(out, "%s  \"time\": {\"weights_s\": ", ind);
    jnum(out, p->weights_s);
    fputs(", \"kv_s\": ", out);
    jnum(out, p->kv_s);
    fputs(", \"compute_s\": ", out);
    jnum(out, p->compute_s);
    fputs(", \"attn_compute_s\": ", out);
    jnum(out, p->attn_s);
    fputs(", \"comm_s\": ", out);
    jnum(out, p->comm_s);
    fputs(", \"fixed_s\": ", out);
    jnum(out, p->fixed_s);
    fputs(", \"step_s\": ", out);
    jnum(out, p->step_s);
    fprintf(out, "},\n%s  \"bound\": \"%s\",\n%s  \"tokens_per_s\": ", ind,
            ic_bound_name(p->bound), ind);
    jnum(out, p->tokens_s);
    fprintf(out, ",\n%s  \"tokens_per_s_per_chip\": ", ind);
    jnum(out, p->tokens_s_chip);
    fprintf(out, ",\n%s  \"latency_per_token_s\": ", ind);
    jnum(out, p->latency_s);
    fprintf(out, ",\n%s  \"usd_per_million_tokens\": ", ind);
    jnum(out, p->usd_per_mtok);
    fprintf(out, ",\n%s  \"flops_per_usd\": ", ind);
    jnum(out, p->flops_per_usd);
    fprintf(out, ",\n%s  \"memory\": {\"per_chip_bytes\": ", ind);
    jnum(out, p->mem_per_chip_B);
    fputs(", \"capacity_bytes\": ", out);
    jnum(out, p->capacity_B);
    fprintf(out, ", \"fits\": %s, \"max_batch\": %llu, \"weights_bytes\": ",
            p->fits ? "true" : "false", (unsigned long long)p->max_batch);
    jnum(out, p->mem_weights_B);
    fputs(", \"kv_bytes\": ", out);
    jnum(out, p->mem_kv_B);
    fputs(", \"workspace_bytes\": ", out);
    jnum(out, p->mem_work_B);
    fprintf(out, "},\n%s  \"b_crit\": ", ind);
    jnum(out, p->b_crit);
    fprintf(out, ",\n%s  \"b_crit_moe\": ", ind);
    jnum(out, p->b_crit_moe);
    fprintf(out, ",\n%s  \"uneven_split\": %s\n%s}", ind, p->uneven_split ? "true" : "false",
            ind);
}

static const char csv_header[] =
    "model,hw,chips,batch,context,weights,kv,compute,comm_mode,estimate,params,params_active,"
    "kv_bytes_per_token,weight_bytes,kv_bytes,flops,weights_s,kv_s,compute_s,"
    "attn_compute_s,comm_s,step_s,bound,tokens_per_s,tokens_per_s_per_chip,"
    "latency_per_token_s,usd_per_million_tokens,per_chip_bytes,capacity_bytes,fits,"
    "max_batch,b_crit,b_crit_moe,uneven_split\n";

static void csv_num(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.10g", v);
    else
        fputs(",", out);
}

/* A CSV field, quoted when it holds a comma, quote or line break (RFC 4180). */
static void csv_str(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_point(FILE *out, const struct ic_report_group *r, const struct ic_point *p)
{
    const struct ic_decode_cfg *c = &p->cfg;
    csv_str(out, r->model);
    fputc(',', out);
    csv_str(out, r->hw);
    fprintf(out, ",%llu,%llu,%llu,%s,%s,%s,%s,%s,%llu,%llu,%llu",
            (unsigned long long)c->chips, (unsigned long long)c->batch,
            (unsigned long long)c->context, dt(c->weights), dt(c->kv), dt(c->compute),
            ic_comm_mode_name(c->comm), ic_estimate_name(c->estimate),
            (unsigned long long)p->params,
            (unsigned long long)p->params_active, (unsigned long long)p->kv_bytes_per_token);
    const double v1[] = {p->weight_bytes, p->kv_bytes, p->flops, p->weights_s, p->kv_s,
                         p->compute_s, p->attn_s, p->comm_s, p->step_s};
    for (size_t i = 0; i < sizeof v1 / sizeof v1[0]; i++)
        csv_num(out, v1[i]);
    fprintf(out, ",%s", ic_bound_name(p->bound));
    const double v2[] = {p->tokens_s, p->tokens_s_chip, p->latency_s, p->usd_per_mtok,
                         p->mem_per_chip_B, p->capacity_B};
    for (size_t i = 0; i < sizeof v2 / sizeof v2[0]; i++)
        csv_num(out, v2[i]);
    fprintf(out, ",%s,%llu", p->fits ? "true" : "false", (unsigned long long)p->max_batch);
    csv_num(out, p->b_crit);
    csv_num(out, p->b_crit_moe);
    fprintf(out, ",%s\n", p->uneven_split ? "true" : "false");
}

/* Milliseconds with three significant figures in a fixed-width column. */
static void ms(FILE *out, int width, double s)
{
    double v = s * 1e3;
    int decimals = v >= 100 ? 1 : v >= 1 ? 2 : v >= 0.01 ? 3 : 4;
    fprintf(out, "%*.*f", width, decimals, v);
}

static void count(FILE *out, int width, double v)
{
    if (v >= 1e7)
        fprintf(out, "%*.3g", width, v);
    else if (v >= 100)
        fprintf(out, "%*.0f", width, v);
    else
        fprintf(out, "%*.1f", width, v);
}

static void table_title(FILE *out, const struct ic_report_group *r, const struct ic_point *p,
                        bool show_chips, bool show_ctx, bool show_prec)
{
    const struct ic_decode_cfg *c = &p->cfg;
    fprintf(out, "%s on ", r->model);
    if (!show_chips)
        fprintf(out, "%llu x ", (unsigned long long)c->chips);
    fputs(r->hw, out);
    if (!show_ctx)
        fprintf(out, ", context %llu", (unsigned long long)c->context);
    if (!show_prec)
        fprintf(out, ", weights %s, KV %s", dt(c->weights), dt(c->kv));
    fprintf(out, ", compute %s\n", dt(c->compute));
    fprintf(out, "%s; collectives %s",
            c->estimate == IC_EST_EXPECTED
                ? "expected time from the hardware entry's measured figures"
                : "ideal bound from spec-sheet peaks",
            c->comm == IC_COMM_OVERLAP ? "overlapped with HBM traffic" : "added serially");
    char cap[32];
    ic_report_bytes(cap, sizeof cap, p->capacity_B);
    fprintf(out, "; HBM %s per chip\n", cap);
    fprintf(out, "params %.4g (active %.4g), KV %llu B/token, B_crit %.0f",
            (double)p->params, (double)p->params_active,
            (unsigned long long)p->kv_bytes_per_token, p->b_crit);
    if (p->b_crit_moe != p->b_crit)
        fprintf(out, " (MoE: ~%.0f with every expert busy)", p->b_crit_moe);
    if (!show_chips && !show_ctx && !show_prec)
        fprintf(out, ", largest batch that fits %llu", (unsigned long long)p->max_batch);
    fputs("\n", out);
    if (p->uneven_split)
        fprintf(out, "note: %llu chips do not split the query heads evenly; the busiest chip "
                     "holds the most and sets the step time\n",
                (unsigned long long)c->chips);
    fputs("\n", out);
}

static void table_sweep(FILE *out, const struct ic_report *rep, const struct ic_report_group *r,
                        const struct ic_point *pts, size_t n)
{
    bool show_chips = false, show_ctx = false, show_prec = false;
    for (int i = 0; i < rep->n_axes; i++) {
        show_chips |= rep->axes[i] == IC_AXIS_CHIPS;
        show_ctx |= rep->axes[i] == IC_AXIS_CONTEXT;
        show_prec |= rep->axes[i] == IC_AXIS_PRECISION;
    }
    table_title(out, r, &pts[0], show_chips, show_ctx, show_prec);
    if (show_chips)
        fputs("chips ", out);
    if (show_prec)
        fputs("wts  kv   ", out);
    fputs("   batch", out);
    if (show_ctx)
        fputs("  context", out);
    fputs("   step ms  weights ms    kv ms  compute ms  comm ms  bound     tok/s/chip"
          "      tok/s  $/Mtok  mem/chip GB  fits", out);
    if (show_chips || show_ctx || show_prec)
        fputs("  max batch", out);
    fputc('\n', out);
    for (size_t i = 0; i < n; i++) {
        const struct ic_point *p = &pts[i];
        if (show_chips)
            fprintf(out, "%5llu ", (unsigned long long)p->cfg.chips);
        if (show_prec)
            fprintf(out, "%-4s %-4s ", dt(p->cfg.weights), dt(p->cfg.kv));
        fprintf(out, "%8llu", (unsigned long long)p->cfg.batch);
        if (show_ctx)
            fprintf(out, " %8llu", (unsigned long long)p->cfg.context);
        ms(out, 10, p->step_s);
        ms(out, 12, p->weights_s);
        ms(out, 9, p->kv_s);
        ms(out, 12, p->compute_s);
        ms(out, 9, p->comm_s);
        fprintf(out, "  %-8s", ic_bound_name(p->bound));
        count(out, 11, p->tokens_s_chip);
        count(out, 11, p->tokens_s);
        fprintf(out, "%8.3g", p->usd_per_mtok);
        fprintf(out, "%13.2f", p->mem_per_chip_B / 1e9);
        if (show_chips || show_ctx || show_prec)
            fprintf(out, "  %-4s%11llu", p->fits ? "yes" : "NO", (unsigned long long)p->max_batch);
        else
            fprintf(out, "  %s", p->fits ? "yes" : "NO");
        fputc('\n', out);
    }
}

static void table_point(FILE *out, const struct ic_report_group *r, const struct ic_point *p)
{
    char a[32], b[32], c2[32];
    table_title(out, r, p, false, false, false);
    fprintf(out, "batch %llu, context %llu\n\n", (unsigned long long)p->cfg.batch,
            (unsigned long long)p->cfg.context);
    ic_report_time(a, sizeof a, p->step_s);
    fprintf(out, "  step time            %-12s bound: %s\n", a, ic_bound_name(p->bound));
    ic_report_time(a, sizeof a, p->weights_s);
    ic_report_bytes(b, sizeof b, p->weight_bytes);
    fprintf(out, "    weight read        %-12s (%s over all chips)\n", a, b);
    ic_report_time(a, sizeof a, p->compute_s);
    fprintf(out, "    linear compute     %-12s (%.3g FLOP per step)\n", a, p->flops);
    ic_report_time(a, sizeof a, p->kv_s);
    ic_report_bytes(b, sizeof b, p->kv_bytes);
    if (p->cfg.chips == 1)
        fprintf(out, "    KV read            %-12s (%s)\n", a, b);
    else
        fprintf(out, "    KV read            %-12s (%s; split %llu way%s by head, %llu by batch)\n",
                a, b, (unsigned long long)p->kv_split_heads, p->kv_split_heads == 1 ? "" : "s",
                (unsigned long long)p->kv_split_batch);
    ic_report_time(a, sizeof a, p->attn_s);
    fprintf(out, "    attention compute  %s\n", a);
    ic_report_time(a, sizeof a, p->comm_s);
    ic_report_bytes(b, sizeof b, p->comm_bytes);
    fprintf(out, "    collectives        %-12s (%s all-reduced per chip)\n", a, b);
    fprintf(out, "  throughput           %.4g tokens/s, %.4g tokens/s per chip\n", p->tokens_s,
            p->tokens_s_chip);
    fprintf(out, "  cost                 $%.3g per million tokens, %.3g FLOPs per dollar\n",
            p->usd_per_mtok, p->flops_per_usd);
    ic_report_bytes(a, sizeof a, p->mem_per_chip_B);
    ic_report_bytes(b, sizeof b, p->capacity_B);
    fprintf(out, "  memory per chip      %s of %s: %s\n", a, b, p->fits ? "fits" : "DOES NOT FIT");
    ic_report_bytes(a, sizeof a, p->mem_weights_B);
    ic_report_bytes(b, sizeof b, p->mem_kv_B);
    ic_report_bytes(c2, sizeof c2, p->mem_work_B);
    fprintf(out, "    weights %s, KV %s, workspace %s\n", a, b, c2);
    fprintf(out, "  largest batch that fits  %llu\n", (unsigned long long)p->max_batch);
    if (p->experts_touched > 0)
        fprintf(out, "  experts touched per MoE layer  %.1f\n", p->experts_touched);
}

int ic_report_write(FILE *out, enum ic_format fmt, const struct ic_report *r,
                    const struct ic_report_group *groups, size_t n_groups)
{
    size_t total = 0;
    for (size_t g = 0; g < n_groups; g++)
        total += groups[g].n;
    size_t k = 0;
    if (fmt == IC_FMT_JSON && r->array)
        fputs("[\n", out);
    if (fmt == IC_FMT_CSV)
        fputs(csv_header, out);
    for (size_t g = 0; g < n_groups; g++) {
        const struct ic_report_group *gr = &groups[g];
        switch (fmt) {
        case IC_FMT_JSON:
            for (size_t i = 0; i < gr->n; i++, k++) {
                json_point(out, gr, &gr->pts[i], r->array ? "  " : "");
                fputs(r->array && k + 1 < total ? ",\n" : "\n", out);
            }
            break;
        case IC_FMT_CSV:
            for (size_t i = 0; i < gr->n; i++)
                csv_point(out, gr, &gr->pts[i]);
            break;
        case IC_FMT_TABLE:
        case IC_FMT_COUNT:
        default:
            if (g)
                fputc('\n', out);
            if (r->sweep)
                table_sweep(out, r, gr, gr->pts, gr->n);
            else
                table_point(out, gr, &gr->pts[0]);
            break;
        }
    }
    if (fmt == IC_FMT_JSON && r->array)
        fputs("]\n", out);
    return ferror(out) ? IC_EIO : IC_OK;
}
