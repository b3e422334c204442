/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_CHECK_H
#define SN_CHECK_H

/*
 * Check results, shared by every check (accelerators, PCIe, NVLink, fabric
 * ports, topology), the runner, the prolog, the epilog and supernodectl.
 *
 * A check appends one struct sn_result per thing it judged (a GPU, a port,
 * a link).  Grades follow NHC/Nagios: OK, WARN, CRIT (drains), UNKNOWN (the
 * tool could not tell: logged loudly, drains only if the config says so).
 * code is a stable upper-case identifier (IB_PORT_DOWN, GPU_MISSING, ...)
 * that admins grep for and that starts the drain reason.
 */
#include <stdarg.h>
#include <stddef.h>

#include "checks/sn_grade.h"

#define SN_CODE_MAX 32
#define SN_DEVICE_MAX 64
#define SN_VALUE_MAX 96
#define SN_RESULTS_MAX 4096 /* per run: bounded, never grows past */

/* One verdict.  Strings are fixed-size, NUL-terminated, printable. */
struct sn_result {
	enum sn_grade grade;
	char check[SN_CODE_MAX];    /* the check: "ib_port", "gpu_count", ... */
	char code[SN_CODE_MAX];	    /* stable code: "IB_PORT_DOWN" or "OK" */
	char device[SN_DEVICE_MAX]; /* "mlx5_2/1", "gpu0 0000:1b:00.0", "node" */
	char expected[SN_VALUE_MAX]; /* "state ACTIVE" */
	char found[SN_VALUE_MAX];    /* "state=DOWN" */
};

/* A growable list of results (at most SN_RESULTS_MAX); owns items. */
struct sn_results {
	struct sn_result *items;
	size_t count;
	size_t cap;
};

/*
 * sn_results_add - append a result; printf-style found, built whole.
 * Control characters become spaces, other non-ASCII bytes '?'.  A value
 * longer than its field is cut by sn_error_cut() (util/sn_error.h: the
 * phrase kept, the path's tail kept, "..." marks the cut), as the result
 * crosses the runner's pipe in fixed size.  Returns 0, or -1 when full or
 * out of memory (the result is dropped).  sn_results_vadd - the same with
 * a va_list.
 */
int sn_results_add(struct sn_results *r, enum sn_grade grade, const char *check,
		   const char *code, const char *device, const char *expected,
		   const char *found_fmt, ...)
	__attribute__((format(printf, 7, 8)));
int sn_results_vadd(struct sn_results *r, enum sn_grade grade,
		    const char *check, const char *code, const char *device,
		    const char *expected, const char *found_fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

/* sn_results_free - release items; NULL-safe; leaves an empty list. */
void sn_results_free(struct sn_results *r);

/* sn_results_worst - the worst grade (sn_grade_worse); SN_OK if none. */
enum sn_grade sn_results_worst(const struct sn_results *r);

#endif
