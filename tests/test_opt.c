/* The option table: every value is parsed once into its typed field, each
 * kind refuses what it must (with the option and the text named), the
 * commands take exactly the options the table gives them, and --help lists
 * exactly those. */
#include "ic_opt.h"
#include "ic_decode.h"
#include "ic_test.h"

#include <stdlib.h>
#include <string.h>

/* Parses the words after "infcalc"; NULL ends them. */
static int parse(struct ic_opts *o, struct ic_err *e, ...)
{
    char *argv[32] = {(char *)"infcalc"};
    int argc = 1;
    va_list ap;
    va_start(ap, e);
    for (char *w; (w = va_arg(ap, char *)) && argc < 31;)
        argv[argc++] = w;
    va_end(ap);
    memset(e, 0, sizeof *e);
    return ic_opts_parse(argc, argv, o, e);
}

#define FAILS(want, ...)                                                                   \
    do {                                                                                  \
        struct ic_opts o_;                                                                \
        struct ic_err e_;                                                                 \
        ck_assert_int_eq(parse(&o_, &e_, __VA_ARGS__, NULL), IC_EINVAL);                  \
        ck_assert_msg(strstr(e_.msg, want), "'%s' lacks '%s'", e_.msg, want);             \
        ck_assert_msg(e_.hint[0], "'%s' has no hint", e_.msg);                            \
        ic_opts_free(&o_);                                                                \
    } while (0)

START_TEST(test_typed_values)
{
    struct ic_opts o;
    struct ic_err e;
    ck_assert_int_eq(parse(&o, &e, "--model", "llama3-8b,llama3-70b", "--hw", "h100",
                           "--chips", "4,8,16", "--context", "8192", "--weights", "int8,fp4",
                           "--comm=serial", "--estimate", "expected", "--sweep", "batch",
                           "--format", "json", "--plot-size", "800x600", "--plot", "x.png",
                           "--pp", "2", "--micro", "4", NULL),
                     IC_OK);
    ck_assert_int_eq(o.cmd, IC_CMD_DECODE);
    ck_assert_int_eq(o.n[IC_OPT_MODEL], 2);
    ck_assert_str_eq(o.model[0], "llama3-8b");
    ck_assert_str_eq(o.model[1], "llama3-70b");
    ck_assert_int_eq(o.n[IC_OPT_CHIPS], 3);
    ck_assert_uint_eq(o.chips[0], 4);
    ck_assert_uint_eq(o.chips[2], 16);
    ck_assert_uint_eq(o.context[0], 8192);
    ck_assert_int_eq(o.weights[0], IC_DT_INT8);
    ck_assert_int_eq(o.weights[1], IC_DT_FP4);
    ck_assert_int_eq(o.comm, IC_COMM_SERIAL);
    ck_assert_int_eq(o.estimate, IC_EST_EXPECTED);
    ck_assert_int_eq(o.sweep[0], IC_AXIS_BATCH);
    ck_assert_int_eq(o.format, IC_FMT_JSON);
    ck_assert_int_eq(o.plot_size[0], 800);
    ck_assert_int_eq(o.plot_size[1], 600);
    ck_assert_str_eq(o.plot, "x.png");
    /* the decode step they make: the first value of each list */
    struct ic_decode_cfg c;
    ic_opts_decode_cfg(&o, &c);
    ck_assert_uint_eq(c.chips, 4);
    ck_assert_uint_eq(c.context, 8192);
    ck_assert_uint_eq(c.batch, 1); /* not given: ic_decode_defaults() */
    ck_assert_uint_eq(c.pp, 2);
    ck_assert_uint_eq(c.micro, 4);
    ck_assert_int_eq(c.comm, IC_COMM_SERIAL);
    ic_opts_free(&o);

    /* times and sizes with their units, bare seconds, probabilities */
    ck_assert_int_eq(parse(&o, &e, "prefill", "--queue", "200ms", NULL), IC_OK);
    ck_assert_double_eq_tol(o.queue_s, 0.2, 1e-15);
    ic_opts_free(&o);
    ck_assert_int_eq(parse(&o, &e, "optimize", "--ttft", "2s", "--tpot", "50ms", NULL), IC_OK);
    ck_assert_double_eq(o.ttft_s, 2);
    ck_assert_double_eq_tol(o.tpot_s, 0.05, 1e-15);
    ic_opts_free(&o);
    /* a whole count written with a point or an exponent, as in the files */
    ck_assert_int_eq(parse(&o, &e, "--chips", "1e3", "--batch", "8.0", NULL), IC_OK);
    ck_assert_uint_eq(o.chips[0], 1000);
    ck_assert_uint_eq(o.batch, 8);
    ic_opts_free(&o);
    ck_assert_int_eq(parse(&o, &e, "bench", "--llc", "32MiB", NULL), IC_OK);
    ck_assert_double_eq(o.llc_bytes, 33554432.0); /* 32 x 1048576 */
    ic_opts_free(&o);
    ck_assert_int_eq(parse(&o, &e, "specdec", "--p", "0.5,0.3,0.2", "--q", "0.25,0.75,0",
                           NULL),
                     IC_OK);
    ck_assert_int_eq(o.n[IC_OPT_P], 3);
    ck_assert_double_eq(o.p[2], 0.2);
    ck_assert_double_eq(o.q[1], 0.75);
    ic_opts_free(&o);
    /* a path keeps its commas where the option takes one value */
    ck_assert_int_eq(parse(&o, &e, "bench", "--out", "a,b.yaml", NULL), IC_OK);
    ck_assert_str_eq(o.out, "a,b.yaml");
    ic_opts_free(&o);
}
END_TEST

