/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Placement: from "N whole supernodes" to the job description fields Slurm
 * schedules on.  Pure logic over the loaded config; the job_submit plugin
 * copies the plan into job_desc.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sn_hostlist.h"
#include "placement/sn_placement.h"

/*
 * A --nodelist or --exclude naming more hosts than the config holds is
 * refused by its count, taken on the written ranges before Slurm expands
 * anything, and before any other check reads the list: a 0.5 MB list of
 * 65536 hosts took 0.26-0.58 s inside slurmctld's job_submit (issue 17,
 * item 12), now about 1 ms.  Such a job only ever runs on those nodes.
 */
static int hostlist_bound(const struct sn_config *cfg, const char *expr,
			  const char *option, struct sn_error *err)
{
	struct sn_error herr;
	long long hosts;

	if (!expr || !*expr)
		return 0;
	hosts = sn_hostlist_count(expr, &herr);
	if (hosts < 0) {
		sn_error_set(err, "%s=%.200s: %s", option, expr, herr.msg);
		return -1;
	}
	if ((unsigned long long)hosts <= cfg->n_nodes)
		return 0;
	sn_error_set(
		err,
		"%s names %lld hosts, more than the %zu nodes of all supernodes in the config: a --supernode job runs only on those, so list only them",
		option, hosts, cfg->n_nodes);
	return -1;
}

/*
 * Mark in touched[] the supernodes a hostlist touches.  With in_supernode,
 * every host must be in some supernode (--nodelist); without, hosts in none
 * are skipped (--exclude of a login or CPU node takes nothing away from a
 * supernode job).  Returns the number of distinct supernodes or -1.
 */
static int hostlist_supernodes(const struct sn_config *cfg, const char *expr,
			       const char *option, bool in_supernode,
			       unsigned char *touched, struct sn_error *err)
{
	struct sn_names names;
	struct sn_error herr;
	int distinct = 0;

	if (sn_hostlist_expand(expr, cfg->n_nodes, &names, &herr)) {
		sn_error_set(err, "%s=%.200s: %s", option, expr, herr.msg);
		return -1;
	}
	for (size_t i = 0; i < names.count; i++) {
		const struct sn_node *node =
			sn_config_find_node(cfg, names.names[i]);

		if (!node && !in_supernode)
			continue;
		if (!node) {
			sn_error_set(
				err,
				"%s: node %.64s is in no supernode, so it cannot be part of a --supernode job",
				option, names.names[i]);
			sn_names_free(&names);
			return -1;
		}
		/* A flag, not a counter: 256 nodes must not wrap it to 0. */
		if (!touched[node->supernode]) {
			touched[node->supernode] = 1;
			distinct++;
		}
	}
	sn_names_free(&names);
	return distinct;
}

/*
 * Number of hosts in a hostlist, 0 if absent or unparsable; counted on the
 * written ranges, nothing expanded (hostlist_supernodes bounds the list).
 */
static uint32_t hostlist_count(const char *expr)
{
	long long n;

	if (!expr || !*expr)
		return 0;
	n = sn_hostlist_count(expr, NULL);
	return n < 0 || n > UINT32_MAX ? 0 : (uint32_t)n;
}

static int nodes_check(const struct sn_config *cfg,
		       const struct sn_job_request *req, uint32_t need,
		       struct sn_error *err)
{
	uint32_t lo = req->min_nodes, hi = req->max_nodes;

	if (lo == SN_UNSET32 && hi == SN_UNSET32)
		return 0;
	/*
	 * sbatch/srun turn --nodelist=k hosts without -N into -N k: that
	 * count is Slurm's, not the user's, and the plan grows it to the
	 * whole supernode holding those hosts.
	 */
	if (lo != SN_UNSET32 && lo <= need &&
	    (hi == SN_UNSET32 || hi == 0 || hi == lo) &&
	    lo == hostlist_count(req->req_nodes))
		return 0;
	if (lo == SN_UNSET32 || lo == 0)
		lo = 1;
	if (hi == SN_UNSET32 || hi == 0)
		hi = lo;
	if (need >= lo && need <= hi)
		return 0;
	char given[32];

