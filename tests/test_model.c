/* Model arithmetic: parameter counts by hand, KV bytes per token for each
 * attention kind (MHA, GQA, MLA, sliding and alternating windows, quantized
 * KV), MoE expert touch counts, and two ways of reading the same model (a
 * modeldb entry and a Hugging Face config.json) agreeing. */
#include "ic_decode.h"
#include "ic_step.h"
#include "ic_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct ic_model *M;
static struct ic_model_stats S;

static void load(const char *name) { ic_test_model(name, M, &S); }

static void setup(void) { M = calloc(1, sizeof *M); }
static void teardown(void) { free(M); }

/* A config.json, or a model entry in YAML, written to a file and read
 * (JSON by its first byte). */
static void derive_text(const char *json, struct ic_model_stats *st)
{
    char path[64];
    ic_test_write_tmp(path, json);
    struct ic_err e = {0};
    const int rc = ic_model_load(path, M, &e);
    remove(path);
    ck_assert_msg(rc == 0, "%s", e.msg);
    ck_assert_msg(ic_model_derive(M, st, &e) == 0, "%s", e.msg);
}

/* A config refused, at load or at derivation: IC_EINVAL, its message
 * holding msg and its hint hint */
static void refused_text(const char *json, const char *msg, const char *hint)
{
    char path[64];
    ic_test_write_tmp(path, json);
    struct ic_err e = {0};
    int rc = ic_model_load(path, M, &e);
    remove(path);
    struct ic_model_stats st;
    if (rc == 0)
        rc = ic_model_derive(M, &st, &e);
    ck_assert_int_eq(rc, IC_EINVAL);
    ck_assert_msg(strstr(e.msg, msg), "%s lacks %s", e.msg, msg);
    ck_assert_msg(strstr(e.hint, hint), "%s lacks %s", e.hint, hint);
}

START_TEST(test_llama3_8b_params_by_hand)
{
    load("llama3-8b");
    /* D 4096, F 14336, L 32, H 32, KV heads 8, head_dim 128, V 128256, untied.
     * per layer: q,o 2*4096*4096 = 33,554,432; k,v 2*4096*1024 = 8,388,608;
     * MLP 3*4096*14336 = 176,160,768; norms 2*4096 = 8,192 -> 218,112,000
     * x 32 = 6,979,584,000; embedding and head 2*128256*4096 = 1,050,673,152;
     * final norm 4,096. Total 8,030,261,248 (the published exact count). */
    ck_assert_uint_eq(S.params_total, 8030261248u);
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_HEADS], UINT64_C(32) * 33554432u);
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_KV], UINT64_C(32) * 8388608u);
    ck_assert_uint_eq(S.group_params[IC_PG_MLP], UINT64_C(32) * 176160768u);
    ck_assert_uint_eq(S.group_params[IC_PG_EMBED], 525336576u);
    /* active: all but the embedding lookup */
    ck_assert_uint_eq(S.params_active, 8030261248u - 525336576u);
    ck_assert_uint_eq(S.group_ways[IC_PG_ATTN_KV], 8);
}
END_TEST

/* A config.json without a model_type is read as a Llama's, whether it
 * names no architecture or a Llama's (the refusal of another's is in
 * tests/broken_fixtures.h): Llama 3 8B's shape gives its 8,030,261,248 of
 * the test above either way. */
START_TEST(test_config_without_model_type)
{
#define L3_8B "\"hidden_size\": 4096, \"intermediate_size\": 14336, " \
              "\"num_hidden_layers\": 32, \"num_attention_heads\": 32, " \
              "\"num_key_value_heads\": 8, \"vocab_size\": 128256"
    static const char *const texts[] = {
        "{" L3_8B "}",
        "{\"architectures\": [\"LlamaForCausalLM\"], " L3_8B "}",
        "{\"architectures\": [\"MistralForCausalLM\"], " L3_8B "}",
    };
#undef L3_8B
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct ic_model_stats st;
        derive_text(texts[i], &st);
        ck_assert_uint_eq(st.params_total, 8030261248u);
    }
}
END_TEST

START_TEST(test_kv_per_token)
{
    /* docs/cases.md: bf16 KV bytes per token over all layers */
    load("llama2-7b"); /* 2 * 32 layers * 32 heads * 128 * 2 B = 524,288 */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 524288u);
    /* a 4096-token sequence holds 2 GiB */
    ck_assert_uint_eq(ic_model_kv_values(&S, 4096) * 2, UINT64_C(2) << 30);

    load("llama3-8b"); /* 2 * 32 * 8 * 128 * 2 = 131,072; 8192 tokens = 1 GiB */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 131072u);
    ck_assert_uint_eq(ic_model_kv_values(&S, 8192) * 2, UINT64_C(1) << 30);

    load("llama3-70b"); /* 2 * 80 * 8 * 128 * 2 = 327,680; int8 163,840 */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 327680u);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 8), 163840u);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 4), 81920u);
    /* 131072 tokens in bf16 hold 40 GiB */
    ck_assert_uint_eq(ic_model_kv_values(&S, 131072) * 2, UINT64_C(40) << 30);

    load("deepseek-v3"); /* MLA: 61 layers * (512 latent + 64 RoPE) * 2 = 70,272 */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 70272u);
    ck_assert(S.mla);
    ck_assert_uint_eq(S.kv_ways, 1); /* one latent: it cannot split by head */
}
END_TEST

START_TEST(test_windows)
{
    load("mistral-7b"); /* all 32 layers slide over 4096 tokens; 2*8*128 = 2048 values/layer */
    ck_assert_uint_eq(ic_model_kv_values(&S, 2048), UINT64_C(32) * 2048u * 2048u);
    ck_assert_uint_eq(ic_model_kv_values(&S, 8192), UINT64_C(32) * 4096u * 2048u);
    ck_assert_uint_eq(ic_model_kv_values(&S, 100000), ic_model_kv_values(&S, 4096));

    load("gemma2-9b"); /* 42 layers alternate: 21 local (4096) and 21 global; 2*8*256 values */
    ck_assert_uint_eq(S.n_window_layers, 21);
    ck_assert_uint_eq(S.n_global_layers, 21);
    ck_assert_uint_eq(ic_model_kv_values(&S, 8192), (UINT64_C(21) * 8192 + 21 * 4096) * 4096);
    /* below the window every layer holds the whole context */
    ck_assert_uint_eq(ic_model_kv_values(&S, 1000), UINT64_C(42) * 1000 * 4096);

    load("gpt-oss-120b"); /* 18 of 36 layers window 128; 2*8*64 = 1024 values/layer */
    ck_assert_uint_eq(ic_model_kv_values(&S, 1000), (UINT64_C(18) * 1000 + 18 * 128) * 1024);
    /* gpt-oss has biases on q, k, v and o (attention_bias: true) and a
     * sink a query head */
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_HEADS],
                      UINT64_C(36) * (2 * 2880 * 64 * 64 + 64 * 64 + 2880 + 64));
    /* with each expert's biases (2 x 2880 + 2880) and the router's (128 a
     * layer): 116,829,156,672, the checkpoint's total (its model card's
     * 116.83B) */
    ck_assert_uint_eq(S.group_params[IC_PG_EXPERTS],
                      UINT64_C(36) * 128 * (3 * 2880 * 2880 + 3 * 2880));
    ck_assert_uint_eq(S.params_total, UINT64_C(116829156672));

    load("qwen2.5-7b"); /* Qwen2: q/k/v biases, none on o: 28 * (3584 + 2 * 512) */
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_HEADS],
                      UINT64_C(28) * (2 * 3584 * 3584 + 3584));
    ck_assert_uint_eq(S.params_total, 7615616512u); /* the published exact count */

    load("qwen2.5-7b"); /* sliding_window given but use_sliding_window: false */
    ck_assert_uint_eq(S.n_window_layers, 0);
}
END_TEST

START_TEST(test_mla_attention_flops)
{
    load("deepseek-v3");
    /* absorbed MLA: 128 heads score (512 + 64) and mix 512 per cached token:
     * 2*128*576 + 2*128*512 = 278,528 FLOP per layer per cached token */
    ck_assert_uint_eq(S.attn_flop_per_ctx_token_layer, 278528u);
    ck_assert_double_eq(ic_model_attn_flop(&S, 1000), 278528.0 * 61 * 1000);
    load("llama3-70b"); /* GQA: 4 * 64 heads * 128 = 32,768 */
    ck_assert_uint_eq(S.attn_flop_per_ctx_token_layer, 32768u);
}
END_TEST

START_TEST(test_moe_counts)
{
    load("mixtral-8x7b");
    /* per layer 8 experts of 3*4096*14336 = 176,160,768; top-2 active */
    ck_assert_uint_eq(S.n_experts, 8);
    ck_assert_uint_eq(S.group_params[IC_PG_EXPERTS], 32u * 8u * UINT64_C(176160768));
    ck_assert_uint_eq(S.params_total - S.params_active,
                      UINT64_C(32) * 6u * UINT64_C(176160768) + S.group_params[IC_PG_EMBED]);
    /* E(1 - (1 - k/E)^B): B=1 touches k; B=2: 8 * (1 - 0.75^2) = 3.5 */
    ck_assert_double_eq_tol(ic_step_experts_touched(8, 2, 1), 2.0, 1e-12);
    ck_assert_double_eq_tol(ic_step_experts_touched(8, 2, 2), 3.5, 1e-12);
    ck_assert_double_eq_tol(ic_step_experts_touched(256, 8, 1000), 256.0, 1e-6);

    load("deepseek-v3"); /* 3 dense layers, 58 MoE layers */
    ck_assert_uint_eq(S.n_moe_layers, 58);
}
END_TEST

START_TEST(test_hypothetical)
{
    struct ic_err e = {0};
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/hypo-7b.yaml", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &S, &e), 0);
    ck_assert_uint_eq(S.params_total, 7000000000u);
    ck_assert_uint_eq(S.params_active, 7000000000u);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 524288u);
    /* attention without heads stated: MHA, a query head a KV head: 2 FLOPs
     * a cached value, 2 x 262,144 a cached token (Llama-2-7B's 4 x 32 x
     * 128 x 32 layers); it was 0 */
    ck_assert_uint_eq(S.attn_flop_per_ctx_token_layer, 2u * 262144u);
    /* Llama-3-70B's totals with its heads, 64 on 8: 2 x 8 x 163,840 =
     * 2,621,440 = 4 x 64 x 128 x 80 layers, as its architecture gives */
    derive_text("name: t70\nsource: s\nparameters: 70553706496\nkv_values_per_token: 163840\n"
                "hidden_size: 8192\nnum_hidden_layers: 80\nnum_attention_heads: 64\n"
                "num_key_value_heads: 8\n", &S);
    ck_assert_uint_eq(S.attn_flop_per_ctx_token_layer, UINT64_C(4) * 64 * 128 * 80);
    load("llama3-70b");
    ck_assert_uint_eq(S.attn_flop_per_ctx_token_layer * S.n_layers, UINT64_C(4) * 64 * 128 * 80);
}
END_TEST

START_TEST(test_config_json_matches_modeldb)
{
    /* examples/my-config.json is Qwen2.5-7B-Instruct's config.json: read
     * directly it must give the same counts as modeldb/qwen2.5-7b.yaml. */
    struct ic_err e = {0};
    struct ic_model_stats js;
    ck_assert_int_eq(ic_model_load(IC_SRC_DIR "/examples/my-config.json", M, &e), 0);
    ck_assert(M->from_config_json);
    ck_assert_str_eq(M->name, "my-config");
    ck_assert_int_eq(ic_model_derive(M, &js, &e), 0);
    load("qwen2.5-7b");
    ck_assert_uint_eq(js.params_total, S.params_total);
    ck_assert_uint_eq(js.params_active, S.params_active);
    ck_assert_uint_eq(js.kv_values_per_layer_token, S.kv_values_per_layer_token);
    ck_assert_uint_eq(js.n_window_layers, 0);
}
END_TEST

/* Keys of newer configs. A gemma3_text config without a pattern: Gemma 3's
 * five sliding layers to one global (layer i global iff (i + 1) % 6 == 0:
 * i = 5 and 11 of 12), so 10 windowed; "dtype" (transformers 4.56+) read as
 * torch_dtype was. Llama 3.2's "llama3" rope scaling keeps
 * max_position_embeddings (131072), not factor 32 x 8192 = 262144; mxfp4
 * on a model without MoE experts (transformers quantizes gpt-oss's experts
 * with it) loads as a method not read, with no weight type. */
START_TEST(test_config_json_newer_keys)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/gemma3-text-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.n_window_layers, 10);
    ck_assert_uint_eq(st.n_global_layers, 2);
    ck_assert_uint_eq(st.window, 512);
    ck_assert(M->has_default_weights);
    ck_assert_int_eq(M->default_weights, IC_DT_FP32);
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama3.2-rope-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.max_context, 131072);
    ck_assert_str_eq(M->quant_unread, "mxfp4");
    ck_assert(!M->has_default_weights); /* torch_dtype does not stand in for it */
}
END_TEST

/* A config without tie_word_embeddings takes its config class's default:
 * LlamaConfig's is False, so Llama-3.1-8B's head is a matrix of its own,
 * 128,256 x 4,096 = 525,336,576 parameters beside the embedding: 8,030,261,248
 * in all, as its checkpoint's 16,060,522,496 bf16 bytes say (read as tied
 * it was 7,504,924,672, -6.5%). Gemma's default ties (test_gemma2_config_json). */
START_TEST(test_config_json_tie_default)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama3.1-8b-no-tie-key-config.json", M, &e),
                     0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert(!st.embed_tied);
    ck_assert_uint_eq(st.params_total, UINT64_C(8030261248));
    ck_assert_uint_eq(st.group_params[IC_PG_EMBED], UINT64_C(525336576));
}
END_TEST

