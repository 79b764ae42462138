#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore on Xeon E5 v3 (HSX) and v4 (BDX): every box of every socket,
# their event lists and restrictions, the 48-bit BDX R3QPI counters; and the
# fold timer, which must catch a wrap that no read sees.
. "$(dirname "$0")/lib.sh"

ktap_plan 4

t_begin "hswep_boxes_events_restrictions"
qpiu_unload
expect_ok "load qpisim" qsim hswep qpi_ports=3 r3qpi_links=3
expect_ok "load qpi_uncore" qpiu_load
every_box hswep
expect_num "QPI aliases" "$(nr_aliases uncore_qpi_0)" $((151 + 3 + 1))
expect_num "R3QPI aliases" "$(nr_aliases uncore_r3qpi_2)" $((147 + 1))
qperf <<EOT
open a uncore_r3qpi_1 0x2a socket=0
open b uncore_r3qpi_1 0x2b socket=0 group=a
open c uncore_r3qpi_1 0x01 socket=0 group=a
EOT
expect_eq "0x2a and 0x2b share counter 0 only" "$(err b)" $EINVAL
expect_eq "0x2a with clockticks" "$(opened c)" yes
t_end

t_begin "hswep_r3qpi_44_bits"
qperf <<EOT
open r uncore_r3qpi_2 0x01 socket=1
inject event socket=1 box=r3qpi2 event=0x01 count=$(((1 << 44) - 4))
read r
inject event socket=1 box=r3qpi2 event=0x01 count=9
read r
EOT
expect_num "across 2^44" "$(val r)" $(((1 << 44) + 5))
t_end

t_begin "bdx_boxes_and_48_bit_r3qpi"
qpiu_unload
expect_ok "load qpisim" qsim bdx qpi_ports=3 r3qpi_links=3
expect_ok "load qpi_uncore" qpiu_load
every_box bdx
expect_num "R3QPI aliases" "$(nr_aliases uncore_r3qpi_0)" $((150 + 1))
qperf <<EOT
open r uncore_r3qpi_0 0x01 socket=0
inject event socket=0 box=r3qpi0 event=0x01 count=$(((1 << 48) - 3))
read r
inject event socket=0 box=r3qpi0 event=0x01 count=8
read r
EOT
expect_num "R3QPI across 2^48" "$(val r)" $(((1 << 48) + 5))
grep -qx "width=48" "$DBG/socket0/r3qpi0/regs" || fail "model R3QPI width is not 48"
expect_eq "port 2 mask/match bound" \
	"$(basename "$(readlink "/sys/bus/pci/devices/$(mm_bdf 0 2)/driver")")" qpi_uncore
t_end

# 44-bit R3QPI counters are folded every 11.5 s.  A wrap between two user
# reads is only counted right if the timer read the counter in between.
t_begin "fold_timer_catches_unseen_wrap"
qpiu_unload
expect_ok "load qpisim" qsim snbep
expect_ok "load qpi_uncore" qpiu_load
qperf <<EOT
open r uncore_r3qpi_0 0x01 socket=0
inject event socket=0 box=r3qpi0 event=0x01 count=$(((1 << 44) - 10))
sh sleep 13
inject event socket=0 box=r3qpi0 event=0x01 count=30
read r
EOT
expect_num "count across an unseen wrap" "$(val r)" $(((1 << 44) + 20))
t_end

qpiu_unload
qpisim_unload
ktap_finish
