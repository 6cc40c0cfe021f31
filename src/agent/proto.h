/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PROTO_H
#define WBLAB_PROTO_H

#include <stddef.h>

/*
 * The host <-> guest agent protocol on the virtio-serial channel
 * "org.wblab.agent". Every message is a frame:
 *
 *	"WBL1 <type> <len> <name>\n" followed by <len> bytes
 *
 * Guest to host: H hello (body: key=value lines), S status (phase changes,
 * progress), F file (name = result file name), X exit (name = agent status
 * ok|setup-failed|workload-failed, body: key=value lines).
 * Host to guest: P plan.
 *
 * The plan is text, one step a line, fields separated by TAB; inside a
 * field, backslash, TAB and newline are escaped as \\, \t and \n:
 *
 *	env	NAME	VALUE		environment for later steps
 *	phase	NAME			setup | workload | collect | teardown
 *	run	LABEL	TIMEOUT	ARGV...	run a program; failure fails the phase
 *	try	LABEL	TIMEOUT	ARGV...	run a program; failure is only logged
 *	capture	NAME	LABEL	ARGV...	append "# LABEL" and the output to NAME
 *	bg	LABEL	ARGV...		start in the background (killed at phase end)
 *	wait	LABEL	TIMEOUT		wait for a background step
 *	put	PATH	CONTENT		write a guest file
 *	get	NAME	PATH		send a guest file back as NAME
 *	cgroup	PATH	MEMORY_MAX	later run/bg steps start in this cgroup v2
 *	sample	NAME	INTERVAL_MS	start sampling meminfo/vmstat into NAME
 *
 * Guest output is untrusted on the host: names are checked, lengths capped.
 */
#define PROTO_MAGIC "WBL1"
/* Where captures and samples collect before they go back to the host. */
#define AGENT_OUT_DIR "/tmp/wblab-out"
#define PROTO_CHANNEL "org.wblab.agent"
#define PROTO_MAX_NAME 64
#define PROTO_MAX_FRAME (512u << 20)
#define PROTO_MAX_FIELDS 128
/* The agent sends at most this much of a file (and says so in agent.log). */
#define PROTO_MAX_FILE (256u << 20)

/* Escape one field into dst (size >= 2 * len + 1); returns bytes written. */
size_t proto_escape(char *dst, const char *src, size_t len);
/*
 * Split a plan line in place into at most max fields (unescaped), then a
 * NULL: fields needs max + 1 slots. Returns the count.
 */
int proto_split(char *line, char **fields, int max);
/* A result name is [A-Za-z0-9._-]{1,64}, not starting with '.'. */
int proto_valid_name(const char *name);
/*
 * Parse a frame header line (without the newline). Returns 0 and fills
 * type, len and name (PROTO_MAX_NAME + 1 bytes), -1 if malformed.
 */
int proto_parse_header(const char *line, char *type, size_t *len, char *name);

#endif
