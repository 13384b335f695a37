/* ic_ydoc: reading an input once (bounded), libyaml or the strict JSON
 * reader into a document, then schema tables over it. */
#include "ic_ydoc.h"

#include "ic_json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Limits on what a database file may be: far above any real entry, low
 * enough that a hostile file cannot make the loader slow (libyaml's document
 * loader is quadratic in nesting depth). */
enum { MAX_FILE_BYTES = IC_INPUT_MAX_B, MAX_DEPTH = 32 };

/* After a failed libyaml call: whether memory ran out. libyaml sets
 * YAML_MEMORY_ERROR for most of its allocations, but its loader returns
 * failure with no error at all when some of them fail (a node's tag), and
 * every syntax error it finds is named; so no error is out of memory too. */
static bool yaml_out_of_memory(const yaml_parser_t *parser)
{
    return parser->error == YAML_MEMORY_ERROR || parser->error == YAML_NO_ERROR;
}

/* Streams the events once to reject too deep nesting before loading. */
static int check_depth(const char *buf, size_t len, const char *path, struct ic_err *err)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    int depth = 0, rc = IC_OK;
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            /* the loader reports syntax errors with their position; libyaml
             * running out of memory is no syntax error (and the loader,
             * parsing again, might well not run out) */
            if (yaml_out_of_memory(&parser))
                rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
            break;
        }
        yaml_event_type_t t = ev.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) {
            if (++depth > MAX_DEPTH) {
                rc = ic_err_set(err, IC_EINVAL, path, (unsigned)ev.start_mark.line + 1,
                                (unsigned)ev.start_mark.column + 1,
                                "nesting deeper than %d levels; expected a flat record",
                                MAX_DEPTH);
                ic_err_hint(err, "a record is 'key: value' lines with a section or a list "
                                 "at most a level or two deep");
                yaml_event_delete(&ev);
                break;
            }
        } else if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
            depth--;
        }
        yaml_event_delete(&ev);
        if (t == YAML_STREAM_END_EVENT)
            break;
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* libyaml's reader (encoding) errors carry a byte offset, not a mark:
 * turns it into a 1-based line and a column in characters, as libyaml's
 * marks count them (UTF-8 continuation bytes do not start a character). */
static void offset_to_mark(const char *buf, size_t len, size_t offset, unsigned *line,
                           unsigned *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == '\n') {
            ++*line;
            *col = 1;
        } else if ((c & 0xc0) != 0x80) {
            ++*col;
        }
    }
}

