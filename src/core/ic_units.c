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

int ic_dtype_torch(const char *name, enum ic_dtype *out)
{
    static const struct {
        const char *name;
        enum ic_dtype t;
    } map[] = {{"bfloat16", IC_DT_BF16}, {"float16", IC_DT_FP16}, {"float32", IC_DT_FP32},
               {"half", IC_DT_FP16}, {"float", IC_DT_FP32}, {"float8_e4m3fn", IC_DT_FP8}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i].name) == 0) {
            *out = map[i].t;
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
    {"PB/s", 1e15},     {"KiB/s", 1024.0},  {"MiB/s", 1048576.0},
    {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0},
    {"kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8}, {"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8},
    {"Pbit/s", 1e15 / 8},
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
    const char *sample; /* one value, unquoted: for a hint's "'key: VALUE'" */
} qty_table[IC_QTY_COUNT] = {
    [IC_QTY_BYTES] = {bytes_units, "a size", "'80 GB' or '16 GiB'", "80 GB"},
    [IC_QTY_BANDWIDTH] = {bw_units, "a bandwidth", "'3.35 TB/s' or '400 Gbit/s'", "3.35 TB/s"},
    [IC_QTY_RATE] = {rate_units, "a compute rate", "'989 TFLOP/s' or '394 TOP/s'",
                     "989 TFLOP/s"},
    [IC_QTY_TIME] = {time_units, "a time", "'1 us' or '5 ms'", "5 ms"},
};
_Static_assert(sizeof qty_table / sizeof qty_table[0] == IC_QTY_COUNT,
               "one row per quantity kind");

const char *ic_qty_name(enum ic_qty q) { return qty_table[q].name; }
const char *ic_qty_example(enum ic_qty q) { return qty_table[q].example; }
const char *ic_qty_sample(enum ic_qty q) { return qty_table[q].sample; }

/* Reads the plain decimal at the start of text (after spaces) and returns
 * its end, or NULL with a reason in why; what names the kind of number
 * for the reason ("a number", "a whole number"). The grammar is JSON's
 * number without its minus (RFC 8259 section 6), so that a YAML entry, a
 * JSON entry and an option read the same texts (docs/numbers.md):
 *
 *   int [ "." digit+ ] [ ("e" | "E") [ "+" | "-" ] digit+ ]
 *   int = "0" | digit1-9 digit*
 *
 * No sign ('-0' and '+8' included: nothing infcalc reads is negative, and
 * a plus is JSON's error), no leading zero ('010' is ten to strtod, eight
 * to a YAML 1.1 reader and an error to JSON), a digit on both sides of the
 * point ('.5' and '5.' are JSON's errors), no hex, inf or nan. An exponent
 * without digits ends the number before its 'e' (what follows is then
 * trailing text). */
static const char *parse_decimal(const char *text, const char *what, double *out, char *why,
                                 unsigned why_len)
{
    const char *p = text;
    while (*p == ' ')
        p++;
    /* hex first, sign or not: the most telling reason for '+0x4' */
    const char *h = p + (*p == '+' || *p == '-');
    if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
        snprintf(why, why_len, "'%s' is not %s (hexadecimal is not read)", text, what);
        return NULL;
    }
    if (*p == '-') {
        snprintf(why, why_len, "'%s' has a minus sign", text);
        return NULL;
    }
    if (*p == '+') {
        snprintf(why, why_len, "'%s' has a plus sign", text);
        return NULL;
    }
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        int n = 1 + (int)strspn(p + 1, "0123456789");
        snprintf(why, why_len, "'%s' has no digit before the point (write 0%.*s)", text, n, p);
        return NULL;
    }
    if (!isdigit((unsigned char)*p)) {
        snprintf(why, why_len, "'%s' is not %s", text, what);
        return NULL;
    }
    if (p[0] == '0' && isdigit((unsigned char)p[1])) {
        snprintf(why, why_len, "'%s' has a leading zero", text);
        return NULL;
    }
    const char *q = p + strspn(p, "0123456789");
    if (*q == '.') {
        if (!isdigit((unsigned char)q[1])) {
            int n = (int)(q - p);
            snprintf(why, why_len, "'%s' has no digit after the point (write %.*s or %.*s.0)",
                     text, n, p, n, p);
            return NULL;
        }
        q += 1 + strspn(q + 1, "0123456789");
    }
    if (*q == 'e' || *q == 'E') {
        const char *x = q + 1 + (q[1] == '+' || q[1] == '-');
        if (isdigit((unsigned char)*x))
            q = x + strspn(x, "0123456789");
    }
    /* [p, q) is a decimal strtod reads whole and no further: the grammar
     * above is a subset of its own */
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end != q) {
        snprintf(why, why_len, "'%s' is not %s", text, what);
        return NULL;
    }
    if (errno == ERANGE || !isfinite(v)) {
        snprintf(why, why_len, "'%s' is out of range", text);
        return NULL;
    }
    *out = v;
    return q;
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
    const char *p = parse_decimal(text, "a number", &v, why, why_len);
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

