#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim's link map: the default wiring per board size, rewiring through
# /sys/kernel/debug/qpisim/links and its refusals; what a port sends
# counted by perf at the far end of its link (and nowhere once unwired),
# with the far end's rx_count_pct, for packets and rate streams; the L0p
# and L1 residency knobs as exact shares of the port's clockticks.
. "$(dirname "$0")/lib.sh"

ktap_plan 6

qpiu_unload
case $PLATFORM in
snbep) PORTS=2 ;;
ivbep | hswep | bdx) PORTS=3 ;;
*) echo "# qpisim_links.sh: qpisim has no $PLATFORM"; exit $KSFT_SKIP ;;
esac

# links_are WHAT LINE...: the links file holds exactly these lines
links_are()
{
	what=$1
	shift
	got=$(cat "$DBG/links" | tr '\n' ';')
	want=$(for l; do echo "$l"; done | tr '\n' ';')
	expect_eq "$what" "$got" "$want"
}

t_begin "default_map_per_board"
expect_ok "snbep 2 sockets" qsim snbep sockets=2
links_are "snbep 2s: port p to port p" "0.0 1.0" "0.1 1.1"
expect_ok "snbep 4 sockets" qsim snbep sockets=4
links_are "snbep 4s: a ring" "0.0 1.1" "0.1 3.0" "1.0 2.1" "2.0 3.1"
expect_ok "ivbep 3 sockets" qsim ivbep sockets=3 qpi_ports=3
links_are "ivbep 3s: a mesh, port 2 free" "0.0 1.1" "0.1 2.0" "1.0 2.1"
expect_ok "hswep 4 sockets" qsim hswep sockets=4 qpi_ports=3
links_are "hswep 4s: a full mesh" "0.0 1.2" "0.1 2.1" "0.2 3.0" "1.0 2.2" \
	"1.1 3.1" "2.0 3.2"
expect_ok "bdx 8 sockets" qsim bdx sockets=8 qpi_ports=3
links_are "bdx 8s: a ring and a link across" "0.0 1.1" "0.1 7.0" "0.2 4.2" \
	"1.0 2.1" "1.2 5.2" "2.0 3.1" "2.2 6.2" "3.0 4.1" "3.2 7.2" "4.0 5.1" \
	"5.0 6.1" "6.0 7.1"
expect_ok "snbep 1 socket" qsim snbep sockets=1
links_are "one socket: no links"
t_end

t_begin "rewire_and_refusals"
expect_ok "snbep 2 sockets" qsim snbep sockets=2
expect_ok "unwire 0.0" sh -c "echo '0.0 none' > $DBG/links"
links_are "0.0 unwired" "0.1 1.1"
# wiring an end unwires what it had: 0.1 loses 1.1
expect_ok "1.1 to 0.0" sh -c "echo '1.1 0.0' > $DBG/links"
links_are "rewired" "0.0 1.1"
expect_ok "several lines" sh -c "printf 'clear\n0.1 1.0\n0.0 1.1\n' > $DBG/links"
links_are "crossed" "0.0 1.1" "0.1 1.0"
for bad in "0.0 2.0" "0.2 1.0" "0.0 0.1" "0.0" "0.0 1.0 1.1" "0 1" \
	"0.x none" "clear all" "0.0 1.0\n0.1 9.9"; do
	dmesg_mark
	printf "$bad\n" > /tmp/links.in
	expect_err "'$bad'" "Invalid argument" sh -c "cat /tmp/links.in > $DBG/links"
	expect_dmesg "'$bad' named" "qpisim: links: "
	expect_num "one message for '$bad'" "$(dmesg_since_mark | grep -c 'qpisim: links: ')" 1
done
expect_dmesg "the rule" "socket 9 out of range, the model has 2 sockets"
links_are "nothing applied" "0.0 1.1" "0.1 1.0"
expect_ok "clear" sh -c "echo clear > $DBG/links"
links_are "cleared"
t_end

expect_ok "load qpisim" qsim "$PLATFORM" sockets="$NR_SOCKETS" qpi_ports=$PORTS
expect_ok "load qpi_uncore" qpiu_load
TX_DATA=0x0200			# TxL_FLITS_G0.DATA
RX_DATA=0x0201			# RxL_FLITS_G0.DATA (SNB-EP, IVB-EP)
TX_DRS=0x200800			# TxL_FLITS_G1.DRS_DATA
RX_DRS=0x200802			# RxL_FLITS_G1.DRS_DATA (every platform)

