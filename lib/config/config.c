/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode.yaml loader: libyaml document -> struct sn_config, through the
 * strict schema walker in yaml_walk.c.  Hostlists are expanded with Slurm's
 * parser (hostlist.c).  Everything is bounded: file size, YAML depth and
 * node count (yaml_walk_load), supernode count, node count.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_sections.h"
#include "config/sn_config.h"
#include "util/sn_ephemeral.h"
#include "util/sn_file.h"
#include "util/sn_hostlist.h"
#include "util/sn_log.h"
#include "util/sn_safedir.h"
#include "config/yaml_walk.h"

/* ---- names ------------------------------------------------------------ */

static int name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > SN_CONFIG_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-' ||
		      *s == '.'))
			return 0;
	return 1;
}

/* ---- supernodes: ------------------------------------------------------- */

static int supernode_name(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	struct sn_supernode *sn = target;

	if (yaml_walk_strdup(w, v, path, &sn->name))
		return -1;
	if (!name_valid(sn->name))
		return yaml_walk_fail(
			w, v, path,
			"'%.64s' is not a valid supernode name (1 to %d of A-Z a-z 0-9 _ . -; it becomes a Slurm node feature)",
			sn->name, SN_CONFIG_NAME_MAX);
	return 0;
}

static int supernode_nodes(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target)
{
	struct sn_supernode *sn = target;
	struct sn_names names;
	struct sn_error herr;

	if (yaml_walk_strdup(w, v, path, &sn->nodes))
		return -1;
	if (sn_hostlist_expand(sn->nodes, SN_HOSTLIST_MAX, &names, &herr))
		return yaml_walk_fail(w, v, path, "%s", herr.msg);
	sn->members = names.names;
	sn->size = names.count;
	return 0;
}

/* Decimal digits only, not empty, at most 4294967295; *end after them. */
static bool u32_text(const char *s, const char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9' && p - s < 10; p++)
		v = v * 10 + (unsigned)(*p - '0');
	*end = p;
	return p > s && v <= 0xffffffffull && !(*p >= '0' && *p <= '9');
}

