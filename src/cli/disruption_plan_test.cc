// How `nodesmith disrupt` renders a DisruptionPlan: the contract's JSON field names and the text
// a person reads (per command the method, reason, candidates, replacements with their type and
// price, the saving; then the blocked nodes and a summary).
#include "cli/disruption_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodesmith::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

controllers::Candidate MakeCandidate(const std::string& node, const std::string& claim,
                                     const std::string& type, double price,
                                     std::vector<std::string> pods) {
  controllers::Candidate c;
  c.node.metadata.name = node;
  c.node_claim.metadata.name = claim;
  c.node_pool.metadata.name = "default";
  c.instance_type = type;
  c.zone = "us-west-2a";
  c.capacity_type = "on-demand";
  c.price_per_hour = price;
  c.reschedulable_pods = std::move(pods);
  return c;
}

solver::NewNodeClaim MakeReplacement() {
  solver::NewNodeClaim r;
  r.name = "default-k2x9q";
  r.node_pool = "default";
  r.instance_type_options = {"m5.large", "m5a.large"};
  r.launch = {"m5.large", "us-west-2a", "on-demand", 0.096};
  r.labels = {{"karpenter.sh/nodepool", "default"}, {"node.kubernetes.io/instance-type", "m5.large"}};
  r.taints = {api::Taint{"example.com/dedicated", "batch", "NoSchedule"}};
  r.pods = {"shop/cart-1", "shop/cart-2"};
  return r;
}

// Two commands as --until-stable lists them: an empty node deleted, then two underutilised
// m5.xlarge nodes replaced by one m5.large.
DisruptionPlan TwoCommandPlan() {
  DisruptionPlan plan;
  controllers::Command empty;
  empty.method = "emptiness";
  empty.reason = "Empty";
  empty.candidates = {MakeCandidate("ip-10-0-2-10", "default-empty", "m5.large", 0.096, {})};
  empty.savings_per_hour = 0.096;
  controllers::Command multi;
  multi.method = "multi-node";
  multi.reason = "Underutilized";
  multi.candidates = {MakeCandidate("ip-10-0-2-20", "default-a", "m5.xlarge", 0.192, {"shop/cart-1"}),
                      MakeCandidate("ip-10-0-2-30", "default-b", "m5.xlarge", 0.192, {"shop/cart-2"})};
  multi.replacements = {MakeReplacement()};
  multi.savings_per_hour = 0.192 + 0.192 - 0.096;
  plan.commands = {empty, multi};
  plan.blocked = {{"ip-10-0-1-20", "pod batch/report-0 has karpenter.sh/do-not-disrupt"}};
  plan.nodes = 7;
  plan.price_per_hour_before = 1.0;
  plan.price_per_hour_after = 1.0 - 0.096 - multi.savings_per_hour;
  plan.solve_seconds = 0.25;
  return plan;
}

TEST(DisruptionPlanJson, HasTheContractsFieldNames) {
  nlohmann::ordered_json j = DisruptionPlanJson(TwoCommandPlan());
  EXPECT_EQ(j["kind"], "DisruptionPlan");
  ASSERT_EQ(j["commands"].size(), 2u);
  const auto& multi = j["commands"][1];
  EXPECT_EQ(multi["method"], "multi-node");
  EXPECT_EQ(multi["reason"], "Underutilized");
  EXPECT_EQ(multi["candidates"], nlohmann::ordered_json({"ip-10-0-2-20", "ip-10-0-2-30"}));
  EXPECT_DOUBLE_EQ(multi["savingsPerHour"].get<double>(), 0.288);
  EXPECT_EQ(multi["candidateNodes"][0]["nodeClaim"], "default-a");
  EXPECT_EQ(multi["candidateNodes"][1]["pods"], nlohmann::ordered_json({"shop/cart-2"}));
  EXPECT_EQ(j["commands"][0]["replacements"], nlohmann::ordered_json::array());
  ASSERT_EQ(j["blocked"].size(), 1u);
  EXPECT_EQ(j["blocked"][0]["node"], "ip-10-0-1-20");
  EXPECT_THAT(j["blocked"][0]["reason"].get<std::string>(), HasSubstr("do-not-disrupt"));
  const auto& summary = j["summary"];
  EXPECT_EQ(summary["nodes"], 7);
  EXPECT_DOUBLE_EQ(summary["pricePerHourBefore"].get<double>(), 1.0);
  // 1 - 0.096 - 0.288, rounded so the binary noise of the subtraction does not show.
  EXPECT_EQ(summary["pricePerHourAfter"].dump(), "0.616");
  EXPECT_DOUBLE_EQ(summary["solveSeconds"].get<double>(), 0.25);
}

