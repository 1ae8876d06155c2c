// ParseDocuments / EmitYaml: YAML 1.2 core-schema typing, JSON input, limits, and emit that
// parses back to the same value.
#include "api/yaml_json.h"

#include <gtest/gtest.h>

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

Json ParseOne(const std::string& text) {
  auto docs = ParseDocuments(text);
  EXPECT_TRUE(docs.ok()) << docs.status().message();
  if (!docs.ok() || docs->empty()) return Json();
  EXPECT_EQ((*docs)[0].error, "");
  return (*docs)[0].value;
}

TEST(ParseDocuments, TypesPlainScalarsByTheCoreSchema) {
  Json v = ParseOne(
      "a: 5\nb: -7\nc: 0x1f\nd: 0o17\ne: 1.5\nf: 1e3\ng: true\nh: False\ni: null\nj: ~\nk:\nl: yes\n"
      "m: 1.2.3\nn: 0.5m\no: .5\np: 1.\nq: 1e\nr: -0x1\ns: 012\n");
  EXPECT_EQ(v["a"], 5);
  EXPECT_EQ(v["b"], -7);
  EXPECT_EQ(v["c"], 31);
  EXPECT_EQ(v["d"], 15);
  EXPECT_EQ(v["e"], 1.5);
  EXPECT_EQ(v["f"], 1000.0);
  EXPECT_EQ(v["g"], true);
  EXPECT_EQ(v["h"], false);
  EXPECT_TRUE(v["i"].is_null());
  EXPECT_TRUE(v["j"].is_null());
  EXPECT_TRUE(v["k"].is_null());
  EXPECT_EQ(v["l"], "yes");  // YAML 1.1 booleans are strings in 1.2
  EXPECT_EQ(v["m"], "1.2.3");
  EXPECT_EQ(v["n"], "0.5m");
  EXPECT_EQ(v["o"], 0.5);
  EXPECT_EQ(v["p"], 1.0);
  EXPECT_EQ(v["q"], "1e");
  EXPECT_EQ(v["r"], "-0x1");
  EXPECT_EQ(v["s"], 12);
}

TEST(ParseDocuments, QuotedScalarsAreAlwaysStrings) {
  Json v = ParseOne("a: \"5\"\nb: 'true'\nc: \"null\"\nd: !!str 7\n");
  EXPECT_EQ(v["a"], "5");
  EXPECT_EQ(v["b"], "true");
  EXPECT_EQ(v["c"], "null");
  EXPECT_EQ(v["d"], "7");
}

TEST(ParseDocuments, SplitsMultipleDocumentsKeepingEmptyOnesForNumbering) {
  auto docs = ParseDocuments("a: 1\n---\n---\nb: 2\n");
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].value["a"], 1);
  EXPECT_TRUE((*docs)[1].value.is_null());
  EXPECT_EQ((*docs)[2].value["b"], 2);
}

TEST(ParseDocuments, ACommaWhereANodeBeginsIsAnErrorNotAnEndlessParse) {
  // yaml-cpp's LoadAll alone loops on these for ever, its memory growing (fuzz/corpus/yaml_json).
  for (const char* text : {",", "- a\n,\n", "---\n,\n", "a: 1\n---\n,\n"}) {
    auto docs = ParseDocuments(text);
    ASSERT_FALSE(docs.ok()) << text;
    EXPECT_NE(docs.status().message().find("invalid YAML: unexpected ',' where a node should begin"),
              std::string::npos)
        << docs.status().message();
  }
  auto docs = ParseDocuments("a: 1\n---\n,\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message().rfind("document 2: line 3, column 1: ", 0), 0u) << docs.status().message();
  // Empty documents in a row still parse.
  auto empties = ParseDocuments("---\n---\n---\n");
  ASSERT_TRUE(empties.ok()) << empties.status().message();
}

TEST(ParseDocuments, ReadsJson) {
  Json v = ParseOne("{\"kind\": \"Pod\", \"n\": 3, \"s\": \"3\", \"l\": [1, \"x\"]}");
  EXPECT_EQ(v["kind"], "Pod");
  EXPECT_EQ(v["n"], 3);
  EXPECT_EQ(v["s"], "3");
  EXPECT_EQ(v["l"][1], "x");
}

TEST(ParseDocuments, ReportsLineAndColumnOfSyntaxErrors) {
  auto docs = ParseDocuments("a: 1\n---\nb: [1, 2\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("document 2: line "), std::string::npos) << docs.status().message();
  EXPECT_NE(docs.status().message().find("invalid YAML"), std::string::npos);
}

TEST(ParseDocuments, PointsAtTabIndentation) {
  auto docs = ParseDocuments("spec:\n  a: 1\n\tb: 2\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("(tabs cannot indent YAML; use spaces)"), std::string::npos)
      << docs.status().message();
}

TEST(ParseDocuments, RefusesDeepNestingBeforeParsing) {
  std::string deep(100000, '[');
  auto docs = ParseDocuments(deep);
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().message(), "nesting is 100000 levels deep; at most 512 are allowed");
}

TEST(ParseDocuments, OutOfRangeNumbersAreDocumentErrorsWithTheirPath) {
  auto docs = ParseDocuments("spec:\n  cpu: 1e400\n");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].error_path, "spec.cpu");
  EXPECT_EQ((*docs)[0].error, "1e400 is out of range for a number");
}

