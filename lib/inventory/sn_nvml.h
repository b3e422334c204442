/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_NVML_H
#define SN_NVML_H

/*
 * The NVIDIA Management Library (NVML), loaded at run time.
 *
 * Nothing NVIDIA is needed to build: the few types and constants used are
 * declared below with the ABI of NVIDIA's nvml.h (the header shipped with
 * the CUDA toolkit and the driver, mirrored in NVIDIA/go-nvml
 * pkg/nvml/nvml.h; documented in the "NVML API Reference Guide",
 * https://docs.nvidia.com/deploy/nvml-api/).  Names carry an sn_ prefix so
 * that this header never clashes with the real one.
 *
 * The library is dlopen()ed with RTLD_NOW | RTLD_LOCAL from paths.nvml
 * (default "libnvidia-ml.so.1", found through the loader's search path).
 * Only nvmlInit_v2, nvmlShutdown, nvmlDeviceGetCount_v2 and
 * nvmlDeviceGetHandleByIndex_v2 are required; any other function the
 * library lacks makes that one query answer
 * SN_NVML_ERROR_FUNCTION_NOT_FOUND (NVML's own code for it), never a crash.
 *
 * No signal handlers, no threads, no time limits here: an NVML call can
 * block for ever on a wedged GPU.  The check runner forks each check group
 * into a child with a time limit and kills it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sn_error.h"
#include "config/sn_manifest.h"
#include "inventory/sn_pcie.h"

/* nvmlReturn_t: a C enum, passed and returned as int (nvml.h). */
typedef int sn_nvml_return_t;

#define SN_NVML_SUCCESS 0
#define SN_NVML_ERROR_UNINITIALIZED 1
#define SN_NVML_ERROR_INVALID_ARGUMENT 2
#define SN_NVML_ERROR_NOT_SUPPORTED 3
#define SN_NVML_ERROR_NO_PERMISSION 4
#define SN_NVML_ERROR_ALREADY_INITIALIZED 5
#define SN_NVML_ERROR_NOT_FOUND 6
#define SN_NVML_ERROR_INSUFFICIENT_SIZE 7
#define SN_NVML_ERROR_INSUFFICIENT_POWER 8
#define SN_NVML_ERROR_DRIVER_NOT_LOADED 9
#define SN_NVML_ERROR_TIMEOUT 10
#define SN_NVML_ERROR_IRQ_ISSUE 11
#define SN_NVML_ERROR_LIBRARY_NOT_FOUND 12
#define SN_NVML_ERROR_FUNCTION_NOT_FOUND 13
#define SN_NVML_ERROR_CORRUPTED_INFOROM 14
#define SN_NVML_ERROR_GPU_IS_LOST 15
#define SN_NVML_ERROR_RESET_REQUIRED 16
#define SN_NVML_ERROR_OPERATING_SYSTEM 17
#define SN_NVML_ERROR_LIB_RM_VERSION_MISMATCH 18
#define SN_NVML_ERROR_IN_USE 19
#define SN_NVML_ERROR_MEMORY 20
#define SN_NVML_ERROR_NO_DATA 21
#define SN_NVML_ERROR_UNKNOWN 999

/*
 * Ours, never returned by NVML: the query was not made because an earlier
 * query on the same GPU found it lost (GPU_IS_LOST or UNKNOWN).
 */
#define SN_NVML_NOT_QUERIED (-1)

/* nvmlDevice_t: an opaque handle owned by the library. */
typedef struct sn_nvml_device_st *sn_nvml_device_t;

/* nvmlEnableState_t (nvml.h): NVML_FEATURE_DISABLED 0, _ENABLED 1. */
#define SN_NVML_FEATURE_DISABLED 0
#define SN_NVML_FEATURE_ENABLED 1

/* nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvml.h). */
#define SN_NVML_MEMORY_ERROR_TYPE_CORRECTED 0
#define SN_NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define SN_NVML_VOLATILE_ECC 0

/* Buffer sizes (nvml.h, the _V2 sizes of current headers). */
#define SN_NVML_PCI_BUS_ID_LEGACY_SIZE \
	16			   /* NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE */
