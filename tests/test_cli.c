/* Command line: exit statuses (0 success, 2 bad usage or input), messages
 * that name the option and suggest the nearest names, --help on every
 * command, and outputs that agree with the library they print. */
#include "broken_fixtures.h"
#include "ic_cli.h"
#include "ic_test.h"
#include "ic_rows.h"
#include "ic_test_cli.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* the captured streams and the runner, by the names this file uses */
#define out_buf ic_test_out
#define err_buf ic_test_err
#define run ic_test_cli

static void has_err(const char *s)
{
    ck_assert_msg(strstr(err_buf, s), "stderr lacks '%s':\n%s", s, err_buf);
}

static void has_out(const char *s)
{
    ck_assert_msg(strstr(out_buf, s), "stdout lacks '%s':\n%s", s, out_buf);
}

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The number after "key": in a JSON text (first occurrence). */
static double json_num(const char *text, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(text, pat);
    ck_assert_msg(p, "no %s in JSON", key);
    return strtod(p + strlen(pat), NULL);
}

/* Field k (from 0) of a --requests-csv line as a number, and whether the
 * line's request was counted (its last field, 1 or 0) */
static double csv_field(const char *line, int k)
{
    for (int i = 0; i < k; i++) {
        line = strchr(line, ',');
        ck_assert_ptr_nonnull(line);
        line++;
    }
    return strtod(line, NULL);
}

static bool csv_counted(const char *line)
{
    const size_t len = strlen(line);
    ck_assert(len > 2 && (line[len - 2] == '0' || line[len - 2] == '1'));
    return line[len - 2] == '1';
}

START_TEST(test_main_example)
{
    /* infcalc --model llama3-70b --hw v5e --chips 16 --sweep batch, exactly */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--chips", "16", "--sweep",
                         "batch", NULL),
                     0);
    has_out("llama3-70b on 16 x tpu-v5e");
    has_out("step ms");
    has_out("weights ms");
    has_out("tok/s/chip");
    has_out("mem/chip GB");
    has_out("yes");
    has_out(" NO"); /* the sweep walks past the largest batch that fits */
    has_out("largest batch that fits 166");
    ck_assert_str_eq(err_buf, "");
}
END_TEST

START_TEST(test_json_agrees_with_library)
{
    /* --db: the same frozen copies ic_test_decode reads (tests/frozen) */
    ck_assert_int_eq(run("--db", IC_TEST_DIR "/frozen", "--model", "llama3-70b", "--hw", "v5e",
                         "--chips", "16", "--batch", "32", "--context", "8192", "--weights",
                         "int8", "--kv", "int8", "--format", "json", NULL),
                     0);
    struct ic_decode_cfg c = ic_decode_defaults();
    c.chips = 16;
    c.batch = 32;
    c.context = 8192;
    c.weights = c.kv = IC_DT_INT8;
    struct ic_point p = ic_test_decode("llama3-70b", "v5e", c);
    ck_assert(ic_test_rel(json_num(out_buf, "step_s"), p.step_s) < 1e-9);
    ck_assert(ic_test_rel(json_num(out_buf, "tokens_per_s_per_chip"), p.tokens_s_chip) < 1e-9);
    ck_assert(ic_test_rel(json_num(out_buf, "kv_bytes_per_token"), 163840) < 1e-12);
    ck_assert_double_eq(json_num(out_buf, "max_batch"), (double)p.max_batch);
    has_out("\"bound\": \"weights\"");
    has_out("\"precision\": {\"weights\": \"int8\", \"weights_kept\": \"none\", \"kv\": \"int8\", \"compute\": \"bf16\"}");
    has_out("\"fits\": true");
    ck_assert(!strstr(out_buf, "nan") && !strstr(out_buf, "inf"));
    /* an MoE at fp8: its routers read 16-bit (ic_step_load), and the label
     * says so; at bf16 nothing is kept apart */
    ck_assert_int_eq(run("--db", IC_TEST_DIR "/frozen", "--model", "deepseek-v3", "--hw", "h100",
                         "--chips", "8", "--weights", "fp8", "--format", "json", NULL),
                     0);
    has_out("\"weights\": \"fp8\", \"weights_kept\": \"MoE routers at bf16\"");
    ck_assert_int_eq(run("--db", IC_TEST_DIR "/frozen", "--model", "deepseek-v3", "--hw", "h100",
                         "--chips", "8", "--format", "json", NULL),
                     0);
    has_out("\"weights\": \"bf16\", \"weights_kept\": \"none\"");
}
END_TEST

START_TEST(test_sweeps)
{
    /* a sweep in JSON is an array; CSV has a header and one row per point */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "chips", "--format",
                         "csv", NULL),
                     0);
    ck_assert_uint_eq(lines(out_buf), 1 + 9); /* chips 1, 2, 4 ... 256 */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "context", "--format",
                         "json", NULL),
                     0);
    ck_assert(out_buf[0] == '[');
    ck_assert_int_eq(run("--model", "mixtral-8x7b", "--hw", "h100", "--chips", "2", "--sweep",
                         "precision", NULL),
                     0);
    has_out("int4  int8"); /* weights, KV: two columns apart */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "l4", "--sweep", "context,batch",
                         "--format", "csv", NULL),
                     0);
    ck_assert_uint_gt(lines(out_buf), 50);
}
END_TEST

START_TEST(test_bad_usage)
{
    ck_assert_int_eq(run("--model", "llama3-7b", "--hw", "v5e", NULL), 2);
    has_err("unknown model 'llama3-7b'");
    has_err("did you mean");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5", NULL), 2);
    has_err("unknown hardware 'v5'");
    /* a dash an editor made typographic ("\xe2\x80\x94chips", an em dash) */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "\xe2\x80\x94" "chips", "4",
                         NULL),
                     2);
    has_err("starts with a typographic dash, not two hyphens\n  write '--chips'\n");
    /* first on the line too (a command line pasted from a page), and
     * misspelt: the option it is nearest */
    ck_assert_int_eq(run("\xe2\x80\x94" "model", "llama3-8b", "--hw", "v5e", NULL), 2);
    has_err("write '--model'\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "\xe2\x80\x93" "chps", "4", NULL),
                     2);
    has_err("write '--chips'\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--chps", "4", NULL), 2);
    has_err("unknown option '--chps'");
    has_err("did you mean '--chips'?");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--batch", "0", NULL), 2);
    has_err("--batch: 0 is out of range");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--batch", "32k", NULL), 2);
    has_err("--batch: '32k' is not a whole number");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--chips", "-1", NULL), 2);
    has_err("--chips");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--context",
                         "99999999999999999999999", NULL),
                     2);
    has_err("--context");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "a100", "--compute", "fp8", NULL), 2);
    has_err("a100-80gb-sxm has no fp8 compute (it lists: fp32 bf16 fp16 int8 int4)");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--weights", "bf17", NULL), 2);
    has_err("--weights: unknown type 'bf17'");
    /* a config.json's name of a type, and an axis in capitals, are near theirs */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--weights", "bfloat16", NULL), 2);
    has_err("did you mean 'bf16'?");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--sweep", "Batch", NULL), 2);
    has_err("--sweep: unknown axis 'Batch'; expected batch, context, chips or precision\n"
            "  did you mean 'batch'?");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--format", "xml", NULL), 2);
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--sweep", "bach", NULL), 2);
    has_err("--sweep: unknown axis 'bach'");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--sweep", "batch", "--batch",
                         "4", NULL),
                     2);
    /* --batch takes one value (no list to suggest), --context a list */
    has_err("without --sweep, --batch times the one value given");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--sweep", "context", "--context",
                         "4", NULL),
                     2);
    has_err("list them without --sweep ('--context A,B')");
    ck_assert_int_eq(run("--model", "llama3-8b", NULL), 2);
    has_err("needs --model and --hw");
    ck_assert_int_eq(run("lst", "hw", NULL), 2);
    has_err("unknown command 'lst'");
    has_err("did you mean 'list'?");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--model", "x", NULL), 2);
    has_err("given twice");
    /* the list a list option given twice means: its values once each (a
     * repeat or an empty value is refused), or "give it once" for one */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--chips", "8", "--chips",
                         "8,16,,8", NULL),
                     2);
    has_err("give it once; several values are one list: '--chips 8,16'\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--chips", "8", "--chips", "8",
                         NULL),
                     2);
    has_err("option '--chips' given twice\n  give it once\n");
    /* values alike by value or type; names, which may be one entry's
     * aliases, by the list's form */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--context", "2048", "--context",
                         "2048.0,4096", NULL),
                     2);
    has_err("several values are one list: '--context 2048,4096'\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--hw", "h100-sxm", NULL), 2);
    has_err("give it once; several entries are one list, each once: '--hw A,B'\n");
    ck_assert_int_eq(run(NULL), 2); /* no arguments: usage on stderr */
    has_err("usage: infcalc");
}
END_TEST

START_TEST(test_bad_files)
{
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/bad/model-kv-heads.yaml", "--hw",
                         "v5e", NULL),
                     2);
    has_err("model-kv-heads.yaml:8:22: error: num_attention_heads (16) is not a multiple");
    has_err("^"); /* the caret under the column */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw",
                         IC_TEST_DIR "/fixtures/bad/hw-typo-key.yaml", NULL),
                     2);
    has_err("hw-typo-key.yaml:6:3: error: unknown key 'bandwith'");
    ck_assert_int_eq(run("--model", "/nonexistent/model.yaml", "--hw", "v5e", NULL), 2);
    has_err("cannot open file");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures", "--hw", "v5e", NULL), 2);
    has_err("is a folder");
}
END_TEST

/* Every case of the broken-input corpus through the command line: exit
 * status 2, nothing on stdout, and "path:line:col: error: message" (with
 * the hint) on stderr. Hardware fixtures go with a good model and model
 * fixtures with a good chip, so the fixture's is the only error. */
START_TEST(test_corpus)
{
    const struct broken *b = &broken[_i];
    char path[600], want[800];
    snprintf(path, sizeof path, "%s/fixtures/bad/%s", IC_TEST_DIR, b->file);
    int rc = b->model ? run("--model", path, "--hw", "h100", NULL)
                      : run("--model", "llama3-8b", "--hw", path, NULL);
    ck_assert_msg(rc == 2, "%s: exit status %d", b->file, rc);
    ck_assert_str_eq(out_buf, "");
    snprintf(want, sizeof want, "%s:%u:%u: error: ", path, b->line, b->col);
    ck_assert_msg(strncmp(err_buf, want, strlen(want)) == 0, "%s: stderr does not start '%s':\n%s",
                  b->file, want, err_buf);
    has_err(b->msg);
    if (b->hint)
        has_err(b->hint);
}
END_TEST

/* The command-line half of the broken-input corpus: what only the command line
 * can get wrong. */
START_TEST(test_compute_type_missing)
{
    /* a type the chip does not list is an error naming what it lists */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--compute", "fp8", NULL), 2);
    has_err("infcalc: error: --compute fp8: tpu-v5e has no fp8 compute (it lists: bf16 int8)");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", IC_TEST_DIR "/fixtures/good-hw.yaml",
                         "--compute", "int8", NULL),
                     2);
    has_err("--compute int8: test-chip has no int8 compute (it lists: bf16)");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--compute", "fp4", NULL), 2);
    has_err("--compute fp4: h100-sxm has no fp4 compute (it lists: fp32 bf16 fp16 fp8 int8)");
    /* the serving analyses say it of the option too (they named the entry's
     * compute section, a file with nothing wrong in it) */
    static const char *const cmds[] = {"prefill", "simulate", "cost", "disagg", "batching",
                                       "prefix", "moe"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        ck_assert_int_eq(run(cmds[i], "--model", i == 6 ? "mixtral-8x7b" : "llama3-8b", "--hw",
                             "h100", "--compute", "fp4", NULL),
                         2);
        has_err("infcalc: error: --compute fp4: h100-sxm has no fp4 compute");
    }
    /* in a list, the one chip that lacks it fails the run before any output */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100,a100", "--compute", "fp8", NULL),
                     2);
    has_err("a100-80gb-sxm has no fp8 compute");
    ck_assert_str_eq(out_buf, "");
    /* the types it does list work */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "v5e", "--compute", "int8", NULL), 0);
    has_out("compute int8");
}
END_TEST

START_TEST(test_kv_heads_unshardable)
{
    /* Llama-3-8B has 8 KV heads. 3 chips cannot split them: the cache splits
     * by batch instead (the design's "by KV heads first, then by batch"), and
     * the output says so. Batch 4 on 3 chips: the busiest holds 2 sequences
     * of 2048 tokens x 131072 B = 536870912 B, read at 3.35 TB/s = 160.26 us. */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "3", "--batch", "4",
                         NULL),
                     0);
    has_out("split 1 way by head, 3 by batch");
    has_out("3 chips do not split the query heads evenly");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "3", "--batch", "4",
                         "--format", "json", NULL),
                     0);
    has_out("\"kv_split\": {\"heads\": 1, \"batch\": 3, \"placement\": \"split\"}");
    has_out("\"uneven_split\": true");
    ck_assert(ic_test_rel(json_num(out_buf, "kv_s"), 536870912.0 / 3.35e12) < 1e-3);
    /* 16 chips: 8 ways by head, then 2 by batch */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "16", "--batch", "4",
                         "--format", "json", NULL),
                     0);
    has_out("\"kv_split\": {\"heads\": 8, \"batch\": 2, \"placement\": \"split\"}");
    /* MLA's one latent cannot split by head at all */
    ck_assert_int_eq(run("--model", "deepseek-v3", "--hw", "h200", "--chips", "8", "--format",
                         "json", NULL),
                     0);
    has_out("\"kv_split\": {\"heads\": 1, \"batch\": 8, \"placement\": \"split\"}");
    /* no warning of an uneven split; the one line is the note of the weights
       as shipped (fp8 blocks, modeldb/deepseek-v3.yaml) */
    ck_assert_ptr_null(strstr(err_buf, "warning"));
    ck_assert_ptr_nonnull(strstr(err_buf, "infcalc: note: deepseek-v3 weights fp8"));
}
END_TEST

START_TEST(test_context_warning)
{
    /* past max_position_embeddings: computed, with a warning, exit 0 */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--context", "16384", NULL), 0);
    ck_assert_str_eq(err_buf, "infcalc: warning: --context 16384 exceeds llama3-8b's "
                              "max_position_embeddings (8192)\n");
    has_out("llama3-8b on 1 x h100-sxm, context 16384");
    /* at the limit: no warning */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--context", "8192", NULL), 0);
    ck_assert_str_eq(err_buf, "");
    /* a list warns for the one value past it only */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--context", "4096,1000000",
                         "--format", "json", NULL),
                     0);
    ck_assert_str_eq(err_buf, "infcalc: warning: --context 1000000 exceeds llama3-8b's "
                              "max_position_embeddings (8192)\n");
    ck_assert(!strstr(out_buf, "nan") && !strstr(out_buf, "inf"));
    /* a windowed model's header: the full-attention bytes a token, and
     * what a token holds at the context (Mistral 7B, every layer windowed
     * at 4096: 131072 x 4096 / 32768 = 16384); none said within the window */
    ck_assert_int_eq(run("--model", "mistral-7b", "--hw", "h100", "--context", "32768", NULL), 0);
    has_out("KV 131072 B/token (16384 held a token at context 32768: sliding windows), ");
    ck_assert_int_eq(run("--model", "mistral-7b", "--hw", "h100", "--context", "4096", NULL), 0);
    has_out("KV 131072 B/token, ");
}
END_TEST

/* --kv-placement copy: Llama-3-70B on 16 v5e (8 KV heads), batch 32 at
 * context 8192, the ideal bound: weights 141,729,988,608 B / 16 chips /
 * 8.2e11 B/s = 10.802 ms either way; the cache split by head 8 ways, then
 * by batch 2 ways (16 of the 32 sequences a chip) or copied (all 32), each
 * sequence's 8192 tokens read and its new one written, 327,680 / 8 = 40,960
 * B a token a chip: 32 x 8193 x 40,960 B = 10,738,728,960 B, 13.096 ms
 * (6.548 ms split); the step is their sum (the compute, 32 tokens, is far
 * below).
 * The largest batch that fits halves, 40 to 20. */
START_TEST(test_kv_placement_copy)
{
    const char *base[] = {"--model", "llama3-70b", "--hw", "v5e", "--chips", "16", "--batch",
                          "32", "--context", "8192", "--format", "json"};
    double step[2], kv[2], most[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run(base[0], base[1], base[2], base[3], base[4], base[5], base[6],
                             base[7], base[8], base[9], base[10], base[11], "--kv-placement",
                             i ? "copy" : "split", NULL),
                         0);
        step[i] = json_num(out_buf, "step_s");
        kv[i] = json_num(out_buf, "kv_s");
        most[i] = json_num(out_buf, "max_batch");
    }
    const double w = 141729988608.0 / 16 / 8.2e11, k = 32.0 * 8193 * 40960 / 8.2e11;
    ck_assert_msg(ic_test_rel(kv[1], k) < 1e-9, "kv %g vs %g", kv[1], k);
    ck_assert_msg(ic_test_rel(kv[0], k / 2) < 1e-9, "kv %g vs %g", kv[0], k / 2);
    ck_assert_msg(ic_test_rel(step[1], w + k) < 1e-9, "step %g vs %g", step[1], w + k);
    ck_assert_msg(ic_test_rel(step[0], w + k / 2) < 1e-9, "step %g vs %g", step[0], w + k / 2);
    ck_assert_msg(most[0] == 40 && most[1] == 20, "largest batch %g, %g", most[0], most[1]);
    /* the table says the split is a lower bound (16 chips, 8 KV heads: 2
     * ways by batch), and not of the copy */
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run(base[0], base[1], base[2], base[3], base[4], base[5], base[6],
                             base[7], "--kv-placement", i ? "copy" : "split", NULL),
                         0);
        const char *note = "note: past the KV heads the cache splits 2 ways by batch, a lower "
                           "bound on what a chip holds";
        ck_assert(i ? !strstr(out_buf, "cache splits") : strstr(out_buf, note) != NULL);
    }
    /* an engine that copies (vLLM's QKVParallelLinear: enginedb's
     * defaults.kv_placement) places the cache so without the option, and
     * the option overrides it: the ideal bound beside the expected step is
     * the step above, the expected cache read doubles (2 chips a head) */
    double kv_e[2];
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run(base[0], base[1], base[2], base[3], base[4], base[5], base[6],
                             base[7], base[8], base[9], base[10], base[11], "--engine",
                             "vllm-0.19", i ? NULL : "--kv-placement", "split", NULL),
                         0);
        const char *other = strstr(out_buf, "\"time_other\"");
        ck_assert_ptr_nonnull(other);
        const double ideal = json_num(other, "step_s"), want = i ? w + k : w + k / 2;
        ck_assert_msg(ic_test_rel(ideal, want) < 1e-9, "ideal %g vs %g", ideal, want);
        ck_assert_msg(json_num(out_buf, "max_batch") == (i ? 20 : 40), "largest batch %g",
                      json_num(out_buf, "max_batch"));
        kv_e[i] = json_num(out_buf, "kv_s");
    }
    ck_assert_msg(ic_test_rel(kv_e[1], 2 * kv_e[0]) < 1e-9, "kv %g vs 2 x %g", kv_e[1], kv_e[0]);
    /* a profile that states no placement (gpt-fast) leaves the split */
    ck_assert_int_eq(run(base[0], base[1], base[2], base[3], base[4], base[5], base[6], base[7],
                         base[8], base[9], base[10], base[11], "--engine", "gpt-fast", NULL),
                     0);
    ck_assert_msg(json_num(out_buf, "max_batch") == 40, "largest batch %g",
                  json_num(out_buf, "max_batch"));
}
END_TEST

