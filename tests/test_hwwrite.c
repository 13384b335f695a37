/* ic_hwwrite: what the writer writes, ic_hw_load reads back. An entry with
 * a distinct value in every field the loader reads (measured section
 * included) is written, loaded and compared field by field against the
 * values set here (a list written out by hand, not the schema the writer
 * walks, so a key the writer drops fails); every hwdb/ entry survives the
 * same round trip; a value the loader would refuse is refused at writing. */
#include "ic_test.h"
#include "ic_hwwrite.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values of at most six significant digits in the writer's units come back
 * within the rounding of a decimal scale (GB/s -> B/s is one multiply). */
static void close_to(double got, double want, const char *what)
{
    ck_assert_msg(fabs(got - want) <= 1e-12 * fabs(want), "%s: wrote %.17g, read %.17g", what,
                  want, got);
}

/* Writes h to a temporary file and loads it back into *back. */
static void round_trip(const struct ic_hw *h, struct ic_hw *back, const char *comment)
{
    char path[] = "/tmp/infcalc-hwwrite-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_hwwrite_file(path, h, comment, &e), IC_OK);
    int rc = ic_hw_load(path, back, &e);
    ck_assert_msg(rc == IC_OK, "%s:%u:%u: %s", e.file, e.line, e.col, e.msg);
    unlink(path);
}

/* A machine that uses every key: strings that need quoting (quotes, a
 * backslash, ': ', ' #', a leading '-'), distinct figures everywhere. */
static void fill_all(struct ic_hw *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "rt-machine.2");
    h->n_aliases = 2;
    snprintf(h->aliases[0], sizeof h->aliases[0], "rt");
    snprintf(h->aliases[1], sizeof h->aliases[1], "rt-2.x");
    snprintf(h->vendor, sizeof h->vendor, "Vendor \"Q\" \\ Inc.");
    snprintf(h->description, sizeof h->description, "- a chip: with # and , in it");
    h->hbm_capacity_B = 123456789012;   /* "123456789012 B" */
    h->hbm_bandwidth_B_s = 2.345e12;    /* "2345 GB/s" */
    for (int t = 0; t < IC_DT_COUNT; t++)
        h->peak_flop_s[t] = (t + 1) * 1.25e13; /* 12500, 25000 ... GFLOP/s */
    snprintf(h->section_source[0], sizeof h->section_source[0], "memory: a datasheet");
    snprintf(h->section_source[1], sizeof h->section_source[1], "compute: another");
    snprintf(h->section_source[2], sizeof h->section_source[2], "ici: a third");
    snprintf(h->section_source[3], sizeof h->section_source[3], "dcn: a fourth");
    snprintf(h->section_source[4], sizeof h->section_source[4], "host: a fifth");
    snprintf(h->section_source[5], sizeof h->section_source[5], "price: a sixth");
    snprintf(h->ici_kind_text, sizeof h->ici_kind_text, "nvlink");
    snprintf(h->ici_topology_text, sizeof h->ici_topology_text, "switch");
    h->ici_link_B_s = 2.5e10;
    h->ici_links = 18;
    h->ici_domain_chips = 72;
    h->ici_hop_latency_s = 1.5e-6;
    snprintf(h->dcn_kind, sizeof h->dcn_kind, "infiniband");
    h->dcn_B_s = 5e10;
    h->dcn_latency_s = 1.2e-5;
    snprintf(h->host_kind, sizeof h->host_kind, "pcie-gen5-x16");
    h->host_B_s = 6.4e10;
    h->usd_per_chip_hour = 3.29;
    snprintf(h->price_as_of, sizeof h->price_as_of, "2026-11");
    h->n_sources = 2;
    snprintf(h->sources[0], sizeof h->sources[0], "first: \"quoted\"");
    snprintf(h->sources[1], sizeof h->sources[1], "second\twith a tab");
    snprintf(h->notes, sizeof h->notes, "notes: line one\nline two");

    struct ic_hw_measured *m = &h->measured;
    snprintf(m->date, sizeof m->date, "2026-12-01");
    snprintf(m->cpu, sizeof m->cpu, "Some CPU @ 2.10GHz");
    m->threads = 7;
    m->llc_B = 33554432;
    m->read_B_s = 5.1e10;
    m->read_1t_B_s = 1.21e10;
    m->cache_read_B_s = 3.05e11;
    m->probe_B_s = 4.07e10;
    m->probe_gemm_flop_s = 1.93e11;
    m->probe_attn_s = 12.5e-9;
    m->fork_join_s = 3.7e-6;
    m->matmul_start_s = 4.3e-6;
    m->layer_work_s = 31e-6;
    m->layer_work_dim = 2048;
    m->transition_p = 2.5;
    static const enum ic_dtype types[3] = {IC_DT_FP32, IC_DT_BF16, IC_DT_INT8};
    for (int i = 0; i < 3; i++) {
        const enum ic_dtype t = types[i];
        m->transition_p_type[t] = 3.1 + i;
        m->gemv_B_s[t] = 4.1e10 + 1e9 * i;
        m->attn_score_s[t] = 3e-9 * (i + 1);
        if (i > 0) { /* bf16 and int8 probes; fp32's are the scalars above */
            m->probe_type_B_s[t] = 3.9e10 + 1e9 * i;
            m->probe_gemm_type[t] = 1.5e11 + 1e11 * i;
        }
        m->gemv_cache_B_s[t] = 2.1e11 + 1e10 * i;
        m->gemm_flop_s[t] = 1.7e11 + 1e10 * i;
        for (int b = 0; b < IC_HW_GEMM_BATCHES; b++)
            m->gemm_by_batch[t][b] = 1e9 * (10 * i + b + 1);
    }
    m->attn_flop_s[IC_DT_BF16] = 6.5e10;
    m->attn_flop_s[IC_DT_INT8] = 7.5e10;
    snprintf(m->source, sizeof m->source, "bench: medians");
}

