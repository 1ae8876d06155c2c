#include "scheduling/label_selector.h"

#include <algorithm>

#include "scheduling/label_syntax.h"
#include "scheduling/requirement.h"

namespace nodesmith::scheduling {

namespace {

bool ContainsValue(const std::vector<std::string>& values, std::string_view v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::string JoinQuoted(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ' ';
    out += '"' + values[i] + '"';
  }
  return out + "]";
}

// ---- Lexer (k8s.io/apimachinery/pkg/labels Lexer) ----

enum class Tok {
  kError,
  kEnd,
  kClosedPar,
  kComma,
  kDoesNotExist,  // "!"
  kDoubleEquals,
  kEquals,
  kGreaterThan,
  kIdentifier,
  kIn,
  kLessThan,
  kNotEquals,
  kNotIn,
  kOpenPar,
};

struct Token {
  Tok tok;
  std::string literal;
};

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool IsSpecialSymbol(char c) {
  switch (c) {
    case '=': case '!': case '(': case ')': case ',': case '>': case '<':
      return true;
    default:
      return false;
  }
}

std::optional<Tok> SymbolToken(std::string_view s) {
  if (s == ")") return Tok::kClosedPar;
  if (s == ",") return Tok::kComma;
  if (s == "!") return Tok::kDoesNotExist;
  if (s == "==") return Tok::kDoubleEquals;
  if (s == "=") return Tok::kEquals;
  if (s == ">") return Tok::kGreaterThan;
  if (s == "<") return Tok::kLessThan;
  if (s == "!=") return Tok::kNotEquals;
  if (s == "(") return Tok::kOpenPar;
  return std::nullopt;
}

std::vector<Token> Lex(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (true) {
    while (i < s.size() && IsWhitespace(s[i])) ++i;
    if (i >= s.size()) {
      out.push_back({Tok::kEnd, ""});
      return out;
    }
    if (IsSpecialSymbol(s[i])) {
      // The longest run of symbols that still forms a token ("!=" rather than "!", "=").
      std::string buffer;
      std::optional<Token> last;
      while (i < s.size() && IsSpecialSymbol(s[i])) {
        buffer += s[i];
        if (std::optional<Tok> t = SymbolToken(buffer)) {
          last = Token{*t, buffer};
          ++i;
        } else if (last) {
          break;
        } else {
          ++i;
        }
      }
      if (!last) {
        out.push_back({Tok::kError, "error expected: keyword found '" + buffer + "'"});
        return out;
      }
      out.push_back(*last);
      continue;
    }
    size_t start = i;
    while (i < s.size() && !IsWhitespace(s[i]) && !IsSpecialSymbol(s[i])) ++i;
    std::string word(s.substr(start, i - start));
    if (word == "in") {
      out.push_back({Tok::kIn, word});
    } else if (word == "notin") {
      out.push_back({Tok::kNotIn, word});
    } else {
      out.push_back({Tok::kIdentifier, word});
    }
  }
}

// ---- Parser (labels.Parser) ----

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  core::Result<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> out;
    while (true) {
      Token t = Lookahead(true);
      if (t.tok == Tok::kEnd) return out;
      if (t.tok != Tok::kIdentifier && t.tok != Tok::kDoesNotExist) {
        return Error("found '" + t.literal + "', expected: !, identifier, or 'end of string'");
      }
      core::Result<LabelRequirement> r = ParseRequirement();
      if (!r.ok()) return r.status().WithPrefix("unable to parse requirement");
      out.push_back(std::move(r).value());
      Token next = Consume(true);
      if (next.tok == Tok::kEnd) return out;
      if (next.tok != Tok::kComma) {
        return Error("found '" + next.literal + "', expected: ',' or 'end of string'");
      }
      Token after = Lookahead(true);
      if (after.tok != Tok::kIdentifier && after.tok != Tok::kDoesNotExist) {
        return Error("found '" + after.literal + "', expected: identifier after ','");
      }
    }
  }

 private:
  static core::Status Error(std::string m) { return core::Status::Invalid(std::move(m)); }

  // In the "values" context the keywords in/notin are plain identifiers.
  Token Lookahead(bool values) const {
    Token t = tokens_[pos_];
    if (values && (t.tok == Tok::kIn || t.tok == Tok::kNotIn)) t.tok = Tok::kIdentifier;
    return t;
  }
  Token Consume(bool values) {
    Token t = Lookahead(values);
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }

