#include "tensor/gemm.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

// Why the blocked kernel gives the naive loop's bits. The naive loop forms each C(i,j) as
//   s = +0.0;  s = s + A(i,0)·B(0,j);  s = s + A(i,1)·B(1,j);  ...  in ascending p,
// rounding every product and every sum. The blocked kernel performs that very sequence for each element:
// - A vector lane holds one C(i,j) and nothing else: lanes never mix, so vectorising across columns only
//   runs several independent sequences side by side.
// - The k-sum is cut into blocks of kDepth, in ascending order. Between blocks the running sum waits in a
//   scratch tile as a double, and reloading a double is exact, so block 2 continues from block 1's value.
// - Packing copies operands into a cache-friendly order; copying is exact. Padding lanes compute values
//   that are never stored.
// - Products and sums are separate operations: -ffp-contract=off (set for the whole core) forbids fusing
//   them, and none of the instruction sets used here has a fused multiply-add enabled anyway.
// Wider registers, other block sizes or another compiler change speed, never the arithmetic.

namespace qkv {
namespace {

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define QKV_GEMM_HAS_WIDE 1
#else
#define QKV_GEMM_HAS_WIDE 0
#endif

#define QKV_INLINE inline __attribute__((always_inline))

#if defined(__GNUC__) && !defined(__clang__)
// The vector helpers below are always inlined, so no vector ever crosses a call: GCC's note that AVX
// vectors would be passed differently without AVX does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

// GCC/Clang vector extensions: arithmetic is per lane, IEEE binary64, as on scalars.
typedef double Lanes2 __attribute__((vector_size(16)));
typedef double Lanes4 __attribute__((vector_size(32)));

constexpr std::size_t kTileRows = 4;     // rows of C per register tile (MR)
constexpr std::size_t kDepth = 256;      // k-block: one B micro-panel (256 x 8 doubles) fits L1
constexpr std::size_t kBlockRows = 64;   // rows of A packed at once (64 x 256 doubles, in L2)
constexpr std::size_t kBlockCols = 256;  // columns of B packed at once (256 x 256 doubles)

std::size_t round_up(std::size_t value, std::size_t step) { return (value + step - 1) / step * step; }

// Element (row, col) of op(A) or op(B), whichever way it is stored.
struct Operand {
  const double* data;
  std::size_t row_stride;
  std::size_t col_stride;
  double at(std::size_t row, std::size_t col) const { return data[row * row_stride + col * col_stride]; }
};

Operand left_operand(const GemmArgs& g) {  // op(A) is [n, k]
  return g.a_layout == Transpose::No ? Operand{g.a, g.k, 1} : Operand{g.a, 1, g.n};
}
Operand right_operand(const GemmArgs& g) {  // op(B) is [k, m]
  return g.b_layout == Transpose::No ? Operand{g.b, g.m, 1} : Operand{g.b, 1, g.k};
}

// `count` rows of `depth` values of a strided operand, starting at `from`, interleaved: for each p, one
// value of every row side by side, then `width - count` padding zeros (rows past the matrix's end).
QKV_INLINE double* pack_panel(double* out, const double* from, std::size_t row_stride, std::size_t col_stride,
                              std::size_t count, std::size_t width, std::size_t depth) {
  for (std::size_t p = 0; p < depth; ++p) {
    const double* column = from + p * col_stride;
    for (std::size_t r = 0; r < count; ++r) out[r] = column[r * row_stride];
    for (std::size_t r = count; r < width; ++r) out[r] = 0.0;
    out += width;
  }
  return out;
}

// Rows [row0, row0+rows) x depth [p0, p0+depth) of op(A), as panels of kTileRows rows.
QKV_INLINE void pack_left(double* out, Operand a, std::size_t row0, std::size_t rows, std::size_t p0,
                          std::size_t depth) {
  for (std::size_t panel = 0; panel < rows; panel += kTileRows) {
    const std::size_t count = std::min(kTileRows, rows - panel);
    const double* from = a.data + (row0 + panel) * a.row_stride + p0 * a.col_stride;
    out = pack_panel(out, from, a.row_stride, a.col_stride, count, kTileRows, depth);
  }
}

// Depth [p0, p0+depth) x columns [col0, col0+cols) of op(B), as panels of `width` columns (the panel of
// op(B) is a panel of rows of op(B)ᵀ, so the same packing serves both).
QKV_INLINE void pack_right(double* out, Operand b, std::size_t p0, std::size_t depth, std::size_t col0,
                           std::size_t cols, std::size_t width) {
  for (std::size_t panel = 0; panel < cols; panel += width) {
    const std::size_t count = std::min(width, cols - panel);
    const double* from = b.data + p0 * b.row_stride + (col0 + panel) * b.col_stride;
    out = pack_panel(out, from, b.col_stride, b.row_stride, count, width, depth);
  }
}

template <class V>
QKV_INLINE V load(const double* from) {
  V v;
  std::memcpy(&v, from, sizeof v);
  return v;
}

template <class V>
QKV_INLINE void store(double* to, const V& v) {
  std::memcpy(to, &v, sizeof v);
}

template <class V>
QKV_INLINE V splat(double x) {
  V v;
  for (std::size_t lane = 0; lane < sizeof(V) / sizeof(double); ++lane) v[lane] = x;
  return v;
}

// One register tile: C[kTileRows x 2L] (in the scratch tile, row stride ldc) += packed A panel · packed B
// panel over `depth` steps. Each lane's running sum gains one rounded product per step, in ascending p.
template <class V>
QKV_INLINE void tile(std::size_t depth, const double* a, const double* b, double* c, std::size_t ldc) {
  constexpr std::size_t L = sizeof(V) / sizeof(double);
  V left[kTileRows], right[kTileRows];  // columns [0, L) and [L, 2L) of each row
  for (std::size_t r = 0; r < kTileRows; ++r) {
    left[r] = load<V>(c + r * ldc);
    right[r] = load<V>(c + r * ldc + L);
  }
  for (std::size_t p = 0; p < depth; ++p) {
    const V b0 = load<V>(b);
    const V b1 = load<V>(b + L);
    for (std::size_t r = 0; r < kTileRows; ++r) {
      const V ar = splat<V>(a[r]);
      left[r] = left[r] + ar * b0;
      right[r] = right[r] + ar * b1;
    }
    a += kTileRows;
    b += 2 * L;
  }
  for (std::size_t r = 0; r < kTileRows; ++r) {
    store(c + r * ldc, left[r]);
    store(c + r * ldc + L, right[r]);
  }
}

// The blocked product with vectors V (L lanes): register tiles of kTileRows x 2L.
template <class V>
QKV_INLINE void blocked_gemm(const GemmArgs& g) {
  constexpr std::size_t width = 2 * (sizeof(V) / sizeof(double));  // columns per register tile (NR)
  if (g.n == 0 || g.m == 0) return;
  const Operand a = left_operand(g);
  const Operand b = right_operand(g);
  const std::size_t block_rows = round_up(std::min(kBlockRows, g.n), kTileRows);
  const std::size_t block_cols = round_up(std::min(kBlockCols, g.m), width);
  const std::size_t depth_max = std::min(kDepth, g.k);
  std::vector<double> packed_a(block_rows * depth_max);
  std::vector<double> packed_b(depth_max * block_cols);
  // Running sums for one block of C, between k-blocks (rows and columns padded to whole tiles).
  std::vector<double> sums(block_rows * block_cols);

  for (std::size_t col0 = 0; col0 < g.m; col0 += kBlockCols) {
    const std::size_t cols = std::min(kBlockCols, g.m - col0);
    const std::size_t ldc = round_up(cols, width);
    for (std::size_t row0 = 0; row0 < g.n; row0 += kBlockRows) {
      const std::size_t rows = std::min(kBlockRows, g.n - row0);
      std::fill(sums.begin(), sums.end(), 0.0);           // every sum starts at +0.0
      for (std::size_t p0 = 0; p0 < g.k; p0 += kDepth) {  // k-blocks in ascending order
        const std::size_t depth = std::min(kDepth, g.k - p0);
        pack_right(packed_b.data(), b, p0, depth, col0, cols, width);
        pack_left(packed_a.data(), a, row0, rows, p0, depth);
        for (std::size_t jr = 0; jr < cols; jr += width) {
          for (std::size_t ir = 0; ir < rows; ir += kTileRows) {
            tile<V>(depth, packed_a.data() + ir * depth, packed_b.data() + jr * depth,
                    sums.data() + ir * ldc + jr, ldc);
          }
        }
      }
      for (std::size_t i = 0; i < rows; ++i) {
        double* out = g.c + (row0 + i) * g.m + col0;
        const double* sum = sums.data() + i * ldc;
        if (g.accumulate == Accumulate::Yes) {
          for (std::size_t j = 0; j < cols; ++j) out[j] = out[j] + sum[j];
        } else {
          std::copy(sum, sum + cols, out);
        }
      }
    }
  }
}

void gemm_portable(const GemmArgs& g) { blocked_gemm<Lanes2>(g); }

#if QKV_GEMM_HAS_WIDE
// The same template compiled for AVX2 (not FMA: products and sums stay separate operations).
__attribute__((target("avx2"))) void gemm_wide(const GemmArgs& g) { blocked_gemm<Lanes4>(g); }
#endif

}  // namespace

GemmPath widest_gemm_path() {
#if QKV_GEMM_HAS_WIDE
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2 ? GemmPath::Wide : GemmPath::Portable;
#else
  return GemmPath::Portable;
#endif
}

void gemm_on(GemmPath path, const GemmArgs& args) {
#if QKV_GEMM_HAS_WIDE
  if (path == GemmPath::Wide && widest_gemm_path() == GemmPath::Wide) return gemm_wide(args);
#endif
  (void)path;
  gemm_portable(args);
}

void gemm(const GemmArgs& args) { gemm_on(widest_gemm_path(), args); }

namespace reference {

void gemm(const GemmArgs& g) {
  const Operand a = left_operand(g);
  const Operand b = right_operand(g);
  for (std::size_t i = 0; i < g.n; ++i) {
    for (std::size_t j = 0; j < g.m; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < g.k; ++p) sum += a.at(i, p) * b.at(p, j);
      double& out = g.c[i * g.m + j];
      out = g.accumulate == Accumulate::Yes ? out + sum : sum;
    }
  }
}

}  // namespace reference
}  // namespace qkv
