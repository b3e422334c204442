/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl [--config PATH] doctor [--node NAME] [--json]
 *
 * One check after another on this node (and on the controller), each line
 * "LEVEL name: finding" and for WARN/CRIT "  fix: ...": the running
 * slurmctld (scontrol show config, in a child with a time limit), our
 * plugins' versions against slurmctld and this node's slurmd (slurmd -V),
 * plugstack, slurm.conf's settings, our config, this node's folders and
 * libraries (each loaded in a child with a time limit) and hardware (the
 * prolog's checks, nothing drained).  The decisions are lib's
 * (checks/sn_doctor.h); this file gathers the facts.  A slurmctld that
 * does not answer is one CRIT; the checks that need no Slurm still run.
 * The node: --node, else $SLURMD_NODENAME, else the short host name (as
 * health).  Exit 0 all OK, 1 a WARN, 2 a CRIT, 4 usage.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/sn_doctor.h"
#include "checks/sn_runner.h"
#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "config/sn_vendor.h"
#include "inventory/sn_nvml.h"
#include "placement/sn_option.h"
#include "util/sn_child.h"
#include "util/sn_plugstack.h"
#include "util/sn_plugin_version.h"
#include "util/sn_safedir.h"
#include "util/sn_slurm_env.h"
#include "snctl.h"

#ifndef SN_SCONTROL
#define SN_SCONTROL "/usr/bin/scontrol"
#endif
#ifndef SN_SLURMD
#define SN_SLURMD "/usr/sbin/slurmd"
#endif
#ifndef SN_PLUGIN_FULL_DIR
#define SN_PLUGIN_FULL_DIR "/usr/lib/x86_64-linux-gnu/slurm-supernode"
#endif
#ifndef SN_SBIN_FULL_DIR
#define SN_SBIN_FULL_DIR "/usr/sbin"
#endif

#define DOCTOR_EXIT_USAGE 4
#define SLURM_TIMEOUT_MS 15000u /* scontrol show config; slurmd -V */
#define SLURM_MAX_OUTPUT (1u << 20)
#define LIB_TIMEOUT_MS 10000u /* one library's load, init and version */
#define LIB_MAX_OUTPUT 4096u

struct doctor_args {
	struct snctl_global g;
	const char *node;
	bool json;
	char host[SN_HOST_NAME_SIZE];
};

struct doctor_run {
	struct sn_doctor d;
	struct sn_slurm_view view;
	bool have_view;
	char slurmd[128]; /* slurmd -V's release; "" unknown */
	struct sn_config *cfg;
	char config[PATH_MAX];
};

static int args_parse(int argc, char **argv, struct doctor_args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'c')
			a->g.config = optarg;
		else if (c == 'n')
			a->node = optarg;
		else if (c == 'j')
			a->json = true;
		else
			return -1;
	}
	if (optind < argc) {
		sn_log_stderr("doctor: unexpected argument '%s'", argv[optind]);
		return -1;
	}
	a->node =
		snctl_node_default(a->node, a->host, sizeof(a->host), "doctor");
	return a->node ? 0 : -1;
}

/* In a child: exec argv, its stdout and stderr to fd. */
static int exec_child(void *arg, int fd)
{
	char *const *argv = arg;

	if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
		return 126;
	execv(argv[0], argv);
	dprintf(fd, "cannot run %s: %s", argv[0], strerror(errno));
	return 127;
}

/* The first line of text, without its newline, into buf. */
static void first_line(const char *text, size_t len, char *buf, size_t size)
{
	size_t n = text ? strcspn(text, "\n") : 0;

	if (n > len)
		n = len;
	snprintf(buf, size, "%.*s", (int)n, text ? text : "");
}

static void slurmctld_ask(struct doctor_run *r)
{
	char *argv[] = { SN_SCONTROL, "show", "config", NULL };
	char *text = NULL, why[512];
	size_t len = 0;
	int rc;

	rc = sn_run_in_child(exec_child, argv, SLURM_TIMEOUT_MS,
			     SLURM_MAX_OUTPUT, &text, &len);
	if (rc == 0 && !sn_slurm_view_parse(text, &r->view)) {
		r->have_view = true;
		sn_doctor_add(
			&r->d, SN_OK, "slurmctld", NULL, "%s answers: Slurm %s",
			r->view.ctld_hosts ? r->view.ctld_hosts : "slurmctld",
			r->view.version);
		goto out;
	}
	if (rc == -1)
		snprintf(why, sizeof(why), "no answer within %u ms",
			 SLURM_TIMEOUT_MS);
	else
		first_line(text, len, why, sizeof(why));
	sn_doctor_add(
		&r->d, SN_CRIT, "slurmctld",
		"start slurmctld, or correct SlurmctldHost in slurm.conf ($SLURM_CONF) and munge; scontrol ping says which",
		"%s show config: %s: Slurm's configuration and the job_submit plugin are not checked",
		SN_SCONTROL, why);
out:
	free(text);
}