/* --comm overlap with an accelerator's expected time: not read there (its
 * all-reduces come after the kernels: the same output as --comm serial up
 * to the ideal bound shown beside it, which reads it), and said; with the
 * ideal bound, read, and nothing said */
START_TEST(test_comm_overlap_expected)
{
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--estimate",
                         "expected", "--comm", "serial", "--format", "json", NULL),
                     0);
    ck_assert_str_eq(err_buf, "");
    char *serial = strdup(out_buf);
    ck_assert_ptr_nonnull(serial);
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--estimate",
                         "expected", "--comm", "overlap", "--format", "json", NULL),
                     0);
    const char *other = strstr(serial, "\"time_other\"");
    ck_assert_ptr_nonnull(other);
    ck_assert_int_eq(strncmp(out_buf, serial, (size_t)(other - serial)), 0);
    ck_assert_str_ne(out_buf, serial); /* the ideal bound beside it overlaps */
    free(serial);
    has_err("warning: --comm overlap is not read by the expected time on an accelerator");
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--estimate",
                         "ideal", "--comm", "overlap", NULL),
                     0);
    ck_assert_str_eq(err_buf, "");
    /* simulate's steps the same (said once, whatever the steps) */
    ck_assert_int_eq(run("simulate", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--estimate", "expected", "--comm", "overlap", "--requests", "100",
                         NULL),
                     0);
    ck_assert_str_eq(err_buf, "infcalc: warning: --comm overlap is not read by the expected "
                              "time on an accelerator: engines run the all-reduces between "
                              "the layers' kernels, so its collectives come after them "
                              "(--estimate ideal overlaps them)\n");
}
END_TEST

/* memory.kind names the memory the decode header and show print (16 GB
 * of GDDR6X here); an entry without it says "memory"; the family is read
 * in either case ("gddr6x" as given); given empty it names nothing, and a
 * generation of more than 3 letters or digits is no datasheet's */
START_TEST(test_memory_kind)
{
    /* the entry, its memory section's kind line between head and tail */
    static const char head[] =
        "name: kind-chip\nvendor: Test\nmemory:\n  capacity: 16 GB\n  bandwidth: 1 TB/s\n";
    static const char tail[] =
        "  source: \"test fixture\"\ncompute:\n  bf16: 100 TFLOP/s\n  source: \"test fixture\"\n"
        "interconnect:\n  kind: none\n  topology: none\n  link_bandwidth_one_way: 0 GB/s\n"
        "  links_per_chip: 0\n  domain_chips: 1\n  hop_latency: 0 us\n  source: \"test fixture\"\n"
        "scale_out:\n  kind: none\n  bandwidth_one_way: 0 GB/s\n  latency: 0 us\n"
        "  source: \"test fixture\"\nhost_link:\n  kind: pcie\n  bandwidth_one_way: 16 GB/s\n"
        "  source: \"test fixture\"\nprice:\n  usd_per_chip_hour: 1.00\n  as_of: 2025-01\n"
        "  source: \"test fixture\"\nsources:\n  - \"test fixture\"\n";
    static const struct {
        const char *kind; /* the memory section's kind line */
        const char *cmd;  /* decode, json or show */
        int rc;
        const char *out;  /* in standard output (rc 0) or the error */
    } cases[] = {
        {"  kind: GDDR6X\n", "decode", 0, "; GDDR6X 16 GB per chip\n"},
        {"  kind: GDDR6X\n", "json", 0, "\"capacity_bytes\": 16000000000, \"kind\": \"GDDR6X\","},
        {"  kind: GDDR6X\n", "show", 0, "memory: 16 GB GDDR6X (14.9 GiB), 1 TB/s\n"},
        {"", "decode", 0, "; memory 16 GB per chip\n"},
        {"", "show", 0, "memory: 16 GB (14.9 GiB), 1 TB/s\n"},
        {"  kind: gddr6x\n", "decode", 0, "; gddr6x 16 GB per chip\n"},
        {"  kind: \"\"\n", "show", 2, ":6:9: error: unknown memory kind ''"},
        {"  kind: HBM3eXL\n", "decode", 2, ":6:9: error: unknown memory kind 'HBM3eXL'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[sizeof head + sizeof tail + 32], path[64], yaml[80];
        snprintf(text, sizeof text, "%s%s%s", head, cases[i].kind, tail);
        ic_test_write_tmp(path, text);
        snprintf(yaml, sizeof yaml, "%s.yaml", path); /* --hw reads a .yaml as a path */
        ck_assert_int_eq(rename(path, yaml), 0);
        const int rc = !strcmp(cases[i].cmd, "show")
                           ? run("show", "hw", yaml, NULL)
                           : run("--model", "llama3.2-1b", "--hw", yaml, "--format",
                                 !strcmp(cases[i].cmd, "json") ? "json" : "table", NULL);
        ck_assert_int_eq(rc, cases[i].rc);
        if (rc)
            has_err(cases[i].out);
        else
            has_out(cases[i].out);
        remove(yaml);
    }
    /* the L4's, from its datasheet; list's columns name no kind */
    ck_assert_int_eq(run("show", "hw", "l4", NULL), 0);
    has_out("memory: 24 GB GDDR6 (22.35 GiB), 300 GB/s\n");
    ck_assert_int_eq(run("list", "hw", NULL), 0);
    has_out(" memory      mem BW ");
}
END_TEST

/* a profile whose defaults.max_batch (2^24 sequences) leaves simulate no
 * memory for the cache: the hint says the limit is the profile's, which
 * --max-seqs overrides (it named only --max-seqs, which the user had not
 * given) */
START_TEST(test_sim_profile_max_batch)
{
    char path[64];
    ic_test_write_tmp(path, "name: huge-batch\nengine: test\nversion: \"1\"\nstep:\n"
                            "  source: \"test fixture\"\ndefaults:\n  max_batch: 16777216\n"
                            "  source: \"test fixture\"\nsources: [\"test fixture\"]\n");
    char yaml[80];
    snprintf(yaml, sizeof yaml, "%s.yaml", path);
    ck_assert_int_eq(rename(path, yaml), 0);
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--engine", yaml,
                         NULL),
                     2);
    has_err("(16777216 sequences at once is huge-batch's defaults.max_batch)");
    remove(yaml);
}
END_TEST

/* a trace's requests past max_position_embeddings are said to be, as
 * --prompt + --output are: the longest, 6000 + 3000 = 9000 against
 * llama3-8b's 8192 (one of 4000 + 100 within it) */
START_TEST(test_trace_context_warning)
{
    char path[64];
    ic_test_write_tmp(path, "0,4000,100\n0.5,6000,3000\n");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         NULL),
                     0);
    has_err("infcalc: warning: the trace's longest request, prompt + output (9000 tokens) "
            "exceeds llama3-8b's max_position_embeddings (8192)\n");
    has_err("infcalc: note: 2 requests counted"); /* the trace's two, no warm-up */
    /* a trace replayed draws nothing: a seed is refused; with --rate its
     * arrivals are drawn, and the seed is read */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--seed", "3", NULL),
                     2);
    has_err("--seed: this run draws nothing at random (the trace's arrivals and lengths)");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--seed", "3", "--rate", "1", NULL),
                     0);
    /* the rate offered: none where the trace sets the arrivals (null, not
     * 0, which reads as all at once), the --rate given with one */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--format", "json", NULL),
                     0);
    has_out("\"engine\": \"none\", \"rate_per_s\": null, ");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--rate", "1", "--format", "json", NULL),
                     0);
    has_out("\"engine\": \"none\", \"rate_per_s\": 1, ");
    remove(path);
}
END_TEST

/* 6 chips split Llama-3-70B's 64 query heads 11 and 10 (its 8 KV heads
 * unevenly too): the serving commands say so, as decode's table does; 8
 * split them evenly and say nothing */
START_TEST(test_uneven_split_noted)
{
    ck_assert_int_eq(run("prefill", "--model", "llama3-70b", "--hw", "h100", "--chips", "6",
                         NULL),
                     0);
    has_err("infcalc: note: the prefill: 6 chips do not split llama3-70b's query heads "
            "evenly; the busiest chip holds the most and sets the time\n");
    ck_assert_int_eq(run("simulate", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--prefill-chips", "6", "--requests", "20", NULL),
                     0);
    has_err("infcalc: note: a prefill server: 6 chips do not split");
    ck_assert(!strstr(err_buf, "a decode server: 8 chips"));
    ck_assert_int_eq(run("prefill", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         NULL),
                     0);
    ck_assert(!strstr(err_buf, "do not split"));
    ck_assert(!strstr(err_buf, "query heads:"));
    /* past the 64 query heads: each chip a whole head's copy, 256 / 64 = 4
     * (decode's table and the other commands' notes) */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--chips", "256", NULL), 0);
    has_out("note: 256 chips for 64 query heads: a chip holds one whole head's projections: 4 "
            "copies of them are held and read\n");
    ck_assert_int_eq(run("prefill", "--model", "llama3-70b", "--hw", "v5e", "--chips", "128",
                         NULL),
                     0);
    has_err("infcalc: note: the prefill: 128 chips for llama3-70b's 64 query heads: a chip holds "
            "one whole head's projections: 2 copies");
    /* H100's NVLink domain is 8 chips: 16 span two, joined by the scale-out network */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "16", NULL), 0);
    has_out("all-reduced per chip; 2 fabric domains of 8 chips, joined by the scale-out network)");
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", NULL), 0);
    ck_assert(!strstr(out_buf, "fabric domains"));
    /* 11 chips group as 11 domains of 1 (the largest divisor within 8) */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "11", NULL), 0);
    has_out("; 11 fabric domains of 1 chip, joined by the scale-out network)");
    /* a chips sweep (1 .. 256) passes the 64 heads: said once, in general */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--sweep", "chips", NULL), 0);
    has_out("note: past 64 chips, the query heads, a chip holds one whole head's projections: "
            "chips / 64 copies of them are held and read\n");
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "v5e", "--chips", "64", NULL),
                     0);
    has_err("infcalc: note: a replica: 64 chips for mixtral-8x7b's 32 query heads:");
    /* groups: the chips in all said, and whose a batch is */
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "h100", "--chips", "2", "--ep",
                         "4", NULL),
                     0);
    has_out("mixtral-8x7b on 2 x h100-sxm per expert-parallel group, 4 groups (8 chips in all; a "
            "batch is a group's)");
}
END_TEST

/* A measured entry (a kernel's own rates) whose bf16 matmul, 150 GFLOP/s,
 * beats the fp32 peak the ideal bound uses, 80 GFLOP/s: at batch 256 the
 * step is compute-bound, Llama-3.2-1B's 2 x 1.24e9 x 256 FLOPs at most
 * 150e9 FLOP/s against 80e9, so the expected step is under the bound, and
 * said to be, with both rates; at batch 1 the step reads its weights at
 * the measured 20 GB/s against the spec's 1 TB/s, over the bound, and no
 * note */
START_TEST(test_measured_under_ideal)
{
    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw",
                         IC_TEST_DIR "/fixtures/measured-cpu-fast-bf16.yaml", "--weights",
                         "bf16", "--compute", "fp32", "--batch", "256", "--context", "128", NULL),
                     0);
    has_err("infcalc: note: test-cpu's expected step (its measured rates) is under its ideal "
            "bound at batch 256, context 128: the kernel's measured bf16 matmul, 150 GFLOP/s, "
            "beats the fp32 peak the bound uses, 80 GFLOP/s");
    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw",
                         IC_TEST_DIR "/fixtures/measured-cpu-fast-bf16.yaml", "--weights",
                         "bf16", "--compute", "fp32", "--batch", "1", "--context", "128", NULL),
                     0);
    ck_assert(!strstr(err_buf, "under its ideal bound"));
}
END_TEST

/* where the entry has figures but not for this configuration, the table
 * says why the other estimate is missing (the fixture measured fp32 and
 * bf16 GEMVs, no int4) rather than leaving the line out */
START_TEST(test_other_estimate_why)
{
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", IC_TEST_DIR "/fixtures/measured-cpu.yaml",
                         "--compute", "fp32", "--weights", "int4", "--estimate", "ideal", NULL),
                     0);
    has_out("    expected           -            (test-cpu has no measured rates for int4, the "
            "--weights type)\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", IC_TEST_DIR "/fixtures/measured-cpu.yaml",
                         "--compute", "fp32", "--weights", "fp32", "--estimate", "ideal", NULL),
                     0);
    ck_assert(!strstr(out_buf, "has no measured rates"));
    /* a measured entry's matmul at batch 1 is the weight read's: its
     * compute term, the time past one batch-1 pass, is 0 there
     * (flops / rate(1) - flops / 1 / rate(1)), and the line says why */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", IC_TEST_DIR "/fixtures/measured-cpu.yaml",
                         "--compute", "fp32", "--weights", "fp32", NULL),
                     0);
    has_out("    linear compute     0 ns         (");
    has_out("FLOP per step; the matmul's time past one pass at its batch-1 rate, which "
            "the weight read holds)\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", NULL), 0);
    ck_assert(!strstr(out_buf, "batch-1 rate"));
    /* each line its own FLOPs: the linear layers' 2 x 7,504,924,672 active
     * parameters, attention's 4 x 32 layers x 32 heads x 128 x 2048 =
     * 1,073,741,824 (QK^T and AV over the context) */
    has_out("    linear compute     15.2 us      (1.5e+10 FLOP per step)\n");
    has_out("    attention compute  1.09 us      (1.07e+09 FLOP per step)\n");
}
END_TEST

/* The serving analyses at the expected estimate (and with an engine
 * profile) time their steps as decode and prefill do: each figure below is
 * a decode step or a prefill of `infcalc --estimate expected` (or
 * `prefill`) for the same configuration, by a second command. Llama-3-8B
 * on one H100, prompt 2048, output 256. */
static double num_after(int rc, const char *key)
{
    ck_assert_msg(rc == 0, "exit %d: %s", rc, err_buf);
    return json_num(out_buf, key);
}
#define cli_num(key, ...) num_after(run(__VA_ARGS__, "--format", "json", NULL), key)

START_TEST(test_serving_at_expected)
{
    /* prefill's bound is the largest term its table shows: Llama-3-70B's
     * 32k prompt on 16 v5e at the achieved rates, compute (linear +
     * attention) 2.37 s over collectives 2.15 s (which passed the linear
     * part alone, 1.81 s, and read as the bound) */
    ck_assert_int_eq(run("prefill", "--model", "llama3-70b", "--hw", "v5e", "--chips", "16",
                         "--prompt", "32768", "--estimate", "expected", "--format", "json", NULL),
                     0);
    const double pc = json_num(out_buf, "compute_s"), pm = json_num(out_buf, "comm_s");
    ck_assert_double_gt(pc, pm);
    ck_assert_double_gt(pm, 0.8 * pc); /* close: the case the finer terms flip */
    has_out("\"bound\": \"compute\"");
#define MH "--model", "llama3-8b", "--hw", "h100"
#define EXP "--estimate", "expected"
    /* decode steps: batch 32 at the mean context 2048 + 128, batch 1 and
     * 32 at 2048, batch 4 at 2176 */
    const double d32 = cli_num("step_s", MH, EXP, "--batch", "32", "--context", "2176");
    const double d32i = cli_num("step_s", MH, "--estimate", "ideal", "--batch", "32",
                                "--context", "2176");
    ck_assert_double_gt(d32, 1.2 * d32i); /* the estimate is applied */
    const double d1 = cli_num("step_s", MH, EXP, "--batch", "1", "--context", "2048");
    const double d32c = cli_num("step_s", MH, EXP, "--batch", "32", "--context", "2048");
    const double d4 = cli_num("step_s", MH, EXP, "--batch", "4", "--context", "2176");
    const double pf = cli_num("ttft_s", "prefill", MH, EXP, "--prompt", "2048", "--attention",
                              "flash");
    const double pfi = cli_num("ttft_s", "prefill", MH, "--prompt", "2048", "--attention",
                               "flash");
    ck_assert_double_ne(pf, pfi);
    ck_assert_double_eq_tol(cli_num("decode_step_s", "disagg", MH, EXP, "--batch", "32",
                                    "--prompt", "2048", "--output", "256"),
                            d32, 1e-12);
    ck_assert_double_eq_tol(json_num(out_buf, "prefill_s"), pf, 1e-12);
    ck_assert_double_eq_tol(cli_num("ttft_miss_s", "prefix", MH, EXP, "--prompt", "2048",
                                    "--prefix", "1024"),
                            pf, 1e-12);
    ck_assert_double_eq_tol(cli_num("target_step_s", "specdec", MH, EXP, "--accept", "0.8",
                                    "--draft", "llama3.2-1b", "--k", "4"),
                            d1, 1e-12);
    ck_assert_double_lt(ic_test_rel(cli_num("tokens_per_s", "cost", MH, EXP), 1 / d1), 1e-9);
    ck_assert_double_eq_tol(cli_num("time_s", "bestofn", MH, EXP, "--success", "0.3", "--n",
                                    "4", "--prompt", "2048", "--output", "256"),
                            pf + 255 * d4, 1e-9);
    ck_assert_double_eq_tol(cli_num("decode_step_s", "prefill", MH, EXP, "--prompt", "2048",
                                    "--chunk", "512", "--batch", "32", "--context", "2048",
                                    "--attention", "flash"),
                            d32c, 1e-12);
    ck_assert_double_eq_tol(json_num(out_buf, "prefill_alone_s"), pf, 1e-12);
    /* an engine profile implies the expected estimate, for decode and the
     * analyses alike */
    const double de = cli_num("step_s", MH, "--engine", "vllm-0.10", "--batch", "32",
                              "--context", "2176");
    ck_assert_double_ne(de, d32);
    ck_assert_double_eq_tol(cli_num("decode_step_s", "disagg", MH, "--engine", "vllm-0.10",
                                    "--batch", "32", "--prompt", "2048", "--output", "256"),
                            de, 1e-12);
    /* and its JSON says what timed it, as decode's does */
    has_out("\"estimate\": \"expected\", \"engine\": \"vllm-0.10\"");
    /* --mfu is the ideal bound's */
    ck_assert_int_eq(run("prefill", MH, EXP, "--mfu", "0.5", NULL), 2);
    has_err("--mfu sets the ideal bound's prefill");
#undef MH
#undef EXP
}
END_TEST

/* simulate's JSON says the layout its per-chip figures divide by: one
 * prefill server of 1 chip for two decode replicas of 1 is 3 chips, the
 * per-chip output a third of the whole; colocated, no prefill server and
 * no hand-off */
