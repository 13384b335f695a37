/* ic_db: database folders, lookups and suggestions. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "ic_db.h"

#include "ic_units.h"
#include "ic_utf8.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef IC_DATA_DIR
#define IC_DATA_DIR "."
#endif
static const char *const kind_dirs[IC_DB_KIND_COUNT] = {
    [IC_DB_HW] = "hwdb",
    [IC_DB_MODEL] = "modeldb",
    [IC_DB_ENGINE] = "enginedb",
};
_Static_assert(sizeof kind_dirs / sizeof kind_dirs[0] == IC_DB_KIND_COUNT, "dirs");

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_dbs(const char *root)
{
    char p[8192];
    for (int k = 0; k < IC_DB_REQUIRED_KINDS; k++) {
        if ((size_t)snprintf(p, sizeof p, "%s/%s", root, kind_dirs[k]) >= sizeof p || !is_dir(p))
            return false;
    }
    return true;
}

/* The folder of the running program, resolved (Linux: /proc/self/exe);
 * false where it cannot be read. */
static bool exe_dir(char *out, size_t cap)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0 || (size_t)n >= sizeof buf - 1)
        return false;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (!slash)
        return false;
    *slash = '\0';
    if ((size_t)snprintf(out, cap, "%s", slash == buf ? "/" : buf) >= cap)
        return false;
    return true;
}

/* Whether path is dir or lies under it (both resolved). */
static bool under(const char *path, const char *dir)
{
    char *rp = realpath(path, NULL), *rd = realpath(dir, NULL);
    bool in = false;
    if (rp && rd) {
        size_t l = strlen(rd);
        in = strncmp(rp, rd, l) == 0 && (rp[l] == '\0' || rp[l] == '/' || l == 1);
    }
    free(rp);
    free(rd);
    return in;
}

const char *ic_db_default_root(char *buf, size_t cap)
{
    char dir[4096];
    if (exe_dir(dir, sizeof dir)) {
#if defined(IC_BUILD_ROOT) && defined(IC_SOURCE_ROOT)
        /* a program of the build tree reads the source tree */
        if (under(dir, IC_BUILD_ROOT) && has_dbs(IC_SOURCE_ROOT)) {
            snprintf(buf, cap, "%s", IC_SOURCE_ROOT);
            return buf;
        }
#endif
#ifdef IC_DATA_DIR_REL
        /* an installed program, wherever the tree was put (DESTDIR, a moved
         * prefix): the data folder at the same place relative to it */
        char p[4096 + 512];
        if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, IC_DATA_DIR_REL) < sizeof p &&
            has_dbs(p)) {
            char *rp = realpath(p, NULL);
            snprintf(buf, cap, "%s", rp ? rp : p);
            free(rp);
            return buf;
        }
#endif
    }
    snprintf(buf, cap, "%s", IC_DATA_DIR);
    return buf;
}

int ic_db_init(struct ic_db *db, const char *root, struct ic_err *err)
{
    const char *r = root ? root : getenv("INFCALC_DB");
    char def[sizeof db->root];
    const char *from = root ? "--db" : "INFCALC_DB";
    if (!r || !*r) {
        r = ic_db_default_root(def, sizeof def);
        from = NULL;
    }
    if (strlen(r) >= sizeof db->root)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "data folder path too long (%zu bytes)",
                          strlen(r));
    char p[600];
    for (int k = 0; k < IC_DB_REQUIRED_KINDS; k++) {
        snprintf(p, sizeof p, "%s/%s", r, kind_dirs[k]);
        if (!is_dir(p)) {
            const int rc = ic_err_set(err, IC_ENOENT, NULL, 0, 0,
                                      "no %s/ folder in the data folder '%s'%s%s%s",
                                      kind_dirs[k], r, from ? " (from " : "", from ? from : "",
                                      from ? ")" : "");
            ic_err_hint(err, "set --db or INFCALC_DB to the folder holding hwdb/ and modeldb/ "
                             "(the source tree, or an install's share/infcalc)");
            return rc;
        }
    }
    snprintf(db->root, sizeof db->root, "%s", r);
    return IC_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A path rather than a name: "-" (standard input), a file ending, an
 * explicit folder, or an existing file ("org/model" alone is a Hugging Face
 * id, looked up as an alias). */
