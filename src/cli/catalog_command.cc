// `nodesmith catalog`: lists the instance types of a catalog with capacity, overhead,
// allocatable, max pods, labels and offerings with prices.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/inputs.h"
#include "cli/text_table.h"
#include "cloud/aws/aws_session.h"
#include "cloud/aws/live_catalog.h"
#include "cloud/catalog.h"
#include "core/system_clock.h"
#include "scheduling/requirements.h"

namespace nodesmith::cli {
namespace {

nlohmann::ordered_json ResourcesJson(const api::ResourceList& list) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, q] : list.items()) out[name] = q.String();
  return out;
}

// Requirements that are not a single value (zones, capacity types, DoesNotExist, ...): the
// labels map shows the single-valued ones.
nlohmann::ordered_json RequirementsJson(const scheduling::Requirements& reqs) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const scheduling::Requirement& r : reqs) {
    if (r.op() == scheduling::Operator::kIn && r.Values().size() == 1) continue;
    nlohmann::ordered_json j;
    j["key"] = r.key();
    j["operator"] = std::string(scheduling::OperatorName(r.op()));
    if (!r.Values().empty()) j["values"] = r.Values();
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json InstanceTypeJson(const cloud::InstanceType& it) {
  nlohmann::ordered_json j;
  j["name"] = it.name;
  j["capacity"] = ResourcesJson(it.capacity);
  j["overhead"] = {{"kubeReserved", ResourcesJson(it.overhead.kube_reserved)},
                   {"systemReserved", ResourcesJson(it.overhead.system_reserved)},
                   {"evictionThreshold", ResourcesJson(it.overhead.eviction_threshold)}};
  j["allocatable"] = ResourcesJson(it.allocatable);
  j["maxPods"] = it.capacity.Get(api::kResourcePods).Value();
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  for (const auto& [k, v] : it.requirements.SingleValuedLabels()) labels[k] = v;
  j["labels"] = std::move(labels);
  j["requirements"] = RequirementsJson(it.requirements);
  nlohmann::ordered_json offerings = nlohmann::ordered_json::array();
  for (const cloud::Offering& o : it.offerings) {
    offerings.push_back({{"zone", o.zone},
                         {"capacityType", o.capacity_type},
                         {"pricePerHour", o.price},
                         {"available", o.available}});
  }
  j["offerings"] = std::move(offerings);
  return j;
}

// The lowest available price of `capacity_type`, or "-" when the type has none.
std::string MinPrice(const cloud::InstanceType& it, const std::string& capacity_type) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& o : it.offerings) {
    if (o.available && o.capacity_type == capacity_type) best = std::min(best, o.price);
  }
  if (best == std::numeric_limits<double>::infinity()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", best);
  return buf;
}

std::string Joined(const std::vector<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ",") + v;
  return out.empty() ? "-" : out;
}

void PrintText(const cloud::Catalog& catalog, std::ostream& out) {
  out << "catalog " << catalog.source;
  if (!catalog.region.empty()) out << ", region " << catalog.region;
  out << ": " << catalog.instance_types.size()
      << (catalog.instance_types.size() == 1 ? " instance type\n" : " instance types\n");
  const std::vector<std::string> header = {"NAME",          "ARCH",         "CPU",
                                           "MEMORY",        "PODS",         "ALLOC CPU",
                                           "ALLOC MEMORY",  "OVERHEAD CPU", "OVERHEAD MEMORY",
                                           "ON-DEMAND $/H", "SPOT $/H",     "ZONES"};
  std::vector<std::vector<std::string>> rows = {header};
  for (const auto& it : catalog.instance_types) {
    const api::ResourceList overhead = it->overhead.Total();
    const scheduling::Requirement arch = it->requirements.Get(scheduling::kLabelArchStable);
    const scheduling::Requirement zones = it->requirements.Get(scheduling::kLabelTopologyZone);
    rows.push_back(
        {it->name, arch.complement() ? "-" : Joined(arch.Values()),
         it->capacity.Get(api::kResourceCpu).String(),
         it->capacity.Get(api::kResourceMemory).String(),
         it->capacity.Get(api::kResourcePods).String(),
         it->allocatable.Get(api::kResourceCpu).String(),
         it->allocatable.Get(api::kResourceMemory).String(),
         overhead.Get(api::kResourceCpu).String(), overhead.Get(api::kResourceMemory).String(),
         MinPrice(*it, cloud::kCapacityTypeOnDemand), MinPrice(*it, cloud::kCapacityTypeSpot),
         zones.complement() ? "-" : Joined(zones.Values())});
  }
  out << Table(rows);
}

struct CatalogFlags {
  InputFlags inputs;
  std::vector<std::string> instance_types;  // --instance-type: only these, shown in detail
  bool region_given = false;                // --region on the command line
};

// --catalog aws-live: what the account offers, read through the AWS SDKs' credential chain and
// endpoints (AWS_ENDPOINT_URL and friends). The region is --region when given, else the SDKs'
// (AWS_REGION, the shared config), else --region's default. ISOLATED_VPC=true leaves the Pricing
// API out, as it does for the controller. Fallbacks are warned about on stderr.
core::Result<cloud::Catalog> LoadLiveCatalog(const CatalogFlags& flags,
                                             const std::optional<api::EC2NodeClass>& node_class) {
  core::SystemClock clock;
  auto session_for = [&clock](std::string region) {
    aws::AwsSessionOptions options;
    options.region = std::move(region);
    options.clock = &clock;
    return aws::AwsSession::Create(std::move(options));
  };
  auto session = session_for(flags.region_given ? flags.inputs.region : "");
  if (!session.ok() && !flags.region_given) session = session_for(flags.inputs.region);
  if (!session.ok()) return session.status().WithPrefix("AWS session");
  aws::LiveCatalogOptions options;
  if (node_class) options.node_settings = cloud::Ec2NodeSettings::FromNodeClass(*node_class);
  const char* isolated = std::getenv("ISOLATED_VPC");
  options.isolated_vpc = isolated != nullptr && std::string(isolated) == "true";
  std::vector<std::string> warnings;
  auto catalog = aws::LoadLiveCatalog(**session, clock, options, &warnings);
  for (const auto& w : warnings) std::cerr << "warning: " << w << "\n";
  return catalog;
}

