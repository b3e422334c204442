/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Accelerator inventory: PCI functions from sysfs, device nodes, and the
 * counter snapshot for the epilog (see sn_accel.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/sn_vendor.h"
#include "inventory/sn_accel.h"
#include "inventory/sn_vendor_lib.h"
#include "util/sn_file.h"

#define SYSFS_VALUE_MAX 32 /* "0x030200\n" and the like */

const char *sn_accel_vendor_name(enum sn_accel_vendor vendor)
{
	return sn_vendor_of(vendor)->name;
}

bool sn_accel_class_accepted(enum sn_accel_vendor vendor, uint16_t pci_vendor,
			     uint16_t device, uint32_t pci_class)
{
	return sn_vendor_class_accepted(sn_vendor_of(vendor), pci_vendor,
					device, pci_class);
}

/* ---- sysfs -------------------------------------------------------------- */

/* What became of reading one attribute of a PCI function. */
enum attr_rc {
	ATTR_OK = 0,
	ATTR_SKIP, /* missing or malformed: not a function we can use */
	ATTR_BAD,  /* there but refused or unreadable: cannot tell */
};

/*
 * Read a small sysfs attribute into buf (NUL-terminated, newline cut)
 * through the bounded reader: a FIFO, folder, socket or link in its place
 * is refused at once, with why ("not a regular file (fifo)") set.
 */
static enum attr_rc read_attr(const char *dir, const char *name,
			      const char *attr, char *buf, size_t size,
			      char *why, size_t why_size)
{
	char path[PATH_MAX];
	long n;
	int fd, e;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", dir, name, attr) >=
	    sizeof(path))
		return ATTR_SKIP;
	fd = sn_file_open_regular(path, 0, NULL, why, why_size);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR ? ATTR_SKIP :
							     ATTR_BAD;
	n = sn_file_read_fd(fd, buf, size);
	e = errno;
	close(fd);
	if (n < 0) {
		snprintf(why, why_size, "cannot read: %s", strerror(e));
		return ATTR_BAD;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return ATTR_OK;
}

/* A "0x..." attribute no larger than max. */
static enum attr_rc read_hex(const char *dir, const char *name,
			     const char *attr, unsigned long max,
			     unsigned long *value, char *why, size_t why_size)
{
	char buf[SYSFS_VALUE_MAX], *end = NULL;
	enum attr_rc rc =
		read_attr(dir, name, attr, buf, sizeof(buf), why, why_size);

	if (rc != ATTR_OK)
		return rc;
	if (strncmp(buf, "0x", 2))
		return ATTR_SKIP;
	errno = 0;
	*value = strtoul(buf + 2, &end, 16);
	if (errno || end == buf + 2 || *end || *value > max)
		return ATTR_SKIP;
	return ATTR_OK;
}

/*
 * Fill one PCI function of vendor pci_vendor from its sysfs directory.
 * ATTR_SKIP: not a PCI function name, another vendor, or a vendor/class
 * file missing or malformed; ATTR_BAD: a file that is there could not be
 * read, bad names it.
 */
static enum attr_rc read_function(const char *dir, const char *name,
				  uint16_t pci_vendor, struct sn_accel_pci *fn,
				  struct sn_accel_pci_bad *bad)
{
	char canon[SN_BDF_SIZE];
	unsigned long vendor, device, cls;
	enum attr_rc rc;

	if (sn_pci_bdf_normalize(name, canon, sizeof(canon)) ||
	    strcmp(canon, name))
		return ATTR_SKIP;
	memset(bad, 0, sizeof(*bad));
	memcpy(bad->bdf, canon, sizeof(bad->bdf));
	snprintf(bad->attr, sizeof(bad->attr), "vendor");
	rc = read_hex(dir, name, "vendor", 0xffff, &vendor, bad->why,
		      sizeof(bad->why));
	if (rc != ATTR_OK || vendor != pci_vendor)
		return rc == ATTR_OK ? ATTR_SKIP : rc;
	snprintf(bad->attr, sizeof(bad->attr), "class");
	rc = read_hex(dir, name, "class", 0xffffff, &cls, bad->why,
		      sizeof(bad->why));
	if (rc != ATTR_OK)
		return rc;
	snprintf(bad->attr, sizeof(bad->attr), "device");
	rc = read_hex(dir, name, "device", 0xffff, &device, bad->why,
		      sizeof(bad->why));
	if (rc == ATTR_BAD)
		return rc;
	if (rc != ATTR_OK)
		device = 0;
	memset(fn, 0, sizeof(*fn));
	memcpy(fn->bdf, canon, sizeof(fn->bdf));
	fn->vendor = (uint16_t)vendor;
	fn->device = (uint16_t)device;
	fn->pci_class = (uint32_t)cls;
	return ATTR_OK;
}

static int cmp_pci(const void *a, const void *b)
{
	return strcmp(((const struct sn_accel_pci *)a)->bdf,
		      ((const struct sn_accel_pci *)b)->bdf);
}

static int cmp_bad(const void *a, const void *b)
{
	return strcmp(((const struct sn_accel_pci_bad *)a)->bdf,
		      ((const struct sn_accel_pci_bad *)b)->bdf);
}

typedef bool (*accept_fn)(enum sn_accel_vendor vendor,
			  const struct sn_accel_pci *fn);

static bool accel_accepted(enum sn_accel_vendor vendor,
			   const struct sn_accel_pci *fn)
{
	return sn_accel_class_accepted(vendor, fn->vendor, fn->device,
				       fn->pci_class);
}

/* NVSwitch: NVIDIA, class 0x0680 ("other bridge"), sn_accel.h. */
static bool nvswitch_accepted(enum sn_accel_vendor vendor,
			      const struct sn_accel_pci *fn)
{
	(void)vendor;
	return fn->vendor == SN_ACCEL_NVIDIA_PCI_VENDOR &&
	       fn->pci_class >> 8 == 0x0680;
}

static int pci_scan(const char *sysfs, enum sn_accel_vendor vendor,
		    uint16_t pci_vendor, accept_fn accept,
		    struct sn_accel_pci_list *out, struct sn_error *err)
{
	char dir[PATH_MAX];
	struct dirent *e;
	struct sn_accel_pci_bad bad;
	struct sn_accel_pci fn;
	size_t seen = 0;
	DIR *d = NULL;
	int ret = -1;

	out->count = 0;
	out->truncated = false;
	out->n_bad = 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/bus/pci/devices", sysfs) >=
	    sizeof(dir)) {
		sn_error_set(err, "%s/bus/pci/devices: path too long", sysfs);
		goto out;
	}
	d = opendir(dir);
	if (!d) {
		sn_error_set(err, "%s: %s", dir, strerror(errno));
		goto out;
	}
	while ((e = readdir(d))) {
		enum attr_rc rc;

		if (e->d_name[0] == '.')
			continue;
		if (++seen > SN_ACCEL_MAX_SCAN) {
			out->truncated = true;
			break;
		}
		rc = read_function(dir, e->d_name, pci_vendor, &fn, &bad);
		if (rc == ATTR_BAD) {
			if (out->n_bad < SN_ACCEL_MAX_BAD)
				out->bad[out->n_bad] = bad;
			out->n_bad++;
			continue;
		}
		if (rc != ATTR_OK || !accept(vendor, &fn))
			continue;
		if (out->count == SN_ACCEL_MAX_DEVICES) {
			out->truncated = true;
			break;
		}
		out->items[out->count++] = fn;
	}
	qsort(out->items, out->count, sizeof(out->items[0]), cmp_pci);
	qsort(out->bad,
	      out->n_bad < SN_ACCEL_MAX_BAD ? out->n_bad : SN_ACCEL_MAX_BAD,
	      sizeof(out->bad[0]), cmp_bad);
	ret = 0;
out:
	if (d)
		closedir(d);
	return ret;
}

