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

# the seconds of each stage that ran, "NAME SECONDS WHERE" (host or guest
# for a stage run before the lanes, else the lane), for the table at the end
times=()

# stage NAME KIND CMD...: run CMD, show and keep its output, tally it
stage() {
	local name=$1 kind=$2 rc t0=$EPOCHSECONDS
	shift 2
	echo "# ==== $name"
	"$@" 2>&1 | tee "$out/$name.log"
	rc=${PIPESTATUS[0]}
	times+=("$name $((EPOCHSECONDS - t0)) $([[ $kind == vm ]] && echo guest || echo host)")
	tally "$out/$name.log" "$kind" "$rc"
}

# build_w1 [--quick]: the modules with W=1, the user tools, and (not with
# --quick) the builds of the other sample routes and conftest outcomes
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
	[[ ${1:-} == --quick ]] || route_builds
}

# scratch DIR: a fresh copy of what qpi_uncore.ko builds from; not qpisim,
# which none of these builds is about
scratch() {
	rm -rf "$1"
	mkdir -p "$1/drivers"
	cp -a "$repo/include" "$1/"
	cp -a "$repo/drivers/qpi_uncore" "$1/drivers/"
	find "$1/drivers" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name 'generated' -o -name 'modules.order' \) -exec rm -rf {} +
	echo 'obj-m += drivers/qpi_uncore/' > "$1/Kbuild"
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
# production build (make install) lacks.  The build stage made them with
# these flags after packaging's make install: kbuild has nothing to do
# unless a stage between rebuilt them otherwise.  The hook parameters are
# there, or the tests that need them skip.
test_build() {
	local log ko=$repo/drivers/qpi_uncore/qpi_uncore.ko
	if log=$(make -C "$repo" W=1 QPIU_TEST_HOOKS=1 modules 2>&1) &&
	   modinfo -p "$ko" | grep -q '^test_resched_busy:' &&
	   modinfo -p "$ko" | grep -q '^test_destroy_delay_ms:'; then
		echo "ok 1 the guests' modules are the test build (QPIU_TEST_HOOKS)"
	else
		tail -n 20 <<< "$log" | sed 's/^/# /'
		echo "not ok 1 the guests' modules are the test build (QPIU_TEST_HOOKS)"
	fi
	percpu_unrelocated 2 "$repo"/drivers/*/*.ko
}

# percpu_unrelocated N KO...: no module has a relocation into its per-CPU
# template (.rela.data..percpu: a static per-CPU initializer holding an
# address).  Kernels before 6.16 (apply_relocations() skips the section,
# which has no SHF_ALLOC) copy the template unrelocated to every CPU, so
# the address is NULL there: an irq_work's func was, a NULL call from
# irq_work_single() on 6.1 (issue 34 item 7).
percpu_unrelocated() {
	local n=$1 ko bad='' names=''
	shift
	for ko; do
		names+=" ${ko##*/}"
		if ! readelf -SW "$ko" > /dev/null; then
			bad=1
		elif readelf -SW "$ko" | grep -qF ' .rela.data..percpu '; then
			readelf -rW "$ko" | sed -n '/ section .\.rela\.data\.\.percpu. /,/^$/p' |
				sed "s|^|# ${ko##*/}: |"
			bad=1
		fi
	done
	if [[ -z $bad && $# -gt 0 ]]; then
		echo "ok $n no static per-CPU initializer holds an address:$names"
	else
		echo "not ok $n no static per-CPU initializer holds an address:$names"
	fi
}

# make sparse has the build stage's flags: sparse over every source,
# nothing compiled again
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

# The guest stages: make check's own 6.1 ones and the kernel matrix
# (tools/matrix.sh), one "CHAIN KIND NAME CMD" a line of $out/plan.  The
# stages of a chain run in order, in one lane; a chain whose name begins
# with "+" boots the tree's own modules, so it waits for the host stages.
# Three lanes on two cores (QPI_CHECK_LANES): a guest keeps its core busy
# only half the time, the rest it waits on its tests' sleeps and timers,
# so two guests leave a third of the machine idle.  Lanes 2 and 3 from the
# start, beside the host stages, lane 1 after them.  Each
# lane takes the longest chain that is left and ready, by the seconds
# below, until none is left: the lanes end close together whatever the
# machine's speed, and a chain that runs late only delays its own lane.
#
# Each guest stage's seconds in make check, as CI's 2-core machine ran
# them at 363f6bf (three lanes, 2134 s in all).  Only their order matters
# much: when the table make check prints shows a stage a minute off, put
# its time here.
stage_seconds='
k-7.3-snbep 976
vm-ivbep-2s 814
vm-snbep-2s 704
k-7.3-rt-snbep 668
k-7.2-snbep 518
k-6.12-snbep 466
k-5.10-snbep 354
vm-bdx 251
k-7.3-ivbep 236
vm-hswep 203
prometheus 151
vm-snbep-4s 119
vm-hswep-4s 66
k-5.10-dkms 46
k-7.3-dkms 40
k-7.3-rt-ivbep 37
k-6.12-dkms 37
k-7.2-dkms 36
vm-nhmex 34
k-7.2-ivbep 34
k-6.12-ivbep 32
k-5.10-ivbep 32
vm-snbep-hv 24
k-7.3-rt-dkms 18
'

# seconds NAME: the table's figure, else one by the stage's kind
seconds() {
	local n w
	while read -r n w; do
		[[ $n != "$1" ]] || { echo "$w"; return; }
	done <<< "$stage_seconds"
	case $1 in
	k-*-dkms) echo 30 ;;
	k-*-ivbep) echo 70 ;;
	*) echo 300 ;;
	esac
}