#define SN_NVML_PCI_BUS_ID_SIZE 32 /* NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE */
#define SN_NVML_NAME_SIZE 96	   /* NVML_DEVICE_NAME_V2_BUFFER_SIZE */
#define SN_NVML_UUID_SIZE 96	   /* NVML_DEVICE_UUID_V2_BUFFER_SIZE */
#define SN_NVML_DRIVER_VERSION_SIZE \
	80 /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE */

/*
 * nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3 (nvml.h, 68 bytes).
 * busId is "DDDDDDDD:BB:DD.F" with an 8-digit domain.
 */
struct sn_nvml_pci_info {
	char bus_id_legacy[SN_NVML_PCI_BUS_ID_LEGACY_SIZE]; /* busIdLegacy */
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;    /* pciDeviceId: device << 16 | vendor */
	unsigned int pci_subsystem_id; /* pciSubSystemId */
	char bus_id[SN_NVML_PCI_BUS_ID_SIZE]; /* busId */
};

/*
 * How many NVLinks are probed per GPU.  nvml.h's NVML_NVLINK_MAX_LINKS was
 * 18 (Hopper-era headers) and is 36 in current ones; probing stops at the
 * first link NVML calls invalid (NVML_ERROR_INVALID_ARGUMENT), so this is
 * only an upper bound.  Seen with driver 580.159.04: an H200 with NVLink
 * answers links 0-17 and INVALID_ARGUMENT for 18; a lone H200 whose links
 * are not exposed answers NOT_SUPPORTED for every link number, so all are
 * probed.  The bound is the manifest's limit for node.accelerators.nvlinks,
 * SN_MANIFEST_MAX_NVLINKS; GPUs read per node: SN_MANIFEST_MAX_ACCELS (more
 * are reported, not read).
 */

/* nvmlNvLinkErrorCounter_t (nvml.h): NVML_NVLINK_ERROR_DL_REPLAY = 0, ... */
enum sn_nvlink_counter {
	SN_NVLINK_ERR_REPLAY = 0,   /* data link transmit replay */
	SN_NVLINK_ERR_RECOVERY = 1, /* data link transmit recovery */
	SN_NVLINK_ERR_CRC_FLIT = 2, /* receive flow-control digit CRC */
	SN_NVLINK_ERR_CRC_DATA = 3, /* receive data CRC */
	SN_NVLINK_ERR_ECC_DATA =
		4, /* receive data ECC: corrected (NVLink 3+) */
	SN_NVLINK_ERR_COUNT = 5,
};

/* One unsigned NVML value and the code its query returned. */
struct sn_nvml_u32 {
	sn_nvml_return_t rc; /* value is valid only when rc == SUCCESS */
	unsigned int value;
};

/* One 64-bit counter and the code its query returned. */
struct sn_nvml_u64 {
	sn_nvml_return_t rc;
	unsigned long long value;
};

/* One NVLink of one GPU. */
struct sn_nvml_link {
	sn_nvml_return_t state_rc; /* nvmlDeviceGetNvLinkState */
	bool active;		   /* NVML_FEATURE_ENABLED */
	struct sn_nvml_u64
		errors[SN_NVLINK_ERR_COUNT]; /* SN_NVML_READ_COUNTERS */
};

/*
 * struct sn_nvml_gpu - everything the checks and the epilog baseline read
 * from one GPU (filled by sn_nvml_read_gpu).  Each value carries the NVML
 * code of its own query; SN_NVML_NOT_QUERIED after the GPU was found lost.
 */
struct sn_nvml_gpu {
	unsigned int index;	    /* NVML index */
	sn_nvml_return_t handle_rc; /* nvmlDeviceGetHandleByIndex_v2 */
	/* First GPU_IS_LOST or UNKNOWN from any query, and which query. */
	sn_nvml_return_t lost_rc;
	const char *lost_call; /* static string; NULL while healthy */

	sn_nvml_return_t pci_rc;  /* nvmlDeviceGetPciInfo_v3 */
	char bus_id[SN_BDF_SIZE]; /* sysfs form "0000:1b:00.0"; "" unknown */
	uint32_t pci_device_id;	  /* device << 16 | vendor */
	sn_nvml_return_t name_rc;
	char name[SN_NVML_NAME_SIZE];
	sn_nvml_return_t uuid_rc;
	char uuid[SN_NVML_UUID_SIZE];

