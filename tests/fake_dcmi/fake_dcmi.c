/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake Ascend libdcmi.so for the unit and integration tests: the DCMI
 * functions lib/inventory/dcmi.c (super pod identity) and
 * lib/inventory/vendor_ascend.c (the vendor backend) resolve, answering
 * from a JSON fixture.  Loaded through the same dlopen() path as the real
 * library (paths.dcmi).
 *
 * Types are transcribed here on their own from MindCluster's copy of the
 * DCMI header (Ascend/mind-cluster 22bb3d9,
 * component/ascend-common/devmanager/dcmi/dcmi_interface_api.h), not
 * taken from lib/: struct dcmi_pcie_info_all l.54-65, struct dcmi_ecc_info
 * l.72-83, enum dcmi_unit_type l.123-129, struct dcmi_spod_info l.391-402,
 * struct dcmi_hccs_statistic_info(_u64) l.477-493, the prototypes
 * l.588-712.
 *
 * Fixture (env SN_FAKE_DCMI_FIXTURE, else ascend.json, else dcmi.json
 * beside this library file, found with dladdr):
 *   {"init_rc": 0, "card_list_rc": 0, "version": "24.1.0.3",
 *    "knobs": {"hang": "<function>[:<device>]", "lost": <device>,
 *              "init_fail": <code>, "init_ms": <ms>},
 *    "cards": [{"card_id": 0, "rc": 0, "sdid": 0, "super_pod_size": 384,
 *               "super_pod_id": 7, "server_index": 0, "chassis_id": 0,
 *               "super_pod_type": 0,
 *               "chips": [{"type": 0, "logic_id": 0,
 *                          "bdf": "0000:c1:00.0", "health": 0,
 *                          "errors": ["80E18402"],
 *                          "ecc": {"enable": 1, "single": 0, "double": 0,
 *                                  "total_single": 0, "total_double": 0},
 *                          "net": 0,
 *                          "hccs": {"u64": true, "tx": [..], "rx": [..],
 *                                   "crc": [..], "retry": [..]},
 *                          "rc": {"<function>": <code>}}]}]}
 * "rc" of a card (default 0) is what dcmi_get_device_info(12, 1) (super
 * pod info) answers for that card.  A card without "chips" has one chip
 * with every default: type 0 (NPU), health 0, no error codes, ECC enabled
 * and 0, network health 0, HCCS counters 0, no PCI address (answers
 * -8255).  A chip's "rc" makes the named function answer that code.
 * "hccs": "u64": false answers sub command 5 with -8255 (an older driver:
 * only sub command 3).
 *
 * Devices are numbered for the knobs in fixture order over all cards'
 * chips (card 0 chip 0 = 0, ...).  Knobs, from the fixture's "knobs" and
 * the environment (which wins), read at each call:
 *   SN_FAKE_DCMI_HANG=<function>[:<device>]  that call sleeps for ever
 *                            (on that device only when one is given; the
 *                            field's case: dcmi_get_device_network_health
 *                            blocks after a card drops)
 *   SN_FAKE_DCMI_LOST=<device>   every call on that device answers -8012
 *                            (device not ready: what MindCluster reads
 *                            after a card drop, common/constants.go
 *                            l.92-95, DeviceNotReadyErrCode)
 *   SN_FAKE_DCMI_INIT_FAIL=<code>  dcmi_init answers it
 *   SN_FAKE_DCMI_INIT_MS=<ms>      dcmi_init sleeps that long first
 *
 * Build variants (CMakeLists.txt): FAKE_DCMI_OLD exports the old
 * dcmi_get_card_num_list instead of dcmi_get_card_list (same arguments;
 * MindCluster dlsyms both, dcmi.go l.421, 469); FAKE_DCMI_NO_HEALTH
 * leaves dcmi_get_device_health out (a library too old for the backend).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
#define FAKE_HIDDEN __attribute__((visibility("hidden"), unused))
#ifdef FAKE_DCMI_OLD
#define FAKE_NEW_LIST FAKE_HIDDEN
#define FAKE_OLD_LIST FAKE_EXPORT
#else
#define FAKE_NEW_LIST FAKE_EXPORT
#define FAKE_OLD_LIST FAKE_HIDDEN
#endif
#ifdef FAKE_DCMI_NO_HEALTH
#define FAKE_HEALTH FAKE_HIDDEN
#else
#define FAKE_HEALTH FAKE_EXPORT
#endif

