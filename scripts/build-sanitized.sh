#!/usr/bin/env bash
# The instrumented build in build/sanitize: clang, AddressSanitizer + UndefinedBehaviorSanitizer, the libraries
# once for both the GoogleTests (the gate's sanitizer run) and the libFuzzer harnesses (tests/fuzz/run.sh).
# -O0 with line tables for the tests' own files (most of the compile time; CMakeLists.txt puts the libraries at -O1).
# Extra arguments go to `cmake --build` (a --target, say).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
  "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DQKV_SANITIZE=ON -DQKV_FUZZ=ON >/dev/null
cmake --build build/sanitize -j2 "$@"
