/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_DOCTOR_H
#define SN_DOCTOR_H

/*
 * supernodectl doctor's decisions: what each finding about Slurm's
 * configuration, our plugins, our config, this node's folders, libraries
 * and hardware means (OK, WARN or CRIT), and the exact fix.  The adapter
 * (contrib/supernodectl/doctor.c) gathers the facts (scontrol, slurmd -V,
 * files, children with time limits) and hands them here; this file only
 * reads files (plugins' ELF version, plugstack.conf, a Prolog script).
 *
 * Output, one line per finding: "LEVEL name: finding", then for WARN and
 * CRIT "  fix: <fix>".  Exit 0 all OK, 1 a WARN, 2 a CRIT.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "checks/sn_check.h"
#include "checks/sn_grade.h"
#include "config/sn_config.h"

#define SN_DOCTOR_NAME_SIZE 32
#define SN_DOCTOR_TEXT_SIZE 1024
#define SN_DOCTOR_MAX_ITEMS 64u
/* Seconds PrologEpilogTimeout must leave above prolog.timeout and
 * epilog.timeout: our program ends at its own limit, then drains and
 * writes its record before Slurm's limit kills it. */
#define SN_DOCTOR_TIMEOUT_MARGIN_S 5u

/* One finding: level (SN_OK, SN_WARN or SN_CRIT), check name, texts. */
struct sn_doctor_item {
	enum sn_grade level;
	char name[SN_DOCTOR_NAME_SIZE];	   /* "slurm-prolog", "library-nvml" */
	char finding[SN_DOCTOR_TEXT_SIZE]; /* what was found */
	char fix[SN_DOCTOR_TEXT_SIZE];	   /* "" for OK */
};

/* Every finding of one run, in order; at most SN_DOCTOR_MAX_ITEMS. */
struct sn_doctor {
	struct sn_doctor_item items[SN_DOCTOR_MAX_ITEMS];
	size_t n;
};

/*
 * Slurm's configuration as `scontrol show config` prints it (the running
 * slurmctld's); every field malloc()ed, NULL when absent or "(null)".
 */
struct sn_slurm_view {
	char *version;	    /* SLURM_VERSION: slurmctld's release */
	char *plugindir;    /* PluginDir */
	char *plugstack;    /* PlugStackConfig */
	char *prolog;	    /* Prolog */
	char *epilog;	    /* Epilog */
	char *job_submit;   /* JobSubmitPlugins */
	char *prolog_flags; /* PrologFlags */
	char *sched_params; /* SchedulerParameters */
	char *job_requeue;  /* JobRequeue: "0" or "1" */
	char *pe_timeout;   /* PrologEpilogTimeout: seconds, 65534 = unset */
	char *max_batch_requeue; /* MaxBatchRequeue (23.02+); NULL before */
	char *ctld_hosts;	 /* SlurmctldHost[i] names, comma-separated */
};

/*
 * sn_doctor_add - append a finding (printf-style finding; fix NULL for
 * OK).  Past SN_DOCTOR_MAX_ITEMS the last item says so (CRIT).
 */
void sn_doctor_add(struct sn_doctor *d, enum sn_grade level, const char *name,
		   const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* sn_doctor_worst - SN_OK, SN_WARN or SN_CRIT: the worst level. */
enum sn_grade sn_doctor_worst(const struct sn_doctor *d);

/* sn_doctor_exit - 0 all OK, 1 a WARN, 2 a CRIT. */
int sn_doctor_exit(const struct sn_doctor *d);

/* sn_doctor_print - every finding as text lines to f. */
void sn_doctor_print(const struct sn_doctor *d, FILE *f);

/*
 * sn_doctor_json - {"level": worst, "exit": N, "checks": [{"level",
 * "name", "finding", "fix"}...]} ("fix" null for OK); new object, caller
 * puts it; NULL when out of memory.
 */
json_object *sn_doctor_json(const struct sn_doctor *d);

/*
 * sn_slurm_view_parse - fill v from `scontrol show config` text ("Key =
 * Value" lines).  Returns 0, or -1 when the text has no SLURM_VERSION
 * (not scontrol's answer) or out of memory.  Free with
 * sn_slurm_view_free even on failure.
 */
int sn_slurm_view_parse(const char *text, struct sn_slurm_view *v);
void sn_slurm_view_free(struct sn_slurm_view *v);

/*
 * sn_doctor_plugin - the plugin at path (NULL: not found, with where in
 * @missing) against @daemon running @running (NULL: unknown): CRIT when
 * its file has no version or Slurm's loader would refuse it (exact release
 * for job_submit, major.minor for SPANK: @spank), else OK.  @name is the
 * check's name, @what the plugin's file name.
 */
void sn_doctor_plugin(struct sn_doctor *d, const char *name, const char *what,
		      const char *path, const char *missing, const char *daemon,
		      const char *running, bool spank);

/*
 * sn_doctor_slurm_conf - slurm.conf's settings against what the project
 * needs: Prolog and Epilog run ours (by name, or a script naming them),
 * JobSubmitPlugins has supernode, PrologFlags has Alloc (and DeferBatch),
 * the requeue settings, PrologEpilogTimeout above prolog.timeout and
 * epilog.timeout (cfg NULL: not checked).  @sbindir: where our programs
 * are installed, for the fixes.
 */
void sn_doctor_slurm_conf(struct sn_doctor *d, const struct sn_slurm_view *v,
			  const struct sn_config *cfg, const char *sbindir);

/*
 * sn_doctor_hardware - the prolog's check results on @node (of supernode
 * @sn) as one finding: OK all pass; WARN a warning or a check that could
 * not tell (UNKNOWN); CRIT a check that drains, naming the first.
 */
void sn_doctor_hardware(struct sn_doctor *d, const char *node, const char *sn,
			const struct sn_results *r, const char *config);

/* How loading a library in a child with a time limit went. */
enum sn_doctor_load {
	SN_DOCTOR_LOAD_OK,	/* loaded (and answered: text = its version) */
	SN_DOCTOR_LOAD_FAILED,	/* did not load or init: text = why */
	SN_DOCTOR_LOAD_HUNG,	/* killed at the time limit */
	SN_DOCTOR_LOAD_CRASHED, /* the child died of a signal */
};

/*
 * sn_doctor_library - the library of config key @key ("paths.nvml") at
 * @path: CRIT when the trust check refused it (@refused: its message; the
 * library is then not loaded), or when it did not load, hung (@limit_ms)
 * or crashed; else OK with its version (@text, "" when it gives none).
 */
void sn_doctor_library(struct sn_doctor *d, const char *key, const char *path,
		       const char *refused, enum sn_doctor_load load,
		       const char *text, unsigned limit_ms);

/*
 * sn_doctor_host_is_ctld - whether @name is one of the SlurmctldHost
 * names of v (the name before any "(addr)").
 */
bool sn_doctor_host_is_ctld(const struct sn_slurm_view *v, const char *name);

#endif
