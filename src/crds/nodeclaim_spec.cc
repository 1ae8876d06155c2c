#include "crds/nodeclaim_spec.h"

#include <string>

#include "crds/common_schemas.h"

namespace nodesmith::crds {

namespace {

// A rule on one label key `k`: the key itself (`self`), or each key of a map (`self.all(x, ...)`).
using KeyRule = std::string (*)(const std::string& k);

std::string OverKeys(KeyRule rule, bool over_map) {
  return over_map ? "self.all(x, " + rule("x") + ")" : rule("self");
}

Schema NodeClassReference(NodeClaimSpecUse use) {
  Schema ref = Schema::Object()
                   .Description("The provider's node class this claim is launched with.")
                   .Property("group", Schema::String()
                                          .Description("The node class's API group.")
                                          .Pattern("^[^/]*$")
                                          .Rule("self != ''", "group may not be empty"))
                   .Property("kind", Schema::String()
                                         .Description("The node class's kind.")
                                         .Rule("self != ''", "kind may not be empty"))
                   .Property("name", Schema::String()
                                         .Description("The node class's name.")
                                         .Rule("self != ''", "name may not be empty"))
                   .Required({"group", "kind", "name"});
  if (use == NodeClaimSpecUse::kNodePoolTemplate) {
    ref.Rule("self.group == oldSelf.group", "nodeClassRef.group is immutable")
        .Rule("self.kind == oldSelf.kind", "nodeClassRef.kind is immutable");
  }
  return ref;
}

Schema Requirements(NodeClaimSpecUse use) {
  Schema key = Schema::String()
                   .Description("The label key the requirement constrains.")
                   .MaxLength(316)
                   .Pattern(kQualifiedNamePattern);
  AddRestrictedLabelRules(key, use, /*over_map=*/false);
  // maxLength and pattern sit on the values list itself, not on its items, as in Karpenter's
  // CRDs; the API server applies them to strings only, so the values are not checked.
  Schema values = Schema::Array(Schema::String())
                      .Description(
                          "The values: several for In and NotIn, none for Exists and "
                          "DoesNotExist, one integer for Gt, Lt, Gte and Lte.")
                      .ListType("atomic")
                      .MaxLength(63)
                      .Pattern(kLabelValuePattern);
  Schema requirement =
      Schema::Object()
          .Description("A node selector requirement, with the least number of values to keep.")
          .Property("key", key)
          .Property("minValues",
                    Schema::Integer()
                        .Description("The least number of distinct values the launch must keep.")
                        .Minimum(1)
                        .Maximum(50))
          .Property("operator",
                    Schema::String()
                        .Description("How the key relates to the values.")
                        .Enum({"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"}))
          .Property("values", values)
          .Required({"key", "operator"});
  return Schema::Array(requirement)
      .Description("Constraints on the labels of the nodes launched.")
      .MaxItems(100)
      .ListType("atomic")
      .Rule("self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)",
            "requirements with operator 'In' must have a value defined")
      .Rule(
          "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || "
          "x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)",
          "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive "
          "integer value")
      .Rule(
          "self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= "
          "x.minValues : true)",
          "requirements with 'minValues' must have at least that many values specified in the "
          "'values' field");
}

}  // namespace

Schema& AddRestrictedLabelRules(Schema& schema, NodeClaimSpecUse use, bool over_map) {
  KeyRule domain = [](const std::string& k) {
    return k + R"( in ["karpenter.sh/capacity-type", "karpenter.sh/nodepool"] || !)" + k +
           R"cel(.find("^([^/]+)").endsWith("karpenter.sh"))cel";
  };
  KeyRule nodepool = [](const std::string& k) { return k + R"( != "karpenter.sh/nodepool")"; };
  KeyRule hostname = [](const std::string& k) { return k + R"( != "kubernetes.io/hostname")"; };
  schema.Rule(OverKeys(domain, over_map), R"(label domain "karpenter.sh" is restricted)");
  if (use == NodeClaimSpecUse::kNodePoolTemplate) {
    schema.Rule(OverKeys(nodepool, over_map), R"(label "karpenter.sh/nodepool" is restricted)");
  }
  return schema.Rule(OverKeys(hostname, over_map),
                     R"(label "kubernetes.io/hostname" is restricted)");
}

Schema NodeClaimSpec(NodeClaimSpecUse use) {
  Schema spec =
      Schema::Object()
          .Property("expireAfter",
                    Schema::String()
                        .Description("How long a node lives before it is replaced, or Never.")
                        .Pattern(kDurationOrNeverPattern)
                        .Default("720h"))
          .Property("nodeClassRef", NodeClassReference(use))
          .Property("requirements", Requirements(use))
          .Property("startupTaints",
                    TaintList("Taints the node starts with and something on the node removes; "
                              "pods need not tolerate them to be provisioned for."))
          .Property("taints", TaintList("Taints the node is given."))
          .Property("terminationGracePeriod",
                    Schema::String()
                        .Description("How long a draining node waits for its pods before they "
                                     "are deleted regardless of PDBs and do-not-disrupt.")
                        .Pattern(kDurationPattern))
          .Required({"nodeClassRef", "requirements"});
  if (use == NodeClaimSpecUse::kNodeClaim) {
    spec.Description("What the NodeClaim asks of its node.")
        .Property(
            "resources",
            Schema::Object()
                .Description("The resources the node must provide.")
                .Property("requests", ResourceList("The least resources the node must have.")));
  } else {
    spec.Description("The spec of every NodeClaim the NodePool launches.");
  }
  return spec;
}

}  // namespace nodesmith::crds
