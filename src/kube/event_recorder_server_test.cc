// Events against the real kube-apiserver, read back with kubectl: deduplication into one Event
// with a count, a second Event for another message, and cluster-scoped objects in `default`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/event_recorder.h"
#include "kube_test_env.h"

namespace nodesmith::kube {
namespace {

using namespace nodesmith::testing;
using ::testing::HasSubstr;

const ResourceType kConfigMaps{"", "v1", "configmaps", "ConfigMap", true};

// The Events about `name` in `ns`, as `kubectl get events -o json` prints them, oldest first.
std::vector<Json> KubectlEvents(const std::string& ns, const std::string& name) {
  std::string out =
      Kubectl("get events -n " + ns + " --field-selector involvedObject.name=" + name +
              " --sort-by=.metadata.creationTimestamp -o json");
  Json doc = Json::parse(out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << out;
  std::vector<Json> items;
  if (!doc.is_discarded() && doc.contains("items"))
    for (const Json& item : doc["items"]) items.push_back(item);
  return items;
}

TEST(EventRecorderServerTest, TheSameEventThreeTimesIsOneEventWithCountThree) {
  TestNamespace ns("ev");
  RestClient client(TestenvConfig());
  Json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata", {{"name", "subject"}, {"namespace", ns.name()}}}};
  auto created = client.Create(kConfigMaps, ns.name(), cm);
  ASSERT_TRUE(created.ok()) << created.status().message();
  ObjectReference ref = ReferenceTo(*created);

  std::vector<std::string> logs;
  std::mutex mu;
  EventRecorderOptions o;
  o.log = [&](const std::string& m) {
    std::lock_guard<std::mutex> l(mu);
    logs.push_back(m);
  };
  EventRecorder recorder(client, o);
  for (int i = 0; i < 3; ++i) {
    recorder.Publish(ref, EventType::kWarning, "FailedScheduling",
                     "Failed to schedule pod, incompatible with nodepool \"default\"");
    if (i == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // a later lastTimestamp
  }
  recorder.Publish(ref, EventType::kWarning, "FailedScheduling", "Failed to schedule pod, other");
  ASSERT_TRUE(recorder.Flush());
  EXPECT_EQ(recorder.stats().created, 2u);
  EXPECT_EQ(recorder.stats().patched, 2u);
  {
    std::lock_guard<std::mutex> l(mu);
    EXPECT_TRUE(logs.empty()) << logs.front();
  }

  std::vector<Json> events = KubectlEvents(ns.name(), "subject");
  ASSERT_EQ(events.size(), 2u);
  const Json& first = events[0];
  EXPECT_EQ(first["count"], 3);
  EXPECT_EQ(first["message"], "Failed to schedule pod, incompatible with nodepool \"default\"");
  EXPECT_EQ(first["type"], "Warning");
  EXPECT_EQ(first["reason"], "FailedScheduling");
  EXPECT_EQ(first["source"]["component"], "karpenter");
  EXPECT_EQ(first["reportingComponent"], "karpenter");
  EXPECT_EQ(first["metadata"]["namespace"], ns.name());
  EXPECT_EQ(first["metadata"]["name"].get<std::string>().rfind("subject.", 0), 0u);
  EXPECT_EQ(first["involvedObject"]["kind"], "ConfigMap");
  EXPECT_EQ(first["involvedObject"]["apiVersion"], "v1");
  EXPECT_EQ(first["involvedObject"]["namespace"], ns.name());
  EXPECT_EQ(first["involvedObject"]["uid"], (*created)["metadata"]["uid"]);
  EXPECT_LT(first["firstTimestamp"].get<std::string>(), first["lastTimestamp"].get<std::string>());
  const Json& second = events[1];
  EXPECT_EQ(second["count"], 1);
  EXPECT_EQ(second["message"], "Failed to schedule pod, other");
  EXPECT_NE(second["metadata"]["name"], first["metadata"]["name"]);

  // As a person sees them.
  std::string described = Kubectl("describe configmap -n " + ns.name() + " subject");
  EXPECT_THAT(described, HasSubstr("karpenter"));
  EXPECT_THAT(described, HasSubstr("(x3 over"));
}

TEST(EventRecorderServerTest, EventsForANodeLandInDefault) {
  const std::string node = UniqueName("ip-10-0-1-5");
  ObjectReference ref{"v1", "Node", node, "", UniqueName("uid"), "", ""};
  RestClient client(TestenvConfig());
  {
    EventRecorder recorder(client);
    recorder.Publish(ref, EventType::kNormal, "DisruptionTerminating",
                     "Disrupting Node: Empty/Delete");
    ASSERT_TRUE(recorder.Flush());
    EXPECT_EQ(recorder.stats().created, 1u);
  }
  std::vector<Json> events = KubectlEvents("default", node);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["metadata"]["namespace"], "default");
  EXPECT_EQ(events[0]["involvedObject"]["kind"], "Node");
  EXPECT_FALSE(events[0]["involvedObject"].contains("namespace"));
  EXPECT_EQ(events[0]["source"]["component"], "karpenter");
  EXPECT_EQ(events[0]["count"], 1);
  Kubectl("delete events -n default --field-selector involvedObject.name=" + node);
}

TEST(EventRecorderServerTest, AnEventTheServerRefusesIsLoggedNotThrown) {
  // A namespaced object whose namespace does not exist: the server answers 404 to the create.
  ObjectReference ref{"v1", "Pod", "p", UniqueName("missing"), "", "", ""};
  RestClient client(TestenvConfig());
  std::vector<std::string> logs;
  std::mutex mu;
  EventRecorderOptions o;
  o.log = [&](const std::string& m) {
    std::lock_guard<std::mutex> l(mu);
    logs.push_back(m);
  };
  EventRecorder recorder(client, o);
  recorder.Publish(ref, EventType::kNormal, "Nominated", "m");
  ASSERT_TRUE(recorder.Flush());
  EXPECT_EQ(recorder.stats().failed, 1u);
  std::lock_guard<std::mutex> l(mu);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_THAT(logs[0], HasSubstr("server rejected event " + ref.namespace_ + "/p."));
}

}  // namespace
}  // namespace nodesmith::kube
