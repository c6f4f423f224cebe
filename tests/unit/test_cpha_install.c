/* cpha install (install_plan.c, install.c): the plan of a master, a
 * load-balancer host, a static-pods master and an etcd-only host of the
 * fixtures; every PKI path a host's rendered files read is in its plan; a
 * file that holds a key is made private; the secrets a host reads; the
 * table in docs/runbook.md is the one in the code; and install_run() on a
 * temporary root: owner, modes, "unchanged", and a link out of the root.
 *
 * CPHA_UPDATE_GOLDEN=1 rewrites the table in docs/runbook.md. */
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cpha_test.h"
#include "install.h"
#include "install_plan.h"
#include "render.h"
#include "render_test.h"

#define SAMPLE      "tests/samples/cluster.yaml"
#define SYSTEMD     "tests/fixtures/cpha/systemd.yaml"
#define STATIC_PODS "tests/fixtures/cpha/static-pods.yaml"
#define FIVE        "tests/fixtures/cpha/five-haproxy.yaml"

/* The plan of host name in fixture rel; c and s are the caller's to free. */
static void plan_of(const char *rel, const char *name, struct cp_cluster **c, struct render_set *s,
	struct install_plan *p)
{
	struct cpha_msgs d = { 0 };
	const struct cp_host *h;

	*c = load(rel);
	h = cluster_host(*c, name);
	assert_non_null(h);
	assert_int_equal(install_render(*c, s, &d), 0);
	for (size_t i = 0; i < d.nerrs; i++)
		print_error("%s\n", d.errs[i].text);
	assert_int_equal(d.nerrs, 0);
	cpha_msgs_free(&d);
	assert_int_equal(install_plan_build(*c, h, s, p), 0);
}

static void done(struct cp_cluster *c, struct render_set *s, struct install_plan *p)
{
	install_plan_free(p);
	render_set_free(s);
	cluster_free(c);
}

/* The action that puts dest: it must be there, from src, with mode. */
static const struct install_action *want(
	const struct install_plan *p, const char *dest, enum install_src src, unsigned mode)
{
	const struct install_action *a = install_plan_find(p, dest);

	if (!a)
		print_error("%s: no action puts %s\n", p->host, dest);
	assert_non_null(a);
	if (a->mode != mode || a->src != src)
		print_error("%s: %s: mode %04o src %d, want %04o src %d\n", p->host, dest, a->mode,
			a->src, mode, src);
	assert_int_equal(a->mode, mode);
	assert_int_equal(a->src, src);
	return a;
}

static void none(const struct install_plan *p, const char *dest)
{
	if (install_plan_find(p, dest))
		print_error("%s: %s is planned, and must not be\n", p->host, dest);
	assert_null(install_plan_find(p, dest));
}

/* Invariants of every plan: one action per destination; every rendered
 * file of the host once, at its path, from OUT/<host>/<path>; keys 0600. */
static void invariants(const struct install_plan *p, const struct render_set *s)
{
	size_t nrender = 0;

	for (size_t i = 0; i < p->n; i++) {
		const struct install_action *a = &p->v[i];
		assert_true(a->dest[0] == '/');
		for (size_t k = i + 1; k < p->n; k++)
			if (!strcmp(a->dest, p->v[k].dest)) {
				print_error("%s: %s twice\n", p->host, a->dest);
				fail();
			}
		if (a->src == INSTALL_SRC_RENDER) {
			assert_string_equal(a->source, a->dest + 1);
			nrender++;
		}
		if (a->src == INSTALL_SRC_PKI) {
			bool key = strstr(a->source, "key") != NULL;
			if (!strcmp(a->source, "corosync-authkey"))
				assert_int_equal(a->mode, 0400);
			else if (key)
				assert_int_equal(a->mode, 0600);
			else
				assert_int_equal(a->mode, 0644);
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct render_file *f = &s->v[i];
		if (!f->host || strcmp(f->host, p->host))
			continue;
		nrender--;
		want(p, f->path, INSTALL_SRC_RENDER, f->mode);
	}
	assert_int_equal(nrender, 0);
}

static const char *const master_pki[] = {
	"/etc/kubernetes/pki/ca.pem",
	"/etc/kubernetes/pki/ca-key.pem",
	"/etc/kubernetes/pki/apiserver.pem",
	"/etc/kubernetes/pki/apiserver-key.pem",
	"/etc/kubernetes/pki/sa.key",
	"/etc/kubernetes/pki/sa.pub",
	"/etc/kubernetes/pki/kubelet-client.pem",
	"/etc/kubernetes/pki/kubelet-client-key.pem",
	"/etc/kubernetes/pki/admin.pem",
	"/etc/kubernetes/pki/admin-key.pem",
	"/etc/kubernetes/pki/super-admin.pem",
	"/etc/kubernetes/pki/super-admin-key.pem",
	"/etc/kubernetes/pki/front-proxy-ca.pem",
	"/etc/kubernetes/pki/front-proxy-client.pem",
	"/etc/kubernetes/pki/front-proxy-client-key.pem",
	"/etc/etcd/pki/ca.pem",
	"/etc/etcd/pki/etcd-server.pem",
	"/etc/etcd/pki/etcd-server-key.pem",
	"/etc/etcd/pki/etcd-client.pem",
	"/etc/etcd/pki/etcd-client-key.pem",
	"/var/lib/kube-controller-manager/pki/controller-manager.pem",
	"/var/lib/kube-controller-manager/pki/controller-manager-key.pem",
	"/var/lib/kube-scheduler/pki/scheduler.pem",
	"/var/lib/kube-scheduler/pki/scheduler-key.pem",
};
#define NMASTER_PKI (sizeof(master_pki) / sizeof(master_pki[0]))

static size_t count_src(const struct install_plan *p, enum install_src src)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].src == src;
	return n;
}

