/* ic_model: a transformer as described by a modeldb/ YAML file or a Hugging
 * Face config.json, and the counts infcalc derives from it.
 *
 * The file states the architecture (with config.json field names); the
 * derivation turns it into parameter groups (with how many ways tensor
 * parallelism can split each), active parameters, KV values per token per
 * layer kind (global or sliding-window) and attention FLOPs per cached token,
 * which is all the step-time model needs. A hypothetical model may state its
 * totals directly instead. */
#ifndef IC_MODEL_H
#define IC_MODEL_H

#include "ic_err.h"
#include "ic_units.h"
#include "ic_ydoc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    IC_MODEL_NAME_LEN = 96,
    IC_MODEL_TEXT_LEN = 512,
    IC_MODEL_MAX_ALIASES = 8,
    IC_MODEL_MAX_LAYERS = 1024,
};

/* KV values cached per token over all layers, at most: 2^34 (DeepSeek-V3
 * caches 35,136) keeps values x context (<= 2^26 tokens) x bits in 64 bits. */
#define IC_MODEL_MAX_KV_VALUES (UINT64_C(1) << 34)
/* The longest context the model accepts: 64 Mi tokens. */
#define IC_MODEL_MAX_CONTEXT (UINT64_C(1) << 26)

enum ic_model_field {
    IC_MF_NAME, IC_MF_ALIASES, IC_MF_HF_REPO, IC_MF_MODEL_TYPE, IC_MF_SOURCE,
    IC_MF_HIDDEN, IC_MF_INTERMEDIATE, IC_MF_LAYERS, IC_MF_HEADS, IC_MF_KV_HEADS,
    IC_MF_HEAD_DIM, IC_MF_VOCAB, IC_MF_TIE, IC_MF_MAX_POS, IC_MF_ATTN_BIAS,
    IC_MF_SLIDING_WINDOW, IC_MF_SLIDING_PATTERN, IC_MF_LAYER_TYPES, IC_MF_USE_SLIDING,
    IC_MF_NUM_LOCAL_EXPERTS, IC_MF_N_ROUTED_EXPERTS, IC_MF_NUM_EXPERTS, IC_MF_TOPK,
    IC_MF_MOE_INTERMEDIATE, IC_MF_N_SHARED, IC_MF_SHARED_INTERMEDIATE,
    IC_MF_FIRST_K_DENSE, IC_MF_MOE_FREQ,
    IC_MF_Q_LORA, IC_MF_KV_LORA, IC_MF_ROPE_DIM, IC_MF_NOPE_DIM, IC_MF_V_HEAD_DIM,
    IC_MF_INDEX_TOPK, IC_MF_INDEX_HEADS, IC_MF_INDEX_DIM,
    IC_MF_INTERMEDIATE_MLP, IC_MF_MOE_STEP, IC_MF_CHUNK, IC_MF_NO_ROPE, IC_MF_NO_ROPE_INTERVAL,
    IC_MF_MOE_LAYERS,
    IC_MF_LIN_K_HEADS, IC_MF_LIN_V_HEADS, IC_MF_LIN_K_DIM, IC_MF_LIN_V_DIM, IC_MF_LIN_CONV,
    IC_MF_FULL_INTERVAL, IC_MF_ATTN_GATE, IC_MF_SSM_DTYPE,
    IC_MF_MAMBA_HEADS, IC_MF_MAMBA_HEAD_DIM, IC_MF_MAMBA_STATE, IC_MF_MAMBA_GROUPS,
    IC_MF_MAMBA_CONV, IC_MF_MAMBA_EXPAND, IC_MF_MAMBA_CONV_BIAS, IC_MF_MAMBA_PROJ_BIAS,
    IC_MF_PUBLISHED, IC_MF_PUB_TOTAL, IC_MF_PUB_ACTIVE, IC_MF_PUB_ACTIVE_EMB,
    IC_MF_PUB_SOURCE,
    IC_MF_PARAMETERS, IC_MF_ACTIVE_PARAMETERS, IC_MF_KV_VALUES,
    IC_MF_TORCH_DTYPE, IC_MF_QUANT, IC_MF_COMPRESSION, IC_MF_ROPE_SCALING, IC_MF_TEXT_CONFIG,
    IC_MF_DTYPE, IC_MF_SPARSE_STEP, IC_MF_MLP_ONLY, IC_MF_ATTN_TYPES, IC_MF_SHARED_MINIMAX,
    IC_MF_USE_QK_NORM, IC_MF_ATTN_OUT_BIAS,
    IC_MF_NH_PATTERN, IC_MF_NH_BLOCKS, IC_MF_NH_HEADS, IC_MF_NH_HEAD_DIM, IC_MF_NH_STATE,
    IC_MF_NH_GROUPS, IC_MF_NH_CONV, IC_MF_NH_CONV_BIAS, IC_MF_NH_BIAS, IC_MF_NH_SHARED,
    IC_MF_NH_LATENT, IC_MF_NH_ATTN_HEAD_DIM, IC_MF_NH_SSM_DTYPE, IC_MF_LM_HEAD_BIAS,
    IC_MF_ERNIE_EXPERTS, IC_MF_ERNIE_K, IC_MF_ERNIE_SHARED, IC_MF_ERNIE_START, IC_MF_ERNIE_END,
    IC_MF_ERNIE_INTERVAL, IC_MF_BIAS, IC_MF_NUM_LAYERS, IC_MF_MLP_BIAS, IC_MF_QKV_BIAS,
    IC_MF_FALCON_KV, IC_MF_MULTI_QUERY, IC_MF_NEW_ARCH, IC_MF_PARALLEL_ATTN, IC_MF_NUM_LN,
    IC_MF_FFN, IC_MF_HY_TOPK, IC_MF_HY_SHARED, IC_MF_HY_CLA, IC_MF_HY_MIXED, IC_MF_HY_SKIPPED,
    IC_MF_MAX_WINDOW_LAYERS,
    IC_MF_COUNT
};

