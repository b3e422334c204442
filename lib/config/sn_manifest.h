/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_MANIFEST_H
#define SN_MANIFEST_H

/*
 * The node manifest: what every node of a supernode must have, from the
 * `node:` section of supernode.yaml (supernode-prolog --learn prints one),
 * and the prolog's own settings (`prolog:`).  Owned by struct sn_config.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SN_MANIFEST_MAX_PORTS 64
/*
 * Accelerators per node, and NVLinks per accelerator: the one limit for
 * each, from the manifest (node.accelerators.count, .nvlinks) to what NVML
 * and hwloc are asked for, a record and supernode.prom.  More accelerators
 * than this are reported, not read; more links are not probed.
 */
#define SN_MANIFEST_MAX_ACCELS 64
#define SN_MANIFEST_MAX_NVLINKS 64

/*
 * node.accelerators.vendor.  What each one is (PCI id, device nodes,
 * library, variables) is in the vendor table, config/sn_vendor.h; code
 * asks that table, never compares the vendor itself.
 */
enum sn_accel_vendor {
	SN_ACCEL_NONE = 0,  /* no accelerators expected (CPU node) */
	SN_ACCEL_NVIDIA,    /* NVIDIA GPUs: NVML, PCI vendor 0x10de */
	SN_ACCEL_ASCEND,    /* Huawei Ascend NPUs: DCMI, 0x19e5 */
	SN_ACCEL_HYGON,	    /* Hygon DCUs: ROCm SMI, 0x1d94 */
	SN_ACCEL_CAMBRICON, /* Cambricon MLUs: CNDev, 0xcabc */
	SN_ACCEL_MTHREADS,  /* Moore Threads GPUs: MTML, 0x1ed5 */
	SN_ACCEL_METAX,	    /* MetaX GPUs: MXSML, 0x9999 */
	SN_ACCEL_KUNLUNXIN, /* Kunlunxin XPUs: XPUML, 0x1d22 */
	SN_ACCEL_AMD,	    /* AMD Instinct: PCI and device nodes, 0x1002 */
	SN_ACCEL_OTHER,	    /* any other: pci_vendor and device_glob given */
	SN_ACCEL_VENDOR_COUNT
};

/* node.accelerators */
struct sn_accel_manifest {
	enum sn_accel_vendor vendor;
	uint16_t pci_vendor; /* PCI vendor id counted in sysfs */
	uint32_t count;	     /* exact number expected */
	char *device_glob; /* device nodes, relative to paths.dev ("nvidia[0-9]*") */
	uint32_t pcie_min_gen;	 /* 0 = not checked */
	uint32_t pcie_min_width; /* 0 = not checked */
	bool pcie_check_speed; /* GPUs idle at a lower gen: width only unless true */
	int32_t nvlinks; /* active NVLinks per GPU; 0 = none; -1 = not checked */
	/*
	 * links: the vendor's device links (HCCS, MLU-Link, MTLink,
	 * MetaXLink, XGMI) that must be up per accelerator, as its library
	 * reports them; -1 = not checked.  NVIDIA uses nvlinks.
	 */
	int32_t links;
	/*
	 * nvlink_domain: the GPUs must be in a multi-node NVLink domain (NVL72
	 * and the like): the fabric gate judges their fabric info.  imex: the
	 * IMEX channel device imex_channel must exist and nvidia-imex answer.
	 */
	bool nvlink_domain;
	bool imex;
	uint32_t imex_channel; /* N of .../channelN; default 0 */
};

enum sn_link_layer {
	SN_LINK_INFINIBAND = 0,
	SN_LINK_ETHERNET, /* RoCE: judged by Ethernet rules, never IB ones */
};

/* One entry of node.ports: an HCA port the node must have up. */
struct sn_port_manifest {
	char *device;  /* "mlx5_0" */
	uint32_t port; /* 1-based port number */
	enum sn_link_layer link_layer;
	double min_rate_gbps;  /* 0 = not checked */
	uint32_t pcie_min_gen; /* of the HCA; 0 = not checked */
	uint32_t pcie_min_width;
	int32_t gid_index; /* RoCE: GID index that must be RoCE v2; -1 = any */
	/*
	 * The RDMA path MTU the port must reach, in bytes: 256, 512, 1024,
	 * 2048 or 4096 (enum ib_mtu); 0 = not checked.  IB: the active MTU
	 * (verbs); RoCE: derived from the GID's netdev MTU.
	 */
	uint32_t min_mtu;
};

enum sn_nearness {
	SN_NEAR_PCIE_SWITCH = 0, /* NIC and accelerator under one PCIe switch */
	SN_NEAR_NUMA,		 /* NIC and accelerator on one NUMA node */
};

/* node.topology.pairs[]: accelerator index -> the NIC that must be near it. */
struct sn_pair {
	uint32_t accelerator;
	char *nic;
};

struct sn_manifest {
	bool present; /* a node: section was given */
	struct sn_accel_manifest accel;
	struct sn_port_manifest *ports;
	size_t n_ports;
	enum sn_nearness nearness;
	struct sn_pair *pairs;
	size_t n_pairs;
};

/* prolog: */
struct sn_prolog_settings {
	bool all_jobs; /* check before every job, not only --supernode ones */
	uint32_t timeout_s;	  /* the whole prolog */
	uint32_t check_timeout_s; /* each check group */
	bool drain_on_unknown; /* UNKNOWN drains too (default: only logged) */
};

#endif
