// FieldHasher: a 64-bit FNV-1a hash over a sequence of text fields, each followed by a 0xff
// separator so ("ab", "c") and ("a", "bc") differ. Stable across processes and releases: its
// values are written into the cluster (NodePool and EC2NodeClass hash annotations) and name
// NodeClaims, so the offset basis and the separator must never change.
#pragma once

#include <cstdint>
#include <string_view>

namespace nodesmith::core {

class FieldHasher {
 public:
  FieldHasher& Add(std::string_view field) {
    for (unsigned char c : field) Mix(c);
    Mix(0xff);
    return *this;
  }
  uint64_t value() const { return h_; }

 private:
  void Mix(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ULL;
  }
  uint64_t h_ = 1469598103934665603ULL;
};

}  // namespace nodesmith::core
