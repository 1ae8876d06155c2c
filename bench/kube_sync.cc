// kube_sync: nodesmith's Kubernetes client (src/kube) against a real API server: the cold sync of
// a large cluster (list + decode + index of every Node and Pod) and the rate at which watch events
// are applied, side by side with kubectl and, when given, a client-go informer program.
//
//   kube_sync --kubeconfig PATH [--nodes N] [--pods N] [--runs R] [--load-only | --skip-load]
//             [--check] [--delete | --cleanup] [--peer PROGRAM] [more: --help]
//
// Phases. Each measured phase runs in a process of its own, forked from this driver (which starts
// no thread and opens no connection itself), so runs share no heap and the child's ru_maxrss is
// that phase's peak:
//   load    creates N Nodes and P Pods bound to them by spec.nodeName, spread over namespaces
//           bench-NN, from several threads each with its own RestClient, unless they are there
//           already (counted: the Nodes labelled bench.nodesmith.dev/kube-sync, the Pods of the
//           namespaces so labelled).
//   sync    a fresh KubeCluster of {Pod, Node}, Start()ed until synced: wall time, CPU (user+sys)
//           and peak RSS, and the API server's and etcd's CPU meanwhile; alternating with
//           `kubectl get pods -A -o name --watch`, timed until it has printed every pod, and with
//           --peer PROGRAM (run as `PROGRAM --kubeconfig PATH`; it prints a line starting with
//           "synced" once its caches are synced). Medians over R runs. --pagewise adds the
//           same LIST decoded page by page with the client's public functions (a what-if).
//   watch   a synced Pod informer while writer threads patch M pods' labels ("live": bounded by
//           the server's write rate); then the same informer stopped, M more patches, and started
//           again: it resumes from its resourceVersion and the server replays the M events from
//           its watch cache as fast as the client takes them ("replay"). The cache keeps about
//           75 s of events: M must be written in less than that, or the replay becomes a relist.
//   decode  no server involved: F watch frames made from real pods, fed to WatchDecoder and
//           Informer::Apply (what the informer's watch does per event) — the client's ceiling.
//
// --check fails (exit 1) unless the caches held exactly what was loaded and every change was
// applied; it asserts no timings. --delete removes what the load created and does nothing else;
// --cleanup does the same at the end of a run. Figures: docs/PERFORMANCE.md.
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/informer.h"
#include "kube/kube_cluster.h"
#include "kube/kubeconfig.h"
#include "kube/object_codec.h"
#include "kube/rest_client.h"
#include "kube/watch_decoder.h"

namespace nodesmith::bench {
namespace {

using kube::Json;

constexpr char kBenchLabel[] = "bench.nodesmith.dev/kube-sync";
constexpr char kBenchSelector[] = "bench.nodesmith.dev/kube-sync=true";
constexpr char kGenLabel[] = "bench.nodesmith.dev/generation";
constexpr char kNodePrefix[] = "bench-node-";
constexpr char kNamespacePrefix[] = "bench-";
// Not in the client's table: only the load waits for each namespace's default ServiceAccount.
const kube::ResourceType kServiceAccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};

// ---- flags -------------------------------------------------------------------------------------

struct Flags {
  std::string kubeconfig;
  std::string testenv_dir;  // "" : the kubeconfig's directory
  std::string peer;         // a client-go informer program, run beside kubectl
  int64_t nodes = 10000;
  int64_t pods = 150000;
  int namespaces = 50;
  int workloads = 20;  // ReplicaSets per namespace
  int runs = 3;
  int threads = 8;          // load and delete
  int writers = 8;          // watch phase
  int64_t changes = 40000;  // patches per watch phase (at most --pods)
  int64_t frames = 40000;   // decode phase
  double qps = 3000;        // of each load/writer client (the measured clients keep the default)
  double sync_timeout = 900;
  bool load_only = false, skip_load = false, check = false, del = false, cleanup = false;
  bool no_kubectl = false;
  bool pagewise = false;  // also time the LIST decoded page by page (see PagewiseBody)
};

void Usage() {
  std::fprintf(stderr,
               "usage: kube_sync --kubeconfig PATH [--nodes N] [--pods N] [--runs R]\n"
               "                 [--load-only | --skip-load] [--check] [--delete | --cleanup]\n"
               "                 [--namespaces N] [--workloads N] [--threads N] [--qps Q]\n"
               "                 [--changes M] [--writers N] [--frames F] [--peer PROGRAM]\n"
               "                 [--no-kubectl] [--pagewise] [--testenv DIR] [--sync-timeout S]\n");
}

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kube_sync: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kubeconfig")
      f->kubeconfig = value("--kubeconfig");
    else if (a == "--testenv")
      f->testenv_dir = value("--testenv");
    else if (a == "--peer")
      f->peer = value("--peer");
    else if (a == "--nodes")
      f->nodes = std::atoll(value("--nodes"));
    else if (a == "--pods")
      f->pods = std::atoll(value("--pods"));
    else if (a == "--namespaces")
      f->namespaces = std::atoi(value("--namespaces"));
    else if (a == "--workloads")
      f->workloads = std::atoi(value("--workloads"));
    else if (a == "--runs")
      f->runs = std::atoi(value("--runs"));
    else if (a == "--threads")
      f->threads = std::atoi(value("--threads"));
    else if (a == "--writers")
      f->writers = std::atoi(value("--writers"));
    else if (a == "--changes")
      f->changes = std::atoll(value("--changes"));
    else if (a == "--frames")
      f->frames = std::atoll(value("--frames"));
    else if (a == "--qps")
      f->qps = std::atof(value("--qps"));
    else if (a == "--sync-timeout")
      f->sync_timeout = std::atof(value("--sync-timeout"));
    else if (a == "--load-only")
      f->load_only = true;
    else if (a == "--skip-load")
      f->skip_load = true;
    else if (a == "--check")
      f->check = true;
    else if (a == "--delete")
      f->del = true;
    else if (a == "--cleanup")
      f->cleanup = true;
    else if (a == "--no-kubectl")
      f->no_kubectl = true;
    else if (a == "--pagewise")
      f->pagewise = true;
    else if (a == "-h" || a == "--help") {
      Usage();
      std::exit(0);
    } else {
      std::fprintf(stderr, "kube_sync: unknown argument %s\n", a.c_str());
      Usage();
      return false;
    }
  }
  if (f->kubeconfig.empty()) {
    std::fprintf(stderr, "kube_sync: --kubeconfig is required\n");
    Usage();
    return false;
  }
  if (f->load_only && f->skip_load) {
    std::fprintf(stderr, "kube_sync: --load-only and --skip-load exclude each other\n");
    return false;
  }
  f->nodes = std::max<int64_t>(f->nodes, 1);
  f->pods = std::max<int64_t>(f->pods, 0);
  f->runs = std::max(f->runs, 0);
  f->threads = std::max(f->threads, 1);
  f->writers = std::max(f->writers, 1);
  f->changes = std::clamp<int64_t>(f->changes, 0, f->pods);
  f->frames = std::max<int64_t>(f->frames, 0);
  return true;
}

// ---- measuring ---------------------------------------------------------------------------------

// CLOCK_MONOTONIC: one clock for the driver and every child.
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }

struct Cpu {
  double user = 0, sys = 0;
  double total() const { return user + sys; }
};

Cpu SelfCpu() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return {Seconds(ru.ru_utime), Seconds(ru.ru_stime)};
}

long SelfMaxRssKb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

