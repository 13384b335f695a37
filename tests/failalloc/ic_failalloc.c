/* ic_failalloc: allocation-failure injection for infcalc-failalloc, a test
 * build of the command line (tests/failalloc.sh drives it).
 *
 * Counted "allocations" are
 *  - malloc, calloc, realloc, strdup and strndup called from infcalc's own
 *    code: the executable is linked with -Wl,--wrap=malloc,... so every call
 *    in its objects (main, the app and core static libraries) lands in the
 *    __wrap_ functions below; calls inside shared libraries are untouched;
 *  - libyaml's allocations: libyaml.so allocates only through its exported
 *    yaml_malloc, yaml_realloc and yaml_strdup, called through its PLT, so the
 *    definitions below (exported with -Wl,--export-dynamic-symbol) interpose
 *    them; yaml_free stays libyaml's;
 *  - the glibc calls of infcalc's code that allocate behind it: fopen,
 *    fdopen, open_memstream and opendir (wrapped as above; they fail with
 *    errno ENOMEM, as glibc's do when their own malloc fails).
 * Not counted: allocations inside glibc, GSL, cairo, fontconfig, libpng and
 * libmicrohttpd. Those libraries' handling of their own allocation failures
 * is theirs to test (cairo, for one, turns them into error objects whose
 * status infcalc checks); failing them here would test them, not infcalc.
 *
 * Environment:
 *   IC_FAIL_ALLOC=N          the Nth counted allocation (1-based) fails, once,
 *                            with errno ENOMEM; 0 or unset: none fails
 *   IC_FAIL_ALLOC_REPORT=F   at exit, write "calls C failed F" to file F: how
 *                            many allocations were counted and whether the
 *                            Nth happened (1) or the run had fewer (0)
 *   IC_FAIL_ALLOC_TRACE=F    at exit, write one letter per counted allocation
 *                            to file F, in order: 'o' infcalc's own malloc and
 *                            the like, 'f' a stream or a folder opened by
 *                            infcalc's code, 'Y' libyaml's first in a call
 *                            from infcalc (for yaml_parser_parse and the
 *                            document builders: in a run of calls to one of
 *                            them), 'y' libyaml's others (the first
 *                            IC_TRACE_MAX only)
 *
 *   IC_FAIL_ALLOC_EACH=K     the driver (below): run the command once to count,
 *                            then once failing each N in turn
 *
 * The driver: main is wrapped too. With IC_FAIL_ALLOC_EACH=K set, the
 * process forks a child that runs infcalc's main with nothing failing and
 * records the kind of each allocation, then forks one child per N to fail:
 * every allocation of infcalc's own code and every stream or folder it
 * opens; of libyaml's, the first of each call infcalc makes into it and
 * every Kth of the rest (K = 1: every N). The children start from the state
 * before main, so the count is the same in each; a fork costs far less than
 * starting the program (and its cairo and fontconfig) again, which is what
 * makes every N affordable. Each child's stdout and stderr go to files in
 * IC_FAIL_ALLOC_OUT (a folder); each must:
 *   - have had its Nth allocation fail;
 *   - exit 1 or 2: not 0, not by a signal, not with a sanitizer's status;
 *   - print nothing a sanitizer prints (in the ASan build every leak,
 *     overflow and undefined behavior is reported on stderr);
 *   - print an error line, "infcalc: error: ..." or "FILE...: error: ...",
 *     that says "out of memory" or the OS's "Cannot allocate memory";
 *   - leave the folder IC_FAIL_ALLOC_DIR (where the command writes its
 *     chart, when it does) empty: no chart, no temporary file.
 * The driver prints one line per failed check (with the child's stderr) and
 * a summary, and exits 0 when every check passed, 1 otherwise.
 *
 * The counter is atomic; the scenarios tested are single-threaded, so the
 * count, and which allocation N is, is the same from run to run. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <dirent.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fdopen(int fd, const char *mode);
FILE *__real_open_memstream(char **buf, size_t *len);
DIR *__real_opendir(const char *path);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
FILE *__wrap_fopen(const char *path, const char *mode);
FILE *__wrap_fdopen(int fd, const char *mode);
FILE *__wrap_open_memstream(char **buf, size_t *len);
DIR *__wrap_opendir(const char *path);
void *yaml_malloc(size_t size);
int __real_yaml_parser_initialize(yaml_parser_t *parser);
int __real_yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event);
int __real_yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document);
int __real_yaml_document_initialize(yaml_document_t *document,
                                    yaml_version_directive_t *version_directive,
                                    yaml_tag_directive_t *tag_directives_start,
                                    yaml_tag_directive_t *tag_directives_end, int start_implicit,
                                    int end_implicit);
int __real_yaml_document_add_scalar(yaml_document_t *document, const yaml_char_t *tag,
                                    const yaml_char_t *value, int length,
                                    yaml_scalar_style_t style);
int __real_yaml_document_add_sequence(yaml_document_t *document, const yaml_char_t *tag,
                                      yaml_sequence_style_t style);
int __real_yaml_document_add_mapping(yaml_document_t *document, const yaml_char_t *tag,
                                     yaml_mapping_style_t style);
int __real_yaml_document_append_sequence_item(yaml_document_t *document, int sequence,
                                              int item);
int __real_yaml_document_append_mapping_pair(yaml_document_t *document, int mapping, int key,
                                             int value);
int __wrap_yaml_parser_initialize(yaml_parser_t *parser);
int __wrap_yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event);
int __wrap_yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document);
int __wrap_yaml_document_initialize(yaml_document_t *document,
                                    yaml_version_directive_t *version_directive,
                                    yaml_tag_directive_t *tag_directives_start,
                                    yaml_tag_directive_t *tag_directives_end, int start_implicit,
                                    int end_implicit);
int __wrap_yaml_document_add_scalar(yaml_document_t *document, const yaml_char_t *tag,
                                    const yaml_char_t *value, int length,
                                    yaml_scalar_style_t style);
int __wrap_yaml_document_add_sequence(yaml_document_t *document, const yaml_char_t *tag,
                                      yaml_sequence_style_t style);
int __wrap_yaml_document_add_mapping(yaml_document_t *document, const yaml_char_t *tag,
                                     yaml_mapping_style_t style);
int __wrap_yaml_document_append_sequence_item(yaml_document_t *document, int sequence,
                                              int item);
int __wrap_yaml_document_append_mapping_pair(yaml_document_t *document, int mapping, int key,
                                             int value);
void *yaml_realloc(void *ptr, size_t size);
char *yaml_strdup(const char *str);

enum { IC_TRACE_MAX = 1 << 20 };

static atomic_ulong calls;
static char trace[IC_TRACE_MAX];
/* what the driver's children report back: counted, and whether N failed */
struct shared {
    unsigned long calls;
    int failed;
};
static struct shared *shared;
static atomic_int failed;
static unsigned long fail_at; /* 0: never */
static atomic_int ready;
/* which libyaml entry infcalc called last, and whether libyaml allocated
 * since that call began (see trace_yaml_call) */
