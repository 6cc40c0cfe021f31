// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: the `stall` event. The agent's watcher (agent/watch.c)
 * takes two SysRq-t dumps some seconds apart once no progress counter
 * moved for a while, each between "wblab: stall dump N: ..." and
 * "wblab: stall dump N end", with "wblab: stall dump N vm ..." and
 * "... dev NAME done D inflight R W" lines for the counters. Tasks in D
 * state at the same wait site in both dumps (the same pid) are stuck, not
 * slow: the event's title names their wait sites, and its detail the
 * tasks, the block requests in flight in both dumps on a device that
 * completed nothing between them, the counters, and the allocation
 * failures (GFP_ATOMIC among them) the console had by the second dump.
 *
 * After dump 2 the watcher may say the standstill ended ("wblab: stall
 * ended: progress after N s"): the event's ended_after_s, and how many
 * of the block layer's "I/O error, dev" lines came before it (a
 * standstill that ends because the requests failed did not recover).
 *
 * Bounded: STALL_MAX_TASKS tasks and STALL_MAX_DEVS devices a dump, a
 * dump read for at most STALL_DUMP_LINES lines. A dump 1 after a
 * "recovered" replaces the earlier one; other dump lines after dump 2
 * change nothing.
 *
 * The same wait site is the same first STALL_CHAIN reliable frames past
 * the scheduler's, not only the first: a writer that got its clone from
 * md's bio_set and now waits for fs_bio_set's is in mempool_alloc in both
 * dumps, but it moved, and a task that moved is not stuck (lab 6.12,
 * swap-direct-mglru-off, tests/data/stall/README.md).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "collect/blocked.h"
#include "collect/console-int.h"
#include "util/json.h"
#include "util/str.h"

#define STALL_MAX_TASKS 64
#define STALL_MAX_DEVS 16
#define STALL_DUMP_LINES 20000
#define STALL_MARK "wblab: stall dump "
#define STALL_ENDED "wblab: stall ended: progress after "
/* The title: "stall in SITE, SITE, ..." while it fits HEAD_MAX. */
#define STALL_MAX_SITES 8
/* Frames past the scheduler's that must match in both dumps. */
#define STALL_CHAIN 4

static const char *const vm_keys[] = {
	"pswpout", "pgpgout", "nr_free_pages", "nr_writeback", "workload",
};
#define NR_VM ARRAY_SIZE(vm_keys)

struct stall_task {
	int pid;
	char who[48]; /* the work function of a kworker, else the comm */
	/* frames past the scheduler's; chain[0] is the site titles name */
	char chain[STALL_CHAIN][FRAME_MAX];
	int nr_chain;
};

struct stall_dev {
	char name[32];
	unsigned long long done, in_r, in_w;
};

struct stall_dump {
	bool seen;
	long line;
	struct stall_task task[STALL_MAX_TASKS];
	int nr_task;
	long nr_blocked;
	struct stall_dev dev[STALL_MAX_DEVS];
	int nr_dev;
	long long vm[NR_VM];
	bool have_vm[NR_VM];
};

struct stall_state {
	int cur; /* dump being read (0, 1), -1 for none */
	long cur_lines;
	struct stall_task *open; /* D-state task whose wait is not found */
	struct stall_dump dump[2];
	long long ended_s; /* the watcher saw progress again; -1 not */
	long io_errors; /* "I/O error, dev" lines after dump 2, before that */
};

/* After dump 2 until the watcher says it ended. */
static bool awaiting_end(const struct stall_state *st)
{
	return st->cur < 0 && st->dump[1].seen && st->ended_s < 0;
}

bool stall_reading(const struct console_parser *p)
{
	return p->stall && (p->stall->cur >= 0 || awaiting_end(p->stall));
}

static bool num(const char **s, const char *end, unsigned long long *v)
{
	const char *c = *s;

	while (c < end && *c == ' ')
		c++;
	if (c >= end || !is_digit(*c))
		return false;
	*v = 0;
	for (; c < end && is_digit(*c); c++)
		*v = *v > (~0ull - 9) / 10 ? ~0ull : *v * 10 + (*c - '0');
	*s = c;
	return true;
}

