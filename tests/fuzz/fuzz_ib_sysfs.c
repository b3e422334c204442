/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_ib_sysfs: InfiniBand/RoCE sysfs attribute values and counters as
 * the prolog and the epilog read them.  The input, cut at NUL bytes, is
 * the content of these files of a fake sysfs tree on tmpfs (a part that
 * is not there makes its file missing):
 *   0 state  1 phys_state  2 rate  3 link_layer  4 gids/0
 *   5 gid_attrs/types/0  6 gid_attrs/ndevs/0  7 class/net/{eth0,bond0}/operstate
 *   8 counters/symbol_error  9 counters/port_xmit_data
 *   10 counters/link_downed  11 hw_counters/out_of_buffer
 * Read through sn_ib_port_read, sn_ib_gid_read, sn_ib_find_roce_v2,
 * sn_ib_port_netdev, sn_net_operstate and sn_ib_port_counters_json (start
 * snapshot; the end snapshot has the counter values rotated by one), the
 * deltas through sn_delta_counter/sn_delta_bytes, the whole port check
 * (sn_check_ports: mlx5_0 as InfiniBand, mlx5_1 -> mlx5_0 as RoCE), and
 * each part once more straight into the string parsers (state, phys_state,
 * rate, PCIe speed).
 *
 * Properties: parsed values are in their documented ranges; a known delta
 * is end - start with end >= start.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "records/sn_delta.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_pcie.h"

#define PORT "sys/class/infiniband/mlx5_0/ports/1/"
#define NPARTS 12

static const char *const files[NPARTS] = {
	PORT "state",
	PORT "phys_state",
	PORT "rate",
	PORT "link_layer",
	PORT "gids/0",
	PORT "gid_attrs/types/0",
	PORT "gid_attrs/ndevs/0",
	"sys/class/net/eth0/operstate",
	PORT "counters/symbol_error",
	PORT "counters/port_xmit_data",
	PORT "counters/link_downed",
	PORT "hw_counters/out_of_buffer",
};

static const char *const counter_names[4] = {
	"symbol_error",
	"port_xmit_data",
	"link_downed",
	"out_of_buffer",
};

static struct sn_config *fz_cfg;
static struct sn_check_ctx fz_ctx;

