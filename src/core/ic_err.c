/* ic_err: filling and printing compiler-style error records. */
#include "ic_err.h"

#include <string.h>
#include <sys/stat.h>

int ic_err_set(struct ic_err *err, int code, const char *file, unsigned line,
               unsigned col, const char *fmt, ...)
{
    if (!err)
        return code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    err->hint[0] = '\0';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void ic_err_hint(struct ic_err *err, const char *fmt, ...)
{
    if (!err)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->hint, sizeof err->hint, fmt, ap);
    va_end(ap);
}

/* Copies line `line` (1-based) of `path` into buf; returns 0 when found.
 * Only a regular file, and only its first IC_INPUT_MAX_B bytes: a device
 * such as /dev/zero has no end and no lines, and a pipe was read already. */
static int source_line(const char *path, unsigned line, char *buf, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1; /* before opening: opening a FIFO waits for a writer */
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    unsigned at = 1;
    size_t len = 0, seen = 0;
    int c = 0, found = -1;
    while (seen++ < IC_INPUT_MAX_B && (c = fgetc(f)) != EOF) {
        if (at == line) {
            if (c == '\n' || c == '\r') {
                found = 0;
                break;
            }
            if (len + 1 < n)
                buf[len++] = (char)c;
        } else if (c == '\n' && ++at > line) {
            break;
        }
    }
    if (c == EOF && at == line)
        found = 0;
    buf[len] = '\0';
    fclose(f);
    return found;
}

void ic_err_print(FILE *out, const struct ic_err *err)
{
    if (err->file[0] && err->line)
        fprintf(out, "%s:%u:%u: error: %s\n", err->file, err->line, err->col,
                err->msg);
    else if (err->file[0])
        fprintf(out, "%s: error: %s\n", err->file, err->msg);
    else
        fprintf(out, "infcalc: error: %s\n", err->msg);
    char src[256];
    if (err->file[0] && err->line &&
        source_line(err->file, err->line, src, sizeof src) == 0) {
        /* Only printable text: a binary file must not garble the terminal. */
        int printable = 1;
        for (const char *p = src; *p; p++)
            if ((unsigned char)*p < 0x20 && *p != '\t')
                printable = 0;
        if (printable && src[0]) {
            fprintf(out, "  %s\n  ", src);
            for (unsigned i = 1; i < err->col && src[i - 1]; i++)
                fputc(src[i - 1] == '\t' ? '\t' : ' ', out);
            fputs("^\n", out);
        }
    }
    if (err->hint[0])
        fprintf(out, "  %s\n", err->hint);
}
