#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore scheduling: counter restrictions (an event never lands on a
# counter it may not use), moving events to make room without losing counts,
# group validation, and multiplexing when events do not fit.
. "$(dirname "$0")/lib.sh"

ktap_plan 6

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load
R3=$DBG/socket0/r3qpi0

ctl_of() # REGS-FILE N: event code in CTL N
{
	v=$(sed -n "s/^ctl$2=//p" "$1")
	printf '0x%02x' $((v & 0xff))
}

t_begin "group_counter_restrictions"
qperf <<EOT
open a uncore_r3qpi_0 0x13 socket=0
open b uncore_r3qpi_0 0x13 socket=0 group=a
open c uncore_r3qpi_0 0x10 socket=0
open d uncore_r3qpi_0 0x11 socket=0 group=c
open e uncore_r3qpi_0 0x12 socket=0 group=c
open f uncore_r3qpi_0 0x01 socket=0
open g uncore_r3qpi_0 0x13 socket=0 group=f
open h uncore_r3qpi_0 0x10 socket=0 group=f
EOT
expect_eq "0x13 twice (counter 0 only)" "$(err b)" $EINVAL
expect_eq "three events of counters 0-1" "$(err e)" $EINVAL
expect_eq "0x01 + 0x13 + 0x10 fits" "$(opened h)" yes
t_end

t_begin "event_moved_to_make_room_keeps_count"
echo clear > "$DBG/log"
qperf <<EOT
open x uncore_r3qpi_0 0x01 socket=0
inject event socket=0 box=r3qpi0 event=0x01 count=500
open y uncore_r3qpi_0 0x13 socket=0
inject event socket=0 box=r3qpi0 event=0x01 count=300
inject event socket=0 box=r3qpi0 event=0x13 count=42
sh cat $R3/regs > /tmp/regs.y
read x
read y
EOT
# clockticks count the cycles of every injection, the 42 of 0x13 too
expect_num "x counted before and after the move" "$(val x)" 842
expect_num "y" "$(val y)" 42
expect_eq "counter 0 holds 0x13" "$(ctl_of /tmp/regs.y 0)" 0x13
expect_eq "x moved to counter 1" "$(ctl_of /tmp/regs.y 1)" 0x01
t_end

t_begin "restricted_events_only_on_allowed_counters"
echo clear > "$DBG/log"
qperf <<EOT
open a uncore_r3qpi_0 0x10 socket=0
open b uncore_r3qpi_0 0x01 socket=0
open c uncore_r3qpi_0 0x11 socket=0
sh cat $R3/regs > /tmp/regs.c
open d uncore_r3qpi_0 0x12 socket=0
open e uncore_r3qpi_0 0x13 socket=0
sh sleep 0.3
EOT
expect_eq "0x10 on counter 0" "$(ctl_of /tmp/regs.c 0)" 0x10
expect_eq "0x11 on counter 1" "$(ctl_of /tmp/regs.c 1)" 0x11
expect_eq "0x01 moved to counter 2" "$(ctl_of /tmp/regs.c 2)" 0x01
# Every enabling write of the whole run, including rotations, against the
# restrictions: 0x13 on counter 0, 0x10-0x12 on counters 0-1.
bad=$(awk '/13\.5 where=0x0(d8|dc|e0)/ {
	split($0, w, "where="); split($0, v, "val=");
	off = substr(w[2], 1, 5); val = substr(v[2], 1, 10);
	ev = substr(val, 9, 2); en = substr(val, 5, 1) ~ /[4-7cdef]/;
	ctr = (off == "0x0d8") ? 0 : (off == "0x0dc") ? 1 : 2;
	if (en && ev == "13" && ctr != 0) print;
	if (en && (ev == "10" || ev == "11" || ev == "12") && ctr > 1) print;
	n++ } END { print n " writes" > "/tmp/nwrites" }' "$DBG/log")
[ -z "$bad" ] || fail "restricted event on a forbidden counter: $bad"
[ "$(cut -d' ' -f1 /tmp/nwrites)" -gt 10 ] || fail "too few writes to judge: $(cat /tmp/nwrites)"
t_end

t_begin "group_size_limit"
qperf <<EOT
open a uncore_qpi_1 0x14 socket=1
open b uncore_qpi_1 0x14 socket=1 group=a
open c uncore_qpi_1 0x14 socket=1 group=a
open d uncore_qpi_1 0x14 socket=1 group=a
open e uncore_qpi_1 0x14 socket=1 group=a
EOT
expect_eq "four fit" "$(opened d)" yes
expect_eq "fifth refused" "$(err e)" $EINVAL
t_end

# Six events on four counters: perf rotates them.  qpiperf injects from
# the socket's reader CPU, where perf rotates with interrupts off, so each
# injection lands on the four events scheduled between two rotations:
# every count is a whole number of injections and the total is a multiple
# of four injections.  (A lone event's rotation no longer freezes the box,
# so an injection from another CPU could land while one counter is
# between two events.)  Every event gets turns, as perf's
# times show; which events hold the counters when an injection comes is
# the rotation timer's doing (late on a busy host), so an event may count
# none of them.
t_begin "multiplexing_six_events_on_four_counters"
script="open e0 uncore_qpi_0 0x14 socket=1"
for i in 1 2 3 4 5; do
	script="$script
open e$i uncore_qpi_0 0x14 socket=1"
done
for i in $(seq 1 40); do
	script="$script
inject event socket=1 box=qpi0 event=0x14 count=1000
sh sleep 0.02"
done
for i in 0 1 2 3 4 5; do
	script="$script
read e$i"
done
QOUT=$(echo "$script" | taskset -c "$(socket_reader uncore_qpi_0 1)" "$HERE/qpiperf")
echo "$QOUT" | grep -E '^\?|inject error|sh error' | sed 's/^/# qpiperf: /'
sum=0
for i in 0 1 2 3 4 5; do
	v=$(val "e$i")
	expect_num "e$i whole injections" $((v % 1000)) 0
	sum=$((sum + v))
	line=$(echo "$QOUT" | grep "^e$i value=")
	en=$(echo "$line" | sed 's/.*enabled=\([0-9]*\).*/\1/')
	run=$(echo "$line" | sed 's/.*running=\([0-9]*\).*/\1/')
	[ "$run" -gt 0 ] || fail "e$i never scheduled (0 of $en ns)"
	[ "$run" -lt "$en" ] || fail "e$i ran all the time ($run of $en ns)"
done
[ "$sum" -gt 0 ] || fail "no injection counted"
expect_num "total is four counters' worth" $((sum % 4000)) 0
[ "$sum" -le $((4 * 40 * 1000)) ] || fail "total $sum exceeds 4 x 40 injections"
echo "# total $sum of at most 160000"
t_end

t_begin "group_counts_one_instant"
qperf <<EOT
open l uncore_qpi_0 0x14 socket=0
open m uncore_qpi_0 0x14 socket=0 group=l
open n uncore_qpi_0 0x200014 socket=0 group=l
inject event socket=0 box=qpi0 event=0x14 count=123
gread l
EOT
expect_num "leader" "$(val 'l[0]')" 123
expect_num "member" "$(val 'l[1]')" 123
expect_num "0x14 with ev_sel_ext is another event" "$(val 'l[2]')" 0
t_end

qpiu_unload
qpisim_unload
ktap_finish
