/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake Ascend libdcmi.so for the unit tests: the three DCMI functions
 * lib/inventory/dcmi.c resolves, answering from a JSON fixture.  Loaded
 * through the same dlopen() path as the real library (paths.dcmi).
 *
 * Types are transcribed here on their own from the DCMI API reference
 * (dcmi_get_device_info, struct dcmi_spod_info; see lib/inventory/sn_dcmi.h
 * for the source), not taken from lib/.
 *
 * Fixture (env SN_FAKE_DCMI_FIXTURE, else dcmi.json beside this file):
 *   {"init_rc": 0, "card_list_rc": 0,
 *    "cards": [{"card_id": 0, "rc": 0, "sdid": 0, "super_pod_size": 384,
 *               "super_pod_id": 7, "server_index": 0, "chassis_id": 0,
 *               "super_pod_type": 0}]}
 * "rc" (default 0) is what dcmi_get_device_info answers for that card.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

/* DCMI: enum dcmi_main_cmd, DCMI_CHIP_INFO_SUB_CMD */
#define DCMI_MAIN_CMD_CHIP_INF 12
#define DCMI_CHIP_INF_SUB_CMD_SPOD_INFO 1
#define FAKE_ERR_INVALID (-8001) /* DCMI_ERR_CODE_INVALID_PARAMETER */
#define FAKE_ERR_NOT_INIT (-8004)

struct dcmi_spod_info {
	unsigned int sdid;
	unsigned int super_pod_size;
	unsigned int super_pod_id;
	unsigned int server_index;
	unsigned int chassis_id;
	unsigned int super_pod_type;
	unsigned int reserve[6];
};

static json_object *root;

/* DCMI has no shutdown call: the fixture goes when the library is closed. */
__attribute__((destructor)) static void fake_dcmi_unload(void)
{
	json_object_put(root);
	root = NULL;
}

static int get_int(json_object *o, const char *key, int def)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return def;
	return (int)json_object_get_int64(v);
}

static const char *fixture_path(char *buf, size_t size)
{
	const char *env = getenv("SN_FAKE_DCMI_FIXTURE");
	const char *slash;
	Dl_info info;

	if (env && *env)
		return env;
	if (!dladdr((void *)fixture_path, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/')))
		return NULL;
	if (snprintf(buf, size, "%.*s/dcmi.json", (int)(slash - info.dli_fname),
		     info.dli_fname) >= (int)size)
		return NULL;
	return buf;
}

FAKE_EXPORT int dcmi_init(void)
{
	char buf[4096];
	const char *path = fixture_path(buf, sizeof(buf));

	if (!root)
		root = path ? json_object_from_file(path) : NULL;
	if (!root)
		return FAKE_ERR_NOT_INIT;
	return get_int(root, "init_rc", 0);
}

static json_object *cards(void)
{
	json_object *c = NULL;

	if (root)
		json_object_object_get_ex(root, "cards", &c);
	return json_object_is_type(c, json_type_array) ? c : NULL;
}

FAKE_EXPORT int dcmi_get_card_list(int *card_num, int *card_list, int list_len)
{
	json_object *c = cards();
	int n;

	if (!c)
		return FAKE_ERR_NOT_INIT;
	if (!card_num || !card_list || list_len < 0)
		return FAKE_ERR_INVALID;
	if (get_int(root, "card_list_rc", 0))
		return get_int(root, "card_list_rc", 0);
	n = (int)json_object_array_length(c);
	*card_num = n;
	for (int i = 0; i < n && i < list_len; i++)
		card_list[i] = get_int(json_object_array_get_idx(c, (size_t)i),
				       "card_id", i);
	return 0;
}

static json_object *card_by_id(int card_id)
{
	json_object *c = cards();

	for (size_t i = 0; c && i < json_object_array_length(c); i++) {
		json_object *o = json_object_array_get_idx(c, i);

		if (get_int(o, "card_id", (int)i) == card_id)
			return o;
	}
	return NULL;
}

FAKE_EXPORT int dcmi_get_device_info(int card_id, int device_id, int main_cmd,
				     unsigned int sub_cmd, void *buf,
				     unsigned int *size)
{
	struct dcmi_spod_info info;
	json_object *card = card_by_id(card_id);

	if (!root)
		return FAKE_ERR_NOT_INIT;
	if (!card || device_id < 0 || device_id > 1 ||
	    main_cmd != DCMI_MAIN_CMD_CHIP_INF ||
	    sub_cmd != DCMI_CHIP_INF_SUB_CMD_SPOD_INFO || !buf || !size ||
	    *size < sizeof(info))
		return FAKE_ERR_INVALID;
	if (get_int(card, "rc", 0))
		return get_int(card, "rc", 0);
	memset(&info, 0, sizeof(info));
	info.sdid = (unsigned int)get_int(card, "sdid", 0);
	info.super_pod_size = (unsigned int)get_int(card, "super_pod_size", 0);
	info.super_pod_id = (unsigned int)get_int(card, "super_pod_id", 0);
	info.server_index = (unsigned int)get_int(card, "server_index", 0);
	info.chassis_id = (unsigned int)get_int(card, "chassis_id", 0);
	info.super_pod_type = (unsigned int)get_int(card, "super_pod_type", 0);
	memcpy(buf, &info, sizeof(info));
	*size = sizeof(info);
	return 0;
}
