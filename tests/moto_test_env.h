// The test AWS endpoint as the *_moto_test suites see it: moto in server mode, started by the
// `moto` ctest fixture (scripts/testenv/moto start DIR). DIR comes from NODESMITH_MOTO_DIR, else
// the build's default. A missing or stopped moto fails the test with what to run; it never skips.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cloud/aws/aws_session.h"
#include "core/base64.h"
#include "core/system_clock.h"

namespace nodesmith::testing {

inline std::string MotoDir() {
  if (const char* d = std::getenv("NODESMITH_MOTO_DIR"); d != nullptr && d[0] != '\0') return d;
#ifdef NODESMITH_MOTO_DIR_DEFAULT
  return NODESMITH_MOTO_DIR_DEFAULT;
#else
  return "";
#endif
}

// The variables DIR/env exports (AWS_ENDPOINT_URL, keys, AWS_REGION); empty when missing.
inline std::map<std::string, std::string> MotoEnvironment() {
  std::map<std::string, std::string> vars;
  std::ifstream in(MotoDir() + "/env");
  std::string word;
  while (in >> word) {
    if (word == "export") continue;
    size_t eq = word.find('=');
    if (eq != std::string::npos) vars[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return vars;
}

// A session against moto with its fixed test keys; fails the test when moto is not there.
inline std::unique_ptr<aws::AwsSession> MotoSession(const core::Clock* clock,
                                                    std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> vars = MotoEnvironment();
  if (vars.count("AWS_ENDPOINT_URL") == 0) {
    ADD_FAILURE() << "moto is not running for " << MotoDir()
                  << ": run `scripts/testenv/moto start " << MotoDir()
                  << "` (ctest's moto_up does), after `make testenv`";
    return nullptr;
  }
  for (auto& [k, v] : extra) vars[k] = v;
  aws::AwsSessionOptions o;
  o.region = vars["AWS_REGION"];
  o.clock = clock;
  o.environment.getenv = [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  o.environment.home = "/nonexistent";
  o.credentials = aws::StaticCredentials({vars["AWS_ACCESS_KEY_ID"], vars["AWS_SECRET_ACCESS_KEY"], "",
                                          std::nullopt, "environment"});
  o.sleep = [](core::Duration) {};  // retries against moto need no real wait
  auto session = aws::AwsSession::Create(std::move(o));
  if (!session.ok()) {
    ADD_FAILURE() << session.status().message();
    return nullptr;
  }
  return std::move(session).value();
}

// A VPC with one subnet in each of us-west-2a and us-west-2b and a security group "nodes", all
// tagged karpenter.sh/discovery=<discovery>, made with raw EC2 calls.
struct TestNetwork {
  std::string vpc, subnet_a, subnet_b, group;
};

inline TestNetwork MakeTestNetwork(aws::AwsSession& session, const std::string& discovery = "demo") {
  TestNetwork n;
  aws::QueryClient& q = session.ec2_query();
  auto vpc = q.Call("CreateVpc", aws::QueryParams().Add("CidrBlock", "10.1.0.0/16"));
  EXPECT_TRUE(vpc.ok()) << vpc.status().message();
  if (!vpc.ok()) return n;
  n.vpc = aws::ChildText(vpc->root.child("vpc"), "vpcId");
  int i = 0;
  for (const char* zone : {"us-west-2a", "us-west-2b"}) {
    auto s = q.Call("CreateSubnet", aws::QueryParams()
                                        .Add("VpcId", n.vpc)
                                        .Add("CidrBlock", "10.1." + std::to_string(i++) + ".0/24")
                                        .Add("AvailabilityZone", zone));
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return n;
    (std::string(zone) == "us-west-2a" ? n.subnet_a : n.subnet_b) =
        aws::ChildText(s->root.child("subnet"), "subnetId");
  }
  auto g = q.Call("CreateSecurityGroup", aws::QueryParams()
                                             .Add("GroupName", "nodes")
                                             .Add("GroupDescription", "node group")
                                             .Add("VpcId", n.vpc));
  EXPECT_TRUE(g.ok()) << g.status().message();
  if (!g.ok()) return n;
  n.group = aws::ChildText(g->root, "groupId");
  EXPECT_TRUE(session.ec2().CreateTags({n.subnet_a, n.subnet_b, n.group},
                                       {{"karpenter.sh/discovery", discovery}}).ok());
  return n;
}

// POSTs `body` to a route of moto_server.py's control endpoint.
inline void PostMotoControl(const std::string& route, const nlohmann::json& body) {
  std::map<std::string, std::string> vars = MotoEnvironment();
  aws::CurlHttpClient http;
  aws::HttpRequest r;
  r.method = "POST";
  r.url = vars["NODESMITH_MOTO_CONTROL"] + route;
  r.headers = {{"Content-Type", "application/json"}};
  r.body = body.dump();
  auto answer = http.Send(r);
  ASSERT_TRUE(answer.ok() && answer->status == 200)
      << "moto control " << r.url << ": " << (answer.ok() ? answer->body : answer.status().message());
}

// Puts an SSM parameter moto refuses through PutParameter (/aws/service/..., the AMI aliases)
// through moto_server.py's control endpoint.
inline void PutMotoParameter(const std::string& name, const std::string& value,
                             const std::string& region = "us-west-2") {
  PostMotoControl("/ssm-parameter", {{"name", name}, {"value", value}, {"region", region}});
}

// Makes moto refuse `action` with AWS error `code` (moto_server.py's /fault): only its dry runs
// when `dry_run` is true, only its real calls when false; `times` calls (every call when none);
// until the next reset.
inline void InjectMotoFault(const std::string& action, const std::string& code,
                            const std::string& message, std::optional<bool> dry_run = std::nullopt,
                            std::optional<int> times = std::nullopt) {
  nlohmann::json body = {{"action", action}, {"code", code}, {"message", message}};
  if (dry_run) body["dryRun"] = *dry_run;
  if (times) body["times"] = *times;
  PostMotoControl("/fault", body);
}

// Makes moto's instant fleets report `code` for every override of `instance_type` and launch
// nothing, as EC2 reports a capacity shortage; until the next reset.
inline void InjectMotoCapacityError(const std::string& instance_type,
                                    const std::string& code = "InsufficientInstanceCapacity") {
  PostMotoControl("/fault", {{"action", "CreateFleet"}, {"instanceType", instance_type}, {"code", code},
                             {"message", "We currently do not have sufficient " + instance_type +
                                             " capacity in the Availability Zone you requested."}});
}

// Empties moto (POST /moto-api/reset), so each test starts from moto's defaults.
inline void ResetMoto() {
  std::map<std::string, std::string> vars = MotoEnvironment();
  aws::CurlHttpClient http;
  aws::HttpRequest r;
  r.method = "POST";
  r.url = vars["AWS_ENDPOINT_URL"] + "/moto-api/reset";
  auto answer = http.Send(r);
  ASSERT_TRUE(answer.ok() && answer->status == 200) << "moto reset failed at " << r.url;
}

// moto's recorder: POST /moto-api/recorder/<verb> ("reset-recording", "start-recording",
// "stop-recording"), GET for "download-recording" (one JSON line per request).
inline std::string MotoRecorder(const std::string& verb) {
  aws::CurlHttpClient http;
  aws::HttpRequest r;
  r.method = verb == "download-recording" ? "GET" : "POST";
  r.url = MotoEnvironment()["AWS_ENDPOINT_URL"] + "/moto-api/recorder/" + verb;
  auto answer = http.Send(r);
  EXPECT_TRUE(answer.ok() && answer->status == 200) << r.url;
  return answer.ok() ? answer->body : "";
}

// The form bodies of the recorded requests for `action` (moto keeps them base64-encoded).
inline std::vector<std::string> RecordedBodies(const std::string& action) {
  std::vector<std::string> bodies;
  std::istringstream lines(MotoRecorder("download-recording"));
  std::string line;
  while (std::getline(lines, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("body") || !j["body"].is_string()) continue;
    std::string body = j["body"];
    if (j.value("body_encoded", false)) body = core::Base64Decode(body).value_or("");
    if (body.find("Action=" + action + "&") != std::string::npos) bodies.push_back(body);
  }
  return bodies;
}

// A role EC2 may assume, made with a raw CreateRole as a cluster's installer makes the node role.
inline void CreateMotoRole(aws::AwsSession& session, const std::string& name, const std::string& path = "/") {
  auto role = session.iam().Call(
      "CreateRole", aws::QueryParams()
                        .Add("RoleName", name)
                        .Add("Path", path)
                        .Add("AssumeRolePolicyDocument",
                             R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow",)"
                             R"("Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]})"));
  ASSERT_TRUE(role.ok()) << role.status().message();
}

// The value of `param` in a recorded form body, percent-decoded ("" when absent).
inline std::string FormValue(const std::string& body, const std::string& param) {
  size_t at = 0;
  while ((at = body.find(param + "=", at)) != std::string::npos && at != 0 && body[at - 1] != '&') ++at;
  if (at == std::string::npos) return "";
  at += param.size() + 1;
  const std::string raw = body.substr(at, body.find('&', at) - at);
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '%' && i + 2 < raw.size()) {
      out += static_cast<char>(std::stoi(raw.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += raw[i] == '+' ? ' ' : raw[i];
    }
  }
  return out;
}

}  // namespace nodesmith::testing