static atomic_int yaml_fn, yaml_fresh;

static void setup(void)
{
    if (atomic_load(&ready))
        return;
    const char *s = getenv("IC_FAIL_ALLOC"); /* getenv does not allocate */
    unsigned long v = 0;
    for (; s && *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (unsigned long)(*s - '0');
    fail_at = v;
    atomic_store(&ready, 1);
}

/* Counts one allocation of class cls ('o', 'f', 'y'); true when it is the
 * one to fail. */
static int fail_now(char cls)
{
    setup();
    unsigned long n = atomic_fetch_add(&calls, 1) + 1;
    if (cls == 'y' && atomic_exchange(&yaml_fresh, 0))
        cls = 'Y';
    if (n <= IC_TRACE_MAX)
        trace[n - 1] = cls;
    if (fail_at && n == fail_at) {
        atomic_store(&failed, 1);
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return fail_now('o') ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now('o') ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now('o') ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return fail_now('o') ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
    return fail_now('o') ? NULL : __real_strndup(s, n);
}

FILE *__wrap_fopen(const char *path, const char *mode)
{
    return fail_now('f') ? NULL : __real_fopen(path, mode);
}

FILE *__wrap_fdopen(int fd, const char *mode)
{
    return fail_now('f') ? NULL : __real_fdopen(fd, mode);
}

FILE *__wrap_open_memstream(char **buf, size_t *len)
{
    return fail_now('f') ? NULL : __real_open_memstream(buf, len);
}

DIR *__wrap_opendir(const char *path)
{
    return fail_now('f') ? NULL : __real_opendir(path);
}

/* infcalc calls libyaml (entry fn, 1-based): the next libyaml allocation
 * is traced 'Y', the first of a new call, unless fn is one called over and
 * over (repeat: parse, the document builders) and was also the last called. */
static void trace_yaml_call(int fn, int repeat)
{
    if (!repeat || atomic_exchange(&yaml_fn, fn) != fn)
        atomic_store(&yaml_fresh, 1);
    atomic_store(&yaml_fn, fn);
}

int __wrap_yaml_parser_initialize(yaml_parser_t *parser)
{
    trace_yaml_call(1, 0);
    return __real_yaml_parser_initialize(parser);
}

int __wrap_yaml_parser_parse(yaml_parser_t *parser, yaml_event_t *event)
{
    trace_yaml_call(2, 1);
    return __real_yaml_parser_parse(parser, event);
}

int __wrap_yaml_parser_load(yaml_parser_t *parser, yaml_document_t *document)
{
    trace_yaml_call(3, 0);
    return __real_yaml_parser_load(parser, document);
}

int __wrap_yaml_document_initialize(yaml_document_t *document,
                                    yaml_version_directive_t *version_directive,
                                    yaml_tag_directive_t *tag_directives_start,
                                    yaml_tag_directive_t *tag_directives_end, int start_implicit,
                                    int end_implicit)
{
    trace_yaml_call(4, 0);
    return __real_yaml_document_initialize(document, version_directive, tag_directives_start,
                                           tag_directives_end, start_implicit, end_implicit);
}

int __wrap_yaml_document_add_scalar(yaml_document_t *document, const yaml_char_t *tag,
                                    const yaml_char_t *value, int length,
                                    yaml_scalar_style_t style)
{
    trace_yaml_call(5, 1);
    return __real_yaml_document_add_scalar(document, tag, value, length, style);
}

int __wrap_yaml_document_add_sequence(yaml_document_t *document, const yaml_char_t *tag,
                                      yaml_sequence_style_t style)
{
    trace_yaml_call(6, 1);
    return __real_yaml_document_add_sequence(document, tag, style);
}

int __wrap_yaml_document_add_mapping(yaml_document_t *document, const yaml_char_t *tag,
                                     yaml_mapping_style_t style)
{
    trace_yaml_call(7, 1);
    return __real_yaml_document_add_mapping(document, tag, style);
}

int __wrap_yaml_document_append_sequence_item(yaml_document_t *document, int sequence,
                                              int item)
{
    trace_yaml_call(8, 1);
    return __real_yaml_document_append_sequence_item(document, sequence, item);
}

int __wrap_yaml_document_append_mapping_pair(yaml_document_t *document, int mapping, int key,
                                             int value)
{
    trace_yaml_call(9, 1);
    return __real_yaml_document_append_mapping_pair(document, mapping, key, value);
}

/* libyaml's own three (api.c), with its conventions: a zero size allocates
 * one byte, realloc of NULL is malloc, strdup of NULL is NULL. */
void *yaml_malloc(size_t size)
{
    return fail_now('y') ? NULL : __real_malloc(size ? size : 1);
}

void *yaml_realloc(void *ptr, size_t size)
{
    if (fail_now('y'))
        return NULL;
    return ptr ? __real_realloc(ptr, size ? size : 1) : __real_malloc(size ? size : 1);
}

char *yaml_strdup(const char *str)
{
    if (!str)
        return NULL;
    return fail_now('y') ? NULL : __real_strdup(str);
}

static void write_file(const char *path, const char *buf, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    /* the script reads a missing or short file as a failure */
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w <= 0)
            break;
        buf += w;
        n -= (size_t)w;
    }
    close(fd);
}

