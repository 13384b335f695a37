/* ic_serve_mhd: the HTTP side of `infcalc serve`, on libmicrohttpd.
 *
 * One thread polls libmicrohttpd's epoll set, a signalfd for SIGINT /
 * SIGTERM and the drawing thread's eventfd, and answers each request in
 * turn (a request's work is bounded); a chart not drawn a moment ago goes
 * to a second thread that draws one at a time, its connection suspended
 * meanwhile and resumed by the loop when the picture is ready, so that a
 * client asking for ever new charts delays no other request. Being event
 * driven, the loop holds hundreds of slow or silent connections at no cost
 * to the others; the policy that keeps them from filling it (ic_serve.h) is:
 *   - a total deadline for a request's headers, not only an idle timeout: a
 *     client sending a byte a second is closed at IC_SERVE_HEADER_S; the
 *     loop wakes at least once a second while any connection waits for
 *     headers, and closes the late ones by shutdown(2) on their socket
 *     (libmicrohttpd then reads the end of stream and frees the connection:
 *     it has no call to close one from outside);
 *   - no limit per address (the client that must get in is on the same
 *     loopback address as the ones that would keep it out), but a total
 *     limit with room kept spare: near the limit each new connection closes
 *     the one that has waited longest for its headers;
 *   - a request with a body is answered 413 as soon as its headers are in,
 *     and libmicrohttpd closes the connection after the reply; only GET and
 *     HEAD are served.
 * libmicrohttpd's own messages are printed at most one a second.
 * Connections are tracked in a list of our own, filled and emptied by
 * libmicrohttpd's connection notifications (called in this same thread, and
 * before it closes a socket, so a socket in the list is always open). */
#include "ic_serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* One open connection. */
struct conn {
    struct conn *prev, *next; /* in opening order */
    int fd;
    double wait_s;            /* when it began waiting for headers (monotonic) */
    bool in_headers;          /* waiting for a request's headers */
    bool cut;                 /* shut down by us; libmicrohttpd will free it */
    bool nul;                 /* this request's address (path or query) holds %00 */
};

struct server {
    const struct ic_db *db;
    FILE *err;
    double logged_s;   /* when libmicrohttpd's last message was printed */
    unsigned unlogged; /* its messages left out since */
    struct conn *head, *tail; /* every open connection */
    unsigned kept;    /* of them, not cut */
    unsigned keep_at; /* most kept before the oldest waiting one is cut */
};

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void cut(struct server *s, struct conn *k)
{
    shutdown(k->fd, SHUT_RDWR);
    k->cut = true;
    s->kept--;
}

/* Closes the connection that has waited longest for its headers; false when
 * none is waiting. */
static bool cut_oldest(struct server *s)
{
    struct conn *old = NULL;
    for (struct conn *k = s->head; k; k = k->next)
        if (k->in_headers && !k->cut && (!old || k->wait_s < old->wait_s))
            old = k;
    if (old)
        cut(s, old);
    return old != NULL;
}

/* Closes the connections past the header deadline; returns how many still
 * wait for headers. */
static unsigned cut_late(struct server *s, double now_s)
{
    unsigned waiting = 0;
    for (struct conn *k = s->head; k; k = k->next) {
        if (!k->in_headers || k->cut)
            continue;
        if (now_s - k->wait_s >= IC_SERVE_HEADER_S)
            cut(s, k);
        else
            waiting++;
    }
    return waiting;
}

/* libmicrohttpd's messages (a connection cut, the limit reached), at most
 * one a second: slow or hostile clients must not flood the terminal. */