/* slurmd -V: "slurm 22.05.8" (Debian: "slurm-wlm 22.05.8") -> r->slurmd. */
static void slurmd_version(struct doctor_run *r)
{
	char *argv[] = { SN_SLURMD, "-V", NULL };
	char *text = NULL, line[120];
	size_t len = 0;

	if (!sn_run_in_child(exec_child, argv, SLURM_TIMEOUT_MS, 4096, &text,
			     &len)) {
		first_line(text, len, line, sizeof(line));
		if (!strncmp(line, "slurm", 5) && strchr(line, ' '))
			snprintf(r->slurmd, sizeof(r->slurmd), "%s",
				 strchr(line, ' ') + 1);
	}
	free(text);
}

static void config_check(struct doctor_run *r, const struct doctor_args *a)
{
	struct sn_error err;

	if (a->g.config)
		snprintf(r->config, sizeof(r->config), "%s", a->g.config);
	else
		sn_config_default_path(r->config, sizeof(r->config));
	r->cfg = sn_config_load(r->config, &err);
	if (!r->cfg) {
		char fix[2 * PATH_MAX + 256];

		snprintf(
			fix, sizeof(fix),
			"correct %s as the message says (supernodectl config validate %s shows it too); until then every --supernode job is refused",
			r->config, r->config);
		sn_doctor_add(&r->d, SN_CRIT, "config", fix, "%s", err.msg);
		return;
	}
	sn_doctor_add(&r->d, SN_OK, "config", NULL,
		      "%s: %zu nodes in %zu supernodes, method %s", r->config,
		      r->cfg->n_nodes, r->cfg->n_supernodes,
		      sn_placement_method_name(r->cfg->method));
	if (sn_config_port_warning(r->cfg, SN_CONFIG_PROCFS, &err))
		sn_doctor_add(
			&r->d, SN_WARN, "config",
			"change env.master_port_range or the kernel's net.ipv4.ip_local_port_range so that they do not overlap",
			"%s", err.msg);
}

/*
 * Our plugstack line's arguments, as supernode.so reads them: a line
 * slurmd refuses fails every step's init (CRIT); a state_dir= that is not
 * the config's paths.state_dir makes every step read the whole config
 * (WARN; spank/README.md, "The job's config").  node names %n.
 */
static void plugstack_args_check(struct doctor_run *r,
				 const struct sn_plugstack_hit *hit,
				 const char *node)
{
	char *copy = strdup(hit->args ? hit->args : ""), *av[16], *save = NULL;
	char host[SN_HOST_NAME_SIZE], mine[PATH_MAX], want[PATH_MAX];
	struct sn_plugin_args args;
	struct sn_error err;
	int ac = 0;

	if (!copy)
		return;
	for (char *t = strtok_r(copy, " \t", &save); t && ac < 16;
	     t = strtok_r(NULL, " \t", &save))
		av[ac++] = t;
	if (sn_option_args_parse(ac, av, &args, &err)) {
		sn_doctor_add(
			&r->d, SN_CRIT, "plugstack-args",
			"write the line as supernodectl config slurm --section plugstack prints it, then restart slurmd",
			"%s:%u: %s: supernode.so's init fails in every step",
			hit->file, hit->line, err.msg);
		goto out;
	}
	sn_slurm_env_host(host, sizeof(host));
	if (!r->cfg || !node ||
	    sn_path_expand(args.state_dir, node, host, mine, sizeof(mine)) ||
	    sn_path_expand(r->cfg->state_dir, node, host, want, sizeof(want)) ||
	    !strcmp(mine, want))
		goto out;
	sn_doctor_add(
		&r->d, SN_WARN, "plugstack-args",
		"give the line state_dir= as paths.state_dir (supernodectl config slurm --section plugstack prints it), then restart slurmd",
		"%s:%u: state_dir %s is not paths.state_dir %s: every step reads the whole config, none the job's",
		hit->file, hit->line, args.state_dir, r->cfg->state_dir);
out:
	free(copy);
}

