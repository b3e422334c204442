// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sb_backend.c: a backend by its name, for main()'s sweep, the soak and
 * each group of --diagnose (below sb_mode.c and sb_diag_run.c, so that
 * neither calls back into the other).
 */
#include <string.h>

#include "sb_backend.h"

/**
 * sb_backend_open - the backend @backend ("mpi" or "nccl") over @ctl (NULL:
 * NCCL joins the processes by Slurm's task variables) for the options @o:
 * the sweep's, the soak's and each group of --diagnose.  Returns 0, or -1
 * (message printed) with @b closed again.
 */
int sb_backend_open(struct sb_ctl *ctl, const char *backend,
		    const struct sb_opts *o, struct sb_backend *b)
{
	int rc = -1;

	memset(b, 0, sizeof(*b));
	if (!strcmp(backend, "nccl"))
		rc = sb_nccl_backend(ctl, o, b);
#ifdef SB_HAVE_MPI
	else
		rc = sb_mpi_backend(ctl, o->max_bytes, b);
#endif
	if (rc && b->fini)
		b->fini(b);
	if (rc)
		memset(b, 0, sizeof(*b));
	return rc ? -1 : 0;
}
