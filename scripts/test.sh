#!/usr/bin/env bash
# Sets up, builds and runs every test tier: native (ctest), wasm in Node,
# browser, native under ASan + UBSan, and every libFuzzer target for 20 s.
#   scripts/test.sh            all tiers
#   scripts/test.sh native     one tier (native | wasm | browser | asan | fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh

tiers=("$@")
((${#tiers[@]})) || tiers=(native wasm browser asan fuzz)
for tier in "${tiers[@]}"; do
  echo "=== test tier: $tier"
  case "$tier" in
    native)
      scripts/build.sh native
      ctest --test-dir build/native --output-on-failure -j"$JOBS" ;;
    asan)
      scripts/build.sh native-asan
      ctest --test-dir build/native-asan --output-on-failure -j"$JOBS" ;;
    wasm)
      scripts/build.sh wasm
      node --test tests/js/ ;;
    browser)
      [[ -f build/pkg/attnlab.wasm ]] || scripts/build.sh wasm
      scripts/build.sh site
      node --test tests/browser/ ;;
    fuzz)
      scripts/fuzz.sh "${ATTNLAB_FUZZ_SECONDS:-20}" ;;
    *) echo "test.sh: unknown tier '$tier' (native, wasm, browser, asan, fuzz)" >&2; exit 2 ;;
  esac
done
echo "=== all requested test tiers passed"
