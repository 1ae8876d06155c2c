#include "solver/nodeclaim_name.h"

namespace nodesmith::solver {
namespace {

constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
constexpr uint64_t kFnvOffset = 1469598103934665603ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

void Mix(uint64_t& h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  h ^= 0xff;  // separator, so ("ab","c") and ("a","bc") differ
  h *= kFnvPrime;
}

}  // namespace

std::string NodeClaimName(const std::string& node_pool, const std::vector<std::string>& pods,
                          uint64_t salt) {
  uint64_t h = kFnvOffset;
  Mix(h, node_pool);
  for (const auto& p : pods) Mix(h, p);
  Mix(h, std::to_string(salt));
  std::string suffix;
  constexpr uint64_t n = sizeof(kAlphabet) - 1;
  for (int i = 0; i < 5; ++i) {
    suffix += kAlphabet[h % n];
    h /= n;
  }
  return node_pool + "-" + suffix;
}

}  // namespace nodesmith::solver
