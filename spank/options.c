/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The --supernode=N option: registration, the callback (which may run more
 * than once: the last value wins, nothing accumulates), the environment
 * equivalents and the hand-over of SUPERNODE=N to slurmctld.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sn_option.h"
#include "sn_spank.h"

#define SN_OPT_VAL 1

static char sn_usage[160];

/* The largest N this process can check; 0 when the config did not load. */
static uint32_t max_allowed(void)
{
	return sn_state.cfg ? sn_config_effective_max(sn_state.cfg) : 0;
}

static int option_cb(int val, const char *optarg, int remote)
{
	struct sn_error err;
	uint32_t n;

	(void)val;
	if (!sn_state.cfg) {
		if (remote) {
			/* The submit side checked N; the step still needs it. */
			long long v = optarg ? strtoll(optarg, NULL, 10) : 0;

			sn_state.option_given = v >= 1;
			sn_state.supernodes = v >= 1 ? (uint32_t)v : 0;
			return 0;
		}
		slurm_error("%s: --supernode cannot be used: %s", SN_PLUGIN,
			    sn_state.cfg_err.msg);
		return -1;
	}
	if (sn_supernode_count_parse(optarg, max_allowed(), &n, &err)) {
		slurm_error("%s: %s", SN_PLUGIN, err.msg);
		return -1;
	}
	sn_state.option_given = 1;
	sn_state.supernodes = n;
	snprintf(sn_state.option_arg, sizeof(sn_state.option_arg), "%s",
		 optarg);
	return 0;
}

int sn_options_register(spank_t sp)
{
	struct spank_option opt = {
		.name = "supernode",
		.arginfo = "N",
		.usage = sn_usage,
		.has_arg = 1,
		.val = SN_OPT_VAL,
		.cb = option_cb,
	};
	spank_err_t rc;

	if (sn_state.cfg)
		snprintf(sn_usage, sizeof(sn_usage),
			 "Allocate N whole supernodes, exclusively, with their job environment (N: 1 to %u)",
			 max_allowed());
	else
		snprintf(sn_usage, sizeof(sn_usage),
			 "Allocate N whole supernodes, exclusively (config not loaded)");
	rc = spank_option_register(sp, &opt);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("%s: cannot register --supernode: %s", SN_PLUGIN,
			    spank_strerror(rc));
		return -1;
	}
	return 0;
}

/* The environment variable that stands for --supernode in this program. */
static const char *env_equivalent(void)
{
	if (spank_context() == S_CTX_LOCAL)
		return "SLURM_SUPERNODE";
	if (!strcmp(program_invocation_short_name, "sbatch"))
		return "SBATCH_SUPERNODE";
	if (!strcmp(program_invocation_short_name, "salloc"))
		return "SALLOC_SUPERNODE";
	return NULL;
}

static int env_apply(void)
{
	const char *name = env_equivalent();
	const char *value = name ? getenv(name) : NULL;
	struct sn_error err;

	if (!value)
		return 0;
	if (!sn_state.cfg) {
		slurm_error("%s: %s is set but --supernode cannot be used: %s",
			    SN_PLUGIN, name, sn_state.cfg_err.msg);
		return -1;
	}
	if (sn_supernode_count_parse(value, max_allowed(),
				     &sn_state.supernodes, &err)) {
		slurm_error("%s: %s: %s", SN_PLUGIN, name, err.msg);
		return -1;
	}
	sn_state.option_given = 1;
	snprintf(sn_state.option_arg, sizeof(sn_state.option_arg), "%s",
		 value);
	return 0;
}

int sn_options_post_opt(spank_t sp)
{
	char value[16];
	spank_err_t rc;

	/* The command line (or #SBATCH) wins over the environment. */
	if (!sn_state.option_given && env_apply())
		return -1;
	if (!sn_state.option_given)
		return 0;
	snprintf(value, sizeof(value), "%u", sn_state.supernodes);
	/*
	 * SLURM_SPANK_SUPERNODE in our own environment reaches the job's
	 * steps even when the request came from SLURM_SUPERNODE rather than
	 * the option (sbatch and salloc export it themselves too).
	 */
	if (setenv("SLURM_SPANK_SUPERNODE", value, 1))
		slurm_error("%s: cannot export SLURM_SPANK_SUPERNODE", SN_PLUGIN);
	rc = spank_job_control_setenv(sp, "SUPERNODE", value, 1);
	if (rc != ESPANK_SUCCESS) {
		slurm_error("%s: --supernode=%u: cannot pass it to slurmctld: %s",
			    SN_PLUGIN, sn_state.supernodes, spank_strerror(rc));
		return -1;
	}
	return 0;
}
