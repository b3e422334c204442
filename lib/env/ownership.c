/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Who owns a variable of the job's environment (sn_ownership.h): the one
 * rule for step and task variables, the ownership marker, and the text
 * --supernode-env=show prints about each decision.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/sn_ownership.h"

#define SN_HASH_DIGITS 8 /* "%08x" of a 32-bit hash */

static const char *const mode_names[] = {
	[SN_ENV_AUTO] = "auto",
	[SN_ENV_NONE] = "none",
	[SN_ENV_SHOW] = "show",
};

#define N_MODES (sizeof(mode_names) / sizeof(mode_names[0]))

const char *const sn_ownership_step_vars[SN_OWNERSHIP_STEP_VARS][2] = {
	{ "SUPERNODE_COUNT", "supernodes in the allocation" },
	{ "SUPERNODE_NAMES", "the allocation's supernodes, in order" },
	{ "SUPERNODE_NAME", "this node's supernode" },
	{ "SUPERNODE_INDEX", "its position in SUPERNODE_NAMES" },
	{ "SUPERNODE_SIZE", "nodes per supernode" },
	{ "SUPERNODE_NODE_RANK", "this node's rank in its supernode" },
	{ "MASTER_ADDR", "NodeAddr of the step's first node" },
	{ "MASTER_PORT",
	  "from the job and step id, in env.master_port_range, outside the ephemeral ports" },
	{ "SUPERNODE_ATTEMPT",
	  "Slurm's restart count + 1, from supernode-prolog" },
};

int sn_ownership_mode_parse(const char *s, enum sn_env_mode *mode)
{
	for (unsigned i = 0; s && i < N_MODES; i++)
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum sn_env_mode)i;
			return 0;
		}
	return -1;
}

const char *sn_ownership_mode_name(enum sn_env_mode mode)
{
	return (unsigned)mode < N_MODES ? mode_names[mode] : "?";
}

bool sn_ownership_active(bool supernode_given, enum sn_env_mode mode)
{
	return supernode_given && mode != SN_ENV_NONE;
}

int sn_ownership_mode_option(const char *arg, bool remote,
			     enum sn_env_mode *mode, struct sn_error *err)
{
	if (!sn_ownership_mode_parse(arg, mode))
		return 0;
	/* Refused at submission; a step must never fail on it. */
	sn_error_set(err, "--supernode-env=%s: expected auto, none or show%s",
		     arg ? arg : "", remote ? "; using auto" : "");
	return remote ? 1 : -1;
}

