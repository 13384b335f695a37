/* ic_db: finding hardware and models by name, alias or path.
 *
 * The databases are folders of YAML files (DATA/hwdb, DATA/modeldb,
 * DATA/enginedb). A name
 * is looked up as the file DATA/hwdb/NAME.yaml first, then by the name and
 * aliases of every file (case-insensitive); "-" (standard input), an
 * argument with a '/' or a .yaml/.yml/.json ending is a path. An unknown
 * name fails with the nearest known names as the hint. */
#ifndef IC_DB_H
#define IC_DB_H

#include "ic_err.h"
#include "ic_engine.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <stddef.h>

/* hwdb/ and modeldb/ must be there; enginedb/ (engine profiles) is looked
 * in only when an engine is asked for. */
enum ic_db_kind { IC_DB_HW, IC_DB_MODEL, IC_DB_ENGINE, IC_DB_KIND_COUNT };
enum { IC_DB_REQUIRED_KINDS = 2 }; /* the kinds before IC_DB_ENGINE */

struct ic_db {
    char root[512]; /* folder holding hwdb/ and modeldb/ */
};

/* The data folder: the first of
 *   1. root (the command line's --db DIR), when given;
 *   2. $INFCALC_DB, when set and not empty;
 *   3. ic_db_default_root():
 *      a. a program that runs from the build tree it was built in (its
 *         /proc/self/exe lies under the build folder meson was given):
 *         the source tree, so an uninstalled build reads the checkout;
 *      b. the data folder at the place relative to the program that the
 *         install layout gives (BINDIR/../share/infcalc for the default
 *         bindir and datadir), when it holds hwdb/ and modeldb/: an install
 *         under DESTDIR, or a prefix moved elsewhere, reads its own copy;
 *      c. the folder compiled in: -Ddata_dir, else PREFIX/DATADIR/infcalc.
 * Nothing falls through: the first that applies is used, and ic_db_init
 * fails when it has no hwdb/ or modeldb/ (the message names the folder and
 * where it came from). infcalc(1) lists the same order. */
int ic_db_init(struct ic_db *db, const char *root, struct ic_err *err);

/* Step 3 above into buf (cap bytes); returns buf. */
const char *ic_db_default_root(char *buf, size_t cap);

int ic_db_hw(const struct ic_db *db, const char *name, struct ic_hw *out, struct ic_err *err);
int ic_db_model(const struct ic_db *db, const char *name, struct ic_model *out,
                struct ic_err *err);
/* An engine profile of DATA/enginedb by name or alias ("vllm-0.19", "vllm"),
 * or a path, as for hardware. */
int ic_db_engine(const struct ic_db *db, const char *name, struct ic_engine *out,
                 struct ic_err *err);

/* Paths of every *.yaml file of a kind, sorted; *paths is a malloc'd array
 * of n malloc'd strings, freed with ic_db_paths_free. */
int ic_db_paths(const struct ic_db *db, enum ic_db_kind kind, char ***paths, size_t *n,
                struct ic_err *err);
void ic_db_paths_free(char **paths, size_t n);

/* Every file of a kind loaded, and no name or alias claimed by two of
 * them (case aside): IC_OK, a file's load error, or IC_EINVAL at the
 * later file's claim naming the earlier file. */
int ic_db_check_claims(const struct ic_db *db, enum ic_db_kind kind, struct ic_err *err);

#endif
