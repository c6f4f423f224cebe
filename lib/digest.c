/* SHA-256 of loaded configurations (OpenSSL's EVP one-shot digest). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"
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
	struct cpha_buf b = { 0 };
	char chunk[16384];
	int fd, r = 0;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (cpha_buf_append(&b, chunk, (size_t)n) < 0) {
			r = -ENOMEM;
			break;
		}
	}
	close(fd);
	if (r == 0)
		r = cpha_digest_hex(b.data ? b.data : "", b.len, out);
	cpha_buf_free(&b);
	return r;
}