/* A master of the sample (Pacemaker, LB hosts apart). */
static void test_master(void **state)
{
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;
	const struct install_action *a;

	(void)state;
	plan_of(SAMPLE, "kubem00", &c, &s, &p);
	invariants(&p, &s);
	assert_string_equal(p.host, "kubem00");
	for (size_t i = 0; i < NMASTER_PKI; i++) {
		const char *n = strrchr(master_pki[i], '/') + 1;
		a = want(&p, master_pki[i], INSTALL_SRC_PKI, strstr(n, "key") ? 0600 : 0644);
		assert_string_equal(a->source, n);
		assert_null(a->owner);
		assert_false(a->flags & INSTALL_OPTIONAL);
	}
	a = want(&p, "/etc/corosync/authkey", INSTALL_SRC_PKI, 0400);
	assert_string_equal(a->source, "corosync-authkey");
	assert_int_equal(count_src(&p, INSTALL_SRC_PKI), NMASTER_PKI + 1);
	want(&p, "/etc/cpha/cluster.yaml", INSTALL_SRC_DESC, 0644);
	a = want(&p, "/var/lib/etcd", INSTALL_SRC_NONE, 0700);
	assert_true(a->flags & INSTALL_DIR);
	a = want(&p, "/var/log/cpha", INSTALL_SRC_NONE, 0755);
	assert_true(a->flags & INSTALL_DIR);
	/* its rendered files, as rendered; kubeconfigs stay private */
	want(&p, "/etc/kubernetes/apiserver.env", INSTALL_SRC_RENDER, 0644);
	want(&p, "/etc/corosync/corosync.conf", INSTALL_SRC_RENDER, 0644);
	want(&p, "/var/lib/kube-scheduler/kubeconfig", INSTALL_SRC_RENDER, 0600);
	want(&p, "/etc/kubernetes/admin.conf", INSTALL_SRC_RENDER, 0600);
	none(&p, "/etc/lbd/lbd.cfg");
	none(&p, "/cib.xml");
	/* Pacemaker's fence devices may run on any master: every master's BMC */
	assert_int_equal(p.nsecrets, 3);
	assert_string_equal(p.secrets[0], "/etc/cpha/secrets/ipmi-kubem00");
	assert_string_equal(p.secrets[2], "/etc/cpha/secrets/ipmi-kubem02");
	/* directories first, the PKI last */
	assert_true(p.v[0].flags & INSTALL_DIR);
	assert_int_equal(p.v[p.n - 1].src, INSTALL_SRC_PKI);
	done(c, &s, &p);
}

/* A load-balancer host of the sample: its own corosync cluster, no PKI
 * but the authkey, its own BMC secrets. */
