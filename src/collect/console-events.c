// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: one recogniser per kind of event. Each looks at a line
 * that holds its anchor, opens an event (new_event) and fills its head;
 * the state machine in console.c then reads the lines that follow.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/console-int.h"
#include "util/num.h"
#include "util/str.h"

/* ---- events ---- */

struct bev *new_event(struct console_parser *p, const struct line *l,
		      enum kind kind, unsigned int flags)
{
	struct bev *e;

	ctx_close(p);
	if (p->nr_ev >= CONSOLE_MAX_EVENTS ||
	    (is_memory_kind(kind) && p->nr_mem_ev >= MAX_MEMORY_EVENTS)) {
		p->dropped++;
		return NULL;
	}
	if (!p->ev)
		p->ev = xzalloc(CONSOLE_MAX_EVENTS * sizeof(*p->ev));
	e = &p->ev[p->nr_ev];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->flags = flags;
	e->line = p->lineno;
	strcpy(e->caller, l->caller);
	if (is_memory_kind(kind))
		p->nr_mem_ev++;
	if (kind == K_OOM)
		p->last_oom = p->nr_ev;
	p->ctx = p->nr_ev++;
	p->ctx_lines = p->ctx_other = 0;
	p->ctx_trace = p->ctx_frames = false;
	return e;
}

/* Is the open event an oops whose next header lines belong to it? */
bool ctx_is_oops(struct console_parser *p, int max_lines)
{
	struct bev *e = ctx_event(p);

	return e &&
	       (e->kind == K_OOPS || e->kind == K_STACK || e->kind == K_SAN) &&
	       p->ctx_lines <= max_lines;
}

/* Function name right after "in " / "in: " / "at " in s. */
static void func_after(char *dst, const char *s, size_t len, const char *key)
{
	const char *m = memstr(s, len, key);
	size_t i;

	dst[0] = '\0';
	if (!m)
		return;
	i = m - s + strlen(key);
	i = skip_sp(s, len, i);
	copy_func(dst, s + i, len - i);
}

/* Cut s at the first of the given delimiters. */
size_t cut(const char *s, size_t len, const char *const *delims, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++) {
		const char *m = memstr(s, len, delims[k]);

		if (m)
			len = m - s;
	}
	while (len &&
	       (s[len - 1] == ' ' || s[len - 1] == ':' || s[len - 1] == ','))
		len--;
	return len;
}

static bool lockdep_phrase(const char *t, size_t len, const char **head)
{
	static const struct {
		const char *phrase, *head;
	} tab[] = {
		{ "possible circular locking", "possible deadlock" },
		{ "possible recursive locking", "possible deadlock" },
		{ "possible irq lock inversion", "possible deadlock" },
		{ "-safe -> ", "possible deadlock" },
		{ "inconsistent lock state", "inconsistent lock state" },
		{ "suspicious RCU usage", "suspicious RCU usage" },
		{ "bad unlock balance", "bad unlock balance" },
		{ "held lock freed", "held lock freed" },
		{ "ested lock was not taken", "nested lock was not taken" },
		{ "lock held when returning to user space",
		  "lock held when returning to user space" },
		{ "still has locks held", "still has locks held" },
		{ "trying to register non-static key",
		  "trying to register non-static key" },
		{ "MAX_STACK_TRACE_ENTRIES",
		  "MAX_STACK_TRACE_ENTRIES too low" },
		{ "MAX_LOCKDEP", "lockdep limit too low" },
		{ "workqueue leaked lock", "workqueue leaked lock or atomic" },
		{ "Invalid wait context", "Invalid wait context" },
		{ "looking up invalid subclass",
		  "looking up invalid subclass" },
		{ "lock held by", "lock held by current task" },
		{ "bad contention", "bad contention" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tab); i++) {
		if (has(t, len, tab[i].phrase)) {
			*head = tab[i].head;
			return true;
		}
	}
	return false;
}

static void lockdep_event(struct console_parser *p, const struct line *l,
			  const char *prefix, const char *head)
{
	struct bev *e = new_event(p, l, K_LOCKDEP, F_TRACEFUNC | F_HFUNC);
	char buf[HEAD_MAX];

	if (!e)
		return;
	if (!strcmp(head, "possible deadlock") ||
	    !strcmp(head, "inconsistent lock state"))
		prefix = "";
	snprintf(buf, sizeof(buf), "%s%s", prefix, head);
	set_head(e, buf, NULL, 0);
}

