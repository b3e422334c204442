/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake libnvidia-ml.so.1 for the unit tests: the NVML functions that
 * lib/nvml.c resolves, answering from a JSON fixture instead of a GPU.  It
 * is loaded through the same dlopen() path as the real library (tests set
 * paths.nvml to this file's absolute path).
 *
 * Types and codes are transcribed here on their own from NVIDIA's nvml.h
 * (not taken from lib/sn_nvml.h), so a slip in one does not hide in both.
 *
 * Fixture (env SN_FAKE_NVML_FIXTURE; the format of
 * tests/unit/fixtures/nvidia/nvml-h200x2.json):
 *   {"driver": "580.159.04",
 *    "gpus": [{"name", "uuid", "pci_bus_id": "00000000:1B:00.0",
 *              "pci_device_id" (optional), "pcie_gen_cur", "pcie_gen_max",
 *              "pcie_width_cur", "pcie_width_max", "pcie_replay_counter",
 *              "ecc_uncorrected_volatile", "ecc_corrected_volatile",
 *              "remapped_rows": [corr, unc, pending, failure],
 *              "retired_pages_pending": 0|1,
 *              "nvlink": [{"link", "state", "version", "err_replay",
 *                          "err_recovery", "err_crc_flit", "err_crc_data",
 *                          "err_ecc_data"}],
 *              "fabric": {"version": 3|2, "state": 3, "states": [2, 3],
 *                         "status": 0, "cluster_uuid": "8-4-4-4-12 hex",
 *                         "clique_id", "health_mask", "health_summary"}}]}
 * Any value may be {"nvml_error": "<nvmlErrorString text>"}: that query
 * returns the code ("Not Supported" -> NVML_ERROR_NOT_SUPPORTED).  A value
 * that is absent answers NOT_SUPPORTED.  "nvlink" given as an error object
 * answers that error for links 0-17 and INVALID_ARGUMENT above; as an
 * array, INVALID_ARGUMENT past its end.  "fabric" (nvmlDeviceGetGpuFabricInfoV):
 * "version" is the newest struct the fake driver knows (default 3; 2
 * answers a v3 request with ARGUMENT_VERSION_MISMATCH); "states" gives the
 * state of the 1st, 2nd, ... call (the last one repeats), else "state".
 *
 * Without SN_FAKE_NVML_FIXTURE the fixture is "nvml.json" in the folder of
 * the loaded library file itself (dladdr), so that a config's
 * paths.nvml: /x/%n/libnvidia-ml.so.1 gives each node its own answers.
 *
 * "nvml_field_values" (nvmlDeviceGetFieldValues): {"NVML_FI_...": value}
 * answers scope 0 (link 0), "NVML_FI_...@all_links" scope 0xffffffff,
 * "NVML_FI_...@link<N>" scope N; a value may be an error object as above;
 * a field or scope that is absent answers NOT_SUPPORTED in its own
 * nvmlReturn (the call itself succeeds).  Values are unsigned long long,
 * a negative JSON integer signed long long, a JSON double a double; the ids
 * known by name are in field_names[].
 *
 * Knobs (environment, read at each nvmlInit_v2 and each call):
 *   SN_FAKE_NVML_HANG=<function>   that function sleeps for ever
 *   SN_FAKE_NVML_LOST=<i>          nvmlDeviceGetHandleByIndex_v2(i) returns
 *                                  NVML_ERROR_GPU_IS_LOST;
 *                                  "<i>:later": the handle is given, every
 *                                  later call on it returns GPU_IS_LOST
 *   SN_FAKE_NVML_UNKNOWN=<i>       the same with NVML_ERROR_UNKNOWN ("Unable
 *                                  to determine the device handle")
 *   SN_FAKE_NVML_COUNT=<n>         nvmlDeviceGetCount_v2 answers n
 *   SN_FAKE_NVML_INIT_FAIL=1       nvmlInit_v2 returns DRIVER_NOT_LOADED
 *   SN_FAKE_NVML_INIT_MS=<ms>      nvmlInit_v2 takes that long first (at
 *                                  most 60000), as a driver without
 *                                  persistence mode does
 *   SN_FAKE_NVML_CTOR_MARK=<file>  the library's constructor creates that
 *                                  file when it is loaded: a test shows
 *                                  that a refused library never ran
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
/*
 * Built with FAKE_NVML_MINIMAL, only the four functions lib/nvml.c cannot
 * do without are exported: a library that lacks the others (an old driver)
 * must give "Function Not Found" answers, not a crash.
 */
#ifdef FAKE_NVML_MINIMAL
#define FAKE_OPTIONAL __attribute__((visibility("hidden"), unused))
#else
#define FAKE_OPTIONAL FAKE_EXPORT
#endif
#define FAKE_MAX_GPUS 64
#define FAKE_NVLINK_MAX_LINKS 18 /* links answered for an error object */

/* nvml.h: nvmlReturn_t */
typedef enum nvmlReturn_enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999,
} nvmlReturn_t;

/* nvml.h: nvmlEnableState_t */
typedef enum nvmlEnableState_enum {
	NVML_FEATURE_DISABLED = 0,
	NVML_FEATURE_ENABLED = 1,
} nvmlEnableState_t;

/* nvml.h: nvmlMemoryErrorType_t, nvmlEccCounterType_t */
typedef enum {
	NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
	NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1
} nvmlMemoryErrorType_t;
typedef enum {
	NVML_VOLATILE_ECC = 0,
	NVML_AGGREGATE_ECC = 1
} nvmlEccCounterType_t;

/* nvml.h: nvmlNvLinkErrorCounter_t */
typedef enum {
	NVML_NVLINK_ERROR_DL_REPLAY = 0,
	NVML_NVLINK_ERROR_DL_RECOVERY = 1,
	NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
	NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
	NVML_NVLINK_ERROR_DL_ECC_DATA = 4,
} nvmlNvLinkErrorCounter_t;

/* nvml.h: nvmlPciInfo_t, the layout nvmlDeviceGetPciInfo_v3 fills. */
typedef struct nvmlPciInfo_st {
	char busIdLegacy[16]; /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[32]; /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
} nvmlPciInfo_t;

/* nvml.h: nvmlDevice_t is a pointer to an opaque struct. */
struct nvmlDevice_st {
	unsigned int index;
};
typedef struct nvmlDevice_st *nvmlDevice_t;

static struct {
	int refs;
	json_object *root; /* owned */
	json_object *gpus; /* borrowed from root */
	unsigned int n_gpus;
	struct nvmlDevice_st devices[FAKE_MAX_GPUS];
} fake;

static const struct {
	nvmlReturn_t rc;
	const char *text;
} texts[] = {
	{ NVML_SUCCESS, "Success" },
	{ NVML_ERROR_UNINITIALIZED, "Uninitialized" },
	{ NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
	{ NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
	{ NVML_ERROR_NO_PERMISSION, "Insufficient Permissions" },
	{ NVML_ERROR_NOT_FOUND, "Not Found" },
	{ NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
	{ NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
	{ NVML_ERROR_TIMEOUT, "Timeout" },
	{ NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
	{ NVML_ERROR_RESET_REQUIRED, "GPU requires reset" },
	{ NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "Argument version mismatch" },
	{ NVML_ERROR_UNKNOWN, "Unknown Error" },
};

/* ---- knobs -------------------------------------------------------------- */

static void hang_if(const char *fn)
{
	const char *h = getenv("SN_FAKE_NVML_HANG");

	if (!h || strcmp(h, fn))
		return;
	for (;;)
		pause();
}

/* "<i>" or "<i>:later" from env name; -1 when unset or malformed. */
static long knob_index(const char *name, int *later)
{
	const char *v = getenv(name);
	char *end = NULL;
	long i;

	*later = 0;
	if (!v || !*v)
		return -1;
	errno = 0;
	i = strtol(v, &end, 10);
	if (errno || end == v || i < 0)
		return -1;
	if (!strcmp(end, ":later"))
		*later = 1;
	else if (*end)
		return -1;
	return i;
}

/* The failure the knobs give index at handle time (later == 0) or after. */
static nvmlReturn_t knob_failure(unsigned int index, int at_later)
{
	int later;

	if (knob_index("SN_FAKE_NVML_LOST", &later) == (long)index &&
	    later == at_later)
		return NVML_ERROR_GPU_IS_LOST;
	if (knob_index("SN_FAKE_NVML_UNKNOWN", &later) == (long)index &&
	    later == at_later)
		return NVML_ERROR_UNKNOWN;
	return NVML_SUCCESS;
}

/* ---- fixture values ----------------------------------------------------- */

static nvmlReturn_t code_of(const char *text)
{
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (!strcmp(texts[i].text, text))
			return texts[i].rc;
	return NVML_ERROR_UNKNOWN;
}

/* NVML_SUCCESS when v is a plain value; the error it stands for if not. */
static nvmlReturn_t value_rc(json_object *v)
{
	json_object *e;

	if (!v)
		return NVML_ERROR_NOT_SUPPORTED;
	if (json_object_is_type(v, json_type_object)) {
		if (json_object_object_get_ex(v, "nvml_error", &e))
			return code_of(json_object_get_string(e));
		return NVML_ERROR_UNKNOWN;
	}
	return NVML_SUCCESS;
}

static nvmlReturn_t get_u64(json_object *obj, const char *key,
			    unsigned long long *out)
{
	json_object *v = NULL;
	nvmlReturn_t rc;

	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	json_object_object_get_ex(obj, key, &v);
	rc = value_rc(v);
	if (rc == NVML_SUCCESS)
		*out = (unsigned long long)json_object_get_int64(v);
	return rc;
}

static nvmlReturn_t get_uint(json_object *obj, const char *key,
			     unsigned int *out)
{
	unsigned long long v = 0;
	nvmlReturn_t rc;

	if (!out)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = get_u64(obj, key, &v);
	if (rc == NVML_SUCCESS)
		*out = (unsigned int)v;
	return rc;
}

static nvmlReturn_t get_string(json_object *obj, const char *key, char *buf,
			       unsigned int length)
{
	json_object *v = NULL;
	const char *s;
	nvmlReturn_t rc;

	if (!buf)
		return NVML_ERROR_INVALID_ARGUMENT;
	json_object_object_get_ex(obj, key, &v);
	rc = value_rc(v);
	if (rc != NVML_SUCCESS)
		return rc;
	s = json_object_get_string(v);
	if (strlen(s) + 1 > length)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

static unsigned int device_count(void)
{
	const char *v = getenv("SN_FAKE_NVML_COUNT");

	if (v && *v)
		return (unsigned int)strtoul(v, NULL, 10);
	return fake.n_gpus;
}

/* Common entry of every per-device call: hang, lost, the GPU's object. */
static nvmlReturn_t enter(const char *fn, nvmlDevice_t dev, json_object **gpu)
{
	unsigned int index;
	nvmlReturn_t rc;

	hang_if(fn);
	if (!fake.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!dev || dev < fake.devices || dev >= fake.devices + FAKE_MAX_GPUS)
		return NVML_ERROR_INVALID_ARGUMENT;
	index = dev->index;
	rc = knob_failure(index, 1);
	if (rc != NVML_SUCCESS)
		return rc;
	*gpu = json_object_array_get_idx(fake.gpus, index);
	return *gpu ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* ---- init --------------------------------------------------------------- */

/* "nvml.json" beside this library file, into buf; NULL if unknown. */
static const char *fixture_beside(char *buf, size_t size)
{
	Dl_info info;
	const char *slash;

	if (!dladdr((void *)fixture_beside, &info) || !info.dli_fname)
		return NULL;
	slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return NULL;
	if (snprintf(buf, size, "%.*s/nvml.json", (int)(slash - info.dli_fname),
		     info.dli_fname) >= (int)size)
		return NULL;
	return buf;
}

static nvmlReturn_t load_fixture(void)
{
	const char *path = getenv("SN_FAKE_NVML_FIXTURE");
	char beside[4096];
	size_t n;

	if (!path || !*path)
		path = fixture_beside(beside, sizeof(beside));
	if (!path) {
		fprintf(stderr, "fake nvml: SN_FAKE_NVML_FIXTURE is not set\n");
		return NVML_ERROR_UNKNOWN;
	}
	fake.root = json_object_from_file(path);
	if (!fake.root ||
	    !json_object_object_get_ex(fake.root, "gpus", &fake.gpus) ||
	    !json_object_is_type(fake.gpus, json_type_array)) {
		fprintf(stderr, "fake nvml: %s: not a fixture: %s\n", path,
			json_util_get_last_err() ? json_util_get_last_err() :
						   "no gpus array");
		json_object_put(fake.root);
		fake.root = NULL;
		return NVML_ERROR_UNKNOWN;
	}
	n = json_object_array_length(fake.gpus);
	fake.n_gpus = n > FAKE_MAX_GPUS ? FAKE_MAX_GPUS : (unsigned int)n;
	for (unsigned int i = 0; i < FAKE_MAX_GPUS; i++)
		fake.devices[i].index = i;
	return NVML_SUCCESS;
}

/* SN_FAKE_NVML_CTOR_MARK: code that runs at dlopen(), as root's would. */
__attribute__((constructor)) static void fake_ctor(void)
{
	const char *mark = getenv("SN_FAKE_NVML_CTOR_MARK");
	int fd;

	if (!mark || !*mark)
		return;
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

/* SN_FAKE_NVML_INIT_MS: a slow nvmlInit_v2. */
static void init_slow(void)
{
	const char *ms = getenv("SN_FAKE_NVML_INIT_MS");
	long v = ms ? strtol(ms, NULL, 10) : 0;

	if (v > 0 && v <= 60000)
		usleep((useconds_t)v * 1000);
}

FAKE_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	nvmlReturn_t rc;
	const char *fail = getenv("SN_FAKE_NVML_INIT_FAIL");

	hang_if("nvmlInit_v2");
	init_slow();
	if (fail && !strcmp(fail, "1"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	if (fake.refs) {
		fake.refs++;
		return NVML_SUCCESS;
	}
	rc = load_fixture();
	if (rc == NVML_SUCCESS)
		fake.refs = 1;
	return rc;
}

FAKE_EXPORT nvmlReturn_t nvmlShutdown(void)
{
	hang_if("nvmlShutdown");
	if (!fake.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (--fake.refs == 0) {
		json_object_put(fake.root);
		fake.root = NULL;
		fake.gpus = NULL;
		fake.n_gpus = 0;
	}
	return NVML_SUCCESS;
}

FAKE_OPTIONAL const char *nvmlErrorString(nvmlReturn_t result)
{
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		if (texts[i].rc == result)
			return texts[i].text;
	return "Unknown Error";
}

FAKE_OPTIONAL nvmlReturn_t nvmlSystemGetDriverVersion(char *version,
						      unsigned int length)
{
	hang_if("nvmlSystemGetDriverVersion");
	if (!fake.refs)
		return NVML_ERROR_UNINITIALIZED;
	return get_string(fake.root, "driver", version, length);
}

/* ---- devices ------------------------------------------------------------ */

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	hang_if("nvmlDeviceGetCount_v2");
	if (!fake.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!deviceCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	*deviceCount = device_count();
	return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
						       nvmlDevice_t *device)
{
	nvmlReturn_t rc;

	hang_if("nvmlDeviceGetHandleByIndex_v2");
	if (!fake.refs)
		return NVML_ERROR_UNINITIALIZED;
	if (!device || index >= device_count())
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = knob_failure(index, 0);
	if (rc != NVML_SUCCESS)
		return rc;
	if (index >= fake.n_gpus)
		return NVML_ERROR_UNKNOWN; /* counted, but not in the fixture */
	*device = &fake.devices[index];
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device,
						   nvmlPciInfo_t *pci)
{
	json_object *gpu = NULL;
	unsigned int domain, bus, dev, fn;
	nvmlReturn_t rc;
	char id[64];

	rc = enter("nvmlDeviceGetPciInfo_v3", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = get_string(gpu, "pci_bus_id", id, sizeof(id));
	if (rc != NVML_SUCCESS)
		return rc;
	if (sscanf(id, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
		return NVML_ERROR_UNKNOWN;
	memset(pci, 0, sizeof(*pci));
	pci->domain = domain;
	pci->bus = bus;
	pci->device = dev;
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X", domain,
		 bus, dev, fn);
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy),
		 "%04X:%02X:%02X.%X", domain & 0xffff, bus & 0xff, dev & 0x1f,
		 fn & 7);
	if (get_uint(gpu, "pci_device_id", &pci->pciDeviceId) != NVML_SUCCESS)
		pci->pciDeviceId = 0;
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name,
					     unsigned int length)
{
	json_object *gpu = NULL;
	nvmlReturn_t rc = enter("nvmlDeviceGetName", device, &gpu);

	return rc != NVML_SUCCESS ? rc : get_string(gpu, "name", name, length);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid,
					     unsigned int length)
{
	json_object *gpu = NULL;
	nvmlReturn_t rc = enter("nvmlDeviceGetUUID", device, &gpu);

	return rc != NVML_SUCCESS ? rc : get_string(gpu, "uuid", uuid, length);
}

/* One unsigned per-GPU value: the body of the PCIe getters. */
static nvmlReturn_t device_uint(const char *fn, nvmlDevice_t device,
				const char *key, unsigned int *out)
{
	json_object *gpu = NULL;
	nvmlReturn_t rc = enter(fn, device, &gpu);

	return rc != NVML_SUCCESS ? rc : get_uint(gpu, key, out);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(
	nvmlDevice_t device, unsigned int *currLinkGen)
{
	return device_uint("nvmlDeviceGetCurrPcieLinkGeneration", device,
			   "pcie_gen_cur", currLinkGen);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(
	nvmlDevice_t device, unsigned int *maxLinkGen)
{
	return device_uint("nvmlDeviceGetMaxPcieLinkGeneration", device,
			   "pcie_gen_max", maxLinkGen);
}

FAKE_OPTIONAL nvmlReturn_t
nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
	return device_uint("nvmlDeviceGetCurrPcieLinkWidth", device,
			   "pcie_width_cur", currLinkWidth);
}

FAKE_OPTIONAL nvmlReturn_t
nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
	return device_uint("nvmlDeviceGetMaxPcieLinkWidth", device,
			   "pcie_width_max", maxLinkWidth);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device,
							  unsigned int *value)
{
	return device_uint("nvmlDeviceGetPcieReplayCounter", device,
			   "pcie_replay_counter", value);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetRemappedRows(
	nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows,
	unsigned int *isPending, unsigned int *failureOccurred)
{
	unsigned int *out[4] = { corrRows, uncRows, isPending,
				 failureOccurred };
	json_object *gpu = NULL, *rows = NULL;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetRemappedRows", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	for (int i = 0; i < 4; i++)
		if (!out[i])
			return NVML_ERROR_INVALID_ARGUMENT;
	json_object_object_get_ex(gpu, "remapped_rows", &rows);
	rc = value_rc(rows);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!json_object_is_type(rows, json_type_array) ||
	    json_object_array_length(rows) != 4)
		return NVML_ERROR_UNKNOWN;
	for (int i = 0; i < 4; i++)
		*out[i] = (unsigned int)json_object_get_int64(
			json_object_array_get_idx(rows, (size_t)i));
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(
	nvmlDevice_t device, nvmlEnableState_t *isPending)
{
	json_object *gpu = NULL;
	unsigned int v = 0;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetRetiredPagesPendingStatus", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!isPending)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = get_uint(gpu, "retired_pages_pending", &v);
	if (rc == NVML_SUCCESS)
		*isPending = v ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
	return rc;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetTotalEccErrors(
	nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
	nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
	static const char *const keys[2][2] = {
		{ "ecc_corrected_volatile", "ecc_corrected_aggregate" },
		{ "ecc_uncorrected_volatile", "ecc_uncorrected_aggregate" },
	};
	json_object *gpu = NULL;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetTotalEccErrors", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if ((unsigned int)errorType > 1 || (unsigned int)counterType > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	return get_u64(gpu, keys[errorType][counterType], eccCounts);
}

/* The fixture object of link, or the error that stands for it. */
static nvmlReturn_t link_object(json_object *gpu, unsigned int link,
				json_object **out)
{
	json_object *links = NULL;
	nvmlReturn_t rc;

	json_object_object_get_ex(gpu, "nvlink", &links);
	rc = value_rc(links);
	if (rc != NVML_SUCCESS)
		return link < FAKE_NVLINK_MAX_LINKS ?
			       rc :
			       NVML_ERROR_INVALID_ARGUMENT;
	if (!json_object_is_type(links, json_type_array) ||
	    link >= json_object_array_length(links))
		return NVML_ERROR_INVALID_ARGUMENT;
	*out = json_object_array_get_idx(links, link);
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device,
						    unsigned int link,
						    nvmlEnableState_t *isActive)
{
	json_object *gpu = NULL, *l = NULL;
	unsigned int state = 0;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetNvLinkState", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!isActive)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_object(gpu, link, &l);
	if (rc != NVML_SUCCESS)
		return rc;
	rc = get_uint(l, "state", &state);
	if (rc == NVML_SUCCESS)
		*isActive = state ? NVML_FEATURE_ENABLED :
				    NVML_FEATURE_DISABLED;
	return rc;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(
	nvmlDevice_t device, unsigned int link,
	nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue)
{
	static const char *const keys[] = {
		"err_replay",	"err_recovery", "err_crc_flit",
		"err_crc_data", "err_ecc_data",
	};
	json_object *gpu = NULL, *l = NULL;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetNvLinkErrorCounter", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if ((unsigned int)counter > NVML_NVLINK_ERROR_DL_ECC_DATA ||
	    !counterValue)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_object(gpu, link, &l);
	if (rc != NVML_SUCCESS)
		return rc;
	return get_u64(l, keys[counter], counterValue);
}

/* ---- fabric info -------------------------------------------------------- */

/* nvml.h: nvmlGpuFabricInfo_v3_t (v2: the same without healthSummary). */
#define NVML_GPU_FABRIC_UUID_LEN 16
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	unsigned char state;
	unsigned int healthMask;
	unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;

typedef nvmlGpuFabricInfo_v3_t nvmlGpuFabricInfoV_t;

/* NVML_STRUCT_VERSION(GpuFabricInfo, 2 and 3): sizes 36 and 40. */
#define FAKE_FABRIC_V2 ((unsigned int)(36 | (2u << 24)))
#define FAKE_FABRIC_V3 \
	((unsigned int)(sizeof(nvmlGpuFabricInfo_v3_t) | (3u << 24)))

static unsigned int fabric_calls[FAKE_MAX_GPUS];

/* "8-4-4-4-12" hex into 16 bytes; -1 if malformed. */
static int parse_uuid(const char *s, unsigned char *out)
{
	unsigned int n = 0;

	for (; *s && n < 2 * NVML_GPU_FABRIC_UUID_LEN; s++) {
		char c = *s;
		unsigned int v;

		if (c == '-')
			continue;
		if (c >= '0' && c <= '9')
			v = (unsigned int)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = (unsigned int)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v = (unsigned int)(c - 'A' + 10);
		else
			return -1;
		out[n / 2] = (unsigned char)(n % 2 ? out[n / 2] | v : v << 4);
		n++;
	}
	return n == 2 * NVML_GPU_FABRIC_UUID_LEN && !*s ? 0 : -1;
}

/* The state of this call: "states"[call] (the last repeats) or "state". */
static nvmlReturn_t fabric_state(json_object *fab, unsigned int call,
				 unsigned int *state)
{
	json_object *states = NULL;
	size_t n;

	if (!json_object_object_get_ex(fab, "states", &states))
		return get_uint(fab, "state", state);
	if (!json_object_is_type(states, json_type_array) ||
	    !(n = json_object_array_length(states)))
		return NVML_ERROR_UNKNOWN;
	*state = (unsigned int)json_object_get_int64(
		json_object_array_get_idx(states, call < n ? call : n - 1));
	return NVML_SUCCESS;
}

static nvmlReturn_t fabric_fill(json_object *fab, unsigned int call,
				nvmlGpuFabricInfoV_t *out, unsigned int ver)
{
	unsigned int state = 0, status = 0, summary = 0;
	char uuid[64];
	nvmlReturn_t rc;

	if ((rc = fabric_state(fab, call, &state)) != NVML_SUCCESS ||
	    (rc = get_uint(fab, "status", &status)) != NVML_SUCCESS ||
	    (rc = get_uint(fab, "clique_id", &out->cliqueId)) != NVML_SUCCESS ||
	    (rc = get_uint(fab, "health_mask", &out->healthMask)) !=
		    NVML_SUCCESS ||
	    (rc = get_string(fab, "cluster_uuid", uuid, sizeof(uuid))) !=
		    NVML_SUCCESS)
		return rc;
	if (parse_uuid(uuid, out->clusterUuid))
		return NVML_ERROR_UNKNOWN;
	out->state = (unsigned char)state;
	out->status = (nvmlReturn_t)status;
	if (ver == FAKE_FABRIC_V3 &&
	    get_uint(fab, "health_summary", &summary) == NVML_SUCCESS)
		out->healthSummary = (unsigned char)summary;
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t
nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *info)
{
	json_object *gpu = NULL, *fab = NULL;
	unsigned int newest = 3, ver;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetGpuFabricInfoV", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	json_object_object_get_ex(gpu, "fabric", &fab);
	if (!fab)
		return NVML_ERROR_NOT_SUPPORTED;
	if (json_object_object_get_ex(fab, "nvml_error", NULL))
		return value_rc(fab);
	ver = info->version;
	if (ver != FAKE_FABRIC_V2 && ver != FAKE_FABRIC_V3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	get_uint(fab, "version", &newest);
	if (ver == FAKE_FABRIC_V3 && newest < 3)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	memset((char *)info + sizeof(info->version), 0,
	       (ver == FAKE_FABRIC_V3 ? sizeof(*info) : 36) -
		       sizeof(info->version));
	return fabric_fill(fab, fabric_calls[device->index]++, info, ver);
}

/* ---- field values ------------------------------------------------------- */

/* nvml.h: nvmlValueType_t, nvmlValue_t, nvmlFieldValue_t */
typedef enum {
	NVML_VALUE_TYPE_DOUBLE = 0,
	NVML_VALUE_TYPE_UNSIGNED_INT = 1,
	NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
	NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
	NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
	NVML_VALUE_TYPE_SIGNED_INT = 5,
	NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
} nvmlValueType_t;

typedef union nvmlValue_st {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	nvmlValueType_t valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;

/* nvml.h: the NVML_FI_* ids the fixtures name (pynvml.py has the same). */
static const struct {
	unsigned int id;
	const char *name;
} field_names[] = {
	{ 91, "NVML_FI_DEV_NVLINK_LINK_COUNT" },
	{ 138, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX" },
	{ 139, "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX" },
	{ 140, "NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX" },
	{ 141, "NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX" },
	{ 146, "NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID" },
	{ 161, "NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY" },
	{ 162, "NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY" },
	{ 163, "NVML_FI_DEV_NVLINK_ERROR_DL_CRC" },
	{ 164, "NVML_FI_DEV_NVLINK_GET_SPEED" },
	{ 165, "NVML_FI_DEV_NVLINK_GET_STATE" },
	{ 166, "NVML_FI_DEV_NVLINK_GET_VERSION" },
	{ 167, "NVML_FI_DEV_NVLINK_GET_POWER_STATE" },
	{ 168, "NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD" },
	{ 200, "NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_MAX" },
	{ 201, "NVML_FI_DEV_NVLINK_COUNT_XMIT_PACKETS" },
	{ 202, "NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES" },
	{ 203, "NVML_FI_DEV_NVLINK_COUNT_RCV_PACKETS" },
	{ 204, "NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES" },
	{ 213, "NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS" },
	{ 214, "NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS" },
	{ 215, "NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS" },
	{ 219, "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS" },
	{ 220, "NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER" },
	{ 221, "NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS" },
	{ 222, "NVML_FI_DEV_NVLINK_COUNT_SYMBOL_BER" },
	{ 223, "NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_MIN" },
	{ 224, "NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_UNITS" },
	{ 225, "NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_SUPPORTED" },
	{ 230, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION" },
};

static const char *field_name(unsigned int id)
{
	for (size_t i = 0; i < sizeof(field_names) / sizeof(field_names[0]);
	     i++)
		if (field_names[i].id == id)
			return field_names[i].name;
	return NULL;
}

/* The fixture's answer for one field into v. */
static void field_fill(json_object *fv, nvmlFieldValue_t *v)
{
	const char *name = field_name(v->fieldId);
	json_object *val = NULL;
	char key[128];

	v->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
	v->value.ullVal = 0;
	if (!name) {
		v->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
		return;
	}
	if (v->scopeId == 0)
		snprintf(key, sizeof(key), "%s", name);
	else if (v->scopeId == 0xffffffffu)
		snprintf(key, sizeof(key), "%s@all_links", name);
	else
		snprintf(key, sizeof(key), "%s@link%u", name, v->scopeId);
	json_object_object_get_ex(fv, key, &val);
	v->nvmlReturn = value_rc(val);
	if (v->nvmlReturn != NVML_SUCCESS)
		return;
	if (json_object_is_type(val, json_type_double)) {
		v->valueType = NVML_VALUE_TYPE_DOUBLE;
		v->value.dVal = json_object_get_double(val);
		return;
	}
	if (json_object_get_int64(val) < 0) {
		v->valueType = NVML_VALUE_TYPE_SIGNED_LONG_LONG;
		v->value.sllVal = json_object_get_int64(val);
		return;
	}
	v->value.ullVal = (unsigned long long)json_object_get_int64(val);
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
						    int valuesCount,
						    nvmlFieldValue_t *values)
{
	json_object *gpu = NULL, *fv = NULL;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetFieldValues", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (valuesCount < 0 || (valuesCount && !values))
		return NVML_ERROR_INVALID_ARGUMENT;
	json_object_object_get_ex(gpu, "nvml_field_values", &fv);
	for (int i = 0; i < valuesCount; i++) {
		values[i].timestamp = 0;
		values[i].latencyUsec = 0;
		field_fill(fv, &values[i]);
	}
	return NVML_SUCCESS;
}

FAKE_OPTIONAL nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device,
						      unsigned int link,
						      unsigned int *version)
{
	json_object *gpu = NULL, *l = NULL;
	nvmlReturn_t rc;

	rc = enter("nvmlDeviceGetNvLinkVersion", device, &gpu);
	if (rc != NVML_SUCCESS)
		return rc;
	if (!version)
		return NVML_ERROR_INVALID_ARGUMENT;
	rc = link_object(gpu, link, &l);
	if (rc != NVML_SUCCESS)
		return rc;
	return get_uint(l, "version", version);
}
