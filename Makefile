# wblab: an automated regression lab for Linux writeback and memory reclaim.
# `make deps` installs what the build, the tests and the lab need (Debian 12);
# `make` builds ./wblab and the guest agent; `make check` runs the tests.

CC ?= gcc
B := build
PKGS := libvirt libxml-2.0 yaml-0.1 json-c sqlite3 libcrypto gsl zlib
# $(call pkg_config,VAR,ARGS): pkg-config's answer, read on VAR's first
# use and kept, not when make starts: `make deps all` on a fresh machine
# installs the -dev packages before anything is compiled.
pkg_config = $(eval $1 := $(shell pkg-config $2 2>/dev/null))$($1)
PKG_CFLAGS = $(call pkg_config,PKG_CFLAGS,--cflags $(PKGS))
PKG_LIBS = $(call pkg_config,PKG_LIBS,--libs $(PKGS))
CFLAGS ?= -O2 -g
# WERROR=1 (CI) turns every warning into an error, the agent's too.
WARNINGS := -Wall -Wextra -Wno-unused-parameter -Wsign-compare -Wmissing-field-initializers
ifeq ($(WERROR),1)
WARNINGS += -Werror
endif
# The agent takes the caller's CFLAGS too, but none of the host's libraries.
AGENT_CFLAGS := $(CFLAGS) -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -Isrc -I$(B)
override CFLAGS += -std=gnu11 $(WARNINGS) -D_GNU_SOURCE -Isrc -I$(B) $(PKG_CFLAGS)
LDLIBS = $(PKG_LIBS) -lm -lpthread
# check-asan builds into build-asan with these (empty otherwise).
SANFLAGS :=
override CFLAGS += $(SANFLAGS)

