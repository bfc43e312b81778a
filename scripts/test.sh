#!/usr/bin/env bash
# `npm test`: every test. Native C++ (GoogleTest via CTest), the same tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, independent numpy checks of the command-line tool, the WebAssembly module in
# Node, a type check, and the built page in headless Chromium. Stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
step() { echo "== [$((SECONDS - T0))s] $*"; }

step setup
scripts/setup.sh

step "build (native, wasm, site)"
scripts/build.sh

step "ctest (native)"
ctest --test-dir build/native --output-on-failure -j2

step "ctest (AddressSanitizer + UndefinedBehaviorSanitizer)"
# -O0 with line tables only: the instrumented build compiles in a fraction of the time of -O2 -g.
cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DQKV_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j2
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j2

step "fuzz (libFuzzer, ASan + UBSan: the evidence request, the lesson state, the number readers; 20 s each)"
tests/fuzz/run.sh 20

step "numpy cross-checks of the command-line tool (unseen shapes and seeds)"
for check in tools/check_*_numpy.py; do
  /usr/bin/python3 "$check" --cases 100 --seed "$((20261129 + RANDOM))"
done

step "type check"
npx tsc -p tsconfig.json

step "node tests (WebAssembly module)"
node --test tests/node/*.test.mjs

step "browser tests (headless Chromium against dist/)"
node --test --test-concurrency=1 tests/browser/*.test.mjs

step "learner's checks in three engines (Chromium, Firefox ESR, WebKitGTK on a display of its own, against dist/)"
node --test --test-concurrency=1 tests/engines/*.test.mjs

step "all tests passed"
