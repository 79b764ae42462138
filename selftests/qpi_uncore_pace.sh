#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# How the box timer paces sampling (issue 19, item 3, item 7 and "Cost"):
# bounded work per timer callback with the rest carried over, every sample
# written on an idle tickless reader CPU (perf's throttle accounting needs
# that CPU's tick), and looks scheduled from the traffic: few config
# accesses with no traffic, about one look per sample at a steady rate.
# Counts come from qpisim (accesses) and kprobes (looks, samples per look),
# never from how long something took.
. "$(dirname "$0")/lib.sh"

ktap_plan 10

P=/tmp/qpipace
mkdir -p $P
TR=/sys/kernel/debug/tracing
TP=/sys/module/qpi_uncore/parameters
# QPIU_LOOK_SAMPLES in qpi_uncore_look.c
BUDGET=64

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

r0=$(socket_reader uncore_qpi_0 0)
other=$(cpulist "$(cat /sys/devices/system/cpu/online)" | tr , '\n' | grep -vx "$r0" | head -n 1)

# guest_hz: HZ, from jiffies against the kernel's clock (timer_list's "now
# at", in the same read) over a second or more, to the nearest of the
# values Kconfig offers
guest_hz()
{
	tl() { awk '/^now at/ && !n { n = $3 } /^jiffies:/ && !j { j = $2 } END { print n, j }' /proc/timer_list; }
	read -r n0 j0 <<EOF2
$(tl)
EOF2
	sleep 1
	read -r n1 j1 <<EOF2
$(tl)
EOF2
	awk -v d=$((j1 - j0)) -v t=$((n1 - n0)) 'BEGIN { r = d * 1e9 / t; b = 100
		for (i = split("100 250 300 1000", h, " "); i > 0; i--)
			if ((r - h[i]) * (r - h[i]) < (r - b) * (r - b)) b = h[i]
		print b }'
}

# kprobes: "look" at each box timer callback, "emit" with the samples it
# hands perf (qpiu_sample_emit(event, period, n): n in %dx)
probes=no
if echo "p:qpiu/look qpiu_box_timer" > $TR/kprobe_events 2> /dev/null &&
   echo "p:qpiu/emit qpiu_sample_emit n=%dx:u64" >> $TR/kprobe_events 2> /dev/null; then
	probes=yes
fi
echo "# kprobes: $probes"

# 3000 periods at HZ 250 (750 at HZ 1000) at one look: below the pacing
# bound, 8 ticks' worth at perf's default limit (8 (400 - 1) = 3192 at
# HZ 250, 8 (100 - 1) = 792 at HZ 1000; past it a backlog goes out
# unpaced, 401 or 101 a callback), perf's sample rate raised so that perf
# cannot throttle: each
# timer callback hands perf at most BUDGET samples and carries the rest
# over; every period gives its sample, in order, with its period.  With
# and without PERF_SAMPLE_PERIOD.
if [ $probes = no ]; then
	t_skip "look_work_is_bounded" "no kprobe events"
else
	t_begin "look_work_is_bounded"
	perf_limits_pin 100000000 || fail "perf's sample rate limit not raised"
	n=$((750000 / $(guest_hz)))
	for stype in 0x100 0x0; do
		echo > $TR/trace
		[ -f $TP/test_offered_look_max ] && echo 0 > $TP/test_offered_look_max
		echo 1 > $TR/events/qpiu/enable
		qperf <<EOF2
