/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_baseline: the prolog's baseline file as the epilog reads it
 * (sn_baseline_parse; sn_baseline_load on the same bytes as a file), then
 * what the epilog makes of it: the per-job record (sn_record_build: every
 * counter delta, accelerator deltas, verdicts) and its drain reason.
 * Input: the baseline; after a NUL byte, if any, the end snapshot (else
 * the baseline is also the end snapshot).
 * Properties: parse and load agree; the record's "worst" matches its
 * verdicts; the drain reason is one printable line of at most 200 bytes.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "records/sn_delta.h"
#include "records/sn_record.h"

static struct sn_config *fz_cfg;
static char fz_file[PATH_MAX];

static void setup(void)
{
	static const char yaml[] =
		"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
		"epilog:\n  thresholds:\n"
		"    symbol_error: {warn: 10/h, crit: 1000/h}\n"
		"    port_xmit_data: {warn: 1/TB}\n"
		"    ecc_uncorrected: {crit: 1}\n"
		"  xid: {drain: [13]}\n";
	struct sn_error err;

	fz_cfg = sn_config_load_buffer("fuzz.yaml", yaml, strlen(yaml), &err);
	if (!fz_cfg) {
		fprintf(stderr, "fuzz_baseline: %s\n", err.msg);
		abort();
	}
	fz_path(fz_file, sizeof(fz_file), "123.json");
}

/* "OK" < "WARN" < "UNKNOWN" < "CRIT"; -1 for anything else. */
static int grade(const json_object *o)
{
	const char *g = json_object_get_string((json_object *)o);

	if (!g)
		return -1;
	return !strcmp(g, "OK")	     ? 0 :
	       !strcmp(g, "WARN")    ? 1 :
	       !strcmp(g, "UNKNOWN") ? 2 :
	       !strcmp(g, "CRIT")    ? 3 :
				       -1;
}

static void check_worst(json_object *rec)
{
	json_object *v = sn_json_get(rec, "verdicts", json_type_array);
	int worst = 0;

	FZ_ASSERT(v);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		int g = grade(sn_json_get(json_object_array_get_idx(v, i),
					  "grade", json_type_string));

		FZ_ASSERT(g >= 0);
		if (g > worst)
			worst = g;
	}
	FZ_ASSERT(grade(sn_json_get(rec, "worst", json_type_string)) == worst);
}

static void record(const json_object *base, enum sn_baseline_status st,
		   const json_object *end)
{
	struct sn_record_input in = {
		.job_id = 123,
		.user = "alice",
		.node = "a1",
		.supernode = "sn01",
		.has_exit_code = true,
		.exit_code = 0,
		.end_time = 1764433600,
		.baseline_status = st,
		.baseline = base,
		.end = end,
	};
	char reason[256];
	json_object *rec = sn_record_build(fz_cfg, &in);
	size_t crit;

	FZ_ASSERT(rec);
	check_worst(rec);
	json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PLAIN);
	crit = sn_record_drain_reason(rec, "supernode:", reason,
				      sizeof(reason));
	FZ_ASSERT(strlen(reason) <= 200);
	for (const char *c = reason; *c; c++)
		FZ_ASSERT(*c >= 0x20 && *c < 0x7f);
	FZ_ASSERT(!crit == !reason[0]);
	json_object_put(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	const char *nul = memchr(data, 0, size);
	size_t blen = nul ? (size_t)(nul - text) : size;
	json_object *base = NULL, *end = NULL, *loaded = NULL;
	enum sn_baseline_status st, st_file;

	if (!fz_cfg)
		setup();
	st = sn_baseline_parse(text, blen, 0, &base);
	/* a newer format's document comes back too (its "schema" is read) */
	FZ_ASSERT((st != SN_BASELINE_CORRUPT) == (base != NULL));
	sn_baseline_parse(text, blen, 123, &loaded);
	json_object_put(loaded);
	fz_write(fz_file, text, blen);
	st_file = sn_baseline_load(fz_file, 0, &loaded);
	FZ_ASSERT(st_file == st);
	json_object_put(loaded);
	if (nul)
		sn_baseline_parse(nul + 1, size - blen - 1, 0, &end);
	record(base, st, nul ? end : base);
	if (st == SN_BASELINE_OK)
		record(NULL, SN_BASELINE_CORRUPT, base);
	json_object_put(base);
	json_object_put(end);
	return 0;
}
