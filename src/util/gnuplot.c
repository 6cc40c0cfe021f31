// SPDX-License-Identifier: GPL-2.0
/*
 * The one gnuplot runner: the HTML report (report/html.c, as data: URIs)
 * and wblab history (jobs/history.c, inline) both plot through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/gnuplot.h"
#include "util/io.h"
#include "util/run.h"

int gnuplot_svg(const struct strbuf *script, struct strbuf *svg,
		struct strbuf *err)
{
	char path[] = "/tmp/wblab-plot-XXXXXX";
	const char *argv[] = { "gnuplot", path, NULL };
	struct strbuf gerr = STRBUF_INIT;
	struct run_opts o = { .out = svg,
			      .err = &gerr,
			      .quiet = 1,
			      .timeout = GNUPLOT_TIMEOUT,
			      .max_capture = GNUPLOT_MAX_SVG };
	/* O_CLOEXEC: gnuplot opens the script by name, it needs no fd. */
	int fd = mkostemp(path, O_CLOEXEC), rc = -1;

	if (fd < 0 || write_in_full(fd, script->buf, script->len) < 0) {
		strbuf_addf(err, "%s: cannot write gnuplot script: %s", path,
			    strerror(errno));
		goto out;
	}
	rc = run_argv(argv, &o);
	if (!rc && strstr(svg->buf, "<svg"))
		goto out;
	if (rc == 124)
		strbuf_addf(err, "gnuplot killed after %d s", GNUPLOT_TIMEOUT);
	else if (rc == 125)
		strbuf_addf(err, "gnuplot killed: its SVG passed %d MiB",
			    GNUPLOT_MAX_SVG >> 20);
	else
		strbuf_addf(err, "gnuplot failed (exit %d): %.200s", rc,
			    gerr.buf);
	rc = -1;
out:
	if (fd >= 0) {
		close(fd);
		if (!getenv("WBLAB_KEEP_PLOTS"))
			unlink(path);
	}
	strbuf_release(&gerr);
	return rc;
}