/* What a block of Nemotron-H's hybrid_override_pattern (or layers_block_type)
 * is: a Mamba2 mixer ("M", "mamba"), attention ("*", "attention"), a
 * squared-ReLU MLP ("-", "mlp") or an MoE of such experts ("E", "moe"); one
 * mixer or MLP a block, each behind its own norm. */
enum { IC_BLOCK_MAMBA = 0, IC_BLOCK_ATTN = 1, IC_BLOCK_MLP = 2, IC_BLOCK_MOE = 3 };

/* What a layer of layer_types is: softmax attention over every token, over
 * a sliding window or chunk, or linear attention with a fixed state. */
enum { IC_LAYER_FULL = 0, IC_LAYER_WINDOW = 1, IC_LAYER_LINEAR = 2, IC_LAYER_MAMBA = 3 };

/* Parameter groups, split by how far tensor parallelism can shard them. */
enum ic_pgroup {
    IC_PG_EMBED,      /* input embedding (lookup: B rows read, not the matrix) */
    IC_PG_HEAD,       /* LM head (the tied embedding when tied); split by vocab */
    IC_PG_ATTN_HEADS, /* q/o projections and other per-query-head weights */
    IC_PG_ATTN_KV,    /* k/v projections; split at most by KV heads */
    IC_PG_REPLICATED, /* norms, routers, MLA down-projections: every chip */
    IC_PG_MLP,        /* dense MLP (SwiGLU), split along the hidden dim */
    IC_PG_SHARED,     /* MoE shared experts */
    IC_PG_EXPERTS,    /* all routed experts, all MoE layers */
    IC_PG_COUNT
};

/* As written in the file (0 / false where absent; see locs). */
struct ic_model {
    char name[IC_MODEL_NAME_LEN];
    char aliases[IC_MODEL_MAX_ALIASES][IC_MODEL_NAME_LEN];
    uint32_t n_aliases;
    char hf_repo[IC_MODEL_NAME_LEN];
    char model_type[IC_MODEL_NAME_LEN];
    char source[IC_MODEL_TEXT_LEN];
    char path[IC_MODEL_TEXT_LEN];
    bool from_config_json; /* read as a Hugging Face config.json */

