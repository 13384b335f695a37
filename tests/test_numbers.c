/* One table of number forms (docs/numbers.md), each text read three ways:
 * as a value in a YAML entry, in the same entry written as JSON (a
 * config.json for a count, a hardware entry for the rest), and as an option
 * on the command line. Each form must be accepted with the same value in
 * all three, or refused in all three: in a file at the value's own
 * line:column (JSON's grammar may stop inside the value: the second digit
 * of '007'), on the command line by a message naming the option and the
 * text, with the same reason in YAML and on the command line, and a hint.
 * A sign ('-0' and '+8' included), leading zeros, a point without a digit
 * on one side ('.5', '5.') and a bare time ('0.2') are refused; a whole
 * count may carry a point or an exponent ('8.0', '1e3'); a binary-prefixed
 * bandwidth (TiB/s) is 2^40 bytes a second. */
#include "ic_hw.h"
#include "ic_model.h"
#include "ic_opt.h"
#include "ic_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where a form is read: a count, a plain number, a size, a bandwidth, a
 * time. */
enum kind { K_COUNT, K_NUMBER, K_SIZE, K_BANDWIDTH, K_TIME };

static const struct form {
    const char *text;
    enum kind kind;
    bool ok;
    double value;    /* SI units */
    const char *why; /* a refusal's reason, in the YAML and the command-line message */
} forms[] = {
    {"8", K_COUNT, true, 8, NULL},
    {"-8", K_COUNT, false, 0, "has a minus sign"},
    {"-0", K_COUNT, false, 0, "has a minus sign"},
    {"008", K_COUNT, false, 0, "has a leading zero"},
    {"00", K_COUNT, false, 0, "has a leading zero"},
    /* a plus sign: JSON's error, refused everywhere */
    {"+8", K_COUNT, false, 0, "'+8' has a plus sign"},
    /* a whole count with a point or an exponent, read exactly (config.json
     * writes 70.6e9); a fraction is refused */
    {"8.0", K_COUNT, true, 8, NULL},
    {"1e3", K_COUNT, true, 1000, NULL},
    {"1E+3", K_COUNT, true, 1000, NULL},
    {"12.5e1", K_COUNT, true, 125, NULL}, /* 125 x 10^(1 - 1) */
    {"8.5", K_COUNT, false, 0, "'8.5' is not a whole number"},
    {"1e-3", K_COUNT, false, 0, "'1e-3' is not a whole number"},
    /* a digit on both sides of the point: '.5' and '5.' are JSON's errors */
    {".5", K_COUNT, false, 0, "no digit before the point"},
    {"8.", K_COUNT, false, 0, "no digit after the point"},
    {"0.5", K_NUMBER, true, 0.5, NULL},
    {"0", K_NUMBER, true, 0, NULL},
    {"0.50", K_NUMBER, true, 0.5, NULL},
    {"5e-1", K_NUMBER, true, 0.5, NULL},
    {"-0", K_NUMBER, false, 0, "has a minus sign"},
    {"-0.0", K_NUMBER, false, 0, "has a minus sign"},
    {"-0.5", K_NUMBER, false, 0, "has a minus sign"},
    {"00.5", K_NUMBER, false, 0, "has a leading zero"},
    {"05e-1", K_NUMBER, false, 0, "has a leading zero"},
    {"+0.5", K_NUMBER, false, 0, "'+0.5' has a plus sign"},
    {".5", K_NUMBER, false, 0, "'.5' has no digit before the point (write 0.5)"},
    {"1.", K_NUMBER, false, 0, "'1.' has no digit after the point (write 1 or 1.0)"},
    {"1.e-1", K_NUMBER, false, 0, "no digit after the point"},
    {"16 GiB", K_SIZE, true, 16.0 * 1073741824.0, NULL},
    {"16GiB", K_SIZE, true, 16.0 * 1073741824.0, NULL},
    {"1.5e1 GiB", K_SIZE, true, 15.0 * 1073741824.0, NULL},
    {"016 GiB", K_SIZE, false, 0, "has a leading zero"},
    {"-0 GiB", K_SIZE, false, 0, "has a minus sign"},
    {"+16 GiB", K_SIZE, false, 0, "has a plus sign"},
    {".5 GiB", K_SIZE, false, 0, "no digit before the point"},
    {"16. GiB", K_SIZE, false, 0, "no digit after the point"},
    {"1 TiB/s", K_SIZE, false, 0, "'TiB/s' is a bandwidth, but a size is expected"},
    {"1 TiB/s", K_BANDWIDTH, true, 1099511627776.0, NULL},
    {"3.35 TB/s", K_BANDWIDTH, true, 3.35e12, NULL},
    {"1 GiB/s", K_BANDWIDTH, true, 1073741824.0, NULL},
    {"1 TiB", K_BANDWIDTH, false, 0, "is a size"},
    {"-1 TiB/s", K_BANDWIDTH, false, 0, "has a minus sign"},
    {"-0 TiB/s", K_BANDWIDTH, false, 0, "has a minus sign"},
    {"01 TiB/s", K_BANDWIDTH, false, 0, "has a leading zero"},
    {"+1 TB/s", K_BANDWIDTH, false, 0, "has a plus sign"},
    {".5 TB/s", K_BANDWIDTH, false, 0, "no digit before the point"},
    {"1 TIB/s", K_BANDWIDTH, false, 0, "unknown unit"},
    {"1 TiFLOP/s", K_BANDWIDTH, false, 0, "unknown unit"},
    {"1 us", K_TIME, true, 1e-6, NULL},
    {"200 ms", K_TIME, true, 0.2, NULL},
    {"200ms", K_TIME, true, 0.2, NULL},
    {"01 us", K_TIME, false, 0, "has a leading zero"},
    {"-0 us", K_TIME, false, 0, "has a minus sign"},
    {"+1 us", K_TIME, false, 0, "has a plus sign"},
    {".5 us", K_TIME, false, 0, "no digit before the point"},
    {"5. us", K_TIME, false, 0, "no digit after the point"},
    /* a bare number is not a time, not even in seconds: every quantity
     * carries its unit (in JSON written as a bare number, not a string) */
    {"0.2", K_TIME, false, 0, "'0.2' has no unit"},
    {"0", K_TIME, false, 0, "'0' has no unit"},
};

