/* ic_out: an output file written whole or not at all.
 *
 * The bytes go to a temporary file beside the target (the same folder, so
 * the rename that replaces the target is atomic); the target is replaced
 * only when every write, the flush and the close succeeded. On any failure
 * the temporary file goes and an older file of that name is untouched, so
 * a full disk or a killed run never leaves half a chart, CSV or entry.
 * A target that exists and is not a regular file (a device such as
 * /dev/full or /dev/stdout, a FIFO) is written in place: it cannot be
 * replaced, and there is no partial file to leave. Every error names the
 * file and the operating system's reason. */
#ifndef IC_OUT_H
#define IC_OUT_H

#include "ic_err.h"

#include <stdbool.h>
#include <stdio.h>

struct ic_out {
    FILE *f;             /* write here */
    char path[4096];     /* the target */
    char tmp[4096 + 16]; /* the temporary file, "" when written in place */
    const char *what;    /* "the picture", "the CSV", ... for messages */
    int write_errno;     /* the first failed ic_out_write's errno */
};

/* Whether path can be written, checked before any work: its folder exists
 * and takes a new file (a file made for the check goes again), or it is an
 * existing file or device open for writing. IC_EIO naming the reason. */
int ic_out_check(const char *path, const char *what, struct ic_err *err);

/* Starts writing path. IC_EIO naming the reason. */
int ic_out_open(struct ic_out *o, const char *path, const char *what, struct ic_err *err);

/* Writes n bytes (for writers that go through a callback, such as cairo's
 * streams); false when they could not all be written, the OS's reason kept
 * for ic_out_close. Writers may also use o->f directly. */
bool ic_out_write(struct ic_out *o, const void *data, size_t n);

/* Finishes: flushes, closes and renames into place; on a failure (or when
 * failed is true: the writer gave up) removes the temporary file. Returns
 * IC_OK or IC_EIO naming the reason (an error already in err is kept when
 * failed is true). */
int ic_out_close(struct ic_out *o, bool failed, struct ic_err *err);

#endif
