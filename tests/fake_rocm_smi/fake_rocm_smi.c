/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake librocm_smi64.so (Hygon DCU, ROCm SMI) for the tests: the ROCm
 * SMI functions lib/inventory/vendor_hygon.c resolves, with the real
 * signatures, answering from a JSON fixture.  Loaded through the same
 * dlopen() path as the real library (paths.rocm_smi).
 *
 * Types transcribed on their own from ROCm/rocm_smi_lib
 * include/rocm_smi/rocm_smi.h at a129571 (status codes l.87-137, blocks
 * l.549-570, XGMI status l.656-660, rsmi_error_count_t l.1205-1209, the
 * BDFID layout l.1801-1815), not taken from lib/.
 *
 * Fixture (tests/fake_knobs/fake_knobs.h: where it is found, the knobs):
 *   {"driver_version": "6.3.8",
 *    "devices": [{"bdf": "0000:07:00.0", "partition": 0,
 *                 "ecc": {"umc": [ce, ue], "gfx": [ce, ue], ...},
 *                 "xgmi_error_status": 0}],
 *    "knobs": {...}}
 * A block absent from "ecc" answers RSMI_STATUS_NOT_SUPPORTED, as on a
 * card whose RAS does not cover it.  A lost device (knob "lost") answers
 * RSMI_STATUS_UNKNOWN_ERROR on every call: ENODEV from its sysfs files
 * falls to the default of ErrnoToRsmiStatus (src/rocm_smi_utils.cc
 * l.315-329).
 *
 * FAKE_ROCM_SMI_MINIMAL builds a library without rsmi_dev_ecc_count_get
 * (too old for vendor_hygon.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include "../fake_knobs/fake_knobs.h"

typedef enum {
	RSMI_STATUS_SUCCESS = 0x0,
	RSMI_STATUS_INVALID_ARGS = 0x1,
	RSMI_STATUS_NOT_SUPPORTED = 0x2,
	RSMI_STATUS_INIT_ERROR = 0x8,
	RSMI_STATUS_INSUFFICIENT_SIZE = 0xb,
	RSMI_STATUS_UNKNOWN_ERROR = 0xFFFFFFFF,
} rsmi_status_t;

typedef enum {
	RSMI_GPU_BLOCK_INVALID = 0x0,
	RSMI_GPU_BLOCK_UMC = 0x1,
	RSMI_GPU_BLOCK_LAST = 0x2000,
} rsmi_gpu_block_t;

typedef enum {
	RSMI_XGMI_STATUS_NO_ERRORS = 0,
	RSMI_XGMI_STATUS_ERROR,
	RSMI_XGMI_STATUS_MULTIPLE_ERRORS,
} rsmi_xgmi_status_t;

typedef enum {
	RSMI_SW_COMP_DRIVER = 0x0
} rsmi_sw_component_t;

typedef struct {
	uint64_t correctable_err;
	uint64_t uncorrectable_err;
} rsmi_error_count_t;

static bool initialized;

FAKE_EXPORT rsmi_status_t rsmi_init(uint64_t init_flags)
{
	(void)init_flags;
	if (!fake_load("SN_FAKE_ROCM_SMI", "hygon.json"))
		return RSMI_STATUS_INIT_ERROR;
	fake_init_sleep();
	fake_maybe_hang("rsmi_init");
	if (fake_knobs.init_fail)
		return (rsmi_status_t)fake_knobs.init_fail;
	initialized = true;
	return RSMI_STATUS_SUCCESS;
}

FAKE_EXPORT rsmi_status_t rsmi_shut_down(void)
{
	initialized = false;
	return RSMI_STATUS_SUCCESS;
}

FAKE_EXPORT rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices)
{
	fake_maybe_hang("rsmi_num_monitor_devices");
	if (!initialized)
		return RSMI_STATUS_INIT_ERROR;
	if (!num_devices)
		return RSMI_STATUS_INVALID_ARGS;
	*num_devices = fake_n_devices();
	return RSMI_STATUS_SUCCESS;
}

/* The device dv_ind, or the status a call on it answers. */
static rsmi_status_t device(uint32_t dv_ind, json_object **dev)
{
	if (!initialized)
		return RSMI_STATUS_INIT_ERROR;
	if (fake_is_lost(dv_ind))
		return RSMI_STATUS_UNKNOWN_ERROR;
	*dev = fake_device(dv_ind);
	return *dev ? RSMI_STATUS_SUCCESS : RSMI_STATUS_INVALID_ARGS;
}