	struct sn_nvml_u32 gen_cur; /* nvmlDeviceGetCurrPcieLinkGeneration */
	struct sn_nvml_u32
		gen_max; /* ..MaxPcieLinkGeneration (device and system) */
	struct sn_nvml_u32 width_cur; /* ..CurrPcieLinkWidth, lanes */
	struct sn_nvml_u32 width_max; /* ..MaxPcieLinkWidth (device and system) */
	struct sn_nvml_u32 replay;    /* ..PcieReplayCounter */

	sn_nvml_return_t remap_rc;	/* nvmlDeviceGetRemappedRows */
	unsigned int remap_correctable; /* rows remapped for correctable errors */
	unsigned int remap_uncorrectable;
	unsigned int remap_pending; /* non-zero: a reset/reboot is needed */
	unsigned int remap_failure; /* non-zero: a remapping failed: RMA */

	struct sn_nvml_u32 retired_pending; /* ..RetiredPagesPendingStatus */
	struct sn_nvml_u64 ecc_uncorrected; /* ..TotalEccErrors, volatile */
	struct sn_nvml_u64 ecc_corrected;

	/*
	 * Links 0 .. n_links-1 were probed: probing stops at the first link
	 * NVML calls invalid, or after SN_MANIFEST_MAX_NVLINKS.  A GPU without
	 * NVLink answers NOT_SUPPORTED for each link.  Trailing links that did
	 * not answer SUCCESS are dropped once any link did.  links_rc is
	 * SUCCESS when at least one link answered, else link 0's code
	 * (NOT_SUPPORTED: no NVLink; FUNCTION_NOT_FOUND: library lacks it).
	 */
	sn_nvml_return_t links_rc;
	unsigned int n_links;
	struct sn_nvml_link links[SN_MANIFEST_MAX_NVLINKS];
};

/*
 * GPU fabric info (NVLink domain membership), transcribed from NVIDIA's
 * nvml.h (NVML API 13, as mirrored in NVIDIA/go-nvml pkg/nvml/nvml.h at
 * 2f9e261f, "Fabric definitions"):
 *
 *   #define NVML_GPU_FABRIC_UUID_LEN 16
 *   #define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0 .. _NOT_STARTED 1,
 *           _IN_PROGRESS 2, _COMPLETED 3         (nvmlGpuFabricState_t: uchar)
 *   typedef struct {                         offset  (v2 36 bytes, v3 40)
 *       unsigned int  version;                   0   nvmlGpuFabricInfo_v{2,3}
 *       unsigned char clusterUuid[16];           4
 *       nvmlReturn_t  status;                   20   valid once COMPLETED
 *       unsigned int  cliqueId;                 24
 *       nvmlGpuFabricState_t state;             28
 *       unsigned int  healthMask;               32
 *       unsigned char healthSummary;            36   v3 only
 *   } nvmlGpuFabricInfo_v3_t;       (nvmlGpuFabricInfoV_t = the v3 type)
 *   #define NVML_STRUCT_VERSION(data, ver) \
 *           (unsigned int)(sizeof(nvml ## data ## _v ## ver ## _t) | (ver << 24U))
 *   nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
 *                                            nvmlGpuFabricInfoV_t *info);
 *
 * healthMask sub-fields (NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_x / _WIDTH_x):
 * DEGRADED_BW 0/0x3, ROUTE_RECOVERY 2/0x3, ROUTE_UNHEALTHY 4/0x3,
 * ACCESS_TIMEOUT_RECOVERY 6/0x3, INCORRECT_CONFIGURATION 8/0xf,
 * PARTITION_ASSIGNED 12/0x3.  The boolean ones read 0 NOT_SUPPORTED,
 * 1 TRUE, 2 FALSE; INCORRECT_CONFIGURATION reads 0 NOT_SUPPORTED, 1 NONE
 * (correct), 2 INCORRECT_SYSGUID, 3 INCORRECT_CHASSIS_SN, 4 NO_PARTITION,
 * 5 INSUFFICIENT_NVLINKS, 6 INCOMPATIBLE_GPU_FW, 7 INVALID_LOCATION,
 * 8 GPU_STATE_INVALID.  healthSummary: 0 NOT_SUPPORTED, 1 HEALTHY,
 * 2 UNHEALTHY, 3 LIMITED_CAPACITY.
 */
