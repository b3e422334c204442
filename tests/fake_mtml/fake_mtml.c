/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake Moore Threads libmtml.so: the MTML calls lib/inventory/
 * vendor_mthreads.c resolves, with the real signatures and opaque
 * handles, answering from a JSON fixture.  Types transcribed here on
 * their own from MooreThreads/mthreads-ml-py mtml_2.2.0.h (1282846; lines
 * in vendor_mthreads.c), not taken from lib/.
 *
 * Fixture (env SN_FAKE_MTML_FIXTURE, else mthreads.json beside this file):
 *   {"driver": "3.0.0",
 *    "knobs": {"hang": "mtmlDeviceGetMtLinkState", "lost": 2,
 *              "init_fail": 2, "init_ms": 0},
 *    "devices": [{"sbdf": "00000000:0f:00.0",
 *                 "ecc": {"uncorrected": 0, "corrected": 0}
 *                        | "not_supported",
 *                 "mtlink": {"version": 10000, "bandwidth": 50,
 *                            "links": 14 | [1, 1, 2, 0, ...]}
 *                           | "not_supported"}]}
 * Omitted values are the healthy ones; "links": N is N links UP, a list
 * gives each link's MtmlMtLinkState (0 DOWN, 1 UP, 2 DOWNGRADE).
 * Knobs, also from env (env wins): SN_FAKE_MTML_HANG=<function> (that call
 * sleeps for ever), SN_FAKE_MTML_LOST=<index> (mtmlLibraryInitDeviceByIndex
 * of it answers MTML_ERROR_NOT_FOUND, 7), SN_FAKE_MTML_INIT_FAIL=<code>
 * (mtmlLibraryInit returns it), SN_FAKE_MTML_INIT_MS=<ms> (it sleeps
 * first).
 *
 * Built twice: libmtml.so, and old/libmtml.so (FAKE_MTML_OLD) without the
 * MTLink calls, as a library older than MTLink.
 */
#include <stdint.h>

#include "../fake_knobs/fake_knobs.h"

#define FAKE_MAX_DEVS 64

typedef enum {
	MTML_SUCCESS = 0,
	MTML_ERROR_DRIVER_NOT_LOADED = 1,
	MTML_ERROR_INVALID_ARGUMENT = 3,
	MTML_ERROR_NOT_SUPPORTED = 4,
	MTML_ERROR_INSUFFICIENT_SIZE = 6,
	MTML_ERROR_NOT_FOUND = 7,
	MTML_ERROR_UNKNOWN = 999,
} MtmlReturn;

typedef enum {
	MTML_VOLATILE_ECC = 0,
	MTML_AGGREGATE_ECC = 1
} MtmlEccCounterType;
typedef enum {
	MTML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	MTML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
} MtmlMemoryErrorType;
typedef enum {
	MTML_MEMORY_LOCATION_DRAM = 0x1
} MtmlMemoryLocation;
typedef enum {
	MTML_MTLINK_STATE_DOWN = 0,
	MTML_MTLINK_STATE_UP,
	MTML_MTLINK_STATE_DOWNGRADE,
} MtmlMtLinkState;

typedef struct {
	char sbdf[32];
	unsigned int segment, bus, device, pciDeviceId, pciSubsystemId;
	unsigned int busWidth;
	float pciMaxSpeed, pciCurSpeed;
	unsigned int pciMaxWidth, pciCurWidth, pciMaxGen, pciCurGen;
	int rsvd[6];
} MtmlPciInfo;

typedef struct {
	unsigned int version, bandWidth, linkNum;
	unsigned int rsvd[4];
} MtmlMtLinkSpec;

/* The opaque objects, defined here as the fake likes. */
typedef struct MtmlLibrary {
	int live;
} MtmlLibrary;
typedef struct MtmlSystem {
	int live;
} MtmlSystem;
typedef struct MtmlDevice {
	unsigned int index;
} MtmlDevice;
typedef struct MtmlMemory {
	unsigned int index;
} MtmlMemory;

static MtmlLibrary the_lib;
static MtmlSystem the_sys;
static MtmlDevice devs[FAKE_MAX_DEVS];
static MtmlMemory mems[FAKE_MAX_DEVS];

static size_t n_devices(void)
{
	json_object *d = fake_get(fake_root, "devices");
	size_t n;

	if (!json_object_is_type(d, json_type_array))
		return 0;
	n = json_object_array_length(d);
	return n < FAKE_MAX_DEVS ? n : FAKE_MAX_DEVS;
}

