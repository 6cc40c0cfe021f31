/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_STRBUF_H
#define WBLAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/types.h>

/* A growable, always NUL-terminated byte buffer (after git's strbuf). */
struct strbuf {
	size_t alloc;
	size_t len;
	char *buf;
};

#define STRBUF_INIT                  \
	{                            \
		0, 0, strbuf_slopbuf \
	}
extern char strbuf_slopbuf[];

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void strbuf_trim_trailing(struct strbuf *sb);
/* Read the whole of fd; returns bytes read or -1 with errno set. */
ssize_t strbuf_read_fd(struct strbuf *sb, int fd);
int strbuf_read_file(struct strbuf *sb, const char *path);

#endif
