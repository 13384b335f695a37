/* Fuzz harness: `infcalc serve`, in two ways chosen by the input's first
 * line.
 *
 * The request handler (ic_serve_handle): the first line is the path, each
 * further line one decoded query parameter, "key=value" ("key" alone: a
 * parameter without a value, as libmicrohttpd gives "?key"). Oracles: the
 * status is 404 exactly for a path that is not a route; 200 on the page is
 * the page; 200 on /api/decode and /api/options is JSON the strict reader
 * (ic_json) takes, and /api/decode's is byte for byte what `infcalc decode
 * --format json` prints for the same options (ic_cli_run, which must exit
 * 0); 200 on a chart is a PNG; every 400 body starts "infcalc: error: " and,
 * unless it is a refusal only the server makes (a list, a path, a value
 * over 95 characters, an unknown or a 17th parameter), the command line
 * refuses the same options; no 500 (the databases are
 * fine and memory does not run out here).
 *
 * The HTTP server (ic_serve_mhd.c, with libmicrohttpd): a first line with a
 * space in it ("GET /api/decode?model=.. HTTP/1.1") makes the whole input
 * the bytes a client sends on one connection, handed to a libmicrohttpd
 * daemon with the server's own callbacks (the file is included here: they
 * are static) over a socketpair; the harness reads until the server closes
 * the connection. Oracles: the first response starts with an HTTP/1.x
 * status line; it is a 413 only for a request that announces a body, a 405
 * only for one whose method is neither GET nor HEAD; the connection list is empty once
 * the connection is closed; no hang (libFuzzer -timeout), no leak.
 *
 * Seeds: tests/fuzz/seeds/http; dictionary: http.dict. */
#include "fuzz_common.h"

#include "ic_cli.h"
#include "ic_json.h"
#include "ic_serve.h"

#include <gsl/gsl_errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef IC_FUZZ_MHD
#include "../../src/serve/ic_serve_mhd.c"
#endif

static struct ic_db db;

enum { MAX_PARAMS = 24, MAX_INPUT = 16384 };

static const char *const routes[] = {"/", "/index.html", "/api/options", "/api/decode",
                                     "/chart/batch.png", "/chart/context.png"};

#ifdef IC_FUZZ_MHD
static struct MHD_Daemon *mhd;
static struct server srv;
static FILE *null_out;
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct ic_err e = {0};
    if (ic_db_init(&db, IC_SRC_DIR, &e))
        ic_fuzz_fail("databases at %s: %s", IC_SRC_DIR, e.msg);
    setenv("INFCALC_DB", IC_SRC_DIR, 1);
    gsl_set_error_handler_off();
#ifdef IC_FUZZ_MHD
    null_out = fopen("/dev/null", "w");
    if (!null_out)
        ic_fuzz_fail("cannot open /dev/null");
    /* ic_serve_run's daemon without its listening socket: connections come
     * from MHD_add_connection; the loop is the harness's */
    srv = (struct server){.db = &db, .err = null_out, .keep_at = 8};
    mhd = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL, answer,
        &srv, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, &srv, MHD_OPTION_CONNECTION_LIMIT, 16u,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IC_SERVE_IDLE_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)IC_SERVE_CONN_MEM_B,
        MHD_OPTION_NOTIFY_CONNECTION, notify_conn, &srv, MHD_OPTION_NOTIFY_COMPLETED,
        request_done, &srv, MHD_OPTION_END);
    if (!mhd)
        ic_fuzz_fail("cannot start a libmicrohttpd daemon");
#endif
    return 0;
}

static bool starts(const unsigned char *b, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && memcmp(b, s, k) == 0;
}

static void check_json(const struct ic_serve_resp *r, const char *what)
{
    yaml_document_t doc;
    struct ic_err e = {0};
    if (ic_json_parse((const char *)r->body, r->len, what, 64, &doc, &e))
        ic_fuzz_fail("%s: the 200 body is not JSON: %u:%u: %s", what, e.line, e.col, e.msg);
    if (!yaml_document_get_root_node(&doc))
        ic_fuzz_fail("%s: an empty 200 body", what);
    yaml_document_delete(&doc);
}

/* The same options on the command line: exit 0 and the same JSON for a
 * 200 of /api/decode (want_json), exit 2 for a 400. */
