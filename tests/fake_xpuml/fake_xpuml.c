/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake libxpuml.so.1 (Kunlunxin, XPUML) for the tests: the XPUML
 * functions lib/inventory/vendor_kunlunxin.c resolves, with the real
 * signatures, answering from a JSON fixture.  Loaded through the same
 * dlopen() path as the real library (paths.xpuml).
 *
 * Types transcribed on their own from kunlunxin/go-xpuml pkg/xpuml/xpuml.h
 * at e2a72e0 (2022, the only public header): xpumlDevice_t l.54-57,
 * xpumlPciInfo_t l.62-80, xpumlReturn_t l.438-467, xpumlDeviceState_t
 * l.534-541, the calls l.697, 819, 916, 984, 1238, 1380; not from lib/.
 *
 * Fixture (tests/fake_knobs/fake_knobs.h: where it is found, the knobs):
 *   {"driver_version": "5.0.21.21",
 *    "devices": [{"bdf": "0000:1a:00.0", "pci_device_id": "0x36881d22",
 *                 "state": 201}],
 *    "knobs": {...}}
 * A lost device (knob "lost") answers XPUML_ERROR_XPU_IS_LOST (15) from
 * xpumlDeviceGetHandleByIndex and every call on it, as the header says.
 *
 * FAKE_XPUML_MINIMAL builds a library without xpumlDeviceGetState (too old
 * for vendor_kunlunxin.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "../fake_knobs/fake_knobs.h"

typedef enum xpumlReturn_enum {
	XPUML_SUCCESS = 0,
	XPUML_ERROR_UNINITIALIZED = 1,
	XPUML_ERROR_INVALID_ARGUMENT = 2,
	XPUML_ERROR_NOT_SUPPORTED = 3,
	XPUML_ERROR_INSUFFICIENT_SIZE = 7,
	XPUML_ERROR_DRIVER_NOT_LOADED = 9,
	XPUML_ERROR_XPU_IS_LOST = 15,
	XPUML_ERROR_UNKNOWN = 999
} xpumlReturn_t;

typedef enum xpumlDeviceState_enum {
	XPUML_DEVICE_STATE_UNUSED = 0,
	XPUML_DEVICE_STATE_RUNNING = 201,
} xpumlDeviceState_t;

/* The handle the library hands out: here, the index plus one. */
struct xpumlDevice_st;
typedef struct {
	struct xpumlDevice_st *handle;
} xpumlDevice_t;

#define XPUML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
typedef struct xpumlPciInfo_st {
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int function;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[XPUML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
	unsigned long long reserved[9];
} xpumlPciInfo_t;

static bool initialized;

FAKE_EXPORT xpumlReturn_t xpumlInit(void)
{
	if (!fake_load("SN_FAKE_XPUML", "kunlunxin.json"))
		return XPUML_ERROR_DRIVER_NOT_LOADED;
	fake_init_sleep();
	fake_maybe_hang("xpumlInit");
	if (fake_knobs.init_fail)
		return (xpumlReturn_t)fake_knobs.init_fail;
	initialized = true;
	return XPUML_SUCCESS;
}

FAKE_EXPORT xpumlReturn_t xpumlShutdown(void)
{
	if (!initialized)
		return XPUML_ERROR_UNINITIALIZED;
	initialized = false;
	return XPUML_SUCCESS;
}

FAKE_EXPORT xpumlReturn_t xpumlSystemGetDriverVersion(char *version,
						      unsigned int length)
{
	const char *v = fake_get_str(fake_root, "driver_version", NULL);

	fake_maybe_hang("xpumlSystemGetDriverVersion");
	if (!initialized)
		return XPUML_ERROR_UNINITIALIZED;
	if (!version)
		return XPUML_ERROR_INVALID_ARGUMENT;
	if (!v)
		return XPUML_ERROR_NOT_SUPPORTED;
	if (strlen(v) >= length)
		return XPUML_ERROR_INSUFFICIENT_SIZE;
	snprintf(version, length, "%s", v);
	return XPUML_SUCCESS;
}

FAKE_EXPORT xpumlReturn_t xpumlDeviceGetCount(unsigned int *deviceCount)
{
	fake_maybe_hang("xpumlDeviceGetCount");
	if (!initialized)
		return XPUML_ERROR_UNINITIALIZED;
	if (!deviceCount)
		return XPUML_ERROR_INVALID_ARGUMENT;
	*deviceCount = fake_n_devices();
	return XPUML_SUCCESS;
}

FAKE_EXPORT xpumlReturn_t xpumlDeviceGetHandleByIndex(unsigned int index,
						      xpumlDevice_t *device)
{
	fake_maybe_hang("xpumlDeviceGetHandleByIndex");
	if (!initialized)
		return XPUML_ERROR_UNINITIALIZED;
	if (!device || !fake_device(index))
		return XPUML_ERROR_INVALID_ARGUMENT;
	if (fake_is_lost(index))
		return XPUML_ERROR_XPU_IS_LOST;
	device->handle = (struct xpumlDevice_st *)(uintptr_t)(index + 1);
	return XPUML_SUCCESS;
}

/* The handle's device, or the status a call on it answers. */
static xpumlReturn_t device_of(xpumlDevice_t h, json_object **d)
{
	long index = (long)(uintptr_t)h.handle - 1;

	if (!initialized)
		return XPUML_ERROR_UNINITIALIZED;
	*d = fake_device(index);
	if (!*d)
		return XPUML_ERROR_INVALID_ARGUMENT;
	return fake_is_lost(index) ? XPUML_ERROR_XPU_IS_LOST : XPUML_SUCCESS;
}

FAKE_EXPORT xpumlReturn_t xpumlDeviceGetPciInfo(xpumlDevice_t device,
						xpumlPciInfo_t *pci)
{
	unsigned dom, bus, dev, fn;
	json_object *d = NULL;
	xpumlReturn_t rc;

	fake_maybe_hang("xpumlDeviceGetPciInfo");
	rc = device_of(device, &d);
	if (rc)
		return rc;
	if (!pci)
		return XPUML_ERROR_INVALID_ARGUMENT;
	if (fake_parse_bdf(fake_get_str(d, "bdf", ""), &dom, &bus, &dev, &fn))
		return XPUML_ERROR_UNKNOWN;
	memset(pci, 0, sizeof(*pci));
	pci->domain = dom;
	pci->bus = bus;
	pci->device = dev;
	pci->function = fn;
	pci->pciDeviceId = (unsigned int)strtoul(
		fake_get_str(d, "pci_device_id", "0"), NULL, 0);
	/* XPUML_DEVICE_PCI_BUS_ID_FMT, l.85: upper case, 8-digit domain */
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%01X", dom,
		 bus, dev, fn);
	return XPUML_SUCCESS;
}

#ifndef FAKE_XPUML_MINIMAL
FAKE_EXPORT xpumlReturn_t xpumlDeviceGetState(xpumlDevice_t device,
					      xpumlDeviceState_t *state)
{
	json_object *d = NULL;
	xpumlReturn_t rc;

	fake_maybe_hang("xpumlDeviceGetState");
	rc = device_of(device, &d);
	if (rc)
		return rc;
	if (!state)
		return XPUML_ERROR_INVALID_ARGUMENT;
	*state = (xpumlDeviceState_t)fake_get_int(d, "state",
						  XPUML_DEVICE_STATE_RUNNING);
	return XPUML_SUCCESS;
}
#endif
