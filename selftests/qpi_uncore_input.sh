#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore bad input: every refusal has the right errno and one kernel
# message naming the field, nothing is written to a register, messages are
# rate limited, and the PMU keeps working afterwards.
. "$(dirname "$0")/lib.sh"

ktap_plan 6

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load
c0=$(cpulist "$(cat "$PMUS/uncore_qpi_0/cpumask")" | cut -d, -f1)
other=$((c0 + 1))

# case NAME ERRNO MESSAGE-PART OPEN-ARGS...
cases=0
check_case()
{
	name=$1 errno=$2 text=$3
	shift 3
	cases=$((cases + 1))
	qperf <<EOT
open $name $*
EOT
	expect_eq "$name errno" "$(err "$name")" "$errno"
	dmesg_since_mark | grep -qF -- "$text" ||
		fail "$name: no message containing '$text'"
}

t_begin "config_fields_refused"
echo clear > "$DBG/log"
dmesg_mark
check_case bit16 $EINVAL "bits 0x10000 are reserved on uncore_qpi" uncore_qpi_0 0x10014 socket=0
check_case bit19 $EINVAL "bits 0x80000 are reserved on uncore_qpi" uncore_qpi_0 0x80014 socket=0
check_case ov_en $EINVAL "bits 0x100000 are reserved on uncore_qpi" uncore_qpi_0 0x100014 socket=0
check_case bit40 $EINVAL "bits 0x10000000000 are reserved" uncore_qpi_0 0x10000000014 socket=0
check_case r3_inv $EINVAL "bits 0x800000 are reserved on uncore_r3qpi" uncore_r3qpi_0 0x01800001 socket=0
check_case r3_ext $EINVAL "bits 0x200000 are reserved on uncore_r3qpi" uncore_r3qpi_0 0x200001 socket=0
check_case edge0 $EINVAL "edge and inv need thresh > 0" uncore_qpi_0 0x40014 socket=0
check_case inv0 $EINVAL "edge and inv need thresh > 0" uncore_qpi_1 0x800014 socket=0
check_case cfg1 $EINVAL "only cto_count (event=0x138) counts through the packet filter" uncore_qpi_0 0x14 config1=0x1c00 socket=0
check_case r3cfg2 $EINVAL "config2=0x5: uncore_r3qpi has no packet filter" uncore_r3qpi_1 0x01 config2=5 socket=1
t_end

t_begin "event_kinds_refused"
sleep 5.2
dmesg_mark
check_case callchain $EINVAL "sample_type bit 5 (PERF_SAMPLE_CALLCHAIN): an uncore counter has no such data" uncore_qpi_0 0x14 socket=0 period=1000 stype=0x27
check_case raw $EINVAL "sample_type bit 10 (PERF_SAMPLE_RAW)" uncore_qpi_0 0x14 socket=0 period=1000 stype=0x407
check_case data_src $EINVAL "sample_type bit 15 (PERF_SAMPLE_DATA_SRC)" uncore_r3qpi_0 0x01 socket=0 period=1000 stype=0x8000
check_case freq $EINVAL "sample_freq=100: frequency mode" uncore_qpi_0 0x14 socket=0 freq=100
check_case precise $EINVAL "precise_ip=1: uncore counters have no precise sampling" uncore_qpi_0 0x14 socket=0 period=1000 precise
check_case qpi_2p48 $EINVAL "sample_period=281474976710656: at most 281474976710655 (2^48-1" uncore_qpi_0 0x14 socket=0 period=0x1000000000000
check_case r3_2p44 $EINVAL "sample_period=17592186044416: at most 17592186044415 (2^44-1" uncore_r3qpi_0 0x01 socket=0 period=0x100000000000
check_case pertask $EINVAL "not per task" uncore_qpi_0 0x14 task
check_case notreader $EINVAL "cpu=$other: not in cpumask" uncore_qpi_0 0x14 cpu=$other
check_case exclude $EINVAL "cannot exclude" uncore_qpi_0 0x14 socket=0 exclude=user
t_end

t_begin "nothing_written_for_refused_events"
expect_num "config writes" "$(wc -l < "$DBG/log")" 0
for f in "$DBG"/socket*/*/rsvd_writes "$DBG"/socket*/*/undef_writes; do
	expect_num "$f" "$(cat "$f")" 0
done
t_end

t_begin "ioc_period_checked"
sleep 5.2
dmesg_mark
qperf <<EOT
open s uncore_r3qpi_1 0x01 socket=1 period=1000
period s 0xfffffffffff
period s 0x100000000000
EOT
expect_eq "open" "$(opened s)" yes
echo "$QOUT" | grep -qx "s period ok" || fail "2^44-1 refused"
expect_eq "2^44 refused" "$(err s)" $EINVAL
expect_dmesg "message" "period 17592186044416: at most 17592186044415"
t_end

t_begin "messages_rate_limited"
sleep 5.2
dmesg_mark
script=""
for i in $(seq 1 30); do
	script="$script
open f$i uncore_qpi_0 0x10014 socket=0"
done
t0=$(cut -d' ' -f1 /proc/uptime)
qperf <<EOT
$script
EOT
t1=$(cut -d' ' -f1 /proc/uptime)
n=$(dmesg_since_mark | grep -c "reserved on uncore_qpi")
# A burst of 10 per 5 s: exact when the 30 refusals took well under 5 s (a
# loaded host can stretch them over a second window).
ms=$(( (${t1%.*}${t1#*.} - ${t0%.*}${t0#*.}) * 10 ))
if [ "$ms" -lt 4500 ]; then
	expect_num "messages for 30 refusals in ${ms} ms" "$n" 10
else
	[ "$n" -le $((10 * (ms / 5000 + 1))) ] ||
		fail "$n messages for 30 refusals over $ms ms"
	echo "# refusals took $ms ms; checked the bound only"
fi
expect_eq "last still refused" "$(err f30)" $EINVAL
t_end

t_begin "still_counts_after_bad_input"
qperf <<EOT
open ok uncore_qpi_0 0x14 socket=0
open edge uncore_qpi_0 0x01040014 socket=0
open sw software 0 cpu=$c0
open grp uncore_qpi_0 0x14 cpu=$c0 group=sw
inject event socket=0 box=qpi0 event=0x14 count=31
read ok
read edge
read grp
EOT
expect_num "plain" "$(val ok)" 31
expect_num "edge with thresh 1: one rising edge" "$(val edge)" 1
expect_num "in a group led by a software event" "$(val grp)" 31
t_end

qpiu_unload
qpisim_unload
ktap_finish
