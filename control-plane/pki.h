/* `cpha pki`: the certificates and keys of the control plane. This module
 * holds what needs no file: the plan (which certificate carries which
 * names, usages and subject, from the cluster description), issuing keys
 * and certificates in memory, linting a certificate against its plan, and
 * the decision of what to do with each one. pki_dir.c reads and writes the
 * directory; pki_cmd.c is the command. */
#ifndef CPHA_PKI_H
#define CPHA_PKI_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "cluster.h"

/* File names in the PKI directory, as hand-built clusters name them (cfssl's NAME.pem,
 * NAME-key.pem); a certificate STEM is STEM.pem with its key in STEM-key.pem. */
#define PKI_CA          "ca"
#define PKI_FP_CA       "front-proxy-ca" /* the aggregation layer's own CA, as kubeadm makes it */
#define PKI_SA_KEY      "sa.key"
#define PKI_SA_PUB      "sa.pub"
#define PKI_AUTHKEY     "corosync-authkey" /* installed as /etc/corosync/authkey */
#define PKI_AUTHKEY_LEN 256                /* bytes, as corosync-keygen makes it */
#define PKI_STEMLEN     72      /* longest stem ("node-" and a host name), with its NUL */
#define PKI_NODE_PREFIX "node-" /* node-HOST: the kubelet client certificate of a master */

/* Extended key usages (pki_spec.eku). */
#define PKI_EKU_SERVER (1u << 0) /* id-kp-serverAuth: TLS server */
#define PKI_EKU_CLIENT (1u << 1) /* id-kp-clientAuth: TLS client */

/* What a lint found (pki_lint_* return a mask of these). */
#define PKI_BAD_MISSING (1u << 0) /* no certificate, or one that cannot be read */
#define PKI_BAD_CONTENT (1u << 1) /* names, subject or usages differ from the plan */
#define PKI_BAD_CHAIN   (1u << 2) /* does not verify against ca.pem */
#define PKI_BAD_KEY     (1u << 3) /* the key file holds another key */
#define PKI_BAD_EXPIRY  (1u << 4) /* expired, not yet valid, or expiring within renew_days */
#define PKI_BAD_WEAK    (1u << 5) /* a key too weak to keep (only a new key file cures it) */
#define PKI_BAD_MODE    (1u << 6) /* a key file others may read (pki_dir.c) */

/* A line of a report: what was done to a file or found in it. */
enum pki_kind {
	PKI_INFO,    /* created, kept, ok: stdout */
	PKI_WARN,    /* worth acting on, not a failure of this run: stderr */
	PKI_PROBLEM, /* `check` found it wrong: stdout, exit 1 */
	PKI_ERROR,   /* could not be done: stderr, exit 1 */
};

struct pki_line {
	enum pki_kind kind;
	char *file; /* a name in the directory ("apiserver.pem"), or "" for the directory */
	char *text;
};

struct pki_report {
	struct pki_line *v;
	size_t n;
	size_t nproblems, nerrors;
};

/* An IP address SAN. */
struct pki_ip {
	int family; /* AF_INET or AF_INET6 */
	unsigned char a[16];
};

/* Subject alternative names: DNS names (lower case) and IP addresses. */
struct pki_names {
	char **dns;
	size_t ndns;
	struct pki_ip *ip;
	size_t nip;
};

/* One certificate of the plan. */
struct pki_spec {
	char stem[PKI_STEMLEN]; /* "apiserver" */
	char *cn, *o;           /* subject; o NULL: no O */
	unsigned eku;           /* PKI_EKU_* it must carry, exactly */
	bool client;            /* a client identity: CN and O are checked */
	bool front_proxy;       /* signed by front-proxy-ca, not by ca */
	struct pki_names sans;  /* every one must be present; more are fine */
};

struct pki_plan {
	char *ca_cn;    /* the subject CN of a new CA: "<cluster>-ca" */
	char *fp_ca_cn; /* the subject CN of a new front-proxy CA: "<cluster>-front-proxy-ca" */
	struct pki_spec *v;
	size_t n;
	unsigned ca_days, cert_days, renew_days;
};

/* Operations and what each does with one certificate (pki_decide()). */
enum pki_op { PKI_OP_ISSUE, PKI_OP_CHECK, PKI_OP_RENEW, PKI_OP_ADD_SAN, PKI_OP_REMOVE_SAN };

enum pki_action {
	PKI_KEEP,    /* leave it */
	PKI_NEW,     /* a new key and a certificate for it */
	PKI_ISSUE,   /* the certificate is missing: issue it for the existing key */
	PKI_REISSUE, /* it does not fit the plan: issue it again for the same key */
	PKI_RENEW,   /* expiring (or forced): issue it again for the same key */
	PKI_REFUSE,  /* it cannot be done: nothing to renew, or a CA key of another CA */
};

