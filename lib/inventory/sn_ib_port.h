/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_IB_PORT_H
#define SN_IB_PORT_H

/*
 * One RDMA port (InfiniBand or RoCE) read from sysfs, its GID table and
 * netdev, an optional libibverbs cross-check, and its counters as JSON.
 *
 * Source documents: Documentation/ABI/stable/sysfs-class-infiniband and
 * drivers/infiniband/core/sysfs.c (state_show "%d: %s", phys_state_show
 * "%u: %s", rate_show "%d%s Gb/sec (%dX%s)", link_layer_show, show_port_gid,
 * the gid_attrs/{types,ndevs} groups, the counters/ and hw_counters/
 * groups); Documentation/ABI/testing/sysfs-class-net (operstate).
 *
 * Layout, under <sysfs>/class/infiniband/<dev>/ports/<n>/:
 *   state       "4: ACTIVE"       (0 NOP, 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE,
 *                                  5 ACTIVE_DEFER)
 *   phys_state  "5: LinkUp"       (1 Sleep, 2 Polling, 3 Disabled,
 *                                  4 PortConfigurationTraining, 5 LinkUp,
 *                                  6 LinkErrorRecovery, 7 Phy Test,
 *                                  otherwise "<unknown>")
 *   rate        "400 Gb/sec (4X NDR)", "2.5 Gb/sec (1X SDR)"; old kernels
 *               without the speed name: "10 Gb/sec (4X)"
 *   link_layer  "InfiniBand" | "Ethernet" (| "Unknown")
 *   gids/<i>    "fe80:0000:0000:0000:0c42:a1ff:fe22:3344" (all zero: unused)
 *   gid_attrs/types/<i>  "IB/RoCE v1" | "RoCE v2" (EINVAL if unused)
 *   gid_attrs/ndevs/<i>  the netdev of the GID (EINVAL if none)
 * and the netdev state in <sysfs>/class/net/<if>/operstate.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "config/sn_manifest.h"
#include "inventory/sn_pcie.h"

#define SN_IB_DEV_MAX 64       /* RDMA device name, with NUL */
#define SN_IB_NAME_MAX 32      /* a state / phys_state name, with NUL */
#define SN_IB_SPEED_MAX 8      /* "SDR".."XDR", "FDR10", with NUL */
#define SN_IB_TEXT_MAX 64      /* first line of an attribute, as read */
#define SN_IB_GID_MAX 256      /* GID table entries looked at, at most */
#define SN_IB_COUNTERS_MAX 256 /* files per counters directory, at most */
#define SN_IFNAME_MAX 16       /* IFNAMSIZ */

#define SN_IB_STATE_ACTIVE 4 /* state number of an ACTIVE port */
#define SN_IB_STATE_INIT 2
#define SN_IB_PHYS_POLLING 2
#define SN_IB_PHYS_LINKUP 5 /* phys_state number of a trained link */

/* One attribute as read: status and its first line ("" unless read). */
struct sn_ib_attr {
	enum sn_attr status; /* SN_ATTR_BAD: read but not parsable */
	char text[SN_IB_TEXT_MAX];
};

/*
 * struct sn_ib_port - one port, parsed.  A parsed member is valid only when
 * the status of its attribute is SN_ATTR_OK.  No pointers; no cleanup.
 */
struct sn_ib_port {
	char dev[SN_IB_DEV_MAX]; /* "mlx5_2" */
	unsigned port;		 /* 1-based */
	bool dev_present;	 /* class/infiniband/<dev>/ is a directory */
	bool present;		 /* .../ports/<port>/ is a directory */

	struct sn_ib_attr state;	 /* "4: ACTIVE"; BAD for "9: ACTIVE" */
	int state_num;			 /* 4 */
	char state_name[SN_IB_NAME_MAX]; /* "ACTIVE" */

	struct sn_ib_attr phys;		/* "5: LinkUp" */
	unsigned phys_num;		/* 5 */
	char phys_name[SN_IB_NAME_MAX]; /* "LinkUp", "<unknown>" */

	struct sn_ib_attr rate;	     /* "400 Gb/sec (4X NDR)" */
	double rate_gbps;	     /* 400.0, 2.5; Gb/s (10^9 bit/s) */
	unsigned width;		     /* lanes: 1, 2, 4, 8 or 12 */
	char speed[SN_IB_SPEED_MAX]; /* "NDR"; "" on old kernels */

	struct sn_ib_attr link_layer; /* "InfiniBand" */
	enum sn_link_layer layer;     /* BAD for "Unknown" */
};

/*
 * sn_ib_parse_state - parse "%d: %s" (state) into its number and name;
 * a bare number gets the kernel's name for it.  Returns 0, -1 if malformed.
 */
int sn_ib_parse_state(const char *text, int *num, char name[SN_IB_NAME_MAX]);

