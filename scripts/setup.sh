#!/usr/bin/env bash
# Installs what attnlab needs on a fresh Debian 12 machine (run as root) and
# absorbs the toolchain quirks. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PKGS=(cmake g++ make emscripten libxsimd-dev libxtensor-dev xtl-dev nlohmann-json3-dev
          libgtest-dev libbenchmark-dev wabt chromium clang libclang-rt-14-dev)
# Only for regenerating fixtures / ONNX models / PyTorch benchmarks: ATTNLAB_WITH_TORCH=1
if [[ "${ATTNLAB_WITH_TORCH:-0}" == 1 ]]; then DEB_PKGS+=(python3-torch); fi
if ! command -v node >/dev/null 2>&1; then DEB_PKGS+=(nodejs npm); fi

missing=()
for p in "${DEB_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm dev dependencies, pinned by package-lock.json
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
fi
echo "setup: ok"
