// SPDX-License-Identifier: GPL-2.0
/*
 * Writing plan steps (agent/proto.h): one line per step, verb first, the
 * fields escaped and TAB-separated. A leaf that the planner and the
 * collectors' plan fragments both write through.
 */
#include <stdarg.h>
#include <string.h>

#include "agent/proto.h"
#include "cell/step.h"

static void add_field(struct strbuf *p, const char *f)
{
	size_t len = strlen(f);

	strbuf_grow(p, 2 * len + 2);
	p->len += proto_escape(p->buf + p->len, f, len);
}

void plan_step(struct strbuf *p, enum proto_verb verb, ...)
{
	va_list ap;
	const char *f;

	strbuf_addstr(p, proto_verb_names[verb]);
	va_start(ap, verb);
	while ((f = va_arg(ap, const char *))) {
		strbuf_addch(p, '\t');
		add_field(p, f);
	}
	va_end(ap);
	strbuf_addch(p, '\n');
}

void plan_step_argv(struct strbuf *p, enum proto_verb verb, const char *a1,
		    const char *a2, const char *const *argv)
{
	strbuf_addstr(p, proto_verb_names[verb]);
	for (const char *f = a1; f; f = f == a1 ? a2 : NULL) {
		strbuf_addch(p, '\t');
		add_field(p, f);
		if (!a2)
			break;
	}
	for (; *argv; argv++) {
		strbuf_addch(p, '\t');
		add_field(p, *argv);
	}
	strbuf_addch(p, '\n');
}

void plan_phase(struct strbuf *p, enum proto_phase phase)
{
	plan_step(p, VERB_PHASE, proto_phase_names[phase], NULL);
}
