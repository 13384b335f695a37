/* ic_hw: hwdb loader and lookups. */
#include "ic_hw.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const link_kind_names[IC_LINK_COUNT] = {
    [IC_LINK_ICI] = "ici",
    [IC_LINK_NVLINK] = "nvlink",
    [IC_LINK_INFINITY_FABRIC] = "infinity-fabric",
    [IC_LINK_PCIE] = "pcie",
    [IC_LINK_ETHERNET] = "ethernet",
    [IC_LINK_NONE] = "none",
};
_Static_assert(sizeof link_kind_names / sizeof link_kind_names[0] == IC_LINK_COUNT,
               "one name per link kind");

static const char *const topology_names[IC_TOPO_COUNT] = {
    [IC_TOPO_TORUS_2D] = "torus-2d",
    [IC_TOPO_TORUS_3D] = "torus-3d",
    [IC_TOPO_SWITCH] = "switch",
    [IC_TOPO_FULL_MESH] = "full-mesh",
    [IC_TOPO_NONE] = "none",
};
_Static_assert(sizeof topology_names / sizeof topology_names[0] == IC_TOPO_COUNT,
               "one name per topology");

const char *ic_link_kind_name(enum ic_link_kind k) { return link_kind_names[k]; }
const char *ic_topology_name(enum ic_topology t) { return topology_names[t]; }

double ic_hw_peak(const struct ic_hw *hw, enum ic_dtype t) { return hw->peak_flop_s[t]; }

double ic_hw_measured_gemm_top(const struct ic_hw_measured *ms, enum ic_dtype t)
{
    double top = ms->gemm_flop_s[t];
    for (int b = 0; b < IC_HW_GEMM_BATCHES; b++)
        top = ms->gemm_by_batch[t][b] > top ? ms->gemm_by_batch[t][b] : top;
    return top;
}

const char *ic_hw_compute_types(const struct ic_hw *hw, char *buf, size_t n)
{
    const char *first = NULL;
    buf[0] = 0;
    for (int t = 0; t < IC_DT_COUNT; t++)
        if (hw->peak_flop_s[t] > 0) {
            size_t l = strlen(buf);
            const char *name = ic_dtype_traits((enum ic_dtype)t)->name;
            snprintf(buf + l, n > l ? n - l : 0, "%s%s", l ? " " : "", name);
            if (!first)
                first = name;
        }
    return hw->peak_flop_s[IC_DT_BF16] > 0 ? "bf16" : first;
}

bool ic_hw_has_price(const struct ic_hw *hw) { return hw->usd_per_chip_hour > 0; }

double ic_hw_usd(const struct ic_hw *hw, double chip_s)
{
    return ic_hw_has_price(hw) ? hw->usd_per_chip_hour / 3600.0 * chip_s : NAN;
}

#define OFF(f) offsetof(struct ic_hw, f)
#define STR(k, id, f, req) {k, IC_F_STR, id, OFF(f), sizeof(((struct ic_hw *)0)->f), 0, 0, 0, req, NULL, NULL}
#define QTY(k, id, f, q, req) {k, IC_F_QTY, id, OFF(f), 0, 0, 0, q, req, NULL, NULL}
#define CNT(k, id, f, req) {k, IC_F_COUNT, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define NUM(k, id, f, req) {k, IC_F_NUMBER, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define BOOL(k, id, f, req) {k, IC_F_BOOL, id, OFF(f), 0, 0, 0, 0, req, NULL, NULL}
#define MAP(k, id, sub, req) {k, IC_F_MAP, id, 0, 0, 0, 0, 0, req, sub, NULL}
#define LIST(k, id, f, nf, req)                                                 \
    {k, IC_F_STRLIST, id, OFF(f), sizeof(((struct ic_hw *)0)->f[0]),           \
     sizeof(((struct ic_hw *)0)->f) / sizeof(((struct ic_hw *)0)->f[0]), OFF(nf), 0, req, \
     NULL, NULL}
#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct ic_field memory_fields[] = {
    QTY("capacity", IC_HWF_MEM_CAPACITY, hbm_capacity_B, IC_QTY_BYTES, true),
    QTY("bandwidth", IC_HWF_MEM_BANDWIDTH, hbm_bandwidth_B_s, IC_QTY_BANDWIDTH, true),
    STR("kind", IC_HWF_MEM_KIND, mem_kind, false),
    STR("source", IC_HWF_MEM_SOURCE, section_source[0], true),
};
static const struct ic_schema memory_schema = {"memory section", memory_fields,
                                               N(memory_fields), false};

static const struct ic_field compute_fields[] = {
    QTY("fp32", IC_HWF_COMPUTE_FIRST + IC_DT_FP32, peak_flop_s[IC_DT_FP32], IC_QTY_RATE, false),
    QTY("bf16", IC_HWF_COMPUTE_FIRST + IC_DT_BF16, peak_flop_s[IC_DT_BF16], IC_QTY_RATE, false),
    QTY("fp16", IC_HWF_COMPUTE_FIRST + IC_DT_FP16, peak_flop_s[IC_DT_FP16], IC_QTY_RATE, false),
    QTY("fp8", IC_HWF_COMPUTE_FIRST + IC_DT_FP8, peak_flop_s[IC_DT_FP8], IC_QTY_RATE, false),
    QTY("int8", IC_HWF_COMPUTE_FIRST + IC_DT_INT8, peak_flop_s[IC_DT_INT8], IC_QTY_RATE, false),
    QTY("int4", IC_HWF_COMPUTE_FIRST + IC_DT_INT4, peak_flop_s[IC_DT_INT4], IC_QTY_RATE, false),
    QTY("fp4", IC_HWF_COMPUTE_FIRST + IC_DT_FP4, peak_flop_s[IC_DT_FP4], IC_QTY_RATE, false),
    STR("source", IC_HWF_COMPUTE_SOURCE, section_source[1], true),
};
_Static_assert(N(compute_fields) == IC_DT_COUNT + 1, "a compute key per dtype");
static const struct ic_schema compute_schema = {"compute section", compute_fields,
                                                N(compute_fields), false};

static const struct ic_field ici_fields[] = {
    STR("kind", IC_HWF_ICI_KIND, ici_kind_text, true),
    STR("topology", IC_HWF_ICI_TOPOLOGY, ici_topology_text, true),
    QTY("link_bandwidth_one_way", IC_HWF_ICI_LINK_BW, ici_link_B_s, IC_QTY_BANDWIDTH, true),
    CNT("links_per_chip", IC_HWF_ICI_LINKS, ici_links, true),
    CNT("domain_chips", IC_HWF_ICI_DOMAIN, ici_domain_chips, true),
    QTY("hop_latency", IC_HWF_ICI_HOP_LATENCY, ici_hop_latency_s, IC_QTY_TIME, true),
    CNT("wraparound_from", IC_HWF_ICI_WRAP, ici_wrap_from, false),
    CNT("wraparound_cube", IC_HWF_ICI_WRAP_CUBE, ici_wrap_cube, false),
    STR("source", IC_HWF_ICI_SOURCE, section_source[2], true),
};
static const struct ic_schema ici_schema = {"interconnect section", ici_fields,
                                            N(ici_fields), false};

static const struct ic_field dcn_fields[] = {
    STR("kind", IC_HWF_DCN_KIND, dcn_kind, true),
    QTY("bandwidth_one_way", IC_HWF_DCN_BW, dcn_B_s, IC_QTY_BANDWIDTH, true),
    QTY("latency", IC_HWF_DCN_LATENCY, dcn_latency_s, IC_QTY_TIME, true),
    STR("source", IC_HWF_DCN_SOURCE, section_source[3], true),
};
static const struct ic_schema dcn_schema = {"scale_out section", dcn_fields,
                                            N(dcn_fields), false};

