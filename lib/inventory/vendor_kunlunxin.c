/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kunlunxin XPUs through XPUML (libxpuml.so.1), one backend of
 * sn_vendor_lib.h.
 *
 * Types and signatures transcribed from kunlunxin/go-xpuml
 * pkg/xpuml/xpuml.h at e2a72e0 (2022, the only public header; line
 * numbers below).
 *
 * What is read, per device:
 *  - bus id: xpumlDeviceGetPciInfo (l.1238) domain/bus/device/function,
 *    written in sysfs form (the header's busId is "%08X:%02X:%02X.%01X",
 *    l.85);
 *  - health: xpumlDeviceGetState (l.1380; states l.534-541).  The header
 *    gives no verdict: healthy = 0 UNUSED or 201 RUNNING is derived from
 *    the state names, 205 IN_RESET is WARN (a reset in progress), 207
 *    ERROR and 208 IN_EXCEPTION are CRIT, any other value WARN.  A device
 *    answering XPUML_ERROR_XPU_IS_LOST (15: "fallen off the bus or
 *    otherwise inaccessible", l.456) to any call is CRIT "XPU is lost
 *    (15)";
 *  - ECC and links: not read.  The 2022 header has no ECC counter call
 *    and no link state (only the P2P capability KLINK, l.209).
 *  - version: xpumlSystemGetDriverVersion (l.819), optional.
 */
#include <stdbool.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"

/* l.438-467 */
#define XPUML_SUCCESS 0
#define XPUML_ERROR_XPU_IS_LOST 15
/* l.534-541 */
#define XPUML_DEVICE_STATE_UNUSED 0
#define XPUML_DEVICE_STATE_RUNNING 201
#define XPUML_DEVICE_STATE_IN_RESET 205
#define XPUML_DEVICE_STATE_ERROR 207
#define XPUML_DEVICE_STATE_IN_EXCEPTION 208
#define XPUML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32	   /* l.62 */
#define XPUML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80 /* l.775 */

typedef int xpumlReturn_t; /* an enum */

/* l.54-57: a struct holding an opaque pointer, passed by value */
typedef struct {
	struct xpumlDevice_st *handle;
} xpumlDevice_t;

/* l.67-80 */
typedef struct {
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int function;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[XPUML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	unsigned long long reserved[9];
} xpumlPciInfo_t;

struct xpuml {
	xpumlReturn_t (*init)(void);				/* l.697 */
	xpumlReturn_t (*count)(unsigned int *deviceCount);	/* l.916 */
	xpumlReturn_t (*handle)(unsigned int, xpumlDevice_t *); /* l.984 */
	xpumlReturn_t (*pci)(xpumlDevice_t, xpumlPciInfo_t *);	/* l.1238 */
	xpumlReturn_t (*state)(xpumlDevice_t, int *state);	/* l.1380 */
	xpumlReturn_t (*version)(char *version, unsigned int length);
};

/* xpumlReturn_t names (l.441-466) for messages */
static const char *status_name(xpumlReturn_t rc)
{
	static const char *const names[] = {
		"SUCCESS",
		"UNINITIALIZED",
		"INVALID_ARGUMENT",
		"NOT_SUPPORTED",
		"NO_PERMISSION",
		"ALREADY_INITIALIZED",
		"NOT_FOUND",
		"INSUFFICIENT_SIZE",
		"INSUFFICIENT_POWER",
		"DRIVER_NOT_LOADED",
		"TIMEOUT",
		"IRQ_ISSUE",
		"LIBRARY_NOT_FOUND",
		"FUNCTION_NOT_FOUND",
		"CORRUPTED_INFOROM",
		"XPU_IS_LOST",
		"RESET_REQUIRED",
		"OPERATING_SYSTEM",
		"LIB_RM_VERSION_MISMATCH",
		"IN_USE",
		"MEMORY",
		"NO_DATA",
		"VXPU_ECC_NOT_SUPPORTED",
		"INSUFFICIENT_RESOURCES",
		"FREQ_NOT_SUPPORTED",
	};

	if (rc == 999)
		return "UNKNOWN";
	return rc >= 0 && (size_t)rc < sizeof(names) / sizeof(names[0]) ?
		       names[rc] :
		       "?";
}

static int kunlunxin_syms(void *dl, struct xpuml *f, struct sn_vendor_node *out)
{
	if (sn_vendor_sym(dl, "xpumlInit", &f->init, true, out) ||
	    sn_vendor_sym(dl, "xpumlDeviceGetCount", &f->count, true, out) ||
	    sn_vendor_sym(dl, "xpumlDeviceGetHandleByIndex", &f->handle, true,
			  out) ||
	    sn_vendor_sym(dl, "xpumlDeviceGetPciInfo", &f->pci, true, out) ||
	    sn_vendor_sym(dl, "xpumlDeviceGetState", &f->state, true, out))
		return -1;
	sn_vendor_sym(dl, "xpumlSystemGetDriverVersion", &f->version, false,
		      out);
	return 0;
}

/* A failed call: CRIT when the XPU is lost (a verdict, not an error),
 * else the device's error. */
static void kunlunxin_fail(struct sn_vendor_dev *d, const char *call,
			   xpumlReturn_t rc)
{
	if (rc == XPUML_ERROR_XPU_IS_LOST) {
		d->health = SN_VHEALTH_CRIT;
		SN_VSET(d->health_text, "XPU is lost (%d)", rc);
		return;
	}
	if (!d->error[0])
		SN_VSET(d->error, "%s: error %d (%s)", call, rc,
			status_name(rc));
}

/* The state's name and verdict (see the top of the file). */
static void kunlunxin_state(int st, struct sn_vendor_dev *d)
{
	const char *name = "unknown state";

	d->health = SN_VHEALTH_WARN;
	switch (st) {
	case XPUML_DEVICE_STATE_UNUSED:
		name = "UNUSED";
		d->health = SN_VHEALTH_OK;
		break;
	case XPUML_DEVICE_STATE_RUNNING:
		name = "RUNNING";
		d->health = SN_VHEALTH_OK;
		break;
	case XPUML_DEVICE_STATE_IN_RESET:
		name = "IN_RESET";
		break;
	case XPUML_DEVICE_STATE_ERROR:
		name = "ERROR";
		d->health = SN_VHEALTH_CRIT;
		break;
	case XPUML_DEVICE_STATE_IN_EXCEPTION:
		name = "IN_EXCEPTION";
		d->health = SN_VHEALTH_CRIT;
		break;
	}
	SN_VSET(d->health_text, "xpumlDeviceGetState %d (%s)", st, name);
}

static void kunlunxin_device(const struct xpuml *f, unsigned int i,
			     struct sn_vendor_dev *d)
{
	xpumlDevice_t h = { 0 };
	xpumlPciInfo_t pci;
	xpumlReturn_t rc;
	int st = 0;

	d->index = i;
	SN_VSET(d->label, "XPU %u", i);
	rc = SN_VCALL(f->handle(i, &h),
		      "xpumlDeviceGetHandleByIndex(device %u)", i);
	if (rc != XPUML_SUCCESS) {
		kunlunxin_fail(d, "xpumlDeviceGetHandleByIndex", rc);
		return;
	}
	memset(&pci, 0, sizeof(pci));
	rc = SN_VCALL(f->pci(h, &pci), "xpumlDeviceGetPciInfo(device %u)", i);
	if (rc == XPUML_SUCCESS)
		SN_VSET(d->bdf, "%04x:%02x:%02x.%x", pci.domain, pci.bus,
			pci.device, pci.function);
	else
		kunlunxin_fail(d, "xpumlDeviceGetPciInfo", rc);
	if (rc == XPUML_ERROR_XPU_IS_LOST)
		return;
	rc = SN_VCALL(f->state(h, &st), "xpumlDeviceGetState(device %u)", i);
	if (rc == XPUML_SUCCESS)
		kunlunxin_state(st, d);
	else
		kunlunxin_fail(d, "xpumlDeviceGetState", rc);
}

static int kunlunxin_read(void *dl, struct sn_vendor_node *out)
{
	struct xpuml f = { 0 };
	unsigned int n = 0;
	xpumlReturn_t rc;

	if (kunlunxin_syms(dl, &f, out))
		return -1;
	rc = SN_VCALL_LONG(f.init(), "xpumlInit()");
	if (rc != XPUML_SUCCESS) {
		SN_VSET(out->error, "xpumlInit: error %d (%s)", rc,
			status_name(rc));
		return -1;
	}
	if (f.version) {
		char v[XPUML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";

		if (SN_VCALL(f.version(v, sizeof(v)),
			     "xpumlSystemGetDriverVersion()") ==
		    XPUML_SUCCESS) {
			v[sizeof(v) - 1] = '\0';
			SN_VSET(out->version, "%s", v);
		}
	}
	rc = SN_VCALL(f.count(&n), "xpumlDeviceGetCount()");
	if (rc != XPUML_SUCCESS) {
		SN_VSET(out->error, "xpumlDeviceGetCount: error %d (%s)", rc,
			status_name(rc));
		return -1;
	}
	out->counted = true;
	out->count = n;
	for (unsigned int i = 0; i < n && i < SN_VENDOR_MAX_DEVS; i++) {
		out->n_devs = i + 1; /* a hang leaves it, partly read */
		kunlunxin_device(&f, i, &out->devs[i]);
	}
	return 0;
}

const struct sn_vendor_backend sn_vendor_kunlunxin = { SN_ACCEL_KUNLUNXIN,
						       kunlunxin_read };
