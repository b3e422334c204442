/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MetaX GPUs through MXSML (libmxsml.so), one backend of sn_vendor_lib.h.
 *
 * MetaX publishes no C header.  Types and signatures are transcribed from
 * gpustack/runtime gpustack_runtime/detector/pymxsml/__init__.py at
 * 88026d6 (line numbers below) and Syllo/nvtop
 * src/extract_gpuinfo_metax.c (l.38-48: every call returns unsigned).
 * The quirk: mxSmlGetDeviceCount() returns the count itself, not a status
 * (pymxsml l.854-856, nvtop l.42-46).
 *
 * What is read, per device:
 *  - bus id: mxSmlGetDeviceInfo().bdfId, already "0000:0e:00.0";
 *  - health: MXSML has no single verdict.  CRIT when
 *    mxSmlGetDeviceUnavailableReason gives a code other than 0 (derived:
 *    code 0 with an empty text is an available card), with the code and
 *    MetaX's text; CRIT when DRAM uncorrectable ECC > 0, as gpustack
 *    (runtime detector/metax.py l.378-380); else OK;
 *  - ECC: mxSmlGetTotalEccErrors; uncorrected = sramUE + dramUE,
 *    corrected = sramCE + dramCE; retiredPage as the device counter
 *    "retired_page";
 *  - MetaXLink: mxSmlGetMetaXLinkPortState, state[7] (l.1540-1547):
 *    1 Up is UP; 0 NoTraining and 2-4 Down (optical in place, out of
 *    place, not used) are DOWN; 5 NoUse is UNUSED (l.226-232).  state_text
 *    keeps MetaX's word.
 *  - version: mxSmlGetMacaVersion (l.846-850), optional.
 */
#include <stdbool.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"

/* pymxsml l.190-217 */
#define MXSML_SUCCESS 0
#define MXSML_ERROR_OPERATION_NOT_SUPPORT 3
/* l.243-262 */
#define MXSML_DEVICE_BDF_ID_SIZE 32
#define MXSML_DEVICE_UUID_SIZE 96
#define MXSML_DEVICE_NAME_SIZE 32
#define MXSML_VERSION_INFO_SIZE 64
#define DEVICE_UNAVAILABLE_REASON_SIZE 64
#define MXSML_MXLK_PORTS 7 /* the array pymxsml passes, l.1543-1544 */

/* l.340-352 */
typedef struct {
	unsigned int deviceId;
	unsigned int type;
	char bdfId[MXSML_DEVICE_BDF_ID_SIZE];
	unsigned int gpuId;
	unsigned int nodeId;
	char uuid[MXSML_DEVICE_UUID_SIZE];
	unsigned int brand;
	unsigned int mode;
	char deviceName[MXSML_DEVICE_NAME_SIZE];
} mxSmlDeviceInfo_t;

/* l.611-615 */
typedef struct {
	int unavailableCode;
	char unavailableReason[DEVICE_UNAVAILABLE_REASON_SIZE];
} mxSmlDeviceUnavailableReasonInfo_t;

/* l.618-625 */
typedef struct {
	unsigned int sramCE;
	unsigned int sramUE;
	unsigned int dramCE;
	unsigned int dramUE;
	unsigned int retiredPage;
} mxSmlEccErrorCount_t;

struct mxsml {
	unsigned int (*init)(void);
	unsigned int (*count)(void); /* the count itself */
	unsigned int (*info)(unsigned int dev, mxSmlDeviceInfo_t *info);
	unsigned int (*ecc)(unsigned int dev, mxSmlEccErrorCount_t *ecc);
	unsigned int (*unavail)(unsigned int dev,
				mxSmlDeviceUnavailableReasonInfo_t *reason);
	unsigned int (*ports)(unsigned int dev, unsigned int *state,
			      unsigned int *size);
	unsigned int (*version)(char *version, unsigned int *size);
};

/* MetaXLink port states, l.226-232: the word and what it means */
static const struct {
	const char *word;
	enum sn_vendor_link_state state;
} port_states[] = {
	{ "NoTraining", SN_VLINK_DOWN },
	{ "Up", SN_VLINK_UP },
	{ "Down_Optical_InPlace", SN_VLINK_DOWN },
	{ "Down_Optical_OutPlace", SN_VLINK_DOWN },
	{ "Down_Optical_NoUse", SN_VLINK_DOWN },
	{ "NoUse", SN_VLINK_UNUSED },
};

