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

static void fill_cell(struct matrix_cell *c, const struct matrix_spec *m,
		      size_t k, size_t t, size_t w, size_t z, int rep,
		      int block)
{
	const struct matrix_size *sz = &m->sizes[z];

	c->kernel = xstrdup(m->kernels.v[k]);
	c->topology = xstrdup(m->topologies.v[t]);
	c->workload = xstrdup(m->workloads.v[w]);
	c->rep = rep;
	c->memory = sz->memory;
	c->vcpus = sz->vcpus ? sz->vcpus : 2;
	c->block = block;
	if (m->nr_sizes > 1) {
		char *l = size_label(sz);

		c->id = xasprintf("%s_%s_%s_%s_%d", c->kernel, c->topology,
				  c->workload, l, rep);
		free(l);
	} else {
		c->id = xasprintf("%s_%s_%s_%d", c->kernel, c->topology,
				  c->workload, rep);
	}
}

void matrix_expand(const struct matrix_spec *m, uint64_t seed, int rep_from,
		   int rep_to, struct matrix_plan *out)
{
	size_t nk = m->kernels.n, nt = m->topologies.n, nw = m->workloads.n;
	size_t nz = m->nr_sizes ? m->nr_sizes : 1;
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
	out->cells = xzalloc(nblocks * nk * sizeof(*out->cells));
	blocks = xmalloc(nblocks * sizeof(*blocks));
	kord = xmalloc(nk * sizeof(*kord));
	for (size_t b = 0; b < nblocks; b++)
		blocks[b] = b;
	shuffle(blocks, nblocks, &s);
	for (size_t i = 0; i < nblocks; i++) {
		/* Block index b -> (rep, topology, workload, size). */
		size_t b = blocks[i], z = b % nz, w = b / nz % nw,
		       t = b / nz / nw % nt, r = b / nz / nw / nt;

		for (size_t k = 0; k < nk; k++)
			kord[k] = k;
		shuffle(kord, nk, &s);
		for (size_t k = 0; k < nk; k++) {
			if (matrix_spec_excluded(m, m->kernels.v[kord[k]],
						 m->topologies.v[t],
						 m->workloads.v[w]))
				continue;
			fill_cell(&out->cells[out->n++], m, kord[k], t, w, z,
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
	}
	free(p->cells);
	memset(p, 0, sizeof(*p));
}
