# SPDX-License-Identifier: GPL-2.0
# make bench, inside the guest (busybox sh): the same measurements with
# qpi_uncore and then with the stock intel_uncore, on one qpisim topology.
D=/sys/kernel/debug/qpisim
F=$D/socket0/qpi0
EVS="-e uncore_qpi_0/event=0x14/ -e uncore_qpi_0/event=0x1,umask=0x2/
     -e uncore_qpi_1/event=0x14/ -e uncore_qpi_1/event=0x0,umask=0x2/
     -e uncore_r3qpi_0/event=0x1/ -e uncore_r3qpi_1/event=0x1/
     -e uncore_r3qpi_0/event=0x7/"

reset_all() { for f in "$D"/socket*/*/reads "$D"/socket*/*/writes; do echo 0 > "$f"; done; }
total() { cat "$D"/socket*/*/reads "$D"/socket*/*/writes | awk '{ s += $1 } END { print s }'; }

# busy: jiffies all CPUs spent outside idle (and iowait) so far
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }

# Sampling (qpi_uncore only; intel_uncore cannot): 100 injections a second
# of 10000 clockticks, sampled every 1000 (1000 samples/s), against the same
# traffic counted.  Config accesses per sample, and CPU time of the whole
# machine over the 500 injections (injection loop and perf included: the same in both).
cat > /tmp/traffic.sh <<EOT
i=0
while [ \$i -lt 500 ]; do
	echo 'event socket=0 box=qpi0 event=0x14 count=10000' > $D/inject
	usleep 10000
	i=\$((i + 1))
done
EOT
sampling()
{
	reset_all; b0=$(busy)
	perf stat -a -e uncore_qpi_0/clockticks/ -x, -o /tmp/bst -- sh /tmp/traffic.sh > /dev/null 2>&1
	b1=$(busy); counted=$(total)
	reset_all
	perf record -q -a -c 1000 -e uncore_qpi_0/clockticks/ -o /tmp/brec -- sh /tmp/traffic.sh > /dev/null 2>&1
	b2=$(busy); sampled=$(total)
	n=$(perf script -i /tmp/brec -F cpu 2> /dev/null | grep -c .)
	echo "BENCH samples=$n"
	echo "BENCH accesses_per_sample=$(awk -v a="$sampled" -v c="$counted" -v n="$n" 'BEGIN { printf "%.2f", n ? (a - c) / n : 0 }')"
	echo "BENCH busy_ms_counting=$(( (b1 - b0) * 10 ))"
	echo "BENCH busy_ms_sampling=$(( (b2 - b1) * 10 ))"
	# the same with the read-back of counter controls off: what reading
	# a sampling counter's control before each re-arm costs a sample
	p=/sys/module/qpi_uncore/parameters/foreign_check_ms
	def=$(cat $p)
	echo 0 > $p
	reset_all
	perf record -q -a -c 1000 -e uncore_qpi_0/clockticks/ -o /tmp/brec -- sh /tmp/traffic.sh > /dev/null 2>&1
	off=$(total)
	echo "$def" > $p
	n=$(perf script -i /tmp/brec -F cpu 2> /dev/null | grep -c .)
	echo "BENCH accesses_per_sample_readback_off=$(awk -v a="$off" -v c="$counted" -v n="$n" 'BEGIN { printf "%.2f", n ? (a - c) / n : 0 }')"
}

