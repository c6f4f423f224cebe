/* `cpha etcd remove NAME...`: gather etcd's member list (etcdctl member
 * list -w simple, from the first of the description's etcd members that
 * answers) and the health of the members that matter, ask
 * etcd_remove_decide(), remove the first member of its plan (etcdctl
 * member remove, through a healthy member that stays), and gather again
 * before the next: the list may change between two removals. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cpha.h"
#include "etcd_ctl.h"
#include "etcd_remove.h"
#include "etcd_remove_cmd.h"

#define PROG    "cpha etcd remove"
#define URL_LEN (CPHA_ADDR_STRLEN + 32)

/* etcdctl's flags for the client certificate */
struct tls {
	char ca[4200], cert[4200], key[4200];
};

/* What the description says: its etcd members' names and URLs. */
struct desc {
	const char **names;
	char **peers, **clients;
	size_t n;
};

static void desc_free(struct desc *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->peers[i]);
		free(d->clients[i]);
	}
	free(d->names);
	free(d->peers);
	free(d->clients);
}

static int desc_load(const struct cp_cluster *c, struct desc *d)
{
	char url[URL_LEN];

	memset(d, 0, sizeof(*d));
	d->names = calloc(c->netcd, sizeof(*d->names));
	d->peers = calloc(c->netcd, sizeof(*d->peers));
	d->clients = calloc(c->netcd, sizeof(*d->clients));
	if (!d->names || !d->peers || !d->clients)
		return -ENOMEM;
	for (; d->n < c->netcd; d->n++) {
		size_t i = d->n;

		d->names[i] = c->hosts[c->etcd[i]].name;
		d->peers[i] = strdup(cpha_etcd_url(c, i, true, url, sizeof(url)));
		d->clients[i] = strdup(cpha_etcd_url(c, i, false, url, sizeof(url)));
		if (!d->peers[i] || !d->clients[i]) {
			d->n++;
			return -ENOMEM;
		}
	}
	return 0;
}

/* etcdctl member list -w simple from the first of the description's
 * members that answers, parsed into l. Returns 0, or -1 after saying why. */
static int list_members(
	const struct tls *t, const struct desc *d, const char *file, struct etcd_remove_members *l)
{
	struct cpha_buf errs = { 0 };
	int got = -1;

	for (size_t i = 0; i < d->n && got < 0; i++) {
		char ep[URL_LEN + 16], why[512];
		const char *args[] = { ep, t->ca, t->cert, t->key, CPHA_ETCDCTL_DIAL_TIMEOUT,
			CPHA_ETCDCTL_CMD_TIMEOUT, "member", "list", "-w", "simple", NULL };
		struct cpha_run_result res;

		snprintf(ep, sizeof(ep), "--endpoints=%s", d->clients[i]);
		if (cpha_etcdctl(args, CPHA_ETCDCTL_SHORT_SEC, &res, why, sizeof(why)) == 0) {
			if (!res.exited || res.exit_code != 0) {
				cpha_etcdctl_failure(&res, why, sizeof(why));
			} else if (etcd_remove_parse(res.out ? res.out : "", l, why, sizeof(why)) ==
				   0) {
				got = 0;
			} else {
				/* an answer, but not one understood: say so, ask no other */
				fprintf(stderr, PROG ": %s: etcdctl member list: %s\n",
					d->clients[i], why);
				cpha_run_free(&res);
				break;
			}
		}
		cpha_run_free(&res);
		if (got == 0)
			break;
		cpha_buf_printf(&errs, "\n  %s: %s", d->clients[i], why);
		if (!strcmp(why, CPHA_ETCDCTL_NOT_INSTALLED))
			break;
	}
	if (got < 0 && errs.data)
		fprintf(stderr, PROG ": no member list from any etcd member of %s:%s\n", file,
			errs.data);
	cpha_buf_free(&errs);
	return got;
}