LIB_SRC := $(filter-out src/wblab.c, $(wildcard src/*/*.c)) 
LIB_SRC := $(filter-out src/agent/%, $(LIB_SRC)) src/agent/proto.c src/agent/stallwatch.c \
	src/agent/capfile.c
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
# The agent links what it shares with the host from src/util: libc only.
AGENT_SRC := $(wildcard src/agent/*.c) src/util/strvec.c src/util/log.c src/util/io.c \
	src/util/strbuf.c src/util/fs.c src/util/build.c src/util/num.c
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
# What every suite shares (tests/testdata.h: the captured inputs).
TEST_OBJ := $(B)/tests/testdata.o
CHECK_LIBS = $(call pkg_config,CHECK_LIBS,--libs check)

all: wblab $(B)/wblab-agent

wblab: $(B)/src/wblab.o $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The agent runs as PID 1 in the guest, from the initramfs: static, libc only.
$(B)/wblab-agent: $(AGENT_SRC) $(wildcard src/agent/*.h) src/util/strvec.h src/util/log.h \
		src/util/io.h src/util/str.h src/util/strbuf.h src/util/fs.h \
		src/util/build.h src/util/num.h $(B)/build-id.h
	@mkdir -p $(@D)
	$(CC) $(AGENT_CFLAGS) -static -o $@ $(AGENT_SRC)

# The source's commit, for wblab and the agent (src/util/build.h): rewritten
# only when it changed, so only what includes it is rebuilt.
$(B)/build-id.h: FORCE
	@tools/build-id $@
$(B)/src/util/build.o: $(B)/build-id.h

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/%: tests/%.c $(TEST_OBJ) $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

-include $(shell find $(B) -name '*.d' 2>/dev/null)

deps:
	lab/deps.sh

services: deps
	lab/services.sh

# The targets that start with deps build in a sub-make, so that nothing
# is compiled before deps has installed the -dev packages, under -j too.
#
# Unit tests (Check) then end-to-end tests that boot real guests.
# tests/html-chromium.sh renders captured reports in headless Chromium.
check: deps services
	$(MAKE) all test-bins
	tests/run-unit.sh $(TEST_BIN) tests/lib-test.sh tests/include-check-test.sh tests/html-chromium.sh
	tests/e2e.sh

check-unit: all $(TEST_BIN)
	tests/run-unit.sh $(TEST_BIN) tests/lib-test.sh tests/include-check-test.sh tests/html-chromium.sh

test-bins: $(TEST_BIN)

# The whole Check suite under AddressSanitizer and UBSan (leaks included),
# stopping at the first report: its own objects in build-asan/.
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
check-asan:
	CFLAGS="-O1 -g" $(MAKE) B=build-asan SANFLAGS="$(ASAN_FLAGS)" test-bins
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/run-unit.sh $(TEST_SRC:tests/%.c=build-asan/tests/%)

# The matrix engine's reliability suite: ~15 no-op cells, 2 at most at once.
check-matrix: all
	tests/e2e-matrix.sh

# libFuzzer harnesses (tests/fuzz/), built with clang into build-fuzz/ and
# run FUZZ_SECONDS each; fails printing the reproducer on a crash, leak or
# timeout. Needs clang and libclang-rt-14-dev (apt-get install -y clang
# libclang-rt-14-dev): only this target does.
FUZZ_SECONDS ?= 60
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install -y clang libclang-rt-14-dev"; exit 2; }
	CFLAGS="-O1 -g" $(MAKE) CC=clang B=build-fuzz SANFLAGS="$(FUZZ_FLAGS)" fuzz-bins
	tests/fuzz/run.sh $(FUZZ_SECONDS)

fuzz-bins: $(FUZZ_SRC:tests/fuzz/%.c=$(B)/fuzz/%)

$(B)/fuzz/%: tests/fuzz/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

# Suites that build kernels from source (tens of minutes).
check-slow: deps services
	$(MAKE) all test-bins
	tests/e2e-slow.sh
	tests/e2e-matrix.sh
	tests/e2e-remote.sh

# Cells on a host that shares only the libvirt connection (a libvirtd in
# its own mount namespace, lab/remote-endpoint.sh): docs/matrix.md.
check-remote: all
	tests/e2e-remote.sh

# The main job: a with/without-patch comparison on built-in defaults.
demo: deps services
	$(MAKE) all
	lab/demo.sh

# No include or link cycle in src/, every folder arrow down docs/design.md's
# floors, no source file over 700 lines.
include-check: wblab
	tools/include-check

FORMAT_SRC := $(wildcard src/*.c src/*/*.c src/*/*.h tests/*.c tests/*.h)
format:
	clang-format -i --style=file $(FORMAT_SRC)

# The in-tree .clang-format (the kernel's), a dry run: any difference fails.
format-check:
	clang-format --dry-run -Werror --style=file $(FORMAT_SRC)

# The manual, generated from the commands' own --help (their option tables).
$(B)/wblab.1: wblab tools/gen-man
	@mkdir -p $(@D)
	tools/gen-man --wblab ./wblab -o $@
man: $(B)/wblab.1

# make install PREFIX=/usr/local [DESTDIR=...]: the binary with the agent
# and the specs beside it in PREFIX/lib/wblab (wblab finds them next to
# its own executable), PREFIX/bin/wblab a link to it, the manual in
# PREFIX/share/man/man1.
PREFIX ?= /usr/local
WBLAB_LIB = $(DESTDIR)$(PREFIX)/lib/wblab
SPEC_DIRS := lab/configs lab/kernels lab/patches lab/matrices guests topologies workloads
SPEC_FILES := lab/hosts.yaml
install: all $(B)/wblab.1
	install -d $(WBLAB_LIB)/build $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 wblab $(WBLAB_LIB)/wblab
	install -m 0755 $(B)/wblab-agent $(WBLAB_LIB)/build/wblab-agent
	for d in $(SPEC_DIRS); do \
		[ -d $$d ] || continue; \
		install -d $(WBLAB_LIB)/$$d && cp -R $$d/. $(WBLAB_LIB)/$$d/ || exit 1; \
	done
	for f in $(SPEC_FILES); do \
		[ -f $$f ] && install -m 0644 $$f $(WBLAB_LIB)/$$f || true; \
	done
	ln -sf ../lib/wblab/wblab $(DESTDIR)$(PREFIX)/bin/wblab
	install -m 0644 $(B)/wblab.1 $(DESTDIR)$(PREFIX)/share/man/man1/wblab.1

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/lib/wblab
	rm -f $(DESTDIR)$(PREFIX)/bin/wblab $(DESTDIR)$(PREFIX)/share/man/man1/wblab.1

clean:
	rm -rf $(B) build-asan build-fuzz wblab

FORCE:

.PHONY: FORCE all deps services check check-unit check-asan test-bins fuzz fuzz-bins check-slow check-matrix check-remote demo include-check format format-check man install uninstall clean
