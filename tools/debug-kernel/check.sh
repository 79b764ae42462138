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
# KASAN and lockdep slow everything about tenfold: a boot can pass
# run-vm's 60 s boot watchdog, which would kill a healthy guest, and each
# perf invocation takes about 20 s, so qpi_uncore_sample.sh alone takes
# longer than run_tests.sh's default 600 s per test.  The walk of perf's
# event tables (170 perf runs: about an hour at that pace) tests perf's tables,
# not the kernel: make check runs it.
QPI_KO_DIR=$out exec "$repo/tools/vm/run-vm" --no-build --timeout 7200 \
	--boot-timeout 240 --env QPI_TEST_TIMEOUT=3000 --mem 2048 \
	--skip qpi_uncore_perfnames.sh "$@"
