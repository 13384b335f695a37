/* Fuzz harness: the whole command line (ic_cli_run). The input is split
 * into words at each newline or NUL (at most MAX_WORDS), which follow
 * "infcalc" in argv: a command word or not, options, values, stray words.
 *
 * Kept safe and fast: an input whose command is serve (it blocks), bench
 * or validate (minutes of measuring; they write entries and CSVs) is
 * skipped; every value of --plot, --out, --csv and --plot-prefix becomes a
 * file in a scratch folder (keeping a .png, .svg or .pdf ending, so the
 * charts are drawn and written); a --plot-size over 2 million pixels
 * becomes 1600x1000 (a bigger PNG takes seconds to encode); an absolute path or one with '..' becomes
 * "x" (the harness reads only the source tree: it runs there, with
 * INFCALC_DB set to it); standard input is /dev/null ('-' reads nothing).
 *
 * Oracles: the exit status is 0, 1 or 2; 2 comes with an error on stderr
 * ("infcalc: error: ..." or "FILE[:LINE:COL]: error: ...", whatever the
 * file is called), except for a
 * bare "infcalc" (the usage, on stderr); 1 (an internal or I/O failure)
 * does not happen here: the scratch folder is writable and memory does not
 * run out; 0 prints something on stdout (or writes the chart asked for).
 * No crash, no leak, no hang (libFuzzer -timeout).
 *
 * Seeds: tests/fuzz/seeds/cli; dictionary: cli.dict. */
#include "fuzz_common.h"

#include "ic_cli.h"
#include "ic_opt.h"

#include <gsl/gsl_errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MAX_WORDS = 24, MAX_INPUT = 4096 };

static char scratch[256];

static void remove_scratch(void)
{
    static const char *const names[] = {"out.png", "out.svg", "out.pdf", "out",
                                        "out-batch.png", "out-context.png"};
    char p[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", scratch, names[i]);
        remove(p);
    }
    rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/infcalc-fuzz-cli-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch))
        ic_fuzz_fail("cannot make a scratch folder");
    atexit(remove_scratch);
    setenv("INFCALC_DB", IC_SRC_DIR, 1);
    if (chdir(IC_SRC_DIR))
        ic_fuzz_fail("cannot enter %s", IC_SRC_DIR);
    if (!freopen("/dev/null", "r", stdin))
        ic_fuzz_fail("cannot read standard input from /dev/null");
    gsl_set_error_handler_off();
    return 0;
}