/* What libyaml's terse problems usually mean in a hand-written file. */
static const struct {
    const char *problem; /* substring of libyaml's problem text */
    const char *hint;
} syntax_hints[] = {
    {"found character that cannot start any token",
     "expected a key, a value or a list item here; YAML indents with spaces, never tabs"},
    {"found undefined alias", "an alias (*name) must name an anchor (&name) defined above it"},
    {"mapping values are not allowed",
     "expected a value, not a new 'key: value' here: check the indentation and that a "
     "value with ': ' in it is quoted"},
    {"did not find expected key",
     "expected a key at this indentation: check the indentation, and that every quote "
     "opened above is closed"},
    {"did not find expected ',' or ']'", "expected ',' or ']': a list is not closed"},
    {"did not find expected ',' or '}'", "expected ',' or '}': a mapping is not closed"},
    {"found unexpected end of stream",
     "the file ends too early: a quote, bracket or brace is not closed"},
    {"found duplicate anchor", "expected each anchor (&name) once"},
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Reads the whole input once into a malloc'd, NUL-terminated *buf: path,
 * or standard input for "-". The limit holds while reading, whatever the
 * input claims to be, so a device (/dev/zero), an endless pipe or a FIFO
 * ends with an error at MAX_FILE_BYTES; nothing is read twice, so a pipe
 * works. shown is the name errors carry. */
static int read_input(const char *path, const char *shown, char **buf, size_t *len,
                      struct ic_err *err)
{
    bool is_stdin = strcmp(path, "-") == 0;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        int rc = ic_err_set(err, IC_ENOENT, shown, 0, 0, "cannot open file: %s", strerror(e));
        ic_err_hint(err, e == EACCES ? "check the file's permissions"
                                     : "check the path (a relative one starts from the current "
                                       "folder)");
        return rc;
    }
    int rc = IC_OK;
    char *b = NULL;
    size_t n = 0, cap = 0;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* (a CSV reads through here too: name no format) */
        rc = ic_err_set(err, IC_EINVAL, shown, 0, 0, "is a folder; expected a file");
        ic_err_hint(err, "give the file's path, not the folder it is in");
        goto out;
    }
    if (S_ISREG(st.st_mode) && st.st_size > MAX_FILE_BYTES) {
        rc = ic_err_set(err, IC_EINVAL, shown, 0, 0,
                        "file of %lld bytes; expected at most %d (an input file's "
                        "limit)",
                        (long long)st.st_size, MAX_FILE_BYTES);
        ic_err_hint(err, "split it: each file infcalc reads is at most %d bytes",
                    MAX_FILE_BYTES);
        goto out;
    }
    for (;;) {
        if (n == cap) {
            /* one byte past the limit tells "at the limit" from "over it" */
            cap = cap ? cap * 2 : 64 << 10;
            if (cap > (size_t)MAX_FILE_BYTES + 1)
                cap = (size_t)MAX_FILE_BYTES + 1;
            char *nb = realloc(b, cap + 1);
            if (!nb) {
                rc = ic_err_set(err, IC_ENOMEM, shown, 0, 0, "out of memory");
                goto out;
            }
            b = nb;
        }
        ssize_t got = read(fd, b + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = ic_err_set(err, IC_EINVAL, shown, 0, 0, "cannot read: %s", strerror(errno));
            goto out;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > (size_t)MAX_FILE_BYTES) {
            rc = ic_err_set(err, IC_EINVAL, shown, 0, 0,
                            "more than %d bytes; expected at most that (an input file's limit)",
                            MAX_FILE_BYTES);
            ic_err_hint(err, "a device or a pipe that does not end is not a record file");
            goto out;
        }
    }
    if (!b && !(b = malloc(1))) {
        rc = ic_err_set(err, IC_ENOMEM, shown, 0, 0, "out of memory");
        goto out;
    }
    b[n] = '\0';
out:
    if (!is_stdin)
        close(fd);
    if (rc) {
        free(b);
        return rc;
    }
    *buf = b;
    *len = n;
    return IC_OK;
}

/* JSON for a .json path; for a name with no .yaml/.yml ending (standard
 * input, /dev/stdin, a FIFO) JSON when the text opens with '{' (a block
 * YAML record never does), else YAML. */
static bool is_json(const char *path, const char *buf, size_t len)
{
    if (ends_with(path, ".json"))
        return true;
    if (ends_with(path, ".yaml") || ends_with(path, ".yml"))
        return false;
    size_t i = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (i < len && strchr(" \t\r\n", buf[i]))
        i++;
    return i < len && buf[i] == '{';
}

