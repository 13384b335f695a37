/* Fuzz harness: the model loader, each input read twice: as a modeldb YAML
 * file and as a Hugging Face config.json (the two schemas). Any input
 * either fails with IC_EINVAL at a file:line:column, or loads into a model
 * whose derived counts decode to finite, non-negative figures on H100 (a
 * switch) and TPU v5e (a torus). Seeds: modeldb/ and tests/fixtures. */
#include "fuzz_common.h"

#include <stdlib.h>

static struct ic_hw *hws;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    hws = malloc(2 * sizeof *hws);
    if (!hws)
        ic_fuzz_fail("out of memory");
    ic_fuzz_load_hw("h100-sxm.yaml", &hws[0]);
    ic_fuzz_load_hw("tpu-v5e.yaml", &hws[1]);
    return 0;
}

static void one(const char *name, const uint8_t *data, size_t size, struct ic_model *m)
{
    const char *path = ic_fuzz_write(name, data, size);
    struct ic_err e = {0};
    int rc = ic_model_load(path, m, &e);
    if (rc) {
        ic_fuzz_check_error(rc, &e, path);
        return;
    }
    struct ic_model_stats st;
    rc = ic_model_derive(m, &st, &e);
    if (rc)
        ic_fuzz_fail("%s: loaded, then derive failed: %s", path, e.msg);
    if (!m->name[0])
        ic_fuzz_fail("%s: loaded a model without a name", path);
    if (st.params_active > st.params_total)
        ic_fuzz_fail("%s: %llu active of %llu parameters", path,
                     (unsigned long long)st.params_active, (unsigned long long)st.params_total);
    ic_fuzz_check_decode(&st, &hws[0]);
    ic_fuzz_check_decode(&st, &hws[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ic_model *m = malloc(sizeof *m);
    if (!m)
        ic_fuzz_fail("out of memory");
    one("model.yaml", data, size, m);
    one("config.json", data, size, m);
    free(m);
    return 0;
}
