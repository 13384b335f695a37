/* `infcalc serve`'s request handler, without a socket: parameters in,
 * status, type and body out. The JSON must be the command line's, byte for
 * byte; a bad value must get the command line's message with a 400; nothing
 * that looks like a path may reach the databases. */
#include "ic_cli.h"
#include "ic_serve.h"
#include "ic_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct ic_db db;

static void setup(void)
{
    struct ic_err e = {0};
    ck_assert_int_eq(ic_db_init(&db, IC_SRC_DIR, &e), IC_OK);
}

#define P(k, v) ((struct ic_param){k, v})
#define PI(k, v) {k, v} /* the same, in a static initializer */

static struct ic_serve_resp get(const char *path, const struct ic_param *p, size_t n)
{
    struct ic_serve_resp r;
    ck_assert_int_eq(ic_serve_handle(&db, path, p, n, &r), IC_OK);
    return r;
}

static bool body_has(const struct ic_serve_resp *r, const char *s)
{
    /* bodies are not NUL-terminated in general: search a copy */
    char *t = malloc(r->len + 1);
    memcpy(t, r->body, r->len);
    t[r->len] = '\0';
    bool ok = strstr(t, s) != NULL;
    free(t);
    return ok;
}

/* Copies src to dst, renaming the entry: its `name:` line becomes `name`. */
static void copy_renamed(const char *src, const char *dst, const char *name)
{
    FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(out);
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        if (strncmp(line, "name:", 5) == 0)
            fprintf(out, "name: %s\n", name);
        else if (strncmp(line, "aliases:", 8) != 0)
            fputs(line, out);
    }
    fclose(in);
    fclose(out);
}

/* serve --db DIR answers from DIR: a model only DIR holds is listed by
 * /api/options and decoded by /api/decode (the handler ran the command line
 * without --db, so the decode read the default folder: "unknown model"). */
