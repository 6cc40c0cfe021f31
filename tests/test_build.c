// SPDX-License-Identifier: GPL-2.0
/*
 * The build id that ties the guest agent to wblab (src/util/build.h):
 * the agent make built beside this test passes; the same binary with
 * another id, or with none, is refused with the path in the message.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/build.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/strbuf.h"

#include "testdata.h"

static char *agent(struct strbuf *bin)
{
	char *path = xasprintf("%s/build/wblab-agent", testdata_home());

	ck_assert_msg(strbuf_read_file(bin, path) >= 0, "%s (run make)", path);
	return path;
}

/* A copy of the agent, its id's first byte changed (or its marks), in tmp. */
static char *altered(const struct strbuf *bin, bool drop_marks)
{
	char tmpl[] = "/tmp/wblab-test-build-XXXXXX";
	char *dir = mkdtemp(tmpl), *path;
	struct strbuf copy = STRBUF_INIT;
	char *p;

	ck_assert_ptr_nonnull(dir);
	strbuf_add(&copy, bin->buf, bin->len);
	for (p = copy.buf;
	     (p = memmem(p, copy.buf + copy.len - p, "wblab-build:", 12));) {
		p += 12;
		if (drop_marks)
			p[-1] = ';';
		else if (*p)
			*p = *p == 'x' ? 'y' : 'x';
	}
	path = xasprintf("%s/wblab-agent", dir);
	ck_assert_int_eq(write_file_atomic(path, copy.buf, copy.len, 0755), 0);
	strbuf_release(&copy);
	return path;
}

static void drop(char *path)
{
	char *dir = xstrdup(path);

	unlink(path);
	*strrchr(dir, '/') = '\0';
	rmdir(dir);
	free(dir);
	free(path);
}

START_TEST(agent_of_this_build_passes)
{
	struct strbuf bin = STRBUF_INIT, got = STRBUF_INIT;
	char *path = agent(&bin);

	ck_assert_int_eq(agent_build_read(path, &got), 0);
	ck_assert_ptr_nonnull(
		memmem(bin.buf, bin.len, wblab_build, strlen(wblab_build)));
	free(path);
	strbuf_release(&got);
	strbuf_release(&bin);
}
END_TEST

START_TEST(agent_of_another_build_refused)
{
	struct strbuf bin = STRBUF_INIT, got = STRBUF_INIT;
	char *path = agent(&bin), *other = altered(&bin, false);

	ck_assert_int_eq(agent_build_read(other, &got), -1);
	drop(other);
	other = altered(&bin, true);
	ck_assert_int_eq(agent_build_read(other, &got), -1);
	drop(other);
	ck_assert_int_eq(agent_build_read("/nonexistent/wblab-agent", &got),
			 -1);
	free(path);
	strbuf_release(&got);
	strbuf_release(&bin);
}
END_TEST

/*
 * initramfs_ensure() reads the agent once (agent_build_read) and hashes
 * what it read: the initrd cache key must stay what hash_file_hex() of
 * the file gave, and the bytes read must be the file's.
 */
START_TEST(agent_read_once_same_key)
{
	struct strbuf bin = STRBUF_INIT;
	char *path = agent(&bin), *other = altered(&bin, false);
	char file_hex[HASH_HEX_LEN + 1], data_hex[HASH_HEX_LEN + 1];
	struct strbuf copy = STRBUF_INIT;

	ck_assert_int_eq(hash_file_hex(path, file_hex), 0);
	hash_data_hex(bin.buf, bin.len, data_hex);
	ck_assert_str_eq(data_hex, file_hex);
	ck_assert_int_eq(agent_build_read(path, &copy), 0);
	ck_assert_uint_eq(copy.len, bin.len);
	ck_assert(!memcmp(copy.buf, bin.buf, bin.len));
	ck_assert_int_eq(agent_build_read(other, &copy), -1);
	drop(other);
	strbuf_release(&copy);
	free(path);
	strbuf_release(&bin);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("build");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, agent_of_this_build_passes);
	tcase_add_test(tc, agent_of_another_build_refused);
	tcase_add_test(tc, agent_read_once_same_key);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
