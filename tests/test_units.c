/* Units: quantities parse to SI with the right scale (GB vs GiB, bits vs
 * bytes), the wrong kind of unit and bare numbers are refused, and dtype
 * sizes round up to whole bytes. */
#include "ic_report.h"
#include "ic_test.h"
#include "ic_units.h"

#include <string.h>

static double qty(const char *text, enum ic_qty q)
{
    double v = -1;
    char why[256];
    int rc = ic_qty_parse(text, q, &v, why, sizeof why);
    ck_assert_msg(rc == 0, "'%s': %s", text, why);
    return v;
}

static void qty_fails(const char *text, enum ic_qty q, const char *expect)
{
    double v = 0;
    char why[256] = "";
    int rc = ic_qty_parse(text, q, &v, why, sizeof why);
    ck_assert_msg(rc == IC_EINVAL, "'%s' should fail", text);
    ck_assert_msg(strstr(why, expect), "'%s': reason '%s' lacks '%s'", text, why, expect);
}

START_TEST(test_sizes)
{
    ck_assert_double_eq(qty("16 GB", IC_QTY_BYTES), 16e9);
    ck_assert_double_eq(qty("80 GiB", IC_QTY_BYTES), 80.0 * 1073741824.0); /* 85,899,345,920 */
    ck_assert_double_eq(qty("1 KiB", IC_QTY_BYTES), 1024.0);
    ck_assert_double_eq(qty("141e9 B", IC_QTY_BYTES), 141e9);
    ck_assert_double_eq(qty("0.5 TB", IC_QTY_BYTES), 5e11);
}
END_TEST

START_TEST(test_rates)
{
    ck_assert_double_eq_tol(qty("3.35 TB/s", IC_QTY_BANDWIDTH), 3.35e12, 1);
    ck_assert_double_eq(qty("8.2e11 B/s", IC_QTY_BANDWIDTH), 8.2e11);
    /* 400 Gbit/s of InfiniBand is 50 GB/s */
    ck_assert_double_eq(qty("400 Gbit/s", IC_QTY_BANDWIDTH), 5e10);
    /* the peta units the range errors name ("10 PB/s"): 5 PB/s, 8 Pbit/s =
     * 1e15 B/s; 8 kbit/s = 1000 B/s */
    ck_assert_double_eq(qty("5 PB/s", IC_QTY_BANDWIDTH), 5e15);
    ck_assert_double_eq(qty("8 Pbit/s", IC_QTY_BANDWIDTH), 1e15);
    ck_assert_double_eq(qty("8 kbit/s", IC_QTY_BANDWIDTH), 1e3);
    /* a hint's 'key: VALUE' takes one unquoted value (it nested the
     * example's quotes: 'bandwidth: '3.35 TB/s' or '400 Gbit/s'') */
    ck_assert_ptr_null(strchr(ic_qty_sample(IC_QTY_BANDWIDTH), '\''));
    ck_assert_double_eq(qty(ic_qty_sample(IC_QTY_BANDWIDTH), IC_QTY_BANDWIDTH), 3.35e12);
    ck_assert_double_eq(qty("989 TFLOP/s", IC_QTY_RATE), 989e12);
    ck_assert_double_eq(qty("394 TOP/s", IC_QTY_RATE), 394e12);
    ck_assert_double_eq_tol(qty("1 us", IC_QTY_TIME), 1e-6, 1e-18);
    ck_assert_double_eq_tol(qty("5 ms", IC_QTY_TIME), 5e-3, 1e-15);
}
END_TEST

START_TEST(test_bad_quantities)
{
    qty_fails("3.35", IC_QTY_BANDWIDTH, "no unit");
    qty_fails("80 GB", IC_QTY_BANDWIDTH, "is a size, but a bandwidth is expected");
    qty_fails("3 TB/s", IC_QTY_BYTES, "is a bandwidth");
    qty_fails("-1 GB", IC_QTY_BYTES, "'-1 GB' has a minus sign");
    qty_fails("+1 GB", IC_QTY_BYTES, "'+1 GB' has a plus sign");
    qty_fails(".5 GB", IC_QTY_BYTES, "no digit before the point");
    qty_fails("5. GB", IC_QTY_BYTES, "no digit after the point");
    qty_fails("0.2", IC_QTY_TIME, "'0.2' has no unit");
    qty_fails("nan GB", IC_QTY_BYTES, "not a number");
    qty_fails(".inf GB", IC_QTY_BYTES, "not a number");
    qty_fails("inf GB", IC_QTY_BYTES, "not a number");
    qty_fails("1e400 GB", IC_QTY_BYTES, "out of range");
    qty_fails("1e300 PB", IC_QTY_BYTES, "out of range"); /* finite number, infinite product */
    qty_fails("12 furlongs", IC_QTY_TIME, "unknown unit 'furlongs'");
    qty_fails("0x10 GB", IC_QTY_BYTES, "hexadecimal");
    qty_fails("+0x10 GB", IC_QTY_BYTES, "hexadecimal");
    qty_fails("GB", IC_QTY_BYTES, "not a number");
}
END_TEST

