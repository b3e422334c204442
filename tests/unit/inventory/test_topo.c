/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_topo_* and sn_check_topology over hwloc XML: our hand-written
 * fixtures (tests/unit/fixtures/topo) and the real exports in
 * tests/unit/fixtures/hwloc.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "unit.h"

#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "util/sn_file.h"
#include "inventory/sn_topo.h"

#define OWN SN_FIXTURES "/topo/"
#define HWLOC SN_FIXTURES "/hwloc/"

static struct sn_topo *open_ok(const char *path, uint16_t vendor)
{
	struct sn_error err;
	struct sn_topo *t;

	err_reset(&err);
	t = sn_topo_open(path, vendor, &err);
	if (!t)
		fail_msg("%s: %s", path, err.msg);
	return t;
}

/* Open a real export of fixtures/hwloc. */
static struct sn_topo *open_real(const char *file, uint16_t vendor)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", HWLOC, file);
	return open_ok(path, vendor);
}

static void assert_accels(const struct sn_topo *t, const char *const *busids,
			  const int *numa, size_t n)
{
	size_t got;
	const struct sn_topo_accel *a = sn_topo_accels(t, &got);

	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].index, i);
		assert_string_equal(a[i].busid, busids[i]);
		if (numa)
			assert_int_equal(a[i].numa, numa[i]);
	}
}

/* The nearest NICs of accelerator i are exactly want (space-separated). */
static void assert_nearest(const struct sn_topo *t, unsigned i,
			   const char *want)
{
	char names[8][SN_TOPO_NAME_MAX], got[512] = "";
	int n = sn_topo_nearest_nics(t, i, names, 8);

	assert_true(n >= 0 && n <= 8);
	for (int k = 0; k < n; k++) {
		if (k)
			strcat(got, " ");
		strcat(got, names[k]);
	}
	assert_string_equal(got, want);
}

static void assert_near(const struct sn_topo *t, unsigned i, const char *nic,
			enum sn_nearness how, enum sn_topo_answer want,
			const char *why_has)
{
	char why[SN_TOPO_WHY_MAX];

	assert_int_equal(sn_topo_near(t, i, nic, how, why, sizeof(why)), want);
	if (why_has)
		assert_contains(why, why_has);
}

/* ---- our fixture ------------------------------------------------------ */

static const char *const small_busids[] = {
	"0000:07:00.0",
	"0000:0d:00.0",
	"0000:87:00.0",
	"0000:91:00.0",
};
static const int small_numa[] = { 0, 0, 1, 1 };

static void check_small(const struct sn_topo *t)
{
	size_t n;
	const struct sn_topo_nic *nics;

	/* the BMC VGA 0000:02:00.0 is no accelerator */
	assert_accels(t, small_busids, small_numa, 4);
	nics = sn_topo_nics(t, &n);
	assert_int_equal(n, 2);
	assert_string_equal(nics[0].name, "mlx5_0");
	assert_string_equal(nics[0].netdev, "ib0");
	assert_string_equal(nics[0].busid, "0000:0c:00.0");
	assert_int_equal(nics[0].numa, 0);
	assert_string_equal(nics[1].name, "mlx5_1");
	assert_string_equal(nics[1].netdev, "ibp140s0");
	assert_int_equal(nics[1].numa, 1);
	assert_ptr_equal(sn_topo_find_nic(t, "ibp140s0"), &nics[1]);
	assert_ptr_equal(sn_topo_find_nic(t, "mlx5_0"), &nics[0]);
	assert_null(sn_topo_find_nic(t, "mlx5_9"));
	assert_null(sn_topo_find_nic(t, ""));
}

