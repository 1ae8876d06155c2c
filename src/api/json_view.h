// JsonView: a read-only view of one JSON value, held either by an nlohmann::ordered_json (the
// documents of files, and the answers to the client's writes) or by a JsonParser's document
// (simdjson's DOM: the API server's list pages and watch frames, which are read without building
// an object model with a heap node per value). The decoders (api/codec.h) read through it, so
// both kinds of document decode by the same code and fail with the same messages.
//
// A view is three words, cheap to copy. It is valid while the value it looks into lives: the
// ordered_json, or the JsonParser's document until that parser parses again. A default-made
// view is null, and so is what Find gives for an absent key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "core/status.h"

namespace simdjson::dom {
class element;
class parser;
}  // namespace simdjson::dom

namespace nodesmith::api {

class JsonView {
 public:
  enum class Type { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };

  JsonView() = default;
  // Implicit: every decoder taking a view takes an ordered_json as it is.
  JsonView(const nlohmann::ordered_json& value);  // NOLINT(google-explicit-constructor)
  static JsonView Of(const simdjson::dom::element& value);

  Type type() const;
  bool is_null() const { return type() == Type::kNull; }
  bool is_bool() const { return type() == Type::kBool; }
  bool is_string() const { return type() == Type::kString; }
  bool is_array() const { return type() == Type::kArray; }
  bool is_object() const { return type() == Type::kObject; }
  // kInt or kUint (a number written without fraction or exponent that fits 64 bits).
  bool is_integer() const;
  bool is_number() const;

  // REQUIRES: the matching type (GetDouble: any number).
  bool GetBool() const;
  int64_t GetInt64() const;
  uint64_t GetUint64() const;
  double GetDouble() const;
  std::string_view GetString() const;

  // The member `key` of an object; a null view when absent or when this is not an object.
  JsonView Find(std::string_view key) const;
  // Whether an object has the member `key`, even a null one.
  bool Contains(std::string_view key) const;
  // Elements of an array, members of an object, else 0.
  size_t size() const;

  // fn(std::string_view key, JsonView value) for each member of an object, in document order.
  template <typename F>
  void ForEachMember(F&& fn) const {
    VisitMembers(&fn, [](void* f, std::string_view key, const JsonView& value) {
      (*static_cast<F*>(f))(key, value);
    });
  }
  // fn(size_t index, JsonView value) for each element of an array, in order.
  template <typename F>
  void ForEachElement(F&& fn) const {
    VisitElements(&fn, [](void* f, size_t index, const JsonView& value) {
      (*static_cast<F*>(f))(index, value);
    });
  }

  // Compact JSON text, numbers written as nlohmann::json writes them (3.0 stays "3.0").
  std::string Dump() const;
  nlohmann::ordered_json ToJson() const;

 private:
  enum class Source : uint8_t { kNone, kJson, kDom };
  using MemberFn = void (*)(void*, std::string_view, const JsonView&);
  using ElementFn = void (*)(void*, size_t, const JsonView&);
  void VisitMembers(void* ctx, MemberFn fn) const;
  void VisitElements(void* ctx, ElementFn fn) const;
  const simdjson::dom::element& dom() const;

  Source source_ = Source::kNone;
  const nlohmann::ordered_json* json_ = nullptr;
  // A simdjson::dom::element (a document pointer and a tape index), kept opaque so that only
  // json_view.cc includes simdjson's 1.2 MB header.
  alignas(8) unsigned char dom_[16] = {};
};

// JsonParser: parses JSON text into a document of its own that views look into. One per
// thread; reusing it keeps its buffers (sized by the largest text so far) across parses.
class JsonParser {
 public:
  JsonParser();
  ~JsonParser();
  JsonParser(const JsonParser&) = delete;
  JsonParser& operator=(const JsonParser&) = delete;

  // The root of `text`, valid until the next Parse. Fails with simdjson's reason (invalid JSON,
  // invalid UTF-8, a number out of range, nesting deeper than 1024).
  core::Result<JsonView> Parse(std::string_view text);

 private:
  std::unique_ptr<simdjson::dom::parser> parser_;
  std::unique_ptr<nlohmann::ordered_json> fallback_;  // the last text simdjson could not hold
};

}  // namespace nodesmith::api
