/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --check and --json: run every check and print it; drain nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include "sn_prolog.h"
#include "checks/sn_report.h"
#include "checks/sn_runner.h"

int sn_prolog_check(const struct sn_prolog_args *args, struct sn_config *cfg)
{
	struct sn_results res = { 0 };
	struct sn_check_ctx ctx;
	struct sn_error err;
	int rc;

	if (sn_check_ctx_init(&ctx, cfg, args->node, &err)) {
		sn_log(LOG_ERR, "%s", err.msg);
		return SN_EXIT_USAGE;
	}
	sn_run_checks(&ctx, sn_check_groups, sn_check_groups_count,
		      cfg->prolog.check_timeout_s * 1000,
		      cfg->prolog.timeout_s * 1000, &res);
	if (args->json) {
		char *doc = sn_report_json(&res, ctx.nodename);

		if (doc)
			puts(doc);
		free(doc);
	} else {
		sn_report_table(stdout, &res);
	}
	rc = sn_grade_exit(sn_results_worst(&res));
	sn_results_free(&res);
	return rc;
}