static void test_small_xml(void **state)
{
	struct sn_topo *t = open_ok(OWN "small-4gpu-2nic.xml", 0x10de);

	(void)state;
	check_small(t);
	assert_nearest(t, 0, "mlx5_0");
	assert_nearest(t, 1, "mlx5_0");
	assert_nearest(t, 2, "mlx5_1");
	assert_nearest(t, 3, "mlx5_1");
	assert_int_equal(sn_topo_nearest_nics(t, 4, NULL, 0), -1);
	assert_near(
		t, 0, "mlx5_0", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
		"gpu0 0000:07:00.0 and mlx5_0 0000:0c:00.0 share PCIe switch 0000:05:00.0");
	assert_near(t, 2, "ibp140s0", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
		    "share PCIe switch 0000:85:00.0");
	assert_near(t, 3, "mlx5_1", SN_NEAR_PCIE_SWITCH, SN_TOPO_NO,
		    "meet at Package#1");
	assert_near(t, 3, "mlx5_1", SN_NEAR_NUMA, SN_TOPO_YES,
		    "gpu3 and mlx5_1 both on NUMA 1");
	assert_near(t, 2, "mlx5_0", SN_NEAR_NUMA, SN_TOPO_NO,
		    "gpu2 on NUMA 1, mlx5_0 on NUMA 0");
	assert_near(t, 9, "mlx5_0", SN_NEAR_NUMA, SN_TOPO_UNKNOWN,
		    "no accelerator 9 (4 in the topology)");
	assert_near(t, 0, "mlx5_7", SN_NEAR_NUMA, SN_TOPO_UNKNOWN,
		    "no NIC mlx5_7");
	assert_near(t, 0, NULL, SN_NEAR_NUMA, SN_TOPO_UNKNOWN, NULL);
	assert_int_equal(sn_topo_near(t, 0, "mlx5_0", SN_NEAR_NUMA, NULL, 0),
			 SN_TOPO_YES);
	sn_topo_close(t);
}

/* A few NICs but room for one name: the count says how many there were. */
static void test_nearest_truncated(void **state)
{
	char one[1][SN_TOPO_NAME_MAX];
	struct sn_topo *t = open_real("lassen-power9-4xV100-4xCX5.xml", 0);

	(void)state;
	assert_int_equal(sn_topo_nearest_nics(t, 0, one, 1), 2);
	assert_string_equal(one[0], "mlx5_0");
	assert_int_equal(sn_topo_nearest_nics(t, 0, NULL, 0), 2);
	sn_topo_close(t);
}

static void test_small_v3_translated(void **state)
{
	struct sn_topo *t = open_ok(OWN "small-4gpu-2nic.v3.xml", 0);

	(void)state;
	check_small(t);
	assert_near(t, 1, "ib0", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES, NULL);
	sn_topo_close(t);
}

static void test_refused(void **state)
{
	static const struct {
		const char *path;
		int err;
		const char *msg;
	} cases[] = {
		{ OWN "small-no-io.xml", ENODATA,
		  "the topology holds no PCI devices (exported without I/O, or /sys/bus/pci not visible): " OWN
		  "small-no-io.xml" },
		{ OWN "broken.xml", EBADMSG,
		  "bad hwloc XML file: hwloc " HWLOC_VERSION
		  " refused it (format 2): Invalid argument: " OWN
		  "broken.xml" },
		{ OWN "no-complete-cpuset.xml", EBADMSG,
		  "bad hwloc XML file: cpuset without complete_cpuset at byte 762: " OWN
		  "no-complete-cpuset.xml" },
		{ OWN "missing.xml", EBADMSG,
		  "bad hwloc XML file: cannot open: No such file or directory: " OWN
		  "missing.xml" },
		{ OWN, EBADMSG,
		  "bad hwloc XML file: not a regular file (folder): " OWN },
	};
	struct sn_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err_reset(&err);
		errno = 0;
		assert_null(sn_topo_open(cases[i].path, 0, &err));
		assert_int_equal(errno, cases[i].err);
		assert_string_equal(err.msg, cases[i].msg);
	}
	sn_topo_close(NULL);
}

/* Live discovery works here (a container: PCI devices, likely no GPU). */
static void test_live(void **state)
{
	struct sn_error err;
	struct sn_topo *t;
	size_t n;

	(void)state;
	err_reset(&err);
	t = sn_topo_open(NULL, 0x10de, &err);
	if (!t) {
		print_message("live topology unavailable here: %s\n", err.msg);
		skip();
	}
	sn_topo_accels(t, &n);
	assert_true(n <= SN_MANIFEST_MAX_ACCELS);
	sn_topo_close(t);
}

/* ---- real exports ----------------------------------------------------- */

