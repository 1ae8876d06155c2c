#!/usr/bin/env python3
"""`nodesmith controller` in the real control plane: kube-apiserver validates and stores, the real
kube-scheduler binds, kwok plays the kubelets of the Nodes the kwok provider creates.

Usage: controller_e2e.py NODESMITH SOURCE_DIR TESTENV_DIR SHARED_DATA [unittest args]"""
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from controller_env import (Controller, Testenv, deployment, kwok_node_class, node_pool,  # noqa: E402
                            test_failed, wait_for)

BINARY, SOURCE_DIR, TESTENV_DIR, SHARED_DATA = sys.argv[1:5]
del sys.argv[1:5]
ENV = Testenv(TESTENV_DIR, SOURCE_DIR, SHARED_DATA)


def condition(obj, kind):
    for c in obj.get("status", {}).get("conditions", []):
        if c["type"] == kind:
            return c
    return None


class ControllerTest(unittest.TestCase):
    reference_crds = True

    def setUp(self):
        ENV.clean_cluster_scoped()
        ENV.install_crds(reference=self.reference_crds)
        self.ns = ENV.create_namespace("e2e")
        ENV.apply(kwok_node_class())
        self.controller = None

    def tearDown(self):
        if self.controller is not None:
            if test_failed(self):
                sys.stderr.write("--- nodesmith log (%s) ---\n%s" %
                                 (self.controller.log_path, self.controller.tail(60)))
                # What the cluster looked like when the test gave up: whose state was stale.
                state = ENV.kubectl("get", "nodeclaims,nodes", "-o", "wide", check=False)
                pods = ENV.kubectl("get", "pods", "-n", self.ns, "-o", "wide", check=False)
                sys.stderr.write("--- cluster state ---\n%s\n%s" % (state, pods))
        ENV.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)
        if self.controller is not None:
            self.controller.kill()
        ENV.clean_cluster_scoped()

    def start(self, **kwargs):
        self.controller = Controller(ENV, BINARY, self.ns, **kwargs)
        self.controller.wait_for_log("starting controllers", timeout=90)
        return self.controller

    def claims(self):
        return ENV.items("nodeclaims")

    def kwok_nodes(self):
        return [n for n in ENV.items("nodes")
                if n["spec"].get("providerID", "").startswith("kwok://")]

    def pods(self, app):
        return ENV.items("pods", "-n", self.ns, "-l", "app=" + app)

    @staticmethod
    def gauge(c, name):
        """The value of gauge `name` (its one series) on nodesmith's /metrics; None if absent."""
        from prometheus_client.parser import text_string_to_metric_families
        for f in text_string_to_metric_families(c.metrics()):
            if f.name == name and f.samples:
                return f.samples[0].value
        return None

    def running_pods(self, app, n):
        pods = self.pods(app)
        ok = [p for p in pods if p["status"].get("phase") == "Running" and p["spec"].get("nodeName")]
        return ok if len(ok) == n else None


