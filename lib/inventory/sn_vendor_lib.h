/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_VENDOR_LIB_H
#define SN_VENDOR_LIB_H

/*
 * The vendors' management libraries (DCMI, ROCm SMI, CNDev, MTML, MXSML,
 * XPUML), one backend each behind one interface: the other half of the
 * vendor table (config/sn_vendor.h), indexed by the same enum.  NVIDIA is
 * read through inventory/sn_nvml.h; vendors without a library (amd,
 * other) have no backend.
 *
 * A backend fills one struct sn_vendor_node: the library's device count,
 * and per device its PCI bus id, the vendor's health verdict with the
 * vendor's own reason, ECC, links and their error counters.  It never
 * judges against the manifest: checks/check_accel.c does.
 *
 * Every library call a backend makes goes through SN_VCALL(): it names
 * the call for the watchdog.  sn_vendor_lib_read() runs the backend in a
 * child process; a call that does not return within its limit (1 s, as
 * MindCluster's DcmiApiTimeout; dcmi_get_device_network_health blocks
 * after a card drops) ends the child with what was read so far and
 * hung_call naming it.  The caller never waits past its own deadline.
 *
 * The library is dlopen()ed through sn_safedir_dlopen() (the trust check
 * every configured library passes), from ctx->accel_lib or else the
 * vendor's lib_defaults in order; it is never linked.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "config/sn_checkctx.h"
#include "config/sn_vendor.h"
#include "util/sn_error.h"
#include "inventory/sn_pcie.h"

#define SN_VENDOR_MAX_DEVS 64  /* devices read per node */
#define SN_VENDOR_MAX_LINKS 16 /* links read per device (HCCS has 16) */
#define SN_VENDOR_MAX_CTRS 4   /* error counters kept per link */
#define SN_VENDOR_CTR_NAME 20  /* "fec_uncorrected" */
#define SN_VENDOR_TEXT 96      /* reasons and errors, cut there */
#define SN_VENDOR_CALL_MS 1000 /* the watchdog's limit per call */

/* A vendor's verdict, mapped; UNREAD = not asked or not answered. */
enum sn_vendor_health {
	SN_VHEALTH_UNREAD = 0,
	SN_VHEALTH_OK,
	SN_VHEALTH_WARN,
	SN_VHEALTH_CRIT,
};

/* A link's state, mapped from the vendor's words (state_text keeps them). */
enum sn_vendor_link_state {
	SN_VLINK_UNREAD = 0,
	SN_VLINK_UP,
	SN_VLINK_DOWN,
	SN_VLINK_DEGRADED, /* up at reduced width: MTLink DOWNGRADE */
	SN_VLINK_UNUSED,   /* the vendor says not used: MetaXLink NoUse */
};

/* One error counter of a link or device, as the library counts it. */
struct sn_vendor_ctr {
	char name[SN_VENDOR_CTR_NAME]; /* "crc", "retry", "fec_uncorrected" */
	uint64_t value;
};

/* One device link (HCCS port, MLU-Link, MTLink, MetaXLink, XGMI). */
struct sn_vendor_link {
	uint8_t state;	     /* enum sn_vendor_link_state */
	char state_text[24]; /* the vendor's word: "DOWNGRADE", "macState 0" */
	uint8_t n_ctrs;
	struct sn_vendor_ctr ctrs[SN_VENDOR_MAX_CTRS];
};

/* One device as its library reports it. */
struct sn_vendor_dev {
	uint32_t index;	       /* the library's index (card*2+chip for DCMI) */
	char bdf[SN_BDF_SIZE]; /* "0000:1b:00.0" (sysfs form); "" = unknown */
	char label[24];	       /* how the vendor names it: "card 3 chip 0" */
	uint8_t health;	       /* enum sn_vendor_health */
	/* the vendor's reason: "dcmi_get_device_health 3 (critical alarm),
	 * error code 0x80e01801 (SeparateNPU)" */
	char health_text[SN_VENDOR_TEXT];
	bool ecc_read;
	uint64_t ecc_uncorrected; /* volatile (since driver load) */
	uint64_t ecc_corrected;
	uint8_t net;	   /* Ascend RoCE network health; UNREAD else */
	char net_text[48]; /* "dcmi_get_device_network_health 3" */
	uint8_t n_links;   /* links reported (<= SN_VENDOR_MAX_LINKS) */
	struct sn_vendor_link links[SN_VENDOR_MAX_LINKS];
	/* device-wide counters the epilog records (XGMI error status) */
	uint8_t n_ctrs;
	struct sn_vendor_ctr ctrs[SN_VENDOR_MAX_CTRS];
	/* a call on this device failed (not a verdict): "cndevGetECCInfo:
	 * error 4"; the values it would have given stay unread */
	char error[SN_VENDOR_TEXT];
};

/* What one read of the library gave.  Fixed size: it crosses a pipe. */
struct sn_vendor_node {
	enum sn_accel_vendor vendor;
	char library[PATH_MAX]; /* what was loaded: path or loader name */
	char version[32];	/* library or driver version; "" = unknown */
	/*
	 * Nothing could be read: the library or a required symbol missing
	 * ("libcndev.so: cannot open shared object file (tried
	 * /usr/local/neuware/lib64/libcndev.so, libcndev.so)", "no symbol
	 * dcmi_get_device_health: library too old"), init failed
	 * ("cndevInit: error 2").  count and devs are then empty.
	 */
	char error[SN_VENDOR_TEXT * 2];
	bool counted;	 /* count is the library's */
	uint32_t count;	 /* devices the library counts */
	uint32_t n_devs; /* devs[] filled (<= SN_VENDOR_MAX_DEVS) */
	/* the call the watchdog cut, with its arguments: "dcmi_get_device_
	 * network_health(card 1, device 0)"; "" = none.  Devices after it
	 * are not read. */
	char hung_call[SN_VENDOR_TEXT];
	uint32_t hung_ms; /* the limit it ran past */
	struct sn_vendor_dev devs[SN_VENDOR_MAX_DEVS];
};

