/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode.yaml sections for the node checks:
 *
 * node:                          # what every node must have (--learn prints it)
 *   accelerators:
 *     vendor: nvidia             # nvidia | ascend | hygon | cambricon |
 *                                # mthreads | metax | kunlunxin | amd | other
 *     pci_vendor: 0x10de         # other: required; else implied by vendor
 *     count: 8
 *     device_glob: nvidia[0-9]*  # under paths.dev; implied by vendor
 *     pcie_min_gen: 5            # 0/absent: not checked
 *     pcie_min_width: 16
 *     pcie_check_speed: false    # GPUs idle at a lower gen: width only by default
 *     nvlinks: 18                # active NVLinks per GPU; 0 = PCIe card; absent = not checked
 *     links: 7                   # other vendors' links up per device (HCCS, MLU-Link,
 *                                # MTLink, MetaXLink, XGMI), from the library; absent = not checked
 *     nvlink_domain: false       # GPUs in a multi-node NVLink domain (NVL72): fabric gate
 *     imex: false                # IMEX channel device and nvidia-imex daemon checked
 *     imex_channel: 0            # N of /dev/nvidia-caps-imex-channels/channelN
 *   ports:
 *     - {device: mlx5_0, port: 1, link_layer: InfiniBand, min_rate_gbps: 400}
 *     - {device: mlx5_2, port: 1, link_layer: Ethernet, min_rate_gbps: 200, gid_index: 3,
 *        min_mtu: 4096}          # RDMA path MTU: 256 | 512 | 1024 | 2048 | 4096
 *   topology:
 *     nearness: pcie_switch      # pcie_switch | numa
 *     pairs:
 *       - {accelerator: 0, nic: mlx5_0}
 * prolog:
 *   all_jobs: false              # also check before jobs without --supernode
 *   timeout: 30                  # seconds for the whole prolog
 *   check_timeout: 10            # seconds for each check group (default: 10, at most timeout)
 *   drain_on_unknown: false
 * drain:
 *   tag: "supernode:"            # our drain reasons start with it; only those are resumed
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_sections.h"
#include "config/sn_vendor.h"
#include "util/sn_number.h"

static int name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63)
		return 0;
	return strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
	       n;
}

static int uint_into(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     unsigned long long min, unsigned long long max,
		     uint32_t *dst)
{
	unsigned long long n;

	if (yaml_walk_uint(w, v, path, min, max, &n))
		return -1;
	*dst = (uint32_t)n;
	return 0;
}

/* The value of key in mapping node, or NULL (the document is walked already). */
static yaml_node_t *map_get(yaml_document_t *doc, yaml_node_t *node,
			    const char *key)
{
	yaml_node_pair_t *pair;

	if (!node || node->type != YAML_MAPPING_NODE)
		return NULL;
	for (pair = node->data.mapping.pairs.start;
	     pair < node->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = yaml_walk_get(doc, pair->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)k->data.scalar.value, key))
			return yaml_walk_get(doc, pair->value);
	}
	return NULL;
}

/*
 * A rule that spans keys, reported at the value of key inside mapping
 * (path.key), or at the mapping when the key is absent (path).
 */
