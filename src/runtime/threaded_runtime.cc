#include "runtime/threaded_runtime.h"

#include <chrono>
#include <future>
#include <utility>

#include "core/system_clock.h"

namespace nodesmith::runtime {

ThreadedRuntime::ThreadedRuntime(cluster::ClusterApi& cluster, ThreadedRuntimeOptions options)
    : options_(std::move(options)),
      clock_(options_.now ? options_.now() : core::SystemNow()),
      loop_(clock_),
      runtime_(loop_, cluster) {
  runtime_.SetStopwatch([this] { return WallNow(); });
}

ThreadedRuntime::~ThreadedRuntime() { Stop(); }

core::Time ThreadedRuntime::WallNow() const {
  return options_.now ? options_.now() : core::SystemNow();
}

void ThreadedRuntime::Pump() {
  if (options_.pump) options_.pump();
}

void ThreadedRuntime::Run() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_ = true;
  }
  while (true) {
    std::vector<std::function<void()>> posted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) break;
      posted.swap(posted_);
      woken_ = false;
    }
    const core::Time before_posted = WallNow();
    if (before_posted > clock_.Now()) clock_.Set(before_posted);
    for (auto& fn : posted) fn();
    Pump();
    bool stopping = false;
    while (loop_.RunNextDue(WallNow())) {
      Pump();
      std::lock_guard<std::mutex> lock(mu_);
      ++steps_;
      if (stop_) {
        stopping = true;
        break;
      }
    }
    if (stopping) break;

    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) break;
    if (woken_ || !posted_.empty()) continue;
    core::Duration sleep = options_.max_sleep;
    if (!loop_.empty()) {
      const core::Duration until_next = loop_.NextEventTime() - WallNow();
      if (until_next < sleep) sleep = until_next;
    }
    if (sleep > core::Duration::zero()) {
      cv_.wait_for(lock, sleep, [this] { return stop_ || woken_ || !posted_.empty(); });
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  running_ = false;
  posted_.clear();
}

void ThreadedRuntime::Start() {
  thread_ = std::thread([this] { Run(); });
}

void ThreadedRuntime::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ThreadedRuntime::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void ThreadedRuntime::Post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    posted_.push_back(std::move(fn));
  }
  cv_.notify_all();
}

bool ThreadedRuntime::RunSync(std::function<void()> fn) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> finished = done->get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return false;
    posted_.push_back([fn = std::move(fn), done] {
      fn();
      done->set_value();
    });
  }
  cv_.notify_all();
  // A posted function that never runs (the runtime stopped first) drops its promise: broken.
  try {
    finished.get();
    return true;
  } catch (const std::future_error&) {
    return false;
  }
}

bool ThreadedRuntime::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

uint64_t ThreadedRuntime::steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_;
}

}  // namespace nodesmith::runtime
