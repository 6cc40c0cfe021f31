// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel console-log parser.
 *
 * The input is untrusted bytes. It is cut into lines of at most
 * CONSOLE_LINE_MAX bytes (the rest of a longer line is dropped), so the same
 * bytes give the same result however they are split into feed() calls.
 *
 * Speed: while no event is being read, whole buffers are scanned for the
 * trigger strings ("anchors") with a 4-byte rolling hash filter; only lines
 * holding an anchor are looked at in detail. After an event's first line
 * the following lines are read one by one (bounded) to pick up the RIP,
 * the call trace and a few kind-specific fields.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/console.h"
#include "util/log.h"

#define FRAME_MAX 64
#define HEAD_MAX 128
#define CTX_MAX_LINES 200	/* lines of the event's own context */
#define CTX_MAX_OTHER 2000	/* lines of other callers while waiting */
#define PREAMBLE_MAX 5000
#define MAX_MEMORY_EVENTS 48	/* oom + alloc_failure; the rest for bugs */

enum kind {
	K_NONE, K_OOM, K_ALLOC, K_STACK, K_HUNG, K_SOFT, K_HARD, K_RCU,
	K_OOPS, K_PANIC, K_WARN, K_SAN, K_LOCKDEP, K_LEAK, K_OTHER, NR_KINDS
};

static const char *const kind_names[NR_KINDS] = {
	[K_NONE] = "none", [K_OOM] = "oom", [K_ALLOC] = "alloc_failure",
	[K_STACK] = "stack_overflow", [K_HUNG] = "hung_task",
	[K_SOFT] = "soft_lockup", [K_HARD] = "hard_lockup",
	[K_RCU] = "rcu_stall", [K_OOPS] = "oops", [K_PANIC] = "panic",
	[K_WARN] = "warning", [K_SAN] = "sanitizer", [K_LOCKDEP] = "lockdep",
	[K_LEAK] = "leak", [K_OTHER] = "other",
};

enum anchor {
	A_BUG, A_BUGSP, A_WARNING, A_INFO, A_UNABLE, A_GPF, A_SSEG, A_KPANIC,
	A_DFAULT, A_KBUG, A_KBUG2, A_DIVERR, A_DIVERR2, A_INVOP, A_INT3, A_OOPS, A_INTERR,
	A_UNHF, A_ALIGN, A_UBSAN, A_BOOT, A_SEABIOS, A_DECOMP, A_LINUXVER,
	A_UNREG, A_TRUSTY, A_RUST, A_HARDLOCK, A_STKOVF, A_GUARD, A_INSUFF,
	A_OOMINV, A_OOM, A_MEMCG, A_OOMKILL, A_KILLED, A_PAF, A_VMALLOC,
	A_VMERR, A_SYZFAIL, A_SYZFATAL, A_FATAL, A_VFSBUSY, A_VFSCLOSE,
	A_KMEMLEAK, NR_ANCHORS
};

/*
 * Trigger strings. koff is the offset of the 2-byte key that the scanner
 * looks up at every position: the anchor's rarest byte pair in console
 * output (measured on the corpus), so few positions need a closer look.
 */
static const struct anchor_def {
	const char *s;
	uint8_t koff;
} anchors[NR_ANCHORS] = {
	[A_BUG] = { "BUG:", 1 },
	[A_BUGSP] = { "BUG ", 2 },
	[A_WARNING] = { "WARNING:", 5 },
	[A_INFO] = { "INFO:", 3 },
	[A_UNABLE] = { "Unable to handle kernel", 0 },
	[A_GPF] = { "general protection fault", 22 },
	[A_SSEG] = { "stack segment: ", 8 },
	[A_KPANIC] = { "Kernel panic", 0 },
	[A_DFAULT] = { "PANIC: double fault", 4 },
	[A_KBUG] = { "kernel BUG at", 9 },
	[A_KBUG2] = { "Kernel BUG at", 9 },
	[A_DIVERR] = { "divide error:", 11 },
	[A_DIVERR2] = { "divide_error:", 11 },
	[A_INVOP] = { "invalid opcode:", 1 },
	[A_INT3] = { "int3: ", 2 },
	[A_OOPS] = { "Oops:", 0 },
	[A_INTERR] = { "Internal error:", 0 },
	[A_UNHF] = { "Unhandled fault", 1 },
	[A_ALIGN] = { "Alignment trap", 0 },
	[A_UBSAN] = { "UBSAN:", 0 },
	[A_BOOT] = { "Booting the kernel", 0 },
	[A_SEABIOS] = { "SeaBIOS (version", 2 },
	[A_DECOMP] = { "Decompressing Linux", 14 },
	[A_LINUXVER] = { "Linux version ", 0 },
	[A_UNREG] = { "unregister_netdevice: waiting for", 1 },
	[A_TRUSTY] = { "trusty: panic", 5 },
	[A_RUST] = { "rust_kernel: panicked", 10 },
	[A_HARDLOCK] = { "hard LOCKUP", 8 },
	[A_STKOVF] = { "stack overflow", 10 },
	[A_GUARD] = { "stack guard page", 7 },
	[A_INSUFF] = { "Insufficient stack space", 0 },
	[A_OOMINV] = { "invoked oom-killer", 11 },
	[A_OOM] = { "Out of memory", 0 },
	[A_MEMCG] = { "Memory cgroup out of memory", 0 },
	[A_OOMKILL] = { "oom-kill:", 3 },
	[A_KILLED] = { "Killed process", 0 },
	[A_PAF] = { "page allocation failure", 19 },
	[A_VMALLOC] = { "vmalloc: allocation failure", 23 },
	[A_VMERR] = { "vmalloc error:", 0 },
	[A_SYZFAIL] = { "SYZFAIL:", 2 },
	[A_SYZFATAL] = { "SYZFATAL:", 2 },
	[A_FATAL] = { "fatal error:", 10 },
	[A_VFSBUSY] = { "VFS: Busy inodes", 0 },
	[A_VFSCLOSE] = { "VFS: Close: file count is", 5 },
	[A_KMEMLEAK] = { "unreferenced object 0x", 1 },
};

/* Event flags. */
#define F_HFUNC		0x01	/* prefer the function named on line one */
#define F_NOFUNC	0x02	/* title takes no function */
#define F_TRACEFUNC	0x04	/* ignore RIP, use the call trace */
#define F_DFAULT	0x08	/* double fault: kind decided at the end */
#define F_SKIP_HUNG	0x10
#define F_SKIP_MEM	0x20
#define F_SKIP_LEAK	0x40
#define F_TENTATIVE	0x80	/* dropped unless confirmed by a later line */

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
	bool q_frames;		/* frames[] holds only "? " frames */
	/* oom */
	bool oom_constraint, oom_victim, oom_panic, oom_memcg;
	json_object *detail;
};

struct line {
	const char *raw;
	size_t rlen;
	const char *s;		/* without console prefixes */
	size_t len;
	char caller[16];
	bool has_ts, ts_zero;
	uint64_t hits;
	uint16_t pos[NR_ANCHORS];	/* offsets into raw */
};

struct console_parser {
	uint64_t kbits[(1u << 16) / 64];	/* key pairs in use (fits L1) */
	int8_t kfirst[1u << 16];	/* key pair -> first anchor, or -1 */
	int8_t knext[NR_ANCHORS];	/* next anchor with the same key */
	uint8_t alen[NR_ANCHORS];

	char lbuf[CONSOLE_LINE_MAX];
	size_t llen;
	bool lover;

	size_t bytes;
	long lineno;

	struct bev *ev;
	int nr_ev, nr_mem_ev;
	size_t dropped;
	int ctx;		/* event whose following lines we read, or -1 */
	int ctx_lines, ctx_other;
	bool ctx_trace, ctx_frames;
	int last_oom;
	int df, df_lines;	/* double fault waiting for its RSP/CR2 */

	bool seen, preamble;
	int preamble_lines;
};

/* ---- small string helpers ---- */

static const char *memstr(const char *h, size_t hl, const char *n)
{
	return memmem(h, hl, n, strlen(n));
}

static bool has(const char *h, size_t hl, const char *n)
{
	return memstr(h, hl, n) != NULL;
}

static bool starts(const char *s, size_t len, const char *p)
{
	size_t n = strlen(p);

	return len >= n && !memcmp(s, p, n);
}