open t uncore_qpi_1 0x14 socket=1 period=1 stype=$stype single
mmap t 2048
inject event socket=1 box=qpi1 event=0x14 count=$n
waitsamples t $n 60
disable t
samples t
read t
EOF2
		echo 0 > $TR/events/qpiu/enable
		awk '/ look: / { if (c > m) m = c; c = 0; looks++ }
			/ emit: / { sub(/.*n=/, ""); c += $1; s += $1; if ($1 > 0) e++ }
			END { if (c > m) m = c; print m + 0, s + 0, e + 0 }' $TR/trace > $P/look
		read -r most total emits < $P/look
		# A kprobe hit while another kprobe's handler runs on that CPU
		# is missed (kprobe_profile's third column), and a missed
		# "look" would join two callbacks' samples.  The driver's own
		# count of a callback's samples, where it has one, is exact.
		echo "# stype $stype: $(sfield t samples) samples in $emits hand-overs, at most $most a callback (kprobes so far: $(awk '{ printf "%s%s %s hits %s missed", n++ ? ", " : "", $1, $2, $3 }' $TR/kprobe_profile))"
		if [ -f $TP/test_offered_look_max ]; then
			most=$(cat $TP/test_offered_look_max)
			echo "# stype $stype: at most $most a callback, the driver's count"
		fi
		expect_num "stype $stype: samples" "$(sfield t samples)" $n
		expect_num "stype $stype: throttle records" "$(sfield t throttle)" 0
		expect_num "stype $stype: lost records" "$(sfield t lost)" 0
		expect_num "stype $stype: count" "$(val t)" $n
		[ "$stype" = 0x100 ] && expect_num "stype $stype: periods" "$(sfield t periods)" $n
		expect_num "stype $stype: samples handed to perf" "$total" $n
		[ "$most" -le $BUDGET ] || fail "stype $stype: $most samples in one timer callback, budget $BUDGET"
	done
	perf_limits_restore || fail "perf's sample rate limit not restored"
	t_end
fi

# bursts N: qpiperf lines for ten bursts of N periods of 1000 on socket
# 0's port 0, sampled by "s", each 50 ms after the last one's samples
# were written (a guard of 10 s against a hang)
bursts()
{
	i=1
	while [ $i -le 10 ]; do
		echo "inject event socket=0 box=qpi0 event=0x14 count=$(($1 * 1000))"
		echo "waitsamples s $(($1 * i)) 10"
		echo "sh sleep 0.05"
		i=$((i + 1))
	done
}

# idle_bursts STYPE: ten bursts of 300 periods of 1000 on socket 0's port
# 0, each 50 ms after the last one's samples were written, sampled with
# sample_type STYPE by qpiperf on $other (not the reader); its output in
# QOUT.  Every sample must be written, in order and with its period, and
# the count be exact.  Why after the samples: the driver stops the
# sampling counter while a look re-arms it (a few config accesses;
# qpi_uncore.rst "Sampling"), and a qpisim burst arrives at one instant,
# so a burst that lands in that window is missed whole, where hardware
# misses what arrives in those microseconds (benchmarks.rst,
# sampling_lost_ppm).  A look re-arms the counter before it writes the
# samples it found, and once the last of a burst is written the counter
# is armed for the next period, so nothing stops it until the next burst.
# That is what 5.10 once showed: 2700 samples and a count of 2700000, one
# burst never counted, with the bursts every 50 ms whatever the looks did.
idle_bursts()
{
	QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=$1 single
mmap s 1024
$(bursts 300)
disable s
samples s
read s
EOF2
)
	echo "$QOUT" | grep '^s samples' | tail -n 2 | sed "s/^/# stype $1: /"
	expect_num "stype $1: samples" "$(sfield s samples)" 3000
	[ "$1" = 0x100 ] && expect_num "stype $1: periods" "$(sfield s periods)" 3000000
	expect_num "stype $1: count" "$(val s)" 3000000
}

# The reader CPU idles (no tick: NO_HZ) while bursts of 300 periods arrive
# 50 ms apart: 300 is below perf's limit of a tick (400 at HZ 250), so perf
# must write every sample; it counts them per tick of the reader CPU, which
# must therefore come.  The test runs on another CPU.  Without
# PERF_SAMPLE_PERIOD perf throttled after 400 and never unthrottled; with
# it, the driver's own cap dropped samples with no record.  perf's limit is
# pinned to the one the driver paces for, DIV_ROUND_UP(100000, HZ): on a
# kernel with a CPU PMU perf lowers it when its NMIs run long, which a busy
# host causes (these guests have no CPU PMU: it stays).
t_begin "idle_reader_writes_every_sample"
perf_limits_pin 100000 || fail "perf's sample rate limit not set"
for stype in 0x100 0x0; do
	idle_bursts $stype
	expect_num "stype $stype: THROTTLE without UNTHROTTLE" \
		$(( $(sfield s throttle) - $(sfield s unthrottle) )) 0
