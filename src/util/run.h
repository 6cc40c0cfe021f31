/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_RUN_H
#define WBLAB_RUN_H

#include "util/strbuf.h"

/*
 * Run a program from an argv array: never through a shell, so no user or
 * spec string is ever interpreted. Output goes to a strbuf, a log file, or
 * is inherited.
 */
struct run_opts {
	const char *dir; /* chdir before exec, or NULL */
	const char **env; /* extra NAME=VALUE entries, NULL-terminated */
	struct strbuf *out; /* capture stdout (and stderr if err == out) */
	struct strbuf *err; /* capture stderr */
	const char *log_path; /* append stdout+stderr here (when out is NULL) */
	const char *in_path; /* stdin from this file, else /dev/null */
	int timeout; /* seconds, 0 = none; on expiry the child is killed */
	int quiet; /* discard output when nothing captures it */
	/*
	 * Bytes out and err may each hold, 0 = no cap. A child that writes
	 * more is killed, so a runaway program cannot fill our memory.
	 */
	size_t max_capture;
};

/*
 * Returns the exit status (0..255), 128+signal if killed by a signal, 124
 * on timeout, 125 when a capture passed max_capture, or -1 if the program
 * could not be started (errno set and a message in opts->err if given).
 */
int run_argv(const char *const *argv, const struct run_opts *opts);
/* Run and capture stdout; stderr is captured into err if non-NULL. */
int run_capture(const char *const *argv, struct strbuf *out,
		struct strbuf *err);
/*
 * Append s as one single-quoted shell word ('it'\''s'): sh reads it back
 * byte for byte, newlines and all, and expands nothing in it. The one
 * quoting function of every script and pasteable command wblab writes
 * (reproducer bundles, mails, messages): a value a results directory or a
 * spec supplied never reaches a shell as syntax.
 */
void sh_quote(struct strbuf *sb, const char *s);
/*
 * Render argv for messages and pasteable commands: a word of letters,
 * digits and _@%+=:,./- bare, any other through sh_quote().
 */
void argv_to_strbuf(struct strbuf *sb, const char *const *argv);

#endif
