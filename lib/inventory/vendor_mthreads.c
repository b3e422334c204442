/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Moore Threads GPUs through MTML (libmtml.so): count, PCI bus ids, ECC
 * (the health verdict) and MTLink state (see sn_vendor_lib.h).
 *
 * Types and signatures transcribed on their own from MooreThreads/
 * mthreads-ml-py mtml_2.2.0.h (snapshot 1282846): MtmlReturn l.304-319,
 * MtmlPciInfo l.461-476 (MTML_DEVICE_PCI_SBDF_BUFFER_SIZE 32, l.239),
 * MtmlMtLinkSpec l.622-628, MtmlMtLinkState l.633-637, MtmlEccCounterType
 * l.761-767, MtmlMemoryErrorType l.772-789, MtmlMemoryLocation l.794-796,
 * the opaque handles l.815-840; the calls l.879 (mtmlLibraryInit), 897,
 * 936, 950, 963, 990, 1110, 1178, 1193, 1322, 2928, 2946, 3286.
 *
 * What is filled, and the choices made:
 *  - bdf: MtmlPciInfo.sbdf ("00000000:3a:00.0", header l.1018) parsed and
 *    written in sysfs form; the struct has no function field.
 *  - ECC: mtmlMemoryGetEccErrorCounter(mem, UNCORRECTED 1 / CORRECTED 0,
 *    MTML_VOLATILE_ECC 0, MTML_MEMORY_LOCATION_DRAM 0x1): since the driver
 *    loaded.  MTML_ERROR_NOT_SUPPORTED leaves ECC unread, no error.
 *  - health: MTML has no health call.  gpustack's rule (mthreads.py
 *    l.393-400): volatile uncorrected DRAM ECC > 0 is unhealthy -> CRIT,
 *    0 -> OK; health_text "ECC uncorrected N (volatile, DRAM)".  ECC not
 *    read leaves health UNREAD ("no health call; ECC not supported").
 *  - links: mtmlDeviceGetMtLinkSpec linkNum (first SN_VENDOR_MAX_LINKS),
 *    mtmlDeviceGetMtLinkState per link: 0 DOWN, 1 UP, 2 DOWNGRADE ->
 *    SN_VLINK_DEGRADED (up at reduced width); state_text the vendor's
 *    word "DOWN" / "UP" / "DOWNGRADE", else "state N" (UNREAD).  A card
 *    without MTLink (spec NOT_SUPPORTED) has no links.  MTML has no MTLink
 *    error counter: the links carry none.
 *  - version: the driver's, mtmlSystemGetDriverVersion (optional).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "inventory/sn_vendor_lib.h"

#define MTML_SUCCESS 0
#define MTML_ERROR_NOT_SUPPORTED 4
#define MTML_MEMORY_ERROR_TYPE_CORRECTED 0
#define MTML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define MTML_VOLATILE_ECC 0
#define MTML_MEMORY_LOCATION_DRAM 0x1
#define MTML_DRIVER_VERSION_BUFFER_SIZE 80
#define MTML_DEVICE_PCI_SBDF_BUFFER_SIZE 32

typedef int mtml_ret;
typedef struct mtml_opaque mtml_h; /* MtmlLibrary, MtmlDevice, ... */

struct mtml_pci_info {
	char sbdf[MTML_DEVICE_PCI_SBDF_BUFFER_SIZE];
	unsigned int segment, bus, device;
	unsigned int pci_device_id, pci_subsystem_id, bus_width;
	float max_speed, cur_speed;
	unsigned int max_width, cur_width, max_gen, cur_gen;
	int rsvd[6];
};

struct mtml_mtlink_spec {
	unsigned int version, bandwidth, link_num;
	unsigned int rsvd[4];
};

