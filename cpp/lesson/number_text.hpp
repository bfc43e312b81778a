// Reading what a learner typed: decimal numbers, whole-number sizes and shapes. The page never parses
// numbers itself; every rejected entry gets its message here.
#pragma once

#include <string>

#include "tensor/tensor.hpp"

namespace qkv {

// A finite decimal: optional sign, digits with an optional point, optional exponent ("-1.5", "2e-3", ".5").
// Surrounding spaces are ignored; "nan", "inf", hex and anything else are refused.
Result<double, std::string> parse_decimal(const std::string& text);
// A whole number from 0 to `max`; `name` starts the message ("batch must be ...").
Result<Extent, std::string> parse_extent(const std::string& text, const std::string& name, Extent max);
// "[4,7,2]", "4,7,2", "4 x 7 x 2" or "(4, 7, 2)": a list of whole numbers.
Result<Shape, std::string> parse_shape(const std::string& text);

// "[0, 3]", "0,3" or "0 3": a list of decimals.
Result<std::vector<double>, std::string> parse_vector(const std::string& text);

}  // namespace qkv