static json_object *device_json(unsigned int index)
{
	return json_object_array_get_idx(fake_get(fake_root, "devices"), index);
}

FAKE_EXPORT MtmlReturn mtmlLibraryInit(MtmlLibrary **lib)
{
	the_lib.live = 0;
	/* read afresh at each init: a test process loads the library once */
	if (!fake_load("SN_FAKE_MTML", "mthreads.json"))
		return MTML_ERROR_DRIVER_NOT_LOADED;
	if (!lib)
		return MTML_ERROR_INVALID_ARGUMENT;
	fake_maybe_hang("mtmlLibraryInit");
	fake_init_sleep();
	if (fake_knobs.init_fail)
		return (MtmlReturn)fake_knobs.init_fail;
	the_lib.live = 1;
	*lib = &the_lib;
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlLibraryShutDown(MtmlLibrary *lib)
{
	fake_maybe_hang("mtmlLibraryShutDown");
	if (lib != &the_lib)
		return MTML_ERROR_INVALID_ARGUMENT;
	the_lib.live = 0;
	return MTML_SUCCESS;
}

static int lib_ok(const MtmlLibrary *lib)
{
	return lib == &the_lib && the_lib.live;
}

FAKE_EXPORT MtmlReturn mtmlLibraryCountDevice(const MtmlLibrary *lib,
					      unsigned int *count)
{
	fake_maybe_hang("mtmlLibraryCountDevice");
	if (!lib_ok(lib) || !count)
		return MTML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned int)n_devices();
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlLibraryInitDeviceByIndex(const MtmlLibrary *lib,
						    unsigned int index,
						    MtmlDevice **dev)
{
	fake_maybe_hang("mtmlLibraryInitDeviceByIndex");
	if (!lib_ok(lib) || !dev || index >= n_devices())
		return MTML_ERROR_INVALID_ARGUMENT;
	if (fake_is_lost(index))
		return MTML_ERROR_NOT_FOUND;
	devs[index].index = index;
	*dev = &devs[index];
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlLibraryInitSystem(const MtmlLibrary *lib,
					     MtmlSystem **sys)
{
	fake_maybe_hang("mtmlLibraryInitSystem");
	if (!lib_ok(lib) || !sys)
		return MTML_ERROR_INVALID_ARGUMENT;
	the_sys.live = 1;
	*sys = &the_sys;
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlLibraryFreeSystem(MtmlSystem *sys)
{
	fake_maybe_hang("mtmlLibraryFreeSystem");
	if (sys != &the_sys)
		return MTML_ERROR_INVALID_ARGUMENT;
	the_sys.live = 0;
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlSystemGetDriverVersion(const MtmlSystem *sys,
						  char *version,
						  unsigned int length)
{
	json_object *drv = fake_get(fake_root, "driver");
	const char *s = drv ? json_object_get_string(drv) : "";

	fake_maybe_hang("mtmlSystemGetDriverVersion");
	if (sys != &the_sys || !the_sys.live || !version)
		return MTML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > length)
		return MTML_ERROR_INSUFFICIENT_SIZE;
	memcpy(version, s, strlen(s) + 1);
	return MTML_SUCCESS;
}

/* The fixture object of a device handle, NULL if the handle is bad. */
static json_object *dev_json(const char *fn, const MtmlDevice *dev)
{
	fake_maybe_hang(fn);
	if (!the_lib.live || dev < devs || dev >= devs + n_devices())
		return NULL;
	return device_json(dev->index);
}

FAKE_EXPORT MtmlReturn mtmlDeviceGetPciInfo(const MtmlDevice *dev,
					    MtmlPciInfo *pci)
{
	json_object *d = dev_json("mtmlDeviceGetPciInfo", dev);
	json_object *sbdf = fake_get(d, "sbdf");

	if (!d || !pci)
		return MTML_ERROR_INVALID_ARGUMENT;
	memset(pci, 0, sizeof(*pci));
	snprintf(pci->sbdf, sizeof(pci->sbdf), "%s",
		 sbdf ? json_object_get_string(sbdf) : "");
	sscanf(pci->sbdf, "%x:%x:%x", &pci->segment, &pci->bus, &pci->device);
	pci->pciDeviceId =
		(unsigned int)fake_get_int(d, "pci_device_id", 0x03001ed5);
	pci->pciMaxGen = pci->pciCurGen = 5;
	pci->pciMaxWidth = pci->pciCurWidth = 16;
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlDeviceInitMemory(const MtmlDevice *dev,
					    MtmlMemory **mem)
{
	json_object *d = dev_json("mtmlDeviceInitMemory", dev);

	if (!d || !mem)
		return MTML_ERROR_INVALID_ARGUMENT;
	mems[dev->index].index = dev->index;
	*mem = &mems[dev->index];
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlDeviceFreeMemory(MtmlMemory *mem)
{
	fake_maybe_hang("mtmlDeviceFreeMemory");
	return mem ? MTML_SUCCESS : MTML_ERROR_INVALID_ARGUMENT;
}

FAKE_EXPORT MtmlReturn mtmlMemoryGetEccErrorCounter(
	const MtmlMemory *mem, MtmlMemoryErrorType errorType,
	MtmlEccCounterType counterType, MtmlMemoryLocation locationType,
	unsigned long long *eccCounts)
{
	json_object *d, *e;

	fake_maybe_hang("mtmlMemoryGetEccErrorCounter");
	if (!the_lib.live || !mem || mem < mems || mem >= mems + n_devices() ||
	    !eccCounts || errorType > MTML_MEMORY_ERROR_TYPE_UNCORRECTED ||
	    counterType > MTML_AGGREGATE_ECC ||
	    locationType != MTML_MEMORY_LOCATION_DRAM)
		return MTML_ERROR_INVALID_ARGUMENT;
	d = device_json(mem->index);
	e = fake_get(d, "ecc");
	if (json_object_is_type(e, json_type_string))
		return MTML_ERROR_NOT_SUPPORTED;
	*eccCounts = (unsigned long long)fake_get_int(
		e,
		errorType == MTML_MEMORY_ERROR_TYPE_UNCORRECTED ?
			"uncorrected" :
			"corrected",
		0);
	return MTML_SUCCESS;
}

#ifndef FAKE_MTML_OLD
/* The device's "mtlink" object; MTML_ERROR_NOT_SUPPORTED for a string. */
static MtmlReturn mtlink(const char *fn, const MtmlDevice *dev, json_object **o)
{
	json_object *d = dev_json(fn, dev);

	if (!d)
		return MTML_ERROR_INVALID_ARGUMENT;
	*o = fake_get(d, "mtlink");
	if (json_object_is_type(*o, json_type_string))
		return MTML_ERROR_NOT_SUPPORTED;
	return MTML_SUCCESS;
}

static unsigned int link_num(json_object *o)
{
	json_object *l = fake_get(o, "links");

	if (json_object_is_type(l, json_type_array))
		return (unsigned int)json_object_array_length(l);
	return l ? (unsigned int)json_object_get_int(l) : 0;
}

FAKE_EXPORT MtmlReturn mtmlDeviceGetMtLinkSpec(const MtmlDevice *device,
					       MtmlMtLinkSpec *spec)
{
	json_object *o;
	MtmlReturn rc = mtlink("mtmlDeviceGetMtLinkSpec", device, &o);

	if (rc)
		return rc;
	if (!spec)
		return MTML_ERROR_INVALID_ARGUMENT;
	memset(spec, 0, sizeof(*spec));
	spec->version = (unsigned int)fake_get_int(o, "version", 10000);
	spec->bandWidth = (unsigned int)fake_get_int(o, "bandwidth", 50);
	spec->linkNum = link_num(o);
	return MTML_SUCCESS;
}

FAKE_EXPORT MtmlReturn mtmlDeviceGetMtLinkState(const MtmlDevice *device,
						unsigned int linkId,
						MtmlMtLinkState *state)
{
	json_object *o, *l;
	MtmlReturn rc = mtlink("mtmlDeviceGetMtLinkState", device, &o);

	if (rc)
		return rc;
	if (!state || linkId >= link_num(o))
		return MTML_ERROR_INVALID_ARGUMENT;
	l = fake_get(o, "links");
	*state = json_object_is_type(l, json_type_array) ?
			 (MtmlMtLinkState)json_object_get_int(
				 json_object_array_get_idx(l, linkId)) :
			 MTML_MTLINK_STATE_UP;
	return MTML_SUCCESS;
}
#endif
