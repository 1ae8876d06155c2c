#!/usr/bin/env python3
"""Chaos in the real control plane: `nodesmith controller` with the kwok provider, killed and
starved while pods come and go, and the cluster's promises checked after every fault
(tests/e2e/invariants.py).

  sigkill       SIGKILL at random points of launching (created, launched, registered,
                initialized) and of disrupting (the decision, the taint, an eviction, the Node's
                and the NodeClaim's deletion), restarting at once each time
  leader flaps  two replicas; the leader is killed and a new standby started, again and again
  restarts      kube-apiserver and etcd restarted under load
  no kubelet    instances that never register: the NodeClaims in flight stay bounded, and the
                cluster recovers once nodes can join again

The workload: `steady`, four pods guarded by a PodDisruptionBudget (maxUnavailable 1), and
`burst`, scaled between 0 and six pods so that nodes are launched and consolidated all the time.
While a fault runs, the invariant sampler records every PDB below its desired healthy count,
every pod bound to a Node that is gone, and every NodeClaim count above the bound; afterwards
the cluster must converge (every pod Running, one Node per NodeClaim and none without, no stuck
taint or finalizer, no empty node). nodesmith must never exit on its own except after losing its
Lease (as Karpenter does, and as Kubernetes then restarts it).

Usage: chaos_e2e.py NODESMITH SOURCE_DIR TESTENV_DIR SHARED_DATA [--size small|full]
                    [--seed N] [--report FILE] [unittest args]
`--size small` is what `make test` runs (ctest chaos_e2e); `make chaos` runs `--size full`
(50 kills). `--report FILE` appends one JSON line per test: faults, restarts, samples,
violations, the most NodeClaims at once and the NodeClaims created."""
import argparse
import json
import os
import random
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from controller_env import (Controller, Testenv, deployment, node_pool, test_failed,  # noqa: E402
                            wait_for)
from invariants import ClusterView, Sampler, converged, pods_placed  # noqa: E402

BINARY, SOURCE_DIR, TESTENV_DIR, SHARED_DATA = sys.argv[1:5]
del sys.argv[1:5]
_parser = argparse.ArgumentParser(add_help=False)
_parser.add_argument("--size", choices=("small", "full"), default="small")
_parser.add_argument("--seed", type=int, default=None)
_parser.add_argument("--report", default=None)
ARGS, _rest = _parser.parse_known_args()
sys.argv[1:] = _rest
ENV = Testenv(TESTENV_DIR, SOURCE_DIR, SHARED_DATA)

SIZES = {
    "small": {"kills": 6, "flaps": 2, "restarts": 1, "stranded_seconds": 25},
    "full": {"kills": 50, "flaps": 10, "restarts": 3, "stranded_seconds": 60},
}
SIZE = SIZES[ARGS.size]
SEED = ARGS.seed if ARGS.seed is not None else random.SystemRandom().randrange(1 << 30)

STEADY, BURST = 4, 6
LAUNCH_PHASES = ("created nodeclaim", "launched nodeclaim", "registered nodeclaim",
                 "initialized nodeclaim")
DISRUPT_PHASES = ("disrupting node(s)", "tainted node", "evicted pod", "deleted node",
                  "deleted nodeclaim")
CONVERGE_SECONDS = 300


def node_class(registration_delay="1s"):
    return json.dumps({"apiVersion": "karpenter.kwok.sh/v1alpha1", "kind": "KWOKNodeClass",
                       "metadata": {"name": "default"},
                       "spec": {"nodeRegistrationDelay": registration_delay}})


