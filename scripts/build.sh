#!/usr/bin/env bash
# scripts/build.sh [native|native-asan|native-sse41|wasm|site|all]...
#   native       library, CLI, tests and benchmarks (build/native)
#   wasm         WebAssembly SIMD module + the npm package in build/pkg, the models package in build/pkg-models
#   site         the static web page in build/site (needs wasm)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

build_native() {  # $1 = preset
  cmake --preset "$1" >/dev/null
  cmake --build --preset "$1" -j"$JOBS"
}

build_wasm() {
  [[ -f build/wasm/CMakeCache.txt ]] || emcmake cmake --preset wasm >/dev/null
  cmake --build build/wasm -j"$JOBS"
  rm -rf build/pkg && mkdir -p build/pkg
  cp bindings/js/*.js bindings/js/node.mjs bindings/js/index.d.ts bindings/js/package.json build/pkg/
  cp build/wasm/attnlab.js build/wasm/attnlab.wasm build/pkg/
  cp bindings/js/README.md build/pkg/
  echo "build: wasm package in build/pkg ($(stat -c %s build/pkg/attnlab.wasm) bytes .wasm," \
       "$(gzip -9c build/pkg/attnlab.wasm | wc -c) gzipped)"
  # the package README's size table, and the models package in build/pkg-models
  node scripts/pkg-assemble.mjs
}

build_site() {
  rm -rf build/site && mkdir -p build/site
  cp -r web/. build/site/
  cp -r build/pkg build/site/pkg
  if [[ -d models ]]; then cp -r models build/site/models; fi
  # the compute worker in two files: its small first module (worker.js, with lib/offline.js:
  # it starts the downloads) and the rest with the package modules it imports (worker-main.js):
  # a first visit waits for two requests instead of a chain of imports, one level at a time
  node_modules/.bin/esbuild build/site/worker.js --bundle --format=esm --target=es2020 \
    --external:./worker-main.js --log-level=warning --allow-overwrite --outfile=build/site/worker.js
  node_modules/.bin/esbuild build/site/worker-main.js --bundle --format=esm --target=es2020 \
    --log-level=warning --allow-overwrite --outfile=build/site/worker-main.js
  # boot.js with the three small modules it imports (the early worker and first model): it
  # must run as soon as it arrives, not after a chain of imports
  node_modules/.bin/esbuild build/site/boot.js --bundle --format=esm --target=es2020 \
    --log-level=warning --allow-overwrite --outfile=build/site/boot.js
  # the page's modules (app.js, its views and lib/) in one file: a visit asks for one module
  # instead of twenty (each through the service worker on later visits). lib/ and views/ stay
  # in the site unbundled, not precached: the page does not load them (tests import them).
  node_modules/.bin/esbuild build/site/app.js --bundle --format=esm --target=es2020 \
    --log-level=warning --allow-overwrite --outfile=build/site/app.js
  # the service worker's precache list: every file of the site but the model
  # weights (fetched and cached when a view opens them), the unbundled modules and itself
  (cd build/site && find . -type f ! -path './models/*' ! -path './lib/*' ! -path './views/*' ! -name sw.js \
     ! -name shell-files.js | sed 's|^\./||' | sort |
     awk 'BEGIN { printf "self.ATTNLAB_SHELL = [\"./\", \"models/index.json\"" } { printf ", \"%s\"", $0 } END { print "];" }') \
    > build/site/shell-files.js
  echo "build: static site in build/site ($(( $(grep -o '", "' build/site/shell-files.js | wc -l) + 1 )) files precached)"
}

targets=("$@")
((${#targets[@]})) || targets=(all)
for t in "${targets[@]}"; do
  case "$t" in
    native|native-asan|native-sse41) build_native "$t" ;;
    wasm) build_wasm ;;
    site) build_site ;;
    all) build_native native; build_wasm; build_site ;;
    *) echo "build.sh: unknown target '$t' (native, native-asan, native-sse41, wasm, site, all)" >&2; exit 2 ;;
  esac
done
