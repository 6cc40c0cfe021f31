// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: the text of one line. Console prefixes (timestamps,
 * caller ids, syslog levels), call-trace frames and RIPs, and the
 * normalising of untrusted text into stable titles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/console-int.h"
#include "util/utf8.h"

static void oput(struct obuf *o, const char *s, size_t n)
{
	if (o->len + n >= o->cap)
		n = o->cap - 1 - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void oputs(struct obuf *o, const char *s)
{
	oput(o, s, strlen(s));
}

/*
 * Copy text into a title: valid UTF-8 only, whitespace collapsed, numbers
 * replaced by NUM and long hex words (addresses) by ADDR, so that titles
 * do not change from run to run.
 */
void onorm(struct obuf *o, const char *s, size_t len)
{
	size_t i = 0, j, n;
	const unsigned char *u = (const unsigned char *)s;

	while (i < len) {
		int c = u[i];
		bool word_start = !i || !is_ident(u[i - 1]);

		if (c == ' ' || c == '\t' || c < 0x20 || c == 0x7f) {
			if (o->len && o->buf[o->len - 1] != ' ')
				oput(o, " ", 1);
			i++;
			continue;
		}
		if (word_start && is_xdigit(c)) {
			for (j = i; j < len && (is_xdigit(u[j]) ||
						u[j] == 'x' || u[j] == 'X');
			     j++)
				;
			if (is_digit(c)) {
				oputs(o, "NUM");
				while (i < len && is_digit(u[i]))
					i++;
				if (i < j && (u[i] == 'x' || u[i] == 'X'))
					i = j; /* 0x... */
				continue;
			}
			if (j < len && is_ident(u[j]))
				goto copy_word;
			if (j - i >= 8) {
				oputs(o, "ADDR");
				i = j;
				continue;
			}
		}
copy_word:
		if (c < 0x80) {
			oput(o, s + i, 1);
			i++;
			continue;
		}
		n = utf8_char_len(s + i, len - i);
		if (!n) {
			oput(o, "?", 1);
			i++;
			continue;
		}
		oput(o, s + i, n);
		i += n;
	}
	while (o->len && o->buf[o->len - 1] == ' ')
		o->buf[--o->len] = '\0';
}

void set_head(struct bev *e, const char *prefix, const char *s, size_t len)
{
	struct obuf o = { e->head, sizeof(e->head), 0 };

	e->head[0] = '\0';
	oputs(&o, prefix);
	if (s)
		onorm(&o, s, len);
}

/* Safe copy of an untrusted string for JSON/C use. */
char *dup_clean(const char *s, size_t len)
{
	char tmp[CONSOLE_LINE_MAX + 1];
	struct obuf o = { tmp, sizeof(tmp), 0 };
	size_t i = 0, n;
	const unsigned char *u = (const unsigned char *)s;

	tmp[0] = '\0';
	while (i < len) {
		if (u[i] < 0x20 || u[i] == 0x7f) {
			oput(&o, "?", 1);
			i++;
			continue;
		}
		n = utf8_char_len(s + i, len - i);
		oput(&o, n ? s + i : "?", n ? n : 1);
		i += n ? n : 1;
	}
	return xstrdup(tmp);
}

/* ---- console prefixes ---- */

/* "[  12.345678]" -> true; sets *zero if the time is 0. */
static size_t strip_ts(const char *s, size_t len, size_t i, bool *zero)
{
	size_t j = i + 1;
	bool nz = false;

	j = skip_sp(s, len, j);
	if (j >= len || !is_digit(s[j]))
		return 0;
	while (j < len && is_digit(s[j]))
		nz |= s[j++] != '0';
	if (j >= len || s[j] != '.')
		return 0;
	j++;
	while (j < len && is_digit(s[j]))
		nz |= s[j++] != '0';
	if (j >= len || s[j] != ']')
		return 0;
	*zero = !nz;
	return j + 1 - i;
}

/* "[ T123]" / "[    C1]" -> caller id. */
static size_t strip_caller(const char *s, size_t len, size_t i, char *caller)
{
	size_t j = skip_sp(s, len, i + 1), k;

	if (j >= len || (s[j] != 'T' && s[j] != 'C'))
		return 0;
	k = j + 1;
	while (k < len && is_digit(s[k]))
		k++;
	if (k == j + 1 || k >= len || s[k] != ']' || k - j >= 15)
		return 0;
	memcpy(caller, s + j, k - j);
	caller[k - j] = '\0';
	return k + 1 - i;
}

/* "2022/10/02 11:34:15 " (syzkaller's own log lines). */
static size_t strip_date(const char *s, size_t len, size_t i)
{
	static const char pat[] = "dddd/dd/dd dd:dd:dd ";
	size_t k;

	if (len - i < sizeof(pat) - 1)
		return 0;
	for (k = 0; k < sizeof(pat) - 1; k++) {
		if (pat[k] == 'd' ? !is_digit(s[i + k]) : s[i + k] != pat[k])
			return 0;
	}
	return k;
}

/* "hh:mm:ss" and an optional ".ffffff" at s + i: its length, or 0. */
static size_t clock_len(const char *s, size_t len, size_t i)
{
	static const char pat[] = "dd:dd:dd";
	size_t k;

	if (len - i < sizeof(pat) - 1)
		return 0;
	for (k = 0; k < sizeof(pat) - 1; k++)
		if (pat[k] == 'd' ? !is_digit(s[i + k]) : s[i + k] != pat[k])
			return 0;
	if (i + k + 1 < len && s[i + k] == '.' && is_digit(s[i + k + 1]))
		for (k++; i + k < len && is_digit(s[i + k]) && k < 20; k++)
			;
	return k;
}

/* s + i is one of the words (three letters each); its index or -1. */
static int word3(const char *s, size_t len, size_t i, const char *words)
{
	for (int w = 0; words[3 * w]; w++)
		if (len - i >= 3 && !memcmp(s + i, words + 3 * w, 3))
			return w;
	return -1;
}

static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
static const char wdays[] = "MonTueWedThuFriSatSun";

/* "Dec  4 17:00:00" or "Jun 18 07:44:52.123456": its length, or 0. */
static size_t month_day_clock(const char *s, size_t len, size_t i)
{
	size_t j = i + 4, n;

	if (word3(s, len, i, months) < 0 || len - i < 8 || s[i + 3] != ' ')
		return 0;
	if (s[j] == ' ')
		j++; /* "Dec  4" */
	if (!is_digit(s[j]))
		return 0;
	j += is_digit(s[j + 1]) ? 2 : 1;
	if (j >= len || s[j] != ' ' || !(n = clock_len(s, len, j + 1)))
		return 0;
	return j + 1 + n - i;
}

/* " HOST kernel: " after a syslog or journal time: its length, or 0. */
static size_t host_kernel(const char *s, size_t len, size_t i)
{
	size_t k = i + 1;

	if (i >= len || s[i] != ' ')
		return 0;
	while (k < len && s[k] != ' ' && k - i < 256)
		k++;
	if (k == i + 1 || !starts(s + k, len - k, " kernel:"))
		return 0;
	return k + 8 - i;
}

/*
 * "Jun 18 07:44:52 host kernel: " (syslog, journalctl's short and
 * short-precise): only the kernel's lines, whose text follows.
 */
static size_t strip_syslog(const char *s, size_t len, size_t i)
{
	size_t n = month_day_clock(s, len, i), h;

	return n && (h = host_kernel(s, len, i + n)) ? n + h : 0;
}

/*
 * "2026-06-18T07:44:52.123456+00:00 host kernel: " (journalctl -o
 * short-iso[-precise], rsyslog's RFC 3339): the zone is Z, +hh:mm or
 * +hhmm.
 */
static size_t strip_iso(const char *s, size_t len, size_t i)
{
	static const char pat[] = "dddd-dd-ddT";
	size_t k, n, h;

	if (len - i < sizeof(pat) - 1)
		return 0;
	for (k = 0; k < sizeof(pat) - 1; k++)
		if (pat[k] == 'd' ? !is_digit(s[i + k]) : s[i + k] != pat[k])
			return 0;
	if (!(n = clock_len(s, len, i + k)))
		return 0;
	k += n;
	if (i + k < len && s[i + k] == 'Z') {
		k++;
	} else if (i + k + 5 <= len && (s[i + k] == '+' || s[i + k] == '-')) {
		k += 3;
		if (i + k < len && s[i + k] == ':')
			k++;
		k += 2;
		if (i + k > len || !is_digit(s[i + k - 1]) ||
		    !is_digit(s[i + k - 2]))
			return 0;
	}
	h = host_kernel(s, len, i + k);
	return h ? k + h : 0;
}

/* "[Fri Dec  4 17:00:00 2026]" (dmesg -T): its length, or 0. */
static size_t strip_wallclock(const char *s, size_t len, size_t i)
{
	size_t j = i + 1, n;

	if (word3(s, len, j, wdays) < 0 || len - j < 4 || s[j + 3] != ' ')
		return 0;
	j += 4;
	if (!(n = month_day_clock(s, len, j)))
		return 0;
	j += n;
	if (len - j < 6 || s[j] != ' ' || !is_digit(s[j + 1]) ||
	    !is_digit(s[j + 2]) || !is_digit(s[j + 3]) || !is_digit(s[j + 4]) ||
	    s[j + 5] != ']')
		return 0;
	return j + 6 - i;
}

void strip_prefix(struct line *l)
{
	const char *s = l->raw;
	size_t len = l->rlen, i = 0, n;
	bool zero;

	l->caller[0] = '\0';
	l->has_ts = l->ts_zero = false;
	for (;;) {
		i = skip_sp(s, len, i);
		if (i >= len)
			break;
		if (s[i] == '[' && (n = strip_ts(s, len, i, &zero))) {
			if (!l->has_ts)
				l->ts_zero = zero;
			l->has_ts = true;
		} else if (s[i] == '[' &&
			   (n = strip_caller(s, len, i, l->caller))) {
		} else if (s[i] == '[' && (n = strip_wallclock(s, len, i))) {
			/* A time, never the zero of a boot. */
			l->has_ts = true;
		} else if (s[i] >= 'A' && s[i] <= 'S' &&
			   (n = strip_syslog(s, len, i))) {
		} else if (is_digit(s[i]) && (n = strip_iso(s, len, i))) {
		} else if (s[i] == '<' && i + 2 < len && is_digit(s[i + 1])) {
			n = 2;
			while (i + n < len && is_digit(s[i + n]))
				n++;
			if (i + n >= len || s[i + n] != '>')
				break;
			n++;
		} else if (starts(s + i, len - i, "** ")) {
			const char *e = memstr(s + i + 3, len - i - 3, " **");

			if (!e || !has(s + i, e - s - i, "messages dropped"))
				break;
			n = e + 3 - s - i;
		} else if (is_digit(s[i]) && (n = strip_date(s, len, i))) {
		} else {
			break;
		}
		i += n;
	}
	l->s = s + i;
	l->len = len - i;
}

/* ---- frames ---- */

/*
 * Rust v0 symbols (_RNvCs<hash>_6kernel4sync...10update_refs) carry a
 * per-build crate hash: keep only the last identifier.
 */
static bool rust_last_ident(const char *s, size_t n, size_t *off, size_t *len)
{
	size_t i, k, v;

	for (i = 2; i < n; i++) {
		if (!is_digit(s[i]) || is_digit(s[i - 1]))
			continue;
		for (k = i, v = 0; k < n && is_digit(s[k]) && v < 1000; k++)
			v = v * 10 + s[k] - '0';
		if (v && k + v == n) {
			*off = k + (s[k] == '_');
			*len = n - *off;
			return *len > 0;
		}
	}
	return false;
}

size_t copy_func(char *dst, const char *s, size_t len)
{
	size_t n = 0, off, rl;

	while (n < len && (is_ident(s[n]) || s[n] == '.'))
		n++;
	if (!n || is_digit(s[0]))
		return 0;
	for (off = 0; off < n && is_xdigit(s[off]); off++)
		;
	if (off == n && n >= 8)
		return 0; /* a bare address, not a symbol */
	if (starts(s, n, "_R")) {
		const char *dot = memchr(s, '.', n);
		size_t k = dot ? (size_t)(dot - s) : n;

		if (rust_last_ident(s, k, &off, &rl)) {
			if (rl >= FRAME_MAX)
				rl = FRAME_MAX - 1;
			memcpy(dst, s + off, rl);
			dst[rl] = '\0';
			return n;
		}
	}
	{
		/* drop .isra.0, .constprop.3, .cold: they vary by build */
		const char *dot = memchr(s, '.', n);
		size_t k = dot ? (size_t)(dot - s) : n;

		if (!k)
			return 0;
		static const char *const sysp[] = {
			"__x64_sys_",
			"__ia32_sys_",
			"__arm64_sys_",
			"__se_sys_",
			"__do_sys_",
			"__sys_",
			"SyS_",
			"SYSC_",
			"__se_compat_sys_",
			"__x64_compat_sys_",
			"compat_SyS_",
		};
		size_t m, pre = 0;

		for (m = 0; m < ARRAY_SIZE(sysp); m++) {
			if (starts(s, k, sysp[m])) {
				pre = strlen(sysp[m]);
				break;
			}
		}
		if (pre && pre < k) {
			/* one name for a syscall on every arch and version */
			memcpy(dst, "sys_", 4);
			s += pre;
			k -= pre;
			if (k >= FRAME_MAX - 4)
				k = FRAME_MAX - 5;
			memcpy(dst + 4, s, k);
			dst[k + 4] = '\0';
			return n;
		}
		if (k >= FRAME_MAX)
			k = FRAME_MAX - 1;
		memcpy(dst, s, k);
		dst[k] = '\0';
	}
	return n;
}

/* Skip "[<ffffffff81000000>] " and "[c000000000012345] " address tags. */
size_t skip_addr_tags(const char *s, size_t len, size_t i)
{
	int k;

	for (k = 0; k < 2; k++) {
		size_t j = i;

		i = skip_sp(s, len, i);
		if (i >= len || s[i] != '[')
			return k ? i : j == i ? i : i;
		j = i + 1;
		if (j < len && s[j] == '<')
			j++;
		while (j < len && is_xdigit(s[j]))
			j++;
		if (j < len && s[j] == '>')
			j++;
		if (j >= len || s[j] != ']')
			return i;
		i = j + 1;
	}
	return skip_sp(s, len, i);
}

/*
 * Is this a call-trace line? 1 = frame (func filled), 2 = questionable
 * frame ("? func+0x..."), 0 = not a frame.
 */
int parse_frame(const char *s, size_t len, char *func)
{
	size_t i = skip_addr_tags(s, len, 0), n;
	int q = 0;

	if (i + 1 < len && s[i] == '?' && s[i + 1] == ' ') {
		q = 1;
		i += 2;
	}
	n = copy_func(func, s + i, len - i);
	if (!n)
		return 0;
	i += n;
	if (starts(s + i, len - i, "+0x"))
		return q ? 2 : 1;
	/* syzkaller-symbolized inline frame: "func fs/x.c:12 [inline]" */
	if (i < len && s[i] == ' ' && has(s + i, len - i, " [inline]"))
		return q ? 2 : 1;
	return 0;
}

bool parse_rip(const char *s, size_t len, char *func)
{
	static const char *const marks[] = {
		"RIP: ", "EIP: ", "IP: ",   "pc : ", "PC is at ",
		"NIP [", "NIP: ", "epc : ", "ip: ",
	};
	size_t k, i;

	for (k = 0; k < ARRAY_SIZE(marks); k++) {
		const char *m = memstr(s, len, marks[k]);

		if (!m || (m > s && is_ident(m[-1])))
			continue;
		i = m - s + strlen(marks[k]);
		if (k == 5) { /* NIP [addr] func */
			while (i < len && s[i] != ']')
				i++;
			i++;
		}
		/* "0010:" segment */
		if (i + 5 <= len && is_xdigit(s[i]) && s[i + 4] == ':')
			i += 5;
		i = skip_addr_tags(s, len, i);
		if (i < len && copy_func(func, s + i, len - i) &&
		    has(s + i, len - i, "+0x"))
			return true;
		func[0] = '\0';
		return false;
	}
	return false;
}

bool is_trace_start(const char *s, size_t len)
{
	return has(s, len, "Call Trace") || has(s, len, "Call trace") ||
	       has(s, len, "acktrace");
}

bool is_trace_marker(const char *s, size_t len)
{
	size_t i = skip_sp(s, len, 0);

	if (i >= len)
		return false;
	return s[i] == '<' || starts(s + i, len - i, "Call Trace") ||
	       starts(s + i, len - i, "---") ||
	       starts(s + i, len - i, "RIP:") ||
	       starts(s + i, len - i, "Code:") ||
	       starts(s + i, len - i, "RSP:") || starts(s + i, len - i, "R") ||
	       starts(s + i, len - i, "E") || starts(s + i, len - i, "?");
}
