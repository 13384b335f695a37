/* ic_json: the strict JSON reader. Each refusal RFC 8259 asks for (trailing
 * commas, comments, single quotes, bare words, NaN, leading zeros, control
 * characters, lone surrogates, an escaped NUL, a second value) at the exact
 * line:column of the offending character, counted by hand in the comments;
 * what it accepts decoded as written (escapes, surrogate pairs to UTF-8,
 * numbers as their text); a nesting bomb refused at the 33rd level; and,
 * against a second method, every JSON file of the repository read into the
 * same tree, with the same positions, as libyaml reads it. */
#include "ic_json.h"
#include "ic_report.h"
#include "ic_rows.h"
#include "ic_utf8.h"
#include "ic_test.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

struct bad_json {
    const char *text;
    unsigned line, col;
    const char *msg;  /* substring of the message */
    const char *hint; /* substring of the hint, or NULL */
};

static const struct bad_json bad[] = {
    /* {"a": 1,} : the comma is the 8th character */
    {"{\"a\": 1,}", 1, 8, "a trailing comma before '}'", "no comma after the last"},
    /* [1, 2,] : the comma is the 6th */
    {"[1, 2,]", 1, 6, "a trailing comma before ']'", NULL},
    /* line 2 is "  // c": the comment opens at column 3 */
    {"{\n  // c\n  \"a\": 1\n}", 2, 3, "found a comment", "comments are not JSON"},
    {"{\"a\": 1 /* c */}", 1, 9, "expected ',' or '}', found a comment", NULL},
    /* {'a': 1} : the quote is the 2nd character */
    {"{'a': 1}", 1, 2, "expected a key in double quotes, found a single quote", "double quotes"},
    {"{\"a\": 'x'}", 1, 7, "found a single quote", NULL},
    /* {"a": yes} : the bare word starts at column 7 */
    {"{\"a\": yes}", 1, 7, "found the bare word 'yes'", "bare words are not JSON"},
    {"{a: 1}", 1, 2, "expected a key in double quotes, found the bare word 'a'", NULL},
    /* Python's NaN, Infinity and -Infinity are read (test_accepts); other
     * spellings are bare words */
    {"{\"a\": nan}", 1, 7, "found the bare word 'nan'", "bare words are not JSON"},
    {"{\"a\": -inf}", 1, 8, "expected a digit after '-', found the bare word 'inf'", NULL},
    {"{\"a\": Infinityx}", 1, 7, "found the bare word 'Infinityx'", NULL},
    {"{\"a\": True}", 1, 7, "found the bare word 'True'", NULL},
    {"{\"a\": nullx}", 1, 7, "found the bare word 'nullx'", NULL},
    /* "qwen2\u0000junk": the backslash is column 13 of {"a": "qwen2\u0000junk"} */
    {"{\"a\": \"qwen2\\u0000junk\"}", 1, 13, "an escaped NUL (\\u0000) inside a string", NULL},
    /* a lone high surrogate, then one followed by a non-surrogate, then a lone low one;
     * {"a": "x\uD83D"} : the backslash is column 9 */
    {"{\"a\": \"x\\uD83D\"}", 1, 9, "a lone high surrogate \\uD83D", "\\uD83D\\uDE00"},
    {"{\"a\": \"x\\uD83D\\u0041\"}", 1, 9, "followed by \\u0041; expected a low surrogate", NULL},
    {"{\"a\": \"x\\uDE00\"}", 1, 9, "a lone low surrogate \\uDE00", NULL},
    {"{\"a\": \"\\u12G4\"}", 1, 12, "expected four hex digits after \\u", NULL},
    {"{\"a\": \"\\x\"}", 1, 8, "unknown escape '\\x'", NULL},
    /* a raw tab inside a string (column 9), a raw newline (line 1, column 9) */
    {"{\"a\": \"x\ty\"}", 1, 9, "the control character U+0009 inside a string", "escape"},
    {"{\"a\": \"x\ny\"}", 1, 9, "the control character U+000A inside a string",
     "closing quote missing"},
    /* bytes that are not UTF-8: a stray continuation, an overlong '/', a
     * UTF-16 surrogate written in UTF-8 */
    {"{\"a\": \"\x80\"}", 1, 8, "the byte 0x80 inside a string is not UTF-8", "not UTF-8"},
    {"{\"a\": \"\xc0\xaf\"}", 1, 8, "the byte 0xC0", NULL},
    {"{\"a\": \"\xed\xa0\x80\"}", 1, 8, "the byte 0xED", NULL},
    /* numbers: leading zero (the second 0 at column 8), bare '.', '+', a dangling exponent */
    {"{\"a\": 00}", 1, 8, "a number with a leading zero", "leading zeros"},
    {"{\"a\": .5}", 1, 7, "expected a value", NULL},
    {"{\"a\": +1}", 1, 7, "found '+'", NULL},
    {"{\"a\": 1.}", 1, 9, "expected a digit after '.', found '}'", NULL},
    {"{\"a\": 1e}", 1, 9, "expected a digit in the exponent", NULL},
    /* structure */
    {"{\"a\" 1}", 1, 6, "expected ':' after the key, found '1'", NULL},
    {"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}', found '\"'", NULL},
    {"{\"a\": 1} {}", 1, 10, "expected the end of the file after the root value", NULL},
    {"{\"a\": [1, 2}", 1, 12, "expected ',' or ']', found '}'", NULL},
    /* the end of the file: after "{\n  \"a\": [1," (the comma at column 10) */
    {"{\n  \"a\": [1,", 2, 11, "found the end of the file", "not closed"},
    {"{\"a\": \"x", 1, 9, "the file ends inside a string", NULL},
    /* columns count characters: "é" is two bytes and one column, so the bare
     * word of {"é": x} is at column 7 */
    {"{\"\xc3\xa9\": x}", 1, 7, "found the bare word 'x'", NULL},
    {"\x1f\x8b", 1, 1, "found the control character U+001F", "not UTF-8"},
};

