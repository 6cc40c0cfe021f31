/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_REPORT_H
#define WBLAB_REPORT_H

/*
 * wblab's reports: cells of one or more run directories, grouped by
 * (topology, workload, guest memory), compared kernel against baseline.
 *
 *	report_load_run()   run dir -> cells (the only part that opens files,
 *			    besides the timeseries the HTML plots read)
 *	report_build()      cells -> groups -> per-kernel summaries and tests
 *	report_mail/html/json()  renderers of one model
 *
 * The metric rows are the registry's (results/metric.h): a new collector
 * adds a row there and every renderer, the tests and `wblab aa` pick it up.
 * docs/report.md describes the output and the JSON schema.
 */
#include <gsl/gsl_rng.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "decide/verdict.h"
#include "results/cell.h"
#include "results/metric.h"
#include "stats/stats.h"
#include "util/strbuf.h"
#include "util/strvec.h"

/* Which test decides a star. */
enum rpt_test {
	RTEST_FIT, /* each row's own test (the registry's), Simes within a
		    * family, Benjamini-Hochberg over the families */
	RTEST_WELCH, /* Welch p < alpha, every row on its own */
	RTEST_WELCH_BH, /* Welch, Benjamini-Hochberg q < alpha over the rows */
	RTEST_BANDS, /* mmtests: mean +- 1.96 sd bands apart */
};
extern const char
	*const rpt_test_names[]; /* "fit", "welch", "welch-bh", "bands" */
/*
 * What a star means under test t, in words: one text for the mail and
 * the HTML legend (which escapes it), so the two cannot disagree.
 */
const char *rpt_test_text(enum rpt_test t);

struct rpt_run {
	char *id, *dir;
	char *real; /* its real path: R, R/ and a link to R are one run */
	json_object *host; /* run.json host, owned (the report copies it) */
	struct run_host facts; /* the same, decoded (results/cell.h) */
};

struct rpt_event {
	char *kind, *title, *victim;
	/*
	 * a stall the watcher saw end: its seconds still (-1 otherwise),
	 * and the I/O errors before it ended (failed requests, not a
	 * recovery, when not 0)
	 */
	int ended_s, io_errors;
};

struct rpt_frame {
	int depth, size;
	char *location;
};

/* What the report keeps of one cell.json (the JSON itself is dropped). */
struct rpt_cell {
	const struct rpt_run *run;
	char *id, *dir; /* dir: the cell's directory */
	char *side; /* the comparison side: the kernel's name, or A/A's */
	char *kernel, *hash, *version, *release, *origin, *source, *patches;
	char *cmdline, *topology, *workload, *accel;
	char *host; /* cell.json host: across hosts is not an A/B */
	char *levers; /* levers_cell_key(): cells that differ never pool */
	int memory_mib, vcpus, rep;
	char *outcome, *reason;
	bool counts; /* results_cell_counts(): not infra-error */
	struct strvec primary; /* cell.json workload_primary: row names */
	struct rpt_event *events;
	size_t nr_events;
	double *val; /* [metric_nr_rows], NAN when absent */
	double stack_bytes, stack_fraction;
	/* metrics.stack: the THREAD_SIZE of the kernel that ran (NAN when
	 * absent), and whether the reclaim-write probes lost events. */
	double thread_size;
	bool rw_lossy;
	struct rpt_frame *chain; /* the stack tracer's deepest chain */
	size_t chain_len;
};

/* One kernel (side) of a group. */
struct rpt_side {
	const char *name;
	struct rpt_cell **cells; /* counted cells (not infra-error) */
	size_t n;
	/* Per metric: the values present, and their summary. */
	double **vals;
	struct stats_desc *desc;
};

/* A metric row's comparison of one side with the baseline. */
struct rpt_cmp {
	bool shown; /* values on both sides */
	bool tested; /* n >= STATS_MIN_N on both sides, values vary */
	struct stats_test welch;
	struct stats_test t; /* the test that decided (Welch unless RTEST_FIT) */
	enum metric_test test; /* which: the row's, or permutation standing in */
	/*
	 * The row's own q: the larger of its family's BH-adjusted q and its
	 * p adjusted within the family (NAN when not tested)
	 */
	double q;
	bool bands_apart; /* mmtests' rule */
	bool star; /* the chosen test passed at alpha */
	double pct; /* change of the row's stat, + is better */
	double mde, mde_pct; /* smallest detectable change (unit, % of base) */
};

/* fail:runs of one outcome or event kind. */
struct rpt_outcome_row {
	char *kind; /* "oom", "crashed", ... */
	bool is_outcome; /* a cell outcome (else an event kind) */
	unsigned *fail; /* [nr_sides] */
	unsigned *runs; /* [nr_sides]: cells counted */
	bool is_figure; /* cells where a metric row is > 0 */
	double *p; /* Fisher vs the baseline, [nr_sides] (NAN for base) */
};

