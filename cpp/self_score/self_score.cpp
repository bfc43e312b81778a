// Self-score: draws X, Wq, Wk like the numpy module and reports where each score row peaks.
#include "self_score/self_score.hpp"

#include <algorithm>
#include <cmath>

#include "self_score/numpy_random.hpp"
#include "tensor/tensor.hpp"

namespace qkv {
namespace {

using Matrix = std::vector<double>;  // row-major

// The experiment multiplies with the tensor kernels (each sum from +0.0 over ascending k, as numpy's
// formula reads; BLAS may sum in another order, hence the last-digit differences from numpy).
// Sizes are validated before this runs and stay far below the element cap, so these cannot fail.
Matrix matmul(const Matrix& a, const Matrix& b, std::size_t n, std::size_t k, std::size_t m) {
  const Tensor left = Tensor::from_values({n, k}, a).value();
  const Tensor right = Tensor::from_values({k, m}, b).value();
  return qkv::matmul(left, right).value().values();
}

// q [n, k] @ key [n, k]ᵀ -> [n, n]: every query row dotted with every key row.
Matrix scores_of(const Matrix& q, const Matrix& key, std::size_t n, std::size_t k) {
  const Tensor keys = Tensor::from_values({n, k}, key).value();
  return qkv::matmul(Tensor::from_values({n, k}, q).value(), transpose_last(keys).value()).value().values();
}

// a [n, k] -> [n]: Euclidean length of each row.
std::vector<double> row_norms(const Matrix& a, std::size_t n, std::size_t k) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t t = 0; t < k; ++t) sum += a[i * k + t] * a[i * k + t];
    out[i] = std::sqrt(sum);
  }
  return out;
}

// Row i's diagonal must win when q_i = k_i is at least as long as every other row and no other row
// equals it: for |q_j| < |q_i|, q_i·q_j <= |q_i||q_j| < |q_i|^2; for |q_j| = |q_i|, Cauchy–Schwarz is an
// equality only when q_j is a non-negative multiple of q_i of the same length, that is q_j = q_i.
// (Exact-arithmetic reasoning; the rounded scores could only disagree for two nearly parallel rows of
// nearly equal length.)
std::vector<std::size_t> guaranteed_rows(const Matrix& vectors, const std::vector<double>& norms,
                                         std::size_t k) {
  const auto same_row = [&](std::size_t i, std::size_t j) {
    return std::equal(vectors.begin() + i * k, vectors.begin() + (i + 1) * k, vectors.begin() + j * k);
  };
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < norms.size(); ++i) {
    bool sure = true;
    for (std::size_t j = 0; j < norms.size(); ++j) {
      if (j != i && (!(norms[i] >= norms[j]) || same_row(i, j))) sure = false;
    }
    if (sure) rows.push_back(i);
  }
  return rows;
}

// scores [n, n]; `vectors` [n, k] are the rows' vectors when queries equal keys (else nullptr), `lengths`
// their norms.
ScoreSummary summarize(Matrix scores, std::size_t n, const Matrix* vectors,
                       const std::vector<double>* lengths, std::size_t k) {
  ScoreSummary summary;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < n; ++j) {
      if (scores[i * n + j] > scores[i * n + best]) best = j;  // strict: ties keep the first column
    }
    summary.argmax.push_back(best);
  }
  summary.diagonal_rows = diagonal_rows(summary.argmax);
  if (vectors != nullptr) summary.guaranteed_rows = guaranteed_rows(*vectors, *lengths, k);
  summary.scores = std::move(scores);
  return summary;
}

std::optional<SelfScoreError> check_seed(std::int64_t seed) {
  if (seed < 0 || seed > NumpyLegacyRandom::kMaxSeed) {
    return SelfScoreError{SelfScoreErrorKind::SeedOutOfRange, seed};
  }
  return std::nullopt;
}

