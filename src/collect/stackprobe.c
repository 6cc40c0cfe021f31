// SPDX-License-Identifier: GPL-2.0
/*
 * Stack depth per layer from kprobe events (docs/collectors.md): the sites,
 * the tracefs strings that arm them, and pure parsers of what comes back.
 */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "collect/windows.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"
#include "util/strbuf.h"

/*
 * Reclaim entry, filesystem writeback entry, storage layers top down.
 * XFS has no ->writepage in 6.1: its writeback entry is ->writepages.
 * virtio-blk takes plugged batches through ->queue_rqs, which does not
 * call ->queue_rq: both are probed.
 */
const struct stack_site stack_sites[] = {
	{ "try_to_free_pages", "try_to_free_pages", STACK_LAYER_RECLAIM },
	{ "try_to_free_mem_cgroup_pages", "try_to_free_mem_cgroup_pages",
	  STACK_LAYER_RECLAIM },
	{ "balance_pgdat", "balance_pgdat", STACK_LAYER_RECLAIM },
	{ "ext4_writepage", "ext4_writepage", STACK_LAYER_FS },
	{ "blkdev_writepage", "blkdev_writepage", STACK_LAYER_FS },
	{ "xfs_vm_writepages", "xfs_vm_writepages", STACK_LAYER_FS },
	/* What reclaim can still write through on 6.12 (no ext4/blkdev). */
	{ "swap_writepage", "swap_writepage", STACK_LAYER_FS },
	{ "f2fs_write_data_page", "f2fs_write_data_page", STACK_LAYER_FS },
	{ "submit_bio_noacct", "submit_bio_noacct", STACK_LAYER_STORAGE },
	{ "raid1_make_request", "raid1_make_request", STACK_LAYER_STORAGE },
	{ "raid5_make_request", "raid5_make_request", STACK_LAYER_STORAGE },
	{ "scsi_queue_rq", "scsi_queue_rq", STACK_LAYER_STORAGE },
	{ "iscsi_queuecommand", "iscsi_queuecommand", STACK_LAYER_STORAGE },
	{ "virtio_queue_rq", "virtio_queue_rq", STACK_LAYER_STORAGE },
	{ "virtio_queue_rqs", "virtio_queue_rqs", STACK_LAYER_STORAGE },
};
const size_t nr_stack_sites = ARRAY_SIZE(stack_sites);

const char *stack_layer_name(enum stack_layer l)
{
	return l == STACK_LAYER_RECLAIM ? "reclaim" :
	       l == STACK_LAYER_FS	? "fs" :
					  "storage";
}

char *stack_site_probe(const struct stack_site *s)
{
	/* b14@0/64: sp & 0x3fff, the offset into the 16 KiB stack. */
	return xasprintf("p:" STACK_PROBE_GROUP "/%s %s sp=$stack:b14@0/64\n",
			 s->name, s->symbol);
}

/*
 * Hard and soft interrupts and NMIs run on per-CPU stacks that are only
 * page aligned: their sp offset says nothing about a task's depth, so
 * those hits are left out (TRACE_FLAG_HARDIRQ | SOFTIRQ | NMI).
 */
#define TASK_CONTEXT "!(common_flags & 0x58)"

const char *stack_site_filter(void)
{
	/* 14336 = 16384 - STACK_DEEP_BYTES */
	return "sp < 14336 && " TASK_CONTEXT;
}

const char *stack_site_hist(void)
{
	return "hist:keys=sp:size=" STACK_HIST_SIZE " if " TASK_CONTEXT "\n";
}

struct bucket {
	long long depth, count;
};

