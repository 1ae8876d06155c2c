// karpenter.k8s.aws/v1 EC2NodeClass: how nodes are launched on EC2 — AMIs, subnets, security
// groups, the node's IAM role, block devices, network interfaces, instance metadata, tags.
#include <string>
#include <vector>

#include "crds/ami_families.h"
#include "crds/common_schemas.h"
#include "crds/crds.h"

namespace nodesmith::crds {

namespace {

// A tag selector: every tag must match; at most 20, no empty keys or values.
Schema TagSelector() {
  return Schema::Map(Schema::String())
      .Description("Tags the resource must carry (\"*\" matches any value).")
      .MaxProperties(20)
      .Rule("self.all(k, k != '' && self[k] != '')", "empty tag keys or values aren't supported");
}

// "'a'<sep>'b'": the names quoted as CEL strings.
std::string Quoted(const std::vector<std::string>& names, const char* sep) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + ("'" + names[i] + "'");
  return out;
}

// "has(x.a) || has(x.b)"
std::string AnyOf(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? " || has(x." : "has(x.") + fields[i] + ")";
  return out;
}

// The rule that each term of a selector names at least one of `fields`.
ValidationRule AtLeastOne(const std::vector<std::string>& fields) {
  return {"self.all(x, " + AnyOf(fields) + ")",
          "expected at least one, got none, [" + Quoted(fields, ", ") + "]"};
}

Schema AmiSelectorTerms() {
  std::vector<std::string> all_aliases, windows_aliases;
  for (const AmiFamily& f : AliasAmiFamilies()) {
    all_aliases.push_back(f.alias);
    if (f.latest_only) windows_aliases.push_back(f.alias);
  }
  Schema alias =
      Schema::String()
          .Description("An AMI alias, family@version (\"al2023@latest\", \"al2023@v20240807\").")
          .MaxLength(30)
          .Rule("self.matches('^[a-zA-Z0-9]+@.+$')",
                "'alias' is improperly formatted, must match the format 'family@version'")
          .Rule(
              "self.split('@')[0] in [" + Quoted(all_aliases, ",") + "]",
              "family is not supported, must be one of the following: " + Quoted(all_aliases, ", "))
          .Rule("self.split('@')[0] in [" + Quoted(windows_aliases, ",") +
                    "] ? self.split('@')[1] == 'latest' : true",
                "windows families may only specify version 'latest'");
  Schema term =
      Schema::Object()
          .Description("One way to select AMIs; terms are ORed, a term's fields ANDed.")
          .Property("alias", alias)
          .Property("id", Schema::String().Description("An AMI ID.").Pattern("ami-[0-9a-z]+"))
          .Property("name", Schema::String().Description("An AMI name; may use wildcards."))
          .Property("owner", Schema::String().Description("An AWS account ID, or an alias such "
                                                          "as \"amazon\" or \"self\"."))
          .Property("ssmParameter",
                    Schema::String().Description("An SSM parameter whose value is an AMI ID."))
          .Property("tags", TagSelector());
  return Schema::Array(term)
      .Description("How to find the nodes' AMIs.")
      .MaxItems(30)
      .MinItems(1)
      .Rule(AtLeastOne({"tags", "id", "name", "alias", "ssmParameter"}))
      .Rule(
          "!self.exists(x, has(x.id) && (has(x.alias) || has(x.tags) || has(x.name) || "
          "has(x.owner)))",
          "'id' is mutually exclusive, cannot be set with a combination of other fields in "
          "amiSelectorTerms")
      .Rule(
          "!self.exists(x, has(x.alias) && (has(x.id) || has(x.tags) || has(x.name) || "
          "has(x.owner)))",
          "'alias' is mutually exclusive, cannot be set with a combination of other fields in "
          "amiSelectorTerms")
      .Rule("!(self.exists(x, has(x.alias)) && self.size() != 1)",
            "'alias' is mutually exclusive, cannot be set with a combination of other "
            "amiSelectorTerms");
}