static bool is_path(const char *name)
{
    struct stat st;
    return strcmp(name, "-") == 0 || ends_with(name, ".yaml") || ends_with(name, ".yml") || ends_with(name, ".json") ||
           name[0] == '/' || strncmp(name, "./", 2) == 0 || strncmp(name, "../", 3) == 0 ||
           (strchr(name, '/') && stat(name, &st) == 0 && S_ISREG(st.st_mode));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void ic_db_paths_free(char **paths, size_t n)
{
    if (!paths)
        return;
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

int ic_db_paths(const struct ic_db *db, enum ic_db_kind kind, char ***paths, size_t *n,
                struct ic_err *err)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", db->root, kind_dirs[kind]);
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        int rc = ic_err_set(err, e == ENOMEM ? IC_ENOMEM : IC_ENOENT, dir, 0, 0,
                            "cannot open folder: %s", strerror(e));
        ic_err_hint(err, "the databases' folder (holding hwdb/ and modeldb/) is given by --db "
                         "or INFCALC_DB");
        return rc;
    }
    char **v = NULL;
    size_t len = 0, cap = 0;
    int rc = IC_OK;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".yaml"))
            continue;
        /* a record is a file: a folder or a FIFO named *.yaml is not one
         * (a FIFO without a writer hung every lookup that reached it, a
         * folder failed every alias lookup) */
        char full[900];
        struct stat fst;
        if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full ||
            stat(full, &fst) != 0 || !S_ISREG(fst.st_mode))
            continue;
        if (len == cap) {
            cap = cap ? 2 * cap : 32;
            char **nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
                goto out;
            }
            v = nv;
        }
        size_t sz = strlen(dir) + strlen(e->d_name) + 2;
        v[len] = malloc(sz);
        if (!v[len]) {
            rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
            goto out;
        }
        snprintf(v[len], sz, "%s/%s", dir, e->d_name);
        len++;
    }
    qsort(v, len, sizeof *v, cmp_str);
out:
    closedir(d);
    if (rc) {
        ic_db_paths_free(v, len);
        return rc;
    }
    *paths = v;
    *n = len;
    return IC_OK;
}

static bool contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* Nearest names among candidates, for "did you mean". */
struct near {
    char names[3][96];
    unsigned dist[3];
    int n;
};

static void near_add(struct near *nr, const char *query, const char *cand)
{
    unsigned dist = ic_text_distance(query, cand);
    /* a prefix or substring match counts as close, either way round
     * ('llama3-8B-instruct' holds llama3-8b, 'nvidia-h100' h100) */
    if ((strlen(query) >= 2 && contains_nocase(cand, query)) ||
        (strlen(cand) >= 3 && contains_nocase(query, cand)))
        dist = dist < 2 ? dist : 2;
    /* and no further than ic_text_near_limit ('tests' is like no model:
     * 'qwen3-8b' was offered) */
    if (dist > ic_text_near_limit(strlen(query)))
        return;
    for (int i = 0; i < nr->n; i++)
        if (strcmp(nr->names[i], cand) == 0)
            return;
    int pos = nr->n < 3 ? nr->n : 3;
    while (pos > 0 && nr->dist[pos - 1] > dist)
        pos--;
    if (pos >= 3)
        return;
    for (int i = (nr->n < 3 ? nr->n : 2); i > pos; i--) {
        memcpy(nr->names[i], nr->names[i - 1], sizeof nr->names[i]);
        nr->dist[i] = nr->dist[i - 1];
    }
    snprintf(nr->names[pos], sizeof nr->names[pos], "%s", cand);
    nr->dist[pos] = dist;
    if (nr->n < 3)
        nr->n++;
}

static void near_hint(const struct near *nr, struct ic_err *err, const char *list_cmd)
{
    char buf[400] = "";
    for (int i = 0; i < nr->n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s'%s'", i ? ", " : "", nr->names[i]);
    }
    if (nr->n)
        ic_err_hint(err, "did you mean %s? ('infcalc list %s' shows all)", buf, list_cmd);
    else
        ic_err_hint(err, "'infcalc list %s' shows all", list_cmd);
}

/* One lookup routine for both kinds; load/name/aliases differ. */
struct kind_ops {
    enum ic_db_kind kind;
    const char *what, *list_cmd;
    size_t size;
    int (*load)(const char *path, void *out, struct ic_err *err);
    const char *(*name)(const void *rec);
    const char *(*alias)(const void *rec, uint32_t i); /* NULL past the end */
    /* where the name (alias false) or the aliases were given */
    struct ic_loc (*loc)(const void *rec, bool alias);
};

