/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hygon DCU through ROCm SMI (librocm_smi64.so), one backend of
 * sn_vendor_lib.h.
 *
 * Types and signatures transcribed from ROCm/rocm_smi_lib
 * include/rocm_smi/rocm_smi.h at a129571 (line numbers below); Hygon ships
 * the same library in /opt/hyhal (HYGON-AI/dcu-dcgm vendors
 * librocm_smi64.so.2.8).
 *
 * What is read, per device:
 *  - bus id: rsmi_dev_pci_id_get's BDFID, decoded as l.1801-1815 lay it
 *    out (the partition bits [31:28] are not part of the sysfs address);
 *  - ECC: rsmi_dev_ecc_count_get for every RAS block UMC..FUSE (l.549-567;
 *    one cheap sysfs read each); a block answering NOT_SUPPORTED is not
 *    counted.  ecc_uncorrected/corrected are the sums over the blocks;
 *  - health: ROCm SMI has no verdict of its own.  UMC uncorrectable > 0
 *    is CRIT, as gpustack (runtime detector/hygon.py l.174-181); any other
 *    count above 0 (correctable anywhere, uncorrectable outside UMC) is
 *    WARN, as Hygon's dcu-dcgm health check marks any CE/UE > 0 Warning
 *    (HYGON-AI/dcu-dcgm pkg/dcgm/health.go).  No ECC answer at all leaves
 *    the verdict unread;
 *  - XGMI: rsmi_dev_xgmi_error_status (l.3874; 0 NO_ERRORS, 1 ERROR,
 *    2 MULTIPLE_ERRORS, l.656-660) as the device counter
 *    "xgmi_error_status", judged by checks/ and the epilog.  n_links
 *    stays 0: ROCm SMI has no per-link state.  rsmi_topo_get_link_type
 *    (l.4023) and rsmi_is_P2P_accessible (l.4047) only read the KFD
 *    topology fixed at boot, which says nothing of a link's health now.
 *  - version: rsmi_version_str_get(RSMI_SW_COMP_DRIVER) (l.3282), optional.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"

/* rocm_smi.h l.87-137: rsmi_status_t, the codes this file names */
#define RSMI_STATUS_SUCCESS 0x0
#define RSMI_STATUS_NOT_SUPPORTED 0x2
#define RSMI_GPU_BLOCK_UMC 0x1ULL     /* l.553 */
#define RSMI_GPU_BLOCK_LAST 0x2000ULL /* FUSE, l.567 */
#define RSMI_SW_COMP_DRIVER 0x0	      /* l.195 */

typedef uint32_t rsmi_status_t; /* an enum of int size; 0xFFFFFFFF fits */

/* l.1205-1209 */
typedef struct {
	uint64_t correctable_err;
	uint64_t uncorrectable_err;
} rsmi_error_count_t;

struct rsmi {
	rsmi_status_t (*init)(uint64_t init_flags);		   /* l.1279 */
	rsmi_status_t (*num_devices)(uint32_t *num_devices);	   /* l.1307 */
	rsmi_status_t (*pci_id)(uint32_t dv_ind, uint64_t *bdfid); /* l.1827 */
	/* l.3399: the block is an enum of 64-bit values */
	rsmi_status_t (*ecc)(uint32_t dv_ind, uint64_t block,
			     rsmi_error_count_t *ec);
	rsmi_status_t (*xgmi)(uint32_t dv_ind, uint32_t *status); /* l.3874 */
	rsmi_status_t (*version)(uint32_t component, char *ver_str,
				 uint32_t len); /* l.3282 */
};

static const char *const block_names[] = {
	"UMC",	     "SDMA", "GFX", "MMHUB", "ATHUB", "PCIE_BIF", "HDP",
	"XGMI_WAFL", "DF",   "SMN", "SEM",   "MP0",   "MP1",	  "FUSE",
};

/* rsmi_status_t names for messages (l.88-136), NULL past the known ones */
static const char *status_name(rsmi_status_t rc)
{
	static const char *const names[] = {
		"SUCCESS",
		"INVALID_ARGS",
		"NOT_SUPPORTED",
		"FILE_ERROR",
		"PERMISSION",
		"OUT_OF_RESOURCES",
		"INTERNAL_EXCEPTION",
		"INPUT_OUT_OF_BOUNDS",
		"INIT_ERROR",
		"NOT_YET_IMPLEMENTED",
		"NOT_FOUND",
		"INSUFFICIENT_SIZE",
		"INTERRUPT",
		"UNEXPECTED_SIZE",
		"NO_DATA",
		"UNEXPECTED_DATA",
		"BUSY",
		"REFCOUNT_OVERFLOW",
		"SETTING_UNAVAILABLE",
		"AMDGPU_RESTART_ERR",
	};

	if (rc == 0xFFFFFFFFu)
		return "UNKNOWN_ERROR";
	return rc < sizeof(names) / sizeof(names[0]) ? names[rc] : "?";
}

static int hygon_syms(void *dl, struct rsmi *f, struct sn_vendor_node *out)
{
	if (sn_vendor_sym(dl, "rsmi_init", &f->init, true, out) ||
	    sn_vendor_sym(dl, "rsmi_num_monitor_devices", &f->num_devices, true,
			  out) ||
	    sn_vendor_sym(dl, "rsmi_dev_pci_id_get", &f->pci_id, true, out) ||
	    sn_vendor_sym(dl, "rsmi_dev_ecc_count_get", &f->ecc, true, out))
		return -1;
	sn_vendor_sym(dl, "rsmi_dev_xgmi_error_status", &f->xgmi, false, out);
	sn_vendor_sym(dl, "rsmi_version_str_get", &f->version, false, out);
	return 0;
}

