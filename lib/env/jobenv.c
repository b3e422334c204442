/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sn_file.h"
#include "util/sn_hostlist.h"
#include "env/sn_jobenv.h"
#include "util/sn_number.h"

const char sn_env_unread[] = "(set, but not read whole)";

const char *sn_env_read(sn_env_get_fn get, void *ctx, const char *name,
			struct sn_envbuf *eb)
{
	size_t cap = eb->cap ? eb->cap : SN_ENV_VALUE_FIRST;

	for (;;) {
		if (cap > eb->cap) {
			char *grown = realloc(eb->buf, cap);

			if (!grown)
				return sn_env_unread;
			eb->buf = grown;
			eb->cap = cap;
		}
		switch (get(ctx, name, eb->buf, eb->cap)) {
		case SN_ENV_GET_OK:
			return eb->buf;
		case SN_ENV_GET_UNSET:
			return NULL;
		case SN_ENV_GET_NOSPACE:
			if (eb->cap >= SN_ENV_VALUE_MAX)
				return sn_env_unread;
			cap = eb->cap * 2 < SN_ENV_VALUE_MAX ? eb->cap * 2 :
							       SN_ENV_VALUE_MAX;
			break;
		default:
			return sn_env_unread;
		}
	}
}

void sn_envbuf_free(struct sn_envbuf *eb)
{
	free(eb->buf);
	eb->buf = NULL;
	eb->cap = 0;
}

uint16_t sn_master_port(uint32_t job_id, uint32_t step_id, uint16_t lo,
			uint16_t hi, uint16_t eph_lo, uint16_t eph_hi)
{
	uint32_t span = (uint32_t)hi - lo + 1, overlap = 0, k, steps, slot;
	uint32_t idx, port;

	if (hi < lo)
		return 0;
	if (eph_lo <= eph_hi && eph_lo <= hi && eph_hi >= lo) {
		uint32_t a = eph_lo > lo ? eph_lo : lo;
		uint32_t b = eph_hi < hi ? eph_hi : hi;

		overlap = b - a + 1;
	}
	if (span <= overlap)
		return 0;
	k = span - overlap;
	steps = k < SN_MASTER_PORT_STEPS ? k : SN_MASTER_PORT_STEPS;
	slot = step_id >= SN_STEP_SPECIAL_MIN ? 0 : (step_id + 1) % steps;
	idx = (job_id % (k / steps)) * steps + slot;
	port = (uint32_t)lo + idx;
	/* Ports below the ephemeral window come first, then those above. */
	if (overlap && port >= eph_lo)
		port += overlap;
	return (uint16_t)port;
}

int sn_jobenv_self_name(const char *job_nodelist, const char *step_nodelist,
			bool batch, uint32_t nodeid, char *out, size_t size,
			struct sn_error *err)
{
	const char *list = job_nodelist;
	struct sn_names hosts;

	if (!job_nodelist || job_nodelist == sn_env_unread) {
		sn_error_set(err,
			     "SLURM_JOB_NODELIST is not set or not readable");
		return -1;
	}
	if (batch) {
		nodeid = 0;
	} else if (step_nodelist == sn_env_unread) {
		sn_error_set(err, "SLURM_STEP_NODELIST could not be read");
		return -1;
	} else if (step_nodelist) {
		list = step_nodelist;
	}
	if (sn_hostlist_expand(list, SN_HOSTLIST_MAX, &hosts, err))
		return -1;
	if (nodeid >= hosts.count) {
		sn_error_set(err, "node id %u is outside the step's node list",
			     nodeid);
		sn_names_free(&hosts);
		return -1;
	}
	snprintf(out, size, "%s", hosts.names[nodeid]);
	sn_names_free(&hosts);
	return 0;
}

void sn_jobenv_free(struct sn_jobenv *env)
{
	if (!env)
		return;
	for (size_t i = 0; i < env->count; i++)
		free(env->vars[i].value);
	env->count = 0;
}

static int var_add(struct sn_jobenv *env, const char *name, char *value)
{
	if (!value || env->count >= SN_JOBENV_MAX) {
		free(value);
		return -1;
	}
	env->vars[env->count].name = name;
	env->vars[env->count].value = value;
	env->count++;
	return 0;
}

