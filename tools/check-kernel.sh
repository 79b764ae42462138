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

# kernel_checks_sparse: this kernel's Makefile passes C= on only with a
# sparse its scripts/checker-valid.sh accepts (7.x), which Debian's headers
# do not ship: there kbuild turns C=2 off, with a message that is no
# warning, whatever the sparse.  Debian's flavour Makefile includes the
# common one, which holds the test.
kernel_checks_sparse() {
	local mk=${QPI_KROOT%/}$QPI_KBUILD/Makefile inc
	inc=$(sed -n 's/^include //p' "$mk")
	grep -qs 'checker-valid\.sh' "$mk" ${inc:+"${QPI_KROOT%/}$inc"}
}

# sparse_parses SPARSE: SPARSE in the build root parses what such a
# Makefile's checker-valid.sh tries it on, __typeof_unqual__ (trixie's
# 0.6.4 does not).  sparse exits 0 on errors: its output tells.
sparse_parses() {
	local o
	o=$(printf '%s\n' 'static inline int u(const int *q)' '{' \
		'	__typeof_unqual__(*q) v = *q;' '	return v;' '}' |
		"$repo/tools/kernels/in-root.sh" "$QPI_KROOT" "$1" -m64 - 2>&1) &&
		! grep -q 'error' <<< "$o"
}

# pick_sparse: how sparse checks this kernel, before anything is built:
# sets sparse_args (kbuild's arguments), sparse_by (which sparse, for
# the report) or sparse_skip (why none can).  On a kernel that tests its
# sparse, the first of the build root's and QPI_KSPARSE (unstable's, in
# the trixie root) that passes that test, with KBUILD_CHECKSRC=2, which
# outranks the Makefile's C=2 turned off; elsewhere the build root's.
pick_sparse() {
	local s
	sparse_args=(C=2) sparse_by='' sparse_skip=''
	kernel_checks_sparse || return 0
	for s in sparse ${QPI_KSPARSE:+"$QPI_KSPARSE"}; do
		if sparse_parses "$s"; then
			sparse_args=(C=2 KBUILD_CHECKSRC=2 CHECK="$s")
			sparse_by=" ($s $("$repo/tools/kernels/in-root.sh" "$QPI_KROOT" "$s" --version 2> /dev/null))"
			return 0
		fi
	done
	sparse_skip="this kernel's Makefile wants a sparse that parses __typeof_unqual__: the build root's does not"
	if [[ -n ${QPI_KSPARSE:-} ]]; then
		sparse_skip+=", nor does $QPI_KSPARSE"
	else
		sparse_skip+=", and it has no newer one (QPI_KSPARSE)"
	fi
}

if [[ $kbuild == 1 ]]; then
	# One compile: the W=1 build (the modules that boot), then sparse
	build W=1 QPIU_TEST_HOOKS=1 modules
	w1=$?
	# over every source of that same copy with the same flags, which
	# kbuild compiles nothing again for.  It must be seen checking the
	# files (a CHECK line each): kbuild may turn C=2 off with a message
	# that is no warning (see kernel_checks_sparse).
	pick_sparse
	if [[ -z $sparse_skip ]]; then
		build --again W=1 "${sparse_args[@]}" QPIU_TEST_HOOKS=1 modules
		sparse=$?
		checked=$(grep -cE '^ +CHECK +' <<< "$blog")
		if [[ $checked == 0 ]]; then
			echo "# sparse checked no file$(grep -o 'C=2 specified, but .*' <<< "$blog" | sed 's/^/: kbuild: /')"
			sparse=1
		else
			echo "# sparse checked $checked files$sparse_by"
		fi
	fi
	# "# "-prefixed, as run-vm's leaf results, for check.sh's tally
	{
		. "$repo/tools/ktap.sh"
		result $w1 "$QPI_KVER: modules build with W=1, no warnings"
		if [[ -n $sparse_skip ]]; then
			n=$((n + 1))
			echo "ok $n $QPI_KVER: sparse C=2 clean # SKIP $sparse_skip"
		else
			result "$sparse" "$QPI_KVER: sparse C=2 clean"
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