class ChaosTest(unittest.TestCase):
    """A namespace with the workload, a NodePool, the sampler, and the controllers a test
    starts; the end-state check; a report line."""

    def setUp(self):
        self.rng = random.Random("%d-%s" % (SEED, self.id()))
        ENV.clean_cluster_scoped()
        ENV.install_crds(reference=True)
        self.ns = ENV.create_namespace("chaos")
        ENV.apply(node_class())
        ENV.apply(node_pool(consolidate_after="5s"))
        self.controllers = []
        self.faults = {}
        self.exits = []  # (return code, why) of each exit we did not cause
        self.burst = 0
        self.sampler = None
        self.started_at = time.monotonic()

    def tearDown(self):
        if self.sampler is not None:
            self.sampler.stop()
        if test_failed(self):
            for c in self.controllers[-2:]:
                sys.stderr.write("--- nodesmith log (%s) ---\n%s" % (c.log_path, c.tail(40)))
            sys.stderr.write("--- cluster state ---\n%s\n%s" % (
                ENV.kubectl("get", "nodeclaims,nodes", "-o", "wide", check=False),
                ENV.kubectl("get", "pods", "-n", self.ns, "-o", "wide", check=False)))
        ENV.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)
        for c in self.controllers:
            c.kill()
        ENV.clean_cluster_scoped()

    # --- the workload and the controllers ---

    def start_workload(self):
        ENV.apply(deployment("steady", STEADY, cpu="1"), self.ns)
        ENV.apply(json.dumps({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                              "metadata": {"name": "steady"},
                              "spec": {"maxUnavailable": 1,
                                       "selector": {"matchLabels": {"app": "steady"}}}}), self.ns)
        ENV.apply(deployment("burst", 0, cpu="1"), self.ns)

    def scale_burst(self, replicas):
        self.burst = replicas
        ENV.kubectl("scale", "deployment/burst", "-n", self.ns, "--replicas=%d" % replicas)

    def start_sampler(self):
        # Every NodeClaim holds at least one pod, plus the replacements a consolidation or a
        # relaunch may have in flight: more is a runaway.
        self.sampler = Sampler(ENV, self.ns, lambda: STEADY + BURST + 2, interval=0.5).start()

    def controller(self, leader_election=False, wait=True):
        env = {} if leader_election else {"DISABLE_LEADER_ELECTION": "true"}
        c = Controller(ENV, BINARY, self.ns, extra_env=env)
        self.controllers.append(c)
        if wait:
            c.wait_for_log("starting controllers", timeout=90)
        return c

    def count(self, kind, n=1):
        self.faults[kind] = self.faults.get(kind, 0) + n

    def note_exit(self, c, why):
        """`c` exited without being told to: only losing the Lease excuses it."""
        code = c.process.poll()
        if code is None:
            return False
        lost_lease = "leader election lost, stopping" in c.messages()
        self.exits.append((code, why, lost_lease))
        if code < 0 or not lost_lease:
            self.fail("nodesmith exited on its own (%s) %s:\n%s" % (code, why, c.tail()))
        return True

    def wait_placed(self, timeout=120):
        """Waits until every workload pod runs: faults "under load" start from a working
        cluster."""
        def placed():
            view = ClusterView.read(ENV, self.ns)
            return view is not None and not pods_placed(view)
        wait_for(placed, timeout, "the workload to be placed", interval=1)

    # --- the end ---

    def converge(self, timeout=CONVERGE_SECONDS):
        last = []

        def settled():
            view = ClusterView.read(ENV, self.ns)
            if view is None:
                return False
            last[:] = converged(view)
            return not last
        try:
            wait_for(settled, timeout, "the cluster to converge", interval=1)
        except AssertionError:
            self.fail("not converged after %ss:\n  %s" % (timeout, "\n  ".join(last)))

    def finish(self, name):
        self.converge()
        self.sampler.stop()
        report = {
            "test": "kwok " + name, "size": ARGS.size, "seed": SEED, "faults": self.faults,
            "unprompted_exits": [{"code": c, "during": w, "lost_lease": l} for c, w, l in self.exits],
            "samples": self.sampler.samples, "violations": self.sampler.violations,
            "max_nodeclaims": self.sampler.max_claims,
            "nodeclaims_seen": len(self.sampler.claim_names),
            "seconds": round(time.monotonic() - self.started_at, 1),
        }
        sys.stderr.write("chaos: %s\n" % json.dumps(report, sort_keys=True))
        if ARGS.report:
            with open(ARGS.report, "a") as f:
                f.write(json.dumps(report, sort_keys=True) + "\n")
        self.assertEqual(self.sampler.violations, [], "invariants violated while faults ran")


