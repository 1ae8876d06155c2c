#!/usr/bin/env python3
"""The identity the Helm chart gives nodesmith, outside a pod: renders deploy/helm/nodesmith,
applies only its ServiceAccount, ClusterRoles, Roles and their bindings into a namespace of the
test control plane, asks the API server for a token of that ServiceAccount (`kubectl create
token`), and writes a kubeconfig that authenticates with the token (server and CA from the
control plane's admin kubeconfig; its context's namespace is the identity's namespace, so the
leader-election Lease goes where the chart's Role allows it, as in a pod). A test then runs
`nodesmith controller --kubeconfig` with exactly the chart's permissions: any permission the
chart lacks fails it.

As a module:

    from chart_identity import ChartIdentity
    ident = ChartIdentity(kubectl, helm, testenv_dir, "nodesmith-e2e", source_dir=SOURCE_DIR)
    ident.create()              # ident.kubeconfig, ident.env (the chart's controller environment)
    ...
    ident.delete()              # or: with ChartIdentity(...) as ident: ...

As a command (prints the path of the kubeconfig):

    chart_identity.py --kubectl K --helm H --testenv DIR --namespace NS [--out FILE]
                      [--cloud-provider kwok|aws] [--set KEY=VALUE ...] [--delete]

Needs PyYAML (the test virtualenv, scripts/testenv/versions.sh python_venv_dir)."""
import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
IDENTITY_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")


def run(argv, stdin=None, env=None, timeout=120, check=True):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (" ".join(argv), p.returncode, p.stderr.strip()))
    return p


def render_chart(helm, source_dir=DEFAULT_SOURCE_DIR, release="nodesmith", namespace="nodesmith",
                 values_files=(), set_values=(), extra_args=()):
    """The chart's objects as `helm template` renders them (CRDs not included), as dicts."""
    chart = os.path.join(source_dir, "deploy", "helm", "nodesmith")
    argv = [helm, "template", release, chart, "--namespace", namespace]
    for f in values_files:
        argv += ["--values", f]
    for kv in set_values:
        argv += ["--set", kv]
    argv += list(extra_args)
    out = run(argv).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def controller_env(objects, namespace):
    """The environment the chart's Deployment gives the controller container, resolved as the
    kubelet would in `namespace`: fieldRef metadata.namespace becomes the namespace, and the
    resourceFieldRefs are left out (there is no container to measure outside a pod)."""
    deployments = [o for o in objects if o.get("kind") == "Deployment"]
    if len(deployments) != 1:
        raise RuntimeError("the chart renders %d Deployments, expected 1" % len(deployments))
    container = deployments[0]["spec"]["template"]["spec"]["containers"][0]
    env = {}
    for e in container.get("env", []):
        if "value" in e:
            env[e["name"]] = str(e["value"])
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.namespace":
            env[e["name"]] = namespace
    return env