/* Kimi K2 (moonshotai/Kimi-K2-Instruct's config.json, as copied in
 * ai-dynamo/aiconfigurator): DeepSeek-V3's layers at 384 routed experts of
 * 2048, one shared, the first layer dense, vocab 163,840. Moonshot's card:
 * "1 trillion total parameters", "32 billion activated". Routed experts by
 * hand: 60 layers x 384 x 3 x 7168 x 2048 = 1,014,686,023,680. The total,
 * with each router's correction bias (60 x 384 = 23,040), is the
 * checkpoint's 1,026,408,232,448 (its safetensors headers' sum, as
 * published for K2-Instruct, -0905 and -Thinking). */
START_TEST(test_kimi_k2)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/kimi-k2-instruct-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(1014686023680));
    ck_assert_uint_eq(st.params_total, UINT64_C(1026408232448));
    ck_assert_uint_eq(st.params_active, UINT64_C(31687095808));
    ck_assert(st.mla);
}
END_TEST

/* GLM-4.5 and GLM-4.5-Air (model_type glm4_moe; GLM-4.6 and 4.7 have
 * GLM-4.5's sizes): GQA attention with q/k/v biases (attention_bias) and
 * none on o (transformers' Glm4MoeAttention), DeepSeek's MoE (a shared
 * expert, the first first_k_dense_replace layers dense). zai-org's
 * README: "355 billion total parameters with 32 billion active", Air
 * "106 billion total parameters and 12 billion active". By hand, GLM-4.5
 * (D 5120, 92 layers, 96 x 128 query heads, 8 KV heads, 3 dense layers of
 * 12288, 89 MoE layers of 160 experts of 1536 and one shared, vocab
 * 151552, untied):
 *   embedding, head  2 x 151552 x 5120               =   1,551,892,480
 *   attn heads       92 x (2 x 5120 x 12288 + 12288) =  11,577,409,536
 *   attn kv          92 x (2 x 5120 x 1024 + 2048)   =     964,878,336
 *   norms, routers   92 x 2 x 5120 + 5120 + 89 x (5120 + 1) x 160
 *                    + q/k norms 92 x 2 x 128    =      73,893,792
 *   dense MLP        3 x 3 x 5120 x 12288            =     566,231,040
 *   shared experts   89 x 3 x 5120 x 1536            =   2,099,773,440
 *   routed experts   89 x 160 x 3 x 5120 x 1536      = 335,963,750,400
 * (the router's row of 5120 and its correction bias a routed expert;
 * use_qk_norm true) 352,797,829,024 in all (-0.6% from 355B; the MTP
 * layer is not counted); active: all but the embedding and 152 of 160
 * experts, 32,856,319,904 (the card's 32B). Air by the same sums, its
 * use_qk_norm false: 106,852,251,264 and 12,803,372,672 (12.18B without
 * the head). */
START_TEST(test_glm4_moe)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/glm-4.5-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS], UINT64_C(11577409536));
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_KV], UINT64_C(964878336));
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED], UINT64_C(73893792));
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(335963750400));
    ck_assert_uint_eq(st.params_total, UINT64_C(352797829024));
    ck_assert_uint_eq(st.params_active, UINT64_C(32856319904));
    ck_assert(!st.mla);
    ck_assert_ptr_nonnull(strstr(M->tower, "num_nextn_predict_layers"));
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/glm-4.5-air-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(106852251264));
    ck_assert_uint_eq(st.params_active, UINT64_C(12803372672));
}
END_TEST

/* MiniMax-M2 (model_type minimax_m2): Mixtral's keys (num_local_experts,
 * intermediate_size the expert width), 256 experts top-8 in all 62 layers,
 * GQA 48 x 128 over 8 KV heads, no shared expert, vocab 200064, untied.
 * MiniMax's card: "230 billion total parameters with 10 billion active".
 * By hand: 2 x 200064 x 3072 = 1,229,193,216 (embedding, head); attention
 * 62 x (2 x 3072 x 6144 + 2 x 3072 x 1024) = 2,730,491,904; norms and
 * routers 62 x 2 x 3072 + 3072 + 62 x (3072 + 1) x 256 (a routing bias
 * an expert) + q/k norms over all heads 62 x (48 + 8) x 128 = 49,603,072;
 * experts 62 x 256 x 3 x 3072 x 1536 = 224,680,476,672: 228,689,764,864,
 * the checkpoint's published total (-0.6% from 230B); active with 8 of
 * 256 experts 10,415,956,480. Its MTP modules are said uncounted. */
START_TEST(test_minimax_m2)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/minimax-m2-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(224680476672));
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED], UINT64_C(49603072));
    ck_assert_uint_eq(st.params_total, UINT64_C(228689764864));
    ck_assert_uint_eq(st.params_active, UINT64_C(10415956480));
    ck_assert_ptr_nonnull(strstr(M->tower, "num_mtp_modules"));
    /* as shipped, fp8 blocks with the routers, their correction biases and
     * the head listed: every entry read, the embedding and head at bf16,
     * 1,229,193,216 x 2 B, the routers and their biases, 62 x (3072 x 256
     * + 256) = 48,774,656, at 2 B too (16-bit under narrower weights,
     * whatever the list says), the other 227,411,796,992 parameters at 1 +
     * 4 / 16384 B = 227,467,317,450.25 B: 230,023,253,194.25 B held on one
     * chip (the step model's count, ic_step_load) */
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/minimax-m2-fp8-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(M->keep_other, 0);
    ck_assert_int_eq(M->default_weights, IC_DT_FP8);
    ck_assert_uint_eq(st.routers, UINT64_C(48774656));
    struct ic_hw *h = malloc(sizeof *h);
    ic_test_hw("h100", h);
    struct ic_decode_cfg c = ic_decode_defaults();
    c.weights = IC_DT_FP8;
    struct ic_point p;
    ck_assert_int_eq(ic_decode(&st, h, &c, &p, &e), IC_OK);
    ck_assert_double_eq_tol(p.mem_weights_B, 230023253194.25, 1e-3);
    free(h);
    /* one sequence's step reads them by type: bf16 the head, 614,596,608 x
     * 2 B, and the routers, 97,549,312 B (the embedding is looked up, not
     * read): 1,326,742,528 B, the expected estimate's bf16 GEMV share */
    const struct ic_step one = {.layout = {1, 1, 1, 1},
                                .kind = {{1, 1, 2047, 1, IC_PHASE_DECODE}},
                                .n_kinds = 1, .weights = IC_DT_FP8, .kv = IC_DT_BF16,
                                .compute = IC_DT_BF16, .attn = IC_ATTN_FLASH};
    struct ic_load ld;
    ck_assert_int_eq(ic_step_load(&st, &one, &ld, &e), IC_OK);
    ck_assert_double_eq_tol(ld.weight_bytes_at[IC_DT_BF16], 1326742528.0, 1e-3);
}
END_TEST

/* Qwen2's q/k/v biases in its MoE and VL text decoders. Qwen1.5-MoE-A2.7B
 * (its config as Qwen ships it): a layer's attention 4 x 2048^2 + 3 x 2048
 * biases = 16,783,360, router 60 x 2048 = 122,880, experts 60 x 3 x 2048 x
 * 1408 = 519,045,120, shared expert 3 x 2048 x 5632 = 34,603,008 and its
 * gate 2048, norms 4096: 570,560,512; x 24 + the embedding and head 2 x
 * 151,936 x 2048 + the final norm 2048 = 14,315,784,192 (the card: 14.3B).
 * Qwen2-VL-7B's text decoder is Qwen2.5-7B's shape, 7,615,616,512 with
 * 28 x (3584 + 2 x 512) q/k/v biases (the modeldb entry's published
 * total). */
START_TEST(test_qwen2_biases)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/qwen1.5-moe-a2.7b-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(14315784192));
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/qwen2-vl-7b-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(7615616512));
}
END_TEST

/* Google's Gemma 3 4B config.json (a byte copy, mlx-community/gemma-3-4b-it-
 * bf16) names no heads, KV heads, head_dim or vocab_size: Gemma3TextConfig's
 * 8, 4, 256 and 262,208. A layer: q 2560 x 2048 = 5,242,880, k and v 2 x
 * 2560 x 1024 = 5,242,880, o 5,242,880; q/k norms 2 x 256; MLP 3 x 2560 x
 * 10,240 = 78,643,200; norms 4 x 2560: 94,382,592; x 34 = 3,209,008,128 +
 * the tied embedding
 * 262,208 x 2560 = 671,252,480 + the final norm 2560: 3,880,263,168. KV
 * 34 x 2 x 4 x 256 x 2 B = 139,264 B a token. A 12B fine-tune's config
 * (harmonicdata/Gemma3-SD-v0.2) gives no head_dim: 256, not 3840 / 16 =
 * 240; 11,766,034,176 (it read 11,624,474,880). Neither names
 * max_position_embeddings: Gemma3TextConfig's 131,072. */
START_TEST(test_gemma3_class_defaults)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/gemma-3-4b-it-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.n_heads, 8);
    ck_assert_uint_eq(st.n_kv_heads, 4);
    ck_assert_uint_eq(st.head_dim, 256);
    ck_assert_uint_eq(st.vocab_size, 262208);
    ck_assert_uint_eq(st.params_total, UINT64_C(3880263168));
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&st, 16), 139264);
    ck_assert_ptr_nonnull(strstr(M->defaulted, "vocab_size 262208"));
    /* nor max_position_embeddings: Gemma3TextConfig's 131072, said (the
     * usable context was unknown, and no context warned) */
    ck_assert_uint_eq(st.max_context, 131072);
    ck_assert_ptr_nonnull(strstr(M->defaulted, "max_position_embeddings 131072"));
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/gemma-3-12b-no-head-dim-config.json", M,
                                   &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.head_dim, 256);
    ck_assert_uint_eq(st.params_total, UINT64_C(11766034176));
}
END_TEST

/* NVIDIA's Nemotron-H-56B-Base-8K config.json as shipped (ai-dynamo/
 * aiconfigurator's copy) holds Python's "time_step_limit": [0.0, Infinity],
 * a key infcalc does not read: it loads (it was refused as bare words), and
 * counts as the same file with the value made finite. */
START_TEST(test_python_json_infinity)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_msg(ic_model_load(IC_TEST_DIR "/fixtures/nemotron-h-56b-infinity-config.json", M,
                                &e) == 0, "%s", e.msg);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    const uint64_t total = st.params_total, active = st.params_active;
    char path[64];
    FILE *in = fopen(IC_TEST_DIR "/fixtures/nemotron-h-56b-infinity-config.json", "rb");
    ck_assert_ptr_nonnull(in);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = 0;
    char *inf = strstr(text, "Infinity");
    ck_assert_ptr_nonnull(inf);
    memcpy(inf, "1e308   ", 8);
    ic_test_write_tmp(path, text);
    ck_assert_int_eq(ic_model_load(path, M, &e), 0);
    remove(path);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(total, st.params_total);
    ck_assert_uint_eq(active, st.params_active);
    /* a hand count over its 118 blocks (a review of 2026-12-04, from
     * transformers' NemotronH modules): 56,324,350,464, NVIDIA's "56B" */
    ck_assert_uint_eq(total, UINT64_C(56324350464));
}
END_TEST

/* compression_config (older compressed-tensors exports) is read where
 * quantization_config is absent or null, and loses to it wherever the two
 * keys stand (vLLM's order); the note names the key read. A Llama of
 * 2 layers, hidden 256, MLP 512, vocab 1000. */
