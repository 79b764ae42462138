#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore counting: PMUs and their sysfs, exact counts on every box of
# every socket, perf stat and perf's own event names, wrap of 48- and 44-bit
# counters, and consistent 64-bit reads of counters that carry mid-read.
. "$(dirname "$0")/lib.sh"

ktap_plan 9

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load

readers=$(for s in $(seq 0 $((NR_SOCKETS - 1))); do
	socket_cpus "$s" | cut -d' ' -f1
done | paste -sd, -)

t_begin "pmus_formats_and_cpumask"
for p in uncore_qpi_0 uncore_qpi_1 uncore_r3qpi_0 uncore_r3qpi_1; do
	[ -d "$PMUS/$p" ] || fail "$p missing"
	expect_eq "$p cpumask" "$(cpulist "$(cat "$PMUS/$p/cpumask")")" "$readers"
done
[ -d "$PMUS/uncore_qpi_2" ] && fail "uncore_qpi_2 on a 2-port platform"
f=$PMUS/uncore_qpi_0/format
expect_eq "qpi event" "$(cat "$f/event")" "config:0-7,21"
expect_eq "qpi umask" "$(cat "$f/umask")" "config:8-15"
expect_eq "qpi edge" "$(cat "$f/edge")" "config:18"
expect_eq "qpi inv" "$(cat "$f/inv")" "config:23"
expect_eq "qpi thresh" "$(cat "$f/thresh")" "config:24-31"
expect_eq "qpi driver_event" "$(cat "$f/driver_event")" "config:56-63"
f=$PMUS/uncore_r3qpi_1/format
expect_eq "r3qpi formats" "$(ls "$f" | paste -sd' ' -)" "driver_event edge event thresh umask"
expect_eq "r3qpi event" "$(cat "$f/event")" "config:0-7"
t_end

t_begin "events_aliases"
e=$PMUS/uncore_qpi_0/events
expect_eq "clockticks" "$(cat "$e/clockticks")" "event=0x14"
expect_eq "rxl_flits_g1.drs_data" "$(cat "$e/rxl_flits_g1.drs_data")" \
	"event=0x102,umask=0x08"
expect_eq "in-tree name drs_data" "$(cat "$e/drs_data")" "event=0x102,umask=0x08"
expect_num "SNB-EP QPI aliases (84 + 3 in-tree names + foreign_writes)" "$(nr_aliases uncore_qpi_0)" 88
# data flits read as bytes: 8 bytes of data per flit
expect_eq "rxl_flits_g0.data.scale" "$(cat "$e/rxl_flits_g0.data.scale")" 8
expect_eq "rxl_flits_g0.data.unit" "$(cat "$e/rxl_flits_g0.data.unit")" Bytes
expect_num "scaled aliases" "$(ls "$e" | grep -c '\.scale$')" 6
[ -e "$e/drs_data.scale" ] && fail "the in-tree name drs_data must stay in flits"
out=$(perf stat -a -x, -e uncore_qpi_0/txl_flits_g0.data/ -- sh -c \
	"echo 'packet socket=0 port=0 dir=tx mc=drs count=10' > $DBG/inject" 2>&1)
expect_eq "perf stat reads bytes" "$(echo "$out" | cut -d, -f1,2)" "640,Bytes"
expect_num "SNB-EP R3QPI aliases (63 + foreign_writes)" "$(nr_aliases uncore_r3qpi_0)" 64
expect_eq "r3qpi clockticks" "$(cat "$PMUS/uncore_r3qpi_0/events/clockticks")" \
	"event=0x01"
t_end

t_begin "perf_stat_per_socket_exact"
inj=""
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	inj="$inj echo 'event socket=$s box=qpi0 event=0x14 count=$((1000003 * (s + 1)))' > $DBG/inject;"
done
out=$(perf stat -a --per-socket -x, -e uncore_qpi_0/event=0x14/ -- sh -c "$inj" 2>&1)
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	got=$(echo "$out" | awk -F, -v s="S$s" '$1 == s { print $3 }')
	expect_num "socket $s clockticks" "$got" $((1000003 * (s + 1)))
done
t_end

t_begin "every_box_every_socket_ivbep"
qpiu_unload
expect_ok "load qpisim" qsim ivbep qpi_ports=3 r3qpi_links=3
expect_ok "load qpi_uncore" qpiu_load
every_box ivbep
t_end

t_begin "r3qpi_link2_and_qpi_port2_pmus"
for p in uncore_qpi_2 uncore_r3qpi_2; do
	[ -d "$PMUS/$p" ] || fail "$p missing"