long CurrentRssKb() {
  std::ifstream in("/proc/self/statm");
  long size = 0, resident = 0;
  in >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// user+sys CPU seconds of another process from /proc/<pid>/stat; -1 when unreadable.
double ProcessCpuSeconds(pid_t pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return -1;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::atof(field.c_str());
    if (i == 15) stime = std::atof(field.c_str());
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double Mib(double kb) { return kb / 1024.0; }

// ---- child processes ---------------------------------------------------------------------------

// One phase in a forked process. The child reports "key value" lines on one pipe and can be told
// to go on through another; the driver reaps it with wait4 for its CPU time and peak RSS.
class Phase {
 public:
  using Body = std::function<int(Phase&)>;

  static std::unique_ptr<Phase> Fork(const Body& body) {
    int report[2], control[2];
    if (pipe2(report, O_CLOEXEC) != 0 || pipe2(control, O_CLOEXEC) != 0) {
      std::perror("kube_sync: pipe");
      std::exit(2);
    }
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("kube_sync: fork");
      std::exit(2);
    }
    if (pid == 0) {
      close(report[0]);
      close(control[1]);
      Phase self(0, report[1], control[0]);
      int rc = body(self);
      std::fflush(nullptr);
      _exit(rc);  // no destructors: caches of 150,000 objects need not be freed one by one
    }
    close(report[1]);
    close(control[0]);
    return std::unique_ptr<Phase>(new Phase(pid, report[0], control[1]));
  }

  ~Phase() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      Wait();
    }
    if (report_fd_ >= 0) close(report_fd_);
    if (control_fd_ >= 0) close(control_fd_);
  }

  // In the child.
  void Report(const std::string& key, const std::string& value) {
    std::string line = key + " " + value;
    std::replace(line.begin(), line.end(), '\n', ' ');
    line += '\n';
    size_t off = 0;
    while (off < line.size()) {
      ssize_t n = write(report_fd_, line.data() + off, line.size() - off);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  void Report(const std::string& key, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    Report(key, std::string(buf));
  }
  // Blocks until the driver says go; false when the driver is gone.
  bool AwaitGo() {
    char c;
    return read(control_fd_, &c, 1) == 1;
  }

  // In the driver.
  // Reads reports until `key` has arrived; false on the child's exit or after the timeout.
  bool AwaitKey(const std::string& key, double timeout_seconds) {
    double deadline = Now() + timeout_seconds;
    while (values_.count(key) == 0) {
      double left = deadline - Now();
      if (left <= 0) return false;
      pollfd p{report_fd_, POLLIN, 0};
      int r = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
      if (r < 0 && errno != EINTR) return false;
      if (r > 0 && !ReadSome()) return values_.count(key) > 0;
    }
    return true;
  }
  void Go() {
    char c = 'g';
    if (write(control_fd_, &c, 1) != 1) std::fprintf(stderr, "kube_sync: the phase is gone\n");
  }
  // Reads the remaining reports and reaps the child. Returns its exit code (-1: killed).
  int Wait() {
    while (ReadSome()) {
    }
    if (!reaped_) {
      int status = 0;
      while (wait4(pid_, &status, 0, &usage_) < 0 && errno == EINTR) {
      }
      reaped_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    return exit_code_;
  }

  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  std::string Value(const std::string& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? "" : it->second;
  }
  double Number(const std::string& key) const { return std::atof(Value(key).c_str()); }
  // Of the whole child, after Wait().
  double cpu_seconds() const { return Seconds(usage_.ru_utime) + Seconds(usage_.ru_stime); }
  long max_rss_kb() const { return usage_.ru_maxrss; }

 private:
  Phase(pid_t pid, int report_fd, int control_fd)
      : pid_(pid), report_fd_(report_fd), control_fd_(control_fd) {}

  // One read from the report pipe; false at its end.
  bool ReadSome() {
    char buf[4096];
    ssize_t n = read(report_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) return true;
    if (n <= 0) return false;
    partial_.append(buf, static_cast<size_t>(n));
    size_t nl;
    while ((nl = partial_.find('\n')) != std::string::npos) {
      std::string line = partial_.substr(0, nl);
      partial_.erase(0, nl + 1);
      size_t sp = line.find(' ');
      if (sp == std::string::npos)
        values_[line] = "";
      else
        values_[line.substr(0, sp)] = line.substr(sp + 1);
    }
    return true;
  }

  pid_t pid_;
  int report_fd_;
  int control_fd_;
  bool reaped_ = false;
  int exit_code_ = -1;
  rusage usage_{};
  std::string partial_;
  std::map<std::string, std::string> values_;
};

// A peer program's run: started, timed until `done` says its output shows the cache complete,
// then stopped (SIGTERM) and reaped for its CPU and peak RSS.
struct PeerRun {
  bool ok = false;
  double seconds = 0;
  double cpu = 0;  // user+sys, including the moment between done and its exit
  double max_rss_kb = 0;
  int64_t lines = 0;
  double apiserver_cpu = -1, etcd_cpu = -1;
  std::string last_line;
};

struct Env;
PeerRun RunPeer(const Env& env, const std::vector<std::string>& argv,
                const std::function<bool(std::string_view line, int64_t lines)>& done);

// ---- the cluster's layout ----------------------------------------------------------------------

constexpr const char* kApps[] = {"checkout", "cart",    "payments",  "search",   "frontend",
                                 "catalog",  "ads",     "recommend", "shipping", "email",
                                 "currency", "quote",   "inventory", "auth",     "profile",
                                 "orders",   "reviews", "notify",    "gateway",  "analytics"};
constexpr int kAppCount = sizeof(kApps) / sizeof(kApps[0]);
constexpr char kNameAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as the API server's names
constexpr uint64_t kSuffixSpace = 27ULL * 27 * 27 * 27 * 27;

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::string Base27(uint64_t x, int digits) {
  std::string s(static_cast<size_t>(digits), 'b');
  for (int i = digits - 1; i >= 0; --i) {
    s[static_cast<size_t>(i)] = kNameAlphabet[x % 27];
    x /= 27;
  }
  return s;
}

std::string Hex(uint64_t x, int digits) {
  static const char* h = "0123456789abcdef";
  std::string s(static_cast<size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i) {
    s[static_cast<size_t>(i)] = h[x & 15];
    x >>= 4;
  }
  return s;
}

struct InstanceType {
  const char* name;
  const char* family;
  const char* size;
  int cpu;
  int memory_gib;
  int pods;
};
constexpr InstanceType kTypes[] = {
    {"m5.large", "m5", "large", 2, 8, 29},        {"m5.xlarge", "m5", "xlarge", 4, 16, 58},
    {"m5.2xlarge", "m5", "2xlarge", 8, 32, 58},   {"m5.4xlarge", "m5", "4xlarge", 16, 64, 234},
    {"c5.2xlarge", "c5", "2xlarge", 8, 16, 58},   {"c5.4xlarge", "c5", "4xlarge", 16, 32, 234},
    {"r5.xlarge", "r5", "xlarge", 4, 32, 58},     {"r5.2xlarge", "r5", "2xlarge", 8, 64, 58},
    {"m6i.2xlarge", "m6i", "2xlarge", 8, 32, 58}, {"c6i.4xlarge", "c6i", "4xlarge", 16, 32, 234},
};
constexpr int kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);
constexpr const char* kZones[] = {"us-west-2a", "us-west-2b", "us-west-2c"};
constexpr const char* kZoneIds[] = {"usw2-az1", "usw2-az2", "usw2-az3"};

// Where object i of the load goes; the same numbers give the same names on every run.
struct Layout {
  int64_t nodes = 0, pods = 0;
  int namespaces = 1, workloads = 1;

  static Layout Of(const Flags& f) {
    Layout l;
    l.nodes = f.nodes;
    l.pods = f.pods;
    l.namespaces =
        static_cast<int>(std::clamp<int64_t>(f.namespaces, 1, std::max<int64_t>(1, f.pods)));
    int64_t per_ns = std::max<int64_t>(1, f.pods / l.namespaces);
    l.workloads = static_cast<int>(std::clamp<int64_t>(f.workloads, 1, per_ns));
    return l;
  }

  std::string NodeName(int64_t i) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%05" PRId64, kNodePrefix, i);
    return buf;
  }
  std::string Namespace(int ns) const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%02d", kNamespacePrefix, ns);
    return buf;
  }
  static std::string App(int w) {
    std::string app = kApps[w % kAppCount];
    if (w >= kAppCount) app += "-" + std::to_string(w / kAppCount);
    return app;
  }
  static std::string TemplateHash(int ns, int w) {
    return Base27(Mix(static_cast<uint64_t>(ns) * 1000003ULL + static_cast<uint64_t>(w)), 10);
  }
  static std::string ReplicaSetName(int ns, int w) { return App(w) + "-" + TemplateHash(ns, w); }

  // Pod i: namespace i % namespaces, then workload and replica within it.
  int PodNamespace(int64_t i) const { return static_cast<int>(i % namespaces); }
  int PodWorkload(int64_t i) const { return static_cast<int>((i / namespaces) % workloads); }
  int64_t PodReplica(int64_t i) const { return i / namespaces / workloads; }
  std::string PodName(int64_t i) const {
    int ns = PodNamespace(i), w = PodWorkload(i);
    uint64_t offset =
        Mix(static_cast<uint64_t>(ns) * 7777ULL + static_cast<uint64_t>(w)) % kSuffixSpace;
    // 7919 is coprime to 27^5: distinct replicas get distinct suffixes.
    uint64_t suffix = (static_cast<uint64_t>(PodReplica(i)) * 7919ULL + offset) % kSuffixSpace;
    return ReplicaSetName(ns, w) + "-" + Base27(suffix, 5);
  }
  int64_t PodNode(int64_t i) const {
    return static_cast<int64_t>(Mix(static_cast<uint64_t>(i) ^ 0x5bd1e995ULL) %
                                static_cast<uint64_t>(nodes));
  }
};

// ---- objects -----------------------------------------------------------------------------------

std::string Ip(int64_t i) {
  return "10." + std::to_string(16 + (i >> 16) % 16) + "." + std::to_string((i >> 8) & 255) + "." +
         std::to_string(i & 255);
}

