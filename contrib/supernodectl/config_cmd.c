/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl config validate [FILE]: load supernode.yaml with the same
 * loader as every other component and summarise it, or print the loader's
 * error (file:line:col: key: problem) and exit 1.  Then, on this node, the
 * folders, libraries and program that the prolog and epilog would refuse
 * (lib/util/sn_safedir.h), one line each ("KEY: why"), and exit 1.
 *
 * Also the dispatch of the other config subcommands:
 *   config check   (config_check.c)  against the running cluster
 *   config slurm   (config_slurm.c)  the matching Slurm configuration
 *   config migrate (config_migrate.c) the file in today's form
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "snctl_config.h"

static void config_usage(void)
{
	fprintf(stderr,
		"usage: %s [--config PATH] config validate [FILE]\n"
		"       %s [--config PATH] config check\n"
		"       %s [--config PATH] config migrate [FILE] [--write]\n"
		"       %s [--config PATH] config slurm [--section nodes|topology|plugstack]\n"
		"                                   [--topology tree|block|none]\n",
		SNCTL_NAME, SNCTL_NAME, SNCTL_NAME, SNCTL_NAME);
}

/* A subcommand with its own arguments (argv[0] is its name). */
struct config_sub {
	const char *name;
	int (*run)(const struct snctl_global *g, int argc, char **argv);
};

static const struct config_sub config_subs[] = {
	{ "check", snctl_config_check },
	{ "slurm", snctl_config_slurm },
	{ "migrate", snctl_config_migrate },
};

/*
 * Parse "config [--config PATH] SUB ..." into g and *sub (optind at SUB);
 * for validate, its FILE into *file.
 */
static int config_args(int argc, char **argv, struct snctl_global *g,
		       const char **file, const struct config_sub **sub)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*sub = NULL;
	/* "+": options after the subcommand belong to it. */
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c != 'c')
			return -1;
		g->config = optarg;
	}
	if (optind >= argc) {
		sn_log_stderr(
			"config: missing subcommand (validate, check, slurm, migrate)");
		return -1;
	}
	for (size_t i = 0; i < sizeof(config_subs) / sizeof(config_subs[0]);
	     i++)
		if (!strcmp(argv[optind], config_subs[i].name))
			*sub = &config_subs[i];
	if (*sub)
		return 0;
	/* validate: options anywhere ("validate FILE --config PATH"). */
	optind = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return -1;
		g->config = optarg;
	}
	if (optind >= argc || strcmp(argv[optind], "validate")) {
		sn_log_stderr("config: unknown subcommand '%s'", argv[optind]);
		return -1;
	}
	*file = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (optind + 2 < argc) {
		sn_log_stderr("config validate: unexpected argument '%s'",
			      argv[optind + 2]);
		return -1;
	}
	return 0;
}

int snctl_config(const struct snctl_global *g0, int argc, char **argv)
{
	struct snctl_global g = *g0;
	const struct config_sub *sub;
	struct sn_config *cfg = NULL;
	const char *file = NULL;
	int rc;

	if (config_args(argc, argv, &g, &file, &sub)) {
		config_usage();
		return SNCTL_EXIT_USAGE;
	}
	if (sub) {
		/* The subcommand parses from its own name on. */
		argv += optind;
		argc -= optind;
		argv[0] = (char *)SNCTL_NAME; /* for getopt's messages */
		optind = 0;
		rc = sub->run(&g, argc, argv);
		if (rc == SNCTL_EXIT_USAGE)
			config_usage();
		return rc;
	}
	if (file)
		g.config = file;
	if (snctl_config_load(&g, &cfg))
		return SNCTL_EXIT_NOTFOUND;
	snctl_config_warn(cfg);
	if (snctl_config_trust(cfg)) {
		/* The prolog and epilog on this node would refuse them. */
		sn_config_free(cfg);
		return SNCTL_EXIT_NOTFOUND;
	}
	printf("ok: %zu supernodes of %zu nodes, method %s\n",
	       cfg->n_supernodes, cfg->supernode_size,
	       sn_placement_method_name(cfg->method));
	sn_config_free(cfg);
	return SNCTL_EXIT_OK;
}
