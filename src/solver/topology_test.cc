// Topology: specifications in the style of Karpenter's topology_test.go. A tiny placement loop
// (TopologyHarness) stands in for the scheduler: it tries the nodes made so far in order, then a
// new node, asking Topology for each candidate exactly as the scheduler does, so these tests pin
// where constraints send pods without depending on bin-packing.
#include "solver/topology.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "scheduling/well_known_labels.h"

namespace nodesmith::solver {
namespace {

using scheduling::Requirement;
using scheduling::Requirements;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kZone = "topology.kubernetes.io/zone";
constexpr const char* kHostname = "kubernetes.io/hostname";
constexpr const char* kCapacityType = "karpenter.sh/capacity-type";
const std::vector<std::string> kZones = {"test-zone-1", "test-zone-2", "test-zone-3"};

// --- pod builders ---

api::Pod MakePod(const std::string& name, api::Labels labels = {{"app", "web"}},
                 const std::string& ns = "default") {
  api::Pod pod;
  pod.metadata.name = name;
  pod.metadata.namespace_ = ns;
  pod.metadata.uid = ns + "-" + name + "-uid";
  pod.metadata.labels = std::move(labels);
  return pod;
}

api::LabelSelector Select(api::Labels labels) {
  api::LabelSelector s;
  s.match_labels = std::move(labels);
  return s;
}

api::TopologySpreadConstraint Spread(const std::string& key, int max_skew,
                                     api::Labels selector = {{"app", "web"}}) {
  api::TopologySpreadConstraint c;
  c.topology_key = key;
  c.max_skew = max_skew;
  c.label_selector = Select(std::move(selector));
  return c;
}

api::PodAffinityTerm Term(const std::string& key, api::Labels selector = {{"app", "web"}}) {
  api::PodAffinityTerm t;
  t.topology_key = key;
  t.label_selector = Select(std::move(selector));
  return t;
}

api::Pod& WithAntiAffinity(api::Pod& pod, api::PodAffinityTerm term) {
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  if (!pod.spec.affinity->pod_anti_affinity) pod.spec.affinity->pod_anti_affinity.emplace();
  pod.spec.affinity->pod_anti_affinity->required.push_back(std::move(term));
  return pod;
}

api::Pod& WithAffinity(api::Pod& pod, api::PodAffinityTerm term) {
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  if (!pod.spec.affinity->pod_affinity) pod.spec.affinity->pod_affinity.emplace();
  pod.spec.affinity->pod_affinity->required.push_back(std::move(term));
  return pod;
}

api::Pod& WithPreferredAffinity(api::Pod& pod, api::PodAffinityTerm term, int weight) {
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  if (!pod.spec.affinity->pod_affinity) pod.spec.affinity->pod_affinity.emplace();
  pod.spec.affinity->pod_affinity->preferred.push_back({weight, std::move(term)});
  return pod;
}

api::Pod& RequireNodeLabel(api::Pod& pod, const std::string& key, std::vector<std::string> values) {
  if (!pod.spec.affinity) pod.spec.affinity.emplace();
  if (!pod.spec.affinity->node_affinity) pod.spec.affinity->node_affinity.emplace();
  auto& required = pod.spec.affinity->node_affinity->required;
  if (!required) required.emplace();
  if (required->node_selector_terms.empty()) required->node_selector_terms.emplace_back();
  required->node_selector_terms.front().match_expressions.push_back(
      {key, "In", std::move(values), std::nullopt});
  return pod;
}

// --- the placement loop ---

struct HarnessNode {
  std::string name;
  Requirements requirements;
  std::vector<api::Taint> taints;
  std::vector<std::string> pods;
};

class TopologyHarness {
 public:
  // Zones a new node may take, and labels it carries; taints of new nodes.
  std::vector<std::string> new_node_zones = kZones;
  api::Labels new_node_labels;
  std::vector<api::Taint> new_node_taints;
  // Existing nodes with their labels; pods bound to them.
  TopologyCluster cluster;
  DomainGroups domains;
  std::vector<api::Pod> bound;  // storage for cluster.bound_pods

  TopologyHarness() {
    for (const auto& z : kZones) domains[kZone].Insert(z, {});
    domains[kCapacityType].Insert("spot", {});
    domains[kCapacityType].Insert("on-demand", {});
  }

  void AddExistingNode(const std::string& name, const std::string& zone, api::Labels extra = {},
                       std::vector<api::Taint> taints = {}) {
    TopologyNode node;
    node.name = name;
    node.labels = std::move(extra);
    node.labels[kZone] = zone;
    node.labels[kHostname] = name;
    node.taints = std::move(taints);
    cluster.nodes.push_back(node);
  }

  void Bind(api::Pod pod, const std::string& node) {
    pod.spec.node_name = node;
    pod.status.phase = "Running";
    bound.push_back(std::move(pod));
  }

