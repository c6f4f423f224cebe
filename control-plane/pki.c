/* `cpha pki`'s plan, issuing and lint: OpenSSL 3 objects in memory, no
 * files (pki_dir.c reads and writes them).
 *
 * Keys are ECDSA P-256, not RSA 2048: the same security as RSA 3072 with a
 * key made in a millisecond instead of a tenth of a second (a run makes ten
 * of them, the unit tests many more), handshakes that are cheaper for the
 * apiserver's many clients, and every consumer takes them: Go's crypto/tls
 * (etcd, kube-*), kubectl, and service-account tokens (ES256). A key an
 * operator already has (RSA 2048 ones, as cfssl made them) is used as it is. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "cfgmsg.h"
#include "pki.h"

/* notBefore this far in the past: a host whose clock is a little behind
 * takes a certificate made a moment ago (cfssl, the usual tool of hand-built clusters, does the
 * same). */
#define BACKDATE_SECS 300

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		cpha_oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (!p)
		cpha_oom();
	return p;
}

/* ---------------------------------------------------------------- report -- */

void pki_report_add(struct pki_report *r, enum pki_kind k, const char *file, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		cpha_oom();
	va_end(ap);
	r->v = xrealloc(r->v, (r->n + 1) * sizeof(*r->v));
	r->v[r->n++] = (struct pki_line){ k, xstrdup(file ? file : ""), text };
	if (k == PKI_PROBLEM)
		r->nproblems++;
	else if (k == PKI_ERROR)
		r->nerrors++;
}

void pki_report_free(struct pki_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].file);
		free(r->v[i].text);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

const char *pki_ssl_error(void)
{
	static char buf[256];
	unsigned long e = ERR_peek_last_error();

	if (!e)
		snprintf(buf, sizeof(buf), "unknown OpenSSL error");
	else
		ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	return buf;
}

