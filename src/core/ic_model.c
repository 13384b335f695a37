/* ic_model: modeldb / config.json loader and the architecture arithmetic.
 *
 * Parameter counts follow the Hugging Face implementations of each family:
 * gated MLPs (gate, up, down: 3 * D * F), q/k/v/o projections with GQA,
 * DeepSeek's MLA (q down/up, joint kv down-projection with a shared RoPE key,
 * kv up-projection), MoE layers with a router, routed and shared experts,
 * RMSNorm weights, and an LM head that is the embedding when tied. */
#include "ic_model.h"
#include "ic_utf8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

static const char *const pgroup_names[IC_PG_COUNT] = {
    [IC_PG_EMBED] = "embedding",      [IC_PG_HEAD] = "lm_head",
    [IC_PG_ATTN_HEADS] = "attn_heads", [IC_PG_ATTN_KV] = "attn_kv",
    [IC_PG_REPLICATED] = "replicated", [IC_PG_MLP] = "mlp",
    [IC_PG_SHARED] = "shared_experts", [IC_PG_EXPERTS] = "routed_experts",
};
_Static_assert(sizeof pgroup_names / sizeof pgroup_names[0] == IC_PG_COUNT,
               "one name per parameter group");

const char *ic_pgroup_name(enum ic_pgroup g) { return pgroup_names[g]; }

/* layer_types: [sliding_attention, full_attention, ...] (HF); Qwen3-Next and
 * Qwen3.5 name linear_attention layers */
static int read_layer_types(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                            struct ic_err *err)
{
    struct ic_model *m = rec;
    int rc = IC_OK;
    if (node->type != YAML_SEQUENCE_NODE) {
        rc = ic_ydoc_error(d, node, err,
                           "'layer_types': expected a list of sliding_attention / "
                           "chunked_attention / linear_attention / full_attention");
        goto out;
    }
    m->n_layer_types = 0;
    m->layer_types_chunked = m->layer_types_sliding = m->layer_types_linear = false;
    m->layer_types_mamba = m->layer_types_attention = false;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *t = ic_ydoc_scalar(item);
        if (m->n_layer_types >= IC_MODEL_MAX_LAYERS) {
            rc = ic_ydoc_error(d, item, err, "'layer_types': more than %d layers",
                               IC_MODEL_MAX_LAYERS);
            goto out;
        }
        if (t && (strcmp(t, "sliding_attention") == 0 || strcmp(t, "chunked_attention") == 0)) {
            m->layer_types_chunked |= strcmp(t, "chunked_attention") == 0;
            m->layer_types_sliding |= strcmp(t, "sliding_attention") == 0;
            m->layer_kind[m->n_layer_types++] = IC_LAYER_WINDOW;
        } else if (t && strcmp(t, "linear_attention") == 0) {
            m->layer_types_linear = true;
            m->layer_kind[m->n_layer_types++] = IC_LAYER_LINEAR;
        } else if (t && strcmp(t, "mamba") == 0) {
            m->layer_types_mamba = true;
            m->layer_kind[m->n_layer_types++] = IC_LAYER_MAMBA;
        } else if (t && (strcmp(t, "full_attention") == 0 || strcmp(t, "attention") == 0)) {
            m->layer_types_attention |= strcmp(t, "attention") == 0;
            m->layer_kind[m->n_layer_types++] = IC_LAYER_FULL;
        } else {
            rc = ic_ydoc_error(d, item, err,
                               "'layer_types': unknown entry '%s'; expected "
                               "sliding_attention, chunked_attention, linear_attention, "
                               "mamba, attention or full_attention",
                               t ? t : "(not a scalar)");
            goto out;
        }
    }
out:
    if (rc)
        ic_err_hint(err, "infcalc reads layer_types of sliding_attention, chunked_attention, "
                         "linear_attention (Gated DeltaNet), mamba (Mamba2) and full_attention "
                         "(or attention) layers only, one entry per layer");
    return rc;
}

/* mamba_ssm_dtype: the type Qwen3.5's linear-attention layers keep their
 * recurrent state in (float32 in its configs) */
static int ssm_dtype(const struct ic_ydoc *d, yaml_node_t *node, struct ic_model *m,
                     const char *key, struct ic_err *err)
{
    const char *t = ic_ydoc_scalar(node);
    if (ic_ydoc_is_null(node))
        return IC_OK;
    if (t && (strcmp(t, "float32") == 0 || strcmp(t, "fp32") == 0)) {
        m->ssm_state_bytes = 4;
        return IC_OK;
    }
    if (t && (strcmp(t, "bfloat16") == 0 || strcmp(t, "float16") == 0 ||
              strcmp(t, "bf16") == 0 || strcmp(t, "fp16") == 0 || strcmp(t, "auto") == 0)) {
        m->ssm_state_bytes = 2;
        return IC_OK;
    }
    int rc = ic_ydoc_error(d, node, err, "'%s' is '%s'; expected float32, "
                                         "bfloat16, float16 or auto",
                           key, t ? t : "(not a scalar)");
    ic_err_hint(err, "the type the recurrent state is kept in (Qwen3.5's configs give "
                     "float32 as mamba_ssm_dtype, Nemotron's as mamba_ssm_cache_dtype)");
    return rc;
}

static int read_ssm_dtype(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err)
{
    return ssm_dtype(d, node, rec, "mamba_ssm_dtype", err);
}

/* Nemotron-H's name for it */
static int read_ssm_cache_dtype(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                                struct ic_err *err)
{
    return ssm_dtype(d, node, rec, "mamba_ssm_cache_dtype", err);
}

/* Nemotron-H's blocks: hybrid_override_pattern, one letter a block ("M"
 * Mamba2, "*" attention, "-" MLP, "E" MoE), or layers_block_type, one word
 * a block ("mamba", "attention", "mlp", "moe") */
static int nh_block_error(const struct ic_ydoc *d, yaml_node_t *node, const char *what,
                          struct ic_err *err)
{
    int rc = ic_ydoc_error(d, node, err, "%s", what);
    ic_err_hint(err, "Nemotron-H's blocks: hybrid_override_pattern letters M (Mamba2), * "
                     "(attention), - (MLP) and E (MoE), or layers_block_type words mamba (or "
                     "linear_attention), attention (or full_attention), mlp and moe");
    return rc;
}

static int read_nh_pattern(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                           struct ic_err *err)
{
    struct ic_model *m = rec;
    const char *t = ic_ydoc_scalar(node);
    if (!t || node->type != YAML_SCALAR_NODE)
        return nh_block_error(d, node, "'hybrid_override_pattern': expected a string of "
                                       "block letters", err);
    m->n_blocks = 0;
    for (const char *p = t; *p; p++) {
        const char *letters = "M*-E", *at = strchr(letters, *p);
        if (!at) {
            char what[96];
            snprintf(what, sizeof what,
                     "'hybrid_override_pattern': '%c' (block %u) is not a block letter",
                     isprint((unsigned char)*p) ? *p : '?', m->n_blocks + 1);
            return nh_block_error(d, node, what, err);
        }
        if (m->n_blocks >= IC_MODEL_MAX_LAYERS)
            return nh_block_error(d, node, "'hybrid_override_pattern': more blocks than "
                                           "infcalc reads (1024)", err);
        m->block_kind[m->n_blocks++] = (uint8_t)(at - letters);
    }
    return IC_OK;
}

static int read_nh_blocks(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err)
{
    /* the legacy words, and transformers' current ones for the two mixers
     * (its NemotronHConfig writes linear_attention for mamba and
     * full_attention for attention) */
    static const char *const words[] = {"mamba",           "attention", "mlp", "moe",
                                        "linear_attention", "full_attention"};
    struct ic_model *m = rec;
    if (node->type != YAML_SEQUENCE_NODE)
        return nh_block_error(d, node, "'layers_block_type': expected a list of block "
                                       "words", err);
    m->n_blocks = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *t = ic_ydoc_scalar(item);
        size_t w = 0;
        while (t && w < sizeof words / sizeof words[0] && strcmp(t, words[w]) != 0)
            w++;
        if (!t || w == sizeof words / sizeof words[0]) {
            char what[128];
            snprintf(what, sizeof what, "'layers_block_type': '%.40s' is not a block word",
                     t ? t : "(not a scalar)");
            return nh_block_error(d, item, what, err);
        }
        if (m->n_blocks >= IC_MODEL_MAX_LAYERS)
            return nh_block_error(d, item, "'layers_block_type': more blocks than infcalc "
                                           "reads (1024)", err);
        m->block_kind[m->n_blocks++] = (uint8_t)(w % 4);
    }
    return IC_OK;
}

/* moe_layers: Llama 4's MoE layers by index (Llama4TextConfig takes it over
 * interleave_moe_layer_step) */
static int read_moe_layers(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                           struct ic_err *err)
{
    struct ic_model *m = rec;
    int rc = IC_OK;
    if (node->type != YAML_SEQUENCE_NODE) {
        rc = ic_ydoc_error(d, node, err, "'moe_layers': expected a list of layer indices");
        goto out;
    }
    memset(m->moe_layer_bits, 0, sizeof m->moe_layer_bits);
    m->moe_layer_max = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *t = ic_ydoc_scalar(item);
        char *end = NULL;
        const unsigned long long v = t && t[0] >= '0' && t[0] <= '9' ? strtoull(t, &end, 10) : 0;
        if (!end || *end || v >= IC_MODEL_MAX_LAYERS) {
            rc = ic_ydoc_error(d, item, err, "'moe_layers': '%s' is not a layer index below %d",
                               t ? t : "(not a scalar)", IC_MODEL_MAX_LAYERS);
            goto out;
        }
        m->moe_layer_bits[v / 64] |= UINT64_C(1) << (v % 64);
        if (v > m->moe_layer_max)
            m->moe_layer_max = v;
    }
out:
    if (rc)
        ic_err_hint(err, "Llama 4's config lists the MoE layers' indices, or leaves the list "
                         "to interleave_moe_layer_step");
    return rc;
}

/* moe_layer_end_index: ERNIE 4.5's last MoE layer, or -1 for the model's
 * last (Ernie4_5_MoeConfig's default) */
static int read_ernie_end(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err)
{
    struct ic_model *m = rec;
    const char *t = ic_ydoc_scalar(node);
    char why[256];
    m->ernie_end_last = t && strcmp(t, "-1") == 0;
    if (m->ernie_end_last)
        return IC_OK;
    if (!t || ic_count_parse(t, &m->ernie_end, why, sizeof why)) {
        int rc = ic_ydoc_error(d, node, err, "'moe_layer_end_index': %s; expected a layer "
                                             "index or -1 (the last layer)",
                               t ? why : "not a single value");
        ic_err_hint(err, "ERNIE 4.5's configs give the last MoE layer's index, e.g. 27");
        return rc;
    }
    return IC_OK;
}

/* no_rope_layers: Llama 4's RoPE (1) and NoPE (0) layers */
static int read_no_rope(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                        struct ic_err *err)
{
    struct ic_model *m = rec;
    int rc = IC_OK;
    if (node->type != YAML_SEQUENCE_NODE) {
        rc = ic_ydoc_error(d, node, err, "'no_rope_layers': expected a list of 1 (RoPE) and 0 "
                                         "(NoPE), one a layer");
        goto out;
    }
    m->n_no_rope = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *t = ic_ydoc_scalar(item);
        if (m->n_no_rope >= IC_MODEL_MAX_LAYERS) {
            rc = ic_ydoc_error(d, item, err, "'no_rope_layers': more than %d layers",
                               IC_MODEL_MAX_LAYERS);
            goto out;
        }
        if (!t || (strcmp(t, "0") != 0 && strcmp(t, "1") != 0)) {
            rc = ic_ydoc_error(d, item, err, "'no_rope_layers': '%s' is not 0 or 1",
                               t ? t : "(not a scalar)");
            goto out;
        }
        m->layer_rope[m->n_no_rope++] = t[0] == '1';
    }
out:
    if (rc)
        ic_err_hint(err, "Llama 4's config lists 1 for a RoPE (chunked) layer and 0 for a NoPE "
                         "(global) one, or leaves the list to no_rope_layer_interval");
    return rc;
}

/* A key of a mapping node, or NULL. */
static yaml_node_t *map_get(const struct ic_ydoc *d, yaml_node_t *map, const char *key)
{
    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *k = ic_ydoc_scalar(yaml_document_get_node((yaml_document_t *)&d->doc, p->key));
        if (k && strcmp(k, key) == 0)
            return yaml_document_get_node((yaml_document_t *)&d->doc, p->value);
    }
    return NULL;
}

/* A scalar node's number (0 where it is none). */
static double map_num_of(yaml_node_t *node)
{
    const char *t = ic_ydoc_scalar(node);
    char why[64];
    double v;
    return t && ic_number_parse(t, &v, why, sizeof why) == IC_OK ? v : 0;
}

/* A positive number of a mapping's key, or 0 when absent or not one. */
static double map_num(const struct ic_ydoc *d, yaml_node_t *map, const char *key)
{
    return map_num_of(map_get(d, map, key));
}

/* torch_dtype (or dtype, key): the type the checkpoint ships in, the
 * default weights. */
static int read_dtype_key(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err, const char *key)
{
    struct ic_model *m = rec;
    if (ic_ydoc_is_null(node))
        return IC_OK;
    const char *t = ic_ydoc_scalar(node);
    if (!t) {
        /* a list or a mapping read as no type: the weights went bf16 */
        int rc = ic_ydoc_error(d, node, err, "'%s': expected one type name, found a %s", key,
                               node->type == YAML_MAPPING_NODE ? "mapping" : "list");
        ic_err_hint(err, "e.g. '\"%s\": \"bfloat16\"'; or give --weights", key);
        return rc;
    }
    enum ic_dtype type;
    if (ic_dtype_torch(t, &type) == IC_OK) {
        /* torch_dtype and dtype (transformers 4.56 writes both) must agree */
        if (m->has_default_weights && strncmp(m->weights_note, "quantization_config", 19) != 0 &&
            strncmp(m->weights_note, "compression_config", 18) != 0 &&
            m->default_weights != type) {
            int rc = ic_ydoc_error(d, node, err, "'%s': %s, where the config's other type "
                                                 "key says %s", key, t,
                                   m->weights_note);
            ic_err_hint(err, "the checkpoint has one type: fix one key, or give --weights");
            return rc;
        }
        m->has_torch_dtype = true; /* the type of what a quantization leaves */
        m->torch_dtype = type;
        if (!m->has_default_weights && !m->quant_unread[0]) { /* a quantization_config wins */
            m->has_default_weights = true;
            m->default_weights = type;
            snprintf(m->weights_note, sizeof m->weights_note, "%s %s", key, t);
        }
        return IC_OK;
    }
    int rc = ic_ydoc_error(d, node, err, "'%s': unknown type '%s'", key, t);
    ic_err_hint(err, "bfloat16, float16, float32 or float8_e4m3fn; or give --weights");
    return rc;
}

static int read_torch_dtype(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                            struct ic_err *err)
{
    return read_dtype_key(d, node, rec, err, "torch_dtype");
}

static int read_dtype(const struct ic_ydoc *d, yaml_node_t *node, void *rec, struct ic_err *err)
{
    return read_dtype_key(d, node, rec, err, "dtype");
}

/* decoder_sparse_step: Qwen-MoE's layer i is sparse iff (i + 1) % step == 0;
 * 1 (every layer) is what infcalc counts. */
static int read_sparse_step(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                            struct ic_err *err)
{
    (void)rec;
    if (ic_ydoc_is_null(node) || map_num_of(node) == 1)
        return IC_OK;
    int rc = ic_ydoc_error(d, node, err, "'decoder_sparse_step' other than 1 is not read: "
                                         "some layers would be dense");
    ic_err_hint(err, "infcalc counts every layer as MoE here; the released Qwen MoE configs "
                     "give 1");
    return rc;
}

/* mlp_only_layers: Qwen-MoE's dense layers by index; none is what infcalc
 * counts. */
static int read_mlp_only(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                         struct ic_err *err)
{
    (void)rec;
    if (ic_ydoc_is_null(node) ||
        (node->type == YAML_SEQUENCE_NODE &&
         node->data.sequence.items.top == node->data.sequence.items.start))
        return IC_OK;
    int rc = ic_ydoc_error(d, node, err, "'mlp_only_layers' other than [] is not read: those "
                                         "layers would be dense");
    ic_err_hint(err, "infcalc counts every layer as MoE here; the released Qwen MoE configs "
                     "give []");
    return rc;
}

/* attn_type_list: MiniMax's attention kind per layer, 1 softmax attention
 * (MiniMax-M2: every layer), 0 lightning (linear) attention, whose fixed
 * state is not a KV cache (MiniMax-Text-01, M1, refused by their own
 * model_type too). */
static int read_attn_types(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                           struct ic_err *err)
{
    (void)rec;
    if (ic_ydoc_is_null(node))
        return IC_OK;
    if (node->type == YAML_SEQUENCE_NODE) {
        yaml_node_item_t *it;
        for (it = node->data.sequence.items.start; it < node->data.sequence.items.top; it++)
            if (map_num_of(yaml_document_get_node((yaml_document_t *)&d->doc, *it)) != 1)
                break;
        if (it == node->data.sequence.items.top)
            return IC_OK;
    }
    int rc = ic_ydoc_error(d, node, err, "'attn_type_list' other than all 1 is not read: "
                                         "its 0 layers are linear (lightning) attention");
    ic_err_hint(err, "infcalc counts softmax attention with a KV cache in every layer; "
                     "MiniMax-M2's config gives 1 for each layer");
    return rc;
}

/* sliding_window_pattern: every p-th layer global, as a number, or as
 * EXAONE 4 may write it, a letter a layer repeated, L sliding and G global
 * ("LLLG": three sliding layers to one global) */
static int read_sliding_pattern(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                                struct ic_err *err)
{
    struct ic_model *m = rec;
    const char *t = ic_ydoc_scalar(node);
    char why[64];
    double v;
    m->sliding_letters[0] = 0; /* a text_config's number over a wrapper's letters */
    if (t && node->type == YAML_SCALAR_NODE &&
        node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        ic_number_parse(t, &v, why, sizeof why) == IC_OK) {
        if (v >= 0 && v <= IC_MODEL_MAX_LAYERS && v == floor(v)) {
            m->sliding_window_pattern = (uint64_t)v;
            return IC_OK;
        }
        return ic_ydoc_error(d, node, err, "'sliding_window_pattern' is %s; expected a whole "
                                           "number of layers, at most %d",
                             t, IC_MODEL_MAX_LAYERS);
    }
    const size_t n = t ? strlen(t) : 0;
    if (n && n < sizeof m->sliding_letters && strspn(t, "LG") == n) {
        memcpy(m->sliding_letters, t, n + 1);
        m->sliding_window_pattern = n;
        return IC_OK;
    }
    int rc = ic_ydoc_error(d, node, err, "'sliding_window_pattern' is '%.40s'; expected a "
                                         "number of layers or letters such as \"LLLG\"",
                           t ? t : "(not a scalar)");
    ic_err_hint(err, "every p-th layer global: p, or a letter a layer, repeated: L sliding, G "
                     "global (at most %zu letters)",
                sizeof m->sliding_letters - 1);
    return rc;
}

/* A count Hunyuan's configs may give a layer at a time ("moe_topk": [8, 8,
 * ...]): a whole number, or a list of them all alike (one value for every
 * layer is what is read); *listed says which. */
static int read_uniform(const struct ic_ydoc *d, yaml_node_t *node, const char *key,
                        uint64_t *out, bool *listed, struct ic_err *err)
{
    yaml_node_t *one = node;
    size_t n = 1;
    if (node->type == YAML_SEQUENCE_NODE) {
        n = (size_t)(node->data.sequence.items.top - node->data.sequence.items.start);
        if (!n) {
            int rc = ic_ydoc_error(d, node, err, "'%s' is an empty list; expected a whole "
                                                 "number, or one a layer", key);
            ic_err_hint(err, "copy it from the model's config.json");
            return rc;
        }
    }
    uint64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        if (node->type == YAML_SEQUENCE_NODE)
            one = yaml_document_get_node((yaml_document_t *)&d->doc,
                                         node->data.sequence.items.start[i]);
        const char *t = ic_ydoc_scalar(one);
        char why[64];
        double v;
        int rc = ic_ydoc_bare(d, one, key, false, err); /* "128" is text */
        if (rc)
            return rc;
        if (!t || one->type != YAML_SCALAR_NODE || ic_number_parse(t, &v, why, sizeof why) ||
            !(v >= 0 && v <= (1u << 22)) || v != floor(v)) {
            rc = ic_ydoc_error(d, one, err, "'%s': expected a whole number of 0 to "
                                            "4194304%s",
                                   key, node->type == YAML_SEQUENCE_NODE ? " a layer" : "");
            ic_err_hint(err, "copy it from the model's config.json");
            return rc;
        }
        if (i == 0)
            first = (uint64_t)v;
        else if ((uint64_t)v != first) {
            rc = ic_ydoc_error(d, one, err,
                               "'%s' differs between layers (%llu at layer 0, %s at layer "
                               "%zu); expected one value for every layer",
                               key, (unsigned long long)first, t, i);
            ic_err_hint(err, "infcalc counts one expert width, top-k and shared count a "
                             "model; a model whose layers differ is not read");
            return rc;
        }
    }
    *out = first;
    *listed = node->type == YAML_SEQUENCE_NODE;
    return IC_OK;
}

static int read_moe_inter(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err)
{
    struct ic_model *m = rec;
    return read_uniform(d, node, "moe_intermediate_size", &m->moe_intermediate_size,
                        &m->moe_inter_list, err);
}

static int read_hy_topk(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                        struct ic_err *err)
{
    struct ic_model *m = rec;
    bool listed;
    return read_uniform(d, node, "moe_topk", &m->hy_topk, &listed, err);
}

static int read_hy_shared(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                          struct ic_err *err)
{
    struct ic_model *m = rec;
    bool listed;
    return read_uniform(d, node, "num_shared_expert", &m->hy_shared, &listed, err);
}

/* shared_intermediate_size: MiniMax's shared expert width (M2 gives 0, all
 * that is read), Granite 4.0's shared MLP width. */
