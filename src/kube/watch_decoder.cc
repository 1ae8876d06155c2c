#include "kube/watch_decoder.h"

namespace nodesmith::kube {

bool WatchDecoder::Feed(std::string_view chunk) {
  if (!error_.ok()) return false;
  // Compact the buffer once the consumed prefix dominates, so long streams stay small.
  if (start_ > 0 && start_ * 2 > buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  size_t scan = buffer_.size();
  buffer_.append(chunk);
  while (true) {
    size_t nl = buffer_.find('\n', scan);
    if (nl == std::string::npos) return true;
    std::string_view line(buffer_.data() + start_, nl - start_);
    start_ = nl + 1;
    scan = start_;
    if (!line.empty() && line.find_first_not_of(" \t\r") != std::string_view::npos) {
      if (!Frame(line)) return false;
    }
  }
}

bool WatchDecoder::Frame(std::string_view line) {
  auto frame = parser_.Parse(line);
  const api::JsonView type = frame.ok() ? frame->Find("type") : api::JsonView();
  if (!type.is_string() || !frame->Contains("object")) {
    error_ = core::Status::Internal("malformed watch event from the API server: " +
                                    std::string(line.substr(0, 200)));
    return false;
  }
  return handler_(type.GetString(), frame->Find("object"));
}

}  // namespace nodesmith::kube
