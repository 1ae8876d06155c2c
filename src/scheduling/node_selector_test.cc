// Node affinity: every case of nodeaffinity_cases.json (component-helpers'
// TestPodMatchesNodeSelectorAndAffinityTerms) plus preferred-term scoring and error reporting.
#include "scheduling/node_selector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scheduling/test_corpus.h"

namespace nodesmith::scheduling {
namespace {

using nlohmann::json;
using testing::CaseName;
using testing::ReadFile;
using testing::SharedSemanticsPath;

// The corpus spells objects with Go field names (NodeAffinity, MatchExpressions, Key, ...).
std::vector<api::NodeSelectorRequirement> DecodeRequirements(const json& j) {
  std::vector<api::NodeSelectorRequirement> out;
  if (!j.is_array()) return out;
  for (const json& e : j) {
    api::NodeSelectorRequirement r;
    r.key = e.value("Key", "");
    r.op = e.value("Operator", "");
    if (e.contains("Values") && e["Values"].is_array()) {
      for (const json& v : e["Values"]) r.values.push_back(v.get<std::string>());
    }
    out.push_back(std::move(r));
  }
  return out;
}

api::Pod DecodePod(const json& c) {
  api::Pod pod;
  if (c["podNodeSelector"].is_object()) {
    for (const auto& item : c["podNodeSelector"].items()) {
      pod.spec.node_selector[item.key()] = item.value().get<std::string>();
    }
  }
  const json& affinity = c["podAffinity"];
  if (affinity.is_object()) {
    api::Affinity a;
    if (affinity.contains("NodeAffinity") && affinity["NodeAffinity"].is_object()) {
      api::NodeAffinity na;
      const json& required = affinity["NodeAffinity"]["RequiredDuringSchedulingIgnoredDuringExecution"];
      if (required.is_object()) {
        api::NodeSelector selector;
        if (required.contains("NodeSelectorTerms") && required["NodeSelectorTerms"].is_array()) {
          for (const json& t : required["NodeSelectorTerms"]) {
            api::NodeSelectorTerm term;
            if (t.contains("MatchExpressions")) {
              term.match_expressions = DecodeRequirements(t["MatchExpressions"]);
            }
            if (t.contains("MatchFields")) term.match_fields = DecodeRequirements(t["MatchFields"]);
            selector.node_selector_terms.push_back(std::move(term));
          }
        }
        na.required = std::move(selector);
      }
      a.node_affinity = std::move(na);
    }
    pod.spec.affinity = std::move(a);
  }
  return pod;
}

struct AffinityCase {
  std::string name;
  api::Pod pod;
  api::Node node;
  bool expected;
  size_t index;
};

void PrintTo(const AffinityCase& c, std::ostream* os) { *os << c.name; }

std::vector<AffinityCase> LoadAffinityCases() {
  std::vector<AffinityCase> cases;
  std::string text = ReadFile(SharedSemanticsPath("nodeaffinity_cases.json"));
  if (text.empty()) return cases;
  json doc = json::parse(text);
  for (const json& c : doc["cases"]) {
    AffinityCase ac;
    ac.name = c["name"].get<std::string>();
    ac.pod = DecodePod(c);
    for (const auto& item : c["nodeLabels"].items()) {
      ac.node.metadata.labels[item.key()] = item.value().get<std::string>();
    }
    ac.node.metadata.name = c["nodeName"].get<std::string>();
    ac.expected = c["expectMatch"].get<bool>();
    ac.index = cases.size();
    cases.push_back(std::move(ac));
  }
  return cases;
}

class NodeAffinityCorpusTest : public ::testing::TestWithParam<AffinityCase> {};

TEST_P(NodeAffinityCorpusTest, MatchesUpstream) {
  const AffinityCase& c = GetParam();
  EXPECT_EQ(PodMatchesNodeSelectorAndAffinityTerms(c.pod, c.node), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, NodeAffinityCorpusTest, ::testing::ValuesIn(LoadAffinityCases()),
                         [](const auto& info) { return CaseName(info.param.name, info.param.index); });

api::NodeSelectorTerm Term(std::vector<api::NodeSelectorRequirement> exprs,
                           std::vector<api::NodeSelectorRequirement> fields = {}) {
  return api::NodeSelectorTerm{std::move(exprs), std::move(fields)};
}

TEST(PreferredSchedulingTermsTest, ScoreSumsTheWeightsOfMatchingTerms) {
  auto terms = PreferredSchedulingTerms::Compile({
      {5, Term({{"foo", "In", {"bar"}}})},
      {11, Term({{"baz", "Exists", {}}})},
      {7, Term({{"foo", "In", {"other"}}})},
      {0, Term({{"foo", "Exists", {}}})},  // weight 0: ignored
      {9, Term({})},                        // empty: ignored
  });
  ASSERT_TRUE(terms.ok()) << terms.status().message();
  EXPECT_EQ(terms->Score({{"foo", "bar"}, {"baz", "x"}}, "n"), 16);
  EXPECT_EQ(terms->Score({{"foo", "other"}}, "n"), 7);
  EXPECT_EQ(terms->Score({}, "n"), 0);
}

TEST(PreferredSchedulingTermsTest, InvalidTermIsReported) {
  auto terms = PreferredSchedulingTerms::Compile({{5, Term({{"foo", "Gt", {"x"}}})}});
  ASSERT_FALSE(terms.ok());
  EXPECT_NE(terms.status().message().find("matchExpressions[0]"), std::string::npos);
}

TEST(NodeSelectorMatcherTest, GtAndLtCompareIntegersWithLeadingZeros) {
  NodeSelectorMatcher m(api::NodeSelector{{Term({{"kernel", "Gt", {"0204"}}})}});
  EXPECT_TRUE(m.Matches({{"kernel", "0206"}}, "n"));
  EXPECT_FALSE(m.Matches({{"kernel", "0204"}}, "n"));
  EXPECT_FALSE(m.Matches({{"kernel", "4.19"}}, "n"));
  NodeSelectorMatcher lt(api::NodeSelector{{Term({{"mem", "Lt", {"100"}}})}});
  EXPECT_TRUE(lt.Matches({{"mem", "99"}}, "n"));
  EXPECT_FALSE(lt.Matches({}, "n"));
}

TEST(NodeSelectorMatcherTest, InvalidTermNeverMatchesAndExplainsWhy) {
  NodeSelectorMatcher m(api::NodeSelector{{
      Term({{"foo", "Near", {"x"}}}),
      Term({{"foo", "In", {"bar"}}}),
  }});
  EXPECT_TRUE(m.Matches({{"foo", "bar"}}, "n"));  // the valid term still matches
  EXPECT_EQ(m.errors(), "matchExpressions[0].operator: Unsupported value: \"Near\"");
  NodeSelectorMatcher only_bad(api::NodeSelector{{Term({{"foo", "Gt", {"1", "2"}}})}});
  EXPECT_FALSE(only_bad.Matches({{"foo", "5"}}, "n"));
  EXPECT_FALSE(only_bad.errors().empty());
}

TEST(NodeSelectorMatcherTest, MatchFieldsNeedsOneValueAndSupportsNotIn) {
  NodeSelectorMatcher not_in(
      api::NodeSelector{{Term({}, {{"metadata.name", "NotIn", {"node-a"}}})}});
  EXPECT_FALSE(not_in.Matches({}, "node-a"));
  EXPECT_TRUE(not_in.Matches({}, "node-b"));
  NodeSelectorMatcher two(
      api::NodeSelector{{Term({}, {{"metadata.name", "In", {"node-a", "node-b"}}})}});
  EXPECT_FALSE(two.Matches({}, "node-a"));
  EXPECT_EQ(two.errors(), "matchFields[0].values: Invalid value: must have one element");
  NodeSelectorMatcher other_field(
      api::NodeSelector{{Term({}, {{"spec.providerID", "In", {"aws:///x"}}})}});
  EXPECT_FALSE(other_field.Matches({}, "node-a"));
}

TEST(RequiredNodeAffinityTest, NodeSelectorAndAffinityMustBothHold) {
  api::Pod pod;
  pod.spec.node_selector = {{"team", "a"}};
  api::NodeAffinity na;
  na.required = api::NodeSelector{{Term({{"zone", "In", {"z1"}}})}};
  pod.spec.affinity = api::Affinity{na, std::nullopt, std::nullopt};
  RequiredNodeAffinity affinity(pod);
  EXPECT_TRUE(affinity.Matches({{"team", "a"}, {"zone", "z1"}}, "n"));
  EXPECT_FALSE(affinity.Matches({{"team", "b"}, {"zone", "z1"}}, "n"));
  EXPECT_FALSE(affinity.Matches({{"team", "a"}, {"zone", "z2"}}, "n"));
  EXPECT_EQ(affinity.errors(), "");
}

}  // namespace
}  // namespace nodesmith::scheduling