static bool is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static size_t skip_sp(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* Length of a valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;
	if (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0;
	if (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return 0;
	if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)
		return 0;
	return n;
}

/* A bounded output buffer for titles. */
struct obuf {
	char *buf;
	size_t cap, len;
};

static void oput(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n >= o->cap)
		n = o->cap - 1 - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

static void oputs(struct obuf *o, const char *s)
{
	oput(o, s, strlen(s));
}

/*
 * Copy text into a title: valid UTF-8 only, whitespace collapsed, numbers
 * replaced by NUM and long hex words (addresses) by ADDR, so that titles
 * do not change from run to run.
 */
static void onorm(struct obuf *o, const char *s, size_t len)
{
	size_t i = 0, j, n;
	const unsigned char *u = (const unsigned char *)s;

	while (i < len) {
		int c = u[i];
		bool word_start = !i || !is_ident(u[i - 1]);

		if (c == ' ' || c == '\t' || c < 0x20 || c == 0x7f) {
			if (o->len && o->buf[o->len - 1] != ' ')
				oput(o, " ", 1);
			i++;
			continue;
		}
		if (word_start && is_xdigit(c)) {
			for (j = i; j < len && (is_xdigit(u[j]) || u[j] == 'x' ||
						u[j] == 'X');
			     j++)
				;
			if (is_digit(c)) {
				oputs(o, "NUM");
				while (i < len && is_digit(u[i]))
					i++;
				if (i < j && (u[i] == 'x' || u[i] == 'X'))
					i = j;	/* 0x... */
				continue;
			}
			if (j < len && is_ident(u[j]))
				goto copy_word;
			if (j - i >= 8) {
				oputs(o, "ADDR");
				i = j;
				continue;
			}
		}
copy_word:
		if (c < 0x80) {
			oput(o, s + i, 1);
			i++;
			continue;
		}
		n = utf8_len(u + i, len - i);
		if (!n) {
			oput(o, "?", 1);
			i++;
			continue;
		}
		oput(o, s + i, n);
		i += n;
	}
	while (o->len && o->buf[o->len - 1] == ' ')
		o->buf[--o->len] = '\0';
}

static void set_head(struct bev *e, const char *prefix, const char *s,
		     size_t len)
{
	struct obuf o = { e->head, sizeof(e->head), 0 };

	e->head[0] = '\0';
	oputs(&o, prefix);
	if (s)
		onorm(&o, s, len);
}

/* Safe copy of an untrusted string for JSON/C use. */
static char *dup_clean(const char *s, size_t len)
{
	char tmp[CONSOLE_LINE_MAX + 1];
	struct obuf o = { tmp, sizeof(tmp), 0 };
	size_t i = 0, n;
	const unsigned char *u = (const unsigned char *)s;

	tmp[0] = '\0';
	while (i < len) {
		if (u[i] < 0x20 || u[i] == 0x7f) {
			oput(&o, "?", 1);
			i++;
			continue;
		}
		n = utf8_len(u + i, len - i);
		oput(&o, n ? s + i : "?", n ? n : 1);
		i += n ? n : 1;
	}
	return xstrdup(tmp);
}

/* ---- anchors ---- */

static unsigned int load16(const void *p)
{
	const unsigned char *u = p;

	return u[0] | u[1] << 8;
}

static void anchors_init(struct console_parser *p)
{
	int a;

	memset(p->kfirst, -1, sizeof(p->kfirst));
	for (a = NR_ANCHORS - 1; a >= 0; a--) {
		unsigned int k = load16(anchors[a].s + anchors[a].koff);

		p->alen[a] = strlen(anchors[a].s);
		p->knext[a] = p->kfirst[k];
		p->kfirst[k] = a;
		p->kbits[k / 64] |= 1ull << (k % 64);
	}
}

static bool key_hit(const struct console_parser *p, const void *s)
{
	unsigned int k = load16(s);

	return p->kbits[k / 64] & (1ull << (k % 64));
}

/*
 * The next anchor (after from, -1 to start) whose key is at s[i] and that
 * lies wholly inside s[0..len), or -1. *start is set to its offset.
 */
static int anchor_at(const struct console_parser *p, const char *s,
		     size_t len, size_t i, int from, size_t *start)
{
	int a = from < 0 ? p->kfirst[load16(s + i)] : p->knext[from];

	for (; a >= 0; a = p->knext[a]) {
		size_t st = i - anchors[a].koff;

		if (anchors[a].koff > i || st + p->alen[a] > len)
			continue;
		if (!memcmp(s + st, anchors[a].s, p->alen[a])) {
			*start = st;
			return a;
		}
	}
	return -1;
}

/* Words that only count when not glued to a preceding word (ODEBUG:). */
static bool anchor_bounded(int a)
{
	return a == A_BUG || a == A_WARNING || a == A_INFO || a == A_OOPS ||
	       a == A_BUGSP;
}

static void find_anchors(const struct console_parser *p, struct line *l)
{
	const char *r = l->raw;
	size_t i, st;

	l->hits = 0;
	for (i = 0; i + 1 < l->rlen; i++) {
		int a = -1;

		if (!key_hit(p, r + i))
			continue;
		while ((a = anchor_at(p, r, l->rlen, i, a, &st)) >= 0) {
			if (l->hits & (1ull << a))
				continue;
			if (anchor_bounded(a) && st && is_ident(r[st - 1]))
				continue;
			l->hits |= 1ull << a;
			l->pos[a] = st;
		}
	}
}

static bool hit(const struct line *l, int a)
{
	return l->hits & (1ull << a);
}

/* Text of the line from anchor a on. */
static const char *at(const struct line *l, int a, size_t *len)
{
	*len = l->rlen - l->pos[a];
	return l->raw + l->pos[a];
}

/* ---- console prefixes ---- */

/* "[  12.345678]" -> true; sets *zero if the time is 0. */
static size_t strip_ts(const char *s, size_t len, size_t i, bool *zero)
{
	size_t j = i + 1;
	bool nz = false;

	j = skip_sp(s, len, j);
	if (j >= len || !is_digit(s[j]))
		return 0;
	while (j < len && is_digit(s[j]))
		nz |= s[j++] != '0';
	if (j >= len || s[j] != '.')
		return 0;
	j++;
	while (j < len && is_digit(s[j]))
		nz |= s[j++] != '0';
	if (j >= len || s[j] != ']')
		return 0;
	*zero = !nz;
	return j + 1 - i;
}

/* "[ T123]" / "[    C1]" -> caller id. */
static size_t strip_caller(const char *s, size_t len, size_t i, char *caller)
{
	size_t j = skip_sp(s, len, i + 1), k;

	if (j >= len || (s[j] != 'T' && s[j] != 'C'))
		return 0;
	k = j + 1;
	while (k < len && is_digit(s[k]))
		k++;
	if (k == j + 1 || k >= len || s[k] != ']' || k - j >= 15)
		return 0;
	memcpy(caller, s + j, k - j);
	caller[k - j] = '\0';
	return k + 1 - i;
}

/* "2022/10/02 11:34:15 " (syzkaller's own log lines). */
static size_t strip_date(const char *s, size_t len, size_t i)
{
	static const char pat[] = "dddd/dd/dd dd:dd:dd ";
	size_t k;

	if (len - i < sizeof(pat) - 1)
		return 0;
	for (k = 0; k < sizeof(pat) - 1; k++) {
		if (pat[k] == 'd' ? !is_digit(s[i + k]) : s[i + k] != pat[k])
			return 0;
	}
	return k;
}

static void strip_prefix(struct line *l)
{
	const char *s = l->raw;
	size_t len = l->rlen, i = 0, n;
	bool zero;

	l->caller[0] = '\0';
	l->has_ts = l->ts_zero = false;
	for (;;) {
		i = skip_sp(s, len, i);
		if (i >= len)
			break;
		if (s[i] == '[' && (n = strip_ts(s, len, i, &zero))) {
			if (!l->has_ts)
				l->ts_zero = zero;
			l->has_ts = true;
		} else if (s[i] == '[' &&
			   (n = strip_caller(s, len, i, l->caller))) {
		} else if (s[i] == '<' && i + 2 < len && is_digit(s[i + 1])) {
			n = 2;
			while (i + n < len && is_digit(s[i + n]))
				n++;
			if (i + n >= len || s[i + n] != '>')
				break;
			n++;
		} else if (starts(s + i, len - i, "** ")) {
			const char *e = memstr(s + i + 3, len - i - 3, " **");

			if (!e || !has(s + i, e - s - i, "messages dropped"))
				break;
			n = e + 3 - s - i;
		} else if (is_digit(s[i]) && (n = strip_date(s, len, i))) {
		} else {
			break;
		}
		i += n;
	}
	l->s = s + i;
	l->len = len - i;
}

/* ---- frames ---- */

/*
 * Rust v0 symbols (_RNvCs<hash>_6kernel4sync...10update_refs) carry a
 * per-build crate hash: keep only the last identifier.
 */
static bool rust_last_ident(const char *s, size_t n, size_t *off, size_t *len)
{
	size_t i, k, v;

	for (i = 2; i < n; i++) {
		if (!is_digit(s[i]) || is_digit(s[i - 1]))
			continue;
		for (k = i, v = 0; k < n && is_digit(s[k]) && v < 1000; k++)
			v = v * 10 + s[k] - '0';
		if (v && k + v == n) {
			*off = k + (s[k] == '_');
			*len = n - *off;
			return *len > 0;
		}
	}
	return false;
}

static size_t copy_func(char *dst, const char *s, size_t len)
{
	size_t n = 0, off, rl;

	while (n < len && (is_ident(s[n]) || s[n] == '.'))
		n++;
	if (!n || is_digit(s[0]))
		return 0;
	for (off = 0; off < n && is_xdigit(s[off]); off++)
		;
	if (off == n && n >= 8)
		return 0;	/* a bare address, not a symbol */
	if (starts(s, n, "_R")) {
		const char *dot = memchr(s, '.', n);
		size_t k = dot ? (size_t)(dot - s) : n;

		if (rust_last_ident(s, k, &off, &rl)) {
			if (rl >= FRAME_MAX)
				rl = FRAME_MAX - 1;
			memcpy(dst, s + off, rl);
			dst[rl] = '\0';
			return n;
		}
	}
	{
		/* drop .isra.0, .constprop.3, .cold: they vary by build */
		const char *dot = memchr(s, '.', n);
		size_t k = dot ? (size_t)(dot - s) : n;

		if (!k)
			return 0;
		static const char *const sysp[] = {
			"__x64_sys_", "__ia32_sys_", "__arm64_sys_", "__se_sys_",
			"__do_sys_", "__sys_", "SyS_", "SYSC_", "__se_compat_sys_",
			"__x64_compat_sys_", "compat_SyS_",
		};
		size_t m, pre = 0;

		for (m = 0; m < ARRAY_SIZE(sysp); m++) {
			if (starts(s, k, sysp[m])) {
				pre = strlen(sysp[m]);
				break;
			}
		}
		if (pre && pre < k) {
			/* one name for a syscall on every arch and version */
			memcpy(dst, "sys_", 4);
			s += pre;
			k -= pre;
			if (k >= FRAME_MAX - 4)
				k = FRAME_MAX - 5;
			memcpy(dst + 4, s, k);
			dst[k + 4] = '\0';
			return n;
		}
		if (k >= FRAME_MAX)
			k = FRAME_MAX - 1;
		memcpy(dst, s, k);
		dst[k] = '\0';
	}
	return n;
}

/* Skip "[<ffffffff81000000>] " and "[c000000000012345] " address tags. */
static size_t skip_addr_tags(const char *s, size_t len, size_t i)
{
	int k;

	for (k = 0; k < 2; k++) {
		size_t j = i;

		i = skip_sp(s, len, i);
		if (i >= len || s[i] != '[')
			return k ? i : j == i ? i : i;
		j = i + 1;
		if (j < len && s[j] == '<')
			j++;
		while (j < len && is_xdigit(s[j]))
			j++;
		if (j < len && s[j] == '>')
			j++;
		if (j >= len || s[j] != ']')
			return i;
		i = j + 1;
	}
	return skip_sp(s, len, i);
}

/*
 * Is this a call-trace line? 1 = frame (func filled), 2 = questionable
 * frame ("? func+0x..."), 0 = not a frame.
 */
static int parse_frame(const char *s, size_t len, char *func)
{
	size_t i = skip_addr_tags(s, len, 0), n;
	int q = 0;

	if (i + 1 < len && s[i] == '?' && s[i + 1] == ' ') {
		q = 1;
		i += 2;
	}
	n = copy_func(func, s + i, len - i);
	if (!n)
		return 0;
	i += n;
	if (starts(s + i, len - i, "+0x"))
		return q ? 2 : 1;
	/* syzkaller-symbolized inline frame: "func fs/x.c:12 [inline]" */
	if (i < len && s[i] == ' ' && has(s + i, len - i, " [inline]"))
		return q ? 2 : 1;
	return 0;
}

static bool parse_rip(const char *s, size_t len, char *func)
{
	static const char *const marks[] = {
		"RIP: ", "EIP: ", "IP: ", "pc : ", "PC is at ", "NIP [",
		"NIP: ", "epc : ", "ip: ",
	};
	size_t k, i;

	for (k = 0; k < ARRAY_SIZE(marks); k++) {
		const char *m = memstr(s, len, marks[k]);

		if (!m || (m > s && is_ident(m[-1])))
			continue;
		i = m - s + strlen(marks[k]);
		if (k == 5) {		/* NIP [addr] func */
			while (i < len && s[i] != ']')
				i++;
			i++;
		}
		/* "0010:" segment */
		if (i + 5 <= len && is_xdigit(s[i]) && s[i + 4] == ':')
			i += 5;
		i = skip_addr_tags(s, len, i);
		if (i < len && copy_func(func, s + i, len - i) &&
		    has(s + i, len - i, "+0x"))
			return true;
		func[0] = '\0';
		return false;
	}
	return false;
}

static bool is_trace_start(const char *s, size_t len)
{
	return has(s, len, "Call Trace") || has(s, len, "Call trace") ||
	       has(s, len, "acktrace");
}

static bool is_trace_marker(const char *s, size_t len)
{
	size_t i = skip_sp(s, len, 0);

	if (i >= len)
		return false;
	return s[i] == '<' || starts(s + i, len - i, "Call Trace") ||
	       starts(s + i, len - i, "---") || starts(s + i, len - i, "RIP:") ||
	       starts(s + i, len - i, "Code:") || starts(s + i, len - i, "RSP:") ||
	       starts(s + i, len - i, "R") || starts(s + i, len - i, "E") ||
	       starts(s + i, len - i, "?");
}

/* ---- guilty function ---- */

struct skip {
	char mode;		/* '=' exact, '^' prefix, 0 substring */
	const char *s;
};

static const struct skip skip_common[] = {
	{ 0, "dump_stack" }, { 0, "show_stack" }, { 0, "panic" },
	{ 0, "warn_slowpath" }, { 0, "__warn" }, { 0, "report_bug" },
	{ 0, "fixup_bug" }, { 0, "handle_bug" }, { 0, "do_error_trap" },
	{ '^', "do_trap" }, { 0, "invalid_op" }, { '^', "do_int3" },
	{ '^', "exc_" }, { '^', "asm_" }, { 0, "kasan" }, { 0, "__asan" },
	{ 0, "kmsan" }, { 0, "__msan" }, { 0, "ubsan" }, { 0, "kcsan" },
	{ 0, "kfence" }, { 0, "check_memory_region" },
	{ 0, "print_address_description" }, { 0, "print_report" },
	{ 0, "print_trailer" }, { 0, "lockdep" }, { 0, "lock_acquire" },
	{ 0, "lock_release" }, { 0, "might_sleep" }, { 0, "might_fault" },
	{ 0, "_raw_spin" }, { 0, "_raw_read" }, { 0, "_raw_write" },
	{ 0, "spin_lock" }, { 0, "spin_unlock" }, { 0, "spin_bug" },
	{ 0, "spin_dump" }, { '=', "mutex_lock" }, { '=', "mutex_unlock" },
	{ 0, "refcount_" }, { 0, "debug_object" }, { 0, "debug_print" },
	{ 0, "debug_check" }, { 0, "apic_timer_interrupt" }, { '^', "sysvec_" },
	{ 0, "irq_exit" }, { 0, "do_softirq" }, { 0, "hrtimer" },
	{ '^', "tick_" }, { 0, "update_process_times" }, { '^', "rcu_" },
	{ 0, "printk" }, { 0, "__sanitizer" }, { 0, "memcpy" },
	{ 0, "memset" }, { 0, "memmove" }, { 0, "stack_chk" },
	{ '^', "entry_SYSCALL" }, { '^', "do_syscall" }, { '=', "die" },
	{ 0, "oops_" }, { '=', "no_context" }, { 0, "bad_area" },
	{ '^', "page_fault" }, { 0, "addr_fault" }, { 0, "fixup_exception" },
	{ 0, "trace_hardirqs" }, { '^', "kobject_" }, { 0, "usercopy" },
	{ 0, "check_object_size" }, { 0, "check_heap_object" },
	{ 0, "check_stack_object" }, { '^', "__list_" }, { '^', "list_" },
	{ '^', "nmi_" }, { 0, "watchdog" }, { 0, "lockup" },
	{ '^', "native_" }, { 0, "show_regs" }, { 0, "stack_trace" },
	{ 0, "save_stack" }, { 0, "stack_walk" }, { 0, "unwind" },
	{ 0, "kmemleak" }, { '^', "warn_" }, { '^', "bug" },
	{ '^', "__bug" }, { '^', "do_debug" }, { '^', "el1_" },
	{ 0, "_handler" }, { '^', "handle_exception" }, { '^', "do_mem_abort" },
	{ '^', "__do_kernel_fault" }, { '^', "do_translation_fault" },
	{ '^', "__die" }, { '^', "do_page_fault" }, { '^', "program_check" },
	{ '^', "debug_locks" }, { 0, "sched_show_task" },
	{ '^', "rust_helper" }, { '^', "rust_begin_unwind" },
	{ 0, "rust_begin_unwind" }, { 0, "overflow" }, { '^', "print_" },
	{ 0, "check_preemption_disabled" }, { '=', "__schedule" },
	{ '^', "retint_" }, { '^', "preempt_schedule" },
};

static const struct skip skip_hung[] = {
	{ 0, "sched" }, { 0, "_lock" }, { 0, "_slowlock" }, { 0, "down" },
	{ 0, "completion" }, { 0, "wait" }, { 0, "synchronize" },
	{ 0, "context_switch" }, { 0, "__switch_to" }, { 0, "rwsem" },
	{ 0, "mutex" }, { '^', "kthread" }, { 0, "ret_from_fork" },
	{ 0, "io_schedule" },
};

static const struct skip skip_mem[] = {
	{ 0, "alloc" }, { 0, "oom" }, { 0, "out_of_memory" },
	{ 0, "charge" }, { 0, "mem_cgroup" }, { 0, "kmem" }, { 0, "slab" },
	{ 0, "get_free_page" }, { 0, "kmalloc" }, { 0, "dump_header" },
	{ 0, "reclaim" }, { 0, "memcg" }, { 0, "vmalloc" },
};

static const struct skip skip_leak[] = {
	{ 0, "alloc" }, { 0, "kmem" }, { 0, "slab" }, { 0, "kmalloc" },
	{ 0, "kzalloc" }, { 0, "create_object" }, { 0, "mmap" },
	{ 0, "strdup" }, { 0, "strndup" }, { 0, "memdup" },
	{ 0, "kasprintf" }, { 0, "idr_get" }, { 0, "list_lru_init" },
};

static bool skip_in(const char *f, const struct skip *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].mode == '=' ? !strcmp(f, t[i].s) :
		    t[i].mode == '^' ? !strncmp(f, t[i].s, strlen(t[i].s)) :
				       strstr(f, t[i].s) != NULL)
			return true;
	}
	return false;
}

