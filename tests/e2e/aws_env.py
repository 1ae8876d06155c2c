"""The AWS test harness: moto as EC2 (scripts/testenv/moto), its control routes, the network and
the AMI alias an EC2NodeClass selects, nodesmith started against it, and a harness that plays the
kubelet for moto's instances. Shared by aws_e2e.py and aws_chaos_e2e.py."""
import base64
import email
import json
import os
import re
import subprocess
import threading
import time
import urllib.parse
import urllib.request

import boto3
import yaml

from controller_env import Controller

CLUSTER = "my-cluster"  # the seed template's discovery tag
PROFILE = "KarpenterNodeInstanceProfile-my-cluster"  # the seed template's instance profile


def moto_env(moto_dir):
    """The variables scripts/testenv/moto wrote to the env file of its directory."""
    out = {}
    with open(os.path.join(moto_dir, "env")) as f:
        for word in f.read().split():
            if "=" in word:
                k, v = word.split("=", 1)
                out[k] = v
    return out



def moto_recording(moto, command):
    """moto's request recorder: reset-recording, start-recording, stop-recording."""
    moto_post(moto["AWS_ENDPOINT_URL"] + "/moto-api/recorder/" + command)


def recorded_calls(moto, action):
    """The form of every recorded EC2 query call of `action` (dry runs left out), in order."""
    with urllib.request.urlopen(moto["AWS_ENDPOINT_URL"] + "/moto-api/recorder/download-recording",
                                timeout=30) as r:
        recording = [json.loads(line) for line in r.read().decode().splitlines() if line.strip()]
    calls = []
    for entry in recording:
        body = entry.get("body") or ""
        if entry.get("body_encoded"):
            body = base64.b64decode(body).decode()
        form = urllib.parse.parse_qs(body)
        if form.get("Action") == [action] and form.get("DryRun") != ["true"]:
            calls.append(form)
    return calls


def moto_post(url, body=None):
    data = json.dumps(body or {}).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.read()


def ec2(moto):
    return boto3.client("ec2", endpoint_url=moto["AWS_ENDPOINT_URL"], region_name=moto["AWS_REGION"],
                        aws_access_key_id=moto["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=moto["AWS_SECRET_ACCESS_KEY"])


def tags_of(resource):
    return {t["Key"]: t["Value"] for t in resource.get("Tags", [])}


def node_config(user_data):
    """The NodeConfig documents of AL2023 user data (MIME multipart), as nodeadm reads them."""
    message = email.message_from_string(user_data)
    configs = []
    for part in message.walk():
        if part.get_content_type() == "application/node.eks.aws":
            configs.append(yaml.safe_load(part.get_payload(decode=True).decode()))
    return configs


def kubelet_view(configs):
    """The labels and taints the kubelet registers with, from NodeConfig kubelet flags/config."""
    labels, taints = {}, []
    for c in configs:
        kubelet = c.get("spec", {}).get("kubelet", {})
        for flag in kubelet.get("flags", []):
            m = re.match(r'--node-labels="?([^"]*)"?$', flag)
            if m and m.group(1):
                for kv in m.group(1).split(","):
                    k, v = kv.split("=", 1)
                    labels[k] = v
        taints += kubelet.get("config", {}).get("registerWithTaints", [])
    return labels, taints


class Kubelets:
    """Plays the kubelet and the cloud controller for moto's instances: one Node per running
    instance of the cluster, as the instance's user data describes it."""

    def __init__(self, env, client):
        self.env = env
        self.ec2 = client
        self.registered = {}  # instance id -> node name
        self.user_data = {}   # instance id -> decoded user data

    def instances(self, states=("pending", "running")):
        out = []
        pages = self.ec2.get_paginator("describe_instances").paginate(Filters=[
            {"Name": "tag:kubernetes.io/cluster/" + CLUSTER, "Values": ["owned"]},
            {"Name": "instance-state-name", "Values": list(states)}])
        for page in pages:
            for r in page["Reservations"]:
                out += r["Instances"]
        return out

    def arch(self, instance_type):
        """kubernetes.io/arch of an instance type, as the kubelet reports its machine's."""
        info = self.ec2.describe_instance_types(InstanceTypes=[instance_type])["InstanceTypes"][0]
        return "arm64" if "arm64" in info["ProcessorInfo"]["SupportedArchitectures"] else "amd64"

    def decoded_user_data(self, instance):
        """The user data of the launch template the instance was launched from: the one, of
        nodesmith's, whose image it runs and whose NodePool tag is the instance's (moto does not
        record the template an instance came from; the EC2NodeClass validation's own template
        has the same image and no NodePool)."""
        pool = tags_of(instance).get("karpenter.sh/nodepool")
        for lt in self.ec2.describe_launch_templates()["LaunchTemplates"]:
            if tags_of(lt).get("karpenter.sh/nodepool") != pool:
                continue
            versions = self.ec2.describe_launch_template_versions(
                LaunchTemplateId=lt["LaunchTemplateId"], Versions=["$Latest"])["LaunchTemplateVersions"]
            data = versions[0]["LaunchTemplateData"] if versions else {}
            if data.get("ImageId") == instance["ImageId"] and data.get("UserData"):
                return base64.b64decode(data["UserData"]).decode()
        raise AssertionError("no launch template of NodePool %s with the image of instance %s"
                             % (pool, instance["InstanceId"]))

    def claim_of(self, instance):
        """The NodeClaim whose status.providerID names the instance, or None."""
        for claim in self.env.items("nodeclaims"):
            if claim.get("status", {}).get("providerID", "").endswith("/" + instance["InstanceId"]):
                return claim
        return None

    def register(self):
        for i in self.instances():
            iid = i["InstanceId"]
            if iid in self.registered:
                continue
            # As a kubelet does: the instance knows its provider id, not its NodeClaim (the
            # karpenter.sh/nodeclaim tag comes after the node joined).
            claim = self.claim_of(i)
            if claim is None:
                continue  # nodesmith has not written the launch down yet
            self.user_data[iid] = self.decoded_user_data(i)
            labels, taints = kubelet_view(node_config(self.user_data[iid]))
            zone = i["Placement"]["AvailabilityZone"]
            name = i.get("PrivateDnsName") or ("ip-" + iid)
            labels.update({
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "kubernetes.io/arch": self.arch(i["InstanceType"]),
                "node.kubernetes.io/instance-type": i["InstanceType"],
                "topology.kubernetes.io/zone": zone, "topology.kubernetes.io/region": zone[:-1],
                "kwok.x-k8s.io/node": "fake",
            })
            node = {
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "labels": labels,
                             "annotations": {"kwok.x-k8s.io/node": "fake"}},
                "spec": {"providerID": "aws:///%s/%s" % (zone, iid),
                         "taints": [{k: t[k] for k in ("key", "value", "effect") if t.get(k)}
                                    for t in taints]},
                "status": {"capacity": claim["status"].get("capacity", {}),
                           "allocatable": claim["status"].get("allocatable", {})},
            }
            self.env.kubectl("create", "-f", "-", stdin=json.dumps(node))
            self.registered[iid] = name

    def start(self, interval=0.5):
        """Registers in a thread of its own every `interval` seconds until `stop()`; a failed
        round (kube-apiserver or moto not answering, a template being deleted) is retried."""
        self._stop = threading.Event()
        self.errors = 0

        def run():
            while not self._stop.is_set():
                try:
                    self.register()
                except Exception:  # noqa: BLE001 (the next round tries again)
                    self.errors += 1
                self._stop.wait(interval)
        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=60)


