#!/usr/bin/env bash
# Builds the native core and tool (build/native), the core's TypeScript types from the tool's field lists
# (web/src/lesson/core-types.d.ts), the WebAssembly modules (build/wasm without SIMD and
# build/wasm-simd with it, both -> web/src/wasm; the page picks one) and the static site (dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs # Emscripten's optimiser needs Debian's acorn

cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j2
# The page's types of the core's requests and responses, from the field lists the tool prints (git-ignored).
node scripts/generate-core-types.mjs
# Node 20 rejects emcmake's default emulator flag, hence the explicit emulator.
emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
cmake --build build/wasm -j2
emcmake cmake -S . -B build/wasm-simd -G Ninja -DCMAKE_BUILD_TYPE=Release -DQKV_WASM_SIMD=ON -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
cmake --build build/wasm-simd -j2
npx vite build web --logLevel warn
