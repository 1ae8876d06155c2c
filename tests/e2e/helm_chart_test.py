#!/usr/bin/env python3
"""The Helm chart (deploy/helm/nodesmith) and the image's Dockerfile (deploy/Dockerfile).

- `helm lint`; `helm template` with the defaults and with Karpenter-style values files
  (tests/e2e/testdata/helm): the env vars, ports, probes, security context, affinity, PDB,
  ServiceMonitor; the RBAC rules equal, rule for rule, the lists below; kwok adds `create nodes`,
  additionalClusterRoleRules are appended, dryRun sets DRY_RUN and keeps only reads; a missing
  settings.clusterName fails the render with its message.
- The CRDs the chart carries (crds/ -> deploy/crds) are nodesmith's.
- On the test control plane: `kubectl apply --dry-run=server` of the rendered chart and its CRDs;
  the chart's identity (tests/e2e/chart_identity.py) is allowed exactly what the rules say, as the
  API server's authorizer answers; `helm install --skip-crds` leaves installed CRDs alone.
- hadolint passes on deploy/Dockerfile, and its runtime stage installs the package of every
  shared library the built binary loads.

Usage: helm_chart_test.py --source-dir DIR --testenv-dir DIR --helm HELM --kubectl KUBECTL
                          --hadolint HADOLINT [--shared-data DIR] [--nodesmith BINARY]
                          [unittest arguments]"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import chart_identity  # noqa: E402

ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--source-dir", default=os.path.abspath(os.path.join(HERE, "..", "..")))
ap.add_argument("--testenv-dir", required=True)
ap.add_argument("--helm", required=True)
ap.add_argument("--kubectl", required=True)
ap.add_argument("--hadolint", required=True)
ap.add_argument("--shared-data", default=None)
ap.add_argument("--nodesmith", default=None, help="the built binary, to check the image's runtime libraries")
ARGS, UNITTEST_ARGS = ap.parse_known_args()
SOURCE_DIR = os.path.abspath(ARGS.source_dir)
CHART = os.path.join(SOURCE_DIR, "deploy", "helm", "nodesmith")
CRD_DIR = os.path.join(SOURCE_DIR, "deploy", "crds")
DOCKERFILE = os.path.join(SOURCE_DIR, "deploy", "Dockerfile")
TESTDATA = os.path.join(HERE, "testdata", "helm")
SHARED_DATA = ARGS.shared_data or os.path.join(SOURCE_DIR, "..", "shared", "data")
KUBECONFIG = os.path.join(ARGS.testenv_dir, "kubeconfig")
RELEASE, NAMESPACE = "karpenter", "karpenter"

# ---- what the chart must grant, rule for rule ----------------------------------------------------
READ = ["get", "list", "watch"]
CORE_READ_RULES = [
    {"apiGroups": ["karpenter.sh"], "resources": ["nodepools", "nodepools/status", "nodeclaims", "nodeclaims/status"], "verbs": READ},
    {"apiGroups": [""], "resources": ["pods", "nodes", "persistentvolumes", "persistentvolumeclaims", "replicationcontrollers", "namespaces", "podtemplates"], "verbs": READ},
    {"apiGroups": ["storage.k8s.io"], "resources": ["storageclasses", "csinodes", "volumeattachments"], "verbs": READ},
    {"apiGroups": ["apps"], "resources": ["daemonsets", "deployments", "replicasets", "statefulsets"], "verbs": READ},
    {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": READ},
    {"apiGroups": [""], "resources": ["events"], "verbs": READ},
]
CORE_WRITE_RULES = [
    {"apiGroups": ["karpenter.sh"], "resources": ["nodeclaims", "nodeclaims/status"], "verbs": ["create", "delete", "update", "patch"]},
    {"apiGroups": ["karpenter.sh"], "resources": ["nodepools", "nodepools/status"], "verbs": ["update", "patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
    {"apiGroups": [""], "resources": ["nodes"], "verbs": ["patch", "delete", "update"]},
    {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]},
]
AWS_READ_RULES = [
    {"apiGroups": ["karpenter.k8s.aws"], "resources": ["ec2nodeclasses"], "verbs": READ},
    {"apiGroups": [""], "resources": ["services"], "verbs": ["get"], "resourceNames": ["kube-dns"]},
    {"apiGroups": ["networking.k8s.io"], "resources": ["servicecidrs"], "verbs": ["get"], "resourceNames": ["kubernetes"]},
]
AWS_WRITE_RULES = [{"apiGroups": ["karpenter.k8s.aws"], "resources": ["ec2nodeclasses", "ec2nodeclasses/status"], "verbs": ["patch", "update"]}]
KWOK_READ_RULES = [{"apiGroups": ["karpenter.kwok.sh"], "resources": ["kwoknodeclasses"], "verbs": READ}]
KWOK_WRITE_RULES = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["create"]}]
LEASE_RULES = [
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get", "watch"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["patch", "update"], "resourceNames": ["karpenter-leader-election"]},
    {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
]
ADMIN_VERBS = ["get", "list", "watch", "create", "delete", "patch"]
ADMIN_RULES = {
    "aws": [{"apiGroups": ["karpenter.sh"], "resources": ["nodepools", "nodepools/status", "nodeclaims", "nodeclaims/status"], "verbs": ADMIN_VERBS},
            {"apiGroups": ["karpenter.k8s.aws"], "resources": ["ec2nodeclasses"], "verbs": ADMIN_VERBS}],
    "kwok": [{"apiGroups": ["karpenter.sh"], "resources": ["nodepools", "nodepools/status", "nodeclaims", "nodeclaims/status"], "verbs": ADMIN_VERBS},
             {"apiGroups": ["karpenter.kwok.sh"], "resources": ["kwoknodeclasses"], "verbs": ADMIN_VERBS}],
}


def expected_rules(provider="aws", dry_run=False):
    """{role kind/name suffix: rules} of the controller's roles."""
    core = CORE_READ_RULES + ([] if dry_run else CORE_WRITE_RULES)
    if provider == "aws":
        prov = AWS_READ_RULES + ([] if dry_run else AWS_WRITE_RULES)
    else:
        prov = KWOK_READ_RULES + ([] if dry_run else KWOK_WRITE_RULES)
    return {"core": core, "provider": prov, "lease": LEASE_RULES}


