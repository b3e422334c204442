/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Node topology through hwloc 2.x (see sn_topo.h).
 *
 * References: hwloc documentation, "I/O Devices" (PCI devices, bridges and
 * OS devices; hwloc_get_next_pcidev(), hwloc_get_next_osdev(),
 * hwloc_get_non_io_ancestor_obj()), "Importing and exporting topologies
 * from/to XML files", and the hwloc 3.0 change of hwloc_obj_osdev_type_e
 * into a bit mask (STORAGE 1, MEMORY 2, GPU 4, COPROC 8, NETWORK 16,
 * OPENFABRICS 32, DMA 64), which is how 3.0 XML writes osdev_type.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hwloc.h>

#include "util/sn_file.h"
#include "inventory/sn_topo.h"

#define TOPO_MAX_DEPTH 128 /* ancestors walked per object; trees are ~15 deep */
#define TOPO_MAX_MEMORY_DEPTH 8 /* memory-side caches above a NUMA node */

struct sn_topo {
	hwloc_topology_t hw;
	struct sn_topo_accel accels[SN_MANIFEST_MAX_ACCELS];
	hwloc_obj_t accel_obj[SN_MANIFEST_MAX_ACCELS]; /* PCI functions */
	size_t n_accels;
	struct sn_topo_nic nics[SN_TOPO_MAX_NICS];
	hwloc_obj_t nic_obj[SN_TOPO_MAX_NICS]; /* PCI function (or OS device) */
	size_t n_nics;
	hwloc_bitmap_t cpu_nodes; /* NUMA nodes (OS indexes) that hold CPUs */
};

/* ---- reading and translating XML -------------------------------------- */

/* The major of <topology version="M.m">; 1 when the attribute is absent. */
static unsigned xml_major(const char *buf)
{
	const char *tag = strstr(buf, "<topology");
	const char *end, *ver;

	if (!tag)
		return 0;
	end = strchr(tag, '>');
	ver = strstr(tag, "version=\"");
	if (!end || !ver || ver > end)
		return 1;
	return (unsigned)strtoul(ver + 9, NULL, 10);
}

/* hwloc 3.0 osdev_type bit mask -> the hwloc 2.x enum value. */
static unsigned osdev_v3_to_v2(unsigned long mask)
{
	if (mask & 32)
		return HWLOC_OBJ_OSDEV_OPENFABRICS;
	if (mask & 8)
		return HWLOC_OBJ_OSDEV_COPROC;
	if (mask & 4)
		return HWLOC_OBJ_OSDEV_GPU;
	if (mask & 16)
		return HWLOC_OBJ_OSDEV_NETWORK;
	if (mask & 64)
		return HWLOC_OBJ_OSDEV_DMA;
	return HWLOC_OBJ_OSDEV_BLOCK; /* STORAGE, MEMORY */
}

/*
 * Translate a hwloc 3.0 XML export in place into what hwloc 2.x imports:
 * version="3.x" becomes "2.0" and every osdev_type="MASK" its 2.x value.
 * Attribute values never hold a raw '"' (XML escapes it), so the literal
 * 'osdev_type="' only occurs as an attribute.  The text only shrinks.
 */
static size_t xml_downgrade_v3(char *buf, size_t len)
{
	static const char key[] = "osdev_type=\"";
	const size_t klen = sizeof(key) - 1;
	char *tag = strstr(buf, "<topology");
	char *end_tag = tag ? strchr(tag, '>') : NULL;
	char *ver = end_tag ? strstr(tag, "version=\"3.") : NULL;
	size_t in = 0, out = 0;

	if (ver && ver < end_tag)
		memcpy(ver, "version=\"2.", 11);
	while (in < len) {
		unsigned long mask = 0;
		size_t digits = 0;

		if (strncmp(buf + in, key, klen)) {
			buf[out++] = buf[in++];
			continue;
		}
		while (digits < 10 &&
		       isdigit((unsigned char)buf[in + klen + digits]))
			mask = mask * 10 +
			       (unsigned long)(buf[in + klen + digits++] - '0');
		if (!digits || buf[in + klen + digits] != '"') {
			buf[out++] = buf[in++];
			continue;
		}
		/* key + one digit replaces key + at least one digit */
		memmove(buf + out, key, klen);
		out += klen;
		buf[out++] = (char)('0' + osdev_v3_to_v2(mask)); /* 0..5 */
		in += klen + digits; /* the closing quote is copied next */
	}
	buf[out] = '\0';
	return out;
}

/* Does the tag [tag, end) hold the attribute attr (' name="')?  Looks
 * inside the tag only. */