bool bug_line(struct console_parser *p, const struct line *l)
{
	size_t len, i;
	const char *s = at(l, A_BUG, &len), *t, *head;
	struct bev *e;

	i = skip_sp(s, len, 4);
	t = s + i;
	len -= i;
	if (l->pos[A_BUG] >= 8 &&
	    !memcmp(l->raw + l->pos[A_BUG] - 7, "Oops - ", 7))
		return false; /* arm64 "Internal error: Oops - BUG:" */
	if (starts(t, len, "no syscalls can create resource"))
		return false;
	if (starts(t, len, "KASAN: ") || starts(t, len, "KMSAN: ") ||
	    starts(t, len, "KCSAN: ") || starts(t, len, "KFENCE: ")) {
		const char *const d[] = { " in ", " on ", " at ", ", " };
		size_t n = cut(t, len, d, ARRAY_SIZE(d));

		if (has(t, n, "double-free or invalid-free"))
			n = cut(t, n, (const char *const[]){ " or " }, 1);
		e = new_event(p, l, K_SAN, F_HFUNC);
		if (!e)
			return true;
		set_head(e, "", t, n);
		if (starts(t, len, "KASAN: double-free or invalid-free"))
			set_head(e, "KASAN: invalid-free", NULL, 0);
		func_after(e->hfunc, t, len, " in ");
		return true;
	}
	if (has(t, len, "soft lockup")) {
		e = new_event(p, l, K_SOFT, 0);
		if (e)
			set_head(e, "BUG: soft lockup", NULL, 0);
		return true;
	}
	if (has(t, len, "stack guard page was hit")) {
		e = new_event(p, l, K_STACK, 0);
		if (e)
			set_head(e, "BUG: stack guard page was hit", NULL, 0);
		return true;
	}
	if (starts(t, len, "spinlock ") || starts(t, len, "rwlock ") ||
	    starts(t, len, "using ") ||
	    starts(t, len, "scheduling while atomic") ||
	    starts(t, len, "sleeping function called from invalid context")) {
		const char *const d[] = { " at ", ": ", " on ", " in ", "!" };
		char buf[HEAD_MAX];

		e = new_event(p, l, K_LOCKDEP, F_TRACEFUNC);
		if (!e)
			return true;
		if (starts(t, len, "using ")) {
			size_t n =
				cut(t, len, (const char *const[]){ " in " }, 1);

			set_head(e, "BUG: ", t, n);
			strncat(e->head, " in preemptible code",
				sizeof(e->head) - strlen(e->head) - 1);
			return true;
		}
		snprintf(buf, sizeof(buf), "BUG: ");
		set_head(e, buf, t, cut(t, len, d, ARRAY_SIZE(d)));
		return true;
	}
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "BUG: ", head);
		return true;
	}
	if (starts(t, len, "memory leak")) {
		e = new_event(p, l, K_LEAK, F_SKIP_LEAK | F_TRACEFUNC);
		if (e)
			set_head(e, "memory leak", NULL, 0);
		return true;
	}
	e = new_event(p, l, K_OOPS, 0);
	if (!e)
		return true;
	if (has(t, len, "nable to handle") ||
	    has(t, len, "NULL pointer dereference")) {
		if (has(t, len, "NULL pointer"))
			set_head(e,
				 "BUG: unable to handle kernel NULL pointer "
				 "dereference",
				 NULL, 0);
		else if (has(t, len, "paging request") ||
			 has(t, len, "page fault"))
			set_head(e,
				 "BUG: unable to handle kernel paging "
				 "request",
				 NULL, 0);
		else
			set_head(e, "BUG: unable to handle kernel", NULL, 0);
		return true;
	}
	if (!len) {
		set_head(e, "BUG: corrupted", NULL, 0);
		return true;
	}
	if (starts(t, len, "Dentry ") && has(t, len, "still in use")) {
		set_head(e, "BUG: Dentry still in use", NULL, 0);
		return true;
	}
	set_head(e, "BUG: ", t,
		 cut(t, len, msg_delims, ARRAY_SIZE(msg_delims)));
	return true;
}

