#!/usr/bin/env bash
# Installs what DART needs on a Debian/Ubuntu machine (MPI included).
# Idempotent: only calls apt-get when a package is missing.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config clang clang-format
      mpich libmpich-dev openmpi-bin libopenmpi-dev libhwloc-dev
      python3 python3-matplotlib iproute2 doxygen gdb)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
fi
echo "setup: all dependencies present"
