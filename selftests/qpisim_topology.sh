#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# qpisim topology: PCI IDs and locations seen by the guest, UBox socket
# mapping against the guest's packages, module parameters and their errors.
. "$(dirname "$0")/lib.sh"

ktap_plan 13

# dev_id BDF: "vendor:device" from sysfs
dev_id()
{
	[ -d "/sys/bus/pci/devices/$1" ] || { echo absent; return; }
	echo "$(cat "/sys/bus/pci/devices/$1/vendor"):$(cat "/sys/bus/pci/devices/$1/device")"
}

nr_fns_on_bus() # BUS (hex, 2 digits)
{
	ls /sys/bus/pci/devices | grep -c "^0000:$1:"
}

# default_bus N S: the last bus of socket S's equal share of 256 buses
default_bus()
{
	share=256
	while [ $share -gt 32 ] && [ $((256 / share)) -lt "$1" ]; do
		share=$((share / 2))
	done
	echo $((share * ($2 + 1) - 1))
}

packages=$(cat /sys/devices/system/cpu/cpu[0-9]*/topology/physical_package_id | sort -u | wc -l)

t_begin "default_load_one_socket_per_package"
expect_ok "insmod" qpisim_load platform=snbep
n=$(ls -d "$DBG"/socket* | wc -l)
expect_num "sockets" "$n" "$packages"
expect_eq "platform" "$(cat "$DBG/platform")" "snbep"
t_end

t_begin "snbep_ids_and_locations"
for s in $(seq 0 $((packages - 1))); do
	b=$(printf %02x "$(cat "$DBG/socket$s/bus")")
	expect_eq "socket $s bus" "$b" "$(printf %02x "$(default_bus "$packages" "$s")")"
	for spec in 0b.0:3ce0 08.0:3c80 08.2:3c41 08.6:3c86 09.0:3c90 \
		    09.2:3c42 09.6:3c96 13.0:3ce4 13.5:3c44 13.6:3c45; do
		loc=${spec%%:*}
		expect_eq "socket $s $loc" "$(dev_id "0000:$b:$loc")" \
			"0x8086:0x${spec#*:}"
	done
	expect_num "functions on bus $b" "$(nr_fns_on_bus "$b")" 10
done
t_end

t_begin "config_space_class_and_rate"
q=$(bdf 0 8 2)
expect_num "config size of 08.6" \
	"$(stat -c %s "/sys/bus/pci/devices/$(bdf 0 8 6)/config")" 4096
expect_eq "class of PMON function" "$(cat "/sys/bus/pci/devices/$q/class")" \
	0x110100
expect_num "QPI_RATE_STATUS" "$(cfg_rd "$(bdf 0 8 0)" 0xd4)" 5
t_end

t_begin "ubox_map_matches_packages"
for s in $(seq 0 $((packages - 1))); do
	u=$(bdf "$s" 0xb 0)
	map=$(cfg_rd "$u" 0x54)
	expect_num "socket $s CPUNODEID" "$(cfg_rd "$u" 0x40)" "$s"
	expect_num "socket $s GIDNIDMAP" "$map" 0xfac688
	expect_num "socket $s bus" "$(cat "$DBG/socket$s/bus")" \
		"$(default_bus "$packages" "$s")"
	# Group s of the map names this socket's node: package s.
	expect_num "group $s" $(((map >> (3 * s)) & 7)) "$s"
	grep -qx "$s" /sys/devices/system/cpu/cpu*/topology/physical_package_id ||
		fail "no CPU in package $s"
done
t_end

t_begin "buses_and_node_ids_parameters"
expect_ok "insmod" qsim snbep sockets=2 buses=0xff,0x7f node_ids=6,3 qpi_rate=7
expect_eq "socket 0 bus" "$(cat "$DBG/socket0/bus")" 0xff
expect_num "CPUNODEID on ff" "$(cfg_rd 0000:ff:0b.0 0x40)" 6
expect_num "CPUNODEID on 7f" "$(cfg_rd 0000:7f:0b.0 0x40)" 3
# 6, 3, then the unused node ids in order: 0 1 2 4 5 7
expect_num "GIDNIDMAP" "$(cfg_rd 0000:7f:0b.0 0x54)" \
	$((6 | 3 << 3 | 0 << 6 | 1 << 9 | 2 << 12 | 4 << 15 | 5 << 18 | 7 << 21))