  // Builds the Topology for `pending`. REQUIRES: all existing nodes and bound pods added.
  core::Status Start(const std::vector<api::Pod>& pending) {
    pending_ = pending;
    cluster.bound_pods.clear();
    for (const auto& p : bound) cluster.bound_pods.push_back(&p);
    std::vector<const api::Pod*> ptrs;
    for (const auto& p : pending_) ptrs.push_back(&p);
    auto t = Topology::Create(cluster, domains, ptrs);
    if (!t.ok()) return t.status();
    topology_ = std::move(*t);
    for (const auto& n : cluster.nodes) {
      HarnessNode hn;
      hn.name = n.name;
      hn.requirements = Requirements::FromLabels(n.labels);
      hn.taints = n.taints;
      nodes_.push_back(hn);
    }
    return core::Status::Ok();
  }

  // Places pending pod `i` on the first candidate topology allows; returns the node's name or
  // the last rejection.
  core::Result<std::string> Place(size_t i) {
    const api::Pod& pod = pending_[i];
    Requirements pod_reqs = Requirements::FromPodStrict(pod);
    core::Status last;
    for (auto& node : nodes_) {
      if (!node.requirements.IsCompatible(Requirements::FromPod(pod),
                                          scheduling::AllowUndefinedWellKnownLabels())) {
        continue;
      }
      auto st = TryOn(pod, pod_reqs, node);
      if (st.ok()) return node.name;
      last = st;
    }
    HarnessNode fresh;
    fresh.name = "hostname-placeholder-" + std::to_string(next_host_++);
    fresh.requirements.Add(Requirement::In(kZone, new_node_zones));
    fresh.requirements.Add(Requirement::In(kHostname, {fresh.name}));
    fresh.requirements.Add(Requirements::FromLabels(new_node_labels));
    fresh.taints = new_node_taints;
    if (!fresh.requirements.IsCompatible(Requirements::FromPod(pod),
                                         scheduling::AllowUndefinedWellKnownLabels())) {
      return core::Status::Internal("pod incompatible with new nodes");
    }
    fresh.requirements.Add(Requirements::FromPod(pod));
    auto st = TryOn(pod, pod_reqs, fresh);
    if (!st.ok()) return st;
    topology_->Register(kHostname, fresh.name);
    nodes_.push_back(fresh);
    return fresh.name;
  }

  // Places every pending pod in order; returns node names ("" for a pod that failed).
  std::vector<std::string> PlaceAll() {
    std::vector<std::string> out;
    for (size_t i = 0; i < pending_.size(); ++i) {
      auto r = Place(i);
      out.push_back(r.ok() ? *r : "");
    }
    return out;
  }

  // Zone of node `name` ("" when not a single zone).
  std::string ZoneOf(const std::string& name) const {
    for (const auto& n : nodes_) {
      if (n.name != name) continue;
      Requirement z = n.requirements.Get(kZone);
      if (!z.complement() && z.Values().size() == 1) return z.Values().front();
    }
    return "";
  }

  // Pods per zone among placed pods.
  std::map<std::string, int> ZoneCounts(const std::vector<std::string>& placed) const {
    std::map<std::string, int> counts;
    for (const auto& n : placed) {
      if (!n.empty()) ++counts[ZoneOf(n)];
    }
    return counts;
  }

  Topology& topology() { return *topology_; }
  api::Pod& pending(size_t i) { return pending_[i]; }
  size_t node_count() const { return nodes_.size(); }

 private:
  core::Status TryOn(const api::Pod& pod, const Requirements& pod_reqs, HarnessNode& node) {
    auto tightened = topology_->AddRequirements(pod, node.taints, pod_reqs, node.requirements);
    if (!tightened.ok()) return tightened.status();
    NS_RETURN_IF_ERROR(
        node.requirements.Compatible(*tightened, scheduling::AllowUndefinedWellKnownLabels()));
    node.requirements.Add(*tightened);
    topology_->Record(pod, node.taints, node.requirements);
    node.pods.push_back(pod.metadata.name);
    return core::Status::Ok();
  }