static int key_fail(struct yaml_walk *w, yaml_node_t *mapping, const char *path,
		    const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int key_fail(struct yaml_walk *w, yaml_node_t *mapping, const char *path,
		    const char *key, const char *fmt, ...)
{
	yaml_node_t *at = map_get(w->doc, mapping, key);
	char msg[512], sub[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(sub, sizeof(sub), "%s%s%s", path, at ? "." : "",
		 at ? key : "");
	return yaml_walk_fail(w, at ? at : mapping, sub, "%s", msg);
}

/* ---- node.accelerators ------------------------------------------------- */

static int accel_vendor(struct yaml_walk *w, yaml_node_t *v, const char *path,
			void *target)
{
	struct sn_accel_manifest *a = target;
	const char *s;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (sn_vendor_parse(s, &a->vendor))
		return yaml_walk_fail(w, v, path,
				      "'%.40s' is not a vendor (allowed: %s)",
				      s, sn_vendor_names());
	return 0;
}

static int accel_pci_vendor(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target)
{
	struct sn_accel_manifest *a = target;
	const char *s;
	char *end = NULL;
	unsigned long id;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (strncmp(s, "0x", 2) || strlen(s) != 6 ||
	    (id = strtoul(s + 2, &end, 16), !end || *end) || !id ||
	    id == 0xffff)
		return yaml_walk_fail(
			w, v, path,
			"'%.40s' is not a PCI vendor id (expected 0x followed by 4 hex digits, e.g. 0x19e5)",
			s);
	a->pci_vendor = (uint16_t)id;
	return 0;
}

static int accel_count(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return uint_into(w, v, path, 0, SN_MANIFEST_MAX_ACCELS,
			 &((struct sn_accel_manifest *)target)->count);
}

static int accel_glob(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_accel_manifest *a = target;

	if (yaml_walk_strdup(w, v, path, &a->device_glob))
		return -1;
	if (a->device_glob[0] == '/' || strstr(a->device_glob, ".."))
		return yaml_walk_fail(
			w, v, path,
			"'%.80s': give a glob relative to paths.dev (e.g. nvidia[0-9]*)",
			a->device_glob);
	return 0;
}

static int accel_gen(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return uint_into(w, v, path, 0, 7,
			 &((struct sn_accel_manifest *)target)->pcie_min_gen);
}

static int accel_width(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return uint_into(w, v, path, 0, 32,
			 &((struct sn_accel_manifest *)target)->pcie_min_width);
}

static int accel_speed(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return yaml_walk_bool(
		w, v, path,
		&((struct sn_accel_manifest *)target)->pcie_check_speed);
}

static int accel_nvlinks(struct yaml_walk *w, yaml_node_t *v, const char *path,
			 void *target)
{
	uint32_t n;

	if (uint_into(w, v, path, 0, SN_MANIFEST_MAX_NVLINKS, &n))
		return -1;
	((struct sn_accel_manifest *)target)->nvlinks = (int32_t)n;
	return 0;
}

/* links: up to SN_VENDOR_MAX_LINKS per device (inventory/sn_vendor_lib.h). */
static int accel_links(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	uint32_t n;

	if (uint_into(w, v, path, 0, 32, &n))
		return -1;
	((struct sn_accel_manifest *)target)->links = (int32_t)n;
	return 0;
}

static int accel_domain(struct yaml_walk *w, yaml_node_t *v, const char *path,
			void *target)
{
	return yaml_walk_bool(
		w, v, path,
		&((struct sn_accel_manifest *)target)->nvlink_domain);
}

static int accel_imex(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return yaml_walk_bool(w, v, path,
			      &((struct sn_accel_manifest *)target)->imex);
}

/* Slurm's switch/nvidia_imex numbers channels below imex_channel_count. */
static int accel_imex_channel(struct yaml_walk *w, yaml_node_t *v,
			      const char *path, void *target)
{
	return uint_into(w, v, path, 0, 1u << 20,
			 &((struct sn_accel_manifest *)target)->imex_channel);
}

static const struct yaml_key_rule accel_rules[] = {
	{ "vendor", accel_vendor, true },
	{ "pci_vendor", accel_pci_vendor, false },
	{ "count", accel_count, true },
	{ "device_glob", accel_glob, false },
	{ "pcie_min_gen", accel_gen, false },
	{ "pcie_min_width", accel_width, false },
	{ "pcie_check_speed", accel_speed, false },
	{ "nvlinks", accel_nvlinks, false },
	{ "links", accel_links, false },
	{ "nvlink_domain", accel_domain, false },
	{ "imex", accel_imex, false },
	{ "imex_channel", accel_imex_channel, false },
	{ NULL, NULL, false },
};

static int node_accelerators(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	struct sn_accel_manifest *a = &((struct sn_manifest *)target)->accel;
	const struct sn_vendor *vd;
	bool nv;

	if (yaml_walk_mapping(w, v, path, accel_rules, a))
		return -1;
	vd = sn_vendor_of(a->vendor);
	nv = vd->api == SN_VENDOR_API_NVML;
	if (!vd->pci_vendor && (!a->pci_vendor || !a->device_glob))
		return key_fail(w, v, path, "vendor",
				"vendor '%s' needs pci_vendor and device_glob",
				vd->name);
	if (a->nvlinks > 0 && !nv)
		return key_fail(w, v, path, "nvlinks",
				"nvlinks applies to vendor nvidia only");
	if (a->nvlink_domain && !nv)
		return key_fail(w, v, path, "nvlink_domain",
				"nvlink_domain applies to vendor nvidia only");
	if (a->imex && !nv)
		return key_fail(w, v, path, "imex",
				"imex applies to vendor nvidia only");
	if (a->links >= 0 && (vd->api != SN_VENDOR_API_LIB || !vd->link_name))
		return key_fail(
			w, v, path, "links",
			"links applies to a vendor whose library reports "
			"its device links (ascend, hygon, cambricon, "
			"mthreads, metax); vendor '%s' has none%s",
			vd->name, nv ? " (use nvlinks)" : "");
	return 0;
}

/* ---- node.ports -------------------------------------------------------- */

static int port_device(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	struct sn_port_manifest *p = target;

	if (yaml_walk_strdup(w, v, path, &p->device))
		return -1;
	if (!name_ok(p->device))
		return yaml_walk_fail(
			w, v, path,
			"'%.64s' is not an RDMA device name (e.g. mlx5_0)",
			p->device);
	return 0;
}

static int port_port(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return uint_into(w, v, path, 1, 255,
			 &((struct sn_port_manifest *)target)->port);
}

static int port_link_layer(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target)
{
	struct sn_port_manifest *p = target;
	const char *s;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (!strcmp(s, "InfiniBand"))
		p->link_layer = SN_LINK_INFINIBAND;
	else if (!strcmp(s, "Ethernet"))
		p->link_layer = SN_LINK_ETHERNET;
	else
		return yaml_walk_fail(
			w, v, path,
			"'%.40s' is not a link layer (allowed: InfiniBand, Ethernet)",
			s);
	return 0;
}

static int port_rate(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return yaml_walk_double(
		w, v, path, 0, 100000,
		&((struct sn_port_manifest *)target)->min_rate_gbps);
}

static int port_gen(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    void *target)
{
	return uint_into(w, v, path, 0, 7,
			 &((struct sn_port_manifest *)target)->pcie_min_gen);
}

static int port_width(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return uint_into(w, v, path, 0, 32,
			 &((struct sn_port_manifest *)target)->pcie_min_width);
}

static int port_gid(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    void *target)
{
	uint32_t n;

	if (uint_into(w, v, path, 0, 255, &n))
		return -1;
	((struct sn_port_manifest *)target)->gid_index = (int32_t)n;
	return 0;
}

/*
 * The five IB MTUs (enum ib_mtu, include/rdma/ib_verbs.h): a RoCE or IB
 * path MTU is always one of them, so anything else could never be met.
 */
static int port_mtu(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    void *target)
{
	static const char allowed[] = "256, 512, 1024, 2048, 4096";
	long long n;
	const char *s;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (!sn_number_parse(s, &n))
		return yaml_walk_fail(
			w, v, path,
			"'%.20s' is not an RDMA path MTU (allowed: %s)", s,
			allowed);
	if (n != 256 && n != 512 && n != 1024 && n != 2048 && n != 4096)
		return yaml_walk_fail(
			w, v, path,
			"%lld is not an RDMA path MTU (allowed: %s)", n,
			allowed);
	((struct sn_port_manifest *)target)->min_mtu = (uint32_t)n;
	return 0;
}

static const struct yaml_key_rule port_rules[] = {
	{ "device", port_device, true },
	{ "port", port_port, false },
	{ "link_layer", port_link_layer, true },
	{ "min_rate_gbps", port_rate, false },
	{ "pcie_min_gen", port_gen, false },
	{ "pcie_min_width", port_width, false },
	{ "gid_index", port_gid, false },
	{ "min_mtu", port_mtu, false },
	{ NULL, NULL, false },
};

static int node_ports(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_manifest *m = target;
	yaml_node_item_t *item;
	char sub[128];
	size_t n, i = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_walk_fail(
			w, v, path,
			"expected a list of {device, port, link_layer, ...}");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > SN_MANIFEST_MAX_PORTS)
		return yaml_walk_fail(w, v, path,
				      "%zu ports, more than the limit of %d", n,
				      SN_MANIFEST_MAX_PORTS);
	m->ports = calloc(n ? n : 1, sizeof(*m->ports));
	if (!m->ports)
		return yaml_walk_fail(w, v, path, "out of memory");
	for (item = v->data.sequence.items.start;
	     item < v->data.sequence.items.top; item++, i++) {
		struct sn_port_manifest *p = &m->ports[i];
		yaml_node_t *entry;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!(entry = yaml_walk_node(w, *item, sub)))
			return -1;
		m->n_ports = i + 1;
		p->port = 1;
		p->gid_index = -1;
		if (yaml_walk_mapping(w, entry, sub, port_rules, p))
			return -1;
		if (p->gid_index >= 0 && p->link_layer != SN_LINK_ETHERNET)
			return key_fail(
				w, entry, sub, "gid_index",
				"gid_index applies to Ethernet (RoCE) ports only");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(m->ports[k].device, p->device) &&
			    m->ports[k].port == p->port)
				return yaml_walk_fail(
					w, entry, sub,
					"%s port %u is listed twice (first as %s[%zu])",
					p->device, p->port, path, k);
	}
	return 0;
}

