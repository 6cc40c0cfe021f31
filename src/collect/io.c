// SPDX-License-Identifier: GPL-2.0
/*
 * Write bios by writer: who queued them at the filesystem's device, how
 * sequential they were, how long the leaf devices took to serve them.
 * The same counts from the hist triggers, which do not depend on the ring
 * buffer, are io-hist.c's, the test mount's device io-fsdev.c's (a unit
 * sharing io-int.h). Pure: text in, JSON out. Everything parsed here came
 * from the guest: numbers are checked (util/num.h), tables grow only with
 * the input, and the attribution table is capped (IO_MAX_PAGES).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/io-int.h"
#include "collect/io.h"
#include "collect/seek.h"
#include "util/dvec.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"

const char *const io_class_name[NR_IO] = { "direct", "memcg", "kswapd",
					   "flusher", "other" };

/*
 * Pages remembered for attribution: a bio bigger than IO_MAX_BIO_PAGES
 * (256 MiB; XFS queues 13 MiB bios) is attributed by its head, and past
 * IO_MAX_PAGES in all (4 GiB written, ~100 MB of table) no more pages
 * are remembered (io.attribution_truncated): hostile input stays bounded.
 */
#define IO_MAX_BIO_PAGES 65536
#define IO_MAX_PAGES (1 << 20)

enum io_class io_class_of(enum wkind k)
{
	switch (k) {
	case WK_DIRECT:
		return IO_DIRECT;
	case WK_MEMCG:
		return IO_MEMCG;
	case WK_KSWAPD:
		return IO_KSWAPD;
	case WK_FLUSHER:
		return IO_FLUSHER;
	default:
		return IO_OTHER;
	}
}

/* (dev, sector) -> value, open addressing; keys are never removed. */
struct key {
	unsigned int dev;
	unsigned long long sector;
};

struct ent {
	struct key k;
	bool used;
	double ts;
	int cls; /* -1 unknown */
	int pid; /* who queued the bio (pages), -1 unknown */
};

struct map {
	struct ent *v;
	size_t n, nslots;
};

static struct key mkkey(unsigned int dev, unsigned long long sector)
{
	return (struct key){ .dev = dev, .sector = sector };
}

static size_t hash_key(struct key k, size_t nslots)
{
	uint64_t x = k.sector * 0x9e3779b97f4a7c15ULL ^ k.dev;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x & (nslots - 1);
}

static bool same(struct key a, struct key b)
{
	return a.dev == b.dev && a.sector == b.sector;
}

static struct ent *map_get(struct map *m, struct key key, bool create)
{
	size_t h;

	if (create && 2 * (m->n + 1) > m->nslots) {
		struct map big = { .nslots = m->nslots ? 2 * m->nslots : 4096 };

		big.v = xzalloc(big.nslots * sizeof(*big.v));
		for (size_t i = 0; i < m->nslots; i++)
			if (m->v[i].used)
				*map_get(&big, m->v[i].k, true) = m->v[i];
		free(m->v);
		*m = big;
	}
	if (!m->nslots)
		return NULL;
	for (h = hash_key(key, m->nslots); m->v[h].used;
	     h = (h + 1) & (m->nslots - 1))
		if (same(m->v[h].k, key))
			return &m->v[h];
	if (!create)
		return NULL;
	m->v[h].used = true;
	m->v[h].k = key;
	m->v[h].cls = -1;
	m->v[h].pid = -1;
	m->n++;
	return &m->v[h];
}

struct writer {
	long long pages, bios;
	struct dvec bio_kib, service_us;
};

#define MAX_DEVS 64

struct leaf {
	unsigned int dev;
	long long requests, kib;
	struct dvec service_us;
};

struct io_state {
	bool have_fs_dev, seen, truncated;
	unsigned int fs_dev;
	struct writer w[NR_IO];
	struct map pages; /* (dev, sector of a page) -> writer class */
	struct map rqs; /* (dev, sector) of an issued request -> ts, class */
	struct leaf leaf[MAX_DEVS];
	size_t nleaf;
	long long leaf_overflow;
	struct seek_state *seek;
};

static unsigned int mkdev(unsigned int maj, unsigned int min)
{
	return (maj << 20) | (min & 0xfffff);
}

/* "MAJ<sep>MIN" (":" in fsdev.txt, "," in block events); *end past it. */
static bool parse_dev(struct numsrc *ns, const char *s, char sep,
		      unsigned int *dev, const char **end)
{
	long long maj, min;
	const char *e;

	if (!s || num_ll(ns, s, 10, 0, 4095, &maj, &e) || *e != sep ||
	    num_ll(ns, e + 1, 10, 0, 0xfffff, &min, &e))
		return false;
	*dev = mkdev(maj, min);
	if (end)
		*end = e;
	return true;
}

bool io_parse_devstr(const char *s, unsigned int *dev)
{
	return parse_dev(NULL, s, ':', dev, NULL);
}