  std::vector<api::Pod> pending_;
  std::unique_ptr<Topology> topology_;
  std::vector<HarnessNode> nodes_;
  int next_host_ = 1;
};

std::vector<api::Pod> Replicas(int n, const api::Pod& tmpl) {
  std::vector<api::Pod> pods;
  for (int i = 1; i <= n; ++i) {
    api::Pod p = tmpl;
    p.metadata.name = tmpl.metadata.name + "-" + std::to_string(i);
    p.metadata.uid = p.metadata.name + "-uid";
    pods.push_back(p);
  }
  return pods;
}

// ---------------------------------------------------------------------------------------------
// Topology spread

TEST(TopologySpread, SixPodsOverThreeZonesLandTwoPerZone) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  ASSERT_TRUE(h.Start(Replicas(6, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed), (std::map<std::string, int>{
                                      {"test-zone-1", 2}, {"test-zone-2", 2}, {"test-zone-3", 2}}));
}

TEST(TopologySpread, BalancesAroundExistingSkewedPods) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.AddExistingNode("node-b", "test-zone-2");
  h.Bind(MakePod("old-1"), "node-a");
  h.Bind(MakePod("old-2"), "node-a");
  h.Bind(MakePod("old-3"), "node-b");
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
  auto placed = h.PlaceAll();
  // Existing 2/1/0 plus three new pods: the new ones fill zone-3 and zone-2 up to 2/2/2.
  EXPECT_EQ(h.ZoneCounts(placed),
            (std::map<std::string, int>{{"test-zone-2", 1}, {"test-zone-3", 2}}));
}

TEST(TopologySpread, RejectsANodeThatWouldExceedMaxSkew) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.Bind(MakePod("old-1"), "node-a");
  api::Pod pod = MakePod("web-1");
  pod.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  ASSERT_TRUE(h.Start({pod}).ok());
  // zone-1 already has one; zones 2 and 3 have none: a second pod in zone-1 makes skew 2.
  auto r = h.topology().AddRequirements(pod, {}, Requirements::FromPodStrict(pod),
                                        Requirements::FromLabels(h.cluster.nodes[0].labels));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(),
              HasSubstr("unsatisfiable topology constraint for topology spread, "
                        "key=topology.kubernetes.io/zone"));
  EXPECT_THAT(r.status().message(), HasSubstr("test-zone-1: 1"));
}

TEST(TopologySpread, HostnameSpreadPutsOnePodPerNode) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kHostname, 1));
  ASSERT_TRUE(h.Start(Replicas(4, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_THAT(placed, ElementsAre("hostname-placeholder-1", "hostname-placeholder-2",
                                  "hostname-placeholder-3", "hostname-placeholder-4"));
}

TEST(TopologySpread, HostnameSpreadWithMaxSkewTwoAllowsTwoPerNode) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kHostname, 2));
  ASSERT_TRUE(h.Start(Replicas(4, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_THAT(placed, ElementsAre("hostname-placeholder-1", "hostname-placeholder-1",
                                  "hostname-placeholder-2", "hostname-placeholder-2"));
}

TEST(TopologySpread, PodsNotSelectedByTheConstraintAreNotSpread) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kHostname, 1, {{"app", "other"}}));
  ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_THAT(placed, ElementsAre("hostname-placeholder-1", "hostname-placeholder-1",
                                  "hostname-placeholder-1"));
}

TEST(TopologySpread, MinDomainsAboveTheDomainCountAllowsOnePodPerDomain) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  auto c = Spread(kZone, 1);
  c.min_domains = 5;  // only 3 zones exist: the global minimum is taken as 0
  tmpl.spec.topology_spread_constraints.push_back(c);
  ASSERT_TRUE(h.Start(Replicas(4, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed), (std::map<std::string, int>{
                                      {"test-zone-1", 1}, {"test-zone-2", 1}, {"test-zone-3", 1}}));
  EXPECT_EQ(placed[3], "");
}

TEST(TopologySpread, MinDomainsWithinTheDomainCountSpreadsNormally) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  auto c = Spread(kZone, 1);
  c.min_domains = 3;
  tmpl.spec.topology_spread_constraints.push_back(c);
  ASSERT_TRUE(h.Start(Replicas(6, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed), (std::map<std::string, int>{
                                      {"test-zone-1", 2}, {"test-zone-2", 2}, {"test-zone-3", 2}}));
}

TEST(TopologySpread, PodsLimitedToTwoZonesSpreadOverThoseTwo) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  RequireNodeLabel(tmpl, kZone, {"test-zone-1", "test-zone-2"});
  ASSERT_TRUE(h.Start(Replicas(4, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed),
            (std::map<std::string, int>{{"test-zone-1", 2}, {"test-zone-2", 2}}));
}

TEST(TopologySpread, NodeAffinityPolicyHonorIgnoresPodsOnNodesThePodCannotUse) {
  for (const std::string policy : {"Honor", "Ignore"}) {
    TopologyHarness h;
    h.AddExistingNode("other-a", "test-zone-1", {{"pool", "other"}});
    h.Bind(MakePod("old-1"), "other-a");
    h.Bind(MakePod("old-2"), "other-a");
    h.new_node_labels = {{"pool", "web"}};
    api::Pod tmpl = MakePod("web");
    auto c = Spread(kZone, 1);
    c.node_affinity_policy = policy;
    tmpl.spec.topology_spread_constraints.push_back(c);
    tmpl.spec.node_selector = {{"pool", "web"}};
    ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
    auto placed = h.PlaceAll();
    if (policy == "Honor") {
      // The two pods on the "other" pool do not count: zones are balanced from zero.
      EXPECT_EQ(
          h.ZoneCounts(placed),
          (std::map<std::string, int>{{"test-zone-1", 1}, {"test-zone-2", 1}, {"test-zone-3", 1}}))
          << policy;
    } else {
      // They count: zone-1 already holds two, so new pods avoid it.
      EXPECT_EQ(h.ZoneCounts(placed).count("test-zone-1"), 0u) << policy;
    }
  }
}

