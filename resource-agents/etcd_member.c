/* etcd membership: node map, member list, --initial-cluster, quorum,
 * decisions. etcd's answers are parsed in etcd_parse.c. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "etcd_member.h"
#include "ocf_args.h"
#include "ocf_urls.h"
#include "quorum.h"

/* ------------------------------------------------------------ the map -- */

bool etcd_url_equal(const char *a, const char *b)
{
	size_t la, lb;
	const char *ha, *hb;

	if (!a || !b)
		return false;
	la = strlen(a);
	lb = strlen(b);
	while (la && a[la - 1] == '/')
		la--;
	while (lb && b[lb - 1] == '/')
		lb--;
	if (la != lb)
		return false;
	/* scheme and host compare without case, the rest (a path) exactly */
	ha = strstr(a, "://");
	hb = strstr(b, "://");
	if (!ha || !hb || ha - a != hb - b)
		return strncmp(a, b, la) == 0;
	return strncasecmp(a, b, la) == 0;
}

/* Characters of a host name or IPv4 address. */
static bool host_chars(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
			return false;
	}
	return true;
}

/* An IPv6 address (no zone), len bytes of s. */
static bool v6_chars(const char *s, size_t len)
{
	struct in6_addr a;
	char buf[INET6_ADDRSTRLEN + 1];

	if (len < 2 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET6, buf, &a) == 1;
}

/* Dotted digits must be an IPv4 address ("300.1.1.1" is not a name). */
static bool v4_ok(const char *s, size_t len)
{
	struct in_addr a;
	char buf[INET_ADDRSTRLEN + 1];

	if (strspn(s, "0123456789.") < len)
		return true; /* a name */
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, &a) == 1;
}

/* The host of a map value written as a URL: "https://h:2380" -> "h" (or "[v6]"). */
static int url_host(const char *url, char *host, size_t len, const char **why)
{
	const char *p = strstr(url, "://"), *end, *colon;
	size_t n;

	if (!p || p == url) {
		*why = "a URL needs a scheme (https://...)";
		return -EINVAL;
	}
	if ((size_t)(p - url) != 4 && (size_t)(p - url) != 5) {
		*why = "the scheme of a peer URL is http or https";
		return -EINVAL;
	}
	if (strncasecmp(url, "http://", 7) != 0 && strncasecmp(url, "https://", 8) != 0) {
		*why = "the scheme of a peer URL is http or https";
		return -EINVAL;
	}
	p += 3;
	end = p + strcspn(p, "/");
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(end - p));

		if (!rb || !v6_chars(p + 1, (size_t)(rb - p - 1))) {
			*why = "bad IPv6 address in a URL";
			return -EINVAL;
		}
		n = (size_t)(rb - p + 1);
		colon = rb + 1;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		n = colon ? (size_t)(colon - p) : (size_t)(end - p);
		if (!host_chars(p, n) || !v4_ok(p, n)) {
			*why = "bad host in a URL";
			return -EINVAL;
		}
	}
	if (colon < end && *colon == ':') {
		if (colon + 1 == end ||
			strspn(colon + 1, "0123456789") != (size_t)(end - colon - 1)) {
			*why = "bad port in a URL";
			return -EINVAL;
		}
	} else if (colon < end) {
		*why = "bad URL";
		return -EINVAL;
	}
	if (*end && strcmp(end, "/") != 0) {
		*why = "a peer URL has no path";
		return -EINVAL;
	}
	if (n + 1 > len) {
		*why = "host too long";
		return -EINVAL;
	}
	memcpy(host, p, n);
	host[n] = '\0';
	return 0;
}

static void node_free(struct etcd_node *n)
{
	free(n->name);
	free(n->host);
	free(n->peer_url);
	free(n->client_url);
}