done
echo "# perf's limits: max sample rate $(cat "$PERF_RATE"), cpu time max percent $(cat "$PERF_PCT")"
perf_limits_restore || fail "perf's sample rate limit not restored"
t_end

# perf throttles for real: 100000 periods of 1 at one look are far past
# its limit of a tick.  It writes THROTTLE, drops the rest, and must lift
# the throttle at the idle reader's next tick (UNTHROTTLE), which the
# driver's timer brings.  The count stays exact.  The test waits for the
# UNTHROTTLE (10 s, a guard against a hang), not a fixed time: on a busy
# host the reader's vCPU may not run for a while.  Then 0.1 s more, for a
# second THROTTLE or UNTHROTTLE that must not come.
t_begin "throttle_lifted_on_an_idle_reader"
QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open t uncore_qpi_0 0x14 socket=0 period=1 single
mmap t 1024
inject event socket=0 box=qpi0 event=0x14 count=100000
waitunthrottle t 1 10
sh sleep 0.1
samples t
disable t
read t
EOF2
)
echo "$QOUT" | grep '^t samples' | sed 's/^/# /'
n=$(sfield t samples)
if [ "${n:-0}" -lt 1 ] || [ "$n" -ge 100000 ]; then
	fail "$n samples: not throttled"
fi
expect_num "THROTTLE records" "$(sfield t throttle)" 1
expect_num "UNTHROTTLE records" "$(sfield t unthrottle)" 1
expect_num "count" "$(val t)" 100000
t_end

# One sampling event and no traffic: the box is looked at less and less
# often, down to 10 looks a second of 3 config reads; 40 accesses a second
# is the bound.  The accesses are the model's count; the seconds are the
# guest's.
t_begin "idle_sampling_event_costs_few_accesses"
F=$DBG/socket0/qpi0
qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 single
sh sleep 1
sh echo 0 > $F/reads; echo 0 > $F/writes; cut -d' ' -f1 /proc/uptime > $P/t0
sh sleep 3
sh cat $F/reads $F/writes > $P/acc; cut -d' ' -f1 /proc/uptime > $P/t1
read s
EOF2
acc=$(awk '{ s += $1 } END { print s }' $P/acc)
secs=$(awk -v a="$(cat $P/t0)" '{ print $1 - a }' $P/t1)
echo "# $acc config accesses in $secs s with no traffic"
awk -v a="$acc" -v s="$secs" 'BEGIN { exit !(a <= 40 * s) }' ||
	fail "$acc accesses in $secs s: more than 40 a second"
expect_num "count" "$(val s)" 0
t_end

# A steady 100 samples a second (10^5 clockticks a second, a sample every
# 1000): about one look per sample, at most 1.5 (and a few while the rate is
# first measured).
if [ $probes = no ]; then
	t_skip "steady_rate_about_one_look_per_sample" "no kprobe events"
else
	t_begin "steady_rate_about_one_look_per_sample"
	echo > $TR/trace
	qperf <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s
sh echo 1 > $TR/events/qpiu/look/enable
inject rate socket=0 box=qpi0 event=0x14 per_s=100000
sh sleep 3
inject rate socket=0 box=qpi0 event=0x14 per_s=0
samples s
sh echo 0 > $TR/events/qpiu/look/enable
disable s
samples s
read s
EOF2
	looks=$(grep -c ' look: ' $TR/trace)
	n=$(echo "$QOUT" | awk '$1 == "s" && $2 ~ /^samples=/ { sub("samples=", "", $2); print $2; exit }')
	echo "# $looks looks for $n samples"
	[ "${n:-0}" -ge 100 ] || fail "$n samples"
	[ $((2 * looks)) -le $((3 * ${n:-0} + 20)) ] || fail "$looks looks for $n samples: more than 1.5 a sample"
	expect_num "periods" "$(sfield s periods)" "$(( $(val s) / 1000 * 1000 ))"
	t_end