/* JUWELS Booster: one HDR HCA per A100, under the same PCIe switch. */
static void test_juwels_booster(void **state)
{
	static const char *const bus[] = {
		"0000:03:00.0",
		"0000:44:00.0",
		"0000:84:00.0",
		"0000:c4:00.0",
	};
	static const int numa[] = { 3, 1, 7, 5 };
	static const char *const pair[] = { "mlx5_1", "mlx5_0", "mlx5_3",
					    "mlx5_2" };
	struct sn_topo *t =
		open_real("jwb0001-juwels-booster-4xA100-4xCX6.xml", 0x10de);

	(void)state;
	assert_accels(t, bus, numa, 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_nearest(t, i, pair[i]);
		assert_near(t, i, pair[i], SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
			    pair[i]);
		assert_near(t, i, pair[i], SN_NEAR_NUMA, SN_TOPO_YES, NULL);
		assert_near(t, i, pair[(i + 1) % 4], SN_NEAR_PCIE_SWITCH,
			    SN_TOPO_NO, "share no PCIe switch");
	}
	assert_near(
		t, 0, "mlx5_1", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
		"gpu0 0000:03:00.0 and mlx5_1 0000:04:00.0 share PCIe switch 0000:01:00.0");
	assert_near(t, 1, "ib1", SN_NEAR_NUMA, SN_TOPO_NO,
		    "gpu1 on NUMA 1, mlx5_1 on NUMA 3");
	sn_topo_close(t);
}

/* Dell XE8640: 4 H100, HCAs under two of the four GPU switches. */
static void test_ipa20_h100(void **state)
{
	static const char *const bus[] = {
		"0000:4e:00.0",
		"0000:5f:00.0",
		"0000:cb:00.0",
		"0000:db:00.0",
	};
	static const int numa[] = { 3, 1, 7, 5 };
	struct sn_topo *t = open_real("ipa20-4xH100-4xCX6-CX7.xml", 0x10de);
	const struct sn_topo_nic *nic;
	size_t n;

	(void)state;
	assert_accels(t, bus, numa, 4);
	sn_topo_nics(t, &n);
	assert_int_equal(n, 4);
	nic = sn_topo_find_nic(t, "ibp94s0");
	assert_non_null(nic);
	assert_string_equal(nic->name, "mlx5_2");
	assert_string_equal(nic->busid, "0000:5e:00.0");
	assert_nearest(t, 0, "mlx5_0 mlx5_1");
	assert_nearest(t, 1, "mlx5_2");
	assert_nearest(t, 2, "mlx5_3"); /* only the package is shared */
	assert_nearest(t, 3, "mlx5_3");
	assert_near(t, 3, "mlx5_3", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
		    "share PCIe switch 0000:d8:00.0");
	assert_near(t, 2, "mlx5_3", SN_NEAR_PCIE_SWITCH, SN_TOPO_NO,
		    "meet at L3Cache#1"); /* the package-wide L3 */
	assert_near(t, 2, "mlx5_3", SN_NEAR_NUMA, SN_TOPO_NO,
		    "gpu2 on NUMA 7, mlx5_3 on NUMA 5");
	sn_topo_close(t);
}

/* DGX-2H (hwloc 3.0 XML): 16 V100, NVSwitches are no GPUs, no NIC. */
static void test_dgx2h(void **state)
{
	struct sn_topo *t = open_real("dgx2h-16xV100-nvml.xml", 0x10de);
	const struct sn_topo_accel *a;
	size_t n;

	(void)state;
	a = sn_topo_accels(t, &n);
	assert_int_equal(n, 16);
	assert_string_equal(a[0].busid, "0000:34:00.0");
	assert_string_equal(a[15].busid, "0000:e7:00.0");
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].pci_class, 0x0302);
		assert_int_equal(a[i].numa, i < 8 ? 0 : 1);
		if (i)
			assert_true(strcmp(a[i - 1].busid, a[i].busid) < 0);
	}
	sn_topo_nics(t, &n);
	assert_int_equal(n, 0);
	assert_nearest(t, 0, "");
	assert_near(t, 0, "mlx5_0", SN_NEAR_NUMA, SN_TOPO_UNKNOWN, "no NIC");
	sn_topo_close(t);
}

