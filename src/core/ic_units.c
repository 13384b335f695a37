/* ic_units: dtype table and unit-carrying number parsing. */
#include "ic_units.h"

#include "ic_err.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ic_dtype_traits dtype_traits[IC_DT_COUNT] = {
    [IC_DT_FP32] = {"fp32", 32, false},
    [IC_DT_BF16] = {"bf16", 16, false},
    [IC_DT_FP16] = {"fp16", 16, false},
    [IC_DT_FP8] = {"fp8", 8, false},
    [IC_DT_INT8] = {"int8", 8, true},
    [IC_DT_INT4] = {"int4", 4, true},
    [IC_DT_FP4] = {"fp4", 4, false},
};
_Static_assert(sizeof dtype_traits / sizeof dtype_traits[0] == IC_DT_COUNT,
               "one traits row per dtype");

const struct ic_dtype_traits *ic_dtype_traits(enum ic_dtype t)
{
    return &dtype_traits[t];
}

int ic_dtype_parse(const char *name, enum ic_dtype *out)
{
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (strcmp(name, dtype_traits[t].name) == 0) {
            *out = (enum ic_dtype)t;
            return IC_OK;
        }
    return IC_ENOENT;
}

uint64_t ic_dtype_bytes(enum ic_dtype t, uint64_t n)
{
    uint64_t bits = dtype_traits[t].bits;
    /* n * bits / 8 without overflowing for n up to 2^60 elements. */
    return (n / 8) * bits + ((n % 8) * bits + 7) / 8;
}

struct unit {
    const char *sym;
    double scale; /* multiplier to the SI base unit */
};

static const struct unit bytes_units[] = {
    {"B", 1},       {"kB", 1e3},    {"KB", 1e3},   {"MB", 1e6},
    {"GB", 1e9},    {"TB", 1e12},   {"PB", 1e15},  {"KiB", 1024.0},
    {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
    {NULL, 0},
};
static const struct unit bw_units[] = {
    {"B/s", 1},         {"kB/s", 1e3},      {"KB/s", 1e3},
    {"MB/s", 1e6},      {"GB/s", 1e9},      {"TB/s", 1e12},
    {"KiB/s", 1024.0},  {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
    {"TiB/s", 1099511627776.0},
    {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8},
    {NULL, 0},
};
static const struct unit rate_units[] = {
    {"FLOP/s", 1},     {"kFLOP/s", 1e3},  {"MFLOP/s", 1e6}, {"GFLOP/s", 1e9},
    {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"OP/s", 1},      {"kOP/s", 1e3},
    {"MOP/s", 1e6},    {"GOP/s", 1e9},    {"TOP/s", 1e12},  {"POP/s", 1e15},
    {NULL, 0},
};
static const struct unit time_units[] = {
    {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {NULL, 0},
};

static const struct {
    const struct unit *units;
    const char *name;
    const char *example;
} qty_table[IC_QTY_COUNT] = {
    [IC_QTY_BYTES] = {bytes_units, "a size", "'80 GB' or '16 GiB'"},
    [IC_QTY_BANDWIDTH] = {bw_units, "a bandwidth", "'3.35 TB/s' or '400 Gbit/s'"},
    [IC_QTY_RATE] = {rate_units, "a compute rate", "'989 TFLOP/s' or '394 TOP/s'"},
    [IC_QTY_TIME] = {time_units, "a time", "'1 us' or '5 ms'"},
};
_Static_assert(sizeof qty_table / sizeof qty_table[0] == IC_QTY_COUNT,
               "one row per quantity kind");

const char *ic_qty_name(enum ic_qty q) { return qty_table[q].name; }
const char *ic_qty_example(enum ic_qty q) { return qty_table[q].example; }

/* Reads a finite non-negative decimal at the start of text; returns the end
 * pointer or NULL with a reason. */
static const char *parse_decimal(const char *text, double *out, char *why,
                                 unsigned why_len)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    if (*p == '-') {
        snprintf(why, why_len, "negative value '%s'", text);
        return NULL;
    }
    /* strtod also reads "inf", "nan" and hex floats; accept only plain
     * decimals so that those are rejected with a clear reason. */
    if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])) ||
          *p == '+')) {
        snprintf(why, why_len, "'%s' is not a number", text);
        return NULL;
    }
    const char *q = *p == '+' ? p + 1 : p;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
        snprintf(why, why_len, "'%s': hexadecimal numbers are not accepted", text);
        return NULL;
    }
    /* '010' is ten to strtod, eight to a YAML 1.1 reader (octal) and an
     * error to JSON: refused everywhere (docs/numbers.md) */
    if (q[0] == '0' && isdigit((unsigned char)q[1])) {
        snprintf(why, why_len, "'%s' has a leading zero", text);
        return NULL;
    }
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p) {
        snprintf(why, why_len, "'%s' is not a number", text);
        return NULL;
    }
    if (errno == ERANGE || !isfinite(v)) {
        snprintf(why, why_len, "'%s' is out of range", text);
        return NULL;
    }
    if (v < 0) {
        snprintf(why, why_len, "negative value '%s'", text);
        return NULL;
    }
    *out = v;
    return end;
}

