/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_COLLECT_CONSOLE_INT_H
#define WBLAB_COLLECT_CONSOLE_INT_H

/*
 * The console parser's insides, shared by its files and by nothing else:
 *   console-patterns.c  the tables: kinds, trigger strings, frames to skip
 *   console-text.c      one line's text: prefixes, frames, title normalising
 *   console-events.c    one recogniser per kind of event
 *   console.c           the state machine: anchors, context, feeding, report
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect/console.h"
#include "util/log.h"

#define FRAME_MAX 64
#define HEAD_MAX 128
#define CTX_MAX_LINES 200 /* lines of the event's own context */
#define CTX_MAX_OTHER 2000 /* lines of other callers while waiting */
#define PREAMBLE_MAX 5000
#define MAX_MEMORY_EVENTS 48 /* oom + alloc_failure; the rest for bugs */

enum kind {
	K_NONE,
	K_OOM,
	K_ALLOC,
	K_STACK,
	K_HUNG,
	K_SOFT,
	K_HARD,
	K_RCU,
	K_OOPS,
	K_PANIC,
	K_WARN,
	K_SAN,
	K_LOCKDEP,
	K_LEAK,
	K_OTHER,
	K_STALL,
	NR_KINDS
};

extern const char *const kind_names[NR_KINDS];

enum anchor {
	A_BUG,
	A_BUGSP,
	A_WARNING,
	A_INFO,
	A_UNABLE,
	A_GPF,
	A_SSEG,
	A_KPANIC,
	A_DFAULT,
	A_KBUG,
	A_KBUG2,
	A_DIVERR,
	A_DIVERR2,
	A_INVOP,
	A_INT3,
	A_OOPS,
	A_INTERR,
	A_UNHF,
	A_ALIGN,
	A_UBSAN,
	A_BOOT,
	A_SEABIOS,
	A_DECOMP,
	A_LINUXVER,
	A_UNREG,
	A_TRUSTY,
	A_RUST,
	A_HARDLOCK,
	A_STKOVF,
	A_GUARD,
	A_INSUFF,
	A_OOMINV,
	A_OOM,
	A_MEMCG,
	A_OOMKILL,
	A_KILLED,
	A_PAF,
	A_VMALLOC,
	A_VMERR,
	A_SYZFAIL,
	A_SYZFATAL,
	A_FATAL,
	A_VFSBUSY,
	A_VFSCLOSE,
	A_KMEMLEAK,
	A_STALL,
	NR_ANCHORS
};

/*
 * Trigger strings (console-patterns.c). koff is the offset of the 2-byte
 * key that the scanner looks up at every position.
 */
struct anchor_def {
	const char *s;
	uint8_t koff;
};

extern const struct anchor_def anchors[NR_ANCHORS];

#define NR_MSG_DELIMS 8
extern const char *const msg_delims[NR_MSG_DELIMS];

/* Event flags. */
#define F_HFUNC 0x01 /* prefer the function named on line one */
#define F_NOFUNC 0x02 /* title takes no function */
#define F_TRACEFUNC 0x04 /* ignore RIP, use the call trace */
#define F_DFAULT 0x08 /* double fault: kind decided at the end */
#define F_SKIP_HUNG 0x10
#define F_SKIP_MEM 0x20
#define F_SKIP_LEAK 0x40
#define F_TENTATIVE 0x80 /* dropped unless confirmed by a later line */

struct bev {
	enum kind kind;
	unsigned int flags;
	long line;
	char head[HEAD_MAX];
	char hfunc[FRAME_MAX];
	char rip[FRAME_MAX];
	char access[8];
	char caller[16];
	int nr_frames;
	char frames[CONSOLE_MAX_FRAMES][FRAME_MAX];
	/* double fault */
	unsigned long long rsp, cr2;
	bool have_rsp, have_cr2, so_evidence;
	bool q_frames; /* frames[] holds only "? " frames */
	/* oom */
	bool oom_constraint, oom_victim, oom_panic, oom_memcg;
	json_object *detail;
};

struct line {
	const char *raw;
	size_t rlen;
	const char *s; /* without console prefixes */
	size_t len;
	char caller[16];
	bool has_ts, ts_zero;
	uint64_t hits;
	uint16_t pos[NR_ANCHORS]; /* offsets into raw */
};

