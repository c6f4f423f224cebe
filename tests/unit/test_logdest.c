#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include <cmocka.h>

#include "logdest.h"

static void test_facilities(void **state)
{
	(void)state;
	assert_int_equal(cpha_logdest_facility("local0"), LOG_LOCAL0);
	assert_int_equal(cpha_logdest_facility("daemon"), LOG_DAEMON);
	assert_int_equal(cpha_logdest_facility("local8"), -EINVAL);
}

static void test_unix_syslog_rfc3164_and_raw(void **state)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct cpha_logdest d = { .kind = CPHA_LOGDEST_UNIX,
		.fd = -1,
		.facility = LOG_LOCAL0,
		.max_level = LOG_INFO,
		.tag = "lbd" };
	char buf[512];
	ssize_t n;
	int fd;

	(void)state;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "/tmp/cpha-test-logdest-%d", (int)getpid());
	unlink(sun.sun_path);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	snprintf(d.path, sizeof(d.path), "%s", sun.sun_path);
	assert_int_equal(cpha_logdest_open(&d), 0);

	assert_int_equal(cpha_logdest_send(&d, LOG_INFO, "198.18.0.5:40000 fe be/m0"), 0);
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	/* <PRI> = facility local0 (16 << 3) + info (6) = 134 */
	assert_int_equal(strncmp(buf, "<134>", 5), 0);
	assert_non_null(strstr(buf, " lbd["));
	assert_non_null(strstr(buf, "]: 198.18.0.5:40000 fe be/m0"));
	assert_null(strchr(buf, '\n')); /* datagrams carry no newline */

	assert_int_equal(cpha_logdest_send(&d, LOG_DEBUG, "above max level"), 0);
	d.raw = true;
	assert_int_equal(cpha_logdest_send(&d, LOG_ERR, "raw line"), 0);
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	buf[n] = '\0';
	assert_string_equal(buf, "raw line"); /* the debug line was not sent */

	cpha_logdest_close(&d);
	close(fd);
	unlink(sun.sun_path);
}

static void test_stream_gets_newline(void **state)
{
	struct cpha_logdest d = {
		.kind = CPHA_LOGDEST_STDOUT, .raw = true, .max_level = LOG_DEBUG
	};
	int p[2], saved;
	char buf[64];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(p[1], STDOUT_FILENO);
	assert_int_equal(cpha_logdest_open(&d), 0);
	assert_int_equal(cpha_logdest_send(&d, LOG_INFO, "one line"), 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	assert_string_equal(buf, "one line\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_facilities),
		cmocka_unit_test(test_unix_syslog_rfc3164_and_raw),
		cmocka_unit_test(test_stream_gets_newline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