// One type in full, for --instance-type: every resource list, label, requirement and offering.
void PrintDetail(const cloud::InstanceType& it, std::ostream& out) {
  auto resources = [&out](const char* title, const api::ResourceList& list) {
    out << "  " << title << ": " << (list.empty() ? "-" : list.String()) << "\n";
  };
  out << it.name << "\n";
  resources("capacity", it.capacity);
  resources("kube-reserved", it.overhead.kube_reserved);
  resources("system-reserved", it.overhead.system_reserved);
  resources("eviction-threshold", it.overhead.eviction_threshold);
  resources("allocatable", it.allocatable);
  out << "  max pods: " << it.capacity.Get(api::kResourcePods).String() << "\n";
  out << "  labels:\n";
  for (const auto& [k, v] : it.requirements.SingleValuedLabels()) {
    out << "    " << k << "=" << v << "\n";
  }
  out << "  requirements:\n";
  for (const scheduling::Requirement& r : it.requirements) {
    if (r.op() == scheduling::Operator::kIn && r.Values().size() == 1) continue;
    out << "    " << r.String() << "\n";
  }
  out << "  offerings:\n";
  for (const cloud::Offering& o : it.offerings) {
    char price[32];
    std::snprintf(price, sizeof price, "%.6g", o.price);
    out << "    " << o.zone << " " << o.capacity_type << " $" << price << "/h"
        << (o.available ? "" : " (unavailable)") << "\n";
  }
}

int Run(const CatalogFlags& catalog_flags) {
  const InputFlags& flags = catalog_flags.inputs;
  // Optional -f inputs: an InstanceTypeCatalog among them wins over --catalog, and the first
  // EC2NodeClass's kubelet settings, AMI family and block devices shape the aws catalog.
  std::optional<api::ObjectSet> objects;
  if (!flags.files.empty()) {
    objects = LoadInputsOrReport(flags, std::cerr);
    if (!objects) return kExitBadInput;
  }
  std::optional<cloud::CatalogSource> source;
  std::optional<api::EC2NodeClass> node_class;
  if (objects) {
    if (!objects->instance_type_catalogs.empty()) {
      source = cloud::CatalogSource::FromObject(objects->instance_type_catalogs.front().object);
    }
    if (!objects->ec2_node_classes.empty()) node_class = objects->ec2_node_classes.front().object;
  }
  const bool live = !source && flags.catalog == aws::kLiveCatalogName;
  if (!source && !live) source = cloud::CatalogSource::FromFlag(flags.catalog);
  auto catalog = live ? LoadLiveCatalog(catalog_flags, node_class)
                      : cloud::LoadCatalog(*source, flags.region, node_class);
  if (!catalog.ok()) {
    std::cerr << "error: " << catalog.status().message() << "\n";
    const auto code = catalog.status().code();
    return code == core::StatusCode::kInvalidArgument || code == core::StatusCode::kNotFound
               ? kExitBadInput
               : kExitFailure;
  }
  if (!catalog_flags.instance_types.empty()) {
    cloud::InstanceTypes selected;
    for (const std::string& name : catalog_flags.instance_types) {
      auto it = std::find_if(catalog->instance_types.begin(), catalog->instance_types.end(),
                             [&name](const cloud::InstanceTypePtr& t) { return t->name == name; });
      if (it == catalog->instance_types.end()) {
        std::cerr << "error: --instance-type: \"" << name << "\" is not in catalog "
                  << catalog->source << "\n";
        return kExitBadInput;
      }
      selected.push_back(*it);
    }
    catalog->instance_types = std::move(selected);
  }
  if (flags.output == "json") {
    nlohmann::ordered_json out;
    out["kind"] = "InstanceTypeList";
    out["catalog"] = catalog->source;
    out["region"] = catalog->region.empty() ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(catalog->region);
    nlohmann::ordered_json types = nlohmann::ordered_json::array();
    for (const auto& it : catalog->instance_types) types.push_back(InstanceTypeJson(*it));
    out["instanceTypes"] = std::move(types);
    std::cout << out.dump(2) << "\n";
  } else if (!catalog_flags.instance_types.empty()) {
    for (const auto& it : catalog->instance_types) PrintDetail(*it, std::cout);
  } else {
    PrintText(*catalog, std::cout);
  }
  return kExitOk;
}

}  // namespace

void RegisterCatalog(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<CatalogFlags>();
  CLI::App* cmd = app.add_subcommand(
      "catalog",
      "List instance types: capacity, overhead, allocatable, max pods, labels, offerings");
  AddFileFlag(cmd, &flags->inputs, /*files_required=*/false);
  AddOutputFlag(cmd, &flags->inputs);
  AddCatalogFlags(cmd, &flags->inputs);
  cmd->add_option("-t,--instance-type", flags->instance_types,
                  "show only these instance types, in detail (repeatable)");
  cmd->get_option("--catalog")->description(
      "instance types: aws, kwok, aws-live (the account's, from the EC2 and Pricing APIs) or an "
      "InstanceTypeCatalog file (one among the inputs wins)");
  cmd->callback([cmd, flags, exit_code] {
    flags->region_given = cmd->get_option("--region")->count() > 0;
    *exit_code = Run(*flags);
  });
}

}  // namespace nodesmith::cli
