#include "runtime/event_recorder.h"

#include <sstream>

namespace nodesmith::runtime {

std::vector<std::string> SplitFieldList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace nodesmith::runtime
