/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rates of counter deltas over a job (see sn_rate.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/sn_rate.h"

struct sn_rate sn_rate_of(enum sn_rate_unit unit, uint64_t count,
			  int64_t seconds, uint64_t bytes)
{
	struct sn_rate r = { .unit = unit, .value = (double)count };
	double floor = 0;

	if (unit == SN_UNIT_PER_HOUR) {
		r.actual = seconds > 0 ? (double)seconds / 3600.0 : 0;
		floor = SN_RATE_MIN_HOURS;
	} else if (unit == SN_UNIT_PER_TB) {
		r.actual = (double)bytes / SN_BYTES_PER_TB;
		floor = SN_RATE_MIN_TB;
	} else {
		return r;
	}
	r.over = r.actual > floor ? r.actual : floor;
	r.value = (double)count / r.over;
	return r;
}

const char *sn_rate_grade(const struct sn_threshold *t, double value)
{
	if (t->has_crit && value >= t->crit)
		return "CRIT";
	if (t->has_warn && value >= t->warn)
		return "WARN";
	return "OK";
}

const char *sn_rate_grade_raised(const struct sn_threshold *t, double value,
				 enum sn_counter_raiser by, bool physical_moved)
{
	const char *g = sn_rate_grade(t, value);

	if (by == SN_RAISED_USER && !physical_moved && !strcmp(g, "CRIT"))
		return "WARN";
	return g;
}

void sn_rate_format(const struct sn_rate *r, uint64_t count, int64_t seconds,
		    char *buf, size_t size)
{
	unsigned long long n = (unsigned long long)count;

	if (r->unit == SN_UNIT_PER_HOUR && seconds < 3600)
		snprintf(buf, size, "+%llu in %lld s = %.4g/h", n,
			 (long long)(seconds > 0 ? seconds : 0), r->value);
	else if (r->unit == SN_UNIT_PER_HOUR)
		snprintf(buf, size, "+%llu in %.1f h = %.4g/h", n, r->actual,
			 r->value);
	else if (r->unit == SN_UNIT_PER_TB)
		snprintf(buf, size, "+%llu in %.2f TB = %.4g/TB", n, r->actual,
			 r->value);
	else
		snprintf(buf, size, "+%llu", n);
}

int sn_rate_ber(uint64_t raw, double *ber)
{
	uint64_t mantissa = (raw >> SN_BER_MANTISSA_SHIFT) &
			    SN_BER_MANTISSA_MASK;
	uint64_t exponent = raw & SN_BER_EXP_MASK;

	*ber = 0;
	if (raw > SN_BER_RAW_MAX)
		return -EINVAL;
	*ber = (double)mantissa * pow(10.0, -(double)exponent);
	return 0;
}
