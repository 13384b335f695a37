/* ic_utf8: UTF-8 sequences, for readers that must refuse bytes that are
 * not UTF-8 and writers that must never emit them.
 *
 * Text that reaches JSON or CSV output comes from file contents (checked by
 * their readers) and from paths and names typed on the command line, which
 * nothing checks: a folder named with a byte 0xFF, or a long name cut at a
 * fixed size in the middle of a character. The writers pass every valid
 * sequence through and write U+FFFD for each byte that does not start one
 * (ic_utf8_seq); names cut to a buffer are cut at a character boundary
 * (ic_utf8_cut). */
#ifndef IC_UTF8_H
#define IC_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The replacement character U+FFFD as UTF-8. */
#define IC_UTF8_REPLACEMENT "\xef\xbf\xbd"

/* Length of the valid UTF-8 sequence at s (at most avail bytes; avail >= 1)
 * and its code point in *cp, or 0 when it is not one: a stray continuation
 * byte, a truncated or overlong sequence, a UTF-16 surrogate or a code point
 * past U+10FFFF. */
size_t ic_utf8_seq(const unsigned char *s, size_t avail, uint32_t *cp);

/* Copies src into dst (cap bytes, cap >= 1), cut where it must be at the
 * last whole character that fits, and NUL-terminates; returns the bytes
 * copied. A sequence that was already broken in src is copied as it is
 * (the writers replace it). */
size_t ic_utf8_cut(char *dst, size_t cap, const char *src, size_t len);

#endif