Schema BlockDeviceMappings() {
  Schema ebs =
      Schema::Object()
          .Description("The EBS volume.")
          .Property("deleteOnTermination",
                    Schema::Boolean().Description("Whether the volume goes with the instance."))
          .Property("encrypted", Schema::Boolean().Description("Whether the volume is encrypted."))
          .Property("iops", Schema::Int64().Description("Provisioned IOPS (io1, io2, gp3)."))
          .Property("kmsKeyID", Schema::String().Description("The KMS key that encrypts it."))
          .Property("snapshotID", Schema::String().Description("The snapshot it starts from."))
          .Property("throughput", Schema::Int64().Description("Throughput in MiB/s (gp3)."))
          .Property("volumeInitializationRate",
                    Schema::Int32()
                        .Description("MiB/s at which a snapshot's blocks are initialized; needs "
                                     "snapshotID.")
                        .Minimum(100)
                        .Maximum(300))
          .Property(
              "volumeSize",
              Schema::String()
                  .Description("The size, up to 64T (59000Gi), e.g. \"20Gi\".")
                  .Pattern(
                      R"(^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$)"))
          .Property("volumeType", Schema::String()
                                      .Description("The volume type.")
                                      .Enum({"standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"}))
          .Rule("has(self.snapshotID) || has(self.volumeSize)",
                "snapshotID or volumeSize must be defined")
          .Rule(
              "!has(self.volumeInitializationRate) || (has(self.snapshotID) && "
              "self.snapshotID != '')",
              "snapshotID must be set when volumeInitializationRate is set");
  Schema mapping =
      Schema::Object()
          .Description("A volume attached to the instance.")
          .Property("deviceName", Schema::String().Description("The device name (/dev/xvda)."))
          .Property("ebs", ebs)
          .Property("rootVolume",
                    Schema::Boolean().Description("Whether this is the root volume."));
  return Schema::Array(mapping)
      .Description("The instance's volumes.")
      .MaxItems(50)
      .Rule("self.filter(x, has(x.rootVolume)?x.rootVolume==true:false).size() <= 1",
            "must have only one blockDeviceMappings with rootVolume");
}

Schema CapacityReservationSelectorTerms() {
  Schema term =
      Schema::Object()
          .Description("One way to select capacity reservations.")
          .Property(
              "id",
              Schema::String().Description("A capacity reservation ID.").Pattern("^cr-[0-9a-z]+$"))
          .Property("instanceMatchCriteria", Schema::String()
                                                 .Description("open or targeted reservations.")
                                                 .Enum({"open", "targeted"}))
          .Property("ownerID", Schema::String()
                                   .Description("The AWS account that owns the reservation.")
                                   .Pattern("^[0-9]{12}$"))
          .Property("tags", TagSelector());
  return Schema::Array(term)
      .Description("The capacity reservations nodes may launch into.")
      .MaxItems(30)
      .Rule(AtLeastOne({"tags", "id", "instanceMatchCriteria"}))
      // Karpenter's rule reads `!self.all(...)`: it rejects only lists in which every term mixes
      // id with other fields. Kept as is, for the same effect.
      .Rule(
          "!self.all(x, has(x.id) && (has(x.tags) || has(x.ownerID) || "
          "has(x.instanceMatchCriteria)))",
          "'id' is mutually exclusive, cannot be set along with other fields in a capacity "
          "reservation selector term");
}

Schema ConnectionTracking() {
  return Schema::Object()
      .Description("Idle connection-tracking timeouts of the instance's interfaces.")
      .Property(
          "tcpEstablishedTimeout",
          Schema::Int32().Description("Seconds for established TCP.").Minimum(60).Maximum(432000))
      .Property("udpStreamTimeout",
                Schema::Int32().Description("Seconds for UDP streams.").Minimum(60).Maximum(180))
      .Property("udpTimeout",
                Schema::Int32().Description("Seconds for other UDP.").Minimum(30).Maximum(60))
      .Rule(
          "has(self.tcpEstablishedTimeout) || has(self.udpStreamTimeout) || "
          "has(self.udpTimeout)",
          "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set");
}

Schema MetadataOptions() {
  auto enabled_disabled = [] { return Schema::String().Enum({"enabled", "disabled"}); };
  return Schema::Object()
      .Description("The instance metadata service (IMDS) options.")
      .Property("httpEndpoint",
                enabled_disabled().Description("Whether IMDS is reachable.").Default("enabled"))
      .Property(
          "httpProtocolIPv6",
          enabled_disabled().Description("Whether IMDS has an IPv6 endpoint.").Default("disabled"))
      .Property("httpPutResponseHopLimit", Schema::Int64()
                                               .Description("The hop limit of IMDS PUT responses.")
                                               .Minimum(1)
                                               .Maximum(64)
                                               .Default(1))
      .Property("httpTokens", Schema::String()
                                  .Description("Whether IMDSv2 session tokens are required.")
                                  .Enum({"required", "optional"})
                                  .Default("required"))
      .Default({{"httpEndpoint", "enabled"},
                {"httpProtocolIPv6", "disabled"},
                {"httpPutResponseHopLimit", 1},
                {"httpTokens", "required"}});
}

