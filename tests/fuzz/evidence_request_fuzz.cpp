// Fuzzes the evidence command from bytes: the same cli::evidence_from_text() the tool runs on what it
// read, then the same dump_line() it prints with. Any crash, sanitizer report or escaped exception is a
// finding; a rejected request is the expected outcome for almost every input.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/request.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string line = qkv::cli::dump_line(qkv::cli::evidence_from_text(text));
  if (line.empty() || line.back() != '\n') __builtin_trap();  // the tool always prints one line
  return 0;
}
