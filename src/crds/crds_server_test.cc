// nodesmith's CRDs and Karpenter's reference CRDs on the real API server: each corpus object
// (src/crds/testdata) is accepted or refused the same way under both, with the same defaults and
// the same errors, and `kubectl get` prints the same columns. Both sets use the same names, so each
// is installed under a group of its own ("ours-<id>.karpenter.sh", "ref-<id>.karpenter.sh") and
// deleted when the test ends; the reference CRDs other tests install under the real groups are
// left alone. The reject cases must, together, trip every rule and bound of nodesmith's CRDs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <future>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "crds/crd_test_util.h"
#include "crds/crds.h"
#include "kube_test_env.h"

namespace nodesmith::crds {
namespace {

using Json = nlohmann::ordered_json;
using nodesmith::testing::RunWithTestenv;
using nodesmith::testing::UniqueName;
using namespace nodesmith::crds::testutil;

const std::string kTestdata = std::string(NODESMITH_SOURCE_DIR) + "/src/crds/testdata/";

// A scratch directory, removed with what is in it.
class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/nodesmith-crds-XXXXXX";
    path_ = mkdtemp(path) != nullptr ? path : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Writes `text` to a new file in the directory and returns its path.
  std::string Write(const std::string& text) {
    std::string path = path_ + "/" + std::to_string(next_++);
    std::ofstream(path) << text;
    return path;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int next_ = 0;
};

struct KubectlResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// kubectl ARGS with the control plane's kubeconfig, stdout and stderr apart.
KubectlResult RunKubectl(const std::string& args, TempDir& tmp) {
  std::string out = tmp.Write(""), err = tmp.Write("");
  KubectlResult r;
  r.exit_code =
      RunWithTestenv("{ kubectl " + args + " >'" + out + "' 2>'" + err + "'; }").exit_code;
  r.out = ReadTextFile(out);
  r.err = ReadTextFile(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// One CRD installed under a renamed group.
struct Installed {
  std::string group;           // the group it is served under
  std::string original_group;  // the group it was written for
  std::string version, kind, plural;
  std::string Resource() const { return plural + "." + group; }
  std::string ApiVersion() const { return group + "/" + version; }
};

// Installs `crd` under "<prefix>-<id>.<group>" and waits until it is served.
Installed Install(Json crd, const std::string& prefix, TempDir& tmp) {
  Installed in;
  in.original_group = crd["spec"]["group"];
  in.group = UniqueName(prefix) + "." + in.original_group;
  in.version = crd["spec"]["versions"][0]["name"];
  in.kind = crd["spec"]["names"]["kind"];
  in.plural = crd["spec"]["names"]["plural"];
  crd["spec"]["group"] = in.group;
  crd["metadata"] = Json{{"name", in.Resource()}};
  KubectlResult r = RunKubectl("create -f '" + tmp.Write(crd.dump()) + "'", tmp);
  EXPECT_EQ(r.exit_code, 0) << "installing " << in.Resource() << ": " << r.err;
  // kubectl wait fails at once ("accessor error: <nil>") when it reads the CRD before the server
  // has written any condition, so the condition is polled instead.
  bool established = false;
  for (int i = 0; i < 600 && !established; ++i) {
    r = RunKubectl("get crd/" + in.Resource() +
                       " -o jsonpath='{.status.conditions[?(@.type==\"Established\")].status}'",
                   tmp);
    established = r.exit_code == 0 && r.out == "True";
    if (!established) usleep(100 * 1000);
  }
  EXPECT_TRUE(established) << "crd/" << in.Resource() << " not Established: " << r.err;
  // Established comes a moment before discovery serves the resource.
  for (int i = 0; i < 100; ++i) {
    if (RunKubectl("get " + in.Resource(), tmp).exit_code == 0) break;
    usleep(100 * 1000);
  }
  return in;
}

// The CRD named `name` (<plural>.<group>) as nodesmith renders it.
Json OurCrd(const std::string& name) {
  for (const Json& crd : AllCrds()) {
    if (crd["metadata"]["name"] == name) return crd;
  }
  ADD_FAILURE() << "nodesmith has no CRD " << name;
  return nullptr;
}

// Karpenter's reference copy of the CRD named <plural>.<group>.
Json ReferenceCrd(const Json& ours) {
  std::string file = ours["spec"]["group"].get<std::string>() + "_" +
                     ours["spec"]["names"]["plural"].get<std::string>() + ".yaml";
  Json ref = FirstDocument(ReferenceCrdText(file));
  EXPECT_FALSE(ref.is_null()) << "no reference CRD " << file << " in " << SharedData();
  return ref;
}

// Our CRD and the reference one, each under a group of its own; both deleted at the end.
class CrdPair {
 public:
  explicit CrdPair(const std::string& name, bool with_reference = true) {
    ours_ = Install(OurCrd(name), "ours", tmp_);
    if (with_reference) ref_ = Install(ReferenceCrd(OurCrd(name)), "ref", tmp_);
  }
  ~CrdPair() {
    RunKubectl("delete crd " + ours_.Resource() + " --wait=false", tmp_);
    if (ref_) RunKubectl("delete crd " + ref_->Resource() + " --wait=false", tmp_);
  }
  const Installed& ours() const { return ours_; }
  const std::optional<Installed>& ref() const { return ref_; }
  TempDir& tmp() { return tmp_; }

 private:
  TempDir tmp_;
  Installed ours_;
  std::optional<Installed> ref_;
};

// ---- The corpus ----

struct Case {
  int index = 0;
  std::string name;  // metadata.name: "c<index>"
  std::string what;
  bool expect_accept = true;
  std::string error;
  Json object;
  Json update;  // null unless an update case
  Json status;  // null unless a status case
  Json defaulted;
};

// "REPEAT(n,x)" inside strings becomes x written n times.
Json ExpandRepeats(const Json& v) {
  if (v.is_string()) {
    static const std::regex kRepeat(R"(REPEAT\((\d+),([^)]*)\))");
    std::string s = v, out;
    std::smatch m;
    while (std::regex_search(s, m, kRepeat)) {
      out += m.prefix();
      for (int i = 0; i < std::stoi(m[1]); ++i) out += m[2];
      s = m.suffix();
    }
    return out + s;
  }
  if (v.is_array() || v.is_object()) {
    Json out = v;
    for (auto it = out.begin(); it != out.end(); ++it) *it = ExpandRepeats(*it);
    return out;
  }
  return v;
}

struct Corpus {
  std::string kind;
  std::vector<Case> cases;
};

Corpus LoadCorpus(const std::string& file) {
  Corpus corpus;
  auto docs = api::ParseDocuments(ReadTextFile(kTestdata + file));
  EXPECT_TRUE(docs.ok()) << file << ": " << docs.status().message();
  if (!docs.ok() || docs->empty()) return corpus;
  const Json& header = (*docs)[0].value;
  corpus.kind = header["kind"];
  for (size_t i = 1; i < docs->size(); ++i) {
    Json doc = ExpandRepeats((*docs)[i].value);
    Case c;
    c.index = static_cast<int>(i);
    c.name = "c" + std::to_string(i);
    c.what = doc.value("case", "");
    c.expect_accept = doc.value("expect", "") == "accept";
    EXPECT_TRUE(doc.value("expect", "") == "accept" || doc.value("expect", "") == "reject")
        << file << " case " << i << ": expect must be accept or reject";
    c.error = doc.value("error", "");
    c.object = header["base"];
    if (doc.contains("patch")) c.object.merge_patch(doc["patch"]);
    c.object["metadata"]["name"] = c.name;
    c.update = doc.value("update", Json());
    c.status = doc.value("status", Json());
    c.defaulted = doc.value("defaulted", Json());
    corpus.cases.push_back(std::move(c));
  }
  return corpus;
}

// ---- Running a case ----

// What the server answered: the object after defaulting, or the errors (sorted, one per line).
struct Outcome {
  bool accepted = false;
  Json object;
  std::vector<std::string> errors;
  std::string setup_error;  // the object an update or status case starts from was refused
};

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// kubectl's error text as a sorted list of messages, the renamed group put back.
std::vector<std::string> ErrorLines(const std::string& err, const Installed& in) {
  std::vector<std::string> lines;
  std::istringstream ss(ReplaceAll(err, in.group, in.original_group));
  std::string line;
  static const std::regex kPrefix(R"(^.*The \w+ "[^"]*" is invalid: ?)");
  while (std::getline(ss, line)) {
    line = std::regex_replace(line, kPrefix, "");
    if (line.rfind("* ", 0) == 0) line = line.substr(2);
    if (!line.empty()) lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// The server's object without what differs between any two creations.
Json Normalized(Json object, const Installed& in) {
  if (object.contains("apiVersion")) {
    object["apiVersion"] =
        ReplaceAll(object["apiVersion"].get<std::string>(), in.group, in.original_group);
  }
  for (const char* f : {"uid", "creationTimestamp", "resourceVersion", "managedFields"}) {
    object["metadata"].erase(f);
  }
  return object;
}

Outcome ToOutcome(const KubectlResult& r, const Installed& in) {
  Outcome o;
  o.accepted = r.exit_code == 0;
  if (o.accepted) {
    o.object = Normalized(Json::parse(r.out, nullptr, false), in);
  } else {
    o.errors = ErrorLines(r.err, in);
    if (o.errors.empty()) o.errors.push_back("kubectl exited " + std::to_string(r.exit_code));
  }
  return o;
}

Outcome Run(const Case& c, const Installed& in, TempDir& tmp) {
  Json object = c.object;
  object["apiVersion"] = in.ApiVersion();
  object["kind"] = in.kind;
  std::string file = tmp.Write(object.dump());
  if (c.update.is_null() && c.status.is_null()) {
    return ToOutcome(RunKubectl("create --dry-run=server -o json -f - <'" + file + "'", tmp), in);
  }
  KubectlResult created = RunKubectl("create -o json -f - <'" + file + "'", tmp);
  if (created.exit_code != 0) {
    Outcome o;
    o.setup_error = created.err;
    return o;
  }
  const Json& patch = c.update.is_null() ? c.status : c.update;
  std::string args = "patch " + in.Resource() + " " + c.name + " --type=merge --patch-file '" +
                     tmp.Write(patch.dump()) + "' --dry-run=server -o json";
  if (!c.status.is_null()) args += " --subresource=status";
  return ToOutcome(RunKubectl(args, tmp), in);
}

// Whether `actual` holds everything in `expected` (objects by key, arrays item by item).
bool Contains(const Json& actual, const Json& expected) {
  if (expected.is_object()) {
    if (!actual.is_object()) return false;
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (!actual.contains(it.key()) || !Contains(actual[it.key()], it.value())) return false;
    }
    return true;
  }
  if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i) {
      if (!Contains(actual[i], expected[i])) return false;
    }
    return true;
  }
  return actual == expected;
}

// ---- Coverage: what the reject cases trip ----

// The schema path of an error's field ("spec.template.spec.requirements[0].key" ->
// "spec.template.spec.requirements[].key"; a map's key -> "*"), found by walking `schema`.
std::string SchemaPath(const std::string& field, const Json& schema) {
  std::string path;
  const Json* node = &schema;
  std::string rest = std::regex_replace(field, std::regex(R"(\[\d+\])"), ".[]");
  std::vector<std::string> tokens;
  std::stringstream ss(rest);
  std::string t;
  while (std::getline(ss, t, '.')) tokens.push_back(t);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& tok = tokens[i];
    if (tok == "[]" && node->contains("items")) {
      path += "[]";
      node = &(*node)["items"];
    } else if (node->contains("properties") && (*node)["properties"].contains(tok)) {
      path += (path.empty() ? "" : ".") + tok;
      node = &(*node)["properties"][tok];
    } else if (node->contains("additionalProperties")) {
      return path + ".*";  // map keys may hold dots: the rest is the key
    } else {
      return path + "." + tok;
    }
  }
  return path;
}

// The keyword a schema error names, from its wording.
std::string KeywordOf(const std::string& message) {
  static const std::vector<std::pair<std::string, std::string>> kWordings = {
      {"should match", "pattern"},
      {"Unsupported value", "enum"},
      {"should be greater than or equal to", "minimum"},
      {"should be less than or equal to", "maximum"},
      {"Too long", "maxLength"},
      {"chars long", "minLength"},
      {"Too many", "maxItems"},
      {"should have at least", "minItems"},
      {"must be of type date-time", "format"},
      {"Required value", "required"},
      {"Duplicate value", "unique"},
  };
  for (const auto& [wording, keyword] : kWordings) {
    if (message.find(wording) != std::string::npos) return keyword;
  }
  return "";
}

// Every (schema path, keyword) of `node` a reject case should trip: patterns, enums, bounds,
// lengths, item counts, date-time formats, required fields, set and map lists, and each CEL rule
// ("rule:<message>"). Defaults are listed as "default".
void Checks(const Json& node, const std::string& path, std::set<std::string>* out) {
  auto add = [&](const std::string& p, const std::string& k) { out->insert(p + " " + k); };
  for (const char* k : {"pattern", "enum", "minimum", "maximum", "maxLength", "minLength",
                        "minItems", "maxItems", "default"}) {
    if (node.contains(k)) add(path, k);
  }
  if (node.contains("maxProperties")) add(path, "maxItems");  // the server words it the same
  if (node.value("format", "") == "date-time") add(path, "format");
  std::string list_type = node.value("x-kubernetes-list-type", "");
  if (list_type == "set" || list_type == "map") add(path, "unique");
  if (node.contains("required")) {
    for (const Json& r : node["required"]) {
      add((path.empty() ? "" : path + ".") + r.get<std::string>(), "required");
    }
  }
  if (node.contains("x-kubernetes-validations")) {
    for (const Json& rule : node["x-kubernetes-validations"]) {
      add(path, "rule:" + rule.value("message", rule.value("rule", "")));
    }
  }
  if (node.contains("properties")) {
    for (auto it = node["properties"].begin(); it != node["properties"].end(); ++it) {
      Checks(it.value(), (path.empty() ? "" : path + ".") + it.key(), out);
    }
  }
  if (node.contains("items")) Checks(node["items"], path + "[]", out);
  if (node.contains("additionalProperties")) Checks(node["additionalProperties"], path + ".*", out);
}

// What one refused case tripped, as Checks() names it.
void Tripped(const std::vector<std::string>& errors, const Json& schema,
             const std::set<std::string>& checks, std::set<std::string>* out) {
  for (const std::string& e : errors) {
    size_t colon = e.find(": ");
    if (colon == std::string::npos) continue;
    std::string path = SchemaPath(e.substr(0, colon), schema);
    std::string keyword = KeywordOf(e.substr(colon));
    // A duplicate is reported at the repeated item; the check sits on the list.
    if (keyword == "unique" && path.size() > 2 && path.ends_with("[]")) {
      path.resize(path.size() - 2);
    }
    if (!keyword.empty()) out->insert(path + " " + keyword);
    for (const std::string& c : checks) {  // a CEL rule's error carries its message
      size_t rule = c.find(" rule:");
      if (rule != std::string::npos && c.substr(0, rule) == path &&
          e.find(c.substr(rule + 6)) != std::string::npos) {
        out->insert(c);
      }
    }
  }
}

// The schema paths of the fields a `defaulted` expectation names.
void DefaultedPaths(const Json& v, const std::string& path, const Json& schema,
                    std::set<std::string>* out) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string p = (path.empty() ? "" : path + ".") + it.key();
      out->insert(SchemaPath(p, schema) + " default");
      DefaultedPaths(it.value(), p, schema, out);
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      DefaultedPaths(v[i], path + "[" + std::to_string(i) + "]", schema, out);
    }
  }
}

