#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What sampling costs a counting event of the same box: qpisim traffic that
# arrives at a rate, about 1000 samples/s with perf record -c beside a
# perf stat counting event.  The driver stops only what a sample reads: a
# sampling event's own counter while it is re-armed, never the box, so a
# counting event beside a lone sampling event, or beside a sampling group
# read with :S (perf reads the members as it writes the sample), loses
# exactly nothing.  qpisim accounts the traffic each counter's control
# selects: what arrived, and what it missed while disabled or frozen.
. "$(dirname "$0")/lib.sh"

ktap_plan 5

P=/tmp/qpifrz
mkdir -p $P
F=$DBG/socket0/qpi0/frozen
# 1000000 clockticks and data flits a second; a sample every 1000 clockticks
PER_S=1000000
PERIOD=1000
SECS=${QPI_FREEZE_SECS:-3}

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

r0=$(socket_reader uncore_qpi_0 0)

# kv KEY FILE: the value of KEY=value in a frozen/regs file
kv() { sed -n "s/^$1=//p" "$2"; }
# stream_kv EVENT KEY FILE: KEY of the stream of EVENT in a frozen file
stream_kv()
{
	awk -v e="event=$1" -v k="$2" '$1 == "stream" && $2 == e {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$3"
}

# run_case RECORD-EVENTS: perf stat counts data flits of socket 0's port 0
# while perf record samples RECORD-EVENTS every 1000; the traffic runs for
# SECS seconds.  The workload runs on the reader: the model's statistics
# are reset and read between two looks of the box timer, never inside a
# frozen window.
run_case()
{
	rm -f $P/frozen $P/regs $P/stat $P/rec
	perf stat -a -x, -o $P/stat -e uncore_qpi_0/event=0x1,umask=0x2/ -- \
		perf record -q -a -B -o $P/rec -c $PERIOD -e "$1" -- \
		taskset -c "$r0" sh -c "
		echo 0 > $F
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=$PER_S\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=$PER_S\n' > $DBG/inject
		sleep $SECS
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=0\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=0\n' > $DBG/inject
		cat $DBG/socket0/qpi0/regs > $P/regs
		cat $F > $P/frozen" > $P/out 2>&1 ||
		fail "perf: $(tail -n 3 $P/out)"
	sed 's/^/# frozen: /' $P/frozen
}

