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


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
