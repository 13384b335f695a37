/* ic_kern_single: the build with one SIMD variant (meson -Dnative=true,
 * or a CPU family without runtime dispatch): the kernel's functions keep
 * their plain names and INFCALC_SIMD is not read. */
#include "ic_kern.h"

#if defined(__AVX512F__)
#define IC_KERN_SIMD_NAME "avx512 (compile-time)"
#elif defined(__AVX2__) && defined(__FMA__)
#define IC_KERN_SIMD_NAME "avx2 (compile-time)"
#else
#define IC_KERN_SIMD_NAME "portable (compile-time)"
#endif

const char *ic_kern_simd(void) { return IC_KERN_SIMD_NAME; }

bool ic_kern_simd_supported(const char *name)
{
    (void)name;
    return false;
}