/* MXSML error names (l.190-217) for messages */
static const char *status_name(unsigned int rc)
{
	static const char *const names[] = {
		"SUCCESS",
		"FAILURE",
		"NO_DEVICE",
		"OPERATION_NOT_SUPPORT",
		"SYSFS_ERROR",
		"SYSFS_WRITE_ERROR",
		"INVALID_DEVICE_ID",
		"INVALID_DID_ID",
		"PERMISSION_DENIED",
		"INVALID_INPUT",
		"INSUFFICIENT_SIZE",
		"RESERVED3",
		"IO_CONTROL_FAILURE",
		"MMAP_FAILURE",
		"UN_MMAP_FAILURE",
		"INVALID_INPUT_FOR_MMAP",
		"RESERVED1",
		"RESERVED2",
		"TARGET_VF_NOT_FOUND",
		"INVALID_FREQUENCY",
		"FLR_NOT_READY",
		"OPEN_DEVICE_FILE_FAILURE",
		"CLOSE_DEVICE_FILE_FAILURE",
		"BUSY_DEVICE",
		"MMIO_NOT_ENOUGH",
		"GET_PCI_BRIDGE_FAILURE",
		"LOAD_DLL_FAILURE",
	};

	if (rc == 999)
		return "FUNCTION_NOT_FOUND";
	return rc < sizeof(names) / sizeof(names[0]) ? names[rc] : "?";
}

static int metax_syms(void *dl, struct mxsml *f, struct sn_vendor_node *out)
{
	if (sn_vendor_sym(dl, "mxSmlInit", &f->init, true, out) ||
	    sn_vendor_sym(dl, "mxSmlGetDeviceCount", &f->count, true, out) ||
	    sn_vendor_sym(dl, "mxSmlGetDeviceInfo", &f->info, true, out) ||
	    sn_vendor_sym(dl, "mxSmlGetTotalEccErrors", &f->ecc, true, out))
		return -1;
	sn_vendor_sym(dl, "mxSmlGetDeviceUnavailableReason", &f->unavail, false,
		      out);
	sn_vendor_sym(dl, "mxSmlGetMetaXLinkPortState", &f->ports, false, out);
	sn_vendor_sym(dl, "mxSmlGetMacaVersion", &f->version, false, out);
	return 0;
}

/* A failed call on device i: its error, unless one is already there. */
static void metax_fail(struct sn_vendor_dev *d, const char *call,
		       unsigned int rc)
{
	if (!d->error[0])
		SN_VSET(d->error, "%s: error %u (%s)", call, rc,
			status_name(rc));
}

/* CRIT with the card's own reason; true when it gave one. */
static bool metax_unavailable(const struct mxsml *f, unsigned int i,
			      struct sn_vendor_dev *d)
{
	mxSmlDeviceUnavailableReasonInfo_t r;
	unsigned int rc;

	if (!f->unavail)
		return false;
	memset(&r, 0, sizeof(r));
	rc = SN_VCALL(f->unavail(i, &r),
		      "mxSmlGetDeviceUnavailableReason(device %u)", i);
	if (rc != MXSML_SUCCESS) {
		if (rc != MXSML_ERROR_OPERATION_NOT_SUPPORT)
			metax_fail(d, "mxSmlGetDeviceUnavailableReason", rc);
		return false;
	}
	if (!r.unavailableCode) {
		d->health = SN_VHEALTH_OK;
		SN_VSET(d->health_text, "available");
		return false;
	}
	r.unavailableReason[sizeof(r.unavailableReason) - 1] = '\0';
	d->health = SN_VHEALTH_CRIT;
	SN_VSET(d->health_text, "unavailable, code %d: %s", r.unavailableCode,
		r.unavailableReason[0] ? r.unavailableReason : "(no text)");
	return true;
}

static void metax_ecc(const struct mxsml *f, unsigned int i,
		      struct sn_vendor_dev *d)
{
	mxSmlEccErrorCount_t e;
	unsigned int rc;

