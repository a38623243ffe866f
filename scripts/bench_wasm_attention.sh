#!/bin/sh
# Builds bench/wasm/attention_standalone.cpp with em++ (wasm SIMD via -msimd128 -msse4.1,
# the same flags as the library's wasm build) and runs it in Node.
#   scripts/bench_wasm_attention.sh [out_dir]      (default build/bench-wasm-attention)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/build/bench-wasm-attention}
mkdir -p "$OUT/sysinc"
for lib in xsimd xtensor xtl nlohmann; do
  [ -e "$OUT/sysinc/$lib" ] || ln -s "/usr/include/$lib" "$OUT/sysinc/$lib"
done
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
em++ -O3 -std=c++17 -msimd128 -msse4.1 -fexceptions -DXTENSOR_USE_XSIMD=0 \
  -I"$ROOT/src" -isystem "$OUT/sysinc" \
  "$ROOT"/src/attnlab/kernels/*.cpp "$ROOT"/src/attnlab/attention/*.cpp \
  "$ROOT/bench/wasm/attention_standalone.cpp" \
  -sALLOW_MEMORY_GROWTH=1 -sSINGLE_FILE=1 -o "$OUT/attention_standalone.js"
# the repo's package.json says "type": "module"; the emitted loader is CommonJS
mv "$OUT/attention_standalone.js" "$OUT/attention_standalone.cjs"
node "$OUT/attention_standalone.cjs"
