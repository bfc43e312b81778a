#include "learner/variant.hpp"

#include <algorithm>

#include "nn/init.hpp"

namespace qkv {
namespace {

// Draws kept before the generator gives up: a draw is kept about half the time, so this is never reached
// (variant_test draws 10,000 seeds); it only bounds the loop.
constexpr int kMaxDraws = 1000;

// An integer in [−bound, bound]; the modulo's bias (under 2^-59) does not matter for a lesson.
double whole_in(SplitMix64& rng, int bound) {
  const std::uint64_t span = 2 * static_cast<std::uint64_t>(bound) + 1;
  return static_cast<double>(static_cast<std::int64_t>(rng.next_u64() % span) - bound);
}

Tensor drawn(SplitMix64& rng, Shape shape, int bound, double step) {
  std::vector<double> values(element_count(shape).value());
  for (double& value : values) value = whole_in(rng, bound) * step;
  return Tensor::from_values(std::move(shape), std::move(values)).value();
}

Extent extent_in(SplitMix64& rng, Extent min, Extent max) {
  return min + static_cast<Extent>(rng.next_u64() % (max - min + 1));
}

ProjectionRequest draw_request(SplitMix64& rng) {
  const VariantRules& r = kVariantRules;
  const Extent tokens = extent_in(rng, r.min_tokens, r.max_tokens);
  const Extent d = extent_in(rng, r.min_model_width, r.max_model_width), h = r.head_width;
  const int weight_halves = static_cast<int>(2 * r.max_weight);
  ProjectionRequest request{drawn(rng, {r.batch, tokens, d}, r.max_input, 1.0),
                            drawn(rng, {d, h}, weight_halves, 0.5), drawn(rng, {d, h}, weight_halves, 0.5),
                            drawn(rng, {d, h}, weight_halves, 0.5), std::nullopt};
  const Shape outputs{r.batch, tokens, h};
  request.upstream =
      Upstreams{drawn(rng, outputs, r.max_upstream, 1.0), drawn(rng, outputs, r.max_upstream, 1.0),
                drawn(rng, outputs, r.max_upstream, 1.0)};
  return request;
}

bool all_zero(const std::vector<double>& values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return v == 0.0; });
}

// The rules draw_variant keeps a draw by, read from the core's own forward pass and scores.
bool gradable(const ProjectionRequest& request) {
  ProjectionRequest forward = request;
  forward.upstream.reset();
  auto evidence = compute_projection_evidence(forward, {false, true});
  if (!evidence) return false;
  const Extent tokens = request.input.shape()[1], d = request.input.shape()[2];
  const Extent h = request.query_weight.shape()[1];
  const std::vector<double>& x = request.input.values();
  const std::vector<double>& q = evidence->query.values();
  const std::vector<double>& s = evidence->scores.values();
  if (all_zero({x.begin(), x.begin() + static_cast<std::ptrdiff_t>(d)}) ||
      all_zero({q.begin(), q.begin() + static_cast<std::ptrdiff_t>(h)}))
    return false;
  std::vector<double> row(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(tokens));
  const auto best = std::max_element(row.begin(), row.end()) - row.begin();
  std::sort(row.begin(), row.end());
  return best <= 1 && std::adjacent_find(row.begin(), row.end()) == row.end();
}

}  // namespace

Result<Variant, LessonError> draw_variant(std::uint64_t seed) {
  if (seed > kMaxVariantSeed)
    return fail(LessonError{ErrorKind::Arguments,
                            "seed must be a whole number from 0 to " + std::to_string(kMaxVariantSeed) +
                                ", got " + std::to_string(seed),
                            "seed"});
  SplitMix64 rng(seed);
  for (int draw = 0; draw < kMaxDraws; ++draw) {
    ProjectionRequest request = draw_request(rng);
    if (!gradable(request)) continue;
    std::vector<std::string> words(std::begin(kVariantWords), std::end(kVariantWords));
    std::vector<std::string> names;
    for (Extent token = 0; token < request.input.shape()[1]; ++token) {
      const std::size_t pick = static_cast<std::size_t>(rng.next_u64() % words.size());
      names.push_back(words[pick]);
      words.erase(words.begin() + static_cast<std::ptrdiff_t>(pick));
    }
    return Variant{seed, state_of(request), std::move(names)};
  }
  return fail(LessonError{ErrorKind::Internal, "no gradable variant in " + std::to_string(kMaxDraws) +
                                                   " draws from seed " + std::to_string(seed)});
}

std::uint64_t attempt_seed(std::string_view attempt_key) {
  // FNV-1a, 64 bits: offset basis and prime from the FNV reference.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char byte : attempt_key) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ULL;
  }
  // FNV's low bits mix poorly for short keys that differ in their last byte; SplitMix64 spreads every bit.
  return SplitMix64(hash).next_u64() & kMaxVariantSeed;
}

}  // namespace qkv
