/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_LEARN_H
#define SN_LEARN_H

/*
 * The node: manifest of the node it runs on (supernode-prolog --learn), to
 * start the config from a known-good node.  What it writes is what the node
 * has now: the accelerators (NVML for NVIDIA, else PCI vendor ids in sysfs),
 * their PCIe maximum and active NVLinks, every ACTIVE RDMA port with its
 * link layer and rate, and each accelerator's NIC when they share a PCIe
 * switch.  The decisions are here; prolog/learn.c runs sn_learn_write() in
 * a child with a time limit (NVML can hang) and prints what it wrote.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/sn_checkctx.h"
#include "inventory/sn_accel.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_nvml.h"

#define SN_LEARN_MAX_RDMA_DEVS 64 /* RDMA devices looked at, at most */
#define SN_LEARN_MAX_PORT 8	  /* ports 1..8 of each */

/* The accelerators as a manifest states them. */
struct sn_learned_accel {
	enum sn_accel_vendor vendor;
	uint16_t pci_vendor; /* 0x10de, 0x1002, 0x19e5 */
	unsigned count;	     /* 0: none found */
	unsigned gen,
		width; /* smallest maximum over the accelerators; 0 unknown */
	int nvlinks;   /* smallest active count; -1 unknown */
	int links;     /* other vendors: smallest count of links up; -1 */
	int lib_count; /* the vendor library's count; -1 unread */
};

#define SN_LEARNED_ACCEL_INIT                               \
	{                                                   \
		.nvlinks = -1, .links = -1, .lib_count = -1 \
	}

/*
 * sn_learn_gpu - fold one GPU's NVML reading into a: the manifest asks for
 * what every accelerator can do, so the smallest maximum PCIe generation
 * and width (of those read), and the smallest count of active NVLinks.
 */
void sn_learn_gpu(struct sn_learned_accel *a, const struct sn_nvml_gpu *g);

/*
 * sn_learn_port_keep - true if a port goes into the manifest: present and
 * ACTIVE (a known-good node has every port up; another state is said in a
 * comment, not learned).
 */
bool sn_learn_port_keep(const struct sn_ib_port *p);

/*
 * sn_learn_accels - the accelerators of the node: NVIDIA through NVML
 * (ctx->nvml), else the first vendor of the table (config/sn_vendor.h)
 * with PCI functions under ctx->sysfs, and for a vendor with a library
 * the links up (read as the prolog reads them, the library from the
 * config's paths.<lib> or the vendor's default places).  a starts as
 * SN_LEARNED_ACCEL_INIT; count stays 0 if none.
 */
void sn_learn_accels(const struct sn_check_ctx *ctx,
		     struct sn_learned_accel *a);

/* sn_learn_accel_write - the "  accelerators:" block (or a comment). */
void sn_learn_accel_write(FILE *f, const struct sn_learned_accel *a);

/*
 * sn_learn_ports_write - the "  ports:" block: every ACTIVE port of the
 * first SN_LEARN_MAX_RDMA_DEVS devices under <sysfs>/class/infiniband
 * (ports 1..SN_LEARN_MAX_PORT), the others as "# left out" comments.
 * Each learned port gets min_mtu, its path MTU (sn_ib_port_mtu(): verbs'
 * active MTU for IB, derived from the netdev MTU for RoCE), or a
 * "# min_mtu not learned: ..." comment after it saying why.
 */
void sn_learn_ports_write(FILE *f, const char *sysfs);

/*
 * sn_learn_topology_write - the "  topology:" block: accelerator i (of
 * a->count, in hwloc's order) paired with its nearest NIC when the two
 * share a PCIe switch; a comment when none does or the topology does not
 * load (hwloc_xml "" = the live node).
 */
void sn_learn_topology_write(FILE *f, const char *hwloc_xml,
			     const struct sn_learned_accel *a);

/*
 * sn_learn_write - the manifest's body after "node:": the accelerators,
 * the ports, and the topology when there are accelerators.
 */
void sn_learn_write(FILE *f, const struct sn_check_ctx *ctx);

#endif