fi

# Past the pacing bound, with perf's limit raised so far that it never
# throttles (and its dynamic lowering off): one box timer callback, and
# one del(), offers perf at most QPIU_CALL_SAMPLES, DIV_ROUND_UP(100000,
# HZ) + 1 (perf's default limit of a tick and one: enough for it to
# throttle there); the timer carries the rest to its next callback, del()
# drops it.  The test build's hooks record the most offered in one call.
# The first backlog is the del()'s alone: the box timers look at nothing
# (test_hold_looks) from before the injection until after the disable, or
# a look could take it first whenever the host keeps this test's vCPU
# from the disable for long (0.1 s lets the looks take 13634 of 20000).
if [ ! -f $TP/test_offered_look_max ]; then
	t_skip "backlog_offered_a_bounded_number_a_call" "qpi_uncore built without QPIU_TEST_HOOKS (test_offered_look_max)"
else
	t_begin "backlog_offered_a_bounded_number_a_call"
	hz=$(guest_hz)
	bound=$(( (100000 + hz - 1) / hz + 1 ))
	echo "# HZ $hz: at most $bound samples a call"
	old_rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
	old_pct=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)
	echo 100000000 > /proc/sys/kernel/perf_event_max_sample_rate ||
		fail "kernel.perf_event_max_sample_rate not raised"
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent
	echo 0 > $TP/test_offered_look_max
	echo 0 > $TP/test_offered_del_max
	# 20000 periods of 1, twice: past QPIU_PACE_MAX (3192 at HZ 250)
	QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open t uncore_qpi_0 0x14 socket=0 period=1 stype=0x100 single
mmap t 1024
sh sleep 0.5
sh echo 1 > $TP/test_hold_looks
inject event socket=0 box=qpi0 event=0x14 count=20000
disable t
sh echo 0 > $TP/test_hold_looks
samples t
sh cat $TP/test_offered_del_max > $P/del
enable t
inject event socket=0 box=qpi0 event=0x14 count=20000
waitsamples t 20401 30
sh sleep 0.5
disable t
samples t
read t
EOF2
)
	echo "$QOUT" | grep '^t samples' | sed 's/^/# /'
	echo "$old_pct" > /proc/sys/kernel/perf_cpu_time_max_percent
	echo "$old_rate" > /proc/sys/kernel/perf_event_max_sample_rate
	first=$(echo "$QOUT" | awk '$1 == "t" && $2 ~ /^samples=/ { sub("samples=", "", $2); print $2; exit }')
	expect_num "samples of the first backlog: the del()'s" "$first" $bound
	expect_num "most samples offered in one del()" "$(cat $P/del)" $bound
	expect_num "most samples offered in one timer callback" "$(cat $TP/test_offered_look_max)" $bound
	expect_num "samples after the enable: every period" $(( $(sfield t samples) - first )) 20000
	expect_num "periods" $(( $(sfield t periods) - first )) 20000
	expect_num "throttle records" "$(sfield t throttle)" 0
	expect_num "lost records" "$(sfield t lost)" 0
	expect_num "count" "$(val t)" 40000
	t_end
fi

# The same bursts beside a guest CPU that never idles (a busy loop on a
# CPU that is neither the reader nor the test's).  Under TCG the reader's
# timer for the next jiffy then often runs two or three times between two
# of perf's ticks on that CPU: a driver that starts a tick's worth afresh
# at each run of that timer hands perf more than its limit of a tick, and
# perf throttles (THROTTLE, a sample lost).  perf's own count of the
# tick, hw.interrupts, says how much more it takes.  Three rounds, as one
# often passes by luck; each must write every sample, with no THROTTLE.
busy=$(cpulist "$(cat /sys/devices/system/cpu/online)" | tr , '\n' |
	grep -vx "$r0" | grep -vx "$other" | head -n 1)
