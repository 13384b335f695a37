/* ic_hw: one accelerator as described by a hwdb/ YAML file.
 *
 * All figures are per chip, in SI base units, as the file states them with
 * their sources: HBM capacity and bandwidth, dense peak rate per compute
 * type (0 = the chip lacks that type), the scale-up fabric (one-way per-link
 * bandwidth, links, topology, domain size, per-hop latency), the scale-out
 * network, the host link and the price. */
#ifndef IC_HW_H
#define IC_HW_H

#include "ic_err.h"
#include "ic_units.h"
#include "ic_ydoc.h"

#include <stdint.h>

enum ic_link_kind {
    IC_LINK_ICI,
    IC_LINK_NVLINK,
    IC_LINK_INFINITY_FABRIC,
    IC_LINK_PCIE,
    IC_LINK_ETHERNET, /* RoCE scale-up (Intel Gaudi) */
    IC_LINK_NONE,
    IC_LINK_COUNT
};

enum ic_topology {
    IC_TOPO_TORUS_2D,
    IC_TOPO_TORUS_3D,
    IC_TOPO_SWITCH,
    IC_TOPO_FULL_MESH,
    IC_TOPO_NONE,
    IC_TOPO_COUNT
};

const char *ic_link_kind_name(enum ic_link_kind k);
const char *ic_topology_name(enum ic_topology t);

enum {
    IC_HW_NAME_LEN = 64,
    IC_HW_TEXT_LEN = 512,
    IC_HW_SOURCE_LEN = 1024, /* an achieved figure's source: document, table, date, method */
    IC_HW_MAX_ALIASES = 8,
    IC_HW_MAX_SOURCES = 16,
    IC_HW_GEMM_BATCHES = 9, /* batches 1, 2, 4 ... 256 */
};

/* Field ids of the hwdb schema: where each was given (ic_loc). */
enum ic_hw_field {
    IC_HWF_NAME, IC_HWF_ALIASES, IC_HWF_VENDOR, IC_HWF_DESCRIPTION,
    IC_HWF_MEMORY, IC_HWF_MEM_CAPACITY, IC_HWF_MEM_BANDWIDTH, IC_HWF_MEM_KIND, IC_HWF_MEM_SOURCE,
    IC_HWF_COMPUTE, IC_HWF_COMPUTE_FIRST, /* one id per dtype follows */
    IC_HWF_COMPUTE_SOURCE = IC_HWF_COMPUTE_FIRST + IC_DT_COUNT,
    IC_HWF_ICI, IC_HWF_ICI_KIND, IC_HWF_ICI_TOPOLOGY, IC_HWF_ICI_LINK_BW,
    IC_HWF_ICI_LINKS, IC_HWF_ICI_DOMAIN, IC_HWF_ICI_HOP_LATENCY, IC_HWF_ICI_WRAP, IC_HWF_ICI_WRAP_CUBE,
    IC_HWF_ICI_SOURCE,
    IC_HWF_DCN, IC_HWF_DCN_KIND, IC_HWF_DCN_BW, IC_HWF_DCN_LATENCY, IC_HWF_DCN_SOURCE,
    IC_HWF_HOST, IC_HWF_HOST_KIND, IC_HWF_HOST_BW, IC_HWF_HOST_SOURCE,
    IC_HWF_PRICE, IC_HWF_PRICE_USD, IC_HWF_PRICE_AS_OF, IC_HWF_PRICE_SOURCE,
    IC_HWF_SOURCES, IC_HWF_NOTES,
    IC_HWF_MEASURED, IC_HWF_M_DATE, IC_HWF_M_CPU, IC_HWF_M_THREADS, IC_HWF_M_LLC,
    IC_HWF_M_READ, IC_HWF_M_READ_1T, IC_HWF_M_CACHE_READ, IC_HWF_M_PROBE, IC_HWF_M_PROBE_GEMM,
    IC_HWF_M_PROBE_ATTN,
    IC_HWF_M_FORK_JOIN, IC_HWF_M_MATMUL_START, IC_HWF_M_LAYER_WORK, IC_HWF_M_LAYER_WORK_DIM,
    IC_HWF_M_TRANSITION_P, IC_HWF_M_SOURCE,
    IC_HWF_M_GEMV, IC_HWF_M_GEMV_FIRST,
    IC_HWF_M_GEMV_CACHE = IC_HWF_M_GEMV_FIRST + IC_DT_COUNT, IC_HWF_M_GEMV_CACHE_FIRST,
    IC_HWF_M_GEMM = IC_HWF_M_GEMV_CACHE_FIRST + IC_DT_COUNT, IC_HWF_M_GEMM_FIRST,
    IC_HWF_M_GEMM_LIST = IC_HWF_M_GEMM_FIRST + IC_DT_COUNT, IC_HWF_M_GEMM_LIST_FIRST,
    IC_HWF_M_ATTN = IC_HWF_M_GEMM_LIST_FIRST + IC_DT_COUNT, IC_HWF_M_ATTN_FIRST,
    IC_HWF_M_TP = IC_HWF_M_ATTN_FIRST + IC_DT_COUNT, IC_HWF_M_TP_FIRST,
    IC_HWF_M_PROBE_T = IC_HWF_M_TP_FIRST + IC_DT_COUNT, IC_HWF_M_PROBE_T_FIRST,
    IC_HWF_M_PROBE_GEMM_T = IC_HWF_M_PROBE_T_FIRST + IC_DT_COUNT, IC_HWF_M_PROBE_GEMM_T_FIRST,
    IC_HWF_M_ASCORE = IC_HWF_M_PROBE_GEMM_T_FIRST + IC_DT_COUNT, IC_HWF_M_ASCORE_FIRST,
    IC_HWF_ACHIEVED = IC_HWF_M_ASCORE_FIRST + IC_DT_COUNT, IC_HWF_A_HBM_READ, IC_HWF_A_GEMV_EFF,
    IC_HWF_A_GEMV_FIXED, IC_HWF_A_GEMV_SOURCE, IC_HWF_A_SKINNY_EFF, IC_HWF_A_SKINNY_FIXED,
    IC_HWF_A_SKINNY_SOURCE,
    IC_HWF_A_MEM_SOURCE, IC_HWF_A_GEMM, IC_HWF_A_GEMM_FIRST,
    IC_HWF_A_GEMM_SOURCE = IC_HWF_A_GEMM_FIRST + IC_DT_COUNT, IC_HWF_A_AR_LATENCY,
    IC_HWF_A_AR_BUSBW, IC_HWF_A_AR_CHIPS, IC_HWF_A_AR_AXIS, IC_HWF_A_COMM_SOURCE,
    IC_HWF_A_LAUNCH,
    IC_HWF_A_LAUNCH_GRAPH, IC_HWF_A_KERNELS, IC_HWF_A_STEP_LAUNCHES, IC_HWF_A_LAUNCH_SOURCE,
    IC_HWF_A_DERIVED, IC_HWF_A_TRANSITION_P, IC_HWF_A_TRANSITION_FIRST,
    IC_HWF_A_TRANSITION_SOURCE = IC_HWF_A_TRANSITION_FIRST + IC_DT_COUNT,
    IC_HWF_COUNT
};

