/* Command lines, EnvironmentFile= files, flags, node maps, stats sockets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ocf_args.h"

static void expect_words(const char *line, const char *const *want)
{
	struct ocf_strv v = { 0 };
	const char *why = NULL;
	size_t i;

	assert_int_equal(ocf_split_words(line, &v, &why), 0);
	for (i = 0; want[i]; i++) {
		assert_true(i < v.n);
		assert_string_equal(v.v[i], want[i]);
	}
	assert_int_equal(v.n, i);
	ocf_strv_free(&v);
}

static void test_split_words(void **state)
{
	(void)state;
	expect_words(
		"--a=1  --b 2\t--c", (const char *const[]){ "--a=1", "--b", "2", "--c", NULL });
	expect_words("--x='a b' --y=\"c \\\"d\\\" $e\" f\\ g",
		(const char *const[]){ "--x=a b", "--y=c \"d\" $e", "f g", NULL });
	/* the classic unit's ExecStart continuation lines */
	expect_words("--etcd-servers=https://10.10.10.80:2379 \\\n  --v=2\n",
		(const char *const[]){ "--etcd-servers=https://10.10.10.80:2379", "--v=2", NULL });
	expect_words("--empty='' --q=\"\"", (const char *const[]){ "--empty=", "--q=", NULL });
	expect_words("''", (const char *const[]){ "", NULL });
	expect_words("   ", (const char *const[]){ NULL });
	expect_words("", (const char *const[]){ NULL });
	expect_words("'single \\ kept'", (const char *const[]){ "single \\ kept", NULL });
}

