/* Standalone driver for the fuzz harnesses, for compilers without
 * libFuzzer (gcc, the default in CI): runs LLVMFuzzerTestOneInput once over
 * each file named on the command line, and over each file in a folder named
 * there (not recursing). The regression test runs it over the seeds and
 * the broken corpus; a harness oracle that fails aborts, and so fails the
 * test. */
#include "fuzz_common.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { MAX_INPUT = 1 << 20 };

static int run_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", path);
        return 1;
    }
    uint8_t *buf = malloc(MAX_INPUT);
    if (!buf) {
        fclose(f);
        return 1;
    }
    size_t len = fread(buf, 1, MAX_INPUT, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    (*n)++;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: cannot open folder\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t cnt = 0, cap = 0;
    int rc = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        if (cnt == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = 1;
                break;
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(names[cnt] = malloc(len))) {
            rc = 1;
            break;
        }
        snprintf(names[cnt++], len, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (cnt)
        qsort(names, cnt, sizeof *names, cmp_str); /* the same order on every run */
    for (size_t i = 0; i < cnt; i++) {
        struct stat st;
        if (!rc && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            rc = run_file(names[i], n);
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    LLVMFuzzerInitialize(&argc, &argv);
    size_t n = 0;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: not found\n", argv[i]);
            rc = 1;
        } else {
            rc = S_ISDIR(st.st_mode) ? run_dir(argv[i], &n) : run_file(argv[i], &n);
        }
    }
    printf("%zu inputs, no oracle failed\n", n);
    return rc ? EXIT_FAILURE : n ? EXIT_SUCCESS : EXIT_FAILURE;
}