/* ---- node.topology ----------------------------------------------------- */

static int pair_accel(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return uint_into(w, v, path, 0, SN_MANIFEST_MAX_ACCELS - 1,
			 &((struct sn_pair *)target)->accelerator);
}

static int pair_nic(struct yaml_walk *w, yaml_node_t *v, const char *path,
		    void *target)
{
	struct sn_pair *p = target;

	if (yaml_walk_strdup(w, v, path, &p->nic))
		return -1;
	if (!name_ok(p->nic))
		return yaml_walk_fail(w, v, path,
				      "'%.64s' is not an RDMA device name",
				      p->nic);
	return 0;
}

static const struct yaml_key_rule pair_rules[] = {
	{ "accelerator", pair_accel, true },
	{ "nic", pair_nic, true },
	{ NULL, NULL, false },
};

static int topo_nearness(struct yaml_walk *w, yaml_node_t *v, const char *path,
			 void *target)
{
	struct sn_manifest *m = target;
	const char *s;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (!strcmp(s, "pcie_switch"))
		m->nearness = SN_NEAR_PCIE_SWITCH;
	else if (!strcmp(s, "numa"))
		m->nearness = SN_NEAR_NUMA;
	else
		return yaml_walk_fail(
			w, v, path,
			"'%.40s' is not a nearness (allowed: pcie_switch, numa)",
			s);
	return 0;
}

