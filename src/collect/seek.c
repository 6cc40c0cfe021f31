// SPDX-License-Identifier: GPL-2.0
/*
 * How seeky each writer's writes are (seek.h): per-writer request streams
 * at the leaf devices and reclaim's write order joined to file offsets.
 * Everything came from the guest's trace: tables are capped (streams,
 * groups, remembered folios) and what did not fit is counted.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/seek.h"
#include "stats/stats.h"
#include "util/dvec.h"
#include "util/json.h"
#include "util/log.h"
#include "util/num.h"

#define SEEK_MAX_STREAMS 1024
#define SEEK_MAX_GROUPS 1024
#define SEEK_MAX_FOLIOS (1u << 22)
#define SEEK_TOP_STREAMS 16
/*
 * Gaps up to NEAR_KIB are a skipped page or two; up to 1 MiB they are
 * mostly local reordering: ext4's 1 MiB extent writes reach the leaf as a
 * 2032-sector request and then its 16-sector head (dirty-flood's flusher:
 * 84 gaps of -1 MiB, 79 of +1 MiB in 315 requests, tests/data/io). A seek
 * (seek_pct) is a gap over 1 MiB.
 */
#define NEAR_KIB 64

enum { G_CONTIG, G_NEAR, G_1M, G_16M, G_FAR, NR_GAP };
static const char *const gap_name[NR_GAP] = { "contig", "near", "le1m", "le16m",
					      "far" };

/* One writer's requests at one device, in issue order. */
struct stream {
	unsigned int dev;
	int pid, cls;
	char comm[16];
	long long requests, runs, hist[NR_GAP];
	double kib;
	unsigned long long prev_end;
	struct dvec sector, gap_kib; /* gap_kib: non-contiguous gaps only */
};

/* One reclaimer's written folios of one inode, in write order. */
struct group {
	int pid, cls;
	unsigned long long ino;
	struct dvec ofs;
};

struct folio {
	unsigned long long pfn, ino, ofs;
	bool used;
};

struct pidcomm {
	int pid;
	char comm[16];
};

struct seek_state {
	struct pidcomm pc[SEEK_MAX_STREAMS];
	size_t npc;
	struct stream *st;
	size_t nst;
	struct group *gr;
	size_t ngr;
	struct folio *fo;
	size_t nfo, fo_slots;
	long long streams_dropped, groups_dropped, folios_dropped;
	long long written[64], joined[64]; /* by class */
};

struct seek_state *seek_new(void)
{
	return xzalloc(sizeof(struct seek_state));
}

void seek_free(struct seek_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nst; i++) {
		dvec_clear(&s->st[i].sector);
		dvec_clear(&s->st[i].gap_kib);
	}
	for (size_t i = 0; i < s->ngr; i++)
		dvec_clear(&s->gr[i].ofs);
	free(s->st);
	free(s->gr);
	free(s->fo);
	free(s);
}

static struct stream *stream_of(struct seek_state *s, unsigned int dev, int pid,
				int cls)
{
	for (size_t i = s->nst; i-- > 0;)
		if (s->st[i].dev == dev && s->st[i].pid == pid &&
		    s->st[i].cls == cls)
			return &s->st[i];
	if (s->nst == SEEK_MAX_STREAMS) {
		s->streams_dropped++;
		return NULL;
	}
	if (!(s->nst & (s->nst + 1)) || !s->st)
		s->st = xrealloc(s->st, (2 * s->nst + 2) * sizeof(*s->st));
	memset(&s->st[s->nst], 0, sizeof(*s->st));
	s->st[s->nst].dev = dev;
	s->st[s->nst].pid = pid;
	s->st[s->nst].cls = cls;
	return &s->st[s->nst++];
}

static int gap_bucket(unsigned long long kib)
{
	return !kib		? G_CONTIG :
	       kib <= NEAR_KIB	? G_NEAR :
	       kib <= 1024	? G_1M :
	       kib <= 16 * 1024 ? G_16M :
				  G_FAR;
}

