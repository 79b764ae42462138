#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict over our kernel sources, using the checkpatch.pl of
# Debian's linux-source-6.1 (extracted once into .vm/checkpatch).  Prints a
# KTAP line per file.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cp=$repo/.vm/checkpatch
tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)

if [[ ! -x $cp/scripts/checkpatch.pl ]]; then
	[[ -n $tarball ]] || { echo "checkpatch: install linux-source-6.1" >&2; exit 1; }
	top=$(basename "$tarball" .tar.xz)
	mkdir -p "$cp"
	tar -xJf "$tarball" -C "$cp" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi

cd "$repo"
files=$(ls drivers/*/*.[ch] drivers/*/conftest/*.c include/*.h | grep -v "\.mod\.c$")
echo "KTAP version 1"
echo "1..$(echo "$files" | wc -l)"
i=0 rc=0
for f in $files; do
	i=$((i + 1))
	if out=$(perl "$cp/scripts/checkpatch.pl" --strict --no-tree -q \
		 --ignore FILE_PATH_CHANGES -f "$f" 2>&1) && [[ -z $out ]]; then
		echo "ok $i checkpatch $f"
	else
		echo "$out" | sed 's/^/# /'
		echo "not ok $i checkpatch $f"
		rc=1
	fi
done
exit $rc
