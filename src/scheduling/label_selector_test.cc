// Label selectors: every case of label_selector_cases.tsv (apimachinery's selector tests) plus
// LabelSelectorAsSelector's nil/empty rules and parse errors.
#include "scheduling/label_selector.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scheduling/test_corpus.h"

namespace nodesmith::scheduling {
namespace {

using testing::CaseName;
using testing::ReadTsv;
using testing::SharedSemanticsPath;

struct SelectorCase {
  std::string selector;
  std::string labels_json;
  bool expected;
  size_t index;
};

std::vector<SelectorCase> LoadSelectorCases() {
  std::vector<SelectorCase> cases;
  for (const auto& row : ReadTsv(SharedSemanticsPath("label_selector_cases.tsv"))) {
    if (row.size() < 3 || row[0] == "selector") continue;
    cases.push_back({row[0], row[1], row[2] == "true", cases.size()});
  }
  return cases;
}

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// The corpus writes selectors built from Requirement objects in a near-string notation:
// `y (exists)` is an Exists clause, `("")` the set holding the empty string (which the string
// syntax spells "()"), and "(zero-value Requirement)" a Requirement{} with no operator.
Selector BuildSelector(const std::string& notation) {
  if (notation == "<empty-selector>") return Selector::Everything();
  if (notation == "(zero-value Requirement)") {
    Selector s = Selector::Everything();
    s.Add(LabelRequirement{});
    return s;
  }
  std::string text = ReplaceAll(ReplaceAll(notation, " (exists)", ""), "(\"\")", "()");
  core::Result<Selector> s = Selector::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().message();
  return s.ok() ? s.value() : Selector::Nothing();
}

void PrintTo(const SelectorCase& c, std::ostream* os) {
  *os << c.selector << " on " << c.labels_json << " -> " << (c.expected ? "match" : "no match");
}

class LabelSelectorCorpusTest : public ::testing::TestWithParam<SelectorCase> {};

TEST_P(LabelSelectorCorpusTest, MatchesUpstream) {
  const SelectorCase& c = GetParam();
  api::Labels labels;
  const nlohmann::json parsed = nlohmann::json::parse(c.labels_json);
  for (const auto& item : parsed.items()) {
    labels[item.key()] = item.value().get<std::string>();
  }
  EXPECT_EQ(BuildSelector(c.selector).Matches(labels), c.expected);
}

INSTANTIATE_TEST_SUITE_P(Corpus, LabelSelectorCorpusTest, ::testing::ValuesIn(LoadSelectorCases()),
                         [](const auto& info) {
                           return CaseName(info.param.selector, info.param.index);
                         });

TEST(LabelSelectorTest, NilSelectsNothingAndEmptySelectsEverything) {
  core::Result<Selector> nil = Selector::FromApi(nullptr);
  ASSERT_TRUE(nil.ok());
  EXPECT_TRUE(nil->IsNothing());
  EXPECT_FALSE(nil->Matches({}));
  EXPECT_FALSE(SelectorMatches(std::nullopt, {{"a", "b"}}));

  api::LabelSelector empty;
  core::Result<Selector> all = Selector::FromApi(&empty);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Empty());
  EXPECT_TRUE(all->Matches({}));
  EXPECT_TRUE(SelectorMatches(empty, {{"a", "b"}}));
}

TEST(LabelSelectorTest, ApiSelectorsPrintAsUpstream) {
  api::LabelSelector labels_only{{{"foo", "bar"}}, {}};
  EXPECT_EQ(Selector::FromApi(&labels_only)->String(), "foo=bar");
  api::LabelSelector expr_only{{}, {{"baz", "In", {"qux", "norf"}}}};
  EXPECT_EQ(Selector::FromApi(&expr_only)->String(), "baz in (norf,qux)");
  api::LabelSelector both{{{"foo", "bar"}}, {{"baz", "In", {"qux", "norf"}}}};
  core::Result<Selector> s = Selector::FromApi(&both);
  EXPECT_EQ(s->String(), "baz in (norf,qux),foo=bar");
  EXPECT_TRUE(s->Matches({{"foo", "bar"}, {"baz", "norf"}}));
  EXPECT_FALSE(s->Matches({{"foo", "bar"}}));
}

TEST(LabelSelectorTest, ApiSelectorErrors) {
  api::LabelSelector exists_with_values{{}, {{"foo", "Exists", {"bar"}}}};
  EXPECT_FALSE(Selector::FromApi(&exists_with_values).ok());
  api::LabelSelector bad_op{{}, {{"foo", "Gt", {"1"}}}};
  EXPECT_EQ(Selector::FromApi(&bad_op).status().message(),
            "\"Gt\" is not a valid label selector operator");
  api::LabelSelector bad_value{{{"foo", "not valid"}}, {}};
  EXPECT_FALSE(Selector::FromApi(&bad_value).ok());
  EXPECT_FALSE(SelectorMatches(bad_value, {{"foo", "not valid"}}));
}

TEST(LabelSelectorTest, ParseRoundTripsTheStringSyntax) {
  const std::pair<const char*, const char*> kCases[] = {
      {"x=a,y=b", "x=a,y=b"},
      {"x==a", "x==a"},
      {"x!=a", "x!=a"},
      {"x in (b,a)", "x in (a,b)"},
      {"x notin (a)", "x notin (a)"},
      {"x", "x"},
      {"!x", "!x"},
      {"x>1", "x>1"},
      {"x<1", "x<1"},
      {"z=a, b in (c)", "b in (c),z=a"},
      {"x=", "x="},
      {"x in (a,,b)", "x in (,a,b)"},
      {"", ""},
  };
  for (const auto& [in, out] : kCases) {
    core::Result<Selector> s = Selector::Parse(in);
    ASSERT_TRUE(s.ok()) << in << ": " << s.status().message();
    EXPECT_EQ(s->String(), out) << in;
  }
}

TEST(LabelSelectorTest, ParseRejectsMalformedSelectors) {
  for (const char* bad : {"x=a,", ",x=a", "x in a", "x in (a", "x>a", "x=a=b", "!x=a", "x >",
                          "x==a==b", "a b", "x notin ()a", "=a"}) {
    EXPECT_FALSE(Selector::Parse(bad).ok()) << bad;
  }
  EXPECT_EQ(Selector::Parse("x in a").status().message(),
            "unable to parse requirement: found 'a' expected: '('");
}

TEST(LabelSelectorTest, NotEqualsAndNotInMatchAbsentKeys) {
  EXPECT_TRUE(Selector::Parse("x!=a")->Matches({}));
  EXPECT_TRUE(Selector::Parse("x notin (a)")->Matches({{"y", "a"}}));
  EXPECT_FALSE(Selector::Parse("x notin (a)")->Matches({{"x", "a"}}));
}

TEST(LabelSelectorTest, GreaterThanComparesIntegers) {
  EXPECT_TRUE(Selector::Parse("x>9")->Matches({{"x", "10"}}));
  EXPECT_FALSE(Selector::Parse("x>9")->Matches({{"x", "9"}}));
  EXPECT_FALSE(Selector::Parse("x>9")->Matches({{"x", "ten"}}));
  EXPECT_FALSE(Selector::Parse("x>9")->Matches({}));
  // Bounds are label values too, so a negative bound is rejected, as upstream.
  EXPECT_FALSE(Selector::Parse("x<-1").ok());
}

}  // namespace
}  // namespace nodesmith::scheduling
