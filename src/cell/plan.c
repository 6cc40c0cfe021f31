// SPDX-License-Identifier: GPL-2.0
/*
 * The planner: turns a topology and a workload into the ordered steps the
 * guest agent runs. Pure: no I/O, and it writes nothing it is handed (the
 * specs are shared by every cell of a run); the guest device each layer
 * ends up as lives in the plan_devs it returns. Unit-tested on the shipped
 * specs.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/collectors-plan.h"
#include "cell/plan-failslab.h"
#include "cell/plan-int.h"
#include "cell/plan-warmup.h"
#include "collect/stackprobe.h"
#include "util/log.h"
#include "util/strvec.h"

/* The STACK_NEED_* bits of the layers this guest builds. */
static unsigned int stack_layers(const struct topology_spec *t,
				 enum plan_role role)
{
	unsigned int need = 0;

	for (size_t i = 0; i < t->nr_layers; i++) {
		const struct topo_layer *l = &t->layers[i];
		const struct layer_steps *s = plan_layer_steps(l->type);

		if (plan_in_role(l, role) && s->stack_need)
			need |= s->stack_need(l);
	}
	return need;
}

/* The cell's private network: a static address, no DHCP, no uplink. */
static void setup_network(struct strbuf *p, const char *ip)
{
	char *cidr = xasprintf("%s/24", ip);

	TRY(p, "net:modprobe", "modprobe", "virtio_net");
	RUN(p, "net", "ip", "link", "set", "eth0", "up");
	RUN(p, "net", "ip", "addr", "add", cidr, "dev", "eth0");
	free(cidr);
}

static void setup_layer(struct planner *pl, const struct topo_layer *l)
{
	const struct layer_steps *s = plan_layer_steps(l->type);

	if (!plan_in_role(l, pl->o->role)) {
		/* The other guest's targets are still reachable from here. */
		if (s->elsewhere)
			s->elsewhere(pl, l);
		return;
	}
	if (s->setup)
		s->setup(pl, l);
}

static void setup_layers(struct planner *pl)
{
	const struct topology_spec *t = pl->t;
	bool *done = xzalloc(t->nr_layers * sizeof(*done));

	/* Bottom-up: a layer goes once everything it sits on is up. */
	for (size_t left = t->nr_layers; left;) {
		size_t before = left;

		for (size_t i = 0; i < t->nr_layers; i++) {
			const struct topo_layer *l = &t->layers[i];
			bool ready = !done[i];

			for (size_t k = 0; ready && k < l->on.n; k++)
				ready = done[topology_find(t, l->on.v[k]) -
					     t->layers];
			if (!ready)
				continue;
			done[i] = true;
			left--;
			setup_layer(pl, l);
		}
		if (left == before)
			break; /* a cycle: the loader rejects these */
	}
	free(done);
}

/* Top-down: undo what setup did, ignoring failures. */
static void teardown_layers(struct planner *pl)
{
	for (size_t i = pl->t->nr_layers; i-- > 0;) {
		const struct topo_layer *l = &pl->t->layers[i];
		const struct layer_steps *s = plan_layer_steps(l->type);
		const char *dev = plan_dev_of(pl, l);

		if (plan_in_role(l, pl->o->role) && dev && s->teardown)
			s->teardown(pl, l, dev);
	}
}

/* What the guest built: each type's capture once, in the table's order. */
static void capture_topology(struct strbuf *p, const struct topology_spec *t,
			     const struct plan_opts *o, const char *mount)
{
	CAPTURE(p, "lsblk", "lsblk", "-o", "NAME,TYPE,SIZE,FSTYPE,MOUNTPOINT");
	for (size_t k = 0; k < LAYER_TYPES; k++) {
		const struct layer_steps *s = &plan_layer_table[k];
		bool any = false;

		for (size_t i = 0; i < t->nr_layers && !any; i++)
			any = t->layers[i].type == s->type &&
			      plan_in_role(&t->layers[i], o->role);
		if (any && s->capture)
			s->capture(p);
	}
	if (mount)
		CAPTURE(p, "findmnt", "findmnt", "-T", mount);
	/* Read by the agent itself: no cat to start (agent/capfile.h). */
	plan_step(p, VERB_CAPFILE, "topology.txt", "mounts",
		  "/proc/self/mounts", NULL);
}

