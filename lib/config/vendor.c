/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vendor table (see sn_vendor.h).  Sources, from
 * ../shared/reference/vendors.md unless said otherwise:
 *   PCI vendor ids: pci.ids; device nodes, visible-devices variables and
 *   collective-library variables: gpustack/runtime detector and envs.py,
 *   FlagOpen/FlagPerf vendor configs, hiascend.com CANN HCCL environment
 *   variable pages; library places: mind-cluster path.go (DCMI), gpustack
 *   pyrocmsmi (ROCm SMI), pycndev (CNDev), pymtml (MTML), pymxsml and
 *   nvtop (MXSML), go-xpuml (XPUML).
 *   Class codes other than NVIDIA's, AMD's and Ascend's are derived from
 *   each vendor's product class (display, co-processor or processing
 *   accelerator) and accept all three where unsure: the vendor id is
 *   what makes a function that vendor's.
 * A variable left NULL is one the vendor does not document: we never set
 * it, and ccl_note says so in --supernode-env=show.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config/sn_vendor.h"
#include "util/sn_error.h"

static const struct sn_vendor vendors[SN_ACCEL_VENDOR_COUNT] = {
	[SN_ACCEL_NONE] = {
		.id = SN_ACCEL_NONE, .name = "none", .maker = "none",
		.kind = "accelerator",
		/* No node.accelerators: NVIDIA's variables, as before the
		 * table (the GPU binding checks the PCI ids it finds). */
		.visible_var = "CUDA_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_BIND,
		.order_var = "CUDA_DEVICE_ORDER", .ccl = "NCCL",
		.socket_var = "NCCL_SOCKET_IFNAME", .hca_var = "NCCL_IB_HCA",
		.gid_var = "NCCL_IB_GID_INDEX", .topo_var = "NCCL_TOPO_FILE",
		.ccl_exact = true, .mnnvl_var = "NCCL_MNNVL_ENABLE",
	},
	[SN_ACCEL_NVIDIA] = {
		.id = SN_ACCEL_NVIDIA, .name = "nvidia", .maker = "NVIDIA",
		.kind = "GPU", .pci_vendor = 0x10de,
		/* VGA and 3D controller; not NVSwitch (0x0680), bridges,
		 * HD audio (0x0403) */
		.classes = { 0x0300, 0x0302 },
		.device_glob = "nvidia[0-9]*",
		.api = SN_VENDOR_API_NVML, .library = "NVML",
		.lib_key = "nvml", .lib_defaults = { "libnvidia-ml.so.1" },
		.lib_install = "the NVIDIA driver's libnvidia-ml package",
		.link_name = "NVLink", .identity = SN_VENDOR_ID_NVML,
		.visible_var = "CUDA_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_BIND,
		.order_var = "CUDA_DEVICE_ORDER", .ccl = "NCCL",
		.socket_var = "NCCL_SOCKET_IFNAME", .hca_var = "NCCL_IB_HCA",
		.gid_var = "NCCL_IB_GID_INDEX", .topo_var = "NCCL_TOPO_FILE",
		.ccl_exact = true, .mnnvl_var = "NCCL_MNNVL_ENABLE",
	},
	[SN_ACCEL_ASCEND] = {
		.id = SN_ACCEL_ASCEND, .name = "ascend",
		.maker = "Huawei Ascend", .kind = "NPU", .pci_vendor = 0x19e5,
		/* processing accelerator; 19e5:a2xx are the Kunpeng CPU's
		 * on-chip engines (the ZIP engine 19e5:a250 is 0x1200 too) */
		.classes = { 0x1200 }, .skip_lo = 0xa200, .skip_hi = 0xa2ff,
		.device_glob = "davinci[0-9]*",
		.api = SN_VENDOR_API_LIB, .library = "DCMI",
		.lib_key = "dcmi",
		.lib_install = "the Ascend NPU driver package",
		/* MindCluster: the loader's path first, then the driver's */
		.lib_defaults = { "libdcmi.so",
				  "/usr/local/Ascend/driver/lib64/driver/libdcmi.so" },
		.link_name = "HCCS", .identity = SN_VENDOR_ID_DCMI,
		.visible_var = "ASCEND_RT_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "HCCL",
		/* CANN: "a string of fewer than 128 characters" that splits a
		 * physical SuperPoD into logical ones (hiascend.com CANN
		 * 8.5 envref_07_0100, HCCL_LOGIC_SUPERPOD_ID) */
		.logic_pod_var = "HCCL_LOGIC_SUPERPOD_ID",
		.socket_var = "HCCL_SOCKET_IFNAME", .socket_ip_var = "HCCL_IF_IP",
		.ccl_note = "HCCL takes its RDMA NICs from each NPU's own ports "
			    "(hccn.conf): no HCA, GID or topology variable",
	},
	[SN_ACCEL_HYGON] = {
		.id = SN_ACCEL_HYGON, .name = "hygon", .maker = "Hygon",
		.kind = "DCU", .pci_vendor = 0x1d94,
		.classes = { 0x0380, 0x0300, 0x0302, 0x0b40, 0x1200 },
		.device_glob = "dri/renderD*",
		.api = SN_VENDOR_API_LIB, .library = "ROCm SMI",
		.lib_key = "rocm_smi",
		.lib_install = "Hygon's DCU driver (hyhal) or DTK",
		/* $ROCM_SMI_LIB_PATH is not read: root never loads a library
		 * a job's environment names */
		.lib_defaults = { "/opt/hyhal/lib/librocm_smi64.so",
				  "/opt/dtk/.hyhal/rocm_smi/lib/librocm_smi64.so",
				  "librocm_smi64.so" },
		.link_name = "XGMI",
		.visible_var = "HIP_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "RCCL",
		/* RCCL reads NCCL's variable names (ROCm lineage) */
		.socket_var = "NCCL_SOCKET_IFNAME", .hca_var = "NCCL_IB_HCA",
		.gid_var = "NCCL_IB_GID_INDEX", .topo_var = "NCCL_TOPO_FILE",
		.ccl_exact = true,
	},
	[SN_ACCEL_CAMBRICON] = {
		.id = SN_ACCEL_CAMBRICON, .name = "cambricon",
		.maker = "Cambricon", .kind = "MLU", .pci_vendor = 0xcabc,
		.classes = { 0x1200, 0x0b40, 0x0380 },
		.device_glob = "cambricon_dev[0-9]*",
		.api = SN_VENDOR_API_LIB, .library = "CNDev",
		.lib_key = "cndev",
		.lib_install = "Cambricon's driver (Neuware)",
		.lib_defaults = { "/usr/local/neuware/lib64/libcndev.so",
				  "libcndev.so" },
		.link_name = "MLU-Link",
		.visible_var = "MLU_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "CNCL",
		.ccl_note = "CNCL's interface and HCA variables are not "
			    "published: none set",
	},
	[SN_ACCEL_MTHREADS] = {
		.id = SN_ACCEL_MTHREADS, .name = "mthreads",
		.maker = "Moore Threads", .kind = "GPU", .pci_vendor = 0x1ed5,
		.classes = { 0x0300, 0x0302, 0x0380, 0x1200 },
		.device_glob = "dri/renderD*",
		.api = SN_VENDOR_API_LIB, .library = "MTML",
		.lib_key = "mtml", .lib_defaults = { "libmtml.so" },
		.lib_install = "the Moore Threads driver (MTML)",
		.link_name = "MTLink",
		.visible_var = "MUSA_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "MCCL",
		.gid_var = "MCCL_IB_GID_INDEX",
		.ccl_note = "MCCL documents no interface or HCA variable: only "
			    "MCCL_IB_GID_INDEX set",
	},
	[SN_ACCEL_METAX] = {
		.id = SN_ACCEL_METAX, .name = "metax", .maker = "MetaX",
		.kind = "GPU", .pci_vendor = 0x9999,
		.classes = { 0x0300, 0x0302, 0x0380, 0x1200 },
		.device_glob = "dri/renderD*",
		.api = SN_VENDOR_API_LIB, .library = "MXSML",
		.lib_key = "mxsml",
		.lib_install = "the MetaX driver (mxdriver or MACA)",
		.lib_defaults = { "/opt/mxdriver/lib/libmxsml.so",
				  "/opt/maca/lib/libmxsml.so",
				  "/opt/mxn100/lib/libmxsml.so", "libmxsml.so" },
		.link_name = "MetaXLink",
		.visible_var = "CUDA_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "MCCL",
		.ccl_note = "MetaX's MCCL documents no interface or HCA "
			    "variable: none set",
	},
	[SN_ACCEL_KUNLUNXIN] = {
		.id = SN_ACCEL_KUNLUNXIN, .name = "kunlunxin",
		.maker = "Kunlunxin", .kind = "XPU", .pci_vendor = 0x1d22,
		.classes = { 0x1200, 0x0b40, 0x0380 },
		/* guess: HAMi's kunlun device lists /dev/xpu<N> */
		.device_glob = "xpu[0-9]*",
		.api = SN_VENDOR_API_LIB, .library = "XPUML",
		.lib_key = "xpuml",
		.lib_install = "the Kunlunxin XPU driver (XPUML)",
		.lib_defaults = { "libxpuml.so.1", "libxpuml.so" },
		.visible_var = "XPU_VISIBLE_DEVICES",
		.visible_mode = SN_VENDOR_VISIBLE_LIST, .ccl = "BKCL",
		.ccl_note = "BKCL documents no interface or HCA variable: none "
			    "set",
	},
	[SN_ACCEL_AMD] = {
		.id = SN_ACCEL_AMD, .name = "amd", .maker = "AMD",
		.kind = "GPU", .pci_vendor = 0x1002,
		/* Instinct MI100/MI200 are 0x0380, MI300 0x1200; not the
		 * HDMI audio function (0x0403) */
		.classes = { 0x0300, 0x0302, 0x0380, 0x1200 },
		.device_glob = "dri/renderD*",
		.link_name = "XGMI",
		/* HIP_VISIBLE_DEVICES is read (which GPUs a task has), not
		 * set: ROCm's GRES binding is Slurm's */
		.visible_var = "HIP_VISIBLE_DEVICES", .ccl = "RCCL",
		.socket_var = "NCCL_SOCKET_IFNAME", .hca_var = "NCCL_IB_HCA",
		.gid_var = "NCCL_IB_GID_INDEX", .topo_var = "NCCL_TOPO_FILE",
		.ccl_exact = true, .mnnvl_var = "NCCL_MNNVL_ENABLE",
	},
	[SN_ACCEL_OTHER] = {
		.id = SN_ACCEL_OTHER, .name = "other", .maker = "other",
		.kind = "accelerator",
		.classes = { 0x0b40, 0x1200 }, .any_display = true,
		/* an NCCL-compatible library is the common case */
		.visible_var = "CUDA_VISIBLE_DEVICES",
		.ccl = "NCCL", .socket_var = "NCCL_SOCKET_IFNAME",
		.hca_var = "NCCL_IB_HCA", .gid_var = "NCCL_IB_GID_INDEX",
		.topo_var = "NCCL_TOPO_FILE", .ccl_exact = true,
		.mnnvl_var = "NCCL_MNNVL_ENABLE",
	},
};