START_TEST(test_sim_layout_fields)
{
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--prompt", "512",
                         "--output", "32", "--requests", "20", "--prefill-chips", "1",
                         "--prefill-servers", "1", "--replicas", "2", "--format", "json", NULL),
                     0);
    has_out("\"replicas\": 2, \"prefill_servers\": 1, \"chips\": 3, \"kv_transfer_mean_s\": 0.");
    /* the mean batch and KV used are the decode servers'; the prefill
     * server's apart (a step of its 512-token prompts holds at least one) */
    ck_assert_double_ge(json_num(out_buf, "prefill_mean_batch"), 1);
    ck_assert_double_gt(json_num(out_buf, "prefill_kv_occupancy"), 0);
    ck_assert_double_lt(ic_test_rel(json_num(out_buf, "output_tokens_per_s_per_chip"),
                                    json_num(out_buf, "output_tokens_per_s") / 3),
                        1e-9);
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--prompt", "512",
                         "--output", "32", "--requests", "20", "--format", "json", NULL),
                     0);
    has_out("\"replicas\": 1, \"prefill_servers\": 0, \"chips\": 1, \"kv_transfer_mean_s\": null, "
            "\"prefill_mean_batch\": null, \"prefill_kv_occupancy\": null");
    /* and what was simulated, at which estimate: the ideal bound unless
     * asked, the expected under an engine's profile */
    has_out("{\"model\": \"llama3-8b\", \"hw\": \"h100-sxm\", \"estimate\": \"ideal\", "
            "\"engine\": \"none\", ");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--prompt", "512",
                         "--output", "32", "--requests", "20", "--engine", "vllm-0.19",
                         "--format", "csv", NULL),
                     0);
    has_out("model,hw,estimate,engine,rate_per_s,");
    has_out("\nllama3-8b,h100-sxm,expected,vllm-0.19,");
    /* the table's title says whose they are; 1 chip, 1 sequence: singular */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--prompt", "512",
                         "--output", "32", "--requests", "20", "--prefill-chips", "1",
                         "--max-seqs", "1", NULL),
                     0);
    has_out("a prefill server of 1 chip, KV pool");
    has_out("at most 1 sequence and 8192 tokens a step");
    has_out("\nmean batch and KV used: the decode servers'; the prefill servers': mean batch 1,");
    /* a prefill server too small for the weights is named, with its option */
    ck_assert_int_eq(run("simulate", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--prefill-chips", "1", "--requests", "20", NULL),
                     2);
    has_err("the model on a prefill server of 1 x h100");
    has_err("(--prefill-chips)");
}
END_TEST

/* ITL and E2E at P50/P90/P99, as the help says. One request alone (512 /
 * 64 tokens, Llama-3-8B on one H100): its 63 gaps are decode steps at
 * batch 1, context 512 .. 574, growing with it, so ITL P50 is the 32nd
 * (ceil(0.5 x 63)), at context 543, P90 the 57th (568) and P99 the 63rd
 * (574): `infcalc --batch 1 --context C`'s steps, within the 0.23% bins.
 * 60 requests of drawn lengths at 5/s: the E2E percentiles are the
 * counted requests' own (--requests-csv's e2e_s, the ceil(q n)-th
 * smallest), within the bins. */
static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(test_sim_itl_e2e_percentiles)
{
#define MH "--model", "llama3-8b", "--hw", "h100", "--estimate", "ideal"
    ck_assert_int_eq(run("simulate", MH, "--requests", "1", "--prompt", "512", "--output", "64",
                         "--format", "json", NULL),
                     0);
    /* one request's TTFT and TPOT percentiles are its own figures: said (the
     * ITL's, over its 63 gaps, are not) */
    has_err("infcalc: note: 1 request counted: a TTFT, TPOT or end-to-end p99 over fewer than "
            "100 requests is the slowest one's");
    const char *o = strstr(out_buf, "\"itl\": {");
    ck_assert_ptr_nonnull(o);
    const double p50 = json_num(o, "p50_s"), p90 = json_num(o, "p90_s"),
                 p99 = json_num(o, "p99_s");
    const double s543 = cli_num("step_s", MH, "--batch", "1", "--context", "543"),
                 s568 = cli_num("step_s", MH, "--batch", "1", "--context", "568"),
                 s574 = cli_num("step_s", MH, "--batch", "1", "--context", "574");
    ck_assert_msg(ic_test_rel(p50, s543) < 3e-3, "ITL p50 %g vs %g", p50, s543);
    ck_assert_msg(ic_test_rel(p90, s568) < 3e-3, "ITL p90 %g vs %g", p90, s568);
    ck_assert_msg(ic_test_rel(p99, s574) < 3e-3, "ITL p99 %g vs %g", p99, s574);
    ck_assert(p50 <= p90 && p90 <= p99);
    /* the E2E percentiles against the requests' own */
    char csv[64];
    ic_test_write_tmp(csv, "");
    ck_assert_int_eq(run("simulate", MH, "--requests", "60", "--rate", "5", "--prompt", "512",
                         "--output", "64", "--output-dist", "lognormal", "--output-cv", "1",
                         "--requests-csv", csv, "--format", "json", NULL),
                     0);
    /* under a rate the first tenth is the warm-up: 54 counted, said */
    has_err("infcalc: note: 54 requests counted");
    o = strstr(out_buf, "\"e2e\": {");
    ck_assert_ptr_nonnull(o);
    const double e[3] = {json_num(o, "p50_s"), json_num(o, "p90_s"), json_num(o, "p99_s")};
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    double v[60];
    size_t n = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
    while (fgets(line, sizeof line, f)) {
        /* index,replica,arrival,first,finish,ttft,tpot,e2e,...,counted */
        if (csv_counted(line) && n < 60)
            v[n++] = csv_field(line, 7);
    }
    fclose(f);
    remove(csv);
    ck_assert_uint_eq(n, 54); /* 60 less the warm-up's 6 */
    qsort(v, n, sizeof v[0], cmp_dbl);
    static const double q[3] = {0.5, 0.9, 0.99};
    for (int k = 0; k < 3; k++) {
        const double want = v[(size_t)ceil(q[k] * (double)n) - 1];
        ck_assert_msg(ic_test_rel(e[k], want) < 3e-3, "E2E p%g %g vs %g", 100 * q[k], e[k],
                      want);
    }
    ck_assert(e[1] > e[0] && e[2] > e[1]);
    /* disaggregated, a one-token output ends on its prefill server (no
     * decode server: an empty replica cell, its first token its finish)
     * and takes no hand-off; the other's lands on decode server 0 */
    char tr[64];
    ic_test_write_tmp(tr, "arrival_s,prompt,output\n0,4000,1\n0,4000,10\n");
    ic_test_write_tmp(csv, "");
    ck_assert_int_eq(run("simulate", MH, "--prefill-chips", "1", "--prefill-servers", "1",
                         "--replicas", "2", "--trace", tr, "--requests-csv", csv, NULL),
                     0);
    f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    double first, fin;
    ck_assert_int_eq(sscanf(line, "0,,0,%lf,%lf,", &first, &fin), 2);
    ck_assert(first == fin && first > 0);
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_msg(strncmp(line, "1,0,0,", 6) == 0, "%s", line);
    fclose(f);
    remove(csv);
    remove(tr);
    /* every output one token: no hand-off to average (null, and the title
     * says so; it read 0 ms) */
    ck_assert_int_eq(run("simulate", MH, "--prefill-chips", "1", "--requests", "20", "--prompt",
                         "500", "--output", "1", NULL),
                     0);
    has_out("and a decode server of 1); no KV hand-off (every output one token)\n");
    ck_assert_int_eq(run("simulate", MH, "--prefill-chips", "1", "--requests", "20", "--prompt",
                         "500", "--output", "1", "--format", "json", NULL),
                     0);
    has_out("\"kv_transfer_mean_s\": null, ");
#undef MH
}
END_TEST

/* With --trace each request's lengths are the trace's: the options of
 * generated lengths would change nothing (the output was byte-identical,
 * exit 0), so they are refused as the other idle options are; and a seed
 * beside a replay is refused as drawing nothing, not read as drawn for a
 * length distribution. */
START_TEST(test_sim_trace_refuses_lengths)
{
    char path[64];
    ic_test_write_tmp(path, "0,400,10\n0.5,600,30\n");
    static const char *const opts[][2] = {
        {"--prompt", "5000"},        {"--output", "7"},          {"--prompt-dist", "gamma"},
        {"--prompt-cv", "2"},        {"--output-dist", "lognormal"}, {"--output-cv", "0.5"}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                             opts[i][0], opts[i][1], NULL),
                         2);
        char want[128];
        snprintf(want, sizeof want, "infcalc: error: %s shapes the lengths of generated "
                                    "requests, and --trace gives each request its own\n",
                 opts[i][0]);
        has_err(want);
        has_err("  leave ");
        ck_assert_str_eq(out_buf, "");
        /* with --rate too: the trace's lengths in its order */
        ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                             "--rate", "2", opts[i][0], opts[i][1], NULL),
                         2);
        has_err(want);
    }
    /* the length option is named, not --seed as if a distribution drew */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--prompt-dist", "gamma", "--seed", "9", NULL),
                     2);
    has_err("--prompt-dist shapes the lengths");
    /* the trace alone still runs; its count singular where it is one */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--trace", path,
                         "--requests", "1", NULL),
                     0);
    has_out("1 request of the trace");
    remove(path);
}
END_TEST

/* optimize --estimate expected: the row's TPOT is decode's expected step
 * for its layout, types and batch at the last token's context, and the
 * column beside it the ideal bound's (two more commands); --mfu, --engine
 * with the ideal bound, and a chip with no achieved rates alone are
 * refused (exit 2) */
START_TEST(test_optimize_at_expected)
{
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "mi300x", "--ttft", "2s",
                         "--tpot", "30ms", "--top", "1", "--max-pp", "1", "--estimate",
                         "expected", "--format", "json", NULL),
                     0);
    /* the other estimate's TPOT under one key, the row saying its own */
    ck_assert(strstr(out_buf, "\"estimate\": \"expected\", \"engine\": \"none\""));
    ck_assert(!strstr(out_buf, "tpot_expected_s") && !strstr(out_buf, "tpot_ideal_s"));
    const char *tp = strstr(out_buf, "\"tp\": "), *b = strstr(out_buf, "\"batch\": ");
    const char *w = strstr(out_buf, "\"weights\": \""), *k = strstr(out_buf, "\"kv\": \"");
    const char *cp = strstr(out_buf, "\"compute\": \"");
    const char *x = strstr(out_buf, "\"tpot_s\": "), *y = strstr(out_buf, "\"tpot_other_s\": ");
    ck_assert(tp && b && w && k && cp && x && y);
    char chips[16], batch[16], wt[8], kv[8], ct[8];
    ck_assert_int_eq(sscanf(cp + 12, "%7[a-z0-9]", ct), 1);
    snprintf(chips, sizeof chips, "%lu", strtoul(tp + 6, NULL, 10));
    snprintf(batch, sizeof batch, "%lu", strtoul(b + 9, NULL, 10));
    ck_assert_int_eq(sscanf(w + 12, "%7[a-z0-9]", wt), 1);
    ck_assert_int_eq(sscanf(k + 7, "%7[a-z0-9]", kv), 1);
    const double exp_tpot = strtod(x + 10, NULL), ideal_tpot = strtod(y + 16, NULL);
    ck_assert_double_le(exp_tpot, 0.030);
    ck_assert_double_lt(ideal_tpot, exp_tpot);
    static const char *const est[2] = {"expected", "ideal"};
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "mi300x", "--chips", chips, "--batch",
                             batch, "--context", "2304", "--weights", wt, "--kv", kv, "--compute",
                             ct, "--estimate", est[i], "--format", "json", NULL),
                         0);
        const char *st = strstr(out_buf, "\"step_s\": ");
        ck_assert_ptr_nonnull(st);
        const double want = i ? ideal_tpot : exp_tpot;
        ck_assert_msg(ic_test_rel(strtod(st + 10, NULL), want) < 1e-9, "%s: optimize %g, decode %g",
                      est[i], want, strtod(st + 10, NULL));
    }
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "mi300x", "--ttft", "2s",
                         "--tpot", "30ms", "--estimate", "expected", "--mfu", "0.5", NULL),
                     2);
    has_err("--mfu sets the ideal bound's prefill");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "mi300x", "--ttft", "2s",
                         "--tpot", "30ms", "--estimate", "ideal", "--engine", "vllm-0.10", NULL),
                     2);
    has_err("the ideal bound reads no engine profile");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         IC_TEST_DIR "/frozen/hwdb/h100-sxm.yaml", "--ttft", "2s", "--tpot",
                         "30ms", "--estimate", "expected", NULL),
                     2);
    has_err("can time none of the configurations searched: no achieved rates: h100-sxm");
    /* fp4 weights on chips without fp4 compute: that reason, at either
     * estimate (the check for untimed types ran first and said nothing) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "l4", "--ttft", "2s",
                         "--tpot", "30ms", "--weights", "fp4", "--estimate", "expected", NULL),
                     2);
    has_err("--weights fp4: the search runs fp4 weights with fp4 compute");
    /* the reasons grouped, each chip named once a reason, and the count of
     * chips searched those with a type timed */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         IC_TEST_DIR "/frozen/hwdb/h100-sxm.yaml,tpu-v5p", "--ttft", "2s",
                         "--tpot", "30ms", "--estimate", "expected", "--top", "1", NULL),
                     0);
    has_out("not searched at the expected estimate: no achieved rates: h100-sxm; no achieved "
            "fp8 GEMM rate: tpu-v5p; no achieved int8 GEMM rate: tpu-v5p\n1 chip type searched");
    /* a chip with none of the compute types the search runs (the fixture's
     * fp32 alone), at the ideal bound: that reason, not the expected
     * estimate's (it read "the expected estimate can time none of the
     * configurations searched: " and nothing after); beside a chip that
     * runs them, said and left out (it was left out without a word) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         IC_TEST_DIR "/fixtures/measured-cpu.yaml", "--ttft", "60s", "--tpot",
                         "2s", NULL),
                     2);
    has_err("none of the chips runs a configuration the search tries: no bf16, fp16, fp8, int8 "
            "or fp4 peak: test-cpu");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         IC_TEST_DIR "/fixtures/measured-cpu.yaml,h100", "--ttft", "60s",
                         "--tpot", "2s", "--top", "1", NULL),
                     0);
    has_err("infcalc: note: not searched: no bf16, fp16, fp8, int8 or fp4 peak: test-cpu\n");
    /* under --weights the reason is the types those weights run in: the
     * H100 has bf16, fp8 and int8 peaks but no fp4, which fp4 weights need */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw", "b200,h100", "--weights",
                         "fp4", "--ttft", "2s", "--tpot", "50ms", "--top", "1", NULL),
                     0);
    has_err("infcalc: note: not searched: no peak of a compute type its --weights run in: "
            "h100-sxm\n");
    /* two hardware files of one name refused, as decode refuses them, and
     * one file named twice (an alias and a path) */
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         "h100," IC_TEST_DIR "/frozen/hwdb/h100-sxm.yaml", "--ttft", "2s",
                         "--tpot", "50ms", NULL),
                     2);
    has_err("are two entries of one name, h100-sxm");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--hw",
                         "h100," IC_SRC_DIR "/hwdb/h100-sxm.yaml", "--ttft", "2s", "--tpot",
                         "50ms", "--top", "1", NULL),
                     2);
    has_err("infcalc: error: --hw: 'h100' and '" IC_SRC_DIR "/hwdb/h100-sxm.yaml' are one "
            "entry, h100-sxm\n  name each entry once\n");
}
END_TEST

/* optimize's other-estimate TPOT is decode's step at that estimate for the
 * row's layout, types and batch at the last token's context (2048 + 256):
 * the same figure, by a second command. The cache as the row lays it out:
 * copied past the KV heads (DeepSeek-V2's one latent on 8 H100s) by
 * --kv-placement or by an engine's placement (vllm-0.10: copy), where it
 * was the split cache's step, 29% under decode's. engine NULL: the row at
 * the ideal bound, the expected step beside it; else the row at the
 * engine's expected time, the ideal bound beside it. */
static void other_tpot_as_decode(const char *model, const char *hw, const char *placement,
                                 const char *engine)
{
    if (engine)
        ck_assert_int_eq(run("optimize", "--model", model, "--hw", hw, "--ttft", "3s", "--tpot",
                             "50ms", "--max-chips", "8", "--max-pp", "1", "--top", "1",
                             "--engine", engine, "--weights", "bf16", "--kv", "bf16",
                             "--format", "json", NULL),
                         0);
    else
        ck_assert_int_eq(run("optimize", "--model", model, "--hw", hw, "--ttft", "3s", "--tpot",
                             "50ms", "--max-chips", "8", "--max-pp", "1", "--top", "1",
                             "--kv-placement", placement, "--weights", "bf16", "--kv", "bf16",
                             "--format", "json", NULL),
                         0);
    const char *key = "\"tpot_other_s\": "; /* the ideal beside an engine's, else expected */
    const char *tp = strstr(out_buf, "\"tp\": "), *b = strstr(out_buf, "\"batch\": ");
    const char *w = strstr(out_buf, "\"weights\": \""), *k = strstr(out_buf, "\"kv\": \"");
    const char *x = strstr(out_buf, key);
    const char *cp = strstr(out_buf, "\"compute\": \"");
    ck_assert(tp && b && w && k && x && cp && strstr(out_buf, "\"pp\": 1,"));
    char chips[16], batch[16], wt[8], kv[8], ct[8];
    ck_assert_int_eq(sscanf(cp + 12, "%7[a-z0-9]", ct), 1);
    snprintf(chips, sizeof chips, "%lu", strtoul(tp + 6, NULL, 10));
    snprintf(batch, sizeof batch, "%lu", strtoul(b + 9, NULL, 10));
    ck_assert_int_eq(sscanf(w + 12, "%7[a-z0-9]", wt), 1);
    ck_assert_int_eq(sscanf(k + 7, "%7[a-z0-9]", kv), 1);
    const double want = strtod(x + strlen(key), NULL);
    ck_assert_int_eq(run("--model", model, "--hw", hw, "--chips", chips, "--batch", batch,
                         "--context", "2304", "--weights", wt, "--kv", kv, "--compute", ct,
                         "--estimate", engine ? "ideal" : "expected", "--kv-placement",
                         placement, "--format", "json", NULL),
                     0);
    const char *st = strstr(out_buf, "\"step_s\": ");
    ck_assert_ptr_nonnull(st);
    ck_assert_msg(ic_test_rel(strtod(st + 10, NULL), want) < 1e-9, "optimize %g, decode %g", want,
                  strtod(st + 10, NULL));
}

/* The configurations optimize counts with --weights bf16,fp8 are those of
 * bf16 and of fp8 together: weights of two widths hold other memory
 * whatever their cost and TPOT (compute-bound MI300X rows of Llama-3-70B,
 * bf16 and fp8 weights under bf16 compute, read one: 50 counted where
 * the two searches count 17 + 40) */
static unsigned long optimize_count(const char *weights)
{
    ck_assert_int_eq(run("optimize", "--model", "llama3-70b", "--hw", "h100,mi300x", "--ttft",
                         "1s", "--tpot", "40ms", "--prompt", "1500", "--output", "300",
                         "--max-chips", "8", "--max-pp", "2", "--weights", weights, "--kv",
                         "bf16", "--top", "1", NULL),
                     0);
    const char *m = strstr(out_buf, " configurations meet the SLOs");
    ck_assert_ptr_nonnull(m);
    while (m > out_buf && m[-1] >= '0' && m[-1] <= '9')
        m--;
    return strtoul(m, NULL, 10);
}

START_TEST(test_optimize_widths_apart)
{
    const unsigned long a = optimize_count("bf16"), b = optimize_count("fp8");
    ck_assert_uint_gt(a, 0);
    ck_assert_uint_gt(b, 0);
    ck_assert_uint_eq(optimize_count("bf16,fp8"), a + b);
}
END_TEST

START_TEST(test_optimize_expected_tpot)
{
    other_tpot_as_decode("llama3-8b", "h100", "split", NULL);
    other_tpot_as_decode("deepseek-v2", "h100", "copy", NULL);
    other_tpot_as_decode("deepseek-v2", "h100", "copy", "vllm-0.10");
}
END_TEST