class WalkthroughTest(ControllerTest):
    """The seed walkthrough: inflate 0 -> 5 gets one node; deleting it removes the node after
    consolidateAfter; SIGTERM exits 0 and hands the Lease back."""

    def test_walkthrough(self):
        ENV.apply(node_pool(consolidate_after="10s"))
        c = self.start()
        ENV.apply(deployment("inflate", 0), self.ns)
        ENV.kubectl("scale", "deployment/inflate", "-n", self.ns, "--replicas=5")

        # Pods pending, then one NodeClaim for all five.
        c.wait_for_log("found provisionable pod(s)", timeout=60)
        created = c.wait_for_log("created nodeclaim", timeout=30)
        self.assertEqual(created["controller"], "provisioner")
        # Lines carry the wall time they were written, as Karpenter's do, not the time their
        # reconcile was due: the create, an API round trip after its round's "found" line, is
        # stamped later (same-format stamps compare as strings).
        lines = c.lines()
        at = next(i for i, l in enumerate(lines) if l.get("message") == "created nodeclaim")
        found = [l for l in lines[:at] if l.get("message") == "found provisionable pod(s)"][-1]
        self.assertLess(found["time"], created["time"], "log lines stamped with one time a reconcile")
        self.assertEqual(created["NodePool"], {"name": "default"})
        claim_name = created["NodeClaim"]["name"]
        launched = c.wait_for_log("launched nodeclaim", timeout=30)
        self.assertEqual(launched["provider-id"], "kwok://" + claim_name)
        c.wait_for_log("registered nodeclaim", timeout=60)
        c.wait_for_log("initialized nodeclaim", timeout=60)

        # The real scheduler binds all five to the one node, kwok runs them.
        pods = wait_for(lambda: self.running_pods("inflate", 5), 90, "5 inflate pods Running")
        nodes = {p["spec"]["nodeName"] for p in pods}
        self.assertEqual(nodes, {claim_name})
        self.assertEqual(len(self.claims()), 1)

        # At debug level each reconcile of 5 ms or more is logged with its controller and time
        # (the controllers share one thread): the create, the launch and the registration each
        # wrote to the API server in one.
        slow = [l for l in c.lines() if l.get("message") == "reconcile took long"]
        self.assertTrue(slow, "no 'reconcile took long' line at debug level")
        for l in slow:
            self.assertRegex(l["controller"], r"^[a-z]+(\.[a-z]+)?$")
            took = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s)", l["duration"])
            self.assertIsNotNone(took, l)
            self.assertGreaterEqual(float(took[1]) * (1 if took[2] == "ms" else 1000), 5, l)

        claim = ENV.get_json("nodeclaim", claim_name)
        for kind in ("Launched", "Registered", "Initialized", "Ready"):
            self.assertEqual(condition(claim, kind)["status"], "True", kind)
        self.assertEqual(claim["status"]["nodeName"], claim_name)
        self.assertEqual(claim["status"]["providerID"], "kwok://" + claim_name)
        self.assertIn("karpenter.sh/termination", claim["metadata"]["finalizers"])
        node = ENV.get_json("node", claim_name)
        self.assertEqual(node["metadata"]["labels"]["karpenter.sh/nodepool"], "default")
        self.assertEqual(node["metadata"]["labels"].get("karpenter.sh/registered"), "true")
        self.assertEqual(node["metadata"]["labels"].get("karpenter.sh/initialized"), "true")
        self.assertNotIn("karpenter.sh/unregistered",
                         [t["key"] for t in node["spec"].get("taints", [])])

        # kubectl shows Karpenter's columns.
        table = ENV.kubectl("get", "nodeclaims")
        self.assertEqual(table.split("\n")[0].split(),
                         ["NAME", "TYPE", "CAPACITY", "ZONE", "NODE", "READY", "AGE"])
        self.assertIn(claim_name, table)

        # Each pod was told where it goes, as Karpenter tells it.
        events = ENV.items("events", "-n", self.ns, "--field-selector", "reason=Nominated")
        self.assertTrue(events, "no Nominated events")
        self.assertEqual(events[0]["source"]["component"], "karpenter")
        self.assertIn("Pod should schedule on: nodeclaim/" + claim_name, events[0]["message"])

        # /metrics as Prometheus reads it, under Karpenter's names; /healthz and /readyz.
        from prometheus_client.parser import text_string_to_metric_families
        families = {f.name: f for f in text_string_to_metric_families(c.metrics())}
        for name in ("karpenter_build_info", "karpenter_nodeclaims_created",
                     "controller_runtime_reconcile", "leader_election_master_status",
                     "karpenter_cluster_state_synced"):
            self.assertIn(name, families)
        created = [s for s in families["karpenter_nodeclaims_created"].samples
                   if s.name.endswith("_total")]
        self.assertEqual(created[0].labels, {"reason": "provisioning", "nodepool": "default",
                                             "min_values_relaxed": "false"})
        self.assertEqual(created[0].value, 1)
        self.assertEqual(families["leader_election_master_status"].samples[0].value, 1)
        # The cluster-state gauges (refreshed every 10 s) from the informers: every Node the API
        # server holds; no pod the last provisioning round could not place.
        wait_for(lambda: self.gauge(c, "karpenter_cluster_state_node_count") ==
                 len(ENV.items("nodes")), 30, "karpenter_cluster_state_node_count = the Nodes")
        self.assertEqual(self.gauge(c, "karpenter_scheduler_unschedulable_pods_count"), 0)
        self.assertEqual(c.get(c.health_port, "/healthz")[0], 200)
        self.assertEqual(c.get(c.health_port, "/readyz")[0], 200)

        # Scale in: the empty node goes after consolidateAfter.
        ENV.kubectl("delete", "deployment/inflate", "-n", self.ns)
        decision = c.wait_for_log("disrupting node(s)", timeout=90)
        self.assertEqual(decision["reason"], "Empty")
        c.wait_for_log("deleted nodeclaim", timeout=90)
        wait_for(lambda: not self.claims() and not self.kwok_nodes(), 60,
                 "the NodeClaim and its Node removed")

        # SIGTERM: a clean exit that releases the Lease.
        self.assertEqual(c.terminate(), 0, c.tail())
        lease = ENV.get_json("lease", "-n", self.ns, "karpenter-leader-election")
        self.assertEqual(lease["spec"].get("holderIdentity", ""), "")
        self.assertIn("shutting down", c.messages())


