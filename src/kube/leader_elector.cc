#include "kube/leader_elector.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "core/version.h"
#include "kube/resources.h"

namespace nodesmith::kube {
namespace {

using SteadyClock = std::chrono::steady_clock;

// The Lease through the elector's own RestClient: one try per request, bounded by the round.
class RestLeaseLock : public LeaseLock {
 public:
  explicit RestLeaseLock(RestClient& client) : client_(client) {}
  core::Result<Json> Get(const std::string& ns, const std::string& name, Timeout timeout) override {
    return Send("GET", resources::kLeases.ObjectPath(ns, name), nullptr,
                {"get", &resources::kLeases, ns, name, ""}, timeout);
  }
  core::Result<Json> Create(const std::string& ns, const Json& lease, Timeout timeout) override {
    return Send("POST", resources::kLeases.CollectionPath(ns), &lease,
                {"create", &resources::kLeases, ns, lease["metadata"].value("name", ""), ""},
                timeout);
  }
  core::Result<Json> Update(const std::string& ns, const std::string& name, const Json& lease,
                            Timeout timeout) override {
    return Send("PUT", resources::kLeases.ObjectPath(ns, name), &lease,
                {"update", &resources::kLeases, ns, name, ""}, timeout);
  }

 private:
  core::Result<Json> Send(const char* method, std::string path, const Json* body,
                          const RequestContext& context, Timeout timeout) {
    HttpRequest request;
    request.method = method;
    request.path = std::move(path);
    if (body != nullptr) {
      request.body = body->dump();
      request.content_type = "application/json";
    }
    // At least a millisecond: 0 would mean no timeout at all.
    request.timeout_seconds = std::max(0.001, std::chrono::duration<double>(timeout).count());
    auto response = client_.transport().Do(request);
    if (!response.ok()) return response.status();
    if (response->status < 200 || response->status >= 300)
      return ApiErrorStatus(*response, context, client_.config());
    Json doc = Json::parse(response->body, nullptr, false);
    if (doc.is_discarded() || !doc.is_object())
      return core::Status::Internal("the API server's answer to " + context.verb + " " +
                                    request.path + " is not a JSON object");
    return doc;
  }