# Samples lost to perf's throttle (qpi_uncore only), with perf's limit
# lowered: kernel.perf_event_max_sample_rate at twice the rate sampled and
# kept there (perf_cpu_time_max_percent 0, so perf lowers it no further,
# the way the selftests pin it).  The traffic above, 500 injections 10 ms
# apart, sampled every 1000 by qpiperf on socket 0's reader: 10000
# clockticks each (about 1000 samples/s, rate 2000: 8 samples an event a
# tick at HZ 250, so each burst of 10 periods is spread over two ticks)
# and 100000 (about 10000 samples/s, rate 20000: 80 a tick, bursts of
# 100).  Reported: the periods counted with no sample (lost to throttles;
# the goal is 0), perf's THROTTLE and LOST records, what the sampling
# counter did not count (a qpisim burst arrives at one instant, and one
# that lands while a look has the counter stopped for its re-arm is
# missed whole), and the samples a second of the run.
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
throttle_loss()
{
	pct=/proc/sys/kernel/perf_cpu_time_max_percent
	rate=/proc/sys/kernel/perf_event_max_sample_rate
	old_pct=$(cat $pct); old_rate=$(cat $rate)
	echo 25 > $pct; echo "$3" > $rate; echo 0 > $pct
	sed "s/count=10000/count=$2/" /tmp/traffic.sh > /tmp/traffic_t.sh
	t0=$(uptime_ms)
	/selftests/qpiperf <<EOT > /tmp/bthr
open s uncore_qpi_0 0x14 socket=0 period=1000 single
mmap s 1024
sh sh /tmp/traffic_t.sh
sh sleep 0.5
disable s
samples s
read s
EOT
	t1=$(uptime_ms)
	echo "BENCH throttle_limit_$1=$(cat $rate)"
	echo 25 > $pct; echo "$old_rate" > $rate; echo "$old_pct" > $pct
	sf() { sed -n "s/^s samples=.* $1=\([0-9]*\).*/\1/p" /tmp/bthr | tail -n 1; }
	n=$(sed -n 's/^s samples=\([0-9]*\).*/\1/p' /tmp/bthr | tail -n 1)
	count=$(sed -n 's/^s value=\([0-9]*\).*/\1/p' /tmp/bthr | tail -n 1)
	echo "BENCH throttle_missing_$1=$(( ${count:-0} / 1000 - ${n:-0} ))"
	echo "BENCH throttle_records_$1=$(sf throttle)"
	echo "BENCH throttle_lost_records_$1=$(sf lost)"
	echo "BENCH throttle_uncounted_$1=$(( 500 * $2 - ${count:-0} ))"
	echo "BENCH throttle_samples_per_s_$1=$(( ${n:-0} * 1000 / (t1 > t0 ? t1 - t0 : 1) ))"
}
throttle_cost()
{
	throttle_loss 1000 10000 2000
	throttle_loss 10000 100000 20000
}

# What sampling costs a counting event of the same box: traffic arriving at
# 10^6 clockticks and data flits a second for 5 s, clockticks sampled every
# 1000 beside the flits counted; first a lone sampling event, then a
# sampling group read with :S ({clockticks, flits}).  qpisim reports, per
# counter, the traffic its control selects that arrived and what it missed
# while disabled or frozen; and how often and how long the box was frozen.
kv() { sed -n "s/^$1=//p" /tmp/bfrz; }
# ctr_of EVENT-BYTE: counters (0-3) of /tmp/bfregs enabled for that event
ctr_of() {
	for i in 0 1 2 3; do
		c=$(sed -n "s/^ctl$i=//p" /tmp/bfregs)
		[ -n "$c" ] && [ $((c & 0x400000)) -ne 0 ] && [ $((c & 0xff)) -eq $(($1)) ] && echo $i
	done
}
# lost_ppm EVENT-BYTE: the most any counter of that event lost, per million
lost_ppm() {
	for i in $(ctr_of "$1"); do
		awk -v c="ctr$i" '$1 == c { sub("arrived=", "", $2); sub("lost=", "", $3); printf "%.0f\n", $2 ? 1e6 * $3 / $2 : 0 }' /tmp/bfrz
	done | sort -n | tail -n 1
}
freeze_run()
{
	fz=$D/socket0/qpi0/frozen
	r=$(cat /sys/bus/event_source/devices/uncore_qpi_0/cpumask | cut -d, -f1 | cut -d- -f1)
	perf stat -a -x, -o /tmp/bfst -e uncore_qpi_0/event=0x1,umask=0x2/ -- \
		perf record -q -a -c 1000 -e "$1" -o /tmp/bfrec -- \
		taskset -c "$r" sh -c "echo 0 > $fz
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=1000000\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=1000000\n' > $D/inject
		sleep 5
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=0\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=0\n' > $D/inject
		cat $D/socket0/qpi0/regs > /tmp/bfregs
		cat $fz > /tmp/bfrz" > /dev/null 2>&1
}
freeze_cost()
{
	freeze_run uncore_qpi_0/clockticks/
	w=$(kv windows); w=${w:-0}
	n=$(perf script -i /tmp/bfrec -F cpu 2> /dev/null | grep -c .)
	lost=$(for i in $(ctr_of 0x01); do awk -v c="ctr$i" '$1 == c { sub("lost=", "", $3); print $3 }' /tmp/bfrz; done | sort -n | tail -n 1)
	echo "BENCH frozen_windows=$w"
	echo "BENCH frozen_ns_per_window=$(( $(kv frozen_ns) / (w ? w : 1) ))"
	echo "BENCH frozen_accesses_per_window=$(kv max_window_accesses)"
	echo "BENCH counting_lost_per_sample=$(( ${lost:-0} / (n ? n : 1) ))"
	echo "BENCH counting_lost_ppm=$(lost_ppm 0x01)"
	echo "BENCH sampling_lost_ppm=$(lost_ppm 0x14)"
	freeze_run '{uncore_qpi_0/clockticks/,uncore_qpi_0/event=0x1,umask=0x2/}:S'
	echo "BENCH counting_lost_ppm_group=$(lost_ppm 0x01)"
}

