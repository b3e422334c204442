/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl config check: supernode.yaml against the RUNNING cluster.
 *
 *   every node of the config is a Slurm node;
 *   method feature: each node carries its supernode's name as a feature,
 *     no node carries the names of two supernodes, and no node outside the
 *     config carries one (Slurm would place supernode jobs there);
 *   method switch: each supernode is exactly the node set of one leaf
 *     switch, and all those leaf switches share a parent switch when jobs
 *     may ask for more than one supernode;
 *   method block: nodes only (topology/block is Slurm >= 23.11; untested).
 *
 * The comparisons are lib's (placement/cluster_match.c); here Slurm's
 * nodes and switches are read into its plain arrays.  One line per mismatch
 * on stdout, naming node or supernode, expected and found; then a summary.  Exit 0 all match, 1 a mismatch or Slurm could
 * not be asked (the reason on stderr), 2 usage.
 *
 * First, on this node, the folders, libraries and program that the prolog
 * and epilog would refuse (snctl_config_trust), one line each on stderr;
 * any makes the exit 1.
 *
 * libslurm runs in a child with a time limit, as in health.c: slurm_init()
 * exit()s when it finds no slurm.conf, and an RPC to a dead controller
 * blocks.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sn_child.h"
#include "placement/sn_cluster_match.h"
#include "snctl_config.h"
#include "util/sn_plugin_version.h"
#include "util/sn_plugstack.h"
#include "util/sn_slurm.h"

#define CHECK_TIMEOUT_MS 30000u
#define CHECK_MAX_OUTPUT (4u << 20)
#define CHILD_MISMATCH 10 /* not 1: libslurm's fatal() exits 1 */
#define CHILD_NO_SLURM 11
#define TOPO_TIMEOUT_MS 20000u /* inside the check's 30 s */
#define TOPO_MAX_OUTPUT (4u << 20)

#ifndef SN_SCONTROL
#define SN_SCONTROL "/usr/bin/scontrol"
#endif

/* The child's sink for lib's mismatch lines: one line each on fd. */
static void line_out(void *arg, const char *line)
{
	dprintf(*(const int *)arg, "%s\n", line);
}

static void out_of_memory(struct sn_mismatches *r)
{
	r->add(r->arg, "out of memory");
	r->count++;
}

/* Slurm's nodes into lib's plain array, then lib's comparisons. */
static void nodes_check(const struct sn_config *cfg, const node_info_msg_t *msg,
			struct sn_mismatches *r)
{
	struct sn_cluster_node *nodes =
		calloc(msg->record_count + 1, sizeof(*nodes));

	if (!nodes) {
		out_of_memory(r);
		return;
	}
	for (uint32_t i = 0; i < msg->record_count; i++) {
		nodes[i].name = msg->node_array[i].name;
		nodes[i].features = msg->node_array[i].features;
	}
	sn_cluster_match_nodes(cfg, nodes, msg->record_count,
			       cfg->method == SN_PLACE_FEATURE, r);
	free(nodes);
}

static size_t lines_count(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* Lines that are not "warning: " or "  (" continuation lines. */
static size_t mismatches_count(const char *buf, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - buf) + 1 : len;

		n += strncmp(buf + i, "warning: ", 9) &&
		     strncmp(buf + i, "  (", 3);
		i = end;
	}
	return n;
}

/*
 * In a child of the check: scontrol show topology, its stdout to fd.  From
 * 23.11 slurm_load_topo() replies with the topology plugin's own data, and
 * that plugin does not load into a libslurm client (it needs slurmctld's
 * symbols: node_record_table_ptr, slurm_conf, 24.11's topo_conf); scontrol
 * (libslurmfull) prints it.  The scontrol of the Slurm built for, in every
 * release; SLURM_TOPO_LEN would cut its lines.
 */
static int scontrol_child(void *arg, int fd)
{
	char *const argv[] = { "scontrol", "show", "topology", NULL };

	(void)arg;
	if (dup2(fd, STDOUT_FILENO) < 0)
		return 126;
	unsetenv("SLURM_TOPO_LEN");
	execv(SN_SCONTROL, argv);
	dprintf(STDERR_FILENO, "supernodectl: cannot run %s: %s\n", SN_SCONTROL,
		strerror(errno));
	return 127;
}

/* Slurm's topology/tree switches into lib's plain array, then lib's rules. */
static int topology_check(const struct sn_config *cfg, int fd,
			  struct sn_mismatches *r)
{
	struct sn_cluster_switch *sw = NULL;
	char *text = NULL;
	size_t len = 0, n;
	int rc;

