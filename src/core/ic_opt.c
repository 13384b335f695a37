/* ic_opt: the option table and the one parser of option values. */
#include "ic_opt.h"

#include "ic_decode.h"
#include "ic_moe.h"
#include "ic_sched.h"
#include "ic_sim.h"
#include "ic_serving.h"
#include "ic_step.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const cmd_names[IC_CMD_COUNT] = {
    [IC_CMD_DECODE] = "decode",     [IC_CMD_LIST] = "list",         [IC_CMD_SHOW] = "show",
    [IC_CMD_BENCH] = "bench",       [IC_CMD_VALIDATE] = "validate", [IC_CMD_PREFILL] = "prefill",
    [IC_CMD_SPECDEC] = "specdec",   [IC_CMD_MOE] = "moe",           [IC_CMD_BATCHING] = "batching",
    [IC_CMD_PREFIX] = "prefix",     [IC_CMD_DISAGG] = "disagg",     [IC_CMD_COST] = "cost",
    [IC_CMD_OPTIMIZE] = "optimize", [IC_CMD_BESTOFN] = "bestofn",
    [IC_CMD_CHECK] = "check-published", [IC_CMD_SIMULATE] = "simulate",
    [IC_CMD_SERVE] = "serve",       [IC_CMD_HELP] = "help",
};
_Static_assert(sizeof cmd_names / sizeof cmd_names[0] == IC_CMD_COUNT, "command names");

const char *ic_cmd_name(enum ic_cmd c) { return c < IC_CMD_COUNT ? cmd_names[c] : "?"; }

enum ic_cmd ic_cmd_find(const char *word)
{
    for (int c = 0; c < IC_CMD_COUNT; c++)
        if (strcmp(word, cmd_names[c]) == 0)
            return (enum ic_cmd)c;
    return IC_CMD_COUNT;
}

/* ---- the table ------------------------------------------------------------ */

#define C(c) (UINT64_C(1) << IC_CMD_##c)
/* the commands built on a decode or prefill step of --model on --hw */
#define STEP_CMDS (C(DECODE) | C(PREFILL) | C(SPECDEC) | C(MOE) | C(BATCHING) | C(PREFIX) | \
                   C(DISAGG) | C(COST) | C(BESTOFN) | C(SIMULATE))
#define ALL_CMDS ((UINT64_C(1) << IC_CMD_COUNT) - 1)
#define F(field) offsetof(struct ic_opts, field)
#define MAXC ((double)IC_MODEL_MAX_CONTEXT)

static const char *const comm_choices[] = {"overlap", "serial", NULL};
static const char *const kv_placement_choices[] = {"split", "copy", NULL};
static const char *const estimate_choices[] = {"ideal", "expected", NULL};
static const char *const format_choices[] = {"table", "csv", "json", NULL};
static const char *const attention_choices[] = {"flash", "unfused", NULL};
static const char *const device_choices[] = {"cpu", "cuda", NULL};
static const char *const dist_choices[] = {"fixed", "uniform", "lognormal", "gamma", NULL};
static const char *const sched_choices[] = {"chunked", "prefill-first", NULL};
static const char *const rank_choices[] = {"cost", "capacity", NULL};
static const char *const router_choices[] = {"round-robin", "least-loaded", NULL};
static const char *const preempt_choices[] = {"recompute", "swap", NULL};
_Static_assert(IC_ROUTE_ROUND_ROBIN == 0 && IC_ROUTE_LEAST_LOADED == 1, "router choices");
_Static_assert(IC_PREEMPT_RECOMPUTE == 0 && IC_PREEMPT_SWAP == 1, "preemption choices");
_Static_assert(IC_DIST_FIXED == 0 && IC_DIST_UNIFORM == 1 && IC_DIST_LOGNORMAL == 2 &&
                   IC_DIST_GAMMA == 3, "distribution choices");
_Static_assert(IC_SCHED_CHUNKED == 0 && IC_SCHED_PREFILL_FIRST == 1, "scheduler choices");
_Static_assert(IC_RANK_COST == 0 && IC_RANK_CAPACITY == 1, "rank choices");
_Static_assert(IC_COMM_OVERLAP == 0 && IC_COMM_SERIAL == 1, "comm choices");
_Static_assert(IC_EST_IDEAL == 0 && IC_EST_EXPECTED == 1, "estimate choices");
_Static_assert(IC_FMT_TABLE == 0 && IC_FMT_CSV == 1 && IC_FMT_JSON == 2, "format choices");
_Static_assert(IC_ATTN_FLASH == 0 && IC_ATTN_UNFUSED == 1, "attention choices");

