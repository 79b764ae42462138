#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore overflow sampling with the real perf tool: perf record -a on
# QPI and R3QPI events, exact sample counts, CPUs and periods against what
# qpisim injects; periods past 2^32 and up to the counter width; counting
# beside sampling; group samples read at one frozen instant; frequency mode;
# tiny periods throttled; the hardware overflow path (preload, ov_en,
# BOX_STATUS, the UBox); CPU offline and removal while sampling.
. "$(dirname "$0")/lib.sh"

ktap_plan 26

P=/tmp/qpis
mkdir -p $P

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

# reader S PMU: the CPU that reads socket S for PMU
reader()
{
	for c in $(cpulist "$(cat "$PMUS/$2/cpumask")" | tr , ' '); do
		if [ "$(cat /sys/devices/system/cpu/cpu$c/topology/physical_package_id)" = "$1" ]; then
			echo "$c"
			return
		fi
	done
}

# rec [--build-ids] FILE PERF-RECORD-ARGS... -- CMD: perf record -a,
# quietly, without the build-id pass over the samples at its end (-B),
# which takes half of each recording's time in a guest and reads no sample
# of ours.  The first case records as a user does, with that pass
# (--build-ids).
rec()
{
	nobuildid=-B
	if [ "$1" = --build-ids ]; then
		nobuildid=
		shift
	fi
	f=$1
	shift
	perf record -q -a ${nobuildid:+"$nobuildid"} -o "$f" "$@" > $P/rec.out 2>&1 ||
		fail "perf record $*: $(tail -n 3 $P/rec.out)"
}

# cpu_periods FILE: one "cpu period" line per sample
cpu_periods()
{
	perf script -i "$1" -F cpu,period 2> /dev/null |
		awk '{ gsub(/[][]/, "", $1); print $1 + 0, $2 }'
}

nsamples() { perf script -i "$1" -F cpu 2> /dev/null | grep -c .; }
sum2() { awk '{ s += $2 } END { print s + 0 }'; }

inj() { echo "$*" > "$DBG/inject"; }

# wfield NAME FIELD: a field of qpiperf's "NAME watch reads=..." line
wfield()
{
	echo "$QOUT" | awk -v n="$1" -v f="$2" '$1 == n && $2 == "watch" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == f) v = kv[2] } }
		END { print v }'
}

r0=$(reader 0 uncore_qpi_0)
r1=$(reader 1 uncore_qpi_0)

t_begin "qpi_ten_samples_from_socket_0_reader"
rec --build-ids $P/a.data -e uncore_qpi_0/rxl_flits_g0.data/ -c 1000000 -P -- \
	sh -c "echo 'event socket=0 box=qpi0 event=0x01 umask=0x02 count=10000000' > $DBG/inject;
	       echo 'event socket=1 box=qpi0 event=0x01 umask=0x02 count=999999' > $DBG/inject;
	       sleep 0.1"
cpu_periods $P/a.data > $P/a.txt
expect_num "samples" "$(grep -c . $P/a.txt)" 10
expect_num "samples on socket 0's reader (CPU $r0)" "$(awk -v c="$r0" '$1 == c' $P/a.txt | grep -c .)" 10
expect_num "sum of periods" "$(sum2 < $P/a.txt)" 10000000
expect_num "each period" "$(awk '$2 != 1000000' $P/a.txt | grep -c .)" 0
n=$(perf script -i $P/a.data -F time,cpu,period 2> /dev/null |
	grep -cE '^ *\[0*'"$r0"'\] +[0-9]+\.[0-9]+: +1000000 *$')
expect_num "perf script lines with time, CPU and period" "$n" 10
t_end

t_begin "samples_without_period_in_sample_type"
rec $P/b.data -e uncore_qpi_1/rxl_flits_g0.data/ -c 1000000 -- \
	sh -c "echo 'event socket=1 box=qpi1 event=0x01 umask=0x02 count=7500000' > $DBG/inject; sleep 0.1"
expect_num "samples" "$(nsamples $P/b.data)" 7
expect_num "on socket 1's reader (CPU $r1)" \
	"$(perf script -i $P/b.data -F cpu 2> /dev/null | tr -d '[] ' | awk -v c="$r1" '$1 + 0 == c' | grep -c .)" 7
t_end

t_begin "r3qpi_periods_above_2_32"
rr1=$(reader 1 uncore_r3qpi_0)
# 44-bit counter; 3 periods of 2^32 + 5, injected in two batches
rec $P/c.data -e uncore_r3qpi_0/clockticks/ -c 4294967301 -P -- \
	sh -c "echo 'event socket=1 box=r3qpi0 event=0x01 count=6442450951' > $DBG/inject; sleep 0.05;
	       echo 'event socket=1 box=r3qpi0 event=0x01 count=6442450952' > $DBG/inject; sleep 0.1"
cpu_periods $P/c.data > $P/c.txt
expect_num "samples" "$(grep -c . $P/c.txt)" 3
expect_num "on socket 1's reader (CPU $rr1)" "$(awk -v c="$rr1" '$1 == c' $P/c.txt | grep -c .)" 3
expect_num "sum of periods" "$(sum2 < $P/c.txt)" 12884901903
t_end

