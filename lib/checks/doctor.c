/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * supernodectl doctor's decisions (sn_doctor.h).  Levels, chosen for a
 * site that runs doctor before and after a change:
 *   CRIT  jobs fail, are placed wrong or run unchecked, or a daemon stops
 *         at its next start: a plugin Slurm refuses, no Prolog of ours,
 *         no JobSubmitPlugins=supernode, PrologFlags without Alloc, our
 *         timeouts at or above PrologEpilogTimeout;
 *   WARN  jobs run and are checked, but something is lost: no Epilog of
 *         ours (no per-job record, no drain after an Xid), PrologFlags
 *         without DeferBatch, JobRequeue=0, no nohold_on_prolog_fail
 *         (a job whose node fails the check waits held for a person).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "checks/sn_doctor.h"
#include "util/sn_file.h"
#include "util/sn_plugin_version.h"

#define SCRIPT_MAX_BYTES (64u << 10) /* a Prolog script read for our name */
#define PE_TIMEOUT_UNSET 65534u	     /* NO_VAL16 - 1: Slurm's "not set" */

void sn_doctor_add(struct sn_doctor *d, enum sn_grade level, const char *name,
		   const char *fix, const char *fmt, ...)
{
	struct sn_doctor_item *it;
	va_list ap;

	if (d->n >= SN_DOCTOR_MAX_ITEMS)
		return;
	it = &d->items[d->n++];
	if (d->n == SN_DOCTOR_MAX_ITEMS) {
		*it = (struct sn_doctor_item){ .level = SN_CRIT };
		snprintf(it->name, sizeof(it->name), "doctor");
		snprintf(it->finding, sizeof(it->finding),
			 "more than %u findings: the rest are not shown",
			 SN_DOCTOR_MAX_ITEMS - 1);
		snprintf(it->fix, sizeof(it->fix), "fix the ones above first");
		return;
	}
	it->level = level;
	snprintf(it->name, sizeof(it->name), "%s", name);
	va_start(ap, fmt);
	vsnprintf(it->finding, sizeof(it->finding), fmt, ap);
	va_end(ap);
	snprintf(it->fix, sizeof(it->fix), "%s",
		 level == SN_OK || !fix ? "" : fix);
}

enum sn_grade sn_doctor_worst(const struct sn_doctor *d)
{
	enum sn_grade w = SN_OK;

	for (size_t i = 0; i < d->n; i++)
		w = sn_grade_worse(w, d->items[i].level);
	return w;
}

int sn_doctor_exit(const struct sn_doctor *d)
{
	enum sn_grade w = sn_doctor_worst(d);

	return w == SN_OK ? 0 : w == SN_WARN ? 1 : 2;
}

void sn_doctor_print(const struct sn_doctor *d, FILE *f)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct sn_doctor_item *it = &d->items[i];

		fprintf(f, "%s %s: %s\n", sn_grade_name(it->level), it->name,
			it->finding);
		if (it->level != SN_OK)
			fprintf(f, "  fix: %s\n", it->fix);
	}
}

json_object *sn_doctor_json(const struct sn_doctor *d)
{
	json_object *root = json_object_new_object();
	json_object *arr = json_object_new_array();

	if (!root || !arr)
		goto fail;
	json_object_object_add(
		root, "level",
		json_object_new_string(sn_grade_name(sn_doctor_worst(d))));
	json_object_object_add(root, "exit",
			       json_object_new_int(sn_doctor_exit(d)));
	for (size_t i = 0; i < d->n; i++) {
		const struct sn_doctor_item *it = &d->items[i];
		json_object *o = json_object_new_object();

		if (!o)
			goto fail;
		json_object_object_add(
			o, "level",
			json_object_new_string(sn_grade_name(it->level)));
		json_object_object_add(o, "name",
				       json_object_new_string(it->name));
		json_object_object_add(o, "finding",
				       json_object_new_string(it->finding));
		json_object_object_add(
			o, "fix",
			it->fix[0] ? json_object_new_string(it->fix) : NULL);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "checks", arr);
	return root;
fail:
	json_object_put(arr);
	json_object_put(root);
	return NULL;
}

