#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD_DIR/fuzz for SECONDS each, one after the other, and prints
# per target the executions, the coverage (libFuzzer's cov: edges and ft: features at the end) and
# the crashes. Usage: scripts/fuzz-run.sh BUILD_DIR SECONDS [NAME...]
#
# SECONDS is wall-clock time, libFuzzer's -max_total_time. With FUZZ_CLOCK=cpu it is the CPU time
# (user + system) of the target's process instead: a run that shares its core with other work
# still gets the whole budget, as a "30 CPU-minutes" claim needs; the target is then stopped with
# SIGINT, on which libFuzzer prints its final statistics and exits with 72. Either way the table
# gives the CPU seconds each target used.
# Slow a run beside other work with nice, never pause it (SIGSTOP): -timeout counts wall time, so
# the input in flight across a pause is reported as a timeout. For the same reason the CPU clock
# allows an input 120 s, not 10: at nice 19 beside a build on every core, a target can go tens of
# seconds without a core, and an input it was running then is no hang (a true hang still ends the
# run after 120 s).
#
# Crashes are libFuzzer's crash-, leak-, oom- and timeout- reproducers; an input that finished
# but took over 10 s is a slow- unit, counted apart: worth a look, not a failure.
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
# Leaks are findings too; a slow input (a hang) is reported as a timeout after 10 s (120 s on the
# CPU clock, below).
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
clock=${FUZZ_CLOCK:-wall}
case $clock in wall|cpu) ;; *) echo "fuzz-run.sh: FUZZ_CLOCK must be wall or cpu, not $clock" >&2; exit 2 ;; esac
ticks=$(getconf CLK_TCK)

# CPU seconds (user + system) of process $1 so far, from /proc/PID/stat; empty once it is gone.
cpu_of() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  # Fields after the command name, which is in parentheses: utime and stime are the 12th and 13th.
  awk -v t="$ticks" '{ printf "%d", ($12 + $13) / t }' <<<"${stat##*) }"
}

# Sets $reaped to the CPU seconds of the children this shell has reaped, from the `times`
# builtin's second line; it must run in this shell, not in a $(...) subshell, which has reaped none.
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
reaped_cpu() {
  times >"$times_file"
  reaped=$(awk 'NR == 2 {
    s = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] }
    printf "%d", s }' "$times_file")
}

status=0
printf '%-26s %12s %8s %8s %8s %6s %8s\n' target executions cov ft crashes slow cpu_s
for name in "${names[@]}"; do
  work="$build/corpus/$name" crashes="$build/crashes/$name" log="$build/fuzz-logs/$name.log"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  # Reproducers of earlier runs stay in $crashes; only those newer than this mark are this run's.
  mark="$crashes/.started"
  touch "$mark"
  limit=$seconds
  # On the CPU clock the wall-clock limit only guards against a process that never gets a core.
  timeout=10
  [ "$clock" = cpu ] && limit=$((seconds * 20)) timeout=120
  reaped_cpu; before=$reaped
  stopped=0
  "$build/fuzz/${name}_fuzz" -max_total_time="$limit" -timeout="$timeout" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$crashes/" \
    "$work" "$src/fuzz/corpus/$name" >"$log" 2>&1 &
  pid=$!
  if [ "$clock" = cpu ]; then
    while used=$(cpu_of $pid) && [ -n "$used" ]; do
      if [ "$used" -ge "$seconds" ]; then kill -INT $pid 2>/dev/null && stopped=1; break; fi
      sleep 1
    done
  fi
  wait $pid
  rc=$?
  [ $stopped = 1 ] && [ $rc = 72 ] && rc=0
  reaped_cpu; cpu=$((reaped - before))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  found=$(find "$crashes" -type f -newer "$mark" ! -name .started ! -name 'slow-unit-*' | wc -l)
  slow=$(find "$crashes" -type f -newer "$mark" -name 'slow-unit-*' | wc -l)
  printf '%-26s %12s %8s %8s %8s %6s %8s\n' "$name" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$found" \
    "$slow" "$cpu"
  if [ $rc -ne 0 ] || [ "$found" -ne 0 ]; then
    status=1
    echo "  $name: exit $rc, log $log, reproducers in $crashes/" >&2
  fi
done
exit $status
