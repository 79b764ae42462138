#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim register semantics through PCI config space, as a driver sees them:
# reset values, writable and reserved bits, write-only bits, resets, counter
# widths, mask/match registers, access statistics and the write log.
. "$(dirname "$0")/lib.sh"

ktap_plan 11

expect_ok "insmod" qsim snbep
q=$(qpi_bdf 0 0)
r=$(r3_bdf 1 1)
mm=$(mm_bdf 0 0)
FN0=$DBG/socket0/qpi0
FN1=$DBG/socket1/r3qpi1

t_begin "reset_values_are_zero"
for i in 0 1 2 3; do
	expect_num "qpi CTL$i" "$(cfg_rd "$q" "$(ctl $i)")" 0
	expect_num "qpi CTR$i" "$(cfg_rd64 "$q" "$(ctr $i)")" 0
done
for i in 0 1 2; do
	expect_num "r3qpi CTL$i" "$(cfg_rd "$r" "$(ctl $i)")" 0
	expect_num "r3qpi CTR$i" "$(cfg_rd64 "$r" "$(ctr $i)")" 0
done
expect_num "BOX_STATUS" "$(cfg_rd "$q" $BOX_STATUS)" 0
t_end

t_begin "qpi_ctl_fields_and_reserved_bits"
echo 0 > "$FN0/rsvd_writes"
cfg_wr "$q" "$(ctl 0)" $((EN | EXT | INV | EDGE | $(th 3) | $(um 0x12) | 0x34))
expect_num "CTL0" "$(cfg_rd "$q" "$(ctl 0)")" 0x03e41234
expect_num "no violation" "$(cat "$FN0/rsvd_writes")" 0
cfg_wr "$q" "$(ctl 1)" 0xffffffff
# bits 16, 19, 20 reserved; rst (17) is write-only
expect_num "CTL1 all ones" "$(cfg_rd "$q" "$(ctl 1)")" 0xffe4ffff
expect_num "reserved-bit writes" "$(cat "$FN0/rsvd_writes")" 1
t_end

t_begin "r3qpi_ctl_has_no_invert_ext_or_ctl3"
echo 0 > "$FN1/rsvd_writes"
cfg_wr "$r" "$(ctl 2)" 0xffffffff
expect_num "CTL2 all ones" "$(cfg_rd "$r" "$(ctl 2)")" 0xff44ffff
cfg_wr "$r" 0xe4 1
expect_num "CTL3 absent" "$(cfg_rd "$r" 0xe4)" 0
expect_num "reserved-bit writes" "$(cat "$FN1/rsvd_writes")" 2
t_end

t_begin "box_ctl_write_only_and_resets"
cfg_wr64 "$q" "$(ctr 2)" 0x123456789abc
cfg_wr "$q" "$(ctl 2)" $((EN | 0x14))
cfg_wr "$q" $BOX_CTL $((FRZ | FRZ_EN))
expect_num "BOX_CTL reads zero" "$(cfg_rd "$q" $BOX_CTL)" 0
grep -qx "frz=1" "$FN0/regs" || fail "frz not latched"
grep -qx "frz_en=1" "$FN0/regs" || fail "frz_en not latched"
cfg_wr "$q" $BOX_CTL $RST_CTRS
expect_num "CTR2 after rst_ctrs" "$(cfg_rd64 "$q" "$(ctr 2)")" 0
expect_num "CTL2 kept" "$(cfg_rd "$q" "$(ctl 2)")" $((EN | 0x14))
grep -qx "frz=0" "$FN0/regs" || fail "frz not cleared by a write without it"
cfg_wr "$q" $BOX_CTL $RST_CTRL
expect_num "CTL2 after rst_ctrl" "$(cfg_rd "$q" "$(ctl 2)")" 0
t_end

t_begin "per_counter_rst"
cfg_wr64 "$q" "$(ctr 0)" 1111
cfg_wr64 "$q" "$(ctr 1)" 2222
cfg_wr "$q" "$(ctl 1)" $((RST | EN | 0x14))
expect_num "CTR0 untouched" "$(cfg_rd64 "$q" "$(ctr 0)")" 1111
expect_num "CTR1 cleared" "$(cfg_rd64 "$q" "$(ctr 1)")" 0
expect_num "rst reads zero" "$(cfg_rd "$q" "$(ctl 1)")" $((EN | 0x14))
t_end

