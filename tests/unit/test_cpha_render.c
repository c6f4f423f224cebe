/* cpha render, the masters' files (render_master.c, flags.c): every file
 * compared with its golden copy under tests/golden/cpha/<variant>/, and the
 * properties that matter checked directly: no flag current Kubernetes
 * removed, every etcd member in --initial-cluster and --etcd-servers,
 * kubeconfigs that go to the VIP, the same bytes on every run, and the
 * files read back by the readers that use them (the OCF agents' env-file
 * parser, systemd-style word splitting, libyaml). The flags against the
 * real etcd and the kube-* stand-ins are in test_cpha_render_flags.c.
 *
 * CPHA_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing. */
#include <errno.h>
#include <ftw.h>
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
#include <yaml.h>

#include "flags.h"
#include "ocf_args.h"
#include "render.h"
#include "run.h"
#include "render_test.h"

/* ---- golden files ---- */

static char *golden_path(const struct variant *v, const struct render_file *f)
{
	char *p;

	assert_true(
		asprintf(&p, "%s/tests/golden/cpha/%s/%s%s%s", src_dir(), v->name,
			f->host ? f->host : "cluster", f->path[0] == '/' ? "" : "/", f->path) > 0);
	return p;
}

static char *read_all(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *data = NULL;
	size_t len = 0;
	struct cpha_buf b = { 0 };
	char chunk[4096];

	if (!fp)
		return NULL;
	while ((len = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		assert_int_equal(cpha_buf_append(&b, chunk, len), 0);
	fclose(fp);
	data = cpha_buf_steal(&b);
	assert_non_null(data);
	return data;
}

/* mkdir -p of the directory part of path. */
static void mkdirs(const char *path)
{
	size_t len = strlen(path);
	char *dir = strdup(path);

	assert_non_null(dir);
	for (size_t i = 1; i < len; i++) {
		if (path[i] != '/')
			continue;
		dir[i] = 0;
		assert_true(mkdir(dir, 0755) == 0 || errno == EEXIST);
		dir[i] = '/';
	}
	free(dir);
}

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* The golden tree being walked, for the callback. */
static const struct variant *walk_variant;
static struct render_set *walk_set;
static size_t walk_prefix, walk_stray;

/* Every golden file is a file the render made. */
static int stray_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	char host[256];
	const char *rel = p + walk_prefix, *slash;

	(void)st;
	(void)ftw;
	if (flag != FTW_F)
		return 0;
	slash = strchr(rel, '/');
	if (!slash || (size_t)(slash - rel) >= sizeof(host))
		return 0;
	memcpy(host, rel, (size_t)(slash - rel));
	host[slash - rel] = 0;
	if (!strcmp(host, "cluster") ? !render_find(walk_set, NULL, slash + 1)
				     : !render_find(walk_set, host, slash)) {
		print_error("%s: golden file of no rendered file (variant %s)\n", p,
			walk_variant->name);
		walk_stray++;
	}
	return 0;
}

/* The first line where two texts differ, to say what changed. */
static void show_diff(const char *path, const char *want, const char *got)
{
	size_t i = 0, start = 0;
	unsigned line = 1;

	for (; want[i] && want[i] == got[i]; i++)
		if (want[i] == '\n') {
			line++;
			start = i + 1;
		}
	print_error("%s: line %u differs\n  golden: %.*s\n  now:    %.*s\n", path, line,
		(int)strcspn(want + start, "\n"), want + start, (int)strcspn(got + start, "\n"),
		got + start);
}

static void test_golden(void **state)
{
	bool update = getenv("CPHA_UPDATE_GOLDEN") && !strcmp(getenv("CPHA_UPDATE_GOLDEN"), "1");
	unsigned bad = 0;

	(void)state;
	for (size_t i = 0; i < NVARIANTS; i++) {
		const struct variant *v = &variants[i];
		struct cp_cluster *c = load(v->fixture);
		struct render_set s = { 0 };
		char *dir;

		render(c, &s);
		assert_true(asprintf(&dir, "%s/tests/golden/cpha/%s", src_dir(), v->name) > 0);
		if (update)
			nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
		for (size_t k = 0; k < s.n; k++) {
			char *p = golden_path(v, &s.v[k]), *want;
			if (update) {
				FILE *fp;
				mkdirs(p);
				fp = fopen(p, "we");
				assert_non_null(fp);
				assert_int_equal(fwrite(s.v[k].text.data, 1, s.v[k].text.len, fp),
					s.v[k].text.len);
				assert_int_equal(fclose(fp), 0);
			} else if (!(want = read_all(p))) {
				print_error(
					"%s: no golden file (CPHA_UPDATE_GOLDEN=1 makes it)\n", p);
				bad++;
			} else {
				if (strcmp(want, s.v[k].text.data)) {
					show_diff(p, want, s.v[k].text.data);
					bad++;
				}
				free(want);
			}
			free(p);
		}
		walk_variant = v;
		walk_set = &s;
		walk_prefix = strlen(dir) + 1;
		walk_stray = 0;
		assert_int_equal(nftw(dir, stray_cb, 16, FTW_PHYS), 0);
		bad += (unsigned)walk_stray;
		free(dir);
		render_set_free(&s);
		cluster_free(c);
	}
	assert_int_equal(bad, 0);
}

/* ---- properties ---- */

/* Same description, same bytes, same order. */
static void test_deterministic(void **state)
{
	(void)state;
	for (size_t i = 0; i < NVARIANTS; i++) {
		struct cp_cluster *c = load(variants[i].fixture);
		struct render_set a = { 0 }, b = { 0 };

		render(c, &a);
		render(c, &b);
		assert_int_equal(a.n, b.n);
		for (size_t k = 0; k < a.n; k++) {
			assert_string_equal(a.v[k].path, b.v[k].path);
			assert_true(!a.v[k].host == !b.v[k].host);
			if (a.v[k].host)
				assert_string_equal(a.v[k].host, b.v[k].host);
			assert_int_equal(a.v[k].mode, b.v[k].mode);
			assert_int_equal(a.v[k].text.len, b.v[k].text.len);
			assert_memory_equal(a.v[k].text.data, b.v[k].text.data, a.v[k].text.len);
		}
		render_set_free(&a);
		render_set_free(&b);
		cluster_free(c);
	}
}

/* A flag current Kubernetes (or etcd) removed is in no file. */
static void test_no_removed_flags(void **state)
{
	static const char *const removed[] = { "--insecure-port", "--insecure-bind-address",
		"--admission-control", "--address=", "--enable-swagger-ui", "--debug",
		"--port=", "--kubelet-https", NULL };

	(void)state;
	for (size_t i = 0; i < NVARIANTS; i++) {
		struct cp_cluster *c = load(variants[i].fixture);
		struct render_set s = { 0 };

		render(c, &s);
		assert_true(s.n > 0);
		for (size_t k = 0; k < s.n; k++)
			for (size_t j = 0; removed[j]; j++)
				if (strstr(s.v[k].text.data, removed[j])) {
					print_error("%s:%s has %s\n", s.v[k].host, s.v[k].path,
						removed[j]);
					fail();
				}
		render_set_free(&s);
		cluster_free(c);
	}
}

/* ---- YAML reading ---- */

struct ydoc {
	yaml_document_t doc;
	bool loaded;
};

static void yload(struct ydoc *y, const char *text)
{
	yaml_parser_t p;

	assert_true(yaml_parser_initialize(&p));
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	y->loaded = yaml_parser_load(&p, &y->doc);
	if (!y->loaded)
		print_error("YAML: line %lu: %s\n", (unsigned long)p.problem_mark.line + 1,
			p.problem ? p.problem : "?");
	assert_true(y->loaded);
	assert_non_null(yaml_document_get_root_node(&y->doc));
	yaml_parser_delete(&p);
}

static void yfree(struct ydoc *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
}

/* The node at a dotted path: mapping keys and sequence indexes
 * ("spec.containers.0.command"); NULL when absent. */
static yaml_node_t *yget(struct ydoc *y, const char *path)
{
	yaml_node_t *n = yaml_document_get_root_node(&y->doc);
	char *copy = strdup(path), *save = NULL;

	assert_non_null(copy);
	for (char *k = strtok_r(copy, ".", &save); k && n; k = strtok_r(NULL, ".", &save)) {
		yaml_node_t *next = NULL;
		if (n->type == YAML_MAPPING_NODE) {
			for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
				p < n->data.mapping.pairs.top; p++) {
				yaml_node_t *kn = yaml_document_get_node(&y->doc, p->key);
				if (kn->type == YAML_SCALAR_NODE &&
					!strcmp((const char *)kn->data.scalar.value, k))
					next = yaml_document_get_node(&y->doc, p->value);
			}
		} else if (n->type == YAML_SEQUENCE_NODE) {
			long i = strtol(k, NULL, 10);
			if (i >= 0 && i < n->data.sequence.items.top - n->data.sequence.items.start)
				next = yaml_document_get_node(
					&y->doc, n->data.sequence.items.start[i]);
		}
		n = next;
	}
	free(copy);
	return n;
}

