/* Fuzz harness: the unit and number parsers (ic_units). The input is split
 * at its first newline into a text to parse and a second text for the edit
 * distance. Oracles: every accepted quantity or number is finite and
 * non-negative; a count agrees with the same text read as a number; a
 * plain digit string is read exactly; a refusal says why; the edit distance
 * is a metric's zero and symmetric. Seeds: tests/fuzz/seeds/units. */
#include "fuzz_common.h"

#include "ic_units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static void check_why(int rc, const char *why, unsigned why_len, const char *what,
                      const char *text)
{
    if (rc != IC_OK && rc != IC_EINVAL)
        ic_fuzz_fail("%s('%s'): code %d", what, text, rc);
    if (rc && !why[0])
        ic_fuzz_fail("%s('%s'): refused without a reason", what, text);
    if (rc && strnlen(why, why_len) == why_len)
        ic_fuzz_fail("%s('%s'): the reason overran its %u bytes", what, text, why_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        ic_fuzz_fail("out of memory");
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *nl = memchr(buf, '\n', size);
    const char *other = "";
    if (nl) {
        *nl = '\0';
        other = nl + 1;
    }
    const char *text = buf;
    char why[256];
    /* a short reason buffer (room for one character or more) must
     * truncate, never overflow */
    unsigned why_len = size ? 2u + (unsigned)data[size - 1] % (unsigned)(sizeof why - 1)
                            : (unsigned)sizeof why;

    for (int q = 0; q < IC_QTY_COUNT; q++) {
        double v = -1;
        why[0] = '\0';
        int rc = ic_qty_parse(text, (enum ic_qty)q, &v, why, why_len);
        check_why(rc, why, why_len, "ic_qty_parse", text);
        if (rc == IC_OK && !(isfinite(v) && v >= 0))
            ic_fuzz_fail("ic_qty_parse('%s', %s) = %g", text, ic_qty_name((enum ic_qty)q), v);
    }
    double num = -1;
    why[0] = '\0';
    int nrc = ic_number_parse(text, &num, why, why_len);
    check_why(nrc, why, why_len, "ic_number_parse", text);
    if (nrc == IC_OK && !(isfinite(num) && num >= 0))
        ic_fuzz_fail("ic_number_parse('%s') = %g", text, num);
    uint64_t cnt = 0;
    why[0] = '\0';
    int crc = ic_count_parse(text, &cnt, why, why_len);
    check_why(crc, why, why_len, "ic_count_parse", text);
    if (crc == IC_OK) {
        if (cnt > (UINT64_C(1) << 63))
            ic_fuzz_fail("ic_count_parse('%s') = %llu, above 2^63", text,
                         (unsigned long long)cnt);
        if (nrc != IC_OK)
            ic_fuzz_fail("'%s' is a count but not a number", text);
        if (fabs((double)cnt - num) > 1e-15 * num)
            ic_fuzz_fail("'%s': count %llu, number %.17g", text, (unsigned long long)cnt, num);
        const char *d = text;
        while (*d == ' ' || *d == '+')
            d++;
        if (*d && strspn(d, "0123456789") == strlen(d) && strtoull(d, NULL, 10) != cnt)
            ic_fuzz_fail("'%s' read as %llu", text, (unsigned long long)cnt);
    }
    enum ic_dtype t;
    if (ic_dtype_parse(text, &t) == IC_OK && strcmp(ic_dtype_traits(t)->name, text) != 0)
        ic_fuzz_fail("'%s' parsed as dtype %s", text, ic_dtype_traits(t)->name);

    unsigned ab = ic_text_distance(text, other), ba = ic_text_distance(other, text);
    if (ab != ba)
        ic_fuzz_fail("distance('%s', '%s') = %u but the reverse is %u", text, other, ab, ba);
    if (ic_text_distance(text, text) != 0 && strlen(text) <= 63)
        ic_fuzz_fail("distance('%s', itself) is not 0", text);
    size_t la = strlen(text), lb = strlen(other);
    if (la <= 63 && lb <= 63 && ab > (la > lb ? la : lb))
        ic_fuzz_fail("distance('%s', '%s') = %u exceeds the longer length", text, other, ab);
    free(buf);
    return 0;
}
