#!/usr/bin/env python3
"""Idle CPU of `nodesmith controller` builds side by side, in a large cluster: each binary in
turn, --rounds times, starts against the same loaded control plane (as controller_scale.py's:
`bench/kube_sync --load-only`), waits for /readyz and --settle seconds, then has its CPU
(user + system, from /proc) read over --idle seconds with nothing pending, and is stopped with
SIGTERM. Alternating the binaries spreads the machine's noise over both.

With --churn R, the cluster is not left alone: from the settle on, R pod changes a second (an
annotation patched on one of 200 existing pods in turn, through the API server) reach the
controller as watch events, as a live cluster's pod churn does, and the figure is the CPU it
spends on them.

Usage: controller_idle.py TESTENV_DIR SOURCE_DIR NODESMITH... [--idle S] [--settle S] [--rounds N]
                          [--churn R]
The cluster gets controller_scale.py's KWOKNodeClass and NodePool `scale` (no pod selects it)."""
import argparse
import json
import os
import statistics
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
sys.path.insert(0, HERE)
from controller_env import Controller, Testenv, kwok_node_class, node_pool  # noqa: E402
from controller_scale import cpu_seconds, memory_mib  # noqa: E402
from controller_latency import Api  # noqa: E402


def churn(api, rate, stop):
    """Patches an annotation on one of 200 existing pods, `rate` times a second, until `stop`."""
    pods = [(p["metadata"]["namespace"], p["metadata"]["name"])
            for p in api.request("GET", "/api/v1/pods?limit=200")["items"]]
    if not pods:
        raise SystemExit("--churn: the cluster has no pods to change")
    n = 0
    next_at = time.monotonic()
    while not stop.is_set():
        ns, name = pods[n % len(pods)]
        patch = {"metadata": {"annotations": {"bench.nodesmith.io/churn": str(n)}}}
        data = json.dumps(patch).encode()
        req = urllib.request.Request(api.server + "/api/v1/namespaces/%s/pods/%s" % (ns, name),
                                     data=data, method="PATCH",
                                     headers={"Content-Type": "application/merge-patch+json"})
        with urllib.request.urlopen(req, context=api.ctx, timeout=60) as r:
            r.read()
        n += 1
        next_at += 1.0 / rate
        stop.wait(max(0.0, next_at - time.monotonic()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("testenv_dir")
    ap.add_argument("source_dir")
    ap.add_argument("nodesmith", nargs="+")
    ap.add_argument("--idle", type=float, default=120)
    ap.add_argument("--settle", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--churn", type=float, default=0, help="pod changes a second (0: none)")
    args = ap.parse_args()
    api = Api(args.testenv_dir) if args.churn > 0 else None

    env = Testenv(args.testenv_dir, args.source_dir,
                  os.path.join(args.source_dir, "..", "shared", "data"))
    env.install_crds(reference=False)
    env.apply(kwok_node_class())
    env.apply(node_pool(name="scale", consolidate_after="Never", policy="WhenEmpty",
                        labels={"bench.nodesmith.io/scale": "burst"}))
    idle = {b: [] for b in args.nodesmith}
    for n in range(args.rounds):
        for binary in args.nodesmith:
            controller = Controller(env, binary, "default", extra_env={"LOG_LEVEL": "info"})
            started = time.monotonic()
            controller.wait_ready(timeout=900)
            ready, ready_cpu = time.monotonic() - started, cpu_seconds(controller.process.pid)
            stop = threading.Event()
            if api is not None:
                changes = threading.Thread(target=churn, args=(api, args.churn, stop), daemon=True)
                changes.start()
            time.sleep(args.settle)
            before = cpu_seconds(controller.process.pid)
            time.sleep(args.idle)
            used = cpu_seconds(controller.process.pid) - before
            stop.set()
            if api is not None:
                changes.join()
            rss, peak = memory_mib(controller.process.pid)
            code = controller.terminate(timeout=120)
            idle[binary].append(used)
            print("round %d %s: ready in %.1f s (%.1f s CPU); %s %.0f s: %.1f s CPU (%.1f %%),"
                  " RSS %.0f MiB (peak %.0f); exit %s"
                  % (n + 1, binary, ready, ready_cpu,
                     "%g pod changes/s for" % args.churn if api else "idle", args.idle, used,
                     100 * used / args.idle,
                     rss, peak, code), flush=True)
    for binary, used in idle.items():
        print("median %s: %.2f s CPU over %.0f s %s" % (binary, statistics.median(used), args.idle,
                                                       "of churn" if api else "idle"))


if __name__ == "__main__":
    main()