done
expect_num "IVB-EP QPI aliases" "$(nr_aliases uncore_qpi_2)" $((167 + 3 + 1))
expect_num "IVB-EP R3QPI aliases" "$(nr_aliases uncore_r3qpi_2)" $((127 + 1))
t_end

t_begin "wrap_48_and_44_bits_across_reads"
qperf <<EOT
open q uncore_qpi_1 0x14 socket=0
open r uncore_r3qpi_2 0x01 socket=1
inject event socket=0 box=qpi1 event=0x14 count=$(((1 << 48) - 10))
inject event socket=1 box=r3qpi2 event=0x01 count=$(((1 << 44) - 3))
read q
read r
inject event socket=0 box=qpi1 event=0x14 count=25
inject event socket=1 box=r3qpi2 event=0x01 count=8
read q
read r
EOT
expect_num "QPI across 2^48" "$(val q)" $(((1 << 48) + 15))
expect_num "R3QPI across 2^44" "$(val r)" $(((1 << 44) + 5))
grep -qx "overflows=1" "$DBG/socket0/qpi1/regs" || fail "QPI counter did not wrap"
grep -qx "overflows=1" "$DBG/socket1/r3qpi2/regs" || fail "R3QPI counter did not wrap"
t_end

# Every config access moves the counter by K: low dwords carry into the
# high dword between the two halves of a read.  Every value the driver
# takes must be one the counter held: a multiple of K.
K=$((0x0ccccccd))
t_begin "consistent_reads_under_carries"
# the exact count of config reads below: no read-back of the controls
echo 0 > /sys/module/qpi_uncore/parameters/foreign_check_ms
qperf <<EOT
open f uncore_qpi_0 0x14 socket=1
sh echo 0 > $DBG/socket1/qpi0/reads
sh echo $K > $DBG/fast_count
read f
read f
read f
read f
read f
read f
read f
read f
sh echo 0 > $DBG/fast_count
read f
EOT
v=$(val f)
expect_num "count is a multiple of K" $((v % K)) 0
# 9 reads and the final one at close, 3 accesses each, plus 2 per retry
r=$(cat "$DBG/socket1/qpi0/reads")
[ "$r" -gt 30 ] || fail "$r config reads: no read met a carry"
expect_num "reads are 3 plus 2 per retry" $(((r - 30) % 2)) 0
echo 1000 > /sys/module/qpi_uncore/parameters/foreign_check_ms
echo "# driver config reads for 10 counter reads: $r"

[ "$v" -gt $((K * 20)) ] || fail "count $v: expected more than 20 steps of K"
naive_bad=0
cfg_wr "$(qpi_bdf 1 1)" "$(ctl 0)" $((RST | EN | 0x14))
echo "$K" > "$DBG/fast_count"
for i in $(seq 1 16); do
	r=$(cfg_rd64 "$(qpi_bdf 1 1)" "$(ctr 0)")
	[ $((r % K)) -ne 0 ] && naive_bad=$((naive_bad + 1))
done
echo 0 > "$DBG/fast_count"
# The model is deterministic: low-then-high reads tear.
[ "$naive_bad" -gt 0 ] || fail "naive reads never tore; the test proves nothing"
echo "# naive low/high reads torn: $naive_bad of 16"
t_end

t_begin "perf_event_names_program_the_right_control"
echo clear > "$DBG/log"
perf stat -a -x, -e unc_q_clockticks -e unc_q_txl_flits_g1.drs_data \
	-e unc_q_rxl_flits_g2.ncb_data -e unc_r3_clockticks true > /dev/null 2>&1 ||
	fail "perf stat with perf's event names failed"
log=$(cat "$DBG/log")
# en | rst | event: each name opens on every port or link and socket
for want in "7f:08.2 where=0x0d8 size=4 val=0x00420014" \
	    "7f:08.2 where=0x0dc size=4 val=0x00620800" \
	    "7f:08.2 where=0x0e0 size=4 val=0x00620403" \
	    "7f:13.5 where=0x0d8 size=4 val=0x00420001" \
	    "ff:18.2 where=0x0e0 size=4 val=0x00620403" \
	    "ff:12.5 where=0x0d8 size=4 val=0x00420001"; do
	echo "$log" | grep -q "$want" || fail "no write '$want'"
done
t_end

t_begin "enable_and_rst_bits_in_raw_config_ignored"
qperf <<EOT
open a uncore_qpi_0 0x420014 socket=0
open b uncore_qpi_0 0x20014 socket=0
inject event socket=0 box=qpi0 event=0x14 count=77
read a
read b
EOT
expect_num "with en" "$(val a)" 77
expect_num "with rst" "$(val b)" 77
t_end

qpiu_unload
qpisim_unload
ktap_finish