static void log_mhd(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void log_mhd(void *cls, const char *fmt, va_list ap)
{
    struct server *s = cls;
    double now_s = mono_s();
    if (s->logged_s > 0 && now_s - s->logged_s < 1.0) {
        s->unlogged++;
        return;
    }
    if (s->unlogged)
        fprintf(s->err, "infcalc: serve: (%u messages left out)\n", s->unlogged);
    fputs("infcalc: serve: ", s->err);
    vfprintf(s->err, fmt, ap);
    s->logged_s = now_s;
    s->unlogged = 0;
}

static void notify_conn(void *cls, struct MHD_Connection *c, void **ctx,
                        enum MHD_ConnectionNotificationCode code)
{
    struct server *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *fi =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn *k = calloc(1, sizeof *k);
        if (!k || !fi) {
            /* untracked, it still has the idle timeout; cut it rather than
             * let it outlive the deadline */
            free(k);
            if (fi)
                shutdown(fi->connect_fd, SHUT_RDWR);
            *ctx = NULL;
            return;
        }
        k->fd = fi->connect_fd;
        k->wait_s = mono_s();
        k->in_headers = true;
        k->prev = s->tail;
        if (s->tail)
            s->tail->next = k;
        else
            s->head = k;
        s->tail = k;
        s->kept++;
        *ctx = k;
        while (s->kept > s->keep_at && cut_oldest(s))
            ;
        return;
    }
    struct conn *k = *ctx; /* MHD_CONNECTION_NOTIFY_CLOSED */
    if (!k)
        return;
    if (k->prev)
        k->prev->next = k->next;
    else
        s->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        s->tail = k->prev;
    if (!k->cut)
        s->kept--;
    free(k);
    *ctx = NULL;
}

static struct conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return i ? i->socket_context : NULL;
}

/* libmicrohttpd's own unescaping of the path and each query name and
 * value, noting a %00 first: the path's NUL would end its C string unseen
 * ("/api/decode%00x" answered as /api/decode). A '%' followed by "00" is
 * always that escape: no hex digit is a '%'. */
static size_t unescape(void *cls, struct MHD_Connection *c, char *text)
{
    (void)cls;
    struct conn *k;
    if (strstr(text, "%00") && (k = conn_of(c)))
        k->nul = true;
    return MHD_http_unescape(text);
}

/* The path of a request-target in absolute form ("http://host:port/api/
 * decode", which a server must accept, RFC 9112 3.2.2): what follows the
 * authority ("/" where nothing does); any other target as it is. */
static const char *origin_path(const char *url)
{
    const size_t n = strncasecmp(url, "http://", 7) == 0    ? 7
                     : strncasecmp(url, "https://", 8) == 0 ? 8
                                                            : 0;
    if (!n)
        return url;
    const char *p = strchr(url + n, '/');
    return p ? p : "/";
}

struct params {
    struct ic_param p[IC_SERVE_MAX_PARAMS + 1];
    size_t n;
    bool nul; /* a name or value holds a NUL byte (%00) */
};

/* With their lengths: %00 decodes to a NUL that the C string would end at
 * ("model=llama3-8b%00x" read as llama3-8b). */
static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key,
                               size_t key_size, const char *value, size_t value_size)
{
    (void)kind;
    struct params *ps = cls;
    if (strlen(key) != key_size || (value && strlen(value) != value_size))
        ps->nul = true;
    if (ps->n < IC_SERVE_MAX_PARAMS + 1) /* one past the limit: the handler says so */
        ps->p[ps->n++] = (struct ic_param){key, value ? value : ""};
    return MHD_YES;
}

/* A plain-text answer of static text, with one more header where name is
 * not NULL (Allow for a 405, Retry-After for a 503). */
static enum MHD_Result send_text_with(struct MHD_Connection *c, unsigned status,
                                      const char *text, const char *name, const char *value)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
    if (name)
        MHD_add_response_header(r, name, value);
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_text(struct MHD_Connection *c, unsigned status, const char *text)
{
    return send_text_with(c, status, text, NULL, NULL);
}

/* Counts the request's headers named as *cls's key (case-insensitive). */
struct header_count {
    const char *key;
    int n;
};

