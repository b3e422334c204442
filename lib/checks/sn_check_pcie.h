/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHECK_PCIE_H
#define SN_CHECK_PCIE_H

/*
 * The PCIe link check shared by every device class (HCAs, NVIDIA and other
 * accelerators), over the link attributes of inventory/sn_pcie.h.
 */
#include <stdbool.h>
#include <stdint.h>

#include "checks/sn_check.h"

/*
 * sn_pcie_check - judge a device's PCIe link (field case 9).
 * @sysfs: sysfs root.
 * @bdf: the device, e.g. "0000:5a:00.0".
 * @device_label: the device column of the results ("mlx5_2 0000:5a:00.0",
 *	"gpu0 0000:1b:00.0"); NULL = the bdf.
 * @min_gen, @min_width: the manifest's minimum for the device's own link;
 *	0 = not checked.
 * @check_speed: judge speeds at all (false for GPUs, which idle at a lower
 *	generation: then min_gen is ignored and only widths are judged).
 *
 * The devices from @bdf to the root port come in links of two: (device,
 * its parent), then (switch upstream port, the port above it), and so on;
 * a switch's upstream-to-downstream step is internal and not a link.  For
 * each link the lower end's current value is compared with
 * min(lower end's max, upper end's max): a Gen5 card in a Gen4 slot passes,
 * a link trained below what both ends can do is CRIT.  A device without a
 * PCI parent is judged against the manifest minimum only.
 *
 * Appends to @out (check "pcie"): CRIT PCIE_WIDTH / PCIE_SPEED per failing
 * comparison; UNKNOWN PCIE_UNKNOWN per attribute that is missing, empty,
 * unreadable or "Unknown" (never CRIT); or, when nothing else was appended,
 * one OK result with code "OK".  Returns 0, or -1 if @out is full.
 */
int sn_pcie_check(const char *sysfs, const char *bdf, const char *device_label,
		  uint32_t min_gen, uint32_t min_width, bool check_speed,
		  struct sn_results *out);

#endif
