// karpenter.kwok.sh/v1alpha1 KWOKNodeClass: the node class of the kwok cloud provider, whose
// nodes are Node objects kwok plays the kubelet of. It is always Ready: its status defaults to a
// Ready condition, so a NodePool can use it without a controller reconciling it.
#include "crds/common_schemas.h"
#include "crds/crds.h"

namespace nodesmith::crds {

CustomResourceDefinition KWOKNodeClassDefinition() {
  nlohmann::ordered_json ready = {{"lastTransitionTime", "2024-01-01T01:01:01Z"},
                                  {"message", ""},
                                  {"reason", "Ready"},
                                  {"status", "True"},
                                  {"type", "Ready"}};
  CustomResourceDefinition d;
  d.group = "karpenter.kwok.sh";
  d.version = "v1alpha1";
  d.kind = "KWOKNodeClass";
  d.plural = "kwoknodeclasses";
  d.singular = "kwoknodeclass";
  d.short_names = {"kwoknc", "kwokncs"};
  d.categories = {"karpenter"};
  d.schema =
      ObjectRoot("A KWOKNodeClass: how the kwok provider's nodes come up.")
          .Property("spec", Schema::Object()
                                .Description("How the provider's nodes come up.")
                                .Property("nodeRegistrationDelay",
                                          Schema::String()
                                              .Description("How long a node takes to register "
                                                           "after its launch.")
                                              .Pattern(kDurationPattern)))
          .Property("status",
                    Schema::Object()
                        .Description("The node class's state.")
                        .Property("conditions", ConditionList({.keyed_by_type = false}))
                        .Default({{"conditions", nlohmann::ordered_json::array({ready})}}));
  return d;
}

}  // namespace nodesmith::crds