static const char *yscalar(struct ydoc *y, const char *path)
{
	yaml_node_t *n = yget(y, path);

	if (!n || n->type != YAML_SCALAR_NODE) {
		print_error("YAML: no scalar at %s\n", path);
		fail();
	}
	return (const char *)n->data.scalar.value;
}

/* ---- helpers on flags ---- */

static void expect_words(const struct ocf_strv *w, const char *first, const struct cp_flags *f)
{
	size_t k = 0;

	if (first) {
		assert_true(w->n > 0);
		assert_string_equal(w->v[k++], first);
	}
	assert_int_equal(w->n, k + f->n);
	for (size_t i = 0; i < f->n; i++, k++) {
		struct cpha_buf b = { 0 };
		assert_int_equal(flags_format(&f->v[i], &b), 0);
		assert_string_equal(w->v[k], b.data);
		cpha_buf_free(&b);
	}
}

/* The words of a unit's ExecStart=, continuation lines joined. */
static void exec_start_words(const char *unit, struct ocf_strv *w)
{
	const char *s = strstr(unit, "\nExecStart="), *why = NULL, *e;
	struct cpha_buf line = { 0 };

	assert_non_null(s);
	s += strlen("\nExecStart=");
	/* the logical line: up to a newline not preceded by a backslash */
	for (e = s; *e && !(*e == '\n' && e[-1] != '\\'); e++)
		;
	assert_int_equal(cpha_buf_append(&line, s, (size_t)(e - s)), 0);
	assert_int_equal(ocf_split_words(line.data, w, &why), 0);
	cpha_buf_free(&line);
}

