#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# How the box timer paces sampling (issue 19, item 3): bounded work per
# timer callback with the rest carried over.  Counts come from qpisim and
# kprobes (samples per look), never from how long something took.
. "$(dirname "$0")/lib.sh"

ktap_plan 1

P=/tmp/qpipace
mkdir -p $P
TR=/sys/kernel/debug/tracing
# QPIU_LOOK_SAMPLES in qpi_uncore_event.c
BUDGET=64

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

# sfield NAME FIELD: a field of qpiperf's "NAME samples=..." line (the last)
sfield()
{
	echo "$QOUT" | awk -v n="$1" -v f="$2" '$1 == n && $2 ~ /^samples=/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) v = kv[2] } }
		END { print v }'
}

# kprobes: "look" at each box timer callback, "emit" with the samples it
# hands perf (qpiu_sample_emit(event, period, n): n in %dx)
probes=no
if echo "p:qpiu/look qpiu_box_timer" > $TR/kprobe_events 2> /dev/null &&
   echo "p:qpiu/emit qpiu_sample_emit n=%dx:u64" >> $TR/kprobe_events 2> /dev/null; then
	probes=yes
fi
echo "# kprobes: $probes"

# 20000 periods at one look, perf's sample rate raised so that perf does
# not throttle: each timer callback hands perf at most BUDGET samples and
# carries the rest over; every period gives its sample, in order, with its
# period.  Without PERF_SAMPLE_PERIOD (with it, the driver's cap of 400 a
# tick still applies: item 7).
if [ $probes = no ]; then
	t_skip "look_work_is_bounded" "no kprobe events"
else
	t_begin "look_work_is_bounded"
	old_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	echo 100000000 > /proc/sys/kernel/perf_event_max_sample_rate ||
		fail "kernel.perf_event_max_sample_rate not raised"
	for stype in 0x0; do
		echo > $TR/trace
		echo 1 > $TR/events/qpiu/enable
		qperf <<EOF2
open t uncore_qpi_1 0x14 socket=1 period=1 stype=$stype single
mmap t 2048
inject event socket=1 box=qpi1 event=0x14 count=20000
waitsamples t 20000 60
disable t
samples t
read t
EOF2
		echo 0 > $TR/events/qpiu/enable
		awk '/ look: / { if (c > m) m = c; c = 0; looks++ }
			/ emit: / { sub(/.*n=/, ""); c += $1; s += $1; if ($1 > 0) e++ }
			END { if (c > m) m = c; print m + 0, s + 0, e + 0 }' $TR/trace > $P/look
		read -r most total emits < $P/look
		echo "# stype $stype: $(sfield t samples) samples in $emits hand-overs, at most $most a callback"
		expect_num "stype $stype: samples" "$(sfield t samples)" 20000
		expect_num "stype $stype: throttle records" "$(sfield t throttle)" 0
		expect_num "stype $stype: lost records" "$(sfield t lost)" 0
		expect_num "stype $stype: count" "$(val t)" 20000
		[ "$stype" = 0x100 ] && expect_num "stype $stype: periods" "$(sfield t periods)" 20000
		expect_num "stype $stype: samples handed to perf" "$total" 20000
		[ "$most" -le $BUDGET ] || fail "stype $stype: $most samples in one timer callback, budget $BUDGET"
	done
	echo "$old_rate" > /proc/sys/kernel/perf_event_max_sample_rate
	t_end
fi

echo > $TR/kprobe_events 2> /dev/null
qpiu_unload
qpisim_unload
ktap_finish