static void plugins_check(struct doctor_run *r, const char *node)
{
	const struct sn_slurm_view *v = &r->view;
	struct sn_plugstack_hit hit;
	struct sn_error err;
	char *path, fix[3 * PATH_MAX], state[PATH_MAX + 16] = "";
	int found;

	path = sn_plugin_find(v->plugindir, "job_submit_supernode.so");
	if (path || (v->job_submit && strstr(v->job_submit, "supernode")))
		sn_doctor_plugin(&r->d, "version-job-submit",
				 "job_submit_supernode.so", path,
				 v->plugindir ? v->plugindir : "PluginDir",
				 "slurmctld", v->version, false);
	free(path);
	found = sn_plugstack_find(v->plugstack, v->plugindir, "supernode.so",
				  &hit, &err);
	if (r->cfg && strcmp(r->cfg->state_dir, SN_CONFIG_DEFAULT_STATE_DIR))
		snprintf(state, sizeof(state), " state_dir=%s",
			 r->cfg->state_dir);
	snprintf(
		fix, sizeof(fix),
		"add the line \"required %s/supernode.so config=%s%s\" to %s (or a file it includes, such as plugstack.conf.d/supernode.conf), then restart slurmd",
		SN_PLUGIN_FULL_DIR, r->config, state,
		v->plugstack ? v->plugstack : "plugstack.conf");
	if (found < 0) {
		sn_doctor_add(&r->d, SN_CRIT, "plugstack", fix,
			      "%s: the --supernode option does not exist",
			      err.msg);
		return;
	}
	if (!found) {
		sn_doctor_add(
			&r->d, SN_CRIT, "plugstack", fix,
			"no line of %s or its includes names supernode.so: srun, sbatch and salloc have no --supernode option",
			v->plugstack);
		return;
	}
	sn_doctor_add(&r->d, SN_OK, "plugstack", NULL, "%s:%u names %s",
		      hit.file, hit.line, hit.path ? hit.path : "supernode.so");
	sn_doctor_plugin(&r->d, "version-spank", "supernode.so", hit.path,
			 v->plugindir ? v->plugindir : "PluginDir", "slurmd",
			 r->slurmd[0] ? r->slurmd : NULL, true);
	plugstack_args_check(r, &hit, node);
	sn_plugstack_hit_free(&hit);
}

/* ---- this node: folders, libraries, hardware ---- */

static void folder_out(void *arg, const char *key, const char *msg)
{
	struct doctor_run *r = arg;
	char fix[512];

	if (strcmp(key, "paths.state_dir") && strncmp(key, "epilog.", 7))
		return; /* libraries: library_check */
	snprintf(
		fix, sizeof(fix),
		"make every folder of %s root's and writable by no one else (chown root:root; chmod go-w), or point it at such a folder",
		key);
	sn_doctor_add(&r->d, SN_CRIT, "folders", fix, "%s: %s", key, msg);
}

struct lib_job {
	const char *path;
	bool nvml;
};

/* In a child: load the library; its version (NVML) or why not, to fd. */
static int lib_child(void *arg, int fd)
{
	const struct lib_job *j = arg;
	struct sn_nvml *nvml = NULL;
	struct sn_error err;
	char ver[96];
	void *dl;

	if (j->nvml) {
		if (sn_nvml_open(j->path, &nvml, &err)) {
			dprintf(fd, "%s", err.msg);
			return 1;
		}
		sn_nvml_driver_version(nvml, ver, sizeof(ver));
		dprintf(fd, "driver %s", ver[0] ? ver : "unknown");
		sn_nvml_close(nvml);
		return 0;
	}
	dl = sn_safedir_dlopen(j->path, RTLD_NOW | RTLD_LOCAL, &err);
	if (!dl) {
		dprintf(fd, "%s", err.msg);
		return 1;
	}
	dlclose(dl);
	return 0;
}

static void library_check(struct doctor_run *r, const char *key,
			  const char *path, bool nvml)
{
	struct lib_job j = { .path = path, .nvml = nvml };
	enum sn_doctor_load load;
	struct sn_error err;
	char *text = NULL, line[512];
	size_t len = 0;
	int rc;

	if (sn_safedir_library(path, &err)) {
		sn_doctor_library(&r->d, key, path, err.msg, 0, NULL, 0);
		return;
	}
	rc = sn_run_in_child(lib_child, &j, LIB_TIMEOUT_MS, LIB_MAX_OUTPUT,
			     &text, &len);
	load = rc == 0	? SN_DOCTOR_LOAD_OK :
	       rc == -1 ? SN_DOCTOR_LOAD_HUNG :
	       rc == -2 ? SN_DOCTOR_LOAD_CRASHED :
			  SN_DOCTOR_LOAD_FAILED;
	first_line(text, len, line, sizeof(line));
	sn_doctor_library(&r->d, key, path, NULL, load, line, LIB_TIMEOUT_MS);
	free(text);
}

