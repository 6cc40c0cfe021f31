// SPDX-License-Identifier: GPL-2.0
/*
 * Console parser: the tables. The kinds of event, the trigger strings the
 * scanner looks for, and the frames that are never the guilty function.
 */
#include <stdlib.h>
#include <string.h>

#include "collect/console-int.h"

const char *const kind_names[NR_KINDS] = {
	[K_NONE] = "none",	     [K_OOM] = "oom",
	[K_ALLOC] = "alloc_failure", [K_STACK] = "stack_overflow",
	[K_HUNG] = "hung_task",	     [K_SOFT] = "soft_lockup",
	[K_HARD] = "hard_lockup",    [K_RCU] = "rcu_stall",
	[K_OOPS] = "oops",	     [K_PANIC] = "panic",
	[K_WARN] = "warning",	     [K_SAN] = "sanitizer",
	[K_LOCKDEP] = "lockdep",     [K_LEAK] = "leak",
	[K_OTHER] = "other",	     [K_STALL] = "stall",
};

/*
 * Trigger strings. koff is the offset of the 2-byte key that the scanner
 * looks up at every position: the anchor's rarest byte pair in console
 * output (measured on the corpus), so few positions need a closer look.
 */
const struct anchor_def anchors[NR_ANCHORS] = {
	[A_BUG] = { "BUG:", 1 },
	[A_BUGSP] = { "BUG ", 2 },
	[A_WARNING] = { "WARNING:", 5 },
	[A_INFO] = { "INFO:", 3 },
	[A_UNABLE] = { "Unable to handle kernel", 0 },
	[A_GPF] = { "general protection fault", 22 },
	[A_SSEG] = { "stack segment: ", 8 },
	[A_KPANIC] = { "Kernel panic", 0 },
	[A_DFAULT] = { "PANIC: double fault", 4 },
	[A_KBUG] = { "kernel BUG at", 9 },
	[A_KBUG2] = { "Kernel BUG at", 9 },
	[A_DIVERR] = { "divide error:", 11 },
	[A_DIVERR2] = { "divide_error:", 11 },
	[A_INVOP] = { "invalid opcode:", 1 },
	[A_INT3] = { "int3: ", 2 },
	[A_OOPS] = { "Oops:", 0 },
	[A_INTERR] = { "Internal error:", 0 },
	[A_UNHF] = { "Unhandled fault", 1 },
	[A_ALIGN] = { "Alignment trap", 0 },
	[A_UBSAN] = { "UBSAN:", 0 },
	[A_BOOT] = { "Booting the kernel", 0 },
	[A_SEABIOS] = { "SeaBIOS (version", 2 },
	[A_DECOMP] = { "Decompressing Linux", 14 },
	[A_LINUXVER] = { "Linux version ", 0 },
	[A_UNREG] = { "unregister_netdevice: waiting for", 1 },
	[A_TRUSTY] = { "trusty: panic", 5 },
	[A_RUST] = { "rust_kernel: panicked", 10 },
	[A_HARDLOCK] = { "hard LOCKUP", 8 },
	[A_STKOVF] = { "stack overflow", 10 },
	[A_GUARD] = { "stack guard page", 7 },
	[A_INSUFF] = { "Insufficient stack space", 0 },
	[A_OOMINV] = { "invoked oom-killer", 11 },
	[A_OOM] = { "Out of memory", 0 },
	[A_MEMCG] = { "Memory cgroup out of memory", 0 },
	[A_OOMKILL] = { "oom-kill:", 3 },
	[A_KILLED] = { "Killed process", 0 },
	[A_PAF] = { "page allocation failure", 19 },
	[A_VMALLOC] = { "vmalloc: allocation failure", 23 },
	[A_VMERR] = { "vmalloc error:", 0 },
	[A_SYZFAIL] = { "SYZFAIL:", 2 },
	[A_SYZFATAL] = { "SYZFATAL:", 2 },
	[A_FATAL] = { "fatal error:", 10 },
	[A_VFSBUSY] = { "VFS: Busy inodes", 0 },
	[A_VFSCLOSE] = { "VFS: Close: file count is", 5 },
	[A_KMEMLEAK] = { "unreferenced object 0x", 1 },
	[A_STALL] = { "wblab: stall ", 4 },
};