START_TEST(test_compression_config)
{
#define CC_BASE                                                                              \
    "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "        \
    "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"vocab_size\": 1000, "        \
    "\"torch_dtype\": \"bfloat16\""
#define CC_FP8                                                                               \
    "{\"quant_method\": \"compressed-tensors\", \"format\": \"float-quantized\", "          \
    "\"ignore\": [\"lm_head\"], \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], " \
    "\"weights\": {\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"tensor\"}}}}"
#define CC_BNB "{\"quant_method\": \"bitsandbytes\", \"load_in_8bit\": true}"
    static const struct {
        const char *json;
        enum ic_dtype t;
        const char *note;
    } cases[] = {
        {CC_BASE ", \"compression_config\": " CC_FP8 "}", IC_DT_FP8,
         "compression_config compressed-tensors, fp8"},
        {CC_BASE ", \"quantization_config\": null, \"compression_config\": " CC_FP8 "}",
         IC_DT_FP8, "compression_config compressed-tensors, fp8"},
        {CC_BASE ", \"compression_config\": " CC_FP8 ", \"quantization_config\": " CC_BNB "}",
         IC_DT_INT8, "quantization_config bitsandbytes 8-bit"},
        {CC_BASE ", \"quantization_config\": " CC_BNB ", \"compression_config\": " CC_FP8 "}",
         IC_DT_INT8, "quantization_config bitsandbytes 8-bit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ic_err e = {0};
        char path[64];
        ic_test_write_tmp(path, cases[i].json);
        ck_assert_msg(ic_model_load(path, M, &e) == 0, "%zu: %s", i, e.msg);
        remove(path);
        ck_assert(M->has_default_weights);
        ck_assert_int_eq(M->default_weights, cases[i].t);
        ck_assert_msg(strncmp(M->weights_note, cases[i].note, strlen(cases[i].note)) == 0,
                      "%zu: %s", i, M->weights_note);
    }
#undef CC_BASE
#undef CC_FP8
#undef CC_BNB
}
END_TEST

/* DeepSeek-V3.2 (model_type deepseek_v32): DeepSeek-V3's layers and a
 * lightning indexer per layer (index_n_heads 64, index_head_dim 128,
 * index_topk 2048). The indexer's parameters, by hand from DeepSeek's
 * inference code: wq_b 1536 x 64 x 128 = 12,582,912, wk 7168 x 128 =
 * 917,504, k_norm's weight and bias 256, weights_proj 7168 x 64 = 458,752:
 * 13,959,424 a layer, 851,524,864 over 61, replicated beside V3's
 * 1,030,904,832 (a layer: q_a 7168 x 1536 + kv_a 7168 x 576 + their norms
 * 1536 + 512 + two RMSNorms 2 x 7168 = 15,155,200; x 61, + 58 MoE routers
 * of 7168 x 256 and their correction biases 58 x 256 = 14,848, and the
 * final norm 7168: 1,030,919,680); V3's 671,026,419,200 (modeldb) +
 * 851,524,864 = 671,877,944,064. The cache a token: MLA's 576
 * values a layer (1,152 B in bf16) and the indexer's 128 fp8 + a 4 B scale:
 * 61 x 1,284 = 78,324 B. Decode attention at 32,768 cached tokens: the
 * absorbed MLA pair (2 x 128 x 576 + 2 x 128 x 512 = 278,528 FLOP) over
 * the top 2,048, and the indexer's 2 x 64 x 128 = 16,384 over all 32,768:
 * 61 x (2048 x 278528 + 32768 x 16384) = 67,545,071,616. A prefill span is
 * checked against a loop over positions. */
START_TEST(test_deepseek_v32)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/deepseek-v3.2-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert(st.mla);
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED], UINT64_C(1030919680) + 61 * UINT64_C(13959424));
    ck_assert_uint_eq(st.params_total, UINT64_C(671877944064));
    ck_assert_uint_eq(st.sparse_topk, 2048);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&st, 16), 78324);
    ck_assert_double_eq_tol(ic_model_attn_flop(&st, 32768), 67545071616.0, 1);
    /* below the top-k a query attends to every token, as dense MLA */
    ck_assert_double_eq_tol(ic_model_attn_flop(&st, 1000),
                            61.0 * 1000 * (278528 + 16384), 1e-3);
    /* prefill of 3000 tokens after 1000: position j attends min(j, 2048)
     * tokens at the plain MLA pair (2 x 128 x 192 + 2 x 128 x 128 =
     * 81,920 FLOP), the indexer all j */
    double naive = 0;
    for (double j = 1001; j <= 4000; j++)
        naive += 61 * (81920.0 * (j < 2048 ? j : 2048) + 16384.0 * j);
    ck_assert_double_eq_tol(ic_model_prefill_attn_flop(&st, 1000, 3000) / naive, 1, 1e-12);
    /* the three keys go together, on MLA with a q_lora_rank */
    M->locs[IC_MF_INDEX_DIM].line = 0;
    ck_assert_int_eq(ic_model_derive(M, &st, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "'index_head_dim' is missing"));
    M->locs[IC_MF_INDEX_DIM].line = 1;
    M->q_lora_rank = 0;
    ck_assert_int_eq(ic_model_derive(M, &st, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "needs MLA with a q_lora_rank"));
    /* AWQ lists write a whole layer "model.layers.0." (a substring of its
     * modules' names): the three dense layers named keep the dense MLP
     * group (every layer that has it), the others said partial */
    ck_assert_int_eq(
        ic_model_load(IC_TEST_DIR "/fixtures/deepseek-v3.2-awq-dense-kept-config.json", M, &e), 0);
    ck_assert_uint_eq(M->keep_groups >> IC_PG_MLP & 1, 1);
    ck_assert_uint_eq(M->keep_other, 0);
}
END_TEST

/* Qwen3-Next-80B-A3B (model_type qwen3_next, its config.json as shipped):
 * 36 Gated DeltaNet layers and 12 gated softmax attention layers (every
 * 4th, from full_attention_interval), an MoE of 512 experts after each.
 * D 2048, V 151936 untied, H 16, KV 2, head_dim 256; nk 16, nv 32, dk = dv =
 * 128, conv kernel 4; experts and shared expert 512 wide. */
START_TEST(test_qwen3_next)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/qwen3-next-80b-a3b-config.json", M, &e),
                     0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.n_state_layers, 36);
    ck_assert_uint_eq(st.n_global_layers, 12);
    ck_assert_uint_eq(st.n_window_layers, 0);
    /* full layer: q 2048 x 2 x 16 x 256 (the output gate doubles it) =
     * 16,777,216, o 4096 x 2048 = 8,388,608: 25,165,824 x 12 = 301,989,888;
     * linear layer: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096) = 25,165,824,
     * in_proj_ba 2048 x 64 = 131,072, conv1d 8192 x 4 = 32,768, dt_bias and
     * A_log 64, out_proj 4096 x 2048 = 8,388,608: 33,718,336 x 36 =
     * 1,213,860,096 */
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS], UINT64_C(301989888) + 1213860096);
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_KV], UINT64_C(12) * 2 * 2048 * 512);
    /* norms 48 x 2 x 2048 + 2048, routers and shared-expert gates 48 x 2048 x
     * 513, gated norms 36 x 128, q/k norms 12 x 2 x 256 */
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED],
                      UINT64_C(196608) + 2048 + 50429952 + 4608 + 6144);
    ck_assert_uint_eq(st.group_ways[IC_PG_ATTN_HEADS], 16);
    /* 79,674,391,296: Qwen/Qwen3-Coder-Next's safetensors total, the same
     * shape (its 74,391 bf16 tensors, no MTP module) */
    ck_assert_uint_eq(st.params_total, UINT64_C(79674391296));
    /* state a sequence a layer: 32 x 128 x 128 at 2 B (no mamba_ssm_dtype:
     * bf16) = 1,048,576 and the conv's 3 x 8192 inputs at 2 B = 49,152 */
    ck_assert_double_eq(st.state_bytes_per_layer, 1097728.0);
    ck_assert_double_eq(ic_model_state_bytes(&st), 36.0 * 1097728.0);
    /* 7 x 32 x 128 x 128 = 3,670,016 and 2 x 4 x 8192 = 65,536 a token */
    ck_assert_uint_eq(st.state_flop_per_token_layer, 3735552u);
    /* the cache is the 12 full layers' alone: 12 x 2 x 2 x 256 x 2 B */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&st, 16), 24576u);
    ck_assert_uint_eq(ic_model_kv_token_layers(&st, 1000), 12000u);
    /* one token at context 1000: 4 x 16 x 256 a cached token in 12 layers,
     * and 36 state updates whatever the context */
    ck_assert_double_eq_tol(ic_model_attn_flop(&st, 1000),
                            16384.0 * 12 * 1000 + 36.0 * 3735552, 1e-3);
    /* a prefill of 500 after 100: sum of j over 101..600 in 12 layers and
     * 500 state updates in 36 */
    double naive = 0;
    for (double j = 101; j <= 600; j++)
        naive += 16384.0 * 12 * j + 36.0 * 3735552;
    ck_assert_double_eq_tol(ic_model_prefill_attn_flop(&st, 100, 500) / naive, 1, 1e-12);
    /* the FP8 checkpoint's list (a model-info dump of
     * Qwen3-Next-80B-A3B-Instruct-FP8) keeps each Gated DeltaNet layer's
     * in_proj_ba, conv1d, A_log, dt_bias and norm, the gates and norms, and
     * its MTP module's parts at bf16: the small parts are not modelled, so
     * the embedding and head alone are kept, no group is partial, and the
     * 10 mtp.* entries name none of the text model's */
    struct ic_model_stats q;
    ck_assert_int_eq(
        ic_model_load(IC_TEST_DIR "/fixtures/qwen3-next-80b-a3b-fp8-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &q, &e), 0);
    ck_assert_int_eq(q.quant_type, IC_DT_FP8);
    ck_assert_uint_eq(q.keep_groups, 1u << IC_PG_EMBED | 1u << IC_PG_HEAD);
    ck_assert_uint_eq(M->keep_partial, 0);
    ck_assert_uint_eq(M->keep_other, 10);
    /* the modeldb entry reads the same */
    ic_test_live_model("qwen3-next-80b-a3b", M, &S);
    ck_assert_uint_eq(S.params_total, st.params_total);
    ck_assert_uint_eq(S.n_state_layers, 36);
}
END_TEST

/* Qwen3.5 (model_types qwen3_5 / qwen3_5_moe, the text model in
 * text_config beside a vision encoder): layer_types list the linear
 * layers, attn_output_gate is given, mamba_ssm_dtype float32 keeps the
 * recurrent state at 4 B. The published safetensors totals count the
 * vision encoder and the MTP module too: 35B-A3B 35,951,822,704 - MTP
 * 844,640,768 - vision 446,571,248 = 34,660,610,688; 27B 27,781,427,952 -
 * 424,699,392 - 460,730,096 = 26,895,998,464 (the two parts' sizes summed
 * from their tensors' shapes; notes to issue 13). */
START_TEST(test_qwen3_5)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/qwen3.5-35b-a3b-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(34660610688));
    ck_assert_uint_eq(st.n_state_layers, 30);
    ck_assert_uint_eq(st.n_global_layers, 10);
    /* 32 x 128 x 128 x 4 B + 3 x 8192 x 2 B; no intermediate_size, no dense layer */
    ck_assert_double_eq(st.state_bytes_per_layer, 2097152.0 + 49152.0);
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], 0);
    ck_assert_ptr_nonnull(strstr(M->tower, "vision_config"));
    ic_test_fixture_stats("qwen3.5-27b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(26895998464));
    /* 48 x 128 x 128 x 4 B + 3 x (2 x 2048 + 6144) x 2 B */
    ck_assert_double_eq(st.state_bytes_per_layer, 3145728.0 + 61440.0);
    /* 24 query heads, 16 linear key heads: the smaller splits the group */
    ck_assert_uint_eq(st.group_ways[IC_PG_ATTN_HEADS], 16);
}
END_TEST

/* q/k norms (a head_dim RMSNorm on q and on k in every layer) and Qwen3-VL's
 * text models. By hand, Qwen3-8B (D 4096, 36 layers, 32 x 128 query heads
 * over 8 KV heads, F 12288, vocab 151936, untied): embedding and head 2 x
 * 151936 x 4096 = 1,244,659,712; a layer q, o 2 x 4096 x 4096 + k, v 2 x
 * 4096 x 1024 + MLP 3 x 4096 x 12288 + norms 2 x 4096 + q/k norms 2 x 128 =
 * 192,946,432, x 36 = 6,946,071,552; final norm 4096: 8,190,735,360, the
 * safetensors total of Qwen/Qwen3-8B (8,190,726,144 before the q/k norms,
 * 36 x 256 short). Gemma 3 1B (D 1152, 26 layers, 4 x 256 over 1 KV head,
 * F 6912, vocab 262144, tied, four norms a layer): 262144 x 1152 =
 * 301,989,888; a layer 2 x 1152 x 1024 + 2 x 1152 x 256 + 3 x 1152 x 6912 +
 * 4 x 1152 + 2 x 256 = 26,842,112, x 26 = 697,894,912; + 1152:
 * 999,885,952, google/gemma-3-1b-it's total. Qwen3-VL's published totals
 * hold a vision tower infcalc does not count, which by transformers'
 * Qwen3VLVisionModel is: patch embedding 3 x 2 x 16 x 16 x h + h, position
 * embedding 2304 x h, depth blocks of two LayerNorms (4h), qkv 3h^2 + 3h,
 * proj h^2 + h, fc1 h i + i, fc2 i h + h; a merger LayerNorm(h) + (4h)^2 +
 * 4h + 4h o + o and three deepstack mergers with LayerNorm(4h) (h the
 * tower's width, i its MLP's, o the text model's D). Qwen3-VL-8B (h 1152,
 * i 4304, depth 27, o 4096): 1,770,624 + 2,654,208 + 27 x 15,239,504 +
 * 40,119,040 + 3 x 40,125,952 = 576,388,336; its published 8,767,123,696
 * less that is 8,190,735,360, Qwen3-8B's shape. Qwen3-VL-30B-A3B (o
 * 2048): 1,770,624 + 2,654,208 + 411,466,608 + 30,679,808 + 3 x 30,686,720
 * = 538,631,408; 31,070,754,032 less it: 30,532,122,624, Qwen3-30B-A3B's
 * total. Qwen3-VL-2B (h 1024, i 4096, depth 24, o 2048, tied): 1,573,888 +
 * 2,359,296 + 24 x 12,596,224 + 25,174,016 + 3 x 25,180,160 = 406,957,056;
 * 2,127,532,032 less it: 1,720,574,976. OLMoE-1B-7B's q_norm is over all
 * 16 x 128 query values and its k_norm over the 16 KV heads' (OlmoeAttention):
 * a layer 4 x 2048 x 2048 + 64 experts x 3 x 2048 x 1024 + router 64 x 2048
 * + norms 2 x 2048 + q/k norms 2 x 2048 = 419,569,664, x 16 = 6,713,114,624;
 * + 2 x 50304 x 2048 + 2048: 6,919,161,856, the checkpoint's total. */
