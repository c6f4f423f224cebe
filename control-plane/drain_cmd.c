/* `cpha drain MASTER` and `cpha undrain MASTER`, on an LB host: the
 * master's apiserver out of the local load balancer's rotation, and back,
 * through its admin socket (lbd's or HAProxy's: the same commands).
 * `cpha drain LBHOST` and `cpha undrain LBHOST`, on that LB host: its VRRP
 * instances into FAULT through the drain file they track, and back
 * (lbdrain.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "admin.h"
#include "cpha.h"
#include "drain.h"
#include "lbdrain.h"
#include "render_ha.h"
#include "render_paths.h"
#include "status.h"

#define DRAIN_TIMEOUT_USEC 5000000ULL
/* how long a drain waits for the VIP to move, an undrain for FAULT to end */
#define LBDRAIN_WAIT_SEC   20
#define LBDRAIN_ASK_USEC   2000000ULL

static void usage(FILE *f, bool drain)
{
	fprintf(f,
		"usage: cpha [-f FILE] %s MASTER [--socket PATH]%s [--dry-run]\n"
		"       cpha [-f FILE] %s LBHOST [--lb]%s [--pki DIR] [--drain-file PATH] "
		"[--dry-run]\n"
		"  on an LB host: %s\n"
		"  on LBHOST itself: %s\n"
		"%s"
		"  --socket PATH  the load balancer's admin socket (default " RENDER_LBD_SOCKET
		", or\n"
		"                 " RENDER_HAPROXY_SOCKET " when the description's lb is haproxy)\n"
		"  --lb           NAME is the LB host to drain, also where it is a master\n"
		"  --pki DIR      the certificates of cpha pki, to read the other LB hosts'\n"
		"                 vipd /status (default: as installed on this host)\n"
		"  --drain-file PATH  the file the VRRP instances track (default\n"
		"                 " RENDER_LB_DRAIN_FILE ")\n"
		"  --dry-run      say what would be done, change nothing\n",
		drain ? "drain" : "undrain", drain ? " [--force]" : "", drain ? "drain" : "undrain",
		drain ? " [--force]" : "",
		drain ? "no new connection to MASTER's apiserver; its connections end by "
			"themselves"
		      : "MASTER's apiserver back in rotation (once its checks pass)",
		drain ? "its VRRP instances in FAULT: priority 0 sent, the VIP handed to a "
			"backup;\n                    waits until the VIP has moved"
		      : "its VRRP instances out of FAULT (waits until they are)",
		drain ? "  --force        even when it is the only apiserver in rotation here,\n"
			"                 or the only LB host up to hold the VIP\n"
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

/* The drain file's value: 0 when it is missing or empty (keepalived's
 * track_file reads it so), -1 after saying why it cannot be read. */
static long drain_file_value(const char *verb, const char *path)
{
	FILE *f = fopen(path, "re");
	long v = 0;

	if (!f) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "cpha %s: %s: %s\n", verb, path, strerror(errno));
		return -1;
	}
	if (fscanf(f, "%ld", &v) != 1)
		v = 0;
	fclose(f);
	return v < 0 ? -v : v;
}

