#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a kmemleak kernel (make check-debug): after every other test has loaded,
# used and unloaded the modules, no leak may point into qpi_uncore or
# qpisim.  Skipped on kernels without kmemleak.  Runs last.
. "$(dirname "$0")/lib.sh"

ktap_plan 1
K=/sys/kernel/debug/kmemleak
if [ ! -e "$K" ]; then
	t_skip "no_leaks" "kernel without kmemleak"
	ktap_finish
fi

t_begin "no_leaks"
qpiu_unload
qpisim_unload
# kmemleak reports an object after it has been unreferenced for two scans
echo scan > "$K"
sleep 6
echo scan > "$K"
leaks=$(cat "$K")
n=$(echo "$leaks" | grep -c 'unreferenced object')
echo "# kmemleak: $n unreferenced objects in all"
ours=$(echo "$leaks" | grep -E 'qpi|qsim|qpiu' | head -n 20)
[ -z "$ours" ] || fail "leaks in our code: $ours"
t_end

ktap_finish
