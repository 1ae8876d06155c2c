#include "kube/json_merge.h"

#include <optional>
#include <string>

namespace nodesmith::kube {

namespace {

using Json = nlohmann::ordered_json;

// What identifies a list element across versions of the list, if anything does.
std::optional<std::string> IdentityOf(const Json& element) {
  if (!element.is_object()) return std::nullopt;
  auto str = [&](const char* key) -> std::optional<std::string> {
    auto it = element.find(key);
    if (it == element.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (auto uid = str("uid")) return "uid:" + *uid;
  if (auto name = str("name")) return "name:" + *name;
  if (auto type = str("type")) return "type:" + *type;
  if (auto key = str("key")) return "key:" + *key + "/" + str("effect").value_or("");
  return std::nullopt;
}

const Json* FindByIdentity(const Json& list, const std::string& id) {
  if (!list.is_array()) return nullptr;
  for (const Json& e : list) {
    auto other = IdentityOf(e);
    if (other && *other == id) return &e;
  }
  return nullptr;
}

Json MergeArrays(const Json& live, const Json& base, const Json& desired) {
  if (base == desired && live.is_array()) return live;
  if (!live.is_array()) return desired;
  // Every desired element identified, and identities unique: merge by identity.
  bool by_identity = !desired.empty();
  for (const Json& e : desired) {
    auto id = IdentityOf(e);
    if (!id) { by_identity = false; break; }
  }
  Json out = Json::array();
  if (by_identity) {
    for (const Json& d : desired) {
      std::string id = *IdentityOf(d);
      const Json* l = FindByIdentity(live, id);
      const Json* b = FindByIdentity(base, id);
      if (l == nullptr) out.push_back(d);
      else out.push_back(ThreeWayMerge(*l, b != nullptr ? *b : Json(), d));
    }
    return out;
  }
  if (base.is_array() && live.size() == base.size() && base.size() == desired.size()) {
    for (size_t i = 0; i < desired.size(); ++i) out.push_back(ThreeWayMerge(live[i], base[i], desired[i]));
    return out;
  }
  return desired;
}

}  // namespace

Json ThreeWayMerge(const Json& live, const Json& base, const Json& desired) {
  if (desired.is_object()) {
    if (!live.is_object()) return desired;
    if (base == desired) return live;
    Json out = live;
    const bool base_is_object = base.is_object();
    for (auto it = desired.begin(); it != desired.end(); ++it) {
      const std::string& key = it.key();
      auto l = live.find(key);
      const Json* b = nullptr;
      if (base_is_object) {
        auto bi = base.find(key);
        if (bi != base.end()) b = &*bi;
      }
      if (l == live.end()) {
        out[key] = it.value();
      } else if (b != nullptr && *b == it.value()) {
        // Unchanged by nodesmith: live's value, with whatever nodesmith does not model.
      } else {
        out[key] = ThreeWayMerge(*l, b != nullptr ? *b : Json(), it.value());
      }
    }
    if (base_is_object) {
      for (auto it = base.begin(); it != base.end(); ++it) {
        if (!desired.contains(it.key())) out.erase(it.key());
      }
    }
    return out;
  }
  if (desired.is_array()) return MergeArrays(live, base, desired);
  return desired;
}

Json MergePatch(const Json& from, const Json& to) {
  if (!from.is_object() || !to.is_object()) return from == to ? Json() : to;
  Json patch = Json::object();
  for (auto it = to.begin(); it != to.end(); ++it) {
    auto f = from.find(it.key());
    if (f == from.end()) {
      patch[it.key()] = it.value();
    } else if (*f != it.value()) {
      Json sub = (f->is_object() && it->is_object()) ? MergePatch(*f, it.value()) : it.value();
      patch[it.key()] = sub;
    }
  }
  for (auto it = from.begin(); it != from.end(); ++it) {
    if (!to.contains(it.key())) patch[it.key()] = nullptr;
  }
  return patch.empty() ? Json() : patch;
}

}  // namespace nodesmith::kube
