// Tolerations against taints: every case of toleration_cases.json (k8s.io/api
// toleration_test.go, ToleratesTaint and compareNumericValues) plus the pod-level checks.
#include "scheduling/taints.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scheduling/test_corpus.h"

namespace nodesmith::scheduling {
namespace {

using nlohmann::json;
using testing::CaseName;
using testing::ReadFile;
using testing::SharedSemanticsPath;

json LoadCorpus() {
  std::string text = ReadFile(SharedSemanticsPath("toleration_cases.json"));
  return text.empty() ? json::object() : json::parse(text);
}

struct TolerationCase {
  std::string description;
  api::Toleration toleration;
  api::Taint taint;
  bool feature_gate;
  bool expected;
  size_t index;
};

void PrintTo(const TolerationCase& c, std::ostream* os) { *os << c.description; }

std::vector<TolerationCase> LoadTolerationCases() {
  std::vector<TolerationCase> cases;
  json doc = LoadCorpus();
  if (!doc.contains("toleratesTaint")) return cases;
  for (const json& c : doc["toleratesTaint"]) {
    const json& tol = c["toleration"];
    const json& taint = c["taint"];
    TolerationCase tc;
    tc.description = c["description"].get<std::string>();
    tc.toleration = {tol.value("Key", ""), tol.value("Operator", ""), tol.value("Value", ""),
                     tol.value("Effect", ""), std::nullopt};
    tc.taint = {taint.value("Key", ""), taint.value("Value", ""), taint.value("Effect", "")};
    tc.feature_gate = c.value("enableTaintTolerationComparisonOperatorsFG", false);
    tc.expected = c["expectTolerated"].get<bool>();
    tc.index = cases.size();
    cases.push_back(std::move(tc));
  }
  return cases;
}

class ToleratesTaintCorpusTest : public ::testing::TestWithParam<TolerationCase> {};

TEST_P(ToleratesTaintCorpusTest, MatchesUpstream) {
  const TolerationCase& c = GetParam();
  EXPECT_EQ(ToleratesTaint(c.toleration, c.taint, c.feature_gate), c.expected);
  // With the gate off, the numeric operators tolerate nothing.
  if (c.toleration.op == "Lt" || c.toleration.op == "Gt") {
    EXPECT_FALSE(ToleratesTaint(c.toleration, c.taint, false));
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, ToleratesTaintCorpusTest,
                         ::testing::ValuesIn(LoadTolerationCases()), [](const auto& info) {
                           return CaseName(info.param.description, info.param.index);
                         });

struct NumericCase {
  std::string description, toleration_value, taint_value, op;
  bool expected;
  size_t index;
};

void PrintTo(const NumericCase& c, std::ostream* os) { *os << c.description; }

std::vector<NumericCase> LoadNumericCases() {
  std::vector<NumericCase> cases;
  json doc = LoadCorpus();
  if (!doc.contains("compareNumericValues")) return cases;
  for (const json& c : doc["compareNumericValues"]) {
    cases.push_back({c["description"].get<std::string>(), c["tolerationVal"].get<std::string>(),
                     c["taintVal"].get<std::string>(), c["operator"].get<std::string>(),
                     c["expectedResult"].get<bool>(), cases.size()});
  }
  return cases;
}

class CompareNumericValuesCorpusTest : public ::testing::TestWithParam<NumericCase> {};

TEST_P(CompareNumericValuesCorpusTest, MatchesUpstream) {
  const NumericCase& c = GetParam();
  EXPECT_EQ(CompareNumericTaintValues(c.toleration_value, c.taint_value, c.op), c.expected);
  // The same through a whole toleration/taint pair with matching key and effect.
  api::Toleration tol{"k", c.op, c.toleration_value, "NoSchedule", std::nullopt};
  api::Taint taint{"k", c.taint_value, "NoSchedule"};
  if (c.op == "Gt" || c.op == "Lt") {
    EXPECT_EQ(ToleratesTaint(tol, taint), c.expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CompareNumericValuesCorpusTest,
                         ::testing::ValuesIn(LoadNumericCases()), [](const auto& info) {
                           return CaseName(info.param.description, info.param.index);
                         });

// ---- Direct specifications ----

TEST(ToleratesTaintTest, EmptyEffectMatchesEveryEffect) {
  api::Toleration tol{"foo", "Exists", "", "", std::nullopt};
  for (const char* effect : {"NoSchedule", "PreferNoSchedule", "NoExecute"}) {
    EXPECT_TRUE(ToleratesTaint(tol, {"foo", "bar", effect}));
  }
}

TEST(ToleratesTaintTest, EmptyOperatorMeansEqual) {
  api::Toleration tol{"foo", "", "bar", "NoSchedule", std::nullopt};
  EXPECT_TRUE(ToleratesTaint(tol, {"foo", "bar", "NoSchedule"}));
  EXPECT_FALSE(ToleratesTaint(tol, {"foo", "baz", "NoSchedule"}));
  api::Toleration empty_value{"foo", "Equal", "", "", std::nullopt};
  EXPECT_FALSE(ToleratesTaint(empty_value, {"foo", "bar", "NoSchedule"}));
  EXPECT_TRUE(ToleratesTaint(empty_value, {"foo", "", "NoSchedule"}));
}

TEST(ToleratesTaintTest, EmptyKeyWithExistsToleratesEverything) {
  api::Toleration all{"", "Exists", "", "", std::nullopt};
  EXPECT_TRUE(ToleratesTaint(all, {"anything", "x", "NoExecute"}));
  api::Toleration unknown_op{"foo", "Matches", "bar", "", std::nullopt};
  EXPECT_FALSE(ToleratesTaint(unknown_op, {"foo", "bar", "NoSchedule"}));
}

TEST(ToleratesAllTest, NamesTheFirstUntoleratedTaint) {
  std::vector<api::Taint> taints = {{"dedicated", "gpu", "NoSchedule"},
                                    {"spot", "", "NoExecute"},
                                    {"soft", "", "PreferNoSchedule"}};
  std::vector<api::Toleration> tolerations = {{"dedicated", "Equal", "gpu", "", std::nullopt}};
  core::Status s = ToleratesAll(tolerations, taints);
  EXPECT_EQ(s.message(), "did not tolerate taint (taint=spot:NoExecute)");
  EXPECT_EQ(FindUntoleratedTaint(tolerations, taints), &taints[1]);
  tolerations.push_back({"spot", "Exists", "", "NoExecute", std::nullopt});
  EXPECT_EQ(ToleratesAll(tolerations, taints).message(),
            "did not tolerate taint (taint=soft:PreferNoSchedule)");
  // The scheduler's filter ignores PreferNoSchedule.
  EXPECT_TRUE(ToleratesAll(tolerations, taints, kSchedulingEffects).ok());
  EXPECT_EQ(FindUntoleratedTaint(tolerations, taints, kSchedulingEffects), nullptr);
}

TEST(ToleratesAllTest, NoTaintsAreAlwaysTolerated) {
  EXPECT_TRUE(ToleratesAll({}, {}).ok());
}

TEST(TaintStringTest, OmitsEmptyValue) {
  EXPECT_EQ(TaintString({"a", "b", "NoSchedule"}), "a=b:NoSchedule");
  EXPECT_EQ(TaintString({"a", "", "NoExecute"}), "a:NoExecute");
}

TEST(MergeTaintsTest, KeepsBaseAndAddsNewKeyEffectPairs) {
  std::vector<api::Taint> merged = MergeTaints({{"a", "1", "NoSchedule"}},
                                               {{"a", "2", "NoSchedule"}, {"a", "", "NoExecute"}});
  EXPECT_EQ(merged, (std::vector<api::Taint>{{"a", "1", "NoSchedule"}, {"a", "", "NoExecute"}}));
}

TEST(KnownEphemeralTaintsTest, IncludeNotReadyAndUninitialized) {
  const auto& taints = KnownEphemeralTaints();
  EXPECT_NE(std::find(taints.begin(), taints.end(),
                      api::Taint{kTaintExternalCloudProvider, "true", "NoSchedule"}),
            taints.end());
  EXPECT_NE(std::find(taints.begin(), taints.end(),
                      api::Taint{kTaintNodeNotReady, "", "NoSchedule"}),
            taints.end());
}

TEST(EffectSelectedTest, UnknownEffectsOnlyUnderAll) {
  EXPECT_TRUE(EffectSelected(kAllEffects, "Custom"));
  EXPECT_FALSE(EffectSelected(kSchedulingEffects, "Custom"));
  EXPECT_FALSE(EffectSelected(kSchedulingEffects, "PreferNoSchedule"));
}

}  // namespace
}  // namespace nodesmith::scheduling