# How looks follow the traffic (qpi_uncore only; issue 19 "Cost"): config
# accesses a second of an open sampling event with no traffic, beyond the
# same event counting, per socket (perf record -a opens it on both); and
# box timer callbacks (a kprobe's hit count, every box) per sample at a
# steady 1000 samples a second (10^6 clockticks a second, sampled every
# 1000: 5000 samples in the 5 s counted).
KP=/sys/kernel/debug/tracing
pace_cost()
{
	reset_all; perf stat -a -e uncore_qpi_0/clockticks/ sleep 10 > /dev/null 2>&1; counted=$(total)
	reset_all; perf record -q -a -c 1000 -e uncore_qpi_0/clockticks/ -o /tmp/bidle -- sleep 10 > /dev/null 2>&1
	sampled=$(total)
	echo "BENCH sampling_idle_accesses_per_s=$(awk -v a="$sampled" -v c="$counted" 'BEGIN { printf "%.1f", (a - c) / 10 / 2 }')"
	echo "p:qpiu/look qpiu_box_timer" > $KP/kprobe_events 2> /dev/null || return 0
	echo 1 > $KP/events/qpiu/look/enable
	perf record -q -a -c 1000 -e uncore_qpi_0/clockticks/ -o /tmp/bsteady -- \
		sh -c "printf 'rate socket=0 box=qpi0 event=0x14 per_s=1000000\n' > $D/inject
		sleep 1
		awk '\$1 == \"look\" { print \$2 }' $KP/kprobe_profile > /tmp/blook0
		sleep 5
		awk '\$1 == \"look\" { print \$2 }' $KP/kprobe_profile > /tmp/blook1
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=0\n' > $D/inject" > /dev/null 2>&1
	echo 0 > $KP/events/qpiu/look/enable
	echo > $KP/kprobe_events
	looks=$(( $(cat /tmp/blook1) - $(cat /tmp/blook0) ))
	echo "BENCH steady_looks_5s=$looks"
	echo "BENCH steady_looks_per_sample=$(awk -v l="$looks" 'BEGIN { printf "%.2f", l / 5000 }')"
}

# Foreign writers (qpi_uncore only): the config accesses the read-back of
# the counter controls adds at its default interval, from a 10 s idle run of
# the 14 counters of $EVS (7 a socket, on 8 boxes) with it off and with the
# default; per running counter a second, that is per box its number of
# running counters.
foreign_cost()
{
	p=/sys/module/qpi_uncore/parameters/foreign_check_ms
	def=$(cat $p)
	echo 0 > $p
	# shellcheck disable=SC2086 # a word list
	reset_all; perf stat -a $EVS sleep 10 > /dev/null 2>&1; off=$(total)
	echo "$def" > $p
	# shellcheck disable=SC2086
	reset_all; perf stat -a $EVS sleep 10 > /dev/null 2>&1; on=$(total)
	echo "BENCH foreign_check_ms=$def"
	echo "BENCH foreign_accesses_10s=$((on - off))"
	echo "BENCH foreign_accesses_per_counter_s=$(awk -v d=$((on - off)) 'BEGIN { printf "%.2f", d / 14 / 10 }')"
}

