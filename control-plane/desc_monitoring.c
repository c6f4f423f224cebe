/* monitoring: in the cluster description: where lbd, vipd and fenced serve
 * /metrics and /status, and who may read them.
 *
 *   monitoring:
 *     listen: loopback | host | ADDRESS     # default loopback
 *     tls: true | {cert_file: PATH, key_file: PATH}
 *     basic_auth: {user: NAME, password_hash: BCRYPT, password_file: PATH}
 *     prometheus:                           # cpha render writes its configuration
 *       scrape_interval: 15s                # default 15s
 *       evaluation_interval: 15s            # default: scrape_interval
 *       alertmanagers: [HOST:PORT, ...]     # default: none
 *       credentials_dir: /etc/prometheus/cpha
 *       textfile_dir: /var/lib/prometheus/node-exporter
 *
 * Left out, every daemon listens on loopback only, without authentication:
 * nothing is open to the network unless the description says so. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "desc_read.h"

#define MON_DEFAULT_CERT      "/etc/cpha/metrics.pem"     /* tls: true */
#define MON_DEFAULT_KEY       "/etc/cpha/metrics-key.pem" /* tls: true */
#define PROM_DEFAULT_SCRAPE   15000000                    /* Prometheus's own default, 15 s */
#define PROM_DEFAULT_DIR      "/etc/prometheus/cpha"
/* where Debian's prometheus-node-exporter reads textfiles */
#define PROM_DEFAULT_TEXTFILE "/var/lib/prometheus/node-exporter"

static int abs_path(struct rd *r, const yaml_node_t *v, const char *k, char **out)
{
	if (desc_str(r, v, k, out) < 0)
		return -1;
	if ((*out)[0] != '/') {
		desc_err(
			r, v, "%s: '%s': give an absolute path (it is read on each host)", k, *out);
		return -1;
	}
	return 0;
}

static int k_listen(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;
	const char *s = desc_scalar(r, v, k), *why = NULL;

	if (!s)
		return -1;
	if (strcmp(s, "loopback") == 0) {
		m->listen = CP_MON_LOOPBACK;
	} else if (strcmp(s, "host") == 0) {
		m->listen = CP_MON_HOST;
	} else if (cpha_parse_addr(s, CPHA_ADDR_PORT_NONE, &m->addr, &why) == 0) {
		m->listen = CP_MON_ADDRESS;
	} else {
		desc_err(r, v,
			"listen: '%s': loopback, host (each host's own address) or an address "
			"(0.0.0.0, ::): %s",
			s, why);
		return -1;
	}
	return 0;
}

static int k_cert(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return abs_path(r, v, k, &((struct cp_monitoring *)o)->cert_file);
}

static int k_key(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return abs_path(r, v, k, &((struct cp_monitoring *)o)->key_file);
}

static const struct key tls_keys[] = {
	{ "cert_file", k_cert },
	{ "key_file", k_key },
	{ NULL, NULL },
};

static int k_tls(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;
	bool on;

	if (v->type == YAML_MAPPING_NODE) {
		if (desc_walk(r, v, "monitoring.tls", tls_keys, m) < 0)
			return -1;
		if (!m->cert_file || !m->key_file) {
			desc_err(r, v, "monitoring.tls: give both cert_file and key_file");
			return -1;
		}
		return 0;
	}
	if (desc_bool(r, v, k, &on) < 0)
		return -1;
	if (on) {
		m->cert_file = desc_strdup(MON_DEFAULT_CERT);
		m->key_file = desc_strdup(MON_DEFAULT_KEY);
	}
	return 0;
}

