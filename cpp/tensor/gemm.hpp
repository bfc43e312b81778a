// gemm: C = op(A) · op(B) on row-major doubles, blocked for the caches and vectorised across columns, with
// every element of C summed exactly as the naive loop sums it (so native and WebAssembly agree bit for bit).
#pragma once

#include <cstddef>

namespace qkv {

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

// Whether this CPU can run `path` (Portable always can).
bool gemm_path_supported(GemmPath path);
// The widest path this CPU supports: the one gemm() takes.
GemmPath widest_gemm_path();
// The blocked kernel on `path` (an unsupported path falls back to the widest supported one below it).
void gemm_on(GemmPath path, const GemmArgs& args);
// The blocked kernel on the widest path.
void gemm(const GemmArgs& args);

namespace reference {
// The naive loop every path must match: for each (i, j), sum = +0.0, then sum += A(i,p)·B(p,j) for
// p = 0, 1, ..., k-1, each product rounded before it is added.
void gemm(const GemmArgs& args);
}  // namespace reference

}  // namespace qkv
