/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake libmxsml.so (MetaX, MXSML) for the tests: the MXSML functions
 * lib/inventory/vendor_metax.c resolves, with the real signatures,
 * answering from a JSON fixture.  Loaded through the same dlopen() path as
 * the real library (paths.mxsml).
 *
 * MetaX publishes no C header; the types are transcribed on their own
 * from gpustack/runtime gpustack_runtime/detector/pymxsml/__init__.py at
 * 88026d6 (status codes l.190-217, port states l.226-232, sizes l.243-262,
 * mxSmlDeviceInfo_t l.340-352, unavailable reason and ECC structs
 * l.611-625, the calls l.854-869, l.1540-1547, l.1581-1595) and Syllo/nvtop
 * src/extract_gpuinfo_metax.c (unsigned returns, l.38-48), not from lib/.
 * The quirk: mxSmlGetDeviceCount() returns the count itself.
 *
 * Fixture (tests/fake_knobs/fake_knobs.h: where it is found, the knobs):
 *   {"maca_version": "2.29.0.18",
 *    "devices": [{"bdf": "0000:0e:00.0", "name": "MXC500",
 *                 "ecc": {"sramCE": 0, "sramUE": 0, "dramCE": 0,
 *                         "dramUE": 0, "retiredPage": 0},
 *                 "unavailable": {"code": 0, "text": ""},
 *                 "metaxlink": [1, 1, 1, 1, 1, 1, 5]}],
 *    "knobs": {...}}
 * A device without "ecc" or "metaxlink" answers
 * MXSML_ERROR_OPERATION_NOT_SUPPORT there.  A lost device (knob "lost")
 * answers MXSML_ERROR_NO_DEVICE on every call (our choice: pymxsml lists
 * no lost-device code).
 *
 * FAKE_MXSML_MINIMAL builds a library without mxSmlGetTotalEccErrors (too
 * old for vendor_metax.c).
 */
#include <stdbool.h>

#include "../fake_knobs/fake_knobs.h"

#define MXSML_SUCCESS 0
#define MXSML_ERROR_FAILURE 1
#define MXSML_ERROR_NO_DEVICE 2
#define MXSML_ERROR_OPERATION_NOT_SUPPORT 3
#define MXSML_ERROR_INVALID_DEVICE_ID 6
#define MXSML_ERROR_INVALID_INPUT 9
#define MXSML_ERROR_INSUFFICIENT_SIZE 10

#define MXSML_DEVICE_BDF_ID_SIZE 32
#define MXSML_DEVICE_UUID_SIZE 96
#define MXSML_DEVICE_NAME_SIZE 32
#define MXSML_VERSION_INFO_SIZE 64
#define DEVICE_UNAVAILABLE_REASON_SIZE 64
#define FAKE_MXLK_PORTS 7 /* pymxsml passes state[7], size 7 */

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

typedef struct {
	int unavailableCode;
	char unavailableReason[DEVICE_UNAVAILABLE_REASON_SIZE];
} mxSmlDeviceUnavailableReasonInfo_t;

typedef struct {
	unsigned int sramCE;
	unsigned int sramUE;
	unsigned int dramCE;
	unsigned int dramUE;
	unsigned int retiredPage;
} mxSmlEccErrorCount_t;

static bool initialized;

FAKE_EXPORT unsigned int mxSmlInit(void)
{
	if (!fake_load("SN_FAKE_MXSML", "metax.json"))
		return MXSML_ERROR_FAILURE;
	fake_init_sleep();
	fake_maybe_hang("mxSmlInit");
	if (fake_knobs.init_fail)
		return (unsigned int)fake_knobs.init_fail;
	initialized = true;
	return MXSML_SUCCESS;
}

/* The quirk: the count itself, 0 before init (nvtop l.42-46). */
FAKE_EXPORT unsigned int mxSmlGetDeviceCount(void)
{
	fake_maybe_hang("mxSmlGetDeviceCount");
	return initialized ? fake_n_devices() : 0;
}

/* The device, or the status a call on it answers. */
static unsigned int device(unsigned int dev, json_object **d)
{
	if (!initialized)
		return MXSML_ERROR_FAILURE;
	if (fake_is_lost(dev))
		return MXSML_ERROR_NO_DEVICE;
	*d = fake_device(dev);
	return *d ? MXSML_SUCCESS : MXSML_ERROR_INVALID_DEVICE_ID;
}

