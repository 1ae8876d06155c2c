// SqsInterruptionQueue: the InterruptionQueue of EC2 — EventBridge notices (spot interruptions,
// rebalance recommendations, state changes, scheduled maintenance) from the SQS queue named by
// INTERRUPTION_QUEUE, as Karpenter's AWS provider reads them.
//
// A poller thread long-polls the queue (10 messages, 20 s wait, 20 s visibility) and keeps what
// arrives in a buffer, so Receive never blocks the runtime's thread for the 20 s a long poll
// takes; each body becomes InterruptionMessages whose id is the SQS receipt handle
// (aws_interruption_message.h). Delete removes the notice from SQS at once. A failed poll is
// kept as the error the next Receive returns (the queue was deleted, access was denied), and the
// poller tries again after a pause. Thread-safe. REQUIRES: the SqsClient outlives the queue.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "cloud/aws/sqs_client.h"
#include "cloud/interruption_queue.h"

namespace nodesmith::aws {

struct SqsInterruptionQueueOptions {
  std::string queue_name;               // INTERRUPTION_QUEUE
  ReceiveOptions receive;               // Karpenter's: 10, 20 s, 20 s
  core::Duration retry_after = std::chrono::seconds(5);  // after a failed poll
};

class SqsInterruptionQueue : public cloud::InterruptionQueue {
 public:
  SqsInterruptionQueue(SqsClient* sqs, SqsInterruptionQueueOptions options);
  ~SqsInterruptionQueue() override;  // stops the poller (within one long poll)

  // Starts the poller; the queue's URL is resolved first (an error when it does not exist).
  core::Status Start();

  core::Result<std::vector<cloud::InterruptionMessage>> Receive(int max_messages) override;
  core::Status Delete(const cloud::InterruptionMessage& message) override;
  std::string QueueName() const override { return options_.queue_name; }

  uint64_t polls() const { return polls_.load(); }

 private:
  void Poll();

  SqsClient* sqs_;
  SqsInterruptionQueueOptions options_;
  std::string url_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  std::deque<cloud::InterruptionMessage> buffer_;
  core::Status last_error_;
  bool stop_ = false;
  std::atomic<uint64_t> polls_{0};
  std::thread poller_;
};

}  // namespace nodesmith::aws