static bool uuid_text(const char *s)
{
	static const char form[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	for (size_t i = 0; i < sizeof(form) - 1; i++) {
		if (form[i] == '-' ? s[i] != '-' :
				     !strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	}
	return true;
}

bool sn_config_identity_valid(const char *s)
{
	const char *end;

	if (!strncmp(s, "nvlink:", 7)) {
		s += 7;
		if (!uuid_text(s) || s[36] != '/')
			return false;
		return u32_text(s + 37, &end) && !*end;
	}
	if (!strncmp(s, "ascend:", 7))
		return u32_text(s + 7, &end) && !*end;
	return false;
}

static int supernode_identity(struct yaml_walk *w, yaml_node_t *v,
			      const char *path, void *target)
{
	struct sn_supernode *sn = target;

	if (yaml_walk_strdup(w, v, path, &sn->identity))
		return -1;
	if (!sn_config_identity_valid(sn->identity))
		return yaml_walk_fail(
			w, v, path,
			"'%.80s' is not an identity (nvlink:<cluster uuid>/<clique id> or ascend:<super pod id>, lower-case hex, as supernodectl discover prints)",
			sn->identity);
	/* A zero UUID is "in no NVLink domain": every node would mismatch. */
	if (!strncmp(sn->identity,
		     "nvlink:00000000-0000-0000-0000-000000000000/", 44))
		return yaml_walk_fail(
			w, v, path,
			"'%.80s': a zero cluster UUID means no multi-node NVLink domain; leave identity out for such a supernode",
			sn->identity);
	return 0;
}

static const struct yaml_key_rule supernode_rules[] = {
	{ "name", supernode_name, true },
	{ "nodes", supernode_nodes, true },
	{ "identity", supernode_identity, false },
	{ NULL, NULL, false },
};

static int section_supernodes(struct yaml_walk *w, yaml_node_t *v,
			      const char *path, void *target)
{
	struct sn_config *cfg = target;
	yaml_node_item_t *item;
	size_t n, i = 0, total = 0;
	char sub[96];

	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_walk_fail(w, v, path,
				      "expected a list of {name, nodes}");
	n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	if (n == 0)
		return yaml_walk_fail(w, v, path, "no supernodes listed");
	if (n > SN_CONFIG_MAX_SUPERNODES)
		return yaml_walk_fail(
			w, v, path, "%zu supernodes, more than the limit of %u",
			n, SN_CONFIG_MAX_SUPERNODES);
	cfg->supernodes = calloc(n, sizeof(*cfg->supernodes));
	if (!cfg->supernodes)
		return yaml_walk_fail(w, v, path, "out of memory");
	for (item = v->data.sequence.items.start;
	     item < v->data.sequence.items.top; item++, i++) {
		struct sn_supernode *sn = &cfg->supernodes[i];
		yaml_node_t *entry;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!(entry = yaml_walk_node(w, *item, sub)))
			return -1;
		cfg->n_supernodes = i + 1;
		sn->line = (unsigned)entry->start_mark.line + 1;
		if (yaml_walk_mapping(w, entry, sub, supernode_rules, sn))
			return -1;
		/* Stop expanding as soon as the total is over (not after). */
		total += sn->size;
		if (total > SN_CONFIG_MAX_NODES)
			return yaml_walk_fail(
				w, entry, sub,
				"%zu nodes in all up to here, more than the limit of %u",
				total, SN_CONFIG_MAX_NODES);
		if (i > 0 && sn->size != cfg->supernodes[0].size) {
			snprintf(sub, sizeof(sub), "%s[%zu].nodes", path, i);
			return yaml_walk_fail(
				w, entry, sub,
				"supernode %s has %zu nodes but %s has %zu: all supernodes must have the same size",
				sn->name, sn->size, cfg->supernodes[0].name,
				cfg->supernodes[0].size);
		}
	}
	cfg->supernode_size = cfg->supernodes[0].size;
	return 0;
}

/* ---- placement: -------------------------------------------------------- */

static int placement_method(struct yaml_walk *w, yaml_node_t *v,
			    const char *path, void *target)
{
	struct sn_config *cfg = target;
	const char *s;

	if (yaml_walk_string(w, v, path, &s))
		return -1;
	if (!strcmp(s, "feature"))
		cfg->method = SN_PLACE_FEATURE;
	else if (!strcmp(s, "switch"))
		cfg->method = SN_PLACE_SWITCH;
	else if (!strcmp(s, "block"))
		cfg->method = SN_PLACE_BLOCK;
	else
		return yaml_walk_fail(
			w, v, path,
			"'%.40s' is not a method (allowed: feature, switch, block)",
			s);
	return 0;
}

static int placement_max(struct yaml_walk *w, yaml_node_t *v, const char *path,
			 void *target)
{
	struct sn_config *cfg = target;
	unsigned long long n;

	if (yaml_walk_uint(w, v, path, 1, SN_CONFIG_MAX_SUPERNODES, &n))
		return -1;
	cfg->max_supernodes = (uint32_t)n;
	return 0;
}

static int placement_switch_wait(struct yaml_walk *w, yaml_node_t *v,
				 const char *path, void *target)
{
	struct sn_config *cfg = target;
	unsigned long long n;

	if (yaml_walk_uint(w, v, path, 0, 7 * 24 * 3600, &n))
		return -1;
	cfg->switch_wait = (uint32_t)n;
	return 0;
}

static int placement_max_requeues(struct yaml_walk *w, yaml_node_t *v,
				  const char *path, void *target)
{
	struct sn_config *cfg = target;
	unsigned long long n;

	if (yaml_walk_uint(w, v, path, 0, 100, &n))
		return -1;
	cfg->max_requeues = (uint32_t)n;
	return 0;
}

static const struct yaml_key_rule placement_rules[] = {
	{ "method", placement_method, false },
	{ "max_supernodes", placement_max, false },
	{ "switch_wait", placement_switch_wait, false },
	{ "max_requeues", placement_max_requeues, false },
	{ NULL, NULL, false },
};

static int section_placement(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	return yaml_walk_mapping(w, v, path, placement_rules, target);
}

/* ---- env: -------------------------------------------------------------- */

static int env_port_range(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	struct sn_config *cfg = target;
	unsigned long long lo, hi;
	yaml_node_t *a, *b;
	char sub0[96], sub1[96];

	if (v->type != YAML_SEQUENCE_NODE ||
	    v->data.sequence.items.top - v->data.sequence.items.start != 2)
		return yaml_walk_fail(w, v, path,
				      "expected [LOW, HIGH], two port numbers");
	snprintf(sub0, sizeof(sub0), "%s[0]", path);
	snprintf(sub1, sizeof(sub1), "%s[1]", path);
	if (!(a = yaml_walk_node(w, v->data.sequence.items.start[0], sub0)) ||
	    !(b = yaml_walk_node(w, v->data.sequence.items.start[1], sub1)))
		return -1;
	if (yaml_walk_uint(w, a, sub0, 1024, 65535, &lo) ||
	    yaml_walk_uint(w, b, sub1, 1024, 65535, &hi))
		return -1;
	if (hi < lo)
		return yaml_walk_fail(w, v, path, "LOW %llu is above HIGH %llu",
				      lo, hi);
	cfg->master_port_lo = (uint16_t)lo;
	cfg->master_port_hi = (uint16_t)hi;
	cfg->master_port_line = (unsigned)v->start_mark.line + 1;
	cfg->master_port_col = (unsigned)v->start_mark.column + 1;
	return 0;
}

/* A list of names (NIC devices, variables): each matching the character set. */
static int name_list(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     const char *charset, size_t max, char ***out, size_t *n)
{
	yaml_node_item_t *item;
	char sub[128];

	if (v->type != YAML_SEQUENCE_NODE)
		return yaml_walk_fail(w, v, path, "expected a list of names");
	*n = 0;
	*out = calloc(max, sizeof(**out));
	if (!*out)
		return yaml_walk_fail(w, v, path, "out of memory");
	for (item = v->data.sequence.items.start;
	     item < v->data.sequence.items.top; item++) {
		yaml_node_t *e;
		const char *s;

		snprintf(sub, sizeof(sub), "%s[%zu]", path, *n);
		if (*n >= max)
			return yaml_walk_fail(w, v, path, "more than %zu names",
					      max);
		if (!(e = yaml_walk_node(w, *item, sub)) ||
		    yaml_walk_string(w, e, sub, &s))
			return -1;
		if (strlen(s) > 63 || strspn(s, charset) != strlen(s))
			return yaml_walk_fail(w, e, sub,
					      "'%.64s' is not a valid name", s);
		for (size_t k = 0; k < *n; k++)
			if (!strcmp((*out)[k], s))
				return yaml_walk_fail(
					w, e, sub, "'%s' is listed twice", s);
		if (!((*out)[(*n)++] = strdup(s)))
			return yaml_walk_fail(w, e, sub, "out of memory");
	}
	return 0;
}

#define SN_NIC_CHARS \
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
#define SN_VAR_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

static int env_socket_ifname(struct yaml_walk *w, yaml_node_t *v,
			     const char *path, void *target)
{
	struct sn_config *cfg = target;

	if (yaml_walk_strdup(w, v, path, &cfg->socket_ifname))
		return -1;
	if (strlen(cfg->socket_ifname) > 15 ||
	    strspn(cfg->socket_ifname, SN_NIC_CHARS) !=
		    strlen(cfg->socket_ifname))
		return yaml_walk_fail(
			w, v, path,
			"'%.40s' is not a network interface name (at most 15 of A-Z a-z 0-9 _ . -)",
			cfg->socket_ifname);
	return 0;
}

static int env_hca(struct yaml_walk *w, yaml_node_t *v, const char *path,
		   void *target)
{
	struct sn_config *cfg = target;

	return name_list(w, v, path, SN_NIC_CHARS, 64, &cfg->hca, &cfg->n_hca);
}

static int env_force(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	struct sn_config *cfg = target;

	return name_list(w, v, path, SN_VAR_CHARS, 64, &cfg->force,
			 &cfg->n_force);
}

static int env_mnnvl(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return yaml_walk_bool(w, v, path, &((struct sn_config *)target)->mnnvl);
}

static int env_pytorch(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return yaml_walk_bool(w, v, path,
			      &((struct sn_config *)target)->pytorch);
}

static const struct yaml_key_rule env_rules[] = {
	{ "master_port_range", env_port_range, false },
	{ "socket_ifname", env_socket_ifname, false },
	{ "hca", env_hca, false },
	{ "mnnvl", env_mnnvl, false },
	{ "pytorch", env_pytorch, false },
	{ "force", env_force, false },
	{ NULL, NULL, false },
};

static int section_env(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return yaml_walk_mapping(w, v, path, env_rules, target);
}

/* ---- paths: ------------------------------------------------------------ */

static int paths_sysfs(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return sn_config_path(w, v, path, &((struct sn_config *)target)->sysfs);
}

static int paths_dev(struct yaml_walk *w, yaml_node_t *v, const char *path,
		     void *target)
{
	return sn_config_path(w, v, path, &((struct sn_config *)target)->dev);
}

static int paths_state(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return sn_config_path(w, v, path,
			      &((struct sn_config *)target)->state_dir);
}

static int paths_nvml(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return sn_config_path(w, v, path, &((struct sn_config *)target)->nvml);
}

static int paths_hwloc(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return sn_config_path(w, v, path,
			      &((struct sn_config *)target)->hwloc_xml);
}

static int paths_nccl_conf(struct yaml_walk *w, yaml_node_t *v,
			   const char *path, void *target)
{
	return sn_config_path(w, v, path,
			      &((struct sn_config *)target)->nccl_conf);
}

static int paths_kmsg(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return sn_config_path(w, v, path, &((struct sn_config *)target)->kmsg);
}

static int paths_imex_ctl(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	return sn_config_path(w, v, path,
			      &((struct sn_config *)target)->imex_ctl);
}

static int paths_imex_channels(struct yaml_walk *w, yaml_node_t *v,
			       const char *path, void *target)
{
	return sn_config_path(w, v, path,
			      &((struct sn_config *)target)->imex_channels);
}

static int paths_dcmi(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return sn_config_path(w, v, path, &((struct sn_config *)target)->dcmi);
}

/* paths.<lib_key> of the vendor table's libraries other than NVML, DCMI. */
static int vendor_lib(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target, enum sn_accel_vendor vendor)
{
	return sn_config_path(
		w, v, path, &((struct sn_config *)target)->vendor_lib[vendor]);
}

static int paths_rocm_smi(struct yaml_walk *w, yaml_node_t *v, const char *path,
			  void *target)
{
	return vendor_lib(w, v, path, target, SN_ACCEL_HYGON);
}

static int paths_cndev(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return vendor_lib(w, v, path, target, SN_ACCEL_CAMBRICON);
}

static int paths_mtml(struct yaml_walk *w, yaml_node_t *v, const char *path,
		      void *target)
{
	return vendor_lib(w, v, path, target, SN_ACCEL_MTHREADS);
}

static int paths_mxsml(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return vendor_lib(w, v, path, target, SN_ACCEL_METAX);
}

static int paths_xpuml(struct yaml_walk *w, yaml_node_t *v, const char *path,
		       void *target)
{
	return vendor_lib(w, v, path, target, SN_ACCEL_KUNLUNXIN);
}

/* Account names as useradd takes them (and Debian's system accounts). */
#define SN_ACCOUNT_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_.-"

static int paths_trusted_owners(struct yaml_walk *w, yaml_node_t *v,
				const char *path, void *target)
{
	struct sn_config *cfg = target;

	if (name_list(w, v, path, SN_ACCOUNT_CHARS, SN_SAFEDIR_MAX_OWNERS,
		      &cfg->trusted_owners, &cfg->n_trusted_owners))
		return -1;
	for (size_t i = 0; i < cfg->n_trusted_owners; i++)
		if (strlen(cfg->trusted_owners[i]) > SN_SAFEDIR_OWNER_MAX)
			return yaml_walk_fail(
				w, v, path,
				"'%s': an account name has at most %d characters",
				cfg->trusted_owners[i], SN_SAFEDIR_OWNER_MAX);
	return 0;
}

static const struct yaml_key_rule paths_rules[] = {
	{ "sysfs", paths_sysfs, false },
	{ "dev", paths_dev, false },
	{ "state_dir", paths_state, false },
	{ "nvml", paths_nvml, false },
	{ "hwloc_xml", paths_hwloc, false },
	{ "kmsg", paths_kmsg, false },
	{ "imex_ctl", paths_imex_ctl, false },
	{ "imex_channels", paths_imex_channels, false },
	{ "dcmi", paths_dcmi, false },
	{ "rocm_smi", paths_rocm_smi, false },
	{ "cndev", paths_cndev, false },
	{ "mtml", paths_mtml, false },
	{ "mxsml", paths_mxsml, false },
	{ "xpuml", paths_xpuml, false },
	{ "trusted_owners", paths_trusted_owners, false },
	{ "nccl_conf", paths_nccl_conf, false },
	{ NULL, NULL, false },
};

static int section_paths(struct yaml_walk *w, yaml_node_t *v, const char *path,
			 void *target)
{
	return yaml_walk_mapping(w, v, path, paths_rules, target);
}

static const struct yaml_key_rule top_rules[] = {
	{ "supernodes", section_supernodes, true },
	{ "placement", section_placement, false },
	{ "env", section_env, false },
	{ "paths", section_paths, false },
	{ "node", sn_config_section_node, false },
	{ "prolog", sn_config_section_prolog, false },
	{ "drain", sn_config_section_drain, false },
	{ "epilog", sn_config_section_epilog, false },
	{ "bench", sn_config_section_bench, false },
	{ NULL, NULL, false },
};

/* ---- whole-file checks ------------------------------------------------- */

/* YAML forbids tabs in indentation; say where, before libyaml does vaguely. */
static int tabs_check(const char *file, const char *buf, size_t len,
		      struct sn_error *err)
{
	size_t line = 1, col = 1;
	int indent = 1;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
			indent = 1;
			continue;
		}
		if (indent && buf[i] == '\t') {
			sn_error_set(
				err,
				"%s:%zu:%zu: tab in indentation (YAML indents with spaces)",
				file, line, col);
			return -1;
		}
		if (buf[i] != ' ' && buf[i] != '-')
			indent = 0;
		col++;
	}
	return 0;
}

