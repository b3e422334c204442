/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PCIe link attributes from sysfs and the link check (field case 9).
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
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

bool sn_pcie_bdf_valid(const char *s)
{
	const char *colon;
	size_t dom, len;

	if (!s || (len = strnlen(s, SN_BDF_MAX)) >= SN_BDF_MAX)
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
	NULL, "2.5 GT/s", "5.0 GT/s", "8.0 GT/s", "16.0 GT/s", "32.0 GT/s",
	"64.0 GT/s",
};

#define GEN_MAX (sizeof(gen_speed) / sizeof(gen_speed[0]) - 1)

uint32_t sn_pcie_speed_gen(const char *text)
{
	/* both spellings of each speed, new kernels first */
	static const struct {
		const char *num;
		uint32_t gen;
	} tab[] = {
		{ "2.5", 1 }, { "5.0", 2 }, { "5", 2 }, { "8.0", 3 }, { "8", 3 },
		{ "16.0", 4 }, { "16", 4 }, { "32.0", 5 }, { "32", 5 },
		{ "64.0", 6 }, { "64", 6 },
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
	case 1: case 2: case 4: case 8: case 12: case 16: case 32:
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
	if (snprintf(path, sizeof(path), "%s/%s", dir, attr) >= (int)sizeof(path)) {
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
		*slash = '\0';	/* real is now the parent directory */
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

/* ---- the check --------------------------------------------------------- */

enum which { CUR_SPEED, MAX_SPEED, CUR_WIDTH, MAX_WIDTH, N_WHICH };

static const char *const attr_name[N_WHICH] = {
	"current_link_speed", "max_link_speed", "current_link_width",
	"max_link_width",
};

/* One sn_pcie_check() run: where results go, what was said already. */
struct judge {
	struct sn_results *out;
	const char *label;
	int rc;
	unsigned char told[SN_PCIE_PATH_MAX];	/* bit per enum which: UNKNOWN sent */
	bool crit_speed, crit_width;		/* for dev[0]'s own link */
};

static const struct sn_pcie_value *value_of(const struct sn_pcie_dev *d,
					    enum which w)
{
	switch (w) {
	case CUR_SPEED:
		return &d->cur_speed;
	case MAX_SPEED:
		return &d->max_speed;
	case CUR_WIDTH:
		return &d->cur_width;
	default:
		return &d->max_width;
	}
}

static void add(struct judge *j, enum sn_grade g, const char *code,
		const char *expected, const char *found)
{
	if (sn_results_add(j->out, g, "pcie", code, j->label, expected, "%s",
			   found))
		j->rc = -1;
}

/* The value, or 0 after one UNKNOWN result naming the attribute. */
static uint32_t need(struct judge *j, const struct sn_pcie_path *p, size_t i,
		     enum which w)
{
	const struct sn_pcie_value *v = value_of(&p->dev[i], w);
	char found[SN_VALUE_MAX];

	if (v->status == SN_ATTR_OK)
		return v->value;
	if (j->told[i] & (1u << w))
		return 0;
	j->told[i] |= (unsigned char)(1u << w);
	if (v->status == SN_ATTR_BAD)
		snprintf(found, sizeof(found), "%s=%s at %s", attr_name[w],
			 v->text, p->dev[i].bdf);
	else if (v->status == SN_ATTR_NOT_REGULAR)
		snprintf(found, sizeof(found), "%s not a regular file (%s) at %s",
			 attr_name[w], v->text, p->dev[i].bdf);
	else
		snprintf(found, sizeof(found), "%s %s at %s", attr_name[w],
			 sn_attr_name(v->status), p->dev[i].bdf);
	add(j, SN_UNKNOWN, "PCIE_UNKNOWN",
	    w <= MAX_SPEED ? "known link speed" : "known link width", found);
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Link (p->dev[lo], p->dev[lo + 1]): current vs min(both ends' max). */
static void judge_link(struct judge *j, const struct sn_pcie_path *p,
		       size_t lo, bool check_speed)
{
	char found[SN_VALUE_MAX], expected[SN_VALUE_MAX];
	uint32_t cur, a, b;

	cur = need(j, p, lo, CUR_WIDTH);
	a = need(j, p, lo, MAX_WIDTH);
	b = need(j, p, lo + 1, MAX_WIDTH);
	if (cur && a && b && cur < min_u32(a, b)) {
		snprintf(found, sizeof(found), "x%u at %s", cur, p->dev[lo].bdf);
		snprintf(expected, sizeof(expected), ">= x%u (link max)",
			 min_u32(a, b));
		add(j, SN_CRIT, "PCIE_WIDTH", expected, found);
		j->crit_width |= lo == 0;
	}
	if (!check_speed)
		return;
	cur = need(j, p, lo, CUR_SPEED);
	a = need(j, p, lo, MAX_SPEED);
	b = need(j, p, lo + 1, MAX_SPEED);
	if (cur && a && b && cur < min_u32(a, b)) {
		snprintf(found, sizeof(found), "%s at %s",
			 sn_pcie_gen_speed(cur), p->dev[lo].bdf);
		snprintf(expected, sizeof(expected), ">= %s (link max)",
			 sn_pcie_gen_speed(min_u32(a, b)));
		add(j, SN_CRIT, "PCIE_SPEED", expected, found);
		j->crit_speed |= lo == 0;
	}
}

/* The device's own link against the manifest minimum. */
static void judge_manifest(struct judge *j, const struct sn_pcie_path *p,
			   uint32_t min_gen, uint32_t min_width,
			   bool check_speed)
{
	char found[SN_VALUE_MAX], expected[SN_VALUE_MAX];
	uint32_t cur;

	if (min_width && (cur = need(j, p, 0, CUR_WIDTH)) && cur < min_width &&
	    !j->crit_width) {
		snprintf(found, sizeof(found), "x%u", cur);
		snprintf(expected, sizeof(expected), ">= x%u (manifest)",
			 min_width);
		add(j, SN_CRIT, "PCIE_WIDTH", expected, found);
	}
	if (check_speed && min_gen && (cur = need(j, p, 0, CUR_SPEED)) &&
	    cur < min_gen && !j->crit_speed) {
		snprintf(found, sizeof(found), "Gen%u (%s)", cur,
			 sn_pcie_gen_speed(cur));
		snprintf(expected, sizeof(expected), ">= Gen%u (manifest)",
			 min_gen);
		add(j, SN_CRIT, "PCIE_SPEED", expected, found);
	}
}

static void judge_ok(struct judge *j, const struct sn_pcie_dev *d,
		     uint32_t min_gen, uint32_t min_width, bool check_speed,
		     bool has_parent)
{
	char found[SN_VALUE_MAX], expected[SN_VALUE_MAX], min[32] = "";

	if (check_speed)
		snprintf(found, sizeof(found), "Gen%u x%u", d->cur_speed.value,
			 d->cur_width.value);
	else
		snprintf(found, sizeof(found), "x%u", d->cur_width.value);
	if (check_speed && min_gen && min_width)
		snprintf(min, sizeof(min), "Gen%u x%u", min_gen, min_width);
	else if (check_speed && min_gen)
		snprintf(min, sizeof(min), "Gen%u", min_gen);
	else if (min_width)
		snprintf(min, sizeof(min), "x%u", min_width);
	if (has_parent)
		snprintf(expected, sizeof(expected), "link max%s%s",
			 min[0] ? ", >= " : "", min);
	else
		snprintf(expected, sizeof(expected), "%s%s",
			 min[0] ? ">= " : "readable link", min);
	add(j, SN_OK, "OK", expected, found);
}

int sn_pcie_check(const char *sysfs, const char *bdf, const char *device_label,
		  uint32_t min_gen, uint32_t min_width, bool check_speed,
		  struct sn_results *out)
{
	struct judge j = { .out = out, .label = device_label ? device_label : bdf };
	struct sn_pcie_path p;
	char found[SN_VALUE_MAX];
	size_t before = out->count;

	if (sn_pcie_path_read(sysfs, bdf, &p)) {
		int e = errno;

		snprintf(found, sizeof(found), "no PCI device %.16s (%s)",
			 bdf ? bdf : "(null)", strerror(e));
		add(&j, SN_UNKNOWN, "PCIE_UNKNOWN", "a PCI device", found);
		return j.rc;
	}
	/* links: (device, parent), (switch upstream port, its parent), ... */
	for (size_t lo = 0; lo + 1 < p.n; lo += 2)
		judge_link(&j, &p, lo, check_speed);
	judge_manifest(&j, &p, min_gen, min_width, check_speed);
	if (out->count == before) {
		/* nothing judged yet when there is no parent and no minimum */
		need(&j, &p, 0, CUR_WIDTH);
		if (check_speed)
			need(&j, &p, 0, CUR_SPEED);
	}
	if (out->count == before)
		judge_ok(&j, &p.dev[0], min_gen, min_width, check_speed,
			 p.n > 1);
	return j.rc;
}

/* ---- RDMA device -> PCI address ---------------------------------------- */

static bool dev_name_ok(const char *s)
{
	size_t n = strnlen(s, 64);

	return n && n < 64 && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

int sn_rdma_device_bdf(const char *sysfs, const char *dev, char bdf[SN_BDF_MAX])
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