START_TEST(test_qk_norms_and_qwen3_vl)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("qwen3-8b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8190735360));
    /* norms: 36 x (2 x 4096 + 2 x 128) + 4096 */
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED], UINT64_C(36) * 8448 + 4096);
    ic_test_fixture_stats("gemma-3-1b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(999885952));
    ck_assert_uint_eq(st.n_global_layers, 4);
    ic_test_fixture_stats("qwen3-vl-8b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8767123696) - UINT64_C(576388336));
    ck_assert(!st.embed_tied);
    ic_test_fixture_stats("qwen3-vl-30b-a3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(31070754032) - UINT64_C(538631408));
    ck_assert_uint_eq(st.n_experts, 128);
    ck_assert_uint_eq(st.top_k, 8);
    ck_assert_uint_eq(st.n_moe_layers, 48);
    ic_test_fixture_stats("qwen3-vl-2b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(2127532032) - UINT64_C(406957056));
    ck_assert(st.embed_tied);
    /* mrope leaves the context at max_position_embeddings */
    ck_assert_uint_eq(st.max_context, 262144);
    ic_test_fixture_stats("olmoe-1b-7b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(6919161856));
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED],
                      UINT64_C(16) * (64 * 2048 + 4 * 2048) + 2048);
}
END_TEST

/* Llama-shaped decoders with their own norms and biases, each against its
 * checkpoint's published total. OLMo 2 7B (olmo2: q_norm and k_norm over
 * all heads, two norms a layer after the attention and the MLP): a layer
 * 4 x 4096^2 + (4096 + 4096) + 3 x 4096 x 11008 + 2 x 4096 = 202,391,552,
 * x 32 + 2 x 100352 x 4096 + 4096 = 7,298,617,344. OLMo 3 32B (olmo3, the
 * same layer, GQA 40 x 128 over 8, three sliding layers of 4096 to one
 * full): a layer 2 x 5120^2 + 2 x 5120 x 1024 + (5120 + 1024) + 3 x 5120 x
 * 27648 + 2 x 5120 = 487,604,224, x 64 + 2 x 100278 x 5120 + 5120 =
 * 32,233,522,176. SmolLM3-3B (smollm3, tied, NoPE layers costing nothing):
 * a layer 2 x 2048^2 + 2 x 2048 x 512 + 3 x 2048 x 11008 + 2 x 2048 =
 * 78,123,008, x 36 + 128256 x 2048 + 2048 = 3,075,098,624. Seed-OSS-36B
 * (seed_oss: q/k/v biases from attention_bias, none on o as
 * attention_out_bias says; 80 x 128 query heads over 8): a layer 5120 x
 * 10240 + 10240 + 2 x (5120 x 1024 + 1024) + 10240 x 5120 + 3 x 5120 x
 * 27648 + 2 x 5120 = 540,039,168, x 64 + 2 x 155136 x 5120 + 5120 =
 * 36,151,104,512. Granite 3.3 8B (granite: a Llama with scalar
 * multipliers, tied): a layer 2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x
 * 12800 + 2 x 4096 = 199,237,632, x 40 + 49159 x 4096 + 4096 =
 * 8,170,864,640. Ministral 3 3B's text model (ministral3 in a mistral3
 * wrapper, a Mistral: 32 x 128 query heads over 8, tied; its Pixtral
 * tower not counted): a layer 2 x 3072 x 4096 + 2 x 3072 x 1024 + 3 x
 * 3072 x 9216 + 2 x 3072 = 116,398,080, x 26 + 131072 x 3072 + 3072 =
 * 3,429,006,336 (by hand only: the published totals count the tower).
 * Aya Expanse 8B (cohere: attention and MLP side by side after one norm,
 * tied without the key): a layer 2 x 4096^2 + 2 x 4096 x 1024 + 3 x 4096 x
 * 14336 + 4096 = 218,107,904, x 32 + 256000 x 4096 + 4096 = 8,028,033,024,
 * its checkpoint's total; Command R+'s use_qk_norm adds a LayerNorm of
 * head_dim a query and KV head, 32 x (32 + 8) x 128 = 163,840. Command R7B
 * (cohere2, the same sizes, three sliding layers of 4096 to one full):
 * 8,028,033,024 by the same sums. GLM-4-9B-0414 (glm4: four norms a layer,
 * q/k/v biases, none on o; 32 x 128 query heads over 2): a layer 4096 x
 * 4096 + 4096 + 2 x (4096 x 256 + 256) + 4096 x 4096 + 3 x 4096 x 13696 +
 * 4 x 4096 = 203,969,024, x 40 + 2 x 151552 x 4096 + 4096 = 9,400,279,040,
 * the parameter count of a GGUF of GLM-4.6V-Flash's language model, the
 * same shape. EXAONE 4.0 32B (exaone4: q/k norms of head_dim, its norms
 * after the attention and the MLP; 40 x 128 over 8; "LLLG"): a layer 2 x
 * 5120^2 + 2 x 5120 x 1024 + 3 x 5120 x 27392 + 2 x 5120 + 2 x 128 =
 * 483,666,176, x 64 + 2 x 102400 x 5120 + 5120 = 32,003,216,384 (by hand;
 * no published total was found), 48 of 64 layers sliding; "GLL" slides
 * all but layers 0, 3 ... 63, 42 (a pattern of 3 would leave 43). The 1.2B
 * (tied, no sliding_window beside its pattern: every layer global): a
 * layer 2 x 2048^2 + 2 x 2048 x 512 + 3 x 2048 x 4096 + 2 x 2048 + 2 x 64 =
 * 35,655,808, x 30 + 102400 x 2048 + 2048 = 1,279,391,488; with a window
 * and "LLLG" its 30 layers slide but for 3, 7 ... 27 and the last, 29
 * (EXAONE's last layer is global whatever its letter): 22. A Gemma 3
 * wrapper's letters under its text_config's number (3): the number's 8
 * of 12. Phi-3.5-MoE (phimoe: LayerNorms with biases, q/k/v/o biases, a
 * bias on the LM head, 16 experts of 6400, top-2): a layer 2 x (4096^2 +
 * 4096) + 2 x (4096 x 1024 + 1024) + 16 x 3 x 4096 x 6400 + 16 x 4096 + 2 x
 * 2 x 4096 = 1,300,326,400, x 32 + 2 x 32064 x 4096 + 32064 + 2 x 4096 =
 * 41,873,153,344, the total published for it (r/LocalLLaMA's comparison of
 * Phi-3.5-mini, 3,821,079,552, and -MoE). */
START_TEST(test_llama_like_families)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("olmo-2-7b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(7298617344));
    ic_test_fixture_stats("olmo-3-32b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(32233522176));
    ck_assert_uint_eq(st.n_window_layers, 48);
    ck_assert_uint_eq(st.window, 4096);
    /* yarn's factor 8 over 8192 */
    ck_assert_uint_eq(st.max_context, 65536);
    ic_test_fixture_stats("smollm3-3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(3075098624));
    ck_assert_uint_eq(st.n_window_layers, 0);
    ic_test_fixture_stats("seed-oss-36b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(36151104512));
    /* q and o: 64 x (2 x 5120 x 10240 + 10240) */
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS], UINT64_C(64) * (104857600 + 10240));
    ic_test_fixture_stats("granite-3.3-8b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8170864640));
    ck_assert(st.embed_tied);
    /* Granite 3.1 1B-A400M (granitemoe; its config's values as copied in
     * the code corpus, vocab 49155 as a test loading the checkpoint asserts):
     * a layer's attention 1024 x (1024 + 2 x 512 + 1024) = 3,145,728, 32
     * experts of 3 x 1024 x 512 = 50,331,648, the router 32 x 1024 and two
     * norms: 53,512,192; x 24 = 1,284,292,608, the tied embedding 49155 x
     * 1024 = 50,334,720 and the final norm: 1,334,628,352, the count that
     * test asserts of the loaded checkpoint */
    ic_test_fixture_stats("granite-3.1-1b-a400m-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(1334628352));
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(24) * 50331648);
    ck_assert_uint_eq(st.n_experts, 32);
    ck_assert_uint_eq(st.top_k, 8);
    ic_test_fixture_stats("ministral-3-3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(3429006336));
    struct ic_err e = {0};
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/ministral-3-3b-config.json", M, &e), 0);
    ck_assert_ptr_nonnull(strstr(M->tower, "vision_config"));
    ic_test_fixture_stats("aya-expanse-8b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8028033024));
    ck_assert(st.embed_tied);
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/aya-expanse-8b-config.json", M, &e), 0);
    M->use_qk_norm = true;
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(8028033024) + 163840);
    ic_test_fixture_stats("exaone-4.0-32b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(32003216384));
    ck_assert_uint_eq(st.n_window_layers, 48);
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/exaone-4.0-32b-config.json", M, &e), 0);
    snprintf(M->sliding_letters, sizeof M->sliding_letters, "GLL");
    M->sliding_window_pattern = 3;
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.n_window_layers, 42);
    ic_test_fixture_stats("exaone-4.0-1.2b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(1279391488));
    ck_assert_uint_eq(st.n_window_layers, 0);
    ic_test_fixture_stats("exaone-4.0-1.2b-sliding-config.json", &st);
    ck_assert_uint_eq(st.n_window_layers, 22);
    ic_test_fixture_stats("gemma3-wrapper-pattern-config.json", &st);
    ck_assert_uint_eq(st.n_window_layers, 8);
    ic_test_fixture_stats("phi-3.5-moe-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(41873153344));
    ck_assert_uint_eq(st.group_params[IC_PG_HEAD], UINT64_C(32064) * 4096 + 32064);
    ic_test_fixture_stats("glm-4-9b-0414-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(9400279040));
    ic_test_fixture_stats("command-r7b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8028033024));
    ck_assert_uint_eq(st.n_window_layers, 24);
}
END_TEST

/* NVIDIA Nemotron-H (nemotron_h): blocks of one mixer or one MLP, each
 * behind its own RMSNorm (hybrid_override_pattern: M Mamba2, * attention,
 * - a squared-ReLU MLP of up and down, E an MoE of such experts with a
 * shared one and a router with its correction bias); a layer here is a
 * mixer block. Nemotron 3 Nano 30B-A3B (52 blocks: 23 M, 6 *, 23 E; D
 * 2688; Mamba2 64 heads of 64, 8 groups, d_state 128, conv 4 with a bias;
 * 32 x 128 query heads over 2; 128 experts of 1856, top-6, a shared one of
 * 3712; vocab 131072, untied). By hand:
 *   Mamba2 block  in_proj 2688 x (2 x 4096 + 2 x 8 x 128 + 64) = 27,697,152,
 *                 conv (4096 + 2048) x (4 + 1) = 30,720, dt_bias / A_log /
 *                 D 192, gated norm 4096, out_proj 4096 x 2688 =
 *                 11,010,048: 38,742,208, x 23 = 891,070,784
 *   attention     q, o 2 x 2688 x 4096 = 22,020,096 (x 6 = 132,120,576),
 *                 k, v 2 x 2688 x 256 = 1,376,256 (x 6 = 8,257,536)
 *   MoE block     router 128 x 2688 + 128 = 344,192; experts 128 x 2 x
 *                 2688 x 1856 = 1,277,165,568; shared 2 x 2688 x 3712 =
 *                 19,955,712; x 23
 *   norms         52 x 2688 + 2688 = 142,464
 *   embed, head   2 x 131072 x 2688 = 704,643,072
 * 31,577,940,288, the checkpoint's parameter count (its GGUF's). State:
 * 64 x 64 x 128 at mamba_ssm_cache_dtype float32 = 2,097,152 B and 3 x
 * 6144 x 2 B = 36,864; 5 x 64 x 64 x 128 + 2 x 4 x 6144 = 2,670,592 FLOP a
 * token. NVIDIA-Nemotron-Nano-9B-v2 (56 blocks: 27 M, 4 *, 25 -; D 4480,
 * Mamba2 128 heads of 80, 8 groups; 40 x 128 over 8; MLP 15680): a
 * Mamba2 block 4480 x 22656 + 12288 x 5 + 384 + 10240 + 10240 x 4480 =
 * 147,446,144, attention 2 x 4480 x 5120 + 2 x 4480 x 1024 = 55,050,240,
 * an MLP 2 x 4480 x 15680 = 140,492,800; 27 x 147,446,144 + 4 x
 * 55,050,240 + 25 x 140,492,800 + 57 x 4480 + 2 x 131072 x 4480 =
 * 8,888,227,328, its published total. The same with layers_block_type's
 * words and attention_head_dim (older configs' keys; D / H would be 112),
 * and with transformers' current words (linear_attention, full_attention)
 * and no num_hidden_layers, and with NemotronHConfig's legacy names
 * (mamba_n_groups, mamba_d_conv, mamba_conv_bias). Without n_shared_experts' one shared expert
 * (n_shared_experts 0) Nemotron 3 Nano is 23 x 19,955,712 smaller. */
START_TEST(test_nemotron_h)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("nemotron-3-nano-30b-a3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(31577940288));
    ck_assert_uint_eq(st.n_layers, 29);
    ck_assert_uint_eq(st.n_state_layers, 23);
    ck_assert_uint_eq(st.n_global_layers, 6);
    ck_assert_uint_eq(st.n_moe_layers, 23);
    ck_assert(st.state_mamba);
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS],
                      UINT64_C(891070784) + UINT64_C(132120576));
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(23) * 1277165568);
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(23) * 19955712);
    ck_assert_uint_eq(st.group_params[IC_PG_REPLICATED], UINT64_C(23) * 344192 + 142464);
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], 0);
    ck_assert_double_eq(st.state_bytes_per_layer, 2097152.0 + 36864.0);
    ck_assert_uint_eq(st.state_flop_per_token_layer, 2670592u);
    /* 6 layers x 2 x 2 x 128 x 2 B */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&st, 16), 6144u);
    /* the same model under each spelling of its keys */
    static const char *const nano9b[] = {
        "nemotron-nano-9b-v2-config.json", "nemotron-nano-9b-v2-block-words-config.json",
        "nemotron-nano-9b-v2-new-words-config.json",
        "nemotron-nano-9b-v2-legacy-keys-config.json"};
    for (size_t i = 0; i < sizeof nano9b / sizeof nano9b[0]; i++) {
        ic_test_fixture_stats(nano9b[i], &st);
        ck_assert_uint_eq(st.params_total, UINT64_C(8888227328));
        ck_assert_uint_eq(st.n_layers, 31);
        ck_assert_uint_eq(st.n_state_layers, 27);
        ck_assert_uint_eq(st.group_params[IC_PG_MLP], UINT64_C(25) * 140492800);
        ck_assert_uint_eq(st.n_experts, 0);
    }
    struct ic_err e = {0};
    ck_assert_int_eq(
        ic_model_load(IC_TEST_DIR "/fixtures/nemotron-3-nano-30b-a3b-config.json", M, &e), 0);
    M->n_shared_experts = 0;
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(31577940288) - UINT64_C(23) * 19955712);
}
END_TEST