static bool skip_func(const struct bev *e, const char *f)
{
	if (!f[0] || skip_in(f, skip_common, ARRAY_SIZE(skip_common)))
		return true;
	if ((e->flags & F_SKIP_HUNG) &&
	    skip_in(f, skip_hung, ARRAY_SIZE(skip_hung)))
		return true;
	if ((e->flags & F_SKIP_MEM) &&
	    skip_in(f, skip_mem, ARRAY_SIZE(skip_mem)))
		return true;
	if ((e->flags & F_SKIP_LEAK) &&
	    skip_in(f, skip_leak, ARRAY_SIZE(skip_leak)))
		return true;
	return false;
}

static const char *guilty(const struct bev *e)
{
	int i;

	if ((e->flags & F_HFUNC) && !skip_func(e, e->hfunc))
		return e->hfunc;
	if (!(e->flags & F_TRACEFUNC) && !skip_func(e, e->rip))
		return e->rip;
	for (i = 0; i < e->nr_frames; i++)
		if (!skip_func(e, e->frames[i]))
			return e->frames[i];
	if (e->hfunc[0])
		return e->hfunc;
	if (e->rip[0] && !(e->flags & F_TRACEFUNC))
		return e->rip;
	return NULL;
}

/* ---- events ---- */

static void ctx_close(struct console_parser *p)
{
	p->ctx = -1;
}