void seek_comm(struct seek_state *s, int pid, const char *comm)
{
	for (size_t i = s->npc; i-- > 0;)
		if (s->pc[i].pid == pid) {
			snprintf(s->pc[i].comm, sizeof(s->pc[i].comm), "%s",
				 comm);
			return;
		}
	if (s->npc == SEEK_MAX_STREAMS)
		return;
	s->pc[s->npc].pid = pid;
	snprintf(s->pc[s->npc++].comm, sizeof(s->pc[0].comm), "%s", comm);
}

static const char *comm_of(const struct seek_state *s, int pid)
{
	for (size_t i = s->npc; i-- > 0;)
		if (s->pc[i].pid == pid)
			return s->pc[i].comm;
	return "";
}

void seek_request(struct seek_state *s, unsigned int dev, int pid, int cls,
		  unsigned long long sector, unsigned int nr)
{
	struct stream *t = stream_of(s, dev, pid, cls);
	unsigned long long gap;

	if (!t || !nr)
		return;
	if (!t->requests) {
		snprintf(t->comm, sizeof(t->comm), "%s", comm_of(s, pid));
		t->runs = 1;
	} else {
		/* From the end of the last request to this one's start. */
		gap = sector > t->prev_end ? sector - t->prev_end :
					     t->prev_end - sector;
		t->hist[gap_bucket(gap / 2)]++;
		if (gap) {
			t->runs++;
			dvec_push(&t->gap_kib, gap / 2.0);
		}
	}
	t->requests++;
	t->kib += nr / 2.0;
	t->prev_end = sector + nr;
	dvec_push(&t->sector, (double)sector);
}

static size_t hash_pfn(unsigned long long pfn, size_t slots)
{
	uint64_t x = pfn * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 31;
	return x & (slots - 1);
}

static struct folio *folio_slot(struct seek_state *s, unsigned long long pfn)
{
	size_t h;

	if (!s->fo_slots)
		return NULL;
	for (h = hash_pfn(pfn, s->fo_slots); s->fo[h].used;
	     h = (h + 1) & (s->fo_slots - 1))
		if (s->fo[h].pfn == pfn)
			return &s->fo[h];
	return &s->fo[h];
}

static void folio_grow(struct seek_state *s)
{
	struct folio *old = s->fo;
	size_t n = s->fo_slots;

	s->fo_slots = n ? 2 * n : 4096;
	s->fo = xzalloc(s->fo_slots * sizeof(*s->fo));
	for (size_t i = 0; i < n; i++)
		if (old[i].used)
			*folio_slot(s, old[i].pfn) = old[i];
	free(old);
}

/*
 * "dev 254:16 ino c pfn=0x1a2b3 ofs=4096 order=0": ino is bare hex, no
 * "0x" ("c", "1aa"), which util/num.h's numbers (a digit first) are not.
 * At most 16 digits, then a space.
 */
static bool parse_ino(const struct trace_line *l, unsigned long long *ino)
{
	const char *end = l->args + l->args_len;
	const char *p = memmem(l->args, l->args_len, " ino ", 5);
	unsigned long long v = 0;
	int n = 0;

	if (!p)
		return false;
	for (p += 5; p < end && isxdigit((unsigned char)*p) && n < 17; p++, n++)
		v = v * 16 + (isdigit((unsigned char)*p) ?
				      *p - '0' :
				      tolower((unsigned char)*p) - 'a' + 10);
	if (!n || n > 16 || (p < end && *p != ' '))
		return false;
	*ino = v;
	return true;
}