static int load_hw(const char *p, void *o, struct ic_err *e) { return ic_hw_load(p, o, e); }
static int load_model(const char *p, void *o, struct ic_err *e)
{
    return ic_model_load(p, o, e);
}
static int load_engine(const char *p, void *o, struct ic_err *e)
{
    return ic_engine_load(p, o, e);
}
static const char *engine_name(const void *r) { return ((const struct ic_engine *)r)->name; }
static const char *engine_alias(const void *r, uint32_t i)
{
    const struct ic_engine *en = r;
    return i < en->n_aliases ? en->aliases[i] : NULL;
}
static const char *hw_name(const void *r) { return ((const struct ic_hw *)r)->name; }
static const char *model_name(const void *r) { return ((const struct ic_model *)r)->name; }
static const char *hw_alias(const void *r, uint32_t i)
{
    const struct ic_hw *h = r;
    return i < h->n_aliases ? h->aliases[i] : NULL;
}
static const char *model_alias(const void *r, uint32_t i)
{
    const struct ic_model *m = r;
    return i < m->n_aliases ? m->aliases[i] : NULL;
}

static struct ic_loc hw_loc(const void *r, bool alias)
{
    return ((const struct ic_hw *)r)->locs[alias ? IC_HWF_ALIASES : IC_HWF_NAME];
}
static struct ic_loc model_loc(const void *r, bool alias)
{
    return ((const struct ic_model *)r)->locs[alias ? IC_MF_ALIASES : IC_MF_NAME];
}
static struct ic_loc engine_loc(const void *r, bool alias)
{
    return ((const struct ic_engine *)r)->locs[alias ? IC_ENF_ALIASES : IC_ENF_NAME];
}

static const struct kind_ops ops[IC_DB_KIND_COUNT] = {
    [IC_DB_HW] = {IC_DB_HW, "hardware", "hw", sizeof(struct ic_hw), load_hw, hw_name,
                  hw_alias, hw_loc},
    [IC_DB_MODEL] = {IC_DB_MODEL, "model", "models", sizeof(struct ic_model), load_model,
                     model_name, model_alias, model_loc},
    [IC_DB_ENGINE] = {IC_DB_ENGINE, "engine", "engines", sizeof(struct ic_engine), load_engine,
                      engine_name, engine_alias, engine_loc},
};

/* A folder given where a file of that kind is read: the file inside it to
 * give (a model's config.json, an entry's YAML); IC_ENOENT. */
static int folder_error(enum ic_db_kind kind, const char *what, const char *name,
                        struct ic_err *err)
{
    size_t l = strlen(name);
    while (l > 1 && name[l - 1] == '/')
        l--;
    ic_err_set(err, IC_ENOENT, NULL, 0, 0, "%s '%s' is a folder, not a file", what, name);
    if (kind == IC_DB_MODEL)
        ic_err_hint(err, "give the config.json inside it: '%.*s/config.json'", (int)l, name);
    else
        ic_err_hint(err, "give the YAML file inside it: '%.*s/NAME.yaml'", (int)l, name);
    return IC_ENOENT;
}

/* "org/name": the config.json of that repository in the local Hugging Face
 * cache ($HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub,
 * ~/.cache/huggingface/hub), the snapshot refs/main names, else the last
 * snapshot holding one; never the network. 0 with the path, or IC_ENOENT
 * with the folders looked in. */
