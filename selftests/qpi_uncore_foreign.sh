#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Foreign writers caught by the driver itself: with qpisim's foreign_ctl
# playing PCM, the box timer's read-back of the counter controls counts
# one episode in the PMU's foreign_writes and in the box's foreign_writes
# events, logs one line, writes the control again so counting resumes, and
# marks the event and has perf schedule it again, so that perf shows it
# running less than it was enabled, with nothing else scheduling it.
# Without the knob nothing is counted and the log stays clean;
# foreign_check_ms=0 turns it off.
. "$(dirname "$0")/lib.sh"

ktap_plan 14

MSG="another tool reprograms these registers"
FW=foreign_writes
PARAM=/sys/module/qpi_uncore/parameters/foreign_check_ms
BUSY=/sys/module/qpi_uncore/parameters/test_resched_busy
# the foreign_writes event (driver_event=1)
FWEV=0x0100000000000000

qpiu_unload
expect_ok "load qpisim" qsim snbep
# read-backs every 10 ms: many of them in any wait below
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10

fw() { cat "$PMUS/$1/$FW"; }

if [ ! -f "$BUSY" ]; then
	for t in no_foreign_writer_nothing_counted \
		foreign_writer_counted_once_logged_once_rewritten_marked \
		pinned_events_are_not_refused \
		control_reading_zero_may_be_ignored_writes \
		each_episode_counted_once foreign_check_ms_0_is_off \
		foreign_check_ms_rejects_out_of_range \
		foreign_writes_event_rules perf_stat_shows_the_mark \
		pinned_group_member_not_refused \
		foreign_writes_kept_across_unthrottle \
		each_poke_of_a_sampling_counter_seen \
		read_back_on_another_cpu_leaves_a_delivery_alone \
		drop_on_another_cpu_leaves_a_delivery_alone; do
		t_skip "$t" "qpi_uncore built without QPIU_TEST_HOOKS (test_resched_busy)"
	done
	ktap_finish
fi

all_fw()
{
	for p in uncore_qpi_0 uncore_qpi_1 uncore_r3qpi_0 uncore_r3qpi_1; do
		printf '%s=%s ' "$p" "$(fw "$p")"
	done
}

# a "sh" line for qpiperf: wait until the function at BDF $1 counts with
# control $2 again, after perf was made to schedule its marked events again
# and its rotation put them back, so that traffic reaches every event.  A
# read-back that rewrites the control asks for that schedule under the box
# lock, so the control, then nothing asked, then the control again.
settled_cond() { echo "[ \$($QPICFG $1 rd $CTL0) = $2 ] && [ \$(cat $BUSY) = 0 ] && [ \$($QPICFG $1 rd $CTL0) = $2 ]"; }
settled() { wait_for "$(settled_cond "$1" "$2")"; }

# enabled and running of NAME's last read, or of its Nth read
times_of()
{
	echo "$QOUT" | grep "^$1 value=" | sed -n "${2:-\$}p" |
		sed 's/.*enabled=\([0-9]*\) running=\([0-9]*\).*/\1 \2/'
}

Q1=$(qpi_bdf 1 1)

t_begin "no_foreign_writer_nothing_counted"
dmesg_mark
qperf <<EOT
open a uncore_qpi_1 0x14 socket=1
open f uncore_qpi_1 $FWEV socket=1
inject event socket=1 box=qpi1 event=0x14 count=100
$(wait_for "[ \$(cat $DBG/socket1/qpi1/reads) -ge 5 ]")
sh sleep 0.2
open b uncore_qpi_1 0x14 socket=1
read a
read f
EOT
expect_num "count" "$(val a)" 100
expect_num "foreign_writes event" "$(val f)" 0
expect_eq "nothing counted" "$(all_fw)" \
	"uncore_qpi_0=0 uncore_qpi_1=0 uncore_r3qpi_0=0 uncore_r3qpi_1=0 "
expect_num "log clean" "$(dmesg_since_mark | grep -c "$MSG")" 0
set -- $(times_of a)
expect_num "a ran all the time it was enabled" "$2" "$1"
t_end

