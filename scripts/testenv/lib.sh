# Helpers shared by scripts/testenv/up, down and restart. Sourced, not run.
#
# Layout of a test environment directory DIR (everything the control plane writes is under it):
#   DIR/pki/            CA, other-ca, serving and client certificates, the service-account key
#                       pair, the bearer token and the API server's token file
#   DIR/kubeconfig*     admin (client cert), token, restricted user
#   DIR/env             the export lines up prints, plus the API server and etcd URLs
#   DIR/ports           the free ports up chose (sourced by restart, which keeps them)
#   DIR/certs/<c>/      self-signed serving certs the controller manager and scheduler make
#   DIR/run/<c>.sh      the exact command line of component <c>; restart runs it again
#   DIR/pids/<c>.pid    written by run/<c>.sh itself before it execs the binary
#   DIR/logs/<c>.log    stdout and stderr of <c>
#   DIR/etcd/           etcd's data directory
# Stop order for down: the clients first, the store last.
TESTENV_COMPONENTS=(kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

testenv_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$testenv_here/versions.sh"

log() { echo "[testenv $(date +%H:%M:%S)] $*" >&2; }
die() { echo "testenv: $*" >&2; exit 1; }

# abs_dir DIR: DIR made absolute (it need not exist yet).
abs_dir() {
  local d="$1"
  [ -n "$d" ] || die "no directory given"
  case "$d" in /*) ;; *) d="$PWD/$d" ;; esac
  # Drop a trailing slash and any /./ so the recorded paths stay stable.
  python3 -c 'import os,sys; print(os.path.normpath(sys.argv[1]))' "$d"
}

is_component() {
  local c
  for c in "${TESTENV_COMPONENTS[@]}"; do [ "$c" = "$1" ] && return 0; done
  return 1
}

# component_pid DIR C: prints the pid of C if it is alive and really is the process started for
# DIR (its command line mentions DIR, so a recycled pid is never taken for ours); else fails.
component_pid() {
  local dir="$1" c="$2" pid
  [ -r "$dir/pids/$c.pid" ] || return 1
  pid="$(cat "$dir/pids/$c.pid" 2>/dev/null)"
  case "$pid" in ''|*[!0-9]*) return 1 ;; esac
  [ -r "/proc/$pid/cmdline" ] || return 1
  # A zombie has an empty command line and is as good as gone.
  tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/" || return 1
  echo "$pid"
}

# stop_pids GRACE_SECONDS PID...: SIGTERM, then SIGKILL whatever is still alive after GRACE.
stop_pids() {
  local grace="$1"; shift
  [ $# -gt 0 ] || return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + grace)) p alive
  while :; do
    alive=()
    for p in "$@"; do
      if [ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ]; then alive+=("$p"); fi
    done
    [ ${#alive[@]} -eq 0 ] && return 0
    [ $SECONDS -ge $deadline ] && break
    sleep 0.2
  done
  log "still running after ${grace}s, sending SIGKILL: ${alive[*]}"
  kill -KILL "${alive[@]}" 2>/dev/null || true
  local i
  for i in $(seq 1 25); do
    alive=()
    for p in "$@"; do [ -d "/proc/$p" ] && [ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" != Z ] && alive+=("$p"); done
    [ ${#alive[@]} -eq 0 ] && return 0
    sleep 0.2
  done
  log "could not stop: ${alive[*]}"
  return 1
}

# stop_components DIR C...: stops those components of DIR (only the recorded, verified pids), in
# three rounds: the API server's clients together, then the API server, then etcd (an API server
# whose etcd is gone hangs in its shutdown until killed).
stop_components() {
  local dir="$1"; shift
  local rc=0 round c pid pids
  for round in "kwok kube-scheduler kube-controller-manager" kube-apiserver etcd; do
    pids=()
    for c in "$@"; do
      case " $round " in *" $c "*) ;; *) continue ;; esac
      if pid="$(component_pid "$dir" "$c")"; then pids+=("$pid"); fi
    done
    stop_pids 10 "${pids[@]}" || rc=1
  done
  for c in "$@"; do rm -f "$dir/pids/$c.pid"; done
  return $rc
}

# start_component DIR C: runs DIR/run/C.sh detached (own session, no inherited terminal or pipes,
# so neither a ctest timeout nor a closed shell takes it down) and waits for its pid file.
start_component() {
  local dir="$1" c="$2"
  rm -f "$dir/pids/$c.pid"
  echo "---- $(date '+%F %T') starting $c" >> "$dir/logs/$c.log"
  setsid "$dir/run/$c.sh" < /dev/null >> "$dir/logs/$c.log" 2>&1 &
  local i
  for i in $(seq 1 50); do
    component_pid "$dir" "$c" > /dev/null && return 0
    sleep 0.1
  done
  return 1
}

# write_run_script DIR C BINARY ARG...: DIR/run/C.sh records its own pid, then execs the binary.
write_run_script() {
  local dir="$1" c="$2"; shift 2
  local f="$dir/run/$c.sh"
  {
    echo "#!/usr/bin/env bash"
    echo "# $c of the nodesmith test environment in $dir (written by scripts/testenv/up)."
    printf 'echo $$ > %q\n' "$dir/pids/$c.pid"
    printf 'exec'
    printf ' %q' "$@"
    printf '\n'
  } > "$f"
  chmod +x "$f"
}

# http_ok URL [CACERT CERT KEY]: succeeds if GET URL answers 200 (TLS verified against CACERT when
# given, with that client certificate; an https URL without CACERT is not verified, for the
# self-signed serving certs of the controller manager and scheduler).
http_ok() {
  python3 - "$@" <<'PY' 2>/dev/null
import ssl, sys, urllib.request
url = sys.argv[1]
ctx = None
if url.startswith("https"):
    if len(sys.argv) > 2:
        ctx = ssl.create_default_context(cafile=sys.argv[2])
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
    else:
        ctx = ssl._create_unverified_context()
with urllib.request.urlopen(url, context=ctx, timeout=3) as r:
    sys.exit(0 if r.status == 200 else 1)
PY
}

apiserver_ready() {  # DIR
  local dir="$1"
  http_ok "https://127.0.0.1:$APISERVER_PORT/readyz" "$dir/pki/ca.crt" "$dir/pki/admin.crt" "$dir/pki/admin.key"
}

# component_ready DIR C: the component's own readiness probe.
component_ready() {
  local dir="$1" c="$2"
  case "$c" in
    etcd) http_ok "http://127.0.0.1:$ETCD_CLIENT_PORT/health" ;;
    kube-apiserver) apiserver_ready "$dir" ;;
    kube-controller-manager) http_ok "https://127.0.0.1:$KCM_PORT/healthz" ;;
    kube-scheduler) http_ok "https://127.0.0.1:$SCHEDULER_PORT/readyz" ;;
    # kwok serves no health endpoint; it logs "Watch nodes" once it has listed nodes through the
    # API server and starts its controllers.
    kwok) log_since_start "$dir" kwok | grep -q '"msg":"Watch nodes"' ;;
  esac
}

# log_since_start DIR C: C's log from its latest start on (start_component marks each start).
log_since_start() {
  awk -v m="starting $2" 'index($0, "---- ") == 1 && index($0, m) { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' \
    "$1/logs/$2.log" 2>/dev/null
}

# wait_ready DIR C DEADLINE: waits (until $SECONDS reaches DEADLINE) for C to be ready; fails at
# once if its process died. On failure prints the tail of its log.
wait_ready() {
  local dir="$1" c="$2" deadline="$3"
  while :; do
    if ! component_pid "$dir" "$c" > /dev/null; then
      echo "testenv: $c exited; last lines of $dir/logs/$c.log:" >&2
      tail -n 40 "$dir/logs/$c.log" >&2
      return 1
    fi
    component_ready "$dir" "$c" && return 0
    if [ $SECONDS -ge "$deadline" ]; then
      echo "testenv: $c is not ready after the time allowed; last lines of $dir/logs/$c.log:" >&2
      tail -n 40 "$dir/logs/$c.log" >&2
      return 1
    fi
    sleep 0.3
  done
}

# The lines up prints and DIR/env starts with.
export_lines() {  # DIR
  printf 'export KUBECONFIG=%q\n' "$1/kubeconfig"
  printf 'export PATH=%q:%q:$PATH\n' "$(kube_bin_dir)" "$(helm_bin_dir)"
}
