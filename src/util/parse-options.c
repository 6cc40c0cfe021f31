// SPDX-License-Identifier: GPL-2.0
/*
 * The option parser every subcommand uses; see parse-options.h. Values are
 * checked here, by name, so a command never sees an unparsed number.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse-options.h"
#include "util/str.h"

struct po_ctx {
	const char *prefix;
	FILE *err;
};

static int po_error(struct po_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int po_error(struct po_ctx *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(c->err, "%s: ", c->prefix);
	va_start(ap, fmt);
	vfprintf(c->err, fmt, ap);
	va_end(ap);
	fprintf(c->err, "\nsee '%s --help'\n", c->prefix);
	return PARSE_OPT_ERROR;
}

int usage_error(const char *prefix, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prefix);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee '%s --help'\n", prefix);
	return 2;
}

/* A decimal integer, the whole string; 0 or -1 (ERANGE on overflow). */
static int parse_ll(const char *s, const char **end, long long *out)
{
	char *e;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoll(s, &e, 10);
	if (e == s || errno)
		return -1;
	*end = e;
	return 0;
}

int parse_size(const char *s, long long unit, long long *out)
{
	static const char sfx[] = "KMGT";
	const char *e, *p;
	long long n, mul = 1;

	if (unit <= 0)
		unit = 1;
	if (parse_ll(s, &e, &n) || n < 0)
		return -1;
	if (*e) {
		p = strchr(sfx, toupper((unsigned char)*e));
		if (!p)
			return -1;
		for (int i = 0; i <= p - sfx; i++)
			mul *= 1024;
		e++;
		if (!strcmp(e, "iB") || !strcmp(e, "B"))
			e += strlen(e);
		if (*e)
			return -1;
		if (n > LLONG_MAX / mul)
			return -1;
		n = n * mul / unit;
	}
	*out = n;
	return 0;
}

int parse_duration(const char *s, int *out)
{
	const char *e;
	long long n, mul = 1;

	if (parse_ll(s, &e, &n) || n < 0)
		return -1;
	if (*e) {
		switch (*e) {
		case 's':
			mul = 1;
			break;
		case 'm':
			mul = 60;
			break;
		case 'h':
			mul = 3600;
			break;
		case 'd':
			mul = 86400;
			break;
		default:
			return -1;
		}
		if (e[1])
			return -1;
	}
	if (n > INT_MAX / mul)
		return -1;
	*out = (int)(n * mul);
	return 0;
}

static bool has_range(const struct option *o)
{
	return o->min || o->max;
}

static int check_range(struct po_ctx *c, const char *name,
		       const struct option *o, long long v)
{
	if (has_range(o) && (v < o->min || v > o->max))
		return po_error(c, "%s: %lld is out of range %lld..%lld", name,
				v, o->min, o->max);
	return 0;
}

static int set_choice(struct po_ctx *c, const char *name,
		      const struct option *o, const char *arg)
{
	char list[512] = "";

	for (const char *const *ch = o->choices; *ch; ch++)
		if (!strcmp(*ch, arg)) {
			*(const char **)o->value = *ch;
			return 0;
		}
	for (const char *const *ch = o->choices; *ch; ch++) {
		if (ch != o->choices)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, *ch, sizeof(list) - strlen(list) - 1);
	}
	return po_error(c, "%s: '%s' is not one of %s", name, arg, list);
}

