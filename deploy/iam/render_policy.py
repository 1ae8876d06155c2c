#!/usr/bin/env python3
"""Prints nodesmith's controller IAM policy as a plain JSON policy document, read from the
CloudFormation template beside this file (nodesmith.cfn.yaml), for accounts that manage IAM
without CloudFormation (Terraform's aws_iam_policy, `aws iam create-policy`, eksctl).

The template is the one copy of the statements; this fills in what CloudFormation would
(${ClusterName}, ${AWS::Region}, ${AWS::AccountId}, ${AWS::Partition}, and the ARNs of the node
role and interruption queue the stack would make, or the ones given).

  render_policy.py --cluster-name NAME --region REGION --account-id ID [options]

By default all the controller's policies are merged into one document; --policy LOGICAL_ID
prints one of them (--list names them). A merged document may be longer than one managed
policy allows (6,144 characters without whitespace); the separate ones never are.

Needs PyYAML."""
import argparse
import json
import os
import re
import sys

import yaml

TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nodesmith.cfn.yaml")


class _Tagged:
    """A CloudFormation short-form function (!Sub, !Ref, ...), kept as written."""

    def __init__(self, tag, value):
        self.tag, self.value = tag, value


class _Loader(yaml.SafeLoader):
    pass


def _construct_tagged(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return _Tagged(suffix, value)


_Loader.add_multi_constructor("!", _construct_tagged)


def load_template(path=TEMPLATE):
    with open(path) as f:
        return yaml.load(f, Loader=_Loader)


def controller_policies(template):
    """{logical id: the policy document's !Sub string} of every AWS::IAM::ManagedPolicy."""
    out = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] != "AWS::IAM::ManagedPolicy":
            continue
        doc = resource["Properties"]["PolicyDocument"]
        if not (isinstance(doc, _Tagged) and doc.tag == "Sub" and isinstance(doc.value, str)):
            raise SystemExit(f"{name}: the PolicyDocument is not a !Sub string")
        out[name] = doc.value
    return out


def partition_of(region):
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def substitute(text, variables):
    def one(m):
        if m.group(1) not in variables:
            raise SystemExit(f"nothing to substitute for ${{{m.group(1)}}}")
        return variables[m.group(1)]
    return re.sub(r"\$\{([^}!][^}]*)\}", one, text)


def render(cluster_name, region, account_id, partition=None, node_role_arn=None, queue_arn=None,
           policy=None, template_path=TEMPLATE):
    partition = partition or partition_of(region)
    variables = {
        "ClusterName": cluster_name,
        "AWS::Region": region,
        "AWS::AccountId": account_id,
        "AWS::Partition": partition,
        "NodeRole.Arn": node_role_arn or f"arn:{partition}:iam::{account_id}:role/NodesmithNodeRole-{cluster_name}",
        "InterruptionQueue.Arn": queue_arn or f"arn:{partition}:sqs:{region}:{account_id}:{cluster_name}",
    }
    policies = controller_policies(load_template(template_path))
    if policy is not None:
        if policy not in policies:
            raise SystemExit(f"no policy {policy} in the template; there are {', '.join(policies)}")
        return json.loads(substitute(policies[policy], variables))
    merged = {"Version": "2012-10-17", "Statement": []}
    for text in policies.values():
        merged["Statement"].extend(json.loads(substitute(text, variables))["Statement"])
    return merged


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cluster-name")
    p.add_argument("--region")
    p.add_argument("--account-id")
    p.add_argument("--partition", help="aws, aws-cn or aws-us-gov; by default the region's")
    p.add_argument("--node-role-arn", help="default: the stack's NodesmithNodeRole-<cluster>")
    p.add_argument("--queue-arn", help="default: the stack's queue, named after the cluster")
    p.add_argument("--policy", help="one policy by its logical id in the template")
    p.add_argument("--list", action="store_true", help="name the template's controller policies")
    p.add_argument("--template", default=TEMPLATE)
    a = p.parse_args()
    if a.list:
        print("\n".join(controller_policies(load_template(a.template))))
        return
    missing = [f for f in ("cluster_name", "region", "account_id") if not getattr(a, f)]
    if missing:
        p.error("needs " + ", ".join("--" + f.replace("_", "-") for f in missing))
    doc = render(a.cluster_name, a.region, a.account_id, a.partition, a.node_role_arn, a.queue_arn,
                 a.policy, a.template)
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
