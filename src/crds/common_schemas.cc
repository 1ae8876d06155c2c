#include "crds/common_schemas.h"

namespace nodesmith::crds {

Schema ObjectRoot(std::string_view description) {
  return Schema::Object()
      .Description(description)
      .Property("apiVersion", Schema::String().Description("The versioned schema of this object."))
      .Property("kind", Schema::String().Description("The REST resource this object represents."))
      .Property("metadata", Schema::Object());
}

Schema ConditionList(const ConditionListOptions& options) {
  Schema reason = Schema::String()
                      .Description("A CamelCase identifier of why the condition last changed.")
                      .MaxLength(1024);
  if (options.reason_optional) {
    reason.Pattern(R"(^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?|)$)");
  } else {
    reason.MinLength(1).Pattern(R"(^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$)");
  }
  Schema condition =
      Schema::Object()
          .Description("One aspect of the object's state (metav1.Condition).")
          .Property("lastTransitionTime",
                    Schema::DateTime().Description("When the status last changed."))
          .Property(
              "message",
              Schema::String().Description("A message for people; may be empty.").MaxLength(32768))
          .Property("observedGeneration",
                    Schema::Int64()
                        .Description("The metadata.generation the condition was computed for.")
                        .Minimum(0))
          .Property("reason", reason)
          .Property("status", Schema::String()
                                  .Description("True, False or Unknown.")
                                  .Enum({"True", "False", "Unknown"}))
          .Property(
              "type",
              Schema::String()
                  .Description("The condition's type, CamelCase or foo.example.com/CamelCase.")
                  .MaxLength(316)
                  .Pattern(
                      R"(^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$)"));
  if (options.reason_optional) {
    condition.Required({"lastTransitionTime", "status", "type"});
  } else {
    condition.Required({"lastTransitionTime", "message", "reason", "status", "type"});
  }
  Schema list =
      Schema::Array(condition).Description("Signals of the object's health and readiness.");
  if (options.keyed_by_type) list.ListType("map").ListMapKeys({"type"});
  return list;
}

Schema TaintList(std::string_view description) {
  Schema taint =
      Schema::Object()
          .Description("A taint: pods that do not tolerate it are kept off the node.")
          .Property("effect", Schema::String()
                                  .Description("NoSchedule, PreferNoSchedule or NoExecute.")
                                  .Enum({"NoSchedule", "PreferNoSchedule", "NoExecute"}))
          .Property("key", Schema::String()
                               .Description("The taint key.")
                               .MinLength(1)
                               .Pattern(kQualifiedNamePattern))
          .Property("timeAdded", Schema::DateTime().Description("When the taint was added."))
          .Property("value",
                    Schema::String().Description("The taint value.").Pattern(kQualifiedNamePattern))
          .Required({"effect", "key"});
  return Schema::Array(taint).Description(description).ListType("atomic");
}

Schema ResourceList(std::string_view description) {
  return Schema::Map(Schema::Quantity()).Description(description);
}

}  // namespace nodesmith::crds