/* What `infcalc bench` measured on a machine: the figures the expected-time
 * model uses instead of spec-sheet peaks. All per chip (a CPU socket here),
 * at `threads` threads unless named otherwise; 0 where not measured. */
struct ic_hw_measured {
    bool present;
    char date[16];                      /* YYYY-MM-DD */
    char cpu[128];                      /* processor model */
    uint64_t threads;                   /* threads the figures were taken with */
    double llc_B;                       /* last-level cache */
    double read_B_s;                    /* read-only bandwidth, buffer >= 4x LLC */
    double read_1t_B_s;                 /* the same on one thread */
    double cache_read_B_s;              /* read-only bandwidth, buffer within the LLC */
    /* validate's memory probe (the kernel's fp32 matmul at batch 1 over 4x
     * the LLC) at bench time: the reference a probe beside a timing is
     * divided by (0: read_B_s is) */
    double probe_B_s;
    /* validate's compute probe (the same at batch 64 over LLC / 4) at bench
     * time (0: none; compute rates are then taken as benched) */
    double probe_gemm_flop_s;
    /* the same two probes in each weight type's own matmul (0: not taken;
     * then the fp32 probes above stand for that type): a bf16 or int8 rate
     * is stated at, and rescaled by, its own type's probe, since the
     * types' rates moved 10-20% against the fp32 probe between benches */
    double probe_type_B_s[IC_DT_COUNT];
    double probe_gemm_type[IC_DT_COUNT];
    /* validate's attention probe at bench time: the reference kernel's
     * decode attention over a bf16 cache within the LLC, seconds per score
     * (0: not taken; attention is then rescaled by the compute probe). The
     * attention is scalar and latency-bound (an exp per score): between
     * benches it moved 9.9-18.5 ns per score against the GEMM probe */
    double probe_attn_s;
    double fork_join_s;                 /* one parallel region's fixed cost */
    /* a matmul call's cost from DRAM beyond its bytes and its region's
     * fork/join (the streams' start): 16 calls of the reference kernel's
     * matmul against one call of their bytes (0: none) */
    double matmul_start_s;
    /* a decoder layer's work per sequence outside its matmuls, attention
     * and regions (residual adds, RMSNorms, SwiGLU): the kernel's row
     * operations timed in cache at two batches (0: none) */
    double layer_work_s;
    /* the residual width (hidden_size) layer_work was measured at: a model
     * of width D costs layer_work x D / layer_work_dim (the row work runs
     * over rows of D and of the MLP's ~2.7-3.5 D); 0: unscaled */
    uint64_t layer_work_dim;
    double transition_p;                /* p of (T_mem^p + T_compute^p)^(1/p) */
    /* the same fitted per weight type (0: not given; transition_p stands) */
    double transition_p_type[IC_DT_COUNT];
    double gemv_B_s[IC_DT_COUNT];       /* matmul at batch 1, weights in DRAM: bytes/s */
    double gemv_cache_B_s[IC_DT_COUNT]; /* matmul at batch 1, weights in the LLC */
    double gemm_flop_s[IC_DT_COUNT];    /* matmul at batch 256, weights in cache */
    /* the in-cache matmul rate at batch 1, 2, 4 ... 256 (FLOP/s); all 0 =
     * not measured, then gemm_flop_s holds at every batch */
    double gemm_by_batch[IC_DT_COUNT][IC_HW_GEMM_BATCHES];
    /* decode attention FLOP/s per KV-cache type (QK^T and AV over a cache
     * far larger than the LLC, 4 query heads per KV head); 0 = not measured,
     * then the matmul rate at that group size stands in */
    double attn_flop_s[IC_DT_COUNT];
    /* decode attention's time per score (one query head against one cached
     * token: the softmax's max, exp and sum) per KV-cache type, beside
     * attn_flop_s: bench fits both to two head sizes (0: none; attn_flop_s
     * then carries it) */
    double attn_score_s[IC_DT_COUNT];
    char source[IC_HW_TEXT_LEN];
};

