/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PCIE_H
#define SN_PCIE_H

/*
 * PCIe link state of a PCI device, read from sysfs (judged by the link
 * check, checks/sn_check_pcie.h, shared by every device class: HCAs,
 * NVIDIA and other accelerators).
 *
 * Source documents:
 *   Documentation/ABI/testing/sysfs-bus-pci (current_link_speed,
 *   current_link_width, max_link_speed, max_link_width), written by
 *   drivers/pci/pci-sysfs.c; speed strings from pci_speed_string() in
 *   drivers/pci/probe.c: "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
 *   "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe", "Unknown"; kernels
 *   before 5.x wrote "2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s",
 *   "Unknown speed".  Widths are "%u" lanes.
 *
 * Also the bounded sysfs attribute reader used by ib_port.c (it would sit
 * better in a shared lib/sysfs.c; see the report that came with it).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- reading one sysfs attribute --------------------------------------- */

#define SN_ATTR_READ_MAX 4096 /* bytes read from one attribute file, at most */

/* What became of reading (and parsing) one attribute file. */
enum sn_attr {
	SN_ATTR_OK = 0,	     /* read; the parsed values are valid */
	SN_ATTR_MISSING,     /* no such file (ENOENT, ENOTDIR) */
	SN_ATTR_EMPTY,	     /* zero bytes, or white space only */
	SN_ATTR_UNREADABLE,  /* open/read failed otherwise (EACCES, the driver's
				 * EINVAL/EIO), or a first line longer than the
				 * caller's buffer */
	SN_ATTR_BAD,	     /* read, but not in the documented format
				 * (includes the kernel's "Unknown") */
	SN_ATTR_NOT_REGULAR, /* a FIFO, folder, socket, device or symbolic
				 * link (dangling or not): refused unread */
};

/*
 * sn_attr_read_line - read the first line of a sysfs attribute.
 * @path: the file; opened with sn_file_open_regular() (sn_file.h): never
 *	blocks (a FIFO planted in a fixture tree cannot hang the caller),
 *	never follows a final link, reads only regular files.
 * @buf, @size: receives the first line (at most SN_ATTR_READ_MAX bytes are
 *	read), without its newline and without leading/trailing white space;
 *	for SN_ATTR_NOT_REGULAR what the file is instead ("fifo", "folder",
 *	"socket", "symbolic link", "character device"; sn_file_kind());
 *	otherwise "".  size >= 2.
 *
 * Returns SN_ATTR_OK, MISSING, EMPTY, UNREADABLE or NOT_REGULAR; never BAD.
 */
enum sn_attr sn_attr_read_line(const char *path, char *buf, size_t size);

/*
 * sn_attr_name - "ok", "missing", "empty", "unreadable", "unparsable",
 * "not a regular file".
 */
const char *sn_attr_name(enum sn_attr s);

/*
 * SN_BDF_SIZE - bytes of a PCI address as sysfs writes it, "0000:5a:00.0",
 * with its NUL: the one size for it in lib/ and the adapters.  A VMD
 * domain has up to 8 hex digits ("10000:e1:00.0"): 16 characters, 17 with
 * the NUL; 20 leaves room.
 */
#define SN_BDF_SIZE 20

/* ---- one device's link attributes -------------------------------------- */

#define SN_PCIE_PATH_MAX 16 /* devices from an endpoint up to its root port */
#define SN_PCIE_TEXT_MAX 32 /* a speed string as the kernel wrote it */

/* One link attribute: how reading went, the value and the text it came from. */
struct sn_pcie_value {
	enum sn_attr status; /* OK: value is valid */
	uint32_t value;	     /* generation 1..6 (speeds), lanes (widths);
					 * 0 unless status is SN_ATTR_OK */
	char text[SN_PCIE_TEXT_MAX]; /* first line of the file ("16.0 GT/s PCIe") */
};

/* The four link attributes of one PCI device (one sysfs directory). */
struct sn_pcie_dev {
	char bdf[SN_BDF_SIZE];		/* "0000:5a:00.0" */
	struct sn_pcie_value cur_speed; /* current_link_speed -> generation */
	struct sn_pcie_value max_speed; /* max_link_speed -> generation */
	struct sn_pcie_value cur_width; /* current_link_width, lanes */
	struct sn_pcie_value max_width; /* max_link_width, lanes */
};

/*
 * The devices from one PCI device up towards the root: dev[0] is the
 * device itself, dev[i + 1] is the parent bridge of dev[i] (the sysfs
 * realpath parent directory while its name is a BDF).  At most
 * SN_PCIE_PATH_MAX devices; deeper trees are cut (truncated is set).
 */
struct sn_pcie_path {
	size_t n;
	bool truncated;
	struct sn_pcie_dev dev[SN_PCIE_PATH_MAX];
};

/*
 * sn_pcie_bdf_valid - true if s is a PCI address "DDDD:BB:DD.F" (domain of
 * 4 to 8 hex digits, as VMD domains have 5; lower case as sysfs writes it).
 */
bool sn_pcie_bdf_valid(const char *s);

/*
 * sn_pcie_speed_gen - PCIe generation of a link speed string:
 * 2.5 GT/s = 1, 5 = 2, 8 = 3, 16 = 4, 32 = 5, 64 = 6.  Accepts the new
 * ("16.0 GT/s PCIe") and old ("16 GT/s") kernel forms.  Returns 0 for
 * "Unknown", "Unknown speed", PCI-X / conventional PCI strings, any other
 * speed, and anything else.
 */
uint32_t sn_pcie_speed_gen(const char *text);

/* sn_pcie_gen_speed - "2.5 GT/s" .. "64.0 GT/s" for generations 1..6, else "?". */
const char *sn_pcie_gen_speed(uint32_t gen);

/*
 * sn_pcie_dev_read - read the link attributes in one device directory.
 * @dir: "<sysfs>/bus/pci/devices/<bdf>" or its realpath, at most PATH_MAX.
 * @bdf: copied into out->bdf (may be "" if unknown).
 * Never fails: every attribute carries its own status.  A width of 0, a
 * width that is not a lane count (1, 2, 4, 8, 12, 16, 32) or an unknown
 * speed gives SN_ATTR_BAD.
 */
void sn_pcie_dev_read(const char *dir, const char *bdf,
		      struct sn_pcie_dev *out);

/*
 * sn_pcie_path_read - read a device and every bridge above it.
 * @sysfs: sysfs root ("/sys" or a fixture tree).
 * @bdf: the device (validated with sn_pcie_bdf_valid).
 * Returns 0; -1 with errno set if bdf is invalid (EINVAL), the device is
 * not under <sysfs>/bus/pci/devices (ENOENT, ...) or a path does not fit
 * (ENAMETOOLONG).
 */
int sn_pcie_path_read(const char *sysfs, const char *bdf,
		      struct sn_pcie_path *out);

/*
 * sn_rdma_device_bdf - PCI address of an RDMA device, from the
 * <sysfs>/class/infiniband/<dev>/device symlink
 * (Documentation/ABI/stable/sysfs-class-infiniband).
 * @bdf: receives the address, SN_BDF_SIZE bytes.
 * Returns 0; -1 with errno set: ENOENT (no device or no device link),
 * EINVAL (bad name, or the link does not end in a PCI address, e.g. a
 * software device such as rxe or siw), ENAMETOOLONG.
 */
int sn_rdma_device_bdf(const char *sysfs, const char *dev,
		       char bdf[SN_BDF_SIZE]);

#endif
