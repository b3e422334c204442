/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The collective library's topology file against the node (sn_taskenv.h).
 * NCCL (and RCCL) read NCCL_TOPO_FILE from the environment, else from
 * ~/.nccl.conf or /etc/nccl.conf; a file that describes another node
 * shape fails the job at init far from the cause.  We never set one: we
 * say when the one a job would read does not match this node.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config/sn_vendor.h"
#include "util/sn_error.h"
#include "util/sn_file.h"
#include "env/sn_taskenv.h"

#define NCCL_CONF_DEFAULT "/etc/nccl.conf"
#define PCI_DEPTH 32 /* nested <pci> kept */

/* The value of attribute name in the tag starting at tag (up to '>'). */
static bool attr_of(const char *tag, const char *name, char *buf, size_t size)
{
	const char *end = strchr(tag, '>');
	size_t nl = strlen(name);

	for (const char *p = tag; p && (!end || p < end); p++) {
		const char *q;
		size_t len;

		p = strstr(p, name);
		if (!p || (end && p >= end))
			return false;
		if (!isspace((unsigned char)p[-1]) || strncmp(p + nl, "=\"", 2))
			continue;
		q = p + nl + 2;
		len = strcspn(q, "\">");
		if (q[len] != '"' || len >= size)
			return false;
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)tolower((unsigned char)q[i]);
		buf[len] = '\0';
		return true;
	}
	return false;
}

static bool tag_is(const char *p, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(p, name, n) &&
	       (isspace((unsigned char)p[n]) || p[n] == '>' || p[n] == '/');
}

/* Whether the tag starting at p ends with "/>" (no children). */
static bool self_closing(const char *p)
{
	const char *end = strchr(p, '>');

	return end && end > p && end[-1] == '/';
}

int sn_topofile_parse(const char *xml, struct sn_topofile *out)
{
	char stack[PCI_DEPTH][SN_BDF_SIZE];
	unsigned depth = 0;
	bool system = false;

	memset(out, 0, sizeof(*out));
	for (const char *p = strchr(xml, '<'); p; p = strchr(p + 1, '<')) {
		if (tag_is(p + 1, "system")) {
			system = true;
		} else if (tag_is(p + 1, "pci")) {
			char bus[SN_BDF_SIZE] = "";

			attr_of(p, "busid", bus, sizeof(bus));
			if (self_closing(p))
				continue;
			if (depth < PCI_DEPTH)
				memcpy(stack[depth], bus, sizeof(bus));
			depth++;
		} else if (!strncmp(p + 1, "/pci>", 5)) {
			depth -= depth > 0;
		} else if (tag_is(p + 1, "gpu")) {
			if (out->n_gpu_bus < SN_TOPOFILE_DEVS)
				snprintf(out->gpu_bus[out->n_gpu_bus++],
					 SN_BDF_SIZE, "%s",
					 depth && depth <= PCI_DEPTH ?
						 stack[depth - 1] :
						 "");
			out->n_gpus++;
		} else if (tag_is(p + 1, "net")) {
			out->n_nets++;
		}
	}
	return system ? 0 : -1;
}

bool sn_topofile_conf_value(const char *text, const char *name, char *buf,
			    size_t size)
{
	size_t nl = strlen(name);
	const char *next;

	/* next: the line after l, or NULL (no offset on NULL: UB) */
	for (const char *l = text; l && *l; l = next) {
		const char *p = l + strspn(l, " \t");
		size_t len;

		next = strchr(l, '\n');
		if (next)
			next++;
		if (strncmp(p, name, nl))
			continue;
		p += nl;
		p += strspn(p, " \t");
		if (*p != '=')
			continue;
		p++;
		p += strspn(p, " \t");
		len = strcspn(p, "\r\n");
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		snprintf(buf, size, "%.*s", (int)len, p);
		return true;
	}
	return false;
}

