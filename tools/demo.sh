#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot a simulated two-socket Xeon E5-2600 in QEMU, load qpisim
# and qpi_uncore, inject QPI traffic and count it with perf.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec "$here/vm/run-vm" --platform snbep --sockets 2 --cores 2 --quiet \
	--cmd "$(cat "$here/demo-guest.sh")"
