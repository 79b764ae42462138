#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim counting: event injection arithmetic on every box of every socket,
# event selection, enable and freeze, wrap at 2^48 and 2^44, overflow status,
# and threshold, invert and edge detection on per-cycle increments.
. "$(dirname "$0")/lib.sh"

ktap_plan 10

CLK_Q=0x14
CLK_R=0x01

t_begin "clockticks_every_box_every_socket"
expect_ok "insmod" qsim ivbep qpi_ports=3 r3qpi_links=3
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	for p in 0 1 2; do
		cfg_wr "$(qpi_bdf "$s" "$p")" "$(ctl 0)" $((EN | CLK_Q))
		cfg_wr "$(r3_bdf "$s" "$p")" "$(ctl 0)" $((EN | CLK_R))
	done
done
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	for p in 0 1 2; do
		inject event socket="$s" box="qpi$p" event=$CLK_Q \
			count=$((1000000 * (s + 1) + 1000 * p + 1))
		inject event socket="$s" box="r3qpi$p" event=$CLK_R \
			count=$((1000000 * (s + 1) + 1000 * p + 2))
	done
done
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	for p in 0 1 2; do
		expect_num "socket $s qpi$p" \
			"$(cfg_rd64 "$(qpi_bdf "$s" "$p")" "$(ctr 0)")" \
			$((1000000 * (s + 1) + 1000 * p + 1))
		expect_num "socket $s r3qpi$p" \
			"$(cfg_rd64 "$(r3_bdf "$s" "$p")" "$(ctr 0)")" \
			$((1000000 * (s + 1) + 1000 * p + 2))
	done
done
t_end

expect_ok "insmod" qsim snbep
q=$(qpi_bdf 0 0)
r=$(r3_bdf 1 0)

t_begin "event_umask_and_ext_selection"
cfg_wr "$q" "$(ctl 0)" $((EN | $(um 2) | 0x01))	# RxL_FLITS_G0.DATA
cfg_wr "$q" "$(ctl 1)" $((EN | $(um 6) | 0x01))	# .DATA + .NON_DATA
cfg_wr "$q" "$(ctl 2)" $((EN | EXT | $(um 8) | 0x02))	# RxL_FLITS_G1.DRS_DATA
cfg_wr "$q" "$(ctl 3)" $((EN | $(um 8) | 0x02))	# ext clear: other event
inject event socket=0 box=qpi0 event=0x01 umask=0x2 count=100 per_cycle=2
inject event socket=0 box=qpi0 event=0x01 umask=0x4 count=30
inject event socket=0 box=qpi0 event=0x02 ext=1 umask=0x8 count=7
expect_num "G0.DATA" "$(cfg_rd64 "$q" "$(ctr 0)")" 100
expect_num "G0.DATA+NON_DATA" "$(cfg_rd64 "$q" "$(ctr 1)")" 130
expect_num "G1.DRS_DATA" "$(cfg_rd64 "$q" "$(ctr 2)")" 7
expect_num "event 0x02 without ext" "$(cfg_rd64 "$q" "$(ctr 3)")" 0
t_end

t_begin "enable_and_freeze"
cfg_wr "$q" $BOX_CTL $((RST_CTRL | RST_CTRS))
cfg_wr "$q" "$(ctl 0)" $((EN | CLK_Q))
cfg_wr "$q" "$(ctl 1)" $CLK_Q
inject event socket=0 box=qpi0 event=$CLK_Q count=10
expect_num "enabled" "$(cfg_rd64 "$q" "$(ctr 0)")" 10
expect_num "not enabled" "$(cfg_rd64 "$q" "$(ctr 1)")" 0
cfg_wr "$q" $BOX_CTL $FRZ
inject event socket=0 box=qpi0 event=$CLK_Q count=10
expect_num "frz without frz_en" "$(cfg_rd64 "$q" "$(ctr 0)")" 20
cfg_wr "$q" $BOX_CTL $((FRZ | FRZ_EN))
inject event socket=0 box=qpi0 event=$CLK_Q count=10
expect_num "frozen" "$(cfg_rd64 "$q" "$(ctr 0)")" 20
cfg_wr "$q" $BOX_CTL $FRZ_EN
echo 1 > "$DBG/socket0/freeze"
inject event socket=0 box=qpi0 event=$CLK_Q count=10
expect_num "UBox freeze signal" "$(cfg_rd64 "$q" "$(ctr 0)")" 20
cfg_wr "$q" $BOX_CTL 0
inject event socket=0 box=qpi0 event=$CLK_Q count=10
expect_num "freeze ignored without frz_en" "$(cfg_rd64 "$q" "$(ctr 0)")" 30
echo 0 > "$DBG/socket0/freeze"
t_end

