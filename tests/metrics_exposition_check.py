#!/usr/bin/env python3
"""Checks a /metrics exposition the way Prometheus reads it.

Usage: metrics_exposition_check.py METRICS_TEXT_FILE

The file is the text exposition (format 0.0.4) of a KarpenterMetrics in which every family has
a sample (metrics_test --gtest_filter=KarpenterMetricsExposition.* writes it when
NODESMITH_METRICS_EXPOSITION_OUT names a file). It must:
  - follow the text format line by line (a strict grammar checked here: HELP, then TYPE, then
    samples; escapes; numbers as Go's strconv 'g' writes them; families sorted, each once);
  - parse with prometheus_client's parser into exactly the families of EXPECTED below, with the
    type, label names, histogram buckets and summary quantiles Karpenter v1.14.1 uses (names
    dashboards select on), every sample attributed to its family (none left "untyped");
  - have consistent histograms (cumulative buckets, +Inf equal to _count).
Exit status 0 when all holds; otherwise 1 with one line per problem.
"""
import math
import re
import sys
from decimal import Decimal

from prometheus_client.parser import text_string_to_metric_families

# --- What Karpenter v1.14.1 exports (kubernetes-sigs/karpenter, aws/karpenter-provider-aws,
#     awslabs/operatorpkg, controller-runtime), and nodesmith's additions. ---

DURATION = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
            0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15,
            20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600]
RECONCILE = [b for b in DURATION if b <= 60]
DEFAULT = [.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10]
MINUTE, HOUR, DAY = 60, 3600, 86400
LIFETIME = [15 * MINUTE, 30 * MINUTE, 45 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 6 * HOUR, 8 * HOUR,
            10 * HOUR, 12 * HOUR, 16 * HOUR, 20 * HOUR, DAY, 2 * DAY, 3 * DAY, 5 * DAY, 10 * DAY,
            15 * DAY, 20 * DAY, 25 * DAY, 30 * DAY]
QUANTILES = [0, 0.5, 0.9, 0.99, 1]


def exponential(start, factor, count):
    return [start * factor ** i for i in range(count)]


# Karpenter's core well-known labels with the domain stripped, and the node's own labels.
NODE = ["nodepool", "zone", "region", "instance_type", "arch", "os", "capacity_type",
        "windows_build", "node_name", "phase", "managed"]
NODE_RESOURCE = NODE + ["resource_type"]
CONDITION_EXTRA = ["karpenter_k8s_aws_ec2nodeclass", "karpenter_sh_nodepool"]
POD_STATE = ["name", "namespace", "owner", "node", "scheduled", "nodepool", "zone", "arch",
             "capacity_type", "instance_type", "phase", "ready", "managed"]