START_TEST(test_every_field_round_trips)
{
    struct ic_hw *h = malloc(sizeof *h), *b = malloc(sizeof *b);
    ck_assert(h && b);
    fill_all(h);
    round_trip(h, b, "a comment\nof two lines");

    ck_assert_str_eq(b->name, "rt-machine.2");
    ck_assert_uint_eq(b->n_aliases, 2);
    ck_assert_str_eq(b->aliases[0], "rt");
    ck_assert_str_eq(b->aliases[1], "rt-2.x");
    ck_assert_str_eq(b->vendor, "Vendor \"Q\" \\ Inc.");
    ck_assert_str_eq(b->description, "- a chip: with # and , in it");
    close_to(b->hbm_capacity_B, 123456789012, "capacity");
    close_to(b->hbm_bandwidth_B_s, 2.345e12, "bandwidth");
    for (int t = 0; t < IC_DT_COUNT; t++)
        close_to(b->peak_flop_s[t], (t + 1) * 1.25e13, ic_dtype_traits((enum ic_dtype)t)->name);
    for (int i = 0; i < 6; i++)
        ck_assert_str_eq(b->section_source[i], h->section_source[i]);
    ck_assert_str_eq(b->ici_kind_text, "nvlink");
    ck_assert_int_eq(b->ici_kind, IC_LINK_NVLINK);
    ck_assert_str_eq(b->ici_topology_text, "switch");
    ck_assert_int_eq(b->ici_topology, IC_TOPO_SWITCH);
    close_to(b->ici_link_B_s, 2.5e10, "link_bandwidth_one_way");
    ck_assert_uint_eq(b->ici_links, 18);
    ck_assert_uint_eq(b->ici_domain_chips, 72);
    close_to(b->ici_hop_latency_s, 1.5e-6, "hop_latency");
    ck_assert_str_eq(b->dcn_kind, "infiniband");
    close_to(b->dcn_B_s, 5e10, "scale_out bandwidth");
    close_to(b->dcn_latency_s, 1.2e-5, "scale_out latency");
    ck_assert_str_eq(b->host_kind, "pcie-gen5-x16");
    close_to(b->host_B_s, 6.4e10, "host bandwidth");
    close_to(b->usd_per_chip_hour, 3.29, "usd_per_chip_hour");
    ck_assert_str_eq(b->price_as_of, "2026-11");
    ck_assert_uint_eq(b->n_sources, 2);
    ck_assert_str_eq(b->sources[0], "first: \"quoted\"");
    ck_assert_str_eq(b->sources[1], "second\twith a tab");
    ck_assert_str_eq(b->notes, "notes: line one\nline two");

    const struct ic_hw_measured *m = &b->measured;
    ck_assert(m->present);
    ck_assert_str_eq(m->date, "2026-12-01");
    ck_assert_str_eq(m->cpu, "Some CPU @ 2.10GHz");
    ck_assert_uint_eq(m->threads, 7);
    close_to(m->llc_B, 33554432, "llc");
    close_to(m->read_B_s, 5.1e10, "read_bandwidth");
    close_to(m->read_1t_B_s, 1.21e10, "read_bandwidth_1thread");
    close_to(m->cache_read_B_s, 3.05e11, "cache_read_bandwidth");
    close_to(m->probe_B_s, 4.07e10, "probe_bandwidth");
    close_to(m->probe_gemm_flop_s, 1.93e11, "probe_gemm");
    close_to(m->probe_attn_s, 12.5e-9, "probe_attention");
    close_to(m->attn_score_s[IC_DT_FP32], 3e-9, "attention_per_score.fp32");
    close_to(m->attn_score_s[IC_DT_INT8], 9e-9, "attention_per_score.int8");
    close_to(m->probe_type_B_s[IC_DT_BF16], 4.0e10, "probe_bandwidth_by_type.bf16");
    close_to(m->probe_type_B_s[IC_DT_INT8], 4.1e10, "probe_bandwidth_by_type.int8");
    close_to(m->probe_gemm_type[IC_DT_BF16], 2.5e11, "probe_gemm_by_type.bf16");
    close_to(m->probe_gemm_type[IC_DT_INT8], 3.5e11, "probe_gemm_by_type.int8");
    ck_assert(m->probe_type_B_s[IC_DT_FP32] == 0 && m->probe_gemm_type[IC_DT_FP16] == 0);
    close_to(m->fork_join_s, 3.7e-6, "fork_join");
    close_to(m->matmul_start_s, 4.3e-6, "matmul_start");
    close_to(m->layer_work_s, 31e-6, "layer_work");
    ck_assert_uint_eq(m->layer_work_dim, 2048);
    close_to(m->transition_p, 2.5, "transition_p");
    static const enum ic_dtype types[3] = {IC_DT_FP32, IC_DT_BF16, IC_DT_INT8};
    for (int i = 0; i < 3; i++) {
        const enum ic_dtype t = types[i];
        close_to(m->transition_p_type[t], 3.1 + i, "transition_p_by_type");
        close_to(m->gemv_B_s[t], 4.1e10 + 1e9 * i, "gemv_dram");
        close_to(m->gemv_cache_B_s[t], 2.1e11 + 1e10 * i, "gemv_cache");
        close_to(m->gemm_flop_s[t], 1.7e11 + 1e10 * i, "gemm");
        for (int k = 0; k < IC_HW_GEMM_BATCHES; k++)
            close_to(m->gemm_by_batch[t][k], 1e9 * (10 * i + k + 1), "gemm_by_batch");
    }
    close_to(m->attn_flop_s[IC_DT_BF16], 6.5e10, "attention bf16");
    close_to(m->attn_flop_s[IC_DT_INT8], 7.5e10, "attention int8");
    ck_assert_str_eq(m->source, "bench: medians");
    free(h);
    free(b);
}
END_TEST

