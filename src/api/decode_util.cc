#include "api/decode_util.h"

#include <cmath>
#include <limits>

namespace nodesmith::api {

core::Status DecodeErrors::ToStatus() const {
  if (!failed) return core::Status::Ok();
  return core::Status::Invalid(path.empty() ? message : path + ": " + message);
}

std::string DescribeJson(const JsonView& v) {
  switch (v.type()) {
    case JsonView::Type::kNull: return "null";
    case JsonView::Type::kBool: return std::string("the boolean ") + (v.GetBool() ? "true" : "false");
    case JsonView::Type::kInt:
    case JsonView::Type::kUint:
    case JsonView::Type::kDouble: return "the number " + v.Dump();
    case JsonView::Type::kString: {
      std::string_view s = v.GetString();
      if (s.size() > 40) return "a string of " + std::to_string(s.size()) + " bytes";
      return "the string " + Json(std::string(s)).dump();
    }
    case JsonView::Type::kArray: return "a list";
    case JsonView::Type::kObject: return "a mapping";
  }
  return "an unsupported value";
}

Reader::Reader(const JsonView& object, std::string path, DecodeErrors* errors)
    : object_(object), path_(std::move(path)), errors_(errors) {
  if (!object_.is_null() && !object_.is_object()) {
    Fail(path_, "expected a mapping, got " + DescribeJson(object_));
    object_ = JsonView();
  }
}

bool Reader::Has(const char* key) const { return !Get(key).is_null(); }

JsonView Reader::Get(const char* key) const { return object_.Find(key); }

void Reader::Fail(const std::string& path, const std::string& message) const {
  if (errors_->failed) return;
  errors_->failed = true;
  errors_->path = path;
  errors_->message = message;
}

bool Reader::AsString(const JsonView& v, const std::string& path, std::string* out) const {
  if (!v.is_string()) {
    Fail(path, "expected a string, got " + DescribeJson(v));
    return false;
  }
  *out = v.GetString();
  return true;
}

bool Reader::AsInt64(const JsonView& v, const std::string& path, int64_t lo, int64_t hi,
                     int64_t* out) const {
  auto range = [&] {
    Fail(path, "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                   ", got " + DescribeJson(v));
    return false;
  };
  switch (v.type()) {
    case JsonView::Type::kInt: {
      int64_t n = v.GetInt64();
      if (n < lo || n > hi) return range();
      *out = n;
      return true;
    }
    case JsonView::Type::kUint: {
      uint64_t n = v.GetUint64();
      if (n > static_cast<uint64_t>(hi)) return range();
      *out = static_cast<int64_t>(n);
      return true;
    }
    case JsonView::Type::kDouble: {
      double d = v.GetDouble();
      // JSON writers (and kubectl) print 3 as 3.0 at times; whole numbers are accepted.
      if (std::trunc(d) == d && d >= static_cast<double>(lo) && d <= static_cast<double>(hi)) {
        *out = static_cast<int64_t>(d);
        return true;
      }
      return range();
    }
    default:
      Fail(path, "expected an integer, got " + DescribeJson(v));
      return false;
  }
}

bool Reader::AsQuantity(const JsonView& v, const std::string& path, Quantity* out) const {
  std::string text;
  if (v.is_string()) {
    text = v.GetString();
  } else if (v.is_number()) {
    text = v.Dump();
  } else {
    Fail(path, "expected a quantity (a string like \"500m\" or a number), got " + DescribeJson(v));
    return false;
  }
  auto q = Quantity::Parse(text);
  if (!q.ok()) {
    Fail(path, q.status().message());
    return false;
  }
  // Upstream saturates huge values; a request nobody can meet is almost surely a typo.
  if (q->ValueOverflows()) {
    Fail(path, "quantity \"" + text + "\" is too large");
    return false;
  }
  *out = *q;
  return true;
}

void Reader::Str(const char* key, std::string* out) const {
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null()) AsString(v, PathOf(key), out);
}

void Reader::Str(const char* key, std::optional<std::string>* out) const {
  std::string s;
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null() && AsString(v, PathOf(key), &s)) *out = std::move(s);
}

void Reader::Int(const char* key, int* out) const {
  int64_t n;
  if (!ok()) return;
  if (JsonView v = Get(key);
      !v.is_null() && AsInt64(v, PathOf(key), std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max(), &n)) {
    *out = static_cast<int>(n);
  }
}

void Reader::Int(const char* key, std::optional<int>* out) const {
  int n = 0;
  if (ok() && Has(key)) {
    Int(key, &n);
    if (ok()) *out = n;
  }
}

void Reader::Int64(const char* key, int64_t* out) const {
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null()) {
    AsInt64(v, PathOf(key), std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max(), out);
  }
}