static void test_split_errors(void **state)
{
	struct ocf_strv v = { 0 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(ocf_split_words("--a='x", &v, &why), -EINVAL);
	assert_string_equal(why, "unterminated single quote");
	ocf_strv_free(&v);
	assert_int_equal(ocf_split_words("--a=\"x", &v, &why), -EINVAL);
	assert_string_equal(why, "unterminated double quote");
	ocf_strv_free(&v);
}

static void test_envfile(void **state)
{
	const char *text = "# /etc/kubernetes/apiserver.env\n"
			   "; also a comment\n"
			   "\n"
			   "KUBE_APISERVER_ARGS=\"--etcd-servers=https://a:2379,https://"
			   "b:2379,https://c:2379 \\\n"
			   "  --secure-port=6443 \\\n"
			   "  --v=2\"\n"
			   "export LANG=C.UTF-8\n"
			   "  SPACED =  value with trailing   \n"
			   "SINGLE='it''s $literal'\n"
			   "ESC=a\\ b\n"
			   "CONT=one \\\n"
			   "two\n"
			   "EMPTY=\n"
			   "SPACED=replaced\n";
	struct ocf_kvlist l = { 0 };
	struct ocf_strv w = { 0 };
	const char *why = NULL;
	unsigned line = 0;

	(void)state;
	assert_int_equal(ocf_envfile_parse(text, &l, &line, &why), 0);
	assert_string_equal(ocf_kv_get(&l, "LANG"), "C.UTF-8");
	assert_string_equal(ocf_kv_get(&l, "SINGLE"), "its $literal");
	assert_string_equal(ocf_kv_get(&l, "ESC"), "a b");
	assert_string_equal(ocf_kv_get(&l, "CONT"), "one two");
	assert_string_equal(ocf_kv_get(&l, "EMPTY"), "");
	assert_string_equal(ocf_kv_get(&l, "SPACED"), "replaced"); /* a later line wins */
	assert_null(ocf_kv_get(&l, "MISSING"));
	/* $KUBE_APISERVER_ARGS split into words as ExecStart= does */
	assert_int_equal(ocf_split_words(ocf_kv_get(&l, "KUBE_APISERVER_ARGS"), &w, &why), 0);
	assert_int_equal(w.n, 3);
	assert_string_equal(w.v[0], "--etcd-servers=https://a:2379,https://b:2379,https://c:2379");
	assert_string_equal(w.v[1], "--secure-port=6443");
	assert_string_equal(w.v[2], "--v=2");
	ocf_strv_free(&w);
	ocf_kv_free(&l);

	assert_int_equal(ocf_envfile_parse("A=1\n  SP =  x y  \n", &l, &line, &why), 0);
	assert_string_equal(ocf_kv_get(&l, "SP"), "x y");
	ocf_kv_free(&l);
}

static void test_envfile_errors(void **state)
{
	struct ocf_kvlist l = { 0 };
	const char *why = NULL;
	unsigned line = 0;

	(void)state;
	assert_int_equal(ocf_envfile_parse("A=1\nnot an assignment\n", &l, &line, &why), -EINVAL);
	assert_int_equal(line, 2);
	assert_string_equal(why, "expected KEY=VALUE");
	ocf_kv_free(&l);
	assert_int_equal(ocf_envfile_parse("\n\n1BAD=x\n", &l, &line, &why), -EINVAL);
	assert_int_equal(line, 3);
	assert_string_equal(why, "invalid variable name");
	ocf_kv_free(&l);
	assert_int_equal(ocf_envfile_parse("A=\"open\nB=2\n", &l, &line, &why), -EINVAL);
	assert_string_equal(why, "unterminated double quote");
	ocf_kv_free(&l);
	assert_int_equal(ocf_envfile_load("/nonexistent/cpha.env", &l, &line, &why), -ENOENT);
	ocf_kv_free(&l);
}

static void test_envfile_load(void **state)
{
	char path[] = "/tmp/cpha-test-envfile-XXXXXX";
	const char *text = "KUBE_SCHEDULER_ARGS=--kubeconfig=/k --v=2\n";
	struct ocf_kvlist l = { 0 };
	const char *why = NULL;
	unsigned line;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(ocf_envfile_load(path, &l, &line, &why), 0);
	assert_string_equal(ocf_kv_get(&l, "KUBE_SCHEDULER_ARGS"), "--kubeconfig=/k --v=2");
	ocf_kv_free(&l);
	unlink(path);
}

static void test_flags(void **state)
{
	struct ocf_strv v = { 0 };
	const char *why, *val = NULL;

	(void)state;
	assert_int_equal(ocf_split_words("/usr/bin/kube-controller-manager --kubeconfig /k "
					 "--leader-elect-lease-duration=4s --secure-port=10257 "
					 "--leader-elect --v=2 --secure-port 10300 --bind-address",
				 &v, &why),
		0);
	assert_int_equal(ocf_flag_get(&v, 1, "kubeconfig", false, &val), 1);
	assert_string_equal(val, "/k");
	/* the last one wins, both spellings */
	assert_int_equal(ocf_flag_get(&v, 1, "secure-port", false, &val), 1);
	assert_string_equal(val, "10300");
	/* --leader-elect is not --leader-elect-lease-duration */
	assert_int_equal(ocf_flag_get(&v, 1, "leader-elect", true, &val), 1);
	assert_string_equal(val, "true");
	assert_int_equal(ocf_flag_get(&v, 1, "leader-elect-lease-duration", false, &val), 1);
	assert_string_equal(val, "4s");
	assert_int_equal(ocf_flag_get(&v, 1, "leader-elect-renew-deadline", false, &val), 0);
	/* a value flag at the end with no value */
	assert_int_equal(ocf_flag_get(&v, 1, "bind-address", false, &val), 1);
	assert_string_equal(val, "");
	/* argv[0] is not searched */
	assert_int_equal(ocf_flag_get(&v, 1, "usr", false, &val), 0);
	ocf_strv_free(&v);

	assert_int_equal(ocf_split_words("x --leader-elect=false -- --v=3", &v, &why), 0);
	assert_int_equal(ocf_flag_get(&v, 1, "leader-elect", true, &val), 1);
	assert_string_equal(val, "false");
	assert_int_equal(ocf_flag_get(&v, 1, "v", false, &val), 0); /* after "--" */
	ocf_strv_free(&v);
}

static void test_node_map(void **state)
{
	struct ocf_kvlist l = { 0 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(ocf_map_parse("m0=https://198.18.0.11:2380 m1=https://198.18.0.12:2380;"
				       "  m2=https://[2001:db8::13]:2380\n",
				 &l, &why),
		0);
	assert_int_equal(l.n, 3);
	assert_string_equal(ocf_kv_get(&l, "m1"), "https://198.18.0.12:2380");
	assert_string_equal(ocf_kv_get(&l, "m2"), "https://[2001:db8::13]:2380");
	assert_string_equal(l.v[0].key, "m0"); /* order kept */
	ocf_kv_free(&l);

	assert_int_equal(ocf_map_parse("", &l, &why), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(ocf_map_parse("m0=a m0=b", &l, &why), -EINVAL);
	assert_string_equal(why, "a name is listed twice");
	ocf_kv_free(&l);
	assert_int_equal(ocf_map_parse("m0", &l, &why), -EINVAL);
	assert_string_equal(why, "expected name=value");
	ocf_kv_free(&l);
	assert_int_equal(ocf_map_parse("=x", &l, &why), -EINVAL);
	ocf_kv_free(&l);
	assert_int_equal(ocf_map_parse("m0=", &l, &why), -EINVAL);
	ocf_kv_free(&l);
}

static void test_stats_socket(void **state)
{
	char out[256];

	(void)state;
	assert_int_equal(
		ocf_hacfg_stats_socket("global\n    log stdout format raw local0\n"
				       "    stats socket /run/lbd/admin.sock mode 600 level "
				       "admin\n\ndefaults\n    mode tcp\n",
			out, sizeof(out)),
		1);
	assert_string_equal(out, "/run/lbd/admin.sock");
	/* TCP stats sockets are skipped, unix@ is accepted, comments ignored */
	assert_int_equal(ocf_hacfg_stats_socket("global\n  # stats socket /commented\n"
						"  stats socket ipv4@127.0.0.1:9999 level admin\n"
						"  stats socket unix@/run/haproxy/admin.sock\n",
				 out, sizeof(out)),
		1);
	assert_string_equal(out, "/run/haproxy/admin.sock");
	/* only the global section counts */
	assert_int_equal(ocf_hacfg_stats_socket("global\n  maxconn 10\nlisten stats\n"
						"  stats socket /not/global\n",
				 out, sizeof(out)),
		0);
	assert_int_equal(ocf_hacfg_stats_socket("", out, sizeof(out)), 0);
	assert_int_equal(
		ocf_hacfg_stats_socket("global\n stats socket /a/very/long/path\n", out, 8),
		-ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_split_errors),
		cmocka_unit_test(test_envfile),
		cmocka_unit_test(test_envfile_errors),
		cmocka_unit_test(test_envfile_load),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_node_map),
		cmocka_unit_test(test_stats_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