static int drain_file_write(const char *verb, const char *path, bool on)
{
	char dir[512], *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			fprintf(stderr, "cpha %s: %s: %s\n", verb, dir, strerror(errno));
			return -1;
		}
	}
	/* in place, not renamed over: keepalived's inotify sees the close */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || write(fd, on ? "1\n" : "0\n", 2) != 2 || fsync(fd) == -1) {
		fprintf(stderr, "cpha %s: writing %s: %s\n", verb, path, strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	return close(fd);
}

/* Whether one of the cluster's VIPs is on an interface of this host. */
static bool holds_vip(const struct cp_cluster *c)
{
	struct ifaddrs *ifa, *i;
	bool yes = false;

	if (getifaddrs(&ifa) == -1)
		return false;
	for (i = ifa; i && !yes; i = i->ifa_next)
		yes = cpha_addr_same_ip(&c->vip, i->ifa_addr) ||
		      (c->has_vip2 && cpha_addr_same_ip(&c->vip2, i->ifa_addr));
	freeifaddrs(ifa);
	return yes;
}

/* The other LB hosts' vipd, and this host's VRRP state ("" unknown). */
static size_t lb_peers(const struct cp_cluster *c, const char *pki, const char *self,
	struct lbdrain_peer *p, size_t max, char *local, size_t locallen, long *local_hold)
{
	struct st_snapshot *s = calloc(1, sizeof(*s));
	size_t n = 0;

	snprintf(local, locallen, "%s", "");
	if (!s)
		return 0;
	status_collect_lbs(c, pki, LBDRAIN_ASK_USEC, s);
	for (size_t i = 0; i < s->nlbs; i++) {
		const struct st_lb *lb = &s->lbs[i];

		if (strcmp(lb->host, self) == 0) {
			if (lb->vipd == ST_ANSWERED) {
				snprintf(local, locallen, "%s", lb->vrrp);
				*local_hold = lb->hold_ms;
			}
			continue;
		}
		if (n == max)
			continue;
		snprintf(p[n].name, sizeof(p[n].name), "%s", lb->host);
		p[n].answered = lb->vipd == ST_ANSWERED;
		snprintf(p[n].vrrp, sizeof(p[n].vrrp), "%s", lb->vrrp);
		p[n].drained = lb->drained;
		p[n].hold_ms = lb->hold_ms;
		n++;
	}
	free(s);
	return n;
}

static int lb_run(const char *verb, const struct cp_cluster *c, const char *host, const char *pki,
	const char *path, bool drain, bool force, bool dry)
{
	struct lbdrain_peer peers[ST_MAX_HOSTS];
	struct lbdrain_in in = { .host = host, .drain = drain, .force = force };
	char why[1024], local[16], self[256] = "";
	long v = drain_file_value(verb, path), hold = 0;
	time_t end;

	if (v < 0)
		return CPHA_EXIT_FAIL;
	/* this host's name, or its name up to the first dot */
	if (gethostname(self, sizeof(self) - 1) == 0 && strcmp(self, host) != 0 &&
		!(strncmp(self, host, strlen(host)) == 0 && self[strlen(host)] == '.')) {
		fprintf(stderr, "cpha %s: %s is an LB host: run this on %s (this is %s)\n", verb,
			host, host, self);
		return CPHA_EXIT_FAIL;
	}
	in.drained = v != 0;
	in.holds_vip = holds_vip(c);
	in.peers_known = c->vipd == CP_VIP_VIPD;
	for (size_t i = 0; in.peers_known && i < cluster_lb_count(c); i++) {
		const struct cp_host *p = cluster_lb_host(c, i);
		struct cpha_addr a;

		if (strcmp(p->name, host) != 0 && !render_mon_reach(c, p, false, &a)) {
			in.peers_known = false;
			in.unknown_why = "the other LB hosts' vipd /status is on their loopback: "
					 "monitoring.listen";
		}
	}
	if (c->vipd != CP_VIP_VIPD)
		in.unknown_why = "keepalived answers no /status";
	if (in.peers_known)
		in.npeers =
			lb_peers(c, pki, host, peers, ST_MAX_HOSTS, local, sizeof(local), &hold);
	in.peers = peers;
	switch (lbdrain_decide(&in, why, sizeof(why))) {
	case LBDRAIN_REFUSE:
		fprintf(stderr, "cpha %s: %s\n", verb, why);
		return CPHA_EXIT_FAIL;
	case LBDRAIN_NOTHING:
		printf("%s\n", why);
		return CPHA_EXIT_OK;
	case LBDRAIN_WRITE:
		break;
	}
	if (dry) {
		printf("would write %d to %s: %s\n", drain, path, why);
		return CPHA_EXIT_OK;
	}
	if (drain_file_write(verb, path, drain) < 0)
		return CPHA_EXIT_FAIL;
	if (drain && !in.holds_vip) {
		printf("%s\n", why);
		return CPHA_EXIT_OK;
	}
	/* what the VRRP instances did, not what was asked */
	end = time(NULL) + LBDRAIN_WAIT_SEC;
	for (;;) {
		bool here = holds_vip(c);

		if (in.peers_known)
			in.npeers = lb_peers(
				c, pki, host, peers, ST_MAX_HOSTS, local, sizeof(local), &hold);
		if (lbdrain_settled(drain, here, in.peers_known ? local : "", hold, peers,
			    in.npeers, in.peers_known))
			break;
		if (time(NULL) >= end) {
			fprintf(stderr, "cpha %s: %s written to %s, but after %d s %s\n", verb,
				drain ? "1" : "0", path, LBDRAIN_WAIT_SEC,
				drain ? (here ? "the VIP is still on this host"
					      : "no other LB host says it holds the VIP")
				      : "this host's VRRP instance is still in FAULT, or starting");
			return CPHA_EXIT_FAIL;
		}
		usleep(200000);
	}
	for (size_t i = 0; drain && i < in.npeers; i++)
		if (strcmp(peers[i].vrrp, "MASTER") == 0)
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				"; %s holds the VIP now", peers[i].name);
	printf("%s\n", why);
	return CPHA_EXIT_OK;
}

static int drain_main(int argc, char **argv, const char *file, bool drain)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'F' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "lb", no_argument, NULL, 'L' },
		{ "pki", required_argument, NULL, 'p' },
		{ "drain-file", required_argument, NULL, 'D' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *verb = drain ? "drain" : "undrain", *sock = NULL, *pki = NULL;
	const char *dfile = RENDER_LB_DRAIN_FILE;
	bool force = false, dry = false, lb = false;
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
		case 'L':
			lb = true;
			break;
		case 'p':
			pki = optarg;
			break;
		case 'D':
			dfile = optarg;
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
	if (h && (h->roles & CP_ROLE_LB) && (lb || !(h->roles & CP_ROLE_MASTER))) {
		rc = lb_run(verb, c, h->name, pki, dfile, drain, force, dry);
		cluster_free(c);
		return rc;
	}
	if (!h || !(h->roles & CP_ROLE_MASTER) || lb) {
		fprintf(stderr, "cpha %s: %s is not a %s of %s; its %s:", verb, argv[optind],
			lb ? "load-balancer host" : "master or load-balancer host", file,
			lb ? "LB hosts" : "masters and LB hosts");
		for (size_t i = 0; i < c->nhosts; i++)
			if (c->hosts[i].roles & (lb ? CP_ROLE_LB : CP_ROLE_MASTER | CP_ROLE_LB))
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
