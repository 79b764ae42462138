#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit suite of the pure logic, where the kernel has KUnit (the debug
# tier builds qpi_uncore_kunit.ko); skipped elsewhere.
. "$(dirname "$0")/lib.sh"

ktap_plan 1

ko=$MODDIR/qpi_uncore_kunit.ko
if [ ! -f "$ko" ]; then
	t_skip "kunit_qpi_uncore" "kernel without KUnit: no qpi_uncore_kunit.ko"
	ktap_finish
fi

t_begin "kunit_qpi_uncore"
expect_ok "insmod" insmod "$ko"
res=/sys/kernel/debug/kunit/qpi_uncore/results
sed 's/^/# /' "$res"
grep -q "^ok [0-9]* qpi_uncore" "$res" || fail "suite did not pass"
expect_num "failed cases" "$(grep -c '^ *not ok' "$res")" 0
rmmod qpi_uncore_kunit
t_end

ktap_finish
