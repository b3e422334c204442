/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ascend's DCMI loaded at run time: the super pod id (see sn_dcmi.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "config/sn_vendor.h"
#include "util/sn_safedir.h"
#include "inventory/sn_dcmi.h"

#define DCMI_MAIN_CMD_CHIP_INF 12
#define DCMI_CHIP_INF_SUB_CMD_SPOD_INFO 1u

/* struct dcmi_spod_info (dcmi_interface_api.h). */
struct dcmi_spod_info {
	unsigned int sdid;
	unsigned int super_pod_size;
	unsigned int super_pod_id;
	unsigned int server_index;
	unsigned int chassis_id;
	unsigned int super_pod_type;
	unsigned int reserve[6];
};

_Static_assert(sizeof(struct dcmi_spod_info) == 48,
	       "struct dcmi_spod_info is 48 bytes");

struct dcmi_lib {
	void *dl;
	int (*init)(void);
	int (*card_list)(int *, int *, int);
	int (*device_info)(int, int, int, unsigned int, void *, unsigned int *);
};

static int dcmi_resolve(struct dcmi_lib *l, const char *path,
			struct sn_error *err)
{
	void *p[3];
	static const char *const names[3] = { "dcmi_init", "dcmi_get_card_list",
					      "dcmi_get_device_info" };

	for (int i = 0; i < 3; i++) {
		p[i] = dlsym(l->dl, names[i]);
		if (!p[i]) {
			sn_error_set(err,
				     "no symbol %s: not a DCMI library: %s",
				     names[i], path);
			return -1;
		}
	}
	memcpy(&l->init, &p[0], sizeof(p[0]));
	memcpy(&l->card_list, &p[1], sizeof(p[1]));
	memcpy(&l->device_info, &p[2], sizeof(p[2]));
	return 0;
}

static int card_pod(struct dcmi_lib *l, int card, struct dcmi_spod_info *info,
		    struct sn_error *err)
{
	unsigned int size = sizeof(*info);
	int rc;

	memset(info, 0, sizeof(*info));
	rc = l->device_info(card, 0, DCMI_MAIN_CMD_CHIP_INF,
			    DCMI_CHIP_INF_SUB_CMD_SPOD_INFO, info, &size);
	if (rc) {
		sn_error_set(err, "dcmi_get_device_info card %d: error %d",
			     card, rc);
		return -1;
	}
	return 0;
}

/* Every card must be in the first card's super pod. */
static int read_cards(struct dcmi_lib *l, struct sn_dcmi_pod *out,
		      struct sn_error *err)
{
	int cards[SN_DCMI_MAX_CARDS], n = 0, rc;
	struct dcmi_spod_info info;

	rc = l->card_list(&n, cards, SN_DCMI_MAX_CARDS);
	if (rc) {
		sn_error_set(err, "dcmi_get_card_list: error %d", rc);
		return -1;
	}
	if (n <= 0 || n > SN_DCMI_MAX_CARDS) {
		sn_error_set(err, "dcmi_get_card_list: %d cards (1 to %d read)",
			     n, SN_DCMI_MAX_CARDS);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		if (card_pod(l, cards[i], &info, err))
			return -1;
		if (i && info.super_pod_id != out->super_pod_id) {
			sn_error_set(err,
				     "card %d in super pod %u, card %d in %u",
				     cards[i], info.super_pod_id, cards[0],
				     out->super_pod_id);
			return -1;
		}
		out->super_pod_id = info.super_pod_id;
		out->super_pod_size = info.super_pod_size;
		out->server_index = info.server_index;
	}
	out->cards = (unsigned int)n;
	return 0;
}

int sn_dcmi_super_pod(const char *path, struct sn_dcmi_pod *out,
		      struct sn_error *err)
{
	struct dcmi_lib l = { 0 };
	int rc, ret = -1;

	memset(out, 0, sizeof(*out));
	l.dl = sn_safedir_dlopen(path, RTLD_NOW | RTLD_LOCAL, err);
	if (!l.dl) {
		if (errno == ENOENT && err)
			sn_vendor_lib_missing(sn_vendor_of(SN_ACCEL_ASCEND),
					      path, err->msg, sizeof(err->msg));
		return -1;
	}
	if (dcmi_resolve(&l, path, err))
		goto out;
	rc = l.init();
	if (rc) {
		sn_error_set(err, "dcmi_init: error %d, library %s", rc, path);
		goto out;
	}
	ret = read_cards(&l, out, err);
out:
	dlclose(l.dl);
	return ret;
}