class NodeSelectorTest(ControllerTest):
    """The seed's second run: pods that select a 4-CPU type need two of them."""

    def test_node_selector_gives_two_nodes(self):
        ENV.apply(node_pool())
        self.start()
        ENV.apply(deployment("inflate", 5, node_selector={
            "node.kubernetes.io/instance-type": "c-4x-amd64-linux"}), self.ns)
        pods = wait_for(lambda: self.running_pods("inflate", 5), 120, "5 pods Running")
        nodes = {p["spec"]["nodeName"] for p in pods}
        self.assertEqual(len(nodes), 2)
        for n in nodes:
            self.assertEqual(ENV.get_json("node", n)["metadata"]["labels"]
                             ["node.kubernetes.io/instance-type"], "c-4x-amd64-linux")


class TaintedPoolTest(ControllerTest):
    """A GPU-style NodePool's taint keeps pods that do not tolerate it off its nodes."""

    def test_taint_keeps_untolerating_pods_off(self):
        ENV.apply(node_pool(name="gpu", taints=[
            {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
            labels={"pool": "gpu"}))
        c = self.start()
        ENV.apply(deployment("plain", 2, cpu="500m"), self.ns)
        ENV.apply(deployment("tolerant", 2, cpu="500m", tolerations=[
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]), self.ns)
        wait_for(lambda: self.running_pods("tolerant", 2), 120, "tolerating pods Running")
        time.sleep(3)
        plain = self.pods("plain")
        self.assertTrue(all(not p["spec"].get("nodeName") for p in plain),
                        "an untolerating pod was bound to the tainted pool's node")
        events = ENV.items("events", "-n", self.ns, "--field-selector", "reason=FailedScheduling")
        self.assertTrue(any(e["source"].get("component") == "karpenter" for e in events),
                        "nodesmith did not say why the untolerating pods cannot schedule")
        # Those two are what the provisioner's last round could place nowhere.
        wait_for(lambda: self.gauge(c, "karpenter_scheduler_unschedulable_pods_count") == 2, 30,
                 "karpenter_scheduler_unschedulable_pods_count = the 2 untolerating pods")
        for claim in self.claims():
            self.assertEqual(claim["metadata"]["labels"]["karpenter.sh/nodepool"], "gpu")


class ChartRbacTest(ControllerTest):
    """nodesmith runs with exactly the chart's permissions (a ServiceAccount token, not the
    admin certificate): a permission the chart lacks fails this test."""

    def test_walkthrough_under_chart_rbac(self):
        from chart_identity import ChartIdentity  # needs PyYAML: the test virtualenv
        ident = ChartIdentity(ENV.which("kubectl"), ENV.which("helm"), TESTENV_DIR, self.ns,
                              source_dir=SOURCE_DIR)
        ident.create()
        try:
            ENV.apply(node_pool(consolidate_after="5s"))
            env = {k: v for k, v in ident.env.items()
                   if k not in ("METRICS_PORT", "HEALTH_PROBE_PORT", "LOG_LEVEL")}
            c = self.start(kubeconfig=ident.kubeconfig, extra_env=env)
            ENV.apply(deployment("inflate", 3), self.ns)
            wait_for(lambda: self.running_pods("inflate", 3), 120, "3 pods Running")
            ENV.kubectl("delete", "deployment/inflate", "-n", self.ns)
            wait_for(lambda: not self.claims() and not self.kwok_nodes(), 120, "the node removed")
            # A 403 for a namespace being deleted (an earlier test's, its pods still pending) is
            # the API server's lifecycle rule, not RBAC.
            forbidden = [l for l in c.lines() if "forbidden" in json.dumps(l).lower()
                         and "because it is being terminated" not in json.dumps(l)]
            self.assertEqual(forbidden, [], "a request the chart's RBAC refused")
            # Its credential, the ServiceAccount token, is nowhere a person or a scraper reads.
            metrics = c.metrics()
            self.assertEqual(c.terminate(), 0)
            with open(c.log_path) as f:
                self.assertNotIn(ident.token, f.read(), "the token in the log")
            self.assertNotIn(ident.token, metrics, "the token in /metrics")
            self.assertNotIn(ident.token, ENV.kubectl("get", "events", "-A", "-o", "json"),
                             "the token in an Event")
        finally:
            ident.delete()

    def test_a_write_the_chart_does_not_grant_is_refused_and_named(self):
        """Least privilege, the other way round: with `create nodeclaims` taken out of the
        chart's ClusterRole, the API server refuses the launch, and nodesmith says which verb on
        which resource RBAC refused to which ServiceAccount, and what to change; it keeps
        running and creates nothing."""
        from chart_identity import ChartIdentity
        ident = ChartIdentity(ENV.which("kubectl"), ENV.which("helm"), TESTENV_DIR, self.ns,
                              source_dir=SOURCE_DIR)
        ident.create()
        try:
            narrowed = 0
            for role in ident.applied:
                if role["kind"] != "ClusterRole":
                    continue
                rules = []
                for rule in role.get("rules", []):
                    if ("karpenter.sh" in rule.get("apiGroups", []) and "create" in rule.get("verbs", [])
                            and "nodeclaims" in rule.get("resources", [])):
                        others = [r for r in rule["resources"] if r != "nodeclaims"]
                        if others:
                            rules.append(dict(rule, resources=others))
                        rules.append(dict(rule, resources=["nodeclaims"],
                                          verbs=[v for v in rule["verbs"] if v != "create"]))
                        narrowed += 1
                    else:
                        rules.append(rule)
                role["rules"] = rules
                ident.admin("apply", "-f", "-", stdin=json.dumps(role))
            self.assertGreater(narrowed, 0, "no rule of the chart grants create on nodeclaims")
            self.assertFalse(ident.can_i("create", "nodeclaims.karpenter.sh"))
            ENV.apply(node_pool())
            env = {k: v for k, v in ident.env.items()
                   if k not in ("METRICS_PORT", "HEALTH_PROBE_PORT", "LOG_LEVEL")}
            c = self.start(kubeconfig=ident.kubeconfig, extra_env=env)
            ENV.apply(deployment("inflate", 2), self.ns)
            who = "system:serviceaccount:%s:%s" % (self.ns, ident.service_account)

            def refusal():
                for l in c.lines():
                    text = json.dumps(l)
                    if "RBAC does not allow" in text and "to create nodeclaims.karpenter.sh at the cluster scope" in text:
                        return text
                return None
            text = wait_for(refusal, 60, "a log line naming the refused create")
            self.assertIn(who, text)
            self.assertIn("grant it in the ClusterRole or Role bound to that identity", text)
            self.assertEqual(self.claims(), [])
            self.assertIsNone(c.process.poll(), "nodesmith exited:\n" + c.tail())
            self.assertEqual(c.terminate(), 0)
        finally:
            ident.delete()


class LeaderElectionTest(ControllerTest):
    """Two replicas: one leads; killing it hands over within the lease duration, and the pods
    still get exactly one NodeClaim."""

    def test_handover_without_duplicates(self):
        ENV.apply(node_pool())
        first = self.start()
        second = Controller(ENV, BINARY, self.ns)
        try:
            time.sleep(3)
            self.assertNotIn("starting controllers", second.messages(), "two leaders")
            second.wait_ready()
            first.kill()
            took = time.monotonic()
            second.wait_for_log("starting controllers", timeout=30)
            self.assertLess(time.monotonic() - took, 20, "handover took longer than the lease")
            ENV.apply(deployment("inflate", 5), self.ns)
            wait_for(lambda: self.running_pods("inflate", 5), 120, "5 pods Running")
            self.assertEqual(len(self.claims()), 1)
            self.assertEqual(second.terminate(), 0)
        finally:
            second.kill()


class RestartTest(ControllerTest):
    """SIGKILL in the middle of a launch: the restarted controller finds the NodeClaim and its
    Node and neither duplicates nor orphans them."""

    def test_sigkill_mid_launch(self):
        ENV.apply(json.dumps({"apiVersion": "karpenter.kwok.sh/v1alpha1", "kind": "KWOKNodeClass",
                              "metadata": {"name": "default"},
                              "spec": {"nodeRegistrationDelay": "3s"}}))
        ENV.apply(node_pool())
        c = self.start()
        ENV.apply(deployment("inflate", 4), self.ns)
        c.wait_for_log("launched nodeclaim", timeout=60)
        c.kill()  # before the Node is created
        self.assertEqual(len(self.claims()), 1)
        again = self.start()
        pods = wait_for(lambda: self.running_pods("inflate", 4), 120, "4 pods Running")
        time.sleep(2)
        claims = self.claims()
        self.assertEqual(len(claims), 1, [c["metadata"]["name"] for c in claims])
        self.assertEqual({p["spec"]["nodeName"] for p in pods}, {claims[0]["metadata"]["name"]})
        nodes = self.kwok_nodes()
        self.assertEqual([n["metadata"]["name"] for n in nodes], [claims[0]["metadata"]["name"]])
        self.assertEqual(again.terminate(), 0)


    def test_a_disrupted_taint_left_by_a_killed_process_comes_off_and_nothing_else_changes(self):
        # What a SIGKILL in the middle of a disruption leaves: the candidate cordoned with
        # karpenter.sh/disrupted and no command in flight for it. Made by hand here, beside a
        # taint, a label and an annotation of the user's; the restarted controller takes its
        # taint off and keeps the rest of the Node as it was.
        ENV.apply(node_pool(consolidate_after="1h"))
        c = self.start()
        ENV.apply(deployment("inflate", 1), self.ns)
        wait_for(lambda: self.running_pods("inflate", 1), 120, "1 pod Running")
        c.kill()
        name = self.kwok_nodes()[0]["metadata"]["name"]
        users = {"key": "example.com/keep", "value": "yes", "effect": "PreferNoSchedule"}
        taints = ENV.get_json("node", name)["spec"].get("taints", [])
        ENV.kubectl("patch", "node", name, "--type=merge", "-p", json.dumps({
            "metadata": {"labels": {"example.com/team": "a"},
                         "annotations": {"example.com/note": "kept"}},
            "spec": {"taints": taints + [users, {"key": "karpenter.sh/disrupted",
                                                 "effect": "NoSchedule"}]}}))
        before = ENV.get_json("node", name)
        again = self.start()
        after = wait_for(lambda: (lambda n: n if all(
            t["key"] != "karpenter.sh/disrupted" for t in n["spec"].get("taints", [])) else None)(
                ENV.get_json("node", name)), 30, "the disrupted taint removed")
        self.assertEqual(after["spec"]["taints"], taints + [users])
        self.assertEqual(after["metadata"]["labels"], before["metadata"]["labels"])
        self.assertEqual(after["metadata"]["annotations"], before["metadata"]["annotations"])
        self.assertEqual({k: v for k, v in after["spec"].items() if k != "taints"},
                         {k: v for k, v in before["spec"].items() if k != "taints"})
        again.wait_for_log("Removing the disrupted taint from node(s) %s: no disruption of them is "
                           "in flight (one was cut short by a restart)" % name, timeout=5)
        self.assertEqual(len(self.claims()), 1, "the node was not disrupted")
        self.assertEqual(again.terminate(), 0)

class ShadowModeTest(ControllerTest):
    """--dry-run decides but writes nothing except its Lease; its metrics say what it would do."""

    def snapshot(self):
        """Everything nodesmith could write: cluster-scoped objects whole (by resourceVersion),
        and of the test's pods what it could touch; no Event of its own anywhere."""
        state = {}
        for kind in ("nodepools", "nodeclaims", "nodes", "kwoknodeclasses"):
            for o in ENV.items(kind):
                state[(kind, o["metadata"]["name"])] = o["metadata"]["resourceVersion"]
        for p in ENV.items("pods", "-n", self.ns):
            m = p["metadata"]
            state[("pods", m["name"])] = (json.dumps(m.get("labels")), json.dumps(m.get("annotations")),
                                          p["spec"].get("nodeName"), m.get("deletionTimestamp"))
        return state

    def karpenter_events(self):
        """Events from `karpenter` anywhere (earlier tests' namespaces may be going away)."""
        return {(e["metadata"]["namespace"], e["metadata"]["name"], e.get("count"))
                for e in ENV.items("events", "-A")
                if e.get("source", {}).get("component") == "karpenter"
                or e.get("reportingComponent") == "karpenter"}

    def test_dry_run_writes_nothing(self):
        ENV.apply(node_pool())
        ENV.apply(deployment("inflate", 5), self.ns)
        wait_for(lambda: len([p for p in self.pods("inflate") if any(
            c.get("reason") == "Unschedulable" for c in p["status"].get("conditions", []))]) == 5,
            60, "5 pods marked Unschedulable")
        before = self.snapshot()
        events_before = self.karpenter_events()
        c = self.start(args=["--dry-run"])
        c.wait_for_log("dry run: would create", timeout=60)
        wait_for(lambda: "nodesmith_shadow_nodeclaims_would_create_total{" in c.metrics(), 60,
                 "the would-create metric")
        time.sleep(3)
        after = self.snapshot()
        self.maxDiff = None
        self.assertEqual(before, after)
        self.assertEqual(self.karpenter_events() - events_before, set(), "shadow mode wrote Events")
        self.assertEqual(self.claims(), [])
        lease = ENV.get_json("lease", "-n", self.ns, "karpenter-leader-election")
        self.assertTrue(lease["spec"]["holderIdentity"], "shadow mode takes its Lease")
        self.assertEqual(c.terminate(), 0)


class PdbConsolidationTest(ControllerTest):
    """Scale-in with a PodDisruptionBudget: the real Eviction API refuses what the PDB forbids,
    nodesmith waits and retries, no pod is lost, and the cluster ends on fewer nodes."""

    def test_consolidation_respects_pdb(self):
        # 4-CPU nodes only: six 1.5-CPU pods need three of them.
        ENV.apply(node_pool(consolidate_after="5s", requirements=[
            {"key": "node.kubernetes.io/instance-type", "operator": "In",
             "values": ["c-4x-amd64-linux"]}]))
        c = self.start()
        ENV.apply(deployment("web", 6, cpu="1500m"), self.ns)
        wait_for(lambda: self.running_pods("web", 6), 120, "6 pods Running")
        before = len(self.claims())
        self.assertGreaterEqual(before, 3)
        ENV.apply(json.dumps({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                              "metadata": {"name": "web"},
                              "spec": {"maxUnavailable": 1,
                                       "selector": {"matchLabels": {"app": "web"}}}}), self.ns)
        # Two pods left, spread over the nodes: one node can hold both.
        ENV.kubectl("scale", "deployment/web", "-n", self.ns, "--replicas=2")
        c.wait_for_log("disrupting node(s)", timeout=120)
        wait_for(lambda: len(self.claims()) == 1 and self.running_pods("web", 2), 240,
                 "one node left with both pods running")
        # Every pod that left went through the Eviction API (no pod was deleted outright).
        self.assertNotIn("deleting pod", c.messages())
        self.assertEqual(c.terminate(), 0)


class DriftAndExpiryTest(ControllerTest):
    """A NodePool template change drifts its nodes, which are replaced; expireAfter replaces a
    node once it is that old; a karpenter.sh/do-not-disrupt pod holds its node."""

    def node_names(self):
        return sorted(n["metadata"]["name"] for n in self.kwok_nodes())

    def test_template_change_replaces_the_node(self):
        ENV.apply(node_pool(consolidate_after="Never", policy="WhenEmpty"))
        c = self.start()
        ENV.apply(deployment("inflate", 2), self.ns)
        pods = wait_for(lambda: self.running_pods("inflate", 2), 120, "2 pods Running")
        first = {p["spec"]["nodeName"] for p in pods}
        ENV.apply(node_pool(consolidate_after="Never", policy="WhenEmpty",
                            labels={"team": "checkout"}))
        decision = c.wait_for_log("disrupting node(s)", timeout=120)
        self.assertEqual(decision["reason"], "Drifted")

        def moved():
            ps = self.running_pods("inflate", 2)
            if not ps or {p["spec"]["nodeName"] for p in ps} & first:
                return None
            return ps
        pods = wait_for(moved, 180, "the pods on the replacement node")
        node = ENV.get_json("node", pods[0]["spec"]["nodeName"])
        self.assertEqual(node["metadata"]["labels"].get("team"), "checkout")
        wait_for(lambda: not (set(self.node_names()) & first), 240, "the drifted node removed")

    def test_expire_after(self):
        ENV.apply(node_pool(consolidate_after="Never", policy="WhenEmpty", expire_after="40s"))
        c = self.start()
        ENV.apply(deployment("inflate", 1), self.ns)
        pods = wait_for(lambda: self.running_pods("inflate", 1), 120, "the pod Running")
        first = pods[0]["spec"]["nodeName"]
        c.wait_for_log("deleted nodeclaim", timeout=150)
        wait_for(lambda: first not in self.node_names(), 60, "the expired node removed")
        wait_for(lambda: self.running_pods("inflate", 1), 120, "the pod running again")

    def test_do_not_disrupt_holds_the_node(self):
        ENV.apply(node_pool(consolidate_after="5s", policy="WhenEmptyOrUnderutilized"))
        c = self.start()
        # One batch: the held pod and its neighbours share one big node ...
        ENV.apply(deployment("held", 1, cpu="1",
                             annotations={"karpenter.sh/do-not-disrupt": "true"}), self.ns)
        ENV.apply(deployment("filler", 3, cpu="2"), self.ns)
        wait_for(lambda: self.running_pods("held", 1) and self.running_pods("filler", 3), 120,
                 "4 pods Running")
        node = self.running_pods("held", 1)[0]["spec"]["nodeName"]
        # ... which, once they leave, consolidation would replace with a small one — but the
        # annotation forbids disrupting it.
        ENV.kubectl("delete", "deployment/filler", "-n", self.ns)
        time.sleep(45)
        self.assertIn(node, self.node_names())
        self.assertEqual([l for l in c.lines() if l.get("message") == "disrupting node(s)"
                          and node in json.dumps(l)], [])


class ApiServerRestartTest(ControllerTest):
    """kube-apiserver restarts under a running nodesmith: it keeps leading (the renew deadline
    outlasts the restart), its informers relist, and the next pods get their node."""

    def test_survives_an_api_server_restart(self):
        ENV.apply(node_pool())
        c = self.start()
        subprocess.run([os.path.join(SOURCE_DIR, "scripts", "testenv", "restart"), TESTENV_DIR,
                        "kube-apiserver"], check=True, capture_output=True, timeout=180)
        ENV.apply(deployment("inflate", 2), self.ns)
        wait_for(lambda: self.running_pods("inflate", 2), 120, "2 pods Running after the restart")
        self.assertIsNone(c.process.poll(), "nodesmith exited:\n" + c.tail())
        self.assertEqual(len(self.claims()), 1)
        self.assertEqual(c.terminate(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
