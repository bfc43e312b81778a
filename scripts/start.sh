#!/usr/bin/env bash
# `npm start`: installs what is missing, builds, and serves the lesson from dist/ (PORT, default 5173).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec node scripts/serve.mjs --root dist --port "${PORT:-5173}"
