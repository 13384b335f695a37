/* ic_comm: collective times from hwdb interconnect figures. */
#include "ic_comm.h"

/* Fabric path for n chips inside one domain. */
/* A torus axis of `side` chips too short for its wraparound link (TPU v5e
 * and v6e below 16 chips: hwdb's wraparound_from) is a line; so is every
 * axis of a slice that is not whole cubes (TPU v5p below 4 x 4 x 4:
 * wraparound_cube), told by `cubes`. */
static bool axis_is_line(const struct ic_hw *hw, uint64_t side, bool cubes)
{
    return (hw->ici_wrap_from && side < hw->ici_wrap_from) || (hw->ici_wrap_cube && !cubes);
}

/* The links an axis gives each chip: two on a ring, one on a line or on an
 * axis of 2, none on an axis of 1. */
static uint64_t axis_links(const struct ic_hw *hw, uint64_t side, bool cubes)
{
    return side < 2 ? 0 : side > 2 && !axis_is_line(hw, side, cubes) ? 2 : 1;
}

static struct ic_comm_path fabric(const struct ic_hw *hw, uint64_t n)
{
    struct ic_comm_path p = {0, 0, hw->ici_hop_latency_s, n, 1};
    const double W = hw->ici_link_B_s;
    const uint64_t links = hw->ici_links;
    if (n <= 1)
        return p;
    switch (hw->ici_topology) {
    case IC_TOPO_FULL_MESH: {
        /* a chip with a link to every other of its domain gives each peer
         * links / (domain - 1) of them (Gaudi 3: 21 links, 3 to each of 7
         * peers; MI300X: 7, one each); with fewer, one link a peer, and
         * the peers past them reached in further steps */
        const uint64_t peers = hw->ici_domain_chips > 1 ? hw->ici_domain_chips - 1 : 1;
        if (links >= peers) {
            p.bw_B_s = (double)(n - 1) * ((double)links / (double)peers) * W;
            p.steps = 1;
            break;
        }
        uint64_t direct = n - 1 < links ? n - 1 : links;
        p.bw_B_s = (double)direct * W;
        p.steps = (n - 1 + direct - 1) / direct;
        break;
    }
    case IC_TOPO_TORUS_2D:
    case IC_TOPO_TORUS_3D: {
        /* Most compact sub-grid: repeatedly give the smallest side the
         * largest remaining prime factor; where the slice can be whole
         * cubes (wraparound_cube: n a multiple of cube^dims), from sides
         * of a cube each, so that it is (192 v5p chips: 4 x 4 x 12, not
         * 4 x 6 x 8). */
        int dims = hw->ici_topology == IC_TOPO_TORUS_2D ? 2 : 3;
        uint64_t side[3] = {1, 1, 1}, rest = n;
        const uint64_t cube = hw->ici_wrap_cube;
        if (cube) {
            uint64_t whole = 1;
            for (int j = 0; j < dims; j++)
                whole *= cube;
            if (n % whole == 0) {
                for (int j = 0; j < dims; j++)
                    side[j] = cube;
                rest = n / whole;
            }
        }
        uint64_t f[64];
        int nf = 0;
        for (uint64_t q = 2; q * q <= rest; q++)
            while (rest % q == 0) {
                f[nf++] = q;
                rest /= q;
            }
        if (rest > 1)
            f[nf++] = rest;
        for (int i = nf - 1; i >= 0; i--) {
            int small = 0;
            for (int j = 1; j < dims; j++)
                if (side[j] < side[small])
                    small = j;
            side[small] *= f[i];
        }
        /* each axis a bidirectional ring: a shard reaches the farthest chip
         * in floor(side / 2) hops, the axes one after another; a line, one
         * direction's link and side - 1 hops */
        bool cubes = hw->ici_wrap_cube > 0;
        for (int j = 0; j < dims; j++)
            cubes = cubes && side[j] % hw->ici_wrap_cube == 0;
        uint64_t used = 0;
        for (int j = 0; j < dims; j++) {
            used += axis_links(hw, side[j], cubes);
            p.steps += axis_is_line(hw, side[j], cubes) ? side[j] - 1 : side[j] / 2;
        }
        if (used > links)
            used = links;
        p.bw_B_s = (double)used * W;
        break;
    }
    case IC_TOPO_SWITCH:
    case IC_TOPO_NONE:
    case IC_TOPO_COUNT:
    default:
        /* A switch gives every chip a path to every other: the direct
         * (one-shot) algorithm sends each shard to all peers at once, one
         * step of latency, at the chip's whole link bandwidth. */
        p.bw_B_s = (double)links * W;
        p.steps = 1;
        break;
    }
    return p;
}

