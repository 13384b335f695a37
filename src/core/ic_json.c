/* ic_json: recursive descent over RFC 8259's grammar, one function per
 * rule (value, object, array, string, number), nesting bounded by the
 * caller's depth so a hostile file cannot exhaust the stack. Every error
 * names the character it stopped at by line:column, what it found there
 * and what JSON expects. */
#include "ic_json.h"
#include "ic_utf8.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jp {
    const unsigned char *s; /* the text */
    size_t len, pos;        /* bytes; pos: the next byte */
    unsigned line, col;     /* of s[pos], 1-based; col in characters */
    const char *path;
    int depth, max_depth;
    yaml_document_t *doc;
    struct ic_err *err;
    char *buf; /* the string being decoded */
    size_t n, cap;
};

/* A position to come back to for an error or a mark. */
struct at {
    size_t pos;
    unsigned line, col;
};

static struct at here(const struct jp *p) { return (struct at){p->pos, p->line, p->col}; }

static int peek(const struct jp *p) { return p->pos < p->len ? p->s[p->pos] : -1; }

/* Moves past one byte; a UTF-8 continuation byte does not start a column. */
static void step(struct jp *p)
{
    unsigned char c = p->s[p->pos++];
    if (c == '\n') {
        p->line++;
        p->col = 1;
    } else if ((c & 0xc0) != 0x80) {
        p->col++;
    }
}

static int fail(struct jp *p, struct at a, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct jp *p, struct at a, const char *hint, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int rc = ic_err_set(p->err, IC_EINVAL, p->path, a.line, a.col, "malformed JSON: %s", msg);
    ic_err_hint(p->err, "%s",
                hint ? hint
                     : "a config.json is strict JSON (RFC 8259): \"key\": value pairs in "
                       "braces, separated by commas");
    return rc;
}

static int oom(struct jp *p)
{
    return ic_err_set(p->err, IC_ENOMEM, p->path, 0, 0, "out of memory");
}

static bool is_word_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '+' || c == '-';
}

/* Reports what stands at the current position where `expected` should:
 * the end of the file, a bare word, a comment, a single quote, a control
 * character or a byte that is not UTF-8 each get their own hint. */
static int unexpected(struct jp *p, const char *expected)
{
    struct at a = here(p);
    int c = peek(p);
    if (c < 0)
        return fail(p, a, "the file ends too early: a quote, bracket or brace is not closed",
                    "expected %s, found the end of the file", expected);
    if (c == '/')
        return fail(p, a, "comments are not JSON; remove them", "expected %s, found a comment",
                    expected);
    if (c == '\'')
        return fail(p, a, "JSON strings take double quotes", "expected %s, found a single quote",
                    expected);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
        size_t e = p->pos;
        while (e < p->len && e - p->pos < 40 && is_word_char(p->s[e]))
            e++;
        int n = (int)(e - p->pos);
        const char *w = (const char *)p->s + p->pos;
        return fail(p, a,
                    "bare words are not JSON: quote a string, or write true, false or null",
                    "expected %s, found the bare word '%.*s'", expected, n, w);
    }
    if (c < 0x20 || c == 0x7f)
        return fail(p, a, "the file is not UTF-8 JSON text",
                    "expected %s, found the control character U+%04X", expected, (unsigned)c);
    uint32_t cp;
    size_t n = ic_utf8_seq(p->s + p->pos, p->len - p->pos, &cp);
    if (!n)
        return fail(p, a, "the file is not UTF-8 JSON text",
                    "expected %s, found the byte 0x%02X, which is not UTF-8", expected,
                    (unsigned)c);
    return fail(p, a, NULL, "expected %s, found '%.*s'", expected, (int)n,
                (const char *)p->s + p->pos);
}

static void skip_ws(struct jp *p)
{
    for (int c; (c = peek(p)) == ' ' || c == '\t' || c == '\n' || c == '\r';)
        step(p);
}

