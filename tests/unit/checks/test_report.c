/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report (lib/report.c): the table of --check (worst first, stable
 * within a grade, aligned columns) and the JSON of --check --json, parsed
 * back with json-c.
 */
#include <json-c/json.h>

#include "unit.h"

#include "checks/sn_report.h"

/* Six results in an order that a stable sort must keep within grades. */
static void fill(struct sn_results *r)
{
	memset(r, 0, sizeof(*r));
	sn_results_add(r, SN_OK, "ib_port", "OK", "mlx5_0/1", "ACTIVE",
		       "state=ACTIVE");
	sn_results_add(r, SN_WARN, "nvlink", "NVLINK_UNEXPECTED", "gpu0",
		       "0 links", "18 active");
	sn_results_add(r, SN_CRIT, "ib_port", "IB_PORT_DOWN", "mlx5_1/1",
		       "ACTIVE", "state=DOWN");
	sn_results_add(r, SN_UNKNOWN, "nvml", "NVML_UNAVAILABLE", "node",
		       "NVML loads and initialises", "dlopen: x");
	sn_results_add(r, SN_OK, "gpu", "OK", "gpu0 0000:1b:00.0", "",
		       "NVIDIA \"H200\"/x");
	sn_results_add(r, SN_CRIT, "gpu_count", "GPU_COUNT", "node",
		       "8 gpus (manifest)", "nvml 7");
}

static char *table(const struct sn_results *r)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	sn_report_table(f, r);
	assert_int_equal(fclose(f), 0);
	return text;
}

static void test_table(void **state)
{
	struct sn_results r;
	char *text;

	(void)state;
	fill(&r);
	text = table(&r);
	assert_string_equal(
		text,
		"GRADE    CHECK      CODE               DEVICE             EXPECTED                    FOUND\n"
		"CRIT     ib_port    IB_PORT_DOWN       mlx5_1/1           ACTIVE                      state=DOWN\n"
		"CRIT     gpu_count  GPU_COUNT          node               8 gpus (manifest)           nvml 7\n"
		"UNKNOWN  nvml       NVML_UNAVAILABLE   node               NVML loads and initialises  dlopen: x\n"
		"WARN     nvlink     NVLINK_UNEXPECTED  gpu0               0 links                     18 active\n"
		"OK       ib_port    OK                 mlx5_0/1           ACTIVE                      state=ACTIVE\n"
		"OK       gpu        OK                 gpu0 0000:1b:00.0                              NVIDIA \"H200\"/x\n");
	free(text);
	/* The table does not reorder the results themselves. */
	assert_int_equal(r.items[0].grade, SN_OK);
	assert_string_equal(r.items[2].code, "IB_PORT_DOWN");
	sn_results_free(&r);
}

/* Short values: the header words set the minimum widths. */
static void test_table_narrow_and_empty(void **state)
{
	struct sn_results r = { 0 };
	char *text;

	(void)state;
	text = table(&r);
	assert_string_equal(text,
			    "GRADE    CHECK  CODE  DEVICE  EXPECTED  FOUND\n");
	free(text);
	sn_results_add(&r, SN_OK, "a", "OK", "d", "e", "f");
	text = table(&r);
	assert_string_equal(text,
			    "GRADE    CHECK  CODE  DEVICE  EXPECTED  FOUND\n"
			    "OK       a      OK    d       e         f\n");
	free(text);
	sn_results_free(&r);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		fail_msg("no string %s", key);
	return json_object_get_string(v);
}

static void test_json(void **state)
{
	/* In report order: the table's. */
	static const size_t order[] = { 2, 5, 3, 1, 0, 4 };
	struct sn_results r;
	json_object *doc, *list = NULL;
	char *text;

	(void)state;
	fill(&r);
	text = sn_report_json(&r, "gpu-a001");
	assert_non_null(text);
	doc = json_tokener_parse(text);
	assert_non_null(doc);
	assert_int_equal(json_object_object_length(doc), 3);
	assert_string_equal(str(doc, "node"), "gpu-a001");
	assert_string_equal(str(doc, "worst"), "CRIT");
	assert_true(json_object_object_get_ex(doc, "results", &list));
	assert_int_equal(json_object_array_length(list), 6);
	for (size_t k = 0; k < 6; k++) {
		json_object *o = json_object_array_get_idx(list, k);
		const struct sn_result *x = &r.items[order[k]];

		assert_int_equal(json_object_object_length(o), 6);
		assert_string_equal(str(o, "grade"), sn_grade_name(x->grade));
		assert_string_equal(str(o, "check"), x->check);
		assert_string_equal(str(o, "code"), x->code);
		assert_string_equal(str(o, "device"), x->device);
		assert_string_equal(str(o, "expected"), x->expected);
		assert_string_equal(str(o, "found"), x->found);
	}
	/* Quotes escaped, the slash not. */
	assert_contains(text, "\"found\":\"NVIDIA \\\"H200\\\"/x\"");
	json_object_put(doc);
	free(text);
	sn_results_free(&r);
}

static void test_json_worst(void **state)
{
	struct sn_results r = { 0 };
	json_object *doc, *list = NULL;
	char *text;

	(void)state;
	text = sn_report_json(&r, NULL);
	doc = json_tokener_parse(text);
	assert_non_null(doc);
	assert_string_equal(str(doc, "node"), "");
	assert_string_equal(str(doc, "worst"), "OK");
	assert_true(json_object_object_get_ex(doc, "results", &list));
	assert_true(json_object_is_type(list, json_type_array));
	assert_int_equal(json_object_array_length(list), 0);
	json_object_put(doc);
	free(text);

	sn_results_add(&r, SN_WARN, "c", "W", "d", "e", "f");
	sn_results_add(&r, SN_OK, "c", "OK", "d", "e", "f");
	text = sn_report_json(&r, "n1");
	doc = json_tokener_parse(text);
	assert_string_equal(str(doc, "worst"), "WARN");
	json_object_put(doc);
	free(text);

	/* UNKNOWN is worse than WARN, CRIT worse than UNKNOWN. */
	sn_results_add(&r, SN_UNKNOWN, "c", "U", "d", "e", "f");
	text = sn_report_json(&r, "n1");
	doc = json_tokener_parse(text);
	assert_string_equal(str(doc, "worst"), "UNKNOWN");
	json_object_put(doc);
	free(text);
	sn_results_add(&r, SN_CRIT, "c", "C", "d", "e", "f");
	text = sn_report_json(&r, "n1");
	doc = json_tokener_parse(text);
	assert_string_equal(str(doc, "worst"), "CRIT");
	json_object_put(doc);
	free(text);
	sn_results_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_narrow_and_empty),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