/* Lassen (POWER9): GPUs and HCAs on separate PHBs, NUMA 0 and 8. */
static void test_lassen(void **state)
{
	static const char *const bus[] = {
		"0004:04:00.0",
		"0004:05:00.0",
		"0035:03:00.0",
		"0035:04:00.0",
	};
	static const int numa[] = { 0, 0, 8, 8 };
	struct sn_topo *t = open_real("lassen-power9-4xV100-4xCX5.xml", 0x10de);

	(void)state;
	assert_accels(t, bus, numa, 4);
	assert_nearest(t, 0, "mlx5_0 mlx5_1");
	assert_nearest(t, 3, "mlx5_2 mlx5_3");
	assert_near(t, 0, "mlx5_0", SN_NEAR_PCIE_SWITCH, SN_TOPO_NO,
		    "meet at Package#0");
	assert_near(t, 0, "hsi1", SN_NEAR_NUMA, SN_TOPO_YES,
		    "gpu0 and mlx5_1 both on NUMA 0");
	assert_near(t, 2, "mlx5_0", SN_NEAR_NUMA, SN_TOPO_NO,
		    "gpu2 on NUMA 8, mlx5_0 on NUMA 0");
	sn_topo_close(t);
}

/*
 * Lassen with its GPU memory as CPU-less NUMA nodes (topo/README.md): 252
 * and 253 in Package 0 after its own node 0, without a subtype; 6 and 7 in
 * Package 8 before its own node 8, subtype GPUMemory.  Neither kind is
 * anyone's locality: the GPUs and HCAs stay on NUMA 0 and 8, as on the
 * plain export (test_lassen).
 */
static void test_cpuless_numa(void **state)
{
	static const char *const bus[] = {
		"0004:04:00.0",
		"0004:05:00.0",
		"0035:03:00.0",
		"0035:04:00.0",
	};
	static const int numa[] = { 0, 0, 8, 8 };
	struct sn_topo *t = open_ok(OWN "lassen-gpumem-numa.xml", 0x10de);
	const struct sn_topo_nic *nic;
	char why[SN_TOPO_WHY_MAX];

	(void)state;
	assert_accels(t, bus, numa, 4);
	assert_non_null(nic = sn_topo_find_nic(t, "mlx5_0"));
	assert_int_equal(nic->numa, 0);
	assert_non_null(nic = sn_topo_find_nic(t, "mlx5_3"));
	assert_int_equal(nic->numa, 8);
	assert_nearest(t, 0, "mlx5_0 mlx5_1");
	assert_nearest(t, 3, "mlx5_2 mlx5_3");
	assert_near(t, 1, "mlx5_1", SN_NEAR_NUMA, SN_TOPO_YES,
		    "gpu1 and mlx5_1 both on NUMA 0");
	assert_near(t, 3, "mlx5_2", SN_NEAR_NUMA, SN_TOPO_YES,
		    "gpu3 and mlx5_2 both on NUMA 8");
	assert_near(t, 2, "mlx5_0", SN_NEAR_NUMA, SN_TOPO_NO,
		    "gpu2 on NUMA 8, mlx5_0 on NUMA 0");
	/* the whole answer: no 252-255 in it */
	assert_int_equal(sn_topo_near(t, 2, "mlx5_3", SN_NEAR_NUMA, why,
				      sizeof(why)),
			 SN_TOPO_YES);
	assert_string_equal(why, "gpu2 and mlx5_3 both on NUMA 8");
	sn_topo_close(t);
}

/*
 * Issue 17 item 14b: Lassen with its GPU memory as CPU-less NUMA nodes
 * 252-255 hung off the Machine with no subtype (topo/README.md), as on
 * Grace-Hopper-class nodes.  Each package's nodeset then holds them too;
 * they were counted as CPU nodes ("NUMA 8,252"), so a GPU and NIC of
 * different packages partly overlapped: UNKNOWN.  Only the NUMA nodes
 * some CPU is nearest to count: NO, naming the pair.
 */