#define SN_NVML_FABRIC_UUID_LEN 16
#define SN_NVML_FABRIC_STATE_NOT_SUPPORTED 0
#define SN_NVML_FABRIC_STATE_NOT_STARTED 1
#define SN_NVML_FABRIC_STATE_IN_PROGRESS 2
#define SN_NVML_FABRIC_STATE_COMPLETED 3

#define SN_NVML_FABRIC_SUMMARY_NOT_SUPPORTED 0
#define SN_NVML_FABRIC_SUMMARY_HEALTHY 1
#define SN_NVML_FABRIC_SUMMARY_UNHEALTHY 2
#define SN_NVML_FABRIC_SUMMARY_LIMITED_CAPACITY 3

/* NVML_ERROR_ARGUMENT_VERSION_MISMATCH: a driver that lacks the v3 struct. */
#define SN_NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25

/*
 * struct sn_nvml_fabric - one GPU's fabric info (sn_nvml_fabric_read).
 * Every field but rc is valid only when rc == SN_NVML_SUCCESS.
 */
struct sn_nvml_fabric {
	sn_nvml_return_t rc;  /* of the call; FUNCTION_NOT_FOUND: old library */
	unsigned int version; /* struct version answered: 3, or 2 (fallback) */
	unsigned char cluster_uuid[SN_NVML_FABRIC_UUID_LEN];
	sn_nvml_return_t status; /* the probe's own error; once COMPLETED */
	unsigned int clique_id;
	unsigned int state;	     /* SN_NVML_FABRIC_STATE_* */
	unsigned int health_mask;    /* raw; see the sub-fields above */
	unsigned int health_summary; /* v3 only; NOT_SUPPORTED under v2 */
};

struct sn_nvml;

/*
 * sn_nvml_fabric_read - nvmlDeviceGetGpuFabricInfoV for GPU index: version
 * 3 first, version 2 when the library answers ARGUMENT_VERSION_MISMATCH.
 * A library without the symbol answers FUNCTION_NOT_FOUND (never a
 * crash).  Returns out->rc (the handle's code when that fails).
 */
sn_nvml_return_t sn_nvml_fabric_read(struct sn_nvml *nvml, unsigned int index,
				     struct sn_nvml_fabric *out);

/*
 * sn_nvml_fabric_uuid_zero - true when the cluster UUID is all zeros (an
 * HGX board or a GPU in no multi-node NVLink domain).
 */
bool sn_nvml_fabric_uuid_zero(const struct sn_nvml_fabric *f);

/*
 * sn_nvml_fabric_uuid_format - the cluster UUID in the 8-4-4-4-12 form
 * nvidia-smi prints, lower case, into buf (at least SN_NVML_FABRIC_UUID_STR
 * bytes).
 */
#define SN_NVML_FABRIC_UUID_STR 37
void sn_nvml_fabric_uuid_format(const struct sn_nvml_fabric *f, char *buf,
				size_t size);

/* Flags for sn_nvml_read_gpu. */
#define SN_NVML_READ_COUNTERS 0x1u /* also the NVLink error counters */

struct sn_nvml;

/*
 * sn_nvml_open - dlopen the NVML library at path, resolve its functions and
 * call nvmlInit_v2.
 *
 * path: a file name for the loader ("libnvidia-ml.so.1") or an absolute
 * path.  On success *out is a new session (close with sn_nvml_close).
 * Returns 0; or -1 with *out NULL and err naming the cause: the dlerror()
 * text when the library cannot be loaded ("dlopen: ..."), the missing
 * symbol ("no symbol nvmlInit_v2: ..."), or "nvmlInit_v2: <nvmlErrorString>
 * (<code>), library <path>" (for example "Driver Not Loaded (9)").  The
 * cause comes first, so that it survives a cut to a result's 96 bytes.
 */
int sn_nvml_open(const char *path, struct sn_nvml **out, struct sn_error *err);

/* sn_nvml_close - nvmlShutdown, dlclose and free; NULL-safe. */
void sn_nvml_close(struct sn_nvml *nvml);

/*
 * sn_nvml_close_deferred - sn_nvml_close, in a bounded child once its
 * output has gone to the parent (sn_child_defer): nvmlShutdown detaching
 * the GPUs costs milliseconds (4.4 ms on an H200 without persistence mode)
 * the prolog's check need not wait for.  Elsewhere, at once.  NULL-safe.
 */