/* DCMI: enum dcmi_main_cmd, sub commands (dcmi/constants.go l.45-69) */
#define DCMI_MAIN_CMD_CHIP_INF 12
#define DCMI_CHIP_INF_SUB_CMD_SPOD_INFO 1
#define DCMI_MAIN_CMD_HCCS 16
#define HCCS_SUB_CMD_STATISTIC 3
#define HCCS_SUB_CMD_STATISTIC_U64 5
#define HCCS_MAX_PCS_NUM 16
#define HCCS_RES_PCS_NUM 64
/* DCMI error codes (dcmi/common.go l.29-55) */
#define FAKE_ERR_INVALID (-8001)
#define FAKE_ERR_NOT_INIT (-8004)
#define FAKE_ERR_NOT_READY (-8012)
#define FAKE_ERR_NOT_SUPPORTED (-8255)

struct dcmi_spod_info {
	unsigned int sdid;
	unsigned int super_pod_size;
	unsigned int super_pod_id;
	unsigned int server_index;
	unsigned int chassis_id;
	unsigned int super_pod_type;
	unsigned int reserve[6];
};

struct dcmi_pcie_info_all {
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int deviceid;
	unsigned int subdeviceid;
	int domain;
	unsigned int bdf_busid;
	unsigned int bdf_deviceid;
	unsigned int bdf_funcid;
	unsigned char reserve[32];
};

struct dcmi_ecc_info {
	int enable_flag;
	unsigned int single_bit_error_cnt;
	unsigned int double_bit_error_cnt;
	unsigned int total_single_bit_error_cnt;
	unsigned int total_double_bit_error_cnt;
	unsigned int single_bit_isolated_pages_cnt;
	unsigned int double_bit_isolated_pages_cnt;
	unsigned int single_bit_next_isolated_pages_cnt;
	unsigned int double_bit_next_isolated_pages_cnt;
};

struct dcmi_hccs_statistic_info {
	unsigned int tx_cnt[HCCS_MAX_PCS_NUM];
	unsigned int rx_cnt[HCCS_MAX_PCS_NUM];
	unsigned int crc_err_cnt[HCCS_MAX_PCS_NUM];
	unsigned int retry_cnt[HCCS_MAX_PCS_NUM];
	unsigned int reserved_field_cnt[HCCS_RES_PCS_NUM];
};

struct dcmi_hccs_statistic_info_u64 {
	unsigned long long tx_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long rx_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long crc_err_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long retry_cnt[HCCS_MAX_PCS_NUM];
	unsigned long long reserved[HCCS_RES_PCS_NUM];
};

static json_object *root;

/* DCMI has no shutdown call: the fixture goes when the library is closed. */
__attribute__((destructor)) static void fake_dcmi_unload(void)
{
	json_object_put(root);
	root = NULL;
}

static long long get_num(json_object *o, const char *key, long long def)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return def;
	return (long long)json_object_get_int64(v);
}

static int get_int(json_object *o, const char *key, int def)
{
	return (int)get_num(o, key, def);
}

/* A knob: the environment's SN_FAKE_DCMI_<NAME>, else "knobs".<key>. */
static const char *knob(const char *env, const char *key)
{
	const char *v = getenv(env);
	json_object *k, *o;

	if (v && *v)
		return v;
	if (root && json_object_object_get_ex(root, "knobs", &k) &&
	    json_object_object_get_ex(k, key, &o))
		return json_object_get_string(o);
	return NULL;
}

