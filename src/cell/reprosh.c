// SPDX-License-Identifier: GPL-2.0
/*
 * plan.txt as a shell script (reprosh.h). The agent's verbs become shell
 * functions of a fixed preamble; each step becomes one call whose every
 * argument is a single-quoted word, so no field can reach the shell as
 * syntax. A device named "@disk:SERIAL" or "@iscsi:IQN:LUN" inside a
 * field becomes a command substitution of wb_dev with that name, quoted
 * too, as the agent resolves it (no udev in the guest).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/reprosh.h"
#include "util/log.h"
#include "util/run.h"
#include "util/strvec.h"

static const char preamble[] =
	"#!/bin/sh\n"
	"# The steps wblab's guest agent ran for this cell, in order, as shell.\n"
	"# Run it as root in a guest booted as qemu.sh boots it (README).\n"
	"# A failed 'run' step fails its phase as in the agent: the rest of the\n"
	"# phase is skipped (setup: the script stops). Results go to $OUT.\n"
	"set -u\n"
	"OUT=${OUT:-/tmp/wblab-out}\n"
	"mkdir -p \"$OUT\"\n"
	"wb_skip=0 wb_phase_name= wb_failed=\n"
	"wb_log() { echo \"wblab-repro: $*\" >&2; echo \"wblab-repro: $*\" > /dev/kmsg 2>/dev/null; }\n"
	"# A device by virtio serial or by iSCSI target and LUN (no udev).\n"
	"wb_dev() {\n"
	"\tcase $1 in\n"
	"\t@disk:*) s=${1#@disk:}\n"
	"\t\tfor i in $(seq 100); do for b in /sys/block/*; do\n"
	"\t\t\t[ \"$(cat \"$b/serial\" 2>/dev/null)\" = \"$s\" ] && { echo \"/dev/${b##*/}\"; return 0; }\n"
	"\t\tdone; sleep 0.1; done ;;\n"
	"\t@iscsi:*) s=${1#@iscsi:}; iqn=${s%:*}; lun=${s##*:}\n"
	"\t\tfor i in $(seq 300); do for d in /sys/class/iscsi_session/*; do\n"
	"\t\t\t[ \"$(cat \"$d/targetname\" 2>/dev/null)\" = \"$iqn\" ] || continue\n"
	"\t\t\tfor b in \"$d\"/device/target*/*:*:*:\"$lun\"/block/*; do\n"
	"\t\t\t\t[ -e \"$b\" ] && { echo \"/dev/${b##*/}\"; return 0; }\n"
	"\t\t\tdone\n"
	"\t\tdone; sleep 0.1; done ;;\n"
	"\tesac\n"
	"\techo \"no device for $1\" >&2; return 1\n"
	"}\n"
	"wb_bg_stop() {\n"
	"\tfor f in /tmp/wblab-bg-*.pid; do [ -e \"$f\" ] || continue\n"
	"\t\tkill -KILL \"$(cat \"$f\")\" 2>/dev/null; rm -f \"$f\"; done\n"
	"}\n"
	"wb_phase() {\n"
	"\twb_bg_stop\n"
	"\tif [ \"$wb_skip\" = 1 ]; then case $wb_phase_name in setup|warmup|arm) exit 1 ;; esac; fi\n"
	"\twb_skip=0 wb_phase_name=$1; wb_log \"phase $1\"\n"
	"}\n"
	"wb_timed() { t=$1; shift; if [ \"$t\" = 0 ]; then \"$@\"; else timeout -s KILL \"$t\" \"$@\"; fi; }\n"
	"wb_run() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tl=$1; shift; wb_log \"run $l\"; wb_timed \"$@\"; rc=$?\n"
	"\t[ $rc = 0 ] || { wb_log \"step $l failed (rc $rc): rest of phase $wb_phase_name skipped\"; wb_skip=1 wb_failed=$l; }\n"
	"}\n"
	"wb_try() { [ \"$wb_skip\" = 1 ] && return 0; l=$1; shift; wb_log \"try $l\"; wb_timed \"$@\" || true; }\n"
	"wb_capture() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tn=$1 l=$2; shift 2; { echo \"# $l\"; \"$@\"; } >> \"$OUT/$n\" 2>&1\n"
	"}\n"
	"wb_capfile() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tn=$1 l=$2; shift 2; { echo \"# $l\"; cat -- \"$@\"; } >> \"$OUT/$n\" 2>&1\n"
	"}\n"
	"wb_caplines() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tn=$1 l=$2; shift 2; { echo \"# $l\"; for g; do grep -H . -- $g; done; } >> \"$OUT/$n\" 2>&1\n"
	"}\n"
	"wb_mkdir() { [ \"$wb_skip\" = 1 ] || mkdir -p -- \"$1\"; }\n"
	"wb_bg() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tl=$1; shift; \"$@\" > \"/tmp/wblab-bg-$l.out\" 2>&1 &\n"
	"\techo $! > \"/tmp/wblab-bg-$l.pid\"\n"
	"}\n"
	"wb_wait() {\n"
	"\t[ \"$wb_skip\" = 1 ] && return 0\n"
	"\tp=$(cat \"/tmp/wblab-bg-$1.pid\" 2>/dev/null) || return 0; i=0\n"
	"\twhile kill -0 \"$p\" 2>/dev/null; do\n"
	"\t\t[ \"$2\" != 0 ] && [ $i -ge \"$2\" ] && { kill -KILL \"$p\"; break; }\n"
	"\t\tsleep 1; i=$((i + 1)); done\n"
	"}\n"
	"wb_put() { [ \"$wb_skip\" = 1 ] || printf '%s' \"$2\" > \"$1\"; }\n"
	"wb_append() { [ \"$wb_skip\" = 1 ] || printf '%s' \"$2\" >> \"$1\"; }\n"
	"wb_get() { [ \"$wb_skip\" = 1 ] || cp -- \"$2\" \"$OUT/$1\"; }\n"
	"# The agent starts later steps in the cgroup; here the shell joins it.\n"
	"wb_cgroup() {\n"
	"\tif [ -z \"$1\" ]; then echo $$ > /sys/fs/cgroup/cgroup.procs; return; fi\n"
	"\techo +memory > /sys/fs/cgroup/cgroup.subtree_control\n"
	"\tmkdir -p \"/sys/fs/cgroup/$1\"; echo \"$2\" > \"/sys/fs/cgroup/$1/memory.max\"\n"
	"\techo $$ > \"/sys/fs/cgroup/$1/cgroup.procs\"\n"
	"}\n"
	"\n";