TEST(TopologySpread, NodeTaintsPolicyHonorSkipsDomainsOnlyReachableThroughUntoleratedTaints) {
  for (const std::string policy : {"Honor", "Ignore"}) {
    TopologyHarness h;
    h.domains.clear();
    h.domains[kZone].Insert("test-zone-1", {});
    h.domains[kZone].Insert("test-zone-2", {});
    h.domains[kZone].Insert("test-zone-3", {{"dedicated", "gpu", "NoSchedule"}});
    h.new_node_zones = {"test-zone-1", "test-zone-2"};
    api::Pod tmpl = MakePod("web");
    auto c = Spread(kZone, 1);
    c.node_taints_policy = policy;
    tmpl.spec.topology_spread_constraints.push_back(c);
    ASSERT_TRUE(h.Start(Replicas(4, tmpl)).ok());
    auto placed = h.PlaceAll();
    if (policy == "Honor") {
      EXPECT_EQ(h.ZoneCounts(placed),
                (std::map<std::string, int>{{"test-zone-1", 2}, {"test-zone-2", 2}}));
    } else {
      // zone-3 stays empty but counts as a domain, so only one pod fits in each other zone.
      EXPECT_EQ(h.ZoneCounts(placed),
                (std::map<std::string, int>{{"test-zone-1", 1}, {"test-zone-2", 1}}));
      EXPECT_EQ(placed[2], "");
    }
  }
}

TEST(TopologySpread, MatchLabelKeysCountOnlyPodsWithTheSameValues) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  // Three pods of an older revision in zone-1 do not count for the new revision.
  for (int i = 1; i <= 3; ++i) {
    h.Bind(MakePod("old-" + std::to_string(i), {{"app", "web"}, {"rev", "1"}}), "node-a");
  }
  api::Pod tmpl = MakePod("web", {{"app", "web"}, {"rev", "2"}});
  auto c = Spread(kZone, 1);
  c.match_label_keys = {"rev"};
  tmpl.spec.topology_spread_constraints.push_back(c);
  ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed), (std::map<std::string, int>{
                                      {"test-zone-1", 1}, {"test-zone-2", 1}, {"test-zone-3", 1}}));
}

TEST(TopologySpread, PendingPodsAlreadyBoundSomewhereAreNotCountedTwice) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  api::Pod moving = MakePod("web-1");
  moving.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  h.Bind(moving, "node-a");  // the same pod, being rescheduled
  ASSERT_TRUE(h.Start({moving}).ok());
  const auto groups = h.topology().GroupsOwnedBy(moving);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]->counts().at("test-zone-1"), 0);
}

// Existing pods are matched once per namespace and label set, then counted once per pod: alike
// pods on one node all count there, and pods with the same labels in another namespace do not.
TEST(TopologySpread, ExistingPodsAlikeCountOncePerPodAndOnlyInTheirNamespace) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.AddExistingNode("node-b", "test-zone-2");
  h.AddExistingNode("node-c", "test-zone-3");
  for (int i = 0; i < 3; ++i) h.Bind(MakePod("a-" + std::to_string(i)), "node-a");
  h.Bind(MakePod("b-0"), "node-b");
  for (int i = 0; i < 4; ++i) h.Bind(MakePod("other-" + std::to_string(i), {{"app", "web"}}, "other"), "node-c");
  api::Pod pod = MakePod("web-1");
  pod.spec.topology_spread_constraints.push_back(Spread(kZone, 5));
  ASSERT_TRUE(h.Start({pod}).ok());
  const auto groups = h.topology().GroupsOwnedBy(pod);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0]->counts(), (std::map<std::string, int>{
                                     {"test-zone-1", 3}, {"test-zone-2", 1}, {"test-zone-3", 0}}));
}

TEST(TopologySpread, IdenticalConstraintsShareOneGroup) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  tmpl.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  auto pods = Replicas(3, tmpl);
  ASSERT_TRUE(h.Start(pods).ok());
  auto g1 = h.topology().GroupsOwnedBy(pods[0]);
  auto g3 = h.topology().GroupsOwnedBy(pods[2]);
  ASSERT_EQ(g1.size(), 1u);
  ASSERT_EQ(g3.size(), 1u);
  EXPECT_EQ(g1[0], g3[0]);
}