# ctr_kv N KEY FILE: KEY of counter N's line in a frozen file
ctr_kv() { awk -v c="ctr$1" -v k="$2" '$1 == c { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$3"; }

# check_case LABEL COUNTERS: the counting event (data flits) against the
# model: every counter whose control selects data flits (perf stat's, and
# a group member's) missed none of them, and perf stat counted exactly
# what arrived; COUNTERS of the box were running.
check_case()
{
	counted=$(cut -d, -f1 < $P/stat | grep -E '^[0-9]+$')
	arrived=$(stream_kv 0x01 arrived $P/frozen)
	n=$(perf script -i $P/rec -F cpu 2> /dev/null | grep -c .)
	[ "$n" -gt 0 ] || fail "$1: no samples"
	[ "${arrived:-0}" -gt 0 ] || fail "$1: no traffic arrived"
	running=0 flits=0
	for i in 0 1 2 3; do
		c=$(kv ctl$i $P/regs)
		[ -n "$c" ] && [ $((c & EN)) -ne 0 ] || continue
		running=$((running + 1))
		[ $((c & 0xffff)) -eq $((0x0201)) ] || continue
		flits=$((flits + 1))
		expect_num "$1: counter $i (data flits) lost" "$(ctr_kv $i lost $P/frozen)" 0
		expect_num "$1: counter $i (data flits) arrived" "$(ctr_kv $i arrived $P/frozen)" "$arrived"
	done
	expect_num "$1: running counters" $running "$2"
	[ $flits -gt 0 ] || fail "$1: no counter counts data flits: $(cat $P/regs)"
	expect_num "$1: data flits counted = arrived" "$counted" "$arrived"
	for i in 0 1 2 3; do
		c=$(kv ctl$i $P/regs)
		[ -n "$c" ] && [ $((c & 0xff)) -eq $((0x14)) ] || continue
		echo "# $1: sampling counter $i lost $(ctr_kv $i lost $P/frozen) of $(ctr_kv $i arrived $P/frozen) clockticks while re-armed"
	done
	echo "# $1: $n samples; the box was frozen $(kv windows $P/frozen) times"
}

t_begin "counting_beside_lone_sampling_loses_nothing"
run_case uncore_qpi_0/clockticks/
check_case "beside sampling" 2
t_end

# perf reads a sampling group's members through pmu->read() as it writes
# each sample, after the re-arm: no member is stopped for it.
t_begin "counting_beside_group_sampling_loses_nothing"
run_case '{uncore_qpi_0/clockticks/,uncore_qpi_0/event=0x1,umask=0x2/}:S'
check_case "group sample" 3
t_end

t_begin "pinned_counting_beside_rotation_loses_nothing"
# A pinned counting event keeps its counter while four lone flexible events
# take turns on the other three, perf rotating them every millisecond.  A
# lone event's del() and add() touch only its own counter, so the box is
# never frozen for a rotation, and the pinned event counts every data flit
# that arrived.  (A driver that froze the box in pmu_disable() lost, at
# each rotation, the flits that arrived while perf rotated.)
mux_interval 1 uncore_qpi_0
rm -f $P/frozen $P/regs
cat > $P/rot.sh <<EOF
echo 0 > $F
echo 'rate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=$PER_S' > $DBG/inject
sleep $SECS
echo 'rate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=0' > $DBG/inject
cat $DBG/socket0/qpi0/regs > $P/regs
cat $F > $P/frozen
EOF
qperf <<EOF
open p uncore_qpi_0 0x0201 socket=0 pinned
open f0 uncore_qpi_0 0x14 socket=0
open f1 uncore_qpi_0 0x0200 socket=0
open f2 uncore_qpi_0 0x0400 socket=0
open f3 uncore_qpi_0 0x0401 socket=0
sh taskset -c $r0 sh $P/rot.sh
read p
read f0
read f1
read f2
read f3
EOF
sed 's/^/# frozen: /' $P/frozen
echo "$QOUT" | grep -E '^(p|f[0-3]) ' | sed 's/^/# /'
arrived=$(stream_kv 0x01 arrived $P/frozen)
[ "${arrived:-0}" -gt 0 ] || fail "no traffic arrived"
# the case is what it claims: every flexible event had turns
for f in f0 f1 f2 f3; do
	[ "$(ran $f)" -gt 0 ] 2> /dev/null || fail "$f never ran: no rotation"
done
pinned=
for i in 0 1 2 3; do
	c=$(kv ctl$i $P/regs)
	[ -n "$c" ] && [ $((c & 0xffff)) -eq $((0x0201)) ] && pinned=$i
done
if [ -z "$pinned" ]; then
	fail "no counter counts data flits: $(cat $P/regs)"
else
	expect_num "pinned counter $pinned lost" "$(ctr_kv $pinned lost $P/frozen)" 0
fi
expect_num "frozen windows" "$(kv windows $P/frozen)" 0
expect_num "pinned count = arrived" "$(val p)" "$arrived"
t_end

t_begin "rotating_groups_start_and_stop_together"
# Two flexible groups of two data-flit events each, beside a pinned one,
# take turns on the three counters left.  A group's members start together
# (the box frozen from the first add() of perf's transaction to its
# commit) and stop together (frozen from the first del() to the last), so
# both members of each group count the same flits.  Those freezes are the
# ones the pinned event pays for: its loss is what arrived inside them.
mux_interval 1 uncore_qpi_0
rm -f $P/frozen $P/regs
qperf <<EOF
open p uncore_qpi_0 0x0201 socket=0 pinned
open a uncore_qpi_0 0x0201 socket=0
open a1 uncore_qpi_0 0x0201 socket=0 group=a
open b uncore_qpi_0 0x0201 socket=0
open b1 uncore_qpi_0 0x0201 socket=0 group=b
sh taskset -c $r0 sh $P/rot.sh
read p
gread a
gread b
read a
read b
EOF
sed 's/^/# frozen: /' $P/frozen
echo "$QOUT" | grep -E '^(p|a|b)[^ ]* ' | sed 's/^/# /'
arrived=$(stream_kv 0x01 arrived $P/frozen)
[ "${arrived:-0}" -gt 0 ] || fail "no traffic arrived"
for g in a b; do
	[ "$(ran $g)" -gt 0 ] 2> /dev/null || fail "group $g never ran: no rotation"
	expect_num "group $g: members equal" "$(val "$g[1]")" "$(val "$g[0]")"
done
expect_num "pinned count = arrived - lost in group freezes" "$(val p)" \
	$((arrived - $(stream_kv 0x01 lost $P/frozen)))
t_end

t_begin "frozen_statistics_interface"
expect_err "write 1 to frozen" "Invalid argument" sh -c "echo 1 > $F"
expect_ok "write 0 to frozen" sh -c "echo 0 > $F"
expect_eq "no streams after a reset" "$(grep -c '^stream' "$F")" 0
expect_eq "no counter traffic after a reset" "$(grep -c '^ctr' "$F")" 0
expect_num "windows after a reset" "$(kv windows "$F")" 0
dmesg_mark
expect_err "rate without per_s" "Invalid argument" \
	sh -c "echo 'rate socket=0 box=qpi0 event=0x14' > $DBG/inject"
expect_dmesg "message" "inject: per_s= is required"
expect_err "rate above the limit" "Invalid argument" \
	sh -c "echo 'rate socket=0 box=qpi0 event=0x14 per_s=4000000001' > $DBG/inject"
expect_dmesg "message" "inject: per_s=4000000001: must be a number 0..4000000000"
t_end

qpiu_unload
qpisim_unload
ktap_finish