static struct ic_comm_path path_compute(const struct ic_hw *hw, uint64_t chips)
{
    uint64_t dom = hw->ici_domain_chips;
    if (chips <= dom)
        return fabric(hw, chips);
    /* Largest divisor of chips that fits in a domain: whole domains. */
    uint64_t d = dom;
    while (d > 1 && chips % d)
        d--;
    struct ic_comm_path p = fabric(hw, d);
    p.domains = (chips + d - 1) / d;
    return p;
}

/* A sweep asks for the same path at every point: each thread keeps the last
 * one with the chip count and the fabric figures it was computed from (so
 * an entry changed in place, or another at the same address, is computed
 * afresh). */
static _Thread_local struct {
    bool valid;
    uint64_t chips, links, domain, wrap, wrap_cube;
    double link_B_s, hop_s;
    enum ic_topology topo;
    struct ic_comm_path p;
} last_path;

struct ic_comm_path ic_comm_path(const struct ic_hw *hw, uint64_t chips)
{
    if (last_path.valid && last_path.chips == chips && last_path.links == hw->ici_links &&
        last_path.domain == hw->ici_domain_chips && last_path.link_B_s == hw->ici_link_B_s &&
        last_path.hop_s == hw->ici_hop_latency_s && last_path.topo == hw->ici_topology &&
        last_path.wrap == hw->ici_wrap_from && last_path.wrap_cube == hw->ici_wrap_cube)
        return last_path.p;
    struct ic_comm_path p = path_compute(hw, chips);
    last_path.valid = true;
    last_path.chips = chips;
    last_path.links = hw->ici_links;
    last_path.domain = hw->ici_domain_chips;
    last_path.link_B_s = hw->ici_link_B_s;
    last_path.hop_s = hw->ici_hop_latency_s;
    last_path.topo = hw->ici_topology;
    last_path.wrap = hw->ici_wrap_from;
    last_path.wrap_cube = hw->ici_wrap_cube;
    last_path.p = p;
    return p;
}

/* The scale-out part of an all-gather: across domains each chip exchanges
 * its domain's share, bytes/domain, with its peers in the other domains over
 * the scale-out network. */
static double across_domains_s(const struct ic_hw *hw, const struct ic_comm_path *p,
                               double bytes)
{
    if (p->domains <= 1)
        return 0;
    double share = bytes / (double)p->domain;
    double R = (double)p->domains;
    return (R - 1) / R * share / hw->dcn_B_s + (R - 1) * hw->dcn_latency_s;
}

double ic_comm_allgather_s(const struct ic_hw *hw, uint64_t chips, double bytes)
{
    if (chips <= 1 || bytes <= 0)
        return 0;
    struct ic_comm_path p = ic_comm_path(hw, chips);
    double t = 0;
    if (p.domain > 1)
        t += (double)(p.domain - 1) / (double)p.domain * bytes / p.bw_B_s +
             (double)p.steps * p.step_s;
    return t + across_domains_s(hw, &p, bytes);
}

double ic_comm_allreduce_s(const struct ic_hw *hw, uint64_t chips, double bytes)
{
    return 2 * ic_comm_allgather_s(hw, chips, bytes);
}

