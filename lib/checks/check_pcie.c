/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PCIe link check (field case 9): the attributes read by
 * inventory/pcie.c, judged link by link against the ends' maxima and the
 * manifest's minimum.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checks/sn_check_pcie.h"
#include "inventory/sn_pcie.h"

/* ---- the check --------------------------------------------------------- */

enum which {
	CUR_SPEED,
	MAX_SPEED,
	CUR_WIDTH,
	MAX_WIDTH,
	N_WHICH
};

static const char *const attr_name[N_WHICH] = {
	"current_link_speed",
	"max_link_speed",
	"current_link_width",
	"max_link_width",
};

/* One sn_pcie_check() run: where results go, what was said already. */
struct judge {
	struct sn_results *out;
	const char *label;
	int rc;
	unsigned char
		told[SN_PCIE_PATH_MAX]; /* bit per enum which: UNKNOWN sent */
	bool crit_speed, crit_width;	/* for dev[0]'s own link */
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
		snprintf(found, sizeof(found),
			 "%s not a regular file (%s) at %s", attr_name[w],
			 v->text, p->dev[i].bdf);
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
static void judge_link(struct judge *j, const struct sn_pcie_path *p, size_t lo,
		       bool check_speed)
{
	char found[SN_VALUE_MAX], expected[SN_VALUE_MAX];
	uint32_t cur, a, b;

	cur = need(j, p, lo, CUR_WIDTH);
	a = need(j, p, lo, MAX_WIDTH);
	b = need(j, p, lo + 1, MAX_WIDTH);
	if (cur && a && b && cur < min_u32(a, b)) {
		snprintf(found, sizeof(found), "x%u at %s", cur,
			 p->dev[lo].bdf);
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
	struct judge j = { .out = out,
			   .label = device_label ? device_label : bdf };
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