// Runs every case of `file` under both CRDs of `pair` and checks the answers agree, match what
// the case expects, and together trip every check of nodesmith's CRD but `unreachable`.
void RunCorpus(const std::string& file, CrdPair& pair,
               const std::map<std::string, std::string>& unreachable) {
  Corpus corpus = LoadCorpus(file);
  ASSERT_FALSE(corpus.cases.empty()) << file;
  ASSERT_EQ(corpus.kind, pair.ours().kind);
  Json schema =
      OurCrd(pair.ours().plural + "." +
             pair.ours().original_group)["spec"]["versions"][0]["schema"]["openAPIV3Schema"];
  std::set<std::string> checks, tripped;
  Checks(schema, "", &checks);
  int accepted = 0, refused = 0;
  for (const Case& c : corpus.cases) {
    SCOPED_TRACE(file + " case " + std::to_string(c.index) + " (" + c.what + ")");
    // Both sides at once: the cases are independent and kubectl mostly waits.
    std::future<Outcome> ref_run;
    TempDir ref_tmp;
    if (pair.ref()) {
      ref_run = std::async(std::launch::async, [&] { return Run(c, *pair.ref(), ref_tmp); });
    }
    Outcome ours = Run(c, pair.ours(), pair.tmp());
    ASSERT_EQ(ours.setup_error, "") << "the object the case starts from was refused";
    EXPECT_EQ(ours.accepted, c.expect_accept)
        << (ours.accepted ? "accepted" : "refused: " + ::testing::PrintToString(ours.errors));
    if (!ours.accepted && !c.error.empty()) {
      std::string all;
      for (const std::string& e : ours.errors) all += e + "\n";
      EXPECT_THAT(all, ::testing::HasSubstr(c.error));
    }
    if (ours.accepted && !c.defaulted.is_null()) {
      EXPECT_TRUE(Contains(ours.object, c.defaulted))
          << "expected " << c.defaulted.dump() << "\nin " << ours.object.dump();
      DefaultedPaths(c.defaulted, "", schema, &tripped);
    }
    if (!ours.accepted) Tripped(ours.errors, schema, checks, &tripped);
    (ours.accepted ? accepted : refused)++;
    if (pair.ref()) {
      Outcome ref = ref_run.get();
      ASSERT_EQ(ref.setup_error, "") << "the reference CRD refused the object the case starts from";
      EXPECT_EQ(ours.accepted, ref.accepted) << "nodesmith's CRD and the reference disagree";
      if (ours.accepted && ref.accepted) {
        EXPECT_EQ(ours.object, ref.object) << "accepted with different objects";
      } else {
        EXPECT_EQ(ours.errors, ref.errors) << "refused with different errors";
      }
    }
  }
  std::vector<std::string> untripped;
  for (const std::string& c : checks) {
    if (!tripped.count(c) && !unreachable.count(c)) untripped.push_back(c);
  }
  EXPECT_THAT(untripped, ::testing::IsEmpty()) << "checks of " << file << " no case trips";
  for (const auto& [check, why] : unreachable) {
    EXPECT_TRUE(checks.count(check)) << "stale exclusion: " << check;
  }
  std::cout << file << ": " << corpus.cases.size() << " cases (" << accepted << " accepted, "
            << refused << " refused" << (pair.ref() ? ", the same under the reference CRD" : "")
            << "); " << checks.size() - unreachable.size() << " checks tripped\n";
}

