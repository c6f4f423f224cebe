/* libFuzzer target: lbd's configuration parser (HAProxy's language). Any
 * text either parses into a configuration whose references all hold, or
 * fails with messages that say where; nothing leaks either way. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_backend(const struct lbd_backend *b)
{
	size_t i;

	for (i = 0; i < b->nservers; i++) {
		const struct lbd_server_cfg *s = &b->servers[i];

		if (s->id != i + 1 || !s->name || s->o.verify == LBD_VERIFY_DEFAULT ||
			s->o.inter == 0 || s->o.fastinter == 0 || s->o.downinter == 0 ||
			s->o.rise < 1 || s->o.fall < 1 || s->o.weight > 256 ||
			(s->o.check && !cpha_addr_port(&s->addr) && !s->o.check_port &&
				b->check_kind == LBD_CHECK_CONNECT))
			__builtin_trap();
		if (lbd_cfg_server(b, s->name) != s)
			__builtin_trap(); /* server names are unique */
	}
	if (b->check_kind == LBD_CHECK_TCP &&
		(b->ntcpcheck == 0 || b->tcpcheck[0].action != LBD_TCPCHK_CONNECT))
		__builtin_trap(); /* the list starts with a connect */
	if (b->check_kind != LBD_CHECK_TCP && b->ntcpcheck)
		__builtin_trap();
	if (b->check_kind == LBD_CHECK_HTTP &&
		(!b->http.method || !b->http.uri || !b->http.version))
		__builtin_trap();
	/* what is sent may be binary (option ssl-hello-chk's CLIENT HELLO);
	 * what is expected is text */
	for (i = 0; i < b->ntcpcheck; i++)
		if ((b->tcpcheck[i].action == LBD_TCPCHK_SEND &&
			    (!b->tcpcheck[i].data || b->tcpcheck[i].len == 0)) ||
			((b->tcpcheck[i].action == LBD_TCPCHK_EXPECT_STRING ||
				 b->tcpcheck[i].action == LBD_TCPCHK_EXPECT_RSTRING) &&
				(!b->tcpcheck[i].data ||
					strlen(b->tcpcheck[i].data) != b->tcpcheck[i].len)))
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpha_msgs errs = { 0 };
	struct lbd_config *c = NULL;
	size_t i;

	if (lbd_cfg_load_mem("fuzz.cfg", (const char *)data, size, &c, &errs) == 0) {
		if (!c || errs.nerrs)
			__builtin_trap();
		for (i = 0; i < c->nfrontends; i++) {
			const struct lbd_frontend *f = &c->frontends[i];

			/* every frontend sends to one of the backends */
			if (!f->backend || f->backend < c->backends ||
				f->backend >= c->backends + c->nbackends ||
				strcmp(f->backend->name, f->backend_name) != 0)
				__builtin_trap();
			if (f->from_listen && (!f->backend->from_listen ||
						      strcmp(f->name, f->backend->name) != 0))
				__builtin_trap();
		}
		for (i = 0; i < c->nbackends; i++) {
			check_backend(&c->backends[i]);
			if (lbd_cfg_backend(c, c->backends[i].name) != &c->backends[i])
				__builtin_trap(); /* backend names are unique */
		}
		for (i = 0; i < c->nnotices; i++)
			if (strncmp(c->notices[i], "fuzz.cfg:", 9) != 0)
				__builtin_trap();
		lbd_cfg_free(c);
	} else {
		/* at least one message, each saying where (at most 100 and
		 * the "too many errors" one) */
		if (c || errs.nerrs == 0 || errs.nerrs > 101)
			__builtin_trap();
		for (i = 0; i < errs.nerrs; i++)
			if (strncmp(errs.errs[i].text, "fuzz.cfg:", 9) != 0)
				__builtin_trap();
		cpha_msgs_free(&errs);
	}
	return 0;
}
