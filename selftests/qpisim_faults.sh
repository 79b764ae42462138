#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim fault knobs and the fast-counter mode: functions that read all-ones,
# hot removal and re-add through the PCI core, counters that move on every
# config access, and rejection of malformed injections.
. "$(dirname "$0")/lib.sh"

ktap_plan 6

expect_ok "insmod" qsim snbep
q=$(qpi_bdf 1 0)
F=$DBG/socket1/qpi0

t_begin "all_ones_reads_and_dropped_writes"
cfg_wr "$q" "$(ctl 0)" $((EN | 0x14))
echo 1 > "$F/all_ones"
expect_num "vendor/device" "$(cfg_rd "$q" 0)" 0xffffffff
expect_num "CTL0" "$(cfg_rd "$q" "$(ctl 0)")" 0xffffffff
expect_num "CTR0" "$(cfg_rd64 "$q" "$(ctr 0)")" 0xffffffffffffffff
cfg_wr "$q" "$(ctl 0)" 0
inject event socket=1 box=qpi0 event=0x14 count=9
echo 0 > "$F/all_ones"
expect_num "CTL0 unchanged" "$(cfg_rd "$q" "$(ctl 0)")" $((EN | 0x14))
expect_num "counted while unreadable" "$(cfg_rd64 "$q" "$(ctr 0)")" 9
t_end

t_begin "hot_remove_and_readd"
r=$(r3_bdf 0 1)
cfg_wr "$r" "$(ctl 0)" $((EN | 0x01))
echo 0 > "$DBG/socket0/r3qpi1/present"
[ -e "/sys/bus/pci/devices/$r" ] && fail "$r still present"
expect_eq "present" "$(cat "$DBG/socket0/r3qpi1/present")" 0
[ -e "/sys/bus/pci/devices/$(r3_bdf 0 0)" ] || fail "sibling function removed"
inject event socket=0 box=r3qpi1 event=0x01 count=4
echo 1 > "$DBG/socket0/r3qpi1/present"
[ -e "/sys/bus/pci/devices/$r" ] || fail "$r not re-added"
expect_eq "device" "$(cat "/sys/bus/pci/devices/$r/device")" 0x3c45
expect_num "state kept across removal" "$(cfg_rd64 "$r" "$(ctr 0)")" 4
echo 0 > "$DBG/socket1/qpi0_mm/present"
[ -e "/sys/bus/pci/devices/$(mm_bdf 1 0)" ] && fail "mask/match still present"
echo 1 > "$DBG/socket1/qpi0_mm/present"
t_end

t_begin "fast_count_moves_on_every_access"
cfg_wr "$q" $BOX_CTL $RST_CTRS
echo $((0x40000000)) > "$DBG/fast_count"
v1=$(cfg_rd64 "$q" "$(ctr 0)")
v2=$(cfg_rd64 "$q" "$(ctr 0)")
echo 0 > "$DBG/fast_count"
# low read after one step, high read after two; then steps three and four
expect_num "first read" "$v1" 0x40000000
expect_num "second read" "$v2" 0x1c0000000
expect_num "idle again" "$(cfg_rd64 "$q" "$(ctr 0)")" 0x100000000
t_end

t_begin "bad_injections_rejected_with_message"
expect_ok "reset" cfg_wr "$q" $BOX_CTL $RST_CTRS
dmesg_mark
expect_err "unknown box" "Invalid argument" inject event socket=0 box=qpi7 event=1 count=1
expect_dmesg "box message" "qpisim: inject: box=qpi7: socket 0 has qpi0..qpi1 and r3qpi0..r3qpi1"
expect_err "socket" "Invalid argument" inject event socket=5 box=qpi0 event=1 count=1
expect_dmesg "socket message" "socket=5: the model has 2 sockets"
expect_err "flits" "Invalid argument" inject packet socket=0 port=0 dir=rx mc=drs flits=40 count=1
expect_dmesg "flits message" "flits=40: must be a number 0..16"
expect_err "cycles" "Invalid argument" inject event socket=1 box=qpi0 event=0x14 count=10 per_cycle=2 cycles=3
expect_err "verb" "Invalid argument" inject flood socket=0
expect_err "key" "Invalid argument" inject event socket=1 box=qpi0 event=0x14 count=1 colour=red
expect_num "nothing counted" "$(cfg_rd64 "$q" "$(ctr 0)")" 0
t_end

t_begin "multi_line_inject_stops_at_first_error"
printf 'event socket=1 box=qpi0 event=0x14 count=3\nevent socket=1 box=qpi0 event=0x14 count=x\nevent socket=1 box=qpi0 event=0x14 count=5\n' \
	> /tmp/cmds
expect_err "batch" "Invalid argument" sh -c "cat /tmp/cmds > $DBG/inject"
expect_num "first line applied only" "$(cfg_rd64 "$q" "$(ctr 0)")" 3
t_end

t_begin "knob_values_validated"
expect_err "freeze=2" "Invalid argument" sh -c "echo 2 > $DBG/socket0/freeze"
expect_err "present=2" "Invalid argument" sh -c "echo 2 > $DBG/socket0/qpi0/present"
expect_err "all_ones=Y" "Invalid argument" sh -c "echo Y > $DBG/socket0/qpi0/all_ones"
expect_num "freeze unchanged" "$(cat $DBG/socket0/freeze)" 0
t_end

qpisim_unload
ktap_finish