/* SLUB: "BUG kmalloc-64 (Not tainted): Object already free" */
bool slub_line(struct console_parser *p, const struct line *l)
{
	static const char *const msgs[] = {
		"Object already free",
		"Poison overwritten",
		"Redzone overwritten",
		"Invalid object pointer",
		"Freepointer corrupt",
		"Padding overwritten",
		"Wrong object count",
		"Objects remaining",
		"Left Redzone",
		"Freechain corrupt",
		"Object padding overwritten",
		"Wrong number of objects",
		"Invalid object",
	};
	const char *m;
	size_t i, n;
	struct bev *e;

	if (l->pos[A_BUGSP] != (size_t)(l->s - l->raw))
		return false;
	m = memstr(l->s, l->len, "): ");
	if (!m)
		return false;
	m += 3;
	n = l->s + l->len - m;
	for (i = 0; i < ARRAY_SIZE(msgs); i++) {
		if (!starts(m, n, msgs[i]))
			continue;
		e = new_event(p, l, K_OOPS, F_TRACEFUNC);
		if (e)
			set_head(e, "BUG: ", msgs[i], strlen(msgs[i]));
		return true;
	}
	return false;
}

/* The file of a WARN splat: "at fs/x.c:12 func+0x" or "WARNING: fs/x.c:12 at". */
static void warn_file(const char *t, size_t len, char *file, size_t cap,
		      char *func)
{
	const char *m = memstr(t, len, ".c:");
	const char *b;
	size_t n;

	file[0] = func[0] = '\0';
	if (!m)
		m = memstr(t, len, ".h:");
	if (!m)
		return;
	for (b = m; b > t && b[-1] != ' ' && b[-1] != ']'; b--)
		;
	n = m + 2 - b;
	if (n >= cap)
		n = cap - 1;
	memcpy(file, b, n);
	file[n] = '\0';
	/* function follows the file (old format) or " at " (6.x format) */
	m += 3;
	while (m < t + len && is_digit(*m))
		m++;
	n = t + len - m;
	if (starts(m, n, " at "))
		m += 4;
	else if (starts(m, n, " "))
		m += 1;
	copy_func(func, m, t + len - m);
	if (func[0] && !has(m, t + len - m, "+0x"))
		func[0] = '\0';
}

bool warning_line(struct console_parser *p, const struct line *l)
{
	static const struct {
		const char *file, *head;
	} helpers[] = {
		{ "lib/refcount.c", "WARNING: refcount bug" },
		{ "lib/debugobjects.c", "WARNING: ODEBUG bug" },
		{ "mm/usercopy.c", "WARNING: bad usercopy" },
		{ "lib/kobject.c", "WARNING: kobject bug" },
		{ "fs/proc/generic.c", "WARNING: proc registration bug" },
	};
	size_t len, i;
	const char *s = at(l, A_WARNING, &len), *t, *head;
	char file[128], func[FRAME_MAX];
	struct bev *e;

	i = skip_sp(s, len, 8);
	t = s + i;
	len -= i;
	if (starts(t, len, "/etc/ssh/moduli") ||
	    starts(t, len, "workqueue cpumask"))
		return false;
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "WARNING: ", head);
		return true;
	}
	if (starts(t, len, "kernel stack regs") ||
	    starts(t, len, "kernel stack frame pointer")) {
		e = new_event(p, l, K_WARN, F_NOFUNC);
		if (e)
			set_head(e, "WARNING: kernel stack regs has bad value",
				 NULL, 0);
		return true;
	}
	if (!len) {
		e = new_event(p, l, K_WARN, F_NOFUNC);
		if (e)
			set_head(e, "WARNING: corrupted", NULL, 0);
		return true;
	}
	warn_file(t, len, file, sizeof(file), func);
	if (!file[0] && !starts(t, len, "CPU: ") && !starts(t, len, "at "))
		return false; /* a driver message, not a WARN() splat */
	if (starts_with(file, "kernel/locking/lockdep")) {
		e = new_event(p, l, K_LOCKDEP, F_HFUNC);
		if (e) {
			set_head(e, "WARNING: locking bug", NULL, 0);
			strcpy(e->hfunc, func);
		}
		return true;
	}
	e = new_event(p, l, K_WARN, F_HFUNC);
	if (!e)
		return true;
	strcpy(e->hfunc, func);
	set_head(e, "WARNING", NULL, 0);
	for (i = 0; i < ARRAY_SIZE(helpers); i++) {
		if (!strcmp(file, helpers[i].file)) {
			set_head(e, helpers[i].head, NULL, 0);
			e->flags = F_TRACEFUNC;
		}
	}
	if (starts_with(file, "mm/") && strstr(func, "alloc")) {
		set_head(e, "WARNING: kmalloc bug", NULL, 0);
		e->flags = F_TRACEFUNC | F_SKIP_MEM;
	}
	return true;
}