/* A primary row of a group, one side against the baseline. */
struct rpt_verdict {
	size_t side, metric;
	struct vdecision d;
	/*
	 * What `wblab decide` says of the same row on the same cells: the
	 * jobs' procedure (decide/procedure.h, its default looks, O'Brien-
	 * Fleming spending, Holm over the side's primary rows) at look
	 * job_n, level job_level. The Verdict above tests each row once at
	 * alpha; the two can differ, and the mail says why in one line.
	 */
	enum verdict job;
	double job_level;
	int job_n;
};

struct rpt_group {
	char *topology, *workload;
	int memory_mib;
	char *levers; /* levers_cell_key() of its cells */
	char *levers_brief; /* what differs from the defaults, or "" */
	/* [metric_nr_rows]: the question the workload asks (its primary:) */
	bool *primary;
	struct rpt_verdict *verdicts; /* per non-base side and primary row */
	size_t nr_verdicts;
	/* Cells that ended with more than 1% of what they wrote still dirty. */
	size_t unfinished;
	struct rpt_side *sides; /* sides[0] is the baseline */
	size_t nr_sides;
	struct rpt_cmp **cmp; /* [nr_sides][metric_nr_rows]; cmp[0] unused */
	struct rpt_outcome_row *outcomes;
	size_t nr_outcomes;
	size_t tested, starred; /* over rows and non-base sides */
};

/* A claim of the seed answered in one group, one side against the base. */
struct rpt_claim {
	size_t group, stock, side; /* sides: the kernel and its revert */
	const char *id; /* "a", "b", "c" (claims.c) */
	const char *label; /* what the section calls the figure */
	const char *figure; /* registry row name, or event kind */
	const char *stock_figure; /* the stock side's row (figure unless
				   * the claim compares two writers) */
	bool event; /* a rate: cells with the event, or with the row > 0 */
	bool deepest; /* a stack depth: each side's deepest cell said too */
	/*
	 * Each side's figure, what d tested (cells with the event or the
	 * row above 0, or the row's one mean, metric_mean(); NAN when no
	 * cell has it) and its n, tested or not. A stack depth also has
	 * each side's deepest cell (deep_a, deep_b: an overflow is about
	 * the worst case, which the test of means does not compare), its
	 * share of that cell's THREAD_SIZE, and whether a cell's probes
	 * lost events (a lower bound then).
	 */
	double va, vb;
	double deep_a, deep_b;
	double share_a, share_b;
	bool lossy_a, lossy_b;
	int na, nb;
	struct vdecision d;
};

struct report_opts {
	/*
	 * side name, or NULL: the first kernel the runs declare (run.json's
	 * spec.kernels, the command line's order), else the first seen
	 */
	const char *baseline;
	enum rpt_test test;
	double alpha, power;
	double threshold; /* the Verdict's `same`: within this % */
	const struct strvec *primary; /* rows added to the cells' primary: */
	bool full; /* mail: every summary line and the per-row legend */
	/* The command that made the report, for the mail's header (or NULL). */
	const char *command;
	/*
	 * A workload's description, its first sentence (to free), or NULL:
	 * the spec layer's, given by the command (report/ does not read
	 * specs).
	 */
	char *(*describe_workload)(const char *name);
	bool timeseries; /* load timeseries.tsv for the HTML plots */
};

struct report {
	struct report_opts o;
	struct rpt_run **runs;
	size_t nr_runs;
	struct rpt_cell **cells; /* every cell read, in run order */
	size_t nr_cells;
	struct rpt_cell **infra; /* infra-error cells: listed, never counted */
	size_t nr_infra;
	struct rpt_group *groups;
	size_t nr_groups;
	struct strvec warnings; /* cells that could not be read, ... */
	/* The runs' kernels in the order they declare them (load.c). */
	struct strvec declared;
	/* Sides that pool cells of two builds of one kernel name (model.c). */
	struct strvec mixed;
	struct rpt_claim *claims; /* claims.c: the seed's, where asked */
	size_t nr_claims;
};

#define REPORT_OPTS_INIT                                                       \
	{                                                                      \
		.test = RTEST_FIT, .alpha = STATS_ALPHA, .power = STATS_POWER, \
		.threshold = 10                                                \
	}

void report_init(struct report *r, const struct report_opts *o);
void report_release(struct report *r);
/* Drop the cells and runs read so far (report_release does it too). */
void report_free_cells(struct report *r);

/*
 * Read DIR/run.json and every cell.json it lists. A cell that cannot be
 * read is a warning (r->warnings), not a failure. Returns 0, or -1 with a
 * message in err naming the file when run.json is missing or malformed.
 */
int report_load_run(struct report *r, const char *dir, struct strbuf *err);

/* Group the loaded cells and compute every summary and test. 0 or -1. */
int report_build(struct report *r, struct strbuf *err);