void Reader::Int64(const char* key, std::optional<int64_t>* out) const {
  int64_t n = 0;
  if (ok() && Has(key)) {
    Int64(key, &n);
    if (ok()) *out = n;
  }
}

void Reader::Bool(const char* key, bool* out) const {
  if (!ok()) return;
  JsonView v = Get(key);
  if (v.is_null()) return;
  if (!v.is_bool()) return Fail(PathOf(key), "expected true or false, got " + DescribeJson(v));
  *out = v.GetBool();
}

void Reader::Bool(const char* key, std::optional<bool>* out) const {
  bool b = false;
  if (ok() && Has(key)) {
    Bool(key, &b);
    if (ok()) *out = b;
  }
}

void Reader::Double(const char* key, std::optional<double>* out) const {
  if (!ok()) return;
  JsonView v = Get(key);
  if (v.is_null()) return;
  if (v.is_number()) {
    *out = v.GetDouble();
    return;
  }
  // Prices are sometimes quoted ("0.83"); accept a string holding a finite number.
  if (v.is_string()) {
    const std::string s(v.GetString());
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(d)) {
      *out = d;
      return;
    }
  }
  Fail(PathOf(key), "expected a number, got " + DescribeJson(v));
}

void Reader::StrMap(const char* key, std::map<std::string, std::string>* out) const {
  if (!ok()) return;
  JsonView v = Get(key);
  if (v.is_null()) return;
  if (!v.is_object()) return Fail(PathOf(key), "expected a mapping, got " + DescribeJson(v));
  out->clear();
  v.ForEachMember([&](std::string_view k, const JsonView& value) {
    if (!ok()) return;
    std::string s;
    if (value.is_null()) {
      (*out)[std::string(k)] = "";
    } else if (AsString(value, PathOf(key) + "[" + std::string(k) + "]", &s)) {
      (*out)[std::string(k)] = std::move(s);
    }
  });
}

void Reader::StrList(const char* key, std::vector<std::string>* out) const {
  if (!ok()) return;
  JsonView v = Get(key);
  if (v.is_null()) return;
  if (!v.is_array()) return Fail(PathOf(key), "expected a list, got " + DescribeJson(v));
  out->clear();
  out->reserve(v.size());
  v.ForEachElement([&](size_t i, const JsonView& element) {
    if (!ok()) return;
    std::string s;
    if (AsString(element, PathOf(key) + "[" + std::to_string(i) + "]", &s)) out->push_back(std::move(s));
  });
}

void Reader::Resources(const char* key, ResourceList* out) const {
  if (!ok()) return;
  JsonView v = Get(key);
  if (v.is_null()) return;
  if (!v.is_object()) return Fail(PathOf(key), "expected a mapping, got " + DescribeJson(v));
  *out = ResourceList();
  v.ForEachMember([&](std::string_view k, const JsonView& value) {
    if (!ok()) return;
    Quantity q;
    if (AsQuantity(value, PathOf(key) + "[" + std::string(k) + "]", &q)) out->Set(std::string(k), q);
  });
}

void Reader::Time(const char* key, std::optional<core::Time>* out) const {
  std::string s;
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null() && AsString(v, PathOf(key), &s)) {
    auto t = core::ParseRfc3339(s);
    if (!t.ok()) return Fail(PathOf(key), t.status().message());
    *out = *t;
  }
}

void Reader::Duration(const char* key, std::optional<core::Duration>* out) const {
  std::string s;
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null() && AsString(v, PathOf(key), &s)) {
    auto d = core::ParseDuration(s);
    if (!d.ok()) return Fail(PathOf(key), d.status().message());
    *out = *d;
  }
}

void Reader::NillableDuration(const char* key, core::NillableDuration* out) const {
  std::string s;
  if (!ok()) return;
  if (JsonView v = Get(key); !v.is_null() && AsString(v, PathOf(key), &s)) {
    auto d = core::ParseNillableDuration(s);
    if (!d.ok()) return Fail(PathOf(key), d.status().message());
    *out = *d;
  }
}

void PutStr(Json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

void PutMap(Json& j, const char* key, const std::map<std::string, std::string>& v) {
  if (v.empty()) return;
  Json m = Json::object();
  for (const auto& [k, val] : v) m[k] = val;
  j[key] = std::move(m);
}

void PutList(Json& j, const char* key, const std::vector<std::string>& v) {
  if (!v.empty()) j[key] = v;
}

Json ResourcesToJson(const ResourceList& v) {
  Json m = Json::object();
  for (const auto& [name, q] : v.items()) m[name] = q.String();
  return m;
}

void PutResources(Json& j, const char* key, const ResourceList& v) {
  if (!v.empty()) j[key] = ResourcesToJson(v);
}

void PutTime(Json& j, const char* key, const std::optional<core::Time>& v) {
  if (v) j[key] = core::FormatRfc3339(*v);
}

}  // namespace nodesmith::api
