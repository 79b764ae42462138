#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: installs what is missing, then runs every test stage and ends
# with one line "N passed, N failed" (N counting individual KTAP test cases).
# Stages: W=1 build, sparse, checkpatch, host unit tests, and the selftests
# in QEMU guests of several shapes.  Exit status 0 only if nothing failed.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo" || exit 1
out=$repo/.vm/check
mkdir -p "$out"

pass=0 fail=0 skip=0
failed=()

# tally FILE KIND RC: count KTAP results of one stage.  "vm" stages count
# the leaf results of each selftest ("# ok N ...") and run-vm's kernel log
# verdict; "flat" stages count top-level "ok N" lines.
tally() {
	local file=$1 kind=$2 rc=$3 p f s
	if [[ $kind == vm ]]; then
		p=$(grep -cE '^# (ok [0-9]+|ok - )' "$file")
		f=$(grep -cE '^# not ok [0-9]+' "$file")
		s=$(grep -cE '^# ok [0-9]+ .*# SKIP' "$file")
		p=$((p - s + $(grep -cE '^ok - kernel log clean' "$file")))
		f=$((f + $(grep -cE '^not ok - kernel log clean' "$file")))
		# A test that died before reporting failed leaves.
		f=$((f + $(grep -cE '^not ok [0-9]+ selftests: .*# (exit=(124|137)|no such)' "$file")))
	else
		p=$(grep -cE '^ok [0-9]+ ' "$file")
		f=$(grep -cE '^not ok [0-9]+ ' "$file")
		s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$file")
		p=$((p - s))
	fi
	if [[ $rc != 0 && $f == 0 ]]; then
		echo "not ok - $(basename "$file" .log) exited $rc"
		f=1
	fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[[ $f == 0 ]] || failed+=("$(basename "$file" .log)")
}

# stage NAME KIND CMD...: run CMD, show and keep its output, tally it
stage() {
	local name=$1 kind=$2 rc
	shift 2
	echo "# ==== $name"
	"$@" 2>&1 | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	tally "$out/$name.log" "$kind" "$rc"
}

build_w1() {
	local log
	log=$(make -C "$repo" W=1 QPIU_TEST_HOOKS=1 modules 2>&1)
	local rc=$?
	echo "$log" | grep -E 'warning:|error:' | sed 's/^/# /'
	if [[ $rc == 0 ]] && ! grep -qE 'warning:|error:' <<< "$log"; then
		echo "ok 1 modules build with W=1, no warnings"
	else
		echo "not ok 1 modules build with W=1, no warnings"
	fi
	make -C "$repo" tools WERROR=1 > /dev/null 2>&1 && echo "ok 2 user tools build (selftest helpers, qpistat)" ||
		echo "not ok 2 user tools build (selftest helpers, qpistat)"
	route_builds
}

# scratch DIR: a fresh copy of what the modules build from
scratch() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -a "$repo/Kbuild" "$repo/drivers" "$repo/include" "$1/"
}

# The sample routes these kernels do not take (qpi_uncore_sample.c), in a
# copy of the tree: "none" builds a module that counts and refuses
# sampling; "overflow" (perf_event_overflow, not exported here) can only
# be compiled, not linked.
route_builds() {
	local kdir w=$out/routes log
	kdir=$(tools/vm/kdir.sh)
	scratch "$w"
	if log=$(make -C "$kdir" M="$w" W=1 QPIU_SAMPLE_ROUTE=none modules 2>&1) &&
	   ! grep -qE 'warning:|error:' <<< "$log" &&
	   ! nm "$w/drivers/qpi_uncore/qpi_uncore.ko" | grep -qE ' U perf_(tp_event|event_overflow)$'; then
		echo "ok 3 QPIU_SAMPLE_ROUTE=none builds with W=1, no sample route linked"
	else
		grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
		echo "not ok 3 QPIU_SAMPLE_ROUTE=none builds with W=1, no sample route linked"
	fi
	if log=$(make -C "$kdir" M="$w" W=1 QPIU_SAMPLE_ROUTE=overflow \
			drivers/qpi_uncore/qpi_uncore_sample.o 2>&1) &&
	   ! grep -qE 'warning:|error:' <<< "$log" &&
	   nm "$w/drivers/qpi_uncore/qpi_uncore_sample.o" | grep -qE ' U perf_event_overflow$'; then
		echo "ok 4 QPIU_SAMPLE_ROUTE=overflow compiles with W=1 and calls perf_event_overflow"
	else
		grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
		echo "not ok 4 QPIU_SAMPLE_ROUTE=overflow compiles with W=1 and calls perf_event_overflow"
	fi
	conftest_refusal 5 "hrtimer_setup hrtimer_init" \
		'qpi_uncore: these kernel headers lack hrtimer_setup or hrtimer_init (conftest/*.c), needed for the box timer'
	conftest_refusal 6 "pmu_cpu_context cpu_pmu_context cpu_pmu_context_ref" \
		'qpi_uncore: these kernel headers lack pmu_cpu_context or cpu_pmu_context or cpu_pmu_context_ref (conftest/*.c), needed for stopping the multiplexing timers of a PMU before perf_pmu_unregister()'
	conftest_fallbacks
	symvers_missing
}