/* Which quantity kind, if any, has a unit spelled sym (for "wrong kind"). */
static int qty_of_symbol(const char *sym)
{
    for (int q = 0; q < IC_QTY_COUNT; q++)
        for (const struct unit *u = qty_table[q].units; u->sym; u++)
            if (strcmp(u->sym, sym) == 0)
                return q;
    return -1;
}

int ic_qty_parse(const char *text, enum ic_qty q, double *out, char *why,
                 unsigned why_len)
{
    double v;
    const char *p = parse_decimal(text, &v, why, why_len);
    if (!p) {
        /* the number's fault; say what the whole value should look like */
        size_t n = why_len ? strlen(why) : 0;
        if (n + 1 < why_len)
            snprintf(why + n, why_len - n, "; expected %s, e.g. %s", qty_table[q].name,
                     qty_table[q].example);
        return IC_EINVAL;
    }
    while (*p == ' ')
        p++;
    if (!*p) {
        snprintf(why, why_len, "'%s' has no unit; expected %s with a unit, e.g. %s",
                 text, qty_table[q].name, qty_table[q].example);
        return IC_EINVAL;
    }
    size_t len = strlen(p);
    while (len && p[len - 1] == ' ')
        len--;
    char sym[32];
    if (len >= sizeof sym) {
        snprintf(why, why_len, "unknown unit in '%s'; expected %s, e.g. %s", text,
                 qty_table[q].name, qty_table[q].example);
        return IC_EINVAL;
    }
    memcpy(sym, p, len);
    sym[len] = '\0';
    for (const struct unit *u = qty_table[q].units; u->sym; u++)
        if (strcmp(u->sym, sym) == 0) {
            double r = v * u->scale;
            if (!isfinite(r)) {
                snprintf(why, why_len, "'%s' is out of range; expected %s, e.g. %s", text,
                         qty_table[q].name, qty_table[q].example);
                return IC_EINVAL;
            }
            *out = r;
            return IC_OK;
        }
    int other = qty_of_symbol(sym);
    if (other >= 0)
        snprintf(why, why_len, "'%s' is %s, but %s is expected here, e.g. %s", sym,
                 qty_table[other].name, qty_table[q].name, qty_table[q].example);
    else
        snprintf(why, why_len, "unknown unit '%s'; expected %s, e.g. %s", sym,
                 qty_table[q].name, qty_table[q].example);
    return IC_EINVAL;
}

int ic_count_parse(const char *text, uint64_t *out, char *why, unsigned why_len)
{
    double v;
    const char *p = parse_decimal(text, &v, why, why_len);
    if (!p)
        return IC_EINVAL;
    if (*p) {
        snprintf(why, why_len, "'%s' is not a plain count (no units or trailing text)",
                 text);
        return IC_EINVAL;
    }
    if (v >= 9223372036854775808.0) {
        snprintf(why, why_len, "'%s' is too large (at most 2^63)", text);
        return IC_EINVAL;
    }
    /* Plain digit strings are read exactly; doubles lose precision past 2^53. */
    const char *d = text;
    while (*d == ' ' || *d == '+')
        d++;
    if (strspn(d, "0123456789") == strlen(d)) {
        *out = strtoull(d, NULL, 10);
        return IC_OK;
    }
    if (v != floor(v)) {
        snprintf(why, why_len, "'%s' is not a whole number", text);
        return IC_EINVAL;
    }
    *out = (uint64_t)v;
    return IC_OK;
}

int ic_number_parse(const char *text, double *out, char *why, unsigned why_len)
{
    double v;
    const char *p = parse_decimal(text, &v, why, why_len);
    if (!p)
        return IC_EINVAL;
    if (*p) {
        snprintf(why, why_len, "'%s' is not a plain number", text);
        return IC_EINVAL;
    }
    *out = v;
    return IC_OK;
}

unsigned ic_text_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 255;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            unsigned best = diag + (same ? 0u : 1u);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb] > 255 ? 255 : row[lb];
}
