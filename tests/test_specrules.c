// SPDX-License-Identifier: GPL-2.0
/*
 * Specs cannot run code: every shipped spec loads under the value rules,
 * and hostile values (shell metacharacters, newlines, "../", leading '-',
 * duplicate keys, missing maxima) are errors naming file:line: field.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/matrix.h"
#include "spec/specs.h"
#include "util/fs.h"
#include "util/log.h"

static char *write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/wblab-test-spec-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

enum kind { KERNEL, IMAGE, TOPOLOGY, WORKLOAD, MATRIX };

/* Load text as kind; returns 0 or -1, errors in err. */
static int load(enum kind k, const char *path, struct strbuf *err)
{
	int ret = -1;

	switch (k) {
	case KERNEL: {
		struct kernel_spec s;

		ret = kernel_spec_load_err(path, "t", &s, err);
		kernel_spec_free(&s);
		break;
	}
	case IMAGE: {
		struct image_spec s;
		FILE *saved = stderr, *mem;
		char *buf = NULL;
		size_t n = 0;

		/* image_spec_load reports on stderr only. */
		mem = open_memstream(&buf, &n);
		stderr = mem;
		ret = image_spec_load(path, "t", &s);
		stderr = saved;
		fclose(mem);
		strbuf_addstr(err, buf);
		free(buf);
		image_spec_free(&s);
		break;
	}
	case TOPOLOGY: {
		struct topology_spec s;

		ret = topology_spec_load_err(path, "t", &s, err);
		topology_spec_free(&s);
		break;
	}
	case WORKLOAD: {
		struct workload_spec s;

		ret = workload_spec_load_err(path, "t", &s, err);
		workload_spec_free(&s);
		break;
	}
	case MATRIX: {
		struct matrix_spec s;

		memset(&s, 0, sizeof(s));
		ret = matrix_spec_load(path, "t", &s, err);
		matrix_spec_free(&s);
		break;
	}
	}
	return ret;
}

static void load_dir(enum kind k, const char *dir)
{
	char *d = xasprintf("%s/%s", wblab_home(), dir);
	DIR *dp = opendir(d);
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(dp);
	while ((de = readdir(dp))) {
		struct strbuf err = STRBUF_INIT;
		char *p;

		if (!strstr(de->d_name, ".yaml"))
			continue;
		p = xasprintf("%s/%s", d, de->d_name);
		ck_assert_msg(load(k, p, &err) == 0, "%s: %s", p, err.buf);
		strbuf_release(&err);
		free(p);
		n++;
	}
	closedir(dp);
	ck_assert_int_gt(n, 0);
	free(d);
}

START_TEST(shipped_specs_load)
{
	load_dir(KERNEL, "lab/kernels");
	load_dir(IMAGE, "guests");
	load_dir(TOPOLOGY, "topologies");
	load_dir(WORKLOAD, "workloads");
	load_dir(MATRIX, "lab/matrices");
}
END_TEST

