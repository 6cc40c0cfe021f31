/* SPDX-License-Identifier: GPL-2.0 */
#ifndef WBLAB_DEBFETCH_INT_H
#define WBLAB_DEBFETCH_INT_H

/*
 * The private apt's insides, shared by debfetch.c (what is fetched) and
 * debfetch-apt.c (the suite's apt directory and the apt tools run with
 * it), and nothing else.
 */

#include <stdbool.h>

#include "artifact/debfetch.h"
#include "util/strbuf.h"

/*
 * Write the suite's configuration under ROOT/apt/<suite> (every time: the
 * mirror may change) and return that directory in *dirp (to free).
 */
int apt_setup(const struct debfetch_source *src, char **dirp);
/* Run an apt tool with the suite's configuration, in cwd (or anywhere). */
int apt_run(const char *dir, const char *const *argv, const char *cwd,
	    struct strbuf *out, struct strbuf *err);
/* apt-get update of the suite's lists; an "E:" line is a failure too. */
int apt_update(const struct debfetch_source *src, const char *dir);
/* Has the suite's lists directory a Packages index? */
bool have_lists(const char *dir);

#endif