/* ---- scontrol show config ---- */

static char **view_field(struct sn_slurm_view *v, const char *key)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "SLURM_VERSION", offsetof(struct sn_slurm_view, version) },
		{ "PluginDir", offsetof(struct sn_slurm_view, plugindir) },
		{ "PlugStackConfig",
		  offsetof(struct sn_slurm_view, plugstack) },
		{ "Prolog", offsetof(struct sn_slurm_view, prolog) },
		{ "Epilog", offsetof(struct sn_slurm_view, epilog) },
		{ "JobSubmitPlugins",
		  offsetof(struct sn_slurm_view, job_submit) },
		{ "PrologFlags", offsetof(struct sn_slurm_view, prolog_flags) },
		{ "SchedulerParameters",
		  offsetof(struct sn_slurm_view, sched_params) },
		{ "JobRequeue", offsetof(struct sn_slurm_view, job_requeue) },
		{ "MaxBatchRequeue",
		  offsetof(struct sn_slurm_view, max_batch_requeue) },
		{ "PrologEpilogTimeout",
		  offsetof(struct sn_slurm_view, pe_timeout) },
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(keys[i].key, key))
			return (char **)((char *)v + keys[i].off);
	return NULL;
}

/* Append the first n bytes of val to the comma-separated list *list. */
static int list_append(char **list, const char *val, size_t n)
{
	size_t old = *list ? strlen(*list) : 0;
	char *s = realloc(*list, old + n + 2);

	if (!s)
		return -1;
	*list = s;
	if (old)
		s[old++] = ',';
	memcpy(s + old, val, n);
	s[old + n] = '\0';
	return 0;
}

/*
 * Keys that Slurm prints once per entry of a list, KEY[i] = value:
 * SlurmctldHost[i] = name(addr) (the name kept), and, from Slurm 23.02
 * (several Prolog/Epilog scripts), Prolog[i] and Epilog[i], where 22.05
 * printed Prolog = value (src/api/config_info.c, 24.11.5 l.729, 984).
 */
static int indexed_line(struct sn_slurm_view *v, const char *key,
			const char *val)
{
	if (!strncmp(key, "SlurmctldHost[", 14))
		return list_append(&v->ctld_hosts, val, strcspn(val, "("));
	if (!strcmp(val, "(null)"))
		return 0;
	if (!strncmp(key, "Prolog[", 7))
		return list_append(&v->prolog, val, strlen(val));
	if (!strncmp(key, "Epilog[", 7))
		return list_append(&v->epilog, val, strlen(val));
	return 0;
}

static int view_line(struct sn_slurm_view *v, char *line)
{
	char *eq = strstr(line, " = "), *key_end, *val;
	char **field;

	if (!eq)
		return 0;
	for (key_end = eq; key_end > line && key_end[-1] == ' '; key_end--)
		;
	*key_end = '\0';
	val = eq + 3;
	val[strcspn(val, "\n")] = '\0';
	if (strchr(line, '['))
		return indexed_line(v, line, val);
	field = view_field(v, line);
	if (!field || *field || !*val || !strcmp(val, "(null)"))
		return 0;
	*field = strdup(val);
	return *field ? 0 : -1;
}

int sn_slurm_view_parse(const char *text, struct sn_slurm_view *v)
{
	char *copy = strdup(text ? text : ""), *line, *save = NULL;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (!copy)
		return -1;
	for (line = strtok_r(copy, "\n", &save); line && !rc;
	     line = strtok_r(NULL, "\n", &save))
		rc = view_line(v, line);
	free(copy);
	return rc || !v->version ? -1 : 0;
}

