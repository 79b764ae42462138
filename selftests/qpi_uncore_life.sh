#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore life cycle: CPU hotplug moves a socket's events to another CPU
# without losing counts, functions removed while counting, module unload
# with open events, the model going away underneath, intel_uncore owning the
# devices, a UBox that cannot be read, a PMU retired while perf closes
# its last event (also while the registry looks), an open racing the offline
# of its reader CPU, and perf's multiplexing timers stopped before a PMU
# goes.
. "$(dirname "$0")/lib.sh"

ktap_plan 13

# mux_timers: perf's multiplexing timers queued, on every CPU
mux_timers() { grep -c 'perf_mux_hrtimer_handler' /proc/timer_list; }
ncpu=$(cpulist "$(cat /sys/devices/system/cpu/online)" | tr , '\n' | grep -c .)

# pmu_gone NAME: wait (bounded, 60 s) until PMU NAME is no longer
# registered; wait_file FILE: until FILE exists
pmu_gone()
{
	i=0
	while [ -d "$PMUS/$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ ! -d "$PMUS/$1" ]
}

wait_file()
{
	i=0
	while [ ! -f "$1" ] && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# counts_again WHAT PMU BOX EVENT SOCKET N: a new event of PMU counts the N
# events injected on BOX of SOCKET (the PMU is back, or still works)
counts_again()
{
	qperf <<EOT
open f $2 $4 socket=$5
inject event socket=$5 box=$3 event=$4 count=$6
read f
EOT
	expect_num "$1" "$(val f)" "$6"
}

# port_cmd PORT 0|1: a command that removes (0) or brings back (1) QPI
# port PORT on every socket (for qpiperf's sh); r3_cmd LINK: R3QPI link
box_cmd()
{
	c=: s=0
	while [ $s -lt "$NR_SOCKETS" ]; do
		c="$c; echo $3 > $DBG/socket$s/$1$2/present"
		s=$((s + 1))
	done
	echo "$c"
}
port_cmd() { box_cmd qpi "$1" "$2"; }
r3_cmd() { box_cmd r3qpi "$1" "$2"; }
port_present() { eval "$(port_cmd "$1" "$2")"; }
r3_present() { eval "$(r3_cmd "$1" "$2")"; }

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load

# The CPUs of socket 1, in order.
s1=$(socket_cpus 1)
set -- $s1
first=$1 second=${2:-}
c0=$(cpulist "$(cat "$PMUS/uncore_qpi_0/cpumask")" | cut -d, -f1)

t_begin "hotplug_moves_reader_without_losing_counts"
if [ -z "$second" ]; then
	fail "needs two CPUs in socket 1 (have: $s1)"
else
	qperf <<EOT
open e uncore_qpi_0 0x14 socket=1
inject event socket=1 box=qpi0 event=0x14 count=100
read e
sh echo 0 > /sys/devices/system/cpu/cpu$first/online
sh cat $PMUS/uncore_qpi_0/cpumask > /tmp/mask.1
inject event socket=1 box=qpi0 event=0x14 count=50
read e
sh echo 0 > /sys/devices/system/cpu/cpu$second/online
sh cat $PMUS/uncore_qpi_0/cpumask > /tmp/mask.2
sh echo 1 > /sys/devices/system/cpu/cpu$first/online
sh cat $PMUS/uncore_qpi_0/cpumask > /tmp/mask.3
sh echo 1 > /sys/devices/system/cpu/cpu$second/online
open f uncore_qpi_0 0x14 socket=1
inject event socket=1 box=qpi0 event=0x14 count=7
read f
EOT
	expect_num "after migration" "$(val e)" 150
	expect_eq "reader moved" "$(cpulist "$(cat /tmp/mask.1)")" "$c0,$second"
	expect_eq "socket without CPUs has no reader" "$(cpulist "$(cat /tmp/mask.2)")" "$c0"
	expect_eq "reader back" "$(cpulist "$(cat /tmp/mask.3)")" "$c0,$first"
	expect_num "new event after re-online" "$(val f)" 7
fi
t_end

# An open racing the reader's offline: event_init chose the old reader,
# and perf installs the event there after the hotplug moved the socket's
# events, before perf tears the CPU's contexts down (which would drop it:
# it then counts nothing).  The test build holds both windows open:
# test_open_delay_ms in event_init after the choice (until the reader
# changes, at most that long), test_reader_delay_ms after the move.  The
# driver must wait for the open and move it too.
P=/sys/module/qpi_uncore/parameters
if [ ! -f $P/test_open_delay_ms ]; then
	t_skip "open_racing_reader_offline" "qpi_uncore built without QPIU_TEST_HOOKS"
elif [ -z "$second" ]; then
	t_skip "open_racing_reader_offline" "needs two CPUs in socket 1 (have: $s1)"
else
	t_begin "open_racing_reader_offline"
	rm -f /tmp/race.off
	raced0=$(cat $P/test_open_raced)
	echo 20000 > $P/test_open_delay_ms
	echo 3000 > $P/test_reader_delay_ms
	# The offliner (in the background) waits until the open sleeps after
	# choosing socket 1's reader ($first), then takes that CPU down.
	qperf <<EOT
sh (while [ "\$(cat $P/test_open_sleeping)" = 0 ]; do sleep 0.01; done; echo 0 > /sys/devices/system/cpu/cpu$first/online; echo done > /tmp/race.off) &
open e uncore_qpi_0 0x14 socket=1
sh while [ ! -f /tmp/race.off ]; do sleep 0.1; done
sh cat $PMUS/uncore_qpi_0/cpumask > /tmp/mask.race
inject event socket=1 box=qpi0 event=0x14 count=40
read e
EOT
	echo 0 > $P/test_open_delay_ms
	echo 0 > $P/test_reader_delay_ms
	echo 1 > /sys/devices/system/cpu/cpu$first/online
	expect_num "opens that saw the reader change while they slept" \
		"$(( $(cat $P/test_open_raced) - raced0 ))" 1
	expect_eq "reader after the offline" \
		"$(cpulist "$(cat /tmp/mask.race)")" "$c0,$second"
	expect_num "count of the event opened during the offline" "$(val e)" 40
	t_end
fi

t_begin "function_removed_while_counting"
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
open r uncore_r3qpi_1 0x01 socket=0
inject event socket=0 box=qpi0 event=0x14 count=10
inject event socket=0 box=r3qpi1 event=0x01 count=20
read e
sh echo 0 > $DBG/socket0/qpi0/present
inject event socket=0 box=qpi0 event=0x14 count=5
inject event socket=0 box=r3qpi1 event=0x01 count=2
read e
read r
sh echo 1 > $DBG/socket0/qpi0/present
open g uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=3
read g
read e
EOT
expect_num "count kept after removal" "$(val e)" 10
expect_num "sibling box unaffected" "$(val r)" 22
expect_num "re-added function counts" "$(val g)" 3
t_end

t_begin "module_unload_refused_with_open_events"
qperf <<EOT
open e uncore_r3qpi_0 0x01 socket=0
sh rmmod qpi_uncore 2>/dev/null; grep -c '^qpi_uncore ' /proc/modules > /tmp/loaded
inject event socket=0 box=r3qpi0 event=0x01 count=9
read e
EOT
expect_num "still loaded" "$(cat /tmp/loaded)" 1
expect_num "still counting" "$(val e)" 9
expect_ok "unload after close" qpiu_unload
expect_ok "reload" qpiu_load
t_end

t_begin "model_unloaded_under_open_events"
dmesg_mark
qperf <<EOT
open e uncore_qpi_1 0x14 socket=1
inject event socket=1 box=qpi1 event=0x14 count=44
read e
sh rmmod qpisim
read e
sh insmod $MODDIR/qpisim.ko platform=snbep
open f uncore_qpi_1 0x14 socket=1
inject event socket=1 box=qpi1 event=0x14 count=6
read f
EOT
expect_num "count kept" "$(val e)" 44
expect_num "new boxes count" "$(val f)" 6
t_end

t_begin "unreadable_ubox_refuses_its_socket"
qpiu_unload
expect_ok "reload model" qsim snbep
echo 1 > "$DBG/socket1/ubox/all_ones"
dmesg_mark
expect_ok "load" qpiu_load
expect_dmesg "message" "cannot tell the socket of bus ff: UBox CPUNODEID=0xffffffff GIDNIDMAP=0xffffffff do not read as a UBox"
expect_eq "only socket 0 is read" "$(cpulist "$(cat "$PMUS/uncore_qpi_0/cpumask")")" "$c0"
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=8
read e
EOT
expect_num "socket 0 still counts" "$(val e)" 8
t_end

# A boxless PMU stays registered while an event refers to it, and retires
# after perf has finished closing the last one: only then is the name free
# for whoever drives the functions next.
t_begin "pmu_retires_after_its_last_event_closes"
qpiu_unload
expect_ok "reload model" qsim snbep
expect_ok "load" qpiu_load
rm -f /tmp/pmu.kept
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=4
read e
sh $(port_cmd 0 0); test -d $PMUS/uncore_qpi_0 && echo kept > /tmp/pmu.kept
read e
close e
EOT
expect_eq "boxless PMU kept while its event is open" "$(cat /tmp/pmu.kept 2>/dev/null)" kept
expect_num "count kept after removal" "$(val e)" 4
pmu_gone uncore_qpi_0 || fail "uncore_qpi_0 still registered after its last event closed"
port_present 0 1
counts_again "PMU back with its functions" uncore_qpi_0 qpi0 0x14 1 6
t_end

# The last event's close racing the removal of the PMU's last box.  perf
# still uses the PMU after the event's destroy() (module_put() of the PMU's
# module last); the test build's test_destroy_delay_ms holds that window
# open for 2 s, and the functions go meanwhile.  The PMU must outlive the
# close: retired only after it, never freed under it (KASAN in the debug
# tier would report the use after free; here, the PMU would be gone at once).
P=/sys/module/qpi_uncore/parameters
if [ ! -f $P/test_destroy_delay_ms ]; then
	t_skip "last_close_racing_box_removal" "qpi_uncore built without QPIU_TEST_HOOKS"
else
	t_begin "last_close_racing_box_removal"
	dmesg_mark
	rm -f /tmp/race.pmu
	echo 2000 > $P/test_destroy_delay_ms
	# The remover (in the background) waits until the closer sleeps in
	# destroy(), removes the functions, and looks for the PMU.
	qperf <<EOT
open e uncore_qpi_1 0x14 socket=0
inject event socket=0 box=qpi1 event=0x14 count=3
read e
sh (while [ "\$(cat $P/test_destroy_sleeping)" = 0 ]; do sleep 0.01; done; $(port_cmd 1 0); if [ -d $PMUS/uncore_qpi_1 ]; then echo kept; else echo gone; fi > /tmp/race.pmu) &
close e
EOT
	echo 0 > $P/test_destroy_delay_ms
	expect_num "count before close" "$(val e)" 3
	expect_eq "PMU during the close" "$(cat /tmp/race.pmu 2>/dev/null)" kept
	pmu_gone uncore_qpi_1 || fail "uncore_qpi_1 still registered after the close"
	port_present 1 1
	counts_again "PMU back" uncore_qpi_1 qpi1 0x14 0 2
	t_end
fi

# The same race without the window held open, many times: the close and
# the removal in either order, with the model checking that nothing is
# written to a removed function.
t_begin "close_and_box_removal_stress"
n=0
while [ $n -lt 40 ]; do
	qperf <<EOT
open e uncore_r3qpi_0 0x01 socket=$((n % 2))
inject event socket=$((n % 2)) box=r3qpi0 event=0x01 count=$n
read e
sh ($(r3_cmd 0 0)) &
close e
EOT
	[ "$(val e)" = "$n" ] || fail "round $n: read $(val e), want $n"
	pmu_gone uncore_r3qpi_0 || { fail "round $n: uncore_r3qpi_0 not retired"; break; }
	r3_present 0 1
	[ -d "$PMUS/uncore_r3qpi_0" ] || { fail "round $n: uncore_r3qpi_0 not back"; break; }
	n=$((n + 1))
done
counts_again "counts after 40 rounds" uncore_r3qpi_0 r3qpi0 0x01 1 5
t_end

# The last close while the registry has just found the PMU boxless with
# an event open, and has not yet recorded that the PMU waits to retire:
# the close must still retire it (else it stays registered, its name
# taken, until rmmod).  The test build's test_retire_delay_ms holds that
# window open; the close comes while the registry sleeps in it.
if [ ! -f $P/test_retire_delay_ms ]; then
	t_skip "last_close_while_registry_looks" "qpi_uncore built without QPIU_TEST_HOOKS"
else
	t_begin "last_close_while_registry_looks"
	# a fresh module: no retirement recorded as pending before
	qpiu_unload
	expect_ok "load" qpiu_load
	rm -f /tmp/retire.done /tmp/retire.sleeping
	echo 10000 > $P/test_retire_delay_ms
	qperf <<EOT
open e uncore_r3qpi_1 0x01 socket=0
inject event socket=0 box=r3qpi1 event=0x01 count=5
read e
sh ($(r3_cmd 1 0); echo done > /tmp/retire.done) &
sh while [ "\$(cat $P/test_retire_sleeping)" = 0 ]; do sleep 0.01; done
close e
sh cat $P/test_retire_sleeping > /tmp/retire.sleeping
EOT
	wait_file /tmp/retire.done
	echo 0 > $P/test_retire_delay_ms
	expect_num "count before close" "$(val e)" 5
	expect_num "registry still asleep after the close" "$(cat /tmp/retire.sleeping)" 1
	pmu_gone uncore_r3qpi_1 || fail "uncore_r3qpi_1 still registered after its last close"
	r3_present 1 1
	counts_again "PMU back" uncore_r3qpi_1 r3qpi1 0x01 1 4
	t_end
fi

# perf's multiplexing timer, one per CPU in each PMU's per-CPU context: a
# write to the PMU's perf_event_mux_interval_ms arms it on every online
# CPU (a group that does not fit, e.g. refused for a foreign writer, arms
# it on one), and perf_pmu_unregister() frees the contexts without
# cancelling it: queued on freed memory, it would fire there in hard-IRQ
# context.  Ten minutes: none expires during the test by itself.  The PMU
# must stop them before it goes, when it retires and at rmmod.
t_begin "mux_timers_stopped_when_pmu_retires"
qpiu_unload
expect_ok "load" qpiu_load
expect_num "mux timers before" "$(mux_timers)" 0
echo 600000 > "$PMUS/uncore_qpi_1/perf_event_mux_interval_ms"
expect_num "mux timers armed, one per online CPU" "$(mux_timers)" "$ncpu"
port_present 1 0
pmu_gone uncore_qpi_1 || fail "uncore_qpi_1 still registered without its functions"
expect_num "mux timers after the PMU retired" "$(mux_timers)" 0
port_present 1 1
counts_again "PMU back" uncore_qpi_1 qpi1 0x14 1 9
t_end

t_begin "mux_timers_stopped_at_rmmod"
expect_num "mux timers before" "$(mux_timers)" 0
echo 600000 > "$PMUS/uncore_qpi_0/perf_event_mux_interval_ms"
echo 600000 > "$PMUS/uncore_r3qpi_1/perf_event_mux_interval_ms"
expect_num "mux timers armed, two PMUs on each online CPU" "$(mux_timers)" $((2 * ncpu))
expect_ok "unload" qpiu_unload
expect_num "mux timers after rmmod" "$(mux_timers)" 0
expect_ok "reload" qpiu_load
t_end

# Last: on 7.x, rmmod intel_uncore makes lockdep report intel_uncore's own
# lock order (tools/vm/run-vm, known_upstream) and turn itself off.
t_begin "intel_uncore_owning_devices_is_explained"
expect_ok "unload" qpiu_unload
# The stock driver only knows the platform of the CPU it runs on.
expect_ok "model of this CPU" qsim "$PLATFORM"
for m in $(cat /lib/modules/stock/load-order); do
	insmod "/lib/modules/stock/$m" || fail "cannot load stock $m"
done
dmesg_mark
expect_ok "load beside intel_uncore" qpiu_load
expect_dmesg "message" "is already driven by '${PLATFORM}_uncore' (module intel_uncore)"
expect_dmesg "advice" "run: qpi-uncore-takeover. Or unload intel_uncore (rmmod intel_uncore) or blacklist it"
qpiu_unload
rmmod intel_uncore || fail "cannot unload intel_uncore"
expect_ok "load after intel_uncore is gone" qpiu_load
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=5
read e
EOT
expect_num "counts" "$(val e)" 5
t_end

qpiu_unload
qpisim_unload
ktap_finish
