// CatalogRefresher: keeps the account's instance types, offerings and prices current while the
// controller runs, as Karpenter's AWS provider refreshes its instance types and its on-demand and
// spot prices every 12 hours.
//
// A thread of its own loads the catalog (DescribeInstanceTypes, DescribeInstanceTypeOfferings,
// pricing:GetProducts and DescribeSpotPriceHistory take seconds, which the runtime's thread must
// not wait for) and hands each new catalog to `apply`; the operator's `apply` posts the swap to
// the runtime's thread, where the provider and the metrics read the catalog. A failed load keeps
// the catalog in use, is reported through `log`, and is tried again after `retry_interval`, so a
// passing throttle or outage costs minutes of staleness, not 12 hours.
//
// Thread-safe. Stop() (or the destructor) returns within one load. REQUIRES: `load`, `apply` and
// `log` stay callable until Stop() returns.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloud/catalog.h"
#include "core/clock.h"
#include "core/status.h"

namespace nodesmith::op {

struct CatalogRefresherOptions {
  core::Duration interval = std::chrono::hours(12);
  core::Duration retry_interval = std::chrono::minutes(5);
  // Loads the catalog anew; `warnings` gets one line per fallback (e.g. built-in prices).
  std::function<core::Result<cloud::Catalog>(std::vector<std::string>* warnings)> load;
  // Receives each catalog loaded, on the refresher's thread.
  std::function<void(cloud::Catalog)> apply;
  // A line for a person: `warning` true for fallbacks and failures.
  std::function<void(bool warning, const std::string& message)> log;
};

class CatalogRefresher {
 public:
  explicit CatalogRefresher(CatalogRefresherOptions options);
  ~CatalogRefresher();

  CatalogRefresher(const CatalogRefresher&) = delete;
  CatalogRefresher& operator=(const CatalogRefresher&) = delete;

  // The first load comes `first_in` from now: `interval` when the catalog in use was loaded at
  // start, sooner when a stand-in is in use.
  void Start(core::Duration first_in);
  void Stop();

  // Loads attempted and catalogs applied so far.
  uint64_t attempts() const;
  uint64_t applied() const;

 private:
  void Loop(core::Duration first_in);

  CatalogRefresherOptions options_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  uint64_t attempts_ = 0;
  uint64_t applied_ = 0;
  std::thread thread_;
};

}  // namespace nodesmith::op
