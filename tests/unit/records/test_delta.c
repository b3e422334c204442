/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counter rules of sn_delta.h with exact values: plain deltas, 4-byte
 * words, saturation at each IBTA width, 32-bit data counters, resets,
 * missing / unreadable / non-numeric sides, values beyond the width and
 * all-ones reads, physically impossible deltas, accelerator sums.
 */
#include <math.h>

#include "unit.h"

#include "records/sn_delta.h"

static json_object *parse(const char *text)
{
	json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

/* Delta of name between {name: start} and {name: end} given as JSON text. */
static struct sn_delta delta_of(const char *name, const char *start,
				const char *end)
{
	char s[256], e[256];
	json_object *sm, *em;
	struct sn_delta d;

	snprintf(s, sizeof(s), "{\"%s\": %s}", name, start);
	snprintf(e, sizeof(e), "{\"%s\": %s}", name, end);
	sm = parse(s);
	em = parse(e);
	d = sn_delta_counter(name, sm, em);
	json_object_put(sm);
	json_object_put(em);
	return d;
}

static void assert_known(struct sn_delta d, uint64_t v)
{
	if (!d.known)
		fail_msg("unknown: %s", d.why_unknown);
	assert_string_equal(d.why_unknown, "");
	if (d.value != v)
		fail_msg("delta %llu, expected %llu",
			 (unsigned long long)d.value, (unsigned long long)v);
}

static void assert_unknown(struct sn_delta d, const char *why)
{
	assert_false(d.known);
	assert_true(d.value == 0);
	assert_string_equal(d.why_unknown, why);
}

static void test_widths(void **state)
{
	(void)state;
	assert_int_equal(sn_counter_bits("symbol_error"), 16);
	assert_int_equal(sn_counter_bits("link_error_recovery"), 8);
	assert_int_equal(sn_counter_bits("link_downed"), 8);
	assert_int_equal(sn_counter_bits("port_rcv_errors"), 16);
	assert_int_equal(sn_counter_bits("port_rcv_remote_physical_errors"),
			 16);
	assert_int_equal(sn_counter_bits("port_rcv_switch_relay_errors"), 16);
	assert_int_equal(sn_counter_bits("port_xmit_discards"), 16);
	assert_int_equal(sn_counter_bits("port_xmit_constraint_errors"), 8);
	assert_int_equal(sn_counter_bits("port_rcv_constraint_errors"), 8);
	assert_int_equal(sn_counter_bits("local_link_integrity_errors"), 4);
	assert_int_equal(sn_counter_bits("excessive_buffer_overrun_errors"), 4);
	assert_int_equal(sn_counter_bits("VL15_dropped"), 16);
	assert_int_equal(sn_counter_bits("port_xmit_wait"), 32);
	assert_int_equal(sn_counter_bits("port_xmit_data"), 64);
	assert_int_equal(sn_counter_bits("out_of_sequence"), 64);
	assert_int_equal(sn_counter_bits("no_such_counter"), 64);
	assert_true(sn_counter_maybe_32bit("port_rcv_packets"));
	assert_true(sn_counter_maybe_32bit("unicast_xmit_packets"));
	assert_false(sn_counter_maybe_32bit("symbol_error"));
	assert_int_equal(sn_counter_word_bytes("port_xmit_data"), 4);
	assert_int_equal(sn_counter_word_bytes("port_rcv_data"), 4);
	assert_int_equal(sn_counter_word_bytes("port_xmit_packets"), 1);
	/* counters_ext/ (older kernels): 64 bits, the data ones in words */
	assert_int_equal(sn_counter_bits("port_xmit_data_64"), 64);
	assert_false(sn_counter_maybe_32bit("port_xmit_data_64"));
	assert_int_equal(sn_counter_word_bytes("port_xmit_data_64"), 4);
	assert_int_equal(sn_counter_word_bytes("port_rcv_data_64"), 4);
	assert_int_equal(sn_counter_word_bytes("port_xmit_packets_64"), 1);
	assert_string_equal(sn_counter_wide("port_xmit_data"),
			    "port_xmit_data_64");
	assert_string_equal(sn_counter_wide("port_rcv_data"),
			    "port_rcv_data_64");
	assert_string_equal(sn_counter_wide("port_xmit_packets"),
			    "port_xmit_packets_64");
	assert_string_equal(sn_counter_wide("port_rcv_packets"),
			    "port_rcv_packets_64");
	assert_null(sn_counter_wide("symbol_error"));
	assert_null(sn_counter_wide("port_xmit_data_64"));
}

static void test_normal(void **state)
{
	(void)state;
	assert_known(delta_of("symbol_error", "3", "15"), 12);
	assert_known(delta_of("symbol_error", "7", "7"), 0);
	assert_known(delta_of("port_xmit_wait", "2489603687", "2489603787"),
		     100);
	/* 16-bit counter one below its maximum: still a number */
	assert_known(delta_of("symbol_error", "0", "65534"), 65534);
	/* 64-bit values above INT64_MAX survive json-c */
	assert_known(delta_of("out_of_sequence", "9223372036854775807",
			      "9223372036854775907"),
		     100);
}

static void test_words_to_bytes(void **state)
{
	struct sn_delta d;

	(void)state;
	d = delta_of("port_xmit_data", "230442669431839", "230442669432839");
	assert_known(d, 1000);
	assert_known(sn_delta_bytes("port_xmit_data", d), 4000);
	assert_known(sn_delta_bytes("port_xmit_packets",
				    delta_of("port_xmit_packets", "1", "11")),
		     10);
	d.known = true;
	d.value = UINT64_MAX / 2;
	assert_unknown(sn_delta_bytes("port_rcv_data", d), "overflow");
	d = delta_of("port_rcv_data", "5", "4");
	assert_unknown(sn_delta_bytes("port_rcv_data", d),
		       "counter reset during the job (end < start)");
}

static void test_saturation(void **state)
{
	(void)state;
	assert_unknown(delta_of("symbol_error", "100", "65535"),
		       "saturated at its 16-bit maximum");
	assert_unknown(delta_of("link_downed", "0", "255"),
		       "saturated at its 8-bit maximum");
	assert_known(delta_of("link_downed", "0", "254"), 254);
	assert_unknown(delta_of("excessive_buffer_overrun_errors", "15", "15"),
		       "saturated at its 4-bit maximum");
	assert_unknown(delta_of("port_xmit_wait", "1", "4294967295"),
		       "saturated at its 32-bit maximum");
	/* data counters: 32-bit on PMAs without PortCountersExtended */
	assert_unknown(delta_of("port_rcv_data", "1000", "4294967295"),
		       "saturated at its 32-bit maximum");
	assert_unknown(delta_of("port_xmit_packets", "0", "4294967295"),
		       "saturated at its 32-bit maximum");
	assert_known(delta_of("port_rcv_data", "4294967295", "4294967296"), 1);
}

/*
 * Issue 9 item 4: symbol_error going from 0 to 2^64-1 was a delta of
 * 18446744073709551615 and drained the node.  A value the counter cannot
 * hold is a bad read: unknown, with the value and the width.
 */
static void test_beyond_width(void **state)
{
	(void)state;
	assert_unknown(
		delta_of("symbol_error", "0", "18446744073709551615"),
		"value 18446744073709551615 at end exceeds the counter's "
		"16-bit width (all-ones: a dead device read)");
	assert_unknown(
		delta_of("symbol_error", "65536", "65537"),
		"value 65536 at start exceeds the counter's 16-bit width");
	assert_unknown(delta_of("link_downed", "0", "4294967295"),
		       "value 4294967295 at end exceeds the counter's 8-bit "
		       "width (all-ones: a dead device read)");
	assert_unknown(delta_of("local_link_integrity_errors", "3", "16"),
		       "value 16 at end exceeds the counter's 4-bit width");
	assert_unknown(
		delta_of("port_xmit_wait", "0", "4294967296"),
		"value 4294967296 at end exceeds the counter's 32-bit width");
	/* 64-bit counters: all ones is a dead device, not a count */
	assert_unknown(delta_of("np_cnp_sent", "0", "18446744073709551615"),
		       "value 18446744073709551615 at end is all-ones (a dead "
		       "device read)");
	assert_unknown(
		delta_of("port_xmit_data_64", "18446744073709551615", "5"),
		"value 18446744073709551615 at start is all-ones (a dead "
		"device read)");
	/* the widest value of each width is still a value (saturated or not) */
	assert_known(delta_of("symbol_error", "0", "65534"), 65534);
	assert_known(delta_of("np_cnp_sent", "0", "18446744073709551614"),
		     18446744073709551614ULL);
}

/* The ceilings of sn_delta.h: (s + 2) x rate x 2, in words or in bits. */
static void test_ceiling(void **state)
{
	(void)state;
	/* 102 s x 400 Gb/s x 2 = 8.16e13 bits = 1.02e13 bytes = 2.55e12 words */
	assert_true(sn_delta_ceiling("port_xmit_data", 100, 400) ==
		    2550000000000ULL);
	assert_true(sn_delta_ceiling("port_rcv_data_64", 100, 400) ==
		    2550000000000ULL);
	assert_true(sn_delta_ceiling("symbol_error", 100, 400) ==
		    81600000000000ULL);
	assert_true(sn_delta_ceiling("port_xmit_packets", 100, 400) ==
		    81600000000000ULL);
	/* no rate read: SN_PORT_MAX_GBPS (1600); a negative duration counts as 0 */
	assert_true(sn_delta_ceiling("port_xmit_data", 0, 0) ==
		    200000000000ULL);
	assert_true(sn_delta_ceiling("port_xmit_data", -5, NAN) ==
		    200000000000ULL);
	assert_true(sn_delta_ceiling("port_xmit_data", 0, -1) ==
		    200000000000ULL);
	/* a rate above SN_ACCEL_MAX_GBPS counts as that */
	assert_true(sn_delta_ceiling("ecc_corrected", 0, 1e12) ==
		    400000000000000ULL);
	assert_true(sn_delta_ceiling("ecc_corrected", INT64_MAX, 1e5) ==
		    UINT64_MAX);
}

static struct sn_delta known(uint64_t v)
{
	struct sn_delta d = { .known = true, .value = v };

	return d;
}

static void test_plausible(void **state)
{
	(void)state;
	assert_known(sn_delta_plausible("port_xmit_data",
					known(2550000000000ULL), 100, 400),
		     2550000000000ULL);
	assert_unknown(
		sn_delta_plausible("port_xmit_data", known(2550000000001ULL),
				   100, 400),
		"delta 2550000000001 words in 100 s is more than a 400 Gb/s "
		"line can carry (physically impossible)");
	assert_unknown(
		sn_delta_plausible("out_of_sequence",
				   known(9223372036854775808ULL), 3600, 0),
		"delta 9223372036854775808 in 3600 s is more than one event "
		"per bit at 1600 Gb/s (physically impossible)");
	assert_known(sn_delta_plausible("symbol_error", known(65535), 0, 0),
		     65535);
	/* unknown stays unknown, with its own reason */
	assert_unknown(sn_delta_plausible("port_xmit_data",
					  sn_delta_unknown("missing at end"), 1,
					  1),
		       "missing at end");
}

static void test_reset(void **state)
{
	(void)state;
	assert_unknown(delta_of("symbol_error", "500", "3"),
		       "counter reset during the job (end < start)");
	assert_unknown(delta_of("rnr_nak_retry_err", "10", "0"),
		       "counter reset during the job (end < start)");
}

static void test_bad_sides(void **state)
{
	json_object *m = parse("{\"symbol_error\": 4}");

	(void)state;
	assert_unknown(sn_delta_counter("symbol_error", NULL, m),
		       "missing at start");
	assert_unknown(sn_delta_counter("symbol_error", m, NULL),
		       "missing at end");
	assert_unknown(sn_delta_counter("link_downed", m, m),
		       "missing at start");
	assert_unknown(delta_of("symbol_error", "null", "4"),
		       "unreadable at start");
	assert_unknown(delta_of("symbol_error", "4", "null"),
		       "unreadable at end");
	assert_unknown(delta_of("symbol_error", "\"4\"", "5"),
		       "not a number at start");
	assert_unknown(delta_of("symbol_error", "4", "\"N/A (no PMA)\""),
		       "not a number at end");
	assert_unknown(delta_of("symbol_error", "4", "5.5"),
		       "not a number at end");
	assert_unknown(delta_of("symbol_error", "-1", "5"),
		       "not a number at start");
	assert_unknown(delta_of("symbol_error", "4", "true"),
		       "not a number at end");
	/* start problems are reported before end problems */
	assert_unknown(delta_of("symbol_error", "null", "65535"),
		       "unreadable at start");
	json_object_put(m);
}

static void test_sample_get(void **state)
{
	json_object *m = parse("{\"a\": 1, \"b\": null, \"c\": [1]}");
	struct sn_sample s;

	(void)state;
	s = sn_sample_get(m, "a");
	assert_int_equal(s.state, SN_SAMPLE_OK);
	assert_true(s.value == 1);
	assert_int_equal(sn_sample_get(m, "b").state, SN_SAMPLE_UNREADABLE);
	assert_int_equal(sn_sample_get(m, "c").state, SN_SAMPLE_NOT_NUMBER);
	assert_int_equal(sn_sample_get(m, "d").state, SN_SAMPLE_MISSING);
	assert_int_equal(sn_sample_get(NULL, "a").state, SN_SAMPLE_MISSING);
	json_object_put(m);
}

#define GPU_START                                                                 \
	"{\"index\": 0, \"ecc_corrected_volatile\": 10, "                         \
	"\"ecc_uncorrected_volatile\": 0, \"pcie_replay_counter\": 5, "           \
	"\"nvlink\": {\"0\": {\"active\": true, \"replay\": 1, \"recovery\": 0, " \
	"\"crc_flit\": 2, \"crc_data\": 6}, "                                     \
	"\"1\": {\"active\": true, \"replay\": 3, \"recovery\": 0, "              \
	"\"crc_flit\": 0, \"crc_data\": 0}, "                                     \
	"\"2\": {\"active\": false, \"replay\": null, \"recovery\": null, "       \
	"\"crc_flit\": null, \"crc_data\": null}}}"

static bool accel(const char *name, const char *s, const char *e,
		  struct sn_delta *d)
{
	json_object *so = s ? parse(s) : NULL, *eo = e ? parse(e) : NULL;
	bool r = sn_delta_accel(name, so, eo, d);

	json_object_put(so);
	json_object_put(eo);
	return r;
}

static void test_accel(void **state)
{
	const char *end =
		"{\"index\": 0, \"ecc_corrected_volatile\": 17, "
		"\"ecc_uncorrected_volatile\": 1, \"pcie_replay_counter\": 4294967295, "
		"\"nvlink\": {\"0\": {\"active\": true, \"replay\": 11, \"recovery\": 1, "
		"\"crc_flit\": 2, \"crc_data\": 9}, "
		"\"1\": {\"active\": true, \"replay\": 8, \"recovery\": 0, "
		"\"crc_flit\": null, \"crc_data\": 0}, "
		"\"2\": {\"active\": false, \"replay\": null, \"recovery\": null, "
		"\"crc_flit\": null, \"crc_data\": null}}}";
	struct sn_delta d;

	(void)state;
	assert_true(accel("ecc_corrected", GPU_START, end, &d));
	assert_known(d, 7);
	assert_true(accel("ecc_uncorrected", GPU_START, end, &d));
	assert_known(d, 1);
	assert_true(accel("pcie_replay", GPU_START, end, &d));
	assert_unknown(d, "saturated at its 32-bit maximum");
	assert_true(accel("nvlink_replay", GPU_START, end, &d));
	assert_known(d, 10 + 5); /* link 0: 1 -> 11, link 1: 3 -> 8 */
	assert_true(accel("nvlink_recovery", GPU_START, end, &d));
	assert_known(d, 1);
	assert_true(accel("nvlink_crc_data", GPU_START, end, &d));
	assert_known(d, 3);
	assert_true(accel("nvlink_crc_flit", GPU_START, end, &d));
	assert_unknown(d, "nvlink: a link unreadable at end");
	/* volatile ECC resets with the driver */
	assert_true(accel("ecc_corrected", GPU_START,
			  "{\"ecc_corrected_volatile\": 0}", &d));
	assert_unknown(d, "counter reset during the job (end < start)");
	/* the GPU appeared during the job */
	assert_true(accel("ecc_corrected", NULL, GPU_START, &d));
	assert_unknown(d, "missing at start");
	assert_true(accel("nvlink_replay", NULL, GPU_START, &d));
	assert_unknown(d, "nvlink: a link missing at start");
	/* a link that reads all ones: the sum is unknown, not 2^64 - 1 */
	assert_true(accel(
		"nvlink_replay", GPU_START,
		"{\"nvlink\": {\"0\": {\"replay\": 18446744073709551615}, "
		"\"1\": {\"replay\": 3}}}",
		&d));
	assert_unknown(d, "nvlink: a link value 18446744073709551615 at end is "
			  "all-ones (a dead device read)");
	assert_true(accel(
		"ecc_uncorrected", GPU_START,
		"{\"ecc_uncorrected_volatile\": 18446744073709551615}", &d));
	assert_unknown(d,
		       "value 18446744073709551615 at end is all-ones (a dead "
		       "device read)");
	/* no NVLink, no such counters: not listed */
	assert_false(accel("nvlink_replay", "{\"nvlink\": {}}",
			   "{\"nvlink\": {}}", &d));
	assert_false(accel("ecc_corrected",
			   "{\"index\": 0, \"pci_id\": \"1e3e:0001\"}",
			   "{\"index\": 0, \"pci_id\": \"1e3e:0001\"}", &d));
	assert_false(accel("no_such", GPU_START, end, &d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_words_to_bytes),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_beyond_width),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_plausible),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_bad_sides),
		cmocka_unit_test(test_sample_get),
		cmocka_unit_test(test_accel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