static int read_shared_minimax(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                               struct ic_err *err)
{
    struct ic_model *m = rec;
    const char *t = ic_ydoc_scalar(node);
    char why[64];
    double v;
    if (ic_ydoc_is_null(node))
        return IC_OK;
    if (t && ic_number_parse(t, &v, why, sizeof why) == IC_OK && v >= 0 && v <= (1u << 22) &&
        v == floor(v)) {
        /* Granite 4.0's shared MLP width; refused for another model_type
         * (a shared expert would go uncounted) when the layers are known */
        m->shared_intermediate = (uint64_t)v;
        return IC_OK;
    }
    int rc = ic_ydoc_error(d, node, err, "'shared_intermediate_size': expected a whole "
                                         "number of 0 to 4194304");
    ic_err_hint(err, "MiniMax-M2's config gives 0; Granite 4.0's its shared MLP's width");
    return rc;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A list entry naming a router, a gate or a norm: parts of the replicated
 * group no quantizer converts (a step reads the routers 16-bit whatever
 * the list says: ic_model_stats.routers; the norms, a few thousandths of a
 * percent, at the weights' type), which on an MLA model also holds the
 * latent down-projections, quantized with the rest: recognized, and the
 * group left at the weights' type. */
#define KEEP_SMALL (1u << IC_PG_COUNT)
/* A list entry naming a layer's whole attention ("self_attn"): on an MLA
 * model its latent down-projections too, which lie in the replicated
 * group (ic_model_load keeps it where the attention is kept). */
#define KEEP_MLA_DOWN (1u << (IC_PG_COUNT + 1))

/* The parameter groups one entry of a quantization_config's list of
 * modules left unquantized names (transformers' modules_to_not_convert,
 * compressed-tensors' ignore, ModelOpt's exclude_modules, Quark's exclude:
 * gpt-oss's "model.layers.*.self_attn", "lm_head", Meta's FP8 405B's
 * "model.layers.0.self_attn.q_proj"), KEEP_SMALL, or 0 where it names none
 * of the text model's (a vision tower's, a pattern not read); *layer the
 * layer an entry names, -1 for every layer, IC_MODEL_MAX_LAYERS for several
 * or a number past any model (not read). A regex entry ("re:.*mlp.gate$")
 * is read as its text, "\." as a dot. */
static uint32_t groups_named(const char *entry, long *layer)
{
    char e[256];
    size_t k = 0;
    for (const char *q = entry; *q && k + 1 < sizeof e; q++)
        if (!(q[0] == '\\' && q[1] == '.')) /* a regex's "\." is a dot */
            e[k++] = *q;
    e[k] = 0;
    for (size_t n = strlen(e); n && e[n - 1] == '$';)
        e[--n] = 0;
    *layer = -1;
    bool whole_layer = false;
    const char *l = strstr(e, "layers.");
    if (l && l[7] >= '0' && l[7] <= '9') {
        char *end;
        errno = 0;
        const unsigned long v = strtoul(l + 7, &end, 10);
        /* one layer: its number, then a dot, or the end ("layers.0", or the
         * glob "layers.0*": the whole of layer 0, the one number no other
         * starts with); "layers.1*" and "layers.1[0-9]" name several: not
         * read */
        const bool glob0 = *end == '*' && v == 0 && !end[1];
        *layer = errno || v >= IC_MODEL_MAX_LAYERS || (*end && *end != '.' && !glob0)
                     ? IC_MODEL_MAX_LAYERS
                     : (long)v;
        /* "model.layers.60." as AWQ lists write it: the whole layer too */
        whole_layer = !*end || (end[0] == '.' && !end[1]) || glob0;
    } else if (l && l[7] && l[7] != '*' && l[7] != '.' && l[7] != '[') {
        *layer = IC_MODEL_MAX_LAYERS; /* "layers.(0|1)": some layers, not read */
    }
    for (size_t n = strlen(e); n && (e[n - 1] == '*' || e[n - 1] == '.');)
        e[--n] = 0; /* "self_attn.*", ".*mlp.gate": the text before */
    static const char *const other[] = {"visual", "vision", "audio", "mm_projector",
                                        "multi_modal", "mtp"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (strstr(e, other[i]))
            return 0;
    const uint32_t heads = 1u << IC_PG_ATTN_HEADS, kv = 1u << IC_PG_ATTN_KV,
                   repl = 1u << IC_PG_REPLICATED;
    if (whole_layer && *layer < IC_MODEL_MAX_LAYERS) /* every group a layer has */
        return heads | kv | 1u << IC_PG_MLP | 1u << IC_PG_SHARED | 1u << IC_PG_EXPERTS;
    if (strstr(e, "lm_head"))
        return 1u << IC_PG_HEAD;
    if (strstr(e, "embed"))
        return 1u << IC_PG_EMBED;
    if (strstr(e, "norm") || strstr(e, "router") || ends_with(e, "gate") ||
        strstr(e, "e_score_correction"))
        return KEEP_SMALL; /* mlp.gate, moe.gate, shared_expert_gate, *_layernorm, the
                              router's e_score_correction_bias (DeepSeek, GLM, MiniMax) */
    if (strstr(e, "shared_expert"))
        return 1u << IC_PG_SHARED;
    if (strstr(e, "experts"))
        return 1u << IC_PG_EXPERTS;
    if (strstr(e, "linear_attn")) {
        /* Gated DeltaNet (Qwen3-Next, Qwen3.5): its small parts (the b/a
         * projections, the convolution, A_log, dt_bias), which FP8
         * checkpoints keep at 16 bits, are not modelled; its q/k/v/z and
         * out projections are the group */
        if (ends_with(e, "in_proj_ba") || ends_with(e, "in_proj_a") ||
            ends_with(e, "in_proj_b") || ends_with(e, "conv1d") || ends_with(e, "A_log") ||
            ends_with(e, "dt_bias"))
            return KEEP_SMALL;
        return heads;
    }
    if (strstr(e, "mixer")) {
        /* Nemotron-H: every block's one module is its mixer
         * (backbone.layers.N.mixer), attention, Mamba2 or MLP: the
         * attention's projections, Mamba2's in/out projections (the heads
         * group, its small parts not modelled), the MLP's up/down */
        if (ends_with(e, "k_proj") || ends_with(e, "v_proj"))
            return kv;
        if (ends_with(e, "q_proj") || ends_with(e, "o_proj") || ends_with(e, "in_proj") ||
            ends_with(e, "out_proj"))
            return heads;
        if (ends_with(e, "up_proj") || ends_with(e, "down_proj"))
            return 1u << IC_PG_MLP;
        if (ends_with(e, "conv1d") || ends_with(e, "A_log") || ends_with(e, "dt_bias") ||
            ends_with(e, ".D"))
            return KEEP_SMALL;
        if (ends_with(e, "mixer")) /* a whole block's */
            return heads | kv | 1u << IC_PG_MLP | 1u << IC_PG_SHARED | 1u << IC_PG_EXPERTS;
    }
    if (strstr(e, "attn") || strstr(e, "attention")) {
        /* one projection: MLA's down-projections are replicated */
        if (ends_with(e, "kv_a_proj_with_mqa") || ends_with(e, "q_a_proj"))
            return repl;
        if (ends_with(e, "qkv_proj") || ends_with(e, "query_key_value"))
            return heads | kv;
        if (ends_with(e, "k_proj") || ends_with(e, "v_proj"))
            return kv;
        if (ends_with(e, "q_proj") || ends_with(e, "o_proj") || ends_with(e, "q_b_proj") ||
            ends_with(e, "kv_b_proj"))
            return heads;
        return heads | kv | (strstr(e, "proj") ? 0 : KEEP_MLA_DOWN);
    }
    /* Llama 4 calls its MLP feed_forward */
    if (ends_with(e, "mlp") || ends_with(e, "feed_forward"))
        return 1u << IC_PG_MLP | 1u << IC_PG_SHARED | 1u << IC_PG_EXPERTS | KEEP_SMALL;
    if ((strstr(e, "mlp") || strstr(e, "feed_forward")) && strstr(e, "proj"))
        return 1u << IC_PG_MLP;
    return 0;
}

/* What a quantization_config leaves unquantized: the input embedding
 * always (the methods read quantize linear layers, and a lookup table is
 * none), and the groups its list (under `key`) names for every layer; dflt
 * where there is no list, or beside the list where `with_dflt` (a method
 * that never quantizes those: AutoAWQ the LM head, transformers' mxfp4
 * anything but the experts). Entries naming one layer's module are kept by
 * layer (m->keep_layers) until the layers are known (ic_model_load: a group
 * named in every layer is kept whole, else it is m->keep_partial); entries
 * naming none of the groups are counted in m->keep_other. */
static uint32_t kept_groups(const struct ic_ydoc *d, yaml_node_t *node, const char *key,
                            uint32_t dflt, bool with_dflt, struct ic_model *m)
{
    yaml_node_t *list = map_get(d, node, key);
    m->keep_other = 0;
    m->keep_partial = 0;
    memset(m->keep_layers, 0, sizeof m->keep_layers);
    if (!list || list->type != YAML_SEQUENCE_NODE)
        return dflt | 1u << IC_PG_EMBED;
    uint32_t g = 1u << IC_PG_EMBED | (with_dflt ? dflt : 0);
    for (yaml_node_item_t *it = list->data.sequence.items.start;
         it < list->data.sequence.items.top; it++) {
        const char *e = ic_ydoc_scalar(yaml_document_get_node((yaml_document_t *)&d->doc, *it));
        long layer = -1;
        const uint32_t n = e ? groups_named(e, &layer) : 0;
        if (!n || layer >= IC_MODEL_MAX_LAYERS) {
            m->keep_other++;
        } else if (layer >= 0 && n != KEEP_SMALL) {
            for (int k = 0; k < IC_PG_COUNT; k++)
                if (n >> k & 1)
                    m->keep_layers[k][layer / 64] |= UINT64_C(1) << (layer % 64);
            g |= n & (KEEP_SMALL | KEEP_MLA_DOWN);
        } else {
            g |= n;
        }
    }
    return g;
}

/* "true" as JSON writes it, or as YAML may (True, TRUE) */
static bool is_true(const char *t) { return t && strcasecmp(t, "true") == 0; }

/* The weight type a quantization format's element type and width name
 * (compressed-tensors' type and num_bits, Quark's dtype), or IC_DT_COUNT. */
static enum ic_dtype quant_dtype(bool is_float, double bits)
{
    if (bits == 8)
        return is_float ? IC_DT_FP8 : IC_DT_INT8;
    if (bits == 4)
        return is_float ? IC_DT_FP4 : IC_DT_INT4;
    return IC_DT_COUNT;
}

/* Sets what a read quantization_config stores: its weight type, the bytes
 * its scales add a weight, the groups it leaves at 16 bits, the note. */
static void set_quant(struct ic_model *m, enum ic_dtype t, double extra, uint32_t keep,
                      enum ic_dtype keep_type, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static void set_quant(struct ic_model *m, enum ic_dtype t, double extra, uint32_t keep,
                      enum ic_dtype keep_type, const char *fmt, ...)
{
    m->has_default_weights = true;
    m->default_weights = t;
    m->quant_extra_bytes = extra;
    m->keep_groups = keep;
    m->keep_type = keep_type;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->weights_note, sizeof m->weights_note, fmt, ap);
    va_end(ap);
}

/* A scalar of a mapping's key, or "". */
static const char *map_text(const struct ic_ydoc *d, yaml_node_t *map, const char *key)
{
    const char *t = ic_ydoc_scalar(map_get(d, map, key));
    return t ? t : "";
}

/* compressed-tensors (llm-compressor's checkpoints: FP8, W8A8, W4A16,
 * NVFP4): every config group's "weights" scheme must agree; the type from
 * its type and num_bits; the scales a group adds: an fp16/bf16 scale a
 * group of int weights (and a zero at their width unless symmetric), an
 * 8-bit one a group of fp4 (NVFP4: 16, MXFP4: 32), none counted per
 * channel or tensor (about 0.1% at K 4096), a 4-byte one a block. Its
 * groups' targets say what is quantized: "Linear" every linear layer, else
 * the parameter groups they name ("re:.*mlp.experts.*"); what they leave
 * and what the "ignore" list names stay 16-bit (without a list, the LM
 * head: llm-compressor's recipes ignore it). */
static int read_compressed_tensors(const struct ic_ydoc *d, yaml_node_t *node,
                                   struct ic_model *m)
{
    yaml_node_t *groups = map_get(d, node, "config_groups");
    enum ic_dtype t = IC_DT_COUNT;
    double extra = 0;
    char how[96] = "";
    int n = 0;
    uint32_t targets = 0;
    bool agree = groups && groups->type == YAML_MAPPING_NODE;
    for (yaml_node_pair_t *p = agree ? groups->data.mapping.pairs.start : NULL;
         agree && p < groups->data.mapping.pairs.top; p++) {
        yaml_node_t *g = yaml_document_get_node((yaml_document_t *)&d->doc, p->value);
        yaml_node_t *w = map_get(d, g, "weights");
        if (!w || ic_ydoc_is_null(w))
            continue; /* activations only */
        const double bits = map_num(d, w, "num_bits"), gs = map_num(d, w, "group_size");
        const bool is_float = strcmp(map_text(d, w, "type"), "float") == 0;
        const char *strat = map_text(d, w, "strategy");
        const bool sym = strcasecmp(map_text(d, w, "symmetric"), "false") != 0;
        const enum ic_dtype gt = quant_dtype(is_float, bits);
        double ge = 0;
        char gh[96];
        if (!strcmp(strat, "group") || !strcmp(strat, "tensor_group")) {
            if (!(gs >= 1 && gs <= 65536 && gs == floor(gs)))
                agree = false; /* not a whole group size: not read */
            ge = is_float ? 1.0 / gs : (2.0 + (sym ? 0 : bits / 8.0)) / gs;
            snprintf(gh, sizeof gh, "groups of %g with %s", gs,
                     is_float ? "an 8-bit scale" : sym ? "a 16-bit scale" : "a 16-bit scale "
                                                                            "and a zero");
        } else if (!strcmp(strat, "block")) {
            yaml_node_t *bs = map_get(d, w, "block_structure");
            double b = 1;
            /* a list of a block's sides, each at least 1 ("x" read as a
             * block of 1, no scale counted): else not read */
            if (!bs || bs->type != YAML_SEQUENCE_NODE ||
                bs->data.sequence.items.top == bs->data.sequence.items.start)
                agree = false;
            for (yaml_node_item_t *it = bs && bs->type == YAML_SEQUENCE_NODE
                                            ? bs->data.sequence.items.start
                                            : NULL;
                 it && it < bs->data.sequence.items.top; it++) {
                const double side =
                    map_num_of(yaml_document_get_node((yaml_document_t *)&d->doc, *it));
                if (!(side >= 1))
                    agree = false;
                b *= side;
            }
            if (!(b >= 1 && b <= 1e9))
                agree = false;
            ge = b > 1 && b <= 1e9 ? 4.0 / b : 0;
            snprintf(gh, sizeof gh, "a 4-byte scale a block of %g", b);
        } else {
            snprintf(gh, sizeof gh, "one scale per %s (not counted)",
                     strat[0] ? strat : "tensor");
        }
        /* what the group quantizes: every linear layer ("Linear"), or the
         * groups its targets name ("re:.*experts.*") */
        yaml_node_t *tg = map_get(d, g, "targets");
        const bool one = tg && ic_ydoc_scalar(tg); /* "Linear" written bare */
        yaml_node_item_t *it = tg && tg->type == YAML_SEQUENCE_NODE ? tg->data.sequence.items.start
                                                                    : NULL;
        for (bool more = one || (it && it < tg->data.sequence.items.top); more;) {
            const char *x =
                one ? ic_ydoc_scalar(tg)
                    : ic_ydoc_scalar(yaml_document_get_node((yaml_document_t *)&d->doc, *it));
            long layer = -1;
            const uint32_t named = x && strcmp(x, "Linear") ? groups_named(x, &layer) : 0;
            if (x && !strcmp(x, "Linear"))
                targets = ~0u;
            else if (named && !(named & KEEP_SMALL) && layer < 0)
                targets |= named;
            else
                agree = false; /* a target naming no whole group */
            more = !one && ++it < tg->data.sequence.items.top;
        }
        if (!tg)
            targets = ~0u;
        if (!targets)
            agree = false; /* targets [] quantize nothing */
        if (gt == IC_DT_COUNT || (n && (gt != t || ge != extra)))
            agree = false;
        t = gt;
        extra = ge;
        snprintf(how, sizeof how, "%s", gh);
        n++;
    }
    if (!agree || !n) {
        /* several weight schemes (mixed precision) or one not read */
        snprintf(m->quant_unread, sizeof m->quant_unread, "compressed-tensors");
        m->has_default_weights = false;
        return IC_OK;
    }
    /* the LM head is a Linear too, but llm-compressor's recipes ignore it;
     * groups no target names stay 16-bit */
    set_quant(m, t, extra,
              kept_groups(d, node, "ignore", 1u << IC_PG_HEAD, false, m) |
                  (targets == ~0u ? 0 : ~targets & ((1u << IC_PG_COUNT) - 1)),
              IC_DT_BF16, "quantization_config compressed-tensors, %s, %s%s",
              ic_dtype_traits(t)->name, how, targets == ~0u ? "" : ", some groups only");
    return IC_OK;
}

/* NVIDIA ModelOpt (quant_method "modelopt", or its export's "quant_algo"
 * with no method): FP8 per tensor (no scale counted), NVFP4 (an 8-bit
 * scale a group of group_size, 16 where unstated), W4A16/W4A8 AWQ (an
 * fp16 scale a group, 128 unstated); exclude_modules (or ignore) stays
 * 16-bit; without a list the LM head (ModelOpt's default configurations
 * disable its quantizer). */
static int read_modelopt(const struct ic_ydoc *d, yaml_node_t *node, struct ic_model *m,
                         const char *from, struct ic_err *err)
{
    const char *algo = map_text(d, node, "quant_algo");
    const char *key = map_get(d, node, "exclude_modules") ? "exclude_modules" : "ignore";
    const uint32_t keep = kept_groups(d, node, key, 1u << IC_PG_HEAD, false, m);
    /* a group size stated must be one (0, -5 or "abc" read as the default,
     * 1.5 and 1e300 as given) */
    yaml_node_t *gn = map_get(d, node, "group_size");
    double gs = map_num_of(gn);
    if (gn && !ic_ydoc_is_null(gn) &&
        (!ic_ydoc_scalar(gn) || !(gs >= 1 && gs <= 65536 && gs == floor(gs)))) {
        int rc = ic_ydoc_error(d, gn, err, "'group_size': expected a whole number of weights "
                                           "a group, 1 to 65536");
        ic_err_hint(err, "ModelOpt writes 16 for NVFP4 and 128 for AWQ; or leave it out");
        return rc;
    }
    if (!strcmp(algo, "FP8")) {
        set_quant(m, IC_DT_FP8, 0, keep, IC_DT_BF16,
                  "%s modelopt FP8, one scale per tensor (not counted)", from);
    } else if (!strcmp(algo, "NVFP4")) {
        if (!(gs >= 1))
            gs = 16;
        set_quant(m, IC_DT_FP4, 1.0 / gs, keep, IC_DT_BF16,
                  "%s modelopt NVFP4, an 8-bit scale per %g weights", from, gs);
    } else if (!strncmp(algo, "W4A16_AWQ", 9) || !strncmp(algo, "W4A8_AWQ", 8)) {
        if (!(gs >= 1))
            gs = 128;
        set_quant(m, IC_DT_INT4, 2.0 / gs, keep, IC_DT_BF16,
                  "%s modelopt %s, an fp16 scale per %g weights", from, algo, gs);
    } else {
        snprintf(m->quant_unread, sizeof m->quant_unread, "modelopt %s%s",
                 algo[0] ? algo : "(no quant_algo)",
                 strcmp(from, "quantization_config") ? " in hf_quant_config.json" : "");
        m->has_default_weights = false;
    }
    return IC_OK;
}

/* A mapping with at least one key. */
static bool nonempty_map(const yaml_node_t *n)
{
    return n && n->type == YAML_MAPPING_NODE &&
           n->data.mapping.pairs.top > n->data.mapping.pairs.start;
}

/* AMD Quark: global_quant_config's weight dtype (fp8_e4m3 per tensor or
 * channel, no scale counted); "exclude" stays 16-bit, the LM head without
 * a list. */
static int read_quark(const struct ic_ydoc *d, yaml_node_t *node, struct ic_model *m)
{
    yaml_node_t *w = map_get(d, map_get(d, node, "global_quant_config"), "weight");
    yaml_node_t *per_layer = map_get(d, node, "layer_quant_config"),
                *per_type = map_get(d, node, "layer_type_quant_config");
    const char *dt = map_text(d, w, "dtype");
    const double gs = map_num(d, w, "group_size");
    /* types by layer (layer_quant_config: "*.mlp.*" in fp4 beside an fp8
     * rest) or a progressive list of weight specs: not one type */
    const bool mixed = nonempty_map(per_layer) || nonempty_map(per_type);
    const uint32_t keep = kept_groups(d, node, "exclude", 1u << IC_PG_HEAD, false, m);
    const char *qs = map_text(d, w, "qscheme");
    if (!mixed && !strncmp(dt, "fp8_e4m3", 8)) {
        set_quant(m, IC_DT_FP8, 0, keep, IC_DT_BF16,
                  "quantization_config quark fp8, scales %s (not counted)",
                  qs[0] ? qs : "per_tensor");
        return IC_OK;
    }
    if (!mixed && !strcmp(dt, "fp4") && gs >= 1 && gs <= 65536 && gs == floor(gs)) {
        /* MXFP4: an 8-bit (e8m0) scale a group */
        set_quant(m, IC_DT_FP4, 1.0 / gs, keep, IC_DT_BF16,
                  "quantization_config quark fp4, an 8-bit scale per %g weights", gs);
        return IC_OK;
    }
    snprintf(m->quant_unread, sizeof m->quant_unread, "quark %s", mixed ? "(types by layer)" : dt);
    m->has_default_weights = false;
    return IC_OK;
}

/* quantization_config: the weight type, the bytes its scales and zeros
 * add per parameter, and what it leaves unquantized, for fp8 with blocks of
 * scales (DeepSeek-V3), mxfp4, AWQ and GPTQ with groups of scales and
 * zeros, fbgemm_fp8, bitsandbytes, compressed-tensors, ModelOpt and Quark
 * (the last three in their own readers above). */
#define QUANT_METHODS_READ                                                                  \
    "fp8, awq, gptq, mxfp4, compressed-tensors, modelopt, quark, fbgemm_fp8 or "           \
    "bitsandbytes are read"

static int read_quant(const struct ic_ydoc *d, yaml_node_t *node, void *rec, struct ic_err *err)
{
    struct ic_model *m = rec;
    if (ic_ydoc_is_null(node))
        return IC_OK;
    const char *meth = ic_ydoc_scalar(map_get(d, node, "quant_method"));
    if (meth && !meth[0]) {
        int rc = ic_ydoc_error(d, map_get(d, node, "quant_method"), err,
                               "'quant_method': empty; expected the method's name");
        ic_err_hint(err, QUANT_METHODS_READ "; or give --weights");
        return rc;
    }
    if (!meth && map_get(d, node, "quant_algo"))
        return read_modelopt(d, node, m, "quantization_config", err); /* ModelOpt's exports name no method */
    if (!meth) {
        int rc = ic_ydoc_error(d, node, err, "'quantization_config' without a quant_method");
        ic_err_hint(err, QUANT_METHODS_READ "; or leave it out and give --weights");
        return rc;
    }
    if (strcmp(meth, "fp8") == 0) {
        /* one fp32 scale per block of weight_block_size (128 x 128 where
         * unstated: DeepSeek-V3's) */
        yaml_node_t *bs = map_get(d, node, "weight_block_size");
        double b = 128.0 * 128.0;
        if (bs && !ic_ydoc_is_null(bs) &&
            !(bs->type == YAML_SEQUENCE_NODE &&
              bs->data.sequence.items.top - bs->data.sequence.items.start == 2)) {
            /* a string, a mapping or another count read as 128 x 128 */
            int rc = ic_ydoc_error(d, bs, err, "'weight_block_size': expected two positive "
                                               "numbers, a block's rows and columns");
            ic_err_hint(err, "e.g. [128, 128] (DeepSeek-V3's); or leave it out");
            return rc;
        }
        if (bs && bs->type == YAML_SEQUENCE_NODE) {
            double p = 1;
            for (yaml_node_item_t *it = bs->data.sequence.items.start;
                 it < bs->data.sequence.items.top; it++) {
                const char *t = ic_ydoc_scalar(yaml_document_get_node((yaml_document_t *)&d->doc, *it));
                char why[64];
                double v;
                if (!t || ic_number_parse(t, &v, why, sizeof why) || !(v >= 1 && v <= 65536)) {
                    int rc = ic_ydoc_error(d, bs, err, "'weight_block_size': expected two "
                                                      "positive numbers");
                    ic_err_hint(err, "e.g. [128, 128]");
                    return rc;
                }
                p *= v;
            }
            b = p;
        }
        /* the LM head stays 16-bit (DeepSeek-V3's checkpoint holds its
         * embedding and head in bf16) unless the list says otherwise */
        set_quant(m, IC_DT_FP8, 4.0 / b,
                  kept_groups(d, node, "modules_to_not_convert", 1u << IC_PG_HEAD, true, m),
                  IC_DT_BF16,
                  "quantization_config fp8, one fp32 scale per %.0f weights", b);
        return IC_OK;
    }
    if (strcmp(meth, "mxfp4") == 0) {
        /* OCP MX FP4: 4-bit elements, one 8-bit (E8M0) scale per block of
         * 32: 1/32 byte a weight. transformers quantizes gpt-oss's routed
         * experts only; its config lists what it leaves (attention, router,
         * embedding, head) */
        m->quant_experts_only = true;
        set_quant(m, IC_DT_FP4, 1.0 / 32.0,
                  kept_groups(d, node, "modules_to_not_convert",
                              ((1u << IC_PG_COUNT) - 1) & ~(1u << IC_PG_EXPERTS), true, m),
                  IC_DT_BF16, "quantization_config mxfp4, one 8-bit scale per 32 weights");
        return IC_OK;
    }
    if (strcmp(meth, "awq") == 0 || strcmp(meth, "gptq") == 0) {
        /* numbers bare, as everywhere (a quoted one is text) */
        int qrc;
        if ((qrc = ic_ydoc_bare(d, map_get(d, node, "bits"), "bits", false, err)) ||
            (qrc = ic_ydoc_bare(d, map_get(d, node, "group_size"), "group_size", false, err)))
            return qrc;
        double bits = map_num(d, node, "bits"), g = map_num(d, node, "group_size");
        if (!map_get(d, node, "bits")) {
            int rc = ic_ydoc_error(d, node, err, "'quantization_config': %s without 'bits'",
                                   meth);
            ic_err_hint(err, "add \"bits\": 4 (or 8) as the checkpoint stores them; or give "
                             "--weights");
            return rc;
        }
        if (bits != 4 && bits != 8) {
            int rc = ic_ydoc_error(d, node, err, "'quantization_config': %s with %g bits; "
                                                 "4 or 8 are read", meth, bits);
            ic_err_hint(err, "give --weights for another width");
            return rc;
        }
        yaml_node_t *gn = map_get(d, node, "group_size");
        const char *gt = ic_ydoc_scalar(gn);
        const enum ic_dtype t = bits == 4 ? IC_DT_INT4 : IC_DT_INT8;
        /* AutoAWQ never quantizes the LM head; AutoGPTQ and GPTQModel only
         * with "lm_head": true; both run in fp16 */
        const bool head_q = strcmp(meth, "gptq") == 0 &&
                            is_true(ic_ydoc_scalar(map_get(d, node, "lm_head")));
        uint32_t keep = kept_groups(d, node, "modules_to_not_convert",
                                    head_q ? 0 : 1u << IC_PG_HEAD, true, m);
        if (head_q)
            keep &= ~(1u << IC_PG_HEAD);
        double neg = 0;
        char nwhy[64];
        if (gt && gt[0] == '-' && ic_number_parse(gt + 1, &neg, nwhy, sizeof nwhy) == IC_OK &&
            neg == 1) {
            /* AutoGPTQ's per-channel quantization (-1, or -1.0): one fp16
             * scale and a zero per output row of K weights, (2 + bits/8)
             * bytes over K weights of bits/8: 5/K of the int4 bytes, 0.12%
             * at K 4096; not counted (it was read as groups of 128: +3.9%
             * on Qwen2.5-7B) */
            set_quant(m, t, 0, keep, IC_DT_FP16,
                      "quantization_config %s, %g bits, one fp16 scale and zero per output "
                      "channel (group_size -1; about 0.1%% of the weight bytes at K 4096, not "
                      "counted)",
                      meth, bits);
            return IC_OK;
        }
        if (gn && !ic_ydoc_is_null(gn) && !(g >= 1 && g <= 65536 && g == floor(g))) {
            int rc = ic_ydoc_error(d, gn, err, "'group_size': expected a whole number of "
                                               "weights a group, 1 to 65536, or -1 (one per "
                                               "output channel)");
            ic_err_hint(err, "AutoAWQ and AutoGPTQ write 128, 64, 32 or -1");
            return rc;
        }
        bool stated = g >= 1;
        if (!stated)
            g = 128; /* AutoAWQ's and AutoGPTQ's default */
        /* per group: an fp16 scale and a zero packed at the weights' width */
        set_quant(m, t, (2.0 + bits / 8.0) / g, keep, IC_DT_FP16,
                  "quantization_config %s, %g bits, groups of %g%s with an fp16 scale and a "
                  "%g-bit zero",
                  meth, bits, g, stated ? "" : " (unstated: the default)", bits);
        return IC_OK;
    }
    if (strcmp(meth, "fbgemm_fp8") == 0) {
        /* Meta's FP8 Llama 3.1 405B: fp8 rows with an fp32 scale each (4 B
         * a row of K >= 8192 weights, under 0.05%: not counted); its list
         * names the attention of every layer and the head */
        set_quant(m, IC_DT_FP8, 0,
                  kept_groups(d, node, "modules_to_not_convert", 1u << IC_PG_HEAD, true, m),
                  IC_DT_BF16, "quantization_config fbgemm_fp8, one scale per output row (not "
                              "counted)");
        return IC_OK;
    }
    if (strcmp(meth, "bitsandbytes") == 0) {
        /* bitsandbytes: LLM.int8 rows (an fp32 scale a row: not counted),
         * or 4-bit NF4/FP4 blocks of 64 with an fp32 absmax (4 / 64 B a
         * weight), or with double quantization an 8-bit one and an fp32
         * scale a 256 of them (1 / 64 + 4 / 16384 B); transformers keeps
         * the LM head and llm_int8_skip_modules unquantized */
        const bool b8 = is_true(map_text(d, node, "load_in_8bit")),
                   b4 = is_true(map_text(d, node, "load_in_4bit"));
        /* transformers: llm_int8_skip_modules, where given, replaces its
         * default (the LM head) */
        const uint32_t keep = kept_groups(d, node, "llm_int8_skip_modules", 1u << IC_PG_HEAD,
                                          false, m);
        if (b8 && !b4) {
            set_quant(m, IC_DT_INT8, 0, keep, IC_DT_BF16,
                      "quantization_config bitsandbytes 8-bit, an fp32 scale per row (not "
                      "counted)");
            return IC_OK;
        }
        if (b4 && !b8) {
            const bool dq = is_true(map_text(d, node, "bnb_4bit_use_double_quant"));
            const char *qt = map_text(d, node, "bnb_4bit_quant_type");
            set_quant(m, IC_DT_INT4, dq ? 1.0 / 64 + 4.0 / 16384 : 4.0 / 64, keep, IC_DT_BF16,
                      "quantization_config bitsandbytes 4-bit %s (4-bit codes), blocks of 64 "
                      "with %s",
                      qt[0] ? qt : "nf4",
                      dq ? "an 8-bit absmax (double quantization)" : "an fp32 absmax");
            return IC_OK;
        }
    }
    if (strcmp(meth, "compressed-tensors") == 0)
        return read_compressed_tensors(d, node, m);
    if (strcmp(meth, "modelopt") == 0)
        return read_modelopt(d, node, m, "quantization_config", err);
    if (strcmp(meth, "quark") == 0)
        return read_quark(d, node, m);
    /* another method (hqq, eetq...): its type is not read,
     * so --weights must give it (the command lines refuse to guess); the
     * file loads */
    (void)err;
    snprintf(m->quant_unread, sizeof m->quant_unread, "%s", meth);
    m->has_default_weights = false;
    return IC_OK;
}

/* compression_config: where compressed-tensors exports before
 * quantization_config (llm-compressor's of 2024) state their scheme, in
 * quantization_config's form. vLLM reads it only where quantization_config
 * is absent or null, and so does this; its note names the key it came
 * from. */
static int read_compression(const struct ic_ydoc *d, yaml_node_t *node, void *rec,
                            struct ic_err *err)
{
    struct ic_model *m = rec;
    yaml_node_t *root = yaml_document_get_root_node((yaml_document_t *)&d->doc);
    yaml_node_t *text = map_get(d, root, "text_config");
    yaml_node_t *q_root = map_get(d, root, "quantization_config");
    yaml_node_t *q_text =
        text && text->type == YAML_MAPPING_NODE ? map_get(d, text, "quantization_config") : NULL;
    if ((q_root && !ic_ydoc_is_null(q_root)) || (q_text && !ic_ydoc_is_null(q_text)))
        return IC_OK;
    int rc = read_quant(d, node, rec, err);
    /* "quantization_config ..." -> "compression_config ..." (one shorter) */
    static const char q[] = "quantization_config", c[] = "compression_config";
    char *n = m->weights_note;
    if (!rc && strncmp(n, q, sizeof q - 1) == 0) {
        memmove(n + sizeof c - 1, n + sizeof q - 1, strlen(n + sizeof q - 1) + 1);
        memcpy(n, c, sizeof c - 1);
    }
    return rc;
}

/* rope_scaling: the context a scaled RoPE makes usable, the original
 * length times the factor (Qwen2.5's YaRN: 32768 x 4). */
static int read_rope(const struct ic_ydoc *d, yaml_node_t *node, void *rec, struct ic_err *err)
{
    struct ic_model *m = rec;
    (void)err;
    if (ic_ydoc_is_null(node) || node->type != YAML_MAPPING_NODE)
        return IC_OK;
    /* Llama 3's scaling ("llama3") comes with max_position_embeddings
     * already the scaled context (Llama 3.2: 131072, where factor 32 x the
     * original 8192 would say 262144): that one stands */
    const char *type = ic_ydoc_scalar(map_get(d, node, "rope_type"));
    if (!type)
        type = ic_ydoc_scalar(map_get(d, node, "type"));
    if (type && strcmp(type, "llama3") == 0)
        return IC_OK;
    double f = map_num(d, node, "factor"), orig = map_num(d, node,
                                                          "original_max_position_embeddings");
    if (f >= 1 && orig >= 1 && f * orig <= (double)IC_MODEL_MAX_CONTEXT)
        m->rope_context = (uint64_t)(f * orig);
    return IC_OK;
}

#define OFF(f) offsetof(struct ic_model, f)
#define STR(k, id, f) {k, IC_F_STR, id, OFF(f), sizeof(((struct ic_model *)0)->f), 0, 0, 0, false, NULL, NULL}
#define CNT(k, id, f) {k, IC_F_COUNT, id, OFF(f), 0, 0, 0, 0, false, NULL, NULL}
#define BOOL(k, id, f) {k, IC_F_BOOL, id, OFF(f), 0, 0, 0, 0, false, NULL, NULL}
/* a count whose config class takes None (null: the key left out) */
#define CNT_NULL(k, id, f) {k, IC_F_COUNT_NULL, id, OFF(f), 0, 0, 0, 0, false, NULL, NULL}
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct ic_field published_fields[] = {
    CNT("total_params", IC_MF_PUB_TOTAL, published_total),
    CNT("active_params", IC_MF_PUB_ACTIVE, published_active),
    BOOL("active_includes_embedding", IC_MF_PUB_ACTIVE_EMB,
         published_active_includes_embedding),
    STR("source", IC_MF_PUB_SOURCE, published_source),
};
static const struct ic_schema published_schema = {"published section", published_fields,
                                                  N(published_fields), false};

/* The architecture keys, shared by modeldb files and config.json. */
#define ARCH_FIELDS                                                                  \
    CNT("hidden_size", IC_MF_HIDDEN, hidden_size),                                   \
    CNT("intermediate_size", IC_MF_INTERMEDIATE, intermediate_size),                 \
    CNT("num_hidden_layers", IC_MF_LAYERS, num_hidden_layers),                       \
    CNT("num_attention_heads", IC_MF_HEADS, num_attention_heads),                    \
    CNT("num_key_value_heads", IC_MF_KV_HEADS, num_key_value_heads),                 \
    CNT("head_dim", IC_MF_HEAD_DIM, head_dim),                                       \
    CNT("vocab_size", IC_MF_VOCAB, vocab_size),                                      \
    BOOL("tie_word_embeddings", IC_MF_TIE, tie_word_embeddings),                     \
    CNT("max_position_embeddings", IC_MF_MAX_POS, max_position_embeddings),          \
    BOOL("attention_bias", IC_MF_ATTN_BIAS, attention_bias),                         \
    CNT_NULL("sliding_window", IC_MF_SLIDING_WINDOW, sliding_window),                     \
    {"sliding_window_pattern", IC_F_CUSTOM, IC_MF_SLIDING_PATTERN, 0, 0, 0, 0, 0, false, NULL, \
     read_sliding_pattern},                                                           \
    {"layer_types", IC_F_CUSTOM, IC_MF_LAYER_TYPES, 0, 0, 0, 0, 0, false, NULL,      \
     read_layer_types},                                                              \
    BOOL("use_sliding_window", IC_MF_USE_SLIDING, use_sliding_window),               \
    CNT("max_window_layers", IC_MF_MAX_WINDOW_LAYERS, max_window_layers),            \
    CNT("num_local_experts", IC_MF_NUM_LOCAL_EXPERTS, n_experts_field[0]),           \
    CNT("n_routed_experts", IC_MF_N_ROUTED_EXPERTS, n_experts_field[1]),             \
    CNT("num_experts", IC_MF_NUM_EXPERTS, n_experts_field[2]),                       \
    CNT("moe_num_experts", IC_MF_ERNIE_EXPERTS, n_experts_field[3]),                 \
    CNT("moe_k", IC_MF_ERNIE_K, ernie_k),                                            \
    CNT("moe_num_shared_experts", IC_MF_ERNIE_SHARED, ernie_shared),                 \
    CNT("moe_layer_start_index", IC_MF_ERNIE_START, ernie_start),                    \
    {"moe_layer_end_index", IC_F_CUSTOM, IC_MF_ERNIE_END, 0, 0, 0, 0, 0, false, NULL,      \
     read_ernie_end},                                                                 \
    CNT("moe_layer_interval", IC_MF_ERNIE_INTERVAL, ernie_interval),                 \
    BOOL("bias", IC_MF_BIAS, bias),                                                  \
    CNT("num_layers", IC_MF_NUM_LAYERS, num_layers),                                 \
    BOOL("mlp_bias", IC_MF_MLP_BIAS, mlp_bias),                                      \
    BOOL("qkv_bias", IC_MF_QKV_BIAS, qkv_bias),                                      \
    CNT("num_kv_heads", IC_MF_FALCON_KV, falcon_kv),                                 \
    BOOL("multi_query", IC_MF_MULTI_QUERY, multi_query),                             \
    BOOL("new_decoder_architecture", IC_MF_NEW_ARCH, new_arch),                      \
    BOOL("parallel_attn", IC_MF_PARALLEL_ATTN, parallel_attn),                       \
    CNT("num_ln_in_parallel_attn", IC_MF_NUM_LN, num_ln),                            \
    CNT("ffn_hidden_size", IC_MF_FFN, ffn_hidden_size),                              \
    CNT("num_experts_per_tok", IC_MF_TOPK, num_experts_per_tok),                     \
    {"moe_intermediate_size", IC_F_CUSTOM, IC_MF_MOE_INTERMEDIATE, 0, 0, 0, 0, 0, false, NULL, \
     read_moe_inter},                                                                \
    {"moe_topk", IC_F_CUSTOM, IC_MF_HY_TOPK, 0, 0, 0, 0, 0, false, NULL, read_hy_topk},    \
    {"num_shared_expert", IC_F_CUSTOM, IC_MF_HY_SHARED, 0, 0, 0, 0, 0, false, NULL,       \
     read_hy_shared},                                                                \
    BOOL("use_cla", IC_MF_HY_CLA, hy_cla),                                           \
    BOOL("use_mixed_mlp_moe", IC_MF_HY_MIXED, hy_mixed),                             \
    CNT("moe_layer_num_skipped", IC_MF_HY_SKIPPED, hy_skipped),                      \
    CNT("n_shared_experts", IC_MF_N_SHARED, n_shared_experts),                       \
    CNT("shared_expert_intermediate_size", IC_MF_SHARED_INTERMEDIATE,                \
        shared_expert_intermediate_size),                                            \
    CNT("first_k_dense_replace", IC_MF_FIRST_K_DENSE, first_k_dense_replace),        \
    CNT("moe_layer_freq", IC_MF_MOE_FREQ, moe_layer_freq),                           \
    CNT_NULL("q_lora_rank", IC_MF_Q_LORA, q_lora_rank),                                   \
    CNT("kv_lora_rank", IC_MF_KV_LORA, kv_lora_rank),                                \
    CNT("qk_rope_head_dim", IC_MF_ROPE_DIM, qk_rope_head_dim),                       \
    CNT("qk_nope_head_dim", IC_MF_NOPE_DIM, qk_nope_head_dim),                       \
    CNT("v_head_dim", IC_MF_V_HEAD_DIM, v_head_dim),                                 \
    CNT("index_topk", IC_MF_INDEX_TOPK, index_topk),                                 \
    CNT("index_n_heads", IC_MF_INDEX_HEADS, index_n_heads),                          \
    CNT("index_head_dim", IC_MF_INDEX_DIM, index_head_dim),                          \
    CNT("intermediate_size_mlp", IC_MF_INTERMEDIATE_MLP, intermediate_size_mlp),     \
    CNT("interleave_moe_layer_step", IC_MF_MOE_STEP, interleave_moe_layer_step),     \
    CNT("attention_chunk_size", IC_MF_CHUNK, attention_chunk_size),                  \
    {"no_rope_layers", IC_F_CUSTOM, IC_MF_NO_ROPE, 0, 0, 0, 0, 0, false, NULL, read_no_rope}, \
    {"moe_layers", IC_F_CUSTOM, IC_MF_MOE_LAYERS, 0, 0, 0, 0, 0, false, NULL, read_moe_layers}, \
    CNT("no_rope_layer_interval", IC_MF_NO_ROPE_INTERVAL, no_rope_layer_interval),   \
    CNT("linear_num_key_heads", IC_MF_LIN_K_HEADS, linear_num_key_heads),             \
    CNT("linear_num_value_heads", IC_MF_LIN_V_HEADS, linear_num_value_heads),         \
    CNT("linear_key_head_dim", IC_MF_LIN_K_DIM, linear_key_head_dim),                 \
    CNT("linear_value_head_dim", IC_MF_LIN_V_DIM, linear_value_head_dim),             \
    CNT("linear_conv_kernel_dim", IC_MF_LIN_CONV, linear_conv_kernel_dim),            \
    CNT("full_attention_interval", IC_MF_FULL_INTERVAL, full_attention_interval),     \
    BOOL("attn_output_gate", IC_MF_ATTN_GATE, attn_output_gate),                      \
    {"mamba_ssm_dtype", IC_F_CUSTOM, IC_MF_SSM_DTYPE, 0, 0, 0, 0, 0, false, NULL,     \
     read_ssm_dtype},                                                                 \
    {"shared_intermediate_size", IC_F_CUSTOM, IC_MF_SHARED_MINIMAX, 0, 0, 0, 0, 0, false,   \
     NULL, read_shared_minimax},                                                      \
    CNT("mamba_n_heads", IC_MF_MAMBA_HEADS, mamba_n_heads),                           \
    CNT("mamba_d_head", IC_MF_MAMBA_HEAD_DIM, mamba_d_head),                          \
    CNT("mamba_d_state", IC_MF_MAMBA_STATE, mamba_d_state),                           \
    CNT("mamba_n_groups", IC_MF_MAMBA_GROUPS, mamba_n_groups),                        \
    CNT("mamba_d_conv", IC_MF_MAMBA_CONV, mamba_d_conv),                              \
    CNT("mamba_expand", IC_MF_MAMBA_EXPAND, mamba_expand),                            \
    BOOL("mamba_conv_bias", IC_MF_MAMBA_CONV_BIAS, mamba_conv_bias),                  \
    BOOL("mamba_proj_bias", IC_MF_MAMBA_PROJ_BIAS, mamba_proj_bias),                  \
    BOOL("use_qk_norm", IC_MF_USE_QK_NORM, use_qk_norm),                              \
    BOOL("attention_out_bias", IC_MF_ATTN_OUT_BIAS, attention_out_bias),              \
    BOOL("lm_head_bias", IC_MF_LM_HEAD_BIAS, lm_head_bias),                           \
    {"hybrid_override_pattern", IC_F_CUSTOM, IC_MF_NH_PATTERN, 0, 0, 0, 0, 0, false, NULL, \
     read_nh_pattern},                                                                \
    {"layers_block_type", IC_F_CUSTOM, IC_MF_NH_BLOCKS, 0, 0, 0, 0, 0, false, NULL,      \
     read_nh_blocks},                                                                 \
    CNT("mamba_num_heads", IC_MF_NH_HEADS, nh_heads),                                 \
    CNT("mamba_head_dim", IC_MF_NH_HEAD_DIM, nh_head_dim),                            \
    CNT("ssm_state_size", IC_MF_NH_STATE, nh_state),                                  \
    CNT("n_groups", IC_MF_NH_GROUPS, nh_groups),                                      \
    CNT("conv_kernel", IC_MF_NH_CONV, nh_conv),                                       \
    BOOL("use_conv_bias", IC_MF_NH_CONV_BIAS, nh_conv_bias),                          \
    BOOL("use_bias", IC_MF_NH_BIAS, nh_use_bias),                                     \
    CNT("moe_shared_expert_intermediate_size", IC_MF_NH_SHARED, nh_shared),           \
    CNT("moe_latent_size", IC_MF_NH_LATENT, moe_latent_size),                         \
    CNT("attention_head_dim", IC_MF_NH_ATTN_HEAD_DIM, attention_head_dim),            \
    {"mamba_ssm_cache_dtype", IC_F_CUSTOM, IC_MF_NH_SSM_DTYPE, 0, 0, 0, 0, 0, false, NULL, \
     read_ssm_cache_dtype},                                                           \
    STR("model_type", IC_MF_MODEL_TYPE, model_type)

static const struct ic_field model_fields[] = {
    {"name", IC_F_STR, IC_MF_NAME, OFF(name), sizeof(((struct ic_model *)0)->name), 0, 0,
     0, true, NULL, NULL},
    {"aliases", IC_F_STRLIST, IC_MF_ALIASES, OFF(aliases),
     sizeof(((struct ic_model *)0)->aliases[0]), IC_MODEL_MAX_ALIASES, OFF(n_aliases), 0,
     false, NULL, NULL},
    STR("hf_repo", IC_MF_HF_REPO, hf_repo),
    {"source", IC_F_STR, IC_MF_SOURCE, OFF(source), sizeof(((struct ic_model *)0)->source),
     0, 0, 0, true, NULL, NULL},
    ARCH_FIELDS,
    {"published", IC_F_MAP, IC_MF_PUBLISHED, 0, 0, 0, 0, 0, false, &published_schema, NULL},
    CNT("parameters", IC_MF_PARAMETERS, parameters),
    CNT("active_parameters", IC_MF_ACTIVE_PARAMETERS, active_parameters),
    CNT("kv_values_per_token", IC_MF_KV_VALUES, kv_values_per_token),
    /* the shipped checkpoint's types, as its config.json gives them (gpt-oss
     * ships mxfp4 experts only): the default weights, as for a config */
    {"torch_dtype", IC_F_CUSTOM, IC_MF_TORCH_DTYPE, 0, 0, 0, 0, 0, false, NULL,
     read_torch_dtype},
    {"quantization_config", IC_F_CUSTOM, IC_MF_QUANT, 0, 0, 0, 0, 0, false, NULL, read_quant},
};
static const struct ic_schema model_schema = {"model entry", model_fields, N(model_fields),
                                              false};

static const struct ic_field config_fields[] = {
    ARCH_FIELDS,
    {"torch_dtype", IC_F_CUSTOM, IC_MF_TORCH_DTYPE, 0, 0, 0, 0, 0, false, NULL,
     read_torch_dtype},
    /* transformers 4.56 and later write "dtype" where it wrote torch_dtype */
    {"dtype", IC_F_CUSTOM, IC_MF_DTYPE, 0, 0, 0, 0, 0, false, NULL, read_dtype},
    /* Qwen-MoE keys that make layers dense: read to refuse what is not
     * counted (the released configs give 1 and []) */
    {"decoder_sparse_step", IC_F_CUSTOM, IC_MF_SPARSE_STEP, 0, 0, 0, 0, 0, false, NULL,
     read_sparse_step},
    {"mlp_only_layers", IC_F_CUSTOM, IC_MF_MLP_ONLY, 0, 0, 0, 0, 0, false, NULL,
     read_mlp_only},
    {"attn_type_list", IC_F_CUSTOM, IC_MF_ATTN_TYPES, 0, 0, 0, 0, 0, false, NULL,
     read_attn_types},
    {"quantization_config", IC_F_CUSTOM, IC_MF_QUANT, 0, 0, 0, 0, 0, false, NULL, read_quant},
    {"compression_config", IC_F_CUSTOM, IC_MF_COMPRESSION, 0, 0, 0, 0, 0, false, NULL,
     read_compression},
    {"rope_scaling", IC_F_CUSTOM, IC_MF_ROPE_SCALING, 0, 0, 0, 0, 0, false, NULL, read_rope},
};
static const struct ic_schema config_schema = {"Hugging Face config", config_fields,
                                               N(config_fields), true};

/* A multimodal wrapper (Llava, Mllama, Gemma 3...): its text model, read
 * after the wrapper, is the one the calculator times; its keys override the
 * wrapper's. */
static int read_text_config(const struct ic_ydoc *d, yaml_node_t *node, struct ic_model *m,
                            struct ic_err *err)
{
    if (!node || ic_ydoc_is_null(node))
        return IC_OK;
    if (node->type != YAML_MAPPING_NODE)
        return ic_ydoc_error(d, node, err, "'text_config': expected a mapping");
    /* its own key positions, so that the wrapper's model_type (and any key
     * both give) is overridden rather than a duplicate */
    struct ic_loc inner[IC_MF_COUNT];
    memset(inner, 0, sizeof inner);
    int rc = ic_ydoc_read(d, node, &config_schema, m, inner, NULL, err);
    if (rc)
        return rc;
    for (int i = 0; i < IC_MF_COUNT; i++)
        if (inner[i].line)
            m->locs[i] = inner[i];
    return IC_OK;
}

/* Whether a config.json names key, null included, in the text model's
 * keys or the wrapper's. */
static bool config_key_given(const struct ic_ydoc *d, yaml_node_t *root, const char *key)
{
    yaml_node_t *text = map_get(d, root, "text_config");
    return map_get(d, root, key) ||
           (text && text->type == YAML_MAPPING_NODE && map_get(d, text, key));
}

/* The config.json model_types whose layers the derivation counts, each
 * checked against published parameter counts (docs/reliability.md); a
 * multimodal wrapper's text_config names its own. */
static const char *const read_types[] = {
    "llama",     "mistral",     "mixtral", "qwen2",       "qwen2_moe",   "qwen3",
    "qwen3_moe", "gemma",       "gemma2",  "gemma3",      "gemma3_text", "phi3",
    "deepseek_v2", "deepseek_v3", "kimi_k2", "olmoe", "gpt_oss", "qwen2_vl", "qwen2_5_vl",
    "qwen2_vl_text", "qwen2_5_vl_text", "llava", "glm4_moe", "minimax_m2", "deepseek_v32",
    "llama4", "llama4_text", "qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe",
    "qwen3_5_moe_text", "granitemoehybrid", "qwen3_vl", "qwen3_vl_text", "qwen3_vl_moe",
    "qwen3_vl_moe_text", "olmo2", "olmo3", "smollm3", "seed_oss", "granite", "nemotron_h",
    "ministral3", "cohere", "cohere2", "glm4", "exaone4", "phimoe", "granitemoe", "ernie4_5",
    "ernie4_5_moe", "internlm2", "exaone", "arcee", "starcoder2", "internlm3", "dots1", "falcon",
    "hunyuan_v1_dense", "hunyuan_v1_moe"};

static bool type_read(const char *t)
{
    for (size_t i = 0; i < sizeof read_types / sizeof read_types[0]; i++)
        if (strcmp(t, read_types[i]) == 0)
            return true;
    return false;
}

/* A hint naming the model_types read, between before and after */
static void read_types_hint(struct ic_err *err, const char *before, const char *after)
{
    char list[1024];
    size_t n = 0;
    for (size_t i = 0; i < sizeof read_types / sizeof read_types[0] && n < sizeof list; i++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", read_types[i]);
    ic_err_hint(err, "%s%s%s", before, list, after);
}

/* A model_type whose layers this derivation does not hold (Mamba and
 * linear-attention hybrids, encoders, a GELU MLP): its keys would be read
 * as a Llama's and give wrong counts without a word. */
static int type_error(const char *path, unsigned line, unsigned col, const char *type,
                      struct ic_err *err)
{
    int rc = ic_err_set(err, IC_EINVAL, path, line, col,
                        "model_type '%s' is not one infcalc reads: its layers may not be a "
                        "decoder's attention and gated MLP (or MoE) as counted here",
                        type);
    read_types_hint(err, "read: ",
                    "; a decoder of the same shape under another name may say one of these "
                    "(its counts are then yours to check)");
    return rc;
}

/* A config.json without a model_type is read as a Llama's (LlamaConfig's
 * keys and defaults), as a hand-written config of a Llama shape is; one
 * whose 'architectures' names another model (GPTNeoXForCausalLM, whose
 * GELU MLP and biases would be counted as a gated MLP's) is refused. */
static int refuse_unnamed_type(const struct ic_ydoc *d, yaml_node_t *root, struct ic_err *err)
{
    static const char *const llama_archs[] = {"LlamaForCausalLM", "LLaMAForCausalLM",
                                              "MistralForCausalLM"};
    yaml_node_t *archs = map_get(d, root, "architectures");
    if (!archs || archs->type != YAML_SEQUENCE_NODE)
        return IC_OK;
    for (yaml_node_item_t *it = archs->data.sequence.items.start;
         it < archs->data.sequence.items.top; it++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *a = ic_ydoc_scalar(item);
        bool llama = false;
        for (size_t i = 0; a && i < sizeof llama_archs / sizeof llama_archs[0]; i++)
            llama = llama || strcmp(a, llama_archs[i]) == 0;
        if (llama)
            continue;
        const int rc = ic_err_set(err, IC_EINVAL, d->path, (unsigned)item->start_mark.line + 1,
                                  (unsigned)item->start_mark.column + 1,
                                  "the config gives no model_type, and its architectures name "
                                  "'%s', not a Llama (a config without a model_type is read "
                                  "as a Llama's)",
                                  a ? a : "(not a string)");
        read_types_hint(err,
                        "add the \"model_type\" its checkpoint's config.json gives, one of "
                        "those read: ",
                        "");
        return rc;
    }
    return IC_OK;
}

/* The model_type a config.json's text model has (text_config's over the
 * wrapper's), refused before any other key: a key's error on a model
 * infcalc does not read (MiniMax-M3's list of moe_layer_freq) would give
 * the wrong reason. */
static int refuse_unread_type(const struct ic_ydoc *d, yaml_node_t *root, struct ic_err *err)
{
    yaml_node_t *text = map_get(d, root, "text_config");
    yaml_node_t *node = text && text->type == YAML_MAPPING_NODE ? map_get(d, text, "model_type")
                                                                : NULL;
    if (!node)
        node = map_get(d, root, "model_type");
    const char *t = ic_ydoc_scalar(node);
    if (!t || !t[0]) /* none, or an empty one: read as a Llama's */
        return refuse_unnamed_type(d, root, err);
    if (type_read(t))
        return IC_OK;
    return type_error(d->path, (unsigned)node->start_mark.line + 1,
                      (unsigned)node->start_mark.column + 1, t, err);
}

/* q and k norms in every attention layer: none, one of head_dim on each
 * (Qwen3, Gemma 3), or one over all of q's heads and one over k's (OLMoE,
 * MiniMax-M2) */
enum { QK_NONE = 0, QK_HEAD, QK_FULL };

/* What Hugging Face's implementation of a model_type fixes in code rather
 * than in config.json, so a config read directly counts the same. */
/* what a family's 'bias' key biases */
enum { BIAS_QKV = 1, BIAS_O = 2, BIAS_MLP = 4 };

/* Keys whose default, where a config.json leaves them out, a model_type's
 * config classes take otherwise than infcalc would without them (the query
 * heads, hidden_size / heads, no bias, a plain q projection, none): a
 * config.json of that model_type names them (null included) or is refused
 * (a model entry's absent keys mean what modeldb/README.md says). Every
 * released config names them, and some classes' defaults have moved, so a
 * refusal costs no real checkpoint; where released configs do leave keys
 * out (Google's Gemma 3, ERNIE 4.5), the family's *_default fields take the
 * class's values instead, and show model says so. */
enum {
    NEED_KV_HEADS = 1u << 0,     /* a fixed count: Qwen3Config 32, MistralConfig 8, ... */
    NEED_HEAD_DIM = 1u << 1,     /* a fixed width: Qwen3Config 128, GptOssConfig 64, ... */
    NEED_ATTN_BIAS = 1u << 2,    /* true: GptOssConfig, SeedOssConfig, Glm4Config */
    NEED_Q_LORA = 1u << 3,       /* 1536: DeepseekV2/V3Config, DeepSeek's own (null: none) */
    NEED_KV_LORA = 1u << 4,      /* every DeepSeek model_type's attention is MLA */
    /* an MoE's (the three below): n_shared_experts, where the classes
     * disagree (transformers' DeepseekV3Config 1, DeepseekV2Config 2,
     * DeepSeek-V3's own configuration_deepseek.py None, Dots1Config None,
     * which its code cannot build, Glm4MoeConfig none, later 1);
     * first_k_dense_replace (DeepseekV3Config 3, DeepseekV2Config and
     * DeepSeek-V3's own 0, Kimi K2's 3, Glm4MoeConfig none, later 1);
     * shared_expert_intermediate_size, a shared expert (Qwen2MoeConfig
     * 5632, Qwen3NextConfig and Qwen3.5's 512) */
    NEED_N_SHARED = 1u << 5,
    NEED_FIRST_K = 1u << 6,
    NEED_SHARED_WIDTH = 1u << 7,
    NEED_MOE = NEED_N_SHARED | NEED_FIRST_K | NEED_SHARED_WIDTH,
    NEED_MOE_SHARED = NEED_N_SHARED | NEED_FIRST_K,
    NEED_DEEPSEEK = NEED_Q_LORA | NEED_KV_LORA | NEED_MOE_SHARED,
};

/* null_ok: a null is the class's None, which its code reads (every head,
 * hidden_size / heads, no bias, a plain q projection, no shared expert as
 * vLLM builds it); else a null is refused too (the code cannot build the
 * model with None) */
static const struct need_key {
    unsigned bit;
    int id;
    bool null_ok;
    const char *key, *why;
} need_keys[] = {
    {NEED_KV_HEADS, IC_MF_KV_HEADS, true, "num_key_value_heads",
     "its config class's default is a fixed count, not the query heads"},
    {NEED_HEAD_DIM, IC_MF_HEAD_DIM, true, "head_dim",
     "its config class's default is a fixed width, not hidden_size / num_attention_heads"},
    {NEED_ATTN_BIAS, IC_MF_ATTN_BIAS, true, "attention_bias",
     "its config class's default is true"},
    {NEED_Q_LORA, IC_MF_Q_LORA, true, "q_lora_rank",
     "its config classes take 1536 where it is left out (null: a plain q projection)"},
    {NEED_KV_LORA, IC_MF_KV_LORA, false, "kv_lora_rank",
     "its attention is MLA, whose cache is that rank wide (a null builds none)"},
    {NEED_N_SHARED, IC_MF_N_SHARED, true, "n_shared_experts",
     "the config classes that read this model_type take different defaults"},
    {NEED_FIRST_K, IC_MF_FIRST_K_DENSE, false, "first_k_dense_replace",
     "the config classes that read this model_type take different defaults (a null builds "
     "none)"},
    {NEED_SHARED_WIDTH, IC_MF_SHARED_INTERMEDIATE, false, "shared_expert_intermediate_size",
     "its config class's default is a shared expert, not none (a null builds none)"},
};

static const struct family {
    const char *model_type;
    bool qkv_bias_only;        /* q/k/v biases always, none on o (Qwen2) */
    uint64_t norms;            /* norm weight vectors a layer: 2 where 0 (Gemma's four,
                                  with post-attention and post-MLP norms; Cohere's one,
                                  before its parallel attention and MLP) */
    uint64_t sliding_pattern;  /* layer i global iff (i+1) % p == 0; 0 = none */
    bool no_o_bias;            /* attention_bias biases q/k/v, never o */
    bool o_bias_key;           /* ... and attention_out_bias biases o */
    bool one_shared;           /* each MoE layer has one shared expert of the experts'
                                  width, whatever n_shared_experts says (Llama 4) */
    uint64_t chunk;            /* attention_chunk_size where the config leaves it out */
    uint64_t mlp_width;        /* intermediate_size_mlp where the config leaves it out */
    /* linear-attention hybrids (transformers' Qwen3NextConfig and
     * Qwen3_5TextConfig): one full attention layer every full_interval-th
     * where the config lists no layer_types (Qwen3NextConfig's
     * full_attention_interval=4), their q projection doubled by an output
     * gate unless attn_output_gate says otherwise, and a shared_expert_gate
     * (D -> 1) beside each MoE layer's shared expert */
    uint64_t full_interval;
    bool gate;
    bool shared_gate;
    int qk_norm;               /* QK_*: the q/k norms' widths */
    bool qk_key;               /* ... there only where use_qk_norm is true (Glm4MoeConfig's
                                  default false) */
    bool router_bias;          /* each router's score correction bias, one a routed expert
                                  (DeepSeek-V3's e_score_correction_bias) */
    bool mamba;                /* Mamba2 layers and a shared MLP (Granite 4.0-H) */
    bool nemotron;             /* one mixer or MLP a block (Nemotron-H) */
    bool expert_bias;          /* biases on each expert's gate/up (2 x width) and down (D) */
    bool sinks;                /* a learned attention sink a query head */
    bool tie_default;          /* the embeddings tied where the config does not say */
    bool norm_bias;            /* LayerNorms with a bias (two vectors a norm) */
    bool head_bias_key;        /* lm_head_bias gives the LM head a bias */
    /* EXAONE 4's sliding_window_pattern: letters read ("LLLG"), none with
     * no window (every layer global), the last layer always global */
    bool exaone_pattern;
    /* the config class's sliding_window where config.json leaves the key
     * out (Gemma2Config, Gemma3TextConfig, Cohere2Config, Exaone4Config,
     * Olmo3Config and MistralConfig all take 4096); a null there is None,
     * no window */
    uint64_t window_default;
    /* ERNIE 4.5: its MoE keys (moe_num_experts, moe_k, moe_num_shared_experts,
     * its layer range); the config class's head_dim and KV heads where the
     * config leaves them out (0: hidden_size / heads, and every head) */
    bool ernie;
    uint64_t head_dim_default, kv_default;
    /* the config class's query heads and vocabulary where a config.json
     * leaves the key out (Gemma's: Google's Gemma 3 configs name no
     * vocab_size, its 4B no heads, KV heads or head_dim) */
    uint64_t heads_default, vocab_default;
    /* its max_position_embeddings where a config.json leaves the key out
     * (Gemma 3 27B's text_config names none: Gemma3TextConfig's 131072) */
    uint64_t max_pos_default;
    bool no_use_bias; /* use_bias true refused (ERNIE 4.5: no release sets it) */
    bool head_dim_fixed; /* the code takes hidden_size / heads, reading no head_dim */
    /* what 'bias' biases (BIAS_*; 0: the key is not read), and whether
     * it is true where absent. InternLM2: its fused q/k/v projection and
     * its output projection, true where absent (its head_dim is
     * hidden_size / heads: InternLM2Attention reads no key, its configs
     * give none); InternLM3: o_proj and the MLP; Falcon: q/k/v, o and the
     * MLP */
    unsigned bias_key;
    bool bias_default;
    /* EXAONE 3: num_layers for num_hidden_layers */
    bool num_layers_key;
    /* mlp_bias biases the dense MLP's projections (LlamaMLP's, and the
     * classes copying it; others fix bias=False and ignore the key) */
    bool mlp_bias_key;
    /* an MLP of two matrices, up and down, no gate (ReLU^2, GELU) */
    bool two_mats;
    /* StarCoder2's use_bias (true where absent): biases on q, k, v, o and
     * both MLP matrices */
    bool use_bias_all;
    /* InternLM3: qkv_bias biases q, k and v (Qwen2-MoE: true where absent) */
    bool qkv_bias_key;
    bool qkv_bias_default;
    /* Falcon (FalconAttention, FalconDecoderLayer): its KV heads and
     * norms from its own keys, its MLP's width ffn_hidden_size */
    bool falcon;
    /* Hunyuan (transformers' HunYuanDenseV1 / HunYuanMoEV1): head_dim, else
     * hidden_size / heads (attention_head_dim, where given, must agree); its
     * MoE keys (moe_topk, num_shared_expert, lists a layer) */
    bool hunyuan;
    /* its experts' width must be given: the config class's default is no
     * dense width (ERNIE 4.5's, dots.llm1's 1408) */
    bool moe_width;
    /* its code reads no expert keys (Hunyuan's dense model, whose configs
     * carry num_experts 1 and the MoE lists): ignored in a config.json,
     * refused in a model entry */
    bool no_moe;
    /* Qwen2's window (Qwen2Config, Qwen2MoeConfig, Qwen3Config,
     * Qwen3MoeConfig, Qwen2-VL's and Qwen2.5-VL's text configs):
     * sliding_window only where use_sliding_window is true (false where
     * absent: 'self.sliding_window = sliding_window if
     * self.use_sliding_window else None'), and then on the layers from
     * max_window_layers on (the first max_window_layers attend in full);
     * this is the config class's max_window_layers where a config.json
     * leaves it out (0: not this family) */
    uint64_t window_layers_default;
    /* an MoE whose code reads none of DeepSeek's layer keys
     * (first_k_dense_replace, moe_layer_freq) or n_shared_experts: its
     * experts in every layer, a shared expert only by its own key; a model
     * entry giving them is refused */
    bool no_deepseek_keys;
    /* NEED_* keys a file of this model_type must name */
    unsigned need;
} families[] = {
    /* Llama (LlamaMLP: bias=config.mlp_bias); a config without a
     * model_type is read as one */
    {.model_type = "llama", .mlp_bias_key = true},
    /* Mixtral (MixtralSparseMoeBlock): a Llama whose every MLP is its experts */
    {.model_type = "mixtral", .need = NEED_KV_HEADS, .no_deepseek_keys = true},
    {.model_type = "qwen2", .need = NEED_KV_HEADS, .qkv_bias_only = true,
     .window_layers_default = 28},
    /* Qwen2-VL and Qwen2.5-VL (their text decoders, Qwen2VLAttention and
     * Qwen2_5_VLAttention): Qwen2's q/k/v biases */
    {.model_type = "qwen2_vl", .need = NEED_KV_HEADS, .qkv_bias_only = true,
     .window_layers_default = 80},
    {.model_type = "qwen2_vl_text", .need = NEED_KV_HEADS, .qkv_bias_only = true,
     .window_layers_default = 80},
    {.model_type = "qwen2_5_vl", .need = NEED_KV_HEADS, .qkv_bias_only = true,
     .window_layers_default = 80},
    {.model_type = "qwen2_5_vl_text", .need = NEED_KV_HEADS, .qkv_bias_only = true,
     .window_layers_default = 80},
    /* Qwen1.5-MoE and Qwen2-MoE (transformers' Qwen2MoeAttention and
     * Qwen2MoeSparseMoeBlock): q/k/v biases (bias=True, later
     * config.qkv_bias, true where absent), none on o; a shared_expert_gate
     * (D -> 1) beside the shared expert */
    {.model_type = "qwen2_moe", .need = NEED_KV_HEADS | NEED_SHARED_WIDTH, .moe_width = true,
     .qkv_bias_key = true, .qkv_bias_default = true, .shared_gate = true,
     .window_layers_default = 28, .no_deepseek_keys = true},
    /* Qwen3 and Qwen3-MoE (transformers' Qwen3Attention): q_norm and k_norm
     * of head_dim in every layer; Qwen3-VL's text models are the same
     * decoders (Qwen3VLTextAttention, Qwen3VLMoeTextAttention) */
    {.model_type = "qwen3", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .qk_norm = QK_HEAD,
     .window_layers_default = 28},
    {.model_type = "qwen3_moe", .need = NEED_KV_HEADS, .moe_width = true, .qk_norm = QK_HEAD,
     .window_layers_default = 28, .no_deepseek_keys = true},
    {.model_type = "qwen3_vl", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_vl_text", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_vl_moe", .need = NEED_KV_HEADS, .moe_width = true, .qk_norm = QK_HEAD,
     .no_deepseek_keys = true},
    {.model_type = "qwen3_vl_moe_text", .need = NEED_KV_HEADS, .moe_width = true,
     .qk_norm = QK_HEAD, .no_deepseek_keys = true},
    /* Cohere (Command R, Aya Expanse; CohereDecoderLayer): attention and
     * the MLP side by side after one LayerNorm (a weight, no bias), a
     * LayerNorm of head_dim for each query and KV head where use_qk_norm
     * (Command R+'s), tied embeddings where the config does not say
     * (CohereConfig's default); Cohere 2 (Command R7B, Command A) the same
     * without q/k norms, three sliding layers to one global where the
     * config states no pattern (Cohere2Config's sliding_window_pattern 4) */
    {.model_type = "cohere", .norms = 1, .qk_norm = QK_FULL, .qk_key = true,
     .tie_default = true},
    {.model_type = "cohere2", .norms = 1, .sliding_pattern = 4, .tie_default = true,
     .window_default = 4096},
    /* Gemma (GemmaConfig, Gemma2Config, Gemma3TextConfig) ties its
     * embeddings where the config does not say; Gemma 2: pre/post
     * attention and MLP norms, even layers slide */
    /* (GemmaConfig, Gemma2Config and Gemma3TextConfig: head_dim 256 and
     * their heads, KV heads and vocabulary where a config leaves them out;
     * without, gemma-7b's head_dim read 3072 / 16 = 192) */
    {.model_type = "gemma", .tie_default = true, .head_dim_default = 256,
     .kv_default = 16, .heads_default = 16, .vocab_default = 256000, .max_pos_default = 8192},
    {.model_type = "gemma2", .norms = 4, .sliding_pattern = 2, .tie_default = true,
     .window_default = 4096, .head_dim_default = 256, .kv_default = 4, .heads_default = 8,
     .vocab_default = 256000, .max_pos_default = 8192},
    /* Gemma 3: five sliding layers to one global (Gemma3TextConfig's
     * sliding_window_pattern 6) where the config states no pattern; q_norm
     * and k_norm of head_dim (Gemma3Attention) */
    {.model_type = "gemma3_text", .norms = 4, .sliding_pattern = 6, .qk_norm = QK_HEAD,
     .tie_default = true, .window_default = 4096, .head_dim_default = 256, .kv_default = 4,
     .heads_default = 8, .vocab_default = 262208, .max_pos_default = 131072},
    {.model_type = "gemma3", .norms = 4, .sliding_pattern = 6, .qk_norm = QK_HEAD,
     .tie_default = true, .window_default = 4096, .head_dim_default = 256, .kv_default = 4,
     .heads_default = 8, .vocab_default = 262208, .max_pos_default = 131072},
    /* OLMoE (OlmoeAttention): q_norm over hidden_size, k_norm over the KV
     * heads' width; OLMo 2 and 3 the same (Olmo2Attention, Olmo3Attention),
     * with their two norms after the attention and the MLP in place of
     * before them (Olmo3's sliding layers from layer_types, or three in
     * four, the last of each four global, where it lists none, as
     * Olmo3Config fills it in) */
    {.model_type = "olmoe", .qk_norm = QK_FULL, .no_deepseek_keys = true},
    {.model_type = "olmo2", .qk_norm = QK_FULL},
    {.model_type = "olmo3", .qk_norm = QK_FULL, .sliding_pattern = 4, .window_default = 4096},
    /* SmolLM3: a Llama whose NoPE layers (no_rope_layers) hold no
     * parameters of their own, tied where the config does not say
     * (SmolLM3Config's tie_word_embeddings=True); IBM Granite 3 (GraniteForCausalLM): a Llama
     * with scalar multipliers */
    {.model_type = "smollm3", .need = NEED_KV_HEADS, .mlp_bias_key = true, .tie_default = true},
    {.model_type = "granite", .mlp_bias_key = true},
    /* Arcee AFM (ArceeMLP): up and down with ReLU^2 between, no gate,
     * mlp_bias on both */
    {.model_type = "arcee", .mlp_bias_key = true, .two_mats = true},
    /* StarCoder2 (Starcoder2DecoderLayer): LayerNorms with biases, c_fc and
     * c_proj without a gate, use_bias on them and on q/k/v/o, tied where
     * the config does not say (Starcoder2Config's defaults) */
    {.model_type = "starcoder2", .need = NEED_KV_HEADS, .norm_bias = true, .two_mats = true,
     .use_bias_all = true, .tie_default = true},
    /* Granite 3.0/3.1 MoE (GraniteMoeMoE): a Granite whose MLP is
     * num_local_experts gated experts of intermediate_size (input_linear
     * D -> 2 x width, output_linear width -> D) and a router without bias;
     * head_dim is hidden_size / heads (GraniteMoeAttention reads no key) */
    {.model_type = "granitemoe", .head_dim_fixed = true, .no_deepseek_keys = true},
    /* Mistral (MistralConfig): a window on every layer, 4096 where the
     * config leaves sliding_window out (Mistral 7B v0.2 and later write
     * null: none) */
    {.model_type = "mistral", .need = NEED_KV_HEADS, .window_default = 4096},
    /* Mistral 3's text model (Ministral 3, Devstral 2: Ministral3ForCausalLM,
     * which vLLM runs as MistralForCausalLM): a Mistral */
    {.model_type = "ministral3", .need = NEED_KV_HEADS | NEED_HEAD_DIM},
    /* Seed-OSS (SeedOssAttention): attention_bias on q/k/v, o's bias its
     * own key, attention_out_bias */
    {.model_type = "seed_oss", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_ATTN_BIAS,
     .no_o_bias = true, .o_bias_key = true, .mlp_bias_key = true},
    /* gpt-oss (GptOssExperts, GptOssTopKRouter, GptOssAttention): biases on
     * every expert's projections and on the router, a sink a head; where
     * the config lists no layer_types, GptOssConfig's: layer i slides iff
     * (i + 1) % 2 (sliding first, then full, alternating), its window 128
     * where sliding_window is absent */
    {.model_type = "gpt_oss", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_ATTN_BIAS,
     .router_bias = true, .expert_bias = true, .sinks = true, .no_deepseek_keys = true,
     .sliding_pattern = 2, .window_default = 128},
    /* DeepSeek-V3 (and V3.2, Kimi K2): DeepseekV3TopkRouter's
     * e_score_correction_bias */
    {.model_type = "deepseek_v3", .need = NEED_DEEPSEEK, .moe_width = true, .router_bias = true},
    {.model_type = "deepseek_v32", .need = NEED_DEEPSEEK, .moe_width = true, .router_bias = true},
    {.model_type = "kimi_k2", .need = NEED_DEEPSEEK, .moe_width = true, .router_bias = true},
    /* DeepSeek-V2 (DeepseekV2Config: moe_intermediate_size 1407 where
     * absent, not the dense width; first_k_dense_replace 0 in it and in
     * DeepSeek's own class, as its absence reads) */
    {.model_type = "deepseek_v2", .need = NEED_Q_LORA | NEED_KV_LORA | NEED_N_SHARED,
     .moe_width = true},
    /* EXAONE 4.0 (Exaone4DecoderLayer): its two norms after the attention
     * and the MLP, q_norm and k_norm of head_dim, three sliding layers to
     * one global (sliding_window_pattern 4 or "LLLG", the last layer global
     * whatever its letter, as Exaone4Config's docstring and TRT-LLM's
     * check_is_sliding have it), none with a null sliding_window (the
     * 1.2B's), 4096 where the key is absent */
    {.model_type = "exaone4", .need = NEED_KV_HEADS, .qk_norm = QK_HEAD, .sliding_pattern = 4,
     .exaone_pattern = true, .window_default = 4096},
    /* Phi-3.5-MoE (PhiMoEDecoderLayer): LayerNorms with biases, q/k/v/o
     * biases where attention_bias, a bias on the LM head where
     * lm_head_bias, Mixtral's experts */
    {.model_type = "phimoe", .need = NEED_KV_HEADS, .norm_bias = true, .head_bias_key = true,
     .no_deepseek_keys = true},
    /* ERNIE 4.5 (Ernie4_5ForCausalLM): a Llama, tied where the config does
     * not say, Ernie4_5Config's head_dim=128 and num_key_value_heads=2
     * where absent; its MoE (Ernie4_5_MoeForCausalLM): DeepSeek's experts
     * with moe_num_shared_experts x moe_intermediate_size shared (2 where
     * absent), the router's correction bias (moe_statics), MoE layers every
     * moe_layer_interval-th from moe_layer_start_index (1) to
     * moe_layer_end_index (-1: the last), num_key_value_heads=4 where
     * absent. use_bias (biases on every projection) is refused: no released
     * config sets it */
    {.model_type = "ernie4_5", .tie_default = true, .head_dim_default = 128, .kv_default = 2,
     .no_use_bias = true},
    {.model_type = "ernie4_5_moe", .ernie = true, .tie_default = true, .kv_default = 4,
     .router_bias = true, .no_use_bias = true, .moe_width = true},
    /* EXAONE 3.0 and 3.5 (remote code ExaoneForCausalLM): a Llama under
     * other names (wte, c_fc_0/1, c_proj, out_proj), its layer count
     * num_layers, tied where the config does not say (ExaoneConfig leaves
     * the key to PretrainedConfig's default, as the 2.4B's config does) */
    {.model_type = "exaone", .num_layers_key = true, .tie_default = true},
    /* InternLM2 and 2.5 (remote code InternLM2ForCausalLM): a Llama whose
     * q, k and v are one matrix (wqkv, the same count) */
    {.model_type = "internlm2", .bias_key = BIAS_QKV | BIAS_O, .bias_default = true,
     .head_dim_fixed = true},
    /* InternLM3 (remote code InternLM3ForCausalLM): a Llama under its own
     * names whose q/k/v_proj take bias=config.qkv_bias and o_proj, gate,
     * up and down bias=config.bias (both false in the released 8B) */
    {.model_type = "internlm3", .qkv_bias_key = true, .bias_key = BIAS_O | BIAS_MLP,
     .no_moe = true},
    /* Falcon 7B, 40B, 180B and Falcon 2 (transformers' FalconForCausalLM):
     * q/k/v fused, its width (heads + 2 KV heads) x head_dim where the KV
     * heads are num_kv_heads with new_decoder_architecture, else one with
     * multi_query (true where absent), else every head; head_dim hidden_size
     * / heads (a property, no key); an MLP of two matrices (GELU) of
     * ffn_hidden_size (4 x hidden_size where absent); LayerNorms with
     * biases, two a layer (ln_attn and ln_mlp, or input and post-attention)
     * or one (parallel_attn with num_ln_in_parallel_attn not 2, which is 2
     * where absent with new_decoder_architecture); 'bias' (false where
     * absent) on q/k/v, dense and both MLP matrices; tied where the config
     * does not say (FalconConfig leaves it to PretrainedConfig) */
    {.model_type = "falcon", .falcon = true, .bias_key = BIAS_QKV | BIAS_O | BIAS_MLP,
     .head_dim_fixed = true, .two_mats = true, .norm_bias = true, .tie_default = true,
     .no_moe = true},
    /* dots.llm1 (transformers' Dots1DecoderLayer): Qwen3's attention (q_norm
     * and k_norm of head_dim; attention_bias on q, k, v and o) before
     * DeepSeek-V3's MoE (first_k_dense_replace dense layers, shared experts
     * of n_shared_experts x moe_intermediate_size, the router's
     * e_score_correction_bias), untied where the config does not say */
    {.model_type = "dots1", .need = NEED_KV_HEADS | NEED_N_SHARED, .qk_norm = QK_HEAD,
     .router_bias = true, .moe_width = true},
    /* Tencent Hunyuan (transformers' HunYuanDenseV1ForCausalLM and
     * HunYuanMoEV1ForCausalLM): a Llama with query_layernorm and
     * key_layernorm of head_dim in every layer (built whatever use_qk_norm
     * says), head_dim else hidden_size / heads; the dense model reads none
     * of the MoE keys its configs carry; the MoE's every layer num_experts
     * routed experts and one shared MLP, all of intermediate_size, top
     * moe_topk, a router without bias. Tencent's own code (and vLLM's) takes
     * attention_head_dim, sizes the experts by moe_intermediate_size and
     * num_shared_expert, skips the first moe_layer_num_skipped layers, and
     * shares K/V across layers with use_cla: where those would count
     * otherwise, refused */
    {.model_type = "hunyuan_v1_dense", .qk_norm = QK_HEAD, .hunyuan = true, .no_moe = true},
    {.model_type = "hunyuan_v1_moe", .qk_norm = QK_HEAD, .hunyuan = true, .one_shared = true},
    /* GLM-4-0414 (Glm4DecoderLayer): four norms a layer (before and after
     * the attention and the MLP), q/k/v_proj biased by attention_bias, o_proj
     * never */
    {.model_type = "glm4", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_ATTN_BIAS, .norms = 4,
     .no_o_bias = true},
    /* GLM-4.5/4.6/4.7 (transformers' Glm4MoeAttention): q/k/v_proj take
     * bias=attention_bias, o_proj bias=False; q_norm and k_norm of head_dim
     * where use_qk_norm (GLM-4.5's true, Air's false); the router's
     * correction bias */
    {.model_type = "glm4_moe", .need = NEED_KV_HEADS | NEED_MOE_SHARED, .moe_width = true,
     .no_o_bias = true, .qk_norm = QK_HEAD, .qk_key = true, .router_bias = true},
    /* MiniMax-M2 (MiniMaxM2Attention): q_norm over all query heads, k_norm
     * over the KV heads, always (its config's use_qk_norm true, a key
     * MiniMaxM2Config does not read); its routing bias */
    {.model_type = "minimax_m2", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .qk_norm = QK_FULL,
     .router_bias = true},
    /* Llama 4 (transformers' Llama4TextMoe): a shared_expert of
     * intermediate_size beside the routed ones in every MoE layer;
     * Llama4TextConfig's attention_chunk_size=8192, intermediate_size_mlp=16384
     * (its use_qk_norm is an L2 norm without weights) */
    {.model_type = "llama4_text", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .one_shared = true,
     .chunk = 8192, .mlp_width = 16384},
    {.model_type = "llama4", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .one_shared = true,
     .chunk = 8192, .mlp_width = 16384},
    /* Qwen3-Next and Qwen3.5: Gated DeltaNet layers, three in four */
    {.model_type = "qwen3_next", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_SHARED_WIDTH,
     .moe_width = true, .full_interval = 4, .gate = true, .shared_gate = true, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_5", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .full_interval = 4,
     .gate = true, .shared_gate = true, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_5_text", .need = NEED_KV_HEADS | NEED_HEAD_DIM, .full_interval = 4,
     .gate = true, .shared_gate = true, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_5_moe", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_SHARED_WIDTH,
     .moe_width = true, .full_interval = 4, .gate = true, .shared_gate = true, .qk_norm = QK_HEAD},
    {.model_type = "qwen3_5_moe_text", .need = NEED_KV_HEADS | NEED_HEAD_DIM | NEED_SHARED_WIDTH,
     .moe_width = true, .full_interval = 4, .gate = true, .shared_gate = true, .qk_norm = QK_HEAD},
    /* IBM Granite 4.0-H (transformers' GraniteMoeHybrid): Mamba2 layers
     * beside attention ones (layer_types mamba / attention), routed experts
     * of intermediate_size beside a shared MLP of shared_intermediate_size,
     * which is the whole MLP of a model without experts */
    {.model_type = "granitemoehybrid", .mamba = true},
    /* NVIDIA Nemotron-H (transformers' NemotronHForCausalLM): blocks of one
     * mixer (Mamba2 or attention) or one MLP (up and down, squared ReLU) or
     * MoE (routed experts and a shared one of such MLPs, a router with its
     * correction bias), each behind its own RMSNorm */
    {.model_type = "nemotron_h", .need = NEED_KV_HEADS, .router_bias = true, .nemotron = true},
};

static const struct family *family_of(const struct ic_model *m)
{
    static const struct family plain = {.model_type = ""};
    const char *t = m->model_type[0] ? m->model_type : "llama";
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(t, families[i].model_type) == 0)
            return &families[i];
    return &plain;
}

/* ---- derivation ------------------------------------------------------- */

struct ctx {
    const struct ic_model *m;
    struct ic_err *err;
    bool overflow;
};

static int at(const struct ctx *c, int id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int at(const struct ctx *c, int id, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const struct ic_loc *l = &c->m->locs[id];
    int rc = ic_err_set(c->err, IC_EINVAL, c->m->path, l->line, l->col, "%s", msg);
    ic_err_hint(c->err, "copy the sizes from the model's Hugging Face config.json; "
                        "modeldb/README.md lists the keys and their ranges");
    return rc;
}

static bool has(const struct ic_model *m, int id) { return m->locs[id].line != 0; }

/* The first of the NEED_* keys in which that fam needs and the file leaves
 * out, refused at its model_type; else 0. */
static int needed_keys(const struct ctx *c, const struct family *fam, unsigned which)
{
    const unsigned missing = c->m->need_missing & fam->need & which;
    for (size_t i = 0; i < N(need_keys); i++)
        if (missing & need_keys[i].bit) {
            const int rc = at(c, IC_MF_MODEL_TYPE, "model_type '%s' needs '%s': %s",
                              c->m->model_type, need_keys[i].key, need_keys[i].why);
            ic_err_hint(c->err, "give it as the checkpoint's config.json does");
            return rc;
        }
    return IC_OK;
}

/* Layer i of a model with experts is an MoE layer: past the first
 * first_k_dense_replace dense ones, every moe_layer_freq-th (DeepSeek's
 * rule; 1 where unstated). */
static bool layer_is_moe(const struct ic_model *m, const struct family *fam, uint64_t i)
{
    /* Llama 4: moe_layers, else layers step-1, 2 step-1 ... (transformers'
     * Llama4TextConfig: moe_layers = range(step - 1, layers, step)) */
    if (has(m, IC_MF_MOE_LAYERS))
        return i < IC_MODEL_MAX_LAYERS && (m->moe_layer_bits[i / 64] >> (i % 64) & 1);
    if (has(m, IC_MF_MOE_STEP) && m->interleave_moe_layer_step)
        return (i + 1) % m->interleave_moe_layer_step == 0;
    /* ERNIE 4.5 (Ernie4_5_MoeDecoderLayer): every moe_layer_interval-th
     * layer counted from 1, from moe_layer_start_index (1) to
     * moe_layer_end_index (-1, the last: Ernie4_5_MoeConfig's defaults) */
    if (fam->ernie) {
        const uint64_t every = has(m, IC_MF_ERNIE_INTERVAL) ? m->ernie_interval : 1;
        const uint64_t first = has(m, IC_MF_ERNIE_START) ? m->ernie_start : 1;
        const bool to_last = !has(m, IC_MF_ERNIE_END) || m->ernie_end_last;
        return (i + 1) % every == 0 && i >= first && (to_last || i <= m->ernie_end);
    }
    const uint64_t freq = has(m, IC_MF_MOE_FREQ) && m->moe_layer_freq ? m->moe_layer_freq : 1;
    return i >= m->first_k_dense_replace && i % freq == 0;
}

/* Overflow-checked arithmetic: a flag instead of wrapping silently. */
static uint64_t mul(struct ctx *c, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        c->overflow = true;
        return 0;
    }
    return r;
}
static uint64_t add(struct ctx *c, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        c->overflow = true;
        return 0;
    }
    return r;
}

/* Upper limits far above any real model; they keep products in 64 bits and
 * reject absurd input with a message rather than a wrapped count. */
static int check_range(struct ctx *c, int id, const char *key, uint64_t v, uint64_t lo,
                       uint64_t hi)
{
    if (v < lo || v > hi)
        return at(c, id, "'%s' is %llu; expected %llu to %llu", key, (unsigned long long)v,
                  (unsigned long long)lo, (unsigned long long)hi);
    return IC_OK;
}

/* max_position_embeddings where given: 1 to 2^40 (0 read as "unknown": no
 * context warning, sweeps past any length) */
static int check_max_pos(struct ctx *c)
{
    if (!has(c->m, IC_MF_MAX_POS))
        return IC_OK;
    return check_range(c, IC_MF_MAX_POS, "max_position_embeddings",
                       c->m->max_position_embeddings, 1, UINT64_C(1) << 40);
}

/* Each KV head serves a whole group of query heads (the KV heads' key's
 * position, or the heads' where the KV heads are a family's default). */
static int check_head_groups(struct ctx *c, uint64_t H, uint64_t Hkv)
{
    if (!Hkv || H % Hkv == 0)
        return IC_OK;
    const int rc = at(c, has(c->m, IC_MF_KV_HEADS) ? IC_MF_KV_HEADS : IC_MF_HEADS,
                      "num_attention_heads (%llu) is not a multiple of num_key_value_heads "
                      "(%llu); each KV head must serve a whole group of query heads",
                      (unsigned long long)H, (unsigned long long)Hkv);
    ic_err_hint(c->err, "num_key_value_heads divides num_attention_heads (%s)",
                has(c->m, IC_MF_KV_HEADS) ? "as the model's config.json gives them"
                                          : "give it: the model_type's default does not");
    return rc;
}

static int derive_totals(struct ctx *c, struct ic_model_stats *s)
{
    const struct ic_model *m = c->m;
    if (!m->parameters)
        return at(c, IC_MF_PARAMETERS, "'parameters' must be greater than zero");
    if (has(m, IC_MF_ACTIVE_PARAMETERS) && !m->active_parameters)
        return at(c, IC_MF_ACTIVE_PARAMETERS,
                  "'active_parameters' is 0; expected 1 to 'parameters' (leave it out for "
                  "a dense model)");
    if (m->active_parameters > m->parameters)
        return at(c, IC_MF_ACTIVE_PARAMETERS,
                  "'active_parameters' (%llu) exceeds 'parameters' (%llu)",
                  (unsigned long long)m->active_parameters,
                  (unsigned long long)m->parameters);
    if (!has(m, IC_MF_KV_VALUES))
        return at(c, IC_MF_PARAMETERS,
                  "a model stating 'parameters' must also state 'kv_values_per_token'");
    if (m->kv_values_per_token > IC_MODEL_MAX_KV_VALUES)
        return at(c, IC_MF_KV_VALUES, "'kv_values_per_token' is %llu; expected at most 2^34",
                  (unsigned long long)m->kv_values_per_token);
    if (m->parameters > (UINT64_C(1) << 50))
        return at(c, IC_MF_PARAMETERS, "'parameters' is %llu; expected at most 2^50",
                  (unsigned long long)m->parameters);
    if (check_max_pos(c))
        return IC_EINVAL;
    if (!m->hidden_size || !m->num_hidden_layers)
        return at(c, IC_MF_PARAMETERS,
                  "a model stating 'parameters' must also state 'hidden_size' and "
                  "'num_hidden_layers' (collectives need them)");
    /* the same limits as an architecture's: absurd sizes are refused here
     * too, not carried into the collectives and the workspace */
    int rc;
    const uint64_t H = m->num_attention_heads;
    if ((rc = check_range(c, IC_MF_HIDDEN, "hidden_size", m->hidden_size, 1, 1u << 20)) ||
        (rc = check_range(c, IC_MF_LAYERS, "num_hidden_layers", m->num_hidden_layers, 1,
                          IC_MODEL_MAX_LAYERS)) ||
        (has(m, IC_MF_HEADS) &&
         (rc = check_range(c, IC_MF_HEADS, "num_attention_heads", H, 1, 1u << 14))) ||
        (has(m, IC_MF_KV_HEADS) &&
         (rc = check_range(c, IC_MF_KV_HEADS, "num_key_value_heads", m->num_key_value_heads, 1,
                           has(m, IC_MF_HEADS) ? H : 1u << 14))))
        return rc;
    /* the architecture's keys the stated totals replace: beside them they
     * changed nothing (a sliding window, experts, a vocabulary of 0 loaded
     * and were ignored) */
    static const struct {
        int id;
        const char *key;
    } unread[] = {
        {IC_MF_INTERMEDIATE, "intermediate_size"}, {IC_MF_HEAD_DIM, "head_dim"},
        {IC_MF_VOCAB, "vocab_size"}, {IC_MF_TIE, "tie_word_embeddings"},
        {IC_MF_ATTN_BIAS, "attention_bias"}, {IC_MF_SLIDING_WINDOW, "sliding_window"},
        {IC_MF_SLIDING_PATTERN, "sliding_window_pattern"}, {IC_MF_LAYER_TYPES, "layer_types"},
        {IC_MF_USE_SLIDING, "use_sliding_window"}, {IC_MF_MAX_WINDOW_LAYERS, "max_window_layers"},
        {IC_MF_NUM_LOCAL_EXPERTS, "num_local_experts"},
        {IC_MF_N_ROUTED_EXPERTS, "n_routed_experts"}, {IC_MF_NUM_EXPERTS, "num_experts"},
        {IC_MF_TOPK, "num_experts_per_tok"}, {IC_MF_MOE_INTERMEDIATE, "moe_intermediate_size"},
        {IC_MF_N_SHARED, "n_shared_experts"},
        {IC_MF_SHARED_INTERMEDIATE, "shared_expert_intermediate_size"},
        {IC_MF_FIRST_K_DENSE, "first_k_dense_replace"}, {IC_MF_MOE_FREQ, "moe_layer_freq"},
        {IC_MF_Q_LORA, "q_lora_rank"}, {IC_MF_KV_LORA, "kv_lora_rank"},
        {IC_MF_ROPE_DIM, "qk_rope_head_dim"}, {IC_MF_NOPE_DIM, "qk_nope_head_dim"},
        {IC_MF_V_HEAD_DIM, "v_head_dim"}, {IC_MF_INDEX_TOPK, "index_topk"},
        {IC_MF_INDEX_HEADS, "index_n_heads"}, {IC_MF_INDEX_DIM, "index_head_dim"},
        {IC_MF_INTERMEDIATE_MLP, "intermediate_size_mlp"},
        {IC_MF_MOE_STEP, "interleave_moe_layer_step"}, {IC_MF_CHUNK, "attention_chunk_size"},
        {IC_MF_NO_ROPE, "no_rope_layers"}, {IC_MF_NO_ROPE_INTERVAL, "no_rope_layer_interval"},
        {IC_MF_MOE_LAYERS, "moe_layers"}, {IC_MF_LIN_K_HEADS, "linear_num_key_heads"},
        {IC_MF_LIN_V_HEADS, "linear_num_value_heads"}, {IC_MF_LIN_K_DIM, "linear_key_head_dim"},
        {IC_MF_LIN_V_DIM, "linear_value_head_dim"}, {IC_MF_LIN_CONV, "linear_conv_kernel_dim"},
        {IC_MF_FULL_INTERVAL, "full_attention_interval"}, {IC_MF_ATTN_GATE, "attn_output_gate"},
        {IC_MF_SSM_DTYPE, "mamba_ssm_dtype"}, {IC_MF_MAMBA_HEADS, "mamba_n_heads"},
        {IC_MF_MAMBA_HEAD_DIM, "mamba_d_head"}, {IC_MF_MAMBA_STATE, "mamba_d_state"},
        {IC_MF_MAMBA_GROUPS, "mamba_n_groups"}, {IC_MF_MAMBA_CONV, "mamba_d_conv"},
        {IC_MF_MAMBA_EXPAND, "mamba_expand"}, {IC_MF_MAMBA_CONV_BIAS, "mamba_conv_bias"},
        {IC_MF_MAMBA_PROJ_BIAS, "mamba_proj_bias"},
        {IC_MF_SHARED_MINIMAX, "shared_intermediate_size"},
        {IC_MF_ERNIE_EXPERTS, "moe_num_experts"}, {IC_MF_ERNIE_K, "moe_k"},
        {IC_MF_ERNIE_SHARED, "moe_num_shared_experts"},
        {IC_MF_ERNIE_START, "moe_layer_start_index"}, {IC_MF_ERNIE_END, "moe_layer_end_index"},
        {IC_MF_ERNIE_INTERVAL, "moe_layer_interval"}, {IC_MF_BIAS, "bias"},
        {IC_MF_NUM_LAYERS, "num_layers"}, {IC_MF_MLP_BIAS, "mlp_bias"},
        {IC_MF_QKV_BIAS, "qkv_bias"}, {IC_MF_FALCON_KV, "num_kv_heads"},
        {IC_MF_MULTI_QUERY, "multi_query"}, {IC_MF_NEW_ARCH, "new_decoder_architecture"},
        {IC_MF_PARALLEL_ATTN, "parallel_attn"}, {IC_MF_NUM_LN, "num_ln_in_parallel_attn"},
        {IC_MF_FFN, "ffn_hidden_size"}, {IC_MF_HY_TOPK, "moe_topk"},
        {IC_MF_HY_SHARED, "num_shared_expert"}, {IC_MF_HY_CLA, "use_cla"},
        {IC_MF_HY_MIXED, "use_mixed_mlp_moe"}, {IC_MF_HY_SKIPPED, "moe_layer_num_skipped"},
    };
    for (size_t i = 0; i < N(unread); i++)
        if (has(m, unread[i].id)) {
            rc = at(c, unread[i].id, "'%s' is not read beside 'parameters': a model of "
                                     "stated totals has no architecture",
                    unread[i].key);
            ic_err_hint(c->err, "leave it out (fold it into parameters and "
                                "kv_values_per_token), or give the whole architecture "
                                "without 'parameters'");
            return rc;
        }
    for (int g = 0; g < IC_PG_COUNT; g++)
        s->group_ways[g] = UINT64_MAX;
    /* All parameters sit in one group that shards any number of ways. */
    s->group_params[IC_PG_MLP] = m->parameters;
    s->params_total = m->parameters;
    s->params_active = m->active_parameters ? m->active_parameters : m->parameters;
    s->kv_values_per_layer_token = m->kv_values_per_token;
    s->n_global_layers = 1; /* the stated total stands for all layers */
    /* attention: a query head scores each cached key and mixes each value,
     * 2 FLOPs a value for each query head its KV head serves (2 x H / Hkv
     * x the KV values, 4 H d a layer for GQA); one query head a KV head
     * (MHA) where the heads are not stated */
    if (has(m, IC_MF_HEADS) && has(m, IC_MF_KV_HEADS) &&
        (rc = check_head_groups(c, H, m->num_key_value_heads)))
        return rc;
    const uint64_t q_per_kv = has(m, IC_MF_HEADS) && has(m, IC_MF_KV_HEADS)
                                  ? H / m->num_key_value_heads
                                  : 1;
    s->attn_flop_per_ctx_token_layer = 2 * q_per_kv * m->kv_values_per_token;
    s->prefill_attn_flop_per_ctx_token_layer = s->attn_flop_per_ctx_token_layer;
    s->kv_ways = m->num_key_value_heads ? m->num_key_value_heads : UINT64_MAX;
    s->hidden_size = m->hidden_size;
    s->n_layers = m->num_hidden_layers;
    s->n_heads = m->num_attention_heads;
    s->n_kv_heads = m->num_key_value_heads;
    s->max_context = m->max_position_embeddings;
    return IC_OK;
}

/* A key and the field it fills. */
struct key_name {
    int id;
    const char *key;
};

/* The first of keys[] the file gives, refused as not read for this
 * model_type (a family's keys on another, where they would be dropped or
 * change its counts without a word): why names who reads it. */
static int refuse_keys(const struct ctx *c, const struct key_name *keys, size_t n,
                       const char *why, const char *hint)
{
    const struct ic_model *m = c->m;
    for (size_t i = 0; i < n; i++)
        if (has(m, keys[i].id)) {
            int rc = at(c, keys[i].id, "'%s' is not read for model_type '%s': %s", keys[i].key,
                        m->model_type[0] ? m->model_type : "(none given)", why);
            ic_err_hint(c->err, "%s", hint);
            return rc;
        }
    return IC_OK;
}

/* Falcon's own names for what other families call num_key_value_heads and
 * intermediate_size: those refused beside them (FalconConfig reads neither,
 * so a count from them would be a guess), its KV heads and norms checked */
static int falcon_keys(struct ctx *c, const struct family *fam)
{
    const struct ic_model *m = c->m;
    if (!fam->falcon)
        return IC_OK;
    static const struct key_name other[] = {{IC_MF_KV_HEADS, "num_key_value_heads"},
                                            {IC_MF_INTERMEDIATE, "intermediate_size"}};
    int rc = refuse_keys(c, other, N(other), "Falcon's are num_kv_heads (with "
                                             "new_decoder_architecture) and ffn_hidden_size",
                         "give num_kv_heads and ffn_hidden_size, as Falcon's configs do");
    if (rc)
        return rc;
    /* other families' keys that would change a count FalconConfig and its
     * model never read (its biases are 'bias') */
    static const struct key_name unread[] = {
        {IC_MF_ATTN_BIAS, "attention_bias"}, {IC_MF_SLIDING_WINDOW, "sliding_window"},
        {IC_MF_LAYER_TYPES, "layer_types"}, {IC_MF_CHUNK, "attention_chunk_size"},
        {IC_MF_KV_LORA, "kv_lora_rank"}, {IC_MF_Q_LORA, "q_lora_rank"},
        {IC_MF_INTERMEDIATE_MLP, "intermediate_size_mlp"}};
    if ((rc = refuse_keys(c, unread, N(unread), "Falcon's code reads no such key",
                          "leave it out; modeldb/README.md lists falcon's keys")))
        return rc;
    if (has(m, IC_MF_FALCON_KV) &&
        (rc = check_range(c, IC_MF_FALCON_KV, "num_kv_heads", m->falcon_kv, 1,
                          m->num_attention_heads)))
        return rc;
    if (has(m, IC_MF_FFN) &&
        (rc = check_range(c, IC_MF_FFN, "ffn_hidden_size", m->ffn_hidden_size, 1, 1u << 22)))
        return rc;
    if (has(m, IC_MF_NUM_LN) && m->num_ln != 1 && m->num_ln != 2)
        return at(c, IC_MF_NUM_LN, "num_ln_in_parallel_attn is %llu; expected 1 or 2 (the "
                                   "LayerNorms before the parallel attention and MLP)",
                  (unsigned long long)m->num_ln);
    return IC_OK;
}

/* Hunyuan's keys where transformers' code and Tencent's (vLLM's) would
 * count differently: refused, as is a list of expert widths on any other
 * model_type */
static int hunyuan_keys(struct ctx *c, const struct family *fam)
{
    const struct ic_model *m = c->m;
    if (!fam->hunyuan) {
        if (has(m, IC_MF_MOE_INTERMEDIATE) && m->moe_inter_list) {
            const int rc = at(c, IC_MF_MOE_INTERMEDIATE,
                              "'moe_intermediate_size' as a list is read for Hunyuan only");
            ic_err_hint(c->err, "give one width, as the model's config.json does");
            return rc;
        }
        return IC_OK;
    }
    if (has(m, IC_MF_HY_CLA) && m->hy_cla) {
        const int rc = at(c, IC_MF_HY_CLA, "'use_cla' true (K and V shared across layers) is "
                                           "not read: transformers' Hunyuan does not share "
                                           "them, Tencent's code does");
        ic_err_hint(c->err, "the released configs give use_cla false");
        return rc;
    }
    if (fam->no_moe)
        return IC_OK;
    if (has(m, IC_MF_HY_SKIPPED) && m->hy_skipped)
        return at(c, IC_MF_HY_SKIPPED, "'moe_layer_num_skipped' (%llu) is not read: "
                                       "transformers' Hunyuan makes every layer MoE, "
                                       "Tencent's code the layers after these",
                  (unsigned long long)m->hy_skipped);
    if (has(m, IC_MF_HY_MIXED) && !m->hy_mixed)
        return at(c, IC_MF_HY_MIXED, "'use_mixed_mlp_moe' false is not read: transformers' "
                                     "Hunyuan builds a shared MLP beside the experts, "
                                     "Tencent's code none without it");
    if (has(m, IC_MF_HY_SHARED) && m->hy_shared != 1)
        return at(c, IC_MF_HY_SHARED, "'num_shared_expert' is %llu; transformers' Hunyuan "
                                      "builds one shared MLP (Tencent's code that many "
                                      "widths): expected 1",
                  (unsigned long long)m->hy_shared);
    if (has(m, IC_MF_MOE_INTERMEDIATE) && has(m, IC_MF_INTERMEDIATE) &&
        m->moe_intermediate_size != m->intermediate_size)
        return at(c, IC_MF_MOE_INTERMEDIATE,
                  "'moe_intermediate_size' (%llu) is not intermediate_size (%llu): "
                  "transformers' Hunyuan sizes its experts by the latter, Tencent's code by "
                  "the former",
                  (unsigned long long)m->moe_intermediate_size,
                  (unsigned long long)m->intermediate_size);
    if (has(m, IC_MF_HY_TOPK) && has(m, IC_MF_TOPK) && m->hy_topk != m->num_experts_per_tok)
        return at(c, IC_MF_TOPK, "'num_experts_per_tok' (%llu) contradicts 'moe_topk' "
                                 "(%llu); expected one",
                  (unsigned long long)m->num_experts_per_tok, (unsigned long long)m->hy_topk);
    if (!has(m, IC_MF_NUM_EXPERTS) &&
        !has(m, IC_MF_NUM_LOCAL_EXPERTS) && !has(m, IC_MF_N_ROUTED_EXPERTS)) {
        const int rc = at(c, IC_MF_MODEL_TYPE, "a hunyuan_v1_moe config without "
                                               "'num_experts'");
        ic_err_hint(c->err, "give the expert count as the checkpoint's config.json does "
                            "(Hunyuan-A13B: 64)");
        return rc;
    }
    return IC_OK;
}

/* ERNIE 4.5's keys: use_bias true refused on both its model_types; its
 * MoE keys refused on any other model_type (where they would be dropped
 * without a word, the dense ernie4_5's included), checked on its own */
static int ernie_keys(struct ctx *c, const struct family *fam)
{
    const struct ic_model *m = c->m;
    if (fam->no_use_bias && has(m, IC_MF_NH_BIAS) && m->nh_use_bias) {
        const int rc = at(c, IC_MF_NH_BIAS, "'use_bias' true (a bias on every projection) is "
                                            "not read for ERNIE 4.5: no released checkpoint "
                                            "sets it");
        ic_err_hint(c->err, "ERNIE 4.5's released configs give use_bias false");
        return rc;
    }
    if (!fam->ernie) {
        static const struct key_name keys[] = {
            {IC_MF_ERNIE_EXPERTS, "moe_num_experts"},
            {IC_MF_ERNIE_K, "moe_k"},
            {IC_MF_ERNIE_SHARED, "moe_num_shared_experts"},
            {IC_MF_ERNIE_START, "moe_layer_start_index"},
            {IC_MF_ERNIE_END, "moe_layer_end_index"},
            {IC_MF_ERNIE_INTERVAL, "moe_layer_interval"},
        };
        return refuse_keys(c, keys, N(keys), "ERNIE 4.5's MoE keys are read for ernie4_5_moe",
                           "an MoE of another model_type names its experts otherwise "
                           "(num_local_experts, n_routed_experts or num_experts)");
    }
    /* Ernie4_5_MoeConfig's default is 64 experts: a config leaving the key
     * out is still an MoE, of a count it does not state */
    if (!has(m, IC_MF_ERNIE_EXPERTS) && !has(m, IC_MF_NUM_EXPERTS)) {
        const int rc = at(c, IC_MF_MODEL_TYPE, "an ernie4_5_moe config without "
                                               "'moe_num_experts'");
        ic_err_hint(c->err, "give the expert count as the checkpoint's config.json does "
                            "(ERNIE-4.5-21B-A3B: 64)");
        return rc;
    }
    if (has(m, IC_MF_TOPK) && has(m, IC_MF_ERNIE_K) && m->num_experts_per_tok != m->ernie_k)
        return at(c, IC_MF_TOPK, "'num_experts_per_tok' (%llu) contradicts 'moe_k' (%llu); "
                                 "expected one",
                  (unsigned long long)m->num_experts_per_tok, (unsigned long long)m->ernie_k);
    const uint64_t L = m->num_hidden_layers;
    int rc;
    if ((rc = check_range(c, IC_MF_ERNIE_INTERVAL, "moe_layer_interval",
                          has(m, IC_MF_ERNIE_INTERVAL) ? m->ernie_interval : 1, 1, L)) ||
        (rc = check_range(c, IC_MF_ERNIE_START, "moe_layer_start_index",
                          has(m, IC_MF_ERNIE_START) ? m->ernie_start : 0, 0, L - 1)) ||
        (rc = check_range(c, IC_MF_ERNIE_SHARED, "moe_num_shared_experts", m->ernie_shared, 0,
                          1u << 10)))
        return rc;
    if (has(m, IC_MF_ERNIE_END) && !m->ernie_end_last &&
        (rc = check_range(c, IC_MF_ERNIE_END, "moe_layer_end_index", m->ernie_end,
                          has(m, IC_MF_ERNIE_START) ? m->ernie_start : 1, L - 1)))
        return rc;
    return IC_OK;
}

/* Nemotron-H's blocks counted by kind (nh[IC_BLOCK_*]); its keys refused on
 * another model_type, where they would be dropped without a word. */
static int nemotron_blocks(const struct ctx *c, const struct family *fam, uint64_t nh[4])
{
    const struct ic_model *m = c->m;
    if (!fam->nemotron) {
        static const struct key_name keys[] = {
            {IC_MF_NH_PATTERN, "hybrid_override_pattern"},
            {IC_MF_NH_BLOCKS, "layers_block_type"},
            {IC_MF_NH_HEADS, "mamba_num_heads"},
            {IC_MF_NH_HEAD_DIM, "mamba_head_dim"},
            {IC_MF_NH_STATE, "ssm_state_size"},
            {IC_MF_NH_SHARED, "moe_shared_expert_intermediate_size"},
            {IC_MF_NH_LATENT, "moe_latent_size"},
            {IC_MF_NH_SSM_DTYPE, "mamba_ssm_cache_dtype"},
        };
        return refuse_keys(c, keys, N(keys), "Nemotron-H's blocks are read for nemotron_h",
                           "a hybrid of another model_type is not read");
    }
    if (!has(m, IC_MF_NH_PATTERN) && !has(m, IC_MF_NH_BLOCKS))
        return at(c, IC_MF_MODEL_TYPE,
                  "a nemotron_h config without 'hybrid_override_pattern' (or "
                  "'layers_block_type'): which blocks are Mamba2, attention or MLP is not "
                  "known");
    if (has(m, IC_MF_NH_PATTERN) && has(m, IC_MF_NH_BLOCKS))
        return at(c, IC_MF_NH_BLOCKS, "both 'hybrid_override_pattern' and "
                                      "'layers_block_type' are given; expected one");
    const int id = has(m, IC_MF_NH_PATTERN) ? IC_MF_NH_PATTERN : IC_MF_NH_BLOCKS;
    /* num_hidden_layers, where given (newer configs leave it to the blocks) */
    if (has(m, IC_MF_LAYERS) && m->n_blocks != m->num_hidden_layers)
        return at(c, id, "'%s' has %u blocks but num_hidden_layers is %llu",
                  id == IC_MF_NH_PATTERN ? "hybrid_override_pattern" : "layers_block_type",
                  m->n_blocks, (unsigned long long)m->num_hidden_layers);
    for (uint32_t i = 0; i < m->n_blocks; i++)
        nh[m->block_kind[i]]++;
    return IC_OK;
}

int ic_model_derive(const struct ic_model *m, struct ic_model_stats *out, struct ic_err *err)
{
    struct ctx c = {m, err, false};
    struct ic_model_stats s;
    memset(&s, 0, sizeof s);
    int rc;

    if (has(m, IC_MF_PARAMETERS)) {
        if ((rc = derive_totals(&c, &s)))
            return rc;
        *out = s;
        return IC_OK;
    }

    static const struct {
        int id;
        const char *key;
    } required[] = {
        {IC_MF_HIDDEN, "hidden_size"},
        {IC_MF_LAYERS, "num_hidden_layers"},
        {IC_MF_HEADS, "num_attention_heads"},
        {IC_MF_VOCAB, "vocab_size"},
        {IC_MF_INTERMEDIATE, "intermediate_size"},
    };
    /* an MoE model whose every layer is MoE (Qwen3.5's) may leave out the
     * dense width: it is asked for below when a dense layer needs it */
    const bool moe_width = has(m, IC_MF_MOE_INTERMEDIATE) &&
                           (has(m, IC_MF_NUM_LOCAL_EXPERTS) || has(m, IC_MF_N_ROUTED_EXPERTS) ||
                            has(m, IC_MF_NUM_EXPERTS) || has(m, IC_MF_ERNIE_EXPERTS));
    /* a Nemotron-H's blocks say how many there are (newer configs leave
     * num_hidden_layers out) */
    const bool blocks_given = family_of(m)->nemotron &&
                              (has(m, IC_MF_NH_PATTERN) || has(m, IC_MF_NH_BLOCKS));
    /* (Falcon's MLP width is ffn_hidden_size, 4 x hidden_size where absent) */
    const bool falcon = family_of(m)->falcon;
    for (size_t i = 0; i < N(required); i++)
        if (!has(m, required[i].id) &&
            !(required[i].id == IC_MF_INTERMEDIATE && (moe_width || falcon)) &&
            !(required[i].id == IC_MF_LAYERS && blocks_given)) {
            int mrc = ic_err_set(err, IC_EINVAL, m->path, m->root.line, m->root.col,
                                "missing '%s'; expected the model's architecture (or "
                                "'parameters' and 'kv_values_per_token' for a "
                                "hypothetical model)",
                                required[i].key);
            if (m->from_config_json)
                ic_err_hint(err, "add '\"%s\": ...' as the model's own config.json gives it",
                            required[i].key);
            else
                ic_err_hint(err, "add '%s:' from the model's config.json", required[i].key);
            return mrc;
        }

    const struct family *fam = family_of(m);
    const uint64_t D = m->hidden_size;
    const uint64_t H = m->num_attention_heads, V = m->vocab_size;
    /* (the family's default for a config.json that leaves the key out) */
    /* (Falcon: num_kv_heads with new_decoder_architecture, else one KV
     * head with multi_query, true where absent, else every head) */
    const bool multi_query = !has(m, IC_MF_MULTI_QUERY) || m->multi_query;
    const uint64_t Hkv = falcon ? (m->new_arch ? (has(m, IC_MF_FALCON_KV) ? m->falcon_kv : H)
                                   : multi_query ? 1
                                                 : H)
                         : has(m, IC_MF_KV_HEADS) ? m->num_key_value_heads
                         : fam->kv_default && m->from_config_json && !m->kv_null
                             ? fam->kv_default
                             : H;
    if ((rc = check_range(&c, IC_MF_HIDDEN, "hidden_size", D, 1, 1u << 20)) ||
        (has(m, IC_MF_LAYERS) &&
         (rc = check_range(&c, IC_MF_LAYERS, "num_hidden_layers", m->num_hidden_layers, 1,
                           IC_MODEL_MAX_LAYERS))) ||
        (rc = check_range(&c, IC_MF_HEADS, "num_attention_heads", H, 1, 1u << 14)) ||
        (rc = check_range(&c, IC_MF_VOCAB, "vocab_size", V, 1, 1u << 24)) ||
        (has(m, IC_MF_INTERMEDIATE) &&
         (rc = check_range(&c, IC_MF_INTERMEDIATE, "intermediate_size", m->intermediate_size,
                           1, 1u << 22))))
        return rc;
    if (has(m, IC_MF_KV_HEADS) &&
        (rc = check_range(&c, IC_MF_KV_HEADS, "num_key_value_heads", Hkv, 1, H)))
        return rc;
    if ((rc = needed_keys(&c, fam, ~(unsigned)NEED_MOE)))
        return rc;
    if ((rc = falcon_keys(&c, fam)) || (rc = hunyuan_keys(&c, fam)))
        return rc;
    if ((rc = ernie_keys(&c, fam)))
        return rc;
    /* a model entry (YAML) naming a key its model_type's code does not read:
     * refused, as an unknown key (a config.json's are its config class's
     * attributes, which that code ignores) */
    if (!m->from_config_json) {
        struct key_name unread[17]; /* at most 16: 2 + 6 + 5 + 3 below */
        size_t n = 0;
        if (!fam->hunyuan) {
            static const struct key_name hy_keys[] = {
                {IC_MF_HY_TOPK, "moe_topk"}, {IC_MF_HY_SHARED, "num_shared_expert"},
                {IC_MF_HY_CLA, "use_cla"}, {IC_MF_HY_MIXED, "use_mixed_mlp_moe"},
                {IC_MF_HY_SKIPPED, "moe_layer_num_skipped"}};
            for (size_t i = 0; i < N(hy_keys); i++)
                unread[n++] = hy_keys[i];
        }
        if (!fam->bias_key)
            unread[n++] = (struct key_name){IC_MF_BIAS, "bias"};
        if (!fam->falcon) {
            static const struct key_name falcon_keys[] = {
                {IC_MF_FALCON_KV, "num_kv_heads"}, {IC_MF_MULTI_QUERY, "multi_query"},
                {IC_MF_NEW_ARCH, "new_decoder_architecture"},
                {IC_MF_PARALLEL_ATTN, "parallel_attn"},
                {IC_MF_NUM_LN, "num_ln_in_parallel_attn"}, {IC_MF_FFN, "ffn_hidden_size"}};
            for (size_t i = 0; i < N(falcon_keys); i++)
                unread[n++] = falcon_keys[i];
        }
        if (!fam->qkv_bias_key)
            unread[n++] = (struct key_name){IC_MF_QKV_BIAS, "qkv_bias"};
        if (!fam->num_layers_key)
            unread[n++] = (struct key_name){IC_MF_NUM_LAYERS, "num_layers"};
        if (!fam->mlp_bias_key && !fam->nemotron)
            unread[n++] = (struct key_name){IC_MF_MLP_BIAS, "mlp_bias"};
        if (!fam->window_layers_default)
            unread[n++] = (struct key_name){IC_MF_MAX_WINDOW_LAYERS, "max_window_layers"};
        if ((rc = refuse_keys(&c, unread, n, "its code reads no such key",
                              "leave it out; modeldb/README.md lists each model_type's keys")))
            return rc;
        /* a family whose config class ties the embeddings where a config
         * does not say (Gemma's, Cohere's, Falcon's configs leave the key
         * out): a model entry states it, since its keys copied from such a
         * config would otherwise read untied (Gemma-2B +21% parameters) */
        if (fam->tie_default && !has(m, IC_MF_TIE)) {
            rc = at(&c, IC_MF_MODEL_TYPE,
                    "model_type '%s' needs 'tie_word_embeddings' in a model entry: its config "
                    "class ties the embeddings where a config.json does not say",
                    m->model_type);
            ic_err_hint(err, "add 'tie_word_embeddings: true' (the config class's default) or "
                             "false, as the checkpoint has it");
            return rc;
        }
        /* DeepSeek's layer keys and shared experts on an MoE whose code
         * reads none of them (its experts in every layer, a shared expert
         * only by its own key): they would move its counts */
        static const struct key_name ds_keys[] = {{IC_MF_FIRST_K_DENSE, "first_k_dense_replace"},
                                                  {IC_MF_MOE_FREQ, "moe_layer_freq"},
                                                  {IC_MF_N_SHARED, "n_shared_experts"}};
        if (fam->no_deepseek_keys &&
            (rc = refuse_keys(&c, ds_keys, N(ds_keys),
                              "DeepSeek's MoE keys; this model_type's code reads none",
                              fam->shared_gate ? "leave it out; Qwen2-MoE's shared expert is "
                                                 "shared_expert_intermediate_size, and every "
                                                 "layer is MoE"
                                               : "leave it out (every layer of this "
                                                 "model_type is MoE)")))
            return rc;
        /* a dense family's: its configs' MoE keys are ignored (Hunyuan's
         * dense model's carry them), a model entry's refused */
        static const struct key_name moe[] = {
            {IC_MF_NUM_EXPERTS, "num_experts"}, {IC_MF_NUM_LOCAL_EXPERTS, "num_local_experts"},
            {IC_MF_N_ROUTED_EXPERTS, "n_routed_experts"}, {IC_MF_TOPK, "num_experts_per_tok"},
            {IC_MF_MOE_INTERMEDIATE, "moe_intermediate_size"}, {IC_MF_HY_TOPK, "moe_topk"},
            {IC_MF_HY_SHARED, "num_shared_expert"}, {IC_MF_HY_MIXED, "use_mixed_mlp_moe"},
            {IC_MF_HY_SKIPPED, "moe_layer_num_skipped"}};
        if (fam->no_moe &&
            (rc = refuse_keys(&c, moe, N(moe), "a dense model's code reads no expert keys",
                              "leave them out (an MoE of the family has its own model_type)")))
            return rc;
    }
    /* NemotronHMLP's mlp_bias: no released config sets it, and its blocks'
     * biases are not counted */
    if (fam->nemotron && has(m, IC_MF_MLP_BIAS) && m->mlp_bias) {
        rc = at(&c, IC_MF_MLP_BIAS, "'mlp_bias' true is not read for nemotron_h: its MLP "
                                    "blocks' biases are not counted");
        ic_err_hint(err, "Nemotron-H's released configs give mlp_bias false");
        return rc;
    }
    if (fam->num_layers_key && has(m, IC_MF_NUM_LAYERS) && m->num_layers != m->num_hidden_layers)
        return at(&c, IC_MF_NUM_LAYERS, "'num_layers' (%llu) contradicts 'num_hidden_layers' "
                                        "(%llu); expected one layer count",
                  (unsigned long long)m->num_layers, (unsigned long long)m->num_hidden_layers);
    /* Nemotron-H's blocks by kind; its layers here are its mixer blocks,
     * each with the MLP or MoE block after it where there is one */
    uint64_t nh[4] = {0, 0, 0, 0};
    if ((rc = nemotron_blocks(&c, fam, nh)))
        return rc;
    const bool nem = fam->nemotron;
    const uint64_t L = nem ? nh[IC_BLOCK_MAMBA] + nh[IC_BLOCK_ATTN] : m->num_hidden_layers;
    if (nem && !L)
        return at(&c, has(m, IC_MF_NH_PATTERN) ? IC_MF_NH_PATTERN : IC_MF_NH_BLOCKS,
                  "no Mamba2 or attention block: the blocks are all MLP or MoE blocks");
    if ((rc = check_max_pos(&c)))
        return rc;
    if ((rc = check_head_groups(&c, H, Hkv)))
        return rc;
    uint64_t hd = m->head_dim;
    if (has(m, IC_MF_HEAD_DIM)) {
        if ((rc = check_range(&c, IC_MF_HEAD_DIM, "head_dim", hd, 1, 1u << 14)))
            return rc;
        if (fam->head_dim_fixed && hd * H != D) {
            rc = at(&c, IC_MF_HEAD_DIM,
                    "'head_dim' (%llu) is not hidden_size / num_attention_heads (%llu / %llu): "
                    "model_type '%s' reads no head_dim, its heads are that width",
                    (unsigned long long)hd, (unsigned long long)D, (unsigned long long)H,
                    m->model_type);
            ic_err_hint(err, "leave head_dim out, as the model's released configs do");
            return rc;
        }
        if ((nem || fam->hunyuan) && has(m, IC_MF_NH_ATTN_HEAD_DIM) &&
            m->attention_head_dim != hd)
            return at(&c, IC_MF_NH_ATTN_HEAD_DIM,
                      "'attention_head_dim' (%llu) contradicts 'head_dim' (%llu); expected "
                      "one head width",
                      (unsigned long long)m->attention_head_dim, (unsigned long long)hd);
    } else if (nem) {
        /* Nemotron-H's older configs name it attention_head_dim;
         * NemotronHConfig's head_dim=128 where neither is given */
        hd = has(m, IC_MF_NH_ATTN_HEAD_DIM) ? m->attention_head_dim : 128;
        if ((rc = check_range(&c, IC_MF_NH_ATTN_HEAD_DIM, "attention_head_dim", hd, 1,
                              1u << 14)))
            return rc;
    } else if (fam->head_dim_default && m->from_config_json && !m->head_dim_null) {
        hd = fam->head_dim_default;
    } else {
        if (D % H)
            return at(&c, IC_MF_HEADS,
                      "hidden_size (%llu) is not a multiple of num_attention_heads (%llu); "
                      "give head_dim explicitly",
                      (unsigned long long)D, (unsigned long long)H);
        hd = D / H;
        /* Hunyuan's older configs give attention_head_dim alone, which
         * Tencent's code reads and transformers' does not (hidden_size /
         * heads where head_dim is absent): read where the two agree */
        if (fam->hunyuan && has(m, IC_MF_NH_ATTN_HEAD_DIM) && m->attention_head_dim != hd) {
            rc = at(&c, IC_MF_NH_ATTN_HEAD_DIM,
                    "'attention_head_dim' (%llu) is not hidden_size / num_attention_heads "
                    "(%llu), the width transformers' Hunyuan takes without head_dim",
                    (unsigned long long)m->attention_head_dim, (unsigned long long)hd);
            ic_err_hint(err, "give head_dim, as the model's newer configs do");
            return rc;
        }
    }

    /* MLA */
    const bool mla = has(m, IC_MF_KV_LORA);
    uint64_t rope = 0, nope = 0, vdim = hd;
    if (mla) {
        static const int need[] = {IC_MF_ROPE_DIM, IC_MF_NOPE_DIM, IC_MF_V_HEAD_DIM};
        static const char *const names[] = {"qk_rope_head_dim", "qk_nope_head_dim",
                                            "v_head_dim"};
        for (int i = 0; i < 3; i++)
            if (!has(m, need[i]))
                return at(&c, IC_MF_KV_LORA,
                          "kv_lora_rank (MLA) is given but '%s' is missing", names[i]);
        rope = m->qk_rope_head_dim;
        nope = m->qk_nope_head_dim;
        vdim = m->v_head_dim;
        if ((rc = check_range(&c, IC_MF_KV_LORA, "kv_lora_rank", m->kv_lora_rank, 1, 1u << 16)) ||
            (rc = check_range(&c, IC_MF_ROPE_DIM, "qk_rope_head_dim", rope, 0, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_NOPE_DIM, "qk_nope_head_dim", nope, 0, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_V_HEAD_DIM, "v_head_dim", vdim, 1, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_Q_LORA, "q_lora_rank", m->q_lora_rank, 0, 1u << 16)))
            return rc;
        if (rope + nope == 0)
            return at(&c, IC_MF_ROPE_DIM, "MLA needs qk_rope_head_dim + qk_nope_head_dim > 0");
    }

    /* DeepSeek Sparse Attention: the lightning indexer on MLA's compressed
     * query (DeepSeek-V3.2's inference code: wq_b from q_lora_rank) */
    const bool dsa = has(m, IC_MF_INDEX_TOPK) || has(m, IC_MF_INDEX_HEADS) ||
                     has(m, IC_MF_INDEX_DIM);
    if (dsa) {
        static const int need[] = {IC_MF_INDEX_TOPK, IC_MF_INDEX_HEADS, IC_MF_INDEX_DIM};
        static const char *const names[] = {"index_topk", "index_n_heads", "index_head_dim"};
        int given = IC_MF_INDEX_TOPK;
        for (int i = 0; i < 3; i++)
            if (has(m, need[i]))
                given = need[i];
        for (int i = 0; i < 3; i++)
            if (!has(m, need[i]))
                return at(&c, given,
                          "DeepSeek Sparse Attention's indexer is given but '%s' is missing",
                          names[i]);
        if (!mla || !m->q_lora_rank)
            return at(&c, given, "the indexer (index_topk, DeepSeek-V3.2's sparse attention) "
                                 "needs MLA with a q_lora_rank: it reads MLA's compressed query");
        if ((rc = check_range(&c, IC_MF_INDEX_TOPK, "index_topk", m->index_topk, 1,
                              IC_MODEL_MAX_CONTEXT)) ||
            (rc = check_range(&c, IC_MF_INDEX_HEADS, "index_n_heads", m->index_n_heads, 1,
                              1u << 12)) ||
            (rc = check_range(&c, IC_MF_INDEX_DIM, "index_head_dim", m->index_head_dim, 1,
                              1u << 12)))
            return rc;
    }

    /* MoE: one of the four spellings of the expert count. */
    uint64_t E = 0;
    int e_id = -1, e_key = 0;
    static const int e_ids[4] = {IC_MF_NUM_LOCAL_EXPERTS, IC_MF_N_ROUTED_EXPERTS,
                                 IC_MF_NUM_EXPERTS, IC_MF_ERNIE_EXPERTS};
    static const char *const e_keys[4] = {"num_local_experts", "n_routed_experts",
                                          "num_experts", "moe_num_experts"};
    for (int i = 0; i < 4 && !fam->no_moe; i++)
        if (has(m, e_ids[i]) && m->n_experts_field[i]) {
            if (e_id >= 0 && m->n_experts_field[i] != E)
                return at(&c, e_ids[i],
                          "'%s' (%llu) contradicts '%s' (%llu); expected one expert count",
                          e_keys[i], (unsigned long long)m->n_experts_field[i],
                          e_keys[e_key], (unsigned long long)E);
            E = m->n_experts_field[i];
            e_id = e_ids[i];
            e_key = i;
        }
    uint64_t k = 0, Fe = 0;
    if (E) {
        if ((rc = check_range(&c, e_id, "expert count", E, 1, 1u << 16)))
            return rc;
        /* ERNIE's moe_k, Hunyuan's moe_topk, else num_experts_per_tok */
        const int k_id = fam->ernie && has(m, IC_MF_ERNIE_K)      ? IC_MF_ERNIE_K
                         : fam->hunyuan && has(m, IC_MF_HY_TOPK) ? IC_MF_HY_TOPK
                                                                 : IC_MF_TOPK;
        const char *k_key = k_id == IC_MF_ERNIE_K   ? "moe_k"
                            : k_id == IC_MF_HY_TOPK ? "moe_topk"
                                                    : "num_experts_per_tok";
        if (!has(m, k_id))
            return at(&c, e_id, "an MoE model needs '%s'",
                      fam->ernie ? "moe_k" : fam->hunyuan ? "moe_topk" : "num_experts_per_tok");
        k = k_id == IC_MF_ERNIE_K ? m->ernie_k : k_id == IC_MF_HY_TOPK ? m->hy_topk
                                                                       : m->num_experts_per_tok;
        if ((rc = check_range(&c, k_id, k_key, k, 1, E)))
            return rc;
        if (fam->moe_width && !has(m, IC_MF_MOE_INTERMEDIATE)) {
            rc = at(&c, e_id, "model_type '%s''s experts need 'moe_intermediate_size' (its "
                              "config class's default is not the dense intermediate_size)",
                    m->model_type);
            ic_err_hint(err, "give the experts' width as the checkpoint's config.json does");
            return rc;
        }
        if ((rc = needed_keys(&c, fam, NEED_MOE)))
            return rc;
        Fe = has(m, IC_MF_MOE_INTERMEDIATE) ? m->moe_intermediate_size : m->intermediate_size;
        if ((rc = check_range(&c, IC_MF_MOE_INTERMEDIATE, "moe_intermediate_size", Fe, 1,
                              1u << 22)) ||
            (rc = check_range(&c, IC_MF_N_SHARED, "n_shared_experts", m->n_shared_experts, 0,
                              1u << 10)) ||
            (rc = check_range(&c, IC_MF_FIRST_K_DENSE, "first_k_dense_replace",
                              m->first_k_dense_replace, 0, L)) ||
            (rc = check_range(&c, IC_MF_MOE_FREQ, "moe_layer_freq",
                              has(m, IC_MF_MOE_FREQ) ? m->moe_layer_freq : 1, 1, L)) ||
            (rc = check_range(&c, IC_MF_MOE_STEP, "interleave_moe_layer_step",
                              has(m, IC_MF_MOE_STEP) ? m->interleave_moe_layer_step : 1, 1, L)))
            return rc;
        if (has(m, IC_MF_MOE_LAYERS) && m->moe_layer_max >= L)
            return at(&c, IC_MF_MOE_LAYERS, "'moe_layers' names layer %llu, past the %llu "
                                             "layers of num_hidden_layers",
                      (unsigned long long)m->moe_layer_max, (unsigned long long)L);
    } else if (has(m, IC_MF_TOPK) && m->num_experts_per_tok && !fam->no_moe) {
        return at(&c, IC_MF_TOPK, "'num_experts_per_tok' is given but no expert count "
                                  "(num_local_experts, n_routed_experts or num_experts)");
    }
    if (nem && nh[IC_BLOCK_MOE] && !E)
        return at(&c, has(m, IC_MF_NH_PATTERN) ? IC_MF_NH_PATTERN : IC_MF_NH_BLOCKS,
                  "%llu MoE blocks but no expert count ('n_routed_experts')",
                  (unsigned long long)nh[IC_BLOCK_MOE]);
    if (nem && has(m, IC_MF_NH_LATENT) && m->moe_latent_size)
        return at(&c, IC_MF_NH_LATENT,
                  "'moe_latent_size' (a latent MoE, Nemotron 3 Super's) is not read: its "
                  "experts work in a projected width not counted here");
    if (nem && !nh[IC_BLOCK_MOE])
        E = k = Fe = 0; /* expert keys that no block uses */
    if (nem && E && !has(m, IC_MF_NH_SHARED) && !(has(m, IC_MF_N_SHARED) && !m->n_shared_experts))
        return at(&c, has(m, IC_MF_NH_PATTERN) ? IC_MF_NH_PATTERN : IC_MF_NH_BLOCKS,
                  "%llu MoE blocks but no 'moe_shared_expert_intermediate_size' (the shared "
                  "expert's width; n_shared_experts 0 for none)",
                  (unsigned long long)nh[IC_BLOCK_MOE]);
    /* Llama 4's chunked local attention: a RoPE layer attends within its
     * chunk of attention_chunk_size tokens, a NoPE layer to every token */
    const uint64_t chunk_size = has(m, IC_MF_CHUNK) ? m->attention_chunk_size : fam->chunk;
    const bool chunk = chunk_size != 0;
    /* Sliding windows: which layers hold only the last `window` tokens. */
    uint64_t n_window = 0, window = 0;
    const bool opt_in = fam->window_layers_default != 0;
    const bool sliding = (has(m, IC_MF_SLIDING_WINDOW) || m->window_default) && m->sliding_window &&
                         !(has(m, IC_MF_USE_SLIDING) && !m->use_sliding_window) &&
                         (!opt_in || has(m, IC_MF_USE_SLIDING));
    /* Qwen2's family: a model entry's window without use_sliding_window
     * would read as none (the config class's default), which it cannot
     * mean; and one that slides states where */
    if (opt_in && !m->from_config_json && has(m, IC_MF_SLIDING_WINDOW) && m->sliding_window &&
        !has(m, IC_MF_USE_SLIDING)) {
        rc = at(&c, IC_MF_SLIDING_WINDOW,
                "model_type '%s' slides only where use_sliding_window is true (its config "
                "class's default false: no window)", m->model_type);
        ic_err_hint(err, "add 'use_sliding_window: true' and 'max_window_layers' (the layers "
                         "that attend in full), or false for none");
        return rc;
    }
    if (opt_in && sliding && !m->from_config_json && !has(m, IC_MF_MAX_WINDOW_LAYERS) &&
        !has(m, IC_MF_LAYER_TYPES)) {
        rc = at(&c, IC_MF_USE_SLIDING,
                "model_type '%s' with use_sliding_window needs 'max_window_layers': the first "
                "max_window_layers layers attend in full, the rest slide", m->model_type);
        ic_err_hint(err, "copy max_window_layers from the model's config.json (%llu in its "
                         "config class where absent)",
                    (unsigned long long)fam->window_layers_default);
        return rc;
    }
    /* MLA's code (DeepseekV2/V3Attention) reads no window: its one latent
     * a token is cached in every layer */
    if (sliding && has(m, IC_MF_KV_LORA) && m->kv_lora_rank &&
        !has(m, IC_MF_INDEX_TOPK) /* DSA's own error below */) {
        rc = at(&c, IC_MF_SLIDING_WINDOW,
                "'sliding_window' beside MLA (kv_lora_rank) is not read: MLA caches every "
                "token's latent in every layer");
        ic_err_hint(err, "leave sliding_window out (DeepSeek's configs have none)");
        return rc;
    }
    if (opt_in && has(m, IC_MF_MAX_WINDOW_LAYERS) &&
        (rc = check_range(&c, IC_MF_MAX_WINDOW_LAYERS, "max_window_layers", m->max_window_layers,
                          0, IC_MODEL_MAX_LAYERS)))
        return rc;
    if (has(m, IC_MF_LAYER_TYPES)) {
        if (m->n_layer_types != L)
            return at(&c, IC_MF_LAYER_TYPES, "'layer_types' lists %u layers but "
                                             "num_hidden_layers is %llu",
                      m->n_layer_types, (unsigned long long)L);
        for (uint64_t i = 0; i < L; i++)
            n_window += m->layer_kind[i] == IC_LAYER_WINDOW;
        if (m->layer_types_sliding && m->layer_types_chunked)
            return at(&c, IC_MF_LAYER_TYPES, "'layer_types' has both sliding and chunked "
                                             "layers: one kind of window is read");
        if (m->layer_types_sliding && !sliding)
            return at(&c, IC_MF_LAYER_TYPES,
                      "'layer_types' has sliding layers but no sliding_window is given");
        if (m->layer_types_chunked && !chunk)
            return at(&c, IC_MF_LAYER_TYPES,
                      "'layer_types' has chunked layers but no attention_chunk_size is given");
    } else if (has(m, IC_MF_SLIDING_PATTERN) || (sliding && fam->sliding_pattern)) {
        const uint64_t p = has(m, IC_MF_SLIDING_PATTERN) ? m->sliding_window_pattern
                                                         : fam->sliding_pattern;
        /* letters ("LLLG"), EXAONE 4's form, read for exaone4 alone (the
         * other config classes take a number); p is their count */
        const bool letters = has(m, IC_MF_SLIDING_PATTERN) && m->sliding_letters[0] &&
                             strlen(m->sliding_letters) == p;
        if (letters && !fam->exaone_pattern)
            return at(&c, IC_MF_SLIDING_PATTERN,
                      "'sliding_window_pattern' as letters ('%s') is read for exaone4; "
                      "model_type '%s' takes a number (every p-th layer global)",
                      m->sliding_letters, m->model_type[0] ? m->model_type : "(none given)");
        /* only a pattern the file gives can be wrong (and has a line to
         * point at); the family's default of 2 on one layer slides it;
         * letters may outnumber the layers */
        if (has(m, IC_MF_SLIDING_PATTERN) && !letters &&
            (rc = check_range(&c, IC_MF_SLIDING_PATTERN, "sliding_window_pattern", p, 1, L)))
            return rc;
        if (!sliding && !fam->exaone_pattern)
            return at(&c, IC_MF_SLIDING_PATTERN,
                      "'sliding_window_pattern' needs a sliding_window");
        /* layer i is global iff (i + 1) % p == 0, or iff its letter is G
         * (EXAONE 4: and the last layer); with no window every layer is
         * (EXAONE 4.0 1.2B's) */
        n_window = 0;
        for (uint64_t i = 0; sliding && i < L; i++)
            n_window += !(fam->exaone_pattern && i == L - 1) &&
                        (letters ? m->sliding_letters[i % p] == 'L' : (i + 1) % p != 0);
    } else if (sliding && opt_in) {
        /* Qwen2's: layer i slides iff i >= max_window_layers */
        const uint64_t full = has(m, IC_MF_MAX_WINDOW_LAYERS) ? m->max_window_layers
                                                              : fam->window_layers_default;
        n_window = full < L ? L - full : 0;
    } else if (sliding) {
        n_window = L;
    }
    if (n_window)
        window = m->sliding_window;
    if (chunk) {
        if (sliding)
            return at(&c, has(m, IC_MF_CHUNK) ? IC_MF_CHUNK : IC_MF_SLIDING_WINDOW,
                      "attention_chunk_size beside sliding_window is not "
                                       "read: a layer would both slide and attend by chunks");
        if ((rc = check_range(&c, IC_MF_CHUNK, "attention_chunk_size", chunk_size, 1,
                              IC_MODEL_MAX_CONTEXT)))
            return rc;
        if (!has(m, IC_MF_LAYER_TYPES)) {
            /* the RoPE layers: no_rope_layers' 1s, else all but every
             * no_rope_layer_interval-th (4: Llama4TextConfig's default) */
            const uint64_t every = has(m, IC_MF_NO_ROPE_INTERVAL) ? m->no_rope_layer_interval : 4;
            /* an empty list is the default, as Llama4TextConfig reads it */
            const bool listed = has(m, IC_MF_NO_ROPE) && m->n_no_rope;
            if (listed && m->n_no_rope < L)
                return at(&c, IC_MF_NO_ROPE, "'no_rope_layers' lists %u layers but "
                                             "num_hidden_layers is %llu",
                          m->n_no_rope, (unsigned long long)L);
            if (!listed &&
                (rc = check_range(&c, IC_MF_NO_ROPE_INTERVAL, "no_rope_layer_interval", every,
                                  1, L)))
                return rc;
            n_window = 0;
            for (uint64_t i = 0; i < L; i++)
                n_window += listed ? m->layer_rope[i] : (i + 1) % every != 0;
        }
        if (n_window)
            window = chunk_size;
    } else if (has(m, IC_MF_LAYER_TYPES) && m->layer_types_chunked) {
        return at(&c, IC_MF_LAYER_TYPES,
                  "'layer_types' has chunked layers but no attention_chunk_size is given");
    }
    if (n_window && dsa)
        return at(&c, IC_MF_INDEX_TOPK, "sliding windows beside the indexer (index_topk) are "
                                        "not read: a layer would both slide and pick its top-k");

    /* Linear attention (Gated DeltaNet, Qwen3-Next and Qwen3.5): the layers
     * layer_types calls linear_attention, else all but every
     * full_attention_interval-th (the family's where the config gives none:
     * transformers fills layer_types so) */
    uint64_t n_linear = 0;
    if (has(m, IC_MF_LAYER_TYPES)) {
        for (uint64_t i = 0; i < L; i++)
            n_linear += m->layer_kind[i] == IC_LAYER_LINEAR;
    } else if (has(m, IC_MF_FULL_INTERVAL) || fam->full_interval) {
        const uint64_t every =
            has(m, IC_MF_FULL_INTERVAL) ? m->full_attention_interval : fam->full_interval;
        /* only an interval the file gives can be wrong (the family's 4 on
         * fewer layers makes every layer linear, refused below) */
        if (has(m, IC_MF_FULL_INTERVAL) &&
            (rc = check_range(&c, IC_MF_FULL_INTERVAL, "full_attention_interval", every, 1, L)))
            return rc;
        n_linear = L - L / every; /* layer i is full iff (i + 1) % every == 0 */
    }
    {
        /* the linear-attention keys belong to the hybrids' model_types: on
         * another (a Llama's), an output gate or a linear layer would change
         * its counts without a word, and linear_* keys with no linear layer
         * would be dropped */
        static const struct {
            int id;
            const char *key;
        } hybrid[] = {
            {IC_MF_LIN_K_HEADS, "linear_num_key_heads"},
            {IC_MF_LIN_V_HEADS, "linear_num_value_heads"},
            {IC_MF_LIN_K_DIM, "linear_key_head_dim"},
            {IC_MF_LIN_V_DIM, "linear_value_head_dim"},
            {IC_MF_LIN_CONV, "linear_conv_kernel_dim"},
            {IC_MF_FULL_INTERVAL, "full_attention_interval"},
            {IC_MF_ATTN_GATE, "attn_output_gate"},
            {IC_MF_SSM_DTYPE, "mamba_ssm_dtype"},
        };
        int given = -1;
        for (size_t i = 0; i < N(hybrid) && given < 0; i++)
            if (has(m, hybrid[i].id) && !(hybrid[i].id == IC_MF_SSM_DTYPE && fam->mamba))
                given = (int)i;
        if (m->layer_types_linear && given < 0 && !fam->full_interval)
            given = -2;
        if (given != -1 && !fam->full_interval) {
            rc = at(&c, given >= 0 ? hybrid[given].id : IC_MF_LAYER_TYPES,
                    "'%s' is not read for model_type '%s': Gated DeltaNet linear attention and "
                    "the attention output gate are read for qwen3_next, qwen3_5 and "
                    "qwen3_5_moe",
                    given >= 0 ? hybrid[given].key : "layer_types: linear_attention",
                    m->model_type[0] ? m->model_type : "(none given)");
            ic_err_hint(err, "a linear-attention hybrid of another model_type is not read; "
                             "leave the key out for a model without it");
            return rc;
        }
        if (given >= 0 && given < 5 && !n_linear && !has(m, IC_MF_FULL_INTERVAL) &&
            !has(m, IC_MF_LAYER_TYPES))
            return at(&c, hybrid[given].id,
                      "'%s' is given but no layer is linear attention: say which with "
                      "layer_types (linear_attention) or full_attention_interval",
                      hybrid[given].key);
    }
    uint64_t lk = 0, lv = 0, ldk = 0, ldv = 0, lconv = 0;
    if (n_linear) {
        static const int need[] = {IC_MF_LIN_K_HEADS, IC_MF_LIN_V_HEADS, IC_MF_LIN_K_DIM,
                                   IC_MF_LIN_V_DIM, IC_MF_LIN_CONV};
        static const char *const names[] = {"linear_num_key_heads", "linear_num_value_heads",
                                            "linear_key_head_dim", "linear_value_head_dim",
                                            "linear_conv_kernel_dim"};
        const int where = has(m, IC_MF_LAYER_TYPES)     ? IC_MF_LAYER_TYPES
                          : has(m, IC_MF_FULL_INTERVAL) ? IC_MF_FULL_INTERVAL
                                                        : IC_MF_MODEL_TYPE;
        for (int i = 0; i < 5; i++)
            if (!has(m, need[i]))
                return at(&c, where,
                          "%llu of the %llu layers are linear attention (Gated DeltaNet) but "
                          "'%s' is missing",
                          (unsigned long long)n_linear, (unsigned long long)L, names[i]);
        lk = m->linear_num_key_heads;
        lv = m->linear_num_value_heads;
        ldk = m->linear_key_head_dim;
        ldv = m->linear_value_head_dim;
        lconv = m->linear_conv_kernel_dim;
        if ((rc = check_range(&c, IC_MF_LIN_K_HEADS, names[0], lk, 1, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_LIN_V_HEADS, names[1], lv, 1, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_LIN_K_DIM, names[2], ldk, 1, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_LIN_V_DIM, names[3], ldv, 1, 1u << 14)) ||
            (rc = check_range(&c, IC_MF_LIN_CONV, names[4], lconv, 1, 1u << 10)))
            return rc;
        if (lv % lk)
            return at(&c, IC_MF_LIN_V_HEADS,
                      "linear_num_value_heads (%llu) is not a multiple of "
                      "linear_num_key_heads (%llu); each key head must serve a whole group "
                      "of value heads",
                      (unsigned long long)lv, (unsigned long long)lk);
        if (n_window || mla)
            return at(&c, where, "linear attention beside %s is not read",
                      mla ? "MLA" : "sliding or chunked windows");
    }

    /* Mamba2 layers (Granite 4.0-H: layer_types' "mamba"), and Granite's
     * shared MLP width, read for that model_type alone (Nemotron-H's have
     * names of their own; its configs carry a mamba_proj_bias, false, that
     * neither transformers nor vLLM reads) */
    {
        /* the first three are Granite's alone; NemotronHConfig takes the
         * next four as legacy names of n_groups, conv_kernel, expand and
         * use_conv_bias (read below); mamba_proj_bias, last, neither reads */
        static const struct key_name mk[] = {
            {IC_MF_MAMBA_HEADS, "mamba_n_heads"},   {IC_MF_MAMBA_HEAD_DIM, "mamba_d_head"},
            {IC_MF_MAMBA_STATE, "mamba_d_state"},   {IC_MF_MAMBA_CONV, "mamba_d_conv"},
            {IC_MF_MAMBA_GROUPS, "mamba_n_groups"}, {IC_MF_MAMBA_EXPAND, "mamba_expand"},
            {IC_MF_MAMBA_CONV_BIAS, "mamba_conv_bias"},
            {IC_MF_MAMBA_PROJ_BIAS, "mamba_proj_bias"},
        };
        if (!fam->mamba) {
            if (has(m, IC_MF_SHARED_MINIMAX) && m->shared_intermediate) {
                rc = at(&c, IC_MF_SHARED_MINIMAX,
                        "'shared_intermediate_size' other than 0 is not read: a shared "
                        "expert would go uncounted");
                ic_err_hint(err, "MiniMax-M2's config gives 0; for a DeepSeek-style shared "
                                 "expert give n_shared_experts or "
                                 "shared_expert_intermediate_size");
                return rc;
            }
            if (m->layer_types_attention && !m->layer_types_mamba)
                return at(&c, IC_MF_LAYER_TYPES,
                          "'layer_types' entry 'attention' is read for granitemoehybrid "
                          "(Granite 4.0); model_type '%s' names full_attention",
                          m->model_type[0] ? m->model_type : "(none given)");
            if ((rc = refuse_keys(&c, mk, nem ? 3 : N(mk),
                                  nem ? "Granite 4.0-H's Mamba2 keys are read for "
                                        "granitemoehybrid; nemotron_h reads mamba_num_heads, "
                                        "mamba_head_dim, ssm_state_size, n_groups, "
                                        "conv_kernel, use_conv_bias and use_bias"
                                      : "Granite 4.0-H's Mamba2 keys are read for "
                                        "granitemoehybrid (Nemotron-H's, under names of "
                                        "their own, for nemotron_h)",
                                  nem ? "use Nemotron-H's own names"
                                      : "a Mamba hybrid of another model_type is not read")))
                return rc;
            if (m->layer_types_mamba && !nem) {
                rc = at(&c, IC_MF_LAYER_TYPES,
                        "'layer_types: mamba' is not read for model_type '%s': Mamba2 layers "
                        "are read for granitemoehybrid (Granite 4.0-H) and nemotron_h",
                        m->model_type[0] ? m->model_type : "(none given)");
                ic_err_hint(err, "a Mamba hybrid of another model_type is not read");
                return rc;
            }
        }
    }
    uint64_t n_mamba = 0;
    if (nem)
        n_mamba = nh[IC_BLOCK_MAMBA];
    else if (has(m, IC_MF_LAYER_TYPES))
        for (uint64_t i = 0; i < L; i++)
            n_mamba += m->layer_kind[i] == IC_LAYER_MAMBA;
    else if (fam->mamba)
        /* GraniteMoeHybridConfig makes every layer Mamba2 without them */
        return at(&c, IC_MF_MODEL_TYPE,
                  "a granitemoehybrid config without 'layer_types': transformers makes "
                  "every layer Mamba2, which is not read (the KV pool is counted in an "
                  "attention layer's tokens)");
    uint64_t mh = 0, mhd = 0, mn = 0, mg = 1, mconv = 0;
    if (n_mamba) {
        /* the keys under Granite's names, or Nemotron-H's (fields of their
         * own; its legacy mamba_n_groups, mamba_d_conv, mamba_conv_bias
         * where its own are absent) */
        static const int need[2][5] = {
            {IC_MF_MAMBA_HEADS, IC_MF_MAMBA_HEAD_DIM, IC_MF_MAMBA_STATE, IC_MF_MAMBA_CONV,
             IC_MF_MAMBA_GROUPS},
            {IC_MF_NH_HEADS, IC_MF_NH_HEAD_DIM, IC_MF_NH_STATE, IC_MF_NH_CONV, IC_MF_NH_GROUPS}};
        static const char *const names[2][5] = {
            {"mamba_n_heads", "mamba_d_head", "mamba_d_state", "mamba_d_conv", "mamba_n_groups"},
            {"mamba_num_heads", "mamba_head_dim", "ssm_state_size", "conv_kernel", "n_groups"}};
        int id[5];
        const char *name[5];
        for (int i = 0; i < 5; i++) {
            /* Nemotron-H's legacy mamba_d_conv and mamba_n_groups stand for
             * its conv_kernel and n_groups where those are absent */
            const bool legacy = nem && i >= 3 && !has(m, need[1][i]) && has(m, need[0][i]);
            id[i] = need[nem && !legacy][i];
            name[i] = names[nem && !legacy][i];
        }
        const int where = nem ? (has(m, IC_MF_NH_PATTERN) ? IC_MF_NH_PATTERN : IC_MF_NH_BLOCKS)
                              : IC_MF_LAYER_TYPES;
        for (int i = 0; i < 4; i++)
            if (!has(m, id[i]))
                return at(&c, where, "%llu of the %llu %s are Mamba2 but '%s' is missing",
                          (unsigned long long)n_mamba,
                          (unsigned long long)(nem ? m->n_blocks : L),
                          nem ? "blocks" : "layers", name[i]);
        mh = nem ? m->nh_heads : m->mamba_n_heads;
        mhd = nem ? m->nh_head_dim : m->mamba_d_head;
        mn = nem ? m->nh_state : m->mamba_d_state;
        mconv = id[3] == IC_MF_NH_CONV ? m->nh_conv : m->mamba_d_conv;
        /* GraniteMoeHybridConfig's mamba_n_groups=1 where absent,
         * NemotronHConfig's n_groups=8 */
        mg = !has(m, id[4])                ? (nem ? 8 : 1)
             : id[4] == IC_MF_NH_GROUPS ? m->nh_groups
                                          : m->mamba_n_groups;
        if ((rc = check_range(&c, id[0], name[0], mh, 1, 1u << 14)) ||
            (rc = check_range(&c, id[1], name[1], mhd, 1, 1u << 14)) ||
            (rc = check_range(&c, id[2], name[2], mn, 1, 1u << 14)) ||
            (rc = check_range(&c, id[3], name[3], mconv, 1, 1u << 10)) ||
            (rc = check_range(&c, id[4], name[4], mg, 1, mh)))
            return rc;
        if (mh % mg)
            return at(&c, id[4], "%s (%llu) is not a multiple of %s (%llu)", name[0],
                      (unsigned long long)mh, name[4], (unsigned long long)mg);
        /* GraniteMoeHybridConfig's mamba_expand=2 where absent (Nemotron-H's
         * d_inner is its heads x head dim whatever its expand says: Nemotron
         * 3 Nano's 64 x 64 = 4096, not 2 x 2688) */
        const uint64_t expand = has(m, IC_MF_MAMBA_EXPAND) ? m->mamba_expand : 2;
        if (!nem &&
            (rc = check_range(&c, IC_MF_MAMBA_EXPAND, "mamba_expand", expand, 1, 1u << 10)))
            return rc;
        if (!nem && expand * D != mh * mhd)
            return at(&c, has(m, IC_MF_MAMBA_EXPAND) ? IC_MF_MAMBA_EXPAND : IC_MF_MAMBA_HEADS,
                      "mamba_expand (%llu) x hidden_size is %llu, but mamba_n_heads x "
                      "mamba_d_head is %llu",
                      (unsigned long long)expand, (unsigned long long)(expand * D),
                      (unsigned long long)(mh * mhd));
        if (n_window || mla || n_linear)
            return at(&c, IC_MF_LAYER_TYPES, "Mamba2 layers beside %s are not read",
                      mla ? "MLA" : n_linear ? "linear attention" : "sliding windows");
    }
    if (n_linear + n_mamba == L)
        return at(&c,
                  has(m, IC_MF_LAYER_TYPES)     ? IC_MF_LAYER_TYPES
                  : has(m, IC_MF_FULL_INTERVAL) ? IC_MF_FULL_INTERVAL
                                                : IC_MF_MODEL_TYPE,
                  "every layer is %s: infcalc reads hybrids with at least one attention "
                  "layer (the KV pool is counted in its tokens)",
                  n_mamba ? "Mamba2" : "linear attention");

    /* ---- parameters, per group (napkin math per layer) ---- */
    /* attention_bias puts biases on q, k, v and o; Qwen2 always has them on
     * q/k/v only (its config has no attention_bias key). */
    /* (InternLM2: its own 'bias', true where absent, on all four;
     * StarCoder2: use_bias, true where absent, there and on the MLP) */
    /* (InternLM3: qkv_bias there; 'bias' where the family reads it) */
    const bool use_bias = fam->use_bias_all && (!has(m, IC_MF_NH_BIAS) || m->nh_use_bias);
    const unsigned bias_on =
        (has(m, IC_MF_BIAS) ? m->bias : fam->bias_default) ? fam->bias_key : 0;
    const uint64_t qkv_bias = m->attention_bias || fam->qkv_bias_only || use_bias ||
                                      (bias_on & BIAS_QKV) || (fam->qkv_bias_key &&
                                   (has(m, IC_MF_QKV_BIAS) ? m->qkv_bias : fam->qkv_bias_default))
                                  ? 1
                                  : 0;
    const uint64_t o_bias =
        (m->attention_bias && !fam->qkv_bias_only && !fam->no_o_bias) ||
                (fam->o_bias_key && m->attention_out_bias) || use_bias || (bias_on & BIAS_O)
            ? 1
            : 0;
    uint64_t attn_heads, attn_kv, repl;
    if (mla) {
        const uint64_t qk = nope + rope;
        uint64_t q = m->q_lora_rank
                         ? add(&c, mul(&c, D, m->q_lora_rank), /* q_a: D -> q_lora (repl.) */
                               0)
                         : 0;
        repl = add(&c, q, mul(&c, D, m->kv_lora_rank + rope)); /* kv_a: D -> latent+rope */
        repl = add(&c, repl, m->q_lora_rank + m->kv_lora_rank); /* q_a / kv_a norms */
        uint64_t qup = m->q_lora_rank ? mul(&c, m->q_lora_rank, mul(&c, H, qk)) /* q_b */
                                      : mul(&c, D, mul(&c, H, qk));             /* q_proj */
        uint64_t kvb = mul(&c, m->kv_lora_rank, mul(&c, H, nope + vdim)); /* kv_b */
        uint64_t o = mul(&c, mul(&c, H, vdim), D);                         /* o_proj */
        attn_heads = add(&c, add(&c, qup, kvb), o);
        attn_kv = 0;
        if (dsa) {
            /* the indexer, replicated on every chip (vLLM's ReplicatedLinear):
             * wq_b q_lora -> heads x dim, wk D -> dim, k_norm (a LayerNorm:
             * weight and bias), weights_proj D -> heads */
            const uint64_t ih = m->index_n_heads, id = m->index_head_dim;
            repl = add(&c, repl, mul(&c, m->q_lora_rank, mul(&c, ih, id)));
            repl = add(&c, repl, add(&c, mul(&c, D, id), 2 * id));
            repl = add(&c, repl, mul(&c, D, ih));
        }
    } else {
        /* q: D x H*hd, o: H*hd x D, k and v: D x Hkv*hd each, optional biases;
         * an output gate doubles q (Qwen3-Next: q_proj D -> 2 * H * hd) */
        const uint64_t qw = has(m, IC_MF_ATTN_GATE) ? m->attn_output_gate : fam->gate;
        s.attn_gate = qw;
        attn_heads = add(&c, mul(&c, 2 + qw, mul(&c, D, mul(&c, H, hd))),
                         (1 + qw) * qkv_bias * H * hd + o_bias * D + (fam->sinks ? H : 0));
        attn_kv = add(&c, mul(&c, 2, mul(&c, D, mul(&c, Hkv, hd))), qkv_bias * 2 * Hkv * hd);
        repl = 0;
    }
    /* a LayerNorm with a bias holds two vectors (PhiMoE's) */
    const uint64_t norm_w = fam->norm_bias ? 2 * D : D;
    /* (Falcon: one before its parallel attention and MLP unless
     * num_ln_in_parallel_attn is 2, as it is where absent with
     * new_decoder_architecture; two in sequence) */
    const bool parallel = !has(m, IC_MF_PARALLEL_ATTN) || m->parallel_attn;
    const uint64_t n_norms =
        falcon ? (parallel && (has(m, IC_MF_NUM_LN) ? m->num_ln : m->new_arch ? 2 : 1) == 1 ? 1
                                                                                         : 2)
        : fam->norms ? fam->norms
                     : 2;
    repl = add(&c, repl, n_norms * norm_w);
    /* A Gated DeltaNet layer (transformers' Qwen3NextGatedDeltaNet; Qwen3.5
     * splits in_proj the same widths four ways): in_proj_qkvz D -> 2 kd +
     * 2 vd, in_proj_ba D -> 2 nv, a depthwise conv1d over q, k and v
     * (conv_dim x kernel, no bias), dt_bias and A_log (nv each), out_proj
     * vd -> D, split by heads; its gated RMSNorm (dv) on every chip. kd =
     * nk x dk, vd = nv x dv, conv_dim = 2 kd + vd. */
    const uint64_t kd = mul(&c, lk, ldk), vd = mul(&c, lv, ldv);
    const uint64_t conv_dim = add(&c, mul(&c, 2, kd), vd);
    uint64_t lin_heads = mul(&c, D, add(&c, mul(&c, 2, add(&c, kd, vd)), 2 * lv));
    lin_heads = add(&c, lin_heads, add(&c, mul(&c, conv_dim, lconv), 2 * lv));
    lin_heads = add(&c, lin_heads, mul(&c, vd, D));
    /* A Mamba2 layer (transformers' GraniteMoeHybridMambaLayer): in_proj D
     * -> z (d_inner), xBC (conv_dim) and dt (heads), a depthwise conv1d over
     * xBC (conv_dim x kernel, and a bias with mamba_conv_bias), dt_bias,
     * A_log and D (heads each), a gated RMSNorm (d_inner), out_proj d_inner
     * -> D, biases on both projections with mamba_proj_bias; all split by
     * heads. d_inner = heads x head dim, conv_dim = d_inner + 2 groups x
     * d_state. */
    const uint64_t di = mul(&c, mh, mhd), mconv_dim = add(&c, di, mul(&c, 2, mul(&c, mg, mn)));
    const uint64_t in_w = add(&c, add(&c, di, mconv_dim), mh);
    /* (Nemotron-H: use_conv_bias, true where absent; use_bias on both
     * projections) */
    const uint64_t conv_bias = nem && has(m, IC_MF_NH_CONV_BIAS) ? m->nh_conv_bias
                               : has(m, IC_MF_MAMBA_CONV_BIAS) ? m->mamba_conv_bias
                                                                : 1;
    uint64_t mamba_heads = mul(&c, D, in_w);
    mamba_heads = add(&c, mamba_heads, mul(&c, mconv_dim, mconv + conv_bias));
    mamba_heads = add(&c, mamba_heads, add(&c, 3 * mh, di));
    mamba_heads = add(&c, mamba_heads, mul(&c, di, D));
    if (nem ? m->nh_use_bias : m->mamba_proj_bias)
        mamba_heads = add(&c, mamba_heads, add(&c, in_w, D));
    /* the layers with a fixed state, one kind a model */
    const uint64_t n_state = n_linear + n_mamba;
    const uint64_t state_heads = n_linear ? lin_heads : mamba_heads;
    const uint64_t state_ways = n_linear ? lk : mh;
    const uint64_t n_attn = L - n_state;
    /* q/k norms, where the family has them (and use_qk_norm, where it
     * decides, says so) */
    const bool qk_on = fam->qk_norm != QK_NONE && !mla && (!fam->qk_key || m->use_qk_norm);
    const uint64_t qk_norms = !qk_on                   ? 0
                              : fam->qk_norm == QK_HEAD ? 2 * hd
                                                        : mul(&c, H + Hkv, hd);

    uint64_t n_moe = 0;
    for (uint64_t i = 0; E && !nem && i < L; i++)
        n_moe += layer_is_moe(m, fam, i);
    /* Nemotron-H: its MoE and MLP blocks, whose MLPs are up and down
     * projections (squared ReLU, no gate) */
    if (nem)
        n_moe = nh[IC_BLOCK_MOE];
    const uint64_t n_dense = nem ? nh[IC_BLOCK_MLP] : L - n_moe;
    const uint64_t mlp_mats = nem || fam->two_mats ? 2 : 3;
    /* the dense MLP's biases: each matrix's output width */
    const bool mlp_biased = (fam->mlp_bias_key && m->mlp_bias) || use_bias || (bias_on & BIAS_MLP);
    /* (gate,) up, down, and gpt-oss's biases on them */
    const uint64_t expert = add(&c, mul(&c, mlp_mats, mul(&c, D, Fe)),
                                fam->expert_bias ? add(&c, 2 * Fe, D) : 0);
    /* Granite's shared MLP: shared_intermediate_size, 1024 where absent
     * (GraniteMoeHybridConfig's default) */
    const uint64_t granite_shared =
        has(m, IC_MF_SHARED_MINIMAX) ? m->shared_intermediate : fam->mamba ? 1024 : 0;
    uint64_t shared = 0, sf = 0;
    if (E) {
        /* Nemotron-H: n_shared_experts (1 where absent) of
         * moe_shared_expert_intermediate_size, as vLLM's NemotronHMoE */
        sf = nem ? mul(&c, m->nh_shared, has(m, IC_MF_N_SHARED) ? m->n_shared_experts : 1)
             : has(m, IC_MF_SHARED_INTERMEDIATE) ? m->shared_expert_intermediate_size
             : fam->one_shared                 ? Fe
             : fam->mamba                      ? granite_shared
             : fam->ernie ? mul(&c, has(m, IC_MF_ERNIE_SHARED) ? m->ernie_shared : 2, Fe)
                                               : mul(&c, m->n_shared_experts, Fe);
        shared = mul(&c, mlp_mats, mul(&c, D, sf));
    }

    s.group_params[IC_PG_ATTN_HEADS] =
        add(&c, mul(&c, n_attn, attn_heads), mul(&c, n_state, state_heads));
    s.group_params[IC_PG_ATTN_KV] = mul(&c, n_attn, attn_kv);
    /* norms a layer and the final one, routers (and their correction
     * biases) and shared-expert gates, Gated DeltaNet's gated norms, q/k
     * norms */
    s.routers = mul(&c, n_moe, add(&c, mul(&c, D, E + (shared && fam->shared_gate)),
                                   fam->router_bias ? E : 0));
    s.group_params[IC_PG_REPLICATED] =
        add(&c, add(&c, nem ? mul(&c, m->n_blocks, D) : mul(&c, L, repl), norm_w),
            add(&c, s.routers, add(&c, mul(&c, n_linear, ldv), mul(&c, n_attn, qk_norms))));
    /* Llama 4's dense layers are intermediate_size_mlp wide, its experts
     * intermediate_size */
    /* Granite 4.0-H without experts: its shared MLP is the MLP */
    const uint64_t F_dense = has(m, IC_MF_INTERMEDIATE_MLP) ? m->intermediate_size_mlp
                             : fam->mlp_width                ? fam->mlp_width
                             : fam->mamba                    ? granite_shared
                             : falcon ? (has(m, IC_MF_FFN) ? m->ffn_hidden_size : mul(&c, 4, D))
                                      : m->intermediate_size;
    if (has(m, IC_MF_INTERMEDIATE_MLP) &&
        (rc = check_range(&c, IC_MF_INTERMEDIATE_MLP, "intermediate_size_mlp", F_dense, 1,
                          1u << 22)))
        return rc;
    if (n_dense && !F_dense) {
        if (fam->mamba)
            return at(&c, IC_MF_SHARED_MINIMAX,
                      "'shared_intermediate_size' is 0 on a model without experts: its "
                      "layers would have no MLP");
        const int mrc = ic_err_set(err, IC_EINVAL, m->path, m->root.line, m->root.col,
                                   "missing 'intermediate_size': %llu of the %llu %s",
                                   (unsigned long long)n_dense,
                                   (unsigned long long)(nem ? m->n_blocks : L),
                                   nem ? "blocks are MLPs" : "layers have a dense MLP");
        ic_err_hint(err, "add 'intermediate_size:' from the model's config.json");
        return mrc;
    }
    s.group_params[IC_PG_MLP] =
        mul(&c, n_dense, add(&c, mul(&c, mlp_mats, mul(&c, D, F_dense)),
                             mlp_biased ? add(&c, mul(&c, mlp_mats - 1, F_dense), D) : 0));
    s.group_params[IC_PG_SHARED] = mul(&c, n_moe, shared);
    s.shared_gate = shared && fam->shared_gate;
    s.group_params[IC_PG_EXPERTS] = mul(&c, n_moe, mul(&c, E, expert));
    s.embed_tied = m->tie_word_embeddings;
    /* (PhiMoE's lm_head_bias: a bias a vocabulary entry) */
    s.group_params[IC_PG_HEAD] = add(&c, mul(&c, V, D), fam->head_bias_key && m->lm_head_bias ? V : 0);
    s.group_params[IC_PG_EMBED] = m->tie_word_embeddings ? 0 : mul(&c, V, D);

    s.group_ways[IC_PG_EMBED] = V;
    s.group_ways[IC_PG_HEAD] = V;
    /* the linear layers split by their key heads (vLLM shards them so) */
    s.group_ways[IC_PG_ATTN_HEADS] =
        !n_state ? H : n_attn ? (H < state_ways ? H : state_ways) : state_ways;
    s.group_ways[IC_PG_ATTN_KV] = Hkv;
    s.group_ways[IC_PG_REPLICATED] = 1;
    s.group_ways[IC_PG_MLP] = F_dense ? F_dense : 1;
    s.group_ways[IC_PG_SHARED] = sf ? sf : 1; /* the shared experts' columns */
    s.group_ways[IC_PG_EXPERTS] = Fe ? Fe : 1;

    uint64_t total = 0;
    for (int g = 0; g < IC_PG_COUNT; g++)
        total = add(&c, total, s.group_params[g]);
    s.params_total = total;
    /* Active: everything multiplied per token; of the routed experts only the
     * top-k of E; the embedding lookup multiplies nothing. */
    uint64_t active = total - s.group_params[IC_PG_EMBED] - s.group_params[IC_PG_EXPERTS];
    active = add(&c, active, mul(&c, n_moe, mul(&c, k, expert)));
    s.params_active = active;

    s.n_experts = E;
    s.top_k = k;
    s.n_moe_layers = n_moe;
    s.mla = mla;
    s.kv_values_per_layer_token = mla ? m->kv_lora_rank + rope : mul(&c, 2, mul(&c, Hkv, hd));
    if (mul(&c, s.kv_values_per_layer_token, L) > IC_MODEL_MAX_KV_VALUES) {
        /* without num_key_value_heads the query heads are the KV heads */
        const int id = mla ? IC_MF_KV_LORA : has(m, IC_MF_KV_HEADS) ? IC_MF_KV_HEADS : IC_MF_HEADS;
        return at(&c, id,
                  "the KV cache holds %llu values per token; expected at most 2^34 (the "
                  "sizes are absurd)",
                  (unsigned long long)mul(&c, s.kv_values_per_layer_token, L));
    }
    s.kv_ways = mla ? 1 : Hkv;
    if (dsa) {
        /* the indexer's cache: one fp8 key of index_head_dim and its fp32
         * scale a token a layer (DeepSeek-V3.2's inference/model.py keeps
         * k_cache in float8_e4m3fn beside a float32 k_scale_cache of one
         * scale per 128 of the key; vLLM's indexer cache: 128 + 4 = 132 B a
         * token a layer) */
        s.sparse_topk = m->index_topk;
        s.index_bytes_per_layer_token = m->index_head_dim + 4 * ((m->index_head_dim + 127) / 128);
        s.index_flop_per_ctx_token_layer = 2 * m->index_n_heads * m->index_head_dim;
    }
    s.n_window_layers = n_window;
    s.window_default = n_window && m->window_default;
    s.n_global_layers = L - n_window - n_state;
    s.n_state_layers = n_state;
    s.state_mamba = n_mamba > 0;
    s.allreduce_blocks = nem ? m->n_blocks : 0;
    s.mlp_apart = nem;
    s.n_mlp_blocks = nem ? nh[IC_BLOCK_MLP] + nh[IC_BLOCK_MOE] : 0;
    if (n_state) {
        /* per sequence and layer, in vLLM's layout: the recurrent state (Gated
         * DeltaNet: nv x dk x dv values; Mamba2: heads x head dim x d_state)
         * at mamba_ssm_dtype (mamba_ssm_cache_dtype for Nemotron-H; where
         * unstated 16-bit, vLLM's mamba_ssm_cache_dtype "auto" being the
         * model's, but for Nemotron-H float32, NemotronHConfig's default and
         * the one vLLM's NemotronH config takes for "auto"), and the convolution's
         * last kernel - 1 inputs, conv_dim wide, at 16 bits. Decode per
         * token, per value head of Gated DeltaNet: the gated delta rule's
         * decay of the state (dk dv), its read with the key (2 dk dv), the
         * rank-1 update (2 dk dv) and the read with the query (2 dk dv), 7 a
         * value; per Mamba2 head: the state's decay (hd N), the dt B x outer
         * product added (2 hd N) and its read with C (2 hd N), 5 a value;
         * and the convolution's 2 x kernel FLOPs per channel */
        const uint64_t values = n_linear ? lv * ldk * ldv : mh * mhd * mn;
        const uint64_t cdim = n_linear ? conv_dim : mconv_dim, kernel = n_linear ? lconv : mconv;
        const uint64_t per_value = n_linear ? 7 : 5;
        const double ssm = m->ssm_state_bytes ? (double)m->ssm_state_bytes : nem ? 4.0 : 2.0;
        s.state_bytes_per_layer =
            (double)values * ssm + (double)(kernel - 1) * (double)cdim * 2.0;
        s.state_flop_per_token_layer =
            add(&c, mul(&c, per_value, values), mul(&c, 2 * kernel, cdim));
    }
    s.window = window;
    s.chunked = chunk && n_window;
    /* Decode attention per cached token per layer: QK^T 2*H*dk, AV 2*H*dv.
     * MLA absorbed: every head scores the (latent + rope) key and mixes the
     * latent values: 2*H*(r + rope) + 2*H*r. */
    s.attn_flop_per_ctx_token_layer =
        mla ? 2 * H * (m->kv_lora_rank + rope) + 2 * H * m->kv_lora_rank
            : 2 * H * hd + 2 * H * hd;
    s.prefill_attn_flop_per_ctx_token_layer =
        mla ? 2 * H * (nope + rope) + 2 * H * vdim
            : s.attn_flop_per_ctx_token_layer;
    s.mla_decompress_flop_per_ctx_token_layer =
        mla ? 2 * m->kv_lora_rank * H * (nope + vdim) : 0;
    s.hidden_size = D;
    s.n_layers = L;
    s.n_heads = H;
    s.n_kv_heads = mla ? 1 : Hkv;
    s.head_dim = mla ? nope + rope : hd;
    s.vocab_size = V;
    s.max_context = m->rope_context > m->max_position_embeddings ? m->rope_context
                                                                 : m->max_position_embeddings;
    s.quant_type = m->has_default_weights ? m->default_weights : IC_DT_BF16;
    s.quant_extra_bytes = m->quant_extra_bytes;
    s.keep_groups = m->keep_groups;
    s.keep_type = m->keep_type;
    if (m->keep_groups) {
        bool quantized = false;
        for (int g = 0; g < IC_PG_COUNT; g++)
            quantized |= s.group_params[g] && !(m->keep_groups >> g & 1);
        if (!quantized) {
            const int qrc = at(&c, has(m, IC_MF_QUANT) ? IC_MF_QUANT : IC_MF_COMPRESSION,
                               "the quantization_config leaves every parameter unquantized: its "
                               "list of unquantized modules names every group");
            ic_err_hint(err, "remove the quantization_config (the checkpoint is then its "
                             "torch_dtype), or give --weights for what it stores");
            return qrc;
        }
    }
    s.v_head_dim = mla ? vdim : hd;
    if (c.overflow)
        return at(&c, IC_MF_HIDDEN, "the architecture's parameter count overflows 64 bits; "
                                    "the sizes are absurd");
    *out = s;
    return IC_OK;
}

uint64_t ic_model_window_tokens(const struct ic_model_stats *s, uint64_t context)
{
    return context < s->window ? context : s->window;
}

uint64_t ic_model_window_read_tokens(const struct ic_model_stats *s, uint64_t context,
                                     uint64_t tokens)
{
    if (!s->window)
        return context;
    if (!s->chunked) {
        /* from the first new token's window's start */
        const uint64_t span = s->window - 1 + (tokens ? tokens : 1);
        return span < context ? span : context;
    }
    /* from the start of the first new token's chunk to the last token */
    const uint64_t prefix = context > tokens ? context - tokens : 0;
    const uint64_t span = prefix % s->window + (context - prefix);
    return span < context ? span : context;
}

uint64_t ic_model_kv_token_layers(const struct ic_model_stats *s, uint64_t context)
{
    return s->n_global_layers * context + s->n_window_layers * ic_model_window_tokens(s, context);
}

uint64_t ic_model_kv_values(const struct ic_model_stats *s, uint64_t context)
{
    return s->kv_values_per_layer_token * ic_model_kv_token_layers(s, context);
}

double ic_model_kv_layer_token_bytes(const struct ic_model_stats *s, double bkv)
{
    return (double)s->kv_values_per_layer_token * bkv + (double)s->index_bytes_per_layer_token;
}

double ic_model_state_bytes(const struct ic_model_stats *s)
{
    return (double)s->n_state_layers * s->state_bytes_per_layer;
}

double ic_model_state_flop_span(const struct ic_model_stats *s, uint64_t tokens)
{
    return (double)s->n_state_layers * (double)s->state_flop_per_token_layer * (double)tokens;
}

uint64_t ic_model_kv_bytes_per_token(const struct ic_model_stats *s, uint32_t kv_bits)
{
    uint64_t layers = s->n_global_layers + s->n_window_layers;
    return (uint64_t)floor((double)layers * ic_model_kv_layer_token_bytes(s, kv_bits / 8.0));
}

double ic_model_attn_flop(const struct ic_model_stats *s, uint64_t context)
{
    return context ? ic_model_attn_flop_span(s, context - 1, 1, true) : 0;
}

/* sum of j for j = a .. b (a <= b), and of min(j, w) */
static double sum_j(double a, double b) { return (a + b) * (b - a + 1) / 2; }

/* sum of (j - 1) % w + 1 for j = a .. b (a >= 1): a chunked layer's
 * tokens, w a whole number */
static double sum_saw(double a, double b, double w)
{
    /* F(n) = sum over j = 1 .. n: q whole chunks of w (w + 1) / 2 and the
     * part r (r + 1) / 2 */
    double q = floor(b / w), r = b - q * w;
    double fb = q * w * (w + 1) / 2 + r * (r + 1) / 2;
    q = floor((a - 1) / w);
    r = (a - 1) - q * w;
    return fb - (q * w * (w + 1) / 2 + r * (r + 1) / 2);
}

static double sum_min(double a, double b, double w)
{
    if (b <= w)
        return sum_j(a, b);
    if (a > w)
        return (b - a + 1) * w;
    return sum_j(a, w) + (b - w) * w;
}

double ic_model_attn_flop_span(const struct ic_model_stats *s, uint64_t prefix,
                               uint64_t tokens, bool absorbed)
{
    if (!tokens)
        return 0;
    double a = (double)prefix + 1, b = (double)prefix + (double)tokens;
    double w = s->n_window_layers ? (double)s->window : b;
    /* a sparse layer attends to its indexer's top-k, as a window would */
    double g = s->sparse_topk ? sum_min(a, b, (double)s->sparse_topk) : sum_j(a, b);
    double local = s->chunked ? sum_saw(a, b, w) : sum_min(a, b, w);
    return (double)(absorbed ? s->attn_flop_per_ctx_token_layer
                             : s->prefill_attn_flop_per_ctx_token_layer) *
               ((double)s->n_global_layers * g + (double)s->n_window_layers * local) +
           ic_model_index_flop_span(s, prefix, tokens) + ic_model_state_flop_span(s, tokens);
}

double ic_model_index_flop_span(const struct ic_model_stats *s, uint64_t prefix,
                                uint64_t tokens)
{
    if (!tokens || !s->index_flop_per_ctx_token_layer)
        return 0;
    /* DeepSeek-V3.2 has no window layers (derive refuses them beside the
     * indexer): every layer's indexer scores every cached token */
    double a = (double)prefix + 1, b = (double)prefix + (double)tokens;
    return (double)s->index_flop_per_ctx_token_layer * (double)s->n_global_layers * sum_j(a, b);
}

double ic_model_mla_decompress_flop(const struct ic_model_stats *s, uint64_t prefix)
{
    if (!prefix || !s->mla_decompress_flop_per_ctx_token_layer)
        return 0;
    const double p = (double)prefix, w = s->n_window_layers ? fmin(p, (double)s->window) : p;
    return (double)s->mla_decompress_flop_per_ctx_token_layer *
           ((double)s->n_global_layers * p + (double)s->n_window_layers * w);
}

bool ic_model_mla_absorbs(const struct ic_model_stats *s, uint64_t prefix, uint64_t tokens)
{
    if (!prefix || !tokens || !s->mla_decompress_flop_per_ctx_token_layer)
        return false;
    return ic_model_attn_flop_span(s, prefix, tokens, true) <
           ic_model_attn_flop_span(s, prefix, tokens, false) +
               ic_model_mla_decompress_flop(s, prefix);
}

double ic_model_prefill_attn_flop(const struct ic_model_stats *s, uint64_t prefix,
                                  uint64_t tokens)
{
    return ic_model_attn_flop_span(s, prefix, tokens, false);
}

void ic_model_kept_text(const struct ic_model_stats *s, enum ic_dtype weights, char *buf,
                        size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    const bool kept = s->keep_groups && s->keep_type != weights;
    for (int g = 0; kept && g < IC_PG_COUNT && k < n; g++)
        if (s->group_params[g] && s->keep_groups >> g & 1)
            k += (size_t)snprintf(buf + k, n - k, "%s%s", k ? ", " : "", pgroup_names[g]);
    /* the MoE routers under narrower weights, read 16-bit as ic_step_load
     * reads them */
    const enum ic_dtype rt = weights < IC_DT_COUNT ? ic_model_router_type(s, weights) : IC_DT_COUNT;
    if (rt != IC_DT_COUNT && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%sMoE routers", k ? ", " : "");
    /* (the routers' type is the kept groups' where there are both) */
    if (k && k < n)
        snprintf(buf + k, n - k, " at %s",
                 ic_dtype_traits(rt != IC_DT_COUNT ? rt : s->keep_type)->name);
}

enum ic_dtype ic_model_router_type(const struct ic_model_stats *s, enum ic_dtype weights)
{
    const enum ic_dtype group =
        s->keep_groups >> IC_PG_REPLICATED & 1 ? s->keep_type : weights;
    if (!s->routers || ic_dtype_traits(group)->bits >= 16)
        return IC_DT_COUNT;
    return s->keep_groups ? s->keep_type : IC_DT_BF16;
}

void ic_model_weights_label(char *buf, size_t n, enum ic_dtype weights, const char *kept)
{
    snprintf(buf, n, "%s%s%s%s", ic_dtype_traits(weights)->name, kept[0] ? " (" : "", kept,
             kept[0] ? ")" : "");
}

void ic_model_weights_text(const struct ic_model_stats *s, enum ic_dtype weights, char *buf,
                           size_t n)
{
    char kept[IC_MODEL_KEPT_LEN];
    ic_model_kept_text(s, weights, kept, sizeof kept);
    ic_model_weights_label(buf, n, weights, kept);
}

void ic_model_unread_text(const struct ic_model *m, char *buf, size_t n)
{
    snprintf(buf, n, "%s: quantization_config's quant_method '%s' is not read, so the weights' "
                     "type is unknown", m->name, m->quant_unread);
}

uint64_t ic_model_active_as_published(const struct ic_model *m, const struct ic_model_stats *s)
{
    return s->params_active +
           (m->published_active_includes_embedding ? s->group_params[IC_PG_EMBED] : 0);
}

/* ---- loading ---------------------------------------------------------- */

/* NVIDIA's ModelOpt checkpoints (nvidia/Llama-3.1-70B-Instruct-FP8, the
 * NVFP4 ones) may state their quantization only in hf_quant_config.json
 * beside config.json ({"quantization": {"quant_algo": "FP8", ...}}), as
 * vLLM and TensorRT-LLM read it: read there when config.json has no
 * quantization_config. One that is there and does not read is an error
 * (the weights would silently be torch_dtype's). */
static int read_hf_quant_config(const char *config_path, struct ic_model *m, struct ic_err *err)
{
    char p[IC_MODEL_TEXT_LEN + 32];
    const char *slash = strrchr(config_path, '/');
    const int dir = slash ? (int)(slash - config_path) + 1 : 0;
    if (snprintf(p, sizeof p, "%.*shf_quant_config.json", dir, config_path) >= (int)sizeof p)
        return IC_OK; /* a path this long is not one the loader took */
    struct stat st;
    if (stat(p, &st) != 0)
        return IC_OK;
    if (!S_ISREG(st.st_mode))
        return ic_err_set(err, IC_EINVAL, p, 0, 0,
                          "not a regular file; expected ModelOpt's quantization of the "
                          "config.json beside it");
    struct ic_ydoc q = {0};
    int rc = ic_ydoc_load(&q, p, err);
    if (rc == IC_OK) {
        yaml_node_t *root = ic_ydoc_root(&q);
        yaml_node_t *qn = map_get(&q, root, "quantization");
        if (qn && qn->type == YAML_MAPPING_NODE && map_get(&q, qn, "quant_algo")) {
            rc = read_modelopt(&q, qn, m, "hf_quant_config.json", err);
        } else if (!root) {
            rc = ic_err_set(err, IC_EINVAL, p, 1, 1, "empty file; expected ModelOpt's "
                                                    "{\"quantization\": {\"quant_algo\": ...}}");
        } else {
            rc = ic_ydoc_error(&q, qn ? qn : root, err,
                               "expected a 'quantization' section with a quant_algo");
            ic_err_hint(err, "ModelOpt writes {\"quantization\": {\"quant_algo\": \"FP8\", "
                             "...}}; remove the file if it is not the checkpoint's");
        }
    }
    ic_ydoc_free(&q);
    return rc;
}

int ic_model_load(const char *path, struct ic_model *out, struct ic_err *err)
{
    struct ic_ydoc d = {0};
    struct ic_model *m = NULL;
    int rc = ic_ydoc_load(&d, path, err);
    if (rc)
        return rc;
    path = d.path; /* "-" is named IC_STDIN_NAME from here on */
    m = calloc(1, sizeof *m);
    if (!m) {
        rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
        goto out;
    }
    snprintf(m->path, sizeof m->path, "%s", path);
    m->from_config_json = d.json;
    yaml_node_t *root = ic_ydoc_root(&d);
    if (!root) {
        rc = ic_err_set(err, IC_EINVAL, path, 1, 1,
                        "empty file; expected a model (see modeldb/README.md)");
        if (d.json)
            ic_err_hint(err, "a config.json is one object, {\"model_type\": ..., "
                             "\"hidden_size\": ...}, as the checkpoint ships it");
        else
            ic_err_hint(err, "a model entry opens with 'name:'; a file of modeldb/ is an example");
        goto out;
    }
    m->root.line = (unsigned)root->start_mark.line + 1;
    m->root.col = (unsigned)root->start_mark.column + 1;
    if (m->from_config_json && (rc = refuse_unread_type(&d, root, err)))
        goto out; /* before the keys: what an unread model means by them is unknown */
    rc = ic_ydoc_read(&d, root, m->from_config_json ? &config_schema : &model_schema, m,
                      m->locs, NULL, err);
    if (!rc && m->from_config_json)
        rc = read_text_config(&d, map_get(&d, root, "text_config"), m, err);
    if (rc)
        goto out;
    if (m->from_config_json) { /* the wrapper's keys, then the text model's */
        yaml_node_t *maps[2] = {root, map_get(&d, root, "text_config")};
        for (int i = 0; i < 2 && !m->typo_key[0]; i++) {
            const char *near = NULL;
            const yaml_node_t *k =
                ic_ydoc_near_miss(&d, maps[i], maps[1 - i], &config_schema, &near);
            if (k) {
                snprintf(m->typo_key, sizeof m->typo_key, "%s", ic_ydoc_scalar(k));
                snprintf(m->typo_near, sizeof m->typo_near, "%s", near);
                m->typo_at = (struct ic_loc){(unsigned)k->start_mark.line + 1,
                                             (unsigned)k->start_mark.column + 1};
            }
        }
    }
    if (m->model_type[0] && !type_read(m->model_type)) {
        /* (a config.json's: refuse_unread_type saw the same text before the
         * keys were read; a model entry's, read as a Llama, was counted
         * as one) */
        const struct ic_loc *l = &m->locs[IC_MF_MODEL_TYPE];
        rc = type_error(path, l->line, l->col, m->model_type, err);
        goto out;
    }
    /* the keys a config.json of its model_type needs that it leaves out
     * (or gives null where None builds no model); a model entry's absent
     * keys mean what modeldb/README.md says */
    for (size_t i = 0; i < N(need_keys) && m->from_config_json; i++)
        if ((family_of(m)->need & need_keys[i].bit) &&
            (!config_key_given(&d, root, need_keys[i].key) ||
             (!need_keys[i].null_ok && !m->locs[need_keys[i].id].line)))
            m->need_missing |= need_keys[i].bit;
    if (m->from_config_json) {
        /* a multimodal checkpoint's encoders: held beside the text model,
         * not counted (their layers are not a decoder's) */
        static const char *const towers[] = {"vision_config", "audio_config", "visual"};
        for (size_t i = 0; i < sizeof towers / sizeof towers[0] && !m->tower[0]; i++)
            if (map_get(&d, root, towers[i]))
                snprintf(m->tower, sizeof m->tower, "%s (an encoder)", towers[i]);
        /* DeciLM's per-layer shapes (Nemotron-NAS: Llama-3.1-Nemotron-Super
         * and Ultra, each layer's attention a no-op or of its own KV heads,
         * its FFN of its own width): not one shape a layer, as counted here,
         * whatever model_type the file says */
        yaml_node_t *blocks = map_get(&d, root, "block_configs");
        if (blocks && !ic_ydoc_is_null(blocks) &&
            !(blocks->type == YAML_SEQUENCE_NODE &&
              blocks->data.sequence.items.top == blocks->data.sequence.items.start)) {
            rc = ic_ydoc_error(&d, blocks, err,
                               "'block_configs' (DeciLM's per-layer attention and FFN, "
                               "Nemotron-NAS's) is not read: its layers differ in shape, and "
                               "infcalc counts every layer alike");
            ic_err_hint(err, "no model_type infcalc reads takes block_configs; the counts of a "
                             "uniform model would not be this checkpoint's");
            goto out;
        }
        /* DeepSeek-V3's and GLM-4.5's multi-token-prediction layer, in the
         * checkpoint beside the decoder layers (speculative decoding's
         * draft); MiniMax-M2 and Qwen3.5 (in its text_config) name theirs
         * otherwise */
        static const char *const mtp[] = {"num_nextn_predict_layers", "num_mtp_modules",
                                          "mtp_num_hidden_layers"};
        yaml_node_t *text = map_get(&d, root, "text_config");
        yaml_node_t *in[2] = {root, text && text->type == YAML_MAPPING_NODE ? text : NULL};
        bool said = false;
        for (size_t i = 0; i < sizeof mtp / sizeof mtp[0] && !said; i++)
            for (int j = 0; j < 2 && !said; j++)
                if (in[j] && map_num(&d, in[j], mtp[i]) >= 1) {
                    const size_t n = strlen(m->tower);
                    snprintf(m->tower + n, sizeof m->tower - n, "%sMTP module (%s)",
                             n ? " and its " : "", mtp[i]);
                    said = true;
                }
    }
    if (m->from_config_json && !m->locs[IC_MF_QUANT].line && !m->locs[IC_MF_COMPRESSION].line &&
        (ends_with(path, "/config.json") || strcmp(path, "config.json") == 0) &&
        (rc = read_hf_quant_config(path, m, err)))
        goto out;
    if (m->from_config_json) {
        /* Without the key, the model's own config class decides:
         * transformers' GemmaConfig, Gemma2Config and Gemma3TextConfig tie
         * the embeddings (Gemma's configs leave the key out), as do
         * CohereConfig, Cohere2Config and SmolLM3Config; LlamaConfig,
         * MistralConfig, Qwen2/Qwen3(Moe)Config, Phi3Config,
         * DeepseekV2/V3Config and the others read here do not (a config
         * without a model_type is read as a Llama). PretrainedConfig's own
         * default (tied) applies to none of them. */
        if (!m->locs[IC_MF_TIE].line)
            m->tie_word_embeddings = family_of(m)->tie_default;
        /* EXAONE 3's layer count under its own name (num_hidden_layers,
         * where a config gives both, must agree: derive checks) */
        if (family_of(m)->num_layers_key && m->locs[IC_MF_NUM_LAYERS].line &&
            !m->locs[IC_MF_LAYERS].line) {
            m->num_hidden_layers = m->num_layers;
            m->locs[IC_MF_LAYERS] = m->locs[IC_MF_NUM_LAYERS];
        }
        /* ... and its sliding window, where neither the text model nor the
         * wrapper names the key (null, which the reader skips, is None) */
        const uint64_t window = family_of(m)->window_default;
        if (window && !m->locs[IC_MF_SLIDING_WINDOW].line && !config_key_given(&d, root, "sliding_window")) {
            m->sliding_window = window;
            m->window_default = true;
        }
        /* the config class's defaults where neither the text model nor the
         * wrapper names the key, said by show model: the heads and the
         * vocabulary set here (at the document's first key for an error),
         * the KV heads and head_dim applied by derive (dst NULL) */
        const struct {
            int id;
            const char *key;
            uint64_t v, *dst;
        } defs[] = {{IC_MF_HEADS, "num_attention_heads", family_of(m)->heads_default,
                     &m->num_attention_heads},
                    {IC_MF_VOCAB, "vocab_size", family_of(m)->vocab_default, &m->vocab_size},
                    {IC_MF_KV_HEADS, "num_key_value_heads", family_of(m)->kv_default, NULL},
                    {IC_MF_HEAD_DIM, "head_dim", family_of(m)->head_dim_default, NULL},
                    {IC_MF_MAX_POS, "max_position_embeddings", family_of(m)->max_pos_default,
                     &m->max_position_embeddings}};
        for (size_t i = 0; i < N(defs); i++)
            if (defs[i].v && !m->locs[defs[i].id].line && !config_key_given(&d, root, defs[i].key)) {
                if (defs[i].dst) {
                    *defs[i].dst = defs[i].v;
                    m->locs[defs[i].id] = m->root;
                }
                const size_t k = strlen(m->defaulted);
                snprintf(m->defaulted + k, sizeof m->defaulted - k, "%s%s %llu", k ? ", " : "",
                         defs[i].key, (unsigned long long)defs[i].v);
            }
        /* a null the reader skipped, told from a key left out */
        m->kv_null = !m->locs[IC_MF_KV_HEADS].line &&
                     config_key_given(&d, root, "num_key_value_heads");
        m->head_dim_null = !m->locs[IC_MF_HEAD_DIM].line && config_key_given(&d, root, "head_dim");
        /* Name a config.json after its folder or file: ".../Qwen2.5-7B/config.json";
         * standard input ("-", /dev/stdin) is "stdin". */
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        char name[IC_MODEL_NAME_LEN];
        if (strcmp(base, "config.json") == 0 && slash && slash > path) {
            const char *p = slash;
            while (p > path && p[-1] != '/')
                p--;
            ic_utf8_cut(name, sizeof name, p, (size_t)(slash - p));
        } else if (strcmp(path, IC_STDIN_NAME) == 0) {
            snprintf(name, sizeof name, "stdin");
        } else {
            size_t n = strlen(base);
            ic_utf8_cut(name, sizeof name, base, ends_with(base, ".json") ? n - 5 : n);
        }
        snprintf(m->name, sizeof m->name, "%s", name);
        snprintf(m->source, sizeof m->source, "%s", path);
    } else if (!ic_ydoc_name_ok(m->name, true)) {
        rc = ic_err_set(err, IC_EINVAL, path, m->locs[IC_MF_NAME].line,
                        m->locs[IC_MF_NAME].col,
                        "'name' must be lower-case letters, digits, '-', '.' or '_', starting "
                        "with a letter or a digit");
        ic_err_hint(err, "the name is what --model takes, e.g. 'llama3-8b'");
        goto out;
    }
    const char *why;
    const int bad = ic_ydoc_alias_bad(m->name, m->aliases[0], sizeof m->aliases[0],
                                      m->n_aliases, false, &why);
    if (bad >= 0) {
        rc = ic_err_set(err, IC_EINVAL, path, m->locs[IC_MF_ALIASES].line,
                        m->locs[IC_MF_ALIASES].col, "alias '%.64s' %s", m->aliases[bad], why);
        ic_err_hint(err, "an alias is another name --model takes, e.g. 'llama3'");
        goto out;
    }
    if (m->quant_experts_only && m->has_default_weights && !m->n_experts_field[0] &&
        !m->n_experts_field[1] && !m->n_experts_field[2] && !m->n_experts_field[3]) {
        /* mxfp4 quantizes MoE experts (transformers' quantizer, gpt-oss);
         * on a model without them what it quantized is not known */
        snprintf(m->quant_unread, sizeof m->quant_unread, "mxfp4");
        m->has_default_weights = false;
        m->keep_groups = 0;
        m->quant_extra_bytes = 0;
        m->weights_note[0] = 0;
    }
    if (m->keep_groups) {
        /* a group whose modules the list names layer by layer is kept when
         * it names one in every layer that has the group (Meta's FP8 405B
         * lists each layer's q, k, v and o projections; a Kimi list each
         * dense layer's MLP and each MoE layer's shared expert); otherwise
         * those entries are said */
        /* a Nemotron-H's list numbers its blocks, each of one kind */
        const struct family *fam = family_of(m);
        const bool blocks = fam->nemotron && m->n_blocks &&
                            (!m->locs[IC_MF_LAYERS].line || m->n_blocks == m->num_hidden_layers);
        const uint64_t L = blocks ? m->n_blocks : m->num_hidden_layers;
        const bool moe = m->n_experts_field[0] || m->n_experts_field[1] || m->n_experts_field[2] ||
                         m->n_experts_field[3];
        for (int g = 0; g < IC_PG_COUNT; g++) {
            uint64_t in = 0, named = 0; /* the layers that have the group; of them, named */
            for (uint64_t l = 0; l < L && L <= IC_MODEL_MAX_LAYERS; l++) {
                const int b = blocks ? m->block_kind[l] : -1;
                const bool in_moe = blocks ? b == IC_BLOCK_MOE : moe && layer_is_moe(m, fam, l);
                const bool has_g = g == IC_PG_EXPERTS || g == IC_PG_SHARED ? in_moe
                                   : g == IC_PG_MLP   ? (blocks ? b == IC_BLOCK_MLP : !in_moe)
                                   : g == IC_PG_ATTN_HEADS && blocks
                                       ? b == IC_BLOCK_MAMBA || b == IC_BLOCK_ATTN
                                   : g == IC_PG_ATTN_KV && blocks ? b == IC_BLOCK_ATTN
                                                                  : true;
                in += has_g;
                named += has_g && (m->keep_layers[g][l / 64] >> (l % 64) & 1);
            }
            if (in && named == in)
                m->keep_groups |= 1u << g;
            else if (named)
                m->keep_partial |= 1u << g;
        }
    }
    if ((m->keep_groups & KEEP_MLA_DOWN) && m->kv_lora_rank &&
        (m->keep_groups >> IC_PG_ATTN_HEADS & 1))
        m->keep_groups |= 1u << IC_PG_REPLICATED;
    m->keep_groups &= (1u << IC_PG_COUNT) - 1; /* KEEP_SMALL: not modelled */
    if (m->keep_groups && m->has_torch_dtype &&
        (m->torch_dtype == IC_DT_BF16 || m->torch_dtype == IC_DT_FP16 ||
         m->torch_dtype == IC_DT_FP32))
        m->keep_type = m->torch_dtype; /* what it leaves stays at the checkpoint's type */
    struct ic_model_stats s;
    rc = ic_model_derive(m, &s, err);
    if (rc)
        goto out;
    if (m->keep_groups) {
        /* say what stays unquantized, of the groups this model has */
        char kept[IC_MODEL_KEPT_LEN];
        ic_model_kept_text(&s, IC_DT_COUNT, kept, sizeof kept);
        size_t n = strlen(m->weights_note);
        if (kept[0])
            n += (size_t)snprintf(m->weights_note + n, sizeof m->weights_note - n,
                                  "; kept: %s%s", kept,
                                  m->has_torch_dtype && m->torch_dtype == m->keep_type
                                      ? ""
                                      : " (the method's type: torch_dtype unstated or "
                                        "quantized)");
        const char *sep = "; its list names in some layers only (counted as quantized): ";
        for (int g = 0; g < IC_PG_COUNT && n < sizeof m->weights_note; g++)
            if (s.group_params[g] && (m->keep_partial >> g & 1) && !(m->keep_groups >> g & 1)) {
                n += (size_t)snprintf(m->weights_note + n, sizeof m->weights_note - n, "%s%s",
                                      sep, pgroup_names[g]);
                sep = ", ";
            }
        if (m->keep_other && n < sizeof m->weights_note)
            snprintf(m->weights_note + n, sizeof m->weights_note - n,
                     "; %u entr%s of its list not read (another model's part, or a pattern "
                     "naming several layers)",
                     m->keep_other, m->keep_other == 1 ? "y" : "ies");
    }
    *out = *m;
out:
    free(m);
    ic_ydoc_free(&d);
    return rc;
}