START_TEST(test_counts)
{
    uint64_t v;
    char why[256];
    ck_assert_int_eq(ic_count_parse("70553706496", &v, why, sizeof why), 0);
    ck_assert_uint_eq(v, 70553706496u);
    ck_assert_int_eq(ic_count_parse("70.6e9", &v, why, sizeof why), 0);
    ck_assert_uint_eq(v, 70600000000u);
    /* exact beyond 2^53, where a double would round */
    ck_assert_int_eq(ic_count_parse("9007199254740993", &v, why, sizeof why), 0);
    ck_assert_uint_eq(v, 9007199254740993u);
    ck_assert_int_eq(ic_count_parse("1.5", &v, why, sizeof why), IC_EINVAL);
    ck_assert_int_eq(ic_count_parse("-3", &v, why, sizeof why), IC_EINVAL);
    ck_assert_int_eq(ic_count_parse("3 GB", &v, why, sizeof why), IC_EINVAL);
    ck_assert_int_eq(ic_count_parse("1e19", &v, why, sizeof why), IC_EINVAL);
    ck_assert_int_eq(ic_count_parse("99999999999999999999999", &v, why, sizeof why),
                     IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(why, "too large"));
    /* a point or an exponent is read exactly, in integers: digits x 10^(E - F) */
    static const struct {
        const char *text;
        uint64_t v;
    } whole[] = {
        {"8.0", 8},
        {"1e3", 1000},
        {"1E+3", 1000},
        {"100e-2", 1},                                      /* 100 x 10^-2 */
        {"10.50e1", 105},                                   /* 1050 x 10^(1 - 2) */
        {"0.05e2", 5},                                      /* 5 x 10^(2 - 2) */
        {"0.000", 0},
        {"0e5", 0},
        {"1e18", UINT64_C(1000000000000000000)},            /* exact in a double too */
        {"9007199254740993.0", UINT64_C(9007199254740993)}, /* 2^53 + 1: a double says ..992 */
        {"9.223372036854775807e18", UINT64_C(9223372036854775807)}, /* 2^63 - 1 */
    };
    for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++) {
        v = 12345;
        ck_assert_msg(ic_count_parse(whole[i].text, &v, why, sizeof why) == 0, "%s: %s",
                      whole[i].text, why);
        ck_assert_uint_eq(v, whole[i].v);
    }
    static const struct {
        const char *text, *why;
    } refused[] = {
        {"8.5", "'8.5' is not a whole number"},
        {"1e-3", "'1e-3' is not a whole number"},
        {"123456789012345678901234567890e-20", "is not a whole number"}, /* 1234567890.1234... */
        {"9.223372036854775808e18", "too large"},                        /* 2^63 */
        {"9223372036854775808", "too large"},
        {"+8", "'+8' has a plus sign"},
        {".5", "'.5' has no digit before the point (write 0.5)"},
        {"5.", "'5.' has no digit after the point (write 5 or 5.0)"},
        {"5.e3", "no digit after the point"},
        {"+0x4", "hexadecimal"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ck_assert_int_eq(ic_count_parse(refused[i].text, &v, why, sizeof why), IC_EINVAL);
        ck_assert_msg(strstr(why, refused[i].why), "%s: '%s' lacks '%s'", refused[i].text, why,
                      refused[i].why);
    }
}
END_TEST

START_TEST(test_dtypes)
{
    enum ic_dtype t;
    ck_assert_int_eq(ic_dtype_parse("int4", &t), 0);
    ck_assert_int_eq(t, IC_DT_INT4);
    ck_assert_int_eq(ic_dtype_parse("bf17", &t), IC_ENOENT);
    ck_assert_uint_eq(ic_dtype_bytes(IC_DT_INT4, 3), 2);  /* 12 bits round up */
    ck_assert_uint_eq(ic_dtype_bytes(IC_DT_BF16, 1000), 2000);
    ck_assert_uint_eq(ic_dtype_bytes(IC_DT_FP32, UINT64_C(1) << 60), UINT64_C(1) << 62);
    for (int i = 0; i < IC_DT_COUNT; i++)
        ck_assert_ptr_nonnull(ic_dtype_traits((enum ic_dtype)i)->name);
}
END_TEST

START_TEST(test_distance)
{
    ck_assert_uint_eq(ic_text_distance("hbm_bandwith", "hbm_bandwidth"), 1);
    ck_assert_uint_eq(ic_text_distance("V5E", "v5e"), 0);
    ck_assert_uint_eq(ic_text_distance("", "abc"), 3);
    ck_assert_uint_eq(ic_text_distance("kitten", "sitting"), 3);
}
END_TEST

/* Times as the tables print them: three significant digits in the unit
 * that keeps them above 1, and whole seconds from 1000 s to 1e6 s (%.3g
 * wrote "1e+03 s" for a TTFT of 1003 s) */
START_TEST(test_report_time)
{
    static const struct {
        double s;
        const char *want;
    } c[] = {{5e-10, "0.5 ns"},   {8.654e-3, "8.65 ms"}, {2.5e-6, "2.5 us"},
             {999.4, "999 s"},    {999.6, "1000 s"},     {1003.4, "1003 s"},
             {123456.7, "123457 s"}, {2.5e6, "2.5e+06 s"}};
    char buf[32];
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        ic_report_time(buf, sizeof buf, c[i].s);
        ck_assert_str_eq(buf, c[i].want);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, test_sizes);
    tcase_add_test(tc, test_rates);
    tcase_add_test(tc, test_bad_quantities);
    tcase_add_test(tc, test_counts);
    tcase_add_test(tc, test_dtypes);
    tcase_add_test(tc, test_distance);
    tcase_add_test(tc, test_report_time);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
