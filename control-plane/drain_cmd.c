/* `cpha drain MASTER` and `cpha undrain MASTER`, on an LB host: the
 * master's apiserver out of the local load balancer's rotation, and back,
 * through its admin socket (lbd's or HAProxy's: the same commands). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "cpha.h"
#include "drain.h"
#include "render_paths.h"

#define DRAIN_TIMEOUT_USEC 5000000ULL

static void usage(FILE *f, bool drain)
{
	fprintf(f,
		"usage: cpha [-f FILE] %s MASTER [--socket PATH]%s [--dry-run]\n"
		"  on an LB host: %s\n"
		"%s"
		"  --socket PATH  the load balancer's admin socket (default " RENDER_LBD_SOCKET
		", or\n"
		"                 " RENDER_HAPROXY_SOCKET " when the description's lb is haproxy)\n"
		"  --dry-run      say what would be done, change nothing\n",
		drain ? "drain" : "undrain", drain ? " [--force]" : "",
		drain ? "no new connection to MASTER's apiserver; its connections end by "
			"themselves"
		      : "MASTER's apiserver back in rotation (once its checks pass)",
		drain ? "  --force        even when it is the only apiserver in rotation here\n"
		      : "");
}

static const char *who(const struct cp_cluster *c)
{
	return c->lb == CP_LB_HAPROXY ? "haproxy" : "lbd";
}

/* The backend's servers as the load balancer has them: their count, or -1
 * after saying why. */
static int servers(const char *verb, const struct cp_cluster *c, const char *sock,
	struct drain_server *s, size_t max)
{
	char *reply = NULL, err[256];
	int r = cpha_admin_query(
		sock, "show servers state " RENDER_LB_PROXY, DRAIN_TIMEOUT_USEC, &reply);
	int n;

	if (r < 0) {
		fprintf(stderr, "cpha %s: %s's admin socket %s: %s%s\n", verb, who(c), sock,
			strerror(-r),
			r == -ENOENT || r == -ECONNREFUSED
				? " (run it on an LB host, with the load balancer running)"
				: "");
		return -1;
	}
	n = drain_parse_state(reply, RENDER_LB_PROXY, s, max, err, sizeof(err));
	if (n < 0)
		fprintf(stderr, "cpha %s: `show servers state " RENDER_LB_PROXY "` on %s: %s\n",
			verb, sock, err);
	free(reply);
	return n;
}

static int run(const char *verb, const struct cp_cluster *c, const char *name, const char *sock,
	bool drain, bool force, bool dry)
{
	struct drain_server s[DRAIN_MAX_SERVERS];
	char cmd[256], why[1024], *reply = NULL;
	enum drain_verdict v;
	int n = servers(verb, c, sock, s, DRAIN_MAX_SERVERS), r;

	if (n < 0)
		return CPHA_EXIT_FAIL;
	v = drain_decide(s, (size_t)n, RENDER_LB_PROXY, name, drain, force, cmd, sizeof(cmd), why,
		sizeof(why));
	if (v == DRAIN_REFUSE) {
		fprintf(stderr, "cpha %s: %s on %s: %s\n", verb, who(c), sock, why);
		return CPHA_EXIT_FAIL;
	}
	if (v == DRAIN_NOTHING || dry) {
		printf("%s%s\n", v == DRAIN_SEND ? "would send: " : "",
			v == DRAIN_SEND ? cmd : why);
		return CPHA_EXIT_OK;
	}
	r = cpha_admin_query(sock, cmd, DRAIN_TIMEOUT_USEC, &reply);
	if (r < 0 || (reply && reply[strspn(reply, " \r\n")])) {
		fprintf(stderr, "cpha %s: %s on %s: '%s': %s\n", verb, who(c), sock, cmd,
			r < 0 ? strerror(-r) : reply);
		free(reply);
		return CPHA_EXIT_FAIL;
	}
	free(reply);
	/* what the load balancer has now, not what was asked */
	n = servers(verb, c, sock, s, DRAIN_MAX_SERVERS);
	if (n < 0)
		return CPHA_EXIT_FAIL;
	for (int i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0 && !(s[i].admin & DRAIN_ADM_FDRAIN) == !drain) {
			printf("%s: %s\n", who(c), why);
			return CPHA_EXIT_OK;
		}
	fprintf(stderr, "cpha %s: %s on %s took '%s' but does not show it\n", verb, who(c), sock,
		cmd);
	return CPHA_EXIT_FAIL;
}

static int drain_main(int argc, char **argv, const char *file, bool drain)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'F' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *verb = drain ? "drain" : "undrain", *sock = NULL;
	bool force = false, dry = false;
	const struct cp_host *h;
	struct cp_cluster *c;
	int ch, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:nh", opts, NULL)) != -1) {
		switch (ch) {
		case 's':
			sock = optarg;
			break;
		case 'F':
			if (!drain) {
				usage(stderr, drain);
				return CPHA_EXIT_USAGE;
			}
			force = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout, drain);
			return CPHA_EXIT_OK;
		default:
			usage(stderr, drain);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr, drain);
		return CPHA_EXIT_USAGE;
	}
	c = cpha_load(file);
	if (!c)
		return CPHA_EXIT_FAIL;
	h = cluster_host(c, argv[optind]);
	if (!h || !(h->roles & CP_ROLE_MASTER)) {
		fprintf(stderr, "cpha %s: %s is not a master of %s; its masters:", verb,
			argv[optind], file);
		for (size_t i = 0; i < c->nhosts; i++)
			if (c->hosts[i].roles & CP_ROLE_MASTER)
				fprintf(stderr, " %s", c->hosts[i].name);
		fputc('\n', stderr);
		cluster_free(c);
		return CPHA_EXIT_FAIL;
	}
	if (!sock)
		sock = c->lb == CP_LB_HAPROXY ? RENDER_HAPROXY_SOCKET : RENDER_LBD_SOCKET;
	rc = run(verb, c, h->name, sock, drain, force, dry);
	cluster_free(c);
	return rc;
}

int cmd_drain(int argc, char **argv, const char *file)
{
	return drain_main(argc, argv, file, true);
}

int cmd_undrain(int argc, char **argv, const char *file)
{
	return drain_main(argc, argv, file, false);
}
