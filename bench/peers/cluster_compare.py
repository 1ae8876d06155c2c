#!/usr/bin/env python3
"""nodesmith and Karpenter's KWOK provider, each in turn on a fresh test control plane
(scripts/testenv/up), with the same instance types (Karpenter's kwok catalog, which nodesmith's
`kwok` provider embeds), the same CRDs (Karpenter's own, from its module source), the same
KWOKNodeClass and NodePool, and the same workload:

  1. burst: Deployments of mixed shapes go from 0 to --pods replicas at once (a part with a
     zone topology spread, a part with hostname anti-affinity); the clock stops when every pod
     is Running;
  2. scale-in: every Deployment to half; the clock stops when consolidation has settled (no
     Node or NodeClaim created or deleted for --quiet seconds);
  3. drift: a NodePool template label changes; the clock stops when every Node carries the new
     label and nothing has changed for --quiet seconds.

Both run as the same client identity (a certificate made for the run, CN nodesmith-bench-autoscaler
in system:masters) and the API server audits exactly that user (level Metadata), so "API requests"
is what the server received from the autoscaler, by the same rule for both. CPU is utime+stime and
peak RSS is VmHWM, from /proc of the autoscaler's process just before it is stopped. $/h is the sum
over Nodes of the price of their instance type's offering (capacity type, zone) in Karpenter's
kwok/cloudprovider/instance_types.json, the one source both catalogs come from.

Prints a markdown report (docs/PERFORMANCE.md, "Side by side with Karpenter in one cluster").
--check (the ctest) runs only the burst, untimed, and fails unless each autoscaler got every pod
Running on nodes it launched.

Usage: cluster_compare.py NODESMITH SOURCE_DIR WORK_DIR [--pods N] [--only nodesmith|karpenter]"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "e2e"))
sys.path.insert(0, os.path.join(HERE, ".."))
from controller_env import Controller, Testenv, free_port, kwok_node_class, wait_for  # noqa: E402
from controller_latency import Api  # noqa: E402

SKIP = 77  # ctest SKIP_RETURN_CODE: Karpenter's kwok binary is not built
USER = "nodesmith-bench-autoscaler"
NS = "cluster-compare"
LABEL = "bench.nodesmith.io/generation"
AUDIT_POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: [%s]
- level: None
""" % USER


def testenv_value(source_dir, expr):
    return subprocess.run(["bash", "-c", 'source "$0/scripts/testenv/versions.sh" && ' + expr,
                           source_dir], capture_output=True, text=True, check=True).stdout.strip()


# ---- the workload ------------------------------------------------------------------------------
def shapes(total):
    """(name, replicas, cpu, memory, constraint): the mix of the burst."""
    mix = [("spread", 0.30, "500m", "1Gi", "zone"), ("small", 0.30, "250m", "512Mi", None),
           ("medium", 0.25, "1", "2Gi", None), ("large", 0.125, "2", "6Gi", None),
           ("solo", 0.025, "500m", "1Gi", "hostname")]
    out, left = [], total
    for i, (name, frac, cpu, mem, c) in enumerate(mix):
        n = left if i == len(mix) - 1 else max(1, round(total * frac))
        left -= n
        out.append((name, n, cpu, mem, c))
    return out


def deployment(name, replicas, cpu, mem, constraint):
    labels = {"app": name, "bench": "cluster-compare"}
    spec = {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                            "resources": {"requests": {"cpu": cpu, "memory": mem}}}],
            "terminationGracePeriodSeconds": 0}
    if constraint == "zone":
        spec["topologySpreadConstraints"] = [{
            "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": name}}}]
    elif constraint == "hostname":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
            "topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": name}}}]}}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": labels}, "spec": spec}}}


def node_pool(generation):
    return json.dumps({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
        "spec": {
            "template": {
                "metadata": {"labels": {LABEL: str(generation)}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.kwok.sh", "kind": "KWOKNodeClass",
                                     "name": "default"},
                    "requirements": [
                        {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In",
                         "values": ["on-demand"]}]}},
            "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized",
                           "consolidateAfter": "15s", "budgets": [{"nodes": "20%"}]}}})