static void test_cpuless_numa_machine(void **state)
{
	static const char *const bus[] = {
		"0004:04:00.0",
		"0004:05:00.0",
		"0035:03:00.0",
		"0035:04:00.0",
	};
	static const int numa[] = { 0, 0, 8, 8 };
	struct sn_topo *t =
		open_ok(OWN "lassen-gpumem-machine-numa.xml", 0x10de);
	const struct sn_topo_nic *nic;
	char why[SN_TOPO_WHY_MAX];

	(void)state;
	assert_accels(t, bus, numa, 4);
	assert_non_null(nic = sn_topo_find_nic(t, "mlx5_0"));
	assert_int_equal(nic->numa, 0);
	assert_non_null(nic = sn_topo_find_nic(t, "mlx5_3"));
	assert_int_equal(nic->numa, 8);
	assert_int_equal(sn_topo_near(t, 2, "mlx5_0", SN_NEAR_NUMA, why,
				      sizeof(why)),
			 SN_TOPO_NO);
	assert_string_equal(why, "gpu2 on NUMA 8, mlx5_0 on NUMA 0");
	assert_int_equal(sn_topo_near(t, 0, "mlx5_1", SN_NEAR_NUMA, why,
				      sizeof(why)),
			 SN_TOPO_YES);
	assert_string_equal(why, "gpu0 and mlx5_1 both on NUMA 0");
	sn_topo_close(t);
}

