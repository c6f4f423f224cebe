/* cpha etcd remove: etcdctl's member list and which named members to
 * remove, in which order. Pure; see etcd_remove.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etcd_remove.h"

#define SEP     ", " /* between the fields of etcdctl's simple output */
#define SEP_LEN 2

static void member_free(struct etcd_remove_member *m)
{
	free(m->name);
	free(m->peers);
	free(m->client);
}

void etcd_remove_members_free(struct etcd_remove_members *l)
{
	for (size_t i = 0; i < l->n; i++)
		member_free(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The last SEP in [s, end), or NULL. */
static const char *last_sep(const char *s, const char *end)
{
	for (const char *p = end - SEP_LEN; p >= s; p--)
		if (!memcmp(p, SEP, SEP_LEN))
			return p;
	return NULL;
}

static bool parse_id(const char *s, size_t len, uint64_t *id)
{
	uint64_t v = 0;

	if (len == 0 || len > 16)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i])
						? s[i] - '0'
						: tolower((unsigned char)s[i]) - 'a' + 10);
	}
	*id = v;
	return true;
}

static bool field_is(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

/* One line [s, end) into *m. The name may hold SEP; the addresses never
 * do (etcdctl joins them with a bare comma), so the fields are taken from
 * both ends. Returns 0, -EINVAL or -ENOMEM. */
static int parse_line(const char *s, const char *end, struct etcd_remove_member *m)
{
	const char *learner, *client, *peers, *status, *name, *p;
	size_t client_len;

	memset(m, 0, sizeof(*m));
	p = last_sep(s, end);
	if (!p)
		return -EINVAL;
	learner = p + SEP_LEN;
	if (field_is(learner, (size_t)(end - learner), "true"))
		m->learner = true;
	else if (!field_is(learner, (size_t)(end - learner), "false"))
		return -EINVAL;
	end = p;
	p = last_sep(s, end);
	if (!p)
		return -EINVAL;
	client = p + SEP_LEN;
	client_len = strcspn(client, ",");
	if (client_len > (size_t)(end - client))
		client_len = (size_t)(end - client);
	end = p;
	p = last_sep(s, end);
	if (!p)
		return -EINVAL;
	peers = p + SEP_LEN;
	if (peers == end)
		return -EINVAL; /* every member has a peer URL */
	/* s: "ID, STATUS, NAME" with NAME possibly empty */
	status = strstr(s, SEP);
	if (!status || status >= p || !parse_id(s, (size_t)(status - s), &m->id))
		return -EINVAL;
	status += SEP_LEN;
	name = strstr(status, SEP);
	if (!name || name + SEP_LEN > p)
		return -EINVAL;
	if (!field_is(status, (size_t)(name - status), "started") &&
		!field_is(status, (size_t)(name - status), "unstarted"))
		return -EINVAL;
	name += SEP_LEN;
	m->name = strndup(name, (size_t)(p - name));
	m->peers = strndup(peers, (size_t)(end - peers));
	m->client = strndup(client, client_len);
	if (!m->name || !m->peers || !m->client) {
		member_free(m);
		memset(m, 0, sizeof(*m));
		return -ENOMEM;
	}
	return 0;
}

int etcd_remove_parse(const char *text, struct etcd_remove_members *out, char *why, size_t len)
{
	const char *line, *end;
	unsigned lineno = 0;

	etcd_remove_members_free(out);
	snprintf(why, len, "%s", "");
	for (line = text; *line; line = end + (*end == '\n')) {
		struct etcd_remove_member m, *v;
		const char *stop;
		int r;

		end = strchrnul(line, '\n');
		lineno++;
		stop = end > line && end[-1] == '\r' ? end - 1 : end;
		if (strspn(line, " \t") >= (size_t)(stop - line))
			continue;
		r = parse_line(line, stop, &m);
		if (r == -EINVAL) {
			snprintf(why, len,
				"line %u is not a member as etcdctl member list -w simple lists "
				"one "
				"(ID, STATUS, NAME, PEER ADDRS, CLIENT ADDRS, IS LEARNER): %.*s",
				lineno, (int)(stop - line > 120 ? 120 : stop - line), line);
			goto fail;
		}
		if (r < 0)
			goto nomem;
		v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v) {
			member_free(&m);
			goto nomem;
		}
		out->v = v;
		out->v[out->n++] = m;
	}
	return 0;
nomem:
	snprintf(why, len, "out of memory");
	etcd_remove_members_free(out);
	return -ENOMEM;
fail:
	etcd_remove_members_free(out);
	return -EINVAL;
}