if [ -z "$busy" ]; then
	t_skip "idle_reader_writes_every_sample_beside_a_busy_cpu" "no third CPU online for the busy loop"
else
	t_begin "idle_reader_writes_every_sample_beside_a_busy_cpu"
	taskset -c "$busy" sh -c 'while :; do :; done' &
	hog=$!
	perf_limits_pin 100000 || fail "perf's sample rate limit not set"
	for round in 1 2 3; do
		for stype in 0x100 0x0; do
			idle_bursts $stype
			expect_num "round $round, stype $stype: THROTTLE records" \
				"$(sfield s throttle)" 0
		done
	done
	perf_limits_restore || fail "perf's sample rate limit not restored"
	kill "$hog"
	wait "$hog" 2> /dev/null
	t_end
fi

# perf's limit of a tick is what kernel.perf_event_max_sample_rate says
# now (perf also lowers it there itself when its NMIs run long), not the
# default of 100000 a second: lowered to 8 samples a tick (2000 at HZ 250,
# 8000 at HZ 1000).  Ten bursts of 20 periods, 50 ms apart: more than a
# tick's limit, within the pacing bound (8 ticks' worth, 8 (8 - 1) = 56
# periods; a burst past it is not paced, and at HZ 1000 a fixed 2000 a
# second would make the bound 8).  Each burst waits for the last one's
# samples (a guard of 10 s), as in idle_bursts: bursts 50 ms apart
# whatever the reader did would pile up past the bound whenever the host
# kept the reader's vCPU from running for a few ticks.  The driver must pace to the lowered
# limit and carry the rest, so every period gives its sample and perf never
# throttles.  Once with the limit lowered before the event opens, once
# while it is open.
# the driver's reading of perf's limit; while the event is open, the test
# waits for it to change (a guard of 10 s against a hang) before the bursts
TLIM=/sys/module/qpi_uncore/parameters/sample_tick_limit
t_begin "paced_to_perf_limit_lowered"
rate=$((8 * $(guest_hz)))
for when in before while; do
	if [ $when = before ]; then
		perf_limits_pin $rate || fail "perf's sample rate limit not lowered"
	else
		perf_limits_pin 100000 || fail "perf's sample rate limit not set"
	fi
	QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s 1024
sh [ $when = while ] && { l=\$(cat $TLIM); echo 25 > $PERF_PCT; echo $rate > $PERF_RATE; echo 0 > $PERF_PCT; i=0; while [ \$(cat $TLIM) = \$l ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done; }
sh echo "# the driver paces to \$(cat $TLIM) samples a tick"
$(bursts 20)
disable s
samples s
read s
EOF2
)
	echo "$QOUT" | grep '^# the driver paces'
	echo "$QOUT" | grep '^s samples' | tail -n 2 | sed "s/^/# limit lowered $when the open: /"
	expect_num "lowered $when: the driver's limit of a tick" "$(echo "$QOUT" | sed -n 's/^# the driver paces to \([0-9]*\) .*/\1/p')" 8
	expect_num "lowered $when: samples" "$(sfield s samples)" 200
	expect_num "lowered $when: throttle records" "$(sfield s throttle)" 0
	expect_num "lowered $when: periods" "$(sfield s periods)" 200000
	expect_num "lowered $when: count" "$(val s)" 200000
	perf_limits_restore || fail "perf's sample rate limit not restored"
done
t_end

