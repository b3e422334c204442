/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sn_supernode_count_parse: field case 18 (strict --supernode=N values).
 * Every refusal must name --supernode and the allowed range "1 to 2".
 * sn_cmdline_read / sn_cmdline_supernode_find: the command line read whole
 * (issue 9 item 13: --supernode after 64 KiB of arguments).
 * sn_cmdline_supernode, sn_option_count_check, sn_option_count_form,
 * sn_option_env_name,
 * sn_option_env_applies, sn_option_args_parse: the decisions of
 * spank/local.c and spank/supernode.c.
 */
#include <fcntl.h>
#include <unistd.h>

#include "unit.h"

#include "placement/sn_option.h"

#define MAX 2u

static void refused(const char *arg, const char *fragment)
{
	struct sn_error err;
	uint32_t n = 12345;

	err_reset(&err);
	if (sn_supernode_count_parse(arg, MAX, &n, &err) != -1)
		fail_msg("'%s' was accepted as %u", arg ? arg : "(NULL)", n);
	assert_int_equal(n, 12345); /* *out untouched */
	assert_contains(err.msg, "--supernode");
	assert_contains(err.msg, "1 to 2");
	assert_contains(err.msg, fragment);
}

static void test_refused_no_value(void **state)
{
	(void)state;
	refused(NULL, "requires a value");
	refused("", "is empty");
}

static void test_refused_not_a_number(void **state)
{
	(void)state;
	refused("abc", "--supernode=abc is not a whole number");
	refused("2x", "--supernode=2x is not a whole number");
	refused("2abc", "is not a whole number");
	refused("1.5", "--supernode=1.5 is not a whole number");
	refused(" 2", "is not a whole number");
	refused("2 ", "is not a whole number");
	refused("+2", "--supernode=+2 is not a whole number");
	refused("0x2", "--supernode=0x2 is not a whole number");
	refused("-", "is not a whole number");
	refused("--1", "is not a whole number");
}

static void test_refused_out_of_range(void **state)
{
	(void)state;
	refused("0", "--supernode=0 is out of range (allowed: 1 to 2)");
	refused("-1", "--supernode=-1 is out of range (allowed: 1 to 2)");
	refused("3", "--supernode=3 is out of range (allowed: 1 to 2)");
	/* ERANGE is refused, not wrapped to some small number. */
	refused("99999999999999999999",
		"--supernode=99999999999999999999 is out of range");
	refused("4294967297", "is out of range"); /* 2^32 + 1 */
}

