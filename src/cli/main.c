/* infcalc: command-line entry point; everything else lives in the library. */
#include "ic_cli.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    /* GSL's default handler aborts; infcalc checks every status instead. */
    gsl_set_error_handler_off();
    int rc = ic_cli_run(argc, argv, stdout, stderr);
    if (fflush(stdout) != 0 && rc == 0)
        rc = 1;
    return rc;
}