	rc = sn_run_in_child(scontrol_child, NULL, TOPO_TIMEOUT_MS,
			     TOPO_MAX_OUTPUT, &text, &len);
	if (rc) {
		if (rc == -1)
			dprintf(fd,
				"cannot read the switch topology: %s show topology did not answer within %u ms\n",
				SN_SCONTROL, TOPO_TIMEOUT_MS);
		else
			dprintf(fd,
				"cannot read the switch topology: %s show topology failed (%d)\n",
				SN_SCONTROL, rc);
		free(text);
		return -1;
	}
	n = text ? lines_count(text, len) + 1 : 0;
	sw = calloc(n + 1, sizeof(*sw));
	if (!sw) {
		out_of_memory(r);
		goto out;
	}
	n = text ? sn_cluster_switches_parse(text, sw, n) : 0;
	sn_cluster_match_switches(cfg, sw, n, r);
out:
	free(sw);
	free(text);
	return 0;
}

/*
 * The plugins slurmctld and slurmd would load at their next start, read
 * from their files (util/plugin_version.c: the ELF symbol's value, no code
 * run) and compared with the versions the running daemons report: the
 * job_submit plugin with slurmctld's exact release, supernode.so with each
 * slurmd's major.minor.  This host's files only: run the check on a node
 * as well for its copy of supernode.so.
 */
static void plugin_line(int fd, const char *what, const char *path, uint32_t v,
			const char *daemon, const char *running, bool spank)
{
	char line[1024];

	sn_plugin_version_why(line, sizeof(line), what, path, v, daemon,
			      running, spank);
	dprintf(fd, "%s\n", line);
}

static void job_submit_version(const slurm_conf_t *conf, int fd,
			       struct sn_mismatches *r)
{
	char *path = sn_plugin_find(conf->plugindir, "job_submit_supernode.so");
	struct sn_error err;
	uint32_t v, daemon;

	if (!conf->job_submit_plugins ||
	    !strstr(conf->job_submit_plugins, "supernode"))
		goto out;
	if (!path) {
		dprintf(fd,
			"job_submit_supernode.so is in no PluginDir folder (%s): slurmctld stops at its next start (JobSubmitPlugins=%s)\n",
			conf->plugindir ? conf->plugindir : "",
			conf->job_submit_plugins);
		r->count++;
		goto out;
	}
	if (sn_plugin_version_read(path, &v, &err)) {
		dprintf(fd, "cannot read the plugin's version: %s\n", err.msg);
		r->count++;
	} else if (sn_plugin_version_parse(conf->version, &daemon)) {
		dprintf(fd, "slurmctld reports no version (%s)\n",
			conf->version ? conf->version : "none");
		r->count++;
	} else if (!sn_plugin_version_loads(v, daemon, false)) {
		plugin_line(fd, "job_submit_supernode.so", path, v, "slurmctld",
			    conf->version, false);
		r->count++;
	}
out:
	free(path);
}

/* The plugstack.conf line (or include) naming supernode.so: its path. */
static char *spank_path(const slurm_conf_t *conf)
{
	struct sn_plugstack_hit hit;
	struct sn_error err;
	char *path;

	if (sn_plugstack_find(conf->plugstack, conf->plugindir, "supernode.so",
			      &hit, &err) != 1)
		return NULL;
	path = hit.path;
	hit.path = NULL;
	sn_plugstack_hit_free(&hit);
	return path;
}

/* supernode.so against every slurmd's version (major.minor). */
static void spank_version(const slurm_conf_t *conf,
			  const node_info_msg_t *nodes, int fd,
			  struct sn_mismatches *r)
{
	char *path = spank_path(conf);
	struct sn_error err;
	uint32_t v, daemon;

	if (!path)
		return;
	if (sn_plugin_version_read(path, &v, &err)) {
		dprintf(fd, "cannot read the plugin's version: %s\n", err.msg);
		r->count++;
		goto out;
	}
	for (uint32_t i = 0; i < nodes->record_count; i++) {
		const node_info_t *n = &nodes->node_array[i];

		if (!n->version ||
		    sn_plugin_version_parse(n->version, &daemon) ||
		    sn_plugin_version_loads(v, daemon, true))
			continue;
		plugin_line(fd, "supernode.so", path, v, "slurmd", n->version,
			    true);
		dprintf(fd, "  (first of the nodes: %s)\n", n->name);
		r->count++;
		break;
	}
out:
	free(path);
}