int sn_ownership_mode_inherit(bool given, const char *value,
			      enum sn_env_mode *mode, struct sn_error *err)
{
	if (given || !value || !sn_ownership_mode_parse(value, mode))
		return 0;
	sn_error_set(err, "%s=%.64s: expected auto, none or show; using auto",
		     SN_ENV_MODE_VAR, value);
	return -1;
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

bool sn_envmark_owns(const char *marker, const char *name, const char *value)
{
	char entry[96];
	size_t len;
	const char *p;

	/* A value not read whole is never ours: it stays. */
	if (!marker || !name || !value || value == sn_env_unread)
		return false;
	len = (size_t)snprintf(entry, sizeof(entry), "%s=%08x", name,
			       fnv1a(value));
	if (len >= sizeof(entry))
		return false;
	for (p = marker; (p = strstr(p, entry)); p += len)
		if ((p == marker || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

char *sn_envmark_build(const struct sn_jobenv *env, const bool *set)
{
	size_t len = 1, used = 0;
	char *out;

	for (size_t i = 0; i < env->count; i++)
		len += strlen(env->vars[i].name) + SN_HASH_DIGITS + 2;
	if (!(out = malloc(len)))
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < env->count; i++) {
		if (!set[i])
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s=%08x",
					 used ? "," : "", env->vars[i].name,
					 fnv1a(env->vars[i].value));
	}
	return out;
}

static bool forced(const struct sn_config *cfg, const char *name)
{
	for (size_t i = 0; cfg && i < cfg->n_force; i++)
		if (!strcmp(cfg->force[i], name))
			return true;
	return false;
}

enum sn_ownership_action sn_ownership_decide(const struct sn_config *cfg,
					     const char *marker,
					     const char *name, const char *cur,
					     const char *value)
{
	bool ours = cur && sn_envmark_owns(marker ? marker : "", name, cur);

	if (cur == sn_env_unread)
		return SN_OWN_KEEP; /* not read whole: it stays */
	if (!value)
		return ours ? SN_OWN_UNSET : cur ? SN_OWN_KEEP : SN_OWN_NONE;
	if (!cur || ours)
		return SN_OWN_SET;
	return forced(cfg, name) ? SN_OWN_FORCE : SN_OWN_KEEP;
}

bool sn_ownership_users(const struct sn_config *cfg, const char *marker,
			const char *name, const char *cur)
{
	return sn_ownership_decide(cfg, marker, name, cur, "") == SN_OWN_KEEP;
}

static struct sn_ownership_var *find(struct sn_ownership_var *vars, size_t n,
				     const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(vars[i].name, name))
			return &vars[i];
	return NULL;
}

void sn_ownership_plan(const struct sn_config *cfg, enum sn_env_mode mode,
		       const char *marker, struct sn_ownership_var *vars,
		       size_t n)
{
	struct sn_ownership_var *nccl, *gloo;

	for (size_t i = 0; i < n; i++) {
		vars[i].written = false;
		if (mode == SN_ENV_NONE) {
			vars[i].action = SN_OWN_NONE;
			vars[i].why = "--supernode-env=none";
			continue;
		}
		vars[i].action = sn_ownership_decide(
			cfg, marker, vars[i].name, vars[i].cur, vars[i].value);
	}
	nccl = find(vars, n, "NCCL_SOCKET_IFNAME");
	gloo = find(vars, n, "GLOO_SOCKET_IFNAME");
	if (nccl && gloo && nccl->action == SN_OWN_KEEP &&
	    gloo->action == SN_OWN_SET) {
		gloo->action = SN_OWN_NONE;
		gloo->why = "not set: the job chose its own NCCL_SOCKET_IFNAME";
	}
}

bool sn_ownership_writes(const struct sn_ownership_var *v)
{
	return v->action == SN_OWN_SET || v->action == SN_OWN_FORCE;
}

bool sn_ownership_in_place(const struct sn_ownership_var *v)
{
	return sn_ownership_writes(v) && v->value && v->cur &&
	       v->cur != sn_env_unread && !strcmp(v->cur, v->value);
}

/* Is the marker entry p (len bytes, "NAME=hash") about one of vars? */
static bool entry_replaced(const char *p, size_t len,
			   const struct sn_ownership_var *vars, size_t n)
{
	size_t nlen = strcspn(p, "=");

	if (nlen >= len)
		return true; /* malformed: dropped */
	for (size_t i = 0; i < n; i++)
		if (strlen(vars[i].name) == nlen &&
		    !strncmp(p, vars[i].name, nlen))
			return true;
	return false;
}

char *sn_ownership_marker(const char *old, const struct sn_ownership_var *vars,
			  size_t n)
{
	const char *p = old ? old : "";
	size_t cap = strlen(p) + 1, used = 0;
	char *out;

	for (size_t i = 0; i < n; i++)
		cap += strlen(vars[i].name) + SN_HASH_DIGITS + 2;
	if (!(out = malloc(cap)))
		return NULL;
	out[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, ",");

		if (!entry_replaced(p, len, vars, n))
			used += (size_t)snprintf(out + used, cap - used,
						 "%s%.*s", used ? "," : "",
						 (int)len, p);
		p += len;
		p += *p == ',';
	}
	for (size_t i = 0; i < n; i++)
		if (vars[i].written && vars[i].value)
			used += (size_t)snprintf(out + used, cap - used,
						 "%s%s=%08x", used ? "," : "",
						 vars[i].name,
						 fnv1a(vars[i].value));
	return out;
}

static char *text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A malloc()ed printf; NULL on no memory. */
static char *text(const char *fmt, ...)
{
	va_list ap;
	char *out;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(out = malloc((size_t)n + 1)))
		return NULL;
	va_start(ap, fmt);
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return out;
}

char *sn_ownership_show(const struct sn_ownership_var *v)
{
	const char *why = v->why ? v->why : "";
	const char *cur = v->cur ? v->cur : "";

	switch (v->action) {
	case SN_OWN_SET:
		return text("%s=%s (%s)", v->name, v->value, why);
	case SN_OWN_FORCE:
		return text(
			"%s=%s (%s; env.force: replaced the job's '%.200s')",
			v->name, v->value, why, cur);
	case SN_OWN_KEEP:
		return text("%s=%.400s (kept: user set it)", v->name, cur);
	default:
		return text("%s not set (%s)", v->name, why);
	}
}

void sn_ownership_observe(const char *marker, const char *desc,
			  struct sn_ownership_var *v)
{
	v->value = v->cur;
	v->why = desc;
	if (!v->cur) {
		v->action = SN_OWN_NONE;
		v->why =
			"see the plugin's error in the job's output or slurmd log";
	} else if (sn_envmark_owns(marker, v->name, v->cur)) {
		v->action = SN_OWN_SET;
	} else {
		v->action = SN_OWN_KEEP;
	}
}