static int var_addf(struct sn_jobenv *env, const char *name, unsigned long v)
{
	char *s = NULL;

	if (asprintf(&s, "%lu", v) < 0)
		return -1;
	return var_add(env, name, s);
}

/* Comma list of the supernodes in allocation order. */
static char *names_join(const struct sn_config *cfg, const uint32_t *order,
			size_t count)
{
	size_t len = 1, used = 0;
	char *out;

	for (size_t i = 0; i < count; i++)
		len += strlen(cfg->supernodes[order[i]].name) + 1;
	if (!(out = malloc(len)))
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < count; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 i ? "," : "",
					 cfg->supernodes[order[i]].name);
	return out;
}

/* Fills order[] (first appearance) and this node's index and rank. */
static int allocation_walk(const struct sn_config *cfg,
			   const struct sn_names *hosts, const char *self,
			   uint32_t *order, size_t *norder, size_t *index,
			   size_t *rank, struct sn_error *err)
{
	uint32_t *seen_pos = malloc(cfg->n_supernodes * sizeof(*seen_pos));
	uint32_t *filled = calloc(cfg->n_supernodes, sizeof(*filled));
	int rc = -1, found = 0;

	if (!seen_pos || !filled) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < cfg->n_supernodes; i++)
		seen_pos[i] = UINT32_MAX;
	*norder = 0;
	for (size_t i = 0; i < hosts->count; i++) {
		const struct sn_node *n =
			sn_config_find_node(cfg, hosts->names[i]);

		if (!n) {
			sn_error_set(
				err,
				"node %.64s of the allocation is in no supernode of %s",
				hosts->names[i], cfg->path);
			goto out;
		}
		if (seen_pos[n->supernode] == UINT32_MAX) {
			seen_pos[n->supernode] = (uint32_t)*norder;
			order[(*norder)++] = n->supernode;
		}
		if (!found && !strcmp(hosts->names[i], self)) {
			*index = seen_pos[n->supernode];
			*rank = filled[n->supernode];
			found = 1;
		}
		filled[n->supernode]++;
	}
	if (!found) {
		sn_error_set(err, "this node %.64s is not in the allocation",
			     self);
		goto out;
	}
	rc = 0;
out:
	free(seen_pos);
	free(filled);
	return rc;
}

/* A line for the step's log: why a variable is less than asked, or unset. */
static struct sn_error *note_next(struct sn_jobenv *env)
{
	if (env->n_notes >= SN_JOBENV_NOTES)
		return NULL;
	return &env->notes[env->n_notes++];
}

/*
 * MASTER_ADDR: the step's first node (the batch step's is the job's
 * first), by its address.  0, or -1 out of memory; what it cannot tell
 * becomes a note, never an error that would cost the other variables.
 */
static int master_addr_add(const struct sn_jobenv_input *in,
			   const char *job_first, struct sn_jobenv *env)
{
	struct sn_names step = { 0 };
	struct sn_error why;
	char name[SN_HOST_NAME_SIZE], addr[SN_HOST_NAME_SIZE];

	snprintf(name, sizeof(name), "%s", job_first);
	if (!in->batch && in->step_nodelist == sn_env_unread) {
		sn_error_set(
			note_next(env),
			"MASTER_ADDR not set: SLURM_STEP_NODELIST could not be read");
		return 0;
	}
	if (!in->batch && in->step_nodelist) {
		int bad = sn_hostlist_expand(in->step_nodelist, SN_HOSTLIST_MAX,
					     &step, &why);

		if (bad || !step.count) {
			sn_error_set(
				note_next(env),
				"MASTER_ADDR not set: SLURM_STEP_NODELIST '%.200s': %s",
				in->step_nodelist, bad ? why.msg : "no node");
			sn_names_free(&step);
			return 0;
		}
		snprintf(name, sizeof(name), "%s", step.names[0]);
		sn_names_free(&step);
	}
	if (!in->addr_of) {
		snprintf(addr, sizeof(addr), "%s", name);
	} else if (in->addr_of(in->addr_ctx, name, addr, sizeof(addr), &why)) {
		sn_error_set(
			note_next(env),
			"MASTER_ADDR is the node name %s: its address is unknown (%s)",
			name, why.msg);
		snprintf(addr, sizeof(addr), "%s", name);
	}
	return var_add(env, "MASTER_ADDR", strdup(addr));
}