void sn_nvml_close_deferred(struct sn_nvml *nvml);

/*
 * sn_nvml_error_string - NVML's text for rc (nvmlErrorString, or a built-in
 * copy of NVML's strings when the library lacks it).  Never NULL; static.
 */
const char *sn_nvml_error_string(const struct sn_nvml *nvml,
				 sn_nvml_return_t rc);

/* sn_nvml_device_count - nvmlDeviceGetCount_v2: GPUs NVML sees. */
sn_nvml_return_t sn_nvml_device_count(struct sn_nvml *nvml,
				      unsigned int *count);

/*
 * sn_nvml_driver_version - nvmlSystemGetDriverVersion into buf (size
 * bytes, at least 1; NUL-terminated, "" on error).
 */
sn_nvml_return_t sn_nvml_driver_version(struct sn_nvml *nvml, char *buf,
					size_t size);

/*
 * sn_nvml_read_gpu - get the handle of GPU index and read every value of
 * struct sn_nvml_gpu (the NVLink error counters only with
 * SN_NVML_READ_COUNTERS).  Once a query answers GPU_IS_LOST or UNKNOWN the
 * remaining ones are skipped (SN_NVML_NOT_QUERIED).
 *
 * Returns gpu->handle_rc: SN_NVML_SUCCESS when the handle was obtained
 * (values may still carry their own errors, see lost_rc).
 */
sn_nvml_return_t sn_nvml_read_gpu(struct sn_nvml *nvml, unsigned int index,
				  unsigned int flags, struct sn_nvml_gpu *gpu);

/*
 * sn_nvml_rc_is_failure - true for the codes that mean the GPU itself is
 * broken (GPU_IS_LOST, UNKNOWN): field case 11 counts them as failures,
 * never as skips.
 */
bool sn_nvml_rc_is_failure(sn_nvml_return_t rc);

/*
 * sn_pci_bdf_normalize - turn an NVML bus id ("00000000:1B:00.0") or a
 * sysfs one into the sysfs form "0000:1b:00.0" (domain at least 4 hex
 * digits, lower case) in out (size bytes, SN_BDF_SIZE is enough).
 * Returns 0, or -1 when in is not DOMAIN:BUS:DEV.FN (out is then "").
 */
int sn_pci_bdf_normalize(const char *in, char *out, size_t size);

/*
 * Field values (nvmlDeviceGetFieldValues), transcribed from NVIDIA's nvml.h
 * (NVML 12.x/13.x; the same ids in nvidia-ml-py's pynvml.py, NVML_FI_*):
 *
 *   typedef struct nvmlFieldValue_st {          offset (40 bytes)
 *       unsigned int fieldId;                       0   NVML_FI_*
 *       unsigned int scopeId;                       4   link, or all links
 *       long long timestamp;                        8   us since 1970
 *       long long latencyUsec;                     16
 *       nvmlValueType_t valueType;                 24   NVML_VALUE_TYPE_*
 *       nvmlReturn_t nvmlReturn;                   28   this field's code
 *       nvmlValue_t value;                         32   union, 8 bytes
 *   } nvmlFieldValue_t;
 *   nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
 *                                         int valuesCount,
 *                                         nvmlFieldValue_t *values);
 *
 * nvmlValueType_t: DOUBLE 0, UNSIGNED_INT 1, UNSIGNED_LONG 2,
 * UNSIGNED_LONG_LONG 3, SIGNED_LONG_LONG 4, SIGNED_INT 5, UNSIGNED_SHORT 6.
 * Scope: the NVLink fields take the link number; UINT_MAX
 * (SN_NVML_SCOPE_ALL_LINKS) sums or answers for every link (nvml.h:
 * "scopeId ... can be set to UINT_MAX to get the aggregate").  A field the
 * GPU or driver does not have answers NOT_SUPPORTED in its own nvmlReturn.
 */
