#include "bench/allocation_counter.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#define QKV_COUNT_ALLOCATIONS 1
#elif defined(__EMSCRIPTEN__)
// emmalloc's malloc_usable_size did not give back at release what it gave at allocation (the live count
// went below zero), so in WebAssembly each block carries its size in a header of its own.
#define QKV_COUNT_ALLOCATIONS 1
#define QKV_SIZE_HEADER 1
#else
#define QKV_COUNT_ALLOCATIONS 0
#endif

#ifndef QKV_SIZE_HEADER
#define QKV_SIZE_HEADER 0
#endif

namespace qkv::allocation {
namespace {

std::atomic<std::uint64_t> live{0};
std::atomic<std::uint64_t> peak{0};

// Bytes in front of each block in WebAssembly: the block's size, padded to keep malloc's alignment.
constexpr std::size_t kHeader = QKV_SIZE_HEADER ? alignof(std::max_align_t) : 0;

void count_up(std::uint64_t bytes) {
  const std::uint64_t now = live.fetch_add(bytes) + bytes;
  std::uint64_t high = peak.load();
  while (now > high && !peak.compare_exchange_weak(high, now)) {
  }
}

void* counted_allocation(std::size_t size) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - kHeader) throw std::bad_alloc();
  void* block = std::malloc(size + kHeader);
  if (block == nullptr) throw std::bad_alloc();
#if QKV_SIZE_HEADER
  *static_cast<std::size_t*>(block) = size;
  count_up(size);
  return static_cast<char*>(block) + kHeader;
#else
#if QKV_COUNT_ALLOCATIONS
  // The usable size, not the requested one: it is what delete can read back without a header.
  count_up(malloc_usable_size(block));
#endif
  return block;
#endif
}

void counted_release(void* block) {
  if (block == nullptr) return;
#if QKV_SIZE_HEADER
  block = static_cast<char*>(block) - kHeader;
  live.fetch_sub(*static_cast<std::size_t*>(block));
#elif QKV_COUNT_ALLOCATIONS
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