static int load_yaml(yaml_document_t *out, const char *buf, size_t len, const char *path,
                     struct ic_err *err)
{
    int rc = check_depth(buf, len, path, err);
    if (rc)
        return rc;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    yaml_document_t doc;
    if (!yaml_parser_load(&parser, &doc)) {
        if (yaml_out_of_memory(&parser)) {
            rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
            goto out;
        }
        /* libyaml marks are 0-based. */
        const yaml_mark_t *m = parser.problem ? &parser.problem_mark : &parser.context_mark;
        const char *what = parser.problem ? parser.problem : "malformed document";
        unsigned line = (unsigned)m->line + 1, col = (unsigned)m->column + 1;
        if (parser.error == YAML_READER_ERROR)
            offset_to_mark(buf, len, parser.problem_offset, &line, &col);
        if (parser.context)
            rc = ic_err_set(err, IC_EINVAL, path, line, col, "malformed YAML: %s %s",
                            parser.context, what);
        else
            rc = ic_err_set(err, IC_EINVAL, path, line, col, "malformed YAML: %s", what);
        if (parser.error == YAML_READER_ERROR) {
            ic_err_hint(err, "the file is not UTF-8 text");
        } else {
            ic_err_hint(err, "check the YAML syntax at this place: indentation with spaces, "
                             "'key: value' pairs, closed quotes and brackets");
            for (size_t i = 0; i < sizeof syntax_hints / sizeof syntax_hints[0]; i++)
                if (strstr(what, syntax_hints[i].problem)) {
                    ic_err_hint(err, "%s", syntax_hints[i].hint);
                    break;
                }
        }
        goto out;
    }
    /* A second document in the stream is almost always a mistake. */
    yaml_document_t extra;
    if (yaml_parser_load(&parser, &extra)) {
        int more = yaml_document_get_root_node(&extra) != NULL;
        yaml_mark_t at = extra.start_mark;
        yaml_document_delete(&extra);
        if (more) {
            yaml_document_delete(&doc);
            rc = ic_err_set(err, IC_EINVAL, path, (unsigned)at.line + 1, (unsigned)at.column + 1,
                            "more than one YAML document; expected exactly one");
            ic_err_hint(err, "a record is one document: remove the '---' line and what "
                             "follows, or put it in a file of its own");
            goto out;
        }
    } else if (yaml_out_of_memory(&parser)) {
        yaml_document_delete(&doc);
        rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
        goto out;
    } else {
        const yaml_mark_t *m = &parser.problem_mark;
        yaml_document_delete(&doc);
        rc = ic_err_set(err, IC_EINVAL, path, (unsigned)m->line + 1,
                        (unsigned)m->column + 1, "malformed YAML: %s",
                        parser.problem ? parser.problem : "trailing content");
        ic_err_hint(err, "a record is one YAML document; check what follows it");
        goto out;
    }
    *out = doc;
out:
    yaml_parser_delete(&parser);
    return rc;
}

int ic_ydoc_load(struct ic_ydoc *d, const char *path, struct ic_err *err)
{
    const char *shown = strcmp(path, "-") == 0 ? IC_STDIN_NAME : path;
    char *buf = NULL;
    size_t len = 0;
    int rc = read_input(path, shown, &buf, &len, err);
    if (rc)
        return rc;
    bool json = is_json(path, buf, len);
    yaml_document_t doc;
    rc = json ? ic_json_parse(buf, len, shown, MAX_DEPTH, &doc, err)
              : load_yaml(&doc, buf, len, shown, err);
    free(buf);
    if (rc)
        return rc;
    d->doc = doc;
    snprintf(d->path, sizeof d->path, "%s", shown);
    d->json = json;
    d->loaded = true;
    return IC_OK;
}

void ic_ydoc_free(struct ic_ydoc *d)
{
    if (d && d->loaded) {
        yaml_document_delete(&d->doc);
        d->loaded = false;
    }
}

yaml_node_t *ic_ydoc_root(const struct ic_ydoc *d)
{
    return yaml_document_get_root_node((yaml_document_t *)&d->doc);
}

const char *ic_ydoc_scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value
                                                  : NULL;
}