# conftest_refusal N HIDE LINE: headers that lack an API the module needs
# stop the build with conftest.sh's one LINE, before any compiler error
# (the probes HIDE of drivers/qpi_uncore/conftest/ stand in for such
# headers here).
conftest_refusal() {
	local kdir w=$out/conftest log n=$1 hide=$2 line=$3
	kdir=$(tools/vm/kdir.sh)
	scratch "$w"
	log=$(make -C "$kdir" M="$w" QPIU_CONFTEST_HIDE="$hide" modules 2>&1)
	local rc=$?
	if [[ $rc != 0 ]] && ! grep -q 'error:' <<< "$log" &&
	   [[ $(grep -c '^qpi_uncore: ' <<< "$log") == 1 ]] &&
	   grep -qxF "$line" <<< "$log"; then
		echo "ok $n headers without $hide: one line names them, no compiler error"
	else
		sed 's/^/# /' <<< "$log" | tail -n 20
		echo "not ok $n headers without $hide: one line names them, no compiler error"
	fi
}

# The older names the module falls back to (qpi_uncore_compat.h) where
# the newer are missing, hidden here: a W=1 build with no warning.
conftest_fallbacks() {
	local kdir w=$out/fallbacks log hide="hrtimer_setup msr_q system_percpu_wq timer_delete_sync"
	kdir=$(tools/vm/kdir.sh)
	scratch "$w"
	if log=$(make -C "$kdir" M="$w" W=1 QPIU_CONFTEST_HIDE="$hide" modules 2>&1) &&
	   ! grep -qE 'warning:|error:' <<< "$log"; then
		echo "ok 7 headers without $hide: the fallbacks build with W=1, no warnings"
	else
		grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
		echo "not ok 7 headers without $hide: the fallbacks build with W=1, no warnings"
	fi
}

# A kernel build dir without Module.symvers (this one's, linked, less that
# file): the exports are unknown, so the module builds counting only, no
# sample route linked, and conftest.sh says so in exactly one warning line
# (kbuild's own warnings about the missing file are upper case).
symvers_missing() {
	local kdir w=$out/nosymvers log ko
	kdir=$(readlink -f "$(tools/vm/kdir.sh)")
	scratch "$w/src"
	rm -rf "$w/kdir"
	cp -as "$kdir/." "$w/kdir" && rm "$w/kdir/Module.symvers"
	ko=$w/src/drivers/qpi_uncore/qpi_uncore.ko
	if log=$(make -C "$w/kdir" M="$w/src" W=1 modules 2>&1) &&
	   [[ $(grep -c 'warning:' <<< "$log") == 1 ]] &&
	   grep -qxF "qpi_uncore: warning: no $w/kdir/Module.symvers, so the kernel's exports are unknown: building a module that counts but cannot sample (QPIU_SAMPLE_ROUTE=overflow or tp chooses a route)" <<< "$log" &&
	   ! nm "$ko" | grep -qE ' U perf_(tp_event|event_overflow)$'; then
		echo "ok 8 no Module.symvers: one warning line, a module that counts only"
	else
		grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
		echo "not ok 8 no Module.symvers: one warning line, a module that counts only"
	fi
}

# The tree's modules as the guests want them: QPIU_TEST_HOOKS, which a
# production build (make install) lacks; kbuild rebuilds on the changed
# flags.  The hook parameters are there, or the tests that need them skip.
test_build() {
	local log ko=$repo/drivers/qpi_uncore/qpi_uncore.ko
	if log=$(make -C "$repo" QPIU_TEST_HOOKS=1 modules 2>&1) &&
	   modinfo -p "$ko" | grep -q '^test_resched_busy:' &&
	   modinfo -p "$ko" | grep -q '^test_destroy_delay_ms:'; then
		echo "ok 1 the guests' modules are the test build (QPIU_TEST_HOOKS)"
	else
		tail -n 20 <<< "$log" | sed 's/^/# /'
		echo "not ok 1 the guests' modules are the test build (QPIU_TEST_HOOKS)"
	fi
}

sparse_check() {
	local log
	log=$(make -C "$repo" sparse 2>&1)
	local rc=$?
	grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
	if [[ $rc == 0 ]] && ! grep -qE 'warning:|error:' <<< "$log"; then
		echo "ok 1 sparse C=2 clean"
	else
		echo "not ok 1 sparse C=2 clean"
	fi
}