// ---------------------------------------------------------------------------------------------
// Pod anti-affinity

TEST(PodAntiAffinity, OnHostnamePutsOnePodPerNode) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  WithAntiAffinity(tmpl, Term(kHostname));
  ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
  auto placed = h.PlaceAll();
  EXPECT_THAT(placed, ElementsAre("hostname-placeholder-1", "hostname-placeholder-2",
                                  "hostname-placeholder-3"));
}

TEST(PodAntiAffinity, OnZoneSchedulesOnePodPerSolveBecauseTheZoneIsDecidedAtLaunch) {
  // Late committal, as upstream: the first pod's node may still launch in any zone, so every
  // zone is blocked for its siblings until the node exists.
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  WithAntiAffinity(tmpl, Term(kZone));
  ASSERT_TRUE(h.Start(Replicas(3, tmpl)).ok());
  auto placed = h.PlaceAll();
  ASSERT_NE(placed[0], "");
  EXPECT_EQ(h.ZoneOf(placed[0]), "");  // still any of the three zones
  EXPECT_EQ(placed[1], "");
  EXPECT_EQ(placed[2], "");
}

TEST(PodAntiAffinity, OnZoneTakesTheOnlyZoneWithoutASibling) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.AddExistingNode("node-b", "test-zone-2");
  api::Pod tmpl = MakePod("web");
  WithAntiAffinity(tmpl, Term(kZone));
  auto existing = Replicas(2, tmpl);
  h.Bind(existing[0], "node-a");
  h.Bind(existing[1], "node-b");
  api::Pod pod = tmpl;
  pod.metadata.name = "web-3";
  pod.metadata.uid = "web-3-uid";
  ASSERT_TRUE(h.Start({pod}).ok());
  auto placed = h.PlaceAll();
  ASSERT_NE(placed[0], "");
  EXPECT_EQ(h.ZoneOf(placed[0]), "test-zone-3");
}

TEST(PodAntiAffinity, AvoidsZonesOfExistingSelectedPods) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.Bind(MakePod("db-1", {{"app", "db"}}), "node-a");
  api::Pod pod = MakePod("web-1");
  WithAntiAffinity(pod, Term(kZone, {{"app", "db"}}));
  ASSERT_TRUE(h.Start({pod}).ok());
  auto placed = h.PlaceAll();
  ASSERT_NE(placed[0], "");
  EXPECT_NE(h.ZoneOf(placed[0]), "test-zone-1");
}

TEST(PodAntiAffinity, ExistingPodsRepelPodsTheySelect) {
  // The existing pod has the anti-affinity; the pending pod has none (inverse anti-affinity).
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  api::Pod db = MakePod("db-1", {{"app", "db"}});
  WithAntiAffinity(db, Term(kZone, {{"app", "web"}}));
  h.Bind(db, "node-a");
  api::Pod web = MakePod("web-1");
  ASSERT_TRUE(h.Start({web}).ok());
  auto placed = h.PlaceAll();
  ASSERT_NE(placed[0], "");
  EXPECT_NE(placed[0], "node-a");
  EXPECT_NE(h.ZoneOf(placed[0]), "test-zone-1");
}

TEST(PodAntiAffinity, PendingPodsRepelLaterPodsTheySelect) {
  TopologyHarness h;
  api::Pod db = MakePod("db-1", {{"app", "db"}});
  WithAntiAffinity(db, Term(kHostname, {{"app", "web"}}));
  api::Pod web = MakePod("web-1");
  ASSERT_TRUE(h.Start({db, web}).ok());
  auto placed = h.PlaceAll();
  EXPECT_THAT(placed, ElementsAre("hostname-placeholder-1", "hostname-placeholder-2"));
}

TEST(PodAntiAffinity, RecordBlocksEveryDomainThePodMayStillLandIn) {
  TopologyHarness h;
  api::Pod a = MakePod("web-1");
  WithAntiAffinity(a, Term(kZone));
  api::Pod b = MakePod("web-2");
  WithAntiAffinity(b, Term(kZone));
  ASSERT_TRUE(h.Start({a, b}).ok());
  Requirements undecided;
  undecided.Add(Requirement::In(kZone, {"test-zone-1", "test-zone-2"}));
  h.topology().Record(a, {}, undecided);
  auto r = h.topology().AddRequirements(b, {}, Requirements(), Requirements());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Get(kZone), Requirement::In(kZone, {"test-zone-3"}));
}