static int tag_has(const char *tag, const char *end, const char *attr)
{
	return memmem(tag, (size_t)(end - tag), attr, strlen(attr)) != NULL;
}

/*
 * hwloc sets bit os_index of a set for each PU and NUMA node it inserts: a
 * missing os_index (taken as 0xffffffff) or a huge one costs a 512 MiB
 * bitmap (found by fuzzing).  Real machines number PUs and NUMA nodes far
 * below this.
 */
#define TOPO_MAX_OS_INDEX (1u << 20)

/* A decimal attribute attr (' name="') of the tag [tag, end); -1 if absent
 * or not a number of at most 10 digits. */
static long long tag_number(const char *tag, const char *end, const char *attr)
{
	const char *p = memmem(tag, (size_t)(end - tag), attr, strlen(attr));
	long long v = 0;
	int n = 0;

	if (!p)
		return -1;
	for (p += strlen(attr); p < end && isdigit((unsigned char)*p) && n < 10;
	     p++, n++)
		v = v * 10 + (*p - '0');
	return n && p < end && *p == '"' ? v : -1;
}

/*
 * Every typed object but the I/O and Misc ones carries a cpuset, and a
 * NUMANode a nodeset too: lstopo writes them (and their complete_ twins),
 * and hwloc 2.9 dereferenced NULL in hwloc_bitmap_isequal on a NUMANode
 * without them (found by fuzzing).
 */
static int sets_missing(const char *tag, const char *end)
{
	static const char *const io[] = { " type=\"Bridge\"",
					  " type=\"PCIDev\"", " type=\"OSDev\"",
					  " type=\"Misc\"" };

	if (!tag_has(tag, end, " type=\"")) /* hwloc refuses it */
		return 0;
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		if (tag_has(tag, end, io[i]))
			return 0;
	if (!tag_has(tag, end, " cpuset=\""))
		return 1;
	return tag_has(tag, end, " type=\"NUMANode\"") &&
	       !tag_has(tag, end, " nodeset=\"");
}

/* A PU or NUMANode tag must give an os_index below TOPO_MAX_OS_INDEX. */
static int os_index_bad(const char *tag, const char *end)
{
	long long v;

	if (!tag_has(tag, end, " type=\"PU\"") &&
	    !tag_has(tag, end, " type=\"NUMANode\""))
		return 0;
	v = tag_number(tag, end, " os_index=\"");
	return v < 0 || v >= TOPO_MAX_OS_INDEX;
}

/*
 * A distance matrix of nbobjs objects: hwloc allocates nbobjs^2 values
 * before reading them, and an export writes each value (at least 2 bytes),
 * so a matrix larger than the file can hold is refused (nbobjs="50000"
 * would ask for 20 GB).  Linear: each "nbobjs=" once.
 */
static int distances_bad(const char *buf, size_t len, char *why, size_t size)
{
	static const char key[] = " nbobjs=\"";
	const char *p = buf, *stop = buf + len;

	while ((p = memmem(p, (size_t)(stop - p), key, sizeof(key) - 1))) {
		long long n = tag_number(p, stop, key); /* key is at p */

		if (n < 0 ||
		    (unsigned long long)n * (unsigned long long)n > len / 2) {
			snprintf(
				why, size,
				"distances of %lld objects do not fit in %zu bytes at byte %zu",
				n, len, (size_t)(p - buf));
			return -1;
		}
		p += sizeof(key) - 1;
	}
	return 0;
}

/*
 * A bitmap value as lstopo writes it: words joined by ',', each "0x" + 1 to
 * 16 hex digits or empty (a zero word), the first not empty and possibly
 * "0xf...f" (infinitely many bits set).  hwloc 2.9's hwloc_bitmap_sscanf()
 * fails an assert when the value starts with ',' (",x1": found by
 * fuzzing).  v points after the opening quote; returns the closing quote,
 * or NULL if the value is malformed.
 */
static const char *bitmap_end(const char *v, const char *stop)
{
	const char *p = v;

	for (;;) {
		size_t n = 0;

		if (p == v && stop - p >= 7 && !memcmp(p, "0xf...f", 7)) {
			p += 7;
		} else if (stop - p >= 2 && p[0] == '0' && p[1] == 'x') {
			for (p += 2;
			     p < stop && isxdigit((unsigned char)*p) && n < 16;
			     p++)
				n++;
			if (!n)
				return NULL;
		} else if (p == v) {
			return NULL; /* the first word is not empty */
		}
		if (p < stop && *p == '"')
			return p;
		if (p >= stop || *p != ',')
			return NULL;
		p++;
	}
}