# queue: $out/plan as $out/queue, "SECONDS CHAIN KIND NAME CMD" a line,
# the longest chain first, each chain's stages together and in order
queue() {
	local chain kind name cmd
	while read -r chain kind name cmd; do
		[[ -n $name ]] || continue
		echo "$(seconds "$name") $chain $kind $name $cmd"
	done < "$out/plan" |
		awk '{ sum[$2] += $1; if (!($2 in first)) { first[$2] = n++ }; line[NR] = $0; c[NR] = $2 }
		     END { for (i = 1; i <= NR; i++) printf "%d %d %s\n", sum[c[i]], first[c[i]], line[i] }' |
		sort -s -k1,1nr -k2,2n | cut -d' ' -f3- > "$out/queue"
}

# take LANE: the next chain LANE may run, into $out/lane-LANE.next; exit
# status 1 when none is left, 2 when none is ready yet
take() {
	(
		flock 9
		[[ -s $out/queue ]] || exit 1
		ready=0
		[[ ! -e $out/host.done ]] || ready=1
		chain=$(awk -v ready=$ready '$2 !~ /^\+/ || ready { print $2; exit }' "$out/queue")
		[[ -n $chain ]] || exit 2
		awk -v c="$chain" '$2 == c' "$out/queue" > "$out/lane-$1.next"
		awk -v c="$chain" '$2 != c' "$out/queue" > "$out/queue.new"
		mv "$out/queue.new" "$out/queue"
	) 9> "$out/queue.lock"
}

# lane N: run chains until none is left; each stage's output goes to
# $out/NAME.log (lane 1 shows it live too), "RC SECONDS" to $out/NAME.rc,
# and "NAME KIND" to $out/lane-N.ran in the order run
lane() {
	local n=$1 w chain kind name cmd rc t0
	: > "$out/lane-$n.ran"
	while :; do
		take "$n"
		rc=$?
		[[ $rc != 1 ]] || break
		[[ $rc != 2 ]] || { sleep 5; continue; }
		while read -r w chain kind name cmd; do
			echo "$name $kind" >> "$out/lane-$n.ran"
			t0=$EPOCHSECONDS
			if [[ $n == 1 ]]; then
				echo "# ==== $name"
				eval "$cmd" < /dev/null 2>&1 | tee "$out/$name.log"
				rc=${PIPESTATUS[0]}
			else
				eval "$cmd" > "$out/$name.log" 2>&1 < /dev/null
				rc=$?
			fi
			echo "$rc $((EPOCHSECONDS - t0))" > "$out/$name.rc"
		done < "$out/lane-$n.next"
	done
	echo "$((EPOCHSECONDS - start))" > "$out/lane-$n.end"
}

# lane_tally N: tally lane N's stages (lane 2's output shown here)
lane_tally() {
	local name kind rc secs
	while read -r name kind; do
		if [[ $1 != 1 ]]; then
			echo "# ==== $name"
			cat "$out/$name.log"
		fi
		rc=1 secs='?'
		read -r rc secs < "$out/$name.rc" 2> /dev/null
		echo "# $name: $secs s"
		times+=("$name $secs $1")
		tally "$out/$name.log" "$kind" "$rc"
	done < "$out/lane-$1.ran"
}

