// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "matrix/progress.h"
#include "results/outcome.h"
#include "util/log.h"

#define BAR_WIDTH 30

void progress_init(struct progress *p, enum matrix_progress mode, size_t total,
		   size_t already_done)
{
	memset(p, 0, sizeof(*p));
	if (mode == MATRIX_PROGRESS_AUTO)
		mode = isatty(STDERR_FILENO) ? MATRIX_PROGRESS_TTY :
					       MATRIX_PROGRESS_PLAIN;
	p->mode = mode;
	p->total = total;
	p->done = already_done;
	p->results = already_done;
	p->t_start = now_mono();
}

static struct progress_slot *find(struct progress *p, const char *host,
				  int slot)
{
	for (size_t i = 0; i < p->nr_slots; i++)
		if (p->slots[i].slot == slot && !strcmp(p->slots[i].host, host))
			return &p->slots[i];
	return NULL;
}

void progress_add_slot(struct progress *p, const char *host, int slot)
{
	struct progress_slot *s;

	if (find(p, host, slot))
		return;
	p->slots = xrealloc(p->slots, (p->nr_slots + 1) * sizeof(*p->slots));
	s = &p->slots[p->nr_slots++];
	memset(s, 0, sizeof(*s));
	snprintf(s->host, sizeof(s->host), "%s", host);
	s->slot = slot;
}

static void clear_drawn(struct progress *p)
{
	if (p->mode != MATRIX_PROGRESS_TTY || !p->drawn)
		return;
	fprintf(stderr, "\033[%dA\033[J", p->drawn);
	p->drawn = 0;
}

static void stamp_line(struct progress *p, const char *fmt, va_list ap)
{
	char ts[32];

	if (p->mode == MATRIX_PROGRESS_QUIET)
		return;
	clear_drawn(p);
	now_iso8601(ts, sizeof(ts));
	fprintf(stderr, "[%s] ", ts);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void progress_note(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stamp_line(p, fmt, ap);
	va_end(ap);
	progress_tick(p);
}

static void note(struct progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct progress *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stamp_line(p, fmt, ap);
	va_end(ap);
}

static void fmt_dur(char *buf, size_t len, double s)
{
	long t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, len, "%lds", t);
}

/* Remaining cells x mean cell time / cells at once. */
static void eta(struct progress *p, char *buf, size_t len)
{
	size_t left = p->total > p->done ? p->total - p->done : 0;
	int par = p->parallel > 0 ? p->parallel : 1;

	if (!p->cell_s_n) {
		snprintf(buf, len, "?");
		return;
	}
	fmt_dur(buf, len, p->cell_s_sum / p->cell_s_n * left / par);
}

void progress_start(struct progress *p, const char *host, int slot,
		    const char *cell, int attempt)
{
	struct progress_slot *s = find(p, host, slot);
	int busy = 0;

	if (!s) {
		progress_add_slot(p, host, slot);
		s = find(p, host, slot);
	}
	if (s) {
		snprintf(s->cell, sizeof(s->cell), "%s", cell);
		s->attempt = attempt;
		s->t_start = now_mono();
	}
	for (size_t i = 0; i < p->nr_slots; i++)
		busy += p->slots[i].cell[0] != '\0';
	if (busy > p->parallel)
		p->parallel = busy;
	if (p->mode == MATRIX_PROGRESS_PLAIN)
		note(p, "start %s on %s slot %d%s", cell, host, slot,
		     attempt > 1 ? " (retry)" : "");
	progress_tick(p);
}

void progress_end(struct progress *p, const char *host, int slot,
		  const char *cell, const char *outcome, const char *reason,
		  double seconds, bool retry)
{
	struct progress_slot *s = find(p, host, slot);
	char e[32];

	if (s)
		s->cell[0] = '\0';
	if (!retry) {
		p->done++;
		/*
		 * "not ok" counts kernel outcomes only: an infra-error is
		 * the host's, counted apart, never a kernel's failure.
		 */
		if (outcome_is(outcome, OUTCOME_INFRA_ERROR))
			p->infra++;
		else if (p->results++, !outcome_is(outcome, OUTCOME_OK))
			p->failed++;
		p->cell_s_sum += seconds;
		p->cell_s_n++;
	}
	eta(p, e, sizeof(e));
	if (p->mode != MATRIX_PROGRESS_QUIET)
		note(p,
		     "%s %s: %s (%s) in %.1f s on %s slot %d [%zu/%zu, %zu not ok, %zu infra-error, ETA %s]",
		     retry ? "retry" : "done", cell, outcome, reason, seconds,
		     host, slot, p->done, p->total, p->failed, p->infra, e);
	progress_tick(p);
}

void progress_tick(struct progress *p)
{
	char e[32], el[32];
	int filled, lines = 0;
	double now = now_mono();

	if (p->mode != MATRIX_PROGRESS_TTY)
		return;
	clear_drawn(p);
	for (size_t i = 0; i < p->nr_slots; i++) {
		struct progress_slot *s = &p->slots[i];

		fmt_dur(el, sizeof(el), now - s->t_start);
		if (s->cell[0])
			fprintf(stderr,
				"  %-10.10s #%-2d %-70.70s %7s%s\033[K\n",
				s->host, s->slot, s->cell, el,
				s->attempt > 1 ? " retry" : "");
		else
			fprintf(stderr, "  %-10.10s #%-2d (idle)\033[K\n",
				s->host, s->slot);
		lines++;
	}
	filled = p->total ? (int)(BAR_WIDTH * p->done / p->total) : 0;
	eta(p, e, sizeof(e));
	fmt_dur(el, sizeof(el), now - p->t_start);
	fprintf(stderr,
		"  [%.*s%.*s] %zu/%zu done, %zu not ok, %zu infra-error, %s elapsed, ETA %s\033[K\n",
		filled, "##############################", BAR_WIDTH - filled,
		"..............................", p->done, p->total, p->failed,
		p->infra, el, e);
	lines++;
	fflush(stderr);
	p->drawn = lines;
}

void progress_finish(struct progress *p)
{
	char el[32];

	clear_drawn(p);
	fmt_dur(el, sizeof(el), now_mono() - p->t_start);
	if (p->mode != MATRIX_PROGRESS_QUIET)
		note(p,
		     "%zu/%zu cells done in %s: %zu with a kernel result (%zu not ok), %zu infra-error",
		     p->done, p->total, el, p->results, p->failed, p->infra);
}

void progress_free(struct progress *p)
{
	free(p->slots);
	memset(p, 0, sizeof(*p));
}
