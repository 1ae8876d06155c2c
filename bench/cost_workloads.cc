#include "cost_workloads.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "api/nodepool.h"
#include "api/pod.h"
#include "cloud/catalog.h"
#include "cloud/labels.h"
#include "scheduling/well_known_labels.h"

namespace nodesmith::bench {
namespace {

api::Quantity Q(const std::string& s) { return api::Quantity::MustParse(s); }

struct PodShape {
  std::string cpu;
  std::string memory;
  int64_t gpus = 0;
};

api::Pod MakePod(const std::string& name, api::Labels labels, const PodShape& shape) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = "default";
  p.metadata.uid = "uid-" + name;
  p.metadata.labels = std::move(labels);
  p.metadata.creation_timestamp = core::Time::FromUnixSeconds(1700000000);
  p.status.phase = "Pending";
  api::Container c;
  c.name = "app";
  c.resources.requests.Set(api::kResourceCpu, Q(shape.cpu));
  c.resources.requests.Set(api::kResourceMemory, Q(shape.memory));
  if (shape.gpus > 0) {
    // Extended resources are requested through limits too (requests must equal limits).
    c.resources.requests.Set(api::kResourceNvidiaGpu, api::Quantity::FromInt(shape.gpus));
    c.resources.limits.Set(api::kResourceNvidiaGpu, api::Quantity::FromInt(shape.gpus));
  }
  p.spec.containers.push_back(std::move(c));
  return p;
}

// Appends round(count * scale) pods (at least one when count > 0 and scale > 0).
void AddPods(const std::string& prefix, int count, double scale, const api::Labels& labels,
             const PodShape& shape, std::vector<api::Pod>& out) {
  int n = static_cast<int>(std::lround(count * scale));
  if (n == 0 && count > 0 && scale > 0) n = 1;
  for (int i = 0; i < n; ++i) out.push_back(MakePod(prefix + std::to_string(i), labels, shape));
}

api::NodePool MakeNodePool(const std::string& name, std::vector<api::NodeSelectorRequirement> reqs) {
  api::NodePool np;
  np.metadata.name = name;
  np.metadata.uid = "uid-nodepool-" + name;
  np.template_.spec.requirements = std::move(reqs);
  return np;
}

solver::Snapshot MakeSnapshot(std::vector<api::Pod> pods, std::vector<api::NodePool> pools,
                              cloud::Catalog catalog) {
  solver::Snapshot s;
  s.pending_pods = std::move(pods);
  s.node_pools = std::move(pools);
  s.instance_types = std::move(catalog.instance_types);
  s.well_known = std::move(catalog.well_known_labels);
  return s;
}

}  // namespace

core::Result<solver::Snapshot> KwokBasicSnapshot(double scale) {
  auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("kwok"));
  if (!catalog.ok()) return catalog.status();
  std::vector<api::Pod> pods;
  AddPods("basic-small-", 500, scale, {{"app", "basic-small"}}, {"900m", "3100Mi"}, pods);
  AddPods("basic-large-", 500, scale, {{"app", "basic-large"}}, {"3500m", "28Gi"}, pods);
  api::NodePool np = MakeNodePool(
      "default", {{scheduling::kLabelOSStable, "In", {"linux"}, std::nullopt},
                  {scheduling::kLabelCapacityType, "In", {"on-demand"}, std::nullopt},
                  {cloud::kLabelKwokInstanceCpu, "Lt", {"32"}, std::nullopt}});
  return MakeSnapshot(std::move(pods), {std::move(np)}, std::move(*catalog));
}

