// Reader: typed access to one JSON object for the decoders, carrying the field path so every
// error names where it happened ("spec.template.spec.requirements[0].minValues: ...").
//
// The first error wins: once one is recorded (in the shared DecodeErrors), every later read is a
// no-op, so decoders read straight through without checking after each field. Absent and null
// fields leave the destination untouched, which is how API defaults (set by the value types'
// initialisers) survive. Internal to api/.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/json_view.h"
#include "api/resource_list.h"
#include "core/duration.h"
#include "core/status.h"
#include "core/time.h"

namespace nodesmith::api {

using Json = nlohmann::ordered_json;

struct DecodeErrors {
  std::string path;
  std::string message;
  bool failed = false;
  // "path: message", or OK.
  core::Status ToStatus() const;
};

// "a string", "a number 5", "a list" — for "expected X, got Y" messages.
std::string DescribeJson(const JsonView& v);

class Reader {
 public:
  // `object` may be null (absent); it must otherwise be a JSON object or an error is recorded.
  Reader(const JsonView& object, std::string path, DecodeErrors* errors);

  bool ok() const { return !errors_->failed; }
  const std::string& path() const { return path_; }
  DecodeErrors* errors() const { return errors_; }
  // Present and not null.
  bool Has(const char* key) const;
  // The value; a null view when absent or null.
  JsonView Get(const char* key) const;
  std::string PathOf(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  // Records an error at `path` (only the first is kept).
  void Fail(const std::string& path, const std::string& message) const;

  void Str(const char* key, std::string* out) const;
  void Str(const char* key, std::optional<std::string>* out) const;
  void Int(const char* key, int* out) const;
  void Int(const char* key, std::optional<int>* out) const;
  void Int64(const char* key, int64_t* out) const;
  void Int64(const char* key, std::optional<int64_t>* out) const;
  void Bool(const char* key, bool* out) const;
  void Bool(const char* key, std::optional<bool>* out) const;
  void Double(const char* key, std::optional<double>* out) const;
  void StrMap(const char* key, std::map<std::string, std::string>* out) const;
  void StrList(const char* key, std::vector<std::string>* out) const;
  void Resources(const char* key, ResourceList* out) const;
  void Time(const char* key, std::optional<core::Time>* out) const;
  void Duration(const char* key, std::optional<core::Duration>* out) const;
  void NillableDuration(const char* key, core::NillableDuration* out) const;

  // Calls fn(Reader&) with the child object when present.
  template <typename F>
  void Object(const char* key, F fn) const {
    if (!ok() || !Has(key)) return;
    Reader child(Get(key), PathOf(key), errors_);
    if (child.ok()) fn(child);
  }
  // Decodes a list of objects: fn(Reader&, T*) per element, into a fresh T each.
  template <typename T, typename F>
  void List(const char* key, std::vector<T>* out, F fn) const {
    if (!ok() || !Has(key)) return;
    const JsonView list = Get(key);
    if (!list.is_array()) return Fail(PathOf(key), "expected a list, got " + DescribeJson(list));
    out->clear();
    out->reserve(list.size());
    list.ForEachElement([&](size_t i, const JsonView& element) {
      if (!ok()) return;
      Reader item(element, PathOf(key) + "[" + std::to_string(i) + "]", errors_);
      if (!item.ok()) return;
      T value{};
      fn(item, &value);
      out->push_back(std::move(value));
    });
  }

  // Value-level conversions used by the field readers (and by decoders for odd shapes).
  bool AsString(const JsonView& v, const std::string& path, std::string* out) const;
  bool AsInt64(const JsonView& v, const std::string& path, int64_t lo, int64_t hi,
               int64_t* out) const;
  bool AsQuantity(const JsonView& v, const std::string& path, Quantity* out) const;

 private:
  JsonView object_;  // null when absent
  std::string path_;
  DecodeErrors* errors_;
};

// Encoding helpers: each sets `key` only when the value is not empty/absent, as kubectl omits
// empty fields.
void PutStr(Json& j, const char* key, const std::string& v);
void PutMap(Json& j, const char* key, const std::map<std::string, std::string>& v);
void PutList(Json& j, const char* key, const std::vector<std::string>& v);
void PutResources(Json& j, const char* key, const ResourceList& v);
void PutTime(Json& j, const char* key, const std::optional<core::Time>& v);
Json ResourcesToJson(const ResourceList& v);

// A JSON array of encode(item) for each of `items`, in order (empty array when there are none).
template <typename T, typename F>
Json ListOf(const std::vector<T>& items, F encode) {
  Json l = Json::array();
  for (const auto& item : items) l.push_back(encode(item));
  return l;
}

// Sets `key` to ListOf(items, encode) unless `items` is empty.
template <typename T, typename F>
void PutObjects(Json& j, const char* key, const std::vector<T>& items, F encode) {
  if (!items.empty()) j[key] = ListOf(items, encode);
}

}  // namespace nodesmith::api