static bool is_memory_kind(enum kind k)
{
	return k == K_OOM || k == K_ALLOC;
}

static struct bev *new_event(struct console_parser *p, const struct line *l,
			     enum kind kind, unsigned int flags)
{
	struct bev *e;

	ctx_close(p);
	if (p->nr_ev >= CONSOLE_MAX_EVENTS ||
	    (is_memory_kind(kind) && p->nr_mem_ev >= MAX_MEMORY_EVENTS)) {
		p->dropped++;
		return NULL;
	}
	if (!p->ev)
		p->ev = xzalloc(CONSOLE_MAX_EVENTS * sizeof(*p->ev));
	e = &p->ev[p->nr_ev];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->flags = flags;
	e->line = p->lineno;
	strcpy(e->caller, l->caller);
	if (is_memory_kind(kind))
		p->nr_mem_ev++;
	if (kind == K_OOM)
		p->last_oom = p->nr_ev;
	p->ctx = p->nr_ev++;
	p->ctx_lines = p->ctx_other = 0;
	p->ctx_trace = p->ctx_frames = false;
	return e;
}

static struct bev *ctx_event(struct console_parser *p)
{
	return p->ctx >= 0 ? &p->ev[p->ctx] : NULL;
}

/* Is the open event an oops whose next header lines belong to it? */
static bool ctx_is_oops(struct console_parser *p, int max_lines)
{
	struct bev *e = ctx_event(p);

	return e && (e->kind == K_OOPS || e->kind == K_STACK ||
		     e->kind == K_SAN) &&
	       p->ctx_lines <= max_lines;
}

/* Function name right after "in " / "in: " / "at " in s. */
static void func_after(char *dst, const char *s, size_t len, const char *key)
{
	const char *m = memstr(s, len, key);
	size_t i;

	dst[0] = '\0';
	if (!m)
		return;
	i = m - s + strlen(key);
	i = skip_sp(s, len, i);
	copy_func(dst, s + i, len - i);
}

/* Cut s at the first of the given delimiters. */
static size_t cut(const char *s, size_t len, const char *const *delims,
		  size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		const char *m = memstr(s, len, delims[k]);

		if (m)
			len = m - s;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == ':' ||
		       s[len - 1] == ','))
		len--;
	return len;
}

static const char *const msg_delims[] = {
	" in ", " at ", ", ", "! ", ": ", " (", " - ", " mm:",
};

static bool lockdep_phrase(const char *t, size_t len, const char **head)
{
	static const struct {
		const char *phrase, *head;
	} tab[] = {
		{ "possible circular locking", "possible deadlock" },
		{ "possible recursive locking", "possible deadlock" },
		{ "possible irq lock inversion", "possible deadlock" },
		{ "-safe -> ", "possible deadlock" },
		{ "inconsistent lock state", "inconsistent lock state" },
		{ "suspicious RCU usage", "suspicious RCU usage" },
		{ "bad unlock balance", "bad unlock balance" },
		{ "held lock freed", "held lock freed" },
		{ "ested lock was not taken", "nested lock was not taken" },
		{ "lock held when returning to user space",
		  "lock held when returning to user space" },
		{ "still has locks held", "still has locks held" },
		{ "trying to register non-static key",
		  "trying to register non-static key" },
		{ "MAX_STACK_TRACE_ENTRIES", "MAX_STACK_TRACE_ENTRIES too low" },
		{ "MAX_LOCKDEP", "lockdep limit too low" },
		{ "workqueue leaked lock", "workqueue leaked lock or atomic" },
		{ "Invalid wait context", "Invalid wait context" },
		{ "looking up invalid subclass", "looking up invalid subclass" },
		{ "lock held by", "lock held by current task" },
		{ "bad contention", "bad contention" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tab); i++) {
		if (has(t, len, tab[i].phrase)) {
			*head = tab[i].head;
			return true;
		}
	}
	return false;
}

static void lockdep_event(struct console_parser *p, const struct line *l,
			  const char *prefix, const char *head)
{
	struct bev *e = new_event(p, l, K_LOCKDEP, F_TRACEFUNC | F_HFUNC);
	char buf[HEAD_MAX];

	if (!e)
		return;
	if (!strcmp(head, "possible deadlock") ||
	    !strcmp(head, "inconsistent lock state"))
		prefix = "";
	snprintf(buf, sizeof(buf), "%s%s", prefix, head);
	set_head(e, buf, NULL, 0);
}

static bool bug_line(struct console_parser *p, const struct line *l)
{
	size_t len, i;
	const char *s = at(l, A_BUG, &len), *t, *head;
	struct bev *e;

	i = skip_sp(s, len, 4);
	t = s + i;
	len -= i;
	if (l->pos[A_BUG] >= 8 &&
	    !memcmp(l->raw + l->pos[A_BUG] - 7, "Oops - ", 7))
		return false;	/* arm64 "Internal error: Oops - BUG:" */
	if (starts(t, len, "no syscalls can create resource"))
		return false;
	if (starts(t, len, "KASAN: ") || starts(t, len, "KMSAN: ") ||
	    starts(t, len, "KCSAN: ") || starts(t, len, "KFENCE: ")) {
		const char *const d[] = { " in ", " on ", " at ", ", " };
		size_t n = cut(t, len, d, ARRAY_SIZE(d));

		if (has(t, n, "double-free or invalid-free"))
			n = cut(t, n, (const char *const[]){ " or " }, 1);
		e = new_event(p, l, K_SAN, F_HFUNC);
		if (!e)
			return true;
		set_head(e, "", t, n);
		if (starts(t, len, "KASAN: double-free or invalid-free"))
			set_head(e, "KASAN: invalid-free", NULL, 0);
		func_after(e->hfunc, t, len, " in ");
		return true;
	}
	if (has(t, len, "soft lockup")) {
		e = new_event(p, l, K_SOFT, 0);
		if (e)
			set_head(e, "BUG: soft lockup", NULL, 0);
		return true;
	}
	if (has(t, len, "stack guard page was hit")) {
		e = new_event(p, l, K_STACK, 0);
		if (e)
			set_head(e, "BUG: stack guard page was hit", NULL, 0);
		return true;
	}
	if (starts(t, len, "spinlock ") || starts(t, len, "rwlock ") ||
	    starts(t, len, "using ") ||
	    starts(t, len, "scheduling while atomic") ||
	    starts(t, len, "sleeping function called from invalid context")) {
		const char *const d[] = { " at ", ": ", " on ", " in ", "!" };
		char buf[HEAD_MAX];

		e = new_event(p, l, K_LOCKDEP, F_TRACEFUNC);
		if (!e)
			return true;
		if (starts(t, len, "using ")) {
			size_t n = cut(t, len, (const char *const[]){ " in " }, 1);

			set_head(e, "BUG: ", t, n);
			strncat(e->head, " in preemptible code",
				sizeof(e->head) - strlen(e->head) - 1);
			return true;
		}
		snprintf(buf, sizeof(buf), "BUG: ");
		set_head(e, buf, t, cut(t, len, d, ARRAY_SIZE(d)));
		return true;
	}
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "BUG: ", head);
		return true;
	}
	if (starts(t, len, "memory leak")) {
		e = new_event(p, l, K_LEAK, F_SKIP_LEAK | F_TRACEFUNC);
		if (e)
			set_head(e, "memory leak", NULL, 0);
		return true;
	}
	e = new_event(p, l, K_OOPS, 0);
	if (!e)
		return true;
	if (has(t, len, "nable to handle") ||
	    has(t, len, "NULL pointer dereference")) {
		if (has(t, len, "NULL pointer"))
			set_head(e, "BUG: unable to handle kernel NULL pointer "
				    "dereference", NULL, 0);
		else if (has(t, len, "paging request") ||
			 has(t, len, "page fault"))
			set_head(e, "BUG: unable to handle kernel paging "
				    "request", NULL, 0);
		else
			set_head(e, "BUG: unable to handle kernel", NULL, 0);
		return true;
	}
	if (!len) {
		set_head(e, "BUG: corrupted", NULL, 0);
		return true;
	}
	if (starts(t, len, "Dentry ") && has(t, len, "still in use")) {
		set_head(e, "BUG: Dentry still in use", NULL, 0);
		return true;
	}
	set_head(e, "BUG: ", t, cut(t, len, msg_delims, ARRAY_SIZE(msg_delims)));
	return true;
}

/* SLUB: "BUG kmalloc-64 (Not tainted): Object already free" */
static bool slub_line(struct console_parser *p, const struct line *l)
{
	static const char *const msgs[] = {
		"Object already free", "Poison overwritten", "Redzone overwritten",
		"Invalid object pointer", "Freepointer corrupt", "Padding overwritten",
		"Wrong object count", "Objects remaining", "Left Redzone",
		"Freechain corrupt", "Object padding overwritten",
		"Wrong number of objects", "Invalid object",
	};
	const char *m;
	size_t i, n;
	struct bev *e;

	if (l->pos[A_BUGSP] != (size_t)(l->s - l->raw))
		return false;
	m = memstr(l->s, l->len, "): ");
	if (!m)
		return false;
	m += 3;
	n = l->s + l->len - m;
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		if (!starts(m, n, msgs[i]))
			continue;
		e = new_event(p, l, K_OOPS, F_TRACEFUNC);
		if (e)
			set_head(e, "BUG: ", msgs[i], strlen(msgs[i]));
		return true;
	}
	return false;
}