t_begin "periods_at_the_counter_width"
# QPI: 2^48 - 1; R3QPI: 2^44 - 1.  The model moves a counter by any amount
# in one batch, hardware by at most 6 bits a cycle: stay below one wrap
# between two looks of the driver.
half=$(( (1 << 47) - 1 ))
rec $P/d.data -e uncore_qpi_0/clockticks/ -c $(( (1 << 48) - 1 )) -P -- \
	sh -c "for i in 1 2 3 4; do echo 'event socket=0 box=qpi0 event=0x14 count=$half' > $DBG/inject; sleep 0.05; done"
cpu_periods $P/d.data > $P/d.txt
expect_num "QPI samples" "$(grep -c . $P/d.txt)" 1
expect_num "QPI period" "$(sum2 < $P/d.txt)" $(( (1 << 48) - 1 ))
r3half=$(( (1 << 43) - 1 ))
rec $P/e.data -e uncore_r3qpi_1/clockticks/ -c $(( (1 << 44) - 1 )) -P -- \
	sh -c "for i in 1 2 3 4 5; do echo 'event socket=0 box=r3qpi1 event=0x01 count=$r3half' > $DBG/inject; sleep 0.05; done"
cpu_periods $P/e.data > $P/e.txt
expect_num "R3QPI samples" "$(grep -c . $P/e.txt)" 2
expect_num "R3QPI periods" "$(sum2 < $P/e.txt)" $(( 2 * ((1 << 44) - 1) ))
t_end

t_begin "counting_beside_sampling_is_exact"
perf stat -a -x, -o $P/stat.txt -e uncore_qpi_0/event=0x01,umask=0x02/ \
	-e uncore_qpi_0/clockticks/ -- \
	perf record -q -a -B -o $P/f.data -e uncore_qpi_0/rxl_flits_g0.data/ -c 1000000 -- \
	sh -c "echo 'event socket=0 box=qpi0 event=0x01 umask=0x02 count=4000000 cycles=9000000' > $DBG/inject;
	       sleep 0.05;
	       echo 'event socket=1 box=qpi0 event=0x01 umask=0x02 count=2000000 cycles=5000000' > $DBG/inject;
	       sleep 0.1" > $P/stat.out 2>&1 || fail "perf stat: $(tail -n 3 $P/stat.out)"
expect_num "counted data flits" "$(grep 'umask=0x02' $P/stat.txt | cut -d, -f1)" 6000000
expect_num "counted clockticks" "$(grep clockticks $P/stat.txt | cut -d, -f1)" 14000000
expect_num "samples" "$(nsamples $P/f.data)" 6
t_end

t_begin "group_samples_read_at_one_instant"
rec $P/g.data -e '{uncore_qpi_0/rxl_flits_g0.data/,uncore_qpi_0/clockticks/}:S' -c 1000000 -- \
	sh -c "echo 'event socket=0 box=qpi0 event=0x01 umask=0x02 count=3000000 cycles=8000000' > $DBG/inject; sleep 0.1"
perf report -D -i $P/g.data 2> /dev/null |
	awk '/PERF_RECORD_SAMPLE/ { s++ } /\.\.\.\.\. id .*, value/ { v = $NF; sub(/^0*/, "", v);
		printf "%d %s\n", s, v }' > $P/g.txt
expect_num "samples" "$(awk '{ print $1 }' $P/g.txt | sort -u | grep -c .)" 3
# every sample: data flits 3000000 (0x2dc6c0), clockticks 8000000 (0x7a1200)
expect_num "values per sample" "$(grep -c . $P/g.txt)" 6
expect_num "leader values" "$(grep -c ' 2dc6c0$' $P/g.txt)" 3
expect_num "member values" "$(grep -c ' 7a1200$' $P/g.txt)" 3
t_end

t_begin "frequency_mode_refused_with_advice"
dmesg_mark
if perf record -q -a -o $P/h.data -e uncore_qpi_0/clockticks/ -F 200 -- true > $P/h.out 2>&1; then
	fail "perf record -F succeeded"
fi
expect_dmesg "message" "sample_freq=200: frequency mode (perf record -F, perf's default) is not supported on uncore counters; give a fixed period: perf record -c N"
t_end

t_begin "period_1_is_throttled_and_counts_stay_exact"
for popt in "" "-P"; do
	perf stat -a -x, -o $P/st1.txt -e uncore_qpi_1/clockticks/ -- \
		perf record -q -a -B -o $P/i.data -e uncore_qpi_1/clockticks/ -c 1 $popt -- \
		sh -c "echo 'event socket=0 box=qpi1 event=0x14 count=10000000' > $DBG/inject; sleep 0.2" \
		> $P/st1.out 2>&1 || fail "perf stat: $(tail -n 3 $P/st1.out)"
	n=$(nsamples $P/i.data)
	[ "$n" -ge 1 ] && [ "$n" -le 5000 ] || fail "-c 1 $popt: $n samples for 10000000 events"
	expect_num "-c 1 $popt: count" "$(cut -d, -f1 < $P/st1.txt | grep -E '^[0-9]+$')" 10000000
	echo "# -c 1 $popt: $n samples"
done
t_end