bool info_line(struct console_parser *p, const struct line *l)
{
	static const char *const ignore[] = {
		"lockdep is turned off",
		"Stall ended before state dump start",
		"NMI handler",
		"recovery required on readonly filesystem",
		"no syscalls can create resource",
	};
	size_t len, i;
	const char *s = at(l, A_INFO, &len), *t, *head;
	struct bev *e;

	if (l->pos[A_INFO] && l->raw[l->pos[A_INFO] - 1] == ':')
		return false;
	i = skip_sp(s, len, 5);
	t = s + i;
	len -= i;
	for (i = 0; i < ARRAY_SIZE(ignore); i++)
		if (starts(t, len, ignore[i]))
			return false;
	if (has(t, len, "took too long"))
		return false;
	if (starts(t, len, "task ")) {
		/* "task comm:pid blocked [in I/O wait] for more than N s" */
		unsigned int tent = has(t, len, "for more than") ? 0 :
								   F_TENTATIVE;

		e = new_event(p, l, K_HUNG, F_SKIP_HUNG | F_TRACEFUNC | tent);
		if (e)
			set_head(e,
				 has(t, len, "can't die") ?
					 "INFO: task can't die" :
					 "INFO: task hung",
				 NULL, 0);
		return true;
	}
	if (has(t, len, "detected stall") || has(t, len, "detected stalls") ||
	    has(t, len, "self-detected stall") ||
	    has(t, len, "detected expedited stall")) {
		e = new_event(p, l, K_RCU, F_TRACEFUNC);
		if (e)
			set_head(e, "INFO: rcu detected stall", NULL, 0);
		return true;
	}
	if (lockdep_phrase(t, len, &head)) {
		lockdep_event(p, l, "INFO: ", head);
		return true;
	}
	if (starts(t, len, "Allocated in ") || starts(t, len, "Freed in ")) {
		e = new_event(p, l, K_SAN, F_HFUNC);
		if (!e)
			return true;
		set_head(e,
			 t[0] == 'A' ? "KASAN: INFO: Allocated" :
				       "KASAN: INFO: Freed",
			 NULL, 0);
		func_after(e->hfunc, t, len, " in ");
		return true;
	}
	if (!len) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "INFO: corrupted", NULL, 0);
		return true;
	}
	return false;
}

bool is_user_trap(const struct line *l)
{
	return has(l->s, l->len, "traps:") || has(l->s, l->len, " ip:");
}

bool simple_oops(struct console_parser *p, const struct line *l,
		 const char *head, unsigned int flags)
{
	struct bev *e = new_event(p, l, K_OOPS, flags);

	if (e)
		set_head(e, head, NULL, 0);
	return true;
}

bool panic_line(struct console_parser *p, const struct line *l)
{
	size_t len, i;
	const char *s = at(l, A_KPANIC, &len), *m;
	struct bev *e;

	if (l->pos[A_KPANIC] >= 4 &&
	    !memcmp(l->raw + l->pos[A_KPANIC] - 4, "end ", 4))
		return false; /* "---[ end Kernel panic - ..." */
	m = memstr(s, len, "not syncing");
	if (!m)
		return false;
	i = m - s + 11;
	if (i < len && s[i] == ':')
		i++;
	i = skip_sp(s, len, i);
	s += i;
	len -= i;
	if (starts(s, len, "stack-protector:")) {
		e = new_event(p, l, K_STACK, F_HFUNC | F_TRACEFUNC);
		if (e) {
			set_head(e, "kernel panic: stack is corrupted", NULL,
				 0);
			func_after(e->hfunc, s, len, "corrupted in: ");
		}
		return true;
	}
	if (has(s, len, "corrupted stack end")) {
		e = new_event(p, l, K_STACK, F_TRACEFUNC | F_SKIP_HUNG);
		if (e)
			set_head(e, "kernel panic: corrupted stack end", NULL,
				 0);
		return true;
	}
	if (has(s, len, "stack overflow")) {
		e = new_event(p, l, K_STACK, 0);
		if (e)
			set_head(e, "kernel panic: kernel stack overflow", NULL,
				 0);
		return true;
	}
	if (starts(s, len, "hung_task")) {
		e = new_event(p, l, K_HUNG, F_NOFUNC);
		if (e)
			set_head(e, "kernel panic: hung_task: blocked tasks",
				 NULL, 0);
		return true;
	}
	if (starts(s, len, "softlockup")) {
		e = new_event(p, l, K_SOFT, F_NOFUNC);
		if (e)
			set_head(e, "kernel panic: softlockup: hung tasks",
				 NULL, 0);
		return true;
	}
	if (has(s, len, "Hard LOCKUP") || has(s, len, "hard LOCKUP")) {
		e = new_event(p, l, K_HARD, F_TRACEFUNC);
		if (e)
			set_head(e, "kernel panic: Hard LOCKUP", NULL, 0);
		return true;
	}
	if (has(s, len, "Out of memory") || has(s, len, "out of memory") ||
	    has(s, len, "deadlocked on memory")) {
		if (p->last_oom >= 0) {
			p->ev[p->last_oom].oom_panic = true;
			ctx_close(p);
			return true;
		}
		e = new_event(p, l, K_OOM, F_NOFUNC);
		if (e) {
			e->oom_panic = true;
			e->detail = json_object_new_object();
			p->last_oom = e - p->ev;
		}
		return true;
	}
	e = new_event(p, l, K_PANIC, F_NOFUNC);
	if (e)
		set_head(e, "kernel panic: ", s,
			 cut(s, len, (const char *const[]){ " - " }, 1));
	return true;
}

