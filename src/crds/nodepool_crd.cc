// karpenter.sh/v1 NodePool: what nodes may be launched (a NodeClaim template), how they may be
// disrupted, how much may be launched, or a fixed number of nodes (replicas).
#include "crds/common_schemas.h"
#include "crds/crds.h"
#include "crds/nodeclaim_spec.h"

namespace nodesmith::crds {

namespace {

Schema Budget() {
  return Schema::Object()
      .Description(
          "At most `nodes` of the pool's NodeClaims are disrupted at once, for the listed "
          "reasons, while the schedule's window is open.")
      .Property("duration",
                Schema::String()
                    .Description("How long the budget is active after each schedule hit "
                                 "(minutes and hours); required with schedule.")
                    .Pattern(R"(^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$)"))
      .Property("nodes", Schema::String()
                             .Description("A node count or a percentage of the pool's nodes.")
                             .Pattern(R"(^((100|[0-9]{1,2})%|[0-9]+)$)")
                             .Default("10%"))
      .Property("reasons",
                Schema::Array(Schema::String()
                                  .Description("A disruption reason.")
                                  .Enum({"Underutilized", "Empty", "Drifted"}))
                    .Description("The disruption reasons the budget limits; all when unset.")
                    .MaxItems(50)
                    .ListType("set"))
      .Property(
          "schedule",
          Schema::String()
              .Description("When the budget becomes active, in cron syntax (UTC); "
                           "required with duration.")
              .Pattern(
                  R"(^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$)"))
      .Required({"nodes"});
}

Schema Disruption() {
  return Schema::Object()
      .Description("How and when nodesmith may disrupt the pool's nodes.")
      .Property("budgets",
                Schema::Array(Budget())
                    .Description("Limits on simultaneous disruptions; the most restrictive "
                                 "active budget wins.")
                    .MaxItems(50)
                    .ListType("atomic")
                    .Default(nlohmann::ordered_json::array({{{"nodes", "10%"}}}))
                    .Rule("self.all(x, has(x.schedule) == has(x.duration))",
                          "'schedule' must be set with 'duration'"))
      .Property("consolidateAfter",
                Schema::String()
                    .Description("How long a node must be consolidatable before it is "
                                 "consolidated, or Never; ignored when replicas is set.")
                    .Pattern(kDurationOrNeverPattern)
                    .Default("0s"))
      .Property("consolidationPolicy",
                Schema::String()
                    .Description("Which nodes consolidation may remove; ignored when replicas "
                                 "is set.")
                    .Enum({"WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"})
                    .Default("WhenEmptyOrUnderutilized"))
      .Default({{"consolidateAfter", "0s"}});
}

Schema TemplateMetadata() {
  Schema labels = Schema::Map(Schema::String().MaxLength(63).Pattern(kLabelValuePattern))
                      .Description("Labels every node of the pool carries.")
                      .MapType("atomic")
                      .MaxProperties(100);
  AddRestrictedLabelRules(labels, NodeClaimSpecUse::kNodePoolTemplate, /*over_map=*/true);
  return Schema::Object()
      .Description("Labels and annotations of the NodeClaims and nodes launched.")
      .Property("annotations", Schema::Map(Schema::String())
                                   .Description("Annotations every node of the pool carries.")
                                   .MapType("granular"))
      .Property("labels", labels);
}

Schema Spec() {
  return Schema::Object()
      .Description("What the NodePool launches and how it manages its nodes.")
      .Property("disruption", Disruption())
      .Property("limits", ResourceList("Bounds on the capacity the pool may launch; only nodes "
                                       "when replicas is set."))
      .Property("replicas", Schema::Int64()
                                .Description("A fixed number of nodes to keep, instead of "
                                             "scaling with pending pods (alpha).")
                                .Minimum(0))
      .Property("template",
                Schema::Object()
                    .Description("The template of the NodeClaims the pool launches.")
                    .Property("metadata", TemplateMetadata())
                    .Property("spec", NodeClaimSpec(NodeClaimSpecUse::kNodePoolTemplate))
                    .Required({"spec"}))
      .Property("weight", Schema::Int32()
                              .Description("The pool's priority: higher weights are tried first; "
                                           "not with replicas.")
                              .Minimum(1)
                              .Maximum(100))
      .Required({"template"})
      .Rule("has(self.replicas) == has(oldSelf.replicas)",
            "Cannot transition NodePool between static (replicas set) and dynamic (replicas "
            "unset) provisioning modes")
      .Rule(
          "!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || "
          "(size(self.limits) == 1 && 'nodes' in self.limits))",
          "only 'limits.nodes' is supported on static NodePools")
      .Rule("!has(self.replicas) || !has(self.weight)",
            "'weight' is not supported on static NodePools");
}

Schema Status() {
  return Schema::Object()
      .Description("What nodesmith observed of the NodePool.")
      .Property("conditions", ConditionList({}))
      .Property("nodeClassObservedGeneration",
                Schema::Int64().Description("The generation of the node class last observed."))
      .Property("nodes", Schema::Int64().Description("How many nodes the pool has.").Default(0))
      .Property("resources", ResourceList("The capacity of the pool's nodes, summed."));
}

}  // namespace

CustomResourceDefinition NodePoolDefinition() {
  CustomResourceDefinition d;
  d.group = "karpenter.sh";
  d.version = "v1";
  d.kind = "NodePool";
  d.plural = "nodepools";
  d.singular = "nodepool";
  d.categories = {"karpenter"};
  d.printer_columns = {
      {"NodeClass", "string", ".spec.template.spec.nodeClassRef.name"},
      {"Nodes", "string", ".status.nodes"},
      {"Ready", "string", R"(.status.conditions[?(@.type=="Ready")].status)"},
      {"Age", "date", ".metadata.creationTimestamp"},
      {"Weight", "integer", ".spec.weight", 1},
      {"CPU", "string", ".status.resources.cpu", 1},
      {"Memory", "string", ".status.resources.memory", 1},
  };
  d.scale = ScaleSubresource{".spec.replicas", ".status.nodes"};
  d.schema = ObjectRoot("A NodePool: the nodes nodesmith may launch and how it manages them.")
                 .Property("spec", Spec())
                 .Property("status", Status())
                 .Required({"spec"});
  return d;
}

}  // namespace nodesmith::crds