FAKE_EXPORT unsigned int mxSmlGetDeviceInfo(unsigned int dev,
					    mxSmlDeviceInfo_t *info)
{
	json_object *d = NULL;
	unsigned int rc;

	fake_maybe_hang("mxSmlGetDeviceInfo");
	rc = device(dev, &d);
	if (rc)
		return rc;
	if (!info)
		return MXSML_ERROR_INVALID_INPUT;
	memset(info, 0, sizeof(*info));
	info->deviceId = dev;
	snprintf(info->bdfId, sizeof(info->bdfId), "%s",
		 fake_get_str(d, "bdf", ""));
	snprintf(info->uuid, sizeof(info->uuid), "%s",
		 fake_get_str(d, "uuid", ""));
	snprintf(info->deviceName, sizeof(info->deviceName), "%s",
		 fake_get_str(d, "name", ""));
	return MXSML_SUCCESS;
}

FAKE_EXPORT unsigned int mxSmlGetMacaVersion(char *version, unsigned int *size)
{
	const char *v = fake_get_str(fake_root, "maca_version", NULL);

	fake_maybe_hang("mxSmlGetMacaVersion");
	if (!initialized)
		return MXSML_ERROR_FAILURE;
	if (!version || !size || !*size)
		return MXSML_ERROR_INVALID_INPUT;
	if (!v)
		return MXSML_ERROR_OPERATION_NOT_SUPPORT;
	if (strlen(v) >= *size)
		return MXSML_ERROR_INSUFFICIENT_SIZE;
	snprintf(version, *size, "%s", v);
	*size = (unsigned int)strlen(v);
	return MXSML_SUCCESS;
}

#ifndef FAKE_MXSML_MINIMAL
FAKE_EXPORT unsigned int mxSmlGetTotalEccErrors(unsigned int dev,
						mxSmlEccErrorCount_t *ecc)
{
	json_object *d = NULL, *e = NULL;
	unsigned int rc;

	fake_maybe_hang("mxSmlGetTotalEccErrors");
	rc = device(dev, &d);
	if (rc)
		return rc;
	if (!ecc)
		return MXSML_ERROR_INVALID_INPUT;
	if (!json_object_object_get_ex(d, "ecc", &e))
		return MXSML_ERROR_OPERATION_NOT_SUPPORT;
	ecc->sramCE = (unsigned int)fake_get_int(e, "sramCE", 0);
	ecc->sramUE = (unsigned int)fake_get_int(e, "sramUE", 0);
	ecc->dramCE = (unsigned int)fake_get_int(e, "dramCE", 0);
	ecc->dramUE = (unsigned int)fake_get_int(e, "dramUE", 0);
	ecc->retiredPage = (unsigned int)fake_get_int(e, "retiredPage", 0);
	return MXSML_SUCCESS;
}
#endif

FAKE_EXPORT unsigned int
mxSmlGetDeviceUnavailableReason(unsigned int dev,
				mxSmlDeviceUnavailableReasonInfo_t *reason)
{
	json_object *d = NULL, *u = NULL;
	unsigned int rc;

	fake_maybe_hang("mxSmlGetDeviceUnavailableReason");
	rc = device(dev, &d);
	if (rc)
		return rc;
	if (!reason)
		return MXSML_ERROR_INVALID_INPUT;
	memset(reason, 0, sizeof(*reason));
	json_object_object_get_ex(d, "unavailable", &u);
	reason->unavailableCode = (int)fake_get_int(u, "code", 0);
	snprintf(reason->unavailableReason, sizeof(reason->unavailableReason),
		 "%s", fake_get_str(u, "text", ""));
	return MXSML_SUCCESS;
}

FAKE_EXPORT unsigned int mxSmlGetMetaXLinkPortState(unsigned int dev,
						    unsigned int *state,
						    unsigned int *size)
{
	json_object *d = NULL, *ports;
	unsigned int rc, n;

	fake_maybe_hang("mxSmlGetMetaXLinkPortState");
	rc = device(dev, &d);
	if (rc)
		return rc;
	if (!state || !size)
		return MXSML_ERROR_INVALID_INPUT;
	ports = fake_get_array(d, "metaxlink");
	if (!ports)
		return MXSML_ERROR_OPERATION_NOT_SUPPORT;
	n = (unsigned int)json_object_array_length(ports);
	if (n > *size)
		return MXSML_ERROR_INSUFFICIENT_SIZE;
	for (unsigned int i = 0; i < n; i++)
		state[i] = (unsigned int)json_object_get_int64(
			json_object_array_get_idx(ports, i));
	*size = n;
	return MXSML_SUCCESS;
}