void seek_folio_cached(struct seek_state *s, const struct trace_line *l)
{
	long long pfn, ofs;
	unsigned long long ino;
	struct folio *f;

	if (!trace_arg_num(l, "pfn", &pfn) || !trace_arg_num(l, "ofs", &ofs) ||
	    pfn < 0 || ofs < 0 || !parse_ino(l, &ino))
		return;
	if (2 * (s->nfo + 1) > s->fo_slots) {
		if (s->nfo >= SEEK_MAX_FOLIOS) {
			s->folios_dropped++;
			return;
		}
		folio_grow(s);
	}
	f = folio_slot(s, pfn);
	if (!f->used)
		s->nfo++;
	*f = (struct folio){ .pfn = pfn, .ino = ino, .ofs = ofs, .used = true };
}

static struct group *group_of(struct seek_state *s, int pid, int cls,
			      unsigned long long ino)
{
	for (size_t i = s->ngr; i-- > 0;)
		if (s->gr[i].pid == pid && s->gr[i].cls == cls &&
		    s->gr[i].ino == ino)
			return &s->gr[i];
	if (s->ngr == SEEK_MAX_GROUPS) {
		s->groups_dropped++;
		return NULL;
	}
	if (!(s->ngr & (s->ngr + 1)) || !s->gr)
		s->gr = xrealloc(s->gr, (2 * s->ngr + 2) * sizeof(*s->gr));
	s->gr[s->ngr] = (struct group){ .pid = pid, .cls = cls, .ino = ino };
	return &s->gr[s->ngr++];
}

void seek_folio_written(struct seek_state *s, const struct trace_line *l,
			int cls)
{
	long long pfn;
	struct folio *f;
	struct group *g;

	if (cls < 0 || cls >= 64 || !trace_arg_num(l, "pfn", &pfn) || pfn < 0)
		return;
	s->written[cls]++;
	f = folio_slot(s, pfn);
	if (!f || !f->used)
		return;
	s->joined[cls]++;
	g = group_of(s, l->pid, cls, f->ino);
	if (g)
		dvec_push(&g->ofs, (double)f->ofs);
}

/* Weighted sums of a sequence's rho (whole, and per window) into acc. */
struct rho_acc {
	double whole, whole_n, win, win_n;
};

static void rho_add(struct rho_acc *a, const struct dvec *v)
{
	double *order;
	double r;

	if (v->n < 3)
		return;
	order = xmalloc(v->n * sizeof(*order));
	for (size_t i = 0; i < v->n; i++)
		order[i] = i;
	r = stats_spearman(order, v->v, v->n);
	if (!isnan(r)) {
		a->whole += r * v->n;
		a->whole_n += v->n;
	}
	for (size_t i = 0; i + SEEK_WINDOW <= v->n; i += SEEK_WINDOW) {
		r = stats_spearman(order, v->v + i, SEEK_WINDOW);
		if (!isnan(r)) {
			a->win += r;
			a->win_n++;
		}
	}
	free(order);
}

static json_object *rho_mean(double sum, double n)
{
	return n ? json_number(sum / n) : NULL;
}