/* The whole number the plain decimal [p, q) stands for, exactly, in
 * integers (a double would round past 2^53): with D its digits (point
 * left out), F of them after the point and E its exponent, the value is
 * D x 10^(E - F); the zeros that end D move into the power. Returns 0
 * with *out, 1 when the value is not whole, 2 when it is 2^63 or more. */
static int exact_whole(const char *p, const char *q, uint64_t *out)
{
    const char *e = p + strcspn(p, "eE");
    if (e > q)
        e = q;
    long n_dig = 0, n_frac = 0, first = -1, last = -1, exp10 = 0;
    bool after = false;
    for (const char *c = p; c < e; c++) {
        if (*c == '.') {
            after = true;
            continue;
        }
        if (*c != '0') {
            if (first < 0)
                first = n_dig;
            last = n_dig;
        }
        n_dig++;
        n_frac += after;
    }
    if (e < q) {
        int sign = e[1] == '-' ? -1 : 1;
        for (const char *c = e + 1 + (e[1] == '+' || e[1] == '-'); c < q; c++)
            if (exp10 < 1000000) /* parse_decimal has refused what is beyond a double */
                exp10 = exp10 * 10 + (*c - '0');
        exp10 *= sign;
    }
    if (first < 0) {
        *out = 0;
        return 0;
    }
    /* D[first..last] x 10^shift, its last digit not 0 */
    long shift = exp10 - n_frac + (n_dig - 1 - last), n = last - first + 1;
    if (shift < 0)
        return 1;
    if (n + shift > 19) /* at least 10^19 */
        return 2;
    uint64_t v = 0;
    long k = 0;
    for (const char *c = p; c < e; c++)
        if (*c != '.' && k++ >= first && k - 1 <= last)
            v = v * 10 + (uint64_t)(*c - '0');
    for (long i = 0; i < shift; i++)
        v *= 10; /* below 10^19: no overflow */
    if (v >= UINT64_C(9223372036854775808))
        return 2;
    *out = v;
    return 0;
}

int ic_count_parse(const char *text, uint64_t *out, char *why, unsigned why_len)
{
    double v;
    const char *p = parse_decimal(text, "a whole number", &v, why, why_len);
    if (!p)
        return IC_EINVAL;
    if (*p) {
        snprintf(why, why_len, "'%s' is not a whole number", text);
        return IC_EINVAL;
    }
    /* '8.0', '1e3' and '70.6e9' are whole numbers, read exactly */
    const char *d = text + strspn(text, " ");
    uint64_t w;
    switch (exact_whole(d, p, &w)) {
    case 1:
        snprintf(why, why_len, "'%s' is not a whole number", text);
        return IC_EINVAL;
    case 2:
        snprintf(why, why_len, "'%s' is too large (2^63 or more)", text);
        return IC_EINVAL;
    }
    *out = w;
    return IC_OK;
}

int ic_number_parse(const char *text, double *out, char *why, unsigned why_len)
{
    double v;
    const char *p = parse_decimal(text, "a number", &v, why, why_len);
    if (!p)
        return IC_EINVAL;
    if (*p) {
        snprintf(why, why_len, "'%s' is not a number", text);
        return IC_EINVAL;
    }
    *out = v;
    return IC_OK;
}

unsigned ic_text_near_limit(size_t len) { return len < 6 ? 2 : (unsigned)(len / 3); }

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
