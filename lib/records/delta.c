/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counter deltas over a job (see sn_delta.h for the rules and sources). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "records/sn_delta.h"

struct sn_delta sn_delta_unknown(const char *why)
{
	struct sn_delta d = { .known = false };

	snprintf(d.why_unknown, sizeof(d.why_unknown), "%s",
		 why ? why : "unknown");
	return d;
}

struct sn_sample sn_sample_get(const json_object *map, const char *key)
{
	struct sn_sample s = { SN_SAMPLE_MISSING, 0 };
	json_object *v = NULL;
	int64_t i;

	if (!map || !json_object_is_type(map, json_type_object) ||
	    !json_object_object_get_ex(map, key, &v))
		return s;
	if (!v) {
		s.state = SN_SAMPLE_UNREADABLE;
		return s;
	}
	s.state = SN_SAMPLE_NOT_NUMBER;
	if (!json_object_is_type(v, json_type_int))
		return s;
	/* json-c keeps values above INT64_MAX as uint64 */
	i = json_object_get_int64(v);
	if (i < 0)
		return s;
	s.value = i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
	s.state = SN_SAMPLE_OK;
	return s;
}

static const char *sample_why(enum sn_sample_state st, bool at_start)
{
	switch (st) {
	case SN_SAMPLE_MISSING:
		return at_start ? "missing at start" : "missing at end";
	case SN_SAMPLE_UNREADABLE:
		return at_start ? "unreadable at start" : "unreadable at end";
	case SN_SAMPLE_NOT_NUMBER:
		return at_start ? "not a number at start" :
				  "not a number at end";
	case SN_SAMPLE_OK:
		break;
	}
	return NULL;
}