# name: (type, label names, buckets for histograms / quantiles for summaries)
EXPECTED = {
    "karpenter_build_info": ("gauge", ["version", "goversion", "goarch", "commit"]),
    "karpenter_nodeclaims_created_total": ("counter", ["reason", "nodepool", "min_values_relaxed"]),
    "karpenter_nodeclaims_terminated_total": ("counter", ["nodepool", "capacity_type", "zone"]),
    "karpenter_nodeclaims_disrupted_total": ("counter", ["reason", "nodepool", "capacity_type"]),
    "karpenter_nodes_created_total": ("counter", ["nodepool", "zone"]),
    "karpenter_nodes_terminated_total": ("counter", ["nodepool", "zone"]),
    "karpenter_nodeclaims_instance_termination_duration_seconds":
        ("histogram", ["nodepool"], exponential(1, 2, 11)),
    "karpenter_nodeclaims_termination_duration_seconds":
        ("histogram", ["nodepool"], exponential(1, 2, 12)),
    "karpenter_nodes_allocatable": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_total_pod_requests": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_total_pod_limits": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_total_daemon_requests": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_total_daemon_limits": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_system_overhead": ("gauge", NODE_RESOURCE),
    "karpenter_nodes_current_lifetime_seconds": ("gauge", NODE),
    "karpenter_cluster_utilization_percent": ("gauge", ["resource_type"]),
    "karpenter_nodes_termination_duration_seconds": ("summary", ["nodepool"], QUANTILES),
    "karpenter_nodes_drained_total": ("counter", ["nodepool"]),
    "karpenter_nodes_lifetime_duration_seconds": ("histogram", ["nodepool"], LIFETIME),
    "karpenter_pods_eviction_requests_total": ("counter", ["code"]),
    "karpenter_pods_drained_total": ("counter", ["reason"]),
    "karpenter_nodepools_usage": ("gauge", ["resource_type", "nodepool"]),
    "karpenter_nodepools_limit": ("gauge", ["resource_type", "nodepool"]),
    "karpenter_nodepools_cost_total": ("gauge", ["nodepool"]),
    "karpenter_nodepools_allowed_disruptions": ("gauge", ["nodepool", "reason"]),
    "karpenter_nodepools_nodes_consuming_budgets": ("gauge", ["nodepool", "reason"]),
    "karpenter_pods_state": ("gauge", POD_STATE),
    "karpenter_pods_startup_duration_seconds": ("summary", [], QUANTILES),
    "karpenter_pods_bound_duration_seconds": ("histogram", [], DURATION),
    "karpenter_pods_scheduling_decision_duration_seconds": ("histogram", [], DURATION),
    "karpenter_cluster_state_node_count": ("gauge", []),
    "karpenter_cluster_state_synced": ("gauge", []),
    "karpenter_cluster_state_unsynced_time_seconds": ("gauge", []),
    "karpenter_scheduler_scheduling_duration_seconds": ("histogram", ["controller"], DURATION),
    "karpenter_scheduler_queue_depth": ("gauge", ["controller", "scheduling_id"]),
    "karpenter_scheduler_unschedulable_pods_count": ("gauge", ["controller"]),
    "karpenter_scheduler_ignored_pods_count": ("gauge", []),
    "karpenter_voluntary_disruption_decisions_total":
        ("counter", ["decision", "reason", "consolidation_type"]),
    "karpenter_voluntary_disruption_eligible_nodes": ("gauge", ["reason"]),
    "karpenter_voluntary_disruption_decision_evaluation_duration_seconds":
        ("histogram", ["reason", "consolidation_type"], DURATION),
    "karpenter_voluntary_disruption_failed_validations_total": ("counter", ["consolidation_type"]),
    "karpenter_voluntary_disruption_consolidation_timeouts_total":
        ("counter", ["consolidation_type"]),
    "karpenter_cloudprovider_duration_seconds":
        ("histogram", ["controller", "method", "provider"], DEFAULT),
    "karpenter_cloudprovider_errors_total":
        ("counter", ["controller", "method", "provider", "error"]),
    "karpenter_cloudprovider_instance_type_offering_price_estimate":
        ("gauge", ["instance_type", "capacity_type", "zone"]),
    "karpenter_cloudprovider_instance_type_offering_available":
        ("gauge", ["instance_type", "capacity_type", "zone"]),
    "karpenter_interruption_received_messages_total": ("counter", ["message_type"]),
    "karpenter_interruption_deleted_messages_total": ("counter", []),
    "karpenter_interruption_message_queue_duration_seconds": ("histogram", [], DURATION),
    "operator_nodeclaim_status_condition_transition_seconds":
        ("histogram", ["type", "status"] + CONDITION_EXTRA, exponential(0.5, 2, 15)),
    "operator_nodeclaim_status_condition_count":
        ("gauge", ["namespace", "name", "type", "status", "reason"] + CONDITION_EXTRA),
    "operator_nodeclaim_status_condition_current_status_seconds":
        ("gauge", ["namespace", "name", "type", "status", "reason"] + CONDITION_EXTRA),
    "operator_nodeclaim_status_condition_transitions_total":
        ("counter", ["type", "status", "reason"] + CONDITION_EXTRA),
    "controller_runtime_reconcile_total": ("counter", ["controller", "result"]),
    "controller_runtime_reconcile_errors_total": ("counter", ["controller"]),
    "controller_runtime_reconcile_time_seconds": ("histogram", ["controller"], RECONCILE),
    "controller_runtime_max_concurrent_reconciles": ("gauge", ["controller"]),
    "controller_runtime_active_workers": ("gauge", ["controller"]),
    "leader_election_master_status": ("gauge", ["name"]),
    "nodesmith_nodepool_cost_per_hour": ("gauge", ["nodepool"]),
    "nodesmith_pending_pods_cost_lower_bound_per_hour": ("gauge", []),
    "nodesmith_shadow_nodeclaims_would_create_total":
        ("counter", ["nodepool", "instance_type", "capacity_type", "zone"]),
    "nodesmith_shadow_nodes_would_delete_total": ("counter", ["nodepool", "reason"]),
    "nodesmith_shadow_cost_difference_per_hour": ("gauge", []),
}