TEST(TopologySpread, RecordGivenTheSelectingGroupsCountsLikeRecord) {
  TopologyHarness h;
  api::Pod a = MakePod("web-1");
  a.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  api::Pod b = MakePod("web-2");
  b.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  ASSERT_TRUE(h.Start({a, b}).ok());
  EXPECT_THAT(h.topology().SelectingGroups(MakePod("db-1", {{"app", "db"}})), ::testing::IsEmpty());
  const std::vector<size_t> selecting = h.topology().SelectingGroups(a);
  ASSERT_THAT(selecting, ::testing::SizeIs(1));
  Requirements zone1;
  zone1.Add(Requirement::In(kZone, {"test-zone-1"}));
  h.topology().Record(a, {}, zone1, selecting);
  // Zone 1 holds one selected pod and the others none: b goes to the next emptiest zone.
  auto r = h.topology().AddRequirements(b, {}, Requirements(), Requirements());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->Get(kZone), Requirement::In(kZone, {"test-zone-2"}));
}

TEST(PodAntiAffinity, NamespaceSelectorChoosesWhichNamespacesRepel) {
  for (bool team_matches : {true, false}) {
    TopologyHarness h;
    h.AddExistingNode("node-a", "test-zone-1");
    h.Bind(MakePod("web-x", {{"app", "web"}}, "team-a"), "node-a");
    h.cluster.namespace_labels["team-a"] = {{"team", team_matches ? "a" : "b"}};
    api::Pod pod = MakePod("web-1");
    auto term = Term(kZone);
    term.namespace_selector = Select({{"team", "a"}});
    WithAntiAffinity(pod, term);
    pod.spec.node_selector = {{kZone, "test-zone-1"}};
    ASSERT_TRUE(h.Start({pod}).ok());
    auto placed = h.PlaceAll();
    if (team_matches) {
      EXPECT_EQ(placed[0], "");
    } else {
      EXPECT_EQ(h.ZoneOf(placed[0]), "test-zone-1");
    }
  }
}

TEST(PodAntiAffinity, UnknownNamespacesCarryOnlyTheirNameLabel) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.Bind(MakePod("web-x", {{"app", "web"}}, "payments"), "node-a");
  api::Pod pod = MakePod("web-1");
  auto term = Term(kZone);
  api::LabelSelector ns;
  ns.match_expressions.push_back({"kubernetes.io/metadata.name", "In", {"payments"}});
  term.namespace_selector = ns;
  WithAntiAffinity(pod, term);
  ASSERT_TRUE(h.Start({pod}).ok());
  auto placed = h.PlaceAll();
  ASSERT_NE(placed[0], "");
  EXPECT_NE(h.ZoneOf(placed[0]), "test-zone-1");
}

TEST(PodAntiAffinity, ExplicitNamespacesListLimitsTheSelection) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.Bind(MakePod("web-x", {{"app", "web"}}, "other"), "node-a");
  api::Pod pod = MakePod("web-1");
  pod.spec.node_selector = {{kZone, "test-zone-1"}};
  WithAntiAffinity(pod, Term(kZone));  // own namespace only: the pod in "other" does not repel
  ASSERT_TRUE(h.Start({pod}).ok());
  EXPECT_EQ(h.ZoneOf(h.PlaceAll()[0]), "test-zone-1");
}

// ---------------------------------------------------------------------------------------------
// Pod affinity

TEST(PodAffinity, SelfAffinityOnZoneKeepsAllPodsInOneZone) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  WithAffinity(tmpl, Term(kZone));
  ASSERT_TRUE(h.Start(Replicas(5, tmpl)).ok());
  auto placed = h.PlaceAll();
  auto counts = h.ZoneCounts(placed);
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts.begin()->second, 5);
}

TEST(PodAffinity, FollowsAnExistingPodToItsZone) {
  TopologyHarness h;
  h.AddExistingNode("node-b", "test-zone-2", {}, {{"dedicated", "db", "NoSchedule"}});
  h.Bind(MakePod("db-1", {{"app", "db"}}), "node-b");
  api::Pod tmpl = MakePod("web");
  WithAffinity(tmpl, Term(kZone, {{"app", "db"}}));
  ASSERT_TRUE(h.Start(Replicas(2, tmpl)).ok());
  // The harness ignores taints for fit, so both may land on node-b; what matters is the zone.
  auto placed = h.PlaceAll();
  EXPECT_EQ(h.ZoneCounts(placed), (std::map<std::string, int>{{"test-zone-2", 2}}));
}

TEST(PodAffinity, WithoutAnyTargetAndNotSelfSelectingIsUnsatisfiable) {
  TopologyHarness h;
  api::Pod pod = MakePod("web-1");
  WithAffinity(pod, Term(kZone, {{"app", "db"}}));
  ASSERT_TRUE(h.Start({pod}).ok());
  auto r = h.Place(0);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("unsatisfiable topology constraint for pod affinity, "
                                              "key=topology.kubernetes.io/zone"));
}

