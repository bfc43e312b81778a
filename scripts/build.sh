#!/usr/bin/env bash
# Builds the native core and tool (build/native), the core's TypeScript types from the tool's field lists
# (web/src/lesson/core-types.d.ts), the WebAssembly modules (build/wasm without SIMD and
# build/wasm-simd with it, both -> web/src/wasm; the page picks one) and the static site (dist/).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs # Emscripten's optimiser needs Debian's acorn

cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
# Node 20 rejects emcmake's default emulator flag, hence the explicit emulator.
emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null
emcmake cmake -S . -B build/wasm-simd -G Ninja -DCMAKE_BUILD_TYPE=Release -DQKV_WASM_SIMD=ON -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node >/dev/null

# The three builds at once: each ends in single-threaded links (the test programs; Emscripten's wasm-ld,
# wasm-opt and JavaScript optimiser), which one after another left a core idle. Each writes its own log, shown
# whole when it fails; the others are stopped then, compilers included (each build is a process group of its
# own: job control on while they start).
builds=(native wasm wasm-simd)
pids=()
set -m
for dir in "${builds[@]}"; do
  cmake --build "build/$dir" -j2 >"build/$dir.log" 2>&1 &
  pids+=($!)
done
set +m
for i in "${!builds[@]}"; do
  if ! wait "${pids[$i]}"; then
    for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done
    cat "build/${builds[$i]}.log" >&2
    echo "the ${builds[$i]} build failed (its log: build/${builds[$i]}.log)" >&2
    exit 1
  fi
  echo "built build/${builds[$i]} ($(grep -c '^\[' "build/${builds[$i]}.log") steps)"
done

# The page's types of the core's requests and responses, from the field lists the tool prints (git-ignored).
node scripts/generate-core-types.mjs
npx vite build web --logLevel warn