/* "KEY N KEY N ...": the counters the watcher printed, known keys only. */
static void vm_line(struct stall_dump *d, const char *s, const char *end)
{
	while (s < end) {
		const char *k = s, *ke;
		unsigned long long v;

		while (k < end && *k == ' ')
			k++;
		for (ke = k; ke < end && *ke != ' '; ke++)
			;
		s = ke;
		if (!num(&s, end, &v))
			return;
		for (size_t i = 0; i < NR_VM; i++)
			if ((size_t)(ke - k) == strlen(vm_keys[i]) &&
			    !memcmp(k, vm_keys[i], ke - k)) {
				d->vm[i] = v > LLONG_MAX ? LLONG_MAX :
							   (long long)v;
				d->have_vm[i] = true;
			}
	}
}

/* "NAME done D inflight R W" */
static void dev_line(struct stall_dump *d, const char *s, const char *end)
{
	const char *ne = memchr(s, ' ', end - s);
	struct stall_dev v = { 0 };
	size_t rn;

	if (!ne || ne == s || ne - s >= (long)sizeof(v.name) ||
	    d->nr_dev >= STALL_MAX_DEVS)
		return;
	snprintf(v.name, sizeof(v.name), "%.*s", (int)(ne - s), s);
	for (char *c = v.name; *c; c++)
		if (!is_ident(*c) && *c != '-' && *c != '.')
			return;
	s = ne;
	if (!skip_prefix_mem(s, end - s, " done", &s, &rn) ||
	    !num(&s, end, &v.done) ||
	    !skip_prefix_mem(s, end - s, " inflight", &s, &rn) ||
	    !num(&s, end, &v.in_r) || !num(&s, end, &v.in_w))
		return;
	d->dev[d->nr_dev++] = v;
}

static struct stall_state *state(struct console_parser *p)
{
	if (!p->stall) {
		p->stall = xzalloc(sizeof(*p->stall));
		p->stall->cur = -1;
		p->stall->ended_s = -1;
	}
	return p->stall;
}

/*
 * "wblab: stall ended: progress after N s": after dump 2 the watcher saw
 * something move again, N s after it stopped. Only the first after a
 * dump 2 counts.
 */
static bool stall_ended(struct console_parser *p, const char *r,
			const char *end)
{
	struct stall_state *st = p->stall;
	unsigned long long n;

	if (!st || !awaiting_end(st) || !num(&r, end, &n))
		return true;
	st->ended_s = n > LLONG_MAX ? LLONG_MAX : (long long)n;
	return true;
}

bool stall_marker(struct console_parser *p, const struct line *l)
{
	const char *s = l->s, *end = l->s + l->len, *r;
	struct stall_state *st;
	struct stall_dump *d;
	unsigned long long n;
	size_t rn;

	if (skip_prefix_mem(s, l->len, STALL_ENDED, &r, &rn))
		return stall_ended(p, r, end);
	if (!skip_prefix_mem(s, l->len, STALL_MARK, &r, &rn) ||
	    !num(&r, end, &n) || n < 1 || n > 2)
		return false;
	st = state(p);
	d = &st->dump[n - 1];
	if (r < end && *r == ':') {
		if (st->dump[1].seen)
			return true; /* the evidence is taken */
		memset(d, 0, sizeof(*d));
		d->seen = true;
		d->line = p->lineno;
		st->cur = n - 1;
		st->cur_lines = 0;
		st->open = NULL;
	} else if (!d->seen) {
		return true;
	} else if (skip_prefix_mem(r, end - r, " vm ", &s, &rn)) {
		vm_line(d, s, end);
	} else if (skip_prefix_mem(r, end - r, " dev ", &s, &rn)) {
		dev_line(d, s, end);
	} else if (skip_prefix_mem(r, end - r, " end", &s, &rn)) {
		st->cur = -1;
	}
	return true;
}

