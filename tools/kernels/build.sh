#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the modules for one kernel of the matrix, in a copy of the tree (the
# main build is untouched) inside that kernel's build root, with its own
# compiler:
#   tools/kernels/build.sh NAME [MAKE ARGS...]
# NAME as for tools/kernels/kernel.sh; MAKE ARGS go to kbuild (default:
# W=1 modules).  Prints the build log; the last line is the copy's folder
# on the host (the modules are in its drivers/*/), for QPI_KO_DIR.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
#   tools/kernels/build.sh --dir NAME   only print that folder
#   tools/kernels/build.sh --again NAME [MAKE ARGS...]   build in that
#     folder as it is, no fresh copy: kbuild compiles nothing again for
#     the same flags (check-kernel.sh's sparse pass after its W=1 build)
where=0 again=0
case ${1:-} in
--dir) where=1; shift ;;
--again) again=1; shift ;;
esac
[[ $# -ge 1 ]] || { echo "usage: $0 [--dir|--again] NAME [MAKE ARGS...]" >&2; exit 2; }
env=$("$here/kernel.sh" "$1")
eval "$env"
shift
[[ $# -gt 0 ]] || set -- W=1 modules

# the copy, as the build root sees it and as the host does; QPI_BUILD_TAG
# names another one, for builds that must not replace it
tag=${QPI_BUILD_TAG:-main}
[[ $tag =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "$0: QPI_BUILD_TAG wants [A-Za-z0-9_.-]" >&2; exit 2; }
rel=/var/tmp/qpi_uncore-build/$tag-$QPI_KVER
[[ $QPI_KROOT != / ]] || rel=$repo/.vm/build-$tag-$QPI_KVER
out=${QPI_KROOT%/}$rel
[[ $where == 0 ]] || { echo "$out"; exit 0; }
mkdir -p "$(dirname "$out")"
# one build at a time in a copy
exec 8> "$out.lock"
flock 8
if [[ $again == 0 || ! -d $out/drivers ]]; then
	rm -rf "$out"
	mkdir -p "$out"
	cp -a "$repo/Kbuild" "$repo/Makefile" "$repo/dkms.conf" "$repo/drivers" "$repo/include" "$out/"
	# no objects of another kernel's build
	find "$out" \( -name '*.o' -o -name '*.ko' -o -name '*.mod*' -o -name '.*.cmd' \
		-o -name 'generated' \) -exec rm -rf {} +
fi

cmd=(make -C "$QPI_KBUILD" M="$rel" "$@")
set +e
"$here/in-root.sh" "$QPI_KROOT" "${cmd[@]}"
rc=$?
set -e
echo "$out"
exit "$rc"