# perf's limit is per event: a paced event at its limit must hold back no
# other event of its box.  perf's rate at 20 a tick (5000 at HZ 250):
# L = 20, and the pacing bound is 8 (L - 1) = 152 periods.  a (counter 0,
# Rx flits of one class) gets 151 periods, b (another class) 91, in one
# batch; once a has its first L - 1
# samples, b gets 69 more.  b's own pacing has taken L - 1 of its periods
# by then, so its backlog stays below the bound and every period of both
# gives its sample, with no THROTTLE.  With one budget per box, a took
# every look's share until its backlog was below 64, and b's grew past
# the bound and went out unpaced: perf throttled it.
t_begin "each_paced_event_its_own_budget"
hz=$(guest_hz)
perf_limits_pin $((20 * hz)) || fail "perf's sample rate limit not lowered"
L=20
pm=$((8 * (L - 1)))
na=$((pm - 1)) nb1=$((pm * 6 / 10)) nb2=$((pm - pm * 6 / 10 + 8))
echo "# HZ $hz, limit $L a tick: a $na periods, b $nb1 then $nb2"
QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open a uncore_qpi_0 0x0201 socket=0 period=1000 stype=0x100 single
mmap a 1024
open b uncore_qpi_0 0x0401 socket=0 period=1000 stype=0x100 single
mmap b 1024
inject event socket=0 box=qpi0 event=0x01 umask=0x02 count=$((na * 1000));event socket=0 box=qpi0 event=0x01 umask=0x04 count=$((nb1 * 1000))
waitsamples a $((L - 1)) 10
inject event socket=0 box=qpi0 event=0x01 umask=0x04 count=$((nb2 * 1000))
waitsamples a $na 10
waitsamples b $((nb1 + nb2)) 10
disable a
disable b
samples a
samples b
read a
read b
EOF2
)
echo "$QOUT" | grep '^[ab] samples' | sed 's/^/# /'
expect_num "a: samples" "$(sfield a samples)" $na
expect_num "b: samples" "$(sfield b samples)" $((nb1 + nb2))
expect_num "a: throttle records" "$(sfield a throttle)" 0
expect_num "b: throttle records" "$(sfield b throttle)" 0
expect_num "a: count" "$(val a)" $((na * 1000))
expect_num "b: count" "$(val b)" $(((nb1 + nb2) * 1000))
perf_limits_restore || fail "perf's sample rate limit not restored"
t_end

# The bound of QPIU_CALL_SAMPLES is per CPU, not per box: a socket's
# boxes share a reader CPU, and their box timers run in one interrupt
# when they are due together.  Ports 0 and 1 of socket 0 each get a
# backlog of 20000 periods of 1 in one batch (past the pacing bound), with
# perf's limit raised so far that it never throttles: the test build's
# record of the most samples offered in one interrupt of a CPU must be the
# bound, DIV_ROUND_UP(100000, HZ) + 1, and every period must give its
# sample.
if [ ! -f $TP/test_offered_irq_max ]; then
	t_skip "backlog_bounded_per_cpu_not_per_box" "qpi_uncore built without QPIU_TEST_HOOKS (test_offered_irq_max)"
else
	t_begin "backlog_bounded_per_cpu_not_per_box"
	hz=$(guest_hz)
	bound=$(( (100000 + hz - 1) / hz + 1 ))
	perf_limits_pin 100000000 || fail "perf's sample rate limit not raised"
	echo 0 > $TP/test_offered_irq_max
	QOUT=$(taskset -c "$other" "$HERE/qpiperf" <<EOF2
open a uncore_qpi_0 0x14 socket=0 period=1 stype=0x100 single
mmap a 1024
open b uncore_qpi_1 0x14 socket=0 period=1 stype=0x100 single
mmap b 1024
sh sleep 0.5
inject event socket=0 box=qpi0 event=0x14 count=20000;event socket=0 box=qpi1 event=0x14 count=20000
waitsamples a 20000 30
waitsamples b 20000 30
disable a
disable b
samples a
samples b
read a
read b
EOF2
)
	echo "$QOUT" | grep '^[ab] samples' | sed 's/^/# /'
	perf_limits_restore || fail "perf's sample rate limit not restored"
	echo "# HZ $hz: at most $bound samples in one interrupt"
	expect_num "most samples offered in one interrupt of a CPU" "$(cat $TP/test_offered_irq_max)" $bound
	for e in a b; do
		expect_num "$e: samples" "$(sfield $e samples)" 20000
		expect_num "$e: throttle records" "$(sfield $e throttle)" 0
		expect_num "$e: count" "$(val $e)" 20000
	done
	t_end
fi

echo > $TR/kprobe_events 2> /dev/null
qpiu_unload
qpisim_unload
ktap_finish