/*
 * One argument; in a program's argv its @disk:/@iscsi: device (which ends
 * the field) is resolved, as the agent does for what it executes.
 */
static void add_arg(struct strbuf *out, const char *a, bool argv)
{
	const char *at = argv ? strstr(a, "@disk:") : NULL;

	if (argv && !at)
		at = strstr(a, "@iscsi:");
	strbuf_addch(out, ' ');
	if (!at) {
		sh_quote(out, a);
		return;
	}
	if (at > a) {
		char *pre = xstrndup(a, at - a);

		sh_quote(out, pre);
		free(pre);
	}
	strbuf_addstr(out, "\"$(wb_dev ");
	sh_quote(out, at);
	strbuf_addstr(out, ")\"");
}

/* fn and its arguments, those from the nfixed-th on a program's argv. */
static void call(struct strbuf *out, const char *fn, const char *const *args,
		 size_t nfixed)
{
	strbuf_addstr(out, fn);
	for (size_t i = 0; args[i]; i++)
		add_arg(out, args[i], i >= nfixed);
	strbuf_addch(out, '\n');
}

/* Fields before a program's argv, the verb's own excluded. */
static size_t fixed_fields(int verb)
{
	switch (verb) {
	case VERB_RUN:
	case VERB_TRY:
	case VERB_CAPTURE:
		return 2;
	case VERB_BG:
		return 1;
	default:
		return (size_t)-1; /* no argv */
	}
}

