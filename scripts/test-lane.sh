#!/usr/bin/env bash
# The gate's CPU lane (scripts/test.sh starts it in the background, niced, once the build is done): the
# GoogleTests again under AddressSanitizer + UndefinedBehaviorSanitizer, then the libFuzzer harnesses. These
# steps need only the C++ sources, and they fill the core that the browser tests (mostly waiting on pages) leave
# idle. Each step's wall-clock and CPU seconds go to the file named by the first argument, for test.sh's table.
set -euo pipefail
cd "$(dirname "$0")/.."
times_file="$1"
: >"$times_file"

# Sets cpu to the CPU seconds (user + system) of this shell's finished children. `times` runs in this shell
# (a redirect; a pipe or $(…) would fork, and the fork's children are none), so callers read $cpu after it.
cpu_now() {
  times >build/.lane-times
  cpu=$(awk 'NR == 2 { n = split($0, f, /[ms ]+/); s = 0; for (i = 1; i < n; i += 2) s += f[i] * 60 + f[i + 1]; printf "%d", s }' build/.lane-times)
}

lane_step() {
  local name="$1" start=$SECONDS cpu_start
  shift
  cpu_now
  cpu_start=$cpu
  echo "== [lane] $name"
  "$@"
  cpu_now
  printf '%6ds %6ds  %s\n' "$((SECONDS - start))" "$((cpu - cpu_start))" "$name" >>"$times_file"
}

# One instrumented build for the sanitizer GoogleTests and the fuzzers (clang, -O1): the libraries compile once.
sanitize_build() {
  scripts/build-sanitized.sh
}

# Every GoogleTest but seven sweeps, which ask about values over many sizes or seeds, not about memory: each
# runs the same code paths as a smaller test kept here, and together they were 185 of the 307 seconds under the
# sanitizers. The native ctest of the main lane runs them all.
# - Variant.EveryVariantForTenThousandSeeds…: 10,000 draws; Variant.QuestionsAnswersAndHints… draws 200.
# - GemmTest.{Portable,Wide,Widest}PathMatchesReferenceBitForBit: every shape up to the blocking's sizes;
#   EveryPathMatchesReferenceUnderSmallCacheBlocking and OddBlockingsGiveTheReferenceBits reach every edge and
#   tail of the blocked and vectorised loops with small shapes.
# - CliRobustness.{LongTokenAxes…, TheLargestSquareSelfScore…, AHugeBatchOfTinyItems…}: the largest requests the
#   budget accepts, timed natively; the same commands run on small requests in the CLI tests kept here.
sanitizer_sweeps='^(Variant\.EveryVariantForTenThousandSeeds|GemmTest\.(Portable|Wide|Widest)PathMatchesReferenceBitForBit|CliRobustness\.(LongTokenAxesAreRefusedByTheirCost|TheLargestSquareSelfScoreIsWrittenWhole|AHugeBatchOfTinyItemsIsRefusedByItsKernelCalls))'

sanitize_tests() {
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build/sanitize --output-on-failure -j2 -E "$sanitizer_sweeps"
}

lane_step "sanitizer build (clang, ASan + UBSan, -O1; the GoogleTests and the fuzzers)" sanitize_build
lane_step "ctest (AddressSanitizer + UndefinedBehaviorSanitizer; not the seven sweeps)" sanitize_tests
lane_step "fuzz (libFuzzer, ASan + UBSan: the evidence request, the lesson state, the number readers; 20 s each)" \
  tests/fuzz/run.sh 20
echo "== [lane] done"