const char *etcd_remove_label(const struct etcd_remove_member *m)
{
	return *m->name ? m->name : m->peers;
}

/* Two URLs name the same endpoint: equal but for the case of the scheme
 * and host and a trailing '/'. */
static bool url_equal(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	if (alen && a[alen - 1] == '/')
		alen--;
	if (blen && b[blen - 1] == '/')
		blen--;
	return alen == blen && !strncasecmp(a, b, alen);
}

/* Whether url is one of the comma-separated peers. */
static bool has_peer(const char *peers, const char *url)
{
	for (const char *p = peers; *p;) {
		size_t n = strcspn(p, ",");

		if (n && url_equal(p, n, url))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

ssize_t etcd_remove_find(const struct etcd_remove_members *l, const char *name)
{
	ssize_t found = -1;
	uint64_t id;

	if (!*name)
		return -1;
	for (int pass = 0; pass < 3 && found == -1; pass++) {
		for (size_t i = 0; i < l->n; i++) {
			const struct etcd_remove_member *m = &l->v[i];
			bool match = pass == 0   ? !strcmp(m->name, name)
				     : pass == 1 ? has_peer(m->peers, name)
						 : parse_id(name, strlen(name), &id) && id == m->id;

			if (!match)
				continue;
			if (found >= 0)
				return -2;
			found = (ssize_t)i;
		}
	}
	return found;
}

static bool desc_has_name(const struct etcd_remove_input *in, const char *name)
{
	for (size_t i = 0; *name && i < in->ndesc; i++)
		if (!strcmp(in->desc_names[i], name))
			return true;
	return false;
}

/* Whether name, as given, is one of the description's members (its name
 * or its peer URL). */
static bool desc_has_given(const struct etcd_remove_input *in, const char *name)
{
	if (desc_has_name(in, name))
		return true;
	for (size_t i = 0; in->desc_peers && i < in->ndesc; i++)
		if (url_equal(name, strlen(name), in->desc_peers[i]))
			return true;
	return false;
}

static bool desc_has_member(const struct etcd_remove_input *in, const struct etcd_remove_member *m)
{
	if (desc_has_name(in, m->name))
		return true;
	for (size_t i = 0; in->desc_peers && i < in->ndesc; i++)
		if (has_peer(m->peers, in->desc_peers[i]))
			return true;
	return false;
}

bool etcd_remove_health_needed(const struct etcd_remove_input *in, size_t i)
{
	if (!in->members->v[i].learner)
		return true;
	for (size_t k = 0; k < in->nnames; k++)
		if (etcd_remove_find(in->members, in->names[k]) == (ssize_t)i)
			return true;
	return false;
}

void etcd_remove_plan_free(struct etcd_remove_plan *p)
{
	free(p->steps);
	p->steps = NULL;
	p->n = 0;
	cpha_buf_free(&p->notes);
	cpha_buf_free(&p->why);
}

/* Append "a", "a and b" or "a, b and c" for the n labels to b (made
 * non-NULL even when n is 0). Returns 0 or -ENOMEM. */
static int join(struct cpha_buf *b, const char *const *labels, size_t n)
{
	int r = cpha_buf_puts(b, "");

	for (size_t k = 0; k < n && r == 0; k++) {
		if (k)
			r = cpha_buf_puts(b, k + 1 == n ? " and " : ", ");
		if (r == 0)
			r = cpha_buf_puts(b, labels[k]);
	}
	return r;
}

/* The labels of the members where pick is true, in the list's order, as
 * join(). */
static int join_labels(struct cpha_buf *b, const struct etcd_remove_members *l, const bool *pick)
{
	const char **labels = calloc(l->n ? l->n : 1, sizeof(*labels));
	size_t n = 0;
	int r;

	if (!labels)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++)
		if (pick[i])
			labels[n++] = etcd_remove_label(&l->v[i]);
	r = join(b, labels, n);
	free(labels);
	return r;
}

/* The labels of the plan's members (only its voters'), in its order, as
 * join(). */
static int join_steps(struct cpha_buf *b, const struct etcd_remove_members *l,
	const struct etcd_remove_plan *p, bool voters_only)
{
	const char **labels = calloc(p->n ? p->n : 1, sizeof(*labels));
	size_t n = 0;
	int r;

	if (!labels)
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++)
		if (!voters_only || !l->v[p->steps[i].member].learner)
			labels[n++] = etcd_remove_label(&l->v[p->steps[i].member]);
	r = join(b, labels, n);
	free(labels);
	return r;
}

