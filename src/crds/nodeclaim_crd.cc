// karpenter.sh/v1 NodeClaim: a request for one node, and what became of it.
#include "crds/common_schemas.h"
#include "crds/crds.h"
#include "crds/nodeclaim_spec.h"

namespace nodesmith::crds {

namespace {

Schema Status() {
  return Schema::Object()
      .Description("What became of the NodeClaim.")
      .Property("allocatable", ResourceList("What the node offers pods."))
      .Property("capacity", ResourceList("What the node has."))
      .Property("conditions", ConditionList({.keyed_by_type = true, .reason_optional = true}))
      .Property("imageID", Schema::String().Description("The image the node runs."))
      .Property("lastPodEventTime",
                Schema::DateTime().Description("When a pod was last bound to or removed from "
                                               "the node."))
      .Property("nodeName", Schema::String().Description("The Node's name."))
      .Property("providerID", Schema::String().Description("The cloud provider's ID of the "
                                                           "instance."));
}

}  // namespace

CustomResourceDefinition NodeClaimDefinition() {
  CustomResourceDefinition d;
  d.group = "karpenter.sh";
  d.version = "v1";
  d.kind = "NodeClaim";
  d.plural = "nodeclaims";
  d.singular = "nodeclaim";
  d.categories = {"karpenter"};
  d.printer_columns = {
      {"Type", "string", R"(.metadata.labels.node\.kubernetes\.io/instance-type)"},
      {"Capacity", "string", R"(.metadata.labels.karpenter\.sh/capacity-type)"},
      {"Zone", "string", R"(.metadata.labels.topology\.kubernetes\.io/zone)"},
      {"Node", "string", ".status.nodeName"},
      {"Ready", "string", R"(.status.conditions[?(@.type=="Ready")].status)"},
      {"Age", "date", ".metadata.creationTimestamp"},
      {"ImageID", "string", ".status.imageID", 1},
      {"ID", "string", ".status.providerID", 1},
      {"NodePool", "string", R"(.metadata.labels.karpenter\.sh/nodepool)", 1},
      {"NodeClass", "string", ".spec.nodeClassRef.name", 1},
      {"Drifted", "string", R"(.status.conditions[?(@.type=="Drifted")].status)", 1},
  };
  d.schema = ObjectRoot("A NodeClaim: a request for one node, and what became of it.")
                 .Property("spec", NodeClaimSpec(NodeClaimSpecUse::kNodeClaim)
                                       .Rule("self == oldSelf", "spec is immutable"))
                 .Property("status", Status())
                 .Required({"spec"});
  return d;
}

}  // namespace nodesmith::crds
