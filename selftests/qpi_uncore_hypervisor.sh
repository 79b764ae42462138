#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpi_uncore under a hypervisor: the in-tree driver refuses to load there;
# we load whenever the functions exist.  Only meaningful in a guest that
# shows the hypervisor CPUID bit (run-vm --hypervisor); skipped otherwise.
. "$(dirname "$0")/lib.sh"

ktap_plan 1

if ! grep -qw hypervisor /proc/cpuinfo; then
	t_skip "loads_under_hypervisor" "no hypervisor CPUID bit in this guest"
	ktap_finish
fi

t_begin "loads_under_hypervisor"
qpiu_unload
expect_ok "load qpisim" qsim "$PLATFORM"
expect_ok "load qpi_uncore" qpiu_load
qperf <<EOT
open e uncore_qpi_0 0x14 socket=0
inject event socket=0 box=qpi0 event=0x14 count=99
read e
EOT
expect_num "counts" "$(val e)" 99
t_end

qpiu_unload
qpisim_unload
ktap_finish