    uint64_t hidden_size, intermediate_size, num_hidden_layers;
    uint64_t num_attention_heads, num_key_value_heads, head_dim, vocab_size;
    bool tie_word_embeddings, attention_bias, use_sliding_window;
    uint64_t max_position_embeddings;
    uint64_t sliding_window, sliding_window_pattern;
    uint64_t max_window_layers; /* Qwen2/Qwen3: layers below it attend in full */
    bool window_default;       /* sliding_window is the model_type's default: the
                                  config.json leaves the key out */
    char sliding_letters[64];  /* sliding_window_pattern as EXAONE 4 writes it ("LLLG":
                                  layer i slides iff its letter i mod length is L) */
    uint32_t n_layer_types;
    uint8_t layer_kind[IC_MODEL_MAX_LAYERS]; /* from layer_types: IC_LAYER_* */
    bool layer_types_chunked;  /* layer_types names chunked_attention layers */
    bool layer_types_sliding;  /* ... and sliding_attention ones */
    bool layer_types_linear;   /* ... and linear_attention ones */
    bool layer_types_mamba;    /* ... and mamba ones (Granite 4.0's "mamba" / "attention") */
    bool layer_types_attention; /* ... and "attention" ones (Granite 4.0's word) */
    /* Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5): its key and
     * value heads and widths, the causal convolution's kernel, one full
     * (softmax) attention layer every full_attention_interval-th where
     * layer_types is absent; attn_output_gate doubles the full layers' q
     * projection (a sigmoid gate per output value); the recurrent state's
     * bytes a value (mamba_ssm_dtype: 4 for float32, else 0: 2) */
    uint64_t linear_num_key_heads, linear_num_value_heads;
    uint64_t linear_key_head_dim, linear_value_head_dim, linear_conv_kernel_dim;
    uint64_t full_attention_interval;
    bool attn_output_gate;
    bool use_qk_norm;          /* GLM-4.5's and MiniMax-M2's q/k norms (where the family
                                  has them) */
    bool attention_out_bias;   /* Seed-OSS: a bias on o (its attention_bias biases q/k/v) */
    bool lm_head_bias;         /* PhiMoE: a bias on the LM head */
    /* Nemotron-H (nemotron_h): its blocks in order (IC_BLOCK_*); its Mamba2
     * keys (mamba_num_heads, mamba_head_dim, ssm_state_size, n_groups,
     * conv_kernel, use_conv_bias, use_bias on the projections), fields of
     * their own so that neither family's keys change the other's counts;
     * the shared expert's width (moe_shared_expert_intermediate_size), a
     * latent MoE's width (not read), attention_head_dim (older configs'
     * head_dim) */
    uint32_t n_blocks;
    uint8_t block_kind[IC_MODEL_MAX_LAYERS];
    uint64_t nh_heads, nh_head_dim, nh_state, nh_groups, nh_conv;
    bool nh_conv_bias, nh_use_bias;
    uint64_t nh_shared, moe_latent_size, attention_head_dim;
    uint32_t ssm_state_bytes;
    /* Mamba2 layers (Granite 4.0-H): heads x head dim (= expand x hidden),
     * the state's width, B/C groups, the convolution's kernel and bias,
     * biases on in/out projections; a shared MLP of shared_intermediate_size
     * (MiniMax's key, where 0 is all infcalc reads) */
    uint64_t mamba_n_heads, mamba_d_head, mamba_d_state, mamba_n_groups, mamba_d_conv;
    uint64_t mamba_expand;
    bool mamba_conv_bias, mamba_proj_bias;
    uint64_t shared_intermediate;
    /* Llama 4: dense layers' MLP width, one MoE layer every step-th,
     * chunked local attention on the RoPE layers (no_rope_layers: 1 a
     * RoPE layer, 0 a NoPE one, which attends globally) */
    uint64_t intermediate_size_mlp, interleave_moe_layer_step, attention_chunk_size;
    uint64_t no_rope_layer_interval;
    uint32_t n_no_rope;
    uint8_t layer_rope[IC_MODEL_MAX_LAYERS];
    uint64_t moe_layer_bits[IC_MODEL_MAX_LAYERS / 64]; /* moe_layers, by index */
    uint64_t moe_layer_max;    /* the largest index moe_layers names */

