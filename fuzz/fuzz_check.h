// What a fuzz target does when a property fails: abort, so that libFuzzer records the input as a
// crash and the replay driver's test fails. A clean error Status from a parser is never a failure;
// only a broken invariant (a round trip that does not come back equal) is.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace nodesmith::fuzz {

[[noreturn]] inline void Fail(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "fuzz invariant broken: %.*s: %.*s\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace nodesmith::fuzz
