/* ic_serve_mhd: the HTTP side of `infcalc serve`, on libmicrohttpd.
 *
 * One internal polling thread answers every request in turn (the handler is
 * not re-entrant and a request's work is bounded), connections are limited
 * in number, per address, in memory (which bounds the request size) and in
 * idle time; only GET and HEAD without a body are answered. */
#include "ic_serve.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct params {
    struct ic_param p[IC_SERVE_MAX_PARAMS + 1];
    size_t n;
};

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               const char *value)
{
    (void)kind;
    struct params *ps = cls;
    if (ps->n < IC_SERVE_MAX_PARAMS + 1) /* one past the limit: the handler says so */
        ps->p[ps->n++] = (struct ic_param){key, value ? value : ""};
    return MHD_YES;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    (void)upload;
    const struct ic_db *db = cls;
    static int first_call;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return send_text(c, 405, "infcalc: error: only GET is served\n");
    if (*state == NULL) { /* headers only so far: wait for any body */
        *state = &first_call;
        return MHD_YES;
    }
    if (*upload_size) {
        *upload_size = 0;
        return send_text(c, 413, "infcalc: error: requests carry no body\n");
    }
    struct params ps = {.n = 0};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect, &ps);
    struct ic_serve_resp r;
    if (ic_serve_handle(db, url, ps.p, ps.n, &r))
        return send_text(c, 500, "infcalc: error: out of memory\n");
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r.len, r.body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        ic_serve_resp_free(&r);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", r.type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, r.status, resp);
    MHD_destroy_response(resp);
    return ok;
}

int ic_serve_run(const struct ic_db *db, const char *bind, unsigned port, FILE *out, FILE *err)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1) {
        fprintf(err, "infcalc: error: --bind: '%s' is not an IPv4 address (e.g. 127.0.0.1)\n",
                bind);
        return 2;
    }
    bool loopback = (ntohl(addr.sin_addr.s_addr) >> 24) == 127;
    if (!loopback)
        fprintf(err, "infcalc: warning: serving on %s: reachable from other machines\n", bind);
    /* SIGINT and SIGTERM are waited for below; the server thread must not
     * take them, so they are blocked before it starts */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, answer,
        (void *)db, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)32, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)15,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768, MHD_OPTION_END);
    if (!d) {
        fprintf(err, "infcalc: error: cannot serve on %s:%u (the port in use, or not allowed?)\n",
                bind, port);
        pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
        return 1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned bound = info ? info->port : port;
    fprintf(out, "infcalc: serving http://%s:%u/ (Ctrl-C stops)\n", bind, bound);
    fflush(out);
    int sig = 0;
    sigwait(&sigs, &sig);
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
    fprintf(out, "infcalc: stopped\n");
    return 0;
}
