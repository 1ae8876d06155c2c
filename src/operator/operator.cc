#include "operator/operator.h"

#include <thread>
#include <vector>

#include "cloud/catalog.h"
#include "cloud/kwok/kwok_cloud_provider.h"
#include "cluster/cluster_api.h"
#include "controllers/controllers.h"
#include "core/duration.h"
#include "core/system_clock.h"
#include "core/version.h"
#include "kube/event_recorder.h"
#include "kube/kube_cluster.h"
#include "kube/kubeconfig.h"
#include "kube/leader_elector.h"
#include "kube/resources.h"
#include "kube/rest_client.h"
#include "operator/aws_cloud.h"
#include "operator/catalog_refresher.h"
#include "operator/http_server.h"
#include "metrics/exposition.h"
#include "operator/operator_metrics.h"
#include "operator/operator_recorder.h"
#include "operator/shadow_cloud.h"
#include "operator/shadow_cluster.h"
#include "runtime/threaded_runtime.h"

namespace nodesmith::op {

namespace {

// How long one wait for the caches lasts (a shutdown waits for it at most this long), and how
// many waits pass between log lines saying why they are not synced yet.
constexpr double kSyncWaitSeconds = 2;
constexpr int kSyncWaitsPerReport = 15;

// The kinds the controllers read, and so the informers the operator runs: exactly what the
// chart's RBAC lets it list and watch.
std::vector<cluster::Kind> WatchedKinds(const Options& options) {
  using cluster::Kind;
  std::vector<Kind> kinds = {Kind::kPod,
                             Kind::kNode,
                             Kind::kNodeClaim,
                             Kind::kNodePool,
                             Kind::kReplicatedWorkload,
                             Kind::kDaemonSet,
                             Kind::kPodDisruptionBudget,
                             Kind::kPersistentVolumeClaim,
                             Kind::kPersistentVolume,
                             Kind::kStorageClass};
  if (options.cloud_provider == "aws") kinds.push_back(Kind::kEC2NodeClass);
  return kinds;
}

// A KWOKNodeClass as the kwok provider needs it, read from the API server.
core::Result<cloud::kwok::KwokNodeClass> ReadKwokNodeClass(kube::RestClient& client,
                                                            const std::string& name) {
  auto object = client.Get(kube::resources::kKWOKNodeClasses, "", name);
  if (!object.ok()) return object.status();
  cloud::kwok::KwokNodeClass out;
  const kube::Json& o = *object;
  if (auto spec = o.find("spec"); spec != o.end() && spec->is_object()) {
    if (auto d = spec->find("nodeRegistrationDelay"); d != spec->end() && d->is_string()) {
      auto parsed = core::ParseDuration(d->get<std::string>());
      if (!parsed.ok()) {
        return core::Status::Invalid("KWOKNodeClass " + name + " spec.nodeRegistrationDelay: " +
                                     parsed.status().message());
      }
      out.registration_delay = *parsed;
    }
  }
  if (auto status = o.find("status"); status != o.end() && status->is_object()) {
    if (auto conds = status->find("conditions"); conds != status->end() && conds->is_array()) {
      for (const auto& c : *conds) {
        if (c.value("type", "") == "Ready" && c.value("status", "") == "False") {
          out.ready = false;
          out.not_ready_message = c.value("message", "");
        }
      }
    }
  }
  return out;
}

controllers::Settings SettingsFrom(const Options& o, const cloud::Catalog* catalog) {
  controllers::Settings s;
  s.batch_idle_duration = o.batch_idle_duration;
  s.batch_max_duration = o.batch_max_duration;
  if (catalog != nullptr) s.well_known_labels = catalog->well_known_labels;
  s.ignore_preferences = o.preference_policy == "Ignore";
  s.min_values_best_effort = o.min_values_policy == "BestEffort";
  s.spot_to_spot_consolidation = o.feature_gates.spot_to_spot_consolidation;
  s.require_unschedulable_condition = true;  // as Karpenter: kube-scheduler tries first
  return s;
}

// The time from which a reconcile is logged at debug level (see SetObservers below): the
// provisioner's solve and create take about 10 ms, most other reconciles well under 1 ms.
constexpr core::Duration kLongReconcile = std::chrono::milliseconds(5);

}  // namespace

Operator::Operator(Options options, JsonLogger& logger)
    : options_(std::move(options)), logger_(logger) {}

Operator::~Operator() = default;

void Operator::Log(LogSeverity severity, const std::string& message,
                   const nlohmann::ordered_json& fields) {
  logger_.Log(severity, core::SystemNow(), "", message, fields);
}

void Operator::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    shutdown_ = true;
  }
  cv_.notify_all();
}