# perf throttles an event that takes more than its samples per tick.  Up to
# 6.12 it drops the samples; from 7.x it also stops every counter of the
# group until a tick of the reader CPU (perf_event_throttle_group()), which
# an idle NO_HZ CPU may not take for long: the driver keeps counting on
# every kernel.  100000 periods at one look are far more than a tick's 400
# (HZ 250) to 1000 (HZ 1000) samples; traffic that comes after the throttle
# must still be counted, by the sampling leader and its counting member,
# and no counter of the box may be switched off meanwhile.
t_begin "throttle_keeps_the_group_counting"
qperf <<EOF2
open s uncore_qpi_1 0x14 socket=0 period=1
open c uncore_qpi_1 0x0201 socket=0 group=s
sh echo clear > $DBG/log
inject event socket=0 box=qpi1 event=0x01 umask=0x02 count=5000 cycles=100000
sh sleep 0.05
inject event socket=0 box=qpi1 event=0x01 umask=0x02 count=3000 cycles=60000
sh sleep 0.05
sh cat $DBG/log > $P/thr.log
read s
read c
EOF2
expect_num "sampling leader's count" "$(val s)" 160000
expect_num "counting member's count" "$(val c)" 8000
# From the first traffic until the events close (adding the member
# reschedules the group, which does stop it, before that) no counter may
# stay stopped: the counting member's control is never written without en
# (bit 22), and the sampling leader's only for a look's re-arm, which
# enables it again after the preload's two dwords (and a BOX_STATUS clear
# where ov_en is used), three writes of the function at most.
qb=$(qpi_bdf 0 1 | cut -d: -f2-)
grep -i " $qb " $P/thr.log | sed -n 's/.* where=\(0x[0-9a-f]*\) .*val=\(0x[0-9a-f]*\)$/\1 \2/p' > $P/thr.w
off="" since=0 rearms=0
while read -r w v; do
	case $w in
	0x0d8 | 0x0dc | 0x0e0 | 0x0e4)
		if [ $((v & EN)) -eq 0 ]; then
			[ $((v & 0xffff)) -eq $((0x0201)) ] &&
				fail "the counting member's counter was stopped: control $v"
			[ -z "$off" ] || fail "two counters stopped at once: $off and $w"
			off=$w since=0
			continue
		fi
		[ "$w" = "$off" ] && off="" rearms=$((rearms + 1))
		;;
	esac
	[ -z "$off" ] && continue
	since=$((since + 1))
	[ $since -le 3 ] || fail "counter control $off stopped for more than a re-arm"
done < $P/thr.w
[ -z "$off" ] || fail "counter control $off left stopped"
echo "# $rearms re-arms of the leader's counter, each within one look"
t_end

# What a reader on another CPU could load, seen from inside: kprobes on
# perf's entry points of a sample record event->count (its offset in
# struct perf_event is found first, from a read of a known count) as each
# sample is handed to perf and as it is written.  In the order recorded,
# no value may be below one before it.  10 samples at one look, with and
# without PERF_SAMPLE_PERIOD.
t_begin "count_never_lowered_while_samples_are_written"
TR=/sys/kernel/debug/tracing
args=""
off=64
while [ $off -le 1024 ]; do
	args="$args o$off=+$off(%di):u64"
	off=$((off + 8))
done
if ! echo "p:qpiu/cal qpiu_event_read$args" > $TR/kprobe_events 2> /dev/null; then
	t_err=0
	echo "# no kprobe events: not checked"
else
	echo 1 > $TR/events/qpiu/cal/enable
	echo > $TR/trace
	qperf <<EOF2
open k uncore_qpi_1 0x14 socket=1 single
inject event socket=1 box=qpi1 event=0x14 count=123457
read k
read k
EOF2
	echo 0 > $TR/events/qpiu/cal/enable
	coff=$(grep -o 'o[0-9]*=123457\>' $TR/trace | head -n 1 | sed 's/^o\([0-9]*\)=.*/\1/')
	echo "-:qpiu/cal" >> $TR/kprobe_events
	if [ -z "$coff" ]; then
		fail "no offset of perf_event.count found"
	elif ! { echo "p:qpiu/in perf_swevent_event c=+$coff(%di):u64 nr=%si:u64" >> $TR/kprobe_events &&
		 echo "p:qpiu/out __perf_event_overflow c=+$coff(%di):u64" >> $TR/kprobe_events; } 2> /dev/null; then
		echo "# perf_swevent_event or __perf_event_overflow cannot be probed: not checked"
	else
		echo "# perf_event.count at offset $coff"
		for stype in 0x100 0x0; do
			echo > $TR/trace
			echo 1 > $TR/events/qpiu/enable
			qperf <<EOF2
open k uncore_qpi_1 0x14 socket=1 period=1000 stype=$stype single
mmap k
inject event socket=1 box=qpi1 event=0x14 count=10500
sh sleep 0.1
disable k
samples k
read k
EOF2
			echo 0 > $TR/events/qpiu/enable
			grep -o ' c=[0-9]*' $TR/trace | sed 's/ c=//' > $P/kc.txt
			expect_num "stype $stype: samples" "$(sfield k samples)" 10
			expect_num "stype $stype: count" "$(val k)" 10500
			[ "$(grep -c . $P/kc.txt)" -ge 10 ] || fail "stype $stype: $(grep -c . $P/kc.txt) probe hits"
			n=$(awk 'NR > 1 && $1 < p { d++ } { p = $1 } END { print d + 0 }' $P/kc.txt)
			echo "# stype $stype: $(grep -c . $P/kc.txt) values of event->count seen by the probes, $n below the one before: $(head -n 4 $P/kc.txt | paste -sd' ' -) ..."
			expect_num "stype $stype: values below the one before" "$n" 0
		done
	fi
	echo > $TR/kprobe_events