TEST(PodAffinity, OnHostnameCollocatesWithTheTarget) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.AddExistingNode("node-b", "test-zone-2");
  h.Bind(MakePod("cache-1", {{"app", "cache"}}), "node-b");
  api::Pod pod = MakePod("web-1");
  WithAffinity(pod, Term(kHostname, {{"app", "cache"}}));
  ASSERT_TRUE(h.Start({pod}).ok());
  EXPECT_EQ(h.PlaceAll()[0], "node-b");
}

TEST(PodAffinity, UpdateAfterRelaxationDropsThePreferredTerm) {
  TopologyHarness h;
  api::Pod pod = MakePod("web-1");
  WithPreferredAffinity(pod, Term(kZone, {{"app", "missing"}}), 50);
  ASSERT_TRUE(h.Start({pod}).ok());
  EXPECT_FALSE(h.Place(0).ok());
  h.pending(0).spec.affinity->pod_affinity->preferred.clear();  // what Relax does
  ASSERT_TRUE(h.topology().Update(h.pending(0)).ok());
  EXPECT_TRUE(h.Place(0).ok());
}

TEST(PodAffinity, MatchLabelKeysNarrowTheSelectorToThePodsValues) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.AddExistingNode("node-b", "test-zone-2");
  h.Bind(MakePod("web-x", {{"app", "web"}, {"tenant", "x"}}), "node-a");
  h.Bind(MakePod("web-y", {{"app", "web"}, {"tenant", "y"}}), "node-b");
  api::Pod pod = MakePod("web-1", {{"app", "web"}, {"tenant", "y"}});
  auto term = Term(kZone);
  term.match_label_keys = {"tenant"};
  WithAffinity(pod, term);
  ASSERT_TRUE(h.Start({pod}).ok());
  EXPECT_EQ(h.ZoneOf(h.PlaceAll()[0]), "test-zone-2");
}

// ---------------------------------------------------------------------------------------------
// Preferences as topology sees them

TEST(TopologySpread, ScheduleAnywayIsEnforcedUntilRelaxed) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  h.Bind(MakePod("old-1"), "node-a");
  h.Bind(MakePod("old-2"), "node-a");
  api::Pod pod = MakePod("web-1");
  auto c = Spread(kZone, 1);
  c.when_unsatisfiable = "ScheduleAnyway";
  pod.spec.topology_spread_constraints.push_back(c);
  h.new_node_zones = {"test-zone-1"};  // zone-1 is the only place left to go
  ASSERT_TRUE(h.Start({pod}).ok());
  EXPECT_FALSE(h.Place(0).ok());
  h.pending(0).spec.topology_spread_constraints.clear();  // what Relax does
  ASSERT_TRUE(h.topology().Update(h.pending(0)).ok());
  auto r = h.Place(0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "node-a");
}

TEST(Topology, MayConstrainAndCountsTellWhichPodsTopologyCaresAbout) {
  TopologyHarness h;
  h.AddExistingNode("node-a", "test-zone-1");
  api::Pod db = MakePod("db-1", {{"app", "db"}});
  WithAntiAffinity(db, Term(kZone, {{"app", "batch"}}));
  h.Bind(db, "node-a");
  api::Pod spread = MakePod("web-1");
  spread.spec.topology_spread_constraints.push_back(Spread(kZone, 1));
  api::Pod selected = MakePod("web-2");  // selected by web-1's constraint, declares nothing
  api::Pod repelled = MakePod("batch-1", {{"app", "batch"}});
  api::Pod loner = MakePod("loner-1", {{"app", "loner"}});
  ASSERT_TRUE(h.Start({spread, selected, repelled, loner}).ok());
  const Topology& t = h.topology();
  EXPECT_TRUE(t.MayConstrain(spread));
  EXPECT_FALSE(t.MayConstrain(selected));
  EXPECT_TRUE(t.MayConstrain(repelled));  // db-1's anti-affinity keeps it out of zone-1
  EXPECT_FALSE(t.MayConstrain(loner));
  EXPECT_TRUE(t.Counts(spread));
  EXPECT_TRUE(t.Counts(selected));
  EXPECT_FALSE(t.Counts(repelled));
  EXPECT_FALSE(t.Counts(loner));
}

TEST(Topology, TryAddRequirementsAgreesWithAddRequirementsWithoutTheMessage) {
  TopologyHarness h;
  api::Pod tmpl = MakePod("web");
  WithAntiAffinity(tmpl, Term(kHostname));
  ASSERT_TRUE(h.Start(Replicas(2, tmpl)).ok());
  ASSERT_EQ(*h.Place(0), "hostname-placeholder-1");
  Requirements taken;
  taken.Add(Requirement::In(kHostname, {"hostname-placeholder-1"}));
  Requirements fresh;
  fresh.Add(Requirement::In(kHostname, {"hostname-placeholder-9"}));
  const Topology& t = h.topology();
  const api::Pod& pod = h.pending(1);
  Requirements pod_reqs = Requirements::FromPodStrict(pod);
  auto full = t.AddRequirements(pod, {}, pod_reqs, taken);
  ASSERT_FALSE(full.ok());
  EXPECT_THAT(full.status().message(), HasSubstr("unsatisfiable topology constraint for pod anti-affinity"));
  EXPECT_FALSE(t.TryAddRequirements(pod, {}, pod_reqs, taken).has_value());
  auto ok = t.TryAddRequirements(pod, {}, pod_reqs, fresh);
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE(*ok == *t.AddRequirements(pod, {}, pod_reqs, fresh));
}

