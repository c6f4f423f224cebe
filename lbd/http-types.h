/* lbd's built-in HTTP services as configured: a frontend or listen in mode
 * http that serves only HAProxy's stats page, monitor-uri and Prometheus
 * exporter, and the userlists their authentication uses. Types only; the
 * parser is cfg_http.c, the server http.c. */
#ifndef LBD_HTTP_TYPES_H
#define LBD_HTTP_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "acl.h"
#include "cfg-types.h"

struct lbd_http_user {
	char *name;
	char *pass;   /* the password, or its crypt(3) hash */
	int insecure; /* pass is the clear text (insecure-password, stats auth) */
	unsigned line;
};

struct lbd_userlist {
	char *name;
	struct lbd_http_user *users;
	size_t nusers;
	unsigned line;
};

enum lbd_stats_action {
	LBD_STATS_ALLOW, /* serve the page, no further rule */
	LBD_STATS_DENY,  /* 403 */
	LBD_STATS_AUTH,  /* 401 asking for credentials (with realm) */
};

/* stats http-request ACTION [realm R] [if|unless COND] */
struct lbd_stats_rule {
	enum lbd_stats_action action;
	char *realm; /* auth: NULL = the stats realm */
	struct acl_cond *cond;
	unsigned line;
};

struct lbd_http_service {
	char *name;
	const char *kind; /* "frontend" or "listen" (static) */
	unsigned line;
	struct lbd_bind *binds;
	size_t nbinds;
	struct acl_list acls;
	uint64_t timeout_client; /* usec; 0: not set */

	/* stats page */
	int stats;                /* any stats keyword enables it */
	/* a frontend whose stats come from a mode http backend with no
	 * servers: its use_backend rules to it (NULL: none) and whether it
	 * is the default_backend; a request no rule sends there gets 503 */
	struct lbd_fe_rules *routes;
	int route_default;
	char *stats_uri;          /* prefix; default "/haproxy?stats" */
	char *stats_realm;        /* default "HAProxy Statistics" */
	uint64_t refresh;         /* usec; 0: no Refresh header */
	struct lbd_userlist auth; /* stats auth USER:PASS lines */
	struct lbd_stats_rule *rules;
	size_t nrules;
	struct acl_cond *admin; /* stats admin if|unless COND */
	int hide_version, show_legends, show_node;
	char *node;   /* stats show-node NAME; NULL: the host name */
	char *desc;   /* stats show-desc TEXT */
	char **scope; /* stats scope: proxies shown; none: all */
	size_t nscope;

	/* monitor-uri */
	char *monitor_uri;
	struct acl_cond **monitor_fail; /* ORed: any true answers 503 */
	size_t nmonitor_fail;

	/* http-request use-service prometheus-exporter [COND], in order; a
	 * NULL condition always holds */
	struct acl_cond **prom;
	size_t nprom;
};

#endif
