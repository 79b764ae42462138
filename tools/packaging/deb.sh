#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian package qpi-uncore-dkms (Architecture: all), built
# from a scratch copy of the tree with tools/packaging/deb/ as its debian/,
# then checked with lintian (no error, no warning).  Prints the .deb last.
#   tools/packaging/deb.sh [--no-lintian] [OUTDIR]    OUTDIR: .vm/deb
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
lint=1
if [[ ${1:-} == --no-lintian ]]; then
	lint=0
	shift
fi
out=${1:-$repo/.vm/deb}
say() { echo "deb.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# the build tools, from Debian, when missing
need=()
for p in dpkg-dev debhelper dh-dkms; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' || need+=("$p")
done
((lint == 0)) || command -v lintian > /dev/null || need+=(lintian)
if ((${#need[@]})); then
	say "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2 ||
		die "cannot install ${need[*]}"
fi

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
[[ -n $ver ]] || die "no PACKAGE_VERSION in dkms.conf"
# the last commit's time: the same tree gives the same package
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2> /dev/null || date +%s)
export SOURCE_DATE_EPOCH
rev=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)

# What the package is made of, as in the tree: the module's build (what
# make dkms-install copies, less qpisim, a test tool) and the
# arch-independent helpers.  debian/rules picks from these.
src=$out/qpi-uncore-$ver
rm -rf "$out"
mkdir -p "$src/drivers" "$src/tools/vm" "$src/tools/takeover" "$src/tools/packaging"
cd "$repo"
cp -a Kbuild Makefile dkms.conf include README.md "$src/"
cp -a drivers/qpi_uncore "$src/drivers/"
cp -a tools/vm/kdir.sh tools/vm/kver.sh "$src/tools/vm/"
cp -a tools/takeover/qpi-uncore-takeover "$src/tools/takeover/"
cp -a tools/packaging/60-qpi-uncore.rules tools/packaging/qpi_uncore.conf "$src/tools/packaging/"
cp -a tools/packaging/deb "$src/debian"
# no objects of a build in the tree
find "$src/drivers" "$src/include" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '.*.cmd' -o -name '*.a' -o -name 'modules.order' \
	-o -name 'Module.symvers' -o -name '.*.d' -o -name 'generated' \) -exec rm -rf {} +

cat > "$src/debian/changelog" <<EOT
qpi-uncore ($ver) unstable; urgency=medium

  * Built by make deb from the qpi_uncore tree at commit $rev.

 -- qpi_uncore developers <qpi-uncore@lists.invalid>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")
EOT

say "dpkg-buildpackage in $src"
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed; log: $out/build.log"
}
deb=$out/qpi-uncore-dkms_${ver}_all.deb
changes=$(find "$out" -maxdepth 1 -name "qpi-uncore_${ver}_*.changes" | head -n 1)
[[ -f $deb && -n $changes ]] || die "no .deb or .changes in $out"

if ((lint)); then
	say "lintian $(basename "$deb") $(basename "$changes")"
	# errors and warnings fail; info and pedantic tags are shown only
	lintian --fail-on error,warning --display-info "$deb" "$changes" >&2 ||
		die "lintian found errors or warnings"
	say "lintian: no errors, no warnings"
fi
dpkg-deb --contents "$deb" | awk '$NF !~ /\/$/ { print "deb.sh:   " $NF }' >&2
echo "$deb"
