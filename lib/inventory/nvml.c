/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NVML loaded at run time (see sn_nvml.h).
 *
 * Function signatures follow NVIDIA's nvml.h and the NVML API Reference
 * Guide (https://docs.nvidia.com/deploy/nvml-api/); the comment on each
 * pointer below quotes the C prototype it stands for.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_vendor.h"
#include "util/sn_child.h"
#include "util/sn_safedir.h"
#include "inventory/sn_nvml.h"

_Static_assert(sizeof(struct sn_nvml_pci_info) == 68,
	       "nvmlPciInfo_t (v3) is 68 bytes");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
	       "dlsym results are stored into function pointers");

typedef sn_nvml_return_t (*nvml_u32_fn)(sn_nvml_device_t, unsigned int *);

/* One loaded library.  Pointers are NULL when the symbol is absent. */
struct sn_nvml {
	void *dl;
	int initialized;
	/* nvmlReturn_t nvmlInit_v2(void) */
	sn_nvml_return_t (*init)(void);
	/* nvmlReturn_t nvmlShutdown(void) */
	sn_nvml_return_t (*shutdown)(void);
	/* const char *nvmlErrorString(nvmlReturn_t result) */
	const char *(*error_string)(sn_nvml_return_t);
	/* nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) */
	sn_nvml_return_t (*driver_version)(char *, unsigned int);
	/* nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) */
	sn_nvml_return_t (*count)(unsigned int *);
	/* nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) */
	sn_nvml_return_t (*handle)(unsigned int, sn_nvml_device_t *);
	/* nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci) */
	sn_nvml_return_t (*pci_info)(sn_nvml_device_t,
				     struct sn_nvml_pci_info *);
	/* nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) */
	sn_nvml_return_t (*name)(sn_nvml_device_t, char *, unsigned int);
	/* nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) */
	sn_nvml_return_t (*uuid)(sn_nvml_device_t, char *, unsigned int);
	/* nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t, unsigned int *currLinkGen) */
	nvml_u32_fn gen_cur;
	/* nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t, unsigned int *maxLinkGen) */
	nvml_u32_fn gen_max;
	/* nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t, unsigned int *currLinkWidth) */
	nvml_u32_fn width_cur;
	/* nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t, unsigned int *maxLinkWidth) */
	nvml_u32_fn width_max;
	/* nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t, unsigned int *value) */
	nvml_u32_fn replay;
	/*
	 * nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device,
	 *	unsigned int *corrRows, unsigned int *uncRows,
	 *	unsigned int *isPending, unsigned int *failureOccurred)
	 */
	sn_nvml_return_t (*remapped_rows)(sn_nvml_device_t, unsigned int *,
					  unsigned int *, unsigned int *,
					  unsigned int *);
	/*
	 * nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t,
	 *	nvmlEnableState_t *isPending)
	 */
	sn_nvml_return_t (*retired_pending)(sn_nvml_device_t, int *);
	/*
	 * nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device,
	 *	nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType,
	 *	unsigned long long *eccCounts)
	 */
	sn_nvml_return_t (*total_ecc)(sn_nvml_device_t, int, int,
				      unsigned long long *);
	/*
	 * nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t, unsigned int link,
	 *	nvmlEnableState_t *isActive)
	 */
	sn_nvml_return_t (*nvlink_state)(sn_nvml_device_t, unsigned int, int *);
	/*
	 * nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device,
	 *	unsigned int link, nvmlNvLinkErrorCounter_t counter,
	 *	unsigned long long *counterValue)
	 */
	sn_nvml_return_t (*nvlink_error)(sn_nvml_device_t, unsigned int, int,
					 unsigned long long *);
	/*
	 * nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
	 *	nvmlGpuFabricInfoV_t *gpuFabricInfo)
	 */
	sn_nvml_return_t (*fabric_info)(sn_nvml_device_t, void *);
	/*
	 * nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
	 *	int valuesCount, nvmlFieldValue_t *values)
	 */
	sn_nvml_return_t (*field_values)(sn_nvml_device_t, int, void *);
	/*
	 * nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device,
	 *	unsigned int link, unsigned int *version)
	 */
	sn_nvml_return_t (*nvlink_version)(sn_nvml_device_t, unsigned int,
					   unsigned int *);
};