const struct sn_vendor *sn_vendor_of(enum sn_accel_vendor vendor)
{
	if ((unsigned)vendor >= SN_ACCEL_VENDOR_COUNT)
		return &vendors[SN_ACCEL_NONE];
	return &vendors[vendor];
}

int sn_vendor_parse(const char *name, enum sn_accel_vendor *out)
{
	for (unsigned i = SN_ACCEL_NONE + 1; i < SN_ACCEL_VENDOR_COUNT; i++) {
		if (!strcmp(name, vendors[i].name)) {
			*out = vendors[i].id;
			return 0;
		}
	}
	return -1;
}

bool sn_vendor_binds_pci(uint16_t pci_vendor)
{
	for (unsigned i = SN_ACCEL_NONE + 1; i < SN_ACCEL_VENDOR_COUNT; i++)
		if (vendors[i].pci_vendor == pci_vendor &&
		    vendors[i].visible_mode == SN_VENDOR_VISIBLE_BIND)
			return true;
	return false;
}

const char *sn_vendor_names(void)
{
	return "nvidia, ascend, hygon, cambricon, mthreads, metax, "
	       "kunlunxin, amd, other";
}

bool sn_vendor_class_accepted(const struct sn_vendor *v, uint16_t pci_vendor,
			      uint16_t device, uint32_t pci_class)
{
	uint32_t cls = (pci_class >> 8) & 0xffffu; /* base << 8 | sub */

	if (v->id == SN_ACCEL_NONE)
		return false;
	if (v->skip_hi && pci_vendor == v->pci_vendor && device >= v->skip_lo &&
	    device <= v->skip_hi)
		return false;
	if (v->any_display && (cls >> 8) == 0x03)
		return true;
	for (unsigned i = 0; i < SN_VENDOR_MAX_CLASSES && v->classes[i]; i++)
		if (cls == v->classes[i])
			return true;
	return false;
}