const char *pki_time_format(const ASN1_TIME *t, char *buf, size_t len)
{
	struct tm tm;

	if (!t || ASN1_TIME_to_tm(t, &tm) != 1 || !strftime(buf, len, "%Y-%m-%d", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* ----------------------------------------------------------------- names -- */

static bool parse_ip(const char *s, struct pki_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	if (inet_pton(AF_INET, s, ip->a) == 1)
		ip->family = AF_INET;
	else if (inet_pton(AF_INET6, s, ip->a) == 1)
		ip->family = AF_INET6;
	return ip->family != 0;
}

/* A host name (RFC 1123, plus '_' and a leading "*."); a name whose last
 * label is all digits is a mistyped address, not a name. */
static bool dns_ok(const char *s)
{
	size_t label = 0;
	bool digits = true;

	if (!strncmp(s, "*.", 2))
		s += 2;
	if (!*s || strlen(s) > 253)
		return false;
	for (const char *p = s; *p; p++) {
		if (*p == '.') {
			if (!label)
				return false;
			label = 0;
			digits = true;
			continue;
		}
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			return false;
		if (!isdigit((unsigned char)*p))
			digits = false;
		if (++label > 63)
			return false;
	}
	return label && !digits;
}

bool pki_names_has_dns(const struct pki_names *n, const char *dns)
{
	for (size_t i = 0; i < n->ndns; i++)
		if (!strcasecmp(n->dns[i], dns))
			return true;
	return false;
}

bool pki_names_has_ip(const struct pki_names *n, const struct pki_ip *ip)
{
	size_t len = ip->family == AF_INET ? 4 : 16;

	for (size_t i = 0; i < n->nip; i++)
		if (n->ip[i].family == ip->family && !memcmp(n->ip[i].a, ip->a, len))
			return true;
	return false;
}

static void add_dns(struct pki_names *n, const char *dns, size_t len)
{
	char *s;

	s = strndup(dns, len);
	if (!s)
		cpha_oom();
	for (char *p = s; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (pki_names_has_dns(n, s)) {
		free(s);
		return;
	}
	n->dns = xrealloc(n->dns, (n->ndns + 1) * sizeof(*n->dns));
	n->dns[n->ndns++] = s;
}

void pki_names_add_ip(struct pki_names *n, const struct pki_ip *ip)
{
	if (pki_names_has_ip(n, ip))
		return;
	n->ip = xrealloc(n->ip, (n->nip + 1) * sizeof(*n->ip));
	n->ip[n->nip++] = *ip;
}

int pki_names_add(struct pki_names *n, const char *name)
{
	struct pki_ip ip;

	if (parse_ip(name, &ip)) {
		pki_names_add_ip(n, &ip);
		return 0;
	}
	if (!dns_ok(name))
		return -EINVAL;
	add_dns(n, name, strlen(name));
	return 0;
}

void pki_names_merge(struct pki_names *n, const struct pki_names *src)
{
	if (!src)
		return;
	for (size_t i = 0; i < src->ndns; i++)
		add_dns(n, src->dns[i], strlen(src->dns[i]));
	for (size_t i = 0; i < src->nip; i++)
		pki_names_add_ip(n, &src->ip[i]);
}

void pki_names_filter(
	const struct pki_names *a, const struct pki_names *b, bool in_b, struct pki_names *out)
{
	for (size_t i = 0; i < a->ndns; i++)
		if (pki_names_has_dns(b, a->dns[i]) == in_b)
			add_dns(out, a->dns[i], strlen(a->dns[i]));
	for (size_t i = 0; i < a->nip; i++)
		if (pki_names_has_ip(b, &a->ip[i]) == in_b)
			pki_names_add_ip(out, &a->ip[i]);
}

void pki_names_of_cert(X509 *x, struct pki_names *n)
{
	GENERAL_NAMES *g = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);

	for (int i = 0; i < sk_GENERAL_NAME_num(g); i++) {
		const GENERAL_NAME *e = sk_GENERAL_NAME_value(g, i);
		const unsigned char *d;
		int len;

		if (e->type == GEN_DNS) {
			d = ASN1_STRING_get0_data(e->d.dNSName);
			len = ASN1_STRING_length(e->d.dNSName);
			if (len > 0 && !memchr(d, 0, (size_t)len))
				add_dns(n, (const char *)d, (size_t)len);
		} else if (e->type == GEN_IPADD) {
			struct pki_ip ip = { 0 };

			len = ASN1_STRING_length(e->d.iPAddress);
			if (len != 4 && len != 16)
				continue;
			ip.family = len == 4 ? AF_INET : AF_INET6;
			memcpy(ip.a, ASN1_STRING_get0_data(e->d.iPAddress), (size_t)len);
			pki_names_add_ip(n, &ip);
		}
	}
	GENERAL_NAMES_free(g);
	ERR_clear_error();
}

const char *pki_ip_format(const struct pki_ip *ip, char *buf, size_t len)
{
	if (!inet_ntop(ip->family, ip->a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

void pki_names_free(struct pki_names *n)
{
	for (size_t i = 0; i < n->ndns; i++)
		free(n->dns[i]);
	free(n->dns);
	free(n->ip);
	memset(n, 0, sizeof(*n));
}

/* ------------------------------------------------------------------ plan -- */

static struct pki_spec *add_spec(struct pki_plan *p, const char *stem, const char *cn,
	const char *o, unsigned eku, bool client)
{
	struct pki_spec *s;

	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	s = &p->v[p->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->stem, sizeof(s->stem), "%s", stem);
	s->cn = xstrdup(cn);
	s->o = o ? xstrdup(o) : NULL;
	s->eku = eku;
	s->client = client;
	return s;
}

static void ip_of_addr(const struct cpha_addr *a, struct pki_ip *ip)
{
	memset(ip, 0, sizeof(*ip));
	ip->family = a->ss.ss_family;
	if (ip->family == AF_INET)
		memcpy(ip->a, &((const struct sockaddr_in *)&a->ss)->sin_addr, 4);
	else
		memcpy(ip->a, &((const struct sockaddr_in6 *)&a->ss)->sin6_addr, 16);
}

static int add_name(struct pki_names *n, const char *name, const char **why)
{
	static char buf[320];

	if (pki_names_add(n, name) == 0)
		return 0;
	snprintf(buf, sizeof(buf),
		"'%.256s' can be neither a DNS name nor an IP address in a "
		"certificate",
		name);
	*why = buf;
	return -EINVAL;
}

static int add_host(struct pki_names *n, const struct cp_host *h, const char **why)
{
	struct pki_ip ip;

	ip_of_addr(&h->addr, &ip);
	pki_names_add_ip(n, &ip);
	return add_name(n, h->name, why);
}

int pki_plan_build(const struct cp_cluster *c, struct pki_plan *p, const char **why)
{
	char svc[INET6_ADDRSTRLEN], buf[300];
	struct pki_spec *s;
	struct pki_ip ip;

	memset(p, 0, sizeof(*p));
	p->ca_days = c->ca_days;
	p->cert_days = c->cert_days;
	p->renew_days = c->renew_days;
	snprintf(buf, sizeof(buf), "%s-ca", c->name);
	p->ca_cn = xstrdup(buf);
	snprintf(buf, sizeof(buf), "%s-front-proxy-ca", c->name);
	p->fp_ca_cn = xstrdup(buf);

	/* etcd serves clients and peers with one certificate and presents it
	 * to its peers as a client: both usages, or peers refuse each other */
	s = add_spec(p, "etcd-server", "etcd-server", NULL, PKI_EKU_SERVER | PKI_EKU_CLIENT, false);
	add_name(&s->sans, "127.0.0.1", why);
	add_name(&s->sans, "localhost", why);
	for (size_t i = 0; i < c->netcd; i++)
		if (add_host(&s->sans, &c->hosts[c->etcd[i]], why) < 0)
			goto fail;

	add_spec(p, "etcd-client", "etcd-client", NULL, PKI_EKU_CLIENT, true);

	s = add_spec(p, "apiserver", "kube-apiserver", NULL, PKI_EKU_SERVER, false);
	ip_of_addr(&c->vip, &ip);
	pki_names_add_ip(&s->sans, &ip);
	if (c->has_vip2) {
		ip_of_addr(&c->vip2, &ip);
		pki_names_add_ip(&s->sans, &ip);
	}
	if (add_name(&s->sans, c->api_name, why) < 0)
		goto fail;
	add_name(&s->sans, "kubernetes", why);
	add_name(&s->sans, "kubernetes.default", why);
	add_name(&s->sans, "kubernetes.default.svc", why);
	snprintf(buf, sizeof(buf), "kubernetes.default.svc.%s", c->domain);
	if (add_name(&s->sans, buf, why) < 0)
		goto fail;
	if (cluster_first_service_ip(c, svc, sizeof(svc)) < 0) {
		*why = "kubernetes.service_cidr has no first address";
		goto fail;
	}
	add_name(&s->sans, svc, why);
	for (size_t i = 0; i < c->nhosts; i++)
		if ((c->hosts[i].roles & CP_ROLE_MASTER) &&
			add_host(&s->sans, &c->hosts[i], why) < 0)
			goto fail;
	add_name(&s->sans, "127.0.0.1", why);
	add_name(&s->sans, "localhost", why);

	/* the identities Kubernetes authorizes (RBAC's default bindings) */
	add_spec(p, "kubelet-client", "kube-apiserver-kubelet-client", "system:masters",
		PKI_EKU_CLIENT, true);
	add_spec(p, "controller-manager", "system:kube-controller-manager", NULL, PKI_EKU_CLIENT,
		true);
	add_spec(p, "scheduler", "system:kube-scheduler", NULL, PKI_EKU_CLIENT, true);
	/* kubeadm since 1.29: admin.conf's group is bound to cluster-admin by
	 * a ClusterRoleBinding (cluster/bootstrap-rbac.yaml), so it can be
	 * taken away; super-admin.conf is the break-glass system:masters one */
	add_spec(p, "admin", "admin", "kubeadm:cluster-admins", PKI_EKU_CLIENT, true);
	add_spec(p, "super-admin", "super-admin", "system:masters", PKI_EKU_CLIENT, true);

	/* the aggregation layer: the apiserver proxies to extension
	 * apiservers with this identity, trusted through
	 * --requestheader-client-ca-file and --requestheader-allowed-names */
	s = add_spec(p, "front-proxy-client", "front-proxy-client", NULL, PKI_EKU_CLIENT, true);
	s->front_proxy = true;

	/* each master's kubelet, as the Node authorizer and NodeRestriction
	 * know it: CN system:node:NAME in group system:nodes */
	for (size_t i = 0; i < c->nhosts; i++) {
		const struct cp_host *h = &c->hosts[i];
		char stem[PKI_STEMLEN];

		if (!(h->roles & CP_ROLE_MASTER))
			continue;
		if ((size_t)snprintf(stem, sizeof(stem), PKI_NODE_PREFIX "%s", h->name) >=
			sizeof(stem)) {
			*why = "a master's name is too long for a file name of the PKI";
			goto fail;
		}
		snprintf(buf, sizeof(buf), "system:node:%s", h->name);
		add_spec(p, stem, buf, "system:nodes", PKI_EKU_CLIENT, true);
	}

	/* monitoring.tls: one serving certificate for the daemons' /metrics
	 * and /status (lbd, vipd, fenced) on every master and LB host, and on
	 * loopback; cpha status verifies it with this CA */
	if (c->mon.cert_file) {
		s = add_spec(p, "metrics", "cpha-metrics", NULL, PKI_EKU_SERVER, false);
		add_name(&s->sans, "127.0.0.1", why);
		add_name(&s->sans, "::1", why);
		add_name(&s->sans, "localhost", why);
		for (size_t i = 0; i < c->nhosts; i++)
			if ((c->hosts[i].roles & (CP_ROLE_MASTER | CP_ROLE_LB)) &&
				add_host(&s->sans, &c->hosts[i], why) < 0)
				goto fail;
	}
	/* monitoring.prometheus: the scraper's client identity, for etcd's
	 * metrics listener (any certificate of the CA) and the apiservers'
	 * /metrics (the system:monitoring group, which Kubernetes's default
	 * RBAC lets read /metrics) */
	if (c->mon.prom.on)
		add_spec(p, "prometheus", "cpha-prometheus", "system:monitoring", PKI_EKU_CLIENT,
			true);
	return 0;
fail:
	pki_plan_free(p);
	return -EINVAL;
}

void pki_plan_free(struct pki_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].cn);
		free(p->v[i].o);
		pki_names_free(&p->v[i].sans);
	}
	free(p->v);
	free(p->ca_cn);
	free(p->fp_ca_cn);
	memset(p, 0, sizeof(*p));
}

const struct pki_spec *pki_plan_find(const struct pki_plan *p, const char *stem)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].stem, stem))
			return &p->v[i];
	return NULL;
}

