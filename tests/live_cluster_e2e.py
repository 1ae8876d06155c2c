#!/usr/bin/env python3
"""`nodesmith plan` and `nodesmith disrupt` against a live cluster (the test control plane) give
exactly the answer they give for a `kubectl get -o yaml` dump of the same objects.

Usage: live_cluster_e2e.py NODESMITH SOURCE_DIR TESTENV_DIR SHARED_DATA"""
import datetime
import re
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

BINARY, SOURCE_DIR, TESTENV_DIR, SHARED_DATA = sys.argv[1:5]
EXAMPLES = os.path.join(SOURCE_DIR, "examples")
KUBECONFIG = os.path.join(TESTENV_DIR, "kubeconfig")
DUMP_KINDS = ("nodepools,nodeclaims,ec2nodeclasses,nodes,pods,deployments,replicasets,statefulsets,"
              "daemonsets,jobs,poddisruptionbudgets,persistentvolumeclaims,persistentvolumes,storageclasses")


def testenv_path():
    with open(os.path.join(TESTENV_DIR, "env")) as f:
        for line in f:
            if line.startswith("export PATH="):
                return line[len("export PATH="):].strip().strip('"\'').split(":$PATH")[0]
    raise RuntimeError("no PATH in %s/env" % TESTENV_DIR)


ENV = dict(os.environ, KUBECONFIG=KUBECONFIG, PATH=testenv_path() + ":" + os.environ["PATH"])


def kubectl(*args, stdin=None, check=True):
    p = subprocess.run(["kubectl", *args], input=stdin, capture_output=True, text=True, env=ENV, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError("kubectl %s: %s" % (" ".join(args), p.stderr))
    return p.stdout


def nodesmith(*args, env=None):
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120, env=env or ENV)
    return p.returncode, p.stdout, p.stderr


def objects_of(path):
    """The objects of a manifest file as JSON, without the server-owned identity fields."""
    text, items, pos = kubectl("create", "--dry-run=client", "-o", "json", "-f", path), [], 0
    decoder = json.JSONDecoder()
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        doc, pos = decoder.raw_decode(text, pos)
        items += doc["items"] if doc.get("kind") == "List" else [doc]
    for o in items:
        for f in ("uid", "creationTimestamp", "ownerReferences", "resourceVersion"):
            o["metadata"].pop(f, None)
    return items


def apply_with_status(objs):
    """Creates objects, then writes their status through the status subresource (the server
    ignores the status of a create)."""
    for ns in sorted({o["metadata"].get("namespace") for o in objs} - {None, "", "default"}):
        if subprocess.run(["kubectl", "get", "namespace", ns], capture_output=True, env=ENV).returncode != 0:
            kubectl("create", "namespace", ns)
    for o in objs:
        status = o.pop("status", None)
        kubectl("apply", "--server-side", "-f", "-", stdin=json.dumps(o))
        if status and o["kind"] in ("Node", "NodeClaim", "Pod"):
            ns = ["-n", o["metadata"]["namespace"]] if o["metadata"].get("namespace") else []
            kubectl("patch", o["kind"].lower(), o["metadata"]["name"], *ns, "--subresource=status",
                    "--type=merge", "-p", json.dumps({"status": status}))


def ensure_reference_crds():
    kubectl("apply", "--server-side", "-f", os.path.join(SHARED_DATA, "karpenter-crds"))
    kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/nodepools.karpenter.sh",
            "crd/nodeclaims.karpenter.sh", "crd/ec2nodeclasses.karpenter.k8s.aws")


def without_timings(fmt, out):
    """The output less how long the solve took, which differs from run to run."""
    if fmt == "json":
        doc = json.loads(out)
        for key in ("solveSeconds", "boundSeconds", "snapshotSeconds", "decisionSeconds"):
            doc.get("summary", {}).pop(key, None)
        return json.dumps(doc, indent=1, sort_keys=False)
    out = re.sub(r" \(bound [0-9.e-]+s, snapshot [0-9.e-]+s\)", "", out)
    return re.sub(r"(solved|decided) in [0-9.e-]+s", r"\1 in Ns", out)


def same_answer(test, command, extra=()):
    """Runs COMMAND against the live cluster and against a dump of it, for both output formats,
    retrying while the cluster is still changing under the two reads."""
    for attempt in range(5):
        with tempfile.TemporaryDirectory() as d:
            dump = os.path.join(d, "dump.yaml")
            before = kubectl("get", DUMP_KINDS, "-A", "-o", "yaml")
            with open(dump, "w") as f:
                f.write(before)
            results = {}
            for fmt in ("json", "text"):
                live = nodesmith(command, "--kubeconfig", KUBECONFIG, "-o", fmt, *extra)
                files = nodesmith(command, "-f", dump, "-o", fmt, *extra)
                results[fmt] = (live, files)
            after = kubectl("get", DUMP_KINDS, "-A", "-o", "yaml")
            if before != after:
                time.sleep(2)
                continue
            for fmt, (live, files) in results.items():
                test.assertEqual(live[0], 0, live[2])
                test.assertEqual(files[0], 0, files[2])
                test.assertEqual(without_timings(fmt, live[1]), without_timings(fmt, files[1]), "%s -o %s differs between --kubeconfig and -f" % (command, fmt))
            return json.loads(results["json"][0][1])
    test.fail("the cluster kept changing between reads")


