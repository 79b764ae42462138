#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit suites of the pure code, where the kernel has KUnit (the debug
# tier builds qpi_uncore_kunit.ko and qpisim_kunit.ko); skipped elsewhere.
. "$(dirname "$0")/lib.sh"

ktap_plan 2

# kunit_suite MODULE SUITE: load the module, whose suite runs at load, and
# check the suite's results.
kunit_suite()
{
	ko=$MODDIR/$1.ko
	if [ ! -f "$ko" ] && [ ! -d /sys/kernel/debug/kunit ]; then
		t_skip "kunit_$2" "kernel without KUnit: no $1.ko"
		return
	fi
	t_begin "kunit_$2"
	# a kernel with KUnit must have had the module built
	if [ ! -f "$ko" ]; then
		fail "the kernel has KUnit, but no $1.ko was built"
		t_end
		return
	fi
	expect_ok "insmod" insmod "$ko"
	res=/sys/kernel/debug/kunit/$2/results
	sed 's/^/# /' "$res"
	grep -q "^ok [0-9]* $2" "$res" || fail "suite did not pass"
	expect_num "failed cases" "$(grep -c '^ *not ok' "$res")" 0
	rmmod "$1"
	t_end
}

kunit_suite qpi_uncore_kunit qpi_uncore
kunit_suite qpisim_kunit qpisim

ktap_finish