bool ic_ydoc_is_null(const yaml_node_t *node)
{
    if (!node || node->type != YAML_SCALAR_NODE)
        return false;
    if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *s = (const char *)node->data.scalar.value;
    return !*s || strcmp(s, "null") == 0 || strcmp(s, "~") == 0 ||
           strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

static int vfail(const struct ic_ydoc *d, const yaml_node_t *node,
                 struct ic_err *err, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static int vfail(const struct ic_ydoc *d, const yaml_node_t *node,
                 struct ic_err *err, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    unsigned line = node ? (unsigned)node->start_mark.line + 1 : 0;
    unsigned col = node ? (unsigned)node->start_mark.column + 1 : 0;
    return ic_err_set(err, IC_EINVAL, d->path, line, col, "%s", msg);
}

int ic_ydoc_error(const struct ic_ydoc *d, const yaml_node_t *node,
                  struct ic_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(d, node, err, fmt, ap);
    va_end(ap);
    return rc;
}

static yaml_node_t *node_at(const struct ic_ydoc *d, int index)
{
    return yaml_document_get_node((yaml_document_t *)&d->doc, index);
}

/* Finds the field for key in s or its nested maps' own keys (only s). */
static const struct ic_field *find_field(const struct ic_schema *s, const char *key)
{
    for (size_t i = 0; i < s->n_fields; i++)
        if (strcmp(s->fields[i].key, key) == 0)
            return &s->fields[i];
    return NULL;
}

static const char *nearest_key(const struct ic_schema *s, const char *key)
{
    const char *best = NULL;
    unsigned best_d = 255;
    for (size_t i = 0; i < s->n_fields; i++) {
        unsigned dist = ic_text_distance(key, s->fields[i].key);
        if (dist < best_d) {
            best_d = dist;
            best = s->fields[i].key;
        }
    }
    return best_d <= ic_text_near_limit(strlen(key)) ? best : NULL;
}

/* The key of s at most `most` edits from key, the nearest (NULL: none). */
static const char *nearest_key_within(const struct ic_schema *s, const char *key, unsigned most)
{
    for (unsigned dist = 0; dist <= most; dist++) /* 0: a case apart */
        for (size_t i = 0; i < s->n_fields; i++)
            if (ic_text_distance(key, s->fields[i].key) == dist)
                return s->fields[i].key;
    return NULL;
}

/* Whether the mapping (NULL or not a mapping: none) has the key. */
static bool mapping_has(const struct ic_ydoc *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return false;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ic_ydoc_scalar(node_at(d, p->key));
        if (k && strcmp(k, key) == 0)
            return true;
    }
    return false;
}

const yaml_node_t *ic_ydoc_near_miss(const struct ic_ydoc *d, yaml_node_t *map,
                                     yaml_node_t *other, const struct ic_schema *s,
                                     const char **near)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const yaml_node_t *k = node_at(d, p->key);
        const char *key = ic_ydoc_scalar(k);
        /* '_': transformers' saved private attributes (Gemma 3's
         * _sliding_window_pattern beside its layer_types) */
        if (!key || key[0] == '_' || strlen(key) < 10 || find_field(s, key))
            continue;
        const char *typo = nearest_key_within(s, key, 1);
        if (typo && !mapping_has(d, map, typo) && !mapping_has(d, other, typo)) {
            *near = typo;
            return k;
        }
    }
    return NULL;
}

/* Hint: what first says, then the keys s takes (as many as fit). */
static void hint_keys(struct ic_err *err, const struct ic_schema *s, const char *first)
{
    char h[sizeof err->hint];
    size_t n = (size_t)snprintf(h, sizeof h, "%s; the %s takes", first, s->what);
    for (size_t i = 0; i < s->n_fields && n < sizeof h; i++) {
        size_t k = strlen(s->fields[i].key);
        if (n + k + 8 >= sizeof h) {
            snprintf(h + n, sizeof h - n, ", ...");
            break;
        }
        n += (size_t)snprintf(h + n, sizeof h - n, "%s %s", i ? "," : "", s->fields[i].key);
    }
    ic_err_hint(err, "%s", h);
}

/* A key and value as the file spells them, for a hint's example: 'key:
 * value' in YAML, '"key": value' in JSON (text quoted there). */
static const char *spelled(const struct ic_ydoc *d, const char *key, const char *value,
                           bool text, char *buf, size_t n)
{
    if (d->json)
        snprintf(buf, n, text ? "\"%s\": \"%s\"" : "\"%s\": %s", key, value);
    else
        snprintf(buf, n, "%s: %s", key, value);
    return buf;
}