static int node_fill(struct etcd_node *n, const char *name, const char *value,
	const struct etcd_url_spec *spec, const char **why)
{
	char host[300];
	size_t len = strlen(value), vl;
	int r;

	memset(n, 0, sizeof(*n));
	if (strpbrk(name, ",=") || strlen(name) > 253) {
		*why = "a member name cannot hold ',' or '=' (it goes into --initial-cluster)";
		return -EINVAL;
	}
	if (strstr(value, "://")) {
		r = url_host(value, host, sizeof(host), why);
		if (r < 0)
			return r;
		vl = len;
		while (vl && value[vl - 1] == '/')
			vl--;
		if (asprintf(&n->peer_url, "%.*s", (int)vl, value) < 0)
			n->peer_url = NULL;
	} else {
		if (value[0] == '[') {
			if (len < 4 || value[len - 1] != ']' || !v6_chars(value + 1, len - 2)) {
				*why = "bad IPv6 address";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "%s", value);
		} else if (strchr(value, ':')) {
			if (!v6_chars(value, len) || len + 3 > sizeof(host)) {
				*why = "bad address (an IPv6 address, an IPv4 address, a host name "
				       "or "
				       "a peer URL)";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "[%s]", value);
		} else {
			if (!host_chars(value, len) || !v4_ok(value, len) ||
				len + 1 > sizeof(host)) {
				*why = "bad address (an IPv6 address, an IPv4 address, a host name "
				       "or "
				       "a peer URL)";
				return -EINVAL;
			}
			snprintf(host, sizeof(host), "%s", value);
		}
		if (asprintf(&n->peer_url, "%s://%s:%u", spec->peer_scheme, host, spec->peer_port) <
			0)
			n->peer_url = NULL;
	}
	n->name = strdup(name);
	n->host = strdup(host);
	if (asprintf(&n->client_url, "%s://%s:%u", spec->client_scheme, host, spec->client_port) <
		0)
		n->client_url = NULL;
	if (!n->name || !n->host || !n->peer_url || !n->client_url)
		return -ENOMEM;
	return 0;
}

int etcd_map_parse(
	const char *text, const struct etcd_url_spec *spec, struct etcd_map *out, const char **why)
{
	struct ocf_kvlist kv = { 0 };
	size_t i, j;
	int r;

	*why = NULL;
	memset(out, 0, sizeof(*out));
	r = ocf_map_parse(text, &kv, why);
	if (r < 0)
		goto out;
	if (kv.n == 0) {
		*why = "no members";
		r = -EINVAL;
		goto out;
	}
	out->v = calloc(kv.n, sizeof(*out->v));
	if (!out->v) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < kv.n; i++) {
		r = node_fill(&out->v[i], kv.v[i].key, kv.v[i].value, spec, why);
		out->n = i + 1;
		if (r < 0)
			goto out;
		for (j = 0; j < i; j++) {
			if (etcd_url_equal(out->v[j].peer_url, out->v[i].peer_url)) {
				*why = "two members have the same peer URL";
				r = -EINVAL;
				goto out;
			}
		}
	}
out:
	ocf_kv_free(&kv);
	if (r < 0)
		etcd_map_free(out);
	return r;
}

const struct etcd_node *etcd_map_find(const struct etcd_map *m, const char *name)
{
	size_t i;

	for (i = 0; name && i < m->n; i++) {
		if (strcmp(m->v[i].name, name) == 0)
			return &m->v[i];
	}
	return NULL;
}

const struct etcd_node *etcd_map_find_peer(const struct etcd_map *m, const char *peer_url)
{
	size_t i;

	for (i = 0; peer_url && i < m->n; i++) {
		if (etcd_url_equal(m->v[i].peer_url, peer_url))
			return &m->v[i];
	}
	return NULL;
}

