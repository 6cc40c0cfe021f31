/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_GNUPLOT_H
#define WBLAB_GNUPLOT_H

#include "util/strbuf.h"

/* The most SVG a plot may be, and how long gnuplot may take for it. */
#define GNUPLOT_MAX_SVG (64 << 20)
#define GNUPLOT_TIMEOUT 120

/*
 * Run gnuplot on script, whose terminal is svg and whose output is stdout
 * ("set output"), and put what it printed in svg: an XML prolog, then the
 * <svg> element, which is there when 0 is returned. The script goes to
 * gnuplot as a temporary file named on its argv (util/run.c: no shell);
 * gnuplot's stdout is capped at GNUPLOT_MAX_SVG and its run at
 * GNUPLOT_TIMEOUT seconds. WBLAB_KEEP_PLOTS set in the environment keeps
 * the script, to debug a plot. Returns 0, or -1 with why in err.
 *
 * gnuplot does what a script says (it can write files and run commands),
 * so callers build scripts from numbers they printed and titles reduced
 * to a few safe characters, never from input as it came.
 */
int gnuplot_svg(const struct strbuf *script, struct strbuf *svg,
		struct strbuf *err);

#endif
