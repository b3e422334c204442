/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hwloc: hwloc XML files (paths.hwloc_xml) through sn_topo_open():
 * our reading, the hwloc 3.0 translation and the pre-check, then hwloc's
 * own XML import; on success what the checks and the per-task settings
 * ask of a topology (accelerators, NICs, nearest NICs, nearness).
 * The file is written to tmpfs; the size's lowest bit picks the PCI vendor
 * filter (0 = any, or NVIDIA 0x10de).
 * Properties: accelerators are numbered 0..n-1, at most SN_MANIFEST_MAX_ACCELS;
 * every NIC is found again by its name.
 */
#include <stdint.h>
#include <string.h>

#include <hwloc.h>

#include "fuzz.h"
#include "inventory/sn_topo.h"

#define LOOK 8 /* accelerators x NICs asked about, at most */

static void use(const struct sn_topo *t)
{
	char names[4][SN_TOPO_NAME_MAX], why[SN_TOPO_WHY_MAX];
	const struct sn_topo_accel *a;
	const struct sn_topo_nic *nic;
	size_t na, nn;

	a = sn_topo_accels(t, &na);
	nic = sn_topo_nics(t, &nn);
	FZ_ASSERT(na <= SN_MANIFEST_MAX_ACCELS && nn <= SN_TOPO_MAX_NICS);
	for (size_t i = 0; i < nn && i < LOOK; i++)
		FZ_ASSERT(sn_topo_find_nic(t, nic[i].name));
	for (size_t i = 0; i < na && i < LOOK; i++) {
		FZ_ASSERT(a[i].index == i);
		FZ_ASSERT(sn_topo_nearest_nics(t, (unsigned)i, names, 4) >= 0);
		for (size_t k = 0; k < nn && k < LOOK; k++) {
			sn_topo_near(t, (unsigned)i, nic[k].name,
				     SN_NEAR_PCIE_SWITCH, why, sizeof(why));
			sn_topo_near(t, (unsigned)i, nic[k].name, SN_NEAR_NUMA,
				     why, sizeof(why));
		}
	}
	FZ_ASSERT(sn_topo_nearest_nics(t, (unsigned)na, names, 4) == -1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[PATH_MAX];
	struct sn_topo *t;
	struct sn_error err;

	if (!path[0]) {
		/*
		 * hwloc unloads its plugins (the libxml2 XML reader) when its
		 * last topology goes and loads them again for the next: keep
		 * one for the whole run, so they load once and a leak inside
		 * them is reported with their names.
		 */
		static hwloc_topology_t keep;

		if (hwloc_topology_init(&keep))
			abort();
		fz_path(path, sizeof(path), "topo.xml");
	}
	fz_write(path, data, size);
	t = sn_topo_open(path, size & 1 ? 0x10de : 0, &err);
	if (t) {
		use(t);
		sn_topo_close(t);
	} else {
		FZ_ASSERT(err.msg[0]);
	}
	return 0;
}
