#include "cloud/aws/nodeclass_selectors.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "scheduling/well_known_labels.h"

namespace nodesmith::aws {

namespace {

void AddTagFilters(const std::map<std::string, std::string>& tags, std::vector<Ec2Filter>& out) {
  for (const auto& [k, v] : tags) {
    if (v == "*") {
      out.push_back({"tag-key", {k}});
    } else {
      out.push_back({"tag:" + k, {v}});
    }
  }
}

// "1.34" -> {1, 34}; nothing when it is not MAJOR.MINOR.
std::optional<std::pair<int, int>> MinorVersion(const std::string& v) {
  size_t dot = v.find('.');
  if (dot == std::string::npos) return std::nullopt;
  try {
    return std::make_pair(std::stoi(v.substr(0, dot)), std::stoi(v.substr(dot + 1)));
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<DescribeQuery> SubnetQueries(const std::vector<api::SelectorTerm>& terms) {
  std::vector<DescribeQuery> out;
  for (const api::SelectorTerm& t : terms) {
    DescribeQuery q;
    if (!t.id.empty()) q.filters.push_back({"subnet-id", {t.id}});
    AddTagFilters(t.tags, q.filters);
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<DescribeQuery> SecurityGroupQueries(const std::vector<api::SelectorTerm>& terms) {
  std::vector<DescribeQuery> out;
  for (const api::SelectorTerm& t : terms) {
    DescribeQuery q;
    if (!t.id.empty()) q.filters.push_back({"group-id", {t.id}});
    if (!t.name.empty()) q.filters.push_back({"group-name", {t.name}});
    AddTagFilters(t.tags, q.filters);
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<DescribeQuery> ImageQueries(const std::vector<api::SelectorTerm>& terms) {
  std::vector<DescribeQuery> out;
  for (const api::SelectorTerm& t : terms) {
    if (!t.alias.empty() || !t.ssm_parameter.empty()) continue;
    DescribeQuery q;
    if (!t.id.empty()) q.ids.push_back(t.id);
    if (!t.name.empty()) q.filters.push_back({"name", {t.name}});
    AddTagFilters(t.tags, q.filters);
    if (!t.owner.empty()) {
      q.owners.push_back(t.owner);
    } else if (t.id.empty() && t.tags.empty()) {
      // A name alone would match anyone's public image of that name: Karpenter defaults the
      // owners to this account and Amazon.
      q.owners = {"self", "amazon"};
    }
    q.filters.push_back({"state", {"available"}});
    out.push_back(std::move(q));
  }
  return out;
}

core::Result<std::vector<AliasParameter>> AliasParameters(const std::string& alias,
                                                          const std::string& k8s) {
  size_t at = alias.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == alias.size())
    return core::Status::Invalid("AMI alias \"" + alias + "\" is not family@version (e.g. al2023@latest)");
  std::string family = alias.substr(0, at);
  std::string version = alias.substr(at + 1);
  auto minor = MinorVersion(k8s);
  if (!minor) return core::Status::Invalid("Kubernetes version \"" + k8s + "\" is not MAJOR.MINOR");
  bool latest = version == "latest";
  std::vector<AliasParameter> out;
  if (family == "al2023") {
    for (const char* arch : {"x86_64", "arm64"}) {
      for (const char* variant : {"standard", "nvidia", "neuron"}) {
        if (std::string(arch) == "arm64" && std::string(variant) == "neuron") continue;
        std::string base = "/aws/service/eks/optimized-ami/" + k8s + "/amazon-linux-2023/" + arch + "/" + variant + "/";
        std::string leaf = latest ? "recommended" : "amazon-eks-node-al2023-" + std::string(arch) + "-" + variant + "-" + k8s + "-" + version;
        out.push_back({base + leaf + "/image_id", arch, variant});
      }
    }
  } else if (family == "al2") {
    if (*minor >= std::make_pair(1, 33))
      return core::Status::Invalid("AMI alias \"" + alias + "\": Amazon Linux 2 has no EKS AMIs for Kubernetes " + k8s + " (1.33 and later); use al2023@latest");
    struct Kind { const char* path; const char* arch; const char* variant; };
    for (Kind k : {Kind{"amazon-linux-2", "x86_64", "standard"}, Kind{"amazon-linux-2-arm64", "arm64", "standard"},
                   Kind{"amazon-linux-2-gpu", "x86_64", "nvidia"}}) {
      std::string base = "/aws/service/eks/optimized-ami/" + k8s + "/" + k.path + "/";
      std::string leaf = latest ? "recommended" : "amazon-eks-" + std::string(std::string(k.variant) == "nvidia" ? "gpu-" : std::string(k.arch) == "arm64" ? "arm64-" : "") + "node-" + k8s + "-" + version;
      out.push_back({base + leaf + "/image_id", k.arch, k.variant});
    }
  } else if (family == "bottlerocket") {
    for (const char* arch : {"x86_64", "arm64"}) {
      for (const char* variant : {"standard", "nvidia"}) {
        std::string flavour = "aws-k8s-" + k8s + (std::string(variant) == "nvidia" ? "-nvidia" : "");
        std::string v = latest ? "latest" : (version.front() == 'v' ? version.substr(1) : version);
        out.push_back({"/aws/service/bottlerocket/" + flavour + "/" + arch + "/" + v + "/image_id", arch, variant});
      }
    }
  } else if (family == "windows2019" || family == "windows2022" || family == "windows2025") {
    if (!latest)
      return core::Status::Invalid("AMI alias \"" + alias + "\": Windows aliases take only @latest");
    std::string year = family.substr(7);
    out.push_back({"/aws/service/ami-windows-latest/Windows_Server-" + year + "-English-Core-EKS_Optimized-" + k8s + "/image_id",
                   "x86_64", "standard"});
  } else {
    return core::Status::Invalid("AMI alias \"" + alias + "\": unknown family \"" + family +
                                 "\" (al2023, al2, bottlerocket, windows2019, windows2022, windows2025)");
  }
  return out;
}

std::vector<Subnet> SubnetPerZone(std::vector<Subnet> subnets) {
  std::map<std::string, Subnet> best;
  for (Subnet& s : subnets) {
    auto it = best.find(s.zone);
    if (it == best.end() || s.available_ip_addresses > it->second.available_ip_addresses ||
        (s.available_ip_addresses == it->second.available_ip_addresses && s.id < it->second.id)) {
      best[s.zone] = std::move(s);
    }
  }
  std::vector<Subnet> out;
  for (auto& [zone, s] : best) out.push_back(std::move(s));
  return out;
}

std::vector<ResolvedImage> NewestImages(std::vector<ResolvedImage> images) {
  // Newest first; among equals, a stable order by id so the answer does not flap.
  std::sort(images.begin(), images.end(), [](const ResolvedImage& a, const ResolvedImage& b) {
    return std::tie(b.creation_date, a.id) < std::tie(a.creation_date, b.id);
  });
  std::map<std::pair<std::string, std::string>, bool> has_current;
  for (const ResolvedImage& i : images)
    if (!i.deprecated) has_current[{i.architecture, i.variant}] = true;
  std::set<std::pair<std::string, std::string>> taken;
  std::vector<ResolvedImage> out;
  for (ResolvedImage& i : images) {
    std::pair<std::string, std::string> key{i.architecture, i.variant};
    if (i.deprecated && has_current[key]) continue;
    if (!taken.insert(key).second) continue;
    out.push_back(std::move(i));
  }
  return out;
}

std::string KubernetesArchOf(const std::string& ec2_architecture) {
  if (ec2_architecture == "arm64") return scheduling::kArchitectureArm64;
  if (ec2_architecture == "x86_64") return scheduling::kArchitectureAmd64;
  return "";
}

scheduling::Requirements ImageRequirements(const ResolvedImage& image) {
  namespace s = scheduling;
  s::Requirements out;
  const std::string arch = KubernetesArchOf(image.architecture);
  if (!arch.empty()) out.Add(s::Requirement::In(s::kLabelArchStable, {arch}));
  if (image.variant == "standard") {
    out.Add(s::Requirement::DoesNotExist(s::kLabelInstanceAcceleratorCount));
    out.Add(s::Requirement::DoesNotExist(s::kLabelInstanceGpuCount));
  } else if (image.variant == "nvidia") {
    out.Add(s::Requirement::Exists(s::kLabelInstanceGpuCount));
  } else if (image.variant == "neuron") {
    out.Add(s::Requirement::Exists(s::kLabelInstanceAcceleratorCount));
  }
  return out;
}

const ResolvedImage* ImageForType(const std::vector<ResolvedImage>& images, const cloud::InstanceType& type) {
  for (const ResolvedImage& image : images)
    if (type.requirements.IntersectsWith(ImageRequirements(image))) return &image;
  return nullptr;
}

}  // namespace nodesmith::aws
