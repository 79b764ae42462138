#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel matrix: for each kernel, its own build (W=1, sparse, DKMS) and
# its own Debian image booted with the selftests (tools/check-kernel.sh).
#   tools/matrix.sh plan [KERNELS...]   the stages, one "LANE NAME CMD..." a line
# make check runs the plan's stages beside its 6.1 ones; make check-kernels
# KERNELS="5.10 7.2" runs the plan for those kernels alone.  Stages of one
# lane run one after another, the two lanes side by side (a guest keeps one
# core busy): lane 1 follows make check's own stages, so it gets the
# shorter share: the RT kernel only.
#
# What each kernel shows (tools/kernels/kernel.sh names them):
#  - every kernel: the module loads and counts exactly on SNB-EP and IVB-EP,
#    wraps at 48 and 44 bits, perf record -c gives exact samples, the
#    hand-over beside that kernel's own intel_uncore, unload, a clean log;
#    and dkms build;
#  - the newest: every selftest (6.1's is in make check's own stages);
#  - 6.1, the host's: make check's own stages; here only with KERNELS.
set -euo pipefail

[[ ${1:-} == plan ]] || { echo "usage: $0 plan [KERNELS...]" >&2; exit 2; }
shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
explicit=1
if [[ $# == 0 ]]; then
	mapfile -t kernels < <("$repo/tools/kernels/kernel.sh" --list)
	explicit=0
else
	kernels=("$@")
fi

# the selftests every kernel runs: counts, wrap and names on SNB-EP ...
core="qpi_uncore_count.sh qpi_uncore_sample.sh qpi_uncore_life.sh qpi_uncore_takeover.sh qpi_uncore_mapping.sh"
# ... counting on IVB-EP, and for the newest kernel sampling too, whose
# R3QPI overflow path (ov_en, UBox) differs there
ivb="qpi_uncore_count.sh"

# label NAME: the series NAME stands for, as the stage names say it
# (newest -> 7.3 today); provisions the kernel if need be
label() {
	local env kver
	env=$("$repo/tools/kernels/kernel.sh" "$1") || { echo "$1"; return; }
	kver=$(sed -n 's/^QPI_KVER=//p' <<< "$env")
	case $kver in
	*-rt-amd64) echo "$(cut -d. -f1-2 <<< "$kver")-rt" ;;
	*) cut -d. -f1-2 <<< "$kver" ;;
	esac
}
newest=$(label newest)

# Per selftest, run_tests.sh allows 600 s.  On PREEMPT_RT under TCG with
# make check's other guest beside it, qpi_uncore_takeover.sh takes 220 to
# 440 s (its udev coldplug runs the tool for each of 12 functions, one
# after another); once it passed 600 s.  The stage's own timeout still
# catches a wedged guest.
ck="tools/check-kernel.sh"
tt="--env QPI_TEST_TIMEOUT=1200"
for k in "${kernels[@]}"; do
	# make check runs 6.1, the host's kernel, in stages of its own
	[[ $k != 6.1 || $explicit == 1 ]] || continue
	l=$(label "$k")
	lane=2
	[[ $l != *-rt ]] || lane=1
	case $l in
	"$newest")
		# every selftest but the walk of perf's event tables, which
		# tests the perf tool's tables against our aliases (the same
		# perf as 6.1's stages) and is half of a stage's time
		echo "$lane k-$l-snbep $ck $k --timeout 2400 $tt --skip qpi_uncore_perfnames.sh"
		echo "$lane k-$l-ivbep $ck $k --no-kbuild --platform ivbep --timeout 1200" \
			"--tests '$ivb qpi_uncore_sample.sh'"
		;;
	*)
		echo "$lane k-$l-snbep $ck $k --timeout 1800 $tt --tests '$core'"
		echo "$lane k-$l-ivbep $ck $k --no-kbuild --platform ivbep --timeout 1200 --tests '$ivb'"
		;;
	esac
	# DKMS builds in the kernel's build root: no guest.  Lane 2, after
	# the kernel's guests: lane 1 carries make check's own 6.1 stages and
	# the RT kernel, the longer share since the 6.1 suites grew (make
	# check 51 min: lane 1 51, lane 2 41; each dkms stage about 40 s)
	echo "2 k-$l-dkms tools/packaging/dkms-build.sh $k"
done