START_TEST(test_numbers_rejected)
{
    /* trailing garbage, signs, fractions, exponents, spaces: each names the
     * option and the range */
    static const struct {
        const char *opt, *val, *msg;
    } bad[] = {
        {"--batch", "4x", "--batch: '4x' is not a whole number; expected 1 to 16777216"},
        {"--batch", " 4", "--batch: ' 4' is not a whole number"},
        {"--chips", "8abc", "--chips: '8abc' is not a whole number; expected 1 to 1048576"},
        {"--chips", "+8", "--chips: '+8' has a plus sign; expected 1 to 1048576"},
        {"--context", "2048.5", "--context: '2048.5' is not a whole number; expected 1 to 67108864"},
        {"--context", "1e-5", "--context: '1e-5' is not a whole number"},
        /* a whole number written with an exponent is read, then ranged */
        {"--context", "1e8", "--context: 1e8 is out of range; expected 1 to 67108864"},
        {"--context", "0x800", "--context: '0x800' is not a whole number"},
        {"--batch", "0", "--batch: 0 is out of range; expected 1 to 16777216"},
        {"--batch", "16777217", "--batch: 16777217 is out of range; expected 1 to 16777216"},
        {"--batch", "18446744073709551616", "--batch: 18446744073709551616 is out of range"},
        {"--chips", "0", "--chips: 0 is out of range; expected 1 to 1048576"},
        {"--chips", "1048577", "--chips: 1048577 is out of range"},
        {"--context", "67108865", "--context: 67108865 is out of range; expected 1 to 67108864"},
        {"--chips", "4,x", "--chips: 'x' is not a whole number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(run("--model", "llama3-8b", "--hw", "h100", bad[i].opt, bad[i].val, NULL) ==
                          2,
                      "%s %s", bad[i].opt, bad[i].val);
        has_err(bad[i].msg);
        ck_assert_str_eq(out_buf, "");
    }
    /* --opt=value is read the same way */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--batch=4x", NULL), 2);
    has_err("--batch: '4x' is not a whole number");
    /* bench and validate: their numbers too (rejected before any timing) */
    ck_assert_int_eq(run("bench", "--threads", "4x", NULL), 2);
    has_err("--threads: '4x' is not a whole number; expected 1 to 256");
    ck_assert_int_eq(run("bench", "--threads", "257", NULL), 2);
    has_err("--threads: 257 is out of range; expected 1 to 256");
    ck_assert_int_eq(run("validate", "--hw", "x", "--rounds", "3x", NULL), 2);
    has_err("--rounds: '3x' is not a whole number; expected 1 to 8");
    ck_assert_int_eq(run("validate", "--hw", "x", "--seed", "99999999999999999999999", NULL), 2);
    has_err("--seed: 99999999999999999999999 is out of range; expected 1 to 4294967295");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "x.png", "--plot-size", "800x600x", NULL),
                     2);
    has_err("--plot-size: '800x600x' is not WIDTHxHEIGHT");
    /* sscanf would read past a sign or a leading space: the shape is checked first */
    static const char *const sizes[] = {" 800x600", "+800x600", "800x+600", "800 x600"};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch",
                             "--plot", "x.png", "--plot-size", sizes[i], NULL),
                         2);
        has_err("is not WIDTHxHEIGHT");
    }
}
END_TEST

START_TEST(test_suggestions)
{
    ck_assert_int_eq(run("help", "shwo", NULL), 2);
    has_err("unknown command 'shwo'");
    has_err("did you mean 'show'?");
    ck_assert_str_eq(out_buf, "");
    ck_assert_int_eq(run("bnch", NULL), 2);
    has_err("did you mean 'bench'?");
    ck_assert_int_eq(run("list", "modles", NULL), 2);
    has_err("list needs 'hw', 'models' or 'engines'");
    has_err("did you mean 'models'?");
    ck_assert_int_eq(run("list", "engnes", NULL), 2);
    has_err("did you mean 'engines'?");
    /* a word past the kind (and name) is that word's error */
    ck_assert_int_eq(run("list", "hw", "extra", NULL), 2);
    has_err("list: unexpected argument 'extra'");
    ck_assert_int_eq(run("show", "hw", "h100", "extra", NULL), 2);
    has_err("show: unexpected argument 'extra'");
    ck_assert_int_eq(run("show", "modle", "llama3-8b", NULL), 2);
    has_err("did you mean 'model'?");
    ck_assert_int_eq(run("bench", "--thread", "2", NULL), 2);
    has_err("unknown option '--thread'");
    has_err("did you mean '--threads'?");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--plotsize", "800x600", NULL),
                     2);
    has_err("did you mean '--plot-size'?");
    /* nothing is near a two-letter typo of nothing */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "-x", NULL), 2);
    has_err("unknown option '-x'");
    ck_assert(!strstr(err_buf, "did you mean"));
    /* an option another command takes */
    ck_assert_int_eq(run("list", "hw", "--chips", "4", NULL), 2);
    has_err("option '--chips' does not apply to 'list'");
    /* names within a third of the name's length, or none (three models
     * were offered for 'tests'); a folder is said to be one */
    ck_assert_int_eq(run("--model", "lama3-8b", "--hw", "h100", NULL), 2);
    has_err("did you mean 'llama3-8b'");
    /* a name holding an entry's is near it ('llama3-8B-instruct') */
    ck_assert_int_eq(run("--model", "llama3-8B-instruct", "--hw", "h100", NULL), 2);
    has_err("did you mean 'llama3-8b'?");
    ck_assert_int_eq(run("--model", "zqxwvy", "--hw", "h100", NULL), 2);
    has_err("unknown model 'zqxwvy'\n  'infcalc list models' shows all\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "tpu-v7", NULL), 2);
    has_err("did you mean 'tpu-v5e', 'tpu-v5p', 'tpu-v6e'?");
    char dir[] = "ic-test-dirXXXXXX"; /* in the working folder: a bare name */
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(run("--model", dir, "--hw", "h100", NULL), 2);
    char want[128];
    snprintf(want, sizeof want, "model '%s' is a folder, not a file\n  give the config.json "
                                "inside it: '%s/config.json'\n", dir, dir);
    has_err(want);
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", dir, NULL), 2);
    snprintf(want, sizeof want, "hardware '%s' is a folder, not a file", dir);
    has_err(want);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(test_help_everywhere)
{
    ck_assert_int_eq(run("--help", NULL), 0);
    has_out("usage: infcalc");
    ck_assert_int_eq(run("decode", "--help", NULL), 0);
    has_out("--sweep");
    ck_assert_int_eq(run("list", "--help", NULL), 0);
    has_out("usage: infcalc list");
    ck_assert_int_eq(run("show", "--help", NULL), 0);
    has_out("usage: infcalc show");
    ck_assert_int_eq(run("help", "show", NULL), 0);
    has_out("usage: infcalc show");
    ck_assert_int_eq(run("-h", NULL), 0);
    has_out("usage: infcalc");
    ck_assert_int_eq(run("help", NULL), 0);
    has_out("usage: infcalc");
    /* every command's --help, -h and 'help COMMAND': exit 0, its usage on
     * stdout, nothing on stderr */
    static const char *const cmds[] = {"decode", "list", "show", "bench", "validate"};
    static const char *const usage[] = {"--sweep", "usage: infcalc list", "usage: infcalc show",
                                        "usage: infcalc bench", "usage: infcalc validate"};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(run(cmds[i], "--help", NULL), 0);
        has_out(usage[i]);
        ck_assert_str_eq(err_buf, "");
        ck_assert_int_eq(run(cmds[i], "-h", NULL), 0);
        has_out(usage[i]);
        ck_assert_int_eq(run("help", cmds[i], NULL), 0);
        has_out(usage[i]);
        ck_assert_str_eq(err_buf, "");
    }
    ck_assert_int_eq(run("--version", NULL), 0);
    has_out("infcalc ");
}
END_TEST

/* a table's line l split into words (below), and the first line starting head */
static int fields(const char *text, int l, char f[][48], int cap);
static int line_of(const char *text, const char *head);

START_TEST(test_list_and_show)
{
    ck_assert_int_eq(run("list", "hw", NULL), 0);
    ck_assert_uint_ge(lines(out_buf), 12);
    has_out("tpu-v5e");
    ck_assert_int_eq(run("list", "models", NULL), 0);
    ck_assert_uint_ge(lines(out_buf), 17);
    has_out("MLA, MoE top-8 of 256");
    ck_assert_int_eq(run("show", "model", "llama3-8b", NULL), 0);
    has_out("total                 8030261248");
    ck_assert_int_eq(run("show", "hw", "h100", NULL), 0);
    has_out("source:");
    ck_assert_int_eq(run("show", "hw", NULL), 2);
    ck_assert_int_eq(run("list", "chips", NULL), 2);
    /* engine profiles: one line each, a profile by its alias, an unknown
     * name with the nearest known ones */
    ck_assert_int_eq(run("list", "engines", NULL), 0);
    ck_assert_uint_ge(lines(out_buf), 6);
    has_out("vllm-0.6 ");
    ck_assert_int_eq(run("show", "engine", "vllm", NULL), 0);
    has_out("vllm-0.19: vllm 0.19.1");
    has_out("source:");
    ck_assert_int_eq(run("show", "engine", "vllm-0.7", NULL), 2);
    has_err("unknown engine 'vllm-0.7'");
    has_err("did you mean");
    /* --engine: the title names the profile; without it, a good engine */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--estimate", "expected",
                         "--engine", "vllm-0.6", NULL), 0);
    has_out("under engine vllm-0.6 (vllm 0.6, enginedb)");
    ck_assert(!strstr(err_buf, "changes no step")); /* its host time is not overlapped */
    ck_assert(!strstr(err_buf, "schedules at most")); /* batch 1 */
    /* vLLM 0.6 schedules 256 sequences unless told (defaults.max_batch): a
     * batch of 257 is timed, and said to need the limit raised; 256 is not */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "vllm-0.6",
                         "--batch", "257", NULL),
                     0);
    has_err("infcalc: note: vllm-0.6 schedules at most 256 sequences a step by default "
            "(the profile's defaults.max_batch); the largest batch here, 257, needs that limit "
            "raised\n");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "vllm-0.6",
                         "--batch", "256", NULL),
                     0);
    ck_assert(!strstr(err_buf, "schedules at most"));
    /* vLLM 0.19 overlaps its host time and gives an efficiency for fp8 KV
     * only: a bf16 step is a good engine's, and said to be; fp8 KV moves it */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "vllm-0.19", NULL),
                     0);
    has_err("infcalc: note: the vllm-0.19 profile changes no step here");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "vllm-0.19", "--kv",
                         "fp8", NULL),
                     0);
    ck_assert(!strstr(err_buf, "changes no step"));
    /* a profile given by path is named by it, not as the database's */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine",
                         IC_TEST_DIR "/fixtures/engine-test.yaml", NULL),
                     0);
    has_out("under engine test-engine (test-engine 1.0, " IC_TEST_DIR
            "/fixtures/engine-test.yaml)");
    /* the table names the step's fixed part, which no other line holds:
     * hwdb/h100-sxm.yaml counts 10 kernels a layer and 1 launch a step,
     * so Llama-3-8B's 32 layers launch 10 x 32 + 1 = 321 kernels; the
     * profile runs no graphs, so each at the plain launch, 2.4 us: 770.4
     * us; its host time 1 ms; 1.7704 ms in all */
    has_out("    fixed cost         1.77 ms      (321 kernel launches, 770 us; the engine's "
            "host time, 1 ms)\n");
    /* a sweep's table has its column; the ideal bound's has none */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine",
                         IC_TEST_DIR "/fixtures/engine-test.yaml", "--sweep", "batch", NULL),
                     0);
    int fh = line_of(out_buf, "batch");
    ck_assert_int_ge(fh, 0);
    char ff[24][48];
    int fn = fields(out_buf, fh, ff, 24), fcol = -1, fword = 0;
    for (int i = 0; i < fn; i++) /* headings of two words: count the values' place */
        if (strcmp(ff[i], "fixed") == 0)
            fcol = fword;
        else if (strcmp(ff[i], "ms") != 0 && strcmp(ff[i], "GB") != 0)
            fword++;
    ck_assert_msg(fcol >= 0, "no fixed column:\n%s", out_buf);
    fn = fields(out_buf, fh + 1, ff, 24);
    ck_assert_int_gt(fn, fcol);
    ck_assert_str_eq(ff[fcol], "1.77");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", NULL), 0);
    ck_assert(!strstr(out_buf, "fixed"));
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--estimate", "expected", NULL),
                     0);
    has_out("with a good engine (no --engine");
    /* where a point does not fit, JSON names the fewest chips that would
     * hold it, as the table's line does: Llama-3-70B's 70.55e9 parameters
     * in bf16 are 141 GB over one 80 GB H100, 70.6 GB a chip on two; in
     * fp8 70.6 GB on one (with 0.67 GB of KV at 2048 tokens) */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--format", "json", NULL), 0);
    has_out("\"fewest_chips\": {\"bf16\": 2, \"fp8\": 1, \"int8\": 1, \"int4\": 1, "
            "\"fp4\": 1}");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--format", "json", NULL), 0);
    has_out("\"fewest_chips\": {\"bf16\": null,");
    /* JSON's comm_mode is how the reported step joined its collectives:
     * the expected one after the kernels whatever --comm says (it read the
     * option, "overlap", beside a step that added them) */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--estimate",
                         "expected", "--comm", "overlap", "--format", "json", NULL),
                     0);
    has_out("\"comm_mode\": \"serial\"");
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--comm",
                         "overlap", "--format", "json", NULL),
                     0);
    has_out("\"comm_mode\": \"overlap\"");
    /* --engine alone asks for the expected estimate; not with the ideal
     * bound, nor on an entry without achieved rates */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "vllm-0.6", NULL), 0);
    has_out("under engine vllm-0.6");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--estimate", "ideal",
                         "--engine", "vllm-0.6", NULL), 2);
    has_err("--engine: the ideal bound reads no engine profile");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", IC_TEST_DIR "/fixtures/measured-cpu.yaml",
                         "--engine", "vllm-0.6", NULL), 2);
    has_err("has no achieved section");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--engine", "nosuch", NULL), 2);
    has_err("unknown engine 'nosuch'");
    /* the serving analyses take a profile (the expected estimate's), moe
     * among them: its table has the ideal step beside the expected one,
     * and the ideal table the expected one beside it */
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--engine",
                         "vllm", NULL), 0);
    has_out("prefill, expected: achieved rates, engine vllm-");
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "h100", "--engine",
                         "vllm", "--format", "json", NULL), 0);
    has_out("\"estimate\": \"expected\", \"engine\": \"vllm-");
    const double moe_x = json_num(out_buf, "step_s"), moe_i = json_num(out_buf, "step_other_s");
    ck_assert(moe_i > 0 && moe_x > moe_i);
    /* the other estimate's step under the same key whatever the estimate
     * (the CSV's header the same): each run's step_other_s the other's step_s */
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "h100", "--format", "json",
                         NULL), 0);
    has_out("\"estimate\": \"ideal\", \"engine\": \"none\"");
    ck_assert_double_eq(json_num(out_buf, "step_s"), moe_i); /* the same batch 1 */
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "h100", "--estimate",
                         "expected", "--format", "json", NULL), 0);
    ck_assert_double_eq(json_num(out_buf, "step_other_s"), moe_i);
    ck_assert_ptr_null(strstr(out_buf, "step_ideal_s"));
    ck_assert_int_eq(run("moe", "--model", "mixtral-8x7b", "--hw", "h100", "--estimate",
                         "expected", NULL), 0);
    has_out("(expected: achieved rates, a good engine)");
    /* simulate: the profile's max_batch is the batch limit unless --max-seqs */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--estimate",
                         "expected", "--requests", "50", "--engine",
                         IC_TEST_DIR "/fixtures/engine-test.yaml", NULL), 0);
    has_out("expected time, engine test-engine");
    has_out("at most 64 sequences");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--estimate",
                         "expected", "--requests", "50", "--max-seqs", "32", "--engine",
                         IC_TEST_DIR "/fixtures/engine-test.yaml", NULL), 0);
    has_out("at most 32 sequences");
}
END_TEST

/* A pipeline's stages and micro-batches are in the record and the title:
 * --chips is one stage's, so the run holds 4 x 2 = 8 chips (the tokens/s
 * per chip are over all 8). */
START_TEST(test_pipeline_described)
{
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "4", "--pp", "2",
                         "--batch", "64", "--micro", "2", "--format", "json", NULL),
                     0);
    has_out("\"chips\": 4,\n  \"pp\": 2,\n  \"micro\": 2,\n  \"batch\": 64,");
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--chips", "4", "--pp", "2",
                         "--batch", "64", "--micro", "2", NULL),
                     0);
    has_out("llama3-70b on 4 x h100-sxm x 2 pipeline stages (8 chips), 2 micro-batches (at "
            "most one a sequence),");
}
END_TEST

/* Requests of one output token have no TPOT and no ITL: '-' in the table,
 * null in JSON (they read "0 ns"); the TTFT is there. */
/* Best-of-N's time: one prefill of the shared prompt (its TTFT gives every
 * candidate its first token), then output - 1 decode steps of the N
 * candidates at the mean context: Llama-3-8B on an H100, 11 candidates of
 * 256 tokens after 2048: TTFT + 255 x the step at batch 11, context 2048 +
 * 128 (it counted 256 steps). */
START_TEST(test_bestofn_time)
{
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--prompt", "2048",
                         "--format", "json", NULL),
                     0);
    const double ttft = json_num(out_buf, "ttft_s");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--batch", "11", "--context",
                         "2176", "--format", "json", NULL),
                     0);
    const double step = json_num(out_buf, "step_s");
    ck_assert_int_eq(run("bestofn", "--success", "0.2", "--target", "0.9", "--model",
                         "llama3-8b", "--hw", "h100", "--format", "json", NULL),
                     0);
    ck_assert(ic_test_rel(json_num(out_buf, "time_s"), ttft + 255 * step) < 1e-9);
    /* the target's chance as given, not rounded to 1 (1 - (1 - 0.999999)^2
     * = 1 - 1e-12 passes 0.9999999; one candidate, 0.999999, does not); a
     * target of 0 is refused with its own hint, not a target of 1's */
    ck_assert_int_eq(run("bestofn", "--success", "0.999999", "--target", "0.9999999", NULL), 0);
    has_out("N for a 0.9999999 chance: 2\n");
    /* 1 - 0.99^N >= 0.99999999999 where 0.99^N <= 1e-11, N >= 11 ln 10 /
     * -ln 0.99 = 25.328 / 0.0100503 = 2520.16: 2521; the heading keeps the
     * target's eleven nines (it read "a 1 chance") */
    ck_assert_int_eq(run("bestofn", "--success", "0.01", "--target", "0.99999999999", NULL), 0);
    has_out("N for a 0.99999999999 chance: 2521\n");
    ck_assert_int_eq(run("bestofn", "--success", "0.3", "--target", "0", NULL), 2);
    has_err("one candidate already has a chance above 0");
    /* batching warns, as decode does, where its batch does not fit: paged,
     * Llama-3-70B on 8 H100s holds at most what it prints as its largest */
    ck_assert_int_eq(run("batching", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--batch", "2000", "--format", "json", NULL),
                     0);
    const double most = json_num(out_buf, "paged_max_batch");
    ck_assert(most > 0 && most < 2000);
    has_err("warning: the batch of 2000 does not fit: at most");
    ck_assert_int_eq(run("batching", "--model", "llama3-70b", "--hw", "h100", "--chips", "8",
                         "--batch", "8", NULL),
                     0);
    ck_assert_ptr_null(strstr(err_buf, "warning"));
    /* and where the requests or a reservation pass the model's context, as
     * prefix and bestofn do: 8192 + 100 and 9000 past llama3-8b's 8192 */
    ck_assert_int_eq(run("batching", "--model", "llama3-8b", "--hw", "h100", "--prompt", "8192",
                         "--reserve", "9000", "--output", "100", NULL),
                     0);
    has_err("warning: --prompt + --output (8292 tokens) exceeds llama3-8b's "
            "max_position_embeddings (8192)");
    has_err("warning: --reserve (9000 tokens) exceeds llama3-8b's max_position_embeddings "
            "(8192)");
    /* the default reservation, the context itself, is no warning; a
     * request that cannot fit it is refused with a hint to shorten it, not
     * to reserve past the context (it said "raise --reserve to 8448") */
    ck_assert_int_eq(run("batching", "--model", "llama3-8b", "--hw", "h100", "--prompt", "7000",
                         NULL),
                     0);
    ck_assert_ptr_null(strstr(err_buf, "warning"));
    ck_assert_int_eq(run("batching", "--model", "llama3-8b", "--hw", "h100", "--prompt", "8192",
                         NULL),
                     2);
    has_err("shorten --prompt or --output: prompt + the mean output must fit the model's "
            "max_position_embeddings (8192 tokens)");
    ck_assert_ptr_null(strstr(err_buf, "raise --reserve"));
}
END_TEST

