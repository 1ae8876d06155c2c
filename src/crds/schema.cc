#include "crds/schema.h"

namespace nodesmith::crds {

namespace {

using Json = nlohmann::ordered_json;

// The syntax of resource.Quantity: a signed decimal number and an optional binary (Ki..Ei),
// decimal SI (n, u, m, k, M..E) or exponent (e3, E-2) suffix.
constexpr const char* kQuantityPattern =
    R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)";

Json Typed(const char* type) { return Json{{"type", type}}; }

}  // namespace

Schema Schema::Object() { return Schema(Typed("object")); }
Schema Schema::String() { return Schema(Typed("string")); }
Schema Schema::Boolean() { return Schema(Typed("boolean")); }
Schema Schema::Integer() { return Schema(Typed("integer")); }
Schema Schema::Int32() { return Integer().Format("int32"); }
Schema Schema::Int64() { return Integer().Format("int64"); }
Schema Schema::DateTime() { return String().Format("date-time"); }

Schema Schema::Array(const Schema& items) {
  Schema s(Typed("array"));
  s.json_["items"] = items.json_;
  return s;
}

Schema Schema::Map(const Schema& values) {
  Schema s = Object();
  s.json_["additionalProperties"] = values.json_;
  return s;
}

Schema Schema::Quantity() {
  Json j;
  j["anyOf"] = Json::array({Typed("integer"), Typed("string")});
  j["pattern"] = kQuantityPattern;
  j["x-kubernetes-int-or-string"] = true;
  return Schema(std::move(j));
}

Schema Schema::FreeForm() { return Object().PreserveUnknownFields(); }

Schema Schema::Any() { return Schema(Json{{"x-kubernetes-preserve-unknown-fields", true}}); }

Schema& Schema::Description(std::string_view text) {
  json_["description"] = std::string(text);
  return *this;
}

Schema& Schema::Property(const std::string& name, const Schema& schema) {
  json_["properties"][name] = schema.json_;
  return *this;
}

Schema& Schema::Required(const std::vector<std::string>& names) {
  for (const std::string& n : names) json_["required"].push_back(n);
  return *this;
}

Schema& Schema::Enum(const std::vector<std::string>& values) {
  for (const std::string& v : values) json_["enum"].push_back(v);
  return *this;
}

Schema& Schema::Pattern(std::string_view regex) {
  json_["pattern"] = std::string(regex);
  return *this;
}

Schema& Schema::Format(std::string_view format) {
  json_["format"] = std::string(format);
  return *this;
}

Schema& Schema::MinLength(int64_t n) {
  json_["minLength"] = n;
  return *this;
}

Schema& Schema::MaxLength(int64_t n) {
  json_["maxLength"] = n;
  return *this;
}

Schema& Schema::Minimum(int64_t n) {
  json_["minimum"] = n;
  return *this;
}

Schema& Schema::Maximum(int64_t n) {
  json_["maximum"] = n;
  return *this;
}

Schema& Schema::MinItems(int64_t n) {
  json_["minItems"] = n;
  return *this;
}

Schema& Schema::MaxItems(int64_t n) {
  json_["maxItems"] = n;
  return *this;
}

Schema& Schema::MaxProperties(int64_t n) {
  json_["maxProperties"] = n;
  return *this;
}

Schema& Schema::Default(const Json& value) {
  json_["default"] = value;
  return *this;
}

Schema& Schema::ListType(std::string_view type) {
  json_["x-kubernetes-list-type"] = std::string(type);
  return *this;
}

Schema& Schema::ListMapKeys(const std::vector<std::string>& keys) {
  for (const std::string& k : keys) json_["x-kubernetes-list-map-keys"].push_back(k);
  return *this;
}

Schema& Schema::MapType(std::string_view type) {
  json_["x-kubernetes-map-type"] = std::string(type);
  return *this;
}

Schema& Schema::PreserveUnknownFields() {
  json_["x-kubernetes-preserve-unknown-fields"] = true;
  return *this;
}

Schema& Schema::Rule(std::string_view rule, std::string_view message) {
  return Rule(ValidationRule{std::string(rule), std::string(message)});
}

Schema& Schema::Rule(const ValidationRule& rule) {
  Json r;
  r["rule"] = rule.rule;
  if (!rule.message.empty()) r["message"] = rule.message;
  if (!rule.message_expression.empty()) r["messageExpression"] = rule.message_expression;
  if (!rule.reason.empty()) r["reason"] = rule.reason;
  if (!rule.field_path.empty()) r["fieldPath"] = rule.field_path;
  json_["x-kubernetes-validations"].push_back(std::move(r));
  return *this;
}

}  // namespace nodesmith::crds
