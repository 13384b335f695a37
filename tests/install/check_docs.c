/* check_docs: the man page and the bash completion against the option table.
 *
 *   check_docs man infcalc.1      every option of ic_opt_table has an entry
 *                                 (.B/.BR --name) and every command one under
 *                                 COMMANDS; every --word the page names is an
 *                                 option of the table
 *   check_docs completion FILE    every option and command is in the script,
 *                                 and each command's list of options there is
 *                                 exactly the table's
 * Exits 1 naming each mismatch. */
#include "ic_opt.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

/* The page with troff's "\-" as "-" and "\e" as "\". */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && (r[1] == '-' || r[1] == 'e')) {
            *w++ = r[1] == '-' ? '-' : '\\';
            r++;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* A line of text starting with prefix and then word, ended by a space, a
 * quote or the end of the line. */
static bool has_entry(const char *text, const char *prefix, const char *word)
{
    size_t lp = strlen(prefix), lw = strlen(word);
    for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, prefix, lp) == 0 && strncmp(l + lp, word, lw) == 0) {
            char c = l[lp + lw];
            if (c == ' ' || c == '"' || c == '\n' || c == '\0')
                return true;
        }
    }
    return false;
}

static bool word_in(const char *text, const char *word)
{
    size_t lw = strlen(word);
    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-');
        char c = p[lw];
        if (start && !(isalnum((unsigned char)c) || c == '-' || c == '_'))
            return true;
    }
    return false;
}

static int check_man(char *page)
{
    int bad = 0;
    unescape(page);
    for (int k = 0; k < IC_OPT_COUNT; k++) {
        const char *name = ic_opt_table[k].name;
        if (!has_entry(page, ".BR ", name) && !has_entry(page, ".B ", name)) {
            printf("man page: option %s of the option table has no entry (.BR %s)\n", name,
                   name);
            bad = 1;
        }
    }
    const char *cmds = strstr(page, "\n.SH COMMANDS");
    const char *end = cmds ? strstr(cmds + 1, "\n.SH ") : NULL;
    if (!cmds || !end) {
        printf("man page: no COMMANDS section\n");
        return 1;
    }
    size_t len = (size_t)(end - cmds);
    char *sec = malloc(len + 1);
    if (!sec)
        return 1;
    memcpy(sec, cmds, len);
    sec[len] = '\0';
    for (int c = 0; c < IC_CMD_COUNT; c++) {
        const char *name = ic_cmd_name((enum ic_cmd)c);
        if (!has_entry(sec, ".B ", name) && !has_entry(sec, ".BR ", name)) {
            printf("man page: command %s has no entry under COMMANDS\n", name);
            bad = 1;
        }
    }
    free(sec);
    /* and nothing the table lacks */
    for (const char *p = strstr(page, "--"); p; p = strstr(p + 2, "--")) {
        char name[64];
        size_t n = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (n <= 2 || n >= sizeof name)
            continue;
        memcpy(name, p, n);
        name[n] = '\0';
        if (ic_opt_find(name) < 0) {
            printf("man page: names %s, which the option table lacks\n", name);
            bad = 1;
        }
        p += n - 2;
    }
    return bad;
}

static int check_completion(const char *script)
{
    int bad = 0;
    for (int k = 0; k < IC_OPT_COUNT; k++)
        if (!word_in(script, ic_opt_table[k].name)) {
            printf("completion: option %s missing\n", ic_opt_table[k].name);
            bad = 1;
        }
    for (int c = 0; c < IC_CMD_COUNT; c++) {
        const char *name = ic_cmd_name((enum ic_cmd)c);
        char head[64];
        snprintf(head, sizeof head, "\n    %s) opts='", name);
        const char *p = strstr(script, head);
        if (!p) {
            printf("completion: no option list for command %s\n", name);
            bad = 1;
            continue;
        }
        p += strlen(head);
        const char *q = strchr(p, '\'');
        if (!q)
            return 1;
        char list[4096];
        size_t n = (size_t)(q - p) < sizeof list - 2 ? (size_t)(q - p) : sizeof list - 2;
        list[0] = ' ';
        memcpy(list + 1, p, n);
        list[n + 1] = '\0';
        int listed = 0;
        for (const char *w = list; (w = strstr(w, " --")); w++)
            listed++;
        int want = 0;
        for (int k = 0; k < IC_OPT_COUNT; k++) {
            if (!(ic_opt_table[k].cmds >> c & 1))
                continue;
            want++;
            if (!word_in(list, ic_opt_table[k].name)) {
                printf("completion: %s lacks %s\n", name, ic_opt_table[k].name);
                bad = 1;
            }
        }
        if (listed != want) {
            printf("completion: %s lists %d options, the table %d\n", name, listed, want);
            bad = 1;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "man") && strcmp(argv[1], "completion"))) {
        fprintf(stderr, "usage: check_docs man|completion FILE\n");
        return 2;
    }
    char *text = slurp(argv[2]);
    if (!text)
        return 1;
    int bad = strcmp(argv[1], "man") == 0 ? check_man(text) : check_completion(text);
    free(text);
    if (!bad)
        printf("%s: every option of the table (%d) and every command (%d)\n", argv[2],
               IC_OPT_COUNT, IC_CMD_COUNT);
    return bad;
}
