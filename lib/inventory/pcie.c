/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCIe link attributes from sysfs (the link check that judges them is
 * checks/check_pcie.c).
 * Formats: Documentation/ABI/testing/sysfs-bus-pci, drivers/pci/pci-sysfs.c,
 * pci_speed_string() in drivers/pci/probe.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sn_file.h"
#include "util/sn_number.h"
#include "inventory/sn_pcie.h"

/* ---- one attribute ----------------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* First non-blank line of raw into buf, trimmed. */
static enum sn_attr first_line(const char *raw, char *buf, size_t size)
{
	const char *s = raw, *e;
	size_t n;

	while (*s && is_space(*s))
		s++;
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	while (e > s && is_space(e[-1]))
		e--;
	n = (size_t)(e - s);
	if (!n)
		return SN_ATTR_EMPTY;
	if (n >= size)
		return SN_ATTR_UNREADABLE;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return SN_ATTR_OK;
}

enum sn_attr sn_attr_read_line(const char *path, char *buf, size_t size)
{
	char raw[SN_ATTR_READ_MAX + 1];
	enum sn_attr st = SN_ATTR_UNREADABLE;
	struct stat sb;
	int fd;

	buf[0] = '\0';
	fd = sn_file_open_regular(path, 0, &sb, NULL, 0);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return SN_ATTR_MISSING;
		if (errno != EINVAL)
			return SN_ATTR_UNREADABLE;
		snprintf(buf, size, "%s", sn_file_kind(sb.st_mode));
		return SN_ATTR_NOT_REGULAR;
	}
	if (sn_file_read_fd(fd, raw, sizeof(raw)) >= 0)
		st = first_line(raw, buf, size);
	close(fd);
	return st;
}

const char *sn_attr_name(enum sn_attr s)
{
	switch (s) {
	case SN_ATTR_OK:
		return "ok";
	case SN_ATTR_MISSING:
		return "missing";
	case SN_ATTR_EMPTY:
		return "empty";
	case SN_ATTR_UNREADABLE:
		return "unreadable";
	case SN_ATTR_NOT_REGULAR:
		return "not a regular file";
	case SN_ATTR_BAD:
		return "unparsable";
	}
	return "?";
}

/* ---- parsing ----------------------------------------------------------- */

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

bool sn_pcie_bdf_valid(const char *s)
{
	const char *colon;
	size_t dom, len;

	if (!s || (len = strnlen(s, SN_BDF_SIZE)) >= SN_BDF_SIZE)
		return false;
	colon = strchr(s, ':');
	if (!colon)
		return false;
	dom = (size_t)(colon - s);
	/* DDDD : BB : DD . F */
	return dom >= 4 && dom <= 8 && len == dom + 8 && is_hex(s, dom) &&
	       is_hex(colon + 1, 2) && colon[3] == ':' &&
	       is_hex(colon + 4, 2) && colon[4] <= '1' && colon[6] == '.' &&
	       colon[7] >= '0' && colon[7] <= '7';
}

static const char *const gen_speed[] = {
	NULL,	     "2.5 GT/s",  "5.0 GT/s",  "8.0 GT/s",
	"16.0 GT/s", "32.0 GT/s", "64.0 GT/s",
};

#define GEN_MAX (sizeof(gen_speed) / sizeof(gen_speed[0]) - 1)

uint32_t sn_pcie_speed_gen(const char *text)
{
	/* both spellings of each speed, new kernels first */
	static const struct {
		const char *num;
		uint32_t gen;
	} tab[] = {
		{ "2.5", 1 }, { "5.0", 2 },  { "5", 2 },  { "8.0", 3 },
		{ "8", 3 },   { "16.0", 4 }, { "16", 4 }, { "32.0", 5 },
		{ "32", 5 },  { "64.0", 6 }, { "64", 6 },
	};
	const char *rest;
	size_t n;

	if (!text)
		return 0;
	n = strspn(text, "0123456789.");
	rest = text + n;
	if (!n || strncmp(rest, " GT/s", 5) ||
	    (rest[5] && strcmp(rest + 5, " PCIe")))
		return 0;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].num) == n && !strncmp(text, tab[i].num, n))
			return tab[i].gen;
	return 0;
}