def converted_seed(binary, source_dir):
    """The seed's legacy Provisioner and AWSNodeTemplate as v1 NodePool and EC2NodeClass."""
    p = subprocess.run([binary, "convert", "-f",
                        os.path.join(source_dir, "examples", "seed-walkthrough", "provisioner.yaml")],
                       capture_output=True, text=True, check=True)
    return p.stdout


def fault(moto, **body):
    """A fault of moto_server.py's /fault route (its docstring says what each field does)."""
    moto_post(moto["NODESMITH_MOTO_CONTROL"] + "/fault", body)


def clear_faults(moto):
    """Every fault removed; moto's state kept."""
    moto_post(moto["NODESMITH_MOTO_CONTROL"] + "/fault/clear")


def make_network(moto, client):
    """A VPC with a subnet in us-west-2a and us-west-2b and a security group "nodes", tagged
    karpenter.sh/discovery=CLUSTER, and the instance profile PROFILE: what the seed template
    selects."""
    vpc = client.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    ids = []
    for n, zone in enumerate(("us-west-2a", "us-west-2b")):
        ids.append(client.create_subnet(VpcId=vpc, CidrBlock="10.1.%d.0/24" % n,
                                        AvailabilityZone=zone)["Subnet"]["SubnetId"])
    ids.append(client.create_security_group(GroupName="nodes", Description="nodes",
                                            VpcId=vpc)["GroupId"])
    client.create_tags(Resources=ids, Tags=[{"Key": "karpenter.sh/discovery", "Value": CLUSTER}])
    iam = boto3.client("iam", endpoint_url=moto["AWS_ENDPOINT_URL"], region_name=moto["AWS_REGION"],
                       aws_access_key_id=moto["AWS_ACCESS_KEY_ID"],
                       aws_secret_access_key=moto["AWS_SECRET_ACCESS_KEY"])
    iam.create_instance_profile(InstanceProfileName=PROFILE)
    return iam


def put_alias(env, moto, client):
    """al2023@latest for the control plane's Kubernetes version: moto's newest amazon images, by
    architecture (x86_64, arm64)."""
    version = json.loads(env.kubectl("version", "-o", "json"))["serverVersion"]
    minor = "%s.%s" % (version["major"], re.match(r"\d+", version["minor"]).group(0))
    chosen = {}
    for arch, path in (("x86_64", "x86_64"), ("arm64", "arm64")):
        images = client.describe_images(Owners=["amazon"], Filters=[
            {"Name": "architecture", "Values": [arch]}])["Images"]
        if not images:
            continue
        chosen[arch] = images[0]["ImageId"]
        moto_post(moto["NODESMITH_MOTO_CONTROL"] + "/ssm-parameter", {
            "region": moto["AWS_REGION"], "value": chosen[arch],
            "name": "/aws/service/eks/optimized-ami/%s/amazon-linux-2023/%s/standard/recommended/image_id"
                    % (minor, path)})
    if "x86_64" not in chosen:
        raise AssertionError("moto has no amazon x86_64 image")
    return chosen


def controller_env(moto, **extra):
    """The environment of `nodesmith controller --cloud-provider aws` against moto."""
    out = {k: v for k, v in moto.items() if k.startswith("AWS_")}
    out.update({"CLOUD_PROVIDER": "aws", "CLUSTER_NAME": CLUSTER, "AWS_EC2_METADATA_DISABLED": "true"})
    out.update(extra)
    return out