  RestClient& client_;
};

core::Time SystemNow() {
  return core::Time{std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count()};
}

std::string RandomUuid() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

std::string Hostname() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

LeaderElectionRecord RecordOf(const Json& lease) {
  LeaderElectionRecord r;
  if (!lease.is_object() || !lease.contains("spec") || !lease["spec"].is_object()) return r;
  const Json& spec = lease["spec"];
  auto str = [&](const char* key) {
    return spec.contains(key) && spec[key].is_string() ? spec[key].get<std::string>() : "";
  };
  auto num = [&](const char* key) {
    return spec.contains(key) && spec[key].is_number_integer() ? spec[key].get<int>() : 0;
  };
  r.holder_identity = str("holderIdentity");
  r.lease_duration_seconds = num("leaseDurationSeconds");
  r.acquire_time = str("acquireTime");
  r.renew_time = str("renewTime");
  r.lease_transitions = num("leaseTransitions");
  return r;
}

// What "the record changed" is judged on: the spec as the server returned it.
std::string RawOf(const Json& lease) {
  return lease.is_object() && lease.contains("spec") ? lease["spec"].dump() : "";
}

// `lease` with the record's fields set in its spec; everything else (metadata with its
// resourceVersion, other spec fields) kept as read.
Json WithRecord(Json lease, const LeaderElectionRecord& r) {
  Json& spec = lease["spec"];
  if (!spec.is_object()) spec = Json::object();
  spec["holderIdentity"] = r.holder_identity;
  spec["leaseDurationSeconds"] = r.lease_duration_seconds;
  spec["acquireTime"] = r.acquire_time;
  spec["renewTime"] = r.renew_time;
  spec["leaseTransitions"] = r.lease_transitions;
  return lease;
}

Json NewLease(const std::string& ns, const std::string& name, const LeaderElectionRecord& r) {
  Json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                {"kind", "Lease"},
                {"metadata", {{"name", name}, {"namespace", ns}}}};
  return WithRecord(std::move(lease), r);
}

std::string Seconds(std::chrono::nanoseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

std::string FormatMicroTime(core::Time t) {
  int64_t nanos = t.unix_nanos;
  int64_t secs = nanos / 1000000000;
  int64_t frac = nanos % 1000000000;
  if (frac < 0) {
    frac += 1000000000;
    --secs;
  }
  std::string base = core::FormatRfc3339(core::Time{secs * 1000000000});  // "...:SSZ"
  char micros[16];
  std::snprintf(micros, sizeof micros, ".%06lldZ", static_cast<long long>(frac / 1000));
  base.pop_back();
  return base + micros;
}

core::Status LeaderElector::Validate(const LeaderElectorOptions& o) {
  using std::chrono::seconds;
  if (o.name.empty()) return core::Status::Invalid("leader election: the Lease name is empty");
  if (o.lease_duration < seconds(1))
    return core::Status::Invalid("leader election: the lease duration must be at least 1s, not " +
                                 Seconds(o.lease_duration));
  if (o.renew_deadline.count() <= 0 || o.retry_period.count() <= 0)
    return core::Status::Invalid(
        "leader election: the renew deadline and the retry period must be positive");
  if (o.lease_duration <= o.renew_deadline)
    return core::Status::Invalid(
        "leader election: the lease duration (" + Seconds(o.lease_duration) +
        ") must be greater than the renew deadline (" + Seconds(o.renew_deadline) + ")");
  if (std::chrono::duration<double>(o.renew_deadline).count() <=
      o.jitter_factor * std::chrono::duration<double>(o.retry_period).count())
    return core::Status::Invalid("leader election: the renew deadline (" +
                                 Seconds(o.renew_deadline) + ") must be greater than " +
                                 std::to_string(o.jitter_factor) + " x the retry period (" +
                                 Seconds(o.retry_period) + ")");
  return core::Status::Ok();
}

core::Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(const RestConfig& config,
                                                                   LeaderElectorOptions options) {
  NS_RETURN_IF_ERROR(Validate(options));
  if (options.namespace_.empty()) options.namespace_ = config.namespace_;
  RestConfig own = config;
  own.user_agent =
      (own.user_agent.empty() ? std::string("nodesmith/") + core::kVersion : own.user_agent) +
      "/leader-election";
  auto client = std::make_unique<RestClient>(own);
  auto lock = std::make_unique<RestLeaseLock>(*client);
  return std::unique_ptr<LeaderElector>(
      new LeaderElector(std::move(client), std::move(lock), std::move(options)));
}

core::Result<std::unique_ptr<LeaderElector>> LeaderElector::Create(std::unique_ptr<LeaseLock> lock,
                                                                   LeaderElectorOptions options) {
  NS_RETURN_IF_ERROR(Validate(options));
  return std::unique_ptr<LeaderElector>(
      new LeaderElector(nullptr, std::move(lock), std::move(options)));
}

LeaderElector::LeaderElector(std::unique_ptr<RestClient> client, std::unique_ptr<LeaseLock> lock,
                             LeaderElectorOptions options)
    : client_(std::move(client)),
      lock_(std::move(lock)),
      options_(std::move(options)),
      lease_duration_seconds_(static_cast<int>(
          std::chrono::duration_cast<std::chrono::seconds>(options_.lease_duration).count())),
      rng_(std::random_device{}()) {
  if (options_.namespace_.empty()) options_.namespace_ = "default";
  if (options_.identity.empty()) options_.identity = Hostname() + "_" + RandomUuid();
  if (!options_.now) options_.now = [] { return SteadyClock::now(); };
  if (!options_.wall_now) options_.wall_now = SystemNow;
}

LeaderElector::~LeaderElector() { Stop(); }

std::string LeaderElector::Describe() const { return options_.namespace_ + "/" + options_.name; }

void LeaderElector::Log(const std::string& message) const {
  if (options_.log) options_.log(message);
}

std::string LeaderElector::Leader() const {
  std::lock_guard<std::mutex> l(mu_);
  return observed_.holder_identity;
}

core::Status LeaderElector::run_status() const {
  std::lock_guard<std::mutex> l(mu_);
  return run_status_;
}

bool LeaderElector::HoldsObserved() const { return observed_.holder_identity == options_.identity; }

bool LeaderElector::LeaseValid(SteadyClock::time_point now) const {
  return observed_time_ + std::chrono::seconds(observed_.lease_duration_seconds) > now;
}

void LeaderElector::SetObserved(const LeaderElectionRecord& record, std::string raw) {
  std::lock_guard<std::mutex> l(mu_);
  observed_ = record;
  observed_raw_ = std::move(raw);
  observed_time_ = options_.now();
}

bool LeaderElector::Wait(std::chrono::nanoseconds d) {
  std::unique_lock<std::mutex> l(mu_);
  return !cv_.wait_for(l, d, [this] { return stop_; });
}

std::chrono::nanoseconds LeaderElector::Jittered(std::chrono::nanoseconds d) {
  if (options_.jitter_factor <= 0) return d;
  std::uniform_real_distribution<double> u(0.0, options_.jitter_factor);
  return d +
         std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(d.count()) * u(rng_)));
}