t_begin "counter_widths_48_and_44"
echo 0 > "$FN0/rsvd_writes"
echo 0 > "$FN1/rsvd_writes"
cfg_wr64 "$q" "$(ctr 3)" 0xffffffffffffffff
cfg_wr64 "$r" "$(ctr 0)" 0xffffffffffffffff
expect_num "QPI CTR3" "$(cfg_rd64 "$q" "$(ctr 3)")" 0xffffffffffff
expect_num "R3QPI CTR0" "$(cfg_rd64 "$r" "$(ctr 0)")" 0xfffffffffff
expect_num "QPI high-dword violation" "$(cat "$FN0/rsvd_writes")" 1
expect_num "R3QPI high-dword violation" "$(cat "$FN1/rsvd_writes")" 1
t_end

t_begin "mask_match_registers"
cfg_wr "$mm" 0x228 $((0xe << 9 | 1 << 13))
cfg_wr "$mm" 0x238 0x3fe00
cfg_wr "$mm" 0x22c 0x80000
cfg_wr "$mm" 0x23c 0xf0000
expect_num "MATCH0" "$(cfg_rd "$mm" 0x228)" 0x3c00
expect_num "MASK0" "$(cfg_rd "$mm" 0x238)" 0x3fe00
expect_num "MATCH1" "$(cfg_rd "$mm" 0x22c)" 0x80000
expect_num "MASK1" "$(cfg_rd "$mm" 0x23c)" 0xf0000
expect_num "no violation" "$(cat "$DBG/socket0/qpi0_mm/rsvd_writes")" 0
cfg_wr "$mm" 0x228 0xffffffff
cfg_wr "$mm" 0x22c 0xffffffff
expect_num "MATCH0 reserved dropped" "$(cfg_rd "$mm" 0x228)" 0x8003fff8
expect_num "MATCH1 reserved dropped" "$(cfg_rd "$mm" 0x22c)" 0x000f000f
expect_num "violations" "$(cat "$DBG/socket0/qpi0_mm/rsvd_writes")" 2
t_end

t_begin "ubox_registers_read_only"
u=$(bdf 0 0xb 0)
cfg_wr "$u" 0x40 5
cfg_wr "$u" 0x54 0
expect_num "CPUNODEID" "$(cfg_rd "$u" 0x40)" 0
expect_num "GIDNIDMAP" "$(cfg_rd "$u" 0x54)" 0xfac688
expect_num "violations" "$(cat "$DBG/socket0/ubox/rsvd_writes")" 2
t_end

t_begin "access_statistics_exact"
echo 0 > "$FN1/reads"
echo 0 > "$FN1/writes"
cfg_rd "$r" "$(ctl 0)" > /dev/null
cfg_rd64 "$r" "$(ctr 0)" > /dev/null
cfg_wr "$r" "$(ctl 0)" 0
expect_num "reads" "$(cat "$FN1/reads")" 3
expect_num "writes" "$(cat "$FN1/writes")" 1
t_end

t_begin "write_log"
echo clear > "$DBG/log"
cfg_wr "$q" "$(ctl 3)" $((EN | 0x14))
cfg_wr "$r" $BOX_CTL $FRZ_EN
expect_num "entries" "$(wc -l < "$DBG/log")" 2
expect_eq "first" "$(sed -n 1p "$DBG/log")" \
	"0 socket=0 7f:08.2 where=0x0e4 size=4 val=0x00400014"
expect_eq "second" "$(sed -n 2p "$DBG/log")" \
	"1 socket=1 ff:13.6 where=0x0f4 size=4 val=0x00010000"
t_end

t_begin "ivbep_r3qpi_and_qpi_ov_en"
expect_ok "insmod ivbep" qsim ivbep
cfg_wr "$(r3_bdf 0 0)" "$(ctl 0)" 0xffffffff
expect_num "R3QPI CTL0" "$(cfg_rd "$(r3_bdf 0 0)" "$(ctl 0)")" 0xff54ffff
cfg_wr "$(qpi_bdf 0 1)" "$(ctl 0)" 0xffffffff
expect_num "QPI CTL0" "$(cfg_rd "$(qpi_bdf 0 1)" "$(ctl 0)")" 0xfff4ffff
t_end

qpisim_unload
ktap_finish
