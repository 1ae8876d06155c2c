// The JSON form of the objects in cluster::Object, as the API server stores them: decoding an
// object read from the server into nodesmith's typed value, and encoding a typed value to send.
// A thin dispatch over api/codec.h by resource; what the types do not model is not in the typed
// value (kube/json_merge.h puts it back on writes).
#pragma once

#include "api/json_view.h"
#include "cluster/cluster_api.h"
#include "core/status.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace nodesmith::kube {

// REQUIRES: `r` is one of ResourcesOf(some cluster::Kind). The namespace of a namespaced object
// is kept as the server sent it. `doc` may lack apiVersion and kind, as a list's items do.
core::Result<cluster::Object> DecodeObject(const ResourceType& r, const api::JsonView& doc);
// apiVersion, kind, metadata, spec, status as api/codec.h writes them.
Json EncodeObject(const cluster::Object& object);

}  // namespace nodesmith::kube
