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
//   scratch as a double, and reloading a double is exact, so block 2 continues from block 1's value.
// - Packing copies operands into a cache-friendly order; copying is exact. Padding lanes compute values
//   that are never stored in C.
// - Products and sums are separate operations: -ffp-contract=off (set for the whole core) forbids fusing
//   them. SSE2, AVX2 (compiled without FMA) and simd128 have no fused multiply-add; AVX-512F has one, and
//   the flag is what keeps the compiler from using it. The bit-identity tests would see any fused sum.
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
typedef double Lanes8 __attribute__((vector_size(64)));

// The blocking of one instruction-set path. Any values give the same bits; these set the speed only.
//   Rows x Vecs vectors: the register tile of C (MR x NR, NR = Vecs lanes-wide vectors);
//   Depth: one k-block (a B micro-panel of Depth x NR doubles stays in L1);
//   BlockRows: rows of op(A) packed at once (BlockRows x Depth doubles, in L2);
//   BlockCols: columns of op(B) packed at once (Depth x BlockCols doubles, in L2).
template <class V, std::size_t Rows, std::size_t Vecs, std::size_t Depth, std::size_t BlockRows,
          std::size_t BlockCols>
struct Blocking {
  using Vector = V;
  static constexpr std::size_t kLanes = sizeof(V) / sizeof(double);
  static constexpr std::size_t kTileRows = Rows;
  static constexpr std::size_t kTileVecs = Vecs;
  static constexpr std::size_t kTileCols = Vecs * kLanes;
  static constexpr std::size_t kDepth = Depth;
  static constexpr std::size_t kBlockRows = BlockRows;
  static constexpr std::size_t kBlockCols = BlockCols;
  static_assert(BlockRows % Rows == 0 && BlockCols % (Vecs * (sizeof(V) / sizeof(double))) == 0);
};

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
  if (col_stride == 1 && count == width) {
    // Rows stored contiguously: read each row along p (sequential), write with stride `width`.
    for (std::size_t r = 0; r < count; ++r) {
      const double* row = from + r * row_stride;
      for (std::size_t p = 0; p < depth; ++p) out[p * width + r] = row[p];
    }
    return out + depth * width;
  }
  for (std::size_t p = 0; p < depth; ++p) {
    const double* column = from + p * col_stride;
    for (std::size_t r = 0; r < count; ++r) out[r] = column[r * row_stride];
    for (std::size_t r = count; r < width; ++r) out[r] = 0.0;
    out += width;
  }
  return out;
}

