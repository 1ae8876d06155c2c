// ParseToml on arbitrary text: an EC2NodeClass's userData for the Bottlerocket family is TOML that
// the class's author writes, and nodesmith parses it to merge its own settings in
// (user_data.cc, BottlerocketUserData). Parsing must end in a table or a clean error, whatever
// the nesting. What parsed, written back with WriteToml, must parse to an equal table, and
// WriteToml must then write the same text again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cloud/aws/toml.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace aws = nodesmith::aws;
  using nodesmith::fuzz::Fail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = aws::ParseToml(text);
  if (!parsed.ok()) return 0;
  const std::string written = aws::WriteToml(*parsed);
  auto again = aws::ParseToml(written);
  if (!again.ok()) Fail("written TOML does not parse", again.status().message() + "\n" + written);
  if (*again != *parsed) Fail("written TOML parses differently", std::string(text) + "\n--- written:\n" + written);
  if (aws::WriteToml(*again) != written) Fail("written TOML is written differently", written);
  return 0;
}