static int read_scalar_field(const struct ic_ydoc *d, const struct ic_field *f,
                             yaml_node_t *v, void *rec, const char *what,
                             struct ic_err *err)
{
    char *base = (char *)rec + f->offset;
    const char *text = ic_ydoc_scalar(v);
    char why[256], ex[160];
    if (!text) {
        int rc = ic_ydoc_error(d, v, err, "'%s' in %s: expected a single value, found a %s",
                               f->key, what,
                               v->type == YAML_MAPPING_NODE ? "mapping" : "list");
        ic_err_hint(err, "write one value on the key's line, e.g. '%s'",
                    spelled(d, f->key,
                            f->kind == IC_F_QTY    ? ic_qty_sample(f->qty)
                            : f->kind == IC_F_BOOL ? "true"
                            : f->kind == IC_F_STR  ? "text"
                                                   : "8",
                            f->kind == IC_F_QTY || f->kind == IC_F_STR, ex, sizeof ex));
        return rc;
    }
    int rc;
    if ((f->kind == IC_F_COUNT || f->kind == IC_F_COUNT_NULL || f->kind == IC_F_NUMBER ||
         f->kind == IC_F_BOOL) &&
        (rc = ic_ydoc_bare(d, v, f->key, f->kind == IC_F_BOOL, err)))
        return rc;
    switch (f->kind) {
    case IC_F_STR:
        /* "\0" would cut the text where it stands, and other control
         * characters (an escape sequence) would reach the terminal */
        for (size_t i = 0; i < v->data.scalar.length; i++) {
            const unsigned char ch = (unsigned char)text[i];
            if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7f) {
                rc = ic_ydoc_error(d, v, err,
                                   "'%s': a control character (0x%02x) at character %zu of "
                                   "the text", f->key, ch, i + 1);
                ic_err_hint(err, "write the text without escapes such as \\0 or \\e");
                return rc;
            }
        }
        if (strlen(text) >= f->size) {
            rc = ic_ydoc_error(d, v, err, "'%s': value is too long (at most %zu characters)",
                               f->key, f->size - 1);
            ic_err_hint(err, "%s", strcmp(f->key, "notes") ? "shorten it; a longer text goes "
                                                              "in 'notes'"
                                                            : "shorten it");
            return rc;
        }
        memcpy(base, text, strlen(text) + 1);
        return IC_OK;
    case IC_F_COUNT:
    case IC_F_COUNT_NULL:
        if (ic_count_parse(text, (uint64_t *)(void *)base, why, sizeof why)) {
            rc = ic_ydoc_error(d, v, err, "'%s': %s; expected a non-negative whole number",
                               f->key, why);
            ic_err_hint(err, "write a whole number, e.g. '%s' (or 32.0, 3.2e1): no sign, "
                             "unit or quotes",
                        spelled(d, f->key, "32", false, ex, sizeof ex));
            return rc;
        }
        return IC_OK;
    case IC_F_NUMBER:
        if (ic_number_parse(text, (double *)(void *)base, why, sizeof why)) {
            rc = ic_ydoc_error(d, v, err, "'%s': %s; expected a finite non-negative number",
                               f->key, why);
            ic_err_hint(err, "write a plain number, e.g. '%s': no unit, currency sign "
                             "or quotes",
                        spelled(d, f->key, "2.5", false, ex, sizeof ex));
            return rc;
        }
        return IC_OK;
    case IC_F_QTY:
        if (ic_qty_parse(text, f->qty, (double *)(void *)base, why, sizeof why)) {
            rc = ic_ydoc_error(d, v, err, "'%s': %s", f->key, why);
            ic_err_hint(err, "write a number, a space and a unit of %s, e.g. '%s'%s",
                        ic_qty_name(f->qty),
                        spelled(d, f->key, ic_qty_sample(f->qty), true, ex, sizeof ex),
                        f->qty == IC_QTY_TIME ? " (s, ms, us or ns)"
                                              : " (k, M, G, T, P are powers of 1000)");
            return rc;
        }
        return IC_OK;
    case IC_F_BOOL:
        if (!strcmp(text, "true") || !strcmp(text, "True") || !strcmp(text, "yes"))
            *(bool *)(void *)base = true;
        else if (!strcmp(text, "false") || !strcmp(text, "False") || !strcmp(text, "no"))
            *(bool *)(void *)base = false;
        else {
            rc = ic_ydoc_error(d, v, err, "'%s': '%s' is not a boolean; expected true or false "
                               "(True, False, yes and no are read as them)",
                               f->key, text);
            char ex2[160];
            ic_err_hint(err, "write '%s' or '%s'", spelled(d, f->key, "true", false, ex, sizeof ex),
                        spelled(d, f->key, "false", false, ex2, sizeof ex2));
            return rc;
        }
        return IC_OK;
    default:
        return ic_ydoc_error(d, v, err, "'%s': internal schema error", f->key);
    }
}

