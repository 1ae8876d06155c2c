"""What the controller e2e tests share: the test control plane (scripts/testenv), kubectl, a
`nodesmith controller` process with its JSON log, and waiting for the cluster to reach a state.

Tests run against the shared control plane one at a time (ctest RESOURCE_LOCK testenv); each
works in a namespace of its own and removes the cluster-scoped objects it made."""
import json
import os
import random
import signal
import socket
import string
import subprocess
import tempfile
import time
import urllib.request


class Testenv:
    def __init__(self, testenv_dir, source_dir, shared_data):
        self.dir = testenv_dir
        self.source_dir = source_dir
        self.shared_data = shared_data
        self.kubeconfig = os.path.join(testenv_dir, "kubeconfig")
        path = None
        with open(os.path.join(testenv_dir, "env")) as f:
            for line in f:
                if line.startswith("export PATH="):
                    path = line[len("export PATH="):].strip().strip("\"'").split(":$PATH")[0]
        if path is None:
            raise RuntimeError("no PATH in %s/env" % testenv_dir)
        self.env = dict(os.environ, KUBECONFIG=self.kubeconfig,
                        PATH=path + ":" + os.environ["PATH"])

    def which(self, program):
        for d in self.env["PATH"].split(":"):
            if os.access(os.path.join(d, program), os.X_OK):
                return os.path.join(d, program)
        raise AssertionError("%s not found on the test PATH" % program)

    def kubectl(self, *args, stdin=None, check=True, timeout=120):
        p = subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True,
                           env=self.env, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s: %s" % (" ".join(args), p.stderr.strip()))
        return p.stdout

    def apply(self, manifest, namespace=None):
        args = ["apply", "-f", "-"] + (["-n", namespace] if namespace else [])
        return self.kubectl(*args, stdin=manifest)

    def get_json(self, *args):
        return json.loads(self.kubectl("get", "-o", "json", *args))

    def items(self, *args):
        return self.get_json(*args)["items"]

    def install_crds(self, reference=True):
        """Karpenter's own CRDs (what a migrating cluster has) or nodesmith's; the KWOKNodeClass
        CRD always comes from nodesmith."""
        crds = os.path.join(self.source_dir, "deploy", "crds")
        if reference:
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f",
                         os.path.join(self.shared_data, "karpenter-crds"))
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f",
                         os.path.join(crds, "karpenter.kwok.sh_kwoknodeclasses.yaml"))
        else:
            self.kubectl("apply", "--server-side", "--force-conflicts", "-f", crds)
        self.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                     "crd/nodepools.karpenter.sh", "crd/nodeclaims.karpenter.sh",
                     "crd/kwoknodeclasses.karpenter.kwok.sh")

    def create_namespace(self, prefix):
        name = prefix + "-" + "".join(random.choice(string.ascii_lowercase) for _ in range(5))
        self.kubectl("create", "namespace", name)
        wait_for(lambda: self.kubectl("get", "serviceaccount", "default", "-n", name,
                                      check=False) != "", 30, "default ServiceAccount")
        return name

    def remove_finalizers(self, kind):
        listed = self.kubectl("get", "-o", "json", kind, check=False)
        if not listed:
            return  # the kind is not served (no CRD yet)
        for o in json.loads(listed)["items"]:
            if o["metadata"].get("finalizers"):
                self.kubectl("patch", kind, o["metadata"]["name"], "--type=merge", "-p",
                             '{"metadata":{"finalizers":null}}', check=False)

    def clean_cluster_scoped(self, kinds=("nodepools", "nodeclaims", "kwoknodeclasses"),
                             provider_prefix="kwok://"):
        """Leaves none of `kinds` and no Node whose providerID starts with `provider_prefix`
        behind for the next test (by default: the kwok provider's objects)."""
        for kind in kinds:
            self.kubectl("delete", kind, "--all", "--wait=false", check=False)
            self.remove_finalizers(kind)
        for node in self.items("nodes"):
            if node["spec"].get("providerID", "").startswith(provider_prefix):
                self.kubectl("delete", "node", node["metadata"]["name"], "--wait=false",
                             check=False)
        self.remove_finalizers("nodes")