static void mkdirs(const char *rel)
{
	char path[PATH_MAX];

	fz_path(path, sizeof(path), rel);
	for (char *p = path + strlen(fz_scratch()) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	mkdir(path, 0700);
}

static void setup(void)
{
	static const char yaml[] =
		"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
		"node:\n  ports:\n"
		"    - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}\n"
		"    - {device: mlx5_1, port: 1, link_layer: Ethernet, min_rate_gbps: 200, gid_index: 0}\n";
	char path[PATH_MAX], net[PATH_MAX];
	struct sn_error err;

	mkdirs(PORT "counters");
	mkdirs(PORT "hw_counters");
	mkdirs(PORT "gids");
	mkdirs(PORT "gid_attrs/types");
	mkdirs(PORT "gid_attrs/ndevs");
	mkdirs("sys/class/net/eth0");
	symlink("mlx5_0",
		fz_path(path, sizeof(path), "sys/class/infiniband/mlx5_1"));
	symlink("eth0", fz_path(net, sizeof(net), "sys/class/net/bond0"));
	fz_cfg = sn_config_load_buffer("fuzz.yaml", yaml, strlen(yaml), &err);
	if (!fz_cfg) {
		fprintf(stderr, "fuzz_ib_sysfs: %s\n", err.msg);
		abort();
	}
	fz_ctx.cfg = fz_cfg;
	fz_ctx.nodename = "a1";
	fz_path(fz_ctx.sysfs, sizeof(fz_ctx.sysfs), "sys");
}

/* File i holds part (or is missing when part is NULL). */
static void put(size_t i, const char *part)
{
	char path[PATH_MAX];

	fz_path(path, sizeof(path), files[i]);
	if (part)
		fz_write(path, part, strlen(part));
	else
		unlink(path);
}

static void parse_direct(const char *s)
{
	char name[SN_IB_NAME_MAX], speed[SN_IB_SPEED_MAX];
	unsigned phys, width;
	double gbps;
	int state;

	if (!sn_ib_parse_state(s, &state, name))
		FZ_ASSERT(state >= 0 && state <= 999 &&
			  memchr(name, 0, sizeof(name)));
	if (!sn_ib_parse_phys(s, &phys, name))
		FZ_ASSERT(phys <= 999 && name[0]);
	if (!sn_ib_parse_rate(s, &gbps, &width, speed)) {
		FZ_ASSERT(gbps >= 0 && gbps < 1e6);
		FZ_ASSERT(width == 1 || width == 2 || width == 4 ||
			  width == 8 || width == 12);
		FZ_ASSERT(memchr(speed, 0, sizeof(speed)));
	}
	sn_pcie_speed_gen(s);
}

static void port_reads(void)
{
	char ifname[SN_IFNAME_MAX], oper[32];
	struct sn_ib_port p;
	struct sn_ib_gid g;

	FZ_ASSERT(!sn_ib_port_read(fz_ctx.sysfs, "mlx5_0", 1, &p));
	if (p.rate.status == SN_ATTR_OK)
		FZ_ASSERT(p.width >= 1 && p.width <= 12);
	sn_ib_gid_read(fz_ctx.sysfs, "mlx5_0", 1, 0, &g);
	sn_ib_gid_is_roce_v2(&g);
	sn_ib_find_roce_v2(fz_ctx.sysfs, "mlx5_0", 1, &g);
	if (sn_ib_port_netdev(fz_ctx.sysfs, "mlx5_0", 1, 0, ifname) ==
	    SN_ATTR_OK)
		sn_net_operstate(fz_ctx.sysfs, ifname, oper, sizeof(oper));
}

static void deltas(json_object *start, json_object *end)
{
	static const char *const groups[4] = {
		"counters",
		"counters",
		"counters",
		"hw_counters",
	};

	for (size_t i = 0; i < 4; i++) {
		json_object *s =
			sn_json_get(start, groups[i], json_type_object);
		json_object *e = sn_json_get(end, groups[i], json_type_object);
		struct sn_sample a = sn_sample_get(s, counter_names[i]);
		struct sn_sample b = sn_sample_get(e, counter_names[i]);
		struct sn_delta d = sn_delta_counter(counter_names[i], s, e);

		if (d.known) {
			FZ_ASSERT(a.state == SN_SAMPLE_OK &&
				  b.state == SN_SAMPLE_OK);
			FZ_ASSERT(b.value >= a.value &&
				  d.value == b.value - a.value);
		} else {
			FZ_ASSERT(d.why_unknown[0]);
		}
		sn_delta_bytes(counter_names[i], d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sn_results res = { 0 };
	json_object *start, *end;
	char *parts[NPARTS];
	size_t n;
	char *copy;

	if (!fz_cfg)
		setup();
	copy = fz_split(data, size, parts, NPARTS, &n);
	for (size_t i = 0; i < NPARTS; i++)
		put(i, i < n ? parts[i] : NULL);
	port_reads();
	sn_check_ports(&fz_ctx, &res);
	sn_results_free(&res);

	start = sn_ib_port_counters_json(fz_ctx.sysfs, "mlx5_0", 1);
	for (size_t i = 8; i < NPARTS; i++) {
		size_t from = 8 + (i - 8 + 1) % 4;

		put(i, from < n ? parts[from] : NULL);
	}
	end = sn_ib_port_counters_json(fz_ctx.sysfs, "mlx5_0", 1);
	FZ_ASSERT(start && end);
	deltas(start, end);
	json_object_put(start);
	json_object_put(end);

	for (size_t i = 0; i < n; i++)
		parse_direct(parts[i]);
	free(copy);
	return 0;
}
