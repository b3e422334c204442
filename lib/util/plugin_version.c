/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sn_file.h"
#include "util/sn_plugin_version.h"

#define SYMBOL "plugin_version"

/* The fields of one ELF class that the search needs. */
struct elf_view {
	const unsigned char *buf;
	size_t len;
};

static bool in_file(const struct elf_view *e, uint64_t off, uint64_t size)
{
	return off <= e->len && size <= e->len - off;
}

/* Section i's type, link, address, offset and size (64- or 32-bit). */
struct shdr {
	uint32_t type, link;
	uint64_t addr, offset, size, entsize;
};

static int shdr_get(const struct elf_view *e, bool is64, size_t i,
		    struct shdr *s)
{
	uint64_t shoff, n, esz;

	if (is64) {
		const Elf64_Ehdr *h = (const void *)e->buf;
		Elf64_Shdr sh;

		shoff = h->e_shoff, n = h->e_shnum, esz = h->e_shentsize;
		if (esz != sizeof(sh) || i >= n ||
		    !in_file(e, shoff + i * esz, esz))
			return -1;
		memcpy(&sh, e->buf + shoff + i * esz, sizeof(sh));
		*s = (struct shdr){ sh.sh_type,	  sh.sh_link, sh.sh_addr,
				    sh.sh_offset, sh.sh_size, sh.sh_entsize };
	} else {
		const Elf32_Ehdr *h = (const void *)e->buf;
		Elf32_Shdr sh;

		shoff = h->e_shoff, n = h->e_shnum, esz = h->e_shentsize;
		if (esz != sizeof(sh) || i >= n ||
		    !in_file(e, shoff + i * esz, esz))
			return -1;
		memcpy(&sh, e->buf + shoff + i * esz, sizeof(sh));
		*s = (struct shdr){ sh.sh_type,	  sh.sh_link, sh.sh_addr,
				    sh.sh_offset, sh.sh_size, sh.sh_entsize };
	}
	return 0;
}

/* Symbol j of a symbol table: its name offset, section, value and size. */
static void sym_get(const struct elf_view *e, bool is64, const struct shdr *tab,
		    size_t j, uint32_t *name, uint16_t *shndx, uint64_t *value,
		    uint64_t *size)
{
	if (is64) {
		Elf64_Sym s;

		memcpy(&s, e->buf + tab->offset + j * sizeof(s), sizeof(s));
		*name = s.st_name, *shndx = s.st_shndx;
		*value = s.st_value, *size = s.st_size;
	} else {
		Elf32_Sym s;

		memcpy(&s, e->buf + tab->offset + j * sizeof(s), sizeof(s));
		*name = s.st_name, *shndx = s.st_shndx;
		*value = s.st_value, *size = s.st_size;
	}
}

/* Search .dynsym for SYMBOL and read its 4 bytes.  0, or -1 with why. */
static int symbol_read(const struct elf_view *e, bool is64, uint32_t *version,
		       const char **why)
{
	size_t shnum =
		is64 ? ((const Elf64_Ehdr *)(const void *)e->buf)->e_shnum :
		       ((const Elf32_Ehdr *)(const void *)e->buf)->e_shnum;
	size_t symsz = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct shdr tab, str, sec;

	*why = "no plugin_version symbol";
	for (size_t i = 0; i < shnum; i++) {
		if (shdr_get(e, is64, i, &tab)) {
			*why = "bad section header";
			return -1;
		}
		if (tab.type != SHT_DYNSYM)
			continue;
		if (!in_file(e, tab.offset, tab.size) ||
		    shdr_get(e, is64, tab.link, &str) ||
		    !in_file(e, str.offset, str.size)) {
			*why = "bad symbol table";
			return -1;
		}
		for (size_t j = 0; j < tab.size / symsz; j++) {
			uint64_t value, size;
			uint32_t name;
			uint16_t shndx;

			sym_get(e, is64, &tab, j, &name, &shndx, &value, &size);
			if (name >= str.size ||
			    strncmp((const char *)e->buf + str.offset + name,
				    SYMBOL, str.size - name) ||
			    shndx == SHN_UNDEF)
				continue;
			if (size != sizeof(*version) ||
			    shdr_get(e, is64, shndx, &sec) ||
			    sec.type == SHT_NOBITS || value < sec.addr ||
			    value - sec.addr > sec.size - size ||
			    !in_file(e, sec.offset + (value - sec.addr),
				     size)) {
				*why = "plugin_version is not a 4-byte value in the file";
				return -1;
			}
			memcpy(version,
			       e->buf + sec.offset + (value - sec.addr),
			       sizeof(*version));
			return 0;
		}
	}
	return -1;
}

