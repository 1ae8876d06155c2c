#!/usr/bin/env python3
"""Chaos on AWS: `nodesmith controller --cloud-provider aws` against moto while EC2 fails the ways
EC2 fails, with the cluster's promises (tests/e2e/invariants.py) and EC2's own checked after
every fault.

  throttling   RequestLimitExceeded on CreateFleet, DescribeInstances and TerminateInstances,
               several calls in a row
  5xx          InternalError (HTTP 500) and Unavailable (HTTP 503) on the same calls
  timeout      one CreateFleet answered after the client's 30 s: the instance that call launched
               has no NodeClaim, and garbage collection must terminate it
  no capacity  CreateFleet reports insufficient capacity for every offering: the pods stay
               pending, the NodeClaims in flight stay bounded (no runaway), a log line and an
               event say why; once capacity is back the pods get nodes
  sigkill      SIGKILL at random points of launching and terminating, restarting at once

A harness plays the kubelet (aws_env.Kubelets, in a thread) and the workload, `inflate`, one pod
per node, is scaled up and down so that instances are launched and terminated all the time.
After each fault the cluster must converge (`converged`, provider prefix aws://) and EC2 must
agree with it: every pending or running instance of the cluster is named by exactly one
NodeClaim's providerID, and no NodeClaim names an instance that is terminated or unknown. An
instance without a NodeClaim (a launch whose answer was lost) is allowed only while garbage
collection may not have run yet: 30 s of minimum age plus its 2-minute period after its launch.
nodesmith must never crash (exit by a signal) nor exit on its own.

Usage: aws_chaos_e2e.py NODESMITH SOURCE_DIR TESTENV_DIR MOTO_DIR SHARED_DATA
                        [--size small|full] [--seed N] [--report FILE] [unittest args]"""
import argparse
import datetime
import json
import os
import random
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aws_env  # noqa: E402
from aws_env import CLUSTER, Kubelets  # noqa: E402
from controller_env import Controller, Testenv, test_failed, wait_for  # noqa: E402
from invariants import ClusterView, Sampler, converged  # noqa: E402

BINARY, SOURCE_DIR, TESTENV_DIR, MOTO_DIR, SHARED_DATA = sys.argv[1:6]
del sys.argv[1:6]
_parser = argparse.ArgumentParser(add_help=False)
_parser.add_argument("--size", choices=("small", "full"), default="small")
_parser.add_argument("--seed", type=int, default=None)
_parser.add_argument("--report", default=None)
ARGS, _rest = _parser.parse_known_args()
sys.argv[1:] = _rest
ENV = Testenv(TESTENV_DIR, SOURCE_DIR, SHARED_DATA)
MOTO = aws_env.moto_env(MOTO_DIR)

SIZES = {
    "small": {"kills": 3, "starved_seconds": 30, "fault_calls": 3},
    "full": {"kills": 20, "starved_seconds": 60, "fault_calls": 6},
}
SIZE = SIZES[ARGS.size]
SEED = ARGS.seed if ARGS.seed is not None else random.SystemRandom().randrange(1 << 30)
MOST = 4  # inflate's most replicas, one node each
CALLS = ("CreateFleet", "DescribeInstances", "TerminateInstances")
GC_WINDOW = 30 + 120 + 20  # an orphan's minimum age, the collector's period, and its calls
CONVERGE_SECONDS = 240
LAUNCH_PHASES = ("created nodeclaim", "launched nodeclaim", "registered nodeclaim")
TERMINATE_PHASES = ("disrupting node(s)", "deleted node", "deleted nodeclaim")


def fault(**body):
    """A moto fault (scripts/testenv/moto_server.py) on nodesmith's real calls only: not on the
    EC2NodeClass validation's dry runs, nor on the test's and the kubelets' own reads."""
    aws_env.fault(MOTO, dryRun=False, userAgent="nodesmith/", **body)


def launch_time(instance):
    t = instance["LaunchTime"]
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def ec2_disagreements(view, instances, now):
    """What EC2 (`instances`: every instance of the cluster, any state) and the NodeClaims of
    `view` disagree on at `now`."""
    out = []
    claimed = {}
    for c in view.claims:
        pid = c.get("status", {}).get("providerID", "")
        if pid:
            claimed.setdefault(pid.rsplit("/", 1)[-1], []).append(c["metadata"]["name"])
    state = {i["InstanceId"]: i["State"]["Name"] for i in instances}
    for i in instances:
        iid = i["InstanceId"]
        if state[iid] not in ("pending", "running"):
            continue
        names = claimed.get(iid, [])
        age = (now - launch_time(i)).total_seconds()
        if len(names) > 1:
            out.append("instance %s is named by nodeclaims %s" % (iid, names))
        elif not names and age > GC_WINDOW:
            out.append("instance %s (%s) has no nodeclaim %d s after its launch: leaked "
                       "(garbage collection terminates it within %d s)" % (iid, state[iid], age, GC_WINDOW))
    for iid, names in claimed.items():
        if state.get(iid) not in ("pending", "running"):
            out.append("nodeclaim %s names instance %s, which is %s" %
                       (names, iid, state.get(iid, "unknown to EC2")))
    return out


