#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-event.h>

#include "event.h"

static int stops, reloads, last_signo;

static void on_stop(void *ud, int signo)
{
	stops++;
	last_signo = signo;
	sd_event_exit(ud, 0);
}

static void on_reload(void *ud)
{
	(void)ud;
	reloads++;
}

/* A datagram socket standing in for systemd's notify socket. */
static int notify_socket(char *path, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	snprintf(path, len, "/tmp/cpha-test-notify-%d", (int)getpid());
	unlink(path);
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	return fd;
}

static void recv_text(int fd, char *buf, size_t len)
{
	ssize_t n = recv(fd, buf, len - 1, 0);

	assert_true(n > 0);
	buf[n] = '\0';
}

static void test_signals_reach_callbacks(void **state)
{
	struct cpha_event_ops ops = { .stop = on_stop, .reload = on_reload };
	sd_event *e = NULL;
	int i;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_event_setup(e, &ops, e), 0);
	kill(getpid(), SIGHUP);
	for (i = 0; i < 10 && reloads == 0; i++)
		assert_true(sd_event_run(e, 100000) >= 0);
	assert_int_equal(reloads, 1);
	assert_int_equal(stops, 0);
	kill(getpid(), SIGTERM);
	assert_int_equal(sd_event_loop(e), 0);
	assert_int_equal(stops, 1);
	assert_int_equal(last_signo, SIGTERM);
	sd_event_unref(e);
}

static void test_default_stop_exits_loop(void **state)
{
	sd_event *e = NULL;

	(void)state;
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_event_setup(e, NULL, NULL), 0);
	kill(getpid(), SIGINT);
	assert_int_equal(sd_event_loop(e), 0); /* would hang if SIGINT were lost */
	sd_event_unref(e);
}

static void test_notify_messages(void **state)
{
	char path[108], buf[256];
	int fd;

	(void)state;
	fd = notify_socket(path, sizeof(path));
	assert_true(cpha_notify_ready("serving 3 backends") > 0);
	recv_text(fd, buf, sizeof(buf));
	assert_string_equal(buf, "READY=1\nSTATUS=serving 3 backends");
	assert_true(cpha_notify_reloading() > 0);
	recv_text(fd, buf, sizeof(buf));
	assert_int_equal(strncmp(buf, "RELOADING=1\nMONOTONIC_USEC=", 27), 0);
	assert_true(cpha_notify_stopping() > 0);
	recv_text(fd, buf, sizeof(buf));
	assert_string_equal(buf, "STOPPING=1");
	assert_true(cpha_notify_status("%d up", 2) > 0);
	recv_text(fd, buf, sizeof(buf));
	assert_string_equal(buf, "STATUS=2 up");
	close(fd);
	unlink(path);
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(cpha_notify_ready(NULL), 0); /* outside systemd: no-op */
}

static int on_quit(sd_event_source *s, uint64_t usec, void *ud)
{
	(void)s;
	(void)usec;
	return sd_event_exit(ud, 0);
}

static void test_watchdog_pings(void **state)
{
	char path[108], buf[256], pid[32];
	sd_event *e = NULL;
	int fd, pings = 0;

	(void)state;
	fd = notify_socket(path, sizeof(path));
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("WATCHDOG_PID", pid, 1);
	setenv("WATCHDOG_USEC", "200000", 1);
	assert_int_equal(sd_event_new(&e), 0);
	assert_int_equal(cpha_event_setup(e, NULL, NULL), 0);
	assert_int_equal(sd_event_get_watchdog(e), 1);
	assert_true(
		sd_event_add_time_relative(e, NULL, CLOCK_MONOTONIC, 500000, 0, on_quit, e) >= 0);
	assert_int_equal(sd_event_loop(e), 0);
	while (recv(fd, buf, sizeof(buf) - 1, 0) > 0)
		pings++;
	assert_true(pings >= 2); /* at least every half of WATCHDOG_USEC */
	sd_event_unref(e);
	close(fd);
	unlink(path);
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
}

struct rearm_count {
	sd_event *e;
	int fired;
};

static int on_rearm(sd_event_source *s, uint64_t usec, void *ud)
{
	struct rearm_count *c = ud;

	(void)usec;
	if (++c->fired < 10)
		assert_int_equal(cpha_timer_rearm(s, 2000), 0);
	return 0;
}

/* A periodic timer re-armed from its own callback fires every time, not
 * only the first (vipd's tracking poll once fired once and never again). */
static void test_timer_rearm_fires_again(void **state)
{
	struct rearm_count c = { 0 };
	sd_event_source *s = NULL;
	int i;

	(void)state;
	assert_int_equal(sd_event_new(&c.e), 0);
	assert_true(sd_event_add_time_relative(c.e, &s, CLOCK_MONOTONIC, 1000, 1, on_rearm, &c) >= 0);
	for (i = 0; i < 200 && c.fired < 10; i++) /* bounded: 200 waits of 10 ms at most */
		assert_true(sd_event_run(c.e, 10000) >= 0);
	assert_int_equal(c.fired, 10);
	/* fired and disabled now; re-armed from outside, it fires once more */
	for (i = 0; i < 5; i++)
		assert_true(sd_event_run(c.e, 10000) >= 0);
	assert_int_equal(c.fired, 10);
	assert_int_equal(cpha_timer_rearm(s, 1000), 0);
	for (i = 0; i < 200 && c.fired < 11; i++)
		assert_true(sd_event_run(c.e, 10000) >= 0);
	assert_int_equal(c.fired, 11);
	sd_event_source_unref(s);
	sd_event_unref(c.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals_reach_callbacks),
		cmocka_unit_test(test_default_stop_exits_loop),
		cmocka_unit_test(test_notify_messages),
		cmocka_unit_test(test_watchdog_pings),
		cmocka_unit_test(test_timer_rearm_fires_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
