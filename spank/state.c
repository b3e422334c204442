/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plugin's state (one per process) and the reads every context
 * shares: the config, the job's environment,
 * this node's name.  The bottom of spank/: it calls only lib/.
 */
/* The one caller of spank_getenv() (sn_spank.h poisons it elsewhere). */
#define SN_SPANK_GETENV_WRAPPER
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sn_spank.h"
#include "config/sn_config_snapshot.h"
#include "util/sn_slurm_env.h"

struct sn_spank sn_state;

const struct sn_config *config_get(void)
{
	if (!sn_state.cfg_tried) {
		sn_state.cfg_tried = 1;
		sn_state.cfg =
			sn_config_load(sn_state.args.config, &sn_state.cfg_err);
	}
	return sn_state.cfg;
}

uint64_t config_stamp(void)
{
	if (!sn_state.config_stamp)
		sn_state.config_stamp = sn_config_stamp(sn_state.args.config);
	return sn_state.config_stamp;
}

/*
 * The job's config the job's first step left for job_id on node self,
 * under plugstack's state_dir=; NULL when there is none (said in slurmd's
 * log when one is there but refused: the whole file is loaded then).
 */
static struct sn_config *job_config_load(uint32_t job_id, const char *self)
{
	struct sn_config_snapshot_key key = { .job_id = job_id, .node = self };
	char host[SN_HOST_NAME_SIZE], dir[PATH_MAX];
	struct sn_config *cfg;
	struct sn_error err;

	sn_slurm_env_host(host, sizeof(host));
	if (!job_id || sn_path_expand(sn_state.args.state_dir, self, host, dir,
				      sizeof(dir)))
		return NULL;
	key.config_stamp = config_stamp();
	cfg = sn_config_snapshot_load(dir, sn_state.args.config, &key, &err);
	if (!cfg && errno != ENOENT)
		slurm_info("%s: the job's config not taken, reading %s: %s",
			   SN_PLUGIN, sn_state.args.config, err.msg);
	return cfg;
}

void job_config_save(uint32_t job_id, const char *self,
		     const char *job_nodelist)
{
	struct sn_config_snapshot_key key = { .job_id = job_id, .node = self };
	char host[SN_HOST_NAME_SIZE], dir[PATH_MAX], cfg_dir[PATH_MAX];
	struct sn_error err;
	int rc;

	if (sn_state.cfg_of_job || !sn_state.cfg || !job_id)
		return;
	sn_slurm_env_host(host, sizeof(host));
	if (sn_path_expand(sn_state.args.state_dir, self, host, dir,
			   sizeof(dir)) ||
	    sn_path_expand(sn_state.cfg->state_dir, self, host, cfg_dir,
			   sizeof(cfg_dir)))
		return;
	/* Only where the epilog removes it, and where later steps look. */
	if (strcmp(dir, cfg_dir)) {
		slurm_info(
			"%s: the job's config not written: plugstack.conf's state_dir=%s is not %s's paths.state_dir %s, so every step reads the whole file",
			SN_PLUGIN, sn_state.args.state_dir, sn_state.cfg->path,
			sn_state.cfg->state_dir);
		return;
	}
	key.config_stamp = config_stamp();
	rc = sn_config_snapshot_save(sn_state.cfg, dir, job_nodelist, &key,
				     &err);
	if (rc < 0)
		slurm_info("%s: the job's config not written: %s", SN_PLUGIN,
			   err.msg);
}

const struct sn_config *config_get_job(uint32_t job_id, const char *self)
{
	if (!sn_state.cfg_tried) {
		sn_state.cfg = job_config_load(job_id, self);
		sn_state.cfg_of_job = sn_state.cfg != NULL;
		sn_state.cfg_tried = sn_state.cfg_of_job;
	}
	return config_get();
}

void state_release(void)
{
	sn_config_free(sn_state.cfg);
	sn_state.cfg = NULL;
	sn_state.cfg_tried = 0;
	sn_state.cfg_of_job = false;
	sn_state.config_stamp = 0;
}

/* spank_getenv() as sn_env_read() wants it. */
static enum sn_env_get spank_get(void *ctx, const char *name, char *buf,
				 size_t size)
{
	spank_err_t rc;

	if (size > INT_MAX)
		size = INT_MAX;
	rc = spank_getenv(ctx, name, buf, (int)size);
	if (rc == ESPANK_SUCCESS)
		return SN_ENV_GET_OK;
	if (rc == ESPANK_NOSPACE)
		return SN_ENV_GET_NOSPACE; /* set: never "unset" */
	if (rc == ESPANK_ENV_NOEXIST)
		return SN_ENV_GET_UNSET;
	return SN_ENV_GET_ERROR;
}

const char *job_getenv(spank_t sp, const char *name, struct sn_envbuf *eb)
{
	return sn_env_read(spank_get, sp, name, eb);
}

const char *job_fact(spank_t sp, const char *name, struct sn_envbuf *eb)
{
	const char *v = job_getenv(sp, name, eb);

	return v == sn_env_unread ? NULL : v;
}

void env_write(spank_t sp, const char *marker, struct sn_ownership_var *v,
	       size_t n)
{
	spank_err_t rc;
	char *fresh;

	for (size_t i = 0; i < n; i++) {
		if (v[i].action == SN_OWN_UNSET)
			spank_unsetenv(sp, v[i].name);
		if (!sn_ownership_writes(&v[i]))
			continue;
		if (sn_ownership_in_place(&v[i])) {
			v[i].written = true;
			continue;
		}
		rc = spank_setenv(sp, v[i].name, v[i].value, 1);
		v[i].written = rc == ESPANK_SUCCESS;
		if (rc != ESPANK_SUCCESS)
			slurm_error("%s: cannot set %s: %s", SN_PLUGIN,
				    v[i].name, spank_strerror(rc));
	}
	fresh = sn_ownership_marker(marker, v, n);
	if (fresh && strcmp(fresh, marker))
		spank_setenv(sp, SN_ENVMARK_VAR, fresh, 1);
	free(fresh);
}

bool job_is_batch(spank_t sp)
{
	uint32_t stepid = 0;

	return spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS &&
	       stepid == SN_BATCH_STEP;
}

int self_name(spank_t sp, const char *job_nodelist, char *out, size_t size,
	      struct sn_error *err)
{
	struct sn_envbuf step_buf = { 0 };
	uint32_t nodeid = 0;
	int rc = -1;

	if (spank_get_item(sp, S_JOB_NODEID, &nodeid) != ESPANK_SUCCESS)
		sn_error_set(err, "cannot read the step id or node id");
	else
		rc = sn_jobenv_self_name(
			job_nodelist,
			job_getenv(sp, "SLURM_STEP_NODELIST", &step_buf),
			job_is_batch(sp), nodeid, out, size, err);
	sn_envbuf_free(&step_buf);
	return rc;
}

bool state_resolve(spank_t sp)
{
	struct sn_envbuf eb = { 0 };
	const char *value;
	struct sn_error err;

	if (!sn_state.option_given) {
		value = job_getenv(sp, "SLURM_SPANK_SUPERNODE", &eb);
		sn_state.option_given = value && *value;
	}
	if (sn_ownership_mode_inherit(sn_state.env_mode_given,
				      job_fact(sp, SN_ENV_MODE_VAR, &eb),
				      &sn_state.env_mode, &err))
		slurm_error("%s: %s", SN_PLUGIN, err.msg);
	sn_envbuf_free(&eb);
	return sn_ownership_active(sn_state.option_given, sn_state.env_mode);
}
