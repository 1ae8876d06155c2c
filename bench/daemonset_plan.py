#!/usr/bin/env python3
"""`nodesmith plan` with DaemonSets: the workload behind the DaemonSet-overhead figure in
docs/PERFORMANCE.md.

The cluster: the seed walkthrough's Provisioner (its CPU limit raised so that nothing is held back
by it), a Deployment of --pods pods of mixed shapes, and 20 DaemonSets in four kinds of five:
  - plain agents that run on every node;
  - arm64-only agents (a required node-affinity term on kubernetes.io/arch);
  - agents with two ORed required terms (arm64, or the c instance category), so that the overhead
    differs between instance types;
  - agents that take a host port (9100 + i), which pods of the Deployment do not ask for.
DaemonSet overhead is counted per NodePool and instance type, so an arm-only agent takes no room on
amd64 types. The plan is solved --runs times per binary; with --baseline the two binaries alternate
run by run, so both see the same load.

Usage: daemonset_plan.py NODESMITH [--baseline OTHER_NODESMITH] [--pods 5000] [--runs 11]
Prints one line per binary: NodeClaims, $/h, and the median / min / max of summary.solveSeconds
and of the wall time of the whole command."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WALKTHROUGH = os.path.join(HERE, "..", "examples", "seed-walkthrough", "provisioner.yaml")

# cpu (millicores), memory (MiB): the Deployment's pods cycle through these shapes.
POD_SHAPES = [(250, 512), (500, 1024), (1000, 2048), (2000, 4096), (750, 3072)]


def provisioner():
    with open(WALKTHROUGH) as f:
        text = f.read()
    if "cpu: 1000" not in text:
        sys.exit(f"daemonset_plan.py: {WALKTHROUGH} no longer has 'cpu: 1000' as its limit")
    return text.replace("cpu: 1000", "cpu: 100000")


def daemonset(name, affinity_terms=None, host_port=None):
    container = {"name": "agent", "image": "agent:1",
                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}
    if host_port is not None:
        container["ports"] = [{"containerPort": host_port, "hostPort": host_port, "protocol": "TCP"}]
    spec = {"containers": [container]}
    if affinity_terms:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": affinity_terms}}}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


def term(key, *values):
    return {"matchExpressions": [{"key": key, "operator": "In", "values": list(values)}]}


def daemonsets():
    out = []
    for i in range(5):
        out.append(daemonset(f"plain-{i}"))
        out.append(daemonset(f"arm-{i}", [term("kubernetes.io/arch", "arm64")]))
        out.append(daemonset(f"ored-{i}", [term("kubernetes.io/arch", "arm64"),
                                           term("karpenter.k8s.aws/instance-category", "c")]))
        out.append(daemonset(f"port-{i}", host_port=9100 + i))
    return out


def deployments(pods):
    out = []
    per_shape = pods // len(POD_SHAPES)
    for i, (cpu, mem) in enumerate(POD_SHAPES):
        replicas = per_shape + (pods - per_shape * len(POD_SHAPES) if i == 0 else 0)
        name = f"app-{i}"
        out.append({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": name, "namespace": "default"},
                    "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                             "template": {"metadata": {"labels": {"app": name}},
                                          "spec": {"containers": [{
                                              "name": "app", "image": "app:1",
                                              "resources": {"requests": {
                                                  "cpu": f"{cpu}m", "memory": f"{mem}Mi"}}}]}}}})
    return out


def write_cluster(directory, pods):
    with open(os.path.join(directory, "provisioner.yaml"), "w") as f:
        f.write(provisioner())
    # JSON is YAML: one document per object keeps the files readable by kubectl too.
    with open(os.path.join(directory, "workloads.yaml"), "w") as f:
        f.write("\n---\n".join(json.dumps(o) for o in daemonsets() + deployments(pods)))


def plan_once(binary, directory):
    start = time.monotonic()
    out = subprocess.run([binary, "plan", "-f", directory, "-o", "json"], check=True,
                         capture_output=True, text=True).stdout
    wall = time.monotonic() - start
    summary = json.loads(out)["summary"]
    if summary["scheduled"] != summary["pendingPods"]:
        sys.exit(f"daemonset_plan.py: {binary} left {summary['pendingPods'] - summary['scheduled']} "
                 "pods unscheduled")
    return summary, wall


def spread(values):
    return f"{statistics.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("nodesmith")
    parser.add_argument("--baseline", help="a second nodesmith binary, run alternately")
    parser.add_argument("--pods", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args()
    binaries = [args.nodesmith] + ([args.baseline] if args.baseline else [])
    with tempfile.TemporaryDirectory() as directory:
        write_cluster(directory, args.pods)
        results = {b: [] for b in binaries}
        for _ in range(args.runs):
            for b in binaries:
                results[b].append(plan_once(b, directory))
    print(f"{args.pods} pods, 20 DaemonSets, {args.runs} runs, load average "
          f"{os.getloadavg()[0]:.1f}")
    print(f"{'binary':<40} {'claims':>6} {'$/h':>9}  {'solveSeconds median (min-max)':<32} "
          "wall s median (min-max)")
    for b in binaries:
        summaries = [s for s, _ in results[b]]
        prices = {round(s["pricePerHour"], 4) for s in summaries}
        claims = {s["newNodeClaims"] for s in summaries}
        if len(prices) != 1 or len(claims) != 1:
            sys.exit(f"daemonset_plan.py: {b} planned differently across runs: {claims} {prices}")
        print(f"{b:<40} {claims.pop():>6} {prices.pop():>9.2f}  "
              f"{spread([s['solveSeconds'] for s in summaries]):<32} "
              f"{spread([w for _, w in results[b]])}")


if __name__ == "__main__":
    main()
