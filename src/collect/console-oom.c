// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: OOM reports and allocation failures (console-int.h).
 * An OOM report is read across its lines (the invoker, the memcg or
 * global scope, the Mem-Info, the victim) into one event.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "collect/console-int.h"
#include "util/num.h"
#include "util/str.h"

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
	long long x;

	if (!v || !n || n >= sizeof(buf) || !is_digit(v[0]))
		return;
	/* A bounded copy: the console line need not end after the value. */
	memcpy(buf, v, n);
	buf[n] = '\0';
	if (!num_ll(NULL, buf, 10, 0, LLONG_MAX, &x, NULL))
		json_object_object_add(o, k, json_object_new_int64(x));
}

static void jset_kvnum(json_object *o, const char *k, const char *s, size_t len,
		       const char *key, const char *stop)
{
	size_t n = 0;
	const char *v = kv(s, len, key, stop, &n);

	jset_num(o, k, v, n);
}

/* "gfp_mask=0x1100cca(GFP_HIGHUSER_MOVABLE)" / "mode:0x40dc0(GFP_KERNEL)" */
static void jset_gfp(json_object *o, const char *s, size_t len, const char *key)
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

bool oom_line(struct console_parser *p, const struct line *l)
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

bool oom_reading(const struct console_parser *p)
{
	const struct bev *e = p->last_oom >= 0 ? &p->ev[p->last_oom] : NULL;

	return e && !e->oom_constraint && !e->oom_victim;
}

/*
 * The file pages the OOM report being read says were left, before its
 * oom-kill: line: the global Mem-Info line "unevictable:N dirty:N
 * writeback:N" (pages; the per-node line is in kB and skipped), or the
 * memcg's memory.stat lines "file_dirty N", "file_writeback N" (bytes).
 * Never consumes the line.
 */
void oom_meminfo_line(struct console_parser *p, const struct line *l)
{
	const char *s = l->s, *v;
	size_t len = l->len, vn;
	struct bev *e;

	if (!oom_reading(p))
		return;
	e = &p->ev[p->last_oom];
	while (len && *s == ' ') {
		s++;
		len--;
	}
	if (has(s, len, "unevictable:") && !has(s, len, "kB")) {
		jset_kvnum(e->detail, "dirty_pages", s, len, " dirty:", " ");
		jset_kvnum(e->detail, "writeback_pages", s, len,
			   " writeback:", " ");
	} else if (skip_prefix_mem(s, len, "file_dirty ", &v, &vn) && vn) {
		jset_num(e->detail, "file_dirty_bytes", v, vn);
	} else if (skip_prefix_mem(s, len, "file_writeback ", &v, &vn) && vn) {
		jset_num(e->detail, "file_writeback_bytes", v, vn);
	}
}

bool alloc_line(struct console_parser *p, const struct line *l)
{
	const char *s = l->s;
	size_t len = l->len, end;
	struct bev *e;
	bool vm = !hit(l, A_PAF);

	e = new_event(p, l, K_ALLOC, F_SKIP_MEM | F_TRACEFUNC);
	if (!e)
		return true;
	e->detail = json_object_new_object();
	set_head(e,
		 vm ? "vmalloc allocation failure" : "page allocation failure",
		 NULL, 0);
	end = hit(l, A_PAF)	? l->pos[A_PAF] :
	      hit(l, A_VMALLOC) ? l->pos[A_VMALLOC] :
				  l->pos[A_VMERR];
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
