# Pinned versions of the test peers. Sourced by build, up and down.
# Each peer is built from its Go module (or installed from PyPI) into
# $NODESMITH_TESTENV_CACHE/<peer>-<version>/, so a version change rebuilds only that peer.
KUBERNETES_VERSION="${KUBERNETES_VERSION:-v1.35.4}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.6}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
HELM_VERSION="${HELM_VERSION:-v3.21.4}"
MOTO_VERSION="${MOTO_VERSION:-5.1.14}"
NODESMITH_TESTENV_CACHE="${NODESMITH_TESTENV_CACHE:-$HOME/.cache/nodesmith-testenv}"

kube_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/kubernetes-$KUBERNETES_VERSION/bin"; }
etcd_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/etcd-$ETCD_VERSION/bin"; }
kwok_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/kwok-$KWOK_VERSION/bin"; }
helm_bin_dir() { echo "$NODESMITH_TESTENV_CACHE/helm-$HELM_VERSION/bin"; }
