/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_GRADE_H
#define SN_GRADE_H

/*
 * Grades of a verdict, and their order, written once for the checks, the
 * runner's report, the prolog, the epilog's records and supernodectl.
 *
 * Grades follow NHC/Nagios: OK, WARN, CRIT (drains), UNKNOWN (the tool
 * could not tell: logged loudly, drains only if the config says so).  The
 * enum values are the Nagios exit codes (sn_grade_exit); the order of
 * badness is another: OK < WARN < UNKNOWN < CRIT (sn_grade_severity).
 */

enum sn_grade {
	SN_OK = 0,
	SN_WARN = 1,
	SN_CRIT = 2,
	SN_UNKNOWN = 3,
};

#define SN_GRADE_SEVERITY_MAX 3 /* sn_grade_severity(SN_CRIT) */

/*
 * sn_grade_severity - the place of g in the order of badness: OK 0,
 * WARN 1, UNKNOWN 2, CRIT 3 (SN_GRADE_SEVERITY_MAX).  A value outside the
 * enum counts as OK.
 */
int sn_grade_severity(enum sn_grade g);

/* sn_grade_worse - the worse of a and b (a when equally bad). */
enum sn_grade sn_grade_worse(enum sn_grade a, enum sn_grade b);

/* sn_grade_name - "OK", "WARN", "CRIT", "UNKNOWN"; "?" outside the enum. */
const char *sn_grade_name(enum sn_grade g);

/*
 * sn_grade_parse - the grade named s (exactly "OK", "WARN", "CRIT" or
 * "UNKNOWN", as sn_grade_name writes them).  Returns the grade, or -1 for
 * anything else and for NULL.
 */
int sn_grade_parse(const char *s);

/*
 * sn_grade_exit - the Nagios/NHC exit code of a worst grade: 0 OK, 1 WARN,
 * 2 CRIT, 3 UNKNOWN (supernode-prolog --check, supernodectl health).
 */
int sn_grade_exit(enum sn_grade g);

#endif