struct io_state *io_new(const char *fs_dev)
{
	struct io_state *s = xzalloc(sizeof(*s));

	s->have_fs_dev = io_parse_devstr(fs_dev, &s->fs_dev);
	s->seek = seek_new();
	return s;
}

void io_free(struct io_state *s)
{
	if (!s)
		return;
	for (int i = 0; i < NR_IO; i++) {
		dvec_clear(&s->w[i].bio_kib);
		dvec_clear(&s->w[i].service_us);
	}
	for (size_t i = 0; i < s->nleaf; i++)
		dvec_clear(&s->leaf[i].service_us);
	free(s->pages.v);
	free(s->rqs.v);
	seek_free(s->seek);
	free(s);
}

struct seek_state *io_seek(struct io_state *s)
{
	return s->seek;
}

bool io_seen(const struct io_state *s)
{
	return s->seen;
}

long long io_pages(const struct io_state *s, enum io_class c)
{
	return s->w[c].pages;
}

long long io_bios(const struct io_state *s, enum io_class c)
{
	return s->w[c].bios;
}

/*
 * The block events' common part, from a bounded copy of the args:
 * "MAJ,MIN RWBS [BYTES (CMD)] SECTOR + NR ..." and, for a remap,
 * "... <- (MAJ,MIN) OLD_SECTOR".
 */
struct blk {
	unsigned int dev, old_dev;
	char rwbs[12];
	unsigned long long sector, old_sector;
	unsigned int nr;
	bool has_old;
};

/*
 * "254,32 W 4096 () 12345 + 8 [fio]", "254,32 W 12345 + 8 <- (8,16) 99":
 * the device, rwbs, the sector (the number before " + "), the sectors,
 * and a remap's origin.
 */
static bool parse_blk(const struct trace_line *l, struct blk *b)
{
	const char *p = l->args, *end = l->args + l->args_len, *r, *plus;
	long long sector, nr;
	size_t n;

	memset(b, 0, sizeof(*b));
	if (!parse_dev(l->ns, p, ',', &b->dev, &p) || p >= end || *p != ' ')
		return false;
	while (p < end && *p == ' ')
		p++;
	for (r = p; r < end && *r != ' '; r++)
		;
	n = r - p < (int)sizeof(b->rwbs) - 1 ? (size_t)(r - p) :
					       sizeof(b->rwbs) - 1;
	if (!n)
		return false;
	memcpy(b->rwbs, p, n);
	plus = memmem(r, end - r, " + ", 3);
	if (!plus)
		return false;
	for (p = plus; p > r && isdigit((unsigned char)p[-1]); p--)
		;
	if (p == plus || num_ll(l->ns, p, 10, 0, LLONG_MAX, &sector, NULL) ||
	    num_ll(l->ns, plus + 3, 10, 0, UINT_MAX, &nr, NULL))
		return false;
	b->sector = sector;
	b->nr = nr;
	p = memmem(plus, end - plus, " <- (", 5);
	if (p && parse_dev(l->ns, p + 5, ',', &b->old_dev, &p) && *p == ')' &&
	    !num_ll(l->ns, p + 1, 10, 0, LLONG_MAX, &sector, NULL)) {
		b->old_sector = sector;
		b->has_old = true;
	}
	return true;
}

static bool is_write(const struct blk *b)
{
	return strchr(b->rwbs, 'W') != NULL;
}