	if (hi != lo)
		snprintf(given, sizeof(given), "%u-%u", lo, hi);
	else
		snprintf(given, sizeof(given), "%u", lo);
	sn_error_set(
		err,
		"--nodes=%s cannot be combined with --supernode=%u: that is %u whole supernode(s) of %zu nodes = %u nodes (leave out --nodes, or give --nodes=%u)",
		given, req->supernodes, req->supernodes, cfg->supernode_size,
		need, need);
	return -1;
}

/* A count the user gave: neither Slurm's "unset" nor 0. */
static bool count_given(uint32_t v)
{
	return v != SN_UNSET32 && v != 0;
}

/*
 * Tasks against the whole allocation.  Every client derives --ntasks from
 * --ntasks-per-node and its own node count before submitting (1 node when
 * -N is left out), and marks it as set, so a count equal to that product
 * is the client's, not the user's: it is scaled to the whole allocation
 * (srun cannot be told: its first job step uses its own count).  Fewer
 * tasks than nodes:
 *  - srun would lay out its first job step with task-less nodes, which
 *    slurmctld 22.05 does not refuse but divides by (SIGFPE in
 *    _pick_step_cores): refused;
 *  - salloc: Slurm raises the job's task count to its node count and the
 *    steps inherit it, more tasks than asked for: refused;
 *  - sbatch exports the user's count (SLURM_NTASKS) to the job's steps:
 *    the whole allocation runs exactly those tasks; but from 26.05
 *    slurmctld refuses any job with fewer tasks than nodes ("Task count
 *    specification invalid", req->few_tasks_refused): refused, by name.
 */
static int tasks_check(const struct sn_job_request *req,
		       struct sn_job_plan *plan, struct sn_error *err)
{
	uint32_t t = req->num_tasks, p = plan->nodes, given;
	uint16_t k = req->ntasks_per_node;

	if (!count_given(t))
		return 0;
	given = count_given(req->min_nodes) ? req->min_nodes : 1;
	if (k != SN_UNSET16 && k != 0 && given < p &&
	    (uint64_t)given * k == t) {
		if (req->client == SN_CLIENT_SRUN) {
			sn_error_set(
				err,
				"--ntasks-per-node=%u cannot be combined with --supernode=%u here: srun counted %u task(s) for %u node(s) before the allocation became %u nodes (give --nodes=%u)",
				k, req->supernodes, t, given, p, p);
			return -1;
		}
		if ((uint64_t)p * k >= SN_UNSET32) {
			sn_error_set(
				err,
				"--ntasks-per-node=%u with --supernode=%u is more than %u tasks",
				k, req->supernodes, SN_UNSET32 - 1);
			return -1;
		}
		plan->num_tasks = p * k;
		return 0;
	}
	if (t >= p ||
	    (req->client == SN_CLIENT_BATCH && !req->few_tasks_refused))
		return 0;
	if (req->client == SN_CLIENT_BATCH)
		sn_error_set(
			err,
			"--ntasks=%u cannot be combined with --supernode=%u: that is %u nodes, and this Slurm refuses a job with fewer tasks than nodes (give --ntasks=%u or more)",
			t, req->supernodes, p, p);
	else if (req->client == SN_CLIENT_SRUN)
		sn_error_set(
			err,
			"--ntasks=%u cannot be combined with --supernode=%u: that is %u nodes, and srun would start its job step with nodes that have no task (give --ntasks=%u or more, or run this srun inside 'salloc --supernode=%u')",
			t, req->supernodes, p, p, req->supernodes);
	else
		sn_error_set(
			err,
			"--ntasks=%u cannot be combined with --supernode=%u: that is %u nodes, and Slurm raises the job's task count to its node count, so its steps would run %u tasks (give --ntasks=%u or more, or use sbatch)",
			t, req->supernodes, p, p, p);
	return -1;
}

static int shared_check(const struct sn_job_request *req, struct sn_error *err)
{
	if (req->shared == SN_SHARED_OK) {
		sn_error_set(
			err,
			"--oversubscribe cannot be combined with --supernode=%u: a supernode job has its supernodes to itself (exclusive)",
			req->supernodes);
		return -1;
	}
	return 0;
}

/* True if s has a '|' or ',' outside parentheses. */
static bool or_at_top(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (*s == '(')
			depth++;
		else if (*s == ')' && depth > 0)
			depth--;
		else if ((*s == '|' || *s == ',') && depth == 0)
			return true;
	}
	return false;
}

