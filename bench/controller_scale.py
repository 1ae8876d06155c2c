#!/usr/bin/env python3
"""`nodesmith controller` in a large cluster: its CPU and memory with the cluster's Nodes and Pods
present (the load comes from `bench/kube_sync --load-only`: 10,000 Nodes and 150,000 bound Pods
by default), measured from /proc while it

  1. starts: exec -> /readyz (its informers synced); CPU, peak RSS and RSS once ready;
  2. idles for --idle seconds with nothing pending: CPU, RSS, API requests;
  3. answers a burst of --pods pending pods (1 CPU each) that only a new node may take
     (they select the NodePool's template label): time to every pod on a NodeClaim, CPU, RSS;
  4. idles again for --after seconds with the new NodeClaims (their Nodes never become Ready:
     kwok is not running, so nothing is consolidated): CPU and RSS.

The API server's and etcd's CPU over each phase are read from /proc too.

Usage: controller_scale.py NODESMITH TESTENV_DIR SOURCE_DIR [--idle S] [--pods N] [--after S]
The control plane must be up (scripts/testenv/up TESTENV_DIR) and loaded; kube-scheduler must
run (nodesmith plans a pod once the scheduler has marked it unschedulable)."""
import argparse
import json
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from controller_env import Controller, Testenv, kwok_node_class, node_pool  # noqa: E402
from controller_latency import Api, burst, requests_made  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """user + system CPU of `pid` so far (its threads included)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def memory_mib(pid):
    """(RSS, peak RSS) of `pid` in MiB."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) / 1024
    return out["VmRSS"], out["VmHWM"]


def testenv_pid(testenv_dir, component):
    with open(os.path.join(testenv_dir, "pids", component + ".pid")) as f:
        return int(f.read().strip())


class Phase:
    """CPU of nodesmith, the API server and etcd between start() and stop(), and nodesmith's
    wall time and RSS."""

    def __init__(self, name, pids):
        self.name, self.pids = name, pids

    def start(self):
        self.t0 = time.monotonic()
        self.cpu0 = {k: cpu_seconds(p) for k, p in self.pids.items()}
        return self

    def stop(self, extra=""):
        self.wall = time.monotonic() - self.t0
        self.cpu = {k: cpu_seconds(p) - self.cpu0[k] for k, p in self.pids.items()}
        self.rss, self.peak = memory_mib(self.pids["nodesmith"])
        print("%-8s %7.1f s wall | nodesmith %6.1f s CPU (%4.1f %%), RSS %5.0f MiB, peak %5.0f MiB"
              " | kube-apiserver %6.1f s CPU, etcd %5.1f s CPU%s" %
              (self.name, self.wall, self.cpu["nodesmith"],
               100 * self.cpu["nodesmith"] / max(self.wall, 1e-9), self.rss, self.peak,
               self.cpu["kube-apiserver"], self.cpu["etcd"], extra), flush=True)
        return self


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodesmith")
    ap.add_argument("testenv_dir")
    ap.add_argument("source_dir")
    ap.add_argument("--idle", type=float, default=300)
    ap.add_argument("--pods", type=int, default=1000)
    ap.add_argument("--after", type=float, default=120)
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args()

    env = Testenv(args.testenv_dir, args.source_dir,
                  os.path.join(args.source_dir, "..", "shared", "data"))
    api = Api(args.testenv_dir)
    nodes = api.request("GET", "/api/v1/nodes?limit=1")
    pods = api.request("GET", "/api/v1/pods?limit=1")
    print("cluster: %s Nodes, %s Pods present" %
          (1 + nodes["metadata"].get("remainingItemCount", 0) if nodes["items"] else 0,
           1 + pods["metadata"].get("remainingItemCount", 0) if pods["items"] else 0))
    env.clean_cluster_scoped()
    env.install_crds(reference=False)
    # The controller manager need not run (at this size it holds gigabytes): the namespace's
    # default ServiceAccount, which pods name, is created here if nothing else has.
    ns = "scale-%d" % os.getpid()
    env.kubectl("create", "namespace", ns)
    env.kubectl("create", "serviceaccount", "default", "-n", ns, check=False)
    env.apply(kwok_node_class())
    label = {"bench.nodesmith.io/scale": "burst"}
    env.apply(node_pool(name="scale", consolidate_after="Never", policy="WhenEmpty",
                        labels=label))
    controller = Controller(env, args.nodesmith, ns, extra_env={"LOG_LEVEL": "info"})
    pids = {"nodesmith": controller.process.pid,
            "kube-apiserver": testenv_pid(args.testenv_dir, "kube-apiserver"),
            "etcd": testenv_pid(args.testenv_dir, "etcd")}
    figures = {}
    try:
        start = Phase("start", pids).start()
        controller.wait_ready(timeout=900)
        figures["start"] = start.stop()

        requests = requests_made(controller)
        idle = Phase("idle", pids).start()
        time.sleep(args.idle)
        sent = requests_made(controller) - requests
        figures["idle"] = idle.stop(" | %d API requests by nodesmith" % sent)

        phase = Phase("burst", pids).start()
        b = burst(api, controller, ns, args.pods, node_selector=label, timeout=900)
        figures["burst"] = phase.stop(
            " | %d pods on %d NodeClaims %.1f s after the first create (creates took %.1f s),"
            " %d API requests" % (b["planned"], b["claims"], b["took"], b["created"],
                                  b["requests"]))
        figures["burst"].result = b

        requests = requests_made(controller)
        after = Phase("after", pids).start()
        time.sleep(args.after)
        sent = requests_made(controller) - requests
        figures["after"] = after.stop(" | %d API requests by nodesmith" % sent)
    finally:
        code = controller.terminate(timeout=120)
        print("nodesmith exited with %d; log %s" % (code, controller.log_path))
        # Without the controller manager a namespace is never emptied: its pods go first.
        env.kubectl("delete", "pods", "--all", "-n", ns, "--force", "--grace-period=0",
                    check=False, timeout=600)
        env.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        env.clean_cluster_scoped()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({k: {"wall": p.wall, "cpu": p.cpu, "rss_mib": p.rss, "peak_mib": p.peak,
                           **({"burst": p.result} if hasattr(p, "result") else {})}
                       for k, p in figures.items()}, f, indent=1)


if __name__ == "__main__":
    main()