static int read_list_field(const struct ic_ydoc *d, const struct ic_field *f,
                           yaml_node_t *v, void *rec, struct ic_err *err)
{
    if (v->type != YAML_SEQUENCE_NODE) {
        int rc = ic_ydoc_error(d, v, err, "'%s': expected a list, e.g. [a, b]", f->key);
        ic_err_hint(err, "even one entry is a list: '%s: [%s]'", f->key,
                    ic_ydoc_scalar(v) ? ic_ydoc_scalar(v) : "a");
        return rc;
    }
    char *base = (char *)rec + f->offset;
    uint32_t *count = (uint32_t *)(void *)((char *)rec + f->offset2);
    *count = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start;
         it < v->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(d, *it);
        const char *text = ic_ydoc_scalar(item);
        int rc = IC_OK;
        if (!text)
            rc = ic_ydoc_error(d, item, err, "'%s': expected a list of plain values", f->key);
        else if (*count >= f->size2)
            rc = ic_ydoc_error(d, item, err, "'%s': too many entries (at most %zu)", f->key,
                               f->size2);
        else if (strlen(text) >= f->size)
            rc = ic_ydoc_error(d, item, err, "'%s': entry is too long (at most %zu characters)",
                               f->key, f->size - 1);
        if (rc) {
            ic_err_hint(err, "write the list flat, e.g. '%s: [a, b]': no list or mapping "
                             "inside it",
                        f->key);
            return rc;
        }
        memcpy(base + (size_t)*count * f->size, text, strlen(text) + 1);
        (*count)++;
    }
    return IC_OK;
}