static int node_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sn_node *)a)->name,
		      ((const struct sn_node *)b)->name);
}

/* The same node twice: name both supernodes (or the one, if listed twice). */
static void node_twice(const struct sn_config *cfg, const struct sn_node *a,
		       const struct sn_node *b, struct sn_error *err)
{
	const struct sn_supernode *sa, *sb;

	if (a->supernode > b->supernode) {
		const struct sn_node *t = a;

		a = b;
		b = t;
	}
	sa = &cfg->supernodes[a->supernode];
	sb = &cfg->supernodes[b->supernode];
	if (sa == sb)
		sn_error_set(
			err,
			"%s:%u:1: supernodes[%u].nodes: node %s is listed twice in supernode %s",
			cfg->path, sb->line, b->supernode, b->name, sb->name);
	else
		sn_error_set(
			err,
			"%s:%u:1: supernodes[%u].nodes: node %s of supernode %s is already in supernode %s (line %u): a node belongs to one supernode",
			cfg->path, sb->line, b->supernode, b->name, sb->name,
			sa->name, sa->line);
}

/*
 * Already in name order (supernodes listed in order, zero-padded ranges:
 * the usual config)?  Then qsort() is skipped: at 180,000 nodes it was a
 * quarter of the load (tests/bench/scale_bench).  Equal names stay in
 * config order, as the stable sort left them, so node_twice() names the
 * same pair either way.
 */
