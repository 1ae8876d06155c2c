// Preferences: relaxation happens one step per call, in Karpenter's order, and stops when
// nothing soft is left.
#include "solver/preferences.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::solver {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

api::NodeSelectorTerm ZoneTerm(const std::string& zone) {
  api::NodeSelectorTerm t;
  t.match_expressions.push_back({"topology.kubernetes.io/zone", "In", {zone}, std::nullopt});
  return t;
}

api::WeightedPodAffinityTerm PodTerm(int weight, const std::string& app) {
  api::WeightedPodAffinityTerm t;
  t.weight = weight;
  t.term.topology_key = "kubernetes.io/hostname";
  api::LabelSelector s;
  s.match_labels = {{"app", app}};
  t.term.label_selector = s;
  return t;
}

// A pod with one of everything that can be relaxed.
api::Pod PodWithEverything() {
  api::Pod pod;
  pod.metadata.name = "web-1";
  pod.metadata.namespace_ = "default";
  auto& a = pod.spec.affinity.emplace();
  auto& na = a.node_affinity.emplace();
  na.required = api::NodeSelector{{ZoneTerm("zone-a"), ZoneTerm("zone-b")}};
  na.preferred.push_back({10, ZoneTerm("zone-c")});
  a.pod_affinity.emplace().preferred.push_back(PodTerm(5, "cache"));
  a.pod_anti_affinity.emplace().preferred.push_back(PodTerm(5, "web"));
  api::TopologySpreadConstraint soft;
  soft.topology_key = "topology.kubernetes.io/zone";
  soft.when_unsatisfiable = "ScheduleAnyway";
  pod.spec.topology_spread_constraints.push_back(soft);
  api::TopologySpreadConstraint hard = soft;
  hard.when_unsatisfiable = "DoNotSchedule";
  pod.spec.topology_spread_constraints.push_back(hard);
  return pod;
}

TEST(Preferences, RelaxesOneThingPerCallInKarpentersOrder) {
  api::Pod pod = PodWithEverything();
  Preferences prefs(/*tolerate_prefer_no_schedule=*/true);
  std::vector<std::string> steps;
  while (auto reason = prefs.Relax(pod)) steps.push_back(*reason);
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_THAT(steps[0], StartsWith("removing: spec.affinity.nodeAffinity."
                                   "requiredDuringSchedulingIgnoredDuringExecution[0]="));
  EXPECT_THAT(steps[0], HasSubstr("zone-a"));
  EXPECT_THAT(steps[1], StartsWith("removing: spec.affinity.podAffinity."
                                   "preferredDuringSchedulingIgnoredDuringExecution[0]="));
  EXPECT_THAT(steps[2], StartsWith("removing: spec.affinity.podAntiAffinity."
                                   "preferredDuringSchedulingIgnoredDuringExecution[0]="));
  EXPECT_THAT(steps[3], StartsWith("removing: spec.affinity.nodeAffinity."
                                   "preferredDuringSchedulingIgnoredDuringExecution[0]="));
  EXPECT_THAT(steps[4], StartsWith("removing: spec.topologySpreadConstraints = "));
  EXPECT_THAT(steps[4], HasSubstr("ScheduleAnyway"));
  EXPECT_EQ(steps[5], "adding: toleration for PreferNoSchedule taints");

  // What is required stays: the last OR term and the DoNotSchedule constraint.
  const auto& terms = pod.spec.affinity->node_affinity->required->node_selector_terms;
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].match_expressions[0].values[0], "zone-b");
  ASSERT_EQ(pod.spec.topology_spread_constraints.size(), 1u);
  EXPECT_EQ(pod.spec.topology_spread_constraints[0].when_unsatisfiable, "DoNotSchedule");
}

TEST(Preferences, NothingToRelaxLeavesThePodAlone) {
  api::Pod pod;
  Preferences prefs;
  EXPECT_FALSE(prefs.Relax(pod).has_value());
  EXPECT_TRUE(pod.spec.tolerations.empty());
}

TEST(Preferences, PreferNoScheduleTolerationOnlyWhenEnabledAndOnlyOnce) {
  api::Pod pod;
  EXPECT_FALSE(Preferences(false).Relax(pod).has_value());
  Preferences prefs(true);
  ASSERT_TRUE(prefs.Relax(pod).has_value());
  ASSERT_EQ(pod.spec.tolerations.size(), 1u);
  EXPECT_EQ(pod.spec.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.spec.tolerations[0].effect, "PreferNoSchedule");
  EXPECT_FALSE(prefs.Relax(pod).has_value());
}

TEST(Preferences, HeaviestPreferredTermGoesFirst) {
  api::Pod pod;
  auto& pa = pod.spec.affinity.emplace().pod_affinity.emplace();
  pa.preferred = {PodTerm(1, "light"), PodTerm(100, "heavy"), PodTerm(50, "middle")};
  Preferences prefs;
  auto first = prefs.Relax(pod);
  ASSERT_TRUE(first.has_value());
  EXPECT_THAT(*first, HasSubstr("heavy"));
  EXPECT_THAT(*prefs.Relax(pod), HasSubstr("middle"));
  EXPECT_THAT(*prefs.Relax(pod), HasSubstr("light"));
  EXPECT_FALSE(prefs.Relax(pod).has_value());
}

TEST(Preferences, HeaviestPreferredNodeAffinityGoesFirst) {
  api::Pod pod;
  auto& na = pod.spec.affinity.emplace().node_affinity.emplace();
  na.preferred = {{1, ZoneTerm("zone-light")}, {90, ZoneTerm("zone-heavy")}};
  Preferences prefs;
  EXPECT_THAT(*prefs.Relax(pod), HasSubstr("zone-heavy"));
  EXPECT_THAT(*prefs.Relax(pod), HasSubstr("zone-light"));
}

TEST(Preferences, SingleRequiredTermIsNeverRemoved) {
  api::Pod pod;
  auto& na = pod.spec.affinity.emplace().node_affinity.emplace();
  na.required = api::NodeSelector{{ZoneTerm("zone-a")}};
  auto reason = Preferences(true).Relax(pod);  // only the toleration step is left
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, "adding: toleration for PreferNoSchedule taints");
  EXPECT_EQ(pod.spec.affinity->node_affinity->required->node_selector_terms.size(), 1u);
}

TEST(Preferences, StripPreferencesRemovesEverythingSoft) {
  api::Pod pod = PodWithEverything();
  StripPreferences(pod);
  const auto& a = *pod.spec.affinity;
  EXPECT_TRUE(a.node_affinity->preferred.empty());
  EXPECT_TRUE(a.pod_affinity->preferred.empty());
  EXPECT_TRUE(a.pod_anti_affinity->preferred.empty());
  EXPECT_EQ(a.node_affinity->required->node_selector_terms.size(), 2u);  // required stays
  ASSERT_EQ(pod.spec.topology_spread_constraints.size(), 1u);
  EXPECT_EQ(pod.spec.topology_spread_constraints[0].when_unsatisfiable, "DoNotSchedule");
}

TEST(Preferences, ToleratePreferNoScheduleWhenAnyPoolHasSuchATaint) {
  api::NodePool plain;
  api::NodePool soft;
  soft.template_.spec.taints.push_back({"spot", "true", "PreferNoSchedule"});
  EXPECT_FALSE(ToleratePreferNoSchedule({&plain}));
  EXPECT_TRUE(ToleratePreferNoSchedule({&plain, &soft}));
}

}  // namespace
}  // namespace nodesmith::solver
