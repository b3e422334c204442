/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SNCTL_REPORT_H
#define SNCTL_REPORT_H

#include "snctl.h"

#define SNCTL_DEFAULT_LAST 10u

struct report_args {
	struct snctl_global g;
	int64_t job;	  /* report JOBID */
	const char *node; /* report --node NAME */
	unsigned last;	  /* --last N */
	bool json;
};

/* report_job.c / report_node.c: the two forms; return the exit code. */
int report_job(const struct report_args *a, const struct sn_config *cfg);
int report_node(const struct report_args *a, const struct sn_config *cfg);

/* report_rows.c: one table row per node and port / accelerator. */
struct report_row {
	const struct snctl_record *rec;
	char device[96];
	char errors[512]; /* non-zero and unknown deltas, Xids */
	char traffic[160];
	char verdict[256]; /* what breached: "symbol_error>=10" */
	enum sn_grade grade;
	uint64_t err_total; /* sum of the error deltas, for ordering */
	unsigned n_unknown;
};

struct report_rows {
	struct report_row *v;
	size_t n, cap;
};

/* Append the rows of one record; 0 or -1 (out of memory). */
int report_rows_add(struct report_rows *rows, const struct snctl_record *rec);
/* Worst first: grade, error total, unknowns, node, device. */
void report_rows_sort(struct report_rows *rows);
void report_rows_print(FILE *f, const struct report_rows *rows);
void report_rows_free(struct report_rows *rows);

#endif
