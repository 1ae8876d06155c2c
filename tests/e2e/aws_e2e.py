#!/usr/bin/env python3
"""`nodesmith controller --cloud-provider aws` in the real control plane, with moto as EC2.

The seed walkthrough on "AWS": the seed's Provisioner and AWSNodeTemplate (converted by
`nodesmith convert`; its al2 alias refused for this Kubernetes and changed to al2023), a VPC, subnets and a security group in moto tagged as the template selects
them, and the al2023 alias pointing at one of moto's images. A harness plays the kubelet (and the
cloud controller's labels): for each instance nodesmith launched it reads the instance's user data,
as nodeadm would, and registers the Node it describes; kwok then keeps that Node alive and runs its
pods. inflate 0 -> 5 must give one EC2 instance of 8 vCPUs on spot, tagged as Karpenter tags them;
deleting the Deployment must terminate it.

Usage: aws_e2e.py NODESMITH SOURCE_DIR TESTENV_DIR MOTO_DIR SHARED_DATA [unittest args]"""
import json
import os
import socket
import sys
import time
import unittest
import uuid

import boto3
import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aws_env  # noqa: E402
from aws_env import CLUSTER, PROFILE, Kubelets, kubelet_view, node_config, tags_of  # noqa: E402
from controller_env import Controller, Testenv, test_failed, wait_for  # noqa: E402

BINARY, SOURCE_DIR, TESTENV_DIR, MOTO_DIR, SHARED_DATA = sys.argv[1:6]
del sys.argv[1:6]
ENV = Testenv(TESTENV_DIR, SOURCE_DIR, SHARED_DATA)
MOTO = aws_env.moto_env(MOTO_DIR)


def moto_recording(command):
    aws_env.moto_recording(MOTO, command)


def recorded_calls(action):
    return aws_env.recorded_calls(MOTO, action)


def converted_seed():
    return aws_env.converted_seed(BINARY, SOURCE_DIR)


