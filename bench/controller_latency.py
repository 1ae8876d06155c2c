#!/usr/bin/env python3
"""How fast `nodesmith controller` answers pending pods on the real control plane.

  1. pod pending -> NodeClaim created: one pod at a time, `--runs` times; the clock starts when
     the API server has stored the pod and stops when the watch delivers the NodeClaim. Reported
     as p50/p99 beside the batch idle window (the goal: within the window + 50 ms).
  2. a burst: `--pods` pending pods (Deployments of 1 CPU each) -> every one nominated to a
     NodeClaim: the time, the API requests nodesmith made (from the API server's
     apiserver_request_total for user agent nodesmith) and the rate they came at.

  With --split, step 1 also says where each pod's time went: it watches the pods as well, runs
  nodesmith at LOG_LEVEL debug and reads its log (the lines carry the wall time when written),
  and prints per pod the steps from its creation: kube-scheduler marks it Unschedulable (the
  pod watch), nodesmith opens a batch ("Waiting to batch additional pods"), the batch's round
  starts ("found provisionable pod(s)"), "created nodeclaim" is logged (after the create
  returned), the NodeClaim's ADDED event arrives (may come before that log line: negative).
  Its last column names the reconciles of 5 ms or more (nodesmith's debug line "reconcile took
  long") that overlapped the step from the mark to the batch: what the runtime's one thread was
  busy with while the pod's news waited.

Usage: controller_latency.py NODESMITH TESTENV_DIR SOURCE_DIR [--runs N] [--pods N (0: no burst)] [--split]
The control plane must be up (scripts/testenv/up TESTENV_DIR)."""
import argparse
import datetime
import json
import os
import ssl
import statistics
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from controller_env import Controller, Testenv, deployment, kwok_node_class, node_pool  # noqa: E402


class Api:
    """Just enough of the REST API, with the admin certificate, for precise timing."""

    def __init__(self, testenv_dir):
        server = None
        with open(os.path.join(testenv_dir, "env")) as f:
            for line in f:
                if line.startswith("export NODESMITH_TESTENV_APISERVER="):
                    server = line.split("=", 1)[1].strip()
        self.server = server
        pki = os.path.join(testenv_dir, "pki")
        self.ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        self.ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, context=self.ctx, timeout=60) as r:
            return json.loads(r.read() or b"{}")

    def watch(self, path, on_event, stop):
        req = urllib.request.Request(self.server + path + "?watch=1&allowWatchBookmarks=false")
        with urllib.request.urlopen(req, context=self.ctx, timeout=3600) as r:
            for line in r:
                if stop.is_set():
                    return
                on_event(json.loads(line))