static void test_lb_host(void **state)
{
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;

	(void)state;
	plan_of(SAMPLE, "lb01", &c, &s, &p);
	invariants(&p, &s);
	want(&p, "/etc/lbd/lbd.cfg", INSTALL_SRC_RENDER, 0644);
	want(&p, "/etc/vipd/vipd.conf", INSTALL_SRC_RENDER, 0644);
	want(&p, "/etc/fenced/fenced.conf", INSTALL_SRC_RENDER, 0644);
	want(&p, "/etc/corosync/authkey", INSTALL_SRC_PKI, 0400);
	assert_int_equal(count_src(&p, INSTALL_SRC_PKI), 1);
	want(&p, "/etc/cpha/cluster.yaml", INSTALL_SRC_DESC, 0644);
	want(&p, "/var/log/cpha", INSTALL_SRC_NONE, 0755);
	none(&p, "/var/lib/etcd");
	for (size_t i = 0; i < NMASTER_PKI; i++)
		none(&p, master_pki[i]);
	assert_int_equal(p.nsecrets, 2);
	assert_string_equal(p.secrets[0], "/etc/cpha/secrets/ipmi-lb00");
	assert_string_equal(p.secrets[1], "/etc/cpha/secrets/ipmi-lb01");
	done(c, &s, &p);
}

/* A static-pods master (IPv6), and the fixture's host that runs only
 * etcd: it gets etcd's certificates and data directory, nothing else. */
static void test_static_pods(void **state)
{
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;

	(void)state;
	plan_of(STATIC_PODS, "cp-a", &c, &s, &p);
	invariants(&p, &s);
	want(&p, "/etc/kubernetes/manifests/etcd.yaml", INSTALL_SRC_RENDER, 0600);
	want(&p, "/etc/kubernetes/manifests/kube-apiserver.yaml", INSTALL_SRC_RENDER, 0600);
	for (size_t i = 0; i < NMASTER_PKI; i++)
		assert_non_null(install_plan_find(&p, master_pki[i]));
	/* its own kubelet's client certificate, and no other master's */
	assert_string_equal(
		want(&p, "/var/lib/kubelet/pki/kubelet-client.pem", INSTALL_SRC_PKI, 0644)->source,
		"node-cp-a.pem");
	assert_string_equal(
		want(&p, "/var/lib/kubelet/pki/kubelet-client-key.pem", INSTALL_SRC_PKI, 0600)
			->source,
		"node-cp-a-key.pem");
	want(&p, "/var/lib/etcd", INSTALL_SRC_NONE, 0700);
	want(&p, "/etc/corosync/authkey", INSTALL_SRC_PKI, 0400);
	assert_int_equal(p.nsecrets, 0); /* no fencing devices */
	install_plan_free(&p);

	assert_int_equal(install_plan_build(c, cluster_host(c, "etcd-c"), &s, &p), 0);
	invariants(&p, &s);
	want(&p, "/etc/systemd/system/etcd.service", INSTALL_SRC_RENDER, 0644);
	want(&p, "/etc/etcd/pki/ca.pem", INSTALL_SRC_PKI, 0644);
	want(&p, "/etc/etcd/pki/etcd-server.pem", INSTALL_SRC_PKI, 0644);
	want(&p, "/etc/etcd/pki/etcd-server-key.pem", INSTALL_SRC_PKI, 0600);
	assert_int_equal(count_src(&p, INSTALL_SRC_PKI), 3);
	none(&p, "/etc/corosync/authkey"); /* in no corosync cluster */
	none(&p, "/etc/kubernetes/pki/ca-key.pem");
	want(&p, "/var/lib/etcd", INSTALL_SRC_NONE, 0700);
	done(c, &s, &p);
}

/* etcd.data_dir is where the data directory goes. */
static void test_data_dir(void **state)
{
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;

	(void)state;
	plan_of(SYSTEMD, "e4", &c, &s, &p);
	want(&p, "/srv/etcd", INSTALL_SRC_NONE, 0700);
	none(&p, "/var/lib/etcd");
	done(c, &s, &p);
}

/* etcd.snapshot: every etcd member, a master or a host that runs only
 * etcd, gets the snapshot service and its timer, and etcd's client
 * certificate that the service uses; the LB hosts get neither. */
