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

/* Length of a valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t len)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (n > len)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (n == 3 && s[0] == 0xe0 && s[1] < 0xa0)
		return 0;
	if (n == 3 && s[0] == 0xed && s[1] >= 0xa0)
		return 0;
	if (n == 4 && s[0] == 0xf0 && s[1] < 0x90)
		return 0;
	if (n == 4 && s[0] == 0xf4 && s[1] >= 0x90)
		return 0;
	return n;
}

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
		n = utf8_len(u + i, len - i);
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
		n = utf8_len(u + i, len - i);
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
