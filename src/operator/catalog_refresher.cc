#include "operator/catalog_refresher.h"

#include <utility>

namespace nodesmith::op {

CatalogRefresher::CatalogRefresher(CatalogRefresherOptions options) : options_(std::move(options)) {}

CatalogRefresher::~CatalogRefresher() { Stop(); }

void CatalogRefresher::Start(core::Duration first_in) {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stop_) return;
  thread_ = std::thread(&CatalogRefresher::Loop, this, first_in);
}

void CatalogRefresher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t CatalogRefresher::attempts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return attempts_;
}

uint64_t CatalogRefresher::applied() const {
  std::lock_guard<std::mutex> lock(mu_);
  return applied_;
}

void CatalogRefresher::Loop(core::Duration first_in) {
  core::Duration wait = first_in;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      if (stop_cv_.wait_for(lock, wait, [this] { return stop_; })) return;
      ++attempts_;
    }
    std::vector<std::string> warnings;
    core::Result<cloud::Catalog> loaded = options_.load(&warnings);
    for (const std::string& w : warnings) options_.log(true, w);
    if (!loaded.ok()) {
      options_.log(true, "refreshing the instance types failed; keeping those loaded before: " +
                             loaded.status().message());
      wait = options_.retry_interval;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;  // the runtime that `apply` posts to may be gone
      ++applied_;
    }
    options_.log(false, "refreshed " + std::to_string(loaded->instance_types.size()) +
                            " instance types with their offerings and prices");
    options_.apply(std::move(*loaded));
    wait = options_.interval;
  }
}

}  // namespace nodesmith::op