Schema NetworkInterfaces() {
  Schema nic =
      Schema::Object()
          .Description("A network interface of the instance.")
          .Property("deviceIndex", Schema::Int32().Description("The device index.").Minimum(0))
          .Property("interfaceType", Schema::String()
                                         .Description("interface, or efa-only.")
                                         .Enum({"interface", "efa-only"}))
          .Property("networkCardIndex",
                    Schema::Int32().Description("The network card index.").Minimum(0))
          .Required({"deviceIndex", "interfaceType", "networkCardIndex"});
  return Schema::Array(nic)
      .Description("The instance's network interfaces; the default is one primary interface.")
      .MaxItems(150)
      .Rule(
          "self.size() == 0 || self.exists(x, x.deviceIndex == 0 && x.networkCardIndex == 0 && "
          "x.interfaceType == 'interface')",
          "networkInterfaces must include a primary interface with interfaceType='interface'")
      .Rule(
          "self.all(x, self.filter(y, x.networkCardIndex == y.networkCardIndex && "
          "x.deviceIndex == y.deviceIndex).size() == 1 && (x.interfaceType != 'efa-only' || "
          "self.filter(y, x.networkCardIndex == y.networkCardIndex && y.interfaceType == "
          "'efa-only').size() == 1))",
          "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, "
          "and can have at most one efa device per network card");
}

Schema SecurityGroupSelectorTerms() {
  Schema term =
      Schema::Object()
          .Description("One way to select security groups.")
          .Property("id",
                    Schema::String().Description("A security group ID.").Pattern("sg-[0-9a-z]+"))
          .Property("name", Schema::String().Description("A security group name."))
          .Property("tags", TagSelector());
  return Schema::Array(term)
      .Description("How to find the nodes' security groups.")
      .MaxItems(30)
      .Rule("self.size() != 0", "securityGroupSelectorTerms cannot be empty")
      .Rule(AtLeastOne({"tags", "id", "name"}))
      .Rule("!self.all(x, has(x.id) && (has(x.tags) || has(x.name)))",
            "'id' is mutually exclusive, cannot be set with a combination of other fields in a "
            "security group selector term")
      .Rule("!self.all(x, has(x.name) && (has(x.tags) || has(x.id)))",
            "'name' is mutually exclusive, cannot be set with a combination of other fields in a "
            "security group selector term");
}

Schema SubnetSelectorTerms() {
  Schema term =
      Schema::Object()
          .Description("One way to select subnets.")
          .Property("id", Schema::String().Description("A subnet ID.").Pattern("subnet-[0-9a-z]+"))
          .Property("tags", TagSelector());
  return Schema::Array(term)
      .Description("How to find the nodes' subnets.")
      .MaxItems(30)
      .Rule("self.size() != 0", "subnetSelectorTerms cannot be empty")
      .Rule(AtLeastOne({"tags", "id"}))
      .Rule("!self.all(x, has(x.id) && has(x.tags))",
            "'id' is mutually exclusive, cannot be set with a combination of other fields in a "
            "subnet selector term");
}

Schema Tags() {
  Schema tags = Schema::Map(Schema::String())
                    .Description("Tags put on the instances, volumes and launch templates.")
                    .Rule("self.all(k, k != '')", "empty tag keys aren't supported")
                    .Rule("self.all(k, k !='eks:eks-cluster-name')",
                          "tag contains a restricted tag matching eks:eks-cluster-name")
                    .Rule("self.all(k, !k.startsWith('kubernetes.io/cluster') )",
                          "tag contains a restricted tag matching kubernetes.io/cluster/");
  for (const char* owned :
       {"karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass"}) {
    // Karpenter spells the first of these rules with spaces on both sides of "!=".
    std::string op = std::string(owned) == "karpenter.sh/nodepool" ? " != '" : " !='";
    tags.Rule("self.all(k, k" + op + owned + "')",
              std::string("tag contains a restricted tag matching ") + owned);
  }
  return tags;
}

