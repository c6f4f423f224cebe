#!/usr/bin/env bash
# The main job, from a fresh clone on Debian 12 as root: installs what is
# missing, builds, and runs it. Until `cpha lab` exists this builds and
# installs into a staging directory (./stage) and says so.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)"
rm -rf stage
DESTDIR="$PWD/stage" cmake --install build --prefix /usr >/dev/null
echo
echo "cpha: 'cpha lab' (a whole HA control plane in network namespaces) is not built yet."
echo "cpha: built and installed into the staging directory $PWD/stage:"
(cd stage && find . -type f | sort | sed 's|^\./|  /|')