/* Rules 1 to 3 for each name: the steps, the notes, the refusals. */
static int take_names(const struct etcd_remove_input *in, struct etcd_remove_plan *p, bool *named)
{
	const struct etcd_remove_members *l = in->members;
	int r = 0;

	for (size_t k = 0; k < in->nnames && r == 0; k++) {
		const char *name = in->names[k];
		const struct etcd_remove_member *m;
		bool twice = false;
		ssize_t i;

		for (size_t j = 0; j < k; j++)
			twice = twice || !strcmp(in->names[j], name);
		if (twice)
			continue;
		/* rule 1: the description still has it */
		if (desc_has_given(in, name)) {
			r = cpha_buf_printf(&p->why,
				"%s is still an etcd member in %s: remove it from masters: there "
				"(or from etcd: hosts:) and render first\n",
				name, in->file);
			continue;
		}
		i = etcd_remove_find(l, name);
		if (i == -2) {
			r = cpha_buf_printf(&p->why,
				"%s names more than one member: give the ID of the one to remove "
				"(etcdctl member list)\n",
				name);
			continue;
		}
		/* rule 2: gone already */
		if (i < 0) {
			r = cpha_buf_printf(
				&p->notes, "%s: not a member (removed already)\n", name);
			continue;
		}
		if (named[i])
			continue; /* two names of one member */
		m = &l->v[i];
		if (desc_has_member(in, m)) {
			r = cpha_buf_printf(&p->why,
				"%s is still an etcd member in %s: remove it from masters: there "
				"(or from etcd: hosts:) and render first\n",
				etcd_remove_label(m), in->file);
			continue;
		}
		/* rule 3: it still runs */
		if (m->healthy) {
			r = cpha_buf_printf(&p->why,
				"%s's member still runs: stop it first (pcs node standby %s, or "
				"stop etcd there), then remove it\n",
				etcd_remove_label(m), etcd_remove_label(m));
			continue;
		}
		named[i] = true;
		p->steps[p->n++] = (struct etcd_remove_step){ .member = (size_t)i, .name = k };
	}
	return r;
}

/* Rule 6: learners first, stable otherwise. */
static void order_steps(const struct etcd_remove_members *l, struct etcd_remove_plan *p)
{
	size_t k = 0, voters = 0;

	for (size_t pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < p->n; i++) {
			struct etcd_remove_step s = p->steps[i];

			if (l->v[s.member].learner != (pass == 0))
				continue;
			/* move s to position k, shifting the rest of the pass down */
			memmove(&p->steps[k + 1], &p->steps[k], (i - k) * sizeof(s));
			p->steps[k++] = s;
		}
	for (size_t i = 0; i < l->n; i++)
		voters += !l->v[i].learner;
	for (size_t i = 0; i < p->n; i++) {
		voters -= !l->v[p->steps[i].member].learner;
		p->steps[i].voters_after = voters;
	}
}

/* Rules 4 and 5, on the members left. pick: room for a flag per member.
 * Returns 0 or -ENOMEM. */