/* ---------------------------------------------------------------- issuing -- */

EVP_PKEY *pki_key_new(void)
{
	return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static int set_serial(X509 *x)
{
	unsigned char b[16]; /* 128 random bits; RFC 5280 §4.1.2.2 allows up to 20 octets */
	BIGNUM *bn;
	int rc = -1;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -1;
	bn = BN_bin2bn(b, sizeof(b), NULL);
	if (bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)))
		rc = 0;
	BN_free(bn);
	return rc;
}

static int add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value)
{
	X509_EXTENSION *e = X509V3_EXT_nconf_nid(NULL, ctx, nid, value);
	int ok = e && X509_add_ext(x, e, -1);

	X509_EXTENSION_free(e);
	return ok ? 0 : -1;
}

static int add_sans(X509 *x, const struct pki_names *n)
{
	GENERAL_NAMES *g;
	int rc = -1;

	if (!n->ndns && !n->nip)
		return 0;
	g = GENERAL_NAMES_new();
	if (!g)
		return -1;
	for (size_t i = 0; i < n->ndns; i++) {
		GENERAL_NAME *e = GENERAL_NAME_new();
		ASN1_IA5STRING *s = ASN1_IA5STRING_new();

		if (!e || !s || !ASN1_STRING_set(s, n->dns[i], -1)) {
			GENERAL_NAME_free(e);
			ASN1_IA5STRING_free(s);
			goto out;
		}
		GENERAL_NAME_set0_value(e, GEN_DNS, s);
		if (!sk_GENERAL_NAME_push(g, e)) {
			GENERAL_NAME_free(e);
			goto out;
		}
	}
	for (size_t i = 0; i < n->nip; i++) {
		GENERAL_NAME *e = GENERAL_NAME_new();
		ASN1_OCTET_STRING *o = ASN1_OCTET_STRING_new();

		if (!e || !o ||
			!ASN1_OCTET_STRING_set(
				o, n->ip[i].a, n->ip[i].family == AF_INET ? 4 : 16)) {
			GENERAL_NAME_free(e);
			ASN1_OCTET_STRING_free(o);
			goto out;
		}
		GENERAL_NAME_set0_value(e, GEN_IPADD, o);
		if (!sk_GENERAL_NAME_push(g, e)) {
			GENERAL_NAME_free(e);
			goto out;
		}
	}
	/* RFC 5280 §4.2.1.6: not critical, the subject is not empty */
	if (X509_add1_ext_i2d(x, NID_subject_alt_name, g, 0, X509V3_ADD_DEFAULT) == 1)
		rc = 0;
out:
	GENERAL_NAMES_free(g);
	return rc;
}

