// SPDX-License-Identifier: GPL-2.0
/*
 * The hist triggers' counts of write bios and writepage calls by writer
 * class (collect/io.h): the kernel's own tables, which lose nothing when
 * the ring buffer does. A class is read off each entry's kernel stack.
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "collect/io-int.h"
#include "collect/io.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"
#include "util/str.h"

static const struct {
	const char *fn;
	int bit;
} frames[] = {
	{ "try_to_free_mem_cgroup_pages", ST_MEMCG },
	{ "try_to_free_pages", ST_DIRECT },
	{ "balance_pgdat", ST_KSWAPD },
	{ "kswapd", ST_KSWAPD },
	{ "pageout", ST_RECLAIM | ST_WRITEPAGE },
	{ "swap_writepage", ST_WRITEPAGE },
	{ "shmem_writepage", ST_WRITEPAGE },
	/* 7.x's names of the two (collect/stackprobe.c) */
	{ "swap_writeout", ST_WRITEPAGE },
	{ "shmem_writeout", ST_WRITEPAGE },
	{ "shrink_folio_list", ST_RECLAIM },
	{ "shrink_inactive_list", ST_RECLAIM },
	{ "shrink_lruvec", ST_RECLAIM },
	{ "shrink_node", ST_RECLAIM },
	{ "do_try_to_free_pages", ST_RECLAIM },
	{ "wb_workfn", ST_FLUSHER },
	{ "wb_do_writeback", ST_FLUSHER },
	{ "wb_writeback", ST_FLUSHER },
};

/* "         pageout+0x1a5/0x3c0" */
int io_frame_bits(const char *p, size_t n)
{
	const char *e;

	while (n && isspace((unsigned char)*p))
		p++, n--;
	e = memchr(p, '+', n);
	n = e ? (size_t)(e - p) : n;
	for (size_t i = 0; i < ARRAY_SIZE(frames); i++)
		if (strlen(frames[i].fn) == n && !memcmp(frames[i].fn, p, n))
			return frames[i].bit;
	return 0;
}

int io_stack_class(int bits, const char *comm)
{
	if (bits & ST_MEMCG)
		return IO_MEMCG;
	if (bits & ST_DIRECT)
		return IO_DIRECT;
	if (bits & ST_KSWAPD ||
	    (bits & ST_RECLAIM && starts_with(comm, "kswapd")))
		return IO_KSWAPD;
	if (bits & ST_RECLAIM)
		return -1;
	if (bits & ST_FLUSHER)
		return IO_FLUSHER;
	return IO_OTHER;
}

struct hist_entry {
	char comm[24];
	unsigned long long dev, flags, hitcount, nr_sector;
	bool has_dev, has_flags;
	int bits;
};

/* "key: value" in the line l (n bytes): the number after "key:". */
static bool field_num(struct numsrc *ns, const char *l, size_t n,
		      const char *key, unsigned long long *v)
{
	const char *p = memmem(l, n, key, strlen(key));
	long long x;

	if (!p || num_ll(ns, p + strlen(key), 10, 0, LLONG_MAX, &x, NULL))
		return false;
	*v = x;
	return true;
}

static void parse_key_line(const char *line, const char *l, size_t n,
			   struct hist_entry *e, struct numsrc *ns)
{
	const char *p = strstr(line, "common_pid: ");

	if (p) {
		const char *q = p + 12, *br = strchr(q, '[');
		size_t n = br ? (size_t)(br - q) : strlen(q);

		while (n && q[n - 1] == ' ')
			n--;
		snprintf(e->comm, sizeof(e->comm), "%.*s", (int)n, q);
	}
	e->has_dev = field_num(ns, l, n, "dev:", &e->dev);
	e->has_flags = field_num(ns, l, n, "reclaim_flags:", &e->flags);
}

typedef void (*hist_fn)(const struct hist_entry *e, void *ctx);

