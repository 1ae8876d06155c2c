// SigV4 signer: AWS's Signature Version 4 test suite (every case directory under
// NODESMITH_SHARED_DATA/sigv4, each step checked), and a differential test against botocore on
// requests drawn from a seeded generator, run through tests/aws/botocore_sign.py by Debian's
// /usr/bin/python3.
#include "cloud/aws/sigv4.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace nodesmith::aws {
namespace {

namespace fs = std::filesystem;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr char kVectorDir[] = NODESMITH_SHARED_DATA "/sigv4";
constexpr char kBotocoreScript[] = NODESMITH_SOURCE_DIR "/tests/aws/botocore_sign.py";
// Debian's interpreter, not whatever python3 is first on PATH: python3-botocore lives there.
constexpr char kSystemPython[] = "/usr/bin/python3";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The expected outputs (.creq, .sts, .authz) end without a newline; a copy that gained one at
// the end of the file still means the same string.
std::string ReadExpected(const fs::path& path) {
  std::string s = ReadFile(path);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string TrimOws(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// Parses the suite's raw HTTP request text. Header values are kept as written (the signer's
// trimming is under test). A folded line (leading whitespace) is read as one more value of the
// header above it: the suite's get-header-value-multiline expects "value1,value2,value3".
SigningRequest ParseHttpRequest(const std::string& text) {
  SigningRequest r;
  size_t pos = 0;
  auto next_line = [&](std::string& line) {
    if (pos > text.size()) return false;
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = end + 1;
    return true;
  };
  std::string line;
  next_line(line);
  const size_t method_end = line.find(' ');
  const size_t version_start = line.rfind(" HTTP/");
  r.method = line.substr(0, method_end);
  const std::string target = line.substr(method_end + 1, version_start - method_end - 1);
  const size_t q = target.find('?');
  r.path = target.substr(0, q);
  r.query = q == std::string::npos ? "" : target.substr(q + 1);
  while (next_line(line) && !line.empty()) {
    if ((line[0] == ' ' || line[0] == '\t') && !r.headers.empty()) {
      r.headers.emplace_back(r.headers.back().first, line);
      continue;
    }
    const size_t colon = line.find(':');
    r.headers.emplace_back(line.substr(0, colon), line.substr(colon + 1));
  }
  if (pos <= text.size()) r.body = text.substr(pos);
  return r;
}

Headers WithTrimmedValues(Headers headers) {
  for (auto& [name, value] : headers) value = TrimOws(value);
  return headers;
}

// --- The AWS test suite ----------------------------------------------------------------------

struct VectorCase {
  std::string name;  // relative to kVectorDir: "get-vanilla", "normalize-path/get-slash"
  fs::path dir;
  fs::path File(const char* ext) const { return dir / (dir.filename().string() + ext); }
  friend void PrintTo(const VectorCase& c, std::ostream* os) { *os << c.name; }
};

// Every directory holding a <dir>.req is a case.
std::vector<VectorCase> FindVectorCases() {
  std::vector<VectorCase> cases;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(kVectorDir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory()) continue;
    const fs::path dir = it->path();
    if (!fs::exists(dir / (dir.filename().string() + ".req"))) continue;
    cases.push_back({fs::relative(dir, kVectorDir).generic_string(), dir});
  }
  std::sort(cases.begin(), cases.end(),
            [](const VectorCase& a, const VectorCase& b) { return a.name < b.name; });
  return cases;
}

// The suite's parameters, as its README gives them.
SigningScope VectorScope() {
  auto t = core::ParseRfc3339("2015-08-30T12:36:00Z");
  return SigningScope{"us-east-1", "service", t.ok() ? *t : core::Time{}};
}

Credentials VectorCredentials(const VectorCase& c) {
  Credentials creds;
  creds.access_key_id = "AKIDEXAMPLE";
  creds.secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  // The temporary-credentials cases use the token their readme.txt ends with.
  if (c.name.starts_with("post-sts-token/")) {
    std::istringstream readme(ReadFile(c.dir.parent_path() / "readme.txt"));
    for (std::string line; std::getline(readme, line);) {
      if (!TrimOws(line).empty()) creds.session_token = TrimOws(line);
    }
  }
  return creds;
}

TEST(SigV4Vectors, SuiteIsPresent) {
  // 31 cases in the 2015 suite; fewer means the shared data is missing or was cut short.
  EXPECT_GE(FindVectorCases().size(), 31u) << "no SigV4 test suite under " << kVectorDir;
}

class SigV4Vector : public ::testing::TestWithParam<VectorCase> {};

TEST_P(SigV4Vector, EveryStepMatches) {
  const VectorCase& c = GetParam();
  const SigningScope scope = VectorScope();
  const Credentials creds = VectorCredentials(c);
  ASSERT_FALSE(creds.access_key_id.empty());
  if (c.name.starts_with("post-sts-token/")) {
    ASSERT_FALSE(creds.session_token.empty());
  }

  const SigningRequest request = ParseHttpRequest(ReadFile(c.File(".req")));
  if (fs::exists(c.File(".creq"))) {
    EXPECT_EQ(CanonicalRequest(request), ReadExpected(c.File(".creq")));
  }
  if (fs::exists(c.File(".sts"))) {
    EXPECT_EQ(StringToSign(request, scope), ReadExpected(c.File(".sts")));
  }
  if (fs::exists(c.File(".authz"))) {
    EXPECT_EQ(AuthorizationHeader(request, scope, creds), ReadExpected(c.File(".authz")));
  }

  fs::path sreq = c.File(".sreq");
  // The suite shows both ways of attaching a session token: signed (header-before) or added
  // after signing (header-after). SignRequest signs it, as botocore does, so this request signed
  // with the token is the header-before case's signed request.
  if (c.name == "post-sts-token/post-sts-header-after") {
    sreq = c.dir.parent_path() / "post-sts-header-before" / "post-sts-header-before.sreq";
  }
  if (fs::exists(sreq)) {
    SigningRequest signed_request = request;
    SignRequest(signed_request, scope, creds);
    const SigningRequest want = ParseHttpRequest(ReadExpected(sreq));
    EXPECT_EQ(signed_request.method, want.method);
    EXPECT_EQ(signed_request.path, want.path);
    EXPECT_EQ(signed_request.query, want.query);
    EXPECT_EQ(signed_request.body, want.body);
    // The suite writes "Authorization: ..." with a space the other headers lack; optional
    // whitespace is not part of a value.
    EXPECT_EQ(WithTrimmedValues(signed_request.headers), WithTrimmedValues(want.headers));
  }
}

INSTANTIATE_TEST_SUITE_P(SigV4TestSuite, SigV4Vector, ::testing::ValuesIn(FindVectorCases()),
                         [](const ::testing::TestParamInfo<VectorCase>& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// --- Units the suite does not pin ------------------------------------------------------------

TEST(SigV4, Sha256HexOfEmptyAndAbc) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SigV4, UriEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(UriEncode("AZaz09-_.~"), "AZaz09-_.~");
  EXPECT_EQ(UriEncode("a b+c/d=e&f%"), "a%20b%2Bc%2Fd%3De%26f%25");
  EXPECT_EQ(UriEncode("/a b/", /*encode_slash=*/false), "/a%20b/");
  EXPECT_EQ(UriEncode("\xe2\x82\xac"), "%E2%82%AC");
}

TEST(SigV4, AmzDateIsUtcToTheSecond) {
  EXPECT_EQ(AmzDate(core::Time{1440938160LL * 1'000'000'000 + 999'999'999}), "20150830T123600Z");
  EXPECT_EQ(AmzDate(core::Time{0}), "19700101T000000Z");
  EXPECT_EQ(AmzDate(core::Time{-1}), "19691231T235959Z");
}

// Non-S3 services sign the path as sent encoded once more, so an escape in it shows as %25XX.
TEST(SigV4, PathIsEncodedAgainAfterNormalising) {
  SigningRequest r{"get", "/a%20b/./c//..//d/", "", {{"Host", "h"}}, ""};
  const std::string cr = CanonicalRequest(r);
  EXPECT_EQ(cr.substr(0, cr.find('\n', 4)), "GET\n/a%2520b/d/");
}

TEST(SigV4, SignRequestReplacesWhatAnEarlierSigningAdded) {
  SigningRequest r{"POST", "/", "", {{"Host", "sts.amazonaws.com"}}, "Action=GetCallerIdentity"};
  const SigningScope scope{"us-east-1", "sts", core::Time{1440938160LL * 1'000'000'000}};
  Credentials creds;
  creds.access_key_id = "ASIAEXAMPLE";
  creds.secret_access_key = "secret";
  creds.session_token = "token";
  SignRequest(r, scope, creds);
  const Headers first = r.headers;
  SignRequest(r, scope, creds);  // a retry
  EXPECT_EQ(r.headers, first);
  ASSERT_EQ(r.headers.size(), 4u);
  EXPECT_EQ(r.headers[1], (std::pair<std::string, std::string>{"X-Amz-Date", "20150830T123600Z"}));
  EXPECT_EQ(r.headers[2].first, "X-Amz-Security-Token");
  EXPECT_NE(r.headers[3].second.find("SignedHeaders=host;x-amz-date;x-amz-security-token,"),
            std::string::npos);
}

// --- Against botocore ------------------------------------------------------------------------

struct RandomRequest {
  SigningRequest request;
  SigningScope scope;
  Credentials credentials;
  std::string url;
};

class RequestGenerator {
 public:
  explicit RequestGenerator(uint32_t seed) : rng_(seed) {}

  RandomRequest Next() {
    RandomRequest g;
    static const std::vector<std::pair<std::string, std::string>> kEndpoints = {
        {"ec2", "us-east-1"},     {"sts", "eu-west-1"},         {"sqs", "ap-southeast-2"},
        {"pricing", "us-east-1"}, {"autoscaling", "us-west-2"}, {"eks", "eu-central-1"},
        {"iam", "us-east-1"},     {"ssm", "sa-east-1"}};
    const auto& [service, region] = Pick(kEndpoints);
    g.scope.service = service;
    g.scope.region = region;
    // 2000-01-01 .. 2036-01-01, whole seconds (botocore's timestamp has no fraction).
    g.scope.time = core::Time{Int(946684800, 2082758400) * 1'000'000'000LL};

    const bool temporary = Chance(0.5);
    g.credentials.access_key_id = (temporary ? "ASIA" : "AKIA") + Random("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16);
    g.credentials.secret_access_key = Random(kBase64, 40);
    if (temporary) g.credentials.session_token = Random(kBase64, Int(40, 300)) + "==";

    SigningRequest& r = g.request;
    r.method = Pick(std::vector<std::string>{"GET", "POST", "PUT", "DELETE"});
    r.path = Path();
    r.query = Query();
    std::string host = service + "." + region + ".amazonaws.com";
    if (Chance(0.1)) host += ":8443";
    r.headers = HeaderList(host);
    if (Chance(0.6)) {
      const int n = Int(1, 300);
      for (int i = 0; i < n; ++i) r.body += static_cast<char>(Int(0, 255));
    }
    g.url = "https://" + host + r.path + (r.query.empty() ? "" : "?" + r.query);
    return g;
  }

 private:
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  int64_t Int(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(Int(0, static_cast<int64_t>(v.size()) - 1))];
  }
  std::string Random(std::string_view alphabet, int64_t n) {
    std::string s;
    for (int64_t i = 0; i < n; ++i) s += alphabet[static_cast<size_t>(Int(0, alphabet.size() - 1))];
    return s;
  }
  // A string of 1..n atoms drawn from `atoms`.
  std::string Atoms(const std::vector<std::string>& atoms, int n) {
    std::string s;
    for (int i = Int(1, n); i > 0; --i) s += Pick(atoms);
    return s;
  }

  // Unreserved, sub-delims and ':' '@' (legal unencoded in a path), escapes the sender already
  // made (lower-case hex too), raw UTF-8 and spaces as the suite writes them. Never '?', '#' or
  // CR/LF/TAB, which would end or be stripped from the URL botocore parses.
  std::string Path() {
    static const std::vector<std::string> kAtoms = {
        "a", "Z", "0", "9", "-", "_", ".", "~", "!", "$", "&", "'", "(", ")", "*", "+", ",",
        ";", "=", ":", "@", "%20", "%2F", "%25", "%E2%82%AC", "%c3%a9", "%", " ", "\xc3\xa9",
        "\xe2\x82\xac", "\xe1\x88\xb4", "\xf0\x9d\x84\x9e", "\"", "<", ">", "[", "]", "{",
        "|", "}", "^", "`", "\\", "abc", "Data"};
    std::string path;
    for (int i = Int(0, 5); i > 0; --i) {
      path += '/';
      const int kind = Int(0, 9);
      if (kind == 0) continue;  // an empty segment: "//"
      if (kind == 1) path += ".";
      else if (kind == 2) path += "..";
      else path += Atoms(kAtoms, 8);
    }
    if (path.empty() || Chance(0.3)) path += '/';
    return path;
  }

  // Names and values encoded as a sender encodes them; repeated names, empty values, names
  // without '=', and now and then a trailing '&'.
  std::string Query() {
    if (Chance(0.2)) return "";
    static const std::vector<std::string> kNames = {
        "Action", "Version", "Filter.1.Name", "Filter.1.Value.1", "a", "A", "b", "_", "-x",
        "~y", "a-", "a.b", "MaxResults", "NextToken"};
    static const std::vector<std::string> kValueAtoms = {
        "v", "V", "1", "-", "_", ".", "~", " ", "/", "?", ":", "@", "!", "$", "&", "'", "(",
        ")", "*", "+", ",", ";", "=", "#", "[", "]", "%", "\xc3\xa9", "\xe1\x88\xb4",
        "\xf0\x9d\x84\x9e", "value", "i-0123456789abcdef0"};
    std::vector<std::string> params;
    for (int i = Int(1, 6); i > 0; --i) {
      std::string name = Chance(0.7) ? Pick(kNames) : Atoms(kValueAtoms, 5);
      if (!params.empty() && Chance(0.2)) {
        name = params.back().substr(0, params.back().find('='));  // a repeated name
      } else {
        name = UriEncode(name);
      }
      const int form = Int(0, 9);
      if (form == 0) params.push_back(name);
      else if (form == 1) params.push_back(name + "=");
      else params.push_back(name + "=" + UriEncode(Atoms(kValueAtoms, 10)));
    }
    std::shuffle(params.begin(), params.end(), rng_);
    std::string query;
    for (const auto& p : params) query += (query.empty() ? "" : "&") + p;
    if (Chance(0.05)) query += '&';
    return query;
  }

  // Printable ASCII with runs of spaces and tabs inside and around.
  std::string HeaderValue() {
    if (Chance(0.05)) return "";
    static const std::vector<std::string> kAtoms = {
        "a", "Z", "0", " ", "  ", "\t", " \t ", "\"", ",", ";", "=", ":", "/", "(", ")", "*",
        "application/x-amz-json-1.1", "text", "value1", "\"a   b   c\"", "!", "~", "'"};
    return Atoms(kAtoms, 8);
  }

  Headers HeaderList(const std::string& host) {
    Headers h;
    h.emplace_back(Pick(std::vector<std::string>{"Host", "host", "HOST"}), host);
    static const std::vector<std::string> kNames = {
        "Content-Type", "X-Amz-Target", "My-Header1", "my-header1", "X-Amz-Meta-Thing", "Accept",
        "X-Custom", "x-CUSTOM", "Content-Encoding", "X-Amz-Api-Version"};
    for (int i = Int(0, 6); i > 0; --i) h.emplace_back(Pick(kNames), HeaderValue());
    // Never signed by botocore: proxies and tracers rewrite them.
    if (Chance(0.15)) h.emplace_back("User-Agent", "nodesmith/0.1.0 ( linux )");
    if (Chance(0.1)) h.emplace_back("Expect", "100-continue");
    if (Chance(0.1)) h.emplace_back("X-Amzn-Trace-Id", "Root=1-5759e988-bd862e3fe1be46a994272793");
    // What an earlier signing left behind, replaced on a retry.
    if (Chance(0.15)) h.emplace_back("x-amz-date", "20000101T000000Z");
    if (Chance(0.15)) h.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=stale");
    // A stale token is replaced with temporary credentials, and signed as is without them.
    if (Chance(0.15)) h.emplace_back("X-Amz-Security-Token", "stale");
    if (Chance(0.1)) h.emplace_back("X-Amz-Content-SHA256", "UNSIGNED-PAYLOAD");
    std::shuffle(h.begin(), h.end(), rng_);
    return h;
  }

  std::mt19937 rng_;
};

std::string HexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

nlohmann::json ToJson(const RandomRequest& g) {
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : g.request.headers) headers.push_back({name, value});
  return {{"method", g.request.method},
          {"url", g.url},
          {"headers", headers},
          {"body_hex", HexBytes(g.request.body)},
          {"region", g.scope.region},
          {"service", g.scope.service},
          {"access_key", g.credentials.access_key_id},
          {"secret_key", g.credentials.secret_access_key},
          {"token", g.credentials.session_token},
          {"time", core::FormatRfc3339(g.scope.time)}};
}

class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (fs::temp_directory_path() / "nodesmith-sigv4-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  fs::path path() const { return path_; }

 private:
  std::string path_;
};

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(SigV4Botocore, MatchesOnRandomRequests) {
  const std::string probe = std::string(kSystemPython) + " -c 'import botocore' >/dev/null 2>&1";
  ASSERT_EQ(std::system(probe.c_str()), 0)
      << kSystemPython << " cannot import botocore, the reference signer of this test: install "
      << "python3-botocore (scripts/install-deps.sh lists it)";

  constexpr int kRequests = 300;
  RequestGenerator gen(20150830);
  std::vector<RandomRequest> requests;
  nlohmann::json input = nlohmann::json::array();
  for (int i = 0; i < kRequests; ++i) {
    requests.push_back(gen.Next());
    input.push_back(ToJson(requests.back()));
  }

  // All requests in one run: the interpreter's start-up is most of the cost.
  ScratchDir scratch;
  ASSERT_FALSE(scratch.path().empty());
  const fs::path in_path = scratch.path() / "requests.json";
  const fs::path err_path = scratch.path() / "stderr";
  std::ofstream(in_path, std::ios::binary) << input.dump();
  const std::string command = std::string(kSystemPython) + " " + ShellQuote(kBotocoreScript) +
                              " <" + ShellQuote(in_path.string()) + " 2>" +
                              ShellQuote(err_path.string());
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr) << command;
  std::string output;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << command << " failed:\n" << ReadFile(err_path);
  const nlohmann::json answers = nlohmann::json::parse(output, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(answers.is_array()) << "not a JSON list from " << command << ":\n" << output;
  ASSERT_EQ(answers.size(), requests.size());

  int compared = 0, differing = 0;
  std::string first_difference;
  for (size_t i = 0; i < requests.size(); ++i) {
    const RandomRequest& g = requests[i];
    SigningRequest signed_request = g.request;
    SignRequest(signed_request, g.scope, g.credentials);
    // What was signed: the request before its Authorization header was added.
    SigningRequest before_authorization = signed_request;
    before_authorization.headers.pop_back();

    Headers botocore_headers;
    for (const auto& h : answers[i]["headers"]) {
      botocore_headers.emplace_back(h[0].get<std::string>(), h[1].get<std::string>());
    }
    const std::pair<const char*, std::pair<std::string, std::string>> fields[] = {
        {"canonical request",
         {CanonicalRequest(before_authorization), answers[i]["canonical_request"].get<std::string>()}},
        {"string to sign",
         {StringToSign(before_authorization, g.scope), answers[i]["string_to_sign"].get<std::string>()}},
        {"Authorization",
         {signed_request.headers.back().second, answers[i]["authorization"].get<std::string>()}},
        {"signed headers (JSON)",
         {ToJson(RandomRequest{signed_request, g.scope, g.credentials, g.url})["headers"].dump(),
          ToJson(RandomRequest{{"", "", "", botocore_headers, ""}, {}, {}, ""})["headers"].dump()}},
    };
    ++compared;
    bool same = true;
    for (const auto& [field, values] : fields) {
      if (values.first == values.second) continue;
      if (same && first_difference.empty()) {
        first_difference = "request #" + std::to_string(i) + ":\n" + ToJson(g).dump(2) +
                           "\nfirst differing field: " + field + "\nnodesmith:\n" + values.first +
                           "\nbotocore:\n" + values.second;
      }
      same = false;
    }
    if (!same) ++differing;
  }
  EXPECT_EQ(compared, kRequests);
  EXPECT_EQ(differing, 0) << differing << " of " << compared
                          << " requests sign differently from botocore; the first:\n"
                          << first_difference;
}

}  // namespace
}  // namespace nodesmith::aws