void sn_slurm_view_free(struct sn_slurm_view *v)
{
	char **f[] = {
		&v->version,	  &v->plugindir,    &v->plugstack,
		&v->prolog,	  &v->epilog,	    &v->job_submit,
		&v->prolog_flags, &v->sched_params, &v->job_requeue,
		&v->pe_timeout,	  &v->ctld_hosts,   &v->max_batch_requeue
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		free(*f[i]);
		*f[i] = NULL;
	}
}

/* Whether the comma-separated list has the token (case-insensitive). */
static bool list_has(const char *list, const char *token)
{
	size_t n = strlen(token);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncasecmp(p, token, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

bool sn_doctor_host_is_ctld(const struct sn_slurm_view *v, const char *name)
{
	return name && list_has(v->ctld_hosts, name);
}

/* ---- plugins ---- */

void sn_doctor_plugin(struct sn_doctor *d, const char *name, const char *what,
		      const char *path, const char *missing, const char *daemon,
		      const char *running, bool spank)
{
	char why[SN_DOCTOR_TEXT_SIZE], fix[SN_DOCTOR_TEXT_SIZE];
	struct sn_error err;
	uint32_t v, want;

	if (!path) {
		snprintf(
			fix, sizeof(fix),
			"install %s (the package of this Slurm release, or cmake --install) into %s",
			what, missing);
		sn_doctor_add(d, SN_CRIT, name, fix, "%s is not in %s", what,
			      missing);
		return;
	}
	if (sn_plugin_version_read(path, &v, &err)) {
		snprintf(fix, sizeof(fix),
			 "reinstall %s built for this Slurm release", what);
		sn_doctor_add(d, SN_CRIT, name, fix, "%s", err.msg);
		return;
	}
	if (!running || sn_plugin_version_parse(running, &want)) {
		sn_doctor_add(
			d, SN_OK, name, NULL,
			"%s is built for Slurm %u.%02u.%u (%s's version not known here)",
			path, v >> 16, (v >> 8) & 0xff, v & 0xff, daemon);
		return;
	}
	if (!sn_plugin_version_loads(v, want, spank)) {
		sn_plugin_version_why(why, sizeof(why), what, path, v, daemon,
				      running, spank);
		snprintf(
			fix, sizeof(fix),
			"install %s built for Slurm %s (the package for it, or rebuild against its headers), then restart %s",
			what, running, daemon);
		sn_doctor_add(d, SN_CRIT, name, fix, "%s", why);
		return;
	}
	sn_doctor_add(d, SN_OK, name, NULL,
		      "%s is built for Slurm %u.%02u.%u; %s runs %s (%s)", path,
		      v >> 16, (v >> 8) & 0xff, v & 0xff, daemon, running,
		      spank ? "same major.minor" : "same release");
}

/* ---- slurm.conf ---- */

/* Whether Prolog/Epilog runs prog: by base name, or a script naming it. */
static bool runs_ours(const char *value, const char *prog)
{
	char *copy = strdup(value ? value : ""), *save = NULL;
	bool found = false;

	for (char *p = copy ? strtok_r(copy, ",", &save) : NULL; p && !found;
	     p = strtok_r(NULL, ",", &save)) {
		const char *base = strrchr(p, '/');
		size_t len = 0;
		char *text;

		if (!strcmp(base ? base + 1 : p, prog)) {
			found = true;
			break;
		}
		text = sn_file_load(p, SCRIPT_MAX_BYTES, &len, NULL);
		found = text && memmem(text, len, prog, strlen(prog));
		free(text);
	}
	free(copy);
	return found;
}

static void program_check(struct sn_doctor *d, const char *key,
			  const char *value, const char *prog,
			  const char *sbindir, enum sn_grade level,
			  const char *loss)
{
	char fix[SN_DOCTOR_TEXT_SIZE], name[SN_DOCTOR_NAME_SIZE];

	snprintf(name, sizeof(name), "slurm-%s",
		 !strcmp(key, "Prolog") ? "prolog" : "epilog");
	snprintf(
		fix, sizeof(fix),
		"set %s=%s/%s in slurm.conf (or exec it from your %s script), then scontrol reconfigure",
		key, sbindir, prog, key);
	if (!value)
		sn_doctor_add(d, level, name, fix, "slurm.conf has no %s: %s",
			      key, loss);
	else if (!runs_ours(value, prog))
		sn_doctor_add(d, level, name, fix, "%s=%s does not run %s: %s",
			      key, value, prog, loss);
	else
		sn_doctor_add(d, SN_OK, name, NULL, "%s=%s runs %s", key, value,
			      prog);
}

static void job_submit_check(struct sn_doctor *d, const struct sn_slurm_view *v)
{
	if (list_has(v->job_submit, "supernode") ||
	    list_has(v->job_submit, "job_submit/supernode"))
		sn_doctor_add(d, SN_OK, "slurm-job-submit", NULL,
			      "JobSubmitPlugins=%s has supernode",
			      v->job_submit);
	else
		sn_doctor_add(
			d, SN_CRIT, "slurm-job-submit",
			"add supernode to JobSubmitPlugins= in slurm.conf (JobSubmitPlugins=supernode), then restart slurmctld",
			"JobSubmitPlugins=%s has no supernode: --supernode jobs are not placed on whole supernodes",
			v->job_submit ? v->job_submit : "");
}

static void prolog_flags_check(struct sn_doctor *d,
			       const struct sn_slurm_view *v)
{
	const char *f = v->prolog_flags ? v->prolog_flags : "";

	if (!list_has(f, "Alloc"))
		sn_doctor_add(
			d, SN_CRIT, "slurm-prolog-flags",
			"set PrologFlags=Alloc,DeferBatch in slurm.conf, then restart slurmctld and slurmd",
			"PrologFlags=%s has no Alloc: the prolog runs only where a step starts, so a job's other nodes are not checked before it runs",
			f);
	else if (!list_has(f, "DeferBatch"))
		sn_doctor_add(
			d, SN_WARN, "slurm-prolog-flags",
			"set PrologFlags=Alloc,DeferBatch in slurm.conf, then restart slurmctld and slurmd",
			"PrologFlags=%s has no DeferBatch: the batch script may start before every node's prolog has ended",
			f);
	else
		sn_doctor_add(d, SN_OK, "slurm-prolog-flags", NULL,
			      "PrologFlags=%s has Alloc and DeferBatch", f);
}

static void requeue_check(struct sn_doctor *d, const struct sn_slurm_view *v)
{
	bool nohold = list_has(v->sched_params, "nohold_on_prolog_fail");

	if (v->job_requeue && !strcmp(v->job_requeue, "0"))
		sn_doctor_add(
			d, SN_WARN, "slurm-requeue",
			"set JobRequeue=1 in slurm.conf, then scontrol reconfigure",
			"JobRequeue=0: a batch job whose node fails the prolog's check is cancelled instead of requeued onto healthy nodes (unless it asks --requeue)");
	else if (!nohold)
		sn_doctor_add(
			d, SN_WARN, "slurm-requeue",
			"add nohold_on_prolog_fail to SchedulerParameters= in slurm.conf, then scontrol reconfigure",
			"SchedulerParameters=%s has no nohold_on_prolog_fail: a job whose node fails the prolog's check is requeued held (launch failed requeued held) and waits for scontrol release",
			v->sched_params ? v->sched_params : "");
	else
		sn_doctor_add(
			d, SN_OK, "slurm-requeue", NULL,
			"JobRequeue=%s and nohold_on_prolog_fail: a job whose node fails the prolog's check is requeued pending onto other nodes",
			v->job_requeue ? v->job_requeue : "1");
}

/*
 * placement.max_requeues above Slurm's MaxBatchRequeue (23.02+): Slurm
 * holds a job at its MaxBatchRequeue-th launch failure, so for node-prolog
 * failures its cap comes first, with its own reason (JobHoldMaxRequeue,
 * "launch failure limit exceeded requeued held") and not ours.  Said only
 * then (the default follows Slurm's; equal caps: our prolog holds first).
 * 0 means held at the first failed start, as sn_requeue_effective() says.
 */
static void max_requeue_check(struct sn_doctor *d,
			      const struct sn_slurm_view *v,
			      const struct sn_config *cfg)
{
	uint32_t ours = cfg->max_requeues;
	const char *text = v->max_batch_requeue;
	char fix[SN_DOCTOR_TEXT_SIZE], *end;
	unsigned long slurm, at;

	if (!text || ours == SN_CONFIG_REQUEUES_SLURM)
		return;
	ours = ours ? ours : 1;
	slurm = strtoul(text, &end, 10);
	at = slurm ? slurm : 1; /* the failed launch Slurm holds at */
	if (end == text || *end || ours <= at)
		return;
	snprintf(
		fix, sizeof(fix),
		"set MaxBatchRequeue=%u (or more) in slurm.conf and scontrol reconfigure, or lower placement.max_requeues (or leave it out: Slurm's then) in %s",
		ours, cfg->path);
	sn_doctor_add(
		d, SN_WARN, "slurm-max-requeue", fix,
		"placement.max_requeues %u is above MaxBatchRequeue=%lu: Slurm holds a job at its %lu%s failed launch itself (JobHoldMaxRequeue), before our cap and without our reason",
		ours, slurm, at,
		at == 1 ? "st" :
		at == 2 ? "nd" :
		at == 3 ? "rd" :
			  "th");
}

static void timeout_check(struct sn_doctor *d, const struct sn_slurm_view *v,
			  const struct sn_config *cfg)
{
	uint32_t pro = cfg->prolog.timeout_s, epi = cfg->epilog.timeout_s;
	uint32_t need = (pro > epi ? pro : epi) + SN_DOCTOR_TIMEOUT_MARGIN_S;
	unsigned long pet = v->pe_timeout ? strtoul(v->pe_timeout, NULL, 10) :
					    PE_TIMEOUT_UNSET;
	char fix[SN_DOCTOR_TEXT_SIZE];

	if (pet == 0 || pet >= PE_TIMEOUT_UNSET) {
		sn_doctor_add(
			d, SN_OK, "slurm-timeout", NULL,
			"PrologEpilogTimeout is not set (Slurm waits without limit); prolog.timeout %u s and epilog.timeout %u s bound our programs",
			pro, epi);
		return;
	}
	if (pet >= need) {
		sn_doctor_add(
			d, SN_OK, "slurm-timeout", NULL,
			"PrologEpilogTimeout=%lu s holds prolog.timeout %u s and epilog.timeout %u s with %u s to spare",
			pet, pro, epi, SN_DOCTOR_TIMEOUT_MARGIN_S);
		return;
	}
	snprintf(
		fix, sizeof(fix),
		"set PrologEpilogTimeout=%u (or more) in slurm.conf and scontrol reconfigure, or lower %s in %s",
		need, pro >= epi ? "prolog.timeout" : "epilog.timeout",
		cfg->path);
	sn_doctor_add(
		d, SN_CRIT, "slurm-timeout", fix,
		"PrologEpilogTimeout=%lu s is below %s %u s + %u s: Slurm kills supernode-%s before it ends and drains the node with its own reason",
		pet, pro >= epi ? "prolog.timeout" : "epilog.timeout",
		pro >= epi ? pro : epi, SN_DOCTOR_TIMEOUT_MARGIN_S,
		pro >= epi ? "prolog" : "epilog");
}

void sn_doctor_slurm_conf(struct sn_doctor *d, const struct sn_slurm_view *v,
			  const struct sn_config *cfg, const char *sbindir)
{
	program_check(d, "Prolog", v->prolog, "supernode-prolog", sbindir,
		      SN_CRIT, "no node is checked before a job");
	program_check(d, "Epilog", v->epilog, "supernode-epilog", sbindir,
		      SN_WARN,
		      "no per-job record, no drain after a job's Xid errors");
	job_submit_check(d, v);
	prolog_flags_check(d, v);
	requeue_check(d, v);
	if (cfg) {
		max_requeue_check(d, v, cfg);
		timeout_check(d, v, cfg);
	}
}

/* ---- libraries ---- */

void sn_doctor_library(struct sn_doctor *d, const char *key, const char *path,
		       const char *refused, enum sn_doctor_load load,
		       const char *text, unsigned limit_ms)
{
	const char *k = strchr(key, '.') ? strchr(key, '.') + 1 : key;
	char name[SN_DOCTOR_NAME_SIZE], fix[SN_DOCTOR_TEXT_SIZE];

	snprintf(name, sizeof(name), "library-%s", k);
	if (refused) {
		snprintf(
			fix, sizeof(fix),
			"make %s and every folder above it root's and writable by no one else (chown root:root; chmod go-w), or set %s to such a copy",
			path, key);
		sn_doctor_add(d, SN_CRIT, name, fix,
			      "%s: %s: the prolog refuses to load it", key,
			      refused);
		return;
	}
	snprintf(
		fix, sizeof(fix),
		"install the vendor's driver and library, or set %s to the library's path; check the driver (dmesg) when it hangs",
		key);
	switch (load) {
	case SN_DOCTOR_LOAD_OK:
		sn_doctor_add(d, SN_OK, name, NULL, "%s loads%s%s", path,
			      text && *text ? ": " : "", text ? text : "");
		break;
	case SN_DOCTOR_LOAD_HUNG:
		sn_doctor_add(
			d, SN_CRIT, name, fix,
			"%s did not answer within %u ms: the prolog's checks that use it time out",
			path, limit_ms);
		break;
	case SN_DOCTOR_LOAD_CRASHED:
		sn_doctor_add(d, SN_CRIT, name, fix,
			      "%s crashed the process that loaded it", path);
		break;
	default:
		sn_doctor_add(d, SN_CRIT, name, fix, "%s does not load: %s",
			      path, text && *text ? text : "no reason given");
		break;
	}
}

/* ---- this node's hardware ---- */

void sn_doctor_hardware(struct sn_doctor *d, const char *node, const char *sn,
			const struct sn_results *r, const char *config)
{
	const struct sn_result *first = NULL;
	enum sn_grade worst = SN_OK, level;
	char fix[SN_DOCTOR_TEXT_SIZE];
	size_t bad = 0;

	for (size_t i = 0; i < r->count; i++) {
		const struct sn_result *x = &r->items[i];

		if (x->grade == SN_OK)
			continue;
		bad++;
		if (!first || sn_grade_severity(x->grade) >
				      sn_grade_severity(first->grade))
			first = x;
		worst = sn_grade_worse(worst, x->grade);
	}
	if (!first) {
		sn_doctor_add(d, SN_OK, "node-hardware", NULL,
			      "%s (%s): all %zu checks pass", node, sn,
			      r->count);
		return;
	}
	level = worst == SN_CRIT ? SN_CRIT : SN_WARN;
	if (level == SN_CRIT)
		snprintf(
			fix, sizeof(fix),
			"repair %s's hardware, or correct the node: manifest in %s if it is wrong; the prolog drains %s until then (supernodectl health --node %s resumes it once it passes)",
			node, config, node, node);
	else
		snprintf(
			fix, sizeof(fix),
			"see supernodectl health --node %s; correct the node: manifest in %s if it is wrong",
			node, config);
	sn_doctor_add(
		d, level, "node-hardware", fix,
		"%s (%s): %zu of %zu checks not OK, first %s %s %s %s: expected %s, found %s",
		node, sn, bad, r->count, sn_grade_name(first->grade),
		first->check, first->code, first->device, first->expected,
		first->found);
}
