/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_record: the epilog's per-job records as `supernodectl report` reads
 * them from record_dir (shared storage, possibly hostile): the file
 * through snctl_record_load (contrib/supernodectl/records.c: bounded read,
 * depth-bounded JSON, schema check), then the report's rows
 * (report_rows.c: deltas, verdicts, Xids, formatting) and the record's
 * drain reason (sn_record_drain_reason).
 * Properties: a file is either a record or a problem, never both; a record
 * holds its node and a grade.
 */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "report.h"
#include "records/sn_record.h"

static FILE *fz_null;
static char fz_file[PATH_MAX];

static void rows(const struct snctl_set *set)
{
	struct report_rows r = { 0 };
	char reason[256];

	for (size_t i = 0; i < set->n; i++) {
		FZ_ASSERT(set->recs[i].node && set->recs[i].worst <= SN_CRIT);
		report_rows_add(&r, &set->recs[i]);
		sn_record_drain_reason(set->recs[i].doc, "supernode:", reason,
				       sizeof(reason));
		FZ_ASSERT(strlen(reason) <= 200);
	}
	report_rows_sort(&r);
	report_rows_print(fz_null, &r);
	report_rows_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snctl_set set = { 0 };
	int rc;

	if (!fz_null) {
		char dir[PATH_MAX];

		fz_null = fopen("/dev/null", "w");
		if (!fz_null)
			abort();
		mkdir(fz_path(dir, sizeof(dir), "990"), 0700);
		fz_path(fz_file, sizeof(fz_file), "990/a1.json");
	}
	fz_write(fz_file, data, size);
	rc = snctl_record_load(&set, fz_file, 0, NULL);
	FZ_ASSERT((rc == 0 && set.n == 1 && !set.n_probs) ||
		  (rc == 1 && !set.n && set.n_probs == 1));
	snctl_record_load(&set, fz_file, 990, "a1");
	rows(&set);
	snctl_set_free(&set);
	return 0;
}