/* ---- the sample: pacemaker, load balancers on their own hosts ---- */

static void test_sample_pacemaker(void **state)
{
	static const char *const masters[] = { "kubem00", "kubem01", "kubem02" };
	static const char *const envs[][3] = {
		{ "/etc/kubernetes/apiserver.env", "KUBE_APISERVER_ARGS" },
		{ "/etc/kubernetes/controller-manager.env", "KUBE_CONTROLLER_MANAGER_ARGS" },
		{ "/etc/kubernetes/scheduler.env", "KUBE_SCHEDULER_ARGS" },
	};
	struct cp_cluster *c = load("tests/samples/cluster.yaml");
	struct render_set s = { 0 };

	(void)state;
	render(c, &s);
	/* 3 env files and 4 kubeconfigs per master, and the cluster's admin.conf,
	 * super-admin.conf and bootstrap-rbac.yaml; no kubelet without static pods */
	assert_int_equal(s.n, 3 * 7 + 3);
	assert_null(render_find(&s, "kubem00", "/var/lib/kubelet/config.yaml"));
	for (size_t k = 0; k < s.n; k++) {
		assert_null(strstr(s.v[k].path, ".service"));
		assert_null(strstr(s.v[k].path, "manifests"));
		assert_null(strstr(s.v[k].path, "etcd"));
	}
	for (size_t i = 0; i < 3; i++) {
		for (size_t r = 0; r < 3; r++) {
			struct cp_flags f = build(c, masters[i], FLAGS_APISERVER + (int)r);
			struct ocf_kvlist kv = { 0 };
			struct ocf_strv w = { 0 };
			const char *why = NULL, *text = text_of(&s, masters[i], envs[r][0]);
			unsigned line;

			/* what ocf:cpha:kube-* reads back is exactly the flags */
			assert_int_equal(ocf_envfile_parse(text, &kv, &line, &why), 0);
			assert_int_equal(kv.n, 1);
			assert_non_null(ocf_kv_get(&kv, envs[r][1]));
			assert_int_equal(ocf_split_words(ocf_kv_get(&kv, envs[r][1]), &w, &why), 0);
			expect_words(&w, NULL, &f);
			ocf_strv_free(&w);
			ocf_kv_free(&kv);
			flags_free(&f);
		}
	}

	struct cp_flags a = build(c, "kubem01", FLAGS_APISERVER);
	assert_string_equal(value(&a, "etcd-servers"),
		"https://10.10.10.80:2379,https://10.10.10.81:2379,https://10.10.10.82:2379");
	assert_string_equal(value(&a, "advertise-address"), "10.10.10.81");
	/* the load balancers have their own hosts: every address */
	assert_string_equal(value(&a, "bind-address"), "0.0.0.0");
	assert_string_equal(value(&a, "secure-port"), "6443");
	assert_string_equal(value(&a, "enable-admission-plugins"),
		"NamespaceLifecycle,ServiceAccount,LimitRanger,ResourceQuota,DefaultStorageClass");
	assert_string_equal(value(&a, "authorization-mode"), "Node,RBAC");
	assert_string_equal(value(&a, "service-account-issuer"),
		"https://kubernetes.default.svc.cluster.local");
	assert_string_equal(
		value(&a, "api-audiences"), "https://kubernetes.default.svc.cluster.local");
	assert_string_equal(value(&a, "service-account-key-file"), "/etc/kubernetes/pki/sa.pub");
	assert_string_equal(
		value(&a, "service-account-signing-key-file"), "/etc/kubernetes/pki/sa.key");
	assert_string_equal(value(&a, "endpoint-reconciler-type"), "lease");
	assert_string_equal(value(&a, "shutdown-delay-duration"), "5s");
	assert_string_equal(value(&a, "service-cluster-ip-range"), "10.32.0.0/16");
	assert_string_equal(
		value(&a, "kubelet-client-certificate"), "/etc/kubernetes/pki/kubelet-client.pem");
	assert_string_equal(
		value(&a, "kubelet-client-key"), "/etc/kubernetes/pki/kubelet-client-key.pem");
	flags_free(&a);

	/* the etcd flags a pcs script would give ocf:cpha:etcd */
	struct cp_flags e = build(c, "kubem02", FLAGS_ETCD);
	assert_string_equal(value(&e, "initial-cluster"),
		"kubem00=https://10.10.10.80:2380,kubem01=https://10.10.10.81:2380,"
		"kubem02=https://10.10.10.82:2380");
	assert_string_equal(value(&e, "initial-cluster-token"), "etcd-cluster-token");
	assert_string_equal(flags_find(&e, "trusted-ca-file")->param, "trusted_ca_file");
	assert_true(flags_find(&e, "initial-cluster")->attrs & FLAG_AGENT);
	assert_true(flags_find(&e, "name")->attrs & FLAG_HOST);
	assert_false(flags_find(&e, "listen-metrics-urls")->attrs & FLAG_AGENT);
	flags_free(&e);

	/* kubeconfigs: the classic paths, the VIP's name */
	static const char *const kc[][3] = {
		{ "/var/lib/kube-controller-manager/kubeconfig", "system:kube-controller-manager",
			"/var/lib/kube-controller-manager/pki/controller-manager.pem" },
		{ "/var/lib/kube-scheduler/kubeconfig", "system:kube-scheduler",
			"/var/lib/kube-scheduler/pki/scheduler.pem" },
		{ "/etc/kubernetes/admin.conf", "admin", "/etc/kubernetes/pki/admin.pem" },
		{ "admin.conf", "admin", "/etc/kubernetes/pki/admin.pem" },
	};
	for (size_t i = 0; i < 4; i++) {
		struct ydoc y = { 0 };
		struct render_file *f = render_find(&s, i == 3 ? NULL : "kubem00", kc[i][0]);

		assert_non_null(f);
		assert_int_equal(f->check, RENDER_CHECK_YAML);
		assert_int_equal(f->mode, 0600);
		yload(&y, f->text.data);
		assert_string_equal(
			yscalar(&y, "clusters.0.cluster.server"), "https://kubernetes:6443");
		assert_string_equal(yscalar(&y, "clusters.0.cluster.certificate-authority"),
			"/etc/kubernetes/pki/ca.pem");
		assert_string_equal(yscalar(&y, "users.0.name"), kc[i][1]);
		assert_string_equal(yscalar(&y, "contexts.0.context.user"), kc[i][1]);
		assert_string_equal(yscalar(&y, "users.0.user.client-certificate"), kc[i][2]);
		assert_string_equal(yscalar(&y, "current-context"), yscalar(&y, "contexts.0.name"));
		yfree(&y);
	}
	assert_string_equal(text_of(&s, NULL, "admin.conf"),
		text_of(&s, "kubem02", "/etc/kubernetes/admin.conf"));
	render_set_free(&s);
	cluster_free(c);
}