/* IBM Granite 4.0-H (model_type granitemoehybrid): Mamba2 layers beside
 * four attention layers (5, 15, 25, 35 of 40; layer_types mamba /
 * attention), routed experts of intermediate_size and a shared MLP of
 * shared_intermediate_size in every layer (the whole MLP without experts),
 * tied embeddings. H-Small: D 4096, 128 Mamba heads of 64 (d_inner 8192),
 * d_state 128, 1 group, conv 4 with a bias; conv_dim 8192 + 256 = 8448.
 * A Mamba2 layer: in_proj 4096 x (8192 + 8448 + 128) = 68,681,728, conv1d
 * 8448 x 5 = 42,240, dt_bias / A_log / D 384, norm 8192, out_proj 8192 x
 * 4096 = 33,554,432: 102,286,976. The totals are the GGUF parameter counts
 * of IBM's H-Small (32,207,337,984) and H-Micro (3,191,396,096) uploads;
 * H-Tiny's is the same count by tensors (Ollama lists 6.94B). */
START_TEST(test_granite_hybrid)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("granite-4.0-h-small-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(32207337984));
    ck_assert(st.state_mamba);
    ck_assert_uint_eq(st.n_state_layers, 36);
    ck_assert_uint_eq(st.n_global_layers, 4);
    /* 4 attention layers: q, o 2 x 4096 x 4096 = 33,554,432 each */
    ck_assert_uint_eq(st.group_params[IC_PG_ATTN_HEADS],
                      UINT64_C(4) * 33554432 + UINT64_C(36) * 102286976);
    /* shared MLP 3 x 4096 x 1536 a layer */
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(40) * 3 * 4096 * 1536);
    /* state: 128 x 64 x 128 at 2 B = 2,097,152 and 3 x 8448 at 2 B = 50,688;
     * 5 x 128 x 64 x 128 + 2 x 4 x 8448 = 5,310,464 FLOP a token */
    ck_assert_double_eq(st.state_bytes_per_layer, 2147840.0);
    ck_assert_uint_eq(st.state_flop_per_token_layer, 5310464u);
    /* 4 layers x 2 x 8 x 128 x 2 B */
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&st, 16), 16384u);
    ic_test_fixture_stats("granite-4.0-h-tiny-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(6939037248));
    /* without shared_intermediate_size, GraniteMoeHybridConfig's 1024,
     * H-Tiny's own: the same count */
    ic_test_fixture_stats("granite-4.0-h-tiny-default-shared-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(6939037248));
    ic_test_fixture_stats("granite-4.0-h-micro-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(3191396096));
    /* no experts: the shared MLP (8192 wide) is the dense MLP */
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], UINT64_C(40) * 3 * 2048 * 8192);
    ck_assert_uint_eq(st.n_experts, 0);
}
END_TEST

/* Llama 4 (a llama4 wrapper, its llama4_text model): 48 layers of D 5120,
 * 40 x 128 query heads over 8 KV heads, vocab 202048, untied; every MoE
 * layer a router, top-1 of E experts of 8192 and one shared expert of
 * 8192; Scout MoE in every layer (interleave_moe_layer_step 1, E 16),
 * Maverick in every second (layers 1, 3 ... 47; E 128), its other 24 layers
 * dense MLPs of intermediate_size_mlp 16384. Meta's cards: Scout "17B
 * active, 109B total", Maverick "17B active, 400B total" (with the vision
 * encoder, not counted here). By hand:
 *   embedding, head  2 x 202048 x 5120                    =   2,068,971,520
 *   attention        48 x (2 x 5120 x 5120 + 2 x 5120 x 1024) = 3,019,898,880
 *   an expert        3 x 5120 x 8192                      =     125,829,120
 *   Scout: norms and routers 48 x 2 x 5120 + 5120 + 48 x 5120 x 16 =
 *   4,428,800; shared 48 x 125,829,120 = 6,039,797,760; routed 48 x 16 x
 *   125,829,120 = 96,636,764,160: 107,769,861,120 (-1.1% from 109B);
 *   active: all but the embedding and 15 of 16 experts, 16,138,408,960
 *   (17.17B with the embedding).
 *   Maverick: routers 24 x 5120 x 128 (+ norms) = 16,225,280; shared 24 x
 *   125,829,120; routed 24 x 128 x 125,829,120 = 386,547,056,640; dense
 *   24 x 3 x 5120 x 16384 = 6,039,797,760: 400,711,848,960 (+0.2%);
 *   active 16,150,205,440.
 * Chunked attention (attention_chunk_size 8192) on the RoPE layers, all but
 * every fourth (Llama4TextConfig's no_rope_layer_interval 4): 36 of 48. A
 * chunked layer holds at most its chunk, 8,192 (what a batch needs room
 * for as it fills), and a decode token at 100,000 reads its current
 * chunk's (100000 - 1) % 8192 + 1 = 1,696; a prefill of 3,000 after 7,000
 * reads from its first token's chunk start, 7000 % 8192 + 3000 = 10,000
 * tokens. A prefill span's FLOPs are checked against a loop over
 * positions. moe_layers, where given, names the MoE layers (an explicit
 * list of all 48 is Scout's step of 1), and an empty no_rope_layers is the
 * default, as transformers reads them. */
START_TEST(test_llama4)
{
    struct ic_err e = {0};
    struct ic_model_stats st;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama4-scout-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(6039797760));
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], 0);
    ck_assert_uint_eq(st.params_total, UINT64_C(107769861120));
    ck_assert_uint_eq(st.params_active, UINT64_C(16138408960));
    ck_assert_uint_eq(st.n_window_layers, 36);
    ck_assert_uint_eq(st.window, 8192);
    ck_assert(st.chunked);
    ck_assert_uint_eq(ic_model_kv_token_layers(&st, 100000), 12 * 100000 + 36 * 8192);
    ck_assert_uint_eq(ic_model_kv_token_layers(&st, 4000), 48 * 4000);
    ck_assert_uint_eq(ic_model_window_read_tokens(&st, 100000, 1), 1696);
    ck_assert_uint_eq(ic_model_window_read_tokens(&st, 8193, 1), 1);
    ck_assert_uint_eq(ic_model_window_read_tokens(&st, 10000, 3000), 10000);
    ck_assert_uint_eq(ic_model_window_read_tokens(&st, 20000, 3000), 17000 % 8192 + 3000);
    double naive = 0;
    for (double j = 5001; j <= 20000; j++)
        naive += 12 * j + 36 * (fmod(j - 1, 8192) + 1);
    ck_assert_double_eq_tol(ic_model_prefill_attn_flop(&st, 5000, 15000) /
                                ((double)st.prefill_attn_flop_per_ctx_token_layer * naive),
                            1, 1e-12);
    ck_assert_ptr_nonnull(strstr(M->tower, "vision_config"));
    struct ic_model_stats lists;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama4-scout-lists-config.json", M, &e),
                     0);
    ck_assert_int_eq(ic_model_derive(M, &lists, &e), 0);
    ck_assert_uint_eq(lists.params_total, st.params_total);
    ck_assert_uint_eq(lists.n_moe_layers, 48);
    ck_assert_uint_eq(lists.n_window_layers, 36);
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama4-maverick-config.json", M, &e),
                     0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.n_moe_layers, 24);
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], UINT64_C(6039797760));
    ck_assert_uint_eq(st.group_ways[IC_PG_MLP], 16384);
    ck_assert_uint_eq(st.params_total, UINT64_C(400711848960));
    ck_assert_uint_eq(st.params_active, UINT64_C(16150205440));
    /* without intermediate_size_mlp and attention_chunk_size, Llama4TextConfig's
     * defaults (16384, 8192): the same counts and chunks */
    ck_assert_int_eq(
        ic_model_load(IC_TEST_DIR "/fixtures/llama4-maverick-defaults-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &lists, &e), 0);
    ck_assert_uint_eq(lists.params_total, UINT64_C(400711848960));
    ck_assert_uint_eq(lists.window, 8192);
    ck_assert_uint_eq(lists.n_window_layers, 36);
    /* Llama 4 calls its MLP feed_forward: a list naming the 24 dense
     * layers' (0, 2 ... 46) keeps the dense MLP group whole */
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/llama4-maverick-fp8-dense-kept-config.json",
                                   M, &e),
                     0);
    ck_assert_int_eq(ic_model_derive(M, &st, &e), 0);
    ck_assert_uint_eq(st.keep_groups >> IC_PG_MLP & 1, 1);
    ck_assert_uint_eq(st.keep_groups >> IC_PG_EXPERTS & 1, 0);
    ck_assert_uint_eq(M->keep_other, 0);
}
END_TEST

START_TEST(test_mqa)
{
    /* one KV head: 2 * 32 layers * 1 * 128 * 2 B = 16,384 B per token */
    struct ic_err e = {0};
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/mqa.yaml", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &S, &e), 0);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&S, 16), 16384u);
    ck_assert_uint_eq(S.kv_ways, 1);
    /* k and v projections: 32 * 2 * 4096 * 128 */
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_KV], UINT64_C(32) * 2 * 4096 * 128);
}
END_TEST

START_TEST(test_gemma2_config_json)
{
    /* Google's gemma-2-9b config.json states neither tie_word_embeddings nor
     * the alternation; HF's defaults (tied) and Gemma-2's code (even layers
     * slide) must give the same counts as the modeldb entry: 9,241,705,984. */
    struct ic_err e = {0};
    struct ic_model_stats js;
    ck_assert_int_eq(ic_model_load(IC_TEST_DIR "/fixtures/gemma-2-9b-config.json", M, &e), 0);
    ck_assert_int_eq(ic_model_derive(M, &js, &e), 0);
    ck_assert_uint_eq(js.params_total, 9241705984u);
    ck_assert_uint_eq(js.n_window_layers, 21);
    ck_assert(js.embed_tied);
}
END_TEST

/* A config.json that leaves sliding_window out takes its config class's
 * default (4096 for Gemma 2 and 3, Cohere 2, EXAONE 4, OLMo 3 and Mistral);
 * a null is None: no window. */

#define SHAPE "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_attention_heads\": 4, " \
              "\"num_key_value_heads\": 2, \"head_dim\": 64, \"vocab_size\": 1000"

START_TEST(test_window_defaults)
{
    struct ic_model_stats st;
    /* Gemma 2, 4 layers, no key: the even layers 0 and 2 slide over 4096 */
    derive_text("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 4, " SHAPE "}", &st);
    ck_assert_uint_eq(st.n_window_layers, 2);
    ck_assert_uint_eq(st.window, 4096);
    ck_assert(st.window_default);
    /* 2 x 2 KV heads x 64 = 256 values a layer a token: at 8192 tokens two
     * layers hold 8192 and two 4096, (2 x 8192 + 2 x 4096) x 256 */
    ck_assert_uint_eq(ic_model_kv_values(&st, 8192), (UINT64_C(2) * 8192 + 2 * 4096) * 256);
    /* null: None, every layer global */
    derive_text("{\"model_type\": \"gemma2\", \"num_hidden_layers\": 4, "
                "\"sliding_window\": null, " SHAPE "}",
                &st);
    ck_assert_uint_eq(st.n_window_layers, 0);
    ck_assert(!st.window_default);
    /* Mistral: every layer; a window given is the config's own */
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, " SHAPE "}", &st);
    ck_assert_uint_eq(st.n_window_layers, 4);
    ck_assert_uint_eq(st.window, 4096);
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, "
                "\"sliding_window\": 8192, " SHAPE "}",
                &st);
    ck_assert_uint_eq(st.window, 8192);
    ck_assert(!st.window_default);
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, "
                "\"sliding_window\": null, " SHAPE "}",
                &st);
    ck_assert_uint_eq(st.n_window_layers, 0);
    /* OLMo 3 without layer_types: three in four slide (Olmo3Config fills
     * them in), layers 3 and 7 of 8 global */
    derive_text("{\"model_type\": \"olmo3\", \"num_hidden_layers\": 8, \"sliding_window\": 4096, "
                SHAPE "}",
                &st);
    ck_assert_uint_eq(st.n_window_layers, 6);
    ck_assert_uint_eq(st.n_global_layers, 2);
    /* a Gemma 3 wrapper whose text_config leaves the key out: Gemma3TextConfig's
     * 4096 and its five sliding layers to one global, 10 of 12 */
    derive_text("{\"model_type\": \"gemma3\", \"text_config\": {\"model_type\": \"gemma3_text\", "
                "\"num_hidden_layers\": 12, " SHAPE "}}",
                &st);
    ck_assert_uint_eq(st.n_window_layers, 10);
    ck_assert_uint_eq(st.window, 4096);
    /* Llama has no window, key or not */
    derive_text("{\"model_type\": \"llama\", \"num_hidden_layers\": 4, " SHAPE "}", &st);
    ck_assert_uint_eq(st.n_window_layers, 0);
}
END_TEST

/* ERNIE 4.5. The 0.3B (its config.json as first published): q 1024 x
 * 16 x 128 = 2,097,152, k and v 1024 x 2 x 128 = 262,144 each, o 2,097,152,
 * the MLP 3 x 1024 x 3072 = 9,437,184 and two norms: 14,157,824 a layer,
 * x 18 = 254,840,832, the tied embedding 103424 x 1024 = 105,906,176 and
 * the final norm: 360,748,032, as counted on the loaded checkpoint. The
 * 21B-A3B (its config's fields as copied in the code corpus): attention
 * 2 x 2560^2 + 2 x 2560 x 512 = 15,728,640; layer 0 dense, 3 x 2560 x
 * 12288 = 94,371,840; layers 1-27 MoE, 64 experts of 3 x 2560 x 1536 =
 * 754,974,720, two shared of the experts' width 3 x 2560 x 3072 =
 * 23,592,960, the router 64 x 2560 and its correction bias 64; two norms a
 * layer: 110,105,600 + 27 x 794,465,344 + 264,765,440 + 2560 =
 * 21,825,437,888, what transformers builds; the published 21.95B adds the
 * checkpoint's MTP block (123,217,920 by hand). */