// The requirement values list carries maxLength and pattern, which the API server applies to
// strings only: values are not checked (a corpus case shows it).
std::map<std::string, std::string> RequirementValuesChecks(const std::string& requirements) {
  return {{requirements + "[].values maxLength", "on a list: not applied"},
          {requirements + "[].values pattern", "on a list: not applied"}};
}

TEST(CrdsServerTest, NodePoolCorpusIsJudgedAsKarpenterJudgesIt) {
  CrdPair pair("nodepools.karpenter.sh");
  auto unreachable = RequirementValuesChecks("spec.template.spec.requirements");
  unreachable["spec.disruption.budgets[].reasons maxItems"] =
      "a set of three allowed values never has more than three items";
  unreachable["spec.disruption.budgets[].nodes required"] =
      "nodes has a default, so it is always set by the time required is checked";
  RunCorpus("nodepools.yaml", pair, unreachable);
}

TEST(CrdsServerTest, NodeClaimCorpusIsJudgedAsKarpenterJudgesIt) {
  CrdPair pair("nodeclaims.karpenter.sh");
  RunCorpus("nodeclaims.yaml", pair, RequirementValuesChecks("spec.requirements"));
}

TEST(CrdsServerTest, EC2NodeClassCorpusIsJudgedAsKarpenterJudgesIt) {
  CrdPair pair("ec2nodeclasses.karpenter.k8s.aws");
  RunCorpus("ec2nodeclasses.yaml", pair, {});
}