static X509 *new_cert(const X509_NAME *subject, EVP_PKEY *key, time_t now, unsigned days)
{
	X509 *x = X509_new();

	if (!x || !X509_set_version(x, X509_VERSION_3) || set_serial(x) < 0 ||
		!X509_set_subject_name(x, subject) || !X509_set_pubkey(x, key) ||
		!ASN1_TIME_adj(X509_getm_notBefore(x), now, 0, -BACKDATE_SECS) ||
		!ASN1_TIME_adj(X509_getm_notAfter(x), now, (int)days, 0)) {
		X509_free(x);
		return NULL;
	}
	return x;
}

static int sign(X509 *x, EVP_PKEY *key)
{
	/* EdDSA signs the message itself: no digest */
	const EVP_MD *md =
		EVP_PKEY_is_a(key, "ED25519") || EVP_PKEY_is_a(key, "ED448") ? NULL : EVP_sha256();

	return X509_sign(x, key, md) > 0 ? 0 : -1;
}

X509 *pki_issue_ca(const X509_NAME *subject, const char *cn, EVP_PKEY *key, time_t now,
	unsigned days, const char **why)
{
	X509_NAME *name = NULL;
	X509V3_CTX ctx;
	X509 *x = NULL;

	if (!subject) {
		name = X509_NAME_new();
		if (!name || !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
				     (const unsigned char *)cn, -1, -1, 0))
			goto fail;
		subject = name;
	}
	x = new_cert(subject, key, now, days);
	if (!x || !X509_set_issuer_name(x, subject))
		goto fail;
	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	/* RFC 5280 §4.2.1.9, §4.2.1.3; the SKID first: the AKID copies it */
	if (add_ext(x, &ctx, NID_basic_constraints, "critical,CA:TRUE") < 0 ||
		add_ext(x, &ctx, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
		add_ext(x, &ctx, NID_subject_key_identifier, "hash") < 0 ||
		add_ext(x, &ctx, NID_authority_key_identifier, "keyid:always") < 0 ||
		sign(x, key) < 0)
		goto fail;
	X509_NAME_free(name);
	return x;
fail:
	*why = pki_ssl_error();
	X509_NAME_free(name);
	X509_free(x);
	return NULL;
}