/* ---- systemd, load balancer on the masters, etcd-only hosts ---- */

static void test_systemd(void **state)
{
	static const char *const members[] = { "m1", "m2", "m3", "e4", "e5" };
	static const char *const units[] = { "kube-apiserver", "kube-controller-manager",
		"kube-scheduler" };
	struct cp_cluster *c = load("tests/fixtures/cpha/systemd.yaml");
	struct render_set s = { 0 };
	char path[128];

	(void)state;
	render(c, &s);
	/* every member has its unit; the etcd-only hosts nothing else */
	for (size_t i = 0; i < 5; i++) {
		const char *u = text_of(&s, members[i], "/etc/systemd/system/etcd.service");
		struct cp_flags f = build(c, members[i], FLAGS_ETCD);
		struct ocf_strv w = { 0 };
		char want[64];

		exec_start_words(u, &w);
		expect_words(&w, "/opt/kubernetes/bin/etcd", &f);
		ocf_strv_free(&w);
		assert_non_null(strstr(u, "\nType=notify\n"));
		assert_non_null(
			strstr(u, "\nRestart=on-failure\nRestartSec=5\nLimitNOFILE=65536\n"));
		/* every member in --initial-cluster, in etcd.hosts' order */
		assert_string_equal(value(&f, "initial-cluster"),
			"m1=https://198.18.0.11:2380,m2=https://198.18.0.12:2380,"
			"m3=https://198.18.0.13:2380,e4=https://198.18.0.14:2380,"
			"e5=https://198.18.0.15:2380");
		snprintf(want, sizeof(want), "https://198.18.0.1%zu:2379,https://127.0.0.1:2379",
			i + 1);
		assert_string_equal(value(&f, "listen-client-urls"), want);
		assert_string_equal(value(&f, "initial-cluster-state"), "new");
		assert_string_equal(value(&f, "initial-cluster-token"), "prod-etcd");
		assert_string_equal(value(&f, "data-dir"), "/srv/etcd");
		assert_string_equal(value(&f, "pre-vote"), "true");
		assert_string_equal(value(&f, "client-cert-auth"), "true");
		assert_string_equal(value(&f, "peer-client-cert-auth"), "true");
		assert_string_equal(value(&f, "trusted-ca-file"), "/etc/etcd/pki/ca.pem");
		flags_free(&f);
	}
	assert_null(render_find(&s, "e4", "/etc/systemd/system/kube-apiserver.service"));
	assert_null(render_find(&s, "e5", "/etc/kubernetes/admin.conf"));

	for (size_t i = 0; i < 3; i++) {
		for (size_t r = 0; r < 3; r++) {
			struct cp_flags f = build(c, members[i], FLAGS_APISERVER + (int)r);
			struct ocf_strv w = { 0 };
			const char *u;

			snprintf(path, sizeof(path), "/etc/systemd/system/%s.service", units[r]);
			u = text_of(&s, members[i], path);
			snprintf(path, sizeof(path), "/opt/kubernetes/bin/%s", units[r]);
			exec_start_words(u, &w);
			expect_words(&w, path, &f);
			ocf_strv_free(&w);
			assert_true(!strstr(u, "Type=notify") == (r != 0));
			flags_free(&f);
		}
	}
	struct cp_flags a = build(c, "m2", FLAGS_APISERVER);
	/* every member in --etcd-servers, in order */
	assert_string_equal(value(&a, "etcd-servers"),
		"https://198.18.0.11:2379,https://198.18.0.12:2379,https://198.18.0.13:2379,"
		"https://198.18.0.14:2379,https://198.18.0.15:2379");
	/* the load balancer holds VIP:6443 on the masters: the apiserver its
	 * own address only */
	assert_string_equal(value(&a, "bind-address"), "198.18.0.12");
	assert_string_equal(value(&a, "advertise-address"), "198.18.0.12");
	assert_true(flags_find(&a, "bind-address")->attrs & FLAG_HOST);
	flags_free(&a);

	struct ydoc y = { 0 };
	yload(&y, text_of(&s, "m3", "/var/lib/kube-scheduler/kubeconfig"));
	assert_string_equal(yscalar(&y, "clusters.0.cluster.server"), "https://kubernetes:6443");
	yfree(&y);
	render_set_free(&s);
	cluster_free(c);
}

