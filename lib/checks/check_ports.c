/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_check_ports - the node.ports check group (field cases 7, 8 and 9).
 *
 * For every port of the manifest, in order: present (IB_PORT_MISSING),
 * link layer as configured (IB_LINK_LAYER; a mismatch ends that port's
 * checks: an Ethernet port is never judged by InfiniBand rules and the
 * other way round), state ACTIVE (IB_PORT_DOWN), phys_state LinkUp
 * (IB_PORT_PHYS), rate >= min_rate_gbps (IB_PORT_RATE; only on a trained
 * link, a port that is not LinkUp reports a meaningless rate), and for
 * Ethernet (RoCE) ports the netdev up (ROCE_NETDEV_DOWN) and a RoCE v2 GID
 * (ROCE_GID_MISSING).  On the live system (paths.sysfs is "/sys")
 * libibverbs is asked too; a disagreement is WARN IB_VERBS_MISMATCH.
 * The HCA's PCIe link goes through sn_pcie_check() when pcie_min_gen or
 * pcie_min_width is set (speed included: HCAs do not idle at a lower gen).
 *
 * Path MTU (min_mtu set): below it is CRIT PORT_MTU with both values in
 * the phrase.  InfiniBand: the active MTU from libibverbs, the one source
 * the kernel gives (sysfs has no MTU attribute for IB ports); judged only
 * on a trained link, like the rate.  RoCE: derived from the GID's netdev
 * MTU as the kernel derives it (sn_roce_path_mtu(), iboe_get_mtu()), on
 * any state: the netdev MTU is configuration, not link state.  On a tree
 * other than /sys the verbs answer comes from supernode-live/ (sn_ib_port.h).
 *
 * The collective library's socket interface (env.socket_ifname, exported
 * as the vendor's NCCL_SOCKET_IFNAME / HCCL_SOCKET_IFNAME / ...): check
 * "net_iface", device the interface.  Missing or not up is CRIT
 * SOCKET_IFACE_DOWN; up without an IPv4 or non-link-local IPv6 address is
 * CRIT SOCKET_IFACE_NO_ADDR (a bootstrap over it cannot connect); operstate
 * "unknown" (no carrier reporting: some bonds, VLANs) counts as up, as in
 * the job environment.  Judged whether or not ports are listed.
 *
 * Results: check "ib_port", device "mlx5_2/1", one short phrase each in
 * expected and found, so that "CODE device found expected <expected>" is a
 * drain reason.  A file that cannot be read gives UNKNOWN with the path.
 * Every listed port must be present and pass (7 of 8 is CRIT); ports not
 * listed are not looked at.  One OK result per port that passed.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "config/sn_socket_iface.h"
#include "util/sn_file.h"
#include "inventory/sn_ib_port.h"
#include "checks/sn_check_pcie.h"
#include "inventory/sn_netif.h"
#include "inventory/sn_pcie.h"

#define CHECK "ib_port"

/* One manifest port being judged. */
struct judge {
	const struct sn_check_ctx *ctx;
	const struct sn_port_manifest *m;
	struct sn_results *out;
	struct sn_ib_port p;
	char device[SN_DEVICE_MAX];  /* "mlx5_2/1" */
	char ok_extra[SN_VALUE_MAX]; /* RoCE part of the OK phrase */
	int rc;
};

