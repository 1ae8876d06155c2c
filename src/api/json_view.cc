#include "api/json_view.h"

#include <new>

#include <nlohmann/json.hpp>
#include <simdjson.h>

namespace nodesmith::api {

namespace dom = simdjson::dom;
using Json = nlohmann::ordered_json;

static_assert(sizeof(dom::element) <= 16 && alignof(dom::element) <= 8,
              "JsonView's storage holds a simdjson::dom::element");
static_assert(std::is_trivially_copyable_v<dom::element> &&
                  std::is_trivially_destructible_v<dom::element>,
              "JsonView copies a simdjson::dom::element as bytes");

JsonView::JsonView(const Json& value) : source_(Source::kJson), json_(&value) {}

JsonView JsonView::Of(const dom::element& value) {
  JsonView v;
  v.source_ = Source::kDom;
  new (v.dom_) dom::element(value);
  return v;
}

const dom::element& JsonView::dom() const {
  return *std::launder(reinterpret_cast<const dom::element*>(dom_));
}

JsonView::Type JsonView::type() const {
  switch (source_) {
    case Source::kNone: return Type::kNull;
    case Source::kJson:
      switch (json_->type()) {
        case Json::value_t::boolean: return Type::kBool;
        case Json::value_t::number_integer: return Type::kInt;
        case Json::value_t::number_unsigned: return Type::kUint;
        case Json::value_t::number_float: return Type::kDouble;
        case Json::value_t::string: return Type::kString;
        case Json::value_t::array: return Type::kArray;
        case Json::value_t::object: return Type::kObject;
        default: return Type::kNull;  // null, discarded, binary (never from a parse)
      }
    case Source::kDom:
      switch (dom().type()) {
        case dom::element_type::BOOL: return Type::kBool;
        case dom::element_type::INT64: return Type::kInt;
        case dom::element_type::UINT64: return Type::kUint;
        case dom::element_type::DOUBLE: return Type::kDouble;
        case dom::element_type::STRING: return Type::kString;
        case dom::element_type::ARRAY: return Type::kArray;
        case dom::element_type::OBJECT: return Type::kObject;
        case dom::element_type::NULL_VALUE: return Type::kNull;
      }
  }
  return Type::kNull;
}

bool JsonView::is_integer() const {
  Type t = type();
  return t == Type::kInt || t == Type::kUint;
}

bool JsonView::is_number() const { return is_integer() || type() == Type::kDouble; }

bool JsonView::GetBool() const {
  return source_ == Source::kJson ? json_->get<bool>() : dom().get_bool().value_unsafe();
}

int64_t JsonView::GetInt64() const {
  return source_ == Source::kJson ? json_->get<int64_t>() : dom().get_int64().value_unsafe();
}

uint64_t JsonView::GetUint64() const {
  return source_ == Source::kJson ? json_->get<uint64_t>() : dom().get_uint64().value_unsafe();
}

double JsonView::GetDouble() const {
  if (source_ == Source::kJson) return json_->get<double>();
  switch (dom().type()) {
    case dom::element_type::INT64: return static_cast<double>(dom().get_int64().value_unsafe());
    case dom::element_type::UINT64: return static_cast<double>(dom().get_uint64().value_unsafe());
    default: return dom().get_double().value_unsafe();
  }
}

std::string_view JsonView::GetString() const {
  if (source_ == Source::kJson) return json_->get_ref<const std::string&>();
  return dom().get_string().value_unsafe();
}

JsonView JsonView::Find(std::string_view key) const {
  if (!is_object()) return {};
  if (source_ == Source::kJson) {
    auto it = json_->find(key);
    return it == json_->end() ? JsonView() : JsonView(*it);
  }
  dom::object object;
  dom::element found;
  if (dom().get(object) != simdjson::SUCCESS || object.at_key(key).get(found) != simdjson::SUCCESS)
    return {};
  return Of(found);
}

bool JsonView::Contains(std::string_view key) const {
  if (!is_object()) return false;
  if (source_ == Source::kJson) return json_->contains(key);
  dom::object object;
  dom::element found;
  return dom().get(object) == simdjson::SUCCESS && object.at_key(key).get(found) == simdjson::SUCCESS;
}

size_t JsonView::size() const {
  switch (type()) {
    case Type::kArray:
    case Type::kObject:
      if (source_ == Source::kJson) return json_->size();
      if (dom::array array; dom().get(array) == simdjson::SUCCESS) return array.size();
      if (dom::object object; dom().get(object) == simdjson::SUCCESS) return object.size();
      return 0;
    default: return 0;
  }
}

void JsonView::VisitMembers(void* ctx, MemberFn fn) const {
  if (!is_object()) return;
  if (source_ == Source::kJson) {
    for (auto it = json_->begin(); it != json_->end(); ++it) fn(ctx, it.key(), JsonView(*it));
    return;
  }
  dom::object object;
  if (dom().get(object) != simdjson::SUCCESS) return;
  for (dom::key_value_pair member : object) fn(ctx, member.key, Of(member.value));
}

void JsonView::VisitElements(void* ctx, ElementFn fn) const {
  if (!is_array()) return;
  size_t i = 0;
  if (source_ == Source::kJson) {
    for (const Json& e : *json_) fn(ctx, i++, JsonView(e));
    return;
  }
  dom::array array;
  if (dom().get(array) != simdjson::SUCCESS) return;
  for (dom::element e : array) fn(ctx, i++, Of(e));
}

Json JsonView::ToJson() const {
  switch (type()) {
    case Type::kNull: return nullptr;
    case Type::kBool: return GetBool();
    case Type::kInt: return GetInt64();
    case Type::kUint: return GetUint64();
    case Type::kDouble: return GetDouble();
    case Type::kString: return std::string(GetString());
    case Type::kArray: {
      if (source_ == Source::kJson) return *json_;
      Json a = Json::array();
      ForEachElement([&](size_t, const JsonView& e) { a.push_back(e.ToJson()); });
      return a;
    }
    case Type::kObject: {
      if (source_ == Source::kJson) return *json_;
      Json o = Json::object();
      ForEachMember([&](std::string_view k, const JsonView& v) { o[std::string(k)] = v.ToJson(); });
      return o;
    }
  }
  return nullptr;
}

std::string JsonView::Dump() const {
  if (source_ == Source::kJson) return json_->dump();
  return ToJson().dump();
}

JsonParser::JsonParser() : parser_(std::make_unique<dom::parser>()) {}

JsonParser::~JsonParser() = default;

core::Result<JsonView> JsonParser::Parse(std::string_view text) {
  dom::element root;
  simdjson::error_code error = parser_->parse(text.data(), text.size()).get(root);
  if (error == simdjson::SUCCESS) return JsonView::Of(root);
  // An integer beyond 64 bits is valid JSON that simdjson does not hold; read such a text as
  // nlohmann::json does (the number becomes a double), so one odd field cannot fail a page.
  if (error == simdjson::NUMBER_ERROR) {
    fallback_ = std::make_unique<Json>(Json::parse(text, nullptr, false));
    if (!fallback_->is_discarded()) return JsonView(*fallback_);
  }
  return core::Status::Invalid(std::string("not valid JSON: ") + simdjson::error_message(error));
}

}  // namespace nodesmith::api