# a is the only event on its PMU and socket, and nothing opens, enables
# or multiplexes after it: perf sees the mark only because the driver has
# it schedule a again.  Its foreign_writes events (f single, g leading a
# group with a hardware event) count the episode on socket 1 only.
t_begin "foreign_writer_counted_once_logged_once_rewritten_marked"
dmesg_mark
qperf <<EOT
open a uncore_qpi_1 0x14 socket=1 single
open f uncore_qpi_1 $FWEV socket=1 single
open g uncore_qpi_1 $FWEV socket=0
open g1 uncore_qpi_1 0x14 socket=0 group=g
open h uncore_qpi_0 $FWEV socket=1 single
inject event socket=1 box=qpi1 event=0x14 count=100
read a
sh echo 0x400200 > $DBG/socket1/qpi1/foreign_ctl
$(wait_for "[ \$(cat $PMUS/uncore_qpi_1/$FW) -ge 1 ]")
inject event socket=1 box=qpi1 event=0x14 count=7
sh sleep 0.2
sh echo 0 > $DBG/socket1/qpi1/foreign_ctl
$(settled $Q1 0x00400014)
inject event socket=1 box=qpi1 event=0x14 count=50
read a
read f
read g
read h
EOT
set -- $(times_of a 1)
expect_num "before the foreign writer: ran all the time" "$2" "$1"
expect_num "count: the foreign part lost, counting resumed" "$(val a)" 150
expect_eq "one episode, on this PMU only" "$(all_fw)" \
	"uncore_qpi_0=0 uncore_qpi_1=1 uncore_r3qpi_0=0 uncore_r3qpi_1=0 "
expect_num "foreign_writes event of that box" "$(val f)" 1
expect_num "foreign_writes event of the other socket" "$(val g)" 0
expect_num "foreign_writes event of the other port" "$(val h)" 0
expect_dmesg "logged" "uncore_qpi_1: socket 1: counter 0 control is 0x00400200, expected 0x00400014 (1 counter): another tool reprograms these registers (PCM, likwid in direct access mode, or a BIOS SMI); counts of this box are unreliable, counters reprogrammed"
expect_num "logged once" "$(dmesg_since_mark | grep -c "$MSG")" 1
set -- $(times_of a)
[ "$2" -lt "$1" ] ||
	fail "a ran all the time it was enabled ($2 of $1 ns): not marked"
t_end

t_begin "pinned_events_are_not_refused"
dmesg_mark
qperf <<EOT
open a uncore_qpi_0 0x14 socket=0 pinned
sh echo 0x400200 > $DBG/socket0/qpi0/foreign_ctl
$(wait_for "[ \$(cat $PMUS/uncore_qpi_0/$FW) -ge 1 ]")
sh echo 0 > $DBG/socket0/qpi0/foreign_ctl
$(wait_for "[ \$($QPICFG $(qpi_bdf 0 0) rd $CTL0) = 0x00400014 ]")
inject event socket=0 box=qpi0 event=0x14 count=9
open b uncore_qpi_0 0x14 socket=0 pinned
read a
read b
EOT
expect_num "a counts" "$(val a)" 9
expect_num "b counts" "$(val b)" 0
expect_eq "counted" "$(fw uncore_qpi_0)" 1
set -- $(times_of a)
expect_num "a ran all the time it was enabled" "$2" "$1"
t_end

# Registers that drop every write read 0: the message says it may be that.
# A fresh load resets every control to 0, and every PMU's foreign_writes.
t_begin "control_reading_zero_may_be_ignored_writes"
qpiu_unload
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10
dmesg_mark
echo 1 > $DBG/socket0/qpi1/ignore_writes
qperf <<EOT
open a uncore_qpi_1 0x14 socket=0
$(wait_for "[ \$(cat $PMUS/uncore_qpi_1/$FW) -ge 1 ]")
EOT
echo 0 > $DBG/socket0/qpi1/ignore_writes
expect_eq "counted" "$(fw uncore_qpi_1)" 1
expect_dmesg "logged" "uncore_qpi_1: socket 0: counter 0 control is 0x00000000, expected 0x00400014 (1 counter): $MSG (PCM, likwid in direct access mode, or a BIOS SMI), or they ignore writes (a firmware lock, a hypervisor); counts of this box are unreliable"
expect_num "logged once" "$(dmesg_since_mark | grep -c "$MSG")" 1
t_end