static void check_cli(const struct ic_param *p, size_t n, const struct ic_serve_resp *r,
                      bool want_json)
{
    char *argv[2 * MAX_PARAMS + 4];
    static char prog[] = "infcalc", cmd[] = "decode", fmt[] = "--format=json";
    int argc = 0;
    argv[argc++] = prog;
    argv[argc++] = cmd;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(p[i].key) + (p[i].value ? strlen(p[i].value) : 0) + 4;
        if (!(argv[argc] = malloc(l)))
            ic_fuzz_fail("out of memory");
        if (p[i].value)
            snprintf(argv[argc], l, "--%s=%s", p[i].key, p[i].value);
        else
            snprintf(argv[argc], l, "--%s", p[i].key);
        argc++;
    }
    argv[argc++] = fmt;
    argv[argc] = NULL;
    char *ob = NULL, *eb = NULL;
    size_t ol = 0, el = 0;
    FILE *o = open_memstream(&ob, &ol), *e = open_memstream(&eb, &el);
    if (!o || !e)
        ic_fuzz_fail("open_memstream failed");
    int rc = ic_cli_run(argc, argv, o, e);
    fclose(o);
    fclose(e);
    if (want_json) {
        if (rc != 0)
            ic_fuzz_fail("/api/decode gave 200, the command line exits %d: %s", rc, eb);
        if (ol != r->len || memcmp(ob, r->body, ol) != 0)
            ic_fuzz_fail("/api/decode's JSON (%zu bytes) is not the command line's (%zu)",
                         r->len, ol);
    } else if (rc == 0) {
        ic_fuzz_fail("a 400 (%.*s) the command line accepts", (int)r->len, (const char *)r->body);
    }
    free(ob);
    free(eb);
    for (int i = 2; i < argc - 1; i++)
        free(argv[i]);
}

/* A 400 for what only the server refuses (a list, a path, a long value,
 * too many or unknown parameters): the command line takes those. */
static bool serve_only(const struct ic_serve_resp *r)
{
    static const char *const why[] = {"unknown parameter", "the value is longer than",
                                      "one value, not a list", "is not a database name",
                                      "parameters; at most"};
    char head[400];
    snprintf(head, sizeof head, "%.*s", (int)(r->len < 399 ? r->len : 399), (const char *)r->body);
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (strstr(head, why[i]))
            return true;
    return false;
}

static void handler(char *text)
{
    struct ic_param p[MAX_PARAMS];
    size_t n = 0;
    char *path = text, *line = strchr(text, '\n');
    if (line)
        *line++ = '\0';
    while (line && n < MAX_PARAMS) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (eq)
            *eq = '\0';
        p[n++] = (struct ic_param){line, eq ? eq + 1 : NULL};
        line = next;
    }
    struct ic_serve_resp r;
    if (ic_serve_handle(&db, path, p, n, &r))
        ic_fuzz_fail("%s: no response at all", path);
    int route = -1;
    for (int i = 0; i < (int)(sizeof routes / sizeof routes[0]); i++)
        if (strcmp(path, routes[i]) == 0)
            route = i;
    if (!r.type || (r.len && !r.body))
        ic_fuzz_fail("%s: status %u without a type or a body", path, r.status);
    if ((route < 0) != (r.status == 404))
        ic_fuzz_fail("%s: status %u", path, r.status);
    switch (r.status) {
    case 404:
        break;
    case 200:
        if (route <= 1 && (r.len != strlen(ic_serve_page) || memcmp(r.body, ic_serve_page, r.len)))
            ic_fuzz_fail("%s: 200 but not the page", path);
        if (route == 2)
            check_json(&r, path);
        if (route == 3) {
            check_json(&r, path);
            check_cli(p, n, &r, true);
        }
        if (route >= 4 && !starts(r.body, r.len, "\x89PNG\r\n\x1a\n"))
            ic_fuzz_fail("%s: 200 but not a PNG", path);
        break;
    case 400:
        if (route < 3)
            ic_fuzz_fail("%s: 400 on a route without parameters", path);
        if (!starts(r.body, r.len, "infcalc: error: "))
            ic_fuzz_fail("%s: a 400 body that is not an error message: %.*s", path,
                         (int)(r.len > 200 ? 200 : r.len), (const char *)r.body);
        if (!serve_only(&r))
            check_cli(p, n, &r, false);
        break;
    default:
        ic_fuzz_fail("%s: status %u: %.*s", path, r.status, (int)(r.len > 200 ? 200 : r.len),
                     (const char *)r.body);
    }
    ic_serve_resp_free(&r);
}

#ifdef IC_FUZZ_MHD
#include <ctype.h>
#include <fcntl.h>
#include <strings.h>

static bool has_ci(const uint8_t *d, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k && tolower(d[i + j]) == s[j])
            j++;
        if (j == k)
            return true;
    }
    return false;
}

