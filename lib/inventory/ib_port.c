/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One RDMA port from sysfs (drivers/infiniband/core/sysfs.c,
 * Documentation/ABI/stable/sysfs-class-infiniband), its GIDs and netdev,
 * a libibverbs cross-check.  Its counters as JSON: ib_port_counters.c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <infiniband/verbs.h>

#include "inventory/ib_port_private.h"
#include "inventory/sn_ib_port.h"
#include "util/sn_number.h"

#define NET_ENTRIES_MAX 64 /* device/net/ entries looked at */

/* ---- names and paths --------------------------------------------------- */

bool sn_ib_port_dev_name_ok(const char *s)
{
	size_t n;

	if (!s)
		return false;
	n = strnlen(s, SN_IB_DEV_MAX);
	return n && n < SN_IB_DEV_MAX && s[0] != '.' &&
	       strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
		       n;
}

static bool ifname_ok(const char *s)
{
	size_t n = strnlen(s, SN_IFNAME_MAX);

	return n && n < SN_IFNAME_MAX && strcmp(s, ".") && strcmp(s, "..") &&
	       !strchr(s, '/');
}

int sn_ib_port_path(char *buf, size_t size, const char *sysfs, const char *dev,
		    unsigned port, const char *rel)
{
	int n = snprintf(buf, size, "%s/class/infiniband/%s/ports/%u%s%s",
			 sysfs, dev, port, rel ? "/" : "", rel ? rel : "");

	return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

bool sn_ib_port_is_dir(const char *path)
{
	struct stat sb;

	return !stat(path, &sb) && S_ISDIR(sb.st_mode);
}

/* ---- parsers ----------------------------------------------------------- */

static const char *const state_names[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

static const char *const phys_names[] = {
	NULL,
	"Sleep",
	"Polling",
	"Disabled",
	"PortConfigurationTraining",
	"LinkUp",
	"LinkErrorRecovery",
	"Phy Test",
};

#define N_STATES (sizeof(state_names) / sizeof(state_names[0]))
#define N_PHYS (sizeof(phys_names) / sizeof(phys_names[0]))

bool sn_ib_state_known(int num)
{
	return num >= 0 && (size_t)num < N_STATES;
}

bool sn_ib_phys_known(unsigned num)
{
	return num < N_PHYS;
}

const char *sn_ib_state_name(int num)
{
	return sn_ib_state_known(num) ? state_names[num] : "<unknown>";
}

const char *sn_ib_phys_name(unsigned num)
{
	return (num < N_PHYS && phys_names[num]) ? phys_names[num] :
						   "<unknown>";
}

/* Up to max_digits decimal digits at *s; advances *s.  -1 if none. */
static long digits(const char **s, int max_digits)
{
	long v = 0;
	int n = 0;

	while (**s >= '0' && **s <= '9' && n < max_digits) {
		v = v * 10 + (**s - '0');
		(*s)++;
		n++;
	}
	return (n && !(**s >= '0' && **s <= '9')) ? v : -1;
}

/* "N: NAME" or "N"; the name gets the kernel's when absent. */
static int parse_numbered(const char *text, long *num,
			  char name[SN_IB_NAME_MAX],
			  const char *(*kernel_name)(long))
{
	const char *s = text;
	size_t n;

	if ((*num = digits(&s, 3)) < 0)
		return -1;
	if (!*s) {
		snprintf(name, SN_IB_NAME_MAX, "%s", kernel_name(*num));
		return 0;
	}
	if (s[0] != ':' || s[1] != ' ' || !s[2])
		return -1;
	n = strlen(s + 2);
	if (n >= SN_IB_NAME_MAX)
		return -1;
	memcpy(name, s + 2, n + 1);
	return 0;
}

static const char *state_name_l(long n)
{
	return sn_ib_state_name((int)n);
}

static const char *phys_name_l(long n)
{
	return sn_ib_phys_name((unsigned)n);
}

int sn_ib_parse_state(const char *text, int *num, char name[SN_IB_NAME_MAX])
{
	long n;

	if (!text || parse_numbered(text, &n, name, state_name_l))
		return -1;
	*num = (int)n;
	return 0;
}

int sn_ib_parse_phys(const char *text, unsigned *num, char name[SN_IB_NAME_MAX])
{
	long n;

	if (!text || parse_numbered(text, &n, name, phys_name_l))
		return -1;
	*num = (unsigned)n;
	return 0;
}

static bool ib_width_ok(long w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 12;
}

/* " NDR)" / ")" after the "X": the optional speed name. */
static int parse_speed(const char *s, char speed[SN_IB_SPEED_MAX])
{
	size_t n;

	speed[0] = '\0';
	if (!strcmp(s, ")"))
		return 0;
	if (*s++ != ' ')
		return -1;
	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
	if (!n || n >= SN_IB_SPEED_MAX || strcmp(s + n, ")"))
		return -1;
	memcpy(speed, s, n);
	speed[n] = '\0';
	return 0;
}

int sn_ib_parse_rate(const char *text, double *gbps, unsigned *width,
		     char speed[SN_IB_SPEED_MAX])
{
	const char *s = text;
	long whole, frac = 0, w;
	double scale = 1;

	if (!text || (whole = digits(&s, 6)) < 0)
		return -1;
	if (*s == '.') {
		const char *f = ++s;

		if ((frac = digits(&s, 3)) < 0)
			return -1;
		for (; f < s; f++)
			scale *= 10;
	}
	if (strncmp(s, " Gb/sec (", 9))
		return -1;
	s += 9;
	if ((w = digits(&s, 2)) < 0 || !ib_width_ok(w) || *s++ != 'X' ||
	    parse_speed(s, speed))
		return -1;
	*gbps = (double)whole + (double)frac / scale;
	*width = (unsigned)w;
	return 0;
}

/* ---- the port ---------------------------------------------------------- */

static void attr_read(const char *sysfs, const char *dev, unsigned port,
		      const char *name, struct sn_ib_attr *a)
{
	char path[PATH_MAX];

	if (sn_ib_port_path(path, sizeof(path), sysfs, dev, port, name)) {
		a->status = SN_ATTR_UNREADABLE;
		a->text[0] = '\0';
		return;
	}
	a->status = sn_attr_read_line(path, a->text, sizeof(a->text));
}

static void parse_layer(struct sn_ib_port *p)
{
	if (p->link_layer.status != SN_ATTR_OK)
		return;
	if (!strcmp(p->link_layer.text, "InfiniBand"))
		p->layer = SN_LINK_INFINIBAND;
	else if (!strcmp(p->link_layer.text, "Ethernet"))
		p->layer = SN_LINK_ETHERNET;
	else
		p->link_layer.status = SN_ATTR_BAD;
}

/*
 * A number outside the kernel's tables ("9: ACTIVE") is not a state: BAD,
 * so that no reader takes its name, or the number, for a port state.
 */
static void parse_all(struct sn_ib_port *p)
{
	if (p->state.status == SN_ATTR_OK &&
	    (sn_ib_parse_state(p->state.text, &p->state_num, p->state_name) ||
	     !sn_ib_state_known(p->state_num)))
		p->state.status = SN_ATTR_BAD;
	if (p->phys.status == SN_ATTR_OK &&
	    (sn_ib_parse_phys(p->phys.text, &p->phys_num, p->phys_name) ||
	     !sn_ib_phys_known(p->phys_num)))
		p->phys.status = SN_ATTR_BAD;
	if (p->rate.status == SN_ATTR_OK &&
	    sn_ib_parse_rate(p->rate.text, &p->rate_gbps, &p->width, p->speed))
		p->rate.status = SN_ATTR_BAD;
	parse_layer(p);
}

int sn_ib_port_read(const char *sysfs, const char *dev, unsigned port,
		    struct sn_ib_port *out)
{
	char path[PATH_MAX];

	memset(out, 0, sizeof(*out));
	if (!sysfs || !sn_ib_port_dev_name_ok(dev) || !port) {
		errno = EINVAL;
		return -1;
	}
	memcpy(out->dev, dev, strlen(dev) + 1);
	out->port = port;
	if (sn_ib_port_path(path, sizeof(path), sysfs, dev, port, NULL)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out->present = sn_ib_port_is_dir(path);
	snprintf(path, sizeof(path), "%s/class/infiniband/%s", sysfs, dev);
	out->dev_present = sn_ib_port_is_dir(path);
	attr_read(sysfs, dev, port, "state", &out->state);
	attr_read(sysfs, dev, port, "phys_state", &out->phys);
	attr_read(sysfs, dev, port, "rate", &out->rate);
	attr_read(sysfs, dev, port, "link_layer", &out->link_layer);
	parse_all(out);
	return 0;
}

/* ---- GIDs and netdev --------------------------------------------------- */

static bool gid_all_zero(const char *gid)
{
	return strspn(gid, "0:") == strlen(gid);
}

int sn_ib_gid_read(const char *sysfs, const char *dev, unsigned port,
		   unsigned index, struct sn_ib_gid *out)
{
	char path[PATH_MAX], rel[64];

	memset(out, 0, sizeof(*out));
	out->index = index;
	if (!sysfs || !sn_ib_port_dev_name_ok(dev) || !port) {
		errno = EINVAL;
		return -1;
	}
	snprintf(rel, sizeof(rel), "gids/%u", index);
	out->status =
		sn_ib_port_path(path, sizeof(path), sysfs, dev, port, rel) ?
			SN_ATTR_UNREADABLE :
			sn_attr_read_line(path, out->gid, sizeof(out->gid));
	out->empty = out->status == SN_ATTR_OK && gid_all_zero(out->gid);
	snprintf(rel, sizeof(rel), "gid_attrs/types/%u", index);
	out->type_status =
		sn_ib_port_path(path, sizeof(path), sysfs, dev, port, rel) ?
			SN_ATTR_UNREADABLE :
			sn_attr_read_line(path, out->type, sizeof(out->type));
	snprintf(rel, sizeof(rel), "gid_attrs/ndevs/%u", index);
	out->ndev_status =
		sn_ib_port_path(path, sizeof(path), sysfs, dev, port, rel) ?
			SN_ATTR_UNREADABLE :
			sn_attr_read_line(path, out->ndev, sizeof(out->ndev));
	if (out->ndev_status == SN_ATTR_OK && !ifname_ok(out->ndev)) {
		out->ndev_status = SN_ATTR_BAD;
		out->ndev[0] = '\0';
	}
	return 0;
}

bool sn_ib_gid_is_roce_v2(const struct sn_ib_gid *g)
{
	return g->status == SN_ATTR_OK && !g->empty &&
	       g->type_status == SN_ATTR_OK && !strcmp(g->type, "RoCE v2");
}

int sn_ib_find_roce_v2(const char *sysfs, const char *dev, unsigned port,
		       struct sn_ib_gid *out)
{
	for (unsigned i = 0; i < SN_IB_GID_MAX; i++) {
		if (sn_ib_gid_read(sysfs, dev, port, i, out))
			return -2;
		if (out->status == SN_ATTR_MISSING)
			return i ? -1 : -2;
		if (sn_ib_gid_is_roce_v2(out))
			return (int)i;
	}
	return -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* First interface, by name, in <sysfs>/class/infiniband/<dev>/device/net/. */
static enum sn_attr device_net(const char *sysfs, const char *dev,
			       char ifname[SN_IFNAME_MAX])
{
	char path[PATH_MAX], names[NET_ENTRIES_MAX][SN_IFNAME_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net",
		     sysfs, dev) >= (int)sizeof(path) ||
	    !(d = opendir(path)))
		return SN_ATTR_MISSING;
	while (n < NET_ENTRIES_MAX && (de = readdir(d)))
		if (de->d_name[0] != '.' && ifname_ok(de->d_name))
			memcpy(names[n++], de->d_name, strlen(de->d_name) + 1);
	closedir(d);
	if (!n)
		return SN_ATTR_MISSING;
	qsort(names, n, sizeof(names[0]), name_cmp);
	memcpy(ifname, names[0], SN_IFNAME_MAX);
	return SN_ATTR_OK;
}

/* The netdev of the first used GID in [first, last) that names one. */
static enum sn_attr gid_netdev(const char *sysfs, const char *dev,
			       unsigned port, unsigned first, unsigned last,
			       char ifname[SN_IFNAME_MAX])
{
	struct sn_ib_gid g;

	for (unsigned i = first; i < last && i < SN_IB_GID_MAX; i++) {
		if (sn_ib_gid_read(sysfs, dev, port, i, &g) ||
		    g.status == SN_ATTR_MISSING)
			break;
		if (g.ndev_status == SN_ATTR_OK && !g.empty) {
			memcpy(ifname, g.ndev, sizeof(g.ndev));
			return SN_ATTR_OK;
		}
	}
	return SN_ATTR_MISSING;
}

enum sn_attr sn_ib_port_netdev(const char *sysfs, const char *dev,
			       unsigned port, int gid_index,
			       char ifname[SN_IFNAME_MAX])
{
	ifname[0] = '\0';
	if (!sysfs || !sn_ib_port_dev_name_ok(dev) || !port)
		return SN_ATTR_MISSING;
	if (gid_index >= 0 &&
	    gid_netdev(sysfs, dev, port, (unsigned)gid_index,
		       (unsigned)gid_index + 1, ifname) == SN_ATTR_OK)
		return SN_ATTR_OK;
	if (gid_netdev(sysfs, dev, port, 0, SN_IB_GID_MAX, ifname) ==
	    SN_ATTR_OK)
		return SN_ATTR_OK;
	return device_net(sysfs, dev, ifname);
}

enum sn_attr sn_net_operstate(const char *sysfs, const char *ifname, char *buf,
			      size_t size)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (!sysfs || !ifname || !ifname_ok(ifname))
		return SN_ATTR_MISSING;
	if (snprintf(path, sizeof(path), "%s/class/net/%s/operstate", sysfs,
		     ifname) >= (int)sizeof(path))
		return SN_ATTR_UNREADABLE;
	return sn_attr_read_line(path, buf, size);
}

/* ---- libibverbs -------------------------------------------------------- */

static unsigned verbs_width(uint8_t w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static int verbs_query(struct ibv_device *d, unsigned port,
		       struct sn_ib_verbs *out)
{
	struct ibv_context *ctx = ibv_open_device(d);
	struct ibv_port_attr attr;
	int rc = -1;

	if (!ctx)
		return -1;
	memset(&attr, 0, sizeof(attr));
	if (port > 255) {
		errno = EINVAL;
		goto out;
	}
	rc = ibv_query_port(ctx, (uint8_t)port, &attr);
	if (rc) {
		errno = rc > 0 ? rc : EINVAL;
		rc = -1;
		goto out;
	}
	out->state = (int)attr.state;
	out->phys = attr.phys_state;
	out->layer = attr.link_layer == IBV_LINK_LAYER_ETHERNET ?
			     SN_LINK_ETHERNET :
			     SN_LINK_INFINIBAND;
	out->width = verbs_width(attr.active_width);
	out->active_mtu_enum = (int)attr.active_mtu;
	out->active_mtu = sn_ib_mtu_bytes((int)attr.active_mtu);
out:
	ibv_close_device(ctx);
	return rc;
}

int sn_ib_port_verbs(const char *dev, unsigned port, struct sn_ib_verbs *out)
{
	struct ibv_device **list;
	int n = 0, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!sn_ib_port_dev_name_ok(dev) || !port) {
		errno = EINVAL;
		return -1;
	}
	list = ibv_get_device_list(&n);
	if (!list) {
		errno = ENODEV;
		return -1;
	}
	errno = ENODEV;
	for (int i = 0; i < n && i < 1024; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev)) {
			rc = verbs_query(list[i], port, out);
			break;
		}
	ibv_free_device_list(list);
	return rc;
}

/* ---- path MTU ---------------------------------------------------------- */

unsigned sn_ib_mtu_bytes(int mtu_enum)
{
	/* enum ib_mtu (include/rdma/ib_verbs.h), enum ibv_mtu (verbs.h) */
	return mtu_enum >= 1 && mtu_enum <= 5 ? 128u << mtu_enum : 0;
}

/*
 * The RoCE v2 headers a path MTU leaves room for, from torvalds/linux
 * include/rdma/ib_addr.h iboe_get_mtu(): IB_GRH_BYTES 40 + IB_UDP_BYTES 8
 * + IB_BTH_BYTES 12 + IB_EXT_XRC_BYTES 4 + IB_EXT_ATOMICETH_BYTES 28 +
 * IB_ICRC_BYTES 4 (the enum of include/rdma/ib_pack.h) = 96 bytes.
 */
#define ROCE_HEADER_BYTES (40 + 8 + 12 + 4 + 28 + 4)

unsigned sn_roce_path_mtu(long netdev_mtu)
{
	long room = netdev_mtu - ROCE_HEADER_BYTES;

	/* iboe_get_mtu(): the largest IB MTU not above room, else 0 */
	for (unsigned mtu = SN_IB_MTU_MAX; mtu >= SN_IB_MTU_MIN; mtu /= 2)
		if (room >= (long)mtu)
			return mtu;
	return 0;
}

/* Read one line at path into out; the status, text kept for messages. */
static void mtu_line(struct sn_port_mtu *out, const char *attr, long *value)
{
	long long n;

	out->attr = attr;
	out->status =
		sn_attr_read_line(out->path, out->text, sizeof(out->text));
	if (out->status != SN_ATTR_OK)
		return;
	if (!sn_number_parse(out->text, &n) || n < 1 || n > 1 << 20) {
		out->status = SN_ATTR_BAD;
		return;
	}
	*value = (long)n;
}

static int path_into(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int path_into(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

/* InfiniBand: verbs on the live system, its stand-in file elsewhere. */
static void ib_mtu(const char *sysfs, const char *dev, unsigned port,
		   struct sn_port_mtu *out)
{
	struct sn_ib_verbs v;
	long bytes = 0;

	if (!strcmp(sysfs, "/sys")) {
		out->attr = "verbs";
		if (sn_ib_port_verbs(dev, port, &v)) {
			out->status = SN_ATTR_UNREADABLE;
			snprintf(out->text, sizeof(out->text), "%s",
				 strerror(errno));
		} else if (!v.active_mtu) {
			out->status = SN_ATTR_BAD;
			snprintf(out->text, sizeof(out->text), "%d",
				 v.active_mtu_enum);
		} else {
			out->path_mtu = v.active_mtu;
		}
		return;
	}
	if (path_into(out->path, sizeof(out->path),
		      "%s/" SN_LIVE_DIR "/verbs/%s/%u/active_mtu", sysfs, dev,
		      port)) {
		out->attr = "active_mtu";
		out->status = SN_ATTR_UNREADABLE;
		return;
	}
	mtu_line(out, "active_mtu", &bytes);
	if (out->status != SN_ATTR_OK)
		return;
	out->path_mtu = (unsigned)bytes;
	if (out->path_mtu != sn_roce_path_mtu(bytes + ROCE_HEADER_BYTES))
		out->status = SN_ATTR_BAD; /* not one of the five */
}

/* RoCE: from the netdev's MTU, as the kernel derives it. */
static void roce_mtu(const char *sysfs, const char *dev, unsigned port,
		     int gid_index, struct sn_port_mtu *out)
{
	out->attr = "mtu";
	if (sn_ib_port_netdev(sysfs, dev, port, gid_index, out->ifname) !=
	    SN_ATTR_OK) {
		out->status = SN_ATTR_MISSING;
		return;
	}
	if (path_into(out->path, sizeof(out->path), "%s/class/net/%s/mtu",
		      sysfs, out->ifname)) {
		out->status = SN_ATTR_UNREADABLE;
		return;
	}
	mtu_line(out, "mtu", &out->netdev_mtu);
	if (out->status == SN_ATTR_OK)
		out->path_mtu = sn_roce_path_mtu(out->netdev_mtu);
}

int sn_ib_port_mtu(const char *sysfs, const char *dev, unsigned port,
		   enum sn_link_layer layer, int gid_index,
		   struct sn_port_mtu *out)
{
	memset(out, 0, sizeof(*out));
	out->attr = layer == SN_LINK_ETHERNET ? "mtu" : "active_mtu";
	if (!sysfs || !sn_ib_port_dev_name_ok(dev) || !port) {
		errno = EINVAL;
		return -1;
	}
	if (layer == SN_LINK_ETHERNET)
		roce_mtu(sysfs, dev, port, gid_index, out);
	else
		ib_mtu(sysfs, dev, port, out);
	return 0;
}