/* The MTML calls used; NULL = optional and absent. */
struct mtml {
	mtml_ret (*init)(mtml_h **lib);
	mtml_ret (*shutdown)(mtml_h *lib);
	mtml_ret (*count)(const mtml_h *lib, unsigned int *n);
	mtml_ret (*device)(const mtml_h *lib, unsigned int i, mtml_h **dev);
	mtml_ret (*pci)(const mtml_h *dev, struct mtml_pci_info *pci);
	mtml_ret (*memory)(const mtml_h *dev, mtml_h **mem);
	mtml_ret (*free_memory)(mtml_h *mem);
	mtml_ret (*ecc)(const mtml_h *mem, int type, int counter, int location,
			unsigned long long *n);
	mtml_ret (*link_spec)(const mtml_h *dev, struct mtml_mtlink_spec *s);
	mtml_ret (*link_state)(const mtml_h *dev, unsigned int link, int *st);
	mtml_ret (*system)(const mtml_h *lib, mtml_h **sys);
	mtml_ret (*free_system)(mtml_h *sys);
	mtml_ret (*driver)(const mtml_h *sys, char *buf, unsigned int len);
};

static const struct {
	const char *name;
	size_t off;
	bool required;
} syms[] = {
	{ "mtmlLibraryInit", offsetof(struct mtml, init), true },
	{ "mtmlLibraryShutDown", offsetof(struct mtml, shutdown), false },
	{ "mtmlLibraryCountDevice", offsetof(struct mtml, count), true },
	{ "mtmlLibraryInitDeviceByIndex", offsetof(struct mtml, device), true },
	{ "mtmlDeviceGetPciInfo", offsetof(struct mtml, pci), true },
	{ "mtmlDeviceInitMemory", offsetof(struct mtml, memory), true },
	{ "mtmlDeviceFreeMemory", offsetof(struct mtml, free_memory), false },
	{ "mtmlMemoryGetEccErrorCounter", offsetof(struct mtml, ecc), true },
	{ "mtmlDeviceGetMtLinkSpec", offsetof(struct mtml, link_spec), true },
	{ "mtmlDeviceGetMtLinkState", offsetof(struct mtml, link_state), true },
	{ "mtmlLibraryInitSystem", offsetof(struct mtml, system), false },
	{ "mtmlLibraryFreeSystem", offsetof(struct mtml, free_system), false },
	{ "mtmlSystemGetDriverVersion", offsetof(struct mtml, driver), false },
};

/* MtmlReturn's names, mtml_2.2.0.h l.305-318. */
static const char *mtml_err_name(mtml_ret rc)
{
	static const char *const names[] = {
		"MTML_SUCCESS",
		"MTML_ERROR_DRIVER_NOT_LOADED",
		"MTML_ERROR_DRIVER_FAILURE",
		"MTML_ERROR_INVALID_ARGUMENT",
		"MTML_ERROR_NOT_SUPPORTED",
		"MTML_ERROR_NO_PERMISSION",
		"MTML_ERROR_INSUFFICIENT_SIZE",
		"MTML_ERROR_NOT_FOUND",
		"MTML_ERROR_INSUFFICIENT_MEMORY",
		"MTML_ERROR_DRIVER_TOO_OLD",
		"MTML_ERROR_DRIVER_TOO_NEW",
		"MTML_ERROR_TIMEOUT",
		"MTML_ERROR_RESOURCE_IS_BUSY",
	};

	if (rc == 999)
		return "MTML_ERROR_UNKNOWN";
	if (rc >= 0 && (size_t)rc < sizeof(names) / sizeof(names[0]))
		return names[rc];
	return "unknown";
}

/* The first failed call on a device names itself in its error. */
static void mthreads_dev_fail(struct sn_vendor_dev *d, const char *call,
			      mtml_ret rc)
{
	if (!d->error[0])
		SN_VSET(d->error, "%s: error %d (%s)", call, rc,
			mtml_err_name(rc));
}

static int mthreads_syms(void *dl, struct mtml *m, struct sn_vendor_node *out)
{
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (sn_vendor_sym(dl, syms[i].name, (char *)m + syms[i].off,
				  syms[i].required, out))
			return -1;
	return 0;
}

static void mthreads_bdf(const struct mtml *m, const mtml_h *dev,
			 struct sn_vendor_dev *d)
{
	struct mtml_pci_info pci = { 0 };
	unsigned int seg, bus, slot, fn;
	mtml_ret rc;

