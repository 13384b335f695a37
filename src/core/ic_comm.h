/* ic_comm: time of tensor-parallel collectives on a chip's fabric.
 *
 * An all-gather or reduce-scatter of A bytes over Y chips moves (Y-1)/Y * A
 * bytes into every chip, plus one fabric latency per step of its algorithm;
 * an all-reduce is a reduce-scatter then an all-gather, twice that. What a
 * chip can receive at once, and the steps, depend on the topology:
 *   switch (NVLink, PCIe): every link of the chip, links * W_link, and one
 *     step (the direct algorithm: every shard to every peer at once);
 *   full-mesh (Infinity Fabric): the direct links to the Y-1 peers, each
 *     links / (domain - 1) of them where the chip has a link to every chip
 *     of its domain (bonded links: Gaudi 3's 21 are 3 a peer), else one a
 *     peer, min(Y-1, links), the rest reached in further steps;
 *   torus-2d/3d (TPU ICI): the Y chips form the most compact sub-grid; each
 *     axis longer than 2 is a bidirectional ring (2 links, floor(side/2)
 *     steps), an axis of 2 one link and one step; multi-axis collectives use
 *     all of them at once. This assumes wraparound links on every axis: TPU
 *     v5e/v6e slices shorter than the full 16 along an axis have none, and a
 *     collective there can take up to twice the bandwidth term computed.
 * Past the fabric's domain the collective is hierarchical: within the domain
 * on the fabric, then across domains on the scale-out network. W_link and the
 * scale-out figure are one-way bandwidths, as hwdb states them. */
#ifndef IC_COMM_H
#define IC_COMM_H

#include "ic_hw.h"

#include <stdint.h>

struct ic_comm_path {
    double bw_B_s;       /* bytes/s a chip receives during the collective */
    uint64_t steps;      /* sequential fabric steps of one all-gather */
    double step_s;       /* latency of one step */
    uint64_t domain;     /* chips of one fabric domain taking part */
    uint64_t domains;    /* domains taking part (1 = within one fabric) */
};

/* The path a collective over `chips` chips of hw takes (chips >= 1). */
struct ic_comm_path ic_comm_path(const struct ic_hw *hw, uint64_t chips);

/* The path the entry's achieved all-reduce figures were measured on:
 * allreduce_chips' sub-grid, or, measured along one torus axis
 * (allreduce_axis), that axis's links alone (two on a ring, one on a line)
 * and its hops. */
struct ic_comm_path ic_comm_measured_path(const struct ic_hw *hw);

/* Seconds for an all-gather (equally, a reduce-scatter) whose result is
 * `bytes` on every chip, over `chips` chips. 0 for one chip. */
double ic_comm_allgather_s(const struct ic_hw *hw, uint64_t chips, double bytes);

/* Seconds for an all-reduce of `bytes` per chip: reduce-scatter + all-gather. */
double ic_comm_allreduce_s(const struct ic_hw *hw, uint64_t chips, double bytes);

/* Seconds for an all-reduce of `bytes` per chip at the rates the entry's
 * `achieved:` section publishes (nccl-tests style): within the fabric
 * domain the small-message latency plus 2 (Y-1)/Y * bytes / bus bandwidth
 * (busbw = algbw * 2 (Y-1)/Y, so this is bytes / algbw); past the domain
 * the scale-out part of ic_comm_allreduce_s added. The bus bandwidth is
 * ic_comm_busbw_achieved's; the latency is ic_comm_latency_achieved's (the
 * one measured on allreduce_chips chips, and the hops a longer path adds).
 * Without an achieved section, ic_comm_allreduce_s. */
double ic_comm_allreduce_achieved_s(const struct ic_hw *hw, uint64_t chips, double bytes);

/* The achieved all-reduce bus bandwidth on the fabric path p (of
 * ic_comm_path, p->domain chips a domain). The entry's figure was measured
 * on allreduce_chips chips; it is read as an efficiency over the link
 * bandwidth the fabric gives that many chips (ic_comm_path's bw_B_s) and
 * carried to p->domain chips at the same efficiency: busbw x bw(p->domain)
 * / bw(allreduce_chips). On a switch every size reaches the same links,
 * so the figure stands as measured; on a full mesh Y chips reach the
 * direct links to Y - 1 peers (MI300X's 313 GB/s over 7 links is 45 GB/s
 * over the one link of a pair, not 313); on a torus the axes a group spans add their
 * links (a 4 x 4 group of a 2D torus has twice the bandwidth of a 4-chip
 * axis: "How to Scale Your Model", sharding, 'AllGather over multiple
 * axes ... increases the available bandwidth by a factor of N_axes'). */
double ic_comm_busbw_achieved(const struct ic_hw *hw, const struct ic_comm_path *p);
/* The achieved all-reduce latency on path p: the measured one, plus the
 * hops p has beyond the measured group's, each at the ideal path's cost
 * (so that the expected time is never under the ideal bound's latency) */
double ic_comm_latency_achieved(const struct ic_hw *hw, const struct ic_comm_path *p);

/* Seconds for one chip to send `bytes` to a chip of the next pipeline stage,
 * in a layout of `chips` chips in all: within the fabric's domain at the
 * rate one chip reaches one peer (ic_comm_path of 2 chips) plus one step's
 * latency; past it over the scale-out network at its one-way bandwidth plus
 * its latency. 0 for no bytes. */
double ic_comm_send_s(const struct ic_hw *hw, uint64_t chips, double bytes);

/* Seconds for an all-to-all over `chips` chips in groups of `group` (MoE
 * expert parallelism: a group holds one share of the experts), dispatch
 * and combine together, in which every chip sends (and receives) `bytes`
 * spread evenly over the chips of the other groups. The groups lie whole,
 * one after another, so the share bound for other groups' chips in the
 * sender's fabric domain goes on the fabric: its bytes / the path's
 * bandwidth (on a full mesh, the direct links to those peers alone) + 2 *
 * its steps * the step latency; the rest, to other domains (all of it
 * where a group fills a domain), at the scale-out bandwidth plus 2
 * scale-out latencies. 0 for one group. */
double ic_comm_alltoall_s(const struct ic_hw *hw, uint64_t chips, uint64_t group, double bytes);

#endif