/* Every cpuset and nodeset attribute (cpuset=, allowed_nodeset=, ...). */
static int bitmaps_bad(const char *buf, size_t len, char *why, size_t size)
{
	static const char key[] = "set=\"";
	const char *p = buf, *stop = buf + len;

	while ((p = memmem(p, (size_t)(stop - p), key, sizeof(key) - 1))) {
		const char *v = p + sizeof(key) - 1, *end;

		if ((p - buf >= 3 && !memcmp(p - 3, "cpu", 3)) ||
		    (p - buf >= 4 && !memcmp(p - 4, "node", 4))) {
			if (!(end = bitmap_end(v, stop))) {
				snprintf(
					why, size,
					"a malformed cpuset or nodeset at byte %zu",
					(size_t)(v - buf));
				return -1;
			}
			v = end;
		}
		p = v;
	}
	return 0;
}

/*
 * The objects must form one tree: hwloc 2.9 dereferenced NULL in
 * hwloc__insert_object_by_cpuset (found by fuzzing) on a file whose root
 * <object .../> closed at once and left the next objects outside it.  One
 * pass: depth counts "<object " tags not closed by "/>" and "</object>";
 * a second object at depth 0, or a "</object>" with none open, is refused.
 */
static int objects_bad(const char *buf, size_t len, char *why, size_t size)
{
	const char *p = buf, *stop = buf + len;
	size_t depth = 0, roots = 0;

	while ((p = memchr(p, '<', (size_t)(stop - p)))) {
		size_t left = (size_t)(stop - p);
		const char *end;

		if (left >= 9 && !memcmp(p, "</object>", 9)) {
			if (!depth) {
				snprintf(
					why, size,
					"</object> without an open object at byte %zu",
					(size_t)(p - buf));
				return -1;
			}
			depth--;
		} else if (left >= 8 && !memcmp(p, "<object ", 8)) {
			if (!(end = memchr(p, '>', left)))
				break; /* truncated: hwloc reports it */
			if (!depth && ++roots > 1) {
				snprintf(why, size,
					 "a second root object at byte %zu",
					 (size_t)(p - buf));
				return -1;
			}
			if (end[-1] != '/')
				depth++;
			p = end;
		}
		p++;
	}
	return 0;
}

/*
 * hwloc 2.9 dereferences NULL on an object that has a cpuset or nodeset
 * but not the matching complete_ set (found by fuzzing); every lstopo
 * export (1.x, 2.x, 3.0) writes both, so refuse files that do not.
 *
 * One pass over the buffer: each "<object " tag is looked at between its
 * '<' and its '>' only, and the search goes on after that '>' (a tag holds
 * no other tag: XML escapes '<' in attribute values).  So every byte is
 * read a bounded number of times, whatever the file holds: 1 MB of
 * garbage once took 20 s when each tag's attributes were searched for up
 * to the end of the file.  Returns 0, or -1 with why ("cpuset without
 * complete_cpuset at byte 762", short enough for a check result).
 */
static int xml_sane(const char *buf, size_t len, char *why, size_t size)
{
	static const char open_tag[] = "<object ";
	const char *tag = buf, *stop = buf + len;

	while ((tag = memmem(tag, (size_t)(stop - tag), open_tag,
			     sizeof(open_tag) - 1))) {
		const char *end = memchr(tag, '>', (size_t)(stop - tag));

		if (!end)
			break; /* truncated: hwloc reports it */
		const char *set = NULL;

		if (tag_has(tag, end, " cpuset=\"") &&
		    !tag_has(tag, end, " complete_cpuset=\""))
			set = "cpuset";
		else if (tag_has(tag, end, " nodeset=\"") &&
			 !tag_has(tag, end, " complete_nodeset=\""))
			set = "nodeset";
		if (set) {
			snprintf(why, size,
				 "%s without complete_%s at byte %zu", set, set,
				 (size_t)(tag - buf));
			return -1;
		}
		if (sets_missing(tag, end)) {
			snprintf(
				why, size,
				"an object without its cpuset or nodeset at byte %zu",
				(size_t)(tag - buf));
			return -1;
		}
		if (os_index_bad(tag, end)) {
			snprintf(
				why, size,
				"PU or NUMANode without an os_index below %u at byte %zu",
				TOPO_MAX_OS_INDEX, (size_t)(tag - buf));
			return -1;
		}
		tag = end + 1;
	}
	if (objects_bad(buf, len, why, size) ||
	    bitmaps_bad(buf, len, why, size))
		return -1;
	return distances_bad(buf, len, why, size);
}

/* ---- loading ---------------------------------------------------------- */

/* err = "bad hwloc XML file: WHY: PATH"; errno = EBADMSG. */
static int xml_bad(struct sn_error *err, const char *why, const char *path)
{
	sn_error_set(err, "bad hwloc XML file: %s: %s", why, path);
	errno = EBADMSG;
	return -1;
}