int sn_plugin_version_read(const char *path, uint32_t *version,
			   struct sn_error *err)
{
	char why[SN_FILE_WHY_MAX];
	const char *bad = NULL;
	struct elf_view e;
	size_t len = 0;
	char *buf;
	bool is64;

	buf = sn_file_load_why(path, SN_PLUGIN_FILE_MAX, &len, why,
			       sizeof(why));
	if (!buf) {
		sn_error_set(err, "%s: %s", path, why);
		return -1;
	}
	e = (struct elf_view){ (const unsigned char *)buf, len };
	if (len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG))
		bad = "not an ELF file";
	else if (buf[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
					  ELFDATA2LSB :
					  ELFDATA2MSB))
		bad = "an ELF file of the other byte order";
	if (!bad) {
		is64 = buf[EI_CLASS] == ELFCLASS64;
		if (!is64 && buf[EI_CLASS] != ELFCLASS32)
			bad = "an ELF file of unknown class";
		else if (len < (is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
			bad = "not an ELF file";
		else if (symbol_read(&e, is64, version, &bad) == 0)
			bad = NULL;
	}
	free(buf);
	if (bad) {
		sn_error_set(err, "%s: %s", path, bad);
		return -1;
	}
	return 0;
}

bool sn_plugin_version_loads(uint32_t version, uint32_t daemon, bool spank)
{
	uint32_t mask = spank ? 0xffff00u : 0xffffffu;

	return (version & mask) == (daemon & mask);
}

int sn_plugin_version_parse(const char *text, uint32_t *version)
{
	unsigned long part[3];
	char *end;

	for (int i = 0; i < 3; i++) {
		if (!text || *text < '0' || *text > '9')
			return -1;
		errno = 0;
		part[i] = strtoul(text, &end, 10);
		if (errno || part[i] > 255 || (i < 2 && *end != '.'))
			return -1;
		text = end + (i < 2);
	}
	*version = (uint32_t)(part[0] << 16 | part[1] << 8 | part[2]);
	return 0;
}

void sn_plugin_version_why(char *buf, size_t size, const char *what,
			   const char *path, uint32_t version,
			   const char *daemon, const char *running, bool spank)
{
	const char *rule =
		spank ? "a SPANK plugin loads only into its major.minor" :
			"it loads only a plugin of its exact release";

	snprintf(
		buf, size,
		"%s %s is built for Slurm %u.%02u.%u, but %s runs %s: %s refuses it at its next start (%s); rebuild it for %s before restarting %s",
		what, path, version >> 16, (version >> 8) & 0xff,
		version & 0xff, daemon, running, daemon, rule, running, daemon);
}

char *sn_plugin_find(const char *dirs, const char *name)
{
	char *copy = strdup(dirs ? dirs : ""), *save = NULL, *path = NULL;

	for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d;
	     d = strtok_r(NULL, ":", &save)) {
		if (asprintf(&path, "%s/%s", d, name) < 0) {
			path = NULL;
			break;
		}
		if (!access(path, F_OK))
			break;
		free(path);
		path = NULL;
	}
	free(copy);
	return path;
}