def remove_default_pool():
    """What an earlier test may have left: the NodePool and EC2NodeClass both examples call default."""
    kubectl("delete", "nodepool,ec2nodeclass", "default", "--ignore-not-found", check=False)


class LivePlan(unittest.TestCase):
    def setUp(self):
        ensure_reference_crds()
        remove_default_pool()
        for f in ("nodepool.yaml", "ec2nodeclass.yaml", "inflate.yaml"):
            kubectl("apply", "-f", os.path.join(EXAMPLES, "v1", f))

    def tearDown(self):
        for f in ("inflate.yaml", "nodepool.yaml", "ec2nodeclass.yaml"):
            kubectl("delete", "--ignore-not-found", "--wait=false", "-f", os.path.join(EXAMPLES, "v1", f), check=False)

    def test_the_walkthrough_deployment_planned_live_is_planned_as_its_dump(self):
        # The real controller-manager turns the Deployment into five pending pods.
        for _ in range(120):
            pods = json.loads(kubectl("get", "pods", "-n", "default", "-l", "app=inflate", "-o", "json"))["items"]
            if len(pods) == 5:
                break
            time.sleep(0.5)
        self.assertEqual(len(pods), 5)
        plan = same_answer(self, "plan")
        inflate = [p for c in plan["newNodeClaims"] for p in c["pods"] if p.startswith("default/inflate-")]
        self.assertEqual(len(inflate), 5, plan)


class LiveDisrupt(unittest.TestCase):
    FILES = ("nodepool.yaml", "nodes.yaml", "nodeclaims.yaml", "pods.yaml")

    def setUp(self):
        ensure_reference_crds()
        remove_default_pool()
        objs = []
        for f in self.FILES:
            objs += objects_of(os.path.join(EXAMPLES, "disrupt", f))
        apply_with_status(objs)

    def tearDown(self):
        for f in reversed(self.FILES):
            kubectl("delete", "--ignore-not-found", "--wait=false", "--grace-period=0", "--force",
                    "-f", os.path.join(EXAMPLES, "disrupt", f), check=False)
        # Nodes and NodeClaims keep their finalizer: nobody runs the termination controller here.
        for name in kubectl("get", "nodeclaims,nodes", "-o", "name", check=False).split():
            kubectl("patch", name, "--type=merge", "-p", '{"metadata":{"finalizers":null}}', check=False)

    def test_the_snapshot_disrupted_live_is_disrupted_as_its_dump(self):
        now = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        result = same_answer(self, "disrupt", ("--now", now))
        self.assertIn("nodes", json.dumps(result))

    def test_read_only(self):
        before = kubectl("get", DUMP_KINDS, "-A", "-o", "jsonpath={range .items[*]}{.metadata.resourceVersion} {end}")
        code, _, err = nodesmith("disrupt", "--kubeconfig", KUBECONFIG, "-o", "json")
        self.assertEqual(code, 0, err)
        after = kubectl("get", DUMP_KINDS, "-A", "-o", "jsonpath={range .items[*]}{.metadata.resourceVersion} {end}")
        self.assertEqual(before, after)


class LiveErrors(unittest.TestCase):
    def test_an_unreachable_cluster_is_one_line_and_exit_2_or_1(self):
        with tempfile.TemporaryDirectory() as d:
            cfg = os.path.join(d, "config")
            with open(KUBECONFIG) as f:
                text = f.read()
            import re
            with open(cfg, "w") as f:
                f.write(re.sub(r"server: https://127.0.0.1:\d+", "server: https://127.0.0.1:1", text))
            code, out, err = nodesmith("plan", "--kubeconfig", cfg)
            self.assertNotEqual(code, 0)
            self.assertIn("cannot reach the Kubernetes API server at https://127.0.0.1:1", err)
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_a_missing_context_lists_the_ones_there_are(self):
        code, out, err = nodesmith("plan", "--kubeconfig", KUBECONFIG, "--context", "nope")
        self.assertEqual(code, 2)
        self.assertIn("nope", err)
        self.assertIn("nodesmith-test", err)

    def test_forbidden_names_the_user(self):
        code, out, err = nodesmith("plan", "--kubeconfig", os.path.join(TESTENV_DIR, "kubeconfig-restricted"))
        self.assertNotEqual(code, 0)
        self.assertIn("RBAC does not allow", err)
        self.assertIn("nodesmith-restricted", err)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