    uint64_t n_experts_field[4]; /* num_local_experts, n_routed_experts, num_experts,
                                    moe_num_experts (ERNIE 4.5's) */
    /* ERNIE 4.5's MoE keys: moe_k, moe_num_shared_experts, and its MoE layers,
     * every moe_layer_interval-th (counted from 1) from moe_layer_start_index
     * to moe_layer_end_index (-1: the last, ernie_end_last) */
    uint64_t ernie_k, ernie_shared, ernie_start, ernie_end, ernie_interval;
    bool ernie_end_last;
    bool bias; /* InternLM2's 'bias': on its wqkv and wo (true where absent);
                  InternLM3's: on o_proj and the MLP (false where absent) */
    bool qkv_bias; /* InternLM3's: on q, k and v */
    /* Falcon's: num_kv_heads (read with new_decoder_architecture),
     * multi_query (one KV head otherwise; true where absent),
     * parallel_attn (true where absent) and num_ln_in_parallel_attn (its
     * norms a layer), ffn_hidden_size (4 x hidden_size where absent) */
    uint64_t falcon_kv, num_ln, ffn_hidden_size;
    bool multi_query, new_arch, parallel_attn;
    /* Hunyuan's: moe_topk and num_shared_expert (a number, or one a layer,
     * all alike), moe_intermediate_size given as such a list
     * (moe_inter_list), use_cla, use_mixed_mlp_moe, moe_layer_num_skipped */
    uint64_t hy_topk, hy_shared, hy_skipped;
    bool moe_inter_list, hy_cla, hy_mixed;
    uint64_t num_layers; /* EXAONE 3's name for num_hidden_layers */
    bool mlp_bias;       /* LlamaConfig's: biases on the MLP's projections */
    /* config.json: num_key_value_heads, head_dim written as null (None: every
     * head, hidden_size / heads), not left out (the model_type's default) */
    bool kv_null, head_dim_null;
    /* config.json: the keys its model_type needs named that it leaves out
     * (or gives null where None builds no model): ic_model.c's NEED_*
     * bits, refused by the derivation */
    unsigned need_missing;
    uint64_t num_experts_per_tok, moe_intermediate_size;
    uint64_t n_shared_experts, shared_expert_intermediate_size;
    uint64_t first_k_dense_replace, moe_layer_freq;

    uint64_t q_lora_rank, kv_lora_rank, qk_rope_head_dim, qk_nope_head_dim, v_head_dim;
    uint64_t index_topk, index_n_heads, index_head_dim; /* DeepSeek Sparse Attention */

    uint64_t published_total, published_active;
    bool published_active_includes_embedding;
    char published_source[IC_MODEL_TEXT_LEN];

    uint64_t parameters, active_parameters, kv_values_per_token; /* hypothetical */

    /* config.json: what the checkpoint ships in (torch_dtype, or the type a
     * quantization_config sets), the bytes its scales and zeros add per
     * parameter of that type, a note saying where the type came from; and
     * the context rope_scaling makes usable (0: max_position_embeddings) */
    bool has_default_weights;
    enum ic_dtype default_weights;
    double quant_extra_bytes;
    char weights_note[IC_MODEL_TEXT_LEN];
    char quant_unread[IC_MODEL_NAME_LEN]; /* a quant_method not read: --weights must say
                                             the stored type */
    /* the parts a quantization_config leaves unquantized (bit g: parameter
     * group g), held at keep_type whatever --weights says; torch_dtype as
     * read, for that type */
    uint32_t keep_groups;
    enum ic_dtype keep_type;
    unsigned keep_other;       /* entries of its list that name none of the groups */
    uint32_t keep_partial;     /* groups it names in some layers only */
    bool quant_experts_only;   /* mxfp4: the method quantizes MoE experts alone */
    uint64_t keep_layers[IC_PG_COUNT][IC_MODEL_MAX_LAYERS / 64]; /* while loading: per
                                                   group, the layers its list names */
    bool has_torch_dtype;
    enum ic_dtype torch_dtype;
    uint64_t rope_context;
    char tower[96];            /* parts of the checkpoint not counted ("vision_config
                                  (an encoder)", DeepSeek's MTP module); "" for none */
    /* a config.json key a letter from one infcalc reads and the file leaves
     * out (ic_ydoc_near_miss): likely that key misspelt, the default taken
     * in its place; said as a warning ("" for none) */
    char typo_key[64], typo_near[64];
    struct ic_loc typo_at;

    struct ic_loc locs[IC_MF_COUNT];
    struct ic_loc root; /* first key of the document, for "missing" errors */
    /* keys a config.json leaves out that its config class's defaults fill
     * ("num_attention_heads 8, vocab_size 262208"), for show model */
    char defaulted[192];
};