/*
 * A line of the dump being read: its D-state tasks and their wait sites;
 * after dump 2, until the watcher says the standstill ended, whether it
 * is an I/O error.
 */
void stall_dump_line(struct console_parser *p, const struct line *l)
{
	struct stall_state *st = p->stall;
	struct stall_dump *d;
	struct sysrq_task t;
	const char *wf;
	size_t wn;
	char fn[FRAME_MAX];

	if (awaiting_end(st)) {
		/*
		 * The block layer's "I/O error, dev sda, sector ...": a
		 * standstill that ends on failed requests (iSCSI's session
		 * recovery timing out fails them all) did not recover.
		 */
		if (memmem(l->s, l->len, "I/O error, dev ", 15) &&
		    st->io_errors < LONG_MAX)
			st->io_errors++;
		return;
	}
	if (++st->cur_lines > STALL_DUMP_LINES) {
		st->cur = -1;
		return;
	}
	d = &st->dump[st->cur];
	if (sysrq_task_line(l->s, l->len, &t, NULL)) {
		st->open = NULL;
		if (t.state != 'D')
			return;
		d->nr_blocked++;
		if (d->nr_task >= STALL_MAX_TASKS)
			return;
		st->open = &d->task[d->nr_task++];
		memset(st->open, 0, sizeof(*st->open));
		st->open->pid = t.pid;
		snprintf(st->open->who, sizeof(st->open->who), "%s", t.comm);
	} else if (st->open && memmem(l->s, l->len, "</TASK>", 7)) {
		st->open = NULL; /* the record ends: no frame past it */
	} else if (st->open && (wn = sysrq_work(l->s, l->len, &wf))) {
		snprintf(st->open->who, sizeof(st->open->who), "%.*s", (int)wn,
			 wf);
	} else if (st->open && st->open->nr_chain < STALL_CHAIN &&
		   sysrq_frame(l->s, l->len, fn, sizeof(fn)) &&
		   (st->open->nr_chain || !sysrq_sched_frame(fn))) {
		struct stall_task *t = st->open;

		snprintf(t->chain[t->nr_chain++], FRAME_MAX, "%s", fn);
	}
}

static bool same_chain(const struct stall_task *a, const struct stall_task *b)
{
	if (a->nr_chain != b->nr_chain)
		return false;
	for (int i = 0; i < a->nr_chain; i++)
		if (strcmp(a->chain[i], b->chain[i]))
			return false;
	return true;
}

static const struct stall_task *find_task(const struct stall_dump *d,
					  const struct stall_task *t)
{
	for (int i = 0; i < d->nr_task; i++)
		if (d->task[i].pid == t->pid && same_chain(&d->task[i], t))
			return &d->task[i];
	return NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct wait sites of the stuck tasks, sorted: a stable title. */
static size_t sites(const struct stall_state *st, const char **site)
{
	const struct stall_dump *d = &st->dump[1];
	size_t n = 0;

	for (int i = 0; i < d->nr_task; i++) {
		const char *w = d->task[i].chain[0];
		bool dup = false;

		if (!w[0] || !find_task(&st->dump[0], &d->task[i]))
			continue;
		for (size_t j = 0; j < n; j++)
			dup |= !strcmp(site[j], w);
		if (!dup && n < STALL_MAX_TASKS)
			site[n++] = w;
	}
	qsort(site, n, sizeof(*site), cmp_str);
	return n;
}

static json_object *sites_json(const struct stall_state *st, const char **site,
			       size_t n)
{
	const struct stall_dump *d = &st->dump[1];
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object(),
			    *who = json_object_new_array();

		for (int j = 0; j < d->nr_task; j++)
			if (!strcmp(d->task[j].chain[0], site[i]) &&
			    find_task(&st->dump[0], &d->task[j])) {
				char *c = dup_clean(d->task[j].who,
						    strlen(d->task[j].who));

				json_object_array_add(
					who, json_object_new_string(c));
				free(c);
			}
		json_put_str(o, "wait", site[i]);
		json_put(o, "tasks", who);
		json_object_array_add(a, o);
	}
	return a;
}