void etcd_map_free(struct etcd_map *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		node_free(&m->v[i]);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* ------------------------------------------------------------- members -- */

static void member_free(struct etcd_member *m)
{
	free(m->name);
	ocf_strv_free(&m->peer_urls);
	ocf_strv_free(&m->client_urls);
}

void etcd_members_free(struct etcd_members *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		member_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

ssize_t etcd_members_find(const struct etcd_members *l, const char *name, const char *peer_url)
{
	size_t i, j;

	for (i = 0; peer_url && i < l->n; i++) {
		for (j = 0; j < l->v[i].peer_urls.n; j++) {
			if (etcd_url_equal(l->v[i].peer_urls.v[j], peer_url))
				return (ssize_t)i;
		}
	}
	for (i = 0; name && *name && i < l->n; i++) {
		if (strcmp(l->v[i].name, name) == 0)
			return (ssize_t)i;
	}
	return -1;
}

/* ----------------------------------------------------- initial cluster -- */

char *etcd_initial_cluster_map(const struct etcd_map *m, const struct ocf_strv *only)
{
	struct cpha_buf b = { 0 };
	size_t i;
	int r = cpha_buf_puts(&b, "");

	for (i = 0; r == 0 && i < m->n; i++) {
		if (only && !ocf_strv_contains(only, m->v[i].name))
			continue;
		r = cpha_buf_printf(
			&b, "%s%s=%s", b.len ? "," : "", m->v[i].name, m->v[i].peer_url);
	}
	if (r < 0) {
		cpha_buf_free(&b);
		return NULL;
	}
	return b.data;
}

char *etcd_initial_cluster_members(const struct etcd_members *l, const struct etcd_map *m)
{
	struct cpha_buf b = { 0 };
	const struct etcd_node *n;
	char fallback[64];
	const char *name;
	size_t i, j;
	int r = cpha_buf_puts(&b, "");

	for (i = 0; r == 0 && i < l->n; i++) {
		const struct etcd_member *e = &l->v[i];

		name = e->name;
		for (j = 0; !*name && j < e->peer_urls.n; j++) {
			n = etcd_map_find_peer(m, e->peer_urls.v[j]);
			if (n)
				name = n->name;
		}
		if (!*name) {
			/* never started and not in the map: any unique name will do */
			snprintf(fallback, sizeof(fallback), "member-%" PRIx64, e->id);
			name = fallback;
		}
		for (j = 0; r == 0 && j < e->peer_urls.n; j++)
			r = cpha_buf_printf(
				&b, "%s%s=%s", b.len ? "," : "", name, e->peer_urls.v[j]);
	}
	if (r < 0) {
		cpha_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* -------------------------------------------------------------- quorum -- */

/* The voting members with member idx counted as a voter or not (a learner
 * never is), and how many of them are healthy, idx not among them. */
static void count_voters(const struct etcd_members *l, size_t idx, bool idx_votes,
	unsigned *voters, unsigned *healthy)
{
	size_t i;

	*voters = *healthy = 0;
	for (i = 0; i < l->n; i++) {
		if (l->v[i].learner || (i == idx && !idx_votes))
			continue;
		(*voters)++;
		if (i != idx && l->v[i].healthy)
			(*healthy)++;
	}
}

bool etcd_removal_safe(const struct etcd_members *l, size_t idx)
{
	unsigned voters, healthy;

	if (idx >= l->n)
		return false;
	if (l->v[idx].learner)
		return true;
	count_voters(l, idx, false, &voters, &healthy);
	return voters > 0 && healthy >= cpha_quorum_majority(voters);
}

bool etcd_stop_safe(const struct etcd_members *l, size_t idx)
{
	unsigned voters, healthy;

	if (idx >= l->n)
		return false;
	if (l->v[idx].learner)
		return true;
	count_voters(l, idx, true, &voters, &healthy);
	return healthy >= cpha_quorum_majority(voters);
}

/* "3 or 5" for an even n: the odd sizes next to it. */
static void odd_neighbours(unsigned n, char *buf, size_t len)
{
	if (n == 2)
		snprintf(buf, len, "3 (or 1)");
	else
		snprintf(buf, len, "%u or %u", n - 1, n + 1);
}

/* s->fix and s->why for an even n; what: "clone-max" or "node_map". */
static void size_even(struct etcd_size *s, unsigned n, bool clone)
{
	char odd[32];

	odd_neighbours(n, odd, sizeof(odd));
	s->rc = -EDOM;
	s->n = n;
	/* the fix first: Pacemaker keeps 128 characters of an exit reason */
	if (clone)
		snprintf(s->fix, sizeof(s->fix), "even etcd size %u refused: set clone-max to %s",
			n, odd);
	else
		snprintf(s->fix, sizeof(s->fix),
			"even etcd size %u refused: list %s members in node_map", n, odd);
	/* Raft: 2n members need n+1 votes and survive n-1 failures, exactly
	 * what 2n-1 members survive */
	snprintf(s->why, sizeof(s->why),
		"%u survive %u failure%s as %u do%s, but need %u votes; or allow_even=true", n,
		cpha_quorum_tolerance(n), cpha_quorum_tolerance(n) == 1 ? "" : "s", n - 1,
		n - 1 == 1 ? "es" : "", cpha_quorum_majority(n));
}

int etcd_size_check(
	const struct ocf_clone *clone, size_t map_n, bool allow_even, struct etcd_size *s)
{
	bool is_clone = clone && clone->is_clone;

	memset(s, 0, sizeof(*s));
	if (is_clone && clone->max == 0) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why), "clone-max=0: no members");
		return s->rc;
	}
	if (is_clone && clone->max % 2 == 0 && !allow_even) {
		size_even(s, clone->max, true);
		return s->rc;
	}
	if (map_n == 0) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why), "node_map names no members");
		return s->rc;
	}
	if (map_n % 2 == 0 && !allow_even) {
		size_even(s, (unsigned)map_n, false);
		return s->rc;
	}
	if (is_clone && clone->max > map_n) {
		s->rc = -EINVAL;
		snprintf(s->why, sizeof(s->why),
			"clone-max=%u is more than the %zu members of node_map: an instance on a "
			"node outside the map cannot run a member",
			clone->max, map_n);
	}
	return s->rc;
}

