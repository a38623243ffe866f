#!/usr/bin/env bash
# Sets up, builds the wasm package and the static page, and serves it on 127.0.0.1.
#   scripts/demo.sh [port]     (default 8080)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh wasm site
exec node scripts/serve.mjs build/site "${1:-8080}"
