/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Local and allocator context (srun, sbatch, salloc): --supernode=N and
 * --supernode-env=MODE (a callback may run more than once: the last value
 * wins), their environment forms, and SUPERNODE=N handed to slurmctld.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement/sn_option.h"
#include "sn_spank.h"

#define SN_OPT_VAL 1
#define SN_OPT_ENV_VAL 2

/*
 * srun inside an allocation makes a job step, which no job_submit sees
 * (srun attaches to the job in SLURM_JOB_ID, as Slurm's own srun does).
 */
static bool in_allocation(void)
{
	return spank_context() == S_CTX_LOCAL &&
	       (getenv("SLURM_JOB_ID") || getenv("SLURM_JOBID"));
}

/*
 * Is arg the N that the allocation itself carries?  sbatch and salloc
 * export SLURM_SPANK_SUPERNODE to the job, and Slurm hands it to the
 * callback of every srun inside (spank_process_env_options): an N that
 * slurmctld's job_submit checked when it placed the job.  A step's N
 * allocates nothing (remote.c uses only that it was given).
 */
static bool allocation_value(const char *arg)
{
	const char *inherited = getenv("SLURM_SPANK_SUPERNODE");

	return inherited && arg && !strcmp(inherited, arg);
}

/*
 * N for slurmctld; source starts the messages (sn_option.h).  A
 * well-formed N that asks for a new allocation goes on without the config:
 * slurmctld's job_submit checks it against its own config (the one that
 * places the job: a login node's copy may lag or be absent) and refuses an
 * N out of range, or N > 1 with the feature method, with the same
 * message.  Reading the config here cost every sbatch about 0.6 ms, libyaml
 * loaded and the YAML parsed (tests/bench/slurm_bench.sh).  A malformed N
 * reads it, so that the message names the allowed range; so does srun
 * inside an allocation given an N other than the allocation's own (every
 * srun of a --supernode job gets that one, and paid the same 0.6 ms).
 */
static int count_validate(const char *arg, const char *source, uint32_t *n)
{
	struct sn_error err;

	if ((!in_allocation() || allocation_value(arg)) &&
	    sn_option_count_form(arg, n))
		return 0;
	if (!sn_option_count_check(config_get(), &sn_state.cfg_err, arg, source,
				   n, &err))
		return 0;
	slurm_error("%s: %s", SN_PLUGIN, err.msg);
	return -1;
}

static int option_cb(int val, const char *optarg, int remote)
{
	uint32_t n;

	(void)val;
	if (remote) {
		/* Checked at submission; the step only needs to know it. */
		sn_state.option_given = optarg && *optarg;
		return 0;
	}
	if (count_validate(optarg, "", &n))
		return -1;
	sn_state.option_given = 1;
	sn_state.supernodes = n;
	return 0;
}

/* --supernode-env=MODE: refused at submission, not in a step (lib). */
static int env_option_cb(int val, const char *optarg, int remote)
{
	struct sn_error err;
	int rc = sn_ownership_mode_option(optarg, remote, &sn_state.env_mode,
					  &err);

	(void)val;
	if (rc)
		slurm_error("%s: %s", SN_PLUGIN, err.msg);
	if (rc > 0) /* remote: slurmd's log alone would leave the job unaware */
		sn_state.step_refused = err;
	sn_state.env_mode_given |= rc == 0;
	return rc < 0 ? -1 : 0;
}

/* --supernode and --supernode-env (from slurm_spank_init). */
int options_register(spank_t sp)
{
	static struct spank_option opts[] = {
		{
			.name = "supernode",
			.arginfo = "N",
			.usage =
				"Allocate N whole supernodes, exclusively, with their job environment (N from 1 to the site's placement.max_supernodes)",
			.has_arg = 1,
			.val = SN_OPT_VAL,
			.cb = option_cb,
		},
		{
			.name = "supernode-env",
			.arginfo = "MODE",
			.usage =
				"With --supernode: auto (default) sets the NCCL/UCX/PyTorch environment where the job left it unset; none sets nothing; show also prints each variable, its value and why",
			.has_arg = 1,
			.val = SN_OPT_ENV_VAL,
			.cb = env_option_cb,
		},
	};

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		spank_err_t rc = spank_option_register(sp, &opts[i]);

		if (rc != ESPANK_SUCCESS) {
			slurm_error("%s: cannot register --%s: %s", SN_PLUGIN,
				    opts[i].name, spank_strerror(rc));
			return -1;
		}
	}
	return 0;
}

static int env_apply(void)
{
	const char *name = sn_option_env_name(spank_context() == S_CTX_LOCAL,
					      program_invocation_short_name);
	const char *value = name ? getenv(name) : NULL;
	struct sn_error err;
	char source[64];

	if (!sn_option_env_applies(value, sn_state.option_given,
				   "/proc/self/cmdline", &err)) {
		if (err.msg[0])
			slurm_error("%s: %s", SN_PLUGIN, err.msg);
		return 0;
	}
	snprintf(source, sizeof(source), "%s: ", name);
	if (count_validate(value, source, &sn_state.supernodes))
		return -1;
	sn_state.option_given = 1;
	return 0;
}

int options_post_opt(spank_t sp)
{
	char value[16];
	spank_err_t rc;

	if (env_apply())
		return -1;
	/* The steps of this job (srun inside sbatch/salloc) inherit the mode. */
	if (sn_state.env_mode_given &&
	    setenv(SN_ENV_MODE_VAR, sn_ownership_mode_name(sn_state.env_mode),
		   1))
		slurm_error("%s: cannot export %s", SN_PLUGIN, SN_ENV_MODE_VAR);
	if (!sn_state.option_given)
		return 0;
	snprintf(value, sizeof(value), "%u", sn_state.supernodes);
	/*
	 * SLURM_SPANK_SUPERNODE in our own environment reaches the job's
	 * steps even when the request came from SLURM_SUPERNODE rather than
	 * the option (sbatch and salloc export it themselves too).
	 */
	if (setenv("SLURM_SPANK_SUPERNODE", value, 1))
		slurm_error("%s: cannot export SLURM_SPANK_SUPERNODE",
			    SN_PLUGIN);
	rc = spank_job_control_setenv(sp, "SUPERNODE", value, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error(
			"%s: --supernode=%u: cannot pass it to slurmctld: %s",
			SN_PLUGIN, sn_state.supernodes, spank_strerror(rc));
		return -1;
	}
	if (spank_context() == S_CTX_LOCAL &&
	    spank_job_control_setenv(sp, SN_SPANK_SRUN_MARK, "1", 1) !=
		    ESPANK_SUCCESS) {
		slurm_error("%s: cannot pass %s to slurmctld", SN_PLUGIN,
			    SN_SPANK_SRUN_MARK);
		return -1;
	}
	return 0;
}
