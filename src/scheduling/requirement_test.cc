// Requirement semantics, pinned case for case to Karpenter's requirement_test.go tables
// (shared/data/k8s/semantics/karpenter_requirement_*.tsv) plus a few direct specifications.
#include "scheduling/requirement.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "scheduling/test_corpus.h"

namespace nodesmith::scheduling {
namespace {

using testing::CaseName;
using testing::ReadTsv;
using testing::SharedSemanticsPath;

// The named requirements of the upstream tables, on `key`.
Requirement Named(const std::string& name, const std::string& key = "key") {
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
  auto it = kDefs.find(name);
  if (it == kDefs.end()) {
    ADD_FAILURE() << "unknown named requirement " << name;
    return Requirement(key, Operator::kExists);
  }
  return Requirement(key, it->second.first, it->second.second);
}

bool IsNamed(const std::string& name) {
  static const char* kNames[] = {"exists", "doesNotExist", "inA",         "inB",
                                 "inAB",   "notInA",       "in1",         "in9",
                                 "in19",   "notIn12",      "greaterThan1", "greaterThan9",
                                 "lessThan1", "lessThan9"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

std::vector<std::string> SplitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Translates the corpus' prose for expected values that are not named inputs ("NotIn [A,1,2]",
// "value >= 2 AND NotIn [2]", "2 <= value <= 8 ...") into the String() of that set on "key".
std::string ExpectedStringFromProse(std::string prose) {
  prose = prose.substr(0, prose.find('('));  // drop the trailing explanation
  std::vector<std::string> excluded;
  std::optional<std::string> gte, lte;
  if (size_t open = prose.find("NotIn ["); open != std::string::npos) {
    size_t start = open + 7;
    excluded = SplitList(prose.substr(start, prose.find(']', start) - start), ',');
  }
  std::vector<std::string> words;
  std::stringstream ss(prose);
  for (std::string w; ss >> w;) words.push_back(w);
  for (size_t i = 0; i + 2 < words.size(); ++i) {
    if (words[i] == "value" && words[i + 1] == ">=") gte = words[i + 2];
    if (words[i] == "value" && words[i + 1] == "<=") lte = words[i + 2];
    if (words[i + 1] == "<=" && words[i + 2] == "value") gte = words[i];
  }
  std::string s = "key ";
  if (excluded.empty()) {
    s += "Exists";
  } else {
    s += "NotIn [";
    for (size_t i = 0; i < excluded.size(); ++i) s += (i ? " " : "") + excluded[i];
    s += "]";
  }
  if (gte) s += " >=" + *gte;
  if (lte) s += " <=" + *lte;
  return s;
}

// ---- Intersection: every row of karpenter_requirement_intersection.tsv ----

struct IntersectionCase {
  std::string a, b, expected;
  size_t index;
};

std::vector<IntersectionCase> LoadIntersectionCases() {
  std::vector<IntersectionCase> cases;
  for (const auto& row : ReadTsv(SharedSemanticsPath("karpenter_requirement_intersection.tsv"))) {
    if (row.size() < 3 || row[0] == "a") continue;  // header
    cases.push_back({row[0], row[1], row[2], cases.size()});
  }
  return cases;
}

class RequirementIntersectionTest : public ::testing::TestWithParam<IntersectionCase> {};

TEST_P(RequirementIntersectionTest, MatchesUpstream) {
  const IntersectionCase& c = GetParam();
  Requirement a = Named(c.a);
  Requirement b = Named(c.b);
  Requirement got = a.Intersection(b);
  if (IsNamed(c.expected)) {
    EXPECT_EQ(got, Named(c.expected)) << got.String();
    EXPECT_EQ(got.String(), Named(c.expected).String());
  } else {
    EXPECT_EQ(got.String(), ExpectedStringFromProse(c.expected));
  }
  // The allocation-free emptiness test agrees with the built intersection.
  EXPECT_EQ(a.IntersectionIsEmpty(b), got.Len() == 0);
  // So does the in-place form.
  Requirement in_place = a;
  in_place.IntersectWith(b);
  EXPECT_EQ(in_place, got);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, RequirementIntersectionTest, ::testing::ValuesIn(LoadIntersectionCases()),
    [](const auto& info) { return CaseName(info.param.a + "_" + info.param.b, info.param.index); });

// ---- Has / Operator / Len / String: every row of the has_operator_len_string table ----

struct AccessorCase {
  std::string table, requirement, arg, expected;
  size_t index;
};

std::vector<AccessorCase> LoadAccessorCases() {
  std::vector<AccessorCase> cases;
  for (const auto& row :
       ReadTsv(SharedSemanticsPath("karpenter_requirement_has_operator_len_string.tsv"))) {
    if (row.size() < 4 || row[0] == "table") continue;
    cases.push_back({row[0], row[1], row[2], row[3], cases.size()});
  }
  return cases;
}

// "name" or "name.Intersection(other)".
Requirement Build(const std::string& expr) {
  size_t dot = expr.find(".Intersection(");
  if (dot == std::string::npos) return Named(expr);
  std::string other = expr.substr(dot + 14);
  other.pop_back();  // ')'
  return Named(expr.substr(0, dot)).Intersection(Named(other));
}

int64_t ParseLen(const std::string& s) {
  if (s.rfind("MaxInt64", 0) == 0) {
    int64_t minus = s.size() > 8 ? std::stoll(s.substr(9)) : 0;
    return kUnboundedLen - minus;
  }
  return std::stoll(s);
}

class RequirementAccessorTest : public ::testing::TestWithParam<AccessorCase> {};

TEST_P(RequirementAccessorTest, MatchesUpstream) {
  const AccessorCase& c = GetParam();
  Requirement r = Build(c.requirement);
  if (c.table == "Has") {
    EXPECT_EQ(r.Has(c.arg), c.expected == "true");
  } else if (c.table == "Operator") {
    EXPECT_EQ(OperatorName(r.op()), c.expected);
  } else if (c.table == "Len") {
    EXPECT_EQ(r.Len(), ParseLen(c.expected));
  } else if (c.table == "String") {
    EXPECT_EQ(r.String(), c.expected);
  } else {
    FAIL() << "unknown table " << c.table;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, RequirementAccessorTest, ::testing::ValuesIn(LoadAccessorCases()),
                         [](const auto& info) {
                           return CaseName(info.param.table + "_" + info.param.requirement + "_" +
                                               info.param.arg,
                                           info.param.index);
                         });

// ---- Direct specifications ----

TEST(RequirementTest, NormalisesDeprecatedKeys) {
  EXPECT_EQ(Requirement::In("beta.kubernetes.io/arch", {"amd64"}).key(), "kubernetes.io/arch");
  EXPECT_EQ(Requirement::Exists("failure-domain.beta.kubernetes.io/zone").key(),
            "topology.kubernetes.io/zone");
  EXPECT_TRUE(Requirement::Exists("failure-domain.beta.kubernetes.io/zone").well_known());
  EXPECT_FALSE(Requirement::Exists("example.com/team").well_known());
}

TEST(RequirementTest, GteAndLteAreInclusive) {
  Requirement gte("cpu", Operator::kGte, {"4"});
  Requirement lte("cpu", Operator::kLte, {"8"});
  EXPECT_FALSE(gte.Has("3"));
  EXPECT_TRUE(gte.Has("4"));
  EXPECT_TRUE(lte.Has("8"));
  EXPECT_FALSE(lte.Has("9"));
  Requirement both = gte.Intersection(lte);
  EXPECT_EQ(both.String(), "cpu Exists >=4 <=8");
  EXPECT_TRUE(both.Has("6"));
  EXPECT_FALSE(both.Has("six"));
  // Bounds that meet at one value still admit it; crossing bounds admit nothing.
  EXPECT_FALSE(Requirement("cpu", Operator::kGte, {"8"}).IntersectionIsEmpty(lte));
  EXPECT_TRUE(Requirement("cpu", Operator::kGt, {"8"}).IntersectionIsEmpty(lte));
}

TEST(RequirementTest, GtBoundsAcceptGoIntegerSyntax) {
  Requirement gt("n", Operator::kGt, {"0204"});
  EXPECT_TRUE(gt.Has("0206"));
  EXPECT_TRUE(gt.Has("+300"));
  EXPECT_FALSE(gt.Has("204"));
  EXPECT_FALSE(gt.Has("2e3"));
}

TEST(RequirementTest, GtOfMaxIntAdmitsNothing) {
  Requirement r("n", Operator::kGt, {"9223372036854775807"});
  EXPECT_EQ(r.op(), Operator::kDoesNotExist);
  EXPECT_EQ(r.Len(), 0);
}

TEST(RequirementTest, MinValuesTakesTheLargerAndPrints) {
  Requirement a("k", Operator::kIn, {"a", "b", "c"}, 2);
  Requirement b("k", Operator::kExists, {}, 3);
  Requirement c = a.Intersection(b);
  EXPECT_EQ(c.min_values(), 3);
  EXPECT_EQ(c.String(), "k In [a b c] minValues 3");
}

TEST(RequirementTest, LongValueListsAreAbbreviated) {
  Requirement r = Requirement::In("k", {"a", "b", "c", "d", "e", "f", "g"});
  EXPECT_EQ(r.String(), "k In [a b c d e and 2 others]");
}

TEST(RequirementTest, AnyIsDeterministicAndAdmissible) {
  EXPECT_EQ(Requirement::In("k", {"z", "b", "m"}).Any(), "b");
  EXPECT_EQ(Requirement::DoesNotExist("k").Any(), "");
  EXPECT_EQ(Requirement::Exists("k").Any(), "0");
  EXPECT_EQ(Requirement::NotIn("k", {"0", "1"}).Any(), "2");
  Requirement bounded = Requirement("k", Operator::kGt, {"4"})
                            .Intersection(Requirement::NotIn("k", {"5", "6"}));
  EXPECT_EQ(bounded.Any(), "7");
  EXPECT_TRUE(bounded.Has(bounded.Any()));
  Requirement negative("k", Operator::kLt, {"-3"});
  EXPECT_EQ(negative.Any(), "-4");
  EXPECT_TRUE(negative.Has(negative.Any()));
}

TEST(RequirementTest, EmptinessAgreesForLargeAndSmallValueSets) {
  std::vector<std::string> many;
  for (int i = 0; i < 100; ++i) many.push_back("type-" + std::to_string(i));
  Requirement large_in = Requirement::In("k", many);
  Requirement large_not_in = Requirement::NotIn("k", many);
  for (const Requirement& small :
       {Requirement::In("k", {"type-42"}), Requirement::In("k", {"other"}),
        Requirement::In("k", {"other", "type-7"}), Requirement::NotIn("k", {"type-1"})}) {
    for (const Requirement& large : {large_in, large_not_in}) {
      EXPECT_EQ(small.IntersectionIsEmpty(large), small.Intersection(large).Len() == 0)
          << small.String() << " vs " << large.String();
      EXPECT_EQ(large.IntersectionIsEmpty(small), large.Intersection(small).Len() == 0)
          << large.String() << " vs " << small.String();
    }
  }
  EXPECT_FALSE(Requirement::In("k", {"type-42"}).IntersectionIsEmpty(large_in));
  EXPECT_TRUE(Requirement::In("k", {"type-42"}).IntersectionIsEmpty(large_not_in));
}

TEST(RequirementTest, ValuesAreSortedAndUnique) {
  Requirement r = Requirement::In("k", {"b", "a", "b"});
  EXPECT_EQ(r.Values(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.Len(), 2);
}

TEST(RequirementTest, OperatorNamesRoundTrip) {
  for (Operator op : {Operator::kIn, Operator::kNotIn, Operator::kExists, Operator::kDoesNotExist,
                      Operator::kGt, Operator::kLt, Operator::kGte, Operator::kLte}) {
    EXPECT_EQ(ParseOperator(OperatorName(op)), op);
  }
  EXPECT_EQ(ParseOperator("in"), std::nullopt);
}

TEST(ParseLabelIntTest, FollowsStrconvAtoi) {
  EXPECT_EQ(ParseLabelInt("42"), 42);
  EXPECT_EQ(ParseLabelInt("-42"), -42);
  EXPECT_EQ(ParseLabelInt("+7"), 7);
  EXPECT_EQ(ParseLabelInt("007"), 7);
  EXPECT_EQ(ParseLabelInt("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseLabelInt("9223372036854775808"), std::nullopt);
  EXPECT_EQ(ParseLabelInt(""), std::nullopt);
  EXPECT_EQ(ParseLabelInt("-"), std::nullopt);
  EXPECT_EQ(ParseLabelInt("1.5"), std::nullopt);
  EXPECT_EQ(ParseLabelInt(" 1"), std::nullopt);
}

TEST(ValidateNodeSelectorRequirementTest, AcceptsWellFormedRequirements) {
  EXPECT_TRUE(ValidateNodeSelectorRequirement({"kubernetes.io/arch", "In", {"amd64"}}).ok());
  EXPECT_TRUE(ValidateNodeSelectorRequirement({"example.com/team", "Exists", {}}).ok());
  EXPECT_TRUE(ValidateNodeSelectorRequirement(
                  {"karpenter.k8s.aws/instance-cpu", "Gte", {"4"}}).ok());
  EXPECT_TRUE(ValidateNodeSelectorRequirement(
                  {"node.kubernetes.io/instance-type", "In", {"a", "b"}, 2}).ok());
}

TEST(ValidateNodeSelectorRequirementTest, ExplainsRejections) {
  EXPECT_EQ(ValidateNodeSelectorRequirement({"k", "Within", {}}).message(),
            "key k has an unsupported operator Within not in [In NotIn Exists DoesNotExist Gt Lt "
            "Gte Lte]");
  EXPECT_EQ(ValidateNodeSelectorRequirement({"k", "In", {}}).message(),
            "key k with operator In must have a value defined");
  EXPECT_EQ(ValidateNodeSelectorRequirement({"k", "Gt", {"a"}}).message(),
            "key k with operator Gt must have a single positive integer value");
  EXPECT_EQ(ValidateNodeSelectorRequirement({"k", "Lt", {"1", "2"}}).message(),
            "key k with operator Lt must have a single positive integer value");
  EXPECT_EQ(ValidateNodeSelectorRequirement({"k", "In", {"a"}, 2}).message(),
            "key k with operator In must have at least minimum number of values defined in "
            "'values' field");
  EXPECT_FALSE(ValidateNodeSelectorRequirement({"k", "In", {"bad value"}}).ok());
  EXPECT_FALSE(ValidateNodeSelectorRequirement({"-k", "Exists", {}}).ok());
  EXPECT_FALSE(Requirement::FromNodeSelectorRequirement({"k", "Gt", {}}).ok());
  auto ok = Requirement::FromNodeSelectorRequirement({"k", "In", {"a", "b"}, 1});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->String(), "k In [a b] minValues 1");
}

}  // namespace
}  // namespace nodesmith::scheduling
