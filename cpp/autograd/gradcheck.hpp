// Gradcheck: compares analytic gradients with central differences, one coordinate at a time.
#pragma once

#include <functional>
#include <string>

#include "tensor/tensor.hpp"

namespace qkv {

struct GradcheckOptions {
  double step = 1e-6;       // nominal; the derivative uses the spacings that floating point actually gives
  double tolerance = 2e-6;  // on |a/s - n/s| with s = max(1, |a|, |n|): absolute below 1, relative above
};

struct GradcheckReport {
  std::size_t checks = 0;
  double max_error = 0.0;
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