/* What good kernels achieve on the chip, from published microbenchmarks
 * (the optional `achieved:` section of an accelerator's entry; a machine
 * infcalc benched itself has `measured:` instead). Every figure is per chip
 * and sourced in the entry; `derived_from` names the sibling an entry's
 * figures were scaled from when none were published for it. */
struct ic_hw_achieved {
    bool present;
    double hbm_read_B_s;         /* a streaming read kernel's bandwidth */
    double gemv_eff;             /* decode-shaped GEMV (batch 1-8) over hbm_read; 0: 1 */
    double gemv_fixed_s;         /* each GEMM kernel's time beyond its launch and its
                                    bytes at that bandwidth (a GEMV table's intercept,
                                    time = fixed + bytes / bandwidth); 0: none stated */
    double skinny_eff;           /* a one-row GEMV kernel (a step of one token), where one
                                    beside the library's is published: its bandwidth over
                                    hbm_read, and ... */
    double skinny_fixed_s;       /* ... its fixed time beyond the launch; 0 / 0: the
                                    two above serve one row too */
    double gemm_flop_s[IC_DT_COUNT]; /* large dense GEMM per compute type; 0: not given */
    double transition_p[IC_DT_COUNT]; /* per compute type, a GEMM between the two bounds:
                                    its weight read and its FLOPs at the rates above
                                    combine as (T_w^p + T_c^p)^(1/p) (fitted to a published
                                    sweep over the batch rows); 0: their max */
    double allreduce_latency_s;  /* a small all-reduce over allreduce_chips */
    double allreduce_busbw_B_s;  /* large all-reduce bus bandwidth (nccl-tests busbw) */
    uint64_t allreduce_chips;    /* chips the collective figures were taken on */
    bool allreduce_axis;         /* ... along one axis of a torus (else its most compact
                                    sub-grid of that many chips) */
    double launch_s;             /* one kernel launch, no graph */
    double launch_graph_s;       /* one kernel inside a captured graph */
    uint64_t kernels_per_layer;  /* kernels one dense GQA decoder layer launches per step
                                    (each at launch_graph; MoE, MLA and linear layers add
                                    ic_step_extra_kernels); 0 where a step is one program */
    uint64_t step_launches;      /* launches per step beside them (a CUDA graph's
                                    own launch, a TPU's one program), each at launch */
    char mem_source[IC_HW_SOURCE_LEN];
    char gemv_source[IC_HW_SOURCE_LEN]; /* gemv_efficiency's (required with it) */
    char skinny_source[IC_HW_SOURCE_LEN]; /* skinny_efficiency's (required with it) */
    char gemm_source[IC_HW_SOURCE_LEN];
    char comm_source[IC_HW_SOURCE_LEN];
    char launch_source[IC_HW_SOURCE_LEN];
    char transition_source[IC_HW_SOURCE_LEN]; /* transition_p's (required with it) */
    char derived_from[IC_HW_SOURCE_LEN];
};