# An episode ends at the first read-back that finds every control as
# written; the next foreign write is another.  The model's regs file and
# access counts are read without a config access of the function, so that
# after the rewrite only read-backs (one read each) move its reads.
R31=$DBG/socket1/r3qpi1
t_begin "each_episode_counted_once"
dmesg_mark
qperf <<EOT
open a uncore_r3qpi_1 0x01 socket=1
sh echo 0x400002 > $R31/foreign_ctl
$(wait_for "[ \$(cat $PMUS/uncore_r3qpi_1/$FW) -ge 1 ]")
sh sleep 0.1
sh echo 0 > $R31/foreign_ctl
$(wait_for "grep -q '^ctl0=0x00400001' $R31/regs && [ \$(cat $BUSY) = 0 ] && grep -q '^ctl0=0x00400001' $R31/regs")
sh cat $R31/reads > /tmp/foreign.reads
$(wait_for "[ \$(cat $R31/reads) -ge \$((\$(cat /tmp/foreign.reads) + 2)) ]")
sh echo 0x400002 > $R31/foreign_ctl
$(wait_for "[ \$(cat $PMUS/uncore_r3qpi_1/$FW) -ge 2 ]")
sh sleep 0.1
sh echo 0 > $R31/foreign_ctl
$(wait_for "grep -q '^ctl0=0x00400001' $R31/regs && [ \$(cat $BUSY) = 0 ] && grep -q '^ctl0=0x00400001' $R31/regs")
inject event socket=1 box=r3qpi1 event=0x01 count=6
read a
EOT
expect_eq "two episodes" "$(fw uncore_r3qpi_1)" 2
expect_num "two log lines" "$(dmesg_since_mark | grep -c "uncore_r3qpi_1: socket 1: counter 0 control is 0x00400002, expected 0x00400001 (1 counter): $MSG")" 2
expect_num "counts resumed" "$(val a)" 6
t_end

t_begin "foreign_check_ms_0_is_off"
echo 0 > $PARAM
dmesg_mark
qperf <<EOT
open a uncore_r3qpi_0 0x01 socket=0
sh echo 0x400002 > $DBG/socket0/r3qpi0/foreign_ctl
sh sleep 0.3
sh echo 0 > $DBG/socket0/r3qpi0/foreign_ctl
EOT
expect_eq "nothing counted" "$(fw uncore_r3qpi_0)" 0
expect_num "log clean" "$(dmesg_since_mark | grep -c "$MSG")" 0
echo 10 > $PARAM
t_end

t_begin "foreign_check_ms_rejects_out_of_range"
dmesg_mark
expect_err "5 ms" "Invalid argument" sh -c "echo 5 > $PARAM"
expect_dmesg "says the rule" "foreign_check_ms=5: must be 0 (off) or 10..3600000"
expect_eq "unchanged" "$(cat $PARAM)" 10
t_end

# The foreign_writes event takes no counter (a full box of four and it
# make a valid group), is never sampled, and has no other field.
t_begin "foreign_writes_event_rules"
dmesg_mark
qperf <<EOT
open l uncore_qpi_0 $FWEV socket=0
open m1 uncore_qpi_0 0x14 socket=0 group=l
open m2 uncore_qpi_0 0x14 socket=0 group=l
open m3 uncore_qpi_0 0x14 socket=0 group=l
open m4 uncore_qpi_0 0x14 socket=0 group=l
inject event socket=0 box=qpi0 event=0x14 count=11
gread l
open s uncore_qpi_0 $FWEV socket=0 period=1000
open x uncore_qpi_0 0x0200000000000000 socket=0
open y uncore_qpi_0 0x0100000000000014 socket=0
EOT
expect_eq "group of the event and four counters" \
	"$(echo "$QOUT" | grep '^l\[' | sed 's/ enabled=.*//' | paste -sd' ' -)" \
	"l[0] value=0 l[1] value=11 l[2] value=11 l[3] value=11 l[4] value=11"
