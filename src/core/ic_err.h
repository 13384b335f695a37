/* ic_err: the small error record every library function fills on failure.
 *
 * Library code never prints and never exits: it returns a negative
 * IC_E* code and describes the problem here, with the file, line and column
 * of the offending input when there is one, so main() can print a
 * compiler-style message that editors jump to. */
#ifndef IC_ERR_H
#define IC_ERR_H

#include <stdarg.h>
#include <stdio.h>

enum {
    IC_OK = 0,
    IC_EINVAL = -1, /* bad input: a file, a value or an option */
    IC_ENOENT = -2, /* a name or a file that does not exist */
    IC_ENOMEM = -3, /* allocation failed */
    IC_EIO = -4,    /* reading or writing failed */
};

/* The most bytes an input file may have: the readers stop there, and so
 * does the error printer looking for the offending line. */
enum { IC_INPUT_MAX_B = 4 << 20 };

struct ic_err {
    char file[512]; /* path of the input at fault, "" when none */
    unsigned line;  /* 1-based line, 0 when unknown */
    unsigned col;   /* 1-based column, 0 when unknown */
    char msg[1024]; /* what is wrong and what was expected */
    char hint[1024]; /* optional: "did you mean ...", the names read, and the like */
};

/* Fills err (when not NULL) with a message and location and returns code.
 * file may be NULL; line/col 0 mean unknown. */
int ic_err_set(struct ic_err *err, int code, const char *file, unsigned line,
               unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Sets the hint line of an already filled error. */
void ic_err_hint(struct ic_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "file:line:col: error: msg", then, when the file is a regular file
 * that can be read (not a pipe or a device, which cannot be read again), the
 * offending source line and a caret under the column, then the hint. Reads at
 * most IC_INPUT_MAX_B bytes of the file. */
void ic_err_print(FILE *out, const struct ic_err *err);

#endif
