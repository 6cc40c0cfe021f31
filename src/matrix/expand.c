// SPDX-License-Identifier: GPL-2.0
/*
 * A matrix's cells and their order. Drift over a night (host load, thermal,
 * a neighbour's backup) must hit A and B alike, so cells are grouped in
 * blocks that differ only in the kernel and run back to back, and both the
 * blocks and the kernels inside each block are shuffled: a randomized
 * complete block design. The generator is our own (splitmix64), so a
 * recorded seed gives the same order on every libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "matrix/matrix.h"
#include "results/levers.h"
#include "util/log.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) without modulo bias. */
static size_t below(uint64_t *s, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = splitmix64(s);
	while (v >= limit);
	return v % n;
}

static void shuffle(size_t *v, size_t n, uint64_t *s)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = below(s, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

uint64_t matrix_random_seed(void)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
	    ((uint64_t)getpid() << 32);
	/* Keep it printable and re-typeable: 48 bits. */
	return splitmix64(&s) & 0xffffffffffffULL;
}

static char *size_label(const struct matrix_size *sz)
{
	char mem[24], cpu[24];

	if (sz->memory)
		snprintf(mem, sizeof(mem), "%lldM", sz->memory);
	else
		snprintf(mem, sizeof(mem), "wlmem");
	snprintf(cpu, sizeof(cpu), "%lld", sz->vcpus ? sz->vcpus : 2);
	return xasprintf("%s-%scpu", mem, cpu);
}

/* The canonical text of levers: entry i (validated when the spec loaded). */
static char *levers_of(const struct matrix_spec *m, size_t i)
{
	struct strbuf err = STRBUF_INIT;
	struct levers lv;

	if (levers_parse(m->levers.n ? m->levers.v[i] : NULL, &lv, &err)) {
		/* The job refuses it: an infra-error naming the text. */
		strbuf_release(&err);
		return xstrdup(m->levers.v[i]);
	}
	strbuf_release(&err);
	return levers_text(&lv);
}

/* _<levers> in the id when a matrix names any: "_pin-on", "_default". */
static char *levers_part(const struct matrix_spec *m, size_t i)
{
	struct strbuf err = STRBUF_INIT;
	struct levers lv;
	char *label, *part;

	if (!m->levers.n)
		return xstrdup("");
	if (levers_parse(m->levers.v[i], &lv, &err))
		levers_default(&lv);
	strbuf_release(&err);
	label = levers_label(&lv);
	part = xasprintf("_%s", label);
	free(label);
	return part;
}

static void fill_cell(struct matrix_cell *c, const struct matrix_spec *m,
		      size_t k, size_t t, size_t w, size_t z, size_t l, int rep,
		      int block)
{
	const struct matrix_size *sz = &m->sizes[z];
	char *lp = levers_part(m, l);

	c->kernel = xstrdup(m->kernels.v[k]);
	c->topology = xstrdup(m->topologies.v[t]);
	c->workload = xstrdup(m->workloads.v[w]);
	c->rep = rep;
	c->memory = sz->memory;
	c->vcpus = sz->vcpus ? sz->vcpus : 2;
	c->levers = levers_of(m, l);
	c->block = block;
	if (m->nr_sizes > 1) {
		char *zl = size_label(sz);

		c->id = xasprintf("%s_%s_%s_%s%s_%d", c->kernel, c->topology,
				  c->workload, zl, lp, rep);
		free(zl);
	} else {
		c->id = xasprintf("%s_%s_%s%s_%d", c->kernel, c->topology,
				  c->workload, lp, rep);
	}
	free(lp);
}

void matrix_expand(const struct matrix_spec *m, uint64_t seed, int rep_from,
		   int rep_to, struct matrix_plan *out)
{
	size_t nk = m->kernels.n, nt = m->topologies.n, nw = m->workloads.n;
	size_t nz = m->nr_sizes ? m->nr_sizes : 1;
	size_t nl = m->levers.n ? m->levers.n : 1, nkl = nk * nl;
	size_t nr = rep_to >= rep_from ? (size_t)(rep_to - rep_from + 1) : 0;
	size_t nblocks = nt * nw * nz * nr, *blocks, *kord;
	struct matrix_spec one = *m;
	struct matrix_size dflt = { 0, 0 };
	uint64_t s = seed;

	memset(out, 0, sizeof(*out));
	out->seed = seed;
	if (!m->nr_sizes) {
		one.sizes = &dflt;
		one.nr_sizes = 1;
		m = &one;
	}
	if (!nblocks || !nk)
		return;
	out->cells = xzalloc(nblocks * nkl * sizeof(*out->cells));
	blocks = xmalloc(nblocks * sizeof(*blocks));
	kord = xmalloc(nkl * sizeof(*kord));
	for (size_t b = 0; b < nblocks; b++)
		blocks[b] = b;
	shuffle(blocks, nblocks, &s);
	for (size_t i = 0; i < nblocks; i++) {
		/* Block index b -> (rep, topology, workload, size). */
		size_t b = blocks[i], z = b % nz, w = b / nz % nw,
		       t = b / nz / nw % nt, r = b / nz / nw / nt;

		/* kord[j]: kernel j % nk with lever setting j / nk. */
		for (size_t k = 0; k < nkl; k++)
			kord[k] = k;
		shuffle(kord, nkl, &s);
		for (size_t j = 0; j < nkl; j++) {
			size_t k = kord[j] % nk, l = kord[j] / nk;

			if (matrix_spec_excluded(m, m->kernels.v[k],
						 m->topologies.v[t],
						 m->workloads.v[w]))
				continue;
			fill_cell(&out->cells[out->n++], m, k, t, w, z, l,
				  rep_from + (int)r, (int)i);
		}
	}
	free(blocks);
	free(kord);
}

void matrix_plan_free(struct matrix_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->cells[i].id);
		free(p->cells[i].kernel);
		free(p->cells[i].topology);
		free(p->cells[i].workload);
		free(p->cells[i].levers);
	}
	free(p->cells);
	memset(p, 0, sizeof(*p));
}
