#!/usr/bin/env python3
"""End-to-end specifications of the nodesmith binary, driven through the CLI contract
(../shared/design/cli-contract.md): given these input files, expect this output and exit code."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

BINARY, SOURCE_DIR, SHARED_DATA = sys.argv[1:4]
EXAMPLES = os.path.join(SOURCE_DIR, "examples")


def run(*args, stdin=None):
    p = subprocess.run([BINARY, *args], input=stdin, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def plan(*files, extra=()):
    args = ["plan", "-o", "json"]
    for f in files:
        args += ["-f", f]
    code, out, err = run(*args, *extra)
    assert code == 0, f"plan exited {code}: {err}"
    return json.loads(out)


class SeedWalkthrough(unittest.TestCase):
    def test_five_one_cpu_pods_become_one_eight_vcpu_spot_node(self):
        p = plan(os.path.join(EXAMPLES, "seed-walkthrough"))
        self.assertEqual(p["kind"], "Plan")
        self.assertEqual(len(p["newNodeClaims"]), 1)
        claim = p["newNodeClaims"][0]
        self.assertEqual(len(claim["pods"]), 5)
        self.assertEqual(claim["launch"]["capacityType"], "spot")
        self.assertTrue(claim["launch"]["instanceType"].endswith(".2xlarge"), claim["launch"])
        self.assertLessEqual(len(claim["instanceTypeOptions"]), 60)
        self.assertEqual(p["summary"]["pendingPods"], 5)
        self.assertEqual(p["summary"]["scheduled"], 5)
        self.assertLessEqual(p["summary"]["lowerBoundPerHour"], p["summary"]["pricePerHour"] + 1e-9)

    def test_node_selector_c5_xlarge_gives_two_nodes_of_three_and_two(self):
        p = plan(os.path.join(EXAMPLES, "seed-nodeselector"))
        sizes = sorted(len(c["pods"]) for c in p["newNodeClaims"])
        self.assertEqual(sizes, [2, 3])
        for c in p["newNodeClaims"]:
            self.assertEqual(c["instanceTypeOptions"], ["c5.xlarge"])

    def test_text_output_is_a_table(self):
        code, out, err = run("plan", "-f", os.path.join(EXAMPLES, "seed-walkthrough"), "-o", "text")
        self.assertEqual(code, 0, err)
        self.assertIn("default/inflate-1", out)


class Convert(unittest.TestCase):
    def test_seed_provisioner_converts_to_v1_that_loads_again(self):
        code, out, err = run("convert", "-f", os.path.join(EXAMPLES, "seed-walkthrough"))
        self.assertEqual(code, 0, err)
        self.assertIn("apiVersion: karpenter.sh/v1", out)
        self.assertIn("kind: NodePool", out)
        self.assertIn("kind: EC2NodeClass", out)
        self.assertNotIn("v1alpha5", out)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write(out)
        try:
            p = plan(f.name)
            self.assertEqual(len(p["newNodeClaims"]), 1)
        finally:
            os.unlink(f.name)


class BadInput(unittest.TestCase):
    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_min_values_above_value_count_names_file_document_object_and_field(self):
        path = self.write("""apiVersion: v1
kind: ConfigMap
metadata: {name: ignored}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [a, b], minValues: 3}
""")
        code, out, err = run("plan", "-f", path)
        self.assertEqual(code, 2)
        self.assertIn(os.path.basename(path), err)
        self.assertIn("document 2", err)
        self.assertIn("NodePool default", err)
        self.assertIn("spec.template.spec.requirements[0].minValues", err)

    def test_unknown_kind_is_a_warning_not_an_error(self):
        path = self.write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
        code, out, err = run("plan", "-f", path, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertIn("ConfigMap", err)

    def test_truncated_yaml_is_exit_2(self):
        path = self.write("apiVersion: v1\nkind: Pod\nmetadata: {name: [x\n")
        code, out, err = run("plan", "-f", path)
        self.assertEqual(code, 2)
        self.assertIn(os.path.basename(path), err)

    def test_huge_quantity_is_a_clear_error(self):
        path = self.write("""apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
  - name: c
    resources: {requests: {cpu: 1e400}}