expect_eq "sampling it" "$(err s)" $EINVAL
expect_dmesg "says why" "uncore_qpi_0: foreign_writes: counts in the driver, with no counter to overflow; count it (perf stat), do not sample it"
expect_eq "driver_event=2" "$(err x)" $EINVAL
expect_dmesg "names the field" "uncore_qpi_0: driver_event=2: no such driver event (1: foreign_writes)"
expect_eq "with an event code" "$(err y)" $EINVAL
expect_dmesg "names the rule" "driver_event=1 (foreign_writes): counts in the driver, not in a counter; event, umask, edge, inv, thresh, config1 and config2 must be 0"
expect_eq "perf finds it" "$(cat $PMUS/uncore_r3qpi_1/events/foreign_writes)" \
	"driver_event=1"
expect_eq "its field" "$(cat $PMUS/uncore_r3qpi_1/format/driver_event)" \
	"config:56-63"
t_end

# What a perf user sees, with nothing but one perf stat: the event that a
# foreign writer spoiled ran less than 100% of the time, and the
# foreign_writes event beside it says how many episodes (one, on socket 1
# of the two that perf -a sums).
t_begin "perf_stat_shows_the_mark"
cat > /tmp/foreign.sh <<EOT
base=\$(cat $PMUS/uncore_qpi_1/$FW)
echo 'event socket=1 box=qpi1 event=0x14 count=100' > $DBG/inject
echo 0x400200 > $DBG/socket1/qpi1/foreign_ctl
until [ \$(cat $PMUS/uncore_qpi_1/$FW) -gt \$base ]; do sleep 0.05; done
echo 0 > $DBG/socket1/qpi1/foreign_ctl
until $(settled_cond $Q1 0x00400014); do sleep 0.05; done
echo 'event socket=1 box=qpi1 event=0x14 count=50' > $DBG/inject
EOT
# a guard against a hang, not a pace: on the KASAN kernel perf and the
# read-backs it waits for take over a minute (killed there at 60 s)
out=$(timeout 600 perf stat -a -x, -e uncore_qpi_1/event=0x14/ \
	-e uncore_qpi_1/foreign_writes/ -- sh /tmp/foreign.sh 2>&1)
echo "$out" | sed 's/^/# perf: /'
line=$(echo "$out" | grep ',uncore_qpi_1/event=0x14/,')
pct=$(echo "$line" | cut -d, -f5)
[ -n "$pct" ] && awk -v p="$pct" 'BEGIN { exit !(p < 100) }' ||
	fail "the event ran ${pct:-?}% of the time, want less than 100: not marked"
# perf scaled the 150 counted up by enabled/running over both sockets
[ "$(echo "$line" | cut -d, -f1)" -ge 150 ] ||
	fail "count: got '$(echo "$line" | cut -d, -f1)', want 150 scaled up"
expect_eq "foreign_writes" \
	"$(echo "$out" | grep ',uncore_qpi_1/foreign_writes/,' | cut -d, -f1)" 1
t_end

# perf takes pinning from the group leader (get_event_type()): a member
# that is not pinned itself, of a pinned leader, is pinned.  Were it
# refused, perf would roll the group back and put the whole group in
# error state for good.  One foreign write to the member's control only:
# the episode is counted and logged, and the group counts every event
# injected after it, before and after a disable and enable (where perf
# adds the marked member again), never refused.
Q0=$(qpi_bdf 0 0)
cat > /tmp/foreign_member.sh <<EOT
for i in 0 1 2 3; do
	if [ \$($QPICFG $Q0 rd \$((0xd8 + 4 * i))) = 0x00400201 ]; then
		echo \$i > /tmp/foreign_member.idx
		$QPICFG $Q0 wr \$((0xd8 + 4 * i)) 0x00400200
	fi