/* Ask each member whose health the decision reads; a member with no
 * client URL (never started) is not healthy. */
static void ask_health(
	const struct tls *t, struct etcd_remove_members *l, const struct etcd_remove_input *in)
{
	for (size_t i = 0; i < l->n; i++) {
		struct etcd_remove_member *m = &l->v[i];
		char ep[4096], why[512];

		m->healthy = false;
		if (!*m->client || !etcd_remove_health_needed(in, i))
			continue;
		snprintf(ep, sizeof(ep), "--endpoints=%s", m->client);
		m->healthy = cpha_etcd_healthy(ep, t->ca, t->cert, t->key, why, sizeof(why)) == 0;
	}
}

/* Print the lines of text not printed before (kept in seen), each after
 * PROG. */
static void print_new_lines(const char *text, struct cpha_buf *seen)
{
	for (const char *line = text, *end; line && *line; line = end + (*end == '\n')) {
		char *one;

		end = strchrnul(line, '\n');
		one = strndup(line, (size_t)(end - line) + (*end == '\n'));
		if (!one)
			return;
		if (!seen->data || !strstr(seen->data, one)) {
			printf(PROG ": %s", one);
			if (*end != '\n')
				putchar('\n');
			cpha_buf_puts(seen, one);
		}
		free(one);
	}
}

/* The client URL of a healthy member the plan keeps, to ask for a
 * removal; NULL when none. */
static const char *healthy_endpoint(
	const struct etcd_remove_members *l, const struct etcd_remove_plan *p)
{
	for (size_t i = 0; i < l->n; i++) {
		bool going = false;

		for (size_t k = 0; k < p->n; k++)
			going = going || p->steps[k].member == i;
		if (!going && l->v[i].healthy && *l->v[i].client)
			return l->v[i].client;
	}
	return NULL;
}

/* etcdctl member remove of m through url. Returns 0, or -1 after saying
 * why. */
static int remove_member(const struct tls *t, const char *url, const struct etcd_remove_member *m)
{
	char ep[4096], hex[17], why[512];
	const char *args[] = { ep, t->ca, t->cert, t->key, CPHA_ETCDCTL_DIAL_TIMEOUT,
		CPHA_ETCDCTL_CMD_TIMEOUT, "member", "remove", hex, NULL };
	struct cpha_run_result res;
	int r = -1;

	snprintf(ep, sizeof(ep), "--endpoints=%s", url);
	snprintf(hex, sizeof(hex), "%" PRIx64, m->id);
	if (cpha_etcdctl(args, CPHA_ETCDCTL_SHORT_SEC, &res, why, sizeof(why)) == 0) {
		if (res.exited && res.exit_code == 0)
			r = 0;
		else
			cpha_etcdctl_failure(&res, why, sizeof(why));
	}
	cpha_run_free(&res);
	if (r < 0)
		fprintf(stderr, PROG ": %s (member %s): etcdctl member remove through %s: %s\n",
			etcd_remove_label(m), hex, url, why);
	return r;
}

/* Drop the names that stand for member i of l (it was removed). */
static void drop_names(const char **names, size_t *n, const struct etcd_remove_members *l, size_t i,
	const char *given)
{
	size_t k = 0;

	for (size_t j = 0; j < *n; j++)
		if (strcmp(names[j], given) != 0 && etcd_remove_find(l, names[j]) != (ssize_t)i)
			names[k++] = names[j];
	*n = k;
}

static void print_refusal(const struct etcd_remove_plan *p, unsigned removed)
{
	fflush(stdout);
	for (const char *line = p->why.data, *end; line && *line; line = end + (*end == '\n')) {
		end = strchrnul(line, '\n');
		fprintf(stderr, PROG ": %.*s\n", (int)(end - line), line);
	}
	if (removed)
		fprintf(stderr, PROG ": stopped after %u removal%s\n", removed,
			removed > 1 ? "s" : "");
}

