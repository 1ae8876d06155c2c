// How the live catalog is kept current while the controller runs, as a specification: loads come
// every interval, a failure keeps the catalog in use and is retried sooner, and stopping returns
// without waiting out the interval.
#include "operator/catalog_refresher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace nodesmith::op {
namespace {

using std::chrono::milliseconds;

// What the refresher handed out and said, and a way to wait for it.
struct Observed {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> applied_sources;
  std::vector<std::pair<bool, std::string>> lines;

  bool WaitForApplied(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), [&] { return applied_sources.size() >= n; });
  }
};

CatalogRefresherOptions Options(Observed& seen, std::function<core::Result<cloud::Catalog>(int)> load) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  CatalogRefresherOptions options;
  options.interval = milliseconds(20);
  options.retry_interval = milliseconds(5);
  options.load = [calls, load](std::vector<std::string>* warnings) {
    warnings->push_back("on-demand prices from the built-in table");
    return load((*calls)++);
  };
  options.apply = [&seen](cloud::Catalog c) {
    std::lock_guard<std::mutex> lock(seen.mu);
    seen.applied_sources.push_back(c.source);
    seen.cv.notify_all();
  };
  options.log = [&seen](bool warning, const std::string& m) {
    std::lock_guard<std::mutex> lock(seen.mu);
    seen.lines.emplace_back(warning, m);
  };
  return options;
}

cloud::Catalog Named(const std::string& source) {
  cloud::Catalog c;
  c.source = source;
  return c;
}

TEST(CatalogRefresher, HandsOutEachCatalogLoadedEveryInterval) {
  Observed seen;
  CatalogRefresher refresher(
      Options(seen, [](int call) { return Named("load-" + std::to_string(call)); }));
  refresher.Start(std::chrono::milliseconds(1));
  ASSERT_TRUE(seen.WaitForApplied(3));
  refresher.Stop();
  std::lock_guard<std::mutex> lock(seen.mu);
  EXPECT_EQ(seen.applied_sources[0], "load-0");
  EXPECT_EQ(seen.applied_sources[1], "load-1");
  EXPECT_EQ(seen.applied_sources[2], "load-2");
  // Each load's fallbacks are warnings; each success is one line with the count.
  bool fallback_warned = false, refreshed_said = false;
  for (const auto& [warning, line] : seen.lines) {
    if (warning && line == "on-demand prices from the built-in table") fallback_warned = true;
    if (!warning && line.find("refreshed 0 instance types") == 0) refreshed_said = true;
  }
  EXPECT_TRUE(fallback_warned);
  EXPECT_TRUE(refreshed_said);
}

TEST(CatalogRefresher, AFailedLoadKeepsTheCatalogInUseAndIsRetried) {
  Observed seen;
  CatalogRefresher refresher(Options(seen, [](int call) -> core::Result<cloud::Catalog> {
    if (call < 2) return core::Status::Unavailable("RequestLimitExceeded: Request limit exceeded.");
    return Named("after-the-throttle");
  }));
  refresher.Start(std::chrono::milliseconds(1));
  ASSERT_TRUE(seen.WaitForApplied(1));
  refresher.Stop();
  std::lock_guard<std::mutex> lock(seen.mu);
  // Nothing was applied for the two failures: the first catalog handed out is the third load's.
  EXPECT_EQ(seen.applied_sources[0], "after-the-throttle");
  EXPECT_GE(refresher.attempts(), 3u);
  int failures = 0;
  for (const auto& [warning, line] : seen.lines) {
    if (warning && line.find("refreshing the instance types failed; keeping those loaded before: "
                             "RequestLimitExceeded") == 0) {
      ++failures;
    }
  }
  EXPECT_EQ(failures, 2);
}

TEST(CatalogRefresher, StopsWithoutWaitingOutTheInterval) {
  Observed seen;
  CatalogRefresherOptions options = Options(seen, [](int) { return Named("never"); });
  options.interval = std::chrono::hours(12);
  CatalogRefresher refresher(std::move(options));
  refresher.Start(std::chrono::hours(12));
  refresher.Stop();  // returns at once: were it to wait out the 12 h, ctest's timeout would say so
  // The catalog in use was loaded at start: the first refresh is an interval away.
  EXPECT_EQ(refresher.attempts(), 0u);
  EXPECT_EQ(refresher.applied(), 0u);
}

}  // namespace
}  // namespace nodesmith::op