static char dir[64];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/ic-numbers-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    static const char *const names[] = {"m.yaml", "config.json", "hw.yaml", "hw.json"};
    char p[128];
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        remove(p);
    }
    rmdir(dir);
}

/* Writes text to dir/name and returns the path (static). */
static const char *put(const char *name, const char *text)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    return p;
}

/* A hardware entry (tests/fixtures/good-hw.yaml) with one value replaced
 * by @, in YAML or in JSON (where @ stands inside a string for a quantity
 * and bare for a number). */
static void hw_text(char *buf, size_t cap, bool json, enum kind k, const char *text)
{
    const char *cap_v = k == K_SIZE ? text : "16 GB";
    const char *bw_v = k == K_BANDWIDTH ? text : "1 TB/s";
    const char *lat_v = k == K_TIME ? text : "1 us";
    const char *usd_v = k == K_NUMBER ? text : "1.00";
    /* a time without a unit is the bare JSON number a writer would put */
    const char *q = strspn(lat_v, "0123456789.eE+-") == strlen(lat_v) ? "" : "\"";
    if (json)
        snprintf(buf, cap,
                 "{\"name\": \"test-chip\", \"vendor\": \"Test\",\n"
                 "\"memory\": {\"capacity\": \"%s\", \"source\": \"test fixture\",\n"
                 "\"bandwidth\": \"%s\"},\n"
                 "\"compute\": {\"bf16\": \"100 TFLOP/s\", \"source\": \"test fixture\"},\n"
                 "\"interconnect\": {\"kind\": \"ici\", \"topology\": \"torus-2d\", "
                 "\"link_bandwidth_one_way\": \"50 GB/s\", \"links_per_chip\": 4, "
                 "\"domain_chips\": 64, \"source\": \"test fixture\",\n"
                 "\"hop_latency\": %s%s%s},\n"
                 "\"scale_out\": {\"kind\": \"dcn\", \"bandwidth_one_way\": \"25 Gbit/s\", "
                 "\"latency\": \"10 us\", \"source\": \"test fixture\"},\n"
                 "\"host_link\": {\"kind\": \"pcie\", \"bandwidth_one_way\": \"16 GB/s\", "
                 "\"source\": \"test fixture\"},\n"
                 "\"price\": {\"as_of\": \"2025-01\", \"source\": \"test fixture\",\n"
                 "\"usd_per_chip_hour\": %s},\n"
                 "\"sources\": [\"test fixture\"]}\n",
                 cap_v, bw_v, q, lat_v, q, usd_v);
    else
        snprintf(buf, cap,
                 "name: test-chip\nvendor: Test\nmemory:\n  capacity: %s\n  source: test fixture\n"
                 "  bandwidth: %s\n"
                 "compute:\n  bf16: 100 TFLOP/s\n  source: test fixture\n"
                 "interconnect:\n  kind: ici\n  topology: torus-2d\n"
                 "  link_bandwidth_one_way: 50 GB/s\n  links_per_chip: 4\n  domain_chips: 64\n"
                 "  source: test fixture\n  hop_latency: %s\n"
                 "scale_out:\n  kind: dcn\n  bandwidth_one_way: 25 Gbit/s\n  latency: 10 us\n"
                 "  source: test fixture\n"
                 "host_link:\n  kind: pcie\n  bandwidth_one_way: 16 GB/s\n  source: test fixture\n"
                 "price:\n  as_of: 2025-01\n  source: test fixture\n  usd_per_chip_hour: %s\n"
                 "sources:\n  - test fixture\n",
                 cap_v, bw_v, lat_v, usd_v);
}

