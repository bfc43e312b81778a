#include "autograd/gradcheck.hpp"

#include <algorithm>
#include <cmath>

namespace qkv {

std::string GradcheckError::message() const {
  const std::string at = " at index " + std::to_string(index);
  switch (kind) {
    case GradcheckErrorKind::Step:
      return "gradcheck step must be positive and finite";
    case GradcheckErrorKind::ShapeMismatch:
      return "gradcheck analytic gradient must have the point's shape";
    case GradcheckErrorKind::NonFinitePoint:
      return "gradcheck point must be finite" + at;
    case GradcheckErrorKind::StepVanishes:
      return "gradcheck step vanishes or overflows" + at + ": the value is too large for the step";
    case GradcheckErrorKind::NonFiniteAnalytic:
      return "gradcheck analytic gradient must be finite" + at;
    case GradcheckErrorKind::Objective:
      return "gradcheck objective failed" + at + ": " + detail;
  }
  return "unknown gradcheck error";
}

Result<GradcheckReport, GradcheckError> gradcheck(const Tensor& point, const Tensor& analytic,
                                                  const Objective& objective, std::size_t max_samples,
                                                  GradcheckOptions options) {
  if (!(options.step > 0.0) || !std::isfinite(options.step))
    return fail(GradcheckError{GradcheckErrorKind::Step});
  // A NaN, infinite or negative bound would make every comparison meaningless: treat it as unknown.
  const double objective_error =
      std::isfinite(options.objective_error) && options.objective_error > 0.0 ? options.objective_error : 0.0;
  const auto step_at = [&options](double x) { return options.step * std::max(1.0, std::fabs(x)); };
  if (analytic.shape() != point.shape()) return fail(GradcheckError{GradcheckErrorKind::ShapeMismatch});

  const std::size_t n = point.size();
  const std::size_t samples = std::min(max_samples, n);
  std::vector<std::size_t> indices;
  for (std::size_t k = 0; k < samples; ++k)
    indices.push_back(samples == 1 ? n / 2 : k * (n - 1) / (samples - 1));

  for (std::size_t index : indices) {
    const double x = point[index];
    if (!std::isfinite(x)) return fail(GradcheckError{GradcheckErrorKind::NonFinitePoint, index, x});
    const double below = x - step_at(x);
    const double above = x + step_at(x);
    // Positive spacings imply x ± h differ from x; finiteness keeps the probes on the tape's terms.
    if (!std::isfinite(below) || !std::isfinite(above) || !(x - below > 0.0) || !(above - x > 0.0)) {
      return fail(GradcheckError{GradcheckErrorKind::StepVanishes, index, x});
    }
    if (!std::isfinite(analytic[index])) {
      return fail(GradcheckError{GradcheckErrorKind::NonFiniteAnalytic, index, analytic[index]});
    }
  }

  GradcheckReport report;
  Tensor probe = point;
  for (std::size_t index : indices) {
    const double x = point[index];
    double values[3];
    const double h = step_at(x);
    const double positions[3] = {x - h, x, x + h};  // minus, centre, plus
    for (int i = 0; i < 3; ++i) {
      probe.mutable_values()[index] = positions[i];
      auto value = objective(probe);
      probe.mutable_values()[index] = x;
      if (!value) return fail(GradcheckError{GradcheckErrorKind::Objective, index, x, value.error()});
      values[i] = *value;
    }
    // The spacings floating point really gives; the weights make this exact for quadratics even when
    // the two spacings differ (they usually do).
    const double below_spacing = x - positions[0];
    const double above_spacing = positions[2] - x;
    const double scale = std::max(below_spacing, above_spacing);
    const double below_scaled = below_spacing / scale;
    const double above_scaled = above_spacing / scale;
    const double left_weight = above_scaled / (below_scaled + above_scaled);
    const double right_weight = below_scaled / (below_scaled + above_scaled);
    const double numeric = left_weight * (values[1] - values[0]) / below_spacing +
                           right_weight * (values[2] - values[1]) / above_spacing;

    const double a = analytic[index];
    const double s = std::max({1.0, std::fabs(a), std::fabs(numeric)});
    const double error = std::fabs(a / s - numeric / s);
    const double rounding = 2.0 * objective_error / std::min(below_spacing, above_spacing) / s;
    const double allowance = options.tolerance + rounding;
    if (!(allowance < options.judgeable)) {
      ++report.unjudged;
      continue;
    }
    ++report.checks;
    report.max_allowance = std::max(report.max_allowance, allowance);
    if (error > report.max_error || report.checks == 1) {
      report.max_error = error;
      report.worst_index = index;
      report.worst_analytic = a;
      report.worst_numeric = numeric;
    }
    if (!(error <= allowance)) report.passed = false;
  }
  return report;
}

}  // namespace qkv