__attribute__((destructor)) static void report(void)
{
    if (shared) {
        shared->calls = atomic_load(&calls);
        shared->failed = atomic_load(&failed);
    }
    const char *path = getenv("IC_FAIL_ALLOC_REPORT");
    if (path && *path) {
        char line[64];
        int n = snprintf(line, sizeof line, "calls %lu failed %d\n", atomic_load(&calls),
                         atomic_load(&failed));
        write_file(path, line, (size_t)n);
    }
    path = getenv("IC_FAIL_ALLOC_TRACE");
    if (path && *path) {
        unsigned long n = atomic_load(&calls);
        write_file(path, trace, n < IC_TRACE_MAX ? n : IC_TRACE_MAX);
    }
}

/* ---- the driver ---- */

int __real_main(int argc, char **argv);
int __wrap_main(int argc, char **argv);

static char out_dir[512], clean_dir[512];

/* Reads up to n - 1 bytes of path into buf (NUL-terminated); the length. */
static size_t read_file(const char *path, char *buf, size_t n)
{
    size_t len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t got;
        while (len + 1 < n && (got = read(fd, buf + len, n - 1 - len)) > 0)
            len += (size_t)got;
        close(fd);
    }
    buf[len] = '\0';
    return len;
}

/* Empties clean_dir; returns how many entries it held (names in list). */
static int clean(char *list, size_t n)
{
    int found = 0;
    list[0] = '\0';
    if (!clean_dir[0])
        return 0;
    DIR *d = __real_opendir(clean_dir);
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        found++;
        size_t used = strlen(list);
        snprintf(list + used, n - used, "%s ", e->d_name);
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", clean_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    return found;
}