const char *sn_pcie_gen_speed(uint32_t gen)
{
	return (gen >= 1 && gen <= GEN_MAX) ? gen_speed[gen] : "?";
}

static uint32_t lanes(const char *text)
{
	long long n;

	if (!sn_number_parse(text, &n))
		return 0;
	switch (n) {
	case 1:
	case 2:
	case 4:
	case 8:
	case 12:
	case 16:
	case 32:
		return (uint32_t)n;
	default:
		return 0;
	}
}

static void value_read(const char *dir, const char *attr, bool speed,
		       struct sn_pcie_value *v)
{
	char path[PATH_MAX];

	memset(v, 0, sizeof(*v));
	if (snprintf(path, sizeof(path), "%s/%s", dir, attr) >=
	    (int)sizeof(path)) {
		v->status = SN_ATTR_UNREADABLE;
		return;
	}
	v->status = sn_attr_read_line(path, v->text, sizeof(v->text));
	if (v->status != SN_ATTR_OK)
		return;
	v->value = speed ? sn_pcie_speed_gen(v->text) : lanes(v->text);
	if (!v->value)
		v->status = SN_ATTR_BAD;
}

void sn_pcie_dev_read(const char *dir, const char *bdf, struct sn_pcie_dev *out)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->bdf, sizeof(out->bdf), "%s", bdf ? bdf : "");
	value_read(dir, "current_link_speed", true, &out->cur_speed);
	value_read(dir, "max_link_speed", true, &out->max_speed);
	value_read(dir, "current_link_width", false, &out->cur_width);
	value_read(dir, "max_link_width", false, &out->max_width);
}

/* ---- the path to the root ---------------------------------------------- */

int sn_pcie_path_read(const char *sysfs, const char *bdf,
		      struct sn_pcie_path *out)
{
	char link[PATH_MAX], real[PATH_MAX];
	char *slash;

	memset(out, 0, sizeof(*out));
	if (!sysfs || !sn_pcie_bdf_valid(bdf)) {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", sysfs, bdf) >=
	    (int)sizeof(link)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!realpath(link, real))
		return -1;
	sn_pcie_dev_read(real, bdf, &out->dev[0]);
	out->n = 1;
	while ((slash = strrchr(real, '/')) && slash != real) {
		*slash = '\0'; /* real is now the parent directory */
		slash = strrchr(real, '/');
		if (!slash || !sn_pcie_bdf_valid(slash + 1))
			break;
		if (out->n == SN_PCIE_PATH_MAX) {
			out->truncated = true;
			break;
		}
		sn_pcie_dev_read(real, slash + 1, &out->dev[out->n++]);
	}
	return 0;
}

/* ---- RDMA device -> PCI address ---------------------------------------- */

static bool dev_name_ok(const char *s)
{
	size_t n = strnlen(s, 64);

	return n && n < 64 && s[0] != '.' &&
	       strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
		       n;
}

int sn_rdma_device_bdf(const char *sysfs, const char *dev,
		       char bdf[SN_BDF_SIZE])
{
	char link[PATH_MAX], real[PATH_MAX];
	const char *base;

	bdf[0] = '\0';
	if (!sysfs || !dev || !dev_name_ok(dev)) {
		errno = EINVAL;
		return -1;
	}
	if (snprintf(link, sizeof(link), "%s/class/infiniband/%s/device", sysfs,
		     dev) >= (int)sizeof(link)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!realpath(link, real))
		return -1;
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (!sn_pcie_bdf_valid(base)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(bdf, base, strlen(base) + 1);
	return 0;
}
