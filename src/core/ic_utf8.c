/* ic_utf8: UTF-8 sequences (ic_utf8.h). */
#include "ic_utf8.h"

#include <string.h>

size_t ic_utf8_seq(const unsigned char *s, size_t avail, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        n = 2, v = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        n = 3, v = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    if (n > avail)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return n;
}

size_t ic_utf8_cut(char *dst, size_t cap, const char *src, size_t len)
{
    size_t n = len < cap - 1 ? len : cap - 1;
    if (n < len) {
        /* back off a sequence the cut would split: its lead byte at most
         * 3 bytes before the cut, and a valid sequence from there that
         * runs past it (a stray continuation byte after a whole character
         * is broken already: the cut stays) */
        size_t k = n;
        while (k > 0 && n - k < 3 && ((unsigned char)src[k] & 0xc0) == 0x80)
            k--;
        uint32_t cp;
        size_t sl = ic_utf8_seq((const unsigned char *)src + k, len - k, &cp);
        if (k < n && sl && k + sl > n)
            n = k;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}
