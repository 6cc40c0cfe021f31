// SPDX-License-Identifier: GPL-2.0
/*
 * The deepest reclaim write (docs/collectors.md, stack.reclaim_write):
 * the stack sites' deep samples in the tracefs instances, each with the
 * chain its stacktrace trigger recorded. A sample counts when its chain
 * holds pageout() (or swap_writepage()/shmem_writepage()): a write by
 * reclaim, not any storage-layer hit that happened inside a reclaim
 * window (plug flushes of other tasks' requests, reads, shrinker I/O).
 */
#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/io.h"
#include "collect/stack.h"
#include "collect/stackprobe.h"
#include "collect/stackwrite.h"
#include "collect/trace.h"
#include "collect/windows.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

/* Guest text: at most this many samples and chain frames are kept. */
#define MAX_SAMPLES (1 << 20)
#define MAX_FRAMES (1 << 22)

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
	bool has_chain;
};

struct rw_state {
	struct windows w;
	struct sample *s;
	size_t ns, caps;
	char **frames;
	size_t nf, capf;
	long thread_size;
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
		    !st->s[i].has_chain)
			return &st->s[i];
	return NULL;
}

static void add_sample(struct rw_state *st, const struct tline *t, int site)
{
	const char *sp = memmem(t->rest, t->rest_len, " sp=", 4);
	struct sample *s;
	long long v;

	if (!sp || st->ns >= MAX_SAMPLES ||
	    num_ll(st->nums, sp + 4, 0, 0, stack_thread_size(st->thread_size),
		   &v, NULL))
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
	s->depth = stack_depth(v, st->thread_size);
}

/* "nr_reclaimed=N" of a reclaim _end event, else 0. */
static long long nr_reclaimed(struct rw_state *st, const struct tline *t)
{
	const char *k = memmem(t->rest, t->rest_len, "nr_reclaimed=", 13);
	long long v;

	return k && !num_ll(st->nums, k + 13, 10, 0, LLONG_MAX, &v, NULL) ? v :
									    0;
}

/* A " => frame" line: kept from the probed function outwards. */
static void chain_line(struct rw_state *st, struct sample *owner, const char *f,
		       size_t n)
{
	/* The trace starts inside the kprobe: drop to the site. */
	if (!owner->chain_len &&
	    !frame_is(f, n, stack_sites[owner->site].symbol))
		return;
	if (st->nf >= MAX_FRAMES)
		return;
	if (!owner->chain_len)
		owner->chain_at = st->nf;
	add_frame(st, f, n);
	owner->chain_len++;
}

