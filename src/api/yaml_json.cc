#include "api/yaml_json.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/utf8.h"

namespace nodesmith::api {
namespace {

using Json = nlohmann::ordered_json;

enum class PlainType { kNull, kBool, kInt, kFloat, kString };

bool AllOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsOctal(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+
bool IsCoreInt(std::string_view s) {
  if (s.substr(0, 2) == "0o") return AllOf(s.substr(2), IsOctal);
  if (s.substr(0, 2) == "0x") return AllOf(s.substr(2), IsHex);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  return AllOf(s, IsDigit);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN)
bool IsCoreFloat(std::string_view s) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  size_t i = 0, int_digits = 0, frac_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  bool dot = i < s.size() && s[i] == '.';
  if (dot) {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Resolves an untagged plain scalar per the YAML 1.2 core schema.
PlainType ResolvePlain(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return PlainType::kNull;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    return PlainType::kBool;
  }
  if (IsCoreInt(s)) return PlainType::kInt;
  if (IsCoreFloat(s)) return PlainType::kFloat;
  return PlainType::kString;
}

class Converter {
 public:
  // Returns false (with error_/error_path_ set) when the node cannot be represented.
  bool Convert(const YAML::Node& node, const std::string& path, int depth, Json* out) {
    if (++nodes_ > kMaxNodes) {
      return Fail(path, "document is too large (more than " + std::to_string(kMaxNodes) +
                            " values, aliases included)");
    }
    if (depth > kMaxDepth) {
      return Fail(path, "nesting is deeper than " + std::to_string(kMaxDepth) + " levels");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        *out = nullptr;
        return true;
      case YAML::NodeType::Scalar:
        return Scalar(node, path, out);
      case YAML::NodeType::Sequence: {
        *out = Json::array();
        size_t i = 0;
        for (const auto& item : node) {
          Json v;
          bool ok = Convert(item, JoinPath(path, i++), depth + 1, &v);
          out->push_back(std::move(v));  // kept even on failure: kind and name stay readable
          if (!ok) return false;
        }
        return true;
      }
      case YAML::NodeType::Map: {
        *out = Json::object();
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) return Fail(path, "a mapping key must be a scalar");
          const std::string& key = kv.first.Scalar();
          if (key.size() > kMaxScalarBytes) return Fail(path, "a mapping key is too long");
          if (!core::IsValidUtf8(key)) return Fail(path, "a mapping key is not valid UTF-8 text");
          std::string child = JoinPath(path, key);
          if (out->contains(key)) return Fail(child, "duplicate key \"" + key + "\"");
          Json v;
          bool ok = Convert(kv.second, child, depth + 1, &v);
          (*out)[key] = std::move(v);
          if (!ok) return false;
        }
        return true;
      }
    }
    return Fail(path, "unsupported YAML node");
  }

  const std::string& error() const { return error_; }
  const std::string& error_path() const { return error_path_; }

 private:
  bool Fail(const std::string& path, std::string msg) {
    error_path_ = path;
    error_ = std::move(msg);
    return false;
  }

  bool Scalar(const YAML::Node& node, const std::string& path, Json* out) {
    const std::string& s = node.Scalar();
    if (s.size() > kMaxScalarBytes) {
      return Fail(path, "a value of " + std::to_string(s.size()) + " bytes is longer than the " +
                            std::to_string(kMaxScalarBytes) + "-byte limit");
    }
    // Raw bytes, or an escape such as "\x80" or "\N" that decodes to one: nothing can be said
    // of, or written out from, text that is not text.
    if (!core::IsValidUtf8(s)) return Fail(path, "is not valid UTF-8 text");
    const std::string& tag = node.Tag();
    PlainType type;
    if (tag == "?") {
      type = ResolvePlain(s);
    } else if (tag == "!" || tag == "tag:yaml.org,2002:str" || tag == "!!str") {
      type = PlainType::kString;
    } else if (tag == "tag:yaml.org,2002:int" || tag == "!!int") {
      type = PlainType::kInt;
    } else if (tag == "tag:yaml.org,2002:float" || tag == "!!float") {
      type = PlainType::kFloat;
    } else if (tag == "tag:yaml.org,2002:bool" || tag == "!!bool") {
      type = PlainType::kBool;
    } else if (tag == "tag:yaml.org,2002:null" || tag == "!!null") {
      type = PlainType::kNull;
    } else {
      type = PlainType::kString;  // custom tags carry no meaning for Kubernetes objects
    }
    switch (type) {
      case PlainType::kNull:
        *out = nullptr;
        return true;
      case PlainType::kBool:
        if (s == "true" || s == "True" || s == "TRUE") *out = true;
        else if (s == "false" || s == "False" || s == "FALSE") *out = false;
        else return Fail(path, "\"" + s + "\" is not a boolean");
        return true;
      case PlainType::kInt:
        return Integer(s, path, out);
      case PlainType::kFloat:
        return Float(s, path, out);
      case PlainType::kString:
        *out = s;
        return true;
    }
    return true;
  }

