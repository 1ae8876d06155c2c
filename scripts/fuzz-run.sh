#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD_DIR/fuzz for SECONDS each, one after the other, and prints
# per target the executions, the coverage (libFuzzer's cov: edges and ft: features at the end) and
# the crashes. Usage: scripts/fuzz-run.sh BUILD_DIR SECONDS [NAME...]
#
# New inputs go to BUILD_DIR/corpus/<name>, not to fuzz/corpus/<name>: the checked-in seeds stay
# small and hand-written; a crash reproducer (BUILD_DIR/crashes/<name>/) is what gets checked in,
# beside the fix. Exit status 1 when any target crashed.
set -uo pipefail
build=$1 seconds=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for bin in "$build"/fuzz/*_fuzz; do names+=("$(basename "$bin" _fuzz)"); done
fi
# Leaks are findings too; a slow input (a hang) is reported as a timeout after 10 s.
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
status=0
printf '%-16s %12s %8s %8s %8s\n' target executions cov ft crashes
for name in "${names[@]}"; do
  work="$build/corpus/$name" crashes="$build/crashes/$name" log="$build/fuzz-logs/$name.log"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  # Reproducers of earlier runs stay in $crashes; only those newer than this mark are this run's.
  mark="$crashes/.started"
  touch "$mark"
  "$build/fuzz/${name}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "$work" "$src/fuzz/corpus/$name" >"$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  found=$(find "$crashes" -type f -newer "$mark" ! -name .started | wc -l)
  printf '%-16s %12s %8s %8s %8s\n' "$name" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$found"
  if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then
    status=1
    echo "  $name: exit $rc, log $log, reproducers in $crashes/" >&2
  fi
done
exit $status
