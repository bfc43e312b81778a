// Reading a decimal: one reader for every number the core reads, the learner's and its own (a budget's
// refused cost, support/budget.hpp), so every front end reads the same text as the same bits.
#pragma once

#include <optional>
#include <string>

namespace qkv {

// A decimal: optional sign, digits with an optional point, optional exponent with its digits ("-1.5", ".5",
// "5.", "2e-3"), and nothing else (no spaces). Its value is the double nearest to it, ties to even (±infinity
// past a double's range), correctly rounded on both front ends, so the same bits. Any other text ("2e",
// "inf", "0x10", " 1", "") has no value, on both front ends alike.
std::optional<double> parse_decimal(const std::string& text);

}  // namespace qkv