done
EOT
t_begin "pinned_group_member_not_refused"
qpiu_unload
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10
dmesg_mark
rm -f /tmp/foreign_member.idx
qperf <<EOT
open l uncore_qpi_0 0x14 socket=0 pinned
open m uncore_qpi_0 0x0201 socket=0 group=l
inject event socket=0 box=qpi0 event=0x01 umask=0x02 count=300 cycles=1000
sh sh /tmp/foreign_member.sh
$(wait_for "[ \$(cat $PMUS/uncore_qpi_0/$FW) -ge 1 ]")
$(wait_for "[ \$(cat $BUSY) = 0 ] && [ \$($QPICFG $Q0 rd \$((0xd8 + 4 * \$(cat /tmp/foreign_member.idx)))) != 0x00400200 ]")
sh sleep 0.1
inject event socket=0 box=qpi0 event=0x01 umask=0x02 count=40 cycles=200
gread l
disable l
enable l
inject event socket=0 box=qpi0 event=0x01 umask=0x02 count=500 cycles=2000
gread l
EOT
idx=$(cat /tmp/foreign_member.idx 2> /dev/null)
[ -n "$idx" ] || fail "the member's control 0x00400201 not found"
grp() { echo "$QOUT" | grep "^l\[" | sed -n "$1" | sed 's/ enabled=.*//' | paste -sd' ' -; }
expect_eq "after the foreign write" "$(grp 1,2p)" "l[0] value=1200 l[1] value=340"
expect_eq "after disable and enable" "$(grp 3,4p)" "l[0] value=3200 l[1] value=840"
expect_eq "counted" "$(fw uncore_qpi_0)" 1
expect_dmesg "logged" "uncore_qpi_0: socket 0: counter $idx control is 0x00400200, expected 0x00400201 (1 counter): $MSG"
set -- $(times_of 'l\[1\]')
expect_num "never refused: the group ran all the time it was enabled" "$2" "$1"
t_end

# 6.16 and later throttle a whole group (perf_event_throttle_group()) and
# start every member again at the unthrottle, running or not (the driver
# keeps a throttled group counting).  A foreign_writes member must keep
# the episode counted before that start: nothing reads it in between.
# The pinned sampling leader is marked, never refused, so the group stays
# scheduled throughout.  Older kernels throttle only the leader.  The test
# waits for the UNTHROTTLE record (a guard of 10 s), not a fixed time: the
# reader's vCPU may not run for a while on a busy host.
t_begin "foreign_writes_kept_across_unthrottle"
dmesg_mark
qperf <<EOT
open s uncore_qpi_1 0x14 socket=1 period=1 pinned
open f uncore_qpi_1 $FWEV socket=1 group=s
mmap s
sh echo 0x400200 > $DBG/socket1/qpi1/foreign_ctl
$(wait_for "[ \$(cat $PMUS/uncore_qpi_1/$FW) -ge 1 ]")
sh echo 0 > $DBG/socket1/qpi1/foreign_ctl
$(wait_for "[ \$($QPICFG $Q1 rd $CTL0) != 0x00400200 ]")
inject event socket=1 box=qpi1 event=0x14 count=100000
waitunthrottle s 1 10
gread s
EOT
line=$(echo "$QOUT" | grep '^s samples=')
echo "# $line"
set -- $(echo "$line" | sed 's/.* throttle=\([0-9]*\) unthrottle=\([0-9]*\).*/\1 \2/')
[ "${1:-0}" -ge 1 ] && [ "${2:-0}" -ge 1 ] ||
	fail "not throttled and unthrottled: $line"
expect_eq "one episode" "$(fw uncore_qpi_1)" 1
expect_eq "the leader's count" "$(val 's[0]')" 100000
expect_eq "the foreign_writes member kept it" "$(val 's[1]')" 1
t_end