	rc = SN_VCALL(m->pci(dev, &pci), "mtmlDeviceGetPciInfo(%u)", d->index);
	if (rc != MTML_SUCCESS) {
		mthreads_dev_fail(d, "mtmlDeviceGetPciInfo", rc);
		return;
	}
	pci.sbdf[sizeof(pci.sbdf) - 1] = '\0';
	if (sscanf(pci.sbdf, "%x:%x:%x.%x", &seg, &bus, &slot, &fn) == 4)
		SN_VSET(d->bdf, "%04x:%02x:%02x.%x", seg, bus, slot, fn);
	else /* the numbers; function 0 (MtmlPciInfo has none) */
		SN_VSET(d->bdf, "%04x:%02x:%02x.0", pci.segment, pci.bus,
			pci.device);
}

static mtml_ret mthreads_ecc_one(const struct mtml *m, const mtml_h *mem,
				 int type, struct sn_vendor_dev *d, uint64_t *n)
{
	unsigned long long v = 0;
	mtml_ret rc;

	rc = SN_VCALL(m->ecc(mem, type, MTML_VOLATILE_ECC,
			     MTML_MEMORY_LOCATION_DRAM, &v),
		      "mtmlMemoryGetEccErrorCounter(%u, %s)", d->index,
		      type == MTML_MEMORY_ERROR_TYPE_UNCORRECTED ?
			      "uncorrected" :
			      "corrected");
	*n = v;
	return rc;
}

static void mthreads_ecc(const struct mtml *m, const mtml_h *dev,
			 struct sn_vendor_dev *d)
{
	mtml_h *mem = NULL;
	mtml_ret rc;

	rc = SN_VCALL(m->memory(dev, &mem), "mtmlDeviceInitMemory(%u)",
		      d->index);
	if (rc != MTML_SUCCESS) {
		mthreads_dev_fail(d, "mtmlDeviceInitMemory", rc);
		return;
	}
	rc = mthreads_ecc_one(m, mem, MTML_MEMORY_ERROR_TYPE_UNCORRECTED, d,
			      &d->ecc_uncorrected);
	if (rc == MTML_SUCCESS)
		rc = mthreads_ecc_one(m, mem, MTML_MEMORY_ERROR_TYPE_CORRECTED,
				      d, &d->ecc_corrected);
	if (rc == MTML_SUCCESS)
		d->ecc_read = true;
	else if (rc != MTML_ERROR_NOT_SUPPORTED)
		mthreads_dev_fail(d, "mtmlMemoryGetEccErrorCounter", rc);
	if (m->free_memory)
		(void)SN_VCALL(m->free_memory(mem), "mtmlDeviceFreeMemory(%u)",
			       d->index);
}

/* No health call in MTML: gpustack's ECC rule. */
static void mthreads_health(struct sn_vendor_dev *d)
{
	if (!d->ecc_read) {
		if (!d->error[0])
			SN_VSET(d->health_text,
				"no health call; ECC not supported");
		return;
	}
	d->health = d->ecc_uncorrected ? SN_VHEALTH_CRIT : SN_VHEALTH_OK;
	SN_VSET(d->health_text, "ECC uncorrected %llu (volatile, DRAM)",
		(unsigned long long)d->ecc_uncorrected);
}

static void mthreads_link(const struct mtml *m, const mtml_h *dev,
			  struct sn_vendor_dev *d, unsigned int i)
{
	static const char *const words[] = { "DOWN", "UP", "DOWNGRADE" };
	static const uint8_t states[] = { SN_VLINK_DOWN, SN_VLINK_UP,
					  SN_VLINK_DEGRADED };
	struct sn_vendor_link *l = &d->links[i];
	int st = -1;
	mtml_ret rc;

	rc = SN_VCALL(m->link_state(dev, i, &st),
		      "mtmlDeviceGetMtLinkState(%u, %u)", d->index, i);
	if (rc != MTML_SUCCESS) {
		mthreads_dev_fail(d, "mtmlDeviceGetMtLinkState", rc);
		return;
	}
	if (st >= 0 && st <= 2) {
		l->state = states[st];
		SN_VSET(l->state_text, "%s", words[st]);
	} else {
		SN_VSET(l->state_text, "state %d", st);
	}
}

