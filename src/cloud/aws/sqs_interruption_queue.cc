#include "cloud/aws/sqs_interruption_queue.h"

#include "cloud/aws_interruption_message.h"

namespace nodesmith::aws {

SqsInterruptionQueue::SqsInterruptionQueue(SqsClient* sqs, SqsInterruptionQueueOptions options)
    : sqs_(sqs), options_(std::move(options)) {}

SqsInterruptionQueue::~SqsInterruptionQueue() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

core::Status SqsInterruptionQueue::Start() {
  auto url = sqs_->GetQueueUrl(options_.queue_name);
  if (!url.ok()) return url.status().WithPrefix("interruption queue " + options_.queue_name);
  url_ = *url;
  poller_ = std::thread([this] { Poll(); });
  return core::Status::Ok();
}

void SqsInterruptionQueue::Poll() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    auto received = sqs_->ReceiveMessages(url_, options_.receive);
    ++polls_;
    std::unique_lock<std::mutex> lock(mu_);
    if (stop_) return;
    if (!received.ok()) {
      last_error_ = received.status().WithPrefix("interruption queue " + options_.queue_name);
      stop_cv_.wait_for(lock, options_.retry_after, [this] { return stop_; });
      continue;
    }
    last_error_ = core::Status::Ok();
    for (const SqsMessage& m : *received)
      for (cloud::InterruptionMessage& message : cloud::AwsInterruptionMessagesOrUnknown(m.body, m.receipt_handle))
        buffer_.push_back(std::move(message));
  }
}

core::Result<std::vector<cloud::InterruptionMessage>> SqsInterruptionQueue::Receive(int max_messages) {
  std::lock_guard<std::mutex> lock(mu_);
  if (buffer_.empty() && !last_error_.ok()) return last_error_;
  std::vector<cloud::InterruptionMessage> out;
  while (!buffer_.empty() && static_cast<int>(out.size()) < max_messages) {
    out.push_back(std::move(buffer_.front()));
    buffer_.pop_front();
  }
  return out;
}

core::Status SqsInterruptionQueue::Delete(const cloud::InterruptionMessage& message) {
  core::Status st = sqs_->DeleteMessage(url_, message.id);
  // A notice naming several instances arrives as several messages with one receipt handle; the
  // first delete removes it and the others find it gone.
  const std::string code = ErrorCodeOf(st);
  if (!st.ok() && (code == "ReceiptHandleIsInvalid" || code == "AWS.SimpleQueueService.NonExistentMessage"))
    return core::Status::Ok();
  return st;
}

}  // namespace nodesmith::aws