static int hf_cache(const char *name, char *path, size_t n, struct ic_err *err)
{
    const char *slash = strchr(name, '/');
    struct stat st;
    /* a folder (one holding a config.json, "org/name"-shaped or not) */
    if (stat(name, &st) == 0 && S_ISDIR(st.st_mode))
        return folder_error(IC_DB_MODEL, "model", name, err);
    if (!slash || slash == name || !slash[1] || strchr(slash + 1, '/')) {
        /* a path ("cfgs/llama/a"): neither an entry nor "org/name" */
        ic_err_set(err, IC_ENOENT, NULL, 0, 0,
                   "unknown model '%s': no modeldb entry, no such file, and not a Hugging "
                   "Face name (org/name)", name);
        ic_err_hint(err, "a model is a modeldb name ('infcalc list models'), a YAML or "
                         "config.json file's path, or org/name from the local Hugging Face "
                         "cache");
        return IC_ENOENT;
    }
    char repo[300];
    snprintf(repo, sizeof repo, "models--%.*s--%s", (int)(slash - name), name, slash + 1);
    const char *env[4] = {getenv("HF_HUB_CACHE"), getenv("HF_HOME"), getenv("XDG_CACHE_HOME"),
                          getenv("HOME")};
    static const char *const tail[4] = {"", "/hub", "/huggingface/hub", "/.cache/huggingface/hub"};
    char looked[1200] = "";
    for (int i = 0; i < 4; i++) {
        if (!env[i] || !*env[i])
            continue;
        char dir[1100];
        snprintf(dir, sizeof dir, "%s%s/%s", env[i], tail[i], repo);
        size_t l = strlen(looked);
        snprintf(looked + l, sizeof looked - l, "%s%s", l ? ", " : "", dir);
        char ref[64] = "", p[1300];
        snprintf(p, sizeof p, "%s/refs/main", dir);
        FILE *f = fopen(p, "r");
        if (f) {
            if (!fgets(ref, sizeof ref, f))
                ref[0] = '\0';
            fclose(f);
            ref[strcspn(ref, "\r\n")] = '\0';
        }
        if (ref[0] && strspn(ref, "0123456789abcdef") == strlen(ref)) {
            if (snprintf(path, n, "%s/snapshots/%s/config.json", dir, ref) < (int)n &&
                stat(path, &st) == 0 && S_ISREG(st.st_mode))
                return IC_OK;
        }
        snprintf(p, sizeof p, "%s/snapshots", dir);
        DIR *dd = opendir(p);
        if (!dd)
            continue;
        char best[256] = "";
        for (struct dirent *e; (e = readdir(dd));) {
            if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof best)
                continue;
            if (snprintf(path, n, "%s/%s/config.json", p, e->d_name) >= (int)n)
                continue;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && strcmp(e->d_name, best) > 0)
                snprintf(best, sizeof best, "%s", e->d_name);
        }
        closedir(dd);
        if (best[0] && snprintf(path, n, "%s/%s/config.json", p, best) < (int)n)
            return IC_OK;
    }
    ic_err_set(err, IC_ENOENT, NULL, 0, 0,
               "unknown model '%s': no modeldb entry, and no config.json in the local Hugging "
               "Face cache (looked in %s)", name,
               looked[0] ? looked : "no folder: HF_HOME and HOME are unset");
    ic_err_hint(err, "infcalc never downloads; fetch it first (huggingface-cli download %s "
                     "config.json) or give the file's path", name);
    return IC_ENOENT;
}

/* A name or alias of any kind fits lookup's 128-byte copies whole. */
_Static_assert(IC_HW_NAME_LEN <= 128 && IC_MODEL_NAME_LEN <= 128 && IC_ENGINE_NAME_LEN <= 128,
               "lookup copies names into 128 bytes");

/* Two files claiming one name or alias: an error naming both, at the
 * claim's line of path */
static int dup_error(struct ic_err *err, const struct kind_ops *k, const char *path,
                     struct ic_loc at, const char *other, const char *claimed)
{
    int rc = ic_err_set(err, IC_EINVAL, path, at.line, at.col,
                        "%s '%s' is claimed by two files: %s and this one", k->what, claimed,
                        other);
    ic_err_hint(err, "a name or alias belongs to one entry: rename or remove one of them");
    return rc;
}

/* The names and aliases the records of a kind claim, each with its file
 * (an index into the paths) and where it was given */
struct claim {
    size_t file;
    struct ic_loc at;
    char text[128];
};
struct claims {
    struct claim *v;
    size_t n, cap;
};

/* Adds rec's name and aliases; IC_ENOMEM */
static int claims_add(struct claims *c, const struct kind_ops *k, const void *rec, size_t file,
                      struct ic_err *err)
{
    const char *a = k->name(rec);
    for (uint32_t j = 0; a; a = k->alias(rec, j++)) {
        if (c->n == c->cap) {
            size_t cap = c->cap ? 2 * c->cap : 64;
            struct claim *nc = realloc(c->v, cap * sizeof *nc);
            if (!nc)
                return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
            c->v = nc;
            c->cap = cap;
        }
        struct claim *x = &c->v[c->n++];
        x->file = file;
        x->at = k->loc(rec, j > 0);
        snprintf(x->text, sizeof x->text, "%s", a);
    }
    return IC_OK;
}

/* Two profiles of one engine claiming one version text (a version, or an
 * entry of versions): which of them a published row of that version gets
 * would hang on the files' order. The later file's claim is in error. */