// Found by fuzz/yaml_json_fuzz (reproducer fuzz/corpus/yaml_json/json-number-overflow.json):
// nlohmann throws out_of_range for such a number, which used to escape and abort the process.
TEST(ParseDocuments, OutOfRangeJsonNumbersAreErrorsNotAborts) {
  auto docs = ParseDocuments(R"({"spec": {"cpu": 1.5e380}})");
  ASSERT_TRUE(docs.ok()) << docs.status().message();
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].error, "1.5e380 is out of range for a number");
  EXPECT_EQ((*docs)[0].error_path, "spec.cpu");
}

TEST(ParseDocuments, RefusesHugeScalars) {
  auto docs = ParseDocuments("a: " + std::string(10 << 20, 'x') + "\n");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].error_path, "a");
  EXPECT_EQ((*docs)[0].error, "a value of 10485760 bytes is longer than the 2097152-byte limit");
}

TEST(ParseDocuments, RefusesTextThatIsNotUtf8WithItsPath) {
  // Raw bytes, and YAML escapes that decode to a lone byte, once aborted every subcommand when
  // an error message or the output was built from them.
  for (const std::string& text : {std::string("metadata:\n  name: a\xff\n"),
                                 std::string("metadata:\n  name: \"a\\N\"\n")}) {
    auto docs = ParseDocuments(text);
    ASSERT_TRUE(docs.ok()) << docs.status().message();
    EXPECT_EQ((*docs)[0].error_path, "metadata.name");
    EXPECT_EQ((*docs)[0].error, "is not valid UTF-8 text");
  }
  auto docs = ParseDocuments("labels:\n  \"k\\N\": v\n");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].error_path, "labels");
  EXPECT_EQ((*docs)[0].error, "a mapping key is not valid UTF-8 text");
  docs = ParseDocuments("{\"metadata\": {\"name\": \"a\xc3\"}}");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].error, "is not valid UTF-8 text") << "JSON input too";
}

TEST(ParseDocuments, RefusesDuplicateKeys) {
  auto docs = ParseDocuments("a: 1\na: 2\n");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ((*docs)[0].error, "duplicate key \"a\"");
}

TEST(EmitYaml, AKeyLongerThanYamlReadsAsAnImplicitKeyIsWrittenExplicitly) {
  // 300 NUL characters escape to 1,800 in double quotes: past YAML's 1,024 for an implicit key.
  const std::string long_key(300, '\0');
  for (const char* value : {"1", "[1, 2]", "{\"a\": {\"b\": 1}}"}) {
    nlohmann::ordered_json doc;
    doc["x"] = nlohmann::ordered_json::array({nlohmann::ordered_json::object()});
    doc["x"][0][long_key] = nlohmann::ordered_json::parse(value);
    doc["y"][long_key] = nlohmann::ordered_json::parse(value);
    const std::string yaml = EmitYaml(doc);
    auto back = ParseDocuments(yaml);
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << yaml;
    ASSERT_EQ(back->size(), 1u);
    EXPECT_EQ((*back)[0].value, doc) << yaml;
  }
}

TEST(EmitYaml, QuotesStringsThatWouldReadBackAsOtherTypes) {
  Json v = {{"s", "5"}, {"b", "true"}, {"y", "yes"}, {"e", ""}, {"n", 5}, {"f", 0.25},
            {"colon", "a: b"}, {"plain", "karpenter.sh/nodepool"}, {"nl", "a\nb"}};
  std::string yaml = EmitYaml(v);
  EXPECT_NE(yaml.find("s: \"5\"\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("plain: karpenter.sh/nodepool\n"), std::string::npos) << yaml;
  EXPECT_EQ(EmitYaml(Json{{"nodes", "10%"}, {"alias", "al2@latest"}}), "nodes: 10%\nalias: al2@latest\n");
  EXPECT_EQ(ParseOne(yaml), v);
}

// YAML 1.1 readers (PyYAML, older Go YAML) read an unquoted date or timestamp as a date.
TEST(EmitYaml, QuotesStringsThatLookLikeTimestamps) {
  EXPECT_EQ(EmitYaml(Json{{"t", "2024-01-01T01:01:01Z"}, {"d", "2024-01-01"}, {"v", "2024x"}}),
            "t: \"2024-01-01T01:01:01Z\"\nd: \"2024-01-01\"\nv: 2024x\n");
}

// "..." at the start of a line, then a blank or the line's end, ends a YAML document: a string
// document or a top-level key spelt so, written plain, read back as the end of an empty document.
TEST(EmitYaml, AStringThatWouldReadAsTheEndOfADocumentIsQuoted) {
  for (const Json& v : {Json("..."), Json("... a"), Json{{"... x", 1}}, Json{{"k", "..."}}}) {
    const std::string yaml = EmitYaml(v);
    auto back = ParseDocuments(yaml);
    ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << yaml;
    ASSERT_EQ(back->size(), 1u) << yaml;
    EXPECT_EQ((*back)[0].value, v) << yaml;
  }
  EXPECT_EQ(EmitYaml(Json{{"a", "...b"}}), "a: ...b\n");  // no blank after the dots: still plain
}

TEST(EmitYaml, NestedListsAndMapsRoundTrip) {
  Json v = Json::parse(R"({"spec": {"requirements": [{"key": "k", "operator": "In", "values": ["a", "b"]}],
      "empty": {}, "none": [], "matrix": [[1, 2], [3]], "n": null}})");
  EXPECT_EQ(ParseOne(EmitYaml(v)), v);
}

}  // namespace
}  // namespace nodesmith::api
