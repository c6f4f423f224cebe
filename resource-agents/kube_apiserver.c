/* ocf:cpha:kube-apiserver — the Kubernetes API server, one per master,
 * run as a Pacemaker clone. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "kube.h"
#include "log.h"
#include "ocf_urls.h"
#include "quorum.h"

/* Flags naming certificates (or CA bundles) and keys the apiserver reads. */
static const char *const cert_flags[] = { "tls-cert-file", "client-ca-file", "etcd-cafile",
	"etcd-certfile", "kubelet-client-certificate", "kubelet-certificate-authority",
	"proxy-client-cert-file", "requestheader-client-ca-file", NULL };
static const char *const key_flags[] = { "tls-private-key-file", "etcd-keyfile",
	"kubelet-client-key", "proxy-client-key-file", "service-account-key-file",
	"service-account-signing-key-file", NULL };
/* certificate and key that must belong together */
static const char *const pairs[][2] = { { "tls-cert-file", "tls-private-key-file" },
	{ "etcd-certfile", "etcd-keyfile" }, { "kubelet-client-certificate", "kubelet-client-key" },
	{ "proxy-client-cert-file", "proxy-client-key-file" } };

static X509 *read_cert(const char *path)
{
	BIO *b = BIO_new_file(path, "r");
	X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	ERR_clear_error();
	return x;
}

static EVP_PKEY *read_key(const char *path)
{
	BIO *b = BIO_new_file(path, "r");
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;

	BIO_free(b);
	ERR_clear_error();
	return k;
}

/* Every file flag: there and readable; certificates parse; pairs match. */
static int check_tls_files(struct kube *k)
{
	const char *path, *kpath;
	char name[64];
	bool ff, kff;
	size_t i;
	int rc;

	for (i = 0; cert_flags[i]; i++) {
		X509 *x;

		if (!kube_flag(k, cert_flags[i], false, &path, &ff) || !*path)
			continue;
		snprintf(name, sizeof(name), "--%s", cert_flags[i]);
		rc = kube_check_file(name, path);
		if (rc != PCMK_OCF_OK)
			return rc;
		x = read_cert(path);
		if (!x)
			return ocf_fail(PCMK_OCF_INVALID_PARAM, "--%s %s: no PEM certificate in it",
				cert_flags[i], path);
		if (X509_cmp_current_time(X509_get0_notAfter(x)) < 0)
			log_warn("--%s %s: the certificate has expired", cert_flags[i], path);
		X509_free(x);
	}
	for (i = 0; key_flags[i]; i++) {
		if (kube_flag(k, key_flags[i], false, &path, &ff) && *path) {
			snprintf(name, sizeof(name), "--%s", key_flags[i]);
			rc = kube_check_file(name, path);
			if (rc != PCMK_OCF_OK)
				return rc;
		}
	}
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		X509 *x;
		EVP_PKEY *key;
		int ok;

		if (!kube_flag(k, pairs[i][0], false, &path, &ff) || !*path)
			continue;
		if (!kube_flag(k, pairs[i][1], false, &kpath, &kff) || !*kpath)
			return ocf_fail(kube_flag_rc(ff), "--%s is set without --%s", pairs[i][0],
				pairs[i][1]);
		x = read_cert(path);
		key = read_key(kpath);
		ok = x && key && X509_check_private_key(x, key) == 1;
		ERR_clear_error();
		X509_free(x);
		EVP_PKEY_free(key);
		if (!ok)
			return ocf_fail(PCMK_OCF_INVALID_PARAM, "--%s %s is not the key of --%s %s",
				pairs[i][1], kpath, pairs[i][0], path);
	}
	return PCMK_OCF_OK;
}

