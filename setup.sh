#!/usr/bin/env bash
# Installs what autotune needs to build and test (Debian/Ubuntu packages):
# through apt-get when run as root, otherwise prints the exact command.
set -eu
# mpich and libmpich-dev only run the MPICH export test; Open MPI stays the
# default mpicc/mpirun (its alternatives priority is higher). gfortran is
# mpif90's compiler, for libautotune's Fortran test.
packages="make gcc gfortran pkg-config clang-format openmpi-bin libopenmpi-dev libsimgrid-dev libgsl-dev libconfig-dev mpich libmpich-dev libxml2-utils"
# chromium renders the HTML report in its test (tests/sh/
# test_report_browser_smpi.sh); where apt has no chromium (Ubuntu ships it
# as a snap) that test is skipped.
if apt-cache show chromium >/dev/null 2>&1; then
    packages="$packages chromium"
fi
# `./setup.sh fuzz` (make fuzz): clang and its libFuzzer runtime as well.
if [ "${1:-}" = fuzz ]; then
    packages="$packages clang libclang-rt-dev"
fi
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "setup: all packages present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages:$missing"
    echo "setup: install them with: sudo apt-get update && sudo apt-get install -y$missing"
    exit 1
fi
echo "setup: installing$missing"
apt-get update -q
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