t_begin "large_counts_exact"
cfg_wr "$q" $BOX_CTL $RST_CTRS
inject event socket=0 box=qpi0 event=$CLK_Q count=10000000
inject event socket=0 box=qpi0 event=$CLK_Q count=123456789012
expect_num "clockticks" "$(cfg_rd64 "$q" "$(ctr 0)")" 123466789012
t_end

t_begin "wrap_at_2_48_keeps_counting"
cfg_wr64 "$q" "$(ctr 0)" $(((1 << 48) - 5))
inject event socket=0 box=qpi0 event=$CLK_Q count=12
expect_num "after wrap" "$(cfg_rd64 "$q" "$(ctr 0)")" 7
grep -qx "overflows=1" "$DBG/socket0/qpi0/regs" || fail "overflow not seen"
expect_num "no ov_en on snbep: status" "$(cfg_rd "$q" $BOX_STATUS)" 0
t_end

t_begin "wrap_at_2_44_keeps_counting"
cfg_wr "$r" "$(ctl 1)" $((EN | CLK_R))
cfg_wr64 "$r" "$(ctr 1)" $(((1 << 44) - 3))
inject event socket=1 box=r3qpi0 event=$CLK_R count=7
expect_num "after wrap" "$(cfg_rd64 "$r" "$(ctr 1)")" 4
t_end

t_begin "ivbep_overflow_status_w1c"
expect_ok "insmod" qsim ivbep
r=$(r3_bdf 0 1)
cfg_wr "$r" "$(ctl 0)" $((EN | OV_EN | CLK_R))
cfg_wr "$r" "$(ctl 1)" $((EN | CLK_R))
cfg_wr64 "$r" "$(ctr 0)" $(((1 << 44) - 2))
cfg_wr64 "$r" "$(ctr 1)" $(((1 << 44) - 2))
inject event socket=0 box=r3qpi1 event=$CLK_R count=5
expect_num "CTR0" "$(cfg_rd64 "$r" "$(ctr 0)")" 3
expect_num "BOX_STATUS: only the ov_en counter" "$(cfg_rd "$r" $BOX_STATUS)" 1
expect_num "UBox status: R3QPI link 1" "$(cat "$DBG/socket0/ubox_status")" 0x200
cfg_wr "$r" $BOX_STATUS 2
expect_num "clearing another bit" "$(cfg_rd "$r" $BOX_STATUS)" 1
cfg_wr "$r" $BOX_STATUS 1
expect_num "cleared" "$(cfg_rd "$r" $BOX_STATUS)" 0
echo 0x200 > "$DBG/socket0/ubox_status"
expect_num "UBox status cleared" "$(cat "$DBG/socket0/ubox_status")" 0
t_end

t_begin "freeze_on_overflow_counts_to_end_of_batch"
q=$(qpi_bdf 1 0)
echo 1 > "$DBG/socket1/freeze_on_ov"
cfg_wr "$q" $BOX_CTL $FRZ_EN
cfg_wr "$q" "$(ctl 0)" $((EN | OV_EN | CLK_Q))
cfg_wr "$q" "$(ctl 1)" $((EN | CLK_Q))
cfg_wr64 "$q" "$(ctr 0)" $(((1 << 48) - 100))
inject event socket=1 box=qpi0 event=$CLK_Q count=150
expect_num "overflowed counter" "$(cfg_rd64 "$q" "$(ctr 0)")" 50
expect_num "sibling" "$(cfg_rd64 "$q" "$(ctr 1)")" 150
expect_num "freeze asserted" "$(cat "$DBG/socket1/freeze")" 1
inject event socket=1 box=qpi0 event=$CLK_Q count=150
expect_num "frozen sibling" "$(cfg_rd64 "$q" "$(ctr 1)")" 150
# restart: clear ov, unfreeze
cfg_wr "$q" $BOX_STATUS 1
echo 0 > "$DBG/socket1/freeze"
inject event socket=1 box=qpi0 event=$CLK_Q count=5
expect_num "counting again" "$(cfg_rd64 "$q" "$(ctr 1)")" 155
t_end