/* --etcd-servers must name 2n+1 members (quorum sizing). */
static int check_etcd_servers(struct kube *k)
{
	const char *servers, *why;
	char reason[256];
	bool ff, allow = false;
	unsigned n;

	if (!kube_flag(k, "etcd-servers", false, &servers, &ff) || !*servers)
		return ocf_fail(ocf_is_set(k->c, "envfile") ? PCMK_OCF_INVALID_PARAM
							    : PCMK_OCF_NOT_CONFIGURED,
			"no --etcd-servers flag in args%s",
			ocf_is_set(k->c, "envfile") ? " or envfile" : "");
	if (ocf_url_list_count(servers, &n, &why) < 0)
		return ocf_fail(kube_flag_rc(ff), "--etcd-servers=%s: %s", servers, why);
	if (ocf_get_bool(k->c, "allow_even_etcd", &allow) == -EINVAL)
		return PCMK_OCF_NOT_CONFIGURED;
	if (cpha_quorum_check(n, allow, reason, sizeof(reason)) < 0) {
		/* Only validate-all refuses: an apiserver runs with any number of
		 * etcd servers, and a refusal at start would be OCF_ERR_CONFIGURED
		 * on every node, stopping the whole clone (an outage caused by a
		 * safety check). */
		if (k->c->action_name && !strcmp(k->c->action_name, "validate-all"))
			return ocf_fail(kube_flag_rc(ff),
				"even etcd size refused: list 3 or 5 --etcd-servers (%u given; "
				"allow_even_etcd=true accepts it): %s",
				n, reason);
		log_warn("--etcd-servers names %u etcd members, an even count (validate-all "
			 "refuses it): %s",
			n, reason);
		return PCMK_OCF_OK;
	}
	if (n % 2 == 0)
		log_warn("--etcd-servers names %u etcd members (even, accepted by allow_even_etcd)",
			n);
	return PCMK_OCF_OK;
}

static int apiserver_validate(struct kube *k)
{
	int rc = check_etcd_servers(k);

	return rc == PCMK_OCF_OK ? check_tls_files(k) : rc;
}

static const struct kube_spec spec = {
	.component = "kube-apiserver",
	.default_port = 6443,
	.live_path = "/livez",
	.ready_path = "/readyz?verbose",
	.validate = apiserver_validate,
};

static const struct ocf_param params[] = {
	KUBE_PARAMS("kube-apiserver", "KUBE_APISERVER_ARGS", "6443"),
	{ .name = "allow_even_etcd",
		.type = OCF_BOOLEAN,
		.def = "false",
		.shortdesc = "Accept an even number of etcd servers",
		.longdesc = "validate-all refuses an --etcd-servers list with an even number "
			    "of members: Raft with 2n members tolerates n-1 failures, as 2n-1 do, "
			    "and needs one more vote. start and monitor only warn (a refusal there "
			    "would stop the clone on every node). true accepts it." },
	{ .name = NULL },
};

static const struct ocf_action actions[] = {
	{ .name = "start", .timeout_s = 120, .fn = kube_action_start },
	{ .name = "stop", .timeout_s = 120, .fn = kube_action_stop },
	{ .name = "monitor", .timeout_s = 30, .interval_s = 10, .fn = kube_action_monitor },
	{ .name = "validate-all", .timeout_s = 30, .fn = kube_action_validate },
	{ .name = NULL },
};

static const struct ocf_agent agent = {
	.name = "kube-apiserver",
	.version = CPHA_VERSION,
	.shortdesc = "Kubernetes API server (cpha)",
	.longdesc = "Runs kube-apiserver with the operator's flags (the args parameter and/or a "
		    "systemd EnvironmentFile), detached, with a pid file; meant to run as a clone, "
		    "one instance per master.\n"
		    "start waits for https://ADDRESS:PORT/readyz within the start timeout. monitor "
		    "checks the process, then /livez (three tries: a failure is an error, and "
		    "Pacemaker restarts it), then /readyz: live but not ready (etcd unreachable, "
		    "shutting down) returns OCF_DEGRADED (190), which Pacemaker counts as running, "
		    "so a transient state never causes a restart. stop sends SIGTERM and lets the "
		    "graceful shutdown (--shutdown-delay-duration, draining) run until a tenth of "
		    "the stop timeout is left, then SIGKILL.\n"
		    "validate-all checks the executable, that every TLS file named by the flags "
		    "exists and is readable (certificates parse, certificate/key pairs match), and "
		    "that --etcd-servers names an odd number of members (2n+1 tolerates n "
		    "failures; at start an even list is only a warning). A problem in the "
		    "parameters is OCF_ERR_CONFIGURED; one in a file "
		    "of this node (envfile, certificates) is OCF_ERR_ARGS or OCF_ERR_INSTALLED.",
	.params = params,
	.actions = actions,
	.data = &spec,
};

int main(int argc, char **argv, char **envp)
{
	return ocf_main(&agent, argc, argv, envp);
}