static enum MHD_Result count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                    const char *value)
{
    (void)kind;
    (void)value;
    struct header_count *h = cls;
    h->n += strcasecmp(key, h->key) == 0;
    return MHD_YES;
}

static int headers_named(struct MHD_Connection *c, const char *key)
{
    struct header_count h = {key, 0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_header, &h);
    return h.n;
}

/* Whether the request's headers announce a body: a Content-Length other than
 * 0, or any Transfer-Encoding (chunked). */
static bool has_body(struct MHD_Connection *c)
{
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    const char *te = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
    return te || (len && strspn(len, "0") != strlen(len));
}

/* The last IC_SERVE_CHART_CACHE charts drawn, by their address (path and
 * parameters as sent), for IC_SERVE_CHART_TTL_S seconds: a chart takes
 * 40-75 ms of the thread that draws, and clients asking for the same
 * picture in a loop (32 of them held an /api/decode for 2.4 s when the
 * loop drew them) or leaving it unread by the hundred draw it once. Read
 * and written by both threads, under the drawer's lock. */
static struct chart_entry {
    char key[IC_SERVE_MAX_PARAMS * 2 * (IC_SERVE_MAX_VALUE + 2) + 64];
    unsigned char *png;
    size_t len;
    double at_s;
} chart_cache[IC_SERVE_CHART_CACHE];
static unsigned chart_next;

/* The cache's key for url and ps into key; false where it does not fit
 * (such a request is drawn, not cached). */
static bool chart_key(const char *url, const struct params *ps, char *key, size_t n)
{
    size_t k = (size_t)snprintf(key, n, "%s", url);
    for (size_t i = 0; i < ps->n && k < n; i++)
        k += (size_t)snprintf(key + k, n - k, "%c%s=%s", i ? '&' : '?', ps->p[i].key,
                              ps->p[i].value ? ps->p[i].value : "");
    return k < n;
}

static struct chart_entry *chart_find(const char *key, double t)
{
    for (unsigned i = 0; i < IC_SERVE_CHART_CACHE; i++)
        if (chart_cache[i].png && t - chart_cache[i].at_s < IC_SERVE_CHART_TTL_S &&
            strcmp(chart_cache[i].key, key) == 0)
            return &chart_cache[i];
    return NULL;
}

static void chart_keep(const char *key, const unsigned char *png, size_t len, double t)
{
    unsigned char *copy = malloc(len);
    if (!copy)
        return; /* not kept: the next one is drawn again */
    memcpy(copy, png, len);
    struct chart_entry *e = &chart_cache[chart_next++ % IC_SERVE_CHART_CACHE];
    free(e->png);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->png = copy;
    e->len = len;
    e->at_s = t;
}

/* A chart to draw: its request's path and parameters copied (the
 * connection's own are not to be read once it is suspended), its cache
 * key, and its answer once drawn. */
struct job {
    struct job *next;
    struct MHD_Connection *c;
    struct ic_param p[IC_SERVE_MAX_PARAMS + 1];
    size_t n;
    char *url;              /* in text */
    bool keyed;             /* key holds the chart's address (else not kept) */
    char key[sizeof chart_cache[0].key];
    struct ic_serve_resp r; /* the answer, once done */
    bool oom;               /* no answer could be built */
    bool hit;               /* found kept when its turn came */
    double age_s;           /* then: how long ago it was drawn */
    char text[];            /* the path's and parameters' strings */
};

/* The drawing thread and what it shares with the loop, under mu: the
 * charts waiting (queued of them, in arrival order), those drawn whose
 * connections the loop has yet to resume, and the chart cache. */
static struct drawer {
    const struct ic_db *db;
    pthread_t thread;
    bool started, stop;
    pthread_mutex_t mu;
    pthread_cond_t work;
    struct job *head, *tail; /* waiting */
    unsigned queued;
    struct job *done;        /* drawn, to resume */
    int wake_fd;             /* eventfd: a job is done */
} drawer = {.mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .wake_fd = -1};

