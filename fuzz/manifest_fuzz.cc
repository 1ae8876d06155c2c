// LoadManifestsFromString: what `nodesmith plan -f` does with a file's text — documents, `kind:
// List` unpacking, legacy conversion, typed decoding, defaults and validation. Hostile input must
// end in a clean error Status (the CLI's exit code 2), never an abort, a hang or undefined
// behaviour; the sanitizers and libFuzzer's timeouts check that.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)nodesmith::api::LoadManifestsFromString(text, "fuzz.yaml");
  return 0;
}
