#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict over our kernel sources, using the checkpatch.pl of
# Debian's linux-source-6.1, extracted once (half a minute of xz) into the
# cache of the kernel matrix, ~/.cache/qpi_uncore/checkpatch/<tarball>,
# which outlives a clone.  Prints a KTAP line per file.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
[[ -n $tarball ]] || { echo "checkpatch: install linux-source-6.1" >&2; exit 1; }
top=$(basename "$tarball" .tar.xz)
cp=${XDG_CACHE_HOME:-$HOME/.cache}/qpi_uncore/checkpatch/$top

if [[ ! -x $cp/scripts/checkpatch.pl ]]; then
	# in a folder of its own, moved in whole: another tree's make check
	# may be extracting too
	rm -rf "$cp"
	mkdir -p "$cp.$$"
	tar -xJf "$tarball" -C "$cp.$$" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	mv -T "$cp.$$" "$cp" 2> /dev/null || rm -rf "$cp.$$"
fi

cd "$repo"
files=$(ls drivers/*/*.[ch] drivers/*/conftest/*.c include/*.h | grep -v "\.mod\.c$")
checkpatch() {
	perl "$cp/scripts/checkpatch.pl" --strict --no-tree -q \
		--ignore FILE_PATH_CHANGES -f "$@" 2>&1
}
echo "KTAP version 1"
echo "1..$(echo "$files" | wc -l)"
# One run over every file, which saves perl's start and checkpatch's
# tables per file (half the time); only when it finds something does each
# file get a run of its own, for its own result and messages.
all=1
# shellcheck disable=SC2086 # a word list of paths without blanks
out=$(checkpatch $files) && [[ -z $out ]] || all=0
i=0 rc=0
for f in $files; do
	i=$((i + 1))
	if [[ $all == 1 ]] || { out=$(checkpatch "$f") && [[ -z $out ]]; }; then
		echo "ok $i checkpatch $f"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $i checkpatch $f"
		rc=1
	fi
done
exit $rc
