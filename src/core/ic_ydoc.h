/* ic_ydoc: strict, schema-driven reading of YAML (and JSON) documents.
 *
 * hwdb and modeldb records are read through a table per record (key, node
 * type, offset, unit kind, required) rather than hand-written tree walks, so
 * every record gets the same checks: unknown keys (with the nearest known one
 * suggested), duplicate keys, missing required keys, wrong node types,
 * negative or non-finite numbers and values without units, each reported at
 * the node's own file:line:column. A Hugging Face config.json is read by the
 * strict JSON reader (ic_json) into the same document and walked by the same
 * machinery, with unknown keys ignored. */
#ifndef IC_YDOC_H
#define IC_YDOC_H

#include "ic_err.h"
#include "ic_units.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

struct ic_loc {
    unsigned line; /* 1-based; 0 = the field was not given */
    unsigned col;  /* 1-based */
};

struct ic_ydoc {
    yaml_document_t doc;
    char path[512]; /* the name errors carry: the path, or IC_STDIN_NAME */
    bool json;      /* read as JSON (RFC 8259), not YAML */
    bool loaded;
};

/* The name errors give standard input, read for the path "-". */
#define IC_STDIN_NAME "<stdin>"

enum ic_fkind {
    IC_F_STR,     /* char[size]; any scalar */
    IC_F_STRLIST, /* char[count][size]; a sequence of scalars, count in size2 */
    IC_F_COUNT,   /* uint64_t; plain non-negative integer */
    IC_F_COUNT_NULL, /* the same, or null: the key left out (a config class's None) */
    IC_F_BOOL,    /* bool; true/false */
    IC_F_NUMBER,  /* double; plain finite non-negative number */
    IC_F_QTY,     /* double; a quantity with a unit of kind qty, in SI */
    IC_F_MAP,     /* a nested mapping read with sub into the same record */
    IC_F_CUSTOM,  /* handled by custom() */
};

struct ic_schema;

struct ic_field {
    const char *key;
    enum ic_fkind kind;
    int id;        /* index into the record's location array */
    size_t offset; /* of the target within the record */
    size_t size;   /* IC_F_STR/STRLIST: bytes per string */
    size_t size2;  /* IC_F_STRLIST: number of strings; a uint32_t count follows at offset2 */
    size_t offset2;
    enum ic_qty qty;
    bool required;
    const struct ic_schema *sub;
    int (*custom)(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                  struct ic_err *err);
};

struct ic_schema {
    const char *what; /* "hardware entry", "memory section", ... */
    const struct ic_field *fields;
    size_t n_fields;
    bool ignore_unknown; /* config.json: tolerate keys infcalc does not use */
};

/* Reads path ("-": standard input) once, at most IC_INPUT_MAX_B bytes
 * whatever it is (a file, a device, a pipe, a FIFO), and parses it: as
 * strict JSON when path ends in .json, or when it has no .yaml/.yml ending
 * and the text opens with '{'; as YAML otherwise. On failure returns
 * IC_EINVAL for any problem with the input (IC_ENOENT when it cannot be
 * opened, IC_ENOMEM) and fills err with the parser's line:column. d is
 * written only on success. Free with ic_ydoc_free. */
int ic_ydoc_load(struct ic_ydoc *d, const char *path, struct ic_err *err);
void ic_ydoc_free(struct ic_ydoc *d);

/* The bounded single read ic_ydoc_load does, for other text inputs (CSV):
 * path ("-": standard input) into a malloc'd NUL-terminated *buf of *len
 * bytes, at most IC_INPUT_MAX_B whatever the input is. Errors name path
 * ("<stdin>" for "-"). */
int ic_ydoc_read_text(const char *path, char **buf, size_t *len, struct ic_err *err);

/* Root node, or NULL for an empty document (caller reports it). */
yaml_node_t *ic_ydoc_root(const struct ic_ydoc *d);

/* Reads mapping node map into rec according to s. locs must have room for
 * every field id of s and its sub-schemas and be zeroed by the caller; a
 * field's location is recorded when it is read (a nested section's at its
 * key, a value's at the value), which is how callers tell given from absent
 * and where to point later semantic errors. A missing required key is
 * reported at owner (the key naming this mapping), or at the mapping itself
 * when owner is NULL. */
/* The first key of map, of ten letters or more and not starting with '_'
 * (a saved private attribute), that s does not read but that is a letter
 * (or a case) from one s reads which neither map nor other (a wrapper's
 * inner mapping, or NULL) gives: that key misspelt, for a schema that
 * ignores unknown keys (a config.json's own are its business, but
 * "num_key_value_head" read as absent takes the default silently; shorter
 * keys lie a letter apart by design: DeepSeek's n_group, Mamba's
 * n_groups). Returns its node, *near the key it is near; NULL. */
const yaml_node_t *ic_ydoc_near_miss(const struct ic_ydoc *d, yaml_node_t *map,
                                     yaml_node_t *other, const struct ic_schema *s,
                                     const char **near);

int ic_ydoc_read(const struct ic_ydoc *d, yaml_node_t *map,
                 const struct ic_schema *s, void *rec, struct ic_loc *locs,
                 const yaml_node_t *owner, struct ic_err *err);

/* Fills err with a message at node's position and returns IC_EINVAL (for
 * custom handlers and the callers' semantic checks). */
int ic_ydoc_error(const struct ic_ydoc *d, const yaml_node_t *node,
                  struct ic_err *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The scalar text of node, or NULL when node is not a scalar. */
const char *ic_ydoc_scalar(const yaml_node_t *node);

/* True for a null scalar (null, ~, empty plain). */
bool ic_ydoc_is_null(const yaml_node_t *node);

/* A number or a boolean is written bare: a quoted one is text (JSON's
 * "4096"; Python reads "false" as true, and it was read as false). IC_OK
 * for a plain scalar (or a node that is not a scalar, or NULL); else the
 * error at v, key naming it. */
int ic_ydoc_bare(const struct ic_ydoc *d, const yaml_node_t *v, const char *key, bool boolean,
                 struct ic_err *err);

/* Whether s is a database entry's name: lower-case letters, digits, '-',
 * '.' (and '_' where underscore), starting with a letter or a digit (".."
 * loaded as a name). The rule of hwdb, modeldb and enginedb alike. */
bool ic_ydoc_name_ok(const char *s, bool underscore);

/* The first of an entry's n aliases (each `stride` bytes apart from
 * `aliases`) that is empty, breaks the name rule (where name_rule: hwdb's
 * and enginedb's; a model's may be a Hugging Face id, "Qwen/Qwen3-8B"), is
 * the entry's own name or repeats an earlier one: its index, *why saying
 * which; -1 where none does. */
int ic_ydoc_alias_bad(const char *name, const char *aliases, size_t stride, uint32_t n,
                      bool name_rule, const char **why);

#endif
