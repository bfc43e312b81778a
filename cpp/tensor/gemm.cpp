#include "tensor/gemm.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tensor/cpu.hpp"

// Why the blocked kernel gives the naive loop's bits. The naive loop forms each C(i,j) as
//   s = +0.0;  s = s + A(i,0)·B(0,j);  s = s + A(i,1)·B(1,j);  ...  in ascending p,
// rounding every product and every sum. The blocked kernel performs that very sequence for each element:
// - A vector lane holds one C(i,j) and nothing else: lanes never mix, so vectorising across columns only
//   runs several independent sequences side by side.
// - The k-sum is cut into blocks of `depth`, in ascending order. Between blocks the running sum waits in a
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

#if defined(__GNUC__)
// The vector helpers below are always inlined, so no vector ever crosses a call: GCC's and Clang's note
// (the fuzz build's) that AVX vectors would be passed differently without AVX does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

// GCC/Clang vector extensions: arithmetic is per lane, IEEE binary64, as on scalars.
typedef double Lanes2 __attribute__((vector_size(16)));
typedef double Lanes4 __attribute__((vector_size(32)));
typedef double Lanes8 __attribute__((vector_size(64)));

// The register tile of one instruction-set path: Rows x Vecs vectors of C (MR x NR, NR = Vecs vectors of
// kLanes doubles). The cache blocking around it is chosen at run time (GemmBlocking).
template <class V, std::size_t Rows, std::size_t Vecs>
struct Tile {
  using Vector = V;
  static constexpr std::size_t kLanes = sizeof(V) / sizeof(double);
  static constexpr std::size_t kTileRows = Rows;
  static constexpr std::size_t kTileVecs = Vecs;
  static constexpr std::size_t kTileCols = Vecs * kLanes;
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
// value of every row side by side, then `width - count` padding zeros (rows past the matrix's end). All
// `width` rows advance along p together: as many memory streams in flight, where one row at a time waited
// on each of its lines.
template <std::size_t width>
QKV_INLINE double* interleave_rows(double* out, const double* from, std::size_t row_stride,
                                   std::size_t col_stride, std::size_t count, std::size_t depth) {
  for (std::size_t p = 0; p < depth; ++p) {
    for (std::size_t r = 0; r < count; ++r) out[r] = from[r * row_stride + p * col_stride];
    for (std::size_t r = count; r < width; ++r) out[r] = 0.0;
    out += width;
  }
  return out;
}

// The same loop, with a full panel and a stride of 1 passed as constants where an operand has them: inlined,
// the compiler then sees a fixed count and contiguous values (a vector move per p where the rows' values
// for one p lie side by side).
template <std::size_t width>
QKV_INLINE double* pack_panel(double* out, const double* from, std::size_t row_stride, std::size_t col_stride,
                              std::size_t count, std::size_t depth) {
  if (count == width && col_stride == 1)
    return interleave_rows<width>(out, from, row_stride, 1, width, depth);
  if (count == width && row_stride == 1)
    return interleave_rows<width>(out, from, 1, col_stride, width, depth);
  return interleave_rows<width>(out, from, row_stride, col_stride, count, depth);
}

// Rows [row0, row0+rows) x depth [p0, p0+depth) of op(A), as panels of `width` rows.
template <std::size_t width>
QKV_INLINE void pack_left(double* out, Operand a, std::size_t row0, std::size_t rows, std::size_t p0,
                          std::size_t depth) {
  for (std::size_t panel = 0; panel < rows; panel += width) {
    const std::size_t count = std::min(width, rows - panel);
    const double* from = a.data + (row0 + panel) * a.row_stride + p0 * a.col_stride;
    out = pack_panel<width>(out, from, a.row_stride, a.col_stride, count, depth);
  }
}

// Depth [p0, p0+depth) x columns [col0, col0+cols) of op(B), as panels of `width` columns (the panel of
// op(B) is a panel of rows of op(B)ᵀ, so the same packing serves both).
template <std::size_t width>
QKV_INLINE void pack_right(double* out, Operand b, std::size_t p0, std::size_t depth, std::size_t col0,
                           std::size_t cols) {
  for (std::size_t panel = 0; panel < cols; panel += width) {
    const std::size_t count = std::min(width, cols - panel);
    const double* from = b.data + p0 * b.row_stride + (col0 + panel) * b.col_stride;
    out = pack_panel<width>(out, from, b.col_stride, b.row_stride, count, depth);
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

// One value of the packed A panel in every lane. By default a vector built from the scalar; on the wide paths
// an explicit broadcast from memory, which the core runs on a load port: built from scalars, GCC loads the
// tile's eight A values as one vector and spreads them with permutes, which compete with the multiplies
// and adds for the vector ports.
template <class V>
QKV_INLINE V splat_from(const double* from) {
  return splat<V>(*from);
}
#if QKV_GEMM_HAS_WIDE && !defined(__clang__)
template <>
QKV_INLINE Lanes8 splat_from<Lanes8>(const double* from) {
  Lanes8 v;
  asm("vbroadcastsd %1, %0" : "=v"(v) : "m"(*from));
  return v;
}
template <>
QKV_INLINE Lanes4 splat_from<Lanes4>(const double* from) {
  Lanes4 v;
  asm("vbroadcastsd %1, %0" : "=x"(v) : "m"(*from));
  return v;
}
#endif

// One register tile: C[Rows x NR] (in the scratch, row stride ldc) += packed A panel · packed B panel over
// `depth` steps. Each lane's running sum gains one rounded product per step, in ascending p. In the first
// k-block the sums start at +0.0 in registers (the scratch holds nothing yet); later ones continue from it.
template <class K>
QKV_INLINE void tile(std::size_t depth, const double* a, const double* b, double* c, std::size_t ldc,
                     bool first) {
  using V = typename K::Vector;
  constexpr std::size_t R = K::kTileRows, N = K::kTileVecs, L = K::kLanes;
  V sum[R][N];
  if (first) {
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t v = 0; v < N; ++v) sum[r][v] = V{};  // +0.0, as the naive loop starts
  } else {
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t v = 0; v < N; ++v) sum[r][v] = load<V>(c + r * ldc + v * L);
  }
#if QKV_GEMM_HAS_WIDE && !defined(__clang__)
  // Two steps per pass: half the loop's counter updates and branches, which share ports with the vector
  // units (+4-13% on every product with GCC on AVX-512F; four steps gained nothing more). Native GCC only:
  // Clang and WebAssembly keep their own unrolling.
#pragma GCC unroll 2
#endif
  for (std::size_t p = 0; p < depth; ++p) {
    V bv[N];
    for (std::size_t v = 0; v < N; ++v) bv[v] = load<V>(b + v * L);
    for (std::size_t r = 0; r < R; ++r) {
      const V ar = splat_from<V>(a + r);
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

// The running sums of the tile after (ir, jr) in blocked_gemm's order (down the rows, then the next
// column panel), on their way into the cache while this tile runs. Nothing after the last tile.
template <class K>
QKV_INLINE void prefetch_next_tile(const double* block_sums, std::size_t ir, std::size_t jr, std::size_t rows,
                                   std::size_t cols, std::size_t ldc) {
  constexpr std::size_t width = K::kTileCols, line = 64 / sizeof(double);
  const double* next = nullptr;
  if (ir + K::kTileRows < rows) {
    next = block_sums + (ir + K::kTileRows) * ldc + jr;
  } else if (jr + width < cols) {
    next = block_sums + jr + width;
  } else {
    return;
  }
  for (std::size_t r = 0; r < K::kTileRows; ++r)
    for (std::size_t col = 0; col < width; col += line) __builtin_prefetch(next + r * ldc + col, 1);
}

// The blocked product. For each block of columns and each group of rows, the running sums live in a scratch
// (rows and columns padded to whole tiles) from +0.0 to the last k-block; each k-block's panel of op(B) is
// packed once and serves every row of the group.
template <class K>
QKV_INLINE void blocked_gemm(const GemmBlocking& blocking, const GemmArgs& g) {
  constexpr std::size_t width = K::kTileCols;
  if (g.n == 0 || g.m == 0) return;
  if (g.k == 0) {  // no k-block: every sum stays +0.0
    for (std::size_t i = 0; i < g.n * g.m; ++i) g.c[i] = g.accumulate == Accumulate::Yes ? g.c[i] + 0.0 : 0.0;
    return;
  }
  const Operand a = left_operand(g);
  const Operand b = right_operand(g);
  const std::size_t depth_step = blocking.depth, row_step = blocking.block_rows,
                    col_step = blocking.block_cols;
  const std::size_t block_rows = round_up(std::min(row_step, g.n), K::kTileRows);
  const std::size_t block_cols = round_up(std::min(col_step, g.m), width);
  // Rows per group: whole row blocks, as many as kSumsBytes holds, at least one block, no more than C has.
  const std::size_t group_cap = kSumsBytes / sizeof(double) / block_cols / row_step * row_step;
  const std::size_t group_rows = std::min(std::max(group_cap, row_step), round_up(g.n, K::kTileRows));
  const std::size_t depth_max = std::min(depth_step, g.k);
  // One allocation for the three buffers, each starting on a 64-byte cache line: a vector that straddles
  // two lines costs two loads, and malloc's large blocks start 16 bytes past a page boundary.
  constexpr std::size_t line = 64 / sizeof(double);
  const std::size_t a_size = round_up(block_rows * depth_max, line),
                    b_size = round_up(depth_max * block_cols, line);
  std::vector<double> scratch(a_size + b_size + group_rows * block_cols + line);
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(scratch.data()) / sizeof(double) % line;
  double* const packed_a = scratch.data() + (line - misalign) % line;
  double* const packed_b = packed_a + a_size;
  double* const sums = packed_b + b_size;

  for (std::size_t col0 = 0; col0 < g.m; col0 += col_step) {
    const std::size_t cols = std::min(col_step, g.m - col0);
    const std::size_t ldc = round_up(cols, width);
    for (std::size_t group0 = 0; group0 < g.n; group0 += group_rows) {
      const std::size_t group_end = std::min(g.n, group0 + group_rows);
      for (std::size_t p0 = 0; p0 < g.k; p0 += depth_step) {  // k-blocks in ascending order
        const std::size_t depth = std::min(depth_step, g.k - p0);
        pack_right<width>(packed_b, b, p0, depth, col0, cols);
        for (std::size_t row0 = group0; row0 < group_end; row0 += row_step) {
          const std::size_t rows = std::min(row_step, group_end - row0);
          pack_left<K::kTileRows>(packed_a, a, row0, rows, p0, depth);
          double* const block_sums = sums + (row0 - group0) * ldc;
          for (std::size_t jr = 0; jr < cols; jr += width) {
            for (std::size_t ir = 0; ir < rows; ir += K::kTileRows) {
              prefetch_next_tile<K>(block_sums, ir, jr, rows, cols, ldc);
              tile<K>(depth, packed_a + ir * depth, packed_b + jr * depth, block_sums + ir * ldc + jr, ldc,
                      p0 == 0);
            }
          }
          if (p0 + depth == g.k) {  // the last k-block: these rows' sums are complete, and still cached
            for (std::size_t i = row0; i < row0 + rows; ++i) {
              double* out = g.c + i * g.m + col0;
              const double* sum = sums + (i - group0) * ldc;
              if (g.accumulate == Accumulate::Yes) {
                for (std::size_t j = 0; j < cols; ++j) out[j] = out[j] + sum[j];
              } else {
                std::copy(sum, sum + cols, out);
              }
            }
          }
        }
      }
    }
  }
}

using PortableTile = Tile<Lanes2, 4, 2>;
void gemm_portable(const GemmBlocking& k, const GemmArgs& g) { blocked_gemm<PortableTile>(k, g); }

#if QKV_GEMM_HAS_WIDE
// The same template compiled for AVX2 (not FMA: products and sums stay separate operations). Six rows: twelve
// accumulators, two B vectors and a broadcast take fifteen of the sixteen registers.
using WideTile = Tile<Lanes4, 6, 2>;
__attribute__((target("avx2"))) void gemm_wide(const GemmBlocking& k, const GemmArgs& g) {
  blocked_gemm<WideTile>(k, g);
}

// And for AVX-512F, eight lanes: an 8 x 16 tile, sixteen accumulators of thirty-two registers. Where the
// 512-bit units are full width (Intel Xeon; AMD Zen 5) this does twice AVX2's arithmetic per instruction;
// Zen 4 (AMD family 25) splits each 512-bit operation into two 256-bit halves, so there it gains nothing.
// Larger tiles that also fit the registers (12 x 16, 14 x 16, 6 x 32, 8 x 24) ran no faster on Ice Lake SP
// at the layer's shapes (within the shared machine's noise, 2026-12-02).
using WidestTile = Tile<Lanes8, 8, 2>;
__attribute__((target("avx512f"))) void gemm_widest(const GemmBlocking& k, const GemmArgs& g) {
  blocked_gemm<WidestTile>(k, g);
}
#endif

}  // namespace

bool gemm_path_supported(GemmPath path) {
  switch (path) {
    case GemmPath::Portable:
      return true;
    case GemmPath::Wide:
      return QKV_GEMM_HAS_WIDE && cpu_info().avx2;
    case GemmPath::Widest:
      return QKV_GEMM_HAS_WIDE && cpu_info().avx512f;
  }
  return false;
}

GemmPath widest_gemm_path() {
  for (GemmPath path : {GemmPath::Widest, GemmPath::Wide})
    if (gemm_path_supported(path)) return path;
  return GemmPath::Portable;
}

const char* gemm_path_name(GemmPath path) {
  switch (path) {
    case GemmPath::Wide:
      return "avx2";
    case GemmPath::Widest:
      return "avx512f";
    case GemmPath::Portable:
      break;
  }
  return "portable";
}

GemmTile gemm_tile(GemmPath path) {
  switch (path) {
#if QKV_GEMM_HAS_WIDE
    case GemmPath::Wide:
      return {WideTile::kTileRows, WideTile::kTileCols};
    case GemmPath::Widest:
      return {WidestTile::kTileRows, WidestTile::kTileCols};
#endif
    default:
      return {PortableTile::kTileRows, PortableTile::kTileCols};
  }
}

namespace {

// The constants sized for a 48 KiB L1d and a 1.25 MiB L2 before the caches were read (and what WebAssembly,
// which cannot see the caches, keeps).
constexpr GemmBlocking fixed_blocking(std::size_t tile_rows) {
  return {256, tile_rows == 6 ? std::size_t{72} : 64, 256};
}

}  // namespace

#if !defined(__EMSCRIPTEN__)
GemmBlocking gemm_blocking_for(GemmPath path, std::size_t l1d_bytes, std::size_t l2_bytes) {
  const GemmTile tile = gemm_tile(path);
  if (l1d_bytes == 0 || l2_bytes == 0) return fixed_blocking(tile.rows);
  const std::size_t d = sizeof(double);
  auto down = [](std::size_t value, std::size_t step) { return std::max(step, value / step * step); };
  // The k-block: the widest tile's A and B micro-panels ((8 + 16) x depth) fill L1d: 256 on 48 KiB, where
  // it was measured best (wider or narrower panels ran 5-15% slower on Ice Lake; with the faster kernel of
  // 2026-12-02, depth 128 and 192 still ran 2-10% slower and 320 the same), 168 on Zen 4's 32 KiB.
  // Every path takes the same depth; the narrower ones' panels leave more of L1d free.
  const std::size_t depth = std::clamp<std::size_t>(down(l1d_bytes / (d * (8 + 16)), 8), 16, 1024);
  // The packed B block takes 40% of L2 (256 columns of depth 256 on 1.25 MiB), the packed A block 10%; the
  // rest holds the running sums of the rows in flight and what streams past.
  const std::size_t block_cols = down(l2_bytes * 2 / 5 / (d * depth), tile.cols);
  const std::size_t block_rows = down(l2_bytes / 10 / (d * depth), tile.rows);
  return {depth, block_rows, block_cols};
}

// The table's figures: qkv_micro_bench, kernels 2 and 3 (taskset -c 1, medians of 3), on the layer's three
// products at [1,1024,768] -> 64 and -> 768, GFLOP/s AVX2 / AVX-512F, on an Intel Xeon, family 6 model 106
// (Ice Lake SP), 2026-12-01: 14.0/18.9, 11.5/17.3, 13.3/18.1, 15.0/23.1, 16.1/20.6, 16.8/21.5 (AVX-512F
// 26-55% faster on every product). The later Xeons (Sapphire, Emerald, Granite Rapids) keep its two
// full-width 512-bit units per core. Not in the table, so timed: Skylake-SP and Cascade Lake (model 85: one
// 512-bit unit on some parts, a deep clock drop), client cores with one 512-bit unit (Ice Lake, Tiger Lake,
// Rocket Lake), AMD family 26 (Zen 5: full width on desktop and server parts, split on mobile ones), and
// every other vendor.
std::optional<GemmPathRule> gemm_path_rule(const CpuInfo& cpu) {
  if (!cpu.avx512f || !cpu.avx2) return std::nullopt;
  if (cpu.vendor == "AuthenticAMD" && cpu.family == 25)
    return GemmPathRule{GemmPath::Wide, "avx2: AMD family 25, Zen 4 splits 512-bit operations in two (rule)"};
  if (cpu.vendor == "GenuineIntel" && cpu.family == 6) {
    for (unsigned model : {106u, 143u, 207u, 173u}) {  // Ice Lake SP, Sapphire, Emerald, Granite Rapids
      if (cpu.model == model)
        return GemmPathRule{GemmPath::Widest,
                            "avx512f: Intel family 6, a Xeon with two full-width 512-bit units (rule)"};
    }
  }
  return std::nullopt;
}
#endif

namespace {

// `path` (or the widest supported one below it) with `k`, rounded up to whole tiles.
void run_blocked(GemmPath path, GemmBlocking k, const GemmArgs& args) {
  while (!gemm_path_supported(path)) path = static_cast<GemmPath>(static_cast<int>(path) - 1);
  const GemmTile tile = gemm_tile(path);
  k.block_rows = round_up(k.block_rows, tile.rows);
  k.block_cols = round_up(k.block_cols, tile.cols);
#if QKV_GEMM_HAS_WIDE
  if (path == GemmPath::Widest) return gemm_widest(k, args);
  if (path == GemmPath::Wide) return gemm_wide(k, args);
#endif
  gemm_portable(k, args);
}

#if !defined(__EMSCRIPTEN__)
std::size_t env_size(const char* name) {
  const char* text = std::getenv(name);
  return text == nullptr ? 0 : static_cast<std::size_t>(std::strtoull(text, nullptr, 10));
}
#endif

#if QKV_GEMM_HAS_WIDE
// The faster of two paths on a product of the layer's kind ([192, 768] · [768, 64], 19 MFLOP, about a
// millisecond), each with its own blocking: three alternating runs each, the fastest run of each compared.
// `wider` must win by 10% to be chosen. The choice changes speed only, never a bit of any result.
GemmPath measure_faster(GemmPath narrower, GemmPath wider, const GemmPlan& plan, char* note,
                        std::size_t size) {
  const std::size_t n = 192, m = 64, k = 768;
  std::vector<double> a(n * k), b(k * m), c(n * m);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 1.0 / static_cast<double>(i + 1);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 1.0 / static_cast<double>(i + 2);
  const GemmArgs args{n, m, k, a.data(), Transpose::No, b.data(), Transpose::No, c.data(), Accumulate::No};
  double best[2] = {1e30, 1e30};
  const GemmPath paths[2] = {narrower, wider};
  for (int round = 0; round < 4; ++round) {  // round 0 warms up (pages, caches, the wide units' clock)
    for (int which = 0; which < 2; ++which) {
      const GemmBlocking blocking = gemm_blocking_for(paths[which], plan.l1d_bytes, plan.l2_bytes);
      const auto start = std::chrono::steady_clock::now();
      run_blocked(paths[which], blocking, args);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      if (round > 0) best[which] = std::min(best[which], took.count());
    }
  }
  const GemmPath chosen = best[1] * 1.1 < best[0] ? wider : narrower;
  std::snprintf(
      note, size, "%s: measured %s %.3f ms, %s %.3f ms on 192x64x768 (no rule; wider must win by 10%%)",
      gemm_path_name(chosen), gemm_path_name(narrower), best[0] * 1e3, gemm_path_name(wider), best[1] * 1e3);
  return chosen;
}
#endif

#if defined(__EMSCRIPTEN__)
// WebAssembly sees neither the caches nor the environment, and has one vector width (QKV_GEMM_HAS_WIDE is 0):
// a constant plan, and none of the reading, parsing and timing below, nor a string or a first-use guard,
// which would only add to the module learners download.
constexpr GemmPlan kPlan{GemmPath::Portable, fixed_blocking(PortableTile::kTileRows), 0, 0,
                         "webassembly: the fixed blocking"};

// Every path runs the portable kernel here, with the plan's blocking.
GemmBlocking plan_blocking(GemmPath) { return kPlan.blocking; }
#else
GemmPlan choose_plan() {
  const CpuInfo& cpu = cpu_info();
  GemmPlan plan;
  plan.l1d_bytes = env_size("QKV_GEMM_L1D") != 0 ? env_size("QKV_GEMM_L1D") : cpu.l1d_bytes;
  plan.l2_bytes = env_size("QKV_GEMM_L2") != 0 ? env_size("QKV_GEMM_L2") : cpu.l2_bytes;
  plan.path = widest_gemm_path();
  plan.reason = plan.path == GemmPath::Widest ? "avx512f: the widest the CPU has"
                : plan.path == GemmPath::Wide ? "avx2: the widest the CPU has"
                                              : "portable: the CPU has no AVX2";
#if QKV_GEMM_HAS_WIDE
  if (plan.path == GemmPath::Widest && !std::getenv("QKV_GEMM_PATH")) {
    // 512-bit lanes pay where the units are full width (Ice Lake SP and later Xeons, Zen 5) and not where
    // they are split in two 256-bit halves (Zen 4), or where the clock drops under 512-bit work. The table
    // decides where it knows the CPU, so that every run on one machine takes the same path (a timing on a
    // loaded machine can go either way); elsewhere both paths are timed.
    if (const std::optional<GemmPathRule> rule = gemm_path_rule(cpu)) {
      plan.path = rule->path;
      plan.reason = rule->reason;
    } else {
      static char note[200];  // the plan is chosen once (gemm_plan's static) and keeps pointing here
      plan.path = measure_faster(GemmPath::Wide, GemmPath::Widest, plan, note, sizeof note);
      plan.reason = note;
    }
  }
#endif
  if (const char* forced = std::getenv("QKV_GEMM_PATH")) {
    const std::string name = forced;
    for (GemmPath path : {GemmPath::Portable, GemmPath::Wide, GemmPath::Widest}) {
      if (name == gemm_path_name(path)) {
        plan.path = path;
        while (!gemm_path_supported(plan.path))
          plan.path = static_cast<GemmPath>(static_cast<int>(plan.path) - 1);
        plan.reason = "forced by QKV_GEMM_PATH";
      }
    }
  }
  plan.blocking = gemm_blocking_for(plan.path, plan.l1d_bytes, plan.l2_bytes);
  if (const char* forced = std::getenv("QKV_GEMM_BLOCKING")) {
    std::size_t depth = 0, rows = 0, cols = 0;
    if (std::sscanf(forced, "%zu,%zu,%zu", &depth, &rows, &cols) == 3 && depth > 0 && rows > 0 && cols > 0)
      plan.blocking = {depth, rows, cols};
  }
  return plan;
}

// The plan's blocking for its own path, or one derived from the plan's cache sizes for another.
GemmBlocking plan_blocking(GemmPath path) {
  const GemmPlan& plan = gemm_plan();
  return plan.path == path ? plan.blocking : gemm_blocking_for(path, plan.l1d_bytes, plan.l2_bytes);
}
#endif

}  // namespace

#if defined(__EMSCRIPTEN__)
const GemmPlan& gemm_plan() { return kPlan; }
#else
const GemmPlan& gemm_plan() {
  static const GemmPlan plan = choose_plan();
  return plan;
}
#endif

void gemm_blocked(GemmPath path, const GemmBlocking& blocking, const GemmArgs& args) {
  GemmBlocking k = blocking;
  if (k.depth == 0 || k.block_rows == 0 || k.block_cols == 0) {
    const GemmBlocking derived = plan_blocking(path);
    if (k.depth == 0) k.depth = derived.depth;
    if (k.block_rows == 0) k.block_rows = derived.block_rows;
    if (k.block_cols == 0) k.block_cols = derived.block_cols;
  }
  run_blocked(path, k, args);
}

void gemm_on(GemmPath path, const GemmArgs& args) { gemm_blocked(path, GemmBlocking{}, args); }

void gemm(const GemmArgs& args) { gemm_blocked(gemm_plan().path, gemm_plan().blocking, args); }

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
