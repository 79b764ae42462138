#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore under faults: a function that starts reading all ones while
# counting, CPU hotplug of a socket's reader in a loop, load/unload cycles,
# and several processes hammering the PMUs while a pinned reference event
# must stay exact.
. "$(dirname "$0")/lib.sh"

ktap_plan 4

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load

t_begin "all_ones_function_stops_its_box"
dmesg_mark
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
open o uncore_qpi_1 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=100
inject event socket=0 box=qpi1 event=0x14 count=7
read e
sh echo 1 > $DBG/socket0/qpi0/all_ones
inject event socket=0 box=qpi0 event=0x14 count=50
read e
sh echo 0 > $DBG/socket0/qpi0/all_ones
inject event socket=0 box=qpi0 event=0x14 count=50
inject event socket=0 box=qpi1 event=0x14 count=8
read e
read o
open n uncore_qpi_0 0x14 socket=0
EOT
expect_num "count kept, never garbage" "$(val e)" 100
expect_num "other box unaffected" "$(val o)" 15
expect_dmesg "reported" "uncore_qpi_0: socket 0: 0000:7f:08.2 reads bits no counter has (all ones?); its events stop counting (err -5)"
expect_eq "box not trusted again" "$(err n)" $ENODEV
expect_num "one report" "$(dmesg_since_mark | grep -c 'its events stop counting')" 1
# A fresh function (removed and re-added) is trusted again.
echo 0 > "$DBG/socket0/qpi0/present"
echo 1 > "$DBG/socket0/qpi0/present"
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=9
read e
EOT
expect_num "re-added function counts" "$(val e)" 9
t_end

t_begin "reader_hotplug_loop_loses_nothing"
s1=$(socket_cpus 1 | cut -d' ' -f1)
mask0=$(cpulist "$(cat "$PMUS/uncore_r3qpi_1/cpumask")")
script="open e uncore_r3qpi_1 0x01 socket=1"
for i in $(seq 1 10); do
	script="$script
inject event socket=1 box=r3qpi1 event=0x01 count=10
sh echo 0 > /sys/devices/system/cpu/cpu$s1/online
inject event socket=1 box=r3qpi1 event=0x01 count=10
sh echo 1 > /sys/devices/system/cpu/cpu$s1/online"
done
qperf <<EOT
$script
read e
EOT
expect_num "count after 10 offline/online cycles" "$(val e)" 200
# The reader stays where it moved: one CPU per socket, socket 1's in socket 1.
mask=$(cpulist "$(cat "$PMUS/uncore_r3qpi_1/cpumask")")
expect_eq "socket 0 reader unchanged" "${mask%%,*}" "${mask0%%,*}"
expect_num "socket of socket 1's reader" \
	"$(cat "/sys/devices/system/cpu/cpu${mask##*,}/topology/physical_package_id")" 1
t_end

t_begin "load_unload_cycles"
for i in 1 2 3 4 5; do
	expect_ok "unload $i" qpiu_unload
	expect_ok "load $i" qpiu_load
	qperf <<EOT
open e uncore_qpi_1 0x14 socket=1
inject event socket=1 box=qpi1 event=0x14 count=$i
read e
EOT
	expect_num "cycle $i" "$(val e)" "$i"
done
t_end

# Four processes open, read, enable, disable and close events on three
# PMUs of both sockets for a fixed number of rounds, multiplexing them; the
# reference event on the undisturbed fourth (r3qpi1 of socket 0) must see
# every injection.  (On a box that perf reschedules, every counter pauses
# while the box is frozen for it, the reference too.)
t_begin "stress_with_exact_reference"
stress()
{
	s=""
	for r in $(seq 1 25); do
		for p in uncore_qpi_0 uncore_qpi_1 uncore_r3qpi_0; do
			s="$s
open a$r$p $p 0x01 socket=$(( (r + $1) % 2 ))
open b$r$p $p 0x14 socket=$(( (r + $1) % 2 )) group=a$r$p
read a$r$p
disable a$r$p
enable a$r$p
close b$r$p
close a$r$p"
		done
	done
	echo "$s" | "$HERE/qpiperf" > "/tmp/stress.$1" 2>&1
}
(
	echo "open ref uncore_r3qpi_1 0x01 socket=0 pinned"
	for i in $(seq 1 40); do
		echo "inject event socket=0 box=r3qpi1 event=0x01 count=1000"
		echo "sh sleep 0.01"
	done
	echo "read ref"
) > /tmp/ref.script
stress 1 &
stress 2 &
stress 3 &
stress 4 &
qperf < /tmp/ref.script
wait
expect_num "pinned reference" "$(val ref)" 40000
for k in 1 2 3 4; do
	bad=$(grep -cE '^\?|error=' "/tmp/stress.$k")
	expect_num "stressor $k errors" "$bad" 0
done
t_end

qpiu_unload
qpisim_unload
ktap_finish
