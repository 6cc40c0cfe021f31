/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RESULTS_CELL_H
#define WBLAB_RESULTS_CELL_H

/*
 * The typed results model: a finished cell (struct cell_result) and a run
 * (struct run_result), decoded once, here, from the files the results
 * reader (reader.h) let through. report/, jobs/, matrix/, cmd/ and
 * cell/repro* read fields from these, never cell.json or run.json by path
 * strings; a field read back is added here (docs/results.md lists them).
 *
 * A string is NULL when cell.json has none there or has something else
 * than a string (each reader says what stands in for it); a number NAN
 * (or an int -1 where the text says so) when absent.
 */
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "results/metric.h"
#include "results/outcome.h"
#include "util/strvec.h"

/* A console event of the cell (cell.json "events"). */
struct cell_event {
	char *kind, *title, *victim;
	long long ended_s; /* ended_after_s; -1 when absent */
	long long io_errors; /* io_errors_before_end; 0 when absent */
	long long line; /* its console.log line; 0 when absent */
};

/* A task the SysRq-t dump found in D state (metrics.blocked.tasks). */
struct cell_blocked {
	char *comm, *wait, *work;
	long long pid;
};

/* A frame of the stack tracer's deepest chain (metrics.stack.tracer). */
struct cell_frame {
	long long depth, size;
	char *location;
};

struct cell_kernel {
	char *name, *hash, *version, *release; /* release: guest_release */
	char *origin, *source, *patches, *cmdline;
};

struct cell_timings {
	char *started; /* ISO 8601 */
	double total_s, boot_s, workload_s; /* NAN when absent */
};

/* What the agent said of the failed step (cell.json "agent"). */
struct cell_agent {
	char *status, *phase, *label, *rc; /* rc as a string: "124" */
};

struct cell_result {
	int refs; /* cell_result_get() / cell_result_put() */
	char *id, *run; /* "cell", "run" */
	struct cell_kernel kernel;
	char *topology, *workload, *accel, *host;
	long long memory_mib, vcpus, rep, slot, attempt; /* 0 when absent */
	/* outcome_name as recorded (NULL: none); outcome its enum, or -1. */
	char *outcome_name;
	int outcome;
	char *reason; /* outcome_reason */
	char *console_kind;
	struct cell_agent agent;
	/*
	 * metrics.collector_errors.console and .channel: what only the live
	 * cell saw (its console stream, the agent's channel), which a
	 * reparse keeps
	 */
	char *err_console, *err_channel;
	char *levers; /* levers_cell_key(): what the cell ran with */
	struct strvec primary; /* workload_primary: registry row names */
	struct cell_timings timings;
	struct cell_event *events;
	size_t nr_events;
	struct cell_blocked *blocked;
	size_t nr_blocked;
	char *blocked_when; /* metrics.blocked.when: the SysRq-t dump's */
	long long blocked_count; /* metrics.blocked.count */
	struct cell_frame *chain;
	size_t chain_len;
	double *val; /* [metric_nr_rows]: metric_value(), NAN when absent */
	double stack_fraction; /* metrics.stack_max_fraction */
	double thread_size; /* metrics.stack.thread_size.bytes */
	/* metrics.stack.reclaim_write.complete is false: probes lost events */
	bool rw_lossy;
	bool counts; /* results_cell_counts(): an outcome, not infra-error */
};

/* cell.json decoded (any JSON object: what is missing is absent). */
struct cell_result *cell_result_decode(json_object *cell);
struct cell_result *cell_result_get(struct cell_result *c);
void cell_result_put(struct cell_result *c);

/* The cell's value of a registry row, in the row's unit; NAN if absent. */
static inline double cell_metric(const struct cell_result *c,
				 const struct metric *m)
{
	return c->val[metric_index(m)];
}

/* An entry of run.json's "cells", as the run recorded it. */
struct run_entry {
	char *id, *dir, *kernel, *outcome;
	long long rep;
};

/* run.json's "host": where the run's cells ran (the mail's Host line). */
struct run_host {
	char *hostname, *accel, *cpu, *kernel; /* NULL: not recorded */
	long long cpus, memory_mib; /* -1: not recorded */
	long long qemu_version, libvirt_version; /* 7002022: 7.2.22; -1 */
};

void run_host_copy(struct run_host *dst, const struct run_host *src);
void run_host_release(struct run_host *h);

/*
 * run.json's "spec" and "plan": what a matrix run was asked, as it
 * recorded it (the engine's --resume takes them back). Lists hold the
 * string elements; numbers absent are 0 (boot_timeout_s: -1).
 */
struct run_size {
	long long memory_mib, vcpus;
};

struct run_exclude {
	struct strvec kernels, topologies, workloads;
};

struct run_threshold {
	char *metric; /* the key as recorded (metric_by_old_key()) */
	double change_pct; /* 0 when absent */
	char *bad; /* NULL when absent */
};

struct run_plan_entry {
	char *id, *kernel, *topology, *workload, *levers;
	long long rep, memory_mib, vcpus, block;
};

struct run_spec {
	bool recorded; /* spec, spec.topologies and plan are there */
	char *matrix, *image, *accel_wanted, *cmdline_extra, *seed;
	struct strvec kernels, topologies, workloads, levers;
	long long reps, timeout_s, boot_timeout_s, deadline_s;
	struct run_size *sizes;
	size_t nr_sizes;
	struct run_exclude *excludes;
	size_t nr_excludes;
	struct run_threshold *thresholds;
	size_t nr_thresholds;
	struct run_plan_entry *plan; /* entries with id, kernel, topology
				      * and workload */
	size_t nr_plan;
};

void run_spec_decode(json_object *run, struct run_spec *s);
void run_spec_release(struct run_spec *s);

struct run_result {
	char *id; /* "run" */
	char *started, *command; /* NULL when absent */
	struct run_spec spec;
	struct run_host hostinfo; /* host.hostname, host.accel, ... */
	char *topology, *workload; /* spec.topology, spec.workload */
	char *image, *cmdline_extra; /* spec.image, spec.cmdline_extra */
	json_object *host; /* "host" as recorded (a report copies it), or NULL */
	struct strvec kernels; /* spec.kernels (strings): the declared order */
	struct run_entry *cells;
	size_t nr_cells;
};

/* run.json decoded into r (released by run_result_release). */
void run_result_decode(json_object *run, struct run_result *r);
void run_result_release(struct run_result *r);

#endif