static int by_depth(const void *a, const void *b)
{
	const struct bucket *x = a, *y = b;

	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* "{ sp:      12536 } hitcount:          1" */
static bool hist_line(const char *l, size_t n, long long *sp, long long *hits,
		      struct numsrc *ns)
{
	const char *k = memmem(l, n, "{ sp:", 5),
		   *h = memmem(l, n, "hitcount:", 9);

	return k && h &&
	       !num_ll(ns, k + 5, 0, 0, STACK_THREAD_SIZE - 1, sp, NULL) &&
	       /* hit counts of a 4096-entry hist: sums stay far from overflow */
	       !num_ll(ns, h + 9, 10, 1, 1LL << 40, hits, NULL);
}

json_object *stack_hist_summary(const char *text, size_t len, struct numsrc *ns)
{
	const char *p = text, *end = text + len;
	struct bucket *b = NULL;
	size_t n = 0, cap = 0;
	long long total = 0, dropped = 0, acc = 0, p99 = -1;
	bool header = false;
	json_object *o;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *line = p, *d;
		long long sp, hits;

		p = nl ? nl + 1 : end;
		if (memmem(line, ll, "# event histogram", 17))
			header = true;
		if ((d = memmem(line, ll, "Dropped:", 8)) &&
		    num_ll(ns, d + 8, 10, 0, LLONG_MAX, &dropped, NULL))
			dropped = 0;
		if (!hist_line(line, ll, &sp, &hits, ns))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			b = xrealloc(b, cap * sizeof(*b));
		}
		b[n].depth = STACK_THREAD_SIZE - sp;
		b[n++].count = hits;
		total += hits;
	}
	if (!header) {
		free(b);
		return NULL;
	}
	if (n) /* qsort(NULL, 0, ...) is undefined (make check-asan) */
		qsort(b, n, sizeof(*b), by_depth);
	/* Nearest rank: the smallest depth with >= 99% of hits at or below. */
	for (size_t i = 0; i < n && p99 < 0; i++) {
		acc += b[i].count;
		if (100 * acc >= 99 * total)
			p99 = b[i].depth;
	}
	o = json_object_new_object();
	json_put_int(o, "samples", total);
	if (n) {
		json_put_int(o, "max_bytes", b[n - 1].depth);
		json_put_int(o, "p99_bytes", p99);
		json_put_int(o, "min_bytes", b[0].depth);
	}
	json_put_int(o, "dropped", dropped);
	free(b);
	return o;
}

/* Does text hold the symbol as a whole word on some line? */
static const char *find_word_line(const char *text, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += wl) {
		bool left = p == text || isspace((unsigned char)p[-1]) ||
			    p[-1] == '/' || p[-1] == ':';
		bool right = !p[wl] || isspace((unsigned char)p[wl]);

		if (left && right) {
			while (p > text && p[-1] != '\n')
				p--;
			return p;
		}
	}
	return NULL;
}

char *stack_site_absent(const struct stack_site *s, const char *kprobe_events,
			const char *kallsyms, const char *agent_log)
{
	char *ev = xasprintf(STACK_PROBE_GROUP "/%s", s->name);
	char *what = xasprintf("'p:" STACK_PROBE_GROUP "/%s ", s->name);
	const char *line, *fail;
	char *why;

	line = kprobe_events ? find_word_line(kprobe_events, ev) : NULL;
	free(ev);
	if (line) {
		free(what);
		return NULL;
	}
	fail = agent_log ? strstr(agent_log, what) : NULL;
	free(what);
	if (kallsyms && !find_word_line(kallsyms, s->symbol))
		why = xasprintf(
			"%s is not in /proc/kallsyms (not built, module not loaded, or inlined)",
			s->symbol);
	else if (fail) {
		const char *c = strstr(fail, "': ");
		const char *nl = strchr(fail, '\n');

		why = xasprintf(
			"kprobe on %s refused: %.*s", s->symbol,
			c && (!nl || c < nl) ?
				(int)((nl ? nl : c + strlen(c)) - c - 3) :
				0,
			c ? c + 3 : "");
	} else
		why = xasprintf("no kprobe %s/%s in kprobe_events%s",
				STACK_PROBE_GROUP, s->name,
				kprobe_events ? "" : " (not fetched)");
	return why;
}

/* ---- the instance's trace ---- */

struct tline {
	char comm[32];
	int pid, cpu;
	double ts;
	const char *event, *rest; /* rest up to end of line */
	size_t event_len, rest_len;
};

/*
 * "  fio-123     [001] d..1.   15.532016: wblab_x: (sym+0x0/0x10) sp=12536"
 * The comm may hold spaces and dashes: the pid is the digits before the
 * " [CPU]" and the comm what comes before that dash.
 */
static bool parse_tline(const char *l, size_t n, struct tline *t,
			struct numsrc *ns)
{
	const char *end = l + n, *b, *c, *d, *colon, *e = NULL;
	long long pid, cpu;

