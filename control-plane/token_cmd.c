/* `cpha token create`: a new bootstrap token, its Secret on stdout for
 * `kubectl apply -f -`, and the worker's bootstrap kubeconfig in a file. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/pem.h>

#include "cpha.h"
#include "fileio.h"
#include "flags.h"
#include "pki.h"
#include "token.h"

#define TOKEN_DEFAULT_PKI        "pki"
#define TOKEN_DEFAULT_KUBECONFIG "bootstrap-kubelet.conf" /* kubeadm's name on a worker */
#define MAX_CA                   (1 << 20)

static void usage(FILE *f)
{
	fprintf(f, "usage: cpha [-f FILE] token create [--ttl DURATION] [--description TEXT]\n"
		   "                  [--print-join-command] [--pki DIR] [--kubeconfig FILE]\n"
		   "  --ttl DURATION      lifetime, e.g. 24h (the default), 1h30m; 0: no expiry\n"
		   "  --description TEXT  stored in the Secret\n"
		   "  --print-join-command  print kubeadm's join command on stderr\n"
		   "  --pki DIR           where ca.pem is (default ./" TOKEN_DEFAULT_PKI ")\n"
		   "  --kubeconfig FILE   the worker's bootstrap kubeconfig (default "
		   "./" TOKEN_DEFAULT_KUBECONFIG ")\n"
		   "The Secret goes to stdout: cpha token create | kubectl apply -f -\n");
}

/* The whole of path (at most MAX_CA bytes): 0, or -1 after saying why. */
static int read_file(const char *path, struct cpha_buf *data)
{
	int r = cpha_buf_read_file(data, path, 0, MAX_CA);

	if (r < 0)
		fprintf(stderr, "cpha token: %s: %s\n", path,
			r == -EFBIG ? "larger than 1 MiB" : strerror(-r));
	return r < 0 ? -1 : 0;
}

/* Write data to path, mode 0600 (it holds a credential), whole. */
static int write_file(const char *path, const char *data, size_t len)
{
	int r = cpha_write_file_atomic(path, data, len, 0600, (uid_t)-1, (gid_t)-1);

	if (r < 0)
		fprintf(stderr, "cpha token: %s: %s\n", path, strerror(-r));
	return r < 0 ? -1 : 0;
}

static int create(const char *file, const char *pki, const char *kubeconfig, long long ttl,
	const char *description, bool join)
{
	struct cpha_buf secret = { 0 }, kc = { 0 }, server = { 0 };
	char token[TOKEN_LEN + 1], path[4096], hash[80], when[32];
	struct cp_cluster *c = NULL;
	struct cpha_buf ca_pem = { 0 };
	X509 *ca = NULL;
	BIO *bio = NULL;
	time_t now = time(NULL);
	int rc = CPHA_EXIT_FAIL;

	c = cpha_load(file);
	if (!c)
		goto out;
	snprintf(path, sizeof(path), "%s/%s.pem", pki, PKI_CA);
	if (read_file(path, &ca_pem) < 0)
		goto out;
	bio = BIO_new_mem_buf(ca_pem.data, (int)ca_pem.len);
	ca = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
	if (!ca) {
		fprintf(stderr, "cpha token: %s: not a PEM certificate (%s)\n", path,
			pki_ssl_error());
		goto out;
	}
	if (token_generate(token) < 0) {
		fprintf(stderr, "cpha token: no random bytes: %s\n", pki_ssl_error());
		goto out;
	}
	if (flags_url(&server, "https", c->api_name, c->api_port) < 0 ||
		token_secret_yaml(&secret, token, description, now, ttl) < 0 ||
		token_kubeconfig(&kc, c->name, server.data, ca_pem.data, ca_pem.len, token) < 0 ||
		token_ca_hash(ca, hash, sizeof(hash)) < 0) {
		fprintf(stderr, "cpha token: out of memory\n");
		goto out;
	}
	if (write_file(kubeconfig, kc.data, kc.len) < 0)
		goto out;
	if (fwrite(secret.data, 1, secret.len, stdout) != secret.len || fflush(stdout)) {
		fprintf(stderr, "cpha token: stdout: %s\n", strerror(errno));
		goto out;
	}
	fprintf(stderr, "cpha token: %s: the bootstrap kubeconfig for %s, %s\n", kubeconfig,
		server.data,
		ttl ? token_rfc3339(now + (time_t)ttl, when, sizeof(when)) : "no expiry");
	if (join)
		fprintf(stderr, "kubeadm join %s:%u --token %s --discovery-token-ca-cert-hash %s\n",
			c->api_name, c->api_port, token, hash);
	rc = CPHA_EXIT_OK;
out:
	OPENSSL_cleanse(token, sizeof(token));
	if (secret.data)
		OPENSSL_cleanse(secret.data, secret.len);
	if (kc.data)
		OPENSSL_cleanse(kc.data, kc.len);
	cpha_buf_free(&secret);
	cpha_buf_free(&kc);
	cpha_buf_free(&server);
	X509_free(ca);
	BIO_free(bio);
	cpha_buf_free(&ca_pem);
	if (c)
		cluster_free(c);
	return rc;
}

int cmd_token(int argc, char **argv, const char *file)
{
	static const struct option opts[] = {
		{ "ttl", required_argument, NULL, 't' },
		{ "description", required_argument, NULL, 'D' },
		{ "print-join-command", no_argument, NULL, 'j' },
		{ "pki", required_argument, NULL, 'p' },
		{ "kubeconfig", required_argument, NULL, 'k' },
		{ "file", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pki = TOKEN_DEFAULT_PKI, *kubeconfig = TOKEN_DEFAULT_KUBECONFIG;
	const char *description = NULL, *why = NULL;
	long long ttl = TOKEN_TTL_DEFAULT;
	bool join = false;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "f:h", opts, NULL)) != -1) {
		switch (ch) {
		case 't':
			if (token_parse_ttl(optarg, &ttl, &why) < 0) {
				fprintf(stderr, "cpha token: --ttl %s: %s\n", optarg, why);
				return CPHA_EXIT_USAGE;
			}
			break;
		case 'D':
			description = optarg;
			break;
		case 'j':
			join = true;
			break;
		case 'p':
			pki = optarg;
			break;
		case 'k':
			kubeconfig = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 'h':
			usage(stdout);
			return CPHA_EXIT_OK;
		default:
			usage(stderr);
			return CPHA_EXIT_USAGE;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "create")) {
		if (optind < argc)
			fprintf(stderr, "cpha token: unknown command '%s'\n", argv[optind]);
		usage(stderr);
		return CPHA_EXIT_USAGE;
	}
	if (optind + 1 < argc) {
		fprintf(stderr, "cpha token: unexpected argument '%s'\n", argv[optind + 1]);
		return CPHA_EXIT_USAGE;
	}
	return create(file, pki, kubeconfig, ttl, description, join);
}
