// Requirements: Karpenter's Compatible matrix (karpenter_requirements_compatibility.tsv, every
// cell its own test, lenient and strict) plus specifications for Add, pods, labels and messages.
#include "scheduling/requirements.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "scheduling/test_corpus.h"

namespace nodesmith::scheduling {
namespace {

using testing::CaseName;
using testing::SharedSemanticsPath;
using testing::SplitTabs;

constexpr const char* kZone = "topology.kubernetes.io/zone";

// The named requirement sets of requirements_test.go, on the well-known zone key.
Requirements NamedSet(const std::string& name) {
  static const std::map<std::string, std::pair<Operator, std::vector<std::string>>> kDefs = {
      {"exists", {Operator::kExists, {}}},
      {"doesNotExist", {Operator::kDoesNotExist, {}}},
      {"inA", {Operator::kIn, {"A"}}},
      {"inB", {Operator::kIn, {"B"}}},
      {"inAB", {Operator::kIn, {"A", "B"}}},
      {"notInA", {Operator::kNotIn, {"A"}}},
      {"in1", {Operator::kIn, {"1"}}},
      {"in9", {Operator::kIn, {"9"}}},
      {"in19", {Operator::kIn, {"1", "9"}}},
      {"notIn12", {Operator::kNotIn, {"1", "2"}}},
      {"greaterThan1", {Operator::kGt, {"1"}}},
      {"greaterThan9", {Operator::kGt, {"9"}}},
      {"lessThan1", {Operator::kLt, {"1"}}},
      {"lessThan9", {Operator::kLt, {"9"}}},
  };
  if (name == "unconstrained") return Requirements();
  auto it = kDefs.find(name);
  if (it == kDefs.end()) {
    ADD_FAILURE() << "unknown requirement set " << name;
    return Requirements();
  }
  return Requirements({Requirement(kZone, it->second.first, it->second.second)});
}

struct CompatCase {
  bool lenient;
  std::string receiver, argument;
  bool expected;
  size_t index;
};

std::vector<CompatCase> LoadCompatCases() {
  std::vector<CompatCase> cases;
  std::ifstream in(SharedSemanticsPath("karpenter_requirements_compatibility.tsv"));
  std::string line;
  std::optional<bool> lenient;
  std::vector<std::string> columns;
  while (std::getline(in, line)) {
    if (line.rfind("## mode: lenient", 0) == 0) lenient = true;
    if (line.rfind("## mode: strict", 0) == 0) lenient = false;
    if (line.empty() || line[0] == '#' || !lenient) continue;
    std::vector<std::string> fields = SplitTabs(line);
    if (fields[0] == "R\\A") {
      columns = fields;
      continue;
    }
    for (size_t i = 1; i < fields.size() && i < columns.size(); ++i) {
      if (fields[i] == ".") continue;  // not asserted upstream
      cases.push_back({*lenient, fields[0], columns[i], fields[i] == "Y", cases.size()});
    }
  }
  return cases;
}

class RequirementsCompatibilityTest : public ::testing::TestWithParam<CompatCase> {};

TEST_P(RequirementsCompatibilityTest, MatchesUpstream) {
  const CompatCase& c = GetParam();
  Requirements receiver = NamedSet(c.receiver);
  Requirements argument = NamedSet(c.argument);
  CompatibilityOptions options =
      c.lenient ? AllowUndefinedWellKnownLabels() : StrictCompatibility();
  core::Status status = receiver.Compatible(argument, options);
  EXPECT_EQ(status.ok(), c.expected) << status.message();
  EXPECT_EQ(receiver.IsCompatible(argument, options), c.expected);
  // A catalog-extended well-known set behaves like the default one for default keys.
  if (c.lenient) {
    LabelKeySet extended = WellKnownLabels().With({"size"});
    EXPECT_EQ(receiver.IsCompatible(argument, AllowUndefined(extended)), c.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, RequirementsCompatibilityTest,
                         ::testing::ValuesIn(LoadCompatCases()), [](const auto& info) {
                           return CaseName(std::string(info.param.lenient ? "lenient" : "strict") +
                                               "_" + info.param.receiver + "_" +
                                               info.param.argument,
                                           info.param.index);
                         });

// ---- Custom (non-well-known) keys, per the corpus README ----

TEST(RequirementsTest, UndefinedCustomKeyFailsInAndExistsButPassesNegatives) {
  Requirements none;
  auto on = [](Operator op, std::vector<std::string> v = {}) {
    return Requirements({Requirement("example.com/team", op, std::move(v))});
  };
  const CompatibilityOptions lenient = AllowUndefinedWellKnownLabels();
  EXPECT_FALSE(none.IsCompatible(on(Operator::kIn, {"a"}), lenient));
  EXPECT_FALSE(none.IsCompatible(on(Operator::kExists), lenient));
  EXPECT_TRUE(none.IsCompatible(on(Operator::kNotIn, {"a"}), lenient));
  EXPECT_TRUE(none.IsCompatible(on(Operator::kDoesNotExist), lenient));
}

TEST(RequirementsTest, CatalogWellKnownKeysMayBeUndefinedInLenientMode) {
  Requirements none;
  Requirements wants_size({Requirement::In("size", {"small"})});
  EXPECT_FALSE(none.IsCompatible(wants_size, AllowUndefinedWellKnownLabels()));
  LabelKeySet extended = WellKnownLabels().With({"size", "special"});
  EXPECT_TRUE(none.IsCompatible(wants_size, AllowUndefined(extended)));
}

TEST(RequirementsTest, UndefinedLabelMessageNamesTheKeyAndSuggestsATypoFix) {
  Requirements node({Requirement::In("example.com/team", {"a"})});
  Requirements pod({Requirement::In("team", {"a"})});
  EXPECT_EQ(node.Compatible(pod).message(),
            "label \"team\" does not have known values (typo of \"example.com/team\"?)");
  Requirements other({Requirement::In("acme.io/owner", {"a"})});
  EXPECT_EQ(node.Compatible(other).message(), "label \"acme.io/owner\" does not have known values");
  Requirements zone_typo({Requirement::In("zone", {"a"})});
  EXPECT_EQ(Requirements().Compatible(zone_typo, AllowUndefinedWellKnownLabels()).message(),
            "label \"zone\" does not have known values (typo of \"topology.kubernetes.io/zone\"?)");
}

TEST(RequirementsTest, ConflictMessageShowsIncomingAndExistingSets) {
  Requirements node({Requirement::In(kLabelInstanceTypeStable, {"m5.large"}),
                     Requirement::In(kZone, {"us-west-2b"})});
  Requirements pod({Requirement::In(kLabelInstanceTypeStable, {"c5.large", "c6i.large"}),
                    Requirement::In(kZone, {"us-west-2a"})});
  core::Status s = node.Compatible(pod, AllowUndefinedWellKnownLabels());
  EXPECT_EQ(s.message(),
            "key node.kubernetes.io/instance-type, node.kubernetes.io/instance-type In [c5.large "
            "c6i.large] not in node.kubernetes.io/instance-type In [m5.large]; key "
            "topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-west-2a] not in "
            "topology.kubernetes.io/zone In [us-west-2b]");
  EXPECT_EQ(s.code(), core::StatusCode::kInvalidArgument);
}

TEST(RequirementsTest, IntersectsAllowsUndefinedKeysAndTwoNegatives) {
  Requirements a({Requirement::In("k", {"x"}), Requirement::DoesNotExist("gone")});
  Requirements b({Requirement::In("other", {"y"}), Requirement::NotIn("gone", {"z"})});
  EXPECT_TRUE(a.Intersects(b).ok());
  EXPECT_TRUE(a.IntersectsWith(b));
  Requirements c({Requirement::In("k", {"y"})});
  EXPECT_FALSE(a.IntersectsWith(c));
  EXPECT_EQ(a.Intersects(c).message(), "key k, k In [y] not in k In [x]");
}

TEST(RequirementsTest, AddIntersectsRequirementsOnTheSameKey) {
  Requirements r;
  r.Add(Requirement::In(kZone, {"a", "b", "c"}));
  r.Add(Requirement::NotIn("failure-domain.beta.kubernetes.io/zone", {"b"}));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.Get(kZone).String(), "topology.kubernetes.io/zone In [a c]");
  EXPECT_EQ(r.Get("absent").op(), Operator::kExists);
  EXPECT_FALSE(r.Has("absent"));
  r.Remove(kZone);
  EXPECT_TRUE(r.empty());
}

TEST(RequirementsTest, KeysAreSortedAndStringSkipsHostname) {
  Requirements r({Requirement::In("b", {"1"}), Requirement::In(kLabelHostname, {"h"}),
                  Requirement::Exists("a")});
  EXPECT_EQ(r.Keys(), (std::vector<std::string>{"a", "b", "kubernetes.io/hostname"}));
  EXPECT_EQ(r.String(), "a Exists, b In [1]");
}

TEST(RequirementsTest, FromLabelsMakesSingleValuedInRequirements) {
  Requirements r = Requirements::FromLabels({{"beta.kubernetes.io/arch", "arm64"}, {"team", "x"}});
  EXPECT_EQ(r.String(), "kubernetes.io/arch In [arm64], team In [x]");
}

TEST(RequirementsTest, FromNodeSelectorRequirementsKeepsMinValues) {
  Requirements r = Requirements::FromNodeSelectorRequirements(
      {{kLabelInstanceFamily, "In", {"c5", "m5", "r5"}, 2}, {kLabelInstanceCpu, "Gt", {"3"}}});
  EXPECT_TRUE(r.HasMinValues());
  EXPECT_EQ(r.String(),
            "karpenter.k8s.aws/instance-cpu Exists >=4, karpenter.k8s.aws/instance-family In [c5 "
            "m5 r5] minValues 2");
  EXPECT_FALSE(Requirements::FromLabels({{"a", "b"}}).HasMinValues());
}

TEST(RequirementsTest, AddOfRequirementsMergesKeyByKey) {
  Requirements r({Requirement::In("b", {"1", "2"}), Requirement::Exists("d")});
  r.Add(Requirements({Requirement::In("a", {"x"}), Requirement::NotIn("b", {"2"}),
                      Requirement("d", Operator::kIn, {"v"}, 1), Requirement::DoesNotExist("e")}));
  EXPECT_EQ(r.String(), "a In [x], b In [1], d In [v] minValues 1, e DoesNotExist");
  EXPECT_EQ(r.Keys(), (std::vector<std::string>{"a", "b", "d", "e"}));
}

TEST(RequirementsTest, ConvertsBackToNodeSelectorRequirements) {
  Requirements r({Requirement("a", Operator::kIn, {"x", "y"}, 2), Requirement::NotIn("b", {"z"}),
                  Requirement::Exists("c"), Requirement::DoesNotExist("d"),
                  Requirement("n", Operator::kGt, {"1"}), Requirement("n", Operator::kLt, {"9"}),
                  Requirement::NotIn("n", {"5"})});
  std::vector<api::NodeSelectorRequirement> api = r.ToNodeSelectorRequirements();
  ASSERT_EQ(api.size(), 7u);
  EXPECT_EQ(api[0].op, "In");
  EXPECT_EQ(api[0].min_values, 2);
  EXPECT_EQ(api[4].op, "Gte");
  EXPECT_EQ(api[4].values, std::vector<std::string>{"2"});
  EXPECT_EQ(api[5].op, "Lte");
  EXPECT_EQ(api[6].op, "NotIn");
  EXPECT_EQ(Requirements::FromNodeSelectorRequirements(api), r);
}

api::Pod PodWithAffinity() {
  api::Pod pod;
  pod.spec.node_selector = {{"kubernetes.io/os", "linux"}};
  api::NodeAffinity na;
  na.required = api::NodeSelector{{
      api::NodeSelectorTerm{{{kZone, "In", {"a", "b"}}}, {}},
      api::NodeSelectorTerm{{{kZone, "In", {"c"}}}, {}},
  }};
  na.preferred = {
      {10, api::NodeSelectorTerm{{{"kubernetes.io/arch", "In", {"amd64"}}}, {}}},
      {50, api::NodeSelectorTerm{{{kZone, "In", {"b"}}}, {}}},
      {50, api::NodeSelectorTerm{{{kZone, "In", {"a"}}}, {}}},
  };
  pod.spec.affinity = api::Affinity{na, std::nullopt, std::nullopt};
  return pod;
}

TEST(RequirementsTest, PodRequirementsTakeNodeSelectorHeaviestPreferenceAndFirstTerm) {
  api::Pod pod = PodWithAffinity();
  // The first of the two weight-50 preferences (zone b), intersected with the first term.
  EXPECT_EQ(Requirements::FromPod(pod).String(),
            "kubernetes.io/os In [linux], topology.kubernetes.io/zone In [b]");
  EXPECT_EQ(Requirements::FromPodStrict(pod).String(),
            "kubernetes.io/os In [linux], topology.kubernetes.io/zone In [a b]");
}

TEST(RequirementsTest, PodWithoutAffinityUsesOnlyNodeSelector) {
  api::Pod pod;
  EXPECT_TRUE(Requirements::FromPod(pod).empty());
  pod.spec.node_selector = {{"team", "x"}};
  pod.spec.affinity = api::Affinity{};
  EXPECT_EQ(Requirements::FromPod(pod).String(), "team In [x]");
}

TEST(RequirementsTest, LabelsSkipRestrictedKeysAndPickDeterministicValues) {
  Requirements r({Requirement::In(kLabelInstanceTypeStable, {"m5.large"}),  // well-known
                  Requirement::In("team", {"b", "a"}),
                  Requirement::In("example.com/single", {"x"}),
                  Requirement::Exists("example.com/any"),
                  Requirement::DoesNotExist("example.com/none"),
                  Requirement::In("node.kubernetes.io/lifecycle", {"spot"}),  // exception domain
                  Requirement::In("karpenter.sh/custom", {"x"})});           // restricted
  EXPECT_EQ(r.Labels(), (api::Labels{{"example.com/any", "0"},
                                     {"example.com/single", "x"},
                                     {"node.kubernetes.io/lifecycle", "spot"},
                                     {"team", "a"}}));
  EXPECT_EQ(r.SingleValuedLabels(), (api::Labels{{"example.com/single", "x"},
                                                 {"karpenter.sh/custom", "x"},
                                                 {"node.kubernetes.io/instance-type", "m5.large"},
                                                 {"node.kubernetes.io/lifecycle", "spot"}}));
  LabelKeySet extended = WellKnownLabels().With({"team"});
  EXPECT_EQ(r.Labels(extended).count("team"), 0u);
}

}  // namespace
}  // namespace nodesmith::scheduling
