/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_HASH_H
#define WBLAB_HASH_H

#include <stddef.h>

#define HASH_HEX_LEN 64

/* SHA-256 accumulated over labelled parts: cache keys name what went in. */
struct hasher;

struct hasher *hasher_new(void);
void hasher_add(struct hasher *h, const void *data, size_t len);
void hasher_add_str(struct hasher *h, const char *label, const char *value);
/* Hash a file's contents, labelled; returns -1 if it cannot be read. */
int hasher_add_file(struct hasher *h, const char *label, const char *path);
/* Finish into hex (HASH_HEX_LEN + 1 bytes) and free the hasher. */
void hasher_finish(struct hasher *h, char *hex);
/*
 * A labelled digest of a file: SHA-256 over a label and the contents, so
 * it never equals the file's SHA-256 (it names inputs of cache keys).
 */
int hash_file_hex(const char *path, char *hex);
/* hash_file_hex() of a file holding these contents. */
void hash_data_hex(const void *data, size_t len, char *hex);
/* The file's plain SHA-256, as sha256sum prints it. */
int sha256_file_hex(const char *path, char *hex);

#endif