static bool nodes_sorted(const struct sn_node *nodes, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (node_cmp(&nodes[i - 1], &nodes[i]) > 0)
			return false;
	return true;
}

static int index_build(struct sn_config *cfg, struct sn_error *err)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < cfg->n_supernodes; i++)
		total += cfg->supernodes[i].size;
	if (total > SN_CONFIG_MAX_NODES) {
		sn_error_set(
			err,
			"%s: supernodes: %zu nodes in all, more than the limit of %u",
			cfg->path, total, SN_CONFIG_MAX_NODES);
		return -1;
	}
	cfg->nodes = calloc(total, sizeof(*cfg->nodes));
	if (!cfg->nodes) {
		sn_error_set(err, "%s: out of memory", cfg->path);
		return -1;
	}
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		for (size_t r = 0; r < cfg->supernodes[i].size; r++) {
			cfg->nodes[k].name = cfg->supernodes[i].members[r];
			cfg->nodes[k].supernode = (uint32_t)i;
			cfg->nodes[k].rank = (uint32_t)r;
			k++;
		}
	cfg->n_nodes = total;
	if (!nodes_sorted(cfg->nodes, total))
		qsort(cfg->nodes, total, sizeof(*cfg->nodes), node_cmp);
	for (size_t i = 1; i < total; i++) {
		const struct sn_node *a = &cfg->nodes[i - 1],
				     *b = &cfg->nodes[i];

		if (strcmp(a->name, b->name))
			continue;
		node_twice(cfg, a, b, err);
		return -1;
	}
	return 0;
}