START_TEST(test_db_folder_is_served)
{
    char dir[] = "/tmp/ic-serve-db-XXXXXX", p[256], q[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/hwdb", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/modeldb", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/modeldb/llama3-8b.yaml", IC_SRC_DIR);
    snprintf(q, sizeof q, "%s/modeldb/only-here.yaml", dir);
    copy_renamed(p, q, "only-here");
    char hq[256];
    snprintf(p, sizeof p, "%s/hwdb/h100-sxm.yaml", IC_SRC_DIR);
    snprintf(hq, sizeof hq, "%s/hwdb/h100-sxm.yaml", dir);
    copy_renamed(p, hq, "h100-sxm");
    struct ic_db own;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_db_init(&own, dir, &e), IC_OK);
    struct ic_serve_resp r;
    ck_assert_int_eq(ic_serve_handle(&own, "/api/options", NULL, 0, &r), IC_OK);
    ck_assert_uint_eq(r.status, 200);
    ck_assert(body_has(&r, "\"only-here\""));
    ck_assert(body_has(&r, "\"engines\": []")); /* the folder has no enginedb/ */
    ic_serve_resp_free(&r);
    const struct ic_param ps[] = {P("model", "only-here"), P("hw", "h100-sxm")};
    ck_assert_int_eq(ic_serve_handle(&own, "/api/decode", ps, 2, &r), IC_OK);
    ck_assert_msg(r.status == 200, "status %u", r.status);
    ck_assert(body_has(&r, "\"model\": \"only-here\""));
    ic_serve_resp_free(&r);
    /* a chip without achieved rates takes no engine profile */
    char cq[256];
    snprintf(p, sizeof p, "%s/tests/fixtures/measured-cpu.yaml", IC_SRC_DIR);
    snprintf(cq, sizeof cq, "%s/hwdb/test-cpu.yaml", dir);
    copy_renamed(p, cq, "test-cpu");
    const struct ic_param pe[] = {P("model", "only-here"), P("hw", "test-cpu"),
                                  P("engine", "vllm")};
    ck_assert_int_eq(ic_serve_handle(&own, "/api/decode", pe, 3, &r), IC_OK);
    ck_assert_uint_eq(r.status, 400);
    ck_assert(body_has(&r, "--engine: test-cpu has no achieved section"));
    ic_serve_resp_free(&r);
    unlink(cq);
    /* and the default folder does not know it */
    r = get("/api/decode", ps, 2);
    ck_assert_uint_eq(r.status, 400);
    ic_serve_resp_free(&r);
    /* an entry whose shipped quantization is not read: refused without
     * weights, as the command line refuses it (it was computed as bf16) */
    FILE *f = fopen(q, "a");
    ck_assert_ptr_nonnull(f);
    fputs("quantization_config: {quant_method: hqq}\n", f);
    fclose(f);
    ck_assert_int_eq(ic_serve_handle(&own, "/api/decode", ps, 2, &r), IC_OK);
    ck_assert_uint_eq(r.status, 400);
    ck_assert(body_has(&r, "quant_method 'hqq' is not read"));
    ic_serve_resp_free(&r);
    const struct ic_param pw[] = {P("model", "only-here"), P("hw", "h100-sxm"),
                                  P("weights", "int4")};
    ck_assert_int_eq(ic_serve_handle(&own, "/api/decode", pw, 3, &r), IC_OK);
    ck_assert_uint_eq(r.status, 200);
    ic_serve_resp_free(&r);
    unlink(q);
    unlink(hq);
    snprintf(p, sizeof p, "%s/hwdb", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/modeldb", dir);
    rmdir(p);
    rmdir(dir);
}
END_TEST

START_TEST(test_page)
{
    struct ic_serve_resp r = get("/", NULL, 0);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(r.type, "text/html; charset=utf-8");
    ck_assert(body_has(&r, "<select id=\"model\">"));
    ck_assert(body_has(&r, "id=\"batch\""));
    ck_assert(body_has(&r, "/chart/batch.png?"));
    /* its weights default to the model's own type, as /api/decode's do
     * (it sent bf16 whatever the model shipped) */
    ck_assert(body_has(&r, "{\"\": \"as shipped\"}"));
    ic_serve_resp_free(&r);
    /* the address's query is the page's state, not an error */
    const struct ic_param q[] = {P("model", "llama3-8b"), P("batch", "64")};
    r = get("/", q, 2);
    ck_assert_uint_eq(r.status, 200);
    ic_serve_resp_free(&r);
    r = get("/nothing-here", NULL, 0);
    ck_assert_uint_eq(r.status, 404);
    ic_serve_resp_free(&r);
}
END_TEST

/* /api/decode answers byte for byte what `--format json` writes: a point
 * that fits (docs/cases.md's 8.6 ms step), one that does not, whose
 * fewest_chips the command line fills in (Llama-3-70B in bf16 on one 80 GB
 * H100: 141 GB of weights, 2 chips hold it), a model whose entry gives
 * its shipped weights (gpt-oss-120b: mxfp4 experts, the rest bf16), the
 * expected estimate asked for, and an engine profile (which implies it) */
START_TEST(test_decode_json_is_the_cli_json)
{
    static const char *const cases[7][16] = {
        {"model", "llama3-70b", "hw", "v5e", "chips", "16", "batch", "32", "context", "8192",
         "weights", "int8", "kv", "int8", NULL},
        {"model", "llama3-70b", "hw", "h100", "chips", "1", "batch", "1", "context", "1024",
         NULL},
        {"model", "gpt-oss-120b", "hw", "h100", NULL},
        {"model", "llama3-70b", "hw", "h100", "chips", "8", "estimate", "expected", NULL},
        {"model", "llama3-70b", "hw", "mi300x", "chips", "8", "weights", "fp8", "engine",
         "vllm-0.10", NULL},
        /* past the KV heads (16 chips, 8 heads): the engine's placement
         * (vLLM copies: 20 sequences fit, test_cli's test_kv_placement_copy
         * by hand), and the parameter's over it (split: 40) */
        {"model", "llama3-70b", "hw", "v5e", "chips", "16", "batch", "32", "context", "8192",
         "engine", "vllm-0.19", NULL},
        {"model", "llama3-70b", "hw", "v5e", "chips", "16", "batch", "32", "context", "8192",
         "engine", "vllm-0.19", "kv-placement", "split", NULL},
    };
    for (int c = 0; c < 7; c++) {
        struct ic_param q[8];
        const char *argv[24] = {"infcalc"};
        int np = 0, na = 1;
        for (int k = 0; cases[c][k]; k += 2, np++) {
            q[np] = (struct ic_param){cases[c][k], cases[c][k + 1]};
            char *opt = malloc(strlen(cases[c][k]) + 3);
            sprintf(opt, "--%s", cases[c][k]);
            argv[na++] = opt;
            argv[na++] = cases[c][k + 1];
        }
        argv[na++] = "--format";
        argv[na++] = "json";
        struct ic_serve_resp r = get("/api/decode", q, (size_t)np);
        ck_assert_uint_eq(r.status, 200);
        ck_assert_str_eq(r.type, "application/json");
        /* the same command line, its stdout captured */
        FILE *o = tmpfile(), *e = tmpfile();
        ck_assert_int_eq(ic_cli_run(na, (char **)argv, o, e), 0);
        long n = ftell(o);
        rewind(o);
        char *want = malloc((size_t)n);
        ck_assert_uint_eq(fread(want, 1, (size_t)n, o), (size_t)n);
        ck_assert_uint_eq(r.len, (size_t)n);
        ck_assert(memcmp(r.body, want, (size_t)n) == 0);
        if (c == 0)
            ck_assert(body_has(&r, "\"step_s\": 0.0086"));
        else if (c == 1)
            ck_assert(body_has(&r, "\"fewest_chips\": {\"bf16\": 2,"));
        else if (c == 2)
            ck_assert(body_has(&r, "\"weights\": \"fp4\", \"weights_kept\": \"embedding, "
                                   "lm_head, attn_heads, attn_kv, replicated at bf16\""));
        else if (c == 3)
            ck_assert(body_has(&r, "\"estimate\": \"expected\",") &&
                      body_has(&r, "\"engine\": \"none\","));
        else if (c == 4)
            ck_assert(body_has(&r, "\"estimate\": \"expected\",") &&
                      body_has(&r, "\"engine\": \"vllm-0.10\","));
        else
            ck_assert(body_has(&r, c == 5 ? "\"max_batch\": 20," : "\"max_batch\": 40,"));
        free(want);
        fclose(o);
        fclose(e);
        ic_serve_resp_free(&r);
        for (int k = 1; k < na - 2; k += 2)
            free((char *)argv[k]);
    }
}
END_TEST

/* A Hugging Face id that a model entry lists as an alias is that entry, as
 * on the command line (/api/options lists it): the same body as its name. */
START_TEST(test_hf_id_alias)
{
    const struct ic_param a[] = {P("model", "meta-llama/Meta-Llama-3-8B"), P("hw", "h100")};
    const struct ic_param b[] = {P("model", "llama3-8b"), P("hw", "h100")};
    struct ic_serve_resp ra = get("/api/decode", a, 2), rb = get("/api/decode", b, 2);
    ck_assert_int_eq(ra.status, 200);
    ck_assert_int_eq(rb.status, 200);
    ck_assert_uint_eq(ra.len, rb.len);
    ck_assert(memcmp(ra.body, rb.body, ra.len) == 0);
    ic_serve_resp_free(&ra);
    ic_serve_resp_free(&rb);
}
END_TEST

START_TEST(test_bad_requests)
{
    static const struct {
        struct ic_param p[4];
        size_t n;
        const char *msg;
    } cases[] = {
        {{PI("model", "llama3-7b"), PI("hw", "h100")}, 2, "unknown model 'llama3-7b'"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("batch", "0")}, 3,
         "infcalc: error: --batch: 0 is out of range; expected 1 to 16777216"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("batch", "12abc")}, 3,
         "--batch: '12abc' is not a whole number"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("bach", "4")}, 3,
         "unknown parameter 'bach'; did you mean 'batch'?"},
        {{PI("model", "llama3-8b"), PI("hw", "a100"), PI("compute", "fp8")}, 3,
         "has no fp8 compute"},
        {{PI("model", "../../etc/passwd"), PI("hw", "h100")}, 2, "is not a database name"},
        {{PI("model", "/etc/passwd"), PI("hw", "h100")}, 2, "is not a database name"},
        /* "org/name" only as an entry's alias: never a path or a cache */
        {{PI("model", "etc/passwd"), PI("hw", "h100")}, 2, "is not a database name"},
        {{PI("model", "modeldb/llama3-8b"), PI("hw", "h100")}, 2, "is not a database name"},
        {{PI("model", "llama3-8b"), PI("hw", "x.yaml")}, 2, "is not a database name"},
        /* '-' is standard input to the loaders: the server's own, which
         * would block it (or echo what it holds) */
        {{PI("model", "-"), PI("hw", "h100")}, 2, "is not a database name"},
        {{PI("model", "llama3-8b"), PI("hw", "-")}, 2, "is not a database name"},
        {{PI("model", "-llama3-8b"), PI("hw", "h100")}, 2, "is not a database name"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("chips", "4,8,16")}, 3,
         "one value, not a list"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("weights", "\x01\xff")}, 3,
         "--weights: unknown type"},
        /* the server computes one configuration: no list hint ('--model a,b'
         * is refused above) */
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("model", "llama3-70b")}, 3,
         "parameter 'model' given twice\n  give it once; the server computes one configuration"},
        {{PI("model", "llama3-8b")}, 1, "needs --model and --hw"},
        /* an engine profile: by name only, never with the ideal bound */
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("engine", "../enginedb/vllm-0.6")}, 3,
         "is not a database name"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("engine", "vllm-0.6.yaml")}, 3,
         "is not a database name"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("engine", "vllm-0.7")}, 3,
         "unknown engine 'vllm-0.7'"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("estimate", "ideal"),
          PI("engine", "vllm")},
         4, "--engine: the ideal bound reads no engine profile"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("estimate", "best")}, 3,
         "--estimate: unknown value 'best'"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("estimat", "ideal")}, 3,
         "did you mean 'estimate'?"},
        {{PI("model", "llama3-8b"), PI("hw", "h100"), PI("kv-placement", "replicate")}, 3,
         "--kv-placement: unknown value 'replicate'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int path = 0; path < 2; path++) {
            struct ic_serve_resp r =
                get(path ? "/chart/batch.png" : "/api/decode", cases[i].p, cases[i].n);
            ck_assert_msg(r.status == 400, "case %zu: status %u", i, r.status);
            ck_assert_msg(body_has(&r, cases[i].msg), "case %zu: body lacks '%s'", i,
                          cases[i].msg);
            ic_serve_resp_free(&r);
        }
    /* too many parameters, too long a value */
    struct ic_param many[IC_SERVE_MAX_PARAMS + 1];
    for (size_t i = 0; i < IC_SERVE_MAX_PARAMS + 1; i++)
        many[i] = P("batch", "1");
    struct ic_serve_resp r = get("/api/decode", many, IC_SERVE_MAX_PARAMS + 1);
    ck_assert_uint_eq(r.status, 400);
    ic_serve_resp_free(&r);
    char longv[200];
    memset(longv, '1', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    const struct ic_param l[] = {P("model", "llama3-8b"), P("hw", "h100"), P("batch", longv)};
    r = get("/api/decode", l, 3);
    ck_assert_uint_eq(r.status, 400);
    ck_assert(body_has(&r, "longer than 95 characters"));
    ic_serve_resp_free(&r);
    /* a model's name may be 95 characters (modeldb's limit): such a value
     * reaches the lookup (it was refused past 64) */
    char name95[96];
    memset(name95, 'm', 95);
    name95[95] = '\0';
    const struct ic_param l95[] = {P("model", name95), P("hw", "h100")};
    r = get("/api/decode", l95, 2);
    ck_assert(!body_has(&r, "longer than"));
    ck_assert(body_has(&r, "unknown model"));
    ic_serve_resp_free(&r);
}
END_TEST