static void set_marks(struct jp *p, int id, struct at start)
{
    yaml_node_t *node = yaml_document_get_node(p->doc, id);
    node->start_mark = (yaml_mark_t){start.pos, start.line - 1, start.col - 1};
    node->end_mark = (yaml_mark_t){p->pos, p->line - 1, p->col - 1};
}

static int push(struct jp *p, const void *bytes, size_t n)
{
    if (p->n + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 64;
        while (p->n + n + 1 > cap)
            cap *= 2;
        char *b = realloc(p->buf, cap);
        if (!b)
            return oom(p);
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->n, bytes, n);
    p->n += n;
    return IC_OK;
}

static int push_cp(struct jp *p, uint32_t cp)
{
    unsigned char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (unsigned char)cp, n = 1;
    } else if (cp < 0x800) {
        u[0] = (unsigned char)(0xc0 | cp >> 6), n = 2;
    } else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xe0 | cp >> 12), n = 3;
    } else {
        u[0] = (unsigned char)(0xf0 | cp >> 18), n = 4;
    }
    for (size_t i = 1; i < n; i++)
        u[i] = (unsigned char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
    return push(p, u, n);
}

/* The four hex digits of a \u escape at the current position; *v their value. */
static int hex4(struct jp *p, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(p);
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return unexpected(p, "four hex digits after \\u");
        *v = *v << 4 | (uint32_t)d;
        step(p);
    }
    return IC_OK;
}

