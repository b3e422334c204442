/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl config slurm [--section nodes|topology|plugstack]
 *                           [--topology tree|block|none]
 *
 * Print what Slurm needs to match supernode.yaml:
 *   nodes      one "NodeName=<hostlist> Feature=<supernode>" line per
 *              supernode (hostlist compressed with Slurm's own code), to
 *              merge into slurm.conf's NodeName lines;
 *   topology   topology.conf: tree = one leaf SwitchName per supernode and
 *              a top switch over them (without it no job spans two
 *              supernodes); block = one BlockName per supernode and
 *              BlockSizes=<nodes per supernode>; built for Slurm >= 25.05,
 *              block also prints topology.yaml (the blocks as topology
 *              "supernode", the cluster default, and a "flat" one);
 *   plugstack  the plugstack.conf line, and the slurm.conf lines that go
 *              with it (JobSubmitPlugins, TopologyPlugin, PrologSlurmctld).
 * The default topology follows placement.method: switch -> tree,
 * block -> block, feature -> none.  Without --section, every part is
 * printed, each under a comment naming its file.  Pure: reads only the
 * config.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snctl_config.h"
#include "util/sn_slurm.h"

#ifndef SN_PLUGIN_FULL_DIR
#define SN_PLUGIN_FULL_DIR "/usr/lib/x86_64-linux-gnu/slurm-supernode"
#endif
#ifndef SN_SBIN_FULL_DIR
#define SN_SBIN_FULL_DIR "/usr/sbin"
#endif

enum topo_kind {
	TOPO_DEFAULT,
	TOPO_NONE,
	TOPO_TREE,
	TOPO_BLOCK
};

enum {
	SEC_NODES = 1,
	SEC_TOPOLOGY = 2,
	SEC_PLUGSTACK = 4,
	SEC_ALL = 7,
};

struct slurm_args {
	struct snctl_global g;
	unsigned sections;
	enum topo_kind topo;
};

/*
 * Compress a list of names with Slurm's hostlist code into buf ("sna[1-2]").
 * Returns 0, or -1 if it does not parse or fit.
 */
static int hostlist_compress(char *const *names, size_t n, char *buf,
			     size_t size)
{
	sn_slurm_hostlist hl = slurm_hostlist_create(NULL);
	ssize_t len;

	if (!hl)
		return -1;
	for (size_t i = 0; i < n; i++)
		slurm_hostlist_push_host(hl, names[i]);
	slurm_hostlist_uniq(hl);
	len = slurm_hostlist_ranged_string(hl, size, buf);
	slurm_hostlist_destroy(hl);
	return len < 0 || (size_t)len >= size ? -1 : 0;
}

/* Compress, or fall back to the list as written in the config. */
static const char *members_text(const struct sn_supernode *s, char *buf,
				size_t size)
{
	return hostlist_compress(s->members, s->size, buf, size) ? s->nodes :
								   buf;
}

static void print_nodes(const struct sn_config *cfg, char *buf, size_t size)
{
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		const struct sn_supernode *s = &cfg->supernodes[i];

		printf("NodeName=%s Feature=%s\n", members_text(s, buf, size),
		       s->name);
	}
}

/* The supernode names, compressed ("sn[01-16]"), for Switches=. */
static const char *names_text(const struct sn_config *cfg, char *buf,
			      size_t size)
{
	char **names = calloc(cfg->n_supernodes, sizeof(*names));
	const char *out = NULL;

	if (!names)
		return NULL;
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		names[i] = cfg->supernodes[i].name;
	if (!hostlist_compress(names, cfg->n_supernodes, buf, size))
		out = buf;
	free(names);
	return out;
}

static int print_topology(const struct sn_config *cfg, enum topo_kind topo,
			  char *buf, size_t size)
{
	const char *names;

	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		const struct sn_supernode *s = &cfg->supernodes[i];

		printf("%s=%s Nodes=%s\n",
		       topo == TOPO_TREE ? "SwitchName" : "BlockName", s->name,
		       members_text(s, buf, size));
	}
	if (topo == TOPO_BLOCK) {
		printf("BlockSizes=%zu\n", cfg->supernode_size);
		return 0;
	}
	if (!(names = names_text(cfg, buf, size))) {
		sn_log_stderr(
			"config slurm: cannot build the top switch's list of %zu supernodes",
			cfg->n_supernodes);
		return -1;
	}
	printf("SwitchName=%s Switches=%s\n", SNCTL_TOP_SWITCH, names);
	return 0;
}

/*
 * topology.yaml (Slurm >= 25.05, read instead of topology.conf when
 * present): the same blocks as topology "supernode", the cluster default,
 * and a "flat" topology a partition without supernodes can name.
 */
static void print_topology_yaml(const struct sn_config *cfg, char *buf,
				size_t size)
{
	printf("# topology.yaml (Slurm >= 25.05 reads it instead of topology.conf); a partition picks one with Topology=<name>\n");
	printf("---\n- topology: supernode\n  cluster_default: true\n");
	printf("  block:\n    block_sizes:\n      - %zu\n    blocks:\n",
	       cfg->supernode_size);
	for (size_t i = 0; i < cfg->n_supernodes; i++) {
		const struct sn_supernode *s = &cfg->supernodes[i];

		printf("      - block: \"%s\"\n        nodes: \"%s\"\n",
		       s->name, members_text(s, buf, size));
	}
	printf("- topology: flat\n  cluster_default: false\n  flat: true\n");
}