fi
t_end

# perf reads an active event from another CPU by an IPI to the reader CPU,
# then loads event->count with no lock (read(2) and the group read alike),
# so no value the driver stores there, even for an instant while it hands
# perf a sample, may be below one stored before.  Two watchers on other
# CPUs read a sampling event alone and a sampling group in a loop while
# 200 samples a batch are taken (PERF_SAMPLE_PERIOD: one sample per call
# into perf).
t_begin "counts_never_go_backwards_while_sampling"
others=$(cpulist "$(cat /sys/devices/system/cpu/online)" | tr , '\n' | grep -vx "$r0")
w1=$(echo "$others" | sed -n 1p)
w2=$(echo "$others" | sed -n 2p)
w2=${w2:-$w1}
qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s
open g uncore_qpi_0 0x14 socket=0 period=1000 stype=0x110
open m uncore_qpi_0 0x0201 socket=0 group=g
mmap g
open c uncore_qpi_0 0x14 socket=0 single
watch s $w1
watch g $w2
injectn 500 event socket=0 box=qpi0 event=0x01 umask=0x02 count=100000 cycles=200000
unwatch s
unwatch g
disable s
disable g
disable c
samples s
samples g
read s
gread g
read c
EOF2
echo "# watchers on CPUs $w1, $w2: $(wfield s reads) single reads, $(wfield g reads) group reads; samples $(sfield s samples) and $(sfield g samples)"
expect_num "single reads that went backwards $(wfield s first)" "$(wfield s back)" 0
expect_num "group reads that went backwards $(wfield g first)" "$(wfield g back)" 0
# Counters that no look stops count every burst: c beside them, and the
# flits member of g (half the clockticks).  A sampling counter is stopped
# for its own re-arm, a few config accesses (Documentation/qpi_uncore.rst,
# "Sampling"), and a burst injected from another CPU inside that window
# is not counted by it, as hardware would not count it: s and g's leader
# miss whole bursts of 200000, nothing else.
echo "# counted $(val c) of 100000000 clockticks; s $(val s), g's leader $(val 'g[0]')"
expect_num "counting event c beside the sampling ones" "$(val c)" 100000000
expect_num "group member (flits, half the clockticks)" "$(( $(val 'g[1]') * 2 ))" 100000000
for name in s 'g[0]'; do
	cnt=$(val "$name")
	[ -n "$cnt" ] && [ "$cnt" -le 100000000 ] && [ $(( (100000000 - cnt) % 200000 )) -eq 0 ] ||
		fail "$name counted $cnt: not 100000000 less whole bursts of 200000"
done
[ "$(sfield s samples)" -gt 0 ] || fail "no samples"
expect_num "periods of s" "$(sfield s pmax)" 1000
t_end

# PERF_EVENT_IOC_REFRESH N: N samples, then perf disables the event (the
# sample that reaches the limit is perf_event_overflow()'s return of 1).
# 10 periods arrive at one look: exactly N samples, with and without
# PERF_SAMPLE_PERIOD, nothing while disabled, N more after a refresh.
# Each step waits for the samples and for perf's disable (from irq_work,
# after the look), guards of 10 s against a hang: on a busy host a look
# or the disable may come late, and traffic injected before them would
# be counted, or a refresh undone.  0.1 s more after each wait, for a
# sample that must not come.
t_begin "refresh_limit_gives_exactly_n_samples"
qperf <<EOF2
open p uncore_qpi_1 0x14 socket=0 period=1000 stype=0x100 single disabled
mmap p
open q uncore_qpi_1 0x14 socket=0 period=1000 single disabled
mmap q
refresh p 3
refresh q 3
inject event socket=0 box=qpi1 event=0x14 count=10000
waitsamples p 3 10
waitsamples q 3 10
waitoff p 10
waitoff q 10
inject event socket=0 box=qpi1 event=0x14 count=10000
sh sleep 0.1
samples p
samples q
read p
read q
refresh p 2
refresh q 2
inject event socket=0 box=qpi1 event=0x14 count=5000
waitsamples p 5 10
waitsamples q 5 10
waitoff p 10
waitoff q 10
sh sleep 0.1
samples p
samples q
read p
read q
EOF2
for e in p q; do
	expect_num "$e: samples, limit 3 then 2 more" "$(sfield $e samples)" 5
	expect_num "$e: count (disabled between)" "$(val $e)" 15000
done
expect_num "p: periods" "$(sfield p periods)" 5000
t_end

# REFRESH 1 and a burst of 20 periods at one look: exactly one sample.
# The first sample reaches the limit, and perf_event_overflow() says stop;
# perf disables the event only from irq_work, after the box timer's
# callback, so until then a sample offered is written (the limit, 0, is
# no longer checked).  Nothing may be offered after that first sample.
# Again after a second REFRESH 1, once perf has switched the event off
# (waitoff): a REFRESH before that late disable would be undone by it (on
# 7.3 under load the second burst then went uncounted).  With and without
# PERF_SAMPLE_PERIOD.
t_begin "refresh_1_with_a_burst_gives_exactly_1_sample"
qperf <<EOF2
open p uncore_qpi_1 0x14 socket=1 period=1000 stype=0x100 single disabled
mmap p
open q uncore_qpi_1 0x14 socket=1 period=1000 single disabled
mmap q
refresh p 1
refresh q 1
inject event socket=1 box=qpi1 event=0x14 count=20000
waitsamples p 1 10
waitsamples q 1 10
waitoff p 10
waitoff q 10
refresh p 1
refresh q 1
inject event socket=1 box=qpi1 event=0x14 count=20000
waitsamples p 2 10
waitsamples q 2 10
sh sleep 0.1
samples p
samples q
read p
read q
EOF2
for e in p q; do
	# perf switched it off after its one sample, before the second REFRESH
	expect_eq "$e: after the first sample" "$(echo "$QOUT" | awk -v n=$e '$1 == n && ($2 == "off" || $2 == "on")')" "$e off"
	expect_num "$e: samples, REFRESH 1 twice" "$(sfield $e samples)" 2
	expect_num "$e: count (two bursts)" "$(val $e)" 40000
