/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_ACCEL_H
#define SN_ACCEL_H

/*
 * Accelerator inventory, vendor-neutral: PCI functions from sysfs, device
 * nodes under paths.dev, and the counter snapshot the epilog diffs.
 *
 * PCI functions are read from <sysfs>/bus/pci/devices/<bdf>/{vendor,device,
 * class} (Linux Documentation/ABI/testing/sysfs-bus-pci; values are
 * "0x10de", "0x2335", "0x030200").  A function counts as an accelerator
 * when its vendor id is the manifest's pci_vendor and its class code
 * (base class << 8 | subclass, PCI Code and ID Assignment Specification,
 * section 1) is one the vendor uses for compute devices:
 *
 *   nvidia  0x0300 VGA, 0x0302 3D controller (data-centre GPUs).  Not
 *           NVSwitch (0x0680), bridges (0x0604) or HD audio (0x0403).
 *   amd     0x0300, 0x0302, 0x0380 display controller (Instinct MI100,
 *           MI200), 0x1200 processing accelerator (MI300).  Not the HDMI
 *           audio function (0x0403).
 *   ascend  0x1200 processing accelerator, except device ids
 *           0xa200-0xa2ff when the vendor is 0x19e5: those are HiSilicon
 *           on-chip engines of the Kunpeng host CPU (the ZIP engine
 *           19e5:a250 is class 0x1200 too), not NPUs.
 *   other   any 0x03xx display class, 0x0b40 co-processor, 0x1200.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "config/sn_checkctx.h"
#include "util/sn_error.h"
#include "util/sn_file.h"
#include "config/sn_manifest.h"
#include "inventory/sn_nvml.h"

#define SN_ACCEL_MAX_DEVICES 256 /* accelerators kept per scan */
#define SN_ACCEL_MAX_SCAN 16384	 /* directory entries examined */
#define SN_ACCEL_NODE_MAX 64	 /* a device node path under paths.dev */
#define SN_ACCEL_MAX_BAD 16	 /* unreadable functions kept per scan */

/* One accelerator PCI function. */
struct sn_accel_pci {
	char bdf[SN_BDF_SIZE]; /* "0000:1b:00.0", as sysfs names it */
	uint16_t vendor;       /* 0x10de */
	uint16_t device;       /* 0x2335 */
	uint32_t pci_class;    /* 24-bit class code: 0x030200 */
};

/*
 * A PCI function the scan could not classify: its vendor, class or device
 * file is there but was refused or could not be read (a FIFO, a folder, a
 * socket, a link, EACCES, EIO).  The file is
 * <sysfs>/bus/pci/devices/<bdf>/<attr>.
 */
struct sn_accel_pci_bad {
	char bdf[SN_BDF_SIZE];	   /* "0000:1b:00.0" */
	char attr[8];		   /* "vendor", "class", "device" */
	char why[SN_FILE_WHY_MAX]; /* "not a regular file (fifo)" */
};

/* The accelerators of one sysfs tree, sorted by bdf. */
struct sn_accel_pci_list {
	size_t count;
	bool truncated; /* more than SN_ACCEL_MAX_DEVICES, or the scan
				 * stopped after SN_ACCEL_MAX_SCAN entries */
	size_t n_bad;	/* functions not classified (see bad[]); when
				 * non-zero, count may miss accelerators */
	struct sn_accel_pci_bad bad[SN_ACCEL_MAX_BAD]; /* the first
				 * SN_ACCEL_MAX_BAD of them, sorted by bdf */
	struct sn_accel_pci items[SN_ACCEL_MAX_DEVICES];
};

/* Device nodes matched by a glob, relative to paths.dev, natural order. */
struct sn_accel_nodes {
	size_t count;
	bool truncated; /* more than SN_ACCEL_MAX_DEVICES matched */
	char names[SN_ACCEL_MAX_DEVICES]
		  [SN_ACCEL_NODE_MAX]; /* "nvidia0", "dri/renderD128" */
};

/* sn_accel_vendor_name - "none", "nvidia", "amd", "ascend", "other". */
const char *sn_accel_vendor_name(enum sn_accel_vendor vendor);

/*
 * sn_accel_class_accepted - whether a function of this vendor kind, PCI
 * vendor id, device id and 24-bit class code is an accelerator (the table
 * at the top of this file).
 */