static uint64_t max_of(unsigned bits)
{
	return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* The reason if v is at the counter's maximum, else NULL. */
static const char *saturated(const char *name, uint64_t v)
{
	unsigned bits = sn_counter_bits(name);

	if (sn_counter_maybe_32bit(name) && v == max_of(32))
		return "saturated at its 32-bit maximum";
	if (v != max_of(bits))
		return NULL;
	switch (bits) {
	case 4:
		return "saturated at its 4-bit maximum";
	case 8:
		return "saturated at its 8-bit maximum";
	case 16:
		return "saturated at its 16-bit maximum";
	case 32:
		return "saturated at its 32-bit maximum";
	}
	return "saturated at its 64-bit maximum";
}

static struct sn_delta unknown(const char *why)
{
	return sn_delta_unknown(why);
}

/*
 * A value the counter cannot hold: above its width (the kernel masks every
 * PMA field to its width, so no real read is wider), or all-ones of 64
 * bits.  Fills d and returns true then.
 */
static bool beyond_width(const char *name, uint64_t v, const char *side,
			 struct sn_delta *d)
{
	unsigned bits = sn_counter_bits(name);
	bool ones = v == UINT64_MAX || v == UINT32_MAX;

	if (bits < 64 && v > max_of(bits)) {
		*d = unknown(NULL);
		snprintf(
			d->why_unknown, sizeof(d->why_unknown),
			"value %llu at %s exceeds the counter's %u-bit width%s",
			(unsigned long long)v, side, bits,
			ones ? " (all-ones: a dead device read)" : "");
		return true;
	}
	if (v != UINT64_MAX)
		return false;
	*d = unknown(NULL);
	snprintf(d->why_unknown, sizeof(d->why_unknown),
		 "value %llu at %s is all-ones (a dead device read)",
		 (unsigned long long)v, side);
	return true;
}

struct sn_delta sn_delta_rule(const char *name, struct sn_sample start,
			      struct sn_sample end)
{
	struct sn_delta d = { .known = true };
	const char *why;

	if ((why = sample_why(start.state, true)) ||
	    (why = sample_why(end.state, false)))
		return unknown(why);
	if (beyond_width(name, start.value, "start", &d) ||
	    beyond_width(name, end.value, "end", &d))
		return d;
	if ((why = saturated(name, end.value)))
		return unknown(why);
	if (end.value < start.value)
		return unknown("counter reset during the job (end < start)");
	d.value = end.value - start.value;
	return d;
}

uint64_t sn_delta_ceiling(const char *name, int64_t seconds, double gbps)
{
	double s = (double)(seconds > 0 ? seconds : 0) + SN_DELTA_CLOCK_SLACK_S;
	double bits, max;

	if (!isfinite(gbps) || gbps <= 0)
		gbps = SN_PORT_MAX_GBPS;
	if (gbps > SN_ACCEL_MAX_GBPS)
		gbps = SN_ACCEL_MAX_GBPS;
	bits = s * gbps * SN_DELTA_RATE_MARGIN * 1e9;
	max = sn_counter_word_bytes(name) > 1 ?
		      bits / 8 / sn_counter_word_bytes(name) :
		      bits;
	/* 2^64 as a double; anything at or above it saturates */
	return max >= 18446744073709551616.0 ? UINT64_MAX : (uint64_t)max;
}

struct sn_delta sn_delta_plausible(const char *name, struct sn_delta d,
				   int64_t seconds, double gbps)
{
	bool words = sn_counter_word_bytes(name) > 1;
	struct sn_delta u;

	if (!d.known || d.value <= sn_delta_ceiling(name, seconds, gbps))
		return d;
	if (!isfinite(gbps) || gbps <= 0)
		gbps = SN_PORT_MAX_GBPS;
	if (gbps > SN_ACCEL_MAX_GBPS)
		gbps = SN_ACCEL_MAX_GBPS;
	u = unknown(NULL);
	snprintf(
		u.why_unknown, sizeof(u.why_unknown),
		words ? "delta %llu words in %lld s is more than a %g Gb/s line can carry (physically impossible)" :
			"delta %llu in %lld s is more than one event per bit at %g Gb/s (physically impossible)",
		(unsigned long long)d.value,
		(long long)(seconds > 0 ? seconds : 0), gbps);
	return u;
}

struct sn_delta sn_delta_counter(const char *name, const json_object *start_map,
				 const json_object *end_map)
{
	return sn_delta_rule(name, sn_sample_get(start_map, name),
			     sn_sample_get(end_map, name));
}

struct sn_delta sn_delta_bytes(const char *name, struct sn_delta d)
{
	unsigned k = sn_counter_word_bytes(name);

	if (!d.known)
		return d;
	if (d.value > UINT64_MAX / k)
		return unknown("overflow");
	d.value *= k;
	return d;
}

/* The row of an accelerator counter; NULL for any other name. */
static const struct sn_counter *accel_row(const char *name)
{
	const struct sn_counter *c = sn_counter_find(name);

	return c && c->source == SN_COUNTER_ACCEL ? c : NULL;
}

static json_object *member(const json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/* A link-level reason, prefixed "nvlink: a link ". */
static struct sn_delta nvlink_why(const struct sn_delta *link)
{
	struct sn_delta d = unknown(NULL);
	const char *why = link->why_unknown;

	if (!strncmp(why, "saturated", 9))
		why = "saturated";
	else if (!strncmp(why, "counter reset", 13))
		why = "counter reset during the job (end < start)";
	snprintf(d.why_unknown, sizeof(d.why_unknown), "nvlink: a link %.*s",
		 (int)sizeof(d.why_unknown) - 16, why);
	return d;
}

static bool absent(struct sn_sample s)
{
	return s.state == SN_SAMPLE_MISSING || s.state == SN_SAMPLE_UNREADABLE;
}

/* Add one side's links to the sum; *seen counts links looked at. */
static struct sn_delta nvlink_sum(const char *field, const json_object *ls,
				  const json_object *le, bool *exists)
{
	struct sn_delta sum = { .known = true };
	const json_object *sides[2] = { le, ls };

	*exists = false;
	/* Every link named at either end; end first, then start-only ones. */
	for (int side = 0; side < 2; side++) {
		if (!sides[side])
			continue;
		json_object_object_foreach((json_object *)sides[side], key, val)
		{
			struct sn_sample s, e;
			struct sn_delta d;

			(void)val;
			if (side == 1 && member(le, key))
				continue;
			s = sn_sample_get(member(ls, key), field);
			e = sn_sample_get(member(le, key), field);
			if (absent(s) && absent(e))
				continue;
			*exists = true;
			d = sn_delta_rule(field, s, e);
			if (!d.known)
				return nvlink_why(&d);
			if (sum.value > UINT64_MAX - d.value)
				return unknown("overflow");
			sum.value += d.value;
		}
	}
	return sum;
}

bool sn_delta_accel(const char *name, const json_object *start_dev,
		    const json_object *end_dev, struct sn_delta *out)
{
	const struct sn_counter *c = accel_row(name);
	struct sn_sample s, e;
	struct sn_delta d;
	bool exists;

	if (!c)
		return false;
	if (!c->per_link) {
		s = sn_sample_get(start_dev, c->key);
		e = sn_sample_get(end_dev, c->key);
		if (s.state == SN_SAMPLE_MISSING &&
		    e.state == SN_SAMPLE_MISSING)
			return false;
		*out = sn_delta_rule(name, s, e);
		return true;
	}
	d = nvlink_sum(c->key, member(start_dev, "nvlink"),
		       member(end_dev, "nvlink"), &exists);
	if (!exists)
		return false;
	*out = d;
	return true;
}

json_object *sn_json_get(const json_object *o, const char *key, json_type t)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, t))
		return NULL;
	return v;
}
