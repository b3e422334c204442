/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake Cambricon libcndev.so: the CNDev calls lib/inventory/
 * vendor_cambricon.c resolves, with the real signatures, answering from a
 * JSON fixture.  Types transcribed here on their own from Cambricon/
 * mlu-exporter pkg/cndev/include/cndev.h (934abae; lines in
 * vendor_cambricon.c), not taken from lib/.
 *
 * Like CNDev, every struct with a leading `version` must come stamped
 * CNDEV_VERSION_6, else the call answers CNDEV_ERROR_UNSUPPORTED_API_VERSION
 * (3): cndevGetDeviceCount, cndevGetECCInfo, cndevGetVersionInfo.
 *
 * Fixture (env SN_FAKE_CNDEV_FIXTURE, else cambricon.json beside this file):
 *   {"driver": "5.10.31",
 *    "knobs": {"hang": "cndevGetECCInfo", "lost": 2, "init_fail": 1,
 *              "init_ms": 0},
 *    "devices": [{"bdf": "0000:4f:00.0", "health": 1, "device_state": 1,
 *                 "driver_state": 4, "overall": 0,
 *                 "incidents": [{"system": 16, "health": 20, "code": 15,
 *                                "msg": "..."}],
 *                 "ecc": {"one_bit": 0, "multiple_one": 0, "multiple": 0,
 *                         "multiple_multiple": 0} | "not_supported",
 *                 "links": 6 | [{"mac": 1, "serdes": 1, "presence": 1,
 *                                "fec_corrected": 0, "fec_uncorrected": 0,
 *                                "fcs_rx_bad": 0, "fcs_tx_bad": 0}]}]}
 * Omitted values are the healthy ones; "links": N is N ports up, clean.
 * Knobs, also from env (env wins): SN_FAKE_CNDEV_HANG=<function> (that
 * call sleeps for ever), SN_FAKE_CNDEV_LOST=<index> (every call on that
 * device answers CNDEV_ERROR_IN_PROBLEM, 18: "MLU device is in problem",
 * CNDev's nearest to a lost card), SN_FAKE_CNDEV_INIT_FAIL=<code> (cndevInit
 * returns it), SN_FAKE_CNDEV_INIT_MS=<ms> (cndevInit sleeps first).
 *
 * Built twice: libcndev.so, and old/libcndev.so (FAKE_CNDEV_OLD) without
 * cndevGetCardHealthStateV2, as a library older than the V2 health call.
 */
#include <stdint.h>

#include "../fake_knobs/fake_knobs.h"

#define CNDEV_VERSION_6 6
enum {
	CNDEV_SUCCESS = 0,
	CNDEV_ERROR_NO_DRIVER = 1,
	CNDEV_ERROR_UNSUPPORTED_API_VERSION = 3,
	CNDEV_ERROR_UNINITIALIZED = 4,
	CNDEV_ERROR_INVALID_ARGUMENT = 5,
	CNDEV_ERROR_INVALID_DEVICE_ID = 6,
	CNDEV_ERROR_UNKNOWN = 7,
	CNDEV_ERROR_NOT_SUPPORTED = 10,
	CNDEV_ERROR_INVALID_LINK = 11,
	CNDEV_ERROR_IN_PROBLEM = 18,
};

typedef int32_t cndevRet_t;
typedef int32_t cndevDevice_t;

typedef struct {
	int32_t version;
	uint32_t number;
} cndevCardInfo_t;

typedef struct {
	int32_t version;
	uint32_t mcuMajorVersion, mcuMinorVersion, mcuBuildVersion;
	uint32_t driverMajorVersion, driverMinorVersion, driverBuildVersion;
} cndevVersionInfo_t;

typedef struct {
	int32_t version;
	uint64_t oneBitError, multipleOneError, multipleError;
	uint64_t multipleMultipleError, correctedError, uncorrectedError;
	uint64_t totalError, addressForbiddenError;
} cndevECCInfo_t;

typedef struct {
	uint32_t subsystemId, deviceId;
	uint16_t vendor, subsystemVendor;
	uint32_t domain, bus, device, function;
	uint16_t moduleId, slotId;
	uint32_t reserved[8];
} cndevPCIeInfoV2_t;

typedef struct {
	int32_t system;
	int32_t health;
	struct {
		char msg[512];
		uint32_t device_id, bdf;
		int32_t code;
		uint32_t category, severity;
	} error;
} cndevIncidentInfo_t;

typedef struct {
	int32_t health, deviceState, driverState, overallHealth;
	uint32_t incident_count;
	cndevIncidentInfo_t incidents[64];
	uint32_t reserved[8];
} cndevCardHealthStateV2_t;

typedef struct {
	int32_t macState, serdesState, presenceState;
	uint32_t serdesProgress;
	uint32_t reserved[7];
} cndevMLULinkStatusV2_t;