/* A load whose queue grows through the run is said: the later half of the
 * counted requests (by index, from the middle of the warm-up's 40 and the
 * 400) waits longer for its first token than the earlier half, by the
 * ratio the note prints, computed again here from --requests-csv's ttft_s
 * (a second method); the served rate under the offered one. A load the
 * deployment sustains (a quarter of the offline throughput) is not. */
START_TEST(test_sim_overload_note)
{
#define OV "simulate", "--model", "llama3-70b", "--hw", "h100", "--chips", "8", "--requests", \
           "400", "--output", "64"
    ck_assert_int_eq(run(OV, "--rate", "0", "--format", "json", NULL), 0);
    const double offline = json_num(out_buf, "requests_per_s");
    ck_assert(offline > 1 && offline < 1000);
    char rate[32], csv[64];
    snprintf(rate, sizeof rate, "%.6g", 3 * offline);
    ic_test_write_tmp(csv, "");
    ck_assert_int_eq(run(OV, "--rate", rate, "--requests-csv", csv, "--format", "json", NULL),
                     0);
    const double served = json_num(out_buf, "requests_per_s");
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    double sum[2] = {0, 0};
    unsigned cnt[2] = {0, 0};
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f)); /* the header */
    while (fgets(line, sizeof line, f)) {
        /* index,replica,arrival,first,finish,ttft,...,counted */
        if (csv_counted(line)) {
            const int h = csv_field(line, 0) >= (40 + 400) / 2;
            sum[h] += csv_field(line, 5);
            cnt[h]++;
        }
    }
    fclose(f);
    remove(csv);
    ck_assert_uint_eq(cnt[0] + cnt[1], 360);
    const double ratio = (sum[1] / cnt[1]) / (sum[0] / cnt[0]);
    ck_assert(ratio > 1.5 && served < strtod(rate, NULL));
    char want[200];
    snprintf(want, sizeof want,
             "infcalc: note: the queue grows through the run: the later half of the counted "
             "requests waited %.3g times as long for their first token as the earlier half",
             ratio);
    has_err(want);
    snprintf(want, sizeof want, "%.4g of %.4g requests/s were served", served,
             strtod(rate, NULL));
    has_err(want);
    snprintf(rate, sizeof rate, "%.6g", 0.25 * offline);
    ck_assert_int_eq(run(OV, "--rate", rate, NULL), 0);
    ck_assert_ptr_null(strstr(err_buf, "queue grows"));
    /* a sweep judges each rate alike: the quarter is not said, three times
     * the offline throughput is, with what it served (the single run's) */
    char rates[80];
    snprintf(rates, sizeof rates, "%.6g,%.6g", 0.25 * offline, 3 * offline);
    ck_assert_int_eq(run(OV, "--rates", rates, NULL), 0);
    snprintf(want, sizeof want, "infcalc: note: the queue grows through the run at %.4g (%.4g "
                                "served) requests/s: past what this deployment sustains",
             3 * offline, served);
    has_err(want);
    /* the sweep's rates are 10% to 120% of the offline throughput of every
     * request, whatever --warmup leaves out of the statistics (with 200 of
     * the 400 warming up it read half of it) */
    ck_assert_int_eq(run(OV, "--warmup", "200", "--plot", "cli_sim_warmup.png", "--format",
                         "json", NULL),
                     0);
    remove("cli_sim_warmup.png");
    ck_assert_msg(ic_test_rel(json_num(out_buf, "rate_per_s"), 0.1 * offline) < 1e-9,
                  "first rate %g, offline %g", json_num(out_buf, "rate_per_s"), offline);
#undef OV
}
END_TEST

START_TEST(test_sim_one_token_outputs)
{
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--output", "1",
                         "--requests", "20", "--format", "json", NULL),
                     0);
    has_out("\"tpot\": {\"p50_s\": null, \"p90_s\": null, \"p99_s\": null}, "
            "\"itl\": {\"p50_s\": null, \"p90_s\": null, \"p99_s\": null}");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--output", "1",
                         "--requests", "20", NULL),
                     0);
    has_out("TPOT p50        -");
    has_out("ITL p50         -");
    has_out("ITL p99         -");
    /* requests past the model's trained length: a warning, as decode's */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--prompt", "9000",
                         "--output", "16", "--requests", "3", NULL),
                     0);
    has_err("warning: --prompt + --output (9016 tokens) exceeds llama3-8b's "
            "max_position_embeddings (8192)");
    /* without an SLO nothing is met or missed: no goodput, '-' and null
     * (the table read "P99 SLOs met yes" at a P99 TTFT of 7.5 s) */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--output", "1",
                         "--requests", "20", "--format", "json", NULL),
                     0);
    has_out("\"goodput_per_s\": null, \"meets_slo\": null");
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--output", "1",
                         "--requests", "20", NULL),
                     0);
    has_out("P99 SLOs met    -");
    /* with one, the run is judged: 20 one-token requests at once on an
     * H100 take well under 60 s to their first token */
    ck_assert_int_eq(run("simulate", "--model", "llama3-8b", "--hw", "h100", "--output", "1",
                         "--requests", "20", "--ttft", "60s", "--format", "json", NULL),
                     0);
    has_out("\"meets_slo\": true");
}
END_TEST

START_TEST(test_config_json_and_warning)
{
    /* a quant_method not read: the weights' type is asked for, not guessed */
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/llama3.2-rope-config.json", "--hw",
                         "h100", NULL),
                     2);
    has_err("quant_method 'mxfp4' is not read, so the weights' type is unknown");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/llama3.2-rope-config.json", "--hw",
                         "h100", "--weights", "fp4", "--compute", "bf16", NULL),
                     0);
    has_out("weights fp4");
    ck_assert_int_eq(run("--model", IC_SRC_DIR "/examples/my-config.json", "--hw", "h200",
                         "--context", "200000", NULL),
                     0);
    has_out("my-config on 1 x h200-sxm");
    has_err("warning: --context 200000 exceeds my-config's max_position_embeddings (32768)");
    /* a key a letter from one read, which the file leaves out: warned of at
     * its place, the default taken (every query head cached: 2 x 32 layers
     * x 32 heads x 128 x 2 B = 524288 B a token); none where the key read
     * is given too, or for a short key (DeepSeek's n_group beside Mamba's
     * n_groups) */
    static const char *const head = "{\"model_type\": \"llama\", \"hidden_size\": 4096, "
                                     "\"num_hidden_layers\": 32, \"num_attention_heads\": 32,\n";
    static const char *const tail = ", \"intermediate_size\": 14336, \"vocab_size\": 128256}\n";
    static const char *const mid[4] = {" \"num_key_value_head\": 8",
                                       " \"num_key_value_head\": 8, \"num_key_value_heads\": 8",
                                       " \"n_group\": 8",
                                       /* a saved private attribute, as Gemma 3's
                                        * _sliding_window_pattern */
                                       " \"_num_key_value_heads\": 8"};
    for (int i = 0; i < 4; i++) {
        char path[64], text[400], want[256];
        snprintf(text, sizeof text, "%s%s%s", head, mid[i], tail);
        ic_test_write_tmp(path, text);
        ck_assert_int_eq(run("--model", path, "--hw", "h100", NULL), 0);
        snprintf(want, sizeof want, "%s:2:2: warning: unknown key 'num_key_value_head': did you "
                                    "mean 'num_key_value_heads'? The file leaves "
                                    "'num_key_value_heads' out, so its default is taken\n",
                 path);
        if (i == 0) {
            has_err(want);
            has_out("KV 524288 B/token");
            ck_assert_int_eq(run("show", "model", path, NULL), 0);
            has_err(want);
        } else {
            ck_assert_msg(!strstr(err_buf, "warning"), "%s", err_buf);
        }
        remove(path);
    }
    /* a wrapper: a near key whose key its text_config gives is no typo,
     * and does not hide one after it */
    char path[64];
    ic_test_write_tmp(path, "{\"model_type\": \"llava\", \"num_key_value_head\": 8,\n"
                            " \"tie_word_embedding\": true, \"text_config\": {\"model_type\": "
                            "\"llama\", \"hidden_size\": 4096, \"num_hidden_layers\": 32, "
                            "\"num_attention_heads\": 32, \"num_key_value_heads\": 8, "
                            "\"intermediate_size\": 14336, \"vocab_size\": 128256}}\n");
    ck_assert_int_eq(run("--model", path, "--hw", "h100", NULL), 0);
    has_err(":2:2: warning: unknown key 'tie_word_embedding': did you mean "
            "'tie_word_embeddings'?");
    ck_assert(!strstr(err_buf, "'num_key_value_head'"));
    remove(path);
}
END_TEST

/* The picture's path is checked before any work: nothing is printed for a
 * type infcalc cannot draw (exit 2) or a place it cannot write (exit 1,
 * with the OS's reason), where the whole sweep used to print first. */
START_TEST(test_plot_path_checked_first)
{
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "x.gif", NULL),
                     2);
    ck_assert_str_eq(out_buf, "");
    ck_assert_ptr_nonnull(strstr(err_buf, "unknown picture type"));
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "/nonexistent-ic-dir/x.png", NULL),
                     1);
    ck_assert_str_eq(out_buf, "");
    ck_assert_ptr_nonnull(strstr(err_buf, "cannot write the picture: No such file or directory"));
    ck_assert_int_eq(run("prefill", "--model", "llama3-8b", "--hw", "h100", "--plot",
                         "/nonexistent-ic-dir/x.svg", NULL),
                     1);
    ck_assert_str_eq(out_buf, "");
    ck_assert_int_eq(run("optimize", "--model", "llama3-8b", "--ttft", "2s", "--tpot", "50ms",
                         "--hw", "h100", "--plot", "x.jpg", NULL),
                     2);
    ck_assert_str_eq(out_buf, "");
}
END_TEST

START_TEST(test_plot_and_lists)
{
    /* --plot writes the figure in the format its extension names */
    static const char *const files[] = {"cli_pareto.png", "cli_pareto.svg", "cli_pareto.pdf"};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--chips", "16", "--sweep",
                             "batch", "--plot", files[i], NULL),
                         0);
        FILE *f = fopen(files[i], "rb");
        ck_assert_ptr_nonnull(f);
        fseek(f, 0, SEEK_END);
        ck_assert_int_gt(ftell(f), 1000);
        fclose(f);
        remove(files[i]);
    }
    /* the ending in either case: chart.SVG is an SVG (it was refused) */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "cli_upper.SVG", NULL),
                     0);
    FILE *f = fopen("cli_upper.SVG", "rb");
    ck_assert_ptr_nonnull(f);
    char head[6] = "";
    ck_assert_uint_eq(fread(head, 1, 5, f), 5);
    fclose(f);
    remove("cli_upper.SVG");
    ck_assert_str_eq(head, "<?xml");
    /* four chip counts: four tables, one configuration each */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--chips", "4,8,16,32",
                         "--weights", "int8", "--kv", "int8", "--sweep", "batch", "--plot",
                         "cli_overlay.png", "--plot-size", "800x500", NULL),
                     0);
    remove("cli_overlay.png");
    ck_assert_ptr_nonnull(strstr(out_buf, "llama3-70b on 32 x tpu-v5e"));
    size_t tables = 0;
    for (const char *q = out_buf; (q = strstr(q, "llama3-70b on ")); q++)
        tables++;
    ck_assert_uint_eq(tables, 4);
    /* one entry named twice, by its alias and by its file's path: the same
     * configurations twice, refused as a value twice in a list is */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100," IC_SRC_DIR "/hwdb/h100-sxm.yaml",
                         NULL),
                     2);
    has_err("are one entry, h100-sxm");
    ck_assert_int_eq(run("--model", "llama3-8b," IC_SRC_DIR "/modeldb/llama3-8b.yaml", "--hw",
                         "h100", NULL),
                     2);
    has_err("are one entry, llama3-8b");
    /* two hardware files of one name (the frozen H100 beside the live one):
     * two sets of figures under one label, refused */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw",
                         "h100," IC_TEST_DIR "/frozen/hwdb/h100-sxm.yaml", NULL),
                     2);
    has_err("are two entries of one name, h100-sxm");
    /* lists over hardware and precision, JSON: one array over all configurations */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100,h200", "--weights", "bf16,int8",
                         "--format", "json", NULL),
                     0);
    ck_assert(out_buf[0] == '[');
    size_t objs = 0;
    for (const char *q = out_buf; (q = strstr(q, "\"model\":")); q++)
        objs++;
    ck_assert_uint_eq(objs, 4);
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--context", "1024,4096",
                         "--sweep", "context", NULL),
                     2);
    /* pictures need a sweep with a chart, a known extension, a sane size */
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "precision",
                         "--plot", "x.png", NULL),
                     2);
    has_err("a precision sweep alone has no chart");
    has_err("--sweep precision,batch");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "x.gif", NULL),
                     2);
    has_err(".png, .svg or .pdf");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                         "x.png", "--plot-size", "big", NULL),
                     2);
    has_err("--plot-size: 'big' is not WIDTHxHEIGHT");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "1,2,4,8,16",
                         "--weights", "bf16,int8,int4,fp8", NULL),
                     2);
    has_err("20 configurations; at most 16");
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--chips", "4,,8", NULL), 2);
    has_err("empty value in list");
}
END_TEST

/* ---- the output record: one set of fields, three renderings ---------------- */

enum { MAX_KEYS = 128, KEY_LEN = 64 };
struct keys {
    char k[MAX_KEYS][KEY_LEN];
    int n;
};

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r')
        (*p)++;
}

/* A JSON string at *p (no escapes in keys) into buf; *p moves past it. */
static void json_key(const char **p, char *buf)
{
    ck_assert_int_eq(**p, '"');
    const char *end = strchr(*p + 1, '"');
    ck_assert_ptr_nonnull(end);
    ck_assert_int_lt(end - *p - 1, KEY_LEN);
    memcpy(buf, *p + 1, (size_t)(end - *p - 1));
    buf[end - *p - 1] = '\0';
    *p = end + 1;
}

/* The keys of the JSON object at *p, a nested object's keys as
 * "outer.inner" (a naive reader of what infcalc prints: objects, strings
 * without escapes, numbers, true, false, null); *p moves past it. */
static void json_flat_keys(const char **p, const char *prefix, struct keys *out)
{
    skip_ws(p);
    ck_assert_int_eq(**p, '{');
    (*p)++;
    for (;;) {
        skip_ws(p);
        if (**p == '}') {
            (*p)++;
            return;
        }
        char key[KEY_LEN], full[2 * KEY_LEN];
        json_key(p, key);
        snprintf(full, sizeof full, "%s%s", prefix, key);
        skip_ws(p);
        ck_assert_int_eq(**p, ':');
        (*p)++;
        skip_ws(p);
        if (**p == '{') {
            char pre[2 * KEY_LEN + 1];
            snprintf(pre, sizeof pre, "%s.", full);
            json_flat_keys(p, pre, out);
        } else {
            if (**p == '"') {
                char ignored[KEY_LEN];
                json_key(p, ignored);
            } else {
                *p += strcspn(*p, ",}");
            }
            ck_assert_int_lt(out->n, MAX_KEYS);
            ck_assert_uint_lt(strlen(full), KEY_LEN);
            strcpy(out->k[out->n++], full);
        }
        skip_ws(p);
        if (**p == ',')
            (*p)++;
    }
}

/* The comma-separated names of the first line of text. */
static void csv_header_keys(const char *text, struct keys *out)
{
    const char *eol = strchr(text, '\n');
    ck_assert_ptr_nonnull(eol);
    for (const char *p = text; p < eol;) {
        size_t n = strcspn(p, ",\n");
        ck_assert_uint_lt(n, KEY_LEN);
        ck_assert_int_lt(out->n, MAX_KEYS);
        memcpy(out->k[out->n], p, n);
        out->k[out->n++][n] = '\0';
        p += n + (p[n] == ',');
    }
}

static int cmp_key(const void *a, const void *b) { return strcmp(a, b); }

static bool has_key(const struct keys *k, const char *key)
{
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->k[i], key) == 0)
            return true;
    return false;
}

START_TEST(test_csv_carries_every_json_field)
{
    /* an MoE model on 8 chips, so experts_touched and the KV split are not 0 */
    static struct keys js, cs;
    memset(&js, 0, sizeof js);
    memset(&cs, 0, sizeof cs);
    const char *args[] = {"--model", "mixtral-8x7b", "--hw", "h100", "--chips", "8", "--batch",
                          "16"};
    ck_assert_int_eq(run(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7],
                         "--format", "json", NULL),
                     0);
    const char *p = out_buf;
    json_flat_keys(&p, "", &js);
    skip_ws(&p);
    ck_assert_int_eq(*p, '\0'); /* one object, nothing after it */
    ck_assert_int_eq(run(args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7],
                         "--format", "csv", NULL),
                     0);
    csv_header_keys(out_buf, &cs);
    /* the data row has as many cells as the header (no field quoted here) */
    const char *row = strchr(out_buf, '\n') + 1;
    int cells = 1;
    for (const char *q = row; *q && *q != '\n'; q++)
        cells += *q == ',';
    ck_assert_int_eq(cells, cs.n);
    /* the same set: sorted, equal one for one, no name twice */
    ck_assert_int_eq(js.n, cs.n);
    qsort(js.k, (size_t)js.n, KEY_LEN, cmp_key);
    qsort(cs.k, (size_t)cs.n, KEY_LEN, cmp_key);
    for (int i = 0; i < js.n; i++) {
        ck_assert_str_eq(js.k[i], cs.k[i]);
        if (i)
            ck_assert_str_ne(js.k[i], js.k[i - 1]);
    }
    /* the fields the CSV used to lack, and the two KV byte counts apart */
    static const char *const once_missing[] = {
        "experts_touched", "kv_split.heads", "kv_split.batch", "flops_per_usd",
        "comm_bytes_per_chip", "time.fixed_s", "memory.weights_bytes", "memory.kv_bytes",
        "memory.workspace_bytes", "kv_read_bytes"};
    for (size_t i = 0; i < sizeof once_missing / sizeof once_missing[0]; i++)
        ck_assert_msg(has_key(&cs, once_missing[i]), "CSV lacks %s", once_missing[i]);
    ck_assert(!has_key(&cs, "kv_bytes"));
}
END_TEST

