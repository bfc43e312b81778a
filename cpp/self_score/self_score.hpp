// Self-score: when queries and keys come from the same vectors, does each token score highest on itself?
//
// The Q/K/V module draws X = randn(n, d), Wq = randn(d, d), Wk = randn(d, d) from one seeded numpy
// generator and compares three score matrices:
//   none     = X Xᵀ                (Q = K = X)
//   separate = (X Wq)(X Wk)ᵀ       (two projections)
//   tied     = (X Wq)(X Wq)ᵀ       (one shared projection)
// Cauchy–Schwarz gives x_i·x_j <= |x_i||x_j|, so x_i·x_i = |x_i|^2 beats x_i·x_j only when |x_j| < |x_i|.
// The diagonal is therefore guaranteed to win only in rows whose vector is at least as long as every
// other and equal to none of them; other rows usually win too, but not always, and
// find_off_diagonal_seed() finds a seed where one does not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/result.hpp"

namespace qkv {

enum class ScoreKind { None, Separate, Tied };

struct SelfScoreExperiment {
  std::int64_t seed = 1;    // np.random.seed(seed), in [0, 2^32 - 1]
  std::int64_t tokens = 5;  // n, in [1, kSelfScoreMaxSize]
  std::int64_t dim = 8;     // d, in [1, kSelfScoreMaxSize]
};

// Larger sizes are refused: the lesson needs a handful of tokens, and n = d = 512 already costs
// about 4 * 512^3 multiply-adds.
constexpr std::int64_t kSelfScoreMaxSize = 512;

struct ScoreSummary {
  std::vector<double> scores;                // [n, n] row-major: scores[i * n + j] = q_i · k_j
  std::vector<std::size_t> argmax;           // [n]: first column holding the row's maximum, like np.argmax
  std::vector<std::size_t> diagonal_rows;    // ascending rows i with argmax[i] == i
  std::vector<std::size_t> guaranteed_rows;  // ascending rows whose diagonal must win by Cauchy–Schwarz
                                             // (|q_i| >= every |q_j| and q_j != q_i); none for separate
};

// The ascending rows i with argmax[i] == i: the rows whose maximum is on the diagonal.
std::vector<std::size_t> diagonal_rows(const std::vector<std::size_t>& argmax);

struct SelfScoreResult {
  std::size_t tokens = 0;
  std::size_t dim = 0;
  std::vector<double> x;                // [n, d], first draws after seeding
  std::vector<double> wq;               // [d, d], drawn after x
  std::vector<double> wk;               // [d, d], drawn after wq
  std::vector<double> norms;            // [n]: |x_i|
  std::vector<double> projected_norms;  // [n]: |x_i Wq|
  ScoreSummary none;
  ScoreSummary separate;
  ScoreSummary tied;

  const ScoreSummary& summary(ScoreKind kind) const;
};

enum class SelfScoreErrorKind {
  SeedOutOfRange,
  TokensOutOfRange,
  DimOutOfRange,
  SeedCountOutOfRange,
  SearchOverBudget,
};

struct SelfScoreError {
  SelfScoreErrorKind kind;
  std::int64_t actual;         // the rejected value (for SearchOverBudget: the seed count)
  std::int64_t seed_cost = 0;  // SearchOverBudget: the work of one seed at the requested sizes