TEST(Topology, HostExcludedOnceAHostnameGroupCountsAPodThere) {
  TopologyHarness h;
  api::Pod anti = MakePod("web");
  WithAntiAffinity(anti, Term(kHostname));
  api::Pod spread = MakePod("api", {{"app", "api"}});
  spread.spec.topology_spread_constraints.push_back(Spread(kHostname, 2, {{"app", "api"}}));
  api::Pod zonal = MakePod("zonal", {{"app", "zonal"}});
  zonal.spec.topology_spread_constraints.push_back(Spread(kZone, 1, {{"app", "zonal"}}));
  std::vector<api::Pod> pending = Replicas(2, anti);
  for (const auto& p : Replicas(3, spread)) pending.push_back(p);
  pending.push_back(zonal);
  ASSERT_TRUE(h.Start(pending).ok());
  const Topology& t = h.topology();
  // Before anything is placed nothing is excluded.
  EXPECT_FALSE(t.HostExcluded(h.pending(1), "hostname-placeholder-1"));
  ASSERT_EQ(*h.Place(0), "hostname-placeholder-1");
  EXPECT_TRUE(t.HostExcluded(h.pending(1), "hostname-placeholder-1"));
  EXPECT_FALSE(t.HostExcluded(h.pending(1), "hostname-placeholder-2"));
  // maxSkew 2: the third api pod is excluded only once two are on the node.
  ASSERT_EQ(*h.Place(2), "hostname-placeholder-1");
  EXPECT_FALSE(t.HostExcluded(h.pending(4), "hostname-placeholder-1"));
  ASSERT_EQ(*h.Place(3), "hostname-placeholder-1");
  EXPECT_TRUE(t.HostExcluded(h.pending(4), "hostname-placeholder-1"));
  // Zone constraints never exclude by hostname.
  EXPECT_FALSE(t.HostExcluded(h.pending(5), "hostname-placeholder-1"));
  // Replicas share an exclusion key; other constraints do not.
  EXPECT_EQ(t.HostExclusionKey(h.pending(0)), t.HostExclusionKey(h.pending(1)));
  EXPECT_NE(t.HostExclusionKey(h.pending(0)), t.HostExclusionKey(h.pending(2)));
  EXPECT_TRUE(t.HostExclusionKey(h.pending(5)).empty());
}

TEST(Topology, ConstraintKeysAreTheOwnedAndRepellingGroupsKeys) {
  TopologyHarness h;
  api::Pod zonal = MakePod("zonal", {{"app", "zonal"}});
  zonal.spec.topology_spread_constraints.push_back(Spread(kZone, 1, {{"app", "zonal"}}));
  api::Pod anti = MakePod("web");
  WithAntiAffinity(anti, Term(kHostname, {{"app", "zonal"}}));  // repels zonal pods by host
  api::Pod loner = MakePod("loner", {{"app", "loner"}});
  ASSERT_TRUE(h.Start({zonal, anti, loner}).ok());
  const Topology& t = h.topology();
  EXPECT_THAT(t.ConstraintKeys(zonal), ElementsAre(kHostname, kZone));
  EXPECT_THAT(t.ConstraintKeys(anti), ElementsAre(kHostname));
  EXPECT_TRUE(t.ConstraintKeys(loner).empty());
}

// ---------------------------------------------------------------------------------------------
// Helpers

TEST(PodIdentity, IsTheUidOrElseNamespaceAndName) {
  api::Pod p = MakePod("a");
  EXPECT_EQ(PodIdentity(p), "default-a-uid");
  p.metadata.uid.clear();
  EXPECT_EQ(PodIdentity(p), "default/a");
}

TEST(IgnoredForTopology, SkipsUnboundTerminalAndTerminatingPods) {
  api::Pod p = MakePod("a");
  EXPECT_TRUE(IgnoredForTopology(p));
  p.spec.node_name = "n";
  EXPECT_FALSE(IgnoredForTopology(p));
  p.status.phase = "Succeeded";
  EXPECT_TRUE(IgnoredForTopology(p));
  p.status.phase = "Running";
  p.metadata.deletion_timestamp = core::Time();
  EXPECT_TRUE(IgnoredForTopology(p));
}

}  // namespace
}  // namespace nodesmith::solver
