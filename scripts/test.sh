#!/usr/bin/env bash
# `npm test`: every test. Native C++ (GoogleTest via CTest), the same tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, independent numpy checks of the command-line tool, the WebAssembly module in
# Node, a type check, and the built page in headless Chromium. Stops at the first failure; prints each step's
# time at the end (also after a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$SECONDS
steps=()
step_name=''
step_start=$SECONDS
sanitize_build_pid=''

# Closes the running step's row of the time table and opens the next one.
step() {
  [ -n "$step_name" ] && steps+=("$(printf '%6ds  %s' "$((SECONDS - step_start))" "$step_name")")
  step_name="$*"
  step_start=$SECONDS
  echo "== [$((SECONDS - T0))s] $*"
}

finish() {
  local status=$?
  if [ -n "$sanitize_build_pid" ]; then
    kill -- "-$sanitize_build_pid" 2>/dev/null || true
    wait "$sanitize_build_pid" 2>/dev/null || true
  fi
  [ -n "$step_name" ] && steps+=("$(printf '%6ds  %s%s' "$((SECONDS - step_start))" "$step_name" "$( ((status)) && echo '  (failed)')")")
  echo "== step times (wall clock, seconds):"
  printf '%s\n' "${steps[@]}"
  printf '%6ds  total\n' "$((SECONDS - T0))"
}
trap finish EXIT

step setup
scripts/setup.sh

step "build (native, wasm, site, npm library)"
scripts/build.sh
# dist-lib/ once, before the browser files run two at a time: three of them read it (dist-fonts, and the npm
# tarball of npm-package and bundlers), and a rebuild by one while another reads it would fail them at random.
npm run --silent build:lib
export QKV_LIB_BUILT=1 # scripts/pack-npm.mjs packs this dist-lib/ instead of building it again

step "ctest (native)"
ctest --test-dir build/native --output-on-failure -j2

# The sanitizer build (about a third of the gate's CPU time) compiles at one job in the background while the
# steps below that leave a core idle run: libFuzzer is one process, numpy one thread, tsc and the node tests
# mostly one. Limiting the sanitizer run to what the fuzzers do not cover instead would need a coverage map of
# 30 test files kept up to date by hand; overlapping keeps every GoogleTest under ASan + UBSan.
# -O0 with line tables only: the instrumented build compiles in a fraction of the time of -O2 -g.
# In a process group of its own (setsid), so that a failure elsewhere stops the whole build (finish, above).
mkdir -p build
setsid bash -c 'cmake -S . -B build/sanitize -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -g1" -DQKV_SANITIZE=ON >/dev/null &&
  exec nice -n 5 cmake --build build/sanitize -j1' >build/sanitize-build.log 2>&1 &
sanitize_build_pid=$!

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

step "sanitizer build (what is left of it after the steps above)"
if ! wait "$sanitize_build_pid"; then
  sanitize_build_pid=''
  tail -n 60 build/sanitize-build.log >&2
  echo "the sanitizer build failed; its log is build/sanitize-build.log" >&2
  exit 1
fi
sanitize_build_pid=''

step "ctest (AddressSanitizer + UndefinedBehaviorSanitizer)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build/sanitize --output-on-failure -j2

# Two files at a time: each starts its own server on a free port and its own browser, and they share only what
# they read (dist/, dist-lib/). The harness waits for the page's own signals, not for short fixed deadlines, so
# a file slowed by its neighbour waits longer instead of failing; a test that hangs still fails at the timeout.
step "browser tests (headless Chromium against dist/, two files at a time)"
node --test --test-concurrency=2 --test-timeout=600000 tests/browser/*.test.mjs

step "learner's checks in three engines (Firefox ESR, WebKitGTK on a display of its own, and what Chromium shows for the comparison)"
node --test --test-concurrency=1 tests/engines/*.test.mjs

echo "== [$((SECONDS - T0))s] all tests passed"
