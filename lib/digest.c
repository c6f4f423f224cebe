/* SHA-256 of loaded configurations (OpenSSL's EVP one-shot digest). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "digest.h"

int cpha_digest_hex(const void *p, size_t len, char out[CPHA_DIGEST_HEXLEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!EVP_Digest(p, len, md, &n, EVP_sha256(), NULL) || n != 32)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int cpha_digest_file(const char *path, char out[CPHA_DIGEST_HEXLEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char chunk[65536];
	int fd, r = 0;
	ssize_t got;

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		r = -errno;
		EVP_MD_CTX_free(ctx);
		return r;
	}
	/* a piece at a time: an etcd snapshot may be gigabytes */
	while ((got = read(fd, chunk, sizeof(chunk))) != 0) {
		if (got == -1) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (!EVP_DigestUpdate(ctx, chunk, (size_t)got)) {
			r = -ENOMEM;
			break;
		}
	}
	close(fd);
	if (r == 0 && (!EVP_DigestFinal_ex(ctx, md, &n) || n != 32))
		r = -ENOMEM;
	EVP_MD_CTX_free(ctx);
	for (unsigned i = 0; r == 0 && i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return r;
}