# plan KERNELS...: write the matrix plan; a failure to make it is a result
plan() {
	local chain name cmd
	if ! tools/matrix.sh plan "$@" > "$out/matrix" 2> "$out/plan.log"; then
		cat "$out/plan.log"
		echo "not ok 1 the kernel matrix could be provisioned" > "$out/plan-failed.log"
		: > "$out/matrix"
		tally "$out/plan-failed.log" flat 1
	fi
	while read -r chain name cmd; do
		[[ -z $name ]] || echo "$chain $([[ $name == *-dkms ]] && echo flat || echo vm) $name $cmd"
	done < "$out/matrix" >> "$out/plan"
}

# lanes: run $out/plan's stages in two lanes; lane 1 runs here once
# $out/host.done exists
lanes() {
	local n
	queue
	lane_pids=()
	for ((n = 2; n <= nr_lanes; n++)); do
		lane "$n" &
		lane_pids+=($!)
	done
}

lanes_end() {
	local n
	lane 1
	wait "${lane_pids[@]}"
	for ((n = 1; n <= nr_lanes; n++)); do
		lane_tally "$n"
	done
}

# Every stage's seconds in one block before the closing line, so that a
# change that slows make check shows: host stages first, then each
# lane's stages in the order run.
timing() {
	local t name secs where n e ends
	echo "# ==== stage times"
	for t in "${times[@]}"; do
		read -r name secs where <<< "$t"
		[[ $where == host || $where == guest ]] || where="lane $where"
		printf '# %-16s %6s s  %s\n' "$name" "$secs" "$where"
	done
	if [[ -e $out/lane-1.end ]]; then
		ends=
		for ((n = 1; n <= nr_lanes; n++)); do
			e='?'
			read -r e < "$out/lane-$n.end" 2> /dev/null
			ends+="${ends:+, }lane $n after $e s"
		done
		echo "# lanes ended (lane 1 ran the host stages first): $ends"
	fi
	echo "# all: $((EPOCHSECONDS - start)) s"
}

# failures: each failing stage's failed results again, with the lines
# their cases printed through fail() ("# NAME: why") and run-vm's word of
# a guest that hung or died, so that the tail of the output, which is all
# CI keeps of a long run, says what failed.
failures() {
	local st
	for st in "${failed[@]}"; do
		echo "# ==== failures: $st"
		awk 'FNR == NR {
			if (match($0, /not ok [0-9]+ [^ ]+/)) {
				split(substr($0, RSTART, RLENGTH), w, " ")
				bad[w[4]] = 1
			}
			next
		}
		/^# selftests: / { running = $0 }
		/run-vm: TIMEOUT/ && running { print running " (running at the timeout)" }
		/not ok|run-vm: (TIMEOUT|hang:|guest did not)/ { print; next }
		{
			for (n in bad)
				if (index($0, "# " n ": ")) { print; next }
		}' "$out/$st.log" "$out/$st.log" | head -n 40
	done
}