/* The line and column where key's value starts in text. */
static void value_at(const char *text, const char *key, bool json, unsigned *line, unsigned *col)
{
    char k[64];
    snprintf(k, sizeof k, json ? "\"%s\": " : "%s: ", key);
    const char *at = strstr(text, k);
    ck_assert_ptr_nonnull(at);
    *line = 1;
    const char *bol = text;
    for (const char *c = text; c < at; c++)
        if (*c == '\n')
            (*line)++, bol = c + 1;
    *col = (unsigned)(at - bol + (long)strlen(k)) + 1;
}

static double hw_value(const struct ic_hw *h, enum kind k)
{
    return k == K_SIZE ? h->hbm_capacity_B : k == K_BANDWIDTH ? h->hbm_bandwidth_B_s
           : k == K_TIME ? h->ici_hop_latency_s : h->usd_per_chip_hour;
}

/* A refusal at the value: its line, a column inside it. */
static void at_value(const struct ic_err *e, unsigned line, unsigned col, const char *text,
                     const char *what)
{
    ck_assert_msg(e->line == line && e->col >= col && e->col < col + strlen(text) + 1,
                  "%s: '%s' refused at %u:%u, not at the value (%u:%u): %s", what, text,
                  e->line, e->col, line, col, e->msg);
}

/* The file side: YAML and JSON, accepted with value v or refused at the
 * value. */
static void files(const struct form *f, bool *ok, double *v)
{
    char buf[2048];
    struct ic_err e;
    for (int json = 0; json < 2; json++) {
        const char *what = json ? "JSON" : "YAML";
        double got = NAN;
        int rc;
        unsigned line, col;
        if (f->kind == K_COUNT) {
            if (json)
                snprintf(buf, sizeof buf,
                         "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\",\n"
                         "\"hidden_size\": 1024, \"intermediate_size\": 4096,\n"
                         "\"num_attention_heads\": 16, \"num_key_value_heads\": 4,\n"
                         "\"vocab_size\": 32000, \"max_position_embeddings\": 8192,\n"
                         "\"num_hidden_layers\": %s}\n", f->text);
            else
                snprintf(buf, sizeof buf,
                         "name: test-model\nsource: test fixture\nhidden_size: 1024\n"
                         "intermediate_size: 4096\nnum_attention_heads: 16\n"
                         "num_key_value_heads: 4\nvocab_size: 32000\n"
                         "num_hidden_layers: %s\n", f->text);
            value_at(buf, "num_hidden_layers", json, &line, &col);
            struct ic_model *m = calloc(1, sizeof *m);
            memset(&e, 0, sizeof e);
            rc = ic_model_load(put(json ? "config.json" : "m.yaml", buf), m, &e);
            if (rc == IC_OK)
                got = (double)m->num_hidden_layers;
            free(m);
        } else {
            hw_text(buf, sizeof buf, json, f->kind, f->text);
            static const char *const key[] = {[K_NUMBER] = "usd_per_chip_hour",
                                              [K_SIZE] = "capacity", [K_BANDWIDTH] = "bandwidth",
                                              [K_TIME] = "hop_latency"};
            value_at(buf, key[f->kind], json, &line, &col);
            struct ic_hw *h = calloc(1, sizeof *h);
            memset(&e, 0, sizeof e);
            rc = ic_hw_load(put(json ? "hw.json" : "hw.yaml", buf), h, &e);
            if (rc == IC_OK)
                got = hw_value(h, f->kind);
            free(h);
        }
        if (rc == IC_OK) {
            ok[json] = true;
            v[json] = got;
        } else {
            ck_assert_msg(rc == IC_EINVAL, "%s: '%s': code %d: %s", what, f->text, rc, e.msg);
            ok[json] = false;
            at_value(&e, line, col, f->text, what);
            /* JSON's grammar may refuse first, in its own words */
            if (!json && f->why)
                ck_assert_msg(strstr(e.msg, f->why), "%s: '%s': '%s' lacks '%s'", what, f->text,
                              e.msg, f->why);
            ck_assert_msg(e.hint[0], "%s: '%s' refused without a hint: %s", what, f->text,
                          e.msg);
        }
    }
}