/* ---- boots ---- */

bool boot_line(struct console_parser *p, const struct line *l)
{
	bool marker = false;
	struct bev *e;

	if (hit(l, A_BOOT) && l->pos[A_BOOT] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_SEABIOS) && l->pos[A_SEABIOS] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_DECOMP) && l->pos[A_DECOMP] == (size_t)(l->s - l->raw))
		marker = true;
	if (hit(l, A_LINUXVER) && l->has_ts && l->ts_zero &&
	    l->pos[A_LINUXVER] == (size_t)(l->s - l->raw))
		marker = true;
	if (!marker)
		return false;
	if (!p->preamble && p->seen) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "unexpected kernel reboot", NULL, 0);
		ctx_close(p);
	}
	p->preamble = true;
	p->preamble_lines = 0;
	return true;
}

/* ---- per-line dispatch ---- */

bool other_line(struct console_parser *p, const struct line *l)
{
	struct bev *e;
	size_t len;
	const char *s;

	if (hit(l, A_UNREG)) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e,
				 "unregister_netdevice: waiting for DEV to "
				 "become free",
				 NULL, 0);
		return true;
	}
	if (hit(l, A_TRUSTY)) {
		e = new_event(p, l, K_PANIC, F_NOFUNC);
		if (e)
			set_head(e,
				 has(l->s, l->len, "ASSERT FAILED") ?
					 "trusty: ASSERT FAILED" :
					 "trusty: panic",
				 NULL, 0);
		return true;
	}
	if (hit(l, A_SYZFAIL) || hit(l, A_SYZFATAL)) {
		int a = hit(l, A_SYZFAIL) ? A_SYZFAIL : A_SYZFATAL;

		s = at(l, a, &len);
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e, "", s,
				 cut(s, len, (const char *const[]){ " (" }, 1));
		return true;
	}
	if (hit(l, A_FATAL) && l->pos[A_FATAL] == (size_t)(l->s - l->raw)) {
		/* Go runtime: confirmed by "goroutine"/"runtime" lines */
		e = new_event(p, l, K_OTHER, F_NOFUNC | F_TENTATIVE);
		if (e)
			set_head(e, "user-space runtime fatal error", NULL, 0);
		return true;
	}
	if (hit(l, A_VFSBUSY) || hit(l, A_VFSCLOSE)) {
		e = new_event(p, l, K_OTHER, F_NOFUNC);
		if (e)
			set_head(e,
				 hit(l, A_VFSBUSY) ?
					 "VFS: Busy inodes after unmount" :
					 "VFS: Close: file count is zero",
				 NULL, 0);
		return true;
	}
	return false;
}

bool stack_evidence(struct console_parser *p, const struct line *l)
{
	struct bev *e = ctx_event(p);
	bool guard = hit(l, A_GUARD) && has(l->s, l->len, "was hit");
	bool ovf = hit(l, A_STKOVF) &&
		   (has(l->s, l->len, "ernel stack overflow"));
	bool insuff = hit(l, A_INSUFF);

	if (!guard && !ovf && !insuff)
		return false;
	if (p->df >= 0) {
		p->ev[p->df].so_evidence = true;
		return true;
	}
	if (e && e->kind == K_STACK && p->ctx_lines < 30)
		return true; /* "kernel stack overflow (double-fault)" */
	e = new_event(p, l, K_STACK, 0);
	if (e)
		set_head(e,
			 guard	? "BUG: stack guard page was hit" :
			 insuff ? "Insufficient stack space" :
				  "kernel stack overflow",
			 NULL, 0);
	return true;
}