static int topo_pairs(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	struct sn_manifest *m = target;
	yaml_node_item_t *item;
	char sub[128];
	size_t n, i = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_walk_fail(w, v, path,
				      "expected a list of {accelerator, nic}");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n > SN_MANIFEST_MAX_ACCELS)
		return yaml_walk_fail(w, v, path,
				      "%zu pairs, more than the limit of %d", n,
				      SN_MANIFEST_MAX_ACCELS);
	m->pairs = calloc(n ? n : 1, sizeof(*m->pairs));
	if (!m->pairs)
		return yaml_walk_fail(w, v, path, "out of memory");
	for (item = v->data.sequence.items.start;
	     item < v->data.sequence.items.top; item++, i++) {
		yaml_node_t *entry;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!(entry = yaml_walk_node(w, *item, sub)))
			return -1;
		m->n_pairs = i + 1;
		if (yaml_walk_mapping(w, entry, sub, pair_rules, &m->pairs[i]))
			return -1;
	}
	return 0;
}

static const struct yaml_key_rule topo_rules[] = {
	{ "nearness", topo_nearness, false },
	{ "pairs", topo_pairs, false },
	{ NULL, NULL, false },
};

static int node_topology(struct yaml_walk *w, yaml_node_t *v, const char *path,
			 void *target)
{
	return yaml_walk_mapping(w, v, path, topo_rules, target);
}

static const struct yaml_key_rule node_rules[] = {
	{ "accelerators", node_accelerators, false },
	{ "ports", node_ports, false },
	{ "topology", node_topology, false },
	{ NULL, NULL, false },
};

/*
 * Every pair's accelerator must be one the node has.  Checked here, once
 * accelerators: and topology: are both read (in either order), so that the
 * message can name the line.
 */
static int pairs_check(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       const struct sn_manifest *m)
{
	yaml_node_t *pairs =
		map_get(w->doc, map_get(w->doc, v, "topology"), "pairs");
	char sub[128];

	for (size_t i = 0; i < m->n_pairs; i++) {
		yaml_node_t *entry = NULL, *acc;

		if (m->pairs[i].accelerator < m->accel.count)
			continue;
		if (pairs && pairs->type == YAML_SEQUENCE_NODE &&
		    (long)i < pairs->data.sequence.items.top -
				      pairs->data.sequence.items.start)
			entry = yaml_walk_get(
				w->doc, pairs->data.sequence.items.start[i]);
		acc = map_get(w->doc, entry, "accelerator");
		snprintf(sub, sizeof(sub), "%s.topology.pairs[%zu].accelerator",
			 path, i);
		if (m->accel.vendor == SN_ACCEL_NONE)
			return yaml_walk_fail(
				w, acc ? acc : v, sub,
				"topology pairs need node.accelerators");
		return yaml_walk_fail(
			w, acc ? acc : v, sub,
			"%u, but node.accelerators.count is %u (accelerators are numbered from 0)",
			m->pairs[i].accelerator, m->accel.count);
	}
	return 0;
}

int sn_config_section_node(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target)
{
	struct sn_config *cfg = target;

	cfg->node.present = true;
	if (yaml_walk_mapping(w, v, path, node_rules, &cfg->node))
		return -1;
	return pairs_check(w, v, path, &cfg->node);
}

/* ---- prolog: and drain: ------------------------------------------------ */

