/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every fake vendor library shares (tests/fake_<lib>/): finding its
 * JSON fixture and reading the knobs.  Header-only, included by one fake
 * each, so every fake stays one self-contained .so.
 *
 * Fixture: env SN_FAKE_<LIB>_FIXTURE, else "<vendor>.json" in the folder
 * of the loaded library (dladdr), so an integration test gives each node
 * its own folder through paths.<lib> with %n.
 *
 * Knobs, from the fixture's "knobs" object and from env (env wins):
 *   "hang": "<function>"  SN_FAKE_<LIB>_HANG       that call sleeps for ever
 *   "lost": <index>       SN_FAKE_<LIB>_LOST       that device answers the
 *                                                  vendor's device-lost code
 *   "init_fail": <code>   SN_FAKE_<LIB>_INIT_FAIL  init returns it
 *   "init_ms": <ms>       SN_FAKE_<LIB>_INIT_MS    init sleeps first
 */
#ifndef FAKE_KNOBS_H
#define FAKE_KNOBS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

struct fake_knobs {
	char hang[64]; /* "" = none */
	long lost;     /* -1 = none */
	long init_fail;
	long init_ms;
};

static json_object *fake_root;
static struct fake_knobs fake_knobs = { "", -1, 0, 0 };

__attribute__((destructor)) static void fake_unload(void)
{
	json_object_put(fake_root);
	fake_root = NULL;
}

/* o[key], or NULL when o is NULL or has no such key */
static inline json_object *fake_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o && json_object_object_get_ex(o, key, &v))
		return v;
	return NULL;
}

static inline long fake_get_int(json_object *o, const char *key, long def)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return def;
	return (long)json_object_get_int64(v);
}

static inline const char *fake_get_str(json_object *o, const char *key,
				       const char *def)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
}

static inline json_object *fake_get_array(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (o)
		json_object_object_get_ex(o, key, &v);
	return json_object_is_type(v, json_type_array) ? v : NULL;
}

/* env NAME as a number, or def when unset or empty */
static inline long fake_env_int(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

/*
 * fake_load - read the fixture and the knobs, afresh at every init (a
 * process that loads the library once may point it at another fixture);
 * env_prefix is "SN_FAKE_ROCM_SMI", file the default name ("hygon.json").
 * Returns the fixture's root, or NULL when it cannot be read.
 */
static inline json_object *fake_load(const char *env_prefix, const char *file)
{
	char name[96], path[4096];
	const char *env, *slash, *s;
	json_object *knobs = NULL;
	Dl_info info;

	json_object_put(fake_root);
	fake_root = NULL;
	snprintf(name, sizeof(name), "%s_FIXTURE", env_prefix);
	env = getenv(name);
	if (env && *env) {
		snprintf(path, sizeof(path), "%s", env);
	} else {
		if (!dladdr((void *)fake_load, &info) || !info.dli_fname ||
		    !(slash = strrchr(info.dli_fname, '/')))
			return NULL;
		snprintf(path, sizeof(path), "%.*s/%s",
			 (int)(slash - info.dli_fname), info.dli_fname, file);
	}
	fake_root = json_object_from_file(path);
	if (!fake_root)
		return NULL;
	json_object_object_get_ex(fake_root, "knobs", &knobs);
	snprintf(fake_knobs.hang, sizeof(fake_knobs.hang), "%s",
		 fake_get_str(knobs, "hang", ""));
	fake_knobs.lost = fake_get_int(knobs, "lost", -1);
	fake_knobs.init_fail = fake_get_int(knobs, "init_fail", 0);
	fake_knobs.init_ms = fake_get_int(knobs, "init_ms", 0);
	snprintf(name, sizeof(name), "%s_HANG", env_prefix);
	if ((s = getenv(name)) && *s)
		snprintf(fake_knobs.hang, sizeof(fake_knobs.hang), "%s", s);
	snprintf(name, sizeof(name), "%s_LOST", env_prefix);
	fake_knobs.lost = fake_env_int(name, fake_knobs.lost);
	snprintf(name, sizeof(name), "%s_INIT_FAIL", env_prefix);
	fake_knobs.init_fail = fake_env_int(name, fake_knobs.init_fail);
	snprintf(name, sizeof(name), "%s_INIT_MS", env_prefix);
	fake_knobs.init_ms = fake_env_int(name, fake_knobs.init_ms);
	return fake_root;
}

/* The "hang" knob: when it names fn, sleep for ever (a driver retrying). */
static inline void fake_maybe_hang(const char *fn)
{
	if (strcmp(fake_knobs.hang, fn))
		return;
	for (;;)
		pause();
}

/* The "init_ms" knob: init sleeps first. */
static inline void fake_init_sleep(void)
{
	struct timespec ts;

	if (fake_knobs.init_ms <= 0)
		return;
	ts.tv_sec = fake_knobs.init_ms / 1000;
	ts.tv_nsec = (fake_knobs.init_ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts))
		;
}

/* Whether device index is the "lost" knob's. */
static inline int fake_is_lost(long index)
{
	return fake_knobs.lost >= 0 && index == fake_knobs.lost;
}

/* The fixture's "devices"[index], or NULL. */
static inline json_object *fake_device(long index)
{
	json_object *d = fake_get_array(fake_root, "devices");

	if (!d || index < 0 || (size_t)index >= json_object_array_length(d))
		return NULL;
	return json_object_array_get_idx(d, (size_t)index);
}

static inline unsigned int fake_n_devices(void)
{
	json_object *d = fake_get_array(fake_root, "devices");

	return d ? (unsigned int)json_object_array_length(d) : 0;
}

/* Parse "0000:1b:00.0" into its parts; 0 or -1. */
static inline int fake_parse_bdf(const char *s, unsigned *dom, unsigned *bus,
				 unsigned *dev, unsigned *fn)
{
	return sscanf(s, "%x:%x:%x.%x", dom, bus, dev, fn) == 4 ? 0 : -1;
}

#endif
