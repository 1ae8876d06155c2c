#include "workloads.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

#include "api/object_set.h"
#include "scheduling/requirement.h"
#include "scheduling/requirements.h"
#include "solver/instance_type_filter.h"

namespace nodesmith::bench {
namespace {

constexpr const char* kZoneKey = "topology.kubernetes.io/zone";
constexpr const char* kHostnameKey = "kubernetes.io/hostname";
constexpr const char* kCapacityTypeKey = "karpenter.sh/capacity-type";
constexpr const char* kNamespace = "default";

api::Quantity Q(const std::string& s) { return api::Quantity::MustParse(s); }

// The random draws of Karpenter's benchmark (randomLabelValue, randomCPU, randomMemory).
class Draws {
 public:
  explicit Draws(uint32_t seed) : rng_(seed) {}
  std::string LabelValue() {
    static const char* const kValues[] = {"a", "b", "c", "d", "e", "f", "g"};
    return kValues[Pick(7)];
  }
  std::string Cpu() {
    static const int kCpu[] = {100, 250, 500, 1000, 1500};
    return std::to_string(kCpu[Pick(5)]) + "m";
  }
  std::string Memory() {
    static const int kMemory[] = {100, 256, 512, 1024, 2048, 4096};
    return std::to_string(kMemory[Pick(6)]) + "Mi";
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::mt19937 rng_;
};

api::Pod NewPod(const std::string& name, api::Labels labels, const api::Quantity& cpu,
                const api::Quantity& memory) {
  api::Pod p;
  p.metadata.name = name;
  p.metadata.namespace_ = kNamespace;
  p.metadata.uid = "uid-" + name;
  p.metadata.labels = std::move(labels);
  p.metadata.creation_timestamp = core::Time::FromUnixSeconds(1700000000);
  p.status.phase = "Pending";
  api::Container c;
  c.name = "app";
  c.resources.requests.Set(api::kResourceCpu, cpu);
  c.resources.requests.Set(api::kResourceMemory, memory);
  p.spec.containers.push_back(std::move(c));
  return p;
}

// Draws CPU then memory, in the order Karpenter's PodOptions literal evaluates them.
api::Pod RandomPod(Draws& d, const std::string& name, api::Labels labels) {
  api::Quantity cpu = Q(d.Cpu());
  api::Quantity memory = Q(d.Memory());
  return NewPod(name, std::move(labels), cpu, memory);
}

api::PodAffinity& AffinitySlot(api::Pod& p, bool anti) {
  if (!p.spec.affinity) p.spec.affinity.emplace();
  auto& slot = anti ? p.spec.affinity->pod_anti_affinity : p.spec.affinity->pod_affinity;
  if (!slot) slot.emplace();
  return *slot;
}

api::PodAffinityTerm Term(api::Labels match, const std::string& topology_key) {
  api::PodAffinityTerm t;
  t.label_selector = api::LabelSelector{std::move(match), {}};
  t.topology_key = topology_key;
  return t;
}

void AddGeneric(Draws& d, int count, const std::string& prefix, std::vector<api::Pod>& out) {
  for (int i = 0; i < count; ++i) {
    api::Labels labels{{"my-label", d.LabelValue()}};
    out.push_back(RandomPod(d, prefix + std::to_string(i), std::move(labels)));
  }
}

void AddSpread(Draws& d, int count, const std::string& key, const std::string& prefix,
               std::vector<api::Pod>& out) {
  for (int i = 0; i < count; ++i) {
    api::Labels labels{{"my-label", d.LabelValue()}};
    api::Labels selector{{"my-label", d.LabelValue()}};
    api::Pod p = RandomPod(d, prefix + std::to_string(i), std::move(labels));
    api::TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = key;
    c.when_unsatisfiable = "DoNotSchedule";
    c.label_selector = api::LabelSelector{std::move(selector), {}};
    p.spec.topology_spread_constraints.push_back(std::move(c));
    out.push_back(std::move(p));
  }
}

void AddAffinity(Draws& d, int count, const std::string& key, const std::string& prefix,
                 std::vector<api::Pod>& out) {
  for (int i = 0; i < count; ++i) {
    // Self-affinity (karpenter#1938): the selector matches the pod's own label, so the first pod
    // of each value opens a domain and the rest follow it.
    const std::string value = d.LabelValue();
    api::Labels labels{{"my-label", d.LabelValue()}, {"my-affininity", value}};
    api::Pod p = RandomPod(d, prefix + std::to_string(i), std::move(labels));
    AffinitySlot(p, /*anti=*/false).required.push_back(Term({{"my-affininity", value}}, key));
    out.push_back(std::move(p));
  }
}

void AddAntiAffinity(Draws& d, int count, const std::string& key, const std::string& prefix,
                     std::vector<api::Pod>& out) {
  const api::Labels selector{{"app", "nginx"}};
  for (int i = 0; i < count; ++i) {
    api::Labels labels{{"my-label", d.LabelValue()}, {"app", "nginx"}};
    api::Pod p = RandomPod(d, prefix + std::to_string(i), std::move(labels));
    AffinitySlot(p, /*anti=*/true).required.push_back(Term(selector, key));
    out.push_back(std::move(p));
  }
}

// Requests summed over the pod's containers (the bench pods have no init containers).
struct Size {
  int64_t cpu_milli = 0;
  int64_t memory = 0;
};
Size PodSize(const api::Pod& p) {
  Size s;
  for (const auto& c : p.spec.containers) {
    s.cpu_milli += c.resources.requests.Get(api::kResourceCpu).MilliValue();
    s.memory += c.resources.requests.Get(api::kResourceMemory).Value();
  }
  return s;
}

bool HasHostnameAntiAffinity(const api::Pod& p) {
  if (!p.spec.affinity || !p.spec.affinity->pod_anti_affinity) return false;
  for (const auto& t : p.spec.affinity->pod_anti_affinity->required) {
    if (t.topology_key == kHostnameKey) return true;
  }
  return false;
}

}  // namespace

cloud::InstanceTypes FakeInstanceTypes(int count) {
  cloud::InstanceTypes types;
  types.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int64_t cpu = i + 1;
    const int64_t memory_gib = 2 * (i + 1);
    api::ResourceList capacity{{api::kResourceCpu, api::Quantity::FromInt(cpu)},
                               {api::kResourceMemory, Q(std::to_string(memory_gib) + "Gi")},
                               {api::kResourcePods, api::Quantity::FromInt(10 * (i + 1))}};
    // fake.PriceFromResources: 0.1 per vCPU plus 0.1 per 1e9 bytes of memory.
    const double price = 0.1 * static_cast<double>(cpu) +
                         0.1 * static_cast<double>(memory_gib) * 1073741824.0 / 1e9;
    std::vector<cloud::Offering> offerings;
    for (const auto& [zone, capacity_type] :
         std::vector<std::pair<std::string, std::string>>{{"test-zone-1", cloud::kCapacityTypeSpot},
                                                          {"test-zone-2", cloud::kCapacityTypeSpot},
                                                          {"test-zone-1", cloud::kCapacityTypeOnDemand},
                                                          {"test-zone-2", cloud::kCapacityTypeOnDemand},
                                                          {"test-zone-3", cloud::kCapacityTypeOnDemand}}) {
      cloud::Offering o;
      o.zone = zone;
      o.capacity_type = capacity_type;
      o.price = price;
      offerings.push_back(std::move(o));
    }
    // fake.NewInstanceType: "large" (and special=optional) above 4 vCPU and 8Gi.
    const bool large = cpu > 4 && memory_gib > 8;
    std::vector<scheduling::Requirement> reqs = {
        scheduling::Requirement::In("kubernetes.io/arch", {"amd64"}),
        scheduling::Requirement::In("kubernetes.io/os", {"darwin", "linux", "windows"}),
        scheduling::Requirement::In("size", {large ? "large" : "small"}),
        large ? scheduling::Requirement::In("special", {"optional"})
              : scheduling::Requirement::DoesNotExist("special"),
        scheduling::Requirement::In("integer", {std::to_string(cpu)}),
    };
    cloud::Overhead overhead;
    overhead.kube_reserved = {{api::kResourceCpu, Q("100m")}, {api::kResourceMemory, Q("10Mi")}};
    types.push_back(cloud::NewInstanceType("fake-it-" + std::to_string(i),
                                           scheduling::Requirements(std::move(reqs)), capacity,
                                           overhead, offerings));
  }
  cloud::SortByName(types);
  return types;
}

scheduling::LabelKeySet FakeWellKnownLabels() {
  return scheduling::WellKnownLabels().With({"size", "special", "integer"});
}

api::NodePool BenchNodePool() {
  api::NodePool np;
  np.metadata.name = "default";
  np.metadata.uid = "uid-nodepool-default";
  np.limits = {{api::kResourceCpu, Q("10000000")}, {api::kResourceMemory, Q("10000000Gi")}};
  return np;
}

std::vector<api::Pod> DiversePods(int count, uint32_t seed) {
  Draws d(seed);
  std::vector<api::Pod> pods;
  pods.reserve(count);
  const int per_class = count / 5;
  AddGeneric(d, per_class, "generic-", pods);
  AddSpread(d, per_class, kZoneKey, "spread-zone-", pods);
  AddSpread(d, per_class, kHostnameKey, "spread-host-", pods);
  AddAffinity(d, per_class, kZoneKey, "affinity-zone-", pods);
  AddAntiAffinity(d, per_class, kHostnameKey, "anti-host-", pods);
  AddGeneric(d, count - static_cast<int>(pods.size()), "generic-rest-", pods);
  return pods;
}

std::vector<api::Pod> PreferencePods(int count, uint32_t seed) {
  Draws d(seed);
  std::vector<api::Pod> pods;
  pods.reserve(count);
  const api::Labels labels{{"app", "preference"}};
  for (int i = 0; i < count; ++i) {
    api::Pod p = RandomPod(d, "preference-" + std::to_string(i), labels);
    p.spec.affinity.emplace();
    api::NodeAffinity node_affinity;
    node_affinity.preferred.push_back(
        api::PreferredSchedulingTerm{1, api::NodeSelectorTerm{{{kZoneKey, "In", {"test-zone-1"}, {}}}, {}}});
    p.spec.affinity->node_affinity = std::move(node_affinity);
    api::PodAffinity& anti = AffinitySlot(p, /*anti=*/true);
    anti.preferred.push_back(api::WeightedPodAffinityTerm{10, Term(labels, kZoneKey)});
    anti.preferred.push_back(api::WeightedPodAffinityTerm{1, Term(labels, kHostnameKey)});
    pods.push_back(std::move(p));
  }
  return pods;
}

cloud::InstanceTypes BinpackingInstanceTypes() {
  api::ResourceList capacity{{api::kResourceCpu, Q("1000m")},
                             {api::kResourceMemory, api::Quantity::FromInt(5000)},
                             {api::kResourcePods, api::Quantity::FromInt(100)}};
  cloud::Offering o;
  o.zone = "test-zone-1";
  o.capacity_type = cloud::kCapacityTypeOnDemand;
  o.price = 1.0;
  return {cloud::NewInstanceType(
      "ca-node",
      scheduling::Requirements({scheduling::Requirement::In("kubernetes.io/arch", {"amd64"}),
                                scheduling::Requirement::In("kubernetes.io/os", {"linux"})}),
      capacity, cloud::Overhead{}, {o})};
}

std::vector<api::Pod> BinpackingPods(double scale) {
  const int small = static_cast<int>(std::lround(50000 * scale));
  const int large = static_cast<int>(std::lround(1000 * scale));
  std::vector<api::Pod> pods;
  pods.reserve(small + large);
  const api::Quantity small_cpu = Q("50m"), small_memory = api::Quantity::FromInt(100);
  const api::Quantity large_cpu = Q("95m"), large_memory = api::Quantity::FromInt(190);
  for (int i = 0; i < small; ++i) {
    pods.push_back(NewPod("estimatee-" + std::to_string(i), {{"app", "estimatee"}}, small_cpu, small_memory));
  }
  for (int i = 0; i < large; ++i) {
    pods.push_back(NewPod("estimatee-large-" + std::to_string(i), {{"app", "estimatee"}}, large_cpu,
                          large_memory));
  }
  return pods;
}

int64_t BinpackingOptimalNodes(double scale) {
  const int64_t small = std::lround(50000 * scale), large = std::lround(1000 * scale);
  const int64_t cpu = small * 50 + large * 95;
  return (cpu + 999) / 1000;
}

solver::Snapshot PendingSnapshot(std::vector<api::Pod> pods, cloud::InstanceTypes types,
                                 scheduling::LabelKeySet well_known) {
  solver::Snapshot s;
  s.pending_pods = std::move(pods);
  s.node_pools.push_back(BenchNodePool());
  s.instance_types = std::move(types);
  cloud::SortByName(s.instance_types);
  s.well_known = std::move(well_known);
  return s;
}

bool ReadClusterSpecFlag(int argc, char** argv, int* i, ClusterSpec* spec) {
  const std::string arg = argv[*i];
  if (*i + 1 >= argc) return false;
  int* field = arg == "--nodes"           ? &spec->nodes
               : arg == "--pods-per-node" ? &spec->pods_per_node
               : arg == "--pending"       ? &spec->pending
                                          : nullptr;
  if (field == nullptr) return false;
  *field = std::stoi(argv[++*i]);
  return true;
}

api::ObjectSet ClusterObjects(const ClusterSpec& spec, const cloud::InstanceTypes& types) {
  const cloud::InstanceType* node_type = nullptr;
  for (const auto& t : types) {
    if (t->name == "fake-it-31") node_type = t.get();
  }
  api::ObjectSet objects;
  objects.node_pools.push_back({BenchNodePool(), {}});
  objects.nodes.reserve(spec.nodes);
  objects.pods.reserve(static_cast<size_t>(spec.nodes) * spec.pods_per_node + spec.pending);
  static const char* const kZones[] = {"test-zone-1", "test-zone-2", "test-zone-3"};
  Draws d(7);
  for (int n = 0; n < spec.nodes; ++n) {
    api::Node node;
    node.metadata.name = "node-" + std::to_string(n);
    node.metadata.uid = "uid-" + node.metadata.name;
    node.metadata.labels = {{kHostnameKey, node.metadata.name},
                            {kZoneKey, kZones[n % 3]},
                            {kCapacityTypeKey, cloud::kCapacityTypeOnDemand},
                            {"node.kubernetes.io/instance-type", node_type->name},
                            {"karpenter.sh/nodepool", "default"},
                            {"kubernetes.io/arch", "amd64"},
                            {"kubernetes.io/os", "linux"}};
    node.status.capacity = node_type->capacity;
    node.status.allocatable = node_type->allocatable;
    // 15 pods averaging ~0.7 vCPU / 1.3 GiB fill about a third of a 32 vCPU node, so the pending
    // pods can land on existing capacity as well as on new NodeClaims.
    for (int k = 0; k < spec.pods_per_node; ++k) {
      api::Pod p = RandomPod(d, node.metadata.name + "-pod-" + std::to_string(k),
                             {{"app", "bound-" + std::to_string(k)}});
      p.spec.node_name = node.metadata.name;
      p.status.phase = "Running";
      objects.pods.push_back({std::move(p), {}});
    }
    objects.nodes.push_back({std::move(node), {}});
  }
  return objects;
}

core::Result<solver::Snapshot> ClusterSnapshot(const ClusterSpec& spec) {
  cloud::InstanceTypes types = FakeInstanceTypes(400);
  api::ObjectSet objects = ClusterObjects(spec, types);
  return solver::BuildSnapshot(std::move(objects), DiversePods(spec.pending), std::move(types),
                               FakeWellKnownLabels());
}

namespace {

// An instance type as FirstFitDecreasing sees it: allocatable and the price it is bought at.
struct Shape {
  int64_t cpu_milli, memory, pods;
  double price;
};

BaselinePlan FirstFitDecreasingOver(const std::vector<api::Pod>& pods, std::vector<Shape> shapes);

}  // namespace

BaselinePlan FirstFitDecreasing(const std::vector<api::Pod>& pods, const cloud::InstanceTypes& types,
                                const api::NodePool& pool, const scheduling::LabelKeySet& well_known) {
  const scheduling::CompatibilityOptions allow = scheduling::AllowUndefined(well_known);
  const scheduling::Requirements reqs =
      scheduling::Requirements::FromNodeSelectorRequirements(pool.template_.spec.requirements);
  std::vector<Shape> shapes;
  for (const auto& t : types) {
    if (!reqs.IsCompatible(t->requirements, allow)) continue;
    const double price = solver::CheapestPrice(*t, reqs, allow);
    if (!(price < std::numeric_limits<double>::infinity())) continue;
    shapes.push_back({t->allocatable.Get(api::kResourceCpu).MilliValue(),
                      t->allocatable.Get(api::kResourceMemory).Value(),
                      t->allocatable.Get(api::kResourcePods).Value(), price});
  }
  return FirstFitDecreasingOver(pods, std::move(shapes));
}

BaselinePlan FirstFitDecreasing(const std::vector<api::Pod>& pods, const cloud::InstanceTypes& types) {
  std::vector<Shape> shapes;
  for (const auto& t : types) {
    double price = std::numeric_limits<double>::infinity();
    for (const auto& o : t->offerings) {
      if (o.available) price = std::min(price, o.price);
    }
    shapes.push_back({t->allocatable.Get(api::kResourceCpu).MilliValue(),
                      t->allocatable.Get(api::kResourceMemory).Value(),
                      t->allocatable.Get(api::kResourcePods).Value(), price});
  }
  return FirstFitDecreasingOver(pods, std::move(shapes));
}

namespace {

BaselinePlan FirstFitDecreasingOver(const std::vector<api::Pod>& pods, std::vector<Shape> shapes) {
  if (shapes.empty()) return {};
  struct Item {
    Size size;
    bool exclusive;  // required hostname anti-affinity: at most one per node
  };
  std::vector<Item> items;
  items.reserve(pods.size());
  for (const auto& p : pods) items.push_back({PodSize(p), HasHostnameAntiAffinity(p)});
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.size.cpu_milli != b.size.cpu_milli) return a.size.cpu_milli > b.size.cpu_milli;
    return a.size.memory > b.size.memory;
  });

  // By price, cheapest first.
  std::sort(shapes.begin(), shapes.end(), [](const Shape& a, const Shape& b) { return a.price < b.price; });
  Shape largest = shapes.front();
  for (const auto& s : shapes) {
    if (s.cpu_milli > largest.cpu_milli ||
        (s.cpu_milli == largest.cpu_milli && s.memory > largest.memory)) {
      largest = s;
    }
  }

  struct Bin {
    int64_t cpu_milli = 0, memory = 0, pods = 0;
    bool exclusive = false;
  };
  std::vector<Bin> bins;
  size_t first_open = 0;  // bins before this one cannot take even the smallest pod
  for (const Item& it : items) {
    bool placed = false;
    for (size_t b = first_open; b < bins.size() && !placed; ++b) {
      Bin& bin = bins[b];
      if (it.exclusive && bin.exclusive) continue;
      if (bin.cpu_milli + it.size.cpu_milli > largest.cpu_milli ||
          bin.memory + it.size.memory > largest.memory || bin.pods + 1 > largest.pods) {
        continue;
      }
      bin.cpu_milli += it.size.cpu_milli;
      bin.memory += it.size.memory;
      bin.pods += 1;
      bin.exclusive |= it.exclusive;
      placed = true;
    }
    if (!placed) bins.push_back({it.size.cpu_milli, it.size.memory, 1, it.exclusive});
    // Pods come largest first, so a bin full for the smallest possible pod stays full.
    while (first_open < bins.size() && bins[first_open].pods >= largest.pods) ++first_open;
  }

  BaselinePlan plan;
  plan.nodes = static_cast<int64_t>(bins.size());
  for (const Bin& bin : bins) {
    for (const Shape& s : shapes) {
      if (s.cpu_milli >= bin.cpu_milli && s.memory >= bin.memory && s.pods >= bin.pods) {
        plan.price_per_hour += s.price;
        break;
      }
    }
  }
  return plan;
}

}  // namespace
}  // namespace nodesmith::bench
