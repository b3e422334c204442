/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode.so - SPANK entry points.  Only dispatch lives here: each
 * callback switches on spank_context() and calls the module that owns the
 * work (args.c, options.c, remote_env.c, task_env.c).
 */
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "sn_spank.h"

SPANK_PLUGIN(supernode, 1);

struct sn_spank sn_state;

const struct sn_config *sn_config_get(void)
{
	if (!sn_state.cfg_tried) {
		sn_state.cfg_tried = 1;
		sn_state.cfg = sn_config_load(sn_state.config_path,
					      &sn_state.cfg_err);
	}
	return sn_state.cfg;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		break;
	default:
		return 0;	/* slurmd, job_script: nothing to do */
	}
	if (sn_args_parse(ac, av, &sn_state))
		return -1;
	if (sn_options_register(sp))
		return -1;
	return sn_env_option_register(sp);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return sn_options_post_opt(sp);
	default:
		return 0;
	}
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	sn_env_mode_resolve(sp);
	sn_remote_env_set(sp);
	/* Once per step, before the tasks are forked: they share the result. */
	return sn_task_env_prepare(sp);
}

/* Per task, in the task's process just before exec: its own variables. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	return sn_task_env_set(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	sn_config_free(sn_state.cfg);
	sn_state.cfg = NULL;
	sn_state.cfg_tried = 0;
	return 0;
}
