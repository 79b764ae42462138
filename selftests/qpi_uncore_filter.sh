#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore QPI packet filters: CTO_COUNT through each port's MATCH/MASK
# registers, with exact counts for many filters, perf's named format fields,
# one filter per port (sharing, conflicts, multiplexing, groups), the filter
# written before the counter starts, and every refusal.
. "$(dirname "$0")/lib.sh"

ktap_plan 8

qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load
# The mix's one sent packet type stays at socket 0: qpisim would deliver it
# at the far end of the link, whose filter the tests expect to see nothing.
echo '0.1 none' > "$DBG/links"

# The traffic mix of qpisim_packets.sh, received on port 1 of socket 0.
MIX="inject packet socket=0 port=1 dir=rx mc=drs dnid=1 rnid=2 rds=8 opc=0 count=5
inject packet socket=0 port=1 dir=rx mc=drs dnid=1 rnid=2 rds=4 opc=1 count=6
inject packet socket=0 port=1 dir=rx mc=drs dnid=2 rnid=3 rds=2 opc=2 count=7
inject packet socket=0 port=1 dir=rx mc=ncb dnid=1 rnid=17 count=8
inject packet socket=0 port=1 dir=rx mc=snp dnid=0 rnid=2 vnw=1 count=9
inject packet socket=0 port=1 dir=rx mc=hom_req dnid=3 rnid=4 count=10
inject packet socket=0 port=1 dir=rx mc=ndr dnid=1 rnid=2 count=11
inject packet socket=0 port=1 dir=tx mc=drs dnid=1 rds=8 count=12
inject packet socket=0 port=1 dir=rx mc=ncs dnid=1 count=13"
CTO=0x200038

t_begin "nine_filters_exact"
qperf <<EOT
open all uncore_qpi_1 $CTO socket=0
$MIX
read all
close all
open drs uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
$MIX
read drs
close drs
open drs_m uncore_qpi_1 $CTO socket=0 config1=0x0008000000001c00 config2=0x000f000000001e00
$MIX
read drs_m
close drs_m
open to1 uncore_qpi_1 $CTO socket=0 config1=0x2000 config2=0x3e000
$MIX
read to1
close to1
open from2 uncore_qpi_1 $CTO socket=0 config1=0x200000000 config2=0xf80000000
$MIX
read from2
close from2
open from17 uncore_qpi_1 $CTO socket=0 config1=0x180000000 config2=0xf80000000
$MIX
read from17
close from17
open vn1 uncore_qpi_1 $CTO socket=0 config1=0x8 config2=0x18
$MIX
read vn1
close vn1
open ncb_drs uncore_qpi_1 $CTO socket=0 config1=0x1800 config2=0x1a00
$MIX
read ncb_drs
close ncb_drs
open drs_op1 uncore_qpi_1 $CTO socket=0 config1=0x1c20 config2=0x1fe0
$MIX
read drs_op1
EOT
expect_num "no filter: every received packet" "$(val all)" 69
expect_num "DRS" "$(val drs)" 18
expect_num "DRS in M state" "$(val drs_m)" 5
expect_num "to node 1" "$(val to1)" 43
expect_num "from node 2 (RNID[4] = 0, RNID[3:0] = 2)" "$(val from2)" 31
expect_num "from node 17 (RNID split over both registers)" "$(val from17)" 8
expect_num "virtual network 1" "$(val vn1)" 9
expect_num "NCB or DRS (one MC bit masked out)" "$(val ncb_drs)" 26
expect_num "DRS opcode 1" "$(val drs_op1)" 6
t_end

# Two different filters on one port would take turns; one perf run each.
t_begin "perf_named_filter_fields"
mixsh=$(echo "$MIX" | sed "s|^inject \(.*\)|echo '\1' > $DBG/inject;|")
pstat() # EVENT: perf stat --per-socket over one mix; "S0-count S1-count"
{
	perf stat -a --per-socket -x, -e "$1" -- sh -c "$mixsh" 2>&1 |
		awk -F, '$1 == "S0" { a = $3 } $1 == "S1" { b = $3 } END { print a, b }'
}
expect_eq "DRS in M state, by field name (socket 0, socket 1)" \
	"$(pstat 'uncore_qpi_1/event=0x138,match_mc=0xe,mask_mc=0xf,match_rds=0x8,mask_rds=0xf/')" "5 0"
expect_eq "from node 17, by field name" \
	"$(pstat 'uncore_qpi_1/event=0x138,match_rnid4=1,mask_rnid4=1,match_rnid30=1,mask_rnid30=0xf/')" "8 0"
expect_eq "raw match0/mask0 fields" \
	"$(pstat 'uncore_qpi_1/event=0x138,match0=0x2000,mask0=0x3e000/')" "43 0"
expect_eq "format of match_rds" "$(cat "$PMUS/uncore_qpi_0/format/match_rds")" "config1:48-51"
expect_eq "format of mask_dnid" "$(cat "$PMUS/uncore_qpi_0/format/mask_dnid")" "config2:13-17"
expect_num "filter formats" "$(ls "$PMUS/uncore_qpi_0/format" | grep -c -E '^(match|mask)')" 18
t_end