static void mthreads_links(const struct mtml *m, const mtml_h *dev,
			   struct sn_vendor_dev *d)
{
	struct mtml_mtlink_spec spec = { 0 };
	mtml_ret rc;
	unsigned int n;

	rc = SN_VCALL(m->link_spec(dev, &spec), "mtmlDeviceGetMtLinkSpec(%u)",
		      d->index);
	if (rc == MTML_ERROR_NOT_SUPPORTED)
		return; /* no MTLink on this card */
	if (rc != MTML_SUCCESS) {
		mthreads_dev_fail(d, "mtmlDeviceGetMtLinkSpec", rc);
		return;
	}
	n = spec.link_num < SN_VENDOR_MAX_LINKS ? spec.link_num :
						  SN_VENDOR_MAX_LINKS;
	d->n_links = (uint8_t)n;
	for (unsigned int i = 0; i < n; i++)
		mthreads_link(m, dev, d, i);
}

static void mthreads_version(const struct mtml *m, const mtml_h *lib,
			     struct sn_vendor_node *out)
{
	char buf[MTML_DRIVER_VERSION_BUFFER_SIZE] = "";
	mtml_h *sys = NULL;

	if (!m->system || !m->driver)
		return;
	if (SN_VCALL(m->system(lib, &sys), "mtmlLibraryInitSystem") !=
	    MTML_SUCCESS)
		return;
	if (SN_VCALL(m->driver(sys, buf, sizeof(buf)),
		     "mtmlSystemGetDriverVersion") == MTML_SUCCESS) {
		buf[sizeof(buf) - 1] = '\0';
		SN_VSET(out->version, "%s", buf);
	}
	if (m->free_system)
		(void)SN_VCALL(m->free_system(sys), "mtmlLibraryFreeSystem");
}

static void mthreads_dev(const struct mtml *m, const mtml_h *lib,
			 struct sn_vendor_node *out, uint32_t i)
{
	struct sn_vendor_dev *d = &out->devs[i];
	mtml_h *dev = NULL;
	mtml_ret rc;

	d->index = i;
	SN_VSET(d->label, "gpu %u", i);
	rc = SN_VCALL(m->device(lib, i, &dev),
		      "mtmlLibraryInitDeviceByIndex(%u)", i);
	if (rc != MTML_SUCCESS) {
		mthreads_dev_fail(d, "mtmlLibraryInitDeviceByIndex", rc);
		return;
	}
	mthreads_bdf(m, dev, d);
	mthreads_ecc(m, dev, d);
	mthreads_health(d);
	mthreads_links(m, dev, d);
}

static int mthreads_read(void *dl, struct sn_vendor_node *out)
{
	struct mtml m = { 0 };
	mtml_h *lib = NULL;
	unsigned int n = 0;
	mtml_ret rc;

	if (mthreads_syms(dl, &m, out))
		return -1;
	rc = SN_VCALL_LONG(m.init(&lib), "mtmlLibraryInit");
	if (rc != MTML_SUCCESS) {
		SN_VSET(out->error, "mtmlLibraryInit: error %d (%s)", rc,
			mtml_err_name(rc));
		return -1;
	}
	rc = SN_VCALL(m.count(lib, &n), "mtmlLibraryCountDevice");
	if (rc != MTML_SUCCESS) {
		SN_VSET(out->error, "mtmlLibraryCountDevice: error %d (%s)", rc,
			mtml_err_name(rc));
		return -1;
	}
	out->counted = true;
	out->count = n;
	out->n_devs = n < SN_VENDOR_MAX_DEVS ? n : SN_VENDOR_MAX_DEVS;
	mthreads_version(&m, lib, out);
	for (uint32_t i = 0; i < out->n_devs; i++)
		mthreads_dev(&m, lib, out, i);
	if (m.shutdown)
		(void)SN_VCALL(m.shutdown(lib), "mtmlLibraryShutDown");
	return 0;
}

const struct sn_vendor_backend sn_vendor_mthreads = { SN_ACCEL_MTHREADS,
						      mthreads_read };