# ---- the cluster ---------------------------------------------------------------------------------
class Cluster:
    """A fresh control plane in `dir` with the audit policy, the run's client identity and the
    CRDs of `crd_dirs` (Karpenter's own here; nodesmith's for bench/load_run.py); stopped by
    close()."""

    def __init__(self, source_dir, work_dir, crd_dirs):
        self.source_dir, self.dir = source_dir, work_dir
        os.makedirs(work_dir, exist_ok=True)
        policy = os.path.join(work_dir, "audit-policy.yaml")
        with open(policy, "w") as f:
            f.write(AUDIT_POLICY)
        self.script("down")
        subprocess.run([os.path.join(source_dir, "scripts/testenv/up"), work_dir], check=True,
                       stdout=subprocess.DEVNULL, timeout=180,
                       env=dict(os.environ, NODESMITH_TESTENV_AUDIT_POLICY=policy))
        self.env = Testenv(work_dir, source_dir, None)
        self.api = Api(work_dir)
        self.kubeconfig = self.identity()
        for crds in crd_dirs:
            self.env.kubectl("apply", "--server-side", "-f", crds)
        self.env.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                         "crd/nodepools.karpenter.sh", "crd/nodeclaims.karpenter.sh",
                         "crd/kwoknodeclasses.karpenter.kwok.sh")
        self.env.kubectl("create", "namespace", NS)
        wait_for(lambda: self.env.kubectl("get", "serviceaccount", "default", "-n", NS,
                                          check=False), 60, "default ServiceAccount")

    def script(self, name):
        subprocess.run([os.path.join(self.source_dir, "scripts/testenv", name), self.dir],
                       check=True, stdout=subprocess.DEVNULL, timeout=120)

    def identity(self):
        pki = os.path.join(self.dir, "pki")
        key, crt, csr = (os.path.join(pki, "autoscaler." + e) for e in ("key", "crt", "csr"))
        def run(*a):
            subprocess.run(a, check=True, capture_output=True, timeout=60)
        run("openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", key)
        run("openssl", "req", "-new", "-key", key, "-out", csr,
            "-subj", "/O=system:masters/CN=" + USER)
        run("openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(pki, "ca.crt"),
            "-CAkey", os.path.join(pki, "ca.key"), "-CAcreateserial", "-days", "2", "-out", crt)
        path = os.path.join(self.dir, "kubeconfig-autoscaler")
        with open(os.path.join(self.dir, "kubeconfig")) as f:
            text = f.read()
        text = text.replace(os.path.join(pki, "admin.crt"), crt).replace(
            os.path.join(pki, "admin.key"), key)
        with open(path, "w") as f:
            f.write(text)
        return path

    def setup_pool(self):
        self.env.apply(kwok_node_class())
        # Karpenter's kwok provider has no controller that sets the KWOKNodeClass's status, and
        # Karpenter does not provision for a NodePool whose node class is not Ready: the bench
        # marks it Ready, for both autoscalers alike.
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.env.kubectl("patch", "kwoknodeclass", "default", "--subresource=status",
                         "--type=merge", "-p", json.dumps({"status": {"conditions": [{
                             "type": "Ready", "status": "True", "reason": "Ready", "message": "",
                             "lastTransitionTime": now, "observedGeneration": 1}]}}))
        self.env.apply(node_pool(1))

    def pods(self):
        return self.api.request("GET", "/api/v1/namespaces/%s/pods?labelSelector=bench%%3Dcluster-compare" % NS)["items"]

    def nodes(self):
        return self.api.request("GET", "/api/v1/nodes")["items"]

    def nodeclaims(self):
        return self.api.request("GET", "/apis/karpenter.sh/v1/nodeclaims")["items"]

    def audit(self):
        """The audited requests: (time received, verb, resource, object name)."""
        out = []
        with open(os.path.join(self.dir, "logs", "audit.log")) as f:
            for line in f:
                e = json.loads(line)
                if e.get("stage") in ("ResponseComplete", "Panic"):
                    ref = e.get("objectRef") or {}
                    out.append((parse_time(e["requestReceivedTimestamp"]), e["verb"],
                                ref.get("resource", ""), ref.get("name", "")))
        return out

    def close(self):
        self.script("down")