static const struct ic_field host_fields[] = {
    STR("kind", IC_HWF_HOST_KIND, host_kind, true),
    QTY("bandwidth_one_way", IC_HWF_HOST_BW, host_B_s, IC_QTY_BANDWIDTH, true),
    STR("source", IC_HWF_HOST_SOURCE, section_source[4], true),
};
static const struct ic_schema host_schema = {"host_link section", host_fields,
                                             N(host_fields), false};

static const struct ic_field price_fields[] = {
    NUM("usd_per_chip_hour", IC_HWF_PRICE_USD, usd_per_chip_hour, true),
    STR("as_of", IC_HWF_PRICE_AS_OF, price_as_of, true),
    STR("source", IC_HWF_PRICE_SOURCE, section_source[5], true),
};
static const struct ic_schema price_schema = {"price section", price_fields,
                                              N(price_fields), false};

#define DTQ(k, base, arr, t, q) QTY(k, base + t, measured.arr[t], q, false)
/* One quantity per compute type (fp32, bf16, fp16, fp8, int8, int4, fp4: the order the
 * writer lists them). */
#define DT_FIELDS(base, arr, q)                                                            \
    DTQ("fp32", base, arr, IC_DT_FP32, q), DTQ("bf16", base, arr, IC_DT_BF16, q),          \
        DTQ("fp16", base, arr, IC_DT_FP16, q), DTQ("fp8", base, arr, IC_DT_FP8, q),        \
        DTQ("int8", base, arr, IC_DT_INT8, q), DTQ("int4", base, arr, IC_DT_INT4, q),      \
        DTQ("fp4", base, arr, IC_DT_FP4, q)
static const struct ic_field gemv_fields[] = {
    DT_FIELDS(IC_HWF_M_GEMV_FIRST, gemv_B_s, IC_QTY_BANDWIDTH)};
static const struct ic_field gemv_cache_fields[] = {
    DT_FIELDS(IC_HWF_M_GEMV_CACHE_FIRST, gemv_cache_B_s, IC_QTY_BANDWIDTH)};
static const struct ic_field gemm_fields[] = {
    DT_FIELDS(IC_HWF_M_GEMM_FIRST, gemm_flop_s, IC_QTY_RATE)};
/* gemm_by_batch: {fp32: [r1, r2, ... r256], ...}: nine rates per type. */
static int read_gemm_list(const struct ic_ydoc *d, yaml_node_t *node, void *rec, int dt,
                          struct ic_err *err)
{
    struct ic_hw *hw = rec;
    if (node->type != YAML_SEQUENCE_NODE)
        return ic_ydoc_error(d, node, err,
                             "expected a list of %d rates (batch 1, 2, 4 ... 256), e.g. "
                             "[50 GFLOP/s, ...]", IC_HW_GEMM_BATCHES);
    int n = 0;
    for (yaml_node_item_t *it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++, n++) {
        yaml_node_t *item = yaml_document_get_node((yaml_document_t *)&d->doc, *it);
        const char *text = ic_ydoc_scalar(item);
        char why[256];
        double v;
        if (n >= IC_HW_GEMM_BATCHES)
            return ic_ydoc_error(d, item, err, "more than %d rates (batch 1 ... 256)",
                                 IC_HW_GEMM_BATCHES);
        if (!text || ic_qty_parse(text, IC_QTY_RATE, &v, why, sizeof why))
            return ic_ydoc_error(d, item, err, "%s", text ? why : "expected a rate");
        if (!(v >= 1e3 && v <= 1e19))
            return ic_ydoc_error(d, item, err, "a rate must be between 1e3 and 1e19 FLOP/s");
        hw->measured.gemm_by_batch[dt][n] = v;
    }
    if (n != IC_HW_GEMM_BATCHES)
        return ic_ydoc_error(d, node, err, "%d rates given; expected %d (batch 1 ... 256)", n,
                             IC_HW_GEMM_BATCHES);
    return IC_OK;
}
static int gl_fp32(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_FP32, e);
}
static int gl_bf16(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_BF16, e);
}
static int gl_int8(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_INT8, e);
}
static int gl_fp16(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_FP16, e);
}
static int gl_fp8(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_FP8, e);
}
static int gl_int4(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_INT4, e);
}
static int gl_fp4(const struct ic_ydoc *d, yaml_node_t *n, void *r, struct ic_err *e)
{
    return read_gemm_list(d, n, r, IC_DT_FP4, e);
}
/* offset, size2 and qty are not read by ic_ydoc (fn fills the list): they
 * describe the list to ic_hwwrite, which writes what this table names */
#define GL(k, t, fn)                                                                   \
    {k, IC_F_CUSTOM, IC_HWF_M_GEMM_LIST_FIRST + t, OFF(measured.gemm_by_batch[t]), 0, \
     IC_HW_GEMM_BATCHES, 0, IC_QTY_RATE, false, NULL, fn}
static const struct ic_field gemm_list_fields[] = {
    GL("fp32", IC_DT_FP32, gl_fp32), GL("bf16", IC_DT_BF16, gl_bf16),
    GL("fp16", IC_DT_FP16, gl_fp16), GL("fp8", IC_DT_FP8, gl_fp8),
    GL("int8", IC_DT_INT8, gl_int8), GL("int4", IC_DT_INT4, gl_int4),
    GL("fp4", IC_DT_FP4, gl_fp4),
};
static const struct ic_schema gemm_list_schema = {"measured gemm_by_batch section",
                                                  gemm_list_fields, N(gemm_list_fields), false};
static const struct ic_field attn_fields[] = {
    DT_FIELDS(IC_HWF_M_ATTN_FIRST, attn_flop_s, IC_QTY_RATE)};
static const struct ic_field ascore_fields[] = {
    DT_FIELDS(IC_HWF_M_ASCORE_FIRST, attn_score_s, IC_QTY_TIME)};
static const struct ic_schema ascore_schema = {"measured attention_per_score section",
                                               ascore_fields, N(ascore_fields), false};
static const struct ic_schema attn_schema = {"measured attention section", attn_fields,
                                             N(attn_fields), false};
#define TPN(k, t) NUM(k, IC_HWF_M_TP_FIRST + t, measured.transition_p_type[t], false)
static const struct ic_field tp_fields[] = {
    TPN("fp32", IC_DT_FP32), TPN("bf16", IC_DT_BF16), TPN("fp16", IC_DT_FP16),
    TPN("fp8", IC_DT_FP8),   TPN("int8", IC_DT_INT8), TPN("int4", IC_DT_INT4),
    TPN("fp4", IC_DT_FP4),
};
static const struct ic_schema tp_schema = {"measured transition_p_by_type section", tp_fields,
                                           N(tp_fields), false};
static const struct ic_field probe_t_fields[] = {
    DT_FIELDS(IC_HWF_M_PROBE_T_FIRST, probe_type_B_s, IC_QTY_BANDWIDTH)};
static const struct ic_schema probe_t_schema = {"measured probe_bandwidth_by_type section",
                                                probe_t_fields, N(probe_t_fields), false};
static const struct ic_field probe_gemm_t_fields[] = {
    DT_FIELDS(IC_HWF_M_PROBE_GEMM_T_FIRST, probe_gemm_type, IC_QTY_RATE)};
static const struct ic_schema probe_gemm_t_schema = {"measured probe_gemm_by_type section",
                                                     probe_gemm_t_fields,
                                                     N(probe_gemm_t_fields), false};
static const struct ic_schema gemv_schema = {"measured gemv_dram section", gemv_fields,
                                             N(gemv_fields), false};
