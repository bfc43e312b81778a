// gemm: C = op(A) · op(B) on row-major doubles, blocked for the caches and vectorised across columns, with
// every element of C summed exactly as the naive loop sums it (so native and WebAssembly agree bit for bit).
#pragma once

#include <cstddef>
#include <optional>

namespace qkv {

struct CpuInfo;  // tensor/cpu.hpp

// Whether an operand is read as stored or as its transpose (never materialised).
enum class Transpose : bool { No, Yes };
// Whether C receives the product (C = P) or adds it (C = C + P, with P summed on its own first).
enum class Accumulate : bool { No, Yes };

// The operands of one product C [n, m] = op(A) [n, k] · op(B) [k, m]. A is stored [n, k], or [k, n] when
// transposed; B is stored [k, m], or [m, k] when transposed; C is stored [n, m]. All dense, row-major.
struct GemmArgs {
  std::size_t n = 0, m = 0, k = 0;
  const double* a = nullptr;
  Transpose a_layout = Transpose::No;
  const double* b = nullptr;
  Transpose b_layout = Transpose::No;
  double* c = nullptr;
  Accumulate accumulate = Accumulate::No;
};

// Instruction sets the blocked kernel is compiled for. All give the same bits.
enum class GemmPath {
  Portable,  // two-lane vectors: SSE2 natively, simd128 (or scalars) in WebAssembly
  Wide,      // four-lane AVX2, on x86-64 CPUs that have it
  Widest,    // eight-lane AVX-512F, on x86-64 CPUs that have it
};

// How the blocked kernel tiles a product. Every blocking gives the same bits (blocks only group independent
// elements of C, and the k-blocks of one sum run in ascending order); the blocking sets the speed only.
struct GemmBlocking {
  std::size_t depth = 0;       // k-block: a B micro-panel (depth x tile columns) stays in L1d
  std::size_t block_rows = 0;  // rows of op(A) packed at once (block_rows x depth), reused from L2
  std::size_t block_cols = 0;  // columns of op(B) packed at once (depth x block_cols)
};

// The register tile of `path`: rows x columns of C summed in registers.
struct GemmTile {
  std::size_t rows = 0, cols = 0;
};
GemmTile gemm_tile(GemmPath path);
// "portable", "avx2", "avx512f": the names QKV_GEMM_PATH takes.
const char* gemm_path_name(GemmPath path);

#if !defined(__EMSCRIPTEN__)
// Native only: WebAssembly's plan is fixed when it is compiled, and neither function below is built into it.
// The blocking for `path` on a core with `l1d_bytes` of L1 data cache and `l2_bytes` of L2: the k-block such
// that the 8 x 16 tile's A and B micro-panels fill L1d, the packed B block 40% of L2 and the packed A block
// 10% (on 48 KiB and 1.25 MiB: depth 256, 256 columns, 64 rows, the constants measured best there). With
// either size 0 (unknown): the fixed blocking the kernel had before it read the caches, which WebAssembly
// runs.
GemmBlocking gemm_blocking_for(GemmPath path, std::size_t l1d_bytes, std::size_t l2_bytes);

// A wide path chosen from the CPU's identity alone, and why (the reason ends in "(rule)").
struct GemmPathRule {
  GemmPath path = GemmPath::Portable;
  const char* reason = "";
};
// The table that decides between AVX2 and AVX-512F on a CPU with AVX-512F, by vendor, family and model (the
// figures it rests on are in gemm.cpp): AMD family 25 (Zen 4) -> AVX2; Intel server cores with two full
// 512-bit units (Ice Lake SP and later) -> AVX-512F. None for a CPU without AVX-512F (nothing to decide) or
// one the table does not know, where the plan times both paths.
std::optional<GemmPathRule> gemm_path_rule(const CpuInfo& cpu);
#endif

// What gemm() runs on this machine, chosen once, on first use, from cpu_info() (tensor/cpu.hpp): the widest
// path the CPU has, except that with AVX-512F the rule above decides, so that one machine always runs one
// path; only a CPU the table does not know has a product of the layer's kind timed on both wide paths
// (a few milliseconds) and AVX-512F taken when 10% faster: its 512-bit units are split in two on Zen 4 and
// slow the clock on some Xeons. The blocking comes from the cache sizes. The environment overrides each:
//   QKV_GEMM_PATH=portable|avx2|avx512f  forces a path (one the CPU lacks falls back to the widest below it);
//   QKV_GEMM_L1D=bytes, QKV_GEMM_L2=bytes  the cache sizes the blocking is derived from;
//   QKV_GEMM_BLOCKING=depth,rows,cols     the blocking itself (rounded up to whole tiles).
// None of them changes a bit of any result; they exist to measure, and to test every path and blocking.
// In WebAssembly the plan is a constant: the portable path (simd128 or scalars) with the fixed blocking.
struct GemmPlan {
  GemmPath path = GemmPath::Portable;
  GemmBlocking blocking;
  std::size_t l1d_bytes = 0, l2_bytes = 0;  // the sizes the blocking was derived from
  const char* reason = "";  // why this path: what the CPU has, the rule, what was measured, or QKV_GEMM_PATH
};
const GemmPlan& gemm_plan();

// Whether this CPU can run `path` (Portable always can).
bool gemm_path_supported(GemmPath path);
// The widest path this CPU supports.
GemmPath widest_gemm_path();
// The blocked kernel on `path` (an unsupported path falls back to the widest supported one below it), with
// `blocking` (rounded up to whole tiles; a zero field takes the plan's cache sizes' value).
void gemm_blocked(GemmPath path, const GemmBlocking& blocking, const GemmArgs& args);
// The blocked kernel on `path`, blocked for the plan's cache sizes.
void gemm_on(GemmPath path, const GemmArgs& args);
// The plan's path and blocking.
void gemm(const GemmArgs& args);

namespace reference {
// The naive loop every path must match: for each (i, j), sum = +0.0, then sum += A(i,p)·B(p,j) for
// p = 0, 1, ..., k-1, each product rounded before it is added.
void gemm(const GemmArgs& args);
}  // namespace reference

}  // namespace qkv