static void add(struct judge *j, enum sn_grade g, const char *code,
		const char *expected, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add(struct judge *j, enum sn_grade g, const char *code,
		const char *expected, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (sn_results_vadd(j->out, g, CHECK, code, j->device, expected, fmt,
			    ap))
		j->rc = -1;
	va_end(ap);
}

/*
 * A phrase followed by a path: when both do not fit in SN_VALUE_MAX, the
 * path loses its head at a '/' ("cannot read gids (missing): .../sys/class/
 * infiniband/mlx5_bond_0/ports/1/gids"), as its tail names the file (the
 * cut of sn_results_add).
 */
static void add_path(struct judge *j, enum sn_grade g, const char *code,
		     const char *expected, const char *phrase, const char *path)
{
	add(j, g, code, expected, "%s: %s", phrase, path);
}

/*
 * "cannot read rate (missing)", or, for a file refused unread, "state not
 * a regular file (fifo)" (text holds what it is).
 */
static void read_phrase(char *buf, size_t size, const char *attr,
			enum sn_attr status, const char *text)
{
	if (status == SN_ATTR_NOT_REGULAR)
		snprintf(buf, size, "%s not a regular file (%s)", attr, text);
	else
		snprintf(buf, size, "cannot read %s (%s)", attr,
			 sn_attr_name(status));
}

/*
 * UNKNOWN for an attribute that could not be read ("cannot read rate
 * (missing): /sys/class/infiniband/mlx5_2/ports/1/rate") or parsed
 * ("cannot parse rate '40 Gb/s'").
 */
static void unreadable(struct judge *j, const char *code, const char *expected,
		       const char *attr, const struct sn_ib_attr *a)
{
	char phrase[SN_VALUE_MAX], path[PATH_MAX];

	if (a->status == SN_ATTR_BAD) {
		add(j, SN_UNKNOWN, code, expected, "cannot parse %s '%s'", attr,
		    a->text);
		return;
	}
	read_phrase(phrase, sizeof(phrase), attr, a->status, a->text);
	if (snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/%s",
		     j->ctx->sysfs, j->p.dev, j->p.port,
		     attr) >= (int)sizeof(path))
		snprintf(path, sizeof(path), "(path too long)");
	add_path(j, SN_UNKNOWN, code, expected, phrase, path);
}

static const char *layer_name(enum sn_link_layer l)
{
	return l == SN_LINK_ETHERNET ? "Ethernet" : "InfiniBand";
}

/* -1: stop judging this port. */
static int judge_presence(struct judge *j)
{
	if (!j->p.dev_present) {
		add(j, SN_CRIT, "IB_PORT_MISSING", "present", "no such device");
		return -1;
	}
	if (!j->p.present) {
		add(j, SN_CRIT, "IB_PORT_MISSING", "present", "no such port");
		return -1;
	}
	return 0;
}

/* -1: the port is of the other link layer, stop judging it. */
static int judge_layer(struct judge *j)
{
	const char *want = layer_name(j->m->link_layer);

	if (j->p.link_layer.status != SN_ATTR_OK) {
		unreadable(j, "IB_LINK_LAYER", want, "link_layer",
			   &j->p.link_layer);
		return 0;
	}
	if (j->p.layer == j->m->link_layer)
		return 0;
	add(j, SN_CRIT, "IB_LINK_LAYER", want, "link_layer=%s",
	    layer_name(j->p.layer));
	return -1;
}

/* "INIT", or "4: ACTIVE" when the name is not the kernel's for the number. */
static void state_phrase(char *buf, size_t size, long num, const char *name,
			 const char *kernel_name)
{
	if (!strcmp(name, kernel_name))
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%ld: %s", num, name);
}

/*
 * A number outside the kernel's table is read but not a state: UNKNOWN
 * naming it ("state number 9 unknown ('9: ACTIVE')"), never CRIT.
 * Returns 1 when that was the case.
 */
static int unknown_number(struct judge *j, const char *code,
			  const char *expected, const char *attr,
			  const struct sn_ib_attr *a, long num, bool known)
{
	if (a->status != SN_ATTR_BAD || known)
		return 0;
	add(j, SN_UNKNOWN, code, expected, "%s number %ld unknown ('%s')", attr,
	    num, a->text);
	return 1;
}

