#include "cloud/aws/toml.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>

namespace nodesmith::aws {

using core::Result;
using core::Status;
using core::StatusCode;

// --- TOML reader ----------------------------------------------------------------------------

namespace {

using TomlPath = std::vector<std::string>;

std::string PathText(const TomlPath& path) {
  std::string out;
  for (const auto& p : path) {
    if (!out.empty()) out += '.';
    out += p;
  }
  return out;
}

bool IsBareKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

void AppendUtf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A recursive-descent reader over the whole text. Besides the tables it builds it keeps the
// bookkeeping TOML's redefinition rules need: which tables a [header] defined, which dotted keys
// created (globally, and in the current section, the only place dotted keys may extend them),
// and which values are inline tables, which nothing may extend.
class TomlReader {
 public:
  explicit TomlReader(std::string text) : text_(std::move(text)) {}

  Result<TomlTable> Read() {
    current_ = &root_;
    while (pos_ < text_.size()) {
      SkipBlanks();
      if (pos_ >= text_.size()) break;
      char c = text_[pos_];
      if (c == '#') {
        NS_RETURN_IF_ERROR(SkipComment());
      } else if (c == '\n') {
        ++pos_;
      } else if (c == '[') {
        NS_RETURN_IF_ERROR(ReadHeader());
      } else {
        depth_ = current_path_.size();
        NS_RETURN_IF_ERROR(ReadKeyValue(*current_, current_path_, section_dotted_, true));
        NS_RETURN_IF_ERROR(ExpectLineEnd());
      }
    }
    return std::move(root_);
  }

 private:
  // Whether a value `depth` levels below the root may be read: the reader and the writer recurse
  // once per level, and the redefinition bookkeeping keeps every prefix of a dotted key.
  Status CheckDepth(size_t depth) const {
    if (depth <= static_cast<size_t>(kMaxTomlDepth)) return Status::Ok();
    return Error("nesting is deeper than " + std::to_string(kMaxTomlDepth) + " levels");
  }

  Status Error(const std::string& what) const {
    int line = 1 + static_cast<int>(std::count(text_.begin(), text_.begin() + std::min(pos_, text_.size()), '\n'));
    return Status::Invalid("line " + std::to_string(line) + ": " + what);
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool LookingAt(std::string_view s) const { return text_.compare(pos_, s.size(), s) == 0; }

  void SkipBlanks() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) ++pos_;
  }

  Status SkipComment() {
    while (!AtEnd() && Peek() != '\n') {
      auto c = static_cast<unsigned char>(Peek());
      if ((c < 0x20 && c != '\t') || c == 0x7f) return Error("control character in a comment");
      ++pos_;
    }
    return Status::Ok();
  }

  // Blanks, comments and newlines, as allowed between the values of an array.
  Status SkipBlanksCommentsNewlines() {
    while (!AtEnd()) {
      SkipBlanks();
      if (Peek() == '#') {
        NS_RETURN_IF_ERROR(SkipComment());
      } else if (Peek() == '\n') {
        ++pos_;
      } else {
        break;
      }
    }
    return Status::Ok();
  }

  Status ExpectLineEnd() {
    SkipBlanks();
    if (Peek() == '#') NS_RETURN_IF_ERROR(SkipComment());
    if (AtEnd()) return Status::Ok();
    if (Peek() != '\n') return Error(std::string("expected the end of the line, found '") + Peek() + "'");
    ++pos_;
    return Status::Ok();
  }

  // A key, possibly dotted: a.b, "quoted key".'literal key'.
  Status ReadKey(TomlPath* key) {
    while (true) {
      SkipBlanks();
      std::string part;
      if (Peek() == '"') {
        if (LookingAt("\"\"\"")) return Error("a key cannot be a multi-line string");
        NS_RETURN_IF_ERROR(ReadBasicString(&part));
      } else if (Peek() == '\'') {
        if (LookingAt("'''")) return Error("a key cannot be a multi-line string");
        NS_RETURN_IF_ERROR(ReadLiteralString(&part));
      } else {
        while (!AtEnd() && IsBareKeyChar(Peek())) part += text_[pos_++];
        if (part.empty()) {
          if (AtEnd() || Peek() == '\n') return Error("expected a key");
          return Error(std::string("expected a key, found '") + Peek() + "'");
        }
      }
      key->push_back(std::move(part));
      SkipBlanks();
      if (Peek() != '.') return Status::Ok();
      ++pos_;
    }
  }