class ChartIdentity:
    """The chart's ServiceAccount and RBAC in `namespace`, and a kubeconfig with its token."""

    def __init__(self, kubectl, helm, testenv_dir, namespace, source_dir=DEFAULT_SOURCE_DIR,
                 cloud_provider="kwok", release=None, set_values=(), values_files=(),
                 cluster_name="nodesmith-e2e", token_duration="2h", kubeconfig_path=None):
        self.kubectl_bin = kubectl
        self.helm = helm
        self.testenv_dir = testenv_dir
        self.namespace = namespace
        self.source_dir = source_dir
        self.cloud_provider = cloud_provider
        # Cluster-scoped names come from the release: one per namespace keeps identities apart.
        self.release = release or ("nodesmith-" + namespace)[:53].rstrip("-")
        self.set_values = ["settings.clusterName=" + cluster_name, "cloudProvider=" + cloud_provider,
                           *set_values]
        self.values_files = list(values_files)
        self.token_duration = token_duration
        self.admin_kubeconfig = os.path.join(testenv_dir, "kubeconfig")
        self.kubeconfig = kubeconfig_path
        self._tmpdir = None
        self.objects = []        # every object the chart renders
        self.applied = []        # the identity objects applied
        self.env = {}            # the controller's environment from the chart's Deployment
        self.service_account = None
        self.token = None

    # -- helpers ---------------------------------------------------------------------------------
    def admin(self, *args, stdin=None, check=True):
        return run([self.kubectl_bin, "--kubeconfig", self.admin_kubeconfig, *args], stdin=stdin,
                   check=check)

    def as_identity(self, *args, stdin=None, check=True):
        """kubectl as the chart's ServiceAccount."""
        return run([self.kubectl_bin, "--kubeconfig", self.kubeconfig, *args], stdin=stdin, check=check)

    def can_i(self, verb, resource, namespace=None, subresource=None):
        argv = ["auth", "can-i", verb, resource]
        if namespace:
            argv += ["-n", namespace]
        if subresource:
            argv += ["--subresource", subresource]
        p = self.as_identity(*argv, check=False)
        answer = p.stdout.strip()
        if answer not in ("yes", "no"):
            raise RuntimeError("kubectl auth can-i %s: %s %s" % (" ".join(argv[2:]), answer, p.stderr.strip()))
        return answer == "yes"

    # -- life cycle ------------------------------------------------------------------------------
    def create(self):
        self.objects = render_chart(self.helm, self.source_dir, self.release, self.namespace,
                                    self.values_files, self.set_values)
        self.applied = [o for o in self.objects if o.get("kind") in IDENTITY_KINDS]
        accounts = [o for o in self.applied if o["kind"] == "ServiceAccount"]
        if len(accounts) != 1:
            raise RuntimeError("the chart renders %d ServiceAccounts, expected 1" % len(accounts))
        self.service_account = accounts[0]["metadata"]["name"]
        self.env = controller_env(self.objects, self.namespace)

        if self.admin("get", "namespace", self.namespace, check=False).returncode != 0:
            self.admin("create", "namespace", self.namespace)
        doc = {"apiVersion": "v1", "kind": "List", "items": self.applied}
        self.admin("apply", "-f", "-", stdin=json.dumps(doc))

        self.token = self.admin("create", "token", self.service_account, "-n", self.namespace,
                                "--duration", self.token_duration).stdout.strip()
        self._write_kubeconfig()
        return self

    def _write_kubeconfig(self):
        view = json.loads(self.admin("config", "view", "--raw", "--minify", "--flatten", "-o", "json").stdout)
        cluster = view["clusters"][0]["cluster"]
        ca = cluster.get("certificate-authority-data")
        if not ca:
            with open(cluster["certificate-authority"], "rb") as f:
                ca = base64.b64encode(f.read()).decode()
        user = "system:serviceaccount:%s:%s" % (self.namespace, self.service_account)
        config = {
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "nodesmith-test",
                          "cluster": {"server": cluster["server"], "certificate-authority-data": ca}}],
            "users": [{"name": user, "user": {"token": self.token}}],
            "contexts": [{"name": "chart-identity",
                          "context": {"cluster": "nodesmith-test", "user": user, "namespace": self.namespace}}],
            "current-context": "chart-identity",
        }
        if self.kubeconfig is None:
            self._tmpdir = tempfile.mkdtemp(prefix="chart-identity-")
            self.kubeconfig = os.path.join(self._tmpdir, "kubeconfig")
        fd = os.open(self.kubeconfig, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            yaml.safe_dump(config, f, sort_keys=False)

    def delete(self, delete_namespace=False):
        """Removes what create() applied (the namespace too when asked), and the kubeconfig."""
        for o in reversed(self.applied):
            argv = ["delete", o["kind"], o["metadata"]["name"], "--ignore-not-found", "--wait=false"]
            if o["kind"] in ("ServiceAccount", "Role", "RoleBinding"):
                argv += ["-n", self.namespace]
            self.admin(*argv, check=False)
        if delete_namespace:
            self.admin("delete", "namespace", self.namespace, "--ignore-not-found", "--wait=false", check=False)
        if self._tmpdir:
            for name in os.listdir(self._tmpdir):
                os.unlink(os.path.join(self._tmpdir, name))
            os.rmdir(self._tmpdir)
            self._tmpdir = None
            self.kubeconfig = None

    def __enter__(self):
        return self.create()

    def __exit__(self, *exc):
        self.delete()
        return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--helm", required=True)
    ap.add_argument("--testenv", required=True, help="the control plane's directory (scripts/testenv/up DIR)")
    ap.add_argument("--namespace", required=True)
    ap.add_argument("--source-dir", default=DEFAULT_SOURCE_DIR)
    ap.add_argument("--cloud-provider", default="kwok", choices=("kwok", "aws"))
    ap.add_argument("--set", dest="set_values", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--out", help="where to write the kubeconfig (default: DIR/kubeconfig-chart-NAMESPACE)")
    ap.add_argument("--delete", action="store_true", help="remove the identity instead of creating it")
    args = ap.parse_args()
    out = args.out or os.path.join(args.testenv, "kubeconfig-chart-" + args.namespace)
    ident = ChartIdentity(args.kubectl, args.helm, args.testenv, args.namespace, args.source_dir,
                          args.cloud_provider, set_values=args.set_values, kubeconfig_path=out)
    if args.delete:
        ident.objects = render_chart(args.helm, args.source_dir, ident.release, args.namespace,
                                     (), ident.set_values)
        ident.applied = [o for o in ident.objects if o.get("kind") in IDENTITY_KINDS]
        ident.delete()
        if os.path.exists(out):
            os.unlink(out)
        return 0
    ident.create()
    print(ident.kubeconfig)
    return 0


if __name__ == "__main__":
    sys.exit(main())