  bool Integer(const std::string& s, const std::string& path, Json* out) {
    int base = 10;
    std::string_view digits = s;
    bool negative = false;
    if (digits.substr(0, 2) == "0o") base = 8, digits.remove_prefix(2);
    else if (digits.substr(0, 2) == "0x") base = 16, digits.remove_prefix(2);
    else if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    if (ec == std::errc() && ptr == digits.data() + digits.size()) {
      if (!negative && magnitude <= static_cast<uint64_t>(INT64_MAX)) {
        *out = static_cast<int64_t>(magnitude);
        return true;
      }
      if (negative && magnitude <= static_cast<uint64_t>(INT64_MAX) + 1) {
        *out = magnitude == static_cast<uint64_t>(INT64_MAX) + 1 ? INT64_MIN
                                                                 : -static_cast<int64_t>(magnitude);
        return true;
      }
      if (!negative) {
        *out = magnitude;
        return true;
      }
    }
    return Fail(path, s + " is out of range for a 64-bit integer");
  }

  bool Float(const std::string& s, const std::string& path, Json* out) {
    if (s.find_first_of("nN") != std::string::npos || s.find_first_of("iI") != std::string::npos) {
      return Fail(path, s + " is not a finite number");
    }
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return Fail(path, "\"" + s + "\" is not a number");
    if (!std::isfinite(d) || (errno == ERANGE && std::fabs(d) > 1)) {
      return Fail(path, s + " is out of range for a number");
    }
    *out = d;
    return true;
  }

  size_t nodes_ = 0;
  std::string error_;
  std::string error_path_;
};

// The deepest [ / { nesting in `text`, outside quoted scalars and comments. yaml-cpp and the
// JSON tree both recurse per level, so hostile nesting is refused before either sees it.
int FlowDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  char prev = '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool at_token_start = prev == '\n' || prev == ' ' || prev == '\t' || prev == '[' ||
                          prev == '{' || prev == ',' || prev == ':';
    if ((c == '"' || c == '\'') && at_token_start) {
      for (++i; i < text.size(); ++i) {
        if (c == '"' && text[i] == '\\') {
          ++i;
        } else if (text[i] == c) {
          if (c == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
            ++i;
            continue;
          }
          break;
        }
      }
    } else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
      while (i < text.size() && text[i] != '\n') ++i;
      c = '\n';
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    prev = c;
  }
  return max_depth;
}

// The 1-based document that contains 0-based `line`: one more than the "---" markers above it,
// not counting a marker that opens the first document.
int DocumentOfLine(std::string_view text, int line) {
  int doc = 1, current = 0;
  bool content_seen = false;
  size_t pos = 0;
  while (pos < text.size() && current < line) {
    size_t eol = text.find('\n', pos);
    std::string_view l = text.substr(pos, eol == std::string_view::npos ? text.size() - pos : eol - pos);
    bool marker = l.substr(0, 3) == "---" && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker) {
      if (content_seen) ++doc;
      content_seen = true;  // an opening marker starts the first document
    } else {
      size_t first = l.find_first_not_of(" \t\r");
      if (first != std::string_view::npos && l[first] != '#') content_seen = true;
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
    ++current;
  }
  return doc;
}

bool LooksLikeJson(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return false;
  if (text.substr(first, 3) == "\xEF\xBB\xBF") return false;
  return text[first] == '{' || text[first] == '[';
}

