/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A node's supernode identity from the hardware (see sn_identity.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "config/sn_vendor.h"
#include "inventory/sn_dcmi.h"
#include "inventory/sn_identity.h"
#include "util/sn_error.h"

static void set_why(struct sn_identity *out, enum sn_identity_kind kind,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_why(struct sn_identity *out, enum sn_identity_kind kind,
		    const char *fmt, ...)
{
	char text[SN_ERROR_MAX];
	va_list ap;

	out->kind = kind;
	out->key[0] = '\0';
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	sn_error_cut(out->why, sizeof(out->why), text);
}

static void fabric_key(const struct sn_nvml_fabric *f, char *buf, size_t size)
{
	char uuid[SN_NVML_FABRIC_UUID_STR];

	sn_nvml_fabric_uuid_format(f, uuid, sizeof(uuid));
	snprintf(buf, size, "nvlink:%s/%u", uuid, f->clique_id);
}

/* One GPU's answer: 0 usable (completed, success), else out is set. */
static int fabric_usable(const struct sn_nvml_fabric *f, unsigned int i,
			 struct sn_identity *out)
{
	if (f->rc == SN_NVML_ERROR_FUNCTION_NOT_FOUND) {
		set_why(out, SN_IDENTITY_CONFIG,
			"NVML lacks nvmlDeviceGetGpuFabricInfoV (driver too old)");
		return -1;
	}
	if (f->rc == SN_NVML_ERROR_NOT_SUPPORTED ||
	    (f->rc == SN_NVML_SUCCESS &&
	     f->state == SN_NVML_FABRIC_STATE_NOT_SUPPORTED)) {
		set_why(out, SN_IDENTITY_NONE,
			"gpu%u: no NVLink fabric (fabric info not supported)",
			i);
		return -1;
	}
	if (f->rc != SN_NVML_SUCCESS) {
		set_why(out, SN_IDENTITY_ERROR,
			"gpu%u: nvmlDeviceGetGpuFabricInfoV: %s (%d)", i,
			sn_nvml_error_string(NULL, f->rc), f->rc);
		return -1;
	}
	if (f->state != SN_NVML_FABRIC_STATE_COMPLETED) {
		set_why(out, SN_IDENTITY_ERROR,
			"gpu%u: fabric registration not completed (state %u)",
			i, f->state);
		return -1;
	}
	if (f->status != SN_NVML_SUCCESS) {
		set_why(out, SN_IDENTITY_ERROR,
			"gpu%u: fabric probe failed: %s (%d)", i,
			sn_nvml_error_string(NULL, f->status), f->status);
		return -1;
	}
	return 0;
}

void sn_identity_from_fabric(const struct sn_nvml_fabric *f, unsigned int n,
			     struct sn_identity *out)
{
	char first[SN_IDENTITY_KEY_MAX], key[SN_IDENTITY_KEY_MAX];

	memset(out, 0, sizeof(*out));
	if (!n) {
		set_why(out, SN_IDENTITY_CONFIG, "no GPUs");
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (fabric_usable(&f[i], i, out))
			return;
	fabric_key(&f[0], first, sizeof(first));
	for (unsigned int i = 1; i < n; i++) {
		fabric_key(&f[i], key, sizeof(key));
		if (strcmp(key, first)) {
			set_why(out, SN_IDENTITY_ERROR,
				"GPUs in two domains: gpu%u %s, gpu0 %s", i,
				key + 7, first + 7);
			return;
		}
	}
	if (sn_nvml_fabric_uuid_zero(&f[0])) {
		set_why(out, SN_IDENTITY_NONE,
			"cluster UUID is zero on every GPU: no multi-node NVLink domain");
		return;
	}
	out->kind = SN_IDENTITY_NVLINK;
	snprintf(out->key, sizeof(out->key), "%s", first);
	out->devices = n;
}

static void read_nvml(const struct sn_check_ctx *ctx, bool optional,
		      struct sn_identity *out)
{
	struct sn_nvml_fabric f[SN_MANIFEST_MAX_ACCELS];
	struct sn_nvml *nvml = NULL;
	unsigned int count = 0;
	struct sn_error err;
	sn_nvml_return_t rc;

	if (sn_nvml_open(ctx->nvml, &nvml, &err)) {
		set_why(out, optional ? SN_IDENTITY_CONFIG : SN_IDENTITY_ERROR,
			"%s", err.msg);
		return;
	}
	rc = sn_nvml_device_count(nvml, &count);
	if (rc != SN_NVML_SUCCESS) {
		set_why(out, SN_IDENTITY_ERROR, "nvmlDeviceGetCount_v2: %s",
			sn_nvml_error_string(nvml, rc));
		goto out;
	}
	if (count > SN_MANIFEST_MAX_ACCELS)
		count = SN_MANIFEST_MAX_ACCELS;
	for (unsigned int i = 0; i < count; i++)
		sn_nvml_fabric_read(nvml, i, &f[i]);
	sn_identity_from_fabric(f, count, out);
out:
	sn_nvml_close(nvml);
}

static void read_dcmi(const struct sn_check_ctx *ctx, struct sn_identity *out)
{
	struct sn_dcmi_pod pod;
	struct sn_error err;

	if (sn_dcmi_super_pod(ctx->dcmi, &pod, &err)) {
		set_why(out, SN_IDENTITY_ERROR, "%s", err.msg);
		return;
	}
	out->kind = SN_IDENTITY_ASCEND;
	snprintf(out->key, sizeof(out->key), "ascend:%u", pod.super_pod_id);
	out->devices = pod.cards;
}

void sn_identity_read(const struct sn_check_ctx *ctx, struct sn_identity *out)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);

	memset(out, 0, sizeof(*out));
	/* A CPU node (vendor none) may still sit in an NVLink domain. */
	if (v->id == SN_ACCEL_NONE)
		read_nvml(ctx, true, out);
	else if (v->identity == SN_VENDOR_ID_NVML)
		read_nvml(ctx, false, out);
	else if (v->identity == SN_VENDOR_ID_DCMI)
		read_dcmi(ctx, out);
	else
		set_why(out, SN_IDENTITY_CONFIG,
			"no hardware identity for %s accelerators: the config names the supernode",
			v->maker);
}

const char *sn_identity_kind_name(enum sn_identity_kind kind)
{
	switch (kind) {
	case SN_IDENTITY_NVLINK:
		return "nvlink";
	case SN_IDENTITY_ASCEND:
		return "ascend";
	case SN_IDENTITY_NONE:
		return "none";
	case SN_IDENTITY_ERROR:
		return "error";
	default:
		return "config";
	}
}

static json_object *string_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

char *sn_identity_json(const struct sn_identity *id, const char *node,
		       const struct sn_config *cfg)
{
	const struct sn_node *n = node ? sn_config_find_node(cfg, node) : NULL;
	const struct sn_supernode *sn = n ? &cfg->supernodes[n->supernode] :
					    NULL;
	json_object *o = json_object_new_object();
	char *s = NULL;

	if (!o)
		return NULL;
	json_object_object_add(o, "node", string_or_null(node));
	json_object_object_add(
		o, "kind",
		json_object_new_string(sn_identity_kind_name(id->kind)));
	json_object_object_add(o, "identity", string_or_null(id->key));
	json_object_object_add(o, "why", string_or_null(id->why));
	json_object_object_add(o, "devices",
			       json_object_new_int64(id->devices));
	json_object_object_add(o, "supernode",
			       string_or_null(sn ? sn->name : NULL));
	json_object_object_add(o, "expected",
			       string_or_null(sn ? sn->identity : NULL));
	s = strdup(json_object_to_json_string_ext(
		o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return s;
}