class AwsChaosTest(unittest.TestCase):
    """moto reset with the seed's network and alias, the seed's NodePool and EC2NodeClass, the
    kubelets, the workload, the sampler and the controllers a test starts; the end-state
    checks; a report line."""

    def setUp(self):
        self.rng = random.Random("%d-%s" % (SEED, self.id()))
        self.started_at = time.monotonic()
        aws_env.moto_post(MOTO["AWS_ENDPOINT_URL"] + "/moto-api/reset")
        self.ec2 = aws_env.ec2(MOTO)
        ENV.clean_cluster_scoped(kinds=("nodepools", "nodeclaims", "ec2nodeclasses"), provider_prefix="aws://")
        ENV.install_crds(reference=True)
        ENV.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/ec2nodeclasses.karpenter.k8s.aws")
        self.ns = ENV.create_namespace("awschaos")
        aws_env.make_network(MOTO, self.ec2)
        aws_env.put_alias(ENV, MOTO, self.ec2)
        ENV.apply(aws_env.converted_seed(BINARY, SOURCE_DIR))
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
        ENV.kubectl("patch", "nodepool", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"disruption": {"consolidateAfter": "5s"}}}))
        self.kubelets = Kubelets(ENV, self.ec2).start()
        self.controllers = []
        self.faults = {}
        self.sampler = Sampler(ENV, self.ns, lambda: MOST + 2, interval=0.5, provider_prefix="aws://").start()

    def tearDown(self):
        self.sampler.stop()
        self.kubelets.stop()
        if test_failed(self):
            for c in self.controllers[-2:]:
                sys.stderr.write("--- nodesmith log (%s) ---\n%s" % (c.log_path, c.tail(40)))
            sys.stderr.write("--- cluster state ---\n%s\n%s" % (
                ENV.kubectl("get", "nodeclaims,nodes", "-o", "wide", check=False),
                ENV.kubectl("get", "pods", "-n", self.ns, "-o", "wide", check=False)))
        aws_env.clear_faults(MOTO)
        ENV.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)
        for c in self.controllers:
            c.kill()
        ENV.clean_cluster_scoped(kinds=("nodepools", "nodeclaims", "ec2nodeclasses"), provider_prefix="aws://")

    # --- the workload and the controllers ---

    def inflate(self, replicas):
        """inflate at `replicas` pods of 1 CPU, no two on one node."""
        pod = {"metadata": {"labels": {"app": "inflate"}}, "spec": {
            "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.9",
                            "resources": {"requests": {"cpu": "1"}}}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"app": "inflate"}}}]}}}}
        ENV.apply(json.dumps({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "inflate"},
                              "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "inflate"}},
                                       "template": pod}}), self.ns)

    def controller(self):
        c = Controller(ENV, BINARY, self.ns, extra_env=aws_env.controller_env(
            MOTO, CATALOG="aws", DISABLE_LEADER_ELECTION="true"))
        self.controllers.append(c)
        c.wait_for_log("starting controllers", timeout=90)
        return c

    def alive(self, c, when):
        """`c` still runs: nodesmith never exits on its own here (no Lease to lose)."""
        code = c.process.poll()
        if code is not None:
            self.fail("nodesmith exited with %s %s%s:\n%s" % (
                code, when, " (killed by signal %d: a crash)" % -code if code < 0 else "", c.tail()))

    def count(self, kind, n=1):
        self.faults[kind] = self.faults.get(kind, 0) + n

    # --- the checks ---

    def instances(self):
        out = []
        for page in self.ec2.get_paginator("describe_instances").paginate(Filters=[
                {"Name": "tag:kubernetes.io/cluster/" + CLUSTER, "Values": ["owned"]}]):
            for r in page["Reservations"]:
                out += r["Instances"]
        return out

    def converge(self, what, c, timeout=CONVERGE_SECONDS, no_orphans=False):
        """The cluster converges and EC2 agrees with it; with `no_orphans`, also no instance
        without a NodeClaim at all (waiting for garbage collection's window)."""
        last = []

        def settled():
            self.alive(c, "while converging after %s" % what)
            view = ClusterView.read(ENV, self.ns, provider_prefix="aws://")
            if view is None:
                return False
            now = datetime.datetime.now(datetime.timezone.utc)
            instances = self.instances()
            last[:] = converged(view) + ec2_disagreements(view, instances, now)
            if no_orphans:
                claimed = {x.get("status", {}).get("providerID", "").rsplit("/", 1)[-1] for x in view.claims}
                last.extend("instance %s has no nodeclaim yet" % i["InstanceId"] for i in instances
                            if i["State"]["Name"] in ("pending", "running") and i["InstanceId"] not in claimed)
            return not last
        try:
            wait_for(settled, timeout, "convergence after " + what, interval=1)
        except AssertionError:
            self.fail("not converged after %s within %ss:\n  %s" % (what, timeout, "\n  ".join(last)))

    def finish(self, name, c):
        self.converge("the last fault", c, timeout=CONVERGE_SECONDS, no_orphans=True)
        self.sampler.stop()
        report = {
            "test": "aws " + name, "size": ARGS.size, "seed": SEED, "faults": self.faults,
            "samples": self.sampler.samples, "violations": self.sampler.violations,
            "max_nodeclaims": self.sampler.max_claims, "nodeclaims_seen": len(self.sampler.claim_names),
            "instances_launched": len(self.instances()), "kubelet_errors": self.kubelets.errors,
            "seconds": round(time.monotonic() - self.started_at, 1),
        }
        sys.stderr.write("aws chaos: %s\n" % json.dumps(report, sort_keys=True))
        if ARGS.report:
            with open(ARGS.report, "a") as f:
                f.write(json.dumps(report, sort_keys=True) + "\n")
        self.assertEqual(self.sampler.violations, [], "invariants violated while faults ran")
        self.alive(c, "at the end")
        self.assertEqual(c.terminate(), 0, c.tail())

    # --- the faults ---

    def failing_calls(self, c, name, **error):
        """Each of CALLS refused for a few calls in a row while inflate grows and shrinks."""
        for action in CALLS:
            fault(action=action, times=SIZE["fault_calls"], **error)
            self.count("%s %s" % (name, action), SIZE["fault_calls"])
        self.inflate(MOST)
        self.converge(name + " while scaling up", c)
        for action in CALLS:
            fault(action=action, times=SIZE["fault_calls"], **error)
        self.inflate(self.rng.choice((0, 1)))
        self.converge(name + " while scaling down", c)
        aws_env.clear_faults(MOTO)

    def test_throttling(self):
        c = self.controller()
        self.failing_calls(c, "throttling", code="RequestLimitExceeded", message="Request limit exceeded.")
        self.finish("throttling", c)

    def test_server_errors(self):
        c = self.controller()
        self.failing_calls(c, "500", code="InternalError", message="An internal error has occurred", status=500)
        self.failing_calls(c, "503", code="Unavailable", message="The server is overloaded", status=503)
        self.finish("5xx", c)

    def test_a_create_fleet_that_times_out(self):
        c = self.controller()
        fault(action="CreateFleet", delaySeconds=35, times=1)
        self.count("CreateFleet answered after 35 s")
        self.inflate(2)
        self.converge("a CreateFleet timeout", c)
        self.finish("timeout", c)

    def test_no_capacity_anywhere(self):
        c = self.controller()
        fault(action="CreateFleet", instanceType="*", code="InsufficientInstanceCapacity",
                      message="We currently do not have sufficient capacity in the Availability Zone you requested.")
        self.count("every offering without capacity")
        self.inflate(MOST)
        # Why, said in the log and in an event.
        failed = c.wait_for_log("failed launching nodeclaim", timeout=60)
        self.assertIn("insufficient capacity", failed["error"].lower())
        wait_for(lambda: [e for e in ENV.items("events", "-A") if e.get("reason") == "InsufficientCapacityError"],
                 30, "an InsufficientCapacityError event")
        # No runaway: the NodeClaims in flight stay few (a failed launch's NodeClaim is deleted and
        # may be replaced, so the count is bounded, not the names), and no instance is launched.
        most = 0
        deadline = time.monotonic() + SIZE["starved_seconds"]
        while time.monotonic() < deadline:
            self.alive(c, "while no capacity")
            claims = ENV.items("nodeclaims")
            most = max(most, len(claims))
            self.assertLessEqual(len(claims), MOST, "NodeClaims in flight without capacity: %s" %
                                 [x["metadata"]["name"] for x in claims])
            pods = ENV.items("pods", "-n", self.ns, "-l", "app=inflate")
            self.assertEqual([p["metadata"]["name"] for p in pods if p["spec"].get("nodeName")], [],
                             "a pod got a node without capacity")
            time.sleep(1)
        self.assertEqual([i["InstanceId"] for i in self.instances() if i["State"]["Name"] in ("pending", "running")],
                         [], "an instance launched without capacity")
        aws_env.clear_faults(MOTO)
        self.converge("capacity back", c)
        self.finish("no capacity", c)

    def test_sigkill_at_random_points(self):
        c = self.controller()
        for i in range(SIZE["kills"]):
            up = i % 2 == 0
            self.inflate(MOST if up else self.rng.choice((0, 1)))
            phase = self.rng.choice(LAUNCH_PHASES if up else TERMINATE_PHASES)
            deadline = time.monotonic() + (40 if up else 60)
            while phase not in c.messages() and time.monotonic() < deadline:
                self.alive(c, "waiting for %r" % phase)
                time.sleep(0.1)
            time.sleep(self.rng.uniform(0, 0.5))
            self.alive(c, "after %r" % phase)
            c.kill()
            self.count("sigkill after %r" % phase if phase in c.messages() else "sigkill (phase not reached)")
            c = self.controller()
        self.inflate(2)
        self.converge("the kills", c)
        self.finish("sigkill", c)


if __name__ == "__main__":
    sys.stderr.write("aws chaos: size %s, seed %d (--seed %d repeats the choices)\n" % (ARGS.size, SEED, SEED))
    unittest.main(verbosity=2)
