#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules for another kernel (default: the newest backports 6.12)
# in a copy of the tree, so the main build is untouched, and run selftests
# on that kernel.  Used by make check; by hand:
#   tools/check-kernel.sh [--tests "t1 t2"]
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=${QPI_KVER2:-$("$repo/tools/vm/backports-kernel.sh")}
kdir=/usr/src/linux-headers-$kver
out=$repo/.vm/build-$kver

echo "# modules for $kver in $out"
rm -rf "$out"
mkdir -p "$out"
cp -a "$repo/Kbuild" "$repo/drivers" "$repo/include" "$out/"
log=$(make -C "$kdir" M="$out" W=1 modules 2>&1) || { echo "$log"; echo "not ok 1 build for $kver"; exit 1; }
if grep -qE 'warning:|error:' <<< "$log"; then
	grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
	echo "not ok 1 build for $kver with W=1, no warnings"
	exit 1
fi
echo "ok 1 build for $kver with W=1, no warnings"
QPI_KVER=$kver QPI_KO_DIR=$out exec "$repo/tools/vm/run-vm" --no-build "$@"
