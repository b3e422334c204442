/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <string.h>

#include "checks/sn_grade.h"

/* One row per grade: its name and its place in the order of badness. */
static const struct {
	const char *name;
	int severity;
} grades[] = {
	[SN_OK] = { "OK", 0 },
	[SN_WARN] = { "WARN", 1 },
	[SN_CRIT] = { "CRIT", SN_GRADE_SEVERITY_MAX },
	[SN_UNKNOWN] = { "UNKNOWN", 2 },
};

#define N_GRADES (sizeof(grades) / sizeof(grades[0]))

int sn_grade_severity(enum sn_grade g)
{
	return (unsigned)g < N_GRADES ? grades[g].severity : 0;
}

enum sn_grade sn_grade_worse(enum sn_grade a, enum sn_grade b)
{
	return sn_grade_severity(b) > sn_grade_severity(a) ? b : a;
}

const char *sn_grade_name(enum sn_grade g)
{
	return (unsigned)g < N_GRADES ? grades[g].name : "?";
}

int sn_grade_parse(const char *s)
{
	if (!s)
		return -1;
	for (size_t g = 0; g < N_GRADES; g++)
		if (!strcmp(s, grades[g].name))
			return (int)g;
	return -1;
}

int sn_grade_exit(enum sn_grade g)
{
	switch (g) {
	case SN_OK:
		return 0;
	case SN_WARN:
		return 1;
	case SN_CRIT:
		return 2;
	default:
		return 3;
	}
}
