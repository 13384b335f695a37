/* ic_hwwrite: a struct ic_hw written as a hwdb YAML entry.
 *
 * The writer walks the loader's own schema (ic_hw_schema()): every key,
 * its kind, its unit and where it sits in struct ic_hw come from the table
 * ic_hw_load reads with, so a key added to the loader is written too, with
 * no second list to keep in step. `infcalc bench` writes its entries (CPU
 * and CUDA) through it.
 *
 * What is written: every required key; an optional one only when it holds
 * something (a non-zero number, a non-empty string, a list with entries, a
 * section with any such key), since 0 and "" mean "not given" in struct
 * ic_hw. Quantities are written in one unit per kind (B, GB/s, GFLOP/s, us;
 * 0 in the base unit: "0 B/s"), sizes in whole bytes, the rest with %.6g:
 * a value read back is the value written to six significant digits. Strings are written plain
 * where YAML reads them back unchanged, else double-quoted and escaped. */
#ifndef IC_HWWRITE_H
#define IC_HWWRITE_H

#include "ic_err.h"
#include "ic_hw.h"

#include <stdio.h>

/* Writes hw to f as a hwdb entry, after comment (lines of text, each
 * written after "# "; NULL or "" for none). IC_EINVAL (nothing useful
 * written) when a number is negative or not finite, naming its key;
 * IC_EIO when writing fails. */
int ic_hwwrite(FILE *f, const struct ic_hw *hw, const char *comment, struct ic_err *err);

/* The same into the file at path (created or truncated); IC_EIO names path
 * when it cannot be opened or written. */
int ic_hwwrite_file(const char *path, const struct ic_hw *hw, const char *comment,
                    struct ic_err *err);

#endif