typedef struct {
	uint64_t correctFecCnt, uncorrectFecCnt, rxBadFcsPkt, txBadFcsPkt;
	uint64_t illegalAccessCnt, reserved[11];
} cndevMLULinkErrorCounter_t;

static int inited;

static json_object *devices(void)
{
	return fake_get_array(fake_root, "devices");
}

/* The device of a handle (= index), or an error code in *rc. */
static json_object *device(const char *fn, cndevDevice_t h, cndevRet_t *rc)
{
	json_object *d = devices();

	fake_maybe_hang(fn);
	*rc = CNDEV_SUCCESS;
	if (!inited || !d) {
		*rc = CNDEV_ERROR_UNINITIALIZED;
		return NULL;
	}
	if (h < 0 || (size_t)h >= json_object_array_length(d)) {
		*rc = CNDEV_ERROR_INVALID_DEVICE_ID;
		return NULL;
	}
	if (fake_is_lost(h)) {
		*rc = CNDEV_ERROR_IN_PROBLEM;
		return NULL;
	}
	return json_object_array_get_idx(d, (size_t)h);
}

FAKE_EXPORT cndevRet_t cndevInit(int32_t reserved)
{
	(void)reserved;
	inited = 0;
	/* read afresh at each init: a test process loads the library once */
	if (!fake_load("SN_FAKE_CNDEV", "cambricon.json"))
		return CNDEV_ERROR_NO_DRIVER;
	fake_maybe_hang("cndevInit");
	fake_init_sleep();
	if (fake_knobs.init_fail)
		return (cndevRet_t)fake_knobs.init_fail;
	inited = 1;
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevRelease(void)
{
	fake_maybe_hang("cndevRelease");
	inited = 0;
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevGetDeviceCount(cndevCardInfo_t *info)
{
	fake_maybe_hang("cndevGetDeviceCount");
	if (!inited || !devices())
		return CNDEV_ERROR_UNINITIALIZED;
	if (!info)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	if (info->version != CNDEV_VERSION_6)
		return CNDEV_ERROR_UNSUPPORTED_API_VERSION;
	info->number = (uint32_t)json_object_array_length(devices());
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevGetDeviceHandleByIndex(int32_t index,
						   cndevDevice_t *handle)
{
	json_object *d = devices();

	fake_maybe_hang("cndevGetDeviceHandleByIndex");
	if (!inited || !d)
		return CNDEV_ERROR_UNINITIALIZED;
	if (!handle || index < 0 ||
	    (size_t)index >= json_object_array_length(d))
		return CNDEV_ERROR_INVALID_ARGUMENT;
	*handle = index;
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevGetPCIeInfoV2(cndevPCIeInfoV2_t *info,
					  cndevDevice_t h)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetPCIeInfoV2", h, &rc);
	json_object *bdf = fake_get(d, "bdf");
	unsigned dom, bus, dev, fn;

	if (!d)
		return rc;
	if (!info)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	memset(info, 0, sizeof(*info));
	if (!bdf || sscanf(json_object_get_string(bdf), "%x:%x:%x.%x", &dom,
			   &bus, &dev, &fn) != 4)
		return CNDEV_ERROR_UNKNOWN;
	info->vendor = 0xcabc;
	info->deviceId = (uint32_t)fake_get_int(d, "pci_device", 0x0590);
	info->domain = dom;
	info->bus = bus;
	info->device = dev;
	info->function = fn;
	info->slotId = 0xffff;
	return CNDEV_SUCCESS;
}

#ifndef FAKE_CNDEV_OLD
FAKE_EXPORT cndevRet_t cndevGetCardHealthStateV2(cndevCardHealthStateV2_t *st,
						 cndevDevice_t h)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetCardHealthStateV2", h, &rc);
	json_object *inc = fake_get(d, "incidents");
	size_t n;

	if (!d)
		return rc;
	if (!st)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	memset(st, 0, sizeof(*st));
	st->health = (int32_t)fake_get_int(d, "health", 1);
	st->deviceState = (int32_t)fake_get_int(d, "device_state", 1);
	st->driverState = (int32_t)fake_get_int(d, "driver_state", 4);
	st->overallHealth = (int32_t)fake_get_int(d, "overall", 0);
	n = json_object_is_type(inc, json_type_array) ?
		    json_object_array_length(inc) :
		    0;
	for (size_t i = 0; i < n && i < 64; i++) {
		json_object *o = json_object_array_get_idx(inc, i);
		cndevIncidentInfo_t *it = &st->incidents[i];
		json_object *msg = fake_get(o, "msg");

		it->system = (int32_t)fake_get_int(o, "system", 0);
		it->health = (int32_t)fake_get_int(o, "health", 20);
		it->error.code = (int32_t)fake_get_int(o, "code", 1);
		it->error.device_id = (uint32_t)h;
		if (msg)
			snprintf(it->error.msg, sizeof(it->error.msg), "%s",
				 json_object_get_string(msg));
		st->incident_count++;
	}
	return CNDEV_SUCCESS;
}
#endif

FAKE_EXPORT cndevRet_t cndevGetECCInfo(cndevECCInfo_t *info, cndevDevice_t h)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetECCInfo", h, &rc);
	json_object *e = fake_get(d, "ecc");

	if (!d)
		return rc;
	if (!info)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	if (info->version != CNDEV_VERSION_6)
		return CNDEV_ERROR_UNSUPPORTED_API_VERSION;
	if (json_object_is_type(e, json_type_string))
		return CNDEV_ERROR_NOT_SUPPORTED;
	info->oneBitError = (uint64_t)fake_get_int(e, "one_bit", 0);
	info->multipleOneError = (uint64_t)fake_get_int(e, "multiple_one", 0);
	info->multipleError = (uint64_t)fake_get_int(e, "multiple", 0);
	info->multipleMultipleError =
		(uint64_t)fake_get_int(e, "multiple_multiple", 0);
	info->correctedError = info->oneBitError + info->multipleOneError;
	info->uncorrectedError =
		info->multipleError + info->multipleMultipleError;
	info->totalError = info->correctedError + info->uncorrectedError;
	info->addressForbiddenError = 0;
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevGetVersionInfo(cndevVersionInfo_t *v,
					   cndevDevice_t h)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetVersionInfo", h, &rc);
	json_object *drv = fake_get(fake_root, "driver");
	unsigned a = 0, b = 0, c = 0;

	if (!d)
		return rc;
	if (!v)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	if (v->version != CNDEV_VERSION_6)
		return CNDEV_ERROR_UNSUPPORTED_API_VERSION;
	if (drv)
		sscanf(json_object_get_string(drv), "%u.%u.%u", &a, &b, &c);
	v->driverMajorVersion = a;
	v->driverMinorVersion = b;
	v->driverBuildVersion = c;
	v->mcuMajorVersion = 1;
	v->mcuMinorVersion = 5;
	v->mcuBuildVersion = 0;
	return CNDEV_SUCCESS;
}

/* Port p of a device: "links": N (all up) or an array of objects. */
static int port(json_object *d, int32_t p, json_object **o)
{
	json_object *l = fake_get(d, "links");

	*o = NULL;
	if (json_object_is_type(l, json_type_array)) {
		if (p < 0 || (size_t)p >= json_object_array_length(l))
			return -1;
		*o = json_object_array_get_idx(l, (size_t)p);
		return 0;
	}
	return p >= 0 && p < (l ? json_object_get_int(l) : 0) ? 0 : -1;
}

FAKE_EXPORT int32_t cndevGetMLULinkPortNumber(cndevDevice_t h)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetMLULinkPortNumber", h, &rc);
	json_object *l = fake_get(d, "links");

	if (!d)
		return 0;
	if (json_object_is_type(l, json_type_array))
		return (int32_t)json_object_array_length(l);
	return l ? json_object_get_int(l) : 0;
}