const char *ic_pgroup_name(enum ic_pgroup g);

struct ic_model_stats {
    uint64_t group_params[IC_PG_COUNT]; /* parameters held, per group */
    uint64_t group_ways[IC_PG_COUNT];   /* max tensor-parallel ways; UINT64_MAX = any */
    uint64_t params_total;     /* all parameters held in memory */
    uint64_t params_active;    /* multiplied per token (routed: top-k of E; no embedding lookup) */
    bool embed_tied;

    uint64_t n_experts, top_k;  /* 0 for dense models */
    uint64_t n_moe_layers;

    uint64_t kv_values_per_layer_token; /* K and V values one layer caches per token */
    uint64_t n_global_layers;   /* layers that cache the whole context */
    uint64_t n_window_layers;   /* layers that cache min(S, window) tokens */
    uint64_t window;            /* tokens */
    bool window_default;        /* window is the model_type's default (the config
                                   leaves sliding_window out) */
    bool chunked;               /* the window layers attend within chunks of `window`
                                   (Llama 4): (S - 1) % window + 1 tokens, not min(S, window) */
    uint64_t kv_ways;           /* max ways the cache splits by head (1 for MLA) */
    bool mla;
    /* DeepSeek Sparse Attention (DeepSeek-V3.2): a query attends to the
     * sparse_topk cached tokens its lightning indexer picks, so a step reads
     * and attends over at most that many a layer; the indexer scores every
     * cached token (index_flop per cached token per layer: 2 x index_n_heads
     * x index_head_dim) from a cache of its own, one index_head_dim key a
     * token a layer in fp8 with an fp32 scale (index_bytes, whatever the
     * KV type), held and read whole. All 0: attention over every token. */
    uint64_t sparse_topk;
    uint64_t index_bytes_per_layer_token;
    uint64_t index_flop_per_ctx_token_layer;

    /* Linear-attention layers (Gated DeltaNet: Qwen3-Next, Qwen3.5; Mamba2:
     * Granite 4.0-H) cache no token: each holds a fixed state per sequence,
     * state_bytes_per_layer (the recurrent state, linear value heads x key
     * dim x value dim, or Mamba heads x head dim x d_state, at the
     * checkpoint's mamba_ssm_dtype, 2 or 4 bytes, and the convolution's
     * last kernel - 1 inputs at 2 bytes), which a decode step reads and
     * writes whole; a token costs state_flop_per_token_layer there
     * whatever the context. n_global_layers + n_window_layers +
     * n_state_layers = n_layers. */
    uint64_t n_state_layers;
    bool state_mamba;           /* those layers are Mamba2 (Granite 4.0-H, Nemotron-H), not
                                   Gated DeltaNet */
    double state_bytes_per_layer;
    uint64_t state_flop_per_token_layer;
    /* the blocks a step all-reduces after, under tensor parallelism, where
     * a layer is not an attention and an MLP block (Nemotron-H: one mixer
     * or MLP a block, 52 for its 29 layers); 0: two a layer */
    uint64_t allreduce_blocks;
    /* a model of such blocks (mlp_apart: Nemotron-H), its MLP and MoE
     * blocks, which run the MLPs its mixer blocks do not (23 of Nemotron
     * 3 Nano's 52; 0 where no block is one); elsewhere every layer runs
     * its MLP and n_mlp_blocks is 0 */
    bool mlp_apart;
    uint64_t n_mlp_blocks;
    /* the full attention layers' output gated (a sigmoid of a second q
     * projection, Qwen3-Next's), a sigmoid gate beside each shared expert */
    bool attn_gate, shared_gate;