bool Operator::WaitForShutdown(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return shutdown_; });
}

int Operator::Run() {
  Log(LogSeverity::kInfo, "starting nodesmith",
      {{"version", NODESMITH_VERSION},
       {"cloud-provider", options_.cloud_provider},
       {"dry-run", options_.dry_run}});

  kube::KubeconfigOptions kubeconfig;
  kubeconfig.kubeconfig = options_.kubeconfig;
  kubeconfig.context = options_.context;
  auto config = kube::ResolveRestConfig(kubeconfig);
  if (!config.ok()) {
    Log(LogSeverity::kError, "failed to find the Kubernetes API server",
        {{"error", config.status().message()}});
    return 1;
  }
  for (const std::string& w : config->warnings) Log(LogSeverity::kWarn, w);
  config->qps = options_.kube_client_qps;
  config->burst = options_.kube_client_burst;
  Log(LogSeverity::kInfo, "connecting to the API server",
      {{"server", config->server}, {"identity", config->identity}});
  kube::RestClient client(*config);

  // Metrics and probes come up first: a replica that is not (yet) synced still answers.
  OperatorMetricsOptions metrics_options;
  metrics_options.commit = NODESMITH_COMMIT;
  metrics_options.leader_election_name = options_.leader_election_name;
  metrics_options.node_class_label_keys = {options_.cloud_provider == "aws"
                                               ? "karpenter.k8s.aws/ec2nodeclass"
                                               : "karpenter.kwok.sh/kwoknodeclass"};
  metrics_options.shadow = options_.dry_run;
  metrics_options.client_requests = [&client] { return client.requests_sent(); };
  auto metrics = OperatorMetrics::Create(metrics_options);
  if (!metrics.ok()) {
    Log(LogSeverity::kError, "failed to register metrics", {{"error", metrics.status().message()}});
    return 1;
  }
  ServerOptions metrics_server_options;
  metrics_server_options.port = options_.metrics_port;
  HttpServer metrics_server(metrics_server_options);
  metrics_server.Handle("/metrics", [m = metrics->get()](const Request&) {
    Response r;
    r.content_type = std::string(metrics::kTextContentType);
    r.body = m->Expose();
    return r;
  });
  ServerOptions health_server_options;
  health_server_options.port = options_.health_probe_port;
  HttpServer health_server(health_server_options);
  health_server.Handle("/healthz", [](const Request&) {
    Response r;
    r.body = "ok";
    return r;
  });
  health_server.Handle("/readyz", [this](const Request&) {
    Response r;
    if (Ready()) {
      r.body = "ok";
    } else {
      r.status = 503;
      r.body = "cluster state not synced: the NodePool and NodeClaim CRDs must be served and "
               "every watched resource listed";
    }
    return r;
  });
  for (auto* server : {&metrics_server, &health_server}) {
    core::Status started = server->Start();
    if (!started.ok()) {
      Log(LogSeverity::kError, "failed to serve metrics and probes",
          {{"error", started.message()}});
      return 1;
    }
  }
  Log(LogSeverity::kInfo, "serving metrics and health probes",
      {{"metrics-port", metrics_server.port()}, {"health-probe-port", health_server.port()}});

  // The kwok cloud's catalog is known before anything runs; the aws cloud's comes with its
  // session (the region decides it), below.
  std::optional<cloud::Catalog> catalog;
  if (options_.cloud_provider == "kwok") {
    auto loaded = cloud::LoadCatalog(cloud::CatalogSource::FromFlag(
        options_.catalog.empty() ? std::string("kwok") : options_.catalog));
    if (!loaded.ok()) {
      Log(LogSeverity::kError, "failed to load the instance types",
          {{"catalog", options_.catalog}, {"error", loaded.status().message()}});
      return 2;
    }
    catalog = std::move(*loaded);
  }

  std::atomic<runtime::ThreadedRuntime*> runtime_ptr{nullptr};
  kube::KubeClusterOptions cluster_options;
  cluster_options.kinds = WatchedKinds(options_);
  cluster_options.log = [this](const std::string& m) { Log(LogSeverity::kInfo, m); };
  cluster_options.on_queued = [&runtime_ptr] {
    if (auto* r = runtime_ptr.load()) r->Wake();
  };
  kube::KubeCluster cluster(client, cluster_options);

  // Shadow mode: the controllers see the cluster through an overlay that absorbs their writes.
  core::SystemClock wall;
  std::unique_ptr<ShadowCluster> shadow;
  cluster::ClusterApi* api = &cluster;
  if (options_.dry_run) {
    shadow = std::make_unique<ShadowCluster>(cluster, wall, [this](const ShadowWrite& w) {
      Log(LogSeverity::kInfo, "dry run: would " + w.verb,
          {{"kind", cluster::KindName(w.kind)}, {"namespace", w.namespace_}, {"name", w.name}});
    });
    api = shadow.get();
  }

  runtime::ThreadedRuntimeOptions runtime_options;
  runtime_options.pump = [&cluster] { return cluster.DispatchEvents(); };
  runtime::ThreadedRuntime runtime(*api, runtime_options);
  runtime_ptr = &runtime;

  // The cloud.
  std::unique_ptr<cloud::kwok::KwokCloudProvider> kwok_cloud;
  std::unique_ptr<AwsCloud> aws_cloud;
  std::unique_ptr<ShadowCloud> shadow_cloud;
  cloud::CloudProvider* cloud = nullptr;
  cloud::InterruptionQueue* interruption_queue = nullptr;
  cloud::UnavailableOfferingsSink* unavailable_offerings = nullptr;
  if (options_.cloud_provider == "aws") {
    std::vector<std::string> warnings;
    auto created = AwsCloud::Create(options_, client, *api, runtime.clock(), wall, &warnings);
    for (const std::string& w : warnings) Log(LogSeverity::kWarn, w);
    if (!created.ok()) {
      Log(LogSeverity::kError, "failed to set up the aws cloud provider",
          {{"error", created.status().message()}});
      return 1;
    }
    aws_cloud = std::move(*created);
    catalog = aws_cloud->catalog();
    cloud = &aws_cloud->provider();
    if (auto* queue = aws_cloud->interruption_queue()) {
      interruption_queue = queue;
      unavailable_offerings = &aws_cloud->provider();
    }
    if (options_.dry_run) {
      // Shadow mode launches and terminates nothing: EC2 is called directly, not through the
      // ShadowCluster, so its writes are absorbed here.
      ShadowCloudOptions shadow_options;
      shadow_options.region = catalog->region;
      shadow_options.on_write = [this](const std::string& verb, const api::NodeClaim& c) {
        Log(LogSeverity::kInfo, "dry run: would " + verb + " an instance",
            {{"NodeClaim", {{"name", c.metadata.name}}}, {"provider-id", c.status.provider_id}});
      };
      shadow_cloud = std::make_unique<ShadowCloud>(*cloud, *api, shadow_options);
      cloud = shadow_cloud.get();
    }
    const aws::ClusterIdentity& id = aws_cloud->identity();
    Log(LogSeverity::kInfo, "discovered the cluster the nodes join",
        {{"cluster-name", id.name},
         {"cluster-endpoint", id.endpoint},
         {"kubernetes-version", id.kubernetes_version},
         {"cluster-dns", id.dns_ip},
         {"region", catalog->region},
         {"interruption-queue", options_.interruption_queue}});
  } else {
    cloud::kwok::KwokCloudProviderOptions kwok_options;
    kwok_options.node_classes = [&client](const std::string& name) {
      return ReadKwokNodeClass(client, name);
    };
    kwok_options.schedule = [&runtime](core::Duration delay, std::function<void()> fn) {
      runtime.loop().After(delay, std::move(fn));
    };
    kwok_options.log = [this](const std::string& m) { Log(LogSeverity::kError, m); };
    kwok_cloud = std::make_unique<cloud::kwok::KwokCloudProvider>(*api, *catalog, kwok_options);
    cloud = kwok_cloud.get();
  }

  std::unique_ptr<kube::EventRecorder> events;
  if (!options_.dry_run) {
    kube::EventRecorderOptions event_options;
    event_options.log = [this](const std::string& m) { Log(LogSeverity::kError, m); };
    events = std::make_unique<kube::EventRecorder>(client, event_options);
  }
  // Log lines carry the time they were written, as Karpenter's do: the runtime's clock stands
  // at the time the reconcile was due for all of it, however long it ran or waited.
  OperatorRecorder recorder(wall, logger_, *api, events.get());
  if (aws_cloud) aws_cloud->set_recorder(&recorder);
  OperatorMetrics& m = **metrics;
  recorder.AddObserver([&m, api](const runtime::RecordedEvent& e) { m.OnRecorded(e, *api); });
  // Reconciles take turns on the runtime's one thread, so a long one delays the reaction to
  // every change that arrives meanwhile: at debug level, each reconcile of kLongReconcile or more
  // is logged with its controller and time, to tell where a late reaction waited.
  runtime.controllers().SetObservers(
      [&m](const std::string& c) { m.BeforeReconcile(c); },
      [this, &m](const std::string& c, const char* result) {
        const core::Duration took = m.AfterReconcile(c, result);
        if (took >= kLongReconcile && logger_.Enabled(LogSeverity::kDebug))
          Log(LogSeverity::kDebug, "reconcile took long",
              {{"controller", c}, {"duration", core::FormatDuration(took)}});
      });
  const controllers::Settings settings = SettingsFrom(options_, &*catalog);
  std::unique_ptr<controllers::ControllerSet> controller_set;

  runtime.Start();

  // The account's live instance types and prices, loaded again every 12 h in the background and
  // swapped in on the runtime's thread, where the provider and the metrics read them.
  std::unique_ptr<CatalogRefresher> catalog_refresher;
  if (aws_cloud && aws_cloud->refreshes_catalog()) {
    CatalogRefresherOptions refresh;
    refresh.load = [&aws_cloud](std::vector<std::string>* warnings) {
      return aws_cloud->LoadCatalog(warnings);
    };
    refresh.apply = [&runtime, &aws_cloud, &catalog](cloud::Catalog loaded) {
      runtime.Post([&aws_cloud, &catalog, loaded] {
        catalog = loaded;
        aws_cloud->ApplyCatalog(loaded);
      });
    };
    refresh.log = [this](bool warning, const std::string& message) {
      Log(warning ? LogSeverity::kWarn : LogSeverity::kInfo, message);
    };
    const core::Duration first_in =
        aws_cloud->catalog_is_fallback() ? refresh.retry_interval : refresh.interval;
    catalog_refresher = std::make_unique<CatalogRefresher>(std::move(refresh));
    catalog_refresher->Start(first_in);
  }

  // The caches: wait in the background, saying why they are not synced yet.
  std::thread sync([this, &cluster, &metrics] {
    for (int wait = 0;; ++wait) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (shutdown_) return;
      }
      core::Status st = cluster.Start(kSyncWaitSeconds);
      if (st.ok()) {
        ready_ = true;
        (*metrics)->SetSynced(true);
        Log(LogSeverity::kInfo, "cluster state synced");
        cv_.notify_all();
        return;
      }
      if (wait % kSyncWaitsPerReport == kSyncWaitsPerReport - 1) {
        Log(LogSeverity::kError, "waiting for cluster state to sync", {{"error", st.message()}});
      }
    }
  });

  std::unique_ptr<kube::LeaderElector> elector;
  if (options_.disable_leader_election) {
    std::lock_guard<std::mutex> lock(mu_);
    became_leader_ = true;
  } else {
    kube::LeaderElectorOptions election;
    election.name = options_.leader_election_name;
    election.namespace_ = options_.leader_election_namespace;
    election.on_started_leading = [this] {
      {
        std::lock_guard<std::mutex> lock(mu_);
        became_leader_ = true;
      }
      cv_.notify_all();
    };
    election.on_stopped_leading = [this] {
      leading_ = false;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (!shutdown_) lost_leadership_ = true;
      }
      cv_.notify_all();
    };
    election.on_new_leader = [this](const std::string& identity) {
      Log(LogSeverity::kInfo, "new leader elected", {{"identity", identity}});
    };
    election.log = [this](const std::string& m) { Log(LogSeverity::kInfo, m); };
    auto created = kube::LeaderElector::Create(*config, election);
    if (!created.ok()) {
      Log(LogSeverity::kError, "failed to set up leader election",
          {{"error", created.status().message()}});
      Shutdown();
    } else {
      elector = std::move(*created);
      Log(LogSeverity::kInfo, "attempting to acquire leader lease",
          {{"lease", elector->lease_namespace() + "/" + elector->lease_name()},
           {"identity", elector->identity()}});
      elector->Start();
    }
  }

  bool failed = elector == nullptr && !options_.disable_leader_election;
  bool controllers_running = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait_for(lock, std::chrono::seconds(1), [&] {
        return shutdown_ || lost_leadership_ || (became_leader_ && ready_ && !controllers_running);
      });
      if (shutdown_ || lost_leadership_) break;
      if (became_leader_ && ready_ && !controllers_running) {
        lock.unlock();
        runtime.RunSync([&] {
          controller_set =
              controllers::NewControllers(runtime.clock(), *api, *cloud, recorder, settings,
                                          interruption_queue, unavailable_offerings);
          std::vector<runtime::Controller*> all = controller_set->All();
          if (aws_cloud) {
            for (runtime::Controller* c : aws_cloud->controllers()) all.push_back(c);
          }
          for (runtime::Controller* c : all) {
            std::string name = c->Name();
            runtime.controllers().Register(
                *c, [this, name](const runtime::Request& request, const core::Status& error) {
                  logger_.Log(LogSeverity::kError, core::SystemNow(), name, "Reconciler error",
                              {{"name", request.name},
                               {"namespace", request.namespace_},
                               {"error", error.message()}});
                });
          }
        });
        // The cluster-state gauges, every 10 s on the runtime thread.
        auto collect = std::make_shared<std::function<void()>>();
        *collect = [&m, &runtime, &cluster, api, &catalog, collect_weak =
                        std::weak_ptr<std::function<void()>>(collect)] {
          m.Collect(*api, cluster, *catalog);
          if (auto again = collect_weak.lock()) runtime.loop().After(std::chrono::seconds(10), *again);
        };
        runtime.Post(*collect);
        collectors_.push_back(collect);
        controllers_running = true;
        leading_ = true;
        m.SetLeader(true);
        Log(LogSeverity::kInfo, "starting controllers",
            {{"controllers", controller_set->All().size() +
                                 (aws_cloud ? aws_cloud->controllers().size() : 0)}});
        if (on_leading_) on_leading_();
        lock.lock();
      }
    }
    failed = failed || lost_leadership_;
  }

  Log(LogSeverity::kInfo, failed ? "leader election lost, stopping" : "shutting down");
  if (catalog_refresher) catalog_refresher->Stop();  // before the runtime its swaps are posted to
  runtime.Stop();  // the reconcile in flight finishes; no other starts
  collectors_.clear();
  m.SetLeader(false);
  runtime_ptr = nullptr;
  if (events) {
    events->Flush(std::chrono::seconds(5));
    events->Stop();
  }
  if (elector) elector->Stop();  // releases the Lease when held
  leading_ = false;
  Shutdown();
  sync.join();
  cluster.Stop();
  metrics_server.Stop();
  health_server.Stop();
  Log(LogSeverity::kInfo, "stopped");
  return failed ? 1 : 0;
}

}  // namespace nodesmith::op
