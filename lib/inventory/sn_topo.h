/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_TOPO_H
#define SN_TOPO_H

/*
 * Node topology through hwloc: which accelerators and which RDMA NICs a
 * node has, and which NIC is near which accelerator.  Used by the prolog's
 * topology check (check_topo.c) and by the per-task NCCL/UCX settings.
 *
 * Source: an hwloc XML file (lstopo --of xml, hwloc 1.x, 2.x or 3.0
 * format) or live discovery of this machine.  See the hwloc documentation,
 * "Importing and exporting topologies from/to XML files" and "I/O
 * devices" (https://www.open-mpi.org/projects/hwloc/doc/).
 *
 * Accelerators are PCI functions, numbered 0..n-1 in PCI bus order
 * (domain, bus, device, function): the order of nvidia-smi / NVML indices
 * and of CUDA with CUDA_DEVICE_ORDER=PCI_BUS_ID.  A PCI function is an
 * accelerator when
 *   - pci_vendor is given: its vendor id matches and its class is display
 *     (0x03xx) or processing accelerator (0x12xx);
 *   - pci_vendor is 0: its class is 3D (0x0302), display (0x0380) or
 *     processing accelerator (0x12xx), or it is VGA (0x0300) and carries
 *     a co-processor OS device (CUDA, OpenCL, NVML, RSMI, LevelZero) - so
 *     the BMC's VGA chip is never counted.
 * NICs are hwloc OpenFabrics OS devices (mlx5_0, hfi1_0, rdmap197s0), and,
 * for a PCI function without one, its network OS device when named ib*
 * (ib0, ibp94s0).  A NIC is found by its RDMA name or its netdev name.
 *
 * A device's NUMA locality is the NUMA nodes of its first non-I/O ancestor
 * that hold CPUs: a NUMA node without CPUs (GPU memory on Grace Hopper or
 * POWER9, HBM, CXL or NVDIMM memory; hwloc gives it an empty cpuset or a
 * memory-tier subtype: GPUMemory, HBM, MCDRAM, NVM, SPM, CXL-DRAM) is never
 * anyone's locality, nor is one above every CPU's own node (hung off the
 * Machine, as hwloc places memory whose locality it cannot tell).
 * Nearest NICs go by the tree, where NUMA nodes are
 * memory children and never an I/O object's ancestor.
 */
#include <stddef.h>
#include <stdint.h>

#include "util/sn_error.h"
#include "config/sn_manifest.h"
#include "inventory/sn_pcie.h"

#define SN_TOPO_MAX_NICS 256 /* RDMA devices incl. VFs; more are ignored */
#define SN_TOPO_NAME_MAX 64  /* NIC / netdev name incl. NUL */
#define SN_TOPO_WHY_MAX 160  /* a sn_topo_near() explanation incl. NUL */
#define SN_TOPO_XML_MAX_BYTES (64u << 20) /* XML files larger are refused */

struct sn_topo; /* opaque; sn_topo_open() / sn_topo_close() */

/* One accelerator (a PCI function). */
struct sn_topo_accel {
	unsigned index;		 /* 0..n-1, PCI bus order */
	char busid[SN_BDF_SIZE]; /* "0000:07:00.0", lower case */
	uint16_t vendor;	 /* PCI vendor id, 0x10de */
	uint16_t device;	 /* PCI device id */
	uint16_t pci_class;	 /* PCI class and subclass, 0x0302 */
	int numa; /* NUMA node with CPUs (OS index), -1 if not exactly one */
};

/* One NIC (an RDMA device, or an IPoIB netdev without one). */
struct sn_topo_nic {
	char name[SN_TOPO_NAME_MAX];   /* "mlx5_0" (RDMA), else the netdev */
	char netdev[SN_TOPO_NAME_MAX]; /* "ib0", "ibp94s0"; "" if none */
	char busid[SN_BDF_SIZE];       /* of its PCI function; "" if unknown */
	int numa; /* NUMA node with CPUs (OS index), -1 if not exactly one */
};

/* The answer of sn_topo_near(). */
enum sn_topo_answer {
	SN_TOPO_UNKNOWN = -1, /* cannot tell: device absent, locality unknown */
	SN_TOPO_NO = 0,
	SN_TOPO_YES = 1,
};

