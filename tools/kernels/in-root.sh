#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/kernels/in-root.sh ROOT CMD...: run CMD in the build root ROOT, a
# chroot of tools/kernels/kernel.sh, or the host itself for ROOT=/.  The
# chroot gets /proc (objtool and dpkg read it) in a mount namespace of its
# own, so nothing stays mounted when CMD ends, however it ends.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 ROOT CMD..." >&2; exit 2; }
root=$1
shift
[[ $root != / ]] || exec "$@"
exec unshare --mount --propagation private -- \
	sh -c 'mount -t proc proc "$1/proc" && root=$1 && shift && exec chroot "$root" "$@"' \
	sh "$root" "$@"