START_TEST(test_ernie)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("ernie-4.5-0.3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(360748032));
    ck_assert(st.embed_tied);
    ic_test_fixture_stats("ernie-4.5-21b-a3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(21825437888));
    ck_assert_uint_eq(st.n_moe_layers, 27);
    ck_assert_uint_eq(st.top_k, 6);
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(27) * 23592960);
    /* the MoE layers' range and step (Ernie4_5_MoeDecoderLayer: MoE iff
     * (i + 1) % interval == 0 and start <= i <= end) on 8 layers */
#define ERNIE "{\"model_type\": \"ernie4_5_moe\", \"num_hidden_layers\": 8, " SHAPE \
              ", \"moe_num_experts\": 4, \"moe_k\": 2, \"moe_intermediate_size\": 128"
    derive_text(ERNIE "}", &st); /* layers 1-7 (start 1, end -1 where absent) */
    ck_assert_uint_eq(st.n_moe_layers, 7);
    /* two shared where absent: 3 x 256 x 256 a layer */
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(7) * 3 * 256 * 256);
    derive_text(ERNIE ", \"moe_layer_interval\": 2, \"moe_layer_end_index\": -1}", &st);
    ck_assert_uint_eq(st.n_moe_layers, 4); /* 1, 3, 5, 7 */
    derive_text(ERNIE ", \"moe_layer_start_index\": 2, \"moe_layer_end_index\": 5}", &st);
    ck_assert_uint_eq(st.n_moe_layers, 4); /* 2-5 */
    derive_text(ERNIE ", \"moe_num_shared_experts\": 0}", &st);
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], 0);
    /* Ernie4_5Config's head_dim 128 and 2 KV heads where the config says
     * neither (hidden_size / heads would be 64, every head 4) */
    derive_text("{\"model_type\": \"ernie4_5\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "
                "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"vocab_size\": 1000}",
                &st);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 2 * 128);
    /* ... and tied: no head of its own */
    ck_assert(st.embed_tied);
    /* null is None: Ernie4_5Config makes it every head (4 of 64 wide) */
    derive_text("{\"model_type\": \"ernie4_5\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "
                "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"vocab_size\": 1000, "
                "\"num_key_value_heads\": null, \"head_dim\": null}",
                &st);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 4 * 64);
#undef ERNIE
}
END_TEST

/* InternLM2.5 20B (internlm2; its config.json as published): wqkv 6144 x
 * (48 + 2 x 8) x 128 = 50,331,648, wo 6144^2 = 37,748,736, the MLP 3 x
 * 6144 x 16384 = 301,989,888 and two norms: 390,082,560 a layer, x 48 =
 * 18,723,962,880, the embedding and the output 2 x 92544 x 6144 =
 * 1,137,180,672 and the final norm: 19,861,149,696, the checkpoint's bf16
 * safetensors count. Without its 'bias' key, InternLM2Config's default
 * (true) biases wqkv and wo: (4 + 2 x 2) x 64 + 256 = 768 a layer of the
 * shape below (4 query heads and 2 KV heads of 64, hidden 256). */
START_TEST(test_internlm2)
{
    struct ic_model_stats st, biased;
    ic_test_fixture_stats("internlm2.5-20b-chat-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(19861149696));
    derive_text("{\"model_type\": \"internlm2\", \"num_hidden_layers\": 4, \"bias\": false, "
                SHAPE "}", &st);
    derive_text("{\"model_type\": \"internlm2\", \"num_hidden_layers\": 4, " SHAPE "}", &biased);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * ((4 + 2 * 2) * 64 + 256));
}
END_TEST

/* EXAONE 3.0 7.8B (exaone; a re-save of its config.json): a Llama whose
 * layer count is num_layers: 32 x (4096^2 x 2 + 2 x 4096 x 1024 + 3 x 4096
 * x 14336 + 2 x 4096) + 2 x 102400 x 4096 + 4096 = 7,818,448,896 (its hub
 * page: 7.82B). Without tie_word_embeddings it ties (the 2.4B's config). */
START_TEST(test_exaone3)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("exaone-3.0-7.8b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(7818448896));
    ck_assert_uint_eq(st.n_layers, 32);
    derive_text("{\"model_type\": \"exaone\", \"num_layers\": 4, " SHAPE "}", &st);
    ck_assert_uint_eq(st.n_layers, 4);
    ck_assert(st.embed_tied);
    /* both counts, differing: refused */
    struct ic_err e = {0};
    char path[64];
    ic_test_write_tmp(path, "{\"model_type\": \"exaone\", \"num_layers\": 4, "
                            "\"num_hidden_layers\": 5, " SHAPE "}");
    /* (the loader derives once to check what it read) */
    ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "'num_layers' (4) contradicts 'num_hidden_layers' (5)"));
    remove(path);
}
END_TEST

/* MLPs of two matrices and MLP biases. StarCoder2-3B (its config.json):
 * attention 2 x 3072^2 + 2 x 3072 x 256 = 20,447,232 and its biases 3072 +
 * 256 + 256 + 3072 = 6,656; c_fc and c_proj 2 x 3072 x 12288 = 75,497,472
 * and their biases 12288 + 3072 = 15,360; two LayerNorms 4 x 3072 =
 * 12,288: 95,973,632 a layer, x 30 = 2,879,208,960, the tied embedding
 * 49152 x 3072 = 150,994,944 and the final LayerNorm 6144: 3,030,371,328
 * (its 12.1 GB fp32 checkpoint). Arcee AFM-4.5B (a fine-tune's config,
 * vocab 128005): 36 x (2 x 2560^2 + 2 x 2560 x 512 + 2 x 2560 x 18432 + 2
 * x 2560) + 2 x 128005 x 2560 + 2560 = 4,619,189,760. */
START_TEST(test_two_matrix_mlps)
{
    struct ic_model_stats st, biased;
    ic_test_fixture_stats("starcoder2-3b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(3030371328));
    ck_assert(st.embed_tied);
    ic_test_fixture_stats("arcee-afm-4.5b-sft-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(4619189760));
    ck_assert_uint_eq(st.group_params[IC_PG_MLP], UINT64_C(36) * 2 * 2560 * 18432);
    /* StarCoder2 with use_bias false: 4 layers' biases fewer, (256 + 2 x 128
     * + 256) + (512 + 256) each */
    derive_text("{\"model_type\": \"starcoder2\", \"num_hidden_layers\": 4, " SHAPE "}", &biased);
    derive_text("{\"model_type\": \"starcoder2\", \"num_hidden_layers\": 4, \"use_bias\": false, "
                SHAPE "}", &st);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * (768 + 768));
    /* mlp_bias on a Llama: gate and up 512 each, down 256, a layer */
    derive_text("{\"model_type\": \"llama\", \"num_hidden_layers\": 4, \"mlp_bias\": true, "
                SHAPE "}", &biased);
    derive_text("{\"model_type\": \"llama\", \"num_hidden_layers\": 4, " SHAPE "}", &st);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * 1280);
    /* ... and on a config without a model_type (read as a Llama) */
    derive_text("{\"num_hidden_layers\": 4, \"mlp_bias\": true, " SHAPE "}", &st);
    ck_assert_uint_eq(st.params_total, biased.params_total);
    /* Seed-OSS's MLP reads it too */
    derive_text("{\"model_type\": \"seed_oss\", \"num_hidden_layers\": 4, \"mlp_bias\": true, "
                "\"attention_bias\": false, " SHAPE "}", &biased);
    derive_text("{\"model_type\": \"seed_oss\", \"num_hidden_layers\": 4, "
                "\"attention_bias\": false, " SHAPE "}", &st);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * 1280);
    /* MistralMLP fixes bias=False: the key changes nothing */
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, \"mlp_bias\": true, "
                "\"sliding_window\": null, " SHAPE "}", &biased);
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, "
                "\"sliding_window\": null, " SHAPE "}", &st);
    ck_assert_uint_eq(biased.params_total, st.params_total);
}
END_TEST

/* InternLM3-8B (internlm3; its config.json): q and o 2 x 4096^2 =
 * 33,554,432, k and v 2 x 4096 x 256 = 2,097,152, the MLP 3 x 4096 x 10240
 * = 125,829,120, two norms 8,192: 161,488,896 a layer, x 48 =
 * 7,751,467,008, the embedding and the head 2 x 128512 x 4096 =
 * 1,052,770,304, the final norm 4,096: 8,804,241,408 (its card: "8B"; no
 * exact published count was found). qkv_bias biases q, k and v: (4 + 2 x
 * 2) x 64 = 512 a layer of the shape below; 'bias' o (256) and the MLP
 * (512 + 512 + 256): 1,536. */
START_TEST(test_internlm3)
{
    struct ic_model_stats st, biased;
    ic_test_fixture_stats("internlm3-8b-instruct-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(8804241408));
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 2 * 128);
    derive_text("{\"model_type\": \"internlm3\", \"num_hidden_layers\": 4, " SHAPE "}", &st);
    derive_text("{\"model_type\": \"internlm3\", \"num_hidden_layers\": 4, \"qkv_bias\": true, "
                SHAPE "}", &biased);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * 512);
    derive_text("{\"model_type\": \"internlm3\", \"num_hidden_layers\": 4, \"bias\": true, "
                SHAPE "}", &biased);
    ck_assert_uint_eq(biased.params_total - st.params_total, UINT64_C(4) * 1536);
}
END_TEST

/* dots.llm1 (dots1; its base model's config.json): attention 4 x 4096^2 =
 * 67,108,864 (32 heads and 32 KV heads of 128) with q/k norms 2 x 128,
 * two norms 8,192 a layer; layer 0 dense, 3 x 4096 x 10944 = 134,479,872;
 * layers 1-61 MoE: 128 experts x 3 x 4096 x 1408 = 2,214,592,512, two
 * shared 3 x 4096 x 2816 = 34,603,008, the router 128 x 4096 and its
 * correction bias 128: 2,249,719,936. 201,597,184 + 61 x 2,316,837,248 +
 * 2 x 152064 x 4096 + 4096 = 142,774,381,696 (its card: 142B, 14B
 * active). Active: 142,774,381,696 less the embedding 622,854,144 and 61
 * x 122 unused experts x 17,301,504 = 128,757,792,768:
 * 13,393,734,784. */
START_TEST(test_dots1)
{
    struct ic_model_stats st;
    /* without moe_intermediate_size the experts are not intermediate_size
     * wide (Dots1Config's default is 1408): refused */
    struct ic_err e = {0};
    char path[64];
    ic_test_write_tmp(path, "{\"model_type\": \"dots1\", \"num_hidden_layers\": 2, " SHAPE
                            ", \"n_routed_experts\": 4, \"num_experts_per_tok\": 2}");
    ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "model_type 'dots1''s experts need 'moe_intermediate_size'"));
    remove(path);
    ic_test_fixture_stats("dots-llm1-base-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(142774381696));
    ck_assert_uint_eq(st.params_active, UINT64_C(13393734784));
    ck_assert_uint_eq(st.n_moe_layers, 61);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 32 * 128);
    ck_assert(!st.embed_tied);
}
END_TEST

/* Falcon (falcon). 7B (its config.json: multi_query, the old
 * architecture): q/k/v fused 4544 x (4544 + 2 x 64) = 21,229,568, dense
 * 4544^2 = 20,647,936, the MLP 2 x 4544 x 18176 (4 x hidden) =
 * 165,183,488, one LayerNorm (weight and bias) 9,088: 207,070,080 a layer,
 * x 32 = 6,626,242,560, the tied embedding 65024 x 4544 = 295,469,056 and
 * the final LayerNorm 9,088: 6,921,720,704; one KV head of 64. 180B (its
 * config.json: new_decoder_architecture, 8 KV heads): q/k/v 14848 x (232 +
 * 16) x 64 = 235,667,456, dense 220,463,104, the MLP 2 x 14848 x 59392 =
 * 1,763,704,832, two LayerNorms 59,392: 2,219,894,784 a layer, x 80 =
 * 177,591,582,720, the embedding 965,476,352 and the final LayerNorm
 * 29,696: 178,557,088,768. Their safetensors totals, 7,217,189,760 and
 * 179,522,565,120, are these plus a stored lm_head of 65024 x hidden (the
 * loaded model ties it to the embedding). */