// Validation order: tokens, then dim.
std::optional<SelfScoreError> check_sizes(std::int64_t tokens, std::int64_t dim) {
  if (tokens < 1 || tokens > kSelfScoreMaxSize)
    return SelfScoreError{SelfScoreErrorKind::TokensOutOfRange, tokens};
  if (dim < 1 || dim > kSelfScoreMaxSize) return SelfScoreError{SelfScoreErrorKind::DimOutOfRange, dim};
  return std::nullopt;
}

// Where each row of `kind`'s scores peaks, computing only those scores: the draws and products are the
// ones compute() makes for that kind, in the same order, so the maxima are the same bit for bit.
// Inputs already validated.
std::vector<std::size_t> argmax_of(ScoreKind kind, std::int64_t seed, std::size_t n, std::size_t d) {
  NumpyLegacyRandom rng = NumpyLegacyRandom::seeded(seed).value();
  Matrix x = rng.randn(n * d);
  if (kind == ScoreKind::None) return summarize(scores_of(x, x, n, d), n, nullptr, nullptr, d).argmax;
  const Matrix wq = rng.randn(d * d);
  if (kind == ScoreKind::Tied) {
    const Matrix q = matmul(x, wq, n, d, d);
    return summarize(scores_of(q, q, n, d), n, nullptr, nullptr, d).argmax;
  }
  const Matrix wk = rng.randn(d * d);
  return summarize(scores_of(matmul(x, wq, n, d, d), matmul(x, wk, n, d, d), n, d), n, nullptr, nullptr, d)
      .argmax;
}

// Inputs already validated.
SelfScoreResult compute(std::int64_t seed, std::size_t n, std::size_t d) {
  NumpyLegacyRandom rng = NumpyLegacyRandom::seeded(seed).value();
  SelfScoreResult r;
  r.tokens = n;
  r.dim = d;
  // The module's order: X = randn(n, d), then Wq = randn(d, d), then Wk = randn(d, d).
  r.x = rng.randn(n * d);
  r.wq = rng.randn(d * d);
  r.wk = rng.randn(d * d);

  const Matrix q = matmul(r.x, r.wq, n, d, d);
  const Matrix k = matmul(r.x, r.wk, n, d, d);
  r.norms = row_norms(r.x, n, d);
  r.projected_norms = row_norms(q, n, d);
  r.none = summarize(scores_of(r.x, r.x, n, d), n, &r.x, &r.norms, d);
  r.separate = summarize(scores_of(q, k, n, d), n, nullptr, nullptr, d);
  r.tied = summarize(scores_of(q, q, n, d), n, &q, &r.projected_norms, d);
  return r;
}

}  // namespace

std::vector<std::size_t> diagonal_rows(const std::vector<std::size_t>& argmax) {
  std::vector<std::size_t> rows;
  for (std::size_t row = 0; row < argmax.size(); ++row)
    if (argmax[row] == row) rows.push_back(row);
  return rows;
}

std::optional<ScoreKind> search_kind_named(const std::string& name) {
  if (name == "none") return ScoreKind::None;
  if (name == "tied") return ScoreKind::Tied;
  return std::nullopt;
}

const ScoreSummary& SelfScoreResult::summary(ScoreKind kind) const {
  switch (kind) {
    case ScoreKind::None:
      return none;
    case ScoreKind::Separate:
      return separate;
    case ScoreKind::Tied:
      return tied;
  }
  return none;
}

