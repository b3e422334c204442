/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_option: the values a user types: --supernode=N (the SPANK option
 * callback of spank/local.c, which validates through
 * sn_supernode_count_parse against a loaded config), --supernode-env=MODE
 * (its callback and sn_ownership_mode_option), and the plugstack.conf
 * arguments (sn_option_args_parse).  spank/local.c is compiled in as it
 * is; the SPANK calls it makes are stubbed below.
 *
 * Input: byte 0 picks the config (bit 0: feature or switch placement) and
 * the context (bit 1: remote; bit 2: srun's local context, else an
 * allocator's; bit 3: inside an allocation, SLURM_JOB_ID set; bit 4: the
 * allocation's own N, SLURM_SPANK_SUPERNODE, is the value typed); the rest,
 * cut at NUL bytes: the --supernode value, the --supernode-env value, then
 * plugstack arguments.
 *
 * Properties: a count that parses is all digits and within 1..max; a count
 * the client accepts has sn_option_count_form's form, every such count is
 * accepted where it goes to slurmctld unread or is the allocation's own,
 * and srun inside an allocation accepts any other only in 1..max; a mode
 * that parses is exactly auto, none or show.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "sn_spank.h"

/* Their parameter "optarg" shadows getopt's global: clang says so, gcc not. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wshadow"
#include "../../spank/local.c"
#pragma clang diagnostic pop

struct sn_spank sn_state;
static struct sn_config *fz_cfg[2];
static int fz_which;
static spank_context_t fz_ctx = S_CTX_ALLOCATOR;

/* ---- what the SPANK host and supernode.c provide --------------------- */

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	(void)opt;
	return ESPANK_SUCCESS;
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "stub";
}

spank_context_t spank_context(void)
{
	return fz_ctx;
}

spank_err_t spank_job_control_setenv(spank_t sp, const char *var,
				     const char *val, int overwrite)
{
	(void)sp;
	(void)var;
	(void)val;
	(void)overwrite;
	return ESPANK_SUCCESS;
}

const struct sn_config *config_get(void)
{
	return fz_cfg[fz_which];
}

/* ---- the target ------------------------------------------------------ */

static const char *const fz_yaml[2] = {
	"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
	"  - {name: sn02, nodes: \"b[1-2]\"}\n",
	"supernodes:\n  - {name: sn01, nodes: \"a[1-2]\"}\n"
	"  - {name: sn02, nodes: \"b[1-2]\"}\n  - {name: sn03, nodes: \"c[1-2]\"}\n"
	"placement: {method: switch, max_supernodes: 3}\n",
};

static void load_configs(void)
{
	struct sn_error err;

	for (int i = 0; i < 2; i++) {
		fz_cfg[i] = sn_config_load_buffer("fuzz.yaml", fz_yaml[i],
						  strlen(fz_yaml[i]), &err);
		if (!fz_cfg[i]) {
			fprintf(stderr, "fuzz_option: %s\n", err.msg);
			abort();
		}
	}
}

static void count_direct(const char *s)
{
	static const uint32_t maxes[] = { 1, 2, 64, 100000, UINT32_MAX };
	struct sn_error err;

	for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		uint32_t n = 0;

		if (sn_supernode_count_parse(s, maxes[i], &n, &err)) {
			FZ_ASSERT(strstr(err.msg, "--supernode"));
			continue;
		}
		FZ_ASSERT(n >= 1 && n <= maxes[i]);
		FZ_ASSERT(*s && strspn(s, "0123456789") == strlen(s));
	}
	FZ_ASSERT(sn_supernode_count_parse(NULL, 4, &(uint32_t){ 0 }, &err));
}

static void mode_direct(const char *s)
{
	enum sn_env_mode mode;

	if (!sn_ownership_mode_parse(s, &mode))
		FZ_ASSERT(!strcmp(s, sn_ownership_mode_name(mode)));
	else
		FZ_ASSERT(strcmp(s, "auto") && strcmp(s, "none") &&
			  strcmp(s, "show"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sn_error err;
	char *parts[16];
	size_t n;
	char *copy;
	int remote;
	uint32_t form = 0;
	bool formed, accepted, unread;

	if (!fz_cfg[0])
		load_configs();
	if (!size)
		return 0;
	fz_which = data[0] & 1;
	remote = !!(data[0] & 2);
	copy = fz_split(data + 1, size - 1, parts, 16, &n);
	memset(&sn_state, 0, sizeof(sn_state));

	fz_ctx = (data[0] & 4) ? S_CTX_LOCAL : S_CTX_ALLOCATOR;
	if (data[0] & 8)
		setenv("SLURM_JOB_ID", "42", 1);
	else
		unsetenv("SLURM_JOB_ID");
	unsetenv("SLURM_JOBID");
	if (data[0] & 16)
		setenv("SLURM_SPANK_SUPERNODE", parts[0], 1);
	else
		unsetenv("SLURM_SPANK_SUPERNODE");
	unread = !in_allocation() || (data[0] & 16);

	count_direct(parts[0]);
	formed = sn_option_count_form(parts[0], &form);
	accepted = !option_cb(SN_OPT_VAL, parts[0], remote);
	if (accepted && !remote) {
		FZ_ASSERT(sn_state.option_given);
		FZ_ASSERT(formed && sn_state.supernodes == form);
		if (!unread)
			FZ_ASSERT(sn_state.supernodes <=
				  sn_config_effective_max(fz_cfg[fz_which]));
	}
	if (!remote && formed && unread)
		FZ_ASSERT(accepted);
	if (n > 1) {
		mode_direct(parts[1]);
		env_option_cb(SN_OPT_ENV_VAL, parts[1], remote);
		FZ_ASSERT((unsigned)sn_state.env_mode <= SN_ENV_SHOW);
	}
	if (n > 2 && !sn_option_args_parse((int)(n - 2), parts + 2,
					   &sn_state.args, &err))
		FZ_ASSERT(sn_state.args.config[0] == '/' &&
			  sn_state.args.state_dir[0] == '/');
	free(copy);
	return 0;
}