/* JURECA-DC CPU node: no accelerator of any vendor, one HCA. */
static void test_cpu_only(void **state)
{
	struct sn_topo *t =
		open_real("jrc0732-jureca-dc-cpu-only-1xCX6.xml", 0);
	const struct sn_topo_nic *nics;
	size_t n;

	(void)state;
	sn_topo_accels(t, &n);
	assert_int_equal(n, 0);
	nics = sn_topo_nics(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(nics[0].name, "mlx5_0");
	assert_string_equal(nics[0].netdev, "ib0");
	assert_int_equal(sn_topo_nearest_nics(t, 0, NULL, 0), -1);
	sn_topo_close(t);
}

/* 3 NVIDIA + 1 AMD (hwloc 3.0 XML); the Matrox VGA is no accelerator. */
static void test_mixed_vendors(void **state)
{
	static const char *const any[] = {
		"0000:03:00.0",
		"0000:83:00.0",
		"0000:84:00.0",
		"0000:84:00.1",
	};
	static const char *const amd[] = { "0000:84:00.1" };
	struct sn_topo *t = open_real("conan-mixed-nvidia-amd-gpu-cx4.xml", 0);

	(void)state;
	assert_accels(t, any, NULL, 4);
	sn_topo_close(t);
	t = open_real("conan-mixed-nvidia-amd-gpu-cx4.xml", 0x10de);
	assert_accels(t, any, NULL, 3);
	assert_near(t, 2, "mlx5_0", SN_NEAR_PCIE_SWITCH, SN_TOPO_YES,
		    "share PCIe switch 0000:80:03.0");
	sn_topo_close(t);
	t = open_real("conan-mixed-nvidia-amd-gpu-cx4.xml", 0x1002);
	assert_accels(t, amd, NULL, 1);
	sn_topo_close(t);
}

/* AMD MI50 (class 0380) and AWS T4 + EFA (RDMA device without netdev). */
static void test_amd_and_efa(void **state)
{
	struct sn_topo *t = open_real("corona-8xMI50-amd-1xCX6.xml", 0x1002);
	const struct sn_topo_nic *nics;
	size_t n;

	(void)state;
	sn_topo_accels(t, &n);
	assert_int_equal(n, 8);
	sn_topo_close(t);
	t = open_real("g4dnmetal-aws-8xT4-efa.xml", 0x10de);
	sn_topo_accels(t, &n);
	assert_int_equal(n, 8);
	nics = sn_topo_nics(t, &n);
	assert_int_equal(n, 1);
	assert_string_equal(nics[0].name, "rdmap197s0");
	assert_string_equal(nics[0].netdev, "");
	assert_nearest(t, 4, "rdmap197s0");
	sn_topo_close(t);
}

/* ---- sn_check_topology ------------------------------------------------ */

#define CFG_HEAD                                       \
	"supernodes:\n"                                \
	"  - {name: sn01, nodes: 'n[1-2]'}\n"          \
	"paths:\n"                                     \
	"  hwloc_xml: %s\n"                            \
	"node:\n"                                      \
	"  accelerators: {vendor: nvidia, count: 4}\n" \
	"  topology:\n"                                \
	"    nearness: %s\n"                           \
	"    pairs:\n"

struct check_run {
	struct sn_config *cfg;
	struct sn_results res;
};

static void run_check(struct check_run *run, const char *xml,
		      const char *nearness, const char *pairs)
{
	char yaml[2048];
	struct sn_check_ctx ctx;
	struct sn_error err;

	snprintf(yaml, sizeof(yaml), CFG_HEAD "%s", xml, nearness, pairs);
	err_reset(&err);
	run->cfg = sn_config_load_buffer("topo.yaml", yaml, strlen(yaml), &err);
	if (!run->cfg)
		fail_msg("%s", err.msg);
	if (sn_check_ctx_init(&ctx, run->cfg, "n1", &err))
		fail_msg("%s", err.msg);
	memset(&run->res, 0, sizeof(run->res));
	assert_int_equal(sn_check_topology(&ctx, &run->res), 0);
}

static void run_free(struct check_run *run)
{
	sn_results_free(&run->res);
	sn_config_free(run->cfg);
}

static void assert_result(const struct sn_result *r, enum sn_grade grade,
			  const char *code, const char *device,
			  const char *found_has)
{
	assert_int_equal(r->grade, grade);
	assert_string_equal(r->check, "topology");
	assert_string_equal(r->code, code);
	assert_string_equal(r->device, device);
	if (found_has)
		assert_contains(r->found, found_has);
}

static void test_check_right_pairs(void **state)
{
	struct check_run run;

	(void)state;
	run_check(&run, OWN "small-4gpu-2nic.xml", "pcie_switch",
		  "      - {accelerator: 0, nic: mlx5_0}\n"
		  "      - {accelerator: 1, nic: mlx5_0}\n"
		  "      - {accelerator: 2, nic: mlx5_1}\n");
	assert_int_equal(run.res.count, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(run.res.items[i].grade, SN_OK);
	assert_result(&run.res.items[0], SN_OK, "OK", "gpu0/mlx5_0",
		      "share PCIe switch 0000:05:00.0");
	assert_string_equal(run.res.items[0].expected,
			    "mlx5_0 near gpu0 (pcie_switch)");
	assert_int_equal(sn_results_worst(&run.res), SN_OK);
	run_free(&run);
}

static void test_check_wrong_pair(void **state)
{
	struct check_run run;

	(void)state;
	run_check(&run, OWN "small-4gpu-2nic.xml", "pcie_switch",
		  "      - {accelerator: 0, nic: mlx5_1}\n"
		  "      - {accelerator: 3, nic: mlx5_1}\n");
	assert_int_equal(run.res.count, 2);
	assert_result(
		&run.res.items[0], SN_CRIT, "TOPO_NIC_FAR", "gpu0/mlx5_1",
		"gpu0 0000:07:00.0 and mlx5_1 0000:8c:00.0 share no PCIe switch");
	assert_result(&run.res.items[1], SN_CRIT, "TOPO_NIC_FAR", "gpu3/mlx5_1",
		      "meet at Package#1");
	assert_int_equal(sn_results_worst(&run.res), SN_CRIT);
	run_free(&run);
}

static void test_check_numa(void **state)
{
	struct check_run run;

	(void)state;
	run_check(&run, OWN "small-4gpu-2nic.xml", "numa",
		  "      - {accelerator: 3, nic: mlx5_1}\n"
		  "      - {accelerator: 1, nic: ib0}\n"
		  "      - {accelerator: 2, nic: mlx5_0}\n");
	assert_int_equal(run.res.count, 3);
	assert_result(&run.res.items[0], SN_OK, "OK", "gpu3/mlx5_1",
		      "gpu3 and mlx5_1 both on NUMA 1");
	assert_result(&run.res.items[1], SN_OK, "OK", "gpu1/ib0",
		      "share PCIe switch");
	assert_result(&run.res.items[2], SN_CRIT, "TOPO_NIC_FAR", "gpu2/mlx5_0",
		      "gpu2 on NUMA 1, mlx5_0 on NUMA 0");
	run_free(&run);
}

/* The check on the same node: the wrong pair is CRIT, naming it (14b). */
static void test_check_cpuless_numa_machine(void **state)
{
	struct check_run run;

	(void)state;
	run_check(&run, OWN "lassen-gpumem-machine-numa.xml", "numa",
		  "      - {accelerator: 2, nic: mlx5_0}\n"
		  "      - {accelerator: 3, nic: mlx5_3}\n");
	assert_int_equal(run.res.count, 2);
	assert_result(&run.res.items[0], SN_CRIT, "TOPO_NIC_FAR", "gpu2/mlx5_0",
		      NULL);
	assert_string_equal(run.res.items[0].found,
			    "gpu2 on NUMA 8, mlx5_0 on NUMA 0");
	assert_result(&run.res.items[1], SN_OK, "OK", "gpu3/mlx5_3", NULL);
	assert_string_equal(run.res.items[1].found,
			    "gpu3 and mlx5_3 both on NUMA 8");
	assert_int_equal(sn_results_worst(&run.res), SN_CRIT);
	run_free(&run);
}

static void test_check_missing(void **state)
{
	struct check_run run;

	(void)state;
	/* the config says 4 accelerators; the node shows 3 NVIDIA ones */
	run_check(&run, HWLOC "conan-mixed-nvidia-amd-gpu-cx4.xml",
		  "pcie_switch",
		  "      - {accelerator: 3, nic: mlx5_0}\n"
		  "      - {accelerator: 2, nic: mlx5_4}\n");
	assert_int_equal(run.res.count, 2);
	assert_result(&run.res.items[0], SN_CRIT, "TOPO_ACCEL_MISSING",
		      "gpu3/mlx5_0",
		      "gpu3 absent: 3 accelerators (pci vendor 0x10de)");
	assert_result(&run.res.items[1], SN_CRIT, "TOPO_NIC_MISSING",
		      "gpu2/mlx5_4", "mlx5_4 absent; NICs: mlx5_0");
	run_free(&run);
}

static void test_check_unavailable(void **state)
{
	char want[SN_VALUE_MAX];
	struct check_run run;

	(void)state;
	run_check(&run, OWN "small-no-io.xml", "pcie_switch",
		  "      - {accelerator: 0, nic: mlx5_0}\n");
	assert_int_equal(run.res.count, 1);
	assert_result(&run.res.items[0], SN_UNKNOWN, "TOPO_UNAVAILABLE", "node",
		      "no PCI devices");
	run_free(&run);
	run_check(&run, OWN "does-not-exist.xml", "numa",
		  "      - {accelerator: 0, nic: mlx5_0}\n");
	assert_result(&run.res.items[0], SN_UNKNOWN, "TOPO_XML_BAD", "node",
		      NULL);
	sn_error_cut(
		want, sizeof(want),
		"bad hwloc XML file: cannot open: No such file or directory: " OWN
		"does-not-exist.xml");
	assert_string_equal(run.res.items[0].found, want);
	assert_contains(run.res.items[0].found, "/does-not-exist.xml");
	run_free(&run);
}

static void test_check_no_pairs(void **state)
{
	struct sn_config *cfg;
	struct sn_check_ctx ctx;
	struct sn_results res = { 0 };
	struct sn_error err;
	static const char yaml[] = "supernodes:\n  - {name: a, nodes: 'n1'}\n";

	(void)state;
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	assert_non_null(cfg);
	assert_int_equal(sn_check_ctx_init(&ctx, cfg, "n1", &err), 0);
	assert_int_equal(sn_check_topology(&ctx, &res), 0);
	assert_int_equal(res.count, 0);
	sn_config_free(cfg);
}

/* ---- garbage (issue 9 item 3) ------------------------------------------ */

static char garbage_dir[64];

static int garbage_setup(void **state)
{
	(void)state;
	snprintf(garbage_dir, sizeof(garbage_dir), "/tmp/sn-topo-XXXXXX");
	return mkdtemp(garbage_dir) ? 0 : -1;
}

static int garbage_teardown(void **state)
{
	char path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/garbage.xml", garbage_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/fifo.xml", garbage_dir);
	unlink(path);
	return rmdir(garbage_dir);
}

/* path = garbage_dir/garbage.xml holding n bytes of pattern repeated. */
static void garbage_write(char *path, size_t size, const char *pattern,
			  size_t n)
{
	size_t plen = strlen(pattern);
	char *buf = malloc(n);
	FILE *f;

	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern[i % plen];
	snprintf(path, size, "%s/garbage.xml", garbage_dir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, n, f), n);
	fclose(f);
	free(buf);
}