/* The state of a request whose headers are in (answered on the next
 * call); a job's pointer instead once its chart is queued. */
static int headers_in;

static struct job *job_new(struct MHD_Connection *c, const char *url, const struct params *ps,
                           const char *key, bool keyed)
{
    size_t need = strlen(url) + 1;
    for (size_t i = 0; i < ps->n; i++)
        need += strlen(ps->p[i].key) + strlen(ps->p[i].value) + 2;
    struct job *j = calloc(1, sizeof *j + need);
    if (!j)
        return NULL;
    char *t = j->text;
    j->c = c;
    j->url = strcpy(t, url);
    t += strlen(url) + 1;
    for (size_t i = 0; i < ps->n; i++) {
        const char *k = strcpy(t, ps->p[i].key);
        t += strlen(k) + 1;
        j->p[i] = (struct ic_param){k, strcpy(t, ps->p[i].value)};
        t += strlen(t) + 1;
    }
    j->n = ps->n;
    j->keyed = keyed;
    if (keyed)
        snprintf(j->key, sizeof j->key, "%s", key);
    return j;
}

static void job_free(struct job *j)
{
    ic_serve_resp_free(&j->r);
    free(j);
}

/* A request done: the connection waits for the next one's headers. */
static void request_done(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)toe;
    if (*state && *state != &headers_in) /* a chart's job, drawn or given up */
        job_free(*state);
    *state = NULL;
    struct conn *k = conn_of(c);
    if (k) {
        k->in_headers = true;
        k->wait_s = mono_s();
        k->nul = false;
    }
}

/* The chart kept for key (the drawer's lock held): true with a copy in r
 * (*oom where it could not be copied) and how long ago it was drawn in
 * *age_s; false where none is kept. */
static bool chart_kept(const char *key, struct ic_serve_resp *r, double *age_s, bool *oom)
{
    const double t = mono_s();
    const struct chart_entry *e = chart_find(key, t);
    if (!e)
        return false;
    memset(r, 0, sizeof *r);
    *age_s = t - e->at_s;
    *oom = !(r->body = malloc(e->len));
    if (!*oom) {
        memcpy(r->body, e->png, e->len);
        r->len = e->len;
        r->status = 200;
        r->type = "image/png";
    }
    return true;
}

/* The drawing thread: the waiting charts in turn, each looked up in the
 * cache first (a second request for an address drawn while it waited),
 * else drawn without the lock. */
static void *draw_charts(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&drawer.mu);
    for (;;) {
        while (!drawer.stop && !drawer.head)
            pthread_cond_wait(&drawer.work, &drawer.mu);
        if (drawer.stop)
            break;
        struct job *j = drawer.head;
        drawer.head = j->next;
        if (!drawer.head)
            drawer.tail = NULL;
        drawer.queued--;
        const bool hit = j->keyed && chart_kept(j->key, &j->r, &j->age_s, &j->oom);
        j->hit = hit;
        pthread_mutex_unlock(&drawer.mu);
        if (!hit)
            j->oom = ic_serve_handle(drawer.db, j->url, j->p, j->n, &j->r) != IC_OK;
        pthread_mutex_lock(&drawer.mu);
        if (!hit && !j->oom && j->keyed && j->r.status == 200)
            chart_keep(j->key, j->r.body, j->r.len, mono_s());
        j->next = drawer.done;
        drawer.done = j;
        const uint64_t one = 1;
        if (write(drawer.wake_fd, &one, sizeof one) < 0) {
            /* EAGAIN: the counter is full, and the loop wakes all the same */
        }
    }
    pthread_mutex_unlock(&drawer.mu);
    return NULL;
}

