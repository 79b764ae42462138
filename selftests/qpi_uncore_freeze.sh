#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What sampling costs a counting event of the same box: qpisim traffic that
# arrives at a rate, about 1000 samples/s with perf record -c beside a
# perf stat counting event.  The driver freezes the box to take a snapshot
# and re-arm; traffic that arrives meanwhile is lost to every counter of the
# box.  The count must be exactly what arrived less what the model says was
# lost while frozen, and each frozen window may hold only the snapshot and
# re-arm accesses: no sample may be written while the box is frozen.
. "$(dirname "$0")/lib.sh"

ktap_plan 3

P=/tmp/qpifrz
mkdir -p $P
F=$DBG/socket0/qpi0/frozen
# 1000000 clockticks and data flits a second; a sample every 1000 clockticks
PER_S=1000000
PERIOD=1000
SECS=${QPI_FREEZE_SECS:-3}

qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load

r0=$(socket_reader uncore_qpi_0 0)

# kv KEY FILE: the value of KEY=value in a frozen/regs file
kv() { sed -n "s/^$1=//p" "$2"; }
# stream_kv EVENT KEY FILE: KEY of the stream of EVENT in a frozen file
stream_kv()
{
	awk -v e="event=$1" -v k="$2" '$1 == "stream" && $2 == e {
		for (i = 3; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$3"
}

# run_case RECORD-EVENTS: perf stat counts data flits of socket 0's port 0
# while perf record samples RECORD-EVENTS every 1000; the traffic runs for
# SECS seconds.  The workload runs on the reader: the model's statistics
# are reset and read between two looks of the box timer, never inside a
# frozen window.
run_case()
{
	rm -f $P/frozen $P/regs $P/stat $P/rec
	perf stat -a -x, -o $P/stat -e uncore_qpi_0/event=0x1,umask=0x2/ -- \
		perf record -q -a -o $P/rec -c $PERIOD -e "$1" -- \
		taskset -c "$r0" sh -c "
		echo 0 > $F
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=$PER_S\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=$PER_S\n' > $DBG/inject
		sleep $SECS
		printf 'rate socket=0 box=qpi0 event=0x14 per_s=0\nrate socket=0 box=qpi0 event=0x01 umask=0x02 per_s=0\n' > $DBG/inject
		cat $DBG/socket0/qpi0/regs > $P/regs
		cat $F > $P/frozen" > $P/out 2>&1 ||
		fail "perf: $(tail -n 3 $P/out)"
	sed 's/^/# frozen: /' $P/frozen
}

# check_case LABEL COUNTING: the count against the model, and the accesses
# of every frozen window against the snapshot and re-arm of a box with one
# sampling event and COUNTING other running events
check_case()
{
	counted=$(cut -d, -f1 < $P/stat | grep -E '^[0-9]+$')
	arrived=$(stream_kv 0x01 arrived $P/frozen)
	lost=$(stream_kv 0x01 lost $P/frozen)
	windows=$(kv windows $P/frozen)
	accesses=$(kv accesses $P/frozen)
	n=$(perf script -i $P/rec -F cpu 2> /dev/null | grep -c .)
	expect_num "$1: data flits counted = arrived $arrived - lost $lost" \
		"$counted" $((arrived - lost))
	[ "${windows:-0}" -gt 0 ] || fail "$1: the box was never frozen"
	[ "$n" -gt 0 ] || fail "$1: no samples"
	# The snapshot: each running event read once more, frozen (3 reads
	# each: high, low, high; the sampling one was read before freezing),
	# BOX_STATUS read and cleared where a counter has ov_en.  The re-arm:
	# the sampling counter's two dwords, then the unfreeze write.
	ov_rd=0 ov_clr=0
	for c in $(sed -n 's/^ctl[0-3]=//p' $P/regs); do
		if [ $((c & EN)) -ne 0 ] && [ $((c & OV_EN)) -ne 0 ]; then
			ov_rd=1
			[ $((c & 0xff)) -eq $((0x14)) ] && ov_clr=1
		fi
	done
	bound=$((3 * (1 + $2) + ov_rd + ov_clr + 2 + 1))
	# Other windows hold fewer: perf's unthrottle at a tick brackets a
	# start that finds the event running (only the unfreeze), a look that
	# finds the period of an event another CPU samples (no re-arm).
	expect_num "$1: most config accesses in one frozen window" \
		"$(kv max_window_accesses $P/frozen)" $bound
	full=$(kv window_accesses $P/frozen | tr ' ' '\n' | sed -n "s/^$bound://p")
	[ "${full:-0}" -gt 0 ] || fail "$1: no window of $bound accesses: $(kv window_accesses $P/frozen)"
	fns=$(kv frozen_ns $P/frozen)
	echo "# $1: $n samples, $windows frozen windows, $((fns / (windows ? windows : 1))) ns frozen per window (longest $(kv max_window_ns $P/frozen) ns), $((accesses / (windows ? windows : 1))) accesses per window"
	echo "# $1: counting event lost $lost of $arrived data flits ($((lost / (n ? n : 1))) per sample, $(awk -v l="$lost" -v a="$arrived" 'BEGIN { printf "%.0f", a ? 1e6 * l / a : 0 }') ppm)"
}

t_begin "counting_beside_sampling_loses_only_the_snapshot"
run_case uncore_qpi_0/clockticks/
check_case "beside sampling" 1
t_end

# perf reads a sampling group's members through pmu->read() as it writes
# each sample: after the re-arm, with the box counting again.
t_begin "group_members_read_after_unfreezing"
run_case '{uncore_qpi_0/clockticks/,uncore_qpi_0/event=0x1,umask=0x2/}:S'
check_case "group sample" 2
t_end

t_begin "frozen_statistics_interface"
expect_err "write 1 to frozen" "Invalid argument" sh -c "echo 1 > $F"
expect_ok "write 0 to frozen" sh -c "echo 0 > $F"
expect_eq "no streams after a reset" "$(grep -c '^stream' "$F")" 0
expect_num "windows after a reset" "$(kv windows "$F")" 0
dmesg_mark
expect_err "rate without per_s" "Invalid argument" \
	sh -c "echo 'rate socket=0 box=qpi0 event=0x14' > $DBG/inject"
expect_dmesg "message" "inject: per_s= is required"
expect_err "rate above the limit" "Invalid argument" \
	sh -c "echo 'rate socket=0 box=qpi0 event=0x14 per_s=4000000001' > $DBG/inject"
expect_dmesg "message" "inject: per_s=4000000001: must be a number 0..4000000000"
t_end

qpiu_unload
qpisim_unload
ktap_finish
