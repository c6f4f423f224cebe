/* `cpha status`: options, one round or a redraw every N seconds, the exit
 * status (the worst state: 0 healthy, 1 degraded, 2 down). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpha.h"
#include "duration.h"
#include "status.h"
#include "textfile.h"

#define STATUS_DEFAULT_PKI     "pki" /* as cpha pki: ./pki */
#define STATUS_DEFAULT_TIMEOUT (2 * CPHA_USEC_PER_SEC)
#define STATUS_DEFAULT_WATCH   2
#define STATUS_EXIT_CANNOT     3 /* no description or no PKI: nothing was asked */

static volatile sig_atomic_t interrupted;

static void on_signal(int signo)
{
	(void)signo;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: cpha status [-f FILE] [--json] [--watch [SECONDS]] [--pki DIR] "
		"[--timeout DURATION]\n"
		"                   [--textfile FILE] [--quiet]\n"
		"  --json            one JSON object: hosts, roles, problems, worst\n"
		"  --watch [N]       redraw every N seconds (default 2) until interrupted\n"
		"  --pki DIR         the certificates of cpha pki (default ./" STATUS_DEFAULT_PKI
		", else those installed in " STATUS_INSTALLED_K8S_PKI
		" and " STATUS_INSTALLED_ETCD_PKI ")\n"
		"  --timeout D       for each request (default 2s)\n"
		"  --textfile FILE   also write the cpha_* series there for node-exporter's\n"
		"                    textfile collector (FILE.prom in its directory), atomically\n"
		"  --quiet           print nothing on stdout (the exit status and --textfile "
		"stay)\n"
		"exit status: 0 healthy, 1 degraded, 2 down, 3 nothing could be asked or the\n"
		"textfile could not be written\n");
}

struct output {
	bool json, quiet;
	const char *textfile; /* NULL: none */
};

/* Write the round's series to o->textfile; -1 (said on stderr) when it
 * could not be written. */
static int write_textfile(
	const struct output *o, const struct st_snapshot *s, const struct st_report *r)
{
	struct cpha_buf t = { 0 };
	char why[4200];
	int rc = 0;

	status_textfile(s, r, (double)cpha_now_usec(CLOCK_REALTIME) / 1e6, &t);
	if (!t.data || textfile_write(o->textfile, t.data, t.len, why, sizeof(why)) < 0) {
		fprintf(stderr, "cpha status: --textfile %s\n", t.data ? why : "out of memory");
		rc = -1;
	}
	cpha_buf_free(&t);
	return rc;
}

/* One round: ask, judge, print, write the textfile. Returns the worst
 * state, or STATUS_EXIT_CANNOT when the textfile could not be written. */
static int round_once(const struct cp_cluster *c, const char *pki, uint64_t timeout,
	const struct output *o, bool clear)
{
	struct st_snapshot *s = calloc(1, sizeof(*s));
	struct st_report *r = calloc(1, sizeof(*r));
	struct cpha_buf b = { 0 };
	int worst;

	if (!s || !r) {
		free(s);
		free(r);
		fprintf(stderr, "cpha status: out of memory\n");
		return ST_DOWN;
	}
	status_collect(c, pki, timeout, s);
	status_check(s, r);
	if (o->json)
		status_show_json(s, r, &b);
	else
		status_show_text(s, r, &b);
	if (clear && !o->quiet)
		fputs("\033[H\033[2J", stdout);
	if (b.data && !o->quiet)
		fputs(b.data, stdout);
	fflush(stdout);
	worst = (int)r->worst;
	if (o->textfile && write_textfile(o, s, r) < 0)
		worst = STATUS_EXIT_CANNOT;
	cpha_buf_free(&b);
	free(s);
	free(r);
	return worst;
}

int cmd_status(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "watch", optional_argument, NULL, 'w' },
		{ "pki", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ "textfile", required_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pki = STATUS_DEFAULT_PKI, *why = NULL, *watch_arg;
	bool pki_given = false;
	uint64_t timeout = STATUS_DEFAULT_TIMEOUT;
	unsigned long every = 0;
	struct cp_cluster *c;
	struct sigaction sa;
	char ca[4096];
	struct output o = { 0 };
	int ch, worst;
	char *end;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			o.json = true;
			break;
		case 'T':
			o.textfile = optarg;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'w':
			/* --watch, --watch=N or --watch N */
			watch_arg = optarg;
			if (!watch_arg && optind < argc && argv[optind][0] >= '0' &&
				argv[optind][0] <= '9')
				watch_arg = argv[optind++];
			every = STATUS_DEFAULT_WATCH;
			if (watch_arg) {
				errno = 0;
				every = strtoul(watch_arg, &end, 10);
				if (errno || *end || every == 0 || every > 86400) {
					fprintf(stderr,
						"cpha status: --watch: '%s' is not a number of "
						"seconds (1 to 86400)\n",
						watch_arg);
					return CPHA_EXIT_USAGE;
				}
			}
			break;
		case 'p':
			pki = optarg;
			pki_given = true;
			break;
		case 't':
			if (cpha_parse_duration(optarg, CPHA_USEC_PER_SEC, &timeout, &why) < 0 ||
				timeout == 0) {
				fprintf(stderr, "cpha status: --timeout '%s': %s\n", optarg,
					why ? why : "must be more than 0");
				return CPHA_EXIT_USAGE;
			}
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cpha status: unexpected argument '%s'\n", argv[optind]);
		return CPHA_EXIT_USAGE;
	}
	snprintf(ca, sizeof(ca), "%s/ca.pem", pki);
	if (!pki_given && access(ca, R_OK) == -1 &&
		access(STATUS_INSTALLED_K8S_PKI "/ca.pem", R_OK) == 0) {
		pki = NULL; /* on a master: the certificates as installed there */
		snprintf(ca, sizeof(ca), "%s/ca.pem", STATUS_INSTALLED_K8S_PKI);
	}
	if (access(ca, R_OK) == -1) {
		fprintf(stderr, "cpha status: %s: %s (the directory cpha pki wrote: --pki DIR)\n",
			ca, strerror(errno));
		return STATUS_EXIT_CANNOT;
	}
	c = cpha_load(file);
	if (!c)
		return STATUS_EXIT_CANNOT;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: the sleep ends at once */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	worst = round_once(c, pki, timeout, &o, false);
	while (every && !interrupted) {
		struct timespec ts = { .tv_sec = (time_t)every };

		while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !interrupted)
			;
		if (interrupted)
			break;
		worst = round_once(c, pki, timeout, &o, isatty(STDOUT_FILENO));
	}
	cluster_free(c);
	return worst;
}
