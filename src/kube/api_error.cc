#include "kube/api_error.h"

#include <nlohmann/json.hpp>

namespace nodesmith::kube {

namespace {

std::string Where(const RequestContext& c) {
  if (c.resource == nullptr || !c.resource->namespaced) return "at the cluster scope";
  if (c.namespace_.empty()) return "in all namespaces";
  return "in namespace " + c.namespace_;
}

std::string What(const RequestContext& c) {
  std::string r = c.resource == nullptr ? std::string("resource") : c.resource->QualifiedResource();
  if (!c.subresource.empty()) r += "/" + c.subresource;
  return c.verb + " " + r;
}

std::string ObjectName(const RequestContext& c) {
  std::string kind = c.resource == nullptr ? std::string("object") : std::string(c.resource->kind);
  if (c.name.empty()) return kind;
  if (c.resource != nullptr && c.resource->namespaced && !c.namespace_.empty())
    return kind + " " + c.namespace_ + "/" + c.name;
  return kind + " " + c.name;
}

}  // namespace

core::Status ApiErrorStatus(const HttpResponse& response, const RequestContext& c,
                            const RestConfig& config) {
  std::string message, reason;
  nlohmann::json causes = nlohmann::json::array();
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, false);
  if (body.is_object()) {
    if (body.contains("message") && body["message"].is_string()) message = body["message"];
    if (body.contains("reason") && body["reason"].is_string()) reason = body["reason"];
    if (body.contains("details") && body["details"].is_object() &&
        body["details"].contains("causes") && body["details"]["causes"].is_array())
      causes = body["details"]["causes"];
  }
  if (message.empty()) {
    message = response.body.substr(0, 300);
    while (!message.empty() && (message.back() == '\n' || message.back() == '\r')) message.pop_back();
  }
  const std::string identity = config.identity.empty() ? "this client" : config.identity;
  const long code = response.status;
  using core::Status;
  using core::StatusCode;
  switch (code) {
    case 401:
      return Status(StatusCode::kUnauthenticated,
                    "the API server at " + config.server + " rejected the credentials of " +
                        identity + " (401 Unauthorized): the token or client certificate is "
                        "missing, expired or not issued by this cluster; refresh the kubeconfig "
                        "(for EKS: aws eks update-kubeconfig) or the ServiceAccount token");
    case 403:
      // Admission plugins answer 403 too (a missing ServiceAccount, a terminating namespace):
      // only "... cannot <verb> resource ..." is RBAC.
      if (message.find(" cannot ") == std::string::npos)
        return Status(StatusCode::kPermissionDenied,
                      "the API server refused to " + What(c) + " " + Where(c) +
                          " (403 Forbidden: " + message + ")");
      return Status(StatusCode::kPermissionDenied,
                    "RBAC does not allow " + identity + " to " + What(c) + " " + Where(c) +
                        " (403 Forbidden: " + message +
                        "); grant it in the ClusterRole or Role bound to that identity");
    case 404:
      if (c.name.empty() && c.resource != nullptr && !c.resource->group.empty() &&
          c.resource->group.find("k8s.io") == std::string_view::npos) {
        return Status::NotFound("the " + std::string(c.resource->kind) +
                                " CRD is not installed: " + c.verb + " " +
                                c.resource->QualifiedResource() + " returned 404 (" + message +
                                "); install nodesmith's CRDs (nodesmith crds | kubectl apply -f -) "
                                "or Karpenter's");
      }
      return Status::NotFound(ObjectName(c) + " not found (" + message + ")");
    case 409:
      if (reason == "AlreadyExists") return Status(StatusCode::kAlreadyExists, message);
      return Status(StatusCode::kConflict, "conflict: " + message);
    case 410:
      return Status(StatusCode::kExpired, "expired: " + message);
    case 422: {
      std::string text = ObjectName(c) + " is invalid";
      if (causes.empty()) {
        text += ": " + message;
      } else {
        for (const auto& cause : causes) {
          std::string field = cause.value("field", "");
          std::string m = cause.value("message", "");
          text += (&cause == &causes[0] ? ": " : "; ") + (field.empty() ? m : field + ": " + m);
        }
      }
      return Status::Invalid(text);
    }
    case 429:
      if (c.subresource == "eviction") return Status::Unavailable(message);
      return Status::Unavailable("the API server is throttling requests (429 Too Many Requests: " +
                                 message + ")");
    default:
      break;
  }
  if (code >= 500)
    return Status::Unavailable("the API server at " + config.server + " answered " +
                               std::to_string(code) + " to " + What(c) + ": " + message);
  if (code == 400) return Status::Invalid(ObjectName(c) + ": bad request: " + message);
  return Status::Internal("unexpected answer " + std::to_string(code) + " to " + What(c) + " " +
                          Where(c) + ": " + message);
}

bool IsRetryable(const HttpResponse& response, const RequestContext& c) {
  if (response.status == 429) return c.subresource != "eviction";
  return response.status >= 500 || response.status == 0;
}

bool IsExpired(const core::Status& status) {
  return status.code() == core::StatusCode::kExpired;
}

}  // namespace nodesmith::kube