// An EKS node as Karpenter registers it: ~25 labels, a providerID, capacity and conditions.
Json BenchNode(const Layout& layout, int64_t i) {
  const InstanceType& t = kTypes[Mix(static_cast<uint64_t>(i)) % kTypeCount];
  const int zone = static_cast<int>(i % 3);
  const bool spot = i % 4 == 0;
  const bool batch = i % 5 == 0;
  const std::string name = layout.NodeName(i);
  const std::string instance_id = "i-0" + Hex(Mix(static_cast<uint64_t>(i) + 17), 16);
  Json labels = {
      {"beta.kubernetes.io/arch", "amd64"},
      {"beta.kubernetes.io/instance-type", t.name},
      {"beta.kubernetes.io/os", "linux"},
      {"failure-domain.beta.kubernetes.io/region", "us-west-2"},
      {"failure-domain.beta.kubernetes.io/zone", kZones[zone]},
      {"k8s.io/cloud-provider-aws", "5f1d3b6c0a9e8f7d6c5b4a3928171605"},
      {"karpenter.k8s.aws/ec2nodeclass", "default"},
      {"karpenter.k8s.aws/instance-category", std::string(1, t.family[0])},
      {"karpenter.k8s.aws/instance-cpu", std::to_string(t.cpu)},
      {"karpenter.k8s.aws/instance-family", t.family},
      {"karpenter.k8s.aws/instance-generation", std::string(1, t.family[1])},
      {"karpenter.k8s.aws/instance-hypervisor", "nitro"},
      {"karpenter.k8s.aws/instance-memory", std::to_string(t.memory_gib * 1024)},
      {"karpenter.k8s.aws/instance-size", t.size},
      {"karpenter.sh/capacity-type", spot ? "spot" : "on-demand"},
      {"karpenter.sh/initialized", "true"},
      {"karpenter.sh/nodepool", batch ? "batch" : "default"},
      {"karpenter.sh/registered", "true"},
      {"kubernetes.io/arch", "amd64"},
      {"kubernetes.io/hostname", name},
      {"kubernetes.io/os", "linux"},
      {"node.kubernetes.io/instance-type", t.name},
      {"topology.k8s.aws/zone-id", kZoneIds[zone]},
      {"topology.kubernetes.io/region", "us-west-2"},
      {"topology.kubernetes.io/zone", kZones[zone]},
      {kBenchLabel, "true"},
  };
  Json annotations = {
      {"alpha.kubernetes.io/provided-node-ip", Ip(i)},
      {"karpenter.k8s.aws/ec2nodeclass-hash", std::to_string(Mix(7) % 100000000000ULL)},
      {"karpenter.k8s.aws/ec2nodeclass-hash-version", "v4"},
      {"karpenter.sh/nodepool-hash", std::to_string(Mix(batch ? 11 : 13) % 100000000000ULL)},
      {"karpenter.sh/nodepool-hash-version", "v3"},
      {"node.alpha.kubernetes.io/ttl", "0"},
      {"volumes.kubernetes.io/controller-managed-attach-detach", "true"},
  };
  Json spec = {{"providerID", std::string("aws:///") + kZones[zone] + "/" + instance_id}};
  if (batch)
    spec["taints"] =
        Json::array({{{"key", "dedicated"}, {"value", "batch"}, {"effect", "NoSchedule"}}});
  const int64_t mem_ki = static_cast<int64_t>(t.memory_gib) * 1024 * 1024 - 250 * 1024;
  Json capacity = {{"cpu", std::to_string(t.cpu)},
                   {"ephemeral-storage", "83873772Ki"},
                   {"hugepages-1Gi", "0"},
                   {"hugepages-2Mi", "0"},
                   {"memory", std::to_string(mem_ki) + "Ki"},
                   {"pods", std::to_string(t.pods)}};
  Json allocatable = {{"cpu", std::to_string(t.cpu * 1000 - 70 - 10 * t.cpu) + "m"},
                      {"ephemeral-storage", "76224326324"},
                      {"hugepages-1Gi", "0"},
                      {"hugepages-2Mi", "0"},
                      {"memory", std::to_string(mem_ki - 1024 * 1024) + "Ki"},
                      {"pods", std::to_string(t.pods)}};
  const char* ts = "2025-06-01T08:00:00Z";
  auto condition = [&](const char* type, const char* status, const char* reason,
                       const char* message) {
    return Json{{"type", type},
                {"status", status},
                {"lastHeartbeatTime", ts},
                {"lastTransitionTime", ts},
                {"reason", reason},
                {"message", message}};
  };
  Json status = {
      {"capacity", capacity},
      {"allocatable", allocatable},
      {"conditions", Json::array({condition("MemoryPressure", "False", "KubeletHasSufficientMemory",
                                            "kubelet has sufficient memory available"),
                                  condition("DiskPressure", "False", "KubeletHasNoDiskPressure",
                                            "kubelet has no disk pressure"),
                                  condition("PIDPressure", "False", "KubeletHasSufficientPID",
                                            "kubelet has sufficient PID available"),
                                  condition("Ready", "True", "KubeletReady",
                                            "kubelet is posting ready status")})},
      {"addresses",
       Json::array(
           {{{"type", "InternalIP"}, {"address", Ip(i)}},
            {{"type", "InternalDNS"}, {"address", "ip-" + Ip(i) + ".us-west-2.compute.internal"}},
            {{"type", "Hostname"}, {"address", "ip-" + Ip(i) + ".us-west-2.compute.internal"}}})},
      {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
      {"nodeInfo",
       {{"machineID", "ec2" + Hex(Mix(static_cast<uint64_t>(i) + 1), 29)},
        {"systemUUID", "ec2" + Hex(Mix(static_cast<uint64_t>(i) + 2), 5) + "-" +
                           Hex(Mix(static_cast<uint64_t>(i) + 3), 4) + "-" + Hex(Mix(4), 4) + "-" +
                           Hex(Mix(5), 4) + "-" + Hex(Mix(static_cast<uint64_t>(i) + 6), 12)},
        {"bootID", Hex(Mix(static_cast<uint64_t>(i) + 7), 8) + "-" + Hex(Mix(8), 4) + "-" +
                       Hex(Mix(9), 4) + "-" + Hex(Mix(10), 4) + "-" +
                       Hex(Mix(static_cast<uint64_t>(i) + 11), 12)},
        {"kernelVersion", "6.1.119-129.201.amzn2023.x86_64"},
        {"osImage", "Amazon Linux 2023.6.20241212"},
        {"containerRuntimeVersion", "containerd://1.7.23"},
        {"kubeletVersion", "v1.31.4-eks-aeac579"},
        {"kubeProxyVersion", "v1.31.4-eks-aeac579"},
        {"operatingSystem", "linux"},
        {"architecture", "amd64"}}},
      {"images",
       Json::array(
           {{{"names",
              Json::array({"602401143452.dkr.ecr.us-west-2.amazonaws.com/amazon-k8s-cni@sha256:" +
                               Hex(Mix(21), 16) + Hex(Mix(22), 16) + Hex(Mix(23), 16) +
                               Hex(Mix(24), 16),
                           "602401143452.dkr.ecr.us-west-2.amazonaws.com/"
                           "amazon-k8s-cni:v1.19.0-eksbuild.1"})},
             {"sizeBytes", 39854219}},
            {{"names",
              Json::array({"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/kube-proxy@sha256:" +
                               Hex(Mix(31), 16) + Hex(Mix(32), 16) + Hex(Mix(33), 16) +
                               Hex(Mix(34), 16),
                           "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/"
                           "kube-proxy:v1.31.3-minimal-eksbuild.2"})},
             {"sizeBytes", 36108318}},
            {{"names",
              Json::array({"602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause@sha256:" +
                               Hex(Mix(41), 16) + Hex(Mix(42), 16) + Hex(Mix(43), 16) +
                               Hex(Mix(44), 16),
                           "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks/pause:3.5"})},
             {"sizeBytes", 298689}}})},
  };
  return Json{{"apiVersion", "v1"},
              {"kind", "Node"},
              {"metadata", {{"name", name}, {"labels", labels}, {"annotations", annotations}}},
              {"spec", spec},
              {"status", status}};
}

Json BenchNamespace(const Layout& layout, int ns) {
  return Json{{"apiVersion", "v1"},
              {"kind", "Namespace"},
              {"metadata", {{"name", layout.Namespace(ns)}, {"labels", {{kBenchLabel, "true"}}}}}};
}

// The owner of a workload's pods. Its selector asks for a label the pods lack and it wants no
// replicas, so the ReplicaSet controller neither adopts nor deletes them, while the garbage
// collector finds their owner and keeps them.
Json BenchReplicaSet(const Layout& layout, int ns, int w) {
  Json match = {{"app", Layout::App(w)},
                {"pod-template-hash", Layout::TemplateHash(ns, w)},
                {"bench.nodesmith.dev/adopt", "never"}};
  return Json{
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata",
       {{"name", Layout::ReplicaSetName(ns, w)},
        {"namespace", layout.Namespace(ns)},
        {"labels", {{"app", Layout::App(w)}, {kBenchLabel, "true"}}}}},
      {"spec",
       {{"replicas", 0},
        {"selector", {{"matchLabels", match}}},
        {"template",
         {{"metadata", {{"labels", match}}},
          {"spec",
           {{"containers",
             Json::array({{{"name", "app"}, {"image", "registry.k8s.io/pause:3.10"}}})}}}}}}}};
}

// A Deployment's pod as it is stored once bound: labels, an owner, two containers with requests,
// env and probes, tolerations, a spread constraint, nodeName. The ServiceAccount admission adds
// the token volume, so the served object looks like a real one.
Json BenchPod(const Layout& layout, int64_t i, const std::string& owner_uid) {
  const int ns = layout.PodNamespace(i), w = layout.PodWorkload(i);
  const std::string app = Layout::App(w);
  const std::string hash = Layout::TemplateHash(ns, w);
  static const char* kCpu[] = {"100m", "250m", "500m", "1", "2"};
  static const char* kMem[] = {"128Mi", "256Mi", "512Mi", "1Gi", "2Gi"};
  const int size =
      static_cast<int>(Mix(static_cast<uint64_t>(w) * 31 + static_cast<uint64_t>(ns)) % 5);
  Json labels = {{"app", app},
                 {"app.kubernetes.io/name", app},
                 {"app.kubernetes.io/instance", app + "-prod"},
                 {"app.kubernetes.io/version", "1." + std::to_string(w) + ".3"},
                 {"app.kubernetes.io/part-of", "shop"},
                 {"pod-template-hash", hash},
                 {"team", std::string("team-") + kApps[(w + ns) % kAppCount]},
                 {kBenchLabel, "true"}};
  Json annotations = {{"kubectl.kubernetes.io/restartedAt", "2025-05-30T14:12:09Z"},
                      {"prometheus.io/scrape", "true"},
                      {"prometheus.io/port", "9090"}};
  Json owner = Json::array({{{"apiVersion", "apps/v1"},
                             {"kind", "ReplicaSet"},
                             {"name", Layout::ReplicaSetName(ns, w)},
                             {"uid", owner_uid},
                             {"blockOwnerDeletion", true}}});
  auto field_env = [](const char* name, const char* path) {
    return Json{{"name", name},
                {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", path}}}}}};
  };
  Json app_container = {
      {"name", app},
      {"image", "123456789012.dkr.ecr.us-west-2.amazonaws.com/shop/" + app + ":1." +
                    std::to_string(w) + ".3"},
      {"ports", Json::array({{{"name", "http"}, {"containerPort", 8080}, {"protocol", "TCP"}},
                             {{"name", "metrics"}, {"containerPort", 9090}, {"protocol", "TCP"}}})},
      {"env", Json::array({field_env("POD_NAME", "metadata.name"),
                           field_env("POD_NAMESPACE", "metadata.namespace"),
                           field_env("NODE_NAME", "spec.nodeName"),
                           {{"name", "LOG_LEVEL"}, {"value", "info"}},
                           {{"name", "OTEL_EXPORTER_OTLP_ENDPOINT"},
                            {"value", "http://otel-collector.observability:4317"}}})},
      {"resources",
       {{"requests", {{"cpu", kCpu[size]}, {"memory", kMem[size]}}},
        {"limits", {{"memory", kMem[std::min(size + 1, 4)]}}}}},
      {"readinessProbe",
       {{"httpGet", {{"path", "/healthz"}, {"port", "http"}}}, {"periodSeconds", 5}}},
      {"volumeMounts", Json::array({{{"name", "config"}, {"mountPath", "/etc/" + app}}})},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", Json::array({"ALL"})}}}}}};
  Json proxy = {
      {"name", "envoy"},
      {"image", "envoyproxy/envoy:v1.31.2"},
      {"args", Json::array({"--config-path", "/etc/envoy/envoy.yaml"})},
      {"ports", Json::array({{{"name", "proxy"}, {"containerPort", 15001}}})},
      {"resources",
       {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}, {"limits", {{"memory", "256Mi"}}}}}};
  auto toleration = [](const char* key) {
    return Json{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}};
  };
  Json spec = {
      {"nodeName", layout.NodeName(layout.PodNode(i))},
      {"serviceAccountName", "default"},
      {"terminationGracePeriodSeconds", 30},
      {"nodeSelector", {{"kubernetes.io/os", "linux"}}},
      {"securityContext", {{"runAsNonRoot", true}, {"fsGroup", 2000}}},
      {"containers", Json::array({app_container, proxy})},
      // Forever: the bench nodes have no kubelet, so they turn unreachable; their pods must stay.
      {"tolerations", Json::array({toleration("node.kubernetes.io/not-ready"),
                                   toleration("node.kubernetes.io/unreachable"),
                                   {{"key", "dedicated"},
                                    {"operator", "Equal"},
                                    {"value", "batch"},
                                    {"effect", "NoSchedule"}}})},
      {"topologySpreadConstraints",
       Json::array({{{"maxSkew", 1},
                     {"topologyKey", "topology.kubernetes.io/zone"},
                     {"whenUnsatisfiable", "ScheduleAnyway"},
                     {"labelSelector", {{"matchLabels", {{"app", app}}}}}}})},
      {"volumes", Json::array({{{"name", "config"}, {"configMap", {{"name", app + "-config"}}}}})}};
  return Json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", layout.PodName(i)},
                {"generateName", Layout::ReplicaSetName(ns, w) + "-"},
                {"namespace", layout.Namespace(ns)},
                {"labels", labels},
                {"annotations", annotations},
                {"ownerReferences", owner}}},
              {"spec", spec}};
}

// ---- the driver's environment ------------------------------------------------------------------

struct Env {
  Flags flags;
  Layout layout;
  kube::RestConfig config;  // as loaded: the measured clients keep its qps and burst
  std::string testenv_dir;
  std::string kubectl_path;  // directory prepended to PATH for the peers ("" : PATH as it is)
  pid_t apiserver_pid = 0, etcd_pid = 0;
  std::string token;  // makes this run's label values differ from every earlier run's

  // A client for load and writes: the limiter raised, so the server sets the pace.
  kube::RestConfig FastConfig() const {
    kube::RestConfig c = config;
    c.qps = flags.qps;
    c.burst = static_cast<int>(flags.qps);
    return c;
  }
};

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  return access(("/proc/" + std::to_string(pid) + "/stat").c_str(), R_OK) == 0
             ? static_cast<pid_t>(pid)
             : 0;
}

