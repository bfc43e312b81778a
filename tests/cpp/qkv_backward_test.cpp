// QkvProjections under the chapter's loss L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V (upstream_objective, chapter26):
// the hand-derived fixture backward (spec section 4), empty axes on the tape, and finite differences on
// random shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "attention/qkv.hpp"
#include "autograd/gradcheck.hpp"
#include "chapter26/projection_evidence.hpp"
#include "qkv_fixture.hpp"
#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

// Finite differences: the chapter's nominal step and tolerance. L is linear in each probed tensor, so
// the central difference carries only rounding error, about eps·|L|/step ≈ 1e-9 for these sizes.
constexpr double kStep = 1e-6;
constexpr double kTolerance = 2e-6;

const Upstreams kUpstreams = {make({1, 2, 2}, {1, 0, -1, 2}), make({1, 2, 2}, {0.5, -1, 1, 0}),
                              make({1, 2, 2}, {2, 1, 0, -0.5})};

// ---- fixture backward ------------------------------------------------------------------------------------

struct Gradients {
  double loss = 0.0;
  Tensor input, query, key, value;
};

// L = Σ Q⊙U_Q + Σ K⊙U_K + Σ V⊙U_V with X a parameter; one backward from seed 1.0.
Gradients backward_of(const Tensor& x, const Tensor& wq, const Tensor& wk, const Tensor& wv,
                      const Upstreams& upstream) {
  Gradients out;
  const QkvProjections layer = layer_of(wq, wk, wv);
  const TensorValue input = parameter(x);
  auto loss = upstream_objective(forward(layer, input), upstream);
  if (!loss) {
    ADD_FAILURE() << loss.error().message();
    return out;
  }
  EXPECT_TRUE(loss->tracked());
  EXPECT_EQ(loss->shape(), Shape{});
  auto done = loss->backward();
  if (!done) ADD_FAILURE() << done.error().message();
  out.loss = loss->value()[0];
  out.input = *input.gradient();
  out.query = *layer.query().weight().value().gradient();
  out.key = *layer.key().weight().value().gradient();
  out.value = *layer.value().weight().value().gradient();
  return out;
}

TEST(QkvFixture, BackwardGivesTheHandDerivedGradients) {
  const Gradients g = backward_of(kX, kWQ, kWK, kWV, kUpstreams);
  EXPECT_EQ(bits(g.loss), bits(-2.0));  // -4 + 0.5 + 1.5
  // dX = U_Q W_Qᵀ + U_K W_Kᵀ + U_V W_Vᵀ; dW = X_(BT)ᵀ U_(BT) per branch.
  expect_tensor(g.input, {1, 2, 3}, {3, 1.5, 1.5, -1.5, 3.5, -5});
  expect_tensor(g.query, {3, 2}, {1, 0, 1, 2, -3, 4});
  expect_tensor(g.key, {3, 2}, {0.5, -1, 2, -2, 1.5, 1});
  expect_tensor(g.value, {3, 2}, {2, 1, 4, 1.5, -2, -2});
}

TEST(QkvFixture, RepeatedBackwardAccumulates) {
  const QkvProjections layer = layer_of(kWQ, kWK, kWV);
  const TensorValue input = parameter(kX);
  auto loss = upstream_objective(forward(layer, input), kUpstreams);
  ASSERT_TRUE(loss.ok());
  ASSERT_TRUE(loss->backward().ok());
  ASSERT_TRUE(loss->backward().ok());
  expect_tensor(*input.gradient(), {1, 2, 3}, {6, 3, 3, -3, 7, -10});
  expect_tensor(*layer.query().weight().value().gradient(), {3, 2}, {2, 0, 2, 4, -6, 8});
}

TEST(QkvFixture, SeededLayerLossMatchesTheSpec) {
  // The seed-26 layer on the fixture X with the fixture upstreams: L = -3.412164865166309 (spec section 2).
  SplitMix64 rng(26);
  auto layer = QkvProjections::create(kPrefix, 3, 2, rng);
  ASSERT_TRUE(layer.ok());
  auto loss = upstream_objective(forward(*layer, constant(kX)), kUpstreams);
  ASSERT_TRUE(loss.ok());
  EXPECT_EQ(loss->value()[0], -3.412164865166309);
}

// ---- empty axes stay on the tape -------------------------------------------------------------------------

TEST(QkvEmptyAxes, ForwardAndBackwardStayConnected) {
  for (const Shape& shape : {Shape{0, 2, 3}, Shape{2, 0, 3}, Shape{0, 0, 3}, Shape{1, 0, 3}}) {
    SCOPED_TRACE(format_shape(shape));
    const Shape out_shape = {shape[0], shape[1], 2};
    const QkvProjections layer = layer_of(kWQ, kWK, kWV);
    const TensorValue input = parameter(zeros(shape));
    const QkvOutputs outputs = forward(layer, input);
    for (const TensorValue* view : {&outputs.query, &outputs.key, &outputs.value}) {
      EXPECT_EQ(view->shape(), out_shape);
      EXPECT_TRUE(view->tracked());
    }
    const Upstreams empty = {zeros(out_shape), zeros(out_shape), zeros(out_shape)};
    auto loss = upstream_objective(outputs, empty);
    ASSERT_TRUE(loss.ok()) << loss.error().message();
    EXPECT_TRUE(loss->tracked());
    expect_positive_zeros(loss->value(), {});
    auto done = loss->backward();
    ASSERT_TRUE(done.ok()) << done.error().message();
    expect_positive_zeros(*input.gradient(), shape);
    for (const NamedParameter& parameter : layer.parameters())
      expect_positive_zeros(*parameter.value().gradient(), {3, 2});
  }
}