/* Where the message of a BUG: or SYZFAIL: line ends. */
const char *const msg_delims[NR_MSG_DELIMS] = {
	" in ", " at ", ", ", "! ", ": ", " (", " - ", " mm:",
};

/* ---- guilty function ---- */

struct skip {
	char mode; /* '=' exact, '^' prefix, 0 substring */
	const char *s;
};

static const struct skip skip_common[] = {
	{ 0, "dump_stack" },
	{ 0, "show_stack" },
	{ 0, "panic" },
	{ 0, "warn_slowpath" },
	{ 0, "__warn" },
	{ 0, "report_bug" },
	{ 0, "fixup_bug" },
	{ 0, "handle_bug" },
	{ 0, "do_error_trap" },
	{ '^', "do_trap" },
	{ 0, "invalid_op" },
	{ '^', "do_int3" },
	{ '^', "exc_" },
	{ '^', "asm_" },
	{ 0, "kasan" },
	{ 0, "__asan" },
	{ 0, "kmsan" },
	{ 0, "__msan" },
	{ 0, "ubsan" },
	{ 0, "kcsan" },
	{ 0, "kfence" },
	{ 0, "check_memory_region" },
	{ 0, "print_address_description" },
	{ 0, "print_report" },
	{ 0, "print_trailer" },
	{ 0, "lockdep" },
	{ 0, "lock_acquire" },
	{ 0, "lock_release" },
	{ 0, "might_sleep" },
	{ 0, "might_fault" },
	{ 0, "_raw_spin" },
	{ 0, "_raw_read" },
	{ 0, "_raw_write" },
	{ 0, "spin_lock" },
	{ 0, "spin_unlock" },
	{ 0, "spin_bug" },
	{ 0, "spin_dump" },
	{ '=', "mutex_lock" },
	{ '=', "mutex_unlock" },
	{ 0, "refcount_" },
	{ 0, "debug_object" },
	{ 0, "debug_print" },
	{ 0, "debug_check" },
	{ 0, "apic_timer_interrupt" },
	{ '^', "sysvec_" },
	{ 0, "irq_exit" },
	{ 0, "do_softirq" },
	{ 0, "hrtimer" },
	{ '^', "tick_" },
	{ 0, "update_process_times" },
	{ '^', "rcu_" },
	{ 0, "printk" },
	{ 0, "__sanitizer" },
	{ 0, "memcpy" },
	{ 0, "memset" },
	{ 0, "memmove" },
	{ 0, "stack_chk" },
	{ '^', "entry_SYSCALL" },
	{ '^', "do_syscall" },
	{ '=', "die" },
	{ 0, "oops_" },
	{ '=', "no_context" },
	{ 0, "bad_area" },
	{ '^', "page_fault" },
	{ 0, "addr_fault" },
	{ 0, "fixup_exception" },
	{ 0, "trace_hardirqs" },
	{ '^', "kobject_" },
	{ 0, "usercopy" },
	{ 0, "check_object_size" },
	{ 0, "check_heap_object" },
	{ 0, "check_stack_object" },
	{ '^', "__list_" },
	{ '^', "list_" },
	{ '^', "nmi_" },
	{ 0, "watchdog" },
	{ 0, "lockup" },
	{ '^', "native_" },
	{ 0, "show_regs" },
	{ 0, "stack_trace" },
	{ 0, "save_stack" },
	{ 0, "stack_walk" },
	{ 0, "unwind" },
	{ 0, "kmemleak" },
	{ '^', "warn_" },
	{ '^', "bug" },
	{ '^', "__bug" },
	{ '^', "do_debug" },
	{ '^', "el1_" },
	{ 0, "_handler" },
	{ '^', "handle_exception" },
	{ '^', "do_mem_abort" },
	{ '^', "__do_kernel_fault" },
	{ '^', "do_translation_fault" },
	{ '^', "__die" },
	{ '^', "do_page_fault" },
	{ '^', "program_check" },
	{ '^', "debug_locks" },
	{ 0, "sched_show_task" },
	{ '^', "rust_helper" },
	{ '^', "rust_begin_unwind" },
	{ 0, "rust_begin_unwind" },
	{ 0, "overflow" },
	{ '^', "print_" },
	{ 0, "check_preemption_disabled" },
	{ '=', "__schedule" },
	{ '^', "retint_" },
	{ '^', "preempt_schedule" },
};

