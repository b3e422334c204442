/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_OPTION_H
#define SN_OPTION_H

#include <stdint.h>

#include "sn_error.h"

/*
 * Job control variable (spank_job_env) that supernode.so sets in srun
 * (S_CTX_LOCAL) next to SUPERNODE=N: the allocation's first job step
 * follows at once, laid out from srun's own task count, so the
 * job_submit plugin must refuse a layout slurmctld cannot step into.
 */
#define SN_SPANK_SRUN_MARK "SUPERNODE_SRUN"

/*
 * sn_supernode_count_parse - validate the value of --supernode=N (or of
 * SBATCH_SUPERNODE and friends, or of SUPERNODE=N in slurmctld).
 *
 * @arg:  the text as the user gave it; NULL means "no value given".
 * @max:  the largest allowed N (sn_config_effective_max()).
 * @out:  N on success.
 *
 * N must be a whole number written in plain decimal digits, from 1 to max:
 * "", "0", "-1", "abc", "2x", "1.5", " 2", "+2", "0x2" and numbers that
 * overflow are refused.  On error err holds one line naming --supernode,
 * the value and the allowed range.  Returns 0 or -1.
 */
int sn_supernode_count_parse(const char *arg, uint32_t max, uint32_t *out,
			     struct sn_error *err);

#endif