/* The command line: the option that reads this kind (none for a
 * bandwidth). */
static bool cli(const struct form *f, bool *ok, double *v)
{
    static const struct {
        const char *cmd, *opt;
    } o[] = {[K_COUNT] = {"decode", "--batch"},   [K_NUMBER] = {"prefix", "--hit-rate"},
             [K_SIZE] = {"bench", "--llc"},       [K_BANDWIDTH] = {NULL, NULL},
             [K_TIME] = {"prefill", "--queue"}};
    if (!o[f->kind].cmd)
        return false;
    char *argv[] = {(char *)"infcalc", (char *)o[f->kind].cmd, (char *)o[f->kind].opt,
                    (char *)f->text, NULL};
    struct ic_opts a;
    struct ic_err e = {0};
    int rc = ic_opts_parse(4, argv, &a, &e);
    *ok = rc == IC_OK;
    if (*ok) {
        *v = f->kind == K_COUNT ? (double)a.batch : f->kind == K_NUMBER ? a.hit_rate
             : f->kind == K_SIZE ? a.llc_bytes : a.queue_s;
    } else {
        ck_assert_int_eq(rc, IC_EINVAL);
        /* the option, and the text (or its unit, for a unit of another kind) */
        const char *unit = f->text + strspn(f->text, "0123456789.-+ ");
        ck_assert_msg(strstr(e.msg, o[f->kind].opt) &&
                          (strstr(e.msg, f->text) || (*unit && strstr(e.msg, unit))),
                      "command line: '%s' refused without naming %s and the text: %s", f->text,
                      o[f->kind].opt, e.msg);
        ck_assert_msg(!f->why || strstr(e.msg, f->why), "command line: '%s': '%s' lacks '%s'",
                      f->text, e.msg, f->why);
        ck_assert_msg(e.hint[0], "command line: '%s' refused without a hint: %s", f->text, e.msg);
    }
    ic_opts_free(&a);
    return true;
}

START_TEST(test_forms)
{
    const struct form *f = &forms[_i];
    bool ok[3];
    double v[3] = {0, 0, 0};
    files(f, ok, v);
    bool has_cli = cli(f, &ok[2], &v[2]);
    static const char *const where[] = {"YAML", "JSON", "the command line"};
    for (int w = 0; w < (has_cli ? 3 : 2); w++) {
        ck_assert_msg(ok[w] == f->ok, "'%s' is %s in %s", f->text,
                      ok[w] ? "accepted" : "refused", where[w]);
        if (f->ok)
            ck_assert_msg(fabs(v[w] - f->value) <= 1e-12 * fabs(f->value),
                          "'%s' is %.17g in %s, not %.17g", f->text, v[w], where[w], f->value);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numbers");
    TCase *tc = tcase_create("numbers");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_forms, 0, (int)(sizeof forms / sizeof forms[0]));
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