static const struct skip skip_hung[] = {
	{ 0, "sched" },		{ 0, "_lock" },		 { 0, "_slowlock" },
	{ 0, "down" },		{ 0, "completion" },	 { 0, "wait" },
	{ 0, "synchronize" },	{ 0, "context_switch" }, { 0, "__switch_to" },
	{ 0, "rwsem" },		{ 0, "mutex" },		 { '^', "kthread" },
	{ 0, "ret_from_fork" }, { 0, "io_schedule" },
};

static const struct skip skip_mem[] = {
	{ 0, "alloc" },	      { 0, "oom" },	      { 0, "out_of_memory" },
	{ 0, "charge" },      { 0, "mem_cgroup" },    { 0, "kmem" },
	{ 0, "slab" },	      { 0, "get_free_page" }, { 0, "kmalloc" },
	{ 0, "dump_header" }, { 0, "reclaim" },	      { 0, "memcg" },
	{ 0, "vmalloc" },
};

static const struct skip skip_leak[] = {
	{ 0, "alloc" },		{ 0, "kmem" },	    { 0, "slab" },
	{ 0, "kmalloc" },	{ 0, "kzalloc" },   { 0, "create_object" },
	{ 0, "mmap" },		{ 0, "strdup" },    { 0, "strndup" },
	{ 0, "memdup" },	{ 0, "kasprintf" }, { 0, "idr_get" },
	{ 0, "list_lru_init" },
};

static bool skip_in(const char *f, const struct skip *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (t[i].mode == '=' ? !strcmp(f, t[i].s) :
		    t[i].mode == '^' ? !strncmp(f, t[i].s, strlen(t[i].s)) :
				       strstr(f, t[i].s) != NULL)
			return true;
	}
	return false;
}

static bool skip_func(const struct bev *e, const char *f)
{
	if (!f[0] || skip_in(f, skip_common, ARRAY_SIZE(skip_common)))
		return true;
	if ((e->flags & F_SKIP_HUNG) &&
	    skip_in(f, skip_hung, ARRAY_SIZE(skip_hung)))
		return true;
	if ((e->flags & F_SKIP_MEM) &&
	    skip_in(f, skip_mem, ARRAY_SIZE(skip_mem)))
		return true;
	if ((e->flags & F_SKIP_LEAK) &&
	    skip_in(f, skip_leak, ARRAY_SIZE(skip_leak)))
		return true;
	return false;
}

const char *guilty(const struct bev *e)
{
	int i;

	if ((e->flags & F_HFUNC) && !skip_func(e, e->hfunc))
		return e->hfunc;
	if (!(e->flags & F_TRACEFUNC) && !skip_func(e, e->rip))
		return e->rip;
	for (i = 0; i < e->nr_frames; i++)
		if (!skip_func(e, e->frames[i]))
			return e->frames[i];
	if (e->hfunc[0])
		return e->hfunc;
	if (e->rip[0] && !(e->flags & F_TRACEFUNC))
		return e->rip;
	return NULL;
}

bool console_kind_is_crash(const char *kind)
{
	static const char *const crash[] = {
		"oops", "panic", "stack_overflow", "sanitizer", "hard_lockup",
	};
	size_t i;

	for (i = 0; kind && i < ARRAY_SIZE(crash); i++)
		if (!strcmp(kind, crash[i]))
			return true;
	return false;
}

size_t console_nr_patterns(void)
{
	return NR_ANCHORS;
}

const char *console_pattern(size_t i)
{
	return i < NR_ANCHORS ? anchors[i].s : NULL;
}
