/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_IMAGE_H
#define WBLAB_IMAGE_H

#include "spec/specs.h"
#include "util/hash.h"

/* A built guest root image in ROOT/images/<name>-<hash12>/root.img. */
struct image_artifact {
	char hash[HASH_HEX_LEN + 1];
	char *dir;
	char *path; /* root.img, raw ext4, read-only base */
};

int image_cache_key(const struct image_spec *s, char *hex);
/* Look up, or build with debootstrap when missing. */
int image_ensure(const struct image_spec *s, struct image_artifact *out,
		 bool *built);
int image_lookup(const struct image_spec *s, struct image_artifact *out);
void image_artifact_free(struct image_artifact *a);

#endif
