/* ic_hwwrite: the hwdb writer over the loader's schema (see the header). */
#include "ic_hwwrite.h"
#include "ic_out.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The unit a quantity of each kind is written in, and its scale in SI. */
static const struct {
    const char *unit, *zero;
    double scale;
} qty_units[IC_QTY_COUNT] = {
    [IC_QTY_BYTES] = {"B", "B", 1},
    [IC_QTY_BANDWIDTH] = {"GB/s", "B/s", 1e9},
    [IC_QTY_RATE] = {"GFLOP/s", "FLOP/s", 1e9},
    [IC_QTY_TIME] = {"us", "s", 1e-6},
};
_Static_assert(sizeof qty_units / sizeof qty_units[0] == IC_QTY_COUNT, "a unit per kind");

static const void *at(const struct ic_hw *hw, size_t offset)
{
    return (const char *)hw + offset;
}

static double number_at(const struct ic_hw *hw, size_t offset)
{
    double v;
    memcpy(&v, at(hw, offset), sizeof v);
    return v;
}

/* Whether field f of hw holds anything to write (see the header). */
static bool has_value(const struct ic_hw *hw, const struct ic_field *f)
{
    switch (f->kind) {
    case IC_F_STR:
        return *(const char *)at(hw, f->offset) != '\0';
    case IC_F_STRLIST: {
        uint32_t n;
        memcpy(&n, at(hw, f->offset2), sizeof n);
        return n > 0;
    }
    case IC_F_COUNT:
    case IC_F_COUNT_NULL: {
        uint64_t v;
        memcpy(&v, at(hw, f->offset), sizeof v);
        return v != 0;
    }
    case IC_F_BOOL:
        return *(const bool *)at(hw, f->offset);
    case IC_F_NUMBER:
    case IC_F_QTY:
        return number_at(hw, f->offset) != 0;
    case IC_F_CUSTOM:
        for (size_t i = 0; i < f->size2; i++)
            if (number_at(hw, f->offset + i * sizeof(double)) != 0)
                return true;
        return false;
    case IC_F_MAP:
        for (size_t i = 0; i < f->sub->n_fields; i++)
            if (has_value(hw, &f->sub->fields[i]))
                return true;
        return false;
    }
    return false;
}

/* A string YAML reads back as itself without quotes: letters, digits and
 * . _ / + - only, led by a letter or digit, and not a null word. */
static bool plain_ok(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
        return false;
    if (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return false;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
              (*c >= '0' && *c <= '9') || strchr("._/+-", *c)))
            return false;
    return true;
}

static void put_string(FILE *f, const char *s)
{
    if (plain_ok(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c == '\n')
            fputs("\\n", f);
        else if (*c == '\t')
            fputs("\\t", f);
        else if (*c < 0x20)
            fprintf(f, "\\x%02x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

static int put_number(FILE *f, const struct ic_field *fd, double v, bool qty, struct ic_err *err)
{
    if (!isfinite(v) || v < 0)
        return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                          "cannot write '%s': %g is not a finite non-negative number", fd->key,
                          v);
    if (!qty)
        fprintf(f, "%.6g", v);
    else if (fd->qty == IC_QTY_BYTES)
        fprintf(f, "%.0f B", v); /* sizes are whole bytes: all their digits */
    else if (v == 0)
        fprintf(f, "0 %s", qty_units[fd->qty].zero);
    else
        fprintf(f, "%.6g %s", v / qty_units[fd->qty].scale, qty_units[fd->qty].unit);
    return IC_OK;
}

static int write_map(FILE *f, const struct ic_hw *hw, const struct ic_schema *s, int indent,
                     struct ic_err *err)
{
    for (size_t i = 0; i < s->n_fields; i++) {
        const struct ic_field *fd = &s->fields[i];
        if (!fd->required && !has_value(hw, fd))
            continue;
        fprintf(f, "%*s%s:", indent, "", fd->key);
        int rc = IC_OK;
        switch (fd->kind) {
        case IC_F_STR:
            fputc(' ', f);
            put_string(f, at(hw, fd->offset));
            break;
        case IC_F_STRLIST: {
            uint32_t n;
            memcpy(&n, at(hw, fd->offset2), sizeof n);
            if (!n)
                fputs(" []", f);
            for (uint32_t j = 0; j < n; j++) {
                fprintf(f, "\n%*s  - ", indent, "");
                put_string(f, (const char *)at(hw, fd->offset) + (size_t)j * fd->size);
            }
            break;
        }
        case IC_F_COUNT:
        case IC_F_COUNT_NULL: {
            uint64_t v;
            memcpy(&v, at(hw, fd->offset), sizeof v);
            fprintf(f, " %llu", (unsigned long long)v);
            break;
        }
        case IC_F_BOOL:
            fputs(*(const bool *)at(hw, fd->offset) ? " true" : " false", f);
            break;
        case IC_F_NUMBER:
        case IC_F_QTY:
            fputc(' ', f);
            rc = put_number(f, fd, number_at(hw, fd->offset), fd->kind == IC_F_QTY, err);
            break;
        case IC_F_CUSTOM:
            if (fd->size2 == 0)
                return ic_err_set(err, IC_EINVAL, NULL, 0, 0,
                                  "cannot write '%s': the schema does not say where it is",
                                  fd->key);
            for (size_t j = 0; j < fd->size2 && !rc; j++) {
                fputs(j ? ", " : " [", f);
                rc = put_number(f, fd, number_at(hw, fd->offset + j * sizeof(double)), true,
                                err);
            }
            fputc(']', f);
            break;
        case IC_F_MAP:
            if (!has_value(hw, fd)) {
                fputs(" {}\n", f); /* required and empty: the loader says what is missing */
                continue;
            }
            fputc('\n', f);
            if ((rc = write_map(f, hw, fd->sub, indent + 2, err)))
                return rc;
            continue; /* its keys ended their own lines */
        }
        if (rc)
            return rc;
        fputc('\n', f);
    }
    return IC_OK;
}

int ic_hwwrite(FILE *f, const struct ic_hw *hw, const char *comment, struct ic_err *err)
{
    for (const char *c = comment; c && *c;) {
        size_t n = strcspn(c, "\n");
        fprintf(f, "# %.*s\n", (int)n, c);
        c += n + (c[n] == '\n');
    }
    int rc = write_map(f, hw, ic_hw_schema(), 0, err);
    if (rc == IC_OK && ferror(f))
        rc = ic_err_set(err, IC_EIO, NULL, 0, 0, "writing the entry failed");
    return rc;
}

int ic_hwwrite_file(const char *path, const struct ic_hw *hw, const char *comment,
                    struct ic_err *err)
{
    struct ic_out o;
    int rc = ic_out_open(&o, path, "the entry", err);
    if (rc)
        return rc;
    rc = ic_hwwrite(o.f, hw, comment, err);
    if (rc && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    int crc = ic_out_close(&o, rc != IC_OK, err);
    return rc ? rc : crc;
}