static int features_check(const char *features, struct sn_error *err)
{
	if (!features || !*features)
		return 0;
	if (strchr(features, '(') && or_at_top(features)) {
		sn_error_set(
			err,
			"--constraint=%.200s cannot be combined with --supernode: it has parentheses and a top-level '|', and Slurm refuses the nested parentheses needed to AND it with the supernode choice (write it as one parenthesised group)",
			features);
		return -1;
	}
	if (strpbrk(features, "[]*")) {
		sn_error_set(
			err,
			"--constraint=%.200s cannot be combined with --supernode: it uses brackets or counts, and the supernode choice needs Slurm's one bracket group (use a plain feature expression such as 'a&b')",
			features);
		return -1;
	}
	return 0;
}

/*
 * "[sn01|sn02|...]" over the allowed supernodes, ANDed with the user's
 * expression.  Slurm 22.05 refuses nested parentheses, so the user's
 * expression is wrapped only when it has none and holds a top-level OR.
 */
static char *features_build(const struct sn_config *cfg,
			    const unsigned char *allowed, size_t nallowed,
			    const char *user)
{
	size_t len = 8 + (user ? strlen(user) : 0), used = 0;
	bool paren = user && *user && !strchr(user, '(') && or_at_top(user);
	char *out;

	for (size_t i = 0; i < cfg->n_supernodes; i++)
		if (allowed[i])
			len += strlen(cfg->supernodes[i].name) + 1;
	if (!(out = malloc(len)))
		return NULL;
	if (user && *user)
		used += (size_t)snprintf(out + used, len - used, "%s%s%s&",
					 paren ? "(" : "", user,
					 paren ? ")" : "");
	if (nallowed > 1)
		out[used++] = '[';
	for (size_t i = 0, k = 0; i < cfg->n_supernodes; i++) {
		if (!allowed[i])
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 k++ ? "|" : "",
					 cfg->supernodes[i].name);
	}
	if (nallowed > 1)
		out[used++] = ']';
	out[used] = '\0';
	return out;
}

/* Feature method, N = 1: one supernode among the allowed alternatives. */
static int plan_feature(const struct sn_config *cfg,
			const struct sn_job_request *req,
			struct sn_job_plan *plan, struct sn_error *err)
{
	unsigned char *allowed = NULL, *touched = NULL;
	size_t nallowed = 0;
	int rc = -1, n;

	if (req->supernodes > 1) {
		sn_error_set(
			err,
			"--supernode=%u: this cluster's placement.method is 'feature', which places one supernode per job; ask for --supernode=1, or the admin can switch to placement.method 'switch' for jobs of several supernodes",
			req->supernodes);
		return -1;
	}
	if (features_check(req->features, err))
		return -1;
	allowed = malloc(cfg->n_supernodes);
	touched = calloc(cfg->n_supernodes, 1);
	if (!allowed || !touched) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	memset(allowed, 1, cfg->n_supernodes);
	if (req->req_nodes && *req->req_nodes) {
		n = hostlist_supernodes(cfg, req->req_nodes, "--nodelist", true,
					touched, err);
		if (n < 0)
			goto out;
		if (n > 1) {
			sn_error_set(
				err,
				"--nodelist=%.200s spans %d supernodes, but --supernode=1 gets exactly one",
				req->req_nodes, n);
			goto out;
		}
		for (size_t i = 0; i < cfg->n_supernodes; i++)
			allowed[i] = touched[i] ? 1 : 0;
		memset(touched, 0, cfg->n_supernodes);
	}
	if (req->exc_nodes && *req->exc_nodes) {
		if (hostlist_supernodes(cfg, req->exc_nodes, "--exclude", false,
					touched, err) < 0)
			goto out;
		for (size_t i = 0; i < cfg->n_supernodes; i++)
			if (touched[i])
				allowed[i] = 0;
	}
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		nallowed += allowed[i];
	if (!nallowed) {
		sn_error_set(
			err,
			"--nodelist/--exclude leave no whole supernode for --supernode=1 (excluding one node of a supernode excludes the supernode)");
		goto out;
	}
	if (!(plan->features =
		      features_build(cfg, allowed, nallowed, req->features))) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(allowed);
	free(touched);
	return rc;
}

/*
 * --nodelist within at most N supernodes (switch and block: Slurm grows
 * the job around those hosts, so they must fit in the N it gets).
 */
