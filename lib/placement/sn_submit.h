/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_SUBMIT_H
#define SN_SUBMIT_H

/*
 * The job_submit plugin's decisions over a job description's string
 * arrays (spank_job_env, environment: "NAME=value" entries, NULL entries
 * allowed), so that spank/job_submit/ only reads, calls and writes.
 * Every string put into such an array, and every one taken out, goes
 * through the caller's allocator (slurmctld xfree()s what it holds).
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "placement/sn_placement.h"
#include "util/sn_error.h"

/* struct sn_submit_ops - the process's allocator and log (Slurm's). */
struct sn_submit_ops {
	char *(*strdup)(const char *s); /* slurm_xstrdup: never NULL */
	void (*free)(void **p);		/* slurm_xfree: frees *p, sets NULL */
	void (*info)(const char *fmt, ...) /* slurm_info */
		__attribute__((format(printf, 1, 2)));
};

/*
 * sn_submit_strip_forged - drop every entry of env[0..*size-1] that
 * sn_option_env_forged() finds (the prolog would read it as
 * SPANK_SUPERNODE without it being our SUPERNODE=): each is logged with
 * the submitter's uid, then freed; the rest keep their order, the freed
 * tail is NULL and *size the new count.  env NULL: nothing.
 */
void sn_submit_strip_forged(char **env, uint32_t *size, uint32_t uid,
			    const struct sn_submit_ops *ops);

/*
 * sn_submit_client - who submitted: a job with a script is sbatch's; one
 * whose spank_job_env holds SN_SPANK_SRUN_MARK is srun's; any other is
 * salloc's.
 */
enum sn_job_client sn_submit_client(bool script, char *const *spank_env,
				    uint32_t n);

/*
 * sn_submit_tasks_env - set SLURM_NTASKS and SLURM_NPROCS, where env
 * holds them, to tasks (sbatch exports its pre-submission count to the
 * job's steps).  A replaced entry is freed and a new one put in its place.
 */
void sn_submit_tasks_env(char **env, uint32_t n, uint32_t tasks,
			 const struct sn_submit_ops *ops);

/* What sn_submit_check() refused, for the adapter's Slurm error code. */
enum sn_submit_refusal {
	SN_SUBMIT_OK = 0,
	SN_SUBMIT_REFUSED_LAYOUT,  /* a layout Slurm cannot give */
	SN_SUBMIT_REFUSED_FEATURE, /* the site's config cannot serve it */
};

/*
 * sn_submit_check - whether a --supernode job can be placed at all:
 * not a heterogeneous job (@het_job; sbatch hands SPANK options to every
 * component alike), a config that loads (@cfg NULL: @cfg_err says why),
 * and placement.method 'block' only on a Slurm with topology/block
 * segments (@segments).  On a refusal, *err_msg is sn_submit_err_set()'s.
 */
enum sn_submit_refusal sn_submit_check(bool het_job,
				       const struct sn_config *cfg,
				       const struct sn_error *cfg_err,
				       bool segments, char **err_msg,
				       const struct sn_submit_ops *ops);

/*
 * sn_submit_err_set - *err_msg (when err_msg is not NULL) becomes
 * "supernode: MSG", whole, in the caller's allocator; an earlier message
 * is freed.
 */
void sn_submit_err_set(char **err_msg, const char *msg,
		       const struct sn_submit_ops *ops);

/*
 * struct sn_job_shape - the fields that make a job N whole supernodes, as
 * the job record holds them or as an update (scontrol update, a REST
 * update: job_desc_msg_t) asks for them.  Numbers not given are SN_UNSET32
 * / SN_UNSET16 (segment_size: 0 too); strings are borrowed, NULL when not
 * given ("" clears the field, and a record's NULL equals "").
 */
struct sn_job_shape {
	uint32_t min_nodes;    /* NumNodes= */
	uint32_t max_nodes;    /* NumNodes=min-max */
	const char *features;  /* Features= */
	const char *req_nodes; /* ReqNodeList= (NodeList=) */
	uint16_t shared;       /* OverSubscribe=; a job's: the plan's value */
	uint16_t segment_size; /* the API's segment_size (24.05) */
	uint32_t req_switch;   /* Switches= */
};

/* Which field of an update would reshape a --supernode job. */
enum sn_reshape {
	SN_RESHAPE_NONE = 0,
	SN_RESHAPE_NODES,
	SN_RESHAPE_FEATURES,
	SN_RESHAPE_NODELIST,
	SN_RESHAPE_SHARED,
	SN_RESHAPE_SEGMENT,
	SN_RESHAPE_SWITCHES,
};

/*
 * sn_submit_reshape - the first field of @update that would change what
 * @job (a --supernode job) was placed as: its node count, constraint,
 * node list, exclusivity, segment or switch count.  A field given with
 * the value the job already has is no change.  Other fields (time limit,
 * partition, QOS, --exclude, ...) are not looked at.
 */
enum sn_reshape sn_submit_reshape(const struct sn_job_shape *job,
				  const struct sn_job_shape *update);

/* sn_submit_reshape_field - the field's scontrol name ("NumNodes", ...). */
const char *sn_submit_reshape_field(enum sn_reshape r);

/*
 * sn_submit_reshape_refuse - *err_msg (sn_submit_err_set()'s) says which
 * field cannot change on a job of @supernodes (the job's SUPERNODE=
 * value, borrowed) whole supernodes, and what to do instead.
 */
void sn_submit_reshape_refuse(enum sn_reshape r, const char *supernodes,
			      char **err_msg, const struct sn_submit_ops *ops);

/* Slurm's SHARED_FORCE bit of a partition's max_share (OverSubscribe=FORCE). */
#define SN_SHARED_FORCE 0x8000

/*
 * sn_submit_forced_refuse - *err_msg (sn_submit_err_set()'s) says that
 * --supernode cannot run in @partition, whose OverSubscribe=FORCE
 * (@max_share: SN_SHARED_FORCE | the job count) shares nodes whatever a
 * job asks for, and where to submit instead.
 */
void sn_submit_forced_refuse(const char *partition, uint16_t max_share,
			     char **err_msg, const struct sn_submit_ops *ops);

#endif