/* ---- device nodes ------------------------------------------------------- */

int sn_accel_pci_scan(const char *sysfs, enum sn_accel_vendor vendor,
		      uint16_t pci_vendor, struct sn_accel_pci_list *out,
		      struct sn_error *err)
{
	return pci_scan(sysfs, vendor, pci_vendor, accel_accepted, out, err);
}

int sn_accel_nvswitch_scan(const char *sysfs, struct sn_accel_pci_list *out,
			   struct sn_error *err)
{
	return pci_scan(sysfs, SN_ACCEL_NVIDIA, SN_ACCEL_NVIDIA_PCI_VENDOR,
			nvswitch_accepted, out, err);
}

static int cmp_node(const void *a, const void *b)
{
	return strverscmp((const char *)a, (const char *)b);
}

/* Split glob into its directory ("" or "dri") and last component. */
static int split_glob(const char *glob, char *subdir, size_t size,
		      const char **pattern)
{
	const char *slash = strrchr(glob, '/');
	size_t n = slash ? (size_t)(slash - glob) : 0;

	*pattern = slash ? slash + 1 : glob;
	if (n >= size || !**pattern)
		return -1;
	memcpy(subdir, glob, n);
	subdir[n] = '\0';
	return strpbrk(subdir, "*?[\\") ? -1 : 0;
}

