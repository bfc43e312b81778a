// The one reader of what a learner types: a number in a cell or an answer, a count, a shape, a vector.
// It reads back every form the page itself writes (the Unicode minus "−1", "3 × 2", "2 of 5") and the
// usual ways people write them ("-1", "1.5", "3/2", "1.8e1", "[4,7,2]", "(4, 7, 2)", "4x7x2", "4*7*2"); a
// count never reads a slash as division ("5/5" is 5 of 5), and reads "3×3×2" as the product it writes.
// Anything else is refused with a message that says what was typed and what was expected.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/result.hpp"
#include "tensor/tensor.hpp"

namespace qkv {

// Why a text was not read: what was typed (shortened for display) and what was expected there.
struct ReadError {
  std::string typed;     // the learner's text, shortened to 80 characters
  std::string expected;  // "a number such as −1.5, 3/2 or 2e-3"
  // "\"2..5\" is not a number: expected a number such as −1.5, 3/2 or 2e-3"
  std::string message() const;
};

// A finite number: optional sign (+, - or −), digits with an optional point, optional exponent, or a
// fraction of two such numbers ("3/2"). Spaces around it are ignored. "nan", "inf" and hex are refused;
// so are a number past a double's range ("1e999") and a zero denominator, each with its own message.
Result<double, ReadError> read_number(const std::string& text);

// A whole number from `min` to `max`: "5", "05", "5.0", "1.8e1", a product written as a shape is
// ("3×3×2", "3 x 3 x 2", "3*3*2": 18), or a count out of a total, "2 of 5", "2 out of 5", "2/5" (the first
// number, never the quotient; a total smaller than the count is refused). When the question names its
// total (`question_total`), a count out of any other total is refused: "2/4" does not answer "how many of
// the 5 rows".
Result<Extent, ReadError> read_count(const std::string& text, Extent min, Extent max,
                                     std::optional<Extent> question_total = std::nullopt);

// A list of whole numbers: "[4,7,2]", "(4, 7, 2)", "4 x 7 x 2", "4×7×2", "4*7*2", "[4.0,7,2]".
Result<Shape, ReadError> read_shape(const std::string& text);

// A list of numbers: "[0, 3]", "(0; 3)", "0 3", "[−1, 1.5]".
Result<std::vector<double>, ReadError> read_vector(const std::string& text);

}  // namespace qkv
