#include "kube/json_merge.h"

#include <gtest/gtest.h>

namespace nodesmith::kube {
namespace {

using Json = nlohmann::ordered_json;

Json J(const char* text) { return Json::parse(text); }

TEST(ThreeWayMergeTest, FieldsNodesmithDoesNotModelSurviveAChange) {
  Json live = J(R"({"metadata":{"name":"n","labels":{"a":"1"},"managedFields":[{"manager":"kubectl"}]},
                   "spec":{"providerID":"kwok://n","podCIDR":"10.0.0.0/24"}})");
  Json base = J(R"({"metadata":{"name":"n","labels":{"a":"1"}},"spec":{"providerID":"kwok://n"}})");
  Json desired = J(R"({"metadata":{"name":"n","labels":{"a":"1","b":"2"}},"spec":{"providerID":"kwok://n"}})");
  Json out = ThreeWayMerge(live, base, desired);
  EXPECT_EQ(out["metadata"]["labels"], J(R"({"a":"1","b":"2"})"));
  EXPECT_EQ(out["metadata"]["managedFields"], live["metadata"]["managedFields"]);
  EXPECT_EQ(out["spec"]["podCIDR"], "10.0.0.0/24");
}

TEST(ThreeWayMergeTest, AKeyNodesmithRemovedIsRemovedAndOneItNeverSawStays) {
  Json live = J(R"({"metadata":{"annotations":{"mine":"x","theirs":"y"}}})");
  Json base = J(R"({"metadata":{"annotations":{"mine":"x","theirs":"y"}}})");
  Json desired = J(R"({"metadata":{"annotations":{"theirs":"y"}}})");
  EXPECT_EQ(ThreeWayMerge(live, base, desired), J(R"({"metadata":{"annotations":{"theirs":"y"}}})"));
  // A whole field nodesmith dropped (say, the last finalizer) goes.
  Json live2 = J(R"({"metadata":{"finalizers":["karpenter.sh/termination"],"x":1}})");
  Json base2 = J(R"({"metadata":{"finalizers":["karpenter.sh/termination"]}})");
  Json desired2 = J(R"({"metadata":{}})");
  EXPECT_EQ(ThreeWayMerge(live2, base2, desired2), J(R"({"metadata":{"x":1}})"));
}

TEST(ThreeWayMergeTest, ListElementsMatchedByIdentityKeepTheirUnknownFields) {
  // A taint nodesmith adds; the existing taint keeps timeAdded, which nodesmith does not model.
  Json live = J(R"({"taints":[{"key":"a","effect":"NoSchedule","timeAdded":"2026-01-01T00:00:00Z"}]})");
  Json base = J(R"({"taints":[{"key":"a","effect":"NoSchedule"}]})");
  Json desired = J(R"({"taints":[{"key":"a","effect":"NoSchedule"},{"key":"karpenter.sh/disrupted","effect":"NoSchedule"}]})");
  Json out = ThreeWayMerge(live, base, desired);
  ASSERT_EQ(out["taints"].size(), 2u);
  EXPECT_EQ(out["taints"][0]["timeAdded"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(out["taints"][1]["key"], "karpenter.sh/disrupted");
  // Conditions by type: observedGeneration of the changed one survives.
  Json lc = J(R"({"conditions":[{"type":"Ready","status":"False","observedGeneration":3}]})");
  Json bc = J(R"({"conditions":[{"type":"Ready","status":"False"}]})");
  Json dc = J(R"({"conditions":[{"type":"Ready","status":"True"}]})");
  EXPECT_EQ(ThreeWayMerge(lc, bc, dc), J(R"({"conditions":[{"type":"Ready","status":"True","observedGeneration":3}]})"));
}

TEST(ThreeWayMergeTest, AnUnchangedListIsLiveAsItIs) {
  Json live = J(R"({"containers":[{"name":"c","image":"x","terminationMessagePath":"/dev/t"}]})");
  Json base = J(R"({"containers":[{"name":"c","image":"x"}]})");
  EXPECT_EQ(ThreeWayMerge(live, base, base), live);
}

TEST(ThreeWayMergeTest, ListsWithoutIdentityOfEqualLengthMergeByPosition) {
  Json live = J(R"({"terms":[{"matchExpressions":[],"extra":1}]})");
  Json base = J(R"({"terms":[{"matchExpressions":[]}]})");
  Json desired = J(R"({"terms":[{"matchExpressions":[{"key":"k","operator":"Exists"}]}]})");
  Json out = ThreeWayMerge(live, base, desired);
  EXPECT_EQ(out["terms"][0]["extra"], 1);
  EXPECT_EQ(out["terms"][0]["matchExpressions"].size(), 1u);
}

TEST(MergePatchTest, ChangedAddedAndRemovedKeys) {
  Json from = J(R"({"a":1,"b":{"c":2,"d":3},"e":[1]})");
  Json to = J(R"({"a":1,"b":{"c":5},"e":[1,2],"f":"new"})");
  EXPECT_EQ(MergePatch(from, to), J(R"({"b":{"c":5,"d":null},"e":[1,2],"f":"new"})"));
  EXPECT_TRUE(MergePatch(from, from).is_null());
}

}  // namespace
}  // namespace nodesmith::kube