# peer S P: the far end "T.Q" of port P of socket S, or nothing
peer()
{
	awk -v e="$1.$2" '$1 == e { print $2 } $2 == e { print $1 }' "$DBG/links"
}

# perf stat on the PMUs: 1000 DRS (8 data flits each) sent on 0.1 are
# 8000 Tx data flits at socket 0 and 8000 Rx data flits at the far end,
# port 1 of socket 1 with two sockets
t_begin "perf_stat_counts_both_ends"
if [ "$NR_SOCKETS" -eq 2 ]; then
	rx=$([ "$PLATFORM" = snbep ] || [ "$PLATFORM" = ivbep ] && echo $RX_DATA || echo $RX_DRS)
	expect_eq "0.1's peer" "$(peer 0 1)" "1.1"
	out=$(perf stat -a --per-socket -x, -e uncore_qpi_1/config=$TX_DATA/ \
		-e uncore_qpi_1/config=$rx/ -- sh -c \
		"echo 'packet socket=0 port=1 dir=tx mc=drs count=1000' > $DBG/inject" 2>&1)
	echo "$out" | sed 's/^/# perf: /'
	pick() { echo "$out" | awk -F, -v s="$1" -v c="config=$2/" '$1 == s && index($5, c) { print $3 }'; }
	expect_num "socket 0 Tx data flits" "$(pick S0 $TX_DATA)" 8000
	expect_num "socket 1 Rx data flits" "$(pick S1 "$rx")" 8000
	expect_num "socket 0 Rx data flits" "$(pick S0 "$rx")" 0
	expect_num "socket 1 Tx data flits" "$(pick S1 $TX_DATA)" 0
	echo '0.1 none' > "$DBG/links"
	out=$(perf stat -a --per-socket -x, -e uncore_qpi_1/config=$TX_DATA/ \
		-e uncore_qpi_1/config=$rx/ -- sh -c \
		"echo 'packet socket=0 port=1 dir=tx mc=drs count=1000' > $DBG/inject" 2>&1)
	expect_num "unwired: socket 0 sent" "$(pick S0 $TX_DATA)" 8000
	expect_num "unwired: socket 1 received" "$(pick S1 "$rx")" 0
	echo '0.1 1.1' > "$DBG/links"
else
	echo "# with $NR_SOCKETS sockets: the map walk below"
fi
t_end

# Every port of every socket sends its own number of DRS packets (10 x
# (3 S + P + 1)); every port receives exactly what its peer in the
# default map sent, and an unwired port nothing.
t_begin "every_link_of_the_default_map"
s_last=$((NR_SOCKETS - 1))
p_last=$((PORTS - 1))
sent() { echo $((10 * (3 * $1 + $2 + 1))); }
cmds="" inj=""
for s in $(seq 0 $s_last); do
	for p in $(seq 0 $p_last); do
		cmds="${cmds}open t$s.$p uncore_qpi_$p $TX_DRS socket=$s
open r$s.$p uncore_qpi_$p $RX_DRS socket=$s
"
		inj="${inj}packet socket=$s port=$p dir=tx mc=drs count=$(sent $s $p);"
	done
done
echo "# links: $(tr '\n' ';' < "$DBG/links")"
qperf <<EOT
$cmds
inject $inj
$(for s in $(seq 0 $s_last); do for p in $(seq 0 $p_last); do echo "read t$s.$p"; echo "read r$s.$p"; done; done)
EOT
nr_wired=0
for s in $(seq 0 $s_last); do
	for p in $(seq 0 $p_last); do
		far=$(peer "$s" "$p")
		want=0
		if [ -n "$far" ]; then
			want=$((8 * $(sent "${far%.*}" "${far#*.}")))
			nr_wired=$((nr_wired + 1))
		fi
		expect_num "$s.$p sent" "$(val "t$s.$p")" $((8 * $(sent "$s" "$p")))
		expect_num "$s.$p received from ${far:-nobody}" "$(val "r$s.$p")" "$want"
	done
