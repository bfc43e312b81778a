// NumpyLegacyRandom: MT19937 + 53-bit doubles + cached polar Box-Muller, in numpy's exact order.
#include "self_score/numpy_random.hpp"

#include <cmath>

#include "tensor/tensor.hpp"

namespace qkv {

std::string RandomError::message() const {
  switch (kind) {
    case RandomErrorKind::SeedOutOfRange:
      // The limit as people read it ("4,294,967,295"); the seed refused as it was given.
      return "seed must be between 0 and " + format_count(NumpyLegacyRandom::kMaxSeed) + ", got " +
             std::to_string(actual);
  }
  return "unknown random error";
}

Result<NumpyLegacyRandom, RandomError> NumpyLegacyRandom::seeded(std::int64_t seed) {
  if (seed < 0 || seed > kMaxSeed) return fail(RandomError{RandomErrorKind::SeedOutOfRange, seed});
  return NumpyLegacyRandom(static_cast<std::uint32_t>(seed));
}

Result<Unit, RandomError> NumpyLegacyRandom::reseed(std::int64_t seed) {
  auto fresh = seeded(seed);
  if (!fresh) return fail(fresh.error());
  *this = std::move(fresh).value();
  return Unit{};
}

// Matsumoto and Nishimura's init_genrand, which numpy's mt19937_seed implements for an integer seed.
// All arithmetic is on uint32_t, so the "& 0xffffffff" of the reference code is implicit.
NumpyLegacyRandom::NumpyLegacyRandom(std::uint32_t seed) {
  key_[0] = seed;
  for (std::size_t i = 1; i < kStateSize; ++i) {
    const std::uint32_t prev = key_[i - 1];
    key_[i] = 1812433253u * (prev ^ (prev >> 30)) + static_cast<std::uint32_t>(i);
  }
  pos_ = kStateSize;
}

// Regenerates all 624 words in place. Indices wrap modulo 624, so the last words read the already
// regenerated first ones, exactly as the reference's three-loop version does.
void NumpyLegacyRandom::twist() {
  constexpr std::size_t kShift = 397;
  constexpr std::uint32_t kMatrixA = 0x9908b0dfu;
  for (std::size_t i = 0; i < kStateSize; ++i) {
    const std::uint32_t y = (key_[i] & 0x80000000u) | (key_[(i + 1) % kStateSize] & 0x7fffffffu);
    key_[i] = key_[(i + kShift) % kStateSize] ^ (y >> 1) ^ ((y & 1u) ? kMatrixA : 0u);
  }
  pos_ = 0;
}

std::uint32_t NumpyLegacyRandom::next_uint32() {
  if (pos_ == kStateSize) twist();
  std::uint32_t y = key_[pos_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

double NumpyLegacyRandom::next_double() {
  // Two statements, not one expression: C++ leaves the order of operands of + unspecified, and the
  // first draw must supply the high 27 bits.
  const std::uint32_t high = next_uint32() >> 5;
  const std::uint32_t low = next_uint32() >> 6;
  return (high * 67108864.0 + low) / 9007199254740992.0;  // (high * 2^26 + low) / 2^53
}

double NumpyLegacyRandom::standard_normal() {
  if (has_gauss_) {
    has_gauss_ = false;
    const double cached = gauss_;
    gauss_ = 0.0;
    return cached;
  }
  // Draw points in the square [-1, 1)^2 until one lands strictly inside the unit circle (and is not the
  // centre, where log(r2) / r2 has no value).
  double x1 = 0.0;
  double x2 = 0.0;
  double r2 = 0.0;
  do {
    x1 = 2.0 * next_double() - 1.0;
    x2 = 2.0 * next_double() - 1.0;
    r2 = x1 * x1 + x2 * x2;
  } while (r2 >= 1.0 || r2 == 0.0);
  const double f = std::sqrt(-2.0 * std::log(r2) / r2);
  // numpy returns the x2 value now and keeps the x1 value for the next call.
  gauss_ = f * x1;
  has_gauss_ = true;
  return f * x2;
}

std::vector<double> NumpyLegacyRandom::randn(std::size_t count) {
  std::vector<double> out(count);
  for (double& value : out) value = standard_normal();
  return out;
}

}  // namespace qkv
