/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl config validate [FILE]: load supernode.yaml with the same
 * loader as every other component and summarise it, or print the loader's
 * error (file:line:col: key: problem) and exit 1.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "snctl.h"

int snctl_config_load(const struct snctl_global *g, struct sn_config **cfg)
{
	char path[PATH_MAX];
	struct sn_error err;

	if (g->config)
		snprintf(path, sizeof(path), "%s", g->config);
	else
		sn_config_default_path(path, sizeof(path));
	*cfg = sn_config_load(path, &err);
	if (!*cfg) {
		snctl_err("%s", err.msg);
		return -1;
	}
	return 0;
}

static void config_usage(void)
{
	fprintf(stderr, "usage: %s [--config PATH] config validate [FILE]\n",
		SNCTL_NAME);
}

/* Parse "config validate [FILE] [--config PATH]" into g and *file. */
static int config_args(int argc, char **argv, struct snctl_global *g,
		       const char **file)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'c')
			return -1;
		g->config = optarg;
	}
	if (optind >= argc) {
		snctl_err("config: missing subcommand (validate)");
		return -1;
	}
	if (strcmp(argv[optind], "validate")) {
		snctl_err("config: unknown subcommand '%s'", argv[optind]);
		return -1;
	}
	*file = optind + 1 < argc ? argv[optind + 1] : NULL;
	if (optind + 2 < argc) {
		snctl_err("config validate: unexpected argument '%s'",
			  argv[optind + 2]);
		return -1;
	}
	return 0;
}

int snctl_config(const struct snctl_global *g0, int argc, char **argv)
{
	struct snctl_global g = *g0;
	struct sn_config *cfg = NULL;
	const char *file = NULL;

	if (config_args(argc, argv, &g, &file)) {
		config_usage();
		return SNCTL_EXIT_USAGE;
	}
	if (file)
		g.config = file;
	if (snctl_config_load(&g, &cfg))
		return SNCTL_EXIT_NOTFOUND;
	printf("ok: %zu supernodes of %zu nodes, method %s\n",
	       cfg->n_supernodes, cfg->supernode_size,
	       sn_placement_method_name(cfg->method));
	sn_config_free(cfg);
	return SNCTL_EXIT_OK;
}
