#include <stdlib.h>

#include "rules.h"

struct lbd_fe_rules *rules_new(void)
{
	struct lbd_fe_rules *r = calloc(1, sizeof(*r));

	if (r)
		atomic_init(&r->refs, 1);
	return r;
}

struct lbd_fe_rules *rules_ref(struct lbd_fe_rules *r)
{
	if (r)
		atomic_fetch_add(&r->refs, 1);
	return r;
}

static void tcp_rules_free(struct lbd_tcp_rule *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		acl_cond_free(v[i].cond);
	free(v);
}

void rules_unref(struct lbd_fe_rules *r)
{
	size_t i;

	if (!r || atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	tcp_rules_free(r->conn, r->nconn);
	tcp_rules_free(r->content, r->ncontent);
	for (i = 0; i < r->nsw; i++) {
		free(r->sw[i].backend);
		acl_cond_free(r->sw[i].cond);
	}
	free(r->sw);
	acl_list_free(&r->acls);
	free(r);
}

static enum rules_verdict tcp_rules(
	const struct lbd_tcp_rule *v, size_t n, const struct acl_facts *f)
{
	enum acl_verdict a;
	size_t i;

	for (i = 0; i < n; i++) {
		a = acl_cond_exec(v[i].cond, f);
		if (a == ACL_MISS)
			return f->final ? RULES_ACCEPT : RULES_WAIT;
		if (a == ACL_PASS)
			return v[i].action == LBD_RULE_ACCEPT ? RULES_ACCEPT : RULES_REJECT;
	}
	return RULES_ACCEPT;
}

enum rules_verdict rules_connection(const struct lbd_fe_rules *r, const struct acl_facts *f)
{
	struct acl_facts g = *f;

	g.final = true;
	return r ? tcp_rules(r->conn, r->nconn, &g) : RULES_ACCEPT;
}

enum rules_verdict rules_content(const struct lbd_fe_rules *r, const struct acl_facts *f)
{
	return r ? tcp_rules(r->content, r->ncontent, f) : RULES_ACCEPT;
}

int rules_switch(const struct lbd_fe_rules *r, const struct acl_facts *f)
{
	struct acl_facts g = *f;
	size_t i;

	g.final = true;
	for (i = 0; r && i < r->nsw; i++)
		if (acl_cond_exec(r->sw[i].cond, &g) == ACL_PASS)
			return (int)i;
	return -1;
}

bool rules_inspect(const struct lbd_fe_rules *r)
{
	size_t i;

	if (!r)
		return false;
	if (r->ncontent)
		return true;
	for (i = 0; i < r->nsw; i++)
		if (acl_cond_needs(r->sw[i].cond) & ACL_NEEDS_PAYLOAD)
			return true;
	return false;
}