static int load_xml(hwloc_topology_t hw, const char *path, struct sn_error *err)
{
	char why[SN_FILE_WHY_MAX + 64];
	size_t len = 0;
	unsigned major;
	char *buf;
	int rc = -1, e;

	buf = sn_file_load_why(path, SN_TOPO_XML_MAX_BYTES, &len, why,
			       sizeof(why));
	if (!buf)
		return xml_bad(err, why, path);
	major = xml_major(buf);
	if (major == 3)
		len = xml_downgrade_v3(buf, len);
	if (xml_sane(buf, len, why, sizeof(why))) {
		xml_bad(err, why, path);
		goto out;
	}
	errno = 0;
	if (len > (size_t)0x7fffffff ||
	    hwloc_topology_set_xmlbuffer(hw, buf, (int)len + 1) ||
	    hwloc_topology_load(hw)) {
		snprintf(why, sizeof(why),
			 "hwloc %s refused it (format %u): %s", HWLOC_VERSION,
			 major, errno ? strerror(errno) : "invalid");
		xml_bad(err, why, path);
		goto out;
	}
	rc = 0;
out:
	e = errno;
	free(buf);
	errno = e;
	return rc;
}

/*
 * Components not used for live discovery: the GPU-library plugins (slow,
 * and they may hang on a sick GPU), and "pci" (libpciaccess: hwloc's Linux
 * backend reads the same PCI tree from sysfs, and libpciaccess leaks
 * memory on every load).
 */
static const char *const live_skip[] = {
	"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl", "pci",
};