FAKE_EXPORT cndevRet_t cndevGetMLULinkStatusV2(cndevMLULinkStatusV2_t *st,
					       cndevDevice_t h, int32_t link)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetMLULinkStatusV2", h, &rc);
	json_object *o;

	if (!d)
		return rc;
	if (!st)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	if (port(d, link, &o))
		return CNDEV_ERROR_INVALID_LINK;
	memset(st, 0, sizeof(*st));
	st->macState = (int32_t)fake_get_int(o, "mac", 1);
	st->serdesState = (int32_t)fake_get_int(o, "serdes", 1);
	st->presenceState = (int32_t)fake_get_int(o, "presence", 1);
	st->serdesProgress = st->serdesState == 1 ? 1000 : 0;
	return CNDEV_SUCCESS;
}

FAKE_EXPORT cndevRet_t cndevGetMLULinkErrorCounter(
	cndevMLULinkErrorCounter_t *c, cndevDevice_t h, int32_t link)
{
	cndevRet_t rc;
	json_object *d = device("cndevGetMLULinkErrorCounter", h, &rc);
	json_object *o;

	if (!d)
		return rc;
	if (!c)
		return CNDEV_ERROR_INVALID_ARGUMENT;
	if (port(d, link, &o))
		return CNDEV_ERROR_INVALID_LINK;
	memset(c, 0, sizeof(*c));
	c->correctFecCnt = (uint64_t)fake_get_int(o, "fec_corrected", 0);
	c->uncorrectFecCnt = (uint64_t)fake_get_int(o, "fec_uncorrected", 0);
	c->rxBadFcsPkt = (uint64_t)fake_get_int(o, "fcs_rx_bad", 0);
	c->txBadFcsPkt = (uint64_t)fake_get_int(o, "fcs_tx_bad", 0);
	c->illegalAccessCnt = (uint64_t)fake_get_int(o, "illegal_access", 0);
	return CNDEV_SUCCESS;
}
