#!/usr/bin/env python3
"""nodesmith under load in the real control plane with the kwok provider (`make load`).

  1. burst: --pods pods at once, as cluster_compare's five Deployments (a zone spread, a hostname
     anti-affinity, three plain shapes); the clock stops when every pod is Running;
  2. the first cycle ends: the Deployments are deleted and nodesmith consolidates every node
     away; nodesmith's RSS then is the baseline;
  3. churn: for --churn-minutes, bare pods are created at --rate a second and as many deleted (at
     random), the population following the simulator's diurnal shape compressed into
     --day-minutes (from 2 % to 20 % of --pods and back);
  4. the end: every pod deleted, every node consolidated away.

What it reports, and what it fails on (exit 1):
  - API requests, from kube-apiserver's audit log of nodesmith's own client identity (one event
    per request served): the total, the peak second, and the most in any 10 s window, which must
    stay within the client's limit (KUBE_CLIENT_QPS 200 × 10 s + KUBE_CLIENT_BURST 300);
  - errors: nodesmith's ERROR log lines, the most in any minute (an error storm is more than 60),
    and the requests the harness itself saw refused;
  - memory: RSS after the first cycle, at the end of each compressed day, at the end, and the
    peak (VmHWM); the last day must end within 10 % (and 16 MiB) of the first day's end;
  - decisions: every NodeClaim nodesmith created was logged ("created nodeclaim", with its pods);
    every NodeClaim it deleted was named by a logged decision (a "tainted node" line of a
    disruption, whose "disrupting node(s)" line carries the reason, or a garbage-collection,
    registration or expiry line); every "disrupting node(s)" line has a reason.

Usage: load_run.py NODESMITH SOURCE_DIR WORK_DIR [--pods N] [--churn-minutes M] [--rate R]
                   [--day-minutes D] [--json FILE]
The control plane is started in WORK_DIR (scripts/testenv/up) and stopped at the end."""
import argparse
import collections
import http.client
import json
import math
import os
import random
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
from cluster_compare import (NS, Cluster, all_running, deployment, launched,  # noqa: E402
                             proc_usage, settle, shapes)
from controller_env import Controller  # noqa: E402

QPS, BURST = 200, 300  # KUBE_CLIENT_QPS and KUBE_CLIENT_BURST, Karpenter's defaults
STORM_PER_MINUTE = 60
CHURN_LABEL = "load"