const struct ic_opt_def ic_opt_table[IC_OPT_COUNT] = {
    [IC_OPT_MODEL] = {"--model", IC_OK_TEXT, "M", 0, 0, NULL,
                      STEP_CMDS | C(OPTIMIZE) | C(VALIDATE), C(DECODE),
                      "a modeldb name or alias, a model YAML file or a Hugging Face\n"
                      "config.json ('infcalc list models'); '-' reads standard input",
                      F(model)},
    [IC_OPT_HW] = {"--hw", IC_OK_TEXT, "H", 0, 0, NULL,
                   STEP_CMDS | C(OPTIMIZE) | C(VALIDATE), C(DECODE) | C(OPTIMIZE),
                   "a hwdb name or alias, or a hardware YAML file ('infcalc list hw')", F(hw)},
    [IC_OPT_CHIPS] = {"--chips", IC_OK_COUNT, "N", 1, (double)IC_DECODE_MAX_CHIPS, NULL,
                      STEP_CMDS, C(DECODE),
                      "chips holding one tensor-parallel replica (default 1)", F(chips)},
    [IC_OPT_PP] = {"--pp", IC_OK_COUNT, "P", 1, (double)IC_STEP_MAX_STAGES, NULL, C(DECODE), 0,
                   "pipeline stages of --chips chips each, holding ceil(layers / P)\n"
                   "layers apiece (default 1)", F(pp)},
    [IC_OPT_MICRO] = {"--micro", IC_OK_COUNT, "M", 1, (double)IC_DECODE_MAX_BATCH, NULL,
                      C(DECODE), 0,
                      "micro-batches the batch splits into along the pipeline (default 1;\n"
                      "at most the batch: a batch sweep below it runs one sequence a micro-batch)",
                      F(micro)},
    [IC_OPT_BATCH] = {"--batch", IC_OK_COUNT, "B", 1, (double)IC_DECODE_MAX_BATCH, NULL,
                      C(DECODE) | C(PREFILL) | C(SPECDEC) | C(BATCHING) | C(DISAGG) | C(COST), 0,
                      "sequences decoded together (default 1)",
                      F(batch)},
    [IC_OPT_CONTEXT] = {"--context", IC_OK_COUNT, "S", 1, MAXC, NULL,
                        C(DECODE) | C(PREFILL) | C(SPECDEC) | C(MOE) | C(COST), C(DECODE),
                        "tokens per sequence, the one being decoded included (default 2048)",
                        F(context)},
    [IC_OPT_WEIGHTS] = {"--weights", IC_OK_DTYPE, "T", 0, 0, NULL, STEP_CMDS | C(OPTIMIZE),
                        C(DECODE) | C(OPTIMIZE),
                        "weight storage: fp32 bf16 fp16 fp8 int8 int4 fp4 (default: the\n"
                        "type the model's entry ships, e.g. deepseek-v3's fp8, else bf16)",
                        F(weights)},
    [IC_OPT_KV] = {"--kv", IC_OK_DTYPE, "T", 0, 0, NULL, STEP_CMDS | C(OPTIMIZE),
                   C(DECODE) | C(OPTIMIZE),
                   "KV-cache storage, the same types (default bf16)", F(kv)},
    [IC_OPT_COMPUTE] = {"--compute", IC_OK_DTYPE, "T", 0, 0, NULL, STEP_CMDS, C(DECODE),
                        "matmul type; the chip must list it (default bf16)", F(compute)},
    [IC_OPT_COMM] = {"--comm", IC_OK_CHOICE, "MODE", 0, 0, comm_choices, STEP_CMDS, 0,
                     "overlap (default: collectives hide under memory traffic, a lower bound)\n"
                     "or serial (they add to the step); an accelerator's expected time\n"
                     "runs them after the kernels either way", F(comm)},
    [IC_OPT_KV_PLACEMENT] = {"--kv-placement", IC_OK_CHOICE, "P", 0, 0, kv_placement_choices,
                             STEP_CMDS | C(OPTIMIZE), 0,
                             "past the KV heads (more chips than KV heads, or chips\n"
                             "and heads that do not divide each other; MLA's one\n"
                             "latent: 2 or more), split (default: the chips sharing a\n"
                             "head split the sequences, the least cache a chip holds)\n"
                             "or copy (each keeps its heads' cache of every sequence,\n"
                             "as vLLM's and SGLang's tensor parallelism do); with\n"
                             "--engine, the profile's placement where it states one",
                             F(kv_placement)},
    [IC_OPT_ESTIMATE] = {"--estimate", IC_OK_CHOICE, "E", 0, 0, estimate_choices,
                         STEP_CMDS | C(OPTIMIZE), 0,
                         "ideal (spec-sheet peaks) or expected (the entry's measured or\n"
                         "achieved figures); default: decode and simulate, expected on a\n"
                         "measured entry (infcalc bench), else ideal (decode shows the\n"
                         "expected step beside it); the serving analyses and optimize,\n"
                         "ideal; --engine implies expected",
                         F(estimate)},
    [IC_OPT_SWEEP] = {"--sweep", IC_OK_AXES, "AXIS[,AXIS]", 0, 0, NULL, C(DECODE), 0,
                      "batch, context, chips or precision; two axes give a grid", F(sweep)},
    [IC_OPT_FORMAT] = {"--format", IC_OK_CHOICE, "F", 0, 0, format_choices,
                       STEP_CMDS | C(OPTIMIZE) | C(CHECK), 0,
                       "table (default), csv or json (SI units, stable field names)",
                       F(format)},
    [IC_OPT_PLOT] = {"--plot", IC_OK_TEXT, "FILE", 0, 0, NULL,
                     C(DECODE) | C(PREFILL) | C(OPTIMIZE) | C(CHECK) | C(SIMULATE), 0,
                     "draw the chart into FILE (.png, .svg or .pdf); checked before any work",
                     F(plot)},
    [IC_OPT_PLOT_SIZE] = {"--plot-size", IC_OK_SIZE2, "WxH", 0, 0, NULL,
                          C(DECODE) | C(PREFILL) | C(OPTIMIZE) | C(CHECK) | C(SIMULATE), 0,
                          "picture size in pixels, 320x240 to 10000x10000 (default 1600x1000)",
                          F(plot_size)},
    [IC_OPT_DB] = {"--db", IC_OK_TEXT, "DIR", 0, 0, NULL,
                   STEP_CMDS | C(OPTIMIZE) | C(LIST) | C(SHOW) | C(SERVE) | C(CHECK) |
                       C(VALIDATE), 0,
                   "folder holding hwdb/ and modeldb/ (default: $INFCALC_DB, then the\n"
                   "installed or source-tree databases)", F(db)},

    [IC_OPT_DEVICE] = {"--device", IC_OK_CHOICE, "D", 0, 0, device_choices,
                       C(BENCH) | C(VALIDATE), 0, "cpu (default) or cuda (device 0)",
                       F(device)},
    [IC_OPT_THREADS] = {"--threads", IC_OK_COUNT, "N", 1, IC_MAX_THREADS, NULL,
                        C(BENCH) | C(VALIDATE), 0,
                        "threads of the reference kernel (default: every CPU this process may "
                        "use)", F(threads)},
    [IC_OPT_QUICK] = {"--quick", IC_OK_FLAG, NULL, 0, 0, NULL, C(BENCH) | C(VALIDATE), 0,
                      "a short run (seconds to a minute)", 0},
    [IC_OPT_OUT] = {"--out", IC_OK_TEXT, "FILE", 0, 0, NULL, C(BENCH), 0,
                    "the hardware entry to write (default this-machine.yaml, this-gpu.yaml)",
                    F(out)},
    [IC_OPT_NAME] = {"--name", IC_OK_TEXT, "NAME", 0, 0, NULL, C(BENCH), 0,
                     "the entry's name: lower-case letters, digits, '-' or '.'", F(name)},
    [IC_OPT_LLC] = {"--llc", IC_OK_BYTES, "SIZE", 1024, 68719476736.0, NULL, C(BENCH), 0,
                    "the last-level cache the buffers are sized from (e.g. 32MiB; default:\n"
                    "what sysfs, else sysconf, says, unless a working-set ladder finds\n"
                    "reads at DRAM speed below half of it: then the ladder's cache)", F(llc_bytes)},
    [IC_OPT_ROUNDS] = {"--rounds", IC_OK_COUNT, "R", 1, IC_MAX_ROUNDS, NULL, C(VALIDATE), 0,
                       "rounds over the points (default 3)", F(rounds)},
    [IC_OPT_SEED] = {"--seed", IC_OK_COUNT, "S", 1, (double)UINT32_MAX, NULL,
                     C(VALIDATE) | C(SIMULATE) | C(OPTIMIZE), 0,
                     "the random seed (validate: of the order and the kernels' weights)", F(seed)},
    [IC_OPT_CSV] = {"--csv", IC_OK_TEXT, "FILE", 0, 0, NULL, C(VALIDATE), 0,
                    "the per-point CSV (default plots/validate-cpu.csv)", F(csv)},
    [IC_OPT_PLOT_PREFIX] = {"--plot-prefix", IC_OK_TEXT, "PREFIX", 0, 0, NULL, C(VALIDATE), 0,
                            "the charts' path prefix (default plots/validate-cpu)",
                            F(plot_prefix)},

    [IC_OPT_PROMPT] = {"--prompt", IC_OK_COUNT, "T", 1, (double)IC_PREFILL_MAX_TOKENS, NULL,
                       C(PREFILL) | C(BATCHING) | C(PREFIX) | C(DISAGG) | C(COST) |
                           C(OPTIMIZE) | C(BESTOFN) | C(SIMULATE), 0,
                       "prompt tokens (default 2048)", F(prompt)},
    [IC_OPT_PROMPTS] = {"--prompts", IC_OK_COUNT, "N", 1, (double)IC_PREFILL_MAX_TOKENS, NULL,
                        C(PREFILL) | C(PREFIX) | C(DISAGG), 0,
                        "prompts prefilled together (default 1)", F(prompts)},
    [IC_OPT_OUTPUT] = {"--output", IC_OK_COUNT, "L", 1, MAXC, NULL,
                       C(BATCHING) | C(DISAGG) | C(OPTIMIZE) | C(BESTOFN) | C(SIMULATE), 0,
                       "output tokens per request (default 256)", F(output)},
    [IC_OPT_MFU] = {"--mfu", IC_OK_NUM, "X", 1e-6, 1, NULL,
                    C(PREFILL) | C(PREFIX) | C(DISAGG) | C(COST) | C(OPTIMIZE) | C(BESTOFN) |
                        C(SIMULATE), 0,
                    "prefill's model FLOPs utilization, 0 < X <= 1 (default: the matmul\n"
                    "rate of the entry's measured: section, as infcalc bench writes, over its\n"
                    "peak where it has one, else 0.4; achieved: rates are not used here;\n"
                    "the ideal bound's only: refused at the expected estimate, which\n"
                    "times the prefill at the entry's achieved rates)",
                    F(mfu)},
    [IC_OPT_QUEUE] = {"--queue", IC_OK_TIME, "TIME", 0, 1e6, NULL, C(PREFILL) | C(PREFIX), 0,
                      "waiting time before the prefill (200ms, 0.5s; default 0)", F(queue_s)},
    [IC_OPT_ATTENTION] = {"--attention", IC_OK_CHOICE, "A", 0, 0, attention_choices,
                          C(PREFILL), 0, "flash or unfused (default: both)", F(attention)},
    [IC_OPT_CHUNK] = {"--chunk", IC_OK_COUNT, "C", 1, (double)IC_PREFILL_MAX_TOKENS, NULL,
                      C(PREFILL), 0,
                      "chunked prefill: the prompt rides C tokens at a time on the decode\n"
                      "steps of a running batch (--batch, --context)", F(chunk)},
    [IC_OPT_ACCEPT] = {"--accept", IC_OK_NUM, "A", 0, 1, NULL, C(SPECDEC), 0,
                       "per-token acceptance, 0 to 1", F(accept)},
    [IC_OPT_DRAFT_LEN] = {"--k", IC_OK_COUNT, "K", 1, IC_SPEC_MAX_K, NULL, C(SPECDEC), 0,
                          "one draft length, shown beside the best", F(draft_len)},
    [IC_OPT_COST_RATIO] = {"--cost-ratio", IC_OK_NUM, "C", 0, 1e3, NULL, C(SPECDEC), 0,
                           "draft step / target step (e.g. 0.05), without --draft",
                           F(cost_ratio)},
    [IC_OPT_DRAFT] = {"--draft", IC_OK_TEXT, "MODEL", 0, 0, NULL, C(SPECDEC), 0,
                      "the draft model: both models' decode steps are costed on --hw with\n"
                      "--chips, --batch, --context and the types; the target's verification\n"
                      "step handles k + 1 tokens per sequence (weights and KV read once)", F(draft)},
    [IC_OPT_P] = {"--p", IC_OK_PROBS, "P1,P2,..", 0, 1, NULL, C(SPECDEC), 0,
                  "the target's next-token distribution (with --q: the acceptance rate\n"
                  "is sum min(p, q))", F(p)},
    [IC_OPT_Q] = {"--q", IC_OK_PROBS, "Q1,Q2,..", 0, 1, NULL, C(SPECDEC), 0,
                  "the draft's distribution over the same tokens", F(q)},
    [IC_OPT_PREFIX] = {"--prefix", IC_OK_COUNT, "P", 0, MAXC, NULL,
                       C(PREFILL) | C(PREFIX) | C(SIMULATE), 0,
                       "tokens of a shared prefix cached ahead of the prompt", F(prefix)},
    [IC_OPT_HIT_RATE] = {"--hit-rate", IC_OK_NUM, "H", 0, 1, NULL, C(PREFIX), 0,
                         "share of requests whose prefix is cached, 0 to 1 (default 0.5)",
                         F(hit_rate)},
    [IC_OPT_PREFIXES] = {"--prefixes", IC_OK_COUNT, "N", 1, IC_PREFIX_MAX_PREFIXES, NULL,
                         C(PREFIX), 0, "distinct prefixes held (default 1)", F(prefixes)},
    [IC_OPT_PREFILL_CHIPS] = {"--prefill-chips", IC_OK_COUNT, "N", 1,
                              (double)IC_DECODE_MAX_CHIPS, NULL, C(DISAGG) | C(SIMULATE), 0,
                              "chips per prefill server (default: --chips)", F(prefill_chips)},
    [IC_OPT_PRICE] = {"--price", IC_OK_NUM, "USD", 1e-6, 1e6, NULL, C(COST), 0,
                      "dollars per chip-hour (default: the entry's)", F(price)},
    [IC_OPT_TTFT] = {"--ttft", IC_OK_TIME, "TIME", 0, 1e6, NULL, C(OPTIMIZE) | C(SIMULATE), 0,
                     "time-to-first-token SLO (2s, 500ms)", F(ttft_s)},
    [IC_OPT_TPOT] = {"--tpot", IC_OK_TIME, "TIME", 0, 1e6, NULL, C(OPTIMIZE) | C(SIMULATE), 0,
                     "time-per-output-token SLO (50ms)", F(tpot_s)},
    [IC_OPT_TOP] = {"--top", IC_OK_COUNT, "N", 1, IC_OPTIMIZE_MAX_TOP, NULL, C(OPTIMIZE), 0,
                    "rows printed, 1 to 1000 (default 10)", F(top)},
    [IC_OPT_MAX_CHIPS] = {"--max-chips", IC_OK_COUNT, "N", 1, IC_OPTIMIZE_MAX_CHIPS, NULL,
                          C(OPTIMIZE), 0, "largest replica tried (default 64)",
                          F(max_chips)},
    [IC_OPT_SUCCESS] = {"--success", IC_OK_NUM, "P", 0, 1, NULL, C(BESTOFN), 0,
                        "one candidate's chance of success, 0 < P < 1", F(success)},
    [IC_OPT_N] = {"--n", IC_OK_COUNT, "N", 1, IC_BESTOFN_MAX_N, NULL, C(BESTOFN), 0,
                  "candidates", F(n_cand)},
    [IC_OPT_TARGET] = {"--target", IC_OK_NUM, "Q", 0, 1, NULL, C(BESTOFN), 0,
                       "the success chance wanted, 0 < Q < 1 (the fewest N that reaches it)",
                       F(target)},
    [IC_OPT_SHAPE] = {"--shape", IC_OK_NUM, "K", 0, IC_SCHED_MAX_SHAPE, NULL,
                      C(BATCHING), 0,
                      "gamma shape of the output lengths around --output: 1 exponential,\n"
                      "larger narrower, 0 every request exactly --output (default 1)", F(shape)},
    [IC_OPT_RESERVE] = {"--reserve", IC_OK_COUNT, "R", 1, MAXC, NULL, C(BATCHING), 0,
                        "contiguous KV reservation per sequence, tokens (default: the\n"
                        "model's max_position_embeddings)", F(reserve)},
    [IC_OPT_BLOCK] = {"--block", IC_OK_COUNT, "T", 1, IC_SCHED_MAX_BLOCK, NULL,
                      C(BATCHING) | C(SIMULATE) | C(OPTIMIZE), 0,
                      "paged KV block size in tokens (default 16; a linear-attention or "
                      "Mamba hybrid's enlarged to hold a layer's state, as vLLM's)",
                      F(block)},
    [IC_OPT_EP] = {"--ep", IC_OK_COUNT, "E", 1, IC_MOE_MAX_EP, NULL, C(MOE), 0,
                   "expert-parallel groups (default 1); must divide the experts", F(ep)},
    [IC_OPT_MEASUREMENTS] = {"--measurements", IC_OK_TEXT, "FILE", 0, 0, NULL, C(CHECK), 0,
                             "the published-measurement CSV (default published/decode.csv\n"
                             "in the databases' folder; '-' reads standard input)",
                             F(measurements)},
    [IC_OPT_ENGINE] = {"--engine", IC_OK_TEXT, "NAME", 0, 0, NULL,
                       STEP_CMDS | C(OPTIMIZE), 0,
                       "the serving engine's profile for the expected estimate: an\n"
                       "enginedb name or alias, or a file ('infcalc list engines');\n"
                       "default: a good engine on the chip (graphs, overlapped scheduling)",
                       F(engine)},

    [IC_OPT_MAX_PP] = {"--max-pp", IC_OK_COUNT, "P", 1, IC_OPTIMIZE_MAX_PP, NULL, C(OPTIMIZE), 0,
                       "most pipeline stages tried: the powers of 2 up to P (default 8)",
                       F(max_pp)},
    [IC_OPT_RANK] = {"--rank", IC_OK_CHOICE, "R", 0, 0, rank_choices, C(OPTIMIZE), 0,
                     "cost (default: the closed form's $ per million tokens) or capacity\n"
                     "(the cheapest by simulated capacity under the P99 SLOs)", F(rank)},
    [IC_OPT_SHORTLIST] = {"--shortlist", IC_OK_COUNT, "N", 1, IC_OPTIMIZE_MAX_SIM, NULL,
                          C(OPTIMIZE), 0,
                          "--rank capacity: configurations simulated, the closed form's\n"
                          "cheapest (default 16)", F(shortlist)},

    [IC_OPT_RATE] = {"--rate", IC_OK_NUM, "R", 0, 1e6, NULL, C(SIMULATE) | C(OPTIMIZE), 0,
                     "requests per second, Poisson arrivals (default 0: all at once, offline)",
                     F(rate)},
    [IC_OPT_RATES] = {"--rates", IC_OK_NUM, "R", 1e-9, 1e6, NULL, C(SIMULATE), C(SIMULATE),
                      "a sweep over these rates (default: 10% to 120% of the offline "
                      "throughput): latency percentiles against load, the capacity under the "
                      "SLOs", F(rates)},
    [IC_OPT_REQUESTS] = {"--requests", IC_OK_COUNT, "N", 1, 1e7, NULL, C(SIMULATE) | C(OPTIMIZE), 0,
                         "requests simulated, the warm-up included (default 2000; with "
                         "--trace: every line)", F(requests)},
    [IC_OPT_WARMUP] = {"--warmup", IC_OK_COUNT, "N", 0, 1e7, NULL, C(SIMULATE), 0,
                       "the first requests to arrive, left out of the statistics (default: "
                       "10% of --requests under a rate, none offline or for every line "
                       "of a --trace; the header says how many)", F(warmup)},
    [IC_OPT_PROMPT_DIST] = {"--prompt-dist", IC_OK_CHOICE, "D", 0, 0, dist_choices,
                            C(SIMULATE) | C(OPTIMIZE), 0,
                            "prompt lengths: fixed (default), uniform, lognormal or gamma "
                            "around --prompt", F(prompt_dist)},
    [IC_OPT_PROMPT_CV] = {"--prompt-cv", IC_OK_NUM, "CV", 0, 10, NULL, C(SIMULATE) | C(OPTIMIZE), 0,
                          "their standard deviation over the mean (uniform: the half width "
                          "over the mean; default 0.5 for a spread)", F(prompt_cv)},
    [IC_OPT_OUTPUT_DIST] = {"--output-dist", IC_OK_CHOICE, "D", 0, 0, dist_choices,
                            C(SIMULATE) | C(OPTIMIZE), 0, "output lengths, the same choices around --output",
                            F(output_dist)},
    [IC_OPT_OUTPUT_CV] = {"--output-cv", IC_OK_NUM, "CV", 0, 10, NULL, C(SIMULATE) | C(OPTIMIZE), 0,
                          "their spread, as --prompt-cv", F(output_cv)},
    [IC_OPT_MAX_SEQS] = {"--max-seqs", IC_OK_COUNT, "N", 1, (double)IC_DECODE_MAX_BATCH, NULL,
                         C(SIMULATE) | C(OPTIMIZE), 0, "sequences running at once (default 256, or the --engine\n"
                         "profile's max_batch)",
                         F(max_seqs)},
    [IC_OPT_MAX_TOKENS] = {"--max-tokens", IC_OK_COUNT, "N", 1, (double)IC_PREFILL_MAX_TOKENS,
                           NULL, C(SIMULATE) | C(OPTIMIZE), 0, "new tokens per step (default 8192)",
                           F(max_tokens)},
    [IC_OPT_SCHEDULER] = {"--scheduler", IC_OK_CHOICE, "S", 0, 0, sched_choices, C(SIMULATE) | C(OPTIMIZE),
                          0,
                          "chunked (default: prompts in chunks beside the decodes) or "
                          "prefill-first (a step with a prompt to prefill prefills only)",
                          F(scheduler)},
    [IC_OPT_MEM_UTIL] = {"--mem-util", IC_OK_NUM, "X", 1e-3, 1, NULL, C(SIMULATE) | C(OPTIMIZE), 0,
                         "share of memory the server uses (default 0.9)", F(mem_util)},
    [IC_OPT_TRACE] = {"--trace", IC_OK_TEXT, "FILE", 0, 0, NULL, C(SIMULATE), 0,
                      "requests from a CSV, read as it streams: arrival_s,prompt,output"
                      "[,prefix_id[,prefix_tokens]]; replayed, or with --rate/--rates its "
                      "lengths in order at Poisson arrivals (--prompt, --output and their "
                      "-dist and -cv are refused beside it)", F(trace)},
    [IC_OPT_REQUESTS_CSV] = {"--requests-csv", IC_OK_TEXT, "FILE", 0, 0, NULL, C(SIMULATE), 0,
                             "one run's requests, one a line (arrival, first token, finish, "
                             "TTFT, TPOT, E2E, lengths, cached, preemptions, replica)",
                             F(requests_csv)},
    [IC_OPT_PREFIX_HIT] = {"--prefix-hit", IC_OK_NUM, "H", 0, 0.999999, NULL, C(SIMULATE), 0,
                           "share of each prompt found in the prefix cache, floor(H x\n"
                           "prompt) tokens (not rounded to blocks; at most all but one),\n"
                           "in blocks of its own (requests without a trace prefix id; a\n"
                           "prefix all requests share is a trace's prefix id; default 0)",
                           F(prefix_hit)},
    [IC_OPT_REPLICAS] = {"--replicas", IC_OK_COUNT, "R", 1, IC_SIM_MAX_REPLICAS, NULL,
                         C(SIMULATE), 0, "replicas behind a router (default 1)", F(replicas)},
    [IC_OPT_ROUTER] = {"--router", IC_OK_CHOICE, "P", 0, 0, router_choices, C(SIMULATE), 0,
                       "round-robin (default) or least-loaded (fewest requests in flight)",
                       F(router)},
    [IC_OPT_PREFILL_SERVERS] = {"--prefill-servers", IC_OK_COUNT, "P", 1, IC_SIM_MAX_REPLICAS,
                                NULL, C(SIMULATE), 0,
                                "disaggregated: prefill servers in all, behind their own\n"
                                "router (default: one per replica, --replicas); P:R as\n"
                                "infcalc disagg's split", F(prefill_servers)},
    [IC_OPT_PREEMPT] = {"--preempt", IC_OK_CHOICE, "P", 0, 0, preempt_choices, C(SIMULATE), 0,
                        "recompute (default) or swap (the KV to host memory and back over "
                        "the host link)", F(preempt)},

    [IC_OPT_PORT] = {"--port", IC_OK_COUNT, "N", 0, 65535, NULL, C(SERVE), 0,
                     "TCP port (default 8080; 0 picks a free one and says which)", F(port)},
    [IC_OPT_BIND] = {"--bind", IC_OK_TEXT, "ADDR", 0, 0, NULL, C(SERVE), 0,
                     "IPv4 address to listen on (default 127.0.0.1, this machine)", F(bind)},
    [IC_OPT_HELP] = {"--help", IC_OK_FLAG, NULL, 0, 0, NULL, ALL_CMDS, 0, "this text", 0},
    [IC_OPT_VERSION] = {"--version", IC_OK_FLAG, NULL, 0, 0, NULL, ALL_CMDS, 0,
                        "print the version", 0},
};
_Static_assert(sizeof ic_opt_table / sizeof ic_opt_table[0] == IC_OPT_COUNT, "options");
_Static_assert(IC_CMD_COUNT <= 64, "command masks are 64 bits");