static void judge_state(struct judge *j)
{
	char name[SN_VALUE_MAX];
	const char *hint = "";
	int num;

	if (j->p.state.status == SN_ATTR_BAD &&
	    !sn_ib_parse_state(j->p.state.text, &num, name) &&
	    unknown_number(j, "IB_PORT_DOWN", "ACTIVE", "state", &j->p.state,
			   num, sn_ib_state_known(num)))
		return;
	if (j->p.state.status != SN_ATTR_OK) {
		unreadable(j, "IB_PORT_DOWN", "ACTIVE", "state", &j->p.state);
		return;
	}
	if (j->p.state_num == SN_IB_STATE_ACTIVE)
		return;
	if (j->p.state_num == SN_IB_STATE_INIT &&
	    j->m->link_layer == SN_LINK_INFINIBAND)
		hint = " (no subnet manager?)";
	state_phrase(name, sizeof(name), j->p.state_num, j->p.state_name,
		     sn_ib_state_name(j->p.state_num));
	add(j, SN_CRIT, "IB_PORT_DOWN", "ACTIVE", "state=%s%s", name, hint);
}

static void judge_phys(struct judge *j)
{
	char name[SN_VALUE_MAX];
	const char *hint = "";
	unsigned num;

	if (j->p.phys.status == SN_ATTR_BAD &&
	    !sn_ib_parse_phys(j->p.phys.text, &num, name) &&
	    unknown_number(j, "IB_PORT_PHYS", "LinkUp", "phys_state",
			   &j->p.phys, num, sn_ib_phys_known(num)))
		return;
	if (j->p.phys.status != SN_ATTR_OK) {
		unreadable(j, "IB_PORT_PHYS", "LinkUp", "phys_state",
			   &j->p.phys);
		return;
	}
	if (j->p.phys_num == SN_IB_PHYS_LINKUP)
		return;
	if (j->p.phys_num == SN_IB_PHYS_POLLING)
		hint = " (cable or peer)";
	state_phrase(name, sizeof(name), j->p.phys_num, j->p.phys_name,
		     sn_ib_phys_name(j->p.phys_num));
	add(j, SN_CRIT, "IB_PORT_PHYS", "LinkUp", "phys_state=%s%s", name,
	    hint);
}

static void judge_rate(struct judge *j)
{
	char expected[SN_VALUE_MAX];

	if (j->m->min_rate_gbps <= 0)
		return;
	if (j->p.phys.status == SN_ATTR_OK &&
	    j->p.phys_num != SN_IB_PHYS_LINKUP)
		return; /* an untrained link has no real rate */
	snprintf(expected, sizeof(expected), ">= %g Gb/sec",
		 j->m->min_rate_gbps);
	if (j->p.rate.status != SN_ATTR_OK) {
		unreadable(j, "IB_PORT_RATE", expected, "rate", &j->p.rate);
		return;
	}
	if (j->p.rate_gbps < j->m->min_rate_gbps)
		add(j, SN_CRIT, "IB_PORT_RATE", expected, "%s", j->p.rate.text);
}

/* ---- RoCE -------------------------------------------------------------- */

static void judge_netdev(struct judge *j)
{
	char ifname[SN_IFNAME_MAX], oper[32];
	enum sn_attr st;
	size_t n;

	if (sn_ib_port_netdev(j->ctx->sysfs, j->p.dev, j->p.port,
			      j->m->gid_index, ifname) != SN_ATTR_OK) {
		add(j, SN_UNKNOWN, "ROCE_NETDEV_DOWN", "netdev up",
		    "cannot find netdev (no gid_attrs/ndevs, no device/net)");
		return;
	}
	st = sn_net_operstate(j->ctx->sysfs, ifname, oper, sizeof(oper));
	if (st != SN_ATTR_OK) {
		char phrase[SN_VALUE_MAX], path[PATH_MAX];

		read_phrase(phrase, sizeof(phrase), "operstate", st, oper);
		if (snprintf(path, sizeof(path), "%s/class/net/%s/operstate",
			     j->ctx->sysfs, ifname) >= (int)sizeof(path))
			snprintf(path, sizeof(path), "(path too long)");
		add_path(j, SN_UNKNOWN, "ROCE_NETDEV_DOWN", "netdev up", phrase,
			 path);
		return;
	}
	if (strcmp(oper, "up")) {
		add(j, SN_CRIT, "ROCE_NETDEV_DOWN", "netdev up",
		    "%s operstate=%s", ifname, oper);
		return;
	}
	n = strlen(j->ok_extra);
	snprintf(j->ok_extra + n, sizeof(j->ok_extra) - n, " %s up", ifname);
}