done
expect_num "p: periods" "$(sfield p periods)" 2000
t_end

# perf throttles an event past its samples per tick (perf_event_overflow()
# returns 1 there too): from one look of 100000 periods, at most a tick's
# worth of samples and a THROTTLE record; the count stays exact.
t_begin "throttle_stops_the_samples_of_a_look"
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
qperf <<EOF2
open t uncore_qpi_1 0x14 socket=1 period=1 single
mmap t 1024
inject event socket=1 box=qpi1 event=0x14 count=100000
sh sleep 0.1
disable t
samples t
read t
EOF2
n=$(sfield t samples)
echo "# $n samples, max sample rate $rate"
[ "$n" -ge 1 ] && [ "$n" -le 1000 ] || fail "$n samples from one look"
expect_num "throttle records" "$(sfield t throttle)" 1
expect_num "count" "$(val t)" 100000
t_end

t_begin "overflow_path_preload_ov_en_status"
# the write log shows how a period is armed and an overflow handled
echo clear > "$DBG/log"
rec $P/j.data -e uncore_r3qpi_0/clockticks/ -c 1000 -- \
	sh -c "echo 'event socket=0 box=r3qpi0 event=0x01 count=2500' > $DBG/inject; sleep 0.1"
expect_num "samples" "$(nsamples $P/j.data)" 2
rb=$(r3_bdf 0 0 | cut -d: -f2-)
grep -i " $rb " "$DBG/log" > $P/j.log || true
# preload 2^44 - 1000: low dword 0xfffffc18, high 0xfff
grep -qE "where=0x0(a0|a8|b0) .*val=0xfffffc18$" $P/j.log || fail "no preload of the low dword: $(head -n 20 $P/j.log)"
grep -qE "where=0x0(a4|ac|b4) .*val=0x00000fff$" $P/j.log || fail "no preload of the high dword"
case "$PLATFORM" in
ivbep)
	grep -qE "where=0x0d[8ce] .*val=0x005[0-9a-f]{5}$" $P/j.log ||
		fail "no control write with en and ov_en: $(grep -E 'where=0x0d[8ce]' $P/j.log | head -n 3)"
	grep -qE "where=0x0f8 .*val=0x0000000[1-7]$" $P/j.log || fail "BOX_STATUS not cleared"
	ub=$(cat "$DBG/socket0/ubox_status")
	expect_num "UBox saw link 0's overflow" $((ub & 0x100)) 0x100
	grep -qx "status=0x0" "$DBG/socket0/r3qpi0/regs" || fail "BOX_STATUS left set"
	;;
*)
	# SNB-EP: bit 20 is reserved; overflows are found from the counter
	grep -E "where=0x0d[8ce]" $P/j.log | grep -qE "val=0x[0-9a-f]{2}[13579bdf][0-9a-f]{5}$" &&
		fail "bit 20 written on $PLATFORM"
	expect_num "reserved writes" "$(cat "$DBG/socket0/r3qpi0/rsvd_writes")" 0
	;;
esac
# frz_en is set only while the driver freezes the box itself
grep -E "where=0x0f4 " $P/j.log | grep -vqE "val=0x000(00000|10100)$" &&
	fail "BOX_CTL written with other values: $(grep -E 'where=0x0f4 ' $P/j.log | head -n 3)"
t_end

t_begin "ubox_freeze_does_not_stop_our_counters"
echo 1 > "$DBG/socket1/freeze_on_ov"
perf stat -a -x, -o $P/st2.txt -e uncore_r3qpi_1/clockticks/ -- \
	perf record -q -a -B -o $P/k.data -e uncore_r3qpi_1/clockticks/ -c 100000 -- \
	sh -c "echo 'event socket=1 box=r3qpi1 event=0x01 count=250000' > $DBG/inject; sleep 0.05;
	       echo 'event socket=1 box=r3qpi1 event=0x01 count=250000' > $DBG/inject; sleep 0.1" \
	> $P/st2.out 2>&1 || fail "perf stat: $(tail -n 3 $P/st2.out)"
expect_num "samples" "$(nsamples $P/k.data)" 5
expect_num "count" "$(cut -d, -f1 < $P/st2.txt | grep -E '^[0-9]+$')" 500000
echo 0 > "$DBG/socket1/freeze"
t_end

