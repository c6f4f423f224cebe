/* `cpha render`, the monitoring part every daemon shares: the address its
 * /metrics and /status listener binds (monitoring.listen; loopback unless
 * the description says otherwise) and the web configuration file beside
 * its configuration (exporter-toolkit's format: basic auth, TLS) when the
 * description asks for one. Pure: text from the model. */
#include <string.h>

#include <arpa/inet.h>

#include "render_ha.h"
#include "render_text.h"

char *render_mon_bind(
	const struct cp_cluster *c, const struct cp_host *h, unsigned port, char *buf, size_t len)
{
	struct cpha_addr lo;
	const char *why;

	switch (c->mon.listen) {
	case CP_MON_HOST:
		return render_text_hostport(&h->addr, port, buf, len);
	case CP_MON_ADDRESS:
		return render_text_hostport(&c->mon.addr, port, buf, len);
	case CP_MON_LOOPBACK:
		break;
	}
	/* the host's own family: ::1 on a host known by an IPv6 address */
	cpha_parse_addr(cpha_addr_family(&h->addr) == AF_INET6 ? "::1" : "127.0.0.1",
		CPHA_ADDR_PORT_NONE, &lo, &why);
	return render_text_hostport(&lo, port, buf, len);
}

/* 0.0.0.0 or :: (every address of the host), and whether a is loopback. */
static bool any_addr(const struct cpha_addr *a, bool *loopback)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&a->ss;
	uint32_t v4 = ntohl(((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr);

	if (cpha_addr_family(a) == AF_INET) {
		*loopback = (v4 >> 24) == 127;
		return v4 == 0;
	}
	*loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
	return IN6_IS_ADDR_UNSPECIFIED(&s6->sin6_addr);
}

bool render_mon_reach(
	const struct cp_cluster *c, const struct cp_host *h, bool local, struct cpha_addr *out)
{
	bool loopback = c->mon.listen == CP_MON_LOOPBACK;
	const char *why;

	if (c->mon.listen == CP_MON_HOST ||
		(c->mon.listen == CP_MON_ADDRESS && any_addr(&c->mon.addr, &loopback))) {
		*out = h->addr;
		return true;
	}
	if (!loopback) {
		*out = c->mon.addr;
		return true;
	}
	if (!local)
		return false;
	if (c->mon.listen == CP_MON_ADDRESS)
		*out = c->mon.addr;
	else
		cpha_parse_addr(cpha_addr_family(&h->addr) == AF_INET6 ? "::1" : "127.0.0.1",
			CPHA_ADDR_PORT_NONE, out, &why);
	return true;
}

bool render_mon_web(const struct cp_cluster *c)
{
	return c->mon.cert_file || c->mon.user;
}

void render_mon_lines(const struct cp_cluster *c, const struct cp_host *h, const char *bind_kw,
	const char *web_kw, unsigned port, const char *cmt, struct cpha_buf *b)
{
	char a[CPHA_ADDR_STRLEN + 8];

	render_text_put(
		b, "    %s /metrics and /status (read-only JSON, what `cpha status` reads)\n", cmt);
	if (c->mon.listen == CP_MON_LOOPBACK)
		render_text_put(b,
			"    %s on loopback only: monitoring.listen in the cluster description "
			"opens it\n",
			cmt);
	render_text_put(b, "    %s %s\n", bind_kw, render_mon_bind(c, h, port, a, sizeof(a)));
	if (render_mon_web(c))
		render_text_put(b,
			"    %s who may read them (%s), beside this file\n"
			"    %s " RENDER_MON_WEB_NAME "\n",
			cmt,
			c->mon.user && c->mon.cert_file ? "basic auth, TLS"
			: c->mon.user                   ? "basic auth"
							: "TLS",
			web_kw);
}

void render_mon_web_file(
	const struct cp_cluster *c, const struct cp_host *h, const char *daemon, struct cpha_buf *b)
{
	render_text_put(b,
		"# %s's web configuration on %s: who may read its /metrics and /status.\n"
		"# Prometheus exporter-toolkit's format (the part %s reads).\n"
		"# Rendered by `cpha render` from the cluster description: change that, not "
		"this file.\n",
		daemon, h->name, daemon);
	if (c->mon.cert_file)
		render_text_put(b,
			"tls_server_config:\n"
			"  cert_file: '%s'\n"
			"  key_file: '%s'\n",
			c->mon.cert_file, c->mon.key_file);
	if (c->mon.user)
		render_text_put(b,
			"basic_auth_users:\n"
			"  %s: '%s'\n",
			c->mon.user, c->mon.password_hash);
}
