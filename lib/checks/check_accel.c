/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_check_accelerators - the accelerator check group of the prolog.
 *
 * NVIDIA (through NVML, lib/nvml.c):
 *   - NVML must load and initialise, else UNKNOWN NVML_UNAVAILABLE;
 *   - NVML's count, the PCI functions in sysfs, the device nodes and the
 *     manifest count must agree, else CRIT GPU_COUNT naming the bus ids
 *     sysfs lists but NVML lacks ("gpu 0000:52:00.0 lost", field case 11);
 *   - every index must give a handle: GPU_IS_LOST is CRIT GPU_LOST,
 *     UNKNOWN ("Unable to determine the device handle") CRIT GPU_HANDLE;
 *     either code from any later query is CRIT too (GPU_LOST, GPU_ERROR);
 *   - health: row remapping pending (CRIT GPU_ROW_REMAP_PENDING, "reboot")
 *     or failed (CRIT GPU_ROW_REMAP_FAILED, "RMA"), retired pages pending
 *     (CRIT GPU_RETIRED_PAGES_PENDING), volatile uncorrected ECC errors
 *     (CRIT GPU_ECC_UNCORRECTED); NOT_SUPPORTED is healthy (field case 12);
 *   - PCIe, from NVML's values (field case 9): current width below the
 *     manifest minimum or below what device and slot allow (NVML's max) is
 *     CRIT GPU_PCIE_WIDTH.  GPUs idle at a lower generation, so the current
 *     generation is judged only with pcie_check_speed (CRIT GPU_PCIE_SPEED);
 *     without it pcie_min_gen is compared with NVML's maximum generation
 *     (device and slot), which idling does not lower;
 *   - NVLink (field case 13): active links per GPU against the manifest's
 *     nvlinks; fewer is CRIT NVLINK_INACTIVE naming GPU and links; with
 *     nvlinks 0 NOT_SUPPORTED or all down is OK; more than expected is WARN
 *     NVLINK_UNEXPECTED (the manifest is out of date).
 *   One OK result per healthy GPU.
 *
 * Other vendors: PCI functions of the vendor in sysfs, device nodes and the
 * manifest count must agree (CRIT ACCEL_COUNT), then sn_pcie_check() per
 * device when the manifest sets a PCIe minimum; a vendor with a management
 * library is then judged through it (check_vendor.c: count, health, ECC,
 * links, network health); one OK result per device.
 *
 * Either way, a PCI function whose vendor, class or device file is there
 * but cannot be read (a FIFO, folder, socket or link in its place,
 * EACCES, EIO) is UNKNOWN ACCEL_PCI_ATTR naming the file; the sysfs count
 * is then not judged (the function may be an accelerator), and every
 * other device is judged as usual.
 *
 * A query NVML cannot answer for a reason other than the GPU (NO_PERMISSION,
 * a function the library lacks where the manifest needs it) is UNKNOWN
 * NVML_QUERY: the tool could not tell.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inventory/sn_accel.h"
#include "checks/sn_check_groups.h"
#include "config/sn_checkctx.h"
#include "util/sn_file.h"
#include "inventory/sn_nvml.h"
#include "checks/sn_check_pcie.h"
#include "checks/sn_check_vendor.h"
#include "config/sn_vendor.h"
#include "inventory/sn_pcie.h"

#define CHECK_NVML "nvml"
#define CHECK_COUNT "gpu_count"
#define CHECK_GPU "gpu"
#define CHECK_PCIE "gpu_pcie"
#define CHECK_NVLINK "nvlink"
#define CHECK_ACCEL "accel"
#define CHECK_ACCEL_COUNT "accel_count"

/* One run of the NVIDIA checks. */
struct nv_run {
	const struct sn_check_ctx *ctx;
	const struct sn_accel_manifest *m;
	struct sn_results *out;
	struct sn_nvml *nvml;

	struct sn_accel_pci_list *pci; /* NVIDIA GPUs in sysfs */
	bool pci_ok;
	struct sn_accel_nodes *nodes; /* /dev/nvidia[0-9]* */
	bool nodes_ok;
	unsigned int nvml_count;
	bool nvml_ok; /* NVML loaded and counted */

	struct sn_nvml_gpu *gpus; /* n_gpus read */
	unsigned int n_gpus;
	/* Bus id of each GPU, from NVML or, for a failed handle, sysfs. */
	char (*bus)[SN_BDF_SIZE];
	bool in_nvml[SN_ACCEL_MAX_DEVICES]; /* pci->items[i] has a handle */
	bool paired;  /* failed handles got sysfs bus ids */
	bool gpu_bad; /* the GPU being judged is not OK */
};

/* ---- small helpers ------------------------------------------------------ */

static bool rc_skips(sn_nvml_return_t rc)
{
	return rc == SN_NVML_ERROR_NOT_SUPPORTED ||
	       rc == SN_NVML_ERROR_FUNCTION_NOT_FOUND ||
	       rc == SN_NVML_NOT_QUERIED;
}

static void gpu_label(const struct nv_run *r, unsigned int i, char *buf,
		      size_t size)
{
	if (r->bus[i][0])
		snprintf(buf, size, "gpu%u %s", i, r->bus[i]);
	else
		snprintf(buf, size, "gpu%u", i);
}

/* Append "a,b,c-e" for the set bits of set[0..n) to buf; bounded. */
static void format_list(char *buf, size_t size, const bool *set, unsigned int n)
{
	size_t len = strlen(buf);
	bool first = true;

	for (unsigned int i = 0; i < n && len + 1 < size; i++) {
		unsigned int j = i;

		if (!set[i])
			continue;
		while (j + 1 < n && set[j + 1])
			j++;
		if (j > i + 1)
			snprintf(buf + len, size - len, "%s%u-%u",
				 first ? "" : ",", i, j);
		else if (j == i + 1)
			snprintf(buf + len, size - len, "%s%u,%u",
				 first ? "" : ",", i, j);
		else
			snprintf(buf + len, size - len, "%s%u",
				 first ? "" : ",", i);
		len = strlen(buf);
		first = false;
		i = j;
	}
}

/* UNKNOWN NVML_QUERY for a query the tool could not make. */
static void query_unknown(struct nv_run *r, const char *label, const char *call,
			  sn_nvml_return_t rc)
{
	sn_results_add(r->out, SN_UNKNOWN, CHECK_GPU, "NVML_QUERY", label,
		       "an answer from NVML", "%s: %s", call,
		       sn_nvml_error_string(r->nvml, rc));
	r->gpu_bad = true;
}

/* ---- inventory and counts ----------------------------------------------- */

/*
 * UNKNOWN ACCEL_PCI_ATTR per PCI function the scan could not classify,
 * naming the file and why: "not a regular file (fifo): /sys/bus/pci/
 * devices/0000:43:00.0/class".  Such a scan's count is not judged.
 */
static void pci_unclassified(const struct sn_check_ctx *ctx,
			     const struct sn_accel_pci_list *pci,
			     const char *check, struct sn_results *out)
{
	size_t kept = pci->n_bad < SN_ACCEL_MAX_BAD ? pci->n_bad :
						      SN_ACCEL_MAX_BAD;
	char path[PATH_MAX];

	for (size_t i = 0; i < kept; i++) {
		const struct sn_accel_pci_bad *b = &pci->bad[i];

		if ((size_t)snprintf(path, sizeof(path),
				     "%s/bus/pci/devices/%s/%s", ctx->sysfs,
				     b->bdf, b->attr) >= sizeof(path))
			snprintf(path, sizeof(path), "(path too long)");
		sn_results_add(out, SN_UNKNOWN, check, "ACCEL_PCI_ATTR", b->bdf,
			       "readable PCI vendor, class, device", "%s: %s",
			       b->why, path);
	}
	if (pci->n_bad > kept)
		sn_results_add(out, SN_UNKNOWN, check, "ACCEL_PCI_ATTR", "node",
			       "readable PCI vendor, class, device",
			       "%zu more PCI functions not classified",
			       pci->n_bad - kept);
}

static void inventory(struct nv_run *r)
{
	struct sn_error err;

	if (sn_accel_pci_scan(r->ctx->sysfs, r->m->vendor, r->m->pci_vendor,
			      r->pci, &err)) {
		sn_results_add(r->out, SN_UNKNOWN, CHECK_COUNT,
			       "ACCEL_PCI_SCAN", "node",
			       "PCI functions in sysfs", "%s", err.msg);
	} else {
		r->pci_ok = true;
		pci_unclassified(r->ctx, r->pci, CHECK_COUNT, r->out);
	}
	if (!r->m->device_glob)
		return;
	if (sn_accel_dev_nodes(r->ctx->dev, r->m->device_glob, r->nodes, &err))
		sn_results_add(r->out, SN_UNKNOWN, CHECK_COUNT,
			       "ACCEL_DEV_NODES", "node", "device nodes", "%s",
			       err.msg);
	else
		r->nodes_ok = true;
}

/*
 * Mark the sysfs GPUs NVML knows; give the GPUs NVML could not name (failed
 * handle, or lost before nvmlDeviceGetPciInfo_v3 answered) the bus ids of
 * the sysfs GPUs left over.
 */
static void match_bus_ids(struct nv_run *r)
{
	unsigned int nameless = 0, unmatched = 0, k = 0;

	for (unsigned int i = 0; i < r->n_gpus; i++) {
		snprintf(r->bus[i], SN_BDF_SIZE, "%s", r->gpus[i].bus_id);
		if (!r->gpus[i].bus_id[0])
			nameless++;
		for (size_t p = 0; r->pci_ok && p < r->pci->count; p++)
			if (r->gpus[i].bus_id[0] &&
			    !strcmp(r->pci->items[p].bdf, r->gpus[i].bus_id))
				r->in_nvml[p] = true;
	}
	for (size_t p = 0; r->pci_ok && p < r->pci->count; p++)
		unmatched += !r->in_nvml[p];
	/*
	 * NVML enumerates in PCI bus order, so when as many GPUs are nameless
	 * as sysfs GPUs went unmatched, the i-th nameless is the i-th unmatched.
	 */
	if (!nameless || nameless != unmatched)
		return;
	r->paired = true;
	for (size_t p = 0; p < r->pci->count; p++) {
		if (r->in_nvml[p])
			continue;
		while (k < r->n_gpus && r->gpus[k].bus_id[0])
			k++;
		if (k < r->n_gpus)
			snprintf(r->bus[k++], SN_BDF_SIZE, "%s",
				 r->pci->items[p].bdf);
	}
}

static void count_value(char *buf, size_t size, const char *name, bool ok,
			size_t n)
{
	size_t len = strlen(buf);

	if (ok)
		snprintf(buf + len, size - len, "%s%s %zu", len ? ", " : "",
			 name, n);
	else
		snprintf(buf + len, size - len, "%s%s ?", len ? ", " : "",
			 name);
}

static void check_counts(struct nv_run *r)
{
	size_t want = r->m->count;
	char found[SN_VALUE_MAX] = "", expected[SN_VALUE_MAX];
	bool first = true;

	/*
	 * Without NVML the device nodes prove nothing: /dev/nvidiaN often
	 * appear only once the driver library has run.  Then only the PCI
	 * enumeration is held against the manifest.
	 */
	bool nodes_judged = r->nodes_ok && r->nvml_ok;
	/* A function that could not be classified may be a GPU: no count. */
	bool pci_judged = r->pci_ok && !r->pci->n_bad;

	if ((!r->nvml_ok || r->nvml_count == want) &&
	    (!pci_judged || (r->pci->count == want && !r->pci->truncated)) &&
	    (!nodes_judged || r->nodes->count == want))
		return;
	count_value(found, sizeof(found), "nvml", r->nvml_ok, r->nvml_count);
	count_value(found, sizeof(found), "pci", pci_judged,
		    pci_judged ? r->pci->count : 0);
	count_value(found, sizeof(found), "dev", r->nodes_ok,
		    r->nodes_ok ? r->nodes->count : 0);
	for (size_t p = 0;
	     r->nvml_ok && !r->paired && r->pci_ok && p < r->pci->count; p++) {
		size_t len = strlen(found);

		if (r->in_nvml[p])
			continue;
		snprintf(found + len, sizeof(found) - len, "%s%s",
			 first ? ": gpu " : " ", r->pci->items[p].bdf);
		first = false;
	}
	if (!first) {
		size_t len = strlen(found);

		snprintf(found + len, sizeof(found) - len, " lost");
	}
	snprintf(expected, sizeof(expected), "%zu gpus (manifest)", want);
	sn_results_add(r->out, SN_CRIT, CHECK_COUNT, "GPU_COUNT", "node",
		       expected, "%s", found);
}

/* ---- one GPU ------------------------------------------------------------ */

/* A failed handle; true when there is nothing more to judge. */
static bool judge_handle(struct nv_run *r, unsigned int i, const char *label)
{
	const struct sn_nvml_gpu *g = &r->gpus[i];
	const char *bus = r->bus[i][0] ? r->bus[i] : "(bus id unknown)";
	const char *text;

	if (g->handle_rc == SN_NVML_SUCCESS && !g->lost_call)
		return false;
	r->gpu_bad = true;
	if (g->handle_rc == SN_NVML_ERROR_NO_PERMISSION) {
		query_unknown(r, label, "nvmlDeviceGetHandleByIndex_v2",
			      g->handle_rc);
		return true;
	}
	if (g->handle_rc != SN_NVML_SUCCESS) {
		text = sn_nvml_error_string(r->nvml, g->handle_rc);
		if (g->handle_rc == SN_NVML_ERROR_GPU_IS_LOST)
			sn_results_add(r->out, SN_CRIT, CHECK_GPU, "GPU_LOST",
				       label, "a handle from NVML",
				       "gpu %s lost: %s", bus, text);
		else
			sn_results_add(
				r->out, SN_CRIT, CHECK_GPU, "GPU_HANDLE", label,
				"a handle from NVML",
				"Unable to determine the device handle for gpu %s: %s",
				bus, text);
		return true;
	}
	text = sn_nvml_error_string(r->nvml, g->lost_rc);
	if (g->lost_rc == SN_NVML_ERROR_GPU_IS_LOST)
		sn_results_add(r->out, SN_CRIT, CHECK_GPU, "GPU_LOST", label,
			       "answers from NVML", "gpu %s lost: %s: %s", bus,
			       g->lost_call, text);
	else
		sn_results_add(r->out, SN_CRIT, CHECK_GPU, "GPU_ERROR", label,
			       "answers from NVML", "%s: %s", g->lost_call,
			       text);
	return true;
}

static void judge_health(struct nv_run *r, const struct sn_nvml_gpu *g,
			 const char *label)
{
	if (g->remap_rc == SN_NVML_SUCCESS && g->remap_failure) {
		sn_results_add(r->out, SN_CRIT, CHECK_GPU,
			       "GPU_ROW_REMAP_FAILED", label,
			       "no row remapping failure",
			       "remap failure: RMA (uncorrectable rows %u)",
			       g->remap_uncorrectable);
		r->gpu_bad = true;
	}
	if (g->remap_rc == SN_NVML_SUCCESS && g->remap_pending) {
		sn_results_add(r->out, SN_CRIT, CHECK_GPU,
			       "GPU_ROW_REMAP_PENDING", label,
			       "no row remapping pending",
			       "remap pending: reboot (uncorrectable rows %u)",
			       g->remap_uncorrectable);
		r->gpu_bad = true;
	}
	if (!rc_skips(g->remap_rc) && g->remap_rc != SN_NVML_SUCCESS)
		query_unknown(r, label, "nvmlDeviceGetRemappedRows",
			      g->remap_rc);

	if (g->retired_pending.rc == SN_NVML_SUCCESS &&
	    g->retired_pending.value) {
		sn_results_add(r->out, SN_CRIT, CHECK_GPU,
			       "GPU_RETIRED_PAGES_PENDING", label,
			       "no pages pending retirement",
			       "retired pages pending: reboot");
		r->gpu_bad = true;
	} else if (!rc_skips(g->retired_pending.rc) &&
		   g->retired_pending.rc != SN_NVML_SUCCESS) {
		query_unknown(r, label,
			      "nvmlDeviceGetRetiredPagesPendingStatus",
			      g->retired_pending.rc);
	}

	if (g->ecc_uncorrected.rc == SN_NVML_SUCCESS &&
	    g->ecc_uncorrected.value) {
		sn_results_add(r->out, SN_CRIT, CHECK_GPU,
			       "GPU_ECC_UNCORRECTED", label,
			       "0 uncorrected volatile ECC errors",
			       "%llu uncorrected volatile ECC errors",
			       g->ecc_uncorrected.value);
		r->gpu_bad = true;
	} else if (!rc_skips(g->ecc_uncorrected.rc) &&
		   g->ecc_uncorrected.rc != SN_NVML_SUCCESS) {
		query_unknown(r, label, "nvmlDeviceGetTotalEccErrors",
			      g->ecc_uncorrected.rc);
	}
}

/*
 * A value to judge: true when it can be.  NOT_SUPPORTED skips quietly
 * (healthy); a function the library lacks is UNKNOWN only when the
 * manifest asks for the value (required); any other failure is UNKNOWN.
 */
static bool judgeable(struct nv_run *r, const char *label, const char *call,
		      sn_nvml_return_t rc, bool required)
{
	if (rc == SN_NVML_SUCCESS)
		return true;
	if (rc == SN_NVML_ERROR_NOT_SUPPORTED || rc == SN_NVML_NOT_QUERIED)
		return false;
	if (rc != SN_NVML_ERROR_FUNCTION_NOT_FOUND || required)
		query_unknown(r, label, call, rc);
	return false;
}

static void judge_width(struct nv_run *r, const struct sn_nvml_gpu *g,
			const char *label)
{
	unsigned int cur = g->width_cur.value, max = g->width_max.value;
	bool have_max = g->width_max.rc == SN_NVML_SUCCESS;
	char expected[SN_VALUE_MAX];

	if (!judgeable(r, label, "nvmlDeviceGetCurrPcieLinkWidth",
		       g->width_cur.rc, r->m->pcie_min_width > 0) ||
	    !cur)
		return;
	if (r->m->pcie_min_width && cur < r->m->pcie_min_width) {
		snprintf(expected, sizeof(expected), "width x%u or more",
			 r->m->pcie_min_width);
	} else if (have_max && cur < max) {
		snprintf(expected, sizeof(expected), "width x%u (link max)",
			 max);
	} else {
		return;
	}
	if (have_max)
		sn_results_add(r->out, SN_CRIT, CHECK_PCIE, "GPU_PCIE_WIDTH",
			       label, expected, "x%u (link max x%u)", cur, max);
	else
		sn_results_add(r->out, SN_CRIT, CHECK_PCIE, "GPU_PCIE_WIDTH",
			       label, expected, "x%u", cur);
	r->gpu_bad = true;
}

static void judge_speed(struct nv_run *r, const struct sn_nvml_gpu *g,
			const char *label)
{
	unsigned int want = r->m->pcie_min_gen, cur = g->gen_cur.value;
	unsigned int max = g->gen_max.value;
	bool have_max = g->gen_max.rc == SN_NVML_SUCCESS && max;
	char expected[SN_VALUE_MAX];

	if (!r->m->pcie_check_speed) {
		/* Idle GPUs drop their generation; the slot's maximum does not. */
		if (!want || !have_max || max >= want)
			return;
		snprintf(expected, sizeof(expected), "gen%u or more", want);
		sn_results_add(r->out, SN_CRIT, CHECK_PCIE, "GPU_PCIE_SPEED",
			       label, expected,
			       "link max gen%u (device and slot)", max);
		r->gpu_bad = true;
		return;
	}
	if (!judgeable(r, label, "nvmlDeviceGetCurrPcieLinkGeneration",
		       g->gen_cur.rc, true) ||
	    !cur)
		return;
	if (want && cur < want)
		snprintf(expected, sizeof(expected), "gen%u or more", want);
	else if (have_max && cur < max)
		snprintf(expected, sizeof(expected), "gen%u (link max)", max);
	else
		return;
	sn_results_add(r->out, SN_CRIT, CHECK_PCIE, "GPU_PCIE_SPEED", label,
		       expected, "gen%u (link max gen%u)", cur,
		       have_max ? max : cur);
	r->gpu_bad = true;
}

static void judge_nvlink(struct nv_run *r, unsigned int i,
			 const struct sn_nvml_gpu *g, const char *label)
{
	bool inactive[SN_MANIFEST_MAX_NVLINKS] = { false };
	unsigned int active = 0, n_inactive = 0;
	int want = r->m->nvlinks;
	char expected[SN_VALUE_MAX], found[SN_VALUE_MAX];

	if (want < 0 || g->links_rc == SN_NVML_NOT_QUERIED)
		return;
	if (g->links_rc != SN_NVML_SUCCESS &&
	    g->links_rc != SN_NVML_ERROR_NOT_SUPPORTED) {
		if (want > 0)
			query_unknown(r, label, "nvmlDeviceGetNvLinkState",
				      g->links_rc);
		return;
	}
	for (unsigned int l = 0; l < g->n_links; l++) {
		if (g->links[l].active) {
			active++;
		} else if (g->links[l].state_rc == SN_NVML_SUCCESS) {
			inactive[l] = true;
			n_inactive++;
		}
	}
	snprintf(expected, sizeof(expected), "%d active nvlinks", want);
	if (active > (unsigned int)want) {
		sn_results_add(r->out, SN_WARN, CHECK_NVLINK,
			       "NVLINK_UNEXPECTED", label, expected,
			       "gpu%u %u/%d active: manifest out of date?", i,
			       active, want);
		r->gpu_bad = true;
		return;
	}
	if (active == (unsigned int)want)
		return;
	if (g->links_rc == SN_NVML_ERROR_NOT_SUPPORTED)
		snprintf(found, sizeof(found),
			 "gpu%u nvlink not supported, 0/%d active", i, want);
	else if (!n_inactive)
		snprintf(found, sizeof(found), "gpu%u %u/%d active", i, active,
			 want);
	else {
		snprintf(found, sizeof(found), "gpu%u links ", i);
		format_list(found, sizeof(found), inactive, g->n_links);
		snprintf(found + strlen(found), sizeof(found) - strlen(found),
			 " inactive, %u/%d active", active, want);
	}
	sn_results_add(r->out, SN_CRIT, CHECK_NVLINK, "NVLINK_INACTIVE", label,
		       expected, "%s", found);
	r->gpu_bad = true;
}

/* A recovery action that is no action: UNKNOWN NVML_QUERY; true if so. */
static bool recovery_garbage(struct nv_run *r, const struct sn_nvml_field *f,
			     const char *label)
{
	const char *call = "nvmlDeviceGetFieldValues";

	if (f->negative)
		sn_results_add(r->out, SN_UNKNOWN, CHECK_GPU, "NVML_QUERY",
			       label, "an answer from NVML",
			       "%s: recovery action negative", call);
	else if (f->type == SN_NVML_VALUE_TYPE_DOUBLE)
		sn_results_add(r->out, SN_UNKNOWN, CHECK_GPU, "NVML_QUERY",
			       label, "an answer from NVML",
			       "%s: recovery action of type double (%g)", call,
			       f->d);
	else
		return false;
	r->gpu_bad = true;
	return true;
}

/*
 * NVML's recovery action for the GPU (field NVML_FI_DEV_GET_GPU_RECOVERY_ACTION,
 * drivers r570 and later): anything but NONE is CRIT GPU_RECOVERY_ACTION
 * naming the action (GPU reset, node reboot, drain peer-to-peer traffic,
 * drain and reset, recover the IMEX domain).  A driver or GPU without the
 * field says nothing; another failure, and an answer that is no action
 * (a double, a negative number: f.u is then 0, which would read as NONE),
 * is UNKNOWN NVML_QUERY.
 */
static void judge_recovery(struct nv_run *r, const struct sn_nvml_gpu *g,
			   const char *label)
{
	struct sn_nvml_field f = {
		.id = SN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION
	};

	if (g->lost_call)
		return;
	sn_nvml_field_values(r->nvml, g->index, &f, 1);
	if (rc_skips(f.rc))
		return;
	if (f.rc != SN_NVML_SUCCESS) {
		query_unknown(r, label, "nvmlDeviceGetFieldValues", f.rc);
		return;
	}
	if (recovery_garbage(r, &f, label))
		return;
	if (f.u == SN_NVML_GPU_RECOVERY_ACTION_NONE)
		return;
	sn_results_add(r->out, SN_CRIT, CHECK_GPU, "GPU_RECOVERY_ACTION", label,
		       "recovery action none", "%s (NVML action %llu)",
		       sn_nvml_recovery_action_name(f.u), f.u);
	r->gpu_bad = true;
}

static void judge_ok(struct nv_run *r, const struct sn_nvml_gpu *g,
		     const char *label)
{
	char more[48] = "";
	unsigned int active = 0;

	for (unsigned int l = 0; l < g->n_links; l++)
		active += g->links[l].active;
	if (g->gen_cur.rc == SN_NVML_SUCCESS &&
	    g->width_cur.rc == SN_NVML_SUCCESS)
		snprintf(more, sizeof(more), " pcie gen%u x%u",
			 g->gen_cur.value, g->width_cur.value);
	sn_results_add(r->out, SN_OK, CHECK_GPU, "OK", label, "healthy",
		       "%.48s%s, %u nvlinks active",
		       g->name_rc == SN_NVML_SUCCESS ? g->name : "gpu", more,
		       active);
}

static void judge_gpu(struct nv_run *r, unsigned int i)
{
	const struct sn_nvml_gpu *g = &r->gpus[i];
	char label[SN_DEVICE_MAX];

	r->gpu_bad = false;
	gpu_label(r, i, label, sizeof(label));
	if (judge_handle(r, i, label))
		return;
	judge_health(r, g, label);
	judge_recovery(r, g, label);
	judge_width(r, g, label);
	judge_speed(r, g, label);
	judge_nvlink(r, i, g, label);
	if (!r->gpu_bad)
		judge_ok(r, g, label);
}

/* ---- NVIDIA ------------------------------------------------------------- */

static int nv_alloc(struct nv_run *r)
{
	r->pci = malloc(sizeof(*r->pci));
	r->nodes = malloc(sizeof(*r->nodes));
	r->gpus = calloc(SN_MANIFEST_MAX_ACCELS, sizeof(*r->gpus));
	r->bus = calloc(SN_MANIFEST_MAX_ACCELS, sizeof(*r->bus));
	return r->pci && r->nodes && r->gpus && r->bus ? 0 : -1;
}

static void nv_free(struct nv_run *r)
{
	sn_nvml_close_deferred(r->nvml);
	free(r->pci);
	free(r->nodes);
	free(r->gpus);
	free(r->bus);
}

/* Load NVML and count; UNKNOWN NVML_UNAVAILABLE when it cannot. */
static void nv_open(struct nv_run *r)
{
	struct sn_error err;
	sn_nvml_return_t rc;

	if (sn_nvml_open(r->ctx->nvml, &r->nvml, &err)) {
		sn_results_add(r->out, SN_UNKNOWN, CHECK_NVML,
			       "NVML_UNAVAILABLE", "node",
			       "NVML loads and initialises", "%s", err.msg);
		return;
	}
	rc = sn_nvml_device_count(r->nvml, &r->nvml_count);
	if (rc != SN_NVML_SUCCESS) {
		sn_results_add(r->out, SN_UNKNOWN, CHECK_NVML,
			       "NVML_UNAVAILABLE", "node",
			       "NVML counts the GPUs",
			       "nvmlDeviceGetCount_v2: %s",
			       sn_nvml_error_string(r->nvml, rc));
		return;
	}
	r->nvml_ok = true;
}

static int check_nvidia(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	struct nv_run *r = calloc(1, sizeof(*r));

	if (!r)
		goto oom;
	r->ctx = ctx;
	r->m = &ctx->cfg->node.accel;
	r->out = out;
	if (nv_alloc(r))
		goto oom;
	inventory(r);
	nv_open(r);
	if (r->nvml_ok) {
		r->n_gpus = r->nvml_count < SN_MANIFEST_MAX_ACCELS ?
				    r->nvml_count :
				    SN_MANIFEST_MAX_ACCELS;
		for (unsigned int i = 0; i < r->n_gpus; i++)
			sn_nvml_read_gpu(r->nvml, i, 0, &r->gpus[i]);
		match_bus_ids(r);
	}
	check_counts(r);
	for (unsigned int i = 0; i < r->n_gpus; i++)
		judge_gpu(r, i);
	goto out;
oom:
	sn_results_add(out, SN_UNKNOWN, CHECK_NVML, "NO_MEMORY", "node",
		       "memory", "out of memory");
out:
	if (r)
		nv_free(r);
	free(r);
	return 0;
}

/* ---- other vendors ------------------------------------------------------ */

/* The literal start of a glob's last component: "davinci" of "davinci[0-9]*". */
static size_t glob_prefix(const char *glob, char *buf, size_t size)
{
	const char *base = strrchr(glob, '/');
	size_t n;

	base = base ? base + 1 : glob;
	n = strcspn(base, "*?[\\");
	if (n >= size || !n)
		return 0;
	memcpy(buf, base, n);
	buf[n] = '\0';
	return n;
}

/* Append the numbered nodes missing below want ("davinci5 missing"). */
static void missing_nodes(const struct sn_accel_nodes *nodes, const char *glob,
			  size_t want, char *found, size_t size)
{
	bool present[SN_MANIFEST_MAX_ACCELS] = { false }, first = true;
	char prefix[SN_ACCEL_NODE_MAX];
	size_t plen = glob_prefix(glob, prefix, sizeof(prefix));

	if (!plen || strchr(glob, '/'))
		return;
	for (size_t i = 0; i < nodes->count; i++) {
		const char *num = nodes->names[i] + plen;
		char *end = NULL;
		unsigned long k;

		if (strncmp(nodes->names[i], prefix, plen) ||
		    !isdigit((unsigned char)*num))
			return; /* not "<prefix><number>": cannot tell */
		k = strtoul(num, &end, 10);
		if (*end)
			return;
		if (k < SN_MANIFEST_MAX_ACCELS)
			present[k] = true;
	}
	for (size_t k = 0; k < want && k < SN_MANIFEST_MAX_ACCELS; k++) {
		size_t len = strlen(found);

		if (present[k])
			continue;
		snprintf(found + len, size - len, "%s%s%zu", first ? ": " : " ",
			 prefix, k);
		first = false;
	}
	if (!first)
		snprintf(found + strlen(found), size - strlen(found),
			 " missing");
}

static void generic_counts(const struct sn_check_ctx *ctx,
			   const struct sn_accel_pci_list *pci, bool pci_ok,
			   const struct sn_accel_nodes *nodes, bool nodes_ok,
			   struct sn_results *out)
{
	const struct sn_accel_manifest *m = &ctx->cfg->node.accel;
	char found[SN_VALUE_MAX] = "", expected[SN_VALUE_MAX];

	/* A function that could not be classified may be one: no count. */
	pci_ok = pci_ok && !pci->n_bad;
	if ((!pci_ok || (pci->count == m->count && !pci->truncated)) &&
	    (!nodes_ok || nodes->count == m->count))
		return;
	count_value(found, sizeof(found), "pci", pci_ok,
		    pci_ok ? pci->count : 0);
	count_value(found, sizeof(found), "dev", nodes_ok,
		    nodes_ok ? nodes->count : 0);
	if (nodes_ok && nodes->count < m->count)
		missing_nodes(nodes, m->device_glob, m->count, found,
			      sizeof(found));
	snprintf(expected, sizeof(expected), "%u %s accelerators (pci %04x)",
		 m->count, sn_accel_vendor_name(m->vendor), m->pci_vendor);
	sn_results_add(out, SN_CRIT, CHECK_ACCEL_COUNT, "ACCEL_COUNT", "node",
		       expected, "%s", found);
}

static void generic_device(const struct sn_check_ctx *ctx,
			   const struct sn_accel_pci *fn, size_t i,
			   struct sn_results *out)
{
	const struct sn_accel_manifest *m = &ctx->cfg->node.accel;
	char label[SN_DEVICE_MAX];

	snprintf(label, sizeof(label), "accel%zu %s", i, fn->bdf);
	if (m->pcie_min_gen || m->pcie_min_width)
		sn_pcie_check(ctx->sysfs, fn->bdf, label, m->pcie_min_gen,
			      m->pcie_min_width, m->pcie_check_speed, out);
	/* A vendor with a library gets its OK from the library's verdict. */
	if (sn_vendor_of(m->vendor)->api == SN_VENDOR_API_LIB)
		return;
	sn_results_add(out, SN_OK, CHECK_ACCEL, "OK", label, "present",
		       "pci %04x:%04x class 0x%06x", fn->vendor, fn->device,
		       fn->pci_class);
}

static int check_generic(const struct sn_check_ctx *ctx, struct sn_results *out)
{
	const struct sn_accel_manifest *m = &ctx->cfg->node.accel;
	struct sn_accel_pci_list *pci = malloc(sizeof(*pci));
	struct sn_accel_nodes *nodes = malloc(sizeof(*nodes));
	bool pci_ok = false, nodes_ok = false;
	struct sn_error err;

	if (!pci || !nodes) {
		sn_results_add(out, SN_UNKNOWN, CHECK_ACCEL_COUNT, "NO_MEMORY",
			       "node", "memory", "out of memory");
		goto out;
	}
	if (sn_accel_pci_scan(ctx->sysfs, m->vendor, m->pci_vendor, pci,
			      &err)) {
		sn_results_add(out, SN_UNKNOWN, CHECK_ACCEL_COUNT,
			       "ACCEL_PCI_SCAN", "node",
			       "PCI functions in sysfs", "%s", err.msg);
	} else {
		pci_ok = true;
		pci_unclassified(ctx, pci, CHECK_ACCEL_COUNT, out);
	}
	if (m->device_glob &&
	    sn_accel_dev_nodes(ctx->dev, m->device_glob, nodes, &err))
		sn_results_add(out, SN_UNKNOWN, CHECK_ACCEL_COUNT,
			       "ACCEL_DEV_NODES", "node", "device nodes", "%s",
			       err.msg);
	else if (m->device_glob)
		nodes_ok = true;
	generic_counts(ctx, pci, pci_ok, nodes, nodes_ok, out);
	for (size_t i = 0; pci_ok && i < pci->count; i++)
		generic_device(ctx, &pci->items[i], i, out);
	if (sn_vendor_of(m->vendor)->api == SN_VENDOR_API_LIB)
		sn_check_vendor_lib(ctx, pci_ok ? pci : NULL, out);
out:
	free(pci);
	free(nodes);
	return 0;
}

int sn_check_accelerators(const struct sn_check_ctx *ctx,
			  struct sn_results *out)
{
	const struct sn_vendor *v = sn_vendor_of(ctx->cfg->node.accel.vendor);

	if (v->id == SN_ACCEL_NONE)
		return 0;
	if (v->api == SN_VENDOR_API_NVML)
		return check_nvidia(ctx, out);
	return check_generic(ctx, out);
}