START_TEST(test_rows_filled_by_name)
{
    static const struct ic_col cols[] = {
        {"name", "name", IC_K_TEXT},
        {"ttft_s", "TTFT", IC_K_S},
        {"time.step_s", "step", IC_K_S},
    };
    struct ic_rows r;
    struct ic_err e = {0};
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);

    /* set in any order: each value lands under its own key */
    char longname[120];
    memset(longname, 'm', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ic_rows_init(&r, cols, 3);
    ck_assert_int_eq(ic_rows_add(&r), 0);
    ck_assert_int_eq(ic_rows_num(&r, "time.step_s", 0.25), 0);
    ck_assert_int_eq(ic_rows_num(&r, "ttft_s", 2), 0);
    ck_assert_int_eq(ic_rows_text(&r, "name", longname), 0);
    ck_assert_int_eq(ic_rows_write(f, IC_FMT_JSON, &r, NULL, false, &e), 0);
    char buf[512];
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    char want[512];
    /* the 119-character name whole, not cut at 47 */
    snprintf(want, sizeof want, "{\"name\": \"%s\", \"ttft_s\": 2, \"time\": {\"step_s\": 0.25}}\n",
             longname);
    ck_assert_str_eq(buf, want);

    /* over-filling the row: a second value for a field, a key that is no
     * column, a number for a text field: each an error, the cell unchanged */
    ck_assert_int_eq(ic_rows_num(&r, "ttft_s", 3), IC_EINVAL);
    ck_assert_double_eq(r.cells[1].v, 2);
    ck_assert_int_eq(ic_rows_num(&r, "extra_s", 1), IC_EINVAL);
    ck_assert_int_eq(ic_rows_num(&r, "name", 1), IC_EINVAL);
    ck_assert_str_eq(r.cells[0].s, longname);
    /* the first misuse is kept, and the writer refuses the rows */
    ck_assert_int_eq(ic_rows_check(&r, &e), IC_EINVAL);
    ck_assert_str_eq(e.msg, "rows: field 'ttft_s' set twice in row 1");
    rewind(f);
    ck_assert_int_eq(ftruncate(fileno(f), 0), 0);
    ck_assert_int_eq(ic_rows_write(f, IC_FMT_CSV, &r, NULL, false, &e), IC_EINVAL);
    fflush(f);
    ck_assert_int_eq(ftell(f), 0); /* nothing written */
    ic_rows_free(&r);

    /* a field never set is an error too, not a silent zero */
    ic_rows_init(&r, cols, 3);
    ck_assert_int_eq(ic_rows_num(&r, "ttft_s", 1), IC_EINVAL); /* no row yet */
    ic_rows_free(&r);
    ic_rows_init(&r, cols, 3);
    ck_assert_int_eq(ic_rows_add(&r), 0);
    ck_assert_int_eq(ic_rows_text(&r, "name", "a,b"), 0);
    ck_assert_int_eq(ic_rows_num(&r, "ttft_s", 1), 0);
    ck_assert_int_eq(ic_rows_check(&r, &e), IC_EINVAL);
    ck_assert_str_eq(e.msg, "rows: field 'time.step_s' of row 1 was never set");
    ck_assert_int_eq(ic_rows_num(&r, "time.step_s", 0.5), 0);
    /* CSV: the dotted name in the header, the comma quoted (RFC 4180) */
    rewind(f);
    ck_assert_int_eq(ftruncate(fileno(f), 0), 0);
    ck_assert_int_eq(ic_rows_write(f, IC_FMT_CSV, &r, NULL, false, &e), 0);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "name,ttft_s,time.step_s\n\"a,b\",1,0.5\n");
    ic_rows_free(&r);
    fclose(f);
}
END_TEST

/* Shares in a table: three significant digits, 1000% and over in whole
 * per cent (a chunk's decode slowdown of 13.24 read "1.32e+03%"), just
 * under 1 never rounded to 100%; numbers four significant digits, whole
 * from 10000 to 1e9 (simulate's rate of 10000 read "1e+04") */
START_TEST(test_rows_shares)
{
    static const struct ic_col cols[] = {{"share", "share", IC_K_FRAC}, {"num", "num", IC_K_NUM}};
    static const struct {
        int col;
        double x;
        const char *want;
    } c[] = {{0, 0.05, "5%"},         {0, 0.12345, "12.3%"}, {0, 9.994, "999%"},
             {0, 13.24, "1324%"},     {0, -12.5, "-1250%"},  {0, 0.9999994, "99.999940%"},
             {0, 0.999999999, ">99.999999%"},
             {1, 0.001034, "0.001034"},  {1, 8.262, "8.262"}, {1, 9999.4, "9999"},
             {1, 10000, "10000"},        {1, 14321.6, "14322"}, {1, -25000, "-25000"},
             {1, 2.5e9, "2.5e+09"}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        struct ic_rows r;
        struct ic_err e = {0};
        FILE *f = tmpfile();
        ck_assert_ptr_nonnull(f);
        ic_rows_init(&r, cols + c[i].col, 1);
        ck_assert_int_eq(ic_rows_add(&r), 0);
        ck_assert_int_eq(ic_rows_num(&r, cols[c[i].col].key, c[i].x), 0);
        ck_assert_int_eq(ic_rows_write(f, IC_FMT_TABLE, &r, NULL, false, &e), 0);
        char buf[256];
        rewind(f);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        char *last = strrchr(buf, ' '); /* the row's cell, right-aligned */
        ck_assert_ptr_nonnull(last);
        last[strcspn(last, "\n")] = '\0';
        ck_assert_msg(strcmp(last + 1, c[i].want) == 0, "%g: '%s' for '%s'", c[i].x, last + 1,
                      c[i].want);
        ic_rows_free(&r);
        fclose(f);
    }
}
END_TEST

/* check-published: the rows and the statistics from a CSV, its errors at
 * their line:column (exit 2), the JSON's figures. r1 of good.csv: llama3-8b
 * bf16 on one H100 at batch 1, context 1023 + ceil(2 / 2) = 1024; measured
 * 100 tokens/s = 10 ms; predicted 4.52 ms (test_published's hand
 * arithmetic), error -54.8%. */
START_TEST(test_check_published)
{
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good.csv", NULL),
                     0);
    has_out("4.52 (-54.8%)");
    has_out("batch 1, ideal");
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good.csv", "--format", "json", NULL),
                     0);
    has_out("\"measured_s\": 0.01");
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/bad-kind.csv", NULL),
                     2);
    has_err("bad-kind.csv:2:");
    /* rows that include the prefill are marked p after the batch and say so
     * in JSON; p1's time per token (test_published): (15,010,111,488 + 3 x
     * 15,010,373,632) / 4 / 3.35e12 = 4.48 ms against 5 ms, -10.4% */
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/prefill.csv", NULL),
                     0);
    has_out("   1p       3 ");
    has_out("4.48 (-10.4%)");
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/prefill.csv", "--format", "json", NULL),
                     0);
    has_out("\"includes_prefill\": true, \"simulated\": false, \"ideal_step_s\": 0.0044807085");
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/bad-prefill.csv", NULL),
                     2);
    has_err("bad-prefill.csv:2:93:");
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good.csv", "--plot", "x.gif", NULL),
                     2);
    ck_assert_str_eq(out_buf, "");
    /* CSV text as RFC 4180 quotes it (a quote doubled: the id 'r"1,a' was
     * written '"r"1,a"', a row of 18 fields under a header of 17), r1's
     * figures (measured 1 / 100 tokens/s; ideal 4.52 ms, -54.8%) and the
     * throughput columns empty on a decode row */
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good-quote.csv", "--format", "csv", NULL),
                     0);
    has_out("\n\"r\"\"1,a\",validation,decode_b1,\"gpt\"\"fast\",h100-sxm,1,llama3-8b,1,1024,0.01,"
            "0.00452065");
    has_out(",false,false,,,,,,"); /* includes_prefill and simulated as the JSON's */
    /* ... and what the JSON carries beside, the same figures: the chips and
     * concurrency, the step and its prefill (none: 0), the profile and the
     * source, quoted as text is */
    has_out(",1,1,0.004520656162,0,");
    has_out(",0,,,\"none: no gpt\"\"fast profile in enginedb\",a source\n");
    /* (the step's figures are the row's own: no prefill, so the expected
     * step is the expected time per token, and the ideal one the ideal) */
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good-quote.csv", "--format", "json",
                         NULL),
                     0);
    ck_assert_double_eq(json_num(out_buf, "expected_step_s"), json_num(out_buf, "expected_s"));
    ck_assert_double_eq(json_num(out_buf, "ideal_step_s"), json_num(out_buf, "ideal_s"));
    ck_assert_double_eq(json_num(out_buf, "expected_prefill_s"), 0);
    /* statistics over no validation row are unknown, not a perfect 0 */
    ck_assert_int_eq(run("check-published", "--measurements",
                         IC_TEST_DIR "/fixtures/published/good-calibration-only.csv", "--format",
                         "json", NULL),
                     0);
    has_out("\"expected\": {\"rows\": 0, \"median_abs_error\": null, \"p90_abs_error\": null, "
            "\"median_error\": null}");
}
END_TEST

/* Output that cannot be written: a full disk (/dev/full behind a link with
 * the picture's name) fails with the OS's reason, for each picture type;
 * a write cut short (the file size limit, in a child) leaves neither a
 * partial picture nor the temporary file beside it. */
START_TEST(test_output_full_disk)
{
    /* the standard output on a full disk: exit 1 with the reason, for the
     * commands that wrote it without a word (list, show, check-published)
     * as for decode */
    static const char *const cmds[][4] = {{"list", "hw", NULL},
                                          {"show", "hw", "h100", NULL},
                                          {"check-published", NULL},
                                          {"--model", "llama3-8b", "--hw", "h100"}};
    for (int i = 0; i < 4; i++) {
        FILE *full = fopen("/dev/full", "w"), *errs = tmpfile();
        ck_assert(full && errs);
        char *argv[6] = {(char *)"infcalc"};
        int argc = 1;
        for (int k = 0; k < 4 && cmds[i][k]; k++)
            argv[argc++] = (char *)cmds[i][k];
        ck_assert_int_eq(ic_cli_run(argc, argv, full, errs), 1);
        rewind(errs);
        char msg[256] = "";
        size_t n = fread(msg, 1, sizeof msg - 1, errs);
        msg[n] = '\0';
        ck_assert_msg(strstr(msg, "writing the output failed"), "%s: '%s'", cmds[i][0], msg);
        fclose(full);
        fclose(errs);
    }
    static const char *const types[] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3; i++) {
        char link[64];
        snprintf(link, sizeof link, "/tmp/ic-full-%d.%s", (int)getpid(), types[i]);
        unlink(link);
        ck_assert_int_eq(symlink("/dev/full", link), 0);
        ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot",
                             link, NULL),
                         1);
        has_err("cannot write the picture: No space left on device");
        unlink(link);
    }
    char dir[] = "/tmp/ic-cut-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[96];
    snprintf(path, sizeof path, "%s/chart.png", dir);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {20000, 20000}; /* the chart is ~100 kB */
        setrlimit(RLIMIT_FSIZE, &rl);
        _exit(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", "--plot", path,
                  NULL));
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 1);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int left = 0;
    for (struct dirent *e; (e = readdir(d));)
        left += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(left, 0); /* no chart.png, no chart.png.tmp-* */
    rmdir(dir);
}
END_TEST

/* A configuration that does not fit says the fewest chips that would, per
 * weight type (test_step's test_fewest_chips has the arithmetic: 405B on
 * 80 GB H100s, batch 1, context 2048: 16 in bf16, 8 in fp8 and int8, 4 in
 * int4 and fp4; over 2 stages 8, 4, 4, 2, 2 a stage); one that fits says
 * nothing of it. */
START_TEST(test_fewest_chips_shown)
{
    ck_assert_int_eq(run("--model", "llama3.1-405b", "--hw", "h100", "--chips", "4", NULL), 0);
    has_out("DOES NOT FIT");
    has_out("fewest chips that fit (a power of two; this batch and context, KV bf16): bf16 "
            "weights 16, fp8 weights 8, int8 weights 8, int4 weights 4, fp4 weights 4");
    ck_assert_int_eq(run("--model", "llama3.1-405b", "--hw", "h100", "--chips", "16", NULL), 0);
    ck_assert(!strstr(out_buf, "fewest chips"));
    /* two pipeline stages hold half the layers each: half the chips a stage */
    ck_assert_int_eq(run("--model", "llama3.1-405b", "--hw", "h100", "--chips", "4", "--pp", "2",
                         NULL),
                     0);
    has_out("fewest chips a stage that fit (a power of two; 2 stages, this batch and context, KV "
            "bf16): bf16 weights 8, fp8 weights 4, int8 weights 4, int4 weights 2, fp4 weights 2");
}
END_TEST

/* --sweep chips marks the largest useful tensor-parallel size: the row with
 * the shortest step, read back from the printed table; the footer names it
 * (Llama-3-70B on H100s: 16, where the all-reduces at 32 outgrow the
 * halved weight reads). */
START_TEST(test_useful_tp_marked)
{
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "h100", "--sweep", "chips", NULL), 0);
    double best = 1e300;
    unsigned long best_chips = 0, marked = 0;
    for (char *l = out_buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        unsigned long chips, batch;
        double step;
        if (sscanf(l, "%lu %lu %lf", &chips, &batch, &step) != 3)
            continue;
        if (step < best)
            best = step, best_chips = chips;
        char *nl = strchr(l, '\n');
        char *mark = strstr(l, "<- largest useful");
        if (mark && (!nl || mark < nl))
            marked = chips;
    }
    ck_assert_uint_eq(best_chips, 16);
    ck_assert_uint_eq(marked, best_chips);
    has_out("largest useful tensor-parallel size: 16 chips");
    /* and the other estimate's shortest step where it lies elsewhere: v5e's
     * ideal bound turns at 64 chips; its expected steps, read back from
     * the table's expected column, fall to the last size */
    ck_assert_int_eq(run("--model", "llama3-70b", "--hw", "v5e", "--sweep", "chips", NULL), 0);
    double bx = 1e300;
    unsigned long bx_chips = 0;
    for (char *l = out_buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        unsigned long chips, batch;
        double step, exp_ms;
        char fits[8] = "";
        if (sscanf(l, "%lu %lu %lf %lf", &chips, &batch, &step, &exp_ms) != 4)
            continue;
        /* the fits column: "yes" or "NO", the 14th field; a chip count
         * that does not fit is not a size to use */
        const char *y = strstr(l, " yes "), *nl = strchr(l, '\n');
        snprintf(fits, sizeof fits, "%s", y && (!nl || y < nl) ? "yes" : "NO");
        if (strcmp(fits, "yes") == 0 && exp_ms < bx)
            bx = exp_ms, bx_chips = chips;
    }
    ck_assert_uint_eq(bx_chips, 256);
    char want[160];
    snprintf(want, sizeof want, "(4.54 ms, the ideal bound); at 128 the step is 4.84 ms, 100%% "
                                "of it collectives; at the expected step, %lu chips (%.3g ms)\n",
             bx_chips, bx);
    has_out(want);
}
END_TEST

/* The k-th (0-based) number after "key": in a JSON text; NAN for null. */
static double json_nth(const char *text, const char *key, int k)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = text;
    for (int i = 0; i <= k; i++) {
        p = strstr(p, pat);
        ck_assert_msg(p, "no %s number %d in JSON", key, k);
        p += strlen(pat);
    }
    return strncmp(p, "null", 4) == 0 ? NAN : strtod(p, NULL);
}

/* The whitespace-separated fields of line l of text (the header is line
 * 0) into f (at most cap), the "<- largest useful" mark left off. */
static int fields(const char *text, int l, char f[][48], int cap)
{
    const char *p = text;
    for (int i = 0; i < l && p; i++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    ck_assert_ptr_nonnull(p);
    int n = 0;
    while (*p && *p != '\n' && n < cap) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n' || strncmp(p, "<-", 2) == 0)
            break;
        size_t k = strcspn(p, " \n");
        snprintf(f[n++], 48, "%.*s", (int)(k < 47 ? k : 47), p);
        p += k;
    }
    return n;
}

/* The line of text that opens with `head`, by number; -1 when none. */
static int line_of(const char *text, const char *head)
{
    int l = 0;
    for (const char *p = text; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL, l++)
        if (strncmp(p, head, strlen(head)) == 0)
            return l;
    return -1;
}

/* --sweep chips: each column as wide as its values (issue 15: the 64-chip
 * row of Llama-3.1-405B on L4s at a 1,000,000-token context printed
 * '3.83.28e+03', tokens/s run into $/Mtok; the 256-chip row of Llama-3-70B
 * on H100s printed '19.91.43e+04'). Every row splits into the header's
 * fifteen columns (chips, batch, step, expected, weights, kv, compute,
 * comm, bound, tok/s/chip, tok/s, $/Mtok, mem/chip, fits, max batch), and
 * its tokens/s and $/Mtok read back as the JSON of the same points to
 * their printed figures. */
