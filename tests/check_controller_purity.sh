#!/usr/bin/env bash
# The same controllers and solver run in unit tests, the virtual-time simulator and a real
# cluster, so outside core/, runtime/, cli/, kube/, operator/ and the real cloud providers
# (cloud/aws, cloud/kwok) no code may read the wall clock, sleep, start threads or use unseeded
# randomness: those are the wiring below the controllers' seam. Exits 1 and lists the offending lines otherwise.
set -u
root="${1:-$(dirname "$0")/..}"
hits=$(grep -rnE 'system_clock::now|steady_clock::now|high_resolution_clock::now|sleep_for|sleep_until|std::thread|std::async|[^_a-zA-Z]rand\(\)|srand\(|random_device|time\(NULL\)|time\(nullptr\)|gettimeofday|clock_gettime' \
  --include='*.cc' --include='*.h' "$root/src" \
  | grep -vE "^$root/src/(core|runtime|cli|kube|operator|cloud/aws|cloud/kwok)/" | grep -vE '_test\.cc:')
if [ -n "$hits" ]; then
  echo "Wall clock, sleeps, threads or unseeded randomness outside core/runtime/cli/kube/operator/cloud/{aws,kwok}:"
  echo "$hits"
  exit 1
fi
echo "controller purity: ok"
