// The core's arithmetic peak, measured: register-only loops that do nothing but double-precision arithmetic,
// (a) a multiply and a separate add, each rounded, as the matmul kernel must (tensor/gemm.cpp), and (b) the
// fused multiply-add that OpenBLAS uses, on 256-bit (AVX2) and 512-bit (AVX-512F) vectors. Both count two
// flops per lane per step, so FMA / mul+add is how much faster a fused kernel can be at best: the bound on
// how close the bit-exact kernel can come to numpy + OpenBLAS where OpenBLAS runs near its peak.
// Each loop runs acc = acc·b + c on 12 (256-bit) or 16 (512-bit) independent accumulators, enough to cover
// the operations' latency, so the floating-point ports are the limit; the values converge to 2.0 (no
// subnormals, no infinities), from starting values unknown at compile time. A variant the CPU lacks is
// skipped. The mul+add loops compile to vmulpd + vaddpd, no vfmadd (-ffp-contract=off comes with qkv_core):
//   objdump -d --no-show-raw-insn -C build/native/qkv_peak_bench | grep -A60 'mul_add_512(long'
//   cmake --build build/native --target qkv_peak_bench && taskset -c 1 build/native/qkv_peak_bench
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tensor/cpu.hpp"

namespace {

constexpr long kSteps = 1 << 14;  // steps per benchmark iteration
constexpr int kAcc256 = 12;       // of 16 ymm registers: 12 accumulators, b and c
constexpr int kAcc512 = 16;       // of 32 zmm registers

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"  // no vector crosses a call: each loop returns a double
#endif

// One step acc·b + c on a 256- or 512-bit vector: a multiply and a separate add, each rounded, or fused.
// Each is compiled for the instruction set it needs; the loop below reaches them inline only through the
// flattened wrappers further down, which are compiled for the same set.
struct MulAdd {
  __attribute__((target("avx2"))) static __m256d step(__m256d a, __m256d b, __m256d c) {
    return _mm256_add_pd(_mm256_mul_pd(a, b), c);
  }
  __attribute__((target("avx512f"))) static __m512d step(__m512d a, __m512d b, __m512d c) {
    return _mm512_add_pd(_mm512_mul_pd(a, b), c);
  }
};
struct Fma {
  __attribute__((target("avx2,fma"))) static __m256d step(__m256d a, __m256d b, __m256d c) {
    return _mm256_fmadd_pd(a, b, c);
  }
  __attribute__((target("avx512f"))) static __m512d step(__m512d a, __m512d b, __m512d c) {
    return _mm512_fmadd_pd(a, b, c);
  }
};

template <class V>
constexpr int kLanes = sizeof(V) / sizeof(double);
template <class V>
constexpr int kAccumulators = kLanes<V> == 4 ? kAcc256 : kAcc512;

// Every lane set to x (GCC's vector subscripts: no instruction set of its own, so it inlines anywhere).
template <class V>
V broadcast(double x) {
  V v;
  for (int j = 0; j < kLanes<V>; ++j) v[j] = x;
  return v;
}

// acc = acc·b + c, steps times, on every accumulator; returns the sum of every lane of every accumulator (in
// the order the lanes lie in memory), so that no step is dead.
template <class V, class Op>
double peak_loop(long steps, double seed) {
  constexpr int n = kAccumulators<V>;
  const V b = broadcast<V>(0.5), c = broadcast<V>(1.0);
  V acc[n];
  for (int i = 0; i < n; ++i) acc[i] = broadcast<V>(seed + i);
  for (long s = 0; s < steps; ++s)
    for (int i = 0; i < n; ++i) acc[i] = Op::step(acc[i], b, c);
  double sum = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < kLanes<V>; ++j) sum += acc[i][j];
  return sum;
}