static int engine_version_claims(char *const *paths, size_t n, struct ic_err *err)
{
    struct ic_engine *en = calloc(n ? n : 1, sizeof *en);
    if (!en)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc = IC_OK;
    for (size_t i = 0; !rc && i < n; i++)
        rc = ic_engine_load(paths[i], &en[i], err);
    for (size_t j = 0; !rc && j < n; j++)
        for (size_t i = 0; !rc && i < j; i++) {
            if (strcasecmp(en[i].engine, en[j].engine))
                continue;
            /* index 0: the version; 1..: the versions list */
            for (uint32_t b = 0; !rc && b <= en[j].n_versions; b++) {
                const char *vb = b ? en[j].versions[b - 1] : en[j].version;
                for (uint32_t a = 0; a <= en[i].n_versions; a++) {
                    const char *va = a ? en[i].versions[a - 1] : en[i].version;
                    if (strcmp(va, vb))
                        continue;
                    const struct ic_loc at = en[j].locs[b ? IC_ENF_VERSIONS : IC_ENF_VERSION];
                    rc = ic_err_set(err, IC_EINVAL, paths[j], at.line, at.col,
                                    "%s version '%s' is claimed by two profiles: %s and this "
                                    "one",
                                    en[j].engine, vb, paths[i]);
                    ic_err_hint(err, "a published row of that version would get whichever "
                                     "sorts first: keep the version in one profile");
                    break;
                }
            }
        }
    free(en);
    return rc;
}

int ic_db_check_claims(const struct ic_db *db, enum ic_db_kind kind, struct ic_err *err)
{
    const struct kind_ops *k = &ops[kind];
    char **paths = NULL;
    size_t n = 0;
    int rc = ic_db_paths(db, kind, &paths, &n, err);
    if (rc)
        return rc;
    struct claims c = {0};
    void *rec = malloc(k->size);
    if (!rec)
        rc = ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    for (size_t i = 0; !rc && i < n; i++)
        if (!(rc = k->load(paths[i], rec, err)))
            rc = claims_add(&c, k, rec, i, err);
    /* the later file's claim is the one in error */
    for (size_t j = 0; !rc && j < c.n; j++)
        for (size_t i = 0; !rc && i < j; i++)
            if (c.v[i].file != c.v[j].file && strcasecmp(c.v[i].text, c.v[j].text) == 0)
                rc = dup_error(err, k, paths[c.v[j].file], c.v[j].at, paths[c.v[i].file],
                               c.v[j].text);
    if (!rc && kind == IC_DB_ENGINE)
        rc = engine_version_claims(paths, n, err);
    free(rec);
    free(c.v);
    ic_db_paths_free(paths, n);
    return rc;
}

static int lookup(const struct ic_db *db, const struct kind_ops *k, const char *name,
                  void *out, struct ic_err *err)
{
    if (!*name)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0, "empty %s name", k->what);
    if (is_path(name))
        return k->load(name, out, err);
    void *rec = malloc(k->size);
    if (!rec)
        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
    int rc;
    char direct[700], found_path[700] = "", found_name[128] = "";
    snprintf(direct, sizeof direct, "%s/%s/%s.yaml", db->root, kind_dirs[k->kind], name);
    struct stat st;
    rc = IC_ENOENT;
    if (stat(direct, &st) == 0) {
        /* the file the name names: its errors are the lookup's */
        if ((rc = k->load(direct, rec, err)))
            goto out;
        memcpy(out, rec, k->size);
        snprintf(found_path, sizeof found_path, "%s", direct);
        snprintf(found_name, sizeof found_name, "%s", k->name(rec));
    }
    /* Every other record, read once: the one whose name or alias is
     * `name`, and every text each claims (its name and aliases), checked
     * after the scan for a second file claiming `name` or the found
     * record's name (two files named h200-sxm printed one label over two
     * sets of figures, whichever of them sorted first). A file that does
     * not load is passed over (one broken sibling failed every alias
     * lookup) and named if the name is found nowhere. */
    char **paths = NULL;
    size_t n = 0;
    int prc;
    if ((prc = ic_db_paths(db, k->kind, &paths, &n, err))) {
        rc = prc;
        goto out;
    }
    struct near nr = {.n = 0};
    struct ic_err broken = {0};
    size_t n_broken = 0, found_at = SIZE_MAX;
    struct claims cl = {0};
    for (size_t i = 0; i < n; i++) {
        if (found_path[0] && strcmp(paths[i], found_path) == 0)
            continue;
        struct ic_err le = {0};
        int lrc = k->load(paths[i], rec, &le);
        if (lrc) {
            if (lrc == IC_ENOMEM) {
                if (err)
                    *err = le;
                rc = IC_ENOMEM;
                break;
            }
            if (!n_broken++)
                broken = le;
            continue;
        }
        const size_t first = cl.n;
        if ((prc = claims_add(&cl, k, rec, i, err))) {
            rc = prc;
            goto scanned;
        }
        for (size_t c = first; c < cl.n; c++) {
            const char *a = cl.v[c].text;
            near_add(&nr, name, a);
            if (!found_path[0] && strcasecmp(a, name) == 0) {
                memcpy(out, rec, k->size);
                snprintf(found_path, sizeof found_path, "%s", paths[i]);
                snprintf(found_name, sizeof found_name, "%s", k->name(rec));
                found_at = i;
                rc = IC_OK;
            }
        }
    }
    for (size_t c = 0; rc == IC_OK && c < cl.n; c++) {
        const struct claim *x = &cl.v[c];
        if (x->file == found_at)
            continue;
        if (strcasecmp(x->text, name) == 0)
            rc = dup_error(err, k, paths[x->file], x->at, found_path, name);
        else if (strcasecmp(x->text, found_name) == 0)
            rc = dup_error(err, k, paths[x->file], x->at, found_path, found_name);
    }