double ic_comm_alltoall_s(const struct ic_hw *hw, uint64_t chips, uint64_t group, double bytes)
{
    if (chips <= 1 || bytes <= 0 || group >= chips)
        return 0;
    if (!group)
        group = 1;
    struct ic_comm_path path = ic_comm_path(hw, chips);
    /* the chips of other groups, and those of them in the sender's domain
     * (groups laid out whole, one after another: a group of a domain or
     * more has no other group beside it) */
    const uint64_t others = chips - group;
    const uint64_t near = path.domains <= 1 ? others
                          : group < path.domain ? path.domain - group
                                                : 0;
    const double out = (double)(others - near) / (double)others; /* bound for other domains */
    double t = 0;
    if (near) {
        /* on a full mesh a chip reaches its peers over their direct links
         * only (ic_comm_path's of near + 1 chips: min(near, links)) */
        const double bw = hw->ici_topology == IC_TOPO_FULL_MESH
                              ? ic_comm_path(hw, near + 1).bw_B_s
                              : path.bw_B_s;
        t += bytes * (1 - out) / bw + 2.0 * (double)path.steps * path.step_s;
    }
    if (out > 0)
        t += bytes * out / hw->dcn_B_s + 2.0 * hw->dcn_latency_s;
    return t;
}

/* The path the achieved figures were measured on (a copy: ic_comm_path
 * keeps one path per thread, and a caller's may be it): allreduce_chips'
 * sub-grid, or, measured along one torus axis, that axis's links alone
 * (two on a ring, one on a line; an axis alone is no slice of whole cubes)
 * and its hops. */
struct ic_comm_path ic_comm_measured_path(const struct ic_hw *hw)
{
    const struct ic_hw_achieved *a = &hw->achieved;
    const uint64_t m = a->allreduce_chips;
    struct ic_comm_path at = ic_comm_path(hw, m);
    if (a->allreduce_axis) {
        at.bw_B_s = (double)axis_links(hw, m, false) * hw->ici_link_B_s;
        at.steps = axis_is_line(hw, m, false) ? m - 1 : m / 2;
    }
    return at;
}

/* Whether a path is the measured group's own (or no group was given): the
 * figures stand as measured */
static bool as_measured(const struct ic_hw *hw, const struct ic_comm_path *p)
{
    const struct ic_hw_achieved *a = &hw->achieved;
    return a->allreduce_chips < 2 || (a->allreduce_chips == p->domain && !a->allreduce_axis);
}

double ic_comm_busbw_achieved(const struct ic_hw *hw, const struct ic_comm_path *p)
{
    const struct ic_hw_achieved *a = &hw->achieved;
    if (as_measured(hw, p))
        return a->allreduce_busbw_B_s;
    const struct ic_comm_path at = ic_comm_measured_path(hw);
    if (!(at.bw_B_s > 0) || !(p->bw_B_s > 0))
        return a->allreduce_busbw_B_s;
    return a->allreduce_busbw_B_s * (p->bw_B_s / at.bw_B_s);
}

double ic_comm_latency_achieved(const struct ic_hw *hw, const struct ic_comm_path *p)
{
    const struct ic_hw_achieved *a = &hw->achieved;
    if (as_measured(hw, p))
        return a->allreduce_latency_s;
    /* the hops a longer path adds, each at the ideal path's cost (an
     * all-reduce crosses them twice, as ic_comm_allreduce_s counts) */
    const struct ic_comm_path at = ic_comm_measured_path(hw);
    const double more = p->steps > at.steps ? (double)(p->steps - at.steps) : 0;
    return a->allreduce_latency_s + 2.0 * more * p->step_s;
}

double ic_comm_allreduce_achieved_s(const struct ic_hw *hw, uint64_t chips, double bytes)
{
    const struct ic_hw_achieved *a = &hw->achieved;
    if (chips <= 1 || bytes <= 0)
        return 0;
    if (!a->present)
        return ic_comm_allreduce_s(hw, chips, bytes);
    struct ic_comm_path p = ic_comm_path(hw, chips);
    double t = 0;
    if (p.domain > 1) {
        const double Y = (double)p.domain;
        t += ic_comm_latency_achieved(hw, &p) +
             2.0 * (Y - 1) / Y * bytes / ic_comm_busbw_achieved(hw, &p);
    }
    return t + 2.0 * across_domains_s(hw, &p, bytes);
}

double ic_comm_send_s(const struct ic_hw *hw, uint64_t chips, double bytes)
{
    if (bytes <= 0)
        return 0;
    if (chips > hw->ici_domain_chips)
        return bytes / hw->dcn_B_s + hw->dcn_latency_s;
    const struct ic_comm_path p = ic_comm_path(hw, 2);
    return bytes / p.bw_B_s + p.step_s;
}
