#include "solver/nodeclaim_name.h"

#include "core/field_hasher.h"

namespace nodesmith::solver {
namespace {

constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";

}  // namespace

std::string NodeClaimName(const std::string& node_pool, const std::vector<std::string>& pods,
                          uint64_t salt) {
  core::FieldHasher hasher;
  hasher.Add(node_pool);
  for (const auto& p : pods) hasher.Add(p);
  uint64_t h = hasher.Add(std::to_string(salt)).value();
  std::string suffix;
  constexpr uint64_t n = sizeof(kAlphabet) - 1;
  for (int i = 0; i < 5; ++i) {
    suffix += kAlphabet[h % n];
    h /= n;
  }
  return node_pool + "-" + suffix;
}

}  // namespace nodesmith::solver