""")
        code, out, err = run("plan", "-f", path)
        self.assertEqual(code, 2, err)
        self.assertIn("cpu", err)

    def test_text_that_is_not_utf8_is_exit_2_in_every_subcommand(self):
        # A raw byte, and YAML's "\\N" escape that decodes to one.
        for value in (b"a\xff", b'"a\\N"'):
            f = tempfile.NamedTemporaryFile("wb", suffix=".yaml", delete=False)
            f.write(b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: " + value +
                    b"}\nspec:\n  containers: [{name: c}]\n")
            f.close()
            self.addCleanup(os.unlink, f.name)
            for args in (["plan"], ["disrupt"], ["simulate"], ["convert"], ["plan", "-o", "json"]):
                code, out, err = run(*args, "-f", f.name)
                self.assertEqual(code, 2, f"{args} {value}: {err}")
                self.assertIn(os.path.basename(f.name), err)
                self.assertIn("metadata.labels.app: is not valid UTF-8 text", err)

    def test_bad_flag_is_exit_2(self):
        code, out, err = run("plan", "--no-such-flag")
        self.assertEqual(code, 2)

    def test_missing_file_is_exit_2(self):
        code, out, err = run("plan", "-f", "/nonexistent/x.yaml")
        self.assertEqual(code, 2)
        self.assertIn("/nonexistent/x.yaml", err)


class Simulate(unittest.TestCase):
    ARGS = ["simulate", "-f", os.path.join(EXAMPLES, "seed-walkthrough", "provisioner.yaml"),
            "-f", os.path.join(EXAMPLES, "scenarios", "seed-walkthrough.yaml")]

    def simulate(self, *extra):
        code, out, err = run(*self.ARGS, *extra)
        self.assertEqual(code, 0, err)
        return out

    def test_walkthrough_launches_one_node_in_seconds_and_removes_it_after_the_delete(self):
        result = json.loads(self.simulate("-o", "json"))
        self.assertEqual(result["kind"], "SimulationResult")
        events = result["events"]
        created = [e for e in events if e["type"] == "NodeClaimCreated"]
        self.assertEqual(len(created), 1)
        self.assertLessEqual(created[0]["t"], 11.0)
        running = [e for e in events if e["type"] == "PodRunning"]
        self.assertEqual(len(running), 5)
        terminated = [e for e in events if e["type"] == "InstanceTerminated"]
        self.assertEqual(len(terminated), 1)
        # inflate is deleted at 25m; the empty node goes 30s (ttlSecondsAfterEmpty) later.
        self.assertGreaterEqual(terminated[0]["t"], 25 * 60 + 30)
        self.assertLess(terminated[0]["t"], 25 * 60 + 60)
        summary = result["summary"]
        for field in ["nodesLaunched", "nodesTerminated", "cost", "nodeHours", "podStartLatencySeconds",
                      "avgCpuUtilization", "avgMemoryUtilization", "unschedulablePods"]:
            self.assertIn(field, summary)
        self.assertEqual(summary["nodesLaunched"], 1)
        self.assertEqual(summary["unschedulablePods"], 0)
        self.assertGreater(summary["cost"], 0)

    def test_text_log_reads_like_the_seed_walkthrough(self):
        out = self.simulate("-o", "text")
        for line in ["Found 5 provisionable pods", "Computed packing for 5 pod(s)", "Launched instance:",
                     "Triggering termination after 30s for empty node", "Cordoned node", "Deleted node"]:
            self.assertIn(line, out)

    def test_a_negative_seed_is_exit_2(self):
        code, out, err = run(*self.ARGS, "--seed", "-1")
        self.assertEqual(code, 2, err)
        self.assertIn("--seed", err)

    def test_an_unwritable_report_is_refused_before_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "no-such-dir", "report.html")
            code, out, err = run(*self.ARGS, "-o", "json", "--report", path)
            self.assertEqual(code, 2, err)
            self.assertIn("--report: cannot write " + path, err)
            self.assertEqual(out, "", "nothing was simulated")

    def test_same_inputs_and_seed_give_identical_output(self):
        self.assertEqual(self.simulate("-o", "json", "--seed", "7"), self.simulate("-o", "json", "--seed", "7"))


class Catalog(unittest.TestCase):
    def test_aws_catalog_lists_m5_large_with_29_pods(self):
        code, out, err = run("catalog", "--catalog", "aws", "-o", "json")
        self.assertEqual(code, 0, err)
        types = {t["name"]: t for t in json.loads(out)["instanceTypes"]}
        self.assertIn("m5.large", types)
        self.assertIn("c5.2xlarge", types)

    def test_kwok_catalog(self):
        code, out, err = run("catalog", "--catalog", "kwok", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertGreater(len(json.loads(out)["instanceTypes"]), 10)


DISRUPT_EXAMPLE = os.path.join(EXAMPLES, "disrupt")
# A Saturday, more than consolidateAfter (30m) after the last pod change on every node.
SNAPSHOT_NOW = "2025-06-07T12:30:00Z"


def disrupt(*extra, now=SNAPSHOT_NOW, files=(DISRUPT_EXAMPLE,)):
    args = ["disrupt", "-o", "json", "--now", now]
    for f in files:
        args += ["-f", f]
    code, out, err = run(*args, *extra)
    assert code == 0, f"disrupt exited {code}: {err}"
    return json.loads(out)


class Disrupt(unittest.TestCase):
    """examples/disrupt: seven on-demand nodes of one NodePool. ip-10-0-2-10 runs only kube-proxy,
    ip-10-0-2-20 and ip-10-0-2-30 (m5.xlarge) carry three small cart pods between them,
    ip-10-0-3-10 passed its expireAfter, ip-10-0-1-20 runs a do-not-disrupt pod and the api PDB
    allows no eviction from ip-10-0-1-30."""

    def test_first_command_deletes_the_empty_node(self):
        p = disrupt()
        self.assertEqual(p["kind"], "DisruptionPlan")
        self.assertEqual(len(p["commands"]), 1)
        command = p["commands"][0]
        self.assertEqual(command["method"], "emptiness")
        self.assertEqual(command["reason"], "Empty")
        self.assertEqual(command["candidates"], ["ip-10-0-2-10"])
        self.assertEqual(command["replacements"], [])
        self.assertAlmostEqual(command["savingsPerHour"], 0.096)  # an on-demand m5.large
        summary = p["summary"]
        self.assertEqual(summary["nodes"], 7)
        # m5.2xlarge + 3 m5.large + 2 m5.xlarge + c5.xlarge, on-demand in us-west-2.
        self.assertAlmostEqual(summary["pricePerHourBefore"], 0.384 + 3 * 0.096 + 2 * 0.192 + 0.17)
        self.assertAlmostEqual(summary["pricePerHourAfter"], summary["pricePerHourBefore"] - 0.096)
        self.assertGreaterEqual(summary["solveSeconds"], 0)

    def test_blocked_names_the_do_not_disrupt_pod_and_the_pdb(self):
        blocked = {b["node"]: b["reason"] for b in disrupt()["blocked"]}
        self.assertIn("ip-10-0-1-20", blocked)
        self.assertIn("shop/ledger-0", blocked["ip-10-0-1-20"])
        self.assertIn("karpenter.sh/do-not-disrupt", blocked["ip-10-0-1-20"])
        self.assertIn("ip-10-0-1-30", blocked)
        self.assertIn("shop/api", blocked["ip-10-0-1-30"])
        self.assertIn("pdb", blocked["ip-10-0-1-30"].lower())
        self.assertNotIn("ip-10-0-2-10", blocked)

    def test_until_stable_lists_every_command_and_converges(self):
        p = disrupt("--until-stable")
        commands = p["commands"]
        self.assertGreaterEqual(len(commands), 3, commands)
        self.assertEqual(commands[0]["candidates"], ["ip-10-0-2-10"])
        # Karpenter's order: emptiness, drift, expiration, then consolidation.
        expired = [c for c in commands if c["method"] == "expiration"]
        self.assertEqual([c["candidates"] for c in expired], [["ip-10-0-3-10"]])
        self.assertEqual(expired[0]["reason"], "Expired")
        disrupted = [n for c in commands for n in c["candidates"]]
        self.assertEqual(len(disrupted), len(set(disrupted)), "a node disrupted twice")
        # The underutilised pair is consolidated away; the blocked nodes are never touched.
        for node in ["ip-10-0-2-20", "ip-10-0-2-30"]:
            self.assertIn(node, disrupted)
        self.assertTrue(any(c["reason"] == "Underutilized" for c in commands))
        for node in ["ip-10-0-1-20", "ip-10-0-1-30"]:
            self.assertNotIn(node, disrupted)
        for c in commands:
            self.assertIn(c["method"], ["emptiness", "drift", "expiration", "multi-node", "single-node"])
            if c["reason"] == "Underutilized":
                self.assertGreater(c["savingsPerHour"], 0, c)
        summary = p["summary"]
        self.assertAlmostEqual(summary["pricePerHourAfter"],
                               summary["pricePerHourBefore"] - sum(c["savingsPerHour"] for c in commands))
        self.assertLess(summary["pricePerHourAfter"], summary["pricePerHourBefore"] - 0.096)

    def test_until_stable_prices_the_nodes_expired_pods_need(self):
        # By August every node has passed its 720h expireAfter: expiration takes them all
        # (forcefully), and their pods need new nodes, which the price after must include.
        p = disrupt("--until-stable", now="2025-08-01T00:00:00Z")
        expired = [c for c in p["commands"] if c["method"] == "expiration"]
        self.assertEqual(len(expired), 1, p["commands"])
        self.assertEqual(len(expired[0]["candidates"]), 6)
        summary = p["summary"]
        self.assertGreater(summary["pricePerHourAfter"], 0.2,
                           "the pods of expired nodes run somewhere that costs money")
        self.assertLess(summary["pricePerHourAfter"], summary["pricePerHourBefore"])

    def test_json_follows_the_contract(self):
        p = disrupt("--until-stable")
        self.assertEqual(set(p), {"kind", "commands", "blocked", "summary"})
        for field in ["nodes", "pricePerHourBefore", "pricePerHourAfter", "solveSeconds"]:
            self.assertIn(field, p["summary"])
        for c in p["commands"]:
            for field in ["method", "reason", "candidates", "replacements", "savingsPerHour"]:
                self.assertIn(field, c)
            self.assertIn(c["reason"], ["Empty", "Drifted", "Expired", "Underutilized"])
        replacements = [r for c in p["commands"] for r in c["replacements"]]
        self.assertTrue(replacements, "expected at least one replacement NodeClaim")
        for r in replacements:  # the shape of plan's newNodeClaims
            for field in ["name", "nodePool", "instanceTypeOptions", "launch", "labels", "taints",
                          "requests", "pods"]:
                self.assertIn(field, r)
            self.assertEqual(set(r["launch"]), {"instanceType", "zone", "capacityType", "pricePerHour"})
            self.assertEqual(r["launch"]["capacityType"], "on-demand")
            self.assertEqual(r["nodePool"], "default")
            self.assertIn(r["launch"]["instanceType"], r["instanceTypeOptions"])
        for b in p["blocked"]:
            self.assertEqual(set(b), {"node", "reason"})

    def test_a_drifted_condition_in_the_input_is_honoured(self):
        # Cloud-side drift (an AMI, a subnet) is not visible in a snapshot: a Drifted=True
        # condition the input carries is kept, and its node is replaced by the drift method.
        with tempfile.TemporaryDirectory() as d:
            for name in os.listdir(DISRUPT_EXAMPLE):
                with open(os.path.join(DISRUPT_EXAMPLE, name)) as f:
                    text = f.read()
                if name == "nodeclaims.yaml":  # the first NodeClaim is default-7xk2p, ip-10-0-1-10
                    ready = '  - {type: Ready, status: "True", reason: Ready, lastTransitionTime: "2025-06-01T08:02:00Z"}\n'
                    self.assertIn(ready, text)
                    text = text.replace(ready, ready + '  - {type: Drifted, status: "True", reason: AMIDrift, '
                                        'lastTransitionTime: "2025-06-07T09:00:00Z"}\n', 1)
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            p = disrupt("--until-stable", files=(d,))
        drift = [c for c in p["commands"] if c["method"] == "drift"]
        self.assertEqual([c["candidates"] for c in drift], [["ip-10-0-1-10"]], p["commands"])
        self.assertEqual(drift[0]["reason"], "Drifted")

    def test_nothing_is_consolidated_before_consolidate_after_elapses(self):
        # 11:45: every node had a pod event after 11:15, and consolidateAfter is 30m. The expired
        # node is replaced regardless: expiration does not wait for consolidateAfter.
        p = disrupt("--until-stable", now="2025-06-07T11:45:00Z")
        reasons = [c["reason"] for c in p["commands"]]
        self.assertNotIn("Empty", reasons)
        self.assertNotIn("Underutilized", reasons)
        self.assertEqual([c["candidates"] for c in p["commands"]], [["ip-10-0-3-10"]])

    def test_weekday_budget_stops_underutilized_consolidation_in_business_hours(self):
        # Monday 10:00 UTC: the budget {nodes: 0, schedule: "0 9 * * mon-fri", duration: 8h,
        # reasons: [Underutilized]} is active; empty nodes and expired ones still go.
        p = disrupt("--until-stable", now="2025-06-09T10:00:00Z")
        reasons = [c["reason"] for c in p["commands"]]
        self.assertIn("Empty", reasons)
        self.assertIn("Expired", reasons)
        self.assertNotIn("Underutilized", reasons)
        blocked = {b["node"]: b["reason"] for b in p["blocked"]}
        self.assertIn("Underutilized", blocked.get("ip-10-0-2-20", ""))
        self.assertIn("budget", blocked.get("ip-10-0-2-20", ""))

    def test_text_output_reads_as_tables(self):
        code, out, err = run("disrupt", "-f", DISRUPT_EXAMPLE, "--now", SNAPSHOT_NOW, "--until-stable")
        self.assertEqual(code, 0, err)
        self.assertIn("Command 1: emptiness (Empty)", out)
        self.assertIn("ip-10-0-2-10", out)
        self.assertIn("REPLACEMENT", out)
        self.assertIn("Blocked nodes:", out)
        self.assertIn("shop/ledger-0", out)
        self.assertIn("Summary: 7 managed nodes", out)

    def test_bad_now_is_exit_2_naming_the_flag(self):
        code, out, err = run("disrupt", "-f", DISRUPT_EXAMPLE, "--now", "yesterday")
        self.assertEqual(code, 2)
        self.assertIn("--now", err)
        self.assertIn("yesterday", err)
        self.assertEqual(out, "")
        code, out, err = run("disrupt", "-f", DISRUPT_EXAMPLE, "--now", "")
        self.assertEqual(code, 2, "an empty --now is not the current time")
        self.assertIn("--now", err)

    def test_duplicate_object_is_exit_2_naming_it(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("apiVersion: v1\nkind: Node\nmetadata: {name: ip-10-0-2-10}\n")
        self.addCleanup(os.unlink, f.name)
        code, out, err = run("disrupt", "-f", DISRUPT_EXAMPLE, "-f", f.name, "--now", SNAPSHOT_NOW)
        self.assertEqual(code, 2, err)
        self.assertIn("ip-10-0-2-10", err)
        self.assertIn("Node", err)

    def test_nothing_to_do_is_exit_0(self):
        # The NodePool alone: no nodes, nothing to disrupt.
        p = disrupt(files=(os.path.join(DISRUPT_EXAMPLE, "nodepool.yaml"),))
        self.assertEqual(p["commands"], [])
        self.assertEqual(p["summary"]["nodes"], 0)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