static int load_live(hwloc_topology_t hw, struct sn_error *err)
{
	for (size_t i = 0; i < sizeof(live_skip) / sizeof(live_skip[0]); i++)
		hwloc_topology_set_components(
			hw, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
			live_skip[i]);
	if (hwloc_topology_set_flags(hw,
				     HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED) ||
	    hwloc_topology_load(hw)) {
		sn_error_set(err,
			     "hwloc %s: discovering this machine failed: %s",
			     HWLOC_VERSION, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- objects ---------------------------------------------------------- */

static void format_busid(hwloc_obj_t pci, char *out, size_t size)
{
	if (!pci || (pci->type != HWLOC_OBJ_PCI_DEVICE &&
		     pci->type != HWLOC_OBJ_BRIDGE)) {
		snprintf(out, size, "%s", "");
		return;
	}
	snprintf(out, size, "%04x:%02x:%02x.%x",
		 (unsigned)pci->attr->pcidev.domain, pci->attr->pcidev.bus,
		 pci->attr->pcidev.dev, pci->attr->pcidev.func);
}

/*
 * A NUMA node hwloc marks as memory no CPU sits in: an empty cpuset, or a
 * memory-tier subtype (hwloc >= 2.10 marks the tiers of a node that has
 * several; GPUMemory on POWER9 since 2.0; MCDRAM on KNL).
 */
static bool numa_memory_only(hwloc_obj_t numa)
{
	static const char *const kinds[] = {
		"GPUMemory", "HBM", "MCDRAM", "NVM", "SPM", "CXL-DRAM",
	};

	if (!numa->cpuset || hwloc_bitmap_iszero(numa->cpuset))
		return true;
	for (size_t i = 0;
	     numa->subtype && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(numa->subtype, kinds[i]))
			return true;
	return false;
}

/*
 * Of the NUMA nodes in one memory-children list (through memory-side
 * caches, at most TOPO_MAX_MEMORY_DEPTH deep), the one that holds the
 * CPUs: the lowest OS index not marked memory-only; best if none is lower.
 */
static hwloc_obj_t cpu_node_of(hwloc_obj_t first, unsigned depth,
			       hwloc_obj_t best)
{
	for (hwloc_obj_t m = first; m; m = m->next_sibling) {
		if (m->type != HWLOC_OBJ_NUMANODE) {
			if (depth < TOPO_MAX_MEMORY_DEPTH)
				best = cpu_node_of(m->memory_first_child,
						   depth + 1, best);
			continue;
		}
		if (!numa_memory_only(m) &&
		    (!best || m->os_index < best->os_index))
			best = m;
	}
	return best;
}

/*
 * The NUMA node that holds the CPU pu: the CPU-bearing node (cpu_node_of)
 * among the memory children of its nearest ancestor that has one; NULL if
 * none.
 */
static hwloc_obj_t pu_node(hwloc_obj_t pu)
{
	for (hwloc_obj_t o = pu; o; o = o->parent) {
		hwloc_obj_t n =
			o->memory_arity ?
				cpu_node_of(o->memory_first_child, 0, NULL) :
				NULL;

		if (n)
			return n;
	}
	return NULL;
}

/*
 * t->cpu_nodes: the NUMA nodes that hold CPUs.  A node without CPUs (GPU
 * memory on Grace Hopper or POWER9, HBM in flat mode, CXL expanders,
 * NVDIMMs) is never a device's or a task's locality.  hwloc attaches a
 * NUMA node to the object whose CPUs are near it and gives it their
 * cpuset, so a CPU-less node shares its object (and cpuset) with the node
 * that holds those CPUs; Linux puts a CPU in one NUMA node only, so of the
 * nodes of one object at most one holds CPUs: the lowest-numbered one not
 * marked memory-only (Linux numbers CPU-less memory after the CPUs' own:
 * GH200's GPU memory is 2-9 with the CPU's at 0).
 *
 * Only the node each CPU (PU) is nearest to counts: a node of an object
 * above every CPU's own node holds none of them.  hwloc hangs CPU-less
 * nodes whose locality it cannot tell off the Machine, with the Machine's
 * cpuset and no subtype (GPU memory on Grace-Hopper-class nodes); taken as
 * a CPU node it joined every package's locality ("NUMA 0,4"), so a GPU and
 * a NIC of different packages overlapped and a wrong pair was UNKNOWN
 * instead of CRIT (issue 17 item 14b).  One pass over the PUs, their
 * ancestors walked once per run of PUs under the same parent.  Returns 0,
 * or -1 when out of memory.
 */
static int collect_cpu_nodes(struct sn_topo *t)
{
	hwloc_obj_t pu = NULL, last_parent = NULL;

	t->cpu_nodes = hwloc_bitmap_alloc();
	if (!t->cpu_nodes)
		return -1;
	while ((pu = hwloc_get_next_obj_by_type(t->hw, HWLOC_OBJ_PU, pu))) {
		hwloc_obj_t n;

		if (pu->parent && pu->parent == last_parent)
			continue;
		last_parent = pu->parent;
		n = pu_node(pu);
		if (n && hwloc_bitmap_set(t->cpu_nodes, n->os_index))
			return -1;
	}
	return 0;
}

/*
 * The NUMA nodes with CPUs an I/O object is local to: its first non-I/O
 * ancestor's nodeset less the CPU-less nodes, into out (cleared first).
 * Returns 0, or -1 when there is none (out is then empty).
 */
static int local_nodes(const struct sn_topo *t, hwloc_obj_t obj,
		       hwloc_bitmap_t out)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t->hw, obj);

	hwloc_bitmap_zero(out);
	if (!anc || !anc->nodeset ||
	    hwloc_bitmap_and(out, anc->nodeset, t->cpu_nodes))
		return -1;
	return hwloc_bitmap_iszero(out) ? -1 : 0;
}

/* The one NUMA node with CPUs obj is local to; -1 if not exactly one. */
static int single_numa(const struct sn_topo *t, hwloc_obj_t obj)
{
	hwloc_bitmap_t ns = hwloc_bitmap_alloc();
	int numa = -1;

	if (!ns)
		return -1;
	if (!local_nodes(t, obj, ns) && hwloc_bitmap_weight(ns) == 1)
		numa = hwloc_bitmap_first(ns);
	hwloc_bitmap_free(ns);
	return numa;
}

static int has_coproc_osdev(hwloc_obj_t pci)
{
	static const char *const subtypes[] = {
		"CUDA", "OpenCL", "NVML", "RSMI", "LevelZero",
	};

	for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
		if (c->type != HWLOC_OBJ_OS_DEVICE)
			continue;
		if (c->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC)
			return 1;
		for (size_t i = 0;
		     c->subtype && i < sizeof(subtypes) / sizeof(subtypes[0]);
		     i++)
			if (!strcmp(c->subtype, subtypes[i]))
				return 1;
	}
	return 0;
}

static int is_accelerator(hwloc_obj_t pci, uint16_t vendor)
{
	unsigned cls = pci->attr->pcidev.class_id;

	if (vendor)
		return pci->attr->pcidev.vendor_id == vendor &&
		       ((cls >> 8) == 0x03 || (cls >> 8) == 0x12);
	if (cls == 0x0302 || cls == 0x0380 || (cls >> 8) == 0x12)
		return 1;
	return cls == 0x0300 && has_coproc_osdev(pci);
}

static int pci_cmp(hwloc_obj_t a, hwloc_obj_t b)
{
	const struct hwloc_pcidev_attr_s *x = &a->attr->pcidev;
	const struct hwloc_pcidev_attr_s *y = &b->attr->pcidev;

	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	if (x->bus != y->bus)
		return x->bus < y->bus ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return 0;
}

