// Number formatting for every output the lesson prints: C++ formats, the page only displays.
#pragma once

#include <string>
#include <vector>

namespace qkv {

// printf's %.6f, as the course's report and trace print ("-0.000000" stays).
std::string format_fixed6(double value);
// printf's %.<digits>f.
std::string format_fixed(double value, int digits);
// "[" + %.6f values joined by "," + "]".
std::string format_vector6(const std::vector<double>& values);
// printf's %.17g: always enough digits to read back the same double (numpy-style listings print this).
std::string format_significant17(double value);
// The shortest decimal that reads back to the same double ("1", "-1.5", "0.1", "4.4e-10").
std::string format_shortest(double value);

}  // namespace qkv