done
case "$PLATFORM.$NR_SOCKETS" in
*.2) expect_num "wired ports" "$nr_wired" $((2 * PORTS)) ;;
hswep.4 | bdx.4) expect_num "wired ports of the full mesh" "$nr_wired" 12 ;;
esac
t_end

# A rate stream of Tx flits arrives at the far end too, scaled there by
# rx_count_pct: 50 % of what was sent, exactly (the remainder carried);
# an Rx flit stream of the port's own is scaled the same way.
t_begin "rate_streams_and_rx_count_pct"
far=$(peer 0 1)
T=${far%.*} Q=${far#*.}
echo 50 > "$DBG/socket$T/qpi$Q/rx_count_pct"
qperf <<EOT
open tx uncore_qpi_1 $TX_DRS socket=0
open rx uncore_qpi_$Q $RX_DRS socket=$T
inject rate socket=0 box=qpi1 event=0x00 ext=1 umask=0x08 per_s=1000003
sh sleep 0.3
inject rate socket=0 box=qpi1 event=0x00 ext=1 umask=0x08 per_s=0
read tx
read rx
EOT
tx=$(val tx)
[ "${tx:-0}" -gt 100000 ] || fail "too few sent: $tx"
expect_num "far end: 50 % of $tx" "$(val rx)" $((tx / 2))
echo 0 > "$DBG/socket$T/qpi$Q/frozen"
qperf <<EOT
open rx uncore_qpi_$Q $RX_DRS socket=$T
inject rate socket=$T box=qpi$Q event=0x02 ext=1 umask=0x08 per_s=777777
sh sleep 0.3
inject rate socket=$T box=qpi$Q event=0x02 ext=1 umask=0x08 per_s=0
read rx
EOT
arrived=$(awk '/^stream event=0x02 umask=0x08 ext=1/ { sub("arrived=", "", $6); print $6 }' \
	"$DBG/socket$T/qpi$Q/frozen")
[ "${arrived:-0}" -gt 100000 ] || fail "too few arrived: $arrived"
expect_num "own Rx stream: 50 % of $arrived" "$(val rx)" $((arrived / 2))
echo 100 > "$DBG/socket$T/qpi$Q/rx_count_pct"
t_end

# l0p_tx_pct=25, l0p_rx_pct=10, l1_pct=3: of a 4000-cycle batch exactly
# 1000, 400 and 120 cycles; packets' cycles count too; 101 is refused.
t_begin "l0p_l1_residency"
D=$DBG/socket0/qpi0
for k in l0p_tx_pct l0p_rx_pct l1_pct; do
	expect_num "$k default" "$(cat "$D/$k")" 0
done
echo 25 > "$D/l0p_tx_pct"
echo 10 > "$D/l0p_rx_pct"
echo 3 > "$D/l1_pct"
qperf <<EOT
open l0ptx uncore_qpi_0 0x0d socket=0
open l0prx uncore_qpi_0 0x10 socket=0
open l1 uncore_qpi_0 0x12 socket=0
open clk uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=4000
read l0ptx
read l0prx
read l1
read clk
inject packet socket=0 port=0 dir=rx mc=drs count=200
read l0ptx
read clk
EOT
# first() NAME: the first count qpiperf read for NAME
first() { echo "$QOUT" | awk -v n="$1" '$1 == n && sub("value=", "", $2) { print $2; exit }'; }
expect_num "clockticks" "$(first clk)" 4000
expect_num "Tx L0p cycles" "$(first l0ptx)" 1000
expect_num "Rx L0p cycles" "$(val l0prx)" 400
expect_num "L1 cycles" "$(val l1)" 120
expect_num "clockticks with 200 DRS (900 cycles)" "$(val clk)" 4900
expect_num "Tx L0p cycles, 25 % of 4900" "$(val l0ptx)" 1225
dmesg_mark
expect_err "101" "Invalid argument" sh -c "echo 101 > $D/l1_pct"
expect_dmesg "named" "l1_pct: 101 is above 100"
expect_num "l1_pct kept" "$(cat "$D/l1_pct")" 3
for k in l0p_tx_pct l0p_rx_pct l1_pct; do
	echo 0 > "$D/$k"
done
t_end

qpiu_unload
qpisim_unload
ktap_finish