START_TEST(test_refusals)
{
    const struct bad_json *b = &bad[_i];
    yaml_document_t doc;
    struct ic_err e = {0};
    int rc = ic_json_parse(b->text, strlen(b->text), "t.json", 32, &doc, &e);
    ck_assert_msg(rc == IC_EINVAL, "case %d accepted: %s", _i, b->text);
    ck_assert_str_eq(e.file, "t.json");
    ck_assert_msg(e.line == b->line && e.col == b->col, "case %d at %u:%u, expected %u:%u (%s)",
                  _i, e.line, e.col, b->line, b->col, e.msg);
    ck_assert_msg(strstr(e.msg, b->msg), "case %d: '%s' lacks '%s'", _i, e.msg, b->msg);
    if (b->hint)
        ck_assert_msg(strstr(e.hint, b->hint), "case %d: hint '%s' lacks '%s'", _i, e.hint,
                      b->hint);
}
END_TEST

static yaml_node_t *get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        if (strcmp((const char *)k->data.scalar.value, key) == 0)
            return yaml_document_get_node(d, p->value);
    }
    ck_abort_msg("no key %s", key);
    return NULL;
}

/* What it accepts, decoded: escapes and a surrogate pair (U+1F600, which
 * Python's json.dump writes as \ud83d\ude00, is F0 9F 98 80 in UTF-8), a
 * BOM skipped, numbers as written, literals as plain scalars, positions. */