expect_num "QPI_RATE_STATUS" "$(cfg_rd 0000:ff:08.0 0xd4)" 7
t_end

t_begin "ivbep_three_ports_three_links"
expect_ok "insmod" qsim ivbep qpi_ports=3 r3qpi_links=3
for spec in 0b.0:0e1e 08.2:0e32 09.2:0e33 18.2:0e3a 08.6:0e86 09.6:0e96 \
	    13.5:0e36 13.6:0e37 12.5:0e3e 18.0:0e40 12.0:0e1c; do
	expect_eq "ff:${spec%%:*}" "$(dev_id "0000:ff:${spec%%:*}")" \
		"0x8086:0x${spec#*:}"
done
expect_eq "no mask/match for port 2" "$(dev_id 0000:ff:18.6)" absent
expect_num "functions on bus ff" "$(nr_fns_on_bus ff)" 14
t_end

t_begin "hswep_and_bdx_ids"
expect_ok "insmod hswep" qsim hswep qpi_ports=3 r3qpi_links=3
for spec in 10.5:2f1e 08.2:2f32 0a.2:2f3a 0b.1:2f36 0b.5:2f3e; do
	expect_eq "hswep ${spec%%:*}" "$(dev_id "0000:7f:${spec%%:*}")" \
		"0x8086:0x${spec#*:}"
done
expect_ok "insmod bdx" qsim bdx qpi_ports=3 r3qpi_links=3
for spec in 10.5:6f1e 0a.2:6f3a 0a.6:6f46 0b.2:6f37; do
	expect_eq "bdx ${spec%%:*}" "$(dev_id "0000:7f:${spec%%:*}")" \
		"0x8086:0x${spec#*:}"
done
t_end

t_begin "four_and_eight_sockets"
expect_ok "insmod 4" qsim snbep sockets=4
for b in 3f 7f bf ff; do
	expect_eq "bus $b UBox" "$(dev_id "0000:$b:0b.0")" 0x8086:0x3ce0
done
expect_ok "insmod 8" qsim ivbep sockets=8
for b in 1f 3f 5f 7f 9f bf df ff; do
	expect_eq "bus $b UBox" "$(dev_id "0000:$b:0b.0")" 0x8086:0x0e1e
done
expect_num "socket 7 CPUNODEID" "$(cfg_rd 0000:ff:0b.0 0x40)" 7
t_end

t_begin "unload_removes_buses_and_debugfs"
expect_ok "rmmod" qpisim_unload
expect_num "functions left on 7f" "$(nr_fns_on_bus 7f)" 0
expect_num "functions left on ff" "$(nr_fns_on_bus ff)" 0
[ -e "$DBG" ] && fail "debugfs directory left behind"
t_end

t_begin "bad_platform_refused_with_message"
dmesg_mark
expect_err "platform=foo" "Invalid argument" qpisim_load platform=foo
expect_dmesg "message" "qpisim: platform=foo: unknown; use snbep, ivbep, hswep or bdx"
t_end

t_begin "bad_counts_refused"
dmesg_mark
expect_err "3 ports on snbep" "Invalid argument" qsim snbep qpi_ports=3
expect_dmesg "ports message" "qpi_ports must be 1..2 on snbep"
expect_err "sockets=9" "Invalid argument" qsim snbep sockets=9
expect_err "duplicate node ids" "Invalid argument" qsim snbep sockets=2 node_ids=1,1
expect_err "duplicate buses" "Invalid argument" qsim snbep sockets=2 buses=0x7f,0x7f
expect_err "wrong number of buses" "Invalid argument" qsim snbep sockets=2 buses=0x7f
t_end

t_begin "bus_in_use_refused_and_rolled_back"
dmesg_mark
# Bus 0 is the VM's own root bus.
expect_err "buses=0x3f,0x00" "busy" qsim snbep sockets=2 buses=0x3f,0x00
expect_dmesg "message" "cannot create root bus 0000:00 for socket 1"
expect_num "socket 0 bus rolled back" "$(nr_fns_on_bus 3f)" 0
grep -q '^qpisim ' /proc/modules && fail "module stayed loaded"
t_end

t_begin "reload_cycles"
for i in 1 2 3 4 5; do
	expect_ok "load $i" qsim ivbep qpi_ports=3 r3qpi_links=3
	expect_ok "unload $i" qpisim_unload
done
expect_num "functions left" "$(nr_fns_on_bus ff)" 0
t_end

ktap_finish