/* ---- static pods, IPv6 ---- */

static void test_static_pods(void **state)
{
	static const char *const progs[] = { "etcd", "kube-apiserver", "kube-controller-manager",
		"kube-scheduler" };
	struct cp_cluster *c = load("tests/fixtures/cpha/static-pods.yaml");
	struct render_set s = { 0 };
	char path[128];

	(void)state;
	render(c, &s);
	for (size_t r = 0; r < 4; r++) {
		struct render_file *f;
		struct cp_flags fl = build(c, "cp-b", FLAGS_ETCD + (int)r);
		struct ydoc y = { 0 };
		yaml_node_t *cmd;

		snprintf(path, sizeof(path), "/etc/kubernetes/manifests/%s.yaml", progs[r]);
		f = render_find(&s, "cp-b", path);
		assert_non_null(f);
		assert_int_equal(f->check, RENDER_CHECK_YAML);
		yload(&y, f->text.data);
		assert_string_equal(yscalar(&y, "kind"), "Pod");
		assert_string_equal(yscalar(&y, "apiVersion"), "v1");
		assert_string_equal(yscalar(&y, "metadata.namespace"), "kube-system");
		assert_string_equal(yscalar(&y, "spec.hostNetwork"), "true");
		assert_string_equal(yscalar(&y, "spec.priorityClassName"), "system-node-critical");
		/* the command is the program and exactly the flags */
		cmd = yget(&y, "spec.containers.0.command");
		assert_non_null(cmd);
		assert_int_equal(cmd->type, YAML_SEQUENCE_NODE);
		assert_int_equal(cmd->data.sequence.items.top - cmd->data.sequence.items.start,
			(long)fl.n + 1);
		assert_string_equal(yscalar(&y, "spec.containers.0.command.0"), progs[r]);
		for (size_t i = 0; i < fl.n; i++) {
			struct cpha_buf b = { 0 };
			char k[64];
			assert_int_equal(flags_format(&fl.v[i], &b), 0);
			snprintf(k, sizeof(k), "spec.containers.0.command.%zu", i + 1);
			assert_string_equal(yscalar(&y, k), b.data);
			cpha_buf_free(&b);
		}
		assert_non_null(yget(&y, "spec.containers.0.livenessProbe.httpGet"));
		assert_non_null(yget(&y, "spec.containers.0.startupProbe.httpGet"));
		if (r == FLAGS_APISERVER) {
			assert_string_equal(yscalar(&y, "spec.containers.0.image"),
				"registry.example/k8s/kube-apiserver:v1.35.9");
			assert_string_equal(
				yscalar(&y, "spec.containers.0.livenessProbe.httpGet.path"),
				"/livez");
			assert_string_equal(
				yscalar(&y, "spec.containers.0.readinessProbe.httpGet.path"),
				"/readyz");
			assert_string_equal(
				yscalar(&y, "spec.containers.0.readinessProbe.httpGet.scheme"),
				"HTTPS");
			assert_string_equal(
				yscalar(&y, "spec.containers.0.readinessProbe.httpGet.port"),
				"6443");
			assert_string_equal(
				yscalar(&y, "spec.containers.0.livenessProbe.httpGet.host"),
				"2001:db8:6::12");
			assert_string_equal(value(&fl, "etcd-servers"),
				"https://[2001:db8:6::11]:2379,https://[2001:db8:6::12]:2379,"
				"https://[2001:db8:6::13]:2379");
			assert_string_equal(value(&fl, "service-account-issuer"),
				"https://kubernetes.default.svc.k8s.example");
		}
		if (r == FLAGS_ETCD) {
			assert_string_equal(yscalar(&y, "spec.containers.0.image"),
				"registry.example/k8s/etcd:3.5.24-0");
			assert_string_equal(
				yscalar(&y, "spec.volumes.0.hostPath.path"), "/var/lib/etcd");
		}
		yfree(&y);
		flags_free(&fl);
	}
	/* the etcd-only host runs no kubelet: a unit, nothing else */
	for (size_t k = 0; k < s.n; k++)
		if (s.v[k].host && !strcmp(s.v[k].host, "etcd-c"))
			assert_string_equal(s.v[k].path, "/etc/systemd/system/etcd.service");
	text_of(&s, "etcd-c", "/etc/systemd/system/etcd.service");
	assert_null(render_find(&s, "cp-a", "/etc/systemd/system/etcd.service"));

	struct ydoc y = { 0 };
	yload(&y, text_of(&s, "cp-a", "/etc/kubernetes/admin.conf"));
	assert_string_equal(
		yscalar(&y, "clusters.0.cluster.server"), "https://api.lab6.example:6443");
	yfree(&y);

	/* each master's kubelet: kubeadm's KubeletConfiguration, its own identity */
	yload(&y, text_of(&s, "cp-b", "/var/lib/kubelet/config.yaml"));
	assert_string_equal(yscalar(&y, "kind"), "KubeletConfiguration");
	assert_string_equal(yscalar(&y, "apiVersion"), "kubelet.config.k8s.io/v1beta1");
	assert_string_equal(
		yscalar(&y, "authentication.x509.clientCAFile"), "/etc/kubernetes/pki/ca.pem");
	assert_string_equal(yscalar(&y, "authentication.anonymous.enabled"), "false");
	assert_string_equal(yscalar(&y, "authentication.webhook.enabled"), "true");
	assert_string_equal(yscalar(&y, "authorization.mode"), "Webhook");
	assert_string_equal(yscalar(&y, "staticPodPath"), "/etc/kubernetes/manifests");
	assert_string_equal(yscalar(&y, "cgroupDriver"), "systemd");
	assert_string_equal(yscalar(&y, "rotateCertificates"), "true");
	assert_string_equal(yscalar(&y, "serverTLSBootstrap"), "false");
	/* the tenth service address, as kubeadm picks it */
	assert_string_equal(yscalar(&y, "clusterDNS.0"), "fd00:10:96::a");
	assert_string_equal(yscalar(&y, "clusterDomain"), "k8s.example");
	yfree(&y);
	yload(&y, text_of(&s, "cp-b", "/etc/kubernetes/kubelet.conf"));
	assert_string_equal(yscalar(&y, "users.0.name"), "system:node:cp-b");
	assert_string_equal(yscalar(&y, "users.0.user.client-certificate"),
		"/var/lib/kubelet/pki/kubelet-client.pem");
	assert_string_equal(
		yscalar(&y, "clusters.0.cluster.server"), "https://api.lab6.example:6443");
	yfree(&y);
	assert_null(render_find(&s, "etcd-c", "/etc/kubernetes/kubelet.conf"));

	/* the bindings kubeadm makes at init, one document each */
	{
		const char *t = text_of(&s, NULL, "bootstrap-rbac.yaml");
		static const char *const want[] = { "  name: kubeadm:cluster-admins\n",
			"  name: cluster-admin\n", "  name: system:node-bootstrapper\n",
			"  name: system:bootstrappers:cpha:default-node-token\n",
			"  name: "
			"system:certificates.k8s.io:certificatesigningrequests:nodeclient\n",
			"  name: "
			"system:certificates.k8s.io:certificatesigningrequests:selfnodeclient\n",
			"  name: system:nodes\n" };
		size_t docs = 0;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			assert_non_null(strstr(t, want[i]));
		for (const char *p = t; (p = strstr(p, "kind: ClusterRoleBinding\n")); p++)
			docs++;
		assert_int_equal(docs, 4);
	}
	yload(&y, text_of(&s, NULL, "super-admin.conf"));
	assert_string_equal(yscalar(&y, "users.0.user.client-certificate"),
		"/etc/kubernetes/pki/super-admin.pem");
	yfree(&y);
	render_set_free(&s);
	cluster_free(c);
}