static void test_accepted(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	err_reset(&err);
	assert_int_equal(sn_supernode_count_parse("1", MAX, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(sn_supernode_count_parse("2", MAX, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(err.msg, "(unset)"); /* no message on success */
}

/* A repeated callback replaces the value (field case 18: "2" then "3"). */
static void test_repeat_replaces(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(sn_supernode_count_parse("2", 4, &n, &err), 0);
	assert_int_equal(sn_supernode_count_parse("3", 4, &n, &err), 0);
	assert_int_equal(n, 3);
}

/* The range in the message follows max; NULL err is allowed. */
static void test_message_follows_max(void **state)
{
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(sn_supernode_count_parse("5", 4, &n, &err), -1);
	assert_string_equal(err.msg,
			    "--supernode=5 is out of range (allowed: 1 to 4)");
	assert_int_equal(sn_supernode_count_parse("0", 4, &n, NULL), -1);
	assert_int_equal(sn_supernode_count_parse("4", 4, &n, NULL), 0);
	assert_int_equal(n, 4);
}

/* ---- the command line ---------------------------------------------- */

/* argv as /proc/self/cmdline holds it: each argument NUL-ended. */
struct cmdline {
	char *buf;
	size_t len, cap;
};

static void arg_add(struct cmdline *c, const char *arg)
{
	size_t n = strlen(arg) + 1;

	if (c->len + n + 1 > c->cap) {
		c->cap = (c->len + n + 1) * 2;
		c->buf = realloc(c->buf, c->cap);
		assert_non_null(c->buf);
	}
	memcpy(c->buf + c->len, arg, n);
	c->len += n;
	c->buf[c->len] = '\0';
}

/* sbatch, then n_export times --export=ALL (13 bytes each), then more. */
static void cmdline_build(struct cmdline *c, size_t n_export,
			  const char *const *tail)
{
	memset(c, 0, sizeof(*c));
	arg_add(c, "sbatch");
	for (size_t i = 0; i < n_export; i++)
		arg_add(c, "--export=ALL");
	for (; *tail; tail++)
		arg_add(c, *tail);
}

static const char *find(const struct cmdline *c)
{
	return sn_cmdline_supernode_find(c->buf, c->len);
}

/* Issue 9 item 13: --supernode=1 after 91 KiB of arguments is found. */
static void test_cmdline_find_far(void **state)
{
	static const char *const tail[] = { "--supernode=1", "job.sh", NULL };
	struct cmdline c;

	(void)state;
	cmdline_build(&c, 7000, tail);
	assert_int_equal(c.len, 7 + 7000 * 13 + 14 + 7);
	assert_true(c.len > 65536);
	assert_string_equal(find(&c), "1");
	free(c.buf);
}

/* getopt_long's forms; the last one wins; "--" ends the options. */
static void test_cmdline_find_forms(void **state)
{
	static const char *const sep[] = { "-N", "2", "--supernode",
					   "2",	 "x", NULL };
	static const char *const last[] = { "--supernode=1", "--supernode", "3",
					    NULL };
	static const char *const env[] = { "--supernode-env=show",
					   "--supernodes=4", NULL };
	static const char *const dashdash[] = { "--supernode=1", "--",
						"--supernode=5", NULL };
	static const char *const bare[] = { "--supernode", NULL };
	static const char *const none[] = { NULL };
	struct cmdline c;

	(void)state;
	cmdline_build(&c, 0, sep);
	assert_string_equal(find(&c), "2");
	free(c.buf);
	cmdline_build(&c, 0, last);
	assert_string_equal(find(&c), "3");
	free(c.buf);
	cmdline_build(&c, 0, env);
	assert_null(find(&c));
	free(c.buf);
	cmdline_build(&c, 0, dashdash);
	assert_string_equal(find(&c), "1");
	free(c.buf);
	cmdline_build(&c, 0, bare);
	assert_string_equal(find(&c), "");
	free(c.buf);
	cmdline_build(&c, 0, none);
	assert_null(find(&c));
	free(c.buf);
	/* argv[0] is the program, never an option. */
	assert_null(sn_cmdline_supernode_find("--supernode=9", 14));
}

static char *write_temp(const char *data, size_t len)
{
	char *path = strdup("/tmp/sn-cmdline-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	return path;
}

/* Read whole, however long, up to SN_CMDLINE_MAX; one byte more: refused. */
static void test_cmdline_read(void **state)
{
	static const char *const tail[] = { "--supernode=2", "job.sh", NULL };
	struct sn_error err;
	struct cmdline c;
	char *buf, *path, *big;
	size_t len;

	(void)state;
	cmdline_build(&c, 20000, tail); /* 260 KiB */
	path = write_temp(c.buf, c.len);
	assert_int_equal(sn_cmdline_read(path, &buf, &len, &err), 0);
	assert_int_equal(len, c.len);
	assert_memory_equal(buf, c.buf, c.len);
	assert_string_equal(sn_cmdline_supernode_find(buf, len), "2");
	free(buf);
	unlink(path);
	free(path);
	free(c.buf);

	big = malloc(SN_CMDLINE_MAX + 1);
	assert_non_null(big);
	memset(big, 'a', SN_CMDLINE_MAX + 1);
	path = write_temp(big, SN_CMDLINE_MAX);
	assert_int_equal(sn_cmdline_read(path, &buf, &len, &err), 0);
	assert_int_equal(len, SN_CMDLINE_MAX);
	free(buf);
	unlink(path);
	free(path);
	path = write_temp(big, SN_CMDLINE_MAX + 1);
	err_reset(&err);
	assert_int_equal(sn_cmdline_read(path, &buf, &len, &err), -1);
	assert_null(buf);
	assert_contains(err.msg, ": longer than any command line");
	unlink(path);
	free(path);
	free(big);

	err_reset(&err);
	assert_int_equal(
		sn_cmdline_read("/nonexistent/cmdline", &buf, &len, &err), -1);
	assert_string_equal(
		err.msg,
		"cannot open /nonexistent/cmdline: No such file or directory");
	/* This very process: its argv[0] and no --supernode. */
	assert_int_equal(
		sn_cmdline_read("/proc/self/cmdline", &buf, &len, &err), 0);
	assert_true(len > 0);
	assert_null(sn_cmdline_supernode_find(buf, len));
	free(buf);
}

/* sn_cmdline_supernode: the last --supernode of a command line file. */
static void test_cmdline_supernode(void **state)
{
	static const char two[] =
		"sbatch\0--supernode=1\0--supernode\0002\0job.sh";
	static const char none[] = "sbatch\0-N2\0job.sh";
	struct sn_error err;
	char *path, *value;

	(void)state;
	path = write_temp(two, sizeof(two));
	assert_int_equal(sn_cmdline_supernode(path, &value, &err), 1);
	assert_string_equal(value, "2");
	free(value);
	unlink(path);
	free(path);
	path = write_temp(none, sizeof(none));
	assert_int_equal(sn_cmdline_supernode(path, &value, &err), 0);
	assert_null(value);
	unlink(path);
	free(path);
	err_reset(&err);
	assert_int_equal(
		sn_cmdline_supernode("/nonexistent/cmdline", &value, &err), -1);
	assert_null(value);
	assert_string_equal(
		err.msg,
		"cannot open /nonexistent/cmdline: No such file or directory");
}

static struct sn_config *cfg_of(const char *yaml)
{
	struct sn_error err;
	struct sn_config *cfg;

	err_reset(&err);
	cfg = sn_config_load_buffer("t.yaml", yaml, strlen(yaml), &err);
	if (!cfg)
		fail_msg("config: %s", err.msg);
	return cfg;
}

#define TWO_SUPERNODES                                     \
	"supernodes:\n  - {name: sn01, nodes: 'a[1-2]'}\n" \
	"  - {name: sn02, nodes: 'b[1-2]'}\n"

/* sn_option_count_check: the range from the config, feature's one per job. */
static void test_count_check(void **state)
{
	struct sn_config *feature =
		cfg_of(TWO_SUPERNODES "placement: {method: feature}\n");
	struct sn_config *sw =
		cfg_of(TWO_SUPERNODES "placement: {method: switch}\n");
	struct sn_error cfg_err = {
		"cannot open: No such file or directory: /etc/slurm/supernode.yaml"
	};
	struct sn_error err;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(sn_option_count_check(sw, NULL, "2", "", &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(
		sn_option_count_check(feature, NULL, "1", "", &n, &err), 0);
	assert_int_equal(n, 1);
	err_reset(&err);
	assert_int_equal(sn_option_count_check(feature, NULL, "2",
					       "SBATCH_SUPERNODE: ", &n, &err),
			 -1);
	assert_string_equal(
		err.msg,
		"SBATCH_SUPERNODE: --supernode=2: this cluster's placement.method is 'feature', which places one supernode per job: use --supernode=1 (the admin can switch to placement.method 'switch' for jobs of several supernodes)");
	err_reset(&err);
	assert_int_equal(sn_option_count_check(sw, NULL, "3",
					       "SLURM_SUPERNODE: ", &n, &err),
			 -1);
	assert_string_equal(
		err.msg,
		"SLURM_SUPERNODE: --supernode=3 is out of range (allowed: 1 to 2)");
	err_reset(&err);
	assert_int_equal(sn_option_count_check(sw, NULL, "x", "", &n, &err),
			 -1);
	assert_string_equal(
		err.msg,
		"--supernode=x is not a whole number (allowed: 1 to 2)");
	err_reset(&err);
	assert_int_equal(sn_option_count_check(NULL, &cfg_err, "1",
					       "SALLOC_SUPERNODE: ", &n, &err),
			 -1);
	assert_string_equal(
		err.msg,
		"SALLOC_SUPERNODE: --supernode cannot be used: cannot open: No such file or directory: /etc/slurm/supernode.yaml");
	sn_config_free(feature);
	sn_config_free(sw);
}

/* sn_option_env_name: which variable stands for --supernode where. */
/*
 * sn_option_count_form: what a client passes on without the config.  A
 * value of the form is accepted by sn_option_count_check() exactly when it
 * is in the config's range (switch: no method limit), so skipping the
 * config on a well-formed value changes no verdict, only who gives it.
 */
static void test_count_form(void **state)
{
	static const char *const good[] = { "1",  "2",	 "3",
					    "17", "007", "4294967295" };
	static const uint32_t good_n[] = { 1, 2, 3, 17, 7, 4294967295u };
	static const char *const bad[] = { "",
					   "0",
					   "-1",
					   "-0",
					   "abc",
					   "2x",
					   "1.5",
					   " 2",
					   "2 ",
					   "+2",
					   "0x2",
					   "4294967296",
					   "99999999999999999999" };
	struct sn_config *sw =
		cfg_of(TWO_SUPERNODES "placement: {method: switch}\n");
	struct sn_error err;
	uint32_t n, m;

	(void)state;
	assert_false(sn_option_count_form(NULL, &n));
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		n = 0;
		if (!sn_option_count_form(good[i], &n))
			fail_msg("'%s' refused", good[i]);
		assert_int_equal(n, good_n[i]);
		m = 0;
		assert_int_equal(sn_option_count_check(sw, NULL, good[i], "",
						       &m, &err),
				 good_n[i] <= MAX ? 0 : -1);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 12345;
		if (sn_option_count_form(bad[i], &n))
			fail_msg("'%s' accepted as %u", bad[i], n);
		assert_int_equal(n, 12345);
		assert_int_equal(sn_option_count_check(sw, NULL, bad[i], "", &m,
						       &err),
				 -1);
	}
	sn_config_free(sw);
}

static void test_env_name(void **state)
{
	(void)state;
	assert_string_equal(sn_option_env_name(true, "srun"),
			    "SLURM_SUPERNODE");
	assert_string_equal(sn_option_env_name(true, "sbatch"),
			    "SLURM_SUPERNODE");
	assert_string_equal(sn_option_env_name(false, "sbatch"),
			    "SBATCH_SUPERNODE");
	assert_string_equal(sn_option_env_name(false, "salloc"),
			    "SALLOC_SUPERNODE");
	assert_null(sn_option_env_name(false, "srun"));
	assert_null(sn_option_env_name(false, "sbatchx"));
	assert_null(sn_option_env_name(false, NULL));
}

/* The job's spank_job_env in slurmctld: the last NAME= wins; forgeries. */
static void test_spank_env(void **state)
{
	char *env[] = { "SUPERNODE=1",	     NULL,
			"SUPERNODEX=7",	     "SUPERNODE=2",
			"SPANK_SUPERNODE=1", "SUPERNODE" };

	(void)state;
	assert_string_equal(sn_option_env_value(env, 6, "SUPERNODE"), "2");
	assert_string_equal(sn_option_env_value(env, 1, "SUPERNODE"), "1");
	assert_string_equal(sn_option_env_value(env, 6, "SUPERNODEX"), "7");
	assert_string_equal(sn_option_env_value(env, 6, "SPANK_SUPERNODE"),
			    "1");
	assert_null(sn_option_env_value(env, 6, "SUPERNODE_SRUN"));
	assert_null(sn_option_env_value(NULL, 6, "SUPERNODE"));
	assert_true(sn_option_env_forged("SPANK_SUPERNODE=1"));
	assert_true(sn_option_env_forged("SPANK_SUPERNODE="));
	assert_false(sn_option_env_forged("SUPERNODE=1"));
	assert_false(sn_option_env_forged("SPANK_SUPERNODE_X=1"));
	assert_false(sn_option_env_forged("SPANK_SUPERNODE"));
	assert_false(sn_option_env_forged(NULL));
}

/* sn_option_env_applies: command line > environment > #SBATCH line. */
static void test_env_applies(void **state)
{
	static const char cli[] = "sbatch\0--supernode=1\0job.sh";
	static const char script[] = "sbatch\0job.sh";
	struct sn_error err;
	char *path;

	(void)state;
	err_reset(&err);
	assert_false(sn_option_env_applies(NULL, false, "/nonexistent", &err));
	assert_string_equal(err.msg, "");
	assert_true(sn_option_env_applies("2", false, "/nonexistent", &err));
	assert_string_equal(err.msg, "");
	path = write_temp(cli, sizeof(cli));
	assert_false(sn_option_env_applies("2", true, path, &err));
	assert_string_equal(err.msg, "");
	unlink(path);
	free(path);
	path = write_temp(script, sizeof(script)); /* #SBATCH --supernode=1 */
	assert_true(sn_option_env_applies("2", true, path, &err));
	assert_string_equal(err.msg, "");
	unlink(path);
	free(path);
	assert_false(sn_option_env_applies("2", true, "/nonexistent", &err));
	assert_string_equal(
		err.msg,
		"cannot open /nonexistent: No such file or directory: taking --supernode for given on the command line");
}

/* sn_option_args_parse: plugstack.conf's config= and state_dir=, strictly. */
static void args_refused(int ac, char **av, const char *msg)
{
	static struct sn_plugin_args args;
	struct sn_error err;

	err_reset(&err);
	assert_int_equal(sn_option_args_parse(ac, av, &args, &err), -1);
	assert_string_equal(err.msg, msg);
}

#define AAA8 "aaaaaaaa"
#define AAA56 AAA8 AAA8 AAA8 AAA8 AAA8 AAA8 AAA8

static void test_args(void **state)
{
	static char long_arg[PATH_MAX + 16];
	static struct sn_plugin_args args;
	char *none[] = { NULL };
	char *both[] = { "state_dir=/var/x/%n", "config=/etc/x.yaml" };
	char *unknown[] = { "conf=/x" };
	char *twice[] = { "config=/a", "config=/b" };
	char *twice_state[] = { "state_dir=/a", "state_dir=/b" };
	char *relative[] = { "config=x.yaml" };
	char *relative_state[] = { "state_dir=var/x" };
	char *empty[] = { "config=" };
	char *bad_escape[] = { "state_dir=/var/%j" };
	char *long_path[] = { long_arg };
	struct sn_error err;

	(void)state;
	assert_int_equal(sn_option_args_parse(0, none, &args, &err), 0);
	assert_string_equal(args.config, "/etc/slurm/supernode.yaml");
	assert_string_equal(args.state_dir, "/var/spool/supernode");
	assert_int_equal(sn_option_args_parse(2, both, &args, &err), 0);
	assert_string_equal(args.config, "/etc/x.yaml");
	assert_string_equal(args.state_dir, "/var/x/%n");
	args_refused(
		1, unknown,
		"plugstack.conf: unknown argument 'conf=/x' (allowed: config=PATH, state_dir=PATH)");
	args_refused(2, twice, "plugstack.conf: config= given twice");
	args_refused(2, twice_state, "plugstack.conf: state_dir= given twice");
	args_refused(
		1, relative,
		"plugstack.conf: config=x.yaml: expected an absolute path");
	args_refused(
		1, relative_state,
		"plugstack.conf: state_dir=var/x: expected an absolute path");
	args_refused(1, empty,
		     "plugstack.conf: config=: expected an absolute path");
	args_refused(
		1, bad_escape,
		"plugstack.conf: state_dir=/var/%j: only %n, %h and %% may follow a %");
	memcpy(long_arg, "config=/", 8);
	memset(long_arg + 8, 'a', PATH_MAX);
	args_refused(1, long_path,
		     "plugstack.conf: config=/" AAA56
		     "...: longer than 4095 bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_no_value),
		cmocka_unit_test(test_refused_not_a_number),
		cmocka_unit_test(test_refused_out_of_range),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_repeat_replaces),
		cmocka_unit_test(test_message_follows_max),
		cmocka_unit_test(test_cmdline_find_far),
		cmocka_unit_test(test_cmdline_find_forms),
		cmocka_unit_test(test_cmdline_read),
		cmocka_unit_test(test_cmdline_supernode),
		cmocka_unit_test(test_count_check),
		cmocka_unit_test(test_count_form),
		cmocka_unit_test(test_env_name),
		cmocka_unit_test(test_spank_env),
		cmocka_unit_test(test_env_applies),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests_name("option", tests, NULL, NULL);
}
