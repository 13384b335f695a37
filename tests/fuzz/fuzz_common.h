/* Shared pieces of the fuzz harnesses (tests/fuzz/): the libFuzzer entry
 * points every harness defines, a scratch file to hand the loaders (they
 * read paths, as the CLI does), and the oracles that turn a wrong answer
 * into a crash the fuzzer can report: a loader error must name the file and
 * a line:column, and a loaded record must give finite, non-negative decode
 * points (or a stated refusal), never a NaN. */
#ifndef IC_FUZZ_COMMON_H
#define IC_FUZZ_COMMON_H

#include "ic_err.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's interface; driver.c calls them when built without libFuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints what went wrong and aborts (a crash, for the fuzzer). */
void ic_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Writes data to <scratch folder>/name and returns the path (static
 * storage, valid until the next call with the same name). */
const char *ic_fuzz_write(const char *name, const uint8_t *data, size_t size);

/* Checks a loader's failure: code IC_EINVAL with the path as the file, a
 * line and a column, and a message; then prints it (caret and all) to
 * /dev/null, which reads the file back. */
void ic_fuzz_check_error(int rc, const struct ic_err *e, const char *path);

/* Evaluates a few decode points and one batch sweep of m on hw and checks
 * every figure finite and non-negative; the only refusal allowed is more
 * chips than a fabric without scale-out reaches. Writes the points as JSON
 * and as a table to /dev/null. */
void ic_fuzz_check_decode(const struct ic_model_stats *m, const struct ic_hw *hw);

/* Loads a database entry of the source tree by file name, or aborts. */
void ic_fuzz_load_hw(const char *file, struct ic_hw *out);
void ic_fuzz_load_model(const char *file, struct ic_model *out, struct ic_model_stats *st);

#endif
