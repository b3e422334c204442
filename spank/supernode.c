/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode.so - SPANK entry points.  Dispatch only: each callback picks
 * the context's file (local.c, remote.c, task.c); the state lives below,
 * in state.c.
 */
#include <slurm/spank.h>

#include "placement/sn_option.h"
#include "util/sn_slurm.h"
#include "sn_spank.h"

SPANK_PLUGIN(supernode, 1);

/*
 * A failing slurm_spank_init is never the node's fault: a bad plugstack
 * argument is the site's, a bad option value the job's (both refused with
 * a message).  From Slurm 25.05 it then fails the job and drains nothing;
 * before, Slurm ignores this variable, and no user input makes init fail
 * in the remote context (local.c: the step only notes the option).
 */
int slurm_spank_init_failure_mode = SN_SPANK_INIT_FAILURE_MODE;

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct sn_error err;

	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
	case S_CTX_REMOTE:
		break;
	default:
		return 0; /* slurmd, job_script: nothing to do */
	}
	if (sn_option_args_parse(ac, av, &sn_state.args, &err)) {
		slurm_error("%s: %s", SN_PLUGIN, err.msg);
		return -1;
	}
	return options_register(sp);
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	switch (spank_context()) {
	case S_CTX_LOCAL:
	case S_CTX_ALLOCATOR:
		return options_post_opt(sp);
	default:
		return 0;
	}
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE || !state_resolve(sp))
		return 0; /* without --supernode, or --supernode-env=none */
	remote_env_set(sp);
	/* Once per step, before the tasks are forked: they share the result. */
	return task_env_prepare(sp);
}

/* Per task, in the task's process just before exec: its own variables. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	task_refusal_print(sp);
	return task_env_set(sp);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	state_release();
	return 0;
}