// The loop for each vector and step, compiled for the instruction set it needs; flatten inlines the loop and
// its step (a call per step would be the bottleneck).
__attribute__((target("avx2"), flatten)) double mul_add_256(long steps, double seed) {
  return peak_loop<__m256d, MulAdd>(steps, seed);
}
__attribute__((target("avx2,fma"), flatten)) double fma_256(long steps, double seed) {
  return peak_loop<__m256d, Fma>(steps, seed);
}
__attribute__((target("avx512f"), flatten)) double mul_add_512(long steps, double seed) {
  return peak_loop<__m512d, MulAdd>(steps, seed);
}
__attribute__((target("avx512f"), flatten)) double fma_512(long steps, double seed) {
  return peak_loop<__m512d, Fma>(steps, seed);
}

// One loop, its vectors' width in doubles and accumulators, and whether this CPU can run it.
struct Variant {
  double (*loop)(long, double);
  int lanes, accumulators;
  bool supported;
};

void BM_Peak(benchmark::State& state, Variant variant) {
  if (!variant.supported) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  // Starting values the compiler cannot see, so that it cannot fold a chain (2.0 would be a fixed point).
  double seed = 3.0;
  benchmark::DoNotOptimize(seed);
  for (auto _ : state) benchmark::DoNotOptimize(variant.loop(kSteps, seed));
  const double flops = 2.0 * kSteps * variant.accumulators * variant.lanes;  // a multiply and an add per lane
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

// The console table, then FMA / mul+add per width and for the best of each (the median of repetitions where
// there are repetitions, else the single run).
// Plain text (no colour codes): the reporter is built here, not from --benchmark_color / --benchmark_format.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& reports) override {
    ConsoleReporter::ReportRuns(reports);
    for (const Run& run : reports) {
      if (run.error_occurred || run.counters.count("GFLOP/s") == 0) continue;
      const bool aggregate = run.run_type == Run::RT_Aggregate;
      if (aggregate && run.aggregate_name != "median") continue;
      if (!aggregate && run.repetitions > 1) continue;
      peak_[run.run_name.function_name] = run.counters.at("GFLOP/s").value / 1e9;  // the counter is in flop/s
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    double best_fused = 0, best_separate = 0;
    for (const char* width : {"256", "512"}) {
      const double separate = get(std::string("peak_mul_add_") + width);
      const double fused = get(std::string("peak_fma_") + width);
      best_separate = std::max(best_separate, separate);
      best_fused = std::max(best_fused, fused);
      if (separate > 0 && fused > 0)
        std::printf("%s-bit: mul+add %.1f GFLOP/s, FMA %.1f GFLOP/s, FMA / mul+add %.2f\n", width, separate,
                    fused, fused / separate);
    }
    if (best_separate > 0 && best_fused > 0)
      std::printf("best: mul+add %.1f GFLOP/s, FMA %.1f GFLOP/s, FMA / mul+add %.2f\n", best_separate,
                  best_fused, best_fused / best_separate);
  }

 private:
  double get(const std::string& name) const {
    const auto found = peak_.find(name);
    return found == peak_.end() ? 0.0 : found->second;
  }
  std::map<std::string, double> peak_;
};

}  // namespace

int main(int argc, char** argv) {
  const qkv::CpuInfo& cpu = qkv::cpu_info();
  benchmark::AddCustomContext("cpu", cpu.vendor + " family " + std::to_string(cpu.family) + " model " +
                                         std::to_string(cpu.model) + ": " + cpu.model_name);
  benchmark::RegisterBenchmark("peak_mul_add_256", BM_Peak, Variant{mul_add_256, 4, kAcc256, cpu.avx2});
  benchmark::RegisterBenchmark("peak_fma_256", BM_Peak, Variant{fma_256, 4, kAcc256, cpu.avx2 && cpu.fma});
  benchmark::RegisterBenchmark("peak_mul_add_512", BM_Peak, Variant{mul_add_512, 8, kAcc512, cpu.avx512f});
  benchmark::RegisterBenchmark("peak_fma_512", BM_Peak, Variant{fma_512, 8, kAcc512, cpu.avx512f});
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