/* The BDFID (l.1801-1815) in sysfs form. */
static void hygon_bdf(uint64_t id, struct sn_vendor_dev *d)
{
	SN_VSET(d->bdf, "%04" PRIx64 ":%02x:%02x.%x", id >> 32,
		(unsigned)(id >> 8) & 0xff, (unsigned)(id >> 3) & 0x1f,
		(unsigned)id & 0x7);
}

/* Sum every block's counts; the verdict from UMC and the rest. */
static void hygon_ecc(const struct rsmi *f, uint32_t i, struct sn_vendor_dev *d)
{
	uint64_t umc_ue = 0, other_ue = 0;
	unsigned bit = 0;

	for (uint64_t b = RSMI_GPU_BLOCK_UMC; b <= RSMI_GPU_BLOCK_LAST;
	     b <<= 1, bit++) {
		rsmi_error_count_t ec = { 0 };
		rsmi_status_t rc =
			SN_VCALL(f->ecc(i, b, &ec),
				 "rsmi_dev_ecc_count_get(device %u, %s)", i,
				 block_names[bit]);

		if (rc == RSMI_STATUS_NOT_SUPPORTED)
			continue;
		if (rc != RSMI_STATUS_SUCCESS) {
			SN_VSET(d->error,
				"rsmi_dev_ecc_count_get(%s): error %u (%s)",
				block_names[bit], rc, status_name(rc));
			return;
		}
		d->ecc_read = true;
		d->ecc_corrected += ec.correctable_err;
		d->ecc_uncorrected += ec.uncorrectable_err;
		if (b == RSMI_GPU_BLOCK_UMC)
			umc_ue = ec.uncorrectable_err;
		else
			other_ue += ec.uncorrectable_err;
	}
	if (!d->ecc_read) {
		SN_VSET(d->health_text,
			"no verdict: no block answers rsmi_dev_ecc_count_get");
		return;
	}
	if (umc_ue) {
		d->health = SN_VHEALTH_CRIT;
		SN_VSET(d->health_text, "UMC uncorrectable ECC %" PRIu64,
			umc_ue);
	} else if (d->ecc_corrected || other_ue) {
		d->health = SN_VHEALTH_WARN;
		SN_VSET(d->health_text,
			"ECC correctable %" PRIu64 ", uncorrectable %" PRIu64
			" outside UMC (dcu-dcgm: Warning)",
			d->ecc_corrected, other_ue);
	} else {
		d->health = SN_VHEALTH_OK;
		SN_VSET(d->health_text, "no ECC errors");
	}
}

static void hygon_xgmi(const struct rsmi *f, uint32_t i,
		       struct sn_vendor_dev *d)
{
	uint32_t st = 0;
	rsmi_status_t rc;

	if (!f->xgmi)
		return;
	rc = SN_VCALL(f->xgmi(i, &st), "rsmi_dev_xgmi_error_status(device %u)",
		      i);
	if (rc == RSMI_STATUS_NOT_SUPPORTED)
		return; /* no XGMI on this card */
	if (rc != RSMI_STATUS_SUCCESS) {
		if (!d->error[0])
			SN_VSET(d->error,
				"rsmi_dev_xgmi_error_status: error %u (%s)", rc,
				status_name(rc));
		return;
	}
	SN_VSET(d->ctrs[0].name, "xgmi_error_status");
	d->ctrs[0].value = st;
	d->n_ctrs = 1;
}

static void hygon_device(const struct rsmi *f, uint32_t i,
			 struct sn_vendor_dev *d)
{
	uint64_t id = 0;
	rsmi_status_t rc;

	d->index = i;
	SN_VSET(d->label, "DCU %u", i);
	rc = SN_VCALL(f->pci_id(i, &id), "rsmi_dev_pci_id_get(device %u)", i);
	if (rc != RSMI_STATUS_SUCCESS) {
		/* a card gone from the bus: its sysfs reads fail */
		SN_VSET(d->error, "rsmi_dev_pci_id_get: error %u (%s)", rc,
			status_name(rc));
		return;
	}
	hygon_bdf(id, d);
	hygon_ecc(f, i, d);
	hygon_xgmi(f, i, d);
}

static int hygon_read(void *dl, struct sn_vendor_node *out)
{
	struct rsmi f = { 0 };
	uint32_t n = 0;
	rsmi_status_t rc;

	if (hygon_syms(dl, &f, out))
		return -1;
	/* flags 0: the GPUs the driver lists (l.142-150) */
	rc = SN_VCALL_LONG(f.init(0), "rsmi_init(0)");
	if (rc != RSMI_STATUS_SUCCESS) {
		SN_VSET(out->error, "rsmi_init: error %u (%s)", rc,
			status_name(rc));
		return -1;
	}
	if (f.version) {
		char v[sizeof(out->version)] = "";

		if (SN_VCALL(f.version(RSMI_SW_COMP_DRIVER, v, sizeof(v)),
			     "rsmi_version_str_get(driver)") ==
		    RSMI_STATUS_SUCCESS)
			SN_VSET(out->version, "%s", v);
	}
	rc = SN_VCALL(f.num_devices(&n), "rsmi_num_monitor_devices()");
	if (rc != RSMI_STATUS_SUCCESS) {
		SN_VSET(out->error, "rsmi_num_monitor_devices: error %u (%s)",
			rc, status_name(rc));
		return -1;
	}
	out->counted = true;
	out->count = n;
	for (uint32_t i = 0; i < n && i < SN_VENDOR_MAX_DEVS; i++) {
		out->n_devs = i + 1; /* a hang leaves it, partly read */
		hygon_device(&f, i, &out->devs[i]);
	}
	return 0;
}

const struct sn_vendor_backend sn_vendor_hygon = { SN_ACCEL_HYGON, hygon_read };