/* Walk a hist file; false (and why) if it is none or dropped entries. */
static bool hist_walk(const char *text, size_t len, hist_fn fn, void *ctx,
		      char *why, size_t why_len, struct numsrc *ns)
{
	const char *p = text, *end = text + len;
	struct hist_entry e;
	bool in = false, totals = false;
	unsigned long long dropped = 0;

	memset(&e, 0, sizeof(e));
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *l = p;
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		p = nl ? nl + 1 : end;
		if (starts_with(line, "{ ")) {
			memset(&e, 0, sizeof(e));
			parse_key_line(line, l, n, &e, ns);
			in = true;
		} else if (in && line[0] != '}' &&
			   isspace((unsigned char)line[0])) {
			e.bits |= io_frame_bits(line, strlen(line));
		}
		if (in && strstr(line, "} hitcount:")) {
			field_num(ns, l, n, "hitcount:", &e.hitcount);
			field_num(ns, l, n, "nr_sector:", &e.nr_sector);
			fn(&e, ctx);
			in = false;
		}
		if (strstr(line, "Totals:"))
			totals = true;
		if (totals && field_num(ns, l, n, "Dropped:", &dropped) &&
		    dropped)
			break;
	}
	if (!totals) {
		snprintf(why, why_len,
			 "no hist trigger output (CONFIG_HIST_TRIGGERS off?)");
		return false;
	}
	if (dropped) {
		snprintf(why, why_len, "the hist table dropped %llu entries",
			 dropped);
		return false;
	}
	return true;
}

struct bio_ctx {
	bool have_dev;
	unsigned int dev;
	long long bios[NR_IO], pages[NR_IO];
	long long unresolved_bios, unresolved_pages;
};

static void bio_entry(const struct hist_entry *e, void *v)
{
	struct bio_ctx *c = v;
	int cls;
	long long pages =
		(e->nr_sector + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE;

	if (c->have_dev && (!e->has_dev || e->dev != c->dev))
		return;
	/* The hist sums sectors over bios: pages are sectors / 8 here. */
	pages = e->nr_sector / SECTORS_PER_PAGE;
	cls = io_stack_class(e->bits, e->comm);
	if (cls < 0) {
		c->unresolved_bios += e->hitcount;
		c->unresolved_pages += pages;
		return;
	}
	c->bios[cls] += e->hitcount;
	c->pages[cls] += pages;
}

json_object *io_hist_bios(const char *text, size_t len, const char *fs_dev,
			  char *why, size_t why_len, struct numsrc *ns)
{
	struct bio_ctx c = { 0 };
	json_object *o;

	c.have_dev = io_parse_devstr(fs_dev, &c.dev);
	if (!hist_walk(text, len, bio_entry, &c, why, why_len, ns))
		return NULL;
	o = json_object_new_object();
	for (int i = 0; i < NR_IO; i++) {
		json_object *r = json_object_new_object();

		json_put_int(r, "bios", c.bios[i]);
		json_put_int(r, "pages", c.pages[i]);
		json_put(o, io_class_name[i], r);
	}
	if (c.unresolved_bios) {
		json_object *r = json_object_new_object();

		json_put_int(r, "bios", c.unresolved_bios);
		json_put_int(r, "pages", c.unresolved_pages);
		json_put(o, "reclaim_unresolved", r);
	}
	return o;
}

struct wf_ctx {
	long long n[NR_IO][2]; /* file, anon */
	long long unresolved[2];
};

/* trace_reclaim_flags(): RECLAIM_WB_ANON 0x1, RECLAIM_WB_FILE 0x2. */
static void wf_entry(const struct hist_entry *e, void *v)
{
	struct wf_ctx *c = v;
	int cls = io_stack_class(e->bits, e->comm);
	int anon = e->has_flags && (e->flags & 0x1) && !(e->flags & 0x2);

	if (cls < 0)
		c->unresolved[anon] += e->hitcount;
	else
		c->n[cls][anon] += e->hitcount;
}

json_object *io_hist_write_folio(const char *text, size_t len, char *why,
				 size_t why_len, struct numsrc *ns)
{
	struct wf_ctx c = { 0 };
	json_object *o;

	if (!hist_walk(text, len, wf_entry, &c, why, why_len, ns))
		return NULL;
	o = json_object_new_object();
	for (int i = 0; i < NR_IO; i++) {
		json_object *r;

		if (i == IO_FLUSHER)
			continue; /* the flusher never calls pageout() */
		r = json_object_new_object();
		json_put_int(r, "file", c.n[i][0]);
		json_put_int(r, "anon", c.n[i][1]);
		json_put(o, io_class_name[i], r);
	}
	if (c.unresolved[0] || c.unresolved[1]) {
		json_object *r = json_object_new_object();

		json_put_int(r, "file", c.unresolved[0]);
		json_put_int(r, "anon", c.unresolved[1]);
		json_put(o, "reclaim_unresolved", r);
	}
	return o;
}