static const struct ic_schema gemv_cache_schema = {"measured gemv_cache section",
                                                   gemv_cache_fields, N(gemv_cache_fields),
                                                   false};
static const struct ic_schema gemm_schema = {"measured gemm section", gemm_fields,
                                             N(gemm_fields), false};

static const struct ic_field measured_fields[] = {
    STR("date", IC_HWF_M_DATE, measured.date, true),
    STR("cpu", IC_HWF_M_CPU, measured.cpu, true),
    CNT("threads", IC_HWF_M_THREADS, measured.threads, true),
    QTY("llc", IC_HWF_M_LLC, measured.llc_B, IC_QTY_BYTES, true),
    QTY("read_bandwidth", IC_HWF_M_READ, measured.read_B_s, IC_QTY_BANDWIDTH, true),
    QTY("read_bandwidth_1thread", IC_HWF_M_READ_1T, measured.read_1t_B_s, IC_QTY_BANDWIDTH,
        false),
    QTY("cache_read_bandwidth", IC_HWF_M_CACHE_READ, measured.cache_read_B_s, IC_QTY_BANDWIDTH,
        true),
    QTY("probe_bandwidth", IC_HWF_M_PROBE, measured.probe_B_s, IC_QTY_BANDWIDTH, false),
    QTY("probe_gemm", IC_HWF_M_PROBE_GEMM, measured.probe_gemm_flop_s, IC_QTY_RATE, false),
    QTY("probe_attention", IC_HWF_M_PROBE_ATTN, measured.probe_attn_s, IC_QTY_TIME, false),
    MAP("probe_bandwidth_by_type", IC_HWF_M_PROBE_T, &probe_t_schema, false),
    MAP("probe_gemm_by_type", IC_HWF_M_PROBE_GEMM_T, &probe_gemm_t_schema, false),
    QTY("fork_join", IC_HWF_M_FORK_JOIN, measured.fork_join_s, IC_QTY_TIME, true),
    QTY("matmul_start", IC_HWF_M_MATMUL_START, measured.matmul_start_s, IC_QTY_TIME, false),
    QTY("layer_work", IC_HWF_M_LAYER_WORK, measured.layer_work_s, IC_QTY_TIME, false),
    CNT("layer_work_dim", IC_HWF_M_LAYER_WORK_DIM, measured.layer_work_dim, false),
    NUM("transition_p", IC_HWF_M_TRANSITION_P, measured.transition_p, true),
    MAP("transition_p_by_type", IC_HWF_M_TP, &tp_schema, false),
    MAP("gemv_dram", IC_HWF_M_GEMV, &gemv_schema, true),
    MAP("gemv_cache", IC_HWF_M_GEMV_CACHE, &gemv_cache_schema, true),
    MAP("gemm", IC_HWF_M_GEMM, &gemm_schema, true),
    MAP("gemm_by_batch", IC_HWF_M_GEMM_LIST, &gemm_list_schema, false),
    MAP("attention", IC_HWF_M_ATTN, &attn_schema, false),
    MAP("attention_per_score", IC_HWF_M_ASCORE, &ascore_schema, false),
    STR("source", IC_HWF_M_SOURCE, measured.source, true),
};
static const struct ic_schema measured_schema = {"measured section", measured_fields,
                                                 N(measured_fields), false};

static const struct ic_field achieved_gemm_fields[] = {
    QTY("fp32", IC_HWF_A_GEMM_FIRST + IC_DT_FP32, achieved.gemm_flop_s[IC_DT_FP32], IC_QTY_RATE, false),
    QTY("bf16", IC_HWF_A_GEMM_FIRST + IC_DT_BF16, achieved.gemm_flop_s[IC_DT_BF16], IC_QTY_RATE, false),
    QTY("fp16", IC_HWF_A_GEMM_FIRST + IC_DT_FP16, achieved.gemm_flop_s[IC_DT_FP16], IC_QTY_RATE, false),
    QTY("fp8", IC_HWF_A_GEMM_FIRST + IC_DT_FP8, achieved.gemm_flop_s[IC_DT_FP8], IC_QTY_RATE, false),
    QTY("int8", IC_HWF_A_GEMM_FIRST + IC_DT_INT8, achieved.gemm_flop_s[IC_DT_INT8], IC_QTY_RATE, false),
    QTY("int4", IC_HWF_A_GEMM_FIRST + IC_DT_INT4, achieved.gemm_flop_s[IC_DT_INT4], IC_QTY_RATE, false),
    QTY("fp4", IC_HWF_A_GEMM_FIRST + IC_DT_FP4, achieved.gemm_flop_s[IC_DT_FP4], IC_QTY_RATE, false),
};
static const struct ic_field achieved_tp_fields[] = {
#define ATP(k, t) NUM(k, IC_HWF_A_TRANSITION_FIRST + t, achieved.transition_p[t], false)
    ATP("fp32", IC_DT_FP32), ATP("bf16", IC_DT_BF16), ATP("fp16", IC_DT_FP16),
    ATP("fp8", IC_DT_FP8),   ATP("int8", IC_DT_INT8), ATP("int4", IC_DT_INT4),
    ATP("fp4", IC_DT_FP4),
#undef ATP
};
static const struct ic_schema achieved_tp_schema = {"achieved transition_p section",
                                                    achieved_tp_fields,
                                                    N(achieved_tp_fields), false};
static const struct ic_schema achieved_gemm_schema = {"achieved gemm section",
                                                      achieved_gemm_fields,
                                                      N(achieved_gemm_fields), false};
static const struct ic_field achieved_fields[] = {
    QTY("hbm_read", IC_HWF_A_HBM_READ, achieved.hbm_read_B_s, IC_QTY_BANDWIDTH, true),
    NUM("gemv_efficiency", IC_HWF_A_GEMV_EFF, achieved.gemv_eff, false),
    QTY("gemv_fixed", IC_HWF_A_GEMV_FIXED, achieved.gemv_fixed_s, IC_QTY_TIME, false),
    NUM("skinny_efficiency", IC_HWF_A_SKINNY_EFF, achieved.skinny_eff, false),
    QTY("skinny_fixed", IC_HWF_A_SKINNY_FIXED, achieved.skinny_fixed_s, IC_QTY_TIME, false),
    STR("skinny_source", IC_HWF_A_SKINNY_SOURCE, achieved.skinny_source, false),
    STR("gemv_source", IC_HWF_A_GEMV_SOURCE, achieved.gemv_source, false),
    STR("memory_source", IC_HWF_A_MEM_SOURCE, achieved.mem_source, true),
    MAP("gemm", IC_HWF_A_GEMM, &achieved_gemm_schema, true),
    STR("gemm_source", IC_HWF_A_GEMM_SOURCE, achieved.gemm_source, true),
    QTY("allreduce_latency", IC_HWF_A_AR_LATENCY, achieved.allreduce_latency_s, IC_QTY_TIME, true),
    QTY("allreduce_bus_bandwidth", IC_HWF_A_AR_BUSBW, achieved.allreduce_busbw_B_s,
        IC_QTY_BANDWIDTH, true),
    CNT("allreduce_chips", IC_HWF_A_AR_CHIPS, achieved.allreduce_chips, true),
    BOOL("allreduce_axis", IC_HWF_A_AR_AXIS, achieved.allreduce_axis, false),
    STR("collective_source", IC_HWF_A_COMM_SOURCE, achieved.comm_source, true),
    QTY("launch", IC_HWF_A_LAUNCH, achieved.launch_s, IC_QTY_TIME, true),
    QTY("launch_graph", IC_HWF_A_LAUNCH_GRAPH, achieved.launch_graph_s, IC_QTY_TIME, true),
    CNT("kernels_per_layer", IC_HWF_A_KERNELS, achieved.kernels_per_layer, true),
    CNT("step_launches", IC_HWF_A_STEP_LAUNCHES, achieved.step_launches, false),
    STR("launch_source", IC_HWF_A_LAUNCH_SOURCE, achieved.launch_source, true),
    MAP("transition_p", IC_HWF_A_TRANSITION_P, &achieved_tp_schema, false),
    STR("transition_source", IC_HWF_A_TRANSITION_SOURCE, achieved.transition_source, false),
    STR("derived_from", IC_HWF_A_DERIVED, achieved.derived_from, false),
};
static const struct ic_schema achieved_schema = {"achieved section", achieved_fields,
                                                 N(achieved_fields), false};