static const char *eku_value(unsigned eku)
{
	switch (eku) {
	case PKI_EKU_SERVER:
		return "serverAuth";
	case PKI_EKU_CLIENT:
		return "clientAuth";
	case PKI_EKU_SERVER | PKI_EKU_CLIENT:
		return "serverAuth,clientAuth";
	default:
		return NULL;
	}
}

X509 *pki_issue(const struct pki_spec *s, const struct pki_names *extra, EVP_PKEY *key, X509 *ca,
	EVP_PKEY *ca_key, time_t now, unsigned days, const char **why)
{
	struct pki_names names = { 0 };
	X509_NAME *name = X509_NAME_new();
	X509V3_CTX ctx;
	X509 *x = NULL;

	if (EVP_PKEY_eq(X509_get0_pubkey(ca), ca_key) != 1) {
		*why = "the CA key is not the key of the CA certificate";
		ERR_clear_error();
		goto out;
	}
	if (!name ||
		(s->o && !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
				 (const unsigned char *)s->o, -1, -1, 0)) ||
		!X509_NAME_add_entry_by_txt(
			name, "CN", MBSTRING_UTF8, (const unsigned char *)s->cn, -1, -1, 0))
		goto fail;
	x = new_cert(name, key, now, days);
	if (!x)
		goto fail;
	/* never valid past the CA: a chain is only as long-lived as its root */
	if (ASN1_TIME_compare(X509_get0_notAfter(x), X509_get0_notAfter(ca)) > 0 &&
		!X509_set1_notAfter(x, X509_get0_notAfter(ca)))
		goto fail;
	if (!X509_set_issuer_name(x, X509_get_subject_name(ca)))
		goto fail;
	X509V3_set_ctx(&ctx, ca, x, NULL, NULL, 0);
	/* a CA without SKID: the AKID is computed from its key */
	X509V3_set_issuer_pkey(&ctx, ca_key);
	pki_names_merge(&names, &s->sans);
	pki_names_merge(&names, extra);
	/* RSA keys also encipher in TLS 1.2's RSA key exchange */
	if (add_ext(x, &ctx, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
		add_ext(x, &ctx, NID_key_usage,
			EVP_PKEY_is_a(key, "RSA") ? "critical,digitalSignature,keyEncipherment"
						  : "critical,digitalSignature") < 0 ||
		!eku_value(s->eku) || add_ext(x, &ctx, NID_ext_key_usage, eku_value(s->eku)) < 0 ||
		add_ext(x, &ctx, NID_subject_key_identifier, "hash") < 0 ||
		add_ext(x, &ctx, NID_authority_key_identifier, "keyid:always") < 0 ||
		add_sans(x, &names) < 0 || sign(x, ca_key) < 0)
		goto fail;
	goto out;
fail:
	*why = pki_ssl_error();
	X509_free(x);
	x = NULL;
out:
	pki_names_free(&names);
	X509_NAME_free(name);
	return x;
}