/* Renderers: append the report to out. */
void report_mail(const struct report *r, struct strbuf *out);
int report_html(const struct report *r, struct strbuf *out, struct strbuf *err);
/*
 * One column of CELL_DIR/timeseries.tsv (dirty_kb, ...) as the HTML plots
 * it: "t MiB" lines, then a blank pair; the number of points. Read by the
 * checked parser the cell's summary uses (collect/timeseries.h): a
 * malformed or torn row, or a -1 (the sampler did not find the value, e.g.
 * no memcg), is no point.
 */
int rpt_ts_column(struct strbuf *s, const char *cell_dir, const char *col);
json_object *report_json(const struct report *r);

/* The Verdict block (verdict.c): primary rows, then their verdicts. */
void rpt_mark_primary(struct report *r, struct rpt_group *g);
void rpt_build_verdicts(const struct report *r, struct rpt_group *g);
/* Did the cell end with more than 1% of what it wrote still dirty? */
bool rpt_cell_unfinished(const struct rpt_cell *c);

/*
 * `wblab aa --from`'s split (aa.c): every cell's side cleared, then n
 * cells of ok[0..pool) side "A" and n side "B". Paired (the default):
 * n random pairs of cells of the same run, a coin flip in each;
 * mixed: a shuffle of ok (in place) across runs.
 */
void rpt_aa_split(struct report *r, size_t *ok, size_t pool, gsl_rng *rng,
		  size_t n, bool mixed);
/* The same-run pairs of ok (pairs[2k], pairs[2k + 1]): how many. */
size_t rpt_aa_pairs(const struct report *r, const size_t *ok, size_t pool,
		    gsl_rng *rng, size_t *pairs);

/* The claims section (claims.c), built after the groups. */
void rpt_build_claims(struct report *r);
const char *rpt_claim_text(const char *id);
void rpt_claim_side(const struct rpt_claim *c, bool base, char *buf, size_t n);
/* A stack depth claim's deepest cell of a side: ">=3856 B (47%)", or "-". */
void rpt_claim_deepest(const struct rpt_claim *c, bool base, char *buf,
		       size_t n);
void rpt_claims_mail(const struct report *r, struct strbuf *out);
json_object *rpt_claims_json(const struct report *r);
void rpt_claims_html(const struct report *r, struct strbuf *out);
/* Differs between the kernels, and sides of two builds (html-differs.c). */
void rpt_differs_html(const struct report *r, struct strbuf *out);

/* Helpers the renderers share (model.c; side.c: the two rpt_side_ ones). */
/* Cells of a side with an event of kind (each counted once). */
unsigned rpt_side_cells_with(const struct rpt_side *s, const char *kind);
/* Row m's values in a side's finished (ok) cells, into out (s->n long);
 * the tables take them, and the claims for rows no table shows. */
size_t rpt_side_row_values(const struct rpt_side *s, size_t m, double *out);
double rpt_side_stat(const struct rpt_side *s, size_t m);
/*
 * A Verdict's effect, "Gmean 0 -> 231 pages": which mean (the one the
 * table shows and the test compares), then vdecision_effect() (side.c).
 */
void rpt_verdict_effect(const struct metric *m, const struct vdecision *d,
			struct strbuf *out);
/* The table's +-: side s's change of row m, 95%, in % of its mean (side.c). */
double rpt_row_halfwidth_pct(const struct rpt_group *g, size_t s, size_t m);
/*
 * Row m's smallest detectable change, side s against the baseline, under
 * the report's test, alpha divided by div (side.c).
 */
double rpt_row_mde(const struct report *r, const struct rpt_group *g, size_t s,
		   size_t m, size_t div);
bool rpt_row_shown(const struct rpt_group *g, size_t m);
/* The same value in every cell of every side (one line, no plot). */
bool rpt_row_constant(const struct rpt_group *g, size_t m);
/* The first counted cell of a side, for its kernel facts. */
const struct rpt_cell *rpt_side_cell(const struct report *r, const char *side);
/* Every side name of every group, first-seen order. */
void rpt_side_names(const struct report *r, struct strvec *names);
/*
 * The side g compares against when no --baseline names one: the first
 * of its sides that the runs declare (r->declared), NULL when none is
 * (sides named by hand: the first seen, then).
 */
const char *rpt_default_baseline(const struct report *r,
				 const struct rpt_group *g);
/* Facts of a side that the header compares: names, a cell's value, and
 * whether the sides' values differ (only those are shown). */
extern const char *const rpt_fact_names[];
const char *rpt_cell_fact(const struct rpt_cell *c, size_t w, char *buf,
			  size_t n);
bool rpt_fact_differs(const struct report *r, const struct strvec *names,
		      size_t w);
/* A value in at most 11 columns; a % change in at most 7 ("n/a", "+inf"). */
void rpt_fmt_val(char *buf, size_t n, double v);
void rpt_fmt_pct(char *buf, size_t n, double pct);
/* Patch subjects ("Subject:" lines of lab/patches/FILE), or the names. */
void rpt_patch_subjects(const char *patches, struct strvec *out);

#endif