FAKE_EXPORT rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv_ind, uint64_t *bdfid)
{
	unsigned dom, bus, dev, fn;
	json_object *d = NULL;
	rsmi_status_t rc;

	fake_maybe_hang("rsmi_dev_pci_id_get");
	rc = device(dv_ind, &d);
	if (rc)
		return rc;
	if (!bdfid)
		return RSMI_STATUS_INVALID_ARGS;
	if (fake_parse_bdf(fake_get_str(d, "bdf", ""), &dom, &bus, &dev, &fn))
		return RSMI_STATUS_NOT_SUPPORTED;
	/* rocm_smi.h l.1801-1815: domain [63:32], partition [31:28],
	 * reserved [27:16], bus [15:8], device [7:3], function [2:0] */
	*bdfid = ((uint64_t)dom << 32) |
		 ((uint64_t)(fake_get_int(d, "partition", 0) & 0xf) << 28) |
		 ((uint64_t)(bus & 0xff) << 8) | ((dev & 0x1f) << 3) |
		 (fn & 0x7);
	return RSMI_STATUS_SUCCESS;
}

#ifndef FAKE_ROCM_SMI_MINIMAL
/* The fixture's names for the blocks, bit 0 (UMC) to bit 13 (FUSE). */
static const char *const block_names[] = {
	"umc",	     "sdma", "gfx", "mmhub", "athub", "pcie_bif", "hdp",
	"xgmi_wafl", "df",   "smn", "sem",   "mp0",   "mp1",	  "fuse",
};

FAKE_EXPORT rsmi_status_t rsmi_dev_ecc_count_get(uint32_t dv_ind,
						 rsmi_gpu_block_t block,
						 rsmi_error_count_t *ec)
{
	json_object *d = NULL, *ecc = NULL, *pair;
	rsmi_status_t rc;
	unsigned bit;

	fake_maybe_hang("rsmi_dev_ecc_count_get");
	rc = device(dv_ind, &d);
	if (rc)
		return rc;
	if (!ec || !block || (block & (block - 1)) ||
	    block > RSMI_GPU_BLOCK_LAST)
		return RSMI_STATUS_INVALID_ARGS;
	bit = (unsigned)__builtin_ctzll((unsigned long long)block);
	json_object_object_get_ex(d, "ecc", &ecc);
	pair = fake_get_array(ecc, block_names[bit]);
	if (!pair || json_object_array_length(pair) != 2)
		return RSMI_STATUS_NOT_SUPPORTED;
	ec->correctable_err = (uint64_t)json_object_get_int64(
		json_object_array_get_idx(pair, 0));
	ec->uncorrectable_err = (uint64_t)json_object_get_int64(
		json_object_array_get_idx(pair, 1));
	return RSMI_STATUS_SUCCESS;
}
#endif

FAKE_EXPORT rsmi_status_t rsmi_dev_xgmi_error_status(uint32_t dv_ind,
						     rsmi_xgmi_status_t *status)
{
	json_object *d = NULL;
	rsmi_status_t rc;

	fake_maybe_hang("rsmi_dev_xgmi_error_status");
	rc = device(dv_ind, &d);
	if (rc)
		return rc;
	if (!status)
		return RSMI_STATUS_INVALID_ARGS;
	if (fake_get_int(d, "xgmi_error_status", -1) < 0)
		return RSMI_STATUS_NOT_SUPPORTED;
	*status = (rsmi_xgmi_status_t)fake_get_int(d, "xgmi_error_status", 0);
	return RSMI_STATUS_SUCCESS;
}

FAKE_EXPORT rsmi_status_t rsmi_version_str_get(rsmi_sw_component_t component,
					       char *ver_str, uint32_t len)
{
	const char *v = fake_get_str(fake_root, "driver_version", NULL);

	fake_maybe_hang("rsmi_version_str_get");
	if (!initialized)
		return RSMI_STATUS_INIT_ERROR;
	if (component != RSMI_SW_COMP_DRIVER || !ver_str || !len)
		return RSMI_STATUS_INVALID_ARGS;
	if (!v)
		return RSMI_STATUS_NOT_SUPPORTED;
	snprintf(ver_str, len, "%s", v);
	return strlen(v) >= len ? RSMI_STATUS_INSUFFICIENT_SIZE :
				  RSMI_STATUS_SUCCESS;
}
