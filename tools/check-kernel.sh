#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One kernel of the matrix: build the modules for it with W=1 and sparse,
# in its own build root and with its own compiler (tools/kernels/), then
# boot its Debian image and run selftests there.  Used by make check and
# make check-kernels; by hand:
#   tools/check-kernel.sh NAME [--no-kbuild] [run-vm options, e.g. --tests "t1 t2"]
# NAME as for tools/kernels/kernel.sh (5.10, 6.1, 6.12, 7.2, 7.3-rt, ...);
# --no-kbuild boots the modules of the last build for NAME.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -ge 1 ]] || { echo "usage: $0 NAME [run-vm options]" >&2; exit 2; }
name=$1
shift
kbuild=1
[[ ${1:-} != --no-kbuild ]] || { kbuild=0; shift; }

if ! env=$("$repo/tools/kernels/kernel.sh" "$name"); then
	echo "# not ok 1 $name: kernel provisioned"
	exit 1
fi
eval "$env"
echo "# $name: $QPI_KVER, built in $QPI_KROOT"

# build [--again] BUILD-ARGS...: the log of tools/kernels/build.sh; sets $out
build() {
	local log again=()
	[[ $1 != --again ]] || { again=(--again); shift; }
	log=$("$repo/tools/kernels/build.sh" "${again[@]}" "$name" "$@" 2>&1)
	local rc=$?
	blog=$log
	out=$(tail -n 1 <<< "$log")
	grep -E 'warning:|error:' <<< "$log" | sed 's/^/# /'
	[[ $rc == 0 ]] && ! grep -qE 'warning:|error:' <<< "$log"
}

if [[ $kbuild == 1 ]]; then
	# One compile: the W=1 build (the modules that boot), then sparse
	build W=1 QPIU_TEST_HOOKS=1 modules
	w1=$?
	# over every source of that same copy with the same flags, which
	# kbuild compiles nothing again for.  It must be seen checking the
	# files (a CHECK line each): 7.x's Makefile turns C=2 off, with a
	# message that is no warning, when scripts/checker-valid.sh does not
	# pass the sparse it finds; and Debian's 7.x headers do not ship that
	# script.  Trixie's sparse 0.6.4 cannot parse 7.x's __typeof_unqual__
	# either, so there the check runs again with unstable's sparse
	# (QPI_KSPARSE) and KBUILD_CHECKSRC=2, which outranks the Makefile's.
	build --again W=1 C=2 QPIU_TEST_HOOKS=1 modules
	sparse=$?
	sparse_skip= sparse_by=
	if grep -q 'is not available or not up to date' <<< "$blog"; then
		if [[ -n ${QPI_KSPARSE:-} ]]; then
			build --again W=1 C=2 KBUILD_CHECKSRC=2 CHECK="$QPI_KSPARSE" QPIU_TEST_HOOKS=1 modules
			sparse=$?
			sparse_by=" ($QPI_KSPARSE $("$repo/tools/kernels/in-root.sh" "$QPI_KROOT" "$QPI_KSPARSE" --version 2> /dev/null))"
		else
			sparse_skip="this kernel's Makefile finds the build root's sparse too old for it"
		fi
	fi
	checked=$(grep -cE '^ +CHECK +' <<< "$blog")
	if [[ -z $sparse_skip && $checked == 0 ]]; then
		echo "# sparse checked no file"
		sparse=1
	elif [[ -z $sparse_skip ]]; then
		echo "# sparse checked $checked files$sparse_by"
	fi
	# "# "-prefixed, as run-vm's leaf results, for check.sh's tally
	{
		. "$repo/tools/ktap.sh"
		result $w1 "$QPI_KVER: modules build with W=1, no warnings"
		if [[ -n $sparse_skip ]]; then
			n=$((n + 1))
			echo "ok $n $QPI_KVER: sparse C=2 clean # SKIP $sparse_skip"
		else
			result $sparse "$QPI_KVER: sparse C=2 clean"
		fi
	} | sed 's/^/# /'
	[[ $w1 == 0 ]] || exit 1
else
	out=$("$repo/tools/kernels/build.sh" --dir "$name")
	[[ -f $out/drivers/qpi_uncore/qpi_uncore.ko ]] ||
		{ echo "# not ok 1 $QPI_KVER: no build to boot in $out"; exit 1; }
fi

# What the guest needs of this kernel: its image and module tree (the
# stock intel-uncore.ko for the hand-over), and our modules built for it.
export QPI_KVER QPI_KIMAGE QPI_KMODS QPI_KO_DIR=$out
export QPI_KDIR=${QPI_KROOT%/}$QPI_KBUILD
exec "$repo/tools/vm/run-vm" --no-build "$@"