	for (b = l; b < end; b++) {
		if (*b != '[' || b == l || b[-1] != ' ')
			continue;
		for (c = b + 1; c < end && isdigit((unsigned char)*c); c++)
			;
		if (c > b + 1 && c < end && *c == ']')
			break;
	}
	if (b >= end)
		return false;
	for (d = b; d > l && d[-1] == ' '; d--)
		;
	c = d;
	while (c > l && isdigit((unsigned char)c[-1]))
		c--;
	if (c == d || c == l || c[-1] != '-' ||
	    num_ll(ns, b + 1, 10, 0, INT_MAX, &cpu, NULL) ||
	    num_ll(ns, c, 10, 0, INT_MAX, &pid, NULL))
		return false;
	t->cpu = (int)cpu;
	t->pid = (int)pid;
	{
		const char *s = l;

		while (s < c - 1 && *s == ' ')
			s++;
		snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(c - 1 - s), s);
	}
	/* Skip "] ", the flags word if any, then the timestamp. */
	for (d = memchr(b, ']', end - b) + 1; d < end; d++) {
		/* The flags word ("...1.") is no timestamp: not an error. */
		if (isdigit((unsigned char)*d) && d[-1] == ' ' &&
		    !num_double(NULL, d, 0, 1e12, &t->ts, &e) && e < end &&
		    *e == ':')
			break;
	}
	if (d >= end)
		return false;
	d = e + 1;
	while (d < end && *d == ' ')
		d++;
	colon = memchr(d, ':', end - d);
	t->event = d;
	t->event_len = colon ? (size_t)(colon - d) : (size_t)(end - d);
	t->rest = colon ? colon + 1 : end;
	t->rest_len = end - t->rest;
	return true;
}

static bool ev_is(const struct tline *t, const char *name)
{
	return t->event_len == strlen(name) &&
	       !memcmp(t->event, name, t->event_len);
}

struct sample {
	int site, pid, cpu;
	char comm[32];
	double ts;
	long long depth;
	size_t chain_at, chain_len; /* frames in the shared frame list */
};

struct rw_state {
	struct windows w;
	struct sample *s;
	size_t ns, caps;
	char **frames;
	size_t nf, capf;
	struct numsrc *nums;
};

static int site_by_event(const struct tline *t)
{
	for (size_t i = 0; i < nr_stack_sites; i++)
		if (ev_is(t, stack_sites[i].name))
			return (int)i;
	return -1;
}

static bool frame_is(const char *f, size_t n, const char *sym)
{
	size_t l = strlen(sym);

	return n >= l && !memcmp(f, sym, l) &&
	       (n == l || f[l] == '+' || f[l] == ' ');
}

static void add_frame(struct rw_state *st, const char *f, size_t n)
{
	if (st->nf == st->capf) {
		st->capf = st->capf ? 2 * st->capf : 1024;
		st->frames = xrealloc(st->frames, st->capf * sizeof(char *));
	}
	st->frames[st->nf++] = xstrndup(f, n);
}

/* The sample a "<stack trace>" belongs to: the last one of that pid/CPU. */
static struct sample *chain_owner(struct rw_state *st, const struct tline *t)
{
	for (size_t i = st->ns; i-- > 0 && i + 8 > st->ns;)
		if (st->s[i].pid == t->pid && st->s[i].cpu == t->cpu &&
		    !st->s[i].chain_len)
			return &st->s[i];
	return NULL;
}

static void add_sample(struct rw_state *st, const struct tline *t, int site)
{
	const char *sp = memmem(t->rest, t->rest_len, " sp=", 4);
	struct sample *s;
	long long v;

	if (!sp || num_ll(st->nums, sp + 4, 0, 0, STACK_THREAD_SIZE, &v, NULL))
		return;
	if (st->ns == st->caps) {
		st->caps = st->caps ? 2 * st->caps : 256;
		st->s = xrealloc(st->s, st->caps * sizeof(*st->s));
	}
	s = &st->s[st->ns++];
	memset(s, 0, sizeof(*s));
	s->site = site;
	s->pid = t->pid;
	s->cpu = t->cpu;
	s->ts = t->ts;
	snprintf(s->comm, sizeof(s->comm), "%s", t->comm);
	s->depth = STACK_THREAD_SIZE - v;
}

