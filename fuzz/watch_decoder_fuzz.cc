// WatchDecoder on an arbitrary watch response body: the API server's (or whatever answers at its
// address) newline-delimited JSON events, cut into chunks wherever the network cut them. The first
// byte of the input picks a chunk size; the rest is the body. Fed whole and fed in chunks, the
// body must decode to the same events and end in the same state, and a malformed frame is an
// error, never an abort.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "kube/watch_decoder.h"

namespace {

struct Decoded {
  std::vector<std::pair<std::string, std::string>> events;  // type, object as compact JSON
  bool ok = true;                                           // every Feed returned true
  std::string error;
  size_t buffered = 0;

  bool operator==(const Decoded&) const = default;
};

Decoded Decode(std::string_view body, size_t chunk) {
  Decoded out;
  nodesmith::kube::WatchDecoder decoder([&](std::string_view type, const nodesmith::api::JsonView& object) {
    out.events.emplace_back(type, object.Dump());
    return true;
  });
  for (size_t at = 0; at < body.size() && out.ok; at += chunk) {
    out.ok = decoder.Feed(body.substr(at, chunk));
  }
  if (out.ok && !decoder.error().ok()) nodesmith::fuzz::Fail("an error without a false Feed", body);
  out.error = decoder.error().ok() ? "" : decoder.error().message();
  // After an error the decoder keeps what it had; only a healthy stream's leftover is compared.
  out.buffered = out.ok ? decoder.buffered() : 0;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = data[0] % 32 + 1;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Decoded whole = Decode(body, body.size() + 1);
  const Decoded cut = Decode(body, chunk);
  if (whole.events != cut.events) nodesmith::fuzz::Fail("chunking changes the events", body);
  if (whole.ok != cut.ok || whole.error != cut.error) nodesmith::fuzz::Fail("chunking changes the outcome", body);
  if (whole.buffered != cut.buffered) nodesmith::fuzz::Fail("chunking changes what is buffered", body);
  if (whole.ok) {
    // What stays buffered is exactly the text after the last newline.
    const size_t nl = body.rfind('\n');
    const size_t tail = nl == std::string_view::npos ? body.size() : body.size() - nl - 1;
    if (whole.buffered != tail) nodesmith::fuzz::Fail("buffered is not the unfinished frame", body);
  }
  return 0;
}
