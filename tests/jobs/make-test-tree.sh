#!/bin/sh
# tests/jobs/make-test-tree.sh [--version 6.1|7.2] DEST [SRC]: the git tree
# the jobs' slow tests bisect and validate against.
#
# A base commit holding the unpacked linux-source-VERSION tree (SRC, default
# the one wblab unpacked into its cache; VERSION 6.1 by default), then 16
# small commits, all harmless except the 11th, the planted change, applied
# with git am:
#  - 6.1: lab/patches' direct-writeback revert (direct reclaim writes dirty
#    file folios again: reclaim-wr-direct 0 -> hundreds of pages);
#  - 7.2: tests/jobs/7x-memcg-reclaim-sleep.patch, a 10 ms sleep in every
#    memcg limit reclaim. 7.x has no ->writepage, so the revert has nothing
#    to call there; the sleep's effect is certain from the source (see the
#    patch: workload-time +13 s or more on dirty-flood, every memcg reclaim
#    stall >= 10 ms).
# Author and committer dates are fixed, so the commit ids are the
# same on every machine with the same source version. The harmless commits
# mix the three kinds a bisection meets: documentation only (the kernel image
# does not change), a comment line at the end of a C file (the file is
# recompiled, the image does not change), and a comment line near the top
# (__LINE__ of everything below moves: a new image, the same behaviour).
# The harmless commits touch the same files on both versions.
#
# Idempotent: an existing DEST whose 16th commit carries the last subject
# is kept. Prints the base and head commit ids.
set -eu

here=$(cd "$(dirname "$0")/../.." && pwd)
version=6.1
if [ "${1:-}" = --version ]; then
	version=${2:-}
	shift 2
fi
case $version in
6.1) planted=$here/lab/patches/0001-mm-vmscan-let-direct-reclaim-write-file-folios.patch ;;
7.2) planted=$here/tests/jobs/7x-memcg-reclaim-sleep.patch ;;
*)
	echo "$0: --version: '$version' is not 6.1 or 7.2" >&2
	exit 2
	;;
esac
[ $# -ge 1 ] || {
	echo "usage: $0 [--version 6.1|7.2] DEST [SRC]" >&2
	exit 2
}
dest=$1
cache=${WBLAB_CACHE:-/var/lib/wblab/cache}
src=${2:-}
if [ -z "$src" ]; then
	for d in "$cache"/src/linux-source-"$version"-*; do
		[ -f "$d/.wblab-unpacked" ] && src=$d
	done
fi
[ -n "$src" ] && [ -f "$src/Makefile" ] || {
	echo "$0: no unpacked linux-source-$version (run: wblab kernel build $version)" >&2
	exit 2
}
last="mm: readahead: note the readahead window's unit"

export GIT_AUTHOR_NAME=wblab GIT_AUTHOR_EMAIL=wblab@localhost
export GIT_COMMITTER_NAME=wblab GIT_COMMITTER_EMAIL=wblab@localhost
n=0
commit() {
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:$(printf %02d $n):00Z"
	export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
	git -C "$dest" commit -q -a -m "$1"
}
# at FILE top|end TEXT: a one-line C comment after line 1, or at the end.
at() {
	case $2 in
	top) sed -i "1a /* wblab test tree: $3 */" "$dest/$1" ;;
	end) printf '/* wblab test tree: %s */\n' "$3" >>"$dest/$1" ;;
	doc) printf '\n.. wblab test tree: %s\n' "$3" >>"$dest/$1" ;;
	esac
}

if [ -d "$dest/.git" ] &&
	[ "$(git -C "$dest" log -1 --format=%s 2>/dev/null)" = "$last" ]; then
	echo "base $(git -C "$dest" rev-parse HEAD~16)"
	echo "head $(git -C "$dest" rev-parse HEAD)"
	exit 0
fi
rm -rf "$dest"
mkdir -p "$dest"
echo "copying $src into $dest" >&2
cp -a "$src/." "$dest/"
rm -f "$dest/.wblab-unpacked"
git -C "$dest" init -q
git -C "$dest" config core.looseCompression 1
git -C "$dest" config gc.auto 0
# The kernel's .gitignore ignores some shipped files (e.g. under debian/):
# add everything anyway.
git -C "$dest" add -A -f .
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git -C "$dest" commit -q -m "base: $(basename "$src")"

at Documentation/admin-guide/sysctl/vm.rst doc "dirty_ratio wording"
commit "docs: vm sysctl: reword dirty_ratio"
at mm/page-writeback.c top "balance_dirty_pages() comment"
commit "mm: page-writeback: comment balance_dirty_pages()"
at fs/ext4/page-io.c end "end of ext4 page-io"
commit "ext4: page-io: trailing comment"
at mm/vmscan.c top "shrink_folio_list() overview"
commit "mm: vmscan: describe shrink_folio_list()"
at drivers/block/virtio_blk.c end "virtio_blk queue depth note"
commit "virtio_blk: note on the queue depth"
at fs/xfs/xfs_aops.c top "XFS has no ->writepage"
commit "xfs: aops: say why there is no ->writepage"
at mm/filemap.c end "filemap tail"
commit "mm: filemap: trailing comment"
at Documentation/admin-guide/mm/concepts.rst doc "reclaim concepts"
commit "docs: mm concepts: reclaim"
at mm/swap.c top "LRU batching"
commit "mm: swap: comment the LRU batches"
at fs/fs-writeback.c end "writeback tail"
commit "writeback: trailing comment"
n=$((n + 1))
export GIT_AUTHOR_DATE="2026-01-01T00:$(printf %02d $n):00Z"
export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
git -C "$dest" am -q "$planted"
# The patch has no Date: header; pin the date so the ids are reproducible.
git -C "$dest" commit -q --amend --no-edit --date="$GIT_AUTHOR_DATE"
at mm/vmstat.c top "vmstat counters"
commit "mm: vmstat: comment the event counters"
at fs/ext4/inode.c end "ext4 inode tail"
commit "ext4: inode: trailing comment"
at Documentation/filesystems/ext4/overview.rst doc "ext4 overview"
commit "docs: ext4: overview note"
at mm/page_alloc.c top "watermarks"
commit "mm: page_alloc: comment the watermarks"
at mm/readahead.c top "the readahead window is in pages"
commit "$last"
echo "base $(git -C "$dest" rev-parse HEAD~16)"
echo "head $(git -C "$dest" rev-parse HEAD)"