/* gids/ of the port is not a directory: the table cannot be read at all. */
static int gid_table_unreadable(struct judge *j, const char *expected)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gids",
		     j->ctx->sysfs, j->p.dev, j->p.port) >= (int)sizeof(path))
		return 1;
	if (!access(path, X_OK))
		return 0;
	add_path(j, SN_UNKNOWN, "ROCE_GID_MISSING", expected,
		 errno == ENOENT || errno == ENOTDIR ?
			 "cannot read gids (missing)" :
			 "cannot read gids (unreadable)",
		 path);
	return 1;
}

static void ok_gid(struct judge *j, unsigned index)
{
	size_t n = strlen(j->ok_extra);

	snprintf(j->ok_extra + n, sizeof(j->ok_extra) - n, ", RoCE v2 GID %u",
		 index);
}

/* The configured gid_index must hold a used RoCE v2 GID. */
static void judge_gid_at(struct judge *j, unsigned index)
{
	char expected[SN_VALUE_MAX];
	struct sn_ib_gid g;

	snprintf(expected, sizeof(expected), "RoCE v2 at GID %u", index);
	if (gid_table_unreadable(j, expected))
		return;
	sn_ib_gid_read(j->ctx->sysfs, j->p.dev, j->p.port, index, &g);
	if (g.status == SN_ATTR_MISSING)
		add(j, SN_CRIT, "ROCE_GID_MISSING", expected, "no GID %u",
		    index);
	else if (g.status != SN_ATTR_OK)
		add(j, SN_UNKNOWN, "ROCE_GID_MISSING", expected,
		    "cannot read gids/%u (%s)", index, sn_attr_name(g.status));
	else if (g.empty)
		add(j, SN_CRIT, "ROCE_GID_MISSING", expected, "GID %u empty",
		    index);
	else if (g.type_status != SN_ATTR_OK)
		add(j, SN_UNKNOWN, "ROCE_GID_MISSING", expected,
		    "cannot read gid_attrs/types/%u (%s)", index,
		    sn_attr_name(g.type_status));
	else if (!sn_ib_gid_is_roce_v2(&g))
		add(j, SN_CRIT, "ROCE_GID_MISSING", expected, "GID %u type=%s",
		    index, g.type);
	else
		ok_gid(j, index);
}

static void judge_gid_any(struct judge *j)
{
	const char *expected = "a RoCE v2 GID";
	struct sn_ib_gid g;
	int index;

	if (gid_table_unreadable(j, expected))
		return;
	index = sn_ib_find_roce_v2(j->ctx->sysfs, j->p.dev, j->p.port, &g);
	if (index == -2)
		add(j, SN_UNKNOWN, "ROCE_GID_MISSING", expected,
		    "cannot read gids/0");
	else if (index < 0)
		add(j, SN_CRIT, "ROCE_GID_MISSING", expected, "no RoCE v2 GID");
	else
		ok_gid(j, (unsigned)index);
}

static void judge_roce(struct judge *j)
{
	judge_netdev(j);
	if (j->m->gid_index >= 0)
		judge_gid_at(j, (unsigned)j->m->gid_index);
	else
		judge_gid_any(j);
}

/* ---- path MTU ---------------------------------------------------------- */