static const struct {
	enum kind kind;
	const char *yaml;
	const char *expect; /* in the error, after file: */
} hostile[] = {
	{ KERNEL, "source:\n  package: \"-oDir::Etc=/tmp\"\n",
	  ":2: source.package: '-oDir::Etc=/tmp' must not start with '-'" },
	{ KERNEL, "source:\n  package: \"linux;rm -rf /\"\n",
	  ":2: source.package: 'linux;rm -rf /' must be" },
	{ KERNEL,
	  "source:\n  package: linux-source-6.1\nconfig:\n  base: \"defconfig; id\"\n",
	  ":4: config.base: 'defconfig; id' must be a make config target" },
	{ KERNEL,
	  "source:\n  package: linux-source-6.1\nconfig:\n  base: -j1000\n",
	  ":4: config.base: '-j1000' must not start with '-'" },
	{ KERNEL,
	  "source:\n  package: linux-source-6.1\nconfig:\n  fragments: [../../../etc/shadow]\n",
	  ":4: config.fragments: '../../../etc/shadow' must be a file name inside" },
	{ KERNEL,
	  "source:\n  package: linux-source-6.1\npatches:\n  - /etc/passwd\n",
	  ":4: patches: '/etc/passwd' must be a file name inside" },
	{ KERNEL, "source:\n  git: \"ext::sh -c id\"\n",
	  ":2: source.git: 'ext::sh -c id' must be an https://" },
	{ KERNEL, "source:\n  git: \"ssh://-oProxyCommand=id/x\"\n",
	  ":2: source.git: 'ssh://-oProxyCommand=id/x' the host must start" },
	{ KERNEL,
	  "source:\n  git: https://git.kernel.org/x\n  ref: --upload-pack=id\n",
	  ":3: source.ref: '--upload-pack=id' must not start with '-'" },
	{ KERNEL,
	  "source:\n  git: https://git.kernel.org/x\n  ref: \"$(id)\"\n",
	  ":3: source.ref: '$(id)' must be a git ref" },
	{ KERNEL, "package: a\npackage: b\n",
	  ":2: package: duplicate key (first at line 1)" },
	{ KERNEL, "package: \"a\\nb\"\n",
	  ":1: package: must be a single line" },
	{ KERNEL, "package: \"a\\u0007b\"\n",
	  ":1: package: control character 0x07" },
	{ KERNEL, "base: \"../6.1\"\n",
	  ":1: base: '../6.1' must be [A-Za-z0-9._-]" },
	{ IMAGE, "suite: bookworm\nmirror: \"-http://x\"\npackages: [fio]\n",
	  ":2: mirror: '-http://x' must not start with '-'" },
	{ IMAGE, "suite: bookworm\nmirror: \"file:///etc\"\npackages: [fio]\n",
	  ":2: mirror: 'file:///etc' must be an https://" },
	{ IMAGE, "suite: --variant=x\npackages: [fio]\n",
	  ":1: suite: '--variant=x' must not start with '-'" },
	{ IMAGE, "suite: bookworm\npackages: [fio, \"<>&'\\\"\"]\n",
	  ":2: packages: '<>&'\"' must be [A-Za-z0-9._+:~=-]" },
	{ IMAGE, "suite: bookworm\npackages: [fio]\nsize: 1000T\n",
	  ":3: size: 1000T is out of range" },
	{ IMAGE, "suite: bookworm\nsuite: sid\npackages: [fio]\n",
	  ":2: suite: duplicate key" },
	{ TOPOLOGY,
	  "description: x\ndisks: {count: 1, size: 1G}\nmount: /mnt/../etc\nlayers:\n  - {name: d, type: disk, index: 0}\n",
	  ":3: mount: '/mnt/../etc' must be an absolute path" },
	{ TOPOLOGY,
	  "description: x\ndisks: {count: 1, size: 1G}\nlayers:\n  - {name: \"d;id\", type: disk, index: 0}\n",
	  ":4: layers[0].name: 'd;id' must be [A-Za-z0-9._-]" },
	{ TOPOLOGY,
	  "description: x\ndisks: {count: 1, size: 1G}\nlayers:\n  - {name: d, type: disk, index: 0}\n"
	  "  - {name: f, type: fs, on: [d], fstype: xfs, mount: \"-oremount,rw\"}\n",
	  ":5: layers[1].mount: '-oremount,rw' must not start with '-'" },
	{ TOPOLOGY,
	  "description: x\ndisks: {count: 99, size: 1G}\nlayers:\n  - {name: d, type: disk, index: 0}\n",
	  ":2: disks.count: 99 is out of range [0, 16]" },
	{ WORKLOAD, "description: x\ntimeout: 99999999\npre: [\"true\"]\n",
	  ":2: timeout: 99999999 is out of range [1, 86400]" },
	{ WORKLOAD,
	  "description: x\ntimeout: 10\npre: [\"true\"]\nmemcg_max: \"1G; reboot\"\n",
	  ":4: memcg_max: '1G; reboot' must be" },
	{ WORKLOAD,
	  "description: x\ntimeout: 10\ntimeout: 20\npre: [\"true\"]\n",
	  ":3: timeout: duplicate key (first at line 2)" },
	/* Decimal only (#47): strtoll's base 0 read 0100 as 64. */
	{ TOPOLOGY,
	  "description: x\ndisks: {count: 010, size: 1G}\nlayers:\n  - {name: d, type: disk, index: 0}\n",
	  ":2: disks.count: '010' is not a decimal integer" },
	{ WORKLOAD, "description: x\ntimeout: 0x10\npre: [\"true\"]\n",
	  ":2: timeout: '0x10' is not a decimal integer" },
	{ WORKLOAD, "description: x\ntimeout: \" 12\"\npre: [\"true\"]\n",
	  ":2: timeout: ' 12' is not a decimal integer" },
};

