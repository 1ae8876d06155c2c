// Writing back only what nodesmith changed.
//
// nodesmith's typed objects model part of what the API server holds; a write that sent the
// typed object as it is would drop every other field (annotations it does not read, managed
// fields, fields of newer Kubernetes versions). ThreeWayMerge carries the change nodesmith made
// — the difference between `base` (the live object as nodesmith understood it: encode(decode(
// live))) and `desired` (encode(changed typed object)) — onto `live` itself:
//  - an object key changed in desired is changed in the result (recursively for objects);
//  - a key nodesmith removed (in base, not in desired) is removed; one it added is added;
//  - keys nodesmith never saw (in live, not in base) stay as they are;
//  - a list is kept as live has it when nodesmith did not change it; when it did, elements are
//    matched by identity (name, type, key+effect, uid) or, for lists of equal length, by
//    position, and merged one by one, so an element's unknown fields survive too.
// MergePatch computes an RFC 7386 JSON merge patch from one document to another.
#pragma once

#include <nlohmann/json.hpp>

namespace nodesmith::kube {

nlohmann::ordered_json ThreeWayMerge(const nlohmann::ordered_json& live,
                                     const nlohmann::ordered_json& base,
                                     const nlohmann::ordered_json& desired);

// The merge patch that turns `from` into `to` (null when they are equal).
nlohmann::ordered_json MergePatch(const nlohmann::ordered_json& from,
                                  const nlohmann::ordered_json& to);

}  // namespace nodesmith::kube
