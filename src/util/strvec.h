/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STRVEC_H
#define WBLAB_STRVEC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A NULL-terminated array of owned strings, built by pushing (after git's
 * strvec). Every argv wblab execs is one of these: no capacity guesses, no
 * silent truncation. v is never NULL, so an empty strvec is a valid argv.
 */
struct strvec {
	const char **v;
	size_t nr;
	size_t alloc;
};

extern const char *strvec_empty[];
#define STRVEC_INIT                \
	{                          \
		strvec_empty, 0, 0 \
	}

void strvec_init(struct strvec *sv);
const char *strvec_push(struct strvec *sv, const char *s);
const char *strvec_pushf(struct strvec *sv, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Push each of a NULL-terminated list. */
void strvec_pushl(struct strvec *sv, ...) __attribute__((sentinel));
void strvec_pushv(struct strvec *sv, const char *const *v);
void strvec_pop(struct strvec *sv);
void strvec_clear(struct strvec *sv);
/* Is s one of sv's strings (strcmp)? A linear scan: for short lists. */
bool strvec_has(const struct strvec *sv, const char *s);
/* Hand the array to the caller (free each string and the array). */
const char **strvec_detach(struct strvec *sv);

#endif
