#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore S-Box: uncore_sbox PMUs exist only on a Xeon 7500/E7 model,
# and only when its MSRs answer.  QEMU has no uncore MSRs, so on a guest
# with that model the driver must find out, say so and load without them;
# the programming sequence itself is tested on the host
# (tools/unittest/test_qpi_uncore_sbox.c).  The probe must leave what
# another owner (intel_uncore) programmed as it was: every MSR access of
# the load is seen through the msr tracepoints.
. "$(dirname "$0")/lib.sh"

ktap_plan 3

T=/sys/kernel/tracing
# msr_trace_on / msr_trace: S-Box MSR accesses (PMON 0xc40-0xcdf, mask/match
# 0xe48-0xe5a) since msr_trace_on, one "r|w MSR VALUE" a line
msr_trace_on()
{
	f='(msr >= 0xc40 && msr <= 0xcdf) || (msr >= 0xe48 && msr <= 0xe5a)'
	for e in read_msr write_msr; do
		echo "$f" > $T/events/msr/$e/filter
		echo 1 > $T/events/msr/$e/enable
	done
	echo > $T/trace
}
msr_trace()
{
	echo 0 > $T/events/msr/read_msr/enable
	echo 0 > $T/events/msr/write_msr/enable
	awk '$5 ~ /^(read|write)_msr:$/ {
		sub(",", "", $6); print substr($5, 1, 1), $6, $8 }' $T/trace
}

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

# Without another owner: MM_CFG is only read (its mm_en may be someone's),
# and every MSR written ends with the value it was first read with.
t_begin "sbox_probe_restores_what_it_writes"
case "$model" in
46 | 47)
	msr_trace_on
	expect_ok "load qpi_uncore" qpiu_load
	msr_trace > /tmp/sbox.trace
	sed 's/^/# /' /tmp/sbox.trace
	[ -s /tmp/sbox.trace ] || fail "no S-Box MSR access traced"
	grep -q '^w e[45]8 ' /tmp/sbox.trace && fail "MM_CFG written"
	awk '$1 == "r" && !($2 in first) { first[$2] = $3 }
	     $1 == "w" { last[$2] = $3 }
	     END { for (m in last) if (last[m] != first[m])
		print "MSR " m " left at " last[m] ", was " first[m] }' \
		/tmp/sbox.trace > /tmp/sbox.changed
	[ -s /tmp/sbox.changed ] && fail "$(cat /tmp/sbox.changed)"
	expect_ok "unload" qpiu_unload
	;;
*)
	echo "# not a Xeon 7500 model: nothing probed"
	;;
esac
t_end

# intel_uncore has uncore_sbox_0: qpi_uncore refuses to load (EBUSY, said)
# before it touches a single S-Box MSR, whatever intel_uncore is counting.
iu=
for m in /lib/modules/stock/intel-uncore.ko*; do [ -f "$m" ] && iu=$m; done
if [ -z "$iu" ] || ! insmod "$iu" 2> /dev/null; then
	t_skip "sbox_pmus_taken_no_msr_touched" "the stock intel_uncore does not load here"
elif [ ! -d "$PMUS/uncore_sbox_0" ]; then
	rmmod intel_uncore
	t_skip "sbox_pmus_taken_no_msr_touched" "intel_uncore has no uncore_sbox_0 on model $model"
else
	t_begin "sbox_pmus_taken_no_msr_touched"
	qpiu_unload
	dmesg_mark
	msr_trace_on
	expect_err "load beside intel_uncore" "Device or resource busy" qpiu_load
	msr_trace > /tmp/sbox.trace
	sed 's/^/# /' /tmp/sbox.trace
	expect_num "S-Box MSR accesses" "$(wc -l < /tmp/sbox.trace)" 0
	expect_dmesg "explained" "uncore_sbox_0: a PMU of that name exists already"
	rmmod intel_uncore
	t_end
fi

ktap_finish
