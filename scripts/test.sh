#!/usr/bin/env bash
# `npm test`: every test. Native C++ (GoogleTest via CTest), the same tests under AddressSanitizer and
# UndefinedBehaviorSanitizer, libFuzzer, independent numpy checks of the command-line tool, the WebAssembly
# module in Node, a type check, the built page in headless Chromium, and the learner's checks in three engines.
# Two lanes: this one, and a CPU lane in the background (scripts/test-lane.sh: the sanitizer build and run, the
# fuzzers) that fills the core the browser steps leave idle. Stops at the first failure of either; prints each
# step's wall-clock and CPU seconds at the end (also after a failure).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
T0=$SECONDS
steps=()
step_name=''
step_start=$SECONDS
step_cpu=0
lane_pid=''
lane_times=build/test-lane-times.txt
lane_log=build/test-lane.log
file_times=build/test-file-times.txt
rm -f "$file_times"

# Sets cpu to the CPU seconds (user + system) of this shell's finished children. `times` runs in this shell
# (a redirect; a pipe or $(…) would fork, and the fork's children are none), so callers read $cpu after it.
cpu_now() {
  times >build/.test-times
  cpu=$(awk 'NR == 2 { n = split($0, f, /[ms ]+/); s = 0; for (i = 1; i < n; i += 2) s += f[i] * 60 + f[i + 1]; printf "%d", s }' build/.test-times)
}

# Closes the running step's row of the time table and opens the next one.
close_step() {
  [ -z "$step_name" ] && return 0
  cpu_now
  steps+=("$(printf '%6ds %6ds  %s%s' "$((SECONDS - step_start))" "$((cpu - step_cpu))" "$step_name" "${1:-}")")
  step_name=''
}
step() {
  close_step
  # The lane ended before this step: a failure there stops the gate now, not after the browser steps.
  if [ -n "$lane_pid" ] && ! kill -0 "$lane_pid" 2>/dev/null; then
    wait "$lane_pid" || lane_failed
    lane_pid=''
  fi
  step_name="$*"
  step_start=$SECONDS
  cpu_now
  step_cpu=$cpu
  echo "== [$((SECONDS - T0))s] $*"
}

# A lane that failed: its log's end, and the gate stops.
lane_failed() {
  lane_pid=''
  tail -n 80 "$lane_log" >&2
  echo "the sanitizer and fuzz lane failed; its log is $lane_log" >&2
  exit 1
}

finish() {
  local status=$?
  if [ -n "$lane_pid" ]; then
    kill -- "-$lane_pid" 2>/dev/null || true
    wait "$lane_pid" 2>/dev/null || true
  fi
  close_step "$( ((status)) && echo '  (failed)')"
  echo "== step times (seconds: wall clock, CPU of that step's processes)"
  printf '%s\n' "${steps[@]}"
  if [ -s "$lane_times" ]; then
    echo "   in the background lane, at the same time:"
    sed 's/^/ /' "$lane_times"
  fi
  cpu_now
  printf '%6ds %6ds  total (CPU: every process of both lanes)\n' "$((SECONDS - T0))" "$cpu"
  if [ -s "$file_times" ]; then
    echo "== the slowest test files (wall seconds, two files at a time; all of them in $file_times)"
    head -n 10 "$file_times"
  fi
}
trap finish EXIT

step setup
scripts/setup.sh

# The CPU lane starts now, niced, so that it takes only what this lane leaves (the build's single-threaded
# links, the browser files' waits). In a process group of its own (job control on for this one job), so that a
# failure stops all of it; in this shell's session, so that nice -n works against this lane's processes (with the
# kernel's autogroups, a session of its own, as setsid makes, would share the CPU as an equal whatever its nice).
rm -f "$lane_times"
set -m
nice -n 10 scripts/test-lane.sh "$lane_times" >"$lane_log" 2>&1 &
lane_pid=$!
set +m

step "build (native, wasm, site, npm library)"
scripts/build.sh
# dist-lib/ once, before the browser files run side by side: three of them read it (dist-fonts, and the npm
# tarball of npm-package and bundlers), and a rebuild by one while another reads it would fail them at random.
npm run --silent build:lib
export QKV_LIB_BUILT=1 # scripts/pack-npm.mjs packs this dist-lib/ instead of building it again

step "ctest (native)"
ctest --test-dir build/native --output-on-failure -j2

step "numpy cross-checks of the command-line tool (unseen shapes and seeds)"
for check in tools/check_*_numpy.py; do
  /usr/bin/python3 "$check" --cases 100 --seed "$((20261129 + RANDOM))"
done

step "type check"
npx tsc -p tsconfig.json

# One pool, two files at a time (docs/testing.md: alone on a quiet machine, back to back, the pool took 560 s at
# two against 613 s at three): the WebAssembly module in Node, the built page in headless Chromium, and the
# learner's checks in Firefox ESR and WebKitGTK (on a display of its own) with what Chromium shows for the comparison. Each browser file starts its own
# server on a free port and its own browser; they share only what they read (dist/, dist-lib/). The harness waits for
# the page's own signals, not for short fixed deadlines, so a file slowed by its neighbour waits longer instead of
# failing; a test that hangs still fails at the timeout. Node 20 runs them in path order: the engines file (about a
# minute) starts after the browser files, beside the many short Node files.
step "node, browser and engine tests (the module in Node; the page in Chromium; Firefox ESR and WebKitGTK), two files at a time"
# Two reporters: node's usual one (spec on a terminal, TAP otherwise), and each file's time for the table at the end.
reporter=tap
[ -t 1 ] && reporter=spec
node --test --test-concurrency=2 --test-timeout=600000 \
  --test-reporter="$reporter" --test-reporter-destination=stdout \
  --test-reporter=./tests/file-times-reporter.mjs --test-reporter-destination="$file_times" \
  tests/engines/*.test.mjs tests/node/*.test.mjs tests/browser/*.test.mjs

step "the background lane's end (sanitizers, fuzzers)"
if [ -n "$lane_pid" ]; then
  # The main lane is done, so the lane no longer yields to it: back to the usual priority, or other work on the
  # machine (another job on a shared runner) would starve it. ninja's running compilers keep their nice until
  # they end; the ones it starts next take ninja's. Lowering a nice value needs root (CI's setup runs as root).
  renice -n 0 -g "$lane_pid" >/dev/null 2>&1 || true
  wait "$lane_pid" || lane_failed
  lane_pid=''
fi

close_step
echo "== [$((SECONDS - T0))s] all tests passed"