// nlohmann's tree is built iteratively, so depth is checked after FlowDepth already bounded it.
core::Result<std::vector<ParsedDocument>> ParseJson(std::string_view text) {
  std::vector<ParsedDocument> docs;
  ParsedDocument doc;
  try {
    doc.value = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ..." -> keep the tail.
    size_t at = what.find("parse error");
    return core::Status::Invalid(at == std::string::npos ? what : what.substr(at));
  } catch (const Json::out_of_range& e) {
    // A number beyond double's range ("1e400"): nlohmann throws out_of_range.406, not a
    // parse_error, and an uncaught one aborted `plan -f`. Failing here hands the text to the
    // YAML reader, which reports the number with its field path as for any YAML document.
    return core::Status::Invalid(e.what());
  }
  docs.push_back(std::move(doc));
  return docs;
}

// Plain-scalar safety for the emitter: text a YAML reader takes back as the same string.
bool PlainSafe(const std::string& s) {
  if (s.empty() || s.size() > 1000) return false;
  if (ResolvePlain(s) != PlainType::kString) return false;
  static const char* kYaml11 =
      "|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|";  // kubectl's YAML 1.1 reading
  if (std::string(kYaml11).find("|" + s + "|") != std::string::npos) return false;
  // A YAML 1.1 timestamp ("2024-01-01T01:01:01Z", "2024-01-01") is read back as a date by
  // PyYAML and other 1.1 readers, not as the string it is.
  auto digit = [&](size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); };
  if (digit(0) && digit(1) && digit(2) && digit(3) && s.size() > 5 && s[4] == '-' && digit(5)) {
    return false;
  }
  // "..." then a blank or the end, first on a line, is a document end marker: a string document
  // or a top-level key so spelt would read back as the end of an empty document.
  if (s.compare(0, 3, "...") == 0 && (s.size() == 3 || s[3] == ' ')) return false;
  char first = s[0];
  if (!(std::isalnum(static_cast<unsigned char>(first)) || first == '_' || first == '.' ||
        first == '/' || first == '(')) {
    return false;
  }
  if (s.back() == ' ' || s.back() == ':') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c < 0x20 || c == 0x7f) return false;
    if (c == ':' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
    // Indicators like '%', '@', '&' or '!' only matter first, and the first character is
    // already restricted; flow indicators and quotes are quoted to stay clear of flow context.
    if (c == '"' || c == '\'' || c == '\\' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',') {
      return false;
    }
  }
  return true;
}

std::string EmitScalar(const Json& v) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    return PlainSafe(s) ? s : Json(s).dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  if (v.is_null()) return "null";
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  return v.dump();
}

void Emit(const Json& v, int indent, std::ostringstream& out);

constexpr size_t kMaxImplicitKey = 1024;

void EmitMapEntries(const Json& obj, int indent, bool first_inline, std::ostringstream& out) {
  bool first = true;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (!(first && first_inline)) out << std::string(indent, ' ');
    first = false;
    const std::string key = EmitScalar(Json(it.key()));
    if (key.size() > kMaxImplicitKey) {
      // YAML reads at most 1024 characters as an implicit key: a longer one is an explicit key,
      // "? key" with ": value" on the next line.
      out << "? " << key << "\n" << std::string(indent, ' ') << ":";
    } else {
      out << key << ":";
    }
    const Json& child = it.value();
    if (child.is_object() && !child.empty()) {
      out << "\n";
      EmitMapEntries(child, indent + 2, false, out);
    } else if (child.is_array() && !child.empty()) {
      out << "\n";
      Emit(child, indent, out);  // list items sit at the key's indentation, as kubectl prints them
    } else {
      out << " " << EmitScalar(child) << "\n";
    }
  }
}

