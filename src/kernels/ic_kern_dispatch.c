/* ic_kern_dispatch: the kernel's functions under their plain names, each a
 * call into the SIMD variant chosen once per process (ic_kern_api.h).
 *
 * The choice, made before main (a constructor) so every thread sees one:
 * the widest variant the CPU and the OS support (AVX-512 with BW, DQ, VL
 * and VNNI; else AVX2 with FMA, BMI1/2, F16C and MOVBE, the x86-64-v3 set;
 * else the x86-64 baseline), unless INFCALC_SIMD names a narrower one
 * (avx512, avx2 or portable; a variant the CPU lacks, or any other value,
 * is not taken: the widest supported one is). */
#include "ic_kern_api.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <cpuid.h>
#endif

#define IC_KERN_DECL_SUFFIX _avx512
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX
#define IC_KERN_DECL_SUFFIX _avx2
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX
#define IC_KERN_DECL_SUFFIX _portable
IC_KERN_API(IC_KERN_DECL_X, IC_KERN_DECL_XV)
#undef IC_KERN_DECL_SUFFIX

struct table {
    const char *name;
#define FIELD_X(ret, name, params, args) ret(*name) params;
#define FIELD_XV(name, params, args) void(*name) params;
    IC_KERN_API(FIELD_X, FIELD_XV)
};

#define INIT_X(ret, name, params, args) .name = IC_KERN_CAT_(name, SUFFIX),
#define INIT_XV(name, params, args) .name = IC_KERN_CAT_(name, SUFFIX),
enum { V_AVX512, V_AVX2, V_PORTABLE, V_COUNT };
static const struct table tables[V_COUNT] = {
#define SUFFIX _avx512
    [V_AVX512] = {.name = "avx512", IC_KERN_API(INIT_X, INIT_XV)},
#undef SUFFIX
#define SUFFIX _avx2
    [V_AVX2] = {.name = "avx2", IC_KERN_API(INIT_X, INIT_XV)},
#undef SUFFIX
#define SUFFIX _portable
    [V_PORTABLE] = {.name = "portable", IC_KERN_API(INIT_X, INIT_XV)},
#undef SUFFIX
};

static bool cpu_has(int v)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    /* F16C, MOVBE and POPCNT from CPUID leaf 1 (clang 14's
     * __builtin_cpu_supports knows neither "f16c" nor "movbe"); they need no
     * OS support. The AVX ones through the builtin, which checks XCR0. */
    unsigned a, b, c = 0, d;
    bool leaf1 = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) && (c & bit_MOVBE) &&
                 (c & bit_POPCNT);
    bool v3 = leaf1 && __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") &&
              __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi") &&
              __builtin_cpu_supports("bmi2");
    if (v == V_AVX2)
        return v3;
    if (v == V_AVX512)
        return v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#endif
    return v == V_PORTABLE;
}

static const struct table *chosen = &tables[V_PORTABLE];

__attribute__((constructor)) static void choose(void)
{
    int first = V_AVX512;
    const char *want = getenv("INFCALC_SIMD");
    for (int v = 0; want && v < V_COUNT; v++)
        if (strcmp(want, tables[v].name) == 0)
            first = v;
    for (int v = first; v < V_COUNT; v++)
        if (cpu_has(v)) {
            chosen = &tables[v];
            return;
        }
}

const char *ic_kern_simd(void) { return chosen->name; }

bool ic_kern_simd_supported(const char *name)
{
    for (int v = 0; v < V_COUNT; v++)
        if (strcmp(name, tables[v].name) == 0)
            return cpu_has(v);
    return false;
}

#define WRAP_X(ret, name, params, args) \
    ret name params { return chosen->name args; }
#define WRAP_XV(name, params, args) \
    void name params { chosen->name args; }
IC_KERN_API(WRAP_X, WRAP_XV)
