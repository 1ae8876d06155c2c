// ValidationRule: one CEL rule of a schema's `x-kubernetes-validations`, as the API server
// evaluates it when an object is created or updated.
//
// `rule` is the CEL expression (`self` is the value at the schema's node; `oldSelf`, the value
// before an update, makes the rule a transition rule that only runs on updates). When the rule is
// false the server answers with `message`, or with the string `message_expression` evaluates to;
// `reason` (FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate) and
// `field_path` (relative to the node, e.g. ".spec.role") shape the error. Empty fields are omitted.
#pragma once

#include <string>

namespace nodesmith::crds {

struct ValidationRule {
  std::string rule;
  std::string message;
  std::string message_expression;
  std::string reason;
  std::string field_path;
};

}  // namespace nodesmith::crds