static const struct ic_field hw_fields[] = {
    STR("name", IC_HWF_NAME, name, true),
    LIST("aliases", IC_HWF_ALIASES, aliases, n_aliases, false),
    STR("vendor", IC_HWF_VENDOR, vendor, true),
    STR("description", IC_HWF_DESCRIPTION, description, false),
    MAP("memory", IC_HWF_MEMORY, &memory_schema, true),
    MAP("compute", IC_HWF_COMPUTE, &compute_schema, true),
    MAP("interconnect", IC_HWF_ICI, &ici_schema, true),
    MAP("scale_out", IC_HWF_DCN, &dcn_schema, true),
    MAP("host_link", IC_HWF_HOST, &host_schema, true),
    MAP("price", IC_HWF_PRICE, &price_schema, true),
    LIST("sources", IC_HWF_SOURCES, sources, n_sources, true),
    STR("notes", IC_HWF_NOTES, notes, false),
    MAP("measured", IC_HWF_MEASURED, &measured_schema, false),
    MAP("achieved", IC_HWF_ACHIEVED, &achieved_schema, false),
};
static const struct ic_schema hw_schema = {"hardware entry", hw_fields, N(hw_fields),
                                           false};

const struct ic_schema *ic_hw_schema(void) { return &hw_schema; }

/* Error at the recorded location of field id, with a hint line. */
static int field_error_hint(const struct ic_hw *hw, const char *path, int id,
                            struct ic_err *err, const char *msg, const char *hint)
{
    int rc = ic_err_set(err, IC_EINVAL, path, hw->locs[id].line, hw->locs[id].col, "%s", msg);
    ic_err_hint(err, "%s", hint);
    return rc;
}

/* An optional achieved figure (field fig) and its source (field src, text
 * src_text): both or neither, the source a real one; 0, or the error at
 * the one present. */
/* A GEMV fit's figures (gemv_* or skinny_*, `name`): the efficiency from
 * 0.01 to 1, as an engine profile's (1e-300 read a step of 4.7e298 s);
 * the fixed time, the same fit's intercept beyond the launch, only with
 * that efficiency, and a kernel's (at most 100 us), not a step's; eff_eg
 * and fixed_eg, a value of each for the hints. */
static int check_gemv_fit(const struct ic_hw *hw, const char *path, const char *name,
                          int eff_id, int fixed_id, double eff, double fixed,
                          const char *eff_hint, const char *eff_eg, const char *fixed_eg,
                          struct ic_err *err)
{
    char msg[128], hint[192];
    if (hw->locs[eff_id].line && !(eff >= 0.01 && eff <= 1)) {
        snprintf(msg, sizeof msg, "'%s_efficiency' must be between 0.01 and 1", name);
        return field_error_hint(hw, path, eff_id, err, msg, eff_hint);
    }
    if (!hw->locs[fixed_id].line || (hw->locs[eff_id].line && fixed <= 100e-6))
        return 0;
    if (hw->locs[eff_id].line) {
        snprintf(msg, sizeof msg, "'%s_fixed' must be at most 100 us", name);
        snprintf(hint, sizeof hint, "a kernel's time beyond its launch, e.g. '%s'", fixed_eg);
        return field_error_hint(hw, path, fixed_id, err, msg, hint);
    }
    snprintf(msg, sizeof msg, "'%s_fixed' needs '%s_efficiency' (the same fit's bandwidth)", name,
             name);
    snprintf(hint, sizeof hint,
             "a GEMV table fitted as time = fixed + bytes / bandwidth gives both: e.g. "
             "'%s_efficiency: %s' and '%s_fixed: %s' (beyond the launch)",
             name, eff_eg, name, fixed_eg);
    return field_error_hint(hw, path, fixed_id, err, msg, hint);
}

static int sourced_pair(const struct ic_hw *hw, const char *path, int fig, int src,
                        const char *src_text, const char *pair_msg, const char *pair_hint,
                        struct ic_err *err)
{
    if (!hw->locs[fig].line != !hw->locs[src].line)
        return field_error_hint(hw, path, hw->locs[fig].line ? fig : src, err, pair_msg,
                                pair_hint);
    if (hw->locs[src].line && strlen(src_text) < 4)
        return field_error_hint(hw, path, src, err,
                                "every achieved figure needs its source, 4 characters or more",
                                "name the document, its table or figure, and the date");
    return 0;
}

/* Error at the recorded location of field id. */
static int field_error(const struct ic_hw *hw, const char *path, int id,
                       struct ic_err *err, const char *msg)
{
    return field_error_hint(hw, path, id, err, msg,
                            "hwdb/README.md gives each key's unit and range");
}

/* A torus: the fabric whose axes close into rings (wraparound_from) and
 * along one of which a collective can be measured (allreduce_axis). */
static bool is_torus(const struct ic_hw *hw)
{
    return hw->ici_topology == IC_TOPO_TORUS_2D || hw->ici_topology == IC_TOPO_TORUS_3D;
}

static int lookup_name(const char *const *names, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], text) == 0)
            return i;
    return -1;
}

/* memory.kind: a family (HBM, GDDR, LPDDR, DDR, DRAM, SRAM, in any case)
 * and at most 3 letters or digits of generation ("HBM3e", "GDDR6X",
 * "LPDDR5X"), the words the decode header and show print as given. */
static bool mem_kind_ok(const char *k)
{
    static const char *const families[] = {"HBM", "GDDR", "LPDDR", "DDR", "DRAM", "SRAM"};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const size_t n = strlen(families[i]);
        if (strncasecmp(k, families[i], n))
            continue;
        size_t g = 0;
        for (const char *c = k + n; *c; c++, g++)
            if (!isalnum((unsigned char)*c))
                return false;
        return g <= 3;
    }
    return false;
}

const char *ic_hw_memory_kind(const struct ic_hw *hw)
{
    return hw->mem_kind[0] ? hw->mem_kind : "memory";
}