/*
 * Partitions with OverSubscribe=FORCE share nodes whatever a job asks for:
 * job_submit refuses --supernode there; a warning, not a mismatch.
 */
static void partitions_warn(int fd)
{
	partition_info_msg_t *parts = NULL;

	if (slurm_load_partitions(0, &parts, SHOW_ALL))
		return;
	for (uint32_t i = 0; i < parts->record_count; i++) {
		const partition_info_t *p = &parts->partition_array[i];

		if (!(p->max_share & SHARED_FORCE))
			continue;
		dprintf(fd,
			"warning: partition %s has OverSubscribe=FORCE:%u: Slurm shares its nodes whatever a job asks for, so job_submit refuses --supernode jobs there\n",
			p->name, p->max_share & ~SHARED_FORCE);
	}
	slurm_free_partition_info_msg(parts);
}

static void plugins_check(const node_info_msg_t *nodes, int fd,
			  struct sn_mismatches *r)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf(0, &conf)) {
		dprintf(fd, "cannot load slurmctld's configuration: %s\n",
			slurm_strerror(errno));
		r->count++;
		return;
	}
	job_submit_version(conf, fd, r);
	spank_version(conf, nodes, fd, r);
	sn_slurm_free_ctl_conf(conf);
}

static int check_child(void *arg, int fd)
{
	const struct sn_config *cfg = arg;
	struct sn_mismatches r = { .add = line_out, .arg = &fd };
	node_info_msg_t *nodes = NULL;
	int rc = 0;

	slurm_init(NULL);
	if (slurm_load_node(0, &nodes, SHOW_ALL)) {
		dprintf(fd, "cannot load the nodes from slurmctld: %s\n",
			slurm_strerror(errno));
		slurm_fini();
		return CHILD_NO_SLURM;
	}
	nodes_check(cfg, nodes, &r);
	plugins_check(nodes, fd, &r);
	partitions_warn(fd);
	slurm_free_node_info_msg(nodes);
	if (cfg->method == SN_PLACE_SWITCH && topology_check(cfg, fd, &r))
		rc = CHILD_NO_SLURM;
	slurm_fini();
	if (rc)
		return rc;
	return r.count ? CHILD_MISMATCH : 0;
}

static int check_run(const struct sn_config *cfg)
{
	const char *conf = getenv("SLURM_CONF");
	char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int rc;

	if (conf && *conf && stat(conf, &st)) {
		sn_log_stderr("config check: SLURM_CONF=%s does not exist",
			      conf);
		return SNCTL_EXIT_NOTFOUND;
	}
	rc = sn_run_in_child(check_child, (void *)cfg, CHECK_TIMEOUT_MS,
			     CHECK_MAX_OUTPUT, &buf, &len);
	if (rc == 0 || rc == CHILD_MISMATCH) {
		fwrite(buf, 1, len, stdout);
		printf("config check: %s: %zu nodes in %zu supernodes, method %s: %s",
		       cfg->path, cfg->n_nodes, cfg->n_supernodes,
		       sn_placement_method_name(cfg->method),
		       rc ? "" : "matches the running cluster\n");
		if (rc)
			printf("%zu mismatch%s\n", mismatches_count(buf, len),
			       mismatches_count(buf, len) == 1 ? "" : "es");
	} else {
		sn_log_stderr("config check: cannot ask slurmctld (%s)%s%.*s",
			      rc == -1 ? "timed out" :
			      rc == -2 ? "libslurm crashed" :
			      rc == -3 ? "no child" :
					 "libslurm gave up",
			      len ? ": " : "",
			      (int)len - (len && buf[len - 1] == '\n'),
			      buf ? buf : "");
	}
	free(buf);
	return rc == 0 ? SNCTL_EXIT_OK : SNCTL_EXIT_NOTFOUND;
}

int snctl_config_check(const struct snctl_global *g0, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct snctl_global g = *g0;
	struct sn_config *cfg = NULL;
	bool trusted;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return SNCTL_EXIT_USAGE;
		g.config = optarg;
	}
	if (optind < argc) {
		sn_log_stderr("config check: unexpected argument '%s'",
			      argv[optind]);
		return SNCTL_EXIT_USAGE;
	}
	if (snctl_config_load(&g, &cfg))
		return SNCTL_EXIT_NOTFOUND;
	snctl_config_warn(cfg);
	/* Up front: what the prolog and epilog on this node would refuse. */
	trusted = !snctl_config_trust(cfg);
	rc = check_run(cfg);
	sn_config_free(cfg);
	return trusted ? rc : SNCTL_EXIT_NOTFOUND;
}
