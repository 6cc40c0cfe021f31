// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/log.h"

struct hasher {
	EVP_MD_CTX *ctx;
};

struct hasher *hasher_new(void)
{
	struct hasher *h = xzalloc(sizeof(*h));

	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || !EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL))
		die("cannot initialise SHA-256");
	return h;
}

void hasher_add(struct hasher *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void hasher_add_str(struct hasher *h, const char *label, const char *value)
{
	char len[32];

	/* Length-prefix both parts so ("ab","c") and ("a","bc") differ. */
	snprintf(len, sizeof(len), "%zu:", strlen(label));
	hasher_add(h, len, strlen(len));
	hasher_add(h, label, strlen(label));
	value = value ? value : "";
	snprintf(len, sizeof(len), "%zu:", strlen(value));
	hasher_add(h, len, strlen(len));
	hasher_add(h, value, strlen(value));
}

int hasher_add_file(struct hasher *h, const char *label, const char *path)
{
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	hasher_add_str(h, "file", label);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		hasher_add(h, buf, n);
	close(fd);
	return n < 0 ? -1 : 0;
}

/* Contents already read, as hasher_add_file() adds a file holding them. */
static void hasher_add_data(struct hasher *h, const char *label,
			    const void *data, size_t len)
{
	hasher_add_str(h, "file", label);
	hasher_add(h, data, len);
}

void hasher_finish(struct hasher *h, char *hex)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	EVP_DigestFinal_ex(h->ctx, md, &len);
	for (unsigned int i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	hex[2 * len] = '\0';
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int hash_file_hex(const char *path, char *hex)
{
	struct hasher *h = hasher_new();
	int ret = hasher_add_file(h, "", path);

	hasher_finish(h, hex);
	return ret;
}

void hash_data_hex(const void *data, size_t len, char *hex)
{
	struct hasher *h = hasher_new();

	hasher_add_data(h, "", data, len);
	hasher_finish(h, hex);
}

int sha256_file_hex(const char *path, char *hex)
{
	struct hasher *h = hasher_new();
	char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = -1;

	if (fd >= 0) {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			hasher_add(h, buf, n);
		close(fd);
	}
	hasher_finish(h, hex);
	return n < 0 ? -1 : 0;
}