t_begin "filter_written_before_counter_starts"
echo clear > "$DBG/log"
qperf <<EOT
open f uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
EOT
first_ctl=$(grep -n "7f:09.2 where=0x0d8" "$DBG/log" | head -n 1 | cut -d: -f1)
last_mm=$(grep -n "7f:09.6 where=0x2" "$DBG/log" | tail -n 1 | cut -d: -f1)
expect_num "mask/match writes" "$(grep -c "7f:09.6 where=0x2" "$DBG/log")" 4
[ -n "$first_ctl" ] && [ -n "$last_mm" ] && [ "$last_mm" -lt "$first_ctl" ] ||
	fail "filter (line $last_mm) not written before the counter (line $first_ctl)"
grep -q "7f:09.6 where=0x238 size=4 val=0x00001e00" "$DBG/log" || fail "MASK0 not written"
t_end

t_begin "identical_filters_share"
qperf <<EOT
open x uncore_qpi_1 $CTO socket=0 config1=0x8 config2=0x18
EOT
echo clear > "$DBG/log"
qperf <<EOT
open a uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
open b uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
$MIX
read a
read b
EOT
expect_num "first" "$(val a)" 18
expect_num "second" "$(val b)" 18
expect_num "filter written once" "$(grep -c "09.6 where=0x228" "$DBG/log")" 1
t_end

# One inject line per mix: the model applies a whole write at once, so a
# mix lands in one filter's turn (or in none, while the box is frozen).
# Both filters get turns, as perf's times show; which one holds the box
# when a mix comes is the rotation timer's doing (late on a busy host), so
# one may count none of them.
MIX1=$(echo "$MIX" | sed 's/^inject //' | paste -sd';' -)
t_begin "different_filters_take_turns"
script="open a uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
open b uncore_qpi_1 $CTO socket=0 config1=0x2000 config2=0x3e000"
for i in $(seq 1 30); do
	script="$script
inject $MIX1
sh sleep 0.02"
done
qperf <<EOT
$script
read a
read b
EOT
a=$(val a) b=$(val b)
expect_num "DRS filter: whole mixes" $((a % 18)) 0
expect_num "node 1 filter: whole mixes" $((b % 43)) 0
[ "$(ran a)" -gt 0 ] && [ "$(ran b)" -gt 0 ] ||
	fail "no turn taking: $(ran a) and $(ran b) ns counted"
[ $((a + b)) -gt 0 ] || fail "no mix counted"
n=$((a / 18 + b / 43))
[ "$n" -le 30 ] || fail "$n mixes counted out of 30: both filters at once?"
echo "# DRS $a ($((a / 18)) mixes), node 1 $b ($((b / 43)) mixes) of 30"
t_end

t_begin "sockets_and_ports_have_their_own_filter"
qperf <<EOT
open s0 uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00
open s1 uncore_qpi_1 $CTO socket=1 config1=0x1800 config2=0x1e00
open p0 uncore_qpi_0 $CTO socket=0 config1=0x600 config2=0x1e00
$MIX
inject packet socket=1 port=1 dir=rx mc=ncb count=4
inject packet socket=1 port=1 dir=rx mc=drs count=3
inject packet socket=0 port=0 dir=rx mc=snp count=2
read s0
read s1
read p0
EOT
expect_num "socket 0 port 1: DRS" "$(val s0)" 18
expect_num "socket 1 port 1: NCB" "$(val s1)" 4
expect_num "socket 0 port 0: SNP" "$(val p0)" 2
t_end

t_begin "groups_with_filters"
qperf <<EOT
open l uncore_qpi_1 0x14 socket=0
open a uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00 group=l
open b uncore_qpi_1 $CTO socket=0 config1=0x1c00 config2=0x1e00 group=l
open c uncore_qpi_1 $CTO socket=0 config1=0x2000 config2=0x3e000 group=l
$MIX
gread l
EOT
expect_eq "same filter in a group" "$(opened b)" yes
expect_eq "another filter in the group" "$(err c)" $EINVAL
expect_num "member a" "$(val 'l[1]')" 18
expect_num "member b" "$(val 'l[2]')" 18
t_end

t_begin "refusals"
echo clear > "$DBG/log"
qpiu_unload
expect_ok "load qpisim ivbep" qsim ivbep qpi_ports=3 r3qpi_links=3
expect_ok "load qpi_uncore" qpiu_load
echo clear > "$DBG/log"
dmesg_mark
qperf <<EOT
open notcto uncore_qpi_0 0x14 socket=0 config1=0x1c00
open rsvd uncore_qpi_0 $CTO socket=0 config1=0x1
open rsvd2 uncore_qpi_0 $CTO socket=0 config2=0x100000000000
open nomm uncore_qpi_2 $CTO socket=1 config1=0x1c00 config2=0x1e00
open r3 uncore_r3qpi_0 0x01 socket=0 config1=0x1c00
open plain uncore_qpi_2 $CTO socket=1
inject packet socket=1 port=2 dir=rx mc=drs count=3
read plain
EOT
expect_eq "filter on another event" "$(err notcto)" $EINVAL
expect_eq "reserved MATCH0 bit" "$(err rsvd)" $EINVAL
expect_eq "reserved MASK1 bit" "$(err rsvd2)" $EINVAL
expect_eq "port without mask/match function" "$(err nomm)" $ENODEV
expect_eq "R3QPI has no filter" "$(err r3)" $EINVAL
expect_dmesg "no mask/match message" "socket 1 has no mask/match function for port 2"
expect_dmesg "reserved message" "config1=0x1: bits 0x1 are reserved in MATCH1:MATCH0"
expect_num "unfiltered cto_count on that port" "$(val plain)" 3
expect_num "no mask/match writes for refusals" "$(grep -c "where=0x2[23]" "$DBG/log")" 0
t_end

qpiu_unload
qpisim_unload
ktap_finish