static void test_etcd_snapshot(void **state)
{
	static const char *const members[] = { "m1", "e4" };
	struct cpha_msgs d = { 0 };
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;
	struct render_file *f;

	(void)state;
	c = cpha_test_load(CPHA_TEST_BASE
		"load_balancers: [{name: l1, address: 198.18.0.21}, {name: l2, address: "
		"198.18.0.22}]\n"
		"etcd:\n"
		"  hosts: [m1, m2, m3, {name: e4, address: 198.18.0.14}, {name: e5, address: "
		"198.18.0.15}]\n"
		"  snapshot: {every: 1h, keep: 5}\n"
		"components: {manager: systemd}\n",
		&d, NULL);
	for (size_t i = 0; i < d.nerrs; i++)
		print_error("%s\n", d.errs[i].text);
	assert_non_null(c);
	assert_int_equal(install_render(c, &s, &d), 0);
	assert_int_equal(d.nerrs, 0);
	for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++) {
		f = render_find(&s, members[i], RENDER_SNAPSHOT_UNIT ".service");
		assert_non_null(f);
		assert_int_equal(f->mode, 0644);
		assert_non_null(strstr(f->text.data, "\nType=oneshot\n"));
		assert_non_null(strstr(f->text.data,
			"\nExecStart=/usr/bin/cpha -f /etc/cpha/cluster.yaml etcd snapshot\n"));
		assert_non_null(strstr(f->text.data, "into /var/lib/etcd-snapshots, the newest 5"));
		f = render_find(&s, members[i], RENDER_SNAPSHOT_UNIT ".timer");
		assert_non_null(f);
		assert_non_null(strstr(f->text.data, "\nOnBootSec=1h\nOnUnitActiveSec=1h\n"));
		assert_non_null(strstr(f->text.data, "\nWantedBy=timers.target\n"));
		assert_int_equal(install_plan_build(c, cluster_host(c, members[i]), &s, &p), 0);
		invariants(&p, &s);
		want(&p, RENDER_SNAPSHOT_UNIT ".service", INSTALL_SRC_RENDER, 0644);
		want(&p, RENDER_SNAPSHOT_UNIT ".timer", INSTALL_SRC_RENDER, 0644);
		want(&p, "/etc/etcd/pki/ca.pem", INSTALL_SRC_PKI, 0644);
		want(&p, "/etc/etcd/pki/etcd-client.pem", INSTALL_SRC_PKI, 0644);
		want(&p, "/etc/etcd/pki/etcd-client-key.pem", INSTALL_SRC_PKI, 0600);
		install_plan_free(&p);
	}
	assert_null(render_find(&s, "l1", RENDER_SNAPSHOT_UNIT ".service"));
	assert_null(render_find(&s, "l1", RENDER_SNAPSHOT_UNIT ".timer"));
	assert_int_equal(install_plan_build(c, cluster_host(c, "l1"), &s, &p), 0);
	none(&p, "/etc/etcd/pki/etcd-client.pem");
	install_plan_free(&p);
	cpha_msgs_free(&d);
	done(c, &s, &p);
}

/* Without etcd.snapshot, no member gets the units. */
static void test_no_etcd_snapshot(void **state)
{
	struct cp_cluster *c;
	struct render_set s = { 0 };
	struct install_plan p;

	(void)state;
	plan_of(SYSTEMD, "e4", &c, &s, &p);
	for (size_t i = 0; i < s.n; i++)
		assert_null(strstr(s.v[i].path, "cpha-etcd-snapshot"));
	none(&p, "/etc/etcd/pki/etcd-client.pem");
	done(c, &s, &p);
}

/* Every PKI path a host's rendered files name (flags, kubeconfigs,
 * manifests' mounts) is installed on that host, on every host of every
 * fixture: what render makes a host read, install puts there. */
static void test_pki_read_is_installed(void **state)
{
	static const char *const fixtures[] = { SAMPLE, SYSTEMD, STATIC_PODS, FIVE };
	static const char *const dirs[] = { "/etc/kubernetes/pki/", "/etc/etcd/pki/",
		"/var/lib/kube-controller-manager/pki/", "/var/lib/kube-scheduler/pki/" };
	size_t checked = 0;

	(void)state;
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		struct cp_cluster *c = load(fixtures[fx]);
		struct render_set s = { 0 };
		struct cpha_msgs d = { 0 };

		assert_int_equal(install_render(c, &s, &d), 0);
		cpha_msgs_free(&d);
		for (size_t hi = 0; hi < c->nhosts; hi++) {
			struct install_plan p;
			assert_int_equal(install_plan_build(c, &c->hosts[hi], &s, &p), 0);
			invariants(&p, &s);
			for (size_t i = 0; i < s.n; i++) {
				const struct render_file *f = &s.v[i];
				if (!f->host || strcmp(f->host, p.host))
					continue;
				for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
					const char *at = f->text.data;
					while ((at = strstr(at, dirs[k]))) {
						size_t n = strcspn(at, " \t\n\"',=");
						char *path = strndup(at, n);
						if (!install_plan_find(&p, path))
							print_error(
								"%s: %s reads %s, which install "
								"does not put there (%s)\n",
								p.host, f->path, path,
								fixtures[fx]);
						assert_non_null(install_plan_find(&p, path));
						free(path);
						checked++;
						at += n;
					}
				}
			}
			install_plan_free(&p);
		}
		render_set_free(&s);
		cluster_free(c);
	}
	assert_true(checked > 50); /* the scan found the paths it checks */
}