/* Store arg into o's variable; name is how the user spelt the option. */
static int set_value(struct po_ctx *c, const char *name, const struct option *o,
		     const char *arg)
{
	const char *e;
	long long n;
	int d;
	double x;
	char *de;

	switch (o->type) {
	case OPTION_INT:
		if (parse_ll(arg, &e, &n) || *e || n < INT_MIN || n > INT_MAX)
			return po_error(c, "%s: '%s' is not a number", name,
					arg);
		if (check_range(c, name, o, n))
			return PARSE_OPT_ERROR;
		*(int *)o->value = (int)n;
		return 0;
	case OPTION_SIZE:
		if (parse_size(arg, o->unit, &n))
			return po_error(
				c,
				"%s: '%s' is not a number (a size: 512, 512M, 2G)",
				name, arg);
		if (check_range(c, name, o, n))
			return PARSE_OPT_ERROR;
		*(long long *)o->value = n;
		return 0;
	case OPTION_DURATION:
		if (parse_duration(arg, &d))
			return po_error(
				c,
				"%s: '%s' is not a duration (90, 90s, 5m, 2h)",
				name, arg);
		if (check_range(c, name, o, d))
			return PARSE_OPT_ERROR;
		*(int *)o->value = d;
		return 0;
	case OPTION_DOUBLE:
		errno = 0;
		x = strtod(arg, &de);
		if (!*arg || *de || errno || !isfinite(x))
			return po_error(c, "%s: '%s' is not a number", name,
					arg);
		*(double *)o->value = x;
		return 0;
	case OPTION_STRING:
		if (o->choices)
			return set_choice(c, name, o, arg);
		*(const char **)o->value = arg;
		return 0;
	case OPTION_STRLIST:
		strvec_push(o->value, arg);
		return 0;
	default:
		return po_error(c, "%s: internal: bad option type", name);
	}
}

static bool takes_arg(const struct option *o)
{
	return o->type != OPTION_BOOL;
}

static const struct option *find_long(const struct option *opts,
				      const char *name, size_t len, bool *neg)
{
	*neg = false;
	for (const struct option *o = opts; o->type != OPTION_END; o++) {
		if (!o->long_name || o->type == OPTION_GROUP)
			continue;
		if (strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	}
	/* --no-NAME for booleans */
	if (len > 3 && starts_with(name, "no-"))
		for (const struct option *o = opts; o->type != OPTION_END;
		     o++) {
			if (o->type != OPTION_BOOL || !o->long_name)
				continue;
			if (strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*neg = true;
				return o;
			}
		}
	return NULL;
}

static const struct option *find_short(const struct option *opts, int ch)
{
	for (const struct option *o = opts; o->type != OPTION_END; o++)
		if (o->short_name == ch && o->type != OPTION_GROUP)
			return o;
	return NULL;
}

static int parse_long(struct po_ctx *c, const struct option *opts, int argc,
		      char **argv, int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct option *o;
	char name[128];
	bool neg;

	snprintf(name, sizeof(name), "--%.*s", (int)len, arg);
	o = find_long(opts, arg, len, &neg);
	if (!o)
		return po_error(c, "unknown option '%s'", name);
	if (!takes_arg(o)) {
		if (eq)
			return po_error(c, "%s takes no value", name);
		*(bool *)o->value = !neg;
		return 0;
	}
	if (eq)
		return set_value(c, name, o, eq + 1);
	if (*i + 1 >= argc)
		return po_error(c, "%s needs a value (%s)", name,
				o->argh ? o->argh : "VALUE");
	return set_value(c, name, o, argv[++*i]);
}

static int parse_short(struct po_ctx *c, const struct option *opts, int argc,
		       char **argv, int *i)
{
	const char *p = argv[*i] + 1;
	const struct option *o;
	char name[3] = "-";

	for (; *p; p++) {
		name[1] = *p;
		o = find_short(opts, *p);
		if (!o)
			return po_error(c, "unknown option '%s'", name);
		if (!takes_arg(o)) {
			*(bool *)o->value = true;
			continue;
		}
		if (p[1])
			return set_value(c, name, o, p + 1);
		if (*i + 1 >= argc)
			return po_error(c, "%s needs a value (%s)", name,
					o->argh ? o->argh : "VALUE");
		return set_value(c, name, o, argv[++*i]);
	}
	return 0;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int parse_options_noexit(int argc, char **argv, const char *prefix,
			 const struct option *opts, const char *const *usage,
			 unsigned int flags, FILE *out, FILE *err)
{
	struct po_ctx c = { .prefix = prefix, .err = err };
	int i, n = 0, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				argv[n++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION) {
				for (; i < argc; i++)
					argv[n++] = argv[i];
				break;
			}
			argv[n++] = argv[i];
			continue;
		}
		if (is_help(a) && !find_short(opts, 'h')) {
			parse_options_usage(out, prefix, opts, usage);
			return PARSE_OPT_HELP;
		}
		ret = a[1] == '-' ? parse_long(&c, opts, argc, argv, &i) :
				    parse_short(&c, opts, argc, argv, &i);
		if (ret)
			return ret;
	}
	argv[n] = NULL;
	return n;
}

