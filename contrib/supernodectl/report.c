/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl report: argument parsing and dispatch.
 *
 *   report JOBID [--json]                     (report_job.c)
 *   report --node NAME [--last N] [--json]    (report_node.c)
 *
 * Exit: 0 found, 1 no record, 2 usage or a config that does not load.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/sn_number.h"
#include "report.h"

static void report_usage(void)
{
	fprintf(stderr,
		"usage: %s [--config PATH] report JOBID [--json]\n"
		"       %s [--config PATH] report --node NAME [--last N] [--json]\n",
		SNCTL_NAME, SNCTL_NAME);
}

/* A whole number in [lo, hi], strictly (no sign, spaces or suffix). */
static int number_arg(const char *what, const char *s, long long lo,
		      long long hi, long long *out)
{
	if (!sn_number_parse(s, out) || *out < lo || *out > hi) {
		sn_log_stderr("%s '%s': want a whole number from %lld to %lld",
			      what, s, lo, hi);
		return -1;
	}
	return 0;
}

static int report_opts(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "node", required_argument, NULL, 'n' },
		{ "last", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	long long v;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			a->g.config = optarg;
			break;
		case 'n':
			a->node = optarg;
			break;
		case 'l':
			if (number_arg("--last", optarg, 1, SNCTL_MAX_LAST, &v))
				return -1;
			a->last = (unsigned)v;
			break;
		case 'j':
			a->json = true;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

static int report_args_parse(int argc, char **argv, struct report_args *a)
{
	long long v;

	if (report_opts(argc, argv, a))
		return -1;
	if (a->node && !snctl_node_name_ok(a->node)) {
		sn_log_stderr("--node '%s': not a node name", a->node);
		return -1;
	}
	if (a->node) {
		if (optind < argc) {
			sn_log_stderr("report --node takes no JOBID ('%s')",
				      argv[optind]);
			return -1;
		}
		if (!a->last)
			a->last = SNCTL_DEFAULT_LAST;
		return 0;
	}
	if (a->last) {
		sn_log_stderr("--last goes with --node");
		return -1;
	}
	if (optind >= argc) {
		sn_log_stderr("report: JOBID or --node NAME is required");
		return -1;
	}
	if (optind + 1 < argc) {
		sn_log_stderr("report: unexpected argument '%s'",
			      argv[optind + 1]);
		return -1;
	}
	if (number_arg("JOBID", argv[optind], 1, 0xfffffff0LL, &v))
		return -1;
	a->job = v;
	return 0;
}

int snctl_report(const struct snctl_global *g, int argc, char **argv)
{
	struct report_args a = { .g = *g };
	struct sn_config *cfg = NULL;
	int rc;

	if (report_args_parse(argc, argv, &a)) {
		report_usage();
		return SNCTL_EXIT_USAGE;
	}
	if (snctl_config_load(&a.g, &cfg))
		return SNCTL_EXIT_USAGE;
	if (a.node)
		rc = report_node(&a, cfg);
	else
		rc = report_job(&a, cfg);
	sn_config_free(cfg);
	return rc;
}