static void mtu_unreadable(struct judge *j, const char *expected,
			   const struct sn_port_mtu *m)
{
	char phrase[SN_VALUE_MAX];

	if (m->status == SN_ATTR_MISSING && !strcmp(m->attr, "mtu") &&
	    !m->ifname[0])
		add(j, SN_UNKNOWN, "PORT_MTU", expected,
		    "cannot find the netdev to read its MTU");
	else if (!strcmp(m->attr, "verbs"))
		add(j, SN_UNKNOWN, "PORT_MTU", expected,
		    "cannot query libibverbs (%s)", m->text);
	else if (m->status == SN_ATTR_BAD)
		add(j, SN_UNKNOWN, "PORT_MTU", expected, "cannot parse %s '%s'",
		    m->attr, m->text);
	else {
		read_phrase(phrase, sizeof(phrase), m->attr, m->status,
			    m->text);
		add_path(j, SN_UNKNOWN, "PORT_MTU", expected, phrase,
			 m->path[0] ? m->path : "(path too long)");
	}
}

static void judge_mtu(struct judge *j)
{
	bool roce = j->m->link_layer == SN_LINK_ETHERNET;
	char expected[SN_VALUE_MAX];
	struct sn_port_mtu m;
	size_t n;

	if (!j->m->min_mtu)
		return;
	if (!roce && j->p.phys.status == SN_ATTR_OK &&
	    j->p.phys_num != SN_IB_PHYS_LINKUP)
		return; /* an untrained link has no real active MTU */
	snprintf(expected, sizeof(expected), "path MTU >= %u", j->m->min_mtu);
	if (sn_ib_port_mtu(j->ctx->sysfs, j->p.dev, j->p.port, j->m->link_layer,
			   j->m->gid_index, &m)) {
		add(j, SN_UNKNOWN, "PORT_MTU", expected,
		    "cannot read the path MTU (%m)");
		return;
	}
	if (m.status != SN_ATTR_OK) {
		mtu_unreadable(j, expected, &m);
		return;
	}
	if (m.path_mtu < j->m->min_mtu) {
		if (roce)
			add(j, SN_CRIT, "PORT_MTU", expected,
			    "path MTU %u (netdev %s MTU %ld) below %u",
			    m.path_mtu, m.ifname, m.netdev_mtu, j->m->min_mtu);
		else
			add(j, SN_CRIT, "PORT_MTU", expected,
			    "active MTU %u below %u", m.path_mtu,
			    j->m->min_mtu);
		return;
	}
	n = strlen(j->ok_extra);
	if (roce)
		snprintf(j->ok_extra + n, sizeof(j->ok_extra) - n,
			 ", path MTU %u (%s MTU %ld)", m.path_mtu, m.ifname,
			 m.netdev_mtu);
	else
		snprintf(j->ok_extra + n, sizeof(j->ok_extra) - n,
			 ", active MTU %u", m.path_mtu);
}

/* ---- libibverbs cross-check -------------------------------------------- */

static bool live_device(const struct judge *j)
{
	char path[PATH_MAX];

	if (strcmp(j->ctx->sysfs, "/sys"))
		return false;
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s", j->p.dev);
	return !access(path, F_OK);
}

static void judge_verbs(struct judge *j)
{
	struct sn_ib_verbs v;

	if (!live_device(j))
		return;
	if (sn_ib_port_verbs(j->p.dev, j->p.port, &v)) {
		add(j, SN_WARN, "IB_VERBS_MISMATCH", "visible to libibverbs",
		    "not visible to libibverbs (%m)");
		return;
	}
	if (j->p.state.status == SN_ATTR_OK && v.state != j->p.state_num)
		add(j, SN_WARN, "IB_VERBS_MISMATCH", "verbs agree with sysfs",
		    "verbs state=%s, sysfs state=%s", sn_ib_state_name(v.state),
		    j->p.state_name);
	else if (j->p.phys.status == SN_ATTR_OK && v.phys != j->p.phys_num)
		add(j, SN_WARN, "IB_VERBS_MISMATCH", "verbs agree with sysfs",
		    "verbs phys_state=%s, sysfs phys_state=%s",
		    sn_ib_phys_name(v.phys), j->p.phys_name);
	else if (j->p.link_layer.status == SN_ATTR_OK && v.layer != j->p.layer)
		add(j, SN_WARN, "IB_VERBS_MISMATCH", "verbs agree with sysfs",
		    "verbs link_layer=%s, sysfs link_layer=%s",
		    layer_name(v.layer), layer_name(j->p.layer));
}

