#include "cloud/aws/nodeclass_resolver.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/conditions.h"

namespace nodesmith::aws {

namespace {

template <typename T>
void SortUniqueById(std::vector<T>& items) {
  std::sort(items.begin(), items.end(), [](const T& a, const T& b) { return a.id < b.id; });
  items.erase(std::unique(items.begin(), items.end(), [](const T& a, const T& b) { return a.id == b.id; }),
              items.end());
}

}  // namespace

bool ResolvedNodeClass::ready() const { return api::IsConditionTrue(conditions, "Ready"); }

std::vector<std::string> ResolvedNodeClass::zones() const {
  std::set<std::string> z;
  for (const Subnet& s : subnets) z.insert(s.zone);
  return {z.begin(), z.end()};
}

core::Result<std::vector<ResolvedImage>> NodeClassResolver::ResolveImages(
    const api::EC2NodeClass& node_class, core::Time now, std::string* problem) {
  const std::string now_text = core::FormatRfc3339(now);
  std::vector<ResolvedImage> candidates;
  // Aliases and ssmParameter terms: SSM names an image id; DescribeImages tells its facts.
  std::map<std::string, std::string> variant_of;  // image id -> variant, from the alias's parameter
  std::vector<std::string> ids;
  for (const api::SelectorTerm& t : node_class.ami_selector_terms) {
    std::vector<AliasParameter> parameters;
    if (!t.alias.empty()) {
      auto p = AliasParameters(t.alias, kubernetes_version_);
      if (!p.ok()) {
        *problem = p.status().message();
        return candidates;
      }
      parameters = std::move(*p);
    } else if (!t.ssm_parameter.empty()) {
      parameters.push_back({t.ssm_parameter, "", ""});
    }
    for (const AliasParameter& p : parameters) {
      auto id = ssm_->GetParameter(p.name);
      if (!id.ok()) {
        // A variant the release does not publish (neuron on arm64, a pinned version's gpu AMI).
        if (id.status().code() == core::StatusCode::kNotFound) continue;
        return id.status();
      }
      variant_of[*id] = p.variant;
      ids.push_back(*id);
    }
  }
  auto add = [&](const std::vector<Image>& images) {
    for (const Image& im : images) {
      ResolvedImage r;
      r.id = im.id;
      r.name = im.name;
      r.architecture = im.architecture;
      auto v = variant_of.find(im.id);
      r.variant = v == variant_of.end() ? "" : v->second;
      r.creation_date = im.creation_date;
      // EC2 keeps an image described after its deprecation time; it is deprecated from then on.
      r.deprecated = !im.deprecation_time.empty() && im.deprecation_time <= now_text;
      candidates.push_back(std::move(r));
    }
  };
  if (!ids.empty()) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto images = ec2_->DescribeImages({}, ids);
    if (!images.ok()) return images.status();
    add(*images);
  }
  for (const DescribeQuery& q : ImageQueries(node_class.ami_selector_terms)) {
    auto images = ec2_->DescribeImages(q.filters, q.ids, q.owners);
    if (!images.ok()) {
      // An id term naming an image that does not exist matches nothing; it is not a failure.
      if (images.status().code() == core::StatusCode::kNotFound) continue;
      return images.status();
    }
    add(*images);
  }
  return NewestImages(std::move(candidates));
}

core::Result<ResolvedNodeClass> NodeClassResolver::Resolve(const api::EC2NodeClass& node_class,
                                                           core::Time now,
                                                           const std::vector<api::Condition>& previous) {
  ResolvedNodeClass out;
  out.conditions = previous;
  const int64_t generation = node_class.metadata.generation;
  auto set = [&](const std::string& type, bool ok, const std::string& reason, const std::string& message) {
    api::SetCondition(out.conditions, type, ok ? "True" : "False", ok ? type : reason, now,
                      ok ? "" : message, generation);
  };

  for (const DescribeQuery& q : SubnetQueries(node_class.subnet_selector_terms)) {
    auto subnets = ec2_->DescribeSubnets(q.filters, q.ids);
    if (!subnets.ok()) return subnets.status();
    out.subnets.insert(out.subnets.end(), subnets->begin(), subnets->end());
  }
  SortUniqueById(out.subnets);
  set("SubnetsReady", !out.subnets.empty(), "SubnetsNotFound", "SubnetSelector did not match any Subnets");

  for (const DescribeQuery& q : SecurityGroupQueries(node_class.security_group_selector_terms)) {
    auto groups = ec2_->DescribeSecurityGroups(q.filters, q.ids);
    if (!groups.ok()) return groups.status();
    out.security_groups.insert(out.security_groups.end(), groups->begin(), groups->end());
  }
  SortUniqueById(out.security_groups);
  set("SecurityGroupsReady", !out.security_groups.empty(), "SecurityGroupsNotFound",
      "SecurityGroupSelector did not match any SecurityGroups");

  std::string image_problem;
  auto images = ResolveImages(node_class, now, &image_problem);
  if (!images.ok()) return images.status();
  out.images = std::move(*images);
  set("AMIsReady", !out.images.empty(), "AMINotFound",
      image_problem.empty() ? "AMISelector did not match any AMIs" : image_problem);

  std::vector<std::string> not_ready;
  for (const char* type : {"SubnetsReady", "SecurityGroupsReady", "AMIsReady"})
    if (!api::IsConditionTrue(out.conditions, type)) not_ready.push_back(type);
  std::string message;
  for (const std::string& t : not_ready) message += (message.empty() ? "" : ", ") + t + "=False";
  set("Ready", not_ready.empty(), "UnhealthyDependents", message);
  return out;
}

}  // namespace nodesmith::aws