/* sn_ib_parse_phys - same for phys_state "%u: %s" ("0: <unknown>"). */
int sn_ib_parse_phys(const char *text, unsigned *num,
		     char name[SN_IB_NAME_MAX]);

/*
 * sn_ib_parse_rate - parse "%d%s Gb/sec (%dX%s)": the rate in Gb/s (with
 * its ".5" if any), the width (1, 2, 4, 8, 12) and the speed name ("" when
 * absent).  Returns 0, -1 if malformed or the width is not an IB width.
 */
int sn_ib_parse_rate(const char *text, double *gbps, unsigned *width,
		     char speed[SN_IB_SPEED_MAX]);

/* sn_ib_state_name / sn_ib_phys_name - the kernel's names; "<unknown>" else. */
const char *sn_ib_state_name(int num);
const char *sn_ib_phys_name(unsigned num);

/*
 * sn_ib_state_known / sn_ib_phys_known - whether the number is in the
 * kernel's table: state 0 (NOP) .. 5 (ACTIVE_DEFER), phys_state 0
 * ("<unknown>", the kernel's own entry) .. 7 (Phy Test).  sn_ib_port_read()
 * gives SN_ATTR_BAD for a number outside them, whatever name follows it.
 */
bool sn_ib_state_known(int num);
bool sn_ib_phys_known(unsigned num);

/*
 * sn_ib_port_read - read state, phys_state, rate and link_layer of
 * <sysfs>/class/infiniband/<dev>/ports/<port>/.  Never crashes on a
 * missing, empty or odd file: each carries its own status.
 * Returns 0; -1 with errno EINVAL (bad device name, port 0) or
 * ENAMETOOLONG (path does not fit PATH_MAX).
 */
int sn_ib_port_read(const char *sysfs, const char *dev, unsigned port,
		    struct sn_ib_port *out);

/* One GID table entry and its attributes. */
struct sn_ib_gid {
	unsigned index;
	enum sn_attr status;	   /* gids/<i> */
	bool empty;		   /* all-zero GID: unused entry */
	char gid[SN_IB_TEXT_MAX];  /* as read */
	enum sn_attr type_status;  /* gid_attrs/types/<i> */
	char type[SN_IB_NAME_MAX]; /* "IB/RoCE v1", "RoCE v2" */
	enum sn_attr ndev_status;  /* gid_attrs/ndevs/<i> */
	char ndev[SN_IFNAME_MAX];  /* "bond0" */
};

/* sn_ib_gid_read - read GID entry index of a port; returns 0, -1 (EINVAL). */
int sn_ib_gid_read(const char *sysfs, const char *dev, unsigned port,
		   unsigned index, struct sn_ib_gid *out);

/* sn_ib_gid_is_roce_v2 - a used entry whose type reads "RoCE v2". */
bool sn_ib_gid_is_roce_v2(const struct sn_ib_gid *g);

/*
 * sn_ib_find_roce_v2 - the first used RoCE v2 entry of the port's GID
 * table (indexes 0 .. SN_IB_GID_MAX - 1, stopping at the first missing
 * gids/<i>), into out.  Returns its index; -1 when the table has none;
 * -2 when the table cannot be read at all (no gids/0).
 */
int sn_ib_find_roce_v2(const char *sysfs, const char *dev, unsigned port,
		       struct sn_ib_gid *out);

/*
 * sn_ib_port_netdev - the network interface of a port: the netdev of GID
 * gid_index (when >= 0 and it names one), else of the first used GID that
 * names one, else the first entry, by name, of
 * <sysfs>/class/infiniband/<dev>/device/net/.
 * Returns SN_ATTR_OK with ifname set, or SN_ATTR_MISSING.
 */
enum sn_attr sn_ib_port_netdev(const char *sysfs, const char *dev,
			       unsigned port, int gid_index,
			       char ifname[SN_IFNAME_MAX]);

/*
 * sn_net_operstate - <sysfs>/class/net/<ifname>/operstate ("up", "down",
 * "lowerlayerdown", "dormant", "unknown", ...) into buf of size bytes.
 */
enum sn_attr sn_net_operstate(const char *sysfs, const char *ifname, char *buf,
			      size_t size);

/* A port as libibverbs sees it (ibv_query_port). */
struct sn_ib_verbs {
	int state;     /* enum ibv_port_state: same numbers as sysfs */
	unsigned phys; /* phys_state: same numbers as sysfs */
	enum sn_link_layer layer; /* IBV_LINK_LAYER_UNSPECIFIED counts as IB */
	unsigned width;		  /* lanes, from active_width */
	int active_mtu_enum;	  /* enum ibv_mtu as answered: 1..5 */
	unsigned active_mtu;	  /* bytes, 256..4096; 0 when not 1..5 */
};