/* The GPU bus ids of the node that the file does not list, and back. */
static void bus_diff(const struct sn_taskenv_node *node,
		     const struct sn_topofile *f, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < node->gpus.n && used < size; i++) {
		bool in = false;

		for (unsigned k = 0; k < f->n_gpu_bus; k++)
			in |= !strcmp(f->gpu_bus[k], node->gpus.busid[i]);
		if (!in)
			used += (size_t)snprintf(buf + used, size - used,
						 "%s%s missing",
						 used ? ", " : "",
						 node->gpus.busid[i]);
	}
	for (unsigned k = 0; k < f->n_gpu_bus && used < size; k++) {
		bool in = false;

		for (unsigned i = 0; i < node->gpus.n; i++)
			in |= !strcmp(f->gpu_bus[k], node->gpus.busid[i]);
		if (!in)
			used += (size_t)snprintf(
				buf + used, size - used,
				"%s%s not on this node", used ? ", " : "",
				f->gpu_bus[k][0] ? f->gpu_bus[k] :
						   "a GPU without bus id");
	}
}

/* Which file the job would read, and from where; false: none. */
static bool topo_file_of(const struct sn_config *cfg, const char *var,
			 const char *user_value, char *path, size_t size,
			 char *from, size_t from_size)
{
	const char *conf = cfg->nccl_conf ? cfg->nccl_conf : NCCL_CONF_DEFAULT;
	char *text = NULL;
	bool found;

	if (user_value && *user_value) {
		snprintf(path, size, "%s", user_value);
		snprintf(from, from_size, "the job's environment");
		return true;
	}
	if (sn_file_read(conf, 64 * 1024, &text) < 0)
		return false; /* no site file: NCCL reads none either */
	found = sn_topofile_conf_value(text, var, path, size) && *path;
	free(text);
	snprintf(from, from_size, "%s", conf);
	return found;
}

/* Whether root or uid owns path (not followed); true when uid < 0. */
static bool owned_by(const char *path, long uid)
{
	struct stat st;

	if (uid < 0)
		return true;
	return !lstat(path, &st) && (st.st_uid == 0 || (long)st.st_uid == uid);
}

/* The note, built whole and cut by sn_error_cut (the one cut). */
static void note_set(struct sn_taskenv_node *node, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_set(struct sn_taskenv_node *node, const char *fmt, ...)
{
	struct sn_error whole;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(whole.msg, sizeof(whole.msg), fmt, ap);
	va_end(ap);
	sn_error_cut(node->topo_file_note, sizeof(node->topo_file_note),
		     whole.msg);
}

int sn_taskenv_topo_file_check(const struct sn_config *cfg,
			       const char *user_value, long user_uid,
			       struct sn_taskenv_node *node)
{
	const char *var = sn_vendor_of(cfg->node.accel.vendor)->topo_var;
	char path[512], from[256], diff[256];
	struct sn_topofile *f;
	unsigned gpus = node->gpus.from[0] ? node->gpus.n :
					     cfg->node.accel.count;
	char *xml = NULL;
	int rc = 0;

	node->topo_file_note[0] = '\0';
	if (!var || !topo_file_of(cfg, var, user_value, path, sizeof(path),
				  from, sizeof(from)))
		return 0;
	/* a user's file, read by root: theirs or root's, regular, no link,
	 * bounded */
	if (user_value && user_value[0] && !owned_by(path, user_uid)) {
		note_set(
			node,
			"%s %s (from %s) is not the job user's or root's: not read",
			var, path, from);
		return -1;
	}
	if (sn_file_read(path, SN_TOPOFILE_MAX + 1, &xml) < 0) {
		note_set(node, "%s %s (from %s) cannot be read", var, path,
			 from);
		return -1;
	}
	f = malloc(sizeof(*f));
	if (!f || strlen(xml) > SN_TOPOFILE_MAX || sn_topofile_parse(xml, f)) {
		note_set(node, "%s %s (from %s) is not an NCCL topology file%s",
			 var, path, from,
			 strlen(xml) > SN_TOPOFILE_MAX ? " (over 1 MiB)" : "");
		rc = -1;
		goto out;
	}
	diff[0] = '\0';
	if (node->gpus.from[0])
		bus_diff(node, f, diff, sizeof(diff));
	if ((gpus && f->n_gpus != gpus) ||
	    (node->ports_ok && f->n_nets != node->n_ports) || diff[0]) {
		note_set(
			node,
			"%s %s (from %s) lists %u GPUs and %u NICs, this node has %u and %zu%s%s%s",
			var, path, from, f->n_gpus, f->n_nets, gpus,
			node->n_ports, diff[0] ? " (" : "", diff,
			diff[0] ? ")" : "");
		rc = 1;
	}
out:
	free(f);
	free(xml);
	return rc;
}