# --- The text format, strictly ---

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r"[a-zA-Z_][a-zA-Z0-9_]*"
VALUE = r'"(?:[^"\\\n]|\\[\\"n])*"'
NUMBER = r"(?:[+-]Inf|NaN|-?[0-9]+(?:\.[0-9]+)?(?:e[+-][0-9]{2,3})?)"
HELP_RE = re.compile(r"# HELP (" + NAME + r") ((?:[^\\\n]|\\[\\n])*)")
TYPE_RE = re.compile(r"# TYPE (" + NAME + r") (counter|gauge|histogram|summary)")
SAMPLE_RE = re.compile(r"(" + NAME + r")(?:\{(" + LABEL + "=" + VALUE + "(?:," + LABEL + "=" +
                       VALUE + r")*)\})? (" + NUMBER + ")")
PAIR_RE = re.compile("(" + LABEL + ")=(" + VALUE + ")")
SUFFIXES = {"counter": [""], "gauge": [""], "histogram": ["_bucket", "_sum", "_count"],
            "summary": ["", "_sum", "_count"]}


def unescape(quoted):
    return re.sub(r'\\([\\"n])', lambda m: "\n" if m.group(1) == "n" else m.group(1), quoted[1:-1])


def go_float(v):
    """Go's strconv.FormatFloat(v, 'g', -1, 64), with Prometheus' +Inf/-Inf/NaN."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == 0:
        return "0"
    sign, digits, exp = Decimal(repr(float(v))).as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exp += 1
    d = "".join(map(str, digits))
    x = exp + len(d) - 1
    out = "-" if sign else ""
    if x < -4 or x >= 6:
        return out + d[0] + ("." + d[1:] if len(d) > 1 else "") + ("e-" if x < 0 else "e+") + \
            "%02d" % abs(x)
    dp = x + 1
    if dp <= 0:
        return out + "0." + "0" * (-dp) + d
    if dp >= len(d):
        return out + d + "0" * (dp - len(d))
    return out + d[:dp] + "." + d[dp:]


def check_lines(text, problems):
    """Returns {sample line index: (name, {label: value})} after checking the grammar."""
    if not text.endswith("\n"):
        problems.append("the exposition does not end with a newline")
    families, samples = [], {}
    state, family, ftype = "start", None, None
    for i, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP "):
            m = HELP_RE.fullmatch(line)
            if not m:
                problems.append(f"line {i}: malformed HELP: {line!r}")
                continue
            if family is not None and state != "samples":
                problems.append(f"line {i}: family {family} has no samples")
            family, state = m.group(1), "help"
            families.append(family)
        elif line.startswith("# TYPE "):
            m = TYPE_RE.fullmatch(line)
            if not m or state != "help" or m.group(1) != family:
                problems.append(f"line {i}: TYPE not right after its HELP: {line!r}")
                continue
            ftype, state = m.group(2), "type"
        elif line.startswith("#") or line == "":
            problems.append(f"line {i}: unexpected line {line!r}")
        else:
            m = SAMPLE_RE.fullmatch(line)
            if not m:
                problems.append(f"line {i}: malformed sample: {line!r}")
                continue
            if state not in ("type", "samples"):
                problems.append(f"line {i}: sample before its family's TYPE")
                continue
            name = m.group(1)
            if go_float(float(m.group(3))) != m.group(3):
                problems.append(f"line {i}: {m.group(3)} is not written as Go writes it")
            if name not in [family + s for s in SUFFIXES[ftype]]:
                problems.append(f"line {i}: sample {name} inside family {family}")
            pairs = PAIR_RE.findall(m.group(2) or "")
            names = [p[0] for p in pairs]
            if len(set(names)) != len(names):
                problems.append(f"line {i}: a label is repeated")
            plain = [n for n in names if n not in ("le", "quantile")]
            if plain != sorted(plain):
                problems.append(f"line {i}: labels not sorted by name")
            samples[i] = (name, {n: unescape(v) for n, v in pairs})
            state = "samples"
    if family is not None and state != "samples":
        problems.append(f"family {family} has no samples")
    if families != sorted(families):
        problems.append("families are not sorted by name")
    if len(set(families)) != len(families):
        problems.append("a family is given twice")
    return samples


def parser_name(name, mtype):
    return name[:-len("_total")] if mtype == "counter" and name.endswith("_total") else name


def check_families(text, problems):
    parsed = {}
    for fam in text_string_to_metric_families(text):
        if fam.type == "untyped" or fam.name in parsed:
            problems.append(f"{fam.name}: samples outside a family of their own")
        parsed[fam.name] = fam
    want_names = {parser_name(n, spec[0]): n for n, spec in EXPECTED.items()}
    for pname in sorted(set(parsed) - set(want_names)):
        problems.append(f"{pname}: not an expected family")
    for pname, name in sorted(want_names.items()):
        spec = EXPECTED[name]
        mtype, labels = spec[0], set(spec[1])
        fam = parsed.get(pname)
        if fam is None:
            problems.append(f"{name}: missing")
            continue
        if fam.type != mtype:
            problems.append(f"{name}: type {fam.type}, want {mtype}")
        if not fam.samples:
            problems.append(f"{name}: no samples")
        for s in fam.samples:
            got = set(s.labels) - {"le" if mtype == "histogram" else "quantile"}
            if mtype in ("histogram", "summary") and s.name.endswith(("_sum", "_count")):
                got = set(s.labels)
            if got != labels:
                problems.append(f"{name}: sample {s.name} has labels {sorted(got)}, want "
                                f"{sorted(labels)}")
        if mtype == "histogram":
            check_histogram(name, fam, spec[2], problems)
        if mtype == "summary":
            for series in group(fam.samples, {"quantile"}).values():
                qs = [s.labels["quantile"] for s in series if s.name == name]
                if qs != [go_float(q) for q in spec[2]]:
                    problems.append(f"{name}: quantiles {qs}, want {spec[2]}")
    return parsed


def group(samples, drop):
    out = {}
    for s in samples:
        key = tuple(sorted((k, v) for k, v in s.labels.items() if k not in drop))
        out.setdefault(key, []).append(s)
    return out


def check_histogram(name, fam, bounds, problems):
    for key, series in group(fam.samples, {"le"}).items():
        buckets = [s for s in series if s.name == name + "_bucket"]
        les = [s.labels["le"] for s in buckets]
        want = [go_float(b) for b in bounds] + ["+Inf"]
        if les != want:
            problems.append(f"{name}{dict(key)}: buckets le={les}, want {want}")
        counts = [s.value for s in buckets]
        if counts != sorted(counts):
            problems.append(f"{name}{dict(key)}: bucket counts are not cumulative")
        count = [s.value for s in series if s.name == name + "_count"]
        total = [s.value for s in series if s.name == name + "_sum"]
        if len(count) != 1 or len(total) != 1:
            problems.append(f"{name}{dict(key)}: needs one _sum and one _count")
        elif counts and counts[-1] != count[0]:
            problems.append(f"{name}{dict(key)}: +Inf bucket {counts[-1]} != _count {count[0]}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with open(sys.argv[1], "rb") as f:
        raw = f.read()
    problems = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        print(f"not UTF-8: {e}")
        return 1
    samples = check_lines(text, problems)
    try:
        parsed = check_families(text, problems)
    except Exception as e:  # the parser refuses the text
        problems.append(f"prometheus_client cannot parse the exposition: {e!r}")
        parsed = {}
    # The parser and the strict grammar must read the same label values (escapes included).
    ours = sorted((name, tuple(sorted(labels.items()))) for name, labels in samples.values())
    theirs = sorted((s.name, tuple(sorted(s.labels.items())))
                    for fam in parsed.values() for s in fam.samples)
    if parsed and ours != theirs:
        problems.append("prometheus_client reads other samples or label values than the grammar")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"ok: {len(parsed)} families, {len(samples)} samples")
    return 0


if __name__ == "__main__":
    sys.exit(main())
