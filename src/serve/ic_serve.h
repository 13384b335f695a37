/* ic_serve: `infcalc serve`, the decode calculator in a browser.
 *
 * The request handler is a plain function from a path and its query
 * parameters to a response, so it is tested without a socket; the HTTP
 * server (libmicrohttpd, ic_serve_mhd.c) only moves bytes. Routes:
 *   /                   the page: selectors, sliders, two charts, a table
 *   /api/options        the databases' names (models, chips with their compute
 *                       types, storage types) as JSON
 *   /api/decode         one decode point: the JSON of `infcalc --format json`
 *   /chart/batch.png    the decode figure (step time against batch, Pareto
 *                       frontier) at the chosen context, the chosen point ringed
 *   /chart/context.png  step time against context at the chosen batch
 * The parameters are model, hw, chips, batch, context, weights, kv,
 * compute, estimate, engine and kv-placement, one value each: the decode
 * options of those
 * names, parsed into
 * the same typed options by the same table (ic_opt.h), so a value the
 * command line rejects is a 400 with the message it prints; then the
 * library computes the point (ic_decode) and writes its JSON (ic_report)
 * or its chart (ic_plot). Names only, never paths: the server reads nothing
 * outside the hwdb/, modeldb/ and enginedb/ of its databases (serve --db
 * DIR). A
 * request computes at most one sweep of a few dozen points. */
#ifndef IC_SERVE_H
#define IC_SERVE_H

#include "ic_db.h"

#include <stddef.h>
#include <stdio.h>

struct ic_param {
    const char *key, *value;
};

struct ic_serve_resp {
    unsigned status;     /* 200, 400, 404, 500 */
    const char *type;    /* content type */
    unsigned char *body; /* malloc'd; ic_serve_resp_free */
    size_t len;
};

/* a value: at most the longest name a database entry may have (a model's,
 * 95 characters: the page offers every entry /api/options lists) */
enum { IC_SERVE_MAX_PARAMS = 16, IC_SERVE_MAX_VALUE = 95 };

/* Answers a GET of path with n decoded query parameters. Returns 0, or
 * IC_ENOMEM when no response could be built at all. */
int ic_serve_handle(const struct ic_db *db, const char *path, const struct ic_param *params,
                    size_t n, struct ic_serve_resp *r);

void ic_serve_resp_free(struct ic_serve_resp *r);

/* The page (HTML with its script), served at /. */
extern const char ic_serve_page[];

/* The server's connection policy (ic_serve_mhd.c), so that slow or silent
 * sockets, however many, cannot keep a normal request out:
 *   IC_SERVE_HEADER_S    a request's headers must all arrive within this many
 *                        seconds of its first byte being awaited (the
 *                        connection's start, or the end of the previous
 *                        request on it), however steadily they trickle in;
 *                        past it the connection is closed
 *   IC_SERVE_IDLE_S      a connection silent this long is closed
 *   IC_SERVE_MAX_CONN    connections open at once (fewer where the file
 *                        limit, RLIMIT_NOFILE, is low); one event loop (epoll)
 *                        watches them all
 *   IC_SERVE_SPARE_CONN  once only this many are left, each new connection
 *                        closes the one that has waited longest for its
 *                        headers, so a new client always gets in
 *   IC_SERVE_CONN_MEM_B  memory per connection, which bounds a request's size
 *   IC_SERVE_CHART_CACHE the charts last drawn, kept by their address for
 *   IC_SERVE_CHART_TTL_S seconds: a chart takes 40-75 ms to draw, the rest
 *                        a fraction of one, and clients asking for the same
 *                        picture over and over draw it once (32 looping
 *                        clients held an /api/decode for 2.4 s; a thousand
 *                        leaving one unread kept the loop busy 25 s more)
 *   IC_SERVE_CHART_QUEUE charts waiting to be drawn: a thread of their own
 *                        draws them one at a time, the connection suspended
 *                        meanwhile, so that the loop answers every other
 *                        request (an /api/decode) while it draws; past this
 *                        many a chart request gets 503 with Retry-After
 * A request with a body (Content-Length above 0, or any Transfer-Encoding)
 * is answered 413 and the connection closed; the loop's thread answers one
 * request at a time, the drawing thread one chart. */
enum {
    IC_SERVE_CHART_CACHE = 16,
    IC_SERVE_CHART_TTL_S = 10,
    IC_SERVE_CHART_QUEUE = 32,
    IC_SERVE_HEADER_S = 10,
    IC_SERVE_IDLE_S = 10,
    IC_SERVE_MAX_CONN = 512,
    IC_SERVE_SPARE_CONN = 64,
    IC_SERVE_CONN_MEM_B = 32768,
};

/* Runs the HTTP server on bind:port (port 0: any free port) until SIGINT or
 * SIGTERM; prints the address it serves on `out`. Returns the exit status
 * (0, or 1 when the server cannot start, saying why on err). */
int ic_serve_run(const struct ic_db *db, const char *bind, unsigned port, FILE *out, FILE *err);

#endif
