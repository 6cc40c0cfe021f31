/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_NUM_H
#define WBLAB_NUM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Numbers in text wblab did not write (the guest's files, docs/hardening.md).
 * A number must be there, fit, lie within the caller's [min, max] and end
 * where a number ends: at a byte that cannot continue it (not a digit, a
 * letter, '.' or '_'), so "12x", "1.5" read as an integer and
 * "99999999999999999999" fail where atoi and strtoll gave 12, 1 and
 * LLONG_MAX. Blanks before it are skipped, as strtoll does; the scan stops
 * at the first byte that is not part of a number, so a line inside a
 * NUL-terminated buffer is safe to parse in place.
 *
 * A failure is counted in the struct numsrc the caller passes, and the
 * first is kept as "FILE:LINE: 'VALUE': why", FILE and LINE found from the
 * texts the caller registered with numsrc_add() (the files the parser was
 * given): that string is the collector error, never a silent 0.
 */

#define NUMSRC_MAX_FILES 4

struct numsrc_file {
	const char *name;
	const char *text;
	size_t len;
};

struct numsrc {
	struct numsrc_file files[NUMSRC_MAX_FILES];
	size_t nr_files;
	unsigned int nr_bad; /* values that failed */
	char *first; /* the first failure, "FILE:LINE: 'VALUE': why" */
	const char *first_file; /* the FILE of it (a registered name) */
};

#define NUMSRC_INIT \
	{           \
		0   \
	}

/* Register a text the parser reads (a file of the guest's, by name). */
void numsrc_add(struct numsrc *s, const char *name, const char *text,
		size_t len);
void numsrc_release(struct numsrc *s);

/*
 * The integer at p in base (10, or 0 for C's "0x"/"0" prefixes), within
 * [min, max]: 0 with *out set and *end (if end) past it; -1 with *out
 * untouched and the failure recorded in s (which may be NULL).
 */
int num_ll(struct numsrc *s, const char *p, int base, long long min,
	   long long max, long long *out, const char **end);
/* The same for a finite decimal number ("12", "-3.5", "1e3"). */
int num_double(struct numsrc *s, const char *p, double min, double max,
	       double *out, const char **end);

/*
 * The count after key at the start of a line of text (a NUL-terminated
 * /proc/vmstat, /proc/meminfo, memory.events, memory.stat, /proc/PID/io),
 * or -1 when no line starts with key and a blank (space or tab) or the
 * first such line's value is no count (num_ll in [0, LLONG_MAX]). key is
 * spelt as the file spells it, colon and all ("MemAvailable:",
 * "read_bytes:", "pgpgout"): the blank after it is what keeps "pgpgout"
 * off the line "pgpgoutclean N", "oom" off "oom_kill N" and "Writeback:"
 * off "WritebackTmp: N". The guest agent's readers use it (libc only).
 */
long long num_field(const char *text, const char *key);

/*
 * A kernel version as one number, KVER(6, 10) == 6010, so that tables can
 * say "from 6.10 on". kver_parse() reads the leading "MAJOR.MINOR" of a
 * release ("6.1.192-wblab", "6.12.118+deb12-amd64"); 0 when there is none.
 */
#define KVER(major, minor) ((major)*1000 + (minor))
int kver_parse(const char *release);

#endif