/* The file of a WARN splat: "at fs/x.c:12 func+0x" or "WARNING: fs/x.c:12 at". */
static void warn_file(const char *t, size_t len, char *file, size_t cap,
		      char *func)
{
	const char *m = memstr(t, len, ".c:");
	const char *b;
	size_t n;

	file[0] = func[0] = '\0';
	if (!m)
		m = memstr(t, len, ".h:");
	if (!m)
		return;
	for (b = m; b > t && b[-1] != ' ' && b[-1] != ']'; b--)
		;
	n = m + 2 - b;
	if (n >= cap)
		n = cap - 1;
	memcpy(file, b, n);
	file[n] = '\0';
	/* function follows the file (old format) or " at " (6.x format) */
	m += 3;
	while (m < t + len && is_digit(*m))
		m++;
	n = t + len - m;
	if (starts(m, n, " at "))
		m += 4;
	else if (starts(m, n, " "))
		m += 1;
	copy_func(func, m, t + len - m);
	if (func[0] && !has(m, t + len - m, "+0x"))
		func[0] = '\0';
}

static bool warning_line(struct console_parser *p, const struct line *l)
{
	static const struct {
		const char *file, *head;
	} helpers[] = {
		{ "lib/refcount.c", "WARNING: refcount bug" },
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug" },
		{ "mm/usercopy.c", "WARNING: bad usercopy" },
		{ "lib/kobject.c", "WARNING: kobject bug" },
		{ "fs/proc/generic.c", "WARNING: proc registration bug" },
	};
	size_t len, i;
	const char *s = at(l, A_WARNING, &len), *t, *head;
	char file[128], func[FRAME_MAX];
	struct bev *e;

	i = skip_sp(s, len, 8);
	t = s + i;
	len -= i;
	if (starts(t, len, "/etc/ssh/moduli") ||
	    starts(t, len, "workqueue cpumask"))
		return false;
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "WARNING: ", head);
		return true;
	}
	if (starts(t, len, "kernel stack regs") ||
	    starts(t, len, "kernel stack frame pointer")) {
		e = new_event(p, l, K_WARN, F_NOFUNC);
		if (e)
			set_head(e, "WARNING: kernel stack regs has bad value",
				 NULL, 0);
		return true;
	}
	if (!len) {
		e = new_event(p, l, K_WARN, F_NOFUNC);
		if (e)
			set_head(e, "WARNING: corrupted", NULL, 0);
		return true;
	}
	warn_file(t, len, file, sizeof(file), func);
	if (!file[0] && !starts(t, len, "CPU: ") && !starts(t, len, "at "))
		return false;	/* a driver message, not a WARN() splat */
	if (!strncmp(file, "kernel/locking/lockdep", 22)) {
		e = new_event(p, l, K_LOCKDEP, F_HFUNC);
		if (e) {
			set_head(e, "WARNING: locking bug", NULL, 0);
			strcpy(e->hfunc, func);
		}
		return true;
	}
	e = new_event(p, l, K_WARN, F_HFUNC);
	if (!e)
		return true;
	strcpy(e->hfunc, func);
	set_head(e, "WARNING", NULL, 0);
	for (i = 0; i < ARRAY_SIZE(helpers); i++) {
		if (!strcmp(file, helpers[i].file)) {
			set_head(e, helpers[i].head, NULL, 0);
			e->flags = F_TRACEFUNC;
		}
	}
	if (!strncmp(file, "mm/", 3) && strstr(func, "alloc")) {
		set_head(e, "WARNING: kmalloc bug", NULL, 0);
		e->flags = F_TRACEFUNC | F_SKIP_MEM;
	}
	return true;
}

static bool info_line(struct console_parser *p, const struct line *l)
{
	static const char *const ignore[] = {
		"lockdep is turned off", "Stall ended before state dump start",
		"NMI handler", "recovery required on readonly filesystem",
		"no syscalls can create resource",
	};
	size_t len, i;
	const char *s = at(l, A_INFO, &len), *t, *head;
	struct bev *e;

	if (l->pos[A_INFO] && l->raw[l->pos[A_INFO] - 1] == ':')
		return false;
	i = skip_sp(s, len, 5);
	t = s + i;
	len -= i;
	for (i = 0; i < ARRAY_SIZE(ignore); i++)
		if (starts(t, len, ignore[i]))
			return false;
	if (has(t, len, "took too long"))
		return false;
	if (starts(t, len, "task ")) {
		/* "task comm:pid blocked [in I/O wait] for more than N s" */
		unsigned int tent = has(t, len, "for more than") ? 0 :
				    F_TENTATIVE;

		e = new_event(p, l, K_HUNG, F_SKIP_HUNG | F_TRACEFUNC | tent);
		if (e)
			set_head(e, has(t, len, "can't die") ?
					    "INFO: task can't die" :
					    "INFO: task hung",
				 NULL, 0);
		return true;
	}
	if (has(t, len, "detected stall") || has(t, len, "detected stalls") ||
	    has(t, len, "self-detected stall") ||
	    has(t, len, "detected expedited stall")) {
		e = new_event(p, l, K_RCU, F_TRACEFUNC);
		if (e)
			set_head(e, "INFO: rcu detected stall", NULL, 0);
		return true;
	}
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "INFO: ", head);
		return true;
	}
	if (starts(t, len, "Allocated in ") || starts(t, len, "Freed in ")) {
		e = new_event(p, l, K_SAN, F_HFUNC);
		if (!e)
			return true;
		set_head(e, t[0] == 'A' ? "KASAN: INFO: Allocated" :
					  "KASAN: INFO: Freed",
			 NULL, 0);
		func_after(e->hfunc, t, len, " in ");
		return true;
	}
	if (!len) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "INFO: corrupted", NULL, 0);
		return true;
	}
	return false;
}

static bool is_user_trap(const struct line *l)
{
	return has(l->s, l->len, "traps:") || has(l->s, l->len, " ip:");
}

static bool simple_oops(struct console_parser *p, const struct line *l,
			const char *head, unsigned int flags)
{
	struct bev *e = new_event(p, l, K_OOPS, flags);

	if (e)
		set_head(e, head, NULL, 0);
	return true;
}

static bool panic_line(struct console_parser *p, const struct line *l)
{
	size_t len, i;
	const char *s = at(l, A_KPANIC, &len), *m;
	struct bev *e;

	if (l->pos[A_KPANIC] >= 4 &&
	    !memcmp(l->raw + l->pos[A_KPANIC] - 4, "end ", 4))
		return false;	/* "---[ end Kernel panic - ..." */
	m = memstr(s, len, "not syncing");
	if (!m)
		return false;
	i = m - s + 11;
	if (i < len && s[i] == ':')
		i++;
	i = skip_sp(s, len, i);
	s += i;
	len -= i;
	if (starts(s, len, "stack-protector:")) {
		e = new_event(p, l, K_STACK, F_HFUNC | F_TRACEFUNC);
		if (e) {
			set_head(e, "kernel panic: stack is corrupted", NULL, 0);
			func_after(e->hfunc, s, len, "corrupted in: ");
		}
		return true;
	}
	if (has(s, len, "corrupted stack end")) {
		e = new_event(p, l, K_STACK, F_TRACEFUNC | F_SKIP_HUNG);
		if (e)
			set_head(e, "kernel panic: corrupted stack end", NULL, 0);
		return true;
	}
	if (has(s, len, "stack overflow")) {
		e = new_event(p, l, K_STACK, 0);
		if (e)
			set_head(e, "kernel panic: kernel stack overflow", NULL, 0);
		return true;
	}
	if (starts(s, len, "hung_task")) {
		e = new_event(p, l, K_HUNG, F_NOFUNC);
		if (e)
			set_head(e, "kernel panic: hung_task: blocked tasks",
				 NULL, 0);
		return true;
	}
	if (starts(s, len, "softlockup")) {
		e = new_event(p, l, K_SOFT, F_NOFUNC);
		if (e)
			set_head(e, "kernel panic: softlockup: hung tasks",
				 NULL, 0);
		return true;
	}
	if (has(s, len, "Hard LOCKUP") || has(s, len, "hard LOCKUP")) {
		e = new_event(p, l, K_HARD, F_TRACEFUNC);
		if (e)
			set_head(e, "kernel panic: Hard LOCKUP", NULL, 0);
		return true;
	}
	if (has(s, len, "Out of memory") || has(s, len, "out of memory") ||
	    has(s, len, "deadlocked on memory")) {
		if (p->last_oom >= 0) {
			p->ev[p->last_oom].oom_panic = true;
			ctx_close(p);
			return true;
		}
		e = new_event(p, l, K_OOM, F_NOFUNC);
		if (e) {
			e->oom_panic = true;
			e->detail = json_object_new_object();
			p->last_oom = e - p->ev;
		}
		return true;
	}
	e = new_event(p, l, K_PANIC, F_NOFUNC);
	if (e)
		set_head(e, "kernel panic: ", s,
			 cut(s, len, (const char *const[]){ " - " }, 1));
	return true;
}

/* ---- OOM and allocation failures ---- */

static void jset_str(json_object *o, const char *k, const char *s, size_t n)
{
	char *c = dup_clean(s, n);

	json_object_object_add(o, k, json_object_new_string(c));
	free(c);
}

/* Value after key up to one of the stop characters. */
static const char *kv(const char *s, size_t len, const char *key,
		      const char *stop, size_t *n)
{
	const char *m = memstr(s, len, key);
	size_t i, j;

	if (!m)
		return NULL;
	i = m - s + strlen(key);
	for (j = i; j < len && !strchr(stop, s[j]); j++)
		;
	*n = j - i;
	return s + i;
}

static void jset_num(json_object *o, const char *k, const char *v, size_t n)
{
	char buf[32];

	if (!v || !n || n >= sizeof(buf) || !is_digit(v[0]))
		return;
	memcpy(buf, v, n);
	buf[n] = '\0';
	json_object_object_add(o, k, json_object_new_int64(strtoll(buf, 0, 10)));
}