/* The options whose value names a file to write. */
static bool writes(const char *name, size_t len)
{
    static const char *const w[] = {"--plot", "--out", "--csv", "--plot-prefix"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (strlen(w[i]) == len && !strncmp(name, w[i], len))
            return true;
    return false;
}

/* The scratch file standing for value: its chart ending kept. */
static void scratch_for(const char *value, char *buf, size_t cap)
{
    size_t l = strlen(value);
    const char *ext = "";
    if (l >= 4 && (!strcmp(value + l - 4, ".png") || !strcmp(value + l - 4, ".svg") ||
                   !strcmp(value + l - 4, ".pdf")))
        ext = value + l - 4;
    snprintf(buf, cap, "%s/out%s", scratch, ext);
}

static bool outside(const char *v) { return v[0] == '/' || strstr(v, ".."); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    char *text = malloc(size + 1);
    if (!text)
        ic_fuzz_fail("out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    /* the words, each its own malloc'd copy (ASan sees an overrun of one) */
    char *argv[MAX_WORDS + 2];
    int argc = 0;
    argv[argc++] = strdup("infcalc");
    for (size_t at = 0; at < size && argc <= MAX_WORDS;) {
        size_t l = 0;
        while (at + l < size && text[at + l] != '\n' && text[at + l] != '\0')
            l++;
        text[at + l] = '\0';
        argv[argc++] = strdup(text + at);
        at += l + 1;
    }
    argv[argc] = NULL;
    free(text);
    bool skip = false;
    for (int i = 0; i < argc; i++)
        if (!argv[i])
            ic_fuzz_fail("out of memory");
    if (argc > 1) {
        enum ic_cmd c = ic_cmd_find(argv[1]);
        skip = c == IC_CMD_SERVE || c == IC_CMD_BENCH || c == IC_CMD_VALIDATE;
    }
    bool chart = false;
    for (int i = 1; i < argc && !skip; i++) {
        char *w = argv[i], *eq = strchr(w, '=');
        size_t nl = eq ? (size_t)(eq - w) : strlen(w);
        char buf[400];
        if (w[0] == '-' && w[1] == '-' && writes(w, nl) && (eq || i + 1 < argc)) {
            char *v = eq ? eq + 1 : argv[i + 1];
            scratch_for(v, buf, sizeof buf);
            chart = true;
            if (eq) {
                char *nw = malloc(nl + 1 + strlen(buf) + 1);
                if (!nw)
                    ic_fuzz_fail("out of memory");
                sprintf(nw, "%.*s=%s", (int)nl, w, buf);
                free(argv[i]);
                argv[i] = nw;
            } else {
                free(argv[i + 1]);
                if (!(argv[i + 1] = strdup(buf)))
                    ic_fuzz_fail("out of memory");
                i++;
            }
            continue;
        }
        /* a 10000x10000 PNG takes seconds to encode (a timeout, not a
         * bug): a picture over 2 million pixels is drawn at 1600x1000 */
        if (nl == 11 && !strncmp(w, "--plot-size", 11) && (eq || i + 1 < argc)) {
            char **v = eq ? NULL : &argv[i + 1];
            const char *t = eq ? eq + 1 : *v;
            char *x = NULL;
            unsigned long pw = strtoul(t, &x, 10), ph = x && *x == 'x' ? strtoul(x + 1, NULL, 10) : 0;
            if ((double)pw * (double)ph > 2e6) {
                if (v) {
                    free(*v);
                    *v = strdup("1600x1000");
                } else {
                    free(argv[i]);
                    argv[i] = strdup("--plot-size=1600x1000");
                }
                if (!argv[i] || (v && !*v))
                    ic_fuzz_fail("out of memory");
            }
            if (!eq)
                i++;
            continue;
        }
        if (outside(w) || (eq && w[0] == '-' && outside(eq + 1))) {
            free(argv[i]);
            if (!(argv[i] = strdup("x")))
                ic_fuzz_fail("out of memory");
        }
    }
    if (!skip) {
        char *ob = NULL, *eb = NULL;
        size_t ol = 0, el = 0;
        FILE *o = open_memstream(&ob, &ol), *e = open_memstream(&eb, &el);
        if (!o || !e)
            ic_fuzz_fail("open_memstream failed");
        int rc = ic_cli_run(argc, argv, o, e);
        fclose(o);
        fclose(e);
        if (rc < 0 || rc > 2)
            ic_fuzz_fail("exit status %d; stderr: %s", rc, eb);
        if (rc == 1)
            ic_fuzz_fail("exit status 1 (an internal or I/O failure): %s", eb);
        if (rc == 2 && argc == 1 && strncmp(eb, "usage:", 6) != 0)
            ic_fuzz_fail("a bare infcalc without its usage: %s", eb);
        /* an error line: "infcalc: error: ", or a file's name (any text,
         * "infcalc: warning: x.yaml" too) then ": error: " */
        if (rc == 2 && argc > 1 && (!el || !strstr(eb, ": error: ")))
            ic_fuzz_fail("exit status 2 without an error on stderr: %s", eb ? eb : "");
        if (rc == 0 && !ol && !chart)
            ic_fuzz_fail("exit status 0 with nothing on stdout; stderr: %s", eb);
        free(ob);
        free(eb);
    }
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    return 0;
}