#define CORE \
	"<object type=\"Core\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\">"
#define CORES 16384 /* 1.2 MiB of them */

/*
 * 1 MiB of "<object a>" tags: the pre-check searched each tag's attributes
 * to the end of the file (seconds, quadratic: a check timeout and a drain
 * on a node with a 4 MiB file).  Now one UNKNOWN TOPO_XML_BAD saying the
 * file is bad, naming it last; tests/bench/topo_bench.c times it.
 */
static void test_check_garbage_is_bad_xml(void **state)
{
	char path[128], want[512];
	struct check_run run;

	(void)state;
	garbage_write(path, sizeof(path), "<object a>", 1u << 20);
	run_check(&run, path, "numa",
		  "      - {accelerator: 0, nic: mlx5_0}\n");
	assert_int_equal(run.res.count, 1);
	snprintf(
		want, sizeof(want),
		"bad hwloc XML file: hwloc %s refused it (format 0): Invalid argument: .../garbage.xml",
		HWLOC_VERSION);
	assert_result(&run.res.items[0], SN_UNKNOWN, "TOPO_XML_BAD", "node",
		      NULL);
	assert_string_equal(run.res.items[0].found, want);
	assert_string_equal(run.res.items[0].expected,
			    "a readable hwloc XML file");
	run_free(&run);

	/* an object without complete sets after 1 MiB of tags: named by offset */
	garbage_write(path, sizeof(path), CORE, strlen(CORE) * CORES);
	{
		FILE *f = fopen(path, "a");

		assert_non_null(f);
		fputs("<object type=\"PU\" cpuset=\"0x1\">", f);
		fclose(f);
	}
	run_check(&run, path, "numa",
		  "      - {accelerator: 0, nic: mlx5_0}\n");
	snprintf(
		want, sizeof(want),
		"bad hwloc XML file: cpuset without complete_cpuset at byte %zu: .../garbage.xml",
		strlen(CORE) * CORES);
	assert_result(&run.res.items[0], SN_UNKNOWN, "TOPO_XML_BAD", "node",
		      NULL);
	assert_string_equal(run.res.items[0].found, want);
	run_free(&run);
}

