/* ic_cli: the command line, as a library function so tests drive it in
 * process with their own streams. main() only calls ic_cli_run and exits
 * with its status: 0 success, 2 bad usage or input (with a message naming
 * the option, or file:line:column), 1 an internal or I/O failure. */
#ifndef IC_CLI_H
#define IC_CLI_H

#include <stdio.h>

int ic_cli_run(int argc, char **argv, FILE *out, FILE *err);

#endif
