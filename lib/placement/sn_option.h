/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_OPTION_H
#define SN_OPTION_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sn_config.h"
#include "util/sn_error.h"

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

/*
 * The longest command line there can be, in bytes: Linux caps argv plus
 * envp at 3/4 of _STK_LIM (8 MiB) whatever the stack limit
 * (fs/exec.c), so /proc/self/cmdline is never longer than this.
 */
#define SN_CMDLINE_MAX (6u << 20)

/*
 * sn_cmdline_read - a command line file (/proc/self/cmdline: the
 * arguments, each ending in a NUL), read whole into a malloc()ed *buf of
 * *len bytes (plus a NUL after them).  The buffer grows as needed up to
 * SN_CMDLINE_MAX; nothing is cut.  Returns 0, or -1 with err set
 * (cannot open or read it, longer than SN_CMDLINE_MAX, no memory; *buf is
 * then NULL).
 */
int sn_cmdline_read(const char *path, char **buf, size_t *len,
		    struct sn_error *err);

/*
 * sn_cmdline_supernode_find - the value of the last --supernode among
 * args (len bytes of NUL-ended arguments, argv[0] first, and a NUL at
 * args[len] as sn_cmdline_read() leaves it), as getopt_long
 * reads it: "--supernode=V", or "--supernode" followed by the word V.
 * Scanning stops at "--"; "--supernode-env=..." is another option.  An
 * argument of the script or command spelled so counts too (getopt's own
 * end of options needs each option's arity, which only Slurm knows).
 * Returns a pointer into args ("" when --supernode is the last word), or
 * NULL when no --supernode is there.
 */
const char *sn_cmdline_supernode_find(const char *args, size_t len);

/*
 * sn_cmdline_supernode - the value of the last --supernode on the command
 * line in path (/proc/self/cmdline; sn_cmdline_read() and
 * sn_cmdline_supernode_find()).  Returns 1 with *value a malloc()ed copy
 * of its text (free() it; "" when --supernode was the last word), 0 when
 * the command line has no --supernode (*value NULL), or -1 when it could
 * not be read (*value NULL, err says why).  Does not validate the value.
 */
int sn_cmdline_supernode(const char *path, char **value, struct sn_error *err);

/*
 * sn_option_count_form - whether @arg has the form of a --supernode value
 * without the site's config: a whole number from 1 to UINT32_MAX, spelled
 * as sn_supernode_count_parse() accepts it (no sign, space or base
 * prefix).  A value of this form is accepted by sn_option_count_check()
 * exactly when it is within the config's range and method.  Returns true
 * with *n set; false (a NULL or malformed @arg) leaves *n alone.
 */
bool sn_option_count_form(const char *arg, uint32_t *n);

/*
 * sn_option_count_check - a --supernode value (or its environment form)
 * against the site's config: sn_supernode_count_parse() up to
 * sn_config_effective_max(), and the feature method's one supernode per
 * job.  @source starts every message ("" for the option,
 * "SBATCH_SUPERNODE: " for the environment).  A config that did not load
 * (@cfg NULL) refuses every value: "SOURCE--supernode cannot be used:
 * CFG_ERR".  Returns 0 with *n, or -1 with err set.
 */
int sn_option_count_check(const struct sn_config *cfg,
			  const struct sn_error *cfg_err, const char *arg,
			  const char *source, uint32_t *n,
			  struct sn_error *err);

/*
 * sn_option_env_name - the environment variable that stands for
 * --supernode in a program: SLURM_SUPERNODE in srun (@srun: SPANK's local
 * context), SBATCH_SUPERNODE in sbatch, SALLOC_SUPERNODE in salloc
 * (@program: the program's short name), NULL elsewhere.
 */
const char *sn_option_env_name(bool srun, const char *program);

/*
 * sn_option_env_value - the value of name in env[0..n-1] ("NAME=value"
 * entries, NULL entries skipped; the last wins, as in env(1)), or NULL.
 * For the job's spank_job_env in slurmctld.
 */
const char *sn_option_env_value(char *const *env, size_t n, const char *name);

/*
 * sn_option_env_forged - true for a spank_job_env entry the prolog and
 * epilog would read as SPANK_SUPERNODE without it being our SUPERNODE=:
 * Slurm prefixes each entry with SPANK_ for them, except one that already
 * starts with it, so a client can send "SPANK_SUPERNODE=1" directly.
 */
bool sn_option_env_forged(const char *entry);

/*
 * sn_option_env_applies - whether the environment form of --supernode
 * (@value, the variable sn_option_env_name() names; NULL when unset)
 * replaces the option's value, by sbatch's own precedence: command line >
 * environment > #SBATCH line.  When SPANK saw --supernode
 * (@option_given), the command line file @cmdline (/proc/self/cmdline)
 * tells whether it was given there (sn_cmdline_supernode()).  When that
 * file cannot be read the command line wins, and err says "WHY: taking
 * --supernode for given on the command line"; otherwise err->msg is "".
 */
bool sn_option_env_applies(const char *value, bool option_given,
			   const char *cmdline, struct sn_error *err);

/* supernode.so's plugstack.conf arguments (sn_option_args_parse). */
struct sn_plugin_args {
	char config[PATH_MAX]; /* config=PATH; else SN_CONFIG_DEFAULT_PATH */
	/*
	 * state_dir=PATH: where the job's steps find the job's config
	 * (config/sn_config_snapshot.h) before they have read any config, so
	 * it must be the config's paths.state_dir; may hold %n and %h.  Else
	 * SN_CONFIG_DEFAULT_STATE_DIR, the config's default.
	 */
	char state_dir[PATH_MAX];
};

/*
 * sn_option_args_parse - supernode.so's plugstack.conf arguments, strictly:
 * "config=PATH" and "state_dir=PATH", each at most once, PATH absolute and
 * shorter than PATH_MAX; state_dir's % sequences only %n, %h and %%.
 * Returns 0 with out filled (defaults for what is not given), or -1 with
 * err set (an unknown argument, one given twice, a relative, empty or too
 * long path).
 */
int sn_option_args_parse(int ac, char *const *av, struct sn_plugin_args *out,
			 struct sn_error *err);

#endif
