#!/usr/bin/env bash
# Installs the Debian packages dpmcmc needs, only those missing (idempotent). Extra packages
# given as arguments are installed too (make bench-rstan: r-base-dev r-cran-rstan).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libboost-dev libfftw3-dev libcli11-dev nlohmann-json3-dev libfmt-dev
  libsodium-dev libsqlite3-dev libtbb-dev zlib1g-dev libgtest-dev libgmock-dev libbenchmark-dev clang-format
  dataset-fashion-mnist gnuplot-nox
  python3 python3-dev pybind11-dev python3-numpy python3-scipy python3-pytest python3-sklearn
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
