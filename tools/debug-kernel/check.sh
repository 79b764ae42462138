#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: every selftest on the debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, KUnit), which also builds and runs
# the KUnit suite.  run-vm fails the run on any report in the kernel log.
# The kernel is built on first use (about 30 min) and cached in .vm/.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
vars=$("$here/build.sh")
eval "export $(echo "$vars" | paste -sd' ' -)"
out=$repo/.vm/build-$QPI_KVER
rm -rf "$out"
mkdir -p "$out"
cp -a "$repo/Kbuild" "$repo/drivers" "$repo/include" "$out/"
make -s -C "$QPI_KDIR" M="$out" W=1 modules
QPI_KO_DIR=$out exec "$repo/tools/vm/run-vm" --no-build --timeout 3000 \
	--mem 2048 "$@"
