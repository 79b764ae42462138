#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS round trip of the packaged source for one kernel of the matrix,
# in that kernel's build root: dkms add, build, the module's vermagic,
# dkms remove --all, nothing left behind.  KTAP output.
#   tools/packaging/dkms-build.sh NAME      NAME as for tools/kernels/kernel.sh
# The source is /usr/src/qpi_uncore-<version> of the .deb of make deb
# (QPI_DEB=<.deb> to use one already built; QPI_DEB_DIR=<dir>: the one
# made there by an earlier run, else made there, as make check's DKMS
# stages share one), exactly what the package installs; the package
# itself is not installed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
[[ $# == 1 ]] || { echo "usage: $0 NAME" >&2; exit 2; }
name=$1
# shellcheck source-path=SCRIPTDIR source=../ktap.sh
. "$repo/tools/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "KTAP version 1"
echo "1..5"
skip_all() {
	local i
	for i in 1 2 3 4 5; do echo "ok $i dkms $name # SKIP $*"; done
	exit 0
}

env=$("$repo/tools/kernels/kernel.sh" "$name" 2> "$tmp/kernel.log") || {
	sed 's/^/# /' "$tmp/kernel.log" | tail -n 5
	skip_all "cannot provision kernel $name"
}
eval "$env"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
mv=qpi_uncore/$ver
root=$QPI_KROOT
in_root() { "$repo/tools/kernels/in-root.sh" "$root" "$@"; }
echo "# $name: $QPI_KVER in ${root}"

deb=${QPI_DEB:-}
debdir=${QPI_DEB_DIR:-$tmp/deb}
if [[ -z $deb && -n ${QPI_DEB_DIR:-} ]]; then
	mkdir -p "$(dirname "$debdir")"
	exec 7> "$debdir.lock"
	flock 7
	[[ ! -f $debdir/done ]] || deb=$(cat "$debdir/done")
fi
if [[ -z $deb ]]; then
	deb=$("$here/deb.sh" --no-lintian "$debdir" 2> "$tmp/deb.log" | grep "/qpi-uncore-dkms_") || {
		sed 's/^/# /' "$tmp/deb.log" | tail -n 20
		skip_all "make deb failed"
	}
	echo "$deb" > "$debdir/done"
fi
[[ -z ${QPI_DEB_DIR:-} ]] || exec 7>&-
dpkg-deb -x "$deb" "$tmp/x"
[[ -f $tmp/x/usr/src/qpi_uncore-$ver/dkms.conf ]] || skip_all "no /usr/src/qpi_uncore-$ver in $deb"

# The source goes where dkms add looks for it.  A marker tells our own
# leftovers (an interrupted run) from a qpi_uncore installed for real,
# which is left alone.
src=${root%/}/usr/src/qpi_uncore-$ver
marker=$src/.qpi-dkms-build
if [[ -e $src && ! -e $marker ]] ||
	{ [[ ! -e $src ]] && in_root dkms status -m qpi_uncore 2> /dev/null | grep -q .; }; then
	skip_all "qpi_uncore is installed in DKMS on ${root} (make dkms-uninstall or purge qpi-uncore-dkms)"
fi
if [[ -e $marker ]]; then
	in_root dkms remove "$mv" --all > /dev/null 2>&1 || true
	rm -rf "$src"
fi
dkmsdir=${root%/}/var/lib/dkms
before=$(ls -A "$dkmsdir" 2> /dev/null || true)

cp -a "$tmp/x/usr/src/qpi_uncore-$ver" "$src"
: > "$marker"

# run NAME CMD...: CMD in the build root, its output on failure
run() {
	local what=$1 ok=0
	shift
	in_root "$@" > "$tmp/log" 2>&1 || ok=$?
	((ok == 0)) || sed 's/^/# /' "$tmp/log" | tail -n 30
	result "$ok" "$what"
	return "$ok"
}

built=0
if run "dkms add $mv ($name)" dkms add "$mv" &&
	run "dkms build $mv -k $QPI_KVER" dkms build "$mv" -k "$QPI_KVER"; then
	built=1
else
	log=$dkmsdir/qpi_uncore/$ver/build/make.log
	[[ ! -f $log ]] || { echo "# make.log:"; tail -n 30 "$log" | sed 's/^/#   /'; }
	[[ $n == 2 ]] || echo "not ok 2 dkms build $mv -k $QPI_KVER # not run"
	n=2
fi

# only qpi_uncore.ko (qpisim is not packaged), for QPI_KVER
ok=1
if ((built)); then
	mods=$(cd "$dkmsdir/qpi_uncore/$ver/$QPI_KVER" && find . -name '*.ko*' | sort)
	ko=$(cd "$dkmsdir/qpi_uncore/$ver/$QPI_KVER" && find "$PWD" -name 'qpi_uncore.ko*' | head -n 1)
	vm=
	[[ -z $ko ]] || vm=$(in_root modinfo -F vermagic "${ko#"${root%/}"}" | cut -d' ' -f1)
	echo "# built: $(echo "$mods" | xargs) vermagic $vm"
	[[ $vm == "$QPI_KVER" && $(echo "$mods" | wc -l) == 1 ]] && ok=0
fi
result "$ok" "qpi_uncore.ko built for $QPI_KVER, vermagic $QPI_KVER, no other module"

ok=0
in_root dkms remove "$mv" --all > "$tmp/log" 2>&1 || ok=$?
((ok == 0)) || sed 's/^/# /' "$tmp/log" | tail -n 20
result "$ok" "dkms remove $mv --all"

# Nothing left: no module in DKMS's tree, nor anything dkms made there
# (trixie's dkms makes a signing key), nor the source.
rm -rf "$src"
after=$(ls -A "$dkmsdir" 2> /dev/null || true)
for f in $(comm -13 <(echo "$before" | sort) <(echo "$after" | sort)); do
	echo "# removing $dkmsdir/$f, made by this run"
	rm -rf "${dkmsdir:?}/$f"
done
left=$(in_root dkms status -m qpi_uncore 2> /dev/null || true)
ok=1
if [[ -z $left && ! -e $dkmsdir/qpi_uncore && ! -e $src ]] &&
	[[ -z $(find "${root%/}/lib/modules/$QPI_KVER/" -name 'qpi_uncore.ko*' -path '*dkms*' 2> /dev/null) ]]; then
	ok=0
fi
[[ $ok == 0 ]] || echo "# left: $left"
result "$ok" "nothing of qpi_uncore left in ${root%/}/var/lib/dkms"
exit "$rc"