static int prolog_all_jobs(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target)
{
	return yaml_walk_bool(w, v, path,
			      &((struct sn_prolog_settings *)target)->all_jobs);
}

static int prolog_timeout(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	return uint_into(w, v, path, 1, 3600,
			 &((struct sn_prolog_settings *)target)->timeout_s);
}

static int prolog_check_timeout(struct yaml_walk *w, yaml_node_t *v,
				const char *path, void *target)
{
	return uint_into(
		w, v, path, 1, 3600,
		&((struct sn_prolog_settings *)target)->check_timeout_s);
}

static int prolog_unknown(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	return yaml_walk_bool(
		w, v, path,
		&((struct sn_prolog_settings *)target)->drain_on_unknown);
}

static const struct yaml_key_rule prolog_rules[] = {
	{ "all_jobs", prolog_all_jobs, false },
	{ "timeout", prolog_timeout, false },
	{ "check_timeout", prolog_check_timeout, false },
	{ "drain_on_unknown", prolog_unknown, false },
	{ NULL, NULL, false },
};

int sn_config_section_prolog(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	struct sn_config *cfg = target;
	uint32_t dflt = cfg->prolog.check_timeout_s;

	cfg->prolog.check_timeout_s = 0; /* 0: not given (it is >= 1) */
	if (yaml_walk_mapping(w, v, path, prolog_rules, &cfg->prolog))
		return -1;
	/* A short timeout alone shortens the default check_timeout with it. */
	if (!cfg->prolog.check_timeout_s)
		cfg->prolog.check_timeout_s = dflt < cfg->prolog.timeout_s ?
						      dflt :
						      cfg->prolog.timeout_s;
	if (cfg->prolog.check_timeout_s > cfg->prolog.timeout_s)
		return key_fail(w, v, path, "check_timeout",
				"check_timeout %u is above timeout %u",
				cfg->prolog.check_timeout_s,
				cfg->prolog.timeout_s);
	return 0;
}

static int drain_tag(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	struct sn_config *cfg = target;
	size_t n;

	if (yaml_walk_strdup(w, v, path, &cfg->drain_tag))
		return -1;
	n = strlen(cfg->drain_tag);
	if (n > 32)
		return yaml_walk_fail(w, v, path, "at most 32 characters");
	for (size_t i = 0; i < n; i++)
		if (cfg->drain_tag[i] < 0x21 || cfg->drain_tag[i] > 0x7e)
			return yaml_walk_fail(
				w, v, path,
				"printable characters only, no spaces");
	return 0;
}

static const struct yaml_key_rule drain_rules[] = {
	{ "tag", drain_tag, false },
	{ NULL, NULL, false },
};

int sn_config_section_drain(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target)
{
	return yaml_walk_mapping(w, v, path, drain_rules, target);
}

/* ---- defaults, finish, free -------------------------------------------- */

void sn_config_node_defaults(struct sn_config *cfg)
{
	cfg->node.accel.nvlinks = -1;
	cfg->node.accel.links = -1;
	cfg->node.nearness = SN_NEAR_PCIE_SWITCH;
	cfg->prolog.timeout_s = 30;
	cfg->prolog.check_timeout_s = 10;
}

int sn_config_node_finish(struct sn_config *cfg, struct sn_error *err)
{
	struct sn_accel_manifest *a = &cfg->node.accel;
	const struct sn_vendor *vd = sn_vendor_of(a->vendor);
	const char *glob = vd->device_glob;

	if (!cfg->drain_tag && !(cfg->drain_tag = strdup("supernode:")))
		goto oom;
	if (!cfg->kmsg && !(cfg->kmsg = strdup("/dev/kmsg")))
		goto oom;
	if (a->vendor == SN_ACCEL_NONE)
		return 0;
	if (!a->pci_vendor)
		a->pci_vendor = vd->pci_vendor;
	if (!a->device_glob && glob && !(a->device_glob = strdup(glob)))
		goto oom;
	return 0;
oom:
	sn_error_set(err, "%s: out of memory", cfg->path);
	return -1;
}

void sn_config_node_free(struct sn_config *cfg)
{
	free(cfg->node.accel.device_glob);
	for (size_t i = 0; i < cfg->node.n_ports; i++)
		free(cfg->node.ports[i].device);
	free(cfg->node.ports);
	for (size_t i = 0; i < cfg->node.n_pairs; i++)
		free(cfg->node.pairs[i].nic);
	free(cfg->node.pairs);
	free(cfg->drain_tag);
	free(cfg->nvml);
	free(cfg->hwloc_xml);
	free(cfg->nccl_conf);
	free(cfg->kmsg);
}