scanned:
    free(cl.v);
    ic_db_paths_free(paths, n);
    if (rc == IC_ENOENT && n_broken && !(k->kind == IC_DB_MODEL && strchr(name, '/'))) {
        ic_err_set(err, IC_ENOENT, NULL, 0, 0,
                   "unknown %s '%s' (%zu file%s of the database did not load: %.300s:%u: %.300s)",
                   k->what, name, n_broken, n_broken == 1 ? "" : "s", broken.file,
                   broken.line, broken.msg);
        ic_err_hint(err, "fix or remove that file: it may hold the name");
        goto out;
    }
    if (rc == IC_ENOENT && k->kind == IC_DB_MODEL && strchr(name, '/')) {
        /* not a modeldb entry's name, alias or repository: "org/name" from
         * the local Hugging Face cache */
        char path[1400];
        rc = hf_cache(name, path, sizeof path, err);
        if (rc == IC_ENOENT && n_broken && err) {
            /* a database file that did not load may hold the name */
            char m[sizeof err->msg];
            snprintf(m, sizeof m, "%.600s (and %zu file%s of the database did not load: "
                                  "%.200s:%u)",
                     err->msg, n_broken, n_broken == 1 ? "" : "s", broken.file, broken.line);
            snprintf(err->msg, sizeof err->msg, "%s", m);
        }
        if (!rc && !(rc = k->load(path, out, err))) {
            /* named as the repository, not its snapshot's folder */
            struct ic_model *m = out;
            ic_utf8_cut(m->name, sizeof m->name, name, strlen(name));
        }
        goto out;
    }
    struct stat ds;
    if (rc == IC_ENOENT && stat(name, &ds) == 0 && S_ISDIR(ds.st_mode)) {
        /* a folder of that name (a checkpoint's, without its config.json) */
        rc = folder_error(k->kind, k->what, name, err);
        goto out;
    }
    if (rc == IC_ENOENT) {
        ic_err_set(err, IC_ENOENT, NULL, 0, 0, "unknown %s '%s'", k->what, name);
        /* a file the name was meant for: NAME.yaml, or NAME itself in a
         * folder a bare name is not read from ('mi325x' beside mi325x.yaml;
         * a file without an extension) */
        char file[700];
        struct stat fs;
        snprintf(file, sizeof file, "%s.yaml", name);
        if (!(stat(file, &fs) == 0 && S_ISREG(fs.st_mode)))
            snprintf(file, sizeof file, "./%s", name); /* a name with '/' is a path if a file */
        if (stat(file, &fs) == 0 && S_ISREG(fs.st_mode))
            ic_err_hint(err, "the file %s? a file is read by its path: one ending in .yaml, "
                             ".yml or .json, or starting with / or ./",
                        file);
        else
            near_hint(&nr, err, k->list_cmd);
    }
out:
    free(rec);
    return rc;
}

int ic_db_hw(const struct ic_db *db, const char *name, struct ic_hw *out, struct ic_err *err)
{
    return lookup(db, &ops[IC_DB_HW], name, out, err);
}

int ic_db_model(const struct ic_db *db, const char *name, struct ic_model *out,
                struct ic_err *err)
{
    return lookup(db, &ops[IC_DB_MODEL], name, out, err);
}

int ic_db_engine(const struct ic_db *db, const char *name, struct ic_engine *out,
                 struct ic_err *err)
{
    return lookup(db, &ops[IC_DB_ENGINE], name, out, err);
}