/* ---- the port, the HCA, the group -------------------------------------- */

static void judge_ok(struct judge *j)
{
	char expected[SN_VALUE_MAX], rate[32] = "", mtu[32] = "";
	bool roce = j->m->link_layer == SN_LINK_ETHERNET;

	if (j->m->min_rate_gbps > 0)
		snprintf(rate, sizeof(rate), " >= %g Gb/sec",
			 j->m->min_rate_gbps);
	if (j->m->min_mtu)
		snprintf(mtu, sizeof(mtu), ", path MTU >= %u", j->m->min_mtu);
	snprintf(expected, sizeof(expected), "%s ACTIVE LinkUp%s%s%s",
		 layer_name(j->m->link_layer), rate,
		 roce ? ", netdev up, RoCE v2 GID" : "", mtu);
	add(j, SN_OK, "OK", expected, "%s %s %s%s", j->p.state_name,
	    j->p.phys_name,
	    j->p.rate.status == SN_ATTR_OK ? j->p.rate.text : "rate unread",
	    j->ok_extra);
}

static void judge_pcie(struct judge *j)
{
	char bdf[SN_BDF_SIZE], label[SN_DEVICE_MAX];

	if (!j->m->pcie_min_gen && !j->m->pcie_min_width)
		return;
	if (sn_rdma_device_bdf(j->ctx->sysfs, j->p.dev, bdf)) {
		if (sn_results_add(
			    j->out, SN_UNKNOWN, "pcie", "PCIE_UNKNOWN",
			    j->p.dev, "a PCI device",
			    "cannot resolve class/infiniband/%s/device (%m)",
			    j->p.dev))
			j->rc = -1;
		return;
	}
	snprintf(label, sizeof(label), "%.40s %s", j->p.dev, bdf);
	if (sn_pcie_check(j->ctx->sysfs, bdf, label, j->m->pcie_min_gen,
			  j->m->pcie_min_width, true, j->out))
		j->rc = -1;
}

static int check_port(const struct sn_check_ctx *ctx,
		      const struct sn_port_manifest *m, struct sn_results *out)
{
	struct judge j = { .ctx = ctx, .m = m, .out = out };
	size_t before = out->count;

	snprintf(j.device, sizeof(j.device), "%s/%u", m->device, m->port);
	if (sn_ib_port_read(ctx->sysfs, m->device, m->port, &j.p)) {
		add(&j, SN_UNKNOWN, "IB_PORT_MISSING", "present",
		    "cannot read port (%m)");
		return j.rc;
	}
	if (judge_presence(&j) || judge_layer(&j))
		return j.rc;
	judge_state(&j);
	judge_phys(&j);
	judge_rate(&j);
	if (m->link_layer == SN_LINK_ETHERNET)
		judge_roce(&j);
	judge_mtu(&j);
	judge_verbs(&j);
	if (out->count == before)
		judge_ok(&j);
	judge_pcie(&j);
	return j.rc;
}

/* ---- the collective library's socket interface ------------------------- */

#define SOCK "net_iface"

static void socket_addrs(const struct sn_check_ctx *ctx, const char *var,
			 const char *ifn, const char *oper,
			 struct sn_results *out)
{
	const char *want = "an IPv4 or IPv6 address";
	struct sn_netif_addrs a;
	char phrase[SN_VALUE_MAX];