/* Optional keys left at 0 are not written, and read back as 0; a section
 * of such keys only (attention here) is left out whole. */
START_TEST(test_unset_stays_unset)
{
    struct ic_hw *h = malloc(sizeof *h), *b = malloc(sizeof *b);
    ck_assert(h && b);
    fill_all(h);
    h->n_aliases = 0;
    h->measured.read_1t_B_s = 0;
    h->measured.attn_flop_s[IC_DT_BF16] = h->measured.attn_flop_s[IC_DT_INT8] = 0;
    h->measured.gemv_B_s[IC_DT_FP32] = h->measured.gemv_cache_B_s[IC_DT_FP32] = 0;
    h->measured.gemm_flop_s[IC_DT_FP32] = 0;
    round_trip(h, b, NULL);
    ck_assert_uint_eq(b->n_aliases, 0);
    ck_assert_double_eq(b->measured.read_1t_B_s, 0);
    ck_assert_double_eq(b->measured.gemv_B_s[IC_DT_FP32], 0);
    ck_assert_uint_eq(b->locs[IC_HWF_M_ATTN].line, 0);
    ck_assert_uint_eq(b->locs[IC_HWF_M_GEMV_FIRST + IC_DT_FP32].line, 0);
    ck_assert_uint_ne(b->locs[IC_HWF_M_GEMV_FIRST + IC_DT_BF16].line, 0);
    /* no measured section at all: an entry from the spec sheet */
    memset(&h->measured, 0, sizeof h->measured);
    round_trip(h, b, NULL);
    ck_assert(!b->measured.present);
    free(h);
    free(b);
}
END_TEST

