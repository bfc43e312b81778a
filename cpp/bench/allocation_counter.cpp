#include "bench/allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#define QKV_COUNT_ALLOCATIONS 1
#else
#define QKV_COUNT_ALLOCATIONS 0
#endif

namespace qkv::allocation {
namespace {

std::atomic<std::uint64_t> live{0};
std::atomic<std::uint64_t> peak{0};

void* counted_allocation(std::size_t size) {
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
#if QKV_COUNT_ALLOCATIONS
  // The usable size, not the requested one: it is what delete can read back without a header.
  const std::uint64_t now = live.fetch_add(malloc_usable_size(block)) + malloc_usable_size(block);
  std::uint64_t high = peak.load();
  while (now > high && !peak.compare_exchange_weak(high, now)) {
  }
#endif
  return block;
}

void counted_release(void* block) {
  if (block == nullptr) return;
#if QKV_COUNT_ALLOCATIONS
  live.fetch_sub(malloc_usable_size(block));
#endif
  std::free(block);
}

}  // namespace

std::uint64_t live_bytes() { return live.load(); }
std::uint64_t peak_bytes() { return peak.load(); }
void reset_peak() { peak.store(live.load()); }

}  // namespace qkv::allocation

// The replaceable forms every other new/delete (nothrow, array, sized) forwards to in libstdc++; the
// aligned forms keep their own allocator and are not counted (the core does not use them).
void* operator new(std::size_t size) { return qkv::allocation::counted_allocation(size); }
void* operator new[](std::size_t size) { return qkv::allocation::counted_allocation(size); }
void operator delete(void* block) noexcept { qkv::allocation::counted_release(block); }
void operator delete[](void* block) noexcept { qkv::allocation::counted_release(block); }
void operator delete(void* block, std::size_t) noexcept { qkv::allocation::counted_release(block); }
void operator delete[](void* block, std::size_t) noexcept { qkv::allocation::counted_release(block); }
