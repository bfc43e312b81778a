// Text for every output the lesson prints: C++ formats numbers and shortens echoed entries; the page
// only displays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.hpp"

namespace qkv {

// printf's %.6f, as the course's report and trace print ("-0.000000" stays).
std::string format_fixed6(double value);
// printf's %.<digits>f.
std::string format_fixed(double value, int digits);
// "[" + %.6f values joined by "," + "]".
std::string format_vector6(const std::vector<double>& values);
// printf's %.17g: always enough digits to read back the same double (numpy-style listings print this).
std::string format_significant17(double value);
// A 64-bit generator state as 0x and sixteen hex digits: "0x000000000000001a".
std::string format_hex64(std::uint64_t value);
// The shortest decimal that reads back to the same double ("1", "-1.5", "0.1", "4.4e-10").
std::string format_shortest(double value);
// A number's text with the page's minus sign (U+2212) for every "-", the exponent's included: "−1.5",
// "4.1e−5". The one writer of that sign; every number the page shows in prose goes through it.
std::string with_minus_sign(const std::string& number);
// format_shortest with the page's minus sign, as prose and answers show numbers: "−1.5".
std::string format_prose(double value);
// %.<digits>g as a C literal without "+" or leading exponent zeros: "0.0123", "4.5e8", "1.2e-5".
std::string format_significant(double value, int digits);
// A whole number as people read it, "24,000": format_count in tensor/tensor.hpp (the core's messages use it).
// A shape as prose writes it: "[1, 2, 3]" (format_shape, "[1,2,3]", is the course's golden-file form).
std::string shape_text(const Shape& shape);
// Rows as prose names them: "none", "row 0", "rows 1 and 4", "rows 0, 1 and 2" (a bare "0" beside counts
// reads as a count of none).
std::string rows_text(const std::vector<std::size_t>& rows);
// At most `limit` characters (UTF-8 code points) of `text`, then "…" when it was longer: an echoed entry
// of any length stays one readable line. Bytes that are not UTF-8 become "?", so the result always is.
std::string shortened(const std::string& text, std::size_t limit = 80);

}  // namespace qkv
