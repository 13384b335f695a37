/* ic_cli_published: the check-published command's work, given its typed
 * options (the command line and its option parsing are ic_cli's). */
#ifndef IC_CLI_PUBLISHED_H
#define IC_CLI_PUBLISHED_H

#include "ic_cli_int.h"
#include "ic_db.h"
#include "ic_report.h"

#include <stdio.h>

/* Reads the published-measurement CSV at csv ("-": standard input), predicts
 * every row with the entries of db, and writes the rows and the error
 * figures over the validation rows as fmt; with plot (may be NULL), the
 * predicted-against-measured chart of w x h pixels there (checked before any
 * work). Returns the exit status: 0, 2 for bad input (a row's position
 * named), 1 when out of memory or a write failed. */
int ic_cli_published_run(const char *csv, const struct ic_db *db, enum ic_format fmt,
                         const char *plot, int w, int h, FILE *out, FILE *errf);

#endif
