// The machine a benchmark ran on, as name/value pairs: the CPU's identity, the instruction sets and caches
// the matmul kernel looks at, and the path and blocking it chose (tensor/gemm.hpp's plan). One list for both
// records: qkv_micro_bench's context and qkv-machine's JSON (which bench/core.mjs stores with its results).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tensor/cpu.hpp"
#include "tensor/gemm.hpp"

namespace qkv::bench {

inline std::vector<std::pair<std::string, std::string>> machine_fields() {
  const CpuInfo& cpu = cpu_info();
  const GemmPlan& plan = gemm_plan();
  const GemmTile tile = gemm_tile(plan.path);
  auto yes = [](bool flag) { return std::string(flag ? "yes" : "no"); };
  auto n = [](std::size_t value) { return std::to_string(value); };
  return {
      {"cpu_vendor", cpu.vendor},
      {"cpu_family", n(cpu.family)},
      {"cpu_model", n(cpu.model)},
      {"cpu_stepping", n(cpu.stepping)},
      {"cpu_model_name", cpu.model_name},
      {"cpu_avx2", yes(cpu.avx2)},
      {"cpu_avx512f", yes(cpu.avx512f)},
      {"cpu_fma", yes(cpu.fma)},
      {"l1d_bytes", n(cpu.l1d_bytes)},
      {"l2_bytes", n(cpu.l2_bytes)},
      {"l3_bytes", n(cpu.l3_bytes)},
      {"gemm_path", gemm_path_name(plan.path)},
      {"gemm_path_reason", plan.reason},
      {"gemm_tile", n(tile.rows) + "x" + n(tile.cols)},
      {"gemm_blocked_for_l1d_l2", n(plan.l1d_bytes) + "," + n(plan.l2_bytes)},
      {"gemm_depth", n(plan.blocking.depth)},
      {"gemm_block_rows", n(plan.blocking.block_rows)},
      {"gemm_block_cols", n(plan.blocking.block_cols)},
  };
}

}  // namespace qkv::bench