/* Every hwdb/ entry: loaded, written, loaded again, the same figures. */
START_TEST(test_hwdb_round_trips)
{
    struct ic_db db;
    struct ic_err e = {0};
    ck_assert_int_eq(ic_db_init(&db, IC_SRC_DIR, &e), 0);
    char **paths;
    size_t n;
    ck_assert_int_eq(ic_db_paths(&db, IC_DB_HW, &paths, &n, &e), 0);
    ck_assert_uint_ge(n, 11);
    struct ic_hw *h = malloc(sizeof *h), *b = malloc(sizeof *b);
    ck_assert(h && b);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(ic_hw_load(paths[i], h, &e), IC_OK);
        round_trip(h, b, NULL);
        ck_assert_str_eq(b->name, h->name);
        ck_assert_uint_eq(b->n_aliases, h->n_aliases);
        ck_assert_str_eq(b->description, h->description);
        ck_assert_str_eq(b->notes, h->notes);
        ck_assert_uint_eq(b->n_sources, h->n_sources);
        for (uint32_t j = 0; j < h->n_sources; j++)
            ck_assert_str_eq(b->sources[j], h->sources[j]);
        /* six significant digits: the hwdb's figures have at most four */
        close_to(b->hbm_capacity_B, h->hbm_capacity_B, "capacity");
        close_to(b->hbm_bandwidth_B_s, h->hbm_bandwidth_B_s, "bandwidth");
        for (int t = 0; t < IC_DT_COUNT; t++)
            ck_assert_msg(fabs(b->peak_flop_s[t] - h->peak_flop_s[t]) <=
                              1e-12 * h->peak_flop_s[t], "%s peak", h->name);
        ck_assert_int_eq(b->ici_kind, h->ici_kind);
        ck_assert_int_eq(b->ici_topology, h->ici_topology);
        ck_assert_uint_eq(b->ici_links, h->ici_links);
        ck_assert_uint_eq(b->ici_domain_chips, h->ici_domain_chips);
        ck_assert(fabs(b->ici_link_B_s - h->ici_link_B_s) <= 1e-12 * h->ici_link_B_s);
        ck_assert(fabs(b->dcn_B_s - h->dcn_B_s) <= 1e-12 * h->dcn_B_s);
        ck_assert(fabs(b->host_B_s - h->host_B_s) <= 1e-12 * h->host_B_s);
        ck_assert(fabs(b->usd_per_chip_hour - h->usd_per_chip_hour) <= 1e-12);
    }
    free(h);
    free(b);
    ic_db_paths_free(paths, n);
}
END_TEST