  Status ReadHeader() {
    ++pos_;  // '['
    if (Peek() == '[') return Error("arrays of tables ([[...]]) are not supported");
    TomlPath key;
    NS_RETURN_IF_ERROR(ReadKey(&key));
    NS_RETURN_IF_ERROR(CheckDepth(key.size()));
    if (Peek() != ']') return Error("expected ']' to close the table header");
    ++pos_;
    NS_RETURN_IF_ERROR(ExpectLineEnd());
    TomlTable* t = &root_;
    TomlPath path;
    for (const auto& part : key) {
      path.push_back(part);
      auto [it, inserted] = t->try_emplace(part, TomlTable{});
      if (!it->second.is_table()) return Error("'" + PathText(path) + "' is a value, not a table");
      if (inline_.count(path)) return Error("'" + PathText(path) + "' is an inline table and cannot be extended");
      t = &it->second.table();
    }
    if (headers_.count(path)) return Error("table [" + PathText(path) + "] is defined twice");
    if (dotted_.count(path)) return Error("table [" + PathText(path) + "] was already defined by dotted keys");
    headers_.insert(path);
    current_ = t;
    current_path_ = path;
    section_dotted_.clear();
    return Status::Ok();
  }

  // key = value into `base` (at `base_path`). Dotted keys may create tables, or extend the
  // ones they created in the same section (`scope`); `global` is false inside inline tables,
  // whose paths are their own.
  Status ReadKeyValue(TomlTable& base, const TomlPath& base_path, std::set<TomlPath>& scope, bool global) {
    TomlPath key;
    NS_RETURN_IF_ERROR(ReadKey(&key));
    NS_RETURN_IF_ERROR(CheckDepth(depth_ + key.size()));
    if (Peek() != '=') {
      return Error("expected '=' after the key '" + PathText(key) + "'");
    }
    ++pos_;
    SkipBlanks();
    TomlValue value;
    const size_t container_depth = depth_;
    depth_ += key.size();
    NS_RETURN_IF_ERROR(ReadValue(&value));
    depth_ = container_depth;
    TomlTable* t = &base;
    TomlPath path = base_path;
    for (size_t i = 0; i + 1 < key.size(); ++i) {
      path.push_back(key[i]);
      auto it = t->find(key[i]);
      if (it == t->end()) {
        it = t->emplace(key[i], TomlTable{}).first;
        scope.insert(path);
        if (global) dotted_.insert(path);
      } else if (!it->second.is_table()) {
        return Error("'" + PathText(path) + "' is a value, not a table");
      } else if (!scope.count(path)) {
        return Error("table '" + PathText(path) + "' is already defined; dotted keys cannot extend it here");
      }
      t = &it->second.table();
    }
    path.push_back(key.back());
    if (t->count(key.back())) return Error("key '" + PathText(path) + "' is defined twice");
    bool is_table = value.is_table();
    t->emplace(key.back(), std::move(value));
    if (is_table && global) inline_.insert(path);
    return Status::Ok();
  }