def parse_time(stamp):
    return datetime.datetime.strptime(stamp[:26].rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(
        tzinfo=datetime.timezone.utc).timestamp()


# ---- the autoscalers -------------------------------------------------------------------------------
class Karpenter:
    """Karpenter's kwok binary, configured as its Helm chart configures it (kwok/charts)."""

    def __init__(self, binary, cluster, log_path):
        self.log_file = open(log_path, "w")
        env = dict(os.environ, KUBECONFIG=cluster.kubeconfig, SYSTEM_NAMESPACE=NS,
                   LEADER_ELECTION_NAMESPACE=NS, METRICS_PORT=str(free_port()),
                   HEALTH_PROBE_PORT=str(free_port()), LOG_LEVEL="info")
        self.process = subprocess.Popen([binary], stdout=self.log_file, stderr=subprocess.STDOUT,
                                        env=env)

    def tail(self, n=30):
        with open(self.log_file.name) as f:
            return "".join(f.readlines()[-n:])

    def terminate(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.log_file.close()


def proc_usage(pid):
    """(CPU seconds utime+stime, peak RSS in MiB) of a live process."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    hwm = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                hwm = int(line.split()[1]) / 1024
    return cpu, hwm


class Prices:
    def __init__(self, karpenter_module):
        with open(os.path.join(karpenter_module, "kwok/cloudprovider/instance_types.json")) as f:
            types = json.load(f)
        self.price = {}
        for t in types:
            for o in t["offerings"]:
                req = {r["key"]: r["values"][0] for r in o["Requirements"]}
                self.price[(t["name"], req["karpenter.sh/capacity-type"],
                            req["topology.kubernetes.io/zone"])] = o["Price"]

    def of(self, nodes):
        total = 0.0
        for n in nodes:
            l = n["metadata"]["labels"]
            total += self.price[(l["node.kubernetes.io/instance-type"],
                                 l["karpenter.sh/capacity-type"], l["topology.kubernetes.io/zone"])]
        return total


# ---- one run -------------------------------------------------------------------------------------
def launched(nodes):
    return [n for n in nodes if n["spec"].get("providerID", "").startswith("kwok://")]


def all_running(cluster, want):
    pods = cluster.pods()
    running = [p for p in pods if p["status"].get("phase") == "Running"
               and not p["metadata"].get("deletionTimestamp")]
    return len(running) == want and len(pods) == want


def settle(cluster, since, quiet, timeout, want, done=lambda nodes: True):
    """Waits until every wanted pod is Running, `done(nodes)` holds and the set of Nodes and
    NodeClaims has not changed for `quiet` seconds; the time of the last change, or None when
    that did not happen within `timeout` (the report says so rather than losing the run)."""
    last_change, last_state = since, None
    deadline = time.time() + timeout
    while time.time() < deadline:
        nodes = cluster.nodes()
        state = (frozenset(n["metadata"]["name"] for n in nodes
                           if not n["metadata"].get("deletionTimestamp")),
                 frozenset(c["metadata"]["name"] for c in cluster.nodeclaims()
                           if not c["metadata"].get("deletionTimestamp")),
                 len(nodes))
        now = time.time()
        if state != last_state:
            last_state, last_change = state, now
        ok = all_running(cluster, want) and done(nodes)
        if not ok:
            last_change = max(last_change, now)
        elif now - last_change >= quiet:
            return last_change
        time.sleep(2)
    return None


def progress(r):
    """Each phase's figures as they come, so a run cut short still tells what it measured."""
    print("%s: %s" % (r["name"], json.dumps({k: v for k, v in r.items() if not k.endswith("_t")})),
          file=sys.stderr, flush=True)


def run_one(name, args, cluster, prices):
    cluster.setup_pool()
    if name == "nodesmith":
        proc = Controller(cluster.env, args.nodesmith, NS, kubeconfig=cluster.kubeconfig,
                          extra_env={"LOG_LEVEL": "info"})
        pid = proc.process.pid
        proc.wait_for_log("starting controllers", timeout=120)
    else:
        proc = Karpenter(args.karpenter, cluster, os.path.join(args.work_dir, "karpenter.log"))
        pid = proc.process.pid
        time.sleep(3)
        if proc.process.poll() is not None:
            raise AssertionError("karpenter exited: " + proc.tail())
    r = {"name": name}
    try:
        mix = shapes(args.pods)
        t0 = time.time()
        for d in mix:
            cluster.api.request("POST", "/apis/apps/v1/namespaces/%s/deployments" % NS,
                                deployment(*d))
        wait_for(lambda: all_running(cluster, args.pods), args.timeout,
                 "%d pods Running under %s" % (args.pods, name), interval=1)
        r["burst_s"] = time.time() - t0
        nodes = launched(cluster.nodes())
        r["burst_nodes"], r["burst_cost"] = len(nodes), prices.of(nodes)
        progress(r)
        if args.check:
            if not nodes:
                raise AssertionError("%s: pods Running but on no node it launched" % name)
            return r
        # Scale-in: every Deployment to half.
        t1 = time.time()
        half = 0
        for (dname, n, *_rest) in mix:
            cluster.env.kubectl("scale", "deployment", dname, "-n", NS, "--replicas=%d" % (n // 2))
            half += n // 2
        end = settle(cluster, t1, args.quiet, args.timeout, half)
        nodes = launched(cluster.nodes())
        r.update(scale_s=None if end is None else end - t1, scale_nodes=len(nodes), scale_cost=prices.of(nodes), scale_t=(t1, end or time.time()))
        progress(r)
        # Drift: a template label change.
        t2 = time.time()
        cluster.env.apply(node_pool(2))
        end = settle(cluster, t2, args.quiet, args.timeout, half,
                     lambda ns: all(n["metadata"].get("labels", {}).get(LABEL) == "2"
                                    for n in launched(ns)))
        nodes = launched(cluster.nodes())
        r.update(drift_s=None if end is None else end - t2, drift_nodes=len(nodes), drift_cost=prices.of(nodes), drift_t=(t2, end or time.time()))
    finally:
        if proc.process.poll() is None:
            r["cpu_s"], r["rss_mib"] = proc_usage(pid)
        proc.terminate()
    audit = cluster.audit()
    r["requests"] = len(audit)
    for phase in ("scale", "drift"):
        if phase + "_t" in r:
            a, b = r[phase + "_t"]
            r[phase + "_deletes"] = sum(1 for t, verb, res, _ in audit if a <= t <= b
                                        and verb == "delete" and res in ("nodes", "nodeclaims"))
    return r


# ---- the report ----------------------------------------------------------------------------------
def versions(args):
    ks = testenv_value(args.source_dir, 'echo "$KUBERNETES_VERSION $KWOK_VERSION $KARPENTER_VERSION"').split()
    rev = subprocess.run(["git", "-C", args.source_dir, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    return "nodesmith %s, Karpenter %s (sigs.k8s.io/karpenter/kwok), Kubernetes %s, kwok %s" % (
        rev, ks[2], ks[0], ks[1])


def report(args, results, load_before, load_after):
    print("Command: `make bench-cluster` (`bench/peers/cluster_compare.py build/nodesmith . %s "
          "--pods %d --quiet %d`)  " % (args.work_dir, args.pods, args.quiet))
    print("Versions: %s  " % versions(args))
    print("Machine: %s, %d cores; load average (1/5/15 min) before %s, after %s\n" %
          (platform.machine(), os.cpu_count(), load_before, load_after))
    def row(cells):
        print("| " + " | ".join(cells) + " |")
    names = [r["name"] for r in results]
    row(["", *names])
    row(["---"] * (len(names) + 1))
    def f(key, fmt):
        return ["—" if key not in r else "not settled in %d s" % args.timeout if r[key] is None
                else fmt % r[key] for r in results]
    row(["burst: %d pods → all Running" % args.pods, *f("burst_s", "%.1f s")])
    row(["burst: nodes", *f("burst_nodes", "%d")])
    row(["burst: $/h", *f("burst_cost", "%.3f")])
    row(["scale-in to half: settled after", *f("scale_s", "%.1f s")])
    row(["scale-in: node/NodeClaim deletions", *f("scale_deletes", "%d")])
    row(["scale-in: nodes, $/h after", *["%d, %.3f" % (r["scale_nodes"], r["scale_cost"])
                                         if "scale_nodes" in r else "—" for r in results]])
    row(["drift: settled after", *f("drift_s", "%.1f s")])
    row(["drift: node/NodeClaim deletions", *f("drift_deletes", "%d")])
    row(["drift: nodes, $/h after", *["%d, %.3f" % (r["drift_nodes"], r["drift_cost"])
                                      if "drift_nodes" in r else "—" for r in results]])
    row(["API requests (audit, whole run)", *f("requests", "%d")])
    row(["controller CPU (utime+stime)", *f("cpu_s", "%.1f s")])
    row(["controller peak RSS (VmHWM)", *f("rss_mib", "%.0f MiB")])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodesmith")
    ap.add_argument("source_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--quiet", type=int, default=90, help="seconds without change = settled")
    ap.add_argument("--timeout", type=int, default=700, help="per phase")
    ap.add_argument("--only", choices=["nodesmith", "karpenter"])
    ap.add_argument("--check", action="store_true", help="the burst only, untimed (ctest)")
    ap.add_argument("--report-from", nargs="+", metavar="RESULT_JSON",
                    help="print the report from the WORK_DIR/<name>/result.json of earlier runs")
    args = ap.parse_args()
    args.source_dir = os.path.abspath(args.source_dir)
    args.work_dir = os.path.abspath(args.work_dir)
    args.karpenter = os.path.join(testenv_value(args.source_dir, "karpenter_bin_dir"), "karpenter-kwok")
    module = testenv_value(args.source_dir, "karpenter_module_dir")
    if not os.access(args.karpenter, os.X_OK):
        print("Karpenter's kwok provider is not built (scripts/testenv/build)")
        return SKIP
    if not module or not os.path.isdir(module):
        raise SystemExit("%s is built but its module source (karpenter_module_dir) is missing; "
                         "run scripts/testenv/build" % args.karpenter)
    if args.report_from:
        results = []
        for path in args.report_from:
            with open(path) as f:
                results.append(json.load(f))
        report(args, results, " / ".join(r["load_before"] for r in results),
               " / ".join(r["load_after"] for r in results))
        return 0
    prices = Prices(module)
    load_before = " ".join(open("/proc/loadavg").read().split()[:3])
    results = []
    for name in ("nodesmith", "karpenter"):
        if args.only and args.only != name:
            continue
        cluster = Cluster(args.source_dir, os.path.join(args.work_dir, name),
                          [os.path.join(module, d) for d in ("pkg/apis/crds", "kwok/apis/crds")])
        try:
            r = run_one(name, args, cluster, prices)
        finally:
            cluster.close()
        progress(r)
        r["load_before"], r["load_after"] = load_before, " ".join(open("/proc/loadavg").read().split()[:3])
        with open(os.path.join(args.work_dir, name, "result.json"), "w") as f:
            json.dump({k: v for k, v in r.items() if not k.endswith("_t")}, f)
        results.append(r)
    load_after = " ".join(open("/proc/loadavg").read().split()[:3])
    if not args.check:
        report(args, results, load_before, load_after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