static void jset_kvnum(json_object *o, const char *k, const char *s,
		       size_t len, const char *key, const char *stop)
{
	size_t n = 0;
	const char *v = kv(s, len, key, stop, &n);

	jset_num(o, k, v, n);
}

/* "gfp_mask=0x1100cca(GFP_HIGHUSER_MOVABLE)" / "mode:0x40dc0(GFP_KERNEL)" */
static void jset_gfp(json_object *o, const char *s, size_t len,
		     const char *key)
{
	size_t n;
	const char *v = kv(s, len, key, "(, ", &n);

	if (!v || !n)
		return;
	jset_str(o, "gfp_mask", v, n);
	if (v + n < s + len && v[n] == '(') {
		const char *f = v + n + 1;
		const char *e = memchr(f, ')', s + len - f);

		if (e)
			jset_str(o, "gfp_flags", f, e - f);
	}
}

/* Process name before " invoked oom-killer" / ": page allocation failure". */
static void jset_comm(json_object *o, const char *k, const struct line *l,
		      size_t end)
{
	const char *s = l->s;
	size_t n = l->raw + end - s;

	if (end < (size_t)(l->s - l->raw))
		return;
	while (n && (s[n - 1] == ' ' || s[n - 1] == ':'))
		n--;
	if (n)
		jset_str(o, k, s, n);
}

static struct bev *oom_event(struct console_parser *p, const struct line *l)
{
	struct bev *e = new_event(p, l, K_OOM, F_SKIP_MEM | F_TRACEFUNC);

	if (e) {
		e->detail = json_object_new_object();
		p->last_oom = e - p->ev;
	}
	return e;
}

static struct bev *last_oom(struct console_parser *p, bool want_victim)
{
	struct bev *e;

	if (p->last_oom < 0)
		return NULL;
	e = &p->ev[p->last_oom];
	if (e->oom_victim || (!want_victim && e->oom_constraint))
		return NULL;
	return e;
}

static void oom_victim(struct bev *e, const char *s, size_t len)
{
	const char *m = memstr(s, len, "process ");
	const char *c, *ce;
	size_t n;

	if (!m)
		return;
	m += 8;
	n = 0;
	while (m + n < s + len && is_digit(m[n]))
		n++;
	jset_num(e->detail, "pid", m, n);
	c = memchr(m, '(', s + len - m);
	ce = c ? memchr(c, ')', s + len - c) : NULL;
	if (c && ce)
		jset_str(e->detail, "victim", c + 1, ce - c - 1);
	if (!has(s, len, "-rss:"))
		return;
	e->oom_victim = true;
	jset_kvnum(e->detail, "anon_rss_kb", s, len, "anon-rss:", "k,");
	jset_kvnum(e->detail, "file_rss_kb", s, len, "file-rss:", "k,");
	jset_kvnum(e->detail, "shmem_rss_kb", s, len, "shmem-rss:", "k,");
}

static bool oom_line(struct console_parser *p, const struct line *l)
{
	const char *s = l->s, *v;
	size_t len = l->len, n;
	struct bev *e;

	if (hit(l, A_OOMINV)) {
		e = oom_event(p, l);
		if (!e)
			return true;
		jset_comm(e->detail, "invoker", l, l->pos[A_OOMINV]);
		jset_gfp(e->detail, s, len, "gfp_mask=");
		jset_kvnum(e->detail, "order", s, len, "order=", ", ");
		return true;
	}
	if (hit(l, A_OOMKILL)) {
		e = last_oom(p, false);
		if (!e)
			e = oom_event(p, l);
		if (!e)
			return true;
		e->oom_constraint = true;
		if (has(s, len, "CONSTRAINT_MEMCG"))
			e->oom_memcg = true;
		v = kv(s, len, "oom_memcg=", ",", &n);
		if (v && n)
			jset_str(e->detail, "memcg", v, n);
		v = kv(s, len, "task=", ",", &n);
		if (v && n)
			jset_str(e->detail, "victim", v, n);
		jset_kvnum(e->detail, "pid", s, len, "pid=", ",");
		return true;
	}
	/* "...: Killed process N (comm) total-vm:..." or "Kill process N" */
	if (!has(s, len, "Kill process") && !has(s, len, "Killed process"))
		return false;
	if (!hit(l, A_KILLED) && !hit(l, A_MEMCG) && !hit(l, A_OOM))
		return false;
	e = last_oom(p, true);
	if (!e)
		e = oom_event(p, l);
	if (!e)
		return true;
	if (hit(l, A_MEMCG))
		e->oom_memcg = true;
	oom_victim(e, s, len);
	if (p->ctx == e - p->ev && e->oom_victim)
		ctx_close(p);
	return true;
}

static bool alloc_line(struct console_parser *p, const struct line *l)
{
	const char *s = l->s;
	size_t len = l->len, end;
	struct bev *e;
	bool vm = !hit(l, A_PAF);

	e = new_event(p, l, K_ALLOC, F_SKIP_MEM | F_TRACEFUNC);
	if (!e)
		return true;
	e->detail = json_object_new_object();
	set_head(e, vm ? "vmalloc allocation failure" :
			 "page allocation failure",
		 NULL, 0);
	end = hit(l, A_PAF) ? l->pos[A_PAF] :
	      hit(l, A_VMALLOC) ? l->pos[A_VMALLOC] : l->pos[A_VMERR];
	jset_comm(e->detail, "invoker", l, end);
	jset_kvnum(e->detail, "order", s, len, "order:", ", ");
	if (vm) {
		jset_kvnum(e->detail, "order", s, len, "page order ", ", ");
		jset_kvnum(e->detail, "size", s, len,
			   hit(l, A_VMERR) ? "size " : "failure: ", ", ");
	}
	jset_gfp(e->detail, s, len, "mode:");
	return true;
}

/* ---- boots ---- */

static bool boot_line(struct console_parser *p, const struct line *l)
{
	bool marker = false;
	struct bev *e;

	if (hit(l, A_BOOT) && l->pos[A_BOOT] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_SEABIOS) && l->pos[A_SEABIOS] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_DECOMP) && l->pos[A_DECOMP] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_LINUXVER) && l->has_ts && l->ts_zero &&
	    l->pos[A_LINUXVER] == (size_t)(l->s - l->raw))
		marker = true;
	if (!marker)
		return false;
	if (!p->preamble && p->seen) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "unexpected kernel reboot", NULL, 0);
		ctx_close(p);
	}
	p->preamble = true;
	p->preamble_lines = 0;
	return true;
}

/* ---- per-line dispatch ---- */

static bool other_line(struct console_parser *p, const struct line *l)
{
	struct bev *e;
	size_t len;
	const char *s;

	if (hit(l, A_UNREG)) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "unregister_netdevice: waiting for DEV to "
				    "become free", NULL, 0);
		return true;
	}
	if (hit(l, A_TRUSTY)) {
		e = new_event(p, l, K_PANIC, F_NOFUNC);
		if (e)
			set_head(e, has(l->s, l->len, "ASSERT FAILED") ?
					    "trusty: ASSERT FAILED" :
					    "trusty: panic",
				 NULL, 0);
		return true;
	}
	if (hit(l, A_SYZFAIL) || hit(l, A_SYZFATAL)) {
		int a = hit(l, A_SYZFAIL) ? A_SYZFAIL : A_SYZFATAL;

		s = at(l, a, &len);
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "", s,
				 cut(s, len, (const char *const[]){ " (" }, 1));
		return true;
	}
	if (hit(l, A_FATAL) && l->pos[A_FATAL] == (size_t)(l->s - l->raw)) {
		/* Go runtime: confirmed by "goroutine"/"runtime" lines */
		e = new_event(p, l, K_OTHER, F_NOFUNC | F_TENTATIVE);
		if (e)
			set_head(e, "user-space runtime fatal error", NULL, 0);
		return true;
	}
	if (hit(l, A_VFSBUSY) || hit(l, A_VFSCLOSE)) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, hit(l, A_VFSBUSY) ?
					    "VFS: Busy inodes after unmount" :
					    "VFS: Close: file count is zero",
				 NULL, 0);
		return true;
	}
	return false;
}

static bool stack_evidence(struct console_parser *p, const struct line *l)
{
	struct bev *e = ctx_event(p);
	bool guard = hit(l, A_GUARD) && has(l->s, l->len, "was hit");
	bool ovf = hit(l, A_STKOVF) && (has(l->s, l->len, "ernel stack overflow"));
	bool insuff = hit(l, A_INSUFF);

	if (!guard && !ovf && !insuff)
		return false;
	if (p->df >= 0) {
		p->ev[p->df].so_evidence = true;
		return true;
	}
	if (e && e->kind == K_STACK && p->ctx_lines < 30)
		return true;	/* "kernel stack overflow (double-fault)" */
	e = new_event(p, l, K_STACK, 0);
	if (e)
		set_head(e, guard ? "BUG: stack guard page was hit" :
				    insuff ? "Insufficient stack space" :
					     "kernel stack overflow",
			 NULL, 0);
	return true;
}