	memset(&e, 0, sizeof(e));
	rc = SN_VCALL(f->ecc(i, &e), "mxSmlGetTotalEccErrors(device %u)", i);
	if (rc != MXSML_SUCCESS) {
		if (rc != MXSML_ERROR_OPERATION_NOT_SUPPORT)
			metax_fail(d, "mxSmlGetTotalEccErrors", rc);
		return;
	}
	d->ecc_read = true;
	d->ecc_uncorrected = (uint64_t)e.sramUE + e.dramUE;
	d->ecc_corrected = (uint64_t)e.sramCE + e.dramCE;
	SN_VSET(d->ctrs[0].name, "retired_page");
	d->ctrs[0].value = e.retiredPage;
	d->n_ctrs = 1;
	if (d->health == SN_VHEALTH_CRIT)
		return; /* unavailable says more */
	if (e.dramUE) {
		d->health = SN_VHEALTH_CRIT;
		SN_VSET(d->health_text, "DRAM uncorrectable ECC %u", e.dramUE);
	} else {
		SN_VSET(d->health_text, "%sDRAM uncorrectable ECC 0",
			d->health == SN_VHEALTH_OK ? "available, " : "");
		d->health = SN_VHEALTH_OK;
	}
}

static void metax_links(const struct mxsml *f, unsigned int i,
			struct sn_vendor_dev *d)
{
	unsigned int st[MXSML_MXLK_PORTS] = { 0 }, n = MXSML_MXLK_PORTS, rc;

	if (!f->ports)
		return;
	rc = SN_VCALL(f->ports(i, st, &n),
		      "mxSmlGetMetaXLinkPortState(device %u)", i);
	if (rc != MXSML_SUCCESS) {
		if (rc != MXSML_ERROR_OPERATION_NOT_SUPPORT)
			metax_fail(d, "mxSmlGetMetaXLinkPortState", rc);
		return; /* a card without MetaXLink */
	}
	if (n > MXSML_MXLK_PORTS)
		n = MXSML_MXLK_PORTS;
	for (unsigned int p = 0; p < n; p++) {
		struct sn_vendor_link *l = &d->links[p];

		if (st[p] < sizeof(port_states) / sizeof(port_states[0])) {
			l->state = port_states[st[p]].state;
			SN_VSET(l->state_text, "%s", port_states[st[p]].word);
		} else {
			l->state = SN_VLINK_UNREAD;
			SN_VSET(l->state_text, "state %u", st[p]);
		}
	}
	d->n_links = (uint8_t)n;
}

static void metax_device(const struct mxsml *f, unsigned int i,
			 struct sn_vendor_dev *d)
{
	mxSmlDeviceInfo_t info;
	unsigned int rc;

	d->index = i;
	SN_VSET(d->label, "GPU %u", i);
	memset(&info, 0, sizeof(info));
	rc = SN_VCALL(f->info(i, &info), "mxSmlGetDeviceInfo(device %u)", i);
	if (rc != MXSML_SUCCESS) {
		metax_fail(d, "mxSmlGetDeviceInfo", rc);
		return;
	}
	info.bdfId[sizeof(info.bdfId) - 1] = '\0';
	SN_VSET(d->bdf, "%s", info.bdfId);
	for (char *p = d->bdf; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a'); /* sysfs form */
	metax_unavailable(f, i, d);
	metax_ecc(f, i, d);
	metax_links(f, i, d);
}

static int metax_read(void *dl, struct sn_vendor_node *out)
{
	struct mxsml f = { 0 };
	unsigned int rc, n;

	if (metax_syms(dl, &f, out))
		return -1;
	rc = SN_VCALL_LONG(f.init(), "mxSmlInit()");
	if (rc != MXSML_SUCCESS) {
		SN_VSET(out->error, "mxSmlInit: error %u (%s)", rc,
			status_name(rc));
		return -1;
	}
	if (f.version) {
		char v[MXSML_VERSION_INFO_SIZE] = "";
		unsigned int size = sizeof(v);

		if (SN_VCALL(f.version(v, &size), "mxSmlGetMacaVersion()") ==
		    MXSML_SUCCESS) {
			v[sizeof(v) - 1] = '\0';
			SN_VSET(out->version, "%s", v);
		}
	}
	n = SN_VCALL(f.count(), "mxSmlGetDeviceCount()"); /* the count */
	out->counted = true;
	out->count = n;
	for (unsigned int i = 0; i < n && i < SN_VENDOR_MAX_DEVS; i++) {
		out->n_devs = i + 1; /* a hang leaves it, partly read */
		metax_device(&f, i, &out->devs[i]);
	}
	return 0;
}

const struct sn_vendor_backend sn_vendor_metax = { SN_ACCEL_METAX, metax_read };