# The kernel matrix (tools/matrix.sh): one stage a line of its plan, in
# two lanes: lane 2 beside the host's stages, lane 1 after them, since each
# guest keeps one core busy and the host has two.  A stage's output is
# shown, and tallied, when its lane is done.
plan_lane() {
	local lane name cmd
	while read -r lane name cmd; do
		[[ -n $name && $lane == "$1" ]] || continue
		SECONDS=0
		eval "$cmd" > "$out/$name.log" 2>&1 < /dev/null
		echo "$? $SECONDS" > "$out/$name.rc"
	done < "$out/plan"
}

plan_tally() {
	local lane name cmd kind rc secs
	while read -r lane name cmd; do
		[[ -n $name && $lane == "$1" ]] || continue
		echo "# ==== $name"
		cat "$out/$name.log"
		read -r rc secs < "$out/$name.rc" || rc=1
		echo "# $name: ${secs:-?} s"
		kind=vm
		[[ $name != *-dkms ]] || kind=flat
		tally "$out/$name.log" "$kind" "$rc"
	done < "$out/plan"
}

# plan KERNELS...: write the matrix plan; a failure to make it is a result
plan() {
	if ! tools/matrix.sh plan "$@" > "$out/plan" 2> "$out/plan.log"; then
		cat "$out/plan.log"
		echo "not ok 1 the kernel matrix could be provisioned" > "$out/plan-failed.log"
		: > "$out/plan"
		tally "$out/plan-failed.log" flat 1
	fi
}

summary() {
	echo "# ==== summary"
	[[ ${#failed[@]} == 0 ]] || echo "# failing stages: ${failed[*]}"
	if [[ $skip != 0 ]]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[[ $fail == 0 ]]
}

tools/vm/deps.sh || { echo "check: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

# make check-kernels KERNELS="...": the matrix for those kernels alone
if [[ ${1:-} == --kernels ]]; then
	shift
	plan "$@"
	plan_lane 2 &
	lane=$!
	plan_lane 1
	plan_tally 1
	wait "$lane"
	plan_tally 2
	summary
	exit
fi

plan
plan_lane 2 &
lane=$!
export QPI_KVER=${QPI_KVER:-$(tools/vm/kver.sh)}
# the counting-only build of route_builds, loaded by qpi_uncore_sample.sh
export QPI_NOROUTE_KO=$out/routes/drivers/qpi_uncore/qpi_uncore.ko

stage build flat build_w1
stage sparse flat sparse_check
stage checkpatch flat tools/checkpatch.sh
stage unittest flat make -s -C tools/unittest run
# qpistat's HTTP parser, server, command line and build, one result per
# case; rebuilt with -Werror, which users' builds do not get
stage qpistat-unit flat make -s -B -C tools/qpistat test WERROR=1
stage packaging flat tools/packaging/test.sh
# make install (packaging) rebuilt the tree's modules as users get them;
# the guests below load the tree's modules as they are (--no-build) and
# need the test build's knobs
stage test-build flat test_build
# A stage's timeout is there to catch a wedged guest, not to pace it: the
# whole suite takes about 8 minutes on an idle two-core host.
stage vm-snbep-2s vm tools/vm/run-vm --platform snbep --sockets 2 --no-build --timeout 1800
stage vm-ivbep-2s vm tools/vm/run-vm --platform ivbep --sockets 2 --no-build --timeout 1800
stage vm-snbep-4s vm tools/vm/run-vm --platform snbep --sockets 4 --cores 1 --no-build \
	--tests "qpisim_topology.sh qpisim_count.sh qpi_uncore_count.sh qpisim_links.sh qpi_uncore_mapping.sh"
stage vm-snbep-hv vm tools/vm/run-vm --platform snbep --hypervisor --no-build \
	--tests "qpi_uncore_hypervisor.sh"
stage vm-nhmex vm tools/vm/run-vm --platform nhmex --no-build \
	--tests "qpi_uncore_sbox.sh"
# the takeover from intel_uncore on E5 v3 and v4, whose intel_uncore
# drivers and PCI IDs differ (the 2s stages cover v1 and v2), and
# qpistat's plan there: each direction counted where it is sent
stage vm-hswep vm tools/vm/run-vm --platform hswep --no-build --tests "qpi_uncore_takeover.sh qpistat_plan.sh"
stage vm-bdx vm tools/vm/run-vm --platform bdx --no-build --tests "qpi_uncore_takeover.sh qpistat_plan.sh qpisim_links.sh qpi_uncore_mapping.sh"
# qpisim's default link map of four 3-port sockets, a full mesh, counted
# by perf at both ends of every link (HSX's qpisim_links.sh run)
stage vm-hswep-4s vm tools/vm/run-vm --platform hswep --sockets 4 --cores 1 --no-build \
	--tests "qpisim_links.sh qpi_uncore_mapping.sh"
# qpistat --listen scraped by a real Prometheus on host loopback, the rules
stage prometheus flat tools/prometheus/test.sh

plan_lane 1
plan_tally 1
wait "$lane"
plan_tally 2
summary
