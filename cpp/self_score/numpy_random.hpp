// NumpyLegacyRandom: numpy's legacy `np.random.seed(s)` + `np.random.randn(...)`, reproduced bit for bit.
//
// The lesson's seed module prints numbers drawn with numpy's global RandomState. To show the same
// matrices we replay its three layers exactly:
//   1. MT19937, seeded from a 32-bit integer with the reference init_genrand recurrence;
//   2. a 53-bit double in [0, 1) built from two 32-bit outputs (27 high bits, then 26);
//   3. the polar (Marsaglia) Box-Muller method, which makes two normals per accepted pair and caches
//      the second one for the next call, even across separate randn() calls.
// Only +, -, *, /, sqrt and log are used, in numpy's order, and -ffp-contract=off keeps the compiler
// from fusing them, so every step rounds as numpy's C code does. The one exception is log() itself,
// which comes from libm, as it does for numpy: glibc on a CPU with FMA uses a fused build that differs
// in the last bit for about one input in 10000. So numpy's own randn() differs between machines, and
// this class matches numpy on a machine whose log() agrees with ours: the native build with glibc
// matches numpy on the same machine; the WebAssembly build matches numpy on glibc without FMA.
// fixtures/numpy records both answers where they differ (see generate.py).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "support/result.hpp"

namespace qkv {

enum class RandomErrorKind { SeedOutOfRange };

struct RandomError {
  RandomErrorKind kind;
  std::int64_t actual;  // the rejected seed

  // "seed must be between 0 and 4294967295, got -1"
  std::string message() const;
};

class NumpyLegacyRandom {
 public:
  static constexpr std::int64_t kMaxSeed = 4294967295;  // numpy accepts integer seeds in [0, 2^32 - 1]

  // Same as `np.random.seed(seed)` on a fresh RandomState.
  static Result<NumpyLegacyRandom, RandomError> seeded(std::int64_t seed);

  // Same as `np.random.seed(seed)` on this generator: also drops any cached gaussian. A rejected seed
  // leaves the generator untouched.
  Result<Unit, RandomError> reseed(std::int64_t seed);

  // One tempered MT19937 output.
  std::uint32_t next_uint32();
  // numpy's random_sample(): a multiple of 2^-53 in [0, 1).
  double next_double();
  // numpy's legacy_gauss(): one standard normal draw.
  double standard_normal();
  // `np.random.randn(count)`; `randn(rows * cols)` is `randn(rows, cols)` in row-major order.
  std::vector<double> randn(std::size_t count);

 private:
  static constexpr std::size_t kStateSize = 624;

  explicit NumpyLegacyRandom(std::uint32_t seed);
  void twist();

  std::array<std::uint32_t, kStateSize> key_{};
  std::size_t pos_ = kStateSize;  // next key_ index to temper; kStateSize means "twist first"
  bool has_gauss_ = false;        // the polar method's second value is waiting in gauss_
  double gauss_ = 0.0;
};

}  // namespace qkv
