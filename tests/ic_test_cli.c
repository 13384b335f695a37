/* Running infcalc's command line in-process (see ic_test_cli.h). */
#include "ic_test_cli.h"

#include "ic_cli.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>

char ic_test_out[1 << 20], ic_test_err[1 << 16];

int ic_test_cli(const char *first, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"infcalc";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    FILE *o = tmpfile(), *e = tmpfile();
    ck_assert(o && e);
    int rc = ic_cli_run(argc, argv, o, e);
    fflush(o);
    fflush(e);
    rewind(o);
    rewind(e);
    size_t no = fread(ic_test_out, 1, sizeof ic_test_out - 1, o);
    size_t ne = fread(ic_test_err, 1, sizeof ic_test_err - 1, e);
    ic_test_out[no] = '\0';
    ic_test_err[ne] = '\0';
    fclose(o);
    fclose(e);
    return rc;
}
