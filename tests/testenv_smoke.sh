#!/usr/bin/env bash
# Smoke test of the test control plane (scripts/testenv/up DIR, already running): kubectl and the
# API server are the pinned release; a kwok fake node becomes Ready; a Deployment's two pods are
# bound to it by the real kube-scheduler and made Running by kwok; deleting the namespace and the
# node cleans up. Uses only the kubectl from the test peers' cache (PATH from DIR/env).
#
#   tests/testenv_smoke.sh DIR
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: tests/testenv_smoke.sh DIR" >&2; exit 2; }
dir="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/testenv/versions.sh"
[ -f "$dir/env" ] || { echo "FAIL: $dir/env is missing (is the control plane up?)" >&2; exit 1; }
source "$dir/env"
step() { echo "== $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

step "kubectl is the cached $KUBERNETES_VERSION"
[ "$(command -v kubectl)" = "$(kube_bin_dir)/kubectl" ] || fail "kubectl on PATH is $(command -v kubectl)"
versions="$(kubectl version -o json)"
read -r client server < <(python3 -c '
import json, sys
v = json.load(sys.stdin)
print(v["clientVersion"]["gitVersion"], v.get("serverVersion", {}).get("gitVersion", "none"))' <<< "$versions")
echo "client $client, server $server"
[ "$client" = "$KUBERNETES_VERSION" ] || fail "client version $client, want $KUBERNETES_VERSION"
[ "$server" = "$KUBERNETES_VERSION" ] || fail "server version $server, want $KUBERNETES_VERSION"

id="$(date +%s)-$$"
ns="testenv-smoke-$id"
node="kwok-smoke-$id"
cleanup() {
  kubectl delete namespace "$ns" --ignore-not-found --wait=false > /dev/null 2>&1 || true
  kubectl delete node "$node" --ignore-not-found --wait=false > /dev/null 2>&1 || true
}
trap cleanup EXIT

step "a kwok node becomes Ready"
# Nodes keep the status they are created with, so capacity is set here (kwok keeps it).
kubectl apply -f - <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $node
  annotations:
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: $node
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok
spec: {}
status:
  capacity:
    cpu: "4"
    memory: 16Gi
    pods: "110"
  allocatable:
    cpu: "4"
    memory: 16Gi
    pods: "110"
EOF
kubectl wait --for=condition=Ready "node/$node" --timeout=60s
kubectl get lease -n kube-node-lease "$node" > /dev/null || fail "no node Lease for $node (kwok heartbeat)"
[ "$(kubectl get node "$node" -o jsonpath='{.status.allocatable.cpu}')" = 4 ] || fail "allocatable cpu changed"

step "a Deployment's pods are scheduled onto it and Running"
kubectl create namespace "$ns"
kubectl apply -n "$ns" -f - <<EOF
apiVersion: apps/v1
kind: Deployment
metadata:
  name: smoke
spec:
  replicas: 2
  selector:
    matchLabels: {app: smoke}
  template:
    metadata:
      labels: {app: smoke}
    spec:
      nodeSelector:
        kubernetes.io/hostname: $node
      containers:
      - name: pause
        image: registry.k8s.io/pause:3.10
        resources:
          requests: {cpu: 500m, memory: 256Mi}
EOF
running=0
for _ in $(seq 1 120); do
  running="$(kubectl get pods -n "$ns" -l app=smoke \
    -o jsonpath='{range .items[*]}{.spec.nodeName} {.status.phase}{"\n"}{end}' | grep -c "^$node Running$" || true)"
  [ "$running" = 2 ] && break
  sleep 0.5
done
kubectl get pods -n "$ns" -o wide
[ "$running" = 2 ] || fail "$running of 2 pods Running on $node"
scheduled="$(kubectl get events -n "$ns" --field-selector reason=Scheduled \
  -o jsonpath='{range .items[*]}{.reportingComponent}{"\n"}{end}' | grep -c '^default-scheduler$' || true)"
[ "$scheduled" -ge 2 ] || fail "expected 2 Scheduled events from default-scheduler, got $scheduled"
kubectl rollout status -n "$ns" deployment/smoke --timeout=30s

step "deleting the namespace and the node"
kubectl delete namespace "$ns" --timeout=90s
kubectl delete node "$node" --timeout=30s
trap - EXIT
echo "PASS"
