// Micro-benchmarks of the matmul kernel: the reference loop, each blocked path (kernel 1-3, each with the
// blocking derived from this machine's caches) and the plan gemm() runs (kernel 4), on the three products the
// Q/K/V layer runs (forward X·W, input gradient U·Wᵀ, weight gradient Xᵀ·U) at H = 64 and 768. The context
// records the CPU, its caches and the plan (machine.hpp). QKV_GEMM_PATH / _L1D / _L2 / _BLOCKING apply.
// cmake --build build/native --target qkv_micro_bench && taskset -c 0 build/native/qkv_micro_bench
#include <benchmark/benchmark.h>

#include <vector>

#include "machine.hpp"
#include "tensor/gemm.hpp"

namespace {

using qkv::Accumulate;
using qkv::GemmArgs;
using qkv::Transpose;

enum Kernel { kReference, kPortable, kWide, kWidest, kChosen };

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
  const qkv::GemmPath path = kernel == kChosen   ? qkv::gemm_plan().path
                             : kernel == kWidest ? qkv::GemmPath::Widest
                             : kernel == kWide   ? qkv::GemmPath::Wide
                                                 : qkv::GemmPath::Portable;
  if (kernel != kReference && !qkv::gemm_path_supported(path)) {
    state.SkipWithError("this CPU lacks the path's instruction set");
    return;
  }
  for (auto _ : state) {
    if (kernel == kReference) {
      qkv::reference::gemm(args);
    } else if (kernel == kChosen) {
      qkv::gemm(args);  // the plan's path and blocking, as the layer runs
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
  for (long kernel : {kReference, kPortable, kWide, kWidest, kChosen}) {
    for (long h : {64, 768}) {
      b->Args({1024, h, 768, 0, 0, kernel});  // forward: X [T, D] · W [D, H]
      b->Args({1024, 768, h, 0, 1, kernel});  // input gradient: U [T, H] · Wᵀ
      b->Args({768, h, 1024, 1, 0, kernel});  // weight gradient: Xᵀ · U [T, H]
    }
  }
}

BENCHMARK(BM_Gemm)->Apply(Shapes)->Unit(benchmark::kMillisecond);

}  // namespace

// The machine and the kernel's plan in the output's context (console header and JSON "context").
int main(int argc, char** argv) {
  for (const auto& [name, value] : qkv::bench::machine_fields()) benchmark::AddCustomContext(name, value);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
