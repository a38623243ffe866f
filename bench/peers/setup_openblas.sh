#!/usr/bin/env bash
# The benchmark's install step for PyTorch with OpenBLAS (run as root, once):
#   bench/peers/setup_openblas.sh
# Debian's python3-torch links libblas.so.3 / liblapack.so.3 through the
# alternatives system (libblas.so.3-x86_64-linux-gnu), which points at the
# reference BLAS by default. Installing OpenBLAS would switch that alternative for
# every program on the machine (auto mode, higher priority), so this script pins the
# alternatives back to whatever they pointed at before; the suite then selects
# OpenBLAS for its own PyTorch run only, with
#   LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1
# and checks that it was loaded (torch_suite.py reports the libblas in /proc/self/maps).
set -euo pipefail
DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread
if [[ -f $DIR/libblas.so.3 ]]; then echo "OpenBLAS already in $DIR"; exit 0; fi
arch=x86_64-linux-gnu
before_blas=$(readlink /etc/alternatives/libblas.so.3-$arch || true)
before_lapack=$(readlink /etc/alternatives/liblapack.so.3-$arch || true)
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libopenblas0-pthread
[[ -n $before_blas ]] && update-alternatives --set libblas.so.3-$arch "$before_blas"
[[ -n $before_lapack ]] && update-alternatives --set liblapack.so.3-$arch "$before_lapack"
echo "OpenBLAS in $DIR; the system default stays $(readlink -f /etc/alternatives/libblas.so.3-$arch)"