// The kubectl directory from DIR/env ("export PATH=<kubectl dir>:<helm dir>:$PATH").
std::string TestenvPath(const std::string& dir) {
  std::ifstream in(dir + "/env");
  std::string line, prefix = "export PATH=";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::string v = line.substr(prefix.size());
    size_t tail = v.find(":$PATH");
    if (tail != std::string::npos) v = v.substr(0, tail);
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
    return v;
  }
  return "";
}

PeerRun RunPeer(const Env& env, const std::vector<std::string>& argv,
                const std::function<bool(std::string_view line, int64_t lines)>& done) {
  PeerRun run;
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return run;
  const double api0 = ProcessCpuSeconds(env.apiserver_pid);
  const double etcd0 = ProcessCpuSeconds(env.etcd_pid);
  std::fflush(nullptr);
  const double start = Now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    std::string path =
        env.kubectl_path.empty()
            ? std::string(std::getenv("PATH") ? std::getenv("PATH") : "")
            : env.kubectl_path + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "");
    setenv("PATH", path.c_str(), 1);
    setenv("KUBECONFIG", env.flags.kubeconfig.c_str(), 1);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "kube_sync: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  std::string partial;
  char buf[65536];
  const double deadline = start + env.flags.sync_timeout;
  bool finished = false;
  while (!finished) {
    double left = deadline - Now();
    if (left <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    int r = poll(&p, 1, static_cast<int>(std::min(left, 1.0) * 1000) + 1);
    if (r < 0 && errno != EINTR) break;
    if (r <= 0) continue;
    ssize_t n = read(out[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the program exited
    partial.append(buf, static_cast<size_t>(n));
    size_t begin = 0, nl;
    while ((nl = partial.find('\n', begin)) != std::string::npos) {
      std::string_view line(partial.data() + begin, nl - begin);
      ++run.lines;
      if (done(line, run.lines)) {
        run.last_line = std::string(line);
        finished = true;
        break;
      }
      begin = nl + 1;
    }
    partial.erase(0, begin);
  }
  run.seconds = Now() - start;
  run.apiserver_cpu = env.apiserver_pid > 0 ? ProcessCpuSeconds(env.apiserver_pid) - api0 : -1;
  run.etcd_cpu = env.etcd_pid > 0 ? ProcessCpuSeconds(env.etcd_pid) - etcd0 : -1;
  run.ok = finished;
  kill(pid, SIGTERM);
  close(out[0]);
  int status = 0;
  rusage ru{};
  while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  run.cpu = Seconds(ru.ru_utime) + Seconds(ru.ru_stime);
  run.max_rss_kb = static_cast<double>(ru.ru_maxrss);
  return run;
}

void LogToStderr(const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); }

// Calls fn(i) for every i in [0, n) from `threads` threads; `make_state` builds each thread's
// state (its own RestClient).
template <typename State>
void Parallel(int threads, int64_t n, const std::function<std::unique_ptr<State>()>& make_state,
              const std::function<void(State&, int64_t)>& fn) {
  std::atomic<int64_t> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      std::unique_ptr<State> state = make_state();
      for (int64_t i = next++; i < n; i = next++) fn(*state, i);
    });
  }
  for (std::thread& t : pool) t.join();
}

// Creates `object`, retrying what the client does not: 1 created, 0 already there, -1 failed.
int CreateOnce(kube::RestClient& client, const kube::ResourceType& r, const std::string& ns,
               const Json& object, std::atomic<int>* errors_shown) {
  for (int attempt = 0;; ++attempt) {
    auto created = client.Create(r, ns, object);
    if (created.ok()) return 1;
    if (created.status().code() == core::StatusCode::kAlreadyExists) return 0;
    if (attempt < 4 && created.status().code() == core::StatusCode::kUnavailable) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500 << attempt));
      continue;
    }
    if (errors_shown->fetch_add(1) < 5)
      std::fprintf(stderr, "  create %s %s: %s\n", std::string(r.kind).c_str(),
                   object["metadata"].value("name", "").c_str(),
                   created.status().message().c_str());
    return -1;
  }
}

// ---- phase: count ------------------------------------------------------------------------------

// How many objects a collection holds without reading them all: one item and the server's
// remainingItemCount (paging through when the server leaves it out). -1 on failure.
int64_t CountCollection(kube::RestClient& client, const kube::ResourceType& r,
                        const std::string& ns, std::string* error) {
  kube::HttpRequest request;
  request.path = r.CollectionPath(ns) + "?limit=1";
  for (int attempt = 0;; ++attempt) {
    auto response = client.transport().Do(request);
    if (!response.ok()) {
      *error = response.status().message();
      return -1;
    }
    if ((response->status == 429 || response->status >= 500) && attempt < 60) {
      std::this_thread::sleep_for(std::chrono::seconds(1));  // e.g. the server's cache is filling
      continue;
    }
    if (response->status != 200) {
      *error = "GET " + request.path + ": HTTP " + std::to_string(response->status) + ": " +
               response->body.substr(0, 300);
      return -1;
    }
    Json doc = Json::parse(response->body, nullptr, false);
    if (!doc.is_object() || !doc.contains("items") || !doc["items"].is_array()) {
      *error = "GET " + request.path + ": not a list";
      return -1;
    }
    int64_t n = static_cast<int64_t>(doc["items"].size());
    const Json meta = doc.value("metadata", Json::object());
    if (meta.contains("remainingItemCount")) return n + meta["remainingItemCount"].get<int64_t>();
    if (meta.value("continue", "").empty()) return n;
    kube::ListOptions o;
    std::string token, next;
    n = 0;
    do {
      auto page = client.ListPage(r, ns, o, token, &next);
      if (!page.ok()) {
        *error = page.status().message();
        return -1;
      }
      n += static_cast<int64_t>(page->items.size());
      token = next;
    } while (!token.empty());
    return n;
  }
}

// The bench nodes (listed), the bench pods (counted per bench namespace), everything, and the
// served size of a node and of a pod.
int CountBody(Phase& p, const Env& env) {
  kube::RestClient client(env.config);
  std::string error;
  auto fail = [&](const std::string& why) {
    p.Report("error", why);
    return 1;
  };
  kube::ListOptions bench;
  bench.label_selector = kBenchSelector;
  auto namespaces = client.List(kube::resources::kNamespaces, "", bench);
  if (!namespaces.ok()) return fail(namespaces.status().message());
  int64_t pods = 0;
  double pod_bytes = 0, pod_samples = 0;
  for (const Json& item : namespaces->items) {
    const std::string ns = item["metadata"].value("name", "");
    int64_t n = CountCollection(client, kube::resources::kPods, ns, &error);
    if (n < 0) return fail(error);
    pods += n;
    if (pod_samples == 0 && n > 0) {
      std::string next;
      kube::ListOptions o;
      o.limit = 500;
      auto page = client.ListPage(kube::resources::kPods, ns, o, "", &next);
      if (!page.ok()) return fail(page.status().message());
      for (const Json& pod : page->items) pod_bytes += static_cast<double>(pod.dump().size());
      pod_samples = static_cast<double>(page->items.size());
    }
  }
  auto nodes = client.List(kube::resources::kNodes, "", bench);
  if (!nodes.ok()) return fail(nodes.status().message());
  double node_bytes = 0;
  for (const Json& node : nodes->items) node_bytes += static_cast<double>(node.dump().size());
  const int64_t all_pods = CountCollection(client, kube::resources::kPods, "", &error);
  const int64_t all_nodes = CountCollection(client, kube::resources::kNodes, "", &error);
  if (all_pods < 0 || all_nodes < 0) return fail(error);
  p.Report("nodes", static_cast<double>(nodes->items.size()));
  p.Report("pods", static_cast<double>(pods));
  p.Report("all_pods", static_cast<double>(all_pods));
  p.Report("all_nodes", static_cast<double>(all_nodes));
  p.Report("node_bytes",
           nodes->items.empty() ? 0 : node_bytes / static_cast<double>(nodes->items.size()));
  p.Report("pod_bytes", pod_samples == 0 ? 0 : pod_bytes / pod_samples);
  return 0;
}

struct Counts {
  int64_t nodes = -1, pods = -1, all_pods = -1, all_nodes = -1;
  double node_bytes = 0, pod_bytes = 0;
};

Counts Count(const Env& env) {
  auto phase = Phase::Fork([&](Phase& p) { return CountBody(p, env); });
  int rc = phase->Wait();
  Counts c;
  if (rc != 0) {
    std::fprintf(stderr, "kube_sync: counting failed: %s\n", phase->Value("error").c_str());
    return c;
  }
  c.nodes = static_cast<int64_t>(phase->Number("nodes"));
  c.pods = static_cast<int64_t>(phase->Number("pods"));
  c.all_pods = static_cast<int64_t>(phase->Number("all_pods"));
  c.all_nodes = static_cast<int64_t>(phase->Number("all_nodes"));
  c.node_bytes = phase->Number("node_bytes");
  c.pod_bytes = phase->Number("pod_bytes");
  return c;
}

// ---- phase: load -------------------------------------------------------------------------------

