/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hwloc and libibverbs loaded on first use, not at program start.
 *
 * Every program and plugin used to carry libhwloc (libudev) and libibverbs
 * (libnl-3, libnl-route-3) in its DT_NEEDED, so sbatch and srun paid for
 * loading and relocating five libraries (and libnl's constructors) each
 * time they loaded supernode.so, and the prolog paid for them in every run
 * and in every check child it forks, though only the topology check and
 * the verbs cross-check of an InfiniBand port's MTU call them (and the
 * step's task environment, in the child that gathers the topology).
 *
 * This file defines the few hwloc_* and ibv_* functions lib/ calls
 * (util/sn_lazylib.h); each resolves the real one from the library's SONAME
 * (the one the build was made against) on its first call, with
 * dlopen(RTLD_NOW | RTLD_GLOBAL): the
 * scope a DT_NEEDED entry of the program had (hwloc's own plugins, e.g.
 * hwloc_pci.so, look for the core's symbols there).  Where the process has
 * the library already (slurmstepd links hwloc), that dlopen is a reference
 * count.  The libraries are the build's (sn_lazylib.h); no configured
 * path is involved.
 *
 * When a library cannot be loaded, the calls that start work
 * (hwloc_topology_init, hwloc_bitmap_alloc, ibv_get_device_list) fail as
 * the libraries document it (-1 / NULL) with errno ELIBACC, so callers
 * report "hwloc ...: Can not access a needed shared library"; the other
 * calls only take objects those returned, and still return a harmless
 * value (a name "" or "?", never NULL where a string is expected).
 */
#include <dlfcn.h>
#include <stddef.h>

#include <hwloc.h>
#include <infiniband/verbs.h>

#include "util/sn_lazylib.h"

/* verbs.h wraps these two in inline functions of the same name. */
#undef ibv_get_device_list
#undef ibv_query_port

static struct sn_lazylib lazy_hwloc = {
	.path = SN_HWLOC_PATH,
	.soname = SN_HWLOC_SONAME,
	.flags = RTLD_NOW | RTLD_GLOBAL,
};
static struct sn_lazylib lazy_verbs = {
	.path = SN_IBVERBS_PATH,
	.soname = SN_IBVERBS_SONAME,
	.version = "IBVERBS_1.1",
	.flags = RTLD_NOW | RTLD_GLOBAL,
};

/* ---- hwloc ---------------------------------------------------------- */

SN_LAZY(lazy_hwloc, int, hwloc_topology_init, (hwloc_topology_t * t), (t), -1)
SN_LAZY(lazy_hwloc, int, hwloc_topology_load, (hwloc_topology_t t), (t), -1)
SN_LAZY_VOID(lazy_hwloc, hwloc_topology_destroy, (hwloc_topology_t t), (t))
SN_LAZY(lazy_hwloc, int, hwloc_topology_set_xmlbuffer,
	(hwloc_topology_t t, const char *buf, int size), (t, buf, size), -1)
SN_LAZY(lazy_hwloc, int, hwloc_topology_set_flags,
	(hwloc_topology_t t, unsigned long flags), (t, flags), -1)
SN_LAZY(lazy_hwloc, int, hwloc_topology_set_components,
	(hwloc_topology_t t, unsigned long flags, const char *name),
	(t, flags, name), -1)
SN_LAZY(lazy_hwloc, int, hwloc_topology_set_io_types_filter,
	(hwloc_topology_t t, enum hwloc_type_filter_e filter), (t, filter), -1)
SN_LAZY(lazy_hwloc, int, hwloc_get_type_depth,
	(hwloc_topology_t t, hwloc_obj_type_t type), (t, type),
	HWLOC_TYPE_DEPTH_UNKNOWN)
SN_LAZY(lazy_hwloc, hwloc_obj_t, hwloc_get_obj_by_depth,
	(hwloc_topology_t t, int depth, unsigned idx), (t, depth, idx), NULL)
SN_LAZY(lazy_hwloc, const char *, hwloc_obj_type_string,
	(hwloc_obj_type_t type), (type), "?")
SN_LAZY(lazy_hwloc, hwloc_bitmap_t, hwloc_bitmap_alloc, (void), (), NULL)
SN_LAZY_VOID(lazy_hwloc, hwloc_bitmap_free, (hwloc_bitmap_t b), (b))
SN_LAZY_VOID(lazy_hwloc, hwloc_bitmap_zero, (hwloc_bitmap_t b), (b))
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_set, (hwloc_bitmap_t b, unsigned id),
	(b, id), -1)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_and,
	(hwloc_bitmap_t r, hwloc_const_bitmap_t a, hwloc_const_bitmap_t b),
	(r, a, b), -1)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_iszero, (hwloc_const_bitmap_t b), (b), 1)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_first, (hwloc_const_bitmap_t b), (b), -1)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_weight, (hwloc_const_bitmap_t b), (b), -1)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_intersects,
	(hwloc_const_bitmap_t a, hwloc_const_bitmap_t b), (a, b), 0)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_isequal,
	(hwloc_const_bitmap_t a, hwloc_const_bitmap_t b), (a, b), 0)
SN_LAZY(lazy_hwloc, int, hwloc_bitmap_list_snprintf,
	(char *buf, size_t len, hwloc_const_bitmap_t b), (buf, len, b), -1)

/* ---- libibverbs ------------------------------------------------------ */

SN_LAZY(lazy_verbs, struct ibv_device **, ibv_get_device_list, (int *n), (n),
	NULL)
SN_LAZY_VOID(lazy_verbs, ibv_free_device_list, (struct ibv_device * *list),
	     (list))
SN_LAZY(lazy_verbs, const char *, ibv_get_device_name, (struct ibv_device * d),
	(d), "")
SN_LAZY(lazy_verbs, struct ibv_context *, ibv_open_device,
	(struct ibv_device * d), (d), NULL)
SN_LAZY(lazy_verbs, int, ibv_close_device, (struct ibv_context * c), (c), -1)
SN_LAZY(lazy_verbs, int, ibv_query_port,
	(struct ibv_context * c, uint8_t port,
	 struct _compat_ibv_port_attr *attr),
	(c, port, attr), -1)