/* ------------------------------------------------------------------- lint -- */

static unsigned lint_time(
	const char *file, X509 *x, time_t now, unsigned renew_days, struct pki_report *r)
{
	const ASN1_TIME *nb = X509_get0_notBefore(x), *na = X509_get0_notAfter(x);
	ASN1_TIME *t;
	char d[16];
	int days = 0, secs = 0, cmp;
	unsigned bad = 0;

	if (X509_cmp_time(nb, &now) > 0) {
		pki_report_add(r, PKI_PROBLEM, file, "not valid before %s (is this clock right?)",
			pki_time_format(nb, d, sizeof(d)));
		bad |= PKI_BAD_EXPIRY;
	}
	cmp = X509_cmp_time(na, &now);
	if (cmp == 0) {
		pki_report_add(r, PKI_PROBLEM, file, "notAfter cannot be read");
		return bad | PKI_BAD_EXPIRY;
	}
	if (cmp < 0) {
		pki_report_add(r, PKI_PROBLEM, file, "expired on %s: run cpha pki renew",
			pki_time_format(na, d, sizeof(d)));
		return bad | PKI_BAD_EXPIRY;
	}
	t = ASN1_TIME_set(NULL, now);
	cmp = t && ASN1_TIME_diff(&days, &secs, t, na);
	ASN1_TIME_free(t);
	if (!cmp) {
		pki_report_add(
			r, PKI_PROBLEM, file, "notAfter cannot be compared: %s", pki_ssl_error());
		return bad | PKI_BAD_EXPIRY;
	}
	if ((long long)days * 86400 + secs < (long long)renew_days * 86400) {
		pki_report_add(r, PKI_PROBLEM, file,
			"expires on %s, in %d day%s (within renew_days, %u): run cpha pki renew",
			pki_time_format(na, d, sizeof(d)), days, days == 1 ? "" : "s", renew_days);
		bad |= PKI_BAD_EXPIRY;
	}
	return bad;
}

static unsigned lint_weak(const char *file, X509 *x, struct pki_report *r)
{
	EVP_PKEY *k = X509_get0_pubkey(x);
	int bits = k ? EVP_PKEY_get_bits(k) : 0;

	if (!k) {
		pki_report_add(
			r, PKI_PROBLEM, file, "its public key cannot be read: %s", pki_ssl_error());
		return PKI_BAD_WEAK;
	}
	if ((EVP_PKEY_is_a(k, "RSA") && bits < 2048) || (EVP_PKEY_is_a(k, "EC") && bits < 256)) {
		pki_report_add(r, PKI_PROBLEM, file,
			"its key is %s %d bits, too weak (want RSA 2048 or ECDSA P-256 at least): "
			"move "
			"the key file away to have a new one made",
			EVP_PKEY_get0_type_name(k), bits);
		return PKI_BAD_WEAK;
	}
	return 0;
}

unsigned pki_lint_ca(const char *stem, X509 *x, EVP_PKEY *key, time_t now, unsigned renew_days,
	struct pki_report *r)
{
	char f[PKI_STEMLEN + 8], kf[PKI_STEMLEN + 12];
	unsigned bad = 0;
	uint32_t fl, ku;
	int idx;

	if (!x)
		return PKI_BAD_MISSING;
	snprintf(f, sizeof(f), "%s.pem", stem);
	snprintf(kf, sizeof(kf), "%s-key.pem", stem);
	fl = X509_get_extension_flags(x);
	idx = X509_get_ext_by_NID(x, NID_basic_constraints, -1);
	if (!(fl & EXFLAG_CA) || idx < 0) {
		pki_report_add(r, PKI_PROBLEM, f, "is not a CA (no basic constraints CA:TRUE)");
		bad |= PKI_BAD_CONTENT;
	} else if (!X509_EXTENSION_get_critical(X509_get_ext(x, idx))) {
		/* RFC 5280 §4.2.1.9: MUST be critical in CA certificates */
		pki_report_add(r, PKI_PROBLEM, f, "basic constraints are not critical");
		bad |= PKI_BAD_CONTENT;
	}
	ku = X509_get_key_usage(x);
	if (!(fl & EXFLAG_KUSAGE) || !(ku & KU_KEY_CERT_SIGN) || !(ku & KU_CRL_SIGN)) {
		pki_report_add(r, PKI_PROBLEM, f, "key usage lacks keyCertSign or cRLSign");
		bad |= PKI_BAD_CONTENT;
	}
	bad |= lint_time(f, x, now, renew_days, r);
	bad |= lint_weak(f, x, r);
	if (key && EVP_PKEY_eq(X509_get0_pubkey(x), key) != 1) {
		pki_report_add(r, PKI_PROBLEM, kf, "is not the key of %s", f);
		bad |= PKI_BAD_KEY;
	}
	ERR_clear_error();
	return bad;
}