void Emit(const Json& v, int indent, std::ostringstream& out) {
  if (v.is_object() && !v.empty()) {
    EmitMapEntries(v, indent, false, out);
  } else if (v.is_array() && !v.empty()) {
    for (const Json& item : v) {
      out << std::string(indent, ' ') << "-";
      if (item.is_object() && !item.empty()) {
        out << " ";
        EmitMapEntries(item, indent + 2, true, out);
      } else if (item.is_array() && !item.empty()) {
        out << "\n";
        Emit(item, indent + 2, out);
      } else {
        out << " " << EmitScalar(item) << "\n";
      }
    }
  } else {
    out << std::string(indent, ' ') << EmitScalar(v) << "\n";
  }
}

}  // namespace

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string JoinPath(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

namespace {

// Watches the documents of one event pass for the one way yaml-cpp 0.7's LoadAll never ends: a
// token no rule consumes (a `,` where a block node begins) makes every further document an empty
// one at the same place, forever, each adding a node (yaml-cpp issue #1040).
class StuckDocumentDetector : public YAML::EventHandler {
 public:
  // True once two documents in a row were nothing but a null at the same mark.
  bool stuck() const { return stuck_; }
  const YAML::Mark& mark() const { return mark_; }

  void OnDocumentStart(const YAML::Mark&) override { events_ = 0; }
  void OnDocumentEnd() override {
    if (events_ == 1 && null_) {
      stuck_ = had_null_document_ && SameMark(null_mark_, mark_);
      mark_ = null_mark_;
      had_null_document_ = true;
    } else {
      had_null_document_ = false;
    }
  }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { Event(true, mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Event(false, mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    Event(false, mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    Event(false, mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Event(false, mark);
  }
  void OnMapEnd() override {}

 private:
  static bool SameMark(const YAML::Mark& a, const YAML::Mark& b) {
    return a.pos == b.pos && a.line == b.line && a.column == b.column;
  }
  void Event(bool null, const YAML::Mark& mark) {
    ++events_;
    null_ = null;
    null_mark_ = mark;
  }

  int events_ = 0;
  bool null_ = false;
  YAML::Mark null_mark_;
  YAML::Mark mark_;
  bool had_null_document_ = false;
  bool stuck_ = false;
};

// Returns when LoadAll of `text` would end: every document moves the parser on. Otherwise throws
// the YAML error LoadAll should have thrown, at the place where the parser stops moving.
void ThrowWhereLoadAllWouldNotEnd(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StuckDocumentDetector detector;
  while (parser.HandleNextDocument(detector)) {
    if (!detector.stuck()) continue;
    const YAML::Mark& m = detector.mark();
    const char c = m.pos >= 0 && static_cast<size_t>(m.pos) < text.size() ? text[m.pos] : ' ';
    throw YAML::ParserException(m, std::string("unexpected '") + c + "' where a node should begin");
  }
}

}  // namespace

core::Result<std::vector<ParsedDocument>> ParseDocuments(std::string_view text) {
  if (int depth = FlowDepth(text); depth > kMaxDepth) {
    return core::Status::Invalid("nesting is " + std::to_string(depth) + " levels deep; at most " +
                                 std::to_string(kMaxDepth) + " are allowed");
  }
  if (LooksLikeJson(text)) {
    auto json = ParseJson(text);
    if (json.ok()) return json;
    // Not a single JSON value; it may still be YAML in flow style (several documents).
  }
  std::vector<YAML::Node> nodes;
  try {
    std::string owned(text);
    ThrowWhereLoadAllWouldNotEnd(owned);
    nodes = YAML::LoadAll(owned);
  } catch (const YAML::Exception& e) {
    int line = e.mark.line, column = e.mark.column;
    std::string where = line >= 0 ? "document " + std::to_string(DocumentOfLine(text, line)) +
                                        ": line " + std::to_string(line + 1) + ", column " +
                                        std::to_string(column + 1) + ": "
                                  : "";
    std::string hint;
    if (line >= 0) {
      size_t pos = 0;
      for (int l = 0; l < line && pos != std::string_view::npos; ++l) {
        pos = text.find('\n', pos);
        if (pos != std::string_view::npos) ++pos;
      }
      if (pos != std::string_view::npos && pos < text.size() && text[pos] == '\t') {
        hint = " (tabs cannot indent YAML; use spaces)";
      }
    }
    return core::Status::Invalid(where + "invalid YAML: " + e.msg + hint);
  }
  std::vector<ParsedDocument> docs;
  docs.reserve(nodes.size());
  for (const YAML::Node& node : nodes) {
    ParsedDocument doc;
    Converter converter;
    if (!converter.Convert(node, "", 0, &doc.value)) {
      doc.error = converter.error();
      doc.error_path = converter.error_path();
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

std::string EmitYaml(const nlohmann::ordered_json& value) {
  std::ostringstream out;
  Emit(value, 0, out);
  return out.str();
}

}  // namespace nodesmith::api