// Rows [row0, row0+rows) x depth [p0, p0+depth) of op(A), as panels of `width` rows.
QKV_INLINE void pack_left(double* out, Operand a, std::size_t row0, std::size_t rows, std::size_t p0,
                          std::size_t depth, std::size_t width) {
  for (std::size_t panel = 0; panel < rows; panel += width) {
    const std::size_t count = std::min(width, rows - panel);
    const double* from = a.data + (row0 + panel) * a.row_stride + p0 * a.col_stride;
    out = pack_panel(out, from, a.row_stride, a.col_stride, count, width, depth);
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

// One register tile: C[Rows x NR] (in the scratch, row stride ldc) += packed A panel · packed B panel over
// `depth` steps. Each lane's running sum gains one rounded product per step, in ascending p.
template <class K>
QKV_INLINE void tile(std::size_t depth, const double* a, const double* b, double* c, std::size_t ldc) {
  using V = typename K::Vector;
  constexpr std::size_t R = K::kTileRows, N = K::kTileVecs, L = K::kLanes;
  V sum[R][N];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < N; ++v) sum[r][v] = load<V>(c + r * ldc + v * L);
  for (std::size_t p = 0; p < depth; ++p) {
    V bv[N];
    for (std::size_t v = 0; v < N; ++v) bv[v] = load<V>(b + v * L);
    for (std::size_t r = 0; r < R; ++r) {
      const V ar = splat<V>(a[r]);
      for (std::size_t v = 0; v < N; ++v) sum[r][v] = sum[r][v] + ar * bv[v];
    }
    a += R;
    b += N * L;
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < N; ++v) store(c + r * ldc + v * L, sum[r][v]);
}

// At most this many bytes of running sums wait between k-blocks (the rows of a group below). Large enough
// that op(B)'s packing is shared by hundreds of rows; bounded, so that a tall, narrow product does not need
// a scratch many times the size of C.
constexpr std::size_t kSumsBytes = std::size_t{1} << 20;

// The blocked product. For each block of columns and each group of rows, the running sums live in a scratch
// (rows and columns padded to whole tiles) from +0.0 to the last k-block; each k-block's panel of op(B) is
// packed once and serves every row of the group.
template <class K>
QKV_INLINE void blocked_gemm(const GemmArgs& g) {
  constexpr std::size_t width = K::kTileCols;
  if (g.n == 0 || g.m == 0) return;
  const Operand a = left_operand(g);
  const Operand b = right_operand(g);
  const std::size_t block_rows = round_up(std::min(K::kBlockRows, g.n), K::kTileRows);
  const std::size_t block_cols = round_up(std::min(K::kBlockCols, g.m), width);
  // Rows per group: whole row blocks, as many as kSumsBytes holds, at least one block, no more than C has.
  const std::size_t group_cap = kSumsBytes / sizeof(double) / block_cols / K::kBlockRows * K::kBlockRows;
  const std::size_t group_rows = std::min(std::max(group_cap, K::kBlockRows), round_up(g.n, K::kTileRows));
  const std::size_t depth_max = std::min(K::kDepth, g.k);
  std::vector<double> packed_a(block_rows * depth_max);
  std::vector<double> packed_b(depth_max * block_cols);
  std::vector<double> sums(group_rows * block_cols);

  for (std::size_t col0 = 0; col0 < g.m; col0 += K::kBlockCols) {
    const std::size_t cols = std::min(K::kBlockCols, g.m - col0);
    const std::size_t ldc = round_up(cols, width);
    for (std::size_t group0 = 0; group0 < g.n; group0 += group_rows) {
      const std::size_t group_end = std::min(g.n, group0 + group_rows);
      std::fill(sums.begin(), sums.end(), 0.0);              // every sum starts at +0.0
      for (std::size_t p0 = 0; p0 < g.k; p0 += K::kDepth) {  // k-blocks in ascending order
        const std::size_t depth = std::min(K::kDepth, g.k - p0);
        pack_right(packed_b.data(), b, p0, depth, col0, cols, width);
        for (std::size_t row0 = group0; row0 < group_end; row0 += K::kBlockRows) {
          const std::size_t rows = std::min(K::kBlockRows, group_end - row0);
          pack_left(packed_a.data(), a, row0, rows, p0, depth, K::kTileRows);
          for (std::size_t jr = 0; jr < cols; jr += width) {
            for (std::size_t ir = 0; ir < rows; ir += K::kTileRows) {
              tile<K>(depth, packed_a.data() + ir * depth, packed_b.data() + jr * depth,
                      sums.data() + (row0 - group0 + ir) * ldc + jr, ldc);
            }
          }
        }
      }
      for (std::size_t i = group0; i < group_end; ++i) {
        double* out = g.c + i * g.m + col0;
        const double* sum = sums.data() + (i - group0) * ldc;
        if (g.accumulate == Accumulate::Yes) {
          for (std::size_t j = 0; j < cols; ++j) out[j] = out[j] + sum[j];
        } else {
          std::copy(sum, sum + cols, out);
        }
      }
    }
  }
}

using PortableBlocking = Blocking<Lanes2, 4, 2, 256, 64, 256>;
void gemm_portable(const GemmArgs& g) { blocked_gemm<PortableBlocking>(g); }

#if QKV_GEMM_HAS_WIDE
// The same template compiled for AVX2 (not FMA: products and sums stay separate operations). Six rows: twelve
// accumulators, two B vectors and a broadcast take fifteen of the sixteen registers.
using WideBlocking = Blocking<Lanes4, 6, 2, 256, 72, 256>;
__attribute__((target("avx2"))) void gemm_wide(const GemmArgs& g) { blocked_gemm<WideBlocking>(g); }

// And for AVX-512F, eight lanes: an 8 x 16 tile, sixteen accumulators of thirty-two registers. On Zen 4 a
// 512-bit operation is one instruction where AVX2 needs two, so the same arithmetic issues in half the
// instructions (measured: 70 GFLOP/s against AVX2's 41 on the layer's products).
using WidestBlocking = Blocking<Lanes8, 8, 2, 256, 64, 256>;
__attribute__((target("avx512f"))) void gemm_widest(const GemmArgs& g) { blocked_gemm<WidestBlocking>(g); }
#endif

}  // namespace

bool gemm_path_supported(GemmPath path) {
  switch (path) {
    case GemmPath::Portable:
      return true;
#if QKV_GEMM_HAS_WIDE
    case GemmPath::Wide: {
      static const bool avx2 = __builtin_cpu_supports("avx2");
      return avx2;
    }
    case GemmPath::Widest: {
      static const bool avx512f = __builtin_cpu_supports("avx512f");
      return avx512f;
    }
#endif
    default:
      return false;
  }
}

GemmPath widest_gemm_path() {
  for (GemmPath path : {GemmPath::Widest, GemmPath::Wide})
    if (gemm_path_supported(path)) return path;
  return GemmPath::Portable;
}

void gemm_on(GemmPath path, const GemmArgs& args) {
#if QKV_GEMM_HAS_WIDE
  if (path == GemmPath::Widest && gemm_path_supported(GemmPath::Widest)) return gemm_widest(args);
  if (path != GemmPath::Portable && gemm_path_supported(GemmPath::Wide)) return gemm_wide(args);
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