/*
 * sn_topo_open - load a topology.
 * @xml_path:   an hwloc XML file, or NULL / "" to discover this machine
 * @pci_vendor: PCI vendor id of the accelerators; 0 = any (see above)
 * @err:        set on failure (may be NULL)
 *
 * XML files are read by us (at most SN_TOPO_XML_MAX_BYTES) and given to
 * hwloc from memory; hwloc 3.0 exports (<topology version="3.0">, which
 * hwloc 2.x refuses) are translated to the 2.x format on the way: the
 * version attribute and the osdev_type bit mask.  Live discovery keeps
 * all I/O objects, includes CPUs and NUMA nodes outside this process's
 * cgroup (so a job's cpuset does not blur locality) and does not load the
 * hwloc plugins that initialise GPU libraries (cuda, nvml, opencl, rsmi,
 * levelzero, gl: slow, and they can hang on a sick GPU) nor libpciaccess
 * ("pci": hwloc's Linux backend reads PCI from sysfs).
 * Note: hwloc itself honours HWLOC_* environment variables (e.g.
 * HWLOC_XMLFILE, HWLOC_PLUGINS_PATH) in live mode; a caller running in a
 * job's environment must scrub them first.
 *
 * An XML file that cannot be used is refused with errno EBADMSG and err
 * "bad hwloc XML file: WHY: PATH": it cannot be opened or read, is not a
 * regular file, is larger than SN_TOPO_XML_MAX_BYTES, has an object with
 * a cpuset but no complete_cpuset (hwloc 2.9 would crash), or hwloc does
 * not take it.  The pre-check before hwloc is one pass over the file:
 * linear in its size whatever it holds (tests/bench/topo_bench.c).
 *
 * A topology without any PCI device (exported without I/O, or discovered
 * where /sys/bus/pci is not visible) is refused with errno ENODATA: it
 * cannot answer.
 *
 * Returns a handle (free with sn_topo_close()) or NULL with err and errno
 * set (EBADMSG, ENODATA, or the error of hwloc's live discovery).
 */
struct sn_topo *sn_topo_open(const char *xml_path, uint16_t pci_vendor,
			     struct sn_error *err);

/* sn_topo_close - release a topology; NULL-safe. */
void sn_topo_close(struct sn_topo *topo);

/*
 * sn_topo_accels - the accelerators, in index order.  *n gets the count.
 * The array belongs to topo and lives until sn_topo_close().
 */
const struct sn_topo_accel *sn_topo_accels(const struct sn_topo *topo,
					   size_t *n);

/*
 * sn_topo_nics - the NICs, in PCI bus order (then name).  *n gets the
 * count.  The array belongs to topo and lives until sn_topo_close().
 */
const struct sn_topo_nic *sn_topo_nics(const struct sn_topo *topo, size_t *n);

/*
 * sn_topo_find_nic - a NIC by RDMA name ("mlx5_0") or netdev ("ib0").
 * Returns a pointer into topo, or NULL if there is no such NIC.
 */
const struct sn_topo_nic *sn_topo_find_nic(const struct sn_topo *topo,
					   const char *name);

/*
 * sn_topo_nearest_nics - the NICs nearest to one accelerator.
 * @names: receives up to max NIC names, in NIC order
 *
 * "Nearest" is the NICs whose lowest common ancestor with the accelerator
 * in the hwloc tree is closest to it: the same PCIe switch first, then the
 * same host bridge, NUMA node, package, and finally the machine (then every
 * NIC is equally far and all are returned).
 *
 * Returns the number of nearest NICs (may exceed max; only max are
 * written), 0 when the node has no NIC, or -1 if accel_index is out of
 * range.
 */
int sn_topo_nearest_nics(const struct sn_topo *topo, unsigned accel_index,
			 char (*names)[SN_TOPO_NAME_MAX], size_t max);

/*
 * sn_topo_near - is NIC nic near accelerator accel_index?
 * @how:      SN_NEAR_PCIE_SWITCH: their lowest common ancestor is a PCI
 *            bridge (a PCIe switch), so traffic never crosses the host
 *            bridge or CPU; SN_NEAR_NUMA: the same NUMA node(s) with
 *            CPUs (a shared PCIe switch implies it)
 * @why:      receives a one-line explanation naming both devices, e.g.
 *            "gpu0 0000:03:00.0 and mlx5_1 0000:04:00.0 share PCIe switch
 *            0000:01:00.0" or "gpu2 on NUMA 1, mlx5_0 on NUMA 0"; may be
 *            NULL; truncated to why_size
 *
 * Returns SN_TOPO_YES, SN_TOPO_NO, or SN_TOPO_UNKNOWN (no such
 * accelerator or NIC, or NUMA locality unknown or partly overlapping).
 */
enum sn_topo_answer sn_topo_near(const struct sn_topo *topo,
				 unsigned accel_index, const char *nic,
				 enum sn_nearness how, char *why,
				 size_t why_size);

/* sn_topo_nearness_name - "pcie_switch" or "numa" (the config words). */
const char *sn_topo_nearness_name(enum sn_nearness how);

#endif