static void mark_pages(struct io_state *s, unsigned int dev,
		       unsigned long long sector, unsigned int nr, int cls,
		       int pid)
{
	unsigned int pages = (nr + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE;

	if (pages > IO_MAX_BIO_PAGES)
		pages = IO_MAX_BIO_PAGES;
	if (s->pages.n + pages > IO_MAX_PAGES) {
		s->truncated = true;
		return;
	}
	for (unsigned int i = 0; i < pages; i++) {
		struct ent *e = map_get(
			&s->pages, mkkey(dev, sector + i * SECTORS_PER_PAGE),
			true);

		e->cls = cls;
		e->pid = pid;
	}
}

void io_bio_queue(struct io_state *s, const struct trace_line *l,
		  enum io_class cls)
{
	struct writer *w = &s->w[cls];
	struct blk b;

	if (!parse_blk(l, &b) || !is_write(&b) || !b.nr)
		return;
	s->seen = true;
	/*
	 * A bio is traced once, where it is first queued (BIO_TRACE_COMPLETION):
	 * the fs's own bios at its device, md's member bios at the members.
	 * The pages remember their queuer (class and pid), which the leaf
	 * requests they become are attributed to (seek.c).
	 */
	if (!s->have_fs_dev || b.dev != s->fs_dev)
		return;
	seek_comm(s->seek, l->pid, l->comm);
	w->bios++;
	w->pages += (b.nr + SECTORS_PER_PAGE - 1) / SECTORS_PER_PAGE;
	dvec_push(&w->bio_kib, b.nr / 2.0);
	mark_pages(s, b.dev, b.sector, b.nr, cls, l->pid);
}

/* A remapped bio (partition, md, dm) carries its writer's class along. */
void io_bio_remap(struct io_state *s, const struct trace_line *l)
{
	struct blk b;
	struct ent *e;

	if (!parse_blk(l, &b) || !is_write(&b) || !b.has_old)
		return;
	s->seen = true;
	e = map_get(&s->pages, mkkey(b.old_dev, b.old_sector), false);
	if (e && e->cls >= 0)
		mark_pages(s, b.dev, b.sector, b.nr, e->cls, e->pid);
}

void io_rq_issue(struct io_state *s, const struct trace_line *l)
{
	struct blk b;
	struct ent *e, *page;

	if (!parse_blk(l, &b) || !is_write(&b) || !b.nr)
		return;
	s->seen = true;
	page = map_get(&s->pages, mkkey(b.dev, b.sector), false);
	e = map_get(&s->rqs, mkkey(b.dev, b.sector), true);
	e->ts = l->ts;
	e->cls = page ? page->cls : -1;
	seek_request(s->seek, b.dev, page ? page->pid : -1, e->cls, b.sector,
		     b.nr);
}

static struct leaf *leaf_of(struct io_state *s, unsigned int dev)
{
	for (size_t i = 0; i < s->nleaf; i++)
		if (s->leaf[i].dev == dev)
			return &s->leaf[i];
	if (s->nleaf == MAX_DEVS) {
		s->leaf_overflow++;
		return NULL;
	}
	s->leaf[s->nleaf].dev = dev;
	return &s->leaf[s->nleaf++];
}

void io_rq_complete(struct io_state *s, const struct trace_line *l)
{
	struct blk b;
	struct ent *e;
	struct leaf *lf;
	double us;

	if (!parse_blk(l, &b) || !is_write(&b) || !b.nr)
		return;
	s->seen = true;
	e = map_get(&s->rqs, mkkey(b.dev, b.sector), false);
	if (!e || e->ts < 0 || l->ts < e->ts)
		return;
	us = (l->ts - e->ts) * 1e6;
	e->ts = -1; /* served: a later request at that sector is new */
	lf = leaf_of(s, b.dev);
	if (lf) {
		lf->requests++;
		lf->kib += b.nr / 2;
		dvec_push(&lf->service_us, us);
	}
	if (e->cls >= 0)
		dvec_push(&s->w[e->cls].service_us, us);
}

/* Nearest-rank percentile (util/dvec.h); null (NAN) for an empty vector. */
static json_object *pct(struct dvec *d, double q)
{
	double v;

	dvec_sort(d);
	v = dvec_nearest_rank(d, q);
	return json_number(v);
}

static json_object *writer_json(const struct writer *cw, bool counts_ok)
{
	json_object *o = json_object_new_object();
	struct writer *w = (struct writer *)cw; /* sorts its vectors */

	json_put(o, "pages",
		 counts_ok ? json_object_new_int64(w->pages) : NULL);
	json_put(o, "bios", counts_ok ? json_object_new_int64(w->bios) : NULL);
	json_put(o, "bio_kib_p50", pct(&w->bio_kib, 0.5));
	json_put(o, "service_us_p50", pct(&w->service_us, 0.5));
	json_put(o, "service_us_p95", pct(&w->service_us, 0.95));
	json_put_int(o, "service_requests", w->service_us.n);
	return o;
}

json_object *io_json(const struct io_state *s, bool counts_ok)
{
	json_object *o = json_object_new_object(), *w, *d;
	char name[32];

	if (s->have_fs_dev) {
		snprintf(name, sizeof(name), "%u:%u", s->fs_dev >> 20,
			 s->fs_dev & 0xfffff);
		json_put_str(o, "fs_dev", name);
	}
	w = json_object_new_object();
	for (int i = 0; i < NR_IO; i++)
		json_put(w, io_class_name[i], writer_json(&s->w[i], counts_ok));
	json_put(o, "writers", w);
	d = json_object_new_object();
	for (size_t i = 0; i < s->nleaf; i++) {
		struct leaf *lf = (struct leaf *)&s->leaf[i];
		json_object *r = json_object_new_object();

		json_put_int(r, "write_requests", lf->requests);
		json_put_int(r, "write_kib", lf->kib);
		json_put(r, "service_us_p50", pct(&lf->service_us, 0.5));
		json_put(r, "service_us_p95", pct(&lf->service_us, 0.95));
		snprintf(name, sizeof(name), "%u:%u", lf->dev >> 20,
			 lf->dev & 0xfffff);
		json_put(d, name, r);
	}
	json_put(o, "devices", d);
	json_put(o, "seek", seek_json(s->seek, io_class_name, NR_IO));
	json_put(o, "attribution_truncated",
		 json_object_new_boolean(s->truncated));
	return o;
}
