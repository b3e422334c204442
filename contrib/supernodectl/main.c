/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl - admin tool of slurm-supernode.
 *
 *   supernodectl [--config PATH] report JOBID [--json]
 *   supernodectl [--config PATH] report --node NAME [--last N] [--json]
 *   supernodectl [--config PATH] health [--node NAME]
 *   supernodectl [--config PATH] doctor [--node NAME] [--json]
 *   supernodectl [--config PATH] config validate [FILE]
 *   supernodectl [--config PATH] config check
 *   supernodectl [--config PATH] config slurm [--section S] [--topology T]
 *   supernodectl [--config PATH] discover [--input FILE] [--prolog PATH]
 *                                         [--timeout S]
 *
 * main() parses the global options and hands the rest to one command.
 * Exit 2 on a usage error (health: 4, as the prolog's --check).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "snctl.h"

static const struct snctl_cmd commands[] = {
	{ "report", snctl_report,
	  "report JOBID [--json] | report --node NAME [--last N] [--json]" },
	{ "health", snctl_health, "health [--node NAME]" },
	{ "doctor", snctl_doctor, "doctor [--node NAME] [--json]" },
	{ "config", snctl_config,
	  "config validate [FILE] | config check | config slurm [--section nodes|topology|plugstack] [--topology tree|block|none] | config migrate [FILE] [--write]" },
	{ "discover", snctl_discover,
	  "discover [--input FILE|-] [--prolog PATH] [--timeout S]" },
};

void snctl_usage(FILE *f)
{
	fprintf(f, "usage: %s [--config PATH] COMMAND ...\n", SNCTL_NAME);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "       %s [--config PATH] %s\n", SNCTL_NAME,
			commands[i].synopsis);
	fprintf(f,
		"  report JOBID        every node's record of a job, worst first\n"
		"  report --node NAME  a node's most recent jobs (--last N, default 10)\n"
		"  --json              the same as one JSON document\n"
		"  health              run the prolog's checks on this node (--node NAME,\n"
		"                      default $SLURMD_NODENAME, else the host name): a CRIT\n"
		"                      drains, a node drained by us that passes is resumed,\n"
		"                      anything else is left as it is\n"
		"  doctor              check this node and Slurm's setup for the project, one\n"
		"                      line per check \"LEVEL name: finding\" (OK, WARN, CRIT)\n"
		"                      and \"  fix: ...\"; plugins' versions, plugstack,\n"
		"                      slurm.conf, the config, folders, libraries, hardware\n"
		"                      (--node NAME as health; --json: one object); drains nothing\n"
		"  config validate     load supernode.yaml (FILE, else --config) and summarise\n"
		"  config check        compare it with the running cluster: every node exists,\n"
		"                      features (method feature) or leaf switches (method\n"
		"                      switch) match; one line per mismatch\n"
		"  config slurm        print the matching NodeName ... Feature= lines,\n"
		"                      topology.conf (tree or block) and the plugstack line\n"
		"  config migrate      print the config (FILE, else --config) in today's form:\n"
		"                      only deprecated forms change, comments are kept;\n"
		"                      --write rewrites FILE in place, keeping FILE.orig\n"
		"  discover            ask every idle node which supernode its hardware puts it\n"
		"                      in (one srun step of supernode-prolog --identity --json,\n"
		"                      or --input FILE of such lines) and print the matching\n"
		"                      supernodes: section and topology/block lines; nodes it\n"
		"                      cannot place are listed with the reason\n"
		"  --config PATH       supernode.yaml (default: next to $SLURM_CONF, else %s)\n"
		"exit: report 0 found, 1 no record; config 0 valid/matching, 1 invalid,\n"
		"      mismatch or slurmctld not reachable; 2 usage;\n"
		"      discover 0 every node placed, 1 some not, 2 usage or no nodes;\n"
		"      health 0 ok, 1 warn, 2 crit, 3 unknown, 4 usage/config;\n"
		"      doctor 0 all OK, 1 a WARN, 2 a CRIT, 4 usage\n",
		SN_CONFIG_DEFAULT_PATH);
}

static const struct snctl_cmd *command_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Global options, up to the command name ("+": stop at the first word). */
static int global_parse(int argc, char **argv, struct snctl_global *g)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			g->config = optarg;
			break;
		case 'h':
			snctl_usage(stdout);
			return 1;
		default:
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct snctl_global g = { 0 };
	const struct snctl_cmd *cmd;
	int rc;

	sn_log_open(SNCTL_NAME);
	/* getopt's own messages ("unrecognized option") carry argv[0]. */
	argv[0] = (char *)SNCTL_NAME;
	rc = global_parse(argc, argv, &g);
	if (rc > 0)
		return SNCTL_EXIT_OK;
	if (rc < 0 || optind >= argc) {
		if (rc == 0)
			sn_log_stderr("no command given");
		snctl_usage(stderr);
		return SNCTL_EXIT_USAGE;
	}
	cmd = command_find(argv[optind]);
	if (!cmd) {
		sn_log_stderr("unknown command '%s'", argv[optind]);
		snctl_usage(stderr);
		return SNCTL_EXIT_USAGE;
	}
	/* The command parses argv from its own name on; reset getopt. */
	argv += optind;
	argc -= optind;
	argv[0] = (char *)SNCTL_NAME;
	optind = 0;
	return cmd->run(&g, argc, argv);
}