// ---- finite differences ----------------------------------------------------------------------------------

struct Problem {
  Tensor x, wq, wk, wv;
  Upstreams upstream;
};

// L at a point, with X a constant and a fresh layer, as the chapter's probes do.
Result<double, std::string> loss_at(const Problem& p) {
  auto layer = from_tensors(p.wq, p.wk, p.wv, "probe");
  if (!layer) return fail(layer.error().message());
  auto input = TensorValue::constant(p.x);
  if (!input) return fail(input.error().message());
  auto outputs = layer->forward(*input);
  if (!outputs) return fail(outputs.error().message());
  auto loss = upstream_objective(*outputs, p.upstream);
  if (!loss) return fail(loss.error().message());
  return loss->value()[0];
}

// Checks every coordinate of X and of the three weights; returns the four reports.
std::vector<GradcheckReport> check_all(const Problem& problem) {
  const Gradients g = backward_of(problem.x, problem.wq, problem.wk, problem.wv, problem.upstream);
  const std::pair<Tensor Problem::*, const Tensor*> probes[] = {
      {&Problem::x, &g.input}, {&Problem::wq, &g.query}, {&Problem::wk, &g.key}, {&Problem::wv, &g.value}};
  std::vector<GradcheckReport> reports;
  for (const auto& [member, analytic] : probes) {
    const Objective objective = [&problem, member = member](const Tensor& point) {
      Problem trial = problem;
      trial.*member = point;
      return loss_at(trial);
    };
    const Tensor& point = problem.*member;
    auto report = gradcheck(point, *analytic, objective, point.size(), {kStep, kTolerance});
    if (!report) {
      ADD_FAILURE() << report.error().message();
      reports.push_back({});
      continue;
    }
    reports.push_back(*report);
  }
  return reports;
}

TEST(QkvGradcheck, FixtureEveryCoordinatePasses) {
  const std::vector<GradcheckReport> reports = check_all({kX, kWQ, kWK, kWV, kUpstreams});
  ASSERT_EQ(reports.size(), 4u);
  for (const GradcheckReport& report : reports) {
    EXPECT_TRUE(report.passed) << "max error " << report.max_error;
    EXPECT_EQ(report.checks, 6u);
  }
  // The course observed its worst error at X[3]: -1.5000000006537562 against the exact -1.5.
  EXPECT_EQ(reports[0].worst_index, 3u);
  EXPECT_EQ(reports[0].worst_numeric, -1.5000000006537562);
  for (const GradcheckReport& report : reports) EXPECT_LE(report.max_error, 4.4e-10);
}

Tensor random_tensor(Shape shape, SplitMix64& rng) {
  Tensor tensor = zeros(std::move(shape));
  for (double& value : tensor.mutable_values()) value = 4.0 * rng.next_unit_f64() - 2.0;  // [-2, 2)
  return tensor;
}

TEST(QkvGradcheck, RandomShapesIncludingEmptyAxesPass) {
  SplitMix64 rng(2026);
  std::vector<Shape> dims = {{0, 2, 3, 2}, {2, 0, 3, 2}, {0, 0, 3, 2}};  // B, T, d, h: empty axes always
  for (int trial = 0; trial < 30; ++trial) {
    dims.push_back({rng.next_u64() % 4, rng.next_u64() % 4, 1 + rng.next_u64() % 4, 1 + rng.next_u64() % 4});
  }
  for (const Shape& dim : dims) {
    const Extent b = dim[0], t = dim[1], d = dim[2], h = dim[3];
    SCOPED_TRACE("B=" + std::to_string(b) + " T=" + std::to_string(t) + " d=" + std::to_string(d) +
                 " h=" + std::to_string(h));
    const Problem problem = {
        random_tensor({b, t, d}, rng),
        random_tensor({d, h}, rng),
        random_tensor({d, h}, rng),
        random_tensor({d, h}, rng),
        {random_tensor({b, t, h}, rng), random_tensor({b, t, h}, rng), random_tensor({b, t, h}, rng)}};
    const std::vector<GradcheckReport> reports = check_all(problem);
    ASSERT_EQ(reports.size(), 4u);
    EXPECT_EQ(reports[0].checks, b * t * d);  // 0 when an axis is empty
    for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(reports[i].checks, d * h);
    for (const GradcheckReport& report : reports) {
      EXPECT_TRUE(report.passed) << "max error " << report.max_error << " at " << report.worst_index;
    }
  }
}

}  // namespace
}  // namespace qkv