# The environment of the controller container with the default values and clusterName demo, in order.
DEFAULT_ENV = [
    {"name": "CLOUD_PROVIDER", "value": "aws"},
    {"name": "LOG_LEVEL", "value": "info"},
    {"name": "LOG_OUTPUT_PATHS", "value": "stdout"},
    {"name": "LOG_ERROR_OUTPUT_PATHS", "value": "stderr"},
    {"name": "METRICS_PORT", "value": "8080"},
    {"name": "HEALTH_PROBE_PORT", "value": "8081"},
    {"name": "SYSTEM_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
    {"name": "CPU_REQUESTS", "valueFrom": {"resourceFieldRef": {"containerName": "controller", "divisor": "1m", "resource": "requests.cpu"}}},
    {"name": "MEMORY_LIMIT", "valueFrom": {"resourceFieldRef": {"containerName": "controller", "divisor": "0", "resource": "limits.memory"}}},
    {"name": "FEATURE_GATES", "value": "ReservedCapacity=true,SpotToSpotConsolidation=false,NodeRepair=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false"},
    {"name": "BATCH_MAX_DURATION", "value": "10s"},
    {"name": "BATCH_IDLE_DURATION", "value": "1s"},
    {"name": "PREFERENCE_POLICY", "value": "Respect"},
    {"name": "MIN_VALUES_POLICY", "value": "Strict"},
    {"name": "CLUSTER_NAME", "value": "demo"},
    {"name": "VM_MEMORY_OVERHEAD_PERCENT", "value": "0.075"},
    {"name": "RESERVED_ENIS", "value": "0"},
    {"name": "IGNORE_DRA_REQUESTS", "value": "true"},
    {"name": "AMI_REFRESH_INTERVAL", "value": "1m"},
    {"name": "SUBNET_REFRESH_INTERVAL", "value": "1m"},
]


# ---- helpers ------------------------------------------------------------------------------------
def run(argv, stdin=None, check=True, env=None, timeout=180):
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError("%s failed (exit %d):\n%s%s" % (" ".join(argv), p.returncode, p.stdout, p.stderr))
    return p


def helm(*args, check=True):
    return run([ARGS.helm, *args], check=check, env=dict(os.environ, KUBECONFIG=KUBECONFIG))


def kubectl(*args, stdin=None, check=True):
    return run([ARGS.kubectl, "--kubeconfig", KUBECONFIG, *args], stdin=stdin, check=check)


def template(*args, values=(), sets=("settings.clusterName=demo",), release=RELEASE, namespace=NAMESPACE, check=True):
    """The objects helm renders; with check=False, the failed process when it fails."""
    argv = ["template", release, CHART, "--namespace", namespace]
    for v in values:
        argv += ["--values", os.path.join(TESTDATA, v)]
    for s in sets:
        argv += ["--set", s]
    p = helm(*argv, *args, check=False)
    if p.returncode == 0:
        return [d for d in yaml.safe_load_all(p.stdout) if d]
    if check:
        raise AssertionError("helm %s failed (exit %d):\n%s" % (" ".join(argv + list(args)), p.returncode, p.stderr))
    return p


def by_kind(objs, kind):
    return [o for o in objs if o["kind"] == kind]


def one(objs, kind, name=None):
    found = [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, "%d %s %s in %s" % (len(found), kind, name or "", [(o["kind"], o["metadata"]["name"]) for o in objs])
    return found[0]


def container(objs):
    return one(objs, "Deployment")["spec"]["template"]["spec"]["containers"][0]


def env_of(objs):
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container(objs)["env"]}


def roles_of(objs, fullname):
    return {
        "core": one(objs, "ClusterRole", fullname + "-core")["rules"],
        "provider": one(objs, "ClusterRole", fullname)["rules"],
        "lease": one(objs, "Role", fullname)["rules"],
    }


def expand(rules):
    """The (group, resource, verb, name) grants of rules, for comparison with the authorizer."""
    grants = set()
    for r in rules:
        for g in r["apiGroups"]:
            for res in r["resources"]:
                for v in r["verbs"]:
                    for n in r.get("resourceNames", [""]):
                        grants.add((g, res, v, n))
    return grants


def selector_labels(name="nodesmith", release=RELEASE):
    return {"app.kubernetes.io/name": name, "app.kubernetes.io/instance": release}


# ---- rendering ----------------------------------------------------------------------------------
class Lint(unittest.TestCase):
    def test_lint_passes_with_the_defaults_and_every_values_file(self):
        p = helm("lint", CHART, "--strict", "--set", "settings.clusterName=demo")
        self.assertIn("0 chart(s) failed", p.stdout)
        for v in sorted(os.listdir(TESTDATA)):
            p = helm("lint", CHART, "--strict", "--values", os.path.join(TESTDATA, v))
            self.assertIn("0 chart(s) failed", p.stdout, v)

    def test_lint_names_the_missing_cluster_name(self):
        # helm lint reports a template's `fail` without failing (a chart with required values must
        # lint); helm template and helm install fail (RequiredValues).
        p = helm("lint", CHART, check=False)
        self.assertIn("Fail: settings.clusterName is required", p.stdout + p.stderr)


class RequiredValues(unittest.TestCase):
    def test_a_missing_cluster_name_fails_the_render_with_a_clear_message(self):
        for sets in ((), ("settings.clusterName=",)):
            p = template(sets=sets, check=False)
            self.assertIsInstance(p, subprocess.CompletedProcess)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("settings.clusterName is required: set it to the name of the cluster", p.stderr)

    def test_the_pre_v1_layout_of_the_seed_install_is_named(self):
        # The seed blog's command line, as it was written for Karpenter v0.x.
        p = template(sets=(r'serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::111122223333:role/KarpenterControllerRole-demo',
                           "settings.aws.clusterName=demo",
                           "settings.aws.defaultInstanceProfile=KarpenterNodeInstanceProfile-demo",
                           "settings.aws.interruptionQueueName=demo"), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("settings.aws.clusterName (demo) is the layout of Karpenter before v1: set settings.clusterName", p.stderr)

    def test_an_unknown_cloud_provider_fails(self):
        p = template(sets=("settings.clusterName=demo", "cloudProvider=gce"), check=False)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('cloudProvider must be aws or kwok, not "gce"', p.stderr)


class Defaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.objs = template()
        cls.fullname = "karpenter-nodesmith"

    def test_the_objects_and_no_webhook(self):
        kinds = sorted((o["kind"], o["metadata"]["name"]) for o in self.objs)
        self.assertEqual(kinds, sorted([
            ("ClusterRole", "karpenter-nodesmith"), ("ClusterRole", "karpenter-nodesmith-core"),
            ("ClusterRole", "karpenter-nodesmith-admin"),
            ("ClusterRoleBinding", "karpenter-nodesmith"), ("ClusterRoleBinding", "karpenter-nodesmith-core"),
            ("Deployment", "karpenter-nodesmith"), ("PodDisruptionBudget", "karpenter"),
            ("Role", "karpenter-nodesmith"), ("RoleBinding", "karpenter-nodesmith"),
            ("Service", "karpenter-nodesmith"), ("ServiceAccount", "karpenter-nodesmith"),
        ]))
        for o in self.objs:
            self.assertNotIn("Webhook", o["kind"])
            if o["kind"] not in ("ClusterRole", "ClusterRoleBinding"):
                self.assertEqual(o["metadata"]["namespace"], NAMESPACE, o["kind"])
            self.assertEqual(o["metadata"]["labels"]["app.kubernetes.io/name"], "nodesmith")
            self.assertEqual(o["metadata"]["labels"]["app.kubernetes.io/instance"], RELEASE)

    def test_the_deployment_runs_nodesmith_controller(self):
        d = one(self.objs, "Deployment")
        self.assertEqual(d["spec"]["replicas"], 2)
        self.assertEqual(d["spec"]["revisionHistoryLimit"], 10)
        self.assertEqual(d["spec"]["strategy"], {"rollingUpdate": {"maxUnavailable": 1}})
        self.assertEqual(d["spec"]["selector"]["matchLabels"], selector_labels())
        pod = d["spec"]["template"]["spec"]
        self.assertEqual(d["spec"]["template"]["metadata"]["labels"], selector_labels())
        self.assertEqual(pod["serviceAccountName"], self.fullname)
        self.assertIs(pod["automountServiceAccountToken"], True)
        self.assertEqual(pod["priorityClassName"], "system-cluster-critical")
        self.assertEqual(pod["dnsPolicy"], "ClusterFirst")
        self.assertNotIn("terminationGracePeriodSeconds", pod)
        self.assertNotIn("hostNetwork", pod)
        self.assertEqual(len(pod["containers"]), 1)
        c = pod["containers"][0]
        self.assertEqual(c["name"], "controller")
        self.assertEqual(c["image"], "nodesmith:0.1.0")
        self.assertNotIn("command", c)
        self.assertEqual(c["args"], ["controller"])
        self.assertNotIn("resources", c)
        self.assertNotIn("volumeMounts", c)
        self.assertNotIn("volumes", pod)

    def test_the_environment_is_karpenters(self):
        self.assertEqual(container(self.objs)["env"], DEFAULT_ENV)
        self.assertNotIn("envFrom", container(self.objs))

    def test_ports_and_probes(self):
        c = container(self.objs)
        self.assertEqual(c["ports"], [
            {"name": "http-metrics", "containerPort": 8080, "protocol": "TCP"},
            {"name": "http", "containerPort": 8081, "protocol": "TCP"},
        ])
        self.assertEqual(c["livenessProbe"], {"initialDelaySeconds": 30, "timeoutSeconds": 30, "httpGet": {"path": "/healthz", "port": "http"}})
        self.assertEqual(c["readinessProbe"], {"initialDelaySeconds": 5, "timeoutSeconds": 30, "httpGet": {"path": "/readyz", "port": "http"}})
        svc = one(self.objs, "Service")
        self.assertEqual(svc["spec"]["type"], "ClusterIP")
        self.assertEqual(svc["spec"]["ports"], [{"name": "http-metrics", "port": 8080, "targetPort": "http-metrics", "protocol": "TCP"}])
        self.assertEqual(svc["spec"]["selector"], selector_labels())

    def test_security_context(self):
        c = container(self.objs)
        self.assertEqual(c["securityContext"], {
            "privileged": False, "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
            "runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
            "capabilities": {"drop": ["ALL"]},
        })
        pod = one(self.objs, "Deployment")["spec"]["template"]["spec"]
        self.assertEqual(pod["securityContext"], {"fsGroup": 65532, "seccompProfile": {"type": "RuntimeDefault"}})

    def test_placement(self):
        pod = one(self.objs, "Deployment")["spec"]["template"]["spec"]
        self.assertEqual(pod["nodeSelector"], {"kubernetes.io/os": "linux"})
        self.assertEqual(pod["affinity"], {
            "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "DoesNotExist"}]}]}},
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": selector_labels()}}]},
        })
        self.assertEqual(pod["topologySpreadConstraints"], [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
             "labelSelector": {"matchLabels": selector_labels()}}])
        self.assertEqual(pod["tolerations"], [{"key": "CriticalAddonsOnly", "operator": "Exists"}])

    def test_pod_disruption_budget(self):
        pdb = one(self.objs, "PodDisruptionBudget")
        self.assertEqual(pdb["apiVersion"], "policy/v1")
        self.assertEqual(pdb["metadata"]["name"], "karpenter")
        self.assertEqual(pdb["spec"], {"maxUnavailable": 1, "selector": {"matchLabels": selector_labels()}})

    def test_service_account(self):
        sa = one(self.objs, "ServiceAccount")
        self.assertIs(sa["automountServiceAccountToken"], False)
        self.assertNotIn("annotations", sa["metadata"])

    def test_rbac_rules_are_exactly_the_controllers(self):
        self.assertEqual(roles_of(self.objs, self.fullname), expected_rules("aws"))
        self.assertEqual(one(self.objs, "ClusterRole", self.fullname + "-admin")["rules"], ADMIN_RULES["aws"])
        admin = one(self.objs, "ClusterRole", self.fullname + "-admin")
        self.assertEqual(admin["metadata"]["labels"]["rbac.authorization.k8s.io/aggregate-to-admin"], "true")
        self.assertEqual(one(self.objs, "Role")["metadata"]["namespace"], NAMESPACE)

    def test_bindings_bind_the_service_account(self):
        subject = [{"kind": "ServiceAccount", "name": self.fullname, "namespace": NAMESPACE}]
        for kind, name, role_kind in (("ClusterRoleBinding", self.fullname + "-core", "ClusterRole"),
                                      ("ClusterRoleBinding", self.fullname, "ClusterRole"),
                                      ("RoleBinding", self.fullname, "Role")):
            b = one(self.objs, kind, name)
            self.assertEqual(b["subjects"], subject)
            self.assertEqual(b["roleRef"], {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": name})
        self.assertEqual(one(self.objs, "RoleBinding")["metadata"]["namespace"], NAMESPACE)

    def test_no_service_monitor_unless_asked_and_served(self):
        self.assertEqual(by_kind(self.objs, "ServiceMonitor"), [])
        objs = template(sets=("settings.clusterName=demo", "serviceMonitor.enabled=true"))
        self.assertEqual(by_kind(objs, "ServiceMonitor"), [], "rendered although the cluster does not serve monitoring.coreos.com/v1")

    def test_the_release_name_karpenter_with_name_override_gives_karpenters_names(self):
        objs = template(sets=("settings.clusterName=demo", "nameOverride=karpenter"))
        names = sorted((o["kind"], o["metadata"]["name"]) for o in objs)
        self.assertIn(("Deployment", "karpenter"), names)
        self.assertIn(("ClusterRole", "karpenter-core"), names)
        self.assertIn(("ClusterRole", "karpenter-admin"), names)
        self.assertIn(("ServiceAccount", "karpenter"), names)
        self.assertEqual(one(objs, "Deployment")["spec"]["selector"]["matchLabels"], selector_labels("karpenter"))
        # The release name nodesmith needs no override.
        objs = template(release="nodesmith", namespace="nodesmith")
        self.assertEqual(one(objs, "Deployment")["metadata"]["name"], "nodesmith")


class KarpenterValues(unittest.TestCase):
    def test_the_seed_blog_install(self):
        objs = template(values=("seed-blog.yaml",), sets=())
        # The same install as --set flags, as the seed blog passes them (v1 keys).
        flags = template(sets=(r'serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::111122223333:role/KarpenterControllerRole-demo',
                               "settings.clusterName=demo", "settings.interruptionQueue=demo",
                               "controller.resources.requests.cpu=1", "controller.resources.requests.memory=1Gi",
                               "controller.resources.limits.cpu=1", "controller.resources.limits.memory=1Gi"))
        self.assertEqual(objs, flags)
        sa = one(objs, "ServiceAccount")
        self.assertEqual(sa["metadata"]["annotations"], {"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/KarpenterControllerRole-demo"})
        env = env_of(objs)
        self.assertEqual(env["CLUSTER_NAME"], "demo")
        self.assertEqual(env["INTERRUPTION_QUEUE"], "demo")
        self.assertEqual(container(objs)["resources"], {"requests": {"cpu": 1, "memory": "1Gi"}, "limits": {"cpu": 1, "memory": "1Gi"}})
        expected = copy.deepcopy(DEFAULT_ENV)
        i = [e["name"] for e in expected].index("VM_MEMORY_OVERHEAD_PERCENT")
        expected.insert(i + 1, {"name": "INTERRUPTION_QUEUE", "value": "demo"})
        self.assertEqual(container(objs)["env"], expected)

    def test_a_full_production_values_file(self):
        objs = template("--api-versions", "monitoring.coreos.com/v1", values=("karpenter-full.yaml",), sets=())
        fullname = "karpenter"  # nameOverride karpenter, release karpenter
        d = one(objs, "Deployment", fullname)
        pod = d["spec"]["template"]["spec"]
        c = pod["containers"][0]
        for o in objs:
            self.assertEqual(o["metadata"]["labels"]["team"], "platform", o["kind"])
            self.assertEqual(o["metadata"]["annotations"]["owner"], "platform@example.com", o["kind"])
        self.assertEqual(d["spec"]["replicas"], 3)
        self.assertEqual(d["spec"]["revisionHistoryLimit"], 5)
        self.assertEqual(d["spec"]["strategy"], {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}})
        self.assertEqual(d["spec"]["template"]["metadata"]["labels"], dict(selector_labels("karpenter"), app="karpenter"))
        self.assertEqual(d["spec"]["template"]["metadata"]["annotations"], {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"})
        self.assertEqual(pod["imagePullSecrets"], [{"name": "registry"}])
        self.assertEqual(pod["serviceAccountName"], "karpenter")
        self.assertEqual(pod["priorityClassName"], "system-node-critical")
        self.assertEqual(pod["terminationGracePeriodSeconds"], 60)
        self.assertEqual(pod["dnsPolicy"], "Default")
        self.assertEqual(pod["nodeSelector"], {"kubernetes.io/os": "linux", "node-role": "system"})
        self.assertEqual(len(pod["tolerations"]), 2)
        self.assertEqual(pod["volumes"][0]["name"], "aws-iam-token")
        self.assertEqual(c["volumeMounts"], [{"name": "aws-iam-token", "mountPath": "/var/run/secrets/eks.amazonaws.com/serviceaccount", "readOnly": True}])
        self.assertEqual(c["image"], "111122223333.dkr.ecr.eu-west-1.amazonaws.com/nodesmith:0.1.0@sha256:" + "0" * 64)
        self.assertEqual(c["resources"], {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}})
        self.assertEqual(c["envFrom"], [{"configMapRef": {"name": "karpenter-extra"}}])
        self.assertEqual(c["ports"], [{"name": "http-metrics", "containerPort": 9080, "protocol": "TCP"},
                                      {"name": "http", "containerPort": 9081, "protocol": "TCP"}])
        env = env_of(objs)
        for k, v in {"LOG_LEVEL": "debug", "METRICS_PORT": "9080", "HEALTH_PROBE_PORT": "9081",
                     "CLUSTER_NAME": "prod-eu", "CLUSTER_ENDPOINT": "https://ABCDEF.gr7.eu-west-1.eks.amazonaws.com",
                     "CLUSTER_CA_BUNDLE": "LS0tLS1CRUdJTi0tLS0t", "INTERRUPTION_QUEUE": "Karpenter-prod-eu",
                     "BATCH_IDLE_DURATION": "2s", "BATCH_MAX_DURATION": "20s", "PREFERENCE_POLICY": "Ignore",
                     "MIN_VALUES_POLICY": "BestEffort", "ISOLATED_VPC": "true", "VM_MEMORY_OVERHEAD_PERCENT": "0.05",
                     "RESERVED_ENIS": "1", "AWS_REGION": "eu-west-1", "KUBE_CLIENT_QPS": "100",
                     "FEATURE_GATES": "ReservedCapacity=true,SpotToSpotConsolidation=true,NodeRepair=true,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false"}.items():
            self.assertEqual(env.get(k), v, k)
        # controller.env comes last, so it overrides what the chart sets.
        names = [e["name"] for e in c["env"]]
        self.assertEqual(names[-2:], ["AWS_REGION", "KUBE_CLIENT_QPS"])
        self.assertEqual(one(objs, "ServiceAccount", "karpenter")["metadata"]["annotations"]["eks.amazonaws.com/role-arn"],
                         "arn:aws:iam::111122223333:role/KarpenterControllerRole-prod")
        self.assertEqual(one(objs, "Service", fullname)["metadata"]["annotations"]["prometheus.io/scrape"], "true")
        self.assertEqual(one(objs, "Service", fullname)["spec"]["ports"][0]["port"], 9080)
        sm = one(objs, "ServiceMonitor", fullname)
        self.assertEqual(sm["metadata"]["labels"]["release"], "kube-prometheus-stack")
        self.assertEqual(sm["spec"]["namespaceSelector"], {"matchNames": [NAMESPACE]})
        self.assertEqual(sm["spec"]["selector"], {"matchLabels": selector_labels("karpenter")})
        self.assertEqual(sm["spec"]["endpoints"], [{"port": "http-metrics", "path": "/metrics", "interval": "15s", "scrapeTimeout": "10s"}])
        self.assertNotIn("sampleLimit", sm["spec"])
        # additionalClusterRoleRules: appended to the core role, after the controller's own rules.
        rules = expected_rules("aws")
        rules["core"] = rules["core"] + [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]
        self.assertEqual(roles_of(objs, fullname), rules)
        self.assertEqual(one(objs, "ClusterRoleBinding", "karpenter-core")["subjects"],
                         [{"kind": "ServiceAccount", "name": "karpenter", "namespace": NAMESPACE}])

    def test_user_affinity_and_spread_keep_their_selectors_and_get_one_when_missing(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            yaml.safe_dump({"settings": {"clusterName": "demo"}, "affinity": {"podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 1, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}}]}},
                "topologySpreadConstraints": [{"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone",
                                               "whenUnsatisfiable": "ScheduleAnyway",
                                               "labelSelector": {"matchLabels": {"tier": "system"}}}]}, f)
        try:
            objs = helm("template", RELEASE, CHART, "-n", NAMESPACE, "-f", f.name).stdout
        finally:
            os.unlink(f.name)
        pod = one([d for d in yaml.safe_load_all(objs) if d], "Deployment")["spec"]["template"]["spec"]
        term = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]
        self.assertEqual(term["labelSelector"], {"matchLabels": selector_labels()})
        self.assertEqual(pod["topologySpreadConstraints"][0]["labelSelector"], {"matchLabels": {"tier": "system"}})

    def test_a_renamed_lease_is_the_one_the_role_may_update(self):
        objs = template(sets=("settings.clusterName=demo", "controller.env[0].name=LEADER_ELECTION_NAME",
                              "controller.env[0].value=nodesmith-leader"))
        rules = one(objs, "Role")["rules"]
        self.assertEqual(rules[1]["resourceNames"], ["nodesmith-leader"])
        self.assertEqual(env_of(objs)["LEADER_ELECTION_NAME"], "nodesmith-leader")


class NodesmithValues(unittest.TestCase):
    def test_kwok_sets_the_provider_and_adds_create_nodes(self):
        objs = template(values=("kwok.yaml",), sets=())
        self.assertEqual(env_of(objs)["CLOUD_PROVIDER"], "kwok")
        self.assertEqual(roles_of(objs, "karpenter-nodesmith"), expected_rules("kwok"))
        self.assertIn({"apiGroups": [""], "resources": ["nodes"], "verbs": ["create"]}, roles_of(objs, "karpenter-nodesmith")["provider"])
        self.assertEqual(one(objs, "ClusterRole", "karpenter-nodesmith-admin")["rules"], ADMIN_RULES["kwok"])
        self.assertNotIn("topologySpreadConstraints", one(objs, "Deployment")["spec"]["template"]["spec"])
        self.assertEqual(one(objs, "Deployment")["spec"]["replicas"], 1)

    def test_aws_grants_no_create_nodes(self):
        for rules in roles_of(template(), "karpenter-nodesmith").values():
            for r in rules:
                if "nodes" in r["resources"] and "" in r["apiGroups"]:
                    self.assertNotIn("create", r["verbs"])

    def test_dry_run_sets_DRY_RUN_and_grants_reads_only(self):
        for provider in ("aws", "kwok"):
            objs = template(values=("shadow.yaml",), sets=("cloudProvider=" + provider,))
            env = env_of(objs)
            self.assertEqual(env["DRY_RUN"], "true")
            self.assertEqual(env["CLOUD_PROVIDER"], provider)
            # The interruption queue is left to the autoscaler that acts on it.
            self.assertNotIn("INTERRUPTION_QUEUE", env)
            self.assertEqual(roles_of(objs, "karpenter-nodesmith"), expected_rules(provider, dry_run=True))
        self.assertNotIn("DRY_RUN", env_of(template()))
        p = helm("install", "--dry-run=client", "shadow", CHART, "-n", "nodesmith", "-f", os.path.join(TESTDATA, "shadow.yaml"))
        self.assertIn("Shadow mode (dryRun: true)", p.stdout)


class Crds(unittest.TestCase):
    def test_the_chart_carries_nodesmiths_crds_through_its_symlink(self):
        link = os.path.join(CHART, "crds")
        self.assertTrue(os.path.islink(link), "deploy/helm/nodesmith/crds is not a symlink")
        self.assertEqual(os.readlink(link), "../../crds")
        files = sorted(f for f in os.listdir(CRD_DIR) if f.endswith((".yaml", ".yml"))) if os.path.isdir(CRD_DIR) else []
        self.assertTrue(files, "deploy/crds holds no CRDs")
        want = set()
        for f in files:
            with open(os.path.join(CRD_DIR, f)) as fh:
                want |= {d["metadata"]["name"] for d in yaml.safe_load_all(fh) if d and d.get("kind") == "CustomResourceDefinition"}
        objs = template("--include-crds")
        got = {o["metadata"]["name"] for o in by_kind(objs, "CustomResourceDefinition")}
        self.assertEqual(got, want)
        for name in ("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws",
                     "kwoknodeclasses.karpenter.kwok.sh"):
            self.assertIn(name, got)
        # Without --include-crds, helm template leaves them out (helm install applies them first).
        self.assertEqual(by_kind(template(), "CustomResourceDefinition"), [])


# ---- on the test control plane --------------------------------------------------------------------
class ServerDryRun(unittest.TestCase):
    NS = "nodesmith-chart-dry-run"

    @classmethod
    def setUpClass(cls):
        kubectl("create", "namespace", cls.NS)

    @classmethod
    def tearDownClass(cls):
        kubectl("delete", "namespace", cls.NS, "--ignore-not-found", "--wait=false", check=False)

    def apply(self, *args, sets=("settings.clusterName=demo",), values=()):
        argv = [ARGS.helm, "template", "karpenter", CHART, "-n", self.NS, *args]
        for v in values:
            argv += ["-f", os.path.join(TESTDATA, v)]
        for s in sets:
            argv += ["--set", s]
        rendered = run(argv).stdout
        # The documents are sent as helm wrote them, not re-serialized: kubectl reads YAML as the
        # API machinery does (PyYAML would, e.g., turn an unquoted timestamp into a datetime).
        texts = [t for t in re.split(r"(?m)^---\s*$", rendered) if yaml.safe_load(t)]
        docs = [yaml.safe_load(t) for t in texts]
        crds = [t for t, d in zip(texts, docs) if d["kind"] == "CustomResourceDefinition"]
        rest = [t for t, d in zip(texts, docs) if d["kind"] != "CustomResourceDefinition"]
        if crds:
            # Server-side: the CRDs exceed the size of the last-applied annotation of client-side apply.
            p = kubectl("apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-",
                        stdin="\n---\n".join(crds))
            self.assertEqual(p.stdout.count("(server dry run)"), len(crds), p.stdout)
        p = kubectl("apply", "--dry-run=server", "-f", "-", stdin="\n---\n".join(rest))
        self.assertEqual(p.stdout.count("(server dry run)"), len(rest), p.stdout)
        return docs

    def test_the_rendered_chart_and_its_crds_are_accepted_by_the_api_server(self):
        docs = self.apply("--include-crds")
        self.assertTrue(by_kind(docs, "CustomResourceDefinition"))

    def test_every_values_file_is_accepted(self):
        for v in sorted(os.listdir(TESTDATA)):
            # karpenter-full's ServiceMonitor is not rendered: the server does not serve its API.
            self.apply(values=(v,), sets=())

    def test_kwok_and_shadow_mode_are_accepted(self):
        self.apply(sets=("settings.clusterName=demo", "cloudProvider=kwok", "dryRun=true"))


SSAR_RESOURCES = [
    # (group, resource, subresource, namespaced)
    ("", "pods", "", True), ("", "pods", "eviction", True), ("", "pods", "binding", True), ("", "pods", "status", True),
    ("", "nodes", "", False), ("", "nodes", "status", False),
    ("", "events", "", True), ("", "namespaces", "", False), ("", "persistentvolumes", "", False),
    ("", "persistentvolumeclaims", "", True), ("", "replicationcontrollers", "", True), ("", "podtemplates", "", True),
    ("", "secrets", "", True), ("", "configmaps", "", True), ("", "services", "", True), ("", "serviceaccounts", "token", True),
    ("apps", "deployments", "", True), ("apps", "replicasets", "", True), ("apps", "statefulsets", "", True),
    ("apps", "daemonsets", "", True), ("batch", "jobs", "", True), ("policy", "poddisruptionbudgets", "", True),
    ("storage.k8s.io", "storageclasses", "", False), ("storage.k8s.io", "csinodes", "", False),
    ("storage.k8s.io", "volumeattachments", "", False),
    ("karpenter.sh", "nodepools", "", False), ("karpenter.sh", "nodepools", "status", False),
    ("karpenter.sh", "nodeclaims", "", False), ("karpenter.sh", "nodeclaims", "status", False),
    ("karpenter.k8s.aws", "ec2nodeclasses", "", False), ("karpenter.k8s.aws", "ec2nodeclasses", "status", False),
    ("karpenter.kwok.sh", "kwoknodeclasses", "", False), ("karpenter.kwok.sh", "kwoknodeclasses", "status", False),
    ("coordination.k8s.io", "leases", "", True), ("rbac.authorization.k8s.io", "clusterroles", "", False),
    ("apiextensions.k8s.io", "customresourcedefinitions", "", False),
]
SSAR_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]


class ChartIdentityPermissions(unittest.TestCase):
    """The chart's ServiceAccount, through a token kubeconfig, may do exactly what the rules say."""

    def check_matrix(self, ident, rules):
        grants = set()
        for role in rules.values():
            grants |= expand(role)
        reviews, expected = [], []
        for group, resource, sub, namespaced in SSAR_RESOURCES:
            qualified = resource + ("/" + sub if sub else "")
            for verb in SSAR_VERBS:
                for ns in ((ident.namespace, "default") if namespaced else ("",)):
                    for name in (("", "karpenter-leader-election", "other") if resource == "leases" else ("",)):
                        if name and verb in ("list", "watch", "create", "deletecollection"):
                            continue
                        attrs = {"group": group, "resource": resource, "verb": verb}
                        if sub:
                            attrs["subresource"] = sub
                        if ns:
                            attrs["namespace"] = ns
                        if name:
                            attrs["name"] = name
                        reviews.append({"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                                        "spec": {"resourceAttributes": attrs}})
                        allowed = ((group, qualified, verb, "") in grants or
                                   (name and (group, qualified, verb, name) in grants))
                        # The Role grants leases in the release namespace only.
                        if resource == "leases" and ns != ident.namespace:
                            allowed = False
                        expected.append(bool(allowed))
        p = ident.as_identity("create", "-o", "json", "-f", "-",
                              stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": reviews}))
        answers, pos, decoder = [], 0, json.JSONDecoder()
        while pos < len(p.stdout):  # kubectl prints one document per object created
            if p.stdout[pos].isspace():
                pos += 1
                continue
            doc, pos = decoder.raw_decode(p.stdout, pos)
            answers += doc["items"] if doc.get("kind") == "List" else [doc]
        self.assertEqual(len(answers), len(reviews))
        wrong = []
        for review, want in zip(answers, expected):
            got = bool(review["status"].get("allowed"))
            if got != want:
                wrong.append("%s %s: allowed=%s, want %s" % (review["spec"]["resourceAttributes"]["verb"],
                                                            json.dumps(review["spec"]["resourceAttributes"]), got, want))
        self.assertEqual(wrong, [], "\n".join(wrong))
        return len(reviews)

    def test_kwok_identity(self):
        with chart_identity.ChartIdentity(ARGS.kubectl, ARGS.helm, ARGS.testenv_dir, "nodesmith-rbac-kwok",
                                          source_dir=SOURCE_DIR, cloud_provider="kwok") as ident:
            who = json.loads(ident.as_identity("auth", "whoami", "-o", "json").stdout)
            self.assertEqual(who["status"]["userInfo"]["username"],
                             "system:serviceaccount:nodesmith-rbac-kwok:" + ident.service_account)
            # kubectl auth can-i, as a person would ask.
            for args in (("create", "nodes"), ("list", "pods"), ("watch", "nodes"), ("delete", "pods", "default"),
                         ("create", "pods", "default", "eviction"), ("create", "leases", ident.namespace),
                         ("update", "leases/karpenter-leader-election", ident.namespace), ("patch", "nodes"),
                         ("create", "events", "default"), ("list", "poddisruptionbudgets.policy")):
                self.assertTrue(ident.can_i(*args), args)
            for args in (("create", "pods", "default"), ("get", "secrets", "default"), ("list", "secrets"),
                         ("update", "leases/other", ident.namespace), ("list", "leases", ident.namespace),
                         ("create", "leases", "default"), ("create", "pods", "default", "binding"),
                         ("update", "nodes", None, "status"), ("list", "jobs.batch"), ("delete", "deployments.apps", "default")):
                self.assertFalse(ident.can_i(*args), args)
            self.assertEqual(ident.env["CLOUD_PROVIDER"], "kwok")
            self.assertEqual(ident.env["SYSTEM_NAMESPACE"], ident.namespace)
            self.assertEqual(ident.env["CLUSTER_NAME"], "nodesmith-e2e")
            n = self.check_matrix(ident, expected_rules("kwok"))
            self.assertGreater(n, 300)
            kubeconfig = ident.kubeconfig
            self.assertEqual(os.stat(kubeconfig).st_mode & 0o777, 0o600)
        self.assertFalse(os.path.exists(kubeconfig))
        self.assertNotEqual(kubectl("get", "clusterrole", "nodesmith-nodesmith-rbac-kwok-core", check=False).returncode, 0)

    def test_aws_identity_may_not_create_nodes(self):
        with chart_identity.ChartIdentity(ARGS.kubectl, ARGS.helm, ARGS.testenv_dir, "nodesmith-rbac-aws",
                                          source_dir=SOURCE_DIR, cloud_provider="aws") as ident:
            self.assertFalse(ident.can_i("create", "nodes"))
            self.assertFalse(ident.can_i("create", "pods", "default"))
            self.assertFalse(ident.can_i("get", "secrets", "default"))
            self.assertTrue(ident.can_i("delete", "nodes"))
            self.check_matrix(ident, expected_rules("aws"))

    def test_shadow_mode_identity_may_write_only_its_lease(self):
        with chart_identity.ChartIdentity(ARGS.kubectl, ARGS.helm, ARGS.testenv_dir, "nodesmith-rbac-shadow",
                                          source_dir=SOURCE_DIR, cloud_provider="kwok", set_values=("dryRun=true",)) as ident:
            self.assertEqual(ident.env["DRY_RUN"], "true")
            self.assertFalse(ident.can_i("create", "nodes"))
            self.assertFalse(ident.can_i("delete", "pods", "default"))
            self.assertTrue(ident.can_i("update", "leases/karpenter-leader-election", ident.namespace))
            self.check_matrix(ident, expected_rules("kwok", dry_run=True))

    @classmethod
    def tearDownClass(cls):
        for ns in ("nodesmith-rbac-kwok", "nodesmith-rbac-aws", "nodesmith-rbac-shadow"):
            kubectl("delete", "namespace", ns, "--ignore-not-found", "--wait=false", check=False)


class InstallSkipCrds(unittest.TestCase):
    """helm install --skip-crds on a cluster where Karpenter's CRDs are installed leaves them be."""
    NS = "nodesmith-chart-install"
    CRDS = ("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws")

    def crd_state(self):
        out = json.loads(kubectl("get", "crd", *self.CRDS, "-o", "json").stdout)
        return {i["metadata"]["name"]: (i["metadata"]["uid"], i["metadata"]["resourceVersion"]) for i in out["items"]}

    def test_install_with_skip_crds_keeps_the_installed_crds(self):
        env = dict(os.environ, KUBECONFIG=KUBECONFIG)
        present = kubectl("get", "crd", *self.CRDS, check=False).returncode == 0
        if not present:
            kubectl("apply", "--server-side", "-f", os.path.join(SHARED_DATA, "karpenter-crds"))
            kubectl("wait", "--for=condition=Established", "--timeout=60s", *["crd/" + c for c in self.CRDS])
        try:
            before = self.crd_state()
            p = run([ARGS.helm, "install", "nodesmith", CHART, "-n", self.NS, "--create-namespace", "--skip-crds",
                     "--set", "settings.clusterName=demo", "--set", "cloudProvider=kwok"], env=env)
            self.assertIn("STATUS: deployed", p.stdout)
            self.assertEqual(self.crd_state(), before)
            if not present:
                self.assertNotEqual(kubectl("get", "crd", "kwoknodeclasses.karpenter.kwok.sh", check=False).returncode, 0,
                                    "--skip-crds installed a CRD")
            d = json.loads(kubectl("get", "deployment", "nodesmith", "-n", self.NS, "-o", "json").stdout)
            self.assertEqual(d["spec"]["template"]["spec"]["containers"][0]["args"], ["controller"])
            kubectl("get", "clusterrole", "nodesmith-core", "nodesmith", "nodesmith-admin")
            kubectl("get", "role,rolebinding,serviceaccount", "nodesmith", "-n", self.NS)
            kubectl("get", "poddisruptionbudget", "karpenter", "-n", self.NS)
            run([ARGS.helm, "uninstall", "nodesmith", "-n", self.NS, "--wait", "--timeout", "60s"], env=env)
            self.assertEqual(self.crd_state(), before)
            self.assertNotEqual(kubectl("get", "clusterrole", "nodesmith-core", check=False).returncode, 0)
        finally:
            run([ARGS.helm, "uninstall", "nodesmith", "-n", self.NS], env=env, check=False)
            kubectl("delete", "namespace", self.NS, "--ignore-not-found", "--wait=false", check=False)
            if not present:
                kubectl("delete", "crd", *self.CRDS, "--ignore-not-found", check=False)


# ---- the image ------------------------------------------------------------------------------------
BASE_IMAGE_PACKAGES = {"libc6", "libgcc-s1", "libstdc++6"}  # in debian:bookworm-slim already


def runtime_packages():
    """The packages the runtime stage of deploy/Dockerfile installs."""
    with open(DOCKERFILE) as f:
        text = f.read().replace("\\\n", " ")
    stages = re.split(r"(?m)^FROM\s", text)
    runtime = stages[-1]
    pkgs = set()
    for m in re.finditer(r"apt-get install ([^&\n]*)", runtime):
        pkgs |= {w for w in m.group(1).split() if not w.startswith("-")}
    return pkgs


class Dockerfile(unittest.TestCase):
    def test_hadolint_passes(self):
        p = run([ARGS.hadolint, DOCKERFILE], check=False)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.strip(), "")

    def test_the_image_is_built_as_the_chart_runs_it(self):
        with open(DOCKERFILE) as f:
            text = f.read()
        froms = re.findall(r"(?m)^FROM\s+(\S+)", text)
        self.assertEqual(len(froms), 2, froms)
        self.assertIn("DEBIAN_RELEASE=bookworm", text)
        self.assertEqual(froms[0], "debian:${DEBIAN_RELEASE}")
        self.assertEqual(froms[1], "debian:${DEBIAN_RELEASE}-slim")
        self.assertIn("-DNODESMITH_TESTS=OFF", text)
        self.assertRegex(text, r"(?m)^USER 65532:65532$")
        self.assertRegex(text, r'(?m)^ENTRYPOINT \["/nodesmith"\]$')
        runtime = re.split(r"(?m)^FROM\s", text)[-1]
        self.assertNotIn("-dev", runtime)
        # The build stage installs the project's build dependencies (scripts/install-deps.sh's
        # `packages`; its `fuzz` group, clang for the libFuzzer targets, is not needed to build).
        with open(os.path.join(SOURCE_DIR, "scripts", "install-deps.sh")) as f:
            packages = re.search(r"(?ms)^packages=\((.*?)^\)", f.read()).group(1)
        deps = set(re.findall(r"\b(lib[a-z0-9.+-]+-dev|nlohmann-json3-dev|coinor-libclp-dev)\b", packages))
        self.assertIn("libcurl4-openssl-dev", deps)
        build = re.split(r"(?m)^FROM\s", text)[1]
        for d in deps - {"libgtest-dev", "libgmock-dev", "libbenchmark-dev"}:
            self.assertIn(d, build)
        with open(os.path.join(SOURCE_DIR, ".dockerignore")) as f:
            ignore = f.read()
        self.assertIn("\n*\n", ignore)

    def test_the_runtime_stage_has_the_package_of_every_library_the_binary_loads(self):
        if not ARGS.nodesmith or not os.path.exists(ARGS.nodesmith):
            self.skipTest("no built nodesmith binary given")
        if not (shutil.which("readelf") and shutil.which("dpkg")):
            self.skipTest("readelf or dpkg missing")
        out = run(["readelf", "-d", ARGS.nodesmith]).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
        self.assertTrue(needed)
        if any(lib.startswith(("libasan", "libubsan", "liblsan", "libtsan")) for lib in needed):
            # The sanitized test build links the sanitizer runtimes and their dependencies;
            # the image builds without sanitizers, so only the plain build's binary says what
            # the runtime stage needs.
            self.skipTest("a sanitized build; the plain build checks the image's libraries")
        have = runtime_packages() | BASE_IMAGE_PACKAGES
        missing = []
        for lib in needed:
            p = run(["dpkg", "-S", "*/" + lib], check=False)
            owners = {line.split(":")[0] for line in p.stdout.splitlines() if line.strip()}
            self.assertTrue(owners, "no Debian package holds " + lib)
            if not owners & have:
                missing.append("%s (%s)" % (lib, ", ".join(sorted(owners))))
        self.assertEqual(missing, [], "deploy/Dockerfile's runtime stage lacks " + ", ".join(missing))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *UNITTEST_ARGS], verbosity=2)
