#!/usr/bin/env python3
"""Idle CPU of `nodesmith controller` builds side by side, in a large cluster: each binary in
turn, --rounds times, starts against the same loaded control plane (as controller_scale.py's:
`bench/kube_sync --load-only`), waits for /readyz and --settle seconds, then has its CPU
(user + system, from /proc) read over --idle seconds with nothing pending, and is stopped with
SIGTERM. Alternating the binaries spreads the machine's noise over both.

Usage: controller_idle.py TESTENV_DIR SOURCE_DIR NODESMITH... [--idle S] [--settle S] [--rounds N]
The cluster gets controller_scale.py's KWOKNodeClass and NodePool `scale` (no pod selects it)."""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
sys.path.insert(0, HERE)
from controller_env import Controller, Testenv, kwok_node_class, node_pool  # noqa: E402
from controller_scale import cpu_seconds, memory_mib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("testenv_dir")
    ap.add_argument("source_dir")
    ap.add_argument("nodesmith", nargs="+")
    ap.add_argument("--idle", type=float, default=120)
    ap.add_argument("--settle", type=float, default=20)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()

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
            time.sleep(args.settle)
            before = cpu_seconds(controller.process.pid)
            time.sleep(args.idle)
            used = cpu_seconds(controller.process.pid) - before
            rss, peak = memory_mib(controller.process.pid)
            code = controller.terminate(timeout=120)
            idle[binary].append(used)
            print("round %d %s: ready in %.1f s (%.1f s CPU); idle %.0f s: %.1f s CPU (%.1f %%),"
                  " RSS %.0f MiB (peak %.0f); exit %s"
                  % (n + 1, binary, ready, ready_cpu, args.idle, used, 100 * used / args.idle,
                     rss, peak, code), flush=True)
    for binary, used in idle.items():
        print("median %s: %.2f s CPU over %.0f s idle" % (binary, statistics.median(used),
                                                          args.idle))


if __name__ == "__main__":
    main()