static bool handle_anchors(struct console_parser *p, const struct line *l)
{
	if (boot_line(p, l))
		return true;
	if (hit(l, A_KPANIC) && panic_line(p, l))
		return true;
	if (hit(l, A_DFAULT)) {
		struct bev *e = new_event(p, l, K_OOPS, F_DFAULT);

		if (e) {
			set_head(e, "PANIC: double fault", NULL, 0);
			p->df = e - p->ev;
			p->df_lines = 0;
		}
		return true;
	}
	if ((hit(l, A_GUARD) || hit(l, A_STKOVF) || hit(l, A_INSUFF)) &&
	    stack_evidence(p, l))
		return true;
	if (hit(l, A_INTERR) || (hit(l, A_OOPS) && !hit(l, A_GPF))) {
		if (ctx_is_oops(p, 30))
			return false;	/* part of the oops being read */
		if (hit(l, A_INTERR))
			return simple_oops(p, l, "Internal error", 0);
	}
	if (hit(l, A_BUG) && bug_line(p, l))
		return true;
	if (hit(l, A_BUGSP) && slub_line(p, l))
		return true;
	if (hit(l, A_WARNING) && warning_line(p, l))
		return true;
	if (hit(l, A_INFO) && info_line(p, l))
		return true;
	if (hit(l, A_GPF) && !is_user_trap(l)) {
		if (ctx_is_oops(p, 3) && !has(l->s, l->len, "Oops"))
			return false;
		return simple_oops(p, l, "general protection fault", 0);
	}
	if (hit(l, A_UNABLE)) {
		if (ctx_is_oops(p, 5))
			return false;
		return simple_oops(p, l,
				   has(l->s, l->len, "NULL pointer") ?
					   "BUG: unable to handle kernel NULL "
					   "pointer dereference" :
					   "BUG: unable to handle kernel paging "
					   "request",
				   0);
	}
	if (hit(l, A_SSEG) && !is_user_trap(l))
		return simple_oops(p, l, "stack segment fault", 0);
	if ((hit(l, A_KBUG) || hit(l, A_KBUG2)) && ctx_is_oops(p, 30) &&
	    !strcmp(ctx_event(p)->head, "Rust panic"))
		return false;	/* Rust panics end in BUG() */
	if (hit(l, A_KBUG) || hit(l, A_KBUG2)) {
		size_t len;
		const char *s = at(l, hit(l, A_KBUG) ? A_KBUG : A_KBUG2, &len);

		if (has(s, len, "mm/usercopy.c"))
			return simple_oops(p, l, "BUG: bad usercopy", F_TRACEFUNC);
		if (has(s, len, "lib/list_debug.c"))
			return simple_oops(p, l, "BUG: corrupted list",
					   F_TRACEFUNC);
		return simple_oops(p, l, "kernel BUG", 0);
	}
	if ((hit(l, A_DIVERR) || hit(l, A_DIVERR2)) && !is_user_trap(l))
		return simple_oops(p, l, "divide error", 0);
	if (hit(l, A_INVOP) && !is_user_trap(l)) {
		if (ctx_is_oops(p, 30))
			return false;
		return simple_oops(p, l, "invalid opcode", 0);
	}
	if (hit(l, A_INT3) && !is_user_trap(l))
		return simple_oops(p, l, "int3", 0);
	if (hit(l, A_OOPS) && l->pos[A_OOPS] == (size_t)(l->s - l->raw))
		return simple_oops(p, l, "Oops", 0);
	if (hit(l, A_UNHF))
		return simple_oops(p, l, "Unhandled fault", 0);
	if (hit(l, A_ALIGN))
		return simple_oops(p, l, "Alignment trap", 0);
	if (hit(l, A_RUST))
		return simple_oops(p, l, "Rust panic", F_TRACEFUNC);
	if (hit(l, A_UBSAN)) {
		size_t len;
		const char *s = at(l, A_UBSAN, &len);
		struct bev *e;

		s += 6;
		len -= 6;
		e = new_event(p, l, K_SAN, F_TRACEFUNC);
		if (!e)
			return true;
		if (has(s, len, "Undefined behaviour"))
			set_head(e, "UBSAN: undefined-behaviour", NULL, 0);
		else
			set_head(e, "UBSAN: ", s,
				 cut(s, len, msg_delims, ARRAY_SIZE(msg_delims)));
		return true;
	}
	if (hit(l, A_HARDLOCK) && has(l->s, l->len, "detected hard LOCKUP")) {
		struct bev *e = new_event(p, l, K_HARD, 0);

		if (e)
			set_head(e, "Watchdog detected hard LOCKUP", NULL, 0);
		return true;
	}
	if ((hit(l, A_OOMINV) || hit(l, A_OOMKILL) || hit(l, A_KILLED) ||
	     hit(l, A_OOM) || hit(l, A_MEMCG)) &&
	    oom_line(p, l))
		return true;
	if ((hit(l, A_PAF) || hit(l, A_VMALLOC) || hit(l, A_VMERR)) &&
	    alloc_line(p, l))
		return true;
	if (hit(l, A_KMEMLEAK)) {
		struct bev *e = ctx_event(p);

		if (e && e->kind == K_LEAK)
			return false;
		e = new_event(p, l, K_LEAK, F_SKIP_LEAK | F_TRACEFUNC);
		if (e)
			set_head(e, "memory leak", NULL, 0);
		return true;
	}
	return other_line(p, l);
}

static bool parse_hex(const char *s, size_t len, unsigned long long *v)
{
	size_t i = 0;

	*v = 0;
	while (i < len && is_xdigit(s[i])) {
		int c = s[i];

		*v = *v * 16 + (is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
		i++;
	}
	return i >= 8;
}

static void ctx_regs(struct bev *e, const char *s, size_t len)
{
	const char *m;

	if (!e->have_rsp && (m = memstr(s, len, "RSP: "))) {
		size_t i = m + 5 - s;

		if (i + 5 <= len && s[i + 4] == ':')
			i += 5;
		e->have_rsp = parse_hex(s + i, len - i, &e->rsp);
	}
	if (!e->have_cr2 && (m = memstr(s, len, "CR2: "))) {
		size_t i = m + 5 - s;

		e->have_cr2 = parse_hex(s + i, len - i, &e->cr2);
	}
}

static void ctx_line(struct console_parser *p, const struct line *l)
{
	struct bev *e = ctx_event(p);
	const char *s = l->s;
	size_t len = l->len;
	char func[FRAME_MAX];
	int f;

	if (e->caller[0] && l->caller[0] && strcmp(e->caller, l->caller)) {
		if (++p->ctx_other > CTX_MAX_OTHER)
			ctx_close(p);
		return;
	}
	if (++p->ctx_lines > CTX_MAX_LINES || has(s, len, "---[ end trace") ||
	    starts(s, len, "Kernel Offset:")) {
		ctx_close(p);
		return;
	}
	if (e->flags & F_TENTATIVE) {
		if (p->ctx_lines > 3)
			ctx_close(p);
		else if (e->kind == K_HUNG ? has(s, len, "for more than") :
			 (starts(s, len, "goroutine ") ||
			  starts(s, len, "runtime")))
			e->flags &= ~F_TENTATIVE;
		return;
	}
	if (!e->rip[0] && !p->ctx_trace)
		parse_rip(s, len, e->rip);
	if (e->kind == K_LOCKDEP && !e->hfunc[0] && !p->ctx_trace) {
		const char *m = memstr(s, len, "at: ");

		if (m) {
			size_t i = skip_addr_tags(s, len, m + 4 - s);

			if (copy_func(e->hfunc, s + i, len - i) &&
			    !has(s + i, len - i, "+0x"))
				e->hfunc[0] = '\0';
		}
	}
	if (e->kind == K_SAN && !e->access[0]) {
		if (has(s, len, "Read of size") || has(s, len, "Read at addr"))
			strcpy(e->access, "Read");
		else if (has(s, len, "Write of size") ||
			 has(s, len, "Write at addr"))
			strcpy(e->access, "Write");
	}
	if (is_trace_start(s, len)) {
		p->ctx_trace = true;
		return;
	}
	if (!p->ctx_trace)
		return;
	f = parse_frame(s, len, func);
	if (f == 1 || (f == 2 && (!e->nr_frames || e->q_frames))) {
		/* unreliable "? " frames only count if there is nothing else */
		if (f == 1 && e->q_frames)
			e->nr_frames = 0;
		e->q_frames = f == 2;
		if (e->nr_frames < CONSOLE_MAX_FRAMES)
			strcpy(e->frames[e->nr_frames++], func);
		p->ctx_frames = true;
	} else if (!f && p->ctx_frames && !is_trace_marker(s, len)) {
		ctx_close(p);	/* end of the call trace */
	}
}

static void process_line(struct console_parser *p, const char *raw,
			 size_t len)
{
	struct line l;
	bool consumed = false;

	p->lineno++;
	if (len && raw[len - 1] == '\r')
		len--;
	l.raw = raw;
	l.rlen = len;
	find_anchors(p, &l);
	if (!l.hits && p->ctx < 0 && p->df < 0 && !p->preamble && p->seen)
		return;
	strip_prefix(&l);
	if (l.hits)
		consumed = handle_anchors(p, &l);
	if (p->preamble) {
		if ((l.has_ts && !l.ts_zero) ||
		    ++p->preamble_lines > PREAMBLE_MAX) {
			p->preamble = false;
			p->seen = true;
		}
	} else if (l.len) {
		p->seen = true;
	}
	if (p->df >= 0) {
		struct bev *df = &p->ev[p->df];

		/* the first RSP and CR2 after the double fault are its own */
		ctx_regs(df, l.s, l.len);
		if ((df->have_rsp && df->have_cr2) || ++p->df_lines > 100)
			p->df = -1;
	}
	if (!consumed && p->ctx >= 0)
		ctx_line(p, &l);
}

/* ---- feeding ---- */

static bool fast_ok(const struct console_parser *p)
{
	return p->ctx < 0 && p->df < 0 && !p->preamble && p->seen;
}

static long count_nl(const unsigned char *s, size_t n)
{
	const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
	const uint64_t nl = 0x0a0a0a0a0a0a0a0aull;
	long c = 0;
	size_t i = 0;

	/* count zero bytes of x ^ "\n\n..." eight at a time */
	for (; i + 8 <= n; i += 8) {
		uint64_t x, t;

		memcpy(&x, s + i, 8);
		x ^= nl;
		t = ~(((x & lo7) + lo7) | x | lo7);
		c += ((t >> 7) * 0x0101010101010101ull) >> 56;
	}
	for (; i < n; i++)
		c += s[i] == '\n';
	return c;
}

/*
 * buf starts at a line start. Skip complete lines without anchors; process
 * the first line that has one. Returns the bytes consumed (whole lines).
 */
static size_t fast_scan(struct console_parser *p, const char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)buf;
	const char *last = memrchr(buf, '\n', len);
	size_t n, i, st;

	if (!last)
		return 0;
	n = last - buf + 1;
	for (i = 0; i + 1 < n; i++) {
		const char *ls, *le;
		int a;

		/* eight positions per branch: hits are rare */
		while (i + 9 <= n) {
			uint64_t m = 0;
			int k;

			for (k = 0; k < 8; k++) {
				unsigned int key = load16(u + i + k);

				m |= p->kbits[key / 64] & (1ull << (key % 64));
			}
			if (m)
				break;
			i += 8;
		}
		if (i + 1 >= n)
			break;
		if (!key_hit(p, u + i))
			continue;
		a = anchor_at(p, buf, n, i, -1, &st);
		if (a < 0)
			continue;
		ls = memrchr(buf, '\n', st);
		ls = ls ? ls + 1 : buf;
		le = memchr(buf + st, '\n', n - st);
		if ((size_t)(buf + st - ls) + p->alen[a] > CONSOLE_LINE_MAX) {
			/* not in the part of the line that is kept */
			if (buf + i - ls >= CONSOLE_LINE_MAX)
				i = le - buf;
			continue;
		}
		p->lineno += count_nl(u, ls - buf);
		process_line(p, ls,
			     (size_t)(le - ls) > CONSOLE_LINE_MAX ?
				     CONSOLE_LINE_MAX : (size_t)(le - ls));
		return le + 1 - buf;
	}
	p->lineno += count_nl(u, n);
	return n;
}

