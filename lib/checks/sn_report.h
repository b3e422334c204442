/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_REPORT_H
#define SN_REPORT_H

#include <stdio.h>

#include "checks/sn_check.h"

/*
 * sn_report_table - print results as an aligned table, one line per result:
 *   GRADE    CHECK         CODE              DEVICE        EXPECTED   FOUND
 * worst first (CRIT, UNKNOWN, WARN, OK), stable within a grade.
 */
void sn_report_table(FILE *f, const struct sn_results *r);

/*
 * sn_report_json - the same as one JSON document (json-c):
 *   {"node": NODE, "worst": "CRIT", "results": [{"grade", "check", "code",
 *    "device", "expected", "found"}, ...]}
 * Returns a malloc()ed string (caller frees) or NULL.
 */
char *sn_report_json(const struct sn_results *r, const char *node);

#endif
