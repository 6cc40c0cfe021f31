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
 *
 * The unit (console-int.h): this file reads lines and anchors;
 * console-events.c and console-oom.c recognise the events, console-text.c
 * normalises titles and frames, console-patterns.c names the guilty
 * function, console-report.c makes the report.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/console-int.h"

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
static int anchor_at(const struct console_parser *p, const char *s, size_t len,
		     size_t i, int from, size_t *start)
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

static bool handle_anchors(struct console_parser *p, const struct line *l)
{
	if (hit(l, A_STALL) && stall_marker(p, l))
		return true;
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
			return false; /* part of the oops being read */
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
		return simple_oops(
			p, l,
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
		return false; /* Rust panics end in BUG() */
	if (hit(l, A_KBUG) || hit(l, A_KBUG2)) {
		size_t len;
		const char *s = at(l, hit(l, A_KBUG) ? A_KBUG : A_KBUG2, &len);

		if (has(s, len, "mm/usercopy.c"))
			return simple_oops(p, l, "BUG: bad usercopy",
					   F_TRACEFUNC);
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
				 cut(s, len, msg_delims,
				     ARRAY_SIZE(msg_delims)));
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
		ctx_close(p); /* end of the call trace */
	}
}

static void process_line(struct console_parser *p, const char *raw, size_t len)
{
	struct line l;
	bool consumed = false;

	p->lineno++;
	if (len && raw[len - 1] == '\r')
		len--;
	l.raw = raw;
	l.rlen = len;
	find_anchors(p, &l);
	if (!l.hits && p->ctx < 0 && p->df < 0 && !p->preamble && p->seen &&
	    !oom_reading(p) && !stall_reading(p))
		return;
	strip_prefix(&l);
	oom_meminfo_line(p, &l);
	if (l.hits)
		consumed = handle_anchors(p, &l);
	if (!consumed && stall_reading(p))
		stall_dump_line(p, &l);
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
	return p->ctx < 0 && p->df < 0 && !p->preamble && p->seen &&
	       !oom_reading(p) && !stall_reading(p);
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
				     CONSOLE_LINE_MAX :
				     (size_t)(le - ls));
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
				     take > CONSOLE_LINE_MAX ?
					     CONSOLE_LINE_MAX :
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
	free(p->stall);
	free(p);
}

void console_parser_flush(struct console_parser *p)
{
	if (p->llen || p->lover) {
		process_line(p, p->lbuf, p->llen);
		p->llen = 0;
		p->lover = false;
	}
	ctx_close(p);
}