/* A positive quantity takes no minus sign, '-0' and '-1e-300' included;
 * numbers are plain decimals; each refusal names the option and the text. */
START_TEST(test_refusals)
{
    FAILS("--hit-rate: '-0' has a minus sign; expected 0 to 1", "prefix", "--hit-rate", "-0");
    FAILS("--mfu: '-1e-300' has a minus sign", "prefill", "--mfu", "-1e-300");
    FAILS("--queue: '-0' has a minus sign", "prefill", "--queue", "-0");
    FAILS("--queue: '-0ms' has a minus sign", "prefill", "--queue", "-0ms");
    FAILS("--llc: '-1MiB' has a minus sign", "bench", "--llc", "-1MiB");
    FAILS("--accept: '0x1p-1' is not a number", "specdec", "--accept", "0x1p-1");
    FAILS("--accept: 'inf' is not a number", "specdec", "--accept", "inf");
    FAILS("--accept: 'nan' is not a number", "specdec", "--accept", "nan");
    FAILS("--accept: ' 0.5' is not a number", "specdec", "--accept", " 0.5");
    FAILS("--accept: 1.5 is out of range; expected 0 to 1", "specdec", "--accept", "1.5");
    FAILS("--chips: '-4' has a minus sign", "--chips", "-4");
    FAILS("--chips: '+4' has a plus sign", "--chips", "+4");
    FAILS("--chips: '8.5' is not a whole number", "--chips", "8.5");
    FAILS("--chips: '1e-3' is not a whole number", "--chips", "1e-3");
    FAILS("--accept: '.5' has no digit before the point", "specdec", "--accept", ".5");
    FAILS("--accept: '1.' has no digit after the point", "specdec", "--accept", "1.");
    FAILS("--accept: '+0.5' has a plus sign", "specdec", "--accept", "+0.5");
    /* a time carries its unit, as in the files (docs/numbers.md) */
    FAILS("--ttft: '2' has no unit; expected a time with a unit", "optimize", "--ttft", "2");
    FAILS("--queue: '0' has no unit", "prefill", "--queue", "0");
    FAILS("--chips: '08' has a leading zero", "--chips", "08");
    FAILS("--accept: '00.5' has a leading zero", "specdec", "--accept", "00.5");
    FAILS("--queue: '01' has a leading zero", "prefill", "--queue", "01");
    FAILS("--chips: 0 is out of range; expected 1 to 1048576", "--chips", "0");
    FAILS("--batch: 16777217 is out of range; expected 1 to 16777216", "--batch", "16777217");
    FAILS("--context: 67108865 is out of range; expected 1 to 67108864", "--context",
          "67108865");
    FAILS("--p (entry 2): '-0' has a minus sign", "specdec", "--p", "0.5,-0");
    FAILS("--weights: unknown type 'bf61'", "--weights", "bf16,bf61");
    FAILS("--comm: unknown value 'both'; expected overlap or serial", "--comm", "both");
    FAILS("--chips: empty value in list '4,,8'", "--chips", "4,,8");
    FAILS("--chips: at most 16 values", "--chips", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17");
    FAILS("--batch: one value for 'prefill', not a list ('1,2')", "prefill", "--batch", "1,2");
    FAILS("--chips: one value for 'prefill', not a list", "prefill", "--chips", "2,4");
    FAILS("--sweep: at most two axes", "--sweep", "batch,context,chips");
    FAILS("--sweep: axis 'batch' given twice", "--sweep", "batch,batch");
    FAILS("--plot-size: '800x' is not WIDTHxHEIGHT", "--plot-size", "800x");
    FAILS("option '--chips' given twice", "--chips", "1", "--chips", "2");
    FAILS("option '--quick' takes no value", "bench", "--quick=yes");
    FAILS("option '--batch' needs a value", "--batch");
    FAILS("option '--batch' has an empty value", "--batch=");
    FAILS("option '--chips' does not apply to 'list'", "list", "--chips", "4");
    FAILS("unknown option '--chip'", "--chip", "4");
    FAILS("unknown command 'decod'", "decod");
    struct ic_opts o;
    struct ic_err e;
    ck_assert_int_eq(parse(&o, &e, "--plotsize", "800x600", NULL), IC_EINVAL);
    ck_assert_str_eq(e.hint, "did you mean '--plot-size'?");
    ic_opts_free(&o);
}
END_TEST

/* Every refusal carries a hint (FAILS checks there is one); these check
 * what it says: the option as --help shows it (the command's own line
 * where it has one, on one line), or a nearer fix. */
START_TEST(test_hints)
{
    static const struct {
        const char *hint;
        const char *argv[8];
    } cases[] = {
        {"--chips N[,..]: chips holding one tensor-parallel replica (default 1)",
         {"--chips", "+8"}},
        {"--batch B: with --chunk: sequences decoding beside the chunk (default 1)",
         {"prefill", "--batch", "8.5"}},
        /* the table's two help lines joined by a space */
        {"--hw H[,..]: a hwdb name or alias, or a hardware YAML file ('infcalc list hw')",
         {"--hw"}},
        {"--queue TIME: waiting time before the prefill (200ms, 0.5s; default 0)",
         {"prefill", "--queue", "0.2"}},
        {"give it once; several values are one list: '--chips 4,8'",
         {"--chips", "4", "--chips", "8"}},
        {"give it once", {"--batch", "4", "--batch", "8"}},
        {"write '--quick' alone", {"bench", "--quick=1"}},
        {"did you mean 'bf16'?", {"--weights", "bf61"}},
        {"did you mean 'serial'?", {"--comm", "seriel"}},
        {"'infcalc decode --help' lists its options", {"--frobnicate"}},
        {"'infcalc list --help' lists its options", {"list", "--chips", "4"}},
        /* a fifth word: more than any command takes */
        {"options start with --; 'infcalc show --help' lists them",
         {"show", "hw", "h100", "a", "b", "c"}},
        {"did you mean 'decode'? ('infcalc --help' lists the commands)", {"decod"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *argv[10] = {(char *)"infcalc"};
        int argc = 1;
        for (int j = 0; cases[i].argv[j]; j++)
            argv[argc++] = (char *)cases[i].argv[j];
        struct ic_opts o;
        struct ic_err e = {0};
        ck_assert_int_eq(ic_opts_parse(argc, argv, &o, &e), IC_EINVAL);
        ck_assert_msg(strcmp(e.hint, cases[i].hint) == 0, "%s: hint '%s', not '%s'", e.msg,
                      e.hint, cases[i].hint);
        ic_opts_free(&o);
    }
}
END_TEST

/* Every row is whole: a name with two dashes, bounds in order for the
 * kinds that have them, a help line, a command; the list commands a subset
 * of the commands. Each command's --help lists exactly the options it takes. */
START_TEST(test_table_and_help)
{
    for (int k = 0; k < IC_OPT_COUNT; k++) {
        const struct ic_opt_def *d = &ic_opt_table[k];
        ck_assert_msg(d->name && !strncmp(d->name, "--", 2), "option %d has no name", k);
        ck_assert_msg(d->help && *d->help, "%s has no help", d->name);
        ck_assert_msg(d->cmds, "%s: no command takes it", d->name);
        ck_assert_msg(!(d->list_cmds & ~d->cmds), "%s: lists where not taken", d->name);
        if (d->kind == IC_OK_COUNT || d->kind == IC_OK_NUM || d->kind == IC_OK_TIME ||
            d->kind == IC_OK_BYTES)
            /* lo >= 0: no option takes a sign (parse_num, docs/numbers.md) */
            ck_assert_msg(d->lo >= 0 && d->lo <= d->hi && d->hi > 0, "%s: bounds", d->name);
        if (d->kind == IC_OK_CHOICE)
            ck_assert_msg(d->choices && d->choices[0] && d->choices[1], "%s: choices", d->name);
        ck_assert_int_eq(ic_opt_find(d->name), k);
    }
    for (int c = 0; c < IC_CMD_COUNT; c++) {
        if (c == IC_CMD_HELP)
            continue;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        ck_assert_ptr_nonnull(f);
        ic_opt_help(f, (enum ic_cmd)c);
        fclose(f);
        for (int k = 0; k < IC_OPT_COUNT; k++) {
            if (k == IC_OPT_VERSION)
                continue;
            char want[48];
            snprintf(want, sizeof want, "\n  %s ", ic_opt_table[k].name);
            char *with_nl = malloc(len + 2);
            with_nl[0] = '\n';
            memcpy(with_nl + 1, buf, len + 1);
            /* "--name " or "--name\n" (a flag) at a line's start */
            char want2[48];
            snprintf(want2, sizeof want2, "\n  %s\n", ic_opt_table[k].name);
            char want3[48];
            snprintf(want3, sizeof want3, "\n  %s[", ic_opt_table[k].name);
            bool listed = strstr(with_nl, want) || strstr(with_nl, want3) ||
                          (ic_opt_table[k].kind == IC_OK_FLAG && strstr(with_nl, want2));
            bool takes = ic_opt_table[k].cmds & (UINT64_C(1) << c);
            ck_assert_msg(listed == takes, "%s --help %s %s", ic_cmd_name((enum ic_cmd)c),
                          listed ? "lists" : "lacks", ic_opt_table[k].name);
            free(with_nl);
        }
        /* and no line runs past column 79 */
        for (char *l = buf; *l;) {
            size_t n = strcspn(l, "\n");
            ck_assert_msg(n <= 79, "%s --help: a line of %zu columns", ic_cmd_name((enum ic_cmd)c),
                          n);
            l += n + (l[n] == '\n');
        }
        free(buf);
    }
}
END_TEST

/* serve's query goes through ic_opt_set with the decode command: the same
 * values, the same refusals. */
START_TEST(test_set_one)
{
    struct ic_opts o;
    struct ic_err e = {0};
    ic_opts_init(&o, IC_CMD_DECODE);
    ck_assert_int_eq(ic_opt_set(&o, IC_OPT_BATCH, "32", &e), IC_OK);
    ck_assert_uint_eq(o.batch, 32);
    ck_assert_int_eq(ic_opt_set(&o, IC_OPT_BATCH, "64", &e), IC_EINVAL);
    ck_assert_str_eq(e.msg, "option '--batch' given twice");
    ck_assert_int_eq(ic_opt_set(&o, IC_OPT_CONTEXT, "-0", &e), IC_EINVAL);
    ck_assert_str_eq(e.msg, "--context: '-0' has a minus sign; expected 1 to 67108864");
    ck_assert(!o.given[IC_OPT_CONTEXT]);
    ic_opts_free(&o);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("opt");
    TCase *tc = tcase_create("opt");
    tcase_add_test(tc, test_typed_values);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_table_and_help);
    tcase_add_test(tc, test_hints);
    tcase_add_test(tc, test_set_one);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