# A sampling counter completes a period at nearly every look, and each
# look re-arms it: disables it and enables it again with its control as
# the driver programs it.  A foreign write to that control must be seen
# before the re-arm writes over it, every time, as for a counting
# counter: five one-shot writes (umask 0x01: the counter still counts
# clockticks, so its periods go on completing), each after the episode
# of the last one ended (two read-backs that checked the counter), are
# five episodes.  The sampling event is pinned: never refused, it stays
# on its counter.
TFC=/sys/module/qpi_uncore/parameters/test_foreign_checks
cat > /tmp/foreign_poke.sh <<EOT
n=0
while [ \$n -lt 5 ]; do
	n=\$((n + 1))
	# the counter as the driver programs it: a look may have it
	# disabled for its re-arm, and a throttle for longer
	idx=
	w=0
	while [ -z "\$idx" ] && [ \$w -lt 200 ]; do
		for i in 0 1 2 3; do
			[ \$($QPICFG $Q0 rd \$((0xd8 + 4 * i))) = 0x00400014 ] && idx=\$i
		done
		[ -n "\$idx" ] || { sleep 0.05; w=\$((w + 1)); }
	done
	[ -n "\$idx" ] || { echo "poke \$n: no counter with control 0x00400014 in 10 s"; continue; }
	$QPICFG $Q0 wr \$((0xd8 + 4 * idx)) 0x00400114
	w=0
	while [ \$($QPICFG $Q0 rd \$((0xd8 + 4 * idx))) = 0x00400114 ] && [ \$w -lt 200 ]; do
		sleep 0.05; w=\$((w + 1))
	done
	c=\$(cat $TFC)
	w=0
	while [ \$(cat $TFC) -lt \$((c + 2)) ] && [ \$w -lt 200 ]; do
		sleep 0.05; w=\$((w + 1))
	done
done
EOT
t_begin "each_poke_of_a_sampling_counter_seen"
qpiu_unload
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10
dmesg_mark
# The pokes come from socket 0's reader CPU, where the looks run with
# interrupts off: so every poke lands between two looks, as the item asks.
# From another CPU one can land between a look's read of the control and
# its re-arm's write, a window of a few config accesses on silicon that
# emulation stretches whenever it switches vCPUs inside it; such a write
# is overwritten unseen, by any driver that re-arms with config accesses.
rd0=$(socket_reader uncore_qpi_0 0)
qperf <<EOT
open s uncore_qpi_0 0x14 socket=0 period=1000 pinned
inject rate socket=0 box=qpi0 event=0x14 per_s=1000000
sh sleep 0.2
sh taskset -c $rd0 sh /tmp/foreign_poke.sh
inject rate socket=0 box=qpi0 event=0x14 per_s=0
read s
EOT
echo "$QOUT" | grep '^poke' | sed 's/^/# /'
expect_eq "five episodes" "$(fw uncore_qpi_0)" 5
expect_num "five log lines" "$(dmesg_since_mark | grep -c "uncore_qpi_0: socket 0: counter [0-3] control is 0x00400114, expected 0x00400014 (1 counter): $MSG")" 5
t_end

