#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang-14, ASan + UBSan; scripts/build-sanitized.sh, the build the sanitizer
# GoogleTests use too) in build/sanitize and runs each for a fixed time:
#   tests/fuzz/run.sh [seconds per harness, default 20]
# Fails on any finding (crash, sanitizer report, timeout, out of memory); the input that caused it is left
# in build/fuzz/artifacts/, to be turned into a GoogleTest regression test. New corpus entries go to
# build/fuzz/corpus/<harness>/; the checked-in seeds in tests/fuzz/corpus/<harness>/ are only read.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:-20}"

scripts/build-sanitized.sh --target fuzz_evidence_request fuzz_lesson_state fuzz_answer_reader

mkdir -p build/fuzz/artifacts
for harness in evidence_request lesson_state answer_reader; do
  echo "== fuzz $harness for ${seconds}s"
  mkdir -p "build/fuzz/corpus/$harness"
  # One job, so the two cores stay shared; -timeout: any single input over 10 s is a finding (accepted
  # requests are budgeted to well under 2 s natively, and ASan costs about 3x).
  log="build/fuzz/$harness.log"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build/sanitize/tests/fuzz/fuzz_$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
    -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$harness-" \
    "build/fuzz/corpus/$harness" "tests/fuzz/corpus/$harness" >"$log" 2>&1; then
    grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$log" || true
  else
    tail -n 60 "$log" >&2
    echo "fuzz $harness: finding; the input is in build/fuzz/artifacts/, the log in $log" >&2
    exit 1
  fi
done
echo "== fuzz: no findings"
