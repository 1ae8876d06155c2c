// The TOML subset Bottlerocket settings use: what is read, what is refused and where.
#include "cloud/aws/toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::aws {
namespace {

using ::testing::HasSubstr;


TomlTable ParseOk(const std::string& text) {
  auto r = ParseToml(text);
  EXPECT_TRUE(r.ok()) << r.status().message() << "\n" << text;
  return r.ok() ? *r : TomlTable{};
}

std::string ParseError(const std::string& text) {
  auto r = ParseToml(text);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.status().message();
}


TEST(TomlTest, TablesDottedHeadersAndScalars) {
  TomlTable t = ParseOk(
      "# a comment\n"
      "title = \"x\"  # trailing comment\n"
      "\n"
      "[settings.kubernetes]\n"
      "max-pods = 110\n"
      "enabled = true\n"
      "off = false\n"
      "[ settings . \"quoted.key\" . 'lit' ]\n"
      "n = -7\n");
  EXPECT_EQ(t.at("title"), TomlValue("x"));
  const TomlTable& k8s = t.at("settings").table().at("kubernetes").table();
  EXPECT_EQ(k8s.at("max-pods"), TomlValue(int64_t{110}));
  EXPECT_EQ(k8s.at("enabled"), TomlValue(true));
  EXPECT_EQ(k8s.at("off"), TomlValue(false));
  EXPECT_EQ(t.at("settings").table().at("quoted.key").table().at("lit").table().at("n"), TomlValue(-7));
}

TEST(TomlTest, Strings) {
  TomlTable t = ParseOk(
      "basic = \"tab\\tquote\\\" back\\\\ \\u00e9 \\U0001F600\"\n"
      "literal = 'C:\\path\\no escapes'\n"
      "multi = \"\"\"\nline one\nline two \\\n     joined\"\"\"\n"
      "multilit = '''\nraw \\n\n'''\n"
      "quotes = \"\"\"a \"quoted\" word\"\"\"\"\n"
      "empty = \"\"\n");
  EXPECT_EQ(t.at("basic"), TomlValue("tab\tquote\" back\\ \xc3\xa9 \xf0\x9f\x98\x80"));
  EXPECT_EQ(t.at("literal"), TomlValue("C:\\path\\no escapes"));
  EXPECT_EQ(t.at("multi"), TomlValue("line one\nline two joined"));
  EXPECT_EQ(t.at("multilit"), TomlValue("raw \\n\n"));
  EXPECT_EQ(t.at("quotes"), TomlValue("a \"quoted\" word\""));
  EXPECT_EQ(t.at("empty"), TomlValue(""));
}

TEST(TomlTest, Integers) {
  TomlTable t = ParseOk(
      "a = +42\nb = 1_000_000\nc = 0xDEAD_beef\nd = 0o755\ne = 0b1010\nf = 0\n"
      "max = 9223372036854775807\nmin = -9223372036854775808\n");
  EXPECT_EQ(t.at("a"), TomlValue(42));
  EXPECT_EQ(t.at("b"), TomlValue(1000000));
  EXPECT_EQ(t.at("c"), TomlValue(int64_t{0xDEADBEEF}));
  EXPECT_EQ(t.at("d"), TomlValue(0755));
  EXPECT_EQ(t.at("e"), TomlValue(10));
  EXPECT_EQ(t.at("f"), TomlValue(0));
  EXPECT_EQ(t.at("max"), TomlValue(INT64_MAX));
  EXPECT_EQ(t.at("min"), TomlValue(INT64_MIN));
}

TEST(TomlTest, ArraysNestedAndSpreadOverLines) {
  TomlTable t = ParseOk(
      "hosts = [[\"10.0.0.0\", [\"a.example.com\", \"b.example.com\"]]]\n"
      "list = [\n"
      "  \"one\",  # first\n"
      "  'two',\n"
      "\n"
      "  3,\n"
      "]\n"
      "empty = [ ]\n");
  EXPECT_EQ(t.at("hosts"), TomlValue(TomlArray{TomlArray{"10.0.0.0", TomlArray{"a.example.com", "b.example.com"}}}));
  EXPECT_EQ(t.at("list"), TomlValue(TomlArray{"one", "two", 3}));
  EXPECT_EQ(t.at("empty"), TomlValue(TomlArray{}));
}

TEST(TomlTest, InlineTablesAndDottedKeys) {
  TomlTable t = ParseOk(
      "[settings]\n"
      "kubernetes.node-labels.team = \"a\"\n"
      "kubernetes.node-labels.\"x/y\" = \"b\"\n"
      "ecr = { enabled = true, image-patterns = [\"*.dkr.ecr.*.amazonaws.com\"], cache.ttl = \"12h\" }\n"
      "none = {}\n"
      "[settings.kubernetes.static-pods]\n"
      "ok = 1\n");
  const TomlTable& settings = t.at("settings").table();
  const TomlTable& labels = settings.at("kubernetes").table().at("node-labels").table();
  EXPECT_EQ(labels.at("team"), TomlValue("a"));
  EXPECT_EQ(labels.at("x/y"), TomlValue("b"));
  const TomlTable& ecr = settings.at("ecr").table();
  EXPECT_EQ(ecr.at("enabled"), TomlValue(true));
  EXPECT_EQ(ecr.at("image-patterns"), TomlValue(TomlArray{"*.dkr.ecr.*.amazonaws.com"}));
  EXPECT_EQ(ecr.at("cache").table().at("ttl"), TomlValue("12h"));
  EXPECT_EQ(settings.at("none"), TomlValue(TomlTable{}));
  EXPECT_EQ(settings.at("kubernetes").table().at("static-pods").table().at("ok"), TomlValue(1));
}

TEST(TomlTest, CrlfLineEndsAreNewlines) {
  TomlTable t = ParseOk("[a]\r\nb = \"c\"\r\nd = [\r\n 1,\r\n]\r\n");
  EXPECT_EQ(t.at("a").table().at("b"), TomlValue("c"));
  EXPECT_EQ(t.at("a").table().at("d"), TomlValue(TomlArray{1}));
}

TEST(TomlTest, WhatItDoesNotSupportOrTomlForbidsIsAnErrorWithTheLine) {
  struct Case {
    std::string text;
    std::string says;
  };
  const Case cases[] = {
      {"a = 1.5\n", "line 1: floats are not supported"},
      {"a = 1e6\n", "floats are not supported"},
      {"a = inf\n", "floats are not supported"},
      {"a = 1979-05-27\n", "dates and times are not supported"},
      {"a = 07:32:00\n", "dates and times are not supported"},
      {"x = 1\n[[fruits]]\n", "line 2: arrays of tables ([[...]]) are not supported"},
      {"a = 1\na = 2\n", "line 2: key 'a' is defined twice"},
      {"[a]\n[a]\n", "table [a] is defined twice"},
      {"[a.b]\n[a]\nb.c = 1\n", "line 3: table 'a.b' is already defined; dotted keys cannot extend it here"},
      {"[a]\nb.c = 1\n[a.b]\n", "table [a.b] was already defined by dotted keys"},
      {"a = {b = 1}\n[a.c]\n", "'a' is an inline table and cannot be extended"},
      {"a = 1\n[a.b]\n", "'a' is a value, not a table"},
      {"a = \"open\n", "unterminated string"},
      {"a = \"\"\"open\n", "unterminated multi-line string"},
      {"a = [1, 2\n", "unterminated array"},
      {"a 1\n", "expected '=' after the key 'a'"},
      {"a = 1 2\n", "expected the end of the line"},
      {"= 1\n", "expected a key"},
      {"a =\n", "expected a value"},
      {"a = 012\n", "leading zeros are not allowed"},
      {"a = 1__0\n", "misplaced '_'"},
      {"a = 9223372036854775808\n", "does not fit in 64 bits"},
      {"a = \"\\q\"\n", "unknown escape '\\q'"},
      {"a = \"\\uD800\"\n", "not a Unicode scalar value"},
      {"a = \"bell\x07\"\n", "control character in a string"},
      {"a = {b = 1,}\n", "a trailing ',' is not allowed"},
      {"a = {b = 1\n", "expected ',' or '}' in an inline table"},
      {"a = tru\n", "'tru' is not a value this reader supports"},
  };
  for (const auto& c : cases) EXPECT_THAT(ParseError(c.text), HasSubstr(c.says)) << c.text;
}

// Each level of nesting costs the reader a stack frame, and each part of a dotted key a copy of
// the path before it: 100,000 nested arrays or inline tables overflowed the stack, and a key of
// thousands of parts took gigabytes. Up to kMaxTomlDepth levels, counted from the root through
// header parts, dotted-key parts and arrays, read; one more is an error.
TEST(TomlTest, NestingDeeperThanTheLimitIsAnErrorNotAStackOverflow) {
  auto repeat = [](const std::string& s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out += s;
    return out;
  };
  auto dotted = [&](int parts) { return "k" + repeat(".k", parts - 1); };
  const std::string deeper = "nesting is deeper than " + std::to_string(kMaxTomlDepth) + " levels";
  EXPECT_THAT(ParseError("a = " + repeat("[", 100000) + repeat("]", 100000) + "\n"), HasSubstr("line 1: " + deeper));
  EXPECT_THAT(ParseError("a = " + repeat("{b = ", 100000) + "1" + repeat("}", 100000) + "\n"), HasSubstr(deeper));
  EXPECT_THAT(ParseError("x = 1\n" + dotted(5000) + " = 1\n"), HasSubstr("line 2: " + deeper));
  EXPECT_THAT(ParseError("[" + dotted(kMaxTomlDepth + 1) + "]\n"), HasSubstr(deeper));
  EXPECT_THAT(ParseError("[a]\n" + dotted(kMaxTomlDepth) + " = 1\n"), HasSubstr(deeper));
  EXPECT_THAT(ParseError("a = " + repeat("[", kMaxTomlDepth) + repeat("]", kMaxTomlDepth) + "\n"), HasSubstr(deeper));
  // At the limit: a key of kMaxTomlDepth parts, arrays to the last level, and back out.
  ParseOk(dotted(kMaxTomlDepth) + " = 1\n");
  ParseOk("[a]\n" + dotted(kMaxTomlDepth - 1) + " = 1\n");
  TomlTable t = ParseOk("a = " + repeat("[", kMaxTomlDepth - 1) + repeat("]", kMaxTomlDepth - 1) +
                        "\nb = [[1], {c = [2]}]\n");
  EXPECT_EQ(t.at("b"), TomlValue(TomlArray{TomlArray{1}, TomlTable{{"c", TomlArray{2}}}}));
}

TEST(TomlTest, TheWriterLaysOutValuesThenTablesInKeyOrder) {
  TomlTable root;
  root["top"] = 1;
  TomlTable k8s;
  k8s["max-pods"] = 110;
  k8s["api-server"] = "https://x";
  k8s["node-labels"] = TomlTable{{"karpenter.sh/nodepool", "default"}};
  k8s["empty"] = TomlTable{};
  TomlTable settings;
  settings["kubernetes"] = std::move(k8s);
  settings["list"] = TomlArray{TomlTable{{"a", 1}, {"b c", true}}, TomlTable{}};
  root["settings"] = std::move(settings);
  EXPECT_EQ(WriteToml(root),
            "top = 1\n"
            "\n"
            "[settings]\n"
            "list = [{ a = 1, \"b c\" = true }, {}]\n"
            "\n"
            "[settings.kubernetes]\n"
            "api-server = \"https://x\"\n"
            "max-pods = 110\n"
            "\n"
            "[settings.kubernetes.empty]\n"
            "\n"
            "[settings.kubernetes.node-labels]\n"
            "\"karpenter.sh/nodepool\" = \"default\"\n");
}

TEST(TomlTest, WhatItWritesReadsBackEqual) {
  TomlTable root;
  TomlTable odd;
  odd["quote\"and\\back"] = "line\nbreak\ttab \"q\" \\ \x01 \x7f \xc3\xa9";
  odd[""] = "empty key";
  odd["n"] = INT64_MIN;
  odd["nested"] = TomlArray{TomlArray{}, TomlArray{"x", TomlArray{1, false}}, TomlTable{{"k", TomlTable{{"d", "e"}}}}};
  root["a b"] = TomlTable{{"c.d", std::move(odd)}, {"only-tables", TomlTable{{"t", TomlTable{{"v", 1}}}}}};
  root["empty"] = TomlTable{};
  std::string text = WriteToml(root);
  auto back = ParseToml(text);
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << text;
  EXPECT_EQ(*back, root) << text;
  EXPECT_EQ(WriteToml(*back), text);
}

}  // namespace
}  // namespace nodesmith::aws
