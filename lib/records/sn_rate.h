/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_RATE_H
#define SN_RATE_H

/*
 * The rate the epilog judges a counter's delta by (issue 12): a count per
 * job, per hour of the job, or per TB the device moved (the unit of its
 * threshold, config/sn_epilog_cfg.h).  Pure functions; no I/O.
 *
 * Short jobs: a rate is taken over at least SN_RATE_MIN_HOURS (one hour)
 * or SN_RATE_MIN_TB (one TB).  A job shorter than an hour is judged as if
 * it had lasted an hour, one that moved less than a TB as if it had moved
 * one: 3 symbol errors in a 2 s job are 3/h, not 5400/h, while 500 in
 * 2 s are still 500/h (crit 120/h).  Rates can only be lower than the
 * count, so a short job never drains on a rate its count alone would not
 * reach.  Traffic that is not known counts as none (so the count is
 * judged over one TB).
 */
#include <stdbool.h>
#include <stdint.h>

#include "config/sn_epilog_cfg.h"

#define SN_RATE_MIN_HOURS 1.0
#define SN_RATE_MIN_TB 1.0
#define SN_BYTES_PER_TB 1e12

/*
 * struct sn_rate - one delta as its threshold's unit sees it.
 * @unit:   of the threshold
 * @value:  the count (SN_UNIT_COUNT), or count / @over
 * @over:   hours or TB divided by: the job's (@actual), at least the
 *          minimum; 0 for a count
 * @actual: the job's hours or TB (0 when not known or for a count)
 */
struct sn_rate {
	enum sn_rate_unit unit;
	double value;
	double over;
	double actual;
};

/*
 * sn_rate_of - count in unit over a job of seconds (negative: 0) that
 * moved bytes (sent plus received; 0 when not known).
 */
struct sn_rate sn_rate_of(enum sn_rate_unit unit, uint64_t count,
			  int64_t seconds, uint64_t bytes);

/*
 * sn_rate_grade - "CRIT" when t has crit and value >= crit, else "WARN"
 * when it has warn and value >= warn, else "OK".  Static strings.
 */
const char *sn_rate_grade(const struct sn_threshold *t, double value);

/*
 * sn_rate_grade_raised - the grade of a counter raised by @by (its row's
 * raised_by, config/sn_counters.h): sn_rate_grade(), except that a
 * counter any user's traffic can raise (SN_RAISED_USER) never drains
 * alone (issue 17 item 4): at or over its crit it is "CRIT" only when
 * @physical_moved (a hardware-raised counter of the same device rose
 * during the job: symbol_error, link_downed, port_rcv_errors, ...), else
 * "WARN".  No setting changes this.  Static strings.
 */
const char *sn_rate_grade_raised(const struct sn_threshold *t, double value,
				 enum sn_counter_raiser by,
				 bool physical_moved);

/*
 * sn_rate_format - "+500 in 12 s = 500/h", "+5000 in 2.0 h = 2500/h",
 * "+30 in 3.40 TB = 8.82/TB", or "+2" for a count, into buf (size bytes).
 */
void sn_rate_format(const struct sn_rate *r, uint64_t count, int64_t seconds,
		    char *buf, size_t size);

/*
 * NVLink 5's effective bit error rate (field
 * NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER) as nvml.h and DCGM decode it:
 * the mantissa is (raw >> NVML_NVLINK_BER_MANTISSA_SHIFT 8) &
 * NVML_NVLINK_BER_MANTISSA_WIDTH 0xf, the exponent raw &
 * NVML_NVLINK_BER_EXP_WIDTH 0xff, the rate mantissa x 10^-exponent (DCGM's
 * MonitorNVLink5Fields tests: {1, 12} and {10, 13} are 1e-12 and pass,
 * {2, 12} and {11, 13} fail).  A raw value above 0xfff has bits outside
 * both fields: not a BER.  SN_BER_CRIT: DCGM fails a link above it.
 */
#define SN_BER_CRIT 1e-12
#define SN_BER_MANTISSA_SHIFT 8
#define SN_BER_MANTISSA_MASK 0xfu
#define SN_BER_EXP_MASK 0xffu
#define SN_BER_RAW_MAX 0xfffu

/*
 * sn_rate_ber - the BER raw stands for into *ber.  Returns 0, or -EINVAL
 * (and *ber 0) when raw is above SN_BER_RAW_MAX.
 */
int sn_rate_ber(uint64_t raw, double *ber);

#endif
