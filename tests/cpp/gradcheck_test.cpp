// Gradcheck: the pass rule, the sample positions, the probe order, and validation before any objective call.
#include "autograd/gradcheck.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "support.hpp"

namespace qkv {
namespace {

using namespace qkv::test;

// The defaults the chapter uses: a nominal step of 1e-6 and a tolerance of 2e-6 on the scaled difference.
constexpr double kStep = 1e-6;
constexpr double kTolerance = 2e-6;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor vector_of(std::vector<double> values) {
  const Extent n = values.size();
  return make({n}, std::move(values));
}

// Records every probe point the objective sees, then evaluates `f` on it.
struct Recorder {
  std::function<double(const Tensor&)> f;
  std::vector<Tensor> probes;

  Objective objective() {
    return [this](const Tensor& probe) -> Result<double, std::string> {
      probes.push_back(probe);
      return f(probe);
    };
  }
};

// f(x) = Σ c_i x_i² + x_i, so df/dx_i = 2 c_i x_i + 1.
double quadratic(const Tensor& x) {
  double sum = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += (static_cast<double>(i) + 1) * x[i] * x[i] + x[i];
  return sum;
}

Tensor quadratic_gradient(const Tensor& x) {
  Tensor gradient = x;
  for (std::size_t i = 0; i < x.size(); ++i)
    gradient.mutable_values()[i] = 2 * (static_cast<double>(i) + 1) * x[i] + 1;
  return gradient;
}

GradcheckReport report_of(const Result<GradcheckReport, GradcheckError>& result) {
  if (!result) {
    ADD_FAILURE() << "unexpected error: " << result.error().message();
    return {};
  }
  return *result;
}

GradcheckError error_of(const Result<GradcheckReport, GradcheckError>& result) {
  if (result.ok()) {
    ADD_FAILURE() << "expected an error";
    return {GradcheckErrorKind::Step};
  }
  return result.error();
}

// The flat index each group of three probes perturbs; checks minus, centre, plus order and that every
// other coordinate keeps the point's value (the probe is restored after each call).
std::vector<std::size_t> probed_indices(const Tensor& point, const std::vector<Tensor>& probes, double step) {
  EXPECT_EQ(probes.size() % 3, 0u);
  std::vector<std::size_t> indices;
  for (std::size_t call = 0; call + 2 < probes.size(); call += 3) {
    std::size_t index = point.size();
    for (std::size_t i = 0; i < point.size(); ++i) {
      if (probes[call][i] != point[i]) index = i;
    }
    if (index == point.size()) {
      ADD_FAILURE() << "call " << call << " perturbs nothing";
      return indices;
    }
    const double x = point[index];
    const double h = step * std::max(1.0, std::fabs(x));  // the step scales with |x| above 1
    const double expected[3] = {x - h, x, x + h};
    for (int k = 0; k < 3; ++k) {
      for (std::size_t i = 0; i < point.size(); ++i) {
        EXPECT_EQ(probes[call + k][i], i == index ? expected[k] : point[i])
            << "call " << call + k << " coordinate " << i;
      }
    }
    indices.push_back(index);
  }
  return indices;
}

TEST(Gradcheck, DefaultsAreTheChaptersStepAndTolerance) {
  const GradcheckOptions options;
  EXPECT_EQ(options.step, kStep);
  EXPECT_EQ(options.tolerance, kTolerance);
}

TEST(Gradcheck, PassesOnAQuadratic) {
  const Tensor point = make({2, 3}, {0.5, -1.25, 3, 0, 10, -7});
  Recorder recorder{quadratic};
  const GradcheckReport report =
      report_of(gradcheck(point, quadratic_gradient(point), recorder.objective(), point.size()));
  EXPECT_TRUE(report.passed);
  EXPECT_EQ(report.checks, 6u);
  EXPECT_LE(report.max_error, kTolerance);
  EXPECT_EQ(recorder.probes.size(), 18u);  // three calls per checked coordinate
}

TEST(Gradcheck, FailsWhenTheAnalyticGradientIsWrong) {
  const Tensor point = vector_of({0.5, -1.25, 3, 2});
  Tensor wrong = quadratic_gradient(point);  // [2, -4, 19, 17]
  wrong.mutable_values()[2] += 0.5;          // 19.5 instead of 19
  Recorder recorder{quadratic};
  const GradcheckReport report = report_of(gradcheck(point, wrong, recorder.objective(), point.size()));
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.checks, 4u);  // it keeps checking after a failure
  EXPECT_EQ(report.worst_index, 2u);
  EXPECT_EQ(report.worst_analytic, 19.5);
  EXPECT_NEAR(report.worst_numeric, 19.0, 19.0 * kTolerance);
  // Relative above 1: |19.5 - 19| / 19.5.
  EXPECT_NEAR(report.max_error, 0.5 / 19.5, kTolerance);
}

TEST(Gradcheck, AbsoluteBelowOneRelativeAboveOne) {
  // f(x) = g·x at x = 0.5; the numeric derivative is g to well within 1e-9 here.
  const auto check = [](double analytic, double g) {
    const Objective objective = [g](const Tensor& x) -> Result<double, std::string> { return g * x[0]; };
    return report_of(gradcheck(vector_of({0.5}), vector_of({analytic}), objective, 1));
  };
  // A difference of 1e-3 is 1e-6 relative to 1000: passes.
  const GradcheckReport relative = check(1000.0, 1000.001);
  EXPECT_TRUE(relative.passed);
  EXPECT_NEAR(relative.max_error, 1e-6, 1e-9);
  // The same absolute difference below 1 is measured absolutely: fails.
  const GradcheckReport absolute = check(0.5, 0.501);
  EXPECT_FALSE(absolute.passed);
  EXPECT_NEAR(absolute.max_error, 1e-3, 1e-9);
  EXPECT_TRUE(check(0.5, 0.500001).passed);
  EXPECT_FALSE(check(1000.0, 1000.01).passed);
}

TEST(Gradcheck, UsesTheSpacingsFloatingPointActuallyGives) {
  // For f(x) = x, c - m equals the lower spacing and p - c the upper one exactly, so the weighted formula
  // gives exactly 1. The textbook (p - m) / 2h would miss by up to 2.5e-9 at these points (at 1.0 the two
  // spacings even differ: 1.0000000000287557e-06 below, 9.999999999177334e-07 above).
  ASSERT_NE(1.0 - (1.0 - kStep), (1.0 + kStep) - 1.0);
  const Objective identity = [](const Tensor& x) -> Result<double, std::string> { return x[0]; };
  for (double x : {1.0, 3.0, 0.1, 1000.0, -2.5}) {
    const GradcheckReport report = report_of(gradcheck(vector_of({x}), vector_of({1.0}), identity, 1));
    EXPECT_TRUE(report.passed) << x;
    EXPECT_EQ(report.max_error, 0.0) << x;
    EXPECT_EQ(report.worst_numeric, 1.0) << x;
  }
}

TEST(Gradcheck, SampleIndicesAreSpreadEvenly) {
  // Sample k of s over n coordinates has flat index floor(k(n-1)/(s-1)); n/2 when s = 1.
  const Tensor point = make({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  const Tensor analytic = quadratic_gradient(point);
  const std::vector<std::pair<std::size_t, std::vector<std::size_t>>> cases = {
      {4, {0, 3, 6, 9}},                     // 9/3 = 3
      {3, {0, 4, 9}},                        // floor(9/2) = 4
      {2, {0, 9}},                           //
      {1, {5}},                              // n/2
      {7, {0, 1, 3, 4, 6, 7, 9}},            // floor(9k/6) = 0,1,3,4,6,7,9
      {10, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},  // every coordinate
      {25, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},  // capped at n
  };
  for (const auto& [samples, expected] : cases) {
    Recorder recorder{quadratic};
    const GradcheckReport report = report_of(gradcheck(point, analytic, recorder.objective(), samples));
    EXPECT_EQ(report.checks, expected.size()) << "s = " << samples;
    EXPECT_EQ(recorder.probes.size(), 3 * expected.size()) << "s = " << samples;
    EXPECT_EQ(probed_indices(point, recorder.probes, kStep), expected) << "s = " << samples;
    EXPECT_TRUE(report.passed);
  }
  // n odd, s = 1: 7/2 = 3.
  const Tensor seven = vector_of({1, 2, 3, 4, 5, 6, 7});
  Recorder recorder{quadratic};
  EXPECT_EQ(report_of(gradcheck(seven, quadratic_gradient(seven), recorder.objective(), 1)).checks, 1u);
  EXPECT_EQ(probed_indices(seven, recorder.probes, kStep), (std::vector<std::size_t>{3}));
}

TEST(Gradcheck, NothingToCheckPasses) {
  Recorder recorder{quadratic};
  const Tensor empty = make({0, 3}, {});
  const GradcheckReport none = report_of(gradcheck(empty, empty, recorder.objective(), 6));
  EXPECT_TRUE(none.passed);
  EXPECT_EQ(none.checks, 0u);
  const Tensor point = vector_of({1, 2});
  const GradcheckReport zero_samples =
      report_of(gradcheck(point, quadratic_gradient(point), recorder.objective(), 0));
  EXPECT_TRUE(zero_samples.passed);
  EXPECT_EQ(zero_samples.checks, 0u);
  EXPECT_TRUE(recorder.probes.empty());
}

TEST(Gradcheck, HonoursAGivenStep) {
  const Tensor point = vector_of({0.5});
  Recorder recorder{quadratic};
  GradcheckOptions options;
  options.step = 0.25;
  const GradcheckReport report =
      report_of(gradcheck(point, quadratic_gradient(point), recorder.objective(), 1, options));
  EXPECT_TRUE(report.passed);
  // Exact for a quadratic: (f(0.5) - f(0.25))/0.25 and (f(0.75) - f(0.5))/0.25 average to f'(0.5) = 2.
  EXPECT_EQ(report.worst_numeric, 2.0);
  EXPECT_EQ(recorder.probes.at(0)[0], 0.25);
  EXPECT_EQ(recorder.probes.at(2)[0], 0.75);
  EXPECT_EQ(probed_indices(point, recorder.probes, 0.25), (std::vector<std::size_t>{0}));
}

TEST(Gradcheck, StepScalesWithTheValueAboveOne) {
  // At |x| <= 1 the probe moves x by exactly the step; above, by step * |x|.
  const Tensor point = vector_of({2.0, -8.0, 0.0});
  Recorder recorder{quadratic};
  GradcheckOptions options;
  options.step = 0.25;
  const GradcheckReport report =
      report_of(gradcheck(point, quadratic_gradient(point), recorder.objective(), 3, options));
  EXPECT_TRUE(report.passed);
  ASSERT_EQ(recorder.probes.size(), 9u);
  EXPECT_EQ(recorder.probes[0][0], 1.5);  // 2 - 0.25 * 2
  EXPECT_EQ(recorder.probes[2][0], 2.5);
  EXPECT_EQ(recorder.probes[3][1], -10.0);  // -8 - 0.25 * 8
  EXPECT_EQ(recorder.probes[5][1], -6.0);
  EXPECT_EQ(recorder.probes[6][2], -0.25);  // 0 - 0.25 * max(1, 0)
  EXPECT_EQ(recorder.probes[8][2], 0.25);
  // Still exact for a quadratic with unequal spacings on each side: f'(2) = 5, f'(-8) = -31, f'(0) = 1.
  EXPECT_EQ(report.max_error, 0.0);
}

// Issue 10, finding 9: exact gradients must pass at any scale. f(x) = g·x summed with a large constant
// term c·y that does not depend on x (like the other coordinates of the projection loss): the
// numeric derivative then carries rounding noise of about eps·|c·y|/h, which a fixed absolute test fails.
TEST(Gradcheck, ExactGradientsNeverFailAtAnyScaleGivenTheObjectivesRoundingBound) {
  for (const double big : {2e4, 1e6, 1e12, 1e300}) {
    const Objective objective = [big](const Tensor& x) -> Result<double, std::string> {
      return 1.5 * x[0] + big * x[1];  // the x[1] term is large, the checked derivative small
    };
    const Tensor point = vector_of({0.3, big > 1e100 ? 1.0 : 3.0});
    const Tensor analytic = vector_of({1.5, big});
    GradcheckOptions options;
    // Two roundings (a product and a sum) on terms of total magnitude M: 2·eps·M bounds the error.
    options.objective_error =
        2 * std::numeric_limits<double>::epsilon() * (1.5 * 0.3 + big * point[1]) * 1.0000001;
    const GradcheckReport report = report_of(gradcheck(point, analytic, objective, 2, options));
    EXPECT_TRUE(report.passed) << big << ": max error " << report.max_error << " at " << report.worst_index;
    // Up to 1e6 both numbers are judged. From 1e12 on, rounding in f (about 1e-3 and more) swamps the
    // slope 1.5 over a step of 1e-6: x[0] is probed but not judged, only x[1] is.
    EXPECT_EQ(report.checks + report.unjudged, 2u) << big;
    EXPECT_EQ(report.unjudged, big >= 1e12 ? 1u : 0u) << big;
    EXPECT_LT(report.max_allowance, options.judgeable) << big;
    // Without the bound the same exact gradient fails from 1e6 on: the noise is real.
    const GradcheckReport strict = report_of(gradcheck(point, analytic, objective, 2));
    if (big >= 1e6) {
      EXPECT_FALSE(strict.passed) << big << ": max error " << strict.max_error;
    }
  }
  // A large point value itself: the step grows with it, so x = 1e300 no longer vanishes.
  const Objective linear = [](const Tensor& x) -> Result<double, std::string> { return -2.0 * x[0]; };
  for (const double x : {2e4, 1e6, 1e300, -1e300}) {
    const GradcheckReport report = report_of(gradcheck(vector_of({x}), vector_of({-2.0}), linear, 1));
    EXPECT_TRUE(report.passed) << x << ": max error " << report.max_error;
    EXPECT_EQ(report.checks, 1u) << x;
  }
}

TEST(Gradcheck, WhereRoundingCouldHideAnyErrorANumberIsNotJudged) {
  // At 1e12 the x[1] term makes f's rounding about 1e-3: a gradient of 1.6, or -1.5, or 0, for x[0] could not
  // be told from the true 1.5. Such a number neither passes nor fails: it is counted as unjudged.
  const Objective objective = [](const Tensor& x) -> Result<double, std::string> {
    return 1.5 * x[0] + 1e12 * x[1];
  };
  const Tensor point = vector_of({0.3, 3.0});
  GradcheckOptions options;
  options.objective_error = 2 * std::numeric_limits<double>::epsilon() * 3e12 * 1.0000001;
  for (const double wrong : {1.6, -1.5, 0.0}) {
    const GradcheckReport report =
        report_of(gradcheck(point, vector_of({wrong, 1e12}), objective, 2, options));
    EXPECT_EQ(report.unjudged, 1u) << wrong;
    EXPECT_EQ(report.checks, 1u) << wrong;  // x[1], whose derivative 1e12 is measured well
    EXPECT_EQ(report.worst_index, 1u) << wrong;
  }
  // With a bound that lets x[0] be judged, the same wrong gradients fail.
  options.objective_error = 2 * std::numeric_limits<double>::epsilon() * 3e4;
  for (const double wrong : {1.6, -1.5, 0.0}) {
    const Objective small = [](const Tensor& x) -> Result<double, std::string> {
      return 1.5 * x[0] + 1e4 * x[1];
    };
    const GradcheckReport report = report_of(gradcheck(point, vector_of({wrong, 1e4}), small, 2, options));
    EXPECT_EQ(report.unjudged, 0u) << wrong;
    EXPECT_FALSE(report.passed) << wrong;
  }
}

TEST(Gradcheck, TheRoundingBoundStillCatchesAWrongGradient) {
  const Objective objective = [](const Tensor& x) -> Result<double, std::string> {
    return 1.5 * x[0] + 2e4 * x[1];
  };
  const Tensor point = vector_of({0.3, 3.0});
  GradcheckOptions options;
  options.objective_error = 2 * std::numeric_limits<double>::epsilon() * 6e4;
  // 1.6 instead of 1.5 is far outside the noise of about 2.7e-5 the bound allows.
  const GradcheckReport report = report_of(gradcheck(point, vector_of({1.6, 2e4}), objective, 2, options));
  EXPECT_FALSE(report.passed);
  EXPECT_EQ(report.worst_index, 0u);
  // A bound that is not a finite non-negative number is ignored, never a licence to pass.
  for (const double bad : {kNaN, kInf, -1.0}) {
    options.objective_error = bad;
    EXPECT_FALSE(report_of(gradcheck(point, vector_of({1.6, 2e4}), objective, 2, options)).passed) << bad;
  }
}

// ---- validation: every error is reported before the first objective call -------------------------------

struct Rejection {
  const char* label;
  Tensor point;
  Tensor analytic;
  double step;
  GradcheckErrorKind kind;
  std::size_t index;
  std::string message;
};

TEST(GradcheckValidation, RejectsBeforeAnyObjectiveCall) {
  const Tensor good = vector_of({1, 2, 3});
  const Tensor good_gradient = quadratic_gradient(good);
  const double max = std::numeric_limits<double>::max();
  const std::vector<Rejection> cases = {
      {"step zero", good, good_gradient, 0.0, GradcheckErrorKind::Step, 0,
       "gradcheck step must be positive and finite"},
      {"negative step", good, good_gradient, -kStep, GradcheckErrorKind::Step, 0,
       "gradcheck step must be positive and finite"},
      {"NaN step", good, good_gradient, kNaN, GradcheckErrorKind::Step, 0,
       "gradcheck step must be positive and finite"},
      {"infinite step", good, good_gradient, kInf, GradcheckErrorKind::Step, 0,
       "gradcheck step must be positive and finite"},
      {"step before shape", good, vector_of({1, 2}), 0.0, GradcheckErrorKind::Step, 0,
       "gradcheck step must be positive and finite"},
      {"shape mismatch", good, vector_of({1, 2}), kStep, GradcheckErrorKind::ShapeMismatch, 0,
       "gradcheck analytic gradient must have the point's shape"},
      {"same count, other shape", make({3, 1}, {1, 2, 3}), good_gradient, kStep,
       GradcheckErrorKind::ShapeMismatch, 0, "gradcheck analytic gradient must have the point's shape"},
      {"NaN point", vector_of({1, 2, kNaN}), good_gradient, kStep, GradcheckErrorKind::NonFinitePoint, 2,
       "gradcheck point must be finite at index 2"},
      {"infinite point", vector_of({1, -kInf, 3}), good_gradient, kStep, GradcheckErrorKind::NonFinitePoint,
       1, "gradcheck point must be finite at index 1"},
      // The step scales with |x|, so only a step below half an ulp of 1 can vanish (1e300 no longer does).
      {"value too large for the step", vector_of({1, 2, 1e300}), good_gradient, 1e-17,
       GradcheckErrorKind::StepVanishes, 0,
       "gradcheck step vanishes or overflows at index 0: the value is too large for the step"},
      {"step overflows at the largest double", vector_of({1, 2, max}), good_gradient, kStep,
       GradcheckErrorKind::StepVanishes, 2,
       "gradcheck step vanishes or overflows at index 2: the value is too large for the step"},
      {"probe overflows", vector_of({max, 2, 3}), good_gradient, 1e300, GradcheckErrorKind::StepVanishes, 0,
       "gradcheck step vanishes or overflows at index 0: the value is too large for the step"},
      {"analytic NaN", good, vector_of({2, 3, kNaN}), kStep, GradcheckErrorKind::NonFiniteAnalytic, 2,
       "gradcheck analytic gradient must be finite at index 2"},
      {"analytic inf", good, vector_of({kInf, 3, 4}), kStep, GradcheckErrorKind::NonFiniteAnalytic, 0,
       "gradcheck analytic gradient must be finite at index 0"},
      // Coordinates are validated in sample order, each completely: the earlier coordinate wins.
      {"earlier coordinate wins", vector_of({1, -max, kNaN}), vector_of({2, kNaN, 4}), kStep,
       GradcheckErrorKind::StepVanishes, 1,
       "gradcheck step vanishes or overflows at index 1: the value is too large for the step"},
      {"point before analytic", vector_of({kNaN, 2, 3}), vector_of({kNaN, 3, 4}), kStep,
       GradcheckErrorKind::NonFinitePoint, 0, "gradcheck point must be finite at index 0"},
  };
  for (const Rejection& rejection : cases) {
    Recorder recorder{quadratic};
    GradcheckOptions options;
    options.step = rejection.step;
    const GradcheckError error =
        error_of(gradcheck(rejection.point, rejection.analytic, recorder.objective(), 3, options));
    EXPECT_EQ(error.kind, rejection.kind) << rejection.label;
    EXPECT_EQ(error.index, rejection.index) << rejection.label;
    EXPECT_EQ(error.message(), rejection.message) << rejection.label;
    EXPECT_TRUE(recorder.probes.empty()) << rejection.label;
  }
}

TEST(GradcheckValidation, ObjectiveErrorPropagatesAtOnce) {
  // Fails on the fifth call: the centre probe of the second coordinate.
  int calls = 0;
  const Objective objective = [&calls](const Tensor& x) -> Result<double, std::string> {
    if (++calls == 5) return fail(std::string("layer rejected the probe"));
    return quadratic(x);
  };
  const Tensor point = vector_of({1, 2, 3});
  const GradcheckError error = error_of(gradcheck(point, quadratic_gradient(point), objective, 3));
  EXPECT_EQ(error.kind, GradcheckErrorKind::Objective);
  EXPECT_EQ(error.index, 1u);
  EXPECT_EQ(error.detail, "layer rejected the probe");
  EXPECT_EQ(error.message(), "gradcheck objective failed at index 1: layer rejected the probe");
  EXPECT_EQ(calls, 5);
}

}  // namespace
}  // namespace qkv