void console_parser_feed(struct console_parser *p, const char *buf, size_t len)
{
	p->bytes += len;
	while (len) {
		const char *nl;
		size_t take, used;

		if (p->llen || p->lover) {
			nl = memchr(buf, '\n', len);
			take = nl ? (size_t)(nl - buf) : len;
			used = take;
			if (take > CONSOLE_LINE_MAX - p->llen) {
				take = CONSOLE_LINE_MAX - p->llen;
				p->lover = true;
			}
			memcpy(p->lbuf + p->llen, buf, take);
			p->llen += take;
			if (!nl)
				return;
			process_line(p, p->lbuf, p->llen);
			p->llen = 0;
			p->lover = false;
			buf += used + 1;
			len -= used + 1;
			continue;
		}
		if (fast_ok(p)) {
			used = fast_scan(p, buf, len);
			if (used) {
				buf += used;
				len -= used;
				continue;
			}
		} else if ((nl = memchr(buf, '\n', len))) {
			take = nl - buf;
			process_line(p, buf,
				     take > CONSOLE_LINE_MAX ? CONSOLE_LINE_MAX :
							       take);
			buf += take + 1;
			len -= take + 1;
			continue;
		}
		/* an incomplete last line: keep its head */
		take = len > CONSOLE_LINE_MAX ? CONSOLE_LINE_MAX : len;
		memcpy(p->lbuf, buf, take);
		p->llen = take;
		p->lover = len > CONSOLE_LINE_MAX || !take;
		return;
	}
}

struct console_parser *console_parser_new(void)
{
	struct console_parser *p = xzalloc(sizeof(*p));

	anchors_init(p);
	p->ctx = -1;
	p->last_oom = -1;
	p->df = -1;
	return p;
}

void console_parser_free(struct console_parser *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; p->ev && i < p->nr_ev; i++)
		json_object_put(p->ev[i].detail);
	free(p->ev);
	free(p);
}

/* ---- report ---- */

static void finish_kind(struct bev *e)
{
	if (!(e->flags & F_DFAULT))
		return;
	/*
	 * A double fault is a stack overflow when the kernel says so, or
	 * when the undeliverable fault hit just below a kernel stack pointer.
	 */
	if (e->so_evidence ||
	    (e->have_rsp && e->have_cr2 && e->rsp >= 0xffff800000000000ull &&
	     e->cr2 >= 0xffff800000000000ull && e->rsp > e->cr2 &&
	     e->rsp - e->cr2 <= 64))
		e->kind = K_STACK;
}

static char *oom_title(struct bev *e)
{
	char buf[HEAD_MAX + 64];
	struct obuf o = { buf, sizeof(buf), 0 };
	json_object *v;

	buf[0] = '\0';
	if (e->oom_panic)
		oputs(&o, "kernel panic: ");
	oputs(&o, "OOM (");
	oputs(&o, e->oom_memcg ? "memcg" : "global");
	if (e->oom_memcg && json_object_object_get_ex(e->detail, "memcg", &v)) {
		oputs(&o, " ");
		onorm(&o, json_object_get_string(v),
		      json_object_get_string_len(v));
	}
	oputs(&o, ")");
	if (json_object_object_get_ex(e->detail, "invoker", &v)) {
		oputs(&o, " invoked by ");
		onorm(&o, json_object_get_string(v),
		      json_object_get_string_len(v));
	}
	return xstrdup(buf);
}

static json_object *trace_json(const struct bev *e)
{
	json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < e->nr_frames; i++)
		json_object_array_add(a, json_object_new_string(e->frames[i]));
	return a;
}

static void finish_event(struct bev *e, struct console_event *out)
{
	const char *f;

	finish_kind(e);
	out->kind = kind_names[e->kind];
	out->line = e->line;
	f = (e->flags & F_NOFUNC) ? NULL : guilty(e);
	if (e->kind == K_OOM)
		out->title = oom_title(e);
	out->detail = e->detail;
	e->detail = NULL;
	if (e->kind == K_OOM) {
		json_object_object_add(out->detail, "scope",
				       json_object_new_string(
					       e->oom_memcg ? "memcg" : "global"));
		json_object_object_add(out->detail, "panic",
				       json_object_new_boolean(e->oom_panic));
	} else {
		out->title = xasprintf("%s%s%s%s%s", e->head,
				       e->access[0] ? " " : "", e->access,
				       f ? " in " : "", f ? f : "");
	}
	if (!f && !e->nr_frames)
		return;
	if (!out->detail)
		out->detail = json_object_new_object();
	if (f)
		json_object_object_add(out->detail, "function",
				       json_object_new_string(f));
	if (e->nr_frames)
		json_object_object_add(out->detail, "trace", trace_json(e));
}

static int primary_rank(const char *kind)
{
	if (!strcmp(kind, "oom"))
		return 1;
	if (!strcmp(kind, "alloc_failure"))
		return 2;
	return 0;
}

void console_parser_finish(struct console_parser *p,
			   struct console_report *out)
{
	size_t i;
	int best = 3;

	if (p->llen || p->lover) {
		process_line(p, p->lbuf, p->llen);
		p->llen = 0;
		p->lover = false;
	}
	ctx_close(p);
	out->bytes = p->bytes;
	out->lines = p->lineno;
	out->dropped_events = p->dropped;
	out->nr_events = 0;
	out->events = p->nr_ev ? xzalloc(p->nr_ev * sizeof(*out->events)) :
				 NULL;
	out->kind = "none";
	for (i = 0; i < (size_t)p->nr_ev; i++) {
		struct console_event *ev = &out->events[out->nr_events];
		int r;

		if (p->ev[i].flags & F_TENTATIVE)
			continue;
		finish_event(&p->ev[i], ev);
		out->nr_events++;
		r = primary_rank(ev->kind);
		if (r < best) {
			best = r;
			out->kind = ev->kind;
		}
	}
}

void console_report_init(struct console_report *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = "none";
}

void console_report_free(struct console_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_events; i++) {
		free(r->events[i].title);
		json_object_put(r->events[i].detail);
	}
	free(r->events);
	console_report_init(r);
}

int console_parse_fd(int fd, struct console_report *out)
{
	struct console_parser *p = console_parser_new();
	size_t cap = 1 << 18;
	char *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		console_parser_feed(p, buf, n);
	}
	free(buf);
	if (n < 0) {
		int err = errno;

		console_parser_free(p);
		errno = err;
		return -1;
	}
	console_parser_finish(p, out);
	console_parser_free(p);
	return 0;
}

int console_parse_file(const char *path, struct console_report *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, err;

	if (fd < 0)
		return -1;
	ret = console_parse_fd(fd, out);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

json_object *console_report_to_json(const struct console_report *r,
				    const char *file)
{
	json_object *o = json_object_new_object();
	json_object *evs = json_object_new_array();
	size_t i;

	if (file) {
		char *f = dup_clean(file, strlen(file));

		json_object_object_add(o, "file", json_object_new_string(f));
		free(f);
	}
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	for (i = 0; i < r->nr_events; i++) {
		const struct console_event *e = &r->events[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "kind", json_object_new_string(e->kind));
		json_object_object_add(j, "title",
				       json_object_new_string(e->title));
		json_object_object_add(j, "line", json_object_new_int64(e->line));
		if (e->detail) {
			json_object_object_foreach(e->detail, k, v)
				json_object_object_add(j, k, json_object_get(v));
		}
		json_object_array_add(evs, j);
	}
	json_object_object_add(o, "events", evs);
	json_object_object_add(o, "lines", json_object_new_int64(r->lines));
	json_object_object_add(o, "bytes", json_object_new_int64(r->bytes));
	if (r->dropped_events)
		json_object_object_add(o, "events_dropped",
				       json_object_new_int64(r->dropped_events));
	return o;
}

bool console_kind_is_crash(const char *kind)
{
	static const char *const crash[] = {
		"oops", "panic", "stack_overflow", "sanitizer", "hard_lockup",
	};
	size_t i;

	for (i = 0; kind && i < ARRAY_SIZE(crash); i++)
		if (!strcmp(kind, crash[i]))
			return true;
	return false;
}

size_t console_nr_patterns(void)
{
	return NR_ANCHORS;
}

const char *console_pattern(size_t i)
{
	return i < NR_ANCHORS ? anchors[i].s : NULL;
}
