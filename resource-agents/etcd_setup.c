/* The etcd agent's set-up: parameters, the node map, validate-all (with the
 * 2n+1 quorum sizing checks) and the etcd command line it runs. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "etcd_agent.h"
#include "etcd_setup.h"
#include "log.h"
#include "ocf_urls.h"

/* Flags the agent sets itself: in args they would fight it. */
static const char *const owned_flags[] = { "name", "data-dir", "initial-cluster",
	"initial-cluster-state", "initial-cluster-token", "initial-advertise-peer-urls",
	"advertise-client-urls", "listen-client-urls", "listen-peer-urls", "trusted-ca-file",
	"cert-file", "key-file", "client-cert-auth", "peer-trusted-ca-file", "peer-cert-file",
	"peer-key-file", "peer-client-cert-auth", NULL };

/* --------------------------------------------------------------- setup -- */

static int check_file(const char *param, const char *path)
{
	struct stat st;

	if (path[0] != '/')
		return ocf_fail(
			PCMK_OCF_NOT_CONFIGURED, "%s=%s is not an absolute path", param, path);
	if (stat(path, &st) == -1)
		return ocf_fail(PCMK_OCF_NOT_INSTALLED, "%s %s: %s", param, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return ocf_fail(PCMK_OCF_INVALID_PARAM, "%s %s is not a file", param, path);
	if (access(path, R_OK) == -1)
		return ocf_fail(
			PCMK_OCF_INSUFFICIENT_PRIV, "%s %s: %s", param, path, strerror(errno));
	return PCMK_OCF_OK;
}

int etcd_port_param(struct etcd *e, const char *name, unsigned *out)
{
	unsigned long v;

	if (ocf_get_uint(e->c, name, 65535, &v) < 0 || v == 0)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s=%s is not a port number", name,
			str_or(ocf_get(e->c, name), ""));
	*out = (unsigned)v;
	return PCMK_OCF_OK;
}

/* Paths and the parts of the configuration every action needs. */
int etcd_init(struct etcd *e, struct ocf_ctx *c)
{
	const char *dir;

	memset(e, 0, sizeof(*e));
	e->c = c;
	dir = ocf_get(c, "piddir");
	if (asprintf(&e->pidfile, "%s/%s.pid", dir, c->state_name) < 0)
		e->pidfile = NULL;
	if (asprintf(&e->statefile, "%s/%s.argv", dir, c->state_name) < 0)
		e->statefile = NULL;
	e->logfile = strdup(ocf_get(c, "logfile"));
	if (!e->pidfile || !e->statefile || !e->logfile)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	e->binary = ocf_get(c, "binary");
	e->name = str_or(ocf_get(c, "name"), c->node);
	e->data_dir = ocf_get(c, "data_dir");
	e->spec.client_scheme = is_set(e, "cert_file") ? "https" : "http";
	e->spec.peer_scheme = is_set(e, "peer_cert_file") ? "https" : "http";
	e->api.ca = str_or(ocf_get(c, "agent_ca"), ocf_get(c, "trusted_ca_file"));
	e->api.cert = str_or(ocf_get(c, "agent_cert"), ocf_get(c, "cert_file"));
	e->api.key = is_set(e, "agent_cert") ? ocf_get(c, "agent_key") : ocf_get(c, "key_file");
	/* peers present their peer certificate to each other: so does the agent */
	e->peer.ca = str_or(ocf_get(c, "peer_trusted_ca_file"), e->api.ca);
	e->peer.cert = str_or(ocf_get(c, "peer_cert_file"), e->api.cert);
	e->peer.key = is_set(e, "peer_cert_file") ? ocf_get(c, "peer_key_file") : e->api.key;
	e->d.binary = str_or(e->binary, "/");
	e->d.pidfile = e->pidfile;
	e->d.statefile = e->statefile;
	e->d.logfile = e->logfile;
	return PCMK_OCF_OK;
}

void etcd_free(struct etcd *e)
{
	etcd_map_free(&e->map);
	ocf_strv_free(&e->argv);
	ocf_strv_free(&e->envp);
	free(e->pidfile);
	free(e->statefile);
	free(e->logfile);
	free(e->via);
}

/* The node map and this member's entry (a member outside the map is this
 * node's problem: OCF_ERR_ARGS). */
