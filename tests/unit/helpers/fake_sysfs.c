// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unit tests' fake sysfs trees (fake_sysfs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "helpers/fake_sysfs.h"

void tree_new(struct tree *t)
{
	snprintf(t->root, sizeof(t->root), "/tmp/sn-sysfs-XXXXXX");
	if (!mkdtemp(t->root))
		fail_msg("mkdtemp: %s", strerror(errno));
}

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

void tree_free(struct tree *t)
{
	if (t->root[0])
		nftw(t->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	t->root[0] = '\0';
}

void tree_path(const struct tree *t, const char *rel, char *buf)
{
	if (snprintf(buf, PATH_MAX, "%s/%s", t->root, rel) >= PATH_MAX)
		fail_msg("path too long: %s", rel);
}

static void mkdir_one(const char *path)
{
	if (mkdir(path, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

void tree_dir(const struct tree *t, const char *rel)
{
	char path[PATH_MAX];

	tree_path(t, rel, path);
	for (char *s = path + strlen(t->root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir_one(path);
		*s = '/';
	}
	mkdir_one(path);
}

static void tree_parent_dir(const struct tree *t, const char *rel)
{
	char parent[PATH_MAX];
	char *slash;

	snprintf(parent, sizeof(parent), "%s", rel);
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		tree_dir(t, parent);
	}
}

void tree_file(const struct tree *t, const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	if (!content)
		return;
	tree_parent_dir(t, rel);
	tree_path(t, rel, path);
	f = fopen(path, "w");
	if (!f)
		fail_msg("fopen %s: %s", path, strerror(errno));
	fputs(content, f);
	if (fclose(f))
		fail_msg("write %s: %s", path, strerror(errno));
}

void tree_filef(const struct tree *t, const char *content, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	tree_file(t, rel, content);
}

void tree_link(const struct tree *t, const char *rel, const char *target)
{
	char path[PATH_MAX];

	tree_parent_dir(t, rel);
	tree_path(t, rel, path);
	if (symlink(target, path))
		fail_msg("symlink %s: %s", path, strerror(errno));
}

void tree_remove(const struct tree *t, const char *rel)
{
	char path[PATH_MAX];

	tree_path(t, rel, path);
	if (remove(path))
		fail_msg("remove %s: %s", path, strerror(errno));
}

void tree_remove_all(const struct tree *t, const char *rel)
{
	char path[PATH_MAX];

	tree_path(t, rel, path);
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fail_msg("remove %s: %s", path, strerror(errno));
}

void tree_odd(const struct tree *t, const char *rel, const char *kind)
{
	char path[PATH_MAX];
	int rc;

	tree_path(t, rel, path);
	if (unlink(path))
		fail_msg("unlink %s: %s", path, strerror(errno));
	if (!strcmp(kind, "fifo"))
		rc = mkfifo(path, 0600);
	else if (!strcmp(kind, "folder"))
		rc = mkdir(path, 0700);
	else
		rc = symlink("nowhere", path);
	if (rc)
		fail_msg("%s %s: %s", kind, path, strerror(errno));
}

/* Copies one file of a fixture tree; content up to 64 KiB. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "r"), *out;

	if (!in)
		fail_msg("fopen %s: %s", from, strerror(errno));
	n = fread(buf, 1, sizeof(buf), in);
	if (ferror(in) || !feof(in))
		fail_msg("read %s: not a small regular file", from);
	fclose(in);
	out = fopen(to, "w");
	if (!out || fwrite(buf, 1, n, out) != n || fclose(out))
		fail_msg("write %s: %s", to, strerror(errno));
}

static const char *copy_src, *copy_dst;

static int copy_one(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	char to[PATH_MAX];

	(void)sb;
	(void)ftw;
	if (snprintf(to, sizeof(to), "%s%s", copy_dst,
		     path + strlen(copy_src)) >= (int)sizeof(to))
		fail_msg("path too long: %s", path);
	if (type == FTW_D)
		mkdir_one(to);
	else if (type == FTW_F)
		copy_file(path, to);
	else
		fail_msg("not a folder or a regular file: %s", path);
	return 0;
}

void tree_copy(const struct tree *t, const char *rel, const char *src)
{
	char dst[PATH_MAX];

	tree_parent_dir(t, rel);
	tree_path(t, rel, dst);
	copy_src = src;
	copy_dst = dst;
	if (nftw(src, copy_one, 16, FTW_PHYS))
		fail_msg("copy %s: %s", src, strerror(errno));
}

void ib_port_files(const struct tree *t, const char *dev, unsigned port,
		   const char *state, const char *phys, const char *rate,
		   const char *layer)
{
	const char *names[] = { "state", "phys_state", "rate", "link_layer" };
	const char *values[] = { state, phys, rate, layer };
	char rel[PATH_MAX], text[256];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u", dev, port);
	tree_dir(t, rel);
	for (size_t i = 0; i < 4; i++) {
		if (!values[i])
			continue;
		snprintf(text, sizeof(text), "%s\n", values[i]);
		tree_filef(t, text, "class/infiniband/%s/ports/%u/%s", dev,
			   port, names[i]);
	}
}

void ib_port_ndr(const struct tree *t, const char *dev)
{
	ib_port_files(t, dev, 1, "4: ACTIVE", "5: LinkUp",
		      "400 Gb/sec (4X NDR)", "InfiniBand");
}

void ib_gid(const struct tree *t, const char *dev, unsigned port,
	    unsigned index, const char *gid, const char *type, const char *ndev)
{
	char text[128];

	if (gid) {
		snprintf(text, sizeof(text), "%s\n", gid);
		tree_filef(t, text, "class/infiniband/%s/ports/%u/gids/%u", dev,
			   port, index);
	}
	if (type) {
		snprintf(text, sizeof(text), "%s\n", type);
		tree_filef(t, text,
			   "class/infiniband/%s/ports/%u/gid_attrs/types/%u",
			   dev, port, index);
	}
	if (ndev) {
		snprintf(text, sizeof(text), "%s\n", ndev);
		tree_filef(t, text,
			   "class/infiniband/%s/ports/%u/gid_attrs/ndevs/%u",
			   dev, port, index);
	}
}

void net_operstate(const struct tree *t, const char *ifname, const char *state)
{
	char text[64];

	snprintf(text, sizeof(text), "%s\n", state);
	tree_filef(t, text, "class/net/%s/operstate", ifname);
}

void pci_dev(const struct tree *t, const char *path, const char *cur_speed,
	     const char *max_speed, const char *cur_width,
	     const char *max_width)
{
	const char *names[] = { "current_link_speed", "max_link_speed",
				"current_link_width", "max_link_width" };
	const char *values[] = { cur_speed, max_speed, cur_width, max_width };
	const char *bdf = strrchr(path, '/');
	char rel[PATH_MAX], target[PATH_MAX], text[128];

	bdf = bdf ? bdf + 1 : path;
	snprintf(rel, sizeof(rel), "devices/%s", path);
	tree_dir(t, rel);
	for (size_t i = 0; i < 4; i++) {
		if (!values[i])
			continue;
		snprintf(text, sizeof(text), "%s\n", values[i]);
		tree_filef(t, text, "devices/%s/%s", path, names[i]);
	}
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	tree_path(t, rel, target);
	if (access(target, F_OK)) {
		snprintf(target, sizeof(target), "../../../devices/%s", path);
		tree_link(t, rel, target);
	}
}

void ib_dev_pci(const struct tree *t, const char *dev, const char *path)
{
	char rel[PATH_MAX], target[PATH_MAX];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", dev);
	snprintf(target, sizeof(target), "../../../devices/%s", path);
	tree_link(t, rel, target);
}