static int supernode_ptr_cmp(const void *a, const void *b)
{
	const struct sn_supernode *x = *(const struct sn_supernode *const *)a;
	const struct sn_supernode *y = *(const struct sn_supernode *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int names_unique(struct sn_config *cfg, struct sn_error *err)
{
	const struct sn_supernode **by_name;
	int rc = 0;

	by_name = calloc(cfg->n_supernodes, sizeof(*by_name));
	if (!by_name) {
		sn_error_set(err, "%s: out of memory", cfg->path);
		return -1;
	}
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		by_name[i] = &cfg->supernodes[i];
	qsort(by_name, cfg->n_supernodes, sizeof(*by_name), supernode_ptr_cmp);
	for (size_t i = 1; i < cfg->n_supernodes; i++) {
		if (strcmp(by_name[i - 1]->name, by_name[i]->name))
			continue;
		sn_error_set(
			err,
			"%s:%u:1: supernodes: name %s is used twice (first on line %u)",
			cfg->path, by_name[i]->line, by_name[i]->name,
			by_name[i - 1]->line);
		rc = -1;
		break;
	}
	free(by_name);
	return rc;
}

static int semantics_check(struct sn_config *cfg, struct sn_error *err)
{
	if (names_unique(cfg, err) || index_build(cfg, err))
		return -1;
	if (!cfg->max_supernodes)
		cfg->max_supernodes = (uint32_t)cfg->n_supernodes;
	if (cfg->method == SN_PLACE_FEATURE &&
	    cfg->n_supernodes > SN_FEATURE_MAX_ALTERNATIVES) {
		sn_error_set(
			err,
			"%s: placement.method: 'feature' handles at most %u supernodes (Slurm's matching OR \"[a|b|...]\" holds 64 alternatives and slurmctld crashes beyond); %zu are configured: use 'switch' or 'block'",
			cfg->path, SN_FEATURE_MAX_ALTERNATIVES,
			cfg->n_supernodes);
		return -1;
	}
	return 0;
}

static void defaults_set(struct sn_config *cfg)
{
	cfg->method = SN_PLACE_FEATURE;
	cfg->switch_wait = 300;
	cfg->max_requeues = SN_CONFIG_REQUEUES_SLURM;
	cfg->pytorch = true;
	cfg->master_port_lo = 20000;
	cfg->master_port_hi = 29999;
}

static int defaults_paths(struct sn_config *cfg, struct sn_error *err)
{
	if ((!cfg->sysfs && !(cfg->sysfs = strdup("/sys"))) ||
	    (!cfg->dev && !(cfg->dev = strdup("/dev"))) ||
	    (!cfg->state_dir &&
	     !(cfg->state_dir = strdup(SN_CONFIG_DEFAULT_STATE_DIR)))) {
		sn_error_set(err, "%s: out of memory", cfg->path);
		return -1;
	}
	return 0;
}

/* ---- public ------------------------------------------------------------ */

static int document_walk(struct sn_config *cfg, yaml_document_t *doc,
			 struct sn_error *err)
{
	struct yaml_walk w = { .file = cfg->path, .doc = doc, .err = err };
	size_t nnodes = (size_t)(doc->nodes.top - doc->nodes.start);
	yaml_node_t *root;
	int rc;

	w.seen = calloc(nnodes ? nnodes : 1, 1);
	if (!w.seen) {
		sn_error_set(err, "%s: out of memory", cfg->path);
		return -1;
	}
	root = yaml_walk_node(&w, 1, "(document)");
	if (!root ||
	    (root->type == YAML_SCALAR_NODE && !root->data.scalar.length)) {
		sn_error_set(
			err,
			"%s: empty config (expected at least 'supernodes:')",
			cfg->path);
		rc = -1;
	} else {
		rc = yaml_walk_mapping(&w, root, "", top_rules, cfg);
	}
	free(w.seen);
	/* the deprecated forms met, for the warnings and config migrate */
	cfg->deprecated = w.uses;
	cfg->n_deprecated = w.n_uses;
	return rc;
}

/* The largest valid document must fit yaml_walk_load()'s node bound. */
_Static_assert(SN_CONFIG_MAX_SUPERNODES * 5u + 16384u <= YAML_WALK_MAX_NODES,
	       "YAML_WALK_MAX_NODES is below the largest valid supernodes list");

/* The one document of buf, bounded (yaml_walk_load), walked into cfg. */
static int yaml_parse(struct sn_config *cfg, const char *buf, size_t len,
		      struct sn_error *err)
{
	yaml_document_t doc;
	int rc;

	if (yaml_walk_load(cfg->path, buf, len, &doc, err))
		return -1;
	rc = document_walk(cfg, &doc, err);
	yaml_document_delete(&doc);
	return rc;
}

/*
 * The folders root writes follow the config just loaded (one rule per
 * process: the prolog, the epilog and supernodectl load one config).
 */
static void trust_set(const struct sn_config *cfg)
{
	static const char *const dflt[] = { SN_TRUSTED_OWNERS_DEFAULT };

	if (cfg->trusted_owners)
		sn_safedir_trust_owners(
			(const char *const *)cfg->trusted_owners,
			cfg->n_trusted_owners);
	else
		sn_safedir_trust_owners(dflt, 1);
}

/* A config of path's name holding only the defaults; NULL with err set. */
static struct sn_config *config_new(const char *path, struct sn_error *err)
{
	struct sn_config *cfg = calloc(1, sizeof(*cfg));

	if (!cfg || !(cfg->path = strdup(path ? path : "(config)"))) {
		sn_error_set(err, "%s: out of memory", path);
		free(cfg);
		return NULL;
	}
	defaults_set(cfg);
	sn_config_node_defaults(cfg);
	sn_config_bench_defaults(cfg);
	return cfg;
}

/* Every check after the walk; 0, or -1 with err set. */
static int config_finish(struct sn_config *cfg, struct sn_error *err)
{
	if (semantics_check(cfg, err) || defaults_paths(cfg, err) ||
	    sn_config_node_finish(cfg, err) ||
	    sn_config_epilog_finish(cfg, err))
		return -1;
	trust_set(cfg);
	return 0;
}

struct sn_config *sn_config_load_buffer(const char *path, const char *buf,
					size_t len, struct sn_error *err)
{
	struct sn_config *cfg = config_new(path, err);

	if (!cfg)
		return NULL;
	if (len > SN_CONFIG_MAX_BYTES) {
		sn_error_set(err, "%s: %zu bytes, more than the limit of %u",
			     cfg->path, len, SN_CONFIG_MAX_BYTES);
		goto fail;
	}
	if (tabs_check(cfg->path, buf, len, err) ||
	    yaml_parse(cfg, buf, len, err) || config_finish(cfg, err))
		goto fail;
	return cfg;
fail:
	sn_config_free(cfg);
	return NULL;
}

struct sn_config *sn_config_from_doc(const char *path, yaml_document_t *doc,
				     struct sn_error *err)
{
	struct sn_config *cfg = config_new(path, err);

	if (!cfg)
		return NULL;
	if (document_walk(cfg, doc, err) || config_finish(cfg, err)) {
		sn_config_free(cfg);
		return NULL;
	}
	return cfg;
}

int sn_config_port_warning(const struct sn_config *cfg, const char *procfs,
			   struct sn_error *warn)
{
	char file[4096], where[64] = "";
	uint16_t lo, hi;
	uint32_t span, inside;

	snprintf(file, sizeof(file), "%s/%s", procfs, SN_CONFIG_EPHEMERAL_FILE);
	if (sn_ephemeral_range_read(file, &lo, &hi, NULL) ||
	    cfg->master_port_hi < lo || cfg->master_port_lo > hi)
		return 0;
	if (cfg->master_port_line)
		snprintf(where, sizeof(where), ":%u:%u", cfg->master_port_line,
			 cfg->master_port_col);
	span = (uint32_t)cfg->master_port_hi - cfg->master_port_lo + 1;
	inside = (uint32_t)(cfg->master_port_hi < hi ? cfg->master_port_hi :
						       hi) -
		 (cfg->master_port_lo > lo ? cfg->master_port_lo : lo) + 1;
	if (inside < span)
		sn_error_set(
			warn,
			"%s%s: env.master_port_range: %u of its %u ports lie inside the kernel's ephemeral port range %u-%u (%s): MASTER_PORT takes only the other %u",
			cfg->path, where, inside, span, lo, hi, file,
			span - inside);
	else
		sn_error_set(
			warn,
			"%s%s: env.master_port_range: [%u, %u]%s lies wholly inside the kernel's ephemeral port range %u-%u (%s): MASTER_PORT is left unset in every job on this machine",
			cfg->path, where, cfg->master_port_lo,
			cfg->master_port_hi,
			cfg->master_port_line ? "" : " (the default)", lo, hi,
			file);
	return 1;
}

struct sn_config *sn_config_load(const char *path, struct sn_error *err)
{
	struct sn_config *cfg;
	size_t len = 0;
	char *buf = sn_file_load(path, SN_CONFIG_MAX_BYTES, &len, err);

	if (!buf)
		return NULL;
	cfg = sn_config_load_buffer(path, buf, len, err);
	free(buf);
	return cfg;
}

void sn_config_default_path(char *buf, size_t size)
{
	const char *conf = getenv("SLURM_CONF");
	const char *slash = conf ? strrchr(conf, '/') : NULL;

	if (!conf || conf[0] != '/' || !slash)
		snprintf(buf, size, "%s", SN_CONFIG_DEFAULT_PATH);
	else
		snprintf(buf, size, "%.*s/supernode.yaml", (int)(slash - conf),
			 conf);
}

void sn_config_log_deprecated(const struct sn_config *cfg)
{
	for (size_t i = 0; i < cfg->n_deprecated; i++)
		sn_log(LOG_WARNING, "warning: %s", cfg->deprecated[i].msg);
}

void sn_config_free(struct sn_config *cfg)
{
	if (!cfg)
		return;
	yaml_walk_uses_free(cfg->deprecated, cfg->n_deprecated);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		struct sn_names names = { cfg->supernodes[i].members,
					  cfg->supernodes[i].size };

		free(cfg->supernodes[i].name);
		free(cfg->supernodes[i].nodes);
		free(cfg->supernodes[i].identity);
		sn_names_free(&names);
	}
	free(cfg->supernodes);
	free(cfg->nodes);
	free(cfg->sysfs);
	free(cfg->dev);
	free(cfg->state_dir);
	free(cfg->imex_ctl);
	free(cfg->imex_channels);
	free(cfg->dcmi);
	for (unsigned i = 0; i < SN_ACCEL_VENDOR_COUNT; i++)
		free(cfg->vendor_lib[i]);
	sn_config_node_free(cfg);
	sn_config_epilog_free(cfg);
	for (size_t i = 0; i < cfg->n_hca; i++)
		free(cfg->hca[i]);
	free(cfg->hca);
	for (size_t i = 0; i < cfg->n_force; i++)
		free(cfg->force[i]);
	free(cfg->force);
	for (size_t i = 0; i < cfg->n_trusted_owners; i++)
		free(cfg->trusted_owners[i]);
	free(cfg->trusted_owners);
	free(cfg->socket_ifname);
	free(cfg->path);
	free(cfg);
}

const struct sn_node *sn_config_find_node(const struct sn_config *cfg,
					  const char *name)
{
	struct sn_node key = { .name = name };

	if (!cfg || !name || !cfg->n_nodes)
		return NULL;
	return bsearch(&key, cfg->nodes, cfg->n_nodes, sizeof(*cfg->nodes),
		       node_cmp);
}

uint32_t sn_config_effective_max(const struct sn_config *cfg)
{
	if (cfg->max_supernodes < cfg->n_supernodes)
		return cfg->max_supernodes;
	return (uint32_t)cfg->n_supernodes;
}

const char *sn_placement_method_name(enum sn_placement_method m)
{
	switch (m) {
	case SN_PLACE_FEATURE:
		return "feature";
	case SN_PLACE_SWITCH:
		return "switch";
	case SN_PLACE_BLOCK:
		return "block";
	}
	return "?";
}