START_TEST(test_falcon)
{
    struct ic_model_stats st, other;
    ic_test_fixture_stats("falcon-7b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(6921720704));
    ck_assert_uint_eq(st.params_total + UINT64_C(65024) * 4544, UINT64_C(7217189760));
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 1 * 64);
    ck_assert(st.embed_tied);
    ic_test_fixture_stats("falcon-180b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(178557088768));
    ck_assert_uint_eq(st.params_total + UINT64_C(65024) * 14848, UINT64_C(179522565120));
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 8 * 64);
#define FALCON "{\"model_type\": \"falcon\", \"num_hidden_layers\": 4, \"hidden_size\": 256, " \
               "\"num_attention_heads\": 4, \"vocab_size\": 1000"
    /* the shape below, new_decoder_architecture with 2 KV heads of 64: q/k/v
     * 256 x (4 + 4) x 64 = 131,072, dense 65,536, the MLP 2 x 256 x 1024 =
     * 524,288, two LayerNorms 1,024 (ln_attn and ln_mlp where
     * num_ln_in_parallel_attn is absent): 721,920 a layer; the tied
     * embedding 256,000, the final LayerNorm 512 */
    derive_text(FALCON ", \"new_decoder_architecture\": true, \"num_kv_heads\": 2}", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(4) * 721920 + 256000 + 512);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 2 * 64);
    /* one LayerNorm where num_ln_in_parallel_attn is 1 (Falcon 2): 512
     * fewer a layer */
    derive_text(FALCON ", \"new_decoder_architecture\": true, \"num_kv_heads\": 2, "
                       "\"num_ln_in_parallel_attn\": 1}", &other);
    ck_assert_uint_eq(st.params_total - other.params_total, UINT64_C(4) * 512);
    /* the old architecture: multi_query (where absent) one KV head, one
     * LayerNorm; num_kv_heads is not read there */
    derive_text(FALCON ", \"num_kv_heads\": 4}", &st);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 1 * 64);
    ck_assert_uint_eq(st.params_total,
                      UINT64_C(4) * (256 * (256 + 128) + 65536 + 524288 + 512) + 256000 + 512);
    /* ... without multi_query every head (q/k/v 3 x 256^2), and two
     * LayerNorms where the attention and the MLP run in sequence */
    derive_text(FALCON ", \"multi_query\": false, \"parallel_attn\": false}", &other);
    ck_assert_uint_eq(other.kv_values_per_layer_token, 2 * 4 * 64);
    ck_assert_uint_eq(other.params_total - st.params_total,
                      UINT64_C(4) * (3 * 65536 - 256 * 384 + 512));
    /* 'bias': q/k/v 384, dense 256, the MLP 1024 + 256 a layer; the MLP's
     * width from ffn_hidden_size */
    derive_text(FALCON ", \"bias\": true}", &other);
    ck_assert_uint_eq(other.params_total - st.params_total, UINT64_C(4) * (384 + 256 + 1280));
    derive_text(FALCON ", \"ffn_hidden_size\": 512}", &other);
    ck_assert_uint_eq(st.params_total - other.params_total, UINT64_C(4) * 2 * 256 * 512);
    /* the other families' names for its KV heads and MLP width: refused */
    struct ic_err e = {0};
    char path[64];
    ic_test_write_tmp(path, FALCON ", \"num_key_value_heads\": 2}");
    ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "'num_key_value_heads' is not read for model_type 'falcon'"));
    remove(path);
    ic_test_write_tmp(path, FALCON ", \"intermediate_size\": 1024}");
    ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
    ck_assert_ptr_nonnull(strstr(e.msg, "'intermediate_size' is not read for model_type 'falcon'"));
    remove(path);
    /* ... and keys of theirs that would change a count Falcon's code never
     * reads (an attention_bias added biases, a sliding_window cut the
     * cache); num_kv_heads past the heads, whatever the architecture */
    static const char *const falcon_bad[][2] = {
        {FALCON ", \"attention_bias\": true}", "'attention_bias' is not read for model_type 'falcon'"},
        {FALCON ", \"sliding_window\": 64}", "'sliding_window' is not read for model_type 'falcon'"},
        {FALCON ", \"num_kv_heads\": 8}", "'num_kv_heads'"},
    };
    for (size_t i = 0; i < 3; i++) {
        ic_test_write_tmp(path, falcon_bad[i][0]);
        ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.msg, falcon_bad[i][1]), "%zu: %s", i, e.msg);
        remove(path);
    }
    /* its configs' expert keys, which its code never reads: ignored */
    derive_text(FALCON ", \"num_local_experts\": 8, \"num_experts_per_tok\": 2}", &other);
    ck_assert_uint_eq(other.params_total, st.params_total);
    ck_assert_uint_eq(other.n_experts, 0);
#undef FALCON
}
END_TEST

/* Tencent Hunyuan. Hy-MT2-7B (hunyuan_v1_dense; its config.json): q and o
 * 2 x 4096^2, k and v 2 x 4096 x 1024: 41,943,040; query_layernorm and
 * key_layernorm 2 x 128; the MLP 3 x 4096 x 14336 = 176,160,768; two norms
 * 8,192: 218,112,256 a layer, x 32 = 6,979,592,192, the tied embedding
 * 128167 x 4096 = 524,972,032 and the final norm: 7,504,568,320 (no
 * published count found). Hunyuan-A13B (its release's config.json, from
 * Tencent's GitHub repository, whose model_type "hunyuan" is set to
 * hunyuan_v1_moe here, the transformers class its card names; moe_topk,
 * moe_intermediate_size and num_shared_expert a layer each, all alike):
 * the same attention, 64 experts and one shared MLP of 3 x 4096 x 3072 =
 * 37,748,736 each, the router 64 x 4096: 2,495,881,472 a layer, x 32 =
 * 79,868,207,104, + 524,972,032 + 4,096 = 80,393,183,232 (the Hub's
 * safetensors total, 80.39B); active: less 32 x 56 unused experts x
 * 37,748,736 = 12,747,448,320 (its card: 13B active). */
START_TEST(test_hunyuan)
{
    struct ic_model_stats st;
    ic_test_fixture_stats("hy-mt2-7b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(7504568320));
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 8 * 128);
    ic_test_fixture_stats("hunyuan-a13b-config.json", &st);
    ck_assert_uint_eq(st.params_total, UINT64_C(80393183232));
    ck_assert_uint_eq(st.params_active, UINT64_C(12747448320));
    ck_assert_uint_eq(st.top_k, 8);
    ck_assert_uint_eq(st.n_moe_layers, 32);
    ck_assert_uint_eq(st.kv_values_per_layer_token, 2 * 8 * 128);
    /* the dense model's configs carry MoE keys its code never reads
     * (num_experts 1, moe_topk and num_shared_expert lists,
     * use_mixed_mlp_moe false, as Hunyuan-7B's): ignored, the same count */
    struct ic_model_stats dense;
    derive_text("{\"model_type\": \"hunyuan_v1_dense\", \"num_hidden_layers\": 2, "
                "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_attention_heads\": 4, "
                "\"num_key_value_heads\": 2, \"vocab_size\": 1000}",
                &dense);
    derive_text("{\"model_type\": \"hunyuan_v1_dense\", \"num_hidden_layers\": 2, "
                "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_attention_heads\": 4, "
                "\"num_key_value_heads\": 2, \"vocab_size\": 1000, \"num_experts\": 1, "
                "\"moe_topk\": [1, 1], \"num_shared_expert\": [1, 1], "
                "\"use_mixed_mlp_moe\": false, \"moe_intermediate_size\": [512, 512]}",
                &st);
    ck_assert_uint_eq(st.params_total, dense.params_total);
    ck_assert_uint_eq(st.n_experts, 0);
    /* (two layers of q and o 2 x 256^2, k and v 2 x 256 x 128, the MLP 3 x
     * 256 x 512, q/k norms 2 x 64 and norms 2 x 256; untied where the key
     * is absent, the embedding and the head 2 x 1000 x 256; the final norm) */
    ck_assert_uint_eq(dense.params_total,
                      UINT64_C(2) * (2 * 65536 + 2 * 32768 + 3 * 131072 + 128 + 512) + 512000 +
                          256);
#define HY "{\"model_type\": \"hunyuan_v1_moe\", \"num_hidden_layers\": 2, " \
           "\"hidden_size\": 256, \"intermediate_size\": 512, \"num_attention_heads\": 4, " \
           "\"num_key_value_heads\": 2, \"vocab_size\": 1000, \"num_experts\": 4"
    static const struct {
        const char *json, *msg;
    } bad[] = {
        {HY ", \"moe_topk\": [2, 3]}", "'moe_topk' differs between layers (2 at layer 0, 3"},
        {HY ", \"moe_topk\": 2, \"use_cla\": true}", "'use_cla' true"},
        {HY ", \"moe_topk\": 2, \"num_shared_expert\": [2, 2]}",
         "'num_shared_expert' is 2"},
        {HY ", \"moe_topk\": 2, \"moe_intermediate_size\": [256, 256]}",
         "'moe_intermediate_size' (256) is not intermediate_size (512)"},
        {HY ", \"moe_topk\": 2, \"moe_layer_num_skipped\": 1}", "'moe_layer_num_skipped' (1)"},
        {HY ", \"moe_topk\": 2, \"use_mixed_mlp_moe\": false}", "'use_mixed_mlp_moe' false"},
        {HY "}", "an MoE model needs 'moe_topk'"},
        /* attention_head_dim (Tencent's code's) against hidden_size / heads
         * (transformers' without head_dim): 32 against 256 / 4 = 64 */
        {HY ", \"moe_topk\": 2, \"attention_head_dim\": 32}",
         "'attention_head_dim' (32) is not hidden_size / num_attention_heads (64)"},
        /* a width quoted is text */
        {HY ", \"moe_topk\": [\"2\", \"2\"]}", "'moe_topk': a quoted string"},
        {"{\"model_type\": \"qwen2_moe\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "
         "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"num_key_value_heads\": 4, "
         "\"vocab_size\": 1000, \"shared_expert_intermediate_size\": 0, "
         "\"num_experts\": 4, \"num_experts_per_tok\": 2, \"moe_intermediate_size\": [128, 128]}",
         "'moe_intermediate_size' as a list is read for Hunyuan only"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct ic_err e = {0};
        char path[64];
        ic_test_write_tmp(path, bad[i].json);
        ck_assert_int_eq(ic_model_load(path, M, &e), IC_EINVAL);
        ck_assert_msg(strstr(e.msg, bad[i].msg), "%zu: %s", i, e.msg);
        remove(path);
    }
    /* lists alike read as their value: 2 layers of 4 experts and a shared
     * one, 5 x 3 x 256 x 512, and the router 4 x 256, a layer */
    derive_text(HY ", \"moe_topk\": [2, 2], \"num_shared_expert\": [1, 1], "
                   "\"moe_intermediate_size\": [512, 512]}",
                &st);
    ck_assert_uint_eq(st.top_k, 2);
    ck_assert_uint_eq(st.group_params[IC_PG_EXPERTS], UINT64_C(2) * 4 * 3 * 256 * 512);
    ck_assert_uint_eq(st.group_params[IC_PG_SHARED], UINT64_C(2) * 3 * 256 * 512);
#undef HY
}
END_TEST

/* A config.json key whose model_type's config classes default it otherwise
 * than its absence reads here (the query heads, hidden_size / heads, no
 * bias, a plain q projection, none): refused where left out, read where
 * named, and a null is the class's None (where None builds no model, as
 * kv_lora_rank's, refused too). */

START_TEST(test_config_needed_keys)
{
#define NK_HINT "give it as the checkpoint's config.json does"
#define NK_QWEN3                                                                             \
    "{\"model_type\": \"qwen3\", \"num_hidden_layers\": 4, \"hidden_size\": 256, "          \
    "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"vocab_size\": 1000"
    struct ic_model_stats a, b;
    /* Qwen3Config's num_key_value_heads=32 and head_dim=128, not 4 and 64 */
    refused_text(NK_QWEN3 ", \"head_dim\": 64}", "model_type 'qwen3' needs 'num_key_value_heads'",
                 NK_HINT);
    refused_text(NK_QWEN3 ", \"num_key_value_heads\": 2}", "model_type 'qwen3' needs 'head_dim'",
                 NK_HINT);
    /* named: read; null (None): every head, as the class's None gives. KV
     * bytes a token: 2 x 4 layers x heads x 64 x 2 B, 2 heads 2,048, 4
     * heads 4,096 */
    derive_text(NK_QWEN3 ", \"num_key_value_heads\": 2, \"head_dim\": 64}", &a);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&a, 16), 2048);
    derive_text(NK_QWEN3 ", \"num_key_value_heads\": null, \"head_dim\": 64}", &b);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&b, 16), 4096);
    /* Seed-OSS's attention_bias (SeedOssConfig: true): named false, the
     * q/k/v biases (4 x 64 + 2 x 2 x 64 = 512 a layer) go */
    refused_text("{\"model_type\": \"seed_oss\", \"num_hidden_layers\": 4, " SHAPE "}",
                 "model_type 'seed_oss' needs 'attention_bias': its config class's default is "
                 "true", NK_HINT);
    derive_text("{\"model_type\": \"seed_oss\", \"num_hidden_layers\": 4, "
                "\"attention_bias\": true, " SHAPE "}", &a);
    derive_text("{\"model_type\": \"seed_oss\", \"num_hidden_layers\": 4, "
                "\"attention_bias\": false, " SHAPE "}", &b);
    ck_assert_uint_eq(a.params_total - b.params_total, UINT64_C(4) * 512);
#define NK_MLA                                                                               \
    "{\"model_type\": \"deepseek_v3\", \"num_hidden_layers\": 2, \"hidden_size\": 256, "    \
    "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"vocab_size\": 1000, "       \
    "\"tie_word_embeddings\": false, \"qk_rope_head_dim\": 16, \"qk_nope_head_dim\": 32, " \
    "\"v_head_dim\": 32"
    /* DeepSeek's q_lora_rank (1536 in every class where absent) and
     * kv_lora_rank (MLA in every release) */
    refused_text(NK_MLA ", \"kv_lora_rank\": 64}", "model_type 'deepseek_v3' needs 'q_lora_rank'",
                 NK_HINT);
    refused_text(NK_MLA ", \"q_lora_rank\": null}",
                 "model_type 'deepseek_v3' needs 'kv_lora_rank'", NK_HINT);
    /* ... a null one too: None builds no MLA (it read as full heads) */
    refused_text(NK_MLA ", \"q_lora_rank\": null, \"kv_lora_rank\": null}",
                 "model_type 'deepseek_v3' needs 'kv_lora_rank': its attention is MLA, whose "
                 "cache is that rank wide (a null builds none)", NK_HINT);
    /* a null q_lora_rank is a plain q projection: the 1,537,408 counted by
     * hand for this shape under deepseek_v2 (test_model_entry_nulls) */
    derive_text(NK_MLA ", \"q_lora_rank\": null, \"kv_lora_rank\": 64}", &a);
    ck_assert_uint_eq(a.params_total, 1537408u);
    /* the MoE keys, only with experts: DeepSeek's shared experts and dense
     * layers, Qwen2-MoE's shared expert width (Qwen2MoeConfig's 5632) */