/* The achieved section (tests/fixtures/achieved-h100.yaml) is written and
 * read back with every figure and source. */
START_TEST(test_achieved_round_trips)
{
    struct ic_hw *h = malloc(sizeof *h), *b = malloc(sizeof *b);
    ck_assert(h && b);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_hw_load(IC_TEST_DIR "/fixtures/achieved-h100.yaml", h, &e), IC_OK);
    round_trip(h, b, NULL);
    const struct ic_hw_achieved *a = &b->achieved;
    ck_assert(a->present);
    close_to(a->hbm_read_B_s, 3.0e12, "hbm_read");
    close_to(a->gemv_eff, 0.9, "gemv_efficiency");
    ck_assert_str_eq(a->gemv_source, "test fixture: a round figure");
    close_to(a->gemm_flop_s[IC_DT_BF16], 700e12, "gemm bf16");
    close_to(a->gemm_flop_s[IC_DT_FP8], 1300e12, "gemm fp8");
    ck_assert(a->gemm_flop_s[IC_DT_FP16] == 0);
    close_to(a->allreduce_latency_s, 20e-6, "allreduce_latency");
    close_to(a->allreduce_busbw_B_s, 360e9, "allreduce_bus_bandwidth");
    ck_assert_uint_eq(a->allreduce_chips, 8);
    close_to(a->launch_s, 5e-6, "launch");
    close_to(a->launch_graph_s, 2e-6, "launch_graph");
    ck_assert_uint_eq(a->kernels_per_layer, 10);
    ck_assert_str_eq(a->mem_source, h->achieved.mem_source);
    ck_assert_str_eq(a->launch_source, h->achieved.launch_source);
    ck_assert_str_eq(a->derived_from, "");
    free(h);
    free(b);
}
END_TEST

/* A figure the loader would refuse is refused here, naming the key. */
START_TEST(test_bad_value_refused)
{
    struct ic_hw *h = malloc(sizeof *h);
    ck_assert(h);
    fill_all(h);
    h->measured.gemm_by_batch[IC_DT_BF16][4] = NAN;
    FILE *f = tmpfile();
    ck_assert(f);
    struct ic_err e = {0};
    ck_assert_int_eq(ic_hwwrite(f, h, NULL, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "'bf16'") && strstr(e.msg, "finite"), "%s", e.msg);
    fill_all(h);
    h->ici_link_B_s = -1;
    ck_assert_int_eq(ic_hwwrite(f, h, NULL, &e), IC_EINVAL);
    ck_assert_msg(strstr(e.msg, "'link_bandwidth_one_way'"), "%s", e.msg);
    fclose(f);
    ck_assert_int_eq(ic_hwwrite_file("/nonexistent-dir/x.yaml", h, NULL, &e), IC_EIO);
    ck_assert_str_eq(e.file, "/nonexistent-dir/x.yaml");
    ck_assert_msg(strstr(e.msg, "No such file or directory"), "%s", e.msg);
    /* a full disk: the OS's reason; a valid entry that could not be written */
    fill_all(h);
    ck_assert_int_eq(ic_hwwrite_file("/dev/full", h, NULL, &e), IC_EIO);
    ck_assert_msg(strstr(e.msg, "cannot write the entry: No space left on device"), "%s", e.msg);
    free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hwwrite");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_every_field_round_trips);
    tcase_add_test(tc, test_unset_stays_unset);
    tcase_add_test(tc, test_hwdb_round_trips);
    tcase_add_test(tc, test_bad_value_refused);
    tcase_add_test(tc, test_achieved_round_trips);
    suite_add_tcase(s, tc);
    return ic_test_run(s);
}
