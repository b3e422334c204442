/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "checks/sn_report.h"

/* Indexes of r->items, worst grade first, stable. */
static size_t *order(const struct sn_results *r)
{
	size_t *idx = calloc(r->count ? r->count : 1, sizeof(*idx));
	size_t k = 0;

	if (!idx)
		return NULL;
	for (int s = SN_GRADE_SEVERITY_MAX; s >= 0; s--)
		for (size_t i = 0; i < r->count; i++)
			if (sn_grade_severity(r->items[i].grade) == s)
				idx[k++] = i;
	return idx;
}

void sn_report_table(FILE *f, const struct sn_results *r)
{
	size_t *idx = order(r);
	int wc = 5, wk = 4, wd = 6, we = 8;

	if (!idx)
		return;
	for (size_t i = 0; i < r->count; i++) {
		const struct sn_result *x = &r->items[i];

		wc = (int)strlen(x->check) > wc ? (int)strlen(x->check) : wc;
		wk = (int)strlen(x->code) > wk ? (int)strlen(x->code) : wk;
		wd = (int)strlen(x->device) > wd ? (int)strlen(x->device) : wd;
		we = (int)strlen(x->expected) > we ? (int)strlen(x->expected) :
						     we;
	}
	fprintf(f, "%-7s  %-*s  %-*s  %-*s  %-*s  %s\n", "GRADE", wc, "CHECK",
		wk, "CODE", wd, "DEVICE", we, "EXPECTED", "FOUND");
	for (size_t k = 0; k < r->count; k++) {
		const struct sn_result *x = &r->items[idx[k]];

		fprintf(f, "%-7s  %-*s  %-*s  %-*s  %-*s  %s\n",
			sn_grade_name(x->grade), wc, x->check, wk, x->code, wd,
			x->device, we, x->expected, x->found);
	}
	free(idx);
}

char *sn_report_json(const struct sn_results *r, const char *node)
{
	json_object *doc = json_object_new_object();
	json_object *list = json_object_new_array();
	size_t *idx = order(r);
	char *out;

	if (!idx) {
		json_object_put(doc);
		json_object_put(list);
		return NULL;
	}
	json_object_object_add(doc, "node",
			       json_object_new_string(node ? node : ""));
	json_object_object_add(
		doc, "worst",
		json_object_new_string(sn_grade_name(sn_results_worst(r))));
	for (size_t k = 0; k < r->count; k++) {
		const struct sn_result *x = &r->items[idx[k]];
		json_object *o = json_object_new_object();

		json_object_object_add(
			o, "grade",
			json_object_new_string(sn_grade_name(x->grade)));
		json_object_object_add(o, "check",
				       json_object_new_string(x->check));
		json_object_object_add(o, "code",
				       json_object_new_string(x->code));
		json_object_object_add(o, "device",
				       json_object_new_string(x->device));
		json_object_object_add(o, "expected",
				       json_object_new_string(x->expected));
		json_object_object_add(o, "found",
				       json_object_new_string(x->found));
		json_object_array_add(list, o);
	}
	json_object_object_add(doc, "results", list);
	out = strdup(json_object_to_json_string_ext(
		doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
	free(idx);
	return out;
}
