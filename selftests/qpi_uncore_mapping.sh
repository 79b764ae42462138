#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The QPI mapping in sysfs: uncore_qpi_<p>/die<D> holds qpi_<port>,die_<die>
# of the port's peer (the kernel's UPI mapping format), read from the
# link layer's registers that qpisim derives from its link map, and
# uncore_qpi_<p>/link/die<D> the link state and why a port has no peer.
# Every default map, node ids other than the socket numbers, 8 sockets, a
# crossed board, a rewiring, a down link, two ends that disagree, a far
# end the driver lets go: each read live, with qpi_uncore loaded once per
# model.
. "$(dirname "$0")/lib.sh"

ktap_plan 9

case $PLATFORM in
snbep) PORTS=2 ;;
ivbep | hswep | bdx) PORTS=3 ;;
*) echo "# qpi_uncore_mapping.sh: qpisim has no $PLATFORM"; exit $KSFT_SKIP ;;
esac
LAST_DIE=$((NR_SOCKETS - 1))
LAST_PORT=$((PORTS - 1))

# model [param=value ...]: qpisim of this platform, qpi_uncore over it
model()
{
	qpiu_unload
	expect_ok "load qpisim $*" qsim "$PLATFORM" qpi_ports=$PORTS "$@"
	expect_ok "load qpi_uncore" qpiu_load
}

links() { printf '%b\n' "$1" > "$DBG/links" || fail "links: cannot write '$1'"; }

# map P D WANT: uncore_qpi_P/dieD reads exactly WANT
map()
{
	got=$(cat "$PMUS/uncore_qpi_$1/die$2" 2>&1)
	expect_eq "uncore_qpi_$1/die$2" "$got" "$3"
}

# nomap P D: uncore_qpi_P/dieD has no mapping: the read fails, ENODATA
nomap()
{
	expect_err "uncore_qpi_$1/die$2" "No data available" \
		cat "$PMUS/uncore_qpi_$1/die$2"
}

# state P D WANT: uncore_qpi_P/link/dieD reads exactly WANT
state()
{
	got=$(cat "$PMUS/uncore_qpi_$1/link/die$2" 2>&1)
	expect_eq "uncore_qpi_$1/link/die$2" "$got" "$3"
}

# as_links WHAT: every port of every die as qpisim's links file says
as_links()
{
	echo "# $1: links $(tr '\n' ';' < "$DBG/links")"
	for d in $(seq 0 $LAST_DIE); do
		for p in $(seq 0 $LAST_PORT); do
			set -- $(awk -v e="$d.$p" '$1 == e { print $2, $3 }
				 $2 == e { print $1, $3 }' "$DBG/links")
			if [ $# -eq 0 ]; then
				state "$p" "$d" "waiting_for_physical_layer not_normal_operation"
				nomap "$p" "$d"
			elif [ "${2:-}" = down ]; then
				state "$p" "$d" "link_abort not_normal_operation"
				nomap "$p" "$d"
			else
				state "$p" "$d" normal_operation
				map "$p" "$d" "qpi_${1#*.},die_${1%.*}"
			fi
		done
	done
}

t_begin "files"
model sockets="$NR_SOCKETS"
for p in $(seq 0 $LAST_PORT); do
	for d in $(seq 0 $LAST_DIE); do
		[ -f "$PMUS/uncore_qpi_$p/die$d" ] || fail "no uncore_qpi_$p/die$d"
		[ -f "$PMUS/uncore_qpi_$p/link/die$d" ] ||
			fail "no uncore_qpi_$p/link/die$d"
	done
	# one file a die the kernel counts, nothing beyond
	[ -e "$PMUS/uncore_qpi_$p/die$NR_SOCKETS" ] &&
		fail "uncore_qpi_$p/die$NR_SOCKETS with $NR_SOCKETS dies"
	expect_num "uncore_qpi_$p: die files" \
		"$(ls "$PMUS/uncore_qpi_$p/link" | wc -l)" "$NR_SOCKETS"
done
# R3QPI links are not QPI ports
[ -e "$PMUS/uncore_r3qpi_0/die0" ] && fail "uncore_r3qpi_0 has die0"
[ -e "$PMUS/uncore_r3qpi_0/link" ] && fail "uncore_r3qpi_0 has link/"
t_end

t_begin "default_map"
as_links "default map, $NR_SOCKETS sockets"
# the default maps written out (Documentation/qpisim.rst, "Link map")
case "$NR_SOCKETS.$PORTS" in
2.*)
	for p in $(seq 0 $LAST_PORT); do
		map "$p" 0 "qpi_$p,die_1"
		map "$p" 1 "qpi_$p,die_0"
	done ;;
4.2)	# a ring: port 0 to the next socket's port 1
	map 0 0 "qpi_1,die_1"
	map 1 0 "qpi_0,die_3"
	map 0 3 "qpi_1,die_0"
	map 1 2 "qpi_0,die_1" ;;
4.3)	# a full mesh: port k of s to port 2 - k of s + k + 1
	map 0 0 "qpi_2,die_1"
	map 2 0 "qpi_0,die_3"
	map 1 1 "qpi_1,die_3"
	map 0 3 "qpi_2,die_0"
	map 2 2 "qpi_0,die_1" ;;
esac
t_end