static const char *eku_text(unsigned eku)
{
	const char *v = eku_value(eku);
	return v ? v : "neither serverAuth nor clientAuth";
}

static unsigned lint_usage(
	const struct pki_spec *s, const char *file, X509 *x, struct pki_report *r)
{
	uint32_t fl = X509_get_extension_flags(x), xku, ku;
	unsigned have = 0, bad = 0;

	if (!(fl & EXFLAG_XKUSAGE)) {
		pki_report_add(r, PKI_PROBLEM, file, "has no extended key usage (want %s)",
			eku_text(s->eku));
		bad |= PKI_BAD_CONTENT;
	} else {
		xku = X509_get_extended_key_usage(x);
		if (xku & XKU_SSL_SERVER)
			have |= PKI_EKU_SERVER;
		if (xku & XKU_SSL_CLIENT)
			have |= PKI_EKU_CLIENT;
		if (have != s->eku) {
			pki_report_add(r, PKI_PROBLEM, file, "extended key usage is %s; want %s%s",
				eku_text(have), eku_text(s->eku),
				s->eku == (PKI_EKU_SERVER | PKI_EKU_CLIENT) &&
						!(have & PKI_EKU_CLIENT)
					? " (etcd presents it to its peers as a TLS client too)"
					: "");
			bad |= PKI_BAD_CONTENT;
		}
	}
	ku = X509_get_key_usage(x);
	if (!(fl & EXFLAG_KUSAGE) || !(ku & KU_DIGITAL_SIGNATURE)) {
		pki_report_add(r, PKI_PROBLEM, file, "key usage lacks digitalSignature");
		bad |= PKI_BAD_CONTENT;
	} else if (ku & (KU_KEY_CERT_SIGN | KU_CRL_SIGN)) {
		pki_report_add(r, PKI_PROBLEM, file, "key usage allows signing certificates");
		bad |= PKI_BAD_CONTENT;
	}
	if (fl & EXFLAG_CA) {
		pki_report_add(r, PKI_PROBLEM, file, "is a CA (basic constraints CA:TRUE)");
		bad |= PKI_BAD_CONTENT;
	}
	return bad;
}

/* The values of one attribute of a name, joined with ", ". */
static void name_values(const X509_NAME *nm, int nid, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = X509_NAME_get_index_by_NID(nm, nid, -1); i >= 0;
		i = X509_NAME_get_index_by_NID(nm, nid, i)) {
		const ASN1_STRING *d = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(nm, i));
		unsigned char *u = NULL;

		if (ASN1_STRING_to_UTF8(&u, d) < 0)
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
			used ? ", " : "", (const char *)u);
		OPENSSL_free(u);
		if (used >= len)
			break;
	}
}

static unsigned lint_subject(
	const struct pki_spec *s, const char *file, X509 *x, struct pki_report *r)
{
	const X509_NAME *nm = X509_get_subject_name(x);
	const char *want_o = s->o ? s->o : "";
	char cn[256], o[256];
	unsigned bad = 0;

	name_values(nm, NID_commonName, cn, sizeof(cn));
	name_values(nm, NID_organizationName, o, sizeof(o));
	if (strcmp(cn, s->cn)) {
		pki_report_add(r, PKI_PROBLEM, file,
			"subject CN is \"%s\"; Kubernetes expects \"%s\" for this identity", cn,
			s->cn);
		bad |= PKI_BAD_CONTENT;
	}
	/* O is the group list: one too many is a privilege */
	if (strcmp(o, want_o)) {
		if (*want_o)
			pki_report_add(r, PKI_PROBLEM, file, "subject O is \"%s\"; want \"%s\"", o,
				want_o);
		else
			pki_report_add(r, PKI_PROBLEM, file,
				"subject O is \"%s\" (groups this identity must not have); want "
				"none",
				o);
		bad |= PKI_BAD_CONTENT;
	}
	return bad;
}