int parse_options(int argc, char **argv, const char *prefix,
		  const struct option *opts, const char *const *usage,
		  unsigned int flags)
{
	int n = parse_options_noexit(argc, argv, prefix, opts, usage, flags,
				     stdout, stderr);

	if (n == PARSE_OPT_HELP)
		exit(0);
	if (n == PARSE_OPT_ERROR)
		exit(2);
	return n;
}

int parse_subcommand(int argc, char **argv, const char *prefix,
		     const struct option *opts, const char *const *usage,
		     const struct subcommand *subs)
{
	int n = parse_options(argc, argv, prefix, opts, usage,
			      PARSE_OPT_STOP_AT_NON_OPTION);

	if (!n)
		return usage_error(prefix, "a subcommand is needed");
	for (const struct subcommand *s = subs; s->name; s++)
		if (!strcmp(argv[0], s->name))
			return s->fn(n, argv);
	return usage_error(prefix, "'%s' is not a subcommand", argv[0]);
}

static void print_default(FILE *f, const struct option *o)
{
	switch (o->type) {
	case OPTION_INT:
	case OPTION_DURATION:
		if (*(int *)o->value)
			fprintf(f, ", default %d%s", *(int *)o->value,
				o->type == OPTION_DURATION ? "s" : "");
		break;
	case OPTION_SIZE:
		if (*(long long *)o->value)
			fprintf(f, ", default %lld", *(long long *)o->value);
		break;
	case OPTION_DOUBLE:
		if (*(double *)o->value != 0)
			fprintf(f, ", default %g", *(double *)o->value);
		break;
	case OPTION_STRING:
		if (*(const char **)o->value)
			fprintf(f, ", default %s", *(const char **)o->value);
		break;
	default:
		break;
	}
}

/* "(1..1000, default 1)" or "(mail|html|json, default mail)" */
static void print_detail(FILE *f, const struct option *o)
{
	char buf[512] = "";
	FILE *m = fmemopen(buf, sizeof(buf), "w");

	if (!m)
		return;
	if (has_range(o))
		fprintf(m, ", %lld..%lld", o->min, o->max);
	if (o->choices) {
		fputs(", ", m);
		for (const char *const *ch = o->choices; *ch; ch++)
			fprintf(m, "%s%s", ch == o->choices ? "" : "|", *ch);
	}
	/* Said once: some help texts say it in their own words. */
	if (o->type == OPTION_STRLIST &&
	    !(o->help && strstr(o->help, "repeatable")))
		fputs(", repeatable", m);
	if (o->value)
		print_default(m, o);
	fclose(m);
	buf[sizeof(buf) - 1] = 0;
	if (buf[0])
		fprintf(f, " (%s)", buf + 2);
}

void parse_options_usage(FILE *f, const char *prefix, const struct option *opts,
			 const char *const *usage)
{
	for (const char *const *u = usage; u && *u; u++)
		fprintf(f, "%s %s\n", u == usage ? "usage:" : "   or:", *u);
	for (const struct option *o = opts; o->type != OPTION_END; o++) {
		char left[80];
		int n = 0;

		if (o->type == OPTION_GROUP) {
			fprintf(f, "\n%s\n", o->help);
			continue;
		}
		if (o == opts)
			fputc('\n', f);
		if (o->short_name)
			n += snprintf(left + n, sizeof(left) - n, "-%c%s",
				      o->short_name, o->long_name ? ", " : "");
		if (o->long_name)
			n += snprintf(left + n, sizeof(left) - n, "--%s",
				      o->long_name);
		if (takes_arg(o) && n < (int)sizeof(left))
			snprintf(left + n, sizeof(left) - n, " %s",
				 o->argh ? o->argh : "VALUE");
		fprintf(f, "    %-24s ", left);
		if (strlen(left) > 24)
			fprintf(f, "\n    %-24s ", "");
		fputs(o->help ? o->help : "", f);
		print_detail(f, o);
		fputc('\n', f);
	}
}