START_TEST(hostile_values_rejected)
{
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		struct strbuf err = STRBUF_INIT;
		char *path = write_tmp(hostile[i].yaml);
		char *want = xasprintf("%s%s", path, hostile[i].expect);

		ck_assert_msg(load(hostile[i].kind, path, &err) == -1,
			      "accepted: %s", hostile[i].yaml);
		ck_assert_msg(strstr(err.buf, want),
			      "case %zu: want '%s' in '%s'", i, want, err.buf);
		unlink(path);
		free(path);
		free(want);
		strbuf_release(&err);
	}
}
END_TEST

START_TEST(value_rules)
{
	ck_assert_ptr_null(spec_value_check(SPEC_V_MAKE_TARGET, "defconfig"));
	ck_assert_ptr_null(
		spec_value_check(SPEC_V_MAKE_TARGET, "x86_64_defconfig"));
	ck_assert_ptr_nonnull(spec_value_check(SPEC_V_MAKE_TARGET, "config/"));
	ck_assert_ptr_null(spec_value_check(SPEC_V_URL, "https://a.b/c.git"));
	ck_assert_ptr_null(spec_value_check(SPEC_V_URL, "/srv/linux.git"));
	ck_assert_ptr_nonnull(spec_value_check(SPEC_V_URL, "/srv/../etc"));
	ck_assert_ptr_null(spec_value_check(SPEC_V_RELPATH, "a/b.patch"));
	ck_assert_ptr_nonnull(spec_value_check(SPEC_V_RELPATH, "a/../../b"));
	ck_assert_ptr_null(spec_value_check(SPEC_V_RELPATH, "a..b.patch"));
	ck_assert_ptr_null(
		spec_value_check(SPEC_V_IQN, "iqn.2003-01.org.wblab:target0"));
	ck_assert_ptr_nonnull(spec_value_check(SPEC_V_IQN, "iqn.x:$(id)"));
	ck_assert_ptr_null(spec_value_check(SPEC_V_ARG, "-K"));
	ck_assert_ptr_nonnull(spec_value_check(SPEC_V_WORD, "-K"));
}
END_TEST

/*
 * A spec nested 200,000 deep (400 KB; libyaml took 75 s over it) is
 * refused at level 65 at once, and a FIFO given as a spec (--matrix)
 * fails at once instead of hanging (#47).
 */
START_TEST(deep_and_fifo_refused)
{
	enum { DEEP = 200000 };
	char *text = xmalloc(2 * DEEP + 32), *path, *fifo;
	struct strbuf err = STRBUF_INIT;
	double t0 = now_mono();

	strcpy(text, "description: ");
	memset(text + 13, '[', DEEP);
	memset(text + 13 + DEEP, ']', DEEP);
	strcpy(text + 13 + 2 * DEEP, "\n");
	path = write_tmp(text);
	ck_assert_int_eq(load(WORKLOAD, path, &err), -1);
	ck_assert_msg(strstr(err.buf, ":1: yaml: nested deeper than 64"), "%s",
		      err.buf);
	ck_assert_msg(now_mono() - t0 < 2, "took %.1f s", now_mono() - t0);
	unlink(path);
	fifo = xasprintf("%s.fifo", path);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	strbuf_reset(&err);
	ck_assert_int_eq(load(MATRIX, fifo, &err), -1);
	ck_assert_msg(strstr(err.buf, ".fifo: cannot open: not a regular file"),
		      "%s", err.buf);
	unlink(fifo);
	free(fifo);
	free(path);
	free(text);
	strbuf_release(&err);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("specrules");
	TCase *tc = tcase_create("rules");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, shipped_specs_load);
	tcase_add_test(tc, hostile_values_rejected);
	tcase_add_test(tc, value_rules);
	tcase_add_test(tc, deep_and_fifo_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