START_TEST(test_sweep_columns_apart)
{
    static const char *const cases[][6] = {
        {"llama3.1-405b", "l4", "--context", "1000000"},
        {"llama3-70b", "h100", "--context", "2048"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ck_assert_int_eq(run("--model", cases[c][0], "--hw", cases[c][1], cases[c][2],
                             cases[c][3], "--sweep", "chips", "--format", "json", NULL),
                         0);
        static char json[sizeof out_buf];
        memcpy(json, out_buf, sizeof json);
        ck_assert_int_eq(run("--model", cases[c][0], "--hw", cases[c][1], cases[c][2],
                             cases[c][3], "--sweep", "chips", NULL),
                         0);
        int head = line_of(out_buf, "chips");
        ck_assert_int_ge(head, 0);
        int rows = 0;
        for (int l = head + 1;; l++) {
            char f[24][48];
            int n = fields(out_buf, l, f, 24);
            if (n == 0 || !strchr("0123456789", f[0][0]))
                break;
            ck_assert_msg(n == 15, "%s on %s, row %d: %d columns, not 15 (%s %s %s ...)",
                          cases[c][0], cases[c][1], rows, n, f[0], f[1], f[2]);
            double tps = json_nth(json, "tokens_per_s", rows);
            double usd = json_nth(json, "usd_per_million_tokens", rows);
            /* printed with 3 figures (tok/s at least 0.1): within half a unit of them */
            ck_assert_msg(fabs(strtod(f[10], NULL) - tps) <= fmax(0.05, 5e-3 * tps),
                          "row %d: tok/s '%s', JSON %g", rows, f[10], tps);
            ck_assert_msg(fabs(strtod(f[11], NULL) - usd) <= 5e-3 * usd,
                          "row %d: $/Mtok '%s', JSON %g", rows, f[11], usd);
            ck_assert_uint_eq(strtoull(f[0], NULL, 10), 1u << rows); /* chips 1, 2, 4 .. 256 */
            rows++;
        }
        ck_assert_int_eq(rows, 9);
    }
}
END_TEST

/* An MoE model's sweep table shows the experts touched per MoE layer: with
 * E experts, top-k each and B tokens routed uniformly at random, the
 * expected count is E (1 - (1 - k/E)^B). Mixtral-8x7B (E = 8, k = 2):
 * B = 1: 8 x 0.25 = 2.0; B = 2: 8 x (1 - 0.5625) = 3.5; B = 4: 8 x (1 -
 * 0.31640625) = 5.47; B = 8: 8 x (1 - 0.10011) = 7.20. A dense model's
 * table has no such column. */
START_TEST(test_moe_experts_column)
{
    ck_assert_int_eq(run("--model", "mixtral-8x7b", "--hw", "h100", "--sweep", "batch", NULL),
                     0);
    int head = line_of(out_buf, "batch");
    ck_assert_int_ge(head, 0);
    char f[24][48];
    int n = fields(out_buf, head, f, 24);
    int col = -1; /* the header's words: "step ms" is two, and so on */
    for (int i = 0; i < n; i++)
        if (strcmp(f[i], "experts") == 0)
            col = i;
    ck_assert_msg(col >= 0, "no experts column:\n%s", out_buf);
    /* batch, step ms, expected, weights ms, kv ms, compute ms, comm ms,
     * bound: the experts are the 9th value of a row (index 8) */
    static const double want[] = {2.0, 3.5, 5.47, 7.20};
    for (int b = 0; b < 4; b++) {
        n = fields(out_buf, head + 1 + b, f, 24);
        ck_assert_uint_eq(strtoull(f[0], NULL, 10), 1u << b);
        ck_assert_msg(fabs(strtod(f[8], NULL) - want[b]) <= 0.051, "batch %d: experts '%s', not %.2f",
                      1 << b, f[8], want[b]);
    }
    ck_assert_int_eq(run("--model", "llama3-8b", "--hw", "h100", "--sweep", "batch", NULL), 0);
    ck_assert(!strstr(out_buf, "experts"));
}
END_TEST

/* An entry without a price (0, as 'infcalc bench' writes for a machine whose
 * price it cannot know) shows no cost: null in JSON, '-' in a table, never
 * $0; --price gives one, $/M tokens = price x chips / 3600 / tokens/s x 1e6. */
START_TEST(test_no_price)
{
    char src[4096], dir[] = "/tmp/ic-noprice-XXXXXX", path[64];
    FILE *f = fopen(IC_TEST_DIR "/fixtures/good-hw.yaml", "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[len] = '\0';
    char *at = strstr(src, "usd_per_chip_hour: 1.00");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "usd_per_chip_hour: 0   ", strlen("usd_per_chip_hour: 1.00"));
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/hw.yaml", dir);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(src, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);

    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw", path, "--format", "json", NULL), 0);
    has_out("\"usd_per_million_tokens\": null,");
    has_out("\"flops_per_usd\": null,");
    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw", path, NULL), 0);
    has_out("cost                 - (the entry has no price)");
    ck_assert(!strstr(out_buf, "$0"));
    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw", path, "--sweep", "batch", NULL), 0);
    int head = line_of(out_buf, "batch");
    char fl[24][48];
    int n = fields(out_buf, head + 1, fl, 24);
    /* batch step expected? weights kv compute comm bound tpc tps $/Mtok: '-' */
    ck_assert_int_ge(n, 12);
    ck_assert_str_eq(fl[n - 3], "-");
    ck_assert_int_eq(run("cost", "--model", "llama3.2-1b", "--hw", path, "--format", "json",
                         NULL),
                     0);
    has_out("\"usd_per_chip_hour\": null, \"usd_per_hour\": null,");
    has_out("\"usd_per_million_output_tokens\": null,");
    has_out("\"usd_per_million_prompt_tokens\": null,");
    ck_assert_int_eq(run("cost", "--model", "llama3.2-1b", "--hw", path, NULL), 0);
    has_out("$/M output tokens          -");
    has_out("note: the entry has no price");
    ck_assert(!strstr(out_buf, "$0"));
    ck_assert_int_eq(run("cost", "--model", "llama3.2-1b", "--hw", path, "--price", "2",
                         "--format", "json", NULL),
                     0);
    double tps = json_num(out_buf, "tokens_per_s");
    ck_assert_double_eq_tol(json_num(out_buf, "usd_per_million_output_tokens"),
                            2.0 / 3600.0 / tps * 1e6, 1e-9 * (2.0 / 3600.0 / tps * 1e6));
    ck_assert_int_eq(run("show", "hw", path, NULL), 0);
    has_out("price: none");
    /* optimize ranks by price: the entry alone is refused (exit 2, a hint);
     * beside a priced chip it is left out and said, never ranked as free */
    ck_assert_int_eq(run("optimize", "--model", "llama3.2-1b", "--hw", path, "--ttft", "2s",
                         "--tpot", "50ms", NULL),
                     2);
    ck_assert_ptr_nonnull(strstr(ic_test_err, "optimize ranks by price"));
    char both[96];
    snprintf(both, sizeof both, "%s,h100", path);
    ck_assert_int_eq(run("optimize", "--model", "llama3.2-1b", "--hw", both, "--ttft", "2s",
                         "--tpot", "50ms", "--format", "csv", NULL),
                     0);
    ck_assert_ptr_null(strstr(out_buf, "test-chip"));
    ck_assert_ptr_nonnull(strstr(out_buf, "h100"));
    remove(path);
    rmdir(dir);
}
END_TEST

/* config.json as users have it. Qwen2.5-7B (examples/my-config.json) reads
 * 7,070,619,136 parameters per step (all but the input embedding: 2 x that
 * = 14,141,238,272 B in bf16).
 *  - rope_scaling YaRN x4 over 32,768: the usable context is 131,072, no
 *    warning there;
 *  - quantization_config AWQ, 4 bits, groups of 128: int4 weights plus an
 *    fp16 scale and a 4-bit zero per 128: 0.5 + 2.5 / 128 = 0.51953125 B a
 *    parameter: 3,673,407,598 B read; said on stderr; --weights bf16 wins;
 *  - fp8 with 128 x 128 blocks: 1 + 4 / 16384 B: 7,072,345,361 B;
 *  - a Llava wrapper around it (text_config): the same 7,615,616,512
 *    parameters;
 *  - --model org/name from a Hugging Face cache under HF_HOME, and the
 *    folders named when it is not there. */
/* Quantized checkpoints as shipped: each config's weights read and held
 * (JSON byte counts, to the byte), by hand in the comments, and what the
 * notes and errors say. */
static const struct qcase {
    const char *model, *hw;
    bool json;
    int rc;
    const char *out[3], *err;
} qcases[] = {
    /* GPTQ with "lm_head": true quantizes the head too (the old reading,
     * 7,070,619,136 x 0.51953125 = 3,673,407,598 B); the embedding stays
     * fp16, held not read: 4,763,402,350 B held; a list entry naming one
     * layer's MLP is said and counted as quantized */
    {IC_TEST_DIR "/fixtures/qwen2.5-7b-gptq-lm-head-config.json", "h100", true, 0,
     {"\"weight_read_bytes\": 3673407598,",
      "\"weights_bytes\": 4763402350,",
      "\"weights_kept\": \"embedding at fp16\""},
     "its list names in some layers only (counted as quantized): mlp"},
    /* gpt-oss-120b as shipped (mxfp4: the routed experts, 4.25 bits a
     * weight with an 8-bit scale a block of 32; attention, router, norms,
     * embedding and head in bf16). Held: the experts with their biases,
     * 114,701,598,720 x 0.53125 = 60,935,224,320 B, and (2 x 579,133,440 +
     * 849,600,000 + 106,205,184 + 13,485,888) x 2 = 4,255,115,904 B:
     * 65,190,340,224 B = 60.71 GiB, the model card's checkpoint 60.8 GiB
     * (arXiv:2508.10925, Table 1) within 0.2%; on one 80 GB H100 it fits.
     * Read at batch 1: 4 of 128 experts, 1,904,225,760 B, and the kept
     * groups but the embedding, 3,096,849,024 B */
    {IC_TEST_DIR "/fixtures/gpt-oss-120b-config.json", "h100", true, 0,
     {"\"weight_read_bytes\": 5001074784,",
      "\"weights_bytes\": 65190340224,",
      "\"fits\": true"},
     "weights fp4, from its quantization_config mxfp4"},
    /* the modeldb entry gives the same shipped checkpoint */
    {"gpt-oss-120b", "h100", true, 0,
     {"\"weights_bytes\": 65190340224,"},
     NULL},
    /* Lists naming each layer's modules (Meta's fbgemm_fp8 style): a
     * Llama-3.2-1B shape (16 layers, D 2048, 32 heads, 8 KV heads of 64,
     * F 8192, tied vocab 128,256) whose q, k, v and o projections of every
     * layer and head stay bf16: attention 16 x (2 x 2048^2 + 2 x 2048 x
     * 512) = 167,772,160 and the head 262,668,288 at 2 B = 860,880,896 B;
     * the MLP 16 x 3 x 2048 x 8192 = 805,306,368 and the norms 16 x 4096 +
     * 2048 = 67,584 at fp8: 1,666,254,848 B held (and read: tied, so
     * nothing is held unread). Layer 15 left out of the list: the
     * attention counts as fp8, (805,306,368 + 67,584 + 167,772,160) +
     * 525,336,576 = 1,498,482,688 B, and the note says so */
    {IC_TEST_DIR "/fixtures/llama3.2-1b-fbgemm-attn-bf16-config.json", "h100", true, 0,
     {"\"weights_kept\": \"lm_head, attn_heads, attn_kv at bf16\"",
      "\"weights_bytes\": 1666254848,"},
     NULL},
    {IC_TEST_DIR "/fixtures/llama3.2-1b-fbgemm-partial-config.json", "h100", true, 0,
     {"\"weights_bytes\": 1498482688,"},
     "some layers only (counted as quantized): attn_heads, attn_kv"},
    /* compressed-tensors FP8 per channel, ignore [lm_head] (Llama-3.1-8B):
     * the linear layers' 6,979,588,096 at 1 B and the embedding and head,
     * 2 x 525,336,576 at 2 B: 9,080,934,400 B held (its 1,376,256
     * per-channel scales, 2.75 MB at bf16, not counted) */
    {IC_TEST_DIR "/fixtures/llama3.1-8b-compressed-tensors-fp8-config.json", "h100", true, 0,
     {"\"weights_bytes\": 9080934400,"},
     "from its quantization_config compressed-tensors, fp8, one scale per channel"},
    /* compression_config, the key older compressed-tensors exports write
     * (mgoin/DeepSeek-Coder-V2-Lite-Instruct-FP8 at 5a429b9, Hugging Face;
     * its head verbatim, the keys after qk_rope_head_dim as the base
     * model's config): FP8 per tensor, ignore [lm_head]. 15,706,484,224
     * parameters; the embedding and head, 2 x 102,400 x 2,048 =
     * 419,430,400, and the routers, 26 MoE layers x 64 x 2,048 = 3,407,872
     * (no quantizer converts them), at 2 B and the other 15,283,645,952 at
     * 1 B: 16,129,322,496 B (read as bf16 before, 31.4 GB) */
    {IC_TEST_DIR "/fixtures/deepseek-coder-v2-lite-fp8-compression-config.json", "h100", true, 0,
     {"\"weights_bytes\": 16129322496,"},
     "from its compression_config compressed-tensors, fp8, one scale per tensor"},
    /* a block strategy whose block_structure is no list of sides ("x":
     * read as a block of 1, no scale counted, until 2026-12-04): not read,
     * the stored type asked for */
    {IC_TEST_DIR "/fixtures/llama3.1-8b-compressed-tensors-block-x-config.json", "h100", false,
     2, {NULL}, "quant_method 'compressed-tensors' is not read"},
    /* bitsandbytes LLM.int8 of Llama-3.1-8B, torch_dtype float32 (a
     * published checkpoint's config, github IrfanUruchi/Llama-3.1-8B-
     * Computer-Networks-LLM): the linear layers and norms, 6,979,588,096 at
     * 1 B, the embedding and head at 4 B, 4,202,692,608: 11,182,280,704 B
     * against its index's 11,188,584,672 (-0.06%: the rows' fp32 scales,
     * 43,008 x 32 x 4 = 5,505,024 B, and the norms' fp32, not counted) */
    {IC_TEST_DIR "/fixtures/llama3.1-8b-bnb-int8-config.json", "h100", true, 0,
     {"\"weights_bytes\": 11182280704,",
      "\"weights_kept\": \"embedding, lm_head at fp32\""},
     NULL},
    /* nvidia/Llama-3.1-70B-Instruct-FP8 states its quantization only in
     * hf_quant_config.json beside config.json (FP8, exclude [lm_head]):
     * 70,553,706,496 - 2 x 1,050,673,152 = 68,452,360,192 weights at 1 B and
     * the embedding and head at 2 B, 4,202,692,608: 72,655,052,800 B (read
     * as bf16 before, 141 GB, "DOES NOT FIT" on one H100) */
    {IC_TEST_DIR "/fixtures/nvidia-llama3.1-70b-fp8/config.json", "h100", true, 0,
     {"\"weights_bytes\": 72655052800,"},
     "from its hf_quant_config.json modelopt FP8"},
    /* compressed-tensors NVFP4 whose one group targets the experts only
     * ("re:.*mlp.experts.*") on gpt-oss-120b's shape: the experts at 0.5 +
     * 1/16 B (an 8-bit scale a group of 16), 64,519,649,280 B, everything
     * else bf16, 4,255,115,904 B: 68,774,765,184 B */
    {IC_TEST_DIR "/fixtures/gpt-oss-120b-nvfp4-experts-config.json", "h100", true, 0,
     {"\"weights_bytes\": 68774765184,"},
     "groups of 16 with an 8-bit scale, some groups only"},
    /* A dense NVFP4 checkpoint (ModelOpt, Llama-3.1-8B's shape): the linear
     * layers' 6,979,588,096 at 0.5 + 1/16 B = 3,926,018,304 B and the
     * embedding and head in bf16, 2,101,346,304 B: 6,027,364,608 B (it was
     * refused as "mxfp4 not read") */
    {IC_TEST_DIR "/fixtures/llama3.1-8b-modelopt-nvfp4-config.json", "b200", true, 0,
     {"\"weights_bytes\": 6027364608,"},
     NULL},
    /* A list beside a method that never quantizes a part leaves it kept:
     * AWQ naming only a vision tower (Qwen2.5-VL's AWQ configs) keeps its
     * fp16 head (the same 4,480,259,182 B read as the plain AWQ config in
     * test_config_json_as_shipped); an entry's layer number past 2^31 is not read (it was every
     * layer); mxfp4 with an empty list still quantizes the experts alone
     * (gpt-oss-120b's 65,190,340,224 B) */
    {IC_TEST_DIR "/fixtures/qwen2.5-7b-awq-list-config.json", "h100", true, 0,
     {"\"weight_read_bytes\": 4480259182,"},
     "2 entries of its list not read"},
    {IC_TEST_DIR "/fixtures/gpt-oss-120b-mxfp4-empty-list-config.json", "h100", true, 0,
     {"\"weights_bytes\": 65190340224,"},
     NULL},
    /* A ModelOpt FP8 list on Nemotron 3 Nano naming each attention block's
     * mixer.q/k/v/o_proj and each Mamba2 block's conv1d: the KV projections
     * (in the attention blocks only) are kept whole, 8,257,536 x 2 B; the
     * q/o projections share their group with the Mamba2 blocks' projections,
     * so it is named in some blocks only and counted as fp8 (said); the
     * conv1d is a small part. Embedding and head 704,643,072 x 2 B, the
     * routers and their correction biases, 23 x (2,688 x 128 + 128) =
     * 7,916,416, at 2 B too, the other 30,857,123,264 at 1 B: with the
     * KV projections' 16,515,072 B, 1,409,286,144 + 15,832,832 +
     * 30,857,123,264 + 16,515,072 = 32,298,757,312 B */
    {IC_TEST_DIR "/fixtures/nemotron-3-nano-fp8-attn-kept-config.json", "h100", true, 0,
     {"\"weights_bytes\": 32298757312,",
      "\"weights_kept\": \"embedding, lm_head, attn_kv, MoE routers at bf16\""},
     "its list names in some layers only (counted as quantized): attn_heads"},
    /* Qwen3-30B-A3B-FP8's own config (ai-dynamo/aiconfigurator's copy): its
     * list names each layer's norms and router gate, parts it does not
     * model, and no attention (post_attention_layernorm is a norm): the
     * embedding and head in bf16, 2 x 311,164,928 x 2 = 1,244,659,712 B,
     * the routers, 48 x 128 x 2,048 = 12,582,912, in bf16 too (25,165,824
     * B), the other 29,897,209,856 (q/k norms included, 48 x 2 x 128) at 1
     * + 4/16384 B = 29,904,508,979.5: 31,174,334,515.5, printed
     * 31,174,334,516 B */
    {IC_TEST_DIR "/fixtures/qwen3-30b-a3b-fp8-config.json", "h200", true, 0,
     {"\"weights_bytes\": 31174334516,",
      "\"weights_kept\": \"embedding, lm_head, MoE routers at bf16\""},
     NULL},
    /* nvidia's Kimi-K2.6-NVFP4 (aiconfigurator's copy): its list keeps the
     * whole of layer 0 ("layers.0*"), each layer's self_attn (with MLA's
     * down-projections) and each MoE layer's shared experts: bf16 for the
     * embedding, head, attention, replicated, dense MLP and shared groups,
     * 11,722,208,768 (the routers' correction biases included, 60 x 384)
     * x 2 = 23,444,417,536 B, and the routed experts at 0.5 + 1/16 B,
     * 570,760,888,320 B: 594,205,305,856 B */
    {IC_TEST_DIR "/fixtures/kimi-k2.6-nvfp4-config.json", "b200", true, 0,
     {"\"weights_bytes\": 594205305856,"},
     NULL},
    /* bitsandbytes: llm_int8_skip_modules, where given, replaces the
     * default (the head): attention kept in fp32, the head int8 */
    {IC_TEST_DIR "/fixtures/llama3.1-8b-bnb-int8-skip-attn-config.json", "h100", true, 0,
     {"\"weights_kept\": \"embedding, attn_heads, attn_kv at fp32\""},
     NULL},
    /* an hf_quant_config.json that does not read is an error, not bf16 */
    {IC_TEST_DIR "/fixtures/hf-quant-broken/config.json", "h100", false, 2,
     {NULL},
     "hf_quant_config.json:1:1: error: expected a 'quantization' section with a quant_algo"},
    /* AMD Quark fp8 per tensor, exclude [lm_head] (Qwen2.5-7B): the linear
     * layers' 6,525,621,760 at 1 B, the embedding and head at 2 B:
     * 8,705,611,264 B; a layer_quant_config giving the MLP other types is
     * not one type: --weights is asked for */
    {IC_TEST_DIR "/fixtures/qwen2.5-7b-quark-fp8-config.json", "h100", true, 0,
     {"\"weights_bytes\": 8705611264,"},
     "quantization_config quark fp8, scales per_tensor"},
    {IC_TEST_DIR "/fixtures/qwen2.5-7b-quark-mixed-config.json", "h100", false, 2,
     {NULL},
     "quant_method 'quark (types by layer)' is not read"},
    /* ModelOpt's export (no quant_method: quant_algo FP8, ignore
     * [lm_head]) of Qwen3-32B: the embedding and head (151,936 x 5,120 =
     * 777,912,320 each) in bf16, the other 31,206,298,624 (q/k norms
     * included, 64 x 2 x 128) at 1 B: 34,317,947,904 B */
    {IC_TEST_DIR "/fixtures/qwen3-32b-modelopt-fp8-config.json", "h100", true, 0,
     {"\"weights_bytes\": 34317947904,"},
     "quantization_config modelopt FP8"},
};

START_TEST(test_quantized_checkpoints)
{
    const struct qcase *q = &qcases[_i];
    if (q->json)
        ck_assert_int_eq(run("--model", q->model, "--hw", q->hw, "--format", "json", NULL), q->rc);
    else
        ck_assert_int_eq(run("--model", q->model, "--hw", q->hw, NULL), q->rc);
    for (int k = 0; k < 3 && q->out[k]; k++)
        has_out(q->out[k]);
    if (q->err)
        has_err(q->err);
}
END_TEST

START_TEST(test_config_json_as_shipped)
{
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-yarn-config.json", "--hw",
                         "h100", "--context", "131072", NULL),
                     0);
    ck_assert(!strstr(err_buf, "warning"));
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-yarn-config.json", "--hw",
                         "h100", "--context", "131073", NULL),
                     0);
    has_err("exceeds");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-awq-config.json", "--hw",
                         "h100", "--format", "json", NULL),
                     0);
    has_out("\"weights\": \"int4\", \"weights_kept\": \"embedding, lm_head at fp16\"");
    /* AutoAWQ leaves the LM head in fp16: the linear layers' 6,525,621,760
     * parameters at 0.5 + (2 + 0.5) / 128 B (int4, an fp16 scale and a
     * 4-bit zero a group of 128) = 3,390,264,430 B, and the head's
     * 544,997,376 at 2 B = 1,089,994,752 B: 4,480,259,182 (the head read as
     * int4 gave 3,673,407,598, 18% short) */
    has_out("\"weight_read_bytes\": 4480259182,");
    has_err("weights int4, from its quantization_config awq");
    has_err("kept: embedding, lm_head at fp16");
    /* the serving analyses' titles say it too */
    ck_assert_int_eq(run("batching", "--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-awq-config.json",
                         "--hw", "h100", NULL),
                     0);
    has_out("weights int4 (embedding, lm_head at fp16), KV bf16");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-awq-config.json", "--hw",
                         "h100", "--weights", "bf16", "--format", "json", NULL),
                     0);
    has_out("\"weight_read_bytes\": 14141238272,"); /* a count, to the byte */
    ck_assert_str_eq(err_buf, "");
    /* GPTQ per channel (group_size -1): the linear layers' int4 weights
     * alone, 6,525,621,760 / 2 = 3,262,810,880 B (a scale and a zero a row
     * of K >= 3584 weights, 5/K of their bytes, about 0.1%, not counted),
     * and the fp16 head (no "lm_head": true), 1,089,994,752 B */
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-gptq-per-channel-config.json",
                         "--hw", "h100", "--format", "json", NULL),
                     0);
    has_out("\"weight_read_bytes\": 4352805632,");
    has_err("per output channel (group_size -1");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/qwen2.5-7b-fp8-config.json", "--hw",
                         "h100", "--format", "json", NULL),
                     0);
    /* fp8 with a 4-byte scale a 128 x 128 block: 6,525,621,760 x (1 +
     * 4 / 16384) = 6,527,214,929 B, and the head in bf16, 1,089,994,752 */
    has_out("\"weight_read_bytes\": 7617209681,");
    ck_assert_int_eq(run("--model", IC_TEST_DIR "/fixtures/llava-qwen2.5-7b-config.json", "--hw",
                         "h100", "--format", "json", NULL),
                     0);
    has_out("\"params\": 7615616512,");
    has_err("its vision_config (an encoder) is not counted");
    ck_assert_int_eq(run("show", "model", IC_TEST_DIR "/fixtures/llava-qwen2.5-7b-config.json", NULL),
                     0);
    has_out("not counted: its vision_config (an encoder)");
    ck_assert_int_eq(run("show", "model", "gpt-oss-120b", NULL), 0);
    has_out("weights as shipped: fp4, from its quantization_config mxfp4, one 8-bit scale per 32 "
            "weights; kept: embedding, lm_head, attn_heads, attn_kv, replicated at bf16");
    /* Nemotron 3 Nano's 52 blocks ("MEMEM*EMEMEM*..."): 23 M, 6 *, 23 E, read
     * as 29 layers */
    ck_assert_int_eq(run("show", "model", "nemotron-3-nano-30b-a3b", NULL), 0);
    has_out("layers 29, hidden 2688");
    has_out("blocks 52: 23 Mamba2, 6 attention, 0 MLP, 23 MoE");

    char dir[] = "/tmp/ic-hf-XXXXXX", p[512];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const char *sub[] = {"hub", "hub/models--acme--my-qwen", "hub/models--acme--my-qwen/refs",
                         "hub/models--acme--my-qwen/snapshots",
                         "hub/models--acme--my-qwen/snapshots/0123abc"};
    for (int i = 0; i < 5; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        ck_assert_int_eq(mkdir(p, 0755), 0);
    }
    snprintf(p, sizeof p, "%s/%s/config.json", dir, sub[4]);
    FILE *in = fopen(IC_SRC_DIR "/examples/my-config.json", "r"), *o = fopen(p, "w");
    ck_assert(in && o);
    for (int ch; (ch = fgetc(in)) != EOF;)
        fputc(ch, o);
    fclose(in);
    fclose(o);
    snprintf(p, sizeof p, "%s/%s/main", dir, sub[2]);
    o = fopen(p, "w");
    ck_assert_ptr_nonnull(o);
    fputs("0123abc\n", o);
    fclose(o);
    char *old = getenv("HF_HOME") ? strdup(getenv("HF_HOME")) : NULL;
    setenv("HF_HOME", dir, 1);
    ck_assert_int_eq(run("--model", "acme/my-qwen", "--hw", "h100", "--format", "json", NULL),
                     0);
    has_out("\"model\": \"acme/my-qwen\"");
    has_out("\"params\": 7615616512,");
    ck_assert_int_eq(run("--model", "acme/nope-70b", "--hw", "h100", NULL), 2);
    has_err("unknown model 'acme/nope-70b': no modeldb entry, and no config.json in the local Hugging Face cache");
    has_err("models--acme--nope-70b");
    has_err("never downloads");
    if (old) {
        setenv("HF_HOME", old, 1);
        free(old);
    } else {
        unsetenv("HF_HOME");
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The whole text of a file (at most cap - 1 bytes) into buf. */
static void read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t n = fread(buf, 1, cap - 1, f);
    ck_assert(feof(f));
    fclose(f);
    buf[n] = '\0';
}

