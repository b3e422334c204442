/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SN_PLUGIN_VERSION_H
#define SN_PLUGIN_VERSION_H

/*
 * A Slurm plugin's plugin_version, read from its file, and whether a
 * daemon loads it.  Slurm's plugin loader (src/common/plugin.c, 22.05 to
 * 26.05) compares plugin_version with its own SLURM_VERSION_NUMBER under
 * the mask 0xffffff (the exact release, major.minor.micro) for every
 * plugin type but "spank", and under 0xffff00 (major.minor) for SPANK
 * plugins; slurmctld stops at start when a JobSubmitPlugins= plugin does
 * not load.
 *
 * The value is read from the ELF file, never by dlopen(): a job_submit
 * plugin's constructors and its undefined slurmctld symbols make loading
 * it outside slurmctld unsafe, and reading runs none of its code.  The
 * symbol "plugin_version" of .dynsym gives an address; the section that
 * holds it gives the file offset of its 4 bytes.  ELF64 and ELF32 in the
 * machine's byte order only (a plugin of another architecture would not
 * load here anyway).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sn_error.h"

/* The largest plugin file read, bytes. */
#define SN_PLUGIN_FILE_MAX (256u << 20)

/*
 * sn_plugin_version_read - @path's plugin_version into *version (Slurm's
 * 0xMMmmuu), reading at most SN_PLUGIN_FILE_MAX bytes.  A final link is
 * followed: plugins are named by root's PluginDir and plugstack.conf.
 * Returns 0, or -1 with @err set ("PATH: not an ELF file", "PATH: no
 * plugin_version symbol", "PATH: cannot open: ...").
 */
int sn_plugin_version_read(const char *path, uint32_t *version,
			   struct sn_error *err);

/*
 * sn_plugin_version_loads - whether a daemon of release @daemon (0xMMmmuu)
 * loads a plugin of @version: the exact release, or only major.minor for
 * a SPANK plugin (@spank).
 */
bool sn_plugin_version_loads(uint32_t version, uint32_t daemon, bool spank);

/*
 * sn_plugin_version_parse - "22.05.8" (what slurmctld and slurmd report;
 * text after the micro number, as in "23.11.0-0rc1", is ignored) into
 * 0x160508.  Returns 0, or -1 when it is not such a version.
 */
int sn_plugin_version_parse(const char *text, uint32_t *version);

/*
 * sn_plugin_version_why - the sentence that says a plugin at @path of
 * @version (0xMMmmuu) does not load into @daemon ("slurmctld", "slurmd")
 * running @running ("22.05.8"), and the fix, into buf (size bytes;
 * snprintf's cut).  @spank picks Slurm's rule (major.minor) and its
 * wording; @what names the plugin ("job_submit_supernode.so").
 */
void sn_plugin_version_why(char *buf, size_t size, const char *what,
			   const char *path, uint32_t version,
			   const char *daemon, const char *running, bool spank);

/*
 * sn_plugin_find - the first "DIR/name" of the colon-separated folder list
 * @dirs (Slurm's PluginDir) that exists.  Returns a malloc()ed path
 * (caller frees), or NULL when none has it or out of memory.
 */
char *sn_plugin_find(const char *dirs, const char *name);

#endif
