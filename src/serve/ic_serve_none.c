/* ic_serve_none: `infcalc serve` in a build without libmicrohttpd. */
#include "ic_serve.h"

int ic_serve_run(const struct ic_db *db, const char *bind, unsigned port, FILE *out, FILE *err)
{
    (void)db;
    (void)bind;
    (void)port;
    (void)out;
    fputs("infcalc: error: this build has no HTTP server: install libmicrohttpd-dev "
          "(scripts/install-deps.sh) and reconfigure with meson -Dserve=enabled\n",
          err);
    return 2;
}