/* The number after `key` in text, at or after the first `from` ("" for
 * the start): the YAML's own figure, its unit's prefix left to the caller. */
static double text_num(const char *text, const char *from, const char *key)
{
    const char *p = strstr(text, from);
    ck_assert_msg(p != NULL, "no '%s'", from);
    p = strstr(p, key);
    ck_assert_msg(p != NULL, "no '%s' after '%s'", key, from);
    return strtod(p + strlen(key), NULL);
}

/* The line of out_buf that opens with head, into buf (the test fails
 * without one). */
static void out_line(const char *head, char *buf, size_t cap)
{
    int l = line_of(out_buf, head);
    ck_assert_msg(l >= 0, "no line '%s' in:\n%s", head, out_buf);
    const char *p = out_buf;
    for (int i = 0; i < l; i++)
        p = strchr(p, '\n') + 1;
    snprintf(buf, cap, "%.*s", (int)strcspn(p, "\n"), p);
}

/* show hw prints a measured section (infcalc bench's, or a user's own
 * microbenchmarks) in full: the figures are the YAML's own, each with its
 * unit and its ratio to the spec section. plots/bench-cpu.yaml: read
 * 36.1509 GB/s over memory.bandwidth 36.1509 GB/s = 100%; gemm fp32
 * 159.407 GFLOP/s over compute.fp32 343.137 GFLOP/s = 46% (read from the
 * file, so a new bench's figures hold too). */
START_TEST(test_show_measured)
{
    static char yaml[1 << 16];
    read_text(IC_SRC_DIR "/plots/bench-cpu.yaml", yaml, sizeof yaml);
    const double spec_bw = text_num(yaml, "\nmemory:", "bandwidth: ");      /* GB/s */
    const double spec_fp32 = text_num(yaml, "\ncompute:", "fp32: ");        /* GFLOP/s */
    const double read = text_num(yaml, "\nmeasured:", "read_bandwidth: ");  /* GB/s */
    const double read1 = text_num(yaml, "\nmeasured:", "read_bandwidth_1thread: ");
    const double gemm = text_num(yaml, "\n  gemm:\n", "fp32: ");            /* GFLOP/s */
    const double gemv = text_num(yaml, "\n  gemv_dram:\n", "bf16: ");      /* GB/s */
    const double threads = text_num(yaml, "\nmeasured:", "threads: ");
    const double llc = text_num(yaml, "\nmeasured:", "llc: "); /* B, as bench writes it */
    ck_assert(read > 1 && gemm > 1 && spec_fp32 > 1 && spec_bw > 1 && gemv > 1);
    ck_assert_int_eq(run("show", "hw", IC_SRC_DIR "/plots/bench-cpu.yaml", NULL), 0);
    has_out("\nmeasured (");
    char want[160];
    snprintf(want, sizeof want, "  read        %.4g GB/s (%.0f%% of spec)", read,
             100 * read / spec_bw);
    has_out(want);
    snprintf(want, sizeof want, "one thread %.4g GB/s", read1);
    has_out(want);
    snprintf(want, sizeof want, "  GEMM        fp32 %.4g GFLOP/s (%.0f%% of spec)", gemm,
             100 * gemm / spec_fp32);
    has_out(want);
    snprintf(want, sizeof want, "bf16 %.4g GB/s (%.0f%% of spec)", gemv, 100 * gemv / spec_bw);
    has_out(want);
    snprintf(want, sizeof want, "%.0f threads (the figures below at that count)", threads);
    has_out(want);
    snprintf(want, sizeof want, "LLC %.3g MB (%.4g MiB)", llc / 1e6, llc / 1048576);
    has_out(want);
    has_out("  GEMM by batch 1, 2, 4 ... 256 (GFLOP/s; ");
    has_out("  attention   bf16 ");
    has_out("  layer work  ");
    /* matmul_start left out: what the step adds instead, said */
    has_out("  matmul start 0 (default, not in the entry");
    /* the section's own source */
    has_out("    source: infcalc bench ");
    /* an accelerator without one prints none */
    ck_assert_int_eq(run("show", "hw", "h100", NULL), 0);
    ck_assert_ptr_null(strstr(out_buf, "\nmeasured ("));
}
END_TEST

/* A torus's wraparound rule decides a collective's links and hops (1.5x
 * apart), so show hw names it on the interconnect line: v6e's axes are
 * rings from 16 chips, v5p's only in slices of whole 4-cubes, and an entry
 * without either key has every axis a ring; an all-reduce measured along
 * one axis says so, and what that axis is there. */
START_TEST(test_show_wraparound)
{
    char v6e[1024], v5p[1024];
    ck_assert_int_eq(run("show", "hw", "tpu-v6e", NULL), 0);
    out_line("interconnect:", v6e, sizeof v6e);
    ck_assert_ptr_nonnull(strstr(v6e, "rings from 16 chips along an axis, a shorter axis a line "
                                      "(wraparound_from)"));
    has_out("over 4 chips along one torus axis (allreduce_axis), a line there: 1 link a chip, "
            "3 hops");
    ck_assert_int_eq(run("show", "hw", "tpu-v5p", NULL), 0);
    out_line("interconnect:", v5p, sizeof v5p);
    ck_assert_ptr_nonnull(strstr(v5p, "wraparound on whole 4-cubes: every axis a ring in a slice "
                                      "of whole 4x4x4 cubes"));
    ck_assert_str_ne(v6e, v5p);
    /* one entry under the three rules: three lines (the test fixture's
     * torus-2d, 50 GB/s x 4 links) */
    char src[4096], dir[] = "/tmp/ic-wrap-XXXXXX", path[64], line[3][1024];
    read_text(IC_TEST_DIR "/fixtures/good-hw.yaml", src, sizeof src);
    const char *at = strstr(src, "  hop_latency: 1 us\n");
    ck_assert_ptr_nonnull(at);
    const size_t cut = (size_t)(at - src) + strlen("  hop_latency: 1 us\n");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/hw.yaml", dir);
    static const char *const rule[3] = {"", "  wraparound_from: 16\n", "  wraparound_cube: 4\n"};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(path, "w");
        ck_assert_ptr_nonnull(f);
        fprintf(f, "%.*s%s%s", (int)cut, src, rule[i], src + cut);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_int_eq(run("show", "hw", path, NULL), 0);
        out_line("interconnect:", line[i], sizeof line[i]);
    }
    ck_assert_ptr_nonnull(strstr(line[0], "; every axis a ring (no wraparound key)"));
    ck_assert_ptr_nonnull(strstr(line[1], "; rings from 16 chips along an axis"));
    ck_assert_ptr_nonnull(strstr(line[2], "; wraparound on whole 4-squares"));
    ck_assert_str_ne(line[0], line[1]);
    ck_assert_str_ne(line[1], line[2]);
    ck_assert_str_ne(line[0], line[2]);
    /* a fabric that is no torus has no rule to print */
    ck_assert_int_eq(run("show", "hw", "h100", NULL), 0);
    out_line("interconnect:", line[0], sizeof line[0]);
    ck_assert_ptr_null(strstr(line[0], "wraparound"));
    ck_assert_ptr_null(strstr(line[0], "ring"));
    remove(path);
    rmdir(dir);
}
END_TEST

/* An achieved section that leaves out its optional figures: show hw prints
 * each with the value the expected step takes instead (ic_step_time:
 * gemv_efficiency 1, no GEMM fixed time, the max of a GEMM's two times,
 * no step launches; the collective group a sub-grid), marked as a default
 * not in the entry; with gemv_efficiency given, its figure instead. */
START_TEST(test_show_achieved_defaults)
{
    static const char achieved[] =
        "achieved:\n"
        "  hbm_read: 900 GB/s\n"
        "  memory_source: \"test fixture\"\n"
        "%s"
        "  gemm: {bf16: 80 TFLOP/s}\n"
        "  gemm_source: \"test fixture\"\n"
        "  allreduce_latency: 20 us\n"
        "  allreduce_bus_bandwidth: 40 GB/s\n"
        "  allreduce_chips: 4\n"
        "  collective_source: \"test fixture\"\n"
        "  launch: 5 us\n"
        "  launch_graph: 2 us\n"
        "  kernels_per_layer: 10\n"
        "  launch_source: \"test fixture\"\n";
    char src[4096], dir[] = "/tmp/ic-achdef-XXXXXX", path[64];
    read_text(IC_TEST_DIR "/fixtures/good-hw.yaml", src, sizeof src);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/hw.yaml", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(src, f);
    fprintf(f, achieved, "");
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(run("show", "hw", path, NULL), 0);
    has_out("  GEMV        900 GB/s at batch 1, the memory read: GEMV efficiency 1 (default, "
            "not in the entry: optimistic)");
    has_out("(gemv_fixed 0: default, not in the entry)");
    has_out("  GEMV 1 row  at the GEMV's rate and fixed time (skinny_efficiency: default, not in "
            "the entry)");
    has_out("  transition  bf16: the max of a GEMM's weight read and FLOPs (transition_p: "
            "default, not in the entry");
    has_out("over 4 chips in the most compact sub-grid of that many (allreduce_axis false: "
            "default, not in the entry)");
    has_out("0 launches per step (step_launches: default, not in the entry)");
    /* the values the expected step takes: the weights at 900 GB/s x 1 with
     * no fixed time, and 16 layers x 10 kernels x 2 us of launches with no
     * step launch (llama3.2-1b) */
    ck_assert_int_eq(run("--model", "llama3.2-1b", "--hw", path, "--estimate", "expected",
                         "--format", "json", NULL),
                     0);
    const double wb = json_num(out_buf, "weight_read_bytes");
    ck_assert(ic_test_rel(json_num(out_buf, "weights_s"), wb / 900e9) < 1e-9);
    ck_assert_double_eq(json_num(out_buf, "gemm_fixed_s"), 0);
    ck_assert(ic_test_rel(json_num(out_buf, "fixed_s"), 16 * 10 * 2e-6) < 1e-9);
    /* gemv_efficiency given: its figure, no default said for it */
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(src, f);
    fprintf(f, achieved,
            "  gemv_efficiency: 0.9\n  gemv_source: \"test fixture\"\n  step_launches: 1\n");
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(run("show", "hw", path, NULL), 0);
    has_out("  GEMV        810 GB/s at batch 1 (90% of the memory read, 81% of spec), and no "
            "time a GEMM kernel beyond its launch and its bytes (gemv_fixed 0: default, not in "
            "the entry");
    ck_assert_ptr_null(strstr(out_buf, "GEMV efficiency 1"));
    ck_assert_ptr_null(strstr(out_buf, "step_launches: default"));
    has_out("1 launch per step\n");
    remove(path);
    rmdir(dir);
}
END_TEST

/* show engine names the profile's aliases (other names --engine takes) and
 * the versions it describes (which published rows get it). */
START_TEST(test_show_engine_names)
{
    ck_assert_int_eq(run("show", "engine", "gpt-fast", NULL), 0);
    has_out("gpt-fast: gpt-fast main\n");
    has_out("\nversions: main, 2023-12, 2024-03, 2024-09 (published/decode.csv's rows of engine "
            "gpt-fast at one of these texts as engine_version take this profile");
    has_out("\naliases: none (--engine takes the name alone)\n");
    ck_assert_int_eq(run("show", "engine", "vllm", NULL), 0);
    has_out("vllm-0.19: vllm 0.19.1");
    has_out("\naliases: vllm, vllm-v1 (other names --engine takes)\n");
    has_out("\nversions: 0.19.1 (published/decode.csv's rows of engine vllm at this text as "
            "engine_version take this profile; so do those at a version that '0.19.1' leads");
    /* texts with spaces or parentheses quoted, so that the list reads */
    ck_assert_int_eq(run("show", "engine", "jetstream", NULL), 0);
    has_out("\nversions: 'main (2024)', 'unstated (2024-04-24 run)', 'unstated (2024-03-28 run)' "
            "(");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_main_example);
    tcase_add_test(tc, test_plot_path_checked_first);
    tcase_add_test(tc, test_json_agrees_with_library);
    tcase_add_test(tc, test_sweeps);
    tcase_add_test(tc, test_bad_usage);
    tcase_add_test(tc, test_bad_files);
    tcase_add_loop_test(tc, test_corpus, 0, N_BROKEN);
    tcase_add_test(tc, test_compute_type_missing);
    tcase_add_test(tc, test_kv_heads_unshardable);
    tcase_add_test(tc, test_context_warning);
    tcase_add_test(tc, test_comm_overlap_expected);
    tcase_add_test(tc, test_kv_placement_copy);
    tcase_add_test(tc, test_trace_context_warning);
    tcase_add_test(tc, test_numbers_rejected);
    tcase_add_test(tc, test_uneven_split_noted);
    tcase_add_test(tc, test_optimize_expected_tpot);
    tcase_add_test(tc, test_optimize_at_expected);
    tcase_add_test(tc, test_serving_at_expected);
    tcase_add_test(tc, test_sim_layout_fields);
    tcase_add_test(tc, test_sim_itl_e2e_percentiles);
    tcase_add_test(tc, test_sim_trace_refuses_lengths);
    tcase_add_test(tc, test_other_estimate_why);
    tcase_add_test(tc, test_measured_under_ideal);
    tcase_add_test(tc, test_sim_profile_max_batch);
    tcase_add_test(tc, test_suggestions);
    tcase_add_test(tc, test_help_everywhere);
    tcase_add_test(tc, test_list_and_show);
    tcase_add_test(tc, test_config_json_and_warning);
    tcase_add_test(tc, test_sim_one_token_outputs);
    tcase_add_test(tc, test_sim_overload_note);
    tcase_add_test(tc, test_bestofn_time);
    tcase_add_test(tc, test_pipeline_described);
    tcase_add_test(tc, test_plot_and_lists);
    tcase_add_test(tc, test_csv_carries_every_json_field);
    tcase_add_test(tc, test_rows_filled_by_name);
    tcase_add_test(tc, test_rows_shares);
    tcase_add_test(tc, test_check_published);
    tcase_add_test(tc, test_output_full_disk);
    tcase_add_test(tc, test_fewest_chips_shown);
    tcase_add_test(tc, test_useful_tp_marked);
    tcase_add_test(tc, test_sweep_columns_apart);
    tcase_add_test(tc, test_moe_experts_column);
    tcase_add_test(tc, test_no_price);
    tcase_add_test(tc, test_show_measured);
    tcase_add_test(tc, test_show_wraparound);
    tcase_add_test(tc, test_show_achieved_defaults);
    tcase_add_test(tc, test_show_engine_names);
    tcase_add_test(tc, test_config_json_as_shipped);
    tcase_add_test(tc, test_memory_kind);
    tcase_add_test(tc, test_optimize_widths_apart);
    tcase_add_loop_test(tc, test_quantized_checkpoints, 0,
                        (int)(sizeof qcases / sizeof qcases[0]));
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
