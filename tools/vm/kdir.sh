#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build dir for out-of-tree modules.  QPI_KDIR overrides
# (run-vm sets it so modules always match the guest kernel, which need not be
# the running host kernel).
set -euo pipefail

if [[ -n ${QPI_KDIR:-} ]]; then
	echo "$QPI_KDIR"
	exit 0
fi
host=/lib/modules/$(uname -r)/build
if [[ -d $host ]]; then
	echo "$host"
	exit 0
fi
v=$("$(dirname "${BASH_SOURCE[0]}")/kver.sh")
for d in "/usr/src/linux-headers-$v" "/lib/modules/$v/build"; do
	if [[ -d $d ]]; then
		echo "$d"
		exit 0
	fi
done
echo "kdir.sh: no build dir for kernel $v" >&2
exit 1