int cpha_etcd_remove(const char *file, const struct etcd_remove_opts *o)
{
	struct cp_cluster *c = NULL;
	struct desc d = { 0 };
	struct tls t;
	struct etcd_remove_members l = { 0 };
	struct etcd_remove_plan p = { 0 };
	struct cpha_buf seen = { 0 };
	const char **names = NULL;
	size_t nnames = o->nnames;
	unsigned removed = 0;
	int rc = CPHA_EXIT_FAIL;

	c = cpha_load(file);
	if (!c)
		goto out;
	if (!c->netcd) {
		fprintf(stderr, PROG ": %s: no etcd member\n", file);
		goto out;
	}
	if (cpha_etcd_pki_check(PROG, o->pki) < 0)
		goto out;
	snprintf(t.ca, sizeof(t.ca), "--cacert=%s/ca.pem", o->pki);
	snprintf(t.cert, sizeof(t.cert), "--cert=%s/etcd-client.pem", o->pki);
	snprintf(t.key, sizeof(t.key), "--key=%s/etcd-client-key.pem", o->pki);
	names = calloc(nnames ? nnames : 1, sizeof(*names));
	if (!names || desc_load(c, &d) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	memcpy(names, o->names, nnames * sizeof(*names));
	/* each round removes a member and drops its name, or ends */
	for (size_t round = 0; round <= o->nnames; round++) {
		struct etcd_remove_input in = { .members = &l,
			.names = names,
			.nnames = nnames,
			.desc_names = d.names,
			.desc_peers = (const char *const *)d.peers,
			.ndesc = d.n,
			.file = file };
		const struct etcd_remove_member *m;
		const char *via;

		etcd_remove_plan_free(&p);
		if (list_members(&t, &d, file, &l) < 0)
			goto stopped;
		ask_health(&t, &l, &in);
		if (etcd_remove_decide(&in, &p) < 0) {
			fprintf(stderr, PROG ": out of memory\n");
			goto out;
		}
		print_new_lines(p.notes.data, &seen);
		if (!p.go) {
			print_refusal(&p, removed);
			goto out;
		}
		if (p.n == 0) {
			if (!removed)
				printf(PROG ": nothing to do: no member named is in etcd's member "
					    "list\n");
			rc = CPHA_EXIT_OK;
			goto out;
		}
		if (o->dry_run) {
			for (size_t k = 0; k < p.n; k++) {
				m = &l.v[p.steps[k].member];
				printf(PROG ": would remove %s (member %" PRIx64
					    "), %zu voting members left\n",
					etcd_remove_label(m), m->id, p.steps[k].voters_after);
			}
			printf(PROG ": --dry-run: nothing removed\n");
			rc = CPHA_EXIT_OK;
			goto out;
		}
		m = &l.v[p.steps[0].member];
		via = healthy_endpoint(&l, &p);
		if (!via) {
			fprintf(stderr, PROG ": no healthy member to remove %s through\n",
				etcd_remove_label(m));
			goto stopped;
		}
		if (remove_member(&t, via, m) < 0)
			goto stopped;
		removed++;
		printf(PROG ": %s removed (member %" PRIx64 "), %zu voting members left\n",
			etcd_remove_label(m), m->id, p.steps[0].voters_after);
		fflush(stdout);
		drop_names(names, &nnames, &l, p.steps[0].member, names[p.steps[0].name]);
		if (nnames == 0) {
			rc = CPHA_EXIT_OK;
			goto out;
		}
	}
	fprintf(stderr, PROG ": the member list kept changing; run it again\n");
	goto out;
stopped:
	if (removed)
		fprintf(stderr, PROG ": stopped after %u removal%s\n", removed,
			removed > 1 ? "s" : "");
out:
	fflush(stdout);
	etcd_remove_plan_free(&p);
	etcd_remove_members_free(&l);
	cpha_buf_free(&seen);
	desc_free(&d);
	free(names);
	if (c)
		cluster_free(c);
	return rc;
}