static int judge_counts(const struct etcd_remove_input *in, struct etcd_remove_plan *p,
	const bool *named, bool *pick)
{
	const struct etcd_remove_members *l = in->members;
	size_t voters_now = 0, healthy_now = 0, named_voters = 0, outside = 0;
	struct cpha_buf all = { 0 }, voters = { 0 }, down = { 0 };
	int r = -ENOMEM;

	for (size_t i = 0; i < l->n; i++) {
		const struct etcd_remove_member *m = &l->v[i];

		if (m->learner)
			continue;
		voters_now++;
		healthy_now += m->healthy;
		if (named[i]) {
			named_voters++;
			continue;
		}
		p->voters_left++;
		p->healthy_left += m->healthy;
		outside += !desc_has_member(in, m);
	}
	if (p->n == 0)
		return 0;
	if (join_steps(&all, l, p, false) < 0 || join_steps(&voters, l, p, true) < 0)
		goto out;
	/* rule 4 */
	if (named_voters && p->voters_left == 0) {
		r = cpha_buf_printf(&p->why,
			"removing %s would leave etcd no voting member: keep one\n", voters.data);
		goto out;
	}
	for (size_t i = 0; i < l->n; i++)
		pick[i] = !l->v[i].learner && !named[i] && !l->v[i].healthy;
	if (p->voters_left && 2 * p->healthy_left <= p->voters_left) {
		if (join_labels(&down, l, pick) < 0)
			goto out;
		r = cpha_buf_printf(&p->why,
			"removing %s would leave %zu healthy of %zu voting members: no quorum "
			"(%zu needed; %s %s not answer)\n",
			all.data, p->healthy_left, p->voters_left, p->voters_left / 2 + 1,
			down.data, p->voters_left - p->healthy_left > 1 ? "do" : "does");
		goto out;
	}
	if (voters_now && 2 * healthy_now <= voters_now) {
		for (size_t i = 0; i < l->n; i++)
			pick[i] = !l->v[i].learner && !l->v[i].healthy;
		if (join_labels(&down, l, pick) < 0)
			goto out;
		r = cpha_buf_printf(&p->why,
			"etcd has %zu healthy of %zu voting members: no quorum (%zu needed) to "
			"commit a removal (%s %s not answer)\n",
			healthy_now, voters_now, voters_now / 2 + 1, down.data,
			voters_now - healthy_now > 1 ? "do" : "does");
		goto out;
	}
	/* rule 5 */
	r = 0;
	if (!named_voters || p->voters_left % 2)
		goto out;
	if (!outside) {
		r = cpha_buf_printf(&p->why,
			"removing %s would leave etcd %zu voting members, an even number: they "
			"tolerate no more failures than %zu do and need one vote more; take one "
			"more member out of %s and remove it too, or keep %s%s\n",
			voters.data, p->voters_left, p->voters_left - 1, in->file,
			named_voters > 1 ? "one of " : "", voters.data);
		goto out;
	}
	for (size_t i = 0; i < l->n; i++)
		pick[i] = !l->v[i].learner && !named[i] && !desc_has_member(in, &l->v[i]);
	r = join_labels(&down, l, pick);
	if (r == 0)
		r = cpha_buf_printf(&p->notes,
			"etcd is left with %zu voting members, an even number, while %s (not in "
			"%s) %s still a member: remove %s too\n",
			p->voters_left, down.data, in->file, outside > 1 ? "are" : "is",
			outside > 1 ? "them" : "it");
out:
	cpha_buf_free(&all);
	cpha_buf_free(&voters);
	cpha_buf_free(&down);
	return r;
}

int etcd_remove_decide(const struct etcd_remove_input *in, struct etcd_remove_plan *p)
{
	const struct etcd_remove_members *l = in->members;
	bool *named = NULL, *pick = NULL;
	int r = -ENOMEM;

	memset(p, 0, sizeof(*p));
	p->steps = calloc(in->nnames ? in->nnames : 1, sizeof(*p->steps));
	named = calloc(l->n ? l->n : 1, sizeof(*named));
	pick = calloc(l->n ? l->n : 1, sizeof(*pick));
	if (!p->steps || !named || !pick)
		goto out;
	if (take_names(in, p, named) < 0)
		goto out;
	if (p->why.len == 0) {
		order_steps(l, p);
		if (judge_counts(in, p, named, pick) < 0)
			goto out;
	}
	p->go = p->why.len == 0;
	if (!p->go)
		p->n = 0;
	r = 0;
out:
	free(named);
	free(pick);
	return r;
}