/* Every library the config names (paths.nvml, .dcmi, vendors'). */
static void libraries_check(struct doctor_run *r,
			    const struct sn_check_ctx *ctx)
{
	const struct sn_config *cfg = r->cfg;
	char path[PATH_MAX], key[32];
	size_t n = 0;

	if (cfg->nvml && ++n)
		library_check(r, "paths.nvml", ctx->nvml, true);
	if (cfg->dcmi && ++n)
		library_check(r, "paths.dcmi", ctx->dcmi, false);
	for (int v = 0; v < SN_ACCEL_VENDOR_COUNT; v++) {
		if (!cfg->vendor_lib[v] ||
		    sn_path_expand(cfg->vendor_lib[v], ctx->nodename, ctx->host,
				   path, sizeof(path)))
			continue;
		snprintf(key, sizeof(key), "paths.%s",
			 sn_vendor_of((enum sn_accel_vendor)v)->lib_key);
		library_check(r, key, path, false);
		n++;
	}
	if (!n)
		sn_doctor_add(
			&r->d, SN_OK, "libraries", NULL,
			"the config names none (paths.nvml, paths.dcmi, paths.rocm_smi, ...): the vendor's default places are used");
}

static void node_check(struct doctor_run *r, const char *node)
{
	const struct sn_node *n = sn_config_find_node(r->cfg, node);
	struct sn_results res = { 0 };
	struct sn_check_ctx ctx;
	struct sn_error err;
	const char *sn;
	char fix[PATH_MAX + 512];
	size_t before;

	if (!n) {
		bool ctld = r->have_view &&
			    sn_doctor_host_is_ctld(&r->view, node);

		snprintf(
			fix, sizeof(fix),
			"add %s to a supernode's nodes: in %s if it runs supernode jobs; else run doctor there with --node NAME of a node of the config",
			node, r->config);
		sn_doctor_add(
			&r->d, ctld ? SN_OK : SN_WARN, "node", fix,
			"%s is in no supernode of %s%s: folders, libraries and hardware not checked",
			node, r->config,
			ctld ? " (it is a SlurmctldHost)" : "");
		return;
	}
	sn = r->cfg->supernodes[n->supernode].name;
	sn_doctor_add(&r->d, SN_OK, "node", NULL, "%s is in supernode %s", node,
		      sn);
	if (sn_check_ctx_init(&ctx, r->cfg, node, &err)) {
		sn_doctor_add(&r->d, SN_CRIT, "node",
			      "shorten the paths of the config", "%s", err.msg);
		return;
	}
	before = r->d.n;
	sn_check_ctx_trust(&ctx, folder_out, r);
	if (r->d.n == before)
		sn_doctor_add(
			&r->d, SN_OK, "folders", NULL,
			"paths.state_dir, epilog.record_dir and epilog.textfile_dir pass the trusted-folder walk on %s",
			node);
	libraries_check(r, &ctx);
	sn_run_checks(&ctx, sn_check_groups, sn_check_groups_count,
		      r->cfg->prolog.check_timeout_s * 1000,
		      r->cfg->prolog.timeout_s * 1000, &res);
	sn_doctor_hardware(&r->d, node, sn, &res, r->config);
	sn_results_free(&res);
}

int snctl_doctor(const struct snctl_global *g, int argc, char **argv)
{
	struct doctor_args a = { .g = *g };
	struct doctor_run *r = calloc(1, sizeof(*r));
	json_object *o;
	int rc;

	if (!r) {
		sn_log_stderr("doctor: out of memory");
		return 2;
	}
	if (args_parse(argc, argv, &a)) {
		fprintf(stderr,
			"usage: %s [--config PATH] doctor [--node NAME] [--json]\n",
			SNCTL_NAME);
		free(r);
		return DOCTOR_EXIT_USAGE;
	}
	slurmctld_ask(r);
	slurmd_version(r);
	config_check(r, &a);
	if (r->have_view) {
		plugins_check(r, a.node);
		sn_doctor_slurm_conf(&r->d, &r->view, r->cfg, SN_SBIN_FULL_DIR);
	}
	if (r->cfg)
		node_check(r, a.node);
	if (a.json && (o = sn_doctor_json(&r->d))) {
		snctl_json_print(o);
		json_object_put(o);
	} else {
		sn_doctor_print(&r->d, stdout);
	}
	rc = sn_doctor_exit(&r->d);
	sn_slurm_view_free(&r->view);
	sn_config_free(r->cfg);
	free(r);
	return rc;
}