TEST(DisruptionPlanJson, ReplacementsHaveThePlansNewNodeClaimShape) {
  nlohmann::ordered_json r = DisruptionPlanJson(TwoCommandPlan())["commands"][1]["replacements"][0];
  std::vector<std::string> keys;
  for (const auto& [k, v] : r.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "nodePool", "instanceTypeOptions", "launch",
                                            "labels", "taints", "requests", "pods"}));
  EXPECT_EQ(r["launch"]["instanceType"], "m5.large");
  EXPECT_EQ(r["launch"]["capacityType"], "on-demand");
  EXPECT_DOUBLE_EQ(r["launch"]["pricePerHour"].get<double>(), 0.096);
  EXPECT_EQ(r["taints"][0], nlohmann::ordered_json({{"key", "example.com/dedicated"},
                                                    {"value", "batch"},
                                                    {"effect", "NoSchedule"}}));
  EXPECT_EQ(r["pods"], nlohmann::ordered_json({"shop/cart-1", "shop/cart-2"}));
}

TEST(DisruptionPlanJson, NothingToDoIsEmptyListsNotMissingFields) {
  DisruptionPlan plan;
  plan.nodes = 3;
  plan.price_per_hour_before = plan.price_per_hour_after = 0.5;
  nlohmann::ordered_json j = DisruptionPlanJson(plan);
  EXPECT_EQ(j["commands"], nlohmann::ordered_json::array());
  EXPECT_EQ(j["blocked"], nlohmann::ordered_json::array());
  EXPECT_EQ(j["summary"]["pricePerHourAfter"], 0.5);
}

TEST(DisruptionPlanText, ShowsEachCommandItsCandidatesReplacementsAndSaving) {
  std::string text = DisruptionPlanText(TwoCommandPlan());
  EXPECT_THAT(text, HasSubstr("Command 1: emptiness (Empty), delete 1 node, saves $0.0960/hour"));
  EXPECT_THAT(text, HasSubstr("Command 2: multi-node (Underutilized), replace 2 nodes with 1 new "
                              "NodeClaim, saves $0.2880/hour"));
  EXPECT_THAT(text, HasSubstr("ip-10-0-2-20  default-a"));
  EXPECT_THAT(text, HasSubstr("REPLACEMENT"));
  EXPECT_THAT(text, HasSubstr("default-k2x9q  default   m5.large       us-west-2a  on-demand  0.0960"));
  EXPECT_THAT(text, HasSubstr("ip-10-0-2-30 pods: shop/cart-2"));
  EXPECT_THAT(text, HasSubstr("Blocked nodes: 1"));
  EXPECT_THAT(text, HasSubstr("ip-10-0-1-20  pod batch/report-0 has karpenter.sh/do-not-disrupt"));
  EXPECT_THAT(text, HasSubstr("Summary: 7 managed nodes, 2 commands, $1.0000/hour before, "
                              "$0.6160/hour after (saves $0.3840/hour)"));
  EXPECT_THAT(text, Not(HasSubstr("No disruption")));
}

TEST(DisruptionPlanText, SaysSoWhenNothingWouldBeDisrupted) {
  DisruptionPlan plan;
  plan.nodes = 1;
  std::string text = DisruptionPlanText(plan);
  EXPECT_THAT(text, HasSubstr("No disruption"));
  EXPECT_THAT(text, Not(HasSubstr("Blocked nodes")));
  EXPECT_THAT(text, HasSubstr("Summary: 1 managed node, 0 commands"));
}

}  // namespace
}  // namespace nodesmith::cli
