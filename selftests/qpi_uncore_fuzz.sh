#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore under a syscall fuzzer: random perf_event_open/ioctl/read/close
# calls with fixed seeds (QPI_FUZZ_CALLS of them, default 3000 per seed).
# Afterwards nothing invalid may have reached a register, and the PMUs must
# still count exactly.  run-vm fails the run on any kernel splat.
. "$(dirname "$0")/lib.sh"

CALLS=${QPI_FUZZ_CALLS:-3000}
SEEDS=${QPI_FUZZ_SEEDS:-"1 2 3"}

nseeds=0
for s in $SEEDS; do nseeds=$((nseeds + 1)); done
ktap_plan $((nseeds + 2))

qpiu_unload
expect_ok "load qpisim" qsim ivbep qpi_ports=3 r3qpi_links=3
expect_ok "load qpi_uncore" qpiu_load
for f in "$DBG"/socket*/*/rsvd_writes "$DBG"/socket*/*/undef_writes; do
	echo 0 > "$f"
done

for s in $SEEDS; do
	t_begin "fuzz_seed_${s}_${CALLS}_calls"
	# traffic while fuzzing, so counters move under the fuzzer
	echo "event socket=0 box=qpi0 event=0x14 count=1000" > "$DBG/inject"
	out=$("$HERE/qpifuzz" "$s" "$CALLS") || fail "qpifuzz exited $?"
	echo "$out"
	echo "$out" | grep -q "opened=[1-9]" || fail "no event ever opened"
	t_end
done

t_begin "nothing_invalid_written"
for f in "$DBG"/socket*/*/rsvd_writes "$DBG"/socket*/*/undef_writes; do
	expect_num "$f" "$(cat "$f")" 0
done
t_end

t_begin "still_counting_exactly"
qperf <<EOT
open a uncore_qpi_2 0x14 socket=1
open b uncore_r3qpi_2 0x01 socket=0
open c uncore_qpi_0 0x200038 socket=0 config1=0x1c00 config2=0x1e00
inject event socket=1 box=qpi2 event=0x14 count=4242
inject event socket=0 box=r3qpi2 event=0x01 count=17
inject packet socket=0 port=0 dir=rx mc=drs count=3
read a
read b
read c
EOT
expect_num "qpi2" "$(val a)" 4242
expect_num "r3qpi2" "$(val b)" 17
expect_num "filtered" "$(val c)" 3
t_end

qpiu_unload
qpisim_unload
ktap_finish