# The box timer's callback can run on another CPU than the reader of the
# events it looks at (an hrtimer keeps its CPU while its callback runs, and
# through a reader change), and its read-back must then leave alone an
# event the reader is handing to perf (QPIU_HWF_DELIVER), whose period
# state perf has for the call: a stop and start there would fold nothing
# and write the counter again, losing what it counted meanwhile.  The test
# hook has another CPU, while the reader hands the first sample of a burst
# to perf, write a foreign control into the sampling counter, move the
# counter by one period (traffic arriving meanwhile) and run the box
# timer's callback with its read-back due.  Ten periods in all, each one
# sampled, and the foreign write seen once, by the reader's next look.
ELSE=/sys/module/qpi_uncore/parameters/test_elsewhere
t_begin "read_back_on_another_cpu_leaves_a_delivery_alone"
qpiu_unload
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10
dmesg_mark
qperf <<EOT
open s uncore_qpi_0 0x14 socket=0 period=1000 pinned
mmap s
sh echo 1000 > ${ELSE}_events
sh echo 0x400114 > ${ELSE}_ctl
inject event socket=0 box=qpi0 event=0x14 count=5000
$(wait_for "[ \$((\$(cat ${ELSE}_ran) + \$(cat ${ELSE}_missed))) -ge 1 ]")
$(wait_for "[ \$(cat $PMUS/uncore_qpi_0/$FW) -ge 1 ]")
$(wait_for "[ \$($QPICFG $Q0 rd $CTL0) = 0x00400014 ]")
inject event socket=0 box=qpi0 event=0x14 count=4000
waitsamples s 10 20
read s
EOT
echo "$QOUT" | grep '^s samples=' | sed 's/^/# /'
expect_num "another CPU's callback with the event in perf's hands" "$(cat ${ELSE}_ran)" 1
expect_num "and none that missed it" "$(cat ${ELSE}_missed)" 0
expect_eq "count" "$(val s)" 10000
expect_eq "samples" "$(echo "$QOUT" | grep '^s samples=' | tail -n 1 | sed 's/^s samples=\([0-9]*\).*/\1/')" 10
expect_eq "throttle records" "$(echo "$QOUT" | grep '^s samples=' | tail -n 1 | sed 's/.* throttle=\([0-9]*\).*/\1/')" 0
expect_eq "one episode" "$(fw uncore_qpi_0)" 1
expect_num "one log line" "$(dmesg_since_mark | grep -c "uncore_qpi_0: socket 0: counter [0-3] control is 0x00400114, expected 0x00400014 (1 counter): $MSG")" 1
expect_num "no BOX_STATUS complaint" "$(dmesg_since_mark | grep -c 'BOX_STATUS')" 0
t_end

# perf throttles an event in the middle of a delivery that leaves periods
# carried (QPIU_HES_DUE): the look then drops them (qpiu_box_drop_carried()),
# as perf drops whatever comes until its next tick, and its THROTTLE record
# accounts for them.  That drop must leave alone an event the reader is
# still handing to perf (QPIU_HWF_DELIVER): on the perf_tp_event route
# hw.period_left is then perf's for the call, to be put back after it, so
# a drop there takes two periods of perf's leftovers instead and clears the
# carried mark, and the delivery then puts the carried periods back, no
# longer marked: the reader's own drop passes them over, and the next look
# offers them again, as if just completed: before perf's tick perf drops
# them unseen, after it perf writes a tick's worth more and throttles
# again (both seen on 6.1).  perf's limit at 2000 a second (L samples a
# tick, the driver's sample_tick_limit); a burst of 2000 periods, past the
# pacing bound and past the most one callback offers (QPIU_CALL_SAMPLES,
# 401 at HZ 250): one callback offers that many, perf writes its limit
# and throttles (L samples on 6.1 and 7.3, L + 1 on 5.10), the rest is
# dropped.  Two more read-backs (two more box timer callbacks, each with a
# look) have the next looks run; a disable and enable ends the throttle if
# perf's tick has not (perf's sched_in writes UNTHROTTLE then), and 5
# periods more give 5 samples at the boundaries the counter is armed for,
# by two read-backs later.
# Once so, for reference, and once with the test hook having another CPU,
# once perf throttled the event, run the drop while the reader waits after
# perf's call: the same samples, periods, records and most offered in one
# callback, the count exact.  A kprobe sums the samples offered perf
# (qpiu_sample_emit()'s n): the burst's first callback's
# (test_offered_look_max) and 5, whether a look came before perf's tick or
# after.
DROP=/sys/module/qpi_uncore/parameters/test_elsewhere_drop
TLIM=/sys/module/qpi_uncore/parameters/sample_tick_limit
TR=/sys/kernel/debug/tracing
TP=/sys/module/qpi_uncore/parameters

# a "sh" line for qpiperf: wait for two more read-backs, each in a box
# timer callback with a look (a guard of 30 s against a hang)
two_looks="sh c=\$(cat $TFC); i=0; until [ \$(cat $TFC) -ge \$((c + 2)) ]; do [ \$i -ge 600 ] && { echo 'sh error: timeout: two read-backs'; break; }; i=\$((i + 1)); sleep 0.05; done"

