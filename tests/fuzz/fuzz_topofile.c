/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_topofile: the job's NCCL topology file, which slurmstepd reads as
 * root (issue 18: NCCL_TOPO_FILE against the node).
 *  - The input's first part (cut at the first NUL) into sn_topofile_parse
 *    as an XML text of at most SN_TOPOFILE_MAX bytes.
 *  - The rest, as an nccl.conf text, into sn_topofile_conf_value for
 *    NCCL_TOPO_FILE.
 * Properties: the counts kept never pass the bound; every bus id kept is
 * NUL-terminated within SN_BDF_SIZE; the conf value fits its buffer.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "env/sn_taskenv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sn_topofile f;
	char *xml, value[256];
	size_t n = strnlen((const char *)data, size);

	if (n > SN_TOPOFILE_MAX)
		return 0;
	xml = malloc(n + 1);
	if (!xml)
		return 0;
	memcpy(xml, data, n);
	xml[n] = '\0';
	if (!sn_topofile_parse(xml, &f)) {
		FZ_ASSERT(f.n_gpu_bus <= SN_TOPOFILE_DEVS);
		for (unsigned i = 0; i < f.n_gpu_bus; i++)
			FZ_ASSERT(memchr(f.gpu_bus[i], '\0', SN_BDF_SIZE));
	}
	free(xml);
	if (n + 1 < size) {
		size_t m = size - n - 1;
		char *conf = malloc(m + 1);

		if (!conf)
			return 0;
		memcpy(conf, data + n + 1, m);
		conf[m] = '\0';
		if (sn_topofile_conf_value(conf, "NCCL_TOPO_FILE", value,
					   sizeof(value)))
			FZ_ASSERT(strlen(value) < sizeof(value));
		free(conf);
	}
	return 0;
}