  Status ReadValue(TomlValue* out) {
    if (AtEnd() || Peek() == '\n') return Error("expected a value");
    char c = Peek();
    if (c == '"') {
      std::string s;
      NS_RETURN_IF_ERROR(LookingAt("\"\"\"") ? ReadMultilineBasicString(&s) : ReadBasicString(&s));
      *out = std::move(s);
      return Status::Ok();
    }
    if (c == '\'') {
      std::string s;
      NS_RETURN_IF_ERROR(LookingAt("'''") ? ReadMultilineLiteralString(&s) : ReadLiteralString(&s));
      *out = std::move(s);
      return Status::Ok();
    }
    if (c == '[') return ReadArray(out);
    if (c == '{') return ReadInlineTable(out);
    // A bare token: a boolean or a number (and what this reader declines: floats, dates).
    size_t start = pos_;
    while (!AtEnd() && (std::isalnum(static_cast<unsigned char>(Peek())) ||
                        std::string_view("_+-.:").find(Peek()) != std::string_view::npos)) {
      ++pos_;
    }
    std::string token = text_.substr(start, pos_ - start);
    if (token.empty()) return Error(std::string("expected a value, found '") + c + "'");
    if (token == "true" || token == "false") {
      *out = token == "true";
      return Status::Ok();
    }
    return ParseInteger(token, start, out);
  }

  Status ParseInteger(const std::string& token, size_t start, TomlValue* out) {
    pos_ = start;  // errors point at the token
    std::string_view t = token;
    bool negative = false;
    if (t[0] == '+' || t[0] == '-') {
      negative = t[0] == '-';
      t.remove_prefix(1);
    }
    std::string_view unsigned_part = t;
    if (t == "inf" || t == "nan") return Error("floats are not supported ('" + token + "')");
    if (t.size() > 4 && std::isdigit(static_cast<unsigned char>(t[0])) &&
        (t.find('-') != std::string_view::npos || t.find(':') != std::string_view::npos)) {
      return Error("dates and times are not supported ('" + token + "')");
    }
    int base = 10;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'o' || t[1] == 'b')) {
      if (token[0] == '+' || token[0] == '-') return Error("a sign is not allowed on '" + token + "'");
      base = t[1] == 'x' ? 16 : t[1] == 'o' ? 8 : 2;
      t.remove_prefix(2);
    } else if (t.find_first_of(".eE") != std::string_view::npos &&
               t.find_first_not_of("0123456789_.eE+-") == std::string_view::npos) {
      return Error("floats are not supported ('" + token + "')");
    }
    if (base == 10 && unsigned_part.size() > 1 && unsigned_part[0] == '0') {
      return Error("leading zeros are not allowed in '" + token + "'");
    }
    // Digits, with each '_' between two digits; the value accumulates negatively so that
    // INT64_MIN is representable.
    int64_t value = 0;
    bool last_digit = false;
    for (char ch : t) {
      if (ch == '_') {
        if (!last_digit) return Error("misplaced '_' in '" + token + "'");
        last_digit = false;
        continue;
      }
      int d = -1;
      if (ch >= '0' && ch <= '9') d = ch - '0';
      else if (ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
      else if (ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
      if (d < 0 || d >= base) return Error("'" + token + "' is not a value this reader supports");
      if (value < (INT64_MIN + d) / base) return Error("'" + token + "' does not fit in 64 bits");
      value = value * base - d;
      last_digit = true;
    }
    if (!last_digit) return Error("'" + token + "' is not a valid integer");
    if (!negative) {
      if (value == INT64_MIN) return Error("'" + token + "' does not fit in 64 bits");
      value = -value;
    }
    pos_ = start + token.size();
    *out = value;
    return Status::Ok();
  }

  Status ReadArray(TomlValue* out) {
    ++pos_;  // '['
    NS_RETURN_IF_ERROR(CheckDepth(++depth_));
    TomlArray array;
    while (true) {
      NS_RETURN_IF_ERROR(SkipBlanksCommentsNewlines());
      if (AtEnd()) return Error("unterminated array");
      if (Peek() == ']') break;
      TomlValue v;
      NS_RETURN_IF_ERROR(ReadValue(&v));
      array.push_back(std::move(v));
      NS_RETURN_IF_ERROR(SkipBlanksCommentsNewlines());
      if (Peek() == ',') {
        ++pos_;
      } else if (Peek() != ']') {
        return AtEnd() ? Error("unterminated array") : Error("expected ',' or ']' in an array");
      }
    }
    ++pos_;
    --depth_;
    *out = std::move(array);
    return Status::Ok();
  }

  Status ReadInlineTable(TomlValue* out) {
    ++pos_;  // '{'
    TomlTable table;
    std::set<TomlPath> scope;
    SkipBlanks();
    if (Peek() == '}') {
      ++pos_;
      *out = std::move(table);
      return Status::Ok();
    }
    while (true) {
      NS_RETURN_IF_ERROR(ReadKeyValue(table, {}, scope, false));
      SkipBlanks();
      if (Peek() == ',') {
        ++pos_;
        SkipBlanks();
        if (Peek() == '}') return Error("a trailing ',' is not allowed in an inline table");
      } else if (Peek() == '}') {
        ++pos_;
        break;
      } else {
        return Error("expected ',' or '}' in an inline table (which must fit on one line)");
      }
    }
    *out = std::move(table);
    return Status::Ok();
  }

  Status CheckStringChar(char c) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t' && c != '\n') || u == 0x7f) return Error("control character in a string");
    return Status::Ok();
  }

