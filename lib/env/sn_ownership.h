/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_OWNERSHIP_H
#define SN_OWNERSHIP_H

/*
 * Who owns a variable of the job's environment: the one rule, for the
 * step variables (SUPERNODE_*, MASTER_*, jobenv.c) and the task variables
 * (NCCL_*, UCX_*, ranks, taskenv.c) alike.  The SPANK adapters read each
 * variable (sn_job_getenv), ask sn_ownership_plan() and write what it says.
 *
 * The ownership marker tells our own values from the user's.  Steps
 * inherit the environment of the step that launched them (srun inside a
 * batch script sees the batch step's SUPERNODE_NODE_RANK=0).  We set a
 * variable only where it is unset, *or* where it still holds exactly the
 * value we set earlier: SN_ENVMARK_VAR lists "NAME=hash" for every
 * variable we set (hash: 32-bit FNV-1a of the value, 8 hex digits).  A
 * value the user changed or set himself no longer matches, and stays,
 * unless the site's env.force names the variable: then ours replaces it.
 * A value that is set but could not be read whole (sn_env_unread) is
 * always the job's, even under env.force.
 */
#include <stdbool.h>
#include <stddef.h>

#include "config/sn_config.h"
#include "env/sn_jobenv.h"
#include "util/sn_error.h"

#define SN_ENVMARK_VAR "SUPERNODE_ENV_SET"

/* --supernode-env=MODE: what the plugin does to the job's environment. */
enum sn_env_mode {
	SN_ENV_AUTO = 0, /* set what is unset (the default) */
	SN_ENV_NONE,	 /* set nothing at all */
	SN_ENV_SHOW,	 /* as auto, and task 0 of each node prints why */
};

/* Carries the mode into the job's steps (srun inside sbatch/salloc). */
#define SN_ENV_MODE_VAR "SLURM_SPANK_SUPERNODE_ENV"

/*
 * sn_ownership_mode_parse - "auto", "none" or "show" into *mode; 0, or -1
 * for anything else, NULL included (case and spaces count).
 */
int sn_ownership_mode_parse(const char *s, enum sn_env_mode *mode);

/* sn_ownership_mode_name - the mode's name ("?" when out of range). */
const char *sn_ownership_mode_name(enum sn_env_mode mode);

/*
 * sn_ownership_active - whether the plugin touches the job's environment
 * at all: the job asked for --supernode and the mode is not none.
 */
bool sn_ownership_active(bool supernode_given, enum sn_env_mode mode);

/*
 * sn_ownership_mode_option - --supernode-env=ARG as the option's callback
 * gets it (@arg may be NULL): 0 with *mode set, or, for anything
 * sn_ownership_mode_parse() refuses, *mode untouched and err set to
 * "--supernode-env=ARG: expected auto, none or show".  At submission
 * (@remote false) that refuses the option: -1.  In a step, which must
 * never fail on it, err ends in "; using auto": 1.
 */
int sn_ownership_mode_option(const char *arg, bool remote,
			     enum sn_env_mode *mode, struct sn_error *err);

/*
 * sn_ownership_mode_inherit - a step's mode from what the submission left
 * in SN_ENV_MODE_VAR (@value; NULL when unset or not read whole), unless
 * the step's own --supernode-env was @given.  Returns 0 (*mode set, or
 * untouched), or -1 when value is no mode: *mode untouched, err says
 * "SLURM_SPANK_SUPERNODE_ENV=VALUE: expected auto, none or show; using
 * auto" (VALUE cut at 64 bytes).
 */
int sn_ownership_mode_inherit(bool given, const char *value,
			      enum sn_env_mode *mode, struct sn_error *err);

/* What may be done with one variable of the job's environment. */
enum sn_ownership_action {
	SN_OWN_SET,   /* unset, or still our earlier value: set it */
	SN_OWN_FORCE, /* the job's own value, but env.force names it */
	SN_OWN_KEEP,  /* the job's own value: it stays */
	SN_OWN_UNSET, /* ours from an earlier step, now not wanted */
	SN_OWN_NONE,  /* nothing to set, nothing to undo */
};

/*
 * struct sn_ownership_var - one variable: what the job holds, what we
 * computed, and (from sn_ownership_plan) what to do.  Strings are
 * borrowed.
 */