static int add_node(struct sn_accel_nodes *out, const char *subdir,
		    const char *name)
{
	char *dst;
	int n;

	if (out->count == SN_ACCEL_MAX_DEVICES) {
		out->truncated = true;
		return -1;
	}
	dst = out->names[out->count];
	n = snprintf(dst, SN_ACCEL_NODE_MAX, "%s%s%s", subdir,
		     *subdir ? "/" : "", name);
	if (n < 0 || n >= SN_ACCEL_NODE_MAX)
		return 0; /* a name this long is not a device node we count */
	out->count++;
	return 0;
}

int sn_accel_dev_nodes(const char *dev, const char *glob,
		       struct sn_accel_nodes *out, struct sn_error *err)
{
	char subdir[PATH_MAX], dir[PATH_MAX];
	const char *pattern;
	struct dirent *e;
	struct stat st;
	size_t seen = 0;
	DIR *d = NULL;
	int ret = -1;

	out->count = 0;
	out->truncated = false;
	if (!glob || split_glob(glob, subdir, sizeof(subdir), &pattern)) {
		sn_error_set(
			err,
			"device_glob '%s': wildcards are allowed in the last component only",
			glob ? glob : "");
		goto out;
	}
	errno = 0;
	if (stat(dev, &st) || !S_ISDIR(st.st_mode)) {
		sn_error_set(err, "paths.dev %s: %s", dev,
			     errno ? strerror(errno) : "not a directory");
		goto out;
	}
	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", dev, subdir) >=
	    sizeof(dir)) {
		sn_error_set(err, "%s/%s: path too long", dev, subdir);
		goto out;
	}
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			ret = 0; /* no "dri" at all: no nodes */
		else
			sn_error_set(err, "%s: %s", dir, strerror(errno));
		goto out;
	}
	while ((e = readdir(d)) && ++seen <= SN_ACCEL_MAX_SCAN)
		if (!fnmatch(pattern, e->d_name, FNM_PERIOD) &&
		    add_node(out, subdir, e->d_name))
			break;
	if (seen > SN_ACCEL_MAX_SCAN)
		out->truncated = true;
	qsort(out->names, out->count, sizeof(out->names[0]), cmp_node);
	ret = 0;
out:
	if (d)
		closedir(d);
	return ret;
}

/* ---- counters (JSON) ---------------------------------------------------- */