  Status ReadEscape(std::string* out) {
    ++pos_;  // '\'
    if (AtEnd()) return Error("unterminated string");
    char e = text_[pos_++];
    switch (e) {
      case 'b': *out += '\b'; return Status::Ok();
      case 't': *out += '\t'; return Status::Ok();
      case 'n': *out += '\n'; return Status::Ok();
      case 'f': *out += '\f'; return Status::Ok();
      case 'r': *out += '\r'; return Status::Ok();
      case '"': *out += '"'; return Status::Ok();
      case '\\': *out += '\\'; return Status::Ok();
      case 'u':
      case 'U': {
        size_t digits = e == 'u' ? 4 : 8;
        if (pos_ + digits > text_.size()) return Error("short \\u escape");
        uint32_t cp = 0;
        for (size_t i = 0; i < digits; ++i) {
          char h = text_[pos_ + i];
          if (!std::isxdigit(static_cast<unsigned char>(h))) return Error("bad hex digit in a \\u escape");
          cp = cp * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : std::tolower(h) - 'a' + 10);
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("\\u escape is not a Unicode scalar value");
        pos_ += digits;
        AppendUtf8(cp, *out);
        return Status::Ok();
      }
      default:
        --pos_;
        return Error(std::string("unknown escape '\\") + e + "'");
    }
  }

  Status ReadBasicString(std::string* out) {
    ++pos_;  // '"'
    while (true) {
      if (AtEnd() || Peek() == '\n') return Error("unterminated string");
      char c = Peek();
      if (c == '"') {
        ++pos_;
        return Status::Ok();
      }
      if (c == '\\') {
        NS_RETURN_IF_ERROR(ReadEscape(out));
        continue;
      }
      NS_RETURN_IF_ERROR(CheckStringChar(c));
      *out += c;
      ++pos_;
    }
  }

  Status ReadLiteralString(std::string* out) {
    ++pos_;  // '\''
    while (true) {
      if (AtEnd() || Peek() == '\n') return Error("unterminated string");
      char c = Peek();
      if (c == '\'') {
        ++pos_;
        return Status::Ok();
      }
      NS_RETURN_IF_ERROR(CheckStringChar(c));
      *out += c;
      ++pos_;
    }
  }

  // At `quote` x3: consumes the closing run. Up to two quotes before the closing three belong
  // to the content ("""a"""" is a").
  bool CloseMultiline(char quote, std::string* out) {
    size_t n = 0;
    while (Peek(n) == quote) ++n;
    if (n < 3) return false;
    if (n > 5) n = 5;  // the sixth quote is an error the caller's next token reports
    out->append(n - 3, quote);
    pos_ += n;
    return true;
  }