Schema Spec() {
  Schema spec =
      Schema::Object()
          .Description("How the node class's instances are launched.")
          .Property("amiFamily", Schema::String()
                                     .Description("The AMI family, which shapes user data and "
                                                  "block devices; implied by an alias.")
                                     .Enum({"AL2", "AL2023", "Bottlerocket", "Custom",
                                            "Windows2019", "Windows2022", "Windows2025"}))
          .Property("amiSelectorTerms", AmiSelectorTerms())
          .Property("associatePublicIPAddress",
                    Schema::Boolean().Description("Whether instances get a public IPv4 address."))
          .Property("blockDeviceMappings", BlockDeviceMappings())
          .Property("capacityReservationSelectorTerms", CapacityReservationSelectorTerms())
          .Property("connectionTracking", ConnectionTracking())
          .Property("context", Schema::String().Description("The EC2 Fleet context (reserved)."))
          .Property("cpuOptions",
                    Schema::Object()
                        .Description("The instances' CPU options.")
                        .Property("nestedVirtualization",
                                  Schema::String()
                                      .Description("Whether nested virtualization is on; when "
                                                   "enabled, only types that support it.")
                                      .Enum({"enabled", "disabled"})))
          .Property("detailedMonitoring",
                    Schema::Boolean().Description("Whether CloudWatch detailed monitoring is on."))
          .Property("instanceProfile",
                    Schema::String()
                        .Description("The IAM instance profile of the nodes; not with role.")
                        .Rule("self != ''", "instanceProfile cannot be empty"))
          .Property("instanceStorePolicy",
                    Schema::String()
                        .Description("RAID0: the instance store volumes become one RAID-0 array "
                                     "used for ephemeral storage.")
                        .Enum({"RAID0"}))
          .Property("ipPrefixCount",
                    Schema::Int32()
                        .Description("IPv4 prefixes assigned to the primary network interface.")
                        .Minimum(0))
          .Property("kubelet", Schema::Map(Schema::Any())
                                   .Description("kubelet settings (maxPods, reservations, "
                                                "eviction thresholds, ...).")
                                   .PreserveUnknownFields())
          .Property("metadataOptions", MetadataOptions())
          .Property("networkInterfaces", NetworkInterfaces())
          .Property(
              "placementGroupSelector",
              Schema::Object()
                  .Description("The placement group instances launch into.")
                  .Property("id", Schema::String()
                                      .Description("A placement group ID.")
                                      .Pattern("^pg-[0-9a-z]+$"))
                  .Property("name",
                            Schema::String().Description("A placement group name.").MinLength(1))
                  .Rule("has(self.name) || has(self.id)",
                        "expected at least one, got none, ['name', 'id']")
                  .Rule("!(has(self.name) && has(self.id))",
                        "'name' and 'id' are mutually exclusive"))
          .Property("role", Schema::String()
                                .Description("The IAM role of the nodes (an instance profile is "
                                             "made for it); not with instanceProfile.")
                                .Rule("self != ''", "role cannot be empty"))
          .Property("securityGroupSelectorTerms", SecurityGroupSelectorTerms())
          .Property("subnetSelectorTerms", SubnetSelectorTerms())
          .Property("tags", Tags())
          .Property("userData", Schema::String().Description("User data merged with what the AMI "
                                                             "family generates."))
          .Required({"amiSelectorTerms", "securityGroupSelectorTerms", "subnetSelectorTerms"})
          .Rule(
              "(has(self.role) && !has(self.instanceProfile)) || (!has(self.role) && "
              "has(self.instanceProfile))",
              "must specify exactly one of ['role', 'instanceProfile']");
  for (const AmiFamily& f : AliasAmiFamilies()) {
    std::string family = f.ami_family, alias = f.alias;
    spec.Rule(
        "!has(self.amiFamily) || (self.amiSelectorTerms.exists(x, has(x.alias) && "
        "x.alias.find('^[^@]+') == '" +
            alias +
            "') ? (self.amiFamily == 'Custom' || "
            "self.amiFamily == '" +
            family + "') : true)",
        "if set, amiFamily must be '" + family + "' or 'Custom' when using " +
            (family.rfind("AL", 0) == 0 ? "an " : "a ") + family + " alias");
  }
  return spec.Rule("self.amiSelectorTerms.exists(x, has(x.alias)) ? true : has(self.amiFamily)",
                   "must specify amiFamily if amiSelectorTerms does not contain an alias");
}

