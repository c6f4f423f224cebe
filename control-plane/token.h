/* `cpha token`: bootstrap tokens, with which a new worker's kubelet asks
 * the apiserver for its client certificate (TLS bootstrapping). This
 * module holds what needs no I/O: the token's form, its lifetime, the
 * Secret that stores it and the worker's bootstrap kubeconfig; token_cmd.c
 * is the command.
 *
 * The formats are Kubernetes':
 * https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/ and kubeadm's (`kubeadm
 * token create`). */
#ifndef CPHA_TOKEN_H
#define CPHA_TOKEN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <openssl/x509.h>

#include "buf.h"

#define TOKEN_ID_LEN          6                                     /* [a-z0-9]{6} */
#define TOKEN_SECRET_LEN      16                                    /* [a-z0-9]{16} */
#define TOKEN_LEN             (TOKEN_ID_LEN + 1 + TOKEN_SECRET_LEN) /* ID.SECRET */
#define TOKEN_TTL_DEFAULT     (24 * 3600)                           /* kubeadm's --ttl 24h */
/* The group the tokens cpha makes put their users in, besides
 * system:bootstrappers; cluster/bootstrap-rbac.yaml binds it (kubeadm's is
 * system:bootstrappers:kubeadm:default-node-token). */
#define TOKEN_GROUP           "system:bootstrappers:cpha:default-node-token"
/* The user of the bootstrap kubeconfig, as kubeadm names it. */
#define TOKEN_KUBECONFIG_USER "tls-bootstrap-token-user"

/* A new token "ID.SECRET" from the CSPRNG (OpenSSL's RAND_bytes), each
 * character uniform over [a-z0-9]. out holds TOKEN_LEN + 1 bytes.
 * Returns 0, or -1 when no random bytes could be had. */
int token_generate(char *out);

/* s has the form [a-z0-9]{6}.[a-z0-9]{16}. */
bool token_valid(const char *s);

/* A lifetime as `kubeadm token create --ttl` takes it (a Go duration):
 * numbers with units h, m, s ("24h", "1h30m", "90s", "0"). 0 means the
 * token never expires. Returns 0 with *secs set, or -1 with *why. */
int token_parse_ttl(const char *s, long long *secs, const char **why);

/* t as RFC 3339 in UTC ("2026-11-29T18:00:00Z"). buf holds at least 21
 * bytes. Returns buf. */
const char *token_rfc3339(time_t t, char *buf, size_t len);

/* The Secret kube-system/bootstrap-token-ID of type
 * bootstrap.kubernetes.io/token for token, as YAML for `kubectl apply
 * -f -`: both usages "true", auth-extra-groups TOKEN_GROUP, description
 * (may be NULL), expiration now + ttl (none when ttl is 0).
 * Returns 0, or a negative errno. */
int token_secret_yaml(
	struct cpha_buf *b, const char *token, const char *description, time_t now, long long ttl);

/* A kubeconfig that reaches server (https://NAME:PORT) trusting ca_pem
 * (embedded) and authenticating with token, for cluster. Returns 0, or a
 * negative errno. */
int token_kubeconfig(struct cpha_buf *b, const char *cluster, const char *server,
	const char *ca_pem, size_t ca_len, const char *token);

/* "sha256:HEX" of ca's SubjectPublicKeyInfo: what `kubeadm join
 * --discovery-token-ca-cert-hash` pins. buf holds at least 72 bytes.
 * Returns 0 or -1. */
int token_ca_hash(X509 *ca, char *buf, size_t len);

#endif