/* One \ escape, the backslash at the current position. */
static int escape(struct jp *p)
{
    struct at a = here(p);
    step(p); /* the backslash */
    int c = peek(p);
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = c > 0 ? strchr(from, c) : NULL;
    if (k) {
        step(p);
        return push(p, &to[k - from], 1);
    }
    if (c != 'u')
        return c < 0 ? unexpected(p, "an escape after '\\'")
                     : fail(p, a, "JSON's escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX",
                            "unknown escape '\\%c'", c >= 0x20 && c < 0x7f ? c : '?');
    step(p);
    uint32_t cp, lo;
    int rc = hex4(p, &cp);
    if (rc)
        return rc;
    if (cp == 0)
        return fail(p, a, "a string cannot hold NUL: it would end there",
                    "an escaped NUL (\\u0000) inside a string; expected text without NUL");
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return fail(p, a, "a low surrogate must follow a high one (\\uD800 to \\uDBFF)",
                    "a lone low surrogate \\u%04X; expected a character", (unsigned)cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        if (p->pos + 1 >= p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail(p, a, "a character past U+FFFF is written as two escapes, e.g. "
                              "\\uD83D\\uDE00",
                        "a lone high surrogate \\u%04X; expected a low surrogate "
                        "(\\uDC00 to \\uDFFF) right after it", (unsigned)cp);
        step(p);
        step(p);
        if ((rc = hex4(p, &lo)))
            return rc;
        if (lo < 0xdc00 || lo > 0xdfff)
            return fail(p, a, "a character past U+FFFF is written as two escapes, e.g. "
                              "\\uD83D\\uDE00",
                        "a high surrogate \\u%04X followed by \\u%04X; expected a low surrogate "
                        "(\\uDC00 to \\uDFFF)", (unsigned)cp, (unsigned)lo);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    }
    return push_cp(p, cp);
}

/* A string at the current '"'; its decoded text is added as a
 * double-quoted scalar, *id the node. */
static int string(struct jp *p, int *id)
{
    struct at start = here(p);
    step(p);
    p->n = 0;
    for (;;) {
        struct at a = here(p);
        int c = peek(p);
        int rc = IC_OK;
        if (c < 0)
            return fail(p, a, "the file ends too early: a quote, bracket or brace is not closed",
                        "the file ends inside a string; expected its closing '\"'");
        if (c == '"') {
            step(p);
            break;
        }
        if (c == '\\') {
            rc = escape(p);
        } else if (c < 0x20) {
            return fail(p, a,
                        c == '\n' ? "a string ends on its own line: is a closing quote missing?"
                                  : "write it as an escape (\\t, \\n, \\u00XX)",
                        "the control character U+%04X inside a string", (unsigned)c);
        } else {
            uint32_t cp;
            size_t n = ic_utf8_seq(p->s + p->pos, p->len - p->pos, &cp);
            if (!n)
                return fail(p, a, "the file is not UTF-8 JSON text",
                            "the byte 0x%02X inside a string is not UTF-8", (unsigned)c);
            rc = push(p, p->s + p->pos, n);
            for (size_t i = 0; i < n; i++)
                step(p);
        }
        if (rc)
            return rc;
    }
    int rc = push(p, "", 1);
    if (rc)
        return rc;
    *id = yaml_document_add_scalar(p->doc, NULL, (yaml_char_t *)p->buf, (int)(p->n - 1),
                                   YAML_DOUBLE_QUOTED_SCALAR_STYLE);
    if (!*id)
        return oom(p);
    set_marks(p, *id, start);
    return IC_OK;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* A plain scalar of text s[start.pos .. pos): a number or a literal. */
static int plain(struct jp *p, struct at start, int *id)
{
    *id = yaml_document_add_scalar(p->doc, NULL, (yaml_char_t *)(p->s + start.pos),
                                   (int)(p->pos - start.pos), YAML_PLAIN_SCALAR_STYLE);
    if (!*id)
        return oom(p);
    set_marks(p, *id, start);
    return IC_OK;
}

/* number = [ "-" ] int [ frac ] [ exp ], the text kept as written. */
static int number(struct jp *p, int *id)
{
    struct at start = here(p);
    if (peek(p) == '-')
        step(p);
    if (peek(p) == '0') {
        step(p);
        if (is_digit(peek(p)))
            return fail(p, here(p), "write the number without leading zeros",
                        "a number with a leading zero; expected '.', 'e' or the number's end");
    } else if (is_digit(peek(p))) {
        while (is_digit(peek(p)))
            step(p);
    } else {
        return unexpected(p, "a digit after '-'");
    }
    if (peek(p) == '.') {
        step(p);
        if (!is_digit(peek(p)))
            return unexpected(p, "a digit after '.'");
        while (is_digit(peek(p)))
            step(p);
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        step(p);
        if (peek(p) == '+' || peek(p) == '-')
            step(p);
        if (!is_digit(peek(p)))
            return unexpected(p, "a digit in the exponent");
        while (is_digit(peek(p)))
            step(p);
    }
    return plain(p, start, id);
}

static int value(struct jp *p, int *id);

static int enter(struct jp *p)
{
    if (++p->depth > p->max_depth) {
        int rc = ic_err_set(p->err, IC_EINVAL, p->path, p->line, p->col,
                            "nesting deeper than %d levels; expected a flat record",
                            p->max_depth);
        ic_err_hint(p->err, "a config.json is one object of keys, with lists or objects at "
                            "most a level or two deep");
        return rc;
    }
    return IC_OK;
}

static int trailing_comma(struct jp *p, struct at comma, char close)
{
    return fail(p, comma, "JSON takes no comma after the last member or item",
                "a trailing comma before '%c'; expected another %s", close,
                close == '}' ? "key" : "value");
}

static int object(struct jp *p, int *id)
{
    struct at start = here(p);
    int rc = enter(p);
    if (rc)
        return rc;
    *id = yaml_document_add_mapping(p->doc, NULL, YAML_FLOW_MAPPING_STYLE);
    if (!*id)
        return oom(p);
    step(p);
    skip_ws(p);
    if (peek(p) == '}') {
        step(p);
    } else {
        for (;;) {
            if (peek(p) != '"')
                return unexpected(p, "a key in double quotes");
            int k, v;
            if ((rc = string(p, &k)))
                return rc;
            skip_ws(p);
            if (peek(p) != ':')
                return unexpected(p, "':' after the key");
            step(p);
            skip_ws(p);
            if ((rc = value(p, &v)))
                return rc;
            if (!yaml_document_append_mapping_pair(p->doc, *id, k, v))
                return oom(p);
            skip_ws(p);
            if (peek(p) == '}') {
                step(p);
                break;
            }
            if (peek(p) != ',')
                return unexpected(p, "',' or '}'");
            struct at comma = here(p);
            step(p);
            skip_ws(p);
            if (peek(p) == '}')
                return trailing_comma(p, comma, '}');
        }
    }
    p->depth--;
    set_marks(p, *id, start);
    return IC_OK;
}

static int array(struct jp *p, int *id)
{
    struct at start = here(p);
    int rc = enter(p);
    if (rc)
        return rc;
    *id = yaml_document_add_sequence(p->doc, NULL, YAML_FLOW_SEQUENCE_STYLE);
    if (!*id)
        return oom(p);
    step(p);
    skip_ws(p);
    if (peek(p) == ']') {
        step(p);
    } else {
        for (;;) {
            int v;
            if ((rc = value(p, &v)))
                return rc;
            if (!yaml_document_append_sequence_item(p->doc, *id, v))
                return oom(p);
            skip_ws(p);
            if (peek(p) == ']') {
                step(p);
                break;
            }
            if (peek(p) != ',')
                return unexpected(p, "',' or ']'");
            struct at comma = here(p);
            step(p);
            skip_ws(p);
            if (peek(p) == ']')
                return trailing_comma(p, comma, ']');
        }
    }
    p->depth--;
    set_marks(p, *id, start);
    return IC_OK;
}

static const char *const any_value = "a value (an object, a list, a string in double quotes, a "
                                     "number, true, false or null)";

static int value(struct jp *p, int *id)
{
    int c = peek(p);
    if (c == '{')
        return object(p, id);
    if (c == '[')
        return array(p, id);
    if (c == '"')
        return string(p, id);
    /* NaN, Infinity and -Infinity, as Python's json writes and reads them
     * (NVIDIA's Nemotron-H configs hold "time_step_limit": [0.0,
     * Infinity]): plain scalars, which a key infcalc reads refuses as no
     * finite number where it stands */
    static const char *const literals[] = {"true", "false", "null", "NaN", "Infinity",
                                           "-Infinity"};
    if ((c == '-' && !(p->len - p->pos >= 9 && !memcmp(p->s + p->pos, "-Infinity", 9))) ||
        is_digit(c))
        return number(p, id);
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++) {
        size_t n = strlen(literals[i]);
        if (p->len - p->pos >= n && !memcmp(p->s + p->pos, literals[i], n) &&
            (p->pos + n == p->len || !is_word_char(p->s[p->pos + n]))) {
            struct at start = here(p);
            for (size_t j = 0; j < n; j++)
                step(p);
            return plain(p, start, id);
        }
    }
    return unexpected(p, any_value);
}

int ic_json_parse(const char *buf, size_t len, const char *path, int max_depth,
                  yaml_document_t *doc, struct ic_err *err)
{
    yaml_document_t d;
    if (!yaml_document_initialize(&d, NULL, NULL, NULL, 1, 1))
        return ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
    struct jp p = {.s = (const unsigned char *)buf, .len = len, .line = 1, .col = 1,
                   .path = path, .max_depth = max_depth, .doc = &d, .err = err};
    if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
        p.pos = 3; /* a byte order mark: RFC 8259 lets a reader ignore it */
    skip_ws(&p);
    int rc = IC_OK, root;
    if (p.pos < p.len) {
        if ((rc = value(&p, &root)))
            goto out;
        skip_ws(&p);
        if (p.pos < p.len) {
            rc = unexpected(&p, "the end of the file after the root value");
            goto out;
        }
    }
out:
    free(p.buf);
    if (rc)
        yaml_document_delete(&d);
    else
        *doc = d;
    return rc;
}