# Node ids that are not the socket numbers: the peer's node id goes to
# its socket through GIDNIDMAP, as the driver's socket of a bus does.
t_begin "node_ids"
case $NR_SOCKETS in
2) model sockets=2 node_ids=6,1 ;;
4) model sockets=4 node_ids=3,7,0,5 ;;
*) model sockets="$NR_SOCKETS" ;;
esac
echo "# node ids: $(cat "$DBG"/socket*/node_id 2>/dev/null | paste -sd, -)"
as_links "node ids permuted"
case "$NR_SOCKETS.$PORTS" in
2.*) map 0 0 "qpi_0,die_1" ;;
4.2) map 0 0 "qpi_1,die_1" ;;
4.3) map 0 0 "qpi_2,die_1" ;;
esac
t_end

# 8 sockets modelled, the guest's dies seen: sockets 4..7 have node ids
# with NodeID[9:3] = 1; a socket no CPU of which is online is numbered by
# its socket.
t_begin "eight_sockets"
if [ "$PORTS" -eq 3 ]; then
	model sockets=8
	as_links "8 sockets"
	# the ring and port 2 across: 0.0 1.1, 0.1 7.0, 0.2 4.2
	map 0 0 "qpi_1,die_1"
	map 1 0 "qpi_0,die_7"
	map 2 0 "qpi_2,die_4"
	[ "$NR_SOCKETS" -ge 2 ] && map 2 1 "qpi_2,die_5"
else
	model sockets=8
	as_links "8 sockets, a ring of two ports"
	map 0 0 "qpi_1,die_1"
	map 1 0 "qpi_0,die_7"
fi
t_end

t_begin "crossed_board"
model sockets="$NR_SOCKETS"
if [ "$NR_SOCKETS" -eq 2 ]; then
	links "clear\n0.0 1.1\n0.1 1.0"
	map 0 0 "qpi_1,die_1"
	map 1 1 "qpi_0,die_0"
	map 1 0 "qpi_0,die_1"
	map 0 1 "qpi_1,die_0"
	[ "$PORTS" -eq 3 ] && state 2 0 "waiting_for_physical_layer not_normal_operation"
	as_links "crossed"
else
	# two sockets of the ring crossed over: 0.0 to 2.0, 1.1 to 3.1
	links "0.0 2.0\n1.1 3.1"
	map 0 0 "qpi_0,die_2"
	map 0 2 "qpi_0,die_0"
	map 1 3 "qpi_1,die_1"
	as_links "crossed"
fi
t_end

t_begin "down_and_up"
links "0.0 down"
state 0 0 "link_abort not_normal_operation"
nomap 0 0
far=$(awk '$1 == "0.0" { print $2 }' "$DBG/links")
state "${far#*.}" "${far%.*}" "link_abort not_normal_operation"
nomap "${far#*.}" "${far%.*}"
as_links "0.0 down"
# the other end brings it back
links "$far up"
state 0 0 normal_operation
map 0 0 "qpi_${far#*.},die_${far%.*}"
as_links "up again"
t_end

t_begin "rewired"
model sockets="$NR_SOCKETS"
links "0.0 none"
state 0 0 "waiting_for_physical_layer not_normal_operation"
nomap 0 0
# 1.0 now to 0.1: 0.1's old peer and 1.0's are left without a link
links "1.0 0.1"
map 1 0 "qpi_0,die_1"
map 0 1 "qpi_1,die_0"
as_links "rewired"
t_end

# A parameter exchange gone wrong (qpisim's "S.P names T.Q" fault): 0.0's
# QPILP0/QPILP2 name X, the peer of 0.1, instead of 0.0's own peer.  X
# names 0.1 back, not 0.0, and 0.0's peer is named by nobody it names: both
# ends of 0.0's link disagree and publish no peer.  0.1 and X still agree.
# Naming the peer again restores the map.
t_begin "ends_disagree"
model sockets="$NR_SOCKETS"
far=$(awk '$1 == "0.0" { print $2 } $2 == "0.0" { print $1 }' "$DBG/links")
x=$(awk '$1 == "0.1" { print $2 } $2 == "0.1" { print $1 }' "$DBG/links")
links "0.0 names $x"
expect_eq "links file names the fault" "$(grep names "$DBG/links")" "0.0 names $x"
state 0 0 "normal_operation peer_disagrees"
nomap 0 0
state "${far#*.}" "${far%.*}" "normal_operation peer_disagrees"
nomap "${far#*.}" "${far%.*}"
state 1 0 normal_operation
map 1 0 "qpi_${x#*.},die_${x%.*}"
state "${x#*.}" "${x%.*}" normal_operation
map "${x#*.}" "${x%.*}" "qpi_1,die_0"
links "0.0 names peer"
expect_eq "links file without the fault" "$(grep -c names "$DBG/links")" 0
state 0 0 normal_operation
map 0 0 "qpi_${far#*.},die_${far%.*}"
map "${far#*.}" "${far%.*}" "qpi_0,die_0"
as_links "names cleared"
t_end

# The far end's QPI function unbound from qpi_uncore: that port is not
# the driver's any more, so the near end has no peer to agree with; and
# on its own die the PMU has no port at all.
t_begin "far_end_let_go"
links "clear\n0.0 1.0"
far=$(qpi_bdf 1 0)
echo "$far" > /sys/bus/pci/drivers/qpi_uncore/unbind ||
	fail "cannot unbind $far"
state 0 0 "normal_operation peer_socket_absent"
nomap 0 0
expect_err "uncore_qpi_0/link/die1" "No such device" \
	cat "$PMUS/uncore_qpi_0/link/die1"
nomap 0 1
echo "$far" > /sys/bus/pci/drivers/qpi_uncore/bind || fail "cannot bind $far"
state 0 0 normal_operation
map 0 0 "qpi_0,die_1"
map 0 1 "qpi_0,die_0"
t_end

qpiu_unload
qpisim_unload
ktap_finish