static unsigned lint_sans(const struct pki_spec *s, const char *file, X509 *x, struct pki_report *r)
{
	struct pki_names have = { 0 };
	char ip[INET6_ADDRSTRLEN];
	unsigned bad = 0;

	pki_names_of_cert(x, &have);
	for (size_t i = 0; i < s->sans.ndns; i++)
		if (!pki_names_has_dns(&have, s->sans.dns[i])) {
			pki_report_add(r, PKI_PROBLEM, file, "missing SAN DNS:%s", s->sans.dns[i]);
			bad |= PKI_BAD_CONTENT;
		}
	for (size_t i = 0; i < s->sans.nip; i++)
		if (!pki_names_has_ip(&have, &s->sans.ip[i])) {
			pki_report_add(r, PKI_PROBLEM, file, "missing SAN IP:%s",
				pki_ip_format(&s->sans.ip[i], ip, sizeof(ip)));
			bad |= PKI_BAD_CONTENT;
		}
	pki_names_free(&have);
	return bad;
}

static unsigned lint_chain(
	const char *file, const char *ca_file, X509 *x, X509 *ca, struct pki_report *r)
{
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	unsigned bad = 0;

	if (!st || !ctx || !X509_STORE_add_cert(st, ca) || !X509_STORE_CTX_init(ctx, st, x, NULL)) {
		pki_report_add(r, PKI_PROBLEM, file, "cannot be verified: %s", pki_ssl_error());
		bad = PKI_BAD_CHAIN;
		goto out;
	}
	/* validity is lint_time's (one line per problem); ca.pem is the anchor
	 * even when it is not self-signed */
	X509_STORE_CTX_set_flags(ctx,
		X509_V_FLAG_NO_CHECK_TIME | X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_X509_STRICT);
	if (X509_verify_cert(ctx) != 1) {
		pki_report_add(r, PKI_PROBLEM, file, "does not verify against %s: %s", ca_file,
			X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
		bad = PKI_BAD_CHAIN;
	}
out:
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	ERR_clear_error();
	return bad;
}

unsigned pki_lint_cert(const struct pki_spec *s, X509 *x, EVP_PKEY *key, X509 *ca, time_t now,
	unsigned renew_days, struct pki_report *r)
{
	char file[PKI_STEMLEN + 8];
	unsigned bad = 0;

	if (!x)
		return PKI_BAD_MISSING;
	snprintf(file, sizeof(file), "%s.pem", s->stem);
	bad |= lint_sans(s, file, x, r);
	bad |= lint_usage(s, file, x, r);
	if (s->client)
		bad |= lint_subject(s, file, x, r);
	bad |= lint_time(file, x, now, renew_days, r);
	if (ca)
		bad |= lint_chain(
			file, s->front_proxy ? PKI_FP_CA ".pem" : PKI_CA ".pem", x, ca, r);
	bad |= lint_weak(file, x, r);
	if (key && EVP_PKEY_eq(X509_get0_pubkey(x), key) != 1) {
		pki_report_add(
			r, PKI_PROBLEM, file, "its public key is not that of %s-key.pem", s->stem);
		bad |= PKI_BAD_KEY;
	}
	ERR_clear_error();
	return bad;
}

/* -------------------------------------------------------------- decision -- */

enum pki_action pki_decide(enum pki_op op, bool force, bool ca, bool have_key, unsigned bad)
{
	switch (op) {
	case PKI_OP_ISSUE:
		/* ca.pem without its key: everything it signed stays checkable;
		 * a new CA would orphan them all */
		if (ca && !have_key && !(bad & PKI_BAD_MISSING))
			return PKI_KEEP;
		if (!have_key)
			return PKI_NEW;
		/* a CA key that is not ca.pem's: the operator's mix-up to sort out */
		if (ca && (bad & PKI_BAD_KEY))
			return PKI_REFUSE;
		if (bad & PKI_BAD_MISSING)
			return PKI_ISSUE;
		/* the key is what others hold or trust: the certificate follows it */
		if (bad & (PKI_BAD_CONTENT | PKI_BAD_CHAIN | PKI_BAD_KEY))
			return PKI_REISSUE;
		/* expiry is renew's decision, a weak key or a mode the operator's */
		return PKI_KEEP;
	case PKI_OP_RENEW:
		if (bad & PKI_BAD_MISSING)
			return PKI_REFUSE;
		if (!force && !(bad & PKI_BAD_EXPIRY))
			return PKI_KEEP;
		if (!have_key || (ca && (bad & PKI_BAD_KEY)))
			return PKI_REFUSE;
		return PKI_RENEW;
	default:
		return PKI_KEEP;
	}
}