#define NK_EXPERTS ", \"n_routed_experts\": 4, \"num_experts_per_tok\": 2, " \
                   "\"moe_intermediate_size\": 128"
    refused_text(NK_MLA ", \"q_lora_rank\": null, \"kv_lora_rank\": 64, "
                        "\"first_k_dense_replace\": 1" NK_EXPERTS "}",
                 "model_type 'deepseek_v3' needs 'n_shared_experts': the config classes that "
                 "read this model_type take different defaults", NK_HINT);
    refused_text(NK_MLA ", \"q_lora_rank\": null, \"kv_lora_rank\": 64, "
                        "\"n_shared_experts\": 1" NK_EXPERTS "}",
                 "model_type 'deepseek_v3' needs 'first_k_dense_replace'", NK_HINT);
    refused_text("{\"model_type\": \"qwen2_moe\", \"num_hidden_layers\": 2, " SHAPE
                 ", \"num_experts\": 4, \"num_experts_per_tok\": 2, "
                 "\"moe_intermediate_size\": 128}",
                 "model_type 'qwen2_moe' needs 'shared_expert_intermediate_size': its config "
                 "class's default is a shared expert, not none", NK_HINT);
    /* SmolLM3Config ties the embeddings where the key is absent: one
     * 1000 x 256 matrix fewer than untied */
    derive_text("{\"model_type\": \"smollm3\", \"num_hidden_layers\": 4, " SHAPE "}", &a);
    derive_text("{\"model_type\": \"smollm3\", \"num_hidden_layers\": 4, "
                "\"tie_word_embeddings\": false, " SHAPE "}", &b);
    ck_assert(a.embed_tied);
    ck_assert_uint_eq(b.params_total - a.params_total, UINT64_C(1000) * 256);
#undef NK_QWEN3
#undef NK_MLA
#undef NK_EXPERTS
#undef NK_HINT
}
END_TEST

/* Qwen2's window (Qwen2Config: 'self.sliding_window = sliding_window if
 * self.use_sliding_window else None'; layer i slides iff i >=
 * max_window_layers, 28 where absent). A Qwen3 of 36 layers, hidden 256. */
START_TEST(test_qwen_window_opt_in)
{
#define QW_BASE                                                                              \
    "{\"model_type\": \"qwen3\", \"num_hidden_layers\": 36, \"hidden_size\": 256, "         \
    "\"intermediate_size\": 512, \"num_attention_heads\": 4, \"num_key_value_heads\": 2, "   \
    "\"head_dim\": 64, \"vocab_size\": 1000, \"sliding_window\": 4096"
    struct ic_model_stats st;
    /* no use_sliding_window: the class's false, no window (was every layer) */
    derive_text(QW_BASE "}", &st);
    ck_assert_uint_eq(st.n_window_layers, 0);
    /* on, max_window_layers 21: layers 21..35 slide, 15 of them */
    derive_text(QW_BASE ", \"use_sliding_window\": true, \"max_window_layers\": 21}", &st);
    ck_assert_uint_eq(st.n_window_layers, 15);
    ck_assert_uint_eq(st.window, 4096);
    /* on, max_window_layers absent: the class's 28, layers 28..35, 8 */
    derive_text(QW_BASE ", \"use_sliding_window\": true}", &st);
    ck_assert_uint_eq(st.n_window_layers, 8);
    /* max_window_layers past the layers: none slides */
    derive_text(QW_BASE ", \"use_sliding_window\": true, \"max_window_layers\": 40}", &st);
    ck_assert_uint_eq(st.n_window_layers, 0);
    /* a Mistral's window is on every layer, as before */
    derive_text("{\"model_type\": \"mistral\", \"num_hidden_layers\": 4, \"hidden_size\": 256, "
                "\"intermediate_size\": 512, \"num_attention_heads\": 4, "
                "\"num_key_value_heads\": 4, \"vocab_size\": 1000, \"sliding_window\": 4096}",
                &st);
    ck_assert_uint_eq(st.n_window_layers, 4);
    /* a model entry says the same in YAML: on, from layer 30 */
    derive_text("name: qw\nsource: t\nmodel_type: qwen3\nnum_hidden_layers: 36\n"
                "hidden_size: 256\nintermediate_size: 512\nnum_attention_heads: 4\n"
                "num_key_value_heads: 2\nhead_dim: 64\nvocab_size: 1000\n"
                "tie_word_embeddings: false\nsliding_window: 4096\n"
                "use_sliding_window: true\nmax_window_layers: 30\n", &st);
    ck_assert_uint_eq(st.n_window_layers, 6);
#undef QW_BASE
}
END_TEST


/* gpt-oss's config as shipped lists its 36 layers' types, sliding first
 * and alternating (18 sliding at 128 tokens, 18 full); without the list,
 * GptOssConfig's default is the same alternation ("sliding_attention" if
 * (i + 1) % 2), and without sliding_window its 128: the same layers (the
 * file was read as 36 sliding layers, its cache at 4096 tokens 16.5x
 * short). */
START_TEST(test_gpt_oss_default_layers)
{
    struct ic_model_stats a, b;
    ic_test_fixture_stats("gpt-oss-120b-config.json", &a);
    ic_test_fixture_stats("gpt-oss-120b-no-layer-types-config.json", &b);
    ck_assert_uint_eq(a.n_layers, 36);
    ck_assert_uint_eq(a.n_window_layers, 18);
    ck_assert_uint_eq(a.window, 128);
    ck_assert_uint_eq(b.n_window_layers, a.n_window_layers);
    ck_assert_uint_eq(b.n_global_layers, 18);
    ck_assert_uint_eq(b.window, a.window);
    ck_assert_uint_eq(ic_model_kv_bytes_per_token(&b, 16), ic_model_kv_bytes_per_token(&a, 16));
    /* and without sliding_window either: GptOssConfig's 128 */
    ic_test_fixture_stats("gpt-oss-120b-no-window-keys-config.json", &b);
    ck_assert_uint_eq(b.n_window_layers, 18);
    ck_assert_uint_eq(b.window, 128);
}
END_TEST

/* A Llama config.json with a sliding_window slides every layer at it, as
 * vLLM serves it: its Llama passes no per-layer window without
 * layer_types, and its Attention then takes the model-level window
 * (cache_config.sliding_window, the config's). transformers' Llama would
 * attend to every token; the engines are what is timed. Llama-3.1-8B at
 * 4096: 32 of 32 layers, window 4096 (an outside audit's reading that
 * vLLM ignores the key was tried and undone, 2026-12-05). */
START_TEST(test_llama_window_applied)
{
    struct ic_model_stats b;
    ic_test_fixture_stats("llama3.1-8b-window-config.json", &b);
    ck_assert_uint_eq(b.n_window_layers, 32);
    ck_assert_uint_eq(b.window, 4096);
}
END_TEST

/* modeldb's deepseek-r1-nvfp4 (NVIDIA's NVFP4 export of DeepSeek-R1): the
 * same parameters as deepseek-v3; the MLPs and experts at fp4 with an
 * 8-bit scale per 16 weights, the attention (its q/kv/o projections and
 * the MLA down-projections, which lie in the replicated group), the
 * embedding and the LM head at bf16. By hand from DeepSeek-V3's config
 * (D 7168, 61 layers, 3 dense, 58 MoE, 128 heads, q_lora 1536, kv_lora
 * 512, rope 64, nope 128, v 128, F 18432, expert 2048, 256 experts,
 * vocab 129280):
 *   embedding = head = 129280 x 7168 = 926,679,040;
 *   attention heads 61 x (1536 x 128 x 192 + 512 x 128 x 256 +
 *     128 x 128 x 7168) = 61 x 171,966,464 = 10,489,954,304;
 *   replicated 61 x (7168 x 1536 + 7168 x 576 + 1536 + 512 + 2 x 7168)
 *     + 58 x (256 x 7168 + 256) (routers, their biases) + 7168 (final
 *     norm) = 924,467,200 + 106,445,312 + 7,168 = 1,030,919,680;
 *   dense MLPs 3 x 3 x 7168 x 18432 = 1,189,085,184; shared experts
 *     58 x 3 x 7168 x 2048 = 2,554,331,136; routed 256 x that =
 *     653,908,770,816.
 * Kept at 2 B: 2 x 926,679,040 + 10,489,954,304 + 1,030,919,680 =
 * 13,374,232,064 parameters, 26,748,464,128 B; quantized 1,189,085,184 +
 * 2,554,331,136 + 653,908,770,816 = 657,652,187,136 x (0.5 + 1/16) B =
 * 369,929,355,264 B; 396,677,819,392 B in all. */
START_TEST(test_deepseek_r1_nvfp4)
{
    struct ic_model_stats v3;
    ic_test_live_model("deepseek-v3", M, &v3);
    ic_test_live_model("deepseek-r1-nvfp4", M, &S);
    ck_assert_uint_eq(S.params_total, v3.params_total);
    ck_assert_int_eq(S.quant_type, IC_DT_FP4);
    ck_assert_double_eq(S.quant_extra_bytes, 1.0 / 16);
    /* "self_attn*" names the k/v projections' group too, empty under MLA */
    ck_assert_uint_eq(S.keep_groups, 1u << IC_PG_EMBED | 1u << IC_PG_HEAD |
                                         1u << IC_PG_ATTN_HEADS | 1u << IC_PG_ATTN_KV |
                                         1u << IC_PG_REPLICATED);
    ck_assert_uint_eq(S.group_params[IC_PG_ATTN_KV], 0);
    double bytes = 0;
    for (int g = 0; g < IC_PG_COUNT; g++)
        bytes += (double)S.group_params[g] *
                 ic_step_weight_bytes(&S, ic_step_group_type(&S, g, IC_DT_FP4));
    ck_assert_double_eq_tol(bytes, 396677819392.0, 0.5);
}
END_TEST

/* A model entry's null for a key whose config class takes None reads as
 * the key left out, as in a config.json: q_lora_rank null is a plain q
 * projection (the same count as without the key), sliding_window null no
 * window. A Llama of 2 layers, hidden 256, and an MLA of 2 layers. */
START_TEST(test_model_entry_nulls)
{
#define NL_LLAMA                                                                             \
    "name: nl\nsource: t\nmodel_type: mistral\nnum_hidden_layers: 2\nhidden_size: 256\n"     \
    "intermediate_size: 512\nnum_attention_heads: 4\nvocab_size: 1000\n"                    \
    "tie_word_embeddings: false\n"
    struct ic_model_stats a, b;
    derive_text(NL_LLAMA "sliding_window: null\n", &a);
    ck_assert_uint_eq(a.n_window_layers, 0);
    derive_text(NL_LLAMA "sliding_window: 128\n", &b);
    ck_assert_uint_eq(b.n_window_layers, 2);
#define NL_MLA                                                                               \
    "name: nm\nsource: t\nmodel_type: deepseek_v2\nnum_hidden_layers: 2\nhidden_size: 256\n" \
    "intermediate_size: 512\nnum_attention_heads: 4\nvocab_size: 1000\n"                    \
    "tie_word_embeddings: false\nkv_lora_rank: 64\nqk_rope_head_dim: 16\n"                  \
    "qk_nope_head_dim: 32\nv_head_dim: 32\n"
    derive_text(NL_MLA "q_lora_rank: null\n", &a);
    derive_text(NL_MLA, &b);
    ck_assert_uint_eq(a.params_total, b.params_total);
    /* by hand, per layer: q 256 x 4 x (32 + 16) = 49,152; kv_a 256 x (64 +
     * 16) = 20,480; its norm 64; kv_b 64 x 4 x (32 + 32) = 16,384; o 4 x 32
     * x 256 = 32,768; MLP 3 x 256 x 512 = 393,216; norms 512 -> 512,576;
     * x 2 = 1,025,152; embedding and head 2 x 1000 x 256 = 512,000; final
     * norm 256: 1,537,408 */
    ck_assert_uint_eq(b.params_total, 1537408u);
#undef NL_LLAMA
#undef NL_MLA
}
END_TEST


int main(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("model");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_llama3_8b_params_by_hand);
    tcase_add_test(tc, test_config_without_model_type);
    tcase_add_test(tc, test_kv_per_token);
    tcase_add_test(tc, test_windows);
    tcase_add_test(tc, test_mla_attention_flops);
    tcase_add_test(tc, test_moe_counts);
    tcase_add_test(tc, test_hypothetical);
    tcase_add_test(tc, test_config_json_matches_modeldb);
    tcase_add_test(tc, test_mqa);
    tcase_add_test(tc, test_gemma2_config_json);
    tcase_add_test(tc, test_window_defaults);
    tcase_add_test(tc, test_ernie);
    tcase_add_test(tc, test_internlm2);
    tcase_add_test(tc, test_exaone3);
    tcase_add_test(tc, test_two_matrix_mlps);
    tcase_add_test(tc, test_internlm3);
    tcase_add_test(tc, test_dots1);
    tcase_add_test(tc, test_falcon);
    tcase_add_test(tc, test_hunyuan);
    tcase_add_test(tc, test_config_json_newer_keys);
    tcase_add_test(tc, test_config_json_tie_default);
    tcase_add_test(tc, test_kimi_k2);
    tcase_add_test(tc, test_glm4_moe);
    tcase_add_test(tc, test_minimax_m2);
    tcase_add_test(tc, test_compression_config);
    tcase_add_test(tc, test_qwen2_biases);
    tcase_add_test(tc, test_gemma3_class_defaults);
    tcase_add_test(tc, test_python_json_infinity);
    tcase_add_test(tc, test_deepseek_v32);
    tcase_add_test(tc, test_llama4);
    tcase_add_test(tc, test_qwen3_next);
    tcase_add_test(tc, test_qwen3_5);
    tcase_add_test(tc, test_granite_hybrid);
    tcase_add_test(tc, test_qk_norms_and_qwen3_vl);
    tcase_add_test(tc, test_llama_like_families);
    tcase_add_test(tc, test_nemotron_h);
    tcase_add_test(tc, test_qwen_window_opt_in);
    tcase_add_test(tc, test_config_needed_keys);
    tcase_add_test(tc, test_model_entry_nulls);
    tcase_add_test(tc, test_gpt_oss_default_layers);
    tcase_add_test(tc, test_llama_window_applied);
    tcase_add_test(tc, test_deepseek_r1_nvfp4);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