static int load_map(struct etcd *e)
{
	const char *why;
	int rc, r;

	etcd_map_free(&e->map); /* validated again (reload, then start) */
	e->me = NULL;
	rc = etcd_port_param(e, "peer_port", &e->spec.peer_port);
	if (rc == PCMK_OCF_OK)
		rc = etcd_port_param(e, "client_port", &e->spec.client_port);
	if (rc != PCMK_OCF_OK)
		return rc;
	r = etcd_map_parse(ocf_get(e->c, "node_map"), &e->spec, &e->map, &why);
	if (r == -ENOMEM)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	if (r < 0)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "node_map: %s (node_map=%s)", why,
			str_or(ocf_get(e->c, "node_map"), ""));
	e->me = etcd_map_find(&e->map, e->name);
	if (!e->me)
		/* this node's problem, not the resource's: ban it from here only */
		return ocf_fail(PCMK_OCF_INVALID_PARAM,
			"member %s (node %s) is not in node_map: add it, or keep the clone "
			"off this node",
			e->name, e->c->node);
	return PCMK_OCF_OK;
}

int etcd_validate(struct etcd *e)
{
	static const char *const tls[][2] = { { "cert_file", "key_file" },
		{ "peer_cert_file", "peer_key_file" }, { "agent_cert", NULL } };
	static const char *const files[] = { "trusted_ca_file", "cert_file", "key_file",
		"peer_trusted_ca_file", "peer_cert_file", "peer_key_file", "agent_ca", "agent_cert",
		"agent_key", NULL };
	struct ocf_strv extra = { 0 };
	const char *why, *v, *token;
	bool allow = false, b;
	size_t i;
	int rc, r;

	if (!e->binary || e->binary[0] != '/')
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "binary=%s is not an absolute path",
			str_or(e->binary, ""));
	if (!e->data_dir || e->data_dir[0] != '/')
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "data_dir=%s is not an absolute path",
			str_or(e->data_dir, ""));
	if (ocf_get_bool(e->c, "allow_even", &allow) == -EINVAL ||
		ocf_get_bool(e->c, "join_as_learner", &b) == -EINVAL ||
		ocf_get_bool(e->c, "client_cert_auth", &b) == -EINVAL ||
		ocf_get_bool(e->c, "peer_client_cert_auth", &b) == -EINVAL)
		return PCMK_OCF_NOT_CONFIGURED;
	rc = load_map(e);
	if (rc != PCMK_OCF_OK)
		return rc;
	/* quorum sizing: 2n+1 members tolerate n failures. Only validate-all
	 * refuses an even size here: for start, reload and monitor it is one
	 * fact among others (etcd_size_gate()), because OCF_ERR_CONFIGURED
	 * from a member of a running cluster stops the clone on every node */
	r = etcd_size_check(&e->c->clone, e->map.n, allow, &e->size);
	/* more instances than members: an instance outside the map refuses
	 * itself (OCF_ERR_ARGS, that node only) */
	if (r == -EINVAL)
		log_warn("%s", e->size.why);
	if (allow && (e->map.n % 2 == 0 || (e->c->clone.is_clone && e->c->clone.max % 2 == 0)))
		log_warn("an even member count (accepted by allow_even): it tolerates no more "
			 "failures than one member less");
	token = ocf_get(e->c, "token");
	if (!token || !*token || strpbrk(token, ", \t"))
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED,
			"token must be one word without commas or blanks: token=%s",
			str_or(token, ""));
	for (i = 0; i < sizeof(tls) / sizeof(tls[0]); i++) {
		if (tls[i][1] && is_set(e, tls[i][0]) != is_set(e, tls[i][1]))
			return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s and %s go together", tls[i][0],
				tls[i][1]);
	}
	if (is_set(e, "agent_key") && !is_set(e, "agent_cert"))
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "agent_key is set but agent_cert is not");
	for (i = 0; files[i]; i++) {
		v = ocf_get(e->c, files[i]);
		if (v && *v) {
			rc = check_file(files[i], v);
			if (rc != PCMK_OCF_OK)
				return rc;
		}
	}
	r = ocf_split_words(ocf_get(e->c, "args"), &extra, &why);
	if (r == -EINVAL)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "args: %s", why);
	for (i = 0; r == 0 && owned_flags[i]; i++) {
		if (ocf_flag_get(&extra, 0, owned_flags[i], false, &v)) {
			ocf_strv_free(&extra);
			return ocf_fail(PCMK_OCF_NOT_CONFIGURED,
				"args sets --%s, which the agent sets from its parameters",
				owned_flags[i]);
		}
	}
	ocf_strv_free(&extra);
	if (r < 0)
		return ocf_fail(PCMK_OCF_UNKNOWN_ERROR, "out of memory");
	if (access(e->binary, X_OK) == -1)
		return ocf_fail(
			PCMK_OCF_NOT_INSTALLED, "binary %s: %s", e->binary, strerror(errno));
	return PCMK_OCF_OK;
}

/* validate-all: etcd_validate(), and an even size is refused outright
 * (OCF_ERR_CONFIGURED): validate-all runs before a change is made (pcs
 * --agent-validation, crm_resource --validate), never on a running member. */