TEST(CrdsServerTest, KWOKNodeClassCorpusIsJudgedAsTheKwokProviderDefinesIt) {
  CrdPair pair("kwoknodeclasses.karpenter.kwok.sh", /*with_reference=*/false);
  RunCorpus("kwoknodeclasses.yaml", pair, {});
}

// ---- What kubectl shows ----

// `kubectl get RESOURCE NAME [-o wide]` as rows of cells, the AGE column dropped (the two
// objects are a second or so apart).
std::vector<std::vector<std::string>> Table(const std::string& args, TempDir& tmp) {
  KubectlResult r = RunKubectl("get " + args, tmp);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(r.out);
  std::string line;
  int age = -1;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::vector<std::string> row;
    std::string cell;
    while (cells >> cell) row.push_back(cell);
    if (rows.empty()) {
      age = static_cast<int>(std::find(row.begin(), row.end(), "AGE") - row.begin());
    }
    if (age >= 0 && age < static_cast<int>(row.size())) row.erase(row.begin() + age);
    rows.push_back(row);
  }
  return rows;
}

// Creates `object` under `in` and then sets its status.
void CreateWithStatus(Json object, const Json& status, const Installed& in, TempDir& tmp) {
  object["apiVersion"] = in.ApiVersion();
  object["kind"] = in.kind;
  KubectlResult r = RunKubectl("create -f - <'" + tmp.Write(object.dump()) + "'", tmp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = RunKubectl("patch " + in.Resource() + " " + object["metadata"]["name"].get<std::string>() +
                     " --subresource=status --type=merge --patch-file '" +
                     tmp.Write(Json{{"status", status}}.dump()) + "'",
                 tmp);
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

// Creates the object under both CRDs and expects the same table, with these columns, from
// `kubectl get` and `kubectl get -o wide`.
void ExpectSameColumns(const std::string& crd, const Json& object, const Json& status,
                       const std::vector<std::string>& columns,
                       const std::vector<std::string>& wide_columns) {
  CrdPair pair(crd);
  for (const Installed* in : {&pair.ours(), &*pair.ref()}) {
    CreateWithStatus(object, status, *in, pair.tmp());
  }
  std::string name = object["metadata"]["name"];
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "-o wide" : "default columns");
    std::string suffix = " " + name + (wide ? " -o wide" : "");
    auto ours = Table(pair.ours().Resource() + suffix, pair.tmp());
    auto ref = Table(pair.ref()->Resource() + suffix, pair.tmp());
    ASSERT_EQ(ours.size(), 2u);
    EXPECT_EQ(ours, ref);
    EXPECT_EQ(ours[0], wide ? wide_columns : columns);
    EXPECT_EQ(ours[1].size(), ours[0].size()) << "every cell is filled";
  }
}