class Connection:
    """One kept-alive HTTPS connection to kube-apiserver with the admin certificate: the churn
    sends 40 requests a second, and a TLS handshake each would cost more than the request."""

    def __init__(self, cluster):
        url = urllib.parse.urlparse(cluster.api.server)
        self.host, self.port = url.hostname, url.port
        self.ctx = cluster.api.ctx
        self.conn = None

    def request(self, method, path, body=None):
        """(status, parsed body); one reconnect on a dropped connection."""
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (0, 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPSConnection(self.host, self.port, context=self.ctx,
                                                            timeout=60)
                self.conn.request(method, path, body=data,
                                  headers={"Content-Type": "application/json"})
                r = self.conn.getresponse()
                text = r.read()
                return r.status, (json.loads(text) if text else {})
            except (OSError, http.client.HTTPException):
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")


class Memory(threading.Thread):
    """nodesmith's RSS every 2 s, tagged with the phase."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.phase, self.samples = pid, "start", []
        self.stop = threading.Event()

    def rss(self):
        try:
            with open("/proc/%d/status" % self.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None

    def run(self):
        while not self.stop.is_set():
            r = self.rss()
            if r is not None:
                self.samples.append((time.time(), self.phase, r))
            self.stop.wait(2)


def churn_pod(seq, rng):
    cpu = rng.choice(("250m", "500m", "1"))
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "churn-%06d" % seq,
                         "labels": {"bench": "cluster-compare", CHURN_LABEL: "churn"}},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                                     "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}],
                     "terminationGracePeriodSeconds": 0}}


def diurnal(t, day, lo, hi):
    """The population at `t` seconds into the churn: lo at midnight, hi at noon."""
    return lo + (hi - lo) * (1 - math.cos(2 * math.pi * t / day)) / 2


def churn(cluster, args, memory, r):
    conn = Connection(cluster)
    rng = random.Random(1)
    path = "/api/v1/namespaces/%s/pods" % NS
    live, seq = [], 0
    lo, hi = max(1, args.pods // 50), max(2, args.pods // 5)
    day = args.day_minutes * 60
    created = deleted = refused = 0
    refusals = collections.Counter()
    start = time.time()
    end = start + args.churn_minutes * 60
    next_day = 1
    while True:
        now = time.time()
        if now >= end:
            break
        t = now - start
        if t >= next_day * day:
            memory.phase = "churn day %d" % next_day
            r.setdefault("rss_day_end_mib", []).append(round(memory.rss() or 0, 1))
            print("load: day %d ended: %d created, %d deleted, %d refused, %d live, RSS %s MiB" %
                  (next_day, created, deleted, refused, len(live), r["rss_day_end_mib"][-1]),
                  file=sys.stderr, flush=True)
            next_day += 1
        target = diurnal(t + 1, day, lo, hi)
        deletes = int(max(0, min(len(live), len(live) + args.rate - target)))
        for _ in range(args.rate):
            seq += 1
            status, body = conn.request("POST", path, churn_pod(seq, rng))
            if status in (200, 201):
                live.append(body["metadata"]["name"])
                created += 1
            else:
                refused += 1
                refusals["create %d" % status] += 1
        for _ in range(deletes):
            name = live.pop(rng.randrange(len(live)))
            status, _ = conn.request("DELETE", path + "/" + name)
            if status in (200, 202, 404):
                deleted += 1
            else:
                refused += 1
                refusals["delete %d" % status] += 1
        time.sleep(max(0.0, start + t + 1 - time.time()))
    memory.phase = "churn day %d" % next_day
    r.setdefault("rss_day_end_mib", []).append(round(memory.rss() or 0, 1))
    r.update(churn_created=created, churn_deleted=deleted, churn_refused=refused,
             churn_refusals=dict(refusals), churn_population=[lo, hi])
    # The end: every churn pod deleted.
    status, _ = conn.request("DELETE", path + "?labelSelector=" + CHURN_LABEL + "%3Dchurn")
    if status not in (200, 202):
        raise AssertionError("deleting the churn pods: HTTP %d" % status)


def request_figures(audit):
    per_second = collections.Counter(int(t) for t, *_ in audit)
    if not per_second:
        return {"requests": 0, "peak_second": 0, "peak_10s": 0}
    first, last = min(per_second), max(per_second)
    window, peak10 = collections.deque(), 0
    total = 0
    for s in range(first, last + 1):
        window.append(per_second.get(s, 0))
        total += per_second.get(s, 0)
        if len(window) > 10:
            total -= window.popleft()
        peak10 = max(peak10, total)
    verbs = collections.Counter(v for _, v, *_ in audit)
    return {"requests": len(audit), "peak_second": max(per_second.values()), "peak_10s": peak10,
            "limit_10s": QPS * 10 + BURST, "by_verb": dict(verbs),
            "seconds": last - first + 1}


def log_figures(lines):
    levels = collections.Counter(l.get("level", "?") for l in lines)
    errors = [l for l in lines if l.get("level") == "ERROR"]
    per_minute = collections.Counter(l["time"][:16] for l in errors if "time" in l)
    messages = collections.Counter(l.get("message") for l in errors)
    return {"log_lines": len(lines), "levels": dict(levels),
            "errors_peak_minute": max(per_minute.values()) if per_minute else 0,
            "error_messages": dict(messages.most_common(5))}


# Lines that name a NodeClaim nodesmith deletes and say why.
DELETE_REASONS = ("tainted node", "failed launching nodeclaim",
                  "terminating due to registration timeout",
                  "garbage collecting nodeclaim with no cloudprovider representation",
                  "initiating delete from interruption message")


def decision_figures(lines, audit):
    created_logged = [l for l in lines if l.get("message") == "created nodeclaim"]
    created_audited = [a for a in audit if a[1] == "create" and a[2] == "nodeclaims"]
    disrupting = [l for l in lines if l.get("message") == "disrupting node(s)"]
    explained = set()
    for l in lines:
        if l.get("message") in DELETE_REASONS or "reason" in l:
            claim = (l.get("NodeClaim") or {}).get("name")
            if claim:
                explained.add(claim)
    deleted = {a[3] for a in audit if a[1] == "delete" and a[2] == "nodeclaims" and a[3]}
    return {"nodeclaims_created_logged": len(created_logged),
            "nodeclaims_created_audited": len(created_audited),
            "created_without_pods": sum(1 for l in created_logged if not l.get("pods")),
            "nodeclaims_deleted": len(deleted),
            "deleted_without_a_logged_decision": sorted(deleted - explained)[:20],
            "disruption_decisions": len(disrupting),
            "decisions_without_reason": sum(1 for l in disrupting if not l.get("reason"))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nodesmith")
    ap.add_argument("source_dir")
    ap.add_argument("work_dir")
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--churn-minutes", type=float, default=60)
    ap.add_argument("--rate", type=int, default=20)
    ap.add_argument("--day-minutes", type=float, default=20)
    ap.add_argument("--timeout", type=float, default=2400, help="seconds a phase may take")
    ap.add_argument("--quiet", type=float, default=60, help="seconds without node changes = settled")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    os.makedirs(args.work_dir, exist_ok=True)
    cluster = Cluster(args.source_dir, args.work_dir,
                      [os.path.join(args.source_dir, "deploy", "crds")])
    r = {"pods": args.pods, "churn_minutes": args.churn_minutes, "rate": args.rate,
         "day_minutes": args.day_minutes}
    failures = []
    try:
        cluster.setup_pool()
        c = Controller(cluster.env, args.nodesmith, NS, kubeconfig=cluster.kubeconfig,
                       extra_env={"LOG_LEVEL": "info"})
        c.wait_for_log("starting controllers", timeout=120)
        memory = Memory(c.process.pid)
        memory.start()
        try:
            memory.phase = "burst"
            mix = shapes(args.pods)
            t0 = time.time()
            for d in mix:
                cluster.api.request("POST", "/apis/apps/v1/namespaces/%s/deployments" % NS,
                                    deployment(*d))
            deadline = t0 + args.timeout
            while not all_running(cluster, args.pods):
                if time.time() > deadline:
                    raise AssertionError("the burst did not run within %ss" % args.timeout)
                if c.process.poll() is not None:
                    raise AssertionError("nodesmith exited: " + c.tail())
                time.sleep(2)
            r["burst_s"] = round(time.time() - t0, 1)
            r["burst_nodes"] = len(launched(cluster.nodes()))
            print("load: %s" % json.dumps(r), file=sys.stderr, flush=True)

            memory.phase = "first scale-in"
            t1 = time.time()
            for (name, *_rest) in mix:
                cluster.api.request("DELETE", "/apis/apps/v1/namespaces/%s/deployments/%s" % (NS, name))
            end = settle(cluster, t1, args.quiet, args.timeout, 0,
                         lambda nodes: not launched(nodes))
            r["scale_in_s"] = None if end is None else round(end - t1, 1)
            r["rss_after_first_cycle_mib"] = round(memory.rss() or 0, 1)
            print("load: %s" % json.dumps(r), file=sys.stderr, flush=True)

            churn(cluster, args, memory, r)
            memory.phase = "end"
            t2 = time.time()
            end = settle(cluster, t2, args.quiet, args.timeout, 0,
                         lambda nodes: not launched(nodes))
            r["end_settle_s"] = None if end is None else round(end - t2, 1)
            r["rss_end_mib"] = round(memory.rss() or 0, 1)
            r["cpu_s"], r["rss_peak_mib"] = (round(x, 1) for x in proc_usage(c.process.pid))
            r["metric_requests"] = next(
                (float(l.split()[-1]) for l in c.metrics().splitlines()
                 if l.startswith("nodesmith_kube_client_requests_total ")), None)
        finally:
            memory.stop.set()
            code = c.terminate(timeout=60)
            r["exit_code"] = code
        lines = c.lines()
        audit = cluster.audit()
        r.update(request_figures(audit))
        r.update(log_figures(lines))
        r.update(decision_figures(lines, audit))
        r["rss_samples"] = len(memory.samples)
    finally:
        cluster.close()

    if r.get("peak_10s", 0) > QPS * 10 + BURST:
        failures.append("%d requests in 10 s, above %d" % (r["peak_10s"], QPS * 10 + BURST))
    if r.get("errors_peak_minute", 0) > STORM_PER_MINUTE:
        failures.append("an error storm: %d ERROR lines in one minute" % r["errors_peak_minute"])
    days = r.get("rss_day_end_mib", [])
    if len(days) >= 2 and days[-1] > days[0] * 1.1 + 16:
        failures.append("memory grew over the churn: %s MiB at the ends of its days" % days)
    if r.get("scale_in_s") is None or r.get("end_settle_s") is None:
        failures.append("a scale-in did not settle within %ss" % args.timeout)
    if r.get("deleted_without_a_logged_decision"):
        failures.append("NodeClaims deleted with no logged decision: %s" %
                        r["deleted_without_a_logged_decision"])
    if r.get("decisions_without_reason"):
        failures.append("%d disruption decisions without a reason" % r["decisions_without_reason"])
    if r.get("nodeclaims_created_logged") != r.get("nodeclaims_created_audited"):
        failures.append("%s NodeClaims created, %s logged" % (r.get("nodeclaims_created_audited"),
                                                             r.get("nodeclaims_created_logged")))
    if r.get("exit_code") != 0:
        failures.append("nodesmith exited %s on SIGTERM" % r.get("exit_code"))
    r["failures"] = failures
    text = json.dumps(r, indent=1, sort_keys=True)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
