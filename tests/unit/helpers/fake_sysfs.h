/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one fake-sysfs builder of the unit tests (linked into every unit
 * test): a temporary folder per test, files and relative symlinks laid out
 * as the kernel lays them out, removed at the end.  Every helper fails the
 * running cmocka test (fail_msg) when the file system refuses, so a test
 * never runs on a half-built tree.
 *
 *   struct tree t; tree_new(&t);
 *   ib_port_files(&t, "mlx5_0", 1, "4: ACTIVE", "5: LinkUp",
 *                 "400 Gb/sec (4X NDR)", "InfiniBand");
 *   pci_dev(&t, "pci0000:00/0000:59:01.0/0000:5a:00.0", "16.0 GT/s PCIe",
 *           "32.0 GT/s PCIe", "16", "16");
 *   ... t.root is the sysfs root ...
 *   tree_free(&t);
 *
 * Its bash counterpart for the integration tests,
 * contrib/local-cluster/fake-sysfs.sh, builds the same layout: its ib_port
 * writes class/infiniband/<dev>/ports/<n>/{state,phys_state,rate,link_layer},
 * one value and a newline each, exactly as ib_port_files() here, and adds
 * zeroed counters/ for the epilog; the PCI devices, links, GIDs and netdevs
 * below are built by this helper only (no integration test needs them).
 * Change both together.
 */
#ifndef SN_FAKE_SYSFS_H
#define SN_FAKE_SYSFS_H

/* A temporary tree; root is "/tmp/sn-sysfs-XXXXXX" once made, "" after. */
struct tree {
	char root[64];
};

/* Make a fresh empty tree. */
void tree_new(struct tree *t);
/* Remove the tree and everything in it (links are not followed). */
void tree_free(struct tree *t);
/* <root>/<rel> into buf (PATH_MAX bytes). */
void tree_path(const struct tree *t, const char *rel, char *buf);
/* mkdir -p <root>/<rel>, mode 0755. */
void tree_dir(const struct tree *t, const char *rel);
/* Write <root>/<rel> with exactly content, parents made; NULL: nothing. */
void tree_file(const struct tree *t, const char *rel, const char *content);
/* tree_file with a printf-style rel. */
void tree_filef(const struct tree *t, const char *content, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* <root>/<rel> -> target (relative, as in sysfs), parents made. */
void tree_link(const struct tree *t, const char *rel, const char *target);
/* Remove <root>/<rel>: one file, link or empty folder. */
void tree_remove(const struct tree *t, const char *rel);
/* Remove <root>/<rel> and all below it (links are not followed). */
void tree_remove_all(const struct tree *t, const char *rel);
/*
 * Replace the file <root>/<rel> by something that is not a regular file:
 * kind "fifo", "folder" or "link" (a dangling link).
 */
void tree_odd(const struct tree *t, const char *rel, const char *kind);
/* Copy the folder src (a fixture tree: folders and files) to <root>/<rel>. */
void tree_copy(const struct tree *t, const char *rel, const char *src);

/*
 * One port under class/infiniband/<dev>/ports/<port>/; each value is
 * written with a trailing newline as the kernel does; NULL: no such file.
 */
void ib_port_files(const struct tree *t, const char *dev, unsigned port,
		   const char *state, const char *phys, const char *rate,
		   const char *layer);
/* A healthy NDR port: <dev> port 1, ACTIVE, LinkUp, 400 Gb/sec, InfiniBand. */
void ib_port_ndr(const struct tree *t, const char *dev);
/* GID entry index: gids/<i>, gid_attrs/types/<i>, gid_attrs/ndevs/<i>. */
void ib_gid(const struct tree *t, const char *dev, unsigned port,
	    unsigned index, const char *gid, const char *type,
	    const char *ndev);
/* class/net/<ifname>/operstate holding state. */
void net_operstate(const struct tree *t, const char *ifname, const char *state);
/*
 * A PCI device at devices/<path> (e.g. "pci0000:00/0000:59:01.0/0000:5a:00.0")
 * with its bus/pci/devices/<bdf> symlink; NULL attributes are not written.
 */
void pci_dev(const struct tree *t, const char *path, const char *cur_speed,
	     const char *max_speed, const char *cur_width,
	     const char *max_width);
/* class/infiniband/<dev>/device -> the PCI device at devices/<path>. */
void ib_dev_pci(const struct tree *t, const char *dev, const char *path);

#endif