/* ------------------------------------------------------------ decision -- */

const char *etcd_plan_name(enum etcd_plan p)
{
	static const char *const names[] = {
		[ETCD_PLAN_WAIT] = "wait",
		[ETCD_PLAN_BOOTSTRAP] = "bootstrap",
		[ETCD_PLAN_RESTART] = "restart-with-data",
		[ETCD_PLAN_START_LISTED] = "start-listed",
		[ETCD_PLAN_JOIN] = "join-as-learner",
		[ETCD_PLAN_REMOVE] = "remove-dead-member",
		[ETCD_PLAN_DISCARD] = "discard-removed-data",
		[ETCD_PLAN_REFUSE] = "refuse",
	};

	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* A member the map knows: by one of its peer URLs, or (started) by name. */
static bool in_map(const struct etcd_member *e, const struct etcd_map *m)
{
	size_t j;

	for (j = 0; j < e->peer_urls.n; j++) {
		if (etcd_map_find_peer(m, e->peer_urls.v[j]))
			return true;
	}
	return *e->name && etcd_map_find(m, e->name);
}

static const char *member_label(const struct etcd_member *e, char *buf, size_t len)
{
	if (*e->name)
		snprintf(buf, len, "%s (%" PRIx64 ")", e->name, e->id);
	else
		snprintf(buf, len, "%" PRIx64 " at %s", e->id,
			e->peer_urls.n ? e->peer_urls.v[0] : "?");
	return buf;
}

static int decide_reachable(const struct etcd_view *v, struct etcd_decision *d, ssize_t me)
{
	const struct etcd_members *l = v->members;
	char label[320];
	size_t i;

	if (me >= 0) {
		const struct etcd_member *e = &l->v[me];

		if (!*e->name) {
			d->plan = ETCD_PLAN_START_LISTED;
			snprintf(d->why, sizeof(d->why),
				"member %s is listed but never started: starting it into the "
				"running cluster",
				member_label(e, label, sizeof(label)));
			return 0;
		}
		/* it ran before and its data is gone: replace it */
		if (!etcd_removal_safe(l, (size_t)me)) {
			d->plan = ETCD_PLAN_WAIT;
			snprintf(d->why, sizeof(d->why),
				"replacing my old member %s (empty data dir) waits: its removal "
				"now would leave the healthy voters short of a majority",
				member_label(e, label, sizeof(label)));
			return 0;
		}
		d->plan = ETCD_PLAN_REMOVE;
		d->target = (size_t)me;
		snprintf(d->why, sizeof(d->why),
			"the data dir is empty but the cluster still lists my member %s: removing "
			"it, then joining as a new member",
			member_label(e, label, sizeof(label)));
		return 0;
	}
	/* not a member: a dead member the map no longer has goes first */
	for (i = 0; i < l->n; i++) {
		if (l->v[i].healthy || in_map(&l->v[i], v->map))
			continue;
		if (!etcd_removal_safe(l, i))
			continue;
		d->plan = ETCD_PLAN_REMOVE;
		d->target = i;
		snprintf(d->why, sizeof(d->why),
			"member %s is dead and not in node_map: removing it before joining",
			member_label(&l->v[i], label, sizeof(label)));
		return 0;
	}
	/* one membership change at a time: a member still joining comes first */
	for (i = 0; i < l->n; i++) {
		if (!l->v[i].learner && *l->v[i].name)
			continue;
		d->plan = ETCD_PLAN_WAIT;
		snprintf(d->why, sizeof(d->why),
			"member %s is still joining (%s): one membership change at a time",
			member_label(&l->v[i], label, sizeof(label)),
			l->v[i].learner ? "a learner" : "never started");
		return 0;
	}
	d->plan = ETCD_PLAN_JOIN;
	snprintf(d->why, sizeof(d->why),
		"not a member of the running cluster (%zu members): joining as a learner", l->n);
	return 0;
}

static int decide_unreachable(const struct etcd_view *v, struct etcd_decision *d)
{
	struct cpha_buf others = { 0 };
	size_t i, majority = cpha_quorum_majority((unsigned)v->map->n);
	int r = 0;

	if (v->notify_known) {
		/* instances running now (and not stopping) mean a running cluster */
		for (i = 0; r == 0 && v->active && i < v->active->n; i++) {
			const char *n = v->active->v[i];

			if (strcmp(n, v->node) == 0 ||
				(v->stopping && ocf_strv_contains(v->stopping, n)))
				continue;
			r = cpha_buf_printf(&others, "%s%s", others.len ? " " : "", n);
		}
		if (r < 0)
			goto out;
		if (others.len) {
			d->plan = ETCD_PLAN_WAIT;
			snprintf(d->why, sizeof(d->why),
				"no member answers, but instances run on %s: not bootstrapping a "
				"second cluster",
				others.data);
			goto out;
		}
		for (i = 0; r == 0 && i < v->map->n; i++) {
			const char *n = v->map->v[i].name;

			if (strcmp(n, v->name) == 0 ||
				(v->starting && ocf_strv_contains(v->starting, n)))
				r = ocf_strv_push(&d->initial, n);
		}
	} else {
		/* no notify variables: the whole map, as a static bootstrap
		 * (a member then waits for a majority of it) */
		for (i = 0; r == 0 && i < v->map->n; i++)
			r = ocf_strv_push(&d->initial, v->map->v[i].name);
	}
	if (r < 0)
		goto out;
	if (d->initial.n < majority) {
		d->plan = ETCD_PLAN_WAIT;
		snprintf(d->why, sizeof(d->why),
			"no member answers and only %zu of the %zu members start now: a new "
			"cluster needs a majority (%zu)",
			d->initial.n, v->map->n, majority);
		ocf_strv_free(&d->initial);
		goto out;
	}
	d->plan = ETCD_PLAN_BOOTSTRAP;
	snprintf(d->why, sizeof(d->why),
		"no member answers and the clone starts as a whole: a new cluster of %zu "
		"member%s%s",
		d->initial.n, d->initial.n == 1 ? "" : "s",
		v->notify_known ? "" : " (no notify variables: the whole node_map)");
out:
	cpha_buf_free(&others);
	return r;
}

int etcd_decide(const struct etcd_view *v, struct etcd_decision *d)
{
	const struct etcd_members *l = v->members;
	char label[320];
	ssize_t me = -1;

	memset(d, 0, sizeof(*d));
	if (v->reachable && l) {
		me = etcd_members_find(l, NULL, v->peer_url);
		if (me >= 0 && *l->v[me].name && strcmp(l->v[me].name, v->name) != 0) {
			d->plan = ETCD_PLAN_REFUSE;
			snprintf(d->why, sizeof(d->why),
				"fix node_map or remove member %s: it holds peer URL %s, which "
				"node_map gives %s",
				member_label(&l->v[me], label, sizeof(label)), v->peer_url,
				v->name);
			return 0;
		}
		if (me < 0) {
			ssize_t same = etcd_members_find(l, v->name, NULL);

			if (same >= 0) {
				const struct etcd_member *e = &l->v[same];

				/* my name, another address: the node's address changed */
				if (!v->has_data && !e->healthy &&
					etcd_removal_safe(l, (size_t)same)) {
					d->plan = ETCD_PLAN_REMOVE;
					d->target = (size_t)same;
					snprintf(d->why, sizeof(d->why),
						"member %s is dead and registered at %s, node_map "
						"says %s: removing it, then joining",
						member_label(e, label, sizeof(label)),
						e->peer_urls.n ? e->peer_urls.v[0] : "?",
						v->peer_url);
					return 0;
				}
				d->plan = ETCD_PLAN_REFUSE;
				snprintf(d->why, sizeof(d->why),
					"fix node_map, or update or remove member %s: it is "
					"registered at %s, node_map says %s",
					member_label(e, label, sizeof(label)),
					e->peer_urls.n ? e->peer_urls.v[0] : "?", v->peer_url);
				return 0;
			}
		}
	}
	if (v->has_data) {
		if (v->reachable && l && me < 0) {
			d->plan = ETCD_PLAN_DISCARD;
			snprintf(d->why, sizeof(d->why),
				"the data dir holds a member the running cluster no longer lists "
				"(%zu members, none at %s): it was removed; setting the data aside "
				"to join anew",
				l->n, v->peer_url);
			return 0;
		}
		d->plan = ETCD_PLAN_RESTART;
		snprintf(d->why, sizeof(d->why), "the data dir holds a member%s: restarting it",
			v->reachable ? " the cluster lists" : "");
		return 0;
	}
	if (v->reachable && l)
		return decide_reachable(v, d, me);
	return decide_unreachable(v, d);
}

const char *etcd_size_verdict_name(enum etcd_size_verdict v)
{
	static const char *const names[] = {
		[ETCD_SIZE_GO] = "go",
		[ETCD_SIZE_KEEP] = "keep",
		[ETCD_SIZE_NO_JOIN] = "no-join",
		[ETCD_SIZE_NO_BOOTSTRAP] = "no-bootstrap",
	};

	return (unsigned)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

enum etcd_size_verdict etcd_size_gate(const struct etcd_size *s, const char *name,
	const struct etcd_view *v, const struct etcd_decision *d, char *why, size_t len)
{
	size_t now;

	if (len)
		why[0] = '\0';
	if (s->rc != -EDOM)
		return ETCD_SIZE_GO;
	/* etcd runs here: a member, whatever the configuration says now */
	if (!d) {
		snprintf(why, len, "%s; member %s keeps running, none is added (%s)", s->fix, name,
			s->why);
		return ETCD_SIZE_KEEP;
	}
	switch (d->plan) {
	case ETCD_PLAN_RESTART:
	case ETCD_PLAN_START_LISTED:
		/* counted in the cluster already (its data, or listed by its
		 * peer URL): starting it changes no size */
		snprintf(why, len, "%s; member %s keeps running, none is added (%s)", s->fix, name,
			s->why);
		return ETCD_SIZE_KEEP;
	case ETCD_PLAN_BOOTSTRAP:
		/* nothing runs: the configuration is all there is */
		snprintf(why, len, "%s; no new cluster bootstrapped (%s)", s->fix, s->why);
		return ETCD_SIZE_NO_BOOTSTRAP;
	case ETCD_PLAN_JOIN:
		now = v && v->members ? v->members->n : 0;
		if ((now + 1) % 2 == 0) {
			snprintf(why, len,
				"%s; member %s not added: %zu members run, %zu would be even (%s)",
				s->fix, name, now, now + 1, s->why);
			return ETCD_SIZE_NO_JOIN;
		}
		snprintf(why, len, "%s; member %s joins: %zu members run, %zu is odd", s->fix, name,
			now, now + 1);
		return ETCD_SIZE_GO;
	case ETCD_PLAN_WAIT:
	case ETCD_PLAN_REMOVE:
	case ETCD_PLAN_DISCARD:
	case ETCD_PLAN_REFUSE:
		break;
	}
	snprintf(why, len, "%s; member %s: %s adds no member", s->fix, name,
		etcd_plan_name(d->plan));
	return ETCD_SIZE_GO;
}

ssize_t etcd_reconcile(const struct etcd_members *l, const struct etcd_map *m, uint64_t self_id,
	char *why, size_t len)
{
	char label[320];
	size_t i;

	if (len)
		why[0] = '\0';
	/* only dead members: a live one outside the map is more likely a typo
	 * in node_map than a node gone, and it stops on its own when Pacemaker
	 * stops its instance */
	for (i = 0; i < l->n; i++) {
		const struct etcd_member *e = &l->v[i];

		if (e->id == self_id || e->healthy || in_map(e, m))
			continue;
		if (!etcd_removal_safe(l, i)) {
			snprintf(why, len,
				"keeping dead member %s (not in node_map): removing it would leave "
				"the healthy voters short of a majority",
				member_label(e, label, sizeof(label)));
			continue;
		}
		return (ssize_t)i;
	}
	return -1;
}
