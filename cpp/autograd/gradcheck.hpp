// Gradcheck: compares analytic gradients with central differences, one coordinate at a time.
#pragma once

#include <functional>
#include <string>

#include "tensor/tensor.hpp"

namespace qkv {

// How each checked coordinate x is probed and judged.
//
// Step: x is moved by h = step * max(1, |x|). Central differences lose about eps * |f| / h to rounding, so a
// fixed h that suits x = 1 drowns in noise at x = 2e4 and vanishes entirely at x = 1e300 (x + h == x);
// scaling h with |x| keeps h a fixed number of ulps of x, and for |x| <= 1 (the chapter's fixture at its
// worst coordinate) h is exactly `step`. The derivative uses the spacings floating point actually gives.
//
// Pass rule: |a/s - n/s| <= tolerance + 2 * objective_error / (h' * s), with s = max(1, |a|, |n|) (absolute
// below 1, relative above) and h' the smaller of the two spacings. The second term is the most that
// rounding in the objective can move the numeric derivative: each evaluation is off by at most
// objective_error, a difference of two by twice that, divided by the spacing. Without it, exact
// gradients fail whenever the objective sums terms much larger than the derivative (X[0] = 2e4 gave
// 2.8e-6 at X[3]). With objective_error = 0 it is the plain tolerance test.
//
// Judged or not: when the allowance (tolerance plus rounding term) reaches `judgeable`, rounding in the
// objective could hide a gradient off by a factor of two or of the wrong sign (|a/s - n/s| is 0.5 for
// a = 2n), so that coordinate proves nothing: it is counted as unjudged, and neither passes nor fails.
// At X[0] = 1e12 the loss swallows the probe (n = 0) and every coordinate is unjudged.
struct GradcheckOptions {
  double step = 1e-6;            // at unit scale; the probe moves x by step * max(1, |x|)
  double tolerance = 2e-6;       // on |a/s - n/s| with s = max(1, |a|, |n|)
  double objective_error = 0.0;  // a bound on |computed f - exact f| near the point; 0: not known
  double judgeable = 0.5;        // coordinates whose allowance reaches this are not judged
};

struct GradcheckReport {
  std::size_t checks = 0;      // coordinates judged
  std::size_t unjudged = 0;    // coordinates probed whose allowance reached `judgeable`
  double max_allowance = 0.0;  // the largest allowance (tolerance + rounding term) a judged coordinate had
  double max_error = 0.0;      // over judged coordinates
  std::size_t worst_index = 0;
  double worst_analytic = 0.0;
  double worst_numeric = 0.0;
  bool passed = true;
};

enum class GradcheckErrorKind {
  Step,
  ShapeMismatch,
  NonFinitePoint,
  StepVanishes,
  NonFiniteAnalytic,
  Objective
};

struct GradcheckError {
  GradcheckErrorKind kind;
  std::size_t index = 0;
  double value = 0.0;
  std::string detail;  // the objective's own message, for Objective

  std::string message() const;
};

// The scalar function whose gradient is checked, evaluated at a probe point of the same shape.
using Objective = std::function<Result<double, std::string>(const Tensor& probe)>;

// Checks `max_samples` coordinates spread evenly over the tensor (sample k of s has flat index
// floor(k(n-1)/(s-1)); n/2 when s is 1). Every coordinate is validated before any objective call.
Result<GradcheckReport, GradcheckError> gradcheck(const Tensor& point, const Tensor& analytic,
                                                  const Objective& objective, std::size_t max_samples,
                                                  GradcheckOptions options = {});

}  // namespace qkv