/*
 * A pre: command is split on spaces (no shell, no quoting) and
 * ${WBLAB_MOUNT} in it becomes the test mount. Every word is kept.
 */
static void pre_step(struct strbuf *p, const char *cmd, const char *timeout,
		     const char *mount)
{
	static const char var[] = "${WBLAB_MOUNT}";
	char *copy = xstrdup(cmd), *save, *tok;
	struct strvec argv = STRVEC_INIT;

	for (tok = strtok_r(copy, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *at = strstr(tok, var);

		if (at && mount)
			strvec_pushf(&argv, "%.*s%s%s", (int)(at - tok), tok,
				     mount, at + strlen(var));
		else
			strvec_push(&argv, tok);
	}
	if (argv.nr)
		plan_step_argv(p, VERB_RUN, "pre", timeout, argv.v);
	strvec_clear(&argv);
	free(copy);
}

/* The layers' own steps beside the workload, at its start or its end. */
static void workload_layers(struct planner *pl, bool end, const char *timeout)
{
	for (size_t i = 0; i < pl->t->nr_layers; i++) {
		const struct topo_layer *l = &pl->t->layers[i];
		const struct layer_steps *s = plan_layer_steps(l->type);

		if (!plan_in_role(l, PLAN_MAIN))
			continue;
		if (!end && s->workload_start)
			s->workload_start(pl->p, l);
		else if (end && s->workload_end)
			s->workload_end(pl->p, l, timeout);
	}
}

static void workload_steps(struct planner *pl, const struct workload_spec *w,
			   const struct collectors_opts *co)
{
	struct strbuf *p = pl->p;
	const struct plan_opts *o = pl->o;

	char timeout[16], hog[32], hold[16], every[16], churn[32], churn_ms[16];
	/* Only a re-touching or churning hog gets more: old plans stay. */
	const char *const hog_argv[] = {
		"/run/wblab-agent",
		"hog",
		hog,
		hold,
		w->hog_every || w->hog_churn ? every : NULL, /* argv ends */
		w->hog_churn ? churn : NULL,
		churn_ms,
		NULL,
	};

	snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
	snprintf(hog, sizeof(hog), "%llu",
		 (unsigned long long)(w->hog_size >> 20));
	snprintf(hold, sizeof(hold), "%lld",
		 w->hog_hold ? w->hog_hold : (long long)o->workload_timeout);
	snprintf(every, sizeof(every), "%lld", w->hog_every);
	snprintf(churn, sizeof(churn), "%llu",
		 (unsigned long long)(w->hog_churn >> 20));
	snprintf(churn_ms, sizeof(churn_ms), "%lld", w->hog_churn_ms);
	plan_phase(p, PHASE_WORKLOAD);
	collectors_plan_workload(p, co);
	workload_layers(pl, false, timeout);
	if (w->memcg_max) {
		plan_step(p, VERB_CGROUP, "wblab", w->memcg_max, NULL);
		/* Each OOM's memory.stat, read on the memcg's event (oom.c). */
		plan_step_argv(p, VERB_BG, "oomwatch", NULL,
			       (const char *const[]){
				       "/run/wblab-agent", "oomwatch", "wblab",
				       AGENT_OUT_DIR "/" OOMWATCH_FILE, NULL });
	}
	if (w->hog_size && w->fio)
		plan_step_argv(p, VERB_BG, "hog", NULL, hog_argv);
	else if (w->hog_size)
		plan_step_argv(p, VERB_RUN, "hog", timeout, hog_argv);
	if (w->fio) {
		plan_step(p, VERB_PUT, "/tmp/wblab-job.fio", w->fio, NULL);
		plan_step_argv(p, VERB_RUN, "fio", timeout,
			       (const char *const[]){
				       "fio", "--output-format=json",
				       "--output=/tmp/wblab-out/fio.json",
				       "/tmp/wblab-job.fio", NULL });
	}
	plan_failslab_disarm(p, w->failslab);
	workload_layers(pl, true, timeout);
	/* The background hog's rounds and kills (agent/hog.c), as it ran. */
	if (w->hog_size && w->fio)
		plan_step(p, VERB_GET, "hog.out", AGENT_BG_OUT("hog"), NULL);
	collectors_plan_workload_end(p);
	if (w->memcg_max)
		plan_step(p, VERB_CGROUP, "", "", NULL);
}

void plan_devs_free(struct plan_devs *d)
{
	for (size_t i = 0; d->dev && i < d->nr; i++)
		free(d->dev[i]);
	free(d->dev);
	d->dev = NULL;
	d->nr = 0;
}

/*
 * MGLRU: a workload's lru_gen: writes the knob and checks it took (a
 * kernel without CONFIG_LRU_GEN fails setup here, naming lru_gen); the
 * collectors read it back into metrics.lru_gen after the pre: steps. On
 * means the LRU_GEN_CORE bit (bit 0 of the mask) is set.
 */
static void lru_gen_steps(struct strbuf *p, const char *want)
{
	bool on;

	if (!want)
		return;
	on = !strcmp(want, "on");
	plan_step(p, VERB_PUT, LRU_GEN, on ? "y" : "n", NULL);
	RUN(p, "lru_gen", "grep", "-Eqx", on ? "0x[0-9a-f]*[13579bdf]" : "0x0+",
	    LRU_GEN);
}

int plan_compile(const struct topology_spec *t, const struct workload_spec *w,
		 const struct plan_opts *o, struct strbuf *out,
		 struct plan_devs *devs)
{
	const struct topo_layer *top = topology_mount_layer(t);
	char *mount = o->role == PLAN_MAIN && top ? plan_mount_dir(top) : NULL;
	struct planner pl = { .p = out, .t = t, .o = o, .devs = devs };
	struct collectors_opts co = { .thread_size = o->thread_size,
				      .kver = o->kver,
				      .layers = stack_layers(t, o->role),
				      .page_cache = w->trace_page_cache,
				      .system_map = o->system_map,
				      .map_complete = o->map_complete,
				      .host_ksyms = o->host_ksyms };

	devs->nr = t->nr_layers;
	devs->dev = xzalloc((t->nr_layers + 1) * sizeof(*devs->dev));
	plan_phase(out, PHASE_SETUP);
	if (mount)
		plan_step(out, VERB_ENV, "WBLAB_MOUNT", mount, NULL);
	if (o->own_ip)
		setup_network(out, o->own_ip);
	setup_layers(&pl);
	if (o->role == PLAN_MAIN) {
		char timeout[16];

		/*
		 * pre: steps prepare the workload (a file to overwrite, caches
		 * dropped): the warm-up, part of setup, outside the memcg and
		 * outside the measured window that starts at vmstat.before.
		 */
		snprintf(timeout, sizeof(timeout), "%d", o->workload_timeout);
		lru_gen_steps(out, w->lru_gen);
		plan_phase(out, PHASE_WARMUP);
		if (o->warmup)
			plan_warmup(out, w, timeout);
		for (size_t i = 0; i < w->pre.n; i++)
			pre_step(out, w->pre.v[i], timeout, mount);
		plan_phase(out, PHASE_ARM);
		collectors_plan_arm(out, &co);
		plan_step(out, VERB_GET, "vmstat.before", "/proc/vmstat", NULL);
		plan_step(out, VERB_GET, "meminfo.before", "/proc/meminfo",
			  NULL);
		plan_failslab_arm(out, w->failslab);
		workload_steps(&pl, w, &co);
		plan_phase(out, PHASE_COLLECT);
		plan_step(out, VERB_GET, "vmstat.after", "/proc/vmstat", NULL);
		plan_step(out, VERB_GET, "meminfo.after", "/proc/meminfo",
			  NULL);
		collectors_plan_collect(out, mount, &co);
	} else {
		/*
		 * A target guest serves until the host tears the cell down, so
		 * what it built is captured and sent before it starts serving.
		 */
		capture_topology(out, t, o, NULL);
		plan_step(out, VERB_GET, "topology.txt",
			  "/tmp/wblab-out/topology.txt", NULL);
		plan_phase(out, PHASE_WORKLOAD);
		plan_step_argv(out, VERB_RUN, "serve", "86400",
			       (const char *const[]){ "sleep", "infinity",
						      NULL });
		plan_phase(out, PHASE_COLLECT);
	}
	if (o->role == PLAN_MAIN)
		capture_topology(out, t, o, mount);
	plan_phase(out, PHASE_TEARDOWN);
	teardown_layers(&pl);
	free(mount);
	return 0;
}