def percentile(values, p):
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def nodesmith_requests(env):
    """apiserver_request_total summed over nodesmith's requests (its user agent's client)."""
    text = env.kubectl("get", "--raw", "/metrics")
    total = 0.0
    for line in text.splitlines():
        if line.startswith("apiserver_request_total{") and 'component="nodesmith' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def requests_made(controller):
    """nodesmith's own count of the API requests it has sent (its /metrics)."""
    for line in controller.metrics().splitlines():
        if line.startswith("nodesmith_kube_client_requests_total"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def wait_bound(api, ns, name, timeout=60):
    deadline = time.monotonic() + timeout
    while not api.request("GET", "/api/v1/namespaces/%s/pods/%s" % (ns, name))["spec"].get("nodeName"):
        if time.monotonic() > deadline:
            raise SystemExit("pod %s not bound within %d s" % (name, timeout))
        time.sleep(0.05)


def log_time(line):
    """A log line's `time` as seconds since the epoch."""
    return datetime.datetime.strptime(line["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def unschedulable(pod):
    return any(c.get("type") == "PodScheduled" and c.get("status") == "False" and
               c.get("reason") == "Unschedulable"
               for c in pod.get("status", {}).get("conditions", []))


GO_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def go_duration(text):
    """Seconds in a Go duration string ("12.5ms", "1m30s", "950\u00b5s")."""
    total, number = 0.0, ""
    i = 0
    while i < len(text):
        if text[i].isdigit() or text[i] == ".":
            number += text[i]
            i += 1
            continue
        unit = next(u for u in sorted(GO_DURATION_UNITS, key=len, reverse=True)
                    if text.startswith(u, i))
        total += float(number) * GO_DURATION_UNITS[unit]
        number = ""
        i += len(unit)
    return total


def split(controller, ns, created, marked, claimed):
    """Per pod (name -> wall times: `created` after the API server stored it, `marked` when the
    pod watch showed it Unschedulable, `claimed` when its NodeClaim's ADDED event came), the
    steps between, with nodesmith's round start and create read from its log. Prints one row
    a pod, slowest first."""
    found, made, opened, busy = {}, {}, [], []
    for l in controller.lines():
        if l.get("message") == "reconcile took long":
            end = log_time(l)
            busy.append((end - go_duration(l["duration"]), end, l["controller"]))
        elif l.get("message") == "Waiting to batch additional pods":
            opened.append(log_time(l))
        elif l.get("message") == "found provisionable pod(s)":
            for ref in l.get("Pods", "").split(", "):
                found.setdefault(ref, log_time(l))
        elif l.get("message") == "created nodeclaim":
            for ref in l.get("pods", "").split(","):
                made.setdefault(ref, log_time(l))
    rows = []
    for name, t0 in created.items():
        ref = "%s/%s" % (ns, name)
        round_start = found.get(ref)
        # The batch this pod's round closed: the last one opened before the round (one pod at a
        # time, so the one this pod opened).
        batch = max((t for t in opened if round_start is not None and t <= round_start),
                    default=None)
        steps = [t0, marked.get(name), batch, round_start, made.get(ref), claimed.get(name)]
        if None in steps:
            print("  %s: a step was not seen (%s)" % (name, steps))
            continue
        mark, opened_at = steps[1], steps[2]
        waited_for = ", ".join("%s %.0f" % (c, (end - start) * 1e3) for start, end, c in busy
                               if start < opened_at and end > mark) or "-"
        rows.append((steps[-1] - t0, name,
                     [(b - a) * 1e3 for a, b in zip(steps, steps[1:])], waited_for))
    rows.sort(reverse=True)
    print("  where the time went (ms), slowest first:")
    print("  %-12s" % "pod" + "".join("%10s" % h for h in (
        "->marked", "->batch", "->round", "->created", "->ADDED", "total")) +
        "  long reconciles from the mark to the batch (ms)")
    for total, name, gaps, waited_for in rows:
        print("  %-12s" % name + "".join("%10.0f" % g for g in gaps) + "%10.0f" % (total * 1e3) +
              "  " + waited_for)


def burst(api, controller, ns, count, node_selector=None, timeout=600):
    """Creates `count` pending pods of 1 CPU in `ns` from 8 writer threads and waits until every
    one is planned onto a new NodeClaim (nodesmith's 'created nodeclaim' log lines), nominated to
    capacity still coming up (its `Nominated` Event), or bound by kube-scheduler to capacity that
    was already there. Returns seconds from the first create to nodesmith's last decision for
    them ("took"), seconds the creates took ("created"), the NodeClaims, the API requests
    nodesmith sent meanwhile and how many pods went onto new NodeClaims ("planned")."""
    before = requests_made(controller)
    t0 = time.time()
    names = ["burst-%d" % i for i in range(count)]

    def create(chunk):
        for name in chunk:
            spec = {"containers": [{"name": "c", "image": "pause",
                                    "resources": {"requests": {"cpu": "1"}}}]}
            if node_selector:
                spec["nodeSelector"] = node_selector
            pod = {"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "labels": {"app": "burst"}}, "spec": spec}
            api.request("POST", "/api/v1/namespaces/%s/pods" % ns, pod)
    writers = [threading.Thread(target=create, args=(names[i::8],)) for i in range(8)]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    created = time.time()
    wanted = {"%s/%s" % (ns, n) for n in names}
    planned, last_time, claims = set(), None, 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        planned, claims = set(), 0
        for l in controller.lines():
            if l.get("message") == "created nodeclaim" and "burst-" in l.get("pods", ""):
                claims += 1
                planned.update(p for p in l["pods"].split(",") if p in wanted)
                last_time = l["time"]
            elif (l.get("message") == "computed unready node(s) will fit pod(s)" and
                  last_time is not None):
                last_time = l["time"]
        listed = api.request("GET", "/api/v1/namespaces/%s/pods?labelSelector=app%%3Dburst" % ns)
        bound = {"%s/%s" % (ns, p["metadata"]["name"]) for p in listed["items"]
                 if p["spec"].get("nodeName")}
        events = api.request("GET", "/api/v1/namespaces/%s/events?fieldSelector=reason%%3DNominated"
                             % ns)
        nominated = {"%s/%s" % (ns, e["involvedObject"]["name"]) for e in events["items"]}
        if planned | bound | nominated >= wanted and last_time is not None:
            break
        time.sleep(1)
    else:
        raise SystemExit("burst: %d of %d pods planned or bound after %d s" %
                         (len(planned), count, timeout))
    done = log_time({"time": last_time})
    return {"took": done - t0, "created": created - t0, "claims": claims,
            "requests": requests_made(controller) - before, "planned": len(planned)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("nodesmith")
    ap.add_argument("testenv_dir")
    ap.add_argument("source_dir")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--split", action="store_true",
                    help="also say where each single pod's time went (watches the pods too)")
    args = ap.parse_args()

    env = Testenv(args.testenv_dir, args.source_dir, os.path.join(args.source_dir, "..", "shared", "data"))
    api = Api(args.testenv_dir)
    env.clean_cluster_scoped()
    env.install_crds(reference=False)
    ns = env.create_namespace("bench")
    env.apply(kwok_node_class())
    env.apply(node_pool(consolidate_after="Never", policy="WhenEmpty"))
    controller = Controller(env, args.nodesmith, ns,
                            extra_env={"LOG_LEVEL": "debug" if args.split else "info"})
    try:
        controller.wait_for_log("starting controllers", timeout=120)

        # 1. one pending pod -> its NodeClaim.
        seen, seen_wall = {}, {}
        created, marked, claimed = {}, {}, {}  # --split: pod name -> wall time
        stop = threading.Event()
        lock = threading.Condition()

        def on_claim(event):
            if event["type"] == "ADDED":
                with lock:
                    name = event["object"]["metadata"]["name"]
                    seen[name] = time.monotonic()
                    seen_wall[name] = time.time()
                    lock.notify_all()

        def on_pod(event):
            pod = event["object"]
            name = pod["metadata"].get("name", "")
            if event["type"] == "MODIFIED" and unschedulable(pod):
                with lock:
                    marked.setdefault(name, time.time())

        threading.Thread(target=api.watch, args=("/apis/karpenter.sh/v1/nodeclaims", on_claim, stop),
                         daemon=True).start()
        if args.split:
            threading.Thread(target=api.watch, args=("/api/v1/namespaces/%s/pods" % ns, on_pod, stop),
                             daemon=True).start()
        time.sleep(1)
        latencies = []
        for i in range(args.runs):
            known = set(seen)
            # The toleration keeps kube-controller-manager's taint eviction from deleting the
            # last pod: when its node informer still shows the new node's karpenter.sh/unregistered
            # NoExecute taint as the pod's binding comes in, it deletes the pod at once (seen once
            # in a run), and the next pod then takes its node and gets no NodeClaim.
            pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "single-%d" % i},
                   "spec": {"containers": [{"name": "c", "image": "pause",
                                            "resources": {"requests": {"cpu": "3"}}}],
                            "tolerations": [{"key": "karpenter.sh/unregistered",
                                             "operator": "Exists", "effect": "NoExecute"}]}}
            api.request("POST", "/api/v1/namespaces/%s/pods" % ns, pod)
            t0 = time.monotonic()
            created[pod["metadata"]["name"]] = time.time()
            with lock:
                lock.wait_for(lambda: set(seen) - known, timeout=30)
                new = set(seen) - known
            if not new:
                raise SystemExit("no NodeClaim within 30 s for pod %d" % i)
            claim = new.pop()
            latencies.append(seen[claim] - t0)
            claimed[pod["metadata"]["name"]] = seen_wall[claim]
            # The next pod comes once kube-scheduler has bound this one to its node. Sooner, the
            # scheduler may give the node to the next pod while this one sits in its backoff,
            # and the next NodeClaim is this pod's second plan, not the next pod's answer.
            wait_bound(api, ns, pod["metadata"]["name"])
        idle = 1.0
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print("pending -> NodeClaim over %d runs: p50 %.3f s, p99 %.3f s, max %.3f s "
              "(batch idle window %.1f s; goal <= %.3f s)" %
              (len(latencies), p50, p99, max(latencies), idle, idle + 0.05))
        if args.split:
            split(controller, ns, created, marked, claimed)

        # 2. a burst of pending pods, created straight through the API (8 writers), so the
        # figure is nodesmith's and not the ReplicaSet controller's pace. --pods 0: none.
        stop.set()
        if args.pods <= 0:
            return
        b = burst(api, controller, ns, args.pods)
        print("burst of %d pending pods (all created after %.1f s): every one on a NodeClaim "
              "%.1f s after the first was created (%d NodeClaims); nodesmith sent %d API "
              "requests meanwhile, %.0f/s (KUBE_CLIENT_QPS 200, burst 300)" %
              (args.pods, b["created"], b["took"], b["claims"], b["requests"],
               b["requests"] / max(b["took"], 1e-9)))
        print("  %d pods planned onto new NodeClaims, the rest bound to existing capacity" %
              b["planned"])
    finally:
        code = controller.terminate()
        env.kubectl("delete", "namespace", ns, "--wait=false", check=False)
        env.clean_cluster_scoped()
        print("nodesmith exited with %d" % code)


if __name__ == "__main__":
    main()