# Foreign writers (qpi_uncore only): what one mark costs, on one counting
# event of socket 1's port 1 at the default foreign_check_ms.  The event
# opens, a foreign writer is on from 0.5 s to 1.5 s (the read-back at 1 s
# finds it), then 1 s more; the same run without the writer is the base.
# Reported: the time perf kept the event off its counter (enabled -
# running, perf's own times), the episodes, and the config accesses of the
# mark: the read-back's rewrite, the refusal's stop and fold, the
# rotation's start.
mark_run()
{
	F1=$D/socket1/qpi1
	echo 0 > $F1/reads; echo 0 > $F1/writes
	/selftests/qpiperf <<EOT > /tmp/bmark
open a uncore_qpi_1 0x14 socket=1 single
sh sleep 0.5
sh [ $1 = 0 ] || echo 0x400200 > $F1/foreign_ctl
sh sleep 1
sh echo 0 > $F1/foreign_ctl
sh sleep 1
read a
EOT
	echo $(($(cat $F1/reads) + $(cat $F1/writes)))
}
mark_cost()
{
	fw=/sys/bus/event_source/devices/uncore_qpi_1/foreign_writes
	base=$(mark_run 0)
	before=$(cat $fw)
	with=$(mark_run 1)
	echo "BENCH foreign_marks=$(($(cat $fw) - before))"
	echo "BENCH foreign_mark_accesses=$((with - base))"
	sed -n 's/^a value=[0-9]* enabled=\([0-9]*\) running=\([0-9]*\)$/\1 \2/p' /tmp/bmark |
		awk '{ printf "BENCH foreign_mark_out_us=%.0f\n", ($1 - $2) / 1000 }'
	echo "BENCH mux_interval_ms=$(cat /sys/bus/event_source/devices/uncore_qpi_1/perf_event_mux_interval_ms)"
}

insmod /lib/modules/qpi/qpisim.ko platform="$QPI_PLATFORM"
for driver in qpi_uncore intel_uncore; do
	if [ $driver = qpi_uncore ]; then
		insmod /lib/modules/qpi/qpi_uncore.ko
	else
		for m in $(cat /lib/modules/stock/load-order); do insmod "/lib/modules/stock/$m"; done
	fi
	echo "BENCH driver=$driver"
	qpibench reads "$F" 10000 | sed 's/^/BENCH /'
	qpibench toggle "$F" 2000 | sed 's/^/BENCH /'
	# shellcheck disable=SC2086 # a word list
	{
		reset_all; perf stat -a $EVS sleep 2 > /dev/null 2>&1; base=$(total)
		reset_all; perf stat -a -I 100 $EVS sleep 2 > /tmp/ivals 2>&1; ival=$(total)
		n=$(grep -c 'uncore_qpi_0/event=0x14/' /tmp/ivals)
		echo "BENCH intervals=$n"
		echo "BENCH accesses_per_interval=$(( (ival - base) / n ))"
		reset_all; perf stat -a $EVS sleep 10 > /dev/null 2>&1
		echo "BENCH accesses_idle_10s=$(total)"
		echo "BENCH accesses_open_close=$base"
	}
	qpibench latency 100000 | sed 's/^/BENCH /'
	# shellcheck disable=SC2086
	qpibench stime perf stat -a -I 10 $EVS sleep 10 2>/dev/null | grep time_ms | sed 's/^/BENCH /'
	[ $driver = qpi_uncore ] && sampling && throttle_cost && freeze_cost &&
		pace_cost && foreign_cost && mark_cost
	if [ $driver = qpi_uncore ]; then rmmod qpi_uncore; else rmmod intel_uncore; fi
done