t_begin "reader_offline_moves_sampling"
set -- $(socket_cpus 1)
if [ $# -lt 2 ]; then
	t_err=0
	echo "# socket 1 has one CPU; nothing to move to"
else
	first=$1 second=$2
	perf record -q -a -B -o $P/l.data -e uncore_qpi_0/clockticks/ -c 1000000 -- \
		sh -c "echo 'event socket=1 box=qpi0 event=0x14 count=3000000' > $DBG/inject; sleep 0.1;
		       echo 0 > /sys/devices/system/cpu/cpu$first/online; sleep 0.1;
		       echo 'event socket=1 box=qpi0 event=0x14 count=2000000' > $DBG/inject; sleep 0.1;
		       echo 1 > /sys/devices/system/cpu/cpu$first/online" > $P/l.out 2>&1 ||
		fail "perf record: $(tail -n 3 $P/l.out)"
	perf script -i $P/l.data -F cpu 2> /dev/null | tr -d '[] ' | awk '{ print $1 + 0 }' > $P/l.txt
	expect_num "samples from CPU $first" "$(grep -cx "$first" $P/l.txt)" 3
	expect_num "samples from CPU $second" "$(grep -cx "$second" $P/l.txt)" 2
fi
t_end

# Only a box timer look before the removal can write the samples: the
# removal stops the box, and the close writes nothing for a dead box.  So
# the workload waits for a look that offered them (looked N), not a fixed
# time: with no traffic before, the next look can be 100 ms away, and on a
# busy host later still.
OFFERED=/sys/module/qpi_uncore/parameters/test_offered_look_max
# looked_reset: shell text that resets the test build's record of the most
# samples one box timer callback offered perf; looked N: shell text that
# waits until that record reaches N (lib.sh's wait_text), or 0.1 s without
# the test build's hooks
looked_reset="[ -f $OFFERED ] && echo 0 > $OFFERED"
looked()
{
	echo "if [ -f $OFFERED ]; then $(wait_text "[ \$(cat $OFFERED) -ge $1 ]"); else sleep 0.1; fi"
}
t_begin "removal_while_sampling"
dev=$(qpi_bdf 0 1)
perf record -q -a -B -o $P/m.data -e uncore_qpi_1/clockticks/ -c 1000000 -- \
	sh -c "$looked_reset; echo 'event socket=0 box=qpi1 event=0x14 count=2000000' > $DBG/inject; $(looked 2);
	       echo 1 > /sys/bus/pci/devices/$dev/remove; sleep 0.1" > $P/m.out 2>&1 ||
	fail "perf record: $(tail -n 3 $P/m.out)"
expect_num "samples before the removal" "$(nsamples $P/m.data)" 2
# the model goes away under a sampling event
perf record -q -a -B -o $P/n.data -e uncore_qpi_0/clockticks/ -c 1000000 -- \
	sh -c "$looked_reset; echo 'event socket=0 box=qpi0 event=0x14 count=1000000' > $DBG/inject; $(looked 1);
	       rmmod qpisim; sleep 0.1" > $P/n.out 2>&1 ||
	fail "perf record: $(tail -n 3 $P/n.out)"
expect_num "samples before unload" "$(nsamples $P/n.data)" 1
t_end

t_begin "overflow_to_sample_within_the_poll"
# An overflow that no later traffic follows still gives its sample: only
# the box timer's look can find it.  Each batch of one period waits for its
# sample before the next batch comes, so the test asserts an order (none
# before its batch, one after it, with nothing else happening), not a
# delay.  waitsamples' 20 s only stops a hang; how long each wait took is
# printed as a figure (make bench measures the look's latency).
qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load sample_poll_us=20000
script="open s uncore_qpi_0 0x14 socket=0 period=1000000 stype=0x100 single
mmap s"
for i in 1 2 3 4 5 6 7 8; do
	script="$script
samples s
inject event socket=0 box=qpi0 event=0x14 count=1000000
waitsamples s $i 20"
done
qperf <<EOF2
$script
sh sleep 0.2
samples s
EOF2
echo "$QOUT" | awk '$1 == "s" && $2 ~ /^samples=/' > $P/ovf
before=$(awk 'NR % 2 == 1 && NR < 16 { sub("samples=", "", $2); printf "%s ", $2 }' $P/ovf)
after=$(awk 'NR % 2 == 0 { sub("samples=", "", $2); printf "%s ", $2 }' $P/ovf)
expect_eq "samples before each batch" "$before" "0 1 2 3 4 5 6 7 "
expect_eq "samples after each batch's wait" "$after" "1 2 3 4 5 6 7 8 "
echo "# waits for the sample, poll 20000 us: $(awk '{ for (i = 2; i <= NF; i++)
	if ($i ~ /^waited_us=/) { sub("waited_us=", "", $i); printf "%s ", $i } }' $P/ovf)us"
expect_num "samples in all" "$(sfield s samples)" 8
expect_num "periods" "$(sfield s periods)" 8000000
expect_num "lost" "$(sfield s lost)" 0
t_end

t_begin "module_parameters_checked"
qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_err "sample_poll_us=50" "Invalid" insmod "$MODDIR/qpi_uncore.ko" sample_poll_us=50
expect_ok "sample_poll_us=200" qpiu_load sample_poll_us=200
expect_eq "parameter" "$(cat /sys/module/qpi_uncore/parameters/sample_poll_us)" 200
echo 99 > /sys/module/qpi_uncore/parameters/sample_poll_us 2> /dev/null &&
	fail "sample_poll_us=99 accepted at run time"
expect_eq "unchanged" "$(cat /sys/module/qpi_uncore/parameters/sample_poll_us)" 200
t_end