/* The certificates the description asks for, in the order they are made:
 * etcd-server, etcd-client, apiserver, kubelet-client, controller-manager,
 * scheduler, admin, super-admin, front-proxy-client (signed by
 * front-proxy-ca), and node-HOST for every master. Returns 0, or -EINVAL
 * with *why set when a name in the description cannot be a SAN. */
int pki_plan_build(const struct cp_cluster *c, struct pki_plan *p, const char **why);
void pki_plan_free(struct pki_plan *p);

/* The spec named STEM, or NULL. */
const struct pki_spec *pki_plan_find(const struct pki_plan *p, const char *stem);

/* Add a name: an IPv4 or IPv6 address becomes an IP SAN, anything else a
 * DNS name (letters, digits, '-', '_', '.', a leading "*."; lower-cased).
 * Duplicates are dropped. Returns 0, or -EINVAL when it is neither. */
int pki_names_add(struct pki_names *n, const char *name);

/* Add an address (duplicates are dropped). */
void pki_names_add_ip(struct pki_names *n, const struct pki_ip *ip);

/* Add every name of src to n. */
void pki_names_merge(struct pki_names *n, const struct pki_names *src);

/* Add to out the names of a that b has too (in_b) or has not (!in_b). */
void pki_names_filter(
	const struct pki_names *a, const struct pki_names *b, bool in_b, struct pki_names *out);

/* The SANs of a certificate (DNS and IP; other kinds are ignored). */
void pki_names_of_cert(X509 *x, struct pki_names *n);

bool pki_names_has_dns(const struct pki_names *n, const char *dns);
bool pki_names_has_ip(const struct pki_names *n, const struct pki_ip *ip);

/* "10.0.0.1", "2001:db8::1". buf holds at least 46 bytes. */
const char *pki_ip_format(const struct pki_ip *ip, char *buf, size_t len);

void pki_names_free(struct pki_names *n);

/* A new private key: ECDSA P-256. NULL on failure. */
EVP_PKEY *pki_key_new(void);

/* A self-signed CA certificate for key: CA:TRUE (critical), keyCertSign and
 * cRLSign, SKID and AKID, a random 128-bit serial, valid from five minutes
 * before now for days. subject NULL: CN=cn. Returns NULL with *why set. */
X509 *pki_issue_ca(const X509_NAME *subject, const char *cn, EVP_PKEY *key, time_t now,
	unsigned days, const char **why);

/* A certificate for s and key, signed by ca/ca_key, with the SANs of s plus
 * extra (may be NULL). Valid from five minutes before now for days, never
 * past the CA's own end. Returns NULL with *why set. */
X509 *pki_issue(const struct pki_spec *s, const struct pki_names *extra, EVP_PKEY *key, X509 *ca,
	EVP_PKEY *ca_key, time_t now, unsigned days, const char **why);

/* Lint the CA certificate STEM.pem (PKI_CA or PKI_FP_CA) and, when
 * given, its key: CA constraints, key usage, validity at now and within
 * renew_days, the key pair. One PKI_PROBLEM line per finding, naming
 * STEM.pem or STEM-key.pem. Returns a mask of PKI_BAD_*; PKI_BAD_MISSING
 * alone, and no line, when cert is NULL (the caller knows why it has
 * none). */
unsigned pki_lint_ca(const char *stem, X509 *cert, EVP_PKEY *key, time_t now, unsigned renew_days,
	struct pki_report *r);

/* Lint the certificate of s against the plan: every SAN present, extended
 * key usage exactly s->eku, key usage, not a CA, CN and O of a client,
 * validity at now and within renew_days, the chain to ca (when ca is not
 * NULL: ca.pem, or front-proxy-ca.pem for s->front_proxy), and that key
 * (when not NULL) is its key. One PKI_PROBLEM line per finding, naming the
 * file. Returns PKI_BAD_*, or PKI_BAD_MISSING alone, and no line, when x is
 * NULL. */
unsigned pki_lint_cert(const struct pki_spec *s, X509 *x, EVP_PKEY *key, X509 *ca, time_t now,
	unsigned renew_days, struct pki_report *r);

/* What op does with a certificate (ca: with ca.pem): have_key says whether
 * its key file exists, bad is what the lint found. Keys are never replaced;
 * a CA certificate is never replaced by one for another key. */
enum pki_action pki_decide(enum pki_op op, bool force, bool ca, bool have_key, unsigned bad);

/* "2027-03-01" (UTC). buf holds at least 11 bytes. */
const char *pki_time_format(const ASN1_TIME *t, char *buf, size_t len);

/* The reason for OpenSSL's last error, and the error queue emptied. */
const char *pki_ssl_error(void);

void pki_report_add(struct pki_report *r, enum pki_kind k, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pki_report_free(struct pki_report *r);

#endif