core::Result<solver::Snapshot> OpenBSnapshot(const std::string& trace_csv, double scale) {
  std::ifstream in(trace_csv);
  if (!in) return core::Status::NotFound("cannot read " + trace_csv);
  std::string line;
  std::getline(in, line);  // header: name,cpu_milli,memory_mib,num_gpu,gpu_milli,...
  std::vector<api::Pod> pods;
  int64_t row = 0;
  while (std::getline(in, line)) {
    // Evenly spaced rows when scaled down, so the mix of shapes is kept.
    const bool take = std::floor(static_cast<double>(row + 1) * scale) >
                      std::floor(static_cast<double>(row) * scale);
    ++row;
    if (!take) continue;
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string item; std::getline(fields, item, ',');) f.push_back(item);
    if (f.size() < 4) return core::Status::Invalid("malformed row in " + trace_csv + ": " + line);
    // num_gpu whole GPUs: a pod sharing a GPU (gpu_milli < 1000) still holds one device under
    // the NVIDIA device plugin.
    PodShape shape{f[1] + "m", f[2] + "Mi", std::stoll(f[3])};
    pods.push_back(MakePod(f[0], {{"app", "openb"}}, shape));
  }
  auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("aws"));
  if (!catalog.ok()) return catalog.status();
  // On-demand only: the catalog's spot prices are estimates.
  api::NodePool np = MakeNodePool(
      "default", {{scheduling::kLabelCapacityType, "In", {"on-demand"}, std::nullopt}});
  return MakeSnapshot(std::move(pods), {std::move(np)}, std::move(*catalog));
}

core::Result<solver::Snapshot> MixedSnapshot(double scale) {
  auto catalog = cloud::LoadCatalog(cloud::CatalogSource::FromFlag("aws"));
  if (!catalog.ok()) return catalog.status();
  std::vector<api::Pod> pods;
  // Web: zone-spread replicas of one Deployment.
  const size_t web_begin = pods.size();
  AddPods("web-", 400, scale, {{"app", "web"}}, {"500m", "1Gi"}, pods);
  for (size_t i = web_begin; i < pods.size(); ++i) {
    api::TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = scheduling::kLabelTopologyZone;
    c.label_selector = api::LabelSelector{{{"app", "web"}}, {}};
    pods[i].spec.topology_spread_constraints.push_back(std::move(c));
  }
  // Batch: CPU-heavy, balanced and memory-heavy jobs.
  AddPods("batch-cpu-", 600, scale, {{"app", "batch-cpu"}}, {"2", "4Gi"}, pods);
  AddPods("batch-mem-", 300, scale, {{"app", "batch-mem"}}, {"1", "8Gi"}, pods);
  AddPods("batch-large-", 200, scale, {{"app", "batch-large"}}, {"4", "30Gi"}, pods);
  // GPU: single-GPU inference and four-GPU training, tolerating the GPU pool's taint.
  const size_t gpu_begin = pods.size();
  AddPods("gpu-inference-", 40, scale, {{"app", "gpu-inference"}}, {"6", "24Gi", 1}, pods);
  AddPods("gpu-training-", 8, scale, {{"app", "gpu-training"}}, {"40", "160Gi", 4}, pods);
  for (size_t i = gpu_begin; i < pods.size(); ++i) {
    pods[i].spec.tolerations.push_back(
        api::Toleration{api::kResourceNvidiaGpu, "Exists", "", "NoSchedule", std::nullopt});
  }
  api::NodePool general = MakeNodePool(
      "general", {{scheduling::kLabelInstanceCategory, "In", {"c", "m", "r"}, std::nullopt},
                  {scheduling::kLabelCapacityType, "In", {"on-demand"}, std::nullopt}});
  api::NodePool gpu = MakeNodePool(
      "gpu", {{scheduling::kLabelInstanceCategory, "In", {"g", "p"}, std::nullopt},
              {scheduling::kLabelCapacityType, "In", {"on-demand"}, std::nullopt}});
  gpu.template_.spec.taints.push_back(api::Taint{api::kResourceNvidiaGpu, "true", "NoSchedule"});
  return MakeSnapshot(std::move(pods), {std::move(general), std::move(gpu)}, std::move(*catalog));
}

}  // namespace nodesmith::bench
