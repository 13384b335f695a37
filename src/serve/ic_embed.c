/* ic_embed: writes a file as a C string constant, so the page `infcalc
 * serve` sends is edited as HTML and compiled into the binary.
 * Usage: ic_embed NAME INPUT OUTPUT.c */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fputs("usage: ic_embed NAME INPUT OUTPUT.c\n", stderr);
        return 2;
    }
    FILE *in = fopen(argv[2], "rb"), *out = fopen(argv[3], "w");
    if (!in || !out) {
        perror("ic_embed");
        return 1;
    }
    fprintf(out, "/* generated from %s by ic_embed; edit that file */\n", argv[2]);
    fprintf(out, "extern const char %s[];\nconst char %s[] =\n\"", argv[1], argv[1]);
    int c, col = 0;
    while ((c = fgetc(in)) != EOF) {
        if (c == '\n') {
            fputs("\\n\"\n\"", out);
            col = 0;
            continue;
        }
        if (c == '"' || c == '\\' || c == '?') /* '?': no trigraphs */
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\%03o", c);
        else
            fputc(c, out);
        if (++col > 500) { /* keep lines short for the compiler */
            fputs("\"\n\"", out);
            col = 0;
        }
    }
    fputs("\";\n", out);
    int bad = ferror(in) || ferror(out);
    fclose(in);
    return fclose(out) || bad ? 1 : 0;
}