static json_object *class_json(const struct seek_state *s, int cls)
{
	json_object *o = json_object_new_object(), *h;
	long long req = 0, runs = 0, gaps = 0, hist[NR_GAP] = { 0 }, pids = 0;
	double kib = 0;
	struct dvec gk = DVEC_INIT;
	struct rho_acc sec = { 0 }, ofs = { 0 };

	for (size_t i = 0; i < s->nst; i++) {
		const struct stream *t = &s->st[i];

		if (t->cls != cls)
			continue;
		pids++;
		req += t->requests;
		runs += t->runs;
		kib += t->kib;
		for (int b = 0; b < NR_GAP; b++) {
			hist[b] += t->hist[b];
			gaps += t->hist[b];
		}
		for (size_t k = 0; k < t->gap_kib.n; k++)
			dvec_push(&gk, t->gap_kib.v[k]);
		rho_add(&sec, &t->sector);
	}
	for (size_t i = 0; i < s->ngr; i++)
		if (s->gr[i].cls == cls)
			rho_add(&ofs, &s->gr[i].ofs);
	json_put_int(o, "streams", pids);
	json_put_int(o, "requests", req);
	json_put(o, "kib", json_number(kib));
	json_put(o, "req_kib_mean", req ? json_number(kib / req) : NULL);
	json_put_int(o, "runs", runs);
	json_put(o, "run_kib_mean", runs ? json_number(kib / runs) : NULL);
	json_put_int(o, "gaps", gaps);
	h = json_object_new_object();
	for (int b = 0; b < NR_GAP; b++)
		json_put_int(h, gap_name[b], hist[b]);
	json_put(o, "gap_hist", h);
	json_put(
		o, "seek_pct",
		gaps ? json_number(100.0 * (hist[G_16M] + hist[G_FAR]) / gaps) :
		       NULL);
	dvec_sort(&gk);
	json_put(o, "gap_kib_p50", json_number(dvec_nearest_rank(&gk, 0.5)));
	dvec_clear(&gk);
	json_put(o, "sector_rho", rho_mean(sec.whole, sec.whole_n));
	json_put(o, "sector_rho_w32", rho_mean(sec.win, sec.win_n));
	json_put_int(o, "folios_written", s->written[cls]);
	json_put_int(o, "folios_joined", s->joined[cls]);
	json_put(o, "offset_rho", rho_mean(ofs.whole, ofs.whole_n));
	json_put(o, "offset_rho_w32", rho_mean(ofs.win, ofs.win_n));
	return o;
}

static int by_requests(const void *a, const void *b)
{
	const struct stream *x = *(const struct stream *const *)a;
	const struct stream *y = *(const struct stream *const *)b;

	return (y->requests > x->requests) - (y->requests < x->requests);
}

static json_object *stream_json(const struct stream *t,
				const char *const *class_names, int nr_classes)
{
	json_object *o = json_object_new_object();
	struct rho_acc r = { 0 };
	char dev[24];
	long long far = t->hist[G_16M] + t->hist[G_FAR];
	long long gaps = t->requests - 1;

	snprintf(dev, sizeof(dev), "%u:%u", t->dev >> 20, t->dev & 0xfffff);
	json_put_str(o, "dev", dev);
	json_put_int(o, "pid", t->pid);
	json_put_str(o, "comm", t->comm);
	json_put_str(o, "class",
		     t->cls >= 0 && t->cls < nr_classes ? class_names[t->cls] :
							  "unknown");
	json_put_int(o, "requests", t->requests);
	json_put(o, "kib", json_number(t->kib));
	json_put_int(o, "runs", t->runs);
	json_put(o, "run_kib_mean", json_number(t->kib / t->runs));
	json_put(o, "seek_pct", gaps ? json_number(100.0 * far / gaps) : NULL);
	rho_add(&r, &t->sector);
	json_put(o, "sector_rho", rho_mean(r.whole, r.whole_n));
	return o;
}

json_object *seek_json(const struct seek_state *s,
		       const char *const *class_names, int nr_classes)
{
	json_object *o = json_object_new_object(), *c, *a;
	const struct stream **top;

	c = json_object_new_object();
	for (int i = 0; i < nr_classes; i++)
		json_put(c, class_names[i], class_json(s, i));
	json_put(o, "classes", c);
	top = xmalloc((s->nst + 1) * sizeof(*top));
	for (size_t i = 0; i < s->nst; i++)
		top[i] = &s->st[i];
	qsort(top, s->nst, sizeof(*top), by_requests);
	a = json_object_new_array();
	for (size_t i = 0; i < s->nst && i < SEEK_TOP_STREAMS; i++)
		json_object_array_add(a, stream_json(top[i], class_names,
						     nr_classes));
	free(top);
	json_put(o, "streams", a);
	json_put_int(o, "streams_dropped", s->streams_dropped);
	json_put_int(o, "groups_dropped", s->groups_dropped);
	json_put_int(o, "folios_dropped", s->folios_dropped);
	return o;
}