START_TEST(test_charts_follow_the_sliders)
{
    struct ic_param q[] = {P("model", "llama3-70b"), P("hw", "v5e"), P("chips", "16"),
                           P("batch", "8")};
    struct ic_serve_resp a = get("/chart/batch.png", q, 4);
    ck_assert_uint_eq(a.status, 200);
    ck_assert_str_eq(a.type, "image/png");
    ck_assert_uint_gt(a.len, 1000);
    ck_assert(memcmp(a.body, "\x89PNG\r\n\x1a\n", 8) == 0);
    q[3] = P("batch", "64"); /* the ring and its label move */
    struct ic_serve_resp b = get("/chart/batch.png", q, 4);
    ck_assert_uint_eq(b.status, 200);
    ck_assert(a.len != b.len || memcmp(a.body, b.body, a.len) != 0);
    struct ic_serve_resp c = get("/chart/context.png", q, 4);
    ck_assert_uint_eq(c.status, 200);
    ck_assert(memcmp(c.body, "\x89PNG", 4) == 0);
    ic_serve_resp_free(&a);
    ic_serve_resp_free(&b);
    ic_serve_resp_free(&c);
}
END_TEST

START_TEST(test_options)
{
    struct ic_serve_resp r = get("/api/options", NULL, 0);
    ck_assert_uint_eq(r.status, 200);
    /* with their aliases, which the page resolves an address's name by
     * (hw=v5e showed another chip's figures under it) */
    ck_assert(body_has(&r, "{\"name\": \"llama3-70b\", \"aliases\": [\"llama-3-70b\", "
                           "\"meta-llama/Meta-Llama-3-70B\"], \"params\": 70553706496"));
    ck_assert(body_has(&r, "{\"name\": \"tpu-v5e\", \"aliases\": [\"v5e\", \"v5litepod\"], "));
    ck_assert(body_has(&r, "\"types\": [\"fp32\", \"bf16\""));
    /* whether a chip takes an engine profile, and the profiles */
    ck_assert(body_has(&r, "\"hbm_bytes\": 16000000000, \"compute\": [\"bf16\", \"int8\"], "
                           "\"achieved\": true}"));
    ck_assert(body_has(&r, "\"engines\": [{\"name\": \"gpt-fast\", \"aliases\": [], "
                           "\"description\": "));
    ck_assert(body_has(&r, "{\"name\": \"vllm-0.19\", \"aliases\": [\"vllm\", "));
    ic_serve_resp_free(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("serve");
    TCase *tc = tcase_create("serve");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_page);
    tcase_add_test(tc, test_db_folder_is_served);
    tcase_add_test(tc, test_decode_json_is_the_cli_json);
    tcase_add_test(tc, test_bad_requests);
    tcase_add_test(tc, test_hf_id_alias);
    tcase_add_test(tc, test_charts_follow_the_sliders);
    tcase_add_test(tc, test_options);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
