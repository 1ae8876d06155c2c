// The test AWS endpoint as the *_moto_test suites see it: moto in server mode, started by the
// `moto` ctest fixture (scripts/testenv/moto start DIR). DIR comes from NODESMITH_MOTO_DIR, else
// the build's default. A missing or stopped moto fails the test with what to run; it never skips.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "cloud/aws/aws_session.h"
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

}  // namespace nodesmith::testing
