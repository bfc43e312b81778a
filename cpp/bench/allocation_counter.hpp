// Allocation counter: replaces the global operator new/delete of the program it is linked into, to track
// the heap bytes live now and at their highest since the last reset (for benchmarks; glibc, and emmalloc in
// WebAssembly).
#pragma once

#include <cstdint>

namespace qkv::allocation {

// Usable bytes of every live operator-new block (0 where the counter cannot measure: other C libraries).
std::uint64_t live_bytes();
// The highest live_bytes() since the last reset_peak().
std::uint64_t peak_bytes();
// Starts a new peak from the current live bytes.
void reset_peak();

}  // namespace qkv::allocation