def wait_for_phase(c, phase, timeout):
    """Waits for `phase` in `c`'s log; whether it came."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if phase in c.messages():
            return True
        if c.process.poll() is not None:
            return False
        time.sleep(0.1)
    return False


class SigkillTest(ChaosTest):
    def test_sigkill_at_random_points(self):
        self.start_workload()
        self.start_sampler()
        c = self.controller()
        for i in range(SIZE["kills"]):
            up = i % 2 == 0
            self.scale_burst(BURST if up else self.rng.choice((0, 1, 2)))
            phase = self.rng.choice(LAUNCH_PHASES if up else DISRUPT_PHASES)
            reached = wait_for_phase(c, phase, 30 if up else 60)
            self.note_exit(c, "waiting for %r" % phase)
            time.sleep(self.rng.uniform(0, 0.5))
            self.note_exit(c, "after %r" % phase)
            c.kill()
            self.count("sigkill after %r" % phase if reached else "sigkill (phase not reached)")
            c = self.controller()
        self.scale_burst(3)
        self.finish("sigkill")
        self.assertEqual(c.terminate(), 0, c.tail())


class LeaderFlapTest(ChaosTest):
    def test_leader_flaps(self):
        self.start_workload()
        self.start_sampler()
        leader = self.controller(leader_election=True)
        standby = self.controller(leader_election=True, wait=False)
        standby.wait_ready()
        handovers = []
        for i in range(SIZE["flaps"]):
            self.scale_burst(BURST if i % 2 == 0 else self.rng.choice((0, 2)))
            time.sleep(self.rng.uniform(0.5, 4))
            self.assertNotIn("starting controllers", standby.messages(), "two leaders")
            self.note_exit(leader, "leading")
            leader.kill()
            killed = time.monotonic()
            self.count("leader killed")
            fresh = self.controller(leader_election=True, wait=False)
            # Either candidate may take the Lease once it expires (as with client-go): the old
            # standby has no priority over the replica that just started.
            wait_for(lambda: any("starting controllers" in x.messages() for x in (standby, fresh)),
                     40, "a new leader")
            handovers.append(time.monotonic() - killed)
            leaders = [x for x in (standby, fresh) if "starting controllers" in x.messages()]
            self.assertEqual(len(leaders), 1, "two leaders")
            leader = leaders[0]
            standby = fresh if leader is standby else standby
        self.scale_burst(3)
        self.finish("leader flaps")
        # The lease lasts 15 s; the standby retries every 2 s.
        self.assertLess(max(handovers), 20, "handover times %s" % handovers)
        self.assertEqual(leader.terminate(), 0, leader.tail())


class ControlPlaneRestartTest(ChaosTest):
    def restart(self, component):
        subprocess.run([os.path.join(SOURCE_DIR, "scripts", "testenv", "restart"), TESTENV_DIR,
                        component], check=True, capture_output=True, timeout=240)
        self.count("%s restart" % component)

    def test_api_server_and_etcd_restarts(self):
        self.start_workload()
        self.start_sampler()
        c = self.controller(leader_election=True)
        self.wait_placed()
        for i in range(SIZE["restarts"]):
            for component, replicas in (("kube-apiserver", BURST), ("etcd", 1)):
                self.scale_burst(replicas)
                time.sleep(self.rng.uniform(0, 2))
                self.restart(component)
                # Kubernetes restarts a controller that lost its Lease: so does the test.
                if self.note_exit(c, "across a %s restart" % component):
                    c = self.controller(leader_election=True)
        self.scale_burst(3)
        self.finish("control plane restarts")
        self.note_exit(c, "at the end")
        self.assertEqual(c.terminate(), 0, c.tail())


class StrandedLaunchTest(ChaosTest):
    """Instances that run but never register (no kubelet): nodesmith launches for the pending
    pods once and waits; it does not launch again and again while they do not join."""

    def test_nodes_that_never_register(self):
        ENV.apply(node_class(registration_delay="24h"))
        self.start_workload()
        self.start_sampler()
        c = self.controller()
        self.scale_burst(BURST)
        c.wait_for_log("launched nodeclaim", timeout=60)
        time.sleep(5)  # the first round of launches
        first = {x["metadata"]["name"] for x in ENV.items("nodeclaims")}
        self.assertTrue(first)
        deadline = time.monotonic() + SIZE["stranded_seconds"]
        while time.monotonic() < deadline:
            now = {x["metadata"]["name"] for x in ENV.items("nodeclaims")}
            self.assertLessEqual(now, first, "NodeClaims launched while the first never joined")
            time.sleep(1)
        self.count("instances never registering", len(first))
        # Nodes can join again; the stuck NodeClaims are deleted (as the registration timeout
        # would, later) and the pods get nodes that do.
        ENV.apply(node_class(registration_delay="0s"))
        ENV.kubectl("delete", "nodeclaims", "--all", "--wait=false")
        self.finish("nodes never registering")
        self.note_exit(c, "at the end")
        self.assertEqual(c.terminate(), 0, c.tail())


if __name__ == "__main__":
    sys.stderr.write("chaos: size %s, seed %d (--seed %d repeats the choices)\n" %
                     (ARGS.size, SEED, SEED))
    unittest.main(verbosity=2)
