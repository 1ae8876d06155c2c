# Pinned versions of the test peers. Sourced by build, up and down.
# Each peer is built from its Go module (or installed from PyPI) into
# $NODESMITH_TESTENV_CACHE/<peer>-<version>/, so a version change rebuilds only that peer.
KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.6}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
HELM_VERSION="${HELM_VERSION:-v3.21.4}"
MOTO_VERSION="${MOTO_VERSION:-5.1.14}"
# Karpenter's KWOK provider (sigs.k8s.io/karpenter/kwok), the peer of bench/peers/cluster_compare.py.
KARPENTER_VERSION="${KARPENTER_VERSION:-v1.15.0}"
NODESMITH_TESTENV_CACHE="${NODESMITH_TESTENV_CACHE:-$HOME/.cache/nodesmith-testenv}"

kube_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/kubernetes-$KUBERNETES_VERSION/bin"; }
etcd_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/etcd-$ETCD_VERSION/bin"; }
kwok_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/kwok-$KWOK_VERSION/bin"; }
# The stages kwok plays (node-initialize, heartbeat with lease, pod ready/complete/delete), taken
# from the kwok module's own kustomize/stage/ by build.
kwok_stages_file() { echo "$NODESMITH_TESTENV_CACHE/kwok-$KWOK_VERSION/stages.yaml"; }
# Karpenter's kwok binary; its CRDs are read at run time from the module source beside it
# (karpenter_module_dir), never copied.
karpenter_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/karpenter-$KARPENTER_VERSION/bin"; }
karpenter_module_dir() {
  local f="$NODESMITH_TESTENV_CACHE/karpenter-$KARPENTER_VERSION/module-dir"
  if [ -f "$f" ]; then cat "$f"; fi
}
helm_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/helm-$HELM_VERSION/bin"; }
# The Python virtualenv of scripts/testenv/requirements.txt, keyed by the file's content.
python_venv_dir() {
  local h; h="$(sha256sum "$(dirname "${BASH_SOURCE[0]}")/requirements.txt" | cut -c1-12)"
  echo "$NODESMITH_TESTENV_CACHE/python-$h"
}
