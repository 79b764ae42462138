#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore S-Box: uncore_sbox PMUs exist only on a Xeon 7500/E7 model,
# and only when its MSRs answer.  QEMU has no uncore MSRs, so on a guest
# with that model the driver must find out, say so and load without them;
# the programming sequence itself is tested on the host
# (tools/unittest/test_qpi_uncore_sbox.c).
. "$(dirname "$0")/lib.sh"

ktap_plan 1

model=$(awk '/^model\t/ { print $3; exit }' /proc/cpuinfo)

t_begin "sbox_pmus_only_where_they_exist"
qpiu_unload
dmesg_mark
expect_ok "load qpi_uncore" qpiu_load
[ -d "$PMUS/uncore_sbox_0" ] && fail "uncore_sbox_0 registered without S-Box MSRs"
case "$model" in
46 | 47)
	# QEMU reads unknown MSRs as zero and drops writes
	expect_dmesg "explained" "Xeon 7500 S-Box MSRs do not hold values on CPU [0-9]* (MATCH 0xe49 read back 0x0, not 0x5a5a5a5aa5a5a5a5): no uncore_sbox PMUs"
	;;
*)
	dmesg_since_mark | grep -q "S-Box" && fail "S-Box message on model $model"
	;;
esac
expect_ok "unload" qpiu_unload
t_end

ktap_finish
