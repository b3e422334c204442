/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SNCTL_H
#define SNCTL_H

/*
 * supernodectl - the admin's tool: job reports from the epilog's records,
 * node health for HealthCheckProgram/cron, config validation.  Each command
 * lives in its own file; main.c only dispatches.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "checks/sn_grade.h"
#include "config/sn_config.h"
#include "util/sn_log.h"

#define SNCTL_NAME "supernodectl"

/* Exit codes of report and config (health uses the prolog's, see health.c). */
enum {
	SNCTL_EXIT_OK = 0,
	SNCTL_EXIT_NOTFOUND = 1, /* report: no record; config: invalid */
	SNCTL_EXIT_USAGE = 2,
};

/* Bounds of one run: record_dir may be large, shared and hostile. */
#define SNCTL_MAX_FILES 4096u		/* record files read per run */
#define SNCTL_MAX_DIRS 65536u		/* job folders listed per run */
#define SNCTL_MAX_FILE_BYTES (1u << 20) /* one record */
#define SNCTL_JSON_DEPTH 32
#define SNCTL_MAX_LAST 1000u

/* Options every command understands. */
struct snctl_global {
	const char *config; /* --config PATH; NULL = sn_config_default_path */
};

/* One command: its name and entry point (argv[0] is the command's name). */
struct snctl_cmd {
	const char *name;
	int (*run)(const struct snctl_global *g, int argc, char **argv);
	const char *synopsis;
};

int snctl_report(const struct snctl_global *g, int argc, char **argv);
int snctl_health(const struct snctl_global *g, int argc, char **argv);
int snctl_config(const struct snctl_global *g, int argc, char **argv);
/* doctor.c: exit 0 all OK, 1 a WARN, 2 a CRIT, 4 usage. */
int snctl_doctor(const struct snctl_global *g, int argc, char **argv);
int snctl_discover(const struct snctl_global *g, int argc, char **argv);

/* main.c: the whole usage text to f. */
void snctl_usage(FILE *f);

/*
 * snctl_config_load (config_load.c) - load g->config (or the default path) into *cfg.  Returns 0,
 * or -1 after printing the error.
 */
int snctl_config_load(const struct snctl_global *g, struct sn_config **cfg);

/*
 * snctl_config_trust (config_load.c) - walk on this node ($SLURMD_NODENAME,
 * else the short host name, for %n) the folders, libraries and program
 * that the prolog and epilog would refuse (sn_check_ctx_trust); one line
 * "KEY: why" on stderr each.  Returns how many were refused.
 */
size_t snctl_config_trust(const struct sn_config *cfg);

/*
 * snctl_config_warn (config_load.c) - what this machine makes of the
 * config without refusing it (env.master_port_range against the kernel's
 * ephemeral ports), one "warning: " line each on stderr (config validate,
 * config check).
 */
void snctl_config_warn(const struct sn_config *cfg);

/* ---- records.c: the epilog's per-job per-node records ---- */

/* One record that parsed and passed the schema check. */
struct snctl_record {
	char *path;
	json_object *doc;	  /* owned */
	const char *node;	  /* point into doc */
	const char *supernode;	  /* "" if absent */
	const char *user;	  /* "" if absent */
	const char *drain_reason; /* NULL if none */
	const char *
		drain_outcome; /* what the epilog's drain did; NULL: not said */
	int64_t job_id, start, end;
	int64_t exit_code; /* INT64_MIN if absent */
	int64_t attempt;   /* "attempt"; 1 if absent (older epilogs) */
	enum sn_grade worst;
};

/* A file that could not be used, and why. */
struct snctl_problem {
	char *path;
	char *why;
};

/* What one scan found: records, and every file it could not use. */
struct snctl_set {
	struct snctl_record *recs;
	size_t n, cap;
	struct snctl_problem *probs;
	size_t n_probs, cap_probs;
	size_t files_read; /* against SNCTL_MAX_FILES */
	bool truncated;	   /* a bound stopped the scan */
};

/*
 * snctl_record_load - read, parse and check one record file into set
 * (bounded: SNCTL_MAX_FILE_BYTES, SNCTL_JSON_DEPTH).  A file that does not
 * qualify is added to set->probs instead.  want_job (0: any) and want_node
 * (NULL: any) must match the file's content.  Returns 0 if a record was
 * added, 1 if a problem was, -1 if the read budget is spent.
 */
int snctl_record_load(struct snctl_set *set, const char *path, int64_t want_job,
		      const char *want_node);

/* snctl_problem_add - note a problem (printf-style why). */
void snctl_problem_add(struct snctl_set *set, const char *path, const char *fmt,
		       ...) __attribute__((format(printf, 3, 4)));

/*
 * snctl_problems_print - a scan's problems to stderr, one "PATH: WHY" line
 * each, then a line when a bound stopped the scan.
 */
void snctl_problems_print(const struct snctl_set *set);

/*
 * snctl_problems_json - a scan's problems as a new JSON array of
 * {"path", "error"} (caller puts it); NULL when out of memory.
 */
json_object *snctl_problems_json(const struct snctl_set *set);

/* snctl_set_free - release everything; leaves an empty set. */
void snctl_set_free(struct snctl_set *set);

/*
 * snctl_grade_parse - a record's grade: "OK", "WARN", "UNKNOWN" (Xid
 * events lost or not read, issue 17) or "CRIT"; else -1.  Order and names
 * are checks/sn_grade.h's.
 */
int snctl_grade_parse(const char *s);

/* snctl_record_dirs - the record folders to look in: record_dir expanded
 * for node (when it holds %n and node is given), or for every node of the
 * config (when it holds %n and node is NULL; bounded), else one folder.
 * Returns a malloc()ed array of malloc()ed strings (count in *n) or NULL
 * after printing why. */
char **snctl_record_dirs(const struct sn_config *cfg, const char *node,
			 size_t *n);
void snctl_strv_free(char **v, size_t n);

/* snctl_node_name_ok - a node name safe to use as a file name. */
bool snctl_node_name_ok(const char *s);

/*
 * snctl_node_default - the node a command acts on: @given (--node), else
 * $SLURMD_NODENAME, else the short host name (written into @host, @size
 * bytes).  Returns it, or NULL after printing "@cmd: 'X' is not a node
 * name".  The result points into @given, the environment or @host.
 */
const char *snctl_node_default(const char *given, char *host, size_t size,
			       const char *cmd);

/* ---- format.c: values as the tables print them ---- */
void snctl_fmt_time(int64_t t, char *buf, size_t size);	      /* ISO 8601 */
void snctl_fmt_duration(int64_t s, char *buf, size_t size);   /* 1h02m03s */
void snctl_fmt_bytes(json_object *v, char *buf, size_t size); /* 1.2 GB / ? */
void snctl_fmt_rate(json_object *v, char *buf, size_t size);  /* 95.1 / ? */

/* snctl_json_print - one JSON document to stdout (pretty). */
void snctl_json_print(json_object *o);

#endif
