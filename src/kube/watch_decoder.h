// WatchDecoder: splits the body of a watch response — one JSON object per line,
// {"type": "ADDED", "object": {...}}, arriving in chunks that cut objects anywhere — into
// events. A frame that is not valid JSON or lacks a type is reported, not thrown. Frames are
// parsed by a JsonParser of the decoder's own (no document per value), so an event's object is
// a view valid only during the handler's call. Not thread-safe; one per stream.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "api/json_view.h"
#include "core/status.h"

namespace nodesmith::kube {

class WatchDecoder {
 public:
  // Called with each frame's "type" and "object". Returns false to stop decoding.
  using Handler = std::function<bool(std::string_view type, const api::JsonView& object)>;

  explicit WatchDecoder(Handler handler) : handler_(std::move(handler)) {}

  // Feeds one chunk. Returns false once the handler asked to stop or a frame was malformed
  // (then error() says why).
  bool Feed(std::string_view chunk);
  // Bytes of an unfinished frame still buffered.
  size_t buffered() const { return buffer_.size() - start_; }
  const core::Status& error() const { return error_; }

 private:
  bool Frame(std::string_view line);

  Handler handler_;
  api::JsonParser parser_;
  std::string buffer_;
  size_t start_ = 0;  // first byte of the unfinished frame in buffer_
  core::Status error_;
};

}  // namespace nodesmith::kube