/*
 * Requests issued and never completed: in flight at both dumps on a
 * device whose completed count did not move between them.
 */
static json_object *devs_json(const struct stall_state *st)
{
	const struct stall_dump *a = &st->dump[0], *b = &st->dump[1];
	json_object *arr = json_object_new_array();

	for (int i = 0; i < b->nr_dev; i++) {
		const struct stall_dev *v = &b->dev[i];
		json_object *o;

		for (int j = 0; j < a->nr_dev; j++) {
			const struct stall_dev *u = &a->dev[j];

			if (strcmp(u->name, v->name))
				continue;
			o = json_object_new_object();
			json_put_str(o, "dev", v->name);
			json_put_int(o, "completed",
				     (long long)(v->done - u->done));
			json_put_int(o, "inflight_reads", (long long)v->in_r);
			json_put_int(o, "inflight_writes", (long long)v->in_w);
			json_put(
				o, "stuck",
				json_object_new_boolean(v->done == u->done &&
							v->in_r + v->in_w > 0 &&
							u->in_r + u->in_w > 0));
			json_object_array_add(arr, o);
		}
	}
	return arr;
}

static json_object *vm_json(const struct stall_dump *d)
{
	json_object *o = json_object_new_object();

	for (size_t i = 0; i < NR_VM; i++)
		if (d->have_vm[i])
			json_put_int(o, vm_keys[i], d->vm[i]);
	return o;
}

/* Allocation failures the console had by the second dump. */
static void alloc_failures(const struct console_parser *p, long before,
			   json_object *detail)
{
	long all = 0, atomic = 0;

	for (int i = 0; i < p->nr_ev; i++) {
		json_object *f;

		if (p->ev[i].kind != K_ALLOC || p->ev[i].line > before)
			continue;
		all++;
		if (json_object_object_get_ex(p->ev[i].detail, "gfp_flags",
					      &f) &&
		    strstr(json_object_get_string(f), "GFP_ATOMIC"))
			atomic++;
	}
	json_put_int(detail, "alloc_failures", all);
	json_put_int(detail, "alloc_failures_atomic", atomic);
}

void stall_finish(struct console_parser *p)
{
	struct stall_state *st = p->stall;
	const char *site[STALL_MAX_TASKS];
	struct line l = { 0 };
	char title[HEAD_MAX];
	struct obuf o = { title, sizeof(title), 0 };
	struct bev *e;
	size_t n;

	if (!st || !st->dump[0].seen || !st->dump[1].seen)
		return;
	n = sites(st, site);
	if (!n)
		return;
	e = new_event(p, &l, K_STALL, F_NOFUNC);
	if (!e)
		return;
	title[0] = '\0';
	for (size_t i = 0; i < n && i < STALL_MAX_SITES; i++) {
		oputs(&o, i ? ", " : "");
		onorm(&o, site[i], strlen(site[i]));
	}
	set_head(e, "stall in ", title, strlen(title));
	e->line = st->dump[0].line;
	e->detail = json_object_new_object();
	json_put(e->detail, "sites", sites_json(st, site, n));
	json_put_int(e->detail, "blocked_first", st->dump[0].nr_blocked);
	json_put_int(e->detail, "blocked_second", st->dump[1].nr_blocked);
	json_put(e->detail, "devices", devs_json(st));
	json_put(e->detail, "vm_first", vm_json(&st->dump[0]));
	json_put(e->detail, "vm_second", vm_json(&st->dump[1]));
	alloc_failures(p, st->dump[1].line, e->detail);
	if (st->ended_s >= 0) {
		json_put_int(e->detail, "ended_after_s", st->ended_s);
		json_put_int(e->detail, "io_errors_before_end", st->io_errors);
	}
	ctx_close(p);
}
