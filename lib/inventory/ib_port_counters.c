/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An RDMA port's counters as JSON, for the epilog's baseline (sn_ib_port.h).
 * Apart from ib_port.c so that what links the port readings without the
 * baseline (supernode.so, loaded by sbatch and srun) does not need json-c.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "inventory/ib_port_private.h"
#include "inventory/sn_ib_port.h"
#include "inventory/sn_pcie.h"

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* ---- counters ---------------------------------------------------------- */

/* Strict decimal uint64 ("N/A (no PMA)" and overflow are refused). */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = strlen(s);

	if (!n || n > 20 || strspn(s, "0123456789") != n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static json_object *counter_value(const char *dir, const char *name)
{
	char path[PATH_MAX], text[SN_IB_TEXT_MAX];
	uint64_t v;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >=
		    (int)sizeof(path) ||
	    sn_attr_read_line(path, text, sizeof(text)) != SN_ATTR_OK ||
	    parse_u64(text, &v))
		return NULL; /* JSON null */
	return json_object_new_uint64(v);
}

static bool regular_entry(DIR *d, const struct dirent *de)
{
	struct stat sb;

	if (de->d_name[0] == '.')
		return false;
	if (de->d_type == DT_REG)
		return true;
	if (de->d_type != DT_UNKNOWN && de->d_type != DT_LNK)
		return false;
	return !fstatat(dirfd(d), de->d_name, &sb, 0) && S_ISREG(sb.st_mode);
}

/* Sorted regular-file names of dir, at most SN_IB_COUNTERS_MAX; 0 if none. */
static size_t counter_names(const char *dir, char (*names)[NAME_MAX + 1])
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while (n < SN_IB_COUNTERS_MAX && (de = readdir(d)))
		if (regular_entry(d, de))
			snprintf(names[n++], NAME_MAX + 1, "%s", de->d_name);
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	return n;
}

static json_object *counters_dir(const char *dir)
{
	char(*names)[NAME_MAX + 1] = calloc(SN_IB_COUNTERS_MAX, sizeof(*names));
	json_object *obj = json_object_new_object();
	size_t n;

	if (!names || !obj)
		goto fail;
	n = counter_names(dir, names);
	for (size_t i = 0; i < n; i++) {
		json_object *v = counter_value(dir, names[i]);

		if (json_object_object_add(obj, names[i], v)) {
			json_object_put(v);
			goto fail;
		}
	}
	free(names);
	return obj;
fail:
	free(names);
	json_object_put(obj);
	return NULL;
}

json_object *sn_ib_port_counters_json(const char *sysfs, const char *dev,
				      unsigned port)
{
	/*
	 * counters_ext/ (PortCountersExtended beside PortCounters on older
	 * kernels: port_{xmit,rcv}_data_64, ...) only when the port has it.
	 */
	static const char *const groups[] = { "counters", "counters_ext",
					      "hw_counters" };
	json_object *root = NULL, *group;
	char path[PATH_MAX];

	if (!sysfs || !sn_ib_port_dev_name_ok(dev) || !port) {
		errno = EINVAL;
		return NULL;
	}
	if (sn_ib_port_path(path, sizeof(path), sysfs, dev, port, NULL) ||
	    !sn_ib_port_is_dir(path)) {
		errno = ENOENT;
		return NULL;
	}
	if (!(root = json_object_new_object()))
		goto oom;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		if (sn_ib_port_path(path, sizeof(path), sysfs, dev, port,
				    groups[i]))
			goto oom;
		if (!strcmp(groups[i], "counters_ext") &&
		    !sn_ib_port_is_dir(path))
			continue;
		if (!(group = counters_dir(path)))
			goto oom;
		if (json_object_object_add(root, groups[i], group)) {
			json_object_put(group);
			goto oom;
		}
	}
	return root;
oom:
	json_object_put(root);
	errno = ENOMEM;
	return NULL;
}
