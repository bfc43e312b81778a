#include "text/template.hpp"

#include <cstddef>

namespace qkv {

std::string fill(const char* pattern, std::initializer_list<Slot> slots) {
  std::string out;
  for (const char* at = pattern; *at; ++at) {
    if (at[0] == '{' && at[1] >= '0' && at[1] <= '9' && at[2] == '}') {
      const auto slot = static_cast<std::size_t>(at[1] - '0');
      if (slot < slots.size()) {
        slots.begin()[slot].append_to(out);
        at += 2;
        continue;
      }
    }
    out += *at;
  }
  return out;
}

}  // namespace qkv