void sn_vendor_lib_missing(const struct sn_vendor *v, const char *path,
			   char *buf, size_t size)
{
	const char *s = v->maker[strlen(v->maker) - 1] == 's' ? "'" : "'s";
	char text[SN_ERROR_MAX + PATH_MAX];

	if (path && strchr(path, '/'))
		snprintf(
			text, sizeof(text),
			"%s%s %s library not found where paths.%s points: install %s, or correct paths.%s: %s",
			v->maker, s, v->library, v->lib_key, v->lib_install,
			v->lib_key, path);
	else
		snprintf(
			text, sizeof(text),
			"%s%s %s library (%s) not found: install %s, or set paths.%s",
			v->maker, s, v->library,
			path && *path ? path : "its default places",
			v->lib_install, v->lib_key);
	sn_error_cut(buf, size, text);
}

enum sn_vendor_identity sn_vendor_identity_of(const char *identity)
{
	if (identity && !strncmp(identity, "nvlink:", 7))
		return SN_VENDOR_ID_NVML;
	if (identity && !strncmp(identity, "ascend:", 7))
		return SN_VENDOR_ID_DCMI;
	return SN_VENDOR_ID_NONE;
}

const struct sn_vendor *sn_vendor_by_identity(enum sn_vendor_identity id)
{
	if (id == SN_VENDOR_ID_NONE)
		return NULL;
	for (unsigned i = 0; i < SN_ACCEL_VENDOR_COUNT; i++)
		if (vendors[i].identity == id)
			return &vendors[i];
	return NULL;
}