# A period that completes must give its sample even when perf stops the
# event before the box timer looks: disable, PERF_EVENT_IOC_PERIOD (stop
# and restart), a move to another counter that a new event needs, and
# multiplexing.  A 100 ms poll leaves the timer no chance to look first
# (it makes the window wider, not the result different).
qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load sample_poll_us=100000

t_begin "completed_period_sampled_when_stopped"
dmesg_mark
qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s
inject event socket=0 box=qpi0 event=0x14 count=2500
disable s
samples s
read s
enable s
inject event socket=0 box=qpi0 event=0x14 count=500
disable s
samples s
read s
enable s
inject event socket=0 box=qpi0 event=0x14 count=1100
period s 2000
inject event socket=0 box=qpi0 event=0x14 count=2000
disable s
samples s
read s
EOF2
echo "$QOUT" | grep '^s samples' | sed 's/^/# /'
expect_num "samples at disable" "$(echo "$QOUT" | awk '$1 == "s" && $2 ~ /^samples=/' | head -n 1 | sed 's/.*samples=\([0-9]*\).*/\1/')" 2
expect_num "samples" "$(sfield s samples)" 5
expect_num "periods: 4 of 1000, 1 of 2000" "$(sfield s periods)" 6000
expect_num "count" "$(val s)" 6100
t_end

t_begin "completed_period_sampled_when_moved"
R3=$DBG/socket0/r3qpi0
# after the move: 600 events more, then x's samples and count
moved_tail="inject event socket=0 box=r3qpi0 event=0x01 count=600
sh sleep 0.3
samples x
disable x
samples x
read x"
qperf <<EOF2
open x uncore_r3qpi_0 0x01 socket=0 period=1000 stype=0x100 single
mmap x
inject event socket=0 box=r3qpi0 event=0x01 count=1500
open y uncore_r3qpi_0 0x13 socket=0
sh cat $R3/regs > $P/moved.regs
$moved_tail
EOF2
# moved_x REGS: x, moved to counter 1 (REGS after the move), gave one
# sample per period of the 1500 + 600 events it counted, and no
# BOX_STATUS warning came since the last dmesg_mark
moved_x()
{
	v=$(sed -n "s/^ctl1=//p" "$1")
	expect_num "x moved to counter 1" $((v & 0xff)) 1
	expect_num "samples" "$(sfield x samples)" 2
	expect_num "periods" "$(sfield x periods)" 2000
	expect_num "count" "$(val x)" 2100
	expect_eq "BOX_STATUS warnings" "$(dmesg_since_mark | grep "BOX_STATUS")" ""
}
moved_x $P/moved.regs
t_end

# The same move, and the box timer looks before any more traffic: the
# period carried across the restart is sampled there, and on IVB-EP R3QPI
# (ov_en) its overflow bit, cleared at the stop, is no disagreement with
# BOX_STATUS.  x is pinned, so that perf does not take it off the box to
# install y (it reschedules only flexible events: del() would take the
# period); y is opened disabled and enabled right after the traffic, so
# that the move comes first.  The write log shows when a look came in
# between (it re-armed counter 0); the case then runs again, at most 5
# times.
t_begin "carried_period_survives_the_restart"
rb=$(r3_bdf 0 0 | cut -d: -f2-)
try=0
while [ $try -lt 5 ]; do
	try=$((try + 1))
	dmesg_mark
	qperf <<EOF2
open x uncore_r3qpi_0 0x01 socket=0 period=1000 stype=0x100 single pinned
mmap x
open y uncore_r3qpi_0 0x13 socket=0 disabled
sh sleep 0.2
sh echo clear > $DBG/log
inject event socket=0 box=r3qpi0 event=0x01 count=1500
enable y
sh cat $DBG/log > $P/carried.log; cat $R3/regs > $P/carried.regs
waitsamples x 1 10
$moved_tail
EOF2
	grep -i " $rb " $P/carried.log | grep -qE "where=0x0a[04] " || break
	echo "# try $try: the box timer looked before the move; again"
done
grep -i " $rb " $P/carried.log | grep -qE "where=0x0a[04] " &&
	fail "the box timer looked before the move in all $try tries"
expect_num "samples at the look after the move" "$(echo "$QOUT" | awk '$1 == "x" && $2 ~ /^samples=/' | head -n 1 | sed 's/.*samples=\([0-9]*\).*/\1/')" 1
moved_x $P/carried.regs
t_end

# Five events for four counters: perf rotates them every millisecond.
# Whatever the sampling event counted while it had a counter, each whole
# period of it is a sample.  That it was multiplexed, perf's times say:
# whether it was off its counter when traffic came is the rotation
# timer's doing (late on a busy host).
t_begin "completed_periods_sampled_under_multiplexing"
mux_interval 1 uncore_qpi_0
qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s
open c1 uncore_qpi_0 0x14 socket=0
open c2 uncore_qpi_0 0x14 socket=0
open c3 uncore_qpi_0 0x14 socket=0
open c4 uncore_qpi_0 0x14 socket=0
sh i=0; while [ \$i -lt 100 ]; do echo 'event socket=0 box=qpi0 event=0x14 count=1700' > $DBG/inject; sleep 0.005; i=\$((i + 1)); done
disable s
samples s
read s
EOF2
v=$(val s)
echo "# s counted $v of 170000 while scheduled: $(sfield s samples) samples"
[ "${v:-0}" -ge 1000 ] || fail "s counted $v: no period"
en=$(echo "$QOUT" | awk '$1 == "s" && $3 ~ /^enabled=/ { sub("enabled=", "", $3); print $3 }' | tail -n 1)
[ "$(ran s)" -lt "${en:-0}" ] || fail "s counted $(ran s) of $en ns: not multiplexed"
expect_num "samples: one per whole period counted" "$(sfield s samples)" $((v / 1000))
expect_num "periods" "$(sfield s periods)" $((v / 1000 * 1000))
t_end

