/* A frontend's traffic rules, as HAProxy runs them for a TCP stream:
 * tcp-request connection rules when a client connects, tcp-request content
 * rules over the first bytes it sends (waiting up to inspect-delay for
 * what a condition needs), then the switching rules (use_backend ... if)
 * that pick the backend, default_backend last. Pure: the decisions read
 * the facts the caller gives (acl.h) and return what to do; the session
 * (session.c) reads the bytes and acts. */
#ifndef LBD_RULES_H
#define LBD_RULES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl.h"

enum lbd_rule_action {
	LBD_RULE_ACCEPT,
	LBD_RULE_REJECT,
};

/* tcp-request connection|content ACTION [if|unless COND] */
struct lbd_tcp_rule {
	enum lbd_rule_action action;
	struct acl_cond *cond; /* NULL: always */
	unsigned line;
};

/* use_backend NAME [if|unless COND] */
struct lbd_switch_rule {
	char *backend;
	struct acl_cond *cond; /* NULL: always */
	unsigned line;
};

/* Shared by the configuration that read them and the sessions of every
 * runtime that used them (a reload does not cut a session mid-decision). */
struct lbd_fe_rules {
	atomic_int refs;
	struct acl_list acls; /* the named ACLs the conditions point into */
	struct lbd_tcp_rule *conn, *content;
	size_t nconn, ncontent;
	struct lbd_switch_rule *sw;
	size_t nsw;
	uint64_t inspect_delay; /* usec; 0: content rules decide at once */
};

enum rules_verdict {
	RULES_ACCEPT,
	RULES_REJECT,
	RULES_WAIT, /* a condition needs bytes the client has not sent yet */
};

/* A new set with one reference, or NULL (no memory). */
struct lbd_fe_rules *rules_new(void);
struct lbd_fe_rules *rules_ref(struct lbd_fe_rules *r);
void rules_unref(struct lbd_fe_rules *r); /* NULL allowed */

/* tcp-request connection rules: the first whose condition holds decides;
 * none: accept. Only the client's addresses are known (f->final). */
enum rules_verdict rules_connection(const struct lbd_fe_rules *r, const struct acl_facts *f);

/* tcp-request content rules, in order: the first whose condition holds
 * decides; a condition that cannot tell yet makes the session wait,
 * unless f->final (inspect-delay over, the client done or its bytes
 * filling the buffer); none: accept. */
enum rules_verdict rules_content(const struct lbd_fe_rules *r, const struct acl_facts *f);

/* The switching rules: the index of the first whose condition holds, or
 * -1 for default_backend. Evaluated once, on what is there (final). */
int rules_switch(const struct lbd_fe_rules *r, const struct acl_facts *f);

/* Whether a session must read the client's first bytes before its
 * backend is chosen (content rules, or a switching rule on them). */
bool rules_inspect(const struct lbd_fe_rules *r);

#endif
