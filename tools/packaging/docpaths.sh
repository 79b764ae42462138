#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every path README.md, Documentation/*.rst and the man pages name, and the
# comments of the files the packages install (units, udev rules,
# modprobe.d), exists where they say:
#  - an absolute path in one of the two Debian packages or in what make
#    install puts in DESTDIR (PREFIX=/usr/local), or in the list below of
#    paths that are not ours to install (made at run time, the operator's,
#    another package's), each with its reason;
#  - a relative path of the source tree (tools/, drivers/, Documentation/,
#    selftests/, include/) in the tree: that form marks a source-tree path.
# <...>, "..." and $(...) in a path stand for any name.
#   tools/packaging/docpaths.sh DEB... -- INSTALLED_TREE
# Prints "# not found: PATH (FILE:LINE)" for each and exits 1 if any.
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
debs=()
while (($# > 0)) && [[ $1 != -- ]]; do
	debs+=("$1")
	shift
done
[[ ${1:-} == -- && $# == 2 && ${#debs[@]} -gt 0 ]] ||
	{ echo "usage: $0 DEB... -- INSTALLED_TREE" >&2; exit 2; }
inst=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Not ours to install, each with why it is named
runtime=(
	# prometheus-node-exporter's textfile directory, and the file
	# qpistat-textfile.service writes there at run time
	'/var/lib/prometheus/node-exporter'
	'/var/lib/prometheus/node-exporter/qpi.prom'
	# the operator's: a sysctl (the exporter's unit needs none) and a
	# link map file for --link-map @FILE
	'/etc/sysctl.d/*'
	'/etc/qpistat/*'
	# the operator's, to give qpi_uncore the whole uncore
	'/etc/modprobe.d/blacklist-intel-uncore.conf'
	# made at run time by qpi-uncore-takeover
	'/run/qpi-uncore-released'
	'/run/qpi-uncore-takeover.test-mode'
	# the test guests' and the test bench's
	'/lib/modules/qpi'
	'/lib/modules/qpi/*'
	'/var/tmp/*'
	# inside the kernel matrix's trixie build root (tools/kernels/kernel.sh),
	# never on the host
	'/opt/sparse'
	# dkms', udev's and the kernel packages'
	'/var/lib/dkms'
	'/usr/bin/udevadm'
	'/usr/src/linux-headers-*'
	'/lib/modules/*'
)

# What is installed: both packages' files and directories, and make
# install's tree
for d in "${debs[@]}"; do
	dpkg-deb --contents "$d" | awk '{ print $NF }' | sed 's|^\.||; s|/$||'
	dpkg-deb -x "$d" "$tmp/x"
done > "$tmp/have"
(cd "$inst" && find . -mindepth 1) | sed 's|^\.||' >> "$tmp/have"
# man pages and docs are compressed by the package; named plain
sed -n 's|\.gz$||p' "$tmp/have" > "$tmp/plain"
sort -u -o "$tmp/have" "$tmp/have" "$tmp/plain"

# The texts: the tree's documentation, the packages' man pages and the
# files they install that carry comments
files=("$repo/README.md" "$repo"/Documentation/*.rst "$repo"/tools/packaging/deb/*.[18])
while IFS= read -r f; do
	files+=("$f")
done < <(find "$tmp/x/lib" -type f 2> /dev/null | sort)

# PATTERN for a path as written: placeholders become *
pattern() {
	sed -E 's/<[^>]*>/*/g; s/\.\.\./*/g; s/\$\(.*$/*/; s/\$\{?[A-Za-z_]+\}?/*/g; s|/+$||' <<< "$1"
}

rc=0
n=0
for f in "${files[@]}"; do
	name=${f#"$repo/"}
	name=${name#"$tmp/x"}
	# roff's hyphens (\-) and zero-width escapes (\&)
	if [[ $f == *.[18] ]]; then
		sed 's/\\-/-/g; s/\\&//g' "$f" > "$tmp/roff"
		f=$tmp/roff
	fi
	# absolute paths under the trees a package installs into
	while IFS=: read -r line p; do
		n=$((n + 1))
		pat=$(pattern "$p")
		ok=0
		for r in "${runtime[@]}"; do
			# shellcheck disable=SC2053
			[[ $pat == $r ]] && { ok=1; break; }
		done
		if ((!ok)); then
			while IFS= read -r h; do
				# shellcheck disable=SC2053
				[[ $h == $pat ]] && { ok=1; break; }
			done < "$tmp/have"
		fi
		((ok)) || { echo "# not found: $p ($name:$line)"; rc=1; }
	done < <(grep -noE '(^|[^A-Za-z0-9_.~$/-])/(usr|etc|lib|var|run|opt)/[A-Za-z0-9_./*<>{}$()@+-]*' "$f" |
		sed -E 's/^([0-9]+):[^/]?/\1:/; s/[.)]+$//')
	# source-tree paths
	while IFS=: read -r line p; do
		n=$((n + 1))
		pat=$(pattern "$p")
		# the kernel's perf source and ABI documents, not this tree
		[[ $pat == tools/perf/* || $pat == Documentation/ABI/* ]] && continue
		# a program built from PATH.c
		compgen -G "$repo/$pat" > /dev/null || compgen -G "$repo/$pat.c" > /dev/null ||
			{ echo "# not in the tree: $p ($name:$line)"; rc=1; }
	done < <(grep -noE '(^|[^A-Za-z0-9_./~$-])(tools|drivers|Documentation|selftests|include)/[A-Za-z0-9_./*{}<>-]*[A-Za-z0-9_*}>/]' "$f" |
		sed -E 's/^([0-9]+):[^tdDsi]?/\1:/')
done
echo "# $n paths in ${#files[@]} files"
exit $rc
