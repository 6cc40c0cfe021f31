#!/bin/sh
# Run the Check unit-test programs given as arguments; fail if any fails.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export WBLAB_HOME="$top"
export WBLAB_KCIDB_SCHEMA="${WBLAB_KCIDB_SCHEMA:-$top/../shared/kcidb/kcidb-v5.3.schema.json}"
export WBLAB_CORPUS="${WBLAB_CORPUS:-$top/../shared/corpus/console}"
fail=0
for t in "$@"; do
	echo "== $t"
	"$t" || { echo "FAILED: $t"; fail=1; }
done
exit $fail