/* A rendered file that holds a private key is private whatever its
 * rendered mode; the recognisers. */
static void test_private_key(void **state)
{
	struct cp_cluster *c = load(SAMPLE);
	struct render_set s = { 0 };
	struct install_plan p;
	const struct install_action *a;

	(void)state;
	assert_true(install_holds_key("x\n-----BEGIN PRIVATE KEY-----\n", 30));
	assert_true(install_holds_key("-----BEGIN EC PRIVATE KEY-----", 30));
	assert_true(install_holds_key("users:\n- user:\n    client-key-data: LS0t\n", 40));
	assert_false(install_holds_key("-----BEGIN CERTIFICATE-----", 27));
	assert_false(install_holds_key("client-key: /etc/kubernetes/pki/admin-key.pem", 45));
	assert_false(install_holds_key(NULL, 0));

	cpha_buf_puts(render_add(&s, "lb00", "/etc/x/embedded.conf", 0644, RENDER_CHECK_NONE),
		"users:\n- user:\n    client-key-data: LS0tLS1CRUdJTg==\n");
	cpha_buf_puts(render_add(&s, "lb00", "/etc/x/plain.conf", 0644, RENDER_CHECK_NONE),
		"client-key: /etc/x/key.pem\n");
	cpha_buf_puts(render_add(&s, "lb00", "/usr/local/bin/tool", 0755, RENDER_CHECK_NONE),
		"-----BEGIN RSA PRIVATE KEY-----\n");
	assert_int_equal(install_plan_build(c, cluster_host(c, "lb00"), &s, &p), 0);
	a = want(&p, "/etc/x/embedded.conf", INSTALL_SRC_RENDER, 0600);
	assert_true(a->private_key);
	a = want(&p, "/etc/x/plain.conf", INSTALL_SRC_RENDER, 0644);
	assert_false(a->private_key);
	want(&p, "/usr/local/bin/tool", INSTALL_SRC_RENDER, 0700);
	/* no corosync.conf rendered for it here: no authkey */
	none(&p, "/etc/corosync/authkey");
	done(c, &s, &p);
}

/* A secret is one that a text of the host names, as a whole path. */
static void test_secrets_whole_path(void **state)
{
	struct cp_cluster *c = load(FIVE);
	struct render_set s = { 0 };
	struct install_plan p;

	(void)state;
	cpha_buf_puts(render_add(&s, "kubem01", "/etc/fenced/fenced.conf", 0644, RENDER_CHECK_NONE),
		"password_file /etc/cpha/secrets/ipmi-kubem01x\n"
		"community_file /etc/cpha/secrets/pdu\n");
	assert_int_equal(install_plan_build(c, cluster_host(c, "kubem01"), &s, &p), 0);
	assert_int_equal(p.nsecrets, 1);
	assert_string_equal(p.secrets[0], "/etc/cpha/secrets/pdu");
	done(c, &s, &p);
}

/* ---- the table in docs/runbook.md ---- */

#define TABLE_BEGIN "<!-- cpha install table: begin -->\n"
#define TABLE_END   "<!-- cpha install table: end -->\n"