int LoadBody(Phase& p, const Env& env) {
  const Layout& l = env.layout;
  const kube::RestConfig fast = env.FastConfig();
  kube::RestClient client(fast);
  std::atomic<int> errors_shown{0};
  const double t0 = Now();

  for (int ns = 0; ns < l.namespaces; ++ns)
    if (CreateOnce(client, kube::resources::kNamespaces, "", BenchNamespace(l, ns), &errors_shown) <
        0)
      return 1;
  // Pods name the default ServiceAccount, which the controller manager adds to a new namespace.
  for (int ns = 0; ns < l.namespaces; ++ns) {
    const double deadline = Now() + 120;
    while (!client.Get(kServiceAccounts, l.Namespace(ns), "default").ok()) {
      if (Now() > deadline) {
        std::fprintf(stderr, "kube_sync: no default ServiceAccount in %s after 120 s\n",
                     l.Namespace(ns).c_str());
        return 1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  std::vector<std::string> owner_uids(static_cast<size_t>(l.namespaces) * l.workloads);
  for (int ns = 0; ns < l.namespaces; ++ns) {
    for (int w = 0; w < l.workloads; ++w) {
      if (CreateOnce(client, kube::resources::kReplicaSets, l.Namespace(ns),
                     BenchReplicaSet(l, ns, w), &errors_shown) < 0)
        return 1;
      auto rs =
          client.Get(kube::resources::kReplicaSets, l.Namespace(ns), Layout::ReplicaSetName(ns, w));
      if (!rs.ok()) {
        std::fprintf(stderr, "kube_sync: %s\n", rs.status().message().c_str());
        return 1;
      }
      owner_uids[static_cast<size_t>(ns) * l.workloads + w] = (*rs)["metadata"].value("uid", "");
    }
  }
  std::printf("load: %d namespaces, %d ReplicaSets in %.1f s\n", l.namespaces,
              l.namespaces * l.workloads, Now() - t0);

  struct Tally {
    std::atomic<int64_t> created{0}, existing{0}, failed{0};
  };
  auto run = [&](const char* what, int64_t n,
                 const std::function<int(kube::RestClient&, int64_t)>& one) {
    Tally tally;
    std::atomic<bool> done{false};
    const double start = Now();
    std::thread progress([&] {
      double next_report = start + 15;
      while (!done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (Now() < next_report || done) continue;
        next_report += 15;
        int64_t k = tally.created + tally.existing + tally.failed;
        std::printf("load: %s %" PRId64 "/%" PRId64 " (%.0f/s)\n", what, k, n, k / (Now() - start));
        std::fflush(stdout);
      }
    });
    Parallel<kube::RestClient>(
        env.flags.threads, n, [&] { return std::make_unique<kube::RestClient>(fast); },
        [&](kube::RestClient& c, int64_t i) {
          int r = one(c, i);
          (r > 0 ? tally.created : r == 0 ? tally.existing : tally.failed).fetch_add(1);
        });
    done = true;
    progress.join();
    const double seconds = Now() - start;
    std::printf("load: %s: %" PRId64 " created, %" PRId64 " already there, %" PRId64
                " failed in %.1f s (%.0f created/s, %d threads)\n",
                what, tally.created.load(), tally.existing.load(), tally.failed.load(), seconds,
                tally.created / std::max(seconds, 1e-9), env.flags.threads);
    std::fflush(stdout);
    p.Report(std::string(what) + "_created", static_cast<double>(tally.created));
    p.Report(std::string(what) + "_rate", tally.created / std::max(seconds, 1e-9));
    return tally.failed.load();
  };
  int64_t failed = run("nodes", l.nodes, [&](kube::RestClient& c, int64_t i) {
    return CreateOnce(c, kube::resources::kNodes, "", BenchNode(l, i), &errors_shown);
  });
  failed += run("pods", l.pods, [&](kube::RestClient& c, int64_t i) {
    int ns = l.PodNamespace(i), w = l.PodWorkload(i);
    return CreateOnce(c, kube::resources::kPods, l.Namespace(ns),
                      BenchPod(l, i, owner_uids[static_cast<size_t>(ns) * l.workloads + w]),
                      &errors_shown);
  });
  p.Report("seconds", Now() - t0);
  return failed == 0 ? 0 : 1;
}

// ---- phase: delete -----------------------------------------------------------------------------

int DeleteBody(Phase& p, const Env& env) {
  const kube::RestConfig fast = env.FastConfig();
  kube::RestClient client(fast);
  const double t0 = Now();
  auto names = [&](const kube::ResourceType& r,
                   std::vector<std::pair<std::string, std::string>>* out) {
    kube::ListOptions o;
    o.label_selector = kBenchSelector;
    std::string token, next;
    do {
      auto page = client.ListPage(r, "", o, token, &next);
      if (!page.ok()) {
        std::fprintf(stderr, "kube_sync: %s\n", page.status().message().c_str());
        return false;
      }
      for (const Json& item : page->items)
        out->emplace_back(item["metadata"].value("namespace", ""),
                          item["metadata"].value("name", ""));
      token = next;
    } while (!token.empty());
    return true;
  };
  std::atomic<int64_t> failed{0};
  auto remove = [&](const kube::ResourceType& r,
                    const std::vector<std::pair<std::string, std::string>>& objects, bool force) {
    Parallel<kube::RestClient>(
        env.flags.threads, static_cast<int64_t>(objects.size()),
        [&] { return std::make_unique<kube::RestClient>(fast); },
        [&](kube::RestClient& c, int64_t i) {
          kube::DeleteOptions o;
          // Bench pods have no kubelet to confirm a graceful deletion.
          if (force) o.grace_period_seconds = 0;
          auto gone = c.Delete(r, objects[static_cast<size_t>(i)].first,
                               objects[static_cast<size_t>(i)].second, o);
          if (!gone.ok() && gone.status().code() != core::StatusCode::kNotFound) {
            if (failed.fetch_add(1) < 5)
              std::fprintf(stderr, "  delete: %s\n", gone.status().message().c_str());
          }
        });
  };
  std::vector<std::pair<std::string, std::string>> pods, nodes, namespaces;
  if (!names(kube::resources::kPods, &pods) || !names(kube::resources::kNodes, &nodes) ||
      !names(kube::resources::kNamespaces, &namespaces))
    return 1;
  remove(kube::resources::kPods, pods, true);
  std::printf("delete: %zu pods in %.1f s\n", pods.size(), Now() - t0);
  remove(kube::resources::kNamespaces, namespaces, false);
  remove(kube::resources::kNodes, nodes, false);
  std::printf("delete: %zu nodes, %zu namespaces (%.1f s so far)\n", nodes.size(),
              namespaces.size(), Now() - t0);
  std::fflush(stdout);
  // The namespace controller empties them (ReplicaSets, ServiceAccounts) before they go.
  const double deadline = Now() + 300;
  while (true) {
    std::vector<std::pair<std::string, std::string>> left;
    if (!names(kube::resources::kNamespaces, &left)) return 1;
    if (left.empty()) break;
    if (Now() > deadline) {
      std::fprintf(stderr, "kube_sync: %zu bench namespaces still terminating after 300 s\n",
                   left.size());
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::printf("delete: done in %.1f s\n", Now() - t0);
  p.Report("failed", static_cast<double>(failed));
  return failed == 0 ? 0 : 1;
}

int Delete(const Env& env) {
  auto phase = Phase::Fork([&](Phase& p) { return DeleteBody(p, env); });
  return phase->Wait();
}

// ---- phase: cold sync --------------------------------------------------------------------------

struct SyncRun {
  bool ok = false;
  double seconds = 0, cpu = 0, user = 0, sys = 0, max_rss_kb = 0, rss_kb = 0;
  double apiserver_cpu = -1, etcd_cpu = -1;
  int64_t pods = 0, nodes = 0, bench_pods = 0, bench_nodes = 0, decode_errors = 0, requests = 0;
  double base_rss_kb = 0;
};

int SyncBody(Phase& p, const Env& env) {
  const double base_rss = static_cast<double>(CurrentRssKb());
  kube::RestClient client(env.config);
  kube::KubeClusterOptions options;
  options.kinds = {cluster::Kind::kPod, cluster::Kind::kNode};
  options.log = LogToStderr;
  kube::KubeCluster cluster(client, options);
  const double api0 = ProcessCpuSeconds(env.apiserver_pid);
  const double etcd0 = ProcessCpuSeconds(env.etcd_pid);
  const Cpu cpu0 = SelfCpu();
  const double t0 = Now();
  core::Status started = cluster.Start(env.flags.sync_timeout);
  const double seconds = Now() - t0;
  const Cpu cpu1 = SelfCpu();
  const double api1 = ProcessCpuSeconds(env.apiserver_pid);
  const double etcd1 = ProcessCpuSeconds(env.etcd_pid);
  if (!started.ok()) {
    p.Report("error", started.message());
    return 1;
  }
  p.Report("seconds", seconds);
  p.Report("user", cpu1.user - cpu0.user);
  p.Report("sys", cpu1.sys - cpu0.sys);
  p.Report("max_rss_kb", static_cast<double>(SelfMaxRssKb()));
  p.Report("rss_kb", static_cast<double>(CurrentRssKb()));
  p.Report("base_rss_kb", base_rss);
  if (env.apiserver_pid > 0) p.Report("apiserver_cpu", api1 - api0);
  if (env.etcd_pid > 0) p.Report("etcd_cpu", etcd1 - etcd0);
  kube::Informer* pods = cluster.InformerOf(kube::resources::kPods);
  kube::Informer* nodes = cluster.InformerOf(kube::resources::kNodes);
  int64_t bench_pods = 0, bench_nodes = 0;
  pods->ForEach([&](const kube::CachedObject& o) {
    if (o.namespace_.rfind(kNamespacePrefix, 0) == 0) ++bench_pods;
  });
  nodes->ForEach([&](const kube::CachedObject& o) {
    if (o.name.rfind(kNodePrefix, 0) == 0) ++bench_nodes;
  });
  p.Report("pods", static_cast<double>(pods->size()));
  p.Report("nodes", static_cast<double>(nodes->size()));
  p.Report("bench_pods", static_cast<double>(bench_pods));
  p.Report("bench_nodes", static_cast<double>(bench_nodes));
  p.Report("decode_errors", static_cast<double>(pods->decode_errors() + nodes->decode_errors()));
  p.Report("requests", static_cast<double>(client.requests_sent()));
  p.Report("done", 1.0);
  return 0;
}

// Not the client's code path: the same LIST decoded page by page (ListPage + Informer::Apply into
// informers that are never started), so no page's documents outlive the page. What Relist would
// cost if it did not keep every page until the last has arrived.
int PagewiseBody(Phase& p, const Env& env) {
  const double base_rss = static_cast<double>(CurrentRssKb());
  kube::RestClient client(env.config);
  kube::InformerOptions io;
  io.log = LogToStderr;
  kube::Informer pods(client, kube::resources::kPods, io);
  kube::Informer nodes(client, kube::resources::kNodes, io);
  pods.AddIndex("spec.nodeName", [](const cluster::Object& o) {
    const auto& pod = std::get<api::Pod>(o);
    return pod.spec.node_name.empty() ? std::vector<std::string>{}
                                      : std::vector<std::string>{pod.spec.node_name};
  });
  nodes.AddIndex("spec.providerID", [](const cluster::Object& o) {
    const auto& node = std::get<api::Node>(o);
    return node.spec.provider_id.empty() ? std::vector<std::string>{}
                                         : std::vector<std::string>{node.spec.provider_id};
  });
  auto list = [&](kube::Informer& informer, const kube::ResourceType& r, std::string* error) {
    kube::ListOptions o;
    o.limit = 500;
    std::string token, next;
    do {
      auto page = client.ListPage(r, "", o, token, &next);
      if (!page.ok()) {
        *error = page.status().message();
        return;
      }
      for (const Json& item : page->items) informer.Apply(kube::CacheEventType::kAdded, item);
      token = next;
    } while (!token.empty());
  };
  const double api0 = ProcessCpuSeconds(env.apiserver_pid);
  const double etcd0 = ProcessCpuSeconds(env.etcd_pid);
  const Cpu cpu0 = SelfCpu();
  const double t0 = Now();
  std::string node_error, pod_error;
  std::thread node_list([&] { list(nodes, kube::resources::kNodes, &node_error); });
  list(pods, kube::resources::kPods, &pod_error);
  node_list.join();
  const double seconds = Now() - t0;
  const Cpu cpu1 = SelfCpu();
  const double api1 = ProcessCpuSeconds(env.apiserver_pid);
  const double etcd1 = ProcessCpuSeconds(env.etcd_pid);
  if (!node_error.empty() || !pod_error.empty()) {
    p.Report("error", node_error + pod_error);
    return 1;
  }
  p.Report("seconds", seconds);
  p.Report("user", cpu1.user - cpu0.user);
  p.Report("sys", cpu1.sys - cpu0.sys);
  p.Report("max_rss_kb", static_cast<double>(SelfMaxRssKb()));
  p.Report("rss_kb", static_cast<double>(CurrentRssKb()));
  p.Report("base_rss_kb", base_rss);
  if (env.apiserver_pid > 0) p.Report("apiserver_cpu", api1 - api0);
  if (env.etcd_pid > 0) p.Report("etcd_cpu", etcd1 - etcd0);
  p.Report("pods", static_cast<double>(pods.size()));
  p.Report("nodes", static_cast<double>(nodes.size()));
  p.Report("decode_errors", static_cast<double>(pods.decode_errors() + nodes.decode_errors()));
  p.Report("requests", static_cast<double>(client.requests_sent()));
  p.Report("done", 1.0);
  return 0;
}

SyncRun ColdSync(const Phase::Body& body) {
  auto phase = Phase::Fork(body);
  int rc = phase->Wait();
  SyncRun r;
  if (rc != 0 || !phase->Has("done")) {
    std::fprintf(stderr, "kube_sync: cold sync failed: %s\n", phase->Value("error").c_str());
    return r;
  }
  r.ok = true;
  r.seconds = phase->Number("seconds");
  r.user = phase->Number("user");
  r.sys = phase->Number("sys");
  r.cpu = r.user + r.sys;
  r.max_rss_kb = phase->Number("max_rss_kb");
  r.rss_kb = phase->Number("rss_kb");
  r.base_rss_kb = phase->Number("base_rss_kb");
  r.apiserver_cpu = phase->Has("apiserver_cpu") ? phase->Number("apiserver_cpu") : -1;
  r.etcd_cpu = phase->Has("etcd_cpu") ? phase->Number("etcd_cpu") : -1;
  r.pods = static_cast<int64_t>(phase->Number("pods"));
  r.nodes = static_cast<int64_t>(phase->Number("nodes"));
  r.bench_pods = static_cast<int64_t>(phase->Number("bench_pods"));
  r.bench_nodes = static_cast<int64_t>(phase->Number("bench_nodes"));
  r.decode_errors = static_cast<int64_t>(phase->Number("decode_errors"));
  r.requests = static_cast<int64_t>(phase->Number("requests"));
  return r;
}

// ---- phase: watch ------------------------------------------------------------------------------

// Patches pods 0..changes-1 (spread over every namespace and node) to label value `value`.
int WriteBody(Phase& p, const Env& env, const std::string& value) {
  const kube::RestConfig fast = env.FastConfig();
  const Layout& l = env.layout;
  std::atomic<int64_t> ok{0}, failed{0};
  const Json patch = {{"metadata", {{"labels", {{kGenLabel, value}}}}}};
  const double start = Now();
  Parallel<kube::RestClient>(
      env.flags.writers, env.flags.changes,
      [&] { return std::make_unique<kube::RestClient>(fast); },
      [&](kube::RestClient& c, int64_t i) {
        auto r = c.Patch(kube::resources::kPods, l.Namespace(l.PodNamespace(i)), l.PodName(i),
                         kube::PatchType::kMerge, patch);
        if (r.ok()) {
          ok.fetch_add(1);
        } else if (failed.fetch_add(1) < 5) {
          std::fprintf(stderr, "  patch: %s\n", r.status().message().c_str());
        }
      });
  const double end = Now();
  p.Report("start", start);
  p.Report("end", end);
  p.Report("ok", static_cast<double>(ok));
  p.Report("failed", static_cast<double>(failed));
  return failed == 0 ? 0 : 1;
}

struct WriteRun {
  double start = 0, end = 0, cpu = 0;
  int64_t ok = 0, failed = 0;
  double rate() const { return ok / std::max(end - start, 1e-9); }
};

WriteRun Write(const Env& env, const std::string& value) {
  auto phase = Phase::Fork([&](Phase& p) { return WriteBody(p, env, value); });
  phase->Wait();
  WriteRun w;
  w.start = phase->Number("start");
  w.end = phase->Number("end");
  w.ok = static_cast<int64_t>(phase->Number("ok"));
  w.failed = static_cast<int64_t>(phase->Number("failed"));
  w.cpu = phase->cpu_seconds();
  return w;
}

// Waits until `informer` has applied `want` events since `base`, dispatching what the
// KubeCluster queued meanwhile (as the operator's runtime does). Gives up when no event came for
// `stall` seconds. Returns {time of the first event, time of the last}.
std::pair<double, double> AwaitEvents(kube::KubeCluster& cluster, kube::Informer& informer,
                                      uint64_t base, uint64_t want, double stall,
                                      uint64_t relists_before) {
  double first = 0, last = Now();
  uint64_t seen = 0;
  while (true) {
    cluster.DispatchEvents();
    uint64_t now_seen = informer.events_applied() - base;
    if (now_seen != seen) {
      if (seen == 0) first = Now();
      seen = now_seen;
      last = Now();
    }
    if (seen >= want || informer.relists() != relists_before) break;
    if (Now() - last > stall) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  cluster.DispatchEvents();
  return {first, last};
}

int WatchBody(Phase& p, const Env& env) {
  kube::RestClient client(env.config);
  kube::KubeClusterOptions options;
  options.kinds = {cluster::Kind::kPod};
  options.log = LogToStderr;
  kube::KubeCluster cluster(client, options);
  uint64_t dispatched = 0;
  cluster.Watch(cluster::Kind::kPod, [&](const cluster::WatchEvent&) { ++dispatched; });
  core::Status started = cluster.Start(env.flags.sync_timeout);
  if (!started.ok()) {
    p.Report("error", started.message());
    return 1;
  }
  kube::Informer& informer = *cluster.InformerOf(kube::resources::kPods);
  const uint64_t want = static_cast<uint64_t>(env.flags.changes);

  // Live: the informer watches while the writers patch.
  p.Report("synced", 1.0);
  if (!p.AwaitGo()) return 1;
  uint64_t base = informer.events_applied();
  Cpu cpu0 = SelfCpu();
  auto [first, last] = AwaitEvents(cluster, informer, base, want, 30, informer.relists());
  Cpu cpu1 = SelfCpu();
  p.Report("live_events", static_cast<double>(informer.events_applied() - base));
  p.Report("live_first", first);
  p.Report("live_last", last);
  p.Report("live_cpu", cpu1.total() - cpu0.total());

  // Replay: stopped, the writers patch again; started, it resumes from its resourceVersion.
  informer.Stop();
  p.Report("stopped_rv", informer.last_resource_version());
  if (!p.AwaitGo()) return 1;
  base = informer.events_applied();
  const uint64_t relists = informer.relists();
  cpu0 = SelfCpu();
  const double api0 = ProcessCpuSeconds(env.apiserver_pid);
  const double start = Now();
  informer.Start();
  auto [rfirst, rlast] = AwaitEvents(cluster, informer, base, want, 30, relists);
  cpu1 = SelfCpu();
  const double api1 = ProcessCpuSeconds(env.apiserver_pid);
  p.Report("replay_events", static_cast<double>(informer.events_applied() - base));
  p.Report("replay_start", start);
  p.Report("replay_first", rfirst);
  p.Report("replay_last", rlast);
  p.Report("replay_cpu", cpu1.total() - cpu0.total());
  p.Report("replay_relisted", informer.relists() != relists ? 1.0 : 0.0);
  if (env.apiserver_pid > 0) p.Report("replay_apiserver_cpu", api1 - api0);

  // Every patched pod in the cache carries the replay's value. The count of events above can
  // reach the number of patches before the last patches arrive (the scheduler and kwok change
  // the same pods meanwhile), so the cache gets a few seconds to show the rest.
  const Layout& l = env.layout;
  auto count_current = [&] {
    int64_t current = 0;
    for (int64_t i = 0; i < env.flags.changes; ++i) {
      kube::CachedObjectPtr o = informer.Get(l.Namespace(l.PodNamespace(i)), l.PodName(i));
      if (o == nullptr) continue;
      const auto& labels = std::get<api::Pod>(*o->object).metadata.labels;
      auto it = labels.find(kGenLabel);
      if (it != labels.end() && it->second == "replay-" + env.token) ++current;
    }
    return current;
  };
  int64_t current = count_current();
  for (const double settle_until = Now() + 10; current < env.flags.changes && Now() < settle_until;
       current = count_current()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  p.Report("current", static_cast<double>(current));
  p.Report("dispatched", static_cast<double>(dispatched));
  p.Report("decode_errors", static_cast<double>(informer.decode_errors()));
  p.Report("done", 1.0);
  return 0;
}

// ---- phase: decode (no server) -----------------------------------------------------------------

int DecodeBody(Phase& p, const Env& env) {
  kube::RestClient client(env.config);
  kube::ListOptions o;
  o.label_selector = kBenchSelector;
  o.limit = 1000;
  std::string next;
  auto page = client.ListPage(kube::resources::kPods, "", o, "", &next);
  if (!page.ok() || page->items.empty()) {
    p.Report("error", page.ok() ? "no bench pods to copy" : page.status().message());
    return 1;
  }
  // Distinct pods (the sample renamed), each with a fixed-width resourceVersion whose first digit
  // is bumped between passes: pass 1 adds every pod, pass 2 modifies every pod.
  const std::vector<Json>& sample = page->items;
  const int64_t frames = env.flags.frames;
  std::string buffer;
  std::vector<size_t> rv_offsets;
  rv_offsets.reserve(static_cast<size_t>(frames));
  for (int64_t k = 0; k < frames; ++k) {
    Json object = sample[static_cast<size_t>(k) % sample.size()];
    Json& meta = object["metadata"];
    meta["name"] =
        meta.value("name", "") + "-f" + std::to_string(k / static_cast<int64_t>(sample.size()));
    const std::string rv = std::to_string(100000000000LL + k);
    meta["resourceVersion"] = rv;
    std::string line = Json{{"type", "MODIFIED"}, {"object", std::move(object)}}.dump();
    size_t at = line.find("\"resourceVersion\":\"" + rv + "\"");
    if (at == std::string::npos) {
      p.Report("error", "cannot find the resourceVersion in a frame");
      return 1;
    }
    rv_offsets.push_back(buffer.size() + at + std::strlen("\"resourceVersion\":\""));
    buffer += line;
    buffer += '\n';
  }
  p.Report("frame_bytes", static_cast<double>(buffer.size()) / std::max<int64_t>(frames, 1));

  constexpr size_t kChunk = 16384;  // what libcurl hands over at a time
  auto feed = [&](const kube::WatchDecoder::Handler& handler, const char* name) {
    kube::WatchDecoder decoder(handler);
    const double cpu0 = ThreadCpuSeconds(), t0 = Now();
    for (size_t off = 0; off < buffer.size(); off += kChunk) {
      if (!decoder.Feed(std::string_view(buffer).substr(off, kChunk))) {
        p.Report("error", std::string(name) + ": " + decoder.error().message());
        return false;
      }
    }
    const double cpu = ThreadCpuSeconds() - cpu0, wall = Now() - t0;
    p.Report(std::string(name) + "_cpu", cpu);
    p.Report(std::string(name) + "_wall", wall);
    return true;
  };
  int64_t parsed = 0, decoded = 0, decode_errors = 0, applied_add = 0, applied_mod = 0;
  // The first pass also pays for growing the heap; it is not reported.
  if (!feed([&](std::string_view, const api::JsonView&) { return true; }, "warmup")) return 1;
  if (!feed([&](std::string_view, const api::JsonView&) { return ++parsed > 0; }, "parse")) return 1;
  // What the parsed documents weigh: the list of every page the informer's first LIST holds.
  {
    malloc_trim(0);
    const long rss0 = CurrentRssKb();
    const size_t keep_n = static_cast<size_t>(std::min<int64_t>(frames, 5000));
    std::vector<Json> kept;
    kept.reserve(keep_n);
    kube::WatchDecoder keep([&](std::string_view, const api::JsonView& object) {
      kept.push_back(object.ToJson());
      return kept.size() < keep_n;
    });
    for (size_t off = 0;
         off < buffer.size() && keep.Feed(std::string_view(buffer).substr(off, 16384));
         off += 16384) {
    }
    p.Report("dom_bytes", (CurrentRssKb() - rss0) * 1024.0 / static_cast<double>(kept.size()));
    kept = {};
    malloc_trim(0);
  }
  // Not the client's code: the same frames parsed with metadata.managedFields dropped by the
  // parser (a callback), as a measure of what skipping them would save.
  {
    const double cpu0 = ThreadCpuSeconds();
    int64_t n = 0;
    std::string_view all(buffer);
    for (size_t begin = 0; begin < all.size();) {
      size_t nl = all.find('\n', begin);
      std::string_view line = all.substr(begin, nl - begin);
      begin = nl + 1;
      Json frame = Json::parse(
          line,
          [](int, Json::parse_event_t event, Json& parsed) {
            return !(event == Json::parse_event_t::key && parsed == "managedFields");
          },
          false);
      auto d = kube::DecodeObject(kube::resources::kPods, frame["object"]);
      n += d.ok() ? 1 : 0;
    }
    p.Report("lean_cpu", ThreadCpuSeconds() - cpu0);
    p.Report("lean_decoded", static_cast<double>(n));
  }
  if (!feed(
          [&](std::string_view, const api::JsonView& object) {
            auto d = kube::DecodeObject(kube::resources::kPods, object);
            (d.ok() ? decoded : decode_errors)++;
            return true;
          },
          "decode"))
    return 1;
  // A bare informer with KubeCluster's index, never started: Apply is its watch's per-event work
  // (decode, upsert, index, announce) without the network.
  kube::InformerOptions io;
  io.log = LogToStderr;
  kube::Informer informer(client, kube::resources::kPods, io);
  informer.AddIndex("spec.nodeName", [](const cluster::Object& obj) {
    const auto& pod = std::get<api::Pod>(obj);
    return pod.spec.node_name.empty() ? std::vector<std::string>{}
                                      : std::vector<std::string>{pod.spec.node_name};
  });
  malloc_trim(0);
  const long rss_before_cache = CurrentRssKb();
  if (!feed(
          [&](std::string_view, const api::JsonView& object) {
            applied_add += informer.Apply(kube::CacheEventType::kModified, object) ? 1 : 0;
            return true;
          },
          "add"))
    return 1;
  malloc_trim(0);
  p.Report("cache_bytes",
           (CurrentRssKb() - rss_before_cache) * 1024.0 / std::max<int64_t>(frames, 1));
  for (size_t at : rv_offsets) buffer[at] = '2';
  if (!feed(
          [&](std::string_view, const api::JsonView& object) {
            applied_mod += informer.Apply(kube::CacheEventType::kModified, object) ? 1 : 0;
            return true;
          },
          "modify"))
    return 1;
  p.Report("frames", static_cast<double>(frames));
  p.Report("parsed", static_cast<double>(parsed));
  p.Report("decoded", static_cast<double>(decoded));
  p.Report("decode_errors", static_cast<double>(decode_errors));
  p.Report("applied_add", static_cast<double>(applied_add));
  p.Report("applied_mod", static_cast<double>(applied_mod));
  p.Report("cached", static_cast<double>(informer.size()));
  p.Report("done", 1.0);
  return 0;
}

// ---- the driver --------------------------------------------------------------------------------

std::string Fmt(const char* format, double v) {
  if (v < 0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

bool Fail(const std::string& what) {
  std::printf("CHECK FAILED: %s\n", what.c_str());
  return false;
}

int Main(int argc, char** argv) {
  Env env;
  if (!ParseFlags(argc, argv, &env.flags)) return 2;
  const Flags& f = env.flags;
  env.layout = Layout::Of(f);
  kube::KubeconfigOptions ko;
  ko.kubeconfig = f.kubeconfig;
  auto config = kube::LoadKubeconfig(ko);
  if (!config.ok()) {
    std::fprintf(stderr, "kube_sync: %s\n", config.status().message().c_str());
    return 2;
  }
  env.config = *config;
  env.testenv_dir = f.testenv_dir;
  if (env.testenv_dir.empty()) {
    size_t slash = f.kubeconfig.rfind('/');
    env.testenv_dir = slash == std::string::npos ? "." : f.kubeconfig.substr(0, slash);
  }
  env.kubectl_path = TestenvPath(env.testenv_dir);
  env.apiserver_pid = ReadPid(env.testenv_dir + "/pids/kube-apiserver.pid");
  env.etcd_pid = ReadPid(env.testenv_dir + "/pids/etcd.pid");
  env.token = std::to_string(time(nullptr));

  std::string command = "kube_sync";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::printf("%s\n", command.c_str());
  std::printf("server %s; %ld CPUs; load average %s; API server pid %d, etcd pid %d%s\n",
              env.config.server.c_str(), sysconf(_SC_NPROCESSORS_ONLN), LoadAverage().c_str(),
              env.apiserver_pid, env.etcd_pid,
              env.apiserver_pid > 0 ? "" : " (no testenv pids: server CPU not measured)");
  std::fflush(stdout);

  if (f.del) return Delete(env) == 0 ? 0 : 1;

  bool ok = true;
  const Layout& l = env.layout;
  Counts counts = Count(env);
  if (counts.nodes < 0) return 1;
  if (counts.nodes > l.nodes || counts.pods > l.pods) {
    std::fprintf(stderr,
                 "kube_sync: the cluster holds %" PRId64 " bench nodes and %" PRId64
                 " bench pods, more than asked for; remove them first (--delete)\n",
                 counts.nodes, counts.pods);
    return 2;
  }
  if (counts.nodes != l.nodes || counts.pods != l.pods) {
    if (f.skip_load) {
      std::fprintf(stderr,
                   "kube_sync: --skip-load, but the cluster holds %" PRId64 "/%" PRId64
                   " bench nodes and %" PRId64 "/%" PRId64 " bench pods\n",
                   counts.nodes, l.nodes, counts.pods, l.pods);
      return 2;
    }
    std::printf("load: %" PRId64 " nodes and %" PRId64 " pods over %d namespaces (%" PRId64
                " and %" PRId64 " there already)\n",
                l.nodes, l.pods, l.namespaces, counts.nodes, counts.pods);
    auto load = Phase::Fork([&](Phase& p) { return LoadBody(p, env); });
    int rc = load->Wait();
    std::printf("load: %.1f s, client CPU %.1f s, load average %s\n", load->Number("seconds"),
                load->cpu_seconds(), LoadAverage().c_str());
    if (rc != 0) {
      std::fprintf(stderr, "kube_sync: the load failed\n");
      return 1;
    }
    counts = Count(env);
    if (counts.nodes != l.nodes || counts.pods != l.pods) {
      std::fprintf(stderr,
                   "kube_sync: after the load the cluster holds %" PRId64 " nodes and %" PRId64
                   " pods\n",
                   counts.nodes, counts.pods);
      return 1;
    }
  } else {
    std::printf("load: skipped, the cluster already holds %" PRId64 " bench nodes and %" PRId64
                " bench pods\n",
                counts.nodes, counts.pods);
  }
  std::printf("cluster: %" PRId64 " nodes, %" PRId64
              " pods in all; served JSON per object: "
              "node %.0f B, pod %.0f B\n",
              counts.all_nodes, counts.all_pods, counts.node_bytes, counts.pod_bytes);
  std::fflush(stdout);
  if (f.load_only) return 0;

  // Cold sync, alternating with the peers.
  std::vector<SyncRun> syncs, pagewise;
  std::vector<PeerRun> kubectls, peers;
  for (int run = 0; run < f.runs; ++run) {
    SyncRun s = ColdSync([&](Phase& p) { return SyncBody(p, env); });
    if (!s.ok) return 1;
    syncs.push_back(s);
    std::printf(
        "sync %d  nodesmith: %.2f s wall, %.2f s CPU (%.2f user + %.2f sys), peak RSS %.0f MiB"
        " (%.0f MiB after sync), API server %s s CPU, etcd %s s; cached %" PRId64 " pods, %" PRId64
        " nodes, %" PRId64 " requests; load average %s\n",
        run + 1, s.seconds, s.cpu, s.user, s.sys, Mib(s.max_rss_kb), Mib(s.rss_kb),
        Fmt("%.2f", s.apiserver_cpu).c_str(), Fmt("%.2f", s.etcd_cpu).c_str(), s.pods, s.nodes,
        s.requests, LoadAverage().c_str());
    std::fflush(stdout);
    if (f.check) {
      if (s.bench_pods != l.pods)
        ok = Fail("the pod cache holds " + std::to_string(s.bench_pods) + " bench pods, not " +
                  std::to_string(l.pods));
      if (s.bench_nodes != l.nodes)
        ok = Fail("the node cache holds " + std::to_string(s.bench_nodes) + " bench nodes, not " +
                  std::to_string(l.nodes));
      if (s.decode_errors != 0)
        ok = Fail(std::to_string(s.decode_errors) + " objects did not decode");
    }
    if (!f.no_kubectl) {
      const int64_t want = counts.all_pods;
      int64_t printed = 0;
      PeerRun k = RunPeer(env, {"kubectl", "get", "pods", "-A", "-o", "name", "--watch"},
                          [&](std::string_view line, int64_t) {
                            if (line.rfind("pod/", 0) == 0) ++printed;
                            return printed >= want;
                          });
      kubectls.push_back(k);
      std::printf(
          "sync %d  kubectl get pods -A -o name --watch: %s after %.2f s wall, %.2f s CPU, "
          "peak RSS %.0f MiB, API server %s s CPU, etcd %s s (%" PRId64 " lines)\n",
          run + 1, k.ok ? "all pods printed" : "NOT DONE", k.seconds, k.cpu, Mib(k.max_rss_kb),
          Fmt("%.2f", k.apiserver_cpu).c_str(), Fmt("%.2f", k.etcd_cpu).c_str(), k.lines);
      std::fflush(stdout);
      if (f.check && !k.ok) ok = Fail("kubectl did not print every pod");
    }
    if (f.pagewise) {
      SyncRun w = ColdSync([&](Phase& p) { return PagewiseBody(p, env); });
      if (!w.ok) return 1;
      pagewise.push_back(w);
      std::printf(
          "sync %d  page-wise ListPage + Informer::Apply: %.2f s wall, %.2f s CPU (%.2f user"
          " + %.2f sys), peak RSS %.0f MiB (%.0f MiB after), API server %s s CPU, etcd %s s;"
          " cached %" PRId64 " pods, %" PRId64 " nodes\n",
          run + 1, w.seconds, w.cpu, w.user, w.sys, Mib(w.max_rss_kb), Mib(w.rss_kb),
          Fmt("%.2f", w.apiserver_cpu).c_str(), Fmt("%.2f", w.etcd_cpu).c_str(), w.pods, w.nodes);
      std::fflush(stdout);
    }
    if (!f.peer.empty()) {
      PeerRun g =
          RunPeer(env, {f.peer, "--kubeconfig", f.kubeconfig},
                  [](std::string_view line, int64_t) { return line.rfind("synced", 0) == 0; });
      peers.push_back(g);
      std::printf(
          "sync %d  peer %s: %s after %.2f s wall, %.2f s CPU, peak RSS %.0f MiB, "
          "API server %s s CPU, etcd %s s\n",
          run + 1, f.peer.c_str(), g.ok ? g.last_line.c_str() : "NOT SYNCED", g.seconds, g.cpu,
          Mib(g.max_rss_kb), Fmt("%.2f", g.apiserver_cpu).c_str(), Fmt("%.2f", g.etcd_cpu).c_str());
      std::fflush(stdout);
    }
  }
  if (!syncs.empty()) {
    auto med = [](const auto& runs, auto field) {
      std::vector<double> v;
      for (const auto& r : runs) v.push_back(field(r));
      return Median(v);
    };
    std::printf("\ncold sync of %" PRId64 " nodes + %" PRId64 " pods, medians of %zu runs:\n",
                counts.all_nodes, counts.all_pods, syncs.size());
    std::printf("  %-36s %8s %8s %13s %13s %8s\n", "", "wall s", "CPU s", "peak RSS MiB",
                "API server s", "etcd s");
    std::printf("  %-36s %8.2f %8.2f %13.0f %13s %8s\n", "nodesmith KubeCluster {Pod, Node}",
                med(syncs, [](const SyncRun& r) { return r.seconds; }),
                med(syncs, [](const SyncRun& r) { return r.cpu; }),
                Mib(med(syncs, [](const SyncRun& r) { return r.max_rss_kb; })),
                Fmt("%.2f", med(syncs, [](const SyncRun& r) { return r.apiserver_cpu; })).c_str(),
                Fmt("%.2f", med(syncs, [](const SyncRun& r) { return r.etcd_cpu; })).c_str());
    if (!pagewise.empty())
      std::printf(
          "  %-36s %8.2f %8.2f %13.0f %13s %8s\n", "page-wise ListPage + Apply (what-if)",
          med(pagewise, [](const SyncRun& r) { return r.seconds; }),
          med(pagewise, [](const SyncRun& r) { return r.cpu; }),
          Mib(med(pagewise, [](const SyncRun& r) { return r.max_rss_kb; })),
          Fmt("%.2f", med(pagewise, [](const SyncRun& r) { return r.apiserver_cpu; })).c_str(),
          Fmt("%.2f", med(pagewise, [](const SyncRun& r) { return r.etcd_cpu; })).c_str());
    auto peer_row = [&](const char* name, const std::vector<PeerRun>& runs) {
      if (runs.empty()) return;
      std::printf("  %-36s %8.2f %8.2f %13.0f %13s %8s\n", name,
                  med(runs, [](const PeerRun& r) { return r.seconds; }),
                  med(runs, [](const PeerRun& r) { return r.cpu; }),
                  Mib(med(runs, [](const PeerRun& r) { return r.max_rss_kb; })),
                  Fmt("%.2f", med(runs, [](const PeerRun& r) { return r.apiserver_cpu; })).c_str(),
                  Fmt("%.2f", med(runs, [](const PeerRun& r) { return r.etcd_cpu; })).c_str());
    };
    peer_row("kubectl get pods -A -o name --watch", kubectls);
    peer_row(("peer " + f.peer.substr(f.peer.rfind('/') + 1)).c_str(), peers);
    std::printf("\n");
    std::fflush(stdout);
  }

  // Watch throughput.
  if (f.changes > 0) {
    auto watch = Phase::Fork([&](Phase& p) { return WatchBody(p, env); });
    if (!watch->AwaitKey("synced", f.sync_timeout + 10)) {
      watch->Wait();
      std::fprintf(stderr, "kube_sync: the watch phase did not sync: %s\n",
                   watch->Value("error").c_str());
      return 1;
    }
    watch->Go();
    WriteRun live = Write(env, "live-" + env.token);
    if (!watch->AwaitKey("live_cpu", 600)) return 1;
    if (!watch->AwaitKey("stopped_rv", 60)) return 1;
    WriteRun replay_writes = Write(env, "replay-" + env.token);
    watch->Go();
    int rc = watch->Wait();
    if (rc != 0 || !watch->Has("done")) {
      std::fprintf(stderr, "kube_sync: the watch phase failed: %s\n",
                   watch->Value("error").c_str());
      return 1;
    }
    const double live_events = watch->Number("live_events");
    const double live_span = watch->Number("live_last") - watch->Number("live_first");
    const double replay_events = watch->Number("replay_events");
    const double replay_span = watch->Number("replay_last") - watch->Number("replay_start");
    std::printf("watch live: %" PRId64
                " patches by %d writers at %.0f/s (writers' CPU %.1f s); "
                "the informer applied %.0f events at %.0f/s, the last %.2f s after the last "
                "write; informer process CPU %.2f s = %.1f us/event\n",
                live.ok, f.writers, live.rate(), live.cpu, live_events,
                live_events / std::max(live_span, 1e-9), watch->Number("live_last") - live.end,
                watch->Number("live_cpu"),
                watch->Number("live_cpu") / std::max(live_events, 1.0) * 1e6);
    std::printf(
        "watch replay: %" PRId64
        " patches written while stopped (%.0f/s); restarted from "
        "resourceVersion %s, applied %.0f events in %.2f s = %.0f/s; informer process CPU "
        "%.2f s = %.1f us/event (%.0f events per CPU second); API server %s s CPU%s\n",
        replay_writes.ok, replay_writes.rate(), watch->Value("stopped_rv").c_str(), replay_events,
        replay_span, replay_events / std::max(replay_span, 1e-9), watch->Number("replay_cpu"),
        watch->Number("replay_cpu") / std::max(replay_events, 1.0) * 1e6,
        replay_events / std::max(watch->Number("replay_cpu"), 1e-9),
        Fmt("%.2f", watch->Has("replay_apiserver_cpu") ? watch->Number("replay_apiserver_cpu") : -1)
            .c_str(),
        watch->Number("replay_relisted") > 0
            ? " (RELISTED: the watch cache had dropped the version)"
            : "");
    // steady_clock is CLOCK_MONOTONIC: `perf record -k CLOCK_MONOTONIC` samples carry the same
    // times, so `perf report --time` can keep the replay alone.
    std::printf("watch replay window: %.6f,%.6f (CLOCK_MONOTONIC seconds, for perf report --time)\n",
                watch->Number("replay_start"), watch->Number("replay_last"));
    std::printf("watch: informer process peak RSS %.0f MiB; %.0f of %" PRId64
                " patched pods carry the replay's label in the cache\n\n",
                Mib(static_cast<double>(watch->max_rss_kb())), watch->Number("current"), f.changes);
    std::fflush(stdout);
    if (f.check) {
      if (live.failed + replay_writes.failed > 0) ok = Fail("some patches failed");
      if (live_events < static_cast<double>(f.changes))
        ok = Fail("the live watch applied " + std::to_string(static_cast<int64_t>(live_events)) +
                  " of " + std::to_string(f.changes) + " events");
      if (replay_events < static_cast<double>(f.changes))
        ok = Fail("the replay applied " + std::to_string(static_cast<int64_t>(replay_events)) +
                  " of " + std::to_string(f.changes) + " events");
      if (watch->Number("current") != static_cast<double>(f.changes))
        ok = Fail("the cache does not hold every patched pod's last version");
      if (watch->Number("decode_errors") != 0) ok = Fail("watched pods did not decode");
    }
  }

  // The client's own ceiling.
  if (f.frames > 0 && f.pods > 0) {
    auto decode = Phase::Fork([&](Phase& p) { return DecodeBody(p, env); });
    int rc = decode->Wait();
    if (rc != 0 || !decode->Has("done")) {
      std::fprintf(stderr, "kube_sync: the decode phase failed: %s\n",
                   decode->Value("error").c_str());
      return 1;
    }
    const double n = decode->Number("frames");
    auto rate = [&](const char* stage) {
      return n / std::max(decode->Number(std::string(stage) + "_cpu"), 1e-9);
    };
    const double mb = n * decode->Number("frame_bytes") / 1e6;
    std::printf(
        "decode (no server): %.0f pod watch frames of %.0f B in 16 KiB chunks; frames per "
        "CPU second: parse %.0f (%.0f MB/s), parse + DecodeObject %.0f, parse + "
        "Informer::Apply (add) %.0f, (modify) %.0f; peak RSS %.0f MiB\n",
        n, decode->Number("frame_bytes"), rate("parse"), mb / decode->Number("parse_cpu"),
        rate("decode"), rate("add"), rate("modify"),
        Mib(static_cast<double>(decode->max_rss_kb())));
    std::printf(
        "decode: a parsed pod document holds %.1f KB of heap, a cached typed pod %.1f KB; "
        "parsed with managedFields dropped and decoded: %.0f frames per CPU second\n\n",
        decode->Number("dom_bytes") / 1e3, decode->Number("cache_bytes") / 1e3,
        decode->Number("lean_decoded") / std::max(decode->Number("lean_cpu"), 1e-9));
    std::fflush(stdout);
    if (f.check) {
      if (decode->Number("decode_errors") != 0) ok = Fail("frames did not decode");
      if (decode->Number("applied_add") != n || decode->Number("applied_mod") != n ||
          decode->Number("cached") != n)
        ok = Fail("Informer::Apply did not apply every frame");
    }
  }

  if (f.cleanup && Delete(env) != 0) ok = Fail("cleaning up failed");
  std::printf("load average at the end %s\n", LoadAverage().c_str());
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace nodesmith::bench

int main(int argc, char** argv) { return nodesmith::bench::Main(argc, argv); }
