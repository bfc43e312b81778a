// Micro-benchmarks of the matmul kernel: the reference loop and each blocked path, on the three products the
// Q/K/V layer runs (forward X·W, input gradient U·Wᵀ, weight gradient Xᵀ·U) and a square case.
// cmake --build build/native --target qkv_micro_bench && taskset -c 0 build/native/qkv_micro_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "tensor/gemm.hpp"

namespace {

using qkv::Accumulate;
using qkv::GemmArgs;
using qkv::Transpose;

enum Kernel { kReference, kPortable, kWide, kWidest };

// args: n, m, k, transpose A, transpose B, kernel.
void BM_Gemm(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto m = static_cast<std::size_t>(state.range(1));
  const auto k = static_cast<std::size_t>(state.range(2));
  std::vector<double> a(n * k), b(k * m), c(n * m);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 1.0 / static_cast<double>(i + 1);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 / static_cast<double>(i + 2);
  const GemmArgs args{n,
                      m,
                      k,
                      a.data(),
                      state.range(3) ? Transpose::Yes : Transpose::No,
                      b.data(),
                      state.range(4) ? Transpose::Yes : Transpose::No,
                      c.data(),
                      Accumulate::No};
  const auto kernel = static_cast<Kernel>(state.range(5));
  const qkv::GemmPath path = kernel == kWidest ? qkv::GemmPath::Widest
                             : kernel == kWide ? qkv::GemmPath::Wide
                                               : qkv::GemmPath::Portable;
  if (kernel != kReference && !qkv::gemm_path_supported(path)) {
    state.SkipWithError("this CPU lacks the path's instruction set");
    return;
  }
  for (auto _ : state) {
    if (kernel == kReference) {
      qkv::reference::gemm(args);
    } else {
      qkv::gemm_on(path, args);
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * static_cast<double>(n * m * k), benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}

// [1, 1024, 768] -> 64 and -> 768, per branch.
void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "m", "k", "ta", "tb", "kernel"});
  for (long kernel : {kReference, kPortable, kWide, kWidest}) {
    for (long h : {64, 768}) {
      b->Args({1024, h, 768, 0, 0, kernel});  // forward: X [T, D] · W [D, H]
      b->Args({1024, 768, h, 0, 1, kernel});  // input gradient: U [T, H] · Wᵀ
      b->Args({768, h, 1024, 1, 0, kernel});  // weight gradient: Xᵀ · U [T, H]
    }
  }
}

BENCHMARK(BM_Gemm)->Apply(Shapes)->Unit(benchmark::kMillisecond);

}  // namespace