/* Where an option means something particular to one command, its help
 * there (the table's line is the general one). */
static const struct {
    enum ic_cmd cmd;
    enum ic_opt opt;
    const char *help;
} help_for[] = {
    {IC_CMD_PREFILL, IC_OPT_BATCH, "with --chunk: sequences decoding beside the chunk (default 1)"},
    {IC_CMD_PREFILL, IC_OPT_CONTEXT, "with --chunk: their tokens per sequence (default 2048)"},
    {IC_CMD_PREFILL, IC_OPT_PLOT, "TTFT against prompt length, fused and unfused (.png .svg .pdf)"},
    {IC_CMD_PREFILL, IC_OPT_PREFIX, "tokens already cached ahead of the prompt (default 0)"},
    {IC_CMD_MOE, IC_OPT_CHIPS, "chips per group (tensor parallel, default 1)"},
    {IC_CMD_BATCHING, IC_OPT_PROMPT, "prompt tokens per request (default 512)"},
    {IC_CMD_BATCHING, IC_OPT_OUTPUT, "mean output tokens (default 256)"},
    {IC_CMD_PREFIX, IC_OPT_PROMPT, "prompt tokens, prefix included (default 2048)"},
    {IC_CMD_PREFIX, IC_OPT_PREFIX, "shared prefix tokens, 1 to T - 1 (required)"},
    {IC_CMD_DISAGG, IC_OPT_PROMPTS, "prompts a prefill server runs together (default 1)"},
    {IC_CMD_DISAGG, IC_OPT_CHIPS, "chips per decode server (default 1)"},
    {IC_CMD_DISAGG, IC_OPT_BATCH, "sequences a decode server runs together (default 1)"},
    {IC_CMD_COST, IC_OPT_PROMPT, "prompt tokens for the prefill cost (default 2048)"},
    {IC_CMD_BESTOFN, IC_OPT_OUTPUT, "output tokens per candidate (default 256)"},
    {IC_CMD_SPECDEC, IC_OPT_MODEL, "with --draft: the target model"},
    {IC_CMD_SPECDEC, IC_OPT_BATCH, "with --draft: sequences verified together (default 1)"},
    {IC_CMD_OPTIMIZE, IC_OPT_HW, "chips to search, a list (default: all of hwdb)"},
    {IC_CMD_OPTIMIZE, IC_OPT_MFU, "prefill MFU (default 0.4)"},
    {IC_CMD_OPTIMIZE, IC_OPT_WEIGHTS, "weight types searched, a list (default: bf16 fp8 int8 "
                                      "int4 fp4)"},
    {IC_CMD_OPTIMIZE, IC_OPT_KV, "KV types searched, a list (default: bf16 fp8)"},
    {IC_CMD_OPTIMIZE, IC_OPT_RATE, "demand, requests/s: the replicas each configuration needs"},
    {IC_CMD_OPTIMIZE, IC_OPT_REQUESTS, "--rank capacity: requests per simulated run (default "
                                       "2000)"},
    {IC_CMD_OPTIMIZE, IC_OPT_SEED, "--rank capacity: the arrivals' and lengths' seed (default 1)"},
    {IC_CMD_OPTIMIZE, IC_OPT_PLOT, "dollars per million tokens against TPOT: the cheapest\n"
                                   "frontier per chip type (.png .svg .pdf)"},
    {IC_CMD_CHECK, IC_OPT_PLOT, "predicted against measured time per token, one point per row"},
    {IC_CMD_VALIDATE, IC_OPT_HW, "an entry written by 'infcalc bench'"},
    {IC_CMD_SIMULATE, IC_OPT_PROMPT, "mean prompt tokens (default 2048)"},
    {IC_CMD_SIMULATE, IC_OPT_OUTPUT, "mean output tokens (default 256)"},
    {IC_CMD_SIMULATE, IC_OPT_TTFT, "P99 time-to-first-token SLO: goodput and capacity"},
    {IC_CMD_SIMULATE, IC_OPT_TPOT, "P99 time-per-output-token SLO: goodput and capacity"},
    {IC_CMD_SIMULATE, IC_OPT_BLOCK, "paged KV block, tokens (default 16; a hybrid's "
                                    "enlarged to hold a layer's state, as vLLM's)"},
    {IC_CMD_SIMULATE, IC_OPT_MFU, "ideal estimate: prefill FLOPs at this share of peak "
                                  "(default 0.4)"},
    {IC_CMD_SIMULATE, IC_OPT_SEED, "the arrivals' and lengths' seed (default 1; only where\n"
                                   "they are drawn: --rate, --rates or a distribution)"},
    {IC_CMD_VALIDATE, IC_OPT_SEED, "the random seed of the points' order and (plus the "
                                   "kernel's index) of the kernels' weights (default: 20261129 "
                                   "for the order, 7 for the weights)"},
    {IC_CMD_VALIDATE, IC_OPT_THREADS, "threads of the reference kernel (default: the "
                                      "threads the entry was benched with)"},
    {IC_CMD_SIMULATE, IC_OPT_PREFIX, "tokens of a trace's prefix id where its line gives none"},
    {IC_CMD_OPTIMIZE, IC_OPT_MEM_UTIL, "share of memory a chip's batch may fill, weights included\n"
                                       "(default: all of it in the closed form, 0.9 in --rank\n"
                                       "capacity's simulated pool)"},
    {IC_CMD_SIMULATE, IC_OPT_PREFILL_CHIPS, "disaggregated: each replica's prefill server "
                                            "(--chips: its decode server)"},
    {IC_CMD_SIMULATE, IC_OPT_PLOT, "P50/P99 TTFT and TPOT against requests/s, the SLOs and "
                                   "the capacity marked: over --rates, or alone 10% to 120% "
                                   "of the offline throughput (not with --rate)"},
};

