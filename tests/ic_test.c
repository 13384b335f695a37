/* Shared helpers for the Check suites. */
#include "ic_test.h"

#include "ic_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frozen copies (tests/frozen) unless live. */
static struct ic_db test_db(bool live)
{
    struct ic_db db;
    struct ic_err e = {0};
    int rc = ic_db_init(&db, live ? IC_SRC_DIR : IC_TEST_DIR "/frozen", &e);
    ck_assert_msg(rc == 0, "db: %s", e.msg);
    return db;
}

static void load_hw(bool live, const char *name, struct ic_hw *out)
{
    struct ic_db db = test_db(live);
    struct ic_err e = {0};
    int rc = ic_db_hw(&db, name, out, &e);
    ck_assert_msg(rc == 0, "hw %s: %s:%u:%u: %s", name, e.file, e.line, e.col, e.msg);
}

void ic_test_hw(const char *name, struct ic_hw *out) { load_hw(false, name, out); }
void ic_test_live_hw(const char *name, struct ic_hw *out) { load_hw(true, name, out); }

static void load_model(bool live, const char *name, struct ic_model *out,
                       struct ic_model_stats *st)
{
    struct ic_db db = test_db(live);
    struct ic_err e = {0};
    int rc = ic_db_model(&db, name, out, &e);
    ck_assert_msg(rc == 0, "model %s: %s:%u:%u: %s", name, e.file, e.line, e.col, e.msg);
    rc = ic_model_derive(out, st, &e);
    ck_assert_msg(rc == 0, "derive %s: %s", name, e.msg);
}

void ic_test_model(const char *name, struct ic_model *out, struct ic_model_stats *st)
{
    load_model(false, name, out, st);
}

void ic_test_live_model(const char *name, struct ic_model *out, struct ic_model_stats *st)
{
    load_model(true, name, out, st);
}

void ic_test_fixture_stats(const char *file, struct ic_model_stats *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/fixtures/%s", IC_TEST_DIR, file);
    struct ic_model *m = malloc(sizeof *m);
    ck_assert(m);
    struct ic_err e = {0};
    int rc = ic_model_load(path, m, &e);
    ck_assert_msg(rc == 0, "%s: %s", file, e.msg);
    rc = ic_model_derive(m, st, &e);
    ck_assert_msg(rc == 0, "derive %s: %s", file, e.msg);
    free(m);
}

struct ic_test_pair *ic_test_pair(const char *model, const char *hw)
{
    struct ic_test_pair *t = malloc(sizeof *t);
    ck_assert(t);
    ic_test_model(model, &t->m, &t->st);
    ic_test_hw(hw, &t->h);
    return t;
}

struct ic_engine *ic_test_engine_fixture(void)
{
    struct ic_engine *en = malloc(sizeof *en);
    ck_assert(en);
    struct ic_err e = {0};
    ck_assert_msg(ic_engine_load(IC_TEST_DIR "/fixtures/engine-test.yaml", en, &e) == IC_OK, "%s",
                  e.msg);
    return en;
}

struct ic_point ic_test_decode(const char *model, const char *hw, struct ic_decode_cfg cfg)
{
    struct ic_test_pair *t = ic_test_pair(model, hw);
    struct ic_point p;
    struct ic_err e = {0};
    int rc = ic_decode(&t->st, &t->h, &cfg, &p, &e);
    ck_assert_msg(rc == 0, "decode: %s", e.msg);
    free(t);
    return p;
}

int ic_test_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

double ic_test_rel(double a, double b) { return fabs(a - b) / fabs(b); }

void ic_test_write_tmp(char *path, const char *text)
{
    strcpy(path, "/tmp/ic_test_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}
