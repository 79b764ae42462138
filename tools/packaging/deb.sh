#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian packages qpi-uncore-dkms (Architecture: all) and
# qpistat (Architecture: any), built from a scratch copy of the tree with
# tools/packaging/deb/ as its debian/, then checked with lintian (no error,
# no warning).  Prints the two .debs last, qpi-uncore-dkms first.  Installs
# nothing: it names the build tools that are missing and stops (make
# deb-deps installs them).
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

# the build tools (make deb-deps installs them): named, never installed
need=()
for p in dpkg-dev debhelper dh-dkms gcc libc6-dev make; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' || need+=("$p")
done
((lint == 0)) || command -v lintian > /dev/null || need+=(lintian)
((lint == 0)) || command -v hardening-check > /dev/null || need+=(devscripts)
if ((${#need[@]})); then
	die "missing: ${need[*]}; install them (make deb-deps, or apt-get install ${need[*]})"
fi

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$repo/dkms.conf")
[[ -n $ver ]] || die "no PACKAGE_VERSION in dkms.conf"
# the last commit's time: the same tree gives the same package
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2> /dev/null || date +%s)
export SOURCE_DATE_EPOCH
rev=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null || echo unknown)

# What the packages are made of, as in the tree: the module's build (what
# make dkms-install copies, less qpisim, a test tool), the
# arch-independent helpers, qpistat's sources, its units and rules.
# debian/rules picks from these.
src=$out/qpi-uncore-$ver
rm -rf "$out"
mkdir -p "$src/drivers" "$src/tools/vm" "$src/tools/takeover" "$src/tools/packaging" \
	"$src/tools/qpistat" "$src/tools/prometheus" "$src/Documentation"
cd "$repo"
cp -a Kbuild Makefile dkms.conf include README.md "$src/"
cp -a drivers/qpi_uncore "$src/drivers/"
cp -a tools/vm/kdir.sh tools/vm/kver.sh "$src/tools/vm/"
cp -a tools/takeover/qpi-uncore-takeover "$src/tools/takeover/"
cp -a tools/packaging/60-qpi-uncore.rules tools/packaging/qpi_uncore.conf \
	tools/packaging/qpistat.service tools/packaging/qpistat-textfile.service \
	tools/packaging/qpi-pmon.target tools/packaging/60-qpistat.rules "$src/tools/packaging/"
cp -a Documentation/qpistat.rst "$src/Documentation/"
cp -a tools/qpistat/Makefile tools/qpistat/*.[ch] "$src/tools/qpistat/"
cp -a tools/prometheus/qpi.rules.yml tools/prometheus/qpi-dashboard.json "$src/tools/prometheus/"
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
sdeb=$out/qpistat_${ver}_$(dpkg-architecture -qDEB_HOST_ARCH).deb
changes=$(find "$out" -maxdepth 1 -name "qpi-uncore_${ver}_*.changes" | head -n 1)
[[ -f $deb && -f $sdeb && -n $changes ]] || die "no .debs or .changes in $out"

if ((lint)); then
	say "lintian $(basename "$deb") $(basename "$sdeb") $(basename "$changes")"
	# errors and warnings fail, the hardening tags included; info and
	# pedantic tags are shown only
	lintian --fail-on error,warning --display-info "$deb" "$sdeb" "$changes" >&2 ||
		die "lintian found errors or warnings"
	say "lintian: no errors, no warnings"
fi
# The hardening of the packaged qpistat, from its ELF (lintian checks
# relro and FORTIFY; this checks all of it): PIE, relro, bind now, the
# stack protector's and FORTIFY's checking functions linked in, the IBT
# and shadow stack marks of control-flow protection (x86), and
# devscripts' hardening-check (with lintian: make deb-deps installs it).
x=$out/x
dpkg-deb -x "$sdeb" "$x"
elf=$(LC_ALL=C readelf -hldnW --dyn-syms "$x/usr/bin/qpistat")
hc=
if ((lint)); then
	hc=$(hardening-check "$x/usr/bin/qpistat") ||
		{ echo "$hc" >&2; rm -rf "$x"; die "hardening-check fails on the packaged qpistat"; }
fi
# the rules and the dashboard, as in the tree
for f in prometheus/qpi.rules.yml grafana/qpi-dashboard.json; do
	cmp -s "$repo/tools/prometheus/${f#*/}" "$x/usr/share/qpistat/$f" ||
		{ rm -rf "$x"; die "qpistat: no /usr/share/qpistat/$f as in the tree"; }
done
rm -rf "$x"
miss=()
grep -q 'Type:.*DYN' <<< "$elf" || miss+=(PIE)
grep -q 'GNU_RELRO' <<< "$elf" || miss+=(relro)
grep -qE '\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW' <<< "$elf" || miss+=("bind now")
grep -q '__stack_chk_fail' <<< "$elf" || miss+=("stack protector")
grep -qE '__[a-z_]+_chk@' <<< "$elf" || miss+=(FORTIFY)
[[ $(dpkg-architecture -qDEB_HOST_ARCH) != amd64 ]] || grep -q 'x86 feature: IBT, SHSTK' <<< "$elf" ||
	miss+=("control-flow protection")
((${#miss[@]} == 0)) || die "qpistat is built without: ${miss[*]} (dpkg-buildflags not honoured?)"
say "qpistat: PIE, relro, bind now, stack protector, FORTIFY, control-flow protection"
[[ -z $hc ]] || sed 's/^/deb.sh: /' <<< "$hc" >&2
for d in "$deb" "$sdeb"; do
	say "$(basename "$d"):"
	dpkg-deb --contents "$d" | awk '$NF !~ /\/$/ { print "deb.sh:   " $NF }' >&2
done
echo "$deb"
echo "$sdeb"
