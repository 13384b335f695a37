/* Shared helpers for the Check suites: loading database entries by name and
 * running a suite to an exit status (EXIT_FAILURE on any failure, never the
 * failure count, which wraps at 256). */
#ifndef IC_TEST_H
#define IC_TEST_H

#include "ic_db.h"
#include "ic_decode.h"
#include "ic_hw.h"
#include "ic_model.h"

#include <check.h>

/* Loads a hwdb / modeldb entry by name, alias or path from the frozen
 * copies in tests/frozen, or fails the test. Hand arithmetic on spec numbers
 * reads these copies, so a sourced correction to the live hwdb/ or modeldb/
 * does not fail the suites that check the arithmetic (see
 * tests/frozen/README.md). */
void ic_test_hw(const char *name, struct ic_hw *out);
void ic_test_model(const char *name, struct ic_model *out, struct ic_model_stats *st);

/* The same from the live hwdb/ and modeldb/ of the source tree: for the db
 * suite, which checks the live entries themselves. */
void ic_test_live_hw(const char *name, struct ic_hw *out);
void ic_test_live_model(const char *name, struct ic_model *out, struct ic_model_stats *st);

/* The stats of a config.json or model file under tests/fixtures, or fails
 * the test. */
void ic_test_fixture_stats(const char *file, struct ic_model_stats *st);

/* A model (with its stats) and a chip, loaded together: the setup most
 * decode and plot tests share. */
struct ic_test_pair {
    struct ic_model m;
    struct ic_model_stats st;
    struct ic_hw h;
};

/* Loads model and hw by name, alias or path, or fails the test; free() it. */
struct ic_test_pair *ic_test_pair(const char *model, const char *hw);

/* The test engine profile, tests/fixtures/engine-test.yaml (plain
 * launches, host time, attention and GEMV factors: the tests' hand
 * arithmetic reads its figures), or fails the test; free() it. */
struct ic_engine *ic_test_engine_fixture(void);

/* Decode point for model/hw names and a config; fails the test on error. */
struct ic_point ic_test_decode(const char *model, const char *hw, struct ic_decode_cfg cfg);

/* Runs one suite and returns the process exit status. */
int ic_test_run(Suite *s);

/* Relative difference |a - b| / |b|. */
double ic_test_rel(double a, double b);

/* Writes text to a new temporary file, its name in path (at least 32
 * bytes); the caller removes it. */
void ic_test_write_tmp(char *path, const char *text);

#endif