/* leader_elect follows the description */
static void test_leader_elect(void **state)
{
	struct cp_cluster *c = load("tests/samples/cluster.yaml");

	(void)state;
	c->leader_elect = false;
	struct cp_flags k = build(c, "kubem00", FLAGS_CONTROLLER_MANAGER);
	struct cp_flags s = build(c, "kubem00", FLAGS_SCHEDULER);
	assert_string_equal(value(&k, "leader-elect"), "false");
	assert_string_equal(value(&s, "leader-elect"), "false");
	assert_string_equal(value(&k, "bind-address"), "127.0.0.1");
	assert_string_equal(value(&s, "bind-address"), "127.0.0.1");
	flags_free(&k);
	flags_free(&s);
	cluster_free(c);
}

/* A value a command line cannot carry unquoted is an error, not a
 * half-quoted file. */
static void test_bad_values(void **state)
{
	struct cp_cluster *c = load("tests/fixtures/cpha/systemd.yaml");
	struct render_set s = { 0 };
	struct cpha_msgs d = { 0 };

	(void)state;
	free(c->etcd_token);
	c->etcd_token = strdup("my token");
	assert_int_equal(render_masters(c, &s, &d), -1);
	assert_true(d.nerrs > 0);
	assert_non_null(strstr(d.errs[0].text, "--initial-cluster-token=my token"));
	cpha_msgs_free(&d);
	render_set_free(&s);

	free(c->etcd_token);
	c->etcd_token = strdup("ok-token");
	free(c->bin_dir);
	c->bin_dir = strdup("/opt/$HOME/bin");
	assert_int_equal(render_masters(c, &s, &d), -1);
	assert_non_null(strstr(d.errs[0].text, "bin_dir"));
	cpha_msgs_free(&d);
	render_set_free(&s);
	cluster_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_no_removed_flags),
		cmocka_unit_test(test_sample_pacemaker),
		cmocka_unit_test(test_systemd),
		cmocka_unit_test(test_static_pods),
		cmocka_unit_test(test_leader_elect),
		cmocka_unit_test(test_bad_values),
	};

	if (!src_dir_known("test_cpha_render"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