/*
 * A backend: read(dl, out) with the library already dlopen()ed as dl,
 * out zeroed with vendor and library set.  It resolves its symbols with
 * sn_vendor_sym(), wraps every call in SN_VCALL(), and fills out.
 * Returns 0, or -1 with out->error set (the library could not be used).
 * A failed query on one device goes to that device's error, not here.
 */
struct sn_vendor_backend {
	enum sn_accel_vendor vendor;
	int (*read)(void *dl, struct sn_vendor_node *out);
};

/* The backends (vendor_<name>.c); NULL for vendors without one. */
const struct sn_vendor_backend *sn_vendor_backend_of(enum sn_accel_vendor v);

/*
 * sn_vendor_set - format into a text field of the structs above (printf
 * style), built whole and cut by sn_error_cut() when longer (the one cut).
 * SN_VSET(field, fmt, ...) passes the field's size.
 */
void sn_vendor_set(char *field, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define SN_VSET(field, ...) sn_vendor_set((field), sizeof(field), __VA_ARGS__)

/*
 * sn_vendor_sym - dlsym(dl, name) into *fn (a function pointer's address).
 * When required and missing, sets out->error ("no symbol NAME in LIB:
 * library too old or not <Library>: LIB") and returns -1; an optional one
 * left NULL returns 0.
 */
int sn_vendor_sym(void *dl, const char *name, void *fn, bool required,
		  struct sn_vendor_node *out);

/*
 * The per-call watchdog.  sn_vcall_begin(name_fmt, ...) arms a timer of
 * limit_ms (0 = SN_VENDOR_CALL_MS) naming the call; sn_vcall_end()
 * disarms it.  Only inside sn_vendor_lib_read's child: outside it they
 * only record the name.  SN_VCALL(expr, fmt, ...) wraps one call with
 * the per-call limit; SN_VCALL_LONG(expr, fmt, ...) one that may take the
 * rest of the budget (a library's init: dcmi_init takes seconds).
 */
void sn_vcall_begin(uint32_t limit_ms, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sn_vcall_end(void);
/*
 * sn_vcall_arm - make this process a reading child: a call that runs past
 * its limit (or past deadline_ms, sn_now_ms clock) writes node, with
 * hung_call set, to fd and _exit()s.  Only sn_vendor_lib_read's child.
 */
void sn_vcall_arm(struct sn_vendor_node *node, int fd, int64_t deadline_ms);
#define SN_VCALL_LIMIT(limit, expr, ...)              \
	({                                            \
		sn_vcall_begin((limit), __VA_ARGS__); \
		__auto_type sn_vcall_rc_ = (expr);    \
		sn_vcall_end();                       \
		sn_vcall_rc_;                         \
	})
#define SN_VCALL(expr, ...) SN_VCALL_LIMIT(0, expr, __VA_ARGS__)
#define SN_VCALL_LONG(expr, ...) SN_VCALL_LIMIT(UINT32_MAX, expr, __VA_ARGS__)

/*
 * sn_vendor_lib_read - load the library of ctx's vendor and read it, in
 * a child with the per-call watchdog, ending by deadline_ms (sn_now_ms
 * clock; 0 = 10 s from now).  *out is malloc()ed by the caller (it is
 * about 170 KiB).  Returns 0 with out filled (check out->error and
 * out->hung_call), or -1 when the vendor has no backend or the child
 * could not run (out->error says why).
 */
int sn_vendor_lib_read(const struct sn_check_ctx *ctx, int64_t deadline_ms,
		       struct sn_vendor_node *out);

/*
 * sn_vendor_lib_read_here - the same in this process, without a child or
 * watchdog (unit tests, fuzzing).  Returns as sn_vendor_lib_read.
 */
int sn_vendor_lib_read_here(const struct sn_check_ctx *ctx,
			    struct sn_vendor_node *out);

/*
 * sn_vendor_lib_counters - the epilog's snapshot of ctx's vendor (see
 * sn_accel_counters_json in sn_accel.h): sets root's "driver" and "error"
 * and adds one object per device to devices, read through
 * sn_vendor_lib_read() by ctx->deadline_ms (0: 5 s from now).  Returns 0,
 * or -1 when out of memory.
 */
int sn_vendor_lib_counters(const struct sn_check_ctx *ctx, json_object *root,
			   json_object *devices);

/*
 * sn_vendor_link_key - the snapshot key of a link counter summed over a
 * device's links: the link name in lower case, letters and digits only,
 * "_", the counter: "hccs_crc", "mlulink_fec_uncorrected".
 */
void sn_vendor_link_key(const struct sn_vendor *v, const char *ctr, char *buf,
			size_t size);

/* sn_vendor_health_name - "ok", "warn", "crit", "unread". */
const char *sn_vendor_health_name(enum sn_vendor_health h);
/* sn_vendor_link_state_name - "up", "down", "degraded", "unused", "unread". */
const char *sn_vendor_link_state_name(enum sn_vendor_link_state s);

#endif
