/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_VENDOR_H
#define SN_VENDOR_H

/*
 * The vendor table: what each accelerator vendor is, in one place.  Code
 * that needs a vendor's PCI id, device nodes, library, link name or
 * variables asks this table (sn_vendor_of); nothing else compares
 * node.accelerators.vendor.  The backends that read each vendor's
 * management library are the other half of the table, in
 * inventory/sn_vendor_lib.h, indexed by the same enum.
 *
 * Facts and their sources: ../shared/reference/vendors.md (copied into
 * etc/README.md's vendor matrix).  Where a fact is derived or a guess, the
 * entry in vendor.c says so.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_manifest.h"

/* Where a vendor's supernode identity comes from (supernodes[].identity). */
enum sn_vendor_identity {
	SN_VENDOR_ID_NONE = 0, /* no hardware source: the config names it */
	SN_VENDOR_ID_NVML,     /* NVML fabric clique (cluster UUID) */
	SN_VENDOR_ID_DCMI,     /* DCMI super pod id */
};

/* How the prolog judges the accelerators (checks/check_accel.c). */
enum sn_vendor_api {
	SN_VENDOR_API_NONE = 0, /* PCI functions and device nodes only */
	SN_VENDOR_API_NVML,	/* NVIDIA's deep checks through NVML */
	SN_VENDOR_API_LIB,	/* a backend of inventory/sn_vendor_lib.h */
};

/*
 * What the job environment does with a vendor's visible-devices variable
 * (env/taskenv_accel.c).
 */
enum sn_vendor_visible {
	SN_VENDOR_VISIBLE_NONE = 0, /* read the job's, never set it */
	SN_VENDOR_VISIBLE_BIND,	    /* one device per task by PCI bus order,
				     * with order_var, where Slurm bound none */
	SN_VENDOR_VISIBLE_LIST,	    /* the task's devices, where the job set
				     * none (torch.npu.set_device(LOCAL_RANK)) */
};

#define SN_VENDOR_MAX_CLASSES 6
#define SN_VENDOR_MAX_DEFAULTS 4

/*
 * struct sn_vendor - one vendor's facts.  Strings are static; NULL means
 * the vendor has none, or none is documented (a variable we never set).
 */
struct sn_vendor {
	enum sn_accel_vendor id;
	const char *name;    /* node.accelerators.vendor: "ascend" */
	const char *maker;   /* "Huawei Ascend" */
	const char *kind;    /* what one device is called: "NPU", "DCU" */
	uint16_t pci_vendor; /* PCI-SIG vendor id; 0 = given by the config */
	/*
	 * PCI class codes (base << 8 | sub) of its compute functions, 0
	 * ends; any_display also takes every 0x03xx.  Device ids
	 * skip_lo..skip_hi of this vendor are never accelerators (HiSilicon
	 * engines of the Kunpeng CPU: 19e5:a2xx).
	 */
	uint16_t classes[SN_VENDOR_MAX_CLASSES];
	bool any_display;
	uint16_t skip_lo, skip_hi;
	const char *device_glob; /* nodes under paths.dev: "davinci[0-9]*" */
	enum sn_vendor_api api;
	const char *library; /* "DCMI" */
	const char *lib_key; /* paths.<lib_key>: "dcmi" */
	/* where the library is looked for when paths.<lib_key> is absent,
	 * in order: absolute paths first, then a name for the loader */
	const char *lib_defaults[SN_VENDOR_MAX_DEFAULTS + 1];
	/* what to install when it is not found: "the NVIDIA driver's
	 * libnvidia-ml package" (sn_vendor_lib_missing) */
	const char *lib_install;
	const char *link_name; /* "HCCS", "MLU-Link", "MTLink", ... */
	enum sn_vendor_identity identity;
	/* The job environment (env/taskenv.c). */
	const char *visible_var; /* "ASCEND_RT_VISIBLE_DEVICES" */
	enum sn_vendor_visible visible_mode;
	const char *order_var;	   /* set with a BIND: "CUDA_DEVICE_ORDER" */
	const char *ccl;	   /* the collective library: "HCCL" */
	const char *socket_var;	   /* its bootstrap interface variable */
	const char *socket_ip_var; /* its bootstrap address: "HCCL_IF_IP" */
	const char *hca_var;	   /* its RDMA devices: "NCCL_IB_HCA" */
	const char *gid_var;	   /* its RoCE GID index */
	const char *topo_var;	   /* its topology file: "NCCL_TOPO_FILE" */
	/* socket_var and hca_var in NCCL's exact form "=name" (a bare name
	 * is a prefix there); false: the plain name (HCCL) */
	bool ccl_exact;
	const char *mnnvl_var; /* env.mnnvl: "NCCL_MNNVL_ENABLE" */
	/* a logical supernode inside a physical one: "HCCL_LOGIC_SUPERPOD_ID" */
	const char *logic_pod_var;
	const char *
		ccl_note; /* why a variable is not set, for --supernode-env=show */
};

/*
 * sn_vendor_of - the table entry of vendor; never NULL (SN_ACCEL_NONE and
 * out-of-range values give the "none" entry).
 */
const struct sn_vendor *sn_vendor_of(enum sn_accel_vendor vendor);

/*
 * sn_vendor_parse - the vendor named name ("hygon"); returns 0 with *out
 * set, -1 when no vendor has that name ("none" is not a config word).
 */
int sn_vendor_parse(const char *name, enum sn_accel_vendor *out);

/*
 * sn_vendor_binds_pci - whether the accelerators of PCI vendor id
 * pci_vendor are bound one per task by their vendor (visible_mode BIND).
 */
bool sn_vendor_binds_pci(uint16_t pci_vendor);

/*
 * sn_vendor_lib_missing - the message for v's management library not
 * found (sn_safedir_dlopen's errno ENOENT): what is missing, what to
 * install and which key to set, into buf (size bytes, cut by
 * sn_error_cut: the path's tail is kept).
 * path: a path (holding '/') is the configured one: "NVIDIA's NVML
 * library not found where paths.nvml points: install ..., or correct
 * paths.nvml: PATH"; else the loader's name that was searched for
 * ("NVIDIA's NVML library (libnvidia-ml.so.1) not found: install the
 * NVIDIA driver's libnvidia-ml package, or set paths.nvml").  v must have
 * a library (api NVML or LIB).
 */
void sn_vendor_lib_missing(const struct sn_vendor *v, const char *path,
			   char *buf, size_t size);

/*
 * sn_vendor_identity_of - where a recorded supernodes[].identity is read
 * from: NVML for "nvlink:...", DCMI for "ascend:...", else NONE.
 */
enum sn_vendor_identity sn_vendor_identity_of(const char *identity);

/*
 * sn_vendor_by_identity - the vendor whose hardware gives identities of
 * source id (nvidia for NVML, ascend for DCMI); NULL for NONE.
 */
const struct sn_vendor *sn_vendor_by_identity(enum sn_vendor_identity id);

/* sn_vendor_names - "nvidia, ascend, hygon, ..., amd, other", static. */
const char *sn_vendor_names(void);

/*
 * sn_vendor_class_accepted - whether a PCI function of this PCI vendor id,
 * device id and 24-bit class code is one of v's accelerators.
 */
bool sn_vendor_class_accepted(const struct sn_vendor *v, uint16_t pci_vendor,
			      uint16_t device, uint32_t pci_class);

#endif
