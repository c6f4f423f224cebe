/* cpha render's flags against the binaries that take them: every flag of
 * every role is one the flag table gives that Kubernetes minor, the etcd
 * lines, the real etcd accepting its release line's flags (and an older
 * etcd refusing newer ones), and the kube-* stand-ins accepting theirs.
 * The masters' files themselves are checked in test_cpha_render.c. */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <yaml.h>

#include "flags.h"
#include "ocf_args.h"
#include "render.h"
#include "run.h"
#include "render_test.h"

/* Every role of every variant rendered for every minor of the table: each
 * flag is one the table says that minor's binary has. */
static void test_flags_in_table(void **state)
{
	size_t nm;
	const struct flags_k8s_minor *m = flags_k8s_minors(&nm);

	(void)state;
	assert_true(nm >= 3);
	for (size_t v = 0; v < NVARIANTS; v++) {
		struct cp_cluster *c = load(variants[v].fixture);
		const struct cp_host *h = cluster_role_host(c, CP_ROLE_MASTER, 0);

		for (size_t i = 0; i < nm; i++) {
			c->k8s_minor = m[i].minor;
			for (int r = FLAGS_APISERVER; r <= FLAGS_SCHEDULER; r++) {
				struct cp_flags f = build(c, h->name, (enum flags_role)r);

				for (size_t k = 0; k < f.n; k++)
					if (!flags_k8s_has(
						    (enum flags_role)r, m[i].minor, f.v[k].name))
						fail_msg("%s 1.%u has no --%s by the table",
							flags_program((enum flags_role)r),
							m[i].minor, f.v[k].name);
				flags_free(&f);
			}
		}
		cluster_free(c);
	}
	/* the table itself: the default is one of its minors and still
	 * supported on the day it was written; its removals are real rows */
	assert_non_null(flags_k8s_minor(flags_k8s_default_minor()));
	assert_false(flags_k8s_past_eol(flags_k8s_minor(flags_k8s_default_minor()), "2026-11-28"));
	assert_false(flags_k8s_has(FLAGS_APISERVER, 33, "cloud-provider"));
	assert_true(flags_k8s_has(FLAGS_CONTROLLER_MANAGER, 36, "concurrent-service-syncs"));
	assert_false(flags_k8s_has(FLAGS_CONTROLLER_MANAGER, 37, "concurrent-service-syncs"));
	assert_false(flags_k8s_has(FLAGS_SCHEDULER, 36, "no-such-flag"));
}

/* etcd's flags for each release line: 3.4 needs zap named; 3.6 renamed the
 * experimental flags; the agent's own flags are the same in every line. */
static void test_etcd_lines(void **state)
{
	static const struct {
		unsigned minor;
		const char *has[4], *lacks[4];
	} lines[] = {
		{ 4,
			{ "logger", "experimental-initial-corrupt-check",
				"experimental-watch-progress-notify-interval", NULL },
			{ "feature-gates", "watch-progress-notify-interval", NULL } },
		{ 5,
			{ "experimental-initial-corrupt-check",
				"experimental-watch-progress-notify-interval", NULL },
			{ "logger", "feature-gates", "watch-progress-notify-interval", NULL } },
		{ 6, { "feature-gates", "watch-progress-notify-interval", NULL },
			{ "logger", "experimental-initial-corrupt-check",
				"experimental-watch-progress-notify-interval", NULL } },
	};
	struct cp_cluster *c = load("tests/samples/cluster.yaml");

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct cp_flags f;

		c->etcd_minor = lines[i].minor;
		f = build(c, "kubem00", FLAGS_ETCD);
		for (size_t k = 0; lines[i].has[k]; k++)
			if (!flags_find(&f, lines[i].has[k]))
				fail_msg("etcd 3.%u: no --%s", lines[i].minor, lines[i].has[k]);
		for (size_t k = 0; lines[i].lacks[k]; k++)
			if (flags_find(&f, lines[i].lacks[k]))
				fail_msg("etcd 3.%u: --%s", lines[i].minor, lines[i].lacks[k]);
		if (lines[i].minor == 6)
			assert_string_equal(value(&f, "feature-gates"), "InitialCorruptCheck=true");
		/* ocf:cpha:etcd's parameters and what it makes itself */
		assert_string_equal(flags_find(&f, "trusted-ca-file")->param, "trusted_ca_file");
		assert_true(flags_find(&f, "initial-cluster")->attrs & FLAG_AGENT);
		assert_true(flags_find(&f, "pre-vote")->attrs & FLAG_AGENT);
		for (size_t k = 0; k < f.n; k++)
			if (!strncmp(f.v[k].name, "experimental-", 13) ||
				!strcmp(f.v[k].name, "feature-gates") ||
				!strcmp(f.v[k].name, "watch-progress-notify-interval") ||
				!strcmp(f.v[k].name, "logger"))
				assert_false(f.v[k].attrs & (FLAG_AGENT | FLAG_HOST));
		flags_free(&f);
	}
	cluster_free(c);
}

