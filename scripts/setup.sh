#!/usr/bin/env bash
# Installs what the lesson needs and is missing: Debian packages (compilers, clang-14 with libFuzzer for the
# fuzz step, clang-format, GoogleTest, JSON and argument libraries, Emscripten, Chromium, Firefox ESR, WebKitGTK's WebDriver and Xvfb for
# the three-engine tests, numpy with OpenBLAS, xmllint) and the npm packages pinned in package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
command -v g++ >/dev/null || need+=(g++)
command -v clang++-14 >/dev/null || need+=(clang-14)
# The C++ sources are kept as .clang-format says (tests/node/format.test.mjs checks them with Debian 12's 14).
command -v clang-format >/dev/null || need+=(clang-format)
compgen -G "/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null || need+=(libclang-rt-14-dev)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
[ -f /usr/include/nlohmann/json.hpp ] || need+=(nlohmann-json3-dev)
[ -f /usr/include/CLI/CLI.hpp ] || need+=(libcli11-dev)
command -v em++ >/dev/null || need+=(emscripten)
[ -x /usr/bin/chromium ] || need+=(chromium)
# tests/engines: Firefox through puppeteer-core (WebDriver BiDi), WebKitGTK's MiniBrowser through WebKitWebDriver,
# which has no headless mode and runs under xvfb-run.
[ -x /usr/bin/firefox-esr ] || need+=(firefox-esr)
[ -x /usr/bin/WebKitWebDriver ] || need+=(webkit2gtk-driver)
command -v xvfb-run >/dev/null || need+=(xvfb)
# tests/node/shipping.test.mjs validates each SCORM manifest against its zip's XSDs.
command -v xmllint >/dev/null || need+=(libxml2-utils)
/usr/bin/python3 -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
# numpy on single-threaded OpenBLAS is bench:core's reference (Debian's numpy otherwise uses reference BLAS).
compgen -G "/usr/lib/*/openblas-pthread/libblas.so.3" >/dev/null || need+=(libopenblas0-pthread)
command -v node >/dev/null || need+=(nodejs npm)
if ((${#need[@]})); then
  echo "== installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# npm ci only when the lock file changed since the last install.
stamp=node_modules/.package-lock.json
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ]; then
  echo "== npm ci"
  # --prefer-offline: packages already in npm's cache (a machine that installed them once) are not fetched again.
  npm ci --prefer-offline --no-audit --no-fund --loglevel=error
fi