static bool env_name(const char *s)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* The fewest fields (verb included) a verb's line holds. */
static const size_t min_fields[NR_VERBS] = {
	[VERB_ENV] = 3,	     [VERB_PHASE] = 2,	 [VERB_RUN] = 4,
	[VERB_TRY] = 4,	     [VERB_CAPTURE] = 4, [VERB_BG] = 3,
	[VERB_WAIT] = 3,     [VERB_PUT] = 3,	 [VERB_APPEND] = 3,
	[VERB_GET] = 3,	     [VERB_CGROUP] = 3,	 [VERB_CAPFILE] = 4,
	[VERB_CAPLINES] = 4, [VERB_MKDIR] = 2,
};

/* Why the step's fields are not valid, or NULL. */
static const char *check_step(int verb, const char **f, size_t n)
{
	unsigned int t;

	if (n < min_fields[verb])
		return "too few fields";
	switch (verb) {
	case VERB_ENV:
		return env_name(f[1]) ? NULL : "not an environment name";
	case VERB_PHASE:
		return proto_phase(f[1]) < 0 ? "unknown phase" : NULL;
	case VERB_RUN:
	case VERB_TRY:
	case VERB_WAIT:
		return proto_uint(f[2], 7 * 86400, &t) ? "bad timeout" : NULL;
	case VERB_CAPTURE:
	case VERB_CAPFILE:
	case VERB_CAPLINES:
	case VERB_GET:
		return proto_valid_name(f[1]) ? NULL : "bad result name";
	case VERB_BG:
		return proto_valid_name(f[1]) ? NULL : "bad label";
	default:
		return NULL;
	}
}

static void render(struct strbuf *out, int verb, const char **f)
{
	switch (verb) {
	case VERB_ENV:
		strbuf_addf(out, "export %s=", f[1]);
		sh_quote(out, f[2]);
		strbuf_addch(out, '\n');
		break;
	case VERB_PHASE:
		strbuf_addf(out, "\n# --- phase %s ---\n", f[1]);
		call(out, "wb_phase", f + 1, fixed_fields(verb));
		break;
	case VERB_RUN:
	case VERB_TRY:
		/* wb_run LABEL TIMEOUT ARGV: wb_timed takes TIMEOUT ARGV. */
		call(out, verb == VERB_RUN ? "wb_run" : "wb_try", f + 1,
		     fixed_fields(verb));
		break;
	default: {
		char *fn = xasprintf("wb_%s", proto_verb_names[verb]);

		call(out, fn, f + 1, fixed_fields(verb));
		free(fn);
	}
	}
}

int repro_plan_sh(const char *plan, size_t len, const char *name,
		  struct strbuf *out, struct strbuf *err)
{
	const char *p = plan, *end = plan + len;
	struct strvec f = STRVEC_INIT;
	int lineno = 0, ret = 0;

	strbuf_addstr(out, preamble);
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = (nl ? nl : end) - p;
		char *line = xstrndup(p, n);
		const char *why = NULL;
		int verb;

		lineno++;
		p = nl ? nl + 1 : end;
		strvec_clear(&f);
		if (strlen(line) != n) {
			why = "a NUL byte in the line";
		} else if (n) {
			proto_split(line, &f);
			verb = proto_verb(f.v[0]);
			why = verb < 0 ? "unknown verb" :
					 check_step(verb, f.v, f.nr);
			if (!why)
				render(out, verb, f.v);
		}
		if (why) {
			strbuf_addf(err, "%s:%d: %s: %s", name, lineno,
				    f.nr ? f.v[0] : "", why);
			ret = -1;
		}
		free(line);
	}
	if (!ret)
		strbuf_addstr(out, "\nwb_bg_stop\n"
				   "[ -z \"$wb_failed\" ] || { wb_log \"failed "
				   "step: $wb_failed\"; exit 1; }\n");
	strvec_clear(&f);
	return ret;
}