const Json kConditions = Json::parse(R"([
  {"type":"Ready","status":"True","reason":"Ready","message":"","lastTransitionTime":"2025-01-01T00:00:00Z"},
  {"type":"Drifted","status":"False","reason":"NotDrifted","message":"","lastTransitionTime":"2025-01-01T00:00:00Z"}])");

TEST(CrdsServerTest, NodePoolColumnsAreKarpenters) {
  Json pool = Json::parse(R"({"metadata":{"name":"columns"},"spec":{"weight":10,"template":{"spec":{
    "nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},
    "requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}}}})");
  Json status = {
      {"nodes", 2}, {"resources", {{"cpu", "8"}, {"memory", "32Gi"}}}, {"conditions", kConditions}};
  ExpectSameColumns("nodepools.karpenter.sh", pool, status, {"NAME", "NODECLASS", "NODES", "READY"},
                    {"NAME", "NODECLASS", "NODES", "READY", "WEIGHT", "CPU", "MEMORY"});
}

TEST(CrdsServerTest, NodeClaimColumnsAreKarpenters) {
  Json claim = Json::parse(R"({"metadata":{"name":"columns","labels":{
      "node.kubernetes.io/instance-type":"m5.large","karpenter.sh/capacity-type":"spot",
      "topology.kubernetes.io/zone":"us-west-2a","karpenter.sh/nodepool":"default"}},
    "spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},
      "requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}})");
  Json status = {{"nodeName", "ip-10-0-0-1"},
                 {"imageID", "ami-0123"},
                 {"providerID", "aws:///us-west-2a/i-0123"},
                 {"conditions", kConditions}};
  ExpectSameColumns("nodeclaims.karpenter.sh", claim, status,
                    {"NAME", "TYPE", "CAPACITY", "ZONE", "NODE", "READY"},
                    {"NAME", "TYPE", "CAPACITY", "ZONE", "NODE", "READY", "IMAGEID", "ID",
                     "NODEPOOL", "NODECLASS", "DRIFTED"});
}

