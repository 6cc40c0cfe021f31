/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PROTO_H
#define WBLAB_PROTO_H

#include <stddef.h>

#include "util/strvec.h"

/*
 * The host <-> guest agent protocol on the virtio-serial channel
 * "org.wblab.agent". Every message is a frame:
 *
 *	"WBL1 <type> <len> <name>\n" followed by <len> bytes
 *
 * Guest to host: H hello (body: key=value lines), S status (phase changes,
 * progress), F file (name = result file name), X exit (name = agent status
 * ok|setup-failed|workload-failed, body: key=value lines).
 * Host to guest: R seed (optional, before the plan: random bytes from the
 * host that the agent credits to the guest kernel's entropy pool, as
 * virtio-rng would), P plan.
 *
 * The plan is text, one step a line, fields separated by TAB; inside a
 * field, backslash, TAB and newline are escaped as \\, \t and \n:
 *
 *	env	NAME	VALUE		environment for later steps
 *	phase	NAME			setup | warmup | arm | workload | collect | teardown
 *	run	LABEL	TIMEOUT	ARGV...	run a program; failure fails the phase
 *	try	LABEL	TIMEOUT	ARGV...	run a program; failure is only logged
 *	capture	NAME	LABEL	ARGV...	append "# LABEL" and the output to NAME
 *	capfile	NAME	LABEL	PATH...	append "# LABEL" and the files, as cat would
 *	caplines	NAME	LABEL	GLOB...	append "# LABEL" and each non-empty line of
 *				the files GLOB matches as "FILE:LINE", as grep -H . would
 *	mkdir	PATH			make a directory (and its parents); failure is logged
 *	bg	LABEL	ARGV...		start in the background (killed at phase end)
 *	wait	LABEL	TIMEOUT		wait for a background step
 *	put	PATH	CONTENT		write a guest file
 *	append	PATH	CONTENT		append to a guest file (tracefs: one definition a write)
 *	get	NAME	PATH		send a guest file back as NAME
 *	cgroup	PATH	MEMORY_MAX	later run/bg steps start in this cgroup v2
 *
 * capfile, caplines and mkdir are done by the agent itself: under TCG
 * starting cat, find or mkdir cost 40-270 ms a step (bench/cell-phases).
 * Sampling is not a verb: the collectors start "wblab-agent sample FILE
 * INTERVAL_MS" as a bg step (agent/hog.c). A step has as many fields as
 * its line holds; TIMEOUT is whole seconds, 0 for none.
 *
 * Guest output is untrusted on the host: names are checked, lengths capped.
 */
#define PROTO_MAGIC "WBL1"
/* Where captures and samples collect before they go back to the host. */
#define AGENT_OUT_DIR "/tmp/wblab-out"
/* The oomwatch's rows in AGENT_OUT_DIR (agent/oomwatch.c, collect/oom.c). */
#define OOMWATCH_FILE "memcg-oom.tsv"
/* A bg step's stdout and stderr: AGENT_BG_OUT(LABEL) for a literal label. */
#define AGENT_BG_PREFIX "/tmp/wblab-bg-"
#define AGENT_BG_SUFFIX ".out"
#define AGENT_BG_OUT(label) AGENT_BG_PREFIX label AGENT_BG_SUFFIX
#define PROTO_CHANNEL "org.wblab.agent"
#define PROTO_MAX_NAME 64
#define PROTO_MAX_FRAME (512u << 20)
/* The seed's size: 256 bits, what the kernel's CRNG needs to be ready. */
#define PROTO_SEED_BYTES 32
#define PROTO_MAX_SEED 64
/* The agent sends at most this much of a file (and says so in agent.log). */
#define PROTO_MAX_FILE (256u << 20)

/* Plan verbs, cell phases and agent exit statuses: one name table each. */
enum proto_verb {
	VERB_ENV,
	VERB_PHASE,
	VERB_RUN,
	VERB_TRY,
	VERB_CAPTURE,
	VERB_BG,
	VERB_WAIT,
	VERB_PUT,
	VERB_APPEND,
	VERB_GET,
	VERB_CGROUP,
	VERB_CAPFILE,
	VERB_CAPLINES,
	VERB_MKDIR,
	NR_VERBS
};

/*
 * The phases in plan order. warmup (the workload's pre: steps) and arm
 * (the collectors' tracefs set-up and before-snapshots) are setup's too:
 * a failure there is setup-failed. They are phases so that cell.json can
 * say where a cell's time goes (timings.*_s).
 */
enum proto_phase {
	PHASE_SETUP,
	PHASE_WARMUP,
	PHASE_ARM,
	PHASE_WORKLOAD,
	PHASE_COLLECT,
	PHASE_TEARDOWN,
	NR_PHASES
};

enum proto_status {
	STATUS_OK,
	STATUS_SETUP_FAILED,
	STATUS_WORKLOAD_FAILED,
	NR_STATUSES
};

extern const char *const proto_verb_names[NR_VERBS];
extern const char *const proto_phase_names[NR_PHASES];
extern const char *const proto_status_names[NR_STATUSES];

/* The enum value of a name, or -1 for a name not in the table (or NULL). */
int proto_verb(const char *name);
int proto_phase(const char *name);
int proto_status(const char *name);
/* Is the phase setup or part of it (warmup, arm)? */
int proto_phase_is_setup(int phase);

/* Escape one field into dst (size >= 2 * len + 1); returns bytes written. */
size_t proto_escape(char *dst, const char *src, size_t len);
/*
 * Split a plan line (no newline) at its TABs and push each field,
 * unescaped, onto fields: every field, however many. fields->v is then a
 * NULL-terminated argv. Returns the number pushed.
 */
size_t proto_split(const char *line, struct strvec *fields);
/* A whole decimal number 0..max (a TIMEOUT field); 0 or -1. */
int proto_uint(const char *s, unsigned int max, unsigned int *out);
/* A result name is [A-Za-z0-9._-]{1,64}, not starting with '.'. */
int proto_valid_name(const char *name);
/*
 * Parse a frame header line (without the newline). Returns 0 and fills
 * type, len and name (PROTO_MAX_NAME + 1 bytes), -1 if malformed.
 */
int proto_parse_header(const char *line, char *type, size_t *len, char *name);

#endif
