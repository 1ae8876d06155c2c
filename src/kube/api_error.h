// Turning an API server's error answer (a metav1.Status with an HTTP code) into a core::Status a
// person can act on: which identity was refused what, which CRD is missing, which fields the
// server rejected, whether to retry.
//
//   401 -> kUnauthenticated   credentials missing, expired or unknown to this cluster
//   403 -> kPermissionDenied  the verb, resource, namespace and identity RBAC refused
//   404 -> kNotFound          the object, or (for a whole collection) the CRD not installed
//   409 -> kAlreadyExists (AlreadyExists) / kConflict "conflict: ..." (stale version, precondition)
//   410 -> kExpired "expired: ..." (a watch or continue token too old: relist)
//   422 -> kInvalidArgument   the server's field causes, one by one
//   429, 5xx -> kUnavailable  retry (a 429 from pods/eviction is a PDB's answer)
#pragma once

#include <string>

#include "core/status.h"
#include "kube/http_transport.h"
#include "kube/resources.h"

namespace nodesmith::kube {

// What was asked, for the message.
struct RequestContext {
  std::string verb;              // get, list, watch, create, update, patch, delete
  const ResourceType* resource = nullptr;
  std::string namespace_;
  std::string name;
  std::string subresource;       // status, eviction, binding
};

// REQUIRES: response.status is not 2xx.
core::Status ApiErrorStatus(const HttpResponse& response, const RequestContext& context,
                            const RestConfig& config);

// Whether a request that got `response` (or no answer: `transport_failed`) is worth another
// try: 429 outside eviction, 5xx, and transport failures.
bool IsRetryable(const HttpResponse& response, const RequestContext& context);

// True for statuses ApiErrorStatus made from a 410 Gone.
bool IsExpired(const core::Status& status);

}  // namespace nodesmith::kube