static int k_user(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;

	if (desc_str(r, v, k, &m->user) < 0)
		return -1;
	if (!m->user[0] || strspn(m->user, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789._-") != strlen(m->user)) {
		desc_err(r, v, "user: '%s': use letters, digits, '.', '_' and '-'", m->user);
		return -1;
	}
	return 0;
}

static int k_hash(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;
	const char *h;

	if (desc_str(r, v, k, &m->password_hash) < 0)
		return -1;
	h = m->password_hash;
	/* bcrypt as crypt(3) and htpasswd -B write it: $2y$10$ + 53 characters */
	if (strlen(h) != 60 || strncmp(h, "$2", 2) || !strchr("aby", h[2]) || h[3] != '$' ||
		h[6] != '$' ||
		strspn(h + 7, "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") !=
			53) {
		desc_err(r, v,
			"password_hash: not a bcrypt hash ($2y$..., 60 characters; htpasswd -nbB "
			"USER PASSWORD writes one)");
		return -1;
	}
	return 0;
}

static int k_password_file(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return abs_path(r, v, k, &((struct cp_monitoring *)o)->password_file);
}

static const struct key auth_keys[] = {
	{ "user", k_user },
	{ "password_hash", k_hash },
	{ "password_file", k_password_file },
	{ NULL, NULL },
};

static int k_basic_auth(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;

	(void)k;
	if (desc_walk(r, v, "monitoring.basic_auth", auth_keys, m) < 0)
		return -1;
	if (!m->user || !m->password_hash) {
		desc_err(r, v, "monitoring.basic_auth: give user and password_hash");
		return -1;
	}
	return 0;
}

/* A Prometheus interval: whole seconds, at least one. */
static int interval(struct rd *r, const yaml_node_t *v, const char *k, uint64_t *out)
{
	if (desc_duration(r, v, k, out) < 0)
		return -1;
	if (*out < 1000000 || *out % 1000000) {
		desc_err(r, v, "%s: give whole seconds, at least 1s", k);
		return -1;
	}
	return 0;
}

static int k_scrape(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return interval(r, v, k, &((struct cp_prometheus *)o)->scrape_usec);
}

static int k_eval(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return interval(r, v, k, &((struct cp_prometheus *)o)->eval_usec);
}

/* HOST:PORT, HOST an address ([v6]:port) or a DNS name. */
static bool host_port(const char *s)
{
	const char *colon = strrchr(s, ':'), *why;
	struct cpha_addr a;
	char *end;
	unsigned long port;

	if (!colon || colon == s || !colon[1])
		return false;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end || errno || !port || port > 65535)
		return false;
	if (s[0] == '[' || strspn(s, "0123456789.") == (size_t)(colon - s))
		return cpha_parse_addr(s, CPHA_ADDR_PORT_REQUIRED, &a, &why) == 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") ==
	       (size_t)(colon - s);
}

static int k_alertmanagers(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_prometheus *p = o;

	if (desc_strv(r, v, k, &p->alertmanagers) < 0)
		return -1;
	for (char **s = p->alertmanagers; *s; s++)
		if (!host_port(*s)) {
			desc_err(r, v,
				"%s: '%s': give HOST:PORT (alertmanager:9093, 198.51.100.7:9093, "
				"[2001:db8::7]:9093)",
				k, *s);
			return -1;
		}
	return 0;
}

static int k_creds(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return abs_path(r, v, k, &((struct cp_prometheus *)o)->dir);
}

static int k_textfile(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	return abs_path(r, v, k, &((struct cp_prometheus *)o)->textfile_dir);
}

static const struct key prom_keys[] = {
	{ "scrape_interval", k_scrape },
	{ "evaluation_interval", k_eval },
	{ "alertmanagers", k_alertmanagers },
	{ "credentials_dir", k_creds },
	{ "textfile_dir", k_textfile },
	{ NULL, NULL },
};

static int k_prometheus(struct rd *r, const yaml_node_t *v, void *o, const char *k)
{
	struct cp_monitoring *m = o;
	struct cp_prometheus *p = &m->prom;

	(void)k;
	p->on = true;
	p->pos = desc_pos(v);
	if (!desc_is_null(v) && desc_walk(r, v, "monitoring.prometheus", prom_keys, p) < 0)
		return -1;
	if (!p->scrape_usec)
		p->scrape_usec = PROM_DEFAULT_SCRAPE;
	if (!p->eval_usec)
		p->eval_usec = p->scrape_usec;
	if (!p->dir)
		p->dir = desc_strdup(PROM_DEFAULT_DIR);
	if (!p->textfile_dir)
		p->textfile_dir = desc_strdup(PROM_DEFAULT_TEXTFILE);
	return 0;
}

static const struct key mon_keys[] = {
	{ "listen", k_listen },
	{ "tls", k_tls },
	{ "basic_auth", k_basic_auth },
	{ "prometheus", k_prometheus },
	{ NULL, NULL },
};

int desc_monitoring(struct rd *r, const yaml_node_t *v, void *cluster, const char *key)
{
	struct cp_cluster *c = cluster;

	(void)key;
	c->mon.pos = desc_pos(v);
	if (desc_walk(r, v, "monitoring", mon_keys, &c->mon) < 0)
		return -1;
	if (c->mon.prom.on && c->mon.listen == CP_MON_LOOPBACK) {
		/* a scraper on another host reaches nothing on loopback */
		cpha_msgs_err(r->d, r->file, c->mon.prom.pos,
			"monitoring.prometheus: the daemons listen on loopback only; give "
			"monitoring.listen: host (or an address) so that Prometheus can reach "
			"them");
		return -1;
	}
	return 0;
}
