/* A frontend's traffic rules (rules.h): tcp-request connection and content
 * rules, tcp-request inspect-delay, and use_backend with a condition. The
 * conditions name the section's ACLs, which the built-in HTTP services'
 * reader keeps (cfg_http.c) and hands over at the section's end. */
#include <string.h>

#include "cfg_ctx.h"

static struct lbd_fe_rules *cfg_rules(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_fe_rules **r = px->cap & CFG_CAP_FE ? &px->fe.rules : &px->be.rules;

	if (!*r && !(*r = rules_new()))
		lbd_cfg_oom(ctx);
	return *r;
}

/* The condition from w[i] on ("if"/"unless" ...), or NULL with an error. */
static struct acl_cond *cfg_rules_cond(struct cfg_ctx *ctx, struct cfg_proxy *px,
	const struct cfg_args *a, size_t i, const char *kw)
{
	const struct acl_list *acls = lbd_cfg_http_acls(ctx, px);
	struct acl_cond *c;
	char err[256];

	if (!acls)
		return NULL;
	c = acl_cond_parse(acls, a->v + i, a->n - i, err, sizeof(err));
	if (!c) {
		lbd_cfg_err(ctx, a->line, "'%s': %s (%s)", kw, err, lbd_cfg_where(ctx, px));
		return NULL;
	}
	c->line = a->line;
	/* a mode http section with traffic rules is refused at its end */
	if (!px->mode_http && (acl_cond_needs(c) & ACL_NEEDS_HTTP)) {
		lbd_cfg_err(ctx, a->line,
			"'%s': path, hdr and http_auth read an HTTP request; lbd reads them only "
			"in a mode http section that serves stats or monitor-uri (%s)",
			kw, lbd_cfg_where(ctx, px));
		acl_cond_free(c);
		return NULL;
	}
	return c;
}

/* tcp-request connection|content accept|reject [if|unless COND] */
static void cfg_tcp_rule(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	int content = strcmp(a->v[1], "content") == 0;
	struct lbd_fe_rules *r;
	struct lbd_tcp_rule *rule;
	struct acl_cond *c = NULL;
	char kw[64];

	snprintf(kw, sizeof(kw), "tcp-request %s", a->v[1]);
	if (!content && !(px->cap & CFG_CAP_FE)) {
		lbd_cfg_err(ctx, a->line,
			"'tcp-request connection' is not allowed because %s '%s' is not a frontend "
			"(as HAProxy says)",
			px->kind, px->name);
		return;
	}
	if (a->n < 3) {
		lbd_cfg_err(ctx, a->line, "'%s' needs an action: accept or reject (%s)", kw, where);
		return;
	}
	if (strcmp(a->v[2], "accept") != 0 && strcmp(a->v[2], "reject") != 0) {
		lbd_cfg_err(ctx, a->line,
			"'%s %s' is not supported by lbd: its actions are accept and reject (%s)",
			kw, a->v[2], where);
		return;
	}
	if (a->n > 3) {
		if (!(c = cfg_rules_cond(ctx, px, a, 3, kw)))
			return;
		if (!content && (acl_cond_needs(c) & ACL_NEEDS_PAYLOAD)) {
			lbd_cfg_err(ctx, a->line,
				"'%s': req.len and req.ssl_* read the client's first bytes, which "
				"'tcp-request connection' runs before; use 'tcp-request content' "
				"(%s)",
				kw, where);
			acl_cond_free(c);
			return;
		}
	}
	if (!(r = cfg_rules(ctx, px))) {
		acl_cond_free(c);
		return;
	}
	rule = content ? lbd_cfg_push(ctx, &r->content, &r->ncontent, sizeof(*rule))
		       : lbd_cfg_push(ctx, &r->conn, &r->nconn, sizeof(*rule));
	if (!rule) {
		acl_cond_free(c);
		return;
	}
	rule->action = a->v[2][0] == 'a' ? LBD_RULE_ACCEPT : LBD_RULE_REJECT;
	rule->cond = c;
	rule->line = a->line;
}

void lbd_cfg_rules_tcp_request(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	const char *where = lbd_cfg_where(ctx, px);
	struct lbd_fe_rules *r;
	uint64_t t;

	if (a->n < 2 || (strcmp(a->v[1], "inspect-delay") != 0 &&
				strcmp(a->v[1], "connection") != 0 &&
				strcmp(a->v[1], "content") != 0)) {
		lbd_cfg_err(ctx, a->line,
			"'tcp-request %s' is not supported by lbd (inspect-delay, connection and "
			"content are) (%s)",
			a->n < 2 ? "" : a->v[1], where);
		return;
	}
	if (px->cap == CFG_CAP_DEF) {
		lbd_cfg_err(ctx, a->line,
			"'tcp-request %s' is not allowed in a defaults section (HAProxy allows it "
			"only in named defaults, which lbd does not read)",
			a->v[1]);
		return;
	}
	if (strcmp(a->v[1], "inspect-delay") != 0) {
		cfg_tcp_rule(ctx, px, a);
		return;
	}
	if (lbd_cfg_nargs(ctx, a, 2, 1, 1, where) < 0 ||
		lbd_cfg_time(ctx, a->line, "tcp-request inspect-delay", a->v[2], &t, where) < 0)
		return;
	if ((r = cfg_rules(ctx, px)))
		r->inspect_delay = t;
}

int lbd_cfg_rules_use_backend(struct cfg_ctx *ctx, struct cfg_proxy *px, const struct cfg_args *a)
{
	struct lbd_switch_rule *rule;
	struct lbd_fe_rules *r;
	struct acl_cond *c;

	if (px->use_backend_line) {
		lbd_cfg_notice(ctx, a->line,
			"this 'use_backend' is never used: the one at %s:%u has no condition (%s)",
			ctx->file, px->use_backend_line, lbd_cfg_where(ctx, px));
		return 0;
	}
	if (!(c = cfg_rules_cond(ctx, px, a, 2, "use_backend")))
		return -1;
	if (!(r = cfg_rules(ctx, px)) || !(rule = lbd_cfg_push(ctx, &r->sw, &r->nsw, sizeof(*rule)))) {
		acl_cond_free(c);
		return -1;
	}
	rule->cond = c;
	rule->line = a->line;
	rule->backend = lbd_cfg_strdup(ctx, a->v[1]);
	return 0;
}

/* At the end of a traffic section: the rules take the section's ACLs. */
void lbd_cfg_rules_section_end(struct cfg_ctx *ctx, struct cfg_proxy *px)
{
	struct lbd_fe_rules *r = px->cap & CFG_CAP_FE ? px->fe.rules : px->be.rules;

	/* a mode http frontend's rules pick its stats backend, and the
	 * service keeps the ACLs (cfg_http.c) */
	if (r && !px->mode_http)
		lbd_cfg_http_take_acls(ctx, px, &r->acls);
}

/* Every use_backend names a backend that exists. */
void lbd_cfg_rules_validate(struct cfg_ctx *ctx, const struct lbd_config *c)
{
	const struct lbd_fe_rules *r;
	const struct lbd_backend *b;
	size_t i, j;

	for (i = 0; i < c->nfrontends; i++) {
		r = c->frontends[i].rules;
		for (j = 0; r && j < r->nsw; j++) {
			b = lbd_cfg_backend(c, r->sw[j].backend);
			if (!b)
				lbd_cfg_err(ctx, r->sw[j].line,
					"use_backend '%s': no such backend (frontend '%s')",
					r->sw[j].backend, c->frontends[i].name);
		}
	}
}