/* Checks what the schema cannot: enum values, positivity, consistency. */
static int check_values(struct ic_hw *hw, const char *path, struct ic_err *err)
{
    char msg[512];
    if (!ic_ydoc_name_ok(hw->name, false))
        return field_error(hw, path, IC_HWF_NAME, err,
                           "'name' must be lower-case letters, digits, '-' or '.', starting "
                           "with a letter or a digit");
    const char *why;
    int bad = ic_ydoc_alias_bad(hw->name, hw->aliases[0], sizeof hw->aliases[0], hw->n_aliases,
                                true, &why);
    if (bad >= 0) {
        snprintf(msg, sizeof msg, "alias '%s' %s", hw->aliases[bad], why);
        return field_error(hw, path, IC_HWF_ALIASES, err, msg);
    }
    /* Plausible ranges: far wider than any chip, narrow enough that every
     * derived time stays finite (a 1e-300 B/s bandwidth would print inf). */
    static const struct {
        int id;
        size_t off;
        double lo, hi;
        const char *what;
    } ranges[] = {
        {IC_HWF_MEM_CAPACITY, offsetof(struct ic_hw, hbm_capacity_B), 1e6, 1e15,
         "'capacity' must be between 1 MB and 1 PB"},
        {IC_HWF_MEM_BANDWIDTH, offsetof(struct ic_hw, hbm_bandwidth_B_s), 1e6, 1e16,
         "'bandwidth' must be between 1 MB/s and 10 PB/s"},
        {IC_HWF_ICI_HOP_LATENCY, offsetof(struct ic_hw, ici_hop_latency_s), 0, 1,
         "'hop_latency' must be at most 1 s"},
        {IC_HWF_ICI_LINK_BW, offsetof(struct ic_hw, ici_link_B_s), 0, 1e15,
         "'link_bandwidth_one_way' must be 0 (no links) or between 1 kB/s and 1 PB/s"},
        {IC_HWF_DCN_BW, offsetof(struct ic_hw, dcn_B_s), 1e3, 1e15,
         "scale_out 'bandwidth_one_way' must be between 1 kB/s and 1 PB/s"},
        {IC_HWF_DCN_LATENCY, offsetof(struct ic_hw, dcn_latency_s), 0, 1,
         "scale_out 'latency' must be at most 1 s"},
        {IC_HWF_HOST_BW, offsetof(struct ic_hw, host_B_s), 1e3, 1e15,
         "host_link 'bandwidth_one_way' must be between 1 kB/s and 1 PB/s"},
        {IC_HWF_PRICE_USD, offsetof(struct ic_hw, usd_per_chip_hour), 0, 1e4,
         "'usd_per_chip_hour' must be 0 (no price) or from 0.001 to 10,000"},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        double v = *(const double *)(const void *)((const char *)hw + ranges[i].off);
        /* a machine without a scale-out network or host link says kind:
         * none, and the network it lacks has no bandwidth (the commands
         * read the bandwidth, not the kind: 1e-300 B/s under 'none' made a
         * KV hand-off of 8e307 s) */
        if ((ranges[i].id == IC_HWF_DCN_BW && strcmp(hw->dcn_kind, "none") == 0) ||
            (ranges[i].id == IC_HWF_HOST_BW && strcmp(hw->host_kind, "none") == 0)) {
            if (v != 0)
                return field_error_hint(hw, path, ranges[i].id, err,
                                        "a link of kind none has no bandwidth: "
                                        "'bandwidth_one_way' must be 0 B/s",
                                        "write 0 B/s, or name the link's kind (ethernet, "
                                        "infiniband, pcie, ...) to use its bandwidth");
            continue;
        }
        bool zero_ok = ranges[i].lo == 0;
        /* a link's bandwidth, where there is one, from 1 kB/s: 1e-300 B/s
         * gave an ideal bound of 2.5e305 s */
        if (ranges[i].id == IC_HWF_ICI_LINK_BW && v > 0 && v < 1e3)
            return field_error(hw, path, ranges[i].id, err, ranges[i].what);
        /* a price of a tenth of a cent and less makes tokens per dollar
         * overflow (1e-300: 'inf FLOPs per dollar') */
        bool too_cheap = ranges[i].id == IC_HWF_PRICE_USD && v > 0 && v < 1e-3;
        if (!(v >= ranges[i].lo && v <= ranges[i].hi) || (!zero_ok && v <= 0) || too_cheap)
            return field_error(hw, path, ranges[i].id, err, ranges[i].what);
    }
    int any = 0;
    for (int t = 0; t < IC_DT_COUNT; t++) {
        if (hw->locs[IC_HWF_COMPUTE_FIRST + t].line &&
            !(hw->peak_flop_s[t] >= 1e6 && hw->peak_flop_s[t] <= 1e19)) {
            snprintf(msg, sizeof msg,
                     "'%s' is %g FLOP/s; a compute peak must be between 1 MFLOP/s and "
                     "10 EFLOP/s (leave out a type the chip lacks)",
                     ic_dtype_traits((enum ic_dtype)t)->name, hw->peak_flop_s[t]);
            return field_error(hw, path, IC_HWF_COMPUTE_FIRST + t, err, msg);
        }
        any |= hw->peak_flop_s[t] > 0;
    }
    if (!any)
        return field_error(hw, path, IC_HWF_COMPUTE, err,
                           "the compute section lists no compute type; expected at least "
                           "one of fp32 bf16 fp16 fp8 int8 int4 fp4");
    if (hw->locs[IC_HWF_MEM_KIND].line && !mem_kind_ok(hw->mem_kind)) {
        snprintf(msg, sizeof msg, "unknown memory kind '%s'", hw->mem_kind);
        return field_error_hint(hw, path, IC_HWF_MEM_KIND, err, msg,
                                "a family and its generation, as the datasheet names it: "
                                "HBM, HBM2e, HBM3, HBM3e, GDDR6, GDDR6X, LPDDR5X, DDR5, DRAM "
                                "or SRAM (or leave 'kind' out)");
    }
    int k = lookup_name(link_kind_names, IC_LINK_COUNT, hw->ici_kind_text);
    if (k < 0) {
        snprintf(msg, sizeof msg,
                 "unknown interconnect kind '%s'; expected ici, nvlink, infinity-fabric, "
                 "pcie, ethernet or none", hw->ici_kind_text);
        return field_error(hw, path, IC_HWF_ICI_KIND, err, msg);
    }
    hw->ici_kind = (enum ic_link_kind)k;
    /* no fabric joins no chips: its links would be read all the same */
    if (hw->ici_kind == IC_LINK_NONE && hw->ici_domain_chips > 1)
        return field_error_hint(hw, path, IC_HWF_ICI_KIND, err,
                                "an interconnect of kind none joins no chips, but "
                                "'domain_chips' is more than 1",
                                "name the fabric's kind (nvlink, infinity-fabric, ethernet, "
                                "...), or write domain_chips: 1 for a chip on its own");
    /* the scale-out network's kind, as hwdb/README.md lists them: the
     * commands read its bandwidth, and 'none' says there is none */
    static const char *const dcn_kinds[] = {"infiniband", "ethernet", "dcn", "none"};
    if (lookup_name(dcn_kinds, (int)(sizeof dcn_kinds / sizeof dcn_kinds[0]), hw->dcn_kind) < 0) {
        snprintf(msg, sizeof msg,
                 "unknown scale-out kind '%s'; expected infiniband, ethernet, dcn or none",
                 hw->dcn_kind);
        return field_error(hw, path, IC_HWF_DCN_KIND, err, msg);
    }
    int t = lookup_name(topology_names, IC_TOPO_COUNT, hw->ici_topology_text);
    if (t < 0) {
        snprintf(msg, sizeof msg,
                 "unknown topology '%s'; expected torus-2d, torus-3d, switch, full-mesh "
                 "or none", hw->ici_topology_text);
        return field_error(hw, path, IC_HWF_ICI_TOPOLOGY, err, msg);
    }
    hw->ici_topology = (enum ic_topology)t;
    if (hw->ici_domain_chips < 1)
        return field_error(hw, path, IC_HWF_ICI_DOMAIN, err,
                           "'domain_chips' must be at least 1 (the chip itself)");
    if (hw->ici_domain_chips > 1 &&
        (hw->ici_links < 1 || hw->ici_link_B_s <= 0 || hw->ici_topology == IC_TOPO_NONE))
        return field_error(hw, path, IC_HWF_ICI_DOMAIN, err,
                           "a domain of more than one chip needs links_per_chip >= 1, a "
                           "positive link_bandwidth_one_way and a topology other than none");
    if (hw->ici_domain_chips > (1u << 24))
        return field_error(hw, path, IC_HWF_ICI_DOMAIN, err,
                           "'domain_chips' is absurdly large (more than 2^24 chips)");
    if (hw->ici_links > 1024)
        return field_error(hw, path, IC_HWF_ICI_LINKS, err,
                           "'links_per_chip' is absurdly large (more than 1024)");
    if (hw->locs[IC_HWF_ICI_WRAP].line && !is_torus(hw))
        return field_error(hw, path, IC_HWF_ICI_WRAP, err,
                           "'wraparound_from' is for a torus: its axes' rings");
    if (hw->locs[IC_HWF_ICI_WRAP].line &&
        (hw->ici_wrap_from < 3 || hw->ici_wrap_from > hw->ici_domain_chips))
        return field_error(hw, path, IC_HWF_ICI_WRAP, err,
                           "'wraparound_from' must be from 3 to domain_chips: the chips an "
                           "axis needs for a wraparound link (an axis of 2 is one link "
                           "either way)");
    if (hw->locs[IC_HWF_ICI_WRAP_CUBE].line && !is_torus(hw))
        return field_error(hw, path, IC_HWF_ICI_WRAP_CUBE, err,
                           "'wraparound_cube' is for a torus: its slices' rings");
    if (hw->locs[IC_HWF_ICI_WRAP_CUBE].line && hw->locs[IC_HWF_ICI_WRAP].line)
        return field_error(hw, path, IC_HWF_ICI_WRAP_CUBE, err,
                           "both 'wraparound_cube' and 'wraparound_from' are given; expected "
                           "one rule for the rings (a slice's, or an axis's)");
    if (hw->locs[IC_HWF_ICI_WRAP_CUBE].line) {
        /* a cube of that side (a square on a 2D torus) must fit the domain */
        uint64_t whole = hw->ici_wrap_cube;
        const int dims = hw->ici_topology == IC_TOPO_TORUS_2D ? 2 : 3;
        for (int j = 1; j < dims && whole <= hw->ici_domain_chips; j++)
            whole *= hw->ici_wrap_cube;
        if (hw->ici_wrap_cube < 3 || whole > hw->ici_domain_chips)
            return field_error(hw, path, IC_HWF_ICI_WRAP_CUBE, err,
                               "'wraparound_cube' must be from 3 to a side whose cube (a "
                               "square on a 2D torus) fits domain_chips: the side of the "
                               "cubes whose whole slices close every axis into a ring");
    }
    const char *d = hw->price_as_of;
    if (!(strlen(d) == 7 && d[4] == '-' && strspn(d, "0123456789-") == 7 &&
          ((d[5] == '0' && d[6] >= '1') || (d[5] == '1' && d[6] <= '2'))))
        return field_error(hw, path, IC_HWF_PRICE_AS_OF, err,
                           "'as_of' must be a month written YYYY-MM, e.g. 2025-02");
    static const int src_ids[6] = {IC_HWF_MEM_SOURCE, IC_HWF_COMPUTE_SOURCE,
                                   IC_HWF_ICI_SOURCE, IC_HWF_DCN_SOURCE,
                                   IC_HWF_HOST_SOURCE, IC_HWF_PRICE_SOURCE};
    for (int i = 0; i < 6; i++)
        if (strlen(hw->section_source[i]) < 4)
            return field_error(hw, path, src_ids[i], err,
                               "'source' must name where the numbers come from, in 4 "
                               "characters or more");
    if (hw->n_sources == 0)
        return field_error(hw, path, IC_HWF_SOURCES, err,
                           "'sources' must list at least one reference");
    struct ic_hw_measured *ms = &hw->measured;
    ms->present = hw->locs[IC_HWF_MEASURED].line != 0;
    if (ms->present) {
        if (ms->threads < 1 || ms->threads > 4096)
            return field_error(hw, path, IC_HWF_M_THREADS, err,
                               "'threads' must be between 1 and 4096");
        if (!(ms->transition_p >= 1 && ms->transition_p <= 64))
            return field_error(hw, path, IC_HWF_M_TRANSITION_P, err,
                               "'transition_p' must be between 1 (times add) and 64 (max)");
        for (int dt = 0; dt < IC_DT_COUNT; dt++)
            if (hw->locs[IC_HWF_M_TP_FIRST + dt].line &&
                !(ms->transition_p_type[dt] >= 1 && ms->transition_p_type[dt] <= 64))
                return field_error(hw, path, IC_HWF_M_TP_FIRST + dt, err,
                                   "a transition exponent must be between 1 (times add) and "
                                   "64 (max)");
        if (!(ms->read_B_s >= 1e6 && ms->read_B_s <= 1e16) ||
            !(ms->cache_read_B_s >= 1e6 && ms->cache_read_B_s <= 1e16))
            return field_error(hw, path, IC_HWF_M_READ, err,
                               "measured bandwidths must be between 1 MB/s and 10 PB/s");
        if (ms->probe_B_s != 0 && !(ms->probe_B_s >= 1e6 && ms->probe_B_s <= 1e16))
            return field_error(hw, path, IC_HWF_M_PROBE, err,
                               "'probe_bandwidth' must be between 1 MB/s and 10 PB/s");
        if (ms->probe_gemm_flop_s != 0 &&
            !(ms->probe_gemm_flop_s >= 1e6 && ms->probe_gemm_flop_s <= 1e19))
            return field_error(hw, path, IC_HWF_M_PROBE_GEMM, err,
                               "'probe_gemm' must be between 1 MFLOP/s and 10 EFLOP/s");
        for (int dt = 0; dt < IC_DT_COUNT; dt++) {
            if (hw->locs[IC_HWF_M_PROBE_T_FIRST + dt].line &&
                !(ms->probe_type_B_s[dt] >= 1e6 && ms->probe_type_B_s[dt] <= 1e16))
                return field_error(hw, path, IC_HWF_M_PROBE_T_FIRST + dt, err,
                                   "a probe bandwidth must be between 1 MB/s and 10 PB/s");
            if (hw->locs[IC_HWF_M_PROBE_GEMM_T_FIRST + dt].line &&
                !(ms->probe_gemm_type[dt] >= 1e6 && ms->probe_gemm_type[dt] <= 1e19))
                return field_error(hw, path, IC_HWF_M_PROBE_GEMM_T_FIRST + dt, err,
                                   "a probe rate must be between 1 MFLOP/s and 10 EFLOP/s");
            if (!hw->locs[IC_HWF_M_PROBE_T_FIRST + dt].line !=
                !hw->locs[IC_HWF_M_PROBE_GEMM_T_FIRST + dt].line)
                return field_error(hw, path,
                                   hw->locs[IC_HWF_M_PROBE_T_FIRST + dt].line
                                       ? IC_HWF_M_PROBE_T_FIRST + dt
                                       : IC_HWF_M_PROBE_GEMM_T_FIRST + dt,
                                   err,
                                   "a weight type in one of probe_bandwidth_by_type and "
                                   "probe_gemm_by_type must be in both");
        }
        if (hw->locs[IC_HWF_M_PROBE_ATTN].line &&
            !(ms->probe_attn_s >= 1e-12 && ms->probe_attn_s <= 1e-5))
            return field_error(hw, path, IC_HWF_M_PROBE_ATTN, err,
                               "'probe_attention' (seconds per attention score) must be between "
                               "1 ps and 10 us");
        for (int dt = 0; dt < IC_DT_COUNT; dt++) {
            if (hw->locs[IC_HWF_M_ASCORE_FIRST + dt].line &&
                !(ms->attn_score_s[dt] >= 1e-15 && ms->attn_score_s[dt] <= 1e-3))
                return field_error(hw, path, IC_HWF_M_ASCORE_FIRST + dt, err,
                                   "a time per attention score must be between 1 fs and 1 ms");
            /* as the other measured rates (1 FLOP/s read a step of 2.7e8 s) */
            if (hw->locs[IC_HWF_M_ATTN_FIRST + dt].line &&
                !(ms->attn_flop_s[dt] >= 1e3 && ms->attn_flop_s[dt] <= 1e19))
                return field_error(hw, path, IC_HWF_M_ATTN_FIRST + dt, err,
                                   "a measured attention rate must be between 1 kFLOP/s and "
                                   "10 EFLOP/s");
        }
        if (ms->matmul_start_s > 1 || ms->layer_work_s > 1)
            return field_error(hw, path,
                               ms->matmul_start_s > 1 ? IC_HWF_M_MATMUL_START
                                                      : IC_HWF_M_LAYER_WORK,
                               err, "'matmul_start' and 'layer_work' must be at most 1 s");
        if (!(ms->llc_B >= 1e3 && ms->llc_B <= 1e12) || ms->fork_join_s > 1)
            return field_error(hw, path, IC_HWF_M_LLC, err,
                               "'llc' must be between 1 kB and 1 TB and 'fork_join' at most 1 s");
        for (int dt = 0; dt < IC_DT_COUNT; dt++) {
            const double v[3] = {ms->gemv_B_s[dt], ms->gemv_cache_B_s[dt], ms->gemm_flop_s[dt]};
            const int ids[3] = {IC_HWF_M_GEMV_FIRST + dt, IC_HWF_M_GEMV_CACHE_FIRST + dt,
                                IC_HWF_M_GEMM_FIRST + dt};
            int given = 0;
            for (int j = 0; j < 3; j++) {
                if (!hw->locs[ids[j]].line)
                    continue;
                given++;
                if (!(v[j] >= 1e3 && v[j] <= 1e19))
                    return field_error(hw, path, ids[j], err,
                                       "a measured rate must be between 1e3 and 1e19 per second");
            }
            if (given && given != 3) {
                static const char *const maps[3] = {"gemv_dram", "gemv_cache", "gemm"};
                static const int map_ids[3] = {IC_HWF_M_GEMV, IC_HWF_M_GEMV_CACHE,
                                               IC_HWF_M_GEMM};
                int j = 0;
                while (hw->locs[ids[j]].line)
                    j++;
                char what[160], hint[160];
                snprintf(what, sizeof what,
                         "%s is measured in some of gemv_dram, gemv_cache and gemm but not in "
                         "%s",
                         ic_dtype_traits((enum ic_dtype)dt)->name, maps[j]);
                snprintf(hint, sizeof hint,
                         "each weight type needs all three (what 'infcalc bench' writes); add "
                         "%s to %s or drop it from the others",
                         ic_dtype_traits((enum ic_dtype)dt)->name, maps[j]);
                return field_error_hint(hw, path,
                                        hw->locs[map_ids[j]].line ? map_ids[j] : IC_HWF_MEASURED,
                                        err, what, hint);
            }
            /* a slip of a factor (9.2 TB/s for 920 GB/s) read a step far under
             * the bound: a measured figure past the entry's own spec by more
             * than a run's scatter is refused. The spec sections of a bench's
             * entry are its own probes, which a disturbed quick run took at
             * 0.67x its GEMV's rate: 4x is scatter's limit, a slip's floor
             * (gemv_cache reads from cache, past DRAM's; a type the compute
             * section does not list, such as the CPU kernel's int8 dot
             * products, has no peak to hold to) */
            if (given && ms->gemv_B_s[dt] > 4 * hw->hbm_bandwidth_B_s)
                return field_error_hint(hw, path, ids[0], err,
                                        "a gemv_dram rate can be at most 4 x the memory "
                                        "section's bandwidth",
                                        "a rate read from DRAM cannot beat the memory's own; "
                                        "check the unit (GB/s against TB/s)");
            if (given && hw->peak_flop_s[dt] > 0 &&
                ic_hw_measured_gemm_top(ms, (enum ic_dtype)dt) > 4 * hw->peak_flop_s[dt])
                return field_error_hint(hw, path, ids[2], err,
                                        "a measured gemm rate (gemm or gemm_by_batch) can be at "
                                        "most 4 x the compute section's peak for its type",
                                        "a matmul cannot beat the chip's peak; check the unit "
                                        "(GFLOP/s against TFLOP/s)");
        }
        if (hw->locs[IC_HWF_ACHIEVED].line)
            return field_error_hint(hw, path, IC_HWF_ACHIEVED, err,
                                    "an entry holds a measured section or an achieved one, not "
                                    "both",
                                    "measured: what 'infcalc bench' timed of infcalc's own "
                                    "kernel on this machine; achieved: what published "
                                    "microbenchmarks read on the chip; keep one");
    }
    struct ic_hw_achieved *a = &hw->achieved;
    a->present = hw->locs[IC_HWF_ACHIEVED].line != 0;
    if (a->present) {
        if (!(a->hbm_read_B_s >= 1e6 && a->hbm_read_B_s <= hw->hbm_bandwidth_B_s * 1.05)) {
            /* the spec figure beside it, with its line: either may be the
             * one in the wrong unit */
            char said[300];
            snprintf(said, sizeof said,
                     "'hbm_read' (%.4g GB/s) must be at least 1 MB/s and at most the spec "
                     "bandwidth (memory: bandwidth, line %u: %.4g GB/s) plus 5%%",
                     a->hbm_read_B_s / 1e9, hw->locs[IC_HWF_MEM_BANDWIDTH].line,
                     hw->hbm_bandwidth_B_s / 1e9);
            return field_error_hint(hw, path, IC_HWF_A_HBM_READ, err, said,
                                    "an achieved figure is what a streaming kernel measured; "
                                    "check the unit (GB/s, TB/s) of both figures");
        }
        int rc;
        if ((rc = check_gemv_fit(hw, path, "gemv", IC_HWF_A_GEMV_EFF, IC_HWF_A_GEMV_FIXED,
                                 a->gemv_eff, a->gemv_fixed_s,
                                 "it is the decode-shaped GEMV's bandwidth over hbm_read, e.g. "
                                 "0.85",
                                 "0.96", "7.7 us", err)) ||
            (rc = check_gemv_fit(hw, path, "skinny", IC_HWF_A_SKINNY_EFF, IC_HWF_A_SKINNY_FIXED,
                                 a->skinny_eff, a->skinny_fixed_s,
                                 "it is a one-row GEMV kernel's bandwidth over hbm_read, e.g. "
                                 "0.97",
                                 "0.97", "0.2 us", err)))
            return rc;
        if ((rc = sourced_pair(hw, path, IC_HWF_A_GEMV_EFF, IC_HWF_A_GEMV_SOURCE, a->gemv_source,
                               "'gemv_efficiency' and 'gemv_source' go together",
                               "name the GEMV benchmark's document, table, date and shapes in "
                               "gemv_source",
                               err)))
            return rc;
        if ((rc = sourced_pair(hw, path, IC_HWF_A_SKINNY_EFF, IC_HWF_A_SKINNY_SOURCE,
                               a->skinny_source,
                               "'skinny_efficiency' and 'skinny_source' go together",
                               "name the one-row GEMV benchmark's document, table, date and "
                               "shapes in skinny_source",
                               err)))
            return rc;
        if ((rc = sourced_pair(hw, path, IC_HWF_A_TRANSITION_P, IC_HWF_A_TRANSITION_SOURCE,
                               a->transition_source,
                               "'transition_p' and 'transition_source' go together",
                               "name the GEMM sweep's document, table, date and shapes in "
                               "transition_source",
                               err)))
            return rc;
        int given = 0;
        for (int dt = 0; dt < IC_DT_COUNT; dt++) {
            if (!hw->locs[IC_HWF_A_GEMM_FIRST + dt].line)
                continue;
            given++;
            if (!(a->gemm_flop_s[dt] >= 1e9 && a->gemm_flop_s[dt] <= hw->peak_flop_s[dt] * 1.05)) {
                const char *tn = ic_dtype_traits((enum ic_dtype)dt)->name;
                char said[300];
                if (hw->peak_flop_s[dt] > 0)
                    snprintf(said, sizeof said,
                             "an achieved GEMM rate (%s %.4g TFLOP/s) must be at least 1 "
                             "GFLOP/s and at most the spec peak of that type (compute: %s, "
                             "line %u: %.4g TFLOP/s) plus 5%%",
                             tn, a->gemm_flop_s[dt] / 1e12, tn,
                             hw->locs[IC_HWF_COMPUTE_FIRST + dt].line,
                             hw->peak_flop_s[dt] / 1e12);
                else
                    snprintf(said, sizeof said,
                             "an achieved GEMM rate of %s, which the compute section does not "
                             "list", tn);
                return field_error_hint(hw, path, IC_HWF_A_GEMM_FIRST + dt, err, said,
                                        hw->peak_flop_s[dt] > 0
                                            ? "dense peaks, not sparse ones; check the unit "
                                              "(GFLOP/s, TFLOP/s) of both figures"
                                            : "a type the compute section lacks cannot be "
                                              "achieved: add its peak there, or drop it here");
            }
        }
        if (!given)
            return field_error_hint(hw, path, IC_HWF_A_GEMM, err,
                                    "'gemm' gives no compute type's achieved rate",
                                    "e.g. gemm: {bf16: 700 TFLOP/s}");
        /* a transition is of a GEMM the entry times: from 1 to 64, of a
         * type with an achieved rate, and at least one */
        int transitions = 0;
        for (int dt = 0; dt < IC_DT_COUNT; dt++) {
            if (!hw->locs[IC_HWF_A_TRANSITION_FIRST + dt].line)
                continue;
            transitions++;
            if (!(a->transition_p[dt] >= 1 && a->transition_p[dt] <= 64))
                return field_error_hint(hw, path, IC_HWF_A_TRANSITION_FIRST + dt, err,
                                        "a 'transition_p' must be between 1 (the two times "
                                        "add) and 64 (their max)",
                                        "it is fitted to a GEMM's time over the batch rows, "
                                        "e.g. 3");
            if (!(a->gemm_flop_s[dt] > 0))
                return field_error_hint(hw, path, IC_HWF_A_TRANSITION_FIRST + dt, err,
                                        "a 'transition_p' for a compute type without an "
                                        "achieved gemm rate is never used",
                                        "give the type's rate in gemm, or leave its p out");
        }
        if (hw->locs[IC_HWF_A_TRANSITION_P].line && !transitions)
            return field_error_hint(hw, path, IC_HWF_A_TRANSITION_P, err,
                                    "'transition_p' gives no compute type's exponent",
                                    "e.g. transition_p: {bf16: 2.4}");
        if (a->allreduce_chips < (hw->ici_domain_chips > 1 ? 2 : 1) ||
            a->allreduce_chips > hw->ici_domain_chips)
            return field_error_hint(hw, path, IC_HWF_A_AR_CHIPS, err,
                                    "'allreduce_chips' (the chips the all-reduce was measured "
                                    "on) must be between 2 and the interconnect's domain_chips "
                                    "(1 on a domain of one chip)",
                                    "the bus bandwidth is carried to other sizes over the links "
                                    "the fabric gives each; one chip has none");
        if (a->allreduce_axis && !is_torus(hw))
            return field_error_hint(hw, path, IC_HWF_A_AR_AXIS, err,
                                    "'allreduce_axis' is for a torus: the measured group lay "
                                    "along one of its axes",
                                    "leave it out on a switch or a full mesh");
        if (a->allreduce_latency_s > 1e-2 || !(a->allreduce_busbw_B_s >= 1e6))
            return field_error_hint(hw, path, IC_HWF_A_AR_LATENCY, err,
                                    "collectives: latency at most 10 ms, bus bandwidth at least "
                                    "1 MB/s",
                                    "the figures of nccl-tests' all_reduce_perf: the small-"
                                    "message time and the large-message busbw");
        /* each at its own key: the launch floor's figures */
        static const char one_program[] = "a step compiled into one program (a TPU's) has "
                                          "kernels_per_layer 0 and step_launches 1";
        if (a->launch_s > 1e-3)
            return field_error_hint(hw, path, IC_HWF_A_LAUNCH, err,
                                    "'launch' (one kernel launch) must be at most 1 ms",
                                    "per kernel launch, in microseconds, e.g. 'launch: 4 us'");
        if (a->launch_graph_s > a->launch_s)
            return field_error_hint(hw, path, IC_HWF_A_LAUNCH_GRAPH, err,
                                    "'launch_graph' must be at most 'launch': a kernel in a "
                                    "captured graph launches no slower than one on its own",
                                    "e.g. 'launch: 4 us' and 'launch_graph: 1.3 us'");
        if (a->kernels_per_layer > 1000)
            return field_error_hint(hw, path, IC_HWF_A_KERNELS, err,
                                    "'kernels_per_layer' must be at most 1000", one_program);
        if (a->step_launches > 1000)
            return field_error_hint(hw, path, IC_HWF_A_STEP_LAUNCHES, err,
                                    "'step_launches' must be at most 1000", one_program);
        if (a->kernels_per_layer + a->step_launches < 1)
            return field_error_hint(hw, path, IC_HWF_A_KERNELS, err,
                                    "'kernels_per_layer' and 'step_launches' are both 0: a step "
                                    "launches something",
                                    one_program);
        static const int a_src[4] = {IC_HWF_A_MEM_SOURCE, IC_HWF_A_GEMM_SOURCE,
                                     IC_HWF_A_COMM_SOURCE, IC_HWF_A_LAUNCH_SOURCE};
        const char *a_txt[4] = {a->mem_source, a->gemm_source, a->comm_source,
                                a->launch_source};
        for (int i = 0; i < 4; i++)
            if (strlen(a_txt[i]) < 4)
                return field_error_hint(hw, path, a_src[i], err,
                                        "every achieved figure needs its source, 4 "
                                        "characters or more",
                                        "name the document, its table or figure, and the date");
    }
    return IC_OK;
}

