/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernode-prolog - slurmd's Prolog= (PrologFlags=Alloc) for --supernode
 * jobs, and, run by hand, the admin's node checker.
 *
 *   supernode-prolog                      as Prolog=: check, save the baseline,
 *                                         drain and exit 2 on a CRIT
 *   supernode-prolog --check [--json]     print every check; drains nothing
 *   supernode-prolog --learn              print this node's manifest (node:)
 *   supernode-prolog --identity [--json]  print the supernode the hardware
 *                                         puts this node in
 *   supernode-prolog --controller         as PrologSlurmctld: is the job's
 *                                         allocation N whole supernodes?
 *                                         (also when SLURM_SCRIPT_CONTEXT is
 *                                         prolog_slurmctld)
 *   options: --config PATH  --node NAME
 *
 * Exit codes: see enum in sn_prolog.h (README: "Prolog").
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "util/sn_child.h"
#include "util/sn_slurm_env.h"
#include "sn_prolog.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--config PATH] [--node NAME] [--check [--json] | --learn |\n"
		"          --identity [--json]]\n"
		"       %s [--config PATH] --controller\n"
		"  (no mode)   run as slurmd's Prolog=: check this node, save the job's\n"
		"              baseline, drain the node and exit 2 on a failed check\n"
		"  --check     print every check as a table; drains nothing\n"
		"  --json      with --check or --identity: print JSON instead\n"
		"  --learn     print the node: manifest of this node (for supernode.yaml)\n"
		"  --identity  print which supernode the hardware puts this node in (NVLink\n"
		"              domain, Ascend super pod) and the configured one\n"
		"  --controller  run as slurmctld's PrologSlurmctld (also chosen by\n"
		"              SLURM_SCRIPT_CONTEXT=prolog_slurmctld): exit 2, so Slurm\n"
		"              requeues the job, unless SLURM_JOB_NODELIST is exactly\n"
		"              SPANK_SUPERNODE whole supernodes; drains nothing\n"
		"  --config    supernode.yaml (default: next to $SLURM_CONF, else %s)\n"
		"  --node      Slurm node name for %%n in paths (default $SLURMD_NODENAME)\n"
		"exit: 0 ok, 1 warn, 2 crit (prolog: node drained; controller: job\n"
		"      requeued), 3 unknown, 4 usage/config\n",
		SN_PROLOG_NAME, SN_PROLOG_NAME, SN_CONFIG_DEFAULT_PATH);
}

static int args_parse(int argc, char **argv, struct sn_prolog_args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'k' },
		{ "json", no_argument, NULL, 'j' },
		{ "learn", no_argument, NULL, 'l' },
		{ "identity", no_argument, NULL, 'i' },
		{ "controller", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	static char default_config[4096];

	memset(a, 0, sizeof(*a));
	sn_config_default_path(default_config, sizeof(default_config));
	a->config = default_config;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 'n':
			a->node = optarg;
			break;
		case 'k':
			a->check = true;
			break;
		case 'j':
			a->json = true;
			break;
		case 'l':
			a->learn = true;
			break;
		case 'C':
			a->controller = true;
			break;
		case 'i':
			a->identity = true;
			break;
		case 'h':
			usage(stdout);
			exit(SN_EXIT_OK);
		default:
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n",
			SN_PROLOG_NAME, argv[optind]);
		return -1;
	}
	if ((a->json && !a->check && !a->identity) ||
	    (a->check + a->learn + a->identity > 1)) {
		fprintf(stderr,
			"%s: --json goes with --check or --identity; --check, --learn and --identity exclude each other\n",
			SN_PROLOG_NAME);
		return -1;
	}
	if (a->controller && (a->check || a->learn || a->identity || a->node)) {
		fprintf(stderr, "%s: --controller takes only --config\n",
			SN_PROLOG_NAME);
		return -1;
	}
	/* PrologSlurmctld= takes no arguments: slurmctld's context says it. */
	if (!a->check && !a->learn && !a->identity &&
	    sn_prolog_controller_context())
		a->controller = true;
	if (!a->node && !a->controller)
		a->node = getenv(SN_ENV_NODENAME);
	return 0;
}

int main(int argc, char **argv)
{
	int64_t start_ms = sn_now_ms();
	struct sn_prolog_args args;
	struct sn_config *cfg;
	struct sn_error err;
	int rc;

	sn_log_open(SN_PROLOG_NAME);
	if (args_parse(argc, argv, &args)) {
		usage(stderr);
		return SN_EXIT_USAGE;
	}
	args.start_ms = start_ms;
	if (args.controller && !sn_prolog_controller_wanted())
		return SN_EXIT_OK; /* not a --supernode job: nothing to verify */
	cfg = sn_config_load(args.config, &err);
	if (!cfg && args.controller) {
		/* controller.c says why a broken config lets the job run. */
		sn_log(LOG_ERR,
		       "job %s: config not loaded, allocation NOT verified, job runs: %s",
		       getenv(SN_ENV_JOB_ID) ? getenv(SN_ENV_JOB_ID) : "?",
		       err.msg);
		return SN_EXIT_OK;
	}
	if (cfg)
		sn_config_log_deprecated(cfg); /* old forms: syslog */
	if (!cfg) {
		/* A config that does not load never drains anything. */
		sn_log(LOG_ERR,
		       "config not loaded, nothing checked or drained: %s",
		       err.msg);
		return (args.check || args.learn || args.identity) ?
			       SN_EXIT_USAGE :
			       SN_EXIT_OK;
	}
	if (args.controller)
		rc = sn_prolog_controller(&args, cfg);
	else if (args.check)
		rc = sn_prolog_check(&args, cfg);
	else if (args.learn)
		rc = sn_prolog_learn(&args, cfg);
	else if (args.identity)
		rc = sn_prolog_identity(&args, cfg);
	else
		rc = sn_prolog_run(&args, cfg);
	sn_config_free(cfg);
	return rc;
}