class AwsWalkthroughTest(unittest.TestCase):
    def setUp(self):
        aws_env.moto_post(MOTO["AWS_ENDPOINT_URL"] + "/moto-api/reset")
        self.ec2 = aws_env.ec2(MOTO)
        self.clean()
        ENV.install_crds(reference=True)
        ENV.kubectl("wait", "--for=condition=Established", "--timeout=60s",
                    "crd/ec2nodeclasses.karpenter.k8s.aws")
        self.ns = ENV.create_namespace("aws")
        self.make_network()
        self.image = self.put_alias()
        self.controller = None

    def tearDown(self):
        if self.controller is not None:
            if test_failed(self):
                sys.stderr.write("--- nodesmith log (%s) ---\n%s" %
                                 (self.controller.log_path, self.controller.tail(80)))
                sys.stderr.write("--- cluster state ---\n%s" %
                                 ENV.kubectl("get", "nodeclaims,nodes,ec2nodeclasses", "-o", "wide",
                                             check=False))
            self.controller.kill()
        ENV.kubectl("delete", "namespace", self.ns, "--wait=false", check=False)
        self.clean()

    def clean(self):
        ENV.clean_cluster_scoped(kinds=("nodepools", "nodeclaims", "ec2nodeclasses"),
                                 provider_prefix="aws://")

    def make_network(self):
        self.iam = aws_env.make_network(MOTO, self.ec2)

    def put_alias(self):
        return aws_env.put_alias(ENV, MOTO, self.ec2)

    def start(self, **extra_env):
        # The built-in table: moto prices every spot offering alike (0.00001), so with the
        # account's own types (the default) the cheapest type would be a tie, not the seed's choice.
        env = aws_env.controller_env(MOTO, **dict({"CATALOG": "aws"}, **extra_env))
        self.controller = Controller(ENV, BINARY, self.ns, extra_env=env)
        self.controller.wait_for_log("starting controllers", timeout=90)
        return self.controller

    def test_seed_walkthrough_launches_one_spot_instance_and_terminates_it(self):
        ENV.apply(converted_seed())
        c = self.start()
        discovered = c.wait_for_log("discovered the cluster the nodes join", timeout=10)
        self.assertEqual(discovered["cluster-name"], CLUSTER)
        self.assertEqual(discovered["cluster-dns"], "", "the test control plane runs no kube-dns")

        # The seed's template predates AL2023: on this Kubernetes its al2 alias has no AMIs, and
        # the EC2NodeClass says so, with what to do.
        def class_condition(kind, status):
            nc = ENV.get_json("ec2nodeclass", "default")
            conds = {x["type"]: x for x in nc.get("status", {}).get("conditions", [])}
            return nc if conds.get(kind, {}).get("status") == status else None
        nc = wait_for(lambda: class_condition("AMIsReady", "False"), 60, "AMIsReady False")
        amis = [x for x in nc["status"]["conditions"] if x["type"] == "AMIsReady"][0]
        self.assertIn("use al2023@latest", amis["message"])
        ready = [x for x in nc["status"]["conditions"] if x["type"] == "Ready"][0]
        self.assertEqual(ready["status"], "False")
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))

        # Then its status says what its selectors matched.
        nc = wait_for(lambda: class_condition("Ready", "True"), 60, "EC2NodeClass default Ready")
        self.assertEqual(sorted(s["zone"] for s in nc["status"]["subnets"]), ["us-west-2a", "us-west-2b"])
        self.assertEqual([g["name"] for g in nc["status"]["securityGroups"]], ["nodes"])
        self.assertIn(self.image["x86_64"], [a["id"] for a in nc["status"]["amis"]])
        self.assertEqual(nc["spec"]["instanceProfile"], PROFILE, "the user's field is kept")

        self.inflate(5)

        created = c.wait_for_log("created nodeclaim", timeout=90)
        claim_name = created["NodeClaim"]["name"]
        launched = c.wait_for_log("launched nodeclaim", timeout=60)
        self.assertTrue(self.templates(), "the launch made a template")
        self.assertRegex(launched["provider-id"], r"^aws:///us-west-2[ab]/i-[0-9a-f]+$")

        kubelets = Kubelets(ENV, self.ec2)
        instances = wait_for(lambda: kubelets.instances() or None, 30, "an instance in moto")
        self.assertEqual(len(instances), 1, "five pods of 1 CPU fit one instance")
        instance = instances[0]
        # 8 vCPUs on spot, in the Provisioner's categories.
        types = self.ec2.describe_instance_types(InstanceTypes=[instance["InstanceType"]])["InstanceTypes"]
        self.assertEqual(types[0]["VCpuInfo"]["DefaultVCpus"], 8, instance["InstanceType"])
        self.assertIn(instance["InstanceType"][0], "cmr")
        self.assertEqual(instance.get("InstanceLifecycle"), "spot")
        tags = tags_of(instance)
        self.assertEqual(tags.get("karpenter.sh/nodepool"), "default")
        self.assertEqual(tags.get("karpenter.k8s.aws/ec2nodeclass"), "default")
        self.assertEqual(tags.get("kubernetes.io/cluster/" + CLUSTER), "owned")
        # The Provisioner allows both architectures: the image is the alias's for the one launched.
        arch = types[0]["ProcessorInfo"]["SupportedArchitectures"][0]
        self.assertEqual(instance["ImageId"], self.image[arch], instance["InstanceType"])

        # The kubelet joins; the real scheduler binds all five pods to that node; kwok runs them.
        pods = self.wait_running(kubelets, 5)
        node_name = kubelets.registered[instance["InstanceId"]]
        self.assertEqual({p["spec"]["nodeName"] for p in pods}, {node_name})
        configs = node_config(kubelets.user_data[instance["InstanceId"]])
        cluster = [x for x in configs if x.get("spec", {}).get("cluster")][0]["spec"]["cluster"]
        self.assertEqual(cluster["name"], CLUSTER)
        self.assertEqual(cluster["apiServerEndpoint"], discovered["cluster-endpoint"])
        self.assertEqual(cluster["cidr"], "10.96.0.0/12")
        labels, taints = kubelet_view(configs)
        self.assertEqual(labels.get("karpenter.sh/nodepool"), "default")
        # The kubelet allows the pods the VPC CNI can address, as EC2 describes the type:
        # ENIs x (IPv4 addresses per ENI - 1) + 2, the pods the plan counted on.
        net = types[0]["NetworkInfo"]
        max_pods = net["MaximumNetworkInterfaces"] * (net["Ipv4AddressesPerInterface"] - 1) + 2
        self.assertEqual([x["spec"]["kubelet"]["config"].get("maxPods") for x in configs
                          if x.get("spec", {}).get("kubelet", {}).get("config")], [max_pods])
        self.assertIn({"key": "karpenter.sh/unregistered", "effect": "NoExecute"},
                      [{k: t[k] for k in ("key", "effect")} for t in taints])

        # Once joined, the instance is named after its node, and the NodeClaim says so.
        def named():
            found = self.ec2.describe_instances(InstanceIds=[instance["InstanceId"]])
            return tags_of(found["Reservations"][0]["Instances"][0]).get("Name") == node_name or None
        wait_for(named, 30, "the instance tagged Name=" + node_name)
        found = self.ec2.describe_instances(InstanceIds=[instance["InstanceId"]])
        self.assertEqual(tags_of(found["Reservations"][0]["Instances"][0]).get("karpenter.sh/nodeclaim"),
                         claim_name)
        claim = ENV.get_json("nodeclaim", claim_name)
        self.assertEqual(claim["metadata"]["annotations"].get("karpenter.k8s.aws/tagged"), "true")
        conds = {x["type"]: x["status"] for x in claim["status"]["conditions"]}
        for kind in ("Launched", "Registered", "Initialized", "Ready"):
            self.assertEqual(conds.get(kind), "True", kind)
        self.assertEqual(claim["status"]["nodeName"], node_name)
        self.assertEqual(claim["status"]["imageID"], self.image[arch])
        # It was launched from the class as it is now: the same hash stamp, and no drift (the
        # amiSelectorTerms change above is judged by the AMI it resolves to, not by the hash).
        nc = ENV.get_json("ec2nodeclass", "default")
        for key in ("karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version"):
            self.assertIn(key, nc["metadata"]["annotations"])
            self.assertEqual(claim["metadata"]["annotations"].get(key), nc["metadata"]["annotations"][key], key)
        self.assertNotIn("Drifted", conds)
        self.assertEqual([g["GroupName"] for g in instance.get("SecurityGroups", [])], ["nodes"])

        # The Deployment goes; the empty node is removed after 30 s and its instance terminated.
        ENV.kubectl("delete", "deployment/inflate", "-n", self.ns)
        wait_for(lambda: not ENV.items("nodeclaims") or None, 120, "the NodeClaim deleted")
        wait_for(lambda: not kubelets.instances(("pending", "running", "stopping", "shutting-down"))
                 or None, 30, "the instance terminated")
        self.assertEqual([n for n in ENV.items("nodes") if n["metadata"]["name"] == node_name], [])

        # Deleting the class: its finalizer holds it until its launch templates are deleted.
        nc = ENV.get_json("ec2nodeclass", "default")
        self.assertIn("karpenter.k8s.aws/termination", nc["metadata"].get("finalizers", []))
        # The launch's template was asserted right after the launch: by now the one-minute TTL of
        # unused templates may have deleted it, so what is asserted here is that none is left.
        ENV.kubectl("delete", "ec2nodeclass", "default", "--wait=false")
        wait_for(lambda: not [x for x in ENV.items("ec2nodeclasses") if x["metadata"]["name"] == "default"]
                 or None, 60, "the EC2NodeClass deleted")
        self.assertEqual(self.templates(), [])
        self.assertEqual(c.terminate(), 0)

    def templates(self):
        """The launch templates nodesmith made for the EC2NodeClass "default"."""
        return self.ec2.describe_launch_templates(Filters=[
            {"Name": "tag:karpenter.k8s.aws/ec2nodeclass", "Values": ["default"]}])["LaunchTemplates"]

    def inflate(self, replicas, node_each=False):
        """The seed's inflate Deployment in the test's namespace, scaled from 0 to `replicas`;
        with `node_each`, no two of its pods on one node."""
        with open(os.path.join(SOURCE_DIR, "examples", "seed-walkthrough", "inflate.yaml")) as f:
            deployment = yaml.safe_load(f)
        deployment["metadata"]["namespace"] = self.ns
        if node_each:
            deployment["spec"]["template"]["spec"]["affinity"] = {"podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{
                    "topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchLabels": {"app": "inflate"}}}]}}
        deployment["spec"]["replicas"] = 0
        ENV.apply(json.dumps(deployment))
        ENV.kubectl("scale", "deployment/inflate", "-n", self.ns, "--replicas=%d" % replicas)

    def wait_running(self, kubelets, n, timeout=120, avoid_node=None):
        """The inflate pods once `n` are Running on registered nodes (none on `avoid_node`)."""
        def running():
            kubelets.register()
            pods = ENV.items("pods", "-n", self.ns, "-l", "app=inflate")
            ok = [p for p in pods if p["status"].get("phase") == "Running" and p["spec"].get("nodeName")
                  and p["spec"]["nodeName"] != avoid_node]
            return ok if len(ok) == n else None
        return wait_for(running, timeout, "%d inflate pods Running" % n)

    def test_nodeclaims_of_one_shape_planned_together_are_one_fleet(self):
        # Three pods that may not share a node: three NodeClaims of one shape in one pass, which
        # EC2 sees as one CreateFleet for three instances (Karpenter's CreateFleet batching).
        ENV.apply(converted_seed())
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
        moto_recording("reset-recording")
        moto_recording("start-recording")
        try:
            c = self.start()
            kubelets = Kubelets(ENV, self.ec2)
            self.inflate(3, node_each=True)
            pods = self.wait_running(kubelets, 3)
        finally:
            moto_recording("stop-recording")
        self.assertEqual(len({p["spec"]["nodeName"] for p in pods}), 3)
        fleets = recorded_calls("CreateFleet")
        self.assertEqual(len(fleets), 1, "one CreateFleet for the burst")
        self.assertEqual(fleets[0]["TargetCapacitySpecification.TotalTargetCapacity"], ["3"])
        claims = ENV.items("nodeclaims")
        self.assertEqual(len(claims), 3)
        self.assertEqual(len({x["status"]["providerID"] for x in claims}), 3, "an instance each")
        instances = kubelets.instances()
        self.assertEqual(len(instances), 3)

        # The three empty NodeClaims deleted at once are terminated together (Karpenter's
        # TerminateInstances batching): fewer calls than instances, every instance named once.
        ENV.kubectl("delete", "deployment/inflate", "-n", self.ns)
        wait_for(lambda: not ENV.items("pods", "-n", self.ns, "-l", "app=inflate") or None, 60,
                 "the inflate pods gone")
        moto_recording("reset-recording")
        moto_recording("start-recording")
        try:
            ENV.kubectl("delete", "nodeclaims", "--all", "--wait=false")
            wait_for(lambda: not ENV.items("nodeclaims") or None, 120, "the NodeClaims deleted")
        finally:
            moto_recording("stop-recording")
        terminations = recorded_calls("TerminateInstances")
        named = sorted(v for call in terminations for k, vs in call.items()
                       if k.startswith("InstanceId.") for v in vs)
        self.assertEqual(named, sorted(i["InstanceId"] for i in instances), terminations)
        self.assertLess(len(terminations), 3, "the terminations were batched")
        self.assertEqual(kubelets.instances(("pending", "running", "stopping")), [])
        self.assertEqual(c.terminate(), 0)

    def test_a_spot_interruption_from_the_queue_replaces_the_node_within_two_minutes(self):
        sqs = boto3.client("sqs", endpoint_url=MOTO["AWS_ENDPOINT_URL"], region_name=MOTO["AWS_REGION"],
                           aws_access_key_id=MOTO["AWS_ACCESS_KEY_ID"],
                           aws_secret_access_key=MOTO["AWS_SECRET_ACCESS_KEY"])
        queue = sqs.create_queue(QueueName="Karpenter-" + CLUSTER)["QueueUrl"]
        ENV.apply(converted_seed())
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
        c = self.start(INTERRUPTION_QUEUE="Karpenter-" + CLUSTER)
        kubelets = Kubelets(ENV, self.ec2)
        self.inflate(5)
        self.wait_running(kubelets, 5)
        [first] = kubelets.instances()
        old_claim = kubelets.claim_of(first)["metadata"]["name"]
        old_node = kubelets.registered[first["InstanceId"]]

        # AWS gives a spot instance two minutes' notice, through EventBridge into the queue.
        started = time.monotonic()
        zone = first["Placement"]["AvailabilityZone"]
        sqs.send_message(QueueUrl=queue, MessageBody=json.dumps({
            "version": "0", "id": "1e5527d7-bb36-4607-3370-4164db56a40e",
            "detail-type": "EC2 Spot Instance Interruption Warning", "source": "aws.ec2",
            "account": "123456789012", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "region": MOTO["AWS_REGION"],
            "resources": ["arn:aws:ec2:%s:instance/%s" % (zone, first["InstanceId"])],
            "detail": {"instance-id": first["InstanceId"], "instance-action": "terminate"}}))

        # The node is drained and replaced: the pods run on another node, the old NodeClaim and
        # its instance are gone, and the message is deleted — before the two minutes end.
        self.wait_running(kubelets, 5, timeout=110, avoid_node=old_node)
        wait_for(lambda: old_claim not in [x["metadata"]["name"] for x in ENV.items("nodeclaims")] or None,
                 110 - (time.monotonic() - started), "the interrupted NodeClaim deleted")
        self.assertLess(time.monotonic() - started, 120)
        interrupted = c.wait_for_log("initiating delete from interruption message", timeout=5)
        self.assertEqual(interrupted["NodeClaim"]["name"], old_claim)
        self.assertEqual(interrupted["messageKind"], "spot_interrupted")

        def events():
            reasons = {(e["involvedObject"].get("kind"), e.get("reason")) for e in ENV.items("events", "-A")
                       if e["involvedObject"].get("name") in (old_claim, old_node)}
            wanted = {("NodeClaim", "SpotInterrupted"), ("Node", "SpotInterrupted"),
                      ("NodeClaim", "TerminatingOnInterruption")}
            return reasons if wanted <= reasons else None
        wait_for(events, 15, "Karpenter's interruption events on the NodeClaim and the Node")
        metrics = c.metrics()
        self.assertIn('karpenter_interruption_received_messages_total{message_type="spot_interrupted"} 1', metrics)
        self.assertIn("karpenter_interruption_deleted_messages_total 1", metrics)
        self.assertIn("karpenter_interruption_message_queue_duration_seconds_count 1", metrics)
        attributes = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])["Attributes"]
        self.assertEqual(attributes["ApproximateNumberOfMessages"], "0")
        self.assertEqual(attributes["ApproximateNumberOfMessagesNotVisible"], "0", "the message was deleted")
        # The offering it was interrupted in is closed: the replacement is another type or zone.
        [replacement] = [i for i in kubelets.instances() if i["InstanceId"] != first["InstanceId"]]
        self.assertNotEqual((replacement["InstanceType"], replacement["Placement"]["AvailabilityZone"]),
                            (first["InstanceType"], zone))
        self.assertEqual(c.terminate(), 0)

    def test_a_class_naming_a_role_gets_an_instance_profile_its_deletion_removes(self):
        self.iam.create_role(RoleName="KarpenterNodeRole-" + CLUSTER, AssumeRolePolicyDocument=json.dumps({
            "Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "sts:AssumeRole",
                                                     "Principal": {"Service": "ec2.amazonaws.com"}}]}))
        ENV.apply(json.dumps({
            "apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "by-role"},
            "spec": {"role": "KarpenterNodeRole-" + CLUSTER,
                     "amiSelectorTerms": [{"alias": "al2023@latest"}],
                     "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": CLUSTER}}],
                     "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": CLUSTER}}]}}))
        c = self.start()

        def ready():
            nc = ENV.get_json("ec2nodeclass", "by-role")
            conds = {x["type"]: x["status"] for x in nc.get("status", {}).get("conditions", [])}
            # The hash stamp is a separate controller's write: it may land just after Ready.
            stamped = "karpenter.k8s.aws/ec2nodeclass-hash" in nc["metadata"].get("annotations", {})
            return nc if (conds.get("InstanceProfileReady") == "True" and conds.get("Ready") == "True"
                          and stamped) else None
        nc = wait_for(ready, 60, "EC2NodeClass by-role Ready with its instance profile and hash stamp")
        name = nc["status"]["instanceProfile"]
        profile = self.iam.get_instance_profile(InstanceProfileName=name)["InstanceProfile"]
        self.assertEqual([r["RoleName"] for r in profile["Roles"]], ["KarpenterNodeRole-" + CLUSTER])
        self.assertEqual(profile["Path"], "/karpenter/%s/%s/%s/" % (MOTO["AWS_REGION"], CLUSTER, nc["metadata"]["uid"]))
        self.assertIn("karpenter.k8s.aws/termination", nc["metadata"]["finalizers"])

        ENV.kubectl("delete", "ec2nodeclass", "by-role", "--wait=false")
        wait_for(lambda: not [x for x in ENV.items("ec2nodeclasses") if x["metadata"]["name"] == "by-role"]
                 or None, 60, "the EC2NodeClass deleted")
        names = [p["InstanceProfileName"] for p in self.iam.list_instance_profiles()["InstanceProfiles"]]
        self.assertNotIn(name, names)
        self.assertIn(PROFILE, names, "a profile the user made is not nodesmith's to delete")
        self.assertEqual(c.terminate(), 0)

    def test_an_instance_of_the_cluster_without_a_nodeclaim_is_terminated(self):
        # A launch whose NodeClaim was lost must not bill for ever. Here it is made outside
        # nodesmith with the tags nodesmith's launches carry; an instance without them is the
        # user's and stays.
        subnet = self.ec2.describe_subnets(Filters=[{"Name": "tag:karpenter.sh/discovery",
                                                     "Values": [CLUSTER]}])["Subnets"][0]["SubnetId"]

        def run(tags):
            return self.ec2.run_instances(
                ImageId=self.image["x86_64"], InstanceType="m5.large", MinCount=1, MaxCount=1,
                SubnetId=subnet, TagSpecifications=[{"ResourceType": "instance", "Tags": [
                    {"Key": k, "Value": v} for k, v in tags.items()]}])["Instances"][0]["InstanceId"]
        leaked = run({"kubernetes.io/cluster/" + CLUSTER: "owned", "karpenter.sh/nodepool": "default",
                      "eks:eks-cluster-name": CLUSTER, "karpenter.k8s.aws/ec2nodeclass": "default"})
        users = run({"team": "platform"})
        time.sleep(31)  # older than the 30 s a launch is given to get its NodeClaim

        c = self.start()
        collected = c.wait_for_log("garbage collected instance with no nodeclaim", timeout=60)
        self.assertRegex(collected["provider-id"], r"^aws:///us-west-2[ab]/%s$" % leaked)

        def state(iid):
            return self.ec2.describe_instances(InstanceIds=[iid])["Reservations"][0]["Instances"][0]["State"]["Name"]
        wait_for(lambda: state(leaked) in ("shutting-down", "terminated") or None, 30, "the leaked instance terminated")
        self.assertEqual(state(users), "running", "an instance without nodesmith's tags is not nodesmith's")
        self.assertEqual(c.terminate(), 0)

    def test_the_aws_credentials_appear_in_no_log_event_or_metric(self):
        # Known secret values (moto takes any): after a launch logged at debug level, neither
        # the secret key nor the session token is in the log, the events or /metrics.
        secret = "nodesmithSecretKey" + uuid.uuid4().hex
        token = "nodesmithSessionToken" + uuid.uuid4().hex
        ENV.apply(converted_seed())
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
        c = self.start(AWS_SECRET_ACCESS_KEY=secret, AWS_SESSION_TOKEN=token)
        self.inflate(1)
        c.wait_for_log("launched nodeclaim", timeout=90)
        metrics = c.metrics()
        events = ENV.kubectl("get", "events", "-A", "-o", "json")
        self.assertEqual(c.terminate(), 0)
        with open(c.log_path) as f:
            log = f.read()
        for name, value in (("secret access key", secret), ("session token", token)):
            self.assertNotIn(value, log, "the %s in the log" % name)
            self.assertNotIn(value, metrics, "the %s in /metrics" % name)
            self.assertNotIn(value, events, "the %s in an event" % name)

    def start_shadow_walkthrough(self, **extra_env):
        """The seed walkthrough under DRY_RUN: started, with its Deployment applied."""
        ENV.apply(converted_seed())
        ENV.kubectl("patch", "ec2nodeclass", "default", "--type=merge", "-p",
                    json.dumps({"spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}]}}))
        env = aws_env.controller_env(MOTO, **dict({"DRY_RUN": "true"}, **extra_env))
        self.controller = Controller(ENV, BINARY, self.ns, extra_env=env)
        c = self.controller
        c.wait_for_log("starting controllers", timeout=90)
        ENV.apply(json.dumps({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "inflate"},
            "spec": {"replicas": 5, "selector": {"matchLabels": {"app": "inflate"}},
                     "template": {"metadata": {"labels": {"app": "inflate"}}, "spec": {"containers": [
                         {"name": "pause", "image": "registry.k8s.io/pause:3.9",
                          "resources": {"requests": {"cpu": "1"}}}]}}}}), self.ns)
        return c

    def test_shadow_mode_decides_a_launch_and_sends_ec2_nothing(self):
        c = self.start_shadow_walkthrough()
        would = c.wait_for_log("dry run: would launch an instance", timeout=90)
        self.assertRegex(would["provider-id"], r"^aws:///us-west-2[ab]/shadow-")
        time.sleep(3)
        self.assertEqual(Kubelets(ENV, self.ec2).instances(("pending", "running")), [], "an instance was launched")
        self.assertEqual(self.ec2.describe_launch_templates()["LaunchTemplates"], [])
        self.assertEqual(ENV.items("nodeclaims"), [], "a NodeClaim reached the API server")
        nc = ENV.get_json("ec2nodeclass", "default")
        self.assertNotIn("conditions", nc.get("status", {}), "shadow mode wrote the class's status")
        self.assertEqual(c.terminate(), 0)

    def test_the_accounts_own_instance_types_by_default(self):
        # moto answers DescribeInstanceTypes with EC2's own data and has no Pricing API: the
        # on-demand prices fall back to the built-in table, and the fallback is logged. No CATALOG:
        # the account's own types are the aws provider's default, as in Karpenter.
        c = self.start_shadow_walkthrough()
        warned = [l for l in c.lines() if l.get("level") == "WARN" and
                  l.get("message", "").startswith("on-demand prices from the built-in table")]
        self.assertEqual(len(warned), 1, c.tail())
        would = c.wait_for_log("dry run: would launch an instance", timeout=90)
        self.assertRegex(would["provider-id"], r"^aws:///us-west-2[a-d]/shadow-")
        self.assertEqual(Kubelets(ENV, self.ec2).instances(("pending", "running")), [], "an instance was launched")
        self.assertEqual(c.terminate(), 0)

    def test_an_endpoint_that_cannot_be_reached_is_a_log_line_naming_the_class_and_the_call(self):
        ENV.apply(converted_seed())
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))  # held, never listened on: connections are refused
        port = closed.getsockname()[1]
        try:
            env = aws_env.controller_env(MOTO, AWS_MAX_ATTEMPTS="1",
                                         AWS_ENDPOINT_URL="http://127.0.0.1:%d" % port)
            self.controller = Controller(ENV, BINARY, self.ns, extra_env=env)
            c = self.controller
            c.wait_for_log("starting controllers", timeout=90)
            # The account's instance types cannot be read either: the built-in table stands in,
            # and a WARN line says so and why.
            fallback = [l for l in c.lines() if l.get("level") == "WARN" and
                        l.get("message", "").startswith("reading the account's instance types failed")]
            self.assertEqual(len(fallback), 1, c.tail())
            self.assertIn("127.0.0.1:%d" % port, fallback[0]["message"])
            self.assertIn("using the built-in table for %s until a refresh succeeds" % MOTO["AWS_REGION"],
                          fallback[0]["message"])
            error = c.wait_for_log("Reconciler error", timeout=60, controller="nodeclass.status")
            self.assertIn("EC2NodeClass default", error["error"])
            self.assertIn("127.0.0.1:%d" % port, error["error"])
            # Nothing is claimed about the class while AWS cannot be asked, and nodesmith keeps running.
            nc = ENV.get_json("ec2nodeclass", "default")
            self.assertNotIn("conditions", nc.get("status", {}))
            self.assertIsNone(c.process.poll())
            self.assertEqual(c.terminate(), 0)
        finally:
            closed.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