int ic_hw_load(const char *path, struct ic_hw *out, struct ic_err *err)
{
    struct ic_ydoc d = {0};
    struct ic_hw *h = NULL;
    int rc = ic_ydoc_load(&d, path, err);
    if (rc)
        return rc;
    path = d.path; /* "-" is named IC_STDIN_NAME from here on */
    h = calloc(1, sizeof *h); /* ~20 KiB: keep it off the stack */
    if (!h) {
        rc = ic_err_set(err, IC_ENOMEM, path, 0, 0, "out of memory");
        goto out;
    }
    yaml_node_t *root = ic_ydoc_root(&d);
    if (!root) {
        rc = ic_err_set(err, IC_EINVAL, path, 1, 1,
                        "empty file; expected a hardware entry (see hwdb/README.md)");
        ic_err_hint(err, "a hardware entry opens with 'name:'; a file of hwdb/ is an example");
        goto out;
    }
    rc = ic_ydoc_read(&d, root, &hw_schema, h, h->locs, NULL, err);
    if (rc)
        goto out;
    rc = check_values(h, path, err);
    if (rc)
        goto out;
    snprintf(h->path, sizeof h->path, "%s", path);
    *out = *h;
out:
    free(h);
    ic_ydoc_free(&d);
    return rc;
}