TEST(CrdsServerTest, EC2NodeClassColumnsAreKarpenters) {
  Json node_class = Json::parse(R"({"metadata":{"name":"columns"},"spec":{"role":"NodeRole",
    "amiSelectorTerms":[{"alias":"al2023@latest"}],"subnetSelectorTerms":[{"id":"subnet-1"}],
    "securityGroupSelectorTerms":[{"id":"sg-1"}]}})");
  ExpectSameColumns("ec2nodeclasses.karpenter.k8s.aws", node_class,
                    {{"conditions", Json::array({kConditions[0]})}}, {"NAME", "READY"},
                    {"NAME", "READY", "ROLE"});
}

// `kubectl scale` sets spec.replicas of a static NodePool and reads status.nodes back.
TEST(CrdsServerTest, NodePoolScalesAsKarpentersDoes) {
  CrdPair pair("nodepools.karpenter.sh");
  Json pool = Json::parse(R"({"metadata":{"name":"static"},"spec":{"replicas":1,"template":{
    "spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},
    "requirements":[{"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}}}})");
  std::vector<Json> scales;
  for (const Installed* in : {&pair.ours(), &*pair.ref()}) {
    CreateWithStatus(pool, {{"nodes", 1}}, *in, pair.tmp());
    KubectlResult r = RunKubectl("scale " + in->Resource() + " static --replicas=3", pair.tmp());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = RunKubectl("get --raw /apis/" + in->ApiVersion() + "/nodepools/static/scale", pair.tmp());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Json scale = Json::parse(r.out, nullptr, false);
    scale["metadata"] = scale["metadata"].value("name", "");
    scales.push_back(scale);
  }
  EXPECT_EQ(scales[0], scales[1]);
  EXPECT_EQ(scales[0]["spec"]["replicas"], 3);
  EXPECT_EQ(scales[0]["status"]["replicas"], 1);
}

// Discovery: the same short names, categories, kind and scope.
TEST(CrdsServerTest, DiscoveryNamesAreKarpenters) {
  for (const char* crd :
       {"nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "ec2nodeclasses.karpenter.k8s.aws"}) {
    SCOPED_TRACE(crd);
    CrdPair pair(crd);
    std::vector<std::string> listings;
    for (const Installed* in : {&pair.ours(), &*pair.ref()}) {
      KubectlResult r = RunKubectl(
          "api-resources --api-group=" + in->group + " -o wide --no-headers", pair.tmp());
      ASSERT_EQ(r.exit_code, 0) << r.err;
      listings.push_back(ReplaceAll(r.out, in->group, in->original_group));
    }
    EXPECT_EQ(listings[0], listings[1]);
    EXPECT_THAT(listings[0], ::testing::HasSubstr("karpenter"));  // the category
  }
}

}  // namespace
}  // namespace nodesmith::crds