  core::Result<LabelRequirement> ParseRequirement() {
    SelectorOp op = SelectorOp::kUnset;
    Token t = Consume(true);
    if (t.tok == Tok::kDoesNotExist) {
      op = SelectorOp::kDoesNotExist;
      t = Consume(true);
    }
    if (t.tok != Tok::kIdentifier) return Error("found '" + t.literal + "', expected: identifier");
    std::string key = t.literal;
    if (std::string why = QualifiedNameError(key); !why.empty()) {
      return Error("key: Invalid value: \"" + key + "\": " + why);
    }
    Tok next = Lookahead(true).tok;
    if (next == Tok::kEnd || next == Tok::kComma) {
      if (op != SelectorOp::kDoesNotExist) op = SelectorOp::kExists;
      return LabelRequirement::Make(key, op, {});
    }
    if (op == SelectorOp::kDoesNotExist) {
      // "!k=v": the clause ends at the key and the caller then rejects the "=", as upstream.
      return LabelRequirement::Make(key, op, {});
    }
    Token o = Consume(false);
    switch (o.tok) {
      case Tok::kIn: op = SelectorOp::kIn; break;
      case Tok::kNotIn: op = SelectorOp::kNotIn; break;
      case Tok::kEquals: op = SelectorOp::kEquals; break;
      case Tok::kDoubleEquals: op = SelectorOp::kDoubleEquals; break;
      case Tok::kNotEquals: op = SelectorOp::kNotEquals; break;
      case Tok::kGreaterThan: op = SelectorOp::kGreaterThan; break;
      case Tok::kLessThan: op = SelectorOp::kLessThan; break;
      default:
        return Error("found '" + o.literal + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::vector<std::string> values;
    if (op == SelectorOp::kIn || op == SelectorOp::kNotIn) {
      NS_RETURN_IF_ERROR(ParseValues(values));
    } else {
      NS_RETURN_IF_ERROR(ParseExactValue(values));
    }
    return LabelRequirement::Make(key, op, std::move(values));
  }

  core::Status ParseValues(std::vector<std::string>& values) {
    Token t = Consume(true);
    if (t.tok != Tok::kOpenPar) return Error("found '" + t.literal + "' expected: '('");
    Token next = Lookahead(true);
    if (next.tok == Tok::kClosedPar) {  // "()" is the set {""}
      Consume(true);
      values.push_back("");
      return core::Status::Ok();
    }
    if (next.tok != Tok::kIdentifier && next.tok != Tok::kComma) {
      return Error("found '" + next.literal + "', expected: ',', ')' or identifier");
    }
    NS_RETURN_IF_ERROR(ParseIdentifiersList(values));
    Token close = Consume(true);
    if (close.tok != Tok::kClosedPar) return Error("found '" + close.literal + "', expected: ')'");
    return core::Status::Ok();
  }

  // Empty items ("(a,,b)", "(,a)", "(a,)") are the empty string, as upstream.
  core::Status ParseIdentifiersList(std::vector<std::string>& values) {
    while (true) {
      Token t = Consume(true);
      if (t.tok == Tok::kIdentifier) {
        values.push_back(t.literal);
        Token next = Lookahead(true);
        if (next.tok == Tok::kComma) continue;
        if (next.tok == Tok::kClosedPar) return core::Status::Ok();
        return Error("found '" + next.literal + "', expected: ',' or ')'");
      }
      if (t.tok == Tok::kComma) {
        if (values.empty()) values.push_back("");
        Token next = Lookahead(true);
        if (next.tok == Tok::kClosedPar) {
          values.push_back("");
          return core::Status::Ok();
        }
        if (next.tok == Tok::kComma) {
          Consume(true);
          values.push_back("");
        }
        continue;
      }
      return Error("found '" + t.literal + "', expected: ',', or identifier");
    }
  }

  core::Status ParseExactValue(std::vector<std::string>& values) {
    Token next = Lookahead(true);
    if (next.tok == Tok::kEnd || next.tok == Tok::kComma) {  // "k=" means the empty value
      values.push_back("");
      return core::Status::Ok();
    }
    Token t = Consume(true);
    if (t.tok != Tok::kIdentifier) return Error("found '" + t.literal + "', expected: identifier");
    values.push_back(t.literal);
    return core::Status::Ok();
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

core::Result<LabelRequirement> LabelRequirement::Make(std::string key, SelectorOp op,
                                                      std::vector<std::string> values) {
  if (std::string why = QualifiedNameError(key); !why.empty()) {
    return core::Status::Invalid("key: Invalid value: \"" + key + "\": " + why);
  }
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      if (values.empty()) {
        return core::Status::Invalid(
            "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
      }
      break;
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals:
    case SelectorOp::kNotEquals:
      if (values.size() != 1) {
        return core::Status::Invalid("values: Invalid value: " + JoinQuoted(values) +
                                     ": exact-match compatibility requires one single value");
      }
      break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      if (!values.empty()) {
        return core::Status::Invalid("values: Invalid value: " + JoinQuoted(values) +
                                     ": values set must be empty for exists and does not exist");
      }
      break;
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan:
      if (values.size() != 1) {
        return core::Status::Invalid("values: Invalid value: " + JoinQuoted(values) +
                                     ": for 'Gt', 'Lt' operators, exactly one value is required");
      }
      if (!ParseLabelInt(values[0])) {
        return core::Status::Invalid("values[0]: Invalid value: \"" + values[0] +
                                     "\": for 'Gt', 'Lt' operators, the value must be an integer");
      }
      break;
    case SelectorOp::kUnset:
      return core::Status::Invalid("operator: Unsupported value: \"\"");
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::string why = LabelValueError(values[i]); !why.empty()) {
      return core::Status::Invalid("values[" + std::to_string(i) + "]: Invalid value: \"" +
                                   values[i] + "\": " + why);
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return LabelRequirement{std::move(key), op, std::move(values)};
}

bool LabelRequirement::Matches(const api::Labels& labels) const {
  auto it = labels.find(key);
  bool has = it != labels.end();
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals:
      return has && ContainsValue(values, it->second);
    case SelectorOp::kNotIn:
    case SelectorOp::kNotEquals:
      return !has || !ContainsValue(values, it->second);
    case SelectorOp::kExists:
      return has;
    case SelectorOp::kDoesNotExist:
      return !has;
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan: {
      if (!has || values.size() != 1) return false;
      std::optional<int64_t> label = ParseLabelInt(it->second);
      std::optional<int64_t> bound = ParseLabelInt(values[0]);
      if (!label || !bound) return false;
      return op == SelectorOp::kGreaterThan ? *label > *bound : *label < *bound;
    }
    case SelectorOp::kUnset:
      return false;
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string s;
  if (op == SelectorOp::kDoesNotExist) s += '!';
  s += key;
  std::vector<std::string> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  switch (op) {
    case SelectorOp::kEquals: s += "="; break;
    case SelectorOp::kDoubleEquals: s += "=="; break;
    case SelectorOp::kNotEquals: s += "!="; break;
    case SelectorOp::kIn: s += " in "; break;
    case SelectorOp::kNotIn: s += " notin "; break;
    case SelectorOp::kGreaterThan: s += ">"; break;
    case SelectorOp::kLessThan: s += "<"; break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
    case SelectorOp::kUnset:
      return s;
  }
  bool parens = op == SelectorOp::kIn || op == SelectorOp::kNotIn;
  if (parens) s += '(';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) s += ',';
    s += sorted[i];
  }
  if (parens) s += ')';
  return s;
}

core::Result<Selector> Selector::Parse(std::string_view text) {
  std::vector<Token> tokens = Lex(text);
  if (tokens.back().tok == Tok::kError) {
    return core::Status::Invalid("unable to parse requirement: " + tokens.back().literal);
  }
  core::Result<std::vector<LabelRequirement>> reqs = Parser(std::move(tokens)).Parse();
  if (!reqs.ok()) return reqs.status();
  Selector s = Everything();
  for (LabelRequirement& r : reqs.value()) s.Add(std::move(r));
  return s;
}

core::Result<Selector> Selector::FromApi(const api::LabelSelector* selector) {
  if (selector == nullptr) return Nothing();
  Selector s = Everything();
  for (const auto& [key, value] : selector->match_labels) {
    core::Result<LabelRequirement> r = LabelRequirement::Make(key, SelectorOp::kEquals, {value});
    if (!r.ok()) return r.status();
    s.Add(std::move(r).value());
  }
  for (const api::LabelSelectorRequirement& e : selector->match_expressions) {
    SelectorOp op;
    if (e.op == "In") {
      op = SelectorOp::kIn;
    } else if (e.op == "NotIn") {
      op = SelectorOp::kNotIn;
    } else if (e.op == "Exists") {
      op = SelectorOp::kExists;
    } else if (e.op == "DoesNotExist") {
      op = SelectorOp::kDoesNotExist;
    } else {
      return core::Status::Invalid("\"" + e.op + "\" is not a valid label selector operator");
    }
    core::Result<LabelRequirement> r = LabelRequirement::Make(e.key, op, e.values);
    if (!r.ok()) return r.status();
    s.Add(std::move(r).value());
  }
  return s;
}

void Selector::Add(LabelRequirement r) {
  auto it = std::upper_bound(
      requirements_.begin(), requirements_.end(), r.key,
      [](const std::string& key, const LabelRequirement& x) { return key < x.key; });
  requirements_.insert(it, std::move(r));
}

bool Selector::Matches(const api::Labels& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : requirements_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

std::string Selector::String() const {
  std::string out;
  for (size_t i = 0; i < requirements_.size(); ++i) {
    if (i) out += ',';
    out += requirements_[i].String();
  }
  return out;
}

bool SelectorMatches(const std::optional<api::LabelSelector>& selector,
                     const api::Labels& labels) {
  core::Result<Selector> s = Selector::FromApi(selector);
  return s.ok() && s->Matches(labels);
}

}  // namespace nodesmith::scheduling
