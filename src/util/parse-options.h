/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_PARSE_OPTIONS_H
#define WBLAB_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "util/strvec.h"

/*
 * One option parser for every subcommand (after git's parse-options.h):
 * a table of options with designated initialisers, from which --help is
 * generated and against which every value is checked by name:
 *
 *	wblab run: --memory: 'abc' is not a number
 *	wblab run: -n: 0 is out of range 1..1000
 *
 * Bad usage exits 2; --help prints the generated text to stdout and exits 0.
 * The value a variable holds before parsing is its default, and --help
 * shows it.
 */
enum parse_opt_type {
	OPTION_END,
	OPTION_GROUP, /* a heading in --help; help is the heading */
	OPTION_BOOL, /* bool *; --no-NAME clears it */
	OPTION_INT, /* int * */
	OPTION_SIZE, /* long long *, in .unit bytes; N, NK, NM, NG, NT */
	OPTION_DURATION, /* int *, seconds; N, Ns, Nm, Nh, Nd */
	OPTION_DOUBLE, /* double * */
	OPTION_STRING, /* const char **; .choices restricts it */
	OPTION_STRLIST, /* struct strvec *; each use appends */
};

struct option {
	enum parse_opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh; /* the value's name in --help: N, DIR, MiB */
	const char *help;
	long long min, max; /* inclusive; both 0: no range */
	long long unit; /* OPTION_SIZE: bytes per unit (default 1) */
	const char *const *choices; /* OPTION_STRING: NULL-terminated */
};

#define OPT_END()                  \
	{                          \
		.type = OPTION_END \
	}
#define OPT_GROUP(h)                              \
	{                                         \
		.type = OPTION_GROUP, .help = (h) \
	}
#define OPT_BOOL(s, l, v, h)                                              \
	{                                                                 \
		.type = OPTION_BOOL, .short_name = (s), .long_name = (l), \
		.value = (v), .help = (h)                                 \
	}
#define OPT_INT(s, l, v, a, lo, hi, h)                                   \
	{                                                                \
		.type = OPTION_INT, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .min = (lo), .max = (hi),     \
		.help = (h)                                              \
	}
#define OPT_SIZE(s, l, v, a, u, lo, hi, h)                                \
	{                                                                 \
		.type = OPTION_SIZE, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .unit = (u), .min = (lo),      \
		.max = (hi), .help = (h)                                  \
	}
#define OPT_DURATION(s, l, v, a, lo, hi, h)                                   \
	{                                                                     \
		.type = OPTION_DURATION, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .min = (lo), .max = (hi),          \
		.help = (h)                                                   \
	}
#define OPT_DOUBLE(s, l, v, a, h)                                           \
	{                                                                   \
		.type = OPTION_DOUBLE, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h)                      \
	}
#define OPT_STRING(s, l, v, a, h)                                           \
	{                                                                   \
		.type = OPTION_STRING, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h)                      \
	}
#define OPT_CHOICE(s, l, v, a, c, h)                                        \
	{                                                                   \
		.type = OPTION_STRING, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .choices = (c), .help = (h)      \
	}
#define OPT_STRLIST(s, l, v, a, h)                                           \
	{                                                                    \
		.type = OPTION_STRLIST, .short_name = (s), .long_name = (l), \
		.value = (v), .argh = (a), .help = (h)                       \
	}

enum parse_opt_flags {
	/* Stop at the first non-option (for commands with subcommands). */
	PARSE_OPT_STOP_AT_NON_OPTION = 1 << 0,
};

/* What parse_options_noexit() returns instead of an argc. */
enum {
	PARSE_OPT_HELP = -1, /* --help was printed */
	PARSE_OPT_ERROR = -2, /* the error was printed */
};

/*
 * Parse argv[1..argc-1] (argv[0] is the command's name) against opts.
 * prefix names the command in messages ("wblab run"); usage is a
 * NULL-terminated list of synopsis lines. The non-option arguments are
 * moved to argv[0..n-1] in order and n is returned; argv[n] is NULL.
 * Exits 0 after --help and 2 on bad usage.
 */
int parse_options(int argc, char **argv, const char *prefix,
		  const struct option *opts, const char *const *usage,
		  unsigned int flags);
/* The same, for tests: returns PARSE_OPT_HELP or PARSE_OPT_ERROR. */
int parse_options_noexit(int argc, char **argv, const char *prefix,
			 const struct option *opts, const char *const *usage,
			 unsigned int flags, FILE *out, FILE *err);
/* The generated --help text. */
void parse_options_usage(FILE *f, const char *prefix, const struct option *opts,
			 const char *const *usage);
/* Print "PREFIX: MESSAGE" and "see 'PREFIX --help'" to stderr; returns 2. */
int usage_error(const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Commands with subcommands (wblab kernel list|show|build): opts are the
 * command's own options, before the subcommand; then the subcommand's
 * function gets argv from the subcommand's name on, and parses its own
 * options with the prefix "PREFIX NAME". An unknown or missing subcommand
 * is bad usage (exit 2); --help lists the usage lines.
 */
struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

int parse_subcommand(int argc, char **argv, const char *prefix,
		     const struct option *opts, const char *const *usage,
		     const struct subcommand *subs);

/* The value parsers, for spec loaders and tests: 0 or -1. */
int parse_size(const char *s, long long unit, long long *out);
int parse_duration(const char *s, int *out);

#endif