# make check builds a qpi_uncore with neither sample route
# (QPIU_SAMPLE_ROUTE=none), as on a kernel that exports neither; run-vm
# puts it here when it was built for the guest's kernel.
NOROUTE=/lib/modules/qpi-noroute/qpi_uncore.ko
if [ ! -f $NOROUTE ]; then
	t_skip "no_sample_route_counts_and_refuses_sampling" "no QPIU_SAMPLE_ROUTE=none build for this kernel"
else
	t_begin "no_sample_route_counts_and_refuses_sampling"
	qpiu_unload
	qpisim_unload
	expect_ok "load qpisim" qsim "$PLATFORM"
	expect_ok "load qpi_uncore without a sample route" insmod $NOROUTE
	expect_eq "sample_route parameter" \
		"$(cat /sys/module/qpi_uncore/parameters/sample_route)" none
	perf stat -a -x, -o $P/nr.txt -e uncore_qpi_0/clockticks/ -- \
		sh -c "echo 'event socket=0 box=qpi0 event=0x14 count=123457' > $DBG/inject" \
		> $P/nr.out 2>&1 || fail "perf stat: $(tail -n 3 $P/nr.out)"
	expect_num "counts" "$(cut -d, -f1 < $P/nr.txt | grep -E '^[0-9]+$')" 123457
	dmesg_mark
	perf record -q -a -o $P/nr.data -e uncore_qpi_0/clockticks/ -c 1000 -- true > $P/nr2.out 2>&1 &&
		fail "perf record -c 1000 succeeded"
	expect_dmesg "reason" "sample_period/sample_freq: counting only; this kernel exports neither perf_event_overflow nor perf_tp_event to modules, so a module cannot deliver samples"
	perf stat -a -x, -o $P/nr.txt -e uncore_qpi_0/clockticks/ -- \
		sh -c "echo 'event socket=0 box=qpi0 event=0x14 count=7' > $DBG/inject" \
		> $P/nr.out 2>&1 || fail "perf stat: $(tail -n 3 $P/nr.out)"
	expect_num "still counts" "$(cut -d, -f1 < $P/nr.txt | grep -E '^[0-9]+$')" 7
	t_end
fi

# A read(2) from another CPU of the socket runs pmu->read there
# (PERF_EV_CAP_READ_ACTIVE_PKG) and folds what the counter gained into
# the count and hw.period_left, while the reader CPU may be handing perf
# a sample, with hw.period_left lent to perf for the call.  A watcher on
# another CPU of socket 0 reads a sampling event in a loop under 2*10^6
# events a second for 3 s; test builds hold each sample's window open
# until such a read comes (test_deliver_wait_ms).  Every period counted
# must be a sample: samples x N = count, to within one period.
qpiu_unload
qpisim_unload
if [ "$(socket_cpus 0 | wc -w)" -lt 2 ]; then
	t_skip "reads_from_another_cpu_lose_no_period" "socket 0 has one CPU"
else
	t_begin "reads_from_another_cpu_lose_no_period"
	expect_ok "load qpisim" qsim "$PLATFORM"
	expect_ok "load qpi_uncore" qpiu_load
	r0=$(reader 0 uncore_qpi_0)
	w=$(socket_cpus 0 | tr ' ' '\n' | grep -vx "$r0" | head -n 1)
	WAIT=/sys/module/qpi_uncore/parameters/test_deliver_wait_ms
	RACED=/sys/module/qpi_uncore/parameters/test_deliver_raced
	[ -f $WAIT ] && echo 200 > $WAIT
	N=100000
	qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=$N stype=0x100 single
mmap s
watch s $w
inject rate socket=0 box=qpi0 event=0x14 per_s=2000000
sh sleep 3
inject rate socket=0 box=qpi0 event=0x14 per_s=0
unwatch s
disable s
samples s
read s
EOF2
	v=$(val s)
	n=$(sfield s samples)
	raced=$(cat $RACED 2> /dev/null)
	[ -f $WAIT ] && echo 0 > $WAIT
	echo "# reader CPU $r0, watcher CPU $w: $(wfield s reads) reads, ${raced:-no test hook:} windows hit; count $v, $n samples of $N"
	[ "${v:-0}" -ge $((10 * N)) ] || fail "counted ${v:-nothing}: the rate did not reach the counter"
	[ ! -f $WAIT ] || [ "${raced:-0}" -ge 1 ] ||
		fail "no read from CPU $w came into a sample's window"
	expect_num "lost records" "$(sfield s lost)" 0
	expect_num "throttled" "$(sfield s throttle)" 0
	expect_eq "each period" "$(sfield s pmin) $(sfield s pmax)" "$N $N"
	expect_num "reads that went backwards" "$(wfield s back)" 0
	expect_num "periods counted and not sampled" "$(( ${v:-0} / N - ${n:-0} ))" 0
	t_end
fi

qpiu_unload
qpisim_unload
ktap_finish