	if (sn_netif_addrs_read(ctx->sysfs, ifn, &a))
		sn_results_add(out, SN_UNKNOWN, SOCK, "SOCKET_IFACE_NO_ADDR",
			       ifn, want, "cannot list addresses (%m)");
	else if (a.status == SN_ATTR_BAD)
		sn_results_add(out, SN_UNKNOWN, SOCK, "SOCKET_IFACE_NO_ADDR",
			       ifn, want, "cannot parse address '%s'", a.text);
	else if (a.status != SN_ATTR_OK && !a.path[0])
		sn_results_add(out, SN_UNKNOWN, SOCK, "SOCKET_IFACE_NO_ADDR",
			       ifn, want, "cannot list addresses (%s)", a.text);
	else if (a.status != SN_ATTR_OK) {
		read_phrase(phrase, sizeof(phrase), "addresses", a.status,
			    a.text);
		sn_results_add(out, SN_UNKNOWN, SOCK, "SOCKET_IFACE_NO_ADDR",
			       ifn, want, "%s: %s", phrase, a.path);
	} else if (!a.n)
		sn_results_add(out, SN_CRIT, SOCK, "SOCKET_IFACE_NO_ADDR", ifn,
			       want, "%s %s has no address%s", var, ifn,
			       a.n_link_local ? " (IPv6 link-local only)" : "");
	else
		sn_results_add(out, SN_OK, SOCK, "OK", ifn,
			       "up, with an address", "%s %s %s, address %s",
			       var, ifn, oper, a.first);
}

static void check_socket(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	const char *var, *ifn = sn_socket_iface_get(ctx->cfg, &var);
	char oper[32], path[PATH_MAX], phrase[SN_VALUE_MAX];
	enum sn_attr st;

	if (!ifn)
		return;
	st = sn_net_operstate(ctx->sysfs, ifn, oper, sizeof(oper));
	if (snprintf(path, sizeof(path), "%s/class/net/%s", ctx->sysfs, ifn) <
		    (int)sizeof(path) &&
	    access(path, F_OK)) {
		sn_results_add(out, SN_CRIT, SOCK, "SOCKET_IFACE_DOWN", ifn,
			       "up", "%s %s: no such interface", var, ifn);
		return;
	}
	if (st != SN_ATTR_OK) {
		read_phrase(phrase, sizeof(phrase), "operstate", st, oper);
		sn_results_add(out, SN_UNKNOWN, SOCK, "SOCKET_IFACE_DOWN", ifn,
			       "up", "%s: %s/operstate", phrase, path);
		return;
	}
	if (strcmp(oper, "up") && strcmp(oper, "unknown")) {
		sn_results_add(out, SN_CRIT, SOCK, "SOCKET_IFACE_DOWN", ifn,
			       "up", "%s %s operstate=%s", var, ifn, oper);
		return;
	}
	socket_addrs(ctx, var, ifn, oper, out);
}

int sn_check_ports(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	const struct sn_manifest *m = &ctx->cfg->node;
	struct stat st;

	/*
	 * A sysfs root that is not a folder is a config error (a typo in
	 * paths.sysfs), not a node with every HCA gone: UNKNOWN, no drain.
	 * A real /sys without class/infiniband (driver not loaded) is CRIT.
	 */
	if (m->n_ports) {
		int e = stat(ctx->sysfs, &st) ? errno : 0;

		if (e || !S_ISDIR(st.st_mode)) {
			sn_results_add(out, SN_UNKNOWN, "ib_port", "IB_SYSFS",
				       "node", "paths.sysfs is a folder",
				       "cannot use %.60s: %s", ctx->sysfs,
				       e ? strerror(e) : "not a folder");
			return 0;
		}
	}
	for (size_t i = 0; i < m->n_ports && i < SN_MANIFEST_MAX_PORTS; i++)
		check_port(ctx, &m->ports[i], out);
	check_socket(ctx, out);
	return 0;
}
