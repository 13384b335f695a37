/* ic_json: a strict JSON reader (RFC 8259) that builds a libyaml document.
 *
 * Hugging Face's config.json is JSON, and libyaml reads it as YAML flow
 * syntax only loosely: it rejects the surrogate pairs Python's json.dump
 * writes for characters outside the BMP, cuts a string at an escaped NUL,
 * and accepts trailing commas, comments, single quotes and bare words. This
 * reader takes exactly RFC 8259 and builds the same yaml_document_t the
 * schema reader (ic_ydoc) walks, each node carrying its own line:column, so
 * a config.json and a modeldb YAML file go through the same schema checks.
 *
 * Node styles mirror what libyaml gives for JSON: strings are double-quoted
 * scalars (text decoded), numbers and true/false/null plain scalars (text as
 * written). Lines and columns are 1-based on the page and 0-based in the
 * marks, as libyaml's; a column counts characters (UTF-8 sequences), not
 * bytes. */
#ifndef IC_JSON_H
#define IC_JSON_H

#include "ic_err.h"

#include <stddef.h>
#include <yaml.h>

/* Parses buf[0 .. len) as one JSON text into doc: containers nested at
 * most max_depth deep (the root object or array is level 1), strings valid
 * UTF-8 with no NUL, escapes and surrogate pairs decoded. Whitespace alone
 * gives a document without a root node (the caller reports the empty file).
 * On failure returns IC_EINVAL (IC_ENOMEM when allocation fails) and fills
 * err with path, the offending character's line:column, what was found and
 * what was expected; doc is initialized only on success (free it with
 * yaml_document_delete). */
int ic_json_parse(const char *buf, size_t len, const char *path, int max_depth,
                  yaml_document_t *doc, struct ic_err *err);

#endif
