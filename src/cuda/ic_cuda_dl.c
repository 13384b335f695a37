/* ic_cuda_dl: the CUDA code as a module loaded on first use.
 *
 * cuBLAS and the CUDA runtime are large shared libraries: linked into the
 * infcalc binary, the dynamic loader spends ~80 ms relocating them on every
 * start, for every command, though only `--device cuda` uses them. So a CUDA
 * build puts the .cu code into a module (libinfcalc_cuda.so, linked with
 * them) and links this shim instead: each ic_cuda_* entry point dlopen()s
 * the module the first time it is called and forwards to the module's
 * function of the same name. The module is looked for at $INFCALC_CUDA_MODULE,
 * then where this build put it, then where `meson install` puts it. */
#include "ic_cuda.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#ifndef IC_CUDA_MODULE_BUILD
#define IC_CUDA_MODULE_BUILD ""
#endif
#ifndef IC_CUDA_MODULE_INSTALL
#define IC_CUDA_MODULE_INSTALL ""
#endif

/* The module's entry points, resolved together. */
static struct {
    bool tried, ok;
    char why[400];
    int (*info)(struct ic_cuda_info *, struct ic_err *);
    int (*kern_create)(const struct ic_kern_shape *, enum ic_kern_wtype, uint64_t,
                       struct ic_cuda_kern **, struct ic_err *);
    void (*kern_free)(struct ic_cuda_kern *);
    int (*kern_set_cache)(struct ic_cuda_kern *, uint32_t, uint32_t, struct ic_err *);
    int (*kern_fill_cache)(struct ic_cuda_kern *, uint32_t, uint32_t, uint64_t,
                           struct ic_err *);
    int (*kern_step)(struct ic_cuda_kern *, uint32_t, const uint32_t *, const uint32_t *,
                     float *, struct ic_err *);
    int (*kern_time)(struct ic_cuda_kern *, uint32_t, const uint32_t *, const uint32_t *, int,
                     double *, uint64_t *, struct ic_err *);
    uint64_t (*kern_weight_bytes)(const struct ic_cuda_kern *);
    int (*mb_read)(double, int, int, double *, struct ic_err *);
    int (*mb_gemm)(uint32_t, uint32_t, uint32_t, int, double *, struct ic_err *);
    int (*mb_launch)(bool, int, int, double *, struct ic_err *);
    int (*mb_matmul)(enum ic_kern_wtype, uint32_t, uint32_t, uint32_t, bool, int, double *,
                     struct ic_err *);
} mod;

/* Resolves one symbol into a function pointer (memcpy: ISO C has no
 * conversion from an object pointer to a function pointer). */
static bool sym(void *h, const char *name, void *fp, size_t size)
{
    void *p = dlsym(h, name);
    if (!p)
        return false;
    memcpy(fp, &p, size);
    return true;
}

#define SYM(h, field, name) sym(h, name, &mod.field, sizeof mod.field)

static bool load(void)
{
    if (mod.tried)
        return mod.ok;
    mod.tried = true;
    const char *env = getenv("INFCALC_CUDA_MODULE");
    const char *paths[3] = {env && *env ? env : NULL, IC_CUDA_MODULE_BUILD,
                            IC_CUDA_MODULE_INSTALL};
    void *h = NULL;
    char why[400] = "no path to look at";
    for (int i = 0; i < 3 && !h; i++) {
        if (!paths[i] || !*paths[i])
            continue;
        h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            snprintf(why, sizeof why, "%s", e ? e : paths[i]);
        }
    }
    if (!h) {
        snprintf(mod.why, sizeof mod.why, "cannot load the CUDA module (libinfcalc_cuda.so): %s",
                 why);
        return false;
    }
    mod.ok = SYM(h, info, "ic_cuda_info") && SYM(h, kern_create, "ic_cuda_kern_create") &&
             SYM(h, kern_free, "ic_cuda_kern_free") &&
             SYM(h, kern_set_cache, "ic_cuda_kern_set_cache") &&
             SYM(h, kern_fill_cache, "ic_cuda_kern_fill_cache") &&
             SYM(h, kern_step, "ic_cuda_kern_step") && SYM(h, kern_time, "ic_cuda_kern_time") &&
             SYM(h, kern_weight_bytes, "ic_cuda_kern_weight_bytes") &&
             SYM(h, mb_read, "ic_cuda_mb_read") && SYM(h, mb_gemm, "ic_cuda_mb_gemm") &&
             SYM(h, mb_launch, "ic_cuda_mb_launch") && SYM(h, mb_matmul, "ic_cuda_mb_matmul");
    if (!mod.ok)
        snprintf(mod.why, sizeof mod.why, "the CUDA module lacks an entry point: %s",
                 dlerror());
    return mod.ok;
}

static int no_module(struct ic_err *err)
{
    return ic_err_set(err, IC_EIO, NULL, 0, 0, "%s", mod.why);
}

bool ic_cuda_built(void) { return true; }

int ic_cuda_info(struct ic_cuda_info *out, struct ic_err *err)
{
    return load() ? mod.info(out, err) : no_module(err);
}

int ic_cuda_kern_create(const struct ic_kern_shape *shape, enum ic_kern_wtype wt, uint64_t seed,
                        struct ic_cuda_kern **out, struct ic_err *err)
{
    return load() ? mod.kern_create(shape, wt, seed, out, err) : no_module(err);
}

void ic_cuda_kern_free(struct ic_cuda_kern *k)
{
    if (k && load())
        mod.kern_free(k);
}

int ic_cuda_kern_set_cache(struct ic_cuda_kern *k, uint32_t max_batch, uint32_t max_seq,
                           struct ic_err *err)
{
    return load() ? mod.kern_set_cache(k, max_batch, max_seq, err) : no_module(err);
}

int ic_cuda_kern_fill_cache(struct ic_cuda_kern *k, uint32_t b, uint32_t len, uint64_t seed,
                            struct ic_err *err)
{
    return load() ? mod.kern_fill_cache(k, b, len, seed, err) : no_module(err);
}

int ic_cuda_kern_step(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, float *logits, struct ic_err *err)
{
    return load() ? mod.kern_step(k, batch, tokens, pos, logits, err) : no_module(err);
}

int ic_cuda_kern_time(struct ic_cuda_kern *k, uint32_t batch, const uint32_t *tokens,
                      const uint32_t *pos, int n, double *t_s, uint64_t *kernels,
                      struct ic_err *err)
{
    return load() ? mod.kern_time(k, batch, tokens, pos, n, t_s, kernels, err) : no_module(err);
}

uint64_t ic_cuda_kern_weight_bytes(const struct ic_cuda_kern *k)
{
    return k && load() ? mod.kern_weight_bytes(k) : 0;
}

int ic_cuda_mb_read(double bytes, int passes, int n, double *v, struct ic_err *err)
{
    return load() ? mod.mb_read(bytes, passes, n, v, err) : no_module(err);
}

int ic_cuda_mb_gemm(uint32_t m, uint32_t n, uint32_t k, int reps, double *v, struct ic_err *err)
{
    return load() ? mod.mb_gemm(m, n, k, reps, v, err) : no_module(err);
}

int ic_cuda_mb_launch(bool graph, int chain, int n, double *v, struct ic_err *err)
{
    return load() ? mod.mb_launch(graph, chain, n, v, err) : no_module(err);
}

int ic_cuda_mb_matmul(enum ic_kern_wtype wt, uint32_t rows, uint32_t cols, uint32_t batch,
                      bool flush, int n, double *v, struct ic_err *err)
{
    return load() ? mod.mb_matmul(wt, rows, cols, batch, flush, n, v, err) : no_module(err);
}