static int accel_obj_cmp(const void *a, const void *b)
{
	return pci_cmp(*(const hwloc_obj_t *)a, *(const hwloc_obj_t *)b);
}

static size_t collect_accels(struct sn_topo *t, uint16_t vendor)
{
	hwloc_obj_t pci = NULL;
	size_t npci = 0;

	while ((pci = hwloc_get_next_pcidev(t->hw, pci))) {
		npci++;
		if (is_accelerator(pci, vendor) &&
		    t->n_accels < SN_MANIFEST_MAX_ACCELS)
			t->accel_obj[t->n_accels++] = pci;
	}
	qsort(t->accel_obj, t->n_accels, sizeof(t->accel_obj[0]),
	      accel_obj_cmp);
	for (size_t i = 0; i < t->n_accels; i++) {
		struct sn_topo_accel *a = &t->accels[i];
		hwloc_obj_t o = t->accel_obj[i];

		a->index = (unsigned)i;
		format_busid(o, a->busid, sizeof(a->busid));
		a->vendor = o->attr->pcidev.vendor_id;
		a->device = o->attr->pcidev.device_id;
		a->pci_class = o->attr->pcidev.class_id;
		a->numa = single_numa(t, o);
	}
	return npci;
}

/* The first OS device of a type below a PCI function, or NULL. */
static hwloc_obj_t child_osdev(hwloc_obj_t parent, hwloc_obj_osdev_type_t type,
			       const char *prefix)
{
	for (hwloc_obj_t c = parent->io_first_child; c; c = c->next_sibling)
		if (c->type == HWLOC_OBJ_OS_DEVICE &&
		    c->attr->osdev.type == type && c->name &&
		    (!prefix || !strncmp(c->name, prefix, strlen(prefix))))
			return c;
	return NULL;
}

static void add_nic(struct sn_topo *t, hwloc_obj_t osdev, hwloc_obj_t netdev)
{
	hwloc_obj_t parent = osdev->parent;
	struct sn_topo_nic *n;

	if (t->n_nics >= SN_TOPO_MAX_NICS || !parent)
		return;
	n = &t->nics[t->n_nics];
	snprintf(n->name, sizeof(n->name), "%s", osdev->name);
	snprintf(n->netdev, sizeof(n->netdev), "%s",
		 netdev && netdev->name ? netdev->name : "");
	format_busid(parent, n->busid, sizeof(n->busid));
	n->numa = single_numa(t, osdev);
	t->nic_obj[t->n_nics++] = parent;
}

static int nic_cmp(const struct sn_topo_nic *a, const struct sn_topo_nic *b)
{
	int c = strcmp(a->busid, b->busid);

	return c ? c : strcmp(a->name, b->name);
}

/* Insertion sort of nics[] and nic_obj[] together (n <= SN_TOPO_MAX_NICS). */
static void sort_nics(struct sn_topo *t)
{
	for (size_t i = 1; i < t->n_nics; i++) {
		struct sn_topo_nic key = t->nics[i];
		hwloc_obj_t obj = t->nic_obj[i];
		size_t j = i;

		for (; j > 0 && nic_cmp(&t->nics[j - 1], &key) > 0; j--) {
			t->nics[j] = t->nics[j - 1];
			t->nic_obj[j] = t->nic_obj[j - 1];
		}
		t->nics[j] = key;
		t->nic_obj[j] = obj;
	}
}

static void collect_nics(struct sn_topo *t)
{
	hwloc_obj_t os = NULL;

	while ((os = hwloc_get_next_osdev(t->hw, os))) {
		hwloc_obj_t parent = os->parent;

		if (!os->name || !parent)
			continue;
		if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
			add_nic(t, os,
				child_osdev(parent, HWLOC_OBJ_OSDEV_NETWORK,
					    NULL));
		else if (os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK &&
			 !strncmp(os->name, "ib", 2) &&
			 !child_osdev(parent, HWLOC_OBJ_OSDEV_OPENFABRICS,
				      NULL))
			add_nic(t, os, os);
	}
	sort_nics(t);
}

struct sn_topo *sn_topo_open(const char *xml_path, uint16_t pci_vendor,
			     struct sn_error *err)
{
	struct sn_topo *t = calloc(1, sizeof(*t));
	const char *what = xml_path && *xml_path ? xml_path : "this machine";
	int e;

