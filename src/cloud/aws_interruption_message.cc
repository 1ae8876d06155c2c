#include "cloud/aws_interruption_message.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/time.h"

namespace nodesmith::cloud {
namespace {

using json = nlohmann::json;

constexpr std::string_view kSourceEc2 = "aws.ec2";
constexpr std::string_view kSourceHealth = "aws.health";
constexpr std::string_view kSpotWarning = "EC2 Spot Instance Interruption Warning";
constexpr std::string_view kReservationWarning =
    "EC2 Capacity Reservation Instance Interruption Warning";
constexpr std::string_view kRebalance = "EC2 Instance Rebalance Recommendation";
constexpr std::string_view kStateChange = "EC2 Instance State-change Notification";
constexpr std::string_view kHealthEvent = "AWS Health Event";
// EC2 reclaims a spot instance two minutes after its interruption warning.
constexpr auto kSpotWarningLead = std::chrono::minutes(2);

// The string at `key` of `object`: "" when absent or null, an error naming `path` when present
// with another type.
core::Result<std::string> OptionalString(const json& object, const char* key,
                                         const std::string& path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return core::Status::Invalid("interruption message: " + path + ": expected a string, got " +
                                 it->type_name());
  }
  return it->get<std::string>();
}

core::Result<std::string> RequiredString(const json& object, const char* key,
                                         const std::string& path) {
  auto value = OptionalString(object, key, path);
  if (value.ok() && value->empty()) {
    return core::Status::Invalid("interruption message: " + path + ": missing");
  }
  return value;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool IsActedOnState(const std::string& state) {
  return state == kInstanceStateStopping || state == kInstanceStateStopped ||
         state == kInstanceStateShuttingDown || state == kInstanceStateTerminated;
}

core::Result<std::vector<InterruptionMessage>> Parse(const json& doc, std::string_view id) {
  InterruptionMessage base;
  base.id = std::string(id);
  if (!doc.is_object()) {
    return core::Status::Invalid(std::string("interruption message: expected a JSON object, got ") +
                                 doc.type_name());
  }
  auto version = OptionalString(doc, "version", "version");
  auto source = OptionalString(doc, "source", "source");
  auto detail_type = OptionalString(doc, "detail-type", "detail-type");
  auto time = OptionalString(doc, "time", "time");
  for (const auto* r : {&version, &source, &detail_type, &time}) {
    if (!r->ok()) return r->status();
  }
  if (!time->empty()) {
    auto t = core::ParseRfc3339(*time);
    if (!t.ok()) return core::Status::Invalid("interruption message: time: " + t.status().message());
    base.start_time = *t;
  }

  auto unknown = [&](std::string why) -> std::vector<InterruptionMessage> {
    InterruptionMessage m = base;
    m.kind = InterruptionMessageKind::kUnknown;
    m.detail = std::move(why);
    return {std::move(m)};
  };
  const bool ec2 = *source == kSourceEc2;
  const bool health = *source == kSourceHealth;
  const bool known = (ec2 && (*detail_type == kSpotWarning || *detail_type == kReservationWarning ||
                              *detail_type == kRebalance || *detail_type == kStateChange)) ||
                     (health && *detail_type == kHealthEvent);
  if (!known) {
    if (source->empty() && detail_type->empty()) return unknown("not an EventBridge event");
    return unknown("\"" + *detail_type + "\" from " + (source->empty() ? "no source" : *source) +
                   " is not handled");
  }
  if (*version != "0") return unknown("event version \"" + *version + "\" is not handled");

  auto detail_it = doc.find("detail");
  if (detail_it == doc.end() || !detail_it->is_object()) {
    return core::Status::Invalid("interruption message: detail: expected an object for \"" +
                                 *detail_type + "\"");
  }
  const json& detail = *detail_it;

  if (health) {
    auto service = OptionalString(detail, "service", "detail.service");
    if (!service.ok()) return service.status();
    auto category = OptionalString(detail, "eventTypeCategory", "detail.eventTypeCategory");
    if (!category.ok()) return category.status();
    if (*service != "EC2" || *category != "scheduledChange") {
      return unknown("AWS Health event of service \"" + *service + "\" and category \"" +
                     *category + "\" is not handled");
    }
    auto entities = detail.find("affectedEntities");
    if (entities == detail.end() || entities->is_null()) {
      return unknown("AWS Health scheduled change names no instances");
    }
    if (!entities->is_array()) {
      return core::Status::Invalid("interruption message: detail.affectedEntities: expected an array");
    }
    std::vector<InterruptionMessage> out;
    for (size_t i = 0; i < entities->size(); ++i) {
      const json& entity = (*entities)[i];
      std::string path = "detail.affectedEntities[" + std::to_string(i) + "]";
      if (!entity.is_object()) {
        return core::Status::Invalid("interruption message: " + path + ": expected an object");
      }
      auto value = RequiredString(entity, "entityValue", path + ".entityValue");
      if (!value.ok()) return value.status();
      InterruptionMessage m = base;
      m.kind = InterruptionMessageKind::kScheduledChange;
      m.instance_id = *value;
      out.push_back(std::move(m));
    }
    if (out.empty()) return unknown("AWS Health scheduled change names no instances");
    return out;
  }

  auto instance = RequiredString(detail, "instance-id", "detail.instance-id");
  if (!instance.ok()) return instance.status();
  InterruptionMessage m = base;
  m.instance_id = *instance;
  if (*detail_type == kSpotWarning) {
    m.kind = InterruptionMessageKind::kSpotInterruption;
    if (m.start_time) {
      // `time` may be as late as Time can hold (2262-04-11T23:47:16Z); two minutes after the last
      // two minutes of that range would overflow, so the reclaim is then the last instant there is.
      constexpr int64_t kLatest = std::numeric_limits<int64_t>::max();
      const int64_t lead = std::chrono::nanoseconds(kSpotWarningLead).count();
      m.action_time = m.start_time->unix_nanos > kLatest - lead ? core::Time{kLatest}
                                                                 : *m.start_time + kSpotWarningLead;
    }
  } else if (*detail_type == kReservationWarning) {
    m.kind = InterruptionMessageKind::kCapacityReservationInterruption;
  } else if (*detail_type == kRebalance) {
    m.kind = InterruptionMessageKind::kRebalanceRecommendation;
  } else {
    auto state = RequiredString(detail, "state", "detail.state");
    if (!state.ok()) return state.status();
    m.state = Lower(*state);
    if (IsActedOnState(m.state)) {
      m.kind = InterruptionMessageKind::kStateChange;
    } else {
      m.kind = InterruptionMessageKind::kUnknown;
      m.detail = "instance state \"" + m.state + "\" is not acted on";
    }
  }
  return std::vector<InterruptionMessage>{std::move(m)};
}

}  // namespace

core::Result<std::vector<InterruptionMessage>> ParseAwsInterruptionMessage(std::string_view body,
                                                                           std::string_view id) {
  if (std::all_of(body.begin(), body.end(), [](unsigned char c) { return std::isspace(c); })) {
    InterruptionMessage m;
    m.id = std::string(id);
    m.detail = "empty message body";
    return std::vector<InterruptionMessage>{std::move(m)};
  }
  json doc;
  try {
    doc = json::parse(body.begin(), body.end());
  } catch (const json::exception& e) {
    // A syntax error (parse_error) or a number beyond a double (out_of_range, "number overflow
    // parsing '1e400'"): both are a body nodesmith cannot read, not a reason to abort. nlohmann's
    // message names the byte offset or the number; keep that and drop its "[json.exception...]" tag.
    std::string what = e.what();
    auto tag_end = what.find("] ");
    if (tag_end != std::string::npos) what = what.substr(tag_end + 2);
    return core::Status::Invalid("interruption message: invalid JSON: " + what);
  }
  return Parse(doc, id);
}

std::vector<InterruptionMessage> AwsInterruptionMessagesOrUnknown(std::string_view body,
                                                                  std::string_view id) {
  auto parsed = ParseAwsInterruptionMessage(body, id);
  if (parsed.ok()) return std::move(parsed).value();
  InterruptionMessage m;
  m.id = std::string(id);
  m.detail = parsed.status().message();
  return {std::move(m)};
}

}  // namespace nodesmith::cloud