int ic_ydoc_read(const struct ic_ydoc *d, yaml_node_t *map, const struct ic_schema *s,
                 void *rec, struct ic_loc *locs, const yaml_node_t *owner,
                 struct ic_err *err)
{
    if (!map || map->type != YAML_MAPPING_NODE) {
        int rc = ic_ydoc_error(d, map, err, "expected a mapping of keys to values for the %s",
                               s->what);
        hint_keys(err, s, "write it as 'key: value' lines");
        return rc;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(d, p->key);
        yaml_node_t *v = node_at(d, p->value);
        const char *key = ic_ydoc_scalar(k);
        if (!key) {
            int rc = ic_ydoc_error(d, k, err, "expected a plain key in the %s", s->what);
            hint_keys(err, s, "a key is a plain word, not a list or a mapping");
            return rc;
        }
        const struct ic_field *f = find_field(s, key);
        if (!f) {
            if (s->ignore_unknown)
                continue;
            int rc = ic_ydoc_error(d, k, err, "unknown key '%s' in the %s", key, s->what);
            const char *near = nearest_key(s, key);
            if (near)
                ic_err_hint(err, "did you mean '%s'?", near);
            else if (strcmp(key, "<<") == 0)
                ic_err_hint(err, "YAML merge keys are not read; write the keys out");
            else
                hint_keys(err, s, "remove it or correct it");
            return rc;
        }
        struct ic_loc *loc = &locs[f->id];
        if (loc->line) {
            int rc = ic_ydoc_error(d, k, err, "duplicate key '%s' in the %s", key, s->what);
            ic_err_hint(err, "first given at line %u", loc->line);
            return rc;
        }
        if ((s->ignore_unknown || f->kind == IC_F_COUNT_NULL) && ic_ydoc_is_null(v))
            continue; /* config.json writes absent options as null */
        int rc;
        switch (f->kind) {
        case IC_F_MAP:
            rc = ic_ydoc_read(d, v, f->sub, rec, locs, k, err);
            break;
        case IC_F_STRLIST:
            rc = read_list_field(d, f, v, rec, err);
            break;
        case IC_F_CUSTOM:
            rc = f->custom(d, v, rec, err);
            break;
        default:
            rc = read_scalar_field(d, f, v, rec, s->what, err);
        }
        if (rc)
            return rc;
        const yaml_node_t *at = f->kind == IC_F_MAP ? k : v;
        loc->line = (unsigned)at->start_mark.line + 1;
        loc->col = (unsigned)at->start_mark.column + 1;
    }
    /* every key the section lacks in one message, so that an entry written
     * by hand is mended in one pass rather than one run a key */
    char keys[384] = "", lines[448] = "";
    size_t missing = 0, named = 0;
    const char *first = NULL;
    for (size_t i = 0; i < s->n_fields; i++) {
        const struct ic_field *f = &s->fields[i];
        if (!f->required || locs[f->id].line)
            continue;
        if (!first)
            first = f->key;
        missing++;
        const size_t kl = strlen(keys), ll = strlen(lines);
        if (kl + strlen(f->key) + 8 < sizeof keys && ll + strlen(f->key) + 12 < sizeof lines) {
            snprintf(keys + kl, sizeof keys - kl, "%s'%s'", kl ? ", " : "", f->key);
            snprintf(lines + ll, sizeof lines - ll, "%s'%s: ...'", ll ? ", " : "", f->key);
            named++;
        }
    }
    if (missing == 1) {
        int rc = ic_ydoc_error(d, owner ? owner : map, err, "missing required key '%s' in the %s",
                               first, s->what);
        ic_err_hint(err, "add a line '%s: ...' to the %s", first, s->what);
        return rc;
    }
    if (missing > 1) {
        int rc = ic_ydoc_error(d, owner ? owner : map, err,
                               "missing required keys %s%s in the %s", keys,
                               named < missing ? " and more" : "", s->what);
        ic_err_hint(err, "add a line for each to the %s: %s", s->what, lines);
        return rc;
    }
    return IC_OK;
}

int ic_ydoc_read_text(const char *path, char **buf, size_t *len, struct ic_err *err)
{
    return read_input(path, strcmp(path, "-") == 0 ? IC_STDIN_NAME : path, buf, len, err);
}

bool ic_ydoc_name_ok(const char *s, bool underscore)
{
    const char *set = underscore ? "abcdefghijklmnopqrstuvwxyz0123456789-._"
                                 : "abcdefghijklmnopqrstuvwxyz0123456789-.";
    return ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')) &&
           strspn(s, set) == strlen(s);
}

int ic_ydoc_bare(const struct ic_ydoc *d, const yaml_node_t *v, const char *key, bool boolean,
                 struct ic_err *err)
{
    if (!v || v->type != YAML_SCALAR_NODE || v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        return IC_OK;
    int rc = ic_ydoc_error(d, v, err, "'%s': a quoted string; expected %s", key,
                           boolean ? "true or false" : "a number");
    char ex[160];
    ic_err_hint(err, "write it without quotes, e.g. '%s'",
                spelled(d, key, boolean ? "true" : "32", false, ex, sizeof ex));
    return rc;
}

int ic_ydoc_alias_bad(const char *name, const char *aliases, size_t stride, uint32_t n,
                      bool name_rule, const char **why)
{
    for (uint32_t i = 0; i < n; i++) {
        const char *a = aliases + (size_t)i * stride;
        if (!a[0] || strspn(a, " \t") == strlen(a)) {
            *why = "is empty";
            return (int)i;
        }
        if (name_rule && !ic_ydoc_name_ok(a, false)) {
            *why = "must be lower-case letters, digits, '-' or '.', starting with a letter or "
                   "a digit";
            return (int)i;
        }
        if (strcmp(a, name) == 0) {
            *why = "is the entry's own name";
            return (int)i;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(a, aliases + (size_t)j * stride) == 0) {
                *why = "is given twice";
                return (int)i;
            }
    }
    return -1;
}