bool sn_accel_class_accepted(enum sn_accel_vendor vendor, uint16_t pci_vendor,
			     uint16_t device, uint32_t pci_class);

/*
 * sn_accel_pci_scan - list the accelerators under <sysfs>/bus/pci/devices
 * whose vendor id is pci_vendor and whose class vendor accepts.
 *
 * Entries that are not PCI function names, or whose vendor/class file is
 * missing or malformed, are skipped.  The attribute files are read with
 * the bounded reader of sn_file.h (sn_file_open_regular): a FIFO, folder,
 * socket or link in place of vendor, class or device never blocks the scan;
 * that function goes to out->bad (the vendor is read first, so a function
 * of another vendor is never reported for its class or device).  Returns 0
 * (out filled, possibly truncated), or -1 with err set when the directory
 * cannot be read.
 */
int sn_accel_pci_scan(const char *sysfs, enum sn_accel_vendor vendor,
		      uint16_t pci_vendor, struct sn_accel_pci_list *out,
		      struct sn_error *err);

#define SN_ACCEL_NVIDIA_PCI_VENDOR 0x10de

/*
 * sn_accel_nvswitch_scan - the NVIDIA NVSwitches under <sysfs>/bus/pci/
 * devices (vendor 0x10de, class 0x0680xx), as sn_accel_pci_scan() lists
 * accelerators: the bus ids their SXid lines name.  Returns 0 (out
 * filled), or -1 with err set when the directory cannot be read.
 */
int sn_accel_nvswitch_scan(const char *sysfs, struct sn_accel_pci_list *out,
			   struct sn_error *err);

/*
 * sn_accel_dev_nodes - the device nodes under dev matching glob
 * (node.accelerators.device_glob, relative, wildcards in the last
 * component only: "nvidia[0-9]*", "dri/renderD*").  A missing
 * subdirectory ("dri") matches nothing.  Returns 0, or -1 with err set
 * when dev is not a readable directory or glob has wildcards before its
 * last '/'.
 */
int sn_accel_dev_nodes(const char *dev, const char *glob,
		       struct sn_accel_nodes *out, struct sn_error *err);

/*
 * sn_accel_counters_json - the accelerator counters for the epilog
 * baseline and delta, read now:
 *
 *   {"vendor": "nvidia", "driver": "580.159.04" | null,
 *    "error": null | "why nothing could be read",
 *    "devices": {"0000:1b:00.0": {
 *        "index": 0, "name": "NVIDIA H200", "uuid": "GPU-...",
 *        "error": null | "nvmlDeviceGetHandleByIndex_v2: GPU is lost",
 *        "ecc_corrected_volatile": 0, "ecc_uncorrected_volatile": 0,
 *        "pcie_replay_counter": 5,
 *        "retired_pages_pending": false,
 *        "remapped_rows": {"correctable": 0, "uncorrectable": 0,
 *                          "pending": false, "failure": false},
 *        "nvlink": {"0": {"active": true, "replay": 0, "recovery": 0,
 *                         "crc_flit": 0, "crc_data": 6, "ecc_data": 120},
 *                   ...},
 *        "nvlink_version": 6, "nvlink_data_tx_kib": n,
 *        "nvlink_data_rx_kib": n, "nvlink_xmit_bytes": n,
 *        "nvlink_rcv_bytes": n, "nvlink_dl_replay": 0,
 *        "nvlink_dl_recovery": 0, "nvlink_dl_crc": 0,
 *        "nvlink_recovery_successful": n, "nvlink_recovery_failed": n,
 *        "nvlink_symbol_errors": n, "nvlink_effective_ber": raw,
 *        "nvlink_effective_errors": n,
 *        "recovery_action": 0}}}
 *
 * Devices are keyed by PCI bus id in sysfs form ("index<N>" when NVML
 * could not say).  Any value NVML could not read is null.  The keys from
 * "nvlink_version" on are NVML field values (sn_nvml_field_values; the
 * NVLink ones summed over all links, data in KiB), each left out when
 * the GPU or the library does not have that field.  Other vendors
 * list their PCI functions ({"index", "pci_id"}) without counters; vendor
 * none gives an empty "devices".  Returns a new object (release with
 * json_object_put), or NULL when out of memory.
 */
json_object *sn_accel_counters_json(const struct sn_check_ctx *ctx);

#endif
