// Work budgets: what a request will cost, estimated from its sizes before any of it runs, so that every
// accepted request finishes quickly and a too-large one is refused with a message naming the limit. This
// header holds what every budget shares: the unit, the weight of a number handed back, and the refusal's
// message. Each cost model and its limit live beside the work they count: chapter26/evidence_cost.hpp (the
// evidence), bench/bench_cost.hpp (the benchmark), self_score/self_score.hpp (the seed search) and
// cli/limits.hpp (the command line's seeded initialisation and request bytes).
//
// The unit is one "operation": a multiply-add, or one element allocated, copied or visited. Other steps
// are counted in those units by the weight stated beside them. Costs are doubles: extents may be as large
// as 2^64 - 1, and their products must compare with a limit without overflowing (rounding is harmless at
// these magnitudes).
//
// The limits were measured on the 2-core development machine (GCC 12, Release, one core) so that every
// accepted request finishes in well under 2 s; each limit's measurement is beside it. When the kernels get
// faster, re-measure (time `qkv-lesson evidence` on requests just under the limit) and raise the limits:
// they are plain constants.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

#include "support/decimal.hpp"

namespace qkv {

// Every number handed back to the caller costs about this many operations to format (nlohmann's shortest
// round-trip, about 80 ns) or to copy into JavaScript.
inline constexpr double kOutputValueOperations = 60;

// Two significant digits in the style of a C literal without '+' or leading exponent zeros: "3.1e10",
// "4e8"; below a million as a whole number ("24000"). `digits` significant digits when more are asked for.
inline std::string format_operations(double count, int digits = 2) {
  char text[40];
  if (count < 1e6) {
    std::snprintf(text, sizeof text, "%.0f", count);
    return text;
  }
  std::snprintf(text, sizeof text, "%.*g", digits, count);  // "3.1e+10"
  std::string out = text;
  const std::size_t e = out.find('e');
  if (e == std::string::npos) return out;
  std::string exponent = out.substr(e + 1);
  if (!exponent.empty() && exponent[0] == '+') exponent.erase(0, 1);
  while (exponent.size() > 1 && exponent[0] == '0') exponent.erase(0, 1);
  return out.substr(0, e) + "e" + exponent;
}

// A refused cost as written must read larger than its limit as written: two digits unless they round it
// down to the limit's text ("2e8 ... limit of 2e8" for 200000001), then as many as it takes (17 always do).
// Read with parse_decimal, not std::stod: musl's strtod would bring its long-double arithmetic into the
// page's module (7.2 kB of gzip) for this one message.
inline std::string format_refused_cost(double cost, double limit) {
  if (!std::isfinite(cost)) return format_operations(cost);  // printf's "inf" or "nan": nothing to read
  const double limit_as_written = parse_decimal(format_operations(limit)).value();
  for (int digits = 2; digits < 17; ++digits) {
    const std::string text = format_operations(cost, digits);
    if (parse_decimal(text).value() > limit_as_written) return text;
  }
  return format_operations(cost, 17);
}

struct BudgetError {
  std::string what;  // "evidence request", "seed search", ...
  double cost = 0;
  double limit = 0;
  std::string detail;               // optional, e.g. "1000000 seeds of 4900 each"
  std::string unit = "operations";  // "flops" for the benchmark

  // e.g. "evidence request costs 3.1e10 operations, more than the limit of 4e8"
  std::string message() const {
    std::string text = what + " costs " + format_refused_cost(cost, limit) + " " + unit;
    if (!detail.empty()) text += " (" + detail + ")";
    return text + ", more than the limit of " + format_operations(limit);
  }
};

}  // namespace qkv
