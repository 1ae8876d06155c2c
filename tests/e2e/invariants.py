"""The promises nodesmith keeps, read off the real cluster: what the chaos suite checks after every
fault (tests/e2e/chaos_e2e.py), the same promises the simulator checks in virtual time
(src/sim/invariant_checker.h).

Two kinds of check:
- `converged(...)`: the end state once the faults stop and the cluster has had time to settle.
  Every workload pod Running on a Node; every NodeClaim with exactly one Node and every
  provider Node with exactly one NodeClaim (no orphan instance, no duplicate providerID); no
  `karpenter.sh/disrupted` taint left on a Node whose NodeClaim is not being deleted; nothing
  stuck with a deletionTimestamp; no empty provider Node (a duplicate launch leaves one).
- `Sampler`: a thread that reads the cluster every few hundred milliseconds while the faults go
  on and records each violation of what must hold at every instant: no PodDisruptionBudget
  below its desired healthy count once it has reached it, no workload pod left bound to a Node that no longer exists
  (a node deleted before it was drained), and the number of NodeClaims within a bound (no
  runaway scale-up). It also keeps the largest counts it saw.

Every check returns violations as strings naming the object, never raises on a transient read
error (a kubectl that fails while kube-apiserver restarts is simply not a sample)."""
import json
import subprocess
import threading
import time

DISRUPTED_TAINT = "karpenter.sh/disrupted"
TERMINATION_FINALIZER = "karpenter.sh/termination"


def _names(objs):
    return sorted(o["metadata"]["name"] for o in objs)


def _taint_keys(node):
    return [t.get("key") for t in node.get("spec", {}).get("taints", []) or []]


class ClusterView:
    """One read of what the invariants look at: NodeClaims, provider Nodes, the workload's pods
    and PodDisruptionBudgets in `namespace`. `None` from `read` when kube-apiserver did not
    answer (restarting)."""

    def __init__(self, claims, nodes, all_node_names, pods, pdbs, deployments):
        self.claims = claims
        self.nodes = nodes  # Nodes whose providerID has the provider's prefix
        self.all_node_names = all_node_names
        self.pods = pods
        self.pdbs = pdbs
        self.deployments = deployments

    @staticmethod
    def read(env, namespace, provider_prefix="kwok://"):
        try:
            # Two reads, not five: kubectl lists several kinds in one List.
            cluster = env.items("nodeclaims,nodes")
            local = env.items("pods,poddisruptionbudgets,deployments", "-n", namespace)
        except (AssertionError, ValueError, OSError, subprocess.SubprocessError):
            return None
        claims = [o for o in cluster if o.get("kind") == "NodeClaim"]
        all_nodes = [o for o in cluster if o.get("kind") == "Node"]
        pods = [o for o in local if o.get("kind") == "Pod"]
        pdbs = [o for o in local if o.get("kind") == "PodDisruptionBudget"]
        deployments = [o for o in local if o.get("kind") == "Deployment"]
        nodes = [n for n in all_nodes
                 if n.get("spec", {}).get("providerID", "").startswith(provider_prefix)]
        return ClusterView(claims, nodes, {n["metadata"]["name"] for n in all_nodes}, pods, pdbs,
                           deployments)


