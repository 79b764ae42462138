#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the selftests on debug kernels, in two tiers.  run-vm
# fails a run on any report in the kernel log.  Each kernel is built on
# first use by build.sh, then cached.
#
#   debug  every selftest on the 6.1 debug kernel (KASAN, lockdep,
#          DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, KUnit), which also builds
#          and runs the KUnit suite (first build about 30 min).
#   rt     the sampling, pacing, multiplexing, life-cycle and hand-over
#          selftests on a PREEMPT_RT kernel with lockdep and
#          DEBUG_ATOMIC_SLEEP, from the newest trixie-backports
#          linux-source, the module built with that kernel's gcc in the
#          trixie chroot (first build 80 min here).
#
# TIERS="debug rt" (the default) picks them: make check-debug TIERS=rt.
# Other arguments go to run-vm, after the tier's own (so --tests overrides;
# in the rt tier it names the tests to boot, one boot each).
# shellcheck disable=SC2317 # the tiers are called as tier_$t
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
tiers=${TIERS:-debug rt}
for t in $tiers; do
	[[ $t == debug || $t == rt ]] || { echo "check.sh: unknown tier '$t' (debug, rt)" >&2; exit 2; }
done

# the user tools the guests run (selftest helpers, qpistat): run-vm is
# told not to build
make -s -C "$repo" tools

# setenv VARS: export the NAME=VALUE lines of build.sh (called as
# vars=$(build.sh ...) first: set -e sees a failure only in an assignment)
setenv() { eval "export $(echo "$1" | paste -sd' ' -)"; }

tier_debug() {
	local vars out
	vars=$("$here/build.sh" debug)
	setenv "$vars"
	out=$repo/.vm/build-$QPI_KVER
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$repo/Kbuild" "$repo/drivers" "$repo/include" "$out/"
	make -s -C "$QPI_KDIR" M="$out" W=1 QPIU_TEST_HOOKS=1 modules
	# KASAN and lockdep slow everything about tenfold: a boot can pass
	# run-vm's 60 s boot watchdog, which would kill a healthy guest, and
	# each perf invocation takes about 20 s, so qpi_uncore_sample.sh alone
	# takes longer than run_tests.sh's default 600 s per test.  The walk
	# of perf's event tables (170 perf runs: about an hour at that pace)
	# tests perf's tables, not the kernel: make check runs it.
	QPI_KO_DIR=$out "$repo/tools/vm/run-vm" --no-build --timeout 7200 \
		--boot-timeout 240 --env QPI_TEST_TIMEOUT=3000 --mem 2048 \
		--skip qpi_uncore_perfnames.sh "$@"
}

tier_rt() {
	local vars rel out
	vars=$("$here/build.sh" rt)
	setenv "$vars"
	# a copy of the tree inside the chroot, built there with the kernel's
	# own compiler (gcc-14), as tools/kernels/build.sh does
	rel=/var/tmp/qpi_uncore-build/$QPI_KVER
	out=$QPI_KROOT$rel
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$repo/Kbuild" "$repo/drivers" "$repo/include" "$out/"
	find "$out" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name 'generated' \) -exec rm -rf {} +
	(cd / && "$repo/tools/kernels/in-root.sh" "$QPI_KROOT" \
		make -s -C "$QPI_KBUILD" M="$rel" W=1 QPIU_TEST_HOOKS=1 modules)
	# No KASAN here, but lockdep, and every interrupt handler a thread:
	# slower than a stock kernel, faster than the debug tier.  Sampling
	# (overflow interrupts, the hrtimer) and the hand-over (intel_uncore
	# unbound and rebound under perf and udev) are where PREEMPT_RT's
	# sleeping spinlocks and threaded handlers change the locking rules.
	# One boot per test: lockdep turns itself off after its first report,
	# and rmmod intel_uncore gives one on 7.x that is intel_uncore's own
	# (run-vm's known_upstream), so each test starts with lockdep on.
	# life.sh (probe, removal, PMU retirement, hotplug) unloads
	# intel_uncore in its last case only.  pace.sh (pacing to perf's
	# limit, the per-CPU bound's hard irq_work) and freeze.sh (perf's
	# multiplexing hrtimer rotating events through add()/del() under the
	# box lock) are where an interrupt thread and a hard hrtimer meet.
	# --tests "A B" picks some of them, still a boot each.
	local t rc=0 tests="qpi_uncore_sample.sh qpi_uncore_pace.sh qpi_uncore_freeze.sh
		qpi_uncore_life.sh qpi_uncore_takeover.sh" args=()
	while [[ $# -gt 0 ]]; do
		case $1 in
		--tests) tests=$2; shift 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	for t in $tests; do
		QPI_KO_DIR=$out "$repo/tools/vm/run-vm" --no-build --timeout 5400 \
			--boot-timeout 240 --env QPI_TEST_TIMEOUT=2400 --mem 2048 \
			--tests "$t" "${args[@]}" || rc=1
	done
	return "$rc"
}

rc=0
summary=()
for t in $tiers; do
	echo "# check-debug: tier $t"
	# a subshell each (the tiers export different kernels), with set -e
	# in force: it would be off in an if condition
	set +e
	(set -e; "tier_$t" "$@")
	r=$?
	set -e
	if [[ $r == 0 ]]; then
		summary+=("ok - check-debug tier $t")
	else
		summary+=("not ok - check-debug tier $t")
		rc=1
	fi
done
printf '%s\n' "${summary[@]}"
exit "$rc"