int etcd_validate_all(struct etcd *e)
{
	int rc = etcd_validate(e);

	if (rc == PCMK_OCF_OK && e->size.rc == -EDOM)
		return ocf_fail(PCMK_OCF_NOT_CONFIGURED, "%s (%s)", e->size.fix, e->size.why);
	return rc;
}

/* ------------------------------------------------------------- command -- */

static int push_flag(struct ocf_strv *v, const char *flag, const char *value)
{
	char *s;
	int r;

	if (asprintf(&s, "--%s=%s", flag, value) < 0)
		return -ENOMEM;
	r = ocf_strv_push(v, s);
	free(s);
	return r;
}

/* etcd's command line: state is "new", "existing" or NULL (restart). */
int etcd_build_argv(struct etcd *e, const char *initial, const char *state)
{
	static const char *const files[][2] = { { "trusted-ca-file", "trusted_ca_file" },
		{ "cert-file", "cert_file" }, { "key-file", "key_file" },
		{ "peer-trusted-ca-file", "peer_trusted_ca_file" },
		{ "peer-cert-file", "peer_cert_file" }, { "peer-key-file", "peer_key_file" } };
	struct ocf_strv *a = &e->argv;
	const char *why, *tmp;
	char *listen = NULL, *kv;
	bool b = false;
	size_t i;
	int r;

	ocf_strv_free(a);
	ocf_strv_free(&e->envp);
	if (is_set(e, "listen_client_urls"))
		listen = strdup(ocf_get(e->c, "listen_client_urls"));
	else if (asprintf(&listen, "%s,%s://127.0.0.1:%u", e->me->client_url, e->spec.client_scheme,
			 e->spec.client_port) < 0)
		listen = NULL;
	if (!listen)
		return -ENOMEM;
	r = ocf_strv_push(a, e->binary);
	r = r ? r : push_flag(a, "name", e->name);
	r = r ? r : push_flag(a, "data-dir", e->data_dir);
	r = r ? r : push_flag(a, "listen-client-urls", listen);
	r = r ? r : push_flag(a, "advertise-client-urls", e->me->client_url);
	r = r ? r
	      : push_flag(a, "listen-peer-urls",
			str_or(ocf_get(e->c, "listen_peer_urls"), e->me->peer_url));
	r = r ? r : push_flag(a, "initial-advertise-peer-urls", e->me->peer_url);
	free(listen);
	if (r == 0 && is_set(e, "metrics_port")) {
		const char *port = ocf_get(e->c, "metrics_port");

		if (asprintf(&listen, "http://127.0.0.1:%s,%s://%s:%s", port, e->spec.client_scheme,
			    e->me->host, port) < 0)
			return -ENOMEM;
		r = push_flag(a, "listen-metrics-urls", listen);
		free(listen);
	}
	for (i = 0; r == 0 && i < sizeof(files) / sizeof(files[0]); i++) {
		if (is_set(e, files[i][1]))
			r = push_flag(a, files[i][0], ocf_get(e->c, files[i][1]));
	}
	if (r == 0 && is_set(e, "trusted_ca_file")) {
		ocf_get_bool(e->c, "client_cert_auth", &b);
		r = push_flag(a, "client-cert-auth", b ? "true" : "false");
	}
	if (r == 0 && is_set(e, "peer_trusted_ca_file")) {
		ocf_get_bool(e->c, "peer_client_cert_auth", &b);
		r = push_flag(a, "peer-client-cert-auth", b ? "true" : "false");
	}
	r = r ? r : push_flag(a, "initial-cluster-token", ocf_get(e->c, "token"));
	r = r ? r : push_flag(a, "initial-cluster", initial);
	if (r == 0 && state)
		r = push_flag(a, "initial-cluster-state", state);
	/* Raft pre-vote (etcd 3.5's default, off in 3.4): a member that comes
	 * back from a restart must not depose a working leader with a higher
	 * term. Without it, a rolling restart here left the cluster with no
	 * leader for 5 s after its last member returned. args may say
	 * otherwise: they come later, and etcd takes the last value. */
	if (r == 0)
		r = ocf_strv_push(a, "--pre-vote=true");
	if (r == 0 && ocf_split_words(ocf_get(e->c, "args"), a, &why) == -ENOMEM)
		r = -ENOMEM;
	r = r ? r : ocf_strv_push(&e->envp, ETCD_ENV_PATH);
	tmp = ocf_env(e->c, "TMPDIR");
	if (r == 0 && tmp && *tmp) {
		if (asprintf(&kv, "TMPDIR=%s", tmp) < 0) {
			r = -ENOMEM;
		} else {
			r = ocf_strv_push(&e->envp, kv);
			free(kv);
		}
	}
	e->d.binary = e->binary;
	e->d.argv = e->argv.v;
	e->d.envp = e->envp.v;
	return r;
}