def pods_placed(view):
    """Each Deployment has spec.replicas pods, each Running on a Node and not being deleted."""
    out = []
    for d in view.deployments:
        app = d["spec"]["selector"]["matchLabels"].get("app")
        want = d["spec"].get("replicas", 1)
        mine = [p for p in view.pods if p["metadata"].get("labels", {}).get("app") == app]
        running = [p for p in mine if p["status"].get("phase") == "Running"
                   and p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")]
        if len(running) != want or len(mine) != want:
            out.append("deployment %s: %d of %d pods Running (%d pods)" %
                       (d["metadata"]["name"], len(running), want, len(mine)))
    return out


def claims_match_nodes(view):
    """One Node per NodeClaim and one NodeClaim per provider Node, matched by providerID."""
    out = []
    by_id = {}
    for c in view.claims:
        pid = c.get("status", {}).get("providerID")
        if not pid:
            out.append("nodeclaim %s has no providerID (never launched)" % c["metadata"]["name"])
            continue
        if pid in by_id:
            out.append("nodeclaims %s and %s share providerID %s" %
                       (by_id[pid]["metadata"]["name"], c["metadata"]["name"], pid))
        by_id[pid] = c
    node_ids = {}
    for n in view.nodes:
        pid = n["spec"]["providerID"]
        if pid in node_ids:
            out.append("nodes %s and %s share providerID %s" %
                       (node_ids[pid]["metadata"]["name"], n["metadata"]["name"], pid))
        node_ids[pid] = n
        if pid not in by_id:
            out.append("node %s (%s) has no nodeclaim: an orphan instance" %
                       (n["metadata"]["name"], pid))
    for pid, c in by_id.items():
        if pid not in node_ids:
            out.append("nodeclaim %s (%s) has no node" % (c["metadata"]["name"], pid))
    return out


def no_stuck_disruption(view):
    """No Node keeps the disrupted taint unless its NodeClaim is going; nothing keeps a
    deletionTimestamp (a finalizer nobody removes)."""
    out = []
    deleting = {c.get("status", {}).get("providerID") for c in view.claims
                if c["metadata"].get("deletionTimestamp")}
    for n in view.nodes:
        if DISRUPTED_TAINT in _taint_keys(n) and n["spec"]["providerID"] not in deleting:
            out.append("node %s keeps the %s taint" % (n["metadata"]["name"], DISRUPTED_TAINT))
    for o in view.claims + view.nodes:
        if o["metadata"].get("deletionTimestamp"):
            out.append("%s %s is still being deleted (finalizers %s)" %
                       (o["kind"].lower() if "kind" in o else "object", o["metadata"]["name"],
                        o["metadata"].get("finalizers")))
    return out


def no_empty_nodes(view):
    """Every provider Node runs a pod of the workload: a duplicate launch or an unconsolidated
    node shows up here once consolidateAfter has passed."""
    used = {p["spec"].get("nodeName") for p in view.pods}
    return ["node %s runs no pod" % n["metadata"]["name"] for n in view.nodes
            if n["metadata"]["name"] not in used]


def converged(view, allow_empty_nodes=False):
    """Every end-state violation of `view`."""
    out = pods_placed(view) + claims_match_nodes(view) + no_stuck_disruption(view)
    if not allow_empty_nodes:
        out += no_empty_nodes(view)
    return out


def _pdb_violations(view, met):
    """PDBs below their desired healthy count, among those that have reached it once (`met`,
    their UIDs, updated here): a workload that is still coming up is not a disruption."""
    out = []
    for pdb in view.pdbs:
        st = pdb.get("status", {})
        if st.get("observedGeneration") != pdb["metadata"].get("generation"):
            continue
        if "desiredHealthy" not in st:
            continue
        healthy, desired = st.get("currentHealthy", 0), st["desiredHealthy"]
        uid = pdb["metadata"]["uid"]
        if healthy >= desired:
            met.add(uid)
        elif uid in met:
            out.append("pdb %s: %d healthy, %d desired" % (pdb["metadata"]["name"], healthy,
                                                           desired))
    return out


def _pods_on_missing_nodes(view):
    return [p for p in view.pods if p["spec"].get("nodeName")
            and p["spec"]["nodeName"] not in view.all_node_names
            and not p["metadata"].get("deletionTimestamp")]


class Sampler:
    """Reads the cluster every `interval` seconds in a thread of its own until `stop()`; records
    violations of the always-invariants. `claim_bound()` (a function, as the bound follows the
    workload) is the most NodeClaims that may exist at once."""

    def __init__(self, env, namespace, claim_bound, interval=0.3, provider_prefix="kwok://"):
        self.env = env
        self.namespace = namespace
        self.claim_bound = claim_bound
        self.interval = interval
        self.provider_prefix = provider_prefix
        self.violations = []
        self.samples = 0
        self.max_claims = 0
        self.claim_names = set()
        self._pdbs_met = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=60)

    def _record(self, what):
        stamped = "%s %s" % (time.strftime("%H:%M:%S"), what)
        if not self.violations or not self.violations[-1].endswith(what):
            self.violations.append(stamped)

    def _confirm_pod_lost(self, pod):
        """A pod seen on a missing Node is lost only if, read again, it is the same pod, still
        bound there, not being deleted, and the Node is still missing (the two lists of a
        sample are not one snapshot)."""
        try:
            again = json.loads(self.env.kubectl("get", "pod", "-n", self.namespace, "-o", "json",
                                                pod["metadata"]["name"], check=False) or "null")
            if not again or again["metadata"]["uid"] != pod["metadata"]["uid"]:
                return False
            if again["metadata"].get("deletionTimestamp"):
                return False
            node = self.env.kubectl("get", "node", again["spec"]["nodeName"], "-o", "name",
                                    check=False)
            return node.strip() == ""
        except (AssertionError, ValueError, OSError, subprocess.SubprocessError):
            return False

    def sample(self):
        view = ClusterView.read(self.env, self.namespace, self.provider_prefix)
        if view is None:
            return
        self.samples += 1
        self.max_claims = max(self.max_claims, len(view.claims))
        self.claim_names.update(c["metadata"]["name"] for c in view.claims)
        bound = self.claim_bound()
        if len(view.claims) > bound:
            self._record("%d nodeclaims, more than the bound %d: %s" %
                         (len(view.claims), bound, _names(view.claims)))
        for v in _pdb_violations(view, self._pdbs_met):
            self._record(v)
        for p in _pods_on_missing_nodes(view):
            if self._confirm_pod_lost(p):
                self._record("pod %s is bound to node %s, which is gone (not drained)" %
                             (p["metadata"]["name"], p["spec"]["nodeName"]))

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)