/* Where dlsym puts each symbol; required ones fail sn_nvml_open. */
struct nvml_symbol {
	const char *name;
	size_t offset;
	int required;
};

#define SYM(field, name, required)                              \
	{                                                       \
		name, offsetof(struct sn_nvml, field), required \
	}

static const struct nvml_symbol nvml_symbols[] = {
	SYM(init, "nvmlInit_v2", 1),
	SYM(shutdown, "nvmlShutdown", 1),
	SYM(count, "nvmlDeviceGetCount_v2", 1),
	SYM(handle, "nvmlDeviceGetHandleByIndex_v2", 1),
	SYM(error_string, "nvmlErrorString", 0),
	SYM(driver_version, "nvmlSystemGetDriverVersion", 0),
	SYM(pci_info, "nvmlDeviceGetPciInfo_v3", 0),
	SYM(name, "nvmlDeviceGetName", 0),
	SYM(uuid, "nvmlDeviceGetUUID", 0),
	SYM(gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration", 0),
	SYM(gen_max, "nvmlDeviceGetMaxPcieLinkGeneration", 0),
	SYM(width_cur, "nvmlDeviceGetCurrPcieLinkWidth", 0),
	SYM(width_max, "nvmlDeviceGetMaxPcieLinkWidth", 0),
	SYM(replay, "nvmlDeviceGetPcieReplayCounter", 0),
	SYM(remapped_rows, "nvmlDeviceGetRemappedRows", 0),
	SYM(retired_pending, "nvmlDeviceGetRetiredPagesPendingStatus", 0),
	SYM(total_ecc, "nvmlDeviceGetTotalEccErrors", 0),
	SYM(nvlink_state, "nvmlDeviceGetNvLinkState", 0),
	SYM(nvlink_error, "nvmlDeviceGetNvLinkErrorCounter", 0),
	SYM(fabric_info, "nvmlDeviceGetGpuFabricInfoV", 0),
	SYM(field_values, "nvmlDeviceGetFieldValues", 0),
	SYM(nvlink_version, "nvmlDeviceGetNvLinkVersion", 0),
};

#undef SYM

/*
 * NVML's own texts, for a library without nvmlErrorString and for codes
 * that did not come from the library: as nvmlErrorString() of
 * libnvidia-ml 580.159.04 returns them (read on an H200, 2026-11-29).
 */
static const struct {
	sn_nvml_return_t rc;
	const char *text;
} nvml_texts[] = {
	{ SN_NVML_SUCCESS, "Success" },
	{ SN_NVML_ERROR_UNINITIALIZED, "Uninitialized" },
	{ SN_NVML_ERROR_INVALID_ARGUMENT, "Invalid Argument" },
	{ SN_NVML_ERROR_NOT_SUPPORTED, "Not Supported" },
	{ SN_NVML_ERROR_NO_PERMISSION, "Insufficient Permissions" },
	{ SN_NVML_ERROR_ALREADY_INITIALIZED, "Already Initialized" },
	{ SN_NVML_ERROR_NOT_FOUND, "Not Found" },
	{ SN_NVML_ERROR_INSUFFICIENT_SIZE, "Insufficient Size" },
	{ SN_NVML_ERROR_INSUFFICIENT_POWER, "Insufficient External Power" },
	{ SN_NVML_ERROR_DRIVER_NOT_LOADED, "Driver Not Loaded" },
	{ SN_NVML_ERROR_TIMEOUT, "Timeout" },
	{ SN_NVML_ERROR_IRQ_ISSUE, "Interrupt Request Issue" },
	{ SN_NVML_ERROR_LIBRARY_NOT_FOUND, "NVML Shared Library Not Found" },
	{ SN_NVML_ERROR_FUNCTION_NOT_FOUND, "Function Not Found" },
	{ SN_NVML_ERROR_CORRUPTED_INFOROM, "Corrupted infoROM" },
	{ SN_NVML_ERROR_GPU_IS_LOST, "GPU is lost" },
	{ SN_NVML_ERROR_RESET_REQUIRED, "GPU requires reset" },
	{ SN_NVML_ERROR_OPERATING_SYSTEM,
	  "GPU access blocked by the operating system" },
	{ SN_NVML_ERROR_LIB_RM_VERSION_MISMATCH,
	  "Driver/library version mismatch" },
	{ SN_NVML_ERROR_IN_USE, "In use by another client" },
	{ SN_NVML_ERROR_MEMORY, "Insufficient Memory" },
	{ SN_NVML_ERROR_NO_DATA, "No data" },
	{ 22, "vGPU ECC not supported" },
	{ 23, "Insufficient Resources" },
	{ 24, "Invalid Frequency" },
	{ 25, "Argument version mismatch" },
	{ 26, "Requested functionality has been deprecated" },
	{ 27, "System is not in ready state" },
	{ 28, "No supported GPUs were found" },
	{ 29, "Resource not in correct state to perform requested operation" },
	{ 30, "Reset type is not supported for given device" },
	{ SN_NVML_ERROR_UNKNOWN, "Unknown Error" },
	{ SN_NVML_NOT_QUERIED, "not queried (GPU lost)" },
};

const char *sn_nvml_error_string(const struct sn_nvml *nvml,
				 sn_nvml_return_t rc)
{
	const char *s;

	if (rc != SN_NVML_NOT_QUERIED &&
	    rc != SN_NVML_ERROR_FUNCTION_NOT_FOUND && nvml &&
	    nvml->error_string) {
		s = nvml->error_string(rc);
		if (s && *s)
			return s;
	}
	for (size_t i = 0; i < sizeof(nvml_texts) / sizeof(nvml_texts[0]); i++)
		if (nvml_texts[i].rc == rc)
			return nvml_texts[i].text;
	return "Unknown NVML return code";
}

bool sn_nvml_rc_is_failure(sn_nvml_return_t rc)
{
	return rc == SN_NVML_ERROR_GPU_IS_LOST || rc == SN_NVML_ERROR_UNKNOWN;
}

static int resolve_symbols(struct sn_nvml *nvml, const char *path,
			   struct sn_error *err)
{
	for (size_t i = 0; i < sizeof(nvml_symbols) / sizeof(nvml_symbols[0]);
	     i++) {
		const struct nvml_symbol *s = &nvml_symbols[i];
		void *p = dlsym(nvml->dl, s->name);

		if (!p && s->required) {
			sn_error_set(
				err,
				"no symbol %s: not an NVML library, or too old: %s",
				s->name, path);
			return -1;
		}
		memcpy((char *)nvml + s->offset, &p, sizeof(p));
	}
	return 0;
}

int sn_nvml_open(const char *path, struct sn_nvml **out, struct sn_error *err)
{
	struct sn_nvml *nvml = NULL;
	sn_nvml_return_t rc;
	int ret = -1;

	*out = NULL;
	if (!path || !*path) {
		sn_error_set(err, "paths.nvml is empty");
		goto out;
	}
	nvml = calloc(1, sizeof(*nvml));
	if (!nvml) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	nvml->dl = sn_safedir_dlopen(path, RTLD_NOW | RTLD_LOCAL, err);
	if (!nvml->dl) {
		if (errno == ENOENT && err)
			sn_vendor_lib_missing(sn_vendor_of(SN_ACCEL_NVIDIA),
					      path, err->msg, sizeof(err->msg));
		goto out;
	}
	if (resolve_symbols(nvml, path, err))
		goto out;
	rc = nvml->init();
	if (rc != SN_NVML_SUCCESS) {
		sn_error_set(err, "nvmlInit_v2: %s (%d), library %s",
			     sn_nvml_error_string(nvml, rc), rc, path);
		goto out;
	}
	nvml->initialized = 1;
	*out = nvml;
	nvml = NULL;
	ret = 0;
out:
	sn_nvml_close(nvml);
	return ret;
}

void sn_nvml_close(struct sn_nvml *nvml)
{
	if (!nvml)
		return;
	if (nvml->initialized && nvml->shutdown)
		nvml->shutdown();
	if (nvml->dl)
		dlclose(nvml->dl);
	free(nvml);
}

static void close_cb(void *nvml)
{
	sn_nvml_close(nvml);
}

void sn_nvml_close_deferred(struct sn_nvml *nvml)
{
	if (nvml && sn_child_defer(close_cb, nvml))
		sn_nvml_close(nvml);
}

sn_nvml_return_t sn_nvml_device_count(struct sn_nvml *nvml, unsigned int *count)
{
	*count = 0;
	return nvml->count(count);
}

/* Copy an NVML string out of a buffer NVML filled; printable ASCII only. */
static void copy_text(char *dst, size_t size, const char *src, size_t src_size)
{
	size_t i = 0;

	for (; i + 1 < size && i < src_size && src[i]; i++)
		dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

sn_nvml_return_t sn_nvml_driver_version(struct sn_nvml *nvml, char *buf,
					size_t size)
{
	char tmp[SN_NVML_DRIVER_VERSION_SIZE] = "";
	sn_nvml_return_t rc;

	buf[0] = '\0';
	if (!nvml->driver_version)
		return SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	rc = nvml->driver_version(tmp, sizeof(tmp));
	if (rc == SN_NVML_SUCCESS)
		copy_text(buf, size, tmp, sizeof(tmp));
	return rc;
}

static int hex_field(const char **p, unsigned int max_digits, char end,
		     unsigned long *value)
{
	const char *s = *p;
	unsigned int n = 0;

	*value = 0;
	while (n < max_digits && isxdigit((unsigned char)s[n])) {
		char c = (char)tolower((unsigned char)s[n]);

		*value = *value * 16 +
			 (unsigned long)(isdigit((unsigned char)c) ?
						 c - '0' :
						 c - 'a' + 10);
		n++;
	}
	if (!n || s[n] != end)
		return -1;
	*p = s + n + (end ? 1 : 0);
	return 0;
}

int sn_pci_bdf_normalize(const char *in, char *out, size_t size)
{
	unsigned long domain, bus, dev, fn;
	const char *p = in;
	int n;

	if (size)
		out[0] = '\0';
	if (!in || hex_field(&p, 8, ':', &domain) ||
	    hex_field(&p, 2, ':', &bus) || hex_field(&p, 2, '.', &dev) ||
	    hex_field(&p, 1, '\0', &fn) || dev > 31 || fn > 7)
		return -1;
	n = snprintf(out, size, "%04lx:%02lx:%02lx.%lx", domain, bus, dev, fn);
	if (n < 0 || (size_t)n >= size) {
		if (size)
			out[0] = '\0';
		return -1;
	}
	return 0;
}

/*
 * Record rc from query call; once a GPU answers GPU_IS_LOST or UNKNOWN the
 * remaining queries are skipped.  Returns rc.
 */
static sn_nvml_return_t note(struct sn_nvml_gpu *gpu, sn_nvml_return_t rc,
			     const char *call)
{
	if (sn_nvml_rc_is_failure(rc) && !gpu->lost_call) {
		gpu->lost_rc = rc;
		gpu->lost_call = call;
	}
	return rc;
}

static bool lost(const struct sn_nvml_gpu *gpu)
{
	return gpu->lost_call != NULL;
}

static void read_u32(struct sn_nvml_gpu *gpu, sn_nvml_device_t dev,
		     nvml_u32_fn fn, const char *call, struct sn_nvml_u32 *out)
{
	out->value = 0;
	if (lost(gpu))
		out->rc = SN_NVML_NOT_QUERIED;
	else if (!fn)
		out->rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		out->rc = note(gpu, fn(dev, &out->value), call);
}

static void read_pci(struct sn_nvml *nvml, sn_nvml_device_t dev,
		     struct sn_nvml_gpu *gpu)
{
	struct sn_nvml_pci_info pci;
	char bus_id[SN_NVML_PCI_BUS_ID_SIZE];

	memset(&pci, 0, sizeof(pci));
	if (!nvml->pci_info) {
		gpu->pci_rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
		return;
	}
	gpu->pci_rc =
		note(gpu, nvml->pci_info(dev, &pci), "nvmlDeviceGetPciInfo_v3");
	if (gpu->pci_rc != SN_NVML_SUCCESS)
		return;
	gpu->pci_device_id = pci.pci_device_id;
	copy_text(bus_id, sizeof(bus_id), pci.bus_id, sizeof(pci.bus_id));
	if (sn_pci_bdf_normalize(bus_id, gpu->bus_id, sizeof(gpu->bus_id)))
		snprintf(gpu->bus_id, sizeof(gpu->bus_id), "%04x:%02x:%02x.0",
			 pci.domain & 0xffffu, pci.bus & 0xffu,
			 pci.device & 0x1fu);
}

static void
read_text(struct sn_nvml_gpu *gpu, sn_nvml_device_t dev,
	  sn_nvml_return_t (*fn)(sn_nvml_device_t, char *, unsigned int),
	  const char *call, sn_nvml_return_t *rc, char *out, size_t size)
{
	char tmp[SN_NVML_NAME_SIZE > SN_NVML_UUID_SIZE ? SN_NVML_NAME_SIZE :
							 SN_NVML_UUID_SIZE] =
		"";

	out[0] = '\0';
	if (lost(gpu)) {
		*rc = SN_NVML_NOT_QUERIED;
		return;
	}
	if (!fn) {
		*rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
		return;
	}
	*rc = note(gpu, fn(dev, tmp, sizeof(tmp)), call);
	if (*rc == SN_NVML_SUCCESS)
		copy_text(out, size, tmp, sizeof(tmp));
}

static void read_health(struct sn_nvml *nvml, sn_nvml_device_t dev,
			struct sn_nvml_gpu *gpu)
{
	int pending = 0;

	if (lost(gpu))
		gpu->remap_rc = SN_NVML_NOT_QUERIED;
	else if (!nvml->remapped_rows)
		gpu->remap_rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		gpu->remap_rc =
			note(gpu,
			     nvml->remapped_rows(dev, &gpu->remap_correctable,
						 &gpu->remap_uncorrectable,
						 &gpu->remap_pending,
						 &gpu->remap_failure),
			     "nvmlDeviceGetRemappedRows");

	if (lost(gpu))
		gpu->retired_pending.rc = SN_NVML_NOT_QUERIED;
	else if (!nvml->retired_pending)
		gpu->retired_pending.rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		gpu->retired_pending.rc =
			note(gpu, nvml->retired_pending(dev, &pending),
			     "nvmlDeviceGetRetiredPagesPendingStatus");
	gpu->retired_pending.value = pending == SN_NVML_FEATURE_ENABLED;
}

static void read_ecc(struct sn_nvml *nvml, sn_nvml_device_t dev, int type,
		     struct sn_nvml_gpu *gpu, struct sn_nvml_u64 *out)
{
	out->value = 0;
	if (lost(gpu))
		out->rc = SN_NVML_NOT_QUERIED;
	else if (!nvml->total_ecc)
		out->rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	else
		out->rc = note(gpu,
			       nvml->total_ecc(dev, type, SN_NVML_VOLATILE_ECC,
					       &out->value),
			       "nvmlDeviceGetTotalEccErrors");
}

static void read_link_counters(struct sn_nvml *nvml, sn_nvml_device_t dev,
			       unsigned int link, struct sn_nvml_gpu *gpu)
{
	struct sn_nvml_link *l = &gpu->links[link];

	for (int c = 0; c < SN_NVLINK_ERR_COUNT; c++) {
		struct sn_nvml_u64 *v = &l->errors[c];

		v->value = 0;
		if (lost(gpu))
			v->rc = SN_NVML_NOT_QUERIED;
		else if (!nvml->nvlink_error)
			v->rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
		else
			v->rc = note(gpu,
				     nvml->nvlink_error(dev, link, c,
							&v->value),
				     "nvmlDeviceGetNvLinkErrorCounter");
	}
}

static void read_links(struct sn_nvml *nvml, sn_nvml_device_t dev,
		       unsigned int flags, struct sn_nvml_gpu *gpu)
{
	unsigned int link, answered = 0;
	sn_nvml_return_t rc;

	gpu->n_links = 0;
	gpu->links_rc = lost(gpu)	    ? SN_NVML_NOT_QUERIED :
			!nvml->nvlink_state ? SN_NVML_ERROR_FUNCTION_NOT_FOUND :
					      SN_NVML_ERROR_NOT_SUPPORTED;
	if (lost(gpu) || !nvml->nvlink_state)
		return;
	for (link = 0; link < SN_MANIFEST_MAX_NVLINKS && !lost(gpu); link++) {
		struct sn_nvml_link *l = &gpu->links[link];
		int state = SN_NVML_FEATURE_DISABLED;

		rc = note(gpu, nvml->nvlink_state(dev, link, &state),
			  "nvmlDeviceGetNvLinkState");
		if (rc == SN_NVML_ERROR_INVALID_ARGUMENT)
			break; /* no such link */
		if (link == 0)
			gpu->links_rc = rc;
		l->state_rc = rc;
		l->active = rc == SN_NVML_SUCCESS &&
			    state == SN_NVML_FEATURE_ENABLED;
		for (int c = 0; c < SN_NVLINK_ERR_COUNT; c++)
			l->errors[c].rc = SN_NVML_ERROR_NOT_SUPPORTED;
		if (rc == SN_NVML_SUCCESS) {
			answered = link + 1;
			gpu->links_rc = SN_NVML_SUCCESS;
			if (flags & SN_NVML_READ_COUNTERS)
				read_link_counters(nvml, dev, link, gpu);
		}
	}
	gpu->n_links = answered;
}

/* Every value "not queried" until its query answers. */
static void gpu_reset(struct sn_nvml_gpu *gpu, unsigned int index)
{
	memset(gpu, 0, sizeof(*gpu));
	gpu->index = index;
	gpu->lost_rc = SN_NVML_SUCCESS;
	gpu->pci_rc = SN_NVML_NOT_QUERIED;
	gpu->name_rc = SN_NVML_NOT_QUERIED;
	gpu->uuid_rc = SN_NVML_NOT_QUERIED;
	gpu->gen_cur.rc = SN_NVML_NOT_QUERIED;
	gpu->gen_max.rc = SN_NVML_NOT_QUERIED;
	gpu->width_cur.rc = SN_NVML_NOT_QUERIED;
	gpu->width_max.rc = SN_NVML_NOT_QUERIED;
	gpu->replay.rc = SN_NVML_NOT_QUERIED;
	gpu->remap_rc = SN_NVML_NOT_QUERIED;
	gpu->retired_pending.rc = SN_NVML_NOT_QUERIED;
	gpu->ecc_uncorrected.rc = SN_NVML_NOT_QUERIED;
	gpu->ecc_corrected.rc = SN_NVML_NOT_QUERIED;
	gpu->links_rc = SN_NVML_NOT_QUERIED;
}

sn_nvml_return_t sn_nvml_read_gpu(struct sn_nvml *nvml, unsigned int index,
				  unsigned int flags, struct sn_nvml_gpu *gpu)
{
	sn_nvml_device_t dev = NULL;

	gpu_reset(gpu, index);
	gpu->handle_rc = note(gpu, nvml->handle(index, &dev),
			      "nvmlDeviceGetHandleByIndex_v2");
	if (gpu->handle_rc != SN_NVML_SUCCESS)
		return gpu->handle_rc;
	read_pci(nvml, dev, gpu);
	read_text(gpu, dev, nvml->name, "nvmlDeviceGetName", &gpu->name_rc,
		  gpu->name, sizeof(gpu->name));
	read_text(gpu, dev, nvml->uuid, "nvmlDeviceGetUUID", &gpu->uuid_rc,
		  gpu->uuid, sizeof(gpu->uuid));
	read_u32(gpu, dev, nvml->gen_cur, "nvmlDeviceGetCurrPcieLinkGeneration",
		 &gpu->gen_cur);
	read_u32(gpu, dev, nvml->gen_max, "nvmlDeviceGetMaxPcieLinkGeneration",
		 &gpu->gen_max);
	read_u32(gpu, dev, nvml->width_cur, "nvmlDeviceGetCurrPcieLinkWidth",
		 &gpu->width_cur);
	read_u32(gpu, dev, nvml->width_max, "nvmlDeviceGetMaxPcieLinkWidth",
		 &gpu->width_max);
	read_u32(gpu, dev, nvml->replay, "nvmlDeviceGetPcieReplayCounter",
		 &gpu->replay);
	read_health(nvml, dev, gpu);
	read_ecc(nvml, dev, SN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, gpu,
		 &gpu->ecc_uncorrected);
	read_ecc(nvml, dev, SN_NVML_MEMORY_ERROR_TYPE_CORRECTED, gpu,
		 &gpu->ecc_corrected);
	read_links(nvml, dev, flags, gpu);
	return gpu->handle_rc;
}

/* ---- fabric info (sn_nvml.h: the layout, from nvml.h) ------------------ */

/* nvmlGpuFabricInfo_v3_t; v2 is the same without healthSummary. */
struct nvml_fabric_v3 {
	unsigned int version;
	unsigned char cluster_uuid[SN_NVML_FABRIC_UUID_LEN];
	sn_nvml_return_t status;
	unsigned int clique_id;
	unsigned char state;
	unsigned int health_mask;
	unsigned char health_summary;
};

#define NVML_FABRIC_V2_SIZE 36u /* offsetof(healthSummary), padded to 4 */
_Static_assert(sizeof(struct nvml_fabric_v3) == 40,
	       "nvmlGpuFabricInfo_v3_t is 40 bytes");
_Static_assert(offsetof(struct nvml_fabric_v3, health_mask) == 32,
	       "healthMask at 32, as in nvmlGpuFabricInfo_v2_t");

/* NVML_STRUCT_VERSION(GpuFabricInfo, ver) */
static unsigned int fabric_version(unsigned int ver)
{
	return (ver == 3 ? (unsigned int)sizeof(struct nvml_fabric_v3) :
			   NVML_FABRIC_V2_SIZE) |
	       (ver << 24U);
}

static sn_nvml_return_t fabric_call(struct sn_nvml *nvml, sn_nvml_device_t dev,
				    unsigned int ver,
				    struct nvml_fabric_v3 *raw)
{
	memset(raw, 0, sizeof(*raw));
	raw->version = fabric_version(ver);
	return nvml->fabric_info(dev, raw);
}

sn_nvml_return_t sn_nvml_fabric_read(struct sn_nvml *nvml, unsigned int index,
				     struct sn_nvml_fabric *out)
{
	struct nvml_fabric_v3 raw;
	sn_nvml_device_t dev = NULL;
	unsigned int ver = 3;

	memset(out, 0, sizeof(*out));
	out->rc = nvml->handle(index, &dev);
	if (out->rc != SN_NVML_SUCCESS)
		return out->rc;
	if (!nvml->fabric_info) {
		out->rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
		return out->rc;
	}
	out->rc = fabric_call(nvml, dev, ver, &raw);
	if (out->rc == SN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
		ver = 2;
		out->rc = fabric_call(nvml, dev, ver, &raw);
	}
	if (out->rc != SN_NVML_SUCCESS)
		return out->rc;
	out->version = ver;
	memcpy(out->cluster_uuid, raw.cluster_uuid, sizeof(out->cluster_uuid));
	out->status = raw.status;
	out->clique_id = raw.clique_id;
	out->state = raw.state;
	out->health_mask = raw.health_mask;
	out->health_summary = ver == 3 ? raw.health_summary :
					 SN_NVML_FABRIC_SUMMARY_NOT_SUPPORTED;
	return out->rc;
}

bool sn_nvml_fabric_uuid_zero(const struct sn_nvml_fabric *f)
{
	for (size_t i = 0; i < SN_NVML_FABRIC_UUID_LEN; i++)
		if (f->cluster_uuid[i])
			return false;
	return true;
}

void sn_nvml_fabric_uuid_format(const struct sn_nvml_fabric *f, char *buf,
				size_t size)
{
	const unsigned char *u = f->cluster_uuid;

	snprintf(
		buf, size,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* ---- field values (sn_nvml.h: the layout, from nvml.h) ----------------- */

/* nvmlFieldValue_t */
struct nvml_field_value {
	unsigned int field_id;
	unsigned int scope_id;
	long long timestamp;
	long long latency_usec;
	int value_type;
	sn_nvml_return_t nvml_return;
	union {
		double d;
		unsigned int ui;
		unsigned long ul;
		unsigned long long ull;
		long long sll;
		int si;
		unsigned short us;
	} value;
};

_Static_assert(sizeof(struct nvml_field_value) == 40,
	       "nvmlFieldValue_t is 40 bytes");
_Static_assert(offsetof(struct nvml_field_value, value) == 32,
	       "nvmlFieldValue_t.value at 32");

/* One answer into the caller's field. */
static void field_take(struct sn_nvml_field *f,
		       const struct nvml_field_value *v)
{
	long long s = 0;

	f->rc = v->nvml_return;
	f->type = v->value_type;
	if (f->rc != SN_NVML_SUCCESS)
		return;
	switch (v->value_type) {
	case SN_NVML_VALUE_TYPE_DOUBLE:
		f->d = v->value.d;
		return;
	case SN_NVML_VALUE_TYPE_UNSIGNED_INT:
		f->u = v->value.ui;
		return;
	case SN_NVML_VALUE_TYPE_UNSIGNED_LONG:
		f->u = v->value.ul;
		return;
	case SN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		f->u = v->value.ull;
		return;
	case SN_NVML_VALUE_TYPE_UNSIGNED_SHORT:
		f->u = v->value.us;
		return;
	case SN_NVML_VALUE_TYPE_SIGNED_INT:
		s = v->value.si;
		break;
	case SN_NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		s = v->value.sll;
		break;
	default:
		f->rc = SN_NVML_ERROR_UNKNOWN; /* a type this build lacks */
		return;
	}
	f->negative = s < 0;
	f->u = s < 0 ? 0 : (unsigned long long)s;
}

static void fields_fail(struct sn_nvml_field *fields, size_t n,
			sn_nvml_return_t rc)
{
	for (size_t i = 0; i < n; i++)
		fields[i].rc = rc;
}

sn_nvml_return_t sn_nvml_field_values(struct sn_nvml *nvml, unsigned int index,
				      struct sn_nvml_field *fields, size_t n)
{
	struct nvml_field_value raw[SN_NVML_MAX_FIELDS];
	sn_nvml_device_t dev = NULL;
	sn_nvml_return_t rc;
	size_t asked = n > SN_NVML_MAX_FIELDS ? SN_NVML_MAX_FIELDS : n;

	for (size_t i = 0; i < n; i++) {
		fields[i].type = SN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
		fields[i].u = 0;
		fields[i].d = 0;
		fields[i].negative = false;
	}
	fields_fail(fields + asked, n - asked, SN_NVML_ERROR_INVALID_ARGUMENT);
	rc = nvml->handle(index, &dev);
	if (rc == SN_NVML_SUCCESS && !nvml->field_values)
		rc = SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	if (rc != SN_NVML_SUCCESS || !asked) {
		fields_fail(fields, asked, rc);
		return rc;
	}
	memset(raw, 0, sizeof(raw));
	for (size_t i = 0; i < asked; i++) {
		raw[i].field_id = fields[i].id;
		raw[i].scope_id = fields[i].scope;
	}
	rc = nvml->field_values(dev, (int)asked, raw);
	if (rc != SN_NVML_SUCCESS) {
		fields_fail(fields, asked, rc);
		return rc;
	}
	for (size_t i = 0; i < asked; i++)
		field_take(&fields[i], &raw[i]);
	return rc;
}

sn_nvml_return_t sn_nvml_nvlink_version(struct sn_nvml *nvml,
					unsigned int index, unsigned int link,
					unsigned int *version)
{
	sn_nvml_device_t dev = NULL;
	sn_nvml_return_t rc;

	*version = 0;
	rc = nvml->handle(index, &dev);
	if (rc != SN_NVML_SUCCESS)
		return rc;
	if (!nvml->nvlink_version)
		return SN_NVML_ERROR_FUNCTION_NOT_FOUND;
	return nvml->nvlink_version(dev, link, version);
}

const char *sn_nvml_recovery_action_name(unsigned long long action)
{
	static const char *const names[] = {
		"none",
		"GPU reset",
		"node reboot",
		"drain peer-to-peer traffic",
		"drain and reset",
		"recover the IMEX domain",
	};

	return action < sizeof(names) / sizeof(names[0]) ? names[action] :
							   "unknown action";
}