/* A FIFO as the XML file: refused at once (never waited on), bad file. */
static void test_check_fifo_is_bad_xml(void **state)
{
	char path[128], want[256];
	struct check_run run;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo.xml", garbage_dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	run_check(&run, path, "numa",
		  "      - {accelerator: 0, nic: mlx5_0}\n");
	snprintf(want, sizeof(want),
		 "bad hwloc XML file: not a regular file (fifo): %s", path);
	assert_result(&run.res.items[0], SN_UNKNOWN, "TOPO_XML_BAD", "node",
		      NULL);
	assert_string_equal(run.res.items[0].found, want);
	run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_xml),
		cmocka_unit_test(test_nearest_truncated),
		cmocka_unit_test(test_small_v3_translated),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_juwels_booster),
		cmocka_unit_test(test_ipa20_h100),
		cmocka_unit_test(test_dgx2h),
		cmocka_unit_test(test_lassen),
		cmocka_unit_test(test_cpuless_numa),
		cmocka_unit_test(test_cpuless_numa_machine),
		cmocka_unit_test(test_cpu_only),
		cmocka_unit_test(test_mixed_vendors),
		cmocka_unit_test(test_amd_and_efa),
		cmocka_unit_test(test_check_right_pairs),
		cmocka_unit_test(test_check_wrong_pair),
		cmocka_unit_test(test_check_numa),
		cmocka_unit_test(test_check_cpuless_numa_machine),
		cmocka_unit_test(test_check_missing),
		cmocka_unit_test(test_check_unavailable),
		cmocka_unit_test_setup_teardown(test_check_garbage_is_bad_xml,
						garbage_setup,
						garbage_teardown),
		cmocka_unit_test_setup_teardown(test_check_fifo_is_bad_xml,
						garbage_setup,
						garbage_teardown),
		cmocka_unit_test(test_check_no_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