static void read_trace(struct rw_state *st, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	struct sample *owner = NULL;

	while (text && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p), fn;
		const char *f;
		struct tline t;
		int site;

		if (skip_prefix_mem(p, n, " => ", &f, &fn) && fn) {
			if (owner)
				chain_line(st, owner, f, fn);
		} else if (*p != '#' && parse_tline(p, n, &t, st->nums)) {
			owner = NULL;
			windows_tick(&st->w, t.ts);
			if (ev_is(&t, "<stack trace>")) {
				owner = chain_owner(st, &t);
				if (owner)
					owner->has_chain = true;
			} else if ((site = site_by_event(&t)) >= 0)
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
 * Who wrote (collect/io.h: the frames of the chain), or NULL when the
 * chain holds no reclaim write.
 */
static const char *write_class(const struct rw_state *st,
			       const struct sample *s)
{
	int bits = 0, cls;

	for (size_t i = 0; i < s->chain_len; i++) {
		const char *f = st->frames[s->chain_at + i];

		bits |= io_frame_bits(f, strlen(f));
	}
	if (!(bits & ST_WRITEPAGE))
		return NULL;
	cls = io_stack_class(bits, s->comm);
	return cls < 0 ? "unresolved" : io_class_name[cls];
}

struct deepest {
	const struct sample *s;
	const char *cls;
	long long n;
};

static void consider(struct deepest *d, const struct sample *s, const char *cls)
{
	d->n++;
	if (!d->s || s->depth > d->s->depth) {
		d->s = s;
		d->cls = cls;
	}
}

static json_object *sample_json(const struct rw_state *st,
				const struct deepest *d, json_object *o)
{
	const struct sample *s = d->s;
	const struct stack_site *site = &stack_sites[s->site];
	json_object *chain = json_object_new_array();
	long ts = stack_thread_size(st->thread_size);

	json_put_int(o, "max_bytes", s->depth);
	json_put_num(o, "fraction", (double)s->depth / ts);
	json_put_int(o, "headroom_bytes", ts - s->depth);
	json_put_str(o, "site", site->name);
	json_put_str(o, "layer", stack_layer_name(site->layer));
	json_put_str(o, "comm", s->comm);
	json_put_int(o, "pid", s->pid);
	json_put_str(o, "class", d->cls);
	json_put(o, "t_s", json_object_new_double(s->ts));
	for (size_t i = 0; i < s->chain_len; i++)
		json_object_array_add(
			chain,
			json_object_new_string(st->frames[s->chain_at + i]));
	json_put(o, "chain", chain);
	return o;
}

/* The instances' per-CPU stats ("PATH/cpuN/stats:key: value" lines). */
static void read_loss(const struct stack_rw_input *in, struct trace_loss *entry,
		      struct trace_loss *leaf)
{
	const char *p = in->stats, *end = in->stats + in->stats_len;

	while (in->stats && p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool is_leaf = memmem(p, n, "/" STACK_LEAF_INSTANCE "/",
				      strlen(STACK_LEAF_INSTANCE) + 2);

		trace_loss_line(p, n, is_leaf ? leaf : entry, in->nums);
		p = nl ? nl + 1 : end;
	}
}

/* lost_events (null when unknown), complete, and why a figure is lossy. */
static void loss_json(json_object *o, const struct stack_rw_input *in)
{
	struct trace_loss e = { 0 }, l = { 0 };
	long long le, ll;
	const char *why = NULL;

	read_loss(in, &e, &l);
	le = trace_loss_total(&e);
	ll = trace_loss_total(&l);
	json_put(o, "lost_events", e.cpus ? json_object_new_int64(le) : NULL);
	json_put(o, "leaf_lost_events",
		 l.cpus && in->leaf ? json_object_new_int64(ll) : NULL);
	json_put(o, "complete",
		 json_object_new_boolean(e.cpus && !le &&
					 (!in->leaf || (l.cpus && !ll))));
	if (!e.cpus)
		why = "unknown: the instance's per-CPU ring-buffer stats were not captured, so lost samples cannot be ruled out";
	else if (le || (in->leaf && l.cpus && ll))
		why = "the ring buffer dropped samples (lost_events, leaf_lost_events): the deepest write may be missing, and the figures are lower bounds";
	else if (in->leaf && !l.cpus)
		why = "unknown for the leaves: the leaf instance's per-CPU stats were not captured";
	if (why)
		json_put_str(o, "lossy", why);
}

#define ENTRY_MARGIN                                                         \
	"depths are the stack pointer on entry to the probed function (its " \
	"return address pushed, its own frame not yet): the true deepest "   \
	"point is lower by that function's frame and whatever it calls "     \
	"below the last probe; entry_frame_bytes, when present, is the "     \
	"probed function's frame from the stack tracer"

static void totals_json(json_object *o, const struct rw_state *st,
			long long entry_n, long long not_write,
			long long no_chain, long long leaf_samples)
{
	json_put_int(o, "threshold_bytes", STACK_DEEP_BYTES);
	json_put_int(o, "thread_size", stack_thread_size(st->thread_size));
	json_put_int(o, "samples", entry_n);
	json_put_int(o, "leaf_samples", leaf_samples);
	json_put_int(o, "reclaim_windows",
		     windows_count(&st->w, WK_DIRECT, NULL) +
			     windows_count(&st->w, WK_MEMCG, NULL));
	json_put_int(o, "not_write", not_write);
	json_put_int(o, "no_chain", no_chain);
	json_put_str(o, "entry_margin", ENTRY_MARGIN);
}

/* by_class[cls]: storage-site writes counted, the deepest of any site. */
static void by_class_add(json_object *by, const char *cls,
			 const struct sample *s, bool leaf)
{
	json_object *c, *m;

	if (!json_object_object_get_ex(by, cls, &c)) {
		c = json_object_new_object();
		json_put_int(c, "writes", 0);
		json_put_int(c, "max_bytes", 0);
		json_put(by, cls, c);
	}
	json_object_object_get_ex(c, "writes", &m);
	json_object_set_int64(m, json_object_get_int64(m) + !leaf);
	json_object_object_get_ex(c, "max_bytes", &m);
	if (s->depth > json_object_get_int64(m))
		json_object_set_int64(m, s->depth);
}

json_object *stack_reclaim_write(const struct stack_rw_input *in)
{
	struct rw_state st = { .thread_size = in->thread_size,
			       .nums = in->nums };
	struct deepest entry = { 0 }, leaf = { 0 }, *best;
	json_object *o = json_object_new_object();
	json_object *by = json_object_new_object();
	long long not_write = 0, no_chain = 0, nentry, nleaf = 0;

	windows_init(&st.w);
	read_trace(&st, in->trace, in->trace_len);
	nentry = st.ns;
	read_trace(&st, in->leaf, in->leaf_len);
	windows_finish(&st.w, st.w.last);
	for (size_t i = 0; i < st.ns; i++) {
		const struct sample *s = &st.s[i];
		enum stack_layer l = stack_sites[s->site].layer;
		const char *cls;

		nleaf += l == STACK_LAYER_LEAF;
		if (l != STACK_LAYER_STORAGE && l != STACK_LAYER_LEAF)
			continue;
		if (!s->has_chain) {
			no_chain += l == STACK_LAYER_STORAGE;
			continue;
		}
		cls = write_class(&st, s);
		if (!cls) {
			not_write += l == STACK_LAYER_STORAGE;
			continue;
		}
		consider(l == STACK_LAYER_LEAF ? &leaf : &entry, s, cls);
		by_class_add(by, cls, s, l == STACK_LAYER_LEAF);
	}
	totals_json(o, &st, nentry, not_write, no_chain, nleaf);
	json_put_int(o, "writes", entry.n);
	json_put_int(o, "leaf_writes", leaf.n);
	loss_json(o, in);
	json_put(o, "by_class", by);
	if (entry.s)
		json_put(o, "entry",
			 sample_json(&st, &entry, json_object_new_object()));
	if (leaf.s)
		json_put(o, "leaf",
			 sample_json(&st, &leaf, json_object_new_object()));
	best = !leaf.s || (entry.s && entry.s->depth >= leaf.s->depth) ?
		       &entry :
		       &leaf;
	if (best->s)
		sample_json(&st, best, o);
	for (size_t i = 0; i < st.nf; i++)
		free(st.frames[i]);
	free(st.frames);
	free(st.s);
	windows_free(&st.w);
	return o;
}