/*
 * Retries (prolog/README.md#retries-with-a-cap-placementmax_requeues): as
 * comments, since both settings are lists an admin adds a word to.
 * --requeue=expedite only where the Slurm built for has it (25.11).
 */
static void print_requeue(void)
{
	printf("# SchedulerParameters: add nohold_on_prolog_fail (a job whose node fails\n"
	       "# supernode-prolog comes back pending, at most placement.max_requeues times)\n");
	if (SN_SLURM_HAS_EXPEDITED_REQUEUE)
		printf("# SlurmctldParameters: add enable_expedited_requeue; a job submitted with\n"
		       "# sbatch --requeue=expedite then comes back at once, first in line, and its\n"
		       "# old nodes are kept out of other work until it has started again\n");
}

static void print_plugstack(const struct sn_config *cfg, enum topo_kind topo)
{
	char path[PATH_MAX];
	const char *config = cfg->path;

	if (realpath(cfg->path, path))
		config = path;
	/* state_dir=: where steps find the job's config before reading any */
	printf("required %s/supernode.so config=%s", SN_PLUGIN_FULL_DIR,
	       config);
	if (strcmp(cfg->state_dir, SN_CONFIG_DEFAULT_STATE_DIR))
		printf(" state_dir=%s", cfg->state_dir);
	printf("\n");
	printf("# slurm.conf\n");
	printf("JobSubmitPlugins=supernode\n");
	if (strcmp(config, SN_CONFIG_DEFAULT_PATH))
		printf("# PrologSlurmctld gets no SLURM_CONF: supernode-prolog reads %s;\n"
		       "# for %s, name a script: exec supernode-prolog --config %s\n",
		       SN_CONFIG_DEFAULT_PATH, config, config);
	printf("PrologSlurmctld=%s/supernode-prolog\n", SN_SBIN_FULL_DIR);
	print_requeue();
	if (topo == TOPO_TREE)
		printf("TopologyPlugin=topology/tree\n");
	else if (topo == TOPO_BLOCK)
		printf("TopologyPlugin=topology/block\n");
}

static enum topo_kind topo_default(const struct sn_config *cfg)
{
	switch (cfg->method) {
	case SN_PLACE_SWITCH:
		return TOPO_TREE;
	case SN_PLACE_BLOCK:
		return TOPO_BLOCK;
	default:
		return TOPO_NONE;
	}
}

static int slurm_args_parse(int argc, char **argv, struct slurm_args *a)
{
	static const struct option opts[] = {
		{ "section", required_argument, NULL, 's' },
		{ "topology", required_argument, NULL, 't' },
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const secs[] = { "nodes", "topology", "plugstack" };
	static const char *const topos[] = { "none", "tree", "block" };
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		size_t k;

		if (c == 's') {
			for (k = 0; k < 3 && strcmp(optarg, secs[k]); k++)
				;
			if (k == 3 || a->sections) {
				sn_log_stderr(
					"config slurm: --section is one of nodes, topology, plugstack (once)");
				return -1;
			}
			a->sections = 1u << k;
		} else if (c == 't') {
			for (k = 0; k < 3 && strcmp(optarg, topos[k]); k++)
				;
			if (k == 3 || a->topo != TOPO_DEFAULT) {
				sn_log_stderr(
					"config slurm: --topology is one of none, tree, block (once)");
				return -1;
			}
			a->topo = (enum topo_kind)(TOPO_NONE + k);
		} else if (c == 'c') {
			a->g.config = optarg;
		} else {
			return -1;
		}
	}
	if (optind < argc) {
		sn_log_stderr("config slurm: unexpected argument '%s'",
			      argv[optind]);
		return -1;
	}
	if (!a->sections)
		a->sections = SEC_ALL;
	return 0;
}

int snctl_config_slurm(const struct snctl_global *g, int argc, char **argv)
{
	struct slurm_args a = { .g = *g };
	struct sn_config *cfg = NULL;
	size_t size = 1u << 20;
	char *buf;
	int rc = SNCTL_EXIT_OK;

	if (slurm_args_parse(argc, argv, &a))
		return SNCTL_EXIT_USAGE;
	if (snctl_config_load(&a.g, &cfg))
		return SNCTL_EXIT_NOTFOUND;
	if (a.topo == TOPO_DEFAULT)
		a.topo = topo_default(cfg);
	if (!(buf = malloc(size))) {
		sn_log_stderr("out of memory");
		sn_config_free(cfg);
		return SNCTL_EXIT_NOTFOUND;
	}
	if (a.sections & SEC_NODES) {
		if (a.sections == SEC_ALL)
			printf("# slurm.conf: add Feature=<supernode> to these nodes' NodeName lines\n");
		print_nodes(cfg, buf, size);
	}
	if ((a.sections & SEC_TOPOLOGY) && a.topo != TOPO_NONE) {
		if (a.sections == SEC_ALL)
			printf("# topology.conf\n");
		if (print_topology(cfg, a.topo, buf, size))
			rc = SNCTL_EXIT_NOTFOUND;
		if (SN_SLURM_HAS_TOPOLOGY_YAML && a.topo == TOPO_BLOCK)
			print_topology_yaml(cfg, buf, size);
	}
	if (a.sections & SEC_PLUGSTACK) {
		if (a.sections == SEC_ALL)
			printf("# plugstack.conf\n");
		print_plugstack(cfg, a.topo);
	}
	free(buf);
	sn_config_free(cfg);
	return rc;
}
