#include "runtime/controller_runtime.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace nodesmith::runtime {

SimulatedRuntime::SimulatedRuntime(EventLoop& loop, cluster::ClusterApi& cluster)
    : loop_(loop), cluster_(cluster) {}

Request SimulatedRuntime::RequestFor(const Controller& controller, const std::string& ns,
                                     const std::string& name) {
  if (controller.Singleton()) return Request{};
  return Request{ns, name};
}

void SimulatedRuntime::Register(Controller& controller, ErrorHook on_error) {
  auto owned = std::make_unique<Entry>();
  Entry* entry = owned.get();
  entry->controller = &controller;
  entry->name = controller.Name();
  assert(!by_name_.contains(entry->name) && "controller registered twice");
  entry->on_error = std::move(on_error);
  entry->queue =
      std::make_unique<WorkQueue>(loop_, [this, entry] { Schedule(*entry, /*waking=*/true); });
  entries_.push_back(std::move(owned));
  by_name_[entry->name] = entry;

  std::weak_ptr<bool> alive = alive_;
  for (cluster::Kind kind : controller.Watches()) {
    cluster_.Watch(kind, [alive, entry](const cluster::WatchEvent& event) {
      if (alive.expired()) return;
      const Request request = RequestFor(*entry->controller, event.namespace_, event.name);
      if (event.observed_at != core::Time{}) {
        core::Time& latest = entry->changed_at[request][event.kind];
        latest = std::max(latest, event.observed_at);
      }
      entry->queue->Add(request);
    });
  }
  if (controller.Singleton()) {
    entry->queue->Add(Request{});
    return;
  }
  for (cluster::Kind kind : controller.Watches()) {
    for (const cluster::Object& object : cluster_.ListObjects(kind)) {
      entry->queue->Add(Request{cluster::MetaOf(object).namespace_, cluster::StoreName(object)});
    }
  }
}

void SimulatedRuntime::Schedule(Entry& entry, bool waking) {
  if (entry.scheduled) return;
  entry.scheduled = true;
  constexpr core::Duration kWakeCredit = std::chrono::seconds(1);
  if (waking) entry.used = std::max(entry.used, least_used_ - kWakeCredit);
  std::weak_ptr<bool> alive = alive_;
  Entry* e = &entry;
  loop_.At(loop_.Now(), [this, alive, e] {
    if (alive.expired()) return;
    RunOne(*e);
  });
}

bool SimulatedRuntime::ShouldYield(const Entry& entry) const {
  for (const auto& other : entries_) {
    if (other.get() != &entry && other->scheduled && other->used < entry.used) return true;
  }
  return false;
}

void SimulatedRuntime::Charge(Entry& entry, core::Duration took) {
  entry.used += took;
  core::Duration least = entry.used;
  for (const auto& other : entries_) {
    if (other->scheduled) least = std::min(least, other->used);
  }
  least_used_ = std::max(least_used_, least);
}

void SimulatedRuntime::RunOne(Entry& entry) {
  entry.scheduled = false;
  if (ShouldYield(entry)) {
    Schedule(entry, /*waking=*/false);  // behind the others' ready work, all due already
    return;
  }
  std::optional<Request> request = entry.queue->Get();
  if (!request) return;
  // The changes since the request was last handed out; what the queue kept of it is not one.
  request->changed_at.clear();
  if (auto stamps = entry.changed_at.find(*request); stamps != entry.changed_at.end()) {
    request->changed_at = std::move(stamps->second);
    entry.changed_at.erase(stamps);
  }
  ++entry.reconciles;
  if (before_) before_(entry.name);
  const core::Time started = stopwatch_ ? stopwatch_() : core::Time{};
  core::Result<ReconcileResult> result = entry.controller->Reconcile(*request);
  const core::Duration took = stopwatch_ ? stopwatch_() - started : core::Duration::zero();
  if (stopwatch_) Charge(entry, took);
  WorkQueue& queue = *entry.queue;
  const char* outcome = "success";
  if (!result.ok()) {
    ++entry.errors;
    outcome = "error";
    if (entry.on_error) entry.on_error(*request, result.status());
    queue.AddRateLimited(*request);
  } else if (result->requeue_after.has_value()) {
    if (*result->requeue_after > core::Duration::zero()) {
      outcome = "requeue_after";
      queue.Forget(*request);
      // The delay counts from the reconcile's start. One that has passed while it ran makes the
      // request ready now, so the fair share sees it waiting, not hidden on a timer.
      if (*result->requeue_after <= took) {
        queue.Add(*request);
      } else {
        queue.AddAfter(*request, *result->requeue_after);
      }
    } else {
      outcome = "requeue";
      queue.AddRateLimited(*request);
    }
  } else {
    queue.Forget(*request);
  }
  if (after_) after_(entry.name, outcome);
  queue.Done(*request);
  // One reconcile per event: give other controllers' events at this instant their turn.
  if (queue.Len() > 0) Schedule(entry, /*waking=*/false);
}

SimulatedRuntime::Entry* SimulatedRuntime::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

core::Status SimulatedRuntime::Enqueue(const std::string& controller, const Request& request) {
  return EnqueueAfter(controller, request, core::Duration::zero());
}

core::Status SimulatedRuntime::EnqueueAfter(const std::string& controller, const Request& request,
                                            core::Duration delay) {
  Entry* entry = Find(controller);
  if (entry == nullptr) return core::Status::NotFound("no controller named " + controller);
  entry->queue->AddAfter(request, delay);
  return core::Status::Ok();
}

int64_t SimulatedRuntime::ReconcileCount(const std::string& controller) const {
  const Entry* entry = Find(controller);
  return entry == nullptr ? 0 : entry->reconciles;
}

int64_t SimulatedRuntime::ErrorCount(const std::string& controller) const {
  const Entry* entry = Find(controller);
  return entry == nullptr ? 0 : entry->errors;
}

size_t SimulatedRuntime::QueueLength(const std::string& controller) const {
  const Entry* entry = Find(controller);
  return entry == nullptr ? 0 : entry->queue->Len();
}

std::vector<std::string> SimulatedRuntime::Controllers() const {
  std::vector<std::string> names;
  for (const auto& entry : entries_) names.push_back(entry->name);
  return names;
}

}  // namespace nodesmith::runtime