    /* Decode attention FLOPs per token per cached token per layer:
     * QK^T plus AV (MLA: the absorbed form over the latent). */
    uint64_t attn_flop_per_ctx_token_layer;
    /* The same for prefill, where the attention runs in its plain form: QK^T
     * and AV per head over decompressed keys and values (MLA: 2*H*(nope +
     * rope) + 2*H*v_head_dim, cheaper than the absorbed form); equal to the
     * decode figure for every other attention. */
    uint64_t prefill_attn_flop_per_ctx_token_layer;
    /* MLA's plain form over a cached prefix first decompresses each cached
     * token's latent into its heads' keys and values (kv_b_proj: 2 *
     * kv_lora_rank * H * (nope + v_head_dim) FLOPs a token a layer); 0
     * for every other attention */
    uint64_t mla_decompress_flop_per_ctx_token_layer;
    uint64_t hidden_size, n_layers, n_heads, n_kv_heads, head_dim, vocab_size;
    uint64_t max_context;      /* usable context: max_position_embeddings, or what
                                  rope_scaling makes of it; 0 if unknown */
    /* a quantized checkpoint: its weight type and the bytes per parameter
     * its scales and zeros add when weights are stored in that type */
    enum ic_dtype quant_type;
    double quant_extra_bytes;
    /* the groups the checkpoint keeps unquantized (bit g: group g) and
     * their type; 0: every group is stored at the step's weight type */
    uint32_t keep_groups;
    enum ic_dtype keep_type;
    /* of the replicated group, the MoE routers (their correction biases
     * and shared-expert gates too): no quantizer converts them (DeepSeek-V3's
     * fp8 checkpoint, AWQ, GPTQ and compressed-tensors exports keep them
     * 16-bit), so a step reads them 16-bit under narrower weights. The
     * norms, also never quantized, are read at the weights' type (under
     * 0.01% of a model's bytes) */
    uint64_t routers;

    uint64_t v_head_dim;       /* value width per query head: MLA's v_head_dim, else
                                  head_dim (0 for a model stating totals) */
};

/* Loads a modeldb YAML file, or a Hugging Face config.json when path ends in
 * ".json" (extra keys ignored, name taken from the file name unless given),
 * and validates it by deriving its stats. *out is written only on success. */
int ic_model_load(const char *path, struct ic_model *out, struct ic_err *err);

/* Derives the counts from m (pure; no I/O). Fails, naming the field and its
 * location, on inconsistent architecture: query heads not a multiple of KV
 * heads, hidden_size not a multiple of heads without head_dim, top-k above
 * the expert count, counts that overflow 64 bits, and so on. */
int ic_model_derive(const struct ic_model *m, struct ic_model_stats *out,
                    struct ic_err *err);

/* Tokens a window layer holds at context S: min(S, window). A chunked
 * layer (Llama 4) holds at most its current chunk, which fills to the
 * window: the same bound, what a batch must have room for. */
uint64_t ic_model_window_tokens(const struct ic_model_stats *s, uint64_t context);

/* Tokens a window layer reads in a step of `tokens` new ones ending at
 * context S: a sliding layer the first new token's window and the new
 * tokens, min(S, window - 1 + T) (decode: what it holds, min(S, window));
 * a chunked layer from the start of the first new token's chunk, (S - T) %
 * window + T at most S (decode: its current chunk, (S - 1) % window + 1). */
uint64_t ic_model_window_read_tokens(const struct ic_model_stats *s, uint64_t context,
                                     uint64_t tokens);

/* Token-layers one sequence caches at context S (<= IC_MODEL_MAX_CONTEXT):
 * global * S + window_layers * ic_model_window_tokens(S). */
uint64_t ic_model_kv_token_layers(const struct ic_model_stats *s, uint64_t context);

/* KV values one sequence caches at context S: per_layer * the token-layers. */
uint64_t ic_model_kv_values(const struct ic_model_stats *s, uint64_t context);

/* Bytes one token caches in one layer, its KV values at bkv bytes each and
 * DeepSeek Sparse Attention's indexer key at its own type: every held and
 * written cache byte is counted from it. */
double ic_model_kv_layer_token_bytes(const struct ic_model_stats *s, double bkv);

/* Bytes of fixed state one sequence holds over the model's linear-attention
 * layers (0 without them), whatever its context: what every held, read and
 * written cache byte adds per sequence beside its tokens'. */
double ic_model_state_bytes(const struct ic_model_stats *s);

/* KV bytes per token of full context (all layers, no window), at kv_bits;
 * with DeepSeek Sparse Attention the indexer's keys too. */
uint64_t ic_model_kv_bytes_per_token(const struct ic_model_stats *s, uint32_t kv_bits);

/* Decode attention FLOPs for one new token attending over context S (with
 * DeepSeek Sparse Attention: over min(S, topk) tokens, and the indexer
 * over all S; a linear-attention layer its state update, whatever S). */
double ic_model_attn_flop(const struct ic_model_stats *s, uint64_t context);