	if (!t) {
		sn_error_set(err, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (hwloc_topology_init(&t->hw)) {
		e = errno;
		sn_error_set(err, "hwloc_topology_init: %s", strerror(e));
		free(t);
		errno = e;
		return NULL;
	}
	hwloc_topology_set_io_types_filter(t->hw, HWLOC_TYPE_FILTER_KEEP_ALL);
	errno = 0;
	if (xml_path && *xml_path ? load_xml(t->hw, xml_path, err) :
				    load_live(t->hw, err))
		goto fail;
	if (collect_cpu_nodes(t)) {
		sn_error_set(err, "out of memory");
		errno = ENOMEM;
		goto fail;
	}
	if (!collect_accels(t, pci_vendor)) {
		sn_error_set(
			err,
			"the topology holds no PCI devices (exported without I/O, or /sys/bus/pci not visible): %s",
			what);
		errno = ENODATA;
		goto fail;
	}
	collect_nics(t);
	return t;
fail:
	e = errno ? errno : EINVAL;
	sn_topo_close(t);
	errno = e;
	return NULL;
}

void sn_topo_close(struct sn_topo *topo)
{
	if (!topo)
		return;
	if (topo->hw)
		hwloc_topology_destroy(topo->hw);
	hwloc_bitmap_free(topo->cpu_nodes);
	free(topo);
}

const struct sn_topo_accel *sn_topo_accels(const struct sn_topo *topo,
					   size_t *n)
{
	*n = topo->n_accels;
	return topo->accels;
}

const struct sn_topo_nic *sn_topo_nics(const struct sn_topo *topo, size_t *n)
{
	*n = topo->n_nics;
	return topo->nics;
}

static long nic_index(const struct sn_topo *topo, const char *name)
{
	if (!name || !*name)
		return -1;
	for (size_t i = 0; i < topo->n_nics; i++)
		if (!strcmp(topo->nics[i].name, name) ||
		    (topo->nics[i].netdev[0] &&
		     !strcmp(topo->nics[i].netdev, name)))
			return (long)i;
	return -1;
}

const struct sn_topo_nic *sn_topo_find_nic(const struct sn_topo *topo,
					   const char *name)
{
	long i = nic_index(topo, name);

	return i < 0 ? NULL : &topo->nics[i];
}

/* ---- nearness --------------------------------------------------------- */

/*
 * The lowest common ancestor of a and b; *hops = how many parents up from
 * a it is.  NULL if they share none within TOPO_MAX_DEPTH levels.
 */
static hwloc_obj_t common_ancestor(hwloc_obj_t a, hwloc_obj_t b, unsigned *hops)
{
	unsigned i = 0;

	for (hwloc_obj_t x = a; x && i < TOPO_MAX_DEPTH; x = x->parent, i++) {
		unsigned j = 0;

		for (hwloc_obj_t y = b; y && j < TOPO_MAX_DEPTH;
		     y = y->parent, j++)
			if (x == y) {
				*hops = i;
				return x;
			}
	}
	return NULL;
}

static int is_pcie_switch(hwloc_obj_t obj)
{
	return obj && obj->type == HWLOC_OBJ_BRIDGE &&
	       obj->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

int sn_topo_nearest_nics(const struct sn_topo *topo, unsigned accel_index,
			 char (*names)[SN_TOPO_NAME_MAX], size_t max)
{
	unsigned hops[SN_TOPO_MAX_NICS];
	unsigned best = ~0u;
	size_t written = 0;
	int found = 0;

	if (accel_index >= topo->n_accels)
		return -1;
	for (size_t i = 0; i < topo->n_nics; i++) {
		hops[i] = ~0u;
		if (common_ancestor(topo->accel_obj[accel_index],
				    topo->nic_obj[i], &hops[i]) &&
		    hops[i] < best)
			best = hops[i];
	}
	for (size_t i = 0; i < topo->n_nics; i++) {
		if (hops[i] != best || best == ~0u)
			continue;
		found++;
		if (written < max)
			snprintf(names[written++], SN_TOPO_NAME_MAX, "%s",
				 topo->nics[i].name);
	}
	return found;
}

/* "Package#1", "host bridge 0000:[d7-dd]", "PCIe switch 0000:01:00.0" */
static void describe(hwloc_obj_t obj, char *out, size_t size)
{
	char bus[SN_BDF_SIZE];

	if (!obj) {
		snprintf(out, size, "nothing");
	} else if (is_pcie_switch(obj)) {
		format_busid(obj, bus, sizeof(bus));
		snprintf(out, size, "PCIe switch %s", bus);
	} else if (obj->type == HWLOC_OBJ_BRIDGE) {
		snprintf(out, size, "host bridge %04x:[%02x-%02x]",
			 (unsigned)obj->attr->bridge.downstream.pci.domain,
			 obj->attr->bridge.downstream.pci.secondary_bus,
			 obj->attr->bridge.downstream.pci.subordinate_bus);
	} else {
		snprintf(out, size, "%s#%u", hwloc_obj_type_string(obj->type),
			 obj->logical_index);
	}
}

static enum sn_topo_answer near_switch(const struct sn_topo *topo, unsigned a,
				       size_t n, char *why, size_t size)
{
	const struct sn_topo_accel *acc = &topo->accels[a];
	const struct sn_topo_nic *nic = &topo->nics[n];
	hwloc_obj_t lca;
	unsigned hops;
	char where[64];

	lca = common_ancestor(topo->accel_obj[a], topo->nic_obj[n], &hops);
	describe(lca, where, sizeof(where));
	if (is_pcie_switch(lca)) {
		snprintf(why, size, "gpu%u %s and %s %s share %s", a,
			 acc->busid, nic->name, nic->busid, where);
		return SN_TOPO_YES;
	}
	snprintf(why, size,
		 "gpu%u %s and %s %s share no PCIe switch (they meet at %s)", a,
		 acc->busid, nic->name, nic->busid, where);
	return SN_TOPO_NO;
}

/* near_numa's comparison of the two CPU-bearing NUMA sets an and nn. */
static enum sn_topo_answer numa_compare(hwloc_const_bitmap_t an,
					hwloc_const_bitmap_t nn, unsigned a,
					const char *nic, char *why, size_t size)
{
	char as[32] = "?", ns[32] = "?";

	if (!hwloc_bitmap_iszero(an))
		hwloc_bitmap_list_snprintf(as, sizeof(as), an);
	if (!hwloc_bitmap_iszero(nn))
		hwloc_bitmap_list_snprintf(ns, sizeof(ns), nn);
	if (hwloc_bitmap_iszero(an) || hwloc_bitmap_iszero(nn)) {
		snprintf(
			why, size,
			"NUMA locality unknown: gpu%u on NUMA %s, %s on NUMA %s",
			a, as, nic, ns);
		return SN_TOPO_UNKNOWN;
	}
	if (hwloc_bitmap_isequal(an, nn)) {
		snprintf(why, size, "gpu%u and %s both on NUMA %s", a, nic, as);
		return SN_TOPO_YES;
	}
	snprintf(why, size, "gpu%u on NUMA %s, %s on NUMA %s", a, as, nic, ns);
	return hwloc_bitmap_intersects(an, nn) ? SN_TOPO_UNKNOWN : SN_TOPO_NO;
}

/* Same NUMA node(s), counting only the NUMA nodes that hold CPUs. */
static enum sn_topo_answer near_numa(const struct sn_topo *topo, unsigned a,
				     size_t n, char *why, size_t size)
{
	hwloc_bitmap_t an = hwloc_bitmap_alloc(), nn = hwloc_bitmap_alloc();
	enum sn_topo_answer ans = SN_TOPO_UNKNOWN;

	if (!an || !nn) {
		snprintf(why, size, "NUMA locality unknown: out of memory");
		goto out;
	}
	local_nodes(topo, topo->accel_obj[a], an);
	local_nodes(topo, topo->nic_obj[n], nn);
	ans = numa_compare(an, nn, a, topo->nics[n].name, why, size);
out:
	hwloc_bitmap_free(an);
	hwloc_bitmap_free(nn);
	return ans;
}

enum sn_topo_answer sn_topo_near(const struct sn_topo *topo,
				 unsigned accel_index, const char *nic,
				 enum sn_nearness how, char *why,
				 size_t why_size)
{
	char scratch[SN_TOPO_WHY_MAX];
	long n = nic_index(topo, nic);

	if (!why || !why_size) {
		why = scratch;
		why_size = sizeof(scratch);
	}
	if (accel_index >= topo->n_accels) {
		snprintf(why, why_size,
			 "no accelerator %u (%zu in the topology)", accel_index,
			 topo->n_accels);
		return SN_TOPO_UNKNOWN;
	}
	if (n < 0) {
		snprintf(why, why_size, "no NIC %.64s in the topology",
			 nic ? nic : "(null)");
		return SN_TOPO_UNKNOWN;
	}
	if (near_switch(topo, accel_index, (size_t)n, why, why_size) ==
	    SN_TOPO_YES)
		return SN_TOPO_YES;
	if (how == SN_NEAR_PCIE_SWITCH)
		return SN_TOPO_NO;
	return near_numa(topo, accel_index, (size_t)n, why, why_size);
}

const char *sn_topo_nearness_name(enum sn_nearness how)
{
	return how == SN_NEAR_NUMA ? "numa" : "pcie_switch";
}