struct ic_hw {
    char name[IC_HW_NAME_LEN];
    char aliases[IC_HW_MAX_ALIASES][IC_HW_NAME_LEN];
    uint32_t n_aliases;
    char vendor[IC_HW_NAME_LEN];
    char description[IC_HW_TEXT_LEN];
    char path[IC_HW_TEXT_LEN]; /* file it came from, "" if built in code */

    double hbm_capacity_B;      /* bytes per chip */
    double hbm_bandwidth_B_s;   /* bytes/s per chip */
    char mem_kind[16];          /* memory.kind ("HBM3e", "GDDR6", "DRAM"); "" not given */
    double peak_flop_s[IC_DT_COUNT]; /* dense peak per compute type; 0 = absent */

    char ici_kind_text[IC_HW_NAME_LEN];
    char ici_topology_text[IC_HW_NAME_LEN];
    enum ic_link_kind ici_kind;
    enum ic_topology ici_topology;
    double ici_link_B_s;        /* one direction of one link */
    uint64_t ici_links;         /* links per chip */
    uint64_t ici_domain_chips;  /* chips reachable on the fabric */
    double ici_hop_latency_s;   /* per collective step */
    uint64_t ici_wrap_from;     /* a torus axis of at least this many chips closes into
                                   a ring; a shorter one is a line (0: every axis) */
    uint64_t ici_wrap_cube;     /* every axis a ring only in a slice of whole cubes of
                                   this side (each axis a multiple of it), else every
                                   axis a line (0: no such rule) */

    char dcn_kind[IC_HW_NAME_LEN];
    double dcn_B_s;             /* scale-out, one way, per chip */
    double dcn_latency_s;

    char host_kind[IC_HW_NAME_LEN];
    double host_B_s;            /* host link, one way */

    double usd_per_chip_hour;   /* 0: no price (ic_hw_has_price) */
    char price_as_of[16];       /* YYYY-MM */

    char sources[IC_HW_MAX_SOURCES][IC_HW_TEXT_LEN];
    uint32_t n_sources;
    char section_source[6][IC_HW_TEXT_LEN]; /* memory compute ici dcn host price */
    char notes[IC_HW_TEXT_LEN * 2];
    struct ic_hw_measured measured; /* optional `measured:` section */
    struct ic_hw_achieved achieved; /* optional `achieved:` section */

    struct ic_loc locs[IC_HWF_COUNT];
};

/* Loads one hwdb file into *out (written only on success). Checks the schema
 * and the values: every section present with a non-empty source, positive
 * memory and bandwidth, at least one compute type, a known interconnect kind
 * and topology consistent with the link figures, a YYYY-MM price date. */
int ic_hw_load(const char *path, struct ic_hw *out, struct ic_err *err);

/* The schema ic_hw_load reads an entry with (its sections through each
 * field's sub), offsets into struct ic_hw: the one list of the entry's keys,
 * which ic_hwwrite walks to write an entry. Its one IC_F_CUSTOM kind, the
 * measured gemm_by_batch lists, also gives offset (a double[size2]) and qty
 * for the writer. */
const struct ic_schema *ic_hw_schema(void);

/* Whether the entry has a price: a price of 0 is none (what 'infcalc
 * bench' writes for a machine whose price it cannot know). Without one, a
 * cost is not known: NaN in a result, null in JSON, '-' in a table, never
 * "$0 per million tokens". */
bool ic_hw_has_price(const struct ic_hw *hw);

/* Dollars for chip_s chip-seconds at the entry's price per chip-hour; NaN
 * for an entry without a price (null in JSON, '-' in a table). The one
 * cost formula: $ per million tokens is ic_hw_usd(hw, chips / tokens_per_s)
 * x 1e6. */
double ic_hw_usd(const struct ic_hw *hw, double chip_s);

/* Dense peak FLOP/s of dtype on hw; 0 when the chip lacks it. */
double ic_hw_peak(const struct ic_hw *hw, enum ic_dtype t);

/* The entry's memory as output names it: memory.kind ("HBM3e", "GDDR6",
 * "DRAM"), else "memory". */
const char *ic_hw_memory_kind(const struct ic_hw *hw);

/* The fastest measured matmul of weight type t: the larger of its gemm rate
 * and its gemm_by_batch list's (0 where t was not measured). */
double ic_hw_measured_gemm_top(const struct ic_hw_measured *ms, enum ic_dtype t);

/* The compute types hw lists, space-separated ("fp32 bf16 fp16"), in buf;
 * the one to suggest for --compute (bf16 where listed) as the result, NULL
 * where it lists none. */
const char *ic_hw_compute_types(const struct ic_hw *hw, char *buf, size_t n);

#endif