summary() {
	timing
	failures
	echo "# ==== summary"
	[[ ${#failed[@]} == 0 ]] || echo "# failing stages: ${failed[*]}"
	if [[ $skip != 0 ]]; then
		echo "$pass passed, $fail failed, $skip skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[[ $fail == 0 ]]
}

nr_lanes=${QPI_CHECK_LANES:-3}
[[ $nr_lanes =~ ^[1-8]$ ]] || { echo "check: QPI_CHECK_LANES=$nr_lanes: want 1 to 8"; exit 2; }
start=$EPOCHSECONDS
rm -f "$out"/*.log "$out"/*.rc "$out/plan" "$out/matrix" "$out"/lane-* "$out/host.done" "$out"/queue*
# the DKMS stages' packages, made once (tools/packaging/dkms-build.sh)
export QPI_DEB_DIR=$out/deb
rm -rf "$QPI_DEB_DIR"

tools/vm/deps.sh || { echo "check: installing dependencies failed"; echo "0 passed, 1 failed"; exit 1; }

# make check-kernels KERNELS="...": the matrix for those kernels alone
if [[ ${1:-} == --kernels ]]; then
	shift
	plan "$@"
	: > "$out/host.done"
	lanes
	lanes_end
	summary
	exit
fi

# make check-quick: the edit loop's check, in a few minutes: the modules
# with W=1 and the user tools, the host tests, and one 6.1 guest suite
# (QPI_QUICK_TESTS, default qpi_uncore_count.sh) on SNB-EP
if [[ ${1:-} == --quick ]]; then
	stage build flat build_w1 --quick
	stage unittest flat make -s -C tools/unittest run
	stage qpistat-unit flat make -s -B -C tools/qpistat test WERROR=1
	stage vm-quick vm tools/vm/run-vm --platform snbep --no-build --timeout 600 \
		--tests "${QPI_QUICK_TESTS:-qpi_uncore_count.sh}"
	summary
	exit
fi

# make check's own 6.1 stages: the tree's modules, as the host stages
# leave them, and the counting-only build of route_builds, loaded by
# qpi_uncore_sample.sh.  A stage's timeout is there to catch a wedged
# guest, not to pace it: the whole suite takes about 10 minutes on a
# two-core host.
k61="QPI_KVER=$(tools/vm/kver.sh) QPI_NOROUTE_KO=$out/routes/drivers/qpi_uncore/qpi_uncore.ko"
vm="$k61 tools/vm/run-vm --no-build"
cat > "$out/plan" <<EOF
+snbep-2s vm vm-snbep-2s $vm --platform snbep --sockets 2 --timeout 1800
+ivbep-2s vm vm-ivbep-2s $vm --platform ivbep --sockets 2 --timeout 1800
+snbep-4s vm vm-snbep-4s $vm --platform snbep --sockets 4 --cores 1 --tests 'qpisim_topology.sh qpisim_count.sh qpi_uncore_count.sh qpisim_links.sh qpi_uncore_mapping.sh'
+snbep-hv vm vm-snbep-hv $vm --platform snbep --hypervisor --tests 'qpi_uncore_hypervisor.sh'
+nhmex vm vm-nhmex $vm --platform nhmex --tests 'qpi_uncore_sbox.sh'
+hswep vm vm-hswep $vm --platform hswep --tests 'qpi_uncore_takeover.sh qpistat_plan.sh'
+bdx vm vm-bdx $vm --platform bdx --tests 'qpi_uncore_takeover.sh qpistat_plan.sh qpisim_links.sh qpi_uncore_mapping.sh'
+hswep-4s vm vm-hswep-4s $vm --platform hswep --sockets 4 --cores 1 --tests 'qpisim_links.sh qpi_uncore_mapping.sh'
+prometheus flat prometheus $k61 tools/prometheus/test.sh
EOF
# vm-hswep and vm-bdx: the takeover from intel_uncore on E5 v3 and v4,
# whose intel_uncore drivers and PCI IDs differ (the 2s stages cover v1
# and v2), and qpistat's plan there: each direction counted where it is
# sent.  vm-hswep-4s: qpisim's default link map of four 3-port sockets, a
# full mesh, counted by perf at both ends of every link (HSX's
# qpisim_links.sh run).  prometheus: qpistat --listen scraped by a real
# Prometheus on host loopback, the rules.
plan
# The guests copy the selftest helpers and qpistat from the tree (run-vm
# --no-build): built before lane 2's first guest boots, not by the build
# stage, which comes after the host tests
make -C "$repo" tools WERROR=1 > "$out/tools.log" 2>&1
lanes
export QPI_KVER=${QPI_KVER:-$(tools/vm/kver.sh)}
# the counting-only build of route_builds, loaded by qpi_uncore_sample.sh
export QPI_NOROUTE_KO=$out/routes/drivers/qpi_uncore/qpi_uncore.ko

stage checkpatch flat tools/checkpatch.sh
stage unittest flat make -s -C tools/unittest run
# qpistat's HTTP parser, server, command line and build, one result per
# case; rebuilt with -Werror, which users' builds do not get
stage qpistat-unit flat make -s -B -C tools/qpistat test WERROR=1
# make install builds the tree's modules as users get them: before the
# build stage, which leaves them as the guests want them
stage packaging flat tools/packaging/test.sh
stage build flat build_w1
stage sparse flat sparse_check
stage test-build flat test_build
: > "$out/host.done"

lanes_end
summary
