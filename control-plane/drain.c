/* cpha drain / undrain: the answer of `show servers state` and what to do
 * with a server. Pure; see drain.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drain.h"

#define FIELDS_MIN 7 /* be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state */

static bool parse_int(const char *s, int *out)
{
	char *end;
	long v;

	if (!*s)
		return false;
	v = strtol(s, &end, 10);
	if (*end || v < 0 || v > 0xffff)
		return false;
	*out = (int)v;
	return true;
}

/* Split line (modified) on spaces into at most max fields. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t", &save); t && n < max; t = strtok_r(NULL, " \t", &save))
		f[n++] = t;
	return n;
}

int drain_parse_state(const char *text, const char *backend, struct drain_server *out, size_t max,
	char *err, size_t errlen)
{
	const char *p = text;
	size_t stored = 0;
	unsigned lineno = 0;
	bool version = false;

	while (*p) {
		size_t len = strcspn(p, "\n");
		char line[1024], *f[FIELDS_MIN];
		size_t n;
		int op, admin;

		lineno++;
		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		p += len + (p[len] == '\n');
		if (line[strcspn(line, "\r")] == '\r')
			line[strcspn(line, "\r")] = '\0';
		if (!version) {
			int v;

			if (!parse_int(line, &v) || v != 1) {
				snprintf(err, errlen,
					"line %u: '%.100s' is not the start of `show servers "
					"state` "
					"version 1",
					lineno, line);
				return -1;
			}
			version = true;
			continue;
		}
		if (!*line || *line == '#')
			continue;
		n = split(line, f, FIELDS_MIN);
		if (n < FIELDS_MIN) {
			snprintf(err, errlen,
				"line %u: %zu fields, a server's line has at least %d", lineno, n,
				FIELDS_MIN);
			return -1;
		}
		if (!parse_int(f[5], &op) || op > DRAIN_OP_STOPPING) {
			snprintf(err, errlen, "line %u: srv_op_state '%.20s' is not 0-3", lineno,
				f[5]);
			return -1;
		}
		if (!parse_int(f[6], &admin)) {
			snprintf(err, errlen, "line %u: srv_admin_state '%.20s' is not a number",
				lineno, f[6]);
			return -1;
		}
		if (strcmp(f[1], backend) != 0 || stored == max)
			continue;
		snprintf(out[stored].name, sizeof(out[stored].name), "%s", f[3]);
		out[stored].op = op;
		out[stored].admin = admin;
		stored++;
	}
	if (!version) {
		snprintf(err, errlen, "an empty answer");
		return -1;
	}
	return (int)stored;
}

bool drain_in_rotation(const struct drain_server *s)
{
	return (s->op == DRAIN_OP_RUNNING || s->op == DRAIN_OP_STARTING) &&
	       !(s->admin & (DRAIN_ADM_MAINT | DRAIN_ADM_FDRAIN | DRAIN_ADM_IDRAIN));
}

/* How a server out of rotation is: "down", "drained", "in maintenance". */
static const char *out_why(const struct drain_server *s)
{
	if (s->admin & DRAIN_ADM_MAINT)
		return "in maintenance";
	if (s->admin & (DRAIN_ADM_FDRAIN | DRAIN_ADM_IDRAIN))
		return "drained";
	return s->op == DRAIN_OP_STOPPING ? "stopping" : "down";
}

enum drain_verdict drain_decide(const struct drain_server *s, size_t n, const char *backend,
	const char *name, bool drain, bool force, char *cmd, size_t cmdlen, char *why,
	size_t whylen)
{
	const struct drain_server *t = NULL;
	size_t i, others = 0, w = 0;
	char list[512] = "";

	*cmd = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(s[i].name, name) == 0)
			t = &s[i];
		else if (drain_in_rotation(&s[i]))
			others++;
		else if (w < sizeof(list))
			w += (size_t)snprintf(list + w, sizeof(list) - w, "%s%s %s", w ? ", " : "",
				s[i].name, out_why(&s[i]));
	}
	if (!t) {
		snprintf(why, whylen, "%s has no server %s", backend, name);
		return DRAIN_REFUSE;
	}
	if (drain) {
		if (t->admin & DRAIN_ADM_FDRAIN) {
			snprintf(why, whylen, "%s/%s is drained already", backend, name);
			return DRAIN_NOTHING;
		}
		if (t->admin & DRAIN_ADM_MAINT) {
			snprintf(why, whylen, "%s/%s is in maintenance: out of rotation already",
				backend, name);
			return DRAIN_NOTHING;
		}
		if (drain_in_rotation(t) && !others && !force) {
			snprintf(why, whylen,
				"%s/%s is the only server in rotation here%s%s%s: draining it "
				"would stop the API through this load balancer (--force drains it "
				"anyway)",
				backend, name, *list ? " (" : "", list, *list ? ")" : "");
			return DRAIN_REFUSE;
		}
		snprintf(cmd, cmdlen, "set server %s/%s state drain", backend, name);
		snprintf(why, whylen, "%s/%s drained: %zu other server%s in rotation", backend,
			name, others, others == 1 ? "" : "s");
		return DRAIN_SEND;
	}
	if (!(t->admin & DRAIN_ADM_FDRAIN)) {
		snprintf(why, whylen, "%s/%s is not drained%s", backend, name,
			t->admin & DRAIN_ADM_MAINT ? " (it is in maintenance, left as it is)" : "");
		return DRAIN_NOTHING;
	}
	if (t->admin & DRAIN_ADM_FMAINT) {
		snprintf(why, whylen,
			"%s/%s is also in maintenance, which `state ready` would end too: "
			"left as it is",
			backend, name);
		return DRAIN_REFUSE;
	}
	snprintf(cmd, cmdlen, "set server %s/%s state ready", backend, name);
	snprintf(why, whylen, "%s/%s back in rotation%s", backend, name,
		t->op == DRAIN_OP_STOPPED ? " once its checks pass (it is down now)" : "");
	return DRAIN_SEND;
}