bool LeaderElector::TryAcquireOrRenew() { return Round(options_.now() + options_.renew_deadline); }

bool LeaderElector::Round(SteadyClock::time_point deadline) {
  // What is left of the round for the next request; at least a moment, so a round that ran out
  // still asks (and fails fast) rather than skipping its bookkeeping.
  auto left = [&] {
    return std::max<LeaseLock::Timeout>(deadline - options_.now(), std::chrono::milliseconds(1));
  };
  const std::string& ns = options_.namespace_;
  const std::string& name = options_.name;
  const std::string now_text = FormatMicroTime(options_.wall_now());
  LeaderElectionRecord desired{options_.identity, lease_duration_seconds_, now_text, now_text, 0};
  bool done = false;
  bool acquired = false;

  // 1. The leader renews optimistically, assuming the Lease it last wrote is still current.
  bool fast = false;
  LeaderElectionRecord observed;
  {
    std::lock_guard<std::mutex> l(mu_);
    fast = HoldsObserved() && LeaseValid(options_.now()) && lease_.is_object();
    observed = observed_;
  }
  if (fast) {
    desired.acquire_time = observed.acquire_time;
    desired.lease_transitions = observed.lease_transitions;
    auto updated = lock_->Update(ns, name, WithRecord(lease_, desired), left());
    if (updated.ok()) {
      lease_ = std::move(updated).value();
      SetObserved(desired, RawOf(lease_));
      done = acquired = true;
    } else {
      Log("failed to renew lease " + Describe() + " optimistically (" + updated.status().message() +
          "), falling back to reading it");
    }
  }

  // 2. Read the Lease, or create it.
  if (!done) {
    auto got = lock_->Get(ns, name, left());
    if (!got.ok()) {
      if (got.status().code() != core::StatusCode::kNotFound) {
        Log("error retrieving lease " + Describe() + ": " + got.status().message());
        done = true;
      } else {
        auto created = lock_->Create(ns, NewLease(ns, name, desired), left());
        if (!created.ok()) {
          Log("error initially creating lease " + Describe() + ": " + created.status().message());
        } else {
          lease_ = std::move(created).value();
          SetObserved(desired, RawOf(lease_));
          acquired = true;
        }
        done = true;
      }
    }
    if (!done) {
      Json current = std::move(got).value();
      LeaderElectionRecord old = RecordOf(current);
      std::string raw = RawOf(current);
      lease_ = current;
      // 3. Someone else's valid Lease is left alone. Validity counts from when we last saw the
      // record change, on our clock.
      bool held_elsewhere = false, holds = false;
      {
        std::lock_guard<std::mutex> l(mu_);
        if (raw != observed_raw_) {
          observed_ = old;
          observed_raw_ = raw;
          observed_time_ = options_.now();
        }
        holds = HoldsObserved();
        held_elsewhere = !old.holder_identity.empty() && LeaseValid(options_.now()) && !holds;
      }
      if (!held_elsewhere) {
        // 4. Renew (keeping acquireTime and the transition count) or take over.
        if (holds) {
          desired.acquire_time = old.acquire_time;
          desired.lease_transitions = old.lease_transitions;
        } else {
          desired.lease_transitions = old.lease_transitions + 1;
        }
        auto updated = lock_->Update(ns, name, WithRecord(std::move(current), desired), left());
        if (!updated.ok()) {
          Log("failed to update lease " + Describe() + ": " + updated.status().message());
        } else {
          lease_ = std::move(updated).value();
          SetObserved(desired, RawOf(lease_));
          acquired = true;
        }
      }
    }
  }
  ReportTransition();
  return acquired;
}