#define SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX 138 /* KiB, counter */
#define SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX 139 /* KiB, counter */
#define SN_NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY 161
#define SN_NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY 162
#define SN_NVML_FI_DEV_NVLINK_ERROR_DL_CRC 163
#define SN_NVML_FI_DEV_NVLINK_GET_VERSION 166	   /* nvmlNvlinkVersion_t */
#define SN_NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES 202 /* NVLink 5, bytes */
#define SN_NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES 204  /* NVLink 5, bytes */
#define SN_NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS 213
#define SN_NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS 214
#define SN_NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS 219
#define SN_NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER 220 /* mantissa<<8|exp */
#define SN_NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS 221
#define SN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION 230

#define SN_NVML_SCOPE_ALL_LINKS 0xffffffffu

/*
 * nvmlNvlinkVersion_t (nvml.h): INVALID 0, 1_0 1, 2_0 2, 2_2 3, 3_0 4,
 * 3_1 5, 4_0 6 (Hopper: H100, H200), 5_0 7 (Blackwell), 6_0 8.
 */
#define SN_NVML_NVLINK_VERSION_4_0 6
#define SN_NVML_NVLINK_VERSION_5_0 7

/*
 * nvmlDeviceGpuRecoveryAction_t (nvml.h, driver r570 and later): NONE 0,
 * GPU_RESET 1, NODE_REBOOT 2, DRAIN_P2P 3, DRAIN_AND_RESET 4; 5 is
 * RECOVER_IMEX_DOMAIN in NVML 13's header (cuda-bindings' nvml.pxd order,
 * NVML 13 release notes) and GPU_RESET_BUS in some nvidia-ml-py releases.
 */
#define SN_NVML_GPU_RECOVERY_ACTION_NONE 0

#define SN_NVML_VALUE_TYPE_DOUBLE 0
#define SN_NVML_VALUE_TYPE_UNSIGNED_INT 1
#define SN_NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define SN_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define SN_NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define SN_NVML_VALUE_TYPE_SIGNED_INT 5
#define SN_NVML_VALUE_TYPE_UNSIGNED_SHORT 6

#define SN_NVML_MAX_FIELDS 64 /* fields per sn_nvml_field_values() call */

/*
 * struct sn_nvml_field - one field to read and its answer.
 * @id, @scope: set by the caller (SN_NVML_FI_*, link or ALL_LINKS)
 * @rc:         that field's own code (nvmlReturn), or the call's when the
 *              call itself failed; FUNCTION_NOT_FOUND: the library has no
 *              nvmlDeviceGetFieldValues (a driver before r384)
 * @type:       SN_NVML_VALUE_TYPE_* of the answer
 * @u:          the value when unsigned (or signed and >= 0)
 * @d:          the value when DOUBLE
 * @negative:   a signed value below 0 (u is then 0)
 */
struct sn_nvml_field {
	unsigned int id;
	unsigned int scope;
	sn_nvml_return_t rc;
	int type;
	unsigned long long u;
	double d;
	bool negative;
};

/*
 * sn_nvml_field_values - read n fields (at most SN_NVML_MAX_FIELDS; more
 * answer INVALID_ARGUMENT each) of GPU index in one
 * nvmlDeviceGetFieldValues call; each field gets its own rc.  Optional in
 * the library: without the symbol every field answers FUNCTION_NOT_FOUND,
 * never a crash.  Returns the call's code (SUCCESS even when single
 * fields failed; the handle's code when that failed).
 */
sn_nvml_return_t sn_nvml_field_values(struct sn_nvml *nvml, unsigned int index,
				      struct sn_nvml_field *fields, size_t n);

/*
 * sn_nvml_nvlink_version - nvmlDeviceGetNvLinkVersion of GPU index's link
 * into *version (nvmlNvlinkVersion_t: SN_NVML_NVLINK_VERSION_*; 0 on
 * error).  The generation when the field NVML_FI_DEV_NVLINK_GET_VERSION
 * does not answer.  Optional in the library (FUNCTION_NOT_FOUND).
 */
sn_nvml_return_t sn_nvml_nvlink_version(struct sn_nvml *nvml,
					unsigned int index, unsigned int link,
					unsigned int *version);

/*
 * sn_nvml_recovery_action_name - "none", "GPU reset", "node reboot",
 * "drain peer-to-peer traffic", "drain and reset", "recover the IMEX
 * domain", or "unknown action" for a value this build does not know.
 * Static.
 */
const char *sn_nvml_recovery_action_name(unsigned long long action);

#endif