/* Resumes the connections of the charts drawn (the loop's thread). */
static void resume_drawn(void)
{
    uint64_t n;
    if (read(drawer.wake_fd, &n, sizeof n) < 0) {
        /* EAGAIN: nothing drawn since; the list says so too */
    }
    pthread_mutex_lock(&drawer.mu);
    struct job *j = drawer.done;
    drawer.done = NULL;
    pthread_mutex_unlock(&drawer.mu);
    while (j) {
        struct job *next = j->next;
        MHD_resume_connection(j->c); /* answered by its next call (answer) */
        j = next;
    }
}

/* Queues the job, its connection suspended; false when the queue is full
 * or no thread draws. */
static bool queue_chart(struct job *j)
{
    pthread_mutex_lock(&drawer.mu);
    const bool ok = drawer.started && drawer.queued < IC_SERVE_CHART_QUEUE;
    if (ok) {
        MHD_suspend_connection(j->c);
        if (drawer.tail)
            drawer.tail->next = j;
        else
            drawer.head = j;
        drawer.tail = j;
        drawer.queued++;
        pthread_cond_signal(&drawer.work);
    }
    pthread_mutex_unlock(&drawer.mu);
    return ok;
}

/* Sends r (its body handed to libmicrohttpd), with an Age header where it
 * was kept from age_s ago (age_s < 0: drawn for this request). */
static enum MHD_Result send_resp(struct MHD_Connection *c, struct ic_serve_resp *r, double age_s)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        ic_serve_resp_free(r);
        return MHD_NO;
    }
    r->body = NULL; /* libmicrohttpd's now */
    MHD_add_response_header(resp, "Content-Type", r->type);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (age_s >= 0) { /* drawn a moment ago (RFC 9111 5.1: its age in whole seconds) */
        char age[24];
        snprintf(age, sizeof age, "%.0f", floor(age_s));
        MHD_add_response_header(resp, "Age", age);
    }
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    enum MHD_Result ok = MHD_queue_response(c, r->status, resp);
    MHD_destroy_response(resp);
    return ok;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)upload;
    (void)upload_size; /* always 0: a request with a body is refused on the first call */
    const struct server *s = cls;
    url = origin_path(url);
    if (*state != NULL && *state != &headers_in) {
        /* resumed: its chart is drawn (or the server stops: 503) */
        struct job *j = *state;
        if (j->oom)
            return send_text(c, 500, "infcalc: error: out of memory\n");
        if (!j->r.body)
            return send_text_with(c, 503, "infcalc: error: the server is stopping\n",
                                  "Retry-After", "1");
        return send_resp(c, &j->r, j->hit ? j->age_s : -1);
    }
    if (*state == NULL) {
        /* the first call has the headers and nothing else: the deadline no
         * longer applies, and a body is refused before it is read (an answer
         * queued now makes libmicrohttpd skip the rest of the request and
         * close the connection after the reply) */
        struct conn *k = conn_of(c);
        if (k)
            k->in_headers = false;
        if (k && k->nul)
            return send_text(c, 400, "infcalc: error: the address holds a NUL byte (%00)\n"
                                     "  paths, names and values are text: remove the %00\n");
        /* two lengths would leave the reader and the server disagreeing on
         * where the request ends; HTTP/1.1 names its host once (RFC 9112
         * 3.2) */
        if (headers_named(c, "Content-Length") > 1)
            return send_text(c, 400, "infcalc: error: Content-Length given twice\n");
        if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 && headers_named(c, "Host") != 1)
            return send_text(c, 400, "infcalc: error: an HTTP/1.1 request names its Host "
                                     "once\n");
        if (has_body(c))
            return send_text(c, 413, "infcalc: error: requests carry no body\n");
        if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
            return send_text_with(c, 405, "infcalc: error: only GET is served\n", "Allow",
                                  "GET, HEAD");
        /* answered on the second call, at the end of the request, so that
         * the connection stays open for the next one */
        *state = &headers_in;
        return MHD_YES;
    }
    struct params ps = {.n = 0};
    MHD_get_connection_values_n(c, MHD_GET_ARGUMENT_KIND, collect, &ps);
    if (ps.nul)
        return send_text(c, 400, "infcalc: error: a query parameter holds a NUL byte (%00)\n"
                                 "  names and values are text: remove the %00\n");
    /* a chart drawn a moment ago for the same address: sent again */
    char key[sizeof chart_cache[0].key];
    const bool is_chart = strncmp(url, "/chart/", 7) == 0;
    const bool chart = is_chart && chart_key(url, &ps, key, sizeof key);
    struct ic_serve_resp r;
    if (chart) {
        double age_s = 0;
        bool oom = false;
        pthread_mutex_lock(&drawer.mu);
        const bool hit = chart_kept(key, &r, &age_s, &oom);
        pthread_mutex_unlock(&drawer.mu);
        if (hit)
            return oom ? send_text(c, 500, "infcalc: error: out of memory\n")
                       : send_resp(c, &r, age_s);
    }
    if (is_chart) {
        /* drawn by the drawing thread; the connection waits, suspended */
        struct job *j = job_new(c, url, &ps, key, chart);
        if (!j)
            return send_text(c, 500, "infcalc: error: out of memory\n");
        if (queue_chart(j)) {
            *state = j;
            return MHD_YES;
        }
        const bool started = drawer.started;
        job_free(j);
        if (started)
            return send_text_with(c, 503, "infcalc: error: too many charts waiting to be drawn\n"
                                          "  ask again in a moment\n",
                                  "Retry-After", "1");
        /* no drawing thread: drawn here, as for any other request */
    }
    if (ic_serve_handle(s->db, url, ps.p, ps.n, &r))
        return send_text(c, 500, "infcalc: error: out of memory\n");
    if (chart && r.status == 200) {
        pthread_mutex_lock(&drawer.mu);
        chart_keep(key, r.body, r.len, mono_s());
        pthread_mutex_unlock(&drawer.mu);
    }
    return send_resp(c, &r, -1);
}