/* The first response (later ones answer pipelined requests the harness
 * does not parse: a HEAD's has no body, so lengths cannot split them). */
static void check_responses(const uint8_t *req, size_t rn, const char *b, size_t n)
{
    unsigned st;
    char sp;
    if (!n)
        return; /* closed without a word: libmicrohttpd on some malformed requests */
    if (n < 13 || (memcmp(b, "HTTP/1.1 ", 9) && memcmp(b, "HTTP/1.0 ", 9)) ||
        sscanf(b + 9, "%3u%c", &st, &sp) != 2 || sp != ' ')
        ic_fuzz_fail("raw: a response without a status line: %.40s", b);
    if (st == 413 && !has_ci(req, rn, "content-length") && !has_ci(req, rn, "transfer-encoding"))
        ic_fuzz_fail("raw: 413 for a request without a body");
    if (st == 405 && (starts(req, rn, "GET ") || starts(req, rn, "HEAD ")))
        ic_fuzz_fail("raw: 405 for a GET or HEAD");
}

static void raw(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        ic_fuzz_fail("socketpair failed");
    struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(40000),
                               .sin_addr.s_addr = htonl(0x7f000001)};
    if (MHD_add_connection(mhd, sv[0], (struct sockaddr *)&peer, sizeof peer) != MHD_YES)
        ic_fuzz_fail("MHD_add_connection failed");
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    size_t sent = 0, got = 0, cap = 1 << 16;
    char *resp = malloc(cap);
    if (!resp)
        ic_fuzz_fail("out of memory");
    bool closed = false;
    int idle = 0;
    for (int round = 0; round < 4000 && !closed && idle < 3; round++) {
        bool moved = false;
        if (sent < size) {
            ssize_t k = write(sv[1], data + sent, size - sent);
            if (k > 0)
                sent += (size_t)k, moved = true;
            if (sent == size)
                shutdown(sv[1], SHUT_WR); /* the client has said everything */
        }
        MHD_run(mhd);
        for (;;) {
            if (got + 1 >= cap && !(resp = realloc(resp, cap *= 2)))
                ic_fuzz_fail("out of memory");
            ssize_t k = read(sv[1], resp + got, cap - got - 1); /* room for a NUL */
            if (k > 0) {
                got += (size_t)k, moved = true;
                continue;
            }
            if (k == 0)
                closed = true;
            break;
        }
        if (!moved && !closed) {
            /* everything sent, nothing to read, nothing for the server to
             * do now: it waits for the rest of a request the client will
             * never send (libmicrohttpd keeps a half-closed connection
             * whose headers are not complete until its timeout) */
            const union MHD_DaemonInfo *ei = MHD_get_daemon_info(mhd, MHD_DAEMON_INFO_EPOLL_FD);
            struct pollfd pf[2] = {{ei ? ei->epoll_fd : -1, POLLIN, 0}, {sv[1], POLLIN, 0}};
            MHD_UNSIGNED_LONG_LONG ms = 1;
            bool due = MHD_get_timeout(mhd, &ms) == MHD_YES && ms == 0;
            if (poll(pf, 2, sent == size ? 0 : 2) == 0 && sent == size && !due)
                idle++;
        } else {
            idle = 0;
        }
    }
    /* a connection the server keeps open (it still waits for the rest of
     * the request) is closed by the client */
    close(sv[1]);
    for (int i = 0; i < 1000 && srv.head; i++) {
        MHD_run(mhd);
        if (srv.head)
            nanosleep(&(struct timespec){0, 100000}, NULL);
    }
    if (srv.head)
        ic_fuzz_fail("raw: the connection is still in the server's list after it closed");
    if (srv.kept)
        ic_fuzz_fail("raw: %u connections counted after the last one closed", srv.kept);
    resp[got] = '\0'; /* sscanf reads a C string */
    if (getenv("IC_FUZZ_HTTP_SHOW")) /* what the server answered, to look at */
        fprintf(stderr, "%.*s\n-- %zu bytes\n", (int)(got > 2000 ? 2000 : got), resp, got);
    check_responses(data, size, resp, got);
    free(resp);
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > MAX_INPUT)
        return 0;
    size_t first = 0;
    while (first < size && data[first] != '\n')
        first++;
    if (memchr(data, ' ', first)) {
#ifdef IC_FUZZ_MHD
        raw(data, size);
#endif
        return 0;
    }
    /* the handler takes C strings: a NUL ends the input */
    char *text = malloc(size + 1);
    if (!text)
        ic_fuzz_fail("out of memory");
    memcpy(text, data, size);
    text[size] = '\0';
    handler(text);
    free(text);
    return 0;
}