/* "nr_reclaimed=N" of a reclaim _end event, else 0. */
static long long nr_reclaimed(struct rw_state *st, const struct tline *t)
{
	const char *k = memmem(t->rest, t->rest_len, "nr_reclaimed=", 13);
	long long v;

	return k && !num_ll(st->nums, k + 13, 10, 0, LLONG_MAX, &v, NULL) ? v :
									    0;
}

static void read_trace(struct rw_state *st, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct sample *owner = NULL;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), fn;
		const char *f;
		struct tline t;
		int site;

		if (skip_prefix_mem(p, n, " => ", &f, &fn) && fn) {
			/* The trace starts inside the kprobe: drop to the site. */
			if (owner && !owner->chain_len &&
			    !frame_is(f, fn, stack_sites[owner->site].symbol))
				;
			else if (owner) {
				if (!owner->chain_len)
					owner->chain_at = st->nf;
				add_frame(st, f, fn);
				owner->chain_len++;
			}
		} else if (*p != '#' && parse_tline(p, n, &t, st->nums)) {
			owner = NULL;
			windows_tick(&st->w, t.ts);
			if (ev_is(&t, "<stack trace>"))
				owner = chain_owner(st, &t);
			else if ((site = site_by_event(&t)) >= 0)
				add_sample(st, &t, site);
			else
				windows_event(&st->w, t.pid, t.ts, t.event,
					      t.event_len,
					      nr_reclaimed(st, &t));
		}
		p = nl ? nl + 1 : end;
	}
}

/*
 * Which reclaim window holds the sample (collect/windows.h): direct or
 * memcg reclaim of that pid, or a kswapd task, which only ever reclaims
 * (known by its wake/sleep events, or by name if it emitted none).
 */
static const char *in_window(const struct rw_state *st, const struct sample *s)
{
	enum wkind k = windows_at(&st->w, s->pid, s->ts);

	if (k == WK_DIRECT || k == WK_MEMCG || k == WK_KSWAPD)
		return wkind_name[k];
	return starts_with(s->comm, "kswapd") ? wkind_name[WK_KSWAPD] : NULL;
}

json_object *stack_reclaim_write(const char *text, size_t len,
				 struct numsrc *ns)
{
	struct rw_state st = { .nums = ns };
	json_object *o = json_object_new_object(), *chain;
	const struct sample *best = NULL;
	const char *best_win = NULL;
	long long in = 0;

	windows_init(&st.w);
	read_trace(&st, text, len);
	windows_finish(&st.w, st.w.last);
	for (size_t i = 0; i < st.ns; i++) {
		const struct sample *s = &st.s[i];
		const char *w;

		if (stack_sites[s->site].layer != STACK_LAYER_STORAGE)
			continue;
		w = in_window(&st, s);
		if (!w)
			continue;
		in++;
		if (!best || s->depth > best->depth) {
			best = s;
			best_win = w;
		}
	}
	json_put(o, "threshold_bytes", json_object_new_int(STACK_DEEP_BYTES));
	json_put_int(o, "samples", st.ns);
	json_put_int(o, "reclaim_windows",
		     windows_count(&st.w, WK_DIRECT, NULL) +
			     windows_count(&st.w, WK_MEMCG, NULL));
	json_put_int(o, "in_reclaim", in);
	if (best) {
		json_put_int(o, "max_bytes", best->depth);
		json_put_str(o, "site", stack_sites[best->site].name);
		json_put_str(o, "comm", best->comm);
		json_put(o, "pid", json_object_new_int(best->pid));
		json_put_str(o, "window", best_win);
		json_put(o, "t_s", json_object_new_double(best->ts));
		chain = json_object_new_array();
		for (size_t i = 0; i < best->chain_len; i++)
			json_object_array_add(
				chain, json_object_new_string(
					       st.frames[best->chain_at + i]));
		json_put(o, "chain", chain);
	}
	for (size_t i = 0; i < st.nf; i++)
		free(st.frames[i]);
	free(st.frames);
	free(st.s);
	windows_free(&st.w);
	return o;
}
