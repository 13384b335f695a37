/* The broken-input corpus (tests/fixtures/bad): every file, whether it is
 * loaded as a model or as hardware, and the exact line:column, message and
 * hint its error must have. test_db checks the loaders against it, test_cli
 * the command line (exit status 2, "path:line:col: error: message"). A file
 * may appear twice (as a model and as hardware); every file appears at least
 * once (test_db checks). */
#ifndef IC_TEST_BROKEN_H
#define IC_TEST_BROKEN_H

#include <stdbool.h>
#include <stddef.h>

struct broken {
    const char *file; /* under tests/fixtures/bad */
    bool model;       /* load as a model (else hardware) */
    unsigned line, col;
    const char *msg;  /* substring of the message */
    const char *hint; /* substring of the hint, or NULL */
};

static const struct broken broken[] = {
    {"hw-typo-key.yaml", false, 6, 3, "unknown key 'bandwith' in the memory section",
     "did you mean 'bandwidth'?"},
    {"hw-no-unit.yaml", false, 6, 14, "'bandwidth': '1e12' has no unit", NULL},
    {"hw-measured-p-type.yaml", false, 46, 11,
     "a transition exponent must be between 1 (times add) and 64 (max)", NULL},
    {"hw-gemv-no-source.yaml", false, 46, 20, "'gemv_efficiency' and 'gemv_source' go together",
     "name the GEMV benchmark's document"},
    {"hw-gemv-source-only.yaml", false, 46, 16, "'gemv_efficiency' and 'gemv_source' go together",
     NULL},
    {"hw-measured-probe-gemm-only.yaml", false, 46, 11,
     "a weight type in one of probe_bandwidth_by_type and probe_gemm_by_type must be in both",
     NULL},
    {"hw-measured-score-big.yaml", false, 46, 11,
     "a time per attention score must be between 1 fs and 1 ms", NULL},
    {"hw-measured-attn-slow.yaml", false, 46, 11,
     "a measured attention rate must be between 1 kFLOP/s and 10 EFLOP/s", NULL},
    {"hw-ar-chips-one.yaml", false, 54, 20,
     "'allreduce_chips' (the chips the all-reduce was measured on) must be between 2 and",
     "one chip has none"},
    {"hw-gemv-tiny.yaml", false, 46, 20, "'gemv_efficiency' must be between 0.01 and 1",
     "the decode-shaped GEMV's bandwidth over hbm_read"},
    {"hw-scaleout-none-bw.yaml", false, 27, 22,
     "a link of kind none has no bandwidth: 'bandwidth_one_way' must be 0 B/s",
     "write 0 B/s, or name the link's kind"},
    {"hw-hostlink-none-bw.yaml", false, 32, 22,
     "a link of kind none has no bandwidth: 'bandwidth_one_way' must be 0 B/s", NULL},
    {"hw-name-dots.yaml", false, 2, 7, "starting with a letter or a digit", NULL},
    {"hw-link-tiny.yaml", false, 20, 27,
     "'link_bandwidth_one_way' must be 0 (no links) or between 1 kB/s and 1 PB/s", NULL},
    {"hw-probe-attention-big.yaml", false, 43, 20,
     "'probe_attention' (seconds per attention score) must be between 1 ps and 10 us",
     NULL},
    {"hw-measured-probe-half.yaml", false, 46, 11,
     "a weight type in one of probe_bandwidth_by_type and probe_gemm_by_type must be in both",
     NULL},
    {"hw-wrong-unit.yaml", false, 6, 14, "'GB' is a size, but a bandwidth is expected", NULL},
    {"hw-duplicate.yaml", false, 6, 3, "duplicate key 'capacity'", "first given at line 5"},
    {"hw-missing-source.yaml", false, 4, 1, "missing required key 'source' in the memory section",
     NULL},
    {"hw-tab.yaml", false, 5, 1, "malformed YAML", "YAML indents with spaces, never tabs"},
    {"hw-negative.yaml", false, 5, 13, "'capacity': '-16 GB' has a minus sign", NULL},
    {"hw-nan.yaml", false, 6, 14, "'bandwidth': '.nan TB/s' is not a number", NULL},
    {"hw-zero.yaml", false, 5, 13, "'capacity' must be between 1 MB and 1 PB", NULL},
    {"hw-bad-topology.yaml", false, 13, 13, "unknown topology 'ring'", NULL},
    {"hw-bad-date.yaml", false, 30, 10, "'as_of' must be a month written YYYY-MM", NULL},
    {"hw-no-compute.yaml", false, 8, 1, "the compute section lists no compute type", NULL},
    {"hw-list-for-scalar.yaml", false, 5, 13, "expected a single value, found a list", NULL},
    {"empty.yaml", false, 1, 1, "empty file", NULL},
    {"binary.yaml", false, 1, 1, "malformed YAML", "not UTF-8"},
    {"model-kv-heads.yaml", true, 8, 22,
     "num_attention_heads (16) is not a multiple of num_key_value_heads (6)", NULL},
    {"model-typo-key.yaml", true, 6, 1, "unknown key 'num_hiden_layers'",
     "did you mean 'num_hidden_layers'?"},
    {"model-overflow.yaml", true, 4, 14, "'hidden_size': '99999999999999999999' is too large",
     NULL},
    {"model-topk.yaml", true, 11, 22, "'num_experts_per_tok' is 9; expected 1 to 8", NULL},
    {"model-fraction.yaml", true, 6, 20, "'num_hidden_layers': '4.5' is not a whole number", NULL},
    {"model-no-hidden.yaml", true, 2, 1, "missing 'hidden_size'", NULL},
    {"model-head-dim.yaml", true, 7, 22, "give head_dim explicitly", NULL},
    {"model-bad.json", true, 3, 26, "malformed JSON: expected a key in double quotes, found ','",
     NULL},
    {"model-contradict.json", true, 6, 26,
     "num_attention_heads (16) is not a multiple of num_key_value_heads (5)", NULL},
    {"empty.yaml", true, 1, 1, "empty file", NULL},
    {"hw-tiny-bandwidth.yaml", false, 6, 14, "'bandwidth' must be between 1 MB/s and 10 PB/s",
     NULL},
    {"hw-huge-latency.yaml", false, 17, 16, "'hop_latency' must be at most 1 s", NULL},
    {"model-deep.json", true, 1, 48, "nesting deeper than 32 levels", NULL},
    /* a quoted group size is text, as a quoted number anywhere */
    {"config-gptq-group-quoted.json", true, 29, 19, "'group_size': a quoted string; expected a number",
     NULL},
    {"config-gptq-group-zero.json", true, 29, 19,
     "'group_size': expected a whole number of weights a group, or -1 (one per output channel)",
     "AutoAWQ and AutoGPTQ write 128, 64, 32 or -1"},
    {"model-hex.yaml", true, 6, 20, "'num_hidden_layers': '+0x4' is not a whole number (hexadecimal is not read)", NULL},
    {"model-two-docs.yaml", true, 3, 1, "more than one YAML document", NULL},
    /* the broken-input corpus: YAML syntax */
    {"hw-unclosed-quote.yaml", false, 7, 12, "did not find expected key",
     "every quote opened above is closed"},
    {"hw-bad-indent.yaml", false, 6, 14, "mapping values are not allowed", "check the indentation"},
    {"hw-unclosed-list.yaml", false, 4, 7, "did not find expected ',' or ']'",
     "a list is not closed"},
    {"hw-undefined-alias.yaml", false, 5, 13, "found undefined alias", "anchor (&name)"},
    {"model-tab.yaml", true, 7, 1, "cannot start any token", "never tabs"},
    {"config-truncated.json", true, 5, 14, "the file ends inside a string",
     "a quote, bracket or brace is not closed"},
    {"hw-complex-key.yaml", false, 4, 3, "expected a plain key in the hardware entry", NULL},
    {"model-merge-key.yaml", true, 10, 1, "unknown key '<<'", "merge keys are not read"},
    /* JSON by RFC 8259 (a .json file): each refusal at its own character */
    {"json-trailing-comma.json", true, 6, 22, "a trailing comma before '}'", NULL},
    {"json-comment.json", true, 6, 3, "found a comment", "comments are not JSON"},
    {"json-single-quote.json", true, 6, 3, "found a single quote", "double quotes"},
    {"json-bare-word.json", true, 7, 17, "found the bare word 'llama'", "bare words"},
    {"json-nul-escape.json", true, 7, 23, "an escaped NUL (\\u0000) inside a string", NULL},
    {"json-lone-surrogate.json", true, 7, 23, "a lone high surrogate \\uD83D", NULL},
    /* encodings and garbage: the offending byte's own line:column */
    {"hw-bad-utf8.yaml", false, 3, 15, "invalid leading UTF-8 octet", "not UTF-8"},
    {"config-gzip.json", true, 1, 1, "found the control character U+001F", "not UTF-8"},
    {"blank.yaml", true, 1, 1, "empty file; expected a model", NULL},
    {"blank.yaml", false, 1, 1, "empty file; expected a hardware entry", NULL},
    /* shape: sections, lists, duplicates, typos, missing keys */
    {"model-root-list.yaml", true, 2, 1, "expected a mapping of keys to values for the model entry",
     NULL},
    {"config-array-root.json", true, 1, 1,
     "expected a mapping of keys to values for the Hugging Face config", NULL},
    {"hw-section-scalar.yaml", false, 8, 10,
     "expected a mapping of keys to values for the compute section", NULL},
    {"hw-map-for-scalar.yaml", false, 5, 13,
     "'capacity' in memory section: expected a single value, found a mapping", NULL},
    {"hw-aliases-scalar.yaml", false, 3, 10, "'aliases': expected a list, e.g. [a, b]", NULL},
    {"hw-aliases-nested.yaml", false, 3, 15, "'aliases': expected a list of plain values", NULL},
    {"model-duplicate.yaml", true, 10, 1, "duplicate key 'hidden_size' in the model entry",
     "first given at line 4"},
    {"config-duplicate.json", true, 6, 3, "duplicate key 'num_hidden_layers'",
     "first given at line 4"},
    {"hw-typo-section.yaml", false, 11, 1, "unknown key 'interconect' in the hardware entry",
     "did you mean 'interconnect'?"},
    {"hw-typo-dtype.yaml", false, 9, 3, "unknown key 'bfl6' in the compute section",
     "did you mean 'bf16'?"},
    {"hw-missing-memory.yaml", false, 2, 1, "missing required key 'memory' in the hardware entry",
     NULL},
    {"hw-missing-capacity.yaml", false, 4, 1,
     "missing required key 'capacity' in the memory section", NULL},
    {"model-no-name.yaml", true, 2, 1, "missing required key 'name' in the model entry", NULL},
    {"model-missing-vocab.yaml", true, 2, 1, "missing 'vocab_size'", NULL},
    {"config-missing-heads.json", true, 1, 1, "missing 'num_attention_heads'", NULL},
    /* a model_type whose layers are not counted as a Llama's (Mamba
     * hybrids, encoders...): refused at the key, not misread */
    {"config-jamba.json", true, 2, 17, "model_type 'jamba' is not one infcalc reads", NULL},
    /* refused at its model_type, not at a key before it that such a model
     * means otherwise (MiniMax-M3's moe_layer_freq list) */
    {"config-unread-type-last.json", true, 5, 17, "model_type 'minimax_m3' is not one infcalc reads",
     "read: llama"},
    /* Qwen-MoE dense layers by a step: not counted, so refused */
    {"config-sparse-step.json", true, 8, 26, "'decoder_sparse_step' other than 1 is not read",
     NULL},
    /* MiniMax's lightning (linear) attention layers hold no KV cache, and
     * a MiniMax shared expert is not counted: refused at the key */
    {"config-lightning-attention.json", true, 5, 21,
     "'attn_type_list' other than all 1 is not read", "MiniMax-M2's config gives 1"},
    {"config-minimax-shared.json", true, 24, 31,
     "'shared_intermediate_size' other than 0 is not read", "MiniMax-M2's config gives 0"},
    /* Llama 4's chunked attention beside a sliding window; a no_rope_layers
     * entry neither 0 nor 1 */
    {"config-chunk-and-window.json", true, 11, 29, "attention_chunk_size beside sliding_window",
     NULL},
    {"config-no-rope-value.json", true, 45, 33, "'no_rope_layers': '2' is not 0 or 1", NULL},
    /* DeepSeek Sparse Attention beside sliding windows: not modelled */
    {"config-dsa-window.json", true, 15, 17, "sliding windows beside the indexer", NULL},
    {"hw-long-name.yaml", false, 2, 7, "'name': value is too long (at most 63 characters)", NULL},
    {"hw-name-upper.yaml", false, 2, 7, "'name' must be lower-case letters", NULL},
    {"model-bad-name.yaml", true, 2, 7, "'name' must be lower-case letters", NULL},
    /* wrong types */
    {"model-bool.yaml", true, 10, 22,
     "'tie_word_embeddings': 'maybe' is not a boolean; expected true or false", NULL},
    /* a number in quotes is text (it read "4096" as 4096 and stopped at
     * "thirty-two") */
    {"config-string-count.json", true, 2, 18, "'hidden_size': a quoted string; expected a number",
     "write it without quotes"},
    /* "false" in quotes is true to transformers (a non-empty string); it
     * was read as false */
    {"config-string-bool.json", true, 21, 26,
     "'tie_word_embeddings': a quoted string; expected true or false", NULL},
    /* an empty quant_method read as no quantization (bf16, no note) */
    {"config-quant-method-empty.json", true, 30, 21, "'quant_method': empty; expected the "
     "method's name", "or give --weights"},
    /* a list read as no type (the weights went bf16) */
    {"config-dtype-list.json", true, 22, 18, "'torch_dtype': expected one type name, found a list",
     NULL},
    /* torch_dtype and dtype disagreeing: the first won without a word */
    {"config-dtype-conflict.json", true, 32, 12,
     "'dtype': float32, where the config's other type key says torch_dtype bfloat16",
     "the checkpoint has one type"},
    {"hw-count-unit.yaml", false, 15, 19, "'links_per_chip': '4 links' is not a whole number",
     NULL},
    {"hw-price-dollar.yaml", false, 29, 22,
     "'usd_per_chip_hour': '$1.00' is not a number; expected a finite non-negative number", NULL},
    {"hw-unknown-kind.yaml", false, 12, 9, "unknown interconnect kind 'infiniband'; expected ici",
     NULL},
    /* sliding and chunked (Llama 4's) layers in one model: two kinds of
     * window, not read */
    {"config-layer-kind.json", true, 10, 18,
     "'layer_types' has both sliding and chunked layers", NULL},
    /* negative, zero, NaN, Inf */
    {"model-negative.yaml", true, 6, 20, "'num_hidden_layers': '-4' has a minus sign", NULL},
    {"model-zero-layers.yaml", true, 6, 20, "'num_hidden_layers' is 0; expected 1 to 1024", NULL},
    {"model-zero-kv-heads.yaml", true, 8, 22, "'num_key_value_heads' is 0; expected 1 to 16", NULL},
    {"config-head-dim-zero.json", true, 6, 15, "'head_dim' is 0; expected 1 to 16384", NULL},
    {"hw-achieved-over-spec.yaml", false, 35, 13,
     "'hbm_read' must be at least 1 MB/s and at most the spec bandwidth (memory: bandwidth) "
     "plus 5%", "check the unit"},
    {"hw-achieved-type.yaml", false, 38, 10,
     "an achieved GEMM rate must be at least 1 GFLOP/s and at most the spec peak of that type",
     "a type the compute section lacks cannot be achieved"},
    {"hw-compute-zero.yaml", false, 10, 9,
     "'int8' is 0 FLOP/s; a compute peak must be between 1 MFLOP/s and 10 EFLOP/s", NULL},
    {"hw-inf.yaml", false, 6, 14,
     "'bandwidth': 'inf TB/s' is not a number; expected a bandwidth, e.g. '3.35 TB/s'", NULL},
    {"hw-price-nan.yaml", false, 29, 22, "'usd_per_chip_hour': '.nan' is not a number", NULL},
    {"config-nan.json", true, 3, 24, "found the bare word 'NaN'", "no NaN or Infinity"},
    {"config-infinity.json", true, 4, 24, "found the bare word 'Infinity'",
     "no NaN or Infinity"},
    /* units that do not fit the field */
    {"hw-time-for-latency.yaml", false, 17, 16,
     "'hop_latency': 'GB/s' is a bandwidth, but a time is expected here", NULL},
    {"hw-bandwidth-for-rate.yaml", false, 9, 9,
     "'bf16': 'TB/s' is a bandwidth, but a compute rate is expected here", NULL},
    {"hw-unknown-unit.yaml", false, 5, 13,
     "'capacity': unknown unit 'gb'; expected a size, e.g. '80 GB'", NULL},
    {"hw-bare-scale.yaml", false, 6, 14, "'bandwidth': unknown unit 'T'; expected a bandwidth",
     NULL},
    /* absurd sizes and numbers past 64 bits */
    {"hw-huge-capacity.yaml", false, 5, 13, "'capacity' must be between 1 MB and 1 PB", NULL},
    {"hw-huge-exponent.yaml", false, 5, 13,
     "'capacity': '1e400 GB' is out of range; expected a size", NULL},
    {"hw-huge-domain.yaml", false, 16, 17, "'domain_chips' is absurdly large", NULL},
    {"hw-huge-links.yaml", false, 15, 19, "'links_per_chip' is absurdly large (more than 1024)",
     NULL},
    {"hw-price-huge.yaml", false, 29, 22,
     "'usd_per_chip_hour' must be 0 (no price) or from 0.001 to 10,000", NULL},
    /* a price so small that tokens per dollar overflow ('inf' in the table) */
    {"hw-price-tiny.yaml", false, 29, 22,
     "'usd_per_chip_hour' must be 0 (no price) or from 0.001 to 10,000", NULL},
    {"hw-count-overflow.yaml", false, 15, 19,
     "'links_per_chip': '18446744073709551616' is too large (2^63 or more)", NULL},
    {"config-overflow.json", true, 6, 17, "'vocab_size': '1e30' is too large (2^63 or more)",
     NULL},
    {"model-huge-vocab.yaml", true, 9, 13, "'vocab_size' is 1000000000; expected 1 to 16777216",
     NULL},
    {"model-huge-kv.yaml", true, 8, 22,
     "the KV cache holds 549755813888 values per token; expected at most 2^34", NULL},
    {"model-moe-overflow.yaml", true, 4, 14, "parameter count overflows 64 bits", NULL},
    /* contradictions */
    {"hw-domain-no-links.yaml", false, 16, 17,
     "a domain of more than one chip needs links_per_chip >= 1", NULL},
    {"model-kv-exceeds.yaml", true, 8, 22, "'num_key_value_heads' is 32; expected 1 to 16", NULL},
    {"config-kv-exceeds.json", true, 6, 26, "'num_key_value_heads' is 64; expected 1 to 32", NULL},
    /* Gated DeltaNet (Qwen3-Next's shape): a key left out, value heads not
     * a whole group a key head, no full attention layer, a state type */
    {"config-linear-missing.json", true, 9, 30,
     "36 of the 48 layers are linear attention (Gated DeltaNet) but 'linear_conv_kernel_dim' "
     "is missing",
     NULL},
    {"config-linear-heads.json", true, 18, 29,
     "linear_num_value_heads (24) is not a multiple of linear_num_key_heads (16)", NULL},
    {"config-linear-only.json", true, 43, 18, "every layer is linear attention", NULL},
    {"config-llama-gate.json", true, 8, 23,
     "'attn_output_gate' is not read for model_type 'llama'", "leave the key out"},
    {"config-llama-mamba.json", true, 8, 20,
     "'mamba_n_heads' is not read for model_type 'llama'", "Mamba hybrid"},
    {"config-granite-no-layer-types.json", true, 27, 17,
     "a granitemoehybrid config without 'layer_types'", NULL},
    {"model-mamba-no-type.yaml", true, 9, 16,
     "'mamba_n_heads' is not read for model_type '(none given)'", "Mamba hybrid"},
    {"config-mamba-expand.json", true, 64, 19,
     "mamba_expand (3) x hidden_size is 6144, but mamba_n_heads x mamba_d_head is 4096", NULL},
    {"config-ssm-dtype.json", true, 43, 22,
     "'mamba_ssm_dtype' is 'float8'; expected float32, bfloat16, float16 or auto",
     "recurrent state"},
    {"config-layer-types.json", true, 10, 18,
     "'layer_types' lists 3 layers but num_hidden_layers is 4", NULL},
    {"config-topk-no-experts.json", true, 8, 26,
     "'num_experts_per_tok' is given but no expert count", NULL},
    {"model-experts-twice.yaml", true, 11, 14,
     "'num_experts' (16) contradicts 'num_local_experts' (8)", NULL},
    {"model-mla-incomplete.yaml", true, 10, 15,
     "kv_lora_rank (MLA) is given but 'qk_rope_head_dim' is missing", NULL},
    {"model-pattern-no-window.yaml", true, 10, 25,
     "'sliding_window_pattern' needs a sliding_window", NULL},
    {"model-totals-no-kv.yaml", true, 5, 13,
     "a model stating 'parameters' must also state 'kv_values_per_token'", NULL},
    {"model-totals-huge.yaml", true, 6, 14,
     "'hidden_size' is 1000000000000000000; expected 1 to 1048576", NULL},
    {"model-max-pos-zero.yaml", true, 10, 26,
     "'max_position_embeddings' is 0; expected 1 to 1099511627776", NULL},
    {"model-totals-window.yaml", true, 8, 17,
     "'sliding_window' is not read beside 'parameters'", "leave it out"},
    {"model-active-exceeds.yaml", true, 6, 20,
     "'active_parameters' (8000000000) exceeds 'parameters' (7000000000)", NULL},
};

enum { N_BROKEN = sizeof broken / sizeof broken[0] };

#endif