START_TEST(test_accepts)
{
    const char *text = "\xef\xbb\xbf{\"s\": \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\n"
                       " \"n\": -0.5e+10, \"z\": 0, \"t\": true, \"f\": false, \"x\": null,\n"
                       " \"l\": [], \"m\": {}, \"k\": [1, [2]]}";
    yaml_document_t doc;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_json_parse(text, strlen(text), "t.json", 32, &doc, &e), IC_OK);
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    ck_assert_int_eq(root->type, YAML_MAPPING_NODE);
    ck_assert_uint_eq(root->start_mark.line, 0);   /* the BOM takes no column */
    ck_assert_uint_eq(root->start_mark.column, 0);
    yaml_node_t *s = get(&doc, root, "s");
    ck_assert_int_eq(s->data.scalar.style, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    ck_assert_str_eq((const char *)s->data.scalar.value,
                     "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
    ck_assert_uint_eq(s->data.scalar.length, 15); /* a, 8 one-byte escapes, 2 + 4 bytes */
    yaml_node_t *n = get(&doc, root, "n");
    ck_assert_str_eq((const char *)n->data.scalar.value, "-0.5e+10");
    ck_assert_int_eq(n->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
    ck_assert_uint_eq(n->start_mark.line, 1); /* line 2, column 7: " \"n\": " is 6 wide */
    ck_assert_uint_eq(n->start_mark.column, 6);
    ck_assert_str_eq((const char *)get(&doc, root, "z")->data.scalar.value, "0");
    ck_assert_str_eq((const char *)get(&doc, root, "t")->data.scalar.value, "true");
    ck_assert_str_eq((const char *)get(&doc, root, "f")->data.scalar.value, "false");
    yaml_node_t *x = get(&doc, root, "x");
    ck_assert_str_eq((const char *)x->data.scalar.value, "null");
    ck_assert_int_eq(x->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
    yaml_node_t *l = get(&doc, root, "l");
    ck_assert_int_eq(l->type, YAML_SEQUENCE_NODE);
    ck_assert(l->data.sequence.items.top == l->data.sequence.items.start);
    ck_assert_int_eq(get(&doc, root, "m")->type, YAML_MAPPING_NODE);
    yaml_node_t *k = get(&doc, root, "k");
    ck_assert_int_eq(k->data.sequence.items.top - k->data.sequence.items.start, 2);
    ck_assert_uint_eq(k->start_mark.line, 2); /* line 3, column 25 */
    ck_assert_uint_eq(k->start_mark.column, 24);
    yaml_document_delete(&doc);
    /* Python's json writes NaN, Infinity and -Infinity (NVIDIA's
     * Nemotron-H configs: "time_step_limit": [0.0, Infinity]): plain
     * scalars, refused by a key that reads a number */
    const char *py = "{\"t\": [0.0, Infinity], \"u\": -Infinity, \"v\": NaN}";
    ck_assert_int_eq(ic_json_parse(py, strlen(py), "t.json", 32, &doc, &e), IC_OK);
    root = yaml_document_get_root_node(&doc);
    ck_assert_str_eq((const char *)get(&doc, root, "u")->data.scalar.value, "-Infinity");
    ck_assert_int_eq(get(&doc, root, "u")->data.scalar.style, YAML_PLAIN_SCALAR_STYLE);
    ck_assert_str_eq((const char *)get(&doc, root, "v")->data.scalar.value, "NaN");
    yaml_document_delete(&doc);
    /* whitespace alone: a document without a root (the loaders say "empty file") */
    ck_assert_int_eq(ic_json_parse(" \n\t", 3, "t.json", 32, &doc, &e), IC_OK);
    ck_assert_ptr_null(yaml_document_get_root_node(&doc));
    yaml_document_delete(&doc);
}
END_TEST

/* 32 levels load, 33 do not; a million open brackets stop at the 33rd
 * (column 33), at once and without exhausting the stack. */
START_TEST(test_depth)
{
    enum { N = 1000000 };
    char *t = malloc(2 * N + 1);
    ck_assert_ptr_nonnull(t);
    memset(t, '[', 32);
    memset(t + 32, ']', 32);
    yaml_document_t doc;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_json_parse(t, 64, "t.json", 32, &doc, &e), IC_OK);
    yaml_document_delete(&doc);
    memset(t, '[', N);
    memset(t + N, ']', N);
    ck_assert_int_eq(ic_json_parse(t, 2 * N, "t.json", 32, &doc, &e), IC_EINVAL);
    ck_assert_uint_eq(e.line, 1);
    ck_assert_uint_eq(e.col, 33);
    ck_assert_ptr_nonnull(strstr(e.msg, "nesting deeper than 32 levels"));
    free(t);
}
END_TEST

/* Two readers, one tree: node for node the same type, scalar text and
 * style and start position. */
static void same_tree(yaml_document_t *a, yaml_node_t *x, yaml_document_t *b, yaml_node_t *y,
                      const char *path)
{
    ck_assert_msg(x->type == y->type, "%s:%zu:%zu: node types differ", path,
                  x->start_mark.line + 1, x->start_mark.column + 1);
    ck_assert_msg(x->start_mark.line == y->start_mark.line &&
                      x->start_mark.column == y->start_mark.column,
                  "%s: a node at %zu:%zu by libyaml, %zu:%zu by ic_json", path,
                  x->start_mark.line + 1, x->start_mark.column + 1, y->start_mark.line + 1,
                  y->start_mark.column + 1);
    if (x->type == YAML_SCALAR_NODE) {
        ck_assert_msg(x->data.scalar.length == y->data.scalar.length &&
                          !memcmp(x->data.scalar.value, y->data.scalar.value,
                                  x->data.scalar.length),
                      "%s:%zu:%zu: '%s' vs '%s'", path, x->start_mark.line + 1,
                      x->start_mark.column + 1, x->data.scalar.value, y->data.scalar.value);
        ck_assert_int_eq(x->data.scalar.style, y->data.scalar.style);
    } else if (x->type == YAML_SEQUENCE_NODE) {
        ck_assert_int_eq(x->data.sequence.items.top - x->data.sequence.items.start,
                         y->data.sequence.items.top - y->data.sequence.items.start);
        for (long i = 0; i < x->data.sequence.items.top - x->data.sequence.items.start; i++)
            same_tree(a, yaml_document_get_node(a, x->data.sequence.items.start[i]), b,
                      yaml_document_get_node(b, y->data.sequence.items.start[i]), path);
    } else {
        ck_assert_int_eq(x->data.mapping.pairs.top - x->data.mapping.pairs.start,
                         y->data.mapping.pairs.top - y->data.mapping.pairs.start);
        for (long i = 0; i < x->data.mapping.pairs.top - x->data.mapping.pairs.start; i++) {
            same_tree(a, yaml_document_get_node(a, x->data.mapping.pairs.start[i].key), b,
                      yaml_document_get_node(b, y->data.mapping.pairs.start[i].key), path);
            same_tree(a, yaml_document_get_node(a, x->data.mapping.pairs.start[i].value), b,
                      yaml_document_get_node(b, y->data.mapping.pairs.start[i].value), path);
        }
    }
}

static unsigned compare_folder(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    unsigned files = 0;
    for (struct dirent *de; (de = readdir(d));) {
        size_t n = strlen(de->d_name);
        if (n < 5 || strcmp(de->d_name + n - 5, ".json"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        ck_assert_ptr_nonnull(f);
        static char text[1 << 20];
        size_t len = fread(text, 1, sizeof text, f);
        fclose(f);
        yaml_parser_t parser;
        ck_assert(yaml_parser_initialize(&parser));
        yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
        yaml_document_t a, b;
        ck_assert_msg(yaml_parser_load(&parser, &a), "%s: libyaml refuses it", path);
        yaml_parser_delete(&parser);
        struct ic_err e = {0};
        ck_assert_msg(ic_json_parse(text, len, path, 32, &b, &e) == IC_OK, "%s:%u:%u: %s", path,
                      e.line, e.col, e.msg);
        same_tree(&a, yaml_document_get_root_node(&a), &b, yaml_document_get_root_node(&b),
                  path);
        yaml_document_delete(&a);
        yaml_document_delete(&b);
        files++;
    }
    closedir(d);
    return files;
}

START_TEST(test_same_tree_as_libyaml)
{
    unsigned files = compare_folder(IC_TEST_DIR "/fixtures") + compare_folder(IC_SRC_DIR "/examples");
    ck_assert_uint_ge(files, 3);
}
END_TEST

/* What a writer printed, NUL-terminated. */
static const char *written(void (*w)(FILE *, const char *), const char *text)
{
    static char buf[256];
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    w(f, text);
    rewind(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Text that reaches JSON and CSV output from paths no reader checked: a
 * byte that is not UTF-8 becomes U+FFFD (JSON's \ufffd escape, its bytes
 * EF BF BD in CSV), valid sequences pass whole, and a name cut to a buffer
 * is cut before the character the limit would split. */
START_TEST(test_utf8_out)
{
    /* m, 0xFF, a quote, e-acute (C3 A9) */
    ck_assert_str_eq(written(ic_report_json_str, "m\xff\"\xc3\xa9"), "\"m\\ufffd\\\"\xc3\xa9\"");
    /* a lone continuation byte, a truncated 3-byte lead, an overlong '/' */
    ck_assert_str_eq(written(ic_report_json_str, "\x80" "a\xe2\x82\xc0\xaf"),
                     "\"\\ufffda\\ufffd\\ufffd\\ufffd\\ufffd\"");
    ck_assert_str_eq(written(ic_rows_csv_str, "a\xff,b"), "\"a\xef\xbf\xbd,b\"");
    ck_assert_str_eq(written(ic_rows_csv_str, "x\xf0\x9f\x98\x80"), "x\xf0\x9f\x98\x80");
    char d[8];
    /* "xx" + U+1F600 (F0 9F 98 80) into 4 bytes: 3 fit, the emoji does not */
    ck_assert_uint_eq(ic_utf8_cut(d, 4, "xx\xf0\x9f\x98\x80", 6), 2);
    ck_assert_str_eq(d, "xx");
    ck_assert_uint_eq(ic_utf8_cut(d, 7, "xx\xf0\x9f\x98\x80", 6), 6);
    /* the limit falls just after a whole character */
    ck_assert_uint_eq(ic_utf8_cut(d, 4, "a\xc3\xa9" "bc", 5), 3);
    ck_assert_str_eq(d, "a\xc3\xa9");
    /* continuation bytes with no lead: broken already, cut at the limit */
    ck_assert_uint_eq(ic_utf8_cut(d, 3, "\x80\x80\x80\x80\x80", 5), 2);
    /* a stray continuation byte at the limit after whole characters keeps
     * them (it backed off to "a", dropping "b"; and the e-acute) */
    ck_assert_uint_eq(ic_utf8_cut(d, 3, "ab\x80zz", 5), 2);
    ck_assert_str_eq(d, "ab");
    ck_assert_uint_eq(ic_utf8_cut(d, 4, "a\xc3\xa9\x80zz", 6), 3);
    ck_assert_str_eq(d, "a\xc3\xa9");
    uint32_t cp;
    ck_assert_uint_eq(ic_utf8_seq((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0);
    ck_assert_uint_eq(ic_utf8_seq((const unsigned char *)"\xed\xa0\x80", 3, &cp), 0);
    ck_assert_uint_eq(ic_utf8_seq((const unsigned char *)"\xe2\x82\xac", 3, &cp), 3);
    ck_assert_uint_eq(cp, 0x20ac);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("json");
    tcase_add_loop_test(tc, test_refusals, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_accepts);
    tcase_add_test(tc, test_depth);
    tcase_add_test(tc, test_same_tree_as_libyaml);
    tcase_add_test(tc, test_utf8_out);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