/*
 * sn_ib_port_verbs - query a port of the live system through libibverbs
 * (ibv_get_device_list, ibv_open_device, ibv_query_port).  Only meaningful
 * when sysfs is /sys.  Returns 0; -1 with errno ENODEV (device not listed:
 * no provider library, or no such device), EINVAL (no such port), or the
 * error of ibv_open_device / ibv_query_port.
 */
int sn_ib_port_verbs(const char *dev, unsigned port, struct sn_ib_verbs *out);

/* ---- path MTU ---------------------------------------------------------- */

#define SN_IB_MTU_MIN 256  /* IB_MTU_256, bytes */
#define SN_IB_MTU_MAX 4096 /* IB_MTU_4096, bytes */
/*
 * A tree other than /sys (a fixture) cannot be asked through libibverbs or
 * getifaddrs(): what those answer on a live node is read from files of
 * <sysfs>/supernode-live/ instead, a folder no kernel makes:
 *   verbs/<dev>/<port>/active_mtu  "4096"  (bytes, as ibv_devinfo prints it)
 *   ifaddrs/<ifname>               one address a line, "10.0.0.7/24",
 *                                  "fe80::1/64" (as `ip -o addr` shows them)
 */
#define SN_LIVE_DIR "supernode-live"

/*
 * sn_ib_mtu_bytes - enum ib_mtu / enum ibv_mtu (1 = 256 .. 5 = 4096) in
 * bytes; 0 for any other number.
 */
unsigned sn_ib_mtu_bytes(int mtu_enum);

/*
 * sn_roce_path_mtu - the path MTU, in bytes, of a RoCE port whose netdev
 * has MTU netdev_mtu (bytes), as the kernel derives it (iboe_get_mtu()):
 * 4096, 2048, 1024, 512 or 256; 0 when the netdev leaves less than 256.
 */
unsigned sn_roce_path_mtu(long netdev_mtu);

/*
 * struct sn_port_mtu - a port's RDMA path MTU and where it came from.
 * No pointers; no cleanup.
 */
struct sn_port_mtu {
	enum sn_attr status;	    /* OK: path_mtu (and netdev_mtu) valid;
			      * MISSING with ifname "": no netdev found */
	unsigned path_mtu;	    /* bytes: 256..4096; 0 (RoCE): below 256 */
	long netdev_mtu;	    /* RoCE: the netdev's MTU in bytes; IB: 0 */
	char ifname[SN_IFNAME_MAX]; /* RoCE: the GID's netdev */
	const char *attr;	    /* what was read: "active_mtu", "mtu",
				     * "verbs" (static) */
	char text[SN_IB_TEXT_MAX];  /* BAD: as read; NOT_REGULAR: its kind;
				     * verbs failing: strerror() */
	char path[PATH_MAX];	    /* the file read; "" for verbs */
};

/*
 * sn_ib_port_mtu - the path MTU of port of RDMA device dev.
 * InfiniBand: the active MTU; verbs is the one source (sysfs has no MTU
 * attribute for IB ports), asked when sysfs is "/sys", else
 * <sysfs>/supernode-live/verbs/<dev>/<port>/active_mtu.
 * Ethernet (RoCE): derived from <sysfs>/class/net/<if>/mtu of the port's
 * netdev (sn_ib_port_netdev() with gid_index) by sn_roce_path_mtu(), what
 * the drivers answer through verbs too (mlx5: active_mtu is
 * min(max_mtu, iboe_get_mtu(netdev mtu))).
 * Returns 0 (each failure is in out->status); -1 with errno EINVAL for a
 * bad device name or port 0.
 */
int sn_ib_port_mtu(const char *sysfs, const char *dev, unsigned port,
		   enum sn_link_layer layer, int gid_index,
		   struct sn_port_mtu *out);

/*
 * sn_ib_port_counters_json - the port's counters, for the epilog's
 * baseline: {"counters": {name: uint64 | null}, "hw_counters": {...}}
 * (and "counters_ext": {...} when the port has counters_ext/, the older
 * kernels' 64-bit port_{xmit,rcv}_{data,packets}_64 and friends)
 * with every regular file of ports/<port>/counters/ and hw_counters/,
 * names sorted, at most SN_IB_COUNTERS_MAX per directory (the rest are
 * left out).  A value is null when the file cannot be read or is not a
 * decimal uint64 (e.g. "N/A (no PMA)").  A missing directory gives {}.
 *
 * Returns a new object (caller puts it with json_object_put); NULL with
 * errno set if the port does not exist (ENOENT), arguments are invalid
 * (EINVAL) or memory runs out (ENOMEM).
 */
json_object *sn_ib_port_counters_json(const char *sysfs, const char *dev,
				      unsigned port);

#endif
