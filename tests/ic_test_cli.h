/* Running infcalc's command line in-process, for the suites that link the
 * app library (cli, serving): both streams captured, the exit status
 * returned. */
#ifndef IC_TEST_CLI_H
#define IC_TEST_CLI_H

/* What the last ic_test_cli printed, NUL-terminated (truncated to fit). */
extern char ic_test_out[1 << 20], ic_test_err[1 << 16];

/* Runs `infcalc first ...` (a NULL-terminated argument list) through
 * ic_cli_run; returns its exit status. */
int ic_test_cli(const char *first, ...);

#endif
