/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STR_H
#define WBLAB_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/*
 * Prefix tests, as git's (git-compat-util.h): the literal is written once
 * and its length is never counted by hand. Header-only, so the guest
 * agent (libc only) has them too.
 */

/* s, or def when s is NULL (a field the results model has not). */
static inline const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

static inline bool starts_with(const char *str, const char *prefix)
{
	return !strncmp(str, prefix, strlen(prefix));
}

/*
 * If str starts with prefix, point *out just past it (when out is not
 * NULL) and return true; otherwise leave *out alone and return false.
 */
static inline bool skip_prefix(const char *str, const char *prefix,
			       const char **out)
{
	do {
		if (!*prefix) {
			if (out)
				*out = str;
			return true;
		}
	} while (*str++ == *prefix++);
	return false;
}

/*
 * The same on a buffer of len bytes that need not end in NUL: *out and
 * *outlen become the rest of it.
 */
static inline bool skip_prefix_mem(const char *buf, size_t len,
				   const char *prefix, const char **out,
				   size_t *outlen)
{
	size_t n = strlen(prefix);

	if (len < n || memcmp(buf, prefix, n))
		return false;
	*out = buf + n;
	*outlen = len - n;
	return true;
}

#endif
