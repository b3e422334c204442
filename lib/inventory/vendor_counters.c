/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The epilog's snapshot of a vendor library's counters (sn_vendor_lib.h),
 * in the shape sn_accel_counters_json() gives NVIDIA's: one object per
 * device keyed by PCI bus id, the counters the rows of config/counters.c
 * name (ECC as "ecc_{un,}corrected_volatile", link counters summed over
 * the links as "<link>_<counter>": "hccs_crc", "mlulink_fec_uncorrected"),
 * and the links one by one under "links" for the record.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/sn_vendor_lib.h"
#include "util/sn_child.h"

#define EPILOG_BUDGET_MS 5000 /* when the caller set no deadline */

static int put(json_object *obj, const char *key, json_object *val)
{
	if (!val || json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

void sn_vendor_link_key(const struct sn_vendor *v, const char *ctr, char *buf,
			size_t size)
{
	size_t n = 0;

	for (const char *p = v->link_name ? v->link_name : "link";
	     *p && n + 1 < size; p++)
		if (isalnum((unsigned char)*p))
			buf[n++] = (char)tolower((unsigned char)*p);
	snprintf(buf + n, size - n, "_%s", ctr);
}

static int ctrs_json(json_object *o, const struct sn_vendor_ctr *c, unsigned n)
{
	int bad = 0;

	for (unsigned i = 0; i < n && i < SN_VENDOR_MAX_CTRS; i++)
		bad |= put(o, c[i].name, json_object_new_uint64(c[i].value));
	return bad;
}

/* Whether no link before link l has a counter named name. */
static bool first_seen(const struct sn_vendor_dev *d, unsigned l,
		       const char *name)
{
	for (unsigned k = 0; k < l; k++)
		for (unsigned j = 0; j < d->links[k].n_ctrs; j++)
			if (!strcmp(d->links[k].ctrs[j].name, name))
				return false;
	return true;
}

/* The counter ctr summed over the links, as "<link>_<ctr>" of dev. */
static int link_sum(const struct sn_vendor *v, const struct sn_vendor_dev *d,
		    const char *ctr, json_object *dev)
{
	uint64_t sum = 0;
	char key[48];

	for (unsigned l = 0; l < d->n_links; l++)
		for (unsigned j = 0; j < d->links[l].n_ctrs; j++)
			if (!strcmp(d->links[l].ctrs[j].name, ctr))
				sum += d->links[l].ctrs[j].value;
	sn_vendor_link_key(v, ctr, key, sizeof(key));
	return put(dev, key, json_object_new_uint64(sum));
}

/* The links one by one, and their counters summed into the device. */
static int links_json(const struct sn_vendor *v, const struct sn_vendor_dev *d,
		      json_object *dev)
{
	json_object *links = json_object_new_object();
	int bad = put(dev, "links", links);

	for (unsigned l = 0; !bad && l < d->n_links; l++) {
		const struct sn_vendor_link *k = &d->links[l];
		json_object *o = json_object_new_object();
		char name[12];

		snprintf(name, sizeof(name), "%u", l);
		bad |= put(links, name, o);
		if (bad)
			break;
		bad |= put(o, "state",
			   json_object_new_string(
				   sn_vendor_link_state_name(k->state)));
		bad |= ctrs_json(o, k->ctrs, k->n_ctrs);
	}
	/* Each counter name once, in the order the links first give it. */
	for (unsigned l = 0; !bad && l < d->n_links; l++)
		for (unsigned c = 0; !bad && c < d->links[l].n_ctrs; c++)
			if (first_seen(d, l, d->links[l].ctrs[c].name))
				bad |= link_sum(v, d, d->links[l].ctrs[c].name,
						dev);
	return bad;
}

static json_object *dev_json(const struct sn_vendor *v,
			     const struct sn_vendor_dev *d)
{
	json_object *o = json_object_new_object();
	int bad = 0;

	if (!o)
		return NULL;
	bad |= put(o, "index", json_object_new_int64(d->index));
	bad |= put(o, "label", json_object_new_string(d->label));
	bad |= put(o, "health",
		   json_object_new_string(sn_vendor_health_name(d->health)));
	if (d->health_text[0])
		bad |= put(o, "health_text",
			   json_object_new_string(d->health_text));
	bad |= json_object_object_add(
		o, "error",
		d->error[0] ? json_object_new_string(d->error) : NULL);
	if (d->ecc_read) {
		bad |= put(o, "ecc_uncorrected_volatile",
			   json_object_new_uint64(d->ecc_uncorrected));
		bad |= put(o, "ecc_corrected_volatile",
			   json_object_new_uint64(d->ecc_corrected));
	}
	bad |= ctrs_json(o, d->ctrs, d->n_ctrs);
	bad |= links_json(v, d, o);
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int sn_vendor_lib_counters(const struct sn_check_ctx *ctx, json_object *root,
			   json_object *devices)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);
	struct sn_vendor_node *node = malloc(sizeof(*node));
	int64_t deadline = ctx->deadline_ms ? ctx->deadline_ms :
					      sn_now_ms() + EPILOG_BUDGET_MS;
	const char *why = NULL;
	int bad = 0;

	if (!node)
		return -1;
	if (sn_vendor_lib_read(ctx, deadline, node) || node->error[0])
		why = node->error;
	else if (node->hung_call[0])
		why = node->hung_call; /* devices read before it are kept */
	bad |= json_object_object_add(
		root, "driver",
		node->version[0] ? json_object_new_string(node->version) :
				   NULL);
	bad |= json_object_object_add(root, "error",
				      why ? json_object_new_string(why) : NULL);
	for (uint32_t i = 0; !bad && i < node->n_devs; i++) {
		const struct sn_vendor_dev *d = &node->devs[i];
		char key[SN_BDF_SIZE + 8];

		if (d->bdf[0])
			snprintf(key, sizeof(key), "%s", d->bdf);
		else
			snprintf(key, sizeof(key), "index%u", d->index);
		bad |= put(devices, key, dev_json(v, d));
	}
	free(node);
	return bad ? -1 : 0;
}