std::string SelfScoreError::message() const {
  // Limits and costs as people read them ("4,294,967,295"); the value refused as it was given.
  const auto count = [](std::int64_t value) { return format_count(static_cast<std::uint64_t>(value)); };
  const std::string got = ", got " + std::to_string(actual);
  const std::string size_range = " must be between 1 and " + count(kSelfScoreMaxSize);
  switch (kind) {
    case SelfScoreErrorKind::SeedOutOfRange:
      return "seed must be between 0 and " + count(NumpyLegacyRandom::kMaxSeed) + got;
    case SelfScoreErrorKind::TokensOutOfRange:
      return "tokens" + size_range + got;
    case SelfScoreErrorKind::DimOutOfRange:
      return "dim" + size_range + got;
    case SelfScoreErrorKind::SeedCountOutOfRange:
      return "seed count must be between 1 and " + count(kMaxSearchSeeds) + got;
    case SelfScoreErrorKind::SearchOverBudget:
      return "a search of " + count(actual) + " seeds at " + count(seed_cost) +
             " multiply-adds each exceeds the limit of " + count(kSearchBudget) +
             " multiply-adds per search; at these sizes at most " + count(kSearchBudget / seed_cost) +
             " seeds fit";
  }
  return "unknown self-score error";
}

Result<SelfScoreResult, SelfScoreError> run_self_score_experiment(const SelfScoreExperiment& request) {
  if (auto error = check_seed(request.seed)) return fail(*error);
  if (auto error = check_sizes(request.tokens, request.dim)) return fail(*error);
  return compute(request.seed, static_cast<std::size_t>(request.tokens),
                 static_cast<std::size_t>(request.dim));
}

std::int64_t search_seed_cost(ScoreKind kind, std::int64_t tokens, std::int64_t dim) {
  const std::int64_t n = tokens, d = dim;
  switch (kind) {
    case ScoreKind::None:
      return kSeedingCost + n * d * kDrawCost + n * n * d + n * n;
    case ScoreKind::Tied:
      return kSeedingCost + (n * d + d * d) * kDrawCost + n * d * d + n * n * d + n * n;
    case ScoreKind::Separate:
      return kSeedingCost + (n * d + 2 * d * d) * kDrawCost + 2 * n * d * d + n * n * d + n * n;
  }
  return 0;
}

std::int64_t self_score_cost(std::int64_t tokens, std::int64_t dim) {
  const std::int64_t n = tokens, d = dim;
  return kSeedingCost + (n * d + 2 * d * d) * kDrawCost + 2 * n * d * d + 3 * n * n * d + 3 * n * n;
}

Result<std::optional<Counterexample>, SelfScoreError> find_off_diagonal_seed(
    const CounterexampleSearch& search, const SearchProgress& progress) {
  if (auto error = check_seed(search.start_seed)) return fail(*error);
  if (search.max_seeds < 1 || search.max_seeds > kMaxSearchSeeds) {
    return fail(SelfScoreError{SelfScoreErrorKind::SeedCountOutOfRange, search.max_seeds});
  }
  if (auto error = check_sizes(search.tokens, search.dim)) return fail(*error);
  // At most 10^6 seeds of at most ~2^31 each: the product fits in 64 bits.
  const std::int64_t seed_cost = search_seed_cost(search.kind, search.tokens, search.dim);
  if (search.max_seeds * seed_cost > kSearchBudget)
    return fail(SelfScoreError{SelfScoreErrorKind::SearchOverBudget, search.max_seeds, seed_cost});

  const auto n = static_cast<std::size_t>(search.tokens);
  const auto d = static_cast<std::size_t>(search.dim);
  std::int64_t work = 0;  // since the last progress report
  for (std::int64_t tried = 0; tried < search.max_seeds; ++tried) {
    if (progress && work >= kSearchProgressWork) {
      progress(tried);
      work = 0;
    }
    // Past the last seed numpy accepts, the search wraps around to seed 0.
    const std::int64_t seed = (search.start_seed + tried) % (NumpyLegacyRandom::kMaxSeed + 1);
    const std::vector<std::size_t> argmax = argmax_of(search.kind, seed, n, d);
    for (std::size_t row = 0; row < n; ++row) {
      if (argmax[row] != row) return std::optional<Counterexample>(Counterexample{seed, row, argmax[row]});
    }
    work += seed_cost;
  }
  return std::optional<Counterexample>();
}

}  // namespace qkv