/* Runs infcalc's main in a child failing allocation n (0: none); the
 * child's wait status. */
static int child(int argc, char **argv, unsigned long n, int traced)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("ic_failalloc: fork");
        exit(1);
    }
    if (pid == 0) {
        char p[1024];
        snprintf(p, sizeof p, "%s/stdout", out_dir);
        int fo = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        snprintf(p, sizeof p, "%s/stderr", out_dir);
        int fe = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
            _exit(99);
        close(fo);
        close(fe);
        fail_at = n;
        atomic_store(&ready, 1);
        if (!traced)
            unsetenv("IC_FAIL_ALLOC_TRACE");
        exit(__real_main(argc, argv));
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        ;
    return st;
}

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

/* An error line: "infcalc: error: " or "FILE...: error: " at a line's start
 * (a FILE without spaces), with a message after it. */
static int has_error_line(const char *text)
{
    for (const char *l = text; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        const char *e = strstr(l, ": error: ");
        const char *nl = strchr(l, '\n');
        if (!e || (nl && e > nl))
            continue;
        const char *sp = memchr(l, ' ', (size_t)(e - l));
        if (!sp && e > l && e[9] && e[9] != '\n')
            return 1;
    }
    return 0;
}

static int run_driver(int argc, char **argv, unsigned long stride)
{
    const char *o = getenv("IC_FAIL_ALLOC_OUT");
    snprintf(out_dir, sizeof out_dir, "%s", o && *o ? o : ".");
    const char *c = getenv("IC_FAIL_ALLOC_DIR");
    snprintf(clean_dir, sizeof clean_dir, "%s", c ? c : "");
    char trace_path[1024], names[4096];
    snprintf(trace_path, sizeof trace_path, "%s/trace", out_dir);
    setenv("IC_FAIL_ALLOC_TRACE", trace_path, 1);
    unsetenv("IC_FAIL_ALLOC_REPORT");
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                  0);
    if (shared == MAP_FAILED) {
        perror("ic_failalloc: mmap");
        return 1;
    }
    static char kinds[IC_TRACE_MAX + 1], err[1 << 16];
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    clean(names, sizeof names);
    int st = child(argc, argv, 0, 1);
    unsigned long total = shared->calls;
    size_t nk = read_file(trace_path, kinds, sizeof kinds);
    clean(names, sizeof names);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || nk != total || total > IC_TRACE_MAX) {
        read_file(trace_path, err, sizeof err);
        snprintf(trace_path, sizeof trace_path, "%s/stderr", out_dir);
        read_file(trace_path, err, sizeof err);
        printf("FAIL: the run with no failure: wait status %d, %lu allocations, trace of %zu\n"
               "%s",
               st, total, nk, err);
        return 1;
    }
    unsigned long own = 0, ycalls = 0, tried = 0, bad = 0, ys = 0, yfirst = 0;
    /* of the firsts of libyaml calls, every Kth (IC_FAIL_ALLOC_FIRST_EACH,
     * default 1: all) */
    const char *fe = getenv("IC_FAIL_ALLOC_FIRST_EACH");
    const unsigned long first_stride = fe && strtoul(fe, NULL, 10) > 0 ? strtoul(fe, NULL, 10) : 1;
    for (unsigned long n = 1; n <= total; n++) {
        char k = kinds[n - 1];
        own += k == 'o' || k == 'f';
        ycalls += k == 'Y';
        if (k == 'y' && ++ys % stride != 0)
            continue;
        if (k == 'Y' && yfirst++ % first_stride != 0)
            continue;
        tried++;
        shared->calls = 0;
        shared->failed = 0;
        st = child(argc, argv, n, 0);
        char p[1024];
        snprintf(p, sizeof p, "%s/stderr", out_dir);
        read_file(p, err, sizeof err);
        int left = clean(names, sizeof names);
        const char *why = NULL;
        char whybuf[sizeof names + sizeof clean_dir + 16];
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        if (contains(err, "Sanitizer") || contains(err, "runtime error:"))
            why = "a sanitizer's report";
        else if (WIFSIGNALED(st)) {
            snprintf(whybuf, sizeof whybuf, "killed by signal %d", WTERMSIG(st));
            why = whybuf;
        } else if (code == 0)
            why = "exit status 0";
        else if (code != 1 && code != 2) {
            snprintf(whybuf, sizeof whybuf, "exit status %d", code);
            why = whybuf;
        } else if (!shared->failed)
            why = "the allocation was not reached";
        else if (!has_error_line(err))
            why = "no 'infcalc: error: ...' or 'FILE: error: ...' line on stderr";
        else if (!contains(err, "out of memory") && !contains(err, "Cannot allocate memory"))
            why = "the error does not say that memory ran out";
        else if (left) {
            snprintf(whybuf, sizeof whybuf, "left %sin %s", names, clean_dir);
            why = whybuf;
        }
        if (why) {
            bad++;
            printf("FAIL: allocation %lu of %lu ('%c'): %s\n", n, total, k, why);
            for (const char *l = err; *l;) {
                const char *nl = strchr(l, '\n');
                int len = nl ? (int)(nl - l) : (int)strlen(l);
                printf("    %.*s\n", len, l);
                l += len + (nl != NULL);
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%lu allocations (%lu infcalc's, %lu libyaml's in %lu calls); failed each of %lu in "
           "turn, %lu wrong; %.1f s\n",
           total, own, total - own, ycalls, tried, bad,
           (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    munmap(shared, sizeof *shared);
    shared = NULL;
    return bad ? 1 : 0;
}

int __wrap_main(int argc, char **argv)
{
    const char *each = getenv("IC_FAIL_ALLOC_EACH");
    if (!each || !*each)
        return __real_main(argc, argv);
    unsigned long k = strtoul(each, NULL, 10);
    return run_driver(argc, argv, k ? k : 1);
}
