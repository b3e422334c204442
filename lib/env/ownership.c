/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/sn_envmark.h"

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

bool sn_envmark_owns(const char *marker, const char *name, const char *value)
{
	char entry[96];
	size_t len;
	const char *p;

	/* A value not read whole is never ours: it stays. */
	if (!marker || !name || !value || value == sn_env_unread)
		return false;
	len = (size_t)snprintf(entry, sizeof(entry), "%s=%08x", name,
			       fnv1a(value));
	if (len >= sizeof(entry))
		return false;
	for (p = marker; (p = strstr(p, entry)); p += len)
		if ((p == marker || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

char *sn_envmark_build(const struct sn_jobenv *env, const bool *set)
{
	size_t len = 1, used = 0;
	char *out;

	for (size_t i = 0; i < env->count; i++)
		len += strlen(env->vars[i].name) + 10;
	if (!(out = malloc(len)))
		return NULL;
	out[0] = '\0';
	for (size_t i = 0; i < env->count; i++) {
		if (!set[i])
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s=%08x",
					 used ? "," : "", env->vars[i].name,
					 fnv1a(env->vars[i].value));
	}
	return out;
}