/* Run argv; true when it exited 0. */
static bool runs(const char *const *argv, struct cpha_run_result *res)
{
	assert_int_equal(run_capture(argv, res, NULL), 0);
	return res->exited && res->exit_code == 0;
}

/* The real etcd takes the flags of its own release line (it parses every
 * flag before --version stops it; nothing is started), and an etcd 3.4 or
 * 3.5 refuses 3.6's. */
static void test_etcd_accepts(void **state)
{
	struct cp_cluster *c = load("tests/fixtures/cpha/systemd.yaml");
	char *exe = run_which("etcd");
	unsigned installed = 0;
	struct cpha_run_result res;

	(void)state;
	if (!exe) {
		print_message("SKIP: etcd is not installed: its flags were not tried\n");
		cluster_free(c);
		return;
	}
	{
		const char *argv[] = { "etcd", "--version", NULL };
		const char *v;

		assert_true(runs(argv, &res));
		v = strstr(res.out, "etcd Version: 3.");
		assert_non_null(v);
		installed = (unsigned)atoi(v + strlen("etcd Version: 3."));
		cpha_run_free(&res);
	}
	print_message("etcd 3.%u is installed\n", installed);
	for (unsigned line = FLAGS_ETCD_MINOR_MIN; line <= FLAGS_ETCD_MINOR_MAX; line++) {
		const char *argv[40] = { "etcd" };
		struct cpha_buf words[40] = { 0 };
		struct cp_flags f;
		size_t n = 1;

		if (line != installed && !(line == 6 && installed < 6))
			continue;
		c->etcd_minor = line;
		f = build(c, "m1", FLAGS_ETCD);
		for (size_t i = 0; i < f.n; i++) {
			assert_int_equal(flags_format(&f.v[i], &words[i]), 0);
			argv[n++] = words[i].data;
		}
		argv[n++] = "--version";
		argv[n] = NULL;
		if (line == installed) {
			if (!runs(argv, &res))
				fail_msg("etcd 3.%u refused its flags:\n%s%s", line, res.out,
					res.err);
			assert_non_null(strstr(res.out, "etcd Version"));
			cpha_run_free(&res);
			/* and a flag it does not know fails the same way */
			argv[n - 1] = "--no-such-flag=1";
			argv[n++] = "--version";
			argv[n] = NULL;
			assert_false(runs(argv, &res));
		} else {
			/* 3.6's names are unknown to 3.4 and 3.5 */
			if (runs(argv, &res))
				fail_msg("etcd 3.%u took 3.6's flags", installed);
		}
		cpha_run_free(&res);
		for (size_t i = 0; i < 40; i++)
			cpha_buf_free(&words[i]);
		flags_free(&f);
	}
	free(exe);
	cluster_free(c);
}

/* The stand-ins play each minor of the table (KUBE_FIXTURE_VERSION) and
 * read the same table: every rendered flag is accepted, and listed as
 * theirs; every table flag the minor lacks is refused with kube's own
 * message, every one it has is accepted. So the C table and the stand-ins
 * cannot disagree unnoticed. */
