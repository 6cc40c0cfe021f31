/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_LOG_H
#define WBLAB_LOG_H

#include <stdbool.h>
#include <stddef.h>

#define WBLAB_VERSION "0.1"

/* Messages go to stderr, prefixed with the program name; die() exits 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int log_quiet;

void *xmalloc(size_t n);
void *xzalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Monotonic clock in seconds. */
double now_mono(void);
/* Wall clock as ISO 8601 UTC. */
void now_iso8601(char *buf, size_t len);

#endif