static char *read_all(const char *path)
{
	FILE *fp = fopen(path, "re");
	struct cpha_buf b = { 0 };
	char chunk[4096];
	size_t len;

	if (!fp)
		print_error("%s: %s\n", path, strerror(errno));
	assert_non_null(fp);
	while ((len = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		assert_int_equal(cpha_buf_append(&b, chunk, len), 0);
	fclose(fp);
	return cpha_buf_steal(&b);
}

static void test_runbook_table(void **state)
{
	char *path = src_path("docs/runbook.md"), *doc = read_all(path), *begin, *end;
	struct cpha_buf t = { 0 };
	const char *upd = getenv("CPHA_UPDATE_GOLDEN");

	(void)state;
	install_table_markdown(&t);
	begin = strstr(doc, TABLE_BEGIN);
	end = begin ? strstr(begin, TABLE_END) : NULL;
	if (!begin || !end)
		print_error("%s: no \"%.*s\" ... \"%.*s\"\n", path, (int)strlen(TABLE_BEGIN) - 1,
			TABLE_BEGIN, (int)strlen(TABLE_END) - 1, TABLE_END);
	assert_non_null(end);
	begin += strlen(TABLE_BEGIN);
	if (upd && !strcmp(upd, "1")) {
		FILE *fp = fopen(path, "we");
		assert_non_null(fp);
		fprintf(fp, "%.*s%s%s", (int)(begin - doc), doc, t.data, end);
		assert_int_equal(fclose(fp), 0);
	} else if ((size_t)(end - begin) != t.len || memcmp(begin, t.data, t.len)) {
		print_error("%s: the install table differs from install_table[] "
			    "(CPHA_UPDATE_GOLDEN=1 rewrites it); it should read:\n%s",
			path, t.data);
		fail();
	}
	/* every row of the code is a line of the doc */
	assert_non_null(strstr(t.data, "| `PKIDIR/corosync-authkey` | `/etc/corosync/authkey` | "
				       "0400 | corosync members"));
	cpha_buf_free(&t);
	free(doc);
	free(path);
}

/* ---- install_run() on a temporary root ---- */

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void put(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *p;
	FILE *f;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	f = fopen(p, "we");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void add_action(struct install_plan *p, enum install_src src, const char *source,
	const char *dest, unsigned mode, const char *owner, unsigned flags)
{
	struct install_action *a;

	p->v = realloc(p->v, (p->n + 1) * sizeof(*p->v));
	assert_non_null(p->v);
	a = &p->v[p->n++];
	memset(a, 0, sizeof(*a));
	a->src = src;
	a->source = source ? strdup(source) : NULL;
	a->dest = strdup(dest);
	a->mode = mode;
	a->owner = owner ? strdup(owner) : NULL;
	a->flags = flags;
}

/* True when a line of text starts with prefix. */
static bool has_line(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			return true;
	return false;
}

/* Run p; returns install_run()'s result and what it printed in *outp. */
static int run(const struct install_plan *p, struct install_opts *o, char **outp)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	o->out = open_memstream(&buf, &len);
	assert_non_null(o->out);
	r = install_run(p, o);
	fclose(o->out);
	*outp = buf;
	return r;
}

static void test_run(void **state)
{
	char top[] = "/tmp/cpha-install-test-XXXXXX", *root, *pki, *out, *p, *txt;
	struct install_plan plan = { .host = strdup("h1") };
	struct install_opts o = { 0 };
	const struct passwd *nobody = geteuid() == 0 ? getpwnam("nobody") : NULL;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(top));
	assert_true(asprintf(&root, "%s/root", top) > 0);
	assert_true(asprintf(&pki, "%s/pki", top) > 0);
	assert_true(asprintf(&out, "%s/out", top) > 0);
	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(mkdir(pki, 0700), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	put(pki, "k.pem", "key\n", 0600);
	put(out, "f.conf", "conf\n", 0644);
	put(top, "desc.yaml", "cluster: {name: x}\n", 0644);
	add_action(&plan, INSTALL_SRC_NONE, NULL, "/var/lib/d", 0700, nobody ? "nobody" : NULL,
		INSTALL_DIR);
	add_action(&plan, INSTALL_SRC_RENDER, "f.conf", "/etc/a/f.conf", 0640,
		nobody ? "nobody" : NULL, 0);
	add_action(&plan, INSTALL_SRC_PKI, "k.pem", "/etc/a/pki/k.pem", 0600, NULL, 0);
	add_action(&plan, INSTALL_SRC_PKI, "opt.pem", "/etc/a/pki/opt.pem", 0644, NULL,
		INSTALL_OPTIONAL);
	assert_true(asprintf(&p, "%s/desc.yaml", top) > 0);
	o = (struct install_opts){ .render_dir = out, .pki_dir = pki, .desc = p, .root = root };

	/* dry run: lines, nothing written */
	o.dry_run = true;
	assert_int_equal(run(&plan, &o, &txt), 0);
	assert_non_null(strstr(txt, "install -d -m 0700 "));
	assert_non_null(strstr(txt, "install -m 0600 "));
	assert_non_null(strstr(txt, "/root/etc/a/pki/k.pem\n"));
	assert_null(strstr(txt, "opt.pem")); /* optional and missing: skipped */
	free(txt);
	{
		char *e;
		assert_true(asprintf(&e, "%s/etc", root) > 0);
		assert_int_equal(stat(e, &st), -1); /* not even a directory */
		free(e);
	}

	/* the install */
	o.dry_run = false;
	assert_int_equal(run(&plan, &o, &txt), 0);
	assert_false(has_line(txt, "unchanged "));
	assert_true(has_line(txt, "install -m 0640 "));
	free(txt);
	free(p);
	assert_true(asprintf(&p, "%s/etc/a/f.conf", root) > 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	if (nobody) {
		assert_int_equal(st.st_uid, nobody->pw_uid);
		assert_int_equal(st.st_gid, nobody->pw_gid);
	} else {
		print_message("owner not checked: chown needs root and a user 'nobody'\n");
	}
	free(p);
	assert_true(asprintf(&p, "%s/var/lib/d", root) > 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	if (nobody) {
		assert_int_equal(st.st_uid, nobody->pw_uid);
		/* an owner changed by hand is put back */
		assert_int_equal(chown(p, 0, 0), 0);
		assert_int_equal(run(&plan, &o, &txt), 0);
		assert_true(has_line(txt, "chown nobody:nobody "));
		free(txt);
		assert_int_equal(stat(p, &st), 0);
		assert_int_equal(st.st_uid, nobody->pw_uid);
	}
	free(p);
	assert_true(asprintf(&p, "%s/etc/a/pki", root) > 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755); /* parents made 0755 */
	free(p);

	/* again: nothing changes */
	assert_int_equal(run(&plan, &o, &txt), 0);
	assert_false(has_line(txt, "install "));
	assert_true(has_line(txt, "unchanged "));
	assert_non_null(strstr(txt, "h1: 0 changed, 3 unchanged"));
	free(txt);

	/* a mode changed by hand is put back without a new copy */
	assert_true(asprintf(&p, "%s/etc/a/pki/k.pem", root) > 0);
	assert_int_equal(chmod(p, 0644), 0);
	assert_int_equal(run(&plan, &o, &txt), 0);
	assert_non_null(strstr(txt, "chmod 0600 "));
	free(txt);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	free(p);

	/* a link out of the root: refused, and nothing written */
	assert_true(asprintf(&p, "%s/etc/a/pki", root) > 0);
	{
		char *k, *moved;
		assert_true(asprintf(&k, "%s/etc/a/pki/k.pem", root) > 0);
		assert_true(asprintf(&moved, "%s/elsewhere", top) > 0);
		assert_int_equal(rename(p, moved), 0);
		assert_int_equal(symlink(moved, p), 0);
		put(pki, "k.pem", "new key\n", 0600);
		assert_int_equal(run(&plan, &o, &txt), -1);
		free(txt);
		free(k);
		assert_true(asprintf(&k, "%s/k.pem", moved) > 0);
		{
			FILE *f = fopen(k, "re");
			char line[32] = "";
			assert_non_null(f);
			assert_non_null(fgets(line, sizeof(line), f));
			fclose(f);
			assert_string_equal(line, "key\n"); /* not followed */
		}
		free(k);
		free(moved);
	}
	free(p);

	/* a missing source that is not optional */
	install_plan_free(&plan);
	plan.host = strdup("h1");
	add_action(&plan, INSTALL_SRC_PKI, "gone.pem", "/etc/b/gone.pem", 0644, NULL, 0);
	assert_int_equal(run(&plan, &o, &txt), -1);
	free(txt);

	install_plan_free(&plan);
	nftw(top, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(root);
	free(pki);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_master),
		cmocka_unit_test(test_lb_host),
		cmocka_unit_test(test_static_pods),
		cmocka_unit_test(test_data_dir),
		cmocka_unit_test(test_etcd_snapshot),
		cmocka_unit_test(test_no_etcd_snapshot),
		cmocka_unit_test(test_pki_read_is_installed),
		cmocka_unit_test(test_private_key),
		cmocka_unit_test(test_secrets_whole_path),
		cmocka_unit_test(test_runbook_table),
		cmocka_unit_test(test_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