void LeaderElector::ReportTransition() {
  std::string holder = Leader();
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (holder.empty()) return;
  Log("new leader for lease " + Describe() + ": " + holder);
  if (options_.on_new_leader) options_.on_new_leader(holder);
}

core::Status LeaderElector::Release() {
  const std::string& ns = options_.namespace_;
  const auto deadline = options_.now() + options_.renew_deadline;
  auto left = [&] {
    return std::max<LeaseLock::Timeout>(deadline - options_.now(), std::chrono::milliseconds(1));
  };
  auto got = lock_->Get(ns, options_.name, left());
  if (!got.ok()) {
    if (got.status().code() == core::StatusCode::kNotFound) return core::Status::Ok();
    return got.status().WithPrefix("release lease " + Describe());
  }
  LeaderElectionRecord current = RecordOf(*got);
  if (current.holder_identity != options_.identity) return core::Status::Ok();
  const std::string now_text = FormatMicroTime(options_.wall_now());
  LeaderElectionRecord released{"", 1, now_text, now_text, current.lease_transitions};
  auto updated =
      lock_->Update(ns, options_.name, WithRecord(std::move(got).value(), released), left());
  if (!updated.ok()) return updated.status().WithPrefix("release lease " + Describe());
  lease_ = std::move(updated).value();
  SetObserved(released, RawOf(lease_));
  Log("released lease " + Describe());
  return core::Status::Ok();
}

core::Status LeaderElector::Run() {
  auto stopping = [this] {
    std::lock_guard<std::mutex> l(mu_);
    return stop_;
  };
  Log("attempting to acquire leader lease " + Describe() + "...");
  for (;;) {
    if (stopping()) {
      return core::Status::Ok();
    }
    if (Round(options_.now() + options_.renew_deadline)) break;
    if (!Wait(Jittered(options_.retry_period))) {
      return core::Status::Ok();
    }
  }
  Log("successfully acquired lease " + Describe());
  leading_ = true;
  if (options_.on_started_leading) options_.on_started_leading();

  core::Status result;
  for (bool ended = false; !ended;) {
    if (!Wait(options_.retry_period)) break;
    const auto deadline = options_.now() + options_.renew_deadline;
    for (;;) {
      if (Round(deadline)) break;
      std::string holder = Leader();
      if (!holder.empty() && holder != options_.identity) {
        // The server says someone else holds it: there is nothing left to renew.
        result = core::Status::Unavailable("lost lease " + Describe() + " to " + holder);
        ended = true;
        break;
      }
      auto left = deadline - options_.now();
      if (left <= SteadyClock::duration::zero() ||
          !Wait(std::min<std::chrono::nanoseconds>(options_.retry_period, left))) {
        ended = true;
        if (!stopping())
          result = core::Status::Unavailable("failed to renew lease " + Describe() + " within " +
                                             Seconds(options_.renew_deadline));
        break;
      }
      if (options_.now() >= deadline) {
        ended = true;
        result = core::Status::Unavailable("failed to renew lease " + Describe() + " within " +
                                           Seconds(options_.renew_deadline));
        break;
      }
    }
  }
  leading_ = false;
  if (!result.ok()) {
    Log(result.message() + ": leadership lost");
  } else {
    Log("stopped leading lease " + Describe());
  }
  if (options_.on_stopped_leading) options_.on_stopped_leading();
  if (options_.release_on_cancel) {
    core::Status released = Release();
    if (!released.ok()) Log("failed to release lease: " + released.message());
  }
  return result;
}

void LeaderElector::Start() {
  thread_ = std::thread([this] {
    core::Status s = Run();
    std::lock_guard<std::mutex> l(mu_);
    run_status_ = s;
  });
}

void LeaderElector::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

}  // namespace nodesmith::kube