t_begin "threshold_invert_edge"
expect_ok "insmod" qsim snbep sockets=1
q=$(qpi_bdf 0 1)
cfg_wr "$q" "$(ctl 0)" $((EN | $(um 2) | 0x01 | $(th 2)))
cfg_wr "$q" "$(ctl 1)" $((EN | $(um 2) | 0x01 | $(th 2) | INV))
cfg_wr "$q" "$(ctl 2)" $((EN | $(um 2) | 0x01 | $(th 1) | EDGE))
cfg_wr "$q" "$(ctl 3)" $((EN | $(um 2) | 0x01 | $(th 1) | EDGE | INV))
# increments per cycle: 2 2 2 2 2 1 0 0 0 0
inject event socket=0 box=qpi1 event=1 umask=2 count=11 per_cycle=2 cycles=10
expect_num ">= 2" "$(cfg_rd64 "$q" "$(ctr 0)")" 5
expect_num "< 2" "$(cfg_rd64 "$q" "$(ctr 1)")" 5
expect_num "rising edges" "$(cfg_rd64 "$q" "$(ctr 2)")" 1
expect_num "falling edges" "$(cfg_rd64 "$q" "$(ctr 3)")" 1
# 3 cycles of another event: idle for these counters
inject event socket=0 box=qpi1 event=0x14 count=3
inject event socket=0 box=qpi1 event=1 umask=2 count=3 per_cycle=3
expect_num ">= 2 after" "$(cfg_rd64 "$q" "$(ctr 0)")" 6
expect_num "< 2 after" "$(cfg_rd64 "$q" "$(ctr 1)")" 8
expect_num "rising after" "$(cfg_rd64 "$q" "$(ctr 2)")" 2
expect_num "falling after" "$(cfg_rd64 "$q" "$(ctr 3)")" 1
expect_num "undefined writes" "$(cat "$DBG/socket0/qpi1/undef_writes")" 0
cfg_wr "$q" "$(ctl 3)" $((EN | 0x01 | INV))
expect_num "invert with thresh 0 recorded" \
	"$(cat "$DBG/socket0/qpi1/undef_writes")" 1
t_end

t_begin "every_counter_of_every_box"
expect_ok "insmod" qsim ivbep qpi_ports=3 r3qpi_links=3
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	for p in 0 1 2; do
		for i in 0 1 2 3; do
			cfg_wr "$(qpi_bdf "$s" "$p")" "$(ctl $i)" $((EN | CLK_Q))
		done
		for i in 0 1 2; do
			cfg_wr "$(r3_bdf "$s" "$p")" "$(ctl $i)" $((EN | CLK_R))
		done
		inject event socket="$s" box="qpi$p" event=$CLK_Q count=$((s * 10 + p + 1))
		inject event socket="$s" box="r3qpi$p" event=$CLK_R count=$((s * 10 + p + 5))
	done
done
for s in $(seq 0 $((NR_SOCKETS - 1))); do
	for p in 0 1 2; do
		for i in 0 1 2 3; do
			expect_num "s$s qpi$p ctr$i" \
				"$(cfg_rd64 "$(qpi_bdf "$s" "$p")" "$(ctr $i)")" \
				$((s * 10 + p + 1))
		done
		for i in 0 1 2; do
			expect_num "s$s r3qpi$p ctr$i" \
				"$(cfg_rd64 "$(r3_bdf "$s" "$p")" "$(ctr $i)")" \
				$((s * 10 + p + 5))
		done
	done
done
t_end

qpisim_unload
ktap_finish