/* Add val under key; val is released on failure.  Returns 0 or -1. */
static int put(json_object *obj, const char *key, json_object *val)
{
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

static json_object *u64_or_null(sn_nvml_return_t rc, unsigned long long v)
{
	return rc == SN_NVML_SUCCESS ? json_object_new_uint64(v) : NULL;
}

static json_object *bool_or_null(sn_nvml_return_t rc, bool v)
{
	return rc == SN_NVML_SUCCESS ? json_object_new_boolean(v) : NULL;
}

static json_object *text_or_null(sn_nvml_return_t rc, const char *s)
{
	return rc == SN_NVML_SUCCESS ? json_object_new_string(s) : NULL;
}

static json_object *remap_json(const struct sn_nvml_gpu *gpu)
{
	json_object *o;
	int bad = 0;

	if (gpu->remap_rc != SN_NVML_SUCCESS)
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	bad |= put(o, "correctable",
		   json_object_new_uint64(gpu->remap_correctable));
	bad |= put(o, "uncorrectable",
		   json_object_new_uint64(gpu->remap_uncorrectable));
	bad |= put(o, "pending",
		   json_object_new_boolean(gpu->remap_pending != 0));
	bad |= put(o, "failure",
		   json_object_new_boolean(gpu->remap_failure != 0));
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int link_json(json_object *links, unsigned int n,
		     const struct sn_nvml_link *l)
{
	static const char *const names[SN_NVLINK_ERR_COUNT] = {
		"replay", "recovery", "crc_flit", "crc_data", "ecc_data",
	};
	json_object *o = json_object_new_object();
	char key[16];
	int bad = 0;

	if (!o)
		return -1;
	bad |= put(o, "active", bool_or_null(l->state_rc, l->active));
	for (int c = 0; c < SN_NVLINK_ERR_COUNT; c++)
		bad |= put(o, names[c],
			   u64_or_null(l->errors[c].rc, l->errors[c].value));
	snprintf(key, sizeof(key), "%u", n);
	return put(links, key, o) | bad;
}

static int gpu_error(json_object *o, const struct sn_nvml *nvml,
		     const struct sn_nvml_gpu *gpu)
{
	char msg[160];

	if (gpu->handle_rc != SN_NVML_SUCCESS)
		snprintf(msg, sizeof(msg), "nvmlDeviceGetHandleByIndex_v2: %s",
			 sn_nvml_error_string(nvml, gpu->handle_rc));
	else if (gpu->lost_call)
		snprintf(msg, sizeof(msg), "%s: %s", gpu->lost_call,
			 sn_nvml_error_string(nvml, gpu->lost_rc));
	else
		return put(o, "error", NULL);
	return put(o, "error", json_object_new_string(msg));
}

static json_object *gpu_json(const struct sn_nvml *nvml,
			     const struct sn_nvml_gpu *gpu)
{
	json_object *o = json_object_new_object(), *links;
	int bad = 0;

	if (!o)
		return NULL;
	bad |= put(o, "index", json_object_new_int64(gpu->index));
	bad |= put(o, "name", text_or_null(gpu->name_rc, gpu->name));
	bad |= put(o, "uuid", text_or_null(gpu->uuid_rc, gpu->uuid));
	bad |= gpu_error(o, nvml, gpu);
	bad |= put(o, "ecc_corrected_volatile",
		   u64_or_null(gpu->ecc_corrected.rc,
			       gpu->ecc_corrected.value));
	bad |= put(o, "ecc_uncorrected_volatile",
		   u64_or_null(gpu->ecc_uncorrected.rc,
			       gpu->ecc_uncorrected.value));
	bad |= put(o, "pcie_replay_counter",
		   u64_or_null(gpu->replay.rc, gpu->replay.value));
	bad |= put(o, "retired_pages_pending",
		   bool_or_null(gpu->retired_pending.rc,
				gpu->retired_pending.value != 0));
	bad |= put(o, "remapped_rows", remap_json(gpu));
	links = json_object_new_object();
	bad |= links ? put(o, "nvlink", links) : -1;
	for (unsigned int l = 0; links && l < gpu->n_links; l++)
		bad |= link_json(links, l, &gpu->links[l]);
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * The field values the epilog reads (issue 12), each a key of the GPU's
 * object: the generation (the NVLink version of link 0, else of the first
 * link that tells it: version_any_link), the NVLink data moved (KiB, all
 * links), the Hopper-and-later data-link error counters, the NVLink 5
 * counters, and the GPU recovery action.  A field the GPU or library does
 * not have (NOT_SUPPORTED, FUNCTION_NOT_FOUND) is left out, so the counter
 * does not exist there; any other failure is null.  The NVLink 5 COUNT
 * fields (bytes, errors, recovery events, BER) are read with the aggregate
 * scope, as DCGM does (NvmlFieldRequiresNvLinkAggregate).
 */
static const struct {
	const char *key;
	unsigned int id;
	unsigned int scope;
} gpu_fields[] = {
	{ "nvlink_version", SN_NVML_FI_DEV_NVLINK_GET_VERSION, 0 },
	{ "nvlink_data_tx_kib", SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_data_rx_kib", SN_NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_xmit_bytes", SN_NVML_FI_DEV_NVLINK_COUNT_XMIT_BYTES,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_rcv_bytes", SN_NVML_FI_DEV_NVLINK_COUNT_RCV_BYTES,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_dl_replay", SN_NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_dl_recovery", SN_NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_dl_crc", SN_NVML_FI_DEV_NVLINK_ERROR_DL_CRC,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_recovery_successful",
	  SN_NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_recovery_failed",
	  SN_NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_symbol_errors", SN_NVML_FI_DEV_NVLINK_COUNT_SYMBOL_ERRORS,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_effective_ber", SN_NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "nvlink_effective_errors",
	  SN_NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS,
	  SN_NVML_SCOPE_ALL_LINKS },
	{ "recovery_action", SN_NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0 },
};

#define N_GPU_FIELDS (sizeof(gpu_fields) / sizeof(gpu_fields[0]))

/* A version field that answered with a version (0 is NVML's INVALID). */
static bool version_answered(const struct sn_nvml_field *f)
{
	return f->rc == SN_NVML_SUCCESS && !f->negative && f->u &&
	       f->type != SN_NVML_VALUE_TYPE_DOUBLE;
}

/*
 * The GPU's NVLink version when link 0's field did not answer (link 0 down
 * or in error, a driver without field values): the field of links 1 to
 * n_links-1 (one call), else nvmlDeviceGetNvLinkVersion of links 0 to
 * n_links-1; the first that answers goes into *f.  When none does, *f
 * keeps link 0's field answer: the version is not known, and the epilog
 * then keeps the legacy counters as information (records/record.c).
 */
static void version_any_link(struct sn_nvml *nvml, unsigned int index,
			     unsigned int n_links, struct sn_nvml_field *f)
{
	struct sn_nvml_field lf[SN_MANIFEST_MAX_NVLINKS];
	unsigned int n = n_links ? n_links : 1, v;

	n = n < SN_MANIFEST_MAX_NVLINKS ? n : SN_MANIFEST_MAX_NVLINKS;
	for (unsigned int l = 1; l < n; l++)
		lf[l] = (struct sn_nvml_field){ .id = f->id, .scope = l };
	if (n > 1)
		sn_nvml_field_values(nvml, index, &lf[1], n - 1);
	for (unsigned int l = 1; l < n; l++)
		if (version_answered(&lf[l])) {
			*f = lf[l];
			return;
		}
	for (unsigned int l = 0; l < n; l++) {
		lf[0] = (struct sn_nvml_field){ .id = f->id, .scope = l };
		lf[0].rc = sn_nvml_nvlink_version(nvml, index, l, &v);
		lf[0].type = SN_NVML_VALUE_TYPE_UNSIGNED_INT;
		lf[0].u = v;
		if (version_answered(&lf[0])) {
			*f = lf[0];
			return;
		}
	}
}

static int fields_json(struct sn_nvml *nvml, const struct sn_nvml_gpu *gpu,
		       json_object *o)
{
	struct sn_nvml_field f[N_GPU_FIELDS];
	int bad = 0;

	for (size_t i = 0; i < N_GPU_FIELDS; i++)
		f[i] = (struct sn_nvml_field){ .id = gpu_fields[i].id,
					       .scope = gpu_fields[i].scope };
	sn_nvml_field_values(nvml, gpu->index, f, N_GPU_FIELDS);
	if (!version_answered(&f[0])) /* gpu_fields[0]: the version */
		version_any_link(nvml, gpu->index, gpu->n_links, &f[0]);
	for (size_t i = 0; i < N_GPU_FIELDS; i++) {
		if (f[i].rc == SN_NVML_ERROR_NOT_SUPPORTED ||
		    f[i].rc == SN_NVML_ERROR_FUNCTION_NOT_FOUND)
			continue;
		bad |= put(o, gpu_fields[i].key,
			   f[i].type == SN_NVML_VALUE_TYPE_DOUBLE ||
					   f[i].negative ?
				   NULL :
				   u64_or_null(f[i].rc, f[i].u));
	}
	return bad;
}

static int nvidia_devices(struct sn_nvml *nvml, json_object *root,
			  json_object *devices)
{
	struct sn_nvml_gpu *gpu = NULL;
	unsigned int count = 0;
	sn_nvml_return_t rc;
	char key[SN_BDF_SIZE];
	int bad = 0;

	rc = sn_nvml_device_count(nvml, &count);
	if (rc != SN_NVML_SUCCESS) {
		char msg[128];

		snprintf(msg, sizeof(msg), "nvmlDeviceGetCount_v2: %s",
			 sn_nvml_error_string(nvml, rc));
		return put(root, "error", json_object_new_string(msg));
	}
	gpu = malloc(sizeof(*gpu));
	if (!gpu)
		return -1;
	for (unsigned int i = 0;
	     i < count && i < SN_MANIFEST_MAX_ACCELS && !bad; i++) {
		json_object *o;

		sn_nvml_read_gpu(nvml, i, SN_NVML_READ_COUNTERS, gpu);
		if (gpu->bus_id[0])
			snprintf(key, sizeof(key), "%s", gpu->bus_id);
		else
			snprintf(key, sizeof(key), "index%u", i);
		o = gpu_json(nvml, gpu);
		if (o && gpu->handle_rc == SN_NVML_SUCCESS && !gpu->lost_call)
			bad |= fields_json(nvml, gpu, o);
		bad |= o ? put(devices, key, o) : -1;
	}
	free(gpu);
	return bad;
}

static int nvidia_counters(const struct sn_check_ctx *ctx, json_object *root,
			   json_object *devices)
{
	char driver[SN_NVML_DRIVER_VERSION_SIZE];
	struct sn_nvml *nvml = NULL;
	struct sn_error err;
	int bad = 0;

	if (sn_nvml_open(ctx->nvml, &nvml, &err)) {
		bad |= put(root, "driver", NULL);
		return bad |
		       put(root, "error", json_object_new_string(err.msg));
	}
	if (sn_nvml_driver_version(nvml, driver, sizeof(driver)) ==
	    SN_NVML_SUCCESS)
		bad |= put(root, "driver", json_object_new_string(driver));
	else
		bad |= put(root, "driver", NULL);
	bad |= put(root, "error", NULL);
	bad |= nvidia_devices(nvml, root, devices);
	sn_nvml_close(nvml);
	return bad;
}

static int pci_counters(const struct sn_check_ctx *ctx, json_object *root,
			json_object *devices)
{
	const struct sn_accel_manifest *m = &ctx->cfg->node.accel;
	struct sn_accel_pci_list *list = malloc(sizeof(*list));
	struct sn_error err;
	char id[16];
	int bad = 0;

	if (!list)
		return -1;
	bad |= put(root, "driver", NULL);
	if (sn_accel_pci_scan(ctx->sysfs, m->vendor, m->pci_vendor, list,
			      &err)) {
		bad |= put(root, "error", json_object_new_string(err.msg));
		goto out;
	}
	bad |= put(root, "error", NULL);
	for (size_t i = 0; i < list->count && !bad; i++) {
		json_object *o = json_object_new_object();

		if (!o) {
			bad = -1;
			break;
		}
		snprintf(id, sizeof(id), "%04x:%04x", list->items[i].vendor,
			 list->items[i].device);
		bad |= put(o, "index", json_object_new_int64((int64_t)i));
		bad |= put(o, "pci_id", json_object_new_string(id));
		bad |= put(devices, list->items[i].bdf, o);
	}
out:
	free(list);
	return bad;
}

json_object *sn_accel_counters_json(const struct sn_check_ctx *ctx)
{
	enum sn_accel_vendor vendor = ctx->cfg->node.accel.vendor;
	json_object *root = json_object_new_object(), *devices;
	int bad = 0;

	if (!root)
		return NULL;
	devices = json_object_new_object();
	bad |= put(root, "vendor",
		   json_object_new_string(sn_accel_vendor_name(vendor)));
	bad |= devices ? put(root, "devices", devices) : -1;
	if (bad)
		goto fail;
	if (sn_vendor_of(vendor)->api == SN_VENDOR_API_NVML)
		bad |= nvidia_counters(ctx, root, devices);
	else if (sn_vendor_of(vendor)->api == SN_VENDOR_API_LIB)
		bad |= sn_vendor_lib_counters(ctx, root, devices);
	else if (vendor != SN_ACCEL_NONE)
		bad |= pci_counters(ctx, root, devices);
	else
		bad |= put(root, "driver", NULL) | put(root, "error", NULL);
	if (bad)
		goto fail;
	return root;
fail:
	json_object_put(root);
	return NULL;
}
