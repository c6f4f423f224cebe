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

#include "conf_lex.h"

static void open_text(struct cpha_lex *lx, const char *text, unsigned flags)
{
	assert_int_equal(cpha_lex_open_mem(lx, "t.cfg", text, strlen(text), flags), 0);
}

/* Lex every line and join it as "line:tok|tok|tok" rows separated by ';'. */
static char *lex_all(const char *text, unsigned flags)
{
	static char out[2048];
	struct cpha_lex lx;
	struct cpha_lex_line l;
	size_t i;
	int r;

	out[0] = '\0';
	open_text(&lx, text, flags);
	while ((r = cpha_lex_next(&lx, &l)) == 1) {
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%u:", l.line);
		for (i = 0; i < l.n; i++)
			snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s", i ? "|" : "",
				l.tok[i].text);
		snprintf(out + strlen(out), sizeof(out) - strlen(out), ";");
	}
	assert_int_equal(r, 0);
	cpha_lex_free(&lx);
	return out;
}

static void test_haproxy_lines(void **state)
{
	(void)state;
	assert_string_equal(lex_all("global\n"
				    "    log stdout format raw local0  # trailing comment\n"
				    "\n"
				    "# whole-line comment\n"
				    "listen secure_kube_control_plane\n"
				    "bind :6443\n"
				    "\tserver m0 198.18.0.11:6443 check\r\n",
				    CPHA_LEX_HAPROXY),
		"1:global;2:log|stdout|format|raw|local0;5:listen|secure_kube_control_plane;"
		"6:bind|:6443;7:server|m0|198.18.0.11:6443|check;");
}

static void test_quotes_and_escapes(void **state)
{
	(void)state;
	assert_string_equal(lex_all("a \"two words\" 'single $HOME \\n' b\\ c \\# \"\"\n"
				    "x\\ty \"q\\\"q\" \\x41\n",
				    CPHA_LEX_HAPROXY),
		"1:a|two words|single $HOME \\n|b c|#|;2:x\ty|q\"q|A;");
}

static void test_env_expansion(void **state)
{
	(void)state;
	setenv("CPHA_LEX_TEST", "v", 1);
	unsetenv("CPHA_LEX_UNSET");
	assert_string_equal(lex_all("k \"${CPHA_LEX_TEST}-$CPHA_LEX_TEST-$CPHA_LEX_UNSET-$\" "
				    "$CPHA_LEX_TEST\n",
				    CPHA_LEX_HAPROXY),
		"1:k|v-v--$|$CPHA_LEX_TEST;");
	/* keepalived mode leaves $ alone */
	assert_string_equal(
		lex_all("k \"$CPHA_LEX_TEST\"\n", CPHA_LEX_KEEPALIVED), "1:k|$CPHA_LEX_TEST;");
}

static void test_keepalived_braces(void **state)
{
	struct cpha_lex lx;
	struct cpha_lex_line l;

	(void)state;
	assert_string_equal(lex_all("! comment\n"
				    "vrrp_instance VI_1 {\n"
				    "    virtual_ipaddress {198.18.0.2}  # x\n"
				    "    script \"/etc/keepalived/check apiserver.sh\"  ! bang\n"
				    "}\n",
				    CPHA_LEX_KEEPALIVED),
		"2:vrrp_instance|VI_1|{;3:virtual_ipaddress|{|198.18.0.2|};"
		"4:script|/etc/keepalived/check apiserver.sh;5:};");

	open_text(&lx, "a {\n\"{\"\n", CPHA_LEX_KEEPALIVED);
	assert_int_equal(cpha_lex_next(&lx, &l), 1);
	assert_int_equal(l.tok[1].kind, CPHA_TOK_LBRACE);
	assert_int_equal(cpha_lex_next(&lx, &l), 1);
	assert_int_equal(l.tok[0].kind, CPHA_TOK_WORD); /* quoted brace is a word */
	assert_true(l.tok[0].quoted);
	cpha_lex_free(&lx);

	/* in HAProxy mode braces and '!' are ordinary characters */
	assert_string_equal(lex_all("acl x {a} !b\n", CPHA_LEX_HAPROXY), "1:acl|x|{a}|!b;");
}

static void test_continuation(void **state)
{
	(void)state;
	assert_string_equal(lex_all("unicast_peer \\\n  198.18.0.12 \\\r\n  198.18.0.13\nnext\n",
				    CPHA_LEX_KEEPALIVED),
		"1:unicast_peer|198.18.0.12|198.18.0.13;4:next;");
}

static void expect_error(const char *text, unsigned flags, unsigned line, const char *msg)
{
	struct cpha_lex lx;
	struct cpha_lex_line l;
	int r;

	open_text(&lx, text, flags);
	while ((r = cpha_lex_next(&lx, &l)) == 1)
		;
	assert_int_equal(r, -EINVAL);
	assert_int_equal(lx.err_line, line);
	assert_non_null(strstr(lx.err, msg));
	cpha_lex_free(&lx);
}

static void test_errors_have_lines(void **state)
{
	(void)state;
	expect_error("ok\nbad \"open\nafter\n", CPHA_LEX_HAPROXY, 2, "unterminated double quote");
	expect_error("a\nb\nc 'x\n", CPHA_LEX_HAPROXY, 3, "unterminated single quote");
	expect_error("a \\x4\n", CPHA_LEX_HAPROXY, 1, "two hex digits");
	expect_error("a\n\"${BROKEN\"\n", CPHA_LEX_HAPROXY, 2, "${NAME}");
	expect_error("a\nb \\\n", CPHA_LEX_HAPROXY, 2, "backslash at the end");
}

static void test_nul_byte(void **state)
{
	struct cpha_lex lx;
	struct cpha_lex_line l;
	const char text[] = "a\nb\0c\n";

	(void)state;
	assert_int_equal(cpha_lex_open_mem(&lx, "t", text, sizeof(text) - 1, 0), 0);
	assert_int_equal(cpha_lex_next(&lx, &l), 1);
	assert_int_equal(cpha_lex_next(&lx, &l), -EINVAL);
	assert_int_equal(lx.err_line, 2);
	cpha_lex_free(&lx);
}

static void test_open_file(void **state)
{
	char path[] = "/tmp/cpha-test-lex-XXXXXX";
	struct cpha_lex lx;
	struct cpha_lex_line l;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "defaults\n  mode tcp\n", 20), 20);
	close(fd);
	assert_int_equal(cpha_lex_open(&lx, path, CPHA_LEX_HAPROXY), 0);
	assert_string_equal(lx.file, path);
	assert_int_equal(cpha_lex_next(&lx, &l), 1);
	assert_int_equal(cpha_lex_next(&lx, &l), 1);
	assert_int_equal(l.line, 2);
	assert_string_equal(l.tok[1].text, "tcp");
	assert_int_equal(cpha_lex_next(&lx, &l), 0);
	cpha_lex_free(&lx);
	unlink(path);
	assert_int_equal(cpha_lex_open(&lx, path, 0), -ENOENT);
	assert_non_null(strstr(lx.err, "No such file"));
	cpha_lex_free(&lx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_haproxy_lines),
		cmocka_unit_test(test_quotes_and_escapes),
		cmocka_unit_test(test_env_expansion),
		cmocka_unit_test(test_keepalived_braces),
		cmocka_unit_test(test_continuation),
		cmocka_unit_test(test_errors_have_lines),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_open_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