/* The option's help for cmd: the command's own line where it has one. */
static const char *help_of(enum ic_cmd cmd, int k)
{
    for (size_t j = 0; j < sizeof help_for / sizeof help_for[0]; j++)
        if (help_for[j].cmd == cmd && (int)help_for[j].opt == k)
            return help_for[j].help;
    return ic_opt_table[k].help;
}

/* The hint of a value refused for option k under cmd: the option as --help
 * shows it ("--chips N[,..]: chips holding one tensor-parallel replica
 * (default 1)"), on one line. */
static void value_hint(struct ic_err *err, enum ic_cmd cmd, int k)
{
    if (!err || err->hint[0])
        return;
    const struct ic_opt_def *d = &ic_opt_table[k];
    bool list = d->list_cmds & (UINT64_C(1) << cmd);
    char help[400];
    snprintf(help, sizeof help, "%s", help_of(cmd, k));
    for (char *c = help; *c; c++)
        if (*c == '\n')
            *c = ' ';
    ic_err_hint(err, "%s%s%s%s: %s", d->name, d->meta ? " " : "", d->meta ? d->meta : "",
                list ? "[,..]" : "", help);
}

/* ---- names ---------------------------------------------------------------- */

const char *ic_text_nearest(const char *word, const char *const *cands, int n)
{
    const char *best = NULL;
    unsigned bd = 255;
    for (int i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        unsigned d = ic_text_distance(word, cands[i]);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    /* a short word is near only a word one or two edits away ('-x' is not
     * a typo of '--hw') */
    size_t len = strlen(word);
    unsigned limit = len <= 3 ? 1 : len < 9 ? 2 : 3;
    return bd <= limit ? best : NULL;
}

int ic_opt_find(const char *name)
{
    for (int k = 0; k < IC_OPT_COUNT; k++)
        if (strcmp(name, ic_opt_table[k].name) == 0)
            return k;
    return -1;
}

const char *ic_opt_name(int opt)
{
    return opt >= 0 && opt < IC_OPT_COUNT ? ic_opt_table[opt].name : "";
}

const char *ic_opt_nearest(const char *name, enum ic_cmd cmd)
{
    const uint64_t bit = UINT64_C(1) << cmd;
    const size_t len = strlen(name);
    const char *names[IC_OPT_COUNT], *begun = NULL;
    int n = 0, n_begun = 0;
    for (int k = 0; k < IC_OPT_COUNT; k++) {
        if (!(ic_opt_table[k].cmds & bit))
            continue;
        names[n++] = ic_opt_table[k].name;
        if (len > 3 && strncmp(ic_opt_table[k].name, name, len) == 0) {
            begun = ic_opt_table[k].name;
            n_begun++;
        }
    }
    return n_begun == 1 ? begun : ic_text_nearest(name, names, n);
}

void ic_opts_init(struct ic_opts *o, enum ic_cmd cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
}

void ic_opts_free(struct ic_opts *o)
{
    free(o->p);
    free(o->q);
    o->p = o->q = NULL;
    for (int k = 0; k < IC_OPT_COUNT; k++) {
        free(o->owned[k]);
        o->owned[k] = NULL;
    }
}

/* ---- values --------------------------------------------------------------- */

static int fail(struct ic_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ic_err *err, const char *fmt, ...)
{
    if (err) {
        memset(err, 0, sizeof *err);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return IC_EINVAL;
}

/* The value parsers below read numbers with ic_units' grammar, the one the
 * files use (docs/numbers.md), and add the option's range. */

static int parse_count(const char *name, const char *t, double lo, double hi, uint64_t *out,
                       struct ic_err *err)
{
    unsigned long long l = (unsigned long long)lo, h = (unsigned long long)hi;
    char why[160];
    uint64_t v;
    /* the files' values come trimmed; an option's space is a typo */
    if (!*t || isspace((unsigned char)*t))
        return fail(err, "%s: '%s' is not a whole number; expected %llu to %llu", name, t, l, h);
    /* digits past 2^63 are a number out of range, not a malformed one */
    bool digits = strspn(t, "0123456789") == strlen(t) && t[0] != '0';
    if (!digits && ic_count_parse(t, &v, why, sizeof why))
        return fail(err, "%s: %s; expected %llu to %llu", name, why, l, h);
    if (digits) {
        errno = 0;
        unsigned long long d = strtoull(t, NULL, 10);
        if (errno == ERANGE)
            return fail(err, "%s: %s is out of range; expected %llu to %llu", name, t, l, h);
        v = d;
    }
    if (v < l || v > h)
        return fail(err, "%s: %s is out of range; expected %llu to %llu", name, t, l, h);
    *out = v;
    return IC_OK;
}

/* Every option's lo is >= 0: no option takes a sign (ic_number_parse
 * refuses '-0' and '-1e-300', which are not a zero to print as "-0" or
 * round away). */
static int parse_num(const char *name, const char *t, double lo, double hi, double *out,
                     struct ic_err *err)
{
    char why[160];
    double v;
    if (!*t || isspace((unsigned char)*t))
        return fail(err, "%s: '%s' is not a number; expected %g to %g", name, t, lo, hi);
    if (ic_number_parse(t, &v, why, sizeof why))
        return fail(err, "%s: %s; expected %g to %g", name, why, lo, hi);
    if (v < lo || v > hi)
        return fail(err, "%s: %s is out of range; expected %g to %g", name, t, lo, hi);
    *out = v;
    return IC_OK;
}

/* A size or a time with its unit, as in the files: a bare number is
 * refused (a time's included, docs/numbers.md). */
static int parse_qty(const char *name, const char *t, enum ic_qty q, double lo, double hi,
                     double *out, struct ic_err *err)
{
    char why[200];
    double v;
    if (isspace((unsigned char)*t) || (*t && isspace((unsigned char)t[strlen(t) - 1])))
        return fail(err, "%s: '%s' is not %s; expected e.g. %s (no space around it)", name, t,
                    ic_qty_name(q), ic_qty_example(q));
    if (ic_qty_parse(t, q, &v, why, sizeof why))
        return fail(err, "%s: %s", name, why);
    if (!(v >= lo && v <= hi))
        return fail(err, "%s: %s is out of range; expected %g to %g%s", name, t, lo, hi,
                    q == IC_QTY_TIME ? " s" : " B");
    *out = v;
    return IC_OK;
}

static int parse_choice(const struct ic_opt_def *d, const char *t, int *out, struct ic_err *err)
{
    char list[160] = "";
    int n = 0;
    for (; d->choices[n]; n++)
        if (strcmp(t, d->choices[n]) == 0) {
            *out = n;
            return IC_OK;
        }
    for (int i = 0; i < n; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                 d->choices[i]);
    }
    fail(err, "%s: unknown value '%s'; expected %s", d->name, t, list);
    const char *near = ic_text_nearest(t, d->choices, n);
    if (near && err)
        ic_err_hint(err, "did you mean '%s'?", near);
    return IC_EINVAL;
}

static int parse_size2(const char *name, const char *t, int *wh, struct ic_err *err)
{
    unsigned long a, b;
    char tail;
    /* digits, 'x', digits: sscanf alone would take " 800x600" and "+800x600" */
    size_t d1 = strspn(t, "0123456789");
    bool shape = d1 && t[d1] == 'x' && strspn(t + d1 + 1, "0123456789") &&
                 !t[d1 + 1 + strspn(t + d1 + 1, "0123456789")] &&
                 t[0] != '0' && t[d1 + 1] != '0'; /* no leading zero, as counts */
    if (!shape || sscanf(t, "%lux%lu%c", &a, &b, &tail) != 2 || a < 320 || b < 240 ||
        a > 10000 || b > 10000)
        return fail(err, "%s: '%s' is not WIDTHxHEIGHT with 320x240 to 10000x10000 pixels, "
                         "e.g. 1600x1000", name, t);
    wh[0] = (int)a;
    wh[1] = (int)b;
    return IC_OK;
}

/* Whether two values of an option of kind k are one: counts and numbers
 * by value ("2048" and "2048.0"), types by type ("bf16" and "bfloat16"),
 * other text as written. */
static bool same_value(enum ic_opt_kind k, const char *x, size_t nx, const char *y, size_t ny)
{
    char a[64], b[64];
    snprintf(a, sizeof a, "%.*s", (int)(nx < 63 ? nx : 63), x);
    snprintf(b, sizeof b, "%.*s", (int)(ny < 63 ? ny : 63), y);
    char why[8];
    double va, vb;
    enum ic_dtype ta, tb;
    if ((k == IC_OK_COUNT || k == IC_OK_NUM) && ic_number_parse(a, &va, why, sizeof why) == 0 &&
        ic_number_parse(b, &vb, why, sizeof why) == 0)
        return va == vb;
    if (k == IC_OK_DTYPE && (ic_dtype_parse(a, &ta) == 0 || ic_dtype_torch(a, &ta) == 0) &&
        (ic_dtype_parse(b, &tb) == 0 || ic_dtype_torch(b, &tb) == 0))
        return ta == tb;
    return nx == ny && strncmp(x, y, nx) == 0;
}

/* The distinct non-empty values of the comma-separated lists a and b of an
 * option of kind k, in order, into buf ("8" and "8,16" -> "8,16": what the
 * option given twice means as one list, which refuses a repeat or an empty
 * value); their count (0 where they do not fit). */
static int merge_lists(char *buf, size_t n, enum ic_opt_kind k, const char *a, const char *b)
{
    int count = 0;
    size_t len = 0;
    buf[0] = '\0';
    const char *lists[2] = {a, b};
    for (int l = 0; l < 2; l++)
        for (const char *p = lists[l]; *p;) {
            size_t w = strcspn(p, ",");
            bool seen = w == 0;
            for (const char *q = buf; !seen && *q;) {
                size_t j = strcspn(q, ",");
                seen = same_value(k, q, j, p, w);
                q += j + (q[j] == ',');
            }
            if (!seen) {
                if (len + w + 2 > n)
                    return 0;
                len += (size_t)snprintf(buf + len, n - len, "%s%.*s", count ? "," : "", (int)w,
                                        p);
                count++;
            }
            p += w + (p[w] == ',');
        }
    return count;
}

/* The i-th of n comma-separated values of t into buf; false when empty. */
static bool item(const char *t, int i, char *buf, size_t cap)
{
    const char *s = t;
    for (int k = 0; k < i; k++)
        s = strchr(s, ',') + 1;
    size_t len = strcspn(s, ",");
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return len > 0;
}

static int opt_set(struct ic_opts *o, int opt, const char *text, struct ic_err *err)
{
    const struct ic_opt_def *d = &ic_opt_table[opt];
    uint64_t bit = UINT64_C(1) << o->cmd;
    const char *cmd = ic_cmd_name(o->cmd);
    if (!(d->cmds & bit)) {
        fail(err, "option '%s' does not apply to '%s'", d->name, cmd);
        if (err)
            ic_err_hint(err, "'infcalc %s --help' lists its options", cmd);
        return IC_EINVAL;
    }
    if (o->given[opt]) {
        fail(err, "option '%s' given twice", d->name);
        /* names may be aliases of one entry (h100 and h100-sxm): a list
         * of them is shown by its form, not merged */
        char merged[256];
        if (err && (d->list_cmds & bit) && d->kind == IC_OK_TEXT)
            ic_err_hint(err, "give it once; several entries are one list, each once: '%s A,B'",
                        d->name);
        else if (err && (d->list_cmds & bit) && text && o->text[opt] &&
                 merge_lists(merged, sizeof merged, d->kind, o->text[opt], text) > 1)
            ic_err_hint(err, "give it once; several values are one list: '%s %s'", d->name,
                        merged);
        else if (err)
            ic_err_hint(err, "give it once");
        return IC_EINVAL;
    }
    if (d->kind == IC_OK_FLAG) {
        if (text) {
            fail(err, "option '%s' takes no value", d->name);
            if (err)
                ic_err_hint(err, "write '%s' alone", d->name);
            return IC_EINVAL;
        }
        o->given[opt] = true;
        o->n[opt] = 1;
        return IC_OK;
    }
    if (!text)
        return fail(err, "option '%s' needs a value", d->name);
    if (!*text)
        return fail(err, "option '%s' has an empty value", d->name);
    int n = 1;
    for (const char *c = text; *c; c++)
        n += *c == ',';
    void *field = (char *)o + d->off;
    if (d->kind == IC_OK_PROBS || d->kind == IC_OK_AXES) {
        /* a list by nature: parsed whole below */
    } else if (n > 1 && !(d->list_cmds & bit)) {
        if (d->kind != IC_OK_TEXT)
            return fail(err, "%s: one value for '%s', not a list ('%s')", d->name, cmd, text);
        n = 1; /* a name or a path, commas and all */
    }
    if (n > 1 && (text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,")))
        return fail(err, "%s: empty value in list '%s'", d->name, text);
    /* a value is parsed from a copy of at most 255 characters (63 for a
     * probability or an axis): a longer one is refused, not cut (its tail
     * would go unread) */
    if (d->kind != IC_OK_TEXT) {
        const size_t cap = d->kind == IC_OK_PROBS || d->kind == IC_OK_AXES ? 64 : 256;
        for (const char *c = text; *c;) {
            const size_t len = strcspn(c, ",");
            if (len >= cap)
                return fail(err, "%s: a value of %zu characters; expected at most %zu",
                            d->name, len, cap - 1);
            c += len + (c[len] == ',');
        }
    }
    if (d->kind == IC_OK_PROBS) {
        if (n > IC_OPT_MAX_PROBS)
            return fail(err, "%s: at most %d probabilities", d->name, IC_OPT_MAX_PROBS);
        double *v = malloc((size_t)n * sizeof *v);
        if (!v)
            return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
        for (int i = 0; i < n; i++) {
            char buf[64], name[48];
            item(text, i, buf, sizeof buf);
            snprintf(name, sizeof name, "%s (entry %d)", d->name, i + 1);
            if (parse_num(name, buf, d->lo, d->hi, &v[i], err)) {
                free(v);
                return IC_EINVAL;
            }
        }
        *(double **)field = v;
    } else if (d->kind == IC_OK_AXES) {
        enum ic_axis *ax = field;
        if (n > 2)
            return fail(err, "%s: at most two axes", d->name);
        for (int i = 0; i < n; i++) {
            char buf[64];
            item(text, i, buf, sizeof buf);
            if (ic_axis_parse(buf, &ax[i])) {
                fail(err, "%s: unknown axis '%s'; expected batch, context, chips or precision",
                     d->name, buf);
                const char *axes[IC_AXIS_COUNT];
                for (int x = 0; x < IC_AXIS_COUNT; x++)
                    axes[x] = ic_axis_name((enum ic_axis)x);
                const char *near = ic_text_nearest(buf, axes, IC_AXIS_COUNT);
                if (near && err)
                    ic_err_hint(err, "did you mean '%s'?", near);
                return IC_EINVAL;
            }
            if (i == 1 && ax[0] == ax[1])
                return fail(err, "%s: axis '%s' given twice", d->name, buf);
        }
    } else {
        if (n > IC_OPT_MAX_LIST)
            return fail(err, "%s: at most %d values", d->name, IC_OPT_MAX_LIST);
        for (int i = 0; i < n; i++) {
            char buf[256];
            if (n > 1)
                item(text, i, buf, sizeof buf);
            else
                snprintf(buf, sizeof buf, "%s", text);
            int rc = IC_OK;
            switch (d->kind) {
            case IC_OK_COUNT:
                rc = parse_count(d->name, buf, d->lo, d->hi, (uint64_t *)field + i, err);
                break;
            case IC_OK_NUM:
                rc = parse_num(d->name, buf, d->lo, d->hi, (double *)field + i, err);
                break;
            case IC_OK_TIME:
                rc = parse_qty(d->name, buf, IC_QTY_TIME, d->lo, d->hi, (double *)field + i, err);
                break;
            case IC_OK_BYTES:
                rc = parse_qty(d->name, buf, IC_QTY_BYTES, d->lo, d->hi, (double *)field + i,
                               err);
                break;
            case IC_OK_DTYPE:
                if (ic_dtype_parse(buf, (enum ic_dtype *)field + i)) {
                    rc = fail(err, "%s: unknown type '%s'; expected fp32, bf16, fp16, fp8, int8, "
                                   "int4 or fp4", d->name, buf);
                    const char *types[IC_DT_COUNT];
                    for (int t = 0; t < IC_DT_COUNT; t++)
                        types[t] = ic_dtype_traits((enum ic_dtype)t)->name;
                    const char *near = ic_text_nearest(buf, types, IC_DT_COUNT);
                    enum ic_dtype torch; /* a config.json's name for one */
                    if (ic_dtype_torch(buf, &torch) == IC_OK)
                        near = ic_dtype_traits(torch)->name;
                    if (near && err)
                        ic_err_hint(err, "did you mean '%s'?", near);
                }
                break;
            case IC_OK_CHOICE:
                rc = parse_choice(d, buf, (int *)field + i, err);
                break;
            case IC_OK_SIZE2:
                rc = parse_size2(d->name, buf, field, err);
                break;
            case IC_OK_TEXT:
                if (opt == IC_OPT_BIND && inet_pton(AF_INET, text, &(struct in_addr){0}) != 1) {
                    rc = fail(err, "%s: '%s' is not an IPv4 address (four numbers 0-255 "
                                   "joined by dots)", d->name, text);
                    break;
                }
                if (n == 1) {
                    ((const char **)field)[0] = text;
                } else {
                    /* a list of names: each a piece of a copy kept in o */
                    if (!o->owned[opt] && !(o->owned[opt] = strdup(text)))
                        return ic_err_set(err, IC_ENOMEM, NULL, 0, 0, "out of memory");
                    char *s = o->owned[opt];
                    for (int k = 0; k < i; k++)
                        s += strlen(s) + 1;
                    s[strcspn(s, ",")] = '\0';
                    ((const char **)field)[i] = s;
                }
                break;
            default:
                rc = fail(err, "%s: internal error: kind %d", d->name, (int)d->kind);
            }
            if (rc)
                return rc;
            /* a value twice in a list would be the same configuration twice
             * (names keep theirs: an alias and its name are one entry,
             * found later) */
            for (int j = 0; j < i && d->kind != IC_OK_TEXT; j++) {
                bool same;
                switch (d->kind) {
                case IC_OK_COUNT:
                    same = ((uint64_t *)field)[i] == ((uint64_t *)field)[j];
                    break;
                case IC_OK_DTYPE:
                    same = ((enum ic_dtype *)field)[i] == ((enum ic_dtype *)field)[j];
                    break;
                case IC_OK_CHOICE:
                    same = ((int *)field)[i] == ((int *)field)[j];
                    break;
                case IC_OK_NUM:
                case IC_OK_TIME:
                case IC_OK_BYTES:
                    same = ((double *)field)[i] == ((double *)field)[j];
                    break;
                default:
                    same = false;
                }
                if (same) {
                    char a[256], b[256];
                    item(text, j, a, sizeof a);
                    item(text, i, b, sizeof b);
                    fail(err, "%s: '%s' and '%s' in list '%s' are the same value", d->name, a,
                         b, text);
                    if (err)
                        ic_err_hint(err, "give each value once");
                    return IC_EINVAL;
                }
            }
        }
    }
    o->given[opt] = true;
    o->n[opt] = n;
    o->text[opt] = text;
    return IC_OK;
}

int ic_opt_set(struct ic_opts *o, int opt, const char *text, struct ic_err *err)
{
    int rc = opt_set(o, opt, text, err);
    /* every refusal carries a hint: where none more particular was set,
     * the option as --help shows it */
    if (rc == IC_EINVAL)
        value_hint(err, o->cmd, opt);
    return rc;
}

/* ---- the command line ----------------------------------------------------- */

/* An option whose dashes a text editor turned into en or em dashes or
 * minus signs ("\u2014chips", "\u2212\u2212chips"): refused, with the option it
 * means (or the nearest one) to write; IC_OK for any other argument. */
static int typographic_dash(const char *arg, enum ic_cmd cmd, struct ic_err *err)
{
    static const char *const dashes[] = {"\xe2\x80\x93", "\xe2\x80\x94", "\xe2\x88\x92"};
    const char *p = arg;
    bool any = false;
    for (bool more = true; more;) {
        more = false;
        for (size_t k = 0; k < sizeof dashes / sizeof dashes[0]; k++)
            if (strncmp(p, dashes[k], 3) == 0)
                p += 3, any = more = true;
        if (*p == '-')
            p++, more = true;
    }
    if (!any || !isalpha((unsigned char)*p))
        return IC_OK;
    fail(err, "'%s' starts with a typographic dash, not two hyphens", arg);
    char name[64];
    snprintf(name, sizeof name, "--%s", p);
    name[strcspn(name, "=")] = '\0';
    const char *near = ic_opt_find(name) >= 0 ? name : ic_opt_nearest(name, cmd);
    if (err && near)
        ic_err_hint(err, "write '%s'", near);
    else if (err)
        ic_err_hint(err, "options start with two hyphens, '--'");
    return IC_EINVAL;
}

int ic_opts_parse(int argc, char **argv, struct ic_opts *o, struct ic_err *err)
{
    ic_opts_init(o, IC_CMD_DECODE);
    int i = 1;
    if (i < argc && typographic_dash(argv[i], IC_CMD_DECODE, err))
        return IC_EINVAL;
    if (i < argc && argv[i][0] != '-') {
        enum ic_cmd c = ic_cmd_find(argv[i]);
        if (c == IC_CMD_COUNT) {
            fail(err, "unknown command '%s'", argv[i]);
            const char *near = ic_text_nearest(argv[i], cmd_names, IC_CMD_COUNT);
            if (err && near)
                ic_err_hint(err, "did you mean '%s'? ('infcalc --help' lists the commands)",
                            near);
            else if (err)
                ic_err_hint(err, "'infcalc --help' lists the commands");
            return IC_EINVAL;
        }
        o->cmd = c;
        i++;
    }
    for (; i < argc; i++) {
        const char *arg = argv[i];
        if (typographic_dash(arg, o->cmd, err))
            return IC_EINVAL;
        if (arg[0] != '-' || !arg[1]) {
            if (o->n_pos >= IC_OPT_MAX_POS) {
                fail(err, "unexpected argument '%s'", arg);
                if (err)
                    ic_err_hint(err, "options start with --; 'infcalc %s --help' lists them",
                                cmd_names[o->cmd]);
                return IC_EINVAL;
            }
            o->pos[o->n_pos++] = arg;
            continue;
        }
        if (strcmp(arg, "-h") == 0)
            arg = "--help";
        char name[64];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len >= sizeof name)
            len = sizeof name - 1;
        memcpy(name, arg, len);
        name[len] = '\0';
        int k = ic_opt_find(name);
        if (k < 0) {
            fail(err, "unknown option '%s'", name);
            const char *near = ic_opt_nearest(name, o->cmd);
            if (err && near)
                ic_err_hint(err, "did you mean '%s'?", near);
            else if (err)
                ic_err_hint(err, "'infcalc %s --help' lists its options", cmd_names[o->cmd]);
            return IC_EINVAL;
        }
        const char *val = NULL;
        if (eq)
            val = eq + 1;
        else if (ic_opt_table[k].kind != IC_OK_FLAG && i + 1 < argc) {
            /* '--out --quick': the next word is an option, not this one's
             * value (a value that starts with -- is given as --out=--x) */
            const char *next = argv[i + 1];
            if (next[0] == '-' && next[1] == '-' && isalpha((unsigned char)next[2])) {
                fail(err, "option '%s' needs a value; the next word, '%s', is an option",
                     ic_opt_table[k].name, next);
                if (err)
                    ic_err_hint(err, "give the value after it ('%s VALUE'), or write '%s=%s' "
                                     "for a value that starts with --",
                                ic_opt_table[k].name, ic_opt_table[k].name, next);
                return IC_EINVAL;
            }
            val = argv[++i];
        }
        int rc = ic_opt_set(o, k, val, err);
        if (rc)
            return rc;
    }
    /* standard input can be read once: '-' for one model or chip at most */
    int stdin_uses = 0;
    for (int j = 0; o->given[IC_OPT_MODEL] && j < o->n[IC_OPT_MODEL]; j++)
        stdin_uses += strcmp(o->model[j], "-") == 0;
    for (int j = 0; o->given[IC_OPT_HW] && j < o->n[IC_OPT_HW]; j++)
        stdin_uses += strcmp(o->hw[j], "-") == 0;
    if (stdin_uses > 1) {
        fail(err, "'-' (standard input) given %d times in --model and --hw", stdin_uses);
        if (err)
            ic_err_hint(err, "standard input is read once: give the other entries as files "
                             "or names");
        return IC_EINVAL;
    }
    return IC_OK;
}

/* ---- --help --------------------------------------------------------------- */

void ic_opt_help(FILE *out, enum ic_cmd cmd)
{
    uint64_t bit = UINT64_C(1) << cmd;
    for (int k = 0; k < IC_OPT_COUNT; k++) {
        const struct ic_opt_def *d = &ic_opt_table[k];
        if (!(d->cmds & bit) || k == IC_OPT_VERSION)
            continue;
        const char *help = help_of(cmd, k);
        char head[64];
        snprintf(head, sizeof head, "  %s%s%s%s", d->name, d->meta ? " " : "",
                 d->meta ? d->meta : "", (d->list_cmds & bit) ? "[,..]" : "");
        fputs(head, out);
        int col = (int)strlen(head);
        /* the help in a column from 23, words wrapped before column 80 */
        enum { AT = 23, WIDTH = 79 };
        if (col >= AT - 1) {
            fputc('\n', out);
            col = 0;
        }
        fprintf(out, "%*s", AT - col, "");
        col = AT;
        for (const char *w = help; *w;) {
            while (*w == ' ' || *w == '\n')
                w++;
            size_t l = strcspn(w, " \n");
            if (!l)
                break;
            if (col > AT && col + 1 + (int)l > WIDTH) {
                fprintf(out, "\n%*s", AT, "");
                col = AT;
            }
            fprintf(out, "%s%.*s", col > AT ? " " : "", (int)l, w);
            col += (col > AT ? 1 : 0) + (int)l;
            w += l;
        }
        fputc('\n', out);
    }
}

void ic_opts_decode_cfg(const struct ic_opts *o, struct ic_decode_cfg *c)
{
    *c = ic_decode_defaults();
    c->both = true; /* a point shown shows the other estimate beside */
    if (o->given[IC_OPT_CHIPS])
        c->chips = o->chips[0];
    if (o->given[IC_OPT_PP])
        c->pp = o->pp;
    if (o->given[IC_OPT_MICRO])
        c->micro = o->micro;
    if (o->given[IC_OPT_BATCH])
        c->batch = o->batch;
    if (o->given[IC_OPT_CONTEXT])
        c->context = o->context[0];
    if (o->given[IC_OPT_WEIGHTS])
        c->weights = o->weights[0];
    if (o->given[IC_OPT_KV])
        c->kv = o->kv[0];
    if (o->given[IC_OPT_COMPUTE])
        c->compute = o->compute[0];
    if (o->given[IC_OPT_COMM])
        c->comm = (enum ic_comm_mode)o->comm;
    c->kv_copy = o->kv_placement == 1;
    if (o->given[IC_OPT_ESTIMATE])
        c->estimate = (enum ic_estimate)o->estimate;
}

void ic_opts_engine_cfg(const struct ic_opts *o, const struct ic_engine *en,
                        struct ic_decode_cfg *c)
{
    c->engine = en;
    if (!o->given[IC_OPT_KV_PLACEMENT])
        c->kv_copy = ic_engine_kv_copy(en, c->kv_copy);
}

void ic_opts_sim_cfg(const struct ic_opts *o, struct ic_sim_cfg *c)
{
    *c = ic_sim_defaults();
    c->requests = o->given[IC_OPT_REQUESTS] ? o->requests : 2000;
    if (o->given[IC_OPT_PROMPT])
        c->prompt.mean = (double)o->prompt;
    if (o->given[IC_OPT_OUTPUT])
        c->output.mean = (double)o->output;
    c->prompt.dist = (enum ic_sim_dist)o->prompt_dist;
    c->output.dist = (enum ic_sim_dist)o->output_dist;
    c->prompt.cv = o->given[IC_OPT_PROMPT_CV] ? o->prompt_cv : c->prompt.dist ? 0.5 : 0;
    c->output.cv = o->given[IC_OPT_OUTPUT_CV] ? o->output_cv : c->output.dist ? 0.5 : 0;
    if (o->given[IC_OPT_MAX_SEQS])
        c->max_seqs = o->max_seqs;
    if (o->given[IC_OPT_MAX_TOKENS])
        c->max_tokens = o->max_tokens;
    if (o->given[IC_OPT_BLOCK])
        c->block = o->block;
    if (o->given[IC_OPT_MEM_UTIL])
        c->mem_util = o->mem_util;
    c->sched = (enum ic_sim_sched)o->scheduler;
    if (o->given[IC_OPT_MFU])
        c->prefill_mfu = o->mfu;
    if (o->given[IC_OPT_SEED])
        c->seed = o->seed;
    c->ttft_slo_s = o->given[IC_OPT_TTFT] ? o->ttft_s : 0;
    c->tpot_slo_s = o->given[IC_OPT_TPOT] ? o->tpot_s : 0;
    if (o->given[IC_OPT_TRACE]) {
        c->trace = o->trace;
        c->source = o->given[IC_OPT_RATE] || o->given[IC_OPT_RATES] ? IC_SRC_TRACE_LENGTHS
                                                                    : IC_SRC_TRACE;
        c->requests = o->given[IC_OPT_REQUESTS] ? o->requests : 0; /* 0: every line */
    }
    c->prefix_hit = o->given[IC_OPT_PREFIX_HIT] ? o->prefix_hit : 0;
    c->prefix_tokens = o->given[IC_OPT_PREFIX] ? o->prefix : 0;
    c->replicas = o->given[IC_OPT_REPLICAS] ? o->replicas : 1;
    c->route = (enum ic_sim_route)o->router;
    c->preempt = (enum ic_sim_preempt)o->preempt;
    c->prefill_chips = o->given[IC_OPT_PREFILL_CHIPS] ? o->prefill_chips : 0;
    c->prefill_servers = o->given[IC_OPT_PREFILL_SERVERS] ? o->prefill_servers : 0;
}
