/* ic_units: number types (dtypes) and quantities with units.
 *
 * Every quantity infcalc reads from a file carries its unit ("3.35 TB/s",
 * "80 GiB", "989 TFLOP/s"), because a bare number with an implied scale is
 * how databases go silently wrong by 1000x or 1.07x. This module parses them
 * into SI base units (bytes, bytes/s, FLOP/s, seconds) and holds the table of
 * number formats used for weights, KV cache and compute. */
#ifndef IC_UNITS_H
#define IC_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ic_dtype {
    IC_DT_FP32,
    IC_DT_BF16,
    IC_DT_FP16,
    IC_DT_FP8,
    IC_DT_INT8,
    IC_DT_INT4,
    IC_DT_FP4,
    IC_DT_COUNT
};

struct ic_dtype_traits {
    const char *name; /* as written on the command line and in hwdb */
    uint32_t bits;    /* storage bits per element, scales excluded */
    bool integer;     /* integer ops (TOP/s) rather than floating point */
};

/* Traits of a dtype; t must be < IC_DT_COUNT. */
const struct ic_dtype_traits *ic_dtype_traits(enum ic_dtype t);

/* Looks a dtype up by name ("bf16", "int8", ...). Returns 0 and writes *out,
 * or IC_ENOENT. */
int ic_dtype_parse(const char *name, enum ic_dtype *out);

/* The same by a config.json's torch_dtype name ("bfloat16", "float16",
 * "half", "float32", "float", "float8_e4m3fn"). */
int ic_dtype_torch(const char *name, enum ic_dtype *out);

/* Bytes taken by n elements of dtype t, rounded up to whole bytes. */
uint64_t ic_dtype_bytes(enum ic_dtype t, uint64_t n);

enum ic_qty {
    IC_QTY_BYTES,     /* B, kB..PB (1000), KiB..TiB (1024) */
    IC_QTY_BANDWIDTH, /* B/s, kB/s..TB/s, KiB/s..TiB/s, Mbit/s..Tbit/s */
    IC_QTY_RATE,      /* FLOP/s or OP/s with k M G T P prefixes */
    IC_QTY_TIME,      /* s ms us ns */
    IC_QTY_COUNT
};

/* Name of a quantity kind for messages: "a size", "a bandwidth", ... */
const char *ic_qty_name(enum ic_qty q);

/* An example of a well-formed value of that kind, for messages. */
const char *ic_qty_example(enum ic_qty q);
/* One value of that kind, unquoted ("3.35 TB/s"): a hint's 'key: VALUE'. */
const char *ic_qty_sample(enum ic_qty q);

/* The numbers below are plain decimals (docs/numbers.md): JSON's number
 * grammar without its minus sign. No sign ('-0' and '+8' included), no
 * leading zero ('007', '00.5'), a digit on both sides of a point (not '.5'
 * or '5.'), no hex, inf or nan. The reasons given name the text in quotes
 * ("'+8' has a plus sign").
 *
 * Parses "<number> <unit>" into SI base units. On failure returns IC_EINVAL
 * and writes a short reason (what was wrong, what was expected) into why. The
 * number must be finite and non-negative; the unit must be of kind q (a
 * bare number is refused, a time's included: '0.2' is not 0.2 s). */
int ic_qty_parse(const char *text, enum ic_qty q, double *out, char *why,
                 unsigned why_len);

/* Parses a plain non-negative integer count below 2^63, read exactly:
 * digits ("80", "70553706496"), or with a point or an exponent where the
 * value is whole ("8.0", "1e3", "70.6e9", "9007199254740993.0"); refuses
 * signs, fractions ("8.5", "1e-3"), units and trailing text. Returns 0 or
 * IC_EINVAL with a reason. */
int ic_count_parse(const char *text, uint64_t *out, char *why,
                   unsigned why_len);

/* Parses a plain finite non-negative decimal number ("1.20"). */
int ic_number_parse(const char *text, double *out, char *why,
                    unsigned why_len);

/* Levenshtein edit distance between two short strings (ASCII, case-folded),
 * capped at 255; used to suggest the nearest known name. */
unsigned ic_text_distance(const char *a, const char *b);

/* How far a name of len letters may lie from another to be suggested for
 * it: two edits below six letters, a third of its length from there. */
unsigned ic_text_near_limit(size_t len);

#endif