  // e.g. "tokens must be between 1 and 512, got 0"
  std::string message() const;
};

// Validation order: seed, tokens, dim.
Result<SelfScoreResult, SelfScoreError> run_self_score_experiment(const SelfScoreExperiment& request);

// The most seeds one search may try; it keeps a careless caller from spinning for minutes.
constexpr std::int64_t kMaxSearchSeeds = 1000000;

// Work, counted in multiply-adds: a search tries seeds until one qualifies, so its cost is bounded by
// seeds x the cost of one seed, and a search whose bound exceeds kSearchBudget is refused before it
// starts. One seed of `kind` is seeded (kSeedingCost), draws X (n x d, and W_q, d x d, for tied) and
// multiplies:
//   none: n*d draws, X Xᵀ (n*n*d), the row maxima (n*n)
//   tied: (n*d + d*d) draws, Q = X W_q (n*d*d), Q Qᵀ (n*n*d), the row maxima (n*n)
// A normal draw (the Mersenne Twister, then Box–Muller's log and square root) costs about as much as
// kDrawCost multiply-adds of the matrix kernels: in WebAssembly (Node 20, the development machine) a draw
// took ~53 ns and a multiply-add 0.8-1.2 ns (2 ns at d = 512, whose 4 KiB rows alias in the cache).
constexpr std::int64_t kDrawCost = 50;
// Seeding, once per seed: numpy's legacy seed() fills the Mersenne Twister's 624-word state (init_by_array),
// the first draw regenerates all of it, and the seed's buffers are allocated. Measured with one token of
// width 1, where it is nearly all the work: 3.55 µs per seed natively (4.24 tied) and 28-33 µs in
// WebAssembly (Node 20, both builds, load average 3 on the 2-core machine), that is 14,000-28,000 units at
// the WebAssembly rate below. Before it was counted, 10^6 seeds of one token were accepted and took 3 s
// natively and 17-22 s in WebAssembly (issue 18). With it, the most seeds of one token that fit (199,584)
// take about 0.7 s natively and 5.6-6.6 s in WebAssembly.
constexpr std::int64_t kSeedingCost = 25000;
// 5-10 s of WebAssembly on the 2-core development machine (1-2 ns per unit above), in the page's worker,
// with progress and a Cancel button. The page's search (1000 seeds) fits up to n = 512, d = 16 and
// n = 64, d = 512 without projection, and up to n = d = 120 tied; at n = d = 512 a tied search fits 16
// seeds (~9 s).
constexpr std::int64_t kSearchBudget = 5000000000;
// How much work runs between two progress reports: about 20-40 ms of WebAssembly.
constexpr std::int64_t kSearchProgressWork = 20000000;

// The work of one seed at these sizes (validated sizes; the product fits easily in 64 bits).
std::int64_t search_seed_cost(ScoreKind kind, std::int64_t tokens, std::int64_t dim);
// The work of run_self_score_experiment() at these sizes: every draw, both projections and all three score
// matrices.
std::int64_t self_score_cost(std::int64_t tokens, std::int64_t dim);

// Called during a search with the number of seeds tried so far, after at least kSearchProgressWork of
// work since the last call (at every seed when one seed costs more), and never after the last seed.
using SearchProgress = std::function<void(std::int64_t tried)>;

struct CounterexampleSearch {
  ScoreKind kind = ScoreKind::None;
  std::int64_t start_seed = 0;    // first seed tried, in [0, 2^32 - 1]
  std::int64_t max_seeds = 1000;  // seeds tried at most, in [1, kMaxSearchSeeds]; after 2^32 - 1 comes 0
  std::int64_t tokens = 5;
  std::int64_t dim = 8;
};

// The kinds a search can look at, by the names the front ends take: "none" or "tied".
std::optional<ScoreKind> search_kind_named(const std::string& name);

struct Counterexample {
  std::int64_t seed = 0;
  std::size_t row = 0;     // first row whose maximum is off the diagonal
  std::size_t argmax = 0;  // the column where that row peaks instead
};

// The first seed, counting up from start_seed (and wrapping to 0 after the last), where some row of `kind`'s
// scores peaks off the diagonal; std::nullopt if every tried seed keeps all maxima on the diagonal.
// Validation order: start_seed, max_seeds, tokens, dim, then max_seeds x search_seed_cost() against
// kSearchBudget. Only the scores of `kind` are computed (the draws for it are numpy's, in its order).
Result<std::optional<Counterexample>, SelfScoreError> find_off_diagonal_seed(
    const CounterexampleSearch& search, const SearchProgress& progress = nullptr);

}  // namespace qkv