/* IC_SERVE_MAX_CONN, or fewer where the process may not open that many
 * files (a few dozen kept for the listening socket, epoll and the
 * databases). */
static unsigned conn_limit(void)
{
    struct rlimit rl;
    unsigned n = IC_SERVE_MAX_CONN;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < (rlim_t)n + 64)
        n = rl.rlim_cur > 64 + 2 * IC_SERVE_SPARE_CONN ? (unsigned)(rl.rlim_cur - 64)
                                                       : 2 * IC_SERVE_SPARE_CONN;
    return n;
}

/* Polls the server and the signals until SIGINT or SIGTERM; 0, or 1 when
 * polling fails. */
static int loop(struct MHD_Daemon *d, struct server *s, int sig_fd, FILE *err)
{
    const union MHD_DaemonInfo *ei = MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD);
    if (!ei) {
        fputs("infcalc: error: serve: libmicrohttpd gave no epoll descriptor\n", err);
        return 1;
    }
    unsigned waiting = 0;
    for (;;) {
        /* libmicrohttpd's own timeouts, and once a second while the
         * header deadline may fall due */
        MHD_UNSIGNED_LONG_LONG mhd_ms = 0;
        int wait_ms = -1;
        if (MHD_get_timeout(d, &mhd_ms) == MHD_YES)
            wait_ms = mhd_ms > 1000 ? 1000 : (int)mhd_ms;
        if (waiting && (wait_ms < 0 || wait_ms > 1000))
            wait_ms = 1000;
        struct pollfd p[3] = {{ei->epoll_fd, POLLIN, 0}, {sig_fd, POLLIN, 0},
                              {drawer.wake_fd, POLLIN, 0}};
        if (poll(p, drawer.wake_fd >= 0 ? 3 : 2, wait_ms) < 0 && errno != EINTR) {
            fprintf(err, "infcalc: error: serve: poll: %s\n", strerror(errno));
            return 1;
        }
        if (p[1].revents) {
            /* taken, or it would be delivered when unblocked: killed */
            struct signalfd_siginfo si;
            if (read(sig_fd, &si, sizeof si) != (ssize_t)sizeof si)
                fprintf(err, "infcalc: warning: serve: signalfd: %s\n", strerror(errno));
            return 0;
        }
        if (drawer.wake_fd >= 0 && p[2].revents)
            resume_drawn(); /* their answers go out in this MHD_run */
        MHD_run(d);
        waiting = cut_late(s, mono_s());
    }
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
    if (MHD_is_feature_supported(MHD_FEATURE_EPOLL) != MHD_YES) {
        fputs("infcalc: error: serve needs libmicrohttpd built with epoll (Linux)\n", err);
        return 1;
    }
    bool loopback = (ntohl(addr.sin_addr.s_addr) >> 24) == 127;
    if (!loopback)
        fprintf(err, "infcalc: warning: serving on %s: reachable from other machines\n", bind);
    /* SIGINT and SIGTERM arrive through a signalfd, polled with the sockets */
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    int sig_fd = signalfd(-1, &sigs, SFD_CLOEXEC);
    if (sig_fd < 0) {
        fprintf(err, "infcalc: error: serve: signalfd: %s\n", strerror(errno));
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    unsigned limit = conn_limit();
    struct server s = {.db = db, .err = err, .keep_at = limit - IC_SERVE_SPARE_CONN};
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)port, NULL,
        NULL, answer, &s,
        MHD_OPTION_EXTERNAL_LOGGER, log_mhd, &s, /* first, or some go to stderr */
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, limit,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IC_SERVE_IDLE_S,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)IC_SERVE_CONN_MEM_B,
        MHD_OPTION_NOTIFY_CONNECTION, notify_conn, &s, MHD_OPTION_NOTIFY_COMPLETED,
        request_done, &s, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
    if (!d) {
        fprintf(err, "infcalc: error: cannot serve on %s:%u (the port in use, or not allowed?)\n",
                bind, port);
        close(sig_fd);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 1;
    }
    /* the drawing thread (without one, charts are drawn by the loop) */
    drawer.db = db;
    drawer.stop = false;
    drawer.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    const int why = drawer.wake_fd < 0 ? errno
                                       : pthread_create(&drawer.thread, NULL, draw_charts, NULL);
    if (why == 0)
        drawer.started = true;
    else
        fprintf(err, "infcalc: warning: serve: no drawing thread (%s): charts are drawn "
                     "between the other requests\n", strerror(why));
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned bound = info ? info->port : port;
    fprintf(out, "infcalc: serving http://%s:%u/ (Ctrl-C stops)\n", bind, bound);
    fflush(out);
    int rc = loop(d, &s, sig_fd, err);
    if (drawer.started) {
        /* the chart being drawn is finished; those waiting are not */
        pthread_mutex_lock(&drawer.mu);
        drawer.stop = true;
        pthread_cond_signal(&drawer.work);
        pthread_mutex_unlock(&drawer.mu);
        pthread_join(drawer.thread, NULL);
        drawer.started = false;
        /* every suspended connection resumed before the daemon stops
         * (libmicrohttpd requires it): the drawn ones get their chart, the
         * others 503 */
        for (struct job *j = drawer.head; j; j = j->next)
            MHD_resume_connection(j->c);
        drawer.head = drawer.tail = NULL;
        drawer.queued = 0;
        resume_drawn();
        MHD_run(d);
    }
    if (drawer.wake_fd >= 0)
        close(drawer.wake_fd);
    drawer.wake_fd = -1;
    MHD_stop_daemon(d); /* closes every connection, each one notified */
    for (unsigned i = 0; i < IC_SERVE_CHART_CACHE; i++) {
        free(chart_cache[i].png);
        chart_cache[i].png = NULL;
    }
    close(sig_fd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        fprintf(out, "infcalc: stopped\n");
    return rc;
}