  Status ReadMultilineBasicString(std::string* out) {
    pos_ += 3;
    if (Peek() == '\n') ++pos_;  // a newline right after the opening quotes is not content
    while (true) {
      if (AtEnd()) return Error("unterminated multi-line string");
      char c = Peek();
      if (c == '"' && CloseMultiline('"', out)) return Status::Ok();
      if (c == '\\') {
        // A backslash ending a line joins it to the next, dropping the whitespace between.
        size_t j = pos_ + 1;
        while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t')) ++j;
        if (j < text_.size() && text_[j] == '\n') {
          pos_ = j;
          while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n')) ++pos_;
          continue;
        }
        NS_RETURN_IF_ERROR(ReadEscape(out));
        continue;
      }
      NS_RETURN_IF_ERROR(CheckStringChar(c));
      *out += c;
      ++pos_;
    }
  }

  Status ReadMultilineLiteralString(std::string* out) {
    pos_ += 3;
    if (Peek() == '\n') ++pos_;
    while (true) {
      if (AtEnd()) return Error("unterminated multi-line string");
      char c = Peek();
      if (c == '\'' && CloseMultiline('\'', out)) return Status::Ok();
      NS_RETURN_IF_ERROR(CheckStringChar(c));
      *out += c;
      ++pos_;
    }
  }

  std::string text_;
  size_t pos_ = 0;
  TomlTable root_;
  TomlTable* current_ = nullptr;  // the table the current [header] names; root_ before one
  TomlPath current_path_;
  size_t depth_ = 0;  // levels below the root of the table or array being read into
  std::set<TomlPath> headers_;         // defined by a [header]
  std::set<TomlPath> dotted_;          // created by dotted keys, anywhere
  std::set<TomlPath> section_dotted_;  // created by dotted keys since the last [header]
  std::set<TomlPath> inline_;          // inline tables, closed to further keys
};

// --- TOML writer ----------------------------------------------------------------------------

std::string TomlString(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 15];
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string TomlKey(std::string_view k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), IsBareKeyChar);
  return bare ? std::string(k) : TomlString(k);
}

std::string TomlInline(const TomlValue& v) {
  struct Visitor {
    std::string operator()(const std::string& s) const { return TomlString(s); }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const TomlArray& a) const {
      std::string out = "[";
      for (size_t i = 0; i < a.size(); ++i) out += (i ? ", " : "") + TomlInline(a[i]);
      return out + "]";
    }
    std::string operator()(const TomlTable& t) const {
      if (t.empty()) return "{}";
      std::string out = "{ ";
      bool first = true;
      for (const auto& [k, val] : t) {
        out += (first ? "" : ", ") + TomlKey(k) + " = " + TomlInline(val);
        first = false;
      }
      return out + " }";
    }
  };
  return std::visit(Visitor{}, v.value);
}

void WriteTomlTable(const TomlPath& path, const TomlTable& table, std::string& out) {
  bool has_values = std::any_of(table.begin(), table.end(), [](const auto& kv) { return !kv.second.is_table(); });
  if (!path.empty() && (has_values || table.empty())) {
    if (!out.empty()) out += '\n';
    out += "[";
    for (size_t i = 0; i < path.size(); ++i) out += (i ? "." : "") + TomlKey(path[i]);
    out += "]\n";
  }
  for (const auto& [k, v] : table) {
    if (!v.is_table()) out += TomlKey(k) + " = " + TomlInline(v) + "\n";
  }
  for (const auto& [k, v] : table) {
    if (!v.is_table()) continue;
    TomlPath sub = path;
    sub.push_back(k);
    WriteTomlTable(sub, v.table(), out);
  }
}

}  // namespace

Result<TomlTable> ParseToml(std::string_view text) {
  // CRLF is a newline in TOML; folding it first keeps every rule below about '\n' alone. A lone
  // CR stays, and is rejected as a control character wherever it appears.
  std::string normalized;
  normalized.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    normalized += text[i];
  }
  return TomlReader(std::move(normalized)).Read();
}

std::string WriteToml(const TomlTable& root) {
  std::string out;
  WriteTomlTable({}, root, out);
  return out;
}

}  // namespace nodesmith::aws