# drop_burst HOOK: the burst, the hook armed if HOOK is 1; qpiperf's output
# in QOUT, the samples offered perf in $offered (empty without kprobes)
drop_burst()
{
	ran0=$(cat ${ELSE}_ran)
	miss0=$(cat ${ELSE}_missed)
	echo 0 > $TP/test_offered_look_max
	[ $probes = yes ] && { echo > $TR/trace; echo 1 > $TR/events/qpiu/enable; }
	qperf <<EOT
open s uncore_qpi_0 0x14 socket=0 period=1000 stype=0x100 single
mmap s 1024
sh echo $1 > $DROP
inject event socket=0 box=qpi0 event=0x14 count=2000000
$(if [ "$1" = 1 ]; then wait_for "[ \$((\$(cat ${ELSE}_ran) + \$(cat ${ELSE}_missed))) -ge $((ran0 + miss0 + 1)) ]"; else echo "sh :"; fi)
$two_looks
samples s
disable s
enable s
inject event socket=0 box=qpi0 event=0x14 count=5000
$two_looks
disable s
samples s
read s
close s
EOT
	offered=
	most=$(cat $TP/test_offered_look_max)
	if [ $probes = yes ]; then
		echo 0 > $TR/events/qpiu/enable
		offered=$(awk '/ emit: / { sub(/.*n=/, ""); s += $1 } END { print s + 0 }' $TR/trace)
	fi
	echo "$QOUT" | grep '^s samples=' | sed "s/^/# hook $1: /"
	echo "# hook $1: offered perf ${offered:-?}, at most $most in one callback"
}

t_begin "drop_on_another_cpu_leaves_a_delivery_alone"
qpiu_unload
expect_ok "load qpi_uncore" qpiu_load foreign_check_ms=10
probes=no
if echo "p:qpiu/emit qpiu_sample_emit n=%dx:u64" > $TR/kprobe_events 2> /dev/null; then
	probes=yes
fi
perf_limits_pin 2000 || fail "perf's sample rate limit not lowered"
drop_burst 0
ref_samples=$(sfield s samples) ref_periods=$(sfield s periods)
ref_throttle=$(sfield s throttle) ref_unthrottle=$(sfield s unthrottle)
ref_count=$(val s) ref_offered=$offered ref_most=$most
L=$(cat $TLIM)
echo "# the driver paces to $L samples a tick; kprobes: $probes"
drop_burst 1
perf_limits_restore || fail "perf's sample rate limit not restored"
expect_num "another CPU's drop with the event throttled in perf's hands" $(( $(cat ${ELSE}_ran) - ran0 )) 1
expect_num "and none that missed it" $(( $(cat ${ELSE}_missed) - miss0 )) 0
expect_eq "reference: count" "$ref_count" 2005000
expect_eq "count" "$(val s)" 2005000
# perf writes its limit of a tick, or one more (5.10), then the 5
[ "$ref_samples" -ge $((L + 5)) ] && [ "$ref_samples" -le $((L + 6)) ] ||
	fail "reference: $ref_samples samples, not perf's limit $L (or one more) and 5"
expect_num "reference: periods" "$ref_periods" $((ref_samples * 1000))
expect_num "reference: throttle records" "$ref_throttle" 1
expect_num "reference: unthrottle records" "$ref_unthrottle" 1
expect_num "samples" "$(sfield s samples)" "$ref_samples"
expect_num "periods" "$(sfield s periods)" "$ref_periods"
expect_num "throttle records" "$(sfield s throttle)" 1
expect_num "unthrottle records" "$(sfield s unthrottle)" 1
expect_num "most offered in one callback" "$most" "$ref_most"
if [ $probes = yes ]; then
	echo > $TR/kprobe_events
	expect_num "reference: samples offered perf" "$ref_offered" $((ref_most + 5))
	expect_num "samples offered perf" "$offered" "$ref_offered"
fi
t_end

qpiu_unload
qpisim_unload
ktap_finish
