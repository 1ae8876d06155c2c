#!/usr/bin/env python3
"""The IAM deployment (deploy/iam/nodesmith.cfn.yaml, deploy/iam/render_policy.py).

- cfn-lint passes on the template.
- IAM (moto) accepts each controller policy and the merged document render_policy.py prints,
  and keeps them as sent; each one fits a managed policy even with the longest cluster name.
- The whole stack deploys in moto's CloudFormation, with and without the controller role: the
  controller role trusts exactly the chart's ServiceAccount and holds the four policies; the
  rules send to the queue. The node role's AWS managed policies exist (moto's copy of AWS's
  list).
- The policy against the source: every AWS action the controller sends (each client's
  Call("...") and Paged("...") in a function production code reaches) is allowed, and nothing
  else is, except what EC2 and IAM check on the caller besides the call itself (PassRole,
  TagInstanceProfile). A new call without a statement, or a
  statement for a call that is gone, fails here. The STS call the credential chain makes is the
  one the controller role trusts; every interruption event the source reads has a rule; the
  table in docs/aws.md names the same actions.

Usage: iam_policy_test.py --source-dir DIR --moto-dir DIR --cfn-lint CFN_LINT [unittest arguments]"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import unittest
import urllib.request

import boto3

ARGS = None
CLUSTER = "demo"
# What each client file's Call("...") and Paged("...") names an action of.
SERVICE_OF_FILE = {
    "src/cloud/aws/ec2_client.cc": "ec2",
    "src/cloud/aws/iam_client.cc": "iam",
    "src/cloud/aws/sqs_client.cc": "sqs",
    "src/cloud/aws/ssm_client.cc": "ssm",
    "src/cloud/aws/pricing.cc": "pricing",
    "src/cloud/aws/eks_client.cc": "eks",
}
# Actions the service authorizes on the caller as part of another call, so the policy needs
# them though the source never names them: {action: the sent actions that need it}.
IMPLIED = {
    # RunInstances and CreateFleet launch with an instance profile; EC2 checks that the caller
    # may pass its role.
    "iam:PassRole": {"ec2:RunInstances", "ec2:CreateFleet"},
    # CreateInstanceProfile with Tags is also a TagInstanceProfile.
    "iam:TagInstanceProfile": {"iam:CreateInstanceProfile"},
}
# The service column of docs/aws.md's table.
DOCS_SERVICE = {"EC2": "ec2", "IAM": "iam", "SSM": "ssm", "Pricing": "pricing", "SQS": "sqs", "EKS": "eks"}


def src(*parts):
    return os.path.join(ARGS.source_dir, *parts)


def read(path):
    with open(path) as f:
        return f.read()


def render_module():
    # Imported from the source tree, which must not get a __pycache__.
    sys.dont_write_bytecode = True
    sys.path.insert(0, src("deploy", "iam"))
    import render_policy  # noqa: E402
    return render_policy


def moto_env():
    out = {}
    with open(os.path.join(ARGS.moto_dir, "env")) as f:
        for word in f.read().split():
            if "=" in word:
                k, v = word.split("=", 1)
                out[k] = v
    return out


def production_sources():
    for path in sorted(glob.glob(src("src", "**", "*.cc"), recursive=True) +
                       glob.glob(src("src", "**", "*.h"), recursive=True)):
        if not path.endswith("_test.cc"):
            yield os.path.relpath(path, ARGS.source_dir), read(path)


DEFINITION = re.compile(r"^(?!namespace\b|using\b|return\b)[A-Za-z_].*?\b(\w+)\(", re.M)
AWS_CALL = re.compile(r'\bCall\(\s*"(\w+)"|Paged\(\s*"(\w+)"')


def functions(text):
    """[(name, body)] of the functions defined at the top level of a .cc: a line at column 0
    naming `name(` starts one (a class's method by its bare name), the next such line ends it."""
    starts = [(m.group(1), m.start()) for m in DEFINITION.finditer(text)]
    return [(name, text[pos:starts[i + 1][1] if i + 1 < len(starts) else len(text)])
            for i, (name, pos) in enumerate(starts)]


def sent_actions():
    """{"service:Action": file} of every call the controller can make: a client function that
    names the action and is called from production code outside the client's own .cc and .h,
    itself or through a function of the same file that is. Client functions only tests call
    (SqsClient::SendMessage fills moto's queue) need no permission."""
    sources = dict(production_sources())
    out = {}
    for rel, text in sources.items():
        if not AWS_CALL.search(text):
            continue
        if rel not in SERVICE_OF_FILE:
            raise AssertionError(f"{rel} makes AWS calls; name its service in SERVICE_OF_FILE")
        stem = rel.rsplit(".", 1)[0]
        outside = "\n".join(t for r, t in sources.items() if r.rsplit(".", 1)[0] != stem)
        defs = functions(text)
        memo = {}

        def reached(name, seen=()):
            if name not in memo:
                memo[name] = bool(re.search(r"\b%s\(" % name, outside)) or any(
                    g != name and g not in seen and re.search(r"\b%s\(" % name, body) and reached(g, seen + (name,))
                    for g, body in defs)
            return memo[name]

        for name, body in defs:
            for m in AWS_CALL.finditer(body):
                if reached(name):
                    out[f"{SERVICE_OF_FILE[rel]}:{m.group(1) or m.group(2)}"] = f"{rel}, {name}"
    return out


def allowed_actions(doc):
    out = set()
    for s in doc["Statement"]:
        if s["Effect"] != "Allow":
            continue
        actions = s["Action"] if isinstance(s["Action"], list) else [s["Action"]]
        out.update(actions)
    return out


class CfnLint(unittest.TestCase):
    def test_the_template_passes_cfn_lint(self):
        p = subprocess.run([ARGS.cfn_lint, "--format", "parseable", src("deploy", "iam", "nodesmith.cfn.yaml")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.strip(), "")


class Moto(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        env = moto_env()
        cls.endpoint = env["AWS_ENDPOINT_URL"]
        kw = dict(endpoint_url=cls.endpoint, region_name=env["AWS_REGION"],
                  aws_access_key_id=env["AWS_ACCESS_KEY_ID"], aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"])
        cls.region = env["AWS_REGION"]
        cls.iam = boto3.client("iam", **kw)
        cls.cfn = boto3.client("cloudformation", **kw)
        cls.events = boto3.client("events", **kw)
        cls.sqs = boto3.client("sqs", **kw)
        cls.account = boto3.client("sts", **kw).get_caller_identity()["Account"]
        cls.rp = render_module()

    def setUp(self):
        self.reset()

    def tearDown(self):
        self.reset()

    def reset(self):
        urllib.request.urlopen(urllib.request.Request(self.endpoint + "/moto-api/reset", method="POST"), timeout=30)

    def test_iam_accepts_each_controller_policy_and_the_merged_one(self):
        names = list(self.rp.controller_policies(self.rp.load_template()))
        self.assertEqual(len(names), 4, names)
        for name in names + [None]:
            doc = self.rp.render(CLUSTER, self.region, self.account, policy=name)
            created = self.iam.create_policy(PolicyName=name or "merged", PolicyDocument=json.dumps(doc))["Policy"]
            kept = self.iam.get_policy_version(PolicyArn=created["Arn"], VersionId=created["DefaultVersionId"])
            self.assertEqual(kept["PolicyVersion"]["Document"], doc, name)

    def test_iam_refuses_a_broken_policy(self):
        # The check above is worth something only if moto does refuse: a statement without Effect.
        doc = self.rp.render(CLUSTER, self.region, self.account, policy="ControllerInterruptionPolicy")
        del doc["Statement"][0]["Effect"]
        with self.assertRaises(self.iam.exceptions.MalformedPolicyDocumentException):
            self.iam.create_policy(PolicyName="broken", PolicyDocument=json.dumps(doc))

    def test_names_and_policies_fit_iam_and_sqs_with_the_longest_cluster_name(self):
        template = self.rp.load_template()
        longest = "c" * template["Parameters"]["ClusterName"]["MaxLength"]
        for name in self.rp.controller_policies(template):
            doc = self.rp.render(longest, "ap-southeast-2", self.account, policy=name)
            size = len(re.sub(r"\s", "", json.dumps(doc)))
            self.assertLessEqual(size, 6144, name)
        # moto does not hold names to IAM's lengths; IAM does, at deploy time.
        limits = {("AWS::IAM::Role", "RoleName"): 64, ("AWS::IAM::ManagedPolicy", "ManagedPolicyName"): 128,
                  ("AWS::SQS::Queue", "QueueName"): 80}
        checked = 0
        for logical, r in template["Resources"].items():
            for (kind, prop), limit in limits.items():
                if r["Type"] == kind:
                    value = r["Properties"][prop]
                    text = longest if value.tag == "Ref" else self.rp.substitute(value.value, {"ClusterName": longest})
                    self.assertLessEqual(len(text), limit, logical)
                    checked += 1
        self.assertEqual(checked, 7)

    def moto_template(self, parameters):
        """The template as moto's CloudFormation can take it. moto serializes a ManagedPolicy's
        PolicyDocument as given, so the !Sub string CloudFormation turns into a document reaches
        moto's IAM as a quoted string; here each one becomes the document, its keys substituted
        from the parameters, its values left to moto's Fn::Sub (which resolves the ARNs)."""
        rp = self.rp
        known = {"ClusterName": parameters["ClusterName"], "AWS::Region": self.region,
                 "AWS::AccountId": self.account, "AWS::Partition": "aws"}

        def long_form(v):
            if isinstance(v, rp._Tagged):
                if v.tag == "Ref":
                    return {"Ref": v.value}
                if v.tag == "GetAtt":
                    return {"Fn::GetAtt": v.value.split(".", 1) if isinstance(v.value, str) else v.value}
                return {"Fn::" + v.tag: long_form(v.value)}
            if isinstance(v, dict):
                return {k: long_form(x) for k, x in v.items()}
            if isinstance(v, list):
                return [long_form(x) for x in v]
            return v

        def sub_values(v):
            if isinstance(v, dict):
                return {rp.substitute(k, known): sub_values(x) for k, x in v.items()}
            if isinstance(v, list):
                return [sub_values(x) for x in v]
            if isinstance(v, str) and "${" in v:
                return {"Fn::Sub": v}
            return v

        t = rp.load_template()
        for r in t["Resources"].values():
            if r["Type"] == "AWS::IAM::ManagedPolicy":
                r["Properties"]["PolicyDocument"] = sub_values(json.loads(r["Properties"]["PolicyDocument"].value))
        return json.dumps(long_form(t))

    def deploy(self, **parameters):
        parameters.setdefault("ClusterName", CLUSTER)
        self.cfn.create_stack(StackName="nodesmith", TemplateBody=self.moto_template(parameters),
                              Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
                              Capabilities=["CAPABILITY_NAMED_IAM"])
        stack = self.cfn.describe_stacks(StackName="nodesmith")["Stacks"][0]
        self.assertEqual(stack["StackStatus"], "CREATE_COMPLETE", stack.get("StackStatusReason"))
        return {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}

    def test_the_stack_deploys_with_the_controller_role(self):
        issuer = "oidc.eks.us-west-2.amazonaws.com/id/EXAMPLED539D4633E53DE1B71EXAMPLE"
        out = self.deploy(OidcIssuer=issuer)
        self.assertEqual(out["NodeRoleName"], f"NodesmithNodeRole-{CLUSTER}")
        self.assertEqual(out["InterruptionQueueName"], CLUSTER)
        role = self.iam.get_role(RoleName=f"NodesmithControllerRole-{CLUSTER}")["Role"]
        self.assertEqual(out["ControllerRoleArn"], role["Arn"])
        trust = role["AssumeRolePolicyDocument"]
        if isinstance(trust, str):
            trust = json.loads(trust)
        (st,) = trust["Statement"]
        self.assertEqual(st["Action"], "sts:AssumeRoleWithWebIdentity")
        self.assertEqual(st["Principal"], {"Federated": f"arn:aws:iam::{self.account}:oidc-provider/{issuer}"})
        self.assertEqual(st["Condition"], {"StringEquals": {
            f"{issuer}:aud": "sts.amazonaws.com",
            f"{issuer}:sub": "system:serviceaccount:kube-system:nodesmith"}})

        # Each policy is in IAM as render_policy.py prints it for this stack. moto's
        # CloudFormation does not attach a role's ManagedPolicyArns, so the template is read for
        # which ones the controller role holds.
        node_role_arn = self.iam.get_role(RoleName=out["NodeRoleName"])["Role"]["Arn"]
        queue_url = self.sqs.get_queue_url(QueueName=out["InterruptionQueueName"])["QueueUrl"]
        queue_arn = self.sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        resources = self.rp.load_template()["Resources"]
        policy_arns = out["ControllerPolicyArns"].split(",")
        self.assertEqual(len(policy_arns), 4)
        for arn in policy_arns:
            meta = self.iam.get_policy(PolicyArn=arn)["Policy"]
            logical = next(k for k, r in resources.items() if r["Type"] == "AWS::IAM::ManagedPolicy" and
                           self.rp.substitute(r["Properties"]["ManagedPolicyName"].value, {"ClusterName": CLUSTER}) == meta["PolicyName"])
            doc = self.iam.get_policy_version(PolicyArn=arn, VersionId=meta["DefaultVersionId"])["PolicyVersion"]["Document"]
            doc = json.loads(doc) if isinstance(doc, str) else doc
            self.assertEqual(doc, self.rp.render(CLUSTER, self.region, self.account, node_role_arn=node_role_arn,
                                                 queue_arn=queue_arn, policy=logical), logical)
        held = [ref.value for ref in resources["ControllerRole"]["Properties"]["ManagedPolicyArns"]]
        self.assertEqual(sorted(held), sorted(k for k, r in resources.items() if r["Type"] == "AWS::IAM::ManagedPolicy"))

        # Every rule sends to the queue; the queue keeps messages five minutes.
        rules = self.events.list_rules()["Rules"]
        self.assertEqual(len(rules), 5)
        for r in rules:
            targets = self.events.list_targets_by_rule(Rule=r["Name"])["Targets"]
            self.assertEqual([t["Arn"] for t in targets], [queue_arn], r["Name"])
        attrs = self.sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["All"])["Attributes"]
        self.assertEqual(attrs["MessageRetentionPeriod"], "300")

    def test_the_node_role_holds_aws_managed_policies_that_exist(self):
        # moto carries AWS's list of managed policies; a misspelt name would fail only at deploy.
        from moto.iam.aws_managed_policies import aws_managed_policies_data
        known = json.loads(aws_managed_policies_data)
        arns = self.rp.load_template()["Resources"]["NodeRole"]["Properties"]["ManagedPolicyArns"]
        names = [self.rp.substitute(a.value, {"AWS::Partition": "aws"}).split(":policy/", 1)[1] for a in arns]
        self.assertEqual(sorted(names), ["AmazonEC2ContainerRegistryPullOnly", "AmazonEKSWorkerNodePolicy",
                                         "AmazonEKS_CNI_Policy", "AmazonSSMManagedInstanceCore"])
        for n in names:
            self.assertIn(n, known)

    def test_without_an_issuer_the_stack_makes_no_controller_role(self):
        out = self.deploy()
        self.assertNotIn("ControllerRoleArn", out)
        self.assertEqual(len(out["ControllerPolicyArns"].split(",")), 4)
        roles = [r["RoleName"] for r in self.iam.list_roles()["Roles"]]
        self.assertNotIn(f"NodesmithControllerRole-{CLUSTER}", roles)
        self.assertIn(f"NodesmithNodeRole-{CLUSTER}", roles)


class PolicyAgainstSource(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rp = render_module()
        cls.template = cls.rp.load_template()
        cls.policy = cls.rp.render(CLUSTER, "us-west-2", "111122223333")
        cls.allowed = allowed_actions(cls.policy)
        cls.sent = sent_actions()

    def test_the_source_is_read(self):
        # A parser that finds nothing would let every other check here pass.
        for a in ("ec2:CreateFleet", "ec2:DescribeInstanceTypes", "iam:CreateInstanceProfile",
                  "sqs:ReceiveMessage", "ssm:GetParameter", "pricing:GetProducts"):
            self.assertIn(a, self.sent)

    def test_every_call_the_controller_sends_is_allowed(self):
        missing = sorted(f"{a} ({f})" for a, f in self.sent.items() if a not in self.allowed)
        self.assertEqual(missing, [], "sent by the source, allowed by no statement of deploy/iam/nodesmith.cfn.yaml")

    def test_the_policy_allows_nothing_else(self):
        extra = []
        for a in sorted(self.allowed):
            if "*" in a:
                extra.append(f"{a}: a wildcard")
            elif a in IMPLIED:
                if not IMPLIED[a] & set(self.sent):
                    extra.append(f"{a}: none of {sorted(IMPLIED[a])} is sent any more")
            elif a not in self.sent:
                extra.append(f"{a}: not sent by the controller")
        self.assertEqual(extra, [])

    def test_client_functions_only_tests_call_are_not_counted(self):
        # The reach analysis at work: SqsClient::SendMessage exists, only tests call it.
        self.assertNotIn("sqs:SendMessage", set(self.sent))

    def test_the_credential_chain_assumes_what_the_controller_role_trusts(self):
        text = read(src("src", "cloud", "aws", "credentials.cc"))
        calls = set(re.findall(r'"Action=(\w+)', text))
        self.assertEqual(calls, {"AssumeRoleWithWebIdentity"})
        trust = json.loads(self.template["Resources"]["ControllerRole"]["Properties"]["AssumeRolePolicyDocument"].value)
        self.assertEqual({s["Action"] for s in trust["Statement"]}, {f"sts:{a}" for a in calls})

    def test_every_interruption_event_the_source_reads_has_a_rule(self):
        text = read(src("src", "cloud", "aws_interruption_message.cc"))
        consts = dict(re.findall(r'constexpr std::string_view (k\w+) =\s*"([^"]+)"', text))
        sources = {v for k, v in consts.items() if k.startswith("kSource")}
        kinds = {v for k, v in consts.items() if not k.startswith("kSource")}
        self.assertEqual(len(kinds), 5, consts)
        rules = {}
        for name, r in self.template["Resources"].items():
            if r["Type"] == "AWS::Events::Rule":
                pattern = r["Properties"]["EventPattern"]
                (detail_type,) = pattern["detail-type"]
                self.assertTrue(set(pattern["source"]) <= sources, name)
                rules[detail_type] = name
        self.assertEqual(set(rules), kinds)

    def test_the_docs_table_names_the_same_actions(self):
        text = read(src("docs", "aws.md"))
        section = text.split("## What the provider calls, and the IAM policy for it", 1)[1].split("\n## ", 1)[0]
        named = set()
        for line in section.splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) < 4 or cells[1].split(",")[0] not in DOCS_SERVICE:
                continue
            service = DOCS_SERVICE[cells[1].split(",")[0]]
            named.update(f"{service}:{a}" for a in re.findall(r"`(\w+)`", cells[2]))
        self.assertEqual(named, self.allowed)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--source-dir", required=True)
    p.add_argument("--moto-dir", required=True)
    p.add_argument("--cfn-lint", required=True)
    ARGS, rest = p.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