Schema Status() {
  Schema requirement =
      Schema::Object()
          .Description("A node selector requirement.")
          .Property("key", Schema::String().Description("The label key."))
          .Property("operator", Schema::String().Description("How the key relates to values."))
          .Property("values",
                    Schema::Array(Schema::String()).Description("The values.").ListType("atomic"))
          .Required({"key", "operator"});
  Schema ami =
      Schema::Object()
          .Description("An AMI the selector terms resolved to.")
          .Property("deprecated", Schema::Boolean().Description("Whether the AMI is deprecated."))
          .Property("id", Schema::String().Description("The AMI ID."))
          .Property("name", Schema::String().Description("The AMI name."))
          .Property("requirements",
                    Schema::Array(requirement).Description("The instance types the AMI is for."))
          .Required({"id", "requirements"});
  Schema reservation =
      Schema::Object()
          .Description("A capacity reservation the selector terms resolved to.")
          .Property("availabilityZone", Schema::String().Description("Its availability zone."))
          .Property("endTime", Schema::DateTime().Description("When it ends, if it does."))
          .Property("id", Schema::String().Description("Its ID.").Pattern("^cr-[0-9a-z]+$"))
          .Property("instanceMatchCriteria",
                    Schema::String().Description("open or targeted.").Enum({"open", "targeted"}))
          .Property("instanceType", Schema::String().Description("Its instance type."))
          .Property("interruptible",
                    Schema::Boolean().Description("Whether it may be interrupted."))
          .Property(
              "ownerID",
              Schema::String().Description("The AWS account that owns it.").Pattern("^[0-9]{12}$"))
          .Property("reservationType", Schema::String()
                                           .Description("default, or capacity-block.")
                                           .Enum({"default", "capacity-block"})
                                           .Default("default"))
          .Property("state", Schema::String()
                                 .Description("active, or expiring.")
                                 .Enum({"active", "expiring"})
                                 .Default("active"))
          .Required({"availabilityZone", "id", "instanceMatchCriteria", "instanceType", "ownerID"});
  return Schema::Object()
      .Description("What the node class resolved to.")
      .Property("amis", Schema::Array(ami).Description("The AMIs nodes may launch with."))
      .Property("capacityReservations", Schema::Array(reservation)
                                            .Description("The capacity reservations nodes may "
                                                         "launch into."))
      .Property("conditions", ConditionList({.keyed_by_type = false}))
      .Property("instanceProfile",
                Schema::String().Description("The instance profile of the nodes."))
      .Property("securityGroups",
                Schema::Array(Schema::Object()
                                  .Description("A security group.")
                                  .Property("id", Schema::String().Description("Its ID."))
                                  .Property("name", Schema::String().Description("Its name."))
                                  .Required({"id"}))
                    .Description("The security groups of the nodes."))
      .Property("subnets",
                Schema::Array(Schema::Object()
                                  .Description("A subnet.")
                                  .Property("id", Schema::String().Description("Its ID."))
                                  .Property("zone", Schema::String().Description("Its zone."))
                                  .Property("zoneID", Schema::String().Description("Its zone ID."))
                                  .Required({"id", "zone"}))
                    .Description("The subnets nodes may launch into."));
}

}  // namespace

CustomResourceDefinition EC2NodeClassDefinition() {
  CustomResourceDefinition d;
  d.group = "karpenter.k8s.aws";
  d.version = "v1";
  d.kind = "EC2NodeClass";
  d.plural = "ec2nodeclasses";
  d.singular = "ec2nodeclass";
  d.short_names = {"ec2nc", "ec2ncs"};
  d.categories = {"karpenter"};
  d.printer_columns = {
      {"Ready", "string", R"(.status.conditions[?(@.type=="Ready")].status)"},
      {"Age", "date", ".metadata.creationTimestamp"},
      {"Role", "string", ".spec.role", 1},
  };
  d.schema = ObjectRoot("An EC2NodeClass: how nodes are launched on EC2.")
                 .Property("spec", Spec())
                 .Property("status", Status());
  return d;
}

}  // namespace nodesmith::crds