static int knob_int(const char *env, const char *key, int def)
{
	const char *v = knob(env, key);

	return v ? atoi(v) : def;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* Sleep for ever when the hang knob names fn (and this device, if any). */
static void maybe_hang(const char *fn, int dev)
{
	const char *h = knob("SN_FAKE_DCMI_HANG", "hang");
	size_t len = strlen(fn);

	if (!h || strncmp(h, fn, len) || (h[len] && h[len] != ':'))
		return;
	if (h[len] == ':' && atoi(h + len + 1) != dev)
		return;
	for (;;)
		pause();
}

static const char *fixture_path(char *buf, size_t size, const char *name)
{
	const char *env = getenv("SN_FAKE_DCMI_FIXTURE");
	const char *slash;
	Dl_info info;

	if (env && *env)
		return env;
	if (!dladdr((void *)fixture_path, &info) || !info.dli_fname ||
	    !(slash = strrchr(info.dli_fname, '/')))
		return NULL;
	if (snprintf(buf, size, "%.*s/%s", (int)(slash - info.dli_fname),
		     info.dli_fname, name) >= (int)size)
		return NULL;
	return buf;
}

static json_object *load_fixture(void)
{
	char buf[4096];
	const char *path = fixture_path(buf, sizeof(buf), "ascend.json");

	if (path && !getenv("SN_FAKE_DCMI_FIXTURE") && access(path, F_OK))
		path = fixture_path(buf, sizeof(buf), "dcmi.json");
	return path ? json_object_from_file(path) : NULL;
}

FAKE_EXPORT int dcmi_init(void)
{
	int ms;

	/* Read at each init: a test process loads the library once. */
	json_object_put(root);
	root = load_fixture();
	maybe_hang("dcmi_init", -1);
	ms = knob_int("SN_FAKE_DCMI_INIT_MS", "init_ms", 0);
	if (ms > 0)
		sleep_ms(ms > 60000 ? 60000 : ms);
	if (!root)
		return FAKE_ERR_NOT_INIT;
	if (knob("SN_FAKE_DCMI_INIT_FAIL", "init_fail"))
		return knob_int("SN_FAKE_DCMI_INIT_FAIL", "init_fail", 0);
	return get_int(root, "init_rc", 0);
}

static json_object *cards(void)
{
	json_object *c = NULL;

	if (root)
		json_object_object_get_ex(root, "cards", &c);
	return json_object_is_type(c, json_type_array) ? c : NULL;
}

static int card_list(const char *fn, int *card_num, int *card_list,
		     int list_len)
{
	json_object *c = cards();
	int n;

	maybe_hang(fn, -1);
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

FAKE_NEW_LIST int dcmi_get_card_list(int *card_num, int *card_list_out,
				     int list_len)
{
	return card_list("dcmi_get_card_list", card_num, card_list_out,
			 list_len);
}

FAKE_OLD_LIST int dcmi_get_card_num_list(int *card_num, int *card_list_out,
					 int list_len)
{
	return card_list("dcmi_get_card_num_list", card_num, card_list_out,
			 list_len);
}

/* The card with card_id, and the number of chips before it. */
static json_object *card_by_id(int card_id, int *first)
{
	json_object *c = cards();
	int before = 0;

	for (size_t i = 0; c && i < json_object_array_length(c); i++) {
		json_object *o = json_object_array_get_idx(c, i);
		json_object *chips;

		if (get_int(o, "card_id", (int)i) == card_id) {
			if (first)
				*first = before;
			return o;
		}
		if (json_object_object_get_ex(o, "chips", &chips))
			before += (int)json_object_array_length(chips);
		else
			before++;
	}
	return NULL;
}

static int chips_in(json_object *card)
{
	json_object *chips;

	if (json_object_object_get_ex(card, "chips", &chips))
		return (int)json_object_array_length(chips);
	return 1;
}

FAKE_EXPORT int dcmi_get_device_num_in_card(int card_id, int *device_num)
{
	json_object *card = card_by_id(card_id, NULL);

	maybe_hang("dcmi_get_device_num_in_card", -1);
	if (!root)
		return FAKE_ERR_NOT_INIT;
	if (!card || !device_num)
		return FAKE_ERR_INVALID;
	*device_num = chips_in(card);
	return 0;
}

/*
 * The chip (card, device) for fn: *rc is 0, or what the call answers
 * (not initialised, invalid, the lost knob, the chip's "rc"); the call
 * hangs here when the hang knob says so.  An empty object stands for a
 * card without "chips".
 */
static json_object *chip_for(const char *fn, int card_id, int device_id,
			     int *rc)
{
	static json_object *empty;
	json_object *card, *chips, *chip, *rcs;
	int first = 0, lost;

	card = card_by_id(card_id, &first);
	maybe_hang(fn, card ? first + device_id : -1);
	*rc = !root ? FAKE_ERR_NOT_INIT : FAKE_ERR_INVALID;
	if (!root || !card || device_id < 0 || device_id >= chips_in(card))
		return NULL;
	lost = knob_int("SN_FAKE_DCMI_LOST", "lost", -1);
	*rc = FAKE_ERR_NOT_READY;
	if (lost == first + device_id)
		return NULL;
	*rc = 0;
	if (!json_object_object_get_ex(card, "chips", &chips)) {
		if (!empty)
			empty = json_object_new_object();
		return empty;
	}
	chip = json_object_array_get_idx(chips, (size_t)device_id);
	if (json_object_object_get_ex(chip, "rc", &rcs))
		*rc = get_int(rcs, fn, 0);
	return chip;
}

FAKE_EXPORT int dcmi_get_device_type(int card_id, int device_id,
				     int *device_type)
{
	int rc;
	json_object *chip =
		chip_for("dcmi_get_device_type", card_id, device_id, &rc);

	if (rc)
		return rc;
	if (!device_type)
		return FAKE_ERR_INVALID;
	*device_type = get_int(chip, "type", 0);
	return 0;
}

FAKE_EXPORT int dcmi_get_device_logic_id(int *logic_id, int card_id,
					 int device_id)
{
	int rc, first = 0;
	json_object *chip =
		chip_for("dcmi_get_device_logic_id", card_id, device_id, &rc);

	if (rc)
		return rc;
	if (!logic_id)
		return FAKE_ERR_INVALID;
	card_by_id(card_id, &first);
	*logic_id = get_int(chip, "logic_id", first + device_id);
	return 0;
}

FAKE_EXPORT int dcmi_get_device_pcie_info_v2(int card_id, int device_id,
					     struct dcmi_pcie_info_all *info)
{
	int rc;
	json_object *chip = chip_for("dcmi_get_device_pcie_info_v2", card_id,
				     device_id, &rc);
	json_object *bdf;
	unsigned int d, b, s, f;

	if (rc)
		return rc;
	if (!info)
		return FAKE_ERR_INVALID;
	if (!json_object_object_get_ex(chip, "bdf", &bdf) ||
	    sscanf(json_object_get_string(bdf), "%x:%x:%x.%x", &d, &b, &s,
		   &f) != 4)
		return FAKE_ERR_NOT_SUPPORTED;
	memset(info, 0, sizeof(*info));
	info->venderid = 0x19e5;
	info->deviceid = 0xd802; /* Ascend 910B */
	info->domain = (int)d;
	info->bdf_busid = b;
	info->bdf_deviceid = s;
	info->bdf_funcid = f;
	return 0;
}

FAKE_HEALTH int dcmi_get_device_health(int card_id, int device_id,
				       unsigned int *health)
{
	int rc;
	json_object *chip =
		chip_for("dcmi_get_device_health", card_id, device_id, &rc);

	if (rc)
		return rc;
	if (!health)
		return FAKE_ERR_INVALID;
	*health = (unsigned int)get_num(chip, "health", 0);
	return 0;
}

FAKE_EXPORT int dcmi_get_device_errorcode_v2(int card_id, int device_id,
					     int *error_count,
					     unsigned int *error_code_list,
					     unsigned int list_len)
{
	int rc;
	json_object *chip = chip_for("dcmi_get_device_errorcode_v2", card_id,
				     device_id, &rc);
	json_object *errs;
	unsigned int n = 0;

	if (rc)
		return rc;
	if (!error_count || !error_code_list)
		return FAKE_ERR_INVALID;
	if (json_object_object_get_ex(chip, "errors", &errs))
		n = (unsigned int)json_object_array_length(errs);
	for (unsigned int i = 0; i < n && i < list_len; i++)
		error_code_list[i] = (unsigned int)strtoul(
			json_object_get_string(
				json_object_array_get_idx(errs, i)),
			NULL, 16);
	*error_count = (int)n;
	return 0;
}

FAKE_EXPORT int dcmi_get_device_ecc_info(int card_id, int device_id,
					 int input_type,
					 struct dcmi_ecc_info *ecc)
{
	int rc;
	json_object *chip =
		chip_for("dcmi_get_device_ecc_info", card_id, device_id, &rc);
	json_object *e = NULL;

	if (rc)
		return rc;
	if (!ecc || input_type != 2 /* DCMI_DEVICE_TYPE_HBM */)
		return FAKE_ERR_INVALID;
	json_object_object_get_ex(chip, "ecc", &e);
	memset(ecc, 0, sizeof(*ecc));
	ecc->enable_flag = get_int(e, "enable", 1);
	ecc->single_bit_error_cnt = (unsigned int)get_num(e, "single", 0);
	ecc->double_bit_error_cnt = (unsigned int)get_num(e, "double", 0);
	ecc->total_single_bit_error_cnt =
		(unsigned int)get_num(e, "total_single", 0);
	ecc->total_double_bit_error_cnt =
		(unsigned int)get_num(e, "total_double", 0);
	return 0;
}

FAKE_EXPORT int dcmi_get_device_network_health(int card_id, int device_id,
					       int *result)
{
	int rc;
	json_object *chip = chip_for("dcmi_get_device_network_health", card_id,
				     device_id, &rc);

	if (rc)
		return rc;
	if (!result)
		return FAKE_ERR_INVALID;
	*result = get_int(chip, "net", 0);
	return 0;
}

static unsigned long long hccs_at(json_object *h, const char *key, int i)
{
	json_object *a;

	if (!json_object_object_get_ex(h, key, &a) ||
	    i >= (int)json_object_array_length(a))
		return 0;
	return (unsigned long long)json_object_get_int64(
		json_object_array_get_idx(a, (size_t)i));
}

static int hccs_info(json_object *chip, unsigned int sub_cmd, void *buf,
		     unsigned int *size)
{
	struct dcmi_hccs_statistic_info s;
	struct dcmi_hccs_statistic_info_u64 u;
	json_object *h = NULL;

	json_object_object_get_ex(chip, "hccs", &h);
	if (sub_cmd == HCCS_SUB_CMD_STATISTIC_U64) {
		if (h && !get_int(h, "u64", 1))
			return FAKE_ERR_NOT_SUPPORTED;
		if (*size < sizeof(u))
			return FAKE_ERR_INVALID;
		memset(&u, 0, sizeof(u));
		for (int i = 0; i < HCCS_MAX_PCS_NUM; i++) {
			u.tx_cnt[i] = hccs_at(h, "tx", i);
			u.rx_cnt[i] = hccs_at(h, "rx", i);
			u.crc_err_cnt[i] = hccs_at(h, "crc", i);
			u.retry_cnt[i] = hccs_at(h, "retry", i);
		}
		memcpy(buf, &u, sizeof(u));
		*size = sizeof(u);
		return 0;
	}
	if (sub_cmd != HCCS_SUB_CMD_STATISTIC || *size < sizeof(s))
		return FAKE_ERR_INVALID;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < HCCS_MAX_PCS_NUM; i++) {
		s.tx_cnt[i] = (unsigned int)hccs_at(h, "tx", i);
		s.rx_cnt[i] = (unsigned int)hccs_at(h, "rx", i);
		s.crc_err_cnt[i] = (unsigned int)hccs_at(h, "crc", i);
		s.retry_cnt[i] = (unsigned int)hccs_at(h, "retry", i);
	}
	memcpy(buf, &s, sizeof(s));
	*size = sizeof(s);
	return 0;
}

static int spod_info(json_object *card, void *buf, unsigned int *size)
{
	struct dcmi_spod_info info;

	if (*size < sizeof(info))
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

FAKE_EXPORT int dcmi_get_device_info(int card_id, int device_id, int main_cmd,
				     unsigned int sub_cmd, void *buf,
				     unsigned int *size)
{
	json_object *card = card_by_id(card_id, NULL);
	json_object *chip;
	int rc;

	if (!root)
		return FAKE_ERR_NOT_INIT;
	if (!card || !buf || !size)
		return FAKE_ERR_INVALID;
	/* Super pod info: devices 0 and 1 of any card, as before. */
	if (main_cmd == DCMI_MAIN_CMD_CHIP_INF &&
	    sub_cmd == DCMI_CHIP_INF_SUB_CMD_SPOD_INFO && device_id >= 0 &&
	    device_id <= 1)
		return spod_info(card, buf, size);
	if (main_cmd != DCMI_MAIN_CMD_HCCS)
		return FAKE_ERR_INVALID;
	chip = chip_for("dcmi_get_device_info", card_id, device_id, &rc);
	if (rc)
		return rc;
	return hccs_info(chip, sub_cmd, buf, size);
}

FAKE_EXPORT int dcmi_get_dcmi_version(char *dcmi_ver, int buf_size)
{
	json_object *v;

	maybe_hang("dcmi_get_dcmi_version", -1);
	if (!root)
		return FAKE_ERR_NOT_INIT;
	if (!dcmi_ver || buf_size <= 0)
		return FAKE_ERR_INVALID;
	if (!json_object_object_get_ex(root, "version", &v))
		return FAKE_ERR_NOT_SUPPORTED;
	snprintf(dcmi_ver, (size_t)buf_size, "%s", json_object_get_string(v));
	return 0;
}