def test_failed(case):
    """Whether the unittest TestCase `case`, in its tearDown, has failed or raised."""
    result = getattr(case._outcome, "result", None)
    failed = result is not None and any(
        t is case for t, _ in list(result.failures) + list(result.errors))
    return failed or getattr(case._outcome, "success", True) is False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout, what, interval=0.2):
    """Calls `predicate` until it returns something truthy; that value. Fails naming `what`."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except AssertionError as e:
            last_error = e
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s%s" %
                         (timeout, what, "" if last_error is None else ": %s" % last_error))


class Controller:
    """One `nodesmith controller` process, its JSON log in a file."""

    def __init__(self, testenv, binary, namespace, extra_env=None, args=(), kubeconfig=None):
        self.testenv = testenv
        self.metrics_port = free_port()
        self.health_port = free_port()
        self.log_path = tempfile.mktemp(prefix="nodesmith-controller-", suffix=".log")
        env = dict(testenv.env)
        env.update({
            "KUBECONFIG": kubeconfig or testenv.kubeconfig,
            "CLOUD_PROVIDER": "kwok",
            "LEADER_ELECTION_NAMESPACE": namespace,
            "METRICS_PORT": str(self.metrics_port),
            "HEALTH_PROBE_PORT": str(self.health_port),
            "LOG_LEVEL": "debug",
        })
        env.update(extra_env or {})
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen([binary, "controller", *args], stdout=self.log_file,
                                        stderr=subprocess.STDOUT, env=env)

    def lines(self):
        """The log so far, each JSON line parsed; other lines as {"raw": text}."""
        out = []
        with open(self.log_path) as f:
            for text in f:
                text = text.strip()
                if not text:
                    continue
                try:
                    out.append(json.loads(text))
                except ValueError:
                    out.append({"raw": text})
        return out

    def messages(self):
        return [l.get("message") for l in self.lines()]

    def wait_for_log(self, message, timeout=60, **fields):
        def found():
            for l in self.lines():
                if l.get("message") == message and all(l.get(k) == v for k, v in fields.items()):
                    return l
            if self.process.poll() is not None:
                raise AssertionError("nodesmith exited with %s; log:\n%s" %
                                     (self.process.returncode, self.tail()))
            return None
        return wait_for(found, timeout, "log line %r" % message)

    def get(self, port, path):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, ConnectionError, socket.timeout):
            return None, ""

    def metrics(self):
        return self.get(self.metrics_port, "/metrics")[1]

    def wait_ready(self, timeout=60):
        wait_for(lambda: self.get(self.health_port, "/readyz")[0] == 200, timeout, "/readyz")

    def tail(self, n=40):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-n:])

    def terminate(self, timeout=30):
        """SIGTERM; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        finally:
            self.log_file.close()

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self.log_file.close()


def deployment(name, replicas, cpu="1", node_selector=None, tolerations=None, labels=None,
               annotations=None):
    spec = {
        "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                        "resources": {"requests": {"cpu": cpu}}}],
    }
    if node_selector:
        spec["nodeSelector"] = node_selector
    if tolerations:
        spec["tolerations"] = tolerations
    pod_meta = {"labels": dict({"app": name}, **(labels or {}))}
    if annotations:
        pod_meta["annotations"] = annotations
    return json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": pod_meta, "spec": spec}},
    })


def kwok_node_class(name="default"):
    return json.dumps({"apiVersion": "karpenter.kwok.sh/v1alpha1", "kind": "KWOKNodeClass",
                       "metadata": {"name": name}})


def node_pool(name="default", consolidate_after="10s", policy="WhenEmptyOrUnderutilized",
              taints=None, requirements=None, labels=None, budgets=None, expire_after=None):
    reqs = requirements or [
        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    ]
    template_spec = {
        "nodeClassRef": {"group": "karpenter.kwok.sh", "kind": "KWOKNodeClass",
                         "name": "default"},
        "requirements": reqs,
    }
    if taints:
        template_spec["taints"] = taints
    if expire_after:
        template_spec["expireAfter"] = expire_after
    template = {"spec": template_spec}
    if labels:
        template["metadata"] = {"labels": labels}
    disruption = {"consolidationPolicy": policy, "consolidateAfter": consolidate_after}
    if budgets is not None:
        disruption["budgets"] = budgets
    return json.dumps({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": template, "disruption": disruption},
    })