/* Prefill attention FLOPs for T new tokens following P cached ones, each
 * attending causally to every earlier token and itself (windowed layers: to
 * the last `window`), summed exactly over positions P+1 .. P+T:
 *   c * (global * sum(j) + windowed * sum(min(j, window))),
 * c the prefill per-token coefficient; with DeepSeek Sparse Attention
 * sum(min(j, topk)) in the global layers, and the indexer's
 * index_flop * layers * sum(j) beside; T state updates in each
 * linear-attention layer. */
double ic_model_prefill_attn_flop(const struct ic_model_stats *s, uint64_t prefix,
                                  uint64_t tokens);

/* The same over positions prefix+1 .. prefix+tokens with either coefficient:
 * the decode (MLA: absorbed) one, or the prefill (plain) one. Position j
 * attends to j tokens, itself included, so one token at prefix S-1 costs
 * exactly ic_model_attn_flop(s, S) with the decode coefficient. With
 * DeepSeek Sparse Attention the indexer's part is included; it alone is
 * ic_model_index_flop_span. The linear-attention layers' part, tokens x
 * their state update in either phase (prefill's chunked form is counted as
 * the recurrent one), is included too; it alone is ic_model_state_flop_span. */
double ic_model_attn_flop_span(const struct ic_model_stats *s, uint64_t prefix,
                               uint64_t tokens, bool absorbed);
double ic_model_index_flop_span(const struct ic_model_stats *s, uint64_t prefix,
                                uint64_t tokens);

/* MLA's plain form over `prefix` cached tokens: the FLOPs of decompressing
 * their latents (the last `window` of them in a windowed layer); 0 without
 * MLA or a prefix. */
double ic_model_mla_decompress_flop(const struct ic_model_stats *s, uint64_t prefix);

/* Whether an MLA span of `tokens` new tokens after `prefix` cached ones runs
 * in the absorbed form: where it costs fewer FLOPs than the plain form with
 * the prefix decompressed (vLLM's MLA decompresses a cached context for a
 * prefill and absorbs for decode; the FLOPs decide a chunk in between:
 * DeepSeek-V3's plain form wins from about 171 new tokens). False without
 * MLA or a prefix. */
bool ic_model_mla_absorbs(const struct ic_model_stats *s, uint64_t prefix, uint64_t tokens);
double ic_model_state_flop_span(const struct ic_model_stats *s, uint64_t tokens);

/* The type a step reads an MoE's routers at under `weights`: no quantizer
 * converts them (DeepSeek-V3's fp8 checkpoint keeps its 106M in bf16), so
 * where the replicated group they sit in is narrower than 16 bits, the
 * 16-bit type a checkpoint keeps (bf16 where it names none); else
 * IC_DT_COUNT (they are read at the group's type, or there are none). */
enum ic_dtype ic_model_router_type(const struct ic_model_stats *s, enum ic_dtype weights);

/* The groups a checkpoint keeps unquantized, where their type differs from
 * `weights`, as text ("embedding, lm_head at fp16"), and an MoE's routers,
 * read 16-bit under weights narrower than that; "" where none is.
 * `weights` IC_DT_COUNT: the checkpoint's groups alone, whatever the
 * weights. IC_MODEL_KEPT_LEN holds every group's name. */
enum { IC_MODEL_KEPT_LEN = 128 };
void ic_model_kept_text(const struct ic_model_stats *s, enum ic_dtype weights, char *buf,
                        size_t n);

/* The weights' type as titles write it: "int4", or with what the
 * checkpoint keeps, "int4 (embedding, lm_head at fp16)"; the label of a
 * type and ic_model_kept_text's text. */
void ic_model_weights_text(const struct ic_model_stats *s, enum ic_dtype weights, char *buf,
                           size_t n);
void ic_model_weights_label(char *buf, size_t n, enum ic_dtype weights, const char *kept);

/* Why a model whose quant_method is not read has no weight type (the
 * command line's and the server's message). */
void ic_model_unread_text(const struct ic_model *m, char *buf, size_t n);

/* Active parameters under a publisher's convention: params_active, plus the
 * input embedding when the publisher counts it and it is a separate matrix. */
uint64_t ic_model_active_as_published(const struct ic_model *m,
                                      const struct ic_model_stats *s);

#endif
