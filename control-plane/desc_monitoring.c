/* monitoring: in the cluster description: where lbd, vipd and fenced serve
 * /metrics and /status, and who may read them.
 *
 *   monitoring:
 *     listen: loopback | host | ADDRESS     # default loopback
 *     tls: true | {cert_file: PATH, key_file: PATH}
 *     basic_auth: {user: NAME, password_hash: BCRYPT, password_file: PATH}
 *
 * Left out, every daemon listens on loopback only, without authentication:
 * nothing is open to the network unless the description says so. */
#include <stdlib.h>
#include <string.h>

#include "desc_read.h"

#define MON_DEFAULT_CERT "/etc/cpha/metrics.pem"     /* tls: true */
#define MON_DEFAULT_KEY  "/etc/cpha/metrics-key.pem" /* tls: true */

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

static const struct key mon_keys[] = {
	{ "listen", k_listen },
	{ "tls", k_tls },
	{ "basic_auth", k_basic_auth },
	{ NULL, NULL },
};

int desc_monitoring(struct rd *r, const yaml_node_t *v, void *cluster, const char *key)
{
	struct cp_cluster *c = cluster;

	(void)key;
	c->mon.pos = desc_pos(v);
	return desc_walk(r, v, "monitoring", mon_keys, &c->mon);
}
