#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On a kmemleak kernel (make check-debug): after every other test has loaded,
# used and unloaded the modules, kmemleak must find nothing.  Skipped on
# kernels without kmemleak.  Runs last.
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
echo "# kmemleak: $n unreferenced objects in all; their most common frames:"
echo "$leaks" | grep -E '^ +\[<' | sed 's/.*\] //' | sort | uniq -c | sort -rn |
	head -n 12 | sed 's/^/#   /'
# The kernel boots with none; a leak after our tests is ours until shown
# otherwise (frames of unloaded modules print as bare addresses).
expect_num "unreferenced objects" "$n" 0
t_end

ktap_finish