static int nodelist_check(const struct sn_config *cfg,
			  const struct sn_job_request *req,
			  struct sn_error *err)
{
	unsigned char *touched;
	int n;

	if (!req->req_nodes || !*req->req_nodes)
		return 0;
	if (!(touched = calloc(cfg->n_supernodes, 1))) {
		sn_error_set(err, "out of memory");
		return -1;
	}
	n = hostlist_supernodes(cfg, req->req_nodes, "--nodelist", true,
				touched, err);
	free(touched);
	if (n < 0)
		return -1;
	if ((uint32_t)n > req->supernodes) {
		sn_error_set(
			err,
			"--nodelist=%.200s spans %d supernodes, but --supernode=%u gets exactly %u",
			req->req_nodes, n, req->supernodes, req->supernodes);
		return -1;
	}
	return 0;
}

/* Switch method: N leaf switches (one per supernode), waiting for them. */
static int plan_switch(const struct sn_config *cfg,
		       const struct sn_job_request *req,
		       struct sn_job_plan *plan, struct sn_error *err)
{
	if (req->req_switch != SN_UNSET32 && req->req_switch != 0 &&
	    req->req_switch != req->supernodes) {
		sn_error_set(
			err,
			"--switches=%u cannot be combined with --supernode=%u: each supernode is one leaf switch, so the job needs exactly %u",
			req->req_switch, req->supernodes, req->supernodes);
		return -1;
	}
	if (nodelist_check(cfg, req, err))
		return -1;
	plan->req_switch = req->supernodes;
	plan->wait4switch = cfg->switch_wait;
	return 0;
}

/*
 * Block method: each supernode is one base block of topology/block, so
 * N x size nodes in segments of size nodes are N whole blocks.  The job
 * stays --exclusive (whole nodes) like the other methods rather than
 * --exclusive=topo: Slurm keeps one value in job_desc.shared, and topo
 * alone holds only the CPUs asked for; whole blocks of whole nodes leave
 * nothing of those blocks to any other job anyway.  --nodelist only for
 * N = 1: with several segments, 24.11 refuses required nodes and 26.05
 * takes them only when they are the whole job.
 */
static int plan_block(const struct sn_config *cfg,
		      const struct sn_job_request *req,
		      struct sn_job_plan *plan, struct sn_error *err)
{
	if (req->supernodes > 1 && req->req_nodes && *req->req_nodes) {
		sn_error_set(
			err,
			"--nodelist cannot be combined with --supernode=%u under placement.method 'block': Slurm's topology/block places no segments around required nodes (give --supernode=1, or leave out --nodelist)",
			req->supernodes);
		return -1;
	}
	if (nodelist_check(cfg, req, err))
		return -1;
	plan->segment_size = (uint32_t)cfg->supernode_size;
	return 0;
}

int sn_placement_plan(const struct sn_config *cfg,
		      const struct sn_job_request *req,
		      struct sn_job_plan *plan, struct sn_error *err)
{
	uint32_t max = sn_config_effective_max(cfg);

	memset(plan, 0, sizeof(*plan));
	plan->req_switch = SN_UNSET32;
	plan->wait4switch = SN_UNSET32;
	plan->num_tasks = SN_UNSET32;
	if (req->supernodes < 1 || req->supernodes > max) {
		sn_error_set(
			err,
			"--supernode=%u is out of range (allowed: 1 to %u)",
			req->supernodes, max);
		return -1;
	}
	plan->nodes = req->supernodes * (uint32_t)cfg->supernode_size;
	plan->shared = SN_SHARED_NONE;
	if (hostlist_bound(cfg, req->req_nodes, "--nodelist", err) ||
	    hostlist_bound(cfg, req->exc_nodes, "--exclude", err) ||
	    shared_check(req, err) || tasks_check(req, plan, err) ||
	    nodes_check(cfg, req, plan->nodes, err))
		return -1;
	switch (cfg->method) {
	case SN_PLACE_FEATURE:
		return plan_feature(cfg, req, plan, err);
	case SN_PLACE_SWITCH:
		return plan_switch(cfg, req, plan, err);
	case SN_PLACE_BLOCK:
		return plan_block(cfg, req, plan, err);
	}
	sn_error_set(err, "unknown placement method");
	return -1;
}