struct sn_ownership_var {
	const char *name; /* in: the variable */
	const char *cur; /* in: the job's value; NULL unset, or sn_env_unread */
	const char *value; /* in: ours; NULL for "should not be set" */
	const char *why; /* in: why value (or why none); plan may replace it */
	enum sn_ownership_action action; /* out: sn_ownership_plan() */
	bool written; /* the adapter's: value was set in the job */
};

/*
 * sn_ownership_decide - the rule for one variable.
 * @marker: SN_ENVMARK_VAR as the job holds it ("" or NULL if unset or not
 *          read whole: it then claims nothing)
 * @cur:    the job's current value, NULL if unset
 * @value:  ours, NULL for "should not be set"
 * A value is ours when the marker records it; env.force makes us replace
 * the job's own value, never unset it; cur == sn_env_unread is KEEP.
 */
enum sn_ownership_action sn_ownership_decide(const struct sn_config *cfg,
					     const char *marker,
					     const char *name, const char *cur,
					     const char *value);

/*
 * sn_ownership_users - true when the job holds its own value of name, one
 * we may not replace (sn_ownership_decide() would say KEEP for any value).
 */
bool sn_ownership_users(const struct sn_config *cfg, const char *marker,
			const char *name, const char *cur);

/*
 * sn_ownership_plan - vars[i].action for every variable, and vars[i].why
 * where the plan itself explains: --supernode-env=none does nothing;
 * otherwise sn_ownership_decide() for each, and then the Gloo rule: NCCL
 * and Gloo must rendezvous on one interface, so when the job keeps its own
 * NCCL_SOCKET_IFNAME, a GLOO_SOCKET_IFNAME we would merely SET is NONE
 * ("not set: the job chose its own NCCL_SOCKET_IFNAME"); env.force still
 * forces it.
 */
void sn_ownership_plan(const struct sn_config *cfg, enum sn_env_mode mode,
		       const char *marker, struct sn_ownership_var *vars,
		       size_t n);

/* sn_ownership_writes - true when v's action asks to set v->value. */
bool sn_ownership_writes(const struct sn_ownership_var *v);

/*
 * sn_ownership_in_place - true when v is to be set and the job already
 * holds exactly v->value (read whole): setting it again changes nothing,
 * and the adapter skips the call (Slurm's spank_setenv() clears a 256 KiB
 * buffer on every call), marking v written all the same.  The steps of a
 * batch job inherit most of the batch step's values.
 */
bool sn_ownership_in_place(const struct sn_ownership_var *v);

/*
 * sn_ownership_marker - the new SN_ENVMARK_VAR: the entries of old whose
 * name is none of vars[].name (malformed entries dropped), then
 * "NAME=hash" of every var with written true.  Returns a malloc()ed
 * string ("" at least), or NULL on no memory.
 */
char *sn_ownership_marker(const char *old, const struct sn_ownership_var *vars,
			  size_t n);

/*
 * sn_ownership_show - the text --supernode-env=show prints for v after the
 * plan: "NAME=value (why)", "NAME=value (why; env.force: replaced the
 * job's 'CUR')" (CUR cut at 200 bytes), "NAME=CUR (kept: user set it)"
 * (cut at 400 bytes) or "NAME not set (why)".  malloc()ed, NULL on no
 * memory.
 */
char *sn_ownership_show(const struct sn_ownership_var *v);

/* The step variables (sn_jobenv_build), each with what it is, for show. */
#define SN_OWNERSHIP_STEP_VARS 9
extern const char *const sn_ownership_step_vars[SN_OWNERSHIP_STEP_VARS][2];

/*
 * sn_ownership_observe - a step variable as a task sees it after the step
 * set it (v->name and v->cur in): SET with value cur when the marker
 * records it, KEEP when the job holds another value, NONE when it is
 * unset (why: see the plugin's error).  For show.
 */
void sn_ownership_observe(const char *marker, const char *desc,
			  struct sn_ownership_var *v);

/*
 * sn_envmark_owns - true if marker records name with this exact value
 * (never for sn_env_unread: a value not read whole is the job's).
 */
bool sn_envmark_owns(const char *marker, const char *name, const char *value);

/*
 * sn_envmark_build - the marker for the variables in env, considering only
 * those with set[i] true.  Returns a malloc()ed string or NULL.
 */
char *sn_envmark_build(const struct sn_jobenv *env, const bool *set);

#endif