static void test_standins_accept(void **state)
{
	static const char *const progs[] = { NULL, "kube-apiserver", "kube-controller-manager",
		"kube-scheduler" };
	struct cp_cluster *c = load("tests/fixtures/cpha/systemd.yaml");
	char *py = run_which("python3");
	size_t nm, nf;
	const struct flags_k8s_minor *m = flags_k8s_minors(&nm);
	const struct flags_k8s_flag *tf = flags_k8s_flags(&nf);

	(void)state;
	if (!py) {
		print_message("SKIP: python3 is not installed: the stand-ins were not tried\n");
		cluster_free(c);
		return;
	}
	for (size_t mi = 0; mi < nm; mi++)
		for (int r = FLAGS_APISERVER; r <= FLAGS_SCHEDULER; r++) {
			struct cp_flags f;
			const char *argv[40] = { "python3" };
			struct cpha_buf words[40] = { 0 };
			struct cpha_run_result res;
			char *script, rel[128], ver[32];
			size_t n = 1;

			c->k8s_minor = m[mi].minor;
			snprintf(ver, sizeof(ver), "v1.%u.%u", m[mi].minor, m[mi].patch);
			assert_int_equal(setenv("KUBE_FIXTURE_VERSION", ver, 1), 0);
			f = build(c, "m1", (enum flags_role)r);
			snprintf(rel, sizeof(rel), "control-plane/lab/simulators/%s", progs[r]);
			script = src_path(rel);
			argv[n++] = script;
			for (size_t i = 0; i < f.n; i++) {
				assert_int_equal(flags_format(&f.v[i], &words[i]), 0);
				argv[n++] = words[i].data;
			}
			argv[n++] = "--help";
			argv[n] = NULL;
			if (!runs(argv, &res) || strstr(res.err, "unknown flag") ||
				strstr(res.err, "deprecated"))
				fail_msg("%s %s:\n%s%s", progs[r], ver, res.out, res.err);
			/* every flag is one the stand-in lists as its own */
			const char *list = strstr(res.out, "accepts:"), *why = NULL;
			struct ocf_strv known = { 0 };
			assert_non_null(list);
			assert_int_equal(
				ocf_split_words(list + strlen("accepts:"), &known, &why), 0);
			for (size_t i = 0; i < f.n; i++) {
				char name[80];
				snprintf(name, sizeof(name), "--%s", f.v[i].name);
				if (!ocf_strv_contains(&known, name))
					fail_msg("%s %s does not know %s", progs[r], ver, name);
			}
			cpha_run_free(&res);
			/* the table's flags of this program, one at a time */
			for (size_t k = 0; k < nf; k++) {
				const char *one[5] = { "python3", script, NULL, "--help", NULL };
				char arg[128], want[160];
				bool has =
					flags_k8s_has((enum flags_role)r, m[mi].minor, tf[k].name);

				if (tf[k].role != (enum flags_role)r)
					continue;
				snprintf(arg, sizeof(arg), "--%s", tf[k].name);
				if (has != ocf_strv_contains(&known, arg))
					fail_msg("%s %s: --%s: the table says %s, the stand-in "
						 "lists "
						 "it %s",
						progs[r], ver, tf[k].name, has ? "yes" : "no",
						has ? "not" : "yes");
				if (has)
					continue;
				snprintf(arg, sizeof(arg), "--%s=%s", tf[k].name,
					!strcmp(tf[k].kind, "bool")       ? "true"
					: !strcmp(tf[k].kind, "int")      ? "1"
					: !strcmp(tf[k].kind, "duration") ? "1s"
									  : "x");
				one[2] = arg;
				snprintf(want, sizeof(want), "Error: unknown flag: --%s\n",
					tf[k].name);
				if (runs(one, &res) || res.exit_code != 1 || !strstr(res.err, want))
					fail_msg("%s %s took %s:\n%s", progs[r], ver, arg, res.err);
				cpha_run_free(&res);
			}
			ocf_strv_free(&known);
			for (size_t i = 0; i < 40; i++)
				cpha_buf_free(&words[i]);
			free(script);
			flags_free(&f);
		}
	unsetenv("KUBE_FIXTURE_VERSION");
	free(py);
	cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_in_table),
		cmocka_unit_test(test_etcd_lines),
		cmocka_unit_test(test_etcd_accepts),
		cmocka_unit_test(test_standins_accept),
	};

	if (!src_dir_known("test_cpha_render_flags"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
