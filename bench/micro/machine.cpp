// qkv-machine: prints bench/micro/machine.hpp's fields as one line of JSON (numbers as numbers), for
// bench/core.mjs to store beside its timings. It reads the same environment as the kernel (QKV_GEMM_PATH,
// QKV_GEMM_L1D, QKV_GEMM_L2, QKV_GEMM_BLOCKING), so it reports the plan the timed children ran.
#include "machine.hpp"

#include <iostream>
#include <nlohmann/json.hpp>

int main() {
  nlohmann::ordered_json out;
  for (const auto& [name, value] : qkv::bench::machine_fields()) {
    const bool number = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    if (number) {
      out[name] = std::stoull(value);
    } else if (value == "yes" || value == "no") {
      out[name] = value == "yes";
    } else {
      out[name] = value;
    }
  }
  std::cout << out.dump() << '\n';
  return 0;
}