/* MASTER_PORT, or a note why there is none.  0, or -1 out of memory. */
static int master_port_add(const struct sn_config *cfg,
			   const struct sn_jobenv_input *in,
			   struct sn_jobenv *env)
{
	uint16_t port = sn_master_port(in->job_id, in->step_id,
				       cfg->master_port_lo, cfg->master_port_hi,
				       in->ephemeral_lo, in->ephemeral_hi);

	if (port)
		return var_addf(env, "MASTER_PORT", port);
	sn_error_set(
		note_next(env),
		"MASTER_PORT not set: env.master_port_range [%u, %u] lies inside the ephemeral port range [%u, %u]",
		cfg->master_port_lo, cfg->master_port_hi, in->ephemeral_lo,
		in->ephemeral_hi);
	return 0;
}

/*
 * SUPERNODE_ATTEMPT when the prolog left the restart count; -1: memory.
 * Without one, no note: a site without our Prolog= would see it on every
 * step's stderr; the caller logs why (spank/remote.c attempt_read).
 */
static int attempt_add(const struct sn_jobenv_input *in, struct sn_jobenv *env)
{
	if (in->has_restart_count)
		return var_addf(env, "SUPERNODE_ATTEMPT",
				(size_t)in->restart_count + 1);
	return 0;
}

int sn_jobenv_build(const struct sn_config *cfg,
		    const struct sn_jobenv_input *in, struct sn_jobenv *env,
		    struct sn_error *err)
{
	struct sn_names hosts = { 0 };
	struct sn_error herr;
	uint32_t *order = NULL;
	size_t norder = 0, index = 0, rank = 0;
	int rc = -1;

	env->count = 0;
	env->n_notes = 0;
	if (!in->nodename || !*in->nodename) {
		sn_error_set(
			err,
			"this node's Slurm name (SLURMD_NODENAME) is unknown");
		return -1;
	}
	if (sn_hostlist_expand(in->job_nodelist, SN_HOSTLIST_MAX, &hosts,
			       &herr)) {
		sn_error_set(err,
			     "cannot parse SLURM_JOB_NODELIST '%.200s': %s",
			     in->job_nodelist ? in->job_nodelist : "",
			     herr.msg);
		return -1;
	}
	order = calloc(cfg->n_supernodes, sizeof(*order));
	if (!order) {
		sn_error_set(err, "out of memory");
		goto out;
	}
	if (allocation_walk(cfg, &hosts, in->nodename, order, &norder, &index,
			    &rank, err))
		goto out;
	if (var_addf(env, "SUPERNODE_COUNT", norder) ||
	    var_add(env, "SUPERNODE_NAMES", names_join(cfg, order, norder)) ||
	    var_add(env, "SUPERNODE_NAME",
		    strdup(cfg->supernodes[order[index]].name)) ||
	    var_addf(env, "SUPERNODE_INDEX", index) ||
	    var_addf(env, "SUPERNODE_SIZE", cfg->supernode_size) ||
	    var_addf(env, "SUPERNODE_NODE_RANK", rank) ||
	    master_addr_add(in, hosts.names[0], env) ||
	    master_port_add(cfg, in, env) || attempt_add(in, env)) {
		sn_error_set(err, "out of memory");
		sn_jobenv_free(env);
		goto out;
	}
	rc = 0;
out:
	free(order);
	sn_names_free(&hosts);
	return rc;
}

int sn_jobenv_ephemeral(const char *path, struct sn_jobenv_input *in,
			struct sn_error *err)
{
	struct sn_error why;

	if (!sn_ephemeral_range_read(path, &in->ephemeral_lo, &in->ephemeral_hi,
				     &why))
		return 0;
	/* Linux's default: keep clear of it rather than guess nothing. */
	in->ephemeral_lo = 32768;
	in->ephemeral_hi = 60999;
	sn_error_set(err, "%s; assuming 32768-60999", why.msg);
	return -1;
}
