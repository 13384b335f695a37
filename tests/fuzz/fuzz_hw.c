/* Fuzz harness: the hwdb loader (ic_hw_load, through ic_ydoc and
 * ic_units). Any input either fails with IC_EINVAL at a file:line:column, or
 * loads into an entry on which Llama-3-70B (dense, GQA) and DeepSeek-V3
 * (MLA, MoE) decode to finite, non-negative figures. Seeds: hwdb/. */
#include "fuzz_common.h"

#include <stdlib.h>

static struct ic_model *models;
static struct ic_model_stats stats[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    models = malloc(2 * sizeof *models);
    if (!models)
        ic_fuzz_fail("out of memory");
    ic_fuzz_load_model("llama3-70b.yaml", &models[0], &stats[0]);
    ic_fuzz_load_model("deepseek-v3.yaml", &models[1], &stats[1]);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = ic_fuzz_write("hw.yaml", data, size);
    struct ic_hw *h = malloc(sizeof *h);
    struct ic_err e = {0};
    if (!h)
        ic_fuzz_fail("out of memory");
    int rc = ic_hw_load(path, h, &e);
    if (rc) {
        ic_fuzz_check_error(rc, &e, path);
    } else {
        if (!h->name[0])
            ic_fuzz_fail("loaded an entry without a name");
        ic_fuzz_check_decode(&stats[0], h);
        ic_fuzz_check_decode(&stats[1], h);
    }
    free(h);
    return 0;
}