struct console_parser {
	uint64_t kbits[(1u << 16) / 64]; /* key pairs in use (fits L1) */
	int8_t kfirst[1u << 16]; /* key pair -> first anchor, or -1 */
	int8_t knext[NR_ANCHORS]; /* next anchor with the same key */
	uint8_t alen[NR_ANCHORS];

	char lbuf[CONSOLE_LINE_MAX];
	size_t llen;
	bool lover;

	size_t bytes;
	long lineno;

	struct bev *ev;
	int nr_ev, nr_mem_ev;
	size_t dropped;
	int ctx; /* event whose following lines we read, or -1 */
	int ctx_lines, ctx_other;
	bool ctx_trace, ctx_frames;
	int last_oom;
	int df, df_lines; /* double fault waiting for its RSP/CR2 */

	bool seen, preamble;
	int preamble_lines;

	struct stall_state *stall; /* console-stall.c, NULL until a marker */
};

/* A bounded output buffer for titles. */
struct obuf {
	char *buf;
	size_t cap, len;
};

/* ---- small string helpers ---- */

static inline const char *memstr(const char *h, size_t hl, const char *n)
{
	return memmem(h, hl, n, strlen(n));
}

static inline bool has(const char *h, size_t hl, const char *n)
{
	return memstr(h, hl, n) != NULL;
}

static inline bool starts(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s, p, n);
}

static inline bool is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static inline bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_xdigit(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline size_t skip_sp(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static inline bool hit(const struct line *l, int a)
{
	return l->hits & (1ull << a);
}

/* Text of the line from anchor a on. */
static inline const char *at(const struct line *l, int a, size_t *len)
{
	*len = l->rlen - l->pos[a];
	return l->raw + l->pos[a];
}

static inline void ctx_close(struct console_parser *p)
{
	p->ctx = -1;
}

static inline bool is_memory_kind(enum kind k)
{
	return k == K_OOM || k == K_ALLOC;
}

static inline struct bev *ctx_event(struct console_parser *p)
{
	return p->ctx >= 0 ? &p->ev[p->ctx] : NULL;
}

/* console-text.c */
size_t copy_func(char *dst, const char *s, size_t len);
char *dup_clean(const char *s, size_t len);
bool is_trace_marker(const char *s, size_t len);
bool is_trace_start(const char *s, size_t len);
void onorm(struct obuf *o, const char *s, size_t len);
void oputs(struct obuf *o, const char *s);
int parse_frame(const char *s, size_t len, char *func);
bool parse_rip(const char *s, size_t len, char *func);
void set_head(struct bev *e, const char *prefix, const char *s, size_t len);
size_t skip_addr_tags(const char *s, size_t len, size_t i);
void strip_prefix(struct line *l);

/* console-patterns.c */
const char *guilty(const struct bev *e);

/* console.c: the last line (no newline) read, the event closed */
void console_parser_flush(struct console_parser *p);

/* console-events.c */
bool boot_line(struct console_parser *p, const struct line *l);
bool bug_line(struct console_parser *p, const struct line *l);
bool ctx_is_oops(struct console_parser *p, int max_lines);
size_t cut(const char *s, size_t len, const char *const *delims, size_t n);
bool info_line(struct console_parser *p, const struct line *l);
bool is_user_trap(const struct line *l);
struct bev *new_event(struct console_parser *p, const struct line *l,
		      enum kind kind, unsigned int flags);
bool other_line(struct console_parser *p, const struct line *l);
bool panic_line(struct console_parser *p, const struct line *l);
bool simple_oops(struct console_parser *p, const struct line *l,
		 const char *head, unsigned int flags);
bool slub_line(struct console_parser *p, const struct line *l);
bool stack_evidence(struct console_parser *p, const struct line *l);
bool warning_line(struct console_parser *p, const struct line *l);

/* console-stall.c: the watcher's dumps (agent/watch.c) */
bool stall_marker(struct console_parser *p, const struct line *l);
bool stall_reading(const struct console_parser *p);
void stall_dump_line(struct console_parser *p, const struct line *l);
/* The stall event, if the two dumps share stuck tasks: at finish. */
void stall_finish(struct console_parser *p);

/* console-oom.c */
bool alloc_line(struct console_parser *p, const struct line *l);
bool oom_line(struct console_parser *p, const struct line *l);
/* An OOM report is open (no oom-kill: line or victim yet). */
bool oom_reading(const struct console_parser *p);
/* Its Mem-Info: dirty and writeback file pages left (detail fields). */
void oom_meminfo_line(struct console_parser *p, const struct line *l);
#endif
